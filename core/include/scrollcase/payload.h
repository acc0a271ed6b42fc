/* SPDX-License-Identifier: Apache-2.0 */
/*
 * payload.h — the payload digest sha256-path-list-v1 (docs/format-v3.md 14).
 *
 * Guarantees: the stream of a list is a pure function of its (path, kind,
 * sha256) records, whatever order they were given in or the file system
 * handed them out (records are sorted by their bytes); collection never
 * follows a symbolic link and skips exactly the names of 14.3; the parser
 * accepts only the grammar of 14.2 (it frames records by their NUL and
 * fixed tail, never by LF) and every refusal carries one code; verification
 * hashes the list before parsing it and visits only the listed paths,
 * reaching each one without following a link.  Every entry and list owns its
 * strings; sc_payload_list_free releases them.
 */
#ifndef SCROLLCASE_PAYLOAD_H
#define SCROLLCASE_PAYLOAD_H

#include <stddef.h>
#include <stdint.h>

#include "scrollcase/error.h"
#include "scrollcase/progress.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SC_PAYLOAD_FORMAT "sha256-path-list-v1"
#define SC_PAYLOAD_LIST_NAME "payload-digest.v1"
#define SC_PAYLOAD_LIST_MAX ((uint64_t)256 * 1024 * 1024)
/* Largest logical size a payload may have (2^53 - 1, a JSON-safe integer). */
#define SC_PAYLOAD_SIZE_MAX ((uint64_t)9007199254740991ULL)

typedef enum sc_payload_kind { SC_PAYLOAD_FILE = 'f', SC_PAYLOAD_LINK = 'l' } sc_payload_kind;

typedef struct sc_payload_entry {
    char *path;        /* owned, NUL-terminated UTF-8, '/'-separated, relative */
    size_t path_len;
    sc_payload_kind kind;
    char sha256[65];   /* lowercase hex; "" when collected without SC_PAYLOAD_HASH */
    uint64_t size;     /* lstat size: file bytes; link: length of the target */
    unsigned mode;     /* lstat st_mode & 07777 (0 for parsed lists) */
    char *link_target; /* owned, links only (collected lists); else NULL */
    /* Collected files only.  crc32: zlib's CRC-32 of the bytes, with
     * SC_PAYLOAD_CRC (has_crc 1).  The stamp: what fstat said right before
     * the bytes were hashed, and when (CLOCK_REALTIME) that was; a later
     * collection given this list as its reuse list takes sha256 and crc32
     * from here instead of reading the file again when nothing in the stamp
     * changed and the file's times lie clearly before the hashing. */
    uint32_t crc32;
    int has_crc;
    struct {
        int valid;
        uint64_t dev, ino, size;
        int64_t mtime_ns, ctime_ns, hashed_at_ns;
        unsigned mode;
    } stamp;
} sc_payload_entry;

typedef struct sc_payload_list {
    sc_payload_entry *entries;
    size_t count, cap;
} sc_payload_list;

#define SC_PAYLOAD_HASH 1u /* read and hash every file (and link target) */
#define SC_PAYLOAD_CRC 2u  /* with SC_PAYLOAD_HASH: the CRC-32 of every file as well */

/* Options of sc_payload_collect_with. */
typedef struct sc_payload_options {
    unsigned jobs; /* hashing threads (sc_jobs_resolve: 0 = every CPU of the affinity mask) */
    /* An earlier collection of the same root (or NULL).  A file whose device,
     * inode, size, mode, mtime and ctime equal its record there, and whose
     * mtime and ctime lie more than SC_PAYLOAD_RACY_NS before that record was
     * hashed, keeps the record's sha256 (and crc32) unread.  The kernel sets
     * ctime on every write, truncation, rename or chmod and no call sets it
     * back, so such a file has not changed since (a file changed within the
     * clock's granularity of its hashing is read again).  Taken only on a
     * filesystem whose stamps show every change (sc_file_stamps_trusted) and
     * for files on the root's own device; elsewhere every file is read. */
    const sc_payload_list *reuse;
    /* A second reuse list, collected from root/reuse_under (its paths
     * relative to there), for the entries below that directory: the
     * environment the builder hashed when it copied it in. */
    const sc_payload_list *reuse_sub;
    const char *reuse_under;
    /* Progress of the hashing (progress.h; NULL: none): bytes and files of
     * the files to hash, known once the walk is done; a file whose digest is
     * reused counts as done.  progress_step NULL: "digest". */
    sc_progress_fn progress;
    void *progress_ctx;
    const char *progress_step;
} sc_payload_options;
#define SC_PAYLOAD_RACY_NS ((int64_t)50 * 1000 * 1000)
/* skip what is neither file, link nor directory (a FIFO, socket, device)
 * instead of failing with special-entry: attach ignores extra files (16.3) */
#define SC_PAYLOAD_SKIP_SPECIAL 4u

/*
 * Walk root (a real directory; lstat semantics, links never followed): skip
 * any entry named __pycache__ (subtree) or .DS_Store, any name ending in
 * .pyc (case-sensitive), and payload-digest.v1 at the root; regular file ->
 * FILE, symlink -> LINK (target via readlink), directories are not entries,
 * anything else -> SC_E_SPECIAL_ENTRY naming the path.  Result sorted by
 * path bytes (memcmp, shorter first).  A path that fails sc_path_check
 * (names that are not valid UTF-8 or hold a backslash, a drive prefix at the
 * root) or a link target that is not valid UTF-8 -> SC_E_UNSAFE_PATH.  Two
 * paths equal under ASCII case folding -> SC_E_ENTRY_COLLISION.  Files are
 * hashed with two threads in streaming reads; a file whose size changes
 * while it is read -> SC_E_IO.  out must be empty or zeroed; on failure it
 * is left empty.
 */
sc_code sc_payload_collect(const char *root, unsigned flags, sc_payload_list *out,
                           sc_error *err);

/* sc_payload_collect with options (NULL: every CPU, no reuse). */
sc_code sc_payload_collect_with(const char *root, unsigned flags, const sc_payload_options *o,
                                sc_payload_list *out, sc_error *err);

/*
 * The canonical stream of a list (sorts a private copy of the order; refuses
 * empty path / NUL in path / duplicate path / bad digest / bad kind ->
 * SC_E_INVALID_PAYLOAD_LIST).  *stream is malloc'd (caller frees).
 */
sc_code sc_payload_serialize(const sc_payload_list *list, char **stream, size_t *len,
                             sc_error *err);

/* SHA-256 hex of the stream of list. */
sc_code sc_payload_digest(const sc_payload_list *list, char hex[65], sc_error *err);

/*
 * Strict parser (14.4, never splits on LF): every grammar failure
 * SC_E_INVALID_PAYLOAD_LIST naming the problem; then a path that fails
 * sc_path_check -> SC_E_UNSAFE_PATH; then two paths equal under ASCII case
 * folding -> SC_E_ENTRY_COLLISION.  out must be empty or zeroed; on failure
 * it is left empty.
 */
sc_code sc_payload_parse(const char *bytes, size_t len, sc_payload_list *out, sc_error *err);

/*
 * Extracted-payload verification (14.5): root not an existing real
 * directory (missing, a file, a symlink) -> SC_E_ATTACH_ROOT; list missing
 * (or not a regular file) -> SC_E_PAYLOAD_LIST_MISSING; list larger than
 * SC_PAYLOAD_LIST_MAX -> SC_E_PAYLOAD_LIST_MISMATCH; hash of the list bytes
 * (hashed BEFORE parse) != expected -> SC_E_PAYLOAD_LIST_MISMATCH; parse ->
 * its codes; each listed entry: missing / reached only through a link /
 * wrong kind / wrong hash -> SC_E_PAYLOAD_MISMATCH naming the path.  Only
 * listed paths are visited (extra files, chmod, touch do not matter).
 * *entry_count (may be NULL) = records in the list.  expected_sha256 is 64
 * lowercase hex (else SC_E_USAGE).  Records are checked by two threads; the
 * failure reported is that of the first failing record in list order.
 */
sc_code sc_payload_verify_tree(const char *root, const char *expected_sha256,
                               size_t *entry_count, sc_error *err);

/* sc_payload_verify_tree on jobs threads (sc_jobs_resolve: 0 = every CPU). */
sc_code sc_payload_verify_tree_with(const char *root, const char *expected_sha256,
                                    unsigned jobs, size_t *entry_count, sc_error *err);

/* Options of sc_payload_verify_tree_opts. */
typedef struct sc_payload_verify_options {
    unsigned jobs; /* as sc_payload_verify_tree_with */
    /* Progress (progress.h, step "verify"; NULL: none): files_total is the
     * number of records, files_done the records checked; bytes_done the
     * bytes hashed (file contents and link targets).  bytes_expected is
     * what the caller expects them to add up to (a release's
     * installedSizeBytes less the list file; 0: unknown): the bar's total,
     * never a check. */
    uint64_t bytes_expected;
    sc_progress_fn progress;
    void *progress_ctx;
} sc_payload_verify_options;

/* sc_payload_verify_tree with options (NULL: every CPU, no progress). */
sc_code sc_payload_verify_tree_opts(const char *root, const char *expected_sha256,
                                    const sc_payload_verify_options *o, size_t *entry_count,
                                    sc_error *err);

/* Logical size: sum of entry sizes; more than 2^53-1 -> SC_E_EXTRACTION_LIMIT. */
sc_code sc_payload_measure(const sc_payload_list *list, uint64_t *size, sc_error *err);

/*
 * The logical size of an extracted or built payload (14.3): the measure of
 * its collected list plus the size of the list file payload-digest.v1 at
 * root when that is a regular file (the list is not one of its own records,
 * but it is installed, and installedSizeBytes counts it, as v2 did).
 */
sc_code sc_payload_logical_size(const char *root, const sc_payload_list *list, uint64_t *size,
                                sc_error *err);

/* 1 if a name (one path segment) is skipped by collection at any depth
 * (__pycache__, .DS_Store, *.pyc).  payload-digest.v1 is skipped only at the
 * root and is not covered here. */
int sc_payload_skipped_name(const char *name);

/*
 * Write the stream of list as root/payload-digest.v1 (atomically, mode
 * 0644) and return its SHA-256 hex in hex.
 */
sc_code sc_payload_write_list(const char *root, const sc_payload_list *list, char hex[65],
                              sc_error *err);

/* Frees the entries; the list itself is left empty and reusable. */
void sc_payload_list_free(sc_payload_list *list);

#ifdef __cplusplus
}
#endif

#endif
