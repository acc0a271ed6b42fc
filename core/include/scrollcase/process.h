/* SPDX-License-Identifier: Apache-2.0 */
/*
 * process.h — running one child process, without a shell, ever.
 *
 * Guarantees (docs/format-v3.md 16.6): the program is execve'd directly with
 * exactly the given argv and environment, in the given directory; a failure
 * to start (exec, chdir or descriptor setup in the child) is reported to the
 * parent through a close-on-exec pipe as spawn-failure, never as an exit
 * status.  A non-zero exit and a death by signal are results, not errors.
 * Signal handlers installed for forwarding are installed before fork and the
 * previous ones restored before returning; the forwarded signals are blocked
 * across fork so one that arrives before the child's pid is recorded is
 * kept and forwarded.  The handlers use process-wide state: one
 * sc_process_run with forward_signals at a time per process.
 */
#ifndef SCROLLCASE_PROCESS_H
#define SCROLLCASE_PROCESS_H

#include "scrollcase/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* After a timeout's SIGTERM, how long the child has before SIGKILL. */
#define SC_PROCESS_KILL_GRACE_SECONDS 5

typedef struct sc_process_spec {
    const char *program;        /* absolute path, execve'd directly */
    char *const *argv;          /* argv[0] included, NULL-terminated */
    char *const *envp;          /* the complete environment, NULL-terminated */
    const char *cwd;            /* NULL: the caller's */
    int stdin_fd, stdout_fd, stderr_fd; /* -1: inherit */
    int timeout_seconds;        /* 0: none; past it: SIGTERM, then SIGKILL after 5 s -> SC_E_TIMEOUT */
    int forward_signals;        /* forward SIGINT, SIGTERM, SIGHUP received meanwhile to the child */
    int own_process_group;      /* child in its own group (timeouts kill the group) */
    /* NULL, or called on this thread about once a second while the child
     * runs, with the milliseconds since it started (for progress; what it
     * does never changes the run) */
    void (*tick)(void *ctx, unsigned long long elapsed_ms);
    void *tick_ctx;
    /* With forward_signals: once the child has ended, a signal forwarded to
     * it ends this process too, by cleanup.h (what is registered there is
     * removed), when cleanup.h's handler is installed.  For the children a
     * command starts on its own behalf (tools, gates, the self-test), whose
     * interruption is the command's; sc_run leaves it 0 and reports. */
    int exit_on_forwarded;
} sc_process_spec;

typedef struct sc_process_result {
    int exited;                 /* 1: exit_code valid; 0: killed by term_signal */
    int exit_code, term_signal;
    int forwarded_signal;       /* last signal forwarded, 0 if none */
} sc_process_result;

/*
 * Run and wait.  exec failure in the child (ENOENT, EACCES, ENOEXEC, ...) ->
 * SC_E_SPAWN_FAILURE "Box interpreter failed to start: <path>: <strerror>".
 * A timeout -> SC_E_TIMEOUT with *out describing how the child ended.
 */
sc_code sc_process_run(const sc_process_spec *spec, sc_process_result *out,
                       sc_error *err);

/*
 * The library installs no signal handler unless the program asks.  A caller
 * of sc_process_run (or sc_run, sc_box_run_temporary) asks per call with
 * forward_signals; the children the library starts on its own behalf (the
 * self-test of sc_box_self_test, the gates of sc_gate_*, the tools of
 * envsource.h) forward SIGINT, SIGTERM and SIGHUP to the child only after
 * sc_process_set_signal_forwarding(1).  Off by default; the scrollcase
 * command turns it on.  Process-wide, like the signal dispositions it
 * governs: set it before starting threads.
 */
void sc_process_set_signal_forwarding(int on);
int sc_process_signal_forwarding(void);

/* "SIGTERM"; "SIG<n>" for one without a name here.  Thread-unsafe for
 * unknown numbers (a static buffer). */
const char *sc_signal_name(int sig);

#ifdef __cplusplus
}
#endif

#endif
