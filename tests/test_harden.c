/* Hostile input to the shared parsers (issue 36): the list parser, the CSV
 * reader and its checked numbers.  Each test is a reproducer of a crash or a
 * silently lost value; the libFuzzer harnesses in tests/fuzz/ look for more. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "objcache.h"
#include "sha256.h"
#include "table.h"

static char err[1024];

/* A file of len bytes (NULs allowed) under a per-process name. */
static const char *write_file(const char *name, const char *bytes, size_t len)
{
    static char path[256];
    snprintf(path, sizeof path, "/tmp/lbp-harden-%d-%s", (int)getpid(), name);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(bytes, 1, len, f), len);
    fclose(f);
    return path;
}

/* ---- the list parser ---------------------------------------------------- */

/* An item longer than any fixed buffer keeps its "..": the parser once cut
 * items at 128 bytes, lost the dots and stored through a NULL pointer. */
static void test_list_long_item_keeps_its_range(void **state)
{
    (void)state;
    for (size_t zeros = 120; zeros <= 20000; zeros = zeros * 3 + 1) {
        char *s = malloc(zeros + 16);
        memset(s, '0', zeros);
        strcpy(s + zeros, "1..4");
        long long v[8];
        assert_int_equal(lbp_scan_int_list(s, 1, 100, v, 8, err, sizeof err), 4);
        for (int i = 0; i < 4; i++) assert_int_equal(v[i], i + 1);
        strcpy(s + zeros, "1..4x"); /* the same length, now bad: an error, not a crash */
        assert_int_equal(lbp_scan_int_list(s, 1, 100, v, 8, err, sizeof err), -1);
        assert_non_null(strstr(err, "is not a whole number in [1, 100]"));
        free(s);
    }
}

static void test_list_rejects_empty_items(void **state)
{
    (void)state;
    long long v[8];
    const char *bad[] = {"", ",", "1,,2", "1,", ",1", "1..", "..4", "1..4:", "1..4:x", "1..4:x1", "4..1", "0..8:x2"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        err[0] = 0;
        assert_int_equal(lbp_scan_int_list(bad[i], 0, 100, v, 8, err, sizeof err), -1);
        assert_true(err[0] != 0); /* every refusal says why */
    }
    assert_int_equal(lbp_scan_int_list("7", 0, 100, v, 8, err, sizeof err), 1);
    assert_int_equal(v[0], 7);
    assert_int_equal(lbp_scan_int_list("1..9", 0, 100, v, 8, err, sizeof err), -1);
    assert_non_null(strstr(err, "more than 8 values"));
}

/* Ranges that end near the type's limit stop there, without a signed
 * overflow (UBSan checks the arithmetic in the sanitizer build). */
static void test_list_range_at_the_limit(void **state)
{
    (void)state;
    long long v[8];
    assert_int_equal(lbp_scan_int_list("9223372036854775800..9223372036854775807:5", 0, LLONG_MAX, v, 8, err,
                                       sizeof err), 2);
    assert_true(v[1] == 9223372036854775805LL);
    assert_int_equal(lbp_scan_int_list("4611686018427387904..9223372036854775807:x2", 1, LLONG_MAX, v, 8, err,
                                       sizeof err), 1);
    assert_int_equal(lbp_scan_int_list("3..9223372036854775807:9223372036854775807", 0, LLONG_MAX, v, 8, err,
                                       sizeof err), 1);
    assert_int_equal(lbp_scan_int_list("-9223372036854775807..9223372036854775807:9223372036854775807", LLONG_MIN,
                                       LLONG_MAX, v, 8, err, sizeof err), 3);
    assert_true(v[2] == LLONG_MAX);
}

/* A byte size at 2^63 would make the cast to long long undefined. */
static void test_bytes_at_the_limit(void **state)
{
    (void)state;
    long long v = -1;
    assert_int_equal(lbp_scan_bytes("8589934592G", 0, LLONG_MAX, &v), -1);
    assert_int_equal(lbp_scan_bytes("nan", 0, LLONG_MAX, &v), -1);
    assert_int_equal(lbp_scan_bytes("1e400", 0, LLONG_MAX, &v), -1);
    assert_int_equal(lbp_scan_bytes("4Ki", 0, LLONG_MAX, &v), 0);
    assert_int_equal(v, 4096);
    double d;
    assert_int_equal(lbp_scan_double("nan", -1e300, 1e300, &d), -1);
    assert_int_equal(lbp_scan_double("inf", -INFINITY, INFINITY, &d), -1); /* no flag wants a non-finite value */
}

/* Run fn in a child with stderr captured; its exit status and first line. */
static int exit_status_of(void (*fn)(void), char *line, size_t len)
{
    char path[64];
    snprintf(path, sizeof path, "/tmp/lbp-harden-%d.err", (int)getpid());
    fflush(NULL);
    pid_t p = fork();
    if (p == 0) {
        if (!freopen(path, "w", stderr)) _exit(99);
        fn();
        _exit(0);
    }
    int st;
    waitpid(p, &st, 0);
    FILE *f = fopen(path, "r");
    line[0] = 0;
    if (f) {
        if (!fgets(line, (int)len, f)) line[0] = 0;
        fclose(f);
    }
    unlink(path);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static void long_range_flag(void)
{
    char s[400];
    memset(s, '0', 300);
    strcpy(s + 300, "1..x");
    long long v[8];
    lbp_parse_int_list("--words", s, 1, 100, v, 8);
}
static void empty_item_flag(void)
{
    long long v[8];
    lbp_parse_int_list("--words", "1,,2", 1, 100, v, 8);
}

static void test_list_flag_errors_exit_2_with_one_line(void **state)
{
    (void)state;
    char line[2048];
    assert_int_equal(exit_status_of(long_range_flag, line, sizeof line), 2);
    assert_non_null(strstr(line, "--words: '"));
    assert_int_equal(exit_status_of(empty_item_flag, line, sizeof line), 2);
    assert_non_null(strstr(line, "--words: empty item in '1,,2'"));
}

/* ---- the CSV reader ----------------------------------------------------- */

/* A NUL byte at a line's start used to make the row look blank (skipped);
 * inside a line it cut the field.  Both now name file and line. */
static void test_table_nul_byte_is_an_error(void **state)
{
    (void)state;
    static const char start[] = "a,b\n1,2\n\0003,4\n5,6\n";
    static const char inside[] = "a,b\n1,2\n3,4\0009\n";
    lbp_table t;
    const char *p = write_file("nul-start.csv", start, sizeof start - 1);
    assert_int_equal(lbp_table_read(&t, p, 1, err, sizeof err), LBP_TABLE_MALFORMED);
    assert_non_null(strstr(err, "nul-start.csv:3: NUL byte"));
    unlink(p);
    p = write_file("nul-inside.csv", inside, sizeof inside - 1);
    assert_int_equal(lbp_table_read(&t, p, 1, err, sizeof err), LBP_TABLE_MALFORMED);
    assert_non_null(strstr(err, "nul-inside.csv:3: NUL byte"));
    unlink(p);
}

/* A writer killed mid-row leaves a last line without '\n' (the tools end
 * every row with one): its last field may be cut, so the file is refused. */
static void test_table_cut_last_line_is_an_error(void **state)
{
    (void)state;
    static const char cut[] = "a,b\n1,2\n3,4";
    static const char whole[] = "a,b\r\n1,2\r\n3,4\r\n";
    lbp_table t;
    const char *p = write_file("cut.csv", cut, sizeof cut - 1);
    assert_int_equal(lbp_table_read(&t, p, 1, err, sizeof err), LBP_TABLE_MALFORMED);
    assert_non_null(strstr(err, "cut.csv:3: the file ends inside this line"));
    unlink(p);
    p = write_file("header-only-cut.csv", "a,b", 3);
    assert_int_equal(lbp_table_read(&t, p, 1, err, sizeof err), LBP_TABLE_MALFORMED);
    assert_non_null(strstr(err, ":1: the file ends inside this line"));
    unlink(p);
    p = write_file("whole.csv", whole, sizeof whole - 1);
    assert_int_equal(lbp_table_read(&t, p, 1, err, sizeof err), LBP_TABLE_OK);
    assert_int_equal(t.rows, 2);
    assert_string_equal(lbp_table_text(&t, 1, 1), "4");
    lbp_table_free(&t);
    unlink(p);
}

/* The header's duplicate check was O(columns^2) (300 k columns: 75 s).
 * Sorted, it is O(n log n): well under a second even in the sanitizer
 * build; the 20 s bound only separates the two orders of growth. */
static void test_table_wide_header_is_fast(void **state)
{
    (void)state;
    enum { COLUMNS = 300000 };
    size_t cap = (size_t)COLUMNS * 9 + 16, n = 0;
    char *s = malloc(cap);
    for (int i = 0; i < COLUMNS; i++) n += (size_t)snprintf(s + n, cap - n, "%sc%d", i ? "," : "", i);
    n += (size_t)snprintf(s + n, cap - n, "\n");
    const char *p = write_file("wide.csv", s, n);
    lbp_table t;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    assert_int_equal(lbp_table_read(&t, p, 1, err, sizeof err), LBP_TABLE_OK);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    assert_int_equal(t.columns, COLUMNS);
    lbp_table_free(&t);
    assert_true(t1.tv_sec - t0.tv_sec < 20);
    unlink(p);
    /* the same header with one name twice, far apart */
    n = (size_t)snprintf(s, cap, "c%d", COLUMNS - 1);
    for (int i = 1; i < COLUMNS; i++) n += (size_t)snprintf(s + n, cap - n, ",c%d", i);
    n += (size_t)snprintf(s + n, cap - n, "\n");
    p = write_file("wide-twice.csv", s, n);
    assert_int_equal(lbp_table_read(&t, p, 1, err, sizeof err), LBP_TABLE_MALFORMED);
    assert_non_null(strstr(err, ":1: column 'c299999' appears twice in the header"));
    free(s);
    unlink(p);
}

/* ---- checked numbers ---------------------------------------------------- */

static void test_table_numbers_in_range(void **state)
{
    (void)state;
    static const char csv[] = "device,ms_median,words\n"
                              "x,0.5,19\n"
                              "x,1e308,2.5\n"
                              "x,nan,1e30\n"
                              "x,-1,-inf\n"
                              "x,0,7\n";
    lbp_table t;
    const char *p = write_file("numbers.csv", csv, sizeof csv - 1);
    assert_int_equal(lbp_table_read(&t, p, 1, err, sizeof err), LBP_TABLE_OK);
    double ms = -7;
    long long words = -7;
    assert_int_equal(lbp_table_number_in_by_name(&t, 0, "ms_median", 1e-9, 1e9, &ms, err, sizeof err), 0);
    assert_true(ms == 0.5);
    assert_int_equal(lbp_table_whole_in_by_name(&t, 0, "words", 1, 1000, &words, err, sizeof err), 0);
    assert_int_equal(words, 19);
    /* 1e308 is a number, but no time: out of range, named by file, line and column */
    assert_int_equal(lbp_table_number_in_by_name(&t, 1, "ms_median", 1e-9, 1e9, &ms, err, sizeof err), -1);
    assert_non_null(strstr(err, "numbers.csv:3: column 'ms_median' (field 2): 1e308 is out of range"));
    assert_true(ms == 0.5); /* left unchanged */
    assert_int_equal(lbp_table_whole_in_by_name(&t, 1, "words", 1, 1000, &words, err, sizeof err), -1);
    assert_non_null(strstr(err, "numbers.csv:3: column 'words' (field 3): expected a whole number"));
    assert_int_equal(lbp_table_number_in_by_name(&t, 2, "ms_median", 1e-9, 1e9, &ms, err, sizeof err), -1);
    assert_non_null(strstr(err, "numbers.csv:4: column 'ms_median': expected a number, got 'nan'"));
    assert_int_equal(lbp_table_whole_in_by_name(&t, 2, "words", 1, LLONG_MAX, &words, err, sizeof err), -1);
    assert_int_equal(lbp_table_number_in_by_name(&t, 3, "ms_median", 1e-9, 1e9, &ms, err, sizeof err), -1);
    assert_int_equal(lbp_table_number_by_name(&t, 3, "words", &ms, err, sizeof err), -1);
    assert_non_null(strstr(err, "got '-inf'"));
    assert_int_equal(lbp_table_number_in_by_name(&t, 4, "ms_median", 1e-9, 1e9, &ms, err, sizeof err), -1);
    assert_int_equal(lbp_table_number_in_by_name(&t, 4, "ms_median", 0, 1e9, &ms, err, sizeof err), 0);
    assert_true(ms == 0);
    assert_int_equal(lbp_table_number_in_by_name(&t, 4, "no_such", 0, 1, &ms, err, sizeof err), -1);
    assert_non_null(strstr(err, ":1: missing column 'no_such'"));
    lbp_table_free(&t);
    unlink(p);
}

/* ---- the OpenMP backend's object cache (issue 55) ------------------------ */

static void hex(const unsigned char *d, char *out)
{
    for (int i = 0; i < LBP_SHA256_BYTES; i++) sprintf(out + 2 * i, "%02x", d[i]);
}

/* FIPS 180-4's examples, and lengths around a block's padding, fed whole
 * and a byte at a time. */
static void test_sha256_known_digests(void **state)
{
    (void)state;
    static const struct {
        const char *text, *digest;
    } known[] = {
        {"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
        {"abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
        {"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
         "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"},
    };
    unsigned char d[LBP_SHA256_BYTES];
    char h[2 * LBP_SHA256_BYTES + 1];
    for (size_t i = 0; i < sizeof known / sizeof *known; i++) {
        lbp_sha256_of(known[i].text, strlen(known[i].text), d);
        hex(d, h);
        assert_string_equal(h, known[i].digest);
        lbp_sha256 s;
        lbp_sha256_init(&s);
        for (const char *c = known[i].text; *c; c++) lbp_sha256_update(&s, c, 1);
        lbp_sha256_final(&s, d);
        hex(d, h);
        assert_string_equal(h, known[i].digest);
    }
    char *a = malloc(1000000);
    memset(a, 'a', 1000000);
    lbp_sha256_of(a, 1000000, d);
    hex(d, h);
    assert_string_equal(h, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
    free(a);
}

/* A record of a small entry and an "object" (an ELF header and filler). */
static unsigned char *sample_record(size_t *len, lbp_cjit_entry *e)
{
    memset(e, 0, sizeof *e);
    e->nparams = 2;
    snprintf(e->params[0].name, sizeof e->params[0].name, "a");
    snprintf(e->params[0].decl, sizeof e->params[0].decl, "float *a");
    snprintf(e->params[1].name, sizeof e->params[1].name, "n");
    snprintf(e->params[1].decl, sizeof e->params[1].decl, "long n");
    unsigned char obj[3000];
    for (size_t i = 0; i < sizeof obj; i++) obj[i] = (unsigned char)(i * 7 + 1);
    memcpy(obj, "\177ELF", 4);
    return lbp_objcache_record(e, obj, sizeof obj, len);
}

static void test_objcache_record_round_trip(void **state)
{
    (void)state;
    size_t len, at, n;
    lbp_cjit_entry e, back;
    unsigned char *rec = sample_record(&len, &e);
    assert_int_equal(lbp_objcache_check(rec, len, &back, &at, &n, err, sizeof err), 0);
    assert_int_equal(n, 3000);
    assert_int_equal(at + n, len);
    assert_int_equal(back.nparams, 2);
    assert_string_equal(back.params[1].decl, "long n");
    assert_memory_equal(rec + at, "\177ELF", 4);
    free(rec);
}

/* lbp_objcache_check refuses rec, and says why (want: in its words; NULL:
 * any). */
static void assert_refused(const unsigned char *rec, size_t len, const char *want)
{
    size_t at, n;
    lbp_cjit_entry back;
    err[0] = 0;
    assert_int_equal(lbp_objcache_check(rec, len, &back, &at, &n, err, sizeof err), -1);
    assert_true(err[0] != 0);
    if (want) assert_non_null(strstr(err, want));
}

/* A byte changed anywhere (head, entry, object), a record cut anywhere or
 * grown, and another file altogether: each refused, none read as an entry
 * (the cache once took a garbage entry's 1622273736 parameters). */
static void test_objcache_damaged_records_refused(void **state)
{
    (void)state;
    size_t len, at, n;
    lbp_cjit_entry e, back;
    unsigned char *rec = sample_record(&len, &e);
    for (size_t i = 0; i < len; i += i < 128 ? 1 : 251) {
        rec[i] ^= 0x20;
        assert_refused(rec, len, NULL);
        rec[i] ^= 0x20;
    }
    for (size_t cut = 0; cut < len; cut += cut < 128 ? 1 : 509) assert_refused(rec, cut, NULL);
    assert_refused(rec, len - 1, "where its head says");
    unsigned char *grown = calloc(1, len + 8);
    memcpy(grown, rec, len);
    assert_refused(grown, len + 8, "where its head says");
    free(grown);
    assert_refused((const unsigned char *)"\177ELF\2\1\1", 7, "shorter than a record's head");
    rec[0] = 'X';
    assert_refused(rec, len, "not a record of this cache");
    rec[0] = 'l';
    assert_int_equal(lbp_objcache_check(rec, len, &back, &at, &n, err, sizeof err), 0);
    free(rec);
}

/* Hashes that match are not enough: an entry out of range, or an object
 * that is not ELF, in an otherwise whole record. */
static void test_objcache_whole_records_checked_further(void **state)
{
    (void)state;
    size_t len;
    lbp_cjit_entry e;
    free(sample_record(&len, &e));
    unsigned char obj[64] = "\177ELF", *rec;
    e.nparams = 1622273736;
    rec = lbp_objcache_record(&e, obj, sizeof obj, &len);
    assert_refused(rec, len, "out of range");
    free(rec);
    e.nparams = 2;
    memset(e.params[1].name, 'x', sizeof e.params[1].name); /* not ended */
    rec = lbp_objcache_record(&e, obj, sizeof obj, &len);
    assert_refused(rec, len, "out of range");
    free(rec);
    snprintf(e.params[1].name, sizeof e.params[1].name, "n");
    memcpy(obj, "#!/b", 4);
    rec = lbp_objcache_record(&e, obj, sizeof obj, &len);
    assert_refused(rec, len, "no ELF object");
    free(rec);
}

int main(void)
{
    lbp_cli_init("test_harden");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_list_long_item_keeps_its_range),
        cmocka_unit_test(test_list_rejects_empty_items),
        cmocka_unit_test(test_list_range_at_the_limit),
        cmocka_unit_test(test_bytes_at_the_limit),
        cmocka_unit_test(test_list_flag_errors_exit_2_with_one_line),
        cmocka_unit_test(test_table_nul_byte_is_an_error),
        cmocka_unit_test(test_table_cut_last_line_is_an_error),
        cmocka_unit_test(test_table_wide_header_is_fast),
        cmocka_unit_test(test_table_numbers_in_range),
        cmocka_unit_test(test_sha256_known_digests),
        cmocka_unit_test(test_objcache_record_round_trip),
        cmocka_unit_test(test_objcache_damaged_records_refused),
        cmocka_unit_test(test_objcache_whole_records_checked_further),
    };
    return cmocka_run_group_tests_name("harden", tests, NULL, NULL);
}
