/* SPDX-License-Identifier: Apache-2.0 */
/*
 * progress.h — what a long step reports while it runs: bytes done of the
 * total and files done of the total, for a caller to show (the scrollcase
 * command draws a bar on a terminal, plain lines elsewhere, JSON lines for
 * machines).  The library only calls; it never prints.
 */
#ifndef SCROLLCASE_PROGRESS_H
#define SCROLLCASE_PROGRESS_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * One event.  The pointers are valid during the call only.  A step's events
 * come in order, never two at once (worker threads report under a lock),
 * at most one per file or per SC_PROGRESS_BYTES bytes (pacing them for
 * people is the caller's), the first with bytes_done and files_done 0 and
 * the last with finished 1 (then done == total when totals are known).  A
 * step that fails sends no finished event.  Progress never changes what a
 * step writes.
 *
 * Steps: "copy" (the environment prefix copied in), "digest" (files
 * hashed), "recheck" (the payload collected again after the gates),
 * "archive" (entries written: their uncompressed bytes), "download", "hash"
 * (the archive's SHA-256 checked), "extract" (entries written), "verify"
 * (listed entries hashed against the payload list), "self-test" and
 * "parity" (process runs: files_done/files_total count the runs, bytes are
 * 0, and elapsed_ms/limit_ms give the run's time against its time limit).
 * Which option struct carries the function for each is in its header
 * (sc_payload_options, sc_archive_options, sc_zip_extract_options,
 * sc_box_options, sc_gate_parity_options, sc_build_options.transfer, ...).
 */
typedef struct sc_progress_event {
    const char *step;     /* "download", "archive", ... (static) */
    const char *item;     /* what: a path or URL; "" when none */
    uint64_t bytes_done;  /* of bytes_total; bytes_total 0: unknown */
    uint64_t bytes_total;
    uint64_t files_done;  /* of files_total; files_total 0: not counted */
    uint64_t files_total;
    int finished;         /* 1 on the step's last event */
    /* process runs only (else 0): milliseconds the current run has taken,
     * and its time limit (past it the run is stopped: timeout) */
    uint64_t elapsed_ms;
    uint64_t limit_ms;
    /* what files_done/files_total count, plural, when it is not files (a
     * process run's step: NULL, its limit_ms says so): "packages" for the
     * lock installer's download, extract and link steps; NULL: files */
    const char *unit;
} sc_progress_event;

typedef void (*sc_progress_fn)(void *ctx, const sc_progress_event *e);

/* Bytes between two events of one file at most (a big file reports while
 * it is read, not only when it is done). */
#define SC_PROGRESS_BYTES ((uint64_t)1 << 20)

/*
 * A byte count for people, exactly: "512 bytes", "1.5 KiB (1536 bytes)",
 * "2.0 GiB (2147483648 bytes)".  Writes at most size bytes (NUL included);
 * returns the length it needed.
 */
size_t sc_progress_human_size(uint64_t bytes, char *buf, size_t size);

/* The short form without the exact count: "512 B", "1.5 KiB". */
size_t sc_progress_short_size(uint64_t bytes, char *buf, size_t size);

#ifdef __cplusplus
}
#endif

#endif
