/* SPDX-License-Identifier: Apache-2.0 */
/*
 * envsource.c — environment sources: a relocatable prefix copied in, or a
 * pixi lock installed, packed and relocated (docs/format-v3.md 20.2).
 *
 * Guarantees: see envsource.h.  Every walk lists a directory with scandir
 * and a byte comparison (never strcoll), so results do not depend on the
 * locale or on the order the file system hands names out; every file and
 * directory created gets its mode with fchmod/chmod, never through umask.
 */
#define _POSIX_C_SOURCE 200809L
#include "scrollcase/envsource.h"
#include "jobs_internal.h"
#include "lazylib_internal.h"
#include "scrollcase/remedy.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "scrollcase/copy.h"
#include "scrollcase/digest.h"
#include "scrollcase/file.h"
#include "scrollcase/jobs.h"
#include "scrollcase/json.h"
#include "scrollcase/payload.h"
#include "scrollcase/process.h"
#include "progress_internal.h"

extern char **environ;

#define LINK_HOPS_MAX 8
/* Linked bytes from which the copy waits out the stamp's racy window. */
#define LINKED_SETTLE_BYTES ((uint_fast64_t)256 << 20)
#define COPY_DEPTH_MAX 128

/* ---- small file-system helpers ------------------------------------------ */

static sc_code oom(sc_error *err)
{
    return sc_error_set(err, SC_E_OUT_OF_MEMORY, NULL, "out of memory");
}

static sc_code io_fail(sc_error *err, const char *path, const char *what)
{
    return sc_error_set(err, SC_E_IO, path, "%s %s: %s", what, path, strerror(errno));
}

static int name_cmp(const struct dirent **a, const struct dirent **b)
{
    return strcmp((*a)->d_name, (*b)->d_name);
}

static int not_dots(const struct dirent *d)
{
    return strcmp(d->d_name, ".") != 0 && strcmp(d->d_name, "..") != 0;
}

/* The names of dir in byte order; *n entries.  -1 on failure (errno). */
static int list_dir(const char *dir, struct dirent ***names)
{
    return scandir(dir, names, not_dots, name_cmp);
}

static void free_names(struct dirent **names, int n)
{
    for (int i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

/* Remove path and everything below it, never following a link. */
static void remove_tree(const char *path)
{
    sc_error ignored;
    (void)sc_file_remove_tree(path, &ignored);
}

/* mkdir -p with mode 0755 set exactly. */
static sc_code make_dirs(const char *path, sc_error *err)
{
    char *copy = strdup(path);
    if (copy == NULL)
        return oom(err);
    size_t len = strlen(copy);
    for (size_t i = 1; i <= len; i++) {
        if (copy[i] != '/' && copy[i] != '\0')
            continue;
        char saved = copy[i];
        copy[i] = '\0';
        if (mkdir(copy, 0755) == 0) {
            if (chmod(copy, 0755) != 0) {
                sc_code c = io_fail(err, copy, "cannot set the mode of");
                free(copy);
                return c;
            }
        } else if (errno != EEXIST || !sc_is_dir(copy)) {
            sc_code c = io_fail(err, copy, "cannot create directory");
            free(copy);
            return c;
        }
        copy[i] = saved;
    }
    free(copy);
    return SC_OK;
}

/* Create one directory with mode 0755 (exactly). */
static sc_code make_dir(const char *path, sc_error *err)
{
    if (mkdir(path, 0755) != 0 || chmod(path, 0755) != 0)
        return io_fail(err, path, "cannot create directory");
    return SC_OK;
}

/* Copy the bytes of src (followed if a link, when follow) to a new dst. */
static sc_code copy_file(const char *src, const char *dst, unsigned mode, int follow,
                         sc_error *err)
{
    int in;
    sc_code oc = sc_file_open_regular(src, follow ? 0 : SC_FILE_NOFOLLOW, &in, NULL, NULL, err);
    if (oc != SC_OK)
        return oc;
    int out = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (out < 0) {
        sc_code c = io_fail(err, dst, "cannot create");
        close(in);
        return c;
    }
    /* A reflink or an in-kernel copy where the file systems allow. */
    sc_code c = sc_copy_fd(in, out, src, dst, err);
    if (c == SC_OK && fchmod(out, (mode_t)(mode & 0777)) != 0)
        c = io_fail(err, dst, "cannot set the mode of");
    close(in);
    if (close(out) != 0 && c == SC_OK)
        c = io_fail(err, dst, "cannot write");
    return c;
}

/*
 * A regular file of a prefix into its copy: a hard link where the file
 * system allows (the same device, the link count not at its limit, a mode
 * without set-id or sticky bits that the owner can read), else a copy.  A
 * link is safe because nothing of the build writes through a payload file:
 * what it changes it replaces (launcher repairs write a new file and rename
 * it over; settling and local files unlink first), so the prefix is never
 * modified; and it saves writing every byte of the environment a second
 * time (on the reference host a 1 GiB prefix took 2.7 s to copy).  A name
 * that is not a regular file once linked (the prefix changed under the
 * walk) is removed and copied, which refuses it as a copy would.
 */
static sc_code link_or_copy(const char *src, const char *dst, unsigned mode, int *linked,
                            sc_error *err)
{
    *linked = 0;
    if ((mode & 07000) == 0 && (mode & 0400) != 0 &&
        linkat(AT_FDCWD, src, AT_FDCWD, dst, 0) == 0) {
        struct stat st;
        if (lstat(dst, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 07777) == (mode & 07777)) {
            *linked = 1;
            return SC_OK;
        }
        (void)unlink(dst);
    }
    return copy_file(src, dst, mode, 0, err);
}

static char *read_link(const char *path)
{
    size_t cap = 256;
    for (;;) {
        char *buf = malloc(cap);
        if (buf == NULL)
            return NULL;
        ssize_t n = readlink(path, buf, cap);
        if (n < 0) {
            free(buf);
            return NULL;
        }
        if ((size_t)n < cap) {
            buf[n] = '\0';
            return buf;
        }
        free(buf);
        if (cap > 65536)
            return NULL;
        cap *= 2;
    }
}

/* 1 if real (a realpath) is root or below it. */
static int path_within(const char *root, const char *real)
{
    size_t n = strlen(root);
    if (strncmp(root, real, n) != 0)
        return 0;
    return real[n] == '\0' || real[n] == '/' || (n == 1 && root[0] == '/');
}

/* ---- the lexical link rule (15.2, "Links") -------------------------------- */

/* A list of path segments. */
typedef struct segs {
    char **v;
    size_t n, cap;
} segs;

static void segs_free(segs *s)
{
    for (size_t i = 0; i < s->n; i++)
        free(s->v[i]);
    free(s->v);
    s->v = NULL;
    s->n = s->cap = 0;
}

static int segs_push(segs *s, const char *p, size_t len)
{
    if (s->n == s->cap) {
        size_t cap = s->cap ? s->cap * 2 : 16;
        char **v = realloc(s->v, cap * sizeof *v);
        if (v == NULL)
            return -1;
        s->v = v;
        s->cap = cap;
    }
    s->v[s->n] = strndup(p, len);
    if (s->v[s->n] == NULL)
        return -1;
    s->n++;
    return 0;
}

/* Apply a relative path to s: "" and "." skipped, ".." pops (escape -> 1). */
static int segs_apply(segs *s, const char *rel, int *escaped)
{
    const char *p = rel;
    while (*p != '\0') {
        const char *slash = strchr(p, '/');
        size_t len = slash ? (size_t)(slash - p) : strlen(p);
        if (len == 0 || (len == 1 && p[0] == '.')) {
            /* skipped */
        } else if (len == 2 && p[0] == '.' && p[1] == '.') {
            if (s->n == 0) {
                *escaped = 1;
                return 0;
            }
            free(s->v[--s->n]);
        } else if (segs_push(s, p, len) != 0) {
            return -1;
        }
        p += len;
        if (*p == '/')
            p++;
    }
    return 0;
}

static char *segs_join(const char *root, const segs *s, size_t count)
{
    size_t len = strlen(root) + 1;
    for (size_t i = 0; i < count; i++)
        len += strlen(s->v[i]) + 1;
    char *out = malloc(len);
    if (out == NULL)
        return NULL;
    strcpy(out, root);
    for (size_t i = 0; i < count; i++) {
        strcat(out, "/");
        strcat(out, s->v[i]);
    }
    return out;
}

/*
 * Does the link at rel (relative to root, '/'-separated) pass the lexical
 * rule of 15.2 within root?  Its target and every hop must be relative,
 * hold no backslash, stay inside root, not be root or the link itself, pass
 * only through real directories and end, after at most 8 links, at a
 * regular file.  1 yes, 0 no, -1 out of memory.
 */
static int link_rule_ok(const char *root, const char *rel)
{
    segs cur = {0};
    int escaped = 0, ok = 0;
    if (segs_apply(&cur, rel, &escaped) != 0) {
        segs_free(&cur);
        return -1;
    }
    for (int hop = 0; hop <= LINK_HOPS_MAX; hop++) {
        char *here = segs_join(root, &cur, cur.n);
        if (here == NULL)
            break;
        char *target = read_link(here);
        free(here);
        if (target == NULL || target[0] == '\0' || target[0] == '/' ||
            strchr(target, '\\') != NULL) {
            free(target);
            ok = 0;
            goto done;
        }
        segs next = {0};
        for (size_t i = 0; i + 1 < cur.n; i++)
            if (segs_push(&next, cur.v[i], strlen(cur.v[i])) != 0) {
                segs_free(&next);
                free(target);
                ok = -1;
                goto done;
            }
        if (segs_apply(&next, target, &escaped) != 0) {
            segs_free(&next);
            free(target);
            ok = -1;
            goto done;
        }
        free(target);
        if (escaped || next.n == 0) {
            segs_free(&next);
            ok = 0;
            goto done;
        }
        /* every segment before the last must be a real directory */
        struct stat st;
        for (size_t i = 1; i < next.n; i++) {
            char *dir = segs_join(root, &next, i);
            if (dir == NULL) {
                segs_free(&next);
                ok = -1;
                goto done;
            }
            int real_dir = lstat(dir, &st) == 0 && S_ISDIR(st.st_mode);
            free(dir);
            if (!real_dir) {
                segs_free(&next);
                ok = 0;
                goto done;
            }
        }
        char *end = segs_join(root, &next, next.n);
        segs_free(&cur);
        cur = next;
        if (end == NULL) {
            ok = -1;
            goto done;
        }
        int r = lstat(end, &st);
        free(end);
        if (r != 0 || S_ISDIR(st.st_mode)) {
            ok = 0;
            goto done;
        }
        if (S_ISREG(st.st_mode)) {
            ok = 1;
            goto done;
        }
        if (!S_ISLNK(st.st_mode)) {
            ok = 0;
            goto done;
        }
        /* a link: follow it (the loop re-reads it); the link itself as its
         * own target is caught as a cycle by the hop limit */
    }
done:
    segs_free(&cur);
    return ok;
}

/* ---- settling links ------------------------------------------------------ */

typedef struct settle_ctx {
    char *root_real;   /* realpath of the venv */
    const char *root;  /* the venv as given */
    int carry_links;
} settle_ctx;

/*
 * Dereferencing copy of the real directory src into the new directory dst:
 * files copied (mode & 0777), directories recursed, links followed when
 * they resolve inside the venv, left out otherwise; skip rules apply.
 */
static sc_code deref_copy_dir(const settle_ctx *c, const char *src, const char *dst, int depth,
                              sc_error *err)
{
    if (depth > COPY_DEPTH_MAX)
        return sc_error_set(err, SC_E_RELOCATION_FAILED, dst,
                            "directory links nest deeper than %d levels: %s", COPY_DEPTH_MAX, dst);
    sc_code rc = make_dir(dst, err);
    if (rc != SC_OK)
        return rc;
    char *dst_real = realpath(dst, NULL);
    if (dst_real == NULL)
        return io_fail(err, dst, "cannot resolve");
    struct dirent **names = NULL;
    int n = list_dir(src, &names);
    if (n < 0) {
        free(dst_real);
        return io_fail(err, src, "cannot list");
    }
    for (int i = 0; i < n && rc == SC_OK; i++) {
        const char *name = names[i]->d_name;
        if (sc_payload_skipped_name(name))
            continue;
        char *s = sc_path_join(src, name), *d = sc_path_join(dst, name);
        char *real = NULL;
        struct stat st;
        if (s == NULL || d == NULL) {
            rc = oom(err);
        } else if (lstat(s, &st) != 0) {
            rc = io_fail(err, s, "cannot stat");
        } else if (S_ISLNK(st.st_mode)) {
            real = realpath(s, NULL);
            if (real != NULL && path_within(c->root_real, real) && stat(real, &st) == 0) {
                if (S_ISDIR(st.st_mode)) {
                    if (path_within(real, dst_real))
                        rc = sc_error_set(err, SC_E_RELOCATION_FAILED, s,
                                          "a directory link contains itself: %s", s);
                    else
                        rc = deref_copy_dir(c, real, d, depth + 1, err);
                } else if (S_ISREG(st.st_mode)) {
                    rc = copy_file(real, d, st.st_mode, 1, err);
                }
            }
        } else if (S_ISDIR(st.st_mode)) {
            rc = deref_copy_dir(c, s, d, depth + 1, err);
        } else if (S_ISREG(st.st_mode)) {
            rc = copy_file(s, d, st.st_mode, 0, err);
        } else {
            rc = sc_error_set(err, SC_E_SPECIAL_ENTRY, s, "not a file, directory or link: %s", s);
        }
        free(real);
        free(s);
        free(d);
    }
    free_names(names, n);
    free(dst_real);
    return rc;
}

/* Settle one link at path (rel below the venv). */
static sc_code settle_one(const settle_ctx *c, const char *path, const char *rel, sc_error *err)
{
    char *real = realpath(path, NULL);
    struct stat st;
    if (real != NULL && strcmp(real, c->root_real) == 0) {
        free(real);
        return sc_error_set(err, SC_E_RELOCATION_FAILED, rel,
                            "a directory link contains itself: %s", rel);
    }
    if (real == NULL || !path_within(c->root_real, real) || stat(real, &st) != 0) {
        free(real);
        if (unlink(path) != 0)
            return io_fail(err, path, "cannot remove link");
        return SC_OK;
    }
    sc_code rc = SC_OK;
    if (S_ISREG(st.st_mode) && c->carry_links) {
        int ok = link_rule_ok(c->root, rel);
        if (ok < 0) {
            free(real);
            return oom(err);
        }
        if (ok) {
            free(real);
            return SC_OK;
        }
    }
    if (S_ISDIR(st.st_mode)) {
        /* where the link itself is, canonically: its directory's realpath */
        char *loc = NULL;
        const char *slash = strrchr(path, '/');
        char *parent = slash ? strndup(path, (size_t)(slash - path)) : strdup(".");
        char *parent_real = parent ? realpath(parent[0] ? parent : "/", NULL) : NULL;
        if (parent_real != NULL)
            loc = sc_path_join(parent_real, slash ? slash + 1 : path);
        free(parent);
        free(parent_real);
        if (loc == NULL) {
            free(real);
            return io_fail(err, path, "cannot resolve the directory of");
        }
        int contains = path_within(real, loc);
        free(loc);
        if (contains) {
            rc = sc_error_set(err, SC_E_RELOCATION_FAILED, rel,
                              "a directory link contains itself: %s", rel);
        } else if (unlink(path) != 0) {
            rc = io_fail(err, path, "cannot remove link");
        } else {
            rc = deref_copy_dir(c, real, path, 0, err);
        }
    } else if (S_ISREG(st.st_mode)) {
        if (unlink(path) != 0)
            rc = io_fail(err, path, "cannot remove link");
        else
            rc = copy_file(real, path, st.st_mode, 1, err);
    } else {
        rc = sc_error_set(err, SC_E_SPECIAL_ENTRY, rel, "a link to a special file: %s", rel);
    }
    free(real);
    return rc;
}

static sc_code settle_dir(const settle_ctx *c, const char *dir, const char *rel, int depth,
                          sc_error *err)
{
    if (depth > COPY_DEPTH_MAX)
        return sc_error_set(err, SC_E_RELOCATION_FAILED, dir, "tree deeper than %d levels: %s",
                            COPY_DEPTH_MAX, dir);
    struct dirent **names = NULL;
    int n = list_dir(dir, &names);
    if (n < 0)
        return io_fail(err, dir, "cannot list");
    sc_code rc = SC_OK;
    for (int i = 0; i < n && rc == SC_OK; i++) {
        char *path = sc_path_join(dir, names[i]->d_name);
        char *r = rel[0] ? sc_path_join(rel, names[i]->d_name) : strdup(names[i]->d_name);
        struct stat st;
        if (path == NULL || r == NULL)
            rc = oom(err);
        else if (lstat(path, &st) != 0)
            rc = io_fail(err, path, "cannot stat");
        else if (S_ISLNK(st.st_mode))
            rc = settle_one(c, path, r, err);
        else if (S_ISDIR(st.st_mode))
            rc = settle_dir(c, path, r, depth + 1, err);
        free(path);
        free(r);
    }
    free_names(names, n);
    return rc;
}

sc_code sc_envsource_settle_links(const char *venv_dir, const sc_target *t, sc_error *err)
{
    settle_ctx c;
    c.root = venv_dir;
    c.carry_links = t->platform != SC_PLATFORM_WINDOWS;
    c.root_real = realpath(venv_dir, NULL);
    if (c.root_real == NULL)
        return io_fail(err, venv_dir, "cannot resolve");
    sc_code rc = settle_dir(&c, venv_dir, "", 0, err);
    free(c.root_real);
    return rc;
}

/* ---- copying a prefix ----------------------------------------------------- */

/* The entry point relative to the payload root ("bin/python"). */
static const char *entry_in_root(const sc_target *t)
{
    const char *entry = sc_target_python_entry_point(t);
    const char *root = sc_target_payload_root(t);
    size_t n = strlen(root);
    if (strncmp(entry, root, n) == 0 && entry[n] == '/')
        return entry + n + 1;
    return entry;
}

/* Where an absolute link target inside the prefix lands in the copy. */
typedef struct remap {
    const char *from[2]; /* the prefix as given and its realpath */
    const char *to;      /* the copy's absolute path */
} remap;

/* The target to write for a link read from the prefix: an absolute target
 * inside the prefix is moved to the copy (settling then makes it a copy or
 * a relative link's equivalent); anything else is kept as read.  NULL on
 * OOM. */
static char *remapped_target(const remap *m, const char *target)
{
    if (target[0] == '/')
        for (int i = 0; i < 2; i++) {
            const char *from = m->from[i];
            size_t n = from ? strlen(from) : 0;
            if (n > 1 && strncmp(target, from, n) == 0 && (target[n] == '/' || target[n] == '\0')) {
                size_t len = strlen(m->to) + strlen(target + n) + 1;
                char *out = malloc(len);
                if (out != NULL)
                    snprintf(out, len, "%s%s", m->to, target + n);
                return out;
            }
        }
    return strdup(target);
}

/*
 * The regular files of a prefix copy, in walk order: the walk (one thread)
 * makes the directories and links and lists the files; then jobs threads
 * copy the files, each claiming the next.  Every file listed before the
 * lowest failing one is copied, and that failure is reported, so the outcome
 * is the sequential walk's whatever the thread count.
 */
typedef struct copy_job {
    char *src, *dst; /* owned */
    unsigned mode;
    uint64_t size;   /* as listed: the total of the copy's progress only */
} copy_job;

typedef struct copy_plan {
    copy_job *jobs;
    size_t n, cap;
    atomic_size_t next;
    atomic_size_t fail_min; /* lowest failing job; SIZE_MAX when none */
    pthread_mutex_t mu;
    sc_code fail_code;
    sc_error fail_err;
    sc_progress_meter *meter; /* files copied (NULL: none) */
    size_t skip;              /* bytes of the prefix path and its '/' (the item shown) */
    atomic_uint_fast64_t linked_bytes; /* of the files hard-linked */
} copy_plan;

static void copy_plan_free(copy_plan *p)
{
    for (size_t i = 0; i < p->n; i++) {
        free(p->jobs[i].src);
        free(p->jobs[i].dst);
    }
    free(p->jobs);
    p->jobs = NULL;
    p->n = p->cap = 0;
}

/* Takes src and dst (freed on failure too). */
static sc_code copy_plan_add(copy_plan *p, char *src, char *dst, unsigned mode, uint64_t size,
                             sc_error *err)
{
    if (p->n == p->cap) {
        size_t cap = p->cap ? p->cap * 2 : 256;
        copy_job *j = realloc(p->jobs, cap * sizeof *j);
        if (j == NULL) {
            free(src);
            free(dst);
            return oom(err);
        }
        p->jobs = j;
        p->cap = cap;
    }
    p->jobs[p->n++] = (copy_job){src, dst, mode, size};
    return SC_OK;
}

static void *copy_plan_thread(void *arg)
{
    copy_plan *p = arg;
    for (;;) {
        size_t i = atomic_fetch_add(&p->next, 1);
        if (i >= p->n || i > atomic_load(&p->fail_min))
            break;
        sc_error e;
        int linked = 0;
        sc_code c = link_or_copy(p->jobs[i].src, p->jobs[i].dst, p->jobs[i].mode, &linked, &e);
        if (linked)
            atomic_fetch_add(&p->linked_bytes, p->jobs[i].size);
        if (c == SC_OK) {
            const char *shown = p->jobs[i].src;
            sc_progress_meter_add(p->meter, strlen(shown) > p->skip ? shown + p->skip : shown,
                                  p->jobs[i].size, 1);
            continue;
        }
        pthread_mutex_lock(&p->mu);
        if (i < atomic_load(&p->fail_min)) {
            atomic_store(&p->fail_min, i);
            p->fail_code = c;
            p->fail_err = e;
        }
        pthread_mutex_unlock(&p->mu);
    }
    return NULL;
}

/* Copy every listed file on jobs threads (sc_jobs_resolve); the lowest
 * failure in *err. */
static sc_code copy_plan_run(copy_plan *p, unsigned jobs, sc_error *err)
{
    if (p->n == 0)
        return SC_OK;
    atomic_init(&p->next, 0);
    atomic_init(&p->fail_min, SIZE_MAX);
    atomic_init(&p->linked_bytes, 0);
    p->fail_code = SC_OK;
    if (pthread_mutex_init(&p->mu, NULL) != 0) /* ENOMEM or EAGAIN: a resource */
        return sc_error_set(err, SC_E_OUT_OF_MEMORY, NULL,
                            "out of memory starting the environment copy");
    size_t nt = sc_jobs_resolve(jobs);
    if (nt > p->n)
        nt = p->n;
    pthread_t th[SC_JOBS_MAX];
    size_t started = 0;
    for (size_t i = 1; i < nt; i++)
        if (sc_jobs_thread_start(&th[started], copy_plan_thread, p) == 0)
            started++;
        else
            break;
    copy_plan_thread(p);
    for (size_t i = 0; i < started; i++)
        pthread_join(th[i], NULL);
    pthread_mutex_destroy(&p->mu);
    if (p->fail_code != SC_OK) {
        if (err != NULL)
            *err = p->fail_err;
        return p->fail_code;
    }
    return SC_OK;
}

/* Directories and links made in walk order; regular files listed in plan
 * for copy_plan_run. */
static sc_code copy_verbatim(const remap *m, const char *src, const char *dst, int depth,
                             copy_plan *plan, sc_error *err)
{
    if (depth > COPY_DEPTH_MAX)
        return sc_error_set(err, SC_E_RELOCATION_FAILED, src, "tree deeper than %d levels: %s",
                            COPY_DEPTH_MAX, src);
    struct dirent **names = NULL;
    int n = list_dir(src, &names);
    if (n < 0)
        return io_fail(err, src, "cannot list");
    sc_code rc = SC_OK;
    for (int i = 0; i < n && rc == SC_OK; i++) {
        const char *name = names[i]->d_name;
        if (sc_payload_skipped_name(name))
            continue;
        char *s = sc_path_join(src, name), *d = sc_path_join(dst, name);
        struct stat st;
        if (s == NULL || d == NULL) {
            rc = oom(err);
        } else if (lstat(s, &st) != 0) {
            rc = io_fail(err, s, "cannot stat");
        } else if (S_ISDIR(st.st_mode)) {
            rc = make_dir(d, err);
            if (rc == SC_OK)
                rc = copy_verbatim(m, s, d, depth + 1, plan, err);
        } else if (S_ISREG(st.st_mode)) {
            rc = copy_plan_add(plan, s, d, st.st_mode, (uint64_t)st.st_size, err);
            s = d = NULL; /* the plan's now */
        } else if (S_ISLNK(st.st_mode)) {
            char *raw = read_link(s);
            char *target = raw ? remapped_target(m, raw) : NULL;
            if (raw == NULL)
                rc = io_fail(err, s, "cannot read link");
            else if (target == NULL)
                rc = oom(err);
            else if (symlink(target, d) != 0)
                rc = io_fail(err, d, "cannot create link");
            free(raw);
            free(target);
        } else {
            rc = sc_error_set(err, SC_E_SPECIAL_ENTRY, s,
                              "the prefix holds an entry that is not a file, directory or link: %s",
                              s);
        }
        free(s);
        free(d);
    }
    free_names(names, n);
    return rc;
}

/* The digest of dir's tree; its list (with CRCs) kept in *keep when not NULL. */
static sc_code tree_digest_keep(const char *dir, char hex[65], unsigned jobs,
                                sc_payload_list *keep, sc_progress_fn progress,
                                void *progress_ctx, sc_error *err)
{
    sc_payload_list list = {0};
    sc_payload_options o;
    memset(&o, 0, sizeof o);
    o.jobs = jobs;
    o.progress = progress;
    o.progress_ctx = progress_ctx;
    o.progress_step = "digest";
    sc_code rc = sc_payload_collect_with(dir, SC_PAYLOAD_HASH | (keep ? SC_PAYLOAD_CRC : 0), &o,
                                         &list, err);
    if (rc == SC_OK)
        rc = sc_payload_digest(&list, hex, err);
    if (rc == SC_OK && keep != NULL) {
        *keep = list;
        return SC_OK;
    }
    sc_payload_list_free(&list);
    return rc;
}


sc_code sc_envsource_copy_prefix(const char *prefix_dir, const char *venv_dir,
                                 const sc_target *t, char prefix_digest[65], sc_error *err)
{
    return sc_envsource_copy_prefix_keep(prefix_dir, venv_dir, t, prefix_digest, 0, NULL, err);
}

sc_code sc_envsource_copy_prefix_keep(const char *prefix_dir, const char *venv_dir,
                                      const sc_target *t, char prefix_digest[65],
                                      unsigned jobs, sc_payload_list *list, sc_error *err)
{
    return sc_envsource_copy_prefix_with(prefix_dir, venv_dir, t, prefix_digest, jobs, list,
                                         NULL, NULL, err);
}

sc_code sc_envsource_copy_prefix_with(const char *prefix_dir, const char *venv_dir,
                                      const sc_target *t, char prefix_digest[65], unsigned jobs,
                                      sc_payload_list *list, sc_progress_fn progress,
                                      void *progress_ctx, sc_error *err)
{
    prefix_digest[0] = '\0';
    if (list != NULL)
        memset(list, 0, sizeof *list);
    if (!sc_is_dir(prefix_dir))
        return sc_error_set(err, SC_E_IO, prefix_dir, "environment prefix is not a directory: %s",
                            prefix_dir);
    const char *entry = entry_in_root(t);
    char *ep = sc_path_join(prefix_dir, entry);
    if (ep == NULL)
        return oom(err);
    int has_entry = sc_is_file(ep);
    free(ep);
    if (!has_entry)
        return sc_error_set(err, SC_E_RELOCATION_FAILED, prefix_dir,
                            "environment prefix %s has no %s for %s", prefix_dir, entry,
                            sc_target_python_entry_point(t));
    struct stat st;
    if (lstat(venv_dir, &st) == 0)
        return sc_error_set(err, SC_E_IO, venv_dir, "destination already exists: %s", venv_dir);
    sc_code rc = make_dirs(venv_dir, err);
    if (rc != SC_OK)
        return rc;
    char *prefix_real = realpath(prefix_dir, NULL);
    char *venv_real = realpath(venv_dir, NULL);
    if (venv_real == NULL) {
        rc = io_fail(err, venv_dir, "cannot resolve");
    } else {
        remap m = {{prefix_dir, prefix_real}, venv_real};
        copy_plan plan;
        memset(&plan, 0, sizeof plan);
        rc = copy_verbatim(&m, prefix_dir, venv_dir, 0, &plan, err);
        /* the totals are known once the walk has listed the files */
        uint64_t bytes = 0;
        for (size_t i = 0; i < plan.n; i++)
            bytes += plan.jobs[i].size;
        sc_progress_meter meter;
        sc_progress_meter_start(&meter, progress, progress_ctx, "copy", prefix_dir, bytes,
                                plan.n);
        plan.meter = &meter;
        plan.skip = strlen(prefix_dir) + 1;
        /* Every file listed precedes the walk's failure, if any: a failing
         * copy is the first failure in walk order. */
        sc_error ce;
        sc_code cc = copy_plan_run(&plan, jobs, &ce);
        if (cc != SC_OK) {
            rc = cc;
            if (err != NULL)
                *err = ce;
        }
        sc_progress_meter_end(&meter, rc == SC_OK);
        /* A link moves its file's ctime to now, so a digest that starts
         * within SC_PAYLOAD_RACY_NS cannot let the stamp vouch for it later
         * and the payload's digest reads it again.  When much was linked,
         * waiting out the rest of that window costs less than reading it
         * twice (SHA-256 here: about 63 MB per core in 50 ms). */
        if (rc == SC_OK && atomic_load(&plan.linked_bytes) >= LINKED_SETTLE_BYTES) {
            struct timespec w = {0, SC_PAYLOAD_RACY_NS + 2 * 1000 * 1000};
            while (nanosleep(&w, &w) != 0 && errno == EINTR)
                ;
        }
        copy_plan_free(&plan);
    }
    free(venv_real);
    if (rc == SC_OK)
        rc = sc_envsource_settle_links(venv_dir, t, err);
    if (rc == SC_OK) {
        /* launchers that name the prefix would run the host's copy */
        const char *needles[3];
        size_t k = 0;
        if (prefix_dir[0] == '/')
            needles[k++] = prefix_dir;
        if (prefix_real != NULL)
            needles[k++] = prefix_real;
        needles[k] = NULL;
        rc = sc_envsource_repair_launchers(venv_dir, t, needles, NULL, err);
    }
    free(prefix_real);
    if (rc == SC_OK) {
        char *vp = sc_path_join(venv_dir, entry);
        if (vp == NULL)
            rc = oom(err);
        else if (!sc_is_file(vp))
            rc = sc_error_set(err, SC_E_RELOCATION_FAILED, vp,
                              "the copied environment has no %s after settling its links", entry);
        free(vp);
    }
    if (rc == SC_OK)
        rc = tree_digest_keep(venv_dir, prefix_digest, jobs, list, progress, progress_ctx, err);
    if (rc != SC_OK) {
        prefix_digest[0] = '\0';
        remove_tree(venv_dir);
    }
    return rc;
}

/* ---- tools ----------------------------------------------------------------- */

void sc_pixi_tools_free(sc_pixi_tools *t)
{
    if (t == NULL)
        return;
    free(t->pixi);
    free(t->conda_pack);
    t->pixi = t->conda_pack = NULL;
    t->pixi_version[0] = '\0';
}

static int executable_file(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0 && S_ISREG(st.st_mode) && access(p, X_OK) == 0;
}

/*
 * The candidate: explicit > env > toolchain/bin/<name> > PATH.  Relative
 * explicit or env paths are made absolute against the cwd.  NULL with
 * *found 0 when nothing is found; NULL with *found 1 on OOM.
 */
static char *find_tool(const char *explicit_path, const char *env_name, const char *toolchain,
                       const char *name, int *oom_flag)
{
    *oom_flag = 0;
    const char *given = explicit_path;
    if (given == NULL || given[0] == '\0') {
        given = env_name[0] ? getenv(env_name) : NULL;
        if (given != NULL && given[0] == '\0')
            given = NULL;
    }
    if (given != NULL) {
        if (given[0] == '/') {
            char *r = strdup(given);
            *oom_flag = r == NULL;
            return r;
        }
        if (strchr(given, '/') == NULL) {
            name = given; /* a bare name: searched on PATH below */
        } else {
            char cwd[PATH_MAX];
            if (getcwd(cwd, sizeof cwd) == NULL)
                return NULL;
            char *r = sc_path_join(cwd, given);
            *oom_flag = r == NULL;
            return r;
        }
    } else if (toolchain != NULL && toolchain[0] != '\0') {
        size_t len = strlen(toolchain) + strlen(name) + 6;
        char *p = malloc(len);
        if (p == NULL) {
            *oom_flag = 1;
            return NULL;
        }
        snprintf(p, len, "%s/bin/%s", toolchain, name);
        if (executable_file(p))
            return p;
        free(p);
    }
    const char *path = getenv("PATH");
    if (path == NULL)
        return NULL;
    while (*path != '\0') {
        const char *colon = strchr(path, ':');
        size_t len = colon ? (size_t)(colon - path) : strlen(path);
        if (len > 0 && path[0] == '/') {
            char *p = malloc(len + strlen(name) + 2);
            if (p == NULL) {
                *oom_flag = 1;
                return NULL;
            }
            memcpy(p, path, len);
            p[len] = '/';
            strcpy(p + len + 1, name);
            if (executable_file(p))
                return p;
            free(p);
        }
        path += len;
        if (*path == ':')
            path++;
    }
    return NULL;
}

/*
 * Run argv[0] (absolute) with the host environment; capture up to cap-1
 * bytes of stdout into out (NUL-terminated) when out is not NULL, else send
 * stdout to stderr.  *status = exit code, or -1 when killed by a signal.
 */
static sc_code run_tool(char *const *argv, const char *cwd, char *out, size_t cap, int *status,
                        sc_error *err)
{
    return sc_tool_run_capture(argv, cwd, out, cap, 0, status, err);
}

/*
 * Every tool run has a deadline (issue 24): a probe whose output is
 * captured (`pixi --version`, `conda-pack --help`, `git rev-parse`) gets
 * SC_TOOL_PROBE_SECONDS, a run (pixi install, pixi lock, conda-pack) gets
 * SC_TOOL_RUN_SECONDS; SCROLLCASE_TOOL_TIMEOUT (whole seconds, at least 1)
 * replaces both.  Past it: SIGTERM, then SIGKILL, to the tool's process
 * group (its own), and SC_E_TIMEOUT.
 */
#define SC_TOOL_PROBE_SECONDS 60
#define SC_TOOL_RUN_SECONDS (6 * 3600)

static int tool_timeout(int probe)
{
    const char *v = getenv("SCROLLCASE_TOOL_TIMEOUT");
    if (v != NULL && v[0] >= '1' && v[0] <= '9') {
        char *end = NULL;
        long n = strtol(v, &end, 10);
        if (end != NULL && *end == '\0' && n > 0 && n <= 1000000)
            return (int)n;
    }
    return probe ? SC_TOOL_PROBE_SECONDS : SC_TOOL_RUN_SECONDS;
}

sc_code sc_tool_run_capture(char *const *argv, const char *cwd, char *out, size_t cap,
                            int quiet, int *status, sc_error *err)
{
    FILE *capture = NULL;
    int fd = 2, null_fd = -1;
    if (quiet) {
        null_fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
        if (null_fd < 0)
            return io_fail(err, "/dev/null", "cannot open");
        fd = null_fd;
    }
    if (out != NULL) {
        capture = tmpfile();
        if (capture == NULL) {
            sc_code c = io_fail(err, "(temporary file)", "cannot create");
            if (null_fd >= 0)
                close(null_fd);
            return c;
        }
        fd = fileno(capture);
    }
    sc_process_spec spec;
    memset(&spec, 0, sizeof spec);
    spec.program = argv[0];
    spec.argv = argv;
    spec.envp = environ;
    spec.cwd = cwd;
    /* stdin: nothing (a tool in its own process group must never wait on
     * the terminal); its own group, so that a deadline or an interruption
     * ends what it started too */
    int in_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
    spec.stdin_fd = in_fd;
    spec.stdout_fd = fd;
    spec.stderr_fd = null_fd;
    spec.timeout_seconds = tool_timeout(out != NULL);
    spec.own_process_group = 1;
    spec.forward_signals = sc_process_signal_forwarding(); /* only when the program asked */
    spec.exit_on_forwarded = 1;
    sc_process_result res;
    memset(&res, 0, sizeof res);
    sc_code rc = sc_process_run(&spec, &res, err);
    if (in_fd >= 0)
        close(in_fd);
    if (rc == SC_OK) {
        *status = res.exited ? res.exit_code : -1;
        if (capture != NULL) {
            rewind(capture);
            size_t n = fread(out, 1, cap - 1, capture);
            out[n] = '\0';
        }
    }
    if (capture != NULL)
        fclose(capture);
    if (null_fd >= 0)
        close(null_fd);
    return rc;
}

char *sc_tool_which(const char *name)
{
    int o = 0;
    if (strchr(name, '/') != NULL)
        return executable_file(name) ? strdup(name) : NULL;
    char *p = find_tool(NULL, "", NULL, name, &o);
    return p;
}

static sc_code pixi_missing(sc_error *err, const char *path, const char *required, const char *why)
{
    return sc_error_set(err, SC_E_TOOL_MISSING, path,
                        "pixi %s is required (%s). Install that release from https://pixi.sh/ "
                        "into the toolchain directory's bin/ or onto PATH, or name it with "
                        "--pixi (or SCROLLCASE_PIXI); check with `" SC_REMEDY_DOCTOR_PIXI "`.",
                        required ? required : "", why);
}

static sc_code conda_pack_missing(sc_error *err, const char *path, const char *why)
{
    return sc_error_set(err, SC_E_TOOL_MISSING, path,
                        "conda-pack %s is required (%s). Install it with `pixi global install "
                        "conda-pack==%s`, or name it with --conda-pack (or "
                        "SCROLLCASE_CONDA_PACK); check with `" SC_REMEDY_DOCTOR_CONDA_PACK "`; "
                        "a build from a prefix (`" SC_REMEDY_BUILD_PREFIX "`) needs neither.",
                        SC_CONDA_PACK_VERSION, why, SC_CONDA_PACK_VERSION);
}

sc_code sc_pixi_discover_pixi(const char *explicit_pixi, const char *toolchain_dir,
                              const char *required_version, sc_pixi_tools *out, sc_error *err)
{
    int o = 0;
    char *pixi = find_tool(explicit_pixi, "SCROLLCASE_PIXI", toolchain_dir, "pixi", &o);
    if (o)
        return oom(err);
    if (pixi == NULL)
        return pixi_missing(err, NULL, required_version, "not found");
    if (!executable_file(pixi)) {
        sc_code c = pixi_missing(err, pixi, required_version, "not an executable file");
        free(pixi);
        return c;
    }
    char text[512];
    int status = 0;
    char *argv[] = {pixi, "--version", NULL};
    sc_error sub = {0};
    sc_code ran = run_tool(argv, NULL, text, sizeof text, &status, &sub);
    if (ran != SC_OK || status != 0) {
        /* 20.2: a tool that gives no answer is missing */
        sc_code c = pixi_missing(err, pixi, required_version,
                                 ran == SC_E_TIMEOUT ? "`pixi --version` gave no answer in time"
                                                     : "`pixi --version` failed");
        free(pixi);
        return c;
    }
    /* version = second whitespace-separated token */
    char *save = NULL;
    char *first = strtok_r(text, " \t\r\n", &save);
    char *second = first ? strtok_r(NULL, " \t\r\n", &save) : NULL;
    if (second == NULL || strlen(second) >= sizeof out->pixi_version) {
        sc_code c = pixi_missing(err, pixi, required_version,
                                 "`pixi --version` printed no version");
        free(pixi);
        return c;
    }
    if (required_version != NULL && strcmp(second, required_version) != 0) {
        sc_code c = sc_error_set(err, SC_E_TOOL_VERSION_MISMATCH, pixi,
                                 "Scroll requires pixi %s, found %s.", required_version, second);
        free(pixi);
        return c;
    }
    free(out->pixi);
    out->pixi = pixi;
    snprintf(out->pixi_version, sizeof out->pixi_version, "%s", second);
    return SC_OK;
}

sc_code sc_pixi_discover_conda_pack(const char *explicit_conda_pack, const char *toolchain_dir,
                                    sc_pixi_tools *out, sc_error *err)
{
    int o = 0;
    char *cp = find_tool(explicit_conda_pack, "SCROLLCASE_CONDA_PACK", toolchain_dir,
                         "conda-pack", &o);
    if (o)
        return oom(err);
    if (cp == NULL)
        return conda_pack_missing(err, NULL, "not found");
    if (!executable_file(cp)) {
        sc_code c = conda_pack_missing(err, cp, "not an executable file");
        free(cp);
        return c;
    }
    char text[64];
    int status = 0;
    char *argv[] = {cp, "--help", NULL};
    sc_error sub = {0};
    sc_code ran = run_tool(argv, NULL, text, sizeof text, &status, &sub);
    if (ran != SC_OK || status != 0) {
        sc_code c = conda_pack_missing(err, cp,
                                       ran == SC_E_TIMEOUT
                                           ? "`conda-pack --help` gave no answer in time"
                                           : "`conda-pack --help` failed");
        free(cp);
        return c;
    }
    free(out->conda_pack);
    out->conda_pack = cp;
    return SC_OK;
}

sc_code sc_pixi_discover(const char *explicit_pixi, const char *explicit_conda_pack,
                         const char *toolchain_dir, const char *required_version,
                         sc_pixi_tools *out, sc_error *err)
{
    memset(out, 0, sizeof *out);
    sc_code rc = sc_pixi_discover_pixi(explicit_pixi, toolchain_dir, required_version, out, err);
    if (rc == SC_OK)
        rc = sc_pixi_discover_conda_pack(explicit_conda_pack, toolchain_dir, out, err);
    if (rc != SC_OK)
        sc_pixi_tools_free(out);
    return rc;
}

/* ---- strict tar.gz unpack ------------------------------------------------- */

typedef struct deferred_link {
    char *path;
    char *target;
} deferred_link;

static int link_cmp(const void *a, const void *b)
{
    return strcmp(((const deferred_link *)a)->path, ((const deferred_link *)b)->path);
}

/* A member name is safe: relative, no "..", no backslash, not empty. */
static int member_name_ok(const char *name)
{
    if (name == NULL || name[0] == '\0' || name[0] == '/' || strchr(name, '\\') != NULL)
        return 0;
    const char *p = name;
    while (*p != '\0') {
        const char *slash = strchr(p, '/');
        size_t len = slash ? (size_t)(slash - p) : strlen(p);
        if (len == 2 && p[0] == '.' && p[1] == '.')
            return 0;
        p += len;
        if (*p == '/')
            p++;
    }
    return 1;
}

/* Parent directories of dst below root (root exists). */
static sc_code make_parents(const char *path, sc_error *err)
{
    char *copy = strdup(path);
    if (copy == NULL)
        return oom(err);
    char *slash = strrchr(copy, '/');
    sc_code rc = SC_OK;
    if (slash != NULL && slash != copy) {
        *slash = '\0';
        rc = make_dirs(copy, err);
    }
    free(copy);
    return rc;
}

/* Refuse to write through a link already in the tree: every parent below
 * root must be a real directory or absent. */
static int parents_are_real(const char *root, const char *rel)
{
    char *copy = strdup(rel);
    if (copy == NULL)
        return 0;
    int ok = 1;
    for (char *p = copy; (p = strchr(p, '/')) != NULL; p++) {
        *p = '\0';
        char *full = sc_path_join(root, copy);
        struct stat st;
        if (full == NULL || (lstat(full, &st) == 0 && !S_ISDIR(st.st_mode)))
            ok = 0;
        free(full);
        *p = '/';
        if (!ok)
            break;
    }
    free(copy);
    return ok;
}

static sc_code unpack_tar_gz(const char *tarball, const char *dest, sc_error *err)
{
    const sc_archive_api *la;
    sc_code loaded = sc_lazy_archive(&la, err);
    if (loaded != SC_OK)
        return loaded;
    struct archive *a = la->read_new();
    if (a == NULL)
        return oom(err);
    la->read_support_filter_gzip(a);
    la->read_support_format_gnutar(a);
    la->read_support_format_tar(a);
    sc_code rc = SC_OK;
    deferred_link *links = NULL;
    size_t nlinks = 0, caplinks = 0;
    if (la->read_open_filename(a, tarball, 65536) != ARCHIVE_OK) {
        rc = sc_error_set(err, sc_lazy_archive_code(la, a, SC_E_RELOCATION_FAILED), tarball,
                          "cannot read packed environment %s: %s", tarball, la->error_string(a));
        la->read_free(a);
        return rc;
    }
    struct archive_entry *e;
    int r;
    while (rc == SC_OK && (r = la->read_next_header(a, &e)) == ARCHIVE_OK) {
        const char *raw = la->entry_pathname(e);
        char *name = raw ? strdup(raw) : NULL;
        if (raw != NULL && name == NULL) {
            rc = oom(err);
            break;
        }
        /* "./x" -> "x"; trailing '/' dropped */
        char *nm = name;
        while (nm != NULL && nm[0] == '.' && nm[1] == '/')
            nm += 2;
        if (nm != NULL) {
            size_t l = strlen(nm);
            while (l > 0 && nm[l - 1] == '/')
                nm[--l] = '\0';
        }
        mode_t type = la->entry_filetype(e);
        if (nm != NULL && (nm[0] == '\0' || strcmp(nm, ".") == 0) && type == AE_IFDIR) {
            free(name);
            continue;
        }
        if (!member_name_ok(nm)) {
            rc = sc_error_set(err, SC_E_RELOCATION_FAILED, raw ? raw : "",
                              "packed environment has an unsafe member name: %s", raw ? raw : "");
            free(name);
            break;
        }
        if (la->entry_hardlink(e) != NULL) {
            /* a hard link: copy the bytes of the earlier member */
            const char *hl = la->entry_hardlink(e);
            while (hl[0] == '.' && hl[1] == '/')
                hl += 2;
            if (!member_name_ok(hl) || !parents_are_real(dest, nm) || !parents_are_real(dest, hl)) {
                rc = sc_error_set(err, SC_E_RELOCATION_FAILED, nm,
                                  "packed environment has an unsafe hard link: %s", nm);
            } else {
                char *src = sc_path_join(dest, hl), *dst = sc_path_join(dest, nm);
                struct stat st;
                if (src == NULL || dst == NULL)
                    rc = oom(err);
                else if (lstat(src, &st) != 0 || !S_ISREG(st.st_mode))
                    rc = sc_error_set(err, SC_E_RELOCATION_FAILED, nm,
                                      "hard link to a missing file: %s", nm);
                else if ((rc = make_parents(dst, err)) == SC_OK)
                    rc = copy_file(src, dst, st.st_mode, 0, err);
                free(src);
                free(dst);
            }
            free(name);
            continue;
        }
        if (!parents_are_real(dest, nm)) {
            rc = sc_error_set(err, SC_E_RELOCATION_FAILED, nm,
                              "packed environment writes through a link: %s", nm);
            free(name);
            break;
        }
        char *dst = sc_path_join(dest, nm);
        if (dst == NULL) {
            free(name);
            rc = oom(err);
            break;
        }
        if (type == AE_IFDIR) {
            rc = make_dirs(dst, err);
        } else if (type == AE_IFREG) {
            rc = make_parents(dst, err);
            int fd = -1;
            if (rc == SC_OK) {
                fd = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
                if (fd < 0)
                    rc = io_fail(err, dst, "cannot create");
            }
            if (rc == SC_OK) {
                if (la->read_data_into_fd(a, fd) != ARCHIVE_OK)
                    rc = sc_error_set(err, sc_lazy_archive_code(la, a, SC_E_RELOCATION_FAILED),
                                      nm, "cannot unpack %s: %s", nm, la->error_string(a));
                else if (fchmod(fd, la->entry_perm(e) & 0777) != 0)
                    rc = io_fail(err, dst, "cannot set the mode of");
            }
            if (fd >= 0 && close(fd) != 0 && rc == SC_OK)
                rc = io_fail(err, dst, "cannot write");
        } else if (type == AE_IFLNK) {
            const char *target = la->entry_symlink(e);
            if (target == NULL || target[0] == '\0') {
                rc = sc_error_set(err, SC_E_RELOCATION_FAILED, nm, "empty link target: %s", nm);
            } else {
                if (nlinks == caplinks) {
                    size_t cap = caplinks ? caplinks * 2 : 32;
                    deferred_link *v = realloc(links, cap * sizeof *v);
                    if (v == NULL)
                        rc = oom(err);
                    else {
                        links = v;
                        caplinks = cap;
                    }
                }
                if (rc == SC_OK) {
                    links[nlinks].path = strdup(nm);
                    links[nlinks].target = strdup(target);
                    if (links[nlinks].path == NULL || links[nlinks].target == NULL) {
                        free(links[nlinks].path);
                        free(links[nlinks].target);
                        rc = oom(err);
                    } else {
                        nlinks++;
                    }
                }
            }
        } else {
            rc = sc_error_set(err, SC_E_SPECIAL_ENTRY, nm,
                              "packed environment holds a special member: %s", nm);
        }
        free(dst);
        free(name);
    }
    if (rc == SC_OK && r != ARCHIVE_EOF)
        rc = sc_error_set(err, sc_lazy_archive_code(la, a, SC_E_RELOCATION_FAILED), tarball,
                          "cannot read packed environment %s: %s", tarball, la->error_string(a));
    la->read_free(a);
    if (rc == SC_OK && nlinks > 0)
        qsort(links, nlinks, sizeof *links, link_cmp);
    for (size_t i = 0; i < nlinks; i++) {
        if (rc == SC_OK) {
            char *dst = sc_path_join(dest, links[i].path);
            struct stat st;
            if (dst == NULL)
                rc = oom(err);
            else if (!parents_are_real(dest, links[i].path))
                rc = sc_error_set(err, SC_E_RELOCATION_FAILED, links[i].path,
                                  "packed environment writes through a link: %s", links[i].path);
            else if (lstat(dst, &st) == 0)
                ; /* the path exists: skipped */
            else if ((rc = make_parents(dst, err)) == SC_OK && symlink(links[i].target, dst) != 0)
                rc = io_fail(err, dst, "cannot create link");
            free(dst);
        }
        free(links[i].path);
        free(links[i].target);
    }
    free(links);
    return rc;
}

/* ---- conda-meta, service files, launchers ---------------------------------- */

static const char *const SERVICE_FILES[] = {
    "conda-meta/pixi_env_prefix", "conda-meta/pixi", "bin/conda-unpack",
    "Scripts/conda-unpack.exe", "Scripts/conda-unpack-script.py", NULL,
};

static sc_code remove_service_files(const char *venv, sc_error *err)
{
    for (size_t i = 0; SERVICE_FILES[i] != NULL; i++) {
        char *p = sc_path_join(venv, SERVICE_FILES[i]);
        if (p == NULL)
            return oom(err);
        remove_tree(p);
        free(p);
    }
    return SC_OK;
}

static int ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && memcmp(s + a - b, suffix, b) == 0;
}

sc_code sc_envsource_canonical_conda_meta(const char *venv_dir, sc_error *err)
{
    static const char *const KEEP[] = {"name", "version", "build", "license"};
    char *meta = sc_path_join(venv_dir, "conda-meta");
    if (meta == NULL)
        return oom(err);
    struct stat st;
    if (lstat(meta, &st) != 0 || !S_ISDIR(st.st_mode)) {
        free(meta);
        return SC_OK;
    }
    struct dirent **names = NULL;
    int n = list_dir(meta, &names);
    if (n < 0) {
        sc_code c = io_fail(err, meta, "cannot list");
        free(meta);
        return c;
    }
    sc_code rc = SC_OK;
    for (int i = 0; i < n && rc == SC_OK; i++) {
        char *p = sc_path_join(meta, names[i]->d_name);
        if (p == NULL) {
            rc = oom(err);
            break;
        }
        if (lstat(p, &st) != 0 || !S_ISREG(st.st_mode) || !ends_with(names[i]->d_name, ".json")) {
            remove_tree(p);
            free(p);
            continue;
        }
        sc_json *doc = NULL;
        sc_error sub = {0};
        if (sc_json_parse_file(p, &doc, &sub) != SC_OK || !sc_json_is(doc, SC_JSON_OBJECT)) {
            rc = sc_error_set(err, SC_E_RELOCATION_FAILED, p,
                              "Unreadable conda package record %s: %s", p,
                              sub.message[0] ? sub.message : "not a JSON object");
            sc_json_free(doc);
            free(p);
            break;
        }
        sc_json *out = sc_json_new_object();
        if (out == NULL)
            rc = oom(err);
        for (size_t k = 0; rc == SC_OK && k < sizeof KEEP / sizeof KEEP[0]; k++) {
            const sc_json *v = sc_json_get(doc, KEEP[k]);
            if (v == NULL)
                continue;
            sc_json *c = sc_json_copy(v);
            if (c == NULL || sc_json_object_append(out, KEEP[k], c) != 0)
                rc = oom(err);
        }
        if (rc == SC_OK)
            rc = sc_json_write_file(out, p, 0644, err);
        sc_json_free(out);
        sc_json_free(doc);
        free(p);
    }
    free_names(names, n);
    free(meta);
    return rc;
}

static const char TRAMPOLINE_HEAD[] =
    "#!/bin/sh\n"
    "'''exec' \"$(CDPATH= cd -- \"$(dirname -- \"$0\")\" && pwd)/%s\" \"$0\" \"$@\"\n"
    "' '''\n";

/* Where the original Python body starts in text: after the old shebang
 * line, or after the old '''exec' trampoline (line 2 starts with '''exec';
 * everything up to the first line from there that ends with ''' goes). */
static size_t body_start(const char *text, size_t len)
{
    const char *nl = memchr(text, '\n', len);
    if (nl == NULL)
        return len;
    size_t pos = (size_t)(nl - text) + 1;
    if (len - pos < 8 || memcmp(text + pos, "'''exec'", 8) != 0)
        return pos;
    for (size_t line = pos; line < len;) {
        const char *e = memchr(text + line, '\n', len - line);
        size_t end = e ? (size_t)(e - text) : len;
        if (end - line >= 3 && memcmp(text + end - 3, "'''", 3) == 0)
            return e ? end + 1 : len;
        line = e ? end + 1 : len;
    }
    return pos; /* no closing line: only the shebang goes */
}

static int contains(const char *text, size_t len, const char *needle)
{
    size_t n = strlen(needle);
    if (n == 0 || n > len)
        return 0;
    for (size_t i = 0; i + n <= len; i++)
        if (text[i] == needle[0] && memcmp(text + i, needle, n) == 0)
            return 1;
    return 0;
}

sc_code sc_envsource_repair_launchers(const char *venv_dir, const sc_target *t,
                                      const char *const *needles, size_t *repaired,
                                      sc_error *err)
{
    if (repaired != NULL)
        *repaired = 0;
    const char *scripts = sc_target_scripts_dir(t);
    const char *root = sc_target_payload_root(t);
    size_t rl = strlen(root);
    if (strncmp(scripts, root, rl) == 0 && scripts[rl] == '/')
        scripts += rl + 1;
    const char *entry = sc_target_python_entry_point(t);
    const char *interp = strrchr(entry, '/');
    interp = interp ? interp + 1 : entry;
    char *dir = sc_path_join(venv_dir, scripts);
    if (dir == NULL)
        return oom(err);
    if (!sc_is_dir(dir) || t->platform == SC_PLATFORM_WINDOWS) {
        free(dir);
        return SC_OK;
    }
    struct dirent **names = NULL;
    int n = list_dir(dir, &names);
    if (n < 0) {
        sc_code c = io_fail(err, dir, "cannot list");
        free(dir);
        return c;
    }
    sc_code rc = SC_OK;
    for (int i = 0; i < n && rc == SC_OK; i++) {
        char *p = sc_path_join(dir, names[i]->d_name);
        struct stat st;
        if (p == NULL) {
            rc = oom(err);
            break;
        }
        if (lstat(p, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < 2) {
            free(p);
            continue;
        }
        char *text = NULL;
        size_t len = 0;
        rc = sc_file_read(p, &text, &len, NULL, err);
        if (rc != SC_OK) {
            free(p);
            break;
        }
        int hit = 0;
        if (len >= 2 && text[0] == '#' && text[1] == '!')
            for (size_t k = 0; needles != NULL && needles[k] != NULL && !hit; k++)
                hit = contains(text, len, needles[k]);
        if (hit) {
            size_t start = body_start(text, len);
            size_t hlen = sizeof TRAMPOLINE_HEAD + strlen(interp);
            size_t total = hlen + (len - start);
            char *out = malloc(total + 1);
            if (out == NULL) {
                rc = oom(err);
            } else {
                int h = snprintf(out, hlen, TRAMPOLINE_HEAD, interp);
                memcpy(out + h, text + start, len - start);
                rc = sc_file_write_atomic(p, out, (size_t)h + (len - start), 0755, err);
                if (rc == SC_OK && repaired != NULL)
                    (*repaired)++;
                free(out);
            }
        }
        free(text);
        free(p);
    }
    free_names(names, n);
    free(dir);
    return rc;
}

/* ---- the pixi path --------------------------------------------------------- */

static sc_code copy_into(const char *src_dir, const char *dst_dir, const char *name,
                         sc_error *err)
{
    char *s = sc_path_join(src_dir, name), *d = sc_path_join(dst_dir, name);
    sc_code rc = (s == NULL || d == NULL) ? oom(err) : copy_file(s, d, 0644, 1, err);
    free(s);
    free(d);
    return rc;
}

static sc_code tool_failed(sc_error *err, const char *tool, const char *what, int status)
{
    if (status < 0)
        return sc_error_set(err, SC_E_TOOL_MISSING, tool, "%s was killed by a signal", what);
    return sc_error_set(err, SC_E_TOOL_MISSING, tool, "%s exited with %d", what, status);
}

sc_code sc_pixi_run_lock(const sc_pixi_tools *tools, const char *scroll_dir, sc_error *err)
{
    if (tools == NULL || tools->pixi == NULL)
        return sc_error_set(err, SC_E_TOOL_MISSING, NULL, "pixi was not discovered");
    char *dir = realpath(scroll_dir, NULL);
    if (dir == NULL)
        return io_fail(err, scroll_dir, "cannot resolve");
    char *manifest = sc_path_join(dir, "pixi.toml");
    sc_code rc = SC_OK;
    if (manifest == NULL) {
        rc = oom(err);
    } else if (!sc_is_file(manifest)) {
        rc = sc_error_set(err, SC_E_INVALID_PIXI_TOML, manifest, "Missing pixi manifest: %s",
                          manifest);
    } else {
        int status = 0;
        char *argv[] = {tools->pixi, "lock", "--manifest-path", manifest, NULL};
        if (run_tool(argv, dir, NULL, 0, &status, err) != SC_OK)
            rc = sc_error_set(err, SC_E_TOOL_MISSING, tools->pixi, "pixi failed to start: %s",
                              tools->pixi);
        else if (status != 0)
            rc = tool_failed(err, tools->pixi, "pixi lock", status);
    }
    free(manifest);
    free(dir);
    return rc;
}

sc_code sc_envsource_install_pixi(const sc_pixi_tools *tools, const char *scroll_dir,
                                  const char *work_dir, const char *venv_dir,
                                  const sc_target *t, char lock_sha256[65], sc_error *err)
{
    lock_sha256[0] = '\0';
    char *lock = sc_path_join(scroll_dir, "pixi.lock");
    char *manifest = sc_path_join(scroll_dir, "pixi.toml");
    char *ws = sc_path_join(work_dir, "pixi-workspace");
    char *tarball = sc_path_join(work_dir, "pixi-env.tar.gz");
    char *ws_manifest = NULL, *prefix = NULL, *ws_real = NULL, *prefix_real = NULL,
         *venv_real = NULL;
    sc_code rc = SC_OK;
    int venv_made = 0;
    if (lock == NULL || manifest == NULL || ws == NULL || tarball == NULL) {
        rc = oom(err);
        goto out;
    }
    if (!sc_is_file(lock)) {
        rc = sc_error_set(err, SC_E_MISSING_LOCK, lock, "Missing dependency lock: %s", lock);
        goto out;
    }
    if (!sc_is_file(manifest)) {
        rc = sc_error_set(err, SC_E_MISSING_LOCK, manifest, "Missing pixi manifest: %s", manifest);
        goto out;
    }
    if (tools == NULL || tools->pixi == NULL || tools->conda_pack == NULL) {
        rc = sc_error_set(err, SC_E_TOOL_MISSING, NULL, "pixi and conda-pack were not discovered");
        goto out;
    }
    unsigned char raw[SC_SHA256_LEN];
    if ((rc = sc_sha256_file(lock, raw, err)) != SC_OK)
        goto out;
    sc_hex_lower(raw, SC_SHA256_LEN, lock_sha256);
    struct stat st;
    if (lstat(venv_dir, &st) == 0) {
        rc = sc_error_set(err, SC_E_IO, venv_dir, "destination already exists: %s", venv_dir);
        goto out;
    }
    /* 1: the workspace */
    remove_tree(ws);
    remove_tree(tarball);
    if ((rc = make_dirs(ws, err)) != SC_OK || (rc = copy_into(scroll_dir, ws, "pixi.toml", err)) != SC_OK ||
        (rc = copy_into(scroll_dir, ws, "pixi.lock", err)) != SC_OK)
        goto out;
    ws_manifest = sc_path_join(ws, "pixi.toml");
    prefix = sc_path_join(ws, ".pixi/envs/default");
    if (ws_manifest == NULL || prefix == NULL) {
        rc = oom(err);
        goto out;
    }
    /* 2: install, never resolving */
    int status = 0;
    {
        char *argv[] = {tools->pixi, "install", "--manifest-path", ws_manifest, "--frozen", NULL};
        if (run_tool(argv, ws, NULL, 0, &status, err) != SC_OK) {
            rc = sc_error_set(err, SC_E_TOOL_MISSING, tools->pixi, "pixi failed to start: %s", tools->pixi);
            goto out;
        }
        if (status != 0) {
            rc = tool_failed(err, tools->pixi, "pixi install --frozen", status);
            goto out;
        }
    }
    if (!sc_is_dir(prefix)) {
        rc = sc_error_set(err, SC_E_RELOCATION_FAILED, prefix,
                          "pixi install made no environment at %s", prefix);
        goto out;
    }
    /* 3: pack */
    {
        char *argv[] = {tools->conda_pack, "-p", prefix, "-o", tarball, "--format", "tar.gz", NULL};
        if (run_tool(argv, ws, NULL, 0, &status, err) != SC_OK) {
            rc = sc_error_set(err, SC_E_TOOL_MISSING, tools->conda_pack, "conda-pack failed to start: %s", tools->conda_pack);
            goto out;
        }
        if (status != 0) {
            rc = tool_failed(err, tools->conda_pack, "conda-pack", status);
            goto out;
        }
    }
    /* 4: unpack strictly */
    if ((rc = make_dirs(venv_dir, err)) != SC_OK)
        goto out;
    venv_made = 1;
    if ((rc = unpack_tar_gz(tarball, venv_dir, err)) != SC_OK)
        goto out;
    /* 5-7 */
    if ((rc = remove_service_files(venv_dir, err)) != SC_OK ||
        (rc = sc_envsource_canonical_conda_meta(venv_dir, err)) != SC_OK ||
        (rc = sc_envsource_settle_links(venv_dir, t, err)) != SC_OK)
        goto out;
    /* 8: launchers naming the prefix, the workspace or the payload */
    ws_real = realpath(ws, NULL);
    prefix_real = realpath(prefix, NULL);
    venv_real = realpath(venv_dir, NULL);
    {
        const char *needles[] = {prefix, ws, venv_dir, prefix_real, ws_real, venv_real, NULL};
        /* compact: NULL (unresolved) and relative entries are left out */
        const char *list[7];
        size_t k = 0;
        for (size_t i = 0; i < 6; i++)
            if (needles[i] != NULL && needles[i][0] == '/') /* absolute paths only */
                list[k++] = needles[i];
        list[k] = NULL;
        if ((rc = sc_envsource_repair_launchers(venv_dir, t, list, NULL, err)) != SC_OK)
            goto out;
    }
    {
        const char *entry = entry_in_root(t);
        char *ep = sc_path_join(venv_dir, entry);
        if (ep == NULL)
            rc = oom(err);
        else if (!sc_is_file(ep))
            rc = sc_error_set(err, SC_E_RELOCATION_FAILED, ep,
                              "the packed environment has no %s", entry);
        free(ep);
    }
out:
    /* 9: the workspace and the tarball go, whatever happened */
    if (ws != NULL)
        remove_tree(ws);
    if (tarball != NULL)
        remove_tree(tarball);
    if (rc != SC_OK) {
        lock_sha256[0] = '\0';
        if (venv_made)
            remove_tree(venv_dir);
    }
    free(lock);
    free(manifest);
    free(ws);
    free(tarball);
    free(ws_manifest);
    free(prefix);
    free(ws_real);
    free(prefix_real);
    free(venv_real);
    return rc;
}
