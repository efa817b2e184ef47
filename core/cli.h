/* Command-line helpers shared by every tool: one-line errors, number and
 * list parsing, and the options every tool has. */
#ifndef LBP_CLI_H
#define LBP_CLI_H

#include <stddef.h>
#include <stdint.h>

#define LBP_VERSION "0.1.0"
#define LBP_EXIT_FAIL 1  /* a measurement or validation failed */
#define LBP_EXIT_USAGE 2 /* bad flags, impossible configuration */

extern const char *lbp_prog; /* tool name for messages; set by lbp_cli_init */
void lbp_cli_init(const char *prog);

/* "<prog>: <message>" on stderr, then exit 2 (usage) or 1 (failure). */
_Noreturn void lbp_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
_Noreturn void lbp_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The message of the last lbp_usage_error or lbp_fail (without "<prog>: "),
 * "" before any. */
const char *lbp_last_error(void);
void lbp_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Progress line on stderr ("<prog>: [3/40] what ... ETA 12 s"). */
void lbp_progress(int done, int total, double elapsed_s, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* A preparatory stage's progress with a counter of its own, so that it is
 * not read as the measurement's ("<prog>: compile 10 of 116: ..."). */
void lbp_progress_of(const char *stage, int done, int total, double elapsed_s, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
/* lbp_progress with the tool's own estimate of the seconds left (from what its
 * remaining points cost, where they differ by orders of magnitude; NAN or
 * negative: none printed). */
void lbp_progress_left(int done, int total, double elapsed_s, double left_s, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* Parse a whole number in [min, max]; on error: "<prog>: --flag: 'x' is not
 * a whole number in [min, max]" and exit 2. */
long long lbp_parse_int(const char *flag, const char *s, long long min, long long max);
double lbp_parse_double(const char *flag, const char *s, double min, double max);
/* Byte size with optional K, M, G suffix (powers of 1024). */
long long lbp_parse_bytes(const char *flag, const char *s, long long min, long long max);
/* A byte count in powers of 1024: "4 KiB", "1536 MiB", "1.5 GiB", "100 B"
 * (a whole number in the largest unit from MiB up that divides it, else one
 * decimal in the largest under it). */
void lbp_bytes_text(char *s, size_t len, double bytes);
/* Comma-separated whole numbers, or a range "a..b" or "a..b:step" (a range
 * with "x2" as step doubles: "32..1024:x2").  Returns count; values in out. */
int lbp_parse_int_list(const char *flag, const char *s, long long min, long long max,
                       long long *out, int max_count);
/* The same parsers without the exit, for callers that report an error their
 * own way (and the fuzz harness, which must see every input return):
 * 0 (the list: the count) with the value(s) in out, or -1 (a number's out
 * untouched; the list's reason, without the flag, in err, and out may hold
 * the values before the bad item). */
int lbp_scan_int(const char *s, long long min, long long max, long long *out);
int lbp_scan_double(const char *s, double min, double max, double *out);
int lbp_scan_bytes(const char *s, long long min, long long max, long long *out);
int lbp_scan_int_list(const char *s, long long min, long long max, long long *out, int max_count, char *err,
                      size_t err_len);
/* A copy of the comma list s (free it) for strtok_r, which skips empty
 * items in silence: exit 2 naming flag where s is empty or has one ("1,,2",
 * ",1", "1,"), more likely a typo than intent. */
char *lbp_list_copy(const char *flag, const char *s);
/* One of the words in the NULL-terminated choices; returns its index. */
int lbp_parse_choice(const char *flag, const char *s, const char *const *choices);

/* Options every tool shares, filled by lbp_common_opt(). */
typedef struct {
    const char *backend; /* NULL: auto */
    int device;          /* -1: auto */
    const char *out_dir; /* NULL: results/<slug> */
    int force;           /* overwrite existing results */
    int quick;           /* reduced sweep */
    int list;            /* --list */
    int describe;        /* --describe: print the chosen device as key,value */
} lbp_common;

/* getopt_long entries for the shared options; tools append their own.
 * LBP_COMMON_LONGOPTS expands to the struct option initialisers, and
 * lbp_common_opt() handles those option codes (returns 1 if it did). */
enum { LBP_OPT_BACKEND = 1000, LBP_OPT_DEVICE, LBP_OPT_OUT, LBP_OPT_FORCE, LBP_OPT_QUICK,
       LBP_OPT_LIST, LBP_OPT_DESCRIBE, LBP_OPT_HELP, LBP_OPT_VERSION, LBP_OPT_FIRST_TOOL = 1100 };
#define LBP_COMMON_LONGOPTS                                   \
    {"backend", required_argument, 0, LBP_OPT_BACKEND},       \
    {"device", required_argument, 0, LBP_OPT_DEVICE},         \
    {"out", required_argument, 0, LBP_OPT_OUT},               \
    {"force", no_argument, 0, LBP_OPT_FORCE},                 \
    {"quick", no_argument, 0, LBP_OPT_QUICK},                 \
    {"list", no_argument, 0, LBP_OPT_LIST},                   \
    {"describe", no_argument, 0, LBP_OPT_DESCRIBE},           \
    {"help", no_argument, 0, LBP_OPT_HELP},                   \
    {"version", no_argument, 0, LBP_OPT_VERSION}
#define LBP_COMMON_HELP                                                              \
    "  --backend NAME      cuda, opencl, openmp (see --list) or auto (default: the best\n"  \
    "                      device found)\n"                                        \
    "  --device N          device index within the backend (see --list; default:\n"   \
    "                      its first GPU, else its first device)\n"                \
    "  --list              list devices of every backend and exit\n"               \
    "  --describe          describe the chosen device (key,value) and exit\n"    \
    "  --out DIR           result folder (default: results/<device-slug>)\n"       \
    "  --force             overwrite existing result files\n"                      \
    "  --quick             reduced sweep\n"                                        \
    "  --help, --version\n"
/* Handles a shared option; for --help prints usage_text and exits 0, for
 * --version prints the version and exits 0; returns 0 for codes it does not
 * know.  Call from the default branch of a tool's getopt switch. */
int lbp_common_opt(lbp_common *c, int code, const char *arg, const char *usage_text);
/* getopt_long over opts (long options only), but a mistake is one line and
 * exit 2: an unknown, ambiguous (naming the candidates) or valueless option,
 * or a value given to one that takes none.  -1 at the end, as getopt_long. */
struct option;
int lbp_getopt(int argc, char **argv, const struct option *opts);
/* An option the tool declared but did not handle: exit 2. */
_Noreturn void lbp_bad_option(void);

/* After option parsing: handles --list and --describe (exit 0), otherwise
 * opens the device the options name into d (defined in core/device.c). */
struct lbp_device;
void lbp_open_from_cli(struct lbp_device *d, const lbp_common *c);

#endif
