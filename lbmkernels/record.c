/* lbm.csv's record from the scheme's description file (see record.h). */
#include "record.h"

#include <stdio.h>
#include <stdlib.h>

#include "kernel.h"

/* "10", "0;10": one entry per alternating launch (';': lbm.csv is
 * comma-separated). */
static void phase_text(const int *counts, int phases, char *out, size_t len)
{
    size_t used = 0;
    out[0] = 0;
    for (int i = 0; i < phases && used < len; i++)
        used += (size_t)snprintf(out + used, len - used, "%s%d", i ? ";" : "", counts[i]);
}

lbm_record lbm_record_of(lbm_scheme s, lbm_precision p)
{
    model_kernel k;
    if (model_builtin_kernel(&k, lbm_scheme_names[s], lbm_precision_names[p])) {
        /* every scheme and precision has a file: tests/test_lbmkernels */
        fprintf(stderr, "lbmkernels: no description of %s %s\n", lbm_scheme_names[s], lbm_precision_names[p]);
        abort();
    }
    lbm_record r = {.words_read = (int)k.words_read, .words_written = (int)k.words_written,
                    .word_bytes = k.word_bytes, .lattices = k.lattices, .launch = model_launch_name(k.launch)};
    r.bytes_per_update = (r.words_read + r.words_written) * r.word_bytes;
    phase_text(k.misaligned_reads, k.phases, r.misaligned_reads, sizeof r.misaligned_reads);
    phase_text(k.misaligned_writes, k.phases, r.misaligned_writes, sizeof r.misaligned_writes);
    return r;
}
