/* lbmkernels with a fault planted in its kernels, for tests/test_verify_reach.sh:
 * the tool itself (lbmkernels/main.o and its objects) whose kernel text is
 * rewritten before main runs, by string substitution of the real source
 * (lbm_source, lbm.h).  The fault: after the collision, populations 1 and 2
 * (velocities +x and -x) swap where the condition LBP_FAULT_IF holds (C,
 * over the step kernel's names: nx, global_id(0), local_id(0) ...; default
 * "nx > 40"), which keeps mass, so that only a comparison with the host
 * reference on a lattice and launch where it holds sees it.  Never built
 * into a tool: only `make tests/lbmkernels_fault` (and make test) link it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lbmkernels/lbm.h"

/* The last pair of COLLIDE(C) in d3q19.cl: the fault goes after it, inside
 * the macro (the line goes on with its backslash). */
static const char anchor[] = "RELAX_PAIR(C, 17, 18, w2rest, w2rho, uy - uz)";

__attribute__((constructor)) static void plant_fault(void)
{
    const char *cond = getenv("LBP_FAULT_IF");
    if (!cond || !*cond) cond = "nx > 40";
    const char *at = strstr(lbm_kernel_source, anchor);
    if (!at || strstr(at + 1, anchor)) {
        fprintf(stderr, "lbmkernels_fault: d3q19.cl no longer holds '%s' once: update the fault\n", anchor);
        exit(3);
    }
    static const char fmt[] = " if (%s) { const real t_ = f1##C; f1##C = f2##C; f2##C = t_; }";
    const size_t head = (size_t)(at - lbm_kernel_source) + sizeof anchor - 1;
    const size_t len = strlen(lbm_kernel_source) + sizeof fmt + strlen(cond);
    char *text = malloc(len);
    if (!text) exit(3);
    memcpy(text, lbm_kernel_source, head);
    int n = snprintf(text + head, len - head, fmt, cond);
    snprintf(text + head + n, len - head - (size_t)n, "%s", lbm_kernel_source + head);
    lbm_source = text; /* kept to the end of the process */
}
