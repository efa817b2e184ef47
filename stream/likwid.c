/* likwid-bench runner and report parser (likwid.h). */
#include "likwid.h"
#include "stats.h"

#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

int stream_likwid_available(void)
{
    const char *path = getenv("PATH");
    if (!path)
        return 0;
    char dir[4096];
    for (const char *p = path; *p;) {
        size_t len = strcspn(p, ":");
        if (len > 0 && len < sizeof dir - 16) {
            snprintf(dir, sizeof dir, "%.*s/likwid-bench", (int)len, p);
            if (access(dir, X_OK) == 0)
                return 1;
        }
        p += len;
        if (*p == ':')
            p++;
    }
    return 0;
}

/* Value after "<key>:" at the start of a line, or NULL. */
static const char *field(const char *text, const char *key)
{
    size_t klen = strlen(key);
    for (const char *line = text; line && *line;) {
        if (strncmp(line, key, klen) == 0 && line[klen] == ':')
            return line + klen + 1;
        line = strchr(line, '\n');
        if (line)
            line++;
    }
    return NULL;
}

int stream_likwid_parse(const char *text, stream_likwid_result *out)
{
    const char *mbs = field(text, "MByte/s");
    const char *time = field(text, "Time");
    const char *iters = field(text, "Iterations per thread");
    const char *volume = field(text, "Data volume (Byte)");
    if (!mbs || !time || !iters || !volume)
        return -1;
    out->mbytes_per_s = strtod(mbs, NULL);
    out->time_s = strtod(time, NULL);
    out->iterations = strtol(iters, NULL, 10);
    double bytes = strtod(volume, NULL);
    if (out->mbytes_per_s <= 0 || out->time_s <= 0 || out->iterations <= 0 || bytes <= 0)
        return -1;
    out->bytes_per_iteration = (int64_t)(bytes / (double)out->iterations);
    return 0;
}

/* The calling thread's CPU set opened to every configured CPU, the old
 * one kept in *old: a child inherits the forking thread's set, and the
 * OpenMP backend binds this (the master) thread to one core, in which
 * likwid-bench would place all its threads.  0 done; -1 nothing changed. */
static int open_affinity(cpu_set_t *old)
{
    if (sched_getaffinity(0, sizeof *old, old)) return -1;
    cpu_set_t all;
    CPU_ZERO(&all);
    const long n = sysconf(_SC_NPROCESSORS_CONF);
    for (long c = 0; c < n && c < CPU_SETSIZE; c++) CPU_SET((int)c, &all);
    return sched_setaffinity(0, sizeof all, &all) ? -1 : 0; /* the kernel keeps the cgroup's limit */
}

int stream_likwid_run(const char *kernel, int64_t total_bytes, int threads, long iterations,
                      stream_likwid_result *out, char *why, size_t why_len)
{
    if (!stream_likwid_available()) {
        snprintf(why, why_len, "likwid-bench is not on PATH");
        return -1;
    }
    char shown[200], cmd[256], iter_opt[32] = "";
    if (iterations > 0)
        snprintf(iter_opt, sizeof iter_opt, " -i %ld", iterations);
    snprintf(shown, sizeof shown, "likwid-bench -t %s -w N:%lldkB:%d%s", kernel,
             (long long)(total_bytes / 1000), threads, iter_opt);
    snprintf(cmd, sizeof cmd, "%s 2>&1", shown);
    cpu_set_t old;
    const int opened = open_affinity(&old) == 0;
    FILE *p = popen(cmd, "r");
    if (opened) sched_setaffinity(0, sizeof old, &old);
    if (!p) {
        snprintf(why, why_len, "cannot run '%s'", shown);
        return -1;
    }
    size_t cap = 1 << 16, len = 0;
    char *text = malloc(cap);
    size_t got;
    while (text && (got = fread(text + len, 1, cap - 1 - len, p)) > 0) {
        len += got;
        if (len + 1 >= cap) {
            char *bigger = realloc(text, cap *= 2);
            if (!bigger) {
                free(text);
                text = NULL;
            }
            text = bigger;
        }
    }
    int status = pclose(p);
    if (!text) {
        snprintf(why, why_len, "out of memory reading likwid-bench output");
        return -1;
    }
    text[len] = 0;
    int rc = 0;
    if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status) != 0 ||
        stream_likwid_parse(text, out) != 0) {
        /* The last non-empty line usually says why (no topology access...). */
        char *last = NULL;
        for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n"))
            if (line[strspn(line, " \t-")])
                last = line;
        snprintf(why, why_len, "'%s' failed (exit %d): %.160s", shown,
                 WIFEXITED(status) ? WEXITSTATUS(status) : -1, last ? last : "no output");
        rc = -1;
    }
    free(text);
    return rc;
}

const char *stream_write_allocate_verdict(double copy_gbs, double copy_mem_gbs)
{
    if (!(copy_gbs > 0) || !(copy_mem_gbs > 0))
        return "unknown";
    double ratio = copy_mem_gbs / copy_gbs;
    return ratio > LBP_WA_YES_ABOVE ? "yes" : ratio < LBP_WA_NO_BELOW ? "no" : "unknown";
}

/* The median of n values (copied: lbp_stats_of sorts). */
static double median_of(const double *v, int n)
{
    double s[64];
    if (n > 64) n = 64;
    memcpy(s, v, sizeof *s * (size_t)n);
    return lbp_stats_of(s, n).median;
}

/* Is x on the other side of threshold t from the ratio r, or within the
 * margin of it? */
static int near(double r, double t) { return r > t - LBP_WA_MARGIN && r < t + LBP_WA_MARGIN; }
static int across(double lo, double hi, double t) { return lo < t && hi > t; }

stream_write_allocate stream_write_allocate_decide(const double *copy_gbs, const double *copy_mem_gbs, int samples)
{
    stream_write_allocate w = {.verdict = "unknown", .ratio = NAN, .ratio_min = NAN, .ratio_max = NAN,
                               .samples = samples};
    if (samples < 1) return w;
    const double copy = median_of(copy_gbs, samples), copy_mem = median_of(copy_mem_gbs, samples);
    w.verdict = stream_write_allocate_verdict(copy, copy_mem);
    if (!(copy > 0) || !(copy_mem > 0)) return w;
    w.ratio = copy_mem / copy;
    w.ratio_min = INFINITY;
    w.ratio_max = -INFINITY;
    for (int i = 0; i < samples; i++) {
        const double r = copy_gbs[i] > 0 ? copy_mem_gbs[i] / copy_gbs[i] : NAN;
        if (r < w.ratio_min) w.ratio_min = r;
        if (r > w.ratio_max) w.ratio_max = r;
    }
    w.close = near(w.ratio, LBP_WA_YES_ABOVE) || near(w.ratio, LBP_WA_NO_BELOW) ||
              across(w.ratio_min, w.ratio_max, LBP_WA_YES_ABOVE) ||
              across(w.ratio_min, w.ratio_max, LBP_WA_NO_BELOW);
    return w;
}

/* The next count: quick doubles; else every count to 4, where the first
 * cores still add their own bandwidth, then x1.5 and x4/3 in turn (4, 6, 8,
 * 12, 16, 24, ...), where the memory saturates: each count is three
 * likwid-bench runs of seconds, and every count up to P would make them
 * minutes on a host of many cores. */
static int next_count(int t, int quick)
{
    if (quick) return 2 * t;
    if (t < 4) return t + 1;
    return (t & (t - 1)) == 0 ? t + t / 2 : t + t / 3;
}

int stream_likwid_thread_counts(int cores, int quick, int *out, int max)
{
    int n = 0;
    if (cores < 1) cores = 1;
    for (int t = 1; t <= cores && n < max; t = next_count(t, quick)) out[n++] = t;
    if (out[n - 1] != cores && n < max) out[n++] = cores;
    return n;
}
