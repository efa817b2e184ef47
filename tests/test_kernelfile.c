/* core/kernelfile.c and the launch: every kind of mistake in a kernel
 * description file gets its one-line error naming the file, the line and
 * the key; the shipped schemes' files say what the schemes move; the
 * example files parse; the launched thread count of linear, rows and grid
 * launches; a rows launch with idle threads predicted on the synthetic
 * folder tests/model-data/launch (the gpu folder plus a threads sweep and
 * 10 SMs) as the linear launch of as many threads, over fewer cells; and
 * model predict --kernel's exit status.  Run from the repository root. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../core/kernel.h"
#include "../core/kernelfile.h"
#include "../model/data/kernelfile_launch.h"
#include "../model/equations/launch.h"
#include "../model/equations/levels.h"
#include "../model/equations/predict.h"

#define NEAR(a, b) assert_true(fabs((double)(a) - (double)(b)) <= 1e-9 * fmax(1e-3, fabs((double)(b))))

static char err[1024];

static model_kernel_file parsed(const char *text)
{
    model_kernel_file f;
    const int r = model_kernel_file_parse(text, "k.kernel", &f, err, sizeof err);
    if (r) fprintf(stderr, "%s\n", err);
    assert_int_equal(r, 0);
    return f;
}

/* ---- the shipped schemes ------------------------------------------------ */

static void test_builtin_schemes(void **state)
{
    (void)state;
    static const struct {
        const char *scheme;
        int lattices, phases, reads[2], writes[2];
    } want[] = {{"push", 2, 1, {0}, {10}}, {"pull", 2, 1, {10}, {0}}, {"split", 2, 1, {10}, {0}},
                {"aa", 1, 2, {0, 10}, {0, 10}}};
    for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
        model_kernel k;
        assert_int_equal(model_builtin_kernel(&k, want[i].scheme, "fp64"), 0);
        assert_int_equal(k.word_bytes, 8);
        assert_true(k.words_read == D3Q19_Q && k.words_written == D3Q19_Q);
        assert_true(k.ops_per_cell == D3Q19_BGK_OPS);
        assert_int_equal(k.lattices, want[i].lattices);
        assert_int_equal(k.phases, want[i].phases);
        assert_int_equal(k.launches_per_step, 1);
        assert_int_equal(k.cells_per_thread, 1);
        assert_int_equal(k.velocities, MODEL_D3Q19); /* its stencil: what a row or plane away moves */
        assert_int_equal(k.launch, MODEL_LAUNCH_LINEAR);
        /* d3q19.cl moves a shifted population one word per cell */
        assert_int_equal(k.misaligned_access, MODEL_MISALIGNED_BY_WORD);
        for (int p = 0; p < k.phases; p++) {
            assert_int_equal(k.misaligned_reads[p], want[i].reads[p]);
            assert_int_equal(k.misaligned_writes[p], want[i].writes[p]);
        }
        /* the file on disk is the one compiled in */
        char path[64];
        snprintf(path, sizeof path, "core/kernels/%s.kernel", want[i].scheme);
        model_kernel_file f;
        assert_int_equal(model_kernel_file_read(path, &f, err, sizeof err), 0);
        assert_true(f.k.words_read == k.words_read && f.k.words_written == k.words_written);
        assert_true(f.k.ops_per_cell == k.ops_per_cell);
        assert_int_equal(f.k.lattices, k.lattices);
        assert_int_equal(f.k.phases, k.phases);
        assert_int_equal(f.k.launch, k.launch);
        assert_memory_equal(f.k.misaligned_reads, k.misaligned_reads, sizeof k.misaligned_reads);
        assert_memory_equal(f.k.misaligned_writes, k.misaligned_writes, sizeof k.misaligned_writes);
        assert_false(f.word_bytes_given); /* the precision gives it */
    }
    model_kernel k;
    assert_int_equal(model_builtin_kernel(&k, "pull", "fp32"), 0);
    assert_int_equal(k.word_bytes, 4);
    assert_string_equal(k.name, "pull fp32");
    char line[512];
    assert_int_equal(model_builtin_kernel(&k, "aa", "fp16s"), 0);
    model_kernel_describe(&k, line, sizeof line);
    assert_non_null(strstr(line, "(d3q19, read at 0, -c, written at 0, +c)"));
    assert_int_equal(model_builtin_kernel(&k, "bgk", "fp32"), -1);
    assert_int_equal(model_builtin_kernel(&k, "pull", "fp128"), -1);
}

static void test_example_files(void **state)
{
    (void)state;
    static const char *const files[] = {"d3q15-pull", "d3q27-pull", "d2q9-pull", "thermal-d3q39"};
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        char path[96];
        snprintf(path, sizeof path, "examples/kernels/%s.kernel", files[i]);
        model_kernel_file f;
        const int r = model_kernel_file_read(path, &f, err, sizeof err);
        if (r) fprintf(stderr, "%s\n", err);
        assert_int_equal(r, 0);
        assert_string_equal(f.k.name, files[i]);
    }
}

/* ---- what a file may say ------------------------------------------------ */

static void test_parse_values(void **state)
{
    (void)state;
    model_kernel_file f = parsed("# a comment\n\n  name = my-kernel  # trailing comment\nwords_read=39\n"
                                 "misaligned_reads = 0, 20\nmisaligned_writes = 0,20\nword_bytes = 2\nlattices = 1\n"
                                 "launches_per_step = 2\nops_per_cell = 12.5\ncells_per_thread = 2\n"
                                 "launch = grid\nblock = 32x4x2\nregisters = 40");
    assert_string_equal(f.k.name, "my-kernel");
    assert_true(f.k.words_read == 39 && f.k.words_written == 39); /* written: as read */
    assert_int_equal(f.k.phases, 2);
    assert_int_equal(f.k.misaligned_reads[1], 20);
    assert_int_equal(f.k.misaligned_writes[0], 0);
    assert_int_equal(f.k.word_bytes, 2);
    assert_true(f.word_bytes_given);
    assert_int_equal(f.k.lattices, 1);
    assert_int_equal(f.k.launches_per_step, 2);
    assert_true(f.k.ops_per_cell == 12.5);
    assert_int_equal(f.k.cells_per_thread, 2);
    assert_int_equal(f.k.launch, MODEL_LAUNCH_GRID);
    assert_int_equal(f.k.block[1], 4);
    assert_int_equal(f.block_size, 256);
    assert_int_equal(f.registers, 40);
    assert_int_equal(f.k.misaligned_access, MODEL_MISALIGNED_AS_VECTOR); /* the default */
    f = parsed("name = n\nwords_read = 19\ncells_per_thread = 4\nmisaligned_access = word\n");
    assert_int_equal(f.k.misaligned_access, MODEL_MISALIGNED_BY_WORD);
    f = parsed("name = n\nwords_read = 19\nmisaligned_access = vector\n");
    assert_int_equal(f.k.misaligned_access, MODEL_MISALIGNED_AS_VECTOR);
    /* the defaults; a single misalignment applies to every launch */
    f = parsed("name = n\nwords_read = 9\nwords_written = 5\nmisaligned_reads = 1, 2\nmisaligned_writes = 3\n");
    assert_int_equal(f.k.word_bytes, 4);
    assert_false(f.word_bytes_given);
    assert_int_equal(f.k.lattices, 2);
    assert_int_equal(f.k.launch, MODEL_LAUNCH_LINEAR);
    assert_int_equal(f.k.phases, 2);
    assert_int_equal(f.k.misaligned_writes[1], 3);
    assert_int_equal(f.block_size, 0);
    /* rows: the block size is the block's x size */
    f = parsed("name = n\nwords_read = 9\nlaunch = rows\nblock_size = 128\noccupancy = 0.5\n");
    assert_int_equal(f.k.block[0], 128);
    assert_int_equal(f.k.block[2], 1);
    assert_true(f.occupancy == 0.5);
}

/* Each kind of mistake, and the error's start: "FILE:LINE: KEY: ". */
static void test_parse_errors(void **state)
{
    (void)state;
    static const struct {
        const char *text, *error;
    } cases[] = {
        {"name = n\nwords_read 19\n", "k.kernel:2: not a 'key = value' line"},
        {"name = n\nwords_read = 19\nword_size = 4\n", "k.kernel:3: word_size: unknown key"},
        {"name = n\nwords_read = 19\n# c\nwords_read = 19\n", "k.kernel:4: words_read: given again (first on line 2)"},
        {"name = n\n", "k.kernel:1: words_read: missing"},
        {"words_read = 19\n\n", "k.kernel:2: name: missing"},
        {"name = n\nwords_read = nineteen\n", "k.kernel:2: words_read: 'nineteen' is not a whole number"},
        {"name = n\nwords_read = 19.5\n", "k.kernel:2: words_read: '19.5' is not a whole number"},
        {"name = n\nwords_read = 19\nops_per_cell = 1e\n", "k.kernel:3: ops_per_cell: '1e' is not a number"},
        {"name = n\nwords_read = 0\n", "k.kernel:2: words_read: '0' is out of range"},
        {"name = n\nwords_read = 19\nlattices = 3\n", "k.kernel:3: lattices: '3' is out of range"},
        {"name = n\nwords_read = 19\nword_bytes = 3\n", "k.kernel:3: word_bytes: '3' is not 2, 4 or 8"},
        {"name = n\nwords_read = 19\noccupancy = 0\n", "k.kernel:3: occupancy: '0' is out of range"},
        {"name = n\nwords_read = 19\nmisaligned_reads = 1;2\n", "k.kernel:3: misaligned_reads: '1;2' is not"},
        {"name = n\nwords_read = 19\nlaunch = tiles\n", "k.kernel:3: launch: 'tiles' is not linear, rows or grid"},
        {"name = n\nwords_read = 19\nmisaligned_access = cell\n",
         "k.kernel:3: misaligned_access: 'cell' is not vector or word"},
        {"name = n\nwords_read = 19\nlaunch = grid\nblock = 32x4\n", "k.kernel:4: block: '32x4' is not BXxBYxBZ"},
        {"name = n\nwords_read = 19\nlaunch = grid\nblock = 64x64x1\n", "k.kernel:4: block: '64x64x1' is out of range"},
        {"name = n\nwords_read = 19\nlaunch = grid\nblock = 2000000000x2000000000x2000000000\n",
         "k.kernel:4: block: '2000000000x2000000000x2000000000' is out of range"},
        {"name = n\nwords_read = 19\nlattices =\n", "k.kernel:3: lattices: no value"},
        {"name = 0123456789012345678901234567890123456789012345678\nwords_read = 9\n", "k.kernel:1: name: "},
        /* contradictions, at the later key's line */
        {"name = n\nwords_read = 19\nblock = 32x4x1\nlaunch = rows\n", "k.kernel:4: launch: a rows launch with a block"},
        {"name = n\nwords_read = 19\nblock = 32x1x2\n", "k.kernel:3: block: a linear launch with a block"},
        {"name = n\nwords_read = 19\nlaunch = grid\nblock = 32x4x1\nblock_size = 256\n",
         "k.kernel:5: block_size: block_size 256, block 32x4x1: block_size must be BX*BY*BZ"},
        {"name = n\nwords_read = 19\nlaunch = grid\n", "k.kernel:3: block: missing"},
        {"name = n\nwords_read = 19\nlaunch = rows\n", "k.kernel:3: block_size: missing"},
        {"name = n\nwords_read = 19\nblock_size = 128\noccupancy = 0.5\nregisters = 32\n",
         "k.kernel:5: registers: given with occupancy"},
        {"name = n\nwords_read = 19\nblocks_per_sm = 4\n", "k.kernel:3: blocks_per_sm: needs block_size or block"},
        {"name = n\nwords_read = 19\nregisters = 32\n", "k.kernel:3: registers: needs block_size or block"},
        {"name = n\nwords_read = 9\nmisaligned_reads = 10\n", "k.kernel:3: misaligned_reads: 10 is more than words_read"},
        {"name = n\nwords_read = 9\nwords_written = 4\nmisaligned_writes = 0,5\n",
         "k.kernel:4: misaligned_writes: 5 is more than words_written"},
        {"name = n\nwords_read = 19\nmisaligned_reads = 0,10\nmisaligned_writes = 0,10,0\n",
         "k.kernel:4: misaligned_writes: 2 launches in misaligned_reads, 3 in misaligned_writes"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        model_kernel_file f;
        err[0] = 0;
        assert_int_equal(model_kernel_file_parse(cases[i].text, "k.kernel", &f, err, sizeof err), -1);
        if (strncmp(err, cases[i].error, strlen(cases[i].error)))
            fprintf(stderr, "case %zu: got '%s', want '%s...'\n", i, err, cases[i].error);
        assert_int_equal(strncmp(err, cases[i].error, strlen(cases[i].error)), 0);
        assert_null(strchr(err, '\n')); /* one line */
    }
    model_kernel_file f;
    assert_int_equal(model_kernel_file_read("tests/no-such.kernel", &f, err, sizeof err), -1);
    assert_non_null(strstr(err, "tests/no-such.kernel: cannot open"));
}

/* ---- what a value may be (issue 55) ------------------------------------- */

/* An error is one line of printable ASCII: no byte of the file's that is
 * not reaches the console. */
static void assert_printable(const char *e)
{
    for (const char *c = e; *c; c++) assert_true(*c >= 0x20 && *c <= 0x7e);
}

static void refused_as(const char *text, const char *error)
{
    model_kernel_file f;
    err[0] = 0;
    const int r = model_kernel_file_parse(text, "k.kernel", &f, err, sizeof err);
    if (r != -1 || strncmp(err, error, strlen(error)))
        fprintf(stderr, "text '%s': got %d '%s', want '%s...'\n", text, r, err, error);
    assert_int_equal(r, -1);
    assert_int_equal(strncmp(err, error, strlen(error)), 0);
    assert_printable(err);
}

/* Every character class that could leave a comment, a string or a CSV
 * field, or reach a terminal, refused in a name with one line that names
 * the file, the line and the key; a name of the whitelist is kept whole. */
static void test_name_whitelist(void **state)
{
    (void)state;
    static const char *const bad[] = {"*/[[gnu::constructor]]f(){system(\"id\");}/*", "a,b\"c", "q\"", "b\\s",
                                      "star*/", "/*c", "semi;", "dollar$", "paren(", "brace{", "tick`", "apos'",
                                      "slash/", "lt<", "pct%", "at@", "colon:", "eq=x", "plus+"};
    char text[256];
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        snprintf(text, sizeof text, "name = %s\nwords_read = 19\n", bad[i]);
        refused_as(text, "k.kernel:1: name: '");
        assert_non_null(strstr(err, "is not allowed: a name is 1 to 47 of A-Z a-z 0-9 . _ -"));
        assert_false(model_kernel_name_ok(bad[i]));
    }
    static const char *const bytes[] = {"esc\033[31m", "ctl\001", "del\177", "cr\rx", "bell\007", "e\303\251",
                                        "high\377", "ell\342\204\223", "vt\vx", "ff\fx"};
    for (size_t i = 0; i < sizeof bytes / sizeof *bytes; i++) {
        snprintf(text, sizeof text, "name = %s\nwords_read = 19\n", bytes[i]);
        refused_as(text, "k.kernel:1: name: a control or non-ASCII byte (0x");
        assert_false(model_kernel_name_ok(bytes[i]));
    }
    refused_as("name = sp ace\nwords_read = 19\n", "k.kernel:1: name: a space inside the value (character 3)");
    refused_as("name = tab\tin\nwords_read = 19\n", "k.kernel:1: name: a control or non-ASCII byte (0x09");
    refused_as("name = n\nwords_read = 19\nmisaligned_reads = 0,\t10\n", "k.kernel:3: misaligned_reads: a control");
    refused_as("name = 012345678901234567890123456789012345678901234567\nwords_read = 9\n",
               "k.kernel:1: name: 48 characters, over 47");
    /* a newline ends the name; the next line is named, never echoed */
    refused_as("name = a\n*/[[gnu::constructor]]f(){}/*\nwords_read = 9\n", "k.kernel:2: not a 'key = value' line");
    assert_null(strstr(err, "constructor"));
    model_kernel_file f = parsed("name = D3Q19_push-grid.v2\nwords_read = 19\n");
    assert_string_equal(f.k.name, "D3Q19_push-grid.v2");
    f = parsed("name = 01234567890123456789012345678901234567890123456\nwords_read = 19\n");
    assert_int_equal(strlen(f.k.name), 47);
    assert_true(model_kernel_name_ok("a") && model_kernel_name_ok("-._"));
    assert_false(model_kernel_name_ok(""));
}

/* Whole numbers are the numbers written, or refused: never wrapped, cut,
 * or read across a space. */
static void test_values_not_wrapped(void **state)
{
    (void)state;
    static const struct {
        const char *text, *error;
    } cases[] = {
        {"name = b\nwords_read = 19\nlaunch = grid\nblock = 4294967297x1x1\n",
         "k.kernel:4: block: '4294967297x1x1' is out of range"},
        {"name = b\nwords_read = 19\nlaunch = grid\nblock = 4294967328x1x1\n",
         "k.kernel:4: block: '4294967328x1x1' is out of range"},
        {"name = b\nwords_read = 19\nlaunch = grid\nblock = 32x99999999999999999999999x1\n",
         "k.kernel:4: block: '32x99999999999999999999999x1' is out of range"},
        {"name = b\nwords_read = 19\nlaunch = grid\nblock = 32x-1x1\n", "k.kernel:4: block: '32x-1x1' is out of range"},
        {"name = b\nwords_read = 19\nlaunch = grid\nblock = +32x1x1\n", "k.kernel:4: block: '+32x1x1' is not BXxBYxBZ"},
        {"name = b\nwords_read = 19\nlaunch = grid\nblock = 32x1x1x1\n", "k.kernel:4: block: '32x1x1x1' is not"},
        {"name = b\nwords_read = 19\nlaunch = grid\nblock = 32xx1\n", "k.kernel:4: block: '32xx1' is not"},
        {"name = b\nwords_read = 19\nlaunch = grid\nblock = 32x1x\n", "k.kernel:4: block: '32x1x' is not"},
        {"name = b\nwords_read = 19\nlaunch = grid\nblock = 0x20x1x1\n", "k.kernel:4: block: '0x20x1x1' is not"},
        {"name = b\nwords_read = 19\nlaunch = grid\nblock = 32 x 1 x 1\n", "k.kernel:4: block: a space inside"},
        {"name = m\nwords_read = 19\nmisaligned_reads = 1 0\n", "k.kernel:3: misaligned_reads: a space inside the value"},
        {"name = m\nwords_read = 19\nmisaligned_reads = 0, 1 0\n", "k.kernel:3: misaligned_reads: a space inside"},
        {"name = m\nwords_read = 19\nvelocities = d3q19\nread_shift = - c\n", "k.kernel:4: read_shift: a space inside"},
        {"name = m\nwords_read = 1 9\n", "k.kernel:2: words_read: a space inside the value (character 2)"},
        {"name = m\nwords_read = 18446744073709551635\n", "k.kernel:2: words_read: '18446744073709551635' is out of"},
        {"name = m\nwords_read = 4294967315\n", "k.kernel:2: words_read: '4294967315' is out of range 1..1000"},
        {"name = m\nwords_read = 19.0\n", "k.kernel:2: words_read: '19.0' is not a whole number"},
        {"name = m\nwords_read = 1e1\n", "k.kernel:2: words_read: '1e1' is not a whole number"},
        {"name = m\nwords_read = 0x13\n", "k.kernel:2: words_read: '0x13' is not a whole number"},
        {"name = m\nwords_read = 19\nlaunches_per_step = 4294967297\n", "k.kernel:3: launches_per_step: '4294967297'"},
        {"name = m\nwords_read = 19\nmisaligned_reads = 4294967306\n", "k.kernel:3: misaligned_reads: '4294967306'"},
        {"name = m\nwords_read = 19\nblock_size = 4294967424\n", "k.kernel:3: block_size: '4294967424' is out of"},
        {"name = m\nwords_read = 19\nblock_size = 64\nregisters = 4294967328\n", "k.kernel:4: registers: '4294967328'"},
        {"name = m\nwords_read = 19\nblock_size = 64\nblocks_per_sm = 4.5\n", "k.kernel:4: blocks_per_sm: '4.5' is not"},
        {"name = m\nwords_read = 19\nops_per_cell = 0x10\n", "k.kernel:3: ops_per_cell: '0x10' is not a number"},
        {"name = m\nwords_read = 19\nops_per_cell = inf\n", "k.kernel:3: ops_per_cell: 'inf' is not a number"},
        {"name = m\nwords_read = 19\noccupancy = nan\n", "k.kernel:3: occupancy: 'nan' is not a number"},
        {"name = m\nwords_read = 19\nlaunch = grid\033[2J\n", "k.kernel:3: launch: a control or non-ASCII byte (0x1b"},
        {"name = m\nwords_read = 19\nlaunch = r\303\266ws\n", "k.kernel:3: launch: a control or non-ASCII byte (0xc3"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) refused_as(cases[i].text, cases[i].error);
    /* a value over 255 characters is refused, not cut: 254 zeros then 10
     * once read as 1 */
    char text[600];
    snprintf(text, sizeof text, "name = m\nwords_read = 19\nmisaligned_reads = %0256d\n", 10);
    refused_as(text, "k.kernel:3: misaligned_reads: a value of 256 characters, over the 255 a value may have");
    /* at 255 characters it is the number written */
    snprintf(text, sizeof text, "name = m\nwords_read = 19\nmisaligned_reads = %0255d\n", 10);
    model_kernel_file f = parsed(text);
    assert_int_equal(f.k.misaligned_reads[0], 10);
    /* the bounds are read exactly; spaces around a list's commas are fine */
    f = parsed("name = m\nwords_read = 1000\nmisaligned_reads = 0 , 1000\nlaunches_per_step = 64\nlaunch = grid\n"
               "block = 0001x1x1024\nblocks_per_sm = 64\n");
    assert_true(f.k.words_read == 1000);
    assert_int_equal(f.k.misaligned_reads[1], 1000);
    assert_int_equal(f.k.launches_per_step, 64);
    assert_int_equal(f.k.block[0], 1);
    assert_int_equal(f.k.block[2], 1024);
    assert_true(f.blocks_per_sm == 64);
    f = parsed("name = m\nwords_read = 19\nlaunch = grid\nblock = 8x8x16\n");
    assert_int_equal(f.block_size, 1024);
    refused_as("name = m\nwords_read = 19\nlaunch = grid\nblock = 8x8x17\n", "k.kernel:4: block: '8x8x17' is out of");
}

/* A line that is not a kernel-file line is named by its number, never
 * echoed: a file that is no kernel description (/etc/shadow) keeps its
 * content. */
static void test_lines_not_echoed(void **state)
{
    (void)state;
    static const char *const lines[] = {"root:$6$S3cr3t:19000:0:99999:7:::", "PASS=S3cr3t", "my key = S3cr3t",
                                        "k\033[2J = S3cr3t", "S3cr3t", "key\303\251 = S3cr3t"};
    char text[256];
    for (size_t i = 0; i < sizeof lines / sizeof *lines; i++) {
        snprintf(text, sizeof text, "%s\nname = n\nwords_read = 9\n", lines[i]);
        refused_as(text, "k.kernel:1: not a 'key = value' line");
        assert_null(strstr(err, "S3cr3t"));
    }
    /* a known key's value is only echoed once it is printable */
    refused_as("name = n\nwords_read = S3cr3t\033]0;x\007\n", "k.kernel:2: words_read: a control or non-ASCII");
    assert_null(strstr(err, "S3cr3t"));
}

/* Gives up after 10 s: a FIFO that blocked the reader would hang the test. */
static void on_alarm(int sig)
{
    (void)sig;
    static const char msg[] = "test_kernelfile: reading a kernel file blocked for 10 s\n";
    if (write(2, msg, sizeof msg - 1)) _exit(1);
    _exit(1);
}

static void read_refused(const char *path, const char *error)
{
    model_kernel_file f;
    err[0] = 0;
    alarm(10);
    const int r = model_kernel_file_read(path, &f, err, sizeof err);
    alarm(0);
    if (r != -1 || !strstr(err, error)) fprintf(stderr, "%s: got %d '%s', want '%s'\n", path, r, err, error);
    assert_int_equal(r, -1);
    assert_non_null(strstr(err, error));
    assert_null(strchr(err, '\n'));
}

/* Regular files only, of at most 16383 bytes: a FIFO (no writer: an open
 * that waits for one would block), a folder, a device are refused at once
 * with one line. */
static void test_file_kinds(void **state)
{
    (void)state;
    signal(SIGALRM, on_alarm);
    char dir[] = "/tmp/lbp-kernelfile-kinds-XXXXXX", path[128], fifo[128], big[128], link[128];
    assert_non_null(mkdtemp(dir));
    snprintf(fifo, sizeof fifo, "%s/fifo.kernel", dir);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    read_refused(fifo, "fifo.kernel: a FIFO, not a regular file");
    read_refused(dir, ": a directory, not a regular file");
    read_refused("/dev/null", "/dev/null: a character device, not a regular file");
    read_refused("/dev/zero", "/dev/zero: a character device");
    /* at the limit it is read; a byte over, refused (not "longer than"
     * after reading a folder as empty) */
    snprintf(big, sizeof big, "%s/big.kernel", dir);
    FILE *f = fopen(big, "w");
    assert_non_null(f);
    const char *body = "name = n\nwords_read = 19\n";
    fputs(body, f);
    for (size_t i = strlen(body); i < 16382; i++) fputc('#', f);
    fputc('\n', f);
    fclose(f);
    model_kernel_file k;
    assert_int_equal(model_kernel_file_read(big, &k, err, sizeof err), -1); /* one comment line over 511 */
    assert_non_null(strstr(err, "big.kernel:3: line longer than"));
    f = fopen(big, "w"); /* 255 lines of 64 bytes and 63 more: 16383, read whole ("000..." is no key = value) */
    for (int i = 0; i < 255; i++) fprintf(f, "%063d\n", 0);
    fprintf(f, "%063d", 0);
    fclose(f);
    read_refused(big, "big.kernel:1: not a 'key = value' line");
    f = fopen(big, "a");
    fputc('#', f);
    fclose(f);
    read_refused(big, "big.kernel: 16384 bytes, over the 16383 a kernel description may have");
    /* a link to a regular file is that file */
    snprintf(path, sizeof path, "%s/ok.kernel", dir);
    f = fopen(path, "w");
    fputs(body, f);
    fclose(f);
    snprintf(link, sizeof link, "%s/link.kernel", dir);
    assert_int_equal(symlink(path, link), 0);
    assert_int_equal(model_kernel_file_read(link, &k, err, sizeof err), 0);
    /* a path with a control byte is not read: it would reach a CSV and the
     * console */
    read_refused("tests/kernels/d3q27-grid.kernel\n", "a kernel file path with a control byte (0x0a");
    read_refused("tests/\033[2Jx.kernel", "a kernel file path with a control byte (0x1b, character 7)");
    unlink(link);
    unlink(path);
    unlink(big);
    unlink(fifo);
    rmdir(dir);
}

/* ---- the launch --------------------------------------------------------- */

static model_lattice box(long long nx, long long ny, long long nz, int block)
{
    return (model_lattice){.nx = nx, .ny = ny, .nz = nz, .cells = (double)nx * ny * nz, .occupancy = -1,
                           .blocks_per_cu = -1, .block_size = block};
}

static void test_launched_threads(void **state)
{
    (void)state;
    model_kernel k = {.cells_per_thread = 1};
    model_lattice lat = box(100, 10, 3, 128);
    NEAR(model_launched_threads(&k, &lat), 3000); /* linear: one per cell */
    k.launch = MODEL_LAUNCH_ROWS;
    NEAR(model_launched_threads(&k, &lat), 128 * 10 * 3); /* each row of 100 rounded up to 128 */
    lat = box(256, 10, 3, 128);
    NEAR(model_launched_threads(&k, &lat), 256 * 10 * 3); /* a multiple: none idle */
    k.cells_per_thread = 2;
    lat = box(100, 10, 3, 32);
    NEAR(model_launched_threads(&k, &lat), 64 * 10 * 3); /* 50 threads a row, rounded up to 64 */
    lat.block_size = 0;
    NEAR(model_launched_threads(&k, &lat), 1500); /* unknown block: as linear */
    k = (model_kernel){.launch = MODEL_LAUNCH_GRID, .block = {32, 4, 2}};
    lat = box(100, 10, 3, 256);
    NEAR(model_launched_threads(&k, &lat), 128 * 12 * 4);
    lat = box(1000, 1000, 1, 256);
    k.block[2] = 1;
    NEAR(model_launched_threads(&k, &lat), 1024 * 1000); /* a flat lattice */
}

static void load(model_inputs *in)
{
    const int r = model_inputs_load(in, "tests/model-data/launch", "cuda", err, sizeof err);
    if (r) fprintf(stderr, "%s\n", err);
    assert_int_equal(r, 0);
}

static model_prediction predict(const model_inputs *in, const model_kernel *k, model_lattice lat)
{
    model_prediction p;
    assert_int_equal(model_predict(in, k, &lat, &p, err, sizeof err), 0);
    return p;
}

/* A rows launch of 200-cell rows in blocks of 256 starts 256 threads a
 * row, of which 56 idle: they move no words, so the threads sweep is read
 * at the 200 working ones, as for a linear launch of the same cells, and
 * the launch lasts longer than that only by its blocks' spread over the SMs
 * (4096 blocks of the rows launch over 10 SMs: 410 on the busiest, against
 * 409.6 on average; the linear launch's 3200 spread evenly).  Rows of 800
 * bytes start on whole 32-byte sectors: one row class. */
static void test_idle_threads_predicted(void **state)
{
    (void)state;
    model_inputs in;
    load(&in);
    model_kernel rows, linear;
    assert_int_equal(model_builtin_kernel(&rows, "pull", "fp32"), 0);
    linear = rows;
    rows.launch = MODEL_LAUNCH_ROWS;
    model_lattice idle = box(200, 64, 64, 256), full = box(256, 64, 64, 256);
    idle.blocks_per_cu = full.blocks_per_cu = 4;
    const model_prediction pi = predict(&in, &rows, idle), pf = predict(&in, &linear, full);
    assert_int_equal(pi.full.path, MODEL_FULL_THREADS_SWEEP);
    assert_int_equal(pf.full.path, MODEL_FULL_THREADS_SWEEP);
    NEAR(pi.full.launch.threads_launched, 256 * 64 * 64);
    NEAR(pi.full.threads.threads, 200 * 64 * 64); /* the working threads */
    /* 4096 blocks of 256 over 10 SMs x 4 blocks per SM */
    NEAR(pi.full.launch.blocks, 4096);
    NEAR(pi.full.launch.waves, 4096 / 40.0);
    /* the same cells launched linearly: as many working threads, no spread */
    const model_prediction pl = predict(&in, &linear, idle);
    NEAR(pl.full.launch.threads_launched, 200 * 64 * 64);
    NEAR(pl.full.threads.threads, pi.full.threads.threads);
    assert_true(pi.full.mlups <= pl.full.mlups);
    assert_true(pi.full.mlups >= pl.full.mlups * 409.6 / 410 * (1 - 1e-9));
    /* and faster than charging the idle threads as working ones would: the
     * 256-cell rows' step over 200/256 of the cells */
    assert_true(pi.full.mlups > pf.full.mlups * 200 / 256 * 1.1);
    /* waves from the occupancy where blocks per SM are not given: 0.5 x
     * 2048 threads per SM / 256 = 4 blocks per SM; of the threads resident,
     * 200/256 work: level 2 (the kernel factor) is read at that share of the
     * occupancy */
    idle.blocks_per_cu = -1;
    idle.occupancy = 0.5;
    const model_prediction po = predict(&in, &rows, idle);
    NEAR(po.full.launch.waves, 4096 / 40.0);
    assert_true(model_provenance_says(&po.full.answer[MODEL_FULL_THREADS_SWEEP].prov, "occupancy 0.500 x 0.781"));
    model_inputs_free(&in);
}

/* The launched threads that work: all of a linear launch, 100 of 128 a
 * row, and a grid's cells over its rounded-up box. */
static void test_working_share(void **state)
{
    (void)state;
    model_kernel k = {.cells_per_thread = 1};
    model_lattice lat = box(100, 10, 3, 128);
    NEAR(model_working_share(&k, &lat), 1);
    k.launch = MODEL_LAUNCH_ROWS;
    NEAR(model_working_share(&k, &lat), 100.0 / 128);
    k.cells_per_thread = 2; /* 50 threads a row of 64 */
    lat = box(100, 10, 3, 32);
    NEAR(model_working_share(&k, &lat), 50.0 / 64);
    k = (model_kernel){.launch = MODEL_LAUNCH_GRID, .block = {32, 4, 2}};
    lat = box(100, 10, 3, 256);
    NEAR(model_working_share(&k, &lat), 3000.0 / (128 * 12 * 4));
}

/* D3Q19 pull (19 words each way, 10 read at x + 1) in rows of 4-byte
 * words: row offsets are the multiples of gcd(nx x 4 mod 32, 32) in a
 * 32-byte sector, evenly. */
static void row_classes_of(const model_kernel *k, long long nx, int is_cpu, model_row_class *c, int *n)
{
    model_inputs in = {.is_cpu = is_cpu};
    const model_lattice lat = box(nx, 16, 16, 128);
    *n = model_row_classes(&in, k, &lat, c);
}

static void assert_class(const model_row_class *c, double weight, int L, int M)
{
    NEAR(c->weight, weight);
    assert_int_equal(c->misaligned_reads[0], L);
    assert_int_equal(c->misaligned_writes[0], M);
}

static void test_row_classes(void **state)
{
    (void)state;
    model_kernel k;
    assert_int_equal(model_builtin_kernel(&k, "pull", "fp32"), 0);
    model_row_class c[MODEL_MAX_ROW_CLASSES];
    int n;
    row_classes_of(&k, 100, 0, c, &n); /* linear: the kernel's own */
    assert_int_equal(n, 1);
    assert_class(&c[0], 1, 10, 0);
    k.launch = MODEL_LAUNCH_ROWS;
    row_classes_of(&k, 200, 0, c, &n); /* 800-byte rows: whole sectors */
    assert_int_equal(n, 1);
    assert_class(&c[0], 1, 10, 0);
    row_classes_of(&k, 100, 0, c, &n); /* 400 bytes: offsets 0 and 16 */
    assert_int_equal(n, 2);
    assert_class(&c[0], 0.5, 10, 0);
    assert_class(&c[1], 0.5, 19, 19);
    row_classes_of(&k, 130, 0, c, &n); /* 520 bytes: offsets 0, 8, 16, 24 */
    assert_int_equal(n, 2);
    assert_class(&c[0], 0.25, 10, 0);
    assert_class(&c[1], 0.75, 19, 19);
    /* 508 bytes: every word offset; at 28 the x + 1 words start a sector
     * (9 reads misaligned), the writes all straddle */
    row_classes_of(&k, 127, 0, c, &n);
    assert_int_equal(n, 3);
    assert_class(&c[0], 1.0 / 8, 10, 0);
    assert_class(&c[1], 6.0 / 8, 19, 19);
    assert_class(&c[2], 1.0 / 8, 9, 19);
    row_classes_of(&k, 100, 1, c, &n); /* a CPU: no warps */
    assert_int_equal(n, 1);
    k.launch = MODEL_LAUNCH_GRID; /* warps of whole rows: as rows */
    k.block[0] = 32, k.block[1] = 4, k.block[2] = 2;
    row_classes_of(&k, 100, 0, c, &n);
    assert_int_equal(n, 2);
    /* warps over 4 rows, each piece of 8 cells a whole sector from the
     * row's start: the row's offset decides, as for whole rows */
    k.block[0] = 8, k.block[1] = 8, k.block[2] = 4;
    row_classes_of(&k, 100, 0, c, &n);
    assert_int_equal(n, 2);
    assert_class(&c[0], 0.5, 10, 0);
    assert_class(&c[1], 0.5, 19, 19);
    k.block[0] = 4, k.block[1] = 8, k.block[2] = 8; /* pieces of 16 bytes: by the block's place, not priced */
    row_classes_of(&k, 100, 0, c, &n);
    assert_int_equal(n, 1);
    assert_class(&c[0], 1, 10, 0);
    /* A-A's two launches, 0/0 and 10/10: in a row at offset 16 every word
     * straddles in both */
    assert_int_equal(model_builtin_kernel(&k, "aa", "fp32"), 0);
    k.launch = MODEL_LAUNCH_ROWS;
    row_classes_of(&k, 100, 0, c, &n);
    assert_int_equal(n, 2);
    assert_int_equal(c[0].misaligned_reads[1], 10);
    assert_int_equal(c[1].misaligned_reads[0], 19);
    assert_int_equal(c[1].misaligned_writes[1], 19);
}

/* A rows launch of 100-cell rows (half of them at a sector's middle) takes
 * the two classes' steps weighted by their rows: each class predicted as a
 * kernel of its L and M on the same launch, with rows padded in memory to
 * 128 cells (512 bytes, whole sectors: one class). */
static void test_row_classes_predicted(void **state)
{
    (void)state;
    model_inputs in;
    load(&in);
    model_kernel rows;
    assert_int_equal(model_builtin_kernel(&rows, "pull", "fp32"), 0);
    rows.launch = MODEL_LAUNCH_ROWS;
    model_lattice lat = box(100, 64, 64, 128), padded = lat;
    lat.blocks_per_cu = padded.blocks_per_cu = 8;
    padded.stored_cells = 128.0 * 64 * 64;
    const model_prediction p = predict(&in, &rows, lat);
    assert_true(model_provenance_says(&p.prov, "rows 50.0 % L=10 M=0, 50.0 % L=19 M=19"));
    model_kernel straddling = rows;
    straddling.misaligned_reads[0] = straddling.misaligned_writes[0] = 19;
    const model_prediction pa = predict(&in, &rows, padded), pb = predict(&in, &straddling, padded);
    assert_false(model_provenance_says(&pa.prov, "start at several offsets"));
    assert_true(pa.full.answer[MODEL_FULL_THREADS_SWEEP].applies);
    for (int i = 0; i < MODEL_FULL_PATHS; i++) {
        const double a = pa.full.answer[i].mlups, b = pb.full.answer[i].mlups;
        if (!pa.full.answer[i].applies || i == MODEL_FULL_SIZE_SWEEP) continue; /* its working set is the stored one */
        assert_true(b < a);
        NEAR(p.full.answer[i].mlups, 1 / (0.5 / a + 0.5 / b));
    }
    model_inputs_free(&in);
}

/* The file's launch onto the lattice: registers become blocks per SM by the
 * device's compute capability (9.0: 32 registers x 128 threads leave 16
 * blocks, the SM's 2048 threads), the command line's values win. */
static void test_file_launch(void **state)
{
    (void)state;
    char dir[] = "/tmp/lbp-kernelfile-XXXXXX", cmd[600];
    assert_non_null(mkdtemp(dir));
    snprintf(cmd, sizeof cmd, "cp tests/model-data/launch/*.csv %s/ && echo compute_capability,9.0 >> %s/stream-meta.csv",
             dir, dir);
    assert_int_equal(system(cmd), 0);
    model_inputs in, plain;
    assert_int_equal(model_inputs_load(&in, dir, "cuda", err, sizeof err), 0);
    load(&plain);
    model_kernel_file f = parsed("name = n\nwords_read = 19\nblock_size = 128\nregisters = 32\n");
    model_lattice lat = box(100, 100, 100, 0);
    assert_int_equal(model_kernel_file_launch(&f, &in, &lat, err, sizeof err), 0);
    assert_int_equal(lat.block_size, 128);
    NEAR(lat.blocks_per_cu, 16);
    lat = box(100, 100, 100, 0);
    assert_int_equal(model_kernel_file_launch(&f, &plain, &lat, err, sizeof err), -1); /* no compute capability */
    assert_non_null(strstr(err, "k.kernel:4: registers: 32 per thread")); /* the file's line, no flag */
    lat.occupancy = 0.25; /* given on the command line */
    assert_int_equal(model_kernel_file_launch(&f, &plain, &lat, err, sizeof err), 0);
    assert_true(lat.blocks_per_cu < 0);
    f = parsed("name = n\nwords_read = 19\nblock_size = 64\noccupancy = 0.5\n");
    lat = box(100, 100, 100, 256);
    assert_int_equal(model_kernel_file_launch(&f, &plain, &lat, err, sizeof err), 0);
    assert_int_equal(lat.block_size, 256); /* --block-size kept */
    NEAR(lat.occupancy, 0.5);
    model_inputs_free(&in);
    model_inputs_free(&plain);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
}

/* ---- model predict --kernel --------------------------------------------- */

static int run(const char *cmd)
{
    const int st = system(cmd);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* The file `text` written to a temporary path (path: a mkstemp template). */
static void write_file(char *path, const char *text)
{
    const int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void test_cli(void **state)
{
    (void)state;
    char bad[] = "/tmp/lbp-kernelfile-XXXXXX", regs[] = "/tmp/lbp-kernelfile-XXXXXX", cmd[1024];
    write_file(bad, "name = n\nwords_read = 19\nlaunch = rows\nblock = 32x2x1\n");
    write_file(regs, "name = n\nwords_read = 19\nblock_size = 128\nregisters = 32\n");
    const char *const predict = "./model/model predict --data tests/model-data/launch --backend cuda --size 100x20x20";
    snprintf(cmd, sizeof cmd, "%s --kernel examples/kernels/d3q15-pull.kernel >/dev/null", predict);
    assert_int_equal(run(cmd), 0);
    snprintf(cmd, sizeof cmd, "%s --kernel core/kernels/aa.kernel --precision fp64 >/dev/null", predict);
    assert_int_equal(run(cmd), 0);
    /* a malformed file: exit 2, one line naming the file, the line and the key */
    snprintf(cmd, sizeof cmd, "%s --kernel %s 2>&1 >/dev/null | grep -c '%s:4: block: a rows launch' | grep -qx 1",
             predict, bad, bad);
    assert_int_equal(run(cmd), 0);
    snprintf(cmd, sizeof cmd, "%s --kernel %s >/dev/null 2>&1", predict, bad);
    assert_int_equal(run(cmd), 2);
    snprintf(cmd, sizeof cmd, "%s --kernel tests/no-such.kernel >/dev/null 2>&1", predict);
    assert_int_equal(run(cmd), 2);
    /* a kernel said twice */
    snprintf(cmd, sizeof cmd, "%s --kernel core/kernels/pull.kernel --scheme pull --precision fp32 >/dev/null 2>&1",
             predict);
    assert_int_equal(run(cmd), 2);
    snprintf(cmd, sizeof cmd, "%s --kernel core/kernels/pull.kernel --words-read 9 >/dev/null 2>&1", predict);
    assert_int_equal(run(cmd), 2);
    /* a grid's block given again, and otherwise */
    snprintf(cmd, sizeof cmd, "%s --kernel examples/kernels/d2q9-pull.kernel --block-size 128 >/dev/null 2>&1",
             predict);
    assert_int_equal(run(cmd), 2);
    /* registers on a device whose compute capability is not recorded */
    snprintf(cmd, sizeof cmd, "%s --kernel %s >/dev/null 2>&1", predict, regs);
    assert_int_equal(run(cmd), 2);
    /* with --occupancy instead, the registers are not needed */
    snprintf(cmd, sizeof cmd, "%s --kernel %s --occupancy 0.5 >/dev/null 2>&1", predict, regs);
    assert_int_equal(run(cmd), 0);
    unlink(bad);
    unlink(regs);
}

/* dir: a copy of the launch folder with the column band (32 on every row)
 * and, where `narrow`, membench's narrow sweep at 2^20 and 2^24 threads:
 * BX = 32 as the threads sweep's ms per launch there, BX = 8 at 2x at
 * L, M = 0/0 and 0/10 and 4x at 10/0 (BX = 4 and 16 at 3x: not read). */
static void narrow_folder(char *dir, int narrow)
{
    char cmd[8192];
    assert_non_null(mkdtemp(dir));
    int n = snprintf(cmd, sizeof cmd, "cp tests/model-data/launch/*.csv %s/ && cd %s && "
                                      "sed -i '1s/$/,band/; 2,$s/$/,32/' membench.csv", dir, dir);
    static const double threads[2] = {1048576, 16777216}, ms[2] = {0.06, 0.9};
    static const int lm[3][2] = {{0, 0}, {10, 0}, {0, 10}};
    for (int t = 0; t < 2 && narrow; t++)
        for (int bx = 4; bx <= 32; bx *= 2)
            for (int v = 0; v < 3; v++) {
                const double x = bx == 32 ? 1 : bx != 8 ? 3 : v == 1 ? 4 : 2, m = ms[t] * x;
                n += snprintf(cmd + n, sizeof cmd - (size_t)n,
                              " && echo test-gpu,cuda,narrow,19,4,%d,%d,256,0,8,1.0,%.0f,%.0f,10,%g,%g,%g,1,1,%g,"
                              "back_to_back,%d >> membench.csv",
                              lm[v][0], lm[v][1], threads[t], 152 * threads[t], m, m, m, m * 1e6 / threads[t], bx);
            }
    assert_true(n < (int)sizeof cmd);
    assert_int_equal(system(cmd), 0);
}

/* A grid of blocks narrower than a warp: level 3 times the narrow sweep at
 * BX over at 32, at the phase's L and M (both: 10/0 x 0/10 over 0/0); a
 * grid of whole-warp rows is left alone; without the sweep, the whole-row
 * prices as before, recorded as a fallback. */
static void test_narrow_blocks(void **state)
{
    (void)state;
    char with[] = "/tmp/lbp-narrow-XXXXXX", without[] = "/tmp/lbp-narrow-XXXXXX", cmd[600];
    narrow_folder(with, 1);
    narrow_folder(without, 0);
    model_inputs in, plain;
    assert_int_equal(model_inputs_load(&in, with, "cuda", err, sizeof err), 0);
    assert_int_equal(model_inputs_load(&plain, without, "cuda", err, sizeof err), 0);
    model_kernel_file f;
    assert_int_equal(model_kernel_file_read("tests/kernels/d3q19-push-grid3d.kernel", &f, err, sizeof err), 0);
    assert_int_equal(f.k.block[0], 8);
    model_lattice lat = box(128, 127, 127, 0); /* rows of whole sectors: one row class */
    assert_int_equal(model_kernel_file_launch(&f, &in, &lat, err, sizeof err), 0);
    model_prediction a = predict(&in, &f.k, lat), b = predict(&plain, &f.k, lat);
    assert_true(b.full.mlups > 0);
    NEAR(a.full.mlups, b.full.mlups / 2); /* push: M = 10, the 0/10 rows at 2x */
    NEAR(a.probe.mlups, b.probe.mlups);   /* level 2 as before */
    for (int i = 0; i < MODEL_FULL_PATHS; i++)
        if (b.full.answer[i].applies) NEAR(a.full.answer[i].mlups, b.full.answer[i].mlups / 2);
    assert_int_equal(a.prov.n_fallbacks, b.prov.n_fallbacks - 1);
    assert_true(model_provenance_says(&b.prov, "no narrow sweep"));
    assert_false(model_provenance_says(&a.prov, "no narrow sweep"));
    assert_true(model_provenance_says(&a.prov, "level 3 x 2.000"));
    /* L = 10 (4x) and L = M = 10 (4 x 2 / 2); BX = 12 read at 8 */
    model_kernel k = f.k;
    k.misaligned_reads[0] = 10;
    k.misaligned_writes[0] = 0;
    NEAR(predict(&in, &k, lat).full.mlups, predict(&plain, &k, lat).full.mlups / 4);
    k.misaligned_writes[0] = 10;
    NEAR(predict(&in, &k, lat).full.mlups, predict(&plain, &k, lat).full.mlups / 4);
    k.block[0] = 12;
    k.block[1] = 4;
    a = predict(&in, &k, lat);
    NEAR(a.full.mlups, predict(&plain, &k, lat).full.mlups / 4);
    assert_true(model_provenance_says(&a.prov, "read on the narrow sweep at BX=8"));
    /* a grid of 32-wide blocks: the narrow rows change nothing */
    k = f.k;
    k.block[0] = 32;
    k.block[1] = 2;
    NEAR(predict(&in, &k, lat).full.mlups, predict(&plain, &k, lat).full.mlups);
    model_inputs_free(&in);
    model_inputs_free(&plain);
    snprintf(cmd, sizeof cmd, "rm -rf %s %s", with, without);
    assert_int_equal(system(cmd), 0);
}

/* dir: a copy of the launch folder (membench.csv without band or tile
 * columns: an old file) and membench-tile.csv, the tile sweep alone at
 * 2^24 threads: 8x8x4 at 1.5x its 256x1x1 at L, M = 0/0, 2.5x at 10/0,
 * 3x at 0/10; 32x8x1 at 1.25x everywhere; 8x4x1 (one warp) at 5x 32x1x1;
 * `extra`, when given, a last line appended as it is. */
static void tile_folder(char *dir, const char *extra)
{
    char cmd[8192];
    assert_non_null(mkdtemp(dir));
    int n = snprintf(cmd, sizeof cmd,
                     "cp tests/model-data/launch/*.csv %s/ && cd %s && cp membench-meta.csv membench-tile-meta.csv && "
                     "echo device,backend,sweep,words,word_bytes,misaligned_reads,misaligned_writes,block_size,"
                     "blocks_per_cu_requested,blocks_per_cu,occupancy,threads,bytes_moved,reps,ms_min,ms_median,"
                     "ms_max,gbs_max,gbs_median,ns_per_thread,timing,ops,launches,in_place,swapped,vector,row,band,"
                     "tile_x,tile_y,tile_z > membench-tile.csv",
                     dir, dir);
    static const int lm[3][2] = {{0, 0}, {10, 0}, {0, 10}};
    static const int shapes[6][3] = {{8, 8, 4}, {256, 1, 1}, {32, 8, 1}, {8, 4, 1}, {32, 1, 1}, {0, 0, 0}};
    static const double x[5][3] = {{1.5, 2.5, 3}, {1, 1, 1}, {1.25, 1.25, 1.25}, {5, 5, 5}, {1, 1, 1}};
    const double threads = 16777216;
    for (int s = 0; s < 5; s++)
        for (int v = 0; v < 3; v++) {
            const double m = 0.9 * x[s][v];
            const int *t = shapes[s];
            n += snprintf(cmd + n, sizeof cmd - (size_t)n,
                          " && echo test-gpu,cuda,tile,19,4,%d,%d,%d,0,8,1.0,%.0f,%.0f,10,%g,%g,%g,1,1,%g,"
                          "back_to_back,0,20,0,0,1,1,32,%d,%d,%d >> membench-tile.csv",
                          lm[v][0], lm[v][1], t[0] * t[1] * t[2], threads, 152 * threads, m, m, m, m * 1e6 / threads,
                          t[0], t[1], t[2]);
        }
    if (extra) n += snprintf(cmd + n, sizeof cmd - (size_t)n, " && echo '%s' >> membench-tile.csv", extra);
    assert_true(n < (int)sizeof cmd);
    assert_int_equal(system(cmd), 0);
}

static void remove_folder(const char *dir)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
}

/* A grid launch: level 3 times the tile sweep at its block shape over
 * BSx1x1 at the phase's L and M (both: 10/0 x 0/10 over 0/0); a shape the
 * sweep lacks, narrower than a warp: the narrow reading on the tile
 * sweep's one-warp blocks; wider: as before, noted. */
static void test_tile_blocks(void **state)
{
    (void)state;
    char with[] = "/tmp/lbp-tile-XXXXXX";
    tile_folder(with, NULL);
    model_inputs in, plain;
    assert_int_equal(model_inputs_load(&in, with, "cuda", err, sizeof err), 0);
    assert_int_equal(model_inputs_load(&plain, "tests/model-data/launch", "cuda", err, sizeof err), 0);
    model_kernel_file f;
    assert_int_equal(model_kernel_file_read("tests/kernels/diagnose/d3q19-push-grid8.kernel", &f, err, sizeof err), 0);
    model_lattice lat = box(256, 256, 256, 0);
    assert_int_equal(model_kernel_file_launch(&f, &in, &lat, err, sizeof err), 0);
    model_prediction a = predict(&in, &f.k, lat), b = predict(&plain, &f.k, lat);
    assert_true(b.full.mlups > 0);
    NEAR(a.full.mlups, b.full.mlups / 3); /* push: M = 10, 8x8x4 at 3x 256x1x1 */
    NEAR(a.probe.mlups, b.probe.mlups);   /* level 2 as before */
    assert_true(model_provenance_says(&a.prov, "tile sweep at 8x8x4 over 256x1x1"));
    assert_int_equal(a.prov.n_fallbacks, b.prov.n_fallbacks - 1); /* no narrow fallback */
    model_kernel k = f.k;
    k.misaligned_reads[0] = 10; /* L = M = 10: 2.5 x 3 / 1.5 */
    NEAR(predict(&in, &k, lat).full.mlups, predict(&plain, &k, lat).full.mlups / 5);
    k.misaligned_writes[0] = 0;
    NEAR(predict(&in, &k, lat).full.mlups, predict(&plain, &k, lat).full.mlups / 2.5);
    /* whole-warp rows: 32x8x1 at 1.25x */
    k = f.k;
    k.block[0] = 32, k.block[1] = 8, k.block[2] = 1;
    NEAR(predict(&in, &k, lat).full.mlups, predict(&plain, &k, lat).full.mlups / 1.25);
    /* 8x2x2 not measured: the narrow reading at BX = 8 on 8x4x1 over 32x1x1 */
    k.block[0] = 8, k.block[1] = 2, k.block[2] = 2;
    a = predict(&in, &k, lat);
    NEAR(a.full.mlups, predict(&plain, &k, lat).full.mlups / 5);
    assert_true(model_provenance_says(&a.prov, "no tile sweep at 8x2x2"));
    assert_true(model_provenance_says(&a.prov, "tile sweep at 8x4x1 over 32x1x1"));
    /* 64x2x1 not measured and whole warps wide: as before */
    k.block[0] = 64, k.block[1] = 2, k.block[2] = 1;
    a = predict(&in, &k, lat);
    NEAR(a.full.mlups, predict(&plain, &k, lat).full.mlups);
    assert_true(model_provenance_says(&a.prov, "no tile sweep at 64x2x1"));
    /* a linear launch: untouched */
    k.launch = MODEL_LAUNCH_LINEAR;
    NEAR(predict(&in, &k, lat).full.mlups, predict(&plain, &k, lat).full.mlups);
    model_inputs_free(&in);
    model_inputs_free(&plain);
    remove_folder(with);
}

/* Appends the tile probe of shape at L, M, blocks per SM forced to k,
 * taking ms per launch at 2^24 threads, to dir's membench-tile.csv. */
static void add_tile_row(const char *dir, const int shape[3], int l, int m, int k, double ms)
{
    char cmd[1024];
    const double threads = 16777216;
    snprintf(cmd, sizeof cmd,
             "echo test-gpu,cuda,tile,19,4,%d,%d,%d,%d,%d,0.5,%.0f,%.0f,10,%g,%g,%g,1,1,%g,back_to_back,0,20,0,0,1,1,32,"
             "%d,%d,%d >> %s/membench-tile.csv",
             l, m, shape[0] * shape[1] * shape[2], k, k, threads, 152 * threads, ms, ms, ms, ms * 1e6 / threads,
             shape[0], shape[1], shape[2], dir);
    assert_int_equal(system(cmd), 0);
}

/* A tile folder (tile_folder), with the rows of shape and ref at L, M =
 * 0/0, 10/0, 0/10 taking 0.9 ms times xs and xr at k forced blocks per SM
 * where shape is given; the launch folder without them; the 8x8x4 push
 * grid's file launched on nx x 256 x 256. */
typedef struct {
    char dir[32];
    model_inputs in, plain;
    model_kernel_file f;
    model_lattice lat;
} tile_case;

static void tile_case_open(tile_case *c, long long nx, const int *shape, const int *ref, const double *xs,
                           const double *xr, int k)
{
    static const int lm[3][2] = {{0, 0}, {10, 0}, {0, 10}};
    snprintf(c->dir, sizeof c->dir, "/tmp/lbp-tile-XXXXXX");
    tile_folder(c->dir, NULL);
    for (int v = 0; shape && v < 3; v++) {
        add_tile_row(c->dir, shape, lm[v][0], lm[v][1], k, 0.9 * xs[v]);
        add_tile_row(c->dir, ref, lm[v][0], lm[v][1], k, 0.9 * xr[v]);
    }
    assert_int_equal(model_inputs_load(&c->in, c->dir, "cuda", err, sizeof err), 0);
    assert_int_equal(model_inputs_load(&c->plain, "tests/model-data/launch", "cuda", err, sizeof err), 0);
    assert_int_equal(model_kernel_file_read("tests/kernels/diagnose/d3q19-push-grid8.kernel", &c->f, err, sizeof err),
                     0);
    c->lat = box(nx, 256, 256, 0);
    assert_int_equal(model_kernel_file_launch(&c->f, &c->in, &c->lat, err, sizeof err), 0);
}

static void tile_case_close(tile_case *c)
{
    model_inputs_free(&c->in);
    model_inputs_free(&c->plain);
    remove_folder(c->dir);
}

/* A shape's cost depends on the blocks sharing an SM: where the tile sweep
 * ran the kernel's shape and its reference at the kernel's own blocks per
 * SM (membench --tile-from its file: 8x8x4 at 1.2x 256x1x1 at 0/0, 2x at
 * 0/10, both forced to 4), a kernel of 4 blocks per SM reads those; one of
 * 6 the unforced rows, as before (3x), noted. */
static void test_tile_own_blocks(void **state)
{
    (void)state;
    static const int shape[3] = {8, 8, 4}, ref[3] = {256, 1, 1};
    static const double xs[3] = {1.2, 1.2, 2}, xr[3] = {1, 1, 1};
    tile_case c;
    tile_case_open(&c, 256, shape, ref, xs, xr, 4);
    assert_int_equal((int)c.f.blocks_per_sm, 4);
    model_prediction a = predict(&c.in, &c.f.k, c.lat);
    NEAR(a.full.mlups, predict(&c.plain, &c.f.k, c.lat).full.mlups / 2);
    assert_true(model_provenance_says(&a.prov, "over 256x1x1 at 4 blocks per SM"));
    model_lattice lat = box(256, 256, 256, 0);
    lat.blocks_per_cu = 6;
    assert_int_equal(model_kernel_file_launch(&c.f, &c.in, &lat, err, sizeof err), 0);
    a = predict(&c.in, &c.f.k, lat);
    NEAR(a.full.mlups, predict(&c.plain, &c.f.k, lat).full.mlups / 3);
    assert_true(model_provenance_says(&a.prov, "not the kernel's 6 (membench --tile-from"));
    tile_case_close(&c);
}

/* The tile sweep's misaligned probes move 10 words at x + 1; a phase of
 * another count reads the line through the aligned and the 10-word probe
 * (time linear in the misaligned count): 8x8x4 at M = 5 at 1.5 + 1.5 / 2,
 * at M = 19 at 1.5 + 1.5 x 1.9 (past the sweep: within_measured no), L = M
 * = 19 at (1.5 + 1.9) (1.5 + 1.5 x 1.9) / 1.5. */
static void test_tile_counts(void **state)
{
    (void)state;
    tile_case c;
    tile_case_open(&c, 256, NULL, NULL, NULL, NULL, 0);
    model_kernel k = c.f.k;
    k.misaligned_writes[0] = 5;
    model_prediction a = predict(&c.in, &k, c.lat);
    NEAR(a.full.mlups, predict(&c.plain, &k, c.lat).full.mlups / 2.25);
    assert_false(model_provenance_says(&a.prov, "extended along the misaligned count"));
    k.misaligned_writes[0] = 19;
    a = predict(&c.in, &k, c.lat);
    NEAR(a.full.mlups, predict(&c.plain, &k, c.lat).full.mlups / 4.35);
    assert_true(model_provenance_says(&a.prov, "extended along the misaligned count"));
    assert_int_equal(a.prov.within_measured, 0);
    k.misaligned_reads[0] = 19;
    NEAR(predict(&c.in, &k, c.lat).full.mlups, predict(&c.plain, &k, c.lat).full.mlups / (3.4 * 4.35 / 1.5));
    tile_case_close(&c);
}

/* Past the 10 words the tile sweep measured at x + 1, the reference (the
 * linear probe at the shape's block) grows as the misaligned sweep says
 * (the launch folder's writes: 0.06 ns more at 10, 0.08 at 19), what the
 * shape adds on its line: 512x1x1 at 1 (0/0) and 1.2 (0/10), 8x8x8 at
 * 1.5 and 3: at M = 19 the reference is 1 + 0.2 x 4/3, the shape adds
 * 0.5 + (1.8 - 0.5) x 1.9. */
static void test_tile_reference_grows(void **state)
{
    (void)state;
    static const int shape[3] = {8, 8, 8}, ref[3] = {512, 1, 1};
    static const double xs[3] = {1.5, 1.5, 3}, xr[3] = {1, 1, 1.2};
    tile_case c;
    tile_case_open(&c, 256, shape, ref, xs, xr, 0);
    NEAR(model_misaligned_count_ratio(&c.in, 4, 512, 1, 19, 10), 0.08 / 0.06);
    NEAR(model_misaligned_count_ratio(&c.in, 4, 512, 0, 19, 10), 0.03 / 0.02);
    model_kernel k = c.f.k;
    k.block[2] = 8;
    NEAR(predict(&c.in, &k, c.lat).full.mlups, predict(&c.plain, &k, c.lat).full.mlups / 2.5); /* M = 10: 3 / 1.2 */
    k.misaligned_writes[0] = 19;
    const double linear = 1 + 0.2 * 0.08 / 0.06, added = 0.5 + 1.3 * 1.9;
    NEAR(predict(&c.in, &k, c.lat).full.mlups, predict(&c.plain, &k, c.lat).full.mlups / ((linear + added) / linear));
    tile_case_close(&c);
}

/* A count past the misaligned sweep (the launch folder's reads to 19: 0.03
 * ns more than aligned) reads on along membench-fit.csv's slope (0.002 ns
 * a word), no longer clamped at 19, and is not within what was measured;
 * inside the sweep, as measured. */
static void test_misaligned_past_sweep(void **state)
{
    (void)state;
    model_inputs in;
    assert_int_equal(model_inputs_load(&in, "tests/model-data/launch", "cuda", err, sizeof err), 0);
    model_base_probe base;
    assert_int_equal(model_base_probe_find(&in, 4, 256, 0, &base, NULL), 1);
    const model_lattice lat = box(256, 256, 256, 256);
    model_probe_shape shape = {.words = 19, .misaligned_reads = 19, .word_bytes = 4};
    model_provenance prov;
    model_provenance_init(&prov);
    NEAR(model_misalignment_extra(&in, &base, &lat, &shape, &prov), 0.03);
    assert_int_equal(prov.within_measured, 1);
    shape.misaligned_reads = 29;
    NEAR(model_misalignment_extra(&in, &base, &lat, &shape, &prov), 0.03 + 10 * 0.002);
    assert_int_equal(prov.within_measured, 0);
    assert_true(model_provenance_says(&prov, "L=29 M=0 past the measured sweep: read on along its membench-fit.csv"));
    model_probe_curve_free(&base.found);
    model_inputs_free(&in);
}

/* A grid of 8x8x4 blocks on rows of 1000 bytes (offsets 0, 8, 16, 24 in a
 * sector): each block's 32-byte piece of a row straddles where the row
 * does, so a quarter of the rows take push's own 0/10 and its tile factor
 * (3), three quarters 19/19 and theirs ((1.5 + 1.9) (1.5 + 1.5 x 1.9) /
 * 1.5): the step is the classes' times at their factors, weighted. */
static void test_tile_row_classes(void **state)
{
    (void)state;
    tile_case c;
    tile_case_open(&c, 250, NULL, NULL, NULL, NULL, 0);
    const model_prediction a = predict(&c.in, &c.f.k, c.lat), b = predict(&c.plain, &c.f.k, c.lat);
    assert_true(model_provenance_says(&a.prov, "rows 25.0 % L=0 M=10, 75.0 % L=19 M=19"));
    model_prediction cls[2];
    model_kernel k = c.f.k;
    model_lattice whole = c.lat; /* the classes' kernels on rows of whole sectors: one class each */
    whole.stored_cells = 256.0 * 256 * 256;
    cls[0] = predict(&c.plain, &k, whole);
    k.misaligned_reads[0] = k.misaligned_writes[0] = 19;
    cls[1] = predict(&c.plain, &k, whole);
    const model_full_path t = MODEL_FULL_THREADS_SWEEP;
    assert_true(a.full.answer[t].applies);
    NEAR(b.full.answer[t].mlups, 1 / (0.25 / cls[0].full.answer[t].mlups + 0.75 / cls[1].full.answer[t].mlups));
    NEAR(a.full.answer[t].mlups,
         1 / (0.25 * 3 / cls[0].full.answer[t].mlups + 0.75 * (3.4 * 4.35 / 1.5) / cls[1].full.answer[t].mlups));
    tile_case_close(&c);
}

/* membench-tile.csv's rows: tile rows only, each with a block shape of
 * whole sizes and at most 1024 threads; the three columns together. */
static void test_tile_rows_rejected(void **state)
{
    (void)state;
    static const struct {
        const char *line, *says;
    } bad[] = {
        {"test-gpu,cuda,threads,19,4,0,0,256,0,8,1.0,1048576,1,10,1,1,1,1,1,1,back_to_back,0,20,0,0,1,1,32,0,0,0",
         "does not belong"},
        {"test-gpu,cuda,tile,19,4,0,0,256,0,8,1.0,1048576,1,10,1,1,1,1,1,1,back_to_back,0,20,0,0,1,1,32,0,8,1",
         "tile 0x8x1"},
        {"test-gpu,cuda,tile,19,4,0,0,256,0,8,1.0,1048576,1,10,1,1,1,1,1,1,back_to_back,0,20,0,0,1,1,32,64,32,1",
         "tile 64x32x1"},
        {"test-gpu,cuda,tile,19,4,0,0,256,0,8,1.0,1048576,1,10,1,1,1,1,1,1,back_to_back,0,20,0,0,1,1,32,0,0,0",
         "tile 0x0x0 in sweep 'tile'"},
        {"test-gpu,cuda,tile,19,4,0,0,256,0,8,1.0,1048576,1,10,1,1,1,1,1,1,back_to_back,0,20,0,0,1,1,32,8,8,x",
         "tile_z"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        char dir[] = "/tmp/lbp-tile-XXXXXX";
        tile_folder(dir, bad[i].line);
        model_inputs in;
        assert_int_equal(model_inputs_load(&in, dir, "cuda", err, sizeof err), -1);
        if (!strstr(err, bad[i].says)) fail_msg("'%s' does not say '%s'", err, bad[i].says);
        remove_folder(dir);
    }
    /* tile columns in membench.csv: a threads row with a shape; tile_x alone */
    static const char *const edits[][2] = {
        {"sed -i '1s/$/,tile_x,tile_y,tile_z/; 2,$s/$/,0,0,0/; 2s/,0,0,0$/,8,8,4/' membench.csv", "in sweep 'words'"},
        {"sed -i '1s/$/,tile_x/; 2,$s/$/,0/' membench.csv", "tile_x, tile_y and tile_z together"},
    };
    for (size_t i = 0; i < sizeof edits / sizeof *edits; i++) {
        char dir[] = "/tmp/lbp-tile-XXXXXX", cmd[700];
        assert_non_null(mkdtemp(dir));
        snprintf(cmd, sizeof cmd, "cp tests/model-data/launch/*.csv %s/ && cd %s && %s", dir, dir, edits[i][0]);
        assert_int_equal(system(cmd), 0);
        model_inputs in;
        assert_int_equal(model_inputs_load(&in, dir, "cuda", err, sizeof err), -1);
        if (!strstr(err, edits[i][1])) fail_msg("'%s' does not say '%s'", err, edits[i][1]);
        remove_folder(dir);
    }
}


/* ---- the stencil: velocities and shifts --------------------------------- */

/* velocities and read_shift / write_shift: the misalignment they imply
 * where the file does not give it, per launch; the shifts' text. */
static void test_stencil_parse(void **state)
{
    (void)state;
    model_kernel_file f = parsed("name = n\nwords_read = 19\nvelocities = d3q19\nread_shift = -c\n");
    assert_int_equal(f.k.velocities, MODEL_D3Q19);
    assert_int_equal(f.k.read_shift[0], MODEL_SHIFT_MINUS | MODEL_SHIFT_X | MODEL_SHIFT_Y | MODEL_SHIFT_Z);
    assert_int_equal(f.k.misaligned_reads[0], 10);
    assert_int_equal(f.k.misaligned_writes[0], 0);
    f = parsed("name = n\nwords_read = 19\nvelocities = d3q19\nread_shift = 0, -c\nwrite_shift = 0,+c\n");
    assert_int_equal(f.k.phases, 2);
    assert_int_equal(f.k.misaligned_reads[0], 0);
    assert_int_equal(f.k.misaligned_reads[1], 10);
    assert_int_equal(f.k.misaligned_writes[1], 10);
    f = parsed("name = n\nwords_read = 19\nvelocities = d3q19\nread_shift = -cx\nwrite_shift = +cyz\n"
               "misaligned_reads = 10\n");
    assert_int_equal(f.k.misaligned_writes[0], 0);
    static const struct {
        const char *set;
        int q, x_moving;
    } sets[] = {{"d2q9", 9, 6}, {"d3q15", 15, 10}, {"d3q19", 19, 10}, {"d3q27", 27, 18}};
    for (size_t i = 0; i < sizeof sets / sizeof *sets; i++) {
        char text[160];
        snprintf(text, sizeof text, "name = n\nwords_read = %d\nvelocities = %s\nwrite_shift = +c\n", sets[i].q,
                 sets[i].set);
        f = parsed(text);
        assert_int_equal(f.k.misaligned_writes[0], sets[i].x_moving);
        int c[MODEL_MAX_Q][3];
        assert_int_equal(model_velocities_of(f.k.velocities, c), sets[i].q);
    }
    static const char *const shifts[] = {"0", "+c", "-c", "+cx", "-cyz", "+cxz"};
    for (size_t i = 0; i < sizeof shifts / sizeof *shifts; i++) {
        char text[16];
        const int bits = model_shift_parse(shifts[i]);
        assert_true(bits >= 0);
        model_shift_text((unsigned)bits, text, sizeof text);
        assert_string_equal(text, shifts[i]);
    }
    static const char *const bad[] = {"c", "+q", "-cxx", "+czy", "+cw", "1", "+c,"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) assert_int_equal(model_shift_parse(bad[i]), -1);
    static const struct {
        const char *text, *error;
    } cases[] = {
        {"name = n\nwords_read = 19\nvelocities = d3q20\n", "k.kernel:3: velocities: 'd3q20' is not d2q9, d3q15"},
        {"name = n\nwords_read = 19\nvelocities = d3q19\nread_shift = -q\n", "k.kernel:4: read_shift: '-q' is not 0"},
        {"name = n\nwords_read = 19\nvelocities = d3q19\nwrite_shift = +czy\n", "k.kernel:4: write_shift: '+czy'"},
        {"name = n\nwords_read = 19\nread_shift = -c\n", "k.kernel:3: read_shift: needs velocities"},
        {"name = n\nvelocities = d3q19\nwords_read = 39\n",
         "k.kernel:3: words_read: d3q19 has 19 velocities, words_read is 39"},
        {"name = n\nwords_read = 19\nwords_written = 9\nvelocities = d3q19\n",
         "k.kernel:4: velocities: d3q19 has 19 velocities, words_written is 9"},
        {"name = n\nwords_read = 19\nmisaligned_reads = 0\nvelocities = d3q19\nread_shift = -c\n",
         "k.kernel:5: read_shift: read_shift -c moves 10 of d3q19's words in x (launch 1), misaligned_reads says 0"},
        {"name = n\nwords_read = 19\nvelocities = d3q19\nwrite_shift = +cx\nmisaligned_writes = 0, 10\n",
         "k.kernel:5: misaligned_writes: write_shift +cx moves 10 of d3q19's words in x (launch 1), "
         "misaligned_writes says 0"},
        {"name = n\nwords_read = 19\nvelocities = d3q19\nread_shift = 0, -c\nwrite_shift = 0, +c, 0\n",
         "k.kernel:5: write_shift: 2 launches in read_shift, 3 in write_shift"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        err[0] = 0;
        assert_int_equal(model_kernel_file_parse(cases[i].text, "k.kernel", &f, err, sizeof err), -1);
        if (strncmp(err, cases[i].error, strlen(cases[i].error)))
            fail_msg("case %zu: got '%s', want '%s...'", i, err, cases[i].error);
        assert_null(strchr(err, '\n'));
    }
}

static model_row_shifted shifted(const char *scheme, const char *precision, int v, long long nx, long long ny,
                                 int phase, int cpu)
{
    model_kernel k;
    assert_int_equal(model_builtin_kernel(&k, scheme, precision), 0);
    k.cells_per_thread = v;
    model_inputs in;
    memset(&in, 0, sizeof in);
    in.is_cpu = cpu;
    const model_lattice lat = box(nx, ny, 16, 128);
    return model_row_shifted_words(&in, &k, &lat, phase);
}

#define ASSERT_SHIFTED(r, want_reads, want_writes, want_exchanged) \
    do {                                                           \
        const model_row_shifted r_ = (r);                          \
        assert_int_equal(r_.reads, want_reads);                    \
        assert_int_equal(r_.writes, want_writes);                  \
        assert_int_equal(r_.exchanged, want_exchanged);            \
    } while (0)

/* The words a row or a plane away that straddle sectors: D3Q19 in fp16s on
 * rows of 200 cells (400 bytes, 16 past a sector; planes of whole
 * sectors): push's 6 stores that keep x, and at 4 cells per thread the 4
 * it exchanges that also move in y; pull's and A-A's odd launch's 6 reads
 * (and its 6 stores); split's 10 stores that move in y.  Rows of whole
 * sectors, a CPU, a rows launch and a kernel without velocities: none.
 * Rows of 8 fp16s cells and planes of 3 rows (16 and 48 bytes): the words
 * one row or one plane away straddle, those a row and a plane away land
 * 32 or 64 bytes on (whole sectors). */
static void test_row_shifted_words(void **state)
{
    (void)state;
    ASSERT_SHIFTED(shifted("push", "fp16s", 4, 200, 200, 0, 0), 0, 6, 4);
    ASSERT_SHIFTED(shifted("push", "fp16s", 1, 200, 200, 0, 0), 0, 6, 0);
    ASSERT_SHIFTED(shifted("pull", "fp16s", 4, 200, 200, 0, 0), 6, 0, 0);
    ASSERT_SHIFTED(shifted("split", "fp16s", 4, 200, 200, 0, 0), 0, 10, 0);
    ASSERT_SHIFTED(shifted("aa", "fp16s", 4, 200, 200, 0, 0), 0, 0, 0);
    ASSERT_SHIFTED(shifted("aa", "fp16s", 4, 200, 200, 1, 0), 6, 6, 0);
    ASSERT_SHIFTED(shifted("push", "fp32", 1, 100, 100, 0, 0), 0, 6, 0);
    ASSERT_SHIFTED(shifted("push", "fp32", 1, 104, 104, 0, 0), 0, 0, 0);
    ASSERT_SHIFTED(shifted("push", "fp16s", 4, 256, 256, 0, 0), 0, 0, 0);
    ASSERT_SHIFTED(shifted("push", "fp16s", 4, 200, 200, 0, 1), 0, 0, 0);
    ASSERT_SHIFTED(shifted("pull", "fp16s", 1, 8, 3, 0, 0), 4, 0, 0);
    model_kernel k;
    assert_int_equal(model_builtin_kernel(&k, "push", "fp32"), 0);
    model_inputs in;
    memset(&in, 0, sizeof in);
    const model_lattice lat = box(100, 100, 16, 128);
    k.launch = MODEL_LAUNCH_ROWS;
    ASSERT_SHIFTED(model_row_shifted_words(&in, &k, &lat, 0), 0, 0, 0);
    k.launch = MODEL_LAUNCH_LINEAR;
    k.velocities = MODEL_VELOCITIES_NONE;
    ASSERT_SHIFTED(model_row_shifted_words(&in, &k, &lat, 0), 0, 0, 0);
}

/* On the synthetic launch folder (no geometry sweep): push in fp32 on rows
 * of 100 cells takes its 10 x-shifted stores and the 6 a row away, priced
 * as level 2 prices 16 misaligned stores over 10; on rows of whole sectors
 * (and without velocities) the factor is 1. */
static void test_row_shift_predicted(void **state)
{
    (void)state;
    model_inputs in;
    load(&in);
    model_kernel k, plain;
    assert_int_equal(model_builtin_kernel(&k, "push", "fp32"), 0);
    plain = k;
    plain.velocities = MODEL_VELOCITIES_NONE;
    model_lattice lat = box(100, 64, 64, 256);
    lat.blocks_per_cu = 8;
    const model_prediction p = predict(&in, &k, lat), q = predict(&in, &plain, lat);
    assert_true(model_provenance_says(&p.prov, "rows of 400 bytes are not whole 32-byte sectors"));
    assert_true(model_provenance_says(&p.prov, "launch 1: 0 read, 6 written"));
    model_kernel m10 = plain, m16 = plain;
    m16.misaligned_writes[0] = 16;
    model_prediction l10, l16;
    model_provenance_init(&l10.prov);
    model_provenance_init(&l16.prov);
    assert_int_equal(model_probe_level_of(&in, &m10, &lat, &l10.probe, &l10.prov, err, sizeof err), 0);
    assert_int_equal(model_probe_level_of(&in, &m16, &lat, &l16.probe, &l16.prov, err, sizeof err), 0);
    const double want = l16.probe.ns_per_cell[0] / l10.probe.ns_per_cell[0];
    assert_true(want > 1);
    for (int i = 0; i < MODEL_FULL_PATHS; i++) {
        if (!q.full.answer[i].applies) continue;
        NEAR(p.full.answer[i].memory_us[0], q.full.answer[i].memory_us[0] * want);
    }
    NEAR(p.probe.mlups, q.probe.mlups); /* level 2 knows no lattice */
    lat.nx = 104;
    lat.cells = 104.0 * 64 * 64;
    const model_prediction w = predict(&in, &k, lat), wq = predict(&in, &plain, lat);
    assert_false(model_provenance_says(&w.prov, "not whole 32-byte sectors"));
    NEAR(w.full.mlups, wq.full.mlups);
    model_inputs_free(&in);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_builtin_schemes),  cmocka_unit_test(test_example_files),
        cmocka_unit_test(test_parse_values),     cmocka_unit_test(test_parse_errors),
        cmocka_unit_test(test_name_whitelist),   cmocka_unit_test(test_values_not_wrapped),
        cmocka_unit_test(test_lines_not_echoed), cmocka_unit_test(test_file_kinds),
        cmocka_unit_test(test_launched_threads), cmocka_unit_test(test_idle_threads_predicted),
        cmocka_unit_test(test_working_share),    cmocka_unit_test(test_row_classes),
        cmocka_unit_test(test_row_classes_predicted),
        cmocka_unit_test(test_file_launch),      cmocka_unit_test(test_cli),
        cmocka_unit_test(test_narrow_blocks),    cmocka_unit_test(test_tile_blocks),
        cmocka_unit_test(test_tile_counts),      cmocka_unit_test(test_tile_row_classes),
        cmocka_unit_test(test_tile_own_blocks),  cmocka_unit_test(test_tile_reference_grows),
        cmocka_unit_test(test_misaligned_past_sweep),
        cmocka_unit_test(test_tile_rows_rejected),
        cmocka_unit_test(test_stencil_parse),    cmocka_unit_test(test_row_shifted_words),
        cmocka_unit_test(test_row_shift_predicted),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
