/* libFuzzer: the command-line parsers of core/cli.c (lbp_scan_int_list,
 * the parser behind every integer-list flag, and the number and byte-size
 * parsers) on any text.  The first byte picks the bounds and the list's
 * capacity; the rest, up to a NUL, is the argument.  It checks that a list
 * holds at most its capacity, every value within the bounds, and that a
 * refusal says why; the sanitizers catch overflow in the ranges' steps. */
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define CHECK(c) do { if (!(c)) { fprintf(stderr, "fuzz_list: check failed: %s\n", #c); abort(); } } while (0)

static const struct { long long min, max; } bounds[] = {
    {0, 100}, {1, 128}, {1, 1LL << 31}, {LLONG_MIN, LLONG_MAX}, {-5, 5}, {0, 0}, {1, 4096}, {0, LLONG_MAX},
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    const long long min = bounds[data[0] % 8].min, max = bounds[data[0] % 8].max;
    const int cap = 1 + (data[0] >> 3) % 32;
    char *s = malloc(size);
    memcpy(s, data + 1, size - 1);
    s[size - 1] = '\0';

    long long out[32];
    char err[512] = "";
    int n = lbp_scan_int_list(s, min, max, out, cap, err, sizeof err);
    if (n < 0) {
        CHECK(n == -1 && err[0]);
    } else {
        CHECK(n >= 1 && n <= cap);
        for (int i = 0; i < n; i++) CHECK(out[i] >= min && out[i] <= max);
    }

    long long v = 42;
    if (lbp_scan_int(s, min, max, &v) == 0) CHECK(v >= min && v <= max);
    else CHECK(v == 42);
    if (lbp_scan_bytes(s, min, max, &v) == 0) CHECK(v >= min && v <= max);
    double d;
    if (lbp_scan_double(s, -1e300, 1e300, &d) == 0) CHECK(isfinite(d) && d >= -1e300 && d <= 1e300);
    free(s);
    return 0;
}
