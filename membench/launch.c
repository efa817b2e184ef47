/* Launch latency of an empty kernel (see launch.h). */
#include "launch.h"

#include <stdlib.h>

#include "cli.h"
#include "gen.h"

const char *const mb_launch_mode_names[MB_LAUNCH_MODES] = {"back_to_back", "sync_each", "graph"};

static double host_us_per_launch(lbp_device *d, lbp_kernel *k, const lbp_launch_cfg *cfg, const lbp_arg *args,
                                 int launches, int sync_each)
{
    lbp_sync(d);
    double t0 = lbp_now();
    for (int i = 0; i < launches; i++) {
        lbp_launch(d, k, cfg, 1, args);
        if (sync_each) lbp_sync(d);
    }
    lbp_sync(d);
    return (lbp_now() - t0) * 1e6 / launches;
}

void mb_measure_launch(lbp_device *d, int launches, int reps, mb_launch_result out[MB_LAUNCH_MODES])
{
    lbp_kernel *k = lbp_compile(d, mb_empty_source, MB_EMPTY_ENTRY, "");
    if (!k) lbp_fail("compiling the empty kernel failed (log above)");
    unsigned bs = d->info.max_block_size > 0 && d->info.max_block_size < 32 ? (unsigned)d->info.max_block_size : 32;
    lbp_launch_cfg cfg = lbp_cfg_1d(1, bs);
    lbp_arg args[1] = {LBP_I32(0)};
    double *us = malloc(sizeof *us * (size_t)reps);
    if (!us) lbp_fail("out of memory");
    for (int m = 0; m < MB_LAUNCH_MODES; m++) {
        out[m] = (mb_launch_result){.measured = 0, .launches = launches, .reps = reps};
        if (m == MB_LAUNCH_GRAPH && !d->info.caps.graph_replay) continue;
        for (int r = -1; r < reps; r++) { /* r = -1: untimed warm-up */
            double v;
            if (m == MB_LAUNCH_GRAPH)
                v = d->be->graph_replay_ms(d, k, &cfg, 1, args, launches, 1) * 1e3 / launches;
            else
                v = host_us_per_launch(d, k, &cfg, args, launches, m == MB_LAUNCH_SYNC_EACH);
            if (r >= 0) us[r] = v;
        }
        out[m].us = lbp_stats_of(us, reps);
        out[m].measured = 1;
    }
    free(us);
    d->be->kernel_release(d, k);
}
