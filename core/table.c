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

/* One line without its end-of-line; NULL at end of file.  Caller frees. */
static char *read_line(FILE *f)
{
    size_t cap = 256, n = 0;
    char *s = malloc(cap);
    int c;
    while ((c = fgetc(f)) != EOF && c != '\n') {
        if (n + 1 >= cap) s = realloc(s, cap *= 2);
        s[n++] = (char)c;
    }
    if (c == EOF && n == 0) { free(s); return NULL; }
    if (n && s[n - 1] == '\r') n--;
    s[n] = '\0';
    return s;
}

static int is_blank(const char *s)
{
    for (; *s; s++)
        if (*s != ' ' && *s != '\t') return 0;
    return 1;
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
    int cap = 64, line_no = 0;
    char *line;
    while ((line = read_line(f))) {
        line_no++;
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
                for (int i = 0; i < n; i++)
                    for (int j = 0; j < i; j++)
                        if (!strcmp(fields[i], fields[j])) {
                            lbp_error(err, err_len, "%s:%d: column '%s' appears twice in the header",
                                      path, line_no, fields[i]);
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

int lbp_table_number(const lbp_table *t, int row, int column, double *out, char *err,
                       size_t err_len)
{
    const char *s = lbp_table_text(t, row, column);
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    while (*end == ' ') end++;
    if (end == s || *end || errno == ERANGE || !isfinite(v)) {
        lbp_error(err, err_len, "%s:%d: column '%s': expected a number, got '%s'", t->path,
                  t->line[row], t->header[column], s);
        return -1;
    }
    *out = v;
    return 0;
}

int lbp_table_number_by_name(const lbp_table *t, int row, const char *name, double *out,
                               char *err, size_t err_len)
{
    int c = lbp_table_column(t, name);
    if (c < 0) {
        lbp_error(err, err_len, "%s:1: missing column '%s' in the header", t->path, name);
        return -1;
    }
    return lbp_table_number(t, row, c, out, err, err_len);
}
