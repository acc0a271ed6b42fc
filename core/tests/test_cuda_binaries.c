/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_cuda_binaries.c — the ELF reader (elf_info.h), the fatbin reader
 * (fatbin.h) and the payload audit (cuda_binaries.h), on files built here
 * byte by byte: 32- and 64-bit, both byte orders, and the hostile shapes
 * of issue 22 (truncated headers, sections past the end, 2^32 sections,
 * entry sizes that overflow, a DT_NEEDED past its string table).  What nvcc
 * and the CUDA toolkit write is checked against readelf by
 * fixtures/cuda_binaries.py (the cuda-binaries ctests).
 */
#include "harness.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "scrollcase/cuda_binaries.h"
#include "scrollcase/elf_info.h"
#include "scrollcase/fatbin.h"
#include "scrollcase/file.h"

/* ---- building bytes ------------------------------------------------------ */

typedef struct buf {
    unsigned char *p;
    size_t len, cap;
    int be;
} buf;

static void grow(buf *b, size_t n)
{
    if (b->len + n > b->cap) {
        b->cap = (b->len + n) * 2 + 64;
        b->p = realloc(b->p, b->cap);
        CU_ASSERT_PTR_NOT_NULL_FATAL(b->p);
    }
}

static void put(buf *b, uint64_t v, unsigned size)
{
    grow(b, size);
    for (unsigned i = 0; i < size; i++) {
        unsigned shift = b->be ? 8 * (size - 1 - i) : 8 * i;
        b->p[b->len++] = (unsigned char)(v >> shift);
    }
}

static void put_bytes(buf *b, const void *s, size_t n)
{
    grow(b, n);
    memcpy(b->p + b->len, s, n);
    b->len += n;
}

static void align(buf *b, size_t a)
{
    while (b->len % a)
        put(b, 0, 1);
}

static void set_at(buf *b, size_t at, uint64_t v, unsigned size)
{
    size_t keep = b->len;
    b->len = at;
    put(b, v, size);
    b->len = keep;
}

/* One fatbin entry header (64 bytes, little-endian as nvcc writes it) and
 * payload_size bytes of payload. */
static void fatbin_entry(buf *b, unsigned kind, unsigned arch, uint64_t flags,
                         uint64_t payload_size)
{
    int be = b->be;
    b->be = 0;
    put(b, kind, 2);
    put(b, 0x0101, 2);
    put(b, 64, 4);
    put(b, payload_size, 8);
    put(b, 0, 4);
    put(b, kind == SC_FATBIN_PTX ? 64 : 0, 4);
    put(b, 0, 2);
    put(b, 9, 2);
    put(b, arch, 4);
    put(b, 0, 4);
    put(b, 0, 4);
    put(b, flags, 8);
    put(b, 0, 8);
    put(b, (flags & SC_FATBIN_FLAG_COMPRESSED) ? payload_size * 3 : 0, 8);
    for (uint64_t i = 0; i < payload_size; i++)
        put(b, 0xAB, 1);
    b->be = be;
}

/* A container header; returns where its body size is, to patch. */
static size_t fatbin_container(buf *b)
{
    int be = b->be;
    b->be = 0;
    put(b, SC_FATBIN_MAGIC, 4);
    put(b, 1, 2);
    put(b, 16, 2);
    size_t at = b->len;
    put(b, 0, 8);
    b->be = be;
    return at;
}

static void fatbin_close(buf *b, size_t at)
{
    int be = b->be;
    b->be = 0;
    set_at(b, at, b->len - (at + 8), 8);
    b->be = be;
}

/* The fatbin most tests use: two containers, 8 bytes of zero padding
 * between them, five entries:
 *   sm_80 (plain), sm_90a, compute_90 compressed | sm_100f, compute_100a */
static buf sample_fatbin(void)
{
    buf b = {0};
    size_t c = fatbin_container(&b);
    fatbin_entry(&b, SC_FATBIN_CUBIN, 80, 0x11, 24);
    fatbin_entry(&b, SC_FATBIN_CUBIN, 90, 0x11 | SC_FATBIN_FLAG_ARCH_SPECIFIC, 8);
    fatbin_entry(&b, SC_FATBIN_PTX, 90, 0x11 | SC_FATBIN_FLAG_COMPRESSED, 16);
    fatbin_close(&b, c);
    put(&b, 0, 8);
    c = fatbin_container(&b);
    fatbin_entry(&b, SC_FATBIN_CUBIN, 100, 0x11 | SC_FATBIN_FLAG_FAMILY_SPECIFIC, 8);
    fatbin_entry(&b, SC_FATBIN_PTX, 100, 0x11 | SC_FATBIN_FLAG_ARCH_SPECIFIC, 0);
    fatbin_close(&b, c);
    return b;
}

/* Where the builder put things, for the hostile tests to corrupt. */
typedef struct elf_layout {
    size_t shoff_at, shnum_at, shstrndx_at;
    size_t sh_at[5];      /* section headers: null, .dynstr, .dynamic, .nv_fatbin, .shstrtab */
    size_t dyn_needed_at; /* the value of the first DT_NEEDED */
    size_t bits;
} elf_layout;

/*
 * A shared object with sections null, .dynstr, .dynamic (DT_NEEDED each of
 * needed, DT_SONAME, DT_RUNPATH, DT_NULL), .nv_fatbin (fatbin, when not
 * NULL) and .shstrtab.
 */
static buf make_elf(int bits, int be, const char *const *needed, size_t n_needed,
                    const char *soname, const char *runpath, const buf *fatbin, elf_layout *lay)
{
    buf b = {0};
    b.be = be;
    elf_layout l = {0};
    l.bits = (size_t)bits;
    unsigned w = bits == 64 ? 8 : 4;
    /* e_ident */
    const unsigned char ident[16] = {0x7f, 'E', 'L', 'F', bits == 64 ? 2 : 1, be ? 2 : 1, 1};
    put_bytes(&b, ident, 16);
    put(&b, 3, 2);                       /* ET_DYN */
    put(&b, bits == 64 ? 62 : 3, 2);     /* x86-64 / i386 */
    put(&b, 1, 4);
    put(&b, 0, w);                       /* entry */
    put(&b, 0, w);                       /* phoff */
    l.shoff_at = b.len;
    put(&b, 0, w);                       /* shoff, patched */
    put(&b, 0, 4);                       /* flags */
    put(&b, bits == 64 ? 64 : 52, 2);    /* ehsize */
    put(&b, 0, 2);
    put(&b, 0, 2);
    put(&b, bits == 64 ? 64 : 40, 2);    /* shentsize */
    l.shnum_at = b.len;
    put(&b, fatbin ? 5 : 4, 2);
    l.shstrndx_at = b.len;
    put(&b, fatbin ? 4 : 3, 2);

    /* .dynstr */
    size_t dynstr_off = b.len;
    put(&b, 0, 1);
    size_t name_off[16], soname_off = 0, runpath_off = 0;
    for (size_t i = 0; i < n_needed; i++) {
        name_off[i] = b.len - dynstr_off;
        put_bytes(&b, needed[i], strlen(needed[i]) + 1);
    }
    if (soname) {
        soname_off = b.len - dynstr_off;
        put_bytes(&b, soname, strlen(soname) + 1);
    }
    if (runpath) {
        runpath_off = b.len - dynstr_off;
        put_bytes(&b, runpath, strlen(runpath) + 1);
    }
    size_t dynstr_size = b.len - dynstr_off;
    align(&b, 8);
    /* .dynamic */
    size_t dyn_off = b.len;
    for (size_t i = 0; i < n_needed; i++) {
        put(&b, 1, w); /* DT_NEEDED */
        if (i == 0)
            l.dyn_needed_at = b.len;
        put(&b, name_off[i], w);
    }
    if (soname) {
        put(&b, 14, w);
        put(&b, soname_off, w);
    }
    if (runpath) {
        put(&b, 29, w);
        put(&b, runpath_off, w);
    }
    put(&b, 0, w);
    put(&b, 0, w);
    size_t dyn_size = b.len - dyn_off;
    /* .nv_fatbin */
    align(&b, 8);
    size_t fat_off = b.len;
    if (fatbin)
        put_bytes(&b, fatbin->p, fatbin->len);
    /* .shstrtab */
    size_t shstr_off = b.len;
    const char names[] = "\0.dynstr\0.dynamic\0.nv_fatbin\0.shstrtab";
    put_bytes(&b, names, sizeof names);
    align(&b, 8);
    size_t shoff = b.len;
    set_at(&b, l.shoff_at, shoff, w);
    struct {
        unsigned name, type;
        size_t off, size, link, entsize;
    } sh[5] = {
        {0, 0, 0, 0, 0, 0},
        {1, 3, dynstr_off, dynstr_size, 0, 0},
        {9, 6, dyn_off, dyn_size, 1, bits == 64 ? 16 : 8},
        {18, 1, fat_off, fatbin ? fatbin->len : 0, 0, 0},
        {29, 3, shstr_off, sizeof names, 0, 0},
    };
    size_t k = 0;
    for (size_t i = 0; i < 5; i++) {
        if (i == 3 && !fatbin)
            continue;
        l.sh_at[k++] = b.len;
        put(&b, sh[i].name, 4);
        put(&b, sh[i].type, 4);
        put(&b, i == 0 ? 0 : 2, w); /* flags: alloc */
        put(&b, 0, w);              /* addr */
        put(&b, sh[i].off, w);
        put(&b, sh[i].size, w);
        put(&b, sh[i].link, 4);
        put(&b, 0, 4);
        put(&b, 8, w);
        put(&b, sh[i].entsize, w);
    }
    if (!fatbin)
        l.sh_at[4] = l.sh_at[3];
    if (lay)
        *lay = l;
    return b;
}

/* Offsets of a section header's sh_offset and sh_size fields. */
static size_t sh_offset_at(const elf_layout *l, size_t i)
{
    return l->sh_at[i] + (l->bits == 64 ? 24 : 16);
}
static size_t sh_size_at(const elf_layout *l, size_t i)
{
    return l->sh_at[i] + (l->bits == 64 ? 32 : 20);
}

static const char *const two_needed[] = {"libcudart.so.12", "libc.so.6"};

/* ---- fatbin.h ------------------------------------------------------------- */

static void test_fatbin_entries_read_back_kind_arch_variant_compression(void)
{
    buf b = sample_fatbin();
    sc_fatbin fb;
    sc_error err;
    CU_ASSERT_EQUAL_FATAL(sc_fatbin_parse(b.p, b.len, "t", &fb, &err), SC_OK);
    CU_ASSERT_EQUAL(fb.containers, 2);
    CU_ASSERT_EQUAL_FATAL(fb.count, 5);
    const char *want[] = {"sm_80", "sm_90a", "compute_90", "sm_100f", "compute_100a"};
    const int compressed[] = {0, 0, 1, 0, 0};
    const unsigned container[] = {0, 0, 0, 1, 1};
    for (size_t i = 0; i < 5; i++) {
        char name[16];
        sc_cuda_code_name(&fb.entries[i].code, name, sizeof name);
        CU_ASSERT_STRING_EQUAL(name, want[i]);
        CU_ASSERT_EQUAL(fb.entries[i].compressed, compressed[i]);
        CU_ASSERT_EQUAL(fb.entries[i].container, container[i]);
    }
    CU_ASSERT_EQUAL(fb.entries[2].uncompressed_size, 48);
    sc_fatbin_free(&fb);
    free(b.p);
}

static void test_fatbin_old_compressed_flag_counts_as_compressed(void)
{
    buf b = {0};
    size_t c = fatbin_container(&b);
    fatbin_entry(&b, SC_FATBIN_CUBIN, 75, 0x11 | SC_FATBIN_FLAG_COMPRESSED_OLD, 8);
    fatbin_close(&b, c);
    sc_fatbin fb;
    CU_ASSERT_EQUAL_FATAL(sc_fatbin_parse(b.p, b.len, "t", &fb, NULL), SC_OK);
    CU_ASSERT_EQUAL_FATAL(fb.count, 1);
    CU_ASSERT_TRUE(fb.entries[0].compressed);
    sc_fatbin_free(&fb);
    free(b.p);
}

static void expect_invalid(const buf *b, const char *needle)
{
    sc_fatbin fb;
    sc_error err;
    CU_ASSERT_EQUAL(sc_fatbin_parse(b->p, b->len, "lib.so", &fb, &err), SC_E_INVALID_ELF);
    CU_ASSERT_PTR_NULL(fb.entries);
    CU_ASSERT_EQUAL(fb.count, 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "lib.so"));
    if (strstr(err.message, needle) == NULL)
        fprintf(stderr, "\nmessage: %s (wanted %s)\n", err.message, needle);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, needle));
}

static void test_fatbin_entry_size_overflowing_is_invalid_elf(void)
{
    buf b = sample_fatbin();
    /* first entry's payload size: 2^64 - 8, which wraps if added */
    set_at(&b, 16 + 8, UINT64_MAX - 7, 8);
    expect_invalid(&b, "runs past its container");
    free(b.p);
}

static void test_fatbin_container_past_section_is_invalid_elf(void)
{
    buf b = sample_fatbin();
    set_at(&b, 8, UINT64_MAX, 8);
    expect_invalid(&b, "runs past the section");
    free(b.p);
}

static void test_fatbin_entry_header_under_64_bytes_is_invalid_elf(void)
{
    buf b = sample_fatbin();
    set_at(&b, 16 + 4, 8, 4);
    expect_invalid(&b, "shorter than 64 bytes");
    free(b.p);
}

static void test_fatbin_bad_magic_and_unknown_kind_are_invalid_elf(void)
{
    buf b = sample_fatbin();
    set_at(&b, 0, 0xBA55ED51u, 4);
    expect_invalid(&b, "no fatbin magic");
    set_at(&b, 0, SC_FATBIN_MAGIC, 4);
    set_at(&b, 16, 3, 2);
    expect_invalid(&b, "unknown kind 3");
    free(b.p);
}

static void test_fatbin_truncated_anywhere_is_invalid_or_shorter_never_past_end(void)
{
    buf b = sample_fatbin();
    /* Every prefix: either invalid, or (at a container boundary) fewer
     * entries; never a read past the bytes given (ASan/valgrind watch). */
    for (size_t n = 0; n < b.len; n++) {
        unsigned char *copy = malloc(n ? n : 1);
        memcpy(copy, b.p, n);
        sc_fatbin fb;
        sc_code rc = sc_fatbin_parse(copy, n, "t", &fb, NULL);
        CU_ASSERT(rc == SC_OK || rc == SC_E_INVALID_ELF);
        if (rc == SC_OK)
            CU_ASSERT(fb.count == 0 || fb.count == 3);
        sc_fatbin_free(&fb);
        free(copy);
    }
    free(b.p);
}

static void test_cuda_code_names_parse_and_order(void)
{
    const char *good[] = {"sm_75", "sm_90a", "sm_100f", "sm_121", "compute_80", "compute_100a"};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        sc_cuda_code c;
        CU_ASSERT_TRUE_FATAL(sc_cuda_code_parse(good[i], &c));
        char name[16];
        CU_ASSERT_EQUAL(sc_cuda_code_name(&c, name, sizeof name), strlen(good[i]));
        CU_ASSERT_STRING_EQUAL(name, good[i]);
    }
    const char *bad[] = {"sm_9", "sm_090", "sm_1000", "sm_90b", "SM_90", "compute90", "sm_90aa", ""};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        CU_ASSERT_FALSE(sc_cuda_code_parse(bad[i], NULL));
    /* cubins before PTX, arch numerically (sm_100 after sm_90), then none, a, f */
    const char *ordered[] = {"sm_80", "sm_90", "sm_90a", "sm_100", "sm_100a", "sm_100f",
                             "compute_75", "compute_120f"};
    for (size_t i = 0; i + 1 < sizeof ordered / sizeof ordered[0]; i++) {
        sc_cuda_code a, b;
        sc_cuda_code_parse(ordered[i], &a);
        sc_cuda_code_parse(ordered[i + 1], &b);
        CU_ASSERT(sc_cuda_code_compare(&a, &b) < 0);
        CU_ASSERT(sc_cuda_code_compare(&b, &a) > 0);
        CU_ASSERT(sc_cuda_code_compare(&a, &a) == 0);
    }
}

/* ---- elf_info.h ----------------------------------------------------------- */

static void check_sample_elf(int bits, int be)
{
    buf fat = sample_fatbin();
    buf b = make_elf(bits, be, two_needed, 2, "libk.so.1", "$ORIGIN/../lib", &fat, NULL);
    sc_elf_info info;
    sc_error err;
    CU_ASSERT_EQUAL_FATAL(sc_elf_info_read_memory(b.p, b.len, "k.so", &info, &err), SC_OK);
    CU_ASSERT_EQUAL(info.bits, bits);
    CU_ASSERT_EQUAL(info.big_endian, be);
    CU_ASSERT_EQUAL(info.type, 3);
    CU_ASSERT_TRUE(info.dynamic);
    CU_ASSERT_STRING_EQUAL(info.soname, "libk.so.1");
    CU_ASSERT_EQUAL_FATAL(info.needed_count, 2);
    CU_ASSERT_STRING_EQUAL(info.needed[0], "libcudart.so.12");
    CU_ASSERT_STRING_EQUAL(info.needed[1], "libc.so.6");
    CU_ASSERT_PTR_NULL(info.rpath);
    CU_ASSERT_STRING_EQUAL(info.runpath, "$ORIGIN/../lib");
    CU_ASSERT_TRUE_FATAL(info.has_fatbin);
    CU_ASSERT_EQUAL_FATAL(info.fatbin_size, fat.len);
    CU_ASSERT_EQUAL(memcmp(b.p + info.fatbin_offset, fat.p, fat.len), 0);
    sc_elf_info_free(&info);
    free(b.p);
    free(fat.p);
}

static void test_elf_64_little_endian_reads_needed_soname_runpath_fatbin(void) { check_sample_elf(64, 0); }
static void test_elf_64_big_endian_reads_alike(void) { check_sample_elf(64, 1); }
static void test_elf_32_little_endian_reads_alike(void) { check_sample_elf(32, 0); }
static void test_elf_32_big_endian_reads_alike(void) { check_sample_elf(32, 1); }

static void expect_invalid_elf(const buf *b, const char *what)
{
    sc_elf_info info;
    sc_error err;
    sc_code rc = sc_elf_info_read_memory(b->p, b->len, "bad.so", &info, &err);
    if (rc != SC_E_INVALID_ELF)
        fprintf(stderr, "\n%s: got %s\n", what, sc_code_name(rc));
    CU_ASSERT_EQUAL(rc, SC_E_INVALID_ELF);
    CU_ASSERT_PTR_NULL(info.needed);
    CU_ASSERT_PTR_NULL(info.soname);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "bad.so"));
    CU_ASSERT_PTR_NULL(strchr(err.message, '\n'));
}

static void test_elf_truncated_header_is_invalid_elf(void)
{
    buf b = make_elf(64, 0, two_needed, 2, NULL, NULL, NULL, NULL);
    for (size_t n = 4; n < 64; n += 7) {
        buf t = {b.p, n, n, 0};
        expect_invalid_elf(&t, "truncated header");
    }
    free(b.p);
}

static void test_elf_not_elf_is_invalid_elf(void)
{
    unsigned char zip[8] = {'P', 'K', 3, 4};
    buf t = {zip, sizeof zip, sizeof zip, 0};
    expect_invalid_elf(&t, "zip");
}

static void test_elf_section_table_past_end_is_invalid_elf(void)
{
    elf_layout l;
    buf b = make_elf(64, 0, two_needed, 2, NULL, NULL, NULL, &l);
    set_at(&b, l.shoff_at, b.len - 8, 8);
    expect_invalid_elf(&b, "shoff past end");
    free(b.p);
}

static void test_elf_section_offset_past_end_is_invalid_elf(void)
{
    elf_layout l;
    buf fat = sample_fatbin();
    buf b = make_elf(64, 0, two_needed, 2, NULL, NULL, &fat, &l);
    set_at(&b, sh_offset_at(&l, 3), b.len + 4096, 8); /* .nv_fatbin */
    expect_invalid_elf(&b, ".nv_fatbin past end");
    free(b.p);
    b = make_elf(32, 1, two_needed, 2, NULL, NULL, &fat, &l);
    set_at(&b, sh_size_at(&l, 2), 0x7ffffff0u, 4); /* .dynamic */
    expect_invalid_elf(&b, ".dynamic past end");
    free(b.p);
    free(fat.p);
}

static void test_elf_two_to_the_32_sections_is_invalid_elf_without_reading_them(void)
{
    /* e_shnum 0: the count is section 0's sh_size, here 2^32 - 1, which a
     * file of a few hundred bytes cannot hold. */
    elf_layout l;
    buf b = make_elf(64, 0, two_needed, 2, NULL, NULL, NULL, &l);
    set_at(&b, l.shnum_at, 0, 2);
    set_at(&b, sh_size_at(&l, 0), 0xffffffffu, 8);
    expect_invalid_elf(&b, "2^32 sections");
    free(b.p);
}

static void test_elf_needed_string_past_its_table_is_invalid_elf(void)
{
    elf_layout l;
    buf b = make_elf(64, 1, two_needed, 2, NULL, NULL, NULL, &l);
    set_at(&b, l.dyn_needed_at, 0x10000, 8);
    expect_invalid_elf(&b, "DT_NEEDED past table");
    sc_elf_info info;
    sc_error err;
    sc_elf_info_read_memory(b.p, b.len, "bad.so", &info, &err);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "DT_NEEDED"));
    free(b.p);
}

static void test_elf_every_truncation_is_clean(void)
{
    buf fat = sample_fatbin();
    buf b = make_elf(32, 0, two_needed, 2, "libx.so.3", NULL, &fat, NULL);
    for (size_t n = 0; n <= b.len; n++) {
        unsigned char *copy = malloc(n ? n : 1);
        memcpy(copy, b.p, n);
        sc_elf_info info;
        sc_code rc = sc_elf_info_read_memory(copy, n, "t", &info, NULL);
        CU_ASSERT(rc == SC_OK || rc == SC_E_INVALID_ELF);
        sc_elf_info_free(&info);
        free(copy);
    }
    free(b.p);
    free(fat.p);
}

/* ---- the library table ---------------------------------------------------- */

static void test_library_table_is_sorted_and_found_by_soname(void)
{
    size_t n = sc_cuda_library_rule_count();
    CU_ASSERT_TRUE_FATAL(n > 10);
    for (size_t i = 0; i + 1 < n; i++)
        CU_ASSERT(strcmp(sc_cuda_library_rule_at(i)->stem, sc_cuda_library_rule_at(i + 1)->stem) < 0);
    CU_ASSERT_PTR_NULL(sc_cuda_library_rule_at(n));
    unsigned major = 0;
    const sc_cuda_library_rule *r = sc_cuda_library_rule_find("libcudart.so.13", &major);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    CU_ASSERT_EQUAL(r->soname_class, SC_CUDA_SONAME_FOLLOWS_CUDA);
    CU_ASSERT_EQUAL(major, 13);
    r = sc_cuda_library_rule_find("libcudart.so.11.0", &major);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    CU_ASSERT_EQUAL(major, 11);
    r = sc_cuda_library_rule_find("libnvrtc-builtins.so.13.0", &major);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    CU_ASSERT_STRING_EQUAL(r->stem, "libnvrtc-builtins.so");
    CU_ASSERT_EQUAL(major, 13);
    r = sc_cuda_library_rule_find("libcufft.so.12", &major);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    CU_ASSERT_EQUAL(r->soname_class, SC_CUDA_SONAME_OWN_MAJOR);
    CU_ASSERT_TRUE(r->device_code_hidden);
    r = sc_cuda_library_rule_find("libcuda.so.1", NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    CU_ASSERT_EQUAL(r->soname_class, SC_CUDA_SONAME_DRIVER);
    CU_ASSERT_PTR_NULL(sc_cuda_library_rule_find("libcudart.so", NULL));
    CU_ASSERT_PTR_NULL(sc_cuda_library_rule_find("libcudart_static.so.13", NULL));
    CU_ASSERT_PTR_NULL(sc_cuda_library_rule_find("libc.so.6", NULL));
    CU_ASSERT_PTR_NULL(sc_cuda_library_rule_find("libcudart.so.1x", NULL));
    /* auditwheel's vendored names */
    r = sc_cuda_library_rule_find("libcudart-d0da41ae.so.11.0", &major);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    CU_ASSERT_STRING_EQUAL(r->stem, "libcudart.so");
    CU_ASSERT_EQUAL(major, 11);
    r = sc_cuda_library_rule_find("libcublasLt-5b3b2fb8.so.12", &major);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    CU_ASSERT_STRING_EQUAL(r->stem, "libcublasLt.so");
    CU_ASSERT_PTR_NULL(sc_cuda_library_rule_find("libcudart-d0da41a.so.12", NULL));
    CU_ASSERT_PTR_NULL(sc_cuda_library_rule_find("libcudart-D0DA41AE.so.12", NULL));
    CU_ASSERT_PTR_NULL(sc_cuda_library_rule_find("libcudart-d0da41aex.so.12", NULL));
}

static void test_soname_major_of_own_major_libraries_is_not_a_cuda_major(void)
{
    /* CUDA 13.0 ships these; none of them says "13". */
    const char *own[] = {"libcurand.so.10", "libcufft.so.12", "libcusparse.so.12",
                         "libcusolver.so.12", "libcudnn.so.9", "libnccl.so.2", "libnvvm.so.4"};
    for (size_t i = 0; i < sizeof own / sizeof own[0]; i++) {
        const sc_cuda_library_rule *r = sc_cuda_library_rule_find(own[i], NULL);
        CU_ASSERT_PTR_NOT_NULL_FATAL(r);
        CU_ASSERT_EQUAL(r->soname_class, SC_CUDA_SONAME_OWN_MAJOR);
    }
}

/* ---- the audit ------------------------------------------------------------ */

static void write_bytes(const char *dir, const char *rel, const buf *b)
{
    char *path = sc_path_join(dir, rel);
    FILE *f = fopen(path, "wb");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fwrite(b->p, 1, b->len, f);
    fclose(f);
    free(path);
}

static void test_audit_of_a_tree_lists_elf_files_codes_and_libraries(void)
{
    char *dir = sc_test_tmpdir();
    buf fat = sample_fatbin();
    const char *needs_runtime[] = {"libcudart.so.13", "libcuda.so.1", "libc.so.6"};
    buf k = make_elf(64, 0, needs_runtime, 3, "libk.so", NULL, &fat, NULL);
    buf rt = make_elf(64, 0, two_needed + 1, 1, "libcudart.so.13", NULL, NULL, NULL);
    buf bad = make_elf(64, 0, two_needed, 2, NULL, NULL, NULL, NULL);
    bad.len = 40; /* truncated */
    sc_test_write(dir, "lib/README", "not ELF\n");
    sc_test_write(dir, "z/empty", "");
    write_bytes(dir, "lib/libk.so", &k);
    write_bytes(dir, "lib/libcudart.so.13", &rt);
    write_bytes(dir, "z/broken.so", &bad);
    char *link = sc_path_join(dir, "lib/libcudart.so");
    CU_ASSERT_EQUAL(symlink("libcudart.so.13", link), 0);
    free(link);

    sc_cuda_binaries r;
    sc_error err;
    CU_ASSERT_EQUAL_FATAL(sc_cuda_binaries_audit(dir, &r, &err), SC_OK);
    CU_ASSERT_EQUAL(r.regular_files, 5);
    CU_ASSERT_EQUAL_FATAL(r.file_count, 3);
    CU_ASSERT_STRING_EQUAL(r.files[0].path, "lib/libcudart.so.13");
    CU_ASSERT_STRING_EQUAL(r.files[1].path, "lib/libk.so");
    CU_ASSERT_STRING_EQUAL(r.files[2].path, "z/broken.so");
    CU_ASSERT_PTR_NOT_NULL(r.files[2].error);
    CU_ASSERT_EQUAL(r.unreadable, 1);
    CU_ASSERT_EQUAL(r.device_code_files, 1);
    CU_ASSERT_EQUAL(r.files[1].fatbin_containers, 2);
    CU_ASSERT_EQUAL(r.files[1].fatbin_entries, 5);
    CU_ASSERT_EQUAL_FATAL(r.code_count, 5);
    const char *want[] = {"sm_80", "sm_90a", "sm_100f", "compute_90", "compute_100a"};
    for (size_t i = 0; i < 5; i++) {
        char name[16];
        sc_cuda_code_name(&r.codes[i].code, name, sizeof name);
        CU_ASSERT_STRING_EQUAL(name, want[i]);
    }
    CU_ASSERT_EQUAL(r.codes[3].compressed, 1);

    const sc_cuda_library *l = sc_cuda_binaries_library(&r, "libcudart.so.13");
    CU_ASSERT_PTR_NOT_NULL_FATAL(l);
    CU_ASSERT_STRING_EQUAL(l->shipped_by, "lib/libcudart.so.13");
    CU_ASSERT_STRING_EQUAL(l->needed_by, "lib/libk.so");
    CU_ASSERT_EQUAL(l->major, 13);
    l = sc_cuda_binaries_library(&r, "libcuda.so.1");
    CU_ASSERT_PTR_NOT_NULL_FATAL(l);
    CU_ASSERT_PTR_NULL(l->shipped_by);
    CU_ASSERT_EQUAL(l->rule->soname_class, SC_CUDA_SONAME_DRIVER);
    l = sc_cuda_binaries_library(&r, "libc.so.6");
    CU_ASSERT_PTR_NOT_NULL_FATAL(l);
    CU_ASSERT_PTR_NULL(l->rule);
    CU_ASSERT_EQUAL(l->needed_count, 2);
    unsigned majors[4];
    CU_ASSERT_EQUAL(sc_cuda_binaries_majors(&r, majors, 4), 1);
    CU_ASSERT_EQUAL(majors[0], 13);
    CU_ASSERT_TRUE(sc_cuda_binaries_uses_cuda(&r));

    sc_json *j = NULL;
    CU_ASSERT_EQUAL_FATAL(sc_cuda_binaries_to_json(&r, dir, &j, &err), SC_OK);
    CU_ASSERT_EQUAL(sc_json_get(j, "cubins")->length, 3);
    CU_ASSERT_EQUAL(sc_json_get(j, "ptx")->length, 2);
    sc_json_free(j);
    sc_cuda_binaries_free(&r);
    sc_test_rmtree(dir);
    free(dir);
    free(k.p);
    free(rt.p);
    free(bad.p);
    free(fat.p);
}

static void test_audit_report_does_not_depend_on_jobs(void)
{
    char *dir = sc_test_tmpdir();
    buf fat = sample_fatbin();
    char rel[64];
    for (int i = 0; i < 150; i++) { /* more files than the queue holds */
        const char *needs[] = {i % 3 ? "libcudart.so.13" : "libcudart.so.12", "libc.so.6"};
        buf k = make_elf(i % 2 ? 64 : 32, i % 5 == 0, needs, 2, NULL, NULL, i % 4 ? &fat : NULL,
                         NULL);
        if (i % 7 == 0)
            k.len = 30; /* unreadable */
        snprintf(rel, sizeof rel, "d%d/x/lib%03d.so", i % 9, i);
        sc_test_write(dir, rel, "");
        write_bytes(dir, rel, &k);
        free(k.p);
    }
    char *docs[3];
    const unsigned jobs[3] = {1, 2, 8};
    for (int i = 0; i < 3; i++) {
        sc_cuda_binaries r;
        sc_json *j = NULL;
        size_t len;
        CU_ASSERT_EQUAL_FATAL(sc_cuda_binaries_audit_jobs(dir, jobs[i], &r, NULL), SC_OK);
        CU_ASSERT_EQUAL(r.file_count, 150);
        CU_ASSERT_EQUAL(r.unreadable, 22);
        unsigned majors[4];
        CU_ASSERT_EQUAL(sc_cuda_binaries_majors(&r, majors, 4), 2);
        CU_ASSERT_EQUAL_FATAL(sc_cuda_binaries_to_json(&r, "root", &j, NULL), SC_OK);
        CU_ASSERT_EQUAL_FATAL(sc_json_write(j, &docs[i], &len, NULL), SC_OK);
        sc_json_free(j);
        sc_cuda_binaries_free(&r);
    }
    CU_ASSERT_STRING_EQUAL(docs[0], docs[1]);
    CU_ASSERT_STRING_EQUAL(docs[0], docs[2]);
    for (int i = 0; i < 3; i++)
        free(docs[i]);
    sc_test_rmtree(dir);
    free(dir);
    free(fat.p);
}

static void test_audit_of_a_cpu_tree_uses_no_cuda(void)
{
    char *dir = sc_test_tmpdir();
    buf b = make_elf(64, 0, two_needed + 1, 1, "libm.so.6", NULL, NULL, NULL);
    write_bytes(dir, "libm.so.6", &b);
    sc_cuda_binaries r;
    CU_ASSERT_EQUAL_FATAL(sc_cuda_binaries_audit(dir, &r, NULL), SC_OK);
    CU_ASSERT_EQUAL(r.file_count, 1);
    CU_ASSERT_FALSE(sc_cuda_binaries_uses_cuda(&r));
    CU_ASSERT_EQUAL(sc_cuda_binaries_majors(&r, NULL, 0), 0);
    sc_cuda_binaries_free(&r);
    sc_test_rmtree(dir);
    free(dir);
    free(b.p);
}

static void test_audit_of_a_missing_root_is_io_error(void)
{
    sc_cuda_binaries r;
    sc_error err;
    CU_ASSERT_EQUAL(sc_cuda_binaries_audit("/nonexistent/scrollcase-audit", &r, &err), SC_E_IO);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "/nonexistent/scrollcase-audit"));
    CU_ASSERT_EQUAL(r.file_count, 0);
}

void register_cuda_binaries_tests(void)
{
    CU_pSuite s = CU_add_suite("cuda_binaries", NULL, NULL);
    if (s == NULL)
        CU_FAIL_FATAL("CU_add_suite failed");
    SC_ADD_TEST(s, test_fatbin_entries_read_back_kind_arch_variant_compression);
    SC_ADD_TEST(s, test_fatbin_old_compressed_flag_counts_as_compressed);
    SC_ADD_TEST(s, test_fatbin_entry_size_overflowing_is_invalid_elf);
    SC_ADD_TEST(s, test_fatbin_container_past_section_is_invalid_elf);
    SC_ADD_TEST(s, test_fatbin_entry_header_under_64_bytes_is_invalid_elf);
    SC_ADD_TEST(s, test_fatbin_bad_magic_and_unknown_kind_are_invalid_elf);
    SC_ADD_TEST(s, test_fatbin_truncated_anywhere_is_invalid_or_shorter_never_past_end);
    SC_ADD_TEST(s, test_cuda_code_names_parse_and_order);
    SC_ADD_TEST(s, test_elf_64_little_endian_reads_needed_soname_runpath_fatbin);
    SC_ADD_TEST(s, test_elf_64_big_endian_reads_alike);
    SC_ADD_TEST(s, test_elf_32_little_endian_reads_alike);
    SC_ADD_TEST(s, test_elf_32_big_endian_reads_alike);
    SC_ADD_TEST(s, test_elf_truncated_header_is_invalid_elf);
    SC_ADD_TEST(s, test_elf_not_elf_is_invalid_elf);
    SC_ADD_TEST(s, test_elf_section_table_past_end_is_invalid_elf);
    SC_ADD_TEST(s, test_elf_section_offset_past_end_is_invalid_elf);
    SC_ADD_TEST(s, test_elf_two_to_the_32_sections_is_invalid_elf_without_reading_them);
    SC_ADD_TEST(s, test_elf_needed_string_past_its_table_is_invalid_elf);
    SC_ADD_TEST(s, test_elf_every_truncation_is_clean);
    SC_ADD_TEST(s, test_library_table_is_sorted_and_found_by_soname);
    SC_ADD_TEST(s, test_soname_major_of_own_major_libraries_is_not_a_cuda_major);
    SC_ADD_TEST(s, test_audit_of_a_tree_lists_elf_files_codes_and_libraries);
    SC_ADD_TEST(s, test_audit_report_does_not_depend_on_jobs);
    SC_ADD_TEST(s, test_audit_of_a_cpu_tree_uses_no_cuda);
    SC_ADD_TEST(s, test_audit_of_a_missing_root_is_io_error);
}
