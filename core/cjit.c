/* Kernel text through the host's C compiler into a loaded shared object
 * (cjit.h). */
#include "cjit.h"
#include "cleanup.h"
#include "csv.h"
#include "device.h"
#include "objcache.h"

#include <ctype.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* -fno-show-column: the log names "file:line:", which is what
 * lbp_print_compile_log looks for, not a column it would take for a line.
 * -fno-trapping-math -fno-math-errno: the dialect's arithmetic never traps
 * nor sets errno (as on a GPU and in OpenCL C), so the compiler may compute
 * the lanes a guard (`if (i >= n) return;`) leaves out and drop them: the
 * loop over a group's work-items vectorizes; results are the same. */
static const char *const base_flags[] = {"-O3", "-march=native", "-fopenmp", "-fno-trapping-math", "-fno-math-errno",
                                         "-fPIC", "-fno-show-column", NULL};

/* ---- text helpers -------------------------------------------------------- */

/* Texts are built in memory streams (open_memstream): fputs, fprintf. */
static FILE *text_open(char **buf, size_t *len)
{
    FILE *f = open_memstream(buf, len);
    if (!f) lbp_api_fail("openmp", "open_memstream", __FILE__, __LINE__, "out of host memory");
    return f;
}

/* Close a text stream; its text, which the stream sets only now (caller
 * frees). */
static char *text_close(FILE *f, char **buf)
{
    if (fclose(f) != 0) lbp_api_fail("openmp", "fclose", __FILE__, __LINE__, "out of host memory");
    return *buf;
}

static int is_ident(char c) { return isalnum((unsigned char)c) || c == '_'; }

static int at_line_start(const char *t, size_t i)
{
    while (i > 0 && (t[i - 1] == ' ' || t[i - 1] == '\t')) i--;
    return i == 0 || t[i - 1] == '\n';
}

/* Past a string or character literal starting at t[i]. */
static size_t skip_literal(const char *t, size_t i)
{
    const char q = t[i++];
    while (t[i] && t[i] != q) i += t[i] == '\\' && t[i + 1] ? 2 : 1;
    return t[i] ? i + 1 : i;
}

static size_t skip_line(const char *t, size_t i)
{
    while (t[i] && t[i] != '\n') i++;
    return i;
}

/* Past blanks and preprocessor lines (line markers, pragmas). */
static size_t skip_space(const char *t, size_t i)
{
    for (;;) {
        while (isspace((unsigned char)t[i])) i++;
        if (t[i] == '#' && at_line_start(t, i)) i = skip_line(t, i);
        else return i;
    }
}

/* The offset of the bracket closing the one at t[open], or 0. */
static size_t matching(const char *t, size_t open)
{
    const char o = t[open], c = o == '(' ? ')' : o == '[' ? ']' : '}';
    int depth = 0;
    for (size_t i = open; t[i];) {
        if (t[i] == '"' || t[i] == '\'') {
            i = skip_literal(t, i);
            continue;
        }
        if (t[i] == '#' && at_line_start(t, i)) {
            i = skip_line(t, i);
            continue;
        }
        if (t[i] == o) depth++;
        else if (t[i] == c && --depth == 0) return i;
        i++;
    }
    return 0;
}

/* Occurrences of the identifier word in t[from, to). */
static int count_word(const char *t, size_t from, size_t to, const char *word)
{
    const size_t n = strlen(word);
    int count = 0;
    for (const char *p = t + from; (p = strstr(p, word)) && (size_t)(p - t) + n <= to; p += n)
        if ((p == t || !is_ident(p[-1])) && !is_ident(p[n])) count++;
    return count;
}

/* ---- the entry's definition ---------------------------------------------- */

/* Offset of the name of entry's definition (name, '(', its ')', then '{') at
 * file scope, or (size_t)-1. */
static size_t find_definition(const char *t, const char *entry, size_t *open, size_t *body)
{
    const size_t n = strlen(entry);
    int depth = 0;
    for (size_t i = 0; t[i];) {
        const char c = t[i];
        if (c == '#' && at_line_start(t, i)) {
            i = skip_line(t, i);
        } else if (c == '"' || c == '\'') {
            i = skip_literal(t, i);
        } else if (c == '{' || c == '}') {
            depth += c == '{' ? 1 : -1;
            i++;
        } else if (is_ident(c) && (i == 0 || !is_ident(t[i - 1]))) {
            size_t j = i;
            while (is_ident(t[j])) j++;
            if (depth == 0 && j - i == n && strncmp(t + i, entry, n) == 0) {
                size_t k = skip_space(t, j), close = t[k] == '(' ? matching(t, k) : 0;
                size_t b = close ? skip_space(t, close + 1) : 0;
                if (close && t[b] == '{') {
                    *open = k;
                    *body = b;
                    return i;
                }
            }
            i = j;
        } else {
            i++;
        }
    }
    return (size_t)-1;
}

/* One parameter's text (s, n long, preprocessor lines dropped) into p. */
static int read_param(const char *s, size_t n, lbp_cjit_param *p, char *why, size_t why_len)
{
    char *d;
    size_t len;
    FILE *clean = text_open(&d, &len);
    for (size_t i = 0; i < n;) {
        if (s[i] == '#' && at_line_start(s, i)) {
            while (i < n && s[i] != '\n') i++;
            continue;
        }
        fputc(isspace((unsigned char)s[i]) ? ' ' : s[i], clean);
        i++;
    }
    text_close(clean, &d);
    size_t a = 0, b = strlen(d);
    while (a < b && d[a] == ' ') a++;
    while (b > a && d[b - 1] == ' ') b--;
    d[b] = 0;
    int rc = 0;
    size_t e = b;
    while (e > a && !is_ident(d[e - 1])) e--;
    size_t s0 = e;
    while (s0 > a && is_ident(d[s0 - 1])) s0--;
    if (strchr(d + a, '[') || strchr(d + a, '(')) {
        snprintf(why, why_len, "parameter '%s': array and function parameters are not supported", d + a);
        rc = -1;
    } else if (s0 == e || e != b || b - a >= sizeof p->decl || e - s0 >= sizeof p->name) {
        snprintf(why, why_len, "parameter '%s' has no name the wrapper can use", d + a);
        rc = -1;
    } else {
        snprintf(p->decl, sizeof p->decl, "%s", d + a);
        snprintf(p->name, sizeof p->name, "%.*s", (int)(e - s0), d + s0);
    }
    free(d);
    return rc;
}

static int is_void_list(const char *s, size_t n)
{
    size_t a = 0;
    while (a < n && isspace((unsigned char)s[a])) a++;
    while (n > a && isspace((unsigned char)s[n - 1])) n--;
    return n == a || (n - a == 4 && strncmp(s + a, "void", 4) == 0);
}

int lbp_cjit_parse_entry(const char *pre, const char *entry, lbp_cjit_entry *out, char *why, size_t why_len)
{
    memset(out, 0, sizeof *out);
    size_t open, body;
    if (find_definition(pre, entry, &open, &body) == (size_t)-1) {
        snprintf(why, why_len, "no definition of kernel '%s' in the source", entry);
        return -1;
    }
    const size_t close = matching(pre, open), body_end = matching(pre, body);
    if (!body_end) {
        snprintf(why, why_len, "the body of kernel '%s' does not end", entry);
        return -1;
    }
    out->params_open = open;
    out->params_close = close;
    if (!is_void_list(pre + open + 1, close - open - 1)) {
        size_t start = open + 1;
        for (size_t i = start; i <= close; i++) {
            if (pre[i] == '(' || pre[i] == '[' || pre[i] == '{') {
                i = matching(pre, i);
                continue;
            }
            if (pre[i] != ',' && i != close) continue;
            if (out->nparams == LBP_CJIT_MAX_PARAMS) {
                snprintf(why, why_len, "kernel '%s' has more than %d parameters", entry, LBP_CJIT_MAX_PARAMS);
                return -1;
            }
            if (read_param(pre + start, i - start, &out->params[out->nparams], why, why_len)) return -1;
            out->nparams++;
            start = i + 1;
        }
    }
    if (out->nparams > 0 && strcmp(out->params[out->nparams - 1].name, "lbp_dyn_shared") == 0) {
        out->dyn_shared = 1;
        out->nparams--;
    }
    out->uses_barrier = count_word(pre, body, body_end, "lbp_barrier_mark_") > 0;
    /* the prelude's declaration of the thread-local copy is one use */
    out->ids_outside_entry = count_word(pre, 0, body, "lbp_wi") + count_word(pre, body_end, strlen(pre), "lbp_wi") > 1;
    return 0;
}

/* ---- the wrapper --------------------------------------------------------- */

static void put_signature(FILE *t, const lbp_cjit_entry *e)
{
    fputs("void lbp_signature(int *count, int *bytes, int *kinds)\n{\n", t);
    fprintf(t, "    *count = %d;\n", e->nparams);
    for (int k = 0; k < e->nparams; k++)
        fprintf(t, "    { %s; bytes[%d] = (int)sizeof(%s); kinds[%d] = __builtin_classify_type(%s); }\n",
                e->params[k].decl, k, e->params[k].name, k, e->params[k].name);
    fputs("}\n", t);
}

/* The work-items of a group run as vector lanes (as PoCL and a GPU's
 * warps run them): their order is unspecified in the dialect, so the loop
 * over them is one the compiler may vectorize, except where the items meet
 * through the thread-local copy of their ids or at a barrier. */
static int across_items(const lbp_cjit_entry *e)
{
    return !e->ids_outside_entry && !e->uses_barrier;
}

static void put_run(FILE *t, const char *entry, const lbp_cjit_entry *e)
{
    fputs("void lbp_run(void *const *lbp_args, const long *lbp_shape)\n{\n", t);
    for (int k = 0; k < e->nparams; k++)
        fprintf(t, "    %s = *(__typeof__(%s) *)lbp_args[%d];\n", e->params[k].decl, e->params[k].name, k);
    fprintf(t,
            "    const long lbp_g0 = lbp_shape[%d], lbp_g1 = lbp_shape[%d], lbp_g2 = lbp_shape[%d];\n"
            "    const long lbp_b0 = lbp_shape[%d], lbp_b1 = lbp_shape[%d], lbp_b2 = lbp_shape[%d];\n"
            "    const long lbp_shared = lbp_shape[%d], lbp_groups = lbp_g0 * lbp_g1 * lbp_g2;\n"
            "#pragma omp parallel num_threads((int)lbp_shape[%d])\n"
            "    {\n"
            "        unsigned char *lbp_dyn = lbp_shared > 0 ? (unsigned char *)calloc(1, (size_t)lbp_shared) : 0;\n"
            "#pragma omp for schedule(static)\n"
            "        for (long lbp_g = 0; lbp_g < lbp_groups; lbp_g++) {\n"
            "            lbp_workitem lbp_w;\n"
            "            lbp_w.grp[0] = (i32)(lbp_g %% lbp_g0);\n"
            "            lbp_w.grp[1] = (i32)(lbp_g / lbp_g0 %% lbp_g1);\n"
            "            lbp_w.grp[2] = (i32)(lbp_g / (lbp_g0 * lbp_g1));\n"
            "            lbp_w.lsz[0] = (i32)lbp_b0; lbp_w.lsz[1] = (i32)lbp_b1; lbp_w.lsz[2] = (i32)lbp_b2;\n"
            "            lbp_w.ngr[0] = (i32)lbp_g0; lbp_w.ngr[1] = (i32)lbp_g1; lbp_w.ngr[2] = (i32)lbp_g2;\n"
            "            for (long lbp_z = 0; lbp_z < lbp_b2; lbp_z++)\n"
            "            for (long lbp_y = 0; lbp_y < lbp_b1; lbp_y++)\n"
            "%s"
            "            for (long lbp_x = 0; lbp_x < lbp_b0; lbp_x++) {\n"
            "                lbp_w.lid[0] = (i32)lbp_x; lbp_w.lid[1] = (i32)lbp_y; lbp_w.lid[2] = (i32)lbp_z;\n"
            "                lbp_w.gid[0] = (i64)lbp_w.grp[0] * lbp_b0 + lbp_x;\n"
            "                lbp_w.gid[1] = (i64)lbp_w.grp[1] * lbp_b1 + lbp_y;\n"
            "                lbp_w.gid[2] = (i64)lbp_w.grp[2] * lbp_b2 + lbp_z;\n",
            LBP_CJIT_SHAPE_GRID, LBP_CJIT_SHAPE_GRID + 1, LBP_CJIT_SHAPE_GRID + 2, LBP_CJIT_SHAPE_BLOCK,
            LBP_CJIT_SHAPE_BLOCK + 1, LBP_CJIT_SHAPE_BLOCK + 2, LBP_CJIT_SHAPE_SHARED, LBP_CJIT_SHAPE_THREADS,
            across_items(e) ? "#pragma omp simd\n" : "");
    if (e->ids_outside_entry) fputs("                lbp_wi = lbp_w;\n", t);
    fprintf(t, "                %s(lbp_w", entry);
    for (int k = 0; k < e->nparams; k++) fprintf(t, ", %s", e->params[k].name);
    fputs(e->dyn_shared ? ", lbp_dyn);\n" : ");\n", t);
    fputs("            }\n"
          "        }\n"
          "        free(lbp_dyn);\n"
          "    }\n"
          "}\n",
          t);
}

char *lbp_cjit_wrap(const char *pre, const char *entry, const lbp_cjit_entry *e)
{
    char *buf;
    size_t len;
    FILE *t = text_open(&buf, &len);
    fwrite(pre, 1, e->params_open + 1, t);
    const int none = e->nparams == 0 && !e->dyn_shared;
    fputs(none ? "lbp_workitem lbp_wi" : "lbp_workitem lbp_wi, ", t);
    fputs(pre + (none ? e->params_close : e->params_open + 1), t);
    fputs("\n# 1 \"<openmp wrapper>\"\n", t);
    put_signature(t, e);
    put_run(t, entry, e);
    return text_close(t, &buf);
}

/* ---- the compiler ------------------------------------------------------- */

/* $LBP_OMP_CC, else $CC, split at blanks, or "cc"; *n words (static
 * storage). LBP_OMP_CC names the kernels' compiler apart from the one that
 * built the tools (a sanitizer build's CC). */
static char **compiler_words(int *n)
{
    static char *words[16];
    static char buf[512];
    static int count;
    if (!count) {
        const char *cc = getenv("LBP_OMP_CC");
        if (!cc || !*cc) cc = getenv("CC");
        snprintf(buf, sizeof buf, "%s", cc && *cc ? cc : "cc");
        for (char *w = strtok(buf, " \t"); w && count < 15; w = strtok(NULL, " \t")) words[count++] = w;
        if (!count) words[count++] = "cc";
    }
    *n = count;
    return words;
}

static int on_path(const char *prog)
{
    if (strchr(prog, '/')) return access(prog, X_OK) == 0;
    const char *path = getenv("PATH");
    char dir[4096];
    for (const char *p = path ? path : "/usr/bin:/bin"; *p;) {
        size_t len = strcspn(p, ":");
        if (len > 0 && len < sizeof dir - 64) {
            snprintf(dir, sizeof dir, "%.*s/%s", (int)len, p, prog);
            if (access(dir, X_OK) == 0) return 1;
        }
        p += len + (p[len] == ':');
    }
    return 0;
}

int lbp_cjit_available(char *why, size_t why_len)
{
    int n;
    char **cc = compiler_words(&n);
    if (on_path(cc[0])) return 1;
    snprintf(why, why_len, "no C compiler ('%s' not found; set CC)", cc[0]);
    return 0;
}

/* Start argv with stdout and stderr into log_path: its pid, or -1. */
static pid_t spawn_logged(char *const argv[], const char *log_path)
{
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, log_path, O_WRONLY | O_CREAT | O_APPEND, 0600);
    posix_spawn_file_actions_adddup2(&fa, 1, 2);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    pid_t pid;
    int rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    return rc == 0 ? pid : -1;
}

/* The exit status of a spawned process, or -1. */
static int wait_exit(pid_t pid)
{
    if (pid < 0) return -1;
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) return -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* Run argv with stdout and stderr into log_path; the exit status, or -1. */
static int run_logged(char *const argv[], const char *log_path)
{
    return wait_exit(spawn_logged(argv, log_path));
}

const char *lbp_cjit_compiler_version(void)
{
    static char version[128];
    static int asked;
    if (asked) return version;
    asked = 1;
    char dir[] = "/tmp/lbmprobe-cc-XXXXXX", log[64];
    if (!mkdtemp(dir)) return version;
    snprintf(log, sizeof log, "%s/version", dir);
    int n;
    char **cc = compiler_words(&n);
    char *argv[20];
    for (int i = 0; i < n; i++) argv[i] = cc[i];
    argv[n] = "--version";
    argv[n + 1] = NULL;
    if (run_logged(argv, log) == 0) {
        FILE *f = fopen(log, "r");
        if (f && fgets(version, sizeof version, f)) version[strcspn(version, "\n")] = 0;
        if (f) fclose(f);
    }
    unlink(log);
    rmdir(dir);
    return version;
}

static char *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    char *text, chunk[65536];
    size_t len, n;
    FILE *t = text_open(&text, &len);
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) fwrite(chunk, 1, n, t);
    fclose(f);
    return text_close(t, &text);
}

static int write_file(const char *path, const char *s)
{
    FILE *f = fopen(path, "wb");
    if (!f) return -1;
    size_t n = strlen(s);
    int ok = fwrite(s, 1, n, f) == n;
    return fclose(f) == 0 && ok ? 0 : -1;
}

/* One build: a private folder, its files, the argv of each compiler run. */
typedef struct {
    char dir[64];
    char src[96], pre[96], wrapped[96], obj[96], log[96];
    char cached[96]; /* an object from the cache, checked (objcache.h) */
    char *argv[160];
    char *opts_buf;
    int argc_fixed; /* words before the per-run ones */
} build;

static int build_open(build *b, const char *options)
{
    memset(b, 0, sizeof *b);
    const char *tmp = getenv("TMPDIR");
    snprintf(b->dir, sizeof b->dir, "%s/lbmprobe-omp-XXXXXX", tmp && *tmp && strlen(tmp) < 32 ? tmp : "/tmp");
    if (!mkdtemp(b->dir)) return -1;
    snprintf(b->src, sizeof b->src, "%s/kernel.c", b->dir);
    snprintf(b->pre, sizeof b->pre, "%s/kernel.i", b->dir);
    snprintf(b->wrapped, sizeof b->wrapped, "%s/wrapped.i", b->dir);
    snprintf(b->obj, sizeof b->obj, "%s/kernel.so", b->dir);
    snprintf(b->log, sizeof b->log, "%s/log", b->dir);
    snprintf(b->cached, sizeof b->cached, "%s/cached.so", b->dir);
    lbp_cleanup_add_folder(b->dir, (const char *const[]){b->src, b->pre, b->wrapped, b->obj, b->log, b->cached}, 6);
    int n, a = 0;
    char **cc = compiler_words(&n);
    for (int i = 0; i < n; i++) b->argv[a++] = cc[i];
    for (int i = 0; base_flags[i]; i++) b->argv[a++] = (char *)base_flags[i];
    b->argv[a++] = "-DLBP_OPENMP=1";
    const char *extra = getenv("LBP_OMP_CFLAGS");
    size_t len = strlen(options) + (extra ? strlen(extra) : 0) + 2;
    b->opts_buf = malloc(len);
    snprintf(b->opts_buf, len, "%s %s", extra ? extra : "", options);
    for (char *w = strtok(b->opts_buf, " \t\n"); w && a < 140; w = strtok(NULL, " \t\n")) b->argv[a++] = w;
    b->argc_fixed = a;
    return 0;
}

static void build_close(build *b)
{
    lbp_cleanup_forget_folder(b->dir, (const char *const[]){b->src, b->pre, b->wrapped, b->obj, b->log, b->cached}, 6);
    if (getenv("LBP_OMP_KEEP")) { /* to read what was compiled, and the assembly */
        fprintf(stderr, "lbmprobe: openmp: LBP_OMP_KEEP: the build is kept in %s\n", b->dir);
        free(b->opts_buf);
        return;
    }
    const char *files[] = {b->src, b->pre, b->wrapped, b->obj, b->log, b->cached};
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) unlink(files[i]);
    rmdir(b->dir);
    free(b->opts_buf);
}

/* The compiler's words for in_path with the given extra ones. */
static char *const *compiler_argv(build *b, const char *const *words, const char *in_path)
{
    int a = b->argc_fixed;
    for (int i = 0; words[i]; i++) b->argv[a++] = (char *)words[i];
    b->argv[a++] = (char *)in_path;
    b->argv[a] = NULL;
    return b->argv;
}

/* The compiler on in_path with the given extra words; 0 or -1. */
static int compile_step(build *b, const char *const *words, const char *in_path)
{
    return run_logged(compiler_argv(b, words, in_path), b->log) == 0 ? 0 : -1;
}

static void report_failure(const build *b, const char *what, const char *full_source)
{
    char *log = read_file(b->log);
    char none[512];
    snprintf(none, sizeof none, "(no compiler output: '%s' did not run, or %s was removed meanwhile)", b->argv[0],
             b->dir);
    lbp_print_compile_log("openmp", what, log && *log ? log : none, full_source);
    free(log);
}

/* RTLD_NODELETE: a kernel object stays mapped after dlclose, and with it
 * the OpenMP runtime it loaded: unloading the runtime with the last object
 * unmaps the code its idle pool threads still sleep in (a crash at exit).
 * An object is some kilobytes. */
static int load(build *b, const char *what, lbp_cjit_object *out)
{
    out->handle = dlopen(b->obj, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
    if (!out->handle) {
        fprintf(stderr, "lbmprobe: openmp: loading the object compiled from '%s' failed: %s\n", what, dlerror());
        return -1;
    }
    return 0;
}

int lbp_cjit_build_plain(const char *source, const char *what, lbp_cjit_object *out)
{
    memset(out, 0, sizeof *out);
    build b;
    if (build_open(&b, "") != 0) {
        fprintf(stderr, "lbmprobe: openmp: cannot create a temporary folder: %s\n", strerror(errno));
        return -1;
    }
    const char *const words[] = {"-shared", "-o", b.obj, NULL};
    int rc = write_file(b.src, source);
    if (rc == 0 && (rc = compile_step(&b, words, b.src)) != 0) report_failure(&b, what, source);
    if (rc == 0) rc = load(&b, what, out);
    build_close(&b);
    return rc;
}

/* ---- the object cache (cjit.h) ------------------------------------------ */

static int compiles; /* final compiles started (lbp_cjit_compiles) */

int lbp_cjit_compiles(void) { return compiles; }

/* s into two 64-bit FNV-1a hashes of different bases (128 bits of name) */
static void fnv(uint64_t h[2], const char *s)
{
    for (int k = 0; k < 2; k++) {
        uint64_t x = h[k];
        for (const char *c = s; *c; c++) x = (x ^ (unsigned char)*c) * 0x100000001b3ull;
        h[k] = (x ^ 0xff) * 0x100000001b3ull; /* a separator: "ab"+"c" differs from "a"+"bc" */
    }
}

/* The cached object's name (objcache.h) for the compiler, its words, the
 * entry and the kernel's full source (what the object is made from: the
 * headers it includes are the compiler's, named by its version line); ""
 * where it cannot be named. */
static void cache_name(char *out, size_t len, char *const *argv, const char *entry, const char *full_source)
{
    out[0] = 0;
    uint64_t h[2] = {0xcbf29ce484222325ull, 0x84222325cbf29ce4ull};
    fnv(h, lbp_cjit_compiler_version());
    for (int i = 0; argv[i]; i++) fnv(h, argv[i]);
    /* -march=native: the objects are this processor's (a cache folder a
     * home directory shares between machines keeps each one's apart) */
    static char cpu[4096];
    if (!*cpu) {
        FILE *f = fopen("/proc/cpuinfo", "r");
        char line[4096];
        int got = 0;
        while (f && got < 2 && fgets(line, sizeof line, f))
            if (!strncmp(line, "model name", 10) || !strncmp(line, "flags", 5)) {
                snprintf(cpu + strlen(cpu), sizeof cpu - strlen(cpu), "%s", line);
                got++;
            }
        if (f) fclose(f);
        if (!*cpu) snprintf(cpu, sizeof cpu, "unknown");
    }
    fnv(h, cpu);
    /* the wrapper lbp_cjit_wrap writes around the entry, as it wraps a
     * sample: a change to it is another object */
    static char *wrapper;
    if (!wrapper) {
        static const char sample[] = "void k(float *a, long n, int m) { a[0] = (float)n + (float)m; }\n";
        lbp_cjit_entry e;
        char why[256];
        wrapper = lbp_cjit_parse_entry(sample, "k", &e, why, sizeof why) == 0 ? lbp_cjit_wrap(sample, "k", &e) : NULL;
        if (!wrapper) return;
    }
    fnv(h, wrapper);
    fnv(h, entry);
    fnv(h, full_source);
    snprintf(out, len, "%016llx%016llx" LBP_OBJCACHE_SUFFIX, (unsigned long long)h[0], (unsigned long long)h[1]);
}

/* A kernel's compile: preprocessed and wrapped at once, the compiler then
 * running on its own until lbp_cjit_finish_kernel waits for it. */
struct lbp_cjit_job {
    build b;
    pid_t compiler;      /* the final compile, running; -1 none */
    int failed;          /* 1: preprocessing failed; 2: the entry not found (why) */
    char why[512];
    char entry[128];
    lbp_cjit_entry parsed;
    lbp_objcache cache; /* fd -1: none */
    char name[64];      /* the object's record in it */
    int hit;            /* 1: its checked bytes in b.cached, no compile */
    pid_t owner;        /* the process that started it */
    struct lbp_cjit_job *next; /* among the unfinished */
};

/* Jobs started and not finished.  A process that exits meanwhile (a usage
 * error found while its prefetched compilers run) waits for their
 * compilers (a compile is a second; one killed leaves its driver's
 * temporary files in TMPDIR) and removes their build folders; a forked
 * child that exits leaves its parent's alone. */
static lbp_cjit_job *unfinished;

static void remove_unfinished(void)
{
    for (lbp_cjit_job *j = unfinished; j; j = j->next) {
        if (j->owner != getpid()) continue;
        wait_exit(j->compiler);
        j->compiler = -1;
        build_close(&j->b);
    }
}

static void track(lbp_cjit_job *j)
{
    static int registered;
    if (!registered++) atexit(remove_unfinished);
    j->owner = getpid();
    j->next = unfinished;
    unfinished = j;
}

static void untrack(lbp_cjit_job *j)
{
    for (lbp_cjit_job **p = &unfinished; *p; p = &(*p)->next)
        if (*p == j) {
            *p = j->next;
            return;
        }
}

/* Preprocess, find the entry, wrap it and start the compiler (j->failed
 * where one of those fails). */
static void compile_start(lbp_cjit_job *j, const char *full_source)
{
    const char *const preprocess[] = {"-E", "-o", j->b.pre, NULL};
    char *pre = NULL;
    if (write_file(j->b.src, full_source) != 0 || compile_step(&j->b, preprocess, j->b.src) != 0 ||
        !(pre = read_file(j->b.pre))) {
        j->failed = 1;
    } else if (lbp_cjit_parse_entry(pre, j->entry, &j->parsed, j->why, sizeof j->why) != 0) {
        j->failed = 2;
    } else {
        char *wrapped = lbp_cjit_wrap(pre, j->entry, &j->parsed);
        const char *const words[] = {"-shared", "-o", j->b.obj, "-lm", NULL};
        if (write_file(j->b.wrapped, wrapped) == 0) {
            j->compiler = spawn_logged(compiler_argv(&j->b, words, j->b.wrapped), j->b.log);
            compiles++;
        }
        free(wrapped);
    }
    free(pre);
}

lbp_cjit_job *lbp_cjit_start_kernel(const char *full_source, const char *entry, const char *options)
{
    lbp_cjit_job *j = calloc(1, sizeof *j);
    if (!j) lbp_api_fail("openmp", "calloc", __FILE__, __LINE__, "out of host memory");
    j->compiler = -1;
    snprintf(j->entry, sizeof j->entry, "%s", entry);
    /* the folder first: a bad LBP_OMP_CACHE exits before a build folder is made */
    j->cache.fd = -1;
    if (!getenv("LBP_OMP_KEEP")) lbp_objcache_open(&j->cache); /* a kept build has all its files: not cached */
    if (build_open(&j->b, options) != 0) {
        fprintf(stderr, "lbmprobe: openmp: cannot create a temporary folder: %s\n", strerror(errno));
        lbp_objcache_close(&j->cache);
        free(j);
        return NULL;
    }
    track(j);
    const char *const words[] = {"-shared", "-o", "kernel.so", "-lm", NULL};
    if (j->cache.fd >= 0)
        cache_name(j->name, sizeof j->name, compiler_argv(&j->b, words, "wrapped.i"), entry, full_source);
    j->hit = *j->name && lbp_objcache_load(&j->cache, j->name, &j->parsed, j->b.cached);
    if (!j->hit) compile_start(j, full_source);
    return j;
}

static void job_free(lbp_cjit_job *j)
{
    untrack(j);
    build_close(&j->b);
    lbp_objcache_close(&j->cache);
    free(j);
}

void lbp_cjit_check_cache(void)
{
    if (getenv("LBP_OMP_KEEP")) return;
    lbp_objcache c;
    lbp_objcache_open(&c);
    lbp_objcache_close(&c);
}

/* The wrapper's functions, and the parameter sizes and kinds it reports. */
static int bind_wrapper(lbp_cjit_object *out, const char *entry)
{
    void (*sig)(int *, int *, int *) = (void (*)(int *, int *, int *))dlsym(out->handle, "lbp_signature");
    out->run = (void (*)(void *const *, const long *))dlsym(out->handle, "lbp_run");
    if (!sig || !out->run) {
        fprintf(stderr, "lbmprobe: openmp: the wrapper of '%s' is missing from its object\n", entry);
        return -1;
    }
    int count = 0, bytes[LBP_CJIT_MAX_PARAMS], kinds[LBP_CJIT_MAX_PARAMS];
    sig(&count, bytes, kinds);
    for (int k = 0; k < count && k < out->entry.nparams; k++) {
        out->entry.params[k].bytes = bytes[k];
        out->entry.params[k].kind = kinds[k];
    }
    return 0;
}

int lbp_cjit_finish_kernel(lbp_cjit_job *j, const char *full_source, int quiet, lbp_cjit_object *out)
{
    memset(out, 0, sizeof *out);
    if (!j) return -1;
    if (j->hit && !j->failed) {
        /* the bytes the cache's record was checked against, copied into
         * the build folder (lbp_objcache_load): the process never maps the
         * cache's file, which another may replace */
        out->entry = j->parsed;
        out->handle = dlopen(j->b.cached, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
        if (out->handle && bind_wrapper(out, j->entry) == 0) {
            job_free(j);
            return 0;
        }
        char why[512];
        snprintf(why, sizeof why, "does not load (%s)", out->handle ? "its wrapper is missing" : dlerror());
        lbp_cjit_release(out);
        memset(out, 0, sizeof *out);
        lbp_objcache_drop(&j->cache, j->name, why);
        compile_start(j, full_source);
    }
    const int status = j->compiler >= 0 ? wait_exit(j->compiler) : -1;
    int rc = j->failed || status != 0 ? -1 : 0;
    if (rc && quiet) {
        /* said when asked for again */
    } else if (j->failed == 1) {
        report_failure(&j->b, j->entry, full_source);
    } else if (j->failed == 2) {
        /* a syntax error can hide the definition: the compiler says where */
        const char *const check[] = {"-fsyntax-only", NULL};
        if (compile_step(&j->b, check, j->b.src) != 0) report_failure(&j->b, j->entry, full_source);
        else fprintf(stderr, "lbmprobe: openmp: kernel '%s': %s\n", j->entry, j->why);
    } else if (rc) {
        report_failure(&j->b, j->entry, full_source);
    }
    if (rc == 0 && getenv("LBP_OMP_LOG")) {
        char *log = read_file(j->b.log);
        if (log && *log) fprintf(stderr, "lbmprobe: openmp: compiler output for '%s':\n%s", j->entry, log);
        free(log);
    }
    out->entry = j->parsed;
    if (rc == 0) rc = load(&j->b, j->entry, out);
    if (rc == 0) rc = bind_wrapper(out, j->entry);
    if (rc == 0 && *j->name) lbp_objcache_store(&j->cache, j->name, &j->parsed, j->b.obj);
    if (rc != 0) lbp_cjit_release(out);
    job_free(j);
    return rc;
}

int lbp_cjit_build_kernel(const char *full_source, const char *entry, const char *options, lbp_cjit_object *out)
{
    return lbp_cjit_finish_kernel(lbp_cjit_start_kernel(full_source, entry, options), full_source, 0, out);
}

void *lbp_cjit_symbol(const lbp_cjit_object *o, const char *name)
{
    return o->handle ? dlsym(o->handle, name) : NULL;
}

void lbp_cjit_release(lbp_cjit_object *o)
{
    if (o->handle) dlclose(o->handle);
    o->handle = NULL;
    o->run = NULL;
}
