/* libFuzzer: the model's input loading (model/data/inputs.h, its public API
 * only) on a result folder whose files come from the fuzzer.  The input is
 * a set of files, each introduced by a line "=== NAME" (NAME one of the
 * files the model reads; others are ignored, a file not named is absent):
 *
 *   === stream-meta.csv
 *   key,value
 *   ...
 *   === stream.csv
 *   device,backend,...
 *
 * Every backend in stream.csv is loaded, then the loaded inputs are read
 * back through the API.  Beyond the sanitizers' findings it checks that a
 * load either succeeds with copies and probes or fails with a one-line
 * message. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz_file.h"
#include "../../model/data/inputs.h"

#define CHECK(c) do { if (!(c)) { fprintf(stderr, "fuzz_model: check failed: %s\n", #c); abort(); } } while (0)

static const char *const files[] = {"stream-meta.csv", "stream.csv", "membench.csv", "membench-geometry.csv",
                                    "membench-fit.csv", "launch.csv", "membench-launch.csv"};
enum { FILES = sizeof files / sizeof *files };

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc, (void)argv;
    fuzz_scratch_dir();
    return 0;
}

static int file_index(const uint8_t *name, size_t len)
{
    for (int i = 0; i < FILES; i++)
        if (strlen(files[i]) == len && !memcmp(files[i], name, len)) return i;
    return -1;
}

/* Where the next line starts at or after p (end when none). */
static const uint8_t *next_line(const uint8_t *p, const uint8_t *end)
{
    const uint8_t *nl = memchr(p, '\n', (size_t)(end - p));
    return nl ? nl + 1 : end;
}

/* Writes the input's files into the scratch folder, removing those it does
 * not name (a later file of the same name replaces an earlier one). */
static void write_folder(const uint8_t *data, size_t size)
{
    const uint8_t *start[FILES] = {0}, *stop[FILES] = {0};
    const uint8_t *end = data + size, *p = data;
    int current = -1;
    while (p < end) {
        const uint8_t *line_end = next_line(p, end);
        if (line_end - p >= 4 && !memcmp(p, "=== ", 4)) {
            if (current >= 0) stop[current] = p;
            const uint8_t *name = p + 4, *name_end = line_end[-1] == '\n' ? line_end - 1 : line_end;
            current = file_index(name, (size_t)(name_end - name));
            if (current >= 0) start[current] = line_end;
        }
        p = line_end;
    }
    if (current >= 0) stop[current] = end;
    for (int i = 0; i < FILES; i++) {
        char path[2048];
        snprintf(path, sizeof path, "%s/%s", fuzz_scratch_dir(), files[i]);
        if (start[i]) fuzz_write_file(path, start[i], (size_t)(stop[i] - start[i]));
        else unlink(path);
    }
    /* the membench meta files the model requires beside membench's data
     * (only that they exist): always there, so that the fuzzer reaches the
     * data behind them; stream-meta.csv, which it reads, comes from the input */
    static const char *const metas[] = {"membench-meta.csv", "membench-geometry-meta.csv", "membench-launch-meta.csv"};
    for (size_t i = 0; i < sizeof metas / sizeof *metas; i++) {
        char path[2048];
        snprintf(path, sizeof path, "%s/%s", fuzz_scratch_dir(), metas[i]);
        fuzz_write_file(path, (const uint8_t *)"key,value\n", 10);
    }
}

static void check_error(const char *err)
{
    CHECK(err[0]);
    CHECK(!strchr(err, '\n'));
}

static void read_back(const model_inputs *in)
{
    CHECK(in->n_copies > 0 && in->n_probes > 0);
    int clamped = 0;
    for (double ws = 1e3; ws < 1e11; ws *= 31.6) {
        (void)model_size_bandwidth(in, ws, 4, &clamped);
        (void)model_size_bandwidth(in, ws, 8, &clamped);
    }
    (void)model_busy_ms(in, 1.0);
    (void)model_meta_value(in, "kind");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    write_folder(data, size);
    const char *dir = fuzz_scratch_dir();
    char names[8][16], err[1024] = "";
    int n = model_backends_in(dir, names, 8, err, sizeof err);
    if (n < 0) {
        check_error(err);
        return 0;
    }
    for (int b = -1; b < n; b++) { /* -1: let the loader pick the only backend */
        model_inputs in;
        err[0] = 0;
        if (model_inputs_load(&in, dir, b < 0 ? NULL : names[b], err, sizeof err)) {
            check_error(err);
            continue;
        }
        read_back(&in);
        model_inputs_free(&in);
    }
    return 0;
}
