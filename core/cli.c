/* Command-line helpers: one-line errors, number and list parsing. */
#include "envvars.h"
#include "cli.h"
#include "device.h"

#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "table.h" /* lbp_error */

const char *lbp_prog = "lbmprobe";

/* stdout and stderr line-buffered: where both go to one file or pipe (make
 * bench's log), each line is one write, so a warning lands between two
 * lines of a table and a table's line never inside a progress line (which
 * an unbuffered stderr writes in pieces) */
void lbp_cli_init(const char *prog)
{
    lbp_prog = prog;
    setvbuf(stdout, NULL, _IOLBF, 0);
    setvbuf(stderr, NULL, _IOLBF, 0);
}

/* The last error said, kept for a rank whose stderr is muted: the MPI
 * layer passes it to rank 0 (core/ranks.c). */
static char last_error[1024];

const char *lbp_last_error(void) { return last_error; }

static void vsay(const char *fmt, va_list ap)
{
    vsnprintf(last_error, sizeof last_error, fmt, ap);
    fprintf(stderr, "%s: %s\n", lbp_prog, last_error);
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

/* "<prog>: <counter> <message> (elapsed, about left_s left)"; left_s NAN or
 * negative: none said */
static void progress(const char *counter, int done, int total, double elapsed_s, double left_s, const char *fmt,
                     va_list ap)
{
    fprintf(stderr, "%s: %s", lbp_prog, counter);
    vfprintf(stderr, fmt, ap);
    if (done > 0 && total > done && left_s >= 0) /* NAN compares false */
        fprintf(stderr, " (%.0f s, about %.0f s left)", elapsed_s, left_s);
    else
        fprintf(stderr, " (%.0f s)", elapsed_s);
    fputc('\n', stderr);
}

/* Counting points: each as long as the ones so far. */
static double left_by_count(int done, int total, double elapsed_s)
{
    return done > 0 ? elapsed_s / done * (total - done) : -1;
}

void lbp_progress(int done, int total, double elapsed_s, const char *fmt, ...)
{
    char counter[48];
    snprintf(counter, sizeof counter, "[%d/%d] ", done, total);
    va_list ap;
    va_start(ap, fmt);
    progress(counter, done, total, elapsed_s, left_by_count(done, total, elapsed_s), fmt, ap);
    va_end(ap);
}

void lbp_progress_left(int done, int total, double elapsed_s, double left_s, const char *fmt, ...)
{
    char counter[48];
    snprintf(counter, sizeof counter, "[%d/%d] ", done, total);
    va_list ap;
    va_start(ap, fmt);
    progress(counter, done, total, elapsed_s, left_s, fmt, ap);
    va_end(ap);
}

void lbp_progress_of(const char *stage, int done, int total, double elapsed_s, const char *fmt, ...)
{
    char counter[96];
    snprintf(counter, sizeof counter, "%s %d of %d: ", stage, done, total);
    va_list ap;
    va_start(ap, fmt);
    progress(counter, done, total, elapsed_s, left_by_count(done, total, elapsed_s), fmt, ap);
    va_end(ap);
}

int lbp_scan_int(const char *s, long long min, long long max, long long *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno || end == s || *end || v < min || v > max) return -1;
    *out = v;
    return 0;
}

long long lbp_parse_int(const char *flag, const char *s, long long min, long long max)
{
    long long v;
    if (lbp_scan_int(s, min, max, &v))
        lbp_usage_error("%s: '%s' is not a whole number in [%lld, %lld]", flag, s, min, max);
    return v;
}

int lbp_scan_double(const char *s, double min, double max, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !isfinite(v) || !(v >= min && v <= max)) return -1;
    *out = v;
    return 0;
}

double lbp_parse_double(const char *flag, const char *s, double min, double max)
{
    double v;
    if (lbp_scan_double(s, min, max, &v))
        lbp_usage_error("%s: '%s' is not a number in [%g, %g]", flag, s, min, max);
    return v;
}

int lbp_scan_bytes(const char *s, long long min, long long max, long long *out)
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
    /* (double)max may round up to 2^63: the last bound keeps the cast defined */
    if (errno || end == s || *end || !(v >= (double)min && v <= (double)max) || v != floor(v) || v >= 0x1p63)
        return -1;
    *out = (long long)v;
    return 0;
}

void lbp_bytes_text(char *s, size_t len, double b)
{
    static const char *const unit[] = {"MiB", "GiB", "TiB", "PiB", "EiB"};
    for (int u = 4; u >= 0; u--) {
        const double size = ldexp(1, 20 + 10 * u);
        if (b >= size && fmod(b, size) == 0) { snprintf(s, len, "%.0f %s", b / size, unit[u]); return; }
    }
    for (int u = 4; u >= 0; u--) {
        const double size = ldexp(1, 20 + 10 * u);
        if (b >= size) { snprintf(s, len, "%.1f %s", b / size, unit[u]); return; }
    }
    if (b >= 1024 && fmod(b, 1024) == 0) snprintf(s, len, "%.0f KiB", b / 1024);
    else snprintf(s, len, "%.0f B", b);
}

long long lbp_parse_bytes(const char *flag, const char *s, long long min, long long max)
{
    long long v;
    if (lbp_scan_bytes(s, min, max, &v))
        lbp_usage_error("%s: '%s' is not a byte size in [%lld, %lld] (suffixes K, M, G)", flag, s, min, max);
    return v;
}

/* The next value of a range, or 0 when it would pass hi.  Checked before
 * the step is taken, so a range near the type's limit cannot overflow
 * (v <= hi, so the unsigned difference is exact). */
static int range_next(long long *v, long long hi, long long step, int doubling)
{
    if (doubling ? *v > hi / step : (unsigned long long)hi - (unsigned long long)*v < (unsigned long long)step)
        return 0;
    *v = doubling ? *v * step : *v + step;
    return 1;
}

static int not_whole(const char *s, long long min, long long max, char *err, size_t err_len)
{
    return lbp_error(err, err_len, "'%s' is not a whole number in [%lld, %lld]", s, min, max);
}

/* Appends one value; -1 with err when the list is full. */
static int append(long long v, long long *out, int *n, int max_count, char *err, size_t err_len)
{
    if (*n >= max_count) return lbp_error(err, err_len, "more than %d values", max_count);
    out[(*n)++] = v;
    return 0;
}

/* "a..b", "a..b:step" or "a..b:x2", split in place (item is the caller's
 * copy, of its own size: an item of any length keeps its ".."); text is the
 * item unsplit, for messages. */
static int scan_range(char *item, const char *text, long long min, long long max, long long *out,
                      int max_count, int *n, char *err, size_t err_len)
{
    char *dots = strstr(item, "..");
    *dots = 0;
    char *hi = dots + 2, *step = strchr(hi, ':');
    if (step) *step++ = 0;
    long long a, b, st = 1;
    if (lbp_scan_int(item, min, max, &a)) return not_whole(item, min, max, err, err_len);
    if (lbp_scan_int(hi, min, max, &b)) return not_whole(hi, min, max, err, err_len);
    int doubling = step && (step[0] == 'x' || step[0] == '*');
    long long st_min = doubling ? 2 : 1, st_max = max > 1 ? max : 2;
    if (step && lbp_scan_int(step + doubling, st_min, st_max, &st))
        return not_whole(step + doubling, st_min, st_max, err, err_len);
    if (b < a) return lbp_error(err, err_len, "range '%s' runs backwards", text);
    if (doubling && a <= 0) return lbp_error(err, err_len, "range '%s' must start above 0 to multiply", text);
    long long v = a;
    do {
        if (append(v, out, n, max_count, err, err_len)) return -1;
    } while (range_next(&v, b, st, doubling));
    return 0;
}

/* Items are split by hand, not with strtok, which would skip an empty item
 * ("1,,2", a trailing comma): more likely a typo than intent. */
int lbp_scan_int_list(const char *s, long long min, long long max, long long *out, int max_count, char *err,
                      size_t err_len)
{
    if (!*s) return lbp_error(err, err_len, "empty list");
    char *copy = strdup(s), *text = strdup(s);
    int n = 0, bad = !copy || !text;
    if (bad) lbp_error(err, err_len, "out of memory");
    for (size_t at = 0; !bad;) {
        char *item = copy + at;
        size_t len = strcspn(item, ",");
        int last = item[len] == '\0';
        item[len] = text[at + len] = '\0';
        long long v;
        if (len == 0)
            bad = lbp_error(err, err_len, "empty item in '%s'", s);
        else if (strstr(item, ".."))
            bad = scan_range(item, text + at, min, max, out, max_count, &n, err, err_len);
        else if (lbp_scan_int(item, min, max, &v))
            bad = not_whole(item, min, max, err, err_len);
        else
            bad = append(v, out, &n, max_count, err, err_len);
        if (last) break;
        at += len + 1;
    }
    free(copy);
    free(text);
    return bad ? -1 : n;
}

char *lbp_list_copy(const char *flag, const char *s)
{
    const size_t n = strlen(s);
    if (!n) lbp_usage_error("%s: empty list", flag);
    if (s[0] == ',' || s[n - 1] == ',' || strstr(s, ",,")) lbp_usage_error("%s: empty item in '%s'", flag, s);
    char *copy = strdup(s);
    if (!copy) lbp_fail("out of memory");
    return copy;
}

int lbp_parse_int_list(const char *flag, const char *s, long long min, long long max, long long *out, int max_count)
{
    char err[512];
    int n = lbp_scan_int_list(s, min, max, out, max_count, err, sizeof err);
    if (n < 0) lbp_usage_error("%s: %s", flag, err);
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
    case LBP_OPT_HELP:
        fputs(usage_text, stdout);
        lbp_env_help(stdout);
        exit(0);
    case LBP_OPT_VERSION: printf("%s (lbmprobe) %s\n", lbp_prog, LBP_VERSION); exit(0);
    default: return 0;
    }
}

int lbp_getopt(int argc, char **argv, const struct option *opts)
{
    opterr = 0; /* getopt's own message is a line of its own; ours names the same */
    int code = getopt_long(argc, argv, ":", opts, NULL);
    if (code != '?' && code != ':') return code;
    const char *given = optind > 0 && optind <= argc ? argv[optind - 1] : "?";
    if (strncmp(given, "--", 2)) {
        if (optopt > 0 && optopt < 256) lbp_usage_error("unknown option '-%c'; see --help", optopt);
        lbp_usage_error("unknown option '%s'; see --help", given);
    }
    const char *name = given + 2, *eq = strchr(name, '=');
    size_t len = eq ? (size_t)(eq - name) : strlen(name);
    if (code == ':') lbp_usage_error("option '--%.*s' needs a value", (int)len, name);
    char cands[256] = "";
    int n = 0;
    for (const struct option *o = opts; o->name; o++) {
        if (strncmp(o->name, name, len)) continue;
        if (strlen(o->name) == len) {
            if (o->has_arg == no_argument && eq) lbp_usage_error("option '--%s' takes no value", o->name);
            n = 1;
            break;
        }
        size_t used = strlen(cands);
        if (used + strlen(o->name) + 5 < sizeof cands)
            snprintf(cands + used, sizeof cands - used, "%s--%s", n ? ", " : "", o->name);
        n++;
    }
    if (n > 1) lbp_usage_error("option '--%.*s' is ambiguous (%s)", (int)len, name, cands);
    lbp_usage_error("unknown option '--%.*s'; see --help", (int)len, name);
}

_Noreturn void lbp_bad_option(void)
{
    snprintf(last_error, sizeof last_error, "see --help for the options");
    fprintf(stderr, "%s: %s\n", lbp_prog, last_error);
    exit(LBP_EXIT_USAGE);
}
