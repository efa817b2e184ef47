/* A small CSV reader for the result files of the other tools
 * (data/FORMAT.md): a header row, then rows of the same width.  Every error
 * names the file, the line and what was expected, so a user can fix the
 * file by hand. */
#ifndef MODEL_TABLE_H
#define MODEL_TABLE_H

#include <stddef.h>

typedef struct {
    char path[512];
    int columns;       /* fields per row, from the header */
    int rows;          /* data rows (the header not counted) */
    char **header;     /* columns names */
    char **fields;     /* rows x columns, row-major */
    int *line;         /* source line number of each data row (1-based) */
} model_table;

enum { MODEL_TABLE_OK = 0, MODEL_TABLE_MISSING = -1, MODEL_TABLE_MALFORMED = -2 };

/* Read path.  With has_header == 0 (key,value meta files) the first row is
 * data unless it is literally "key,value"; the column names are then "key"
 * and "value".  Returns MODEL_TABLE_OK, or MISSING (cannot open) or MALFORMED
 * with a one-line message ("file:line: ...") in err. */
int model_table_read(model_table *t, const char *path, int has_header, char *err, size_t err_len);
void model_table_free(model_table *t);

/* Index of the named column, or -1. */
int model_table_column(const model_table *t, const char *name);
/* Check that every name (NULL-terminated list) is a column; otherwise the
 * message names the file, line 1 and the missing column.  Returns 0 ok. */
int model_table_require(const model_table *t, const char *const *names, char *err, size_t err_len);
const char *model_table_text(const model_table *t, int row, int column);
/* The field as a number; on a non-number: "file:line: column 'c': expected
 * a number, got 'x'" and -1. */
int model_table_number(const model_table *t, int row, int column, double *out, char *err,
                       size_t err_len);
/* Same, by column name (which must exist: checked by model_table_require). */
int model_table_number_by_name(const model_table *t, int row, const char *name, double *out,
                               char *err, size_t err_len);

#endif
