/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_archive_write.c — the canonical archive writer (archive_write.h,
 * docs/format-v3.md 15.1).
 *
 * Suite "archive_write": one test per rule of the profile.  The tests parse
 * the bytes themselves (they do not trust a ZIP library), inflate deflated
 * entries with zlib, and compare store-mode bytes with the independent Python
 * model fixtures/zipfmt.py.  The > 4 GiB entry test is skipped (visibly) when
 * SC_SKIP_LARGE_TESTS is set, as under valgrind.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "harness.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <locale.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "crc32_internal.h"
#include "jobs_internal.h"
#include "scrollcase/archive_write.h"
#include "scrollcase/copy.h"
#include "scrollcase/file.h"
#include "scrollcase/jobs.h"
#include "scrollcase/digest.h"

/* ---- helpers --------------------------------------------------------------- */

/* A sink that keeps every byte. */
typedef struct membuf {
    unsigned char *p;
    size_t len, cap;
    size_t calls;
} membuf;

static sc_code mem_write(void *ctx, const void *buf, size_t len, sc_error *err)
{
    membuf *m = ctx;
    m->calls++;
    if (m->len + len > m->cap) {
        size_t cap = m->cap ? m->cap : 4096;
        while (cap < m->len + len)
            cap *= 2;
        unsigned char *q = realloc(m->p, cap);
        if (q == NULL)
            return sc_error_set(err, SC_E_OUT_OF_MEMORY, NULL, "test sink: out of memory");
        m->p = q;
        m->cap = cap;
    }
    memcpy(m->p + m->len, buf, len);
    m->len += len;
    return SC_OK;
}

static sc_code write_mem(const sc_archive_entry *e, size_t n, sc_archive_compression c,
                         membuf *m, sc_error *err)
{
    memset(m, 0, sizeof *m);
    sc_archive_sink sink = {mem_write, m};
    uint64_t written = 0;
    sc_code rc = sc_archive_write(e, n, c, &sink, &written, err);
    if (rc == SC_OK)
        CU_ASSERT_EQUAL(written, m->len);
    return rc;
}

static uint32_t g16(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8;
}

static uint32_t g32(const unsigned char *p)
{
    return g16(p) | g16(p + 2) << 16;
}

static uint64_t g64(const unsigned char *p)
{
    return (uint64_t)g32(p) | (uint64_t)g32(p + 4) << 32;
}

static sc_archive_entry file_entry(const char *path, const char *text)
{
    sc_archive_entry e = {path, SC_ARCHIVE_FILE, NULL, text, strlen(text), 0, 0, 0, 0, 0};
    return e;
}

static sc_archive_entry link_entry(const char *path, const char *target)
{
    sc_archive_entry e = {path, SC_ARCHIVE_LINK, NULL, target, strlen(target), 0, 0, 0, 0, 0};
    return e;
}

/* One central record as read back, with its local header and data. */
typedef struct zrec {
    char name[256];
    uint32_t made_by, version, flags, method, time, date, crc, external, xlen;
    uint64_t csize, usize, offset;
    const unsigned char *data; /* the bytes after the local header */
} zrec;

/*
 * Parse a non-ZIP64 archive: EOCD at the very end (no comment), then each
 * central record, each local header checked against it.  Returns the
 * number of records (at most max) or -1 with a CUnit failure.
 */
static int parse(const membuf *m, zrec *out, int max)
{
    CU_ASSERT_FATAL(m->len >= 22);
    const unsigned char *end = m->p + m->len - 22;
    CU_ASSERT_EQUAL_FATAL(g32(end), 0x06054B50u);
    CU_ASSERT_EQUAL(g16(end + 4), 0);  /* disk */
    CU_ASSERT_EQUAL(g16(end + 6), 0);  /* central directory disk */
    CU_ASSERT_EQUAL(g16(end + 8), g16(end + 10));
    CU_ASSERT_EQUAL(g16(end + 20), 0); /* no archive comment */
    int n = (int)g16(end + 10);
    uint32_t cd_size = g32(end + 12), cd_off = g32(end + 16);
    CU_ASSERT_EQUAL_FATAL((uint64_t)cd_off + cd_size, (uint64_t)(m->len - 22));
    CU_ASSERT_FATAL(n <= max);
    const unsigned char *c = m->p + cd_off;
    uint64_t expect_local = 0;
    for (int i = 0; i < n; i++) {
        zrec *r = &out[i];
        CU_ASSERT_EQUAL_FATAL(g32(c), 0x02014B50u);
        r->made_by = g16(c + 4);
        r->version = g16(c + 6);
        r->flags = g16(c + 8);
        r->method = g16(c + 10);
        r->time = g16(c + 12);
        r->date = g16(c + 14);
        r->crc = g32(c + 16);
        r->csize = g32(c + 20);
        r->usize = g32(c + 24);
        size_t nl = g16(c + 28);
        r->xlen = g16(c + 30);
        CU_ASSERT_EQUAL(g16(c + 32), 0); /* entry comment */
        CU_ASSERT_EQUAL(g16(c + 34), 0); /* disk start */
        CU_ASSERT_EQUAL(g16(c + 36), 0); /* internal attributes */
        r->external = g32(c + 38);
        r->offset = g32(c + 42);
        CU_ASSERT_FATAL(nl < sizeof r->name);
        memcpy(r->name, c + 46, nl);
        r->name[nl] = '\0';
        /* Local entries follow each other with nothing in between: no data
         * descriptor, no gap. */
        CU_ASSERT_EQUAL(r->offset, expect_local);
        const unsigned char *l = m->p + r->offset;
        CU_ASSERT_EQUAL_FATAL(g32(l), 0x04034B50u);
        CU_ASSERT_EQUAL(g16(l + 4), r->version);
        CU_ASSERT_EQUAL(g16(l + 6), r->flags);
        CU_ASSERT_EQUAL(g16(l + 8), r->method);
        CU_ASSERT_EQUAL(g16(l + 10), r->time);
        CU_ASSERT_EQUAL(g16(l + 12), r->date);
        CU_ASSERT_EQUAL(g32(l + 14), r->crc);
        CU_ASSERT_EQUAL(g32(l + 18), r->csize);
        CU_ASSERT_EQUAL(g32(l + 22), r->usize);
        CU_ASSERT_EQUAL(g16(l + 26), nl);
        CU_ASSERT_EQUAL(g16(l + 28), 0); /* no extra field */
        CU_ASSERT(memcmp(l + 30, c + 46, nl) == 0);
        r->data = l + 30 + nl;
        expect_local = r->offset + 30 + nl + r->csize;
        c += 46 + nl + r->xlen;
    }
    CU_ASSERT_EQUAL(expect_local, cd_off);
    CU_ASSERT_EQUAL(c, end);
    return n;
}

/* The entry's bytes, inflated when deflated; checks the CRC and size. */
static unsigned char *content_of(const zrec *r)
{
    unsigned char *out = malloc(r->usize + 1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(out);
    if (r->method == 0) {
        CU_ASSERT_EQUAL(r->csize, r->usize);
        memcpy(out, r->data, r->usize);
    } else {
        CU_ASSERT_EQUAL_FATAL(r->method, 8);
        z_stream z;
        memset(&z, 0, sizeof z);
        CU_ASSERT_EQUAL_FATAL(inflateInit2(&z, -15), Z_OK);
        z.next_in = (Bytef *)(uintptr_t)r->data;
        z.avail_in = (uInt)r->csize;
        z.next_out = out;
        z.avail_out = (uInt)r->usize + 1;
        CU_ASSERT_EQUAL(inflate(&z, Z_FINISH), Z_STREAM_END);
        CU_ASSERT_EQUAL(z.total_out, r->usize);
        CU_ASSERT_EQUAL(z.avail_in, 0);
        inflateEnd(&z);
    }
    CU_ASSERT_EQUAL((uint32_t)crc32(0L, out, (uInt)r->usize), r->crc);
    return out;
}

/* The size of zlib's raw deflate (level 6, window 15, memLevel 8) of p. */
static size_t raw_deflate_size(const void *p, size_t len)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    CU_ASSERT_EQUAL_FATAL(deflateInit2(&z, 6, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY), Z_OK);
    size_t cap = deflateBound(&z, (uLong)len);
    unsigned char *out = malloc(cap);
    CU_ASSERT_PTR_NOT_NULL_FATAL(out);
    z.next_in = (Bytef *)(uintptr_t)p;
    z.avail_in = (uInt)len;
    z.next_out = out;
    z.avail_out = (uInt)cap;
    CU_ASSERT_EQUAL(deflate(&z, Z_FINISH), Z_STREAM_END);
    size_t n = z.total_out;
    deflateEnd(&z);
    free(out);
    return n;
}

/* len bytes from a fixed LCG: bits high = every value, else only the low bits. */
static unsigned char *lcg_bytes(size_t len, uint32_t seed, unsigned mask)
{
    unsigned char *d = malloc(len ? len : 1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(d);
    uint32_t x = seed;
    for (size_t i = 0; i < len; i++) {
        x = x * 1103515245u + 12345u;
        d[i] = (unsigned char)((x >> 24) & mask);
    }
    return d;
}

static char *join2(const char *a, const char *b)
{
    size_t n = strlen(a) + strlen(b) + 2;
    char *p = malloc(n);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    snprintf(p, n, "%s/%s", a, b);
    return p;
}

static void put_file(const char *path, const void *bytes, size_t len)
{
    FILE *f = fopen(path, "wb");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    CU_ASSERT_EQUAL(fwrite(bytes, 1, len, f), len);
    fclose(f);
}

/* A mixed set of entries given out of order (the same set in several tests). */
#define MIXED_N 7
static void mixed_entries(sc_archive_entry *e)
{
    e[0] = file_entry("venv/bin/python-app", "#!/bin/sh\necho app\n");
    e[0].executable = 1;
    e[1] = file_entry("box.json", "{\"schemaVersion\":3}\n");
    e[2] = link_entry("venv/bin/python", "python3.12");
    e[3] = file_entry("assets/model.bin", "weights weights weights weights");
    e[3].stored = 1;
    e[4] = file_entry("app/main.py", "print('hello, hello, hello, hello')\n");
    e[5] = file_entry("app/empty", "");
    e[6] = file_entry("app/caf\xc3\xa9.txt", "caf\xc3\xa9\n");
}

/* ---- the end record, headers and order ------------------------------------------ */

static void test_empty_archive_is_only_the_end_record(void)
{
    membuf m;
    sc_error err;
    CU_ASSERT_EQUAL_FATAL(write_mem(NULL, 0, SC_ARCHIVE_DEFLATE, &m, &err), SC_OK);
    static const unsigned char want[22] = {0x50, 0x4B, 0x05, 0x06};
    CU_ASSERT_EQUAL(m.len, 22);
    CU_ASSERT(m.len == 22 && memcmp(m.p, want, 22) == 0);
    free(m.p);
}

static void test_header_fields_are_the_canonical_constants(void)
{
    sc_archive_entry e = file_entry("a.txt", "hello");
    membuf m;
    sc_error err;
    CU_ASSERT_EQUAL_FATAL(write_mem(&e, 1, SC_ARCHIVE_STORE, &m, &err), SC_OK);
    zrec r[1];
    CU_ASSERT_EQUAL_FATAL(parse(&m, r, 1), 1);
    CU_ASSERT_EQUAL(r[0].made_by, 0x0314u); /* Unix, 2.0 */
    CU_ASSERT_EQUAL(r[0].version, 20);
    CU_ASSERT_EQUAL(r[0].flags, 0x0800u);   /* bit 11 only */
    CU_ASSERT_EQUAL(r[0].method, 0);
    CU_ASSERT_EQUAL(r[0].time, 0x0000u);
    CU_ASSERT_EQUAL(r[0].date, 0x2821u);
    CU_ASSERT_EQUAL(r[0].crc, 0x3610A686u); /* CRC-32 of "hello" */
    CU_ASSERT_EQUAL(r[0].csize, 5);
    CU_ASSERT_EQUAL(r[0].usize, 5);
    CU_ASSERT_EQUAL(r[0].xlen, 0);
    CU_ASSERT_EQUAL(r[0].external, 0100644u << 16);
    CU_ASSERT_STRING_EQUAL(r[0].name, "a.txt");
    CU_ASSERT(memcmp(r[0].data, "hello", 5) == 0);
    /* 30 + 5 + 5 local, 46 + 5 central, 22 end. */
    CU_ASSERT_EQUAL(m.len, 40 + 51 + 22);
    free(m.p);
}

static void test_entries_are_sorted_by_path_bytes(void)
{
    sc_archive_entry e[] = {
        file_entry("\xc3\xa9t\xc3\xa9", "1"), file_entry("a0", "2"),
        file_entry("a/c", "3"),               file_entry("a.b", "4"),
        file_entry("B", "5"),                 file_entry("z", "6"),
        file_entry("a-b", "7"),
    };
    const char *want[] = {"B", "a-b", "a.b", "a/c", "a0", "z", "\xc3\xa9t\xc3\xa9"};
    membuf m;
    sc_error err;
    CU_ASSERT_EQUAL_FATAL(write_mem(e, 7, SC_ARCHIVE_DEFLATE, &m, &err), SC_OK);
    zrec r[7];
    CU_ASSERT_EQUAL_FATAL(parse(&m, r, 7), 7);
    for (int i = 0; i < 7; i++)
        CU_ASSERT_STRING_EQUAL(r[i].name, want[i]);
    free(m.p);
}

static void test_modes_are_0644_0755_and_0120777(void)
{
    sc_archive_entry e[MIXED_N];
    mixed_entries(e);
    membuf m;
    sc_error err;
    CU_ASSERT_EQUAL_FATAL(write_mem(e, MIXED_N, SC_ARCHIVE_DEFLATE, &m, &err), SC_OK);
    zrec r[MIXED_N];
    CU_ASSERT_EQUAL_FATAL(parse(&m, r, MIXED_N), MIXED_N);
    for (int i = 0; i < MIXED_N; i++) {
        unsigned want = 0100644u;
        if (strcmp(r[i].name, "venv/bin/python-app") == 0)
            want = 0100755u;
        else if (strcmp(r[i].name, "venv/bin/python") == 0)
            want = 0120777u;
        CU_ASSERT_EQUAL(r[i].external, want << 16);
    }
    free(m.p);
}

static void test_deflate_for_files_store_for_links_and_stored_entries(void)
{
    sc_archive_entry e[MIXED_N];
    mixed_entries(e);
    membuf m;
    sc_error err;
    CU_ASSERT_EQUAL_FATAL(write_mem(e, MIXED_N, SC_ARCHIVE_DEFLATE, &m, &err), SC_OK);
    zrec r[MIXED_N];
    CU_ASSERT_EQUAL_FATAL(parse(&m, r, MIXED_N), MIXED_N);
    for (int i = 0; i < MIXED_N; i++) {
        const sc_archive_entry *src = NULL;
        for (int k = 0; k < MIXED_N; k++)
            if (strcmp(e[k].path, r[i].name) == 0)
                src = &e[k];
        CU_ASSERT_PTR_NOT_NULL_FATAL(src);
        /* Links and stored entries are method 0; a file is method 8 exactly
         * when deflate makes it smaller (these are all under the probe). */
        int stored = strcmp(r[i].name, "venv/bin/python") == 0 ||
                     strcmp(r[i].name, "assets/model.bin") == 0 ||
                     raw_deflate_size(src->data, src->data_len) >= src->data_len;
        CU_ASSERT_EQUAL(r[i].method, stored ? 0u : 8u);
        CU_ASSERT_EQUAL(r[i].usize, src->data_len);
        unsigned char *bytes = content_of(&r[i]);
        CU_ASSERT(memcmp(bytes, src->data, src->data_len) == 0);
        free(bytes);
    }
    free(m.p);
}

static void test_store_mode_stores_every_entry(void)
{
    sc_archive_entry e[MIXED_N];
    mixed_entries(e);
    membuf m;
    sc_error err;
    CU_ASSERT_EQUAL_FATAL(write_mem(e, MIXED_N, SC_ARCHIVE_STORE, &m, &err), SC_OK);
    zrec r[MIXED_N];
    CU_ASSERT_EQUAL_FATAL(parse(&m, r, MIXED_N), MIXED_N);
    for (int i = 0; i < MIXED_N; i++) {
        CU_ASSERT_EQUAL(r[i].method, 0);
        CU_ASSERT_EQUAL(r[i].csize, r[i].usize);
        unsigned char *bytes = content_of(&r[i]);
        free(bytes);
    }
    free(m.p);
}

static void test_link_entry_holds_its_target(void)
{
    sc_archive_entry e = link_entry("bin/python", "../lib/python3.12/python");
    e.executable = 1; /* ignored for links */
    membuf m;
    sc_error err;
    CU_ASSERT_EQUAL_FATAL(write_mem(&e, 1, SC_ARCHIVE_DEFLATE, &m, &err), SC_OK);
    zrec r[1];
    CU_ASSERT_EQUAL_FATAL(parse(&m, r, 1), 1);
    CU_ASSERT_EQUAL(r[0].method, 0);
    CU_ASSERT_EQUAL(r[0].external, 0120777u << 16);
    CU_ASSERT_EQUAL(r[0].usize, strlen("../lib/python3.12/python"));
    unsigned char *bytes = content_of(&r[0]);
    CU_ASSERT(memcmp(bytes, "../lib/python3.12/python", r[0].usize) == 0);
    free(bytes);
    free(m.p);
}

static void test_no_data_descriptors_crc_and_sizes_in_local_headers(void)
{
    /* parse() checks bit 3 clear, local fields == central fields and that
     * each entry's data is followed directly by the next local header;
     * here the entries come from files, deflated by the worker threads. */
    char *dir = sc_test_tmpdir();
    CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
    sc_archive_entry e[6];
    char *paths[6];
    char name[32], text[128];
    for (int i = 0; i < 6; i++) {
        snprintf(name, sizeof name, "src%d", i);
        paths[i] = join2(dir, name);
        int len = snprintf(text, sizeof text, "entry %d entry %d entry %d entry %d", i, i, i, i);
        put_file(paths[i], text, (size_t)len);
        snprintf(name, sizeof name, "f/%d", 5 - i);
        e[i] = file_entry(strdup(name), "");
        e[i].source = paths[i];
    }
    membuf m;
    sc_error err;
    CU_ASSERT_EQUAL_FATAL(write_mem(e, 6, SC_ARCHIVE_DEFLATE, &m, &err), SC_OK);
    zrec r[6];
    CU_ASSERT_EQUAL_FATAL(parse(&m, r, 6), 6);
    for (int i = 0; i < 6; i++) {
        CU_ASSERT_EQUAL(r[i].flags & 0x0008u, 0);
        CU_ASSERT_EQUAL(r[i].method, 8);
        unsigned char *bytes = content_of(&r[i]);
        int len = snprintf(text, sizeof text, "entry %d entry %d entry %d entry %d", 5 - i,
                           5 - i, 5 - i, 5 - i);
        CU_ASSERT_EQUAL(r[i].usize, (uint64_t)len);
        CU_ASSERT(memcmp(bytes, text, (size_t)len) == 0);
        free(bytes);
    }
    for (int i = 0; i < 6; i++) {
        free((char *)e[i].path);
        free(paths[i]);
    }
    free(m.p);
    sc_test_rmtree(dir);
    free(dir);
}

static void test_large_deflated_entry_spools_and_reads_back(void)
{
    /* More deflated bytes than SC_ARCHIVE_SPOOL_MEMORY: the spool moves to
     * a temporary file and the entry still reads back. */
    /* 7 random bits a byte: deflate saves about a tenth, so 10 MiB still
     * give more than 8 MiB deflated (and the entry stays method 8). */
    size_t len = SC_ARCHIVE_SPOOL_MEMORY + SC_ARCHIVE_SPOOL_MEMORY / 4;
    unsigned char *data = lcg_bytes(len, 12345, 0x7F);
    sc_archive_entry e[2] = {{"big.bin", SC_ARCHIVE_FILE, NULL, data, len, 0, 0, 0, 0, 0},
                             file_entry("after", "after the big one")};
    membuf m;
    sc_error err;
    CU_ASSERT_EQUAL_FATAL(write_mem(e, 2, SC_ARCHIVE_DEFLATE, &m, &err), SC_OK);
    zrec r[2];
    CU_ASSERT_EQUAL_FATAL(parse(&m, r, 2), 2);
    CU_ASSERT_STRING_EQUAL(r[1].name, "big.bin");
    CU_ASSERT_EQUAL(r[1].method, 8);
    CU_ASSERT(r[1].csize > SC_ARCHIVE_SPOOL_MEMORY);
    unsigned char *back = content_of(&r[1]);
    CU_ASSERT(memcmp(back, data, len) == 0);
    free(back);
    free(data);
    free(m.p);
}

/* ---- no deflate where it buys nothing -------------------------------------------- */

static const zrec *rec_named(const zrec *r, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (strcmp(r[i].name, name) == 0)
            return &r[i];
    CU_FAIL("entry missing from the archive");
    return &r[0];
}

static void test_file_that_deflate_does_not_shrink_is_stored(void)
{
    unsigned char *noise = lcg_bytes(4096, 7, 0xFF);
    static const char text[] = "hello hello hello hello hello hello hello hello\n";
    sc_archive_entry e[4] = {{"noise.bin", SC_ARCHIVE_FILE, NULL, noise, 4096, 0, 0, 0, 0, 0},
                             file_entry("empty", ""), file_entry("one", "x"),
                             file_entry("text.txt", text)};
    CU_ASSERT(raw_deflate_size(noise, 4096) >= 4096);
    membuf m;
    sc_error err;
    CU_ASSERT_EQUAL_FATAL(write_mem(e, 4, SC_ARCHIVE_DEFLATE, &m, &err), SC_OK);
    zrec r[4];
    CU_ASSERT_EQUAL_FATAL(parse(&m, r, 4), 4);
    const char *stored[] = {"noise.bin", "empty", "one"};
    for (int i = 0; i < 3; i++) {
        const zrec *x = rec_named(r, 4, stored[i]);
        CU_ASSERT_EQUAL(x->method, 0);
        CU_ASSERT_EQUAL(x->csize, x->usize);
        free(content_of(x));
    }
    const zrec *t = rec_named(r, 4, "text.txt");
    CU_ASSERT_EQUAL(t->method, 8);
    CU_ASSERT(t->csize < t->usize);
    unsigned char *back = content_of(rec_named(r, 4, "noise.bin"));
    CU_ASSERT(memcmp(back, noise, 4096) == 0);
    free(back);
    free(m.p);
    free(noise);
}

/* Write one entry, from memory and from a file; both archives must agree. */
static void one_entry_both_ways(const char *dir, const unsigned char *d, size_t len, membuf *m)
{
    sc_archive_entry e = {"w.bin", SC_ARCHIVE_FILE, NULL, d, len, 0, 0, 0, 0, 0};
    sc_error err;
    CU_ASSERT_EQUAL_FATAL(write_mem(&e, 1, SC_ARCHIVE_DEFLATE, m, &err), SC_OK);
    char *src = join2(dir, "w.src");
    put_file(src, d, len);
    sc_archive_entry f = {"w.bin", SC_ARCHIVE_FILE, src, NULL, 0, 0, 0, 0, 0, 0};
    membuf m2;
    CU_ASSERT_EQUAL_FATAL(write_mem(&f, 1, SC_ARCHIVE_DEFLATE, &m2, &err), SC_OK);
    CU_ASSERT(m2.len == m->len && memcmp(m2.p, m->p, m->len) == 0);
    free(m2.p);
    free(src);
}

static void test_probe_of_the_first_mib_decides_a_large_file(void)
{
    char *dir = sc_test_tmpdir();
    CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
    size_t p = SC_ARCHIVE_PROBE_BYTES, len = 3 * p;
    /* Noise, then zeros: the whole would deflate to about a third, but the
     * probe does not shrink, so the entry is stored. */
    unsigned char *d = lcg_bytes(len, 99, 0xFF);
    memset(d + p, 0, len - p);
    CU_ASSERT(raw_deflate_size(d, len) < len / 2);
    membuf m;
    zrec r[1];
    one_entry_both_ways(dir, d, len, &m);
    CU_ASSERT_EQUAL_FATAL(parse(&m, r, 1), 1);
    CU_ASSERT_EQUAL(r[0].method, 0);
    CU_ASSERT_EQUAL(r[0].usize, len);
    free(content_of(&r[0]));
    free(m.p);
    /* Zeros, then noise: the probe shrinks, so the whole is deflated. */
    unsigned char *z = lcg_bytes(len, 99, 0xFF);
    memset(z, 0, p);
    one_entry_both_ways(dir, z, len, &m);
    CU_ASSERT_EQUAL_FATAL(parse(&m, r, 1), 1);
    CU_ASSERT_EQUAL(r[0].method, 8);
    unsigned char *back = content_of(&r[0]);
    CU_ASSERT(memcmp(back, z, len) == 0);
    free(back);
    free(m.p);
    /* Noise of exactly the probe's size: the probe is the whole file. */
    one_entry_both_ways(dir, d, p, &m);
    CU_ASSERT_EQUAL_FATAL(parse(&m, r, 1), 1);
    CU_ASSERT_EQUAL(r[0].method, 0);
    free(m.p);
    free(d);
    free(z);
    sc_test_rmtree(dir);
    free(dir);
}

/* ---- workers ---------------------------------------------------------------------- */

static void test_bytes_do_not_depend_on_the_worker_count(void)
{
    /* 24 source files of mixed sizes and kinds of content (some over the
     * probe, some noise, some text, some empty), in both modes, written
     * with 1, 2 and 7 workers: one archive each time. */
    char *dir = sc_test_tmpdir();
    CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
    enum { N = 24 };
    sc_archive_entry e[N];
    char *paths[N], *names[N];
    memset(e, 0, sizeof e);
    for (int i = 0; i < N; i++) {
        char name[32];
        snprintf(name, sizeof name, "f%02d", i);
        paths[i] = join2(dir, name);
        size_t len = (size_t)(i % 6) * (i % 4 == 0 ? 700000u : 9000u);
        unsigned char *d = lcg_bytes(len, (uint32_t)i, i % 3 == 0 ? 0xFF : 0x0F);
        put_file(paths[i], d, len);
        free(d);
        snprintf(name, sizeof name, "d%d/f%02d", i % 5, N - i);
        names[i] = strdup(name);
        e[i].path = names[i];
        e[i].kind = SC_ARCHIVE_FILE;
        e[i].source = paths[i];
        e[i].executable = i % 7 == 0;
    }
    sc_archive_compression modes[2] = {SC_ARCHIVE_DEFLATE, SC_ARCHIVE_STORE};
    unsigned jobs[3] = {1, 2, 7};
    for (int c = 0; c < 2; c++) {
        membuf first = {0};
        for (int j = 0; j < 3; j++) {
            membuf m = {0};
            sc_archive_sink sink = {mem_write, &m};
            sc_archive_options o = {.jobs = jobs[j]};
            sc_error err;
            CU_ASSERT_EQUAL_FATAL(sc_archive_write_with(e, N, modes[c], &o, &sink, NULL, &err),
                                  SC_OK);
            if (j == 0) {
                first = m;
                zrec r[N];
                CU_ASSERT_EQUAL(parse(&m, r, N), N);
                continue;
            }
            CU_ASSERT(m.len == first.len && memcmp(m.p, first.p, m.len) == 0);
            free(m.p);
        }
        free(first.p);
    }
    for (int i = 0; i < N; i++) {
        free(paths[i]);
        free(names[i]);
    }
    sc_test_rmtree(dir);
    free(dir);
}

/* len above AW_PREFETCH_MAX (256 KiB): copied by the writer; below: read
 * ahead into a spool by a worker.  Either way it is checked. */
static void known_crc_is_checked(size_t len)
{
    char *dir = sc_test_tmpdir();
    CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
    char *src = join2(dir, "model.bin");
    unsigned char *d = lcg_bytes(len, 5, 0xFF);
    put_file(src, d, len);
    sc_archive_entry e = {"model.bin", SC_ARCHIVE_FILE, src, NULL, 0, 0, 1, 0, 0, 0};
    membuf plain, known;
    sc_error err;
    CU_ASSERT_EQUAL_FATAL(write_mem(&e, 1, SC_ARCHIVE_STORE, &plain, &err), SC_OK);
    e.crc_known = 1;
    e.crc = (uint32_t)crc32(0L, d, (uInt)len);
    e.size = len;
    CU_ASSERT_EQUAL_FATAL(write_mem(&e, 1, SC_ARCHIVE_DEFLATE, &known, &err), SC_OK);
    CU_ASSERT(known.len == plain.len && memcmp(known.p, plain.p, plain.len) == 0);
    free(known.p);
    /* The file changed after its CRC was taken (same size). */
    d[len / 2] ^= 1;
    put_file(src, d, len);
    SC_EXPECT_CODE(write_mem(&e, 1, SC_ARCHIVE_STORE, &known, &err), SC_E_IO, &err);
    CU_ASSERT_STRING_EQUAL(err.path, src);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "changed while being archived"));
    free(known.p);
    free(plain.p);
    free(d);
    free(src);
    sc_test_rmtree(dir);
    free(dir);
}

static void test_known_crc_is_checked_while_a_stored_source_is_copied(void)
{
    known_crc_is_checked(300 * 1024);
    known_crc_is_checked(100 * 1024);
}

static void *report_mask(void *arg)
{
    sigset_t *m = arg;
    pthread_sigmask(SIG_BLOCK, NULL, m);
    return NULL;
}

/* A thread the library starts holds SIGINT, SIGTERM and SIGHUP blocked
 * (prepare's stage cleanup must run on the caller's thread), and the
 * caller's own mask is left as it was. */
static void test_library_threads_block_the_termination_signals(void)
{
    sigset_t before, after, seen;
    sigemptyset(&seen);
    CU_ASSERT_EQUAL_FATAL(pthread_sigmask(SIG_BLOCK, NULL, &before), 0);
    CU_ASSERT_FALSE(sigismember(&before, SIGTERM));
    pthread_t t;
    CU_ASSERT_EQUAL_FATAL(sc_jobs_thread_start(&t, report_mask, &seen), 0);
    pthread_join(t, NULL);
    CU_ASSERT_TRUE(sigismember(&seen, SIGINT));
    CU_ASSERT_TRUE(sigismember(&seen, SIGTERM));
    CU_ASSERT_TRUE(sigismember(&seen, SIGHUP));
    CU_ASSERT_EQUAL_FATAL(pthread_sigmask(SIG_BLOCK, NULL, &after), 0);
    CU_ASSERT_FALSE(sigismember(&after, SIGTERM));
}

static void test_jobs_follow_the_affinity_mask(void)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    CU_ASSERT_EQUAL_FATAL(sched_getaffinity(0, sizeof set, &set), 0);
    unsigned want = (unsigned)CPU_COUNT(&set);
    CU_ASSERT_EQUAL(sc_jobs_available(), want > SC_JOBS_MAX ? SC_JOBS_MAX : want);
    CU_ASSERT_EQUAL(sc_jobs_resolve(0), sc_jobs_available());
    CU_ASSERT_EQUAL(sc_jobs_resolve(3), 3u);
    CU_ASSERT_EQUAL(sc_jobs_resolve(100000), SC_JOBS_MAX);
    /* Narrowed to one CPU, the count follows. */
    cpu_set_t one;
    CPU_ZERO(&one);
    for (int c = 0; c < CPU_SETSIZE; c++)
        if (CPU_ISSET(c, &set)) {
            CPU_SET(c, &one);
            break;
        }
    CU_ASSERT_EQUAL_FATAL(sched_setaffinity(0, sizeof one, &one), 0);
    CU_ASSERT_EQUAL(sc_jobs_available(), 1u);
    CU_ASSERT_EQUAL(sched_setaffinity(0, sizeof set, &set), 0);
}

static void test_copy_fd_copies_every_byte_from_a_file_or_a_pipe(void)
{
    char *dir = sc_test_tmpdir();
    CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
    size_t len = (3u << 20) + 17;
    unsigned char *d = lcg_bytes(len, 11, 0xFF);
    char *src = join2(dir, "src"), *dst = join2(dir, "dst"), *dst2 = join2(dir, "dst2");
    put_file(src, d, len);
    int in = open(src, O_RDONLY), out = open(dst, O_WRONLY | O_CREAT | O_EXCL, 0644);
    CU_ASSERT_FATAL(in >= 0 && out >= 0);
    sc_error err;
    SC_EXPECT_CODE(sc_copy_fd(in, out, src, dst, &err), SC_OK, &err);
    close(in);
    close(out);
    size_t got = 0;
    char *back = NULL;
    CU_ASSERT_EQUAL_FATAL(sc_file_read(dst, &back, &got, NULL, &err), SC_OK);
    CU_ASSERT(got == len && memcmp(back, d, len) == 0);
    free(back);
    /* From a pipe: no in-kernel copy is possible, the buffer path copies. */
    int p[2];
    CU_ASSERT_EQUAL_FATAL(pipe(p), 0);
    static const char msg[] = "through a pipe";
    CU_ASSERT_EQUAL(write(p[1], msg, sizeof msg - 1), (ssize_t)(sizeof msg - 1));
    close(p[1]);
    out = open(dst2, O_WRONLY | O_CREAT | O_EXCL, 0644);
    CU_ASSERT_FATAL(out >= 0);
    SC_EXPECT_CODE(sc_copy_fd(p[0], out, "pipe", dst2, &err), SC_OK, &err);
    close(p[0]);
    close(out);
    CU_ASSERT_EQUAL_FATAL(sc_file_read(dst2, &back, &got, NULL, &err), SC_OK);
    CU_ASSERT(got == sizeof msg - 1 && memcmp(back, msg, got) == 0);
    free(back);
    free(d);
    free(src);
    free(dst);
    free(dst2);
    sc_test_rmtree(dir);
    free(dir);
}

/* ---- refusals ----------------------------------------------------------------- */

static void expect_refused(sc_archive_entry *e, size_t n, sc_code want)
{
    membuf m;
    sc_error err;
    SC_EXPECT_CODE(write_mem(e, n, SC_ARCHIVE_STORE, &m, &err), want, &err);
    CU_ASSERT_EQUAL(m.calls, 0); /* nothing written before the check */
    CU_ASSERT(strchr(err.message, '\n') == NULL);
    free(m.p);
}

static void test_duplicate_path_is_a_collision(void)
{
    sc_archive_entry e[] = {file_entry("a/b", "1"), file_entry("c", "2"),
                            file_entry("a/b", "3")};
    expect_refused(e, 3, SC_E_ENTRY_COLLISION);
}

static void test_paths_equal_under_ascii_case_folding_collide(void)
{
    sc_archive_entry e[] = {file_entry("lib/Readme.TXT", "1"), file_entry("lib/README.txt", "2")};
    expect_refused(e, 2, SC_E_ENTRY_COLLISION);
}

static void test_non_ascii_case_is_not_folded(void)
{
    /* Only A-Z fold: "É" and "é" are distinct entries. */
    sc_archive_entry e[] = {file_entry("\xc3\x89", "1"), file_entry("\xc3\xa9", "2")};
    membuf m;
    sc_error err;
    CU_ASSERT_EQUAL(write_mem(e, 2, SC_ARCHIVE_STORE, &m, &err), SC_OK);
    free(m.p);
}

static void test_ancestor_of_another_entry_is_a_collision(void)
{
    sc_archive_entry e[] = {file_entry("a/b/c", "1"), file_entry("a/b", "2")};
    expect_refused(e, 2, SC_E_ENTRY_COLLISION);
    sc_archive_entry f[] = {link_entry("lib", "lib64"), file_entry("LIB/x", "2")};
    expect_refused(f, 2, SC_E_ENTRY_COLLISION);
    /* A common prefix that is not a whole segment is no ancestor. */
    sc_archive_entry g[] = {file_entry("ab", "1"), file_entry("a/b", "2"),
                            file_entry("a.b/c", "3")};
    membuf m;
    sc_error err;
    CU_ASSERT_EQUAL(write_mem(g, 3, SC_ARCHIVE_STORE, &m, &err), SC_OK);
    free(m.p);
}

static void test_unsafe_path_is_refused(void)
{
    const char *bad[] = {"../x", "a//b", "/abs", "a\\b", "./a", "a/", "", "C:/x",
                         "\xff\xfe"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        sc_archive_entry e[] = {file_entry("ok", "1"), file_entry(bad[i], "2")};
        expect_refused(e, 2, SC_E_UNSAFE_PATH);
    }
}

/* ---- determinism -------------------------------------------------------------- */

static membuf mixed_archive(sc_archive_compression c)
{
    sc_archive_entry e[MIXED_N];
    mixed_entries(e);
    membuf m;
    sc_error err;
    CU_ASSERT_EQUAL(write_mem(e, MIXED_N, c, &m, &err), SC_OK);
    return m;
}

static int same_bytes(const membuf *a, const membuf *b)
{
    return a->len == b->len && memcmp(a->p, b->p, a->len) == 0;
}

static void test_bytes_do_not_depend_on_the_time_zone(void)
{
    const char *old = getenv("TZ");
    char *saved = old != NULL ? strdup(old) : NULL;
    setenv("TZ", "UTC0", 1);
    tzset();
    membuf a = mixed_archive(SC_ARCHIVE_DEFLATE);
    setenv("TZ", "XST-14", 1); /* UTC+14: a different calendar day */
    tzset();
    membuf b = mixed_archive(SC_ARCHIVE_DEFLATE);
    setenv("TZ", "YST11", 1); /* UTC-11 */
    tzset();
    membuf c = mixed_archive(SC_ARCHIVE_DEFLATE);
    CU_ASSERT(same_bytes(&a, &b));
    CU_ASSERT(same_bytes(&a, &c));
    if (saved != NULL)
        setenv("TZ", saved, 1);
    else
        unsetenv("TZ");
    tzset();
    free(saved);
    free(a.p);
    free(b.p);
    free(c.p);
}

static void test_bytes_do_not_depend_on_the_locale(void)
{
    membuf a = mixed_archive(SC_ARCHIVE_DEFLATE);
    const char *tried[] = {"tr_TR.UTF-8", "de_DE.UTF-8", "C.UTF-8", "POSIX"};
    int changed = 0;
    for (size_t i = 0; i < sizeof tried / sizeof tried[0]; i++) {
        if (setlocale(LC_ALL, tried[i]) == NULL)
            continue;
        changed++;
        membuf b = mixed_archive(SC_ARCHIVE_DEFLATE);
        CU_ASSERT(same_bytes(&a, &b));
        free(b.p);
    }
    setlocale(LC_ALL, "C");
    CU_ASSERT(changed > 0);
    free(a.p);
}

static void test_bytes_and_mode_do_not_depend_on_the_umask(void)
{
    char *dir = sc_test_tmpdir();
    CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
    char *p1 = join2(dir, "a.zip"), *p2 = join2(dir, "b.zip");
    sc_archive_entry e[MIXED_N];
    mixed_entries(e);
    sc_error err;
    mode_t old = umask(0);
    CU_ASSERT_EQUAL(sc_archive_write_file(e, MIXED_N, SC_ARCHIVE_DEFLATE, p1, NULL, NULL, &err),
                    SC_OK);
    umask(0077);
    CU_ASSERT_EQUAL(sc_archive_write_file(e, MIXED_N, SC_ARCHIVE_DEFLATE, p2, NULL, NULL, &err),
                    SC_OK);
    umask(old);
    struct stat s1, s2;
    CU_ASSERT_EQUAL_FATAL(stat(p1, &s1), 0);
    CU_ASSERT_EQUAL_FATAL(stat(p2, &s2), 0);
    CU_ASSERT_EQUAL(s1.st_mode & 07777, 0644);
    CU_ASSERT_EQUAL(s2.st_mode & 07777, 0644);
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "cmp -s '%s' '%s'", p1, p2);
    CU_ASSERT_EQUAL(system(cmd), 0);
    free(p1);
    free(p2);
    sc_test_rmtree(dir);
    free(dir);
}

/* Write the mixed set from files created in the given order; archive bytes. */
static membuf from_sources(const int *order)
{
    char *dir = sc_test_tmpdir();
    CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
    sc_archive_entry e[MIXED_N];
    mixed_entries(e);
    char *src[MIXED_N] = {0};
    for (int k = 0; k < MIXED_N; k++) {
        int i = order[k];
        char name[16];
        snprintf(name, sizeof name, "s%d", i);
        src[i] = join2(dir, name);
        if (e[i].kind == SC_ARCHIVE_FILE) {
            put_file(src[i], e[i].data, e[i].data_len);
            e[i].source = src[i];
        }
    }
    /* Hand the entries over in creation order too. */
    sc_archive_entry g[MIXED_N];
    for (int k = 0; k < MIXED_N; k++)
        g[k] = e[order[k]];
    membuf m;
    sc_error err;
    CU_ASSERT_EQUAL(write_mem(g, MIXED_N, SC_ARCHIVE_DEFLATE, &m, &err), SC_OK);
    for (int i = 0; i < MIXED_N; i++)
        free(src[i]);
    sc_test_rmtree(dir);
    free(dir);
    return m;
}

static void test_bytes_do_not_depend_on_creation_or_entry_order(void)
{
    static const int forward[MIXED_N] = {0, 1, 2, 3, 4, 5, 6};
    static const int backward[MIXED_N] = {6, 5, 4, 3, 2, 1, 0};
    static const int mixed[MIXED_N] = {3, 0, 6, 2, 5, 1, 4};
    membuf a = from_sources(forward), b = from_sources(backward), c = from_sources(mixed);
    membuf d = mixed_archive(SC_ARCHIVE_DEFLATE); /* in-memory bytes, same archive */
    CU_ASSERT(same_bytes(&a, &b));
    CU_ASSERT(same_bytes(&a, &c));
    CU_ASSERT(same_bytes(&a, &d));
    free(a.p);
    free(b.p);
    free(c.p);
    free(d.p);
}

/* ---- writing a file ----------------------------------------------------------- */

static int dir_entries(const char *dir)
{
    DIR *d = opendir(dir);
    CU_ASSERT_PTR_NOT_NULL_FATAL(d);
    int n = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL)
        if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
            n++;
    closedir(d);
    return n;
}

static void test_write_file_reports_size_and_sha256_of_the_bytes(void)
{
    char *dir = sc_test_tmpdir();
    CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
    char *out = join2(dir, "box.zip");
    sc_archive_entry e[MIXED_N];
    mixed_entries(e);
    sc_error err;
    uint64_t size = 0;
    char hex[65];
    CU_ASSERT_EQUAL_FATAL(
        sc_archive_write_file(e, MIXED_N, SC_ARCHIVE_STORE, out, &size, hex, &err), SC_OK);
    membuf m = mixed_archive(SC_ARCHIVE_STORE);
    CU_ASSERT_EQUAL(size, m.len);
    char want[65];
    CU_ASSERT_EQUAL(sc_sha256_hex(m.p, m.len, want, &err), SC_OK);
    CU_ASSERT_STRING_EQUAL(hex, want);
    char *bytes = NULL;
    size_t len = 0;
    FILE *f = fopen(out, "rb");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    bytes = malloc(m.len + 1);
    len = fread(bytes, 1, m.len + 1, f);
    fclose(f);
    CU_ASSERT(len == m.len && memcmp(bytes, m.p, len) == 0);
    CU_ASSERT_EQUAL(dir_entries(dir), 1); /* no temporary file left */
    free(bytes);
    free(m.p);
    free(out);
    sc_test_rmtree(dir);
    free(dir);
}

/* The file sink hands 1 MiB blocks to a writer thread (O_DIRECT where the
 * file system takes it, buffered for the last partial block): an archive of
 * about 9 MiB goes around the ring of four blocks twice and is still the
 * bytes the memory sink gets, with their SHA-256. */
static void test_write_file_of_many_blocks_is_the_sink_bytes(void)
{
    char *dir = sc_test_tmpdir();
    CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
    char *out = join2(dir, "big.zip");
    size_t n = (size_t)9 * 1024 * 1024 + 12345;
    char *data = malloc(n + 1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(data);
    uint32_t x = 2463534242u;
    for (size_t i = 0; i < n; i++) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        data[i] = (char)('a' + x % 26);
    }
    data[n] = '\0';
    sc_archive_entry e[2] = {file_entry("a/weights.txt", data), file_entry("b.txt", "tail")};
    e[0].data_len = n;
    sc_error err;
    uint64_t size = 0;
    char hex[65], want[65];
    for (int c = 0; c < 2; c++) {
        sc_archive_compression comp = c ? SC_ARCHIVE_DEFLATE : SC_ARCHIVE_STORE;
        SC_EXPECT_CODE(sc_archive_write_file(e, 2, comp, out, &size, hex, &err), SC_OK, &err);
        membuf m;
        CU_ASSERT_EQUAL_FATAL(write_mem(e, 2, comp, &m, &err), SC_OK);
        CU_ASSERT_EQUAL(size, m.len);
        CU_ASSERT_EQUAL(sc_sha256_hex(m.p, m.len, want, &err), SC_OK);
        CU_ASSERT_STRING_EQUAL(hex, want);
        FILE *f = fopen(out, "rb");
        CU_ASSERT_PTR_NOT_NULL_FATAL(f);
        unsigned char *bytes = malloc(m.len + 1);
        size_t len = fread(bytes, 1, m.len + 1, f);
        fclose(f);
        CU_ASSERT(len == m.len && memcmp(bytes, m.p, len) == 0);
        free(bytes);
        free(m.p);
        CU_ASSERT_EQUAL(unlink(out), 0);
    }
    free(data);
    free(out);
    sc_test_rmtree(dir);
    free(dir);
}

static void test_failed_write_leaves_nothing_at_the_output_path(void)
{
    char *dir = sc_test_tmpdir();
    CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
    char *out = join2(dir, "box.zip");
    char *gone = join2(dir, "vanished-source");
    sc_archive_entry e[] = {file_entry("a", "first entry is fine"), file_entry("b", "")};
    e[1].source = gone;
    sc_error err;
    uint64_t size = 7;
    SC_EXPECT_CODE(sc_archive_write_file(e, 2, SC_ARCHIVE_DEFLATE, out, &size, NULL, &err),
                   SC_E_IO, &err);
    CU_ASSERT_STRING_EQUAL(err.path, gone);
    CU_ASSERT_EQUAL(size, 0);
    CU_ASSERT_EQUAL(access(out, F_OK), -1);
    CU_ASSERT_EQUAL(dir_entries(dir), 0); /* no temporary file either */
    /* An existing archive stays as it was. */
    put_file(out, "old", 3);
    SC_EXPECT_CODE(sc_archive_write_file(e, 2, SC_ARCHIVE_STORE, out, NULL, NULL, &err),
                   SC_E_IO, &err);
    FILE *f = fopen(out, "rb");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    char buf[8] = {0};
    CU_ASSERT_EQUAL(fread(buf, 1, sizeof buf, f), 3);
    fclose(f);
    CU_ASSERT_STRING_EQUAL(buf, "old");
    CU_ASSERT_EQUAL(dir_entries(dir), 1);
    free(out);
    free(gone);
    sc_test_rmtree(dir);
    free(dir);
}

static void test_source_must_be_a_regular_file(void)
{
    char *dir = sc_test_tmpdir();
    CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
    sc_archive_entry e = file_entry("d", "");
    e.source = dir;
    membuf m;
    sc_error err;
    SC_EXPECT_CODE(write_mem(&e, 1, SC_ARCHIVE_STORE, &m, &err), SC_E_IO, &err);
    free(m.p);
    /* A FIFO is refused without waiting for a writer. */
    char *fifo = join2(dir, "fifo");
    CU_ASSERT_EQUAL_FATAL(mkfifo(fifo, 0600), 0);
    e.source = fifo;
    SC_EXPECT_CODE(write_mem(&e, 1, SC_ARCHIVE_DEFLATE, &m, &err), SC_E_IO, &err);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "not a regular file"));
    free(m.p);
    free(fifo);
    sc_test_rmtree(dir);
    free(dir);
}

/* A sink that shortens a source file the first time it is called. */
typedef struct shrink_sink {
    const char *path;
    off_t to;
    int calls;
} shrink_sink;

static sc_code shrink_write(void *ctx, const void *buf, size_t len, sc_error *err)
{
    (void)buf;
    (void)len;
    (void)err;
    shrink_sink *s = ctx;
    if (s->calls++ == 0)
        CU_ASSERT_EQUAL(truncate(s->path, s->to), 0);
    return SC_OK;
}

static void test_source_that_changes_while_written_is_an_io_error(void)
{
    /* A stored source is read twice (CRC, then copy).  The first bytes
     * reach the sink after the first 256 KiB of the copy were read; the
     * sink then cuts the file, so the copy runs short. */
    char *dir = sc_test_tmpdir();
    CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
    char *src = join2(dir, "grows-and-shrinks");
    size_t len = 600 * 1024;
    unsigned char *data = calloc(1, len);
    CU_ASSERT_PTR_NOT_NULL_FATAL(data);
    put_file(src, data, len);
    sc_archive_entry e = file_entry("a.bin", "");
    e.source = src;
    shrink_sink s = {src, 300 * 1024, 0};
    sc_archive_sink sink = {shrink_write, &s};
    sc_error err;
    SC_EXPECT_CODE(sc_archive_write(&e, 1, SC_ARCHIVE_STORE, &sink, NULL, &err), SC_E_IO, &err);
    CU_ASSERT_STRING_EQUAL(err.path, src);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "changed while being archived"));
    free(data);
    free(src);
    sc_test_rmtree(dir);
    free(dir);
}

/* ---- ZIP64 -------------------------------------------------------------------- */

/* n empty in-memory entries "d/NNNNNN"; the archive in m. */
static void many_entries(size_t n, membuf *m)
{
    sc_archive_entry *e = calloc(n, sizeof *e);
    char *names = malloc(n * 16);
    CU_ASSERT_FATAL(e != NULL && names != NULL);
    for (size_t i = 0; i < n; i++) {
        snprintf(names + i * 16, 16, "d/%06zu", n - 1 - i);
        e[i] = file_entry(names + i * 16, "");
    }
    sc_error err;
    CU_ASSERT_EQUAL(write_mem(e, n, SC_ARCHIVE_STORE, m, &err), SC_OK);
    free(e);
    free(names);
}

static void test_zip64_end_records_only_from_65535_entries(void)
{
    membuf m;
    many_entries(65534, &m); /* fits: plain end record */
    const unsigned char *end = m.p + m.len - 22;
    CU_ASSERT_EQUAL(g32(end), 0x06054B50u);
    CU_ASSERT_EQUAL(g16(end + 10), 65534);
    CU_ASSERT_NOT_EQUAL(g32(end - 20), 0x07064B50u);
    free(m.p);

    many_entries(65535, &m); /* 0xFFFF is the marker: ZIP64 */
    end = m.p + m.len - 22;
    const unsigned char *loc = end - 20, *z = end - 20 - 56;
    CU_ASSERT_EQUAL_FATAL(g32(end), 0x06054B50u);
    CU_ASSERT_EQUAL(g16(end + 8), 0xFFFFu);
    CU_ASSERT_EQUAL(g16(end + 10), 0xFFFFu);
    CU_ASSERT_EQUAL_FATAL(g32(loc), 0x07064B50u);
    CU_ASSERT_EQUAL(g32(loc + 4), 0);
    CU_ASSERT_EQUAL(g64(loc + 8), (uint64_t)(z - m.p));
    CU_ASSERT_EQUAL(g32(loc + 16), 1);
    CU_ASSERT_EQUAL_FATAL(g32(z), 0x06064B50u);
    CU_ASSERT_EQUAL(g64(z + 4), 44);
    CU_ASSERT_EQUAL(g16(z + 12), 0x032Du);
    CU_ASSERT_EQUAL(g16(z + 14), 45);
    CU_ASSERT_EQUAL(g32(z + 16), 0);
    CU_ASSERT_EQUAL(g32(z + 20), 0);
    CU_ASSERT_EQUAL(g64(z + 24), 65535);
    CU_ASSERT_EQUAL(g64(z + 32), 65535);
    uint64_t cd_size = g64(z + 40), cd_off = g64(z + 48);
    CU_ASSERT_EQUAL(cd_off + cd_size, (uint64_t)(z - m.p));
    /* The sizes that fit stay in the plain record. */
    CU_ASSERT_EQUAL(g32(end + 12), cd_size);
    CU_ASSERT_EQUAL(g32(end + 16), cd_off);
    /* Entries themselves need no ZIP64 field; the first is d/000000. */
    const unsigned char *c = m.p + cd_off;
    CU_ASSERT_EQUAL(g32(c), 0x02014B50u);
    CU_ASSERT_EQUAL(g16(c + 30), 0);
    CU_ASSERT(memcmp(c + 46, "d/000000", 8) == 0);
    CU_ASSERT(memcmp(m.p + 30, "d/000000", 8) == 0);
    free(m.p);
}

/* A sink that keeps only the head and the tail and checks the data CRC. */
typedef struct bigsink {
    uint64_t total;
    unsigned char head[4096];
    unsigned char tail[1 << 16];
    size_t tail_len;
    uint64_t data_from, data_len;
    uint32_t crc;
} bigsink;

static sc_code big_write(void *ctx, const void *buf, size_t len, sc_error *err)
{
    (void)err;
    bigsink *b = ctx;
    const unsigned char *p = buf;
    for (size_t i = 0; i < len && b->total + i < sizeof b->head; i++)
        b->head[b->total + i] = p[i];
    uint64_t lo = b->total, hi = b->total + len;
    uint64_t a = lo > b->data_from ? lo : b->data_from;
    uint64_t z = hi < b->data_from + b->data_len ? hi : b->data_from + b->data_len;
    if (a < z)
        b->crc = (uint32_t)crc32(b->crc, p + (a - lo), (uInt)(z - a));
    if (len >= sizeof b->tail) {
        memcpy(b->tail, p + len - sizeof b->tail, sizeof b->tail);
        b->tail_len = sizeof b->tail;
    } else {
        size_t keep = sizeof b->tail - len;
        if (keep > b->tail_len)
            keep = b->tail_len;
        memmove(b->tail, b->tail + b->tail_len - keep, keep);
        memcpy(b->tail + keep, p, len);
        b->tail_len = keep + len;
    }
    b->total = hi;
    return SC_OK;
}

static void test_zip64_fields_for_an_entry_over_4_gib(void)
{
    if (getenv("SC_SKIP_LARGE_TESTS") != NULL) {
        fprintf(stderr, "\n  SKIPPED test_zip64_fields_for_an_entry_over_4_gib: "
                        "SC_SKIP_LARGE_TESTS is set (4 GiB sparse source)\n");
        return;
    }
    const uint64_t size = ((uint64_t)1 << 32) + 1;
    char *dir = sc_test_tmpdir();
    CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
    char *src = join2(dir, "big.sparse");
    int fd = open(src, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    CU_ASSERT_FATAL(fd >= 0);
    CU_ASSERT_EQUAL_FATAL(ftruncate(fd, (off_t)size), 0);
    CU_ASSERT_EQUAL(pwrite(fd, "head", 4, 0), 4);
    CU_ASSERT_EQUAL(pwrite(fd, "tail", 4, (off_t)(size - 4)), 4);
    close(fd);
    /* The expected CRC, computed here from the file's own bytes. */
    uint32_t want_crc = (uint32_t)crc32(0L, Z_NULL, 0);
    {
        unsigned char *buf = malloc(1 << 20);
        CU_ASSERT_PTR_NOT_NULL_FATAL(buf);
        int rfd = open(src, O_RDONLY);
        CU_ASSERT_FATAL(rfd >= 0);
        ssize_t got;
        while ((got = read(rfd, buf, 1 << 20)) > 0)
            want_crc = (uint32_t)crc32(want_crc, buf, (uInt)got);
        close(rfd);
        free(buf);
    }
    sc_archive_entry e[2] = {{"a/big.bin", SC_ARCHIVE_FILE, src, NULL, 0, 0, 0, 0, 0, 0},
                             file_entry("z", "after")};
    bigsink *b = calloc(1, sizeof *b);
    CU_ASSERT_PTR_NOT_NULL_FATAL(b);
    b->data_from = 30 + 9 + 20;
    b->data_len = size;
    b->crc = (uint32_t)crc32(0L, Z_NULL, 0);
    sc_archive_sink sink = {big_write, b};
    uint64_t written = 0;
    sc_error err;
    SC_EXPECT_CODE(sc_archive_write(e, 2, SC_ARCHIVE_STORE, &sink, &written, &err), SC_OK,
                   &err);
    CU_ASSERT_EQUAL(written, b->total);
    CU_ASSERT_EQUAL(b->crc, want_crc);
    /* Local header: version 45, sizes 0xFFFFFFFF, ZIP64 field with both. */
    const unsigned char *l = b->head;
    CU_ASSERT_EQUAL(g32(l), 0x04034B50u);
    CU_ASSERT_EQUAL(g16(l + 4), 45);
    CU_ASSERT_EQUAL(g16(l + 6), 0x0800u);
    CU_ASSERT_EQUAL(g16(l + 8), 0);
    CU_ASSERT_EQUAL(g32(l + 14), want_crc);
    CU_ASSERT_EQUAL(g32(l + 18), 0xFFFFFFFFu);
    CU_ASSERT_EQUAL(g32(l + 22), 0xFFFFFFFFu);
    CU_ASSERT_EQUAL(g16(l + 26), 9);
    CU_ASSERT_EQUAL(g16(l + 28), 20);
    CU_ASSERT(memcmp(l + 30, "a/big.bin", 9) == 0);
    CU_ASSERT_EQUAL(g16(l + 39), 0x0001u);
    CU_ASSERT_EQUAL(g16(l + 41), 16);
    CU_ASSERT_EQUAL(g64(l + 43), size);
    CU_ASSERT_EQUAL(g64(l + 51), size);
    CU_ASSERT(memcmp(l + 59, "head", 4) == 0);
    /* The second entry starts past 4 GiB: its central record carries only
     * the offset in a ZIP64 field.  Tail: central directory, ZIP64 end
     * record, locator, end record. */
    uint64_t z_local = 59 + size;
    const unsigned char *t = b->tail, *end = t + b->tail_len - 22;
    CU_ASSERT_EQUAL_FATAL(g32(end), 0x06054B50u);
    CU_ASSERT_EQUAL(g16(end + 10), 2);
    CU_ASSERT_EQUAL(g32(end + 16), 0xFFFFFFFFu); /* the offset does not fit */
    const unsigned char *loc = end - 20, *z64 = loc - 56;
    CU_ASSERT_EQUAL_FATAL(g32(loc), 0x07064B50u);
    CU_ASSERT_EQUAL_FATAL(g32(z64), 0x06064B50u);
    CU_ASSERT_EQUAL(g64(loc + 8), b->total - 22 - 20 - 56);
    uint64_t cd_size = g64(z64 + 40), cd_off = g64(z64 + 48);
    CU_ASSERT_EQUAL(g64(z64 + 32), 2);
    CU_ASSERT_EQUAL(cd_off, z_local + 30 + 1 + 5);
    CU_ASSERT_EQUAL(g32(end + 12), cd_size);
    const unsigned char *c = z64 - cd_size;
    /* Central record 1: a/big.bin, sizes in the ZIP64 field, offset 0. */
    CU_ASSERT_EQUAL_FATAL(g32(c), 0x02014B50u);
    CU_ASSERT_EQUAL(g16(c + 4), 0x032Du);
    CU_ASSERT_EQUAL(g16(c + 6), 45);
    CU_ASSERT_EQUAL(g32(c + 16), want_crc);
    CU_ASSERT_EQUAL(g32(c + 20), 0xFFFFFFFFu);
    CU_ASSERT_EQUAL(g32(c + 24), 0xFFFFFFFFu);
    CU_ASSERT_EQUAL(g16(c + 30), 20);
    CU_ASSERT_EQUAL(g32(c + 42), 0);
    CU_ASSERT_EQUAL(g16(c + 46 + 9), 0x0001u);
    CU_ASSERT_EQUAL(g16(c + 46 + 11), 16);
    CU_ASSERT_EQUAL(g64(c + 46 + 13), size);
    CU_ASSERT_EQUAL(g64(c + 46 + 21), size);
    /* Central record 2: z, small sizes, offset in a 12-byte ZIP64 field. */
    c += 46 + 9 + 20;
    CU_ASSERT_EQUAL_FATAL(g32(c), 0x02014B50u);
    CU_ASSERT_EQUAL(g16(c + 6), 45);
    CU_ASSERT_EQUAL(g32(c + 20), 5);
    CU_ASSERT_EQUAL(g32(c + 24), 5);
    CU_ASSERT_EQUAL(g16(c + 30), 12);
    CU_ASSERT_EQUAL(g32(c + 42), 0xFFFFFFFFu);
    CU_ASSERT_EQUAL(g16(c + 47), 0x0001u);
    CU_ASSERT_EQUAL(g16(c + 49), 8);
    CU_ASSERT_EQUAL(g64(c + 51), z_local);
    CU_ASSERT_EQUAL(c + 46 + 1 + 12, z64);
    free(b);
    free(src);
    sc_test_rmtree(dir);
    free(dir);
}

/* ---- cross-check with the Python model ------------------------------------------ */

static void test_store_bytes_equal_the_python_model(void)
{
    if (access("/usr/bin/python3", X_OK) != 0) {
        fprintf(stderr, "\n  SKIPPED test_store_bytes_equal_the_python_model: "
                        "/usr/bin/python3 is missing\n");
        return;
    }
    sc_archive_entry e[MIXED_N + 1];
    mixed_entries(e);
    static const unsigned char bin[] = {0, 1, 2, 0xFF, 0x80, '\n', 0};
    sc_archive_entry x = {"data/\xe6\x97\xa5\xe6\x9c\xac.bin", SC_ARCHIVE_FILE, NULL, bin,
                          sizeof bin, 1, 0, 0, 0, 0};
    e[MIXED_N] = x;
    /* The same entries as a Python literal: bytes as hex. */
    size_t cap = 16384, used = 0;
    char *py = malloc(cap);
    CU_ASSERT_PTR_NOT_NULL_FATAL(py);
    used += (size_t)snprintf(py + used, cap - used,
                             "import sys; sys.path.insert(0, '%s/fixtures'); import zipfmt; "
                             "h = lambda s: bytes.fromhex(s); e = [",
                             SC_SOURCE_DIR);
    for (size_t i = 0; i < MIXED_N + 1; i++) {
        const unsigned char *d = e[i].data;
        used += (size_t)snprintf(py + used, cap - used, "{'path': h('");
        for (const char *s = e[i].path; *s; s++)
            used += (size_t)snprintf(py + used, cap - used, "%02x", (unsigned char)*s);
        used += (size_t)snprintf(py + used, cap - used, "').decode(), 'kind': '%s', '%s': h('",
                                 e[i].kind == SC_ARCHIVE_LINK ? "link" : "file",
                                 e[i].kind == SC_ARCHIVE_LINK ? "target" : "data");
        for (size_t k = 0; k < e[i].data_len; k++)
            used += (size_t)snprintf(py + used, cap - used, "%02x", d[k]);
        used += (size_t)snprintf(py + used, cap - used, "'), 'executable': %s, 'stored': %s},",
                                 e[i].executable ? "True" : "False",
                                 e[i].stored ? "True" : "False");
    }
    used += (size_t)snprintf(py + used, cap - used,
                             "]; sys.stdout.buffer.write(zipfmt.canonical(e, 'store'))");
    CU_ASSERT_FATAL(used < cap);
    char *dir = sc_test_tmpdir();
    CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
    char *script = join2(dir, "model.py"), *out = join2(dir, "model.zip");
    put_file(script, py, used);
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "/usr/bin/python3 '%s' > '%s'", script, out);
    CU_ASSERT_EQUAL_FATAL(system(cmd), 0);
    membuf m;
    sc_error err;
    CU_ASSERT_EQUAL_FATAL(write_mem(e, MIXED_N + 1, SC_ARCHIVE_STORE, &m, &err), SC_OK);
    FILE *f = fopen(out, "rb");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    unsigned char *model = malloc(m.len + 1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(model);
    size_t got = fread(model, 1, m.len + 1, f);
    fclose(f);
    CU_ASSERT_EQUAL(got, m.len);
    CU_ASSERT(got == m.len && memcmp(model, m.p, m.len) == 0);
    free(model);
    free(m.p);
    free(py);
    free(script);
    free(out);
    sc_test_rmtree(dir);
    free(dir);
}

/* The entries' CRC-32 (crc32_internal.h, libdeflate) is zlib's crc32() for
 * the same bytes: every length from 0 to 4,100 (around every vector width
 * and page), whole and continued over two pieces split anywhere. */
static void test_crc32_is_zlibs_for_any_length_and_split(void)
{
    enum { N = 4100 };
    unsigned char *b = malloc(N);
    CU_ASSERT_FATAL(b != NULL);
    uint32_t x = 0x9e3779b9u;
    for (size_t i = 0; i < N; i++) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        b[i] = (unsigned char)x;
    }
    int bad = 0;
    for (size_t n = 0; n <= N && !bad; n++) {
        uint32_t want = (uint32_t)crc32(0L, b, (uInt)n);
        if (sc_crc32(0, b, n) != want)
            bad = 1;
        size_t cut = (n * 7) / 13;
        if (sc_crc32(sc_crc32(0, b, cut), b + cut, n - cut) != want)
            bad = 1;
        if (bad)
            fprintf(stderr, "\n  CRC-32 of %zu bytes differs from zlib's\n", n);
    }
    CU_ASSERT_FALSE(bad);
    CU_ASSERT_EQUAL(sc_crc32(0, "123456789", 9), 0xcbf43926u); /* the check value */
    free(b);
}

void register_archive_write_tests(void)
{
    CU_pSuite s = CU_add_suite("archive_write", NULL, NULL);
    if (s == NULL)
        CU_FAIL_FATAL("CU_add_suite failed");
    SC_ADD_TEST(s, test_empty_archive_is_only_the_end_record);
    SC_ADD_TEST(s, test_crc32_is_zlibs_for_any_length_and_split);
    SC_ADD_TEST(s, test_header_fields_are_the_canonical_constants);
    SC_ADD_TEST(s, test_entries_are_sorted_by_path_bytes);
    SC_ADD_TEST(s, test_modes_are_0644_0755_and_0120777);
    SC_ADD_TEST(s, test_deflate_for_files_store_for_links_and_stored_entries);
    SC_ADD_TEST(s, test_store_mode_stores_every_entry);
    SC_ADD_TEST(s, test_link_entry_holds_its_target);
    SC_ADD_TEST(s, test_no_data_descriptors_crc_and_sizes_in_local_headers);
    SC_ADD_TEST(s, test_large_deflated_entry_spools_and_reads_back);
    SC_ADD_TEST(s, test_file_that_deflate_does_not_shrink_is_stored);
    SC_ADD_TEST(s, test_probe_of_the_first_mib_decides_a_large_file);
    SC_ADD_TEST(s, test_bytes_do_not_depend_on_the_worker_count);
    SC_ADD_TEST(s, test_known_crc_is_checked_while_a_stored_source_is_copied);
    SC_ADD_TEST(s, test_library_threads_block_the_termination_signals);
    SC_ADD_TEST(s, test_jobs_follow_the_affinity_mask);
    SC_ADD_TEST(s, test_copy_fd_copies_every_byte_from_a_file_or_a_pipe);
    SC_ADD_TEST(s, test_duplicate_path_is_a_collision);
    SC_ADD_TEST(s, test_paths_equal_under_ascii_case_folding_collide);
    SC_ADD_TEST(s, test_non_ascii_case_is_not_folded);
    SC_ADD_TEST(s, test_ancestor_of_another_entry_is_a_collision);
    SC_ADD_TEST(s, test_unsafe_path_is_refused);
    SC_ADD_TEST(s, test_bytes_do_not_depend_on_the_time_zone);
    SC_ADD_TEST(s, test_bytes_do_not_depend_on_the_locale);
    SC_ADD_TEST(s, test_bytes_and_mode_do_not_depend_on_the_umask);
    SC_ADD_TEST(s, test_bytes_do_not_depend_on_creation_or_entry_order);
    SC_ADD_TEST(s, test_write_file_reports_size_and_sha256_of_the_bytes);
    SC_ADD_TEST(s, test_write_file_of_many_blocks_is_the_sink_bytes);
    SC_ADD_TEST(s, test_failed_write_leaves_nothing_at_the_output_path);
    SC_ADD_TEST(s, test_source_must_be_a_regular_file);
    SC_ADD_TEST(s, test_source_that_changes_while_written_is_an_io_error);
    SC_ADD_TEST(s, test_zip64_end_records_only_from_65535_entries);
    SC_ADD_TEST(s, test_zip64_fields_for_an_entry_over_4_gib);
    SC_ADD_TEST(s, test_store_bytes_equal_the_python_model);
}
