/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_build.c — the build pipeline (docs/format-v3.md 20), with real
 * processes: a workspace made a git repository with `git init` in the test,
 * a hand-made prefix whose bin/python is a /bin/sh launcher of
 * /usr/bin/python3, a key pair in the keys directory.  One test per rule.
 */
#define _POSIX_C_SOURCE 200809L
#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE
#endif

#include <CUnit/CUnit.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <unistd.h>

#include "harness.h"
#include "scrollcase/build.h"
#include "scrollcase/digest.h"
#include "scrollcase/envelope.h"
#include "scrollcase/file.h"
#include "scrollcase/json.h"
#include "scrollcase/keys.h"
#include "scrollcase/remedy.h"
#include "scrollcase/target.h"
#include "scrollcase/pixi_lock.h"
#include "scrollcase/licenses.h"

#define BOX_REF "hello-box/linux-x86_64-cpu"
#define BASE_URL ", 'assetBaseUrl': 'https://boxes.example.test/'"

typedef struct fx {
    char *tmp;      /* everything lives here */
    char *root;     /* the workspace and git repository */
    char *prefix;   /* the environment prefix (outside the repository) */
    char *marker;   /* written by the fake git when it runs */
    sc_workspace ws;
    char *env[8];
    char path_env[1024];
    char home_env[1024];
} fx;

static const char scroll_text[] =
    "{'schemaVersion': 3, 'boxId': 'hello-box', 'modelId': 'hello', 'runtimeId': 'cpython',"
    " 'version': '1.0.0', 'sourceRevision': 'test',"
    " 'target': %s,"
    " 'pythonVersion': '3.11', 'pixiVersion': '0.40.0',"
    " 'localFiles': [{'sourcePath': 'app/hello.py', 'relativePath': 'app/hello.py'}],"
    " 'selfTest': {'imports': ['json'], 'files': ['app/hello.py']%s},"
    " 'execution': {'kind': 'python-script', 'script': 'app/hello.py', 'defaultArgs': []}%s}";

static int sh(const char *fmt, const char *a, const char *b)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd, fmt, a, b ? b : "");
    return system(cmd);
}

static void put_scroll_at(fx *f, const char *ref, const char *target_json,
                          const char *self_test_extra, const char *top_extra)
{
    char text[4096], rel[256];
    snprintf(text, sizeof text, scroll_text, target_json, self_test_extra, top_extra);
    char *dq = sc_test_dq(text);
    snprintf(rel, sizeof rel, "scrolls/%s/scroll.json", ref);
    sc_test_write(f->root, rel, dq);
    free(dq);
}

static void put_scroll(fx *f, const char *self_test_extra, const char *top_extra)
{
    put_scroll_at(f, BOX_REF, "{'platform': 'linux', 'arch': 'x86_64', 'accelerator': 'cpu'}",
                  self_test_extra, top_extra);
}

static void commit(fx *f, const char *date)
{
    CU_ASSERT_EQUAL(sh("cd '%s' && git add -A && GIT_COMMITTER_DATE='%s' git -c user.name=t "
                       "-c user.email=t@t -c commit.gpgsign=false commit -q -m c >/dev/null",
                       f->root, date),
                    0);
}

/* The prefix, its files made in the given order (1: reverse). */
static void make_prefix(const char *prefix, int reverse)
{
    const char *files[][2] = {{"bin/python", "#!/bin/sh\nexec /usr/bin/python3 \"$@\"\n"},
                              {"lib/python3/site-packages/a.py", "A = 1\n"},
                              {"lib/python3/site-packages/b.py", "B = 2\n"},
                              {"share/doc/readme.txt", "prefix\n"}};
    size_t n = sizeof files / sizeof files[0];
    mkdir(prefix, 0755);
    for (size_t k = 0; k < n; k++) {
        size_t i = reverse ? n - 1 - k : k;
        sc_test_write(prefix, files[i][0], files[i][1]);
    }
    char *py = sc_path_join(prefix, "bin/python");
    chmod(py, 0755);
    free(py);
}

static void fx_init(fx *f, int with_git)
{
    memset(f, 0, sizeof *f);
    f->tmp = sc_test_tmpdir();
    f->root = sc_path_join(f->tmp, "ws");
    f->prefix = sc_path_join(f->tmp, "prefix");
    f->marker = sc_path_join(f->tmp, "git-ran");
    mkdir(f->root, 0755);
    make_prefix(f->prefix, 0);
    sc_test_write(f->root, "app/hello.py", "print('hello')\n");
    sc_test_write(f->root, ".gitignore", ".scrollcase/\n");
    put_scroll(f, "", BASE_URL);
    /* a git on PATH that records that it ran, then is the real one */
    char *fakebin = sc_path_join(f->tmp, "bin");
    char script[2048];
    snprintf(script, sizeof script, "#!/bin/sh\necho ran >>'%s'\nexec /usr/bin/git \"$@\"\n",
             f->marker);
    mkdir(fakebin, 0755);
    sc_test_write(fakebin, "git", script);
    char *git = sc_path_join(fakebin, "git");
    chmod(git, 0755);
    free(git);
    snprintf(f->path_env, sizeof f->path_env, "PATH=%s:/usr/bin:/bin", fakebin);
    snprintf(f->home_env, sizeof f->home_env, "HOME=%s", f->tmp);
    free(fakebin);
    f->env[0] = f->path_env;
    f->env[1] = f->home_env;
    f->env[2] = "GIT_CONFIG_NOSYSTEM=1";
    f->env[3] = NULL;
    if (with_git) {
        CU_ASSERT_EQUAL(sh("cd '%s' && git init -q .%s", f->root, NULL), 0);
        commit(f, "2024-02-29T23:30:00+05:00");
    }
    /* keys */
    unsigned char seed[SC_ED25519_SEED_LEN];
    memset(seed, 7, sizeof seed);
    sc_signing_key k;
    sc_error err;
    CU_ASSERT_EQUAL(sc_signing_key_generate(seed, NULL, &k, &err), SC_OK);
    sc_workspace_options wo;
    memset(&wo, 0, sizeof wo);
    wo.project_root = f->root;
    wo.cwd = f->root;
    CU_ASSERT_EQUAL(sc_workspace_resolve(&wo, &f->ws, &err), SC_OK);
    CU_ASSERT_EQUAL(sc_keys_write(f->ws.paths[SC_WS_KEYS], &k, 0, NULL, &err), SC_OK);
    sc_signing_key_free(&k);
    unlink(f->marker);
}

static void fx_free(fx *f)
{
    sc_workspace_free(&f->ws);
    sc_test_rmtree(f->tmp);
    free(f->tmp);
    free(f->root);
    free(f->prefix);
    free(f->marker);
}

static sc_build_options opts(fx *f)
{
    sc_build_options o;
    memset(&o, 0, sizeof o);
    o.workspace = &f->ws;
    o.ref = BOX_REF;
    o.environment_prefix = f->prefix;
    o.host_env = f->env;
    return o;
}

static int exists(const char *p)
{
    struct stat st;
    return lstat(p, &st) == 0;
}

static void expect_untouched(fx *f)
{
    CU_ASSERT_FALSE(exists(f->ws.paths[SC_WS_BUILD]));
    CU_ASSERT_FALSE(exists(f->ws.paths[SC_WS_DIST]));
    CU_ASSERT_FALSE(exists(f->marker)); /* no process ran */
}

/* ---- tests -------------------------------------------------------------- */

static void test_timestamp_is_utc_of_the_seconds(void)
{
    char out[21];
    sc_error err;
    CU_ASSERT_EQUAL(sc_build_timestamp(0, out, &err), SC_OK);
    CU_ASSERT_STRING_EQUAL(out, "1970-01-01T00:00:00Z");
    CU_ASSERT_EQUAL(sc_build_timestamp(951782400, out, &err), SC_OK);
    CU_ASSERT_STRING_EQUAL(out, "2000-02-29T00:00:00Z");
}

/* Every refusal decided by the scroll and the options comes before any
 * process (the fake git would leave its marker) and any directory. */
static void test_refusals_from_the_scroll_come_before_anything(void)
{
    fx f;
    fx_init(&f, 1);
    sc_build_options o;
    sc_build_result r;
    sc_error err;

    o = opts(&f);
    o.channel = "weekly";
    SC_EXPECT_CODE(sc_build(&o, &r, &err), SC_E_USAGE, &err);
    expect_untouched(&f);

    o = opts(&f);
    o.weights = "lazy";
    SC_EXPECT_CODE(sc_build(&o, &r, &err), SC_E_USAGE, &err);
    expect_untouched(&f);

    o = opts(&f);
    o.weights = "on-demand"; /* the scroll has no asset */
    SC_EXPECT_CODE(sc_build(&o, &r, &err), SC_E_INVALID_SCROLL, &err);
    expect_untouched(&f);

    o = opts(&f);
    o.ns = "Not.A.Namespace";
    SC_EXPECT_CODE(sc_build(&o, &r, &err), SC_E_USAGE, &err);
    expect_untouched(&f);

    o = opts(&f);
    o.key_id = "someone-else";
    SC_EXPECT_CODE(sc_build(&o, &r, &err), SC_E_INVALID_KEY, &err);
    expect_untouched(&f);

    o = opts(&f);
    o.signer_command = "'unterminated";
    SC_EXPECT_CODE(sc_build(&o, &r, &err), SC_E_USAGE, &err);
    expect_untouched(&f);

    /* a FIFO as the prefix: it would block if it were opened */
    char *fifo = sc_path_join(f.tmp, "fifo");
    CU_ASSERT_EQUAL(mkfifo(fifo, 0600), 0);
    o = opts(&f);
    o.environment_prefix = fifo;
    SC_EXPECT_CODE(sc_build(&o, &r, &err), SC_E_IO, &err);
    expect_untouched(&f);
    free(fifo);

    o = opts(&f);
    o.environment_prefix = NULL; /* the lock source: no pixi.lock beside the scroll */
    SC_EXPECT_CODE(sc_build(&o, &r, &err), SC_E_MISSING_LOCK, &err);
    expect_untouched(&f);

    /* a target this host cannot run: built natively or not at all */
    put_scroll_at(&f, "hello-box/macos-aarch64-metal",
                  "{'platform': 'macos', 'arch': 'aarch64', 'accelerator': 'metal'}", "",
                  BASE_URL);
    o = opts(&f);
    o.ref = "hello-box/macos-aarch64-metal";
    SC_EXPECT_CODE(sc_build(&o, &r, &err), SC_E_FOREIGN_TARGET, &err);
    expect_untouched(&f);

    /* --weights on-demand over a scroll that expands an asset archive */
    put_scroll(&f, "",
               ", 'assetBaseUrl': 'https://boxes.example.test/', 'assets': [{'url': "
               "'http://127.0.0.1:9/w.zip', 'relativePath': 'w.zip', 'sizeBytes': 1, 'sha256': "
               "'0000000000000000000000000000000000000000000000000000000000000000'}], "
               "'assetArchives': [{'relativePath': 'w.zip', 'format': 'zip', 'destination': "
               "'weights'}]");
    o = opts(&f);
    o.weights = "on-demand";
    SC_EXPECT_CODE(sc_build(&o, &r, &err), SC_E_INVALID_SCROLL, &err);
    expect_untouched(&f);

    /* no asset base URL in the scroll and none given (v2 found it last) */
    put_scroll(&f, "", "");
    o = opts(&f);
    SC_EXPECT_CODE(sc_build(&o, &r, &err), SC_E_USAGE, &err);
    expect_untouched(&f);
    fx_free(&f);
}

static void test_not_a_git_checkout_is_refused(void)
{
    fx f;
    fx_init(&f, 0);
    sc_build_options o = opts(&f);
    sc_build_result r;
    sc_error err;
    SC_EXPECT_CODE(sc_build(&o, &r, &err), SC_E_NOT_A_GIT_CHECKOUT, &err);
    CU_ASSERT_FALSE(exists(f.ws.paths[SC_WS_BUILD]));
    fx_free(&f);
}

static void test_dirty_tree_is_refused_unless_allowed(void)
{
    fx f;
    fx_init(&f, 1);
    sc_test_write(f.root, "notes.txt", "untracked\n");
    sc_build_options o = opts(&f);
    sc_build_result r;
    sc_error err;
    SC_EXPECT_CODE(sc_build(&o, &r, &err), SC_E_DIRTY_SOURCE_TREE, &err);
    CU_ASSERT_FALSE(exists(f.ws.paths[SC_WS_BUILD]));
    o.allow_dirty = 1;
    SC_EXPECT_CODE(sc_build(&o, &r, &err), SC_OK, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r.archive_path); /* the rest reads the result */
    CU_ASSERT_EQUAL(r.source_tree_dirty, 1);
    sc_verified_document vd;
    memset(&vd, 0, sizeof vd);
    char *trust = sc_path_join(f.ws.paths[SC_WS_KEYS], SC_PUBLIC_KEY_FILE);
    SC_EXPECT_CODE(sc_envelope_verify_file(trust, r.release_path, SC_DOC_RELEASE, &vd, &err),
                   SC_OK, &err);
    const sc_json *dirty = sc_json_get(sc_json_get(vd.payload, "provenance"), "sourceTreeDirty");
    CU_ASSERT(dirty && dirty->type == SC_JSON_BOOL && dirty->boolean);
    sc_verified_document_free(&vd);
    free(trust);
    sc_build_result_free(&r);
    fx_free(&f);
}

static void test_built_at_is_the_commit_time_in_utc(void)
{
    fx f;
    fx_init(&f, 1);
    sc_build_options o = opts(&f);
    sc_build_result r;
    sc_error err;
    SC_EXPECT_CODE(sc_build(&o, &r, &err), SC_OK, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r.archive_path); /* the rest reads the result */
    CU_ASSERT_STRING_EQUAL(r.built_at, "2024-02-29T18:30:00Z");
    CU_ASSERT_EQUAL(strlen(r.builder_revision), 40);
    CU_ASSERT_EQUAL(r.source_tree_dirty, 0);
    CU_ASSERT_TRUE(exists(f.marker)); /* git is the one on the injected PATH */
    sc_build_result_free(&r);
    fx_free(&f);
}

static void sha_of(const char *path, char hex[65])
{
    unsigned char d[SC_SHA256_LEN];
    sc_error err;
    CU_ASSERT_EQUAL(sc_sha256_file(path, d, &err), SC_OK);
    sc_hex_lower(d, SC_SHA256_LEN, hex);
}

/* The published tree: names from the hashes, the channel pointing at the
 * release, the release at the archive. */
static void test_publication_layout(void)
{
    fx f;
    fx_init(&f, 1);
    sc_build_options o = opts(&f);
    sc_build_result r;
    sc_error err;
    SC_EXPECT_CODE(sc_build(&o, &r, &err), SC_OK, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r.archive_path); /* the rest reads the result */
    char want[4096], hex[65];
    const char *dist = f.ws.paths[SC_WS_DIST];
    snprintf(want, sizeof want, "%s/boxes/hello-box/1.0.0/linux-x86_64-cpu/%s.zip", dist,
             r.archive_sha256);
    CU_ASSERT_STRING_EQUAL(r.archive_path, want);
    snprintf(want, sizeof want, "%s/boxes/hello-box/1.0.0/linux-x86_64-cpu/%s.release.json",
             dist, r.release_sha256);
    CU_ASSERT_STRING_EQUAL(r.release_path, want);
    snprintf(want, sizeof want, "%s/channels/hello-box/beta/linux-x86_64-cpu.json", dist);
    CU_ASSERT_STRING_EQUAL(r.channel_path, want);
    sha_of(r.archive_path, hex);
    CU_ASSERT_STRING_EQUAL(hex, r.archive_sha256);
    sha_of(r.release_path, hex);
    CU_ASSERT_STRING_EQUAL(hex, r.release_sha256);

    char *trust = sc_path_join(f.ws.paths[SC_WS_KEYS], SC_PUBLIC_KEY_FILE);
    sc_verified_document vd;
    memset(&vd, 0, sizeof vd);
    SC_EXPECT_CODE(sc_envelope_verify_file(trust, r.channel_path, SC_DOC_CHANNEL, &vd, &err),
                   SC_OK, &err);
    const sc_json *rel = sc_json_at(sc_json_get(vd.payload, "releases"), 0);
    snprintf(want, sizeof want,
             "https://boxes.example.test/boxes/hello-box/1.0.0/linux-x86_64-cpu/%s.release.json",
             r.release_sha256);
    CU_ASSERT_STRING_EQUAL(sc_json_cstr(sc_json_get(rel, "releaseManifestUrl")), want);
    sc_verified_document_free(&vd);
    memset(&vd, 0, sizeof vd);
    SC_EXPECT_CODE(sc_envelope_verify_file(trust, r.release_path, SC_DOC_RELEASE, &vd, &err),
                   SC_OK, &err);
    const sc_json *arch = sc_json_get(vd.payload, "archive");
    CU_ASSERT_STRING_EQUAL(sc_json_cstr(sc_json_get(arch, "sha256")), r.archive_sha256);
    const sc_json *gates = sc_json_get(vd.payload, "gates");
    CU_ASSERT_PTR_NOT_NULL(sc_json_get(gates, "selfTest"));
    CU_ASSERT_PTR_NULL(sc_json_get(gates, "cudaAudit")); /* a CPU target records none */
    const sc_json *env = sc_json_get(sc_json_get(vd.payload, "provenance"), "environment");
    CU_ASSERT_STRING_EQUAL(sc_json_cstr(sc_json_get(env, "source")), "prefix");
    sc_verified_document_free(&vd);
    free(trust);
    sc_build_result_free(&r);
    fx_free(&f);
}

/* One commit built twice under another TZ, locale, umask and prefix order
 * gives the same archive and release bytes. */
static void test_rebuild_is_byte_identical(void)
{
    fx f;
    fx_init(&f, 1);
    sc_build_options o = opts(&f);
    sc_build_result r1, r2;
    sc_error err;
    const char *old_tz = getenv("TZ");
    char *saved_tz = old_tz ? strdup(old_tz) : NULL;
    setenv("TZ", "UTC", 1);
    tzset();
    setlocale(LC_ALL, "C");
    mode_t old = umask(022);
    SC_EXPECT_CODE(sc_build(&o, &r1, &err), SC_OK, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r1.archive_path);

    char *prefix2 = sc_path_join(f.tmp, "prefix-reversed");
    make_prefix(prefix2, 1);
    o.environment_prefix = prefix2;
    setenv("TZ", "Pacific/Kiritimati", 1);
    tzset();
    setlocale(LC_ALL, "C.UTF-8");
    umask(077);
    f.env[3] = "TZ=Pacific/Kiritimati";
    f.env[4] = "LC_ALL=C.UTF-8";
    f.env[5] = NULL;
    SC_EXPECT_CODE(sc_build(&o, &r2, &err), SC_OK, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r2.archive_path);
    umask(old);
    setlocale(LC_ALL, "C");
    if (saved_tz)
        setenv("TZ", saved_tz, 1);
    else
        unsetenv("TZ");
    tzset();
    free(saved_tz);

    CU_ASSERT_STRING_EQUAL(r1.archive_sha256, r2.archive_sha256);
    CU_ASSERT_STRING_EQUAL(r1.release_sha256, r2.release_sha256);
    CU_ASSERT_STRING_EQUAL(r1.payload_sha256, r2.payload_sha256);
    char hex[65];
    sha_of(r2.archive_path, hex);
    CU_ASSERT_STRING_EQUAL(hex, r1.archive_sha256);
    sha_of(r2.release_path, hex);
    CU_ASSERT_STRING_EQUAL(hex, r1.release_sha256);
    free(prefix2);
    sc_build_result_free(&r1);
    sc_build_result_free(&r2);
    fx_free(&f);
}

/* A self-test that writes a file into the payload fails the build and
 * nothing is published. */
static void test_gate_that_writes_into_the_payload_is_refused(void)
{
    fx f;
    fx_init(&f, 1);
    /* open("st", "w").write("x") without quotes: the file st in the payload root */
    put_scroll(&f, ", 'pythonCode': 'open(chr(115) + chr(116), chr(119)).write(chr(120))'",
               BASE_URL);
    commit(&f, "2024-03-01T00:00:00Z");
    sc_build_options o = opts(&f);
    sc_build_result r;
    sc_error err;
    SC_EXPECT_CODE(sc_build(&o, &r, &err), SC_E_GATE_MODIFIED_PAYLOAD, &err);
    CU_ASSERT_FALSE(exists(f.ws.paths[SC_WS_DIST]));
    fx_free(&f);
}

/* A failing self-test is gate-failed; nothing is published. */
static void test_failing_self_test_is_gate_failed(void)
{
    fx f;
    fx_init(&f, 1);
    put_scroll(&f, ", 'pythonCode': 'raise SystemExit(3)'", BASE_URL);
    commit(&f, "2024-03-01T00:00:00Z");
    sc_build_options o = opts(&f);
    sc_build_result r;
    sc_error err;
    SC_EXPECT_CODE(sc_build(&o, &r, &err), SC_E_GATE_FAILED, &err);
    CU_ASSERT_FALSE(exists(f.ws.paths[SC_WS_DIST]));
    fx_free(&f);
}

/* A local file that is not there is local-file-missing. */
static void test_missing_local_file_is_refused(void)
{
    fx f;
    fx_init(&f, 1);
    char *p = sc_path_join(f.root, "app/hello.py");
    unlink(p);
    free(p);
    commit(&f, "2024-03-01T00:00:00Z");
    sc_build_options o = opts(&f);
    sc_build_result r;
    sc_error err;
    SC_EXPECT_CODE(sc_build(&o, &r, &err), SC_E_LOCAL_FILE_MISSING, &err);
    CU_ASSERT_FALSE(exists(f.ws.paths[SC_WS_DIST]));
    fx_free(&f);
}

/* An external signer that fails is signer-failed, and no file of the box
 * is published. */
static void test_failing_external_signer_publishes_nothing(void)
{
    fx f;
    fx_init(&f, 1);
    sc_build_options o = opts(&f);
    o.signer_command = "/bin/false";
    sc_build_result r;
    sc_error err;
    SC_EXPECT_CODE(sc_build(&o, &r, &err), SC_E_SIGNER_FAILED, &err);
    CU_ASSERT_FALSE(exists(f.ws.paths[SC_WS_DIST]));
    fx_free(&f);
}

/* Progress lines are reported for the long steps. */
static void count_steps(void *ctx, const char *step, const char *detail)
{
    (void)detail;
    if (strcmp(step, "self-test") == 0 || strcmp(step, "archive") == 0 ||
        strcmp(step, "environment") == 0)
        (*(int *)ctx)++;
}

static void test_progress_reports_long_steps(void)
{
    fx f;
    fx_init(&f, 1);
    sc_build_options o = opts(&f);
    int seen = 0;
    o.progress = count_steps;
    o.progress_ctx = &seen;
    sc_build_result r;
    sc_error err;
    SC_EXPECT_CODE(sc_build(&o, &r, &err), SC_OK, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r.archive_path); /* the rest reads the result */
    CU_ASSERT_EQUAL(seen, 3);
    sc_build_result_free(&r);
    fx_free(&f);
}

/* A CUDA target: without the opt-out the audit needs the lock (refused
 * before anything); with it the release records that it was opted out. */
static void test_cuda_audit_gate_and_its_opt_out(void)
{
    fx f;
    fx_init(&f, 1);
    const char *ref = "hello-box/linux-x86_64-cuda12.4";
    put_scroll_at(&f, ref,
                  "{'platform': 'linux', 'arch': 'x86_64', 'accelerator': 'cuda', "
                  "'cudaVersion': '12.4'}",
                  "", BASE_URL);
    commit(&f, "2024-03-01T00:00:00Z");
    unlink(f.marker);
    sc_build_options o = opts(&f);
    o.ref = ref;
    sc_build_result r;
    sc_error err;
    SC_EXPECT_CODE(sc_build(&o, &r, &err), SC_E_MISSING_LOCK, &err);
    expect_untouched(&f);
    o.no_cuda_audit = 1;
    /* the lock's opt-out is not the binaries gate's: this payload has no ELF
     * file, so without the scroll's run-time declaration it cannot use a GPU
     * (format-v3 19.10) */
    SC_EXPECT_CODE(sc_build(&o, &r, &err), SC_E_CUDA_BINARIES_MISSING, &err);
    put_scroll_at(&f, ref,
                  "{'platform': 'linux', 'arch': 'x86_64', 'accelerator': 'cuda', "
                  "'cudaVersion': '12.4'}",
                  "", BASE_URL ", 'cuda': {'deviceCode': 'runtime', 'reason': 'numba'}");
    commit(&f, "2024-03-01T00:00:00Z");
    SC_EXPECT_CODE(sc_build(&o, &r, &err), SC_OK, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r.archive_path); /* the rest reads the result */
    char *trust = sc_path_join(f.ws.paths[SC_WS_KEYS], SC_PUBLIC_KEY_FILE);
    sc_verified_document vd;
    memset(&vd, 0, sizeof vd);
    SC_EXPECT_CODE(sc_envelope_verify_file(trust, r.release_path, SC_DOC_RELEASE, &vd, &err),
                   SC_OK, &err);
    const sc_json *audit = sc_json_get(sc_json_get(vd.payload, "gates"), "cudaAudit");
    CU_ASSERT_STRING_EQUAL(sc_json_cstr(sc_json_get(audit, "status")), "opted-out");
    /* the declaration is recorded, signed, beside the (empty) record */
    const sc_json *bins = sc_json_get(vd.payload, "cudaBinaries");
    CU_ASSERT_EQUAL(sc_json_get(bins, "cubins") != NULL ? sc_json_get(bins, "cubins")->length : 99, 0);
    CU_ASSERT_STRING_EQUAL(sc_json_cstr(sc_json_get(sc_json_get(bins, "declared"), "reason")),
                           "numba");
    sc_verified_document_free(&vd);
    free(trust);
    sc_build_result_free(&r);
    fx_free(&f);
}

/* ---- refusals before work, licences of a prefix build (issue 11) ---------- */

#define LIC_DECL ", 'condaDependencyLicenseAudit': 'licenses/conda.json'"
#define SDIR "scrolls/" BOX_REF "/"
#define CFL "https://conda.anaconda.org/conda-forge/linux-64/"

/* A v7 lock of two conda packages and one wheel for linux-64. */
static const char lic_lock[] =
    "version: 7\nplatforms:\n- name: linux-64\nenvironments:\n  default:\n    channels:\n"
    "    - url: https://conda.anaconda.org/conda-forge/\n    packages:\n      linux-64:\n"
    "      - conda: " CFL "python-3.11.9-h0_0_cpython.conda\n"
    "      - conda: " CFL "zlib-1.3.1-hb9d3cd8_2.conda\n"
    "packages:\n"
    "- conda: " CFL "python-3.11.9-h0_0_cpython.conda\n"
    "  sha256: 1111111111111111111111111111111111111111111111111111111111111111\n"
    "  license: Python-2.0\n"
    "- conda: " CFL "zlib-1.3.1-hb9d3cd8_2.conda\n"
    "  sha256: 2222222222222222222222222222222222222222222222222222222222222222\n"
    "  license: Zlib\n";

static void put_conda_meta(fx *f, const char *zlib_build, const char *zlib_sha)
{
    char rec[512];
    sc_test_write(f->prefix, "conda-meta/python-3.11.9-h0_0_cpython.json",
                  "{\"name\": \"python\", \"version\": \"3.11.9\", \"build\": \"h0_0_cpython\", "
                  "\"sha256\": \"1111111111111111111111111111111111111111111111111111111111111111\"}\n");
    snprintf(rec, sizeof rec,
             "{\"name\": \"zlib\", \"version\": \"1.3.1\", \"build\": \"%s\", \"sha256\": \"%s\", "
             "\"license\": \"Zlib\"}\n", zlib_build, zlib_sha);
    sc_test_write(f->prefix, "conda-meta/zlib-1.3.1-hb9d3cd8_2.json", rec);
}

/* The scroll declares the inventory; the lock, pixi.toml and the reviewed
 * file (as `audit --write` makes it) are committed. */
static void put_licensed_scroll(fx *f, const char *lock)
{
    put_scroll(f, "", BASE_URL LIC_DECL);
    sc_test_write(f->root, SDIR "pixi.toml",
                  "[workspace]\nname = \"hello\"\nchannels = [\"conda-forge\"]\n"
                  "platforms = [\"linux-64\"]\n");
    sc_test_write(f->root, SDIR "pixi.lock", lock);
    sc_pixi_lock *l = NULL;
    sc_error err;
    char hex[65];
    SC_EXPECT_CODE(sc_pixi_lock_parse(lic_lock, strlen(lic_lock), "pixi.lock", &l, &err), SC_OK,
                   &err);
    CU_ASSERT_FATAL(l != NULL);
    CU_ASSERT_FATAL(sc_sha256_hex(lic_lock, strlen(lic_lock), hex, &err) == SC_OK);
    sc_target t;
    CU_ASSERT_FATAL(sc_target_parse_id("linux-x86_64-cpu", &t, &err) == SC_OK);
    sc_json *inv = NULL;
    SC_EXPECT_CODE(sc_license_inventory(l, &t, hex, NULL, &inv, &err), SC_OK, &err);
    char *text = NULL;
    size_t len = 0;
    CU_ASSERT_FATAL(inv && sc_json_write(inv, &text, &len, &err) == SC_OK);
    sc_test_write(f->root, "licenses/conda.json", text);
    free(text);
    sc_json_free(inv);
    sc_pixi_lock_free(l);
}

static void expect_no_payload(fx *f)
{
    char *p = sc_path_join(f->ws.paths[SC_WS_BUILD], "hello-box-linux-x86_64-cpu");
    CU_ASSERT_FALSE(exists(p));
    free(p);
    CU_ASSERT_FALSE(exists(f->ws.paths[SC_WS_DIST]));
}

/* An unreadable lock is invalid-lock before any process or directory. */
static void test_unreadable_lock_is_refused_before_anything(void)
{
    fx f;
    fx_init(&f, 1);
    put_licensed_scroll(&f, "version: 9\nplatforms: []\nenvironments: {}\npackages: []\n");
    commit(&f, "2024-03-01T00:00:00Z");
    unlink(f.marker);
    sc_build_options o = opts(&f);
    sc_build_result r;
    sc_error err;
    SC_EXPECT_CODE(sc_build(&o, &r, &err), SC_E_INVALID_LOCK, &err);
    expect_untouched(&f);
    o.environment_prefix = NULL; /* the lock source reads it first too */
    SC_EXPECT_CODE(sc_build(&o, &r, &err), SC_E_INVALID_LOCK, &err);
    expect_untouched(&f);
    fx_free(&f);
}

/* A reviewed licence file that disagrees (or is schema 2) is refused before
 * the environment is copied. */
static void test_disagreeing_licence_file_is_refused_before_anything(void)
{
    fx f;
    fx_init(&f, 1);
    put_conda_meta(&f, "hb9d3cd8_2",
                   "2222222222222222222222222222222222222222222222222222222222222222");
    put_licensed_scroll(&f, lic_lock);
    sc_test_write(f.root, "licenses/conda.json", "{\"schemaVersion\": 3}\n");
    commit(&f, "2024-03-01T00:00:00Z");
    unlink(f.marker);
    sc_build_options o = opts(&f);
    sc_build_result r;
    sc_error err;
    SC_EXPECT_CODE(sc_build(&o, &r, &err), SC_E_LICENSE_AUDIT_MISMATCH, &err);
    expect_untouched(&f);
    sc_test_write(f.root, "licenses/conda.json",
                  "{\"schemaVersion\": 2, \"dependencyLockSha256\": \"00\"}\n");
    commit(&f, "2024-03-01T00:00:01Z");
    unlink(f.marker);
    SC_EXPECT_CODE(sc_build(&o, &r, &err), SC_E_DEPRECATED_SCHEMA_VERSION, &err);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "`" SC_REMEDY_AUDIT_WRITE "`"));
    expect_untouched(&f);
    fx_free(&f);
}

/* A prefix the lock does not describe: no conda-meta, a package only on one
 * side, another archive.  Each refused before anything runs. */
static void test_prefix_the_lock_does_not_describe_is_lock_payload_mismatch(void)
{
    fx f;
    fx_init(&f, 1);
    put_licensed_scroll(&f, lic_lock);
    commit(&f, "2024-03-01T00:00:00Z");
    unlink(f.marker);
    sc_build_options o = opts(&f);
    sc_build_result r;
    sc_error err;
    SC_EXPECT_CODE(sc_build(&o, &r, &err), SC_E_LOCK_PAYLOAD_MISMATCH, &err);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "no conda-meta"));
    expect_untouched(&f);
    put_conda_meta(&f, "h0_9", "2222222222222222222222222222222222222222222222222222222222222222");
    SC_EXPECT_CODE(sc_build(&o, &r, &err), SC_E_LOCK_PAYLOAD_MISMATCH, &err);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "zlib"));
    expect_untouched(&f);
    put_conda_meta(&f, "hb9d3cd8_2",
                   "3333333333333333333333333333333333333333333333333333333333333333");
    SC_EXPECT_CODE(sc_build(&o, &r, &err), SC_E_LOCK_PAYLOAD_MISMATCH, &err);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "sha256"));
    expect_untouched(&f);
    fx_free(&f);
}

/* A prefix whose conda-meta is the lock's: the inventory ships in the box. */
static void test_prefix_build_ships_the_lock_inventory(void)
{
    fx f;
    fx_init(&f, 1);
    put_conda_meta(&f, "hb9d3cd8_2",
                   "2222222222222222222222222222222222222222222222222222222222222222");
    put_licensed_scroll(&f, lic_lock);
    commit(&f, "2024-03-01T00:00:00Z");
    sc_build_options o = opts(&f);
    sc_build_result r;
    sc_error err;
    SC_EXPECT_CODE(sc_build(&o, &r, &err), SC_OK, &err);
    char *dir = sc_path_join(f.ws.paths[SC_WS_BUILD], "hello-box-linux-x86_64-cpu/payload");
    char *notices = dir ? sc_path_join(dir, SC_LICENSE_NOTICES_PATH) : NULL;
    char *reviewed = sc_path_join(f.root, "licenses/conda.json");
    char *a = NULL, *b = NULL;
    size_t al = 0, bl = 0;
    SC_EXPECT_CODE(sc_file_read(notices, &a, &al, NULL, &err), SC_OK, &err);
    SC_EXPECT_CODE(sc_file_read(reviewed, &b, &bl, NULL, &err), SC_OK, &err);
    CU_ASSERT(a && b && al == bl && memcmp(a, b, al) == 0);
    free(a);
    free(b);
    free(reviewed);
    free(notices);
    free(dir);
    sc_build_result_free(&r);
    fx_free(&f);
}

/* A build that fails after the payload was begun leaves none behind. */
static void test_failed_build_leaves_no_payload(void)
{
    fx f;
    fx_init(&f, 1);
    put_scroll(&f, ", 'pythonCode': 'raise SystemExit(3)'", BASE_URL);
    commit(&f, "2024-03-01T00:00:00Z");
    sc_build_options o = opts(&f);
    sc_build_result r;
    sc_error err;
    SC_EXPECT_CODE(sc_build(&o, &r, &err), SC_E_GATE_FAILED, &err);
    CU_ASSERT_TRUE(exists(f.marker)); /* it did get that far */
    expect_no_payload(&f);
    fx_free(&f);
}

/* ---- remedies (issue 11) ------------------------------------------------- */

/* Run the CLI on argv (argv[0] is replaced by the built program), output
 * discarded; its exit status, or -1. */
static int run_cli(char **argv)
{
    argv[0] = SC_CLI_PATH;
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        int fd = open("/dev/null", O_WRONLY);
        if (fd >= 0) {
            dup2(fd, 1);
            dup2(fd, 2);
        }
        execv(argv[0], argv);
        _exit(127);
    }
    int st = 0;
    if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
        return -1;
    return WEXITSTATUS(st);
}

/* The command line's verdict on a remedy: its words, placeholders given
 * values, parsed by the option table with nothing run
 * (`scrollcase help --parse-only -- WORDS`: 0 parses, 2 a usage error). */
static int remedy_parses(const char *remedy)
{
    char buf[512];
    snprintf(buf, sizeof buf, "%s", remedy);
    char *argv[40];
    int n = 0;
    argv[n++] = NULL; /* the program */
    argv[n++] = "help";
    argv[n++] = "--parse-only";
    argv[n++] = "--";
    char *save = NULL;
    char *w = strtok_r(buf, " ", &save);
    if (w == NULL || strcmp(w, "scrollcase") != 0)
        return -1;
    while ((w = strtok_r(NULL, " ", &save)) != NULL && n < 36) {
        if (strcmp(w, "REF") == 0 || strcmp(w, "SCROLL") == 0)
            w = "hello-box/linux-x86_64-cpu";
        else if (strcmp(w, "PATH") == 0)
            w = "/usr/bin/true";
        else if (strcmp(w, "VERSION") == 0)
            w = "0.73.0";
        else if (strcmp(w, "CMD") == 0)
            w = "signer";
        argv[n++] = w;
    }
    argv[n] = NULL;
    return run_cli(argv);
}

static void test_every_printed_remedy_parses(void)
{
    size_t n = 0;
    for (const char *const *r = sc_remedy_commands(); *r != NULL; r++, n++) {
        int st = remedy_parses(*r);
        if (st != 0)
            fprintf(stderr, "\n  remedy \"%s\" does not parse (exit %d)\n", *r, st);
        CU_ASSERT_EQUAL(st, 0);
    }
    CU_ASSERT(n >= 9);
    /* the check can fail: the remedies doctor printed before (issue 11) */
    CU_ASSERT_EQUAL(remedy_parses("scrollcase init --install-toolchain"), 2);
    CU_ASSERT_EQUAL(remedy_parses("scrollcase keygen --trust PATH"), 2);
}

void register_build_tests(void)
{
    if (access("/usr/bin/git", X_OK) != 0 || access("/usr/bin/python3", X_OK) != 0)
        return;
    CU_pSuite s = CU_add_suite("build", NULL, NULL);
    SC_ADD_TEST(s, test_timestamp_is_utc_of_the_seconds);
    SC_ADD_TEST(s, test_refusals_from_the_scroll_come_before_anything);
    SC_ADD_TEST(s, test_not_a_git_checkout_is_refused);
    SC_ADD_TEST(s, test_dirty_tree_is_refused_unless_allowed);
    SC_ADD_TEST(s, test_built_at_is_the_commit_time_in_utc);
    SC_ADD_TEST(s, test_publication_layout);
    SC_ADD_TEST(s, test_rebuild_is_byte_identical);
    SC_ADD_TEST(s, test_gate_that_writes_into_the_payload_is_refused);
    SC_ADD_TEST(s, test_failing_self_test_is_gate_failed);
    SC_ADD_TEST(s, test_missing_local_file_is_refused);
    SC_ADD_TEST(s, test_failing_external_signer_publishes_nothing);
    SC_ADD_TEST(s, test_progress_reports_long_steps);
    SC_ADD_TEST(s, test_cuda_audit_gate_and_its_opt_out);
    SC_ADD_TEST(s, test_unreadable_lock_is_refused_before_anything);
    SC_ADD_TEST(s, test_disagreeing_licence_file_is_refused_before_anything);
    SC_ADD_TEST(s, test_prefix_the_lock_does_not_describe_is_lock_payload_mismatch);
    SC_ADD_TEST(s, test_prefix_build_ships_the_lock_inventory);
    SC_ADD_TEST(s, test_failed_build_leaves_no_payload);
    CU_pSuite rs = CU_add_suite("remedy", NULL, NULL);
    SC_ADD_TEST(rs, test_every_printed_remedy_parses);
}
