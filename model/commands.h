/* The model CLI's four commands (main.c dispatches). Each returns the
 * exit status: 0 ok, 1 failed validation or unreadable input, 2 bad flags. */
#ifndef MODEL_COMMANDS_H
#define MODEL_COMMANDS_H

/* The whole command line, for model-meta.csv (set by main). */
extern int model_argc;
extern char **model_argv;

int model_cmd_predict(int argc, char **argv);
int model_cmd_validate(int argc, char **argv);
int model_cmd_summary(int argc, char **argv);
int model_cmd_drift(int argc, char **argv);

/* 128^3: sizes from here on are held to --max-error, smaller ones to
 * --max-error-small. */
#define MODEL_LARGE_CELLS (128.0 * 128 * 128)

#endif
