/* model predict on several ranks: its flags and what it runs once the
 * kernel and the one-device inputs are known (cmd_predict.c parses the
 * rest and hands over). */
#ifndef MODEL_CMD_RANKS_H
#define MODEL_CMD_RANKS_H

#include "commands.h"
#include "kernel.h"
#include "predict.h"
#include "ranks_print.h"

#define MODEL_RANKS_MAX 64 /* rank counts in one --ranks list */

typedef struct {
    long long ranks[MODEL_RANKS_MAX];
    int n_ranks;                 /* 0: no --ranks */
    const char *exchange;        /* NULL: the fastest the fit has */
    int overlap;                 /* -1 not given (on) */
    int mode;                    /* -1 not given (strong), SCALING_WEAK, SCALING_STRONG */
    int nodes, gpus_per_node;    /* 0 not given */
    double link_latency_us, link_gbs; /* < 0 not given */
    int format;                  /* -1 not given (text), ranks_format */
} model_ranks_args;

#define MODEL_RANKS_ARGS_INIT                                                                             \
    {.overlap = -1, .mode = -1, .link_latency_us = -1, .link_gbs = -1, .format = -1}

#define MODEL_RANKS_OPTS                                                                                  \
    MODEL_OPT("ranks", required_argument, OPT_RANKS), MODEL_OPT("exchange", required_argument, OPT_EXCHANGE), \
    MODEL_OPT("overlap", required_argument, OPT_OVERLAP), MODEL_OPT("weak", no_argument, OPT_WEAK),           \
    MODEL_OPT("strong", no_argument, OPT_STRONG), MODEL_OPT("nodes", required_argument, OPT_NODES),           \
    MODEL_OPT("gpus-per-node", required_argument, OPT_GPUS_PER_NODE),                                       \
    MODEL_OPT("link-latency-us", required_argument, OPT_LINK_LATENCY),                                      \
    MODEL_OPT("link-gbs", required_argument, OPT_LINK_GBS), MODEL_OPT("format", required_argument, OPT_FORMAT)

#define MODEL_RANKS_HELP                                                                                  \
    "Several devices (slabs along z, one rank a device; doc/model.md, \"Several devices\"):\n"         \
    "  --ranks LIST            ranks (2, a list 1,2,4,8 or a range 1..64:x2): the step from\n"         \
    "                          the one-device model of a rank's slab, its interior and its\n"         \
    "                          border planes, plus the exchange: DIR/interconnect.csv's\n"           \
    "                          medians at its message, interconnect-fit.csv outside them\n"           \
    "  --exchange host|peer|mpi  the path (default: the fastest the fit has at the halo)\n"           \
    "  --overlap on|off        border first, exchange beside the interior: max(T_border +\n"          \
    "                          T_interior, T_border + T_exchange); off: T_slab + T_exchange\n"        \
    "                          (default on)\n"                                                        \
    "  --weak | --strong       --size is each rank's lattice (weak) or the whole one (strong,\n"      \
    "                          the default: ranks must divide nz)\n"                                  \
    "  --nodes N --gpus-per-node G --link-latency-us X --link-gbs Y\n"                                \
    "                          a projection past what was measured: N x G ranks, the fit\n"           \
    "                          inside a node, X us + s / Y GB/s between nodes; every line,\n"         \
    "                          CSV row and JSON object says projection\n"                             \
    "  --format text|csv|json  (default text)\n"

/* One of the flags above: 1 handled (or exit 2 on a bad value), 0 not one. */
int model_ranks_option(int o, const char *arg, model_ranks_args *a);

/* Whether any was given; then the ranks are to be predicted. */
int model_ranks_asked(const model_ranks_args *a);

/* The flags together (exit 2 naming the bad one). */
void model_ranks_check(model_ranks_args *a);

/* Predicts and prints each rank count; reads dir/interconnect-fit.csv (exit
 * 1 naming it when missing or malformed) where a count above 1 needs it.
 * lat: the --size lattice and the kernel's launch.  Returns the exit status. */
int model_predict_ranks(const model_inputs *in, const model_kernel *k, const model_lattice *lat,
                        const model_ranks_args *a, const char *dir);

#endif
