/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_run.c — docs/format-v3.md 16.4 (environment layers and the report),
 * 16.5 (on-demand assets) and 16.6 (run), with real processes.
 *
 * The box under test is a directory whose entry point venv/bin/python is a
 * real #!/bin/sh program: it records its argv, working directory and
 * environment beside the box, then runs its "script" as shell code, so each
 * test's app.py says how the child ends (an exit code, a signal, a signal
 * to its parent).  A refusal is proven to happen before spawning by the
 * absence of the record.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "scrollcase/assets.h"
#include "scrollcase/digest.h"
#include "scrollcase/environment.h"
#include "scrollcase/envsource.h"
#include "scrollcase/execution.h"
#include "scrollcase/file.h"
#include "scrollcase/json.h"
#include "scrollcase/process.h"
#include "scrollcase/run.h"
#include "scrollcase/target.h"

/* ---- the box -------------------------------------------------------------- */

static const char fake_python[] =
    "#!/bin/sh\n"
    "# A stand-in interpreter: records how it was started, then runs its\n"
    "# script as shell code.\n"
    "root=\"${0%/venv/bin/python}\"\n"
    "printf '%s\\n' \"$0\" \"$@\" > \"$root/record.args\"\n"
    "pwd -P > \"$root/record.cwd\"\n"
    "/usr/bin/env > \"$root/record.env\"\n"
    "if [ \"$1\" = \"-m\" ]; then exit 0; fi\n"
    ". \"$1\"\n";

typedef struct box {
    char *root;
    unsigned long long dev, ino;
    sc_json *release;
} box;

static int native(sc_platform *p, sc_arch *a)
{
    sc_platform pp;
    sc_arch aa;
    return sc_run_host_pair(p ? p : &pp, a ? a : &aa);
}

#define NEED_NATIVE()                                                         \
    do {                                                                      \
        if (!native(NULL, NULL)) {                                            \
            fprintf(stderr, "\n  host outside the target matrix: skipped\n"); \
            return;                                                           \
        }                                                                     \
    } while (0)

static char *path_in(const box *b, const char *rel)
{
    char *p = sc_path_join(b->root, rel);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    return p;
}

static void put(const box *b, const char *rel, const char *text, mode_t mode)
{
    sc_test_write(b->root, rel, text);
    char *p = path_in(b, rel);
    chmod(p, mode);
    free(p);
}

static void record_identity(box *b)
{
    struct stat st;
    CU_ASSERT_FATAL(lstat(b->root, &st) == 0);
    b->dev = (unsigned long long)st.st_dev;
    b->ino = (unsigned long long)st.st_ino;
}

/* The release: single-quoted JSON members after target/entry/provenance. */
static void set_release(box *b, const char *target_json, const char *members)
{
    sc_platform p = SC_PLATFORM_LINUX;
    sc_arch a = SC_ARCH_X86_64;
    native(&p, &a);
    char tj[160];
    if (target_json == NULL) {
        snprintf(tj, sizeof tj, "{'platform': '%s', 'arch': '%s', 'accelerator': 'cpu'}",
                 sc_platform_name(p), sc_arch_name(a));
        target_json = tj;
    }
    size_t n = strlen(target_json) + strlen(members) + 256;
    char *text = malloc(n);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    snprintf(text, n,
             "{'target': %s, 'pythonEntryPoint': 'venv/bin/python', "
             "'provenance': {'pythonVersion': '3.11.4'}%s%s}",
             target_json, members[0] ? ", " : "", members);
    char *dq = sc_test_dq(text);
    free(text);
    sc_json_free(b->release);
    b->release = NULL;
    sc_error err;
    sc_code c = sc_json_parse(dq, strlen(dq), &b->release, &err);
    SC_EXPECT_CODE(c, SC_OK, &err);
    free(dq);
    CU_ASSERT_PTR_NOT_NULL_FATAL(b->release);
}

#define SCRIPT_EXECUTION \
    "'execution': {'kind': 'python-script', 'script': 'app.py', 'defaultArgs': ['--default', 'two words']}"

/* A box whose app.py holds the shell code `app`. */
static box box_new(const char *app, const char *members)
{
    box b = {0};
    char *t = sc_test_tmpdir();
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    char real[4096];
    CU_ASSERT_PTR_NOT_NULL_FATAL(realpath(t, real));
    b.root = strdup(real);
    free(t);
    put(&b, "venv/bin/python", fake_python, 0755);
    put(&b, "app.py", app, 0644);
    record_identity(&b);
    set_release(&b, NULL, members);
    return b;
}

static void box_free(box *b)
{
    sc_test_rmtree(b->root);
    free(b->root);
    sc_json_free(b->release);
}

/* The record file's text, or NULL when the child never ran. */
static char *record(const box *b, const char *which)
{
    char name[64];
    snprintf(name, sizeof name, "record.%s", which);
    char *p = path_in(b, name);
    char *text = NULL;
    size_t len;
    sc_error err;
    if (sc_file_read(p, &text, &len, NULL, &err) != SC_OK)
        text = NULL;
    free(p);
    return text;
}

static int spawned_record(const box *b)
{
    char *t = record(b, "args");
    free(t);
    return t != NULL;
}

/* 1 if the recorded environment holds the line NAME=value exactly. */
static int env_has(const char *env, const char *line)
{
    size_t n = strlen(line);
    for (const char *p = env; p && *p;) {
        const char *nl = strchr(p, '\n');
        size_t l = nl ? (size_t)(nl - p) : strlen(p);
        if (l == n && memcmp(p, line, n) == 0)
            return 1;
        p = nl ? nl + 1 : p + l;
    }
    return 0;
}

/* A map from NULL-terminated name, value, name, value, ... */
static sc_env_map envmap(const char *const *kv)
{
    sc_env_map m = {0};
    sc_error err;
    for (size_t i = 0; kv != NULL && kv[i] != NULL; i += 2)
        CU_ASSERT_EQUAL_FATAL(sc_env_map_set(&m, kv[i], kv[i + 1], &err), SC_OK);
    return m;
}

typedef struct run_opts {
    const sc_env_map *host, *caller;
    char *const *args;
    size_t nargs;
    int full, values, forward;
    void (*on_report)(void *ctx, const sc_json *report);
    void *report_ctx;
} run_opts;

static sc_code run_box(const box *b, const run_opts *o, sc_run_result *r, sc_error *err)
{
    static const sc_env_map empty = {0};
    int devnull = open("/dev/null", O_RDWR);
    sc_run_spec s = {
        .root = b->root,
        .release = b->release,
        .target = NULL,
        .dev = b->dev,
        .ino = b->ino,
        .host = o && o->host ? o->host : &empty,
        .caller = o ? o->caller : NULL,
        .args = o ? o->args : NULL,
        .nargs = o ? o->nargs : 0,
        .env_report_full = o ? o->full : 0,
        .env_report_values = o ? o->values : 0,
        .stdin_fd = devnull,
        .stdout_fd = -1,
        .stderr_fd = -1,
        .forward_signals = o ? o->forward : 0,
        .on_environment_report = o ? o->on_report : NULL,
        .report_ctx = o ? o->report_ctx : NULL,
    };
    sc_error_clear(err);
    sc_code c = sc_run(&s, r, err);
    if (devnull >= 0)
        close(devnull);
    return c;
}

/* Run a box and expect a refusal with code want, before anything spawned. */
static void expect_refused(box *b, sc_code want, const char *message)
{
    sc_run_result r;
    sc_error err;
    sc_code c = run_box(b, NULL, &r, &err);
    SC_EXPECT_CODE(c, want, &err);
    if (message != NULL && strcmp(err.message, message) != 0) {
        fprintf(stderr, "\n  message: %s\n  wanted:  %s\n", err.message, message);
        CU_FAIL("message as expected");
    }
    CU_ASSERT_EQUAL(r.spawned, 0);
    CU_ASSERT_FALSE(spawned_record(b));
    sc_run_result_free(&r);
}

/* ---- 16.6 run: argv, cwd, results ------------------------------------------ */

static void run_argv_is_script_then_defaults_then_caller_args(void)
{
    NEED_NATIVE();
    box b = box_new("exit 0\n", SCRIPT_EXECUTION);
    char *args[] = {"first", "second"};
    run_opts o = {.args = args, .nargs = 2};
    sc_run_result r;
    sc_error err;
    SC_EXPECT_CODE(run_box(&b, &o, &r, &err), SC_OK, &err);
    CU_ASSERT_EQUAL(r.spawned, 1);
    CU_ASSERT_EQUAL(r.exited, 1);
    CU_ASSERT_EQUAL(r.exit_code, 0);
    char *got = record(&b, "args");
    char want[8192];
    snprintf(want, sizeof want,
             "%s/venv/bin/python\n%s/app.py\n--default\ntwo words\nfirst\nsecond\n",
             b.root, b.root);
    CU_ASSERT_PTR_NOT_NULL(got);
    if (got)
        CU_ASSERT_STRING_EQUAL(got, want);
    free(got);
    sc_run_result_free(&r);
    box_free(&b);
}

static void run_module_argv_is_dash_m_module(void)
{
    NEED_NATIVE();
    box b = box_new("exit 0\n",
                    "'execution': {'kind': 'python-module', 'module': 'pkg.tool', "
                    "'defaultArgs': ['-v']}");
    put(&b, "venv/lib/python3.11/site-packages/pkg/tool/__main__.py", "", 0644);
    char *args[] = {"x"};
    run_opts o = {.args = args, .nargs = 1};
    sc_run_result r;
    sc_error err;
    SC_EXPECT_CODE(run_box(&b, &o, &r, &err), SC_OK, &err);
    char *got = record(&b, "args");
    char want[8192];
    snprintf(want, sizeof want, "%s/venv/bin/python\n-m\npkg.tool\n-v\nx\n", b.root);
    CU_ASSERT_PTR_NOT_NULL(got);
    if (got)
        CU_ASSERT_STRING_EQUAL(got, want);
    free(got);
    sc_run_result_free(&r);
    box_free(&b);
}

static void run_shell_metacharacters_preserved_verbatim(void)
{
    NEED_NATIVE();
    box b = box_new("exit 0\n", SCRIPT_EXECUTION);
    char *args[] = {"$(touch pwned)", "; touch pwned2", "*", "a|b && c", "`id`",
                    "\"quoted\" 'single'", "", "$HOME"};
    run_opts o = {.args = args, .nargs = 8};
    sc_run_result r;
    sc_error err;
    SC_EXPECT_CODE(run_box(&b, &o, &r, &err), SC_OK, &err);
    char *got = record(&b, "args");
    char want[8192];
    snprintf(want, sizeof want,
             "%s/venv/bin/python\n%s/app.py\n--default\ntwo words\n$(touch pwned)\n"
             "; touch pwned2\n*\na|b && c\n`id`\n\"quoted\" 'single'\n\n$HOME\n",
             b.root, b.root);
    CU_ASSERT_PTR_NOT_NULL(got);
    if (got)
        CU_ASSERT_STRING_EQUAL(got, want);
    free(got);
    char *p1 = path_in(&b, "pwned"), *p2 = path_in(&b, "pwned2");
    CU_ASSERT_FALSE(access(p1, F_OK) == 0);
    CU_ASSERT_FALSE(access(p2, F_OK) == 0);
    free(p1);
    free(p2);
    sc_run_result_free(&r);
    box_free(&b);
}

static void run_cwd_is_box_root(void)
{
    NEED_NATIVE();
    box b = box_new("exit 0\n", SCRIPT_EXECUTION);
    sc_run_result r;
    sc_error err;
    SC_EXPECT_CODE(run_box(&b, NULL, &r, &err), SC_OK, &err);
    char *got = record(&b, "cwd");
    char want[8192];
    snprintf(want, sizeof want, "%s\n", b.root);
    CU_ASSERT_PTR_NOT_NULL(got);
    if (got)
        CU_ASSERT_STRING_EQUAL(got, want);
    free(got);
    sc_run_result_free(&r);
    box_free(&b);
}

static void run_exit_code_is_a_result(void)
{
    NEED_NATIVE();
    box b = box_new("exit 7\n", SCRIPT_EXECUTION);
    sc_run_result r;
    sc_error err;
    SC_EXPECT_CODE(run_box(&b, NULL, &r, &err), SC_OK, &err);
    CU_ASSERT_EQUAL(r.spawned, 1);
    CU_ASSERT_EQUAL(r.exited, 1);
    CU_ASSERT_EQUAL(r.exit_code, 7);
    CU_ASSERT_EQUAL(r.term_signal, 0);
    sc_run_result_free(&r);
    box_free(&b);
}

static void run_death_by_signal_is_a_result(void)
{
    NEED_NATIVE();
    box b = box_new("kill -KILL $$\n", SCRIPT_EXECUTION);
    sc_run_result r;
    sc_error err;
    SC_EXPECT_CODE(run_box(&b, NULL, &r, &err), SC_OK, &err);
    CU_ASSERT_EQUAL(r.spawned, 1);
    CU_ASSERT_EQUAL(r.exited, 0);
    CU_ASSERT_EQUAL(r.term_signal, SIGKILL);
    CU_ASSERT_STRING_EQUAL(sc_signal_name(r.term_signal), "SIGKILL");
    CU_ASSERT_STRING_EQUAL(sc_signal_name(SIGTERM), "SIGTERM");
    CU_ASSERT_STRING_EQUAL(sc_signal_name(200), "SIG200");
    sc_run_result_free(&r);
    box_free(&b);
}

static void run_forwards_sigterm_to_the_child(void)
{
    NEED_NATIVE();
    /* The child signals its parent (this process), then waits: only the
     * forwarding can end it with SIGTERM. */
    box b = box_new("kill -TERM $PPID\nexec /bin/sleep 20\n", SCRIPT_EXECUTION);
    struct sigaction before, after;
    sigaction(SIGTERM, NULL, &before);
    run_opts o = {.forward = 1};
    sc_run_result r;
    sc_error err;
    time_t t0 = time(NULL);
    SC_EXPECT_CODE(run_box(&b, &o, &r, &err), SC_OK, &err);
    CU_ASSERT_EQUAL(r.exited, 0);
    CU_ASSERT_EQUAL(r.term_signal, SIGTERM);
    CU_ASSERT_EQUAL(r.forwarded_signal, SIGTERM);
    CU_ASSERT(time(NULL) - t0 < 15);
    sigaction(SIGTERM, NULL, &after);
    CU_ASSERT(after.sa_handler == before.sa_handler); /* restored */
    sc_run_result_free(&r);
    box_free(&b);
}

static void run_spawn_failure_not_executable(void)
{
    NEED_NATIVE();
    box b = box_new("exit 0\n", SCRIPT_EXECUTION);
    char *py = path_in(&b, "venv/bin/python");
    chmod(py, 0644);
    sc_run_result r;
    sc_error err;
    SC_EXPECT_CODE(run_box(&b, NULL, &r, &err), SC_E_SPAWN_FAILURE, &err);
    char want[8192];
    snprintf(want, sizeof want, "Box interpreter failed to start: %s: %s", py,
             strerror(EACCES));
    CU_ASSERT_STRING_EQUAL(err.message, want);
    CU_ASSERT_EQUAL(r.spawned, 0);
    CU_ASSERT_PTR_NOT_NULL(r.environment_report); /* resolved before spawning */
    free(py);
    sc_run_result_free(&r);
    box_free(&b);
}

static void run_spawn_failure_without_shebang(void)
{
    NEED_NATIVE();
    box b = box_new("exit 0\n", SCRIPT_EXECUTION);
    put(&b, "venv/bin/python", "this is not a program\n", 0755);
    char *py = path_in(&b, "venv/bin/python");
    sc_run_result r;
    sc_error err;
    SC_EXPECT_CODE(run_box(&b, NULL, &r, &err), SC_E_SPAWN_FAILURE, &err);
    char want[8192];
    snprintf(want, sizeof want, "Box interpreter failed to start: %s: %s", py,
             strerror(ENOEXEC));
    CU_ASSERT_STRING_EQUAL(err.message, want);
    CU_ASSERT_EQUAL(r.spawned, 0);
    free(py);
    sc_run_result_free(&r);
    box_free(&b);
}

/* ---- 16.6 run: refusals before spawning ------------------------------------ */

static void run_refuses_library_only_box(void)
{
    NEED_NATIVE();
    box b = box_new("exit 0\n", "");
    expect_refused(&b, SC_E_NO_EXECUTION, "Box does not declare an execution entry point.");
    box_free(&b);
}

static void run_refuses_foreign_target(void)
{
    NEED_NATIVE();
    sc_platform p;
    sc_arch a;
    native(&p, &a);
    box b = box_new("exit 0\n", SCRIPT_EXECUTION);
    const char *foreign = p == SC_PLATFORM_MACOS
        ? "{'platform': 'linux', 'arch': 'x86_64', 'accelerator': 'cpu'}"
        : "{'platform': 'macos', 'arch': 'aarch64', 'accelerator': 'metal'}";
    set_release(&b, foreign, SCRIPT_EXECUTION);
    char want[256];
    snprintf(want, sizeof want, "Box target %s cannot run on %s/%s; requires %s.",
             p == SC_PLATFORM_MACOS ? "linux-x86_64-cpu" : "macos-aarch64-metal",
             sc_platform_name(p), sc_arch_name(a),
             p == SC_PLATFORM_MACOS ? "linux/x86_64" : "macos/aarch64");
    expect_refused(&b, SC_E_FOREIGN_TARGET, want);
    /* The native check alone says the same. */
    sc_target t;
    sc_error err;
    CU_ASSERT_EQUAL(sc_target_from_json(sc_json_get(b.release, "target"), "$.target", &t, &err),
                    SC_OK);
    CU_ASSERT_EQUAL(sc_run_native_check(&t, &err), SC_E_FOREIGN_TARGET);
    box_free(&b);
}

static void run_refuses_replaced_root(void)
{
    NEED_NATIVE();
    box b = box_new("exit 0\n", SCRIPT_EXECUTION);
    /* Same path, another directory with the same content. */
    size_t n = strlen(b.root) + 8;
    char *moved = malloc(n);
    CU_ASSERT_PTR_NOT_NULL_FATAL(moved);
    snprintf(moved, n, "%s.old", b.root);
    CU_ASSERT_FATAL(rename(b.root, moved) == 0);
    CU_ASSERT_FATAL(mkdir(b.root, 0755) == 0);
    put(&b, "venv/bin/python", fake_python, 0755);
    put(&b, "app.py", "exit 0\n", 0644);
    expect_refused(&b, SC_E_DESTINATION_CHANGED,
                   "Prepared box root no longer matches the prepared box.");
    /* A link to the original directory is not the directory either. */
    sc_test_rmtree(b.root);
    CU_ASSERT_FATAL(symlink(moved, b.root) == 0);
    sc_run_result r;
    sc_error err;
    SC_EXPECT_CODE(run_box(&b, NULL, &r, &err), SC_E_DESTINATION_CHANGED, &err);
    CU_ASSERT_EQUAL(r.spawned, 0);
    sc_run_result_free(&r);
    unlink(b.root);
    sc_test_rmtree(moved);
    free(moved);
    box_free(&b);
}

static void run_refuses_missing_interpreter(void)
{
    NEED_NATIVE();
    box b = box_new("exit 0\n", SCRIPT_EXECUTION);
    char *py = path_in(&b, "venv/bin/python");
    unlink(py);
    free(py);
    expect_refused(&b, SC_E_MISSING_INTERPRETER, "Prepared box is missing venv/bin/python.");
    box_free(&b);
}

static void run_refuses_missing_script(void)
{
    NEED_NATIVE();
    box b = box_new("exit 0\n",
                    "'execution': {'kind': 'python-script', 'script': 'bin/main.py', "
                    "'defaultArgs': []}");
    expect_refused(&b, SC_E_MISSING_SCRIPT, "Execution script is missing from the box: bin/main.py.");
    box_free(&b);
}

static void run_refuses_undiscoverable_module(void)
{
    NEED_NATIVE();
    box b = box_new("exit 0\n",
                    "'execution': {'kind': 'python-module', 'module': 'pkg.tool', "
                    "'defaultArgs': []}");
    /* Near misses: another Python's site-packages, a package without __main__. */
    put(&b, "venv/lib/python3.12/site-packages/pkg/tool.py", "", 0644);
    put(&b, "pkg/tool/__init__.py", "", 0644);
    expect_refused(&b, SC_E_MISSING_MODULE,
                   "Execution module is not discoverable in the box: pkg.tool.");
    box_free(&b);
}

static void run_refuses_invalid_release_environment(void)
{
    NEED_NATIVE();
    box b = box_new("exit 0\n", SCRIPT_EXECUTION ", 'environment': {'': 'x'}");
    expect_refused(&b, SC_E_INVALID_ENVIRONMENT,
                   "Box execution release environment must map valid names to string values.");
    box_free(&b);
}

/* ---- 16.5 on-demand assets ---------------------------------------------------- */

#define ASSET_TEXT "weights\n"

static box asset_box(void)
{
    char hex[SC_SHA256_HEX_LEN + 1];
    sc_error err;
    CU_ASSERT_EQUAL_FATAL(sc_sha256_hex(ASSET_TEXT, strlen(ASSET_TEXT), hex, &err), SC_OK);
    char members[512];
    snprintf(members, sizeof members,
             SCRIPT_EXECUTION ", 'weights': 'on-demand', 'assets': [{'url': "
             "'https://example.invalid/w.bin', 'relativePath': 'models/w.bin', "
             "'sizeBytes': %zu, 'sha256': '%s'}]",
             strlen(ASSET_TEXT), hex);
    return box_new("exit 0\n", members);
}

static void assets_matching_run(void)
{
    NEED_NATIVE();
    box b = asset_box();
    put(&b, "models/w.bin", ASSET_TEXT, 0644);
    sc_run_result r;
    sc_error err;
    SC_EXPECT_CODE(run_box(&b, NULL, &r, &err), SC_OK, &err);
    CU_ASSERT_EQUAL(r.spawned, 1);
    sc_run_result_free(&r);
    box_free(&b);
}

static void assets_missing_refused_before_spawn(void)
{
    NEED_NATIVE();
    box b = asset_box();
    expect_refused(&b, SC_E_ASSET_MISSING, "Required on-demand asset is missing: models/w.bin.");
    box_free(&b);
}

static void assets_not_regular_refused_before_spawn(void)
{
    NEED_NATIVE();
    box b = asset_box();
    /* A link to a file with the right bytes. */
    put(&b, "elsewhere/w.bin", ASSET_TEXT, 0644);
    char *target = path_in(&b, "elsewhere/w.bin");
    char *models = path_in(&b, "models");
    char *link = path_in(&b, "models/w.bin");
    mkdir(models, 0755);
    CU_ASSERT_FATAL(symlink(target, link) == 0);
    expect_refused(&b, SC_E_ASSET_MISSING,
                   "Required on-demand asset is not a regular file: models/w.bin.");
    /* A directory. */
    unlink(link);
    mkdir(link, 0755);
    expect_refused(&b, SC_E_ASSET_MISSING,
                   "Required on-demand asset is not a regular file: models/w.bin.");
    /* A linked directory on the way. */
    sc_test_rmtree(models);
    char *elsewhere = path_in(&b, "elsewhere");
    CU_ASSERT_FATAL(symlink(elsewhere, models) == 0);
    expect_refused(&b, SC_E_ASSET_MISSING,
                   "Required on-demand asset is not a regular file: models/w.bin.");
    free(elsewhere);
    free(target);
    free(models);
    free(link);
    box_free(&b);
}

static void assets_size_refused_before_spawn(void)
{
    NEED_NATIVE();
    box b = asset_box();
    put(&b, "models/w.bin", ASSET_TEXT "x", 0644);
    expect_refused(&b, SC_E_ASSET_SIZE, "Required on-demand asset size mismatch: models/w.bin.");
    box_free(&b);
}

static void assets_hash_refused_before_spawn(void)
{
    NEED_NATIVE();
    box b = asset_box();
    put(&b, "models/w.bin", "WEIGHTS\n", 0644); /* same size, other bytes */
    expect_refused(&b, SC_E_ASSET_HASH, "Required on-demand asset SHA-256 mismatch: models/w.bin.");
    box_free(&b);
}

static void assets_unsafe_path_refused(void)
{
    char *root = sc_test_tmpdir();
    CU_ASSERT_PTR_NOT_NULL_FATAL(root);
    const char *text = "[{\"url\": \"u\", \"relativePath\": \"../w.bin\", \"sizeBytes\": 1, "
                       "\"sha256\": \"0000000000000000000000000000000000000000000000000000000000000000\"}]";
    sc_json *a = NULL;
    sc_error err;
    CU_ASSERT_EQUAL_FATAL(sc_json_parse(text, strlen(text), &a, &err), SC_OK);
    SC_EXPECT_CODE(sc_assets_check(root, a, &err), SC_E_UNSAFE_PATH, &err);
    SC_EXPECT_CODE(sc_assets_check(root, NULL, &err), SC_OK, &err);
    sc_json_free(a);
    sc_test_rmtree(root);
    free(root);
}

/* ---- 16.4 environment layers and the report ------------------------------ */

static void run_environment_is_host_then_caller_then_release(void)
{
    NEED_NATIVE();
    box b = box_new("exit 0\n",
                    SCRIPT_EXECUTION ", 'environment': {'C': 'release', 'D': 'release'}");
    const char *hk[] = {"A", "host", "B", "host", "C", "host", NULL};
    const char *ck[] = {"B", "caller", "C", "caller", "E", "caller", NULL};
    sc_env_map host = envmap(hk), caller = envmap(ck);
    /* Something only the real environment has must not reach the child. */
    setenv("SC_RUN_TEST_REAL_ONLY", "leak", 1);
    run_opts o = {.host = &host, .caller = &caller};
    sc_run_result r;
    sc_error err;
    SC_EXPECT_CODE(run_box(&b, &o, &r, &err), SC_OK, &err);
    unsetenv("SC_RUN_TEST_REAL_ONLY");
    char *env = record(&b, "env");
    CU_ASSERT_PTR_NOT_NULL_FATAL(env);
    CU_ASSERT(env_has(env, "A=host"));
    CU_ASSERT(env_has(env, "B=caller"));
    CU_ASSERT(env_has(env, "C=release"));
    CU_ASSERT(env_has(env, "D=release"));
    CU_ASSERT(env_has(env, "E=caller"));
    CU_ASSERT(strstr(env, "SC_RUN_TEST_REAL_ONLY") == NULL);
    CU_ASSERT(strstr(env, "B=host") == NULL);
    /* The report came back with the result. */
    CU_ASSERT_PTR_NOT_NULL(r.environment_report);
    CU_ASSERT_STRING_EQUAL(sc_json_cstr(sc_json_get(r.environment_report, "mode")), "summary");
    free(env);
    sc_env_map_free(&host);
    sc_env_map_free(&caller);
    sc_run_result_free(&r);
    box_free(&b);
}

/* The report callback runs before the child: the record does not exist yet. */
typedef struct report_seen {
    const box *b;
    int calls, child_had_run;
    char mode[16];
} report_seen;

static void on_report(void *ctx, const sc_json *report)
{
    report_seen *s = ctx;
    s->calls++;
    s->child_had_run = spawned_record(s->b);
    snprintf(s->mode, sizeof s->mode, "%s", sc_json_cstr(sc_json_get(report, "mode")));
}

static void run_reports_environment_before_spawning(void)
{
    NEED_NATIVE();
    box b = box_new("exit 0\n", SCRIPT_EXECUTION);
    report_seen seen = {&b, 0, 0, ""};
    run_opts o = {.values = 1, .on_report = on_report, .report_ctx = &seen};
    sc_run_result r;
    sc_error err;
    SC_EXPECT_CODE(run_box(&b, &o, &r, &err), SC_OK, &err);
    CU_ASSERT_EQUAL(seen.calls, 1);
    CU_ASSERT_EQUAL(seen.child_had_run, 0);
    CU_ASSERT_STRING_EQUAL(seen.mode, "full"); /* revealing values means a full report */
    CU_ASSERT(spawned_record(&b));
    sc_run_result_free(&r);
    box_free(&b);
}

static sc_target target_of(const char *id)
{
    sc_target t;
    sc_error err;
    CU_ASSERT_EQUAL_FATAL(sc_target_parse_id(id, &t, &err), SC_OK);
    return t;
}

static const sc_json *report_var(const sc_json *report, const char *name)
{
    const sc_json *vars = sc_json_get(report, "variables");
    for (const sc_json *v = vars ? vars->child : NULL; v; v = v->next) {
        const char *n = sc_json_cstr(sc_json_get(v, "name"));
        if (n && strcmp(n, name) == 0)
            return v;
    }
    return NULL;
}

static const char *str_at(const sc_json *o, const char *k)
{
    const char *s = sc_json_cstr(sc_json_get(o, k));
    return s ? s : "(absent)";
}

static double num_at(const sc_json *o, const char *k)
{
    const sc_json *v = sc_json_get(o, k);
    return v && v->type == SC_JSON_NUMBER ? v->number : -1;
}

static int bool_at(const sc_json *o, const char *k)
{
    const sc_json *v = sc_json_get(o, k);
    return v && v->type == SC_JSON_BOOL ? v->boolean : -1;
}

/* host {PYTHONPATH, SHARED, HOSTONLY}, caller {SHARED}, release {REL, SAME}. */
static sc_code resolve_sample(const sc_target *t, int full, int reveal,
                              sc_env_map *child, sc_json **report, sc_error *err)
{
    const char *hk[] = {"PYTHONPATH", "/evil", "SHARED", "h", "HOSTONLY", "secret",
                        "SAME", "s", NULL};
    const char *ck[] = {"SHARED", "c", "PYTHONHOME", "/caller", NULL};
    const char *rk[] = {"REL", "r", "SAME", "s", NULL};
    sc_env_map h = envmap(hk), c = envmap(ck), r = envmap(rk);
    sc_env_layer layers[] = {{SC_ENV_HOST, &h}, {SC_ENV_CALLER, &c}, {SC_ENV_RELEASE, &r}};
    sc_code code = sc_env_resolve(layers, 3, t, full, reveal, child, report, err);
    sc_env_map_free(&h);
    sc_env_map_free(&c);
    sc_env_map_free(&r);
    return code;
}

static void env_child_is_sorted_and_complete(void)
{
    sc_target t = target_of("linux-x86_64-cpu");
    sc_env_map child = {0};
    sc_error err;
    SC_EXPECT_CODE(resolve_sample(&t, 0, 0, &child, NULL, &err), SC_OK, &err);
    const char *want[] = {"HOSTONLY", "PYTHONHOME", "PYTHONPATH", "REL", "SAME", "SHARED"};
    CU_ASSERT_EQUAL_FATAL(child.count, 6);
    for (size_t i = 0; i < 6; i++)
        CU_ASSERT_STRING_EQUAL(child.names[i], want[i]);
    CU_ASSERT_STRING_EQUAL(sc_env_map_get(&child, "SHARED"), "c");
    CU_ASSERT_STRING_EQUAL(sc_env_map_get(&child, "HOSTONLY"), "secret");
    sc_env_map_free(&child);
}

static void env_report_summary_masks_host_values(void)
{
    sc_target t = target_of("linux-x86_64-cpu");
    sc_env_map child = {0};
    sc_json *rep = NULL;
    sc_error err;
    SC_EXPECT_CODE(resolve_sample(&t, 0, 0, &child, &rep, &err), SC_OK, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(rep);
    CU_ASSERT_STRING_EQUAL(str_at(rep, "mode"), "summary");
    CU_ASSERT_EQUAL(bool_at(rep, "hostValuesRevealed"), 0);
    CU_ASSERT_EQUAL(num_at(rep, "releaseVariableCount"), 2);  /* REL, SAME */
    CU_ASSERT_EQUAL(num_at(rep, "conflictCount"), 1);         /* SHARED */
    /* Shown: PYTHONPATH (affecting), REL, SAME (release), SHARED (conflict). */
    CU_ASSERT_EQUAL(sc_json_get(rep, "variables")->length, 4);
    CU_ASSERT_EQUAL(num_at(rep, "remainingVariableCount"), 2); /* HOSTONLY, PYTHONHOME */
    CU_ASSERT_PTR_NULL(report_var(rep, "HOSTONLY"));
    const sc_json *pp = report_var(rep, "PYTHONPATH");
    CU_ASSERT_PTR_NOT_NULL_FATAL(pp);
    CU_ASSERT_STRING_EQUAL(str_at(pp, "value"), "<masked>");
    CU_ASSERT_STRING_EQUAL(str_at(pp, "source"), "host");
    const sc_json *sh = report_var(rep, "SHARED");
    CU_ASSERT_PTR_NOT_NULL_FATAL(sh);
    CU_ASSERT_EQUAL(bool_at(sh, "conflict"), 1);
    CU_ASSERT_STRING_EQUAL(str_at(sh, "value"), "c");
    const sc_json *srcs = sc_json_get(sh, "sources");
    CU_ASSERT_EQUAL_FATAL(srcs->length, 2);
    CU_ASSERT_STRING_EQUAL(str_at(sc_json_at(srcs, 0), "source"), "host");
    CU_ASSERT_STRING_EQUAL(str_at(sc_json_at(srcs, 0), "value"), "<masked>");
    CU_ASSERT_STRING_EQUAL(str_at(sc_json_at(srcs, 1), "source"), "caller");
    CU_ASSERT_STRING_EQUAL(str_at(sc_json_at(srcs, 1), "value"), "c");
    /* Equal values from two sources are not a conflict. */
    CU_ASSERT_EQUAL(bool_at(report_var(rep, "SAME"), "conflict"), 0);
    /* Variables in byte order of their names. */
    const char *order[] = {"PYTHONPATH", "REL", "SAME", "SHARED"};
    for (size_t i = 0; i < 4; i++)
        CU_ASSERT_STRING_EQUAL(str_at(sc_json_at(sc_json_get(rep, "variables"), i), "name"),
                               order[i]);
    sc_json_free(rep);
    sc_env_map_free(&child);
}

static void env_report_full_reveals_host_values_when_asked(void)
{
    sc_target t = target_of("linux-x86_64-cpu");
    sc_env_map child = {0};
    sc_json *rep = NULL;
    sc_error err;
    SC_EXPECT_CODE(resolve_sample(&t, 1, 0, &child, &rep, &err), SC_OK, &err);
    CU_ASSERT_STRING_EQUAL(str_at(rep, "mode"), "full");
    CU_ASSERT_EQUAL(sc_json_get(rep, "variables")->length, 6);
    CU_ASSERT_EQUAL(num_at(rep, "remainingVariableCount"), 0);
    CU_ASSERT_STRING_EQUAL(str_at(report_var(rep, "HOSTONLY"), "value"), "<masked>");
    sc_json_free(rep);
    rep = NULL;
    SC_EXPECT_CODE(resolve_sample(&t, 1, 1, &child, &rep, &err), SC_OK, &err);
    CU_ASSERT_EQUAL(bool_at(rep, "hostValuesRevealed"), 1);
    CU_ASSERT_STRING_EQUAL(str_at(report_var(rep, "HOSTONLY"), "value"), "secret");
    CU_ASSERT_STRING_EQUAL(str_at(sc_json_at(sc_json_get(report_var(rep, "SHARED"), "sources"), 0),
                                  "value"), "h");
    sc_json_free(rep);
    sc_env_map_free(&child);
}

static void env_report_execution_affecting_needs_a_host_source(void)
{
    sc_target t = target_of("linux-x86_64-cpu");
    sc_env_map child = {0};
    sc_json *rep = NULL;
    sc_error err;
    SC_EXPECT_CODE(resolve_sample(&t, 1, 0, &child, &rep, &err), SC_OK, &err);
    CU_ASSERT_EQUAL(bool_at(report_var(rep, "PYTHONPATH"), "executionAffecting"), 1);
    /* PYTHONHOME is in the list but only the caller set it. */
    CU_ASSERT_EQUAL(bool_at(report_var(rep, "PYTHONHOME"), "executionAffecting"), 0);
    const sc_json *d = sc_json_get(rep, "dangerousHostVariables");
    CU_ASSERT_EQUAL_FATAL(d->length, 1);
    CU_ASSERT_STRING_EQUAL(sc_json_cstr(sc_json_at(d, 0)), "PYTHONPATH");
    sc_json_free(rep);
    sc_env_map_free(&child);
}

static void env_windows_names_are_case_insensitive(void)
{
    const char *hk[] = {"Path", "C:\\host", "pythonpath", "x", "lower", "1", NULL};
    const char *rk[] = {"PATH", "C:\\box", "LOWER", "1", NULL};
    sc_env_map h = envmap(hk), r = envmap(rk);
    sc_env_layer layers[] = {{SC_ENV_HOST, &h}, {SC_ENV_RELEASE, &r}};
    sc_env_map child = {0};
    sc_json *rep = NULL;
    sc_error err;
    sc_target win = target_of("windows-x86_64-cpu");
    SC_EXPECT_CODE(sc_env_resolve(layers, 2, &win, 1, 1, &child, &rep, &err), SC_OK, &err);
    /* The last layer's spelling wins and the earlier spelling is gone. */
    CU_ASSERT_EQUAL(child.count, 3);
    CU_ASSERT_STRING_EQUAL(sc_env_map_get(&child, "PATH"), "C:\\box");
    CU_ASSERT_PTR_NULL(sc_env_map_get(&child, "Path"));
    CU_ASSERT_STRING_EQUAL(sc_env_map_get(&child, "LOWER"), "1");
    CU_ASSERT_PTR_NULL(sc_env_map_get(&child, "lower"));
    const sc_json *p = report_var(rep, "PATH");
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    CU_ASSERT_EQUAL(bool_at(p, "conflict"), 1);
    CU_ASSERT_STRING_EQUAL(str_at(sc_json_at(sc_json_get(p, "sources"), 0), "name"), "Path");
    CU_ASSERT_EQUAL(bool_at(report_var(rep, "pythonpath"), "executionAffecting"), 1);
    CU_ASSERT_STRING_EQUAL(sc_json_cstr(sc_json_at(sc_json_get(rep, "dangerousHostVariables"), 0)),
                           "pythonpath");
    sc_json_free(rep);
    rep = NULL;
    /* Elsewhere the spellings are distinct variables. */
    sc_target lin = target_of("linux-x86_64-cpu");
    SC_EXPECT_CODE(sc_env_resolve(layers, 2, &lin, 1, 1, &child, &rep, &err), SC_OK, &err);
    CU_ASSERT_EQUAL(child.count, 5);
    CU_ASSERT_STRING_EQUAL(sc_env_map_get(&child, "Path"), "C:\\host");
    CU_ASSERT_EQUAL(bool_at(report_var(rep, "pythonpath"), "executionAffecting"), 0);
    sc_json_free(rep);
    sc_env_map_free(&child);
    sc_env_map_free(&h);
    sc_env_map_free(&r);
}

static void env_invalid_names_name_their_source(void)
{
    sc_target t = target_of("linux-x86_64-cpu");
    sc_env_map good = envmap((const char *[]){"OK", "1", NULL});
    sc_env_map empty_name = envmap((const char *[]){"", "1", NULL});
    sc_env_map with_eq = envmap((const char *[]){"A=B", "1", NULL});
    sc_env_map child = {0};
    sc_json *rep = NULL;
    sc_error err;
    sc_env_layer l1[] = {{SC_ENV_HOST, &empty_name}, {SC_ENV_RELEASE, &good}};
    SC_EXPECT_CODE(sc_env_resolve(l1, 2, &t, 0, 0, &child, &rep, &err),
                   SC_E_INVALID_ENVIRONMENT, &err);
    CU_ASSERT_STRING_EQUAL(err.message,
                           "Box execution host environment must map valid names to string values.");
    sc_env_layer l2[] = {{SC_ENV_HOST, &good}, {SC_ENV_CALLER, &with_eq}};
    SC_EXPECT_CODE(sc_env_resolve(l2, 2, &t, 0, 0, &child, &rep, &err),
                   SC_E_INVALID_ENVIRONMENT, &err);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "caller environment"));
    sc_env_layer l3[] = {{SC_ENV_VALIDATION, &with_eq}};
    SC_EXPECT_CODE(sc_env_resolve(l3, 1, &t, 0, 0, &child, &rep, &err),
                   SC_E_INVALID_ENVIRONMENT, &err);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "validation environment"));
    CU_ASSERT_PTR_NULL(rep);
    CU_ASSERT_EQUAL(child.count, 0);
    /* A release environment: non-string values, NUL in a value, bad names. */
    const char *bad[] = {"{\"A\": 1}", "{\"A\": \"x\\u0000y\"}", "{\"\": \"x\"}",
                         "{\"A=B\": \"x\"}", "{\"A\\u0000B\": \"x\"}", "[]"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        sc_json *j = NULL;
        CU_ASSERT_EQUAL_FATAL(sc_json_parse(bad[i], strlen(bad[i]), &j, &err), SC_OK);
        sc_env_map m = {0};
        SC_EXPECT_CODE(sc_env_map_from_json(&m, j, "release", &err), SC_E_INVALID_ENVIRONMENT,
                       &err);
        CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "release environment"));
        sc_env_map_free(&m);
        sc_json_free(j);
    }
    sc_env_map_free(&good);
    sc_env_map_free(&empty_name);
    sc_env_map_free(&with_eq);
}

static void env_report_stays_valid_json_for_non_utf8_host_bytes(void)
{
    const char *hk[] = {"RAW\xff", "a\xc3(b", NULL};
    sc_env_map h = envmap(hk), child = {0};
    sc_env_layer layers[] = {{SC_ENV_HOST, &h}};
    sc_target t = target_of("linux-x86_64-cpu");
    sc_json *rep = NULL;
    sc_error err;
    SC_EXPECT_CODE(sc_env_resolve(layers, 1, &t, 1, 1, &child, &rep, &err), SC_OK, &err);
    CU_ASSERT_STRING_EQUAL(sc_env_map_get(&child, "RAW\xff"), "a\xc3(b"); /* exact bytes */
    char *text = NULL;
    size_t len;
    SC_EXPECT_CODE(sc_json_write(rep, &text, &len, &err), SC_OK, &err);
    CU_ASSERT(text && strstr(text, "a\xef\xbf\xbd(b"));
    CU_ASSERT(text && strstr(text, "RAW\xef\xbf\xbd"));
    free(text);
    sc_json_free(rep);
    sc_env_map_free(&child);
    sc_env_map_free(&h);
}

static void env_map_set_replaces_and_environ_splits_at_first_equals(void)
{
    sc_env_map m = {0};
    sc_error err;
    char *envp[] = {"A=1", "B=x=y", "NOEQUALS", "A2=", NULL};
    SC_EXPECT_CODE(sc_env_map_from_environ(&m, envp, &err), SC_OK, &err);
    CU_ASSERT_EQUAL(m.count, 3);
    CU_ASSERT_STRING_EQUAL(sc_env_map_get(&m, "B"), "x=y");
    CU_ASSERT_STRING_EQUAL(sc_env_map_get(&m, "A2"), "");
    SC_EXPECT_CODE(sc_env_map_set(&m, "A", "2", &err), SC_OK, &err);
    CU_ASSERT_EQUAL(m.count, 3);
    CU_ASSERT_STRING_EQUAL(m.names[0], "A");
    CU_ASSERT_STRING_EQUAL(m.values[0], "2");
    sc_env_map_free(&m);
}

static void env_sanitised_host_drops_execution_affecting_variables(void)
{
    const char *hk[] = {"PYTHONPATH", "1", "PYTHONHOME", "1", "PYTHONSTARTUP", "1",
                        "PYTHONBREAKPOINT", "1", "LD_PRELOAD", "1",
                        "DYLD_INSERT_LIBRARIES", "1", "PATH", "/bin", "pythonpath", "kept",
                        NULL};
    sc_env_map h = envmap(hk), out = {0};
    sc_error err;
    SC_EXPECT_CODE(sc_env_sanitised_host(&h, &out, &err), SC_OK, &err);
    CU_ASSERT_EQUAL(out.count, 2);
    CU_ASSERT_STRING_EQUAL(sc_env_map_get(&out, "PATH"), "/bin");
    CU_ASSERT_STRING_EQUAL(sc_env_map_get(&out, "pythonpath"), "kept");
    sc_env_map_free(&h);
    sc_env_map_free(&out);
}

/* ---- 16.6 discoverability (pure) ----------------------------------------- */

typedef struct path_set {
    const char *const *paths;
} path_set;

static int has_in_set(void *ctx, const char *path)
{
    for (const char *const *p = ((path_set *)ctx)->paths; *p; p++)
        if (strcmp(*p, path) == 0)
            return 1;
    return 0;
}

static sc_code discover(const char *target, const char *module, const char *python,
                        const char *const *paths, sc_error *err)
{
    char text[512];
    snprintf(text, sizeof text,
             "{\"target\": %s, \"execution\": {\"kind\": \"python-module\", \"module\": "
             "\"%s\", \"defaultArgs\": []}, \"provenance\": {\"pythonVersion\": \"%s\"}}",
             target, module, python);
    sc_json *rel = NULL;
    CU_ASSERT_EQUAL_FATAL(sc_json_parse(text, strlen(text), &rel, err), SC_OK);
    path_set set = {paths};
    sc_code c = sc_execution_check(rel, NULL, has_in_set, &set, err);
    sc_json_free(rel);
    return c;
}

#define LINUX_T "{\"platform\": \"linux\", \"arch\": \"x86_64\", \"accelerator\": \"cpu\"}"
#define WINDOWS_T "{\"platform\": \"windows\", \"arch\": \"x86_64\", \"accelerator\": \"cpu\"}"

static void execution_module_candidates_and_roots(void)
{
    sc_error err;
    const char *root_py[] = {"m/n.py", NULL};
    SC_EXPECT_CODE(discover(LINUX_T, "m.n", "3.11.4", root_py, &err), SC_OK, &err);
    const char *stdlib_main[] = {"venv/lib/python3.11/m/n/__main__.py", NULL};
    SC_EXPECT_CODE(discover(LINUX_T, "m.n", "3.11", stdlib_main, &err), SC_OK, &err);
    const char *site[] = {"venv/lib/python3.11/site-packages/m/n.py", NULL};
    SC_EXPECT_CODE(discover(LINUX_T, "m.n", "3.11.0rc1", site, &err), SC_OK, &err);
    const char *win_site[] = {"venv/Lib/site-packages/m/n.py", NULL};
    SC_EXPECT_CODE(discover(WINDOWS_T, "m.n", "3.11.4", win_site, &err), SC_OK, &err);
    SC_EXPECT_CODE(discover(LINUX_T, "m.n", "3.11.4", win_site, &err), SC_E_MISSING_MODULE, &err);
    SC_EXPECT_CODE(discover(WINDOWS_T, "m.n", "3.11.4", site, &err), SC_E_MISSING_MODULE, &err);
    const char *package_only[] = {"m/n/__init__.py", NULL};
    SC_EXPECT_CODE(discover(LINUX_T, "m.n", "3.11.4", package_only, &err), SC_E_MISSING_MODULE,
                   &err);
}

static void execution_python_version_must_give_major_minor(void)
{
    sc_error err;
    const char *root_py[] = {"m.py", NULL};
    const char *bad[] = {"3", "three", "3.11rc1", "3.", ".11", "v3.11", ""};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        SC_EXPECT_CODE(discover(LINUX_T, "m", bad[i], root_py, &err), SC_E_INVALID_MANIFEST,
                       &err);
        char want[128];
        snprintf(want, sizeof want, "Invalid Python version for execution discovery: %s.",
                 bad[i]);
        CU_ASSERT_STRING_EQUAL(err.message, want);
    }
}

static void execution_absent_is_a_library_box(void)
{
    const char *text = "{\"target\": " LINUX_T "}";
    sc_json *rel = NULL;
    sc_error err;
    CU_ASSERT_EQUAL_FATAL(sc_json_parse(text, strlen(text), &rel, &err), SC_OK);
    const char *none[] = {NULL};
    path_set set = {none};
    SC_EXPECT_CODE(sc_execution_check(rel, NULL, has_in_set, &set, &err), SC_OK, &err);
    sc_json_free(rel);
}

/* ---- processes ------------------------------------------------------------ */

static char *const *no_env(void)
{
    static char *envp[] = {"PATH=/bin:/usr/bin", NULL};
    return envp;
}

/* 1 if pid is gone or a zombie. */
static int pid_gone(long pid)
{
    char p[64];
    snprintf(p, sizeof p, "/proc/%ld/stat", pid);
    FILE *f = fopen(p, "r");
    if (f == NULL)
        return kill((pid_t)pid, 0) != 0;
    char buf[512] = {0};
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    const char *close_paren = strrchr(buf, ')');
    return close_paren && close_paren[1] == ' ' && close_paren[2] == 'Z';
}

static void process_timeout_kills_the_group(void)
{
    char *dir = sc_test_tmpdir();
    CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
    char script[1024];
    snprintf(script, sizeof script,
             "/bin/sleep 30 & echo $! > %s/grandchild; wait", dir);
    char *argv[] = {"sh", "-c", script, NULL};
    sc_process_spec s = {.program = "/bin/sh", .argv = argv, .envp = no_env(),
                         .cwd = dir, .stdin_fd = -1, .stdout_fd = -1, .stderr_fd = -1,
                         .timeout_seconds = 1, .own_process_group = 1};
    sc_process_result r;
    sc_error err;
    time_t t0 = time(NULL);
    SC_EXPECT_CODE(sc_process_run(&s, &r, &err), SC_E_TIMEOUT, &err);
    CU_ASSERT(time(NULL) - t0 < 10);
    CU_ASSERT_EQUAL(r.exited, 0);
    CU_ASSERT_EQUAL(r.term_signal, SIGTERM);
    char p[1024];
    snprintf(p, sizeof p, "%s/grandchild", dir);
    FILE *f = fopen(p, "r");
    long gpid = 0;
    if (f) {
        if (fscanf(f, "%ld", &gpid) != 1)
            gpid = 0;
        fclose(f);
    }
    CU_ASSERT(gpid > 0);
    int gone = 0;
    for (int i = 0; i < 200 && gpid > 0 && !(gone = pid_gone(gpid)); i++)
        usleep(10000);
    CU_ASSERT(gone);
    sc_test_rmtree(dir);
    free(dir);
}

static void process_timeout_escalates_to_sigkill(void)
{
    char *argv[] = {"sh", "-c", "trap '' TERM; /bin/sleep 30", NULL};
    sc_process_spec s = {.program = "/bin/sh", .argv = argv, .envp = no_env(),
                         .stdin_fd = -1, .stdout_fd = -1, .stderr_fd = -1,
                         .timeout_seconds = 1, .own_process_group = 1};
    sc_process_result r;
    sc_error err;
    time_t t0 = time(NULL);
    SC_EXPECT_CODE(sc_process_run(&s, &r, &err), SC_E_TIMEOUT, &err);
    time_t took = time(NULL) - t0;
    CU_ASSERT(took >= 1 + SC_PROCESS_KILL_GRACE_SECONDS - 1 && took < 15);
    CU_ASSERT_EQUAL(r.exited, 0);
    CU_ASSERT_EQUAL(r.term_signal, SIGKILL);
}

static void process_descriptors_and_missing_program(void)
{
    char *dir = sc_test_tmpdir();
    CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
    char p[1024];
    snprintf(p, sizeof p, "%s/out", dir);
    int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    CU_ASSERT_FATAL(fd >= 0);
    char *argv[] = {"sh", "-c", "echo to-stdout; echo to-stderr >&2; exit 3", NULL};
    sc_process_spec s = {.program = "/bin/sh", .argv = argv, .envp = no_env(),
                         .stdin_fd = -1, .stdout_fd = fd, .stderr_fd = fd};
    sc_process_result r;
    sc_error err;
    SC_EXPECT_CODE(sc_process_run(&s, &r, &err), SC_OK, &err);
    close(fd);
    CU_ASSERT_EQUAL(r.exited, 1);
    CU_ASSERT_EQUAL(r.exit_code, 3);
    char *text = NULL;
    size_t len;
    CU_ASSERT_EQUAL(sc_file_read(p, &text, &len, NULL, &err), SC_OK);
    if (text)
        CU_ASSERT_STRING_EQUAL(text, "to-stdout\nto-stderr\n");
    free(text);
    snprintf(p, sizeof p, "%s/no-such-program", dir);
    s.program = p;
    s.stdout_fd = s.stderr_fd = -1;
    SC_EXPECT_CODE(sc_process_run(&s, &r, &err), SC_E_SPAWN_FAILURE, &err);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, strerror(ENOENT)));
    sc_test_rmtree(dir);
    free(dir);
}

/*
 * The library installs no signal handler unless the program asks: a tool the
 * library runs on its own behalf (sc_tool_run_capture) sends SIGINT to us;
 * by default our own handler sees it; after
 * sc_process_set_signal_forwarding(1) the library's forwarding handler
 * catches it and passes it to the child instead, and ours is back after.
 */
static volatile sig_atomic_t g_test_sigint;
static void test_sigint_handler(int sig)
{
    (void)sig;
    g_test_sigint = 1;
}

static void library_installs_no_signal_handler_unless_asked(void)
{
    CU_ASSERT_EQUAL(sc_process_signal_forwarding(), 0);
    struct sigaction sa, old, now;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = test_sigint_handler;
    sigemptyset(&sa.sa_mask);
    CU_ASSERT_EQUAL_FATAL(sigaction(SIGINT, &sa, &old), 0);
    /* The child signals its parent, then waits to be told to stop. */
    char *argv[] = {(char *)"/bin/sh", (char *)"-c",
                    (char *)"trap 'exit 7' INT; kill -INT $PPID; i=0; "
                            "while [ $i -lt 100 ]; do sleep 0.05; i=$((i+1)); done; exit 3",
                    NULL};
    sc_error err;
    int status = -2;

    g_test_sigint = 0;
    SC_EXPECT_CODE(sc_tool_run_capture(argv, NULL, NULL, 0, 1, &status, &err), SC_OK, &err);
    CU_ASSERT_EQUAL(g_test_sigint, 1); /* ours saw it: nothing was installed */
    CU_ASSERT_EQUAL(status, 3);        /* and the child was left alone */

    sc_process_set_signal_forwarding(1);
    CU_ASSERT_EQUAL(sc_process_signal_forwarding(), 1);
    g_test_sigint = 0;
    status = -2;
    SC_EXPECT_CODE(sc_tool_run_capture(argv, NULL, NULL, 0, 1, &status, &err), SC_OK, &err);
    sc_process_set_signal_forwarding(0);
    CU_ASSERT_EQUAL(g_test_sigint, 0); /* the library's handler took it */
    CU_ASSERT_EQUAL(status, 7);        /* and forwarded it to the child */
    CU_ASSERT_EQUAL(sigaction(SIGINT, NULL, &now), 0);
    CU_ASSERT(now.sa_handler == test_sigint_handler); /* ours is back */
    sigaction(SIGINT, &old, NULL);
}

void register_run_tests(void)
{
    /* Every test: TMPDIR is a fresh root that must be empty afterwards. */
    CU_pSuite s = CU_add_suite_with_setup_and_teardown("run", NULL, NULL, sc_test_tmp_root_setup,
                                                       sc_test_tmp_root_teardown);
    if (s == NULL)
        CU_FAIL_FATAL("CU_add_suite failed");
    SC_ADD_TEST(s, run_argv_is_script_then_defaults_then_caller_args);
    SC_ADD_TEST(s, run_module_argv_is_dash_m_module);
    SC_ADD_TEST(s, run_shell_metacharacters_preserved_verbatim);
    SC_ADD_TEST(s, run_cwd_is_box_root);
    SC_ADD_TEST(s, run_exit_code_is_a_result);
    SC_ADD_TEST(s, run_death_by_signal_is_a_result);
    SC_ADD_TEST(s, run_forwards_sigterm_to_the_child);
    SC_ADD_TEST(s, library_installs_no_signal_handler_unless_asked);
    SC_ADD_TEST(s, run_spawn_failure_not_executable);
    SC_ADD_TEST(s, run_spawn_failure_without_shebang);
    SC_ADD_TEST(s, run_refuses_library_only_box);
    SC_ADD_TEST(s, run_refuses_foreign_target);
    SC_ADD_TEST(s, run_refuses_replaced_root);
    SC_ADD_TEST(s, run_refuses_missing_interpreter);
    SC_ADD_TEST(s, run_refuses_missing_script);
    SC_ADD_TEST(s, run_refuses_undiscoverable_module);
    SC_ADD_TEST(s, run_refuses_invalid_release_environment);
    SC_ADD_TEST(s, assets_matching_run);
    SC_ADD_TEST(s, assets_missing_refused_before_spawn);
    SC_ADD_TEST(s, assets_not_regular_refused_before_spawn);
    SC_ADD_TEST(s, assets_size_refused_before_spawn);
    SC_ADD_TEST(s, assets_hash_refused_before_spawn);
    SC_ADD_TEST(s, assets_unsafe_path_refused);
    SC_ADD_TEST(s, run_environment_is_host_then_caller_then_release);
    SC_ADD_TEST(s, run_reports_environment_before_spawning);
    SC_ADD_TEST(s, env_child_is_sorted_and_complete);
    SC_ADD_TEST(s, env_report_summary_masks_host_values);
    SC_ADD_TEST(s, env_report_full_reveals_host_values_when_asked);
    SC_ADD_TEST(s, env_report_execution_affecting_needs_a_host_source);
    SC_ADD_TEST(s, env_windows_names_are_case_insensitive);
    SC_ADD_TEST(s, env_invalid_names_name_their_source);
    SC_ADD_TEST(s, env_report_stays_valid_json_for_non_utf8_host_bytes);
    SC_ADD_TEST(s, env_map_set_replaces_and_environ_splits_at_first_equals);
    SC_ADD_TEST(s, env_sanitised_host_drops_execution_affecting_variables);
    SC_ADD_TEST(s, execution_module_candidates_and_roots);
    SC_ADD_TEST(s, execution_python_version_must_give_major_minor);
    SC_ADD_TEST(s, execution_absent_is_a_library_box);
    SC_ADD_TEST(s, process_timeout_kills_the_group);
    SC_ADD_TEST(s, process_timeout_escalates_to_sigkill);
    SC_ADD_TEST(s, process_descriptors_and_missing_program);
}
