/* Finding the probe curve for a question about a kernel, and what stands
 * in where it was not measured.  Every level of the model reads membench's
 * rows through model_probe_find; the fallbacks below are decided here and
 * nowhere else, and each one taken is recorded in the prediction's
 * provenance:
 *
 *   block size  the asked block where the sweep has it, else its most
 *               common one (PROBE_OR_COMMON_BLOCK); or, for a reading at
 *               the kernel's own launch, the asked block first and the
 *               sweep's most common where that does not answer
 *               (PROBE_THEN_COMMON_BLOCK)
 *   word size   the nearest other word size measured (PROBE_OR_OTHER_WORD),
 *               read as the caller says: scaled by bytes, at as many bytes
 *               in flight, or as a ratio (which has no unit)
 *   sweep       for the words sweep any aligned probe at the default
 *               launch; for a one-sided misalignment sweep the word_bytes
 *               sweep's 10/0 and 0/10 points (PROBE_OR_STAND_IN_SWEEP)
 *   median      a misalignment sweep's inner point off both its neighbours
 *               is read as their running median (a disturbance of the
 *               machine, not of the misalignment)
 *
 * Candidates are tried block size first, then word size, then sweep; the
 * first whose curve answers wins. */
#ifndef MODEL_LOOKUP_H
#define MODEL_LOOKUP_H

#include "inputs.h"
#include "interp.h"
#include "provenance.h"

#define PROBE_ANY (-1)      /* a query field that selects nothing */
#define PROBE_AS_READS (-2) /* misaligned_writes: as many as misaligned_reads */

/* One probe configuration, or a family of them where a field is PROBE_ANY. */
typedef struct {
    model_probe_sweep sweep; /* PROBE_ANY_SWEEP: any sweep at the default launch */
    int word_bytes;          /* bytes per access, any width */
    int block_size;
    int blocks_requested;    /* blocks per SM forced, 0: as many as fit */
    int misaligned_reads;    /* L */
    int misaligned_writes;   /* M */
    int payload;             /* 0 none, 1 the collision's arithmetic */
    int layout;              /* PROBE_LAYOUT_* */
    int words;               /* N */
    int vector;              /* V of a vector probe; 0 or 1: none (the rows of every other sweep) */
    int band;                /* BX of a narrow probe; 0 or 32: linear (the rows of every other sweep) */
    int tile[3];             /* BX, BY, BZ of a tile probe; 0 0 0: none (the rows of every other sweep) */
    int nontemporal;         /* 1: the rows sweep's non-temporal probe; 0: every other row */
    int folded;              /* 1: the rows sweep's folded payload; 0: every other row */
} model_probe_query;

/* The aligned probe without payload, every other field PROBE_ANY. */
model_probe_query model_probe_aligned(model_probe_sweep sweep, int word_bytes, int block_size);

int model_probe_matches(const model_probe_row *p, const model_probe_query *q);

/* The curve's axis: x over which the rows' time is read. */
typedef enum {
    PROBE_X_WORDS,      /* N; y ns per thread */
    PROBE_X_MISALIGNED, /* the misalignment count the query leaves open; y ns per thread */
    PROBE_X_OCCUPANCY,  /* rows of known occupancy; y ns per thread */
    PROBE_X_OPS,        /* payload operations per thread; y ns per thread */
    PROBE_X_LAUNCH      /* log(threads) -- the threads sweep's at the busiest SM's load --,
                           y log(µs per launch back to back) */
} model_probe_x;

enum {
    PROBE_OR_COMMON_BLOCK = 1 << 0,
    PROBE_THEN_COMMON_BLOCK = 1 << 1,
    PROBE_OR_OTHER_WORD = 1 << 2,
    PROBE_OR_STAND_IN_SWEEP = 1 << 3,
};

/* How a caller reads another word size's curve. */
typedef enum {
    PROBE_WORD_SCALED,    /* times scaled by bytes: no longer within what was measured */
    PROBE_WORD_IN_FLIGHT, /* at as many bytes in flight (Little's law) */
    PROBE_WORD_RATIO      /* a ratio of two of its times */
} model_word_use;

typedef struct {
    model_probe_query q;
    model_probe_x x;
    unsigned fallbacks;      /* PROBE_OR_* / PROBE_THEN_* */
    model_word_use word_use;
    int min_points;          /* a curve of fewer does not answer (0: 1) ... */
    double single_point_at;  /* ... unless its one point lies here (> 0), at the asked block */
    double near_words;       /* PROBE_X_MISALIGNED: of several N, the nearest to this */
    int with_aligned;        /* answer only where the same launch's aligned probe does too
                                (see model_probe_curve.aligned) */
} model_probe_lookup;

typedef struct {
    model_curve curve;
    const model_probe_row **rows; /* the rows the curve was read from (every N) */
    int n_rows;
    model_probe_query read;       /* where they were measured */
    /* with_aligned: the aligned probe without payload at the same launch
     * (occupancy sweep: the same sweep, its word size or the nearest other
     * scaled by the two sizes' N=19 base probes; payload sweep: the words
     * sweep's N=19 probe; threads sweep: the same sweep), as a curve on the
     * same axis, times aligned_scale */
    model_curve aligned;
    double aligned_scale;
    int aligned_word_bytes;
    int replaced;                 /* points taken as their neighbours' median */
} model_probe_curve;

/* The first candidate (asked, then the allowed fallbacks) whose curve
 * answers: returns 1 with *out (free it) and each fallback taken recorded in
 * prov (NULL: not recorded; model_probe_record can do it later), or 0 with
 * *out empty. */
int model_probe_find(const model_inputs *in, const model_probe_lookup *l, model_probe_curve *out,
                     model_provenance *prov);
void model_probe_record(const model_probe_lookup *l, const model_probe_curve *c, model_provenance *prov);
void model_probe_curve_free(model_probe_curve *c);

/* The word size another one falls back on: the nearest (in ratio) that
 * some probe has, -1 when none has another. */
int model_other_word(const model_inputs *in, int word_bytes);

/* ns per thread of the words sweep's aligned N=19 probe at this word size
 * (and block size, unless PROBE_ANY); -1 when not measured. */
double model_probe_words19(const model_inputs *in, int word_bytes, int block_size);

/* How many probe rows the lookups above have looked at since the process
 * started: a test's check that a query visits its (sweep, word size)
 * group of the index, never every row. */
long long model_probe_rows_visited(void);

#endif
