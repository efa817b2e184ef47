/* See json.h. */
#include "json.h"

#include <math.h>

static void put_escaped(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\') fprintf(f, "\\%c", *p);
        else if (*p == '\n') fputs("\\n", f);
        else if (*p == '\t') fputs("\\t", f);
        else if (*p < 0x20) fprintf(f, "\\u%04x", *p);
        else fputc(*p, f);
    }
    fputc('"', f);
}

/* The separator and the key of the next member. */
static void member(model_json *j, const char *key)
{
    if (j->count[j->depth]++) fputc(',', j->f);
    if (key) {
        put_escaped(j->f, key);
        fputc(':', j->f);
    }
}

static void open_level(model_json *j, char open, char close)
{
    fputc(open, j->f);
    if (j->depth + 1 < MODEL_JSON_DEPTH) j->depth++;
    j->count[j->depth] = 0;
    j->closer[j->depth] = close;
}

void model_json_begin(model_json *j, FILE *f)
{
    *j = (model_json){.f = f, .depth = -1};
    open_level(j, '{', '}');
}

void model_json_close(model_json *j)
{
    if (j->depth < 0) return;
    fputc(j->closer[j->depth], j->f);
    j->depth--;
}

void model_json_end(model_json *j)
{
    while (j->depth >= 0) model_json_close(j);
    fputc('\n', j->f);
}

void model_json_number(model_json *j, const char *key, double v)
{
    member(j, key);
    if (isfinite(v)) fprintf(j->f, "%.10g", v);
    else fputs("null", j->f);
}

void model_json_string(model_json *j, const char *key, const char *s)
{
    member(j, key);
    put_escaped(j->f, s ? s : "");
}

void model_json_bool(model_json *j, const char *key, int v)
{
    member(j, key);
    fputs(v ? "true" : "false", j->f);
}

void model_json_object(model_json *j, const char *key)
{
    member(j, key);
    open_level(j, '{', '}');
}

void model_json_array(model_json *j, const char *key)
{
    member(j, key);
    open_level(j, '[', ']');
}
