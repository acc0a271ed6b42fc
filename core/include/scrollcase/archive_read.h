/* SPDX-License-Identifier: Apache-2.0 */
/*
 * archive_read.h — our own ZIP reader: open, inspect, read and extract a box
 * archive (docs/format-v3.md 15.2).
 *
 * Guarantees: sc_zip_open accepts any well-formed single-disk ZIP (stored or
 * deflated entries, data descriptors, extra fields, ZIP64 records, any entry
 * order) and refuses everything else before a single byte is extracted: it
 * reads every central record, cross-checks every local header, classifies
 * every entry (file, directory, link; encrypted and special entries and
 * unsafe names refused), reads and checks every link target, and runs the
 * whole-archive checks (collisions after ASCII case folding, the lexical link
 * rules, the size budget).  Inspection is O(n log n) in the number of
 * entries.  Reading and extraction stream through inflate, check the CRC-32
 * and the exact declared size, and stop at the first byte past the declared
 * size (zip-bomb protection).  Extraction never follows a link while writing
 * and never replaces an existing file.  Entry order is central-directory
 * order.
 */
#ifndef SCROLLCASE_ARCHIVE_READ_H
#define SCROLLCASE_ARCHIVE_READ_H

#include <stddef.h>
#include <stdint.h>

#include "scrollcase/error.h"
#include "scrollcase/progress.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum sc_zip_type { SC_ZIP_FILE, SC_ZIP_DIR, SC_ZIP_LINK } sc_zip_type;

/* Longest link target accepted (bytes of the link entry's content). */
#define SC_ZIP_LINK_MAX 1024
/* Most link hops a chain may take to reach a file. */
#define SC_ZIP_LINK_HOPS 8
/* Default budget for the sum of declared uncompressed sizes: 256 GiB. */
#define SC_ZIP_DEFAULT_MAX_TOTAL ((uint64_t)256 * 1024 * 1024 * 1024)

typedef struct sc_zip_entry {
    char *path;             /* normalised: one trailing '/' stripped; checked */
    size_t path_len;
    sc_zip_type type;
    unsigned mode;          /* permission bits: mode & 0777 (setuid/gid/sticky dropped) */
    unsigned method;        /* 0 stored, 8 deflate */
    unsigned flags;         /* general-purpose bits */
    uint32_t crc32;
    uint64_t compressed_size, size;
    uint64_t local_offset;  /* of the local header */
    uint64_t data_offset;   /* of the data, from the local header's own lengths */
    char *link_target;      /* links: target read and checked during open; else NULL */
} sc_zip_entry;

typedef struct sc_zip sc_zip;

typedef struct sc_zip_limits {
    uint64_t max_total_size;   /* sum of declared uncompressed sizes; 0 = SC_ZIP_DEFAULT_MAX_TOTAL */
    uint64_t max_entries;      /* 0 = no limit */
} sc_zip_limits;



/*
 * Open and inspect the archive at path (limits may be NULL: defaults).
 * Codes: a missing file -> SC_E_ARCHIVE_NOT_FOUND; not a ZIP, truncated,
 * records that lie, overlapping entries, an unsupported method, a stored
 * size mismatch, a CRC or size mismatch of a link's content ->
 * SC_E_INVALID_ARCHIVE; encryption (bit 0 or 6) -> SC_E_ENCRYPTED_ENTRY; a
 * name that is not safe (non-ASCII without bit 11, invalid UTF-8, backslash,
 * empty, leading '/', drive prefix, NUL, empty/'.'/'..' segment) ->
 * SC_E_UNSAFE_PATH; device, FIFO, socket or other types -> SC_E_SPECIAL_ENTRY;
 * link rules -> SC_E_LINK_ENTRY; duplicate names, case-folding and
 * file-versus-ancestor collisions -> SC_E_ENTRY_COLLISION; too many entries
 * or declared sizes over the budget -> SC_E_EXTRACTION_LIMIT.
 */
sc_code sc_zip_open(const char *path, const sc_zip_limits *limits, sc_zip **out,
                    sc_error *err);

/*
 * The same on an open file descriptor (read with pread; the descriptor is
 * duplicated, the caller keeps and closes its own).  name is used in
 * messages.
 */
sc_code sc_zip_open_fd(int fd, const char *name, const sc_zip_limits *limits,
                       sc_zip **out, sc_error *err);

/* Accept member names that start with "./" (as some zip writers make them):
 * every leading "./" is dropped before the name is checked and used, so
 * "./a/b" is the entry "a/b"; a name that is nothing but "./" segments is a
 * directory entry for the root and is left out of the entries.  Package
 * readers (wheels, .conda) ask for it; box archives (15.2) do not. */
#define SC_ZIP_ACCEPT_DOT_PREFIX 1u

/* sc_zip_open with flags (SC_ZIP_* above; 0 is sc_zip_open). */
sc_code sc_zip_open_flags(const char *path, const sc_zip_limits *limits, unsigned flags,
                          sc_zip **out, sc_error *err);

size_t sc_zip_count(const sc_zip *z);
const sc_zip_entry *sc_zip_at(const sc_zip *z, size_t i);

/* Exact lookup of a normalised path (hash table); NULL when absent. */
const sc_zip_entry *sc_zip_find(const sc_zip *z, const char *path);

/* Sum of the declared uncompressed sizes of all entries. */
uint64_t sc_zip_total_size(const sc_zip *z);

/*
 * Read one entry's bytes fully (inflating; CRC and size checked).  An entry
 * declaring more than max bytes -> SC_E_EXTRACTION_LIMIT before anything is
 * read.  Caller frees *bytes (a NUL is appended, not counted in *len).
 * A directory reads as zero bytes; a link as its target.
 */
sc_code sc_zip_read(sc_zip *z, const sc_zip_entry *e, size_t max, char **bytes,
                    size_t *len, sc_error *err);

/*
 * Extract every entry into dir, an existing empty directory the caller owns:
 * directories created idempotently (0755), files created with
 * O_CREAT|O_EXCL|O_NOFOLLOW and mode (perm ? perm : 0644) set exactly
 * (umask does not matter), links with symlink() of the validated target.
 * Every path is walked from dir with openat(O_NOFOLLOW), so nothing is
 * written through a link.  Data is streamed: an entry inflating past its
 * declared size stops at once -> SC_E_EXTRACTION_LIMIT; fewer bytes or a CRC
 * mismatch -> SC_E_INVALID_ARCHIVE; write errors -> SC_E_IO naming the path.
 * On failure the caller removes dir.
 */
sc_code sc_zip_extract(sc_zip *z, const char *dir, sc_error *err);

/*
 * sc_zip_extract with the file data written by jobs threads (sc_jobs_resolve:
 * 0 = every CPU of the affinity mask).  Names are created by the calling
 * thread in central-directory order; the error reported is the one of the
 * first failing entry in that order, whatever the count.
 */
sc_code sc_zip_extract_with(sc_zip *z, const char *dir, unsigned jobs, sc_error *err);

/* Options of sc_zip_extract_opts. */
typedef struct sc_zip_extract_options {
    unsigned jobs; /* as sc_zip_extract_with */
    /* Progress (progress.h, step "extract"; NULL: none): files_done the
     * entries created (a file once its data is written), of files_total
     * every entry; bytes_done the bytes written (file data and link
     * targets) of bytes_total, sc_zip_total_size.  Never changes what is
     * written. */
    sc_progress_fn progress;
    void *progress_ctx;
} sc_zip_extract_options;

/* sc_zip_extract_with with options (NULL: every CPU, no progress). */
sc_code sc_zip_extract_opts(sc_zip *z, const char *dir, const sc_zip_extract_options *o,
                            sc_error *err);

void sc_zip_close(sc_zip *z);

#ifdef __cplusplus
}
#endif

#endif
