/* make test runs each matrix once, on the smallest cases that exercise
 * it; make test-full (LBP_TEST_FULL=1) runs all of it.  CI runs both.
 *
 *   if (!lbp_test_full() && ...) continue;   a case only the full run takes
 *   LBP_FULL_ONLY();                          a test only the full run takes
 */
#ifndef LBP_TESTS_FULL_H
#define LBP_TESTS_FULL_H

#include <stdlib.h>
#include <string.h>

static inline int lbp_test_full(void)
{
    const char *v = getenv("LBP_TEST_FULL");
    return v && *v && strcmp(v, "0") != 0;
}

#define LBP_FULL_ONLY()                 \
    do {                                \
        if (!lbp_test_full()) skip();   \
    } while (0)

#endif
