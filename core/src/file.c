/* SPDX-License-Identifier: Apache-2.0 */
/*
 * file.c — whole-file reading, atomic writing and path joining.
 *
 * Guarantees: sc_file_write_atomic writes "<dir>/.<name>.tmp-XXXXXX" (created
 * with O_CREAT|O_EXCL), fsyncs it, sets the exact mode with fchmod (so the
 * umask does not matter), renames it over the destination and fsyncs the
 * directory.  Before the rename any failure removes the temporary file and
 * leaves the destination as it was.
 */
#include "scrollcase/file.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include "cleanup_internal.h"

#ifndef O_CLOEXEC
#define O_CLOEXEC 0
#endif
#ifndef O_DIRECTORY
#define O_DIRECTORY 0
#endif

static const char *kind_text(mode_t m)
{
    if (S_ISDIR(m))
        return "a directory";
    if (S_ISFIFO(m))
        return "a FIFO";
    if (S_ISSOCK(m))
        return "a socket";
    if (S_ISCHR(m) || S_ISBLK(m))
        return "a device";
    if (S_ISLNK(m))
        return "a link";
    return "not a regular file";
}

sc_code sc_file_open_regular(const char *path, unsigned flags, int *fdp, struct stat *stp,
                             sc_file_kind *kind, sc_error *err)
{
    sc_file_kind k_ignored;
    if (kind == NULL)
        kind = &k_ignored;
    *kind = SC_FILE_UNREADABLE;
    if (fdp != NULL)
        *fdp = -1;
    if (path == NULL || fdp == NULL)
        return sc_error_set(err, SC_E_USAGE, path, "sc_file_open_regular: no path or no output");
    int oflags = O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY;
    if (flags & SC_FILE_NOFOLLOW)
        oflags |= O_NOFOLLOW;
    int fd;
    do
        fd = open(path, oflags);
    while (fd < 0 && errno == EINTR);
    if (fd < 0) {
        int e = errno;
        /* ELOOP when following links: a cycle names no file either. */
        if (e == ENOENT || e == ENOTDIR || (e == ELOOP && !(flags & SC_FILE_NOFOLLOW))) {
            *kind = SC_FILE_MISSING;
            return sc_error_set(err, SC_E_IO, path, "cannot open %s: %s", path, strerror(e));
        }
        /* ENXIO: a socket (or a FIFO without a reader, for writing);
         * ELOOP with O_NOFOLLOW: the last component is a link. */
        if (e == ENXIO || ((flags & SC_FILE_NOFOLLOW) && e == ELOOP)) {
            struct stat lst;
            if (lstat(path, &lst) == 0 && !S_ISREG(lst.st_mode)) {
                *kind = SC_FILE_NOT_REGULAR;
                return sc_error_set(err, SC_E_IO, path, "cannot read %s: it is %s", path,
                                    kind_text(lst.st_mode));
            }
        }
        return sc_error_set(err, SC_E_IO, path, "cannot open %s: %s", path, strerror(e));
    }
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        return sc_error_set(err, SC_E_IO, path, "cannot stat %s: %s", path, strerror(e));
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        *kind = SC_FILE_NOT_REGULAR;
        return sc_error_set(err, SC_E_IO, path, "cannot read %s: it is %s, not a regular file",
                            path, kind_text(st.st_mode));
    }
    int fl = fcntl(fd, F_GETFL);
    if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) != 0) {
        int e = errno;
        close(fd);
        return sc_error_set(err, SC_E_IO, path, "cannot open %s: %s", path, strerror(e));
    }
    if (stp != NULL)
        *stp = st;
    *kind = SC_FILE_REGULAR;
    *fdp = fd;
    return SC_OK;
}

sc_code sc_file_read(const char *path, char **bytes, size_t *len,
                     int *missing, sc_error *err)
{
    return sc_file_read_bounded(path, SC_FILE_READ_MAX, SC_E_IO, bytes, len, missing, err);
}

sc_code sc_file_read_bounded(const char *path, size_t max, sc_code too_large, char **bytes,
                             size_t *len, int *missing, sc_error *err)
{
    if (max > SC_FILE_READ_MAX)
        max = SC_FILE_READ_MAX;
    if (missing != NULL)
        *missing = 0;
    if (bytes != NULL)
        *bytes = NULL;
    if (len != NULL)
        *len = 0;
    if (path == NULL || bytes == NULL)
        return sc_error_set(err, SC_E_USAGE, path, "sc_file_read: no path or no output");

    int fd;
    struct stat st;
    sc_file_kind kind;
    sc_code oc = sc_file_open_regular(path, 0, &fd, &st, &kind, err);
    if (oc != SC_OK) {
        if (kind == SC_FILE_MISSING && missing != NULL)
            *missing = 1;
        return oc;
    }

    if (st.st_size > 0 && (uintmax_t)st.st_size > (uintmax_t)max) {
        close(fd);
        return sc_error_set(err, too_large, path, "%s is larger than %zu bytes", path, max);
    }
    /* Start from the size fstat reports but do not trust it (/proc, a file
     * that grows while we read). */
    size_t cap = 4096;
    if (st.st_size > 0 && (uintmax_t)st.st_size < (uintmax_t)max)
        cap = (size_t)st.st_size + 2; /* +1 to see EOF, +1 for NUL */
    char *buf = malloc(cap);
    if (buf == NULL) {
        close(fd);
        return sc_error_set(err, SC_E_OUT_OF_MEMORY, path,
                            "out of memory reading %s", path);
    }
    size_t used = 0;
    for (;;) {
        if (used + 1 >= cap) {
            if (cap > max) {
                free(buf);
                close(fd);
                return sc_error_set(err, too_large, path, "%s is larger than %zu bytes", path,
                                    max);
            }
            size_t ncap = cap * 2;
            if (ncap > max + 2)
                ncap = max + 2;
            char *nb = realloc(buf, ncap);
            if (nb == NULL) {
                free(buf);
                close(fd);
                return sc_error_set(err, SC_E_OUT_OF_MEMORY, path,
                                    "out of memory reading %s", path);
            }
            buf = nb;
            cap = ncap;
        }
        ssize_t r = read(fd, buf + used, cap - 1 - used);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            int e = errno;
            free(buf);
            close(fd);
            return sc_error_set(err, SC_E_IO, path, "cannot read %s: %s",
                                path, strerror(e));
        }
        if (r == 0)
            break;
        used += (size_t)r;
        if (used > max) {
            free(buf);
            close(fd);
            return sc_error_set(err, too_large, path, "%s is larger than %zu bytes", path,
                                max);
        }
    }
    close(fd);
    buf[used] = '\0';
    *bytes = buf;
    if (len != NULL)
        *len = used;
    sc_error_clear(err);
    return SC_OK;
}

sc_code sc_file_resolve_local(const char *root, const char *rel, char **real, sc_error *err)
{
    *real = NULL;
    size_t rn = strlen(root), ln = strlen(rel);
    char *joined = malloc(rn + ln + 2);
    if (joined == NULL)
        return sc_error_set(err, SC_E_OUT_OF_MEMORY, rel, "out of memory");
    snprintf(joined, rn + ln + 2, "%s/%s", root, rel);
    char *target = realpath(joined, NULL);
    int e = errno;
    free(joined);
    if (target == NULL)
        return e == ENOMEM ? sc_error_set(err, SC_E_OUT_OF_MEMORY, rel, "out of memory")
                           : sc_error_set(err, SC_E_LOCAL_FILE_MISSING, rel,
                                          "Local box file is missing: %s (%s)", rel,
                                          strerror(e));
    char *top = realpath(root, NULL);
    if (top == NULL) {
        e = errno;
        free(target);
        return sc_error_set(err, SC_E_IO, root, "cannot resolve the project root %s: %s", root,
                            strerror(e));
    }
    size_t tn = strlen(top);
    int inside = strcmp(top, "/") == 0 ||
                 (strncmp(target, top, tn) == 0 && (target[tn] == '/' || target[tn] == '\0'));
    sc_code c = SC_OK;
    struct stat st;
    if (!inside)
        c = sc_error_set(err, SC_E_UNSAFE_PATH, rel,
                         "Local box file %s is a link that leaves the project (to %s); copy "
                         "the file into the project and name that copy",
                         rel, target);
    else if (stat(target, &st) != 0 || !S_ISREG(st.st_mode))
        c = sc_error_set(err, SC_E_LOCAL_FILE_MISSING, rel,
                         "Local box file is missing: %s is not a regular file", rel);
    free(top);
    if (c != SC_OK) {
        free(target);
        return c;
    }
    *real = target;
    return SC_OK;
}

/* Six characters for a temporary name, from the clock, the pid, a stack
 * address and the attempt number (O_EXCL makes any clash harmless). */
static void temp_suffix(char out[7], unsigned attempt)
{
    static const char alphabet[] =
        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t x = (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 20) ^
                 ((uint64_t)getpid() << 32) ^ (uint64_t)(uintptr_t)&ts ^
                 ((uint64_t)attempt * 0x9E3779B97F4A7C15u);
    /* splitmix64 finaliser */
    x ^= x >> 30;
    x *= 0xBF58476D1CE4E5B9u;
    x ^= x >> 27;
    x *= 0x94D049BB133111EBu;
    x ^= x >> 31;
    for (int i = 0; i < 6; i++) {
        out[i] = alphabet[x % 62];
        x /= 62;
    }
    out[6] = '\0';
}

static int write_all(int fd, const unsigned char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        p += (size_t)w;
        n -= (size_t)w;
    }
    return 0;
}

/*
 * Write through a temporary file beside path, then put it in place: with
 * replace, rename() over whatever is there; without, link() — which fails
 * with EEXIST, atomically, when path exists (*existed is then set) — and
 * unlink the temporary name.
 */
static sc_code write_file(const char *path, const void *bytes, size_t len,
                          unsigned mode, int replace, int *existed, sc_error *err)
{
    if (existed != NULL)
        *existed = 0;
    if (path == NULL || (bytes == NULL && len > 0))
        return sc_error_set(err, SC_E_USAGE, path,
                            "sc_file_write_atomic: no path or no bytes");
    const char *slash = strrchr(path, '/');
    const char *name = slash ? slash + 1 : path;
    if (name[0] == '\0' || strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
        return sc_error_set(err, SC_E_IO, path,
                            "cannot write %s: not a file name", path);

    /* dir: everything before the last '/' ("/" for "/x", "." for "x"). */
    size_t dir_len = slash ? (size_t)(slash - path) : 1;
    char *dir = malloc(dir_len + 2);
    /* "<dir>/.<name>.tmp-XXXXXX" */
    size_t tmp_size = strlen(path) + 16;
    char *tmp = malloc(tmp_size);
    if (dir == NULL || tmp == NULL) {
        free(dir);
        free(tmp);
        return sc_error_set(err, SC_E_OUT_OF_MEMORY, path,
                            "out of memory writing %s", path);
    }
    if (slash == NULL) {
        strcpy(dir, ".");
    } else if (dir_len == 0) {
        strcpy(dir, "/");
    } else {
        memcpy(dir, path, dir_len);
        dir[dir_len] = '\0';
    }

    int fd = -1, slot = -1;
    sigset_t held;
    sc_cleanup_hold(&held); /* the temporary name is never missed by cleanup.h */
    for (unsigned attempt = 0; attempt < 100; attempt++) {
        char suffix[7];
        temp_suffix(suffix, attempt);
        snprintf(tmp, tmp_size, "%.*s.%s.tmp-%s", (int)(name - path), path,
                 name, suffix);
        fd = open(tmp, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0600);
        if (fd >= 0 || (errno != EEXIST && errno != EINTR))
            break;
    }
    if (fd >= 0)
        slot = sc_cleanup_add_path(tmp);
    int open_errno = errno;
    sc_cleanup_release(&held);
    errno = open_errno;
    if (fd < 0) {
        int e = errno;
        /* ".<name>.tmp-XXXXXX": 12 bytes more than the name itself */
        sc_code rc = e == ENAMETOOLONG && strlen(name) + 12 > NAME_MAX
                         ? sc_error_set(err, SC_E_IO, path,
                                        "cannot create a temporary file beside %s: its name is "
                                        "%zu bytes, and the temporary name the file is written "
                                        "under first needs 12 more (at most %d): give a name of "
                                        "at most %d bytes",
                                        path, strlen(name), NAME_MAX, NAME_MAX - 12)
                         : sc_error_set(err, SC_E_IO, path,
                                        "cannot create a temporary file beside %s: %s", path,
                                        strerror(e));
        free(dir);
        free(tmp);
        return rc;
    }

    const char *step = NULL;
    if (write_all(fd, bytes, len) != 0)
        step = "write";
    else if (fsync(fd) != 0)
        step = "fsync";
    else if (fchmod(fd, (mode_t)(mode & 07777)) != 0)
        step = "chmod";
    int e = step ? errno : 0;
    if (close(fd) != 0 && step == NULL) {
        step = "close";
        e = errno;
    }
    if (step == NULL && replace && rename(tmp, path) != 0) {
        step = "rename";
        e = errno;
    }
    if (step == NULL && !replace) {
        if (link(tmp, path) != 0) {
            step = "link";
            e = errno;
            if (e == EEXIST && existed != NULL)
                *existed = 1;
        }
        unlink(tmp);
    }
    if (step != NULL) {
        unlink(tmp);
        sc_cleanup_drop_path(slot, 0);
        sc_code rc = e == EEXIST && !replace
                         ? sc_error_set(err, SC_E_IO, path, "cannot write %s: it exists", path)
                         : sc_error_set(err, SC_E_IO, path, "cannot write %s (%s): %s",
                                        path, step, strerror(e));
        free(dir);
        free(tmp);
        return rc;
    }

    sc_cleanup_drop_path(slot, 0);
    /* The new name is in place; make the rename itself durable.  File
     * systems that cannot fsync a directory say EINVAL/ENOTSUP: accept. */
    sc_code rc = SC_OK;
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
        if (fsync(dfd) != 0 && errno != EINVAL && errno != ENOTSUP &&
            errno != EROFS)
            rc = sc_error_set(err, SC_E_IO, path,
                              "wrote %s but cannot fsync its directory: %s",
                              path, strerror(errno));
        close(dfd);
    }
    if (rc == SC_OK)
        sc_error_clear(err);
    free(dir);
    free(tmp);
    return rc;
}

sc_code sc_file_write_atomic(const char *path, const void *bytes, size_t len,
                             unsigned mode, sc_error *err)
{
    return write_file(path, bytes, len, mode, 1, NULL, err);
}

sc_code sc_file_write_new(const char *path, const void *bytes, size_t len,
                          unsigned mode, int *existed, sc_error *err)
{
    return write_file(path, bytes, len, mode, 0, existed, err);
}

char *sc_path_join(const char *a, const char *b)
{
    if (a == NULL || b == NULL)
        return NULL;
    size_t la = strlen(a), lb = strlen(b);
    /* An absolute b, or nothing to join onto: a copy of b. */
    if (b[0] == '/' || la == 0) {
        char *r = malloc(lb + 1);
        if (r != NULL)
            memcpy(r, b, lb + 1);
        return r;
    }
    int sep = a[la - 1] != '/';
    char *r = malloc(la + (size_t)sep + lb + 1);
    if (r == NULL)
        return NULL;
    memcpy(r, a, la);
    if (sep)
        r[la] = '/';
    memcpy(r + la + (size_t)sep, b, lb + 1);
    return r;
}

int sc_is_dir(const char *path)
{
    struct stat st;
    return path != NULL && stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Filesystem magic numbers (statfs f_type, as linux/magic.h has them). */
static int stamps_trusted_type(long type)
{
    switch ((unsigned long)type & 0xffffffffUL) {
    case 0xEF53UL:     /* ext2, ext3, ext4 */
    case 0x58465342UL: /* XFS */
    case 0x9123683EUL: /* Btrfs */
    case 0x01021994UL: /* tmpfs */
    case 0xF2F52010UL: /* F2FS */
    case 0x794C7630UL: /* overlayfs */
        return 1;
    default:
        return 0;
    }
}

int sc_file_stamps_trusted(int fd)
{
    struct statfs fs;
    return fstatfs(fd, &fs) == 0 && stamps_trusted_type((long)fs.f_type);
}

int sc_file_stamps_trusted_path(const char *path)
{
    struct statfs fs;
    return path != NULL && statfs(path, &fs) == 0 && stamps_trusted_type((long)fs.f_type);
}

int sc_is_file(const char *path)
{
    struct stat st;
    return path != NULL && stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* ---- removing trees, with system calls only ------------------------------- */

#ifdef SYS_getdents64
struct sc_dirent64 {
    uint64_t d_ino;
    int64_t d_off;
    unsigned short d_reclen;
    unsigned char d_type;
    char d_name[];
};
#endif

/*
 * Remove name under parent (a link or file is unlinked, never followed),
 * iteratively and without allocation, so that a signal handler may call it:
 * exactly one directory of the tree is open at a time (plus the parent the
 * caller holds), and the way back up is openat(fd, "..").  A directory is
 * entered when rmdir says it is not empty, scanned from its start (what was
 * removed no longer shows, so nothing is read twice), and removed by its
 * parent's next scan once empty.  The directory reached by ".." is checked
 * to be the one entered at that depth (device and inode) for the nearest
 * RING_DEPTHS levels; deeper ones can only have been moved by someone who
 * may write into the tree.  Any failure stops at once (no endless rescans).
 */
#define RING_DEPTHS 64

typedef struct dir_id {
    dev_t dev;
    ino_t ino;
    size_t depth;
} dir_id;

static int is_dot(const char *s)
{
    return s[0] == '.' && (s[1] == '\0' || (s[1] == '.' && s[2] == '\0'));
}

/* Unlink name under fd (a directory: rmdir when empty). 0 removed, 1 a
 * directory that is not empty, -1 failure. */
static int unlink_one(int fd, const char *name)
{
    if (unlinkat(fd, name, 0) == 0 || errno == ENOENT)
        return 0;
    if (errno != EISDIR && errno != EPERM)
        return -1;
    if (unlinkat(fd, name, AT_REMOVEDIR) == 0 || errno == ENOENT)
        return 0;
    return errno == ENOTEMPTY || errno == EEXIST ? 1 : -1;
}

int sc_file_remove_at(int parent, const char *name)
{
    int r = unlink_one(parent, name);
    if (r <= 0)
        return r;
    int fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return errno == ENOENT ? 0 : -1;
    dir_id ring[RING_DEPTHS];
    struct stat st;
    if (fstat(fd, &st) != 0) {
        close(fd);
        return -1;
    }
    ring[0].dev = st.st_dev;
    ring[0].ino = st.st_ino;
    ring[0].depth = 0;
    size_t depth = 0;
#ifdef SYS_getdents64
    _Alignas(8) char buf[4096];
#endif
    for (;;) {
        int entered = 0, failed = 0;
        if (lseek(fd, 0, SEEK_SET) < 0) {
            failed = 1;
        }
#ifdef SYS_getdents64
        while (!failed && !entered) {
            long n = syscall(SYS_getdents64, fd, buf, sizeof buf);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0) {
                failed = n < 0;
                break;
            }
            for (long off = 0; off < n && !failed && !entered;) {
                struct sc_dirent64 *d = (struct sc_dirent64 *)(void *)(buf + off);
                off += d->d_reclen;
                const char *s = d->d_name;
                if (is_dot(s))
                    continue;
#else
        DIR *dir = failed ? NULL : fdopendir(dup(fd));
        if (dir == NULL)
            failed = 1;
        while (dir != NULL && !failed && !entered) {
            struct dirent *de = readdir(dir);
            if (de == NULL)
                break;
            {
                const char *s = de->d_name;
                if (is_dot(s))
                    continue;
#endif
                r = unlink_one(fd, s);
                if (r < 0) {
                    failed = 1;
                } else if (r == 1) {
                    int c = openat(fd, s, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                    if (c < 0 || fstat(c, &st) != 0) {
                        if (c >= 0)
                            close(c);
                        failed = 1;
                    } else {
                        close(fd);
                        fd = c;
                        depth++;
                        dir_id *slot = &ring[depth % RING_DEPTHS];
                        slot->dev = st.st_dev;
                        slot->ino = st.st_ino;
                        slot->depth = depth;
                        entered = 1;
                    }
                }
            }
        }
#ifndef SYS_getdents64
        if (dir != NULL)
            closedir(dir);
#endif
        if (failed) {
            close(fd);
            return -1;
        }
        if (entered)
            continue;
        /* fd is empty now */
        if (depth == 0)
            break;
        int up = openat(fd, "..", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        close(fd);
        fd = up;
        if (fd < 0)
            return -1;
        depth--;
        const dir_id *want = &ring[depth % RING_DEPTHS];
        if (want->depth == depth &&
            (fstat(fd, &st) != 0 || st.st_dev != want->dev || st.st_ino != want->ino)) {
            close(fd);
            errno = ESTALE;
            return -1;
        }
    }
    close(fd);
    if (unlinkat(parent, name, AT_REMOVEDIR) != 0 && errno != ENOENT)
        return -1;
    return 0;
}

sc_code sc_file_remove_tree(const char *path, sc_error *err)
{
    if (sc_file_remove_at(AT_FDCWD, path) != 0)
        return sc_error_set(err, SC_E_IO, path, "cannot remove %s: %s", path,
                            strerror(errno));
    return SC_OK;
}

/* ---- the tree walker ---------------------------------------------------------- */

typedef struct walk_frame {
    char **names;      /* this directory's entries (not . and ..) */
    size_t n, next;
    size_t path_len;   /* length of this directory's path ("" for the root) */
    struct stat st;    /* the directory itself */
} walk_frame;

static int walk_name_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void free_frame(walk_frame *f)
{
    for (size_t i = 0; i < f->n; i++)
        free(f->names[i]);
    free(f->names);
    f->names = NULL;
    f->n = f->next = 0;
}

/* The names in the directory fd (which stays open and owned by the caller). */
static sc_code list_dir(int fd, unsigned flags, walk_frame *f, const char *shown, sc_error *err)
{
    f->names = NULL;
    f->n = f->next = 0;
    int dfd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
    DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
    if (d == NULL) {
        int e = errno;
        if (dfd >= 0)
            close(dfd);
        return sc_error_set(err, SC_E_IO, shown, "cannot read the directory %s: %s", shown,
                            strerror(e));
    }
    rewinddir(d);
    size_t cap = 0;
    sc_code c = SC_OK;
    for (;;) {
        errno = 0;
        struct dirent *de = readdir(d);
        if (de == NULL) {
            if (errno != 0)
                c = sc_error_set(err, SC_E_IO, shown, "cannot read the directory %s: %s", shown,
                                 strerror(errno));
            break;
        }
        if (is_dot(de->d_name))
            continue;
        if (f->n == cap) {
            size_t ncap = cap ? cap * 2 : 16;
            char **nv = ncap > SIZE_MAX / sizeof *nv ? NULL : realloc(f->names, ncap * sizeof *nv);
            if (nv == NULL) {
                c = sc_error_set(err, SC_E_OUT_OF_MEMORY, shown, "out of memory listing %s", shown);
                break;
            }
            f->names = nv;
            cap = ncap;
        }
        f->names[f->n] = strdup(de->d_name);
        if (f->names[f->n] == NULL) {
            c = sc_error_set(err, SC_E_OUT_OF_MEMORY, shown, "out of memory listing %s", shown);
            break;
        }
        f->n++;
    }
    closedir(d);
    if (c != SC_OK) {
        free_frame(f);
        return c;
    }
    if ((flags & SC_WALK_SORTED) && f->n > 1)
        qsort(f->names, f->n, sizeof *f->names, walk_name_cmp);
    return SC_OK;
}

/* path[0..len) + "/" + name (or name alone at the root) into *buf. */
static int path_push(char **buf, size_t *cap, size_t len, const char *name, size_t *out_len)
{
    size_t nl = strlen(name);
    size_t need = len + (len ? 1 : 0) + nl + 1;
    if (need > *cap) {
        size_t ncap = *cap ? *cap : 256;
        while (ncap < need)
            ncap *= 2;
        char *nb = realloc(*buf, ncap);
        if (nb == NULL)
            return -1;
        *buf = nb;
        *cap = ncap;
    }
    size_t at = len;
    if (len)
        (*buf)[at++] = '/';
    memcpy(*buf + at, name, nl + 1);
    *out_len = at + nl;
    return 0;
}

sc_code sc_file_walk(const char *root, unsigned flags, sc_walk_fn fn, void *ctx, sc_error *err)
{
    if (root == NULL || fn == NULL)
        return sc_error_set(err, SC_E_USAGE, root, "sc_file_walk: no root or no callback");
    int fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return sc_error_set(err, SC_E_IO, root, "cannot open the directory %s: %s", root,
                            strerror(errno));
    walk_frame *frames = NULL;
    size_t depth = 0, fcap = 0;
    char *path = NULL;
    size_t pcap = 0;
    sc_code c = SC_OK;
    if (path_push(&path, &pcap, 0, "", &(size_t){0}) != 0) {
        close(fd);
        return sc_error_set(err, SC_E_OUT_OF_MEMORY, root, "out of memory walking %s", root);
    }
    frames = malloc(16 * sizeof *frames);
    fcap = 16;
    if (frames == NULL) {
        c = sc_error_set(err, SC_E_OUT_OF_MEMORY, root, "out of memory walking %s", root);
        goto out;
    }
    if (fstat(fd, &frames[0].st) != 0) {
        c = sc_error_set(err, SC_E_IO, root, "cannot stat %s: %s", root, strerror(errno));
        goto out;
    }
    frames[0].path_len = 0;
    if ((c = list_dir(fd, flags, &frames[0], root, err)) != SC_OK)
        goto out;
    depth = 1;
    while (depth > 0 && c == SC_OK) {
        walk_frame *f = &frames[depth - 1];
        if (f->next == f->n) {
            /* this directory is done: back up to its parent */
            free_frame(f);
            if (depth == 1) {
                depth = 0;
                break;
            }
            int up = openat(fd, "..", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
            struct stat ust;
            const walk_frame *pf = &frames[depth - 2];
            if (up < 0 || fstat(up, &ust) != 0 || ust.st_dev != pf->st.st_dev ||
                ust.st_ino != pf->st.st_ino) {
                int e = up < 0 ? errno : ESTALE;
                if (up >= 0)
                    close(up);
                path[f->path_len] = '\0';
                c = sc_error_set(err, SC_E_IO, path, "%s/%s changed while it was walked: %s",
                                 root, path, strerror(e));
                break;
            }
            close(fd);
            fd = up;
            depth--;
            if (flags & SC_WALK_POST) {
                path[f->path_len] = '\0';
                const char *slash = strrchr(path, '/');
                sc_walk_entry e = {path, f->path_len, slash ? slash + 1 : path, fd, &f->st,
                                   depth, 1};
                int skip = 0;
                c = fn(ctx, &e, &skip, err);
            }
            path[pf->path_len] = '\0';
            continue;
        }
        const char *name = f->names[f->next++];
        size_t plen = 0;
        if (path_push(&path, &pcap, f->path_len, name, &plen) != 0) {
            c = sc_error_set(err, SC_E_OUT_OF_MEMORY, root, "out of memory walking %s", root);
            break;
        }
        struct stat st;
        if (fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
            if (errno == ENOENT)
                continue;
            c = sc_error_set(err, SC_E_IO, path, "cannot stat %s: %s", path, strerror(errno));
            break;
        }
        int skip = 0;
        sc_walk_entry e = {path, plen, path + plen - strlen(name), fd, &st, depth, 0};
        if ((c = fn(ctx, &e, &skip, err)) != SC_OK)
            break;
        if (!S_ISDIR(st.st_mode) || skip)
            continue;
        int cfd = openat(fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        struct stat cst;
        if (cfd < 0 || fstat(cfd, &cst) != 0 || cst.st_dev != st.st_dev ||
            cst.st_ino != st.st_ino) {
            int en = cfd < 0 ? errno : ESTALE;
            if (cfd >= 0)
                close(cfd);
            c = sc_error_set(err, SC_E_IO, path, "cannot open the directory %s: %s", path,
                             strerror(en));
            break;
        }
        if (depth == fcap) {
            size_t ncap = fcap * 2;
            walk_frame *nf = ncap > SIZE_MAX / sizeof *nf ? NULL : realloc(frames, ncap * sizeof *nf);
            if (nf == NULL) {
                close(cfd);
                c = sc_error_set(err, SC_E_OUT_OF_MEMORY, root, "out of memory walking %s", root);
                break;
            }
            frames = nf;
            fcap = ncap;
        }
        walk_frame *cf = &frames[depth];
        cf->st = cst;
        cf->path_len = plen;
        if ((c = list_dir(cfd, flags, cf, path, err)) != SC_OK) {
            close(cfd);
            break;
        }
        close(fd);
        fd = cfd;
        depth++;
    }
out:
    while (depth > 0)
        free_frame(&frames[--depth]);
    free(frames);
    free(path);
    if (fd >= 0)
        close(fd);
    return c;
}
