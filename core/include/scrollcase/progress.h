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

typedef struct sc_progress_event {
    const char *step;     /* "download", "archive", ... (static) */
    const char *item;     /* what: a path or URL; "" when none */
    uint64_t bytes_done;  /* of bytes_total; bytes_total 0: unknown */
    uint64_t bytes_total;
    uint64_t files_done;  /* of files_total; files_total 0: not counted */
    uint64_t files_total;
    int finished;         /* 1 on the step's last event */
} sc_progress_event;

typedef void (*sc_progress_fn)(void *ctx, const sc_progress_event *e);

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
