/* SPDX-License-Identifier: Apache-2.0 */
/*
 * progress.c — the scrollcase command's rendering of progress (progress.h).
 * Printing only: the events come from the library.
 */
#define _POSIX_C_SOURCE 200809L

#include "progress.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "scrollcase/json.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int sc_cli_progress_open(sc_cli_progress *p, const sc_cli_args *a)
{
    memset(p, 0, sizeof *p);
    p->started = now();
    p->quiet = sc_cli_has(a, OPT_QUIET);
    const char *fd_text = sc_cli_value(a, OPT_PROGRESS_FD);
    if (fd_text != NULL) {
        char *end = NULL;
        long fd = strtol(fd_text, &end, 10);
        if (end == fd_text || *end != '\0' || fd < 0 || fd > 1023 || fd == STDOUT_FILENO)
            return sc_cli_usage_error("--progress-fd takes an open file descriptor other "
                                      "than 1, not %s",
                                      fd_text);
        int dup_fd = dup((int)fd);
        p->machine = dup_fd >= 0 ? fdopen(dup_fd, "w") : NULL;
        if (p->machine == NULL) {
            if (dup_fd >= 0)
                close(dup_fd);
            return sc_cli_usage_error("--progress-fd %s is not an open file descriptor", fd_text);
        }
    } else if (sc_cli_json() && !p->quiet) {
        p->machine = stderr;
        p->json_stderr = 1;
    }
    if (!p->quiet && !p->json_stderr && isatty(STDERR_FILENO)) {
        p->bar = 1;
        const char *term = getenv("TERM");
        const char *no_colour = getenv("NO_COLOR");
        p->colour = (no_colour == NULL || no_colour[0] == '\0') &&
                    !(term != NULL && strcmp(term, "dumb") == 0);
    }
    return 0;
}

static void end_bar(sc_cli_progress *p)
{
    if (p->bar_width > 0) {
        fputc('\n', stderr);
        p->bar_width = 0;
    }
}

static void machine_line(sc_cli_progress *p, sc_json *o)
{
    char *text = NULL;
    size_t len = 0;
    sc_error err;
    if (o != NULL && sc_json_write_compact(o, &text, &len, &err) == SC_OK) {
        fwrite(text, 1, len, p->machine);
        fputc('\n', p->machine);
        fflush(p->machine);
    }
    free(text);
    sc_json_free(o);
}

static const char *paint(const sc_cli_progress *p, int on)
{
    return p->colour ? (on ? "\033[1;36m" : "\033[0m") : "";
}

void sc_cli_progress_step(sc_cli_progress *p, const char *step, const char *detail)
{
    if (p->quiet)
        return;
    if (p->machine != NULL) {
        sc_json *o = sc_json_new_object();
        if (o != NULL && (sc_json_object_append(o, "event", sc_json_new_string("step")) ||
                          sc_json_object_append(o, "step", sc_json_new_string(step)) ||
                          sc_json_object_append(o, "detail", sc_json_new_string(detail)))) {
            sc_json_free(o);
            o = NULL;
        }
        machine_line(p, o);
    }
    if (p->json_stderr)
        return;
    end_bar(p);
    fprintf(stderr, "scrollcase: %s%s%s%s%s\n", paint(p, 1), step, paint(p, 0),
            detail[0] ? ": " : "", detail);
}

/* "1:05" for 65 seconds. */
static void clock_text(double s, char *buf, size_t size)
{
    if (s < 0 || s > 359999)
        s = 0;
    unsigned long t = (unsigned long)(s + 0.5);
    if (t >= 3600)
        snprintf(buf, size, "%lu:%02lu:%02lu", t / 3600, t / 60 % 60, t % 60);
    else
        snprintf(buf, size, "%lu:%02lu", t / 60, t % 60);
}

/* The counts part of a line: " 3 of 10 files," (or runs, for a process). */
static void files_text(const sc_progress_event *e, char *buf, size_t size)
{
    buf[0] = '\0';
    if (e->files_total > 0)
        snprintf(buf, size, " %llu of %llu %s,", (unsigned long long)e->files_done,
                 (unsigned long long)e->files_total,
                 e->limit_ms > 0 ? (e->files_total == 1 ? "run" : "runs")
                                 : (e->files_total == 1 ? "file" : "files"));
}

static void machine_event(sc_cli_progress *p, const sc_progress_event *e)
{
    sc_json *o = sc_json_new_object();
    int bad = o == NULL || sc_json_object_append(o, "event", sc_json_new_string("progress")) ||
              sc_json_object_append(o, "step", sc_json_new_string(e->step)) ||
              sc_json_object_append(o, "item", sc_json_new_string(e->item ? e->item : "")) ||
              sc_json_object_append(o, "bytesDone", sc_json_new_number((double)e->bytes_done)) ||
              sc_json_object_append(o, "bytesTotal", sc_json_new_number((double)e->bytes_total)) ||
              sc_json_object_append(o, "filesDone", sc_json_new_number((double)e->files_done)) ||
              sc_json_object_append(o, "filesTotal", sc_json_new_number((double)e->files_total)) ||
              sc_json_object_append(o, "finished", sc_json_new_bool(e->finished));
    if (!bad && e->limit_ms > 0)
        bad = sc_json_object_append(o, "elapsedMs", sc_json_new_number((double)e->elapsed_ms)) ||
              sc_json_object_append(o, "limitMs", sc_json_new_number((double)e->limit_ms));
    if (bad) {
        sc_json_free(o);
        o = NULL;
    }
    machine_line(p, o);
}

/* Columns a line takes on the terminal: escape sequences and '\r' take none. */
static size_t visible_width(const char *s)
{
    size_t n = 0;
    while (*s) {
        if (s[0] == '\033' && s[1] == '[') {
            s += 2;
            while (*s && *s != 'm')
                s++;
            if (*s)
                s++;
            continue;
        }
        if (*s != '\r' && ((unsigned char)*s & 0xC0) != 0x80)
            n++;
        s++;
    }
    return n;
}

/* The terminal's columns (80 when it does not say). */
static size_t terminal_columns(void)
{
    struct winsize ws;
    if (ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
        return ws.ws_col;
    return 80;
}

/* What a bar line shows of an item in room columns: its tail after "...",
 * or nothing when there is no room (a line that wraps cannot be redrawn in
 * place). */
static const char *fit_item(const char *item, size_t room, char *buf, size_t size)
{
    size_t n = strlen(item);
    if (visible_width(item) <= room)
        return item;
    if (room < 8 || room >= size)
        return "";
    const char *tail = item + n - (room - 3);
    while (((unsigned char)*tail & 0xC0) == 0x80) /* not inside a UTF-8 sequence */
        tail++;
    snprintf(buf, size, "...%s", tail);
    return buf;
}

/* Write a line that may replace an open bar: pad over what the bar drew. */
static void put_line(sc_cli_progress *p, const char *line, int newline)
{
    size_t width = visible_width(line);
    fputs(line, stderr);
    for (size_t k = width; p->bar && k < p->bar_width; k++)
        fputc(' ', stderr);
    if (newline) {
        fputc('\n', stderr);
        p->bar_width = 0;
    } else {
        p->bar_width = width > p->bar_width ? width : p->bar_width;
        fflush(stderr);
    }
}

void sc_cli_progress_event(void *ctx, const sc_progress_event *e)
{
    sc_cli_progress *p = ctx;
    if (p->quiet)
        return;
    double t = now(), elapsed = t - p->started;
    int first = strcmp(p->step, e->step) != 0 ||
                (e->bytes_done == 0 && e->files_done == 0 && e->elapsed_ms == 0 && !e->finished);
    if (first) {
        if (p->bar && p->bar_width > 0 && strcmp(p->step, e->step) != 0)
            end_bar(p); /* the last step's bar stays on its line */
        snprintf(p->step, sizeof p->step, "%s", e->step);
        p->started = t;
        elapsed = 0;
        p->last_shown = p->last_machine = -1;
    }
    if (p->machine != NULL && (e->finished || first || t - p->last_machine >= 0.25)) {
        p->last_machine = t;
        machine_event(p, e);
    }
    if (p->json_stderr)
        return;
    const char *item = e->item ? e->item : "";
    const char *sep = item[0] ? " " : "";
    char files[64];
    files_text(e, files, sizeof files);
    const int process = e->limit_ms > 0;
    double rate = elapsed > 0.05 ? (double)e->bytes_done / elapsed : 0;
    char speed[32], eta[32], took[32], limit[32]; /* room for any unsigned long of hours */
    if (rate > 0)
        sc_progress_short_size((uint64_t)rate, speed, sizeof speed);
    else
        snprintf(speed, sizeof speed, "- B");
    clock_text(rate > 0 && e->bytes_total > e->bytes_done
                   ? (double)(e->bytes_total - e->bytes_done) / rate
                   : 0,
               eta, sizeof eta);
    clock_text(process ? (double)e->elapsed_ms / 1000.0 : elapsed, took, sizeof took);
    clock_text((double)e->limit_ms / 1000.0, limit, sizeof limit);
    char line[1024];
    if (e->finished) {
        char exact[64];
        sc_progress_human_size(e->bytes_done, exact, sizeof exact);
        clock_text(elapsed, took, sizeof took);
        if (process)
            snprintf(line, sizeof line, "%sscrollcase: %s%s%s%s%s:%s done in %s",
                     p->bar ? "\r" : "", paint(p, 1), e->step, paint(p, 0), sep, item, files,
                     took);
        else
            snprintf(line, sizeof line, "%sscrollcase: %s%s%s%s%s:%s %s in %s (%s/s)",
                     p->bar ? "\r" : "", paint(p, 1), e->step, paint(p, 0), sep, item, files,
                     exact, took, speed);
        put_line(p, line, 1);
        return;
    }
    /* a bar on a terminal (at most ten redraws a second), else plain lines:
     * the first, then at most one a second */
    if (!first && t - p->last_shown < (p->bar ? 0.1 : 1.0))
        return;
    p->last_shown = t;
    uint64_t done = process ? e->elapsed_ms : e->bytes_done;
    uint64_t total = process ? e->limit_ms : e->bytes_total;
    if (done > total && total > 0)
        done = total;
    int pct = total > 0 ? (int)(100.0 * (double)done / (double)total) : 0;
    if (p->bar) {
        char bar[17];
        size_t cells = sizeof bar - 1, full = 0;
        if (total > 0)
            full = (size_t)((double)cells * (double)done / (double)total);
        for (size_t k = 0; k < cells; k++)
            bar[k] = k < full ? '#' : '-';
        bar[cells] = '\0';
        /* the line without its item first: the item gets what is left */
        char tail[512], shortened[256];
        if (process) {
            snprintf(tail, sizeof tail, ":%s [%s] %s of the %s time limit", files, bar, took,
                     limit);
        } else {
            char d[32], tot[32];
            sc_progress_short_size(e->bytes_done, d, sizeof d);
            sc_progress_short_size(e->bytes_total, tot, sizeof tot);
            snprintf(tail, sizeof tail, ":%s [%s] %3d%% %s / %s  %s/s  ETA %s", files, bar, pct, d,
                     tot, speed, eta);
        }
        size_t used = strlen(e->step) + visible_width(tail) + 2, cols = terminal_columns();
        item = fit_item(item, cols > used ? cols - used : 0, shortened, sizeof shortened);
        snprintf(line, sizeof line, "\r%s%s%s%s%s%s", paint(p, 1), e->step, paint(p, 0),
                 item[0] ? " " : "", item, tail);
        put_line(p, line, 0);
        return;
    }
    if (process) {
        fprintf(stderr, "scrollcase: %s%s%s:%s %s elapsed of the %s time limit\n", e->step, sep,
                item, files, took, limit);
        return;
    }
    char exact_done[64], exact_total[64];
    sc_progress_human_size(e->bytes_done, exact_done, sizeof exact_done);
    sc_progress_human_size(e->bytes_total, exact_total, sizeof exact_total);
    if (e->bytes_total > 0)
        fprintf(stderr, "scrollcase: %s%s%s:%s %s of %s, %d%%, %s/s, ETA %s\n", e->step, sep, item,
                files, exact_done, exact_total, pct, speed, eta);
    else
        fprintf(stderr, "scrollcase: %s%s%s:%s %s, %s/s\n", e->step, sep, item, files,
                exact_done, speed);
}

void sc_cli_progress_break(sc_cli_progress *p)
{
    end_bar(p);
}

void sc_cli_progress_close(sc_cli_progress *p)
{
    end_bar(p);
    if (p->machine != NULL && !p->json_stderr)
        fclose(p->machine);
    p->machine = NULL;
}
