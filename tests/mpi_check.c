/* The multi-rank engine's checks, run under mpirun by tests/test_mpi.sh:
 * for each scheme, precision, boundary and overlap, the decomposed run
 * against the one-rank run of the same lattice (bit for bit, mass kept)
 * and the halo check (a value planted in each crossing population lands in
 * the right slot of the right neighbour).  Exit 0 all passed, 1 a check
 * failed, 2 bad usage (agreed on every rank).  --mpi: "yes" when built with
 * MPI, else "no". */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "device.h"
#include "exchange.h"
#include "ranks.h"
#include "../lbmkernels/slab.h"

#define USAGE                                                                                       \
    "usage: mpirun -np N tests/mpi_check [options]\n"                                              \
    "  --schemes LIST      any of push,pull,split,aa (default all)\n"                             \
    "  --precisions LIST   any of fp32,fp64 (default both)\n"                                     \
    "  --boundary B        periodic|cavity (default both)\n"                                       \
    "  --exchange P        host|peer|mpi (default host)\n"                                         \
    "  --overlap O         on|off|both (default both)\n"                                           \
    "  --size NXxNYxNZ     the whole lattice (default 12x10x(4 x ranks))\n"                       \
    "  --steps N           steps of each run (default 8)\n"                                        \
    "  --cells-per-thread C  1, 2, 4 or row (default 1)\n"                                        \
    "  --plant-error       corrupt the decomposed result at a border cell (the check must fail)\n"  \
    "  --mpi               print yes or no (built with MPI) and exit\n" LBP_COMMON_HELP

enum { OPT_SCHEMES = LBP_OPT_FIRST_TOOL, OPT_PRECISIONS, OPT_BOUNDARY, OPT_EXCHANGE, OPT_OVERLAP, OPT_SIZE, OPT_STEPS,
       OPT_PLANT, OPT_MPI, OPT_CPT };

typedef struct {
    int schemes[LBM_SCHEMES], nschemes;
    int precisions[2], nprecisions;
    int boundary; /* -1 both */
    int exchange, overlap; /* overlap: 0 off, 1 on, 2 both */
    int nx, ny, nz, steps, plant, cpt;
} options;

static int parse_list(const char *flag, const char *arg, const char *const *names, int *out, int max)
{
    char *copy = strdup(arg);
    int n = 0;
    for (char *save, *item = strtok_r(copy, ",", &save); item && n < max; item = strtok_r(NULL, ",", &save))
        out[n++] = lbp_parse_choice(flag, item, names);
    free(copy);
    return n;
}

static void parse(int argc, char **argv, options *o, lbp_common *c)
{
    static const struct option opts[] = {LBP_COMMON_LONGOPTS,
                                         {"schemes", required_argument, 0, OPT_SCHEMES},
                                         {"precisions", required_argument, 0, OPT_PRECISIONS},
                                         {"boundary", required_argument, 0, OPT_BOUNDARY},
                                         {"exchange", required_argument, 0, OPT_EXCHANGE},
                                         {"overlap", required_argument, 0, OPT_OVERLAP},
                                         {"size", required_argument, 0, OPT_SIZE},
                                         {"steps", required_argument, 0, OPT_STEPS},
                                         {"plant-error", no_argument, 0, OPT_PLANT},
                                         {"mpi", no_argument, 0, OPT_MPI},
                                         {"cells-per-thread", required_argument, 0, OPT_CPT},
                                         {0, 0, 0, 0}};
    static const char *const overlaps[] = {"off", "on", "both", NULL};
    int code;
    while ((code = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (code) {
        case OPT_SCHEMES: o->nschemes = parse_list("--schemes", optarg, lbm_scheme_names, o->schemes, LBM_SCHEMES); break;
        case OPT_PRECISIONS: o->nprecisions = parse_list("--precisions", optarg, lbm_precision_names, o->precisions, 2); break;
        case OPT_BOUNDARY: o->boundary = lbp_parse_choice("--boundary", optarg, lbm_boundary_names); break;
        case OPT_EXCHANGE: o->exchange = lbp_parse_choice("--exchange", optarg, lbp_exchange_names); break;
        case OPT_OVERLAP: o->overlap = lbp_parse_choice("--overlap", optarg, overlaps); break;
        case OPT_SIZE:
            if (sscanf(optarg, "%dx%dx%d", &o->nx, &o->ny, &o->nz) != 3 || o->nx < 3 || o->ny < 3 || o->nz < 1)
                lbp_usage_error("--size: '%s' is not NXxNYxNZ (nx, ny >= 3)", optarg);
            break;
        case OPT_STEPS: o->steps = (int)lbp_parse_int("--steps", optarg, 2, 100000); break;
        case OPT_PLANT: o->plant = 1; break;
        case OPT_CPT:
            o->cpt = !strcmp(optarg, "row") ? LBM_ROW_PER_THREAD : (int)lbp_parse_int("--cells-per-thread", optarg, 1, 4);
            if (!lbm_cells_per_thread_ok(o->cpt)) lbp_usage_error("--cells-per-thread: %s is not 1, 2, 4 or row", optarg);
            break;
        case OPT_MPI: printf("%s\n", lbp_mpi_built() ? "yes" : "no"); exit(0);
        case '?': lbp_bad_option();
        default:
            if (!lbp_common_opt(c, code, optarg, USAGE)) lbp_bad_option();
        }
    }
    if (optind < argc) lbp_usage_error("unexpected argument '%s'", argv[optind]);
    if (o->steps & 1) lbp_usage_error("--steps: %d is odd (A-A runs whole alpha-beta pairs)", o->steps);
}

static void report(const lbm_slab_check_opts *co, const char *what, int failed, const char *why)
{
    if (lbp_ranks.rank) return;
    if (failed) fprintf(stderr, "mpi_check: FAILED: %s\n", why);
    printf("mpi_check: %s %s %s on %d ranks, exchange %s, %s: %s\n", lbm_scheme_names[co->scheme],
           lbm_precision_names[co->fp64], lbm_boundary_names[co->boundary], lbp_ranks.size,
           lbp_exchange_names[co->path], what, failed ? "FAILED" : "passed");
}

int main(int argc, char **argv)
{
    lbp_mpi_init(&argc, &argv);
    lbp_cli_init("mpi_check");
    options o = {.boundary = -1, .exchange = LBP_EXCHANGE_HOST, .overlap = 2, .nx = 12, .ny = 10, .steps = 8,
                 .cpt = 1};
    lbp_common c = {.device = -1};
    lbp_mpi_replicated_begin();
    parse(argc, argv, &o, &c);
    lbp_mpi_replicated_end();
    if (!o.nschemes)
        for (int s = 0; s < LBM_SCHEMES; s++) o.schemes[o.nschemes++] = s;
    if (!o.nprecisions) o.precisions[0] = 0, o.precisions[1] = 1, o.nprecisions = 2;
    if (!o.nz) o.nz = 4 * lbp_ranks.size;

    lbp_device d;
    lbp_mpi_open_device(&d, &c);
    char why[1024];
    lbp_mpi_agree(lbp_exchange_available(&d, o.exchange, why, sizeof why) ? LBP_EXIT_USAGE : 0, "%s", why);
    lbm_slab_geom g;
    lbp_mpi_agree(lbm_slab_geometry(&g, o.nz, lbp_ranks.size, lbp_ranks.rank, LBM_PERIODIC, why, sizeof why)
                      ? LBP_EXIT_USAGE : 0, "%s", why);

    int failures = 0, checks = 0;
    for (int p = 0; p < o.nprecisions; p++) {
        if (o.precisions[p] && !d.info.fp64) continue;
        for (int b = 0; b < LBM_BOUNDARIES; b++) {
            if (o.boundary >= 0 && b != o.boundary) continue;
            for (int si = 0; si < o.nschemes; si++) {
                lbm_slab_check_opts co = {.nx = o.nx, .ny = o.ny, .nz = o.nz,
                                          .padding = o.cpt > 1 ? o.cpt : 1, .steps = o.steps,
                                          .block_size = 64, .cells_per_thread = o.cpt, .fp64 = o.precisions[p],
                                          .boundary = (lbm_boundary)b, .scheme = (lbm_scheme)o.schemes[si],
                                          .path = (lbp_exchange_path)o.exchange, .tau = 0.6, .u0 = 0.05,
                                          .noise = 0.01, .lid_u = 0.05, .plant_error = o.plant};
                lbm_kernels slab, whole;
                lbm_slab_check_kernels(&slab, &whole, &d, &co);
                int halos = lbm_slab_check_halos(&d, &slab, &co, why, sizeof why);
                report(&co, "halo check", halos, why);
                failures += halos;
                checks++;
                for (int ov = 0; ov < 2; ov++) {
                    if (o.overlap != 2 && ov != o.overlap) continue;
                    co.overlap = ov;
                    int run = lbm_slab_check_run(&d, &slab, &whole, &co, why, sizeof why);
                    report(&co, ov ? "run, overlap on" : "run, overlap off", run, why);
                    failures += run;
                    checks++;
                }
                lbm_kernels_release(&slab, &d);
                if (lbp_ranks.rank == 0) lbm_kernels_release(&whole, &d);
            }
        }
    }
    if (lbp_ranks.rank == 0) printf("mpi_check: %d checks, %d failed\n", checks, failures);
    lbp_close(&d);
    lbp_mpi_finalize(); /* every rank ends here, with the same verdict */
    return failures ? LBP_EXIT_FAIL : 0;
}
