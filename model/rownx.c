#include "rownx.h"
#include "corrections.h"

#include <math.h>
#include <stdlib.h>

static int row_nx_matches(const model_probe_row *p, int word_bytes, int in_place, int payload)
{
    return p->sweep == PROBE_ROW_NX && p->word_bytes == word_bytes && p->in_place == in_place &&
           (p->ops > 0) == payload && !p->misaligned_reads && !p->misaligned_writes && !p->nontemporal;
}

/* The pairs' points (log NX, ratio), and the reference rows' R (*r_cells,
 * the largest): how many. */
static int row_nx_points(const model_inputs *in, int word_bytes, int in_place, int payload, model_point *pt,
                         int *r_cells)
{
    int n = 0;
    *r_cells = 0;
    for (int i = 0; i < in->n_probes; i++) {
        const model_probe_row *ref = &in->probes[i];
        if (!row_nx_matches(ref, word_bytes, in_place, payload) || ref->row <= 1) continue;
        for (int j = 0; j < in->n_probes; j++) {
            const model_probe_row *own = &in->probes[j];
            if (!row_nx_matches(own, word_bytes, in_place, payload) || own->threads != ref->threads ||
                own->row >= ref->row || own->row < 2 || !(own->ns_per_thread > 0) || !(ref->ns_per_thread > 0))
                continue;
            if (ref->row > *r_cells) *r_cells = ref->row;
            pt[n++] = (model_point){log(own->row), fmax(own->ns_per_thread / ref->ns_per_thread, 1)};
            break;
        }
    }
    return n;
}

double model_row_nx_ratio(const model_inputs *in, int word_bytes, int in_place, int payload, double nx,
                          model_provenance *prov)
{
    if (!model_correction_on(MODEL_CORR_ROW_NX)) return 0;
    model_point *pt = malloc(sizeof *pt * (size_t)(in->n_probes + 1));
    if (!pt) return 0;
    int r_cells;
    int n = row_nx_points(in, word_bytes, in_place, payload, pt, &r_cells);
    double ratio = 0;
    if (n > 0 && nx >= r_cells) {
        ratio = 1;
    } else if (n > 0) {
        pt[n++] = (model_point){log(r_cells), 1};
        n = model_points_prepare(pt, n);
        int clamped = 0;
        ratio = model_interp(pt, n, log(nx), &clamped);
        if (clamped)
            model_note(prov, "rows of %.0f cells below the row_nx sweep's %.0f: its ratio there", nx, exp(pt[0].x));
    }
    free(pt);
    return ratio;
}
