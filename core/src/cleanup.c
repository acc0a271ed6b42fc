/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cleanup.c — what an interrupted command removes and ends.
 *
 * Guarantees: see cleanup.h.  A slot is claimed with an atomic
 * compare-and-swap (free -> busy), filled, then published (busy -> set);
 * the handler reads only published slots, and uses only async-signal-safe
 * calls.  Dropping a slot unpublishes it before its descriptor is closed,
 * with the signals held, so the handler never uses a closed descriptor.
 */
#define _GNU_SOURCE
#include "cleanup_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "scrollcase/file.h"

enum { SLOT_FREE = 0, SLOT_BUSY = 1, SLOT_SET = 2 };

typedef struct path_slot {
    int state;
    int parent;
    char name[NAME_MAX + 1];
    char *path; /* the caller's view; never read by the handler */
} path_slot;

typedef struct child_slot {
    int state;
    pid_t pid;
    int group;
} child_slot;

static path_slot g_paths[SC_CLEANUP_SLOTS];
/* SCROLLCASE_TEST_HOLD (cleanup.h): the text and the descriptor, once */
static char g_hold_text[64];
static int g_hold_fd = -1;
static child_slot g_children[SC_CLEANUP_SLOTS];
static int g_installed;

/* How long the children have to end after the signal before SIGKILL. */
#define CHILD_GRACE_MS 2000

static int claim(int *state)
{
    int expect = SLOT_FREE;
    return __atomic_compare_exchange_n(state, &expect, SLOT_BUSY, 0, __ATOMIC_ACQ_REL,
                                       __ATOMIC_ACQUIRE);
}

static int is_set(const int *state)
{
    return __atomic_load_n(state, __ATOMIC_ACQUIRE) == SLOT_SET;
}

void sc_cleanup_hold(sigset_t *old)
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGHUP);
    pthread_sigmask(SIG_BLOCK, &set, old);
}

void sc_cleanup_release(const sigset_t *old)
{
    pthread_sigmask(SIG_SETMASK, old, NULL);
}

/* Open the parent directory of path. */
static int open_parent(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (slash == NULL)
        return open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (slash == path)
        return open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    size_t n = (size_t)(slash - path);
    char *dir = malloc(n + 1);
    if (dir == NULL)
        return -1;
    memcpy(dir, path, n);
    dir[n] = '\0';
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    int e = errno;
    free(dir);
    errno = e;
    return fd;
}

int sc_cleanup_add_path(const char *path)
{
    if (path == NULL)
        return -1;
    const char *slash = strrchr(path, '/');
    const char *name = slash != NULL ? slash + 1 : path;
    size_t n = strlen(name);
    if (n == 0 || n > NAME_MAX)
        return -1;
    int slot = -1;
    for (int i = 0; i < SC_CLEANUP_SLOTS && slot < 0; i++)
        if (claim(&g_paths[i].state))
            slot = i;
    if (slot < 0)
        return -1;
    path_slot *s = &g_paths[slot];
    s->path = strdup(path);
    s->parent = s->path != NULL ? open_parent(path) : -1;
    if (s->parent < 0) {
        free(s->path);
        s->path = NULL;
        __atomic_store_n(&s->state, SLOT_FREE, __ATOMIC_RELEASE);
        return -1;
    }
    memcpy(s->name, name, n + 1);
    __atomic_store_n(&s->state, SLOT_SET, __ATOMIC_RELEASE);
    int fd = g_hold_fd;
    if (fd >= 0 && strstr(name, g_hold_text) != NULL &&
        __atomic_compare_exchange_n(&g_hold_fd, &fd, -1, 0, __ATOMIC_ACQ_REL,
                                    __ATOMIC_ACQUIRE)) {
        /* the test hook: say where, wait to be let go */
        if (write(fd, path, strlen(path)) >= 0 && write(fd, "\n", 1) >= 0) {
            char b;
            while (read(fd, &b, 1) < 0 && errno == EINTR)
                ;
        }
        close(fd);
    }
    return slot;
}

void sc_cleanup_drop_path(int slot, int remove_now)
{
    if (slot < 0 || slot >= SC_CLEANUP_SLOTS || !is_set(&g_paths[slot].state))
        return;
    path_slot *s = &g_paths[slot];
    sigset_t held;
    sc_cleanup_hold(&held);
    __atomic_store_n(&s->state, SLOT_BUSY, __ATOMIC_RELEASE);
    sc_cleanup_release(&held);
    if (remove_now)
        (void)sc_file_remove_at(s->parent, s->name);
    close(s->parent);
    s->parent = -1;
    s->name[0] = '\0';
    free(s->path);
    s->path = NULL;
    __atomic_store_n(&s->state, SLOT_FREE, __ATOMIC_RELEASE);
}

int sc_cleanup_mkdtemp(char *tmpl, int *slot)
{
    *slot = -1;
    sigset_t held;
    sc_cleanup_hold(&held);
    if (mkdtemp(tmpl) == NULL) {
        int e = errno;
        sc_cleanup_release(&held);
        errno = e;
        return -1;
    }
    *slot = sc_cleanup_add_path(tmpl);
    sc_cleanup_release(&held);
    return 0;
}

int sc_cleanup_remove_dir(int slot, const char *path)
{
    if (slot >= 0 && slot < SC_CLEANUP_SLOTS && is_set(&g_paths[slot].state)) {
        path_slot *s = &g_paths[slot];
        int r = sc_file_remove_at(s->parent, s->name);
        int e = errno;
        sc_cleanup_drop_path(slot, 0);
        errno = e;
        return r;
    }
    return path != NULL ? sc_file_remove_at(AT_FDCWD, path) : 0;
}

const char *sc_cleanup_path(int slot)
{
    if (slot < 0 || slot >= SC_CLEANUP_SLOTS || !is_set(&g_paths[slot].state) ||
        g_paths[slot].path == NULL)
        return "";
    return g_paths[slot].path;
}

int sc_cleanup_add_child(long pid, int group)
{
    if (pid <= 0)
        return -1;
    for (int i = 0; i < SC_CLEANUP_SLOTS; i++)
        if (claim(&g_children[i].state)) {
            g_children[i].pid = (pid_t)pid;
            g_children[i].group = group;
            __atomic_store_n(&g_children[i].state, SLOT_SET, __ATOMIC_RELEASE);
            return i;
        }
    return -1;
}

void sc_cleanup_drop_child(int slot)
{
    if (slot < 0 || slot >= SC_CLEANUP_SLOTS)
        return;
    sigset_t held;
    sc_cleanup_hold(&held);
    __atomic_store_n(&g_children[slot].state, SLOT_FREE, __ATOMIC_RELEASE);
    sc_cleanup_release(&held);
}

/* Signal the registered children, give them the grace to end (reaping
 * those that do), then SIGKILL what is left of each, group included. */
static void end_children(int sig)
{
    int any = 0;
    for (int i = 0; i < SC_CLEANUP_SLOTS; i++) {
        child_slot *c = &g_children[i];
        pid_t pid = c->pid;
        /* a child reaped by an earlier cleanup keeps its slot with pid 0:
         * kill(0) or kill(-0) would signal our own process group */
        if (!is_set(&c->state) || pid <= 0)
            continue;
        any = 1;
        if (c->group)
            kill(-pid, sig);
        kill(pid, sig);
    }
    if (!any)
        return;
    for (int waited = 0; waited < CHILD_GRACE_MS; waited += 10) {
        int left = 0;
        for (int i = 0; i < SC_CLEANUP_SLOTS; i++) {
            child_slot *c = &g_children[i];
            if (!is_set(&c->state) || c->pid <= 0)
                continue;
            siginfo_t info;
            memset(&info, 0, sizeof info);
            /* ended, not yet reaped: its pid still names its group */
            int r = waitid(P_PID, (id_t)c->pid, &info, WEXITED | WNOHANG | WNOWAIT);
            if ((r == 0 && info.si_pid == c->pid) || (r < 0 && errno == ECHILD)) {
                if (c->group && r == 0)
                    kill(-c->pid, SIGKILL); /* what it left in its group */
                int st;
                (void)waitpid(c->pid, &st, WNOHANG);
                c->pid = 0;
            } else {
                left = 1;
            }
        }
        if (!left)
            return;
        struct timespec nap = {0, 10 * 1000 * 1000};
        nanosleep(&nap, NULL);
    }
    for (int i = 0; i < SC_CLEANUP_SLOTS; i++) {
        child_slot *c = &g_children[i];
        if (!is_set(&c->state) || c->pid <= 0)
            continue;
        if (c->group)
            kill(-c->pid, SIGKILL);
        kill(c->pid, SIGKILL);
    }
}

static void run_cleanup(int sig)
{
    end_children(sig);
    for (int i = 0; i < SC_CLEANUP_SLOTS; i++)
        if (is_set(&g_paths[i].state))
            (void)sc_file_remove_at(g_paths[i].parent, g_paths[i].name);
}

void sc_cleanup_exit_by_signal(int sig)
{
    sigset_t held;
    sc_cleanup_hold(&held);
    run_cleanup(sig);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = SIG_DFL;
    sigemptyset(&sa.sa_mask);
    sigaction(sig, &sa, NULL);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, sig);
    pthread_sigmask(SIG_UNBLOCK, &set, NULL);
    raise(sig);
}

static void handler(int sig)
{
    int saved = errno;
    run_cleanup(sig);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = SIG_DFL;
    sigemptyset(&sa.sa_mask);
    sigaction(sig, &sa, NULL);
    errno = saved;
    raise(sig); /* delivered, with its default action, once this returns */
}

/* SIGXFSZ caught (not ignored, so that a program we execve gets its default
 * back): a write past the file-size limit then fails with EFBIG. */
static void file_size_handler(int sig)
{
    (void)sig;
}

void sc_cleanup_install(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = handler;
    sigemptyset(&sa.sa_mask);
    sigaddset(&sa.sa_mask, SIGINT);
    sigaddset(&sa.sa_mask, SIGTERM);
    sigaddset(&sa.sa_mask, SIGHUP);
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        struct sigaction old;
        /* an ignored one (nohup, a background job) stays ignored */
        if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
            continue;
        sigaction(sigs[i], &sa, NULL);
    }
    struct sigaction fs;
    memset(&fs, 0, sizeof fs);
    fs.sa_handler = file_size_handler;
    sigemptyset(&fs.sa_mask);
    fs.sa_flags = SA_RESTART;
    sigaction(SIGXFSZ, &fs, NULL);
    const char *hold = getenv("SCROLLCASE_TEST_HOLD");
    const char *colon = hold != NULL ? strrchr(hold, ':') : NULL;
    if (colon != NULL && colon > hold && (size_t)(colon - hold) < sizeof g_hold_text) {
        char *end = NULL;
        long fd = strtol(colon + 1, &end, 10);
        if (end != NULL && *end == '\0' && fd > 2 && fd < 1024) {
            memcpy(g_hold_text, hold, (size_t)(colon - hold));
            g_hold_text[colon - hold] = '\0';
            g_hold_fd = (int)fd;
            (void)fcntl(g_hold_fd, F_SETFD, FD_CLOEXEC); /* not the children's */
        }
    }
    __atomic_store_n(&g_installed, 1, __ATOMIC_RELEASE);
}

int sc_cleanup_installed(void)
{
    return __atomic_load_n(&g_installed, __ATOMIC_ACQUIRE);
}
