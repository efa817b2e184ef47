/* Result files: CSV with a header row, device and backend in every row,
 * written to "<path>.tmp.<pid>" and renamed on commit, never overwriting an
 * existing file unless forced (the rename itself refuses an existing name,
 * so a file that appeared meanwhile is kept too).  A tool holds a lock on
 * its result folder from its first check or file until it exits: a second
 * run into the same folder fails at once.  Also the "<tool>-meta.csv"
 * key,value file. */
#ifndef LBP_CSV_H
#define LBP_CSV_H

#include <stdio.h>
#include "device.h"

typedef struct lbp_csv lbp_csv;

/* Make dir (and parents): 0, or -1 with errno set and *failed (if given)
 * the length of the prefix of dir that could not be made. */
int lbp_make_folders(const char *dir, size_t *failed);
/* The same, exiting 1 with a message naming that folder when it cannot. */
void lbp_mkdir_p(const char *dir);

/* Result folder of a tool that takes --out: opt_dir if given, else
 * "results/<slug>" (never the committed data/).  A folder whose path
 * leaves no room for the result files' names (PATH_MAX) is a usage error
 * (exit 2).  The string lives until the
 * next call.  Refusals to overwrite then suggest --out. */
const char *lbp_result_dir(const char *opt_dir, const lbp_device_info *info);

/* Create dir and lock it for this process until it exits (flock): exit 1
 * with one line when another run holds it.  Removes the temp files that
 * runs which ended early left there. */
void lbp_claim_dir(const char *dir);

/* Claim dir (lbp_claim_dir), then refuse early (exit 1, one line naming
 * the file and --force) when any of the named files exists in dir and
 * !force.  names: NULL-terminated. */
void lbp_check_fresh(const char *dir, const char *const *names, int force);

/* Open dir/name for writing (into dir/name.tmp).  header: the column names,
 * comma-separated, WITHOUT device,backend (they are prepended). */
lbp_csv *lbp_csv_open(const char *dir, const char *name, const char *header,
                      const lbp_device_info *info, int force);
/* One row: printf-style fields, comma-separated, WITHOUT device,backend. */
void lbp_csv_row(lbp_csv *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Rows from here on carry this backend (a file merging several backends'
 * measurements of one device). */
void lbp_csv_set_backend(lbp_csv *c, const char *backend);
/* Rename into place. */
void lbp_csv_commit(lbp_csv *c);
/* Close, and rename into place together with the tool's other finished
 * files just before its meta file (lbp_meta_write); a run that exits
 * before that leaves none of them. */
void lbp_csv_finish(lbp_csv *c);
/* Remove the temporary file (a failed run leaves nothing). */
void lbp_csv_abort(lbp_csv *c);

/* ---- <tool>-meta.csv ----------------------------------------------------
 * key,value rows: the device description, version, date, git commit and
 * command line (lbp_meta_new), then the tool's own rows in the order set.
 * Keys and values are copied: a caller may build them in local buffers. */
typedef struct lbp_meta lbp_meta;
lbp_meta *lbp_meta_new(const char *tool, const lbp_device_info *info, int argc, char **argv);
/* Set key to a printf-formatted value (a key set before keeps its place). */
void lbp_meta_set(lbp_meta *m, const char *key, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* A number, or "n/a" where v is NaN (not measured). */
void lbp_meta_number(lbp_meta *m, const char *key, const char *fmt, double v);
/* Write dir/<tool>-meta.csv (temp file and rename; an existing one is kept,
 * exit 1, unless force), then free m. */
void lbp_meta_write(lbp_meta *m, const char *dir, int force);
void lbp_meta_free(lbp_meta *m);

/* The same in one call, with extra rows from a list (model/ builds its
 * rows so). */
typedef struct { const char *key; char value[256]; } lbp_kv;
void lbp_write_meta(const char *dir, const char *tool, const lbp_device_info *info,
                    int argc, char **argv, const lbp_kv *extra, int n_extra, int force);

#endif
