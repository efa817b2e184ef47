/* Notes, clamps and fallbacks of a prediction: see provenance.h. */
#include "provenance.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void model_provenance_init(model_provenance *p)
{
    memset(p, 0, sizeof *p);
    p->within_measured = 1;
}

static void append_note(model_provenance *p, const char *line)
{
    if (strstr(p->notes, line)) return; /* once per prediction, not per phase */
    size_t used = strlen(p->notes);
    if (used + 3 >= sizeof p->notes) return;
    snprintf(p->notes + used, sizeof p->notes - used, "%s%s", used ? "; " : "", line);
}

static void vnote(model_provenance *p, const char *fmt, va_list ap)
{
    char line[400];
    vsnprintf(line, sizeof line, fmt, ap);
    append_note(p, line);
}

void model_note(model_provenance *p, const char *fmt, ...)
{
    if (!p) return;
    va_list ap;
    va_start(ap, fmt);
    vnote(p, fmt, ap);
    va_end(ap);
}

void model_clamped(model_provenance *p, const char *fmt, ...)
{
    if (!p) return;
    p->within_measured = 0;
    va_list ap;
    va_start(ap, fmt);
    vnote(p, fmt, ap);
    va_end(ap);
}

static void add_fallback(model_provenance *p, const model_fallback *f)
{
    for (int i = 0; i < p->n_fallbacks; i++) {
        const model_fallback *g = &p->fallbacks[i];
        if (g->kind == f->kind && !strcmp(g->asked, f->asked) && !strcmp(g->read, f->read)) return;
    }
    if (p->n_fallbacks < MODEL_MAX_FALLBACKS) p->fallbacks[p->n_fallbacks++] = *f;
}

void model_fell_back(model_provenance *p, model_fallback_kind kind, const char *asked, const char *read,
                     const char *why_fmt, ...)
{
    if (!p) return;
    model_fallback f = {.kind = kind};
    snprintf(f.asked, sizeof f.asked, "%s", asked);
    snprintf(f.read, sizeof f.read, "%s", read);
    va_list ap;
    va_start(ap, why_fmt);
    vsnprintf(f.why, sizeof f.why, why_fmt, ap);
    va_end(ap);
    add_fallback(p, &f);
}

void model_provenance_merge(model_provenance *into, const model_provenance *from)
{
    into->within_measured &= from->within_measured;
    char notes[sizeof from->notes];
    snprintf(notes, sizeof notes, "%s", from->notes);
    for (char *line = notes, *end; *line; line = end) { /* notes are "; "-separated */
        end = strstr(line, "; ");
        if (end) *end = 0, end += 2;
        else end = line + strlen(line);
        append_note(into, line);
    }
    for (int i = 0; i < from->n_fallbacks; i++) add_fallback(into, &from->fallbacks[i]);
}

const char *model_fallback_kind_name(model_fallback_kind kind)
{
    static const char *const names[MODEL_FALLBACK_KINDS] = {"word size", "block size", "sweep", "running median",
                                                            "backend"};
    return kind < MODEL_FALLBACK_KINDS ? names[kind] : "?";
}

void model_fallback_format(const model_fallback *f, char *out, size_t len)
{
    snprintf(out, len, "%s: read %s (%s)", f->asked, f->read, f->why);
}

int model_provenance_says(const model_provenance *p, const char *text)
{
    if (strstr(p->notes, text)) return 1;
    for (int i = 0; i < p->n_fallbacks; i++) {
        char line[512];
        model_fallback_format(&p->fallbacks[i], line, sizeof line);
        if (strstr(line, text)) return 1;
    }
    return 0;
}
