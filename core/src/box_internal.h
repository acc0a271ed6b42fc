/* SPDX-License-Identifier: Apache-2.0 */
/*
 * box_internal.h — what box.c and prepare.c share (not installed).
 *
 * Guarantees: sc_box_inspect runs 16.1 steps 4-11 on one open descriptor,
 * so the bytes that were sized and hashed are the bytes that are inspected
 * and, by prepare, extracted.
 */
#ifndef SC_BOX_INTERNAL_H
#define SC_BOX_INTERNAL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include <pthread.h>

#include "progress_internal.h"
#include "scrollcase/archive_read.h"
#include "scrollcase/box.h"

char *sc_box_strndup(const char *s, size_t n);

/* The archive's SHA-256 (step 6), possibly still running on its thread. */
typedef struct sc_box_hash_job {
    int fd;
    const char *name;
    const struct sc_release *r;
    int pending;         /* started, not yet waited for */
    int threaded;        /* on a thread of its own */
    int meter_on_thread; /* the thread sends the byte counts */
    pthread_t thread;
    sc_progress_meter meter;
    sc_code code;
    sc_error err;
} sc_box_hash_job;

/* An inspected archive: its descriptor (owned), its reader (owned) and its
 * hash (sc_box_archive_hashed waits for it). */
typedef struct sc_box_archive {
    int fd;
    sc_zip *zip;
    sc_box_hash_job hash;
    /* fstat of fd right before its bytes were hashed, and when that was
     * (CLOCK_REALTIME, ns): sc_box_archive_unchanged compares against it. */
    struct stat st;
    int64_t hashed_at_ns;
} sc_box_archive;

/*
 * Whether the archive behind a->fd is still the one inspected, without
 * reading it again when its stamp says so: same device, inode, size, mtime
 * and ctime as when it was hashed, both times more than
 * SC_PAYLOAD_RACY_NS before the hashing (the kernel moves ctime on every
 * write and nothing moves it back).  Otherwise the archive is hashed again:
 * a different hash is `mismatch`; that reading is a "hash" step heard by
 * o's progress function (o may be NULL; o->jobs as in sc_box_inspect_with).
 */
sc_code sc_box_archive_unchanged(const sc_box_archive *a, const char *name,
                                 const sc_release *r, sc_code mismatch, const sc_box_options *o,
                                 sc_error *err);

/* 16.1 steps 4-11 with o's jobs and progress (o may be NULL: the
 * defaults).  On success *a is open (sc_box_archive_close).  The hash
 * (step 6) and the inspection run side by side when o's jobs allow two;
 * the result is what the order of 16.1 gives. */
sc_code sc_box_inspect_with(const sc_release *r, const char *archive_path,
                            const sc_box_options *o, sc_box_archive *a, sc_box_report *report,
                            sc_error *err);

/*
 * Steps 4-11 with the hash left running: on success *a is open and its
 * hash may still be under way; the caller MUST call sc_box_archive_hashed
 * before it relies on the archive (moves anything into place, reports
 * success), and a failure there is the failure to report, before any
 * failure of what it did meanwhile with the inspected archive.  On a
 * failure of steps 7-11 the hash is waited for first: its failure wins.
 * hash_progress: the hashing thread may send the "hash" step's byte counts
 * (set it only when nothing else reports progress until the wait; else the
 * step reports its start now and its end at the wait).
 */
sc_code sc_box_inspect_deferred(const sc_release *r, const char *archive_path,
                                const sc_box_options *o, int hash_progress, sc_box_archive *a,
                                sc_box_report *report, sc_error *err);

/* Whether a's file is no longer the one fstat saw right before the hash
 * began (device, inode, size, mtime or ctime moved; or fstat fails). */
int sc_box_archive_moved(const sc_box_archive *a);

/* Wait for a's hash; its outcome (archive-hash on a difference).  Idempotent:
 * a second call returns the same code (and copies the error again). */
sc_code sc_box_archive_hashed(sc_box_archive *a, sc_error *err);

/* The SHA-256 of the whole descriptor, compared with the release's:
 * mismatch is the code of a difference (archive-hash, archive-changed).
 * meter (may be NULL) counts the bytes hashed. */
sc_code sc_box_hash_fd(int fd, const char *name, const sc_release *r,
                       sc_code mismatch, sc_progress_meter *meter, sc_error *err);

void sc_box_archive_close(sc_box_archive *a);

/* "/abs/path" made from path lexically ("." and ".." folded, never
 * resolving a link).  NULL on OOM or when the working directory is
 * unknown. */
char *sc_box_absolute(const char *path);

#endif
