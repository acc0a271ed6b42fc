/* SPDX-License-Identifier: Apache-2.0 */
/*
 * progress_internal.h — the library's side of progress.h: a meter that a
 * step feeds from any number of threads and that calls the caller's
 * sc_progress_fn in order, under its lock, at most once per file or per
 * SC_PROGRESS_BYTES bytes.  Internal to the library; not installed.
 *
 * A meter with no function does nothing and takes no lock, so a step pays
 * nothing when nobody listens.  Counting never influences what a step
 * writes.
 */
#ifndef SC_PROGRESS_INTERNAL_H
#define SC_PROGRESS_INTERNAL_H

#include <pthread.h>
#include <stdint.h>

#include "scrollcase/progress.h"

typedef struct sc_progress_meter {
    sc_progress_fn fn; /* NULL: a silent meter */
    void *ctx;
    const char *step;
    uint64_t bytes_total, files_total;
    uint64_t bytes_done, files_done;
    uint64_t shown_bytes; /* bytes_done at the last event */
    uint64_t limit_ms;
    const char *unit;     /* sc_progress_event.unit (static), NULL: files */
    int open;             /* started and not yet ended */
    pthread_mutex_t lock;
} sc_progress_meter;

/* Start a step: sends its first event (0 done of the totals; 0: unknown).
 * fn NULL: a silent meter.  Every started meter is ended with
 * sc_progress_meter_end. */
void sc_progress_meter_start(sc_progress_meter *m, sc_progress_fn fn, void *ctx,
                             const char *step, const char *item, uint64_t bytes_total,
                             uint64_t files_total);

/* sc_progress_meter_start for a step that counts something other than
 * files: unit (static, plural) is every event's unit ("packages"). */
void sc_progress_meter_start_unit(sc_progress_meter *m, sc_progress_fn fn, void *ctx,
                                  const char *step, const char *item, uint64_t bytes_total,
                                  uint64_t files_total, const char *unit);

/* Count bytes and files done (thread-safe).  An event is sent when files
 * is not 0 or SC_PROGRESS_BYTES have been counted since the last one. */
void sc_progress_meter_add(sc_progress_meter *m, const char *item, uint64_t bytes,
                           uint64_t files);

/* A process run's time so far (process steps): sends an event. */
void sc_progress_meter_tick(sc_progress_meter *m, const char *item, uint64_t elapsed_ms);

/* Start a step of process runs: files_total runs, each under a time limit
 * of limit_ms (every event of the step carries it). */
void sc_progress_meter_start_runs(sc_progress_meter *m, sc_progress_fn fn, void *ctx,
                                  const char *step, const char *item, uint64_t runs,
                                  uint64_t limit_ms);

/* End the step: ok sends the finished event (its totals raised to what was
 * counted, when it counted more); not ok sends nothing.  Idempotent. */
void sc_progress_meter_end(sc_progress_meter *m, int ok);

#endif
