/* SPDX-License-Identifier: Apache-2.0 */
/*
 * iobuf_internal.h — the buffers that file bytes are read(2) into or
 * written(2) from (not installed).
 *
 * The kernel copies between the page cache and a user buffer with one string
 * move; on x86-64 that runs at about 60 % of its speed when the buffer does
 * not start on a cache line (measured here: hashing 200 MB read into a
 * malloc'd buffer, 16 bytes past a page, cost 275 ms of CPU; into a
 * page-aligned one, 169 ms).  malloc gives 16-byte alignment, so every
 * streaming buffer comes from here: page-aligned, freed with free().
 */
#ifndef SC_IOBUF_INTERNAL_H
#define SC_IOBUF_INTERNAL_H

#include <fcntl.h>
#include <stddef.h>
#include <stdlib.h>

/* n bytes aligned to 4096, or NULL when out of memory; free() releases it. */
static inline void *sc_iobuf_alloc(size_t n)
{
    void *p = NULL;
    return posix_memalign(&p, 4096, n != 0 ? n : 1) == 0 ? p : NULL;
}

/*
 * Turn O_DIRECT on or off for fd's writes (the archive file, big extracted
 * files: see archive_write.c for why).  1 when the flag is now as asked.
 * Where the system has no O_DIRECT, or the file system refuses it, writes
 * stay buffered; callers also turn it off at the first write that is
 * refused (EINVAL) or cannot be aligned (a tail).
 */
static inline int sc_iobuf_direct(int fd, int on)
{
#ifdef O_DIRECT
    int fl = fcntl(fd, F_GETFL);
    if (fl < 0)
        return 0;
    return fcntl(fd, F_SETFL, on ? fl | O_DIRECT : fl & ~O_DIRECT) == 0;
#else
    (void)fd;
    return !on;
#endif
}

#endif
