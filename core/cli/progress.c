/* SPDX-License-Identifier: Apache-2.0 */
/*
 * progress.c — the scrollcase command's rendering of progress (progress.h).
 * Printing only: the events come from the library, one at a time (its
 * contract), so no lock is taken here.
 *
 * On a terminal the steps that run at once (a prepare's hash beside its
 * extraction) each own a line of one live area at the bottom of the
 * screen, redrawn in place at most ten times a second; everything printed
 * meanwhile (step lines, finished steps, an error) goes above it.  Lines
 * never wrap (they are cut to the terminal's width), so the area can always
 * be erased.
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
    const char *term = getenv("TERM");
    int dumb = term != NULL && strcmp(term, "dumb") == 0;
    if (!p->quiet && !p->json_stderr && isatty(STDERR_FILENO) && !dumb) {
        p->live = 1;
        const char *no_colour = getenv("NO_COLOR");
        p->colour = no_colour == NULL || no_colour[0] == '\0';
    }
    return 0;
}

/* ---- JSON lines ------------------------------------------------------------ */

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

/* ---- text for people --------------------------------------------------------- */

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

/* How long a finished step took: "0.4 s", "12 s", "1:05". */
static void took_text(double s, char *buf, size_t size)
{
    if (s < 0)
        s = 0;
    if (s < 0.995)
        snprintf(buf, size, "%.2f s", s);
    else if (s < 9.95)
        snprintf(buf, size, "%.1f s", s);
    else if (s < 59.5)
        snprintf(buf, size, "%.0f s", s);
    else
        clock_text(s, buf, size);
}

/* Columns a text takes on the terminal: escape sequences take none. */
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
        if (((unsigned char)*s & 0xC0) != 0x80)
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

/* What fits of an item in room columns: its tail after "...", or nothing. */
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

static const char *paint(const sc_cli_progress *p, const char *code)
{
    return p->colour ? code : "";
}
#define RUNNING "\033[1;36m"
#define DONE "\033[1;32m"
#define RESET "\033[0m"

static int is_process(const sc_cli_step_state *s)
{
    return s->limit_ms > 0;
}

/* Append part to buf, after ", " when buf is not empty. */
static void add_part(char *buf, size_t size, const char *part)
{
    size_t n = strlen(buf);
    if (part[0] != '\0' && n < size)
        snprintf(buf + n, size - n, "%s%s", n ? ", " : "", part);
}

/* "3/24 files" / "1/2 runs" (finished: "24 files"), or "" when there
 * is nothing to count or the step is about one file its item names. */
static void counts_text(const sc_cli_step_state *s, int finished, char *buf, size_t size)
{
    buf[0] = '\0';
    if (s->files_total == 0 ||
        (s->files_total == 1 && s->item_constant && s->first_item[0] && !is_process(s)))
        return;
    const char *unit = is_process(s) ? (s->files_total == 1 ? "run" : "runs")
                       : s->unit[0]  ? s->unit
                                     : (s->files_total == 1 ? "file" : "files");
    /* one of a plural unit the library names: "packages" -> "package" */
    int one = s->files_total == 1 && s->unit[0] && !is_process(s);
    int len = one ? (int)strlen(unit) - 1 : (int)strlen(unit);
    if (finished)
        snprintf(buf, size, "%llu %.*s", (unsigned long long)s->files_total, len, unit);
    else
        snprintf(buf, size, "%llu/%llu %.*s", (unsigned long long)s->files_done,
                 (unsigned long long)s->files_total, len, unit);
}

/* The rate of a step, bytes a second, when it can be told (0: not). */
static double step_rate(const sc_cli_step_state *s, double t)
{
    double elapsed = t - s->started;
    return elapsed >= 0.2 && s->bytes_done > 0 ? (double)s->bytes_done / elapsed : 0;
}

/* The state of a running step after its name and item: the bar (with_bar),
 * the percentage, the sizes, the files, the rate and the time left. */
static void running_text(const sc_cli_step_state *s, double t, int with_bar, char *buf,
                         size_t size)
{
    char counts[64], took[32], limit[32], done[32], total[32], part[128];
    buf[0] = '\0';
    counts_text(s, 0, counts, sizeof counts);
    clock_text(t - s->started, took, sizeof took);
    uint64_t d = is_process(s) ? s->elapsed_ms : s->bytes_done;
    uint64_t tot = is_process(s) ? s->limit_ms : s->bytes_total;
    if (d > tot && tot > 0)
        d = tot;
    char bar[32] = "";
    if (with_bar && tot > 0) {
        const size_t cells = 20;
        size_t full = (size_t)((double)cells * (double)d / (double)tot);
        bar[0] = '[';
        for (size_t k = 0; k < cells; k++)
            bar[1 + k] = k < full ? '#' : '-';
        bar[cells + 1] = ']';
        bar[cells + 2] = ' ';
        bar[cells + 3] = '\0';
    }
    add_part(buf, size, counts);
    if (is_process(s)) {
        clock_text((double)s->elapsed_ms / 1000.0, took, sizeof took);
        clock_text((double)s->limit_ms / 1000.0, limit, sizeof limit);
        snprintf(part, sizeof part, "%s%s of the %s time limit", bar, took, limit);
        add_part(buf, size, part);
        return;
    }
    sc_progress_short_size(s->bytes_done, done, sizeof done);
    sc_progress_short_size(s->bytes_total, total, sizeof total);
    if (s->bytes_done == 0 && s->files_done == 0) {
        /* nothing counted yet (a hash beside an extraction reports only
         * when it ends): how big, and for how long it has run */
        if (s->bytes_total > 0)
            add_part(buf, size, total);
        snprintf(part, sizeof part, "running for %s", took);
        add_part(buf, size, part);
        return;
    }
    if (tot > 0)
        snprintf(part, sizeof part, "%s%3d%% %s of %s", bar,
                 (int)(100.0 * (double)d / (double)tot), done, total);
    else
        snprintf(part, sizeof part, "%s", done);
    char joined[256] = "";
    add_part(joined, sizeof joined, part);
    add_part(joined, sizeof joined, buf); /* the counts after the sizes */
    snprintf(buf, size, "%s", joined);
    double rate = step_rate(s, t);
    if (rate > 0) {
        char r[32];
        sc_progress_short_size((uint64_t)rate, r, sizeof r);
        snprintf(part, sizeof part, "%s/s", r);
        add_part(buf, size, part);
        if (s->bytes_total > s->bytes_done) {
            char left[32];
            clock_text((double)(s->bytes_total - s->bytes_done) / rate, left, sizeof left);
            snprintf(part, sizeof part, "ETA %s", left);
            add_part(buf, size, part);
        }
    }
}

/* The one line a finished step leaves: its totals and the time it took. */
static void finished_text(const sc_cli_step_state *s, double t, char *buf, size_t size)
{
    char counts[64], took[32], total[32];
    buf[0] = '\0';
    counts_text(s, 1, counts, sizeof counts);
    add_part(buf, size, counts);
    took_text(t - s->started, took, sizeof took);
    if (!is_process(s) && s->bytes_total > 0) {
        sc_progress_short_size(s->bytes_total, total, sizeof total);
        add_part(buf, size, total);
    }
    size_t n = strlen(buf);
    double elapsed = t - s->started;
    if (!is_process(s) && n > 0 && elapsed >= 0.25 &&
        (s->first_count < 0 || t - s->first_count < 0.1 * elapsed)) {
        /* it counted nothing until its very end (a hash beside an
         * extraction reports only when it is waited for): it ended within
         * that time, and no rate can be told */
        snprintf(buf + n, size - n, " within %s", took);
        return;
    }
    double rate = is_process(s) ? 0 : step_rate(s, t);
    char r[32] = "";
    if (rate > 0)
        sc_progress_short_size((uint64_t)rate, r, sizeof r);
    snprintf(buf + n, size - n, "%s in %s%s%s%s", n ? "" : "done", took, r[0] ? " (" : "", r,
             r[0] ? "/s)" : "");
}

/* Cut a line to fewer than width columns (a narrow terminal), keeping
 * UTF-8 sequences whole and escape sequences out of the count; a colour
 * left open is reset. */
static void cut_to(char *line, size_t size, size_t width)
{
    size_t cols = 0, i = 0;
    while (line[i] && cols + 1 < width) {
        if (line[i] == '\033') {
            while (line[i] && line[i] != 'm')
                i++;
            if (line[i])
                i++;
            continue;
        }
        i++;
        while (((unsigned char)line[i] & 0xC0) == 0x80)
            i++;
        cols++;
    }
    if (line[i] != '\0' && strchr(line, '\033') != NULL && i + strlen(RESET) < size) {
        memcpy(line + i, RESET, strlen(RESET) + 1);
        return;
    }
    line[i] = '\0';
}

/* "<prefix><step>[ <item>]: <rest>", the step painted with colour. */
static void compose(const sc_cli_progress *p, const char *prefix, const char *colour,
                    const char *step, const char *item, const char *rest, char *line, size_t size)
{
    snprintf(line, size, "%s%s%s%s%s%s: %s", prefix, paint(p, colour), step, paint(p, RESET),
             item[0] ? " " : "", item, rest);
}

/* ---- the live area ------------------------------------------------------------ */

static void clear_area(sc_cli_progress *p)
{
    if (p->drawn > 0) {
        fprintf(stderr, "\033[%zuA\r\033[J", p->drawn);
        p->drawn = 0;
    }
}

static void draw_area(sc_cli_progress *p, double t)
{
    clear_area(p);
    size_t width = terminal_columns(), name_width = 0;
    for (size_t i = 0; i < p->nsteps; i++)
        if (strlen(p->steps[i].step) > name_width)
            name_width = strlen(p->steps[i].step);
    for (size_t i = 0; i < p->nsteps; i++) {
        const sc_cli_step_state *s = &p->steps[i];
        char rest[256], line[1024], name[40];
        running_text(s, t, 1, rest, sizeof rest);
        /* "  <name> <state>  <item>": names padded so that the bars line
         * up; the item last, cut to what the terminal's width leaves */
        snprintf(name, sizeof name, "%-*s", (int)name_width, s->step);
        char shortened[256];
        size_t used = 2 + name_width + 1 + visible_width(rest) + 2 + 1;
        const char *item = fit_item(s->item, width > used ? width - used : 0, shortened,
                                    sizeof shortened);
        snprintf(line, sizeof line, "  %s%s%s %s%s%s", paint(p, RUNNING), name, paint(p, RESET),
                 rest, item[0] ? "  " : "", item);
        if (visible_width(line) >= width)
            cut_to(line, sizeof line, width);
        fputs(line, stderr);
        fputc('\n', stderr);
    }
    p->drawn = p->nsteps;
    p->last_draw = t;
    fflush(stderr);
}

/* A line for people above the live area (or simply a line). */
static void print_line(sc_cli_progress *p, const char *line)
{
    if (p->live)
        clear_area(p);
    fputs(line, stderr);
    fputc('\n', stderr);
    if (p->live && p->nsteps > 0)
        draw_area(p, now());
    fflush(stderr);
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
    char line[4096];
    snprintf(line, sizeof line, "scrollcase: %s%s%s%s%s", paint(p, RUNNING), step,
             paint(p, RESET), detail[0] ? ": " : "", detail);
    print_line(p, line);
}

static sc_cli_step_state *find_step(sc_cli_progress *p, const char *step)
{
    for (size_t i = 0; i < p->nsteps; i++)
        if (strcmp(p->steps[i].step, step) == 0)
            return &p->steps[i];
    return NULL;
}

static void forget_step(sc_cli_progress *p, sc_cli_step_state *s)
{
    size_t i = (size_t)(s - p->steps);
    memmove(&p->steps[i], &p->steps[i + 1], (p->nsteps - i - 1) * sizeof p->steps[0]);
    p->nsteps--;
}

void sc_cli_progress_event(void *ctx, const sc_progress_event *e)
{
    sc_cli_progress *p = ctx;
    if (p->quiet)
        return;
    double t = now();
    const char *item = e->item ? e->item : "";
    int starts = e->bytes_done == 0 && e->files_done == 0 && e->elapsed_ms == 0 && !e->finished;
    sc_cli_step_state *s = find_step(p, e->step);
    if (s == NULL || starts) {
        if (s == NULL) {
            if (p->nsteps == SC_CLI_LIVE_MAX)
                forget_step(p, &p->steps[0]); /* the oldest makes room */
            s = &p->steps[p->nsteps++];
        }
        memset(s, 0, sizeof *s);
        snprintf(s->step, sizeof s->step, "%s", e->step);
        snprintf(s->first_item, sizeof s->first_item, "%s", item);
        s->item_constant = 1;
        snprintf(s->unit, sizeof s->unit, "%s", e->unit ? e->unit : "");
        s->started = t;
        s->last_machine = s->last_plain = s->first_count = -1;
        starts = 1;
    }
    if (item[0]) {
        if (strcmp(item, s->first_item) != 0)
            s->item_constant = 0;
        snprintf(s->item, sizeof s->item, "%s", item);
    }
    if (s->first_count < 0 && (e->bytes_done > 0 || e->files_done > 0 || e->elapsed_ms > 0))
        s->first_count = t;
    s->bytes_done = e->bytes_done;
    s->bytes_total = e->bytes_total;
    s->files_done = e->files_done;
    s->files_total = e->files_total;
    s->elapsed_ms = e->elapsed_ms;
    s->limit_ms = e->limit_ms;
    if (p->machine != NULL && (e->finished || starts || t - s->last_machine >= 0.25)) {
        s->last_machine = t;
        machine_event(p, e);
    }
    if (p->json_stderr)
        return;
    char rest[256], line[1024];
    if (e->finished) {
        finished_text(s, t, rest, sizeof rest);
        /* printed above the live area, never redrawn: it may wrap; a path's
         * last name is enough here (the step line before named it whole) */
        const char *what = s->item_constant ? s->first_item : "";
        const char *slash = strrchr(what, '/');
        if (slash != NULL && slash[1] != '\0')
            what = slash + 1;
        compose(p, "scrollcase: ", DONE, s->step, what, rest, line, sizeof line);
        forget_step(p, s);
        print_line(p, line);
        return;
    }
    if (p->live) {
        if (starts || t - p->last_draw >= 0.1)
            draw_area(p, t);
        return;
    }
    /* not a terminal: a line only for a step that runs long */
    if (t - s->started >= SC_CLI_PLAIN_EVERY &&
        (s->last_plain < 0 || t - s->last_plain >= SC_CLI_PLAIN_EVERY)) {
        s->last_plain = t;
        running_text(s, t, 0, rest, sizeof rest);
        compose(p, "scrollcase: ", "", s->step, s->item, rest, line, sizeof line);
        print_line(p, line);
    }
}

void sc_cli_progress_break(sc_cli_progress *p)
{
    if (p->live)
        clear_area(p);
    p->nsteps = 0;
    fflush(stderr);
}

void sc_cli_progress_close(sc_cli_progress *p)
{
    sc_cli_progress_break(p);
    if (p->machine != NULL && !p->json_stderr)
        fclose(p->machine);
    p->machine = NULL;
}
