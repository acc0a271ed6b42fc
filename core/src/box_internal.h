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

#include "scrollcase/archive_read.h"
#include "scrollcase/box.h"

char *sc_box_strndup(const char *s, size_t n);

/* An inspected archive: its descriptor (owned) and its reader (owned). */
typedef struct sc_box_archive {
    int fd;
    sc_zip *zip;
} sc_box_archive;

/* 16.1 steps 4-11.  On success *a is open (sc_box_archive_close). */
sc_code sc_box_inspect(const sc_release *r, const char *archive_path,
                       sc_box_archive *a, sc_box_report *report, sc_error *err);

/* The SHA-256 of the whole descriptor, compared with the release's:
 * mismatch is the code of a difference (archive-hash, archive-changed). */
sc_code sc_box_hash_fd(int fd, const char *name, const sc_release *r,
                       sc_code mismatch, sc_error *err);

void sc_box_archive_close(sc_box_archive *a);

/* "/abs/path" made from path lexically ("." and ".." folded, never
 * resolving a link).  NULL on OOM or when the working directory is
 * unknown. */
char *sc_box_absolute(const char *path);

#endif
