/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_box.c — the consumer operations (docs/format-v3.md 16.1-16.3):
 * verify, prepare, attach, extracted-tree verification, the self-test and
 * temporary runs.  Every box is built here with the canonical writer
 * (archive_write.h) and every release signed with a fresh key; nothing is
 * read from the corpus.  The interpreter of these boxes is a small shell
 * script standing in for Python.
 */
#define _GNU_SOURCE 1
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <dirent.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "scrollcase/archive_write.h"
#include "scrollcase/box.h"
#include "scrollcase/envelope.h"
#include "scrollcase/file.h"
#include "scrollcase/keys.h"
#include "scrollcase/payload.h"
#include "scrollcase/trust.h"

/* ---- building boxes --------------------------------------------------- */

#define REV "'0123456789abcdef0123456789abcdef01234567'"
#define A16 "aaaaaaaaaaaaaaaa"
#define SHA_A "'" A16 A16 A16 A16 "'"
#define TGT "{'platform':'linux','arch':'x86_64','accelerator':'cpu'}"
#define PROV                                                                  \
    "{'scrollId':'demo-linux-x86_64-cpu','scrollVersion':'1.0.0',"           \
    "'builderRevision':" REV ",'sourceTreeDirty':false,"                     \
    "'sourceRevision':'abc123','pythonVersion':'3.11',"                      \
    "'environment':{'source':'pixi-lock','pixiVersion':'0.40.0','lockSha256':" SHA_A "}," \
    "'builder':{'name':'scrollcase','version':'0.1.0'},"                     \
    "'builtAt':'2026-01-01T00:00:00Z'}"

/* The stand-in interpreter: exits 0 (accepts -c CODE and scripts). */
#define PY_OK "#!/bin/sh\nexit 0\n"

typedef struct box_opts {
    const char *execution;      /* JSON (single-quoted) or NULL */
    const char *python;         /* the interpreter's text; NULL: PY_OK */
    const char *assets;         /* JSON array (single-quoted) or NULL */
    const char *box_version;    /* box.json's version; NULL: the release's */
    int no_entry_point, no_box_json, entry_not_executable;
    long long installed_delta;  /* added to the true installed size */
    int wrong_payload_digest;
    unsigned timeout_seconds;   /* 0: 180 */
    uint64_t big_size;          /* a stored zero file big.bin of this size */
    const char *environment;    /* JSON object (single-quoted) or NULL */
    const char *archive_url;    /* NULL: https://example.com/x/box.zip */
} box_opts;

typedef struct fx {
    char *dir;
    char *archive, *release_path;
    sc_signing_key key;
    sc_trust trust;
    sc_release rel;
    char release_text_sha[65];
} fx;

static char *cat(const char *a, const char *b)
{
    size_t n = strlen(a) + strlen(b) + 2;
    char *p = malloc(n);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    snprintf(p, n, "%s/%s", a, b);
    return p;
}

static int exists(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0;
}

/* Number of names in dir that start with prefix. */
static int count_prefixed(const char *dir, const char *prefix)
{
    DIR *d = opendir(dir);
    if (d == NULL)
        return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (strncmp(e->d_name, prefix, strlen(prefix)) == 0)
            n++;
    closedir(d);
    return n;
}

typedef struct member {
    const char *path;
    sc_archive_kind kind;
    char *data;
    size_t len;
    int exec;
    const char *source;
    uint64_t source_size;
} member;

static void add(member *m, size_t *n, const char *path, const char *data, int exec)
{
    m[*n].path = path;
    m[*n].kind = SC_ARCHIVE_FILE;
    m[*n].data = strdup(data);
    m[*n].len = strlen(data);
    m[*n].exec = exec;
    m[*n].source = NULL;
    (*n)++;
}

/* Build the box and sign its release; the release is opened into f->rel. */
static void build(fx *f, const box_opts *o)
{
    sc_error err;
    memset(f, 0, sizeof *f);
    f->dir = sc_test_tmpdir();
    CU_ASSERT_PTR_NOT_NULL_FATAL(f->dir);
    f->archive = cat(f->dir, "box.zip");
    f->release_path = cat(f->dir, "release.json");
    CU_ASSERT_FATAL(sc_signing_key_generate(NULL, "test-key", &f->key, &err) == SC_OK);
    CU_ASSERT_FATAL(sc_trust_add(&f->trust, f->key.key_id, f->key.key_id_len,
                                 f->key.public_key, &err) == SC_OK);

    char common[4096];
    snprintf(common, sizeof common,
             "'target':" TGT ",'pythonEntryPoint':'venv/bin/python',"
             "'modelCacheSubdir':'model-cache/demo',"
             "'selfTest':{'pythonImports':['json','os.path'],'timeoutSeconds':%u}%s%s%s%s%s%s%s",
             o->timeout_seconds ? o->timeout_seconds : 180,
             o->environment ? ",'environment':" : "", o->environment ? o->environment : "",
             o->execution ? ",'execution':" : "", o->execution ? o->execution : "",
             o->assets ? ",'weights':'on-demand','assets':" : "", o->assets ? o->assets : "",
             ",'provenance':" PROV);
    char box_json[8192];
    snprintf(box_json, sizeof box_json,
             "{'schemaVersion':3,'boxId':'demo','modelId':'demo-model','runtimeId':'torch',"
             "'version':'%s',%s}",
             o->box_version ? o->box_version : "1.0.0", common);
    char *box_dq = sc_test_dq(box_json);

    member m[16];
    size_t n = 0;
    if (!o->no_box_json)
        add(m, &n, "box.json", box_dq, 0);
    if (!o->no_entry_point)
        add(m, &n, "venv/bin/python", o->python ? o->python : PY_OK,
            !o->entry_not_executable);
    add(m, &n, "app/main.py", "print('hi')\n", 0);
    add(m, &n, "venv/lib/python3.11/site-packages/demo/__init__.py", "", 0);
    add(m, &n, "venv/lib/python3.11/site-packages/demo/cli.py", "x = 1\n", 0);
    if (!o->no_entry_point) {
        m[n].path = "venv/bin/python3";
        m[n].kind = SC_ARCHIVE_LINK;
        m[n].data = strdup("python");
        m[n].len = 6;
        m[n].exec = 0;
        m[n].source = NULL;
        n++;
    }
    char *big = NULL;
    if (o->big_size > 0) {
        big = cat(f->dir, "big.src");
        int fd = open(big, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        CU_ASSERT_FATAL(fd >= 0);
        CU_ASSERT_FATAL(ftruncate(fd, (off_t)o->big_size) == 0);
        close(fd);
        m[n].path = "weights/big.bin";
        m[n].kind = SC_ARCHIVE_FILE;
        m[n].data = NULL;
        m[n].len = 0;
        m[n].exec = 0;
        m[n].source = big;
        m[n].source_size = o->big_size;
        n++;
    }

    /* The payload list of these members, and the installed size. */
    sc_payload_list list;
    memset(&list, 0, sizeof list);
    list.entries = calloc(n, sizeof *list.entries);
    CU_ASSERT_PTR_NOT_NULL_FATAL(list.entries);
    list.cap = n;
    uint64_t installed = 0;
    for (size_t i = 0; i < n; i++) {
        sc_payload_entry *e = &list.entries[list.count++];
        e->path = strdup(m[i].path);
        e->path_len = strlen(m[i].path);
        e->kind = m[i].kind == SC_ARCHIVE_LINK ? SC_PAYLOAD_LINK : SC_PAYLOAD_FILE;
        if (m[i].source != NULL) {
            unsigned char d[SC_SHA256_LEN];
            CU_ASSERT_FATAL(sc_sha256_file(m[i].source, d, &err) == SC_OK);
            sc_hex_lower(d, SC_SHA256_LEN, e->sha256);
            installed += m[i].source_size;
        } else {
            CU_ASSERT_FATAL(sc_sha256_hex(m[i].data, m[i].len, e->sha256, &err) == SC_OK);
            installed += m[i].len;
        }
    }
    char *stream = NULL;
    size_t stream_len = 0;
    char digest[65];
    CU_ASSERT_FATAL(sc_payload_serialize(&list, &stream, &stream_len, &err) == SC_OK);
    installed += stream_len; /* the list file is installed and counted (14.3) */
    CU_ASSERT_FATAL(sc_sha256_hex(stream, stream_len, digest, &err) == SC_OK);
    sc_payload_list_free(&list);
    if (o->wrong_payload_digest)
        digest[0] = digest[0] == 'a' ? 'b' : 'a';

    sc_archive_entry ae[17];
    for (size_t i = 0; i < n; i++) {
        memset(&ae[i], 0, sizeof ae[i]);
        ae[i].path = m[i].path;
        ae[i].kind = m[i].kind;
        ae[i].source = m[i].source;
        ae[i].data = m[i].data;
        ae[i].data_len = m[i].len;
        ae[i].executable = m[i].exec;
        ae[i].stored = m[i].source != NULL;
    }
    memset(&ae[n], 0, sizeof ae[n]);
    ae[n].path = SC_PAYLOAD_LIST_NAME;
    ae[n].kind = SC_ARCHIVE_FILE;
    ae[n].data = stream;
    ae[n].data_len = stream_len;
    uint64_t size = 0;
    char sha[65];
    CU_ASSERT_FATAL(sc_archive_write_file(ae, n + 1, SC_ARCHIVE_STORE, f->archive, &size,
                                          sha, &err) == SC_OK);
    free(stream);
    for (size_t i = 0; i < n; i++)
        free(m[i].data);
    free(big == NULL ? NULL : (unlink(big), big));

    char *release = malloc(16384);
    CU_ASSERT_PTR_NOT_NULL_FATAL(release);
    snprintf(release, 16384,
             "{'schemaVersion':3,'kind':'scrollcase.box.release','boxId':'demo',"
             "'modelId':'demo-model','runtimeId':'torch','version':'1.0.0',"
             "'compatibility':{},"
             "'archive':{'format':'zip','url':'%s','sha256':'%s','sizeBytes':%llu},"
             "'installedSizeBytes':%lld,"
             "'payloadDigest':{'format':'sha256-path-list-v1','sha256':'%s'},%s}",
             o->archive_url ? o->archive_url : "https://example.com/x/box.zip", sha,
             (unsigned long long)size, (long long)installed + o->installed_delta, digest,
             common);
    char *rel_dq = sc_test_dq(release);
    free(release);
    free(box_dq);
    char *text = NULL;
    size_t text_len = 0;
    sc_code c = sc_envelope_sign_text(rel_dq, strlen(rel_dq), &f->key, 1, &text, &text_len,
                                      &err);
    if (c != SC_OK)
        fprintf(stderr, "sign: %s\n", err.message);
    CU_ASSERT_FATAL(c == SC_OK);
    free(rel_dq);
    CU_ASSERT_FATAL(sc_file_write_atomic(f->release_path, text, text_len, 0644, &err) ==
                    SC_OK);
    free(text);
    c = sc_release_open(f->release_path, &f->trust, NULL, &f->rel, &err);
    if (c != SC_OK)
        fprintf(stderr, "open: %s\n", err.message);
    CU_ASSERT_FATAL(c == SC_OK);
}

static void fx_free(fx *f)
{
    /* the explicit temporary directory of self-tests and temporary runs
     * holds nothing afterwards, whatever they returned */
    char *tmp = f->dir ? cat(f->dir, "tmp") : NULL;
    if (tmp != NULL)
        sc_test_expect_empty(tmp);
    free(tmp);
    sc_release_free(&f->rel);
    sc_trust_free(&f->trust);
    sc_signing_key_free(&f->key);
    sc_test_rmtree(f->dir);
    free(f->dir);
    free(f->archive);
    free(f->release_path);
}

static const box_opts PLAIN = {0};

/* Overwrite one byte of a file. */
static void poke(const char *path, off_t at, char byte)
{
    int fd = open(path, O_WRONLY);
    CU_ASSERT_FATAL(fd >= 0);
    CU_ASSERT_FATAL(pwrite(fd, &byte, 1, at) == 1);
    close(fd);
}

/* ---- release ----------------------------------------------------------- */

static void release_open_records_every_signing_key_in_order(void)
{
    fx f;
    build(&f, &PLAIN);
    /* Re-sign the same payload with an untrusted key first, then ours. */
    sc_error err;
    sc_signing_key other;
    CU_ASSERT_FATAL(sc_signing_key_generate(NULL, "other-key", &other, &err) == SC_OK);
    sc_signing_key both[2] = {other, f.key};
    sc_json *p = NULL;
    char *payload = NULL, *text = NULL;
    size_t plen = 0, tlen = 0;
    (void)p;
    CU_ASSERT_FATAL(sc_json_write(f.rel.doc.payload, &payload, &plen, &err) == SC_OK);
    /* The writer's text of a parsed payload is the payload (2.2). */
    CU_ASSERT_FATAL(sc_envelope_sign_text(payload, plen, both, 2, &text, &tlen, &err) == SC_OK);
    sc_release r2;
    SC_EXPECT_CODE(sc_release_open_bytes(text, tlen, &f.trust, NULL, &r2, &err), SC_OK, &err);
    CU_ASSERT_EQUAL(r2.signing_key_count, 2);
    if (r2.signing_key_count == 2) {
        CU_ASSERT_STRING_EQUAL(r2.signing_key_ids[0], "other-key");
        CU_ASSERT_STRING_EQUAL(r2.signing_key_ids[1], "test-key");
    }
    CU_ASSERT_STRING_EQUAL(r2.target_id, "linux-x86_64-cpu");
    sc_release_free(&r2);
    free(payload);
    free(text);
    sc_signing_key_free(&other);
    fx_free(&f);
}

static void release_open_refuses_revoked_release(void)
{
    fx f;
    build(&f, &PLAIN);
    sc_error err;
    sc_json *rev = NULL;
    char *t = sc_test_dq("{'schemaVersion':3,'kind':'scrollcase.box.revocations',"
                         "'updatedAt':'2026-01-02T00:00:00Z','revocations':[{'boxId':'demo',"
                         "'version':'1.0.0','reason':'broken','revokedAt':'2026-01-02T00:00:00Z'}]}");
    CU_ASSERT_FATAL(sc_json_parse(t, strlen(t), &rev, &err) == SC_OK);
    sc_release r2;
    SC_EXPECT_CODE(sc_release_open(f.release_path, &f.trust, rev, &r2, &err),
                   SC_E_REVOKED_RELEASE, &err);
    sc_json_free(rev);
    free(t);
    fx_free(&f);
}

static void release_open_refuses_untrusted_signature(void)
{
    fx f;
    build(&f, &PLAIN);
    sc_trust empty;
    memset(&empty, 0, sizeof empty);
    sc_error err;
    sc_release r2;
    SC_EXPECT_CODE(sc_release_open(f.release_path, &empty, NULL, &r2, &err),
                   SC_E_INVALID_SIGNATURE, &err);
    fx_free(&f);
}

static void default_archive_is_url_basename_beside_release(void)
{
    box_opts o = PLAIN;
    o.archive_url = "https://cdn.example.com/boxes/demo/abc.zip?sig=1";
    fx f;
    build(&f, &o);
    sc_error err;
    char *path = NULL;
    SC_EXPECT_CODE(sc_release_default_archive(&f.rel, f.release_path, &path, &err), SC_OK, &err);
    char *want = cat(f.dir, "abc.zip");
    CU_ASSERT_STRING_EQUAL(path, want);
    free(want);
    free(path);
    /* Absent under the URL's name but present as <sha256>.zip (section 11). */
    char hashed[80];
    snprintf(hashed, sizeof hashed, "%s.zip", f.rel.archive_sha256);
    want = cat(f.dir, hashed);
    CU_ASSERT_FATAL(rename(f.archive, want) == 0);
    SC_EXPECT_CODE(sc_release_default_archive(&f.rel, f.release_path, &path, &err), SC_OK, &err);
    CU_ASSERT_STRING_EQUAL(path, want);
    free(want);
    free(path);
    sc_release_free(&f.rel);
    o.archive_url = "https://cdn.example.com/boxes/";
    sc_test_rmtree(f.dir);
    free(f.dir);
    free(f.archive);
    free(f.release_path);
    sc_trust_free(&f.trust);
    sc_signing_key_free(&f.key);
    build(&f, &o);
    SC_EXPECT_CODE(sc_release_default_archive(&f.rel, f.release_path, &path, &err),
                   SC_E_USAGE, &err);
    fx_free(&f);
}

/* ---- verify (16.1) ----------------------------------------------------- */

static void verify_accepts_the_signed_archive(void)
{
    box_opts o = PLAIN;
    o.execution = "{'kind':'python-module','module':'demo.cli','defaultArgs':[]}";
    fx f;
    build(&f, &o);
    sc_error err;
    sc_box_report rep;
    SC_EXPECT_CODE(sc_box_verify(&f.rel, f.archive, &rep, &err), SC_OK, &err);
    CU_ASSERT_STRING_EQUAL(rep.box_id, "demo");
    CU_ASSERT_STRING_EQUAL(rep.version, "1.0.0");
    CU_ASSERT_STRING_EQUAL(rep.target_id, "linux-x86_64-cpu");
    CU_ASSERT_EQUAL(rep.entry_count, 7);
    CU_ASSERT_STRING_EQUAL(rep.execution_kind, "python-module");
    CU_ASSERT_EQUAL(rep.required_asset_count, 0);
    fx_free(&f);
}

static void verify_archive_not_found(void)
{
    fx f;
    build(&f, &PLAIN);
    sc_error err;
    unlink(f.archive);
    SC_EXPECT_CODE(sc_box_verify(&f.rel, f.archive, NULL, &err), SC_E_ARCHIVE_NOT_FOUND, &err);
    SC_EXPECT_CODE(sc_box_verify(&f.rel, f.dir, NULL, &err), SC_E_ARCHIVE_NOT_FOUND, &err);
    fx_free(&f);
}

static void verify_archive_size_before_hash(void)
{
    fx f;
    build(&f, &PLAIN);
    sc_error err;
    int fd = open(f.archive, O_WRONLY | O_APPEND);
    CU_ASSERT_FATAL(fd >= 0);
    CU_ASSERT(write(fd, "x", 1) == 1);
    close(fd);
    SC_EXPECT_CODE(sc_box_verify(&f.rel, f.archive, NULL, &err), SC_E_ARCHIVE_SIZE, &err);
    fx_free(&f);
}

static void verify_archive_hash(void)
{
    fx f;
    build(&f, &PLAIN);
    sc_error err;
    poke(f.archive, 40, 'Z'); /* inside the first entry's data or name */
    SC_EXPECT_CODE(sc_box_verify(&f.rel, f.archive, NULL, &err), SC_E_ARCHIVE_HASH, &err);
    fx_free(&f);
}

static void verify_hashes_the_same_bytes_with_any_job_count(void)
{
    /* With two or more jobs the hash runs on a thread of its own beside the
     * inspection; with one, before it.  Both accept a 3 MiB archive and see
     * one changed byte anywhere. */
    box_opts o = PLAIN;
    o.big_size = (uint64_t)3 << 20;
    fx f;
    build(&f, &o);
    sc_error err;
    unsigned jobs[3] = {1, 2, 7};
    for (int j = 0; j < 3; j++) {
        sc_box_options bo = {.jobs = jobs[j]};
        sc_box_report rep;
        SC_EXPECT_CODE(sc_box_verify_with(&f.rel, f.archive, &bo, &rep, &err), SC_OK, &err);
        CU_ASSERT_EQUAL(rep.entry_count, 8);
    }
    struct stat st;
    CU_ASSERT_FATAL(stat(f.archive, &st) == 0);
    poke(f.archive, st.st_size / 2 + 12345, 'Z');
    for (int j = 0; j < 3; j++) {
        sc_box_options bo = {.jobs = jobs[j]};
        SC_EXPECT_CODE(sc_box_verify_with(&f.rel, f.archive, &bo, NULL, &err),
                       SC_E_ARCHIVE_HASH, &err);
        CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "the release signs"));
    }
    fx_free(&f);
}

/* 16.1: the first failure in the order is the only one reported.  The
 * inspection (step 7) runs beside the hash (step 6) with two jobs: an
 * archive that fails both is archive-hash with any job count. */
static void verify_a_failed_hash_wins_over_a_failed_inspection(void)
{
    fx f;
    build(&f, &PLAIN);
    struct stat st;
    CU_ASSERT_FATAL(stat(f.archive, &st) == 0);
    poke(f.archive, st.st_size - 22, 'Q'); /* the end record's signature */
    sc_error err;
    unsigned jobs[3] = {1, 2, 7};
    for (int j = 0; j < 3; j++) {
        sc_box_options bo = {.jobs = jobs[j]};
        SC_EXPECT_CODE(sc_box_verify_with(&f.rel, f.archive, &bo, NULL, &err),
                       SC_E_ARCHIVE_HASH, &err);
    }
    fx_free(&f);
}

static void verify_missing_box_json(void)
{
    box_opts o = PLAIN;
    o.no_box_json = 1;
    fx f;
    build(&f, &o);
    sc_error err;
    SC_EXPECT_CODE(sc_box_verify(&f.rel, f.archive, NULL, &err), SC_E_MISSING_BOX_JSON, &err);
    fx_free(&f);
}

static void verify_box_json_agreement(void)
{
    box_opts o = PLAIN;
    o.box_version = "1.0.1";
    fx f;
    build(&f, &o);
    sc_error err;
    SC_EXPECT_CODE(sc_box_verify(&f.rel, f.archive, NULL, &err), SC_E_MANIFEST_DISAGREEMENT,
                   &err);
    fx_free(&f);
}

static void verify_missing_interpreter(void)
{
    box_opts o = PLAIN;
    o.no_entry_point = 1;
    fx f;
    build(&f, &o);
    sc_error err;
    SC_EXPECT_CODE(sc_box_verify(&f.rel, f.archive, NULL, &err), SC_E_MISSING_INTERPRETER,
                   &err);
    fx_free(&f);
}

static void verify_missing_script(void)
{
    box_opts o = PLAIN;
    o.execution = "{'kind':'python-script','script':'app/absent.py','defaultArgs':[]}";
    fx f;
    build(&f, &o);
    sc_error err;
    SC_EXPECT_CODE(sc_box_verify(&f.rel, f.archive, NULL, &err), SC_E_MISSING_SCRIPT, &err);
    fx_free(&f);
}

static void verify_missing_module(void)
{
    box_opts o = PLAIN;
    o.execution = "{'kind':'python-module','module':'absent.cli','defaultArgs':[]}";
    fx f;
    build(&f, &o);
    sc_error err;
    SC_EXPECT_CODE(sc_box_verify(&f.rel, f.archive, NULL, &err), SC_E_MISSING_MODULE, &err);
    fx_free(&f);
}

static void verify_archive_that_is_no_zip(void)
{
    fx f;
    build(&f, &PLAIN);
    sc_error err;
    /* Same size, and a release that signs these bytes: a garbage archive. */
    struct stat st;
    CU_ASSERT_FATAL(stat(f.archive, &st) == 0);
    char *junk = malloc((size_t)st.st_size);
    CU_ASSERT_PTR_NOT_NULL_FATAL(junk);
    memset(junk, 'J', (size_t)st.st_size);
    CU_ASSERT_FATAL(sc_file_write_atomic(f.archive, junk, (size_t)st.st_size, 0644, &err) ==
                    SC_OK);
    char hex[65];
    CU_ASSERT_FATAL(sc_sha256_hex(junk, (size_t)st.st_size, hex, &err) == SC_OK);
    memcpy(f.rel.archive_sha256, hex, 65);
    free(junk);
    SC_EXPECT_CODE(sc_box_verify(&f.rel, f.archive, NULL, &err), SC_E_INVALID_ARCHIVE, &err);
    fx_free(&f);
}

/* ---- prepare (16.2) ------------------------------------------------------ */

static void prepare_extracts_and_returns_a_receipt(void)
{
    box_opts o = PLAIN;
    o.execution = "{'kind':'python-script','script':'app/main.py','defaultArgs':[]}";
    fx f;
    build(&f, &o);
    sc_error err;
    sc_receipt rc;
    char *dest = cat(f.dir, "deep/er/box");
    SC_EXPECT_CODE(sc_box_prepare(&f.rel, f.archive, dest, &rc, &err), SC_OK, &err);
    CU_ASSERT_STRING_EQUAL(rc.status, "prepared");
    CU_ASSERT_STRING_EQUAL(rc.root, dest);
    CU_ASSERT_STRING_EQUAL(rc.execution_kind, "python-script");
    CU_ASSERT_EQUAL(rc.installed_size, f.rel.installed_size);
    CU_ASSERT_EQUAL(rc.signing_key_count, 1);
    CU_ASSERT_STRING_EQUAL(rc.release_payload_sha256, f.rel.doc.payload_sha256);
    char *py = cat(dest, "venv/bin/python");
    struct stat st;
    CU_ASSERT(stat(py, &st) == 0 && (st.st_mode & 0111) != 0);
    char *link = cat(dest, "venv/bin/python3");
    CU_ASSERT(lstat(link, &st) == 0 && S_ISLNK(st.st_mode));
    CU_ASSERT(stat(dest, &st) == 0 && st.st_ino == rc.ino && st.st_dev == rc.dev);
    char *parent = cat(f.dir, "deep/er");
    CU_ASSERT_EQUAL(count_prefixed(parent, ".scrollcase-prepare-"), 0);
    sc_json *j = sc_receipt_to_json(&rc);
    CU_ASSERT_PTR_NOT_NULL(j);
    CU_ASSERT_PTR_NOT_NULL(sc_json_get(j, "environmentReport"));
    CU_ASSERT_STRING_EQUAL(sc_json_cstr(sc_json_get(j, "status")), "prepared");
    sc_json_free(j);
    sc_receipt_free(&rc);
    free(parent);
    free(py);
    free(link);
    free(dest);
    fx_free(&f);
}

/* The "hash" steps a prepare sends: how many started, how many finished
 * with the archive's whole size read and its one file done. */
typedef struct hash_steps {
    uint64_t size;
    int started, finished_whole;
} hash_steps;

static void count_hash_steps(void *ctx, const sc_progress_event *e)
{
    hash_steps *h = ctx;
    if (strcmp(e->step, "hash") != 0)
        return;
    if (e->bytes_done == 0 && e->files_done == 0 && !e->finished)
        h->started++;
    if (e->finished && e->bytes_done == h->size && e->bytes_total == h->size &&
        e->files_done == 1 && e->files_total == 1)
        h->finished_whole++;
}

/* An archive whose stamp cannot vouch for it after extraction (its mtime
 * set ahead of the first hashing) is read again: a second "hash" step,
 * counted like the first. */
static void prepare_rehash_of_a_moved_archive_is_a_second_hash_step(void)
{
    fx f;
    build(&f, &PLAIN);
    struct stat st;
    CU_ASSERT_FATAL(stat(f.archive, &st) == 0);
    struct timespec ahead[2];
    CU_ASSERT_FATAL(clock_gettime(CLOCK_REALTIME, &ahead[0]) == 0);
    ahead[0].tv_sec += 3600;
    ahead[1] = ahead[0];
    CU_ASSERT_FATAL(utimensat(AT_FDCWD, f.archive, ahead, 0) == 0);
    hash_steps h = {(uint64_t)st.st_size, 0, 0};
    sc_box_options o = {.jobs = 1, .progress = count_hash_steps, .progress_ctx = &h};
    sc_error err;
    sc_receipt rc;
    char *dest = cat(f.dir, "box");
    SC_EXPECT_CODE(sc_box_prepare_with(&f.rel, f.archive, dest, &o, &rc, &err), SC_OK, &err);
    CU_ASSERT_EQUAL(h.started, 2);
    CU_ASSERT_EQUAL(h.finished_whole, 2);
    sc_receipt_free(&rc);
    free(dest);
    fx_free(&f);
}

/* With two jobs the hash is still one "hash" step, started once and
 * finished with the whole archive counted, though it ran beside the
 * extraction. */
static void prepare_beside_extraction_is_one_whole_hash_step(void)
{
    fx f;
    build(&f, &PLAIN);
    /* past the 50 ms in which a fresh stamp cannot vouch for the file (16.2
     * step 8), so that no second reading follows */
    usleep(150 * 1000);
    struct stat st;
    CU_ASSERT_FATAL(stat(f.archive, &st) == 0);
    hash_steps h = {(uint64_t)st.st_size, 0, 0};
    sc_box_options o = {.jobs = 2, .progress = count_hash_steps, .progress_ctx = &h};
    sc_error err;
    sc_receipt rc;
    char *dest = cat(f.dir, "box");
    SC_EXPECT_CODE(sc_box_prepare_with(&f.rel, f.archive, dest, &o, &rc, &err), SC_OK, &err);
    CU_ASSERT_EQUAL(h.started, 1);
    CU_ASSERT_EQUAL(h.finished_whole, 1);
    sc_receipt_free(&rc);
    free(dest);
    fx_free(&f);
}

/* 16.2: the hash runs beside the extraction with two jobs; an archive whose
 * entry data was altered before prepare began fails the extraction (its
 * CRC-32) and the hash: archive-hash is reported, with any job count, and
 * nothing is left (the stamp did not move during the prepare, so it is not
 * archive-changed). */
static void prepare_a_failed_hash_wins_over_a_failed_extraction(void)
{
    box_opts o = PLAIN;
    o.big_size = (uint64_t)3 << 20;
    fx f;
    build(&f, &o);
    struct stat st;
    CU_ASSERT_FATAL(stat(f.archive, &st) == 0);
    poke(f.archive, st.st_size / 2 + 12345, 'Z');
    unsigned jobs[3] = {1, 2, 7};
    for (int j = 0; j < 3; j++) {
        sc_box_options bo = {.jobs = jobs[j]};
        sc_error err;
        sc_receipt rc;
        char *dest = cat(f.dir, "box");
        SC_EXPECT_CODE(sc_box_prepare_with(&f.rel, f.archive, dest, &bo, &rc, &err),
                       SC_E_ARCHIVE_HASH, &err);
        CU_ASSERT(!exists(dest));
        CU_ASSERT_EQUAL(count_prefixed(f.dir, ".scrollcase-prepare-"), 0);
        free(dest);
    }
    fx_free(&f);
}

static void prepare_refuses_an_existing_destination(void)
{
    fx f;
    build(&f, &PLAIN);
    sc_error err;
    sc_receipt rc;
    char *dest = cat(f.dir, "box");
    CU_ASSERT_FATAL(mkdir(dest, 0755) == 0);
    SC_EXPECT_CODE(sc_box_prepare(&f.rel, f.archive, dest, &rc, &err),
                   SC_E_EXISTING_DESTINATION, &err);
    rmdir(dest);
    CU_ASSERT_FATAL(symlink("nowhere", dest) == 0); /* a dangling link exists */
    SC_EXPECT_CODE(sc_box_prepare(&f.rel, f.archive, dest, &rc, &err),
                   SC_E_EXISTING_DESTINATION, &err);
    CU_ASSERT_EQUAL(count_prefixed(f.dir, ".scrollcase-prepare-"), 0);
    free(dest);
    fx_free(&f);
}

static void prepare_installed_size_mismatch_leaves_nothing(void)
{
    box_opts o = PLAIN;
    o.installed_delta = 1;
    fx f;
    build(&f, &o);
    sc_error err;
    sc_receipt rc;
    char *dest = cat(f.dir, "box");
    SC_EXPECT_CODE(sc_box_prepare(&f.rel, f.archive, dest, &rc, &err),
                   SC_E_INSTALLED_SIZE_MISMATCH, &err);
    CU_ASSERT(!exists(dest));
    CU_ASSERT_EQUAL(count_prefixed(f.dir, ".scrollcase-prepare-"), 0);
    free(dest);
    fx_free(&f);
}

static void prepare_failed_verification_leaves_nothing(void)
{
    fx f;
    build(&f, &PLAIN);
    sc_error err;
    sc_receipt rc;
    poke(f.archive, 40, 'Z');
    char *dest = cat(f.dir, "new/box");
    SC_EXPECT_CODE(sc_box_prepare(&f.rel, f.archive, dest, &rc, &err), SC_E_ARCHIVE_HASH,
                   &err);
    CU_ASSERT(!exists(dest));
    free(dest);
    fx_free(&f);
}

/* The held-prepare proofs below end a process by a signal in the middle of
 * its work: under valgrind that process's allocations, still held by its
 * threads, would be reported at its death as leaks.  Valgrind preloads its
 * own libraries into what it runs, which is how it is seen here. */
static int skip_under_valgrind(const char *name)
{
    const char *pre = getenv("LD_PRELOAD");
    if (pre != NULL && strstr(pre, "vgpreload") != NULL) {
        fprintf(stderr, "\n  SKIP %s: under valgrind\n", name);
        return 1;
    }
    return 0;
}

static int skip_large(const char *name)
{
    if (getenv("SC_SKIP_LARGE_TESTS") != NULL) {
        fprintf(stderr, "\n  SKIP %s: SC_SKIP_LARGE_TESTS is set\n", name);
        return 1;
    }
    return 0;
}

static void prepare_on_a_full_disk_is_io_error_and_leaves_nothing(void)
{
    if (skip_large("full disk"))
        return;
    box_opts o = PLAIN;
    o.big_size = 3u * 1024 * 1024;
    fx f;
    build(&f, &o);
    char *mnt = cat(f.dir, "small");
    CU_ASSERT_FATAL(mkdir(mnt, 0755) == 0);
    if (mount("tmpfs", mnt, "tmpfs", 0, "size=1m") != 0) {
        fprintf(stderr, "\n  SKIP full disk: cannot mount a 1 MiB tmpfs (%s)\n",
                strerror(errno));
        free(mnt);
        fx_free(&f);
        return;
    }
    sc_error err;
    sc_receipt rc;
    char *dest = cat(mnt, "box");
    SC_EXPECT_CODE(sc_box_prepare(&f.rel, f.archive, dest, &rc, &err), SC_E_IO, &err);
    CU_ASSERT(!exists(dest));
    CU_ASSERT_EQUAL(count_prefixed(mnt, ".scrollcase-prepare-"), 0);
    CU_ASSERT_EQUAL(count_prefixed(mnt, ""), 2); /* "." and ".." only */
    umount2(mnt, MNT_DETACH);
    free(dest);
    free(mnt);
    fx_free(&f);
}

/*
 * A prepare held in the middle of its extraction, so that a signal or a
 * change to the archive lands there whatever the machine's speed or load
 * (a poll for the stage raced the extraction: a fast one could end before
 * the poll saw its stage).  The child's progress function, on the first
 * "extract" event inside the big file (written with O_DIRECT, build_held),
 * with more to come, says so to the parent
 * (one byte on ready) and waits for one byte on go, which the parent sends
 * only to let it go on; a child that is killed is killed there.
 */
typedef struct hold {
    int ready[2]; /* child -> parent: the extraction is under way */
    int go[2];    /* parent -> child: go on */
    int held;
} hold;

/* True for an event that reports part of weights/big.bin written (the
 * item may be the entry's path or the path it is written to). */
static int inside_big_file(const sc_progress_event *e)
{
    static const char big[] = "weights/big.bin";
    size_t n = strlen(e->item), b = sizeof big - 1;
    return strcmp(e->step, "extract") == 0 && !e->finished && n >= b &&
           strcmp(e->item + n - b, big) == 0;
}

static void hold_mid_extraction(void *ctx, const sc_progress_event *e)
{
    hold *h = ctx;
    if (h->held || !inside_big_file(e))
        return;
    h->held = 1;
    char c = 'r';
    if (write(h->ready[1], &c, 1) != 1)
        _exit(120);
    while (read(h->go[0], &c, 1) < 0 && errno == EINTR) {
    }
}

static void hold_open(hold *h)
{
    memset(h, 0, sizeof *h);
    CU_ASSERT_FATAL(pipe(h->ready) == 0);
    CU_ASSERT_FATAL(pipe(h->go) == 0);
}

/* In the child after fork: keep its own ends. */
static void hold_child_side(hold *h)
{
    close(h->ready[0]);
    close(h->go[1]);
}

/* In the parent after fork: wait until the child is held mid-extraction; 1
 * if it is, 0 if it ended (or failed) without getting there. */
static int hold_wait(hold *h)
{
    close(h->ready[1]);
    close(h->go[0]);
    char c;
    ssize_t n;
    while ((n = read(h->ready[0], &c, 1)) < 0 && errno == EINTR) {
    }
    return n == 1;
}

/* In the parent: let the child go on (release != 0), and close the pipes. */
static void hold_close(hold *h, int release)
{
    char c = 'g';
    if (release && write(h->go[1], &c, 1) != 1)
        CU_FAIL("cannot release the held prepare");
    close(h->go[1]);
    close(h->ready[0]);
}

static pid_t fork_prepare(fx *f, const char *dest, int with_cleanup, hold *h)
{
    hold_open(h);
    pid_t pid = fork();
    CU_ASSERT_FATAL(pid >= 0);
    if (pid == 0) {
        hold_child_side(h);
        if (with_cleanup)
            sc_box_prepare_signal_cleanup();
        sc_box_options o = {.progress = hold_mid_extraction, .progress_ctx = h};
        sc_error err;
        sc_receipt rc;
        sc_code c = sc_box_prepare_with(&f->rel, f->archive, dest, &o, &rc, &err);
        _exit((int)c); /* SC_OK is 0 */
    }
    return pid;
}

/* A box with a file big enough to be written with O_DIRECT (8 MiB and
 * more): the hold lands while that file is being written. */
static void build_held(fx *f)
{
    box_opts o = PLAIN;
    o.big_size = (uint64_t)16 * 1024 * 1024;
    build(f, &o);
}

/*
 * Prepare f into dest in a child, held mid-extraction with its stage in
 * stage_dir; rename stage_dir to move_to when one is given; send sig and
 * reap the child.  Returns its wait status; *staged says whether it was held
 * with exactly one stage in stage_dir.
 */
static int signal_held_prepare(fx *f, const char *stage_dir, const char *dest, int with_cleanup,
                               const char *move_to, int sig, int *staged)
{
    hold h;
    pid_t pid = fork_prepare(f, dest, with_cleanup, &h);
    *staged = hold_wait(&h) && count_prefixed(stage_dir, ".scrollcase-prepare-") == 1;
    if (move_to != NULL)
        CU_ASSERT(rename(stage_dir, move_to) == 0);
    kill(pid, sig);
    int status = 0;
    waitpid(pid, &status, 0);
    hold_close(&h, 0);
    return status;
}

static void prepare_killed_mid_extraction_leaves_no_destination(void)
{
    if (skip_under_valgrind("killed mid-extraction"))
        return;
    fx f;
    build_held(&f);
    char *dest = cat(f.dir, "box");
    int staged;
    int status = signal_held_prepare(&f, f.dir, dest, 0, NULL, SIGKILL, &staged);
    CU_ASSERT(staged);
    CU_ASSERT(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
    CU_ASSERT(!exists(dest));
    CU_ASSERT_EQUAL(count_prefixed(f.dir, ".scrollcase-prepare-"), 1); /* left behind */
    /* The next prepare succeeds and removes the stale stage. */
    sc_error err;
    sc_receipt rc;
    SC_EXPECT_CODE(sc_box_prepare(&f.rel, f.archive, dest, &rc, &err), SC_OK, &err);
    CU_ASSERT_EQUAL(count_prefixed(f.dir, ".scrollcase-prepare-"), 0);
    sc_receipt_free(&rc);
    free(dest);
    fx_free(&f);
}

static void prepare_signal_removes_the_stage(int sig)
{
    if (skip_under_valgrind("a signal mid-extraction"))
        return;
    fx f;
    build_held(&f);
    char *dest = cat(f.dir, "box");
    int staged;
    int status = signal_held_prepare(&f, f.dir, dest, 1, NULL, sig, &staged);
    CU_ASSERT(staged);
    CU_ASSERT(WIFSIGNALED(status) && WTERMSIG(status) == sig);
    CU_ASSERT(!exists(dest));
    CU_ASSERT_EQUAL(count_prefixed(f.dir, ".scrollcase-prepare-"), 0);
    free(dest);
    fx_free(&f);
}

static void prepare_sigterm_removes_the_stage(void)
{
    prepare_signal_removes_the_stage(SIGTERM);
}

static void prepare_sigint_removes_the_stage(void)
{
    prepare_signal_removes_the_stage(SIGINT);
}

/* A closed terminal or SSH session (issue 24). */
static void prepare_sighup_removes_the_stage(void)
{
    prepare_signal_removes_the_stage(SIGHUP);
}

/* The cleanup holds the stage's parent by descriptor: a rename of a
 * directory above the stage mid-prepare does not leave the stage behind. */
static void prepare_sigterm_removes_the_stage_after_its_parent_moved(void)
{
    if (skip_under_valgrind("SIGTERM after the stage's parent moved"))
        return;
    fx f;
    build_held(&f);
    char *sub = cat(f.dir, "sub");
    char *moved = cat(f.dir, "moved");
    CU_ASSERT_FATAL(mkdir(sub, 0755) == 0);
    char *dest = cat(sub, "box");
    int staged;
    int status = signal_held_prepare(&f, sub, dest, 1, moved, SIGTERM, &staged);
    CU_ASSERT(staged);
    /* Held mid-extraction, it can only have been ended by the signal. */
    CU_ASSERT(WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM);
    CU_ASSERT_EQUAL(count_prefixed(moved, ".scrollcase-prepare-"), 0);
    CU_ASSERT_EQUAL(count_prefixed(moved, ""), 2); /* "." and ".." only */
    free(dest);
    free(moved);
    free(sub);
    fx_free(&f);
}

static void prepare_archive_changed_during_extraction(void)
{
    if (skip_under_valgrind("archive changed mid-extraction"))
        return;
    fx f;
    build_held(&f);
    char *dest = cat(f.dir, "box");
    struct stat st;
    CU_ASSERT_FATAL(stat(f.archive, &st) == 0);
    hold h;
    pid_t pid = fork_prepare(&f, dest, 0, &h);
    int staged = hold_wait(&h) && count_prefixed(f.dir, ".scrollcase-prepare-") == 1;
    /* In place (same file), in the central directory the reader has already
     * read: the last byte of the last entry's name, just before the
     * 22-byte end record. */
    poke(f.archive, st.st_size - 23, 'x');
    hold_close(&h, 1);
    int status = 0;
    waitpid(pid, &status, 0);
    CU_ASSERT(staged);
    CU_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == SC_E_ARCHIVE_CHANGED);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != SC_E_ARCHIVE_CHANGED)
        fprintf(stderr, "\n  prepare ended with status %d\n", status);
    CU_ASSERT(!exists(dest));
    CU_ASSERT_EQUAL(count_prefixed(f.dir, ".scrollcase-prepare-"), 0);
    free(dest);
    fx_free(&f);
}

/* The one entry of dir whose name starts with prefix (caller frees), or NULL. */
static char *find_prefixed(const char *dir, const char *prefix)
{
    DIR *d = opendir(dir);
    if (d == NULL)
        return NULL;
    char *found = NULL;
    struct dirent *e;
    while ((e = readdir(d)) != NULL && found == NULL)
        if (strncmp(e->d_name, prefix, strlen(prefix)) == 0)
            found = cat(dir, e->d_name);
    closedir(d);
    return found;
}

static void run_temporary_signal_while_preparing_removes_its_root(int sig)
{
    if (skip_under_valgrind("a signal during a temporary run's prepare"))
        return;
    box_opts o = PLAIN;
    o.execution = "{'kind':'python-script','script':'app/main.py','defaultArgs':[]}";
    o.big_size = (uint64_t)16 * 1024 * 1024; /* O_DIRECT-sized (8 MiB and more) */
    fx f;
    build(&f, &o);
    char *tmp = cat(f.dir, "tmp");
    CU_ASSERT_FATAL(mkdir(tmp, 0755) == 0);
    hold h;
    hold_open(&h);
    pid_t pid = fork();
    CU_ASSERT_FATAL(pid >= 0);
    if (pid == 0) {
        hold_child_side(&h);
        sc_box_prepare_signal_cleanup();
        sc_box_run_options ro;
        memset(&ro, 0, sizeof ro);
        ro.tmpdir = tmp;
        ro.progress = hold_mid_extraction;
        ro.progress_ctx = &h;
        sc_run_result res;
        sc_error err;
        _exit((int)sc_box_run_temporary(&f.rel, f.archive, &ro, &res, &err));
    }
    int held = hold_wait(&h);
    char *root = find_prefixed(tmp, "scrollcase-run-");
    int staged = held && root != NULL && count_prefixed(root, ".scrollcase-prepare-") == 1;
    kill(pid, sig);
    int status = 0;
    waitpid(pid, &status, 0);
    hold_close(&h, 0);
    CU_ASSERT(staged);
    CU_ASSERT(WIFSIGNALED(status) && WTERMSIG(status) == sig);
    CU_ASSERT_EQUAL(count_prefixed(tmp, ""), 2);
    free(root);
    free(tmp);
    fx_free(&f);
}

static void run_temporary_sigterm_while_preparing_removes_its_root(void)
{
    run_temporary_signal_while_preparing_removes_its_root(SIGTERM);
}

static void run_temporary_sighup_while_preparing_removes_its_root(void)
{
    run_temporary_signal_while_preparing_removes_its_root(SIGHUP);
}

static void run_temporary_sigint_while_preparing_removes_its_root(void)
{
    run_temporary_signal_while_preparing_removes_its_root(SIGINT);
}

/* ---- attach (16.3) --------------------------------------------------------- */

/* Prepare f's box into <dir>/box; returns the path (caller frees). */
static char *prepared(fx *f)
{
    sc_error err;
    sc_receipt rc;
    char *dest = cat(f->dir, "box");
    sc_code c = sc_box_prepare(&f->rel, f->archive, dest, &rc, &err);
    if (c != SC_OK)
        fprintf(stderr, "prepare: %s\n", err.message);
    CU_ASSERT_FATAL(c == SC_OK);
    sc_receipt_free(&rc);
    return dest;
}

static void attach_accepts_a_prepared_tree_and_ignores_extra_files(void)
{
    box_opts o = PLAIN;
    o.environment = "{'HF_HOME':'model-cache'}";
    fx f;
    build(&f, &o);
    char *root = prepared(&f);
    sc_test_write(root, "logs/run.log", "extra\n");
    sc_error err;
    sc_receipt rc;
    sc_env_map host;
    memset(&host, 0, sizeof host);
    CU_ASSERT_FATAL(sc_env_map_set(&host, "PATH", "/usr/bin", &err) == SC_OK);
    SC_EXPECT_CODE(sc_box_attach(&f.rel, root, &host, 1, 0, &rc, &err), SC_OK, &err);
    CU_ASSERT_STRING_EQUAL(rc.status, "attached");
    CU_ASSERT_EQUAL(rc.installed_size, f.rel.installed_size + 6);
    CU_ASSERT_PTR_NOT_NULL(rc.environment_report);
    sc_receipt_free(&rc);
    sc_env_map_free(&host);
    free(root);
    fx_free(&f);
}

static void attach_root_must_be_a_real_directory(void)
{
    fx f;
    build(&f, &PLAIN);
    char *root = prepared(&f);
    sc_error err;
    sc_receipt rc;
    char *missing = cat(f.dir, "absent");
    SC_EXPECT_CODE(sc_box_attach(&f.rel, missing, NULL, 0, 0, &rc, &err), SC_E_ATTACH_ROOT,
                   &err);
    SC_EXPECT_CODE(sc_box_attach(&f.rel, f.archive, NULL, 0, 0, &rc, &err), SC_E_ATTACH_ROOT,
                   &err);
    char *link = cat(f.dir, "link");
    CU_ASSERT_FATAL(symlink(root, link) == 0);
    SC_EXPECT_CODE(sc_box_attach(&f.rel, link, NULL, 0, 0, &rc, &err), SC_E_ATTACH_ROOT, &err);
    free(link);
    free(missing);
    free(root);
    fx_free(&f);
}

static void attach_missing_interpreter(void)
{
    fx f;
    build(&f, &PLAIN);
    char *root = prepared(&f);
    char *py = cat(root, "venv/bin/python");
    CU_ASSERT_FATAL(unlink(py) == 0);
    sc_error err;
    sc_receipt rc;
    SC_EXPECT_CODE(sc_box_attach(&f.rel, root, NULL, 0, 0, &rc, &err),
                   SC_E_ATTACH_MISSING_INTERPRETER, &err);
    free(py);
    free(root);
    fx_free(&f);
}

static void attach_execution_must_be_discoverable(void)
{
    box_opts o = PLAIN;
    o.execution = "{'kind':'python-script','script':'app/main.py','defaultArgs':[]}";
    fx f;
    build(&f, &o);
    char *root = prepared(&f);
    char *script = cat(root, "app/main.py");
    CU_ASSERT_FATAL(unlink(script) == 0);
    sc_error err;
    sc_receipt rc;
    SC_EXPECT_CODE(sc_box_attach(&f.rel, root, NULL, 0, 0, &rc, &err), SC_E_MISSING_SCRIPT,
                   &err);
    free(script);
    free(root);
    fx_free(&f);
}

static void attach_checks_on_demand_assets(void)
{
    box_opts o = PLAIN;
    /* sha256 of "weights!" is not needed: the asset is absent. */
    o.assets = "[{'url':'https://example.com/w.bin','relativePath':'weights/w.bin',"
               "'sizeBytes':8,'sha256':" SHA_A "}]";
    fx f;
    build(&f, &o);
    char *root = prepared(&f);
    sc_error err;
    sc_receipt rc;
    SC_EXPECT_CODE(sc_box_attach(&f.rel, root, NULL, 0, 0, &rc, &err), SC_E_ASSET_MISSING,
                   &err);
    sc_test_write(root, "weights/w.bin", "weights");
    SC_EXPECT_CODE(sc_box_attach(&f.rel, root, NULL, 0, 0, &rc, &err), SC_E_ASSET_SIZE, &err);
    sc_test_write(root, "weights/w.bin", "weights!");
    SC_EXPECT_CODE(sc_box_attach(&f.rel, root, NULL, 0, 0, &rc, &err), SC_E_ASSET_HASH, &err);
    free(root);
    fx_free(&f);
}

/* ---- extracted trees ------------------------------------------------------- */

static void verify_extracted_checks_the_signed_payload_list(void)
{
    fx f;
    build(&f, &PLAIN);
    char *root = prepared(&f);
    sc_error err;
    sc_extracted_report rep;
    SC_EXPECT_CODE(sc_box_verify_extracted(&f.rel, root, NULL, 0, 0, &rep, &err), SC_OK, &err);
    CU_ASSERT_EQUAL(rep.entry_count, 6);
    sc_extracted_report_free(&rep);
    sc_test_write(root, "app/main.py", "print('changed')\n");
    SC_EXPECT_CODE(sc_box_verify_extracted(&f.rel, root, NULL, 0, 0, &rep, &err),
                   SC_E_PAYLOAD_MISMATCH, &err);
    char *file = cat(f.dir, "box.zip");
    SC_EXPECT_CODE(sc_box_verify_extracted(&f.rel, file, NULL, 0, 0, &rep, &err),
                   SC_E_ATTACH_ROOT, &err);
    free(file);
    free(root);
    fx_free(&f);
}

/* ---- self-test ------------------------------------------------------------- */

static void self_test_runs_the_imports_in_a_clean_environment(void)
{
    box_opts o = PLAIN;
    /* Succeeds only with the right arguments, cwd and environment. */
    o.python = "#!/bin/sh\n"
               "[ \"$1\" = \"-c\" ] || exit 11\n"
               "case \"$2\" in *\"import json, os.path\"*) ;; *) exit 12 ;; esac\n"
               "case \"$2\" in \"import sys; assert sys.platform.startswith('linux')\"*) ;; *) exit 13 ;; esac\n"
               "[ -f box.json ] || exit 14\n"
               "[ -z \"${PYTHONPATH+x}\" ] || exit 15\n"
               "[ \"${CUDA_VISIBLE_DEVICES-unset}\" = \"\" ] || exit 16\n"
               "[ \"$HF_HOME\" = \"model-cache\" ] || exit 17\n"
               "exit 0\n";
    o.environment = "{'HF_HOME':'model-cache','CUDA_VISIBLE_DEVICES':'3'}";
    fx f;
    build(&f, &o);
    sc_error err;
    sc_env_map host;
    memset(&host, 0, sizeof host);
    CU_ASSERT_FATAL(sc_env_map_set(&host, "PATH", "/usr/bin:/bin", &err) == SC_OK);
    CU_ASSERT_FATAL(sc_env_map_set(&host, "PYTHONPATH", "/evil", &err) == SC_OK);
    char *tmp = cat(f.dir, "tmp");
    CU_ASSERT_FATAL(mkdir(tmp, 0755) == 0);
    SC_EXPECT_CODE(sc_box_self_test(&f.rel, f.archive, tmp, &host, &err), SC_OK, &err);
    CU_ASSERT_EQUAL(count_prefixed(tmp, "scrollcase-"), 0);
    sc_env_map_free(&host);
    free(tmp);
    fx_free(&f);
}

static void self_test_failed(void)
{
    box_opts o = PLAIN;
    o.python = "#!/bin/sh\nexit 3\n";
    fx f;
    build(&f, &o);
    sc_error err;
    char *tmp = cat(f.dir, "tmp");
    CU_ASSERT_FATAL(mkdir(tmp, 0755) == 0);
    SC_EXPECT_CODE(sc_box_self_test(&f.rel, f.archive, tmp, NULL, &err),
                   SC_E_SELF_TEST_FAILED, &err);
    CU_ASSERT_EQUAL(count_prefixed(tmp, "scrollcase-"), 0);
    free(tmp);
    fx_free(&f);
}

static void self_test_timeout_is_enforced(void)
{
    box_opts o = PLAIN;
    o.python = "#!/bin/sh\nexec sleep 30\n";
    o.timeout_seconds = 1;
    fx f;
    build(&f, &o);
    sc_error err;
    char *tmp = cat(f.dir, "tmp");
    CU_ASSERT_FATAL(mkdir(tmp, 0755) == 0);
    time_t t0 = time(NULL);
    SC_EXPECT_CODE(sc_box_self_test(&f.rel, f.archive, tmp, NULL, &err), SC_E_TIMEOUT, &err);
    CU_ASSERT(time(NULL) - t0 < 20);
    CU_ASSERT_EQUAL(count_prefixed(tmp, "scrollcase-"), 0);
    free(tmp);
    fx_free(&f);
}

static void self_test_recomputes_the_payload_digest(void)
{
    box_opts o = PLAIN;
    o.wrong_payload_digest = 1;
    fx f;
    build(&f, &o);
    sc_error err;
    char *tmp = cat(f.dir, "tmp");
    CU_ASSERT_FATAL(mkdir(tmp, 0755) == 0);
    /* verify alone does not read the payload list... */
    SC_EXPECT_CODE(sc_box_verify(&f.rel, f.archive, NULL, &err), SC_OK, &err);
    /* ...the self-test recomputes the digest over the extracted tree. */
    SC_EXPECT_CODE(sc_box_self_test(&f.rel, f.archive, tmp, NULL, &err), SC_E_PAYLOAD_MISMATCH,
                   &err);
    CU_ASSERT_EQUAL(count_prefixed(tmp, "scrollcase-"), 0);
    free(tmp);
    fx_free(&f);
}

/* ---- temporary runs ---------------------------------------------------------- */

static void run_temporary_returns_the_exit_status_and_removes_its_root(void)
{
    box_opts o = PLAIN;
    o.execution = "{'kind':'python-script','script':'app/main.py','defaultArgs':['--x']}";
    o.python = "#!/bin/sh\n[ \"$2\" = \"--x\" ] && [ \"$3\" = \"a b\" ] && exit 7\nexit 1\n";
    fx f;
    build(&f, &o);
    sc_error err;
    char *tmp = cat(f.dir, "tmp");
    CU_ASSERT_FATAL(mkdir(tmp, 0755) == 0);
    char *args[] = {(char *)"a b"};
    sc_box_run_options ro;
    memset(&ro, 0, sizeof ro);
    ro.tmpdir = tmp;
    ro.args = args;
    ro.nargs = 1;
    sc_run_result res;
    SC_EXPECT_CODE(sc_box_run_temporary(&f.rel, f.archive, &ro, &res, &err), SC_OK, &err);
    CU_ASSERT(res.exited && res.exit_code == 7);
    sc_run_result_free(&res);
    CU_ASSERT_EQUAL(count_prefixed(tmp, ""), 2);
    free(tmp);
    fx_free(&f);
}

static void run_temporary_removes_its_root_on_spawn_failure(void)
{
    box_opts o = PLAIN;
    o.execution = "{'kind':'python-script','script':'app/main.py','defaultArgs':[]}";
    o.entry_not_executable = 1;
    fx f;
    build(&f, &o);
    sc_error err;
    char *tmp = cat(f.dir, "tmp");
    CU_ASSERT_FATAL(mkdir(tmp, 0755) == 0);
    sc_box_run_options ro;
    memset(&ro, 0, sizeof ro);
    ro.tmpdir = tmp;
    sc_run_result res;
    SC_EXPECT_CODE(sc_box_run_temporary(&f.rel, f.archive, &ro, &res, &err),
                   SC_E_SPAWN_FAILURE, &err);
    sc_run_result_free(&res);
    CU_ASSERT_EQUAL(count_prefixed(tmp, ""), 2);
    /* And on a failed verification. */
    poke(f.archive, 40, 'Z');
    SC_EXPECT_CODE(sc_box_run_temporary(&f.rel, f.archive, &ro, &res, &err),
                   SC_E_ARCHIVE_HASH, &err);
    sc_run_result_free(&res);
    CU_ASSERT_EQUAL(count_prefixed(tmp, ""), 2);
    free(tmp);
    fx_free(&f);
}

void register_consumer_tests(void)
{
    /* Every test: TMPDIR is a fresh root that must be empty afterwards. */
    CU_pSuite s = CU_add_suite_with_setup_and_teardown("consumer", NULL, NULL,
                                                       sc_test_tmp_root_setup,
                                                       sc_test_tmp_root_teardown);
    SC_ADD_TEST(s, release_open_records_every_signing_key_in_order);
    SC_ADD_TEST(s, release_open_refuses_revoked_release);
    SC_ADD_TEST(s, release_open_refuses_untrusted_signature);
    SC_ADD_TEST(s, default_archive_is_url_basename_beside_release);
    SC_ADD_TEST(s, verify_accepts_the_signed_archive);
    SC_ADD_TEST(s, verify_archive_not_found);
    SC_ADD_TEST(s, verify_archive_size_before_hash);
    SC_ADD_TEST(s, verify_archive_hash);
    SC_ADD_TEST(s, verify_hashes_the_same_bytes_with_any_job_count);
    SC_ADD_TEST(s, verify_a_failed_hash_wins_over_a_failed_inspection);
    SC_ADD_TEST(s, verify_archive_that_is_no_zip);
    SC_ADD_TEST(s, verify_missing_box_json);
    SC_ADD_TEST(s, verify_box_json_agreement);
    SC_ADD_TEST(s, verify_missing_interpreter);
    SC_ADD_TEST(s, verify_missing_script);
    SC_ADD_TEST(s, verify_missing_module);
    SC_ADD_TEST(s, prepare_extracts_and_returns_a_receipt);
    SC_ADD_TEST(s, prepare_rehash_of_a_moved_archive_is_a_second_hash_step);
    SC_ADD_TEST(s, prepare_beside_extraction_is_one_whole_hash_step);
    SC_ADD_TEST(s, prepare_a_failed_hash_wins_over_a_failed_extraction);
    SC_ADD_TEST(s, prepare_refuses_an_existing_destination);
    SC_ADD_TEST(s, prepare_installed_size_mismatch_leaves_nothing);
    SC_ADD_TEST(s, prepare_failed_verification_leaves_nothing);
    SC_ADD_TEST(s, prepare_on_a_full_disk_is_io_error_and_leaves_nothing);
    SC_ADD_TEST(s, prepare_killed_mid_extraction_leaves_no_destination);
    SC_ADD_TEST(s, prepare_sigterm_removes_the_stage);
    SC_ADD_TEST(s, prepare_sigint_removes_the_stage);
    SC_ADD_TEST(s, prepare_sighup_removes_the_stage);
    SC_ADD_TEST(s, prepare_sigterm_removes_the_stage_after_its_parent_moved);
    SC_ADD_TEST(s, prepare_archive_changed_during_extraction);
    SC_ADD_TEST(s, attach_accepts_a_prepared_tree_and_ignores_extra_files);
    SC_ADD_TEST(s, attach_root_must_be_a_real_directory);
    SC_ADD_TEST(s, attach_missing_interpreter);
    SC_ADD_TEST(s, attach_execution_must_be_discoverable);
    SC_ADD_TEST(s, attach_checks_on_demand_assets);
    SC_ADD_TEST(s, verify_extracted_checks_the_signed_payload_list);
    SC_ADD_TEST(s, self_test_runs_the_imports_in_a_clean_environment);
    SC_ADD_TEST(s, self_test_failed);
    SC_ADD_TEST(s, self_test_timeout_is_enforced);
    SC_ADD_TEST(s, self_test_recomputes_the_payload_digest);
    SC_ADD_TEST(s, run_temporary_returns_the_exit_status_and_removes_its_root);
    SC_ADD_TEST(s, run_temporary_removes_its_root_on_spawn_failure);
    SC_ADD_TEST(s, run_temporary_sigterm_while_preparing_removes_its_root);
    SC_ADD_TEST(s, run_temporary_sigint_while_preparing_removes_its_root);
    SC_ADD_TEST(s, run_temporary_sighup_while_preparing_removes_its_root);
}
