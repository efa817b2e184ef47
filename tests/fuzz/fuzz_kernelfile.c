/* libFuzzer: the kernel-description reader (model/kernelfile.h, its public
 * API only) on any bytes, parsed from memory and read from a file (which
 * adds the NUL and length checks).  Beyond the sanitizers' findings it
 * checks that a description it accepts is within the documented bounds
 * (every count and size a later computation divides by or indexes with),
 * and that a refusal is one line naming the file. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_file.h"
#include "../../model/kernelfile.h"

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
    CHECK(!strchr(err, '\n'));
}

static void check_kernel(const model_kernel_file *f)
{
    const model_kernel *k = &f->k;
    CHECK(memchr(k->name, 0, sizeof k->name) && k->name[0]);
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
    return 0;
}
