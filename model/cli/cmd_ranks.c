/* model predict on several ranks: see cmd_ranks.h. */
#include "cmd_ranks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "interconnect.h"
#include "ranks_step.h"
#include "table.h"

int model_ranks_option(int o, const char *arg, model_ranks_args *a)
{
    switch (o) {
    case OPT_RANKS: a->n_ranks = lbp_parse_int_list("--ranks", arg, 1, 1000000, a->ranks, MODEL_RANKS_MAX); break;
    case OPT_EXCHANGE:
        lbp_parse_choice("--exchange", arg, (const char *const[]){"host", "peer", "mpi", NULL});
        a->exchange = arg;
        break;
    case OPT_OVERLAP: a->overlap = !lbp_parse_choice("--overlap", arg, (const char *const[]){"on", "off", NULL}); break;
    case OPT_WEAK:
    case OPT_STRONG: {
        int mode = o == OPT_WEAK ? SCALING_WEAK : SCALING_STRONG;
        if (a->mode >= 0 && a->mode != mode) lbp_usage_error("--weak and --strong: give one");
        a->mode = mode;
        break;
    }
    case OPT_NODES: a->nodes = (int)lbp_parse_int("--nodes", arg, 1, 1000000); break;
    case OPT_GPUS_PER_NODE: a->gpus_per_node = (int)lbp_parse_int("--gpus-per-node", arg, 1, 1024); break;
    case OPT_LINK_LATENCY: a->link_latency_us = lbp_parse_double("--link-latency-us", arg, 0, 1e9); break;
    case OPT_LINK_GBS: a->link_gbs = lbp_parse_double("--link-gbs", arg, 1e-6, 1e9); break;
    case OPT_FORMAT:
        a->format = lbp_parse_choice("--format", arg, (const char *const[]){"text", "csv", "json", NULL});
        break;
    default: return 0;
    }
    return 1;
}

int model_ranks_asked(const model_ranks_args *a)
{
    return a->n_ranks || a->exchange || a->overlap >= 0 || a->mode >= 0 || a->nodes || a->gpus_per_node ||
           a->link_latency_us >= 0 || a->link_gbs >= 0 || a->format >= 0;
}

void model_ranks_check(model_ranks_args *a)
{
    int projection = a->nodes || a->gpus_per_node || a->link_latency_us >= 0 || a->link_gbs >= 0;
    if (!projection && !a->n_ranks)
        lbp_usage_error("--exchange, --overlap, --weak, --strong and --format go with --ranks N (or --nodes)");
    if (projection) {
        if (!a->nodes || !a->gpus_per_node || a->link_latency_us < 0 || a->link_gbs < 0)
            lbp_usage_error("a projection takes --nodes N, --gpus-per-node G, --link-latency-us X and --link-gbs Y together");
        long long ranks = (long long)a->nodes * a->gpus_per_node;
        if (a->n_ranks > 1 || (a->n_ranks == 1 && a->ranks[0] != ranks))
            lbp_usage_error("--ranks %lld%s: %d nodes of %d GPUs are %lld ranks (drop --ranks, or give that)",
                            a->ranks[0], a->n_ranks > 1 ? ",..." : "", a->nodes, a->gpus_per_node, ranks);
        a->ranks[0] = ranks;
        a->n_ranks = 1;
    }
    if (a->overlap < 0) a->overlap = 1;
    if (a->mode < 0) a->mode = SCALING_STRONG;
    if (a->format < 0) a->format = RANKS_TEXT;
}

/* interconnect-fit.csv where some count needs it, else an empty fit */
static void load_fits(interconnect_fits *f, const model_ranks_args *a, const char *dir)
{
    int needed = 0;
    for (int i = 0; i < a->n_ranks; i++) needed |= a->ranks[i] > 1;
    memset(f, 0, sizeof *f);
    if (!needed) return;
    char err[1024];
    int r = interconnect_load(f, dir, err, sizeof err);
    if (r == LBP_TABLE_MISSING)
        lbp_usage_error("%s/interconnect-fit.csv: missing (make bench's multi-device stage writes it: the interconnect probe)",
                        dir);
    if (r) lbp_usage_error("%s", err);
}

/* Ranks that shared a device in the probe's run: predicted so (a check of
 * the paths), never in a projection */
static int ranks_per_device(const char *dir, long long ranks, int projection)
{
    int devices, probed;
    char err[1024];
    if (projection || interconnect_devices(dir, &devices, &probed, err, sizeof err) || devices < 1) return 1;
    return (int)((ranks + devices - 1) / devices);
}

/* Several ranks on a device are a case the folder holds only where the
 * interconnect probe ran them so (make bench's RANKS over fewer devices: a
 * check of the paths).  Past the ranks it ran, a count over its devices
 * would share devices that were never measured shared, and its efficiency
 * against those devices would read as scaling: refused, with the
 * projection that means more devices. */
static void check_devices(const char *dir, long long ranks)
{
    int devices, probed;
    char err[1024], more[160];
    if (interconnect_devices(dir, &devices, &probed, err, sizeof err) || devices < 1) return;
    if (ranks <= devices || ranks <= probed) return;
    if (ranks % devices == 0)
        snprintf(more, sizeof more, "--nodes %lld --gpus-per-node %d", ranks / devices, devices);
    else
        snprintf(more, sizeof more, "--nodes N --gpus-per-node G (N x G = %lld, G <= %d)", ranks, devices);
    lbp_usage_error("--ranks %lld: %s/interconnect.csv measured %d rank%s on %d device%s, not %lld ranks (%lld a "
                    "device); give --ranks %d or fewer, or project more devices: %s --link-latency-us X --link-gbs Y",
                    ranks, dir, probed, probed > 1 ? "s" : "", devices, devices > 1 ? "s" : "", ranks,
                    (ranks + devices - 1) / devices, probed > devices ? probed : devices, more);
}

static ranks_request request_of(const model_lattice *lat, const model_ranks_args *a, long long ranks,
                                const char *exchange, const char *dir)
{
    ranks_request rq = {.sc = {.nx = lat->nx, .ny = lat->ny, .nz = lat->nz, .ranks = (int)ranks,
                               .ranks_per_device = ranks_per_device(dir, ranks, a->nodes > 0),
                               .mode = (scaling_mode)a->mode, .overlap = a->overlap},
                        .nodes = a->nodes ? a->nodes : 1,
                        .ranks_per_node = a->nodes ? a->gpus_per_node : (int)ranks,
                        .between = {.latency_us = a->link_latency_us, .bandwidth_gbs = a->link_gbs}};
    snprintf(rq.exchange, sizeof rq.exchange, "%s", exchange);
    return rq;
}

int model_predict_ranks(const model_inputs *in, const model_kernel *k, const model_lattice *lat,
                        const model_ranks_args *a, const char *dir)
{
    if (!a->nodes)
        for (int i = 0; i < a->n_ranks; i++) check_devices(dir, a->ranks[i]);
    interconnect_fits fits;
    load_fits(&fits, a, dir);
    const char *exchange = a->exchange;
    if (!exchange && fits.n) {
        exchange = ranks_default_exchange(&fits, 2.0 * D3Q19_CROSSING * lat->nx * lat->ny * k->word_bytes);
        if (!exchange) lbp_usage_error("%s: no host, peer or mpi path", fits.file);
    }
    ranks_prediction *p = malloc(sizeof *p);
    if (!p) lbp_fail("out of memory");
    ranks_print_begin(stdout, (ranks_format)a->format);
    for (int i = 0; i < a->n_ranks; i++) {
        ranks_request rq = request_of(lat, a, a->ranks[i], exchange ? exchange : "none", dir);
        char err[1024];
        int r = ranks_predict(in, k, lat, &fits, &rq, p, err, sizeof err);
        if (r == RANKS_BAD_CASE) lbp_usage_error("--ranks %lld: %s", a->ranks[i], err);
        if (r) lbp_usage_error("%s", err); /* RANKS_INPUT: the probes or fits lack what it needs */
        ranks_print_one(stdout, (ranks_format)a->format, in->device, in->backend, k->name, &rq, p, !i);
    }
    ranks_print_end(stdout, (ranks_format)a->format);
    free(p);
    interconnect_free(&fits);
    return 0;
}
