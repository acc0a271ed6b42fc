/* SPDX-License-Identifier: Apache-2.0 */
/*
 * archive_read.c — our own ZIP reader (docs/format-v3.md 15.2).
 *
 * Guarantees: nothing is extracted from an archive that sc_zip_open did not
 * accept in full.  Opening finds the end record (and the ZIP64 end record
 * through its locator), parses every central record, checks that the
 * central directory is exactly where and as long as the end record says,
 * classifies every entry in central-directory order, cross-checks its local
 * header, reads and checks link targets, refuses overlapping entries and
 * runs the whole-archive checks (collisions, links, budget) over a prefix
 * tree keyed by (parent, segment), so inspection is linear in the total name
 * bytes (expected, with hashing) whatever the name lengths.  Reading streams through raw inflate with a
 * hard stop at the declared size; the CRC-32 and the exact size are checked
 * at the end of every entry.  Extraction walks every path from the
 * destination with openat(O_NOFOLLOW) and creates files with O_EXCL.
 */

#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* O_DIRECT */
#endif
#include "scrollcase/archive_read.h"
#include "jobs_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>
#include <zlib.h>

#include "scrollcase/file.h"
#include "scrollcase/jobs.h"
#include "scrollcase/path.h"
#include "crc32_internal.h"
#include "iobuf_internal.h"
#include "progress_internal.h"

#ifndef O_CLOEXEC
#define O_CLOEXEC 0
#endif

#define SIG_LOCAL 0x04034b50u
#define SIG_CENTRAL 0x02014b50u
#define SIG_EOCD 0x06054b50u
#define SIG_EOCD64 0x06064b50u
#define SIG_LOCATOR64 0x07064b50u
#define SIG_DESCRIPTOR 0x08074b50u

#define EOCD_SIZE 22u
#define LOCATOR64_SIZE 20u
#define EOCD64_MIN 56u
#define CENTRAL_SIZE 46u
#define LOCAL_SIZE 30u

#define CHUNK 262144 /* one read or inflate step of entry data */

/* ---- hash tables ------------------------------------------------------------ */

/* Open addressing over (bytes, length) keys that live elsewhere. */
typedef struct slot {
    const char *key; /* NULL: empty */
    size_t len;
    uint64_t hash;
    size_t value;
} slot;

typedef struct table {
    slot *slots;
    size_t cap; /* power of two */
    size_t used;
} table;

/*
 * Zeroed memory that has been written, not merely mapped: calloc hands big
 * blocks out as fresh mappings of the zero page, and a table that is read
 * before it is written (every hash probe) then takes a copy-on-write fault
 * per page whose TLB flush interrupts every other thread of the process.
 * During verify that is the thread hashing the archive: perf counted ~720
 * such IPIs for a 20,000-entry archive, about 10 % of the hash's time on
 * the reference VM.  memset faults the pages in by writing.
 */
static void *zalloc(size_t n, size_t size)
{
    if (size != 0 && n > SIZE_MAX / size)
        return NULL;
    size_t bytes = n * size;
    void *p = malloc(bytes != 0 ? bytes : 1);
    if (p != NULL)
        memset(p, 0, bytes);
    return p;
}

static uint64_t hash_bytes(const char *s, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++) {
        h ^= (unsigned char)s[i];
        h *= 1099511628211ull;
    }
    return h ^ (h >> 29);
}

static int table_init(table *t, size_t n)
{
    size_t cap = 16;
    while (cap < n * 2 + 2)
        cap <<= 1;
    t->slots = zalloc(cap, sizeof *t->slots);
    t->cap = cap;
    t->used = 0;
    return t->slots != NULL;
}

static void table_free(table *t)
{
    free(t->slots);
    t->slots = NULL;
    t->cap = t->used = 0;
}

/* The slot holding key, or the empty slot where it would go. */
static slot *table_slot(const table *t, const char *key, size_t len, uint64_t h)
{
    size_t i = (size_t)h & (t->cap - 1);
    for (;;) {
        slot *s = &t->slots[i];
        if (s->key == NULL)
            return s;
        if (s->hash == h && s->len == len && memcmp(s->key, key, len) == 0)
            return s;
        i = (i + 1) & (t->cap - 1);
    }
}

static const slot *table_get(const table *t, const char *key, size_t len)
{
    if (t->cap == 0)
        return NULL;
    const slot *s = table_slot(t, key, len, hash_bytes(key, len));
    return s->key != NULL ? s : NULL;
}

/* Insert unless present (capacity was sized by the caller); returns the
 * slot, *fresh set when it was inserted now. */
static slot *table_put(table *t, const char *key, size_t len, size_t value,
                       int *fresh)
{
    uint64_t h = hash_bytes(key, len);
    slot *s = table_slot(t, key, len, h);
    *fresh = s->key == NULL;
    if (*fresh) {
        s->key = key;
        s->len = len;
        s->hash = h;
        s->value = value;
        t->used++;
    }
    return s;
}

/* The last '/' among the first n bytes of s, or NULL. */
static const char *last_slash(const char *s, size_t n)
{
    while (n-- > 0)
        if (s[n] == '/')
            return s + n;
    return NULL;
}

/* ---- the prefix tree --------------------------------------------------------- */

/*
 * Every path and every '/'-prefix of a path as a node keyed by (parent node,
 * last segment), so that walking a path of L bytes costs O(L): a prefix is
 * never hashed or compared from its first byte again.  The whole-archive
 * checks run over two trees (exact paths, ASCII-folded paths) in time linear
 * in the total name bytes (15.2: a 65,535-byte name is legal).
 */
#define NODE_NONE ((size_t)-1)

typedef struct pnode {
    size_t parent; /* NODE_NONE at the top */
    const char *seg;
    size_t len;
    uint64_t hash;
    size_t entry;  /* the entry with exactly this path, or NODE_NONE */
    int is_prefix; /* some entry lies below it */
} pnode;

typedef struct ptree {
    pnode *nodes;
    size_t count, cap;
    size_t *slots; /* node index + 1; 0: empty */
    size_t mask;
} ptree;

/* A tree for n nodes at first; it grows (doubling, rehashing) past that,
 * so that the bound the caller knows (entries + slashes, mostly repeated
 * prefixes) need not be allocated, nor its pages touched, up front. */
static int ptree_init(ptree *t, size_t n)
{
    size_t cap = 16;
    while (cap < n * 2 + 2)
        cap <<= 1;
    t->nodes = malloc((n + 1) * sizeof *t->nodes);
    t->slots = zalloc(cap, sizeof *t->slots);
    t->count = 0;
    t->cap = n + 1;
    t->mask = cap - 1;
    return t->nodes != NULL && t->slots != NULL;
}

/* Room for one more node with the table at most half full; 0 when out of memory. */
static int ptree_grow(ptree *t)
{
    if (t->count == t->cap) {
        if (t->cap > SIZE_MAX / 2 / sizeof *t->nodes)
            return 0;
        pnode *nn = realloc(t->nodes, t->cap * 2 * sizeof *t->nodes);
        if (nn == NULL)
            return 0;
        t->nodes = nn;
        t->cap *= 2;
    }
    if ((t->count + 1) * 2 > t->mask + 1) {
        size_t cap = (t->mask + 1) * 2;
        size_t *ns = zalloc(cap, sizeof *ns);
        if (ns == NULL)
            return 0;
        for (size_t k = 0; k < t->count; k++) {
            size_t i = (size_t)t->nodes[k].hash & (cap - 1);
            while (ns[i] != 0)
                i = (i + 1) & (cap - 1);
            ns[i] = k + 1;
        }
        free(t->slots);
        t->slots = ns;
        t->mask = cap - 1;
    }
    return 1;
}

static void ptree_free(ptree *t)
{
    free(t->nodes);
    free(t->slots);
    t->nodes = NULL;
    t->slots = NULL;
    t->count = t->cap = 0;
}

/* The node (parent, seg), created when create and absent; NODE_NONE when
 * absent (or, creating, when out of memory). */
static size_t ptree_step(ptree *t, size_t parent, const char *seg, size_t len, int create)
{
    uint64_t h = 1469598103934665603ull ^ ((uint64_t)parent * 0x9E3779B97F4A7C15ull);
    for (size_t i = 0; i < len; i++) {
        h ^= (unsigned char)seg[i];
        h *= 1099511628211ull;
    }
    h ^= h >> 29;
    size_t i = (size_t)h & t->mask;
    for (;;) {
        size_t v = t->slots[i];
        if (v == 0)
            break;
        const pnode *n = &t->nodes[v - 1];
        if (n->hash == h && n->parent == parent && n->len == len && memcmp(n->seg, seg, len) == 0)
            return v - 1;
        i = (i + 1) & t->mask;
    }
    if (!create)
        return NODE_NONE;
    if (t->count == t->cap || (t->count + 1) * 2 > t->mask + 1) {
        if (!ptree_grow(t))
            return NODE_NONE;
        i = (size_t)h & t->mask;
        while (t->slots[i] != 0)
            i = (i + 1) & t->mask;
    }
    pnode *n = &t->nodes[t->count];
    n->parent = parent;
    n->seg = seg;
    n->len = len;
    n->hash = h;
    n->entry = NODE_NONE;
    n->is_prefix = 0;
    t->slots[i] = ++t->count;
    return t->count - 1;
}

/* The node of the whole of s (len bytes), NODE_NONE when absent. */
static size_t ptree_find(ptree *t, const char *s, size_t len)
{
    size_t node = NODE_NONE, pos = 0;
    for (size_t k = 0; k <= len; k++) {
        if (k < len && s[k] != '/')
            continue;
        node = ptree_step(t, node, s + pos, k - pos, 0);
        if (node == NODE_NONE)
            return NODE_NONE;
        pos = k + 1;
    }
    return node;
}

/* Enter s into the tree: chain[j] is the node of the j-th '/'-prefix, the
 * last one (chain[*n - 1]) that of s itself.  Nodes are created unmarked.
 * On entry chain[0 .. *n) may hold the chain of prev (prev_len bytes; NULL
 * and *n == 0 when none): the '/'-prefixes s shares with prev are taken from
 * it instead of being walked again, so that a run of paths in one directory
 * (the central directory's usual order) costs a step each, not a step per
 * segment. */
static int ptree_enter(ptree *t, const char *s, size_t len, const char *prev, size_t prev_len,
                       size_t *chain, size_t *n)
{
    size_t node = NODE_NONE, pos = 0, m = 0, start = 0;
    if (prev != NULL && *n > 0) {
        /* The longest common run of whole segments, ending before a '/' in both. */
        size_t lim = len < prev_len ? len : prev_len, segs = 0, k = 0;
        for (; k < lim && s[k] == prev[k]; k++) {
            if (s[k] == '/') {
                segs++;
                pos = k + 1;
            }
        }
        if (segs > 0 && segs < *n) {
            m = segs;
            node = chain[m - 1];
            start = pos;
        } else {
            pos = 0;
        }
    }
    for (size_t k = start; k <= len; k++) {
        if (k < len && s[k] != '/')
            continue;
        node = ptree_step(t, node, s + pos, k - pos, 1);
        if (node == NODE_NONE)
            return 0;
        chain[m++] = node;
        pos = k + 1;
    }
    *n = m;
    return 1;
}

/* ---- the archive ------------------------------------------------------------ */

struct sc_zip {
    int fd;
    char *name;            /* for messages */
    uint64_t file_size;
    uint64_t cd_offset;    /* the central directory starts here; data ends here */
    sc_zip_entry *entries;
    char **folded;         /* ASCII-folded copy of each entry's path, in folded_buf */
    char *folded_buf;      /* one block for all of them (owned) */
    size_t count;
    uint64_t total;
    table exact;           /* exact normalised path -> index */
    /* While the entries are inspected: the bytes last read around a local
     * header (hdr_read), so that one read serves the headers of many small
     * entries; freed when inspection ends. */
    unsigned char *win;
    uint64_t win_off;
    size_t win_len, win_size;
    sc_progress_meter *meter; /* while extracting: entries written; else NULL */
    unsigned flags;           /* SC_ZIP_* of sc_zip_open_flags */
};

static uint16_t rd16(const unsigned char *p)
{
    return (uint16_t)(p[0] | (p[1] << 8));
}

static uint32_t rd32(const unsigned char *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) | ((uint32_t)p[2] << 16) |
           ((uint32_t)p[3] << 24);
}

static uint64_t rd64(const unsigned char *p)
{
    return (uint64_t)rd32(p) | ((uint64_t)rd32(p + 4) << 32);
}

static sc_code bad(sc_error *err, const sc_zip *z, const char *fmt, const char *what)
{
    return sc_error_set(err, SC_E_INVALID_ARCHIVE, z->name, fmt, z->name, what);
}

/* Read exactly n bytes at off; 0 on success, -1 short (EOF), -2 I/O error. */
static int read_at(const sc_zip *z, uint64_t off, void *buf, size_t n)
{
    unsigned char *b = buf;
    size_t got = 0;
    if (off > z->file_size || n > z->file_size - off)
        return -1;
    while (got < n) {
        ssize_t r = pread(z->fd, b + got, n - got, (off_t)(off + got));
        if (r < 0) {
            if (errno == EINTR)
                continue;
            return -2;
        }
        if (r == 0)
            return -1;
        got += (size_t)r;
    }
    return 0;
}

/*
 * read_at for the local headers and data descriptors of the inspection, from
 * a window of the file.  A header outside the window refills it at the
 * header: with HDR_WIN_MIN bytes, doubled (to HDR_WIN_MAX) while each refill
 * lands just past the last window, as the headers of consecutive small
 * entries do, and back to HDR_WIN_MIN after any other jump.  So windows that
 * grew never overlap, and a hostile order of headers costs at most one
 * small read per entry.  The bytes compared are the file's bytes either way:
 * every check runs on them unchanged.
 */
#define HDR_WIN_MIN ((size_t)4096)
#define HDR_WIN_MAX ((size_t)64 * 1024)

static int hdr_read(sc_zip *z, uint64_t off, void *buf, size_t n)
{
    if (off > z->file_size || n > z->file_size - off)
        return -1;
    if (z->win != NULL && off >= z->win_off && n <= z->win_len &&
        off - z->win_off <= z->win_len - n) {
        memcpy(buf, z->win + (off - z->win_off), n);
        return 0;
    }
    if (z->win == NULL) {
        z->win = sc_iobuf_alloc(HDR_WIN_MAX);
        if (z->win == NULL)
            return read_at(z, off, buf, n);
        z->win_size = HDR_WIN_MIN;
        z->win_len = 0;
    } else {
        uint64_t end = z->win_off + z->win_len;
        int near = off >= end && off - end < z->win_len;
        size_t next = near ? z->win_size * 2 : HDR_WIN_MIN;
        z->win_size = next > HDR_WIN_MAX ? HDR_WIN_MAX : next;
    }
    if (n > z->win_size) {
        z->win_len = 0;
        return read_at(z, off, buf, n);
    }
    uint64_t left = z->file_size - off;
    size_t want = left < z->win_size ? (size_t)left : z->win_size;
    int rc = read_at(z, off, z->win, want);
    if (rc != 0) {
        z->win_len = 0;
        return rc;
    }
    z->win_off = off;
    z->win_len = want;
    memcpy(buf, z->win, n);
    return 0;
}

static void hdr_done(sc_zip *z)
{
    free(z->win);
    z->win = NULL;
    z->win_len = z->win_size = 0;
}

static sc_code read_fail(sc_error *err, const sc_zip *z, int rc, const char *what)
{
    if (rc == -2)
        return sc_error_set(err, SC_E_IO, z->name, "%s: cannot read %s: %s",
                            z->name, what, strerror(errno));
    return sc_error_set(err, SC_E_INVALID_ARCHIVE, z->name,
                        "%s: truncated: %s lies past the end of the file", z->name, what);
}

/* ---- end records -------------------------------------------------------------- */

typedef struct endinfo {
    uint64_t entries;
    uint64_t cd_size;
    uint64_t cd_offset;
    uint64_t cd_end_limit; /* where the central directory must end */
} endinfo;

static sc_code find_end(sc_zip *z, endinfo *ei, sc_error *err)
{
    if (z->file_size < EOCD_SIZE)
        return bad(err, z, "%s: not a ZIP archive (%s)", "too short for an end record");
    size_t window = z->file_size < EOCD_SIZE + 65535 ? (size_t)z->file_size
                                                     : (size_t)(EOCD_SIZE + 65535);
    unsigned char *buf = malloc(window);
    if (buf == NULL)
        return sc_error_set(err, SC_E_OUT_OF_MEMORY, z->name, "out of memory");
    uint64_t base = z->file_size - window;
    int rc = read_at(z, base, buf, window);
    if (rc != 0) {
        free(buf);
        return read_fail(err, z, rc, "the end record");
    }
    /* The last signature whose comment length reaches exactly the end. */
    size_t found = (size_t)-1;
    for (size_t i = window - EOCD_SIZE + 1; i-- > 0;) {
        if (rd32(buf + i) == SIG_EOCD && i + EOCD_SIZE + rd16(buf + i + 20) == window) {
            found = i;
            break;
        }
    }
    if (found == (size_t)-1) {
        free(buf);
        return bad(err, z, "%s: not a ZIP archive (%s)", "no end of central directory record");
    }
    const unsigned char *e = buf + found;
    uint64_t eocd_off = base + found;
    unsigned disk = rd16(e + 4), cd_disk = rd16(e + 6);
    uint64_t n_disk = rd16(e + 8), n_total = rd16(e + 10);
    uint64_t cd_size = rd32(e + 12), cd_offset = rd32(e + 16);
    free(buf);

    /* A ZIP64 locator right before the end record means ZIP64 end records. */
    unsigned char loc[LOCATOR64_SIZE];
    int zip64 = 0;
    if (eocd_off >= LOCATOR64_SIZE && read_at(z, eocd_off - LOCATOR64_SIZE, loc, sizeof loc) == 0 &&
        rd32(loc) == SIG_LOCATOR64)
        zip64 = 1;
    ei->cd_end_limit = eocd_off;
    if (!zip64) {
        if (disk != 0 || cd_disk != 0 || n_disk != n_total)
            return bad(err, z, "%s: %s", "multi-disk archives are not supported");
    } else {
        uint64_t loc_off = eocd_off - LOCATOR64_SIZE;
        if (rd32(loc + 4) != 0 || rd32(loc + 16) != 1)
            return bad(err, z, "%s: %s", "the ZIP64 locator names another disk");
        uint64_t off64 = rd64(loc + 8);
        unsigned char r[EOCD64_MIN];
        if (off64 > loc_off || loc_off - off64 < EOCD64_MIN)
            return bad(err, z, "%s: %s", "the ZIP64 end record lies outside the archive");
        rc = read_at(z, off64, r, sizeof r);
        if (rc != 0)
            return read_fail(err, z, rc, "the ZIP64 end record");
        if (rd32(r) != SIG_EOCD64)
            return bad(err, z, "%s: %s", "the ZIP64 locator does not point at a ZIP64 end record");
        uint64_t rec_size = rd64(r + 4);
        if (rec_size < EOCD64_MIN - 12 || rec_size > loc_off - off64 - 12 ||
            off64 + 12 + rec_size != loc_off)
            return bad(err, z, "%s: %s", "the ZIP64 end record's size is wrong");
        unsigned disk64 = (unsigned)rd32(r + 16), cd_disk64 = (unsigned)rd32(r + 20);
        uint64_t n_disk64 = rd64(r + 24), n_total64 = rd64(r + 32);
        uint64_t size64 = rd64(r + 40), offset64 = rd64(r + 48);
        if (disk64 != 0 || cd_disk64 != 0 || n_disk64 != n_total64)
            return bad(err, z, "%s: %s", "multi-disk archives are not supported");
        /* A 16/32-bit field is either its escape value or equal to ZIP64's. */
        if ((disk != 0xFFFF && disk != 0) || (cd_disk != 0xFFFF && cd_disk != 0) ||
            (n_disk != 0xFFFF && n_disk != n_disk64) ||
            (n_total != 0xFFFF && n_total != n_total64) ||
            (cd_size != 0xFFFFFFFFu && cd_size != size64) ||
            (cd_offset != 0xFFFFFFFFu && cd_offset != offset64))
            return bad(err, z, "%s: %s", "the end record and the ZIP64 end record disagree");
        n_total = n_total64;
        cd_size = size64;
        cd_offset = offset64;
        ei->cd_end_limit = off64;
    }
    if (cd_offset > ei->cd_end_limit || cd_size != ei->cd_end_limit - cd_offset)
        return bad(err, z, "%s: %s",
                   "the central directory is not where the end record says it is");
    if (n_total > cd_size / CENTRAL_SIZE)
        return bad(err, z, "%s: %s",
                   "the end record counts more entries than the central directory holds");
    ei->entries = n_total;
    ei->cd_size = cd_size;
    ei->cd_offset = cd_offset;
    return SC_OK;
}

/* ---- central records ------------------------------------------------------------ */

typedef struct raw {
    unsigned flags;
    unsigned method;
    uint32_t crc;
    uint64_t csize, usize, offset;
    uint32_t external;
    const unsigned char *name;
    size_t name_len;
    const unsigned char *extra;
    size_t extra_len;
    uint64_t span_end; /* end of data (and descriptor) in the file */
} raw;

/*
 * Walk an extra field block: every record's header and body must fit.
 * Returns the body of the first record with the id (or NULL); *malformed is
 * set when the block is not well framed.  The "version made by" host is
 * never consulted: the Unix mode is read from the external attributes
 * whatever it says.
 */
static const unsigned char *extra_find(const unsigned char *x, size_t n, unsigned id,
                                       size_t *body_len, int *malformed)
{
    const unsigned char *hit = NULL;
    size_t i = 0;
    *malformed = 0;
    while (i < n) {
        if (n - i < 4) {
            *malformed = 1;
            return NULL;
        }
        unsigned rid = rd16(x + i);
        size_t len = rd16(x + i + 2);
        if (n - i - 4 < len) {
            *malformed = 1;
            return NULL;
        }
        if (rid == id && hit == NULL) {
            hit = x + i + 4;
            *body_len = len;
        }
        i += 4 + len;
    }
    return hit;
}

/* Replace escaped 32-bit values from a ZIP64 extended-information field. */
static int apply_zip64(const unsigned char *x, size_t n, uint64_t *usize, uint64_t *csize,
                       uint64_t *offset, unsigned *disk)
{
    int malformed;
    size_t blen = 0;
    const unsigned char *b = extra_find(x, n, 0x0001, &blen, &malformed);
    if (malformed)
        return -1;
    int need = (usize && *usize == 0xFFFFFFFFu) || (csize && *csize == 0xFFFFFFFFu) ||
               (offset && *offset == 0xFFFFFFFFu) || (disk && *disk == 0xFFFF);
    if (b == NULL)
        return need ? -1 : 0;
    size_t i = 0;
    if (usize && *usize == 0xFFFFFFFFu) {
        if (blen - i < 8)
            return -1;
        *usize = rd64(b + i);
        i += 8;
    }
    if (csize && *csize == 0xFFFFFFFFu) {
        if (blen - i < 8)
            return -1;
        *csize = rd64(b + i);
        i += 8;
    }
    if (offset && *offset == 0xFFFFFFFFu) {
        if (blen - i < 8)
            return -1;
        *offset = rd64(b + i);
        i += 8;
    }
    if (disk && *disk == 0xFFFF) {
        if (blen - i < 4)
            return -1;
        *disk = (unsigned)rd32(b + i);
    }
    return 0;
}

static sc_code parse_central(sc_zip *z, const unsigned char *cd, size_t cd_size,
                             uint64_t count, raw *out, sc_error *err)
{
    size_t pos = 0;
    for (uint64_t i = 0; i < count; i++) {
        if (cd_size - pos < CENTRAL_SIZE || rd32(cd + pos) != SIG_CENTRAL)
            return bad(err, z, "%s: %s",
                       "the central directory holds fewer records than the end record counts");
        const unsigned char *c = cd + pos;
        raw *r = &out[i];
        r->flags = rd16(c + 8);
        r->method = rd16(c + 10);
        r->crc = rd32(c + 16);
        r->csize = rd32(c + 20);
        r->usize = rd32(c + 24);
        size_t n = rd16(c + 28), m = rd16(c + 30), k = rd16(c + 32);
        unsigned disk = rd16(c + 34);
        r->external = rd32(c + 38);
        r->offset = rd32(c + 42);
        if (cd_size - pos - CENTRAL_SIZE < n + m + k)
            return bad(err, z, "%s: %s", "a central record runs past the central directory");
        r->name = c + CENTRAL_SIZE;
        r->name_len = n;
        r->extra = c + CENTRAL_SIZE + n;
        r->extra_len = m;
        if (apply_zip64(r->extra, m, &r->usize, &r->csize, &r->offset, &disk) != 0)
            return bad(err, z, "%s: %s",
                       "a central record's extra fields are malformed or lack ZIP64 values");
        if (disk != 0)
            return bad(err, z, "%s: %s", "an entry starts on another disk");
        pos += CENTRAL_SIZE + n + m + k;
    }
    if (pos != cd_size)
        return bad(err, z, "%s: %s",
                   "the central directory holds more records than the end record counts");
    return SC_OK;
}

/* ---- per-entry checks ----------------------------------------------------------- */

static sc_code entry_err(sc_error *err, sc_code code, const sc_zip *z, const raw *r,
                         const char *what)
{
    char q[200];
    sc_path_quote((const char *)r->name, r->name_len, q, sizeof q);
    return sc_error_set(err, code, z->name, "%s: entry \"%s\": %s", z->name, q, what);
}

/* Check the data descriptor after a bit-3 entry against the central record. */
static sc_code check_descriptor(sc_zip *z, raw *r, uint64_t data_end, sc_error *err)
{
    unsigned char d[24];
    uint64_t avail = z->cd_offset - data_end;
    size_t n = avail < sizeof d ? (size_t)avail : sizeof d;
    int rc = hdr_read(z, data_end, d, n);
    if (rc != 0)
        return read_fail(err, z, rc, "a data descriptor");
    /* Forms: [sig] crc csize usize, sizes 4 or 8 bytes. */
    for (int sig = 1; sig >= 0; sig--) {
        size_t o = sig ? 4 : 0;
        if (sig && (n < 4 || rd32(d) != SIG_DESCRIPTOR))
            continue;
        for (int wide = 0; wide <= 1; wide++) {
            size_t len = o + 4 + (wide ? 16 : 8);
            if (len > n)
                continue;
            uint32_t crc = rd32(d + o);
            uint64_t cs = wide ? rd64(d + o + 4) : rd32(d + o + 4);
            uint64_t us = wide ? rd64(d + o + 12) : rd32(d + o + 8);
            if (crc == r->crc && cs == r->csize && us == r->usize) {
                r->span_end = data_end + len;
                return SC_OK;
            }
        }
    }
    return entry_err(err, SC_E_INVALID_ARCHIVE, z, r,
                     "its data descriptor is missing or disagrees with the central record");
}

static sc_code check_local(sc_zip *z, raw *r, sc_zip_entry *e, sc_error *err)
{
    unsigned char h[LOCAL_SIZE];
    if (r->offset > z->cd_offset || z->cd_offset - r->offset < LOCAL_SIZE)
        return entry_err(err, SC_E_INVALID_ARCHIVE, z, r,
                         "its local header offset lies outside the entry data");
    int rc = hdr_read(z, r->offset, h, sizeof h);
    if (rc != 0)
        return read_fail(err, z, rc, "a local header");
    if (rd32(h) != SIG_LOCAL)
        return entry_err(err, SC_E_INVALID_ARCHIVE, z, r, "no local header at its offset");
    size_t n = rd16(h + 26), m = rd16(h + 28);
    if (z->cd_offset - r->offset - LOCAL_SIZE < n + m)
        return entry_err(err, SC_E_INVALID_ARCHIVE, z, r,
                         "its local header runs into the central directory");
    if (n != r->name_len)
        return entry_err(err, SC_E_INVALID_ARCHIVE, z, r,
                         "the local header's name differs from the central record's");
    unsigned char *buf = malloc(n + m + 1);
    if (buf == NULL)
        return sc_error_set(err, SC_E_OUT_OF_MEMORY, z->name, "out of memory");
    rc = hdr_read(z, r->offset + LOCAL_SIZE, buf, n + m);
    if (rc != 0) {
        free(buf);
        return read_fail(err, z, rc, "a local header");
    }
    if (memcmp(buf, r->name, n) != 0) {
        free(buf);
        return entry_err(err, SC_E_INVALID_ARCHIVE, z, r,
                         "the local header's name differs from the central record's");
    }
    unsigned lflags = rd16(h + 6), lmethod = rd16(h + 8);
    uint32_t lcrc = rd32(h + 14);
    uint64_t lcs = rd32(h + 18), lus = rd32(h + 22);
    int z64 = apply_zip64(buf + n, m, &lus, &lcs, NULL, NULL);
    free(buf);
    if (z64 != 0)
        return entry_err(err, SC_E_INVALID_ARCHIVE, z, r,
                         "the local header's extra fields are malformed or lack ZIP64 values");
    if (lmethod != r->method || (lflags & 0x0008u) != (r->flags & 0x0008u))
        return entry_err(err, SC_E_INVALID_ARCHIVE, z, r,
                         "the local header's method or flags differ from the central record's");
    if (!(r->flags & 0x0008u) && (lcrc != r->crc || lcs != r->csize || lus != r->usize))
        return entry_err(err, SC_E_INVALID_ARCHIVE, z, r,
                         "the local header's CRC or sizes differ from the central record's");
    uint64_t data = r->offset + LOCAL_SIZE + n + m;
    if (r->csize > z->cd_offset - data)
        return entry_err(err, SC_E_INVALID_ARCHIVE, z, r,
                         "its data runs into the central directory");
    e->data_offset = data;
    r->span_end = data + r->csize;
    if (r->flags & 0x0008u)
        return check_descriptor(z, r, data + r->csize, err);
    return SC_OK;
}

/* ---- streaming an entry ------------------------------------------------------------ */

typedef sc_code (*sink_fn)(void *ctx, const unsigned char *p, size_t n, sc_error *err);

static sc_code entry_msg(sc_error *err, sc_code code, const sc_zip *z, const sc_zip_entry *e,
                         const char *what)
{
    char q[200];
    sc_path_quote(e->path, e->path_len, q, sizeof q);
    return sc_error_set(err, code, z->name, "%s: entry \"%s\": %s", z->name, q, what);
}

/*
 * Stream the entry's bytes to sink: never more than e->size bytes reach it;
 * the first byte past the declared size stops everything.
 */
static sc_code stream_entry(sc_zip *z, const sc_zip_entry *e, sink_fn sink, void *ctx,
                            sc_error *err)
{
    unsigned char *in = sc_iobuf_alloc(CHUNK), *outb = sc_iobuf_alloc(CHUNK);
    sc_code rc = SC_OK;
    z_stream zs;
    int inflating = 0;
    uint64_t left = e->compressed_size, produced = 0, off = e->data_offset;
    uint32_t crc = 0;
    int ended = 0;
    if (in == NULL || outb == NULL) {
        rc = sc_error_set(err, SC_E_OUT_OF_MEMORY, z->name, "out of memory");
        goto done;
    }
    if (e->method == 8) {
        memset(&zs, 0, sizeof zs);
        if (inflateInit2(&zs, -MAX_WBITS) != Z_OK) {
            rc = sc_error_set(err, SC_E_OUT_OF_MEMORY, z->name, "inflate: cannot start");
            goto done;
        }
        inflating = 1;
    }
    while (left > 0 || (inflating && !ended)) {
        size_t n = left < CHUNK ? (size_t)left : CHUNK;
        if (n > 0) {
            int r = read_at(z, off, in, n);
            if (r != 0) {
                rc = read_fail(err, z, r, "entry data");
                goto done;
            }
            off += n;
            left -= n;
        }
        if (!inflating) {
            if (produced + n > e->size) {
                rc = entry_msg(err, SC_E_EXTRACTION_LIMIT, z, e,
                               "holds more bytes than it declares");
                goto done;
            }
            crc = sc_crc32(crc, in, n);
            produced += n;
            rc = sink(ctx, in, n, err);
            if (rc != SC_OK)
                goto done;
            continue;
        }
        zs.next_in = in;
        zs.avail_in = (uInt)n;
        do {
            zs.next_out = outb;
            zs.avail_out = CHUNK;
            int zr = inflate(&zs, Z_NO_FLUSH);
            size_t got = CHUNK - zs.avail_out;
            if (got > 0) {
                if (got > e->size - produced) {
                    rc = entry_msg(err, SC_E_EXTRACTION_LIMIT, z, e,
                                   "inflates to more bytes than it declares");
                    goto done;
                }
                crc = sc_crc32(crc, outb, got);
                produced += got;
                rc = sink(ctx, outb, got, err);
                if (rc != SC_OK)
                    goto done;
            }
            if (zr == Z_STREAM_END) {
                ended = 1;
                break;
            }
            if (zr == Z_BUF_ERROR && n == 0 && got == 0) {
                rc = entry_msg(err, SC_E_INVALID_ARCHIVE, z, e,
                               "its deflate stream is truncated");
                goto done;
            }
            if (zr != Z_OK && zr != Z_BUF_ERROR) {
                rc = entry_msg(err, SC_E_INVALID_ARCHIVE, z, e, "its deflate stream is corrupt");
                goto done;
            }
        } while (zs.avail_out == 0 || zs.avail_in > 0);
        if (ended && (zs.avail_in > 0 || left > 0)) {
            rc = entry_msg(err, SC_E_INVALID_ARCHIVE, z, e,
                           "bytes follow the end of its deflate stream");
            goto done;
        }
        if (!ended && left == 0 && n == 0) {
            rc = entry_msg(err, SC_E_INVALID_ARCHIVE, z, e, "its deflate stream is truncated");
            goto done;
        }
    }
    if (produced != e->size) {
        rc = entry_msg(err, SC_E_INVALID_ARCHIVE, z, e,
                       "holds fewer bytes than it declares");
        goto done;
    }
    if ((uint32_t)crc != e->crc32) {
        rc = entry_msg(err, SC_E_INVALID_ARCHIVE, z, e, "CRC-32 mismatch");
        goto done;
    }
done:
    if (inflating)
        inflateEnd(&zs);
    free(in);
    free(outb);
    return rc;
}

typedef struct membuf {
    unsigned char *p;
    size_t len;
} membuf;

static sc_code mem_sink(void *ctx, const unsigned char *p, size_t n, sc_error *err)
{
    (void)err;
    membuf *m = ctx;
    memcpy(m->p + m->len, p, n); /* stream_entry never passes more than size */
    m->len += n;
    return SC_OK;
}

static sc_code read_entry(sc_zip *z, const sc_zip_entry *e, char **bytes, size_t *len,
                          sc_error *err)
{
    membuf m;
    m.p = malloc((size_t)e->size + 1);
    m.len = 0;
    if (m.p == NULL)
        return sc_error_set(err, SC_E_OUT_OF_MEMORY, z->name, "out of memory");
    sc_code rc = stream_entry(z, e, mem_sink, &m, err);
    if (rc != SC_OK) {
        free(m.p);
        return rc;
    }
    m.p[m.len] = '\0';
    *bytes = (char *)m.p;
    *len = m.len;
    return SC_OK;
}

/* ---- classification ------------------------------------------------------------------ */

static int has_non_ascii(const unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] >= 0x80)
            return 1;
    return 0;
}

/* With SC_ZIP_ACCEPT_DOT_PREFIX: 1 when the name is nothing but "./"
 * segments (a directory entry for the root). */
static int is_dot_root(const sc_zip *z, const raw *r)
{
    if (!(z->flags & SC_ZIP_ACCEPT_DOT_PREFIX) || r->name_len == 0)
        return 0;
    for (size_t i = 0; i < r->name_len; i += 2)
        if (i + 1 >= r->name_len || r->name[i] != '.' || r->name[i + 1] != '/')
            return 0;
    return 1;
}

static sc_code classify(sc_zip *z, raw *r, sc_zip_entry *e, sc_error *err)
{
    if (r->flags & 0x0041u)
        return entry_err(err, SC_E_ENCRYPTED_ENTRY, z, r, "encrypted entries are not allowed");
    if (r->method != 0 && r->method != 8) {
        char what[80];
        snprintf(what, sizeof what, "compression method %u is not supported", r->method);
        return entry_err(err, SC_E_INVALID_ARCHIVE, z, r, what);
    }
    if (!(r->flags & 0x0800u) && has_non_ascii(r->name, r->name_len))
        return entry_err(err, SC_E_UNSAFE_PATH, z, r,
                         "a non-ASCII name without the UTF-8 flag (bit 11)");
    const unsigned char *name = r->name;
    size_t n = r->name_len;
    if (z->flags & SC_ZIP_ACCEPT_DOT_PREFIX)
        while (n >= 2 && name[0] == '.' && name[1] == '/') {
            name += 2;
            n -= 2;
        }
    int slash = n > 0 && name[n - 1] == '/';
    if (slash)
        n--;
    sc_error perr;
    if (sc_path_check((const char *)name, n, NULL, &perr) != SC_OK)
    {
        const char *m = perr.message;
        if (strncmp(m, "unsafe-path: ", 13) == 0)
            m += 13;
        return sc_error_set(err, SC_E_UNSAFE_PATH, z->name, "%s: entry name %s", z->name, m);
    }
    e->path = malloc(n + 1);
    if (e->path == NULL)
        return sc_error_set(err, SC_E_OUT_OF_MEMORY, z->name, "out of memory");
    memcpy(e->path, name, n);
    e->path[n] = '\0';
    e->path_len = n;
    unsigned mode = r->external >> 16;
    unsigned type = mode & 0170000u;
    e->mode = mode & 0777u;
    e->method = r->method;
    e->flags = r->flags;
    e->crc32 = r->crc;
    e->compressed_size = r->csize;
    e->size = r->usize;
    e->local_offset = r->offset;
    if (type == 0120000u) {
        e->type = SC_ZIP_LINK;
        if (r->usize > SC_ZIP_LINK_MAX)
            return entry_err(err, SC_E_LINK_ENTRY, z, r, "link target is longer than 1024 bytes");
    } else if (slash || type == 0040000u) {
        e->type = SC_ZIP_DIR;
    } else if (type == 0 || type == 0100000u) {
        e->type = SC_ZIP_FILE;
    } else {
        return entry_err(err, SC_E_SPECIAL_ENTRY, z, r,
                         "special entries (devices, FIFOs, sockets) are not allowed");
    }
    if (r->method == 0 && r->csize != r->usize)
        return entry_err(err, SC_E_INVALID_ARCHIVE, z, r,
                         "stored entry whose compressed and uncompressed sizes differ");
    if (e->type == SC_ZIP_DIR && r->usize != 0)
        return entry_err(err, SC_E_INVALID_ARCHIVE, z, r, "directory entry with data");
    return check_local(z, r, e, err);
}

/* ---- whole-archive checks ------------------------------------------------------------ */

static int cmp_span(const void *a, const void *b)
{
    const raw *const *x = a, *const *y = b;
    if ((*x)->offset != (*y)->offset)
        return (*x)->offset < (*y)->offset ? -1 : 1;
    return 0;
}

static sc_code check_overlaps(sc_zip *z, raw *raws, size_t n, sc_error *err)
{
    if (n < 2)
        return SC_OK;
    raw **v = malloc(n * sizeof *v);
    if (v == NULL)
        return sc_error_set(err, SC_E_OUT_OF_MEMORY, z->name, "out of memory");
    for (size_t i = 0; i < n; i++)
        v[i] = &raws[i];
    qsort(v, n, sizeof *v, cmp_span);
    sc_code rc = SC_OK;
    for (size_t i = 1; i < n; i++) {
        if (v[i]->offset < v[i - 1]->span_end) {
            rc = entry_err(err, SC_E_INVALID_ARCHIVE, z, v[i],
                           "its data overlaps another entry's");
            break;
        }
    }
    free(v);
    return rc;
}

static sc_code collide(sc_error *err, const sc_zip *z, const sc_zip_entry *e, const char *what)
{
    return entry_msg(err, SC_E_ENTRY_COLLISION, z, e, what);
}

/*
 * Collisions in central-directory order, on ASCII-folded paths: a path seen
 * before; a file or link where an earlier entry needs a directory; an entry
 * below an earlier file.  Fills the folded tree (every node's entry).
 */
static sc_code check_collisions(sc_zip *z, ptree *folded, size_t *chain, sc_error *err)
{
    size_t n = 0; /* chain[0 .. n): the previous entry's */
    for (size_t i = 0; i < z->count; i++) {
        const sc_zip_entry *e = &z->entries[i];
        if (!ptree_enter(folded, z->folded[i], e->path_len, i > 0 ? z->folded[i - 1] : NULL,
                         i > 0 ? z->entries[i - 1].path_len : 0, chain, &n))
            return sc_error_set(err, SC_E_OUT_OF_MEMORY, z->name, "out of memory");
        pnode *self = &folded->nodes[chain[n - 1]];
        if (self->entry != NODE_NONE) {
            const sc_zip_entry *o = &z->entries[self->entry];
            if (o->path_len == e->path_len && memcmp(o->path, e->path, e->path_len) == 0)
                return collide(err, z, e, "collides with another entry of the same path");
            return collide(err, z, e,
                           "collides with another entry that differs only in ASCII case");
        }
        self->entry = i;
        if (e->type != SC_ZIP_DIR && self->is_prefix)
            return collide(err, z, e, "collides with an earlier entry below it");
        for (size_t j = 0; j + 1 < n; j++) {
            pnode *a = &folded->nodes[chain[j]];
            if (a->entry != NODE_NONE && z->entries[a->entry].type == SC_ZIP_FILE)
                return collide(err, z, e, "lies below an earlier file entry");
            a->is_prefix = 1;
        }
    }
    return SC_OK;
}

static sc_code link_bad(sc_error *err, const sc_zip *z, const sc_zip_entry *e, const char *why)
{
    char q[200], what[300];
    sc_path_quote(e->path, e->path_len, q, sizeof q);
    snprintf(what, sizeof what, "does not resolve to a file inside the payload (%s)", why);
    return sc_error_set(err, SC_E_LINK_ENTRY, z->name, "%s: link \"%s\" %s", z->name, q, what);
}

/*
 * Resolve link e lexically into buf (capacity cap); 0 ok, else a reason.
 */
static const char *resolve(const sc_zip_entry *e, char *buf, size_t cap, size_t *out_len)
{
    const char *t = e->link_target;
    size_t tl = strlen(t);
    if (tl == 0)
        return "empty target";
    if (memchr(t, '\\', tl) != NULL)
        return "backslash in target";
    if (t[0] == '/')
        return "absolute target";
    if (tl >= 2 && ((t[0] >= 'A' && t[0] <= 'Z') || (t[0] >= 'a' && t[0] <= 'z')) && t[1] == ':')
        return "drive prefix in target";
    /* Start from the link's directory. */
    const char *slash = last_slash(e->path, e->path_len);
    size_t len = slash ? (size_t)(slash - e->path) : 0;
    if (len + 1 + tl + 1 > cap)
        return "target too long";
    memcpy(buf, e->path, len);
    size_t i = 0;
    while (i <= tl) {
        size_t j = i;
        while (j < tl && t[j] != '/')
            j++;
        size_t n = j - i;
        if (n == 0 || (n == 1 && t[i] == '.')) {
            /* skipped */
        } else if (n == 2 && t[i] == '.' && t[i + 1] == '.') {
            if (len == 0)
                return "escapes the payload";
            const char *p = last_slash(buf, len);
            len = p ? (size_t)(p - buf) : 0;
        } else {
            if (len > 0)
                buf[len++] = '/';
            memcpy(buf + len, t + i, n);
            len += n;
        }
        i = j + 1;
    }
    buf[len] = '\0';
    *out_len = len;
    if (len == 0)
        return "resolves to the payload root";
    return NULL;
}

static sc_code check_links(sc_zip *z, ptree *exact, ptree *folded, sc_error *err)
{
    size_t cap = 0;
    for (size_t i = 0; i < z->count; i++)
        if (z->entries[i].path_len > cap)
            cap = z->entries[i].path_len;
    cap += SC_ZIP_LINK_MAX + 2;
    char *buf = malloc(cap);
    if (buf == NULL)
        return sc_error_set(err, SC_E_OUT_OF_MEMORY, z->name, "out of memory");
    sc_code rc = SC_OK;
    for (size_t i = 0; i < z->count && rc == SC_OK; i++) {
        const sc_zip_entry *start = &z->entries[i];
        if (start->type != SC_ZIP_LINK)
            continue;
        const sc_zip_entry *cur = start;
        const sc_zip_entry *chain[SC_ZIP_LINK_HOPS + 1];
        size_t hops = 0;
        for (;;) {
            if (hops == SC_ZIP_LINK_HOPS) {
                rc = link_bad(err, z, start, "more than 8 link hops");
                break;
            }
            chain[hops++] = cur;
            size_t len = 0;
            const char *why = resolve(cur, buf, cap, &len);
            if (why != NULL) {
                rc = link_bad(err, z, start, why);
                break;
            }
            if (len == cur->path_len && memcmp(buf, cur->path, len) == 0) {
                rc = link_bad(err, z, start, "points at itself");
                break;
            }
            size_t pn = ptree_find(exact, buf, len);
            if (pn != NODE_NONE && exact->nodes[pn].is_prefix) {
                rc = link_bad(err, z, start, "points at a directory");
                break;
            }
            const slot *s = table_get(&z->exact, buf, len);
            if (s == NULL) {
                rc = link_bad(err, z, start, "points at no entry");
                break;
            }
            const sc_zip_entry *t = &z->entries[s->value];
            if (t->type == SC_ZIP_DIR) {
                rc = link_bad(err, z, start, "points at a directory");
                break;
            }
            if (t->type == SC_ZIP_FILE)
                break;
            int cycle = 0;
            for (size_t k = 0; k < hops; k++)
                if (chain[k] == t)
                    cycle = 1;
            if (cycle) {
                rc = link_bad(err, z, start, "a cycle of links");
                break;
            }
            cur = t;
        }
    }
    free(buf);
    if (rc != SC_OK)
        return rc;
    /* Nothing may be written through a link (ASCII-folded, as on disk):
     * no '/'-prefix of any entry is a link entry. */
    int links = 0;
    for (size_t i = 0; i < z->count && !links; i++)
        links = z->entries[i].type == SC_ZIP_LINK;
    for (size_t i = 0; i < z->count && rc == SC_OK && links; i++) {
        const sc_zip_entry *e = &z->entries[i];
        const char *f = z->folded[i];
        size_t node = NODE_NONE, pos = 0;
        for (size_t k = 0; k < e->path_len; k++) {
            if (f[k] != '/')
                continue;
            node = ptree_step(folded, node, f + pos, k - pos, 0);
            pos = k + 1;
            if (node == NODE_NONE)
                break;
            size_t at = folded->nodes[node].entry;
            if (at != NODE_NONE && z->entries[at].type == SC_ZIP_LINK) {
                rc = entry_msg(err, SC_E_LINK_ENTRY, z, e, "would be written through a link");
                break;
            }
        }
    }
    return rc;
}

static sc_code read_link_target(sc_zip *z, sc_zip_entry *e, sc_error *err)
{
    char *bytes = NULL;
    size_t len = 0;
    sc_code rc = read_entry(z, e, &bytes, &len, err);
    if (rc != SC_OK)
        return rc;
    if (memchr(bytes, '\0', len) != NULL) {
        free(bytes);
        return link_bad(err, z, e, "NUL in target");
    }
    if (!sc_utf8_valid(bytes, len)) {
        free(bytes);
        return link_bad(err, z, e, "target is not valid UTF-8");
    }
    e->link_target = bytes;
    return SC_OK;
}

/* ---- open -------------------------------------------------------------------------- */

static sc_code inspect(sc_zip *z, const sc_zip_limits *limits, sc_error *err)
{
    endinfo ei = {0, 0, 0, 0}; /* set by find_end; zeroed for the optimiser's sake */
    sc_code rc = find_end(z, &ei, err);
    if (rc != SC_OK)
        return rc;
    uint64_t max_entries = limits ? limits->max_entries : 0;
    uint64_t budget = limits && limits->max_total_size ? limits->max_total_size
                                                       : SC_ZIP_DEFAULT_MAX_TOTAL;
    if (max_entries != 0 && ei.entries > max_entries)
        return sc_error_set(err, SC_E_EXTRACTION_LIMIT, z->name,
                            "%s: %llu entries, more than the limit of %llu", z->name,
                            (unsigned long long)ei.entries, (unsigned long long)max_entries);
    z->cd_offset = ei.cd_offset;
    if (ei.cd_size > SIZE_MAX - 1)
        return bad(err, z, "%s: %s", "the central directory is too large");
    unsigned char *cd = malloc((size_t)ei.cd_size + 1);
    raw *raws = zalloc((size_t)ei.entries + 1, sizeof *raws);
    ptree folded = {0}, exact_tree = {0};
    size_t *chain = NULL;
    size_t max_parts = 1;
    if (cd == NULL || raws == NULL) {
        rc = sc_error_set(err, SC_E_OUT_OF_MEMORY, z->name, "out of memory");
        goto done;
    }
    int r = read_at(z, ei.cd_offset, cd, (size_t)ei.cd_size);
    if (r != 0) {
        rc = read_fail(err, z, r, "the central directory");
        goto done;
    }
    rc = parse_central(z, cd, (size_t)ei.cd_size, ei.entries, raws, err);
    if (rc != SC_OK)
        goto done;
    size_t folded_room = 1, folded_used = 0;
    for (uint64_t i = 0; i < ei.entries; i++)
        folded_room += raws[i].name_len + 1; /* within the central directory's size */
    z->entries = zalloc((size_t)ei.entries + 1, sizeof *z->entries);
    z->folded = zalloc((size_t)ei.entries + 1, sizeof *z->folded);
    z->folded_buf = malloc(folded_room);
    if (z->entries == NULL || z->folded == NULL || z->folded_buf == NULL) {
        rc = sc_error_set(err, SC_E_OUT_OF_MEMORY, z->name, "out of memory");
        goto done;
    }
    size_t kept = 0; /* entries kept; raws[0 .. kept) matches them */
    for (uint64_t ri = 0; ri < ei.entries; ri++) {
        if (is_dot_root(z, &raws[ri]))
            continue; /* "./": the root itself, accepted and left out */
        size_t i = kept++;
        if (i != ri)
            raws[i] = raws[ri];
        sc_zip_entry *e = &z->entries[i];
        z->count = i + 1; /* so close() frees what this entry holds */
        rc = classify(z, &raws[i], e, err);
        if (rc != SC_OK)
            goto done;
        /* A normalised path is never longer than its raw name. */
        if (e->path_len > raws[i].name_len || e->path_len + 1 > folded_room - folded_used) {
            rc = sc_error_set(err, SC_E_OUT_OF_MEMORY, z->name, "out of memory");
            goto done;
        }
        z->folded[i] = z->folded_buf + folded_used;
        folded_used += e->path_len + 1;
        size_t parts = 1;
        for (size_t k = 0; k <= e->path_len; k++) {
            char c = e->path[k];
            z->folded[i][k] = (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c;
            if (c == '/')
                parts++;
        }
        if (parts > max_parts)
            max_parts = parts;
        if (e->type == SC_ZIP_LINK) {
            rc = read_link_target(z, e, err);
            if (rc != SC_OK)
                goto done;
        }
    }
    rc = check_overlaps(z, raws, z->count, err);
    if (rc != SC_OK)
        goto done;
    chain = malloc(max_parts * sizeof *chain);
    if (chain == NULL || !table_init(&z->exact, z->count) ||
        !ptree_init(&folded, z->count + z->count / 4 + 16) ||
        !ptree_init(&exact_tree, z->count + z->count / 4 + 16)) {
        rc = sc_error_set(err, SC_E_OUT_OF_MEMORY, z->name, "out of memory");
        goto done;
    }
    rc = check_collisions(z, &folded, chain, err);
    if (rc != SC_OK)
        goto done;
    size_t n = 0; /* chain[0 .. n): the previous entry's */
    for (size_t i = 0; i < z->count; i++) {
        const sc_zip_entry *e = &z->entries[i];
        int fresh;
        table_put(&z->exact, e->path, e->path_len, i, &fresh);
        if (!ptree_enter(&exact_tree, e->path, e->path_len, i > 0 ? z->entries[i - 1].path : NULL,
                         i > 0 ? z->entries[i - 1].path_len : 0, chain, &n)) {
            rc = sc_error_set(err, SC_E_OUT_OF_MEMORY, z->name, "out of memory");
            goto done;
        }
        exact_tree.nodes[chain[n - 1]].entry = i;
        for (size_t j = 0; j + 1 < n; j++)
            exact_tree.nodes[chain[j]].is_prefix = 1;
    }
    rc = check_links(z, &exact_tree, &folded, err);
    if (rc != SC_OK)
        goto done;
    uint64_t total = 0;
    for (size_t i = 0; i < z->count; i++) {
        uint64_t s = z->entries[i].size;
        if (s > budget || total > budget - s) {
            rc = sc_error_set(err, SC_E_EXTRACTION_LIMIT, z->name,
                              "%s: the declared sizes exceed the extraction budget of %llu bytes",
                              z->name, (unsigned long long)budget);
            goto done;
        }
        total += s;
    }
    z->total = total;
done:
    ptree_free(&folded);
    ptree_free(&exact_tree);
    free(chain);
    free(cd);
    free(raws);
    return rc;
}

static sc_code open_fd(int fd, const char *name, const sc_zip_limits *limits, unsigned flags,
                       sc_zip **out, sc_error *err)
{
    sc_error_clear(err);
    if (out == NULL)
        return sc_error_set(err, SC_E_USAGE, name, "sc_zip_open_fd: no output");
    *out = NULL;
    if (name == NULL)
        name = "archive";
    sc_zip *z = calloc(1, sizeof *z);
    if (z == NULL)
        return sc_error_set(err, SC_E_OUT_OF_MEMORY, name, "out of memory");
    z->fd = -1;
    z->name = strdup(name);
    if (z->name == NULL) {
        free(z);
        return sc_error_set(err, SC_E_OUT_OF_MEMORY, name, "out of memory");
    }
    z->fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
    if (z->fd < 0) {
        sc_code rc = sc_error_set(err, SC_E_IO, name, "%s: %s", name, strerror(errno));
        sc_zip_close(z);
        return rc;
    }
    struct stat st;
    if (fstat(z->fd, &st) != 0) {
        sc_code rc = sc_error_set(err, SC_E_IO, name, "%s: %s", name, strerror(errno));
        sc_zip_close(z);
        return rc;
    }
    if (!S_ISREG(st.st_mode)) {
        sc_code rc = sc_error_set(err, SC_E_INVALID_ARCHIVE, name,
                                  "%s: not a regular file", name);
        sc_zip_close(z);
        return rc;
    }
    z->file_size = (uint64_t)st.st_size;
    z->flags = flags;
    sc_code rc = inspect(z, limits, err);
    hdr_done(z);
    if (rc != SC_OK) {
        sc_zip_close(z);
        return rc;
    }
    *out = z;
    return SC_OK;
}

sc_code sc_zip_open_fd(int fd, const char *name, const sc_zip_limits *limits, sc_zip **out,
                       sc_error *err)
{
    return open_fd(fd, name, limits, 0, out, err);
}

sc_code sc_zip_open_flags(const char *path, const sc_zip_limits *limits, unsigned flags,
                          sc_zip **out, sc_error *err)
{
    sc_error_clear(err);
    if (out != NULL)
        *out = NULL;
    if (path == NULL || out == NULL)
        return sc_error_set(err, SC_E_USAGE, path, "sc_zip_open: no path or no output");
    int fd;
    sc_file_kind kind;
    sc_code oc = sc_file_open_regular(path, 0, &fd, NULL, &kind, err);
    if (oc != SC_OK) {
        if (kind == SC_FILE_MISSING || kind == SC_FILE_NOT_REGULAR)
            return sc_error_set(err, SC_E_ARCHIVE_NOT_FOUND, path,
                                kind == SC_FILE_MISSING ? "archive not found: %s"
                                                        : "the archive is not a regular file: %s",
                                path);
        return oc;
    }
    sc_code rc = open_fd(fd, path, limits, flags, out, err);
    close(fd);
    return rc;
}

sc_code sc_zip_open(const char *path, const sc_zip_limits *limits, sc_zip **out, sc_error *err)
{
    return sc_zip_open_flags(path, limits, 0, out, err);
}

size_t sc_zip_count(const sc_zip *z)
{
    return z ? z->count : 0;
}

const sc_zip_entry *sc_zip_at(const sc_zip *z, size_t i)
{
    return z && i < z->count ? &z->entries[i] : NULL;
}

const sc_zip_entry *sc_zip_find(const sc_zip *z, const char *path)
{
    if (z == NULL || path == NULL)
        return NULL;
    const slot *s = table_get(&z->exact, path, strlen(path));
    return s ? &z->entries[s->value] : NULL;
}

uint64_t sc_zip_total_size(const sc_zip *z)
{
    return z ? z->total : 0;
}

sc_code sc_zip_read(sc_zip *z, const sc_zip_entry *e, size_t max, char **bytes, size_t *len,
                    sc_error *err)
{
    sc_error_clear(err);
    if (bytes)
        *bytes = NULL;
    if (len)
        *len = 0;
    if (z == NULL || e == NULL || bytes == NULL || len == NULL)
        return sc_error_set(err, SC_E_USAGE, NULL, "sc_zip_read: missing argument");
    if (e->size > max || e->size > SIZE_MAX - 1)
        return entry_msg(err, SC_E_EXTRACTION_LIMIT, z, e,
                         "declares more bytes than the caller accepts");
    if (e->type == SC_ZIP_LINK && e->link_target != NULL) {
        size_t n = strlen(e->link_target);
        char *c = malloc(n + 1);
        if (c == NULL)
            return sc_error_set(err, SC_E_OUT_OF_MEMORY, z->name, "out of memory");
        memcpy(c, e->link_target, n + 1);
        *bytes = c;
        *len = n;
        return SC_OK;
    }
    return read_entry(z, e, bytes, len, err);
}

/* ---- extraction -------------------------------------------------------------------- */

/*
 * A file of DIRECT_MIN bytes or more is written with O_DIRECT where the file
 * system takes it: on the reference host a buffered write of new data cost
 * ~0.35 GB/s of CPU against 1.4 GB/s direct (see archive_write.c), and a
 * model's weights are read once, when they are loaded.  The chunks
 * stream_entry hands over are page-aligned and CHUNK long but for the
 * last, so the file stays direct to its tail, which is written buffered;
 * any chunk that is not aligned, or a refusal, turns O_DIRECT off for the
 * rest of the file.  The bytes written are the same either way.
 */
#define DIRECT_MIN ((uint64_t)8 << 20)

typedef struct fdsink {
    int fd;
    const char *path;
    sc_progress_meter *meter;
    int direct; /* O_DIRECT is set on fd */
} fdsink;

static void fd_buffered(fdsink *s)
{
    (void)sc_iobuf_direct(s->fd, 0);
    s->direct = 0;
}

static sc_code fd_sink(void *ctx, const unsigned char *p, size_t n, sc_error *err)
{
    fdsink *s = ctx;
    sc_progress_meter_add(s->meter, s->path, n, 0);
    if (s->direct && (n % 4096 != 0 || (uintptr_t)p % 4096 != 0))
        fd_buffered(s);
    while (n > 0) {
        ssize_t w = write(s->fd, p, n);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EINVAL && s->direct) {
                fd_buffered(s);
                continue;
            }
            return sc_error_set(err, SC_E_IO, s->path, "%s: cannot write: %s", s->path,
                                strerror(errno));
        }
        p += w;
        n -= (size_t)w;
    }
    return SC_OK;
}

static sc_code io_fail(sc_error *err, const char *dir, const char *rel, const char *what)
{
    int e = errno;
    char full[SC_ERROR_PATH_MAX];
    snprintf(full, sizeof full, "%s/%s", dir, rel);
    return sc_error_set(err, SC_E_IO, full, "%s: cannot %s: %s", full, what, strerror(e));
}

/* Open (creating as 0755 when absent) directory name under parent, never
 * following a link; *fd set. */
static int open_dir_at(int parent, const char *name, int *created)
{
    *created = 0;
    if (mkdirat(parent, name, 0755) == 0)
        *created = 1;
    else if (errno != EEXIST)
        return -1;
    int fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd >= 0 && *created && fchmod(fd, 0755) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

/*
 * The directories leading to the entry being extracted (walked from the
 * destination with O_NOFOLLOW).  Consecutive entries mostly share their
 * parent, so only the components that differ are closed and opened.  At
 * most STACK_KEEP + 1 descriptors are open whatever the depth: the first
 * STACK_KEEP levels and the top; a level in between is re-opened (by its
 * names, from the nearest open level, O_NOFOLLOW) when the walk comes back
 * to it, which costs at most the bytes of the entry's own path.  A cached
 * directory stays safe: the collision rules refuse any later entry that
 * would put a file or link where a directory was needed.
 */
#define STACK_KEEP 16

typedef struct dirstack {
    int root;
    char *path;    /* the current parent path (components joined by '/') */
    size_t *ends;  /* ends[i]: end of component i in path */
    int *fds;      /* fds[i]: component i, open, or -1 (closed, re-openable) */
    size_t depth;
} dirstack;

static int stack_top(const dirstack *st)
{
    return st->depth ? st->fds[st->depth - 1] : st->root;
}

/* Pop to k levels and make the new top open again; 0 or -1 (errno). */
static int stack_pop_to(dirstack *st, size_t k)
{
    while (st->depth > k) {
        int fd = st->fds[--st->depth];
        if (fd >= 0)
            close(fd);
    }
    if (k == 0 || st->fds[k - 1] >= 0)
        return 0;
    size_t j = k - 1;
    while (j > 0 && st->fds[j - 1] < 0)
        j--;
    /* levels j..k-1 are closed; j-1 (or the root) is open */
    for (size_t i = j; i < k; i++) {
        size_t from = i ? st->ends[i - 1] + 1 : 0;
        size_t end = st->ends[i];
        char saved = st->path[end];
        st->path[end] = '\0';
        int parent = i ? st->fds[i - 1] : st->root;
        int fd = openat(parent, st->path + from, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        st->path[end] = saved;
        if (fd < 0)
            return -1;
        st->fds[i] = fd;
        if (i > j && i - 1 >= STACK_KEEP) {
            close(st->fds[i - 1]);
            st->fds[i - 1] = -1;
        }
    }
    return 0;
}

/* Make the stack hold the parent directories of path (parent_len bytes). */
static sc_code stack_enter(dirstack *st, const char *dir, const sc_zip_entry *e, size_t parent_len,
                           sc_error *err)
{
    const char *p = e->path;
    size_t k = 0;
    while (k < st->depth) {
        size_t end = st->ends[k];
        if (end > parent_len || memcmp(st->path, p, end) != 0 ||
            (end < parent_len && p[end] != '/'))
            break;
        k++;
    }
    if (stack_pop_to(st, k) != 0)
        return io_fail(err, dir, e->path, "open its directory");
    size_t pos = k ? st->ends[k - 1] + 1 : 0;
    while (pos < parent_len) {
        size_t end = pos;
        while (end < parent_len && p[end] != '/')
            end++;
        memcpy(st->path + pos, p + pos, end - pos);
        st->path[end] = '\0';
        int created;
        int fd = open_dir_at(stack_top(st), st->path + pos, &created);
        if (fd < 0)
            return io_fail(err, dir, e->path, "create its directory");
        st->path[end] = '/';
        if (st->depth > STACK_KEEP) {
            close(st->fds[st->depth - 1]);
            st->fds[st->depth - 1] = -1;
        }
        st->fds[st->depth] = fd;
        st->ends[st->depth] = end;
        st->depth++;
        pos = end + 1;
    }
    return SC_OK;
}

/*
 * Extraction is split in two.  This thread walks the entries in central
 * directory order and does everything that touches names: directories,
 * links, and each file created (O_EXCL) and given its mode.  The file's
 * bytes (read, inflated, CRC-checked, written) are then handed, with the
 * open descriptor, to a pool of workers (one per CPU); at most XQ_DEPTH
 * descriptors wait.  Every failure is recorded with its entry's index, no
 * entry is handed out past the lowest failing one, and every entry handed
 * out before it is finished, so the error reported is the one a sequential
 * extraction would report.
 */
#define XQ_DEPTH 64

typedef struct xjob {
    size_t index;
    int fd;
    char *full; /* dir/path, for messages (owned) */
} xjob;

typedef struct xpool {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    sc_zip *z;
    xjob q[XQ_DEPTH];
    size_t head, tail; /* q[head % XQ_DEPTH] .. q[(tail - 1) % XQ_DEPTH] wait */
    int done;          /* no more jobs will come */
    size_t busy;       /* jobs taken and not finished */
    size_t fail_at;    /* lowest failing entry; SIZE_MAX when none */
    sc_code fail_code;
    sc_error fail_err;
} xpool;

static void xfail(xpool *p, size_t i, sc_code c, const sc_error *err)
{
    if (i < p->fail_at) {
        p->fail_at = i;
        p->fail_code = c;
        p->fail_err = *err;
    }
}

/* Stream one file's data into fd and close it. */
static sc_code write_file_data(sc_zip *z, const sc_zip_entry *e, int fd, const char *full,
                               sc_error *err)
{
    fdsink s = {fd, full, z->meter, 0};
    if (e->size >= DIRECT_MIN)
        s.direct = sc_iobuf_direct(fd, 1);
    sc_code rc = stream_entry(z, e, fd_sink, &s, err);
    if (close(fd) != 0 && rc == SC_OK) {
        int en = errno;
        rc = sc_error_set(err, SC_E_IO, full, "%s: cannot close: %s", full, strerror(en));
    }
    if (rc == SC_OK)
        sc_progress_meter_add(z->meter, e->path, 0, 1);
    return rc;
}

static void *xworker(void *arg)
{
    xpool *p = arg;
    pthread_mutex_lock(&p->mu);
    for (;;) {
        while (p->head == p->tail && !p->done)
            pthread_cond_wait(&p->cv, &p->mu);
        if (p->head == p->tail)
            break;
        xjob j = p->q[p->head % XQ_DEPTH];
        p->head++;
        p->busy++;
        pthread_cond_broadcast(&p->cv);
        int skip = j.index > p->fail_at;
        pthread_mutex_unlock(&p->mu);
        sc_error err;
        sc_code rc = SC_OK;
        if (skip)
            close(j.fd);
        else
            rc = write_file_data(p->z, &p->z->entries[j.index], j.fd, j.full, &err);
        free(j.full);
        pthread_mutex_lock(&p->mu);
        if (rc != SC_OK)
            xfail(p, j.index, rc, &err);
        p->busy--;
        pthread_cond_broadcast(&p->cv);
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

/*
 * Create entry e under dir.  A file is created and its mode set; with a pool
 * its descriptor is returned in *fd_out for the data (else the data is
 * written here).
 */
static sc_code extract_one(sc_zip *z, dirstack *st, const char *dir, const sc_zip_entry *e,
                           int *fd_out, char **full_out, sc_error *err)
{
    const char *slash = last_slash(e->path, e->path_len);
    size_t parent_len = slash ? (size_t)(slash - e->path) : 0;
    sc_code rc = stack_enter(st, dir, e, parent_len, err);
    if (rc != SC_OK)
        return rc;
    int cur = stack_top(st);
    const char *seg = slash ? slash + 1 : e->path;
    if (e->type == SC_ZIP_DIR) {
        int created;
        int fd = open_dir_at(cur, seg, &created);
        if (fd < 0)
            return io_fail(err, dir, e->path, "create directory");
        close(fd);
        sc_progress_meter_add(z->meter, e->path, 0, 1);
    } else if (e->type == SC_ZIP_LINK) {
        if (symlinkat(e->link_target, cur, seg) != 0)
            return io_fail(err, dir, e->path, "create link");
        sc_progress_meter_add(z->meter, e->path, e->size, 1);
    } else {
        unsigned mode = e->mode ? e->mode : 0644;
        int fd = openat(cur, seg, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
        if (fd < 0)
            return io_fail(err, dir, e->path, "create file");
        char full[SC_ERROR_PATH_MAX];
        snprintf(full, sizeof full, "%s/%s", dir, e->path);
        if (fchmod(fd, mode) != 0) {
            rc = io_fail(err, dir, e->path, "set the mode of");
            close(fd);
            return rc;
        }
        if (fd_out != NULL) {
            char *f = strdup(full);
            if (f == NULL) {
                close(fd);
                return sc_error_set(err, SC_E_OUT_OF_MEMORY, dir, "out of memory");
            }
            *fd_out = fd;
            *full_out = f;
            return SC_OK;
        }
        rc = write_file_data(z, e, fd, full, err);
    }
    return rc;
}

sc_code sc_zip_extract(sc_zip *z, const char *dir, sc_error *err)
{
    return sc_zip_extract_with(z, dir, 0, err);
}

sc_code sc_zip_extract_with(sc_zip *z, const char *dir, unsigned jobs, sc_error *err)
{
    sc_zip_extract_options o;
    memset(&o, 0, sizeof o);
    o.jobs = jobs;
    return sc_zip_extract_opts(z, dir, &o, err);
}

static sc_code extract_all(sc_zip *z, const char *dir, unsigned jobs, sc_error *err);

sc_code sc_zip_extract_opts(sc_zip *z, const char *dir, const sc_zip_extract_options *o,
                            sc_error *err)
{
    sc_error_clear(err);
    if (z == NULL || dir == NULL)
        return sc_error_set(err, SC_E_USAGE, dir, "sc_zip_extract: missing argument");
    sc_progress_meter meter;
    sc_progress_meter_start(&meter, o != NULL ? o->progress : NULL,
                            o != NULL ? o->progress_ctx : NULL, "extract", dir, z->total,
                            z->count);
    z->meter = meter.open ? &meter : NULL;
    sc_code rc = extract_all(z, dir, o != NULL ? o->jobs : 0, err);
    z->meter = NULL;
    sc_progress_meter_end(&meter, rc == SC_OK);
    return rc;
}

static sc_code extract_all(sc_zip *z, const char *dir, unsigned jobs, sc_error *err)
{
    dirstack st = {-1, NULL, NULL, NULL, 0};
    st.root = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (st.root < 0)
        return sc_error_set(err, SC_E_IO, dir, "%s: cannot open: %s", dir, strerror(errno));
    size_t cap = 1, files = 0;
    for (size_t i = 0; i < z->count; i++) {
        if (z->entries[i].path_len + 1 > cap)
            cap = z->entries[i].path_len + 1;
        files += z->entries[i].type == SC_ZIP_FILE;
    }
    /* At most one component per two bytes of a path. */
    size_t max_depth = cap / 2 + 1;
    st.path = malloc(cap);
    st.ends = malloc(max_depth * sizeof *st.ends);
    st.fds = malloc(max_depth * sizeof *st.fds);
    sc_code rc = SC_OK;
    if (st.path == NULL || st.ends == NULL || st.fds == NULL)
        rc = sc_error_set(err, SC_E_OUT_OF_MEMORY, dir, "out of memory");
    size_t nw = sc_jobs_resolve(jobs);
    if (nw > files)
        nw = files;
    xpool *p = NULL;
    pthread_t *th = NULL;
    size_t started = 0;
    if (rc == SC_OK && nw > 1) {
        p = calloc(1, sizeof *p);
        th = calloc(nw, sizeof *th);
        if (p != NULL && th != NULL) {
            p->z = z;
            p->fail_at = SIZE_MAX;
            pthread_mutex_init(&p->mu, NULL);
            pthread_cond_init(&p->cv, NULL);
            for (size_t t = 0; t < nw; t++)
                if (sc_jobs_thread_start(&th[started], xworker, p) == 0)
                    started++;
        }
    }
    if (started == 0) {
        for (size_t i = 0; i < z->count && rc == SC_OK; i++)
            rc = extract_one(z, &st, dir, &z->entries[i], NULL, NULL, err);
    } else {
        for (size_t i = 0; i < z->count; i++) {
            int fd = -1;
            char *full = NULL;
            sc_error e1;
            sc_code c = extract_one(z, &st, dir, &z->entries[i], &fd, &full, &e1);
            pthread_mutex_lock(&p->mu);
            if (c != SC_OK)
                xfail(p, i, c, &e1);
            if (c == SC_OK && fd >= 0) {
                while (p->tail - p->head == XQ_DEPTH)
                    pthread_cond_wait(&p->cv, &p->mu);
                xjob j = {i, fd, full};
                p->q[p->tail % XQ_DEPTH] = j;
                p->tail++;
                pthread_cond_broadcast(&p->cv);
            }
            int stop = p->fail_at != SIZE_MAX;
            pthread_mutex_unlock(&p->mu);
            if (stop)
                break;
        }
        pthread_mutex_lock(&p->mu);
        p->done = 1;
        pthread_cond_broadcast(&p->cv);
        pthread_mutex_unlock(&p->mu);
        for (size_t t = 0; t < started; t++)
            pthread_join(th[t], NULL);
        if (p->fail_at != SIZE_MAX) {
            rc = p->fail_code;
            if (err != NULL)
                *err = p->fail_err;
        }
    }
    if (p != NULL && th != NULL) {
        pthread_cond_destroy(&p->cv);
        pthread_mutex_destroy(&p->mu);
    }
    free(p);
    free(th);
    (void)stack_pop_to(&st, 0);
    close(st.root);
    free(st.path);
    free(st.ends);
    free(st.fds);
    return rc;
}

void sc_zip_close(sc_zip *z)
{
    if (z == NULL)
        return;
    for (size_t i = 0; i < z->count; i++) {
        free(z->entries ? z->entries[i].path : NULL);
        free(z->entries ? z->entries[i].link_target : NULL);
    }
    free(z->entries);
    free(z->folded);
    free(z->folded_buf);
    table_free(&z->exact);
    if (z->fd >= 0)
        close(z->fd);
    free(z->name);
    free(z->win);
    free(z);
}
