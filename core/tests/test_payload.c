/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_payload.c — docs/format-v3.md section 14 (the payload digest
 * sha256-path-list-v1), black-box through payload.h.
 *
 * The seven stream vectors (sha256 and stream length) were computed
 * independently with Python's hashlib from the entries written out below:
 *   record = path + b"\0" + kind + b"\0" + sha256(content).hexdigest() + b"\n"
 *   stream = b"sha256-path-list-v1\n" + b"".join(sorted(records))
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "harness.h"
#include "scrollcase/digest.h"
#include "scrollcase/error.h"
#include "scrollcase/file.h"
#include "scrollcase/payload.h"

#define HDR "sha256-path-list-v1\n"
#define HEX_A "ca978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb" /* "a" */
#define HEX_B "3e23e8160039594a33894f6564e1b1348bbd7a0088d42c4acb73eeaed59c009d" /* "b" */

/* ---- helpers ------------------------------------------------------------- */

/* Append an entry whose digest is that of content (a file's bytes or, for a
 * link, its target). */
static void add(sc_payload_list *l, const char *path, size_t path_len, sc_payload_kind kind,
                const char *content)
{
    if (l->count == l->cap) {
        size_t cap = l->cap ? l->cap * 2 : 8;
        sc_payload_entry *n = realloc(l->entries, cap * sizeof *n);
        CU_ASSERT_PTR_NOT_NULL_FATAL(n);
        l->entries = n;
        l->cap = cap;
    }
    sc_payload_entry *e = &l->entries[l->count++];
    memset(e, 0, sizeof *e);
    e->path = malloc(path_len + 1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(e->path);
    memcpy(e->path, path, path_len);
    e->path[path_len] = '\0';
    e->path_len = path_len;
    e->kind = kind;
    e->size = strlen(content);
    sc_error err;
    CU_ASSERT_EQUAL_FATAL(sc_sha256_hex(content, strlen(content), e->sha256, &err), SC_OK);
}

static void addf(sc_payload_list *l, const char *path, const char *content)
{
    add(l, path, strlen(path), SC_PAYLOAD_FILE, content);
}

static void addl(sc_payload_list *l, const char *path, const char *target)
{
    add(l, path, strlen(path), SC_PAYLOAD_LINK, target);
}

/* The stream of l must have n bytes and hash to hex. */
static void expect_stream(const sc_payload_list *l, size_t n, const char *hex)
{
    char *s = NULL;
    size_t len = 0;
    sc_error err;
    sc_code c = sc_payload_serialize(l, &s, &len, &err);
    SC_EXPECT_CODE(c, SC_OK, &err);
    if (c != SC_OK)
        return;
    CU_ASSERT_EQUAL(len, n);
    char got[65];
    CU_ASSERT_EQUAL(sc_sha256_hex(s, len, got, &err), SC_OK);
    CU_ASSERT_STRING_EQUAL(got, hex);
    char d[65];
    CU_ASSERT_EQUAL(sc_payload_digest(l, d, &err), SC_OK);
    CU_ASSERT_STRING_EQUAL(d, hex);
    /* and the stream parses back to the same records, in byte order */
    sc_payload_list back = {NULL, 0, 0};
    c = sc_payload_parse(s, len, &back, &err);
    SC_EXPECT_CODE(c, SC_OK, &err);
    CU_ASSERT_EQUAL(back.count, l->count);
    char *again = NULL;
    size_t again_len = 0;
    if (c == SC_OK && sc_payload_serialize(&back, &again, &again_len, &err) == SC_OK) {
        CU_ASSERT_EQUAL(again_len, len);
        CU_ASSERT(memcmp(again, s, len) == 0);
    }
    free(again);
    sc_payload_list_free(&back);
    free(s);
}

static char *join(const char *a, const char *b)
{
    char *p = sc_path_join(a, b);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    return p;
}

static void put(const char *dir, const char *rel, const char *text)
{
    sc_test_write(dir, rel, text);
}

static void link_at(const char *dir, const char *rel, const char *target)
{
    char *p = join(dir, rel);
    CU_ASSERT_EQUAL_FATAL(symlink(target, p), 0);
    free(p);
}

static void mkdir_at(const char *dir, const char *rel)
{
    char *p = join(dir, rel);
    CU_ASSERT_EQUAL_FATAL(mkdir(p, 0755), 0);
    free(p);
}

static void collect_ok(const char *root, sc_payload_list *l)
{
    sc_error err;
    sc_code c = sc_payload_collect(root, SC_PAYLOAD_HASH, l, &err);
    SC_EXPECT_CODE(c, SC_OK, &err);
    CU_ASSERT_FATAL(c == SC_OK);
}

static const sc_payload_entry *find(const sc_payload_list *l, const char *path)
{
    for (size_t i = 0; i < l->count; i++)
        if (strcmp(l->entries[i].path, path) == 0)
            return &l->entries[i];
    return NULL;
}

static sc_code parse_text(const char *bytes, size_t len, sc_error *err)
{
    sc_payload_list l = {NULL, 0, 0};
    sc_code c = sc_payload_parse(bytes, len, &l, err);
    sc_payload_list_free(&l);
    return c;
}

/* A stream assembled from literal records: "path\0k\0hex\n". */
static void expect_parse(const char *bytes, size_t len, sc_code want)
{
    sc_error err;
    SC_EXPECT_CODE(parse_text(bytes, len, &err), want, &err);
    CU_ASSERT_EQUAL(err.code, want);
}
#define PARSE(lit, want) expect_parse((lit), sizeof(lit) - 1, (want))

/* Build root: box.json, app/main.py, a link, write the list; return its hash. */
static char *verified_tree(char hex[65])
{
    char *root = sc_test_tmpdir();
    CU_ASSERT_PTR_NOT_NULL_FATAL(root);
    put(root, "box.json", "{}\n");
    put(root, "app/main.py", "print('hi')\n");
    put(root, "venv/bin/python3.12", "interpreter");
    link_at(root, "venv/bin/python", "python3.12");
    sc_payload_list l = {NULL, 0, 0};
    collect_ok(root, &l);
    sc_error err;
    CU_ASSERT_EQUAL_FATAL(sc_payload_write_list(root, &l, hex, &err), SC_OK);
    sc_payload_list_free(&l);
    return root;
}

static sc_code verify(const char *root, const char *hex, size_t *count, sc_error *err)
{
    return sc_payload_verify_tree(root, hex, count, err);
}

/* ---- the stream (14.2): the seven vectors ------------------------------- */

static void test_empty_payload_commits_to_its_format(void)
{
    sc_payload_list l = {NULL, 0, 0};
    expect_stream(&l, 20, "7774b93cbe3885bca0b65a24b06f7e510efaea4894d6224b2b5a8952afe6e798");
    char *s = NULL;
    size_t n = 0;
    sc_error err;
    CU_ASSERT_EQUAL(sc_payload_serialize(&l, &s, &n, &err), SC_OK);
    CU_ASSERT(n == 20 && memcmp(s, HDR, 20) == 0);
    free(s);
}

static void test_single_regular_file_vector(void)
{
    sc_payload_list l = {NULL, 0, 0};
    addf(&l, "box.json", "{\"schemaVersion\":2}\n");
    expect_stream(&l, 96, "70de80106f6d1f8aa72329a6a4980d8f0eda2575b7fce3a7304a0e56bd9ef6de");
    sc_payload_list_free(&l);
}

static void test_dot_sorts_before_slash(void)
{
    sc_payload_list l = {NULL, 0, 0};
    addf(&l, "a/b", "under a directory");
    addf(&l, "a.txt", "beside it");
    expect_stream(&l, 164, "debd6969fd92adf50d2c69cf9639a32c7cc42005a5a7bd33a43d4a1e4605c5e8");
    char *s = NULL;
    size_t n = 0;
    sc_error err;
    CU_ASSERT_EQUAL_FATAL(sc_payload_serialize(&l, &s, &n, &err), SC_OK);
    CU_ASSERT(memcmp(s + 20, "a.txt", 6) == 0); /* a.txt and its NUL come first */
    free(s);
    /* the caller's order is left as it was */
    CU_ASSERT_STRING_EQUAL(l.entries[0].path, "a/b");
    sc_payload_list_free(&l);

    /* the same tree on disk */
    char *root = sc_test_tmpdir();
    put(root, "a/b", "under a directory");
    put(root, "a.txt", "beside it");
    sc_payload_list d = {NULL, 0, 0};
    collect_ok(root, &d);
    CU_ASSERT_EQUAL(d.count, 2);
    CU_ASSERT_STRING_EQUAL(d.entries[0].path, "a.txt");
    CU_ASSERT_STRING_EQUAL(d.entries[1].path, "a/b");
    expect_stream(&d, 164, "debd6969fd92adf50d2c69cf9639a32c7cc42005a5a7bd33a43d4a1e4605c5e8");
    sc_payload_list_free(&d);
    sc_test_rmtree(root);
    free(root);
}

static void test_order_is_by_utf8_bytes_not_utf16_units(void)
{
    const char *emoji = "\xf0\x9f\x98\x80";   /* U+1F600 */
    const char *replacement = "\xef\xbf\xbd"; /* U+FFFD */
    sc_payload_list l = {NULL, 0, 0};
    addf(&l, emoji, "astral");
    addf(&l, replacement, "replacement");
    expect_stream(&l, 163, "1a68ff0c870e8eeb508b4985e394dad23c8136bb73407d3816a5d14c1c2717c8");
    sc_payload_list_free(&l);

    char *root = sc_test_tmpdir();
    put(root, emoji, "astral");
    put(root, replacement, "replacement");
    sc_payload_list d = {NULL, 0, 0};
    collect_ok(root, &d);
    CU_ASSERT_EQUAL_FATAL(d.count, 2);
    CU_ASSERT_STRING_EQUAL(d.entries[0].path, replacement);
    expect_stream(&d, 163, "1a68ff0c870e8eeb508b4985e394dad23c8136bb73407d3816a5d14c1c2717c8");
    sc_payload_list_free(&d);
    sc_test_rmtree(root);
    free(root);
}

static void test_newline_in_a_name_keeps_the_framing(void)
{
    sc_payload_list l = {NULL, 0, 0};
    addf(&l, "we\nird", "one file");
    addf(&l, "weird", "another file");
    expect_stream(&l, 167, "d89bb873f9231c07129a96b76f4ee3fcbf768d9868b49f6c34461c8f6e2ef719");
    sc_payload_list_free(&l);

    char *root = sc_test_tmpdir();
    put(root, "we\nird", "one file");
    put(root, "weird", "another file");
    sc_payload_list d = {NULL, 0, 0};
    collect_ok(root, &d);
    CU_ASSERT_EQUAL_FATAL(d.count, 2);
    CU_ASSERT_STRING_EQUAL(d.entries[0].path, "we\nird");
    expect_stream(&d, 167, "d89bb873f9231c07129a96b76f4ee3fcbf768d9868b49f6c34461c8f6e2ef719");
    sc_payload_list_free(&d);
    sc_test_rmtree(root);
    free(root);
}

static void test_link_differs_from_file_holding_its_target(void)
{
    sc_payload_list l = {NULL, 0, 0};
    addl(&l, "p", "p-real");
    addf(&l, "q", "p-real");
    addf(&l, "p-real", "the real bytes");
    CU_ASSERT_STRING_EQUAL(l.entries[0].sha256, l.entries[1].sha256);
    expect_stream(&l, 232, "8db58d6312529f85d0d654809013f60e52c957f10177c4e9708553478adab86d");
    sc_payload_list_free(&l);

    char *root = sc_test_tmpdir();
    put(root, "p-real", "the real bytes");
    put(root, "q", "p-real");
    link_at(root, "p", "p-real");
    sc_payload_list d = {NULL, 0, 0};
    collect_ok(root, &d);
    CU_ASSERT_EQUAL_FATAL(d.count, 3);
    const sc_payload_entry *p = find(&d, "p"), *q = find(&d, "q");
    CU_ASSERT_FATAL(p != NULL && q != NULL);
    CU_ASSERT_EQUAL(p->kind, SC_PAYLOAD_LINK);
    CU_ASSERT_EQUAL(q->kind, SC_PAYLOAD_FILE);
    CU_ASSERT_STRING_EQUAL(p->sha256, q->sha256);
    CU_ASSERT_STRING_EQUAL(p->link_target, "p-real");
    CU_ASSERT_EQUAL(p->size, 6);
    CU_ASSERT_PTR_NULL(q->link_target);
    expect_stream(&d, 232, "8db58d6312529f85d0d654809013f60e52c957f10177c4e9708553478adab86d");
    sc_payload_list_free(&d);
    sc_test_rmtree(root);
    free(root);
}

static void test_nested_paths_sort_by_whole_bytes(void)
{
    sc_payload_list l = {NULL, 0, 0};
    addf(&l, "venv/lib/python3.12/site-packages/z.py", "z");
    addf(&l, "venv/lib/python3.12/site-packages/a.py", "a");
    addf(&l, "venv/bin/python", "interpreter");
    addf(&l, "box.json", "{}");
    expect_stream(&l, 391, "619490fb8fba18079b1591756f04f7ece849658415476a6d57bf1a80308f5cb6");
    sc_payload_list_free(&l);

    char *root = sc_test_tmpdir();
    put(root, "venv/lib/python3.12/site-packages/z.py", "z");
    put(root, "venv/lib/python3.12/site-packages/a.py", "a");
    put(root, "venv/bin/python", "interpreter");
    put(root, "box.json", "{}");
    sc_payload_list d = {NULL, 0, 0};
    collect_ok(root, &d);
    CU_ASSERT_EQUAL_FATAL(d.count, 4);
    CU_ASSERT_STRING_EQUAL(d.entries[0].path, "box.json");
    CU_ASSERT_STRING_EQUAL(d.entries[3].path, "venv/lib/python3.12/site-packages/z.py");
    expect_stream(&d, 391, "619490fb8fba18079b1591756f04f7ece849658415476a6d57bf1a80308f5cb6");
    sc_payload_list_free(&d);
    sc_test_rmtree(root);
    free(root);
}

/* ---- serializer refusals ------------------------------------------------- */

static void expect_serialize_refused(sc_payload_list *l)
{
    char *s = NULL;
    size_t n = 0;
    sc_error err;
    SC_EXPECT_CODE(sc_payload_serialize(l, &s, &n, &err), SC_E_INVALID_PAYLOAD_LIST, &err);
    CU_ASSERT_PTR_NULL(s);
    char hex[65];
    SC_EXPECT_CODE(sc_payload_digest(l, hex, &err), SC_E_INVALID_PAYLOAD_LIST, &err);
    sc_payload_list_free(l);
}

static void test_serializer_refuses_an_empty_path(void)
{
    sc_payload_list l = {NULL, 0, 0};
    add(&l, "", 0, SC_PAYLOAD_FILE, "a");
    expect_serialize_refused(&l);
}

static void test_serializer_refuses_a_nul_in_a_path(void)
{
    sc_payload_list l = {NULL, 0, 0};
    add(&l, "x\0y", 3, SC_PAYLOAD_FILE, "a");
    expect_serialize_refused(&l);
}

static void test_serializer_refuses_a_duplicate_path(void)
{
    sc_payload_list l = {NULL, 0, 0};
    addf(&l, "x", "a");
    addf(&l, "y", "a");
    addl(&l, "x", "b");
    expect_serialize_refused(&l);
}

static void test_serializer_refuses_uppercase_or_short_digests(void)
{
    sc_payload_list l = {NULL, 0, 0};
    addf(&l, "x", "a");
    for (char *p = l.entries[0].sha256; *p; p++)
        if (*p >= 'a' && *p <= 'f')
            *p = (char)(*p - 'a' + 'A');
    expect_serialize_refused(&l);
    addf(&l, "x", "a");
    l.entries[0].sha256[63] = '\0';
    expect_serialize_refused(&l);
    addf(&l, "x", "a");
    l.entries[0].sha256[0] = '\0'; /* collected without SC_PAYLOAD_HASH */
    expect_serialize_refused(&l);
}

static void test_serializer_refuses_an_unknown_kind(void)
{
    sc_payload_list l = {NULL, 0, 0};
    addf(&l, "x", "a");
    l.entries[0].kind = (sc_payload_kind)'d';
    expect_serialize_refused(&l);
}

static void test_stream_is_independent_of_input_order(void)
{
    sc_payload_list a = {NULL, 0, 0}, b = {NULL, 0, 0};
    addf(&a, "x", "a");
    addf(&a, "y", "b");
    addf(&b, "y", "b");
    addf(&b, "x", "a");
    char ha[65], hb[65];
    sc_error err;
    CU_ASSERT_EQUAL(sc_payload_digest(&a, ha, &err), SC_OK);
    CU_ASSERT_EQUAL(sc_payload_digest(&b, hb, &err), SC_OK);
    CU_ASSERT_STRING_EQUAL(ha, hb);
    sc_payload_list_free(&a);
    sc_payload_list_free(&b);
}

/* ---- the parser (14.4) -------------------------------------------------- */

static void test_parser_accepts_the_header_alone(void)
{
    sc_payload_list l = {NULL, 0, 0};
    sc_error err;
    CU_ASSERT_EQUAL(sc_payload_parse(HDR, 20, &l, &err), SC_OK);
    CU_ASSERT_EQUAL(l.count, 0);
    sc_payload_list_free(&l);
}

static void test_parser_requires_the_header(void)
{
    PARSE("", SC_E_INVALID_PAYLOAD_LIST);
    PARSE("sha256-path-list-v1", SC_E_INVALID_PAYLOAD_LIST);
    PARSE("sha256-path-list-v2\n", SC_E_INVALID_PAYLOAD_LIST);
    PARSE("SHA256-path-list-v1\n", SC_E_INVALID_PAYLOAD_LIST);
    PARSE("sha256-path-list-v1\r\n", SC_E_INVALID_PAYLOAD_LIST);
    PARSE("\xef\xbb\xbfsha256-path-list-v1\n", SC_E_INVALID_PAYLOAD_LIST);
}

static void test_parser_refuses_a_record_without_nul(void)
{
    PARSE(HDR "x", SC_E_INVALID_PAYLOAD_LIST);
    PARSE(HDR "x\0f\0" HEX_A "\n" "trailing", SC_E_INVALID_PAYLOAD_LIST);
}

static void test_parser_refuses_a_truncated_record(void)
{
    PARSE(HDR "x\0f\0" HEX_A, SC_E_INVALID_PAYLOAD_LIST);
    PARSE(HDR "x\0f\0", SC_E_INVALID_PAYLOAD_LIST);
    PARSE(HDR "x\0", SC_E_INVALID_PAYLOAD_LIST);
}

static void test_parser_refuses_an_unknown_kind_byte(void)
{
    PARSE(HDR "x\0d\0" HEX_A "\n", SC_E_INVALID_PAYLOAD_LIST);
    PARSE(HDR "x\0F\0" HEX_A "\n", SC_E_INVALID_PAYLOAD_LIST);
    PARSE(HDR "x\0L\0" HEX_A "\n", SC_E_INVALID_PAYLOAD_LIST);
}

static void test_parser_refuses_a_wrong_separator(void)
{
    PARSE(HDR "x\0f " HEX_A "\n", SC_E_INVALID_PAYLOAD_LIST);
    PARSE(HDR "x\0f\0" HEX_A " ", SC_E_INVALID_PAYLOAD_LIST);
    PARSE(HDR "x\0f\0" HEX_A "\r", SC_E_INVALID_PAYLOAD_LIST);
}

static void test_parser_refuses_invalid_utf8(void)
{
    PARSE(HDR "\xff\0f\0" HEX_A "\n", SC_E_INVALID_PAYLOAD_LIST);
    PARSE(HDR "\xc0\xaf\0f\0" HEX_A "\n", SC_E_INVALID_PAYLOAD_LIST); /* overlong '/' */
    PARSE(HDR "\xed\xa0\x80\0f\0" HEX_A "\n", SC_E_INVALID_PAYLOAD_LIST); /* surrogate */
}

static void test_parser_refuses_an_invalid_digest(void)
{
    PARSE(HDR "x\0f\0"
              "CA978112CA1BBDCAFAC231B39A23DC4DA786EFF8147C4E72B9807785AFEE48BB\n",
          SC_E_INVALID_PAYLOAD_LIST);
    PARSE(HDR "x\0f\0"
              "ga978112ca1bbdcafac231b39a23dc4da786eff8147c4e72b9807785afee48bb\n",
          SC_E_INVALID_PAYLOAD_LIST);
}

static void test_parser_refuses_a_path_named_twice(void)
{
    PARSE(HDR "x\0f\0" HEX_A "\n" "x\0f\0" HEX_A "\n", SC_E_INVALID_PAYLOAD_LIST);
    /* same path, different kind: the later record is greater, still twice */
    PARSE(HDR "x\0f\0" HEX_A "\n" "x\0l\0" HEX_A "\n", SC_E_INVALID_PAYLOAD_LIST);
    sc_error err;
    const char t[] = HDR "x\0f\0" HEX_A "\n" "x\0l\0" HEX_A "\n";
    CU_ASSERT_EQUAL(parse_text(t, sizeof t - 1, &err), SC_E_INVALID_PAYLOAD_LIST);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "twice"));
}

static void test_parser_refuses_records_out_of_order(void)
{
    PARSE(HDR "y\0f\0" HEX_A "\n" "x\0f\0" HEX_B "\n", SC_E_INVALID_PAYLOAD_LIST);
    PARSE(HDR "a/b\0f\0" HEX_A "\n" "a.txt\0f\0" HEX_B "\n", SC_E_INVALID_PAYLOAD_LIST);
    /* shorter first: "ab" before "a" is out of order */
    PARSE(HDR "ab\0f\0" HEX_A "\n" "a\0f\0" HEX_B "\n", SC_E_INVALID_PAYLOAD_LIST);
    PARSE(HDR "a\0f\0" HEX_A "\n" "ab\0f\0" HEX_B "\n", SC_OK);
}

static void test_parser_frames_by_nul_not_by_newline(void)
{
    const char t[] = HDR "we\nird\0f\0" HEX_A "\n" "weird\0l\0" HEX_B "\n";
    sc_payload_list l = {NULL, 0, 0};
    sc_error err;
    CU_ASSERT_EQUAL_FATAL(sc_payload_parse(t, sizeof t - 1, &l, &err), SC_OK);
    CU_ASSERT_EQUAL_FATAL(l.count, 2);
    CU_ASSERT_STRING_EQUAL(l.entries[0].path, "we\nird");
    CU_ASSERT_EQUAL(l.entries[0].path_len, 6);
    CU_ASSERT_EQUAL(l.entries[0].kind, SC_PAYLOAD_FILE);
    CU_ASSERT_STRING_EQUAL(l.entries[0].sha256, HEX_A);
    CU_ASSERT_EQUAL(l.entries[1].kind, SC_PAYLOAD_LINK);
    CU_ASSERT_EQUAL(l.entries[1].mode, 0);
    CU_ASSERT_PTR_NULL(l.entries[1].link_target);
    sc_payload_list_free(&l);
}

static void test_parser_refuses_unsafe_paths(void)
{
    PARSE(HDR "../x\0f\0" HEX_A "\n", SC_E_UNSAFE_PATH);
    PARSE(HDR "/etc\0f\0" HEX_A "\n", SC_E_UNSAFE_PATH);
    PARSE(HDR "\0f\0" HEX_A "\n", SC_E_UNSAFE_PATH);
    PARSE(HDR "a\\b\0f\0" HEX_A "\n", SC_E_UNSAFE_PATH);
    PARSE(HDR "a//b\0f\0" HEX_A "\n", SC_E_UNSAFE_PATH);
    PARSE(HDR "C:x\0f\0" HEX_A "\n", SC_E_UNSAFE_PATH);
    PARSE(HDR "a/./b\0f\0" HEX_A "\n", SC_E_UNSAFE_PATH);
}

static void test_parser_grammar_comes_before_path_safety(void)
{
    /* an unsafe first record and a broken second one: the grammar wins */
    PARSE(HDR "../x\0f\0" HEX_A "\n" "y\0z\0" HEX_A "\n", SC_E_INVALID_PAYLOAD_LIST);
}

static void test_parser_refuses_paths_equal_under_case_folding(void)
{
    PARSE(HDR "Box.json\0f\0" HEX_A "\n" "box.json\0f\0" HEX_B "\n", SC_E_ENTRY_COLLISION);
    PARSE(HDR "A\0f\0" HEX_A "\n" "B\0f\0" HEX_A "\n" "a\0f\0" HEX_A "\n",
          SC_E_ENTRY_COLLISION);
}

/* ---- collection (14.3) -------------------------------------------------- */

static void test_collect_skips_pycache_subtrees_at_every_depth(void)
{
    char *root = sc_test_tmpdir();
    put(root, "keep.py", "k");
    put(root, "__pycache__/keep.cpython-312.opt", "x");
    put(root, "pkg/__pycache__/deep/file.txt", "x");
    put(root, "pkg/mod.py", "m");
    link_at(root, "pkg/__pycache__/deep/link", "x");
    sc_payload_list l = {NULL, 0, 0};
    collect_ok(root, &l);
    CU_ASSERT_EQUAL(l.count, 2);
    CU_ASSERT_PTR_NOT_NULL(find(&l, "keep.py"));
    CU_ASSERT_PTR_NOT_NULL(find(&l, "pkg/mod.py"));
    sc_payload_list_free(&l);
    sc_test_rmtree(root);
    free(root);
}

static void test_collect_skips_ds_store_at_every_depth(void)
{
    char *root = sc_test_tmpdir();
    put(root, ".DS_Store", "x");
    put(root, "a/.DS_Store", "x");
    put(root, "a/.ds_store", "kept: the rule is case-sensitive");
    sc_payload_list l = {NULL, 0, 0};
    collect_ok(root, &l);
    CU_ASSERT_EQUAL(l.count, 1);
    CU_ASSERT_PTR_NOT_NULL(find(&l, "a/.ds_store"));
    sc_payload_list_free(&l);
    sc_test_rmtree(root);
    free(root);
}

static void test_collect_skips_pyc_suffix_case_sensitively(void)
{
    char *root = sc_test_tmpdir();
    put(root, "m.pyc", "x");
    put(root, "sub/n.cpython-312.pyc", "x");
    put(root, ".pyc", "x");
    put(root, "M.PYC", "kept");
    put(root, "m.pyco", "kept");
    put(root, "pyc", "kept");
    link_at(root, "l.pyc", "m.pyc");
    sc_payload_list l = {NULL, 0, 0};
    collect_ok(root, &l);
    CU_ASSERT_EQUAL(l.count, 3);
    CU_ASSERT_PTR_NOT_NULL(find(&l, "M.PYC"));
    CU_ASSERT_PTR_NOT_NULL(find(&l, "m.pyco"));
    CU_ASSERT_PTR_NOT_NULL(find(&l, "pyc"));
    sc_payload_list_free(&l);
    sc_test_rmtree(root);
    free(root);
}

static void test_collect_skips_the_list_file_only_at_the_root(void)
{
    char *root = sc_test_tmpdir();
    put(root, SC_PAYLOAD_LIST_NAME, "old list");
    put(root, "sub/" SC_PAYLOAD_LIST_NAME, "an ordinary file here");
    sc_payload_list l = {NULL, 0, 0};
    collect_ok(root, &l);
    CU_ASSERT_EQUAL(l.count, 1);
    CU_ASSERT_PTR_NOT_NULL(find(&l, "sub/" SC_PAYLOAD_LIST_NAME));
    sc_payload_list_free(&l);
    sc_test_rmtree(root);
    free(root);
}

static void test_skipped_name_predicate(void)
{
    CU_ASSERT_TRUE(sc_payload_skipped_name("__pycache__"));
    CU_ASSERT_TRUE(sc_payload_skipped_name(".DS_Store"));
    CU_ASSERT_TRUE(sc_payload_skipped_name("x.pyc"));
    CU_ASSERT_TRUE(sc_payload_skipped_name(".pyc"));
    CU_ASSERT_FALSE(sc_payload_skipped_name("x.PYC"));
    CU_ASSERT_FALSE(sc_payload_skipped_name("__PYCACHE__"));
    CU_ASSERT_FALSE(sc_payload_skipped_name("__pycache__x"));
    CU_ASSERT_FALSE(sc_payload_skipped_name("pyc"));
    CU_ASSERT_FALSE(sc_payload_skipped_name("x.py"));
    CU_ASSERT_FALSE(sc_payload_skipped_name(SC_PAYLOAD_LIST_NAME));
    CU_ASSERT_FALSE(sc_payload_skipped_name(""));
}

static void test_collect_directories_are_not_entries(void)
{
    char *root = sc_test_tmpdir();
    mkdir_at(root, "empty");
    mkdir_at(root, "empty/deeper");
    put(root, "full/f", "x");
    sc_payload_list l = {NULL, 0, 0};
    collect_ok(root, &l);
    CU_ASSERT_EQUAL(l.count, 1);
    CU_ASSERT_STRING_EQUAL(l.entries[0].path, "full/f");
    sc_payload_list_free(&l);
    sc_test_rmtree(root);
    free(root);
}

static void test_collect_never_follows_links(void)
{
    char *root = sc_test_tmpdir();
    char *outside = sc_test_tmpdir();
    put(outside, "secret", "s");
    link_at(root, "dirlink", outside);
    link_at(root, "dangling", "does/not/exist");
    sc_payload_list l = {NULL, 0, 0};
    collect_ok(root, &l);
    CU_ASSERT_EQUAL_FATAL(l.count, 2);
    const sc_payload_entry *d = find(&l, "dirlink");
    CU_ASSERT_FATAL(d != NULL);
    CU_ASSERT_EQUAL(d->kind, SC_PAYLOAD_LINK);
    CU_ASSERT_STRING_EQUAL(d->link_target, outside);
    CU_ASSERT_EQUAL(d->size, strlen(outside));
    char hex[65];
    sc_error err;
    CU_ASSERT_EQUAL(sc_sha256_hex(outside, strlen(outside), hex, &err), SC_OK);
    CU_ASSERT_STRING_EQUAL(d->sha256, hex);
    CU_ASSERT_PTR_NOT_NULL(find(&l, "dangling"));
    sc_payload_list_free(&l);
    sc_test_rmtree(root);
    sc_test_rmtree(outside);
    free(root);
    free(outside);
}

static void test_collect_refuses_special_entries(void)
{
    char *root = sc_test_tmpdir();
    put(root, "a", "x");
    char *fifo = join(root, "sub");
    CU_ASSERT_EQUAL_FATAL(mkdir(fifo, 0755), 0);
    free(fifo);
    fifo = join(root, "sub/pipe");
    CU_ASSERT_EQUAL_FATAL(mkfifo(fifo, 0644), 0);
    free(fifo);
    sc_payload_list l = {NULL, 0, 0};
    sc_error err;
    SC_EXPECT_CODE(sc_payload_collect(root, SC_PAYLOAD_HASH, &l, &err), SC_E_SPECIAL_ENTRY, &err);
    CU_ASSERT_STRING_EQUAL(err.path, "sub/pipe");
    CU_ASSERT_EQUAL(l.count, 0);
    CU_ASSERT_PTR_NULL(l.entries);
    sc_test_rmtree(root);
    free(root);
}

static void test_collect_reports_problems_in_name_order(void)
{
    char *root = sc_test_tmpdir();
    static const char *const pipes[] = {"m-pipe", "z-pipe", "c-pipe", "q-pipe"};
    for (size_t i = 0; i < 4; i++) {
        char *p = join(root, pipes[i]);
        CU_ASSERT_EQUAL_FATAL(mkfifo(p, 0644), 0);
        free(p);
    }
    sc_payload_list l = {NULL, 0, 0};
    sc_error err;
    SC_EXPECT_CODE(sc_payload_collect(root, 0, &l, &err), SC_E_SPECIAL_ENTRY, &err);
    CU_ASSERT_STRING_EQUAL(err.path, "c-pipe");
    sc_test_rmtree(root);
    free(root);
}

static void test_collect_skip_rules_come_before_the_special_entry_rule(void)
{
    char *root = sc_test_tmpdir();
    char *fifo = join(root, "x.pyc");
    CU_ASSERT_EQUAL_FATAL(mkfifo(fifo, 0644), 0);
    free(fifo);
    sc_payload_list l = {NULL, 0, 0};
    collect_ok(root, &l);
    CU_ASSERT_EQUAL(l.count, 0);
    sc_payload_list_free(&l);
    sc_test_rmtree(root);
    free(root);
}

static void test_collect_refuses_names_that_are_not_utf8(void)
{
    char *root = sc_test_tmpdir();
    put(root, "ok", "x");
    put(root, "bad\xff", "x");
    sc_payload_list l = {NULL, 0, 0};
    sc_error err;
    SC_EXPECT_CODE(sc_payload_collect(root, 0, &l, &err), SC_E_UNSAFE_PATH, &err);
    CU_ASSERT_EQUAL(l.count, 0);
    sc_test_rmtree(root);
    free(root);
}

static void test_collect_refuses_a_backslash_in_a_name(void)
{
    char *root = sc_test_tmpdir();
    put(root, "dir/a\\b", "x");
    sc_payload_list l = {NULL, 0, 0};
    sc_error err;
    SC_EXPECT_CODE(sc_payload_collect(root, SC_PAYLOAD_HASH, &l, &err), SC_E_UNSAFE_PATH, &err);
    sc_test_rmtree(root);
    free(root);
}

static void test_collect_refuses_a_link_target_that_is_not_utf8(void)
{
    char *root = sc_test_tmpdir();
    link_at(root, "l", "t\xfe");
    sc_payload_list l = {NULL, 0, 0};
    sc_error err;
    SC_EXPECT_CODE(sc_payload_collect(root, SC_PAYLOAD_HASH, &l, &err), SC_E_UNSAFE_PATH, &err);
    sc_test_rmtree(root);
    free(root);
}

static void test_collect_refuses_paths_equal_under_case_folding(void)
{
    char *root = sc_test_tmpdir();
    put(root, "Lib/A.py", "x");
    put(root, "Lib/b.py", "x");
    put(root, "Lib/a.py", "y");
    sc_payload_list l = {NULL, 0, 0};
    sc_error err;
    SC_EXPECT_CODE(sc_payload_collect(root, SC_PAYLOAD_HASH, &l, &err), SC_E_ENTRY_COLLISION,
                   &err);
    CU_ASSERT_EQUAL(l.count, 0);
    /* different directories only differ in case: the paths still collide */
    sc_test_rmtree(root);
    free(root);
    root = sc_test_tmpdir();
    put(root, "Lib/x", "x");
    put(root, "lib/x", "x");
    SC_EXPECT_CODE(sc_payload_collect(root, 0, &l, &err), SC_E_ENTRY_COLLISION, &err);
    sc_test_rmtree(root);
    free(root);
}

static void test_collect_records_size_and_mode_but_not_in_the_digest(void)
{
    char *root = sc_test_tmpdir();
    put(root, "run.sh", "#!/bin/sh\n");
    char *p = join(root, "run.sh");
    CU_ASSERT_EQUAL(chmod(p, 0755), 0);
    sc_payload_list a = {NULL, 0, 0}, b = {NULL, 0, 0};
    collect_ok(root, &a);
    CU_ASSERT_EQUAL_FATAL(a.count, 1);
    CU_ASSERT_EQUAL(a.entries[0].size, 10);
    CU_ASSERT_EQUAL(a.entries[0].mode, 0755);
    CU_ASSERT_EQUAL(chmod(p, 0600), 0);
    struct timeval tv[2] = {{1000, 0}, {1000, 0}};
    CU_ASSERT_EQUAL(utimes(p, tv), 0);
    collect_ok(root, &b);
    CU_ASSERT_EQUAL(b.entries[0].mode, 0600);
    char ha[65], hb[65];
    sc_error err;
    CU_ASSERT_EQUAL(sc_payload_digest(&a, ha, &err), SC_OK);
    CU_ASSERT_EQUAL(sc_payload_digest(&b, hb, &err), SC_OK);
    CU_ASSERT_STRING_EQUAL(ha, hb);
    sc_payload_list_free(&a);
    sc_payload_list_free(&b);
    free(p);
    sc_test_rmtree(root);
    free(root);
}

static void test_logical_size_counts_the_list_file(void)
{
    char *root = sc_test_tmpdir();
    put(root, "f", "abc");
    link_at(root, "l", "f");
    put(root, "payload-digest.v1", "0123456789");
    put(root, "__pycache__/x.pyc", "skipped");
    sc_payload_list l = {NULL, 0, 0};
    sc_error err;
    CU_ASSERT_EQUAL_FATAL(sc_payload_collect(root, 0, &l, &err), SC_OK);
    uint64_t size = 0;
    CU_ASSERT_EQUAL(sc_payload_measure(&l, &size, &err), SC_OK);
    CU_ASSERT_EQUAL(size, 4);               /* records only: 3 + 1 */
    CU_ASSERT_EQUAL(sc_payload_logical_size(root, &l, &size, &err), SC_OK);
    CU_ASSERT_EQUAL(size, 14);              /* plus the 10-byte list file */
    sc_payload_list_free(&l);
    sc_test_rmtree(root);
    free(root);
}

static void test_collect_without_hash_flag_leaves_digests_empty(void)
{
    char *root = sc_test_tmpdir();
    put(root, "f", "abc");
    link_at(root, "l", "f");
    sc_payload_list l = {NULL, 0, 0};
    sc_error err;
    CU_ASSERT_EQUAL_FATAL(sc_payload_collect(root, 0, &l, &err), SC_OK);
    CU_ASSERT_EQUAL_FATAL(l.count, 2);
    CU_ASSERT_STRING_EQUAL(l.entries[0].sha256, "");
    CU_ASSERT_STRING_EQUAL(l.entries[1].sha256, "");
    CU_ASSERT_STRING_EQUAL(l.entries[1].link_target, "f");
    uint64_t size = 0;
    CU_ASSERT_EQUAL(sc_payload_measure(&l, &size, &err), SC_OK);
    CU_ASSERT_EQUAL(size, 4);
    /* without digests there is no stream */
    char hex[65];
    CU_ASSERT_EQUAL(sc_payload_digest(&l, hex, &err), SC_E_INVALID_PAYLOAD_LIST);
    sc_payload_list_free(&l);
    sc_test_rmtree(root);
    free(root);
}

static void test_collect_is_independent_of_creation_order(void)
{
    static const char *const names[] = {"b/2", "a/1", "c", "a/0", "b/1/x", "B", "aa", "a.b"};
    const size_t n = sizeof names / sizeof names[0];
    char *one = sc_test_tmpdir(), *two = sc_test_tmpdir();
    for (size_t i = 0; i < n; i++)
        put(one, names[i], names[i]);
    for (size_t i = n; i > 0; i--)
        put(two, names[i - 1], names[i - 1]);
    sc_payload_list a = {NULL, 0, 0}, b = {NULL, 0, 0};
    collect_ok(one, &a);
    collect_ok(two, &b);
    CU_ASSERT_EQUAL_FATAL(a.count, n);
    CU_ASSERT_EQUAL_FATAL(b.count, n);
    for (size_t i = 0; i < n; i++)
        CU_ASSERT_STRING_EQUAL(a.entries[i].path, b.entries[i].path);
    for (size_t i = 1; i < n; i++)
        CU_ASSERT(strcmp(a.entries[i - 1].path, a.entries[i].path) < 0);
    char ha[65], hb[65];
    sc_error err;
    CU_ASSERT_EQUAL(sc_payload_digest(&a, ha, &err), SC_OK);
    CU_ASSERT_EQUAL(sc_payload_digest(&b, hb, &err), SC_OK);
    CU_ASSERT_STRING_EQUAL(ha, hb);
    sc_payload_list_free(&a);
    sc_payload_list_free(&b);
    sc_test_rmtree(one);
    sc_test_rmtree(two);
    free(one);
    free(two);
}

static void test_collect_hashes_every_file_with_two_threads(void)
{
    char *root = sc_test_tmpdir();
    char name[64], text[64];
    for (int i = 0; i < 200; i++) {
        snprintf(name, sizeof name, "d%d/f%03d", i % 7, i);
        snprintf(text, sizeof text, "content of file %d\n", i);
        put(root, name, text);
    }
    /* one file larger than the read buffer */
    char *big = join(root, "big.bin");
    int fd = open(big, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    CU_ASSERT_FATAL(fd >= 0);
    char block[4096];
    for (size_t i = 0; i < sizeof block; i++)
        block[i] = (char)(i * 7);
    for (int i = 0; i < 600; i++)
        CU_ASSERT_EQUAL(write(fd, block, sizeof block), (ssize_t)sizeof block);
    close(fd);
    sc_payload_list l = {NULL, 0, 0};
    collect_ok(root, &l);
    CU_ASSERT_EQUAL(l.count, 201);
    sc_error err;
    for (size_t i = 0; i < l.count; i++) {
        char *p = join(root, l.entries[i].path);
        unsigned char md[SC_SHA256_LEN];
        char hex[65];
        CU_ASSERT_EQUAL(sc_sha256_file(p, md, &err), SC_OK);
        sc_hex_lower(md, SC_SHA256_LEN, hex);
        CU_ASSERT_STRING_EQUAL(l.entries[i].sha256, hex);
        free(p);
    }
    CU_ASSERT_EQUAL(find(&l, "big.bin")->size, 600u * 4096u);
    free(big);
    sc_payload_list_free(&l);
    sc_test_rmtree(root);
    free(root);
}

/* A collection of root with options; fails the test on an error. */
static void collect_with_ok(const char *root, unsigned flags, unsigned jobs,
                            const sc_payload_list *reuse, sc_payload_list *l)
{
    sc_error err;
    sc_payload_options o = {.jobs = jobs, .reuse = reuse};
    sc_code c = sc_payload_collect_with(root, flags, &o, l, &err);
    SC_EXPECT_CODE(c, SC_OK, &err);
    CU_ASSERT_FATAL(c == SC_OK);
}

static void sleep_ms(long ms)
{
    struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&t, &t) != 0)
        ;
}

static const char BOGUS[] = "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff";

static void test_collect_with_crc_records_each_files_crc32(void)
{
    char *root = sc_test_tmpdir();
    put(root, "a.txt", "hello");
    put(root, "b/c.bin", "");
    link_at(root, "l", "a.txt");
    sc_payload_list l = {NULL, 0, 0};
    collect_with_ok(root, SC_PAYLOAD_HASH | SC_PAYLOAD_CRC, 1, NULL, &l);
    CU_ASSERT_EQUAL(find(&l, "a.txt")->crc32, (uint32_t)crc32(0L, (const Bytef *)"hello", 5));
    CU_ASSERT_EQUAL(find(&l, "a.txt")->has_crc, 1);
    CU_ASSERT_EQUAL(find(&l, "b/c.bin")->crc32, 0u);
    CU_ASSERT_EQUAL(find(&l, "b/c.bin")->has_crc, 1);
    CU_ASSERT_EQUAL(find(&l, "l")->has_crc, 0);
    sc_payload_list_free(&l);
    sc_test_rmtree(root);
    free(root);
}

static void test_collect_reuses_the_digest_of_a_file_unchanged_since_it_was_hashed(void)
{
    /* The file settles (its times lie well before the first hashing), the
     * reuse list's digest is replaced by a bogus one: the second collection
     * takes it unread.  After a change of the same size it reads again. */
    char *root = sc_test_tmpdir();
    if (!sc_file_stamps_trusted_path(root)) {
        fprintf(stderr, "\n  SKIP reuse: the temporary directory's filesystem keeps stamps it cannot trust\n");
        sc_test_rmtree(root);
        free(root);
        return;
    }
    put(root, "model.bin", "weights");
    sleep_ms(SC_PAYLOAD_RACY_NS / 1000000 + 30);
    sc_payload_list first = {NULL, 0, 0}, again = {NULL, 0, 0};
    collect_with_ok(root, SC_PAYLOAD_HASH | SC_PAYLOAD_CRC, 2, NULL, &first);
    sc_payload_entry *e = (sc_payload_entry *)find(&first, "model.bin");
    CU_ASSERT_EQUAL_FATAL(e->stamp.valid, 1);
    char real[65];
    memcpy(real, e->sha256, sizeof real);
    memcpy(e->sha256, BOGUS, sizeof e->sha256);
    collect_with_ok(root, SC_PAYLOAD_HASH | SC_PAYLOAD_CRC, 2, &first, &again);
    CU_ASSERT_STRING_EQUAL(find(&again, "model.bin")->sha256, BOGUS);
    CU_ASSERT_EQUAL(find(&again, "model.bin")->crc32, e->crc32);
    sc_payload_list_free(&again);
    put(root, "model.bin", "weightz"); /* same size: ctime moves on */
    collect_with_ok(root, SC_PAYLOAD_HASH | SC_PAYLOAD_CRC, 2, &first, &again);
    CU_ASSERT_STRING_NOT_EQUAL(find(&again, "model.bin")->sha256, BOGUS);
    CU_ASSERT_STRING_NOT_EQUAL(find(&again, "model.bin")->sha256, real);
    sc_payload_list_free(&again);
    sc_payload_list_free(&first);
    sc_test_rmtree(root);
    free(root);
}

/* On a filesystem whose stamps it cannot trust (here ramfs, which
 * file.h's list leaves out), a reuse list is never taken: every file is
 * read again. */
static void test_collect_reads_again_where_the_filesystem_stamps_are_not_trusted(void)
{
    char *root = sc_test_tmpdir();
    if (mount("ramfs", root, "ramfs", 0, NULL) != 0) {
        fprintf(stderr, "\n  SKIP untrusted stamps: cannot mount a ramfs (%s)\n", strerror(errno));
        sc_test_rmtree(root);
        free(root);
        return;
    }
    CU_ASSERT_EQUAL(sc_file_stamps_trusted_path(root), 0);
    put(root, "model.bin", "weights");
    sleep_ms(SC_PAYLOAD_RACY_NS / 1000000 + 30);
    sc_payload_list first = {NULL, 0, 0}, again = {NULL, 0, 0};
    collect_with_ok(root, SC_PAYLOAD_HASH | SC_PAYLOAD_CRC, 1, NULL, &first);
    sc_payload_entry *e = (sc_payload_entry *)find(&first, "model.bin");
    char real[65];
    memcpy(real, e->sha256, sizeof real);
    memcpy(e->sha256, BOGUS, sizeof e->sha256);
    collect_with_ok(root, SC_PAYLOAD_HASH | SC_PAYLOAD_CRC, 1, &first, &again);
    CU_ASSERT_STRING_EQUAL(find(&again, "model.bin")->sha256, real);
    sc_payload_list_free(&again);
    sc_payload_list_free(&first);
    umount2(root, MNT_DETACH);
    sc_test_rmtree(root);
    free(root);
}

static void test_stamps_are_trusted_only_on_known_local_filesystems(void)
{
    CU_ASSERT_EQUAL(sc_file_stamps_trusted_path("/proc"), 0);
    CU_ASSERT_EQUAL(sc_file_stamps_trusted_path("/nonexistent-scrollcase-path"), 0);
    CU_ASSERT_EQUAL(sc_file_stamps_trusted(-1), 0);
    char *root = sc_test_tmpdir();
    if (mount("tmpfs", root, "tmpfs", 0, "size=1m") == 0) {
        CU_ASSERT_EQUAL(sc_file_stamps_trusted_path(root), 1);
        int fd = open(root, O_RDONLY | O_DIRECTORY);
        CU_ASSERT_EQUAL(sc_file_stamps_trusted(fd), 1);
        if (fd >= 0)
            close(fd);
        umount2(root, MNT_DETACH);
    } else {
        fprintf(stderr, "\n  SKIP trusted stamps on tmpfs: cannot mount (%s)\n", strerror(errno));
    }
    sc_test_rmtree(root);
    free(root);
}

static void test_collect_reuses_a_subtree_list_under_its_directory(void)
{
    /* The environment is hashed where it was copied (root/venv); the
     * payload's collection reuses those records for venv/..., and only
     * there. */
    char *root = sc_test_tmpdir();
    if (!sc_file_stamps_trusted_path(root)) {
        fprintf(stderr, "\n  SKIP reuse: the temporary directory's filesystem keeps stamps it cannot trust\n");
        sc_test_rmtree(root);
        free(root);
        return;
    }
    put(root, "venv/lib/mod.py", "x = 1\n");
    put(root, "lib/mod.py", "x = 1\n");
    sleep_ms(SC_PAYLOAD_RACY_NS / 1000000 + 30);
    char *venv = join(root, "venv");
    sc_payload_list env = {NULL, 0, 0}, all = {NULL, 0, 0};
    collect_with_ok(venv, SC_PAYLOAD_HASH | SC_PAYLOAD_CRC, 1, NULL, &env);
    sc_payload_entry *e = (sc_payload_entry *)find(&env, "lib/mod.py");
    CU_ASSERT_PTR_NOT_NULL_FATAL(e);
    char real[65];
    memcpy(real, e->sha256, sizeof real);
    memcpy(e->sha256, BOGUS, sizeof e->sha256);
    sc_error err;
    sc_payload_options o = {.jobs = 1, .reuse_sub = &env, .reuse_under = "venv"};
    SC_EXPECT_CODE(sc_payload_collect_with(root, SC_PAYLOAD_HASH | SC_PAYLOAD_CRC, &o, &all, &err),
                   SC_OK, &err);
    CU_ASSERT_STRING_EQUAL(find(&all, "venv/lib/mod.py")->sha256, BOGUS);
    CU_ASSERT_STRING_EQUAL(find(&all, "lib/mod.py")->sha256, real);
    sc_payload_list_free(&all);
    sc_payload_list_free(&env);
    free(venv);
    sc_test_rmtree(root);
    free(root);
}

static void test_collect_rereads_a_file_changed_close_to_its_hashing(void)
{
    /* Written right before the first hashing: within the clock's
     * granularity a change could keep its times, so it is read again.
     * "Right before" is set in the record (hashed a little less than
     * SC_PAYLOAD_RACY_NS after the file's last change), not left to how
     * quickly this test gets from the write to the hashing on a busy
     * machine. */
    char *root = sc_test_tmpdir();
    put(root, "fresh.py", "x = 1\n");
    sc_payload_list first = {NULL, 0, 0}, again = {NULL, 0, 0};
    collect_with_ok(root, SC_PAYLOAD_HASH, 1, NULL, &first);
    char real[65];
    sc_payload_entry *e = (sc_payload_entry *)find(&first, "fresh.py");
    memcpy(real, e->sha256, sizeof real);
    memcpy(e->sha256, BOGUS, sizeof e->sha256);
    int64_t changed = e->stamp.mtime_ns > e->stamp.ctime_ns ? e->stamp.mtime_ns : e->stamp.ctime_ns;
    e->stamp.hashed_at_ns = changed + SC_PAYLOAD_RACY_NS - 1000000;
    collect_with_ok(root, SC_PAYLOAD_HASH, 1, &first, &again);
    CU_ASSERT_STRING_EQUAL(find(&again, "fresh.py")->sha256, real);
    sc_payload_list_free(&again);
    /* A reuse list without CRCs is not reused when CRCs are asked for. */
    sleep_ms(SC_PAYLOAD_RACY_NS / 1000000 + 30);
    sc_payload_list_free(&first);
    collect_with_ok(root, SC_PAYLOAD_HASH, 1, NULL, &first);
    e = (sc_payload_entry *)find(&first, "fresh.py");
    memcpy(e->sha256, BOGUS, sizeof e->sha256);
    collect_with_ok(root, SC_PAYLOAD_HASH | SC_PAYLOAD_CRC, 1, &first, &again);
    CU_ASSERT_STRING_EQUAL(find(&again, "fresh.py")->sha256, real);
    sc_payload_list_free(&again);
    sc_payload_list_free(&first);
    sc_test_rmtree(root);
    free(root);
}

static void test_collect_results_do_not_depend_on_the_job_count(void)
{
    char *root = sc_test_tmpdir();
    char name[64], text[64];
    for (int i = 0; i < 40; i++) {
        snprintf(name, sizeof name, "d%d/f%03d", i % 3, i);
        snprintf(text, sizeof text, "file %d %*s", i, i * 10, "x");
        put(root, name, text);
    }
    sc_payload_list one = {NULL, 0, 0};
    collect_with_ok(root, SC_PAYLOAD_HASH | SC_PAYLOAD_CRC, 1, NULL, &one);
    char *s1 = NULL;
    size_t n1 = 0;
    sc_error err;
    CU_ASSERT_EQUAL_FATAL(sc_payload_serialize(&one, &s1, &n1, &err), SC_OK);
    unsigned jobs[2] = {2, 7};
    for (int j = 0; j < 2; j++) {
        sc_payload_list l = {NULL, 0, 0};
        collect_with_ok(root, SC_PAYLOAD_HASH | SC_PAYLOAD_CRC, jobs[j], NULL, &l);
        char *s = NULL;
        size_t n = 0;
        CU_ASSERT_EQUAL_FATAL(sc_payload_serialize(&l, &s, &n, &err), SC_OK);
        CU_ASSERT(n == n1 && memcmp(s, s1, n) == 0);
        for (size_t i = 0; i < l.count; i++)
            CU_ASSERT_EQUAL(l.entries[i].crc32, one.entries[i].crc32);
        free(s);
        sc_payload_list_free(&l);
    }
    free(s1);
    sc_payload_list_free(&one);
    sc_test_rmtree(root);
    free(root);
}

static void test_collect_root_must_be_a_real_directory(void)
{
    char *root = sc_test_tmpdir();
    put(root, "file", "x");
    mkdir_at(root, "dir");
    link_at(root, "dirlink", "dir");
    sc_payload_list l = {NULL, 0, 0};
    sc_error err;
    char *p = join(root, "file");
    CU_ASSERT_NOT_EQUAL(sc_payload_collect(p, 0, &l, &err), SC_OK);
    free(p);
    p = join(root, "dirlink");
    CU_ASSERT_NOT_EQUAL(sc_payload_collect(p, 0, &l, &err), SC_OK);
    free(p);
    p = join(root, "missing");
    CU_ASSERT_NOT_EQUAL(sc_payload_collect(p, 0, &l, &err), SC_OK);
    free(p);
    CU_ASSERT_EQUAL(l.count, 0);
    sc_test_rmtree(root);
    free(root);
}

/* ---- logical size -------------------------------------------------------- */

static void test_measure_sums_file_and_link_sizes(void)
{
    sc_payload_list l = {NULL, 0, 0};
    addf(&l, "a", "12345");
    addl(&l, "b", "abc");
    uint64_t size = 0;
    sc_error err;
    CU_ASSERT_EQUAL(sc_payload_measure(&l, &size, &err), SC_OK);
    CU_ASSERT_EQUAL(size, 8);
    sc_payload_list_free(&l);
}

static void test_measure_refuses_more_than_2_pow_53_minus_1(void)
{
    sc_payload_list l = {NULL, 0, 0};
    addf(&l, "a", "");
    addf(&l, "b", "");
    l.entries[0].size = SC_PAYLOAD_SIZE_MAX - 1;
    l.entries[1].size = 1;
    uint64_t size = 0;
    sc_error err;
    CU_ASSERT_EQUAL(sc_payload_measure(&l, &size, &err), SC_OK);
    CU_ASSERT_EQUAL(size, SC_PAYLOAD_SIZE_MAX);
    l.entries[1].size = 2;
    SC_EXPECT_CODE(sc_payload_measure(&l, &size, &err), SC_E_EXTRACTION_LIMIT, &err);
    l.entries[0].size = UINT64_MAX;
    SC_EXPECT_CODE(sc_payload_measure(&l, &size, &err), SC_E_EXTRACTION_LIMIT, &err);
    sc_payload_list_free(&l);
}

/* ---- writing the list ---------------------------------------------------- */

static void test_write_list_writes_the_stream_and_returns_its_digest(void)
{
    char hex[65];
    char *root = verified_tree(hex);
    char *p = join(root, SC_PAYLOAD_LIST_NAME);
    char *bytes = NULL;
    size_t n = 0;
    sc_error err;
    CU_ASSERT_EQUAL_FATAL(sc_file_read(p, &bytes, &n, NULL, &err), SC_OK);
    char got[65];
    CU_ASSERT_EQUAL(sc_sha256_hex(bytes, n, got, &err), SC_OK);
    CU_ASSERT_STRING_EQUAL(got, hex);
    CU_ASSERT(n > 20 && memcmp(bytes, HDR, 20) == 0);
    struct stat st;
    CU_ASSERT_EQUAL(lstat(p, &st), 0);
    CU_ASSERT_EQUAL(st.st_mode & 07777, 0644);
    /* collecting again skips the list it wrote: same digest */
    sc_payload_list l = {NULL, 0, 0};
    collect_ok(root, &l);
    CU_ASSERT_EQUAL(l.count, 4);
    CU_ASSERT_EQUAL(sc_payload_digest(&l, got, &err), SC_OK);
    CU_ASSERT_STRING_EQUAL(got, hex);
    sc_payload_list_free(&l);
    free(bytes);
    free(p);
    sc_test_rmtree(root);
    free(root);
}

/* ---- verification of an extracted payload (14.5) ------------------------ */

static void test_verify_accepts_the_tree_it_listed(void)
{
    char hex[65];
    char *root = verified_tree(hex);
    size_t count = 0;
    sc_error err;
    SC_EXPECT_CODE(verify(root, hex, &count, &err), SC_OK, &err);
    CU_ASSERT_EQUAL(count, 4);
    sc_test_rmtree(root);
    free(root);
}

static void test_verify_root_must_be_an_existing_real_directory(void)
{
    char hex[65];
    char *root = verified_tree(hex);
    sc_error err;
    char *p = join(root, "missing");
    SC_EXPECT_CODE(verify(p, hex, NULL, &err), SC_E_ATTACH_ROOT, &err);
    free(p);
    p = join(root, "box.json");
    SC_EXPECT_CODE(verify(p, hex, NULL, &err), SC_E_ATTACH_ROOT, &err);
    free(p);
    char *holder = sc_test_tmpdir();
    p = join(holder, "link");
    CU_ASSERT_EQUAL_FATAL(symlink(root, p), 0);
    SC_EXPECT_CODE(verify(p, hex, NULL, &err), SC_E_ATTACH_ROOT, &err);
    free(p);
    sc_test_rmtree(holder);
    free(holder);
    sc_test_rmtree(root);
    free(root);
}

static void test_verify_requires_the_list_file(void)
{
    char hex[65];
    char *root = verified_tree(hex);
    char *p = join(root, SC_PAYLOAD_LIST_NAME);
    CU_ASSERT_EQUAL(unlink(p), 0);
    sc_error err;
    SC_EXPECT_CODE(verify(root, hex, NULL, &err), SC_E_PAYLOAD_LIST_MISSING, &err);
    /* a directory or a link in its place is no list either */
    CU_ASSERT_EQUAL(symlink("box.json", p), 0);
    SC_EXPECT_CODE(verify(root, hex, NULL, &err), SC_E_PAYLOAD_LIST_MISSING, &err);
    free(p);
    sc_test_rmtree(root);
    free(root);
}

static void test_verify_refuses_a_list_larger_than_256_mib(void)
{
    char hex[65];
    char *root = verified_tree(hex);
    char *p = join(root, SC_PAYLOAD_LIST_NAME);
    int fd = open(p, O_WRONLY);
    CU_ASSERT_FATAL(fd >= 0);
    CU_ASSERT_EQUAL(ftruncate(fd, (off_t)SC_PAYLOAD_LIST_MAX + 1), 0); /* sparse */
    close(fd);
    sc_error err;
    SC_EXPECT_CODE(verify(root, hex, NULL, &err), SC_E_PAYLOAD_LIST_MISMATCH, &err);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "larger"));
    free(p);
    sc_test_rmtree(root);
    free(root);
}

static void test_verify_hashes_the_list_before_parsing_it(void)
{
    char hex[65];
    char *root = verified_tree(hex);
    char *p = join(root, SC_PAYLOAD_LIST_NAME);
    sc_error err;
    /* garbage that hashes to something else: a mismatch, not a parse error */
    CU_ASSERT_EQUAL_FATAL(sc_file_write_atomic(p, "garbage", 7, 0644, &err), SC_OK);
    SC_EXPECT_CODE(verify(root, hex, NULL, &err), SC_E_PAYLOAD_LIST_MISMATCH, &err);
    /* the same garbage, when it is what the release signed: a parse error */
    char ghex[65];
    CU_ASSERT_EQUAL(sc_sha256_hex("garbage", 7, ghex, &err), SC_OK);
    SC_EXPECT_CODE(verify(root, ghex, NULL, &err), SC_E_INVALID_PAYLOAD_LIST, &err);
    /* an unsafe path in a signed list */
    const char bad[] = HDR "../escape\0f\0" HEX_A "\n";
    CU_ASSERT_EQUAL_FATAL(sc_file_write_atomic(p, bad, sizeof bad - 1, 0644, &err), SC_OK);
    CU_ASSERT_EQUAL(sc_sha256_hex(bad, sizeof bad - 1, ghex, &err), SC_OK);
    SC_EXPECT_CODE(verify(root, ghex, NULL, &err), SC_E_UNSAFE_PATH, &err);
    free(p);
    sc_test_rmtree(root);
    free(root);
}

static void test_verify_refuses_a_tampered_list(void)
{
    char hex[65];
    char *root = verified_tree(hex);
    char *p = join(root, SC_PAYLOAD_LIST_NAME);
    char *bytes = NULL;
    size_t n = 0;
    sc_error err;
    CU_ASSERT_EQUAL_FATAL(sc_file_read(p, &bytes, &n, NULL, &err), SC_OK);
    bytes[n - 2] ^= 0x01;
    CU_ASSERT_EQUAL_FATAL(sc_file_write_atomic(p, bytes, n, 0644, &err), SC_OK);
    SC_EXPECT_CODE(verify(root, hex, NULL, &err), SC_E_PAYLOAD_LIST_MISMATCH, &err);
    free(bytes);
    free(p);
    sc_test_rmtree(root);
    free(root);
}

static void expect_mismatch_at(const char *root, const char *hex, const char *path)
{
    sc_error err;
    SC_EXPECT_CODE(verify(root, hex, NULL, &err), SC_E_PAYLOAD_MISMATCH, &err);
    CU_ASSERT_STRING_EQUAL(err.path, path);
}

static void test_verify_reports_the_first_mismatch_in_list_order(void)
{
    /* enough records for both threads; two of them changed */
    char *root = sc_test_tmpdir();
    char name[64];
    for (int i = 0; i < 150; i++) {
        snprintf(name, sizeof name, "lib/m%03d.py", i);
        put(root, name, name);
    }
    sc_payload_list l = {NULL, 0, 0};
    collect_ok(root, &l);
    char hex[65];
    sc_error err;
    CU_ASSERT_EQUAL_FATAL(sc_payload_write_list(root, &l, hex, &err), SC_OK);
    sc_payload_list_free(&l);
    size_t count = 0;
    SC_EXPECT_CODE(verify(root, hex, &count, &err), SC_OK, &err);
    CU_ASSERT_EQUAL(count, 150);
    put(root, "lib/m140.py", "changed");
    put(root, "lib/m037.py", "changed");
    for (int run = 0; run < 5; run++)
        expect_mismatch_at(root, hex, "lib/m037.py");
    put(root, "lib/m037.py", "lib/m037.py");
    expect_mismatch_at(root, hex, "lib/m140.py");
    sc_test_rmtree(root);
    free(root);
}

static void test_verify_reports_the_same_first_mismatch_with_any_job_count(void)
{
    /* Four big files and small ones: the big ones are left to the second
     * pass and spread over the threads; the first failure is still the first
     * in list order, with 1, 2 or 7 threads. */
    char *root = sc_test_tmpdir();
    char name[64];
    size_t big = 3u << 20;
    char *blob = malloc(big + 1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(blob);
    for (int i = 0; i < 4; i++) {
        memset(blob, 'a' + i, big);
        blob[big] = '\0';
        snprintf(name, sizeof name, "w/big%d.bin", i);
        put(root, name, blob);
    }
    free(blob);
    for (int i = 0; i < 40; i++) {
        snprintf(name, sizeof name, "lib/m%03d.py", i);
        put(root, name, name);
    }
    sc_payload_list l = {NULL, 0, 0};
    collect_ok(root, &l);
    char hex[65];
    sc_error err;
    CU_ASSERT_EQUAL_FATAL(sc_payload_write_list(root, &l, hex, &err), SC_OK);
    sc_payload_list_free(&l);
    unsigned jobs[3] = {1, 2, 7};
    for (int j = 0; j < 3; j++)
        SC_EXPECT_CODE(sc_payload_verify_tree_with(root, hex, jobs[j], NULL, &err), SC_OK, &err);
    put(root, "w/big3.bin", "short now");
    put(root, "w/big1.bin", "short too");
    for (int j = 0; j < 3; j++) {
        SC_EXPECT_CODE(sc_payload_verify_tree_with(root, hex, jobs[j], NULL, &err),
                       SC_E_PAYLOAD_MISMATCH, &err);
        CU_ASSERT_STRING_EQUAL(err.path, "w/big1.bin");
    }
    sc_test_rmtree(root);
    free(root);
}

/* A tree of four big files of different sizes (left to the second pass),
 * small files before them (lib/) and one after them (w/zz.py). */
static char *two_pass_tree(char hex[65])
{
    char *root = sc_test_tmpdir();
    char name[64];
    size_t big = (size_t)1 << 20;
    char *blob = malloc(4 * big + 1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(blob);
    for (int i = 0; i < 4; i++) {
        size_t n = (size_t)(i + 1) * big; /* the biggest last in list order */
        memset(blob, 'a' + i, n);
        blob[n] = '\0';
        snprintf(name, sizeof name, "w/big%d.bin", i);
        put(root, name, blob);
    }
    free(blob);
    for (int i = 0; i < 40; i++) {
        snprintf(name, sizeof name, "lib/m%03d.py", i);
        put(root, name, name);
    }
    put(root, "w/zz.py", "after the big ones\n");
    sc_payload_list l = {NULL, 0, 0};
    collect_ok(root, &l);
    sc_error err;
    CU_ASSERT_EQUAL_FATAL(sc_payload_write_list(root, &l, hex, &err), SC_OK);
    sc_payload_list_free(&l);
    return root;
}

/* Overwrite the first byte of root/rel in place (its size stays). */
static void flip_first_byte(const char *root, const char *rel)
{
    char *p = join(root, rel);
    int fd = open(p, O_WRONLY);
    CU_ASSERT_FATAL(fd >= 0);
    CU_ASSERT_EQUAL(pwrite(fd, "#", 1, 0), 1);
    close(fd);
    free(p);
}

static void expect_mismatch_with_jobs(const char *root, const char *hex, const char *path)
{
    unsigned jobs[3] = {1, 2, 7};
    for (int j = 0; j < 3; j++) {
        sc_error err;
        SC_EXPECT_CODE(sc_payload_verify_tree_with(root, hex, jobs[j], NULL, &err),
                       SC_E_PAYLOAD_MISMATCH, &err);
        CU_ASSERT_STRING_EQUAL(err.path, path);
    }
}

static void test_verify_reports_a_big_file_before_a_later_small_one(void)
{
    /* Big files are hashed after the small ones, largest first; a changed big
     * file is still reported before a changed small file later in the list. */
    char hex[65];
    char *root = two_pass_tree(hex);
    size_t count = 0;
    sc_error err;
    unsigned jobs[3] = {1, 2, 7};
    for (int j = 0; j < 3; j++) {
        SC_EXPECT_CODE(sc_payload_verify_tree_with(root, hex, jobs[j], &count, &err), SC_OK,
                       &err);
        CU_ASSERT_EQUAL(count, 45);
    }
    flip_first_byte(root, "w/zz.py");
    flip_first_byte(root, "w/big3.bin");
    flip_first_byte(root, "w/big1.bin");
    expect_mismatch_with_jobs(root, hex, "w/big1.bin");
    sc_test_rmtree(root);
    free(root);
}

static void test_verify_reports_an_earlier_small_file_before_a_big_one(void)
{
    char hex[65];
    char *root = two_pass_tree(hex);
    flip_first_byte(root, "w/big0.bin");
    flip_first_byte(root, "lib/m039.py");
    expect_mismatch_with_jobs(root, hex, "lib/m039.py");
    sc_test_rmtree(root);
    free(root);
}

static void test_verify_refuses_a_big_file_turned_into_a_link(void)
{
    char hex[65];
    char *root = two_pass_tree(hex);
    char *p = join(root, "w/big2.bin");
    CU_ASSERT_EQUAL(unlink(p), 0);
    CU_ASSERT_EQUAL(symlink("big3.bin", p), 0);
    expect_mismatch_with_jobs(root, hex, "w/big2.bin");
    free(p);
    sc_test_rmtree(root);
    free(root);
}

static void test_verify_refuses_a_missing_file(void)
{
    char hex[65];
    char *root = verified_tree(hex);
    char *p = join(root, "app/main.py");
    CU_ASSERT_EQUAL(unlink(p), 0);
    expect_mismatch_at(root, hex, "app/main.py");
    free(p);
    sc_test_rmtree(root);
    free(root);
}

static void test_verify_refuses_changed_bytes(void)
{
    char hex[65];
    char *root = verified_tree(hex);
    put(root, "app/main.py", "print('HI')\n");
    expect_mismatch_at(root, hex, "app/main.py");
    sc_test_rmtree(root);
    free(root);
}

static void test_verify_refuses_a_file_turned_into_a_link(void)
{
    char hex[65];
    char *root = verified_tree(hex);
    char *p = join(root, "box.json");
    CU_ASSERT_EQUAL(unlink(p), 0);
    put(root, "elsewhere.json", "{}\n");
    CU_ASSERT_EQUAL(symlink("elsewhere.json", p), 0);
    sc_error err;
    SC_EXPECT_CODE(verify(root, hex, NULL, &err), SC_E_PAYLOAD_MISMATCH, &err);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "not a file"));
    free(p);
    sc_test_rmtree(root);
    free(root);
}

/* A file record opened directly (no fstatat first): a FIFO there must not
 * make verify wait for a writer, and a FIFO or directory is "not a file". */
static void test_verify_refuses_a_file_turned_into_a_fifo_or_directory(void)
{
    const char *kinds[] = {"fifo", "directory"};
    for (size_t k = 0; k < 2; k++) {
        char hex[65];
        char *root = verified_tree(hex);
        char *p = join(root, "box.json");
        CU_ASSERT_EQUAL(unlink(p), 0);
        if (k == 0) {
            CU_ASSERT_EQUAL_FATAL(mkfifo(p, 0644), 0);
        } else {
            CU_ASSERT_EQUAL_FATAL(mkdir(p, 0755), 0);
        }
        sc_error err;
        SC_EXPECT_CODE(verify(root, hex, NULL, &err), SC_E_PAYLOAD_MISMATCH, &err);
        if (strstr(err.message, "box.json is not a file") == NULL)
            fprintf(stderr, "\n  %s: %s\n", kinds[k], err.message);
        CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "box.json is not a file"));
        free(p);
        sc_test_rmtree(root);
        free(root);
    }
}

static void test_verify_refuses_a_link_turned_into_a_file(void)
{
    char hex[65];
    char *root = verified_tree(hex);
    char *p = join(root, "venv/bin/python");
    CU_ASSERT_EQUAL(unlink(p), 0);
    put(root, "venv/bin/python", "python3.12"); /* the target's bytes */
    sc_error err;
    SC_EXPECT_CODE(verify(root, hex, NULL, &err), SC_E_PAYLOAD_MISMATCH, &err);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "not a link"));
    free(p);
    sc_test_rmtree(root);
    free(root);
}

static void test_verify_refuses_a_retargeted_link(void)
{
    char hex[65];
    char *root = verified_tree(hex);
    char *p = join(root, "venv/bin/python");
    CU_ASSERT_EQUAL(unlink(p), 0);
    CU_ASSERT_EQUAL(symlink("/usr/bin/python3", p), 0);
    expect_mismatch_at(root, hex, "venv/bin/python");
    free(p);
    sc_test_rmtree(root);
    free(root);
}

static void test_verify_never_reaches_an_entry_through_a_link(void)
{
    char hex[65];
    char *root = verified_tree(hex);
    /* app/ becomes a link to an identical copy: the bytes match, the path does not */
    put(root, "copy/main.py", "print('hi')\n");
    char *p = join(root, "app/main.py");
    CU_ASSERT_EQUAL(unlink(p), 0);
    free(p);
    p = join(root, "app");
    CU_ASSERT_EQUAL(rmdir(p), 0);
    CU_ASSERT_EQUAL(symlink("copy", p), 0);
    expect_mismatch_at(root, hex, "app/main.py");
    free(p);
    sc_test_rmtree(root);
    free(root);
}

static void test_verify_ignores_chmod_and_touch(void)
{
    char hex[65];
    char *root = verified_tree(hex);
    char *p = join(root, "app/main.py");
    CU_ASSERT_EQUAL(chmod(p, 0700), 0);
    struct timeval tv[2] = {{86400, 0}, {86400, 0}};
    CU_ASSERT_EQUAL(utimes(p, tv), 0);
    sc_error err;
    SC_EXPECT_CODE(verify(root, hex, NULL, &err), SC_OK, &err);
    free(p);
    sc_test_rmtree(root);
    free(root);
}

static void test_verify_ignores_extra_files(void)
{
    char hex[65];
    char *root = verified_tree(hex);
    put(root, "app/__pycache__/main.cpython-312.pyc", "bytecode");
    put(root, "logs/run.log", "anything");
    put(root, "weights/model.bin", "on-demand asset");
    char *fifo = join(root, "pipe");
    CU_ASSERT_EQUAL(mkfifo(fifo, 0644), 0);
    free(fifo);
    size_t count = 0;
    sc_error err;
    SC_EXPECT_CODE(verify(root, hex, &count, &err), SC_OK, &err);
    CU_ASSERT_EQUAL(count, 4);
    sc_test_rmtree(root);
    free(root);
}

static void test_verify_of_an_empty_list(void)
{
    char *root = sc_test_tmpdir();
    sc_payload_list l = {NULL, 0, 0};
    char hex[65];
    sc_error err;
    CU_ASSERT_EQUAL_FATAL(sc_payload_write_list(root, &l, hex, &err), SC_OK);
    CU_ASSERT_STRING_EQUAL(hex, "7774b93cbe3885bca0b65a24b06f7e510efaea4894d6224b2b5a8952afe6e798");
    size_t count = 99;
    SC_EXPECT_CODE(verify(root, hex, &count, &err), SC_OK, &err);
    CU_ASSERT_EQUAL(count, 0);
    sc_test_rmtree(root);
    free(root);
}

static void test_verify_checks_the_expected_digest_argument(void)
{
    char hex[65];
    char *root = verified_tree(hex);
    sc_error err;
    char upper[65];
    memcpy(upper, hex, sizeof upper);
    for (char *q = upper; *q; q++)
        if (*q >= 'a' && *q <= 'f')
            *q = (char)(*q - 'a' + 'A');
    int has_letter = strcmp(upper, hex) != 0;
    if (has_letter)
        SC_EXPECT_CODE(verify(root, upper, NULL, &err), SC_E_USAGE, &err);
    SC_EXPECT_CODE(verify(root, "abc", NULL, &err), SC_E_USAGE, &err);
    sc_test_rmtree(root);
    free(root);
}

void register_payload_tests(void)
{
    CU_pSuite s = CU_add_suite("payload", NULL, NULL);
    if (s == NULL)
        CU_FAIL_FATAL("CU_add_suite failed");
    /* 14.2 the stream and its vectors */
    SC_ADD_TEST(s, test_empty_payload_commits_to_its_format);
    SC_ADD_TEST(s, test_logical_size_counts_the_list_file);
    SC_ADD_TEST(s, test_single_regular_file_vector);
    SC_ADD_TEST(s, test_dot_sorts_before_slash);
    SC_ADD_TEST(s, test_order_is_by_utf8_bytes_not_utf16_units);
    SC_ADD_TEST(s, test_newline_in_a_name_keeps_the_framing);
    SC_ADD_TEST(s, test_link_differs_from_file_holding_its_target);
    SC_ADD_TEST(s, test_nested_paths_sort_by_whole_bytes);
    SC_ADD_TEST(s, test_serializer_refuses_an_empty_path);
    SC_ADD_TEST(s, test_serializer_refuses_a_nul_in_a_path);
    SC_ADD_TEST(s, test_serializer_refuses_a_duplicate_path);
    SC_ADD_TEST(s, test_serializer_refuses_uppercase_or_short_digests);
    SC_ADD_TEST(s, test_serializer_refuses_an_unknown_kind);
    SC_ADD_TEST(s, test_stream_is_independent_of_input_order);
    /* 14.4 the parser */
    SC_ADD_TEST(s, test_parser_accepts_the_header_alone);
    SC_ADD_TEST(s, test_parser_requires_the_header);
    SC_ADD_TEST(s, test_parser_refuses_a_record_without_nul);
    SC_ADD_TEST(s, test_parser_refuses_a_truncated_record);
    SC_ADD_TEST(s, test_parser_refuses_an_unknown_kind_byte);
    SC_ADD_TEST(s, test_parser_refuses_a_wrong_separator);
    SC_ADD_TEST(s, test_parser_refuses_invalid_utf8);
    SC_ADD_TEST(s, test_parser_refuses_an_invalid_digest);
    SC_ADD_TEST(s, test_parser_refuses_a_path_named_twice);
    SC_ADD_TEST(s, test_parser_refuses_records_out_of_order);
    SC_ADD_TEST(s, test_parser_frames_by_nul_not_by_newline);
    SC_ADD_TEST(s, test_parser_refuses_unsafe_paths);
    SC_ADD_TEST(s, test_parser_grammar_comes_before_path_safety);
    SC_ADD_TEST(s, test_parser_refuses_paths_equal_under_case_folding);
    /* 14.3 collection */
    SC_ADD_TEST(s, test_collect_skips_pycache_subtrees_at_every_depth);
    SC_ADD_TEST(s, test_collect_skips_ds_store_at_every_depth);
    SC_ADD_TEST(s, test_collect_skips_pyc_suffix_case_sensitively);
    SC_ADD_TEST(s, test_collect_skips_the_list_file_only_at_the_root);
    SC_ADD_TEST(s, test_skipped_name_predicate);
    SC_ADD_TEST(s, test_collect_directories_are_not_entries);
    SC_ADD_TEST(s, test_collect_never_follows_links);
    SC_ADD_TEST(s, test_collect_refuses_special_entries);
    SC_ADD_TEST(s, test_collect_reports_problems_in_name_order);
    SC_ADD_TEST(s, test_collect_skip_rules_come_before_the_special_entry_rule);
    SC_ADD_TEST(s, test_collect_refuses_names_that_are_not_utf8);
    SC_ADD_TEST(s, test_collect_refuses_a_backslash_in_a_name);
    SC_ADD_TEST(s, test_collect_refuses_a_link_target_that_is_not_utf8);
    SC_ADD_TEST(s, test_collect_refuses_paths_equal_under_case_folding);
    SC_ADD_TEST(s, test_collect_records_size_and_mode_but_not_in_the_digest);
    SC_ADD_TEST(s, test_collect_without_hash_flag_leaves_digests_empty);
    SC_ADD_TEST(s, test_collect_is_independent_of_creation_order);
    SC_ADD_TEST(s, test_collect_hashes_every_file_with_two_threads);
    SC_ADD_TEST(s, test_collect_with_crc_records_each_files_crc32);
    SC_ADD_TEST(s, test_collect_reuses_the_digest_of_a_file_unchanged_since_it_was_hashed);
    SC_ADD_TEST(s, test_collect_reuses_a_subtree_list_under_its_directory);
    SC_ADD_TEST(s, test_collect_reads_again_where_the_filesystem_stamps_are_not_trusted);
    SC_ADD_TEST(s, test_stamps_are_trusted_only_on_known_local_filesystems);
    SC_ADD_TEST(s, test_collect_rereads_a_file_changed_close_to_its_hashing);
    SC_ADD_TEST(s, test_collect_results_do_not_depend_on_the_job_count);
    SC_ADD_TEST(s, test_collect_root_must_be_a_real_directory);
    /* 14.3 logical size */
    SC_ADD_TEST(s, test_measure_sums_file_and_link_sizes);
    SC_ADD_TEST(s, test_measure_refuses_more_than_2_pow_53_minus_1);
    /* writing */
    SC_ADD_TEST(s, test_write_list_writes_the_stream_and_returns_its_digest);
    /* 14.5 verification */
    SC_ADD_TEST(s, test_verify_accepts_the_tree_it_listed);
    SC_ADD_TEST(s, test_verify_root_must_be_an_existing_real_directory);
    SC_ADD_TEST(s, test_verify_requires_the_list_file);
    SC_ADD_TEST(s, test_verify_refuses_a_list_larger_than_256_mib);
    SC_ADD_TEST(s, test_verify_hashes_the_list_before_parsing_it);
    SC_ADD_TEST(s, test_verify_refuses_a_tampered_list);
    SC_ADD_TEST(s, test_verify_reports_the_first_mismatch_in_list_order);
    SC_ADD_TEST(s, test_verify_reports_the_same_first_mismatch_with_any_job_count);
    SC_ADD_TEST(s, test_verify_reports_a_big_file_before_a_later_small_one);
    SC_ADD_TEST(s, test_verify_reports_an_earlier_small_file_before_a_big_one);
    SC_ADD_TEST(s, test_verify_refuses_a_big_file_turned_into_a_link);
    SC_ADD_TEST(s, test_verify_refuses_a_missing_file);
    SC_ADD_TEST(s, test_verify_refuses_changed_bytes);
    SC_ADD_TEST(s, test_verify_refuses_a_file_turned_into_a_link);
    SC_ADD_TEST(s, test_verify_refuses_a_file_turned_into_a_fifo_or_directory);
    SC_ADD_TEST(s, test_verify_refuses_a_link_turned_into_a_file);
    SC_ADD_TEST(s, test_verify_refuses_a_retargeted_link);
    SC_ADD_TEST(s, test_verify_never_reaches_an_entry_through_a_link);
    SC_ADD_TEST(s, test_verify_ignores_chmod_and_touch);
    SC_ADD_TEST(s, test_verify_ignores_extra_files);
    SC_ADD_TEST(s, test_verify_of_an_empty_list);
    SC_ADD_TEST(s, test_verify_checks_the_expected_digest_argument);
}
