/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_archive_read.c — reading, inspecting and extracting archives
 * (archive_read.h, docs/format-v3.md 15.2).
 *
 * Archives are written by fixtures/zipfmt.py (every field overridable),
 * run through /usr/bin/python3 into a temporary directory; each test names
 * the rule it checks.
 */
#include "harness.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "scrollcase/archive_read.h"

#ifndef SC_SOURCE_DIR
#error "SC_SOURCE_DIR must be defined for the unit tests"
#endif

/* ---- helpers --------------------------------------------------------------- */

static const char PRELUDE[] =
    "import sys, zlib\n"
    "sys.path.insert(0, sys.argv[2] + '/fixtures')\n"
    "import zipfmt as zf\n"
    "from zipfmt import LocalSpec as E\n"
    "def F(n, d=b'data\\n', **k): return E(n, d, **k)\n"
    "def L(n, t, **k): return E(n, t.encode() if isinstance(t, str) else t, mode=zf.MODE_LINK, **k)\n"
    "def D(n, **k): return E(n, b'', mode=0o40755, **k)\n"
    "def A(*e, **k): return zf.assemble(list(e), **k)\n"
    "data = None\n";

static const char EPILOGUE[] =
    "\nif data is not None:\n"
    "    open(sys.argv[1], 'wb').write(data)\n";

/* Run the Python body (which sets `data` or writes sys.argv[1] itself) to
 * write dir/name; returns the path (caller frees) or NULL. */
static char *mkzip(const char *dir, const char *name, const char *body)
{
    size_t plen = strlen(dir) + strlen(name) + 2;
    char *path = malloc(plen);
    size_t slen = sizeof PRELUDE + strlen(body) + sizeof EPILOGUE;
    char *script = malloc(slen);
    if (path == NULL || script == NULL) {
        free(path);
        free(script);
        return NULL;
    }
    snprintf(path, plen, "%s/%s", dir, name);
    snprintf(script, slen, "%s%s%s", PRELUDE, body, EPILOGUE);
    pid_t pid = fork();
    if (pid == 0) {
        execl("/usr/bin/python3", "python3", "-c", script, path, SC_SOURCE_DIR, (char *)NULL);
        _exit(127);
    }
    int status = 0;
    int ok = pid > 0 && waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
             WEXITSTATUS(status) == 0;
    free(script);
    if (!ok) {
        fprintf(stderr, "\n  python failed to build %s:\n%s\n", name, body);
        free(path);
        return NULL;
    }
    return path;
}

/* Build an archive from body and open it; returns the code. */
static sc_code open_body(const char *body, const sc_zip_limits *lim, sc_zip **z, sc_error *err)
{
    char *dir = sc_test_tmpdir();
    char *p = mkzip(dir, "t.zip", body);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    sc_code rc = sc_zip_open(p, lim, z, err);
    free(p);
    sc_test_rmtree(dir);
    free(dir);
    return rc;
}

static void expect_open_at(const char *body, sc_code want, const char *needle, int line)
{
    sc_zip *z = NULL;
    sc_error err;
    sc_code rc = open_body(body, NULL, &z, &err);
    int ok = rc == want && err.code == want && (needle == NULL || strstr(err.message, needle)) &&
             strchr(err.message, '\n') == NULL && (rc == SC_OK) == (z != NULL);
    if (!ok)
        fprintf(stderr, "\n  line %d: got %s \"%s\", wanted %s \"%s\"\n  for: %s\n", line,
                sc_code_name(rc), err.message, sc_code_name(want), needle ? needle : "", body);
    CU_ASSERT_TRUE(ok);
    sc_zip_close(z);
}

#define EXPECT_OPEN(body, code, needle) expect_open_at((body), (code), (needle), __LINE__)

/* Open body, extract into a fresh directory; returns the extraction code
 * (opening must succeed).  *dirp receives the directory (caller removes). */
static sc_code extract_body(const char *body, char **dirp, sc_error *err)
{
    char *dir = sc_test_tmpdir();
    char *p = mkzip(dir, "t.zip", body);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    char out[4096];
    snprintf(out, sizeof out, "%s/out", dir);
    CU_ASSERT_EQUAL_FATAL(mkdir(out, 0700), 0);
    sc_zip *z = NULL;
    sc_code rc = sc_zip_open(p, NULL, &z, err);
    if (rc != SC_OK)
        fprintf(stderr, "\n  open failed: %s\n", err->message);
    CU_ASSERT_EQUAL_FATAL(rc, SC_OK);
    rc = sc_zip_extract(z, out, err);
    sc_zip_close(z);
    free(p);
    *dirp = dir;
    return rc;
}

static off_t size_of(const char *dir, const char *rel)
{
    char p[4096];
    struct stat st;
    snprintf(p, sizeof p, "%s/%s", dir, rel);
    return lstat(p, &st) == 0 ? st.st_size : -1;
}

/* ---- accepted archives --------------------------------------------------------- */

static void test_missing_archive_is_archive_not_found(void)
{
    sc_zip *z = (sc_zip *)1;
    sc_error err;
    char *dir = sc_test_tmpdir();
    char p[4096];
    snprintf(p, sizeof p, "%s/none.zip", dir);
    SC_EXPECT_CODE(sc_zip_open(p, NULL, &z, &err), SC_E_ARCHIVE_NOT_FOUND, &err);
    CU_ASSERT_PTR_NULL(z);
    sc_test_rmtree(dir);
    free(dir);
}

static void test_stored_and_deflated_entries_are_read(void)
{
    sc_zip *z = NULL;
    sc_error err;
    sc_code rc = open_body("data = A(F('a.txt', b'hello'), E('b/c.txt', b'x' * 100000, method=8))",
                           NULL, &z, &err);
    SC_EXPECT_CODE(rc, SC_OK, &err);
    if (rc != SC_OK)
        return;
    CU_ASSERT_EQUAL(sc_zip_count(z), 2);
    const sc_zip_entry *a = sc_zip_find(z, "a.txt"), *b = sc_zip_find(z, "b/c.txt");
    CU_ASSERT_PTR_NOT_NULL_FATAL(a);
    CU_ASSERT_PTR_NOT_NULL_FATAL(b);
    CU_ASSERT_EQUAL(a->method, 0);
    CU_ASSERT_EQUAL(b->method, 8);
    CU_ASSERT_EQUAL(b->size, 100000);
    CU_ASSERT_TRUE(b->compressed_size < 1000);
    CU_ASSERT_EQUAL(a->local_offset, 0);
    CU_ASSERT_EQUAL(a->data_offset, 30 + 5);
    char *bytes = NULL;
    size_t len = 0;
    SC_EXPECT_CODE(sc_zip_read(z, a, 100, &bytes, &len, &err), SC_OK, &err);
    CU_ASSERT_EQUAL(len, 5);
    CU_ASSERT_STRING_EQUAL(bytes, "hello");
    free(bytes);
    SC_EXPECT_CODE(sc_zip_read(z, b, 100000, &bytes, &len, &err), SC_OK, &err);
    CU_ASSERT_EQUAL(len, 100000);
    CU_ASSERT_TRUE(bytes != NULL && bytes[0] == 'x' && bytes[99999] == 'x' && bytes[100000] == 0);
    free(bytes);
    sc_zip_close(z);
}

static void test_data_descriptors_are_accepted(void)
{
    EXPECT_OPEN("data = A(F('a', b'hello', descriptor=True), "
                "E('b', b'world', method=8, descriptor=zf.data_descriptor(zlib.crc32(b'world'), "
                "len(zf.deflate_raw(b'world')), 5, signature=None)), "
                "F('c', b'zip64', descriptor=zf.data_descriptor(zlib.crc32(b'zip64'), 5, 5, zip64=True)))",
                SC_OK, NULL);
}

static void test_descriptor_that_lies_is_invalid(void)
{
    EXPECT_OPEN("data = A(F('a', b'hello', descriptor=zf.data_descriptor(1, 5, 5)))",
                SC_E_INVALID_ARCHIVE, "data descriptor");
}

static void test_extra_fields_are_accepted(void)
{
    EXPECT_OPEN("x = zf.extra_field(0x5455, b'\\x01\\0\\0\\0\\0') + zf.extra_field(0x7875, b'\\x01\\x04\\0\\0\\0\\0\\x04\\0\\0\\0\\0')\n"
                "data = A(F('a', local={'extra': x}, central={'extra': x}))",
                SC_OK, NULL);
}

static void test_malformed_extra_field_is_invalid(void)
{
    EXPECT_OPEN("data = A(F('a', central={'extra': b'\\x55\\x54\\x09\\x00\\x01'}))",
                SC_E_INVALID_ARCHIVE, "extra");
}

static void test_any_order_is_accepted_and_kept(void)
{
    sc_zip *z = NULL;
    sc_error err;
    sc_code rc = open_body("data = A(F('b'), F('a'), F('c/d'), order=(2, 0, 1))", NULL, &z, &err);
    SC_EXPECT_CODE(rc, SC_OK, &err);
    if (rc != SC_OK)
        return;
    CU_ASSERT_EQUAL(sc_zip_count(z), 3);
    CU_ASSERT_STRING_EQUAL(sc_zip_at(z, 0)->path, "c/d");
    CU_ASSERT_STRING_EQUAL(sc_zip_at(z, 1)->path, "b");
    CU_ASSERT_STRING_EQUAL(sc_zip_at(z, 2)->path, "a");
    CU_ASSERT_PTR_NULL(sc_zip_at(z, 3));
    sc_zip_close(z);
}

static void test_find_is_an_exact_lookup(void)
{
    sc_zip *z = NULL;
    sc_error err;
    sc_code rc = open_body("data = A(F('Dir/file.txt'), D('Dir/'))", NULL, &z, &err);
    SC_EXPECT_CODE(rc, SC_OK, &err);
    if (rc != SC_OK)
        return;
    CU_ASSERT_PTR_NOT_NULL(sc_zip_find(z, "Dir/file.txt"));
    CU_ASSERT_PTR_NULL(sc_zip_find(z, "dir/file.txt"));
    CU_ASSERT_PTR_NULL(sc_zip_find(z, "Dir/file"));
    CU_ASSERT_PTR_NULL(sc_zip_find(z, "Dir/"));
    const sc_zip_entry *d = sc_zip_find(z, "Dir");
    CU_ASSERT_TRUE(d != NULL && d->type == SC_ZIP_DIR && d->path_len == 3);
    sc_zip_close(z);
}

static void test_directory_entries_lose_one_trailing_slash(void)
{
    sc_zip *z = NULL;
    sc_error err;
    sc_code rc = open_body("data = A(E('d/', b''), E('e', b'', mode=0o40700))", NULL, &z, &err);
    SC_EXPECT_CODE(rc, SC_OK, &err);
    if (rc != SC_OK)
        return;
    CU_ASSERT_EQUAL(sc_zip_at(z, 0)->type, SC_ZIP_DIR);
    CU_ASSERT_STRING_EQUAL(sc_zip_at(z, 0)->path, "d");
    CU_ASSERT_EQUAL(sc_zip_at(z, 1)->type, SC_ZIP_DIR);
    sc_zip_close(z);
}

static void test_mode_keeps_only_permission_bits(void)
{
    sc_zip *z = NULL;
    sc_error err;
    sc_code rc = open_body("data = A(F('s', mode=0o107755), F('z', mode=0))", NULL, &z, &err);
    SC_EXPECT_CODE(rc, SC_OK, &err);
    if (rc != SC_OK)
        return;
    CU_ASSERT_EQUAL(sc_zip_at(z, 0)->mode, 0755);
    CU_ASSERT_EQUAL(sc_zip_at(z, 0)->type, SC_ZIP_FILE);
    CU_ASSERT_EQUAL(sc_zip_at(z, 1)->mode, 0);
    sc_zip_close(z);
}

static void test_zip64_records_and_extra_fields_are_read(void)
{
    sc_zip *z = NULL;
    sc_error err;
    sc_code rc = open_body(
        "s = E('a', b'hello hello', method=8)\n"
        "f = s.fields()\n"
        "x = zf.zip64_extra(f['usize'], f['csize'])\n"
        "s.local = {'usize': zf.MAX32, 'csize': zf.MAX32, 'extra': x}\n"
        "s.central = {'usize': zf.MAX32, 'csize': zf.MAX32, 'offset': zf.MAX32,\n"
        "             'extra': zf.zip64_extra(f['usize'], f['csize'], 0)}\n"
        "data = A(s, F('b'), zip64=True)",
        NULL, &z, &err);
    SC_EXPECT_CODE(rc, SC_OK, &err);
    if (rc != SC_OK)
        return;
    CU_ASSERT_EQUAL(sc_zip_count(z), 2);
    const sc_zip_entry *a = sc_zip_at(z, 0);
    CU_ASSERT_EQUAL(a->size, 11);
    CU_ASSERT_EQUAL(a->local_offset, 0);
    char *bytes = NULL;
    size_t len;
    SC_EXPECT_CODE(sc_zip_read(z, a, 64, &bytes, &len, &err), SC_OK, &err);
    CU_ASSERT_TRUE(bytes != NULL && strcmp(bytes, "hello hello") == 0);
    free(bytes);
    sc_zip_close(z);
}

static void test_zip64_records_that_lie_are_invalid(void)
{
    EXPECT_OPEN("data = A(F('a'), zip64=True, eocd_fields={'entries': 2, 'entries_disk': zf.MAX16})",
                SC_E_INVALID_ARCHIVE, "disagree");
    EXPECT_OPEN("data = A(F('a'), zip64=True, eocd_fields={'cd_size': 1})",
                SC_E_INVALID_ARCHIVE, "disagree");
    EXPECT_OPEN("data = A(F('a'), zip64=True, eocd_fields={'cd_offset': 5})",
                SC_E_INVALID_ARCHIVE, "disagree");
    EXPECT_OPEN("data = A(F('a'), zip64=True, locator_fields={'eocd64_offset': 1})",
                SC_E_INVALID_ARCHIVE, NULL);
    EXPECT_OPEN("data = A(F('a'), zip64=True, zip64_fields={'cd_offset': 3})",
                SC_E_INVALID_ARCHIVE, "central directory");
    EXPECT_OPEN("data = A(F('a', central={'csize': zf.MAX32}))", SC_E_INVALID_ARCHIVE, "ZIP64");
}

/* A >4 GiB sparse archive: the entry's local header lies past 4 GiB. */
static void test_zip64_offsets_past_4_gib_are_read(void)
{
    if (getenv("SC_SKIP_LARGE_TESTS") != NULL) {
        fprintf(stderr, "\n  skipped: SC_SKIP_LARGE_TESTS is set (sparse 5 GiB archive)\n");
        return;
    }
    char *dir = sc_test_tmpdir();
    char *p = mkzip(dir, "big.zip",
                    "off = 5 << 30\n"
                    "body = b'far away'\n"
                    "lh = zf.local_header('far.txt', crc=zlib.crc32(body), csize=len(body), usize=len(body))\n"
                    "cd = zf.central_header('far.txt', version=45, crc=zlib.crc32(body), csize=len(body),\n"
                    "                       usize=len(body), offset=zf.MAX32, extra=zf.zip64_extra(offset=off))\n"
                    "cdo = off + len(lh) + len(body)\n"
                    "e64 = cdo + len(cd)\n"
                    "tail = cd + zf.zip64_eocd(entries=1, cd_size=len(cd), cd_offset=cdo)\n"
                    "tail += zf.zip64_locator(eocd64_offset=e64)\n"
                    "tail += zf.eocd(entries=zf.MAX16, cd_size=zf.MAX32, cd_offset=zf.MAX32)\n"
                    "with open(sys.argv[1], 'wb') as f:\n"
                    "    f.seek(off)\n"
                    "    f.write(lh + body + tail)\n");
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    sc_zip *z = NULL;
    sc_error err;
    SC_EXPECT_CODE(sc_zip_open(p, NULL, &z, &err), SC_OK, &err);
    if (z != NULL) {
        const sc_zip_entry *e = sc_zip_find(z, "far.txt");
        CU_ASSERT_TRUE(e != NULL && e->local_offset == ((uint64_t)5 << 30));
        char *bytes = NULL;
        size_t len;
        SC_EXPECT_CODE(sc_zip_read(z, e, 100, &bytes, &len, &err), SC_OK, &err);
        CU_ASSERT_TRUE(bytes != NULL && strcmp(bytes, "far away") == 0);
        free(bytes);
        sc_zip_close(z);
    }
    free(p);
    sc_test_rmtree(dir);
    free(dir);
}

static void test_empty_archive_is_accepted(void)
{
    EXPECT_OPEN("data = A()", SC_OK, NULL);
}

/* ---- refusals: structure -------------------------------------------------------- */

static void test_not_a_zip_is_invalid_archive(void)
{
    EXPECT_OPEN("data = b''", SC_E_INVALID_ARCHIVE, "not a ZIP");
    EXPECT_OPEN("data = b'just text, no archive here\\n'", SC_E_INVALID_ARCHIVE, "not a ZIP");
    EXPECT_OPEN("data = A(F('a'))[:-22]", SC_E_INVALID_ARCHIVE, "end of central directory");
    EXPECT_OPEN("data = A(F('a')) + b'junk'", SC_E_INVALID_ARCHIVE, NULL);
}

static void test_truncated_archive_is_invalid(void)
{
    EXPECT_OPEN("d = A(F('a'), F('b'))\ndata = d[:len(d) // 2]", SC_E_INVALID_ARCHIVE, NULL);
    EXPECT_OPEN("data = A(F('a'))[:-3]", SC_E_INVALID_ARCHIVE, NULL);
}

static void test_end_record_that_lies_is_invalid(void)
{
    EXPECT_OPEN("data = A(F('a'), F('b'), eocd_fields={'entries': 3, 'entries_disk': 3})",
                SC_E_INVALID_ARCHIVE, NULL);
    EXPECT_OPEN("data = A(F('a'), F('b'), eocd_fields={'entries': 1, 'entries_disk': 1})",
                SC_E_INVALID_ARCHIVE, "more records");
    EXPECT_OPEN("data = A(F('a'), eocd_fields={'cd_offset': 1 << 30})", SC_E_INVALID_ARCHIVE,
                "central directory");
    EXPECT_OPEN("data = A(F('a'), eocd_fields={'cd_size': 10})", SC_E_INVALID_ARCHIVE, NULL);
    EXPECT_OPEN("d, lay = zf.assemble_layout([F('a')])\n"
                "data = d[:lay.eocd_offset] + b'\\0' * 4 + d[lay.eocd_offset:]",
                SC_E_INVALID_ARCHIVE, "central directory is not where");
    EXPECT_OPEN("data = A(F('a'), eocd_fields={'disk': 1})", SC_E_INVALID_ARCHIVE, "multi-disk");
    EXPECT_OPEN("data = A(F('a', central={'disk_start': 1}))", SC_E_INVALID_ARCHIVE, "another disk");
    /* A count that cannot fit is refused before anything is allocated. */
    EXPECT_OPEN("data = A(F('a'), zip64=True, zip64_fields={'entries': 1 << 40, 'entries_disk': 1 << 40})",
                SC_E_INVALID_ARCHIVE, "more entries than");
    EXPECT_OPEN("data = A(F('a'), prefix=b'#!/bin/sh\\n', eocd_fields={'cd_offset': 0})",
                SC_E_INVALID_ARCHIVE, NULL);
}

static void test_local_header_must_agree_with_central_record(void)
{
    EXPECT_OPEN("data = A(F('a', local={'signature': 0x04034b51}))", SC_E_INVALID_ARCHIVE,
                "no local header");
    EXPECT_OPEN("d = A(F('ab'))\ni = d.index(b'ab')\ndata = d[:i] + b'ac' + d[i + 2:]",
                SC_E_INVALID_ARCHIVE, "name");
    EXPECT_OPEN("data = A(F('a', local={'crc': 7}))", SC_E_INVALID_ARCHIVE, "CRC or sizes");
    EXPECT_OPEN("data = A(F('a', local={'usize': 4}))", SC_E_INVALID_ARCHIVE, "CRC or sizes");
    EXPECT_OPEN("data = A(E('a', b'hello', method=8, local={'method': 0}))",
                SC_E_INVALID_ARCHIVE, "method");
    EXPECT_OPEN("data = A(F('a', central={'offset': 10000}))", SC_E_INVALID_ARCHIVE, "offset");
    EXPECT_OPEN("data = A(F('a', local={'csize': 500, 'usize': 500}, central={'csize': 500, 'usize': 500}))",
                SC_E_INVALID_ARCHIVE, "central directory");
}

static void test_local_headers_of_many_entries_are_each_checked(void)
{
    /* Hundreds of small entries: their local headers are read through one
     * window of the file at a time, which grows while they follow each other;
     * a disagreement deep in the run, after a big entry, or in an order that
     * jumps back is still found, as is a clean archive in any order. */
    static const char MANY[] =
        "es = [F('d%%03d/f%%04d.py' %% (i // 100, i), (b'x = %%d\\n' %% i) * (i %% 40 + 1)"
        "%s) for i in range(700)]\n"
        "es.insert(350, F('big.bin', bytes(200000)))\n"
        "data = A(*es%s)";
    char body[1024];
    snprintf(body, sizeof body, MANY, "", "");
    EXPECT_OPEN(body, SC_OK, NULL);
    snprintf(body, sizeof body, MANY, ", **({'local': {'crc': 7}} if i == 640 else {})", "");
    EXPECT_OPEN(body, SC_E_INVALID_ARCHIVE, "d006/f0640.py\": the local header's CRC or sizes");
    snprintf(body, sizeof body, MANY, ", **({'local': {'crc': 7}} if i == 5 else {})",
             ", order=tuple(range(700, -1, -1))");
    EXPECT_OPEN(body, SC_E_INVALID_ARCHIVE, "d000/f0005.py\": the local header's CRC or sizes");
    snprintf(body, sizeof body, MANY, "", ", order=tuple(range(0, 701, 2)) + tuple(range(1, 701, 2))");
    EXPECT_OPEN(body, SC_OK, NULL);
}

static void test_overlapping_entries_are_invalid(void)
{
    EXPECT_OPEN("data = A(F('a'), duplicate=(0,))", SC_E_INVALID_ARCHIVE, "overlaps");
    EXPECT_OPEN("inner = zf.local_header('b', crc=zlib.crc32(b'data\\n'), csize=5, usize=5) + b'data\\n'\n"
                "d, lay = zf.assemble_layout([F('a', inner)])\n"
                "cd = d[lay.cd_offset:lay.cd_offset + lay.cd_size] + zf.central_header('b', "
                "crc=zlib.crc32(b'data\\n'), csize=5, usize=5, offset=31)\n"
                "data = d[:lay.cd_offset] + cd + zf.eocd(entries=2, cd_size=len(cd), cd_offset=lay.cd_offset)",
                SC_E_INVALID_ARCHIVE, "overlaps");
}

static void test_only_stored_and_deflate_are_supported(void)
{
    EXPECT_OPEN("data = A(F('a', local={'method': 12}, central={'method': 12}))",
                SC_E_INVALID_ARCHIVE, "method 12");
}

static void test_stored_sizes_must_be_equal(void)
{
    EXPECT_OPEN("data = A(F('a', b'hello!', local={'usize': 5}, central={'usize': 5}))",
                SC_E_INVALID_ARCHIVE, "stored");
}

static void test_directory_with_data_is_invalid(void)
{
    EXPECT_OPEN("data = A(E('d/', b'xyz'))", SC_E_INVALID_ARCHIVE, "directory");
}

/* ---- refusals: entries -------------------------------------------------------------- */

static void test_encryption_bits_are_refused(void)
{
    EXPECT_OPEN("data = A(F('a', local={'flags': 0x801}, central={'flags': 0x801}))",
                SC_E_ENCRYPTED_ENTRY, "encrypted");
    EXPECT_OPEN("data = A(F('a', local={'flags': 0x841}, central={'flags': 0x841}))",
                SC_E_ENCRYPTED_ENTRY, "encrypted");
    EXPECT_OPEN("data = A(F('a', local={'flags': 0x840}, central={'flags': 0x840}))",
                SC_E_ENCRYPTED_ENTRY, "encrypted");
}

static void test_unsafe_names_are_refused(void)
{
    static const char *const names[] = {
        "'../x'", "'a/../../x'", "'a/../b'", "'/x'", "'C:/x'", "'c:x'", "'a\\\\b'",
        "'a/./b'", "'./a'", "'a//b'", "''", "'/'", "'a//'", "b'a\\0b'", "b'\\xff'",
        "b'\\xc0\\xaf'", "b'\\xed\\xa0\\x80'", NULL};
    for (size_t i = 0; names[i] != NULL; i++) {
        char body[256];
        snprintf(body, sizeof body, "data = A(F(%s))", names[i]);
        EXPECT_OPEN(body, SC_E_UNSAFE_PATH, "entry name");
    }
}

/* SC_ZIP_ACCEPT_DOT_PREFIX (package readers): leading "./" dropped, a bare
 * "./" entry left out, every other rule unchanged. */
static sc_code open_dot(const char *body, sc_zip **z, sc_error *err)
{
    char *dir = sc_test_tmpdir();
    char *p = mkzip(dir, "t.zip", body);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    sc_code rc = sc_zip_open_flags(p, NULL, SC_ZIP_ACCEPT_DOT_PREFIX, z, err);
    free(p);
    sc_test_rmtree(dir);
    free(dir);
    return rc;
}

static void test_dot_prefix_is_dropped_only_when_asked(void)
{
    sc_zip *z = NULL;
    sc_error err;
    SC_EXPECT_CODE(open_dot("data = A(D('./'), D('./pkg/'), F('./pkg/a.py'), F('././b'))", &z,
                            &err),
                   SC_OK, &err);
    CU_ASSERT_EQUAL(sc_zip_count(z), 3);
    CU_ASSERT_PTR_NOT_NULL(sc_zip_find(z, "pkg/a.py"));
    CU_ASSERT_PTR_NOT_NULL(sc_zip_find(z, "b"));
    CU_ASSERT_PTR_NULL(sc_zip_find(z, "./pkg/a.py"));
    sc_zip_close(z);
    z = NULL;
    SC_EXPECT_CODE(open_dot("data = A(F('./../x'))", &z, &err), SC_E_UNSAFE_PATH, &err);
    SC_EXPECT_CODE(open_dot("data = A(F('./a/./b'))", &z, &err), SC_E_UNSAFE_PATH, &err);
    SC_EXPECT_CODE(open_dot("data = A(F('./a'), F('a'))", &z, &err), SC_E_ENTRY_COLLISION, &err);
    CU_ASSERT_PTR_NULL(z);
    EXPECT_OPEN("data = A(F('./a'))", SC_E_UNSAFE_PATH, "entry name"); /* not asked */
}

static void test_non_ascii_name_needs_the_utf8_flag(void)
{
    EXPECT_OPEN("data = A(F('caf\\u00e9', local={'flags': 0}, central={'flags': 0}))",
                SC_E_UNSAFE_PATH, "bit 11");
    EXPECT_OPEN("data = A(F('caf\\u00e9'))", SC_OK, NULL);
    EXPECT_OPEN("data = A(F('plain', local={'flags': 0}, central={'flags': 0}))", SC_OK, NULL);
}

static void test_special_types_are_refused(void)
{
    static const char *const modes[] = {"0o010644", "0o020644", "0o060644", "0o140644",
                                        "0o170644", NULL};
    for (size_t i = 0; modes[i] != NULL; i++) {
        char body[128];
        snprintf(body, sizeof body, "data = A(F('x', mode=%s))", modes[i]);
        EXPECT_OPEN(body, SC_E_SPECIAL_ENTRY, "special");
    }
}

static void test_link_target_over_1024_bytes_is_refused(void)
{
    EXPECT_OPEN("data = A(F('f'), L('l', './' + '/' * 1022 + 'f'))", SC_E_LINK_ENTRY, "1024");
    EXPECT_OPEN("data = A(F('f'), L('l', './' + '/' * 1021 + 'f'))", SC_OK, NULL);
    EXPECT_OPEN("data = A(F('a/' * 511 + 'f'), L('l', 'a/' * 511 + 'f'))", SC_OK, NULL);
}

static void test_link_target_must_be_relative_text(void)
{
    EXPECT_OPEN("data = A(F('f'), L('l', ''))", SC_E_LINK_ENTRY, "empty");
    EXPECT_OPEN("data = A(F('f'), L('l', '/f'))", SC_E_LINK_ENTRY, "absolute");
    EXPECT_OPEN("data = A(F('f'), L('l', 'C:f'))", SC_E_LINK_ENTRY, "drive");
    EXPECT_OPEN("data = A(F('f'), L('l', '..\\\\f'))", SC_E_LINK_ENTRY, "backslash");
    EXPECT_OPEN("data = A(F('f'), L('l', b'f\\0'))", SC_E_LINK_ENTRY, "NUL");
    EXPECT_OPEN("data = A(F('f'), L('l', b'\\xff'))", SC_E_LINK_ENTRY, "UTF-8");
}

static void test_link_must_resolve_to_a_file_inside(void)
{
    EXPECT_OPEN("data = A(F('f'), L('l', '../f'))", SC_E_LINK_ENTRY, "escapes");
    EXPECT_OPEN("data = A(F('a/f'), L('a/l', '../../a/f'))", SC_E_LINK_ENTRY, "escapes");
    EXPECT_OPEN("data = A(L('l', '.'))", SC_E_LINK_ENTRY, "root");
    EXPECT_OPEN("data = A(L('a/l', '../a/./l'))", SC_E_LINK_ENTRY, "itself");
    EXPECT_OPEN("data = A(D('d/'), L('l', 'd'))", SC_E_LINK_ENTRY, "directory");
    EXPECT_OPEN("data = A(F('d/f'), L('l', 'd'))", SC_E_LINK_ENTRY, "directory");
    EXPECT_OPEN("data = A(F('f'), L('l', 'g'))", SC_E_LINK_ENTRY, "no entry");
    EXPECT_OPEN("data = A(L('a', 'b'), L('b', 'c'), L('c', 'a'))", SC_E_LINK_ENTRY, "cycle");
    EXPECT_OPEN("data = A(F('lib/x'), L('bin/y', '../lib//./x'), L('z', 'bin/y'))", SC_OK, NULL);
}

static void test_link_chain_of_8_passes_and_9_fails(void)
{
    const char *fmt = "n = %d\n"
                      "es = [F('file')] + [L('l%%d' %% i, 'l%%d' %% (i + 1) if i < n else 'file') "
                      "for i in range(1, n + 1)]\n"
                      "data = A(*es)";
    char body[512];
    snprintf(body, sizeof body, fmt, 8);
    EXPECT_OPEN(body, SC_OK, NULL);
    snprintf(body, sizeof body, fmt, 9);
    EXPECT_OPEN(body, SC_E_LINK_ENTRY, "8 link hops");
}

static void test_entry_below_a_link_is_refused(void)
{
    EXPECT_OPEN("data = A(F('f'), L('d', 'f'), F('d/x'))", SC_E_LINK_ENTRY, "through a link");
    EXPECT_OPEN("data = A(F('f'), L('D', 'f'), F('d/x'))", SC_E_LINK_ENTRY, "through a link");
}

/* ---- refusals: collisions ------------------------------------------------------------ */

static void test_duplicate_names_collide(void)
{
    EXPECT_OPEN("data = A(F('a'), F('a'))", SC_E_ENTRY_COLLISION, "same path");
    EXPECT_OPEN("data = A(F('a'), D('a/'))", SC_E_ENTRY_COLLISION, "same path");
}

static void test_ascii_case_folding_collides(void)
{
    EXPECT_OPEN("data = A(F('README'), F('readme'))", SC_E_ENTRY_COLLISION, "ASCII case");
    EXPECT_OPEN("data = A(F('Dir/a'), F('dir/a'))", SC_E_ENTRY_COLLISION, "ASCII case");
    EXPECT_OPEN("data = A(F('\\u00c9'), F('\\u00e9'))", SC_OK, NULL);
}

static void test_file_and_ancestor_collide_in_both_orders(void)
{
    EXPECT_OPEN("data = A(F('a'), F('a/b'))", SC_E_ENTRY_COLLISION, "below an earlier file");
    EXPECT_OPEN("data = A(F('a/b'), F('a'))", SC_E_ENTRY_COLLISION, "below it");
    EXPECT_OPEN("data = A(F('A/b'), F('a'))", SC_E_ENTRY_COLLISION, "below it");
    EXPECT_OPEN("data = A(F('a/b'), D('a/'))", SC_OK, NULL);
}

/* ---- limits -------------------------------------------------------------------------- */

static void test_declared_total_over_budget_is_extraction_limit(void)
{
    sc_zip *z = NULL;
    sc_error err;
    sc_zip_limits lim = {9, 0};
    SC_EXPECT_CODE(open_body("data = A(F('a'), F('b'))", &lim, &z, &err), SC_E_EXTRACTION_LIMIT,
                   &err);
    CU_ASSERT_PTR_NULL(z);
    lim.max_total_size = 10;
    SC_EXPECT_CODE(open_body("data = A(F('a'), F('b'))", &lim, &z, &err), SC_OK, &err);
    CU_ASSERT_EQUAL(sc_zip_total_size(z), 10);
    sc_zip_close(z);
    z = NULL;
    /* The default budget (256 GiB) applies when the limit is 0. */
    SC_EXPECT_CODE(open_body("s = E('h', b'x', method=8)\nf = s.fields()\n"
                             "x = zf.zip64_extra(300 << 30, f['csize'])\n"
                             "s.local = {'usize': zf.MAX32, 'csize': zf.MAX32, 'extra': x}\n"
                             "s.central = dict(s.local)\ndata = A(s)",
                             NULL, &z, &err),
                   SC_E_EXTRACTION_LIMIT, &err);
    CU_ASSERT_PTR_NULL(z);
}

static void test_entry_count_over_limit_is_extraction_limit(void)
{
    sc_zip *z = NULL;
    sc_error err;
    sc_zip_limits lim = {0, 2};
    SC_EXPECT_CODE(open_body("data = A(F('a'), F('b'), F('c'))", &lim, &z, &err),
                   SC_E_EXTRACTION_LIMIT, &err);
    CU_ASSERT_PTR_NULL(z);
}

static void test_read_refuses_entries_larger_than_max(void)
{
    sc_zip *z = NULL;
    sc_error err;
    SC_EXPECT_CODE(open_body("data = A(F('a', b'hello'))", NULL, &z, &err), SC_OK, &err);
    if (z == NULL)
        return;
    char *bytes = (char *)1;
    size_t len = 9;
    SC_EXPECT_CODE(sc_zip_read(z, sc_zip_at(z, 0), 4, &bytes, &len, &err), SC_E_EXTRACTION_LIMIT,
                   &err);
    CU_ASSERT_PTR_NULL(bytes);
    CU_ASSERT_EQUAL(len, 0);
    sc_zip_close(z);
}

static void test_crc_mismatch_is_invalid_archive(void)
{
    static const char *const bodies[] = {
        "data = A(F('a', local={'crc': 1}, central={'crc': 1}))",
        "data = A(E('a', b'hello' * 9, method=8, local={'crc': 1}, central={'crc': 1}))",
        NULL};
    for (size_t i = 0; bodies[i] != NULL; i++) {
        sc_zip *z = NULL;
        sc_error err;
        SC_EXPECT_CODE(open_body(bodies[i], NULL, &z, &err), SC_OK, &err);
        if (z == NULL)
            continue;
        char *bytes = NULL;
        size_t len;
        SC_EXPECT_CODE(sc_zip_read(z, sc_zip_at(z, 0), 1000, &bytes, &len, &err),
                       SC_E_INVALID_ARCHIVE, &err);
        CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "CRC"));
        CU_ASSERT_PTR_NULL(bytes);
        sc_zip_close(z);
    }
    /* A link's content is read while opening: its CRC is checked there. */
    EXPECT_OPEN("data = A(F('f'), L('l', 'f', local={'crc': 1}, central={'crc': 1}))",
                SC_E_INVALID_ARCHIVE, "CRC");
}

static void test_fewer_bytes_than_declared_is_invalid_archive(void)
{
    sc_zip *z = NULL;
    sc_error err;
    SC_EXPECT_CODE(open_body("data = A(E('a', b'hello', method=8, local={'usize': 50}, "
                             "central={'usize': 50}))",
                             NULL, &z, &err),
                   SC_OK, &err);
    if (z == NULL)
        return;
    char *bytes = NULL;
    size_t len;
    SC_EXPECT_CODE(sc_zip_read(z, sc_zip_at(z, 0), 1000, &bytes, &len, &err), SC_E_INVALID_ARCHIVE,
                   &err);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "fewer"));
    sc_zip_close(z);
}

static void test_corrupt_or_truncated_deflate_is_invalid_archive(void)
{
    static const char *const bodies[] = {
        "data = A(E('a', b'hello', method=8, raw=b'\\xff' * 6))",
        "data = A(E('a', b'hello hello hello', method=8, raw=zf.deflate_raw(b'hello hello hello')[:-3]))",
        "data = A(E('a', b'hello', method=8, raw=zf.deflate_raw(b'hello') + b'junk'))",
        NULL};
    for (size_t i = 0; bodies[i] != NULL; i++) {
        char *dir = NULL;
        sc_error err;
        SC_EXPECT_CODE(extract_body(bodies[i], &dir, &err), SC_E_INVALID_ARCHIVE, &err);
        sc_test_rmtree(dir);
        free(dir);
    }
}

static void test_bomb_stops_at_the_declared_size(void)
{
    /* 64 MiB of zeros declared as 1000 bytes. */
    char *dir = NULL;
    sc_error err;
    sc_code rc = extract_body("z = b'\\0' * (64 << 20)\n"
                              "c = zlib.crc32(z[:1000])\n"
                              "data = A(E('bomb', z, method=8, local={'usize': 1000, 'crc': c}, "
                              "central={'usize': 1000, 'crc': c}))",
                              &dir, &err);
    SC_EXPECT_CODE(rc, SC_E_EXTRACTION_LIMIT, &err);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "more bytes than it declares"));
    off_t written = size_of(dir, "out/bomb");
    CU_ASSERT_TRUE(written >= 0 && written <= 1000);
    sc_test_rmtree(dir);
    free(dir);
}

/* ---- extraction ----------------------------------------------------------------------- */

static void test_extract_creates_files_directories_and_links(void)
{
    mode_t old = umask(077);
    char *dir = NULL;
    sc_error err;
    sc_code rc = extract_body("data = A(D('d/'), E('d/e/x', b'hello' * 100, method=8, mode=0o100755), "
                              "F('z', b'zero', mode=0), F('p', b'priv', mode=0o100600), "
                              "L('d/l', 'e/x'))",
                              &dir, &err);
    umask(old);
    SC_EXPECT_CODE(rc, SC_OK, &err);
    char p[4096];
    struct stat st;
    snprintf(p, sizeof p, "%s/out/d", dir);
    CU_ASSERT_TRUE(lstat(p, &st) == 0 && S_ISDIR(st.st_mode) && (st.st_mode & 0777) == 0755);
    snprintf(p, sizeof p, "%s/out/d/e", dir);
    CU_ASSERT_TRUE(lstat(p, &st) == 0 && S_ISDIR(st.st_mode) && (st.st_mode & 0777) == 0755);
    snprintf(p, sizeof p, "%s/out/d/e/x", dir);
    CU_ASSERT_TRUE(lstat(p, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 0777) == 0755 &&
                   st.st_size == 500);
    snprintf(p, sizeof p, "%s/out/z", dir);
    CU_ASSERT_TRUE(lstat(p, &st) == 0 && (st.st_mode & 0777) == 0644 && st.st_size == 4);
    snprintf(p, sizeof p, "%s/out/p", dir);
    CU_ASSERT_TRUE(lstat(p, &st) == 0 && (st.st_mode & 0777) == 0600);
    snprintf(p, sizeof p, "%s/out/d/l", dir);
    char target[64] = {0};
    CU_ASSERT_TRUE(lstat(p, &st) == 0 && S_ISLNK(st.st_mode));
    CU_ASSERT_EQUAL(readlink(p, target, sizeof target - 1), 3);
    CU_ASSERT_STRING_EQUAL(target, "e/x");
    sc_test_rmtree(dir);
    free(dir);
}

/* 1 if dir/rel holds exactly n bytes, byte i being i % 251. */
static int holds_the_ramp(const char *dir, const char *rel, size_t n)
{
    char p[4096];
    snprintf(p, sizeof p, "%s/%s", dir, rel);
    FILE *f = fopen(p, "rb");
    if (f == NULL)
        return 0;
    size_t i = 0;
    int c, same = 1;
    while ((c = fgetc(f)) != EOF && same)
        same = i < n && c == (int)(i++ % 251);
    fclose(f);
    return same && i == n;
}

/* Files of 8 MiB and more are written with O_DIRECT where the file system
 * takes it, the unaligned tail buffered: stored and deflated, the bytes
 * extracted are the entry's, to the last. */
static void test_extract_of_big_files_gives_their_bytes_to_the_last(void)
{
    char *dir = NULL;
    sc_error err;
    sc_code rc = extract_body("ramp = (bytes(range(251)) * 40000)[:(9 << 20) + 4321]\n"
                              "data = A(E('big.bin', ramp), "
                              "E('deflated.bin', ramp, method=8, raw=zf.deflate_raw(ramp)))",
                              &dir, &err);
    SC_EXPECT_CODE(rc, SC_OK, &err);
    CU_ASSERT_TRUE(holds_the_ramp(dir, "out/big.bin", ((size_t)9 << 20) + 4321));
    CU_ASSERT_TRUE(holds_the_ramp(dir, "out/deflated.bin", ((size_t)9 << 20) + 4321));
    sc_test_rmtree(dir);
    free(dir);
}

static void test_extract_follows_central_order_across_directories(void)
{
    char *dir = NULL;
    sc_error err;
    sc_code rc = extract_body("data = A(F('a/b/c/f1'), F('a/x/f2'), F('a/b/c/f3'), F('f4'), "
                              "F('a/b/g'), F('a/bb/h'), F('a/b/c/d/e/f5'), F('a/b/f6'))",
                              &dir, &err);
    SC_EXPECT_CODE(rc, SC_OK, &err);
    static const char *const files[] = {"out/a/b/c/f1", "out/a/x/f2", "out/a/b/c/f3", "out/f4",
                                        "out/a/b/g", "out/a/bb/h", "out/a/b/c/d/e/f5",
                                        "out/a/b/f6", NULL};
    for (size_t i = 0; files[i] != NULL; i++) {
        if (size_of(dir, files[i]) != 5)
            fprintf(stderr, "\n  missing %s\n", files[i]);
        CU_ASSERT_EQUAL(size_of(dir, files[i]), 5);
    }
    sc_test_rmtree(dir);
    free(dir);
}

static void test_extract_never_replaces_an_existing_file(void)
{
    char *dir = sc_test_tmpdir();
    char *p = mkzip(dir, "t.zip", "data = A(F('a', b'new'))");
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    char out[4096];
    snprintf(out, sizeof out, "%s/out", dir);
    CU_ASSERT_EQUAL_FATAL(mkdir(out, 0700), 0);
    sc_test_write(out, "a", "old");
    sc_zip *z = NULL;
    sc_error err;
    SC_EXPECT_CODE(sc_zip_open(p, NULL, &z, &err), SC_OK, &err);
    SC_EXPECT_CODE(sc_zip_extract(z, out, &err), SC_E_IO, &err);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.path, "out/a"));
    CU_ASSERT_EQUAL(size_of(out, "a"), 3);
    sc_zip_close(z);
    free(p);
    sc_test_rmtree(dir);
    free(dir);
}

static void test_extract_never_writes_through_a_link(void)
{
    char *dir = sc_test_tmpdir();
    char *p = mkzip(dir, "t.zip", "data = A(F('d/x', b'evil'))");
    char *q = mkzip(dir, "u.zip", "data = A(F('f', b'evil'))");
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    CU_ASSERT_PTR_NOT_NULL_FATAL(q);
    char out[2048], outside[2048], link[4096];
    snprintf(out, sizeof out, "%s/out", dir);
    snprintf(outside, sizeof outside, "%s/outside", dir);
    CU_ASSERT_EQUAL_FATAL(mkdir(out, 0700), 0);
    CU_ASSERT_EQUAL_FATAL(mkdir(outside, 0700), 0);
    /* A directory link planted in the destination... */
    snprintf(link, sizeof link, "%s/d", out);
    CU_ASSERT_EQUAL_FATAL(symlink(outside, link), 0);
    /* ...and a file link to a file outside. */
    snprintf(link, sizeof link, "%s/f", out);
    char victim[4096];
    snprintf(victim, sizeof victim, "%s/victim", outside);
    CU_ASSERT_EQUAL_FATAL(symlink(victim, link), 0);
    sc_zip *z = NULL;
    sc_error err;
    SC_EXPECT_CODE(sc_zip_open(p, NULL, &z, &err), SC_OK, &err);
    SC_EXPECT_CODE(sc_zip_extract(z, out, &err), SC_E_IO, &err);
    sc_zip_close(z);
    SC_EXPECT_CODE(sc_zip_open(q, NULL, &z, &err), SC_OK, &err);
    SC_EXPECT_CODE(sc_zip_extract(z, out, &err), SC_E_IO, &err);
    sc_zip_close(z);
    CU_ASSERT_EQUAL(size_of(outside, "x"), -1);
    CU_ASSERT_EQUAL(size_of(outside, "victim"), -1);
    free(p);
    free(q);
    sc_test_rmtree(dir);
    free(dir);
}

static void test_extract_write_error_is_io_naming_the_path(void)
{
    char *dir = sc_test_tmpdir();
    char *p = mkzip(dir, "t.zip", "data = A(F('sub/a', b'x'))");
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    char out[4096];
    snprintf(out, sizeof out, "%s/out", dir);
    CU_ASSERT_EQUAL_FATAL(mkdir(out, 0700), 0);
    sc_test_write(out, "sub", "a file where a directory is needed");
    sc_zip *z = NULL;
    sc_error err;
    SC_EXPECT_CODE(sc_zip_open(p, NULL, &z, &err), SC_OK, &err);
    SC_EXPECT_CODE(sc_zip_extract(z, out, &err), SC_E_IO, &err);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.path, "sub/a"));
    sc_zip_close(z);
    free(p);
    sc_test_rmtree(dir);
    free(dir);
}

/* ---- scale ------------------------------------------------------------------------------ */

/* Extract z into dir/NAME with jobs threads; the code. */
static sc_code extract_jobs(sc_zip *z, const char *dir, const char *name, unsigned jobs,
                            sc_error *err)
{
    char out[4096];
    snprintf(out, sizeof out, "%s/%s", dir, name);
    CU_ASSERT_EQUAL_FATAL(mkdir(out, 0700), 0);
    return sc_zip_extract_with(z, out, jobs, err);
}

static void test_extract_gives_the_same_tree_and_first_error_with_any_job_count(void)
{
    /* 60 files (some deflated, some big), a link, a directory: the trees
     * extracted with 1, 2 and 7 threads hold the same bytes; with two bad
     * CRCs the error names the first in central order, whatever the count. */
    static const char good[] =
        "es = [F('d%d/f%02d' % (i % 4, i), (b'x%d ' % i) * (i * 300),"
        " method=8 if i % 2 else 0) for i in range(60)]\n"
        "es.append(L('d0/link', 'f00'))\n"
        "es.append(D('empty/'))\n"
        "data = A(*es)\n";
    static const char bad[] =
        "es = [F('f%02d' % i, (b'y%d ' % i) * 4000, method=8 if i % 2 else 0,"
        " **({'local': {'crc': 1}, 'central': {'crc': 1}} if i in (23, 41) else {}))"
        " for i in range(60)]\n"
        "data = A(*es)\n";
    char *dir = sc_test_tmpdir();
    char *p = mkzip(dir, "good.zip", good), *q = mkzip(dir, "bad.zip", bad);
    CU_ASSERT_FATAL(p != NULL && q != NULL);
    sc_error err;
    sc_zip *z = NULL, *y = NULL;
    SC_EXPECT_CODE(sc_zip_open(p, NULL, &z, &err), SC_OK, &err);
    SC_EXPECT_CODE(sc_zip_open(q, NULL, &y, &err), SC_OK, &err);
    CU_ASSERT_FATAL(z != NULL && y != NULL);
    unsigned jobs[3] = {1, 2, 7};
    const char *names[3] = {"j1", "j2", "j7"};
    for (int j = 0; j < 3; j++) {
        SC_EXPECT_CODE(extract_jobs(z, dir, names[j], jobs[j], &err), SC_OK, &err);
        char bname[16];
        snprintf(bname, sizeof bname, "bad%u", jobs[j]);
        SC_EXPECT_CODE(extract_jobs(y, dir, bname, jobs[j], &err), SC_E_INVALID_ARCHIVE, &err);
        CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "f23"));
        CU_ASSERT_PTR_NULL(strstr(err.message, "f41"));
    }
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "diff -r '%s/j1' '%s/j2' && diff -r '%s/j1' '%s/j7'", dir, dir,
             dir, dir);
    CU_ASSERT_EQUAL(system(cmd), 0);
    char link[64];
    snprintf(cmd, sizeof cmd, "%s/j7/d0/link", dir);
    ssize_t n = readlink(cmd, link, sizeof link - 1);
    CU_ASSERT_EQUAL(n, 3);
    CU_ASSERT_EQUAL(size_of(dir, "j7/d3/f59"), (off_t)(strlen("x59 ") * 59 * 300));
    sc_zip_close(z);
    sc_zip_close(y);
    free(p);
    free(q);
    sc_test_rmtree(dir);
    free(dir);
}

/* 100,000 entries inspect whole, the last one found, and a collision with
 * one 99,999 entries earlier caught.  How long it takes is measured in
 * bench/ (inspect_bench.sh: linear from 1k to 100k), never asserted here. */
static void test_inspection_of_100000_entries_is_whole(void)
{
    char *dir = sc_test_tmpdir();
    char *p = mkzip(dir, "many.zip",
                    "es = [E('d%03d/f%06d' % (i % 500, i), b'') for i in range(100000)]\n"
                    "es += [L('link', 'd000/f000000'), E('D499/F099999', b'')]\n"
                    "data = zf.assemble(es, zip64='auto')");
    char *q = mkzip(dir, "ok.zip",
                    "es = [E('d%03d/f%06d' % (i % 500, i), b'') for i in range(100000)]\n"
                    "es += [L('link', 'd000/f000000')]\n"
                    "data = zf.assemble(es, zip64='auto')");
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    CU_ASSERT_PTR_NOT_NULL_FATAL(q);
    sc_zip *z = NULL;
    sc_error err;
    SC_EXPECT_CODE(sc_zip_open(q, NULL, &z, &err), SC_OK, &err);
    CU_ASSERT_EQUAL(sc_zip_count(z), 100001);
    CU_ASSERT_PTR_NOT_NULL(sc_zip_find(z, "d499/f099999"));
    sc_zip_close(z);
    z = NULL;
    /* The last entry collides (case folding) with one 99 999 entries earlier. */
    SC_EXPECT_CODE(sc_zip_open(p, NULL, &z, &err), SC_E_ENTRY_COLLISION, &err);
    free(p);
    free(q);
    sc_test_rmtree(dir);
    free(dir);
}

/* 15.2 allows 65,535-byte names; the whole-archive checks must hold for
 * them (bench/inspect_bench.sh measures that they stay linear). */
#define LONG_STEM "s = 'a/' * 32760\n"

static void test_long_names_inspect_and_are_checked(void)
{
    sc_zip *z = NULL;
    sc_error err;
    char *dir = sc_test_tmpdir();
    char *p = mkzip(dir, "long.zip",
                    LONG_STEM "ps = [s + 'f%d' % i + 'x' * (65535 - len(s) - 2) for i in range(6)]\n"
                    "assert all(len(x) == 65535 for x in ps)\n"
                    "data = A(*[F(x) for x in ps], L(s + 'l', 'f0' + 'x' * 13))");
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    SC_EXPECT_CODE(sc_zip_open(p, NULL, &z, &err), SC_OK, &err);
    CU_ASSERT_EQUAL(sc_zip_count(z), 7);
    for (size_t i = 0; i < sc_zip_count(z); i++) {
        const sc_zip_entry *e = sc_zip_at(z, i);
        CU_ASSERT_PTR_EQUAL(sc_zip_find(z, e->path), e);
    }
    sc_zip_close(z);
    free(p);
    sc_test_rmtree(dir);
    free(dir);
    /* below a long file entry */
    EXPECT_OPEN(LONG_STEM "data = A(F(s + 'f'), F(s + 'f/x'))", SC_E_ENTRY_COLLISION,
                "lies below an earlier file entry");
    /* a long file where an earlier long entry needs a directory (case folded) */
    EXPECT_OPEN(LONG_STEM "data = A(F(s + 'd/x'), F(s.upper() + 'D'))", SC_E_ENTRY_COLLISION,
                "collides with an earlier entry below it");
    EXPECT_OPEN(LONG_STEM "data = A(F(s + 'x'), F(s.upper() + 'X'))", SC_E_ENTRY_COLLISION,
                "differs only in ASCII case");
    /* written through a long link */
    EXPECT_OPEN(LONG_STEM "data = A(F(s + 't'), L(s + 'l', 't'), F(s + 'l/y'))", SC_E_LINK_ENTRY,
                "written through a link");
    /* a long link at a long directory */
    EXPECT_OPEN(LONG_STEM "data = A(F(s + 'd/x'), L(s + 'l', 'd'))", SC_E_LINK_ENTRY,
                "points at a directory");
}

/* ---- registration ----------------------------------------------------------------------- */

void register_archive_read_tests(void)
{
    CU_pSuite s = CU_add_suite("archive_read", NULL, NULL);
    if (s == NULL)
        CU_FAIL_FATAL("CU_add_suite failed");
    SC_ADD_TEST(s, test_missing_archive_is_archive_not_found);
    SC_ADD_TEST(s, test_stored_and_deflated_entries_are_read);
    SC_ADD_TEST(s, test_data_descriptors_are_accepted);
    SC_ADD_TEST(s, test_descriptor_that_lies_is_invalid);
    SC_ADD_TEST(s, test_extra_fields_are_accepted);
    SC_ADD_TEST(s, test_malformed_extra_field_is_invalid);
    SC_ADD_TEST(s, test_any_order_is_accepted_and_kept);
    SC_ADD_TEST(s, test_find_is_an_exact_lookup);
    SC_ADD_TEST(s, test_directory_entries_lose_one_trailing_slash);
    SC_ADD_TEST(s, test_mode_keeps_only_permission_bits);
    SC_ADD_TEST(s, test_zip64_records_and_extra_fields_are_read);
    SC_ADD_TEST(s, test_zip64_records_that_lie_are_invalid);
    SC_ADD_TEST(s, test_zip64_offsets_past_4_gib_are_read);
    SC_ADD_TEST(s, test_empty_archive_is_accepted);
    SC_ADD_TEST(s, test_not_a_zip_is_invalid_archive);
    SC_ADD_TEST(s, test_truncated_archive_is_invalid);
    SC_ADD_TEST(s, test_end_record_that_lies_is_invalid);
    SC_ADD_TEST(s, test_local_header_must_agree_with_central_record);
    SC_ADD_TEST(s, test_local_headers_of_many_entries_are_each_checked);
    SC_ADD_TEST(s, test_overlapping_entries_are_invalid);
    SC_ADD_TEST(s, test_only_stored_and_deflate_are_supported);
    SC_ADD_TEST(s, test_stored_sizes_must_be_equal);
    SC_ADD_TEST(s, test_directory_with_data_is_invalid);
    SC_ADD_TEST(s, test_encryption_bits_are_refused);
    SC_ADD_TEST(s, test_unsafe_names_are_refused);
    SC_ADD_TEST(s, test_dot_prefix_is_dropped_only_when_asked);
    SC_ADD_TEST(s, test_non_ascii_name_needs_the_utf8_flag);
    SC_ADD_TEST(s, test_special_types_are_refused);
    SC_ADD_TEST(s, test_link_target_over_1024_bytes_is_refused);
    SC_ADD_TEST(s, test_link_target_must_be_relative_text);
    SC_ADD_TEST(s, test_link_must_resolve_to_a_file_inside);
    SC_ADD_TEST(s, test_link_chain_of_8_passes_and_9_fails);
    SC_ADD_TEST(s, test_entry_below_a_link_is_refused);
    SC_ADD_TEST(s, test_duplicate_names_collide);
    SC_ADD_TEST(s, test_ascii_case_folding_collides);
    SC_ADD_TEST(s, test_file_and_ancestor_collide_in_both_orders);
    SC_ADD_TEST(s, test_declared_total_over_budget_is_extraction_limit);
    SC_ADD_TEST(s, test_entry_count_over_limit_is_extraction_limit);
    SC_ADD_TEST(s, test_read_refuses_entries_larger_than_max);
    SC_ADD_TEST(s, test_crc_mismatch_is_invalid_archive);
    SC_ADD_TEST(s, test_fewer_bytes_than_declared_is_invalid_archive);
    SC_ADD_TEST(s, test_corrupt_or_truncated_deflate_is_invalid_archive);
    SC_ADD_TEST(s, test_bomb_stops_at_the_declared_size);
    SC_ADD_TEST(s, test_extract_creates_files_directories_and_links);
    SC_ADD_TEST(s, test_extract_of_big_files_gives_their_bytes_to_the_last);
    SC_ADD_TEST(s, test_extract_follows_central_order_across_directories);
    SC_ADD_TEST(s, test_extract_never_replaces_an_existing_file);
    SC_ADD_TEST(s, test_extract_never_writes_through_a_link);
    SC_ADD_TEST(s, test_extract_write_error_is_io_naming_the_path);
    SC_ADD_TEST(s, test_extract_gives_the_same_tree_and_first_error_with_any_job_count);
    SC_ADD_TEST(s, test_inspection_of_100000_entries_is_whole);
    SC_ADD_TEST(s, test_long_names_inspect_and_are_checked);
}
