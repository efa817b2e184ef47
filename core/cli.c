/* Command-line helpers: one-line errors, number and list parsing. */
#include "cli.h"
#include "device.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *lbp_prog = "lbmprobe";

/* stdout line-buffered: where stdout and stderr go to one file (make bench's
 * log), a warning lands between two lines of a table, never inside one */
void lbp_cli_init(const char *prog)
{
    lbp_prog = prog;
    setvbuf(stdout, NULL, _IOLBF, 0);
}

static void vsay(const char *fmt, va_list ap)
{
    fprintf(stderr, "%s: ", lbp_prog);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
}

_Noreturn void lbp_usage_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsay(fmt, ap);
    va_end(ap);
    exit(LBP_EXIT_USAGE);
}

_Noreturn void lbp_fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsay(fmt, ap);
    va_end(ap);
    exit(LBP_EXIT_FAIL);
}

void lbp_warn(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s: warning: ", lbp_prog);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

void lbp_progress(int done, int total, double elapsed_s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s: [%d/%d] ", lbp_prog, done, total);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    if (done > 0 && total > done)
        fprintf(stderr, " (%.0f s, about %.0f s left)", elapsed_s, elapsed_s / done * (total - done));
    else
        fprintf(stderr, " (%.0f s)", elapsed_s);
    fputc('\n', stderr);
}

long long lbp_parse_int(const char *flag, const char *s, long long min, long long max)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || end == s || *end || v < min || v > max)
        lbp_usage_error("%s: '%s' is not a whole number in [%lld, %lld]", flag, s, min, max);
    return v;
}

double lbp_parse_double(const char *flag, const char *s, double min, double max)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !(v >= min && v <= max))
        lbp_usage_error("%s: '%s' is not a number in [%g, %g]", flag, s, min, max);
    return v;
}

long long lbp_parse_bytes(const char *flag, const char *s, long long min, long long max)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    double mult = 1;
    if (end != s) {
        switch (*end) {
        case 'k': case 'K': mult = 1024.0; end++; break;
        case 'm': case 'M': mult = 1048576.0; end++; break;
        case 'g': case 'G': mult = 1073741824.0; end++; break;
        default: break;
        }
        if (*end == 'i' && mult > 1) end++;
        if ((*end == 'B' || *end == 'b') && mult >= 1) end++;
    }
    v *= mult;
    if (errno || end == s || *end || !(v >= (double)min && v <= (double)max) || v != floor(v))
        lbp_usage_error("%s: '%s' is not a byte size in [%lld, %lld] (suffixes K, M, G)", flag, s, min, max);
    return (long long)v;
}

/* "a..b", "a..b:step" or "a..b:x2" */
static int parse_range(const char *flag, const char *item, long long min, long long max, long long *out,
                       int max_count, int n)
{
    char buf[128];
    snprintf(buf, sizeof buf, "%s", item);
    char *dots = strstr(buf, "..");
    *dots = 0;
    char *hi = dots + 2, *step = strchr(hi, ':');
    if (step) *step++ = 0;
    long long a = lbp_parse_int(flag, buf, min, max), b = lbp_parse_int(flag, hi, min, max);
    int doubling = step && (step[0] == 'x' || step[0] == '*');
    long long st = step ? lbp_parse_int(flag, step + doubling, doubling ? 2 : 1, max > 1 ? max : 2) : 1;
    if (b < a) lbp_usage_error("%s: range '%s' runs backwards", flag, item);
    if (doubling && a <= 0) lbp_usage_error("%s: range '%s' must start above 0 to multiply", flag, item);
    for (long long v = a; v <= b; v = doubling ? v * st : v + st) {
        if (n >= max_count) lbp_usage_error("%s: more than %d values", flag, max_count);
        out[n++] = v;
    }
    return n;
}

int lbp_parse_int_list(const char *flag, const char *s, long long min, long long max, long long *out, int max_count)
{
    char *copy = strdup(s);
    int n = 0;
    for (char *save, *item = strtok_r(copy, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
        if (strstr(item, "..")) {
            n = parse_range(flag, item, min, max, out, max_count, n);
            continue;
        }
        if (n >= max_count) lbp_usage_error("%s: more than %d values", flag, max_count);
        out[n++] = lbp_parse_int(flag, item, min, max);
    }
    free(copy);
    if (n == 0) lbp_usage_error("%s: empty list", flag);
    return n;
}

int lbp_parse_choice(const char *flag, const char *s, const char *const *choices)
{
    char list[256] = "";
    for (int i = 0; choices[i]; i++) {
        if (strcmp(s, choices[i]) == 0) return i;
        strncat(list, i ? ", " : "", sizeof list - strlen(list) - 1);
        strncat(list, choices[i], sizeof list - strlen(list) - 1);
    }
    lbp_usage_error("%s: unknown value '%s' (one of: %s)", flag, s, list);
}

int lbp_common_opt(lbp_common *c, int code, const char *arg, const char *usage_text)
{
    switch (code) {
    case LBP_OPT_BACKEND: {
        char names[128];
        if (strcmp(arg, "auto") && !lbp_backend_by_name(arg))
            lbp_usage_error("--backend: unknown backend '%s' (%s, auto)", arg, lbp_backend_names(names, sizeof names));
        c->backend = arg;
        return 1;
    }
    case LBP_OPT_DEVICE: c->device = (int)lbp_parse_int("--device", arg, 0, 1000); return 1;
    case LBP_OPT_OUT: c->out_dir = arg; return 1;
    case LBP_OPT_FORCE: c->force = 1; return 1;
    case LBP_OPT_QUICK: c->quick = 1; return 1;
    case LBP_OPT_LIST: c->list = 1; return 1;
    case LBP_OPT_DESCRIBE: c->describe = 1; return 1;
    case LBP_OPT_HELP: fputs(usage_text, stdout); exit(0);
    case LBP_OPT_VERSION: printf("%s (lbmprobe) %s\n", lbp_prog, LBP_VERSION); exit(0);
    default: return 0;
    }
}

_Noreturn void lbp_bad_option(void)
{
    fprintf(stderr, "%s: see --help for the options\n", lbp_prog);
    exit(LBP_EXIT_USAGE);
}
