/* libFuzzer: the kernel-description reader (core/kernelfile.h, its public
 * API only) on any bytes, parsed from memory and read from a file (which
 * adds the NUL and length checks).  Beyond the sanitizers' findings it
 * checks that a description it accepts is within the documented bounds
 * (every count and size a later computation divides by or indexes with)
 * with a whitelisted name, and that a refusal is one line of printable
 * ASCII naming the file.  And what the values mean: a file of known
 * whole numbers built from the input (small, near 2^32 and 2^64, longer
 * than 64 bits, with leading zeros or a sign) parses to those numbers
 * exactly, or is refused; it is refused only when one is out of its
 * range or the numbers contradict each other (never wrapped, never cut). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_file.h"
#include "../../core/kernelfile.h"

#define CHECK(c) do { if (!(c)) { fprintf(stderr, "fuzz_kernelfile: check failed: %s\n", #c); abort(); } } while (0)

static char path[4096];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    fuzz_scratch_file(path, sizeof path, "fuzz.kernel");
    return 0;
}

static void check_error(const char *err, const char *file)
{
    CHECK(err[0]);
    CHECK(!strncmp(err, file, strlen(file)));
    for (const char *c = err; *c; c++) CHECK(*c >= 0x20 && *c <= 0x7e); /* one line, no escape or foreign byte */
}

static void check_kernel(const model_kernel_file *f)
{
    const model_kernel *k = &f->k;
    CHECK(memchr(k->name, 0, sizeof k->name) && k->name[0]);
    CHECK(model_kernel_name_ok(k->name));
    CHECK(k->words_read >= 1 && k->words_read <= 1000);
    CHECK(k->words_written >= 1 && k->words_written <= 1000);
    CHECK(k->word_bytes == 2 || k->word_bytes == 4 || k->word_bytes == 8);
    CHECK(k->lattices == 1 || k->lattices == 2);
    CHECK(k->launches_per_step >= 1 && k->launches_per_step <= 64);
    CHECK(k->phases >= 1 && k->phases <= MODEL_MAX_PHASES);
    for (int p = 0; p < k->phases; p++) {
        CHECK(k->misaligned_reads[p] >= 0 && k->misaligned_reads[p] <= k->words_read);
        CHECK(k->misaligned_writes[p] >= 0 && k->misaligned_writes[p] <= k->words_written);
    }
    CHECK(k->cells_per_thread >= 1 && k->cells_per_thread <= 64);
    CHECK(k->ops_per_cell >= 0 && k->ops_per_cell <= 1e6);
    CHECK(f->block_size >= 0 && f->block_size <= 1024);
    CHECK(f->registers >= 0 && f->registers <= 255);
}

/* ---- known whole numbers ---------------------------------------------- */

/* The input read as a stream of bytes (zeros past its end). */
typedef struct {
    const uint8_t *p, *end;
} bytes;

static uint64_t take(bytes *b, int n)
{
    uint64_t v = 0;
    for (int i = 0; i < n; i++) v = v << 8 | (b->p < b->end ? *b->p++ : 0);
    return v;
}

/* A whole number as the file writes it, and what it is: value, or huge
 * (past 64 bits) or negative. */
typedef struct {
    char text[80];
    uint64_t value;
    int huge, negative;
} known;

static known known_number(bytes *b)
{
    known k = {.value = take(b, 8)};
    const unsigned form = (unsigned)take(b, 1);
    switch (form & 7) { /* mostly near the ranges and near the wrap points */
    case 0: case 1: case 2: k.value %= 1100; break;
    case 3: k.value = (k.value % 1100) + ((uint64_t)1 << 32) * (1 + (form >> 6)); break;
    case 4: k.value = UINT64_MAX - k.value % 1100; break;
    case 5: k.huge = 1; break;   /* the value, then 20 more digits */
    case 6: k.negative = 1; k.value %= 1100; break;
    default: break;              /* any 64-bit value */
    }
    const int zeros = (int)(form >> 3 & 3);
    int n = snprintf(k.text, sizeof k.text, "%s%.*s%llu", k.negative ? "-" : "", zeros, "000",
                     (unsigned long long)k.value);
    if (k.huge) snprintf(k.text + n, sizeof k.text - (size_t)n, "%020llu", (unsigned long long)take(b, 8));
    return k;
}

static int in(const known *k, uint64_t lo, uint64_t hi)
{
    if (k->huge) return 0;
    if (k->negative) return 0; /* "-0" too: no key of these reads a sign */
    return k->value >= lo && k->value <= hi;
}

/* name, words_read W, misaligned_reads R (0..W), launches_per_step L,
 * cells_per_thread C, a grid of XxYxZ (each 1..1024, X Y Z <= 1024) and
 * registers G (1..255): accepted exactly when every number is in range and
 * R <= W, X Y Z <= 1024; then each parsed number is the one written. */
static void check_known_numbers(const uint8_t *data, size_t size)
{
    bytes b = {data, data + size};
    known w = known_number(&b), r = known_number(&b), l = known_number(&b), c = known_number(&b),
          x = known_number(&b), y = known_number(&b), z = known_number(&b), g = known_number(&b);
    char text[1024];
    snprintf(text, sizeof text,
             "name = n\nwords_read = %s\nmisaligned_reads = %s\nlaunches_per_step = %s\ncells_per_thread = %s\n"
             "launch = grid\nblock = %sx%sx%s\nregisters = %s\n",
             w.text, r.text, l.text, c.text, x.text, y.text, z.text, g.text);
    const int valid = in(&w, 1, 1000) && in(&r, 0, 1000) && in(&l, 1, 64) && in(&c, 1, 64) && in(&x, 1, 1024) &&
                      in(&y, 1, 1024) && in(&z, 1, 1024) && in(&g, 1, 255) && r.value <= w.value &&
                      x.value * y.value * z.value <= 1024;
    model_kernel_file f;
    char err[1024] = "";
    const int parsed = model_kernel_file_parse(text, "known.kernel", &f, err, sizeof err) == 0;
    if (parsed != valid) fprintf(stderr, "fuzz_kernelfile: %s:\n%s\n", parsed ? "accepted" : err, text);
    CHECK(parsed == valid);
    if (!parsed) {
        check_error(err, "known.kernel");
        return;
    }
    CHECK(f.k.words_read == (double)w.value);
    CHECK((uint64_t)f.k.misaligned_reads[0] == r.value);
    CHECK((uint64_t)f.k.launches_per_step == l.value);
    CHECK((uint64_t)f.k.cells_per_thread == c.value);
    CHECK((uint64_t)f.k.block[0] == x.value && (uint64_t)f.k.block[1] == y.value && (uint64_t)f.k.block[2] == z.value);
    CHECK((uint64_t)f.block_size == x.value * y.value * z.value);
    CHECK((uint64_t)f.registers == g.value);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    memcpy(text, data, size);
    text[size] = '\0';
    model_kernel_file f;
    char err[1024] = "";
    if (model_kernel_file_parse(text, "fuzz.kernel", &f, err, sizeof err) == 0) check_kernel(&f);
    else check_error(err, "fuzz.kernel");
    free(text);

    fuzz_write_file(path, data, size);
    err[0] = '\0';
    if (model_kernel_file_read(path, &f, err, sizeof err) == 0) check_kernel(&f);
    else check_error(err, path);

    check_known_numbers(data, size);
    return 0;
}
