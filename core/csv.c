/* Result files: temp file + rename, never overwriting without --force. */
#include "envvars.h"
#include "csv.h"
#include "cleanup.h"
#include "cli.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <stdio.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#ifndef LBP_GIT_COMMIT
#define LBP_GIT_COMMIT "unknown"
#endif

/* Room a result folder leaves for the names of the files in it
 * ("membench-geometry-meta.csv.tmp" and the like). */
#define RESULT_NAME_ROOM 64

/* Set once a tool chose its folder with lbp_result_dir: it takes --out. */
static int suggest_out;

static char *vformat(const char *fmt, va_list ap)
{
    char *s = NULL;
    if (vasprintf(&s, fmt, ap) < 0) lbp_fail("out of memory");
    return s;
}

static char *format(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *format(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = vformat(fmt, ap);
    va_end(ap);
    return s;
}

static char *copy_text(const char *s)
{
    char *c = strdup(s);
    if (!c) lbp_fail("out of memory");
    return c;
}

int lbp_make_folders(const char *dir, size_t *failed)
{
    char *buf = copy_text(dir);
    int rc = 0;
    for (char *p = buf + (*buf != 0);; p++) {
        if (*p && *p != '/') continue;
        const char c = *p;
        *p = 0;
        if (mkdir(buf, 0777) && errno != EEXIST) {
            if (failed) *failed = (size_t)(p - buf);
            rc = -1;
            break;
        }
        if (!c) break;
        *p = c;
    }
    const int e = errno;
    free(buf);
    errno = e;
    return rc;
}

void lbp_mkdir_p(const char *dir)
{
    size_t n = 0;
    if (lbp_make_folders(dir, &n)) lbp_fail("cannot create folder %.*s: %s", (int)n, dir, strerror(errno));
}

/* Exit 2 when a file in dir could not be named within PATH_MAX, or one of
 * its folders' names is longer than NAME_MAX. */
static void check_path_length(const char *dir)
{
    const size_t len = strlen(dir), most = PATH_MAX - 1 - RESULT_NAME_ROOM;
    if (len > most)
        lbp_usage_error("--out: a folder of %zu characters is too long (at most %zu): '%.40s...'", len, most, dir);
    for (const char *p = dir; *p;) {
        size_t part = strcspn(p, "/");
        if (part > NAME_MAX)
            lbp_usage_error("--out: a folder name of %zu characters is too long (at most %d): '%.40s...'", part,
                            NAME_MAX, p);
        p += part + (p[part] == '/');
    }
}

const char *lbp_result_dir(const char *opt_dir, const lbp_device_info *info)
{
    static char *dir;
    free(dir);
    dir = opt_dir ? copy_text(opt_dir) : format("results/%s", info->slug);
    check_path_length(dir);
    suggest_out = 1;
    return dir;
}

/* A result is never overwritten unasked: the command, not the measurement,
 * is what must change (--force or --out), so the exit is a usage error's. */
static _Noreturn void refuse_existing(const char *path)
{
    lbp_usage_error("%s exists; keeping it (use --force to replace it%s)", path, suggest_out ? ", or --out DIR" : "");
}

/* ---- The result folder: one run at a time ------------------------------
 * Two runs into one folder would both pass the freshness check and then
 * interleave their files, so a tool holds an advisory lock on the folder
 * (flock on the folder itself: no lock file left in the data) from its
 * freshness check or first result file to its exit.  Locks are per open
 * file, so the folders this process holds are remembered. */

#define MAX_HELD_DIRS 16
static struct { dev_t dev; ino_t ino; } held[MAX_HELD_DIRS];
static int n_held;

static int holds(const struct stat *st)
{
    for (int i = 0; i < n_held; i++)
        if (held[i].dev == st->st_dev && held[i].ino == st->st_ino) return 1;
    return 0;
}

/* A result's temp file "<name>.csv.tmp.<pid>" whose process is gone (a
 * killed run), or a "<name>.csv.tmp" of the versions before per-process
 * names. */
static int stale_temp(const char *name)
{
    const char *t = strstr(name, ".csv.tmp");
    if (!t) return 0;
    t += strlen(".csv.tmp");
    if (!*t) return 1;
    if (*t++ != '.') return 0;
    char *end;
    long pid = strtol(t, &end, 10);
    if (*end || pid <= 0 || pid == (long)getpid()) return 0;
    return kill((pid_t)pid, 0) && errno == ESRCH;
}

/* Holding the lock, no other run writes here: the temp files of dead ones
 * are debris. */
static void remove_stale_temps(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d) return;
    for (struct dirent *e; (e = readdir(d));) {
        if (!stale_temp(e->d_name)) continue;
        char *path = format("%s/%s", dir, e->d_name);
        if (unlink(path) == 0) fprintf(stderr, "%s: removed %s, left by a run that ended early\n", lbp_prog, path);
        free(path);
    }
    closedir(d);
}

void lbp_claim_dir(const char *dir)
{
    lbp_mkdir_p(dir);
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st)) lbp_fail("cannot open folder %s: %s", dir, strerror(errno));
    if (holds(&st)) {
        close(fd);
        return;
    }
    if (flock(fd, LOCK_EX | LOCK_NB)) {
        if (errno == EWOULDBLOCK)
            lbp_fail("%s is in use by another run; wait for it to end%s", dir, suggest_out ? " or use --out DIR" : "");
        lbp_fail("cannot lock folder %s: %s", dir, strerror(errno));
    }
    if (n_held == MAX_HELD_DIRS) lbp_fail("more than %d result folders in one run", MAX_HELD_DIRS);
    held[n_held].dev = st.st_dev;
    held[n_held++].ino = st.st_ino;
    remove_stale_temps(dir); /* the fd stays open: the lock lasts until exit */
}

void lbp_check_fresh(const char *dir, const char *const *names, int force)
{
    lbp_claim_dir(dir);
    if (force) return;
    for (int i = 0; names[i]; i++) {
        char *path = format("%s/%s", dir, names[i]);
        if (access(path, F_OK) == 0) refuse_existing(path);
        free(path);
    }
}

/* A result file being written: dir/name, through dir/name.tmp.<pid> (a
 * name no other process writes). */
typedef struct {
    FILE *f;
    char *path, *tmp;
    int force;
} result_file;

static result_file result_open(const char *dir, const char *name, int force)
{
    lbp_claim_dir(dir);
    result_file r = {.path = format("%s/%s", dir, name), .force = force};
    r.tmp = format("%s.tmp.%ld", r.path, (long)getpid());
    if (!force && access(r.path, F_OK) == 0) refuse_existing(r.path);
    int fd = open(r.tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd >= 0) lbp_cleanup_add(r.tmp); /* removed where the run ends before its rename */
    if (fd < 0 || !(r.f = fdopen(fd, "w"))) lbp_fail("cannot write %s: %s", r.tmp, strerror(errno));
    return r;
}

/* Move tmp to path unless path exists: renameat2's RENAME_NOREPLACE, or
 * where the file system lacks it a hard link (which fails on an existing
 * name too) and the temp name removed. */
static int rename_noreplace(const char *tmp, const char *path)
{
#ifdef RENAME_NOREPLACE
    if (renameat2(AT_FDCWD, tmp, AT_FDCWD, path, RENAME_NOREPLACE) == 0) return 0;
    if (errno != EINVAL && errno != ENOSYS && errno != ENOTSUP) return -1;
#endif
    if (link(tmp, path)) return -1;
    unlink(tmp);
    return 0;
}

static void result_close(result_file *r)
{
    if (fflush(r->f) || ferror(r->f) || fclose(r->f)) lbp_fail("writing %s failed: %s", r->tmp, strerror(errno));
    r->f = NULL;
}

static void result_rename(result_file *r)
{
    if ((r->force ? rename(r->tmp, r->path) : rename_noreplace(r->tmp, r->path))) {
        int err = errno;
        lbp_cleanup_forget(r->tmp);
        unlink(r->tmp);
        if (err == EEXIST) refuse_existing(r->path);
        lbp_fail("cannot rename %s to %s: %s", r->tmp, r->path, strerror(err));
    }
    lbp_cleanup_forget(r->tmp);
    free(r->path);
    free(r->tmp);
}

static void result_commit(result_file *r)
{
    result_close(r);
    result_rename(r);
}

/* ---- A tool's set of files, renamed together ----------------------------
 * Files finished with lbp_csv_finish wait under their temp names until the
 * tool writes its meta file, then are renamed just before it: a run killed
 * before the end leaves no file (its temp files go at exit or on the
 * signal, cleanup.h; one killed outright leaves them to the next run's
 * claim), never a data file without its meta. */
static result_file *pending;
static int n_pending, cap_pending;

static void hold_pending(result_file r)
{
    if (n_pending == cap_pending) {
        cap_pending = cap_pending ? 2 * cap_pending : 8;
        if (!(pending = realloc(pending, sizeof *pending * (size_t)cap_pending))) lbp_fail("out of memory");
    }
    pending[n_pending++] = r;
}

static void commit_pending(void)
{
    while (n_pending) {
        result_file r = pending[0];
        memmove(pending, pending + 1, sizeof *pending * (size_t)--n_pending);
        result_rename(&r);
    }
}

static void result_abort(result_file *r)
{
    fclose(r->f);
    lbp_cleanup_forget(r->tmp);
    unlink(r->tmp);
    free(r->path);
    free(r->tmp);
}

/* ---- CSV ---------------------------------------------------------------- */

struct lbp_csv {
    result_file file;
    char *device, *prefix; /* prefix: "device,backend," */
};

lbp_csv *lbp_csv_open(const char *dir, const char *name, const char *header, const lbp_device_info *info, int force)
{
    lbp_csv *c = calloc(1, sizeof *c);
    if (!c) lbp_fail("out of memory");
    c->file = result_open(dir, name, force);
    c->device = copy_text(info ? info->slug : "unknown");
    lbp_csv_set_backend(c, info ? info->backend : "unknown");
    fprintf(c->file.f, "device,backend,%s\n", header);
    return c;
}

void lbp_csv_row(lbp_csv *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs(c->prefix, c->file.f);
    vfprintf(c->file.f, fmt, ap);
    fputc('\n', c->file.f);
    va_end(ap);
}

void lbp_csv_set_backend(lbp_csv *c, const char *backend)
{
    free(c->prefix);
    c->prefix = format("%s,%s,", c->device, backend);
}

static void csv_free(lbp_csv *c)
{
    free(c->device);
    free(c->prefix);
    free(c);
}

void lbp_csv_commit(lbp_csv *c)
{
    result_commit(&c->file);
    csv_free(c);
}

void lbp_csv_finish(lbp_csv *c)
{
    result_close(&c->file);
    hold_pending(c->file);
    csv_free(c);
}

void lbp_csv_abort(lbp_csv *c)
{
    if (!c) return;
    result_abort(&c->file);
    csv_free(c);
}

/* ---- <tool>-meta.csv ---------------------------------------------------- */

struct lbp_meta {
    char *tool;
    char **keys, **values;
    int n, cap;
};

static void meta_put(lbp_meta *m, const char *key, char *value)
{
    for (int i = 0; i < m->n; i++)
        if (!strcmp(m->keys[i], key)) {
            free(m->values[i]);
            m->values[i] = value;
            return;
        }
    if (m->n == m->cap) {
        m->cap = m->cap ? 2 * m->cap : 64;
        m->keys = realloc(m->keys, sizeof *m->keys * (size_t)m->cap);
        m->values = realloc(m->values, sizeof *m->values * (size_t)m->cap);
        if (!m->keys || !m->values) lbp_fail("out of memory");
    }
    m->keys[m->n] = copy_text(key);
    m->values[m->n++] = value;
}

void lbp_meta_set(lbp_meta *m, const char *key, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    meta_put(m, key, vformat(fmt, ap));
    va_end(ap);
}

void lbp_meta_number(lbp_meta *m, const char *key, const char *fmt, double v)
{
    if (isnan(v)) meta_put(m, key, copy_text("n/a"));
    else meta_put(m, key, format(fmt, v));
}

static char *command_line(int argc, char **argv)
{
    size_t len = 1;
    for (int a = 0; a < argc; a++) len += strlen(argv[a]) + 1;
    char *cmd = calloc(1, len);
    if (!cmd) lbp_fail("out of memory");
    for (int a = 0; a < argc; a++) {
        if (a) strcat(cmd, " ");
        strcat(cmd, argv[a]);
    }
    return cmd;
}

static void meta_device(lbp_meta *m, const lbp_device_info *i)
{
    lbp_meta_set(m, "device", "%s", i->name);
    lbp_meta_set(m, "slug", "%s", i->slug);
    lbp_meta_set(m, "backend", "%s", i->backend);
    lbp_meta_set(m, "kind", "%s", lbp_kind_name(i->kind));
    lbp_meta_set(m, "vendor", "%s", i->vendor);
    lbp_meta_set(m, "platform", "%s", i->platform);
    lbp_meta_set(m, "driver", "%s", i->driver);
    lbp_meta_set(m, "uuid", "%s", i->uuid[0] ? i->uuid : "unknown");
    lbp_meta_set(m, "compute_units", "%d", i->compute_units);
    lbp_meta_set(m, "clock_mhz", "%d", i->clock_mhz);
    lbp_meta_set(m, "mem_clock_mhz", "%d", i->mem_clock_mhz);
    lbp_meta_set(m, "bus_width_bits", "%d", i->bus_width_bits);
    lbp_meta_set(m, "theoretical_gbs", "%.1f", i->theoretical_gbs);
    lbp_meta_set(m, "l2_bytes", "%lld", (long long)i->l2_bytes);
    lbp_meta_set(m, "global_mem_bytes", "%lld", (long long)i->global_mem_bytes);
    lbp_meta_set(m, "max_alloc_bytes", "%lld", (long long)i->max_alloc_bytes);
    lbp_meta_set(m, "ecc", "%d", i->ecc);
    lbp_meta_set(m, "fp64", "%d", i->fp64);
    lbp_meta_set(m, "max_threads_per_cu", "%d", i->max_threads_per_cu);
    lbp_meta_set(m, "warp_size", "%d", i->warp_size);
    lbp_meta_set(m, "compute_capability", "%d.%d", i->cc_major, i->cc_minor);
}

lbp_meta *lbp_meta_new(const char *tool, const lbp_device_info *info, int argc, char **argv)
{
    lbp_meta *m = calloc(1, sizeof *m);
    if (!m) lbp_fail("out of memory");
    m->tool = copy_text(tool);
    lbp_meta_set(m, "tool", "%s", tool);
    lbp_meta_set(m, "version", "%s", LBP_VERSION);
    meta_device(m, info);
    char date[64];
    time_t now = time(NULL);
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    lbp_meta_set(m, "date", "%s", date);
    lbp_meta_set(m, "git_commit", "%s", LBP_GIT_COMMIT);
    meta_put(m, "command", command_line(argc, argv));
    /* what the environment changed in how the numbers were made */
    for (int i = 0; i < lbp_env_var_count; i++) {
        const char *v = getenv(lbp_env_vars[i].name);
        if (!v || !lbp_env_vars[i].changes_numbers) continue;
        char key[64];
        snprintf(key, sizeof key, "env_%s", lbp_env_vars[i].name);
        lbp_meta_set(m, key, "%s", v);
    }
    return m;
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

void lbp_meta_write(lbp_meta *m, const char *dir, int force)
{
    char *name = format("%s-meta.csv", m->tool);
    result_file r = result_open(dir, name, force);
    free(name);
    fprintf(r.f, "key,value\n");
    for (int i = 0; i < m->n; i++) {
        fprintf(r.f, "%s,", m->keys[i]);
        put_value(r.f, m->values[i]);
        fputc('\n', r.f);
    }
    result_close(&r);
    commit_pending(); /* the data files, then the meta that says they are complete */
    result_rename(&r);
    lbp_meta_free(m);
}

void lbp_meta_free(lbp_meta *m)
{
    if (!m) return;
    for (int i = 0; i < m->n; i++) {
        free(m->keys[i]);
        free(m->values[i]);
    }
    free(m->keys);
    free(m->values);
    free(m->tool);
    free(m);
}

void lbp_write_meta(const char *dir, const char *tool, const lbp_device_info *info, int argc, char **argv,
                    const lbp_kv *extra, int n_extra, int force)
{
    lbp_meta *m = lbp_meta_new(tool, info, argc, argv);
    for (int e = 0; e < n_extra; e++) lbp_meta_set(m, extra[e].key, "%s", extra[e].value);
    lbp_meta_write(m, dir, force);
}
