/* A test program's scratch folder: made once under $TMPDIR (else /tmp)
 * with mkdtemp and removed at exit, so two checkouts that test at once
 * never write the same path.
 *
 *   lbp_test_tmp("out")   "<its folder>/out" (8 results may be held at once)
 */
#ifndef LBP_TESTS_TMP_H
#define LBP_TESTS_TMP_H

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static char lbp_test_tmp_dir[512];

static void lbp_test_tmp_remove(void)
{
    char cmd[600];
    if (!lbp_test_tmp_dir[0]) return;
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", lbp_test_tmp_dir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", lbp_test_tmp_dir);
}

static inline const char *lbp_test_tmp(const char *name)
{
    static char paths[8][640];
    static unsigned next;
    if (!lbp_test_tmp_dir[0]) {
        const char *t = getenv("TMPDIR");
        snprintf(lbp_test_tmp_dir, sizeof lbp_test_tmp_dir, "%s/lbp-test-XXXXXX", t && *t ? t : "/tmp");
        if (!mkdtemp(lbp_test_tmp_dir)) {
            perror(lbp_test_tmp_dir);
            exit(1);
        }
        atexit(lbp_test_tmp_remove);
    }
    char *p = paths[next++ % 8];
    snprintf(p, sizeof paths[0], "%s/%s", lbp_test_tmp_dir, name);
    return p;
}

#endif
