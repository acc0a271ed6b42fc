/* SPDX-License-Identifier: Apache-2.0 */
/*
 * progress.h (cli) — how the scrollcase command shows long steps (the
 * library's events, scrollcase/progress.h, and its step lines).
 *
 *   --quiet            nothing
 *   --json             one JSON line per event on stderr (exact bytes)
 *   --progress-fd N    one JSON line per event on file descriptor N (and
 *                      the people's form on stderr as without it)
 *   stderr a terminal  one live area at the bottom: a line per step that
 *                      is running (concurrent steps each on their own
 *                      line), redrawn in place; a finished step leaves it
 *                      and is printed above it as one line with its totals
 *   otherwise          one line per step when it ends, with its totals (a
 *   (or TERM=dumb)     step still running after SC_CLI_PLAIN_EVERY seconds
 *                      adds a line that often, so a CI log shows it is alive)
 *
 * Sizes for people are in binary units only ("6.3 MiB"); exact byte counts
 * are for --json.  Colour only on a terminal, and never with NO_COLOR set
 * or TERM=dumb.
 */
#ifndef SC_CLI_PROGRESS_H
#define SC_CLI_PROGRESS_H

#include <stdint.h>
#include <stdio.h>

#include "args.h"
#include "scrollcase/progress.h"

/* Steps running at once that get a line of their own. */
#define SC_CLI_LIVE_MAX 8
/* Seconds between the lines of a long step when stderr is not a terminal. */
#define SC_CLI_PLAIN_EVERY 10.0

typedef struct sc_cli_step_state {
    char step[32];
    char item[256];       /* the latest item */
    char first_item[256]; /* the item of its first event */
    int item_constant;    /* every event so far named first_item */
    char unit[16];        /* what its count counts, plural ("" : files) */
    double first_count;   /* when an event first counted something (-1: none) */
    uint64_t bytes_done, bytes_total, files_done, files_total, elapsed_ms, limit_ms;
    double started, last_machine, last_plain;
} sc_cli_step_state;

typedef struct sc_cli_progress {
    int quiet, live, colour, json_stderr;
    FILE *machine;        /* JSON lines go here, or NULL */
    sc_cli_step_state steps[SC_CLI_LIVE_MAX];
    size_t nsteps;        /* steps running */
    size_t drawn;         /* lines of the live area on the screen */
    double last_draw;
} sc_cli_progress;

/* From --quiet, --progress-fd, --json and the terminal; 0 or the usage status. */
int sc_cli_progress_open(sc_cli_progress *p, const sc_cli_args *a);

/* A library progress event (an sc_progress_fn; ctx is the sc_cli_progress). */
void sc_cli_progress_event(void *ctx, const sc_progress_event *e);

/* A step line ("scrollcase: <step>: <detail>"), or its JSON event. */
void sc_cli_progress_step(sc_cli_progress *p, const char *step, const char *detail);

/* Clear the live area (before an error line, say); steps still running
 * are forgotten. */
void sc_cli_progress_break(sc_cli_progress *p);

/* Clear the live area; close --progress-fd. */
void sc_cli_progress_close(sc_cli_progress *p);

#endif
