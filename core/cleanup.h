/* Temporary files and folders a process made and has not yet renamed or
 * removed itself (a result's temp file, a compile's folder), removed when
 * it ends first: at exit (lbp_fail, a usage error) and on a fatal signal
 * (SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGSEGV, SIGBUS, SIGFPE, SIGILL,
 * SIGABRT), which then does what it did before.  A path is removed only by
 * the process that registered it (a forked child leaves its parent's). */
#ifndef LBP_CLEANUP_H
#define LBP_CLEANUP_H

/* path: a file, or a folder emptied by the files registered after it
 * (the newest are removed first). */
void lbp_cleanup_add(const char *path);
/* The path is the caller's again (renamed, removed or kept on purpose). */
void lbp_cleanup_forget(const char *path);

/* A folder and the n files in it, as one. */
void lbp_cleanup_add_folder(const char *dir, const char *const *files, int n);
void lbp_cleanup_forget_folder(const char *dir, const char *const *files, int n);

#endif
