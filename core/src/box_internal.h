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

#include "scrollcase/archive_read.h"
#include "scrollcase/box.h"

char *sc_box_strndup(const char *s, size_t n);

/* An inspected archive: its descriptor (owned) and its reader (owned). */
typedef struct sc_box_archive {
    int fd;
    sc_zip *zip;
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

/* 16.1 steps 4-11.  On success *a is open (sc_box_archive_close).  jobs as
 * in sc_box_options. */
sc_code sc_box_inspect(const sc_release *r, const char *archive_path, unsigned jobs,
                       sc_box_archive *a, sc_box_report *report, sc_error *err);

/* The same with o's jobs and progress (o may be NULL: the defaults). */
sc_code sc_box_inspect_with(const sc_release *r, const char *archive_path,
                            const sc_box_options *o, sc_box_archive *a, sc_box_report *report,
                            sc_error *err);

/* The SHA-256 of the whole descriptor, compared with the release's:
 * mismatch is the code of a difference (archive-hash, archive-changed).
 * With jobs (sc_jobs_resolve) of two or more, a second thread reads ahead
 * while the caller's hashes.  meter (may be NULL) counts the bytes hashed. */
struct sc_progress_meter;
sc_code sc_box_hash_fd(int fd, const char *name, const sc_release *r,
                       sc_code mismatch, unsigned jobs, struct sc_progress_meter *meter,
                       sc_error *err);

void sc_box_archive_close(sc_box_archive *a);

/* "/abs/path" made from path lexically ("." and ".." folded, never
 * resolving a link).  NULL on OOM or when the working directory is
 * unknown. */
char *sc_box_absolute(const char *path);

#endif
