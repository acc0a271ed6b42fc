/* SPDX-License-Identifier: Apache-2.0 */
/*
 * payload.c — the payload digest sha256-path-list-v1 (docs/format-v3.md 14).
 *
 * Guarantees: one comparison (record bytes, memcmp, shorter first) orders
 * every list this file writes or accepts; collection reads directories
 * through descriptors opened with O_NOFOLLOW, visits each directory's names
 * in byte order (so the first problem reported does not depend on the file
 * system's order) and classifies with AT_SYMLINK_NOFOLLOW, so a link is
 * recorded, never followed; file bytes are
 * hashed in 1 MiB streaming reads by one thread per CPU (jobs.h), and the reported failure
 * is always the one of the lowest path, so results do not depend on thread
 * timing; verification hashes the list bytes before parsing them, reaches
 * every listed path from the root one segment at a time with O_NOFOLLOW, and
 * checks the records on one thread per CPU (chunks of 32 records, then the
 * big files largest first) that report, like collection, the failure of the
 * first failing record in list order.
 * Every allocation is checked and every descriptor closed on every path.
 */

#include "scrollcase/payload.h"
#include "jobs_internal.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "scrollcase/digest.h"
#include "scrollcase/file.h"
#include "scrollcase/jobs.h"
#include "scrollcase/path.h"
#include "crc32_internal.h"
#include "iobuf_internal.h"
#include "progress_internal.h"

#ifndef O_CLOEXEC
#define O_CLOEXEC 0
#endif
#ifndef O_NOFOLLOW
#define O_NOFOLLOW 0
#endif
#ifndef O_DIRECTORY
#define O_DIRECTORY 0
#endif

#define HEADER SC_PAYLOAD_FORMAT "\n"
#define HEADER_LEN (sizeof HEADER - 1)
/* NUL, kind, NUL, 64 hex digits, LF: what follows the path of a record. */
#define RECORD_TAIL 68
/* Longest link target collection reads. */
#define LINK_TARGET_MAX ((size_t)1024 * 1024)

/* ---- small helpers ------------------------------------------------------ */

static int bytes_cmp(const char *a, size_t al, const char *b, size_t bl)
{
    size_t n = al < bl ? al : bl;
    int c = n == 0 ? 0 : memcmp(a, b, n);
    if (c != 0)
        return c;
    return al < bl ? -1 : (al > bl ? 1 : 0);
}

static int ascii_fold(unsigned char c)
{
    return c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c;
}

static int folded_cmp(const char *a, size_t al, const char *b, size_t bl)
{
    size_t n = al < bl ? al : bl;
    for (size_t i = 0; i < n; i++) {
        int x = ascii_fold((unsigned char)a[i]), y = ascii_fold((unsigned char)b[i]);
        if (x != y)
            return x < y ? -1 : 1;
    }
    return al < bl ? -1 : (al > bl ? 1 : 0);
}

static int entry_ptr_cmp(const void *x, const void *y)
{
    const sc_payload_entry *a = *(const sc_payload_entry *const *)x;
    const sc_payload_entry *b = *(const sc_payload_entry *const *)y;
    return bytes_cmp(a->path, a->path_len, b->path, b->path_len);
}

static int entry_cmp(const void *x, const void *y)
{
    const sc_payload_entry *a = x, *b = y;
    return bytes_cmp(a->path, a->path_len, b->path, b->path_len);
}

static int entry_ptr_folded_cmp(const void *x, const void *y)
{
    const sc_payload_entry *a = *(const sc_payload_entry *const *)x;
    const sc_payload_entry *b = *(const sc_payload_entry *const *)y;
    int c = folded_cmp(a->path, a->path_len, b->path, b->path_len);
    return c != 0 ? c : bytes_cmp(a->path, a->path_len, b->path, b->path_len);
}

static void entry_free(sc_payload_entry *e)
{
    free(e->path);
    free(e->link_target);
    e->path = NULL;
    e->link_target = NULL;
}

void sc_payload_list_free(sc_payload_list *list)
{
    if (list == NULL)
        return;
    for (size_t i = 0; i < list->count; i++)
        entry_free(&list->entries[i]);
    free(list->entries);
    list->entries = NULL;
    list->count = 0;
    list->cap = 0;
}

/* Append a zeroed entry; NULL when out of memory. */
static sc_payload_entry *list_push(sc_payload_list *list)
{
    if (list->count == list->cap) {
        size_t cap = list->cap ? list->cap * 2 : 64;
        if (cap > SIZE_MAX / sizeof *list->entries)
            return NULL;
        sc_payload_entry *n = realloc(list->entries, cap * sizeof *n);
        if (n == NULL)
            return NULL;
        list->entries = n;
        list->cap = cap;
    }
    sc_payload_entry *e = &list->entries[list->count++];
    memset(e, 0, sizeof *e);
    return e;
}

static char *dup_bytes(const char *s, size_t n)
{
    char *d = malloc(n + 1);
    if (d == NULL)
        return NULL;
    if (n > 0)
        memcpy(d, s, n);
    d[n] = '\0';
    return d;
}

static const char *kind_word(sc_payload_kind k)
{
    return k == SC_PAYLOAD_LINK ? "link" : "file";
}

int sc_payload_skipped_name(const char *name)
{
    if (name == NULL)
        return 0;
    size_t n = strlen(name);
    if (strcmp(name, "__pycache__") == 0 || strcmp(name, ".DS_Store") == 0)
        return 1;
    return n >= 4 && memcmp(name + n - 4, ".pyc", 4) == 0;
}

/*
 * After sorting by bytes: two paths equal under ASCII case folding ->
 * SC_E_ENTRY_COLLISION naming both (the first such pair in folded order).
 */
static sc_code check_collisions(const sc_payload_list *list, sc_error *err)
{
    if (list->count < 2)
        return SC_OK;
    const sc_payload_entry **v = malloc(list->count * sizeof *v);
    if (v == NULL)
        return sc_error_set(err, SC_E_OUT_OF_MEMORY, NULL,
                            "out of memory checking payload paths for collisions");
    for (size_t i = 0; i < list->count; i++)
        v[i] = &list->entries[i];
    /* Lists are written in byte order, which for the usual lower-case paths
     * is folded order too: one pass finds that and skips the sort. */
    size_t sorted = 1;
    while (sorted < list->count && entry_ptr_folded_cmp(&v[sorted - 1], &v[sorted]) <= 0)
        sorted++;
    if (sorted < list->count)
        qsort(v, list->count, sizeof *v, entry_ptr_folded_cmp);
    sc_code c = SC_OK;
    for (size_t i = 1; i < list->count; i++) {
        if (folded_cmp(v[i - 1]->path, v[i - 1]->path_len, v[i]->path, v[i]->path_len) == 0) {
            c = sc_error_set(err, SC_E_ENTRY_COLLISION, v[i]->path,
                             "payload paths %s and %s differ only in ASCII case",
                             v[i - 1]->path, v[i]->path);
            break;
        }
    }
    free(v);
    return c;
}

/* Read a link target (relative to dfd) into a malloc'd NUL-terminated buffer. */
static sc_code read_link_at(int dfd, const char *name, const char *shown, size_t hint,
                            char **target, size_t *len, sc_error *err)
{
    size_t size = hint + 1 < 256 ? 256 : hint + 1;
    for (;;) {
        char *buf = malloc(size);
        if (buf == NULL)
            return sc_error_set(err, SC_E_OUT_OF_MEMORY, shown,
                                "out of memory reading the link %s", shown);
        ssize_t n = readlinkat(dfd, name, buf, size);
        if (n < 0) {
            int e = errno;
            free(buf);
            return sc_error_set(err, SC_E_IO, shown, "cannot read the link %s: %s", shown,
                                strerror(e));
        }
        if ((size_t)n < size) {
            buf[n] = '\0';
            *target = buf;
            *len = (size_t)n;
            return SC_OK;
        }
        free(buf);
        if (size >= LINK_TARGET_MAX)
            return sc_error_set(err, SC_E_IO, shown, "the link %s has a target longer than %zu bytes",
                                shown, LINK_TARGET_MAX);
        size *= 2;
    }
}

/* Stream a descriptor through SHA-256; *total gets the bytes read. */
static sc_code hash_fd_crc(int fd, unsigned char *buf, size_t bufsize, const char *shown,
                           char hex[65], uint64_t *total, uint32_t *crc,
                           sc_progress_meter *meter, sc_error *err)
{
    sc_sha256_ctx ctx;
    unsigned char md[SC_SHA256_LEN];
    uint64_t n = 0;
    uint32_t z = 0;
    sc_code c = sc_sha256_init(&ctx, err);
    while (c == SC_OK) {
        ssize_t r = read(fd, buf, bufsize);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            int e = errno;
            c = sc_error_set(err, SC_E_IO, shown, "cannot read %s: %s", shown, strerror(e));
            break;
        }
        if (r == 0)
            break;
        n += (uint64_t)r;
        c = sc_sha256_update(&ctx, buf, (size_t)r, err);
        if (crc != NULL)
            z = sc_crc32(z, buf, (size_t)r);
        sc_progress_meter_add(meter, shown, (uint64_t)r, 0);
    }
    if (c != SC_OK) {
        sc_sha256_abort(&ctx);
        return c;
    }
    c = sc_sha256_final(&ctx, md, err);
    if (c != SC_OK)
        return c;
    sc_hex_lower(md, SC_SHA256_LEN, hex);
    if (total != NULL)
        *total = n;
    if (crc != NULL)
        *crc = (uint32_t)z;
    return SC_OK;
}

/* ---- the stream (14.2) -------------------------------------------------- */

static sc_code invalid_list(sc_error *err, const char *path, const char *what)
{
    return sc_error_set(err, SC_E_INVALID_PAYLOAD_LIST, path, "payload digest list: %s", what);
}

sc_code sc_payload_serialize(const sc_payload_list *list, char **stream, size_t *len,
                             sc_error *err)
{
    sc_error_clear(err);
    if (list == NULL || stream == NULL || len == NULL)
        return sc_error_set(err, SC_E_USAGE, NULL, "sc_payload_serialize: no list or output");
    *stream = NULL;
    *len = 0;
    size_t total = HEADER_LEN;
    for (size_t i = 0; i < list->count; i++) {
        const sc_payload_entry *e = &list->entries[i];
        if (e->kind != SC_PAYLOAD_FILE && e->kind != SC_PAYLOAD_LINK)
            return sc_error_set(err, SC_E_INVALID_PAYLOAD_LIST, NULL,
                                "payload entry %zu has an unsupported kind (%d)", i, (int)e->kind);
        if (e->path == NULL || e->path_len == 0)
            return sc_error_set(err, SC_E_INVALID_PAYLOAD_LIST, NULL,
                                "payload entry %zu has an empty path", i);
        if (memchr(e->path, '\0', e->path_len) != NULL)
            return sc_error_set(err, SC_E_INVALID_PAYLOAD_LIST, NULL,
                                "payload entry %zu has a path holding a NUL byte", i);
        const char *end = memchr(e->sha256, '\0', sizeof e->sha256);
        if (end == NULL || !sc_is_lower_hex(e->sha256, (size_t)(end - e->sha256), 64))
            return sc_error_set(err, SC_E_INVALID_PAYLOAD_LIST, e->path,
                                "payload entry %s does not carry 64 lowercase hex digits",
                                e->path);
        if (e->path_len > SIZE_MAX - RECORD_TAIL - total)
            return sc_error_set(err, SC_E_OUT_OF_MEMORY, NULL, "payload digest list too large");
        total += e->path_len + RECORD_TAIL;
    }
    const sc_payload_entry **v = NULL;
    if (list->count > 0) {
        v = malloc(list->count * sizeof *v);
        if (v == NULL)
            return sc_error_set(err, SC_E_OUT_OF_MEMORY, NULL,
                                "out of memory ordering the payload list");
        for (size_t i = 0; i < list->count; i++)
            v[i] = &list->entries[i];
        qsort(v, list->count, sizeof *v, entry_ptr_cmp);
        for (size_t i = 1; i < list->count; i++) {
            if (entry_ptr_cmp(&v[i - 1], &v[i]) == 0) {
                sc_code c = sc_error_set(err, SC_E_INVALID_PAYLOAD_LIST, v[i]->path,
                                         "payload entry %s is listed twice", v[i]->path);
                free(v);
                return c;
            }
        }
    }
    char *out = malloc(total + 1);
    if (out == NULL) {
        free(v);
        return sc_error_set(err, SC_E_OUT_OF_MEMORY, NULL,
                            "out of memory writing the payload list");
    }
    size_t o = 0;
    memcpy(out, HEADER, HEADER_LEN);
    o += HEADER_LEN;
    for (size_t i = 0; i < list->count; i++) {
        const sc_payload_entry *e = v[i];
        memcpy(out + o, e->path, e->path_len);
        o += e->path_len;
        out[o++] = '\0';
        out[o++] = (char)e->kind;
        out[o++] = '\0';
        memcpy(out + o, e->sha256, 64);
        o += 64;
        out[o++] = '\n';
    }
    out[o] = '\0';
    free(v);
    *stream = out;
    *len = o;
    return SC_OK;
}

sc_code sc_payload_digest(const sc_payload_list *list, char hex[65], sc_error *err)
{
    sc_error_clear(err);
    if (hex == NULL)
        return sc_error_set(err, SC_E_USAGE, NULL, "sc_payload_digest: no output");
    char *s = NULL;
    size_t n = 0;
    sc_code c = sc_payload_serialize(list, &s, &n, err);
    if (c != SC_OK)
        return c;
    c = sc_sha256_hex(s, n, hex, err);
    free(s);
    return c;
}

sc_code sc_payload_measure(const sc_payload_list *list, uint64_t *size, sc_error *err)
{
    sc_error_clear(err);
    if (list == NULL || size == NULL)
        return sc_error_set(err, SC_E_USAGE, NULL, "sc_payload_measure: no list or output");
    uint64_t sum = 0;
    for (size_t i = 0; i < list->count; i++) {
        uint64_t s = list->entries[i].size;
        if (s > SC_PAYLOAD_SIZE_MAX || sum > SC_PAYLOAD_SIZE_MAX - s)
            return sc_error_set(err, SC_E_EXTRACTION_LIMIT, list->entries[i].path,
                                "the payload's logical size passes 2^53-1 bytes at %s",
                                list->entries[i].path ? list->entries[i].path : "?");
        sum += s;
    }
    *size = sum;
    return SC_OK;
}

sc_code sc_payload_logical_size(const char *root, const sc_payload_list *list, uint64_t *size,
                                sc_error *err)
{
    uint64_t sum = 0;
    sc_code c = sc_payload_measure(list, &sum, err);
    if (c != SC_OK)
        return c;
    if (root == NULL)
        return sc_error_set(err, SC_E_USAGE, NULL, "sc_payload_logical_size: no root");
    char *p = sc_path_join(root, SC_PAYLOAD_LIST_NAME);
    if (p == NULL)
        return sc_error_set(err, SC_E_OUT_OF_MEMORY, NULL, "out of memory");
    struct stat st;
    int rc = lstat(p, &st);
    free(p);
    if (rc == 0 && S_ISREG(st.st_mode)) {
        uint64_t s = (uint64_t)st.st_size;
        if (s > SC_PAYLOAD_SIZE_MAX || sum > SC_PAYLOAD_SIZE_MAX - s)
            return sc_error_set(err, SC_E_EXTRACTION_LIMIT, SC_PAYLOAD_LIST_NAME,
                                "the payload's logical size passes 2^53-1 bytes");
        sum += s;
    }
    *size = sum;
    return SC_OK;
}

sc_code sc_payload_write_list(const char *root, const sc_payload_list *list, char hex[65],
                              sc_error *err)
{
    sc_error_clear(err);
    if (root == NULL || hex == NULL)
        return sc_error_set(err, SC_E_USAGE, NULL, "sc_payload_write_list: no root or output");
    char *s = NULL;
    size_t n = 0;
    sc_code c = sc_payload_serialize(list, &s, &n, err);
    if (c != SC_OK)
        return c;
    char digest[65];
    c = sc_sha256_hex(s, n, digest, err);
    if (c == SC_OK) {
        char *path = sc_path_join(root, SC_PAYLOAD_LIST_NAME);
        if (path == NULL)
            c = sc_error_set(err, SC_E_OUT_OF_MEMORY, root, "out of memory");
        else
            c = sc_file_write_atomic(path, s, n, 0644, err);
        free(path);
    }
    free(s);
    if (c == SC_OK)
        memcpy(hex, digest, sizeof digest);
    return c;
}

/* ---- the parser (14.4) -------------------------------------------------- */

sc_code sc_payload_parse(const char *bytes, size_t len, sc_payload_list *out, sc_error *err)
{
    sc_error_clear(err);
    if (out == NULL || (bytes == NULL && len > 0))
        return sc_error_set(err, SC_E_USAGE, NULL, "sc_payload_parse: no input or output");
    sc_payload_list list = {NULL, 0, 0};
    if (len < HEADER_LEN || memcmp(bytes, HEADER, HEADER_LEN) != 0)
        return invalid_list(err, NULL, "does not start with the header \"" SC_PAYLOAD_FORMAT "\" and LF");
    size_t pos = HEADER_LEN;
    size_t prev = 0, prev_len = 0; /* the previous record: offset and length */
    sc_code c = SC_OK;
    while (pos < len) {
        const char *nul = memchr(bytes + pos, '\0', len - pos);
        if (nul == NULL) {
            c = invalid_list(err, NULL, "ends inside a record (no NUL after a path)");
            goto fail;
        }
        size_t plen = (size_t)(nul - (bytes + pos));
        if (len - pos - plen < RECORD_TAIL) {
            c = invalid_list(err, NULL, "ends inside a record (record shorter than its tail)");
            goto fail;
        }
        const char *path = bytes + pos;
        const char *tail = nul; /* NUL kind NUL hex64 LF */
        size_t rec_len = plen + RECORD_TAIL;
        if ((tail[1] != 'f' && tail[1] != 'l') || tail[2] != '\0' || tail[RECORD_TAIL - 1] != '\n') {
            c = invalid_list(err, NULL, "holds a malformed record (kind byte, separator or LF)");
            goto fail;
        }
        const char *hex = tail + 3;
        if (!sc_utf8_valid(path, plen) || !sc_utf8_valid(hex, 64)) {
            c = invalid_list(err, NULL, "holds bytes that are not valid UTF-8");
            goto fail;
        }
        char *p = dup_bytes(path, plen);
        if (p == NULL) {
            c = sc_error_set(err, SC_E_OUT_OF_MEMORY, NULL, "out of memory parsing the payload list");
            goto fail;
        }
        if (!sc_is_lower_hex(hex, 64, 64)) {
            c = sc_error_set(err, SC_E_INVALID_PAYLOAD_LIST, p,
                             "payload digest list holds an invalid digest for %s", p);
            free(p);
            goto fail;
        }
        if (list.count > 0) {
            const sc_payload_entry *last = &list.entries[list.count - 1];
            if (bytes_cmp(last->path, last->path_len, path, plen) == 0) {
                c = sc_error_set(err, SC_E_INVALID_PAYLOAD_LIST, p,
                                 "payload digest list names %s twice", p);
                free(p);
                goto fail;
            }
            if (bytes_cmp(bytes + prev, prev_len, path, rec_len) >= 0) {
                c = sc_error_set(err, SC_E_INVALID_PAYLOAD_LIST, p,
                                 "payload digest list is not in canonical order at %s", p);
                free(p);
                goto fail;
            }
        }
        sc_payload_entry *e = list_push(&list);
        if (e == NULL) {
            free(p);
            c = sc_error_set(err, SC_E_OUT_OF_MEMORY, NULL, "out of memory parsing the payload list");
            goto fail;
        }
        e->path = p;
        e->path_len = plen;
        e->kind = (sc_payload_kind)tail[1];
        memcpy(e->sha256, hex, 64);
        e->sha256[64] = '\0';
        prev = pos;
        prev_len = rec_len;
        pos += rec_len;
    }
    for (size_t i = 0; i < list.count; i++) {
        c = sc_path_check(list.entries[i].path, list.entries[i].path_len,
                          "payload-digest.v1", err);
        if (c != SC_OK)
            goto fail;
    }
    c = check_collisions(&list, err);
    if (c != SC_OK)
        goto fail;
    *out = list;
    return SC_OK;
fail:
    sc_payload_list_free(&list);
    return c;
}

/* ---- collection (14.3) -------------------------------------------------- */

typedef struct walker {
    const char *root;
    unsigned flags;
    sc_payload_list *list;
    size_t *files; /* indices of FILE entries, for hashing */
    size_t nfiles, files_cap;
    sc_error *err;
    const sc_payload_list *reuse; /* sorted by path; NULL when none */
    unsigned jobs;
    const sc_payload_list *reuse_sub; /* of root/reuse_under; NULL when none */
    const char *reuse_under;
    int stamps_trusted;           /* sc_file_stamps_trusted of the root */
    uint64_t root_dev;
    sc_progress_meter *meter;         /* files hashed (bytes as they are read) */
} walker;

static int64_t ts_ns(struct timespec t)
{
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

static void stamp_from(sc_payload_entry *e, const struct stat *st)
{
    e->stamp.dev = (uint64_t)st->st_dev;
    e->stamp.ino = (uint64_t)st->st_ino;
    e->stamp.size = (uint64_t)st->st_size;
    e->stamp.mode = (unsigned)st->st_mode;
    e->stamp.mtime_ns = ts_ns(st->st_mtim);
    e->stamp.ctime_ns = ts_ns(st->st_ctim);
}

static sc_code add_entry(walker *w, int dfd, const char *name, const struct stat *st,
                         char *rel, size_t rel_len)
{
    sc_error *err = w->err;
    sc_code c = sc_path_check(rel, rel_len, NULL, err);
    if (c != SC_OK) {
        free(rel);
        return c;
    }
    char *target = NULL;
    size_t tlen = 0;
    if (S_ISLNK(st->st_mode)) {
        c = read_link_at(dfd, name, rel, (size_t)st->st_size, &target, &tlen, err);
        if (c != SC_OK) {
            free(rel);
            return c;
        }
        if (!sc_utf8_valid(target, tlen)) {
            c = sc_error_set(err, SC_E_UNSAFE_PATH, rel,
                             "the link %s has a target that is not valid UTF-8", rel);
            free(rel);
            free(target);
            return c;
        }
    }
    if (S_ISREG(st->st_mode) && w->nfiles == w->files_cap) {
        size_t cap = w->files_cap ? w->files_cap * 2 : 64;
        size_t *n = realloc(w->files, cap * sizeof *n);
        if (n == NULL) {
            free(rel);
            return sc_error_set(err, SC_E_OUT_OF_MEMORY, NULL, "out of memory collecting the payload");
        }
        w->files = n;
        w->files_cap = cap;
    }
    sc_payload_entry *e = list_push(w->list);
    if (e == NULL) {
        free(rel);
        free(target);
        return sc_error_set(err, SC_E_OUT_OF_MEMORY, NULL, "out of memory collecting the payload");
    }
    e->path = rel;
    e->path_len = rel_len;
    e->mode = (unsigned)(st->st_mode & 07777);
    if (target != NULL) {
        e->kind = SC_PAYLOAD_LINK;
        e->link_target = target;
        e->size = tlen;
        if (w->flags & SC_PAYLOAD_HASH)
            return sc_sha256_hex(target, tlen, e->sha256, err);
    } else {
        e->kind = SC_PAYLOAD_FILE;
        e->size = (uint64_t)st->st_size;
        stamp_from(e, st);
        e->stamp.valid = 0; /* until hashed */
        w->files[w->nfiles++] = w->list->count - 1;
    }
    return SC_OK;
}

/*
 * One entry of the collection walk (sc_file_walk, names in byte order, so
 * that the walk and the first problem it reports do not depend on the order
 * the file system hands names out): the skipped names, the list at the root,
 * directories (entered, not listed), files and links (listed), anything else
 * special-entry.  Any depth and path length (openat from each directory).
 */
static sc_code collect_one(void *ctx, const sc_walk_entry *we, int *skip, sc_error *err)
{
    walker *w = ctx;
    const char *name = we->name;
    if (sc_payload_skipped_name(name) ||
        (we->depth == 1 && strcmp(name, SC_PAYLOAD_LIST_NAME) == 0)) {
        *skip = 1;
        return SC_OK;
    }
    const struct stat *st = we->st;
    if (S_ISDIR(st->st_mode))
        return SC_OK;
    if (S_ISREG(st->st_mode) || S_ISLNK(st->st_mode)) {
        char *rel = dup_bytes(we->path, we->path_len);
        if (rel == NULL)
            return sc_error_set(err, SC_E_OUT_OF_MEMORY, NULL, "out of memory collecting the payload");
        return add_entry(w, we->dirfd, name, st, rel, we->path_len);
    }
    if (w->flags & SC_PAYLOAD_SKIP_SPECIAL)
        return SC_OK;
    return sc_error_set(err, SC_E_SPECIAL_ENTRY, we->path,
                        "the payload holds a special entry (not a file, link or directory): %s",
                        we->path);
}

/* Two threads hash the files; the failure reported is that of the lowest index. */
typedef struct hash_job {
    walker *w;
    atomic_size_t next;
    atomic_int stop;
} hash_job;

typedef struct hash_worker {
    hash_job *job;
    size_t fail_at; /* index into w->files of the failure; SIZE_MAX when none */
    sc_code code;
    sc_error err;
} hash_worker;

/*
 * Take e's digest from the reuse list when its record there is of the same
 * file, unchanged since it was hashed: device, inode, size, mode, mtime and
 * ctime (from this walk's lstat) equal the record's stamp, and both times lie
 * more than SC_PAYLOAD_RACY_NS before the record's hashing (a change within
 * the clock's granularity after it could leave them as they were).
 */
static const sc_payload_entry *reuse_find(const walker *w, const sc_payload_entry *e)
{
    const sc_payload_entry *r = NULL;
    if (w->reuse != NULL && w->reuse->count > 0)
        r = bsearch(e, w->reuse->entries, w->reuse->count, sizeof *e, entry_cmp);
    if (r != NULL || w->reuse_sub == NULL || w->reuse_sub->count == 0 || w->reuse_under == NULL)
        return r;
    size_t ul = strlen(w->reuse_under);
    if (ul == 0 || e->path_len <= ul + 1 || memcmp(e->path, w->reuse_under, ul) != 0 ||
        e->path[ul] != '/')
        return NULL;
    sc_payload_entry key;
    memset(&key, 0, sizeof key);
    key.path = e->path + ul + 1;
    key.path_len = e->path_len - ul - 1;
    return bsearch(&key, w->reuse_sub->entries, w->reuse_sub->count, sizeof key, entry_cmp);
}

static int reuse_digest(const walker *w, sc_payload_entry *e)
{
    const sc_payload_entry *r = reuse_find(w, e);
    if (r == NULL || r->kind != SC_PAYLOAD_FILE || !r->stamp.valid || r->sha256[0] == '\0')
        return 0;
    /* only on a filesystem whose stamps show every change (file.h) */
    if (!w->stamps_trusted || e->stamp.dev != w->root_dev)
        return 0;
    if ((w->flags & SC_PAYLOAD_CRC) && !r->has_crc)
        return 0;
    if (r->stamp.dev != e->stamp.dev || r->stamp.ino != e->stamp.ino ||
        r->stamp.size != e->stamp.size || r->stamp.mode != e->stamp.mode ||
        r->stamp.mtime_ns != e->stamp.mtime_ns || r->stamp.ctime_ns != e->stamp.ctime_ns ||
        r->size != e->size)
        return 0;
    int64_t settled = r->stamp.hashed_at_ns - SC_PAYLOAD_RACY_NS;
    if (r->stamp.mtime_ns >= settled || r->stamp.ctime_ns >= settled)
        return 0;
    memcpy(e->sha256, r->sha256, sizeof e->sha256);
    e->crc32 = r->crc32;
    e->has_crc = r->has_crc;
    e->stamp.hashed_at_ns = r->stamp.hashed_at_ns;
    e->stamp.valid = 1;
    return 1;
}

/* Open rel (a file) under root one segment at a time, never following a
 * link: for paths longer than PATH_MAX.  -1 with errno on failure. */
static int open_below(const char *root, const char *rel)
{
    int fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    const char *seg = rel;
    while (fd >= 0) {
        const char *slash = strchr(seg, '/');
        size_t n = slash ? (size_t)(slash - seg) : strlen(seg);
        char name[NAME_MAX + 1];
        if (n > NAME_MAX) {
            close(fd);
            errno = ENAMETOOLONG;
            return -1;
        }
        memcpy(name, seg, n);
        name[n] = '\0';
        int next = openat(fd, name, slash ? O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC
                                          : O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
        int e = errno;
        close(fd);
        errno = e;
        fd = next;
        if (slash == NULL)
            break;
        seg = slash + 1;
    }
    return fd;
}

static sc_code hash_one(const walker *w, sc_payload_entry *e, unsigned char *buf, sc_error *err)
{
    if (reuse_digest(w, e)) {
        sc_progress_meter_add(w->meter, e->path, e->size, 1);
        return SC_OK;
    }
    char *full = sc_path_join(w->root, e->path);
    if (full == NULL)
        return sc_error_set(err, SC_E_OUT_OF_MEMORY, NULL, "out of memory hashing the payload");
    int fd;
    if (strlen(full) < PATH_MAX) {
        do
            fd = open(full, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
        while (fd < 0 && errno == EINTR);
    } else {
        fd = open_below(w->root, e->path);
    }
    free(full);
    if (fd < 0) {
        int ec = errno;
        return sc_error_set(err, SC_E_IO, e->path, "cannot open %s: %s", e->path, strerror(ec));
    }
    struct stat st;
    struct timespec now;
    sc_code c = SC_OK;
    if (clock_gettime(CLOCK_REALTIME, &now) != 0 || fstat(fd, &st) != 0 ||
        !S_ISREG(st.st_mode)) {
        c = sc_error_set(err, SC_E_IO, e->path, "%s changed while the payload was collected",
                         e->path);
    } else {
        uint64_t n = 0;
        stamp_from(e, &st);
        e->stamp.hashed_at_ns = ts_ns(now);
        e->stamp.valid = 1;
        e->has_crc = (w->flags & SC_PAYLOAD_CRC) != 0;
        c = hash_fd_crc(fd, buf, SC_SHA256_FILE_BUFFER, e->path, e->sha256, &n,
                        e->has_crc ? &e->crc32 : NULL, w->meter, err);
        if (c == SC_OK && n != e->size) {
            e->sha256[0] = '\0';
            e->stamp.valid = 0;
            c = sc_error_set(err, SC_E_IO, e->path, "%s changed size while it was hashed",
                             e->path);
        }
    }
    close(fd);
    if (c == SC_OK)
        sc_progress_meter_add(w->meter, e->path, 0, 1);
    return c;
}

static void *hash_thread(void *arg)
{
    hash_worker *hw = arg;
    hash_job *job = hw->job;
    walker *w = job->w;
    unsigned char *buf = sc_iobuf_alloc(SC_SHA256_FILE_BUFFER);
    if (buf == NULL) {
        hw->code = sc_error_set(&hw->err, SC_E_OUT_OF_MEMORY, NULL,
                                "out of memory hashing the payload");
        hw->fail_at = 0;
        atomic_store(&job->stop, 1);
        return NULL;
    }
    while (!atomic_load(&job->stop)) {
        size_t i = atomic_fetch_add(&job->next, 1);
        if (i >= w->nfiles)
            break;
        sc_payload_entry *e = &w->list->entries[w->files[i]];
        sc_error err;
        sc_code c = hash_one(w, e, buf, &err);
        if (c != SC_OK) {
            if (i < hw->fail_at) {
                hw->fail_at = i;
                hw->code = c;
                hw->err = err;
            }
            atomic_store(&job->stop, 1);
        }
    }
    free(buf);
    return NULL;
}

static sc_code hash_files(walker *w)
{
    if (w->nfiles == 0)
        return SC_OK;
    hash_job job;
    job.w = w;
    atomic_init(&job.next, 0);
    atomic_init(&job.stop, 0);
    size_t nt = w->jobs < w->nfiles ? w->jobs : w->nfiles;
    if (nt < 1)
        nt = 1;
    hash_worker *hw = calloc(nt, sizeof *hw);
    pthread_t *th = calloc(nt, sizeof *th);
    if (hw == NULL || th == NULL) {
        free(hw);
        free(th);
        return sc_error_set(w->err, SC_E_OUT_OF_MEMORY, NULL, "out of memory hashing the payload");
    }
    for (size_t i = 0; i < nt; i++) {
        hw[i].job = &job;
        hw[i].fail_at = SIZE_MAX;
        hw[i].code = SC_OK;
        sc_error_clear(&hw[i].err);
    }
    /* Each thread claims the next file, one at a time: big files spread over
     * the threads as they come. */
    size_t started = 0;
    for (size_t i = 1; i < nt; i++)
        if (sc_jobs_thread_start(&th[i], hash_thread, &hw[i]) == 0)
            started = i;
        else
            break;
    hash_thread(&hw[0]);
    for (size_t i = 1; i <= started; i++)
        pthread_join(th[i], NULL);
    const hash_worker *bad = NULL;
    for (size_t i = 0; i <= started; i++)
        if (hw[i].code != SC_OK && (bad == NULL || hw[i].fail_at < bad->fail_at))
            bad = &hw[i];
    sc_code rc = SC_OK;
    if (bad != NULL) {
        if (w->err != NULL)
            *w->err = bad->err;
        rc = bad->code;
    }
    free(hw);
    free(th);
    return rc;
}

sc_code sc_payload_collect(const char *root, unsigned flags, sc_payload_list *out, sc_error *err)
{
    return sc_payload_collect_with(root, flags, NULL, out, err);
}

sc_code sc_payload_collect_with(const char *root, unsigned flags, const sc_payload_options *o,
                                sc_payload_list *out, sc_error *err)
{
    sc_error_clear(err);
    if (root == NULL || out == NULL)
        return sc_error_set(err, SC_E_USAGE, NULL, "sc_payload_collect: no root or output");
    struct stat st;
    if (lstat(root, &st) != 0) {
        int e = errno;
        return sc_error_set(err, SC_E_IO, root, "cannot read the payload root %s: %s", root,
                            strerror(e));
    }
    if (!S_ISDIR(st.st_mode))
        return sc_error_set(err, SC_E_IO, root, "the payload root %s is not a real directory",
                            root);
    sc_payload_list list = {NULL, 0, 0};
    walker w = {root, flags, &list, NULL, 0, 0, err, o != NULL ? o->reuse : NULL,
                sc_jobs_resolve(o != NULL ? o->jobs : 0), o != NULL ? o->reuse_sub : NULL,
                o != NULL ? o->reuse_under : NULL,
                /* stamps_trusted */ 0, (uint64_t)st.st_dev, NULL};
    if (w.reuse != NULL || w.reuse_sub != NULL)
        w.stamps_trusted = sc_file_stamps_trusted_path(root);
    sc_code c = sc_file_walk(root, SC_WALK_SORTED, collect_one, &w, err);
    sc_progress_meter meter;
    if (c == SC_OK) {
        /* the totals are known once the walk is done */
        uint64_t bytes = 0;
        for (size_t i = 0; i < w.nfiles; i++)
            bytes += list.entries[w.files[i]].size;
        sc_progress_meter_start(&meter, o != NULL && (flags & SC_PAYLOAD_HASH) ? o->progress : NULL,
                                o != NULL ? o->progress_ctx : NULL,
                                o != NULL && o->progress_step ? o->progress_step : "digest", root,
                                bytes, w.nfiles);
        w.meter = &meter;
    }
    if (c == SC_OK && (flags & SC_PAYLOAD_HASH))
        c = hash_files(&w);
    if (w.meter != NULL)
        sc_progress_meter_end(&meter, c == SC_OK);
    free(w.files);
    if (c == SC_OK && list.count > 1)
        qsort(list.entries, list.count, sizeof *list.entries, entry_cmp);
    if (c == SC_OK)
        c = check_collisions(&list, err);
    if (c != SC_OK) {
        sc_payload_list_free(&list);
        return c;
    }
    *out = list;
    return SC_OK;
}

/* ---- verification of an extracted payload (14.5) ----------------------- */

static sc_code mismatch(sc_error *err, const char *path, const char *what)
{
    return sc_error_set(err, SC_E_PAYLOAD_MISMATCH, path,
                        "payload does not match the signed release: %s%s", path, what);
}

/* The directory of the previous entry, kept open across siblings. */
typedef struct dir_cache {
    int root;
    char *dir; /* relative, "" for the root */
    size_t dir_len;
    int fd;    /* root or an owned descriptor; -1 when none */
    sc_progress_meter *meter; /* bytes and records checked; NULL: none */
} dir_cache;

static void dir_cache_drop(dir_cache *dc)
{
    if (dc->fd >= 0 && dc->fd != dc->root)
        close(dc->fd);
    dc->fd = -1;
    free(dc->dir);
    dc->dir = NULL;
    dc->dir_len = 0;
}

/* Open the directory part of e->path, one segment at a time, without
 * following links.  Returns SC_OK with dc->fd set. */
static sc_code open_parent(dir_cache *dc, const sc_payload_entry *e, size_t dir_len,
                           sc_error *err)
{
    if (dc->fd >= 0 && dc->dir_len == dir_len &&
        (dir_len == 0 || memcmp(dc->dir, e->path, dir_len) == 0))
        return SC_OK;
    dir_cache_drop(dc);
    if (dir_len == 0) {
        dc->fd = dc->root;
        return SC_OK;
    }
    char *dir = dup_bytes(e->path, dir_len);
    if (dir == NULL)
        return sc_error_set(err, SC_E_OUT_OF_MEMORY, NULL, "out of memory verifying the payload");
    int fd = dc->root;
    char *seg = dir;
    for (;;) {
        char *slash = strchr(seg, '/');
        if (slash != NULL)
            *slash = '\0';
        int next;
        do
            next = openat(fd, seg, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        while (next < 0 && errno == EINTR);
        int ec = errno;
        if (fd != dc->root)
            close(fd);
        if (next < 0) {
            free(dir);
            if (ec == ENOENT || ec == ENOTDIR || ec == ELOOP)
                return mismatch(err, e->path, " is missing (a directory on its way is "
                                              "missing or is not a real directory)");
            return sc_error_set(err, SC_E_IO, e->path, "cannot open the directory of %s: %s",
                                e->path, strerror(ec));
        }
        fd = next;
        if (slash == NULL)
            break;
        seg = slash + 1;
    }
    memcpy(dir, e->path, dir_len); /* restore the separators */
    dc->dir = dir;
    dc->dir_len = dir_len;
    dc->fd = fd;
    return SC_OK;
}

/* Records per claim of the first pass; files of at least VERIFY_BIG bytes
 * are left to the second (verify_entries). */
#define VERIFY_CHUNK 32
#define VERIFY_BIG ((uint64_t)256 << 10)

/*
 * Open a file record below its directory: O_NOFOLLOW | O_NONBLOCK, then
 * fstat, so that its kind and size come with the descriptor and no
 * separate fstatat is needed.  A link, directory, FIFO, socket or device
 * where the list has a file is "not a file"; nothing there is "missing".
 */
static sc_code open_record_file(dir_cache *dc, const sc_payload_entry *e, const char *base,
                                int *fdp, struct stat *st, sc_error *err)
{
    int fd;
    *fdp = -1;
    do
        fd = openat(dc->fd, base, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    while (fd < 0 && errno == EINTR);
    if (fd < 0) {
        int ec = errno;
        if (ec == ENOENT || ec == ENOTDIR)
            return mismatch(err, e->path, " is missing");
        if (ec != ELOOP && ec != ENXIO)
            return sc_error_set(err, SC_E_IO, e->path, "cannot open %s: %s", e->path,
                                strerror(ec));
        /* ELOOP: the last component is a link; ENXIO: a socket. */
    } else if (fstat(fd, st) == 0 && S_ISREG(st->st_mode)) {
        *fdp = fd;
        return SC_OK;
    } else {
        close(fd);
    }
    return sc_error_set(err, SC_E_PAYLOAD_MISMATCH, e->path,
                        "payload does not match the signed release: %s is not a file",
                        e->path);
}

/* Hash an open file record (fd, st from open_record_file) and compare. */
static sc_code hash_record_file(int fd, const struct stat *st, const sc_payload_entry *e,
                                unsigned char *buf, sc_progress_meter *meter, sc_error *err)
{
#ifdef POSIX_FADV_SEQUENTIAL
    if ((uint64_t)st->st_size > SC_SHA256_FILE_BUFFER)
        (void)posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
#else
    (void)st;
#endif
    char hex[65];
    sc_code c = hash_fd_crc(fd, buf, SC_SHA256_FILE_BUFFER, e->path, hex, NULL, NULL, meter, err);
    if (c != SC_OK)
        return c;
    if (memcmp(hex, e->sha256, 64) != 0)
        return mismatch(err, e->path, " has other content than the list records");
    sc_progress_meter_add(meter, e->path, 0, 1);
    return SC_OK;
}

/* The file part of a record: open it below its directory, hash, compare. */
static sc_code verify_file(dir_cache *dc, const sc_payload_entry *e, const char *base,
                           unsigned char *buf, sc_error *err)
{
    int fd;
    struct stat st;
    sc_code c = open_record_file(dc, e, base, &fd, &st, err);
    if (c != SC_OK)
        return c;
    c = hash_record_file(fd, &st, e, buf, dc->meter, err);
    close(fd);
    return c;
}

/* The directory of a record opened in dc; *base gets its last segment. */
static sc_code enter_parent(dir_cache *dc, const sc_payload_entry *e, const char **base,
                            sc_error *err)
{
    const char *slash = NULL;
    for (size_t i = e->path_len; i > 0; i--)
        if (e->path[i - 1] == '/') {
            slash = e->path + i - 1;
            break;
        }
    *base = slash ? slash + 1 : e->path;
    return open_parent(dc, e, slash ? (size_t)(slash - e->path) : 0, err);
}

/*
 * One record: a file is opened (its kind and size by fstat of the
 * descriptor), a link's kind is learnt by fstatat; then a link's target or
 * a file's bytes.  A file of at least VERIFY_BIG bytes is not hashed here:
 * *deferred gets its size, for the second pass (verify_file).
 */
static sc_code verify_entry(dir_cache *dc, const sc_payload_entry *e, unsigned char *buf,
                            uint64_t *deferred, sc_error *err)
{
    const char *base = NULL;
    sc_code c = enter_parent(dc, e, &base, err);
    if (c != SC_OK)
        return c;
    struct stat st;
    if (e->kind == SC_PAYLOAD_FILE) {
        /* Its kind and size from the open descriptor: one syscall fewer. */
        int fd;
        c = open_record_file(dc, e, base, &fd, &st, err);
        if (c != SC_OK)
            return c;
        if ((uint64_t)st.st_size >= VERIFY_BIG) {
            close(fd);
            *deferred = (uint64_t)st.st_size;
            return SC_OK;
        }
        c = hash_record_file(fd, &st, e, buf, dc->meter, err);
        close(fd);
        return c;
    }
    if (fstatat(dc->fd, base, &st, AT_SYMLINK_NOFOLLOW) != 0) {
        int ec = errno;
        if (ec == ENOENT || ec == ENOTDIR)
            return mismatch(err, e->path, " is missing");
        return sc_error_set(err, SC_E_IO, e->path, "cannot stat %s: %s", e->path, strerror(ec));
    }
    if (!S_ISLNK(st.st_mode)) /* a link record: file records were handled above */
        return sc_error_set(err, SC_E_PAYLOAD_MISMATCH, e->path,
                            "payload does not match the signed release: %s is not a %s",
                            e->path, kind_word(e->kind));
    char hex[65];
    char *target = NULL;
    size_t tlen = 0;
    c = read_link_at(dc->fd, base, e->path, (size_t)st.st_size, &target, &tlen, err);
    if (c != SC_OK)
        return c;
    c = sc_sha256_hex(target, tlen, hex, err);
    free(target);
    if (c != SC_OK)
        return c;
    if (memcmp(hex, e->sha256, 64) != 0)
        return mismatch(err, e->path, " has other content than the list records");
    sc_progress_meter_add(dc->meter, e->path, tlen, 1);
    return SC_OK;
}

/*
 * Threads (one per CPU of the affinity mask, or jobs) check the records in
 * two passes.  The list records no sizes, so the first pass learns them: it
 * takes the records in chunks of VERIFY_CHUNK, claimed in ascending order,
 * checks every kind, and hashes links and the files below VERIFY_BIG bytes
 * on the spot (siblings share an open directory).  The second pass hashes
 * the big files, largest first, one per claim — work handed out by bytes, so
 * four big files keep two threads busy to the end.
 *
 * A failure lowers fail_min, and no record above fail_min is started in
 * either pass, while every record below it is finished in both.  So the
 * failure reported is always that of the lowest failing record, as a
 * sequential walk would report it, whatever the thread count.
 */
typedef struct verify_job {
    int rootfd;
    sc_progress_meter *meter;
    const sc_payload_list *list;
    size_t nchunks;         /* pass 1: chunk k is records [k*VERIFY_CHUNK, ...) */
    uint64_t *deferred;     /* per record: the size of a big file left to pass 2, else 0 */
    const size_t *big;      /* pass 2: record indices, largest first */
    size_t nbig;
    int pass;
    atomic_size_t next;     /* the next unclaimed chunk (pass 1) or big file (pass 2) */
    atomic_size_t fail_min; /* lowest failing record so far; SIZE_MAX when none */
} verify_job;

typedef struct verify_worker {
    verify_job *job;
    size_t fail_at;
    sc_code code;
    sc_error err;
} verify_worker;

static void verify_failed(verify_worker *vw, size_t i, sc_code c, const sc_error *err)
{
    if (i < vw->fail_at) {
        vw->fail_at = i;
        vw->code = c;
        vw->err = *err;
    }
    size_t cur = atomic_load(&vw->job->fail_min);
    while (i < cur && !atomic_compare_exchange_weak(&vw->job->fail_min, &cur, i))
        ;
}

static void *verify_thread(void *arg)
{
    verify_worker *vw = arg;
    verify_job *job = vw->job;
    const sc_payload_list *list = job->list;
    sc_error err;
    unsigned char *buf = sc_iobuf_alloc(SC_SHA256_FILE_BUFFER);
    if (buf == NULL) {
        sc_error_set(&err, SC_E_OUT_OF_MEMORY, NULL, "out of memory verifying the payload");
        verify_failed(vw, 0, SC_E_OUT_OF_MEMORY, &err);
        return NULL;
    }
    dir_cache dc = {job->rootfd, NULL, 0, -1, job->meter};
    for (;;) {
        size_t k = atomic_fetch_add(&job->next, 1);
        if (job->pass == 1) {
            if (k >= job->nchunks)
                break;
            size_t start = k * VERIFY_CHUNK, end = start + VERIFY_CHUNK;
            if (end > list->count)
                end = list->count;
            if (start >= atomic_load(&job->fail_min))
                break;
            for (size_t i = start; i < end && i < atomic_load(&job->fail_min); i++) {
                sc_code c = verify_entry(&dc, &list->entries[i], buf, &job->deferred[i], &err);
                if (c != SC_OK) {
                    verify_failed(vw, i, c, &err);
                    break;
                }
            }
        } else {
            if (k >= job->nbig)
                break;
            size_t i = job->big[k];
            if (i >= atomic_load(&job->fail_min))
                continue; /* a smaller index may still follow */
            const char *base = NULL;
            sc_code c = enter_parent(&dc, &list->entries[i], &base, &err);
            if (c == SC_OK)
                c = verify_file(&dc, &list->entries[i], base, buf, &err);
            if (c != SC_OK)
                verify_failed(vw, i, c, &err);
        }
    }
    dir_cache_drop(&dc);
    free(buf);
    return NULL;
}

/* Run verify_thread on nt threads (the caller's one of them) over job. */
static void verify_pass(verify_job *job, verify_worker *vw, pthread_t *th, size_t nt)
{
    atomic_store(&job->next, 0);
    size_t started = 0;
    for (size_t i = 1; i < nt; i++)
        if (sc_jobs_thread_start(&th[i], verify_thread, &vw[i]) == 0)
            started = i;
        else
            break;
    verify_thread(&vw[0]);
    for (size_t i = 1; i <= started; i++)
        pthread_join(th[i], NULL);
}

typedef struct big_item {
    uint64_t size;
    size_t index;
} big_item;

/* Largest first; the lower record first among equals (a fixed order). */
static int big_item_cmp(const void *x, const void *y)
{
    const big_item *a = x, *b = y;
    if (a->size != b->size)
        return a->size > b->size ? -1 : 1;
    return a->index < b->index ? -1 : a->index > b->index ? 1 : 0;
}

static sc_code verify_entries(int rootfd, const sc_payload_list *list, unsigned jobs,
                              sc_progress_meter *meter, sc_error *err)
{
    if (list->count == 0)
        return SC_OK;
    verify_job job;
    memset(&job, 0, sizeof job);
    job.rootfd = rootfd;
    job.meter = meter;
    job.list = list;
    job.nchunks = (list->count + VERIFY_CHUNK - 1) / VERIFY_CHUNK;
    job.deferred = calloc(list->count, sizeof *job.deferred);
    job.pass = 1;
    atomic_init(&job.next, 0);
    atomic_init(&job.fail_min, SIZE_MAX);
    size_t nt = sc_jobs_resolve(jobs);
    verify_worker *vw = calloc(nt, sizeof *vw);
    pthread_t *th = calloc(nt, sizeof *th);
    big_item *items = NULL;
    size_t *big = NULL;
    sc_code rc = SC_OK;
    if (vw == NULL || th == NULL || job.deferred == NULL) {
        rc = sc_error_set(err, SC_E_OUT_OF_MEMORY, NULL, "out of memory verifying the payload");
        goto done;
    }
    for (size_t i = 0; i < nt; i++) {
        vw[i].job = &job;
        vw[i].fail_at = SIZE_MAX;
        vw[i].code = SC_OK;
        sc_error_clear(&vw[i].err);
    }
    verify_pass(&job, vw, th, nt < job.nchunks ? nt : job.nchunks);
    size_t nbig = 0, limit = atomic_load(&job.fail_min);
    for (size_t i = 0; i < list->count && i < limit; i++)
        nbig += job.deferred[i] != 0;
    if (nbig > 0) {
        items = malloc(nbig * sizeof *items);
        big = malloc(nbig * sizeof *big);
        if (items == NULL || big == NULL) {
            rc = sc_error_set(err, SC_E_OUT_OF_MEMORY, NULL, "out of memory verifying the payload");
            goto done;
        }
        size_t n = 0;
        for (size_t i = 0; i < list->count && i < limit; i++)
            if (job.deferred[i] != 0)
                items[n++] = (big_item){job.deferred[i], i};
        qsort(items, nbig, sizeof *items, big_item_cmp);
        for (size_t i = 0; i < nbig; i++)
            big[i] = items[i].index;
        job.big = big;
        job.nbig = nbig;
        job.pass = 2;
        verify_pass(&job, vw, th, nt < nbig ? nt : nbig);
    }
    const verify_worker *bad = NULL;
    for (size_t i = 0; i < nt; i++)
        if (vw[i].code != SC_OK && (bad == NULL || vw[i].fail_at < bad->fail_at))
            bad = &vw[i];
    if (bad != NULL) {
        if (err != NULL)
            *err = bad->err;
        rc = bad->code;
    }
done:
    free(items);
    free(big);
    free(vw);
    free(th);
    free(job.deferred);
    return rc;
}

/* Read the list file (at most SC_PAYLOAD_LIST_MAX bytes) from the root. */
static sc_code read_list(int rootfd, const char *shown, char **bytes, size_t *len, sc_error *err)
{
    struct stat st;
    if (fstatat(rootfd, SC_PAYLOAD_LIST_NAME, &st, AT_SYMLINK_NOFOLLOW) != 0) {
        int ec = errno;
        if (ec == ENOENT)
            return sc_error_set(err, SC_E_PAYLOAD_LIST_MISSING, shown,
                                "the extracted box is missing its payload digest list %s", shown);
        return sc_error_set(err, SC_E_IO, shown, "cannot stat %s: %s", shown, strerror(ec));
    }
    if (!S_ISREG(st.st_mode))
        return sc_error_set(err, SC_E_PAYLOAD_LIST_MISSING, shown,
                            "the payload digest list %s is not a regular file", shown);
    if ((uint64_t)st.st_size > SC_PAYLOAD_LIST_MAX)
        return sc_error_set(err, SC_E_PAYLOAD_LIST_MISMATCH, shown,
                            "the payload digest list %s is larger than %llu bytes", shown,
                            (unsigned long long)SC_PAYLOAD_LIST_MAX);
    int fd;
    do
        fd = openat(rootfd, SC_PAYLOAD_LIST_NAME, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    while (fd < 0 && errno == EINTR);
    if (fd < 0) {
        int ec = errno;
        if (ec == ENOENT)
            return sc_error_set(err, SC_E_PAYLOAD_LIST_MISSING, shown,
                                "the extracted box is missing its payload digest list %s", shown);
        return sc_error_set(err, SC_E_IO, shown, "cannot open %s: %s", shown, strerror(ec));
    }
    size_t cap = (size_t)st.st_size + 1, n = 0;
    char *buf = malloc(cap);
    if (buf == NULL) {
        close(fd);
        return sc_error_set(err, SC_E_OUT_OF_MEMORY, shown, "out of memory reading %s", shown);
    }
    sc_code c = SC_OK;
    for (;;) {
        if (n == cap) {
            if (cap > SC_PAYLOAD_LIST_MAX) {
                c = sc_error_set(err, SC_E_PAYLOAD_LIST_MISMATCH, shown,
                                 "the payload digest list %s is larger than %llu bytes", shown,
                                 (unsigned long long)SC_PAYLOAD_LIST_MAX);
                break;
            }
            size_t ncap = cap * 2 > SC_PAYLOAD_LIST_MAX + 1 ? (size_t)SC_PAYLOAD_LIST_MAX + 1
                                                            : cap * 2;
            char *nb = realloc(buf, ncap);
            if (nb == NULL) {
                c = sc_error_set(err, SC_E_OUT_OF_MEMORY, shown, "out of memory reading %s",
                                 shown);
                break;
            }
            buf = nb;
            cap = ncap;
        }
        ssize_t r = read(fd, buf + n, cap - n);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            int ec = errno;
            c = sc_error_set(err, SC_E_IO, shown, "cannot read %s: %s", shown, strerror(ec));
            break;
        }
        if (r == 0)
            break;
        n += (size_t)r;
    }
    close(fd);
    if (c != SC_OK) {
        free(buf);
        return c;
    }
    *bytes = buf;
    *len = n;
    return SC_OK;
}

sc_code sc_payload_verify_tree(const char *root, const char *expected_sha256,
                               size_t *entry_count, sc_error *err)
{
    return sc_payload_verify_tree_with(root, expected_sha256, 0, entry_count, err);
}

sc_code sc_payload_verify_tree_with(const char *root, const char *expected_sha256,
                                    unsigned jobs, size_t *entry_count, sc_error *err)
{
    sc_payload_verify_options o;
    memset(&o, 0, sizeof o);
    o.jobs = jobs;
    return sc_payload_verify_tree_opts(root, expected_sha256, &o, entry_count, err);
}

sc_code sc_payload_verify_tree_opts(const char *root, const char *expected_sha256,
                                    const sc_payload_verify_options *o, size_t *entry_count,
                                    sc_error *err)
{
    unsigned jobs = o != NULL ? o->jobs : 0;
    sc_error_clear(err);
    if (root == NULL || expected_sha256 == NULL)
        return sc_error_set(err, SC_E_USAGE, NULL, "sc_payload_verify_tree: no root or digest");
    if (!sc_is_lower_hex(expected_sha256, strlen(expected_sha256), 64))
        return sc_error_set(err, SC_E_USAGE, NULL,
                            "sc_payload_verify_tree: the expected digest is not 64 lowercase hex");
    if (entry_count != NULL)
        *entry_count = 0;
    struct stat st;
    if (lstat(root, &st) != 0) {
        int ec = errno;
        if (ec == ENOENT || ec == ENOTDIR)
            return sc_error_set(err, SC_E_ATTACH_ROOT, root,
                                "%s is not an extracted box directory (it does not exist)", root);
        return sc_error_set(err, SC_E_IO, root, "cannot stat %s: %s", root, strerror(ec));
    }
    if (!S_ISDIR(st.st_mode))
        return sc_error_set(err, SC_E_ATTACH_ROOT, root,
                            "%s is not an extracted box directory (not a real directory)", root);
    int rootfd = open(root, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (rootfd < 0) {
        int ec = errno;
        if (ec == ENOENT || ec == ENOTDIR || ec == ELOOP)
            return sc_error_set(err, SC_E_ATTACH_ROOT, root,
                                "%s is not an extracted box directory", root);
        return sc_error_set(err, SC_E_IO, root, "cannot open %s: %s", root, strerror(ec));
    }
    char *shown = sc_path_join(root, SC_PAYLOAD_LIST_NAME);
    if (shown == NULL) {
        close(rootfd);
        return sc_error_set(err, SC_E_OUT_OF_MEMORY, root, "out of memory");
    }
    char *bytes = NULL;
    size_t len = 0;
    sc_payload_list list = {NULL, 0, 0};
    char hex[65];
    sc_code c = read_list(rootfd, shown, &bytes, &len, err);
    if (c == SC_OK)
        c = sc_sha256_hex(bytes, len, hex, err);
    if (c == SC_OK && memcmp(hex, expected_sha256, 64) != 0)
        c = sc_error_set(err, SC_E_PAYLOAD_LIST_MISMATCH, shown,
                         "the payload digest list %s does not match the signed release", shown);
    if (c == SC_OK)
        c = sc_payload_parse(bytes, len, &list, err);
    free(bytes);
    if (c == SC_OK) {
        sc_progress_meter meter;
        sc_progress_meter_start(&meter, o != NULL ? o->progress : NULL,
                                o != NULL ? o->progress_ctx : NULL, "verify", root,
                                o != NULL ? o->bytes_expected : 0, list.count);
        c = verify_entries(rootfd, &list, jobs, &meter, err);
        sc_progress_meter_end(&meter, c == SC_OK);
    }
    if (c == SC_OK && entry_count != NULL)
        *entry_count = list.count;
    sc_payload_list_free(&list);
    free(shown);
    close(rootfd);
    return c;
}
