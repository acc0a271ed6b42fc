/* SPDX-License-Identifier: Apache-2.0 */
/*
 * spawn.c — see spawn.h.
 *
 * Exit detection uses a SIGCHLD self-pipe so poll() wakes when a child ends.
 * A child that has ended is first observed with waitid(WNOWAIT): while it is
 * an unreaped zombie its pid (= its process group id) cannot be reused, so
 * killing the group at that moment can only hit its own leftovers.
 */
#include "spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int chld_pipe[2] = {-1, -1};

static void on_sigchld(int sig)
{
    (void)sig;
    int saved = errno;
    char c = 0;
    ssize_t r = write(chld_pipe[1], &c, 1); /* full pipe: a wake-up is pending anyway */
    (void)r;
    errno = saved;
}

static int set_flags(int fd, int cloexec, int nonblock)
{
    if (cloexec) {
        int f = fcntl(fd, F_GETFD);
        if (f < 0 || fcntl(fd, F_SETFD, f | FD_CLOEXEC) < 0)
            return -1;
    }
    if (nonblock) {
        int f = fcntl(fd, F_GETFL);
        if (f < 0 || fcntl(fd, F_SETFL, f | O_NONBLOCK) < 0)
            return -1;
    }
    return 0;
}

static int make_pipe(int fds[2])
{
    if (pipe(fds) != 0)
        return -1;
    if (set_flags(fds[0], 1, 0) != 0 || set_flags(fds[1], 1, 0) != 0) {
        int e = errno;
        close(fds[0]);
        close(fds[1]);
        errno = e;
        return -1;
    }
    return 0;
}

int sc_proc_setup(void)
{
    if (chld_pipe[0] >= 0)
        return 0;
    if (make_pipe(chld_pipe) != 0)
        return -1;
    if (set_flags(chld_pipe[0], 1, 1) != 0 || set_flags(chld_pipe[1], 1, 1) != 0)
        return -1;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigchld;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART | SA_NOCLDSTOP;
    return sigaction(SIGCHLD, &sa, NULL);
}

static void close_fd(int *fd)
{
    if (*fd >= 0) {
        close(*fd);
        *fd = -1;
    }
}

/* In the child between fork and exec: only async-signal-safe calls. */
static void child(char *const argv[], const char *cwd, int in_r, int out_w, int err_w,
                  int report_w)
{
    int e;
    setpgid(0, 0);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    signal(SIGPIPE, SIG_DFL);

    int devnull = in_r >= 0 ? in_r : open("/dev/null", O_RDONLY);
    if (devnull < 0)
        goto fail;
    if (dup2(devnull, 0) < 0 || dup2(out_w, 1) < 0 || dup2(err_w, 2) < 0)
        goto fail;
    /* dup2 onto the same number keeps close-on-exec: clear it explicitly. */
    fcntl(0, F_SETFD, 0);
    fcntl(1, F_SETFD, 0);
    fcntl(2, F_SETFD, 0);
    if (cwd != NULL && chdir(cwd) != 0)
        goto fail;
    execvp(argv[0], argv);
fail:
    e = errno;
    {
        ssize_t r = write(report_w, &e, sizeof e);
        (void)r;
    }
    _exit(127);
}

int sc_proc_start(sc_proc *p, char *const argv[], const char *cwd,
                  double timeout_ms)
{
    return sc_proc_start_io(p, argv, cwd, timeout_ms, 0);
}

int sc_proc_start_io(sc_proc *p, char *const argv[], const char *cwd,
                     double timeout_ms, int pipe_stdin)
{
    memset(p, 0, sizeof *p);
    p->in_fd = p->out_fd = p->err_fd = -1;
    int in[2] = {-1, -1}, out[2], err[2], rep[2];
    if (pipe_stdin && make_pipe(in) != 0)
        return -1;
    if (make_pipe(out) != 0) {
        int e = errno;
        close_fd(&in[0]);
        close_fd(&in[1]);
        errno = e;
        return -1;
    }
    if (make_pipe(err) != 0) {
        int e = errno;
        close_fd(&in[0]);
        close_fd(&in[1]);
        close(out[0]);
        close(out[1]);
        errno = e;
        return -1;
    }
    if (make_pipe(rep) != 0) {
        int e = errno;
        close_fd(&in[0]);
        close_fd(&in[1]);
        close(out[0]);
        close(out[1]);
        close(err[0]);
        close(err[1]);
        errno = e;
        return -1;
    }

    pid_t pid = fork();
    if (pid < 0) {
        int e = errno;
        close_fd(&in[0]);
        close_fd(&in[1]);
        close(out[0]);
        close(out[1]);
        close(err[0]);
        close(err[1]);
        close(rep[0]);
        close(rep[1]);
        errno = e;
        return -1;
    }
    if (pid == 0)
        child(argv, cwd, in[0], out[1], err[1], rep[1]);

    /* Both sides call setpgid so the group exists before anyone kills it. */
    (void)setpgid(pid, pid);
    close_fd(&in[0]);
    close(out[1]);
    close(err[1]);
    close(rep[1]);

    int child_errno = 0;
    ssize_t n;
    do
        n = read(rep[0], &child_errno, sizeof child_errno);
    while (n < 0 && errno == EINTR);
    close(rep[0]);
    if (n == (ssize_t)sizeof child_errno) {
        int st;
        while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
            ;
        close_fd(&in[1]);
        close(out[0]);
        close(err[0]);
        errno = child_errno;
        return -1;
    }

    set_flags(out[0], 1, 1);
    set_flags(err[0], 1, 1);
    p->pid = pid;
    p->in_fd = in[1];
    p->out_fd = out[0];
    p->err_fd = err[0];
    p->start_ms = sc_now_ms();
    p->deadline_ms = p->start_ms + timeout_ms;
    return 0;
}

static void drain(sc_proc *p, int *fd, sc_buf *keep, size_t *total, size_t max)
{
    char buf[65536];
    ssize_t n = read(*fd, buf, sizeof buf);
    if (n > 0) {
        size_t room = keep->len < max ? max - keep->len : 0;
        sc_buf_add(keep, buf, (size_t)n < room ? (size_t)n : room);
        *total += (size_t)n;
    } else if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
        close_fd(fd);
    }
    (void)p;
}

/* Observe (and then reap) the adapter if it has ended. */
static void check_exit(sc_proc *p)
{
    if (p->exited || p->pid <= 0)
        return;
    siginfo_t si;
    memset(&si, 0, sizeof si);
    if (waitid(P_PID, (id_t)p->pid, &si, WEXITED | WNOHANG | WNOWAIT) != 0)
        return;
    if (si.si_pid == 0)
        return;
    /* The zombie still holds its pid: the group id is safe to signal. */
    (void)kill(-p->pid, SIGKILL);
    int st = 0;
    while (waitpid(p->pid, &st, 0) < 0 && errno == EINTR)
        ;
    p->status = st;
    p->exited = 1;
    p->pid = 0;
    double linger = sc_now_ms() + SC_PROC_LINGER_MS;
    if (linger < p->deadline_ms)
        p->deadline_ms = linger;
}

static void check_deadline(sc_proc *p, double now)
{
    if (now < p->deadline_ms)
        return;
    if (!p->exited) {
        if (!p->timed_out) {
            p->timed_out = 1;
            (void)kill(-p->pid, SIGKILL);
            (void)kill(p->pid, SIGKILL);
        }
        /* Wake up again soon to reap it. */
        p->deadline_ms = now + SC_PROC_LINGER_MS;
    } else if (p->out_fd >= 0 || p->err_fd >= 0) {
        p->pipes_held = 1;
        close_fd(&p->out_fd);
        close_fd(&p->err_fd);
    }
}

static void update_done(sc_proc *p)
{
    if (!p->done && p->exited && p->out_fd < 0 && p->err_fd < 0) {
        p->done = 1;
        p->end_ms = sc_now_ms();
    }
}

void sc_proc_pump(sc_proc *const *procs, size_t n)
{
    struct pollfd *fds = sc_xmalloc(sizeof *fds * (2 * n + 1));
    /* which proc and which stream each pollfd belongs to */
    size_t *who = sc_xmalloc(sizeof *who * (2 * n + 1));
    int *which = sc_xmalloc(sizeof *which * (2 * n + 1));
    size_t k = 0;
    double now = sc_now_ms();
    double wait = -1;

    fds[k].fd = chld_pipe[0];
    fds[k].events = POLLIN;
    who[k] = 0;
    which[k] = -1;
    k++;
    for (size_t i = 0; i < n; i++) {
        sc_proc *p = procs[i];
        if (p->done)
            continue;
        /* A child may have ended before its SIGCHLD reached us. */
        check_exit(p);
        double left = p->deadline_ms - now;
        if (left < 0)
            left = 0;
        if (wait < 0 || left < wait)
            wait = left;
        if (p->out_fd >= 0) {
            fds[k].fd = p->out_fd;
            fds[k].events = POLLIN;
            who[k] = i;
            which[k] = 1;
            k++;
        }
        if (p->err_fd >= 0) {
            fds[k].fd = p->err_fd;
            fds[k].events = POLLIN;
            who[k] = i;
            which[k] = 2;
            k++;
        }
    }
    int timeout;
    if (wait < 0)
        timeout = -1;
    else if (wait >= (double)INT_MAX)
        timeout = INT_MAX;
    else
        timeout = (int)wait + 1;

    int r = poll(fds, (nfds_t)k, timeout);
    if (r > 0) {
        for (size_t j = 0; j < k; j++) {
            if (fds[j].revents == 0)
                continue;
            if (which[j] < 0) {
                char sink[64];
                while (read(chld_pipe[0], sink, sizeof sink) > 0)
                    ;
                continue;
            }
            sc_proc *p = procs[who[j]];
            if (which[j] == 1 && p->out_fd >= 0)
                drain(p, &p->out_fd, &p->out, &p->out_total, SC_PROC_STDOUT_MAX);
            else if (which[j] == 2 && p->err_fd >= 0)
                drain(p, &p->err_fd, &p->err, &p->err_total, SC_PROC_STDERR_MAX);
        }
    }
    now = sc_now_ms();
    for (size_t i = 0; i < n; i++) {
        sc_proc *p = procs[i];
        if (p->done)
            continue;
        check_exit(p);
        check_deadline(p, now);
        check_exit(p);
        update_done(p);
    }
    free(fds);
    free(who);
    free(which);
}

void sc_proc_kill(sc_proc *p)
{
    if (p->pid > 0 && !p->exited) {
        (void)kill(-p->pid, SIGKILL);
        (void)kill(p->pid, SIGKILL);
    }
}

void sc_proc_close_stdin(sc_proc *p)
{
    close_fd(&p->in_fd);
}

void sc_proc_release(sc_proc *p)
{
    if (p->pid > 0 && !p->exited) {
        sc_proc_kill(p);
        int st;
        while (waitpid(p->pid, &st, 0) < 0 && errno == EINTR)
            ;
        p->pid = 0;
        p->exited = 1;
    }
    close_fd(&p->in_fd);
    close_fd(&p->out_fd);
    close_fd(&p->err_fd);
    sc_buf_free(&p->out);
    sc_buf_free(&p->err);
}
