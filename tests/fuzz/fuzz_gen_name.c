/* libFuzzer: membench's generator of described kernels
 * (membench/described.h) with any name.  The name is the only text of a
 * kernel file that reaches the generated source, which the openmp backend
 * compiles and loads: a name that is not 1 to 47 of A-Z a-z 0-9 . _ -
 * (model_kernel_name_ok) gets no source at all, and a source is exactly
 * the one of a plain name with the name put in its place, once, in the
 * comment.  Both ways a name arrives: put in the record directly (the
 * generator does not trust its caller) and through the parser (the name
 * it accepts is whitelisted, and is the file's text). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../membench/described.h"

#define CHECK(c) do { if (!(c)) { fprintf(stderr, "fuzz_gen_name: check failed: %s\n", #c); abort(); } } while (0)

#define PLAIN "x"

static model_kernel_file file;
static mb_described described;
static char *plain; /* the source with the name PLAIN */

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    char err[512];
    if (model_kernel_file_parse("name = " PLAIN "\nwords_read = 19\nmisaligned_reads = 10\nlaunch = grid\n"
                                "block = 32x4x2\n", "plain.kernel", &file, err, sizeof err) ||
        mb_described_of(&file, 64, 16, 8, 0, &described, err, sizeof err)) {
        fprintf(stderr, "fuzz_gen_name: %s\n", err);
        abort();
    }
    plain = mb_generate_described(&described);
    CHECK(plain && strstr(plain, " " PLAIN " "));
    return 0;
}

static int whitelisted(const char *name)
{
    for (const char *c = name; *c; c++)
        if (!strchr(MODEL_KERNEL_NAME_CHARS, *c)) return 0;
    return name[0] && strlen(name) <= MODEL_KERNEL_NAME_MAX;
}

/* The source for name: none unless whitelisted, else plain's with the
 * name in place of PLAIN. */
static void check_source(const char *name)
{
    snprintf(file.k.name, sizeof file.k.name, "%s", name);
    char *src = mb_generate_described(&described);
    CHECK(model_kernel_name_ok(name) == whitelisted(name));
    if (!whitelisted(name)) {
        CHECK(src == NULL);
        return;
    }
    CHECK(src != NULL);
    const char *at = strstr(plain, " " PLAIN " ") + 1;
    const size_t before = (size_t)(at - plain), n = strlen(name);
    CHECK(strlen(src) == strlen(plain) - strlen(PLAIN) + n);
    CHECK(!memcmp(src, plain, before));
    CHECK(!memcmp(src + before, name, n));
    CHECK(!strcmp(src + before + n, at + strlen(PLAIN)));
    free(src);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* straight into the record (a name is at most 47 bytes there) */
    char name[MODEL_KERNEL_NAME_MAX + 1];
    const size_t n = size < sizeof name - 1 ? size : sizeof name - 1;
    memcpy(name, data, n);
    name[n] = 0;
    check_source(name);

    /* through the parser: what it accepts is whitelisted and the file's */
    char *text = malloc(size + 64);
    int len = snprintf(text, size + 64, "words_read = 19\nname = ");
    memcpy(text + len, data, size);
    text[len + size] = 0;
    model_kernel_file f;
    char err[1024];
    if (model_kernel_file_parse(text, "fuzz.kernel", &f, err, sizeof err) == 0) {
        CHECK(whitelisted(f.k.name));
        CHECK(strstr(text + len, f.k.name) != NULL);
        check_source(f.k.name);
    } else {
        for (const char *c = err; *c; c++) CHECK(*c >= 0x20 && *c <= 0x7e); /* one printable line */
    }
    free(text);
    return 0;
}
