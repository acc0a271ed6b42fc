/* SPDX-License-Identifier: Apache-2.0 */
/*
 * process.c — running one child process, without a shell, ever.
 *
 * Guarantees: see process.h.  The child between fork and execve calls only
 * async-signal-safe functions; everything it needs (argv, envp) is built by
 * the caller beforehand.  The parent learns whether execve succeeded from a
 * close-on-exec pipe: end of file means the program is running, a record
 * means the child failed before it and carries the errno.  A child that has
 * ended is first observed without being reaped (waitid WNOWAIT), the
 * forwarded signals are blocked, and only then is it reaped, so a forwarded
 * signal can never reach a process that reused its pid.
 */
#define _POSIX_C_SOURCE 200809L
#include "scrollcase/process.h"

#include "scrollcase/cleanup.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <poll.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The forwarding handler's state (signal handlers have no context). */
static volatile sig_atomic_t g_child;
static volatile sig_atomic_t g_child_group; /* it leads its own process group */
static volatile sig_atomic_t g_forwarded;

static const int forwarded_signals[] = {SIGINT, SIGTERM, SIGHUP};
#define NFWD 3

static void forward_handler(int sig)
{
    int saved = errno;
    if (g_child > 0) {
        if (g_child_group)
            kill(-(pid_t)g_child, sig); /* what it started, too */
        kill((pid_t)g_child, sig);
        g_forwarded = sig;
    }
    errno = saved;
}

/* sc_process_set_signal_forwarding: off until the program asks. */
static volatile sig_atomic_t g_forwarding_allowed;

void sc_process_set_signal_forwarding(int on)
{
    g_forwarding_allowed = on ? 1 : 0;
}

int sc_process_signal_forwarding(void)
{
    return g_forwarding_allowed ? 1 : 0;
}

/* What the child reports when it fails before execve. */
enum { STAGE_FDS = 1, STAGE_CWD = 2, STAGE_EXEC = 3 };
struct child_failure {
    int stage;
    int errnum;
};

static void child_fail(int fd, int stage)
{
    struct child_failure f = {stage, errno};
    ssize_t w = write(fd, &f, sizeof f);
    (void)w;
    _exit(127);
}

static void child(const sc_process_spec *spec, int report_fd,
                  const struct sigaction *old_actions, const sigset_t *old_mask)
{
    if (spec->forward_signals)
        for (int i = 0; i < NFWD; i++)
            sigaction(forwarded_signals[i], &old_actions[i], NULL);
    sigprocmask(SIG_SETMASK, old_mask, NULL);
    if (spec->own_process_group)
        setpgid(0, 0);
    int want[3] = {spec->stdin_fd, spec->stdout_fd, spec->stderr_fd};
    int tmp[3] = {-1, -1, -1};
    for (int i = 0; i < 3; i++)
        if (want[i] >= 0 && (tmp[i] = fcntl(want[i], F_DUPFD_CLOEXEC, 3)) < 0)
            child_fail(report_fd, STAGE_FDS);
    for (int i = 0; i < 3; i++)
        if (tmp[i] >= 0 && dup2(tmp[i], i) < 0)
            child_fail(report_fd, STAGE_FDS);
    if (spec->cwd != NULL && chdir(spec->cwd) != 0)
        child_fail(report_fd, STAGE_CWD);
    execve(spec->program, spec->argv, spec->envp);
    child_fail(report_fd, STAGE_EXEC);
}

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void signal_child(pid_t pid, int group, int sig)
{
    if (group)
        kill(-pid, sig);
    kill(pid, sig);
}

/* Wait until the child has ended, without reaping it.  Returns 1 if the
 * timeout expired (and the child was then killed), else 0. */
static int wait_ended(const sc_process_spec *spec, pid_t pid)
{
    siginfo_t info;
    if (spec->timeout_seconds <= 0 && spec->tick == NULL) {
        for (;;) {
            memset(&info, 0, sizeof info);
            if (waitid(P_PID, (id_t)pid, &info, WEXITED | WNOWAIT) == 0)
                return 0;
            if (errno != EINTR)
                return 0; /* nothing left to wait for; waitpid reports it */
        }
    }
    double started = now_seconds(), next_tick = started + 1.0;
    double deadline = spec->timeout_seconds > 0 ? started + spec->timeout_seconds : 0;
    double kill_at = 0;
    int termed = 0, killed = 0;
    /* A pidfd turns readable when the child ends: waiting on it wakes at
     * once, where a 10 ms nap would cost every short tool (git, the
     * self-test) up to 10 ms.  Without pidfd_open (Linux < 5.3), the naps. */
    int pfd = -1;
#ifdef SYS_pidfd_open
    pfd = (int)syscall(SYS_pidfd_open, pid, 0);
#endif
    for (;;) {
        memset(&info, 0, sizeof info);
        int r = waitid(P_PID, (id_t)pid, &info, WEXITED | WNOWAIT | WNOHANG);
        if ((r == 0 && info.si_pid == pid) || (r != 0 && errno != EINTR)) {
            if (pfd >= 0)
                close(pfd);
            return termed;
        }
        double t = now_seconds();
        if (spec->tick != NULL && t >= next_tick) {
            spec->tick(spec->tick_ctx, (unsigned long long)((t - started) * 1000.0));
            next_tick += 1.0;
            if (next_tick < t)
                next_tick = t + 1.0;
        }
        if (!termed && deadline > 0 && t >= deadline) {
            signal_child(pid, spec->own_process_group, SIGTERM);
            termed = 1;
            kill_at = t + SC_PROCESS_KILL_GRACE_SECONDS;
        } else if (termed && !killed && t >= kill_at) {
            signal_child(pid, spec->own_process_group, SIGKILL);
            killed = 1;
        }
        if (pfd >= 0) {
            double until = killed ? t + 0.1 : termed ? kill_at : deadline > 0 ? deadline : t + 60.0;
            if (spec->tick != NULL && next_tick < until)
                until = next_tick; /* wake for the next tick */
            double ms = (until - t) * 1000.0 + 1.0;
            struct pollfd pf = {pfd, POLLIN, 0};
            (void)poll(&pf, 1, ms < 1.0 ? 1 : ms > 60000.0 ? 60000 : (int)ms);
        } else {
            struct timespec nap = {0, 10 * 1000 * 1000};
            nanosleep(&nap, NULL);
        }
    }
}

static void reap(pid_t pid, int *status)
{
    while (waitpid(pid, status, 0) < 0 && errno == EINTR)
        ;
}

sc_code sc_process_run(const sc_process_spec *spec, sc_process_result *out,
                       sc_error *err)
{
    memset(out, 0, sizeof *out);
    if (spec->program == NULL || spec->program[0] != '/' || spec->argv == NULL ||
        spec->argv[0] == NULL || spec->envp == NULL)
        return sc_error_set(err, SC_E_USAGE, NULL,
                            "a process needs an absolute program, argv[0] and an environment");
    int pfd[2];
    if (pipe(pfd) != 0)
        return sc_error_set(err, SC_E_IO, NULL, "pipe: %s", strerror(errno));
    fcntl(pfd[0], F_SETFD, FD_CLOEXEC);
    fcntl(pfd[1], F_SETFD, FD_CLOEXEC);

    sigset_t fwd, old_mask;
    struct sigaction old_actions[NFWD];
    memset(old_actions, 0, sizeof old_actions);
    sigemptyset(&old_mask);
    sigemptyset(&fwd);
    for (int i = 0; i < NFWD; i++)
        sigaddset(&fwd, forwarded_signals[i]);
    /* Blocked first: a signal from now until the pid is recorded (for
     * forwarding, or for cleanup.h's handler) stays pending until then. */
    sigprocmask(SIG_BLOCK, &fwd, &old_mask);
    if (spec->forward_signals) {
        g_child = 0;
        g_forwarded = 0;
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = forward_handler;
        sigemptyset(&sa.sa_mask);
        sa.sa_flags = 0;
        for (int i = 0; i < NFWD; i++)
            sigaction(forwarded_signals[i], &sa, &old_actions[i]);
    }

    pid_t pid = fork();
    if (pid == 0)
        child(spec, pfd[1], old_actions, &old_mask);
    int fork_errno = errno;
    close(pfd[1]);
    int cleanup_slot = -1;
    if (pid > 0) {
        if (spec->own_process_group)
            setpgid(pid, pid); /* also here: no race with the child's own call */
        g_child_group = spec->own_process_group ? 1 : 0;
        g_child = (sig_atomic_t)pid;
        /* Not forwarding: cleanup.h's handler, if installed, ends it. */
        if (!spec->forward_signals)
            cleanup_slot = sc_cleanup_add_child(pid, spec->own_process_group);
    }
    if (spec->forward_signals)
        sigprocmask(SIG_UNBLOCK, &fwd, NULL);
    else
        sigprocmask(SIG_SETMASK, &old_mask, NULL);

    sc_code code = SC_OK;
    if (pid < 0) {
        code = sc_error_set(err, SC_E_SPAWN_FAILURE, spec->program,
                            "Box interpreter failed to start: %s: %s", spec->program,
                            strerror(fork_errno));
    } else {
        struct child_failure f;
        size_t got = 0;
        while (got < sizeof f) {
            ssize_t r = read(pfd[0], (char *)&f + got, sizeof f - got);
            if (r < 0 && errno == EINTR)
                continue;
            if (r <= 0)
                break;
            got += (size_t)r;
        }
        int timed_out = 0;
        if (got == sizeof f) {
            int st;
            if (spec->forward_signals)
                sigprocmask(SIG_BLOCK, &fwd, NULL);
            g_child = 0;
            sc_cleanup_drop_child(cleanup_slot); /* before the pid can be reused */
            reap(pid, &st);
            if (f.stage == STAGE_CWD)
                code = sc_error_set(err, SC_E_SPAWN_FAILURE, spec->program,
                                    "Box interpreter failed to start: %s: cannot enter %s: %s",
                                    spec->program, spec->cwd, strerror(f.errnum));
            else
                code = sc_error_set(err, SC_E_SPAWN_FAILURE, spec->program,
                                    "Box interpreter failed to start: %s: %s",
                                    spec->program, strerror(f.errnum));
        } else {
            timed_out = wait_ended(spec, pid);
            if (spec->forward_signals)
                sigprocmask(SIG_BLOCK, &fwd, NULL);
            g_child = 0;
            sc_cleanup_drop_child(cleanup_slot); /* before the pid can be reused */
            /* Done means the child ended: whatever it left running in its
             * group (a helper holding its output open) ends with it; the
             * child is not reaped yet, so its pid, the group's id, is ours. */
            if (spec->own_process_group)
                kill(-pid, SIGKILL);
            int st = 0;
            reap(pid, &st);
            if (WIFEXITED(st)) {
                out->exited = 1;
                out->exit_code = WEXITSTATUS(st);
            } else if (WIFSIGNALED(st)) {
                out->term_signal = WTERMSIG(st);
            }
            out->forwarded_signal = spec->forward_signals ? (int)g_forwarded : 0;
            if (timed_out)
                code = sc_error_set(err, SC_E_TIMEOUT, spec->program,
                                    "%s did not finish within %d seconds", spec->program,
                                    spec->timeout_seconds);
        }
    }
    close(pfd[0]);
    if (spec->forward_signals) {
        for (int i = 0; i < NFWD; i++)
            sigaction(forwarded_signals[i], &old_actions[i], NULL);
        sigprocmask(SIG_SETMASK, &old_mask, NULL);
        if (out->forwarded_signal != 0 && spec->exit_on_forwarded && sc_cleanup_installed())
            sc_cleanup_exit_by_signal(out->forwarded_signal);
    }
    return code;
}

const char *sc_signal_name(int sig)
{
    static const struct {
        int sig;
        const char *name;
    } names[] = {
        {SIGHUP, "SIGHUP"},   {SIGINT, "SIGINT"},   {SIGQUIT, "SIGQUIT"},
        {SIGILL, "SIGILL"},   {SIGTRAP, "SIGTRAP"}, {SIGABRT, "SIGABRT"},
        {SIGBUS, "SIGBUS"},   {SIGFPE, "SIGFPE"},   {SIGKILL, "SIGKILL"},
        {SIGUSR1, "SIGUSR1"}, {SIGSEGV, "SIGSEGV"}, {SIGUSR2, "SIGUSR2"},
        {SIGPIPE, "SIGPIPE"}, {SIGALRM, "SIGALRM"}, {SIGTERM, "SIGTERM"},
        {SIGCHLD, "SIGCHLD"}, {SIGCONT, "SIGCONT"}, {SIGSTOP, "SIGSTOP"},
        {SIGTSTP, "SIGTSTP"}, {SIGTTIN, "SIGTTIN"}, {SIGTTOU, "SIGTTOU"},
        {SIGXCPU, "SIGXCPU"}, {SIGXFSZ, "SIGXFSZ"},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (names[i].sig == sig)
            return names[i].name;
    static _Thread_local char buf[24];
    snprintf(buf, sizeof buf, "SIG%d", sig);
    return buf;
}
