/* SPDX-License-Identifier: Apache-2.0 */
/*
 * util.c — see util.h.
 */
#include "util.h"

#include "scrollcase/json.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static void out_of_memory(void)
{
    static const char msg[] = "scrollcase conformance tool: out of memory\n";
    ssize_t r = write(2, msg, sizeof msg - 1);
    (void)r;
    _exit(3);
}

void *sc_xmalloc(size_t n)
{
    void *p = malloc(n == 0 ? 1 : n);
    if (p == NULL)
        out_of_memory();
    return p;
}

void *sc_xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n == 0 ? 1 : n);
    if (q == NULL)
        out_of_memory();
    return q;
}

char *sc_xstrndup(const char *s, size_t n)
{
    char *d = sc_xmalloc(n + 1);
    memcpy(d, s, n);
    d[n] = '\0';
    return d;
}

char *sc_xstrdup(const char *s)
{
    return sc_xstrndup(s, strlen(s));
}

char *sc_xjoin(const char *dir, const char *name)
{
    size_t a = strlen(dir), b = strlen(name);
    char *p = sc_xmalloc(a + b + 2);
    memcpy(p, dir, a);
    p[a] = '/';
    memcpy(p + a + 1, name, b + 1);
    return p;
}

/* ---- buffer ----------------------------------------------------------- */

static void reserve(sc_buf *b, size_t extra)
{
    if (extra > (size_t)-1 / 2 - b->len)
        out_of_memory();
    size_t need = b->len + extra + 1;
    if (need <= b->cap)
        return;
    size_t cap = b->cap ? b->cap : 64;
    while (cap < need)
        cap *= 2;
    b->data = sc_xrealloc(b->data, cap);
    b->cap = cap;
}

void sc_buf_add(sc_buf *b, const void *bytes, size_t len)
{
    reserve(b, len);
    if (len > 0)
        memcpy(b->data + b->len, bytes, len);
    b->len += len;
    b->data[b->len] = '\0';
}

void sc_buf_puts(sc_buf *b, const char *s)
{
    sc_buf_add(b, s, strlen(s));
}

void sc_buf_vprintf(sc_buf *b, const char *fmt, va_list ap)
{
    va_list again;
    va_copy(again, ap);
    char small[256];
    int n = vsnprintf(small, sizeof small, fmt, ap);
    if (n < 0) {
        va_end(again);
        return;
    }
    if ((size_t)n < sizeof small) {
        sc_buf_add(b, small, (size_t)n);
        va_end(again);
        return;
    }
    reserve(b, (size_t)n);
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, again);
    va_end(again);
    b->len += (size_t)n;
}

void sc_buf_printf(sc_buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sc_buf_vprintf(b, fmt, ap);
    va_end(ap);
}

const char *sc_buf_str(sc_buf *b)
{
    return b->data != NULL ? b->data : "";
}

void sc_buf_free(sc_buf *b)
{
    free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
}

/* ---- UTF-8 ------------------------------------------------------------ */

/*
 * Length of the well-formed UTF-8 sequence at s (at most n bytes) and its
 * code point, or 0 when the bytes there are not one.
 */
static size_t utf8_seq(const unsigned char *s, size_t n, unsigned long *cp)
{
    unsigned char c = s[0];
    if (c < 0x80) {
        *cp = c;
        return 1;
    }
    size_t len;
    unsigned long v, min;
    if (c >= 0xc2 && c <= 0xdf) {
        len = 2;
        v = c & 0x1f;
        min = 0x80;
    } else if (c >= 0xe0 && c <= 0xef) {
        len = 3;
        v = c & 0x0f;
        min = 0x800;
    } else if (c >= 0xf0 && c <= 0xf4) {
        len = 4;
        v = c & 0x07;
        min = 0x10000;
    } else {
        return 0;
    }
    if (len > n)
        return 0;
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        v = (v << 6) | (s[i] & 0x3f);
    }
    if (v < min || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff))
        return 0;
    *cp = v;
    return len;
}

char *sc_utf8_sanitize(const char *s, size_t len, int xml)
{
    static const char repl[] = "\xef\xbf\xbd"; /* U+FFFD */
    sc_buf b = {0};
    const unsigned char *p = (const unsigned char *)s;
    size_t i = 0;
    while (i < len) {
        unsigned long cp;
        size_t n = utf8_seq(p + i, len - i, &cp);
        int bad = n == 0 || cp == 0;
        if (!bad && xml)
            bad = (cp < 0x20 && cp != 0x09 && cp != 0x0a && cp != 0x0d) ||
                  cp == 0xfffe || cp == 0xffff;
        if (bad) {
            sc_buf_add(&b, repl, 3);
            i += n == 0 ? 1 : n;
        } else {
            sc_buf_add(&b, p + i, n);
            i += n;
        }
    }
    if (b.data == NULL)
        return sc_xstrdup("");
    return b.data;
}

/* ---- trees ------------------------------------------------------------ */

int sc_rmtree(const char *path)
{
    struct stat st;
    if (lstat(path, &st) != 0)
        return errno == ENOENT ? 0 : -1;
    if (!S_ISDIR(st.st_mode))
        return unlink(path);

    int first_errno = 0;
    /* Make sure the directory can be listed and emptied even if the
     * process under test took the permissions away. */
    if ((st.st_mode & 0700) != 0700)
        (void)chmod(path, st.st_mode | 0700);
    DIR *d = opendir(path);
    if (d == NULL) {
        first_errno = errno;
    } else {
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                continue;
            char *child = sc_xjoin(path, e->d_name);
            if (sc_rmtree(child) != 0 && first_errno == 0)
                first_errno = errno;
            free(child);
        }
        closedir(d);
    }
    if (rmdir(path) != 0 && first_errno == 0)
        first_errno = errno;
    if (first_errno != 0) {
        errno = first_errno;
        return -1;
    }
    return 0;
}

static int copy_file(const char *src, const char *dst, mode_t mode, char *msg,
                     size_t msgsize)
{
    int in = open(src, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (in < 0) {
        snprintf(msg, msgsize, "cannot open %s: %s", src, strerror(errno));
        return -1;
    }
    int out = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode & 0777);
    if (out < 0) {
        snprintf(msg, msgsize, "cannot create %s: %s", dst, strerror(errno));
        close(in);
        return -1;
    }
    char buf[65536];
    int rc = 0;
    for (;;) {
        ssize_t n = read(in, buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            snprintf(msg, msgsize, "cannot read %s: %s", src, strerror(errno));
            rc = -1;
            break;
        }
        if (n == 0)
            break;
        for (ssize_t off = 0; off < n;) {
            ssize_t w = write(out, buf + off, (size_t)(n - off));
            if (w < 0 && errno == EINTR)
                continue;
            if (w < 0) {
                snprintf(msg, msgsize, "cannot write %s: %s", dst,
                         strerror(errno));
                rc = -1;
                break;
            }
            off += w;
        }
        if (rc != 0)
            break;
    }
    close(in);
    if (close(out) != 0 && rc == 0) {
        snprintf(msg, msgsize, "cannot write %s: %s", dst, strerror(errno));
        rc = -1;
    }
    return rc;
}

int sc_copytree(const char *src, const char *dst, char *msg, size_t msgsize)
{
    struct stat st;
    if (lstat(src, &st) != 0) {
        snprintf(msg, msgsize, "cannot stat %s: %s", src, strerror(errno));
        return -1;
    }
    if (S_ISREG(st.st_mode))
        return copy_file(src, dst, st.st_mode, msg, msgsize);
    if (!S_ISDIR(st.st_mode)) {
        snprintf(msg, msgsize, "%s is neither a regular file nor a directory",
                 src);
        return -1;
    }
    if (mkdir(dst, 0755) != 0) {
        snprintf(msg, msgsize, "cannot create %s: %s", dst, strerror(errno));
        return -1;
    }
    DIR *d = opendir(src);
    if (d == NULL) {
        snprintf(msg, msgsize, "cannot list %s: %s", src, strerror(errno));
        return -1;
    }
    int rc = 0;
    struct dirent *e;
    while (rc == 0 && (e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        char *s = sc_xjoin(src, e->d_name);
        char *t = sc_xjoin(dst, e->d_name);
        rc = sc_copytree(s, t, msg, msgsize);
        free(s);
        free(t);
    }
    closedir(d);
    return rc;
}

double sc_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1000.0 + (double)ts.tv_nsec / 1e6;
}

sc_json *cf_json_must(sc_json *v)
{
    if (v == NULL) {
        fputs("scrollcase-conform: out of memory\n", stderr);
        exit(3);
    }
    return v;
}

void cf_json_put(sc_json *o, const char *key, sc_json *v)
{
    if (sc_json_object_append(o, key, cf_json_must(v)) != 0) {
        fputs("scrollcase-conform: out of memory\n", stderr);
        exit(3);
    }
}

void cf_json_push(sc_json *a, sc_json *v)
{
    if (sc_json_array_append(a, cf_json_must(v)) != 0) {
        fputs("scrollcase-conform: out of memory\n", stderr);
        exit(3);
    }
}
