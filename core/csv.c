/* Result files: temp file + rename, never overwriting without --force. */
#include "csv.h"
#include "cli.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#ifndef LBP_GIT_COMMIT
#define LBP_GIT_COMMIT "unknown"
#endif

struct lbp_csv {
    FILE *f;
    char path[1024], tmp[1040];
    char prefix[256]; /* "device,backend," */
    char device[128];
};

void lbp_mkdir_p(const char *dir)
{
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", dir);
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/') continue;
        *p = 0;
        if (mkdir(buf, 0777) && errno != EEXIST) lbp_fail("cannot create folder %s: %s", buf, strerror(errno));
        *p = '/';
    }
    if (mkdir(buf, 0777) && errno != EEXIST) lbp_fail("cannot create folder %s: %s", buf, strerror(errno));
}

const char *lbp_result_dir(const char *opt_dir, const lbp_device_info *info)
{
    static char dir[1024];
    if (opt_dir) snprintf(dir, sizeof dir, "%s", opt_dir);
    else snprintf(dir, sizeof dir, "data/%s", info->slug);
    return dir;
}

void lbp_check_fresh(const char *dir, const char *const *names, int force)
{
    if (force) return;
    for (int i = 0; names[i]; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        if (access(path, F_OK) == 0)
            lbp_fail("%s exists; keeping it (use --force to replace it, or --out DIR)", path);
    }
}

lbp_csv *lbp_csv_open(const char *dir, const char *name, const char *header, const lbp_device_info *info, int force)
{
    lbp_csv *c = calloc(1, sizeof *c);
    lbp_mkdir_p(dir);
    snprintf(c->path, sizeof c->path, "%s/%s", dir, name);
    snprintf(c->tmp, sizeof c->tmp, "%s.tmp", c->path);
    if (!force && access(c->path, F_OK) == 0)
        lbp_fail("%s exists; keeping it (use --force to replace it, or --out DIR)", c->path);
    c->f = fopen(c->tmp, "w");
    if (!c->f) lbp_fail("cannot write %s: %s", c->tmp, strerror(errno));
    snprintf(c->device, sizeof c->device, "%s", info ? info->slug : "unknown");
    lbp_csv_set_backend(c, info ? info->backend : "unknown");
    fprintf(c->f, "device,backend,%s\n", header);
    return c;
}

void lbp_csv_row(lbp_csv *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs(c->prefix, c->f);
    vfprintf(c->f, fmt, ap);
    fputc('\n', c->f);
    va_end(ap);
}

void lbp_csv_set_backend(lbp_csv *c, const char *backend)
{
    snprintf(c->prefix, sizeof c->prefix, "%s,%s,", c->device, backend);
}

void lbp_csv_commit(lbp_csv *c)
{
    if (fflush(c->f) || ferror(c->f) || fclose(c->f)) lbp_fail("writing %s failed: %s", c->tmp, strerror(errno));
    if (rename(c->tmp, c->path)) lbp_fail("cannot rename %s to %s: %s", c->tmp, c->path, strerror(errno));
    free(c);
}

void lbp_csv_abort(lbp_csv *c)
{
    if (!c) return;
    fclose(c->f);
    unlink(c->tmp);
    free(c);
}

/* A value is written as is unless it holds a comma or a quote. */
static void put_value(FILE *f, const char *v)
{
    if (!strpbrk(v, ",\"\n")) {
        fputs(v, f);
        return;
    }
    fputc('"', f);
    for (const char *p = v; *p; p++) {
        if (*p == '"') fputc('"', f);
        fputc(*p == '\n' ? ' ' : *p, f);
    }
    fputc('"', f);
}

static void kv(FILE *f, const char *key, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void kv(FILE *f, const char *key, const char *fmt, ...)
{
    char v[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(v, sizeof v, fmt, ap);
    va_end(ap);
    fprintf(f, "%s,", key);
    put_value(f, v);
    fputc('\n', f);
}

void lbp_write_meta(const char *dir, const char *tool, const lbp_device_info *i, int argc, char **argv,
                    const lbp_kv *extra, int n_extra, int force)
{
    char name[128], path[1024], tmp[1040];
    snprintf(name, sizeof name, "%s-meta.csv", tool);
    lbp_mkdir_p(dir);
    snprintf(path, sizeof path, "%s/%s", dir, name);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    if (!force && access(path, F_OK) == 0) lbp_fail("%s exists; keeping it (use --force to replace it)", path);
    FILE *f = fopen(tmp, "w");
    if (!f) lbp_fail("cannot write %s: %s", tmp, strerror(errno));
    fprintf(f, "key,value\n");
    char date[64];
    time_t now = time(NULL);
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    char cmd[4096] = "";
    for (int a = 0; a < argc; a++) {
        strncat(cmd, a ? " " : "", sizeof cmd - strlen(cmd) - 1);
        strncat(cmd, argv[a], sizeof cmd - strlen(cmd) - 1);
    }
    kv(f, "tool", "%s", tool);
    kv(f, "version", "%s", LBP_VERSION);
    kv(f, "device", "%s", i->name);
    kv(f, "slug", "%s", i->slug);
    kv(f, "backend", "%s", i->backend);
    kv(f, "kind", "%s", lbp_kind_name(i->kind));
    kv(f, "vendor", "%s", i->vendor);
    kv(f, "platform", "%s", i->platform);
    kv(f, "driver", "%s", i->driver);
    kv(f, "uuid", "%s", i->uuid[0] ? i->uuid : "unknown");
    kv(f, "compute_units", "%d", i->compute_units);
    kv(f, "clock_mhz", "%d", i->clock_mhz);
    kv(f, "mem_clock_mhz", "%d", i->mem_clock_mhz);
    kv(f, "bus_width_bits", "%d", i->bus_width_bits);
    kv(f, "theoretical_gbs", "%.1f", i->theoretical_gbs);
    kv(f, "l2_bytes", "%lld", (long long)i->l2_bytes);
    kv(f, "global_mem_bytes", "%lld", (long long)i->global_mem_bytes);
    kv(f, "max_alloc_bytes", "%lld", (long long)i->max_alloc_bytes);
    kv(f, "ecc", "%d", i->ecc);
    kv(f, "fp64", "%d", i->fp64);
    kv(f, "max_threads_per_cu", "%d", i->max_threads_per_cu);
    kv(f, "warp_size", "%d", i->warp_size);
    kv(f, "compute_capability", "%d.%d", i->cc_major, i->cc_minor);
    kv(f, "date", "%s", date);
    kv(f, "git_commit", "%s", LBP_GIT_COMMIT);
    kv(f, "command", "%s", cmd);
    for (int e = 0; e < n_extra; e++) kv(f, extra[e].key, "%s", extra[e].value);
    if (fflush(f) || ferror(f) || fclose(f)) lbp_fail("writing %s failed", tmp);
    if (rename(tmp, path)) lbp_fail("cannot rename %s to %s: %s", tmp, path, strerror(errno));
}
