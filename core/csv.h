/* Result files: CSV with a header row, device and backend in every row,
 * written to "<path>.tmp" and renamed on commit, never overwriting an
 * existing file unless forced. Also the "<tool>-meta.csv" key,value file. */
#ifndef LBP_CSV_H
#define LBP_CSV_H

#include <stdio.h>
#include "device.h"

typedef struct lbp_csv lbp_csv;

/* Make dir (and parents). Exits 1 with a message when it cannot. */
void lbp_mkdir_p(const char *dir);

/* Result folder: opt_dir if given, else "data/<slug>".  Returned string is
 * static storage. */
const char *lbp_result_dir(const char *opt_dir, const lbp_device_info *info);

/* Refuse early (exit 1, one line naming the file and --force) when any of
 * the named files exists in dir and !force.  names: NULL-terminated. */
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
/* Remove the temporary file (a failed run leaves nothing). */
void lbp_csv_abort(lbp_csv *c);

/* <tool>-meta.csv: key,value rows with the device description, date, git
 * commit, command line, plus extra pairs (NULL-terminated key, value list). */
typedef struct { const char *key; char value[256]; } lbp_kv;
void lbp_write_meta(const char *dir, const char *tool, const lbp_device_info *info,
                    int argc, char **argv, const lbp_kv *extra, int n_extra, int force);

#endif
