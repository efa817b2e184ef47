/* The environment variables lbmprobe reads, in one table: the tools' --help
 * prints it, the meta files record those that can change a measured number,
 * and doc/environment.md lists the same (a test keeps the three in step
 * with the getenv calls of the source). */
#ifndef LBP_ENVVARS_H
#define LBP_ENVVARS_H

#include <stdio.h>

typedef struct {
    const char *name;
    const char *what;    /* one line for --help */
    int changes_numbers; /* 1: recorded as env_<name> in every <tool>-meta.csv when set */
} lbp_env_var;

extern const lbp_env_var lbp_env_vars[];
extern const int lbp_env_var_count;

/* The table as an "environment:" block of --help. */
void lbp_env_help(FILE *out);

#endif
