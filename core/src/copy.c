/* SPDX-License-Identifier: Apache-2.0 */
/*
 * copy.c — a file's bytes from one descriptor to another (copy.h): FICLONE,
 * then copy_file_range, then read/write, each falling back to the next when
 * the file systems cannot do it (a different device, an old kernel, a
 * special file system).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "scrollcase/copy.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#ifdef __linux__
#include <linux/fs.h>
#endif

#include "iobuf_internal.h"

#define COPY_STEP ((size_t)1 << 30)
#define COPY_BUFFER ((size_t)1 << 20)

static sc_code fail(sc_error *err, const char *path, const char *what, int e)
{
    return sc_error_set(err, SC_E_IO, path, "cannot %s %s: %s", what, path, strerror(e));
}

static sc_code copy_rw(int in, int out, const char *from, const char *to, sc_error *err)
{
    unsigned char *buf = sc_iobuf_alloc(COPY_BUFFER);
    if (buf == NULL)
        return sc_error_set(err, SC_E_OUT_OF_MEMORY, from, "out of memory copying %s", from);
    sc_code c = SC_OK;
    for (;;) {
        ssize_t r = read(in, buf, COPY_BUFFER);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            c = fail(err, from, "read", errno);
            break;
        }
        if (r == 0)
            break;
        for (ssize_t off = 0; off < r;) {
            ssize_t w = write(out, buf + off, (size_t)(r - off));
            if (w < 0 && errno == EINTR)
                continue;
            if (w < 0) {
                c = fail(err, to, "write", errno);
                break;
            }
            off += w;
        }
        if (c != SC_OK)
            break;
    }
    free(buf);
    return c;
}

sc_code sc_copy_fd(int in, int out, const char *from, const char *to, sc_error *err)
{
#if defined(__linux__) && defined(FICLONE)
    if (ioctl(out, FICLONE, in) == 0)
        return SC_OK;
#endif
#ifdef __linux__
    int moved = 0;
    for (;;) {
        ssize_t n = copy_file_range(in, NULL, out, NULL, COPY_STEP, 0);
        if (n > 0) {
            moved = 1;
            continue;
        }
        if (n == 0)
            return SC_OK;
        if (errno == EINTR)
            continue;
        /* Not possible between these files: copy through a buffer, from
         * where the kernel stopped (nothing was moved yet, or both offsets
         * advanced together). */
        if (errno == EXDEV || errno == ENOSYS || errno == EINVAL || errno == EOPNOTSUPP ||
            errno == EBADF || errno == ETXTBSY || errno == EPERM)
            break;
        return fail(err, moved ? to : from, "copy", errno);
    }
#endif
    return copy_rw(in, out, from, to, err);
}
