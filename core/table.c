/* CSV reader: see table.h. */
#include "table.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int lbp_error(char *err, size_t err_len, const char *fmt, ...)
{
    if (!err || !err_len) return -1;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, err_len, fmt, ap);
    va_end(ap);
    return -1;
}

/* Split one line into fields (RFC 4180 quotes: "a,b" and "" inside quotes).
 * Returns the number of fields, or -1 on an unterminated quote; the fields
 * are malloc'ed into *out (caller frees each and the array). */
static int split_fields(const char *line, char ***out)
{
    int cap = 16, n = 0;
    char **fields = malloc(sizeof *fields * cap);
    size_t len = strlen(line);
    char *buf = malloc(len + 1);
    const char *p = line;
    for (;;) {
        size_t k = 0;
        if (*p == '"') {
            p++;
            for (;;) {
                if (*p == '\0') {
                    for (int i = 0; i < n; i++) free(fields[i]);
                    free(fields);
                    free(buf);
                    return -1;
                }
                if (*p == '"' && p[1] == '"') { buf[k++] = '"'; p += 2; continue; }
                if (*p == '"') { p++; break; }
                buf[k++] = *p++;
            }
            while (*p && *p != ',') buf[k++] = *p++; /* tolerate text after the quote */
        } else {
            while (*p && *p != ',') buf[k++] = *p++;
        }
        buf[k] = '\0';
        if (n == cap) fields = realloc(fields, sizeof *fields * (cap *= 2));
        fields[n++] = strdup(buf);
        if (*p == ',') { p++; continue; }
        break;
    }
    free(buf);
    *out = fields;
    return n;
}

static void free_fields(char **f, int n)
{
    for (int i = 0; i < n; i++) free(f[i]);
    free(f);
}

/* One line without its end-of-line; NULL at end of file.  Caller frees.
 * *len: its length, so that a NUL byte inside it shows (the string would
 * end there); *cut: 1 when the file ended before the line's '\n'. */
static char *read_line(FILE *f, size_t *len, int *cut)
{
    size_t cap = 256, n = 0;
    char *s = malloc(cap);
    int c;
    while ((c = fgetc(f)) != EOF && c != '\n') {
        if (n + 1 >= cap) s = realloc(s, cap *= 2);
        s[n++] = (char)c;
    }
    if (c == EOF && n == 0) { free(s); return NULL; }
    *cut = c == EOF;
    if (n && s[n - 1] == '\r') n--;
    s[n] = '\0';
    *len = n;
    return s;
}

static int is_blank(const char *s)
{
    for (; *s; s++)
        if (*s != ' ' && *s != '\t') return 0;
    return 1;
}

/* Why a line cannot be read as it stands, or NULL.  A NUL byte would end
 * the C string early: at a line's start the row would look blank and be
 * skipped, inside it a field would be cut.  A last line without its '\n'
 * is what a writer killed mid-row leaves: its last field may be cut short
 * (every tool ends each row with '\n'). */
static const char *line_fault(const char *line, size_t len, int cut)
{
    if (memchr(line, '\0', len)) return "NUL byte in the line (not a text file?)";
    if (cut) return "the file ends inside this line, with no end-of-line (cut short?)";
    return NULL;
}

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* A name that appears twice among n, or NULL.  Sorted copy: O(n log n), so
 * a header of a few hundred thousand columns is checked at once. */
static const char *repeated_name(char **names, int n)
{
    if (n < 2) return NULL;
    const char **sorted = malloc(sizeof *sorted * (size_t)n);
    if (!sorted) return NULL;
    memcpy(sorted, names, sizeof *sorted * (size_t)n);
    qsort(sorted, (size_t)n, sizeof *sorted, compare_names);
    const char *twice = NULL;
    for (int i = 1; i < n && !twice; i++)
        if (!strcmp(sorted[i - 1], sorted[i])) twice = sorted[i];
    free(sorted);
    return twice;
}

int lbp_table_read(lbp_table *t, const char *path, int has_header, char *err, size_t err_len)
{
    memset(t, 0, sizeof *t);
    snprintf(t->path, sizeof t->path, "%s", path);
    FILE *f = fopen(path, "r");
    if (!f) {
        lbp_error(err, err_len, "%s: cannot open: %s", path, strerror(errno));
        return LBP_TABLE_MISSING;
    }
    int cap = 64, line_no = 0, cut = 0;
    size_t len = 0;
    char *line;
    while ((line = read_line(f, &len, &cut))) {
        line_no++;
        const char *bad = line_fault(line, len, cut);
        if (bad) {
            lbp_error(err, err_len, "%s:%d: %s", path, line_no, bad);
            free(line);
            fclose(f);
            lbp_table_free(t);
            return LBP_TABLE_MALFORMED;
        }
        if (is_blank(line)) { free(line); continue; }
        char **fields;
        int n = split_fields(line, &fields);
        free(line);
        if (n < 0) {
            lbp_error(err, err_len, "%s:%d: unterminated quoted field", path, line_no);
            fclose(f);
            lbp_table_free(t);
            return LBP_TABLE_MALFORMED;
        }
        if (!t->header) {
            int header_row = has_header || (n == 2 && !strcmp(fields[0], "key") &&
                                            !strcmp(fields[1], "value"));
            if (!has_header) {
                t->columns = 2;
                t->header = malloc(2 * sizeof *t->header);
                t->header[0] = strdup("key");
                t->header[1] = strdup("value");
            } else {
                t->columns = n;
                t->header = fields;
                const char *twice = repeated_name(fields, n);
                if (twice) {
                    lbp_error(err, err_len, "%s:%d: column '%s' appears twice in the header", path, line_no,
                              twice);
                    fclose(f);
                    lbp_table_free(t);
                    return LBP_TABLE_MALFORMED;
                }
            }
            t->fields = malloc(sizeof *t->fields * (size_t)cap * t->columns);
            t->line = malloc(sizeof *t->line * cap);
            if (header_row) {
                if (!has_header) free_fields(fields, n);
                continue;
            }
        }
        if (n != t->columns) {
            lbp_error(err, err_len, "%s:%d: expected %d comma-separated fields (as the header), got %d",
                      path, line_no, t->columns, n);
            free_fields(fields, n);
            fclose(f);
            lbp_table_free(t);
            return LBP_TABLE_MALFORMED;
        }
        if (t->rows == cap) {
            cap *= 2;
            t->fields = realloc(t->fields, sizeof *t->fields * (size_t)cap * t->columns);
            t->line = realloc(t->line, sizeof *t->line * cap);
        }
        memcpy(t->fields + (size_t)t->rows * t->columns, fields, sizeof *fields * t->columns);
        free(fields);
        t->line[t->rows++] = line_no;
    }
    fclose(f);
    if (!t->header) {
        lbp_error(err, err_len, "%s:1: expected a header row, the file is empty", path);
        lbp_table_free(t);
        return LBP_TABLE_MALFORMED;
    }
    return LBP_TABLE_OK;
}

void lbp_table_free(lbp_table *t)
{
    if (t->header) free_fields(t->header, t->columns);
    if (t->fields) {
        for (size_t i = 0; i < (size_t)t->rows * t->columns; i++) free(t->fields[i]);
        free(t->fields);
    }
    free(t->line);
    t->header = NULL;
    t->fields = NULL;
    t->line = NULL;
    t->rows = t->columns = 0;
}

int lbp_table_column(const lbp_table *t, const char *name)
{
    for (int i = 0; i < t->columns; i++)
        if (!strcmp(t->header[i], name)) return i;
    return -1;
}

int lbp_table_require(const lbp_table *t, const char *const *names, char *err, size_t err_len)
{
    for (; *names; names++)
        if (lbp_table_column(t, *names) < 0) {
            lbp_error(err, err_len, "%s:1: missing column '%s' in the header", t->path, *names);
            return -1;
        }
    return 0;
}

int lbp_table_read_columns(lbp_table *t, const char *path, const char *const *names, char *err, size_t err_len)
{
    int r = lbp_table_read(t, path, 1, err, err_len);
    if (r != LBP_TABLE_OK) return r;
    if (lbp_table_require(t, names, err, err_len)) {
        lbp_table_free(t);
        return LBP_TABLE_MALFORMED;
    }
    return LBP_TABLE_OK;
}

const char *lbp_table_text(const lbp_table *t, int row, int column)
{
    return t->fields[(size_t)row * t->columns + column];
}

/* errno and isfinite: "nan", "inf" and a value past the double range are
 * not numbers here. */
int lbp_table_number(const lbp_table *t, int row, int column, double *out, char *err,
                       size_t err_len)
{
    const char *s = lbp_table_text(t, row, column);
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    while (*end == ' ') end++;
    if (end == s || *end || errno == ERANGE || !isfinite(v))
        return lbp_error(err, err_len, "%s:%d: column '%s': expected a number, got '%s'", t->path, t->line[row],
                         t->header[column], s);
    *out = v;
    return 0;
}

int lbp_table_number_in(const lbp_table *t, int row, int column, double min, double max, double *out,
                        char *err, size_t err_len)
{
    double v;
    if (lbp_table_number(t, row, column, &v, err, err_len)) return -1;
    if (!(v >= min && v <= max))
        return lbp_error(err, err_len, "%s:%d: column '%s' (field %d): %s is out of range [%g, %g]", t->path,
                         t->line[row], t->header[column], column + 1, lbp_table_text(t, row, column), min, max);
    *out = v;
    return 0;
}

int lbp_table_whole_in(const lbp_table *t, int row, int column, long long min, long long max, long long *out,
                       char *err, size_t err_len)
{
    double v;
    if (lbp_table_number(t, row, column, &v, err, err_len)) return -1;
    /* within [-2^63, 2^63) before the cast: past it the cast is undefined */
    if (v != floor(v) || !(v >= -0x1p63 && v < 0x1p63) || (long long)v < min || (long long)v > max)
        return lbp_error(err, err_len, "%s:%d: column '%s' (field %d): expected a whole number in [%lld, %lld], got '%s'",
                         t->path, t->line[row], t->header[column], column + 1, min, max,
                         lbp_table_text(t, row, column));
    *out = (long long)v;
    return 0;
}

/* The column's index, or -1 with the message lbp_table_require gives. */
static int named_column(const lbp_table *t, const char *name, char *err, size_t err_len)
{
    int c = lbp_table_column(t, name);
    if (c < 0) lbp_error(err, err_len, "%s:1: missing column '%s' in the header", t->path, name);
    return c;
}

int lbp_table_number_by_name(const lbp_table *t, int row, const char *name, double *out,
                               char *err, size_t err_len)
{
    int c = named_column(t, name, err, err_len);
    return c < 0 ? -1 : lbp_table_number(t, row, c, out, err, err_len);
}

int lbp_table_number_in_by_name(const lbp_table *t, int row, const char *name, double min, double max,
                                double *out, char *err, size_t err_len)
{
    int c = named_column(t, name, err, err_len);
    return c < 0 ? -1 : lbp_table_number_in(t, row, c, min, max, out, err, err_len);
}

int lbp_table_whole_in_by_name(const lbp_table *t, int row, const char *name, long long min, long long max,
                               long long *out, char *err, size_t err_len)
{
    int c = named_column(t, name, err, err_len);
    return c < 0 ? -1 : lbp_table_whole_in(t, row, c, min, max, out, err, err_len);
}
