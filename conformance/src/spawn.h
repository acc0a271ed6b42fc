/* SPDX-License-Identifier: Apache-2.0 */
/*
 * spawn.h — running adapter processes: fork/exec without a shell, stdout
 * and stderr captured through pipes, a wall-clock deadline, and the whole
 * process group killed on timeout or once the adapter itself has exited.
 *
 * Several processes run at once: sc_proc_pump() waits (poll) on all of them
 * and returns after any progress, so no child can block on a full pipe.
 */
#ifndef SC_CONFORM_SPAWN_H
#define SC_CONFORM_SPAWN_H

#include <stddef.h>
#include <sys/types.h>

#include "util.h"

/* Most bytes of stdout kept; more is an adapter failure. */
#define SC_PROC_STDOUT_MAX ((size_t)16 * 1024 * 1024)
/* Most bytes of stderr kept (the rest is counted and dropped). */
#define SC_PROC_STDERR_MAX ((size_t)1024 * 1024)
/* How long descendants may hold the pipes after the adapter exited. */
#define SC_PROC_LINGER_MS 2000.0

typedef struct sc_proc {
    pid_t pid;   /* also the process group id; 0 once reaped */
    int in_fd;   /* write end of the child's stdin (persistent mode), or -1 */
    int out_fd;  /* -1 once closed */
    int err_fd;
    sc_buf out;
    sc_buf err;
    size_t out_total; /* bytes the child wrote, kept or not */
    size_t err_total;
    double start_ms;
    double deadline_ms;
    double end_ms;
    int exited;       /* the adapter process has terminated */
    int status;       /* its wait status */
    int timed_out;    /* killed at the deadline */
    int pipes_held;   /* descendants kept the pipes open past the linger time */
    int done;         /* exited, reaped and both pipes closed */
} sc_proc;

/*
 * Install the SIGCHLD self-pipe (once per process, before the first start).
 * Returns 0, or -1 with errno.
 */
int sc_proc_setup(void);

/*
 * Start argv[0] (looked up on PATH when it has no '/') with argv, in
 * directory cwd (NULL: unchanged), stdin from /dev/null, in a new process
 * group.  Returns 0, or -1 with errno when the program could not be started
 * (nothing is left running then).
 */
int sc_proc_start(sc_proc *p, char *const argv[], const char *cwd,
                  double timeout_ms);

/*
 * The same, but with stdin a pipe whose write end is p->in_fd (blocking,
 * close-on-exec) when pipe_stdin is set: the persistent adapter mode writes
 * its requests there.
 */
int sc_proc_start_io(sc_proc *p, char *const argv[], const char *cwd,
                     double timeout_ms, int pipe_stdin);

/* Close the write end of the child's stdin (EOF for a persistent adapter). */
void sc_proc_close_stdin(sc_proc *p);

/*
 * Wait until at least one of the n processes makes progress (output, exit,
 * deadline) or a signal arrives, and handle it.  Processes already done are
 * skipped.
 */
void sc_proc_pump(sc_proc *const *procs, size_t n);

/* Kill the group of a running process (used when the runner is stopped). */
void sc_proc_kill(sc_proc *p);

/* Free the captured output. */
void sc_proc_release(sc_proc *p);

#endif
