/* A small JSON writer for the commands' --json: one object on stdout,
 * numbers as numbers (null where not finite), strings escaped, keys in the
 * order they are written. */
#ifndef MODEL_JSON_H
#define MODEL_JSON_H

#include <stdio.h>

#define MODEL_JSON_DEPTH 8

typedef struct {
    FILE *f;
    int depth;
    int count[MODEL_JSON_DEPTH];  /* members written at each level */
    char closer[MODEL_JSON_DEPTH]; /* '}' or ']' */
} model_json;

/* Opens the outermost object. */
void model_json_begin(model_json *j, FILE *f);
/* Closes it (and any left open), with a newline. */
void model_json_end(model_json *j);

/* A member: key is its name inside an object, NULL inside an array. */
void model_json_number(model_json *j, const char *key, double v);
void model_json_string(model_json *j, const char *key, const char *s);
void model_json_bool(model_json *j, const char *key, int v);
void model_json_object(model_json *j, const char *key); /* opens one */
void model_json_array(model_json *j, const char *key);  /* opens one */
void model_json_close(model_json *j);                   /* the innermost */

#endif
