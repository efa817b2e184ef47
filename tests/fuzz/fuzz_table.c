/* libFuzzer: the CSV reader (core/table.c) on any bytes.  The first byte
 * picks the mode (bit 0: a header row, else key,value); the rest is the
 * file.  Beyond the sanitizers' crashes, leaks and undefined behaviour, it
 * checks what a reader of the table relies on: every field present, every
 * header name found at its own index (duplicates are refused), a number
 * accepted only when finite and in range, and every error one line naming
 * the file. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_file.h"
#include "table.h"

#define CHECK(c) do { if (!(c)) { fprintf(stderr, "fuzz_table: check failed: %s\n", #c); abort(); } } while (0)

static char path[4096];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    fuzz_scratch_file(path, sizeof path, "table.csv");
    return 0;
}

static void check_error(const char *err)
{
    CHECK(err[0]);
    CHECK(!strncmp(err, path, strlen(path)));
    CHECK(!strchr(err, '\n'));
}

static void check_numbers(const lbp_table *t, int r, int c)
{
    char err[512];
    double v = 0, w = 0;
    long long k = 0;
    if (lbp_table_number(t, r, c, &v, err, sizeof err) == 0) CHECK(isfinite(v));
    else check_error(err);
    if (lbp_table_number_in(t, r, c, -1, 1e6, &w, err, sizeof err) == 0) CHECK(w >= -1 && w <= 1e6 && w == v);
    else check_error(err);
    if (lbp_table_whole_in(t, r, c, 0, 1LL << 40, &k, err, sizeof err) == 0) CHECK(k >= 0 && k <= (1LL << 40) && (double)k == v);
    else check_error(err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    fuzz_write_file(path, data + 1, size - 1);
    const int has_header = data[0] & 1;
    lbp_table t;
    char err[512] = "";
    int r = lbp_table_read(&t, path, has_header, err, sizeof err);
    if (r != LBP_TABLE_OK) {
        CHECK(r == LBP_TABLE_MALFORMED);
        check_error(err);
        CHECK(!t.header && !t.fields && !t.line && t.rows == 0);
        return 0;
    }
    CHECK(t.columns >= 1 && t.header && (has_header || t.columns == 2));
    for (int c = 0; c < t.columns; c++) CHECK(lbp_table_column(&t, t.header[c]) == c);
    for (int row = 0; row < t.rows; row++) {
        CHECK(t.line[row] >= 1 && (row == 0 || t.line[row] > t.line[row - 1]));
        for (int c = 0; c < t.columns; c++) {
            CHECK(lbp_table_text(&t, row, c) != NULL);
            check_numbers(&t, row, c);
        }
    }
    static const char *const names[] = {"device", "backend", NULL};
    if (lbp_table_require(&t, names, err, sizeof err)) check_error(err);
    lbp_table_free(&t);
    return 0;
}
