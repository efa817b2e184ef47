/* How far a prediction can be trusted, and what it read: the clamps and
 * assumptions (notes, and within_measured), and the fallbacks, each a
 * record of what was asked, what was read instead and why.  predict prints
 * them; validate counts the fallbacks by kind. */
#ifndef MODEL_PROVENANCE_H
#define MODEL_PROVENANCE_H

#include <stddef.h>

typedef enum {
    MODEL_FALLBACK_WORD,    /* another word size's probes */
    MODEL_FALLBACK_BLOCK,   /* another block size's */
    MODEL_FALLBACK_SWEEP,   /* another sweep's points, or the fitted lines */
    MODEL_FALLBACK_MEDIAN,  /* a point taken as the running median of its neighbours */
    MODEL_FALLBACK_BACKEND, /* another backend's probes of the same device */
    MODEL_FALLBACK_KINDS
} model_fallback_kind;

typedef struct {
    model_fallback_kind kind;
    char asked[96], read[160], why[128];
} model_fallback;

#define MODEL_MAX_FALLBACKS 12

typedef struct {
    int within_measured; /* 1 until an input was clamped or scaled from another */
    char notes[1200];    /* clamps and assumptions, "; "-separated, each once */
    model_fallback fallbacks[MODEL_MAX_FALLBACKS];
    int n_fallbacks;
} model_provenance;

void model_provenance_init(model_provenance *p);

/* An assumption worth saying (once per prediction).  p may be NULL: a
 * reading whose caveats are not the prediction's. */
void model_note(model_provenance *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* An input outside what was measured, read at the edge: within_measured
 * goes to 0, and the note says where. */
void model_clamped(model_provenance *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* What was read instead of what was asked, and why (once per prediction). */
void model_fell_back(model_provenance *p, model_fallback_kind kind, const char *asked, const char *read,
                     const char *why_fmt, ...) __attribute__((format(printf, 5, 6)));

/* Everything `from` recorded, added to `into` (within_measured: both). */
void model_provenance_merge(model_provenance *into, const model_provenance *from);

/* "word size", "block size", ... */
const char *model_fallback_kind_name(model_fallback_kind kind);

/* One line: "<asked>: read <read> (<why>)". */
void model_fallback_format(const model_fallback *f, char *out, size_t len);

/* 1 when a note or a fallback's line holds text. */
int model_provenance_says(const model_provenance *p, const char *text);

#endif
