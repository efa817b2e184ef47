/* The OpenMP backend's cache of compiled kernel objects (cjit.h), kept
 * across processes, and trusted only as far as it is checked (issue 55).
 *
 * The folder ($LBP_OMP_CACHE, else $XDG_CACHE_HOME/lbmprobe/openmp, else
 * ~/.cache/lbmprobe/openmp; made 0700 where missing) must be a folder owned
 * by this user and writable by nobody else: anyone else who can write there
 * chooses the code a run executes.  A bad LBP_OMP_CACHE (too long, not a
 * folder, not private, not creatable) stops the tool with one line (exit 2);
 * a bad default folder is one warning line, and the run goes on without a
 * cache.  LBP_OMP_CACHE=off: no cache.
 *
 * Each object is one file, "<32 hex digits>.lbpobj" (the name: a hash of
 * what the object is made from, cjit.c), a record: a head, the kernel's
 * parsed entry, the object's bytes, and in the head a SHA-256 of the entry
 * and the object.  It is written to a new file of a random name
 * (O_CREAT | O_EXCL | O_NOFOLLOW), fsynced and renamed into place: one
 * file, one rename, so two processes storing the same kernel leave one
 * whole record.  It is read through O_NOFOLLOW as a regular file of at most
 * LBP_OBJCACHE_MAX bytes, whole, into memory; checked there; and the
 * object's bytes it checked are written to a new file in the caller's
 * private build folder, which is what dlopen loads.  A record that fails
 * any of this is removed, with one warning line naming the cache, and the
 * kernel is compiled again. */
#ifndef LBP_OBJCACHE_H
#define LBP_OBJCACHE_H

#include <stddef.h>

#include "cjit.h"

#define LBP_OBJCACHE_MAX ((size_t)64 << 20) /* objects are tens of kilobytes */
#define LBP_OBJCACHE_SUFFIX ".lbpobj"     /* a record's name: 32 hex digits, then this */

typedef struct {
    int fd;    /* the folder, opened and checked; -1: no cache */
    char *dir; /* its path, for messages */
} lbp_objcache;

/* The cache folder, checked, with a descriptor of its own (close it with
 * lbp_objcache_close): 1, or 0 where there is none (c->fd -1). */
int lbp_objcache_open(lbp_objcache *c);
void lbp_objcache_close(lbp_objcache *c);

/* The record name: 1 with its entry in *e and its object's bytes written to
 * obj_path (a file this creates); 0 where there is none, or it was damaged
 * (then removed, with one warning line), or obj_path could not be written. */
int lbp_objcache_load(const lbp_objcache *c, const char *name, lbp_cjit_entry *e, const char *obj_path);
/* The object at obj_path (just compiled, in a private folder) and its entry
 * as the record name; quiet where it cannot (a cache is an optimization). */
void lbp_objcache_store(const lbp_objcache *c, const char *name, const lbp_cjit_entry *e, const char *obj_path);
/* The record name removed, with one warning line saying why. */
void lbp_objcache_drop(const lbp_objcache *c, const char *name, const char *why);

/* A record of the entry and object_len bytes of object (caller frees), its
 * length in *len. */
unsigned char *lbp_objcache_record(const lbp_cjit_entry *e, const void *object, size_t object_len, size_t *len);
/* Check a record of len bytes: 0 with the entry in *e and the object at
 * rec + *object_at, *object_len bytes; or -1 with why. */
int lbp_objcache_check(const unsigned char *rec, size_t len, lbp_cjit_entry *e, size_t *object_at,
                       size_t *object_len, char *why, size_t why_len);

#endif
