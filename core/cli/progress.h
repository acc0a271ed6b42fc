/* SPDX-License-Identifier: Apache-2.0 */
/*
 * progress.h (cli) — how the scrollcase command shows a long step's
 * progress (the library's events, scrollcase/progress.h, and its step lines).
 *
 *   --quiet            nothing
 *   --json             one JSON line per event on stderr
 *   --progress-fd N    one JSON line per event on file descriptor N (and
 *                      the people's form on stderr as without it)
 *   stderr a terminal  a live bar with rate and ETA, redrawn in place
 *   otherwise          plain lines, at most one a second per step, and the last
 *
 * Sizes for people carry the exact byte count.  Colour only on a terminal,
 * and never with NO_COLOR set or TERM=dumb.
 */
#ifndef SC_CLI_PROGRESS_H
#define SC_CLI_PROGRESS_H

#include <stdint.h>
#include <stdio.h>

#include "args.h"
#include "scrollcase/progress.h"

typedef struct sc_cli_progress {
    int quiet, bar, colour, json_stderr;
    FILE *machine;        /* JSON lines go here, or NULL */
    double started, last_shown, last_machine;
    size_t bar_width;     /* characters of the bar line drawn, 0: none open */
    char step[32];        /* the step of the open bar / last line */
} sc_cli_progress;

/* From --quiet, --progress-fd, --json and the terminal; 0 or the usage status. */
int sc_cli_progress_open(sc_cli_progress *p, const sc_cli_args *a);

/* A library progress event (an sc_progress_fn; ctx is the sc_cli_progress). */
void sc_cli_progress_event(void *ctx, const sc_progress_event *e);

/* A step line ("scrollcase: <step>: <detail>"), or its JSON event. */
void sc_cli_progress_step(sc_cli_progress *p, const char *step, const char *detail);

/* End an open bar line (before an error line, say). */
void sc_cli_progress_break(sc_cli_progress *p);

/* End an open bar line; close --progress-fd. */
void sc_cli_progress_close(sc_cli_progress *p);

#endif
