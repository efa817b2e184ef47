/* A small CSV reader for the result files of the tools
 * (data/FORMAT.md): a header row, then rows of the same width.  Every error
 * names the file, the line and what was expected, so a user can fix the
 * file by hand. */
#ifndef LBP_TABLE_H
#define LBP_TABLE_H

#include <stddef.h>

typedef struct {
    char path[512];
    int columns;       /* fields per row, from the header */
    int rows;          /* data rows (the header not counted) */
    char **header;     /* columns names */
    char **fields;     /* rows x columns, row-major */
    int *line;         /* source line number of each data row (1-based) */
} lbp_table;

enum { LBP_TABLE_OK = 0, LBP_TABLE_MISSING = -1, LBP_TABLE_MALFORMED = -2 };

/* Read path.  With has_header == 0 (key,value meta files) the first row is
 * data unless it is literally "key,value"; the column names are then "key"
 * and "value".  Returns LBP_TABLE_OK, or MISSING (cannot open) or MALFORMED
 * with a one-line message ("file:line: ...") in err. */
int lbp_table_read(lbp_table *t, const char *path, int has_header, char *err, size_t err_len);
void lbp_table_free(lbp_table *t);

/* Index of the named column, or -1. */
int lbp_table_column(const lbp_table *t, const char *name);
/* Check that every name (NULL-terminated list) is a column; otherwise the
 * message names the file, line 1 and the missing column.  Returns 0 ok. */
int lbp_table_require(const lbp_table *t, const char *const *names, char *err, size_t err_len);
/* lbp_table_read (with a header) and lbp_table_require together: OK, MISSING
 * (err says the file cannot be opened), or MALFORMED (the table freed). */
int lbp_table_read_columns(lbp_table *t, const char *path, const char *const *names, char *err, size_t err_len);
/* err = the printf-style message (when err is not NULL); returns -1, so a
 * reader can `return lbp_error(err, err_len, "%s:%d: ...", ...)`. */
int lbp_error(char *err, size_t err_len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
const char *lbp_table_text(const lbp_table *t, int row, int column);
/* The field as a finite number; on anything else ("nan", "inf", a value
 * past the double range, text): "file:line: column 'c': expected a number,
 * got 'x'" and -1. */
int lbp_table_number(const lbp_table *t, int row, int column, double *out, char *err,
                       size_t err_len);
/* Same, by column name (which must exist: checked by lbp_table_require). */
int lbp_table_number_by_name(const lbp_table *t, int row, const char *name, double *out,
                               char *err, size_t err_len);
/* The checked readers for values that feed arithmetic: a finite number in
 * [min, max] (a number outside: "file:line: column 'c' (field k): x is out
 * of range [min, max]" and -1), so 1e308, 0 or -1 where a time or a
 * bandwidth is expected stops at the file, never turns into inf or NaN
 * downstream.  On error *out is left unchanged. */
int lbp_table_number_in(const lbp_table *t, int row, int column, double min, double max, double *out,
                        char *err, size_t err_len);
int lbp_table_number_in_by_name(const lbp_table *t, int row, const char *name, double min, double max,
                                double *out, char *err, size_t err_len);
/* A whole number in [min, max] ("2.5" or "1e30" for an int column is an
 * error, not a truncation or an undefined cast). */
int lbp_table_whole_in(const lbp_table *t, int row, int column, long long min, long long max, long long *out,
                       char *err, size_t err_len);
int lbp_table_whole_in_by_name(const lbp_table *t, int row, const char *name, long long min, long long max,
                               long long *out, char *err, size_t err_len);

#endif
