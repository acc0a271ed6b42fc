/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fatbin.c — the headers of the fat binary containers in a `.nv_fatbin`
 * section (layout and guarantees in fatbin.h).
 *
 * Guarantees: reads go through the caller's bounded reader, 16 bytes per
 * container header and 64 per entry header, each checked to lie inside the
 * section before it is asked for; sizes are compared by subtraction, never
 * added first, so no size can wrap.  Zero padding between containers is
 * skipped in 8-byte steps read 512 bytes at a time.  Each step moves
 * forward by at least 8 bytes, so the loop ends after at most size / 8
 * steps whatever the section holds.
 */
#include "scrollcase/fatbin.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CONTAINER_HEADER 16u
#define ENTRY_HEADER_MIN 64u

static uint16_t le16(const unsigned char *p) { return (uint16_t)(p[0] | p[1] << 8); }
static uint32_t le32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static uint64_t le64(const unsigned char *p) { return le32(p) | (uint64_t)le32(p + 4) << 32; }

static sc_code bad(sc_error *err, const char *name, uint64_t at, const char *what)
{
    return sc_error_set(err, SC_E_INVALID_ELF, name,
                        "%s: .nv_fatbin at offset %llu: %s", name, (unsigned long long)at, what);
}

static sc_code read_at(sc_fatbin_read_fn read, void *ctx, uint64_t at, void *buf, size_t len,
                       const char *name, sc_error *err)
{
    if (read(ctx, at, buf, len) != 0)
        return sc_error_set(err, SC_E_IO, name, "%s: cannot read .nv_fatbin at offset %llu: %s",
                            name, (unsigned long long)at, strerror(errno));
    return SC_OK;
}

static sc_code push(sc_fatbin *fb, const sc_fatbin_entry *e, const char *name, sc_error *err)
{
    if (fb->count == fb->cap) {
        size_t cap = fb->cap ? fb->cap * 2 : 16;
        sc_fatbin_entry *n = cap > SIZE_MAX / sizeof *n ? NULL : realloc(fb->entries, cap * sizeof *n);
        if (n == NULL)
            return sc_error_set(err, SC_E_OUT_OF_MEMORY, name, "%s: out of memory reading .nv_fatbin",
                                name);
        fb->entries = n;
        fb->cap = cap;
    }
    fb->entries[fb->count++] = *e;
    return SC_OK;
}

/* The entries of the container body [at, end). */
static sc_code read_entries(sc_fatbin_read_fn read, void *ctx, uint64_t at, uint64_t end,
                            unsigned container, const char *name, sc_fatbin *fb, sc_error *err)
{
    unsigned char h[ENTRY_HEADER_MIN];
    while (at < end) {
        if (end - at < ENTRY_HEADER_MIN)
            return bad(err, name, at, "an entry header runs past its container");
        sc_code rc = read_at(read, ctx, at, h, sizeof h, name, err);
        if (rc != SC_OK)
            return rc;
        unsigned kind = le16(h);
        uint32_t header_size = le32(h + 4);
        uint64_t payload = le64(h + 8);
        if (kind != SC_FATBIN_PTX && kind != SC_FATBIN_CUBIN) {
            char what[64];
            snprintf(what, sizeof what, "entry of unknown kind %u", kind);
            return bad(err, name, at, what);
        }
        if (header_size < ENTRY_HEADER_MIN)
            return bad(err, name, at, "an entry header is shorter than 64 bytes");
        if (header_size > end - at || payload > end - at - header_size)
            return bad(err, name, at, "an entry runs past its container");
        uint32_t arch = le32(h + 28);
        if (arch < 10 || arch > 999)
            return bad(err, name, at, "an entry names no architecture");
        uint64_t flags = le64(h + 40);
        sc_fatbin_entry e = {0};
        e.code.kind = (sc_fatbin_kind)kind;
        e.code.arch = arch;
        if (flags & SC_FATBIN_FLAG_ARCH_SPECIFIC)
            e.code.variant = SC_CUDA_VARIANT_ARCH;
        else if (flags & SC_FATBIN_FLAG_FAMILY_SPECIFIC)
            e.code.variant = SC_CUDA_VARIANT_FAMILY;
        e.compressed = (flags & (SC_FATBIN_FLAG_COMPRESSED | SC_FATBIN_FLAG_COMPRESSED_OLD)) != 0;
        e.container = container;
        e.offset = at;
        e.payload_size = payload;
        e.uncompressed_size = e.compressed ? le64(h + 56) : 0;
        e.flags = flags;
        rc = push(fb, &e, name, err);
        if (rc != SC_OK)
            return rc;
        at += header_size + payload; /* both checked to fit in end - at */
    }
    return SC_OK;
}

/* Skip zero padding from *at to the 8-byte word (counted from *at) that
 * holds the next non-zero byte, or to the end. */
static sc_code skip_zeros(sc_fatbin_read_fn read, void *ctx, uint64_t *at, uint64_t size,
                          const char *name, sc_error *err)
{
    unsigned char buf[512];
    while (*at < size) {
        size_t n = size - *at < sizeof buf ? (size_t)(size - *at) : sizeof buf;
        sc_code rc = read_at(read, ctx, *at, buf, n, name, err);
        if (rc != SC_OK)
            return rc;
        size_t i = 0;
        while (i < n && buf[i] == 0)
            i++;
        if (i < n) {
            *at += i & ~(size_t)7; /* the word holding the first non-zero byte */
            return SC_OK;
        }
        *at += n;
    }
    return SC_OK;
}

sc_code sc_fatbin_read(sc_fatbin_read_fn read, void *ctx, uint64_t size, const char *name,
                       sc_fatbin *out, sc_error *err)
{
    if (out == NULL || read == NULL)
        return sc_error_set(err, SC_E_USAGE, NULL, "sc_fatbin_read: no reader or no output");
    memset(out, 0, sizeof *out);
    if (name == NULL)
        name = "(memory)";
    uint64_t at = 0;
    unsigned char h[CONTAINER_HEADER];
    sc_code rc = SC_OK;
    while (at < size) {
        if (size - at < CONTAINER_HEADER) {
            rc = skip_zeros(read, ctx, &at, size, name, err);
            if (rc != SC_OK)
                break;
            if (at < size) {
                rc = bad(err, name, at, "a container header runs past the section");
                break;
            }
            break;
        }
        rc = read_at(read, ctx, at, h, sizeof h, name, err);
        if (rc != SC_OK)
            break;
        uint32_t magic = le32(h);
        if (magic != SC_FATBIN_MAGIC) {
            if (magic == 0 && out->containers > 0) {
                rc = skip_zeros(read, ctx, &at, size, name, err);
                if (rc != SC_OK)
                    break;
                if (at < size && size - at >= 4) {
                    unsigned char m[4];
                    rc = read_at(read, ctx, at, m, 4, name, err);
                    if (rc != SC_OK)
                        break;
                    if (le32(m) != SC_FATBIN_MAGIC) {
                        rc = bad(err, name, at, "no fatbin magic after padding");
                        break;
                    }
                }
                continue;
            }
            rc = bad(err, name, at, "no fatbin magic (0xBA55ED50)");
            break;
        }
        unsigned header_size = le16(h + 6);
        uint64_t body = le64(h + 8);
        if (header_size < CONTAINER_HEADER || header_size > size - at) {
            rc = bad(err, name, at, "a container header size is out of bounds");
            break;
        }
        if (body > size - at - header_size) {
            rc = bad(err, name, at, "a container runs past the section");
            break;
        }
        if (out->containers == (size_t)-1 || out->containers >= 0xffffffffu) {
            rc = bad(err, name, at, "too many containers");
            break;
        }
        uint64_t start = at + header_size, end = start + body;
        rc = read_entries(read, ctx, start, end, (unsigned)out->containers, name, out, err);
        if (rc != SC_OK)
            break;
        out->containers++;
        at = end; /* at least 16 bytes on */
    }
    if (rc != SC_OK)
        sc_fatbin_free(out);
    return rc;
}

typedef struct mem {
    const unsigned char *bytes;
    size_t len;
} mem;

static int mem_read(void *ctx, uint64_t offset, void *buf, size_t len)
{
    const mem *m = ctx;
    if (offset > m->len || len > m->len - offset) {
        errno = EINVAL;
        return -1;
    }
    memcpy(buf, m->bytes + offset, len);
    return 0;
}

sc_code sc_fatbin_parse(const void *bytes, size_t len, const char *name, sc_fatbin *out,
                        sc_error *err)
{
    if (bytes == NULL && len > 0)
        return sc_error_set(err, SC_E_USAGE, NULL, "sc_fatbin_parse: no bytes");
    mem m = {bytes, len};
    return sc_fatbin_read(mem_read, &m, len, name, out, err);
}

void sc_fatbin_free(sc_fatbin *fb)
{
    if (fb == NULL)
        return;
    free(fb->entries);
    memset(fb, 0, sizeof *fb);
}

size_t sc_cuda_code_name(const sc_cuda_code *code, char *buf, size_t size)
{
    char tmp[32];
    const char *prefix = code->kind == SC_FATBIN_PTX ? "compute_" : "sm_";
    int n;
    if (code->variant == SC_CUDA_VARIANT_ARCH || code->variant == SC_CUDA_VARIANT_FAMILY)
        n = snprintf(tmp, sizeof tmp, "%s%u%c", prefix, code->arch % 1000, (char)code->variant);
    else
        n = snprintf(tmp, sizeof tmp, "%s%u", prefix, code->arch % 1000);
    if (n < 0)
        n = 0;
    if (size > 0) {
        size_t c = (size_t)n < size ? (size_t)n : size - 1;
        memcpy(buf, tmp, c);
        buf[c] = '\0';
    }
    return (size_t)n;
}

int sc_cuda_code_parse(const char *name, sc_cuda_code *out)
{
    sc_cuda_code c = {0};
    const char *p;
    if (name == NULL)
        return 0;
    if (strncmp(name, "sm_", 3) == 0) {
        c.kind = SC_FATBIN_CUBIN;
        p = name + 3;
    } else if (strncmp(name, "compute_", 8) == 0) {
        c.kind = SC_FATBIN_PTX;
        p = name + 8;
    } else {
        return 0;
    }
    size_t digits = 0;
    unsigned v = 0;
    while (p[digits] >= '0' && p[digits] <= '9' && digits < 4) {
        v = v * 10 + (unsigned)(p[digits] - '0');
        digits++;
    }
    if (digits < 2 || digits > 3 || p[0] == '0')
        return 0;
    p += digits;
    if (*p == 'a' || *p == 'f') {
        c.variant = (sc_cuda_variant)*p;
        p++;
    }
    if (*p != '\0')
        return 0;
    c.arch = v;
    if (out != NULL)
        *out = c;
    return 1;
}

static int variant_rank(sc_cuda_variant v)
{
    return v == SC_CUDA_VARIANT_ARCH ? 1 : v == SC_CUDA_VARIANT_FAMILY ? 2 : 0;
}

int sc_cuda_code_compare(const sc_cuda_code *a, const sc_cuda_code *b)
{
    /* cubin (2) before PTX (1) */
    if (a->kind != b->kind)
        return a->kind == SC_FATBIN_CUBIN ? -1 : 1;
    if (a->arch != b->arch)
        return a->arch < b->arch ? -1 : 1;
    return variant_rank(a->variant) - variant_rank(b->variant);
}
