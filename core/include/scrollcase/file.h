/* SPDX-License-Identifier: Apache-2.0 */
/*
 * file.h — whole-file reading, atomic writing and path joining.
 *
 * Guarantees: sc_file_write_atomic never leaves a half-written file at the
 * destination or a temporary file beside it: it writes "<dir>/.<name>.tmp-XXXXXX"
 * with O_EXCL, fsyncs it, sets the exact mode (independent of umask), renames
 * it over the destination and fsyncs the directory.
 */
#ifndef SCROLLCASE_FILE_H
#define SCROLLCASE_FILE_H

#include <stddef.h>
#include <sys/stat.h>

#include "scrollcase/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Largest file sc_file_read accepts (documents and scrolls are small). */
#define SC_FILE_READ_MAX ((size_t)64 * 1024 * 1024)

/* What sc_file_open_regular found when it did not open a regular file. */
typedef enum sc_file_kind {
    SC_FILE_REGULAR = 0,  /* opened */
    SC_FILE_MISSING,      /* no such file (ENOENT, or ENOTDIR: a leading component is a file) */
    SC_FILE_NOT_REGULAR,  /* a directory, FIFO, socket, device (or, with
                             SC_FILE_NOFOLLOW, a link) */
    SC_FILE_UNREADABLE    /* any other failure (permission, I/O) */
} sc_file_kind;

/* sc_file_open_regular flags. */
#define SC_FILE_NOFOLLOW 1u /* a link as the last component is refused */

/*
 * The one way a file named by a path is opened for reading: O_RDONLY |
 * O_CLOEXEC | O_NONBLOCK (so that opening a FIFO never waits for a writer),
 * O_NOFOLLOW with SC_FILE_NOFOLLOW; then fstat of the descriptor, and only a
 * regular file is kept (O_NONBLOCK is cleared again).  On success *fd is the
 * open descriptor (caller closes), *st (if not NULL) its fstat.  Otherwise
 * *fd is -1, *kind (if not NULL) says what was found and SC_E_IO is returned
 * with a message naming path; callers with a code of their own for a
 * missing or non-regular file (archive-not-found) map *kind to it.
 */
sc_code sc_file_open_regular(const char *path, unsigned flags, int *fd, struct stat *st,
                             sc_file_kind *kind, sc_error *err);

/*
 * Read all of path into a NUL-terminated buffer (caller frees).
 * A missing file is SC_E_IO with err->path = path and the errno text;
 * *missing (if not NULL) is set to 1 when the file does not exist.
 * Opened with sc_file_open_regular: a directory, FIFO, socket or device is
 * SC_E_IO ("not a regular file") and never blocks.
 */
sc_code sc_file_read(const char *path, char **bytes, size_t *len,
                     int *missing, sc_error *err);

/*
 * sc_file_read with a format's own size cap: a file larger than max bytes
 * (max at most SC_FILE_READ_MAX) is not read and is too_large — the code the
 * format gives an over-sized file (invalid-lock for a pixi.lock over 64 MiB,
 * invalid-pixi-toml for a pixi.toml over 1 MiB), not io-error, which is for
 * a file the system could not read.  sc_file_read is this with
 * SC_FILE_READ_MAX and SC_E_IO.
 */
sc_code sc_file_read_bounded(const char *path, size_t max, sc_code too_large, char **bytes,
                             size_t *len, int *missing, sc_error *err);

/*
 * A localFiles source (format-v3 20.3): <root>/<rel> with every symbolic
 * link followed, in the last component or above it.  *real (caller frees) is
 * the file reached.  It must lie inside root, links resolved there too
 * (else SC_E_UNSAFE_PATH: a link leading out of the project, which would
 * put a file from elsewhere, such as a key, into the box), and be a regular
 * file (else SC_E_LOCAL_FILE_MISSING, a dangling link included).
 */
sc_code sc_file_resolve_local(const char *root, const char *rel, char **real, sc_error *err);

/* Write len bytes to path atomically with permission bits mode. */
sc_code sc_file_write_atomic(const char *path, const void *bytes, size_t len,
                             unsigned mode, sc_error *err);

/*
 * Write len bytes to a path that must not exist yet, as completely as
 * sc_file_write_atomic but never replacing anything: if path exists (even
 * when it appears meanwhile) nothing is written, *existed (if not NULL) is
 * set to 1 and SC_E_IO is returned.
 */
sc_code sc_file_write_new(const char *path, const void *bytes, size_t len,
                          unsigned mode, int *existed, sc_error *err);

/* "a" + "/" + "b" (b may be absolute: then a copy of b).  NULL on OOM. */
char *sc_path_join(const char *a, const char *b);

/* 1 if path is an existing directory (following links), else 0. */
int sc_is_dir(const char *path);

/* 1 if path is an existing regular file (following links), else 0. */
int sc_is_file(const char *path);

/*
 * 1 when the filesystem holding the open file fd keeps nanosecond
 * timestamps that only this host's kernel sets (ext2/3/4, XFS, Btrfs, tmpfs,
 * F2FS, overlayfs): there an unchanged (device, inode, size, mtime, ctime)
 * shows an unchanged file, and a later pass may skip reading it again.  0
 * anywhere else — NFS, SMB and FUSE (cached or server-set attributes), FAT
 * and exFAT (coarse times), an unknown filesystem, or an fd fstatfs refuses.
 */
int sc_file_stamps_trusted(int fd);
/* The same for a path (followed). */
int sc_file_stamps_trusted_path(const char *path);

/*
 * Remove path and everything below it without following a link (a link is
 * unlinked, never entered).  A missing path is success.  Any depth, any
 * path length: iterative, one directory open at a time (openat, and
 * openat(fd, "..") on the way back, checked against the device and inode
 * entered for the nearest 64 levels).  Made of system calls only (no
 * allocation), so a signal handler that is about to end the process may call
 * sc_file_remove_at.
 */
sc_code sc_file_remove_tree(const char *path, sc_error *err);
/* The same for name under the directory descriptor parent (AT_FDCWD for a
 * path); 0 or -1 with errno set. */
int sc_file_remove_at(int parent, const char *name);

/* ---- the tree walker --------------------------------------------------- */

/* One entry the walker visits. */
typedef struct sc_walk_entry {
    const char *path;      /* relative to the root, '/'-joined, NUL-terminated */
    size_t path_len;
    const char *name;      /* the last segment (points into path) */
    int dirfd;             /* the directory holding it, open during the call */
    const struct stat *st; /* its lstat */
    size_t depth;          /* 1 for the root's own entries */
    int post;              /* 1: a directory, called again after its contents */
} sc_walk_entry;

/*
 * Called for every entry.  Returning an error stops the walk with it; for a
 * directory (post 0), setting *skip keeps the walker out of it.
 */
typedef sc_code (*sc_walk_fn)(void *ctx, const sc_walk_entry *e, int *skip, sc_error *err);

#define SC_WALK_SORTED 1u /* each directory's names in byte order (else as listed) */
#define SC_WALK_POST 2u   /* call again for each directory after its contents */

/*
 * Walk everything below the directory root, depth first, never following a
 * link: iterative (no depth limit, no recursion), every entry reached with
 * openat/fstatat from its own directory (no PATH_MAX), and at most two
 * descriptors open at a time: the way back up is openat(fd, "..") checked
 * against the device and inode of the directory entered.  An entry that
 * vanishes between listing and fstatat is skipped.  Failures: SC_E_IO naming
 * the path (a directory that cannot be read or changed while walked), or
 * the callback's code.
 */
sc_code sc_file_walk(const char *root, unsigned flags, sc_walk_fn fn, void *ctx, sc_error *err);

#ifdef __cplusplus
}
#endif

#endif
