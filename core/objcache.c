/* The OpenMP backend's object cache: its folder, its records (objcache.h). */
#include "objcache.h"
#include "cli.h"
#include "csv.h"
#include "sha256.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ---- records --------------------------------------------------------------- */

#define MAGIC "lbpobj1\n"
#define SUFFIX LBP_OBJCACHE_SUFFIX

typedef struct {
    char magic[8];
    uint32_t head_bytes;  /* sizeof (record_head) */
    uint32_t entry_bytes; /* sizeof (lbp_cjit_entry): this build's layout */
    uint64_t object_bytes;
    unsigned char sha256[LBP_SHA256_BYTES]; /* of the entry, then the object */
} record_head;

unsigned char *lbp_objcache_record(const lbp_cjit_entry *e, const void *object, size_t object_len, size_t *len)
{
    record_head h;
    memset(&h, 0, sizeof h);
    memcpy(h.magic, MAGIC, sizeof h.magic);
    h.head_bytes = sizeof h;
    h.entry_bytes = sizeof *e;
    h.object_bytes = object_len;
    *len = sizeof h + sizeof *e + object_len;
    unsigned char *rec = malloc(*len);
    if (!rec) return NULL;
    memcpy(rec + sizeof h, e, sizeof *e);
    memcpy(rec + sizeof h + sizeof *e, object, object_len);
    lbp_sha256_of(rec + sizeof h, *len - sizeof h, h.sha256);
    memcpy(rec, &h, sizeof h);
    return rec;
}

/* What the wrapper's caller trusts in an entry: its counts in range, its
 * names ended. */
static int entry_in_range(const lbp_cjit_entry *e)
{
    if (e->nparams < 0 || e->nparams > LBP_CJIT_MAX_PARAMS) return 0;
    if ((unsigned)e->dyn_shared > 1 || (unsigned)e->uses_barrier > 1 || (unsigned)e->ids_outside_entry > 1) return 0;
    for (int k = 0; k < e->nparams; k++)
        if (!memchr(e->params[k].name, 0, sizeof e->params[k].name) ||
            !memchr(e->params[k].decl, 0, sizeof e->params[k].decl))
            return 0;
    return 1;
}

int lbp_objcache_check(const unsigned char *rec, size_t len, lbp_cjit_entry *e, size_t *object_at,
                       size_t *object_len, char *why, size_t why_len)
{
    record_head h;
    if (len < sizeof h) {
        snprintf(why, why_len, "is %zu bytes, shorter than a record's head", len);
        return -1;
    }
    memcpy(&h, rec, sizeof h);
    if (memcmp(h.magic, MAGIC, sizeof h.magic) != 0) {
        snprintf(why, why_len, "is not a record of this cache");
        return -1;
    }
    if (h.head_bytes != sizeof h || h.entry_bytes != sizeof *e) {
        snprintf(why, why_len, "is a record of another build's layout");
        return -1;
    }
    if (len - sizeof h < sizeof *e || h.object_bytes != len - sizeof h - sizeof *e) {
        snprintf(why, why_len, "is %zu bytes where its head says %llu", len,
                 (unsigned long long)(sizeof h + sizeof *e + h.object_bytes));
        return -1;
    }
    unsigned char sum[LBP_SHA256_BYTES];
    lbp_sha256_of(rec + sizeof h, len - sizeof h, sum);
    if (memcmp(sum, h.sha256, sizeof sum) != 0) {
        snprintf(why, why_len, "does not match the SHA-256 recorded when it was stored");
        return -1;
    }
    memcpy(e, rec + sizeof h, sizeof *e);
    if (!entry_in_range(e)) {
        snprintf(why, why_len, "holds a parsed entry out of range");
        return -1;
    }
    *object_at = sizeof h + sizeof *e;
    *object_len = h.object_bytes;
    if (*object_len < 4 || memcmp(rec + *object_at, "\177ELF", 4) != 0) {
        snprintf(why, why_len, "holds no ELF object");
        return -1;
    }
    return 0;
}

/* ---- files ----------------------------------------------------------------- */

/* The regular file name under dir, read whole without following a link:
 * 1 with its bytes (caller frees); 0 where there is none; -1 with why.
 * O_NONBLOCK: a FIFO planted there opens at once (and is refused). */
static int read_whole(int dir, const char *name, unsigned char **out, size_t *len, char *why, size_t why_len)
{
    *out = NULL;
    const int fd = openat(dir, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENOENT) return 0;
        if (errno == ELOOP) snprintf(why, why_len, "is a symbolic link");
        else snprintf(why, why_len, "cannot be opened (%s)", strerror(errno));
        return -1;
    }
    struct stat st;
    int rc = -1;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        snprintf(why, why_len, "is not a regular file");
    } else if ((uintmax_t)st.st_size > LBP_OBJCACHE_MAX) {
        snprintf(why, why_len, "is %jd bytes, more than any object", (intmax_t)st.st_size);
    } else if (!(*out = malloc(st.st_size ? (size_t)st.st_size : 1))) {
        snprintf(why, why_len, "does not fit in memory");
    } else {
        size_t got = 0;
        while (got < (size_t)st.st_size) {
            const ssize_t n = read(fd, *out + got, (size_t)st.st_size - got);
            if (n > 0) got += (size_t)n;
            else if (n == 0 || errno != EINTR) break;
        }
        *len = got;
        rc = got == (size_t)st.st_size ? 1 : -1;
        if (rc < 0) snprintf(why, why_len, "was cut while read (%zu of %jd bytes)", got, (intmax_t)st.st_size);
    }
    close(fd);
    if (rc < 0) {
        free(*out);
        *out = NULL;
    }
    return rc;
}

/* A file created under dir that was not there, nor a link: its descriptor,
 * or -1 (errno EEXIST where the name was taken). */
static int create_new(int dir, const char *name)
{
    return openat(dir, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
}

/* All of bytes to fd, then fsync where sync; closes fd; 0 or -1. */
static int write_all(int fd, const unsigned char *bytes, size_t len, int sync)
{
    size_t done = 0;
    while (done < len) {
        const ssize_t n = write(fd, bytes + done, len - done);
        if (n > 0) done += (size_t)n;
        else if (n == 0 || errno != EINTR) break;
    }
    int ok = done == len && (!sync || fsync(fd) == 0);
    if (close(fd) != 0) ok = 0;
    return ok ? 0 : -1;
}

static uint64_t random64(void)
{
    static uint64_t count;
    uint64_t x;
    if (getrandom(&x, sizeof x, GRND_NONBLOCK) == (ssize_t)sizeof x) return x;
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    return ((uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec) ^ (uint64_t)getpid() << 40 ^ ++count * 0x9e3779b97f4a7c15ull;
}

/* ---- the folder ------------------------------------------------------------ */

/* One line: exit 2 where LBP_OMP_CACHE named the folder; else a warning,
 * and the run goes on without a cache.  Returns -1. */
static int refuse(int from_env, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int refuse(int from_env, const char *fmt, ...)
{
    char msg[PATH_MAX + 256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (from_env) lbp_usage_error("LBP_OMP_CACHE: %s", msg);
    lbp_warn("openmp: object cache: %s; compiling without a cache", msg);
    return -1;
}

/* dir made where missing, its parents as mkdir -p makes them, itself 0700;
 * 0, or -1 with errno. */
static int make_private(const char *dir)
{
    if (mkdir(dir, 0700) == 0 || errno == EEXIST) return 0;
    if (errno != ENOENT) return -1;
    char *parent = strdup(dir);
    if (!parent) return -1;
    size_t n = strlen(parent);
    while (n > 1 && parent[n - 1] == '/') parent[--n] = 0;
    char *slash = strrchr(parent, '/');
    int rc = 0;
    if (slash) {
        slash[slash == parent] = 0; /* "/x": the parent is "/" */
        rc = lbp_make_folders(parent, NULL);
    }
    free(parent);
    if (rc == 0 && mkdir(dir, 0700) != 0 && errno != EEXIST) rc = -1;
    return rc;
}

/* dir opened as the cache folder, checked: a folder of this user's that
 * nobody else may write to; its descriptor, or -1 (refused). */
static int open_folder(const char *dir, int from_env)
{
    const size_t n = strlen(dir);
    if (n >= PATH_MAX)
        return refuse(from_env, "a folder of %zu characters is too long (at most %d): '%.60s...'", n, PATH_MAX - 1,
                      dir);
    if (make_private(dir) != 0) return refuse(from_env, "cannot create the folder '%s': %s", dir, strerror(errno));
    const int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0 && errno == ENOTDIR) return refuse(from_env, "'%s' is not a folder", dir);
    if (fd < 0) return refuse(from_env, "cannot open the folder '%s': %s", dir, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISDIR(st.st_mode)) {
        close(fd);
        return refuse(from_env, "'%s' is not a folder", dir);
    }
    if (st.st_uid != geteuid()) {
        close(fd);
        return refuse(from_env, "the folder '%s' belongs to uid %u, not to this user (uid %u)", dir,
                      (unsigned)st.st_uid, (unsigned)geteuid());
    }
    if (st.st_mode & (S_IWGRP | S_IWOTH)) {
        close(fd);
        return refuse(from_env, "the folder '%s' is writable by %s (mode %03o; chmod go-w it)", dir,
                      (st.st_mode & S_IWGRP) && (st.st_mode & S_IWOTH) ? "its group and others"
                      : st.st_mode & S_IWGRP                          ? "its group"
                                                                      : "others",
                      (unsigned)(st.st_mode & 07777));
    }
    return fd;
}

static char *joined(const char *a, const char *b)
{
    const size_t na = strlen(a), nb = strlen(b);
    char *s = malloc(na + nb + 1);
    if (!s) lbp_fail("out of host memory");
    memcpy(s, a, na);
    memcpy(s + na, b, nb + 1);
    return s;
}

/* Where the cache folder is (caller frees), or NULL for none; from_env:
 * LBP_OMP_CACHE says so. */
static char *folder_wanted(int *from_env)
{
    const char *set = getenv("LBP_OMP_CACHE"), *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    *from_env = set && *set;
    if (set && !strcmp(set, "off")) return NULL;
    if (set && *set) return joined(set, "");
    if (xdg && *xdg) return joined(xdg, "/lbmprobe/openmp");
    if (home && *home) return joined(home, "/.cache/lbmprobe/openmp");
    return NULL;
}

/* The folder opened for the setting last seen: checked once per setting,
 * not once per kernel (the test suite changes it within a process). */
static struct {
    int resolved;
    char *wanted;
    int fd;
} seen = {0, NULL, -1};

static int same_text(const char *a, const char *b) { return a == b || (a && b && strcmp(a, b) == 0); }

int lbp_objcache_open(lbp_objcache *c)
{
    int from_env;
    char *wanted = folder_wanted(&from_env);
    if (seen.resolved && same_text(wanted, seen.wanted)) {
        free(wanted);
    } else {
        if (seen.fd >= 0) close(seen.fd);
        free(seen.wanted);
        seen.resolved = 1;
        seen.wanted = wanted;
        seen.fd = wanted ? open_folder(wanted, from_env) : -1;
    }
    c->fd = seen.fd >= 0 ? fcntl(seen.fd, F_DUPFD_CLOEXEC, 0) : -1;
    c->dir = c->fd >= 0 ? joined(seen.wanted, "") : NULL;
    return c->fd >= 0;
}

void lbp_objcache_close(lbp_objcache *c)
{
    if (c->fd >= 0) close(c->fd);
    free(c->dir);
    c->fd = -1;
    c->dir = NULL;
}

/* ---- loading and storing --------------------------------------------------- */

void lbp_objcache_drop(const lbp_objcache *c, const char *name, const char *why)
{
    int gone = unlinkat(c->fd, name, 0) == 0 || errno == ENOENT;
    if (!gone && (errno == EISDIR || errno == EPERM)) gone = unlinkat(c->fd, name, AT_REMOVEDIR) == 0;
    if (gone) lbp_warn("openmp: object cache %s: %s %s; removed, compiling it again", c->dir, name, why);
    else lbp_warn("openmp: object cache %s: %s %s, and cannot be removed (%s); compiling it again", c->dir, name,
                  why, strerror(errno));
}

int lbp_objcache_load(const lbp_objcache *c, const char *name, lbp_cjit_entry *e, const char *obj_path)
{
    if (c->fd < 0) return 0;
    unsigned char *rec;
    size_t len = 0, at, n;
    char why[256];
    const int got = read_whole(c->fd, name, &rec, &len, why, sizeof why);
    if (got == 0) return 0;
    if (got < 0 || lbp_objcache_check(rec, len, e, &at, &n, why, sizeof why) != 0) {
        free(rec);
        lbp_objcache_drop(c, name, why);
        return 0;
    }
    /* the bytes just checked, into the caller's private folder: what
     * dlopen maps is what was hashed, whatever the cache's file becomes */
    const int fd = create_new(AT_FDCWD, obj_path);
    const int ok = fd >= 0 && write_all(fd, rec + at, n, 0) == 0;
    if (!ok && fd >= 0) unlink(obj_path);
    free(rec);
    return ok;
}

/* Is name one of this cache's temporary files ("<record>.<16 hex>.tmp")? */
static int is_temporary(const char *name)
{
    const size_t n = strlen(name), record = 32 + strlen(SUFFIX);
    if (n != record + 1 + 16 + 4 || strcmp(name + n - 4, ".tmp") != 0 || name[record] != '.') return 0;
    if (strncmp(name + 32, SUFFIX, strlen(SUFFIX)) != 0) return 0;
    for (size_t i = 0; i < n - 4; i++)
        if (i != record && (i < 32 || i > record) && !strchr("0123456789abcdef", name[i])) return 0;
    return 1;
}

/* Temporary files an hour old (a store takes milliseconds: these are of a
 * process killed between writing one and renaming it), removed. */
static void sweep_temporaries(int dir)
{
    const int fd = fcntl(dir, F_DUPFD_CLOEXEC, 0);
    DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
    if (!d) {
        if (fd >= 0) close(fd);
        return;
    }
    const time_t now = time(NULL);
    struct stat st;
    for (struct dirent *de; (de = readdir(d));)
        if (is_temporary(de->d_name) && fstatat(dir, de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
            now - st.st_mtime > 3600)
            unlinkat(dir, de->d_name, 0);
    closedir(d);
}

void lbp_objcache_store(const lbp_objcache *c, const char *name, const lbp_cjit_entry *e, const char *obj_path)
{
    if (c->fd < 0) return;
    unsigned char *obj;
    size_t n = 0, len;
    char why[256], tmp[NAME_MAX + 1];
    if (read_whole(AT_FDCWD, obj_path, &obj, &n, why, sizeof why) != 1) return;
    unsigned char *rec = lbp_objcache_record(e, obj, n, &len);
    free(obj);
    if (!rec) return;
    int fd = -1;
    for (int tries = 0; tries < 16 && fd < 0; tries++) {
        snprintf(tmp, sizeof tmp, "%s.%016llx.tmp", name, (unsigned long long)random64());
        if ((fd = create_new(c->fd, tmp)) < 0 && errno != EEXIST) break;
    }
    if (fd >= 0 && (write_all(fd, rec, len, 1) != 0 || renameat(c->fd, tmp, c->fd, name) != 0))
        unlinkat(c->fd, tmp, 0);
    free(rec);
    static int swept;
    if (!swept++) sweep_temporaries(c->fd);
}
