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
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

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

    /* Start from the size fstat reports but do not trust it (/proc, a file
     * that grows while we read). */
    size_t cap = 4096;
    if (st.st_size > 0 &&
        (uintmax_t)st.st_size < (uintmax_t)SC_FILE_READ_MAX)
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
            if (cap > SC_FILE_READ_MAX) {
                free(buf);
                close(fd);
                return sc_error_set(err, SC_E_IO, path,
                                    "cannot read %s: larger than %zu bytes",
                                    path, (size_t)SC_FILE_READ_MAX);
            }
            size_t ncap = cap * 2;
            if (ncap > SC_FILE_READ_MAX + 2)
                ncap = SC_FILE_READ_MAX + 2;
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
        if (used > SC_FILE_READ_MAX) {
            free(buf);
            close(fd);
            return sc_error_set(err, SC_E_IO, path,
                                "cannot read %s: larger than %zu bytes", path,
                                (size_t)SC_FILE_READ_MAX);
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

    int fd = -1;
    for (unsigned attempt = 0; attempt < 100; attempt++) {
        char suffix[7];
        temp_suffix(suffix, attempt);
        snprintf(tmp, tmp_size, "%.*s.%s.tmp-%s", (int)(name - path), path,
                 name, suffix);
        fd = open(tmp, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0600);
        if (fd >= 0 || (errno != EEXIST && errno != EINTR))
            break;
    }
    if (fd < 0) {
        int e = errno;
        sc_code rc = sc_error_set(err, SC_E_IO, path,
                                  "cannot create a temporary file beside %s: %s",
                                  path, strerror(e));
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
        sc_code rc = e == EEXIST && !replace
                         ? sc_error_set(err, SC_E_IO, path, "cannot write %s: it exists", path)
                         : sc_error_set(err, SC_E_IO, path, "cannot write %s (%s): %s",
                                        path, step, strerror(e));
        free(dir);
        free(tmp);
        return rc;
    }

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

/* Remove name under parent (a link or file is unlinked, never followed). */
static int remove_at_depth(int parent, const char *name, int depth)
{
    if (unlinkat(parent, name, 0) == 0 || errno == ENOENT)
        return 0;
    if (errno != EISDIR && errno != EPERM)
        return -1;
    if (depth > 200)
        return -1;
    int fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return errno == ENOENT ? 0 : -1;
    int failed = 0;
#ifdef SYS_getdents64
    _Alignas(8) char buf[4096];
    for (int removed = 1; removed && !failed;) {
        removed = 0;
        if (lseek(fd, 0, SEEK_SET) < 0) {
            failed = 1;
            break;
        }
        for (;;) {
            long n = syscall(SYS_getdents64, fd, buf, sizeof buf);
            if (n < 0 && errno == EINTR)
                continue;
            if (n < 0) {
                failed = 1;
                break;
            }
            if (n == 0)
                break;
            for (long off = 0; off < n;) {
                struct sc_dirent64 *d = (struct sc_dirent64 *)(void *)(buf + off);
                off += d->d_reclen;
                const char *s = d->d_name;
                if (s[0] == '.' && (s[1] == '\0' || (s[1] == '.' && s[2] == '\0')))
                    continue;
                if (remove_at_depth(fd, s, depth + 1) != 0)
                    failed = 1;
                else
                    removed = 1;
            }
        }
    }
    close(fd);
#else
    DIR *dir = fdopendir(fd);
    if (dir == NULL) {
        close(fd);
        return -1;
    }
    for (int removed = 1; removed && !failed;) {
        removed = 0;
        rewinddir(dir);
        struct dirent *d;
        while ((d = readdir(dir)) != NULL) {
            const char *s = d->d_name;
            if (s[0] == '.' && (s[1] == '\0' || (s[1] == '.' && s[2] == '\0')))
                continue;
            if (remove_at_depth(dirfd(dir), s, depth + 1) != 0)
                failed = 1;
            else
                removed = 1;
        }
    }
    closedir(dir);
#endif
    if (unlinkat(parent, name, AT_REMOVEDIR) != 0 && errno != ENOENT)
        return -1;
    return failed ? -1 : 0;
}

int sc_file_remove_at(int parent, const char *name)
{
    return remove_at_depth(parent, name, 0);
}

sc_code sc_file_remove_tree(const char *path, sc_error *err)
{
    if (remove_at_depth(AT_FDCWD, path, 0) != 0)
        return sc_error_set(err, SC_E_IO, path, "cannot remove %s: %s", path,
                            strerror(errno));
    return SC_OK;
}
