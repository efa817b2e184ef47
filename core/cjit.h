/* Kernel text compiled at run time by the host's C compiler into a shared
 * object and loaded with dlopen: to the openmp backend what NVRTC is to the
 * CUDA one.
 *
 * The compiler is $CC (words split at blanks) or `cc`; it runs in a private
 * temporary folder, removed once the object is loaded, with
 * -O3 -march=native -fopenmp -fno-trapping-math -fno-math-errno -fPIC
 * -shared and then $LBP_OMP_CFLAGS (say
 * "-fopt-info-vec-optimized" with LBP_OMP_LOG=1 to see what it vectorized;
 * LBP_OMP_KEEP=1 keeps the folder, to read the text it compiled).
 *
 * A kernel's entry becomes callable from the host through a wrapper the
 * layer generates from the preprocessed text: it reads the parameter list of
 * the entry's definition, inserts the work-item ids as a hidden first
 * parameter (core/openmp_prelude.h) and appends
 *   void lbp_signature(int *count, int *bytes, int *kinds)
 *   void lbp_run(void *const *args, const long *shape)
 * where lbp_run takes a pointer to each argument's value and the launch
 * shape (LBP_CJIT_SHAPE_*), and runs the groups in an OpenMP loop with a
 * static schedule, the work-items of a group in a loop inside it. */
#ifndef LBP_CJIT_H
#define LBP_CJIT_H

#include <stddef.h>

#define LBP_CJIT_MAX_PARAMS 64

/* The kinds __builtin_classify_type reports (GCC's and Clang's numbering). */
enum { LBP_CJIT_INTEGER = 1, LBP_CJIT_POINTER = 5, LBP_CJIT_REAL = 8 };

typedef struct {
    char name[64];
    char decl[256]; /* the declaration as written, macros expanded */
    int bytes;      /* sizeof, from the compiled object */
    int kind;       /* LBP_CJIT_* */
} lbp_cjit_param;

/* What the wrapper generator learned of an entry from the preprocessed
 * text. */
typedef struct {
    int nparams;            /* not counting the dynamic shared memory */
    lbp_cjit_param params[LBP_CJIT_MAX_PARAMS];
    int dyn_shared;         /* declares DYN_SHARED_PARAM */
    int uses_barrier;       /* LOCAL_BARRIER in the entry's body */
    int ids_outside_entry;  /* ids read outside the entry's body: the
                               wrapper keeps the thread-local copy */
    size_t params_open;     /* offset of the '(' of the entry's parameters */
    size_t params_close;    /* and of its ')' */
} lbp_cjit_entry;

/* The launch shape lbp_run takes: shape[LBP_CJIT_SHAPE_GRID + d] groups and
 * shape[LBP_CJIT_SHAPE_BLOCK + d] work-items per group along d, dynamic
 * shared bytes per group, OpenMP threads. */
enum { LBP_CJIT_SHAPE_GRID = 0, LBP_CJIT_SHAPE_BLOCK = 3, LBP_CJIT_SHAPE_SHARED = 6,
       LBP_CJIT_SHAPE_THREADS = 7, LBP_CJIT_SHAPE_LEN = 8 };

/* Find entry's definition in preprocessed C text and read its parameters.
 * Returns 0, or -1 with why (no definition, an array parameter, too many). */
int lbp_cjit_parse_entry(const char *pre, const char *entry, lbp_cjit_entry *out, char *why, size_t why_len);

/* The preprocessed text with the ids parameter inserted into the entry and
 * the wrapper appended (caller frees). */
char *lbp_cjit_wrap(const char *pre, const char *entry, const lbp_cjit_entry *e);

/* A loaded object. */
typedef struct {
    void *handle;
    void (*run)(void *const *args, const long *shape); /* NULL for plain_source */
    lbp_cjit_entry entry;
} lbp_cjit_object;

/* The compiler, its version line and the flags every object is built with,
 * for a device description ("gcc (Debian 12.2.0-14) 12.2.0"); "" where the
 * compiler does not answer. */
const char *lbp_cjit_compiler_version(void);
/* 1 when the compiler can be found on PATH; else 0 with why. */
int lbp_cjit_available(char *why, size_t why_len);

/* Compile full_source (the prelude already in front, ending in "#line 1")
 * with options (-DNAME[=VALUE] words) into an object whose lbp_run runs
 * entry.  Returns 0, or -1 after printing the compiler's log and the source
 * lines it names (or one line saying what else went wrong). */
int lbp_cjit_build_kernel(const char *full_source, const char *entry, const char *options, lbp_cjit_object *out);
/* The same in two halves, so that several compilers run at once: start
 * preprocesses, wraps and starts the compiler (NULL only where no
 * temporary folder could be made); finish waits for it, reports as
 * lbp_cjit_build_kernel does (full_source the same; quiet: a failure
 * without its log), loads, and frees the job.  A job must be finished. */
typedef struct lbp_cjit_job lbp_cjit_job;
lbp_cjit_job *lbp_cjit_start_kernel(const char *full_source, const char *entry, const char *options);
int lbp_cjit_finish_kernel(lbp_cjit_job *job, const char *full_source, int quiet, lbp_cjit_object *out);
/* Kernel objects are kept in a cache folder ($LBP_OMP_CACHE, else
 * $XDG_CACHE_HOME/lbmprobe/openmp, else ~/.cache/lbmprobe/openmp;
 * LBP_OMP_CACHE=off: none; LBP_OMP_KEEP: not used), named by a hash of
 * the processor's model and flags (-march=native), the compiler's version
 * line, its words, the wrapper and the kernel's full source, its parsed
 * entry in the same file: the same kernel is compiled once per processor
 * and compiler, and loaded from there after, once its SHA-256 matches
 * (objcache.h: the folder must be private; a damaged object is removed and
 * compiled again).  How many compiles this process started (the cache's
 * misses): */
int lbp_cjit_compiles(void);
/* Open and check the cache folder now, so that a bad LBP_OMP_CACHE stops a
 * tool (one line, exit 2) before it compiles or measures anything. */
void lbp_cjit_check_cache(void);
/* Compile plain C (no wrapper) into an object; same returns. */
int lbp_cjit_build_plain(const char *source, const char *what, lbp_cjit_object *out);
void *lbp_cjit_symbol(const lbp_cjit_object *o, const char *name);
void lbp_cjit_release(lbp_cjit_object *o);

#endif
