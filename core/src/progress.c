/* SPDX-License-Identifier: Apache-2.0 */
/*
 * progress.c — sizes for people (progress.h).
 */
#include "scrollcase/progress.h"

#include "progress_internal.h"

#include <stdio.h>

size_t sc_progress_short_size(uint64_t bytes, char *buf, size_t size)
{
    static const char *const units[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    if (bytes < 1024)
        return (size_t)snprintf(buf, size, "%llu B", (unsigned long long)bytes);
    double v = (double)bytes / 1024.0;
    size_t u = 0;
    while (v >= 1024.0 && u + 1 < sizeof units / sizeof units[0]) {
        v /= 1024.0;
        u++;
    }
    return (size_t)snprintf(buf, size, "%.1f %s", v, units[u]);
}

size_t sc_progress_human_size(uint64_t bytes, char *buf, size_t size)
{
    if (bytes < 1024)
        return (size_t)snprintf(buf, size, "%llu bytes", (unsigned long long)bytes);
    char s[32];
    sc_progress_short_size(bytes, s, sizeof s);
    return (size_t)snprintf(buf, size, "%s (%llu bytes)", s, (unsigned long long)bytes);
}

/* ---- the meter (progress_internal.h) -------------------------------------- */

static void meter_send(sc_progress_meter *m, const char *item, int finished, uint64_t elapsed)
{
    sc_progress_event e;
    e.step = m->step;
    e.item = item != NULL ? item : "";
    e.bytes_done = m->bytes_done;
    e.bytes_total = m->bytes_total;
    e.files_done = m->files_done;
    e.files_total = m->files_total;
    e.finished = finished;
    e.elapsed_ms = elapsed;
    e.limit_ms = m->limit_ms;
    e.unit = m->unit;
    m->shown_bytes = m->bytes_done;
    m->fn(m->ctx, &e);
}

static void meter_open(sc_progress_meter *m, sc_progress_fn fn, void *ctx, const char *step,
                       const char *item, uint64_t bytes_total, uint64_t files_total,
                       uint64_t limit_ms, const char *unit)
{
    m->unit = unit; /* every member is set here: a meter may live on the stack */
    m->fn = fn;
    m->ctx = ctx;
    m->step = step;
    m->bytes_total = bytes_total;
    m->files_total = files_total;
    m->bytes_done = m->files_done = m->shown_bytes = 0;
    m->limit_ms = limit_ms;
    m->open = fn != NULL && pthread_mutex_init(&m->lock, NULL) == 0;
    if (m->open)
        meter_send(m, item, 0, 0);
}

void sc_progress_meter_start(sc_progress_meter *m, sc_progress_fn fn, void *ctx,
                             const char *step, const char *item, uint64_t bytes_total,
                             uint64_t files_total)
{
    sc_progress_meter_start_unit(m, fn, ctx, step, item, bytes_total, files_total, NULL);
}

void sc_progress_meter_start_unit(sc_progress_meter *m, sc_progress_fn fn, void *ctx,
                                  const char *step, const char *item, uint64_t bytes_total,
                                  uint64_t files_total, const char *unit)
{
    meter_open(m, fn, ctx, step, item, bytes_total, files_total, 0, unit);
}

void sc_progress_meter_start_runs(sc_progress_meter *m, sc_progress_fn fn, void *ctx,
                                  const char *step, const char *item, uint64_t runs,
                                  uint64_t limit_ms)
{
    meter_open(m, fn, ctx, step, item, 0, runs, limit_ms, NULL);
}

void sc_progress_meter_add(sc_progress_meter *m, const char *item, uint64_t bytes,
                           uint64_t files)
{
    if (m == NULL || !m->open)
        return;
    pthread_mutex_lock(&m->lock);
    m->bytes_done += bytes;
    m->files_done += files;
    if (files > 0 || m->bytes_done - m->shown_bytes >= SC_PROGRESS_BYTES)
        meter_send(m, item, 0, 0);
    pthread_mutex_unlock(&m->lock);
}

void sc_progress_meter_tick(sc_progress_meter *m, const char *item, uint64_t elapsed_ms)
{
    if (m == NULL || !m->open)
        return;
    pthread_mutex_lock(&m->lock);
    meter_send(m, item, 0, elapsed_ms);
    pthread_mutex_unlock(&m->lock);
}

void sc_progress_meter_end(sc_progress_meter *m, int ok)
{
    if (m == NULL || !m->open)
        return;
    m->open = 0;
    if (ok) {
        if (m->bytes_done > m->bytes_total)
            m->bytes_total = m->bytes_done;
        if (m->files_done > m->files_total)
            m->files_total = m->files_done;
        meter_send(m, "", 1, 0);
    }
    pthread_mutex_destroy(&m->lock);
}
