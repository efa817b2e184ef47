/* See effects.h. */
#include "effects.h"

#include <stdio.h>
#include <stdlib.h>

#include "holdout.h"

int model_correction_effects(const model_inputs *in, const model_kernel *k, const model_lattice *lat,
                             int before_kernel, double with_mlups, double effect[MODEL_CORRECTIONS], char *err,
                             size_t err_len)
{
    model_prediction *p = malloc(sizeof *p);
    if (!p) {
        snprintf(err, err_len, "out of memory");
        return -1;
    }
    int status = 0;
    for (int c = 0; c < MODEL_CORRECTIONS && !status; c++) {
        effect[c] = 0;
        if (!model_correction_on(c)) continue;
        model_correction_set(c, 0);
        status = before_kernel ? model_predict_before_kernel(in, k, lat, NULL, p, NULL, err, err_len)
                               : model_predict(in, k, lat, p, err, err_len);
        model_correction_set(c, 1);
        if (!status) effect[c] = p->full.mlups > 0 ? with_mlups / p->full.mlups : 0;
    }
    free(p);
    return status;
}
