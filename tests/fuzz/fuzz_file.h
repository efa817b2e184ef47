/* Scratch files for the libFuzzer harnesses: the readers under test take a
 * path, so each input is written to a file of this process (its pid in the
 * name: fuzzers run side by side with -jobs). */
#ifndef FUZZ_FILE_H
#define FUZZ_FILE_H

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A folder of this process under $LBP_FUZZ_DIR (tests/fuzz/run.sh points
 * it into its own scratch folder, removed however the fuzzer ends), else
 * /dev/shm or $TMPDIR; removed at a normal exit. */
static char fuzz_dir_[1024];

static inline void fuzz_remove_dir_(void)
{
    char cmd[1100];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", fuzz_dir_);
    if (system(cmd)) return;
}

static inline const char *fuzz_scratch_dir(void)
{
    if (fuzz_dir_[0]) return fuzz_dir_;
    const char *base = getenv("LBP_FUZZ_DIR")            ? getenv("LBP_FUZZ_DIR")
                       : access("/dev/shm", W_OK) == 0 ? "/dev/shm"
                       : getenv("TMPDIR")              ? getenv("TMPDIR")
                                                       : "/tmp";
    snprintf(fuzz_dir_, sizeof fuzz_dir_, "%s/lbp-fuzz-%d-XXXXXX", base, (int)getpid());
    if (!mkdtemp(fuzz_dir_)) {
        perror("fuzz: mkdtemp");
        abort();
    }
    atexit(fuzz_remove_dir_);
    return fuzz_dir_;
}

static inline void fuzz_scratch_file(char *out, size_t len, const char *name)
{
    snprintf(out, len, "%s/%s", fuzz_scratch_dir(), name);
}

static inline void fuzz_write_file(const char *path, const void *data, size_t size)
{
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, size, f) != size || fclose(f)) {
        perror(path);
        abort();
    }
}

#endif
