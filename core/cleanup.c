/* Temporary paths removed when a process ends early: see cleanup.h. */
#include "cleanup.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A list the signal handler can walk: a node is whole before it is linked
 * at the head, and unlinked before it is freed (one thread registers; the
 * handler interrupts it, never runs beside it). */
typedef struct node {
    struct node *next;
    pid_t pid;
    char path[];
} node;

static node *volatile head;

static const int fatal[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT};
#define N_FATAL (sizeof fatal / sizeof *fatal)
static struct sigaction before[N_FATAL];

/* Only calls that are safe in a signal handler: getpid, unlink, rmdir. */
static void remove_all(void)
{
    const pid_t me = getpid();
    for (node *n = head; n; n = n->next)
        if (n->pid == me && unlink(n->path) != 0) rmdir(n->path);
}

/* The paths removed, then the signal again under the action it had (the
 * default ends the process as it would have; a sanitizer's reports it): a
 * fault the kernel raised (si_code > 0) by returning to the instruction,
 * which faults again with its own address, any other by raise. */
static void on_fatal(int sig, siginfo_t *info, void *context)
{
    (void)context;
    remove_all();
    for (size_t i = 0; i < N_FATAL; i++)
        if (fatal[i] == sig) sigaction(sig, &before[i], NULL);
    const int fault = sig == SIGSEGV || sig == SIGBUS || sig == SIGFPE || sig == SIGILL;
    if (!(fault && info && info->si_code > 0)) raise(sig);
}

static void install(void)
{
    static int done;
    if (done) return;
    done = 1;
    atexit(remove_all);
    for (size_t i = 0; i < N_FATAL; i++) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_sigaction = on_fatal;
        sa.sa_flags = SA_SIGINFO;
        sigemptyset(&sa.sa_mask);
        if (sigaction(fatal[i], NULL, &before[i]) != 0) continue;
        /* an ignored signal (nohup's SIGHUP) stays ignored */
        if (before[i].sa_handler == SIG_IGN && !(before[i].sa_flags & SA_SIGINFO)) continue;
        sigaction(fatal[i], &sa, NULL);
    }
}

void lbp_cleanup_add(const char *path)
{
    const size_t len = strlen(path) + 1;
    node *n = malloc(sizeof *n + len);
    if (!n) return; /* not removed at an early end: the next run's claim removes a result's temp file */
    install();
    memcpy(n->path, path, len);
    n->pid = getpid();
    n->next = head;
    head = n;
}

void lbp_cleanup_forget(const char *path)
{
    const pid_t me = getpid();
    for (node *volatile *at = &head; *at; at = &(*at)->next) {
        node *n = *at;
        if (n->pid != me || strcmp(n->path, path)) continue;
        *at = n->next;
        free(n);
        return;
    }
}

void lbp_cleanup_add_folder(const char *dir, const char *const *files, int n)
{
    lbp_cleanup_add(dir);
    for (int i = 0; i < n; i++) lbp_cleanup_add(files[i]);
}

void lbp_cleanup_forget_folder(const char *dir, const char *const *files, int n)
{
    for (int i = 0; i < n; i++) lbp_cleanup_forget(files[i]);
    lbp_cleanup_forget(dir);
}
