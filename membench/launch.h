/* Launch latency of an empty kernel, seen from the host. */
#ifndef MB_LAUNCH_H
#define MB_LAUNCH_H

#include "device.h"
#include "stats.h"

enum { MB_LAUNCH_BACK_TO_BACK, MB_LAUNCH_SYNC_EACH, MB_LAUNCH_GRAPH, MB_LAUNCH_MODES };
extern const char *const mb_launch_mode_names[MB_LAUNCH_MODES];

typedef struct {
    int measured;  /* 0: not available on this backend (graph on OpenCL) */
    int launches;  /* launches per repetition */
    int reps;
    lbp_stats us;  /* per launch, microseconds */
} mb_launch_result;

/* back_to_back: `launches` launches, one sync at the end, host clock / n;
 * sync_each: launch + sync each time; graph: `launches` launches captured in
 * a CUDA graph and replayed (d->be->graph_replay_ms).  One untimed
 * repetition first, then `reps` timed ones. */
void mb_measure_launch(lbp_device *d, int launches, int reps, mb_launch_result out[MB_LAUNCH_MODES]);

#endif
