/* The catalog of named corrections: each a factor the equations (level 1
 * roofline, level 2 Obrecht's transfer time from the probes, level 3 the
 * probes back to back at the lattice's thread count) do not carry, read
 * from a probe sweep of its own.  Each one can be switched off
 * (`model predict --without NAME`, `--corrections none`): the site that
 * applies it then answers as if its sweep had not been measured, so the
 * prediction is what the equations and the other corrections make of the
 * data.  model.csv has a column per correction (the point's MLUPS with it
 * over without it) and `model corrections` tables what each one does to
 * the before-the-kernel error over result folders (doc/model.md). */
#ifndef MODEL_CORRECTIONS_H
#define MODEL_CORRECTIONS_H

#include <stddef.h>

typedef enum {
    MODEL_CORR_VECTOR,           /* vector.c: misaligned words one per cell of a v-cell thread */
    MODEL_CORR_MISALIGNED_COUNT, /* misalign.c: the misaligned extra's growth with the count */
    MODEL_CORR_COMPUTE,          /* compute.c: the payload probes (the collision's arithmetic) */
    MODEL_CORR_NONTEMPORAL,      /* probe.c: non-temporal stores on a CPU (rows sweep) */
    MODEL_CORR_TILE,             /* narrow.c: a grid launch's block shape (tile sweep) */
    MODEL_CORR_NARROW,           /* narrow.c: blocks narrower than a warp (narrow sweep) */
    MODEL_CORR_ROW_SHIFT,        /* rowshift.c: words a row or plane away that straddle sectors */
    MODEL_CORR_ROW_CLASSES,      /* launch.c: rows that start at several offsets in a sector */
    MODEL_CORR_LAUNCH_PROBES,    /* predict.c: measured over predicted at the kernel's launch */
    MODEL_CORRECTIONS
} model_correction;

typedef struct {
    const char *name; /* the switch's and the model.csv column's (corr_<name>, '-' as '_') */
    const char *what; /* one line */
} model_correction_info;

extern const model_correction_info model_correction_catalog[MODEL_CORRECTIONS];

/* Whether correction c is applied (all are, until switched off). */
int model_correction_on(model_correction c);
/* Switches c on or off. */
void model_correction_set(model_correction c, int on);
/* Every correction on (1) or off (0). */
void model_corrections_all(int on);
/* The correction of that name, or -1. */
int model_correction_by_name(const char *name);
/* A comma-separated list of names (or "none", "all"): those switched off
 * (without) or on alone (only).  Returns 0, or -1 with err naming the
 * unknown one. */
int model_corrections_without(const char *list, char *err, size_t err_len);
int model_corrections_only(const char *list, char *err, size_t err_len);
/* The corrections switched off, comma-separated ("" when none), in buf. */
const char *model_corrections_off_text(char *buf, size_t len);
/* corr_vector,corr_misaligned_count,...: model.csv's columns. */
const char *model_corrections_columns(void);

#endif
