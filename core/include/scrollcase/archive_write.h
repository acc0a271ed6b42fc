/* SPDX-License-Identifier: Apache-2.0 */
/*
 * archive_write.h — the canonical archive writer (docs/format-v3.md 15.1).
 *
 * Guarantees: the bytes written depend only on the entries (paths, kinds,
 * contents, executable and stored flags) and the compression mode — never on
 * the time zone, locale, umask, clock or the order entries or directories are
 * given in.  Entries are sorted by the bytes of their paths; every entry has
 * DOS date 0x2821 and time 0, general-purpose bit 11 set and bit 3 clear (CRC
 * and sizes in the local header, no data descriptors), no extra field except
 * the ZIP64 one exactly when a size or offset needs it, and ZIP64 end records
 * exactly when the entry count or the central directory needs them.  With
 * SC_ARCHIVE_STORE the bytes are identical across implementations.  Memory
 * stays bounded whatever the entry sizes (large deflated entries spool to a
 * temporary file).  Nothing is written before every path has been checked
 * (unsafe-path, entry-collision).
 */
#ifndef SCROLLCASE_ARCHIVE_WRITE_H
#define SCROLLCASE_ARCHIVE_WRITE_H

#include <stddef.h>
#include <stdint.h>

#include "scrollcase/digest.h"
#include "scrollcase/error.h"
#include "scrollcase/progress.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum sc_archive_kind { SC_ARCHIVE_FILE, SC_ARCHIVE_LINK } sc_archive_kind;
typedef enum sc_archive_compression {
    SC_ARCHIVE_DEFLATE,
    SC_ARCHIVE_STORE
} sc_archive_compression;

/* External attributes (mode << 16) of the three kinds of entry. */
#define SC_ARCHIVE_MODE_FILE 0100644u
#define SC_ARCHIVE_MODE_EXEC 0100755u
#define SC_ARCHIVE_MODE_LINK 0120777u
/* The fixed DOS timestamp: 2000-01-01 00:00:00. */
#define SC_ARCHIVE_DOS_DATE 0x2821u
#define SC_ARCHIVE_DOS_TIME 0x0000u
/* Deflate level (zlib, raw deflate, window 15, memLevel 8). */
#define SC_ARCHIVE_DEFLATE_LEVEL 6
/* Deflated output up to this size stays in memory; larger spools to a file. */
#define SC_ARCHIVE_SPOOL_MEMORY ((size_t)8 * 1024 * 1024)
/* The probe of a file to deflate (format-v3 15.1, Methods): its first bytes
 * up to this many are deflated on their own; not smaller -> stored. */
#define SC_ARCHIVE_PROBE_BYTES ((size_t)1024 * 1024)

typedef struct sc_archive_entry {
    const char *path;   /* UTF-8 payload path; checked with sc_path_check (unsafe-path) */
    sc_archive_kind kind;
    const char *source; /* FILE: path of the bytes on disk, or NULL to use data/data_len */
    const void *data;   /* FILE bytes in memory (source NULL); LINK: the target (len data_len) */
    size_t data_len;
    int executable;     /* external attributes 0100755 instead of 0100644 (files) */
    int stored;         /* method 0 whatever the compression (assets, uncompressedPaths) */
    /* Optional, for a FILE with a source: its CRC-32 and size from an earlier
     * read (the payload snapshot).  A stored entry is then read once, while
     * it is copied, and a source whose bytes no longer give this CRC and size
     * is SC_E_IO ("changed while being archived"). */
    int crc_known;
    uint32_t crc;
    uint64_t size;
} sc_archive_entry;

typedef struct sc_archive_options {
    /* Threads that read and compress entries (sc_jobs_resolve: 0 = every
     * CPU of this process's affinity mask; 1 = the calling thread alone).
     * The bytes written never depend on it. */
    unsigned jobs;
    /* Progress (progress.h, step "archive"; NULL: none): files_done the
     * entries written, in order; bytes_done their uncompressed bytes (a
     * stored file's counted while it is copied, a deflated one's once it is
     * written); bytes_total the entries' sizes (a source without a known
     * size is stat'd for it).  Never changes the bytes written. */
    sc_progress_fn progress;
    void *progress_ctx;
} sc_archive_options;

typedef struct sc_archive_sink {
    sc_code (*write)(void *ctx, const void *buf, size_t len, sc_error *err);
    void *ctx;
} sc_archive_sink;

/*
 * Check the paths of n entries without writing anything: each with
 * sc_path_check (SC_E_UNSAFE_PATH); two paths equal after ASCII case folding,
 * or one path an ancestor of another (also after folding), is
 * SC_E_ENTRY_COLLISION naming both.
 */
sc_code sc_archive_check_entries(const sc_archive_entry *entries, size_t n,
                                 sc_error *err);

/*
 * Write the canonical archive of n entries to sink: sorted by path bytes;
 * refusals as sc_archive_check_entries (before any byte is written); deflate
 * (zlib, level 6, raw deflate) for files unless stored or SC_ARCHIVE_STORE;
 * a file to deflate whose probe (its first SC_ARCHIVE_PROBE_BYTES) or whose
 * whole deflated form is not smaller than its bytes is stored instead;
 * links stored, 0120777.  *written (may be NULL) = total bytes.  A source
 * that cannot be read, is not a regular file or changes while it is read is
 * SC_E_IO naming it.  Compression of upcoming entries runs on worker threads
 * while this thread writes in order.
 */
sc_code sc_archive_write(const sc_archive_entry *entries, size_t n,
                         sc_archive_compression compression, const sc_archive_sink *sink,
                         uint64_t *written, sc_error *err);

/* sc_archive_write with options (NULL: the defaults, every CPU). */
sc_code sc_archive_write_with(const sc_archive_entry *entries, size_t n,
                              sc_archive_compression compression,
                              const sc_archive_options *options, const sc_archive_sink *sink,
                              uint64_t *written, sc_error *err);

/*
 * The same into out_path via a temporary file in its directory + fsync +
 * rename (never a half-written archive at out_path; on failure out_path is
 * untouched and no temporary file remains); the file gets mode 0644 whatever
 * the umask.  size and sha256_hex (may be NULL) are computed while writing.
 */
sc_code sc_archive_write_file(const sc_archive_entry *entries, size_t n,
                              sc_archive_compression compression, const char *out_path,
                              uint64_t *size, char sha256_hex[65], sc_error *err);

/* sc_archive_write_file with options (NULL: the defaults). */
sc_code sc_archive_write_file_with(const sc_archive_entry *entries, size_t n,
                                   sc_archive_compression compression,
                                   const sc_archive_options *options, const char *out_path,
                                   uint64_t *size, char sha256_hex[65], sc_error *err);

#ifdef __cplusplus
}
#endif

#endif
