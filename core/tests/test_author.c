/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_author.c — authoring a workspace (scroll_edit.h): init, new scroll,
 * add/remove, edit scroll, refresh.  One test per rule, in temporary
 * workspaces (sc_test_ws_new).  Assets are fetched through the ctx hook with
 * a stand-in that writes known bytes (the real downloader is exercised by
 * core/tests/cli/author_cli_test.sh against fixtures/http_server.py).
 *
 * JSON in this file is single-quoted for legibility (sc_test_dq).
 */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "scrollcase/digest.h"
#include "scrollcase/error.h"
#include "scrollcase/file.h"
#include "scrollcase/json.h"
#include "scrollcase/scroll.h"
#include "scrollcase/scroll_edit.h"

#define CPU "linux-x86_64-cpu"
#define CUDA "linux-x86_64-cuda12.4"

/* ---- helpers ------------------------------------------------------------ */

static char *slurp(const char *dir, const char *rel)
{
    char *p = sc_path_join(dir, rel), *b = NULL;
    size_t n = 0;
    sc_error err;
    if (p != NULL && sc_file_read(p, &b, &n, NULL, &err) != SC_OK)
        b = NULL;
    free(p);
    return b;
}

static sc_json *load_json(const char *dir, const char *rel)
{
    char *p = sc_path_join(dir, rel);
    sc_json *v = NULL;
    sc_error err;
    if (p == NULL || sc_json_parse_file(p, &v, &err) != SC_OK)
        v = NULL;
    free(p);
    return v;
}

/* Space-separated keys of an object, in order. */
static void keys_of(const sc_json *o, char *buf, size_t size)
{
    buf[0] = '\0';
    for (size_t i = 0; o != NULL && i < o->length; i++) {
        if (i > 0)
            strncat(buf, " ", size - strlen(buf) - 1);
        strncat(buf, sc_json_at(o, i)->key, size - strlen(buf) - 1);
    }
}

static sc_new_scroll_options opts(const char *box, const char *target)
{
    sc_new_scroll_options o;
    memset(&o, 0, sizeof o);
    o.box_id = box;
    o.target_id = target;
    o.source_revision = "abc123";
    return o;
}

/* A workspace with box "demo" at target CPU (and CUDA if two). */
static sc_test_ws ws_with_box(int two)
{
    sc_test_ws w = sc_test_ws_new();
    sc_error err;
    sc_new_scroll_options o = opts("demo", CPU);
    CU_ASSERT_EQUAL_FATAL(sc_author_new_scroll(w.scrolls, &o, &err), SC_OK);
    if (two) {
        o.target_id = CUDA;
        CU_ASSERT_EQUAL_FATAL(sc_author_new_scroll(w.scrolls, &o, &err), SC_OK);
    }
    return w;
}

static sc_author_ctx ctx(const sc_test_ws *w, const char *target)
{
    sc_author_ctx c;
    memset(&c, 0, sizeof c);
    c.scrolls_dir = w->scrolls;
    c.project_root = w->root;
    c.cwd = w->root;
    c.target = target;
    return c;
}

static int load_ok(const sc_test_ws *w, const char *ref)
{
    sc_scroll *s = NULL;
    sc_error err;
    sc_code rc = sc_scroll_load(w->scrolls, ref, &s, &err);
    sc_scroll_free(s);
    return rc == SC_OK;
}

#define SCROLL_CPU "demo/" CPU "/scroll.json"
#define SCROLL_CUDA "demo/" CUDA "/scroll.json"
#define TOML_CPU "demo/" CPU "/pixi.toml"

/* ---- new scroll ----------------------------------------------------------- */

/* ---- new scroll: upstream's --default-args and --generate-script ------------ */

static void new_scroll_default_args_are_execution_default_args(void)
{
    sc_test_ws w = sc_test_ws_new();
    sc_error err;
    sc_new_scroll_options o = opts("demo", CPU);
    o.execution = "module";
    o.module = "demo.serve";
    o.default_args = "[\"--port\", \"8080\", \"\"]";
    SC_EXPECT_CODE(sc_author_new_scroll(w.scrolls, &o, &err), SC_OK, &err);
    sc_json *d = load_json(w.scrolls, SCROLL_CPU);
    CU_ASSERT_PTR_NOT_NULL_FATAL(d);
    const sc_json *args = sc_json_get(sc_json_get(d, "execution"), "defaultArgs");
    CU_ASSERT_FATAL(args != NULL && args->length == 3);
    CU_ASSERT_STRING_EQUAL(sc_json_cstr(sc_json_at(args, 0)), "--port");
    CU_ASSERT_STRING_EQUAL(sc_json_cstr(sc_json_at(args, 1)), "8080");
    CU_ASSERT_STRING_EQUAL(sc_json_cstr(sc_json_at(args, 2)), "");
    sc_json_free(d);
    CU_ASSERT(load_ok(&w, "demo/" CPU));
    sc_test_ws_free(&w);
}

static void new_scroll_default_args_must_be_strings_with_execution(void)
{
    sc_test_ws w = sc_test_ws_new();
    sc_error err;
    sc_new_scroll_options o = opts("demo", CPU);
    o.execution = "script";
    o.script = "app.py";
    static const char *const bad[] = {"--port", "{\"a\": 1}", "[1]", "[\"a\", null]",
                                      "[\"a\\u0000b\"]", "[\"a\"", NULL};
    for (const char *const *b = bad; *b != NULL; b++) {
        o.default_args = *b;
        SC_EXPECT_CODE(sc_author_new_scroll(w.scrolls, &o, &err), SC_E_USAGE, &err);
        CU_ASSERT_STRING_EQUAL(err.path, "--default-args");
    }
    /* a box without execution runs nothing */
    o.default_args = "[]";
    o.execution = "none";
    o.script = NULL;
    SC_EXPECT_CODE(sc_author_new_scroll(w.scrolls, &o, &err), SC_E_USAGE, &err);
    o.execution = NULL;
    SC_EXPECT_CODE(sc_author_new_scroll(w.scrolls, &o, &err), SC_E_USAGE, &err);
    char *box = sc_path_join(w.scrolls, "demo");
    struct stat st;
    CU_ASSERT(lstat(box, &st) != 0); /* nothing written */
    free(box);
    sc_test_ws_free(&w);
}

static void new_scroll_generate_script_writes_and_declares_a_starter(void)
{
    sc_test_ws w = sc_test_ws_new();
    sc_error err;
    sc_new_scroll_options o = opts("demo", CPU);
    o.execution = "script";
    o.generate_script = 1;
    o.project_root = w.root;
    char *written = NULL;
    o.generated_script_out = &written;
    mode_t old = umask(077);
    sc_code c = sc_author_new_scroll(w.scrolls, &o, &err);
    umask(old);
    SC_EXPECT_CODE(c, SC_OK, &err);
    char *expect = sc_path_join(w.root, "box-entrypoints/demo/" CPU "/entrypoint.py");
    CU_ASSERT_FATAL(written != NULL);
    CU_ASSERT_STRING_EQUAL(written, expect);
    struct stat st;
    CU_ASSERT(stat(expect, &st) == 0 && (st.st_mode & 07777) == 0644);
    char *text = slurp(w.root, "box-entrypoints/demo/" CPU "/entrypoint.py");
    CU_ASSERT(text != NULL && strstr(text, "sys.argv[1:]") != NULL);
    free(text);
    sc_json *d = load_json(w.scrolls, SCROLL_CPU);
    CU_ASSERT_PTR_NOT_NULL_FATAL(d);
    char keys[512];
    keys_of(d, keys, sizeof keys);
    CU_ASSERT_STRING_EQUAL(keys, "$schema schemaVersion boxId modelId runtimeId version "
                                 "sourceRevision target pythonVersion pixiVersion localFiles "
                                 "selfTest execution");
    const sc_json *lf = sc_json_at(sc_json_get(d, "localFiles"), 0);
    CU_ASSERT_STRING_EQUAL(sc_json_cstr(sc_json_get(lf, "sourcePath")),
                           "box-entrypoints/demo/" CPU "/entrypoint.py");
    CU_ASSERT_STRING_EQUAL(sc_json_cstr(sc_json_get(lf, "relativePath")), "entrypoint.py");
    CU_ASSERT_PTR_NULL(sc_json_get(lf, "sha256")); /* it is there to be edited */
    CU_ASSERT_STRING_EQUAL(
        sc_json_cstr(sc_json_at(sc_json_get(sc_json_get(d, "selfTest"), "files"), 0)),
        "entrypoint.py");
    CU_ASSERT_STRING_EQUAL(sc_json_cstr(sc_json_get(sc_json_get(d, "execution"), "script")),
                           "entrypoint.py");
    sc_json_free(d);
    CU_ASSERT(load_ok(&w, "demo/" CPU));
    /* a chosen project path and payload path */
    o.target_id = CUDA;
    o.generated_script_path = "app/serve.py";
    o.script = "bin/serve.py";
    o.generated_script_out = NULL;
    SC_EXPECT_CODE(sc_author_new_scroll(w.scrolls, &o, &err), SC_OK, &err);
    d = load_json(w.scrolls, SCROLL_CUDA);
    CU_ASSERT_PTR_NOT_NULL_FATAL(d);
    lf = sc_json_at(sc_json_get(d, "localFiles"), 0);
    CU_ASSERT_STRING_EQUAL(sc_json_cstr(sc_json_get(lf, "sourcePath")), "app/serve.py");
    CU_ASSERT_STRING_EQUAL(sc_json_cstr(sc_json_get(lf, "relativePath")), "bin/serve.py");
    sc_json_free(d);
    free(expect);
    free(written);
    sc_test_ws_free(&w);
}

static void new_scroll_generate_script_never_replaces_and_leaves_nothing(void)
{
    sc_test_ws w = sc_test_ws_new();
    sc_error err;
    sc_new_scroll_options o = opts("demo", CPU);
    o.execution = "script";
    o.generate_script = 1;
    o.project_root = w.root;
    o.generated_script_path = "app/main.py";
    char *app = sc_path_join(w.root, "app");
    CU_ASSERT_FATAL(app != NULL && mkdir(app, 0755) == 0);
    char *main_py = sc_path_join(app, "main.py");
    FILE *f = fopen(main_py, "w");
    CU_ASSERT_FATAL(f != NULL);
    fputs("KEEP\n", f);
    fclose(f);
    SC_EXPECT_CODE(sc_author_new_scroll(w.scrolls, &o, &err), SC_E_SCROLL_EXISTS, &err);
    CU_ASSERT_STRING_EQUAL(err.path, main_py);
    CU_ASSERT(strstr(err.message, "--generated-script-path") != NULL);
    char *kept = slurp(app, "main.py");
    CU_ASSERT(kept != NULL && strcmp(kept, "KEEP\n") == 0);
    free(kept);
    char *box = sc_path_join(w.scrolls, "demo");
    struct stat st;
    CU_ASSERT(lstat(box, &st) != 0); /* no scroll, no box directory */
    /* a scroll that does not load after the starter was written: both removed,
     * with the directories made for the starter */
    o.generated_script_path = "made/deep/main.py";
    o.model_id = "";
    CU_ASSERT_NOT_EQUAL(sc_author_new_scroll(w.scrolls, &o, &err), SC_OK);
    char *made = sc_path_join(w.root, "made");
    CU_ASSERT(lstat(made, &st) != 0);
    CU_ASSERT(lstat(box, &st) != 0);
    /* an unsafe project path, a generated path without --generate-script,
     * --generate-script without --execution script */
    o.model_id = NULL;
    o.generated_script_path = "../outside.py";
    SC_EXPECT_CODE(sc_author_new_scroll(w.scrolls, &o, &err), SC_E_UNSAFE_PATH, &err);
    o.generated_script_path = "/abs/main.py";
    SC_EXPECT_CODE(sc_author_new_scroll(w.scrolls, &o, &err), SC_E_UNSAFE_PATH, &err);
    o.generate_script = 0;
    o.generated_script_path = "x.py";
    o.script = "x.py";
    SC_EXPECT_CODE(sc_author_new_scroll(w.scrolls, &o, &err), SC_E_USAGE, &err);
    CU_ASSERT_STRING_EQUAL(err.path, "--generated-script-path");
    o.generated_script_path = NULL;
    o.generate_script = 1;
    o.execution = "module";
    o.module = "m";
    o.script = NULL;
    SC_EXPECT_CODE(sc_author_new_scroll(w.scrolls, &o, &err), SC_E_USAGE, &err);
    CU_ASSERT_STRING_EQUAL(err.path, "--generate-script");
    char *entry = sc_path_join(w.root, "box-entrypoints");
    CU_ASSERT(lstat(entry, &st) != 0);
    CU_ASSERT(lstat(box, &st) != 0);
    free(entry);
    free(made);
    free(box);
    free(main_py);
    free(app);
    sc_test_ws_free(&w);
}

static void new_scroll_writes_minimal_v3_scroll(void)
{
    sc_test_ws w = ws_with_box(0);
    sc_json *d = load_json(w.scrolls, SCROLL_CPU);
    CU_ASSERT_PTR_NOT_NULL_FATAL(d);
    char keys[512];
    keys_of(d, keys, sizeof keys);
    CU_ASSERT_STRING_EQUAL(keys, "$schema schemaVersion boxId modelId runtimeId version "
                                 "sourceRevision target pythonVersion pixiVersion selfTest");
    CU_ASSERT_STRING_EQUAL(sc_json_cstr(sc_json_get(d, "modelId")), "demo");
    CU_ASSERT_STRING_EQUAL(sc_json_cstr(sc_json_get(d, "runtimeId")), "demo-runtime");
    CU_ASSERT_STRING_EQUAL(sc_json_cstr(sc_json_get(d, "pixiVersion")),
                           SC_AUTHOR_DEFAULT_PIXI_VERSION);
    CU_ASSERT_STRING_EQUAL(
        sc_json_cstr(sc_json_at(sc_json_get(sc_json_get(d, "selfTest"), "imports"), 0)), "json");
    CU_ASSERT_PTR_NULL(sc_json_get(d, "execution"));
    CU_ASSERT(load_ok(&w, "demo/" CPU));
    sc_json_free(d);
    sc_test_ws_free(&w);
}

static void new_scroll_writes_pixi_toml_for_the_target(void)
{
    sc_test_ws w = sc_test_ws_new();
    sc_error err;
    sc_new_scroll_options o = opts("demo", CUDA);
    o.python_version = "3.11";
    CU_ASSERT_EQUAL_FATAL(sc_author_new_scroll(w.scrolls, &o, &err), SC_OK);
    char *t = slurp(w.scrolls, "demo/" CUDA "/pixi.toml");
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    CU_ASSERT_STRING_EQUAL(t, "[workspace]\nname = \"demo-" CUDA "\"\n"
                              "channels = [\"conda-forge\"]\nplatforms = [\"linux-64\"]\n\n"
                              "[dependencies]\npython = \"3.11.*\"\n");
    free(t);
    sc_test_ws_free(&w);
}

/* Upstream's --min-* flags land in compatibility (5.2), in upstream's order,
 * after target; the scroll loads and its effective form keeps them. */
static void new_scroll_min_flags_write_compatibility(void)
{
    sc_test_ws w = sc_test_ws_new();
    sc_error err;
    sc_new_scroll_options o = opts("demo", CUDA);
    o.min_ram_gb = "16";
    o.min_nvidia_driver_version = "550.54";
    o.max_host_app_version_exclusive = "3";
    o.min_host_app_version = "1.2.0";
    SC_EXPECT_CODE(sc_author_new_scroll(w.scrolls, &o, &err), SC_OK, &err);
    sc_json *d = load_json(w.scrolls, SCROLL_CUDA);
    CU_ASSERT_PTR_NOT_NULL_FATAL(d);
    char keys[512];
    keys_of(d, keys, sizeof keys);
    CU_ASSERT_STRING_EQUAL(keys, "$schema schemaVersion boxId modelId runtimeId version "
                                 "sourceRevision target compatibility pythonVersion "
                                 "pixiVersion selfTest");
    const sc_json *c = sc_json_get(d, "compatibility");
    keys_of(c, keys, sizeof keys);
    CU_ASSERT_STRING_EQUAL(keys, "minHostAppVersion maxHostAppVersionExclusive "
                                 "minNvidiaDriverVersion minRamGb");
    CU_ASSERT_STRING_EQUAL(sc_json_cstr(sc_json_get(c, "minHostAppVersion")), "1.2.0");
    CU_ASSERT_STRING_EQUAL(sc_json_cstr(sc_json_get(c, "maxHostAppVersionExclusive")), "3");
    CU_ASSERT_STRING_EQUAL(sc_json_cstr(sc_json_get(c, "minNvidiaDriverVersion")), "550.54");
    const sc_json *ram = sc_json_get(c, "minRamGb");
    CU_ASSERT(ram != NULL && ram->type == SC_JSON_NUMBER && ram->number == 16);
    CU_ASSERT(load_ok(&w, "demo/" CUDA));
    sc_json_free(d);
    sc_test_ws_free(&w);

    /* a fraction of a GB, and the macOS floor on a macOS target */
    w = sc_test_ws_new();
    o = opts("demo", "macos-aarch64-metal");
    o.min_ram_gb = "0.5";
    o.min_macos_version = "14.2";
    SC_EXPECT_CODE(sc_author_new_scroll(w.scrolls, &o, &err), SC_OK, &err);
    d = load_json(w.scrolls, "demo/macos-aarch64-metal/scroll.json");
    c = sc_json_get(d, "compatibility");
    keys_of(c, keys, sizeof keys);
    CU_ASSERT_STRING_EQUAL(keys, "minMacosVersion minRamGb");
    ram = sc_json_get(c, "minRamGb");
    CU_ASSERT(ram != NULL && ram->number == 0.5);
    sc_json_free(d);
    sc_test_ws_free(&w);
}

static void refused_new_scroll(const char *target, sc_new_scroll_options *o, const char *flag)
{
    sc_test_ws w = sc_test_ws_new();
    sc_error err;
    o->target_id = target;
    SC_EXPECT_CODE(sc_author_new_scroll(w.scrolls, o, &err), SC_E_USAGE, &err);
    CU_ASSERT_STRING_EQUAL(err.path, flag);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, flag));
    char *box = sc_path_join(w.scrolls, "demo");
    struct stat st;
    CU_ASSERT(lstat(box, &st) != 0); /* nothing written */
    free(box);
    sc_test_ws_free(&w);
}

/* 18.3 compares dotted numbers only: any other version could never be met. */
static void new_scroll_min_versions_must_be_dotted_numbers(void)
{
    static const char *const bad[] = {"1.0-beta", "v1", "1..2", "1.", ".1", "latest", "1 .2"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        sc_new_scroll_options o = opts("demo", CUDA);
        o.min_host_app_version = bad[i];
        refused_new_scroll(CUDA, &o, "--min-host-app-version");
        o = opts("demo", CUDA);
        o.max_host_app_version_exclusive = bad[i];
        refused_new_scroll(CUDA, &o, "--max-host-app-version-exclusive");
        o = opts("demo", CUDA);
        o.min_nvidia_driver_version = bad[i];
        refused_new_scroll(CUDA, &o, "--min-nvidia-driver-version");
        o = opts("demo", "macos-aarch64-metal");
        o.min_macos_version = bad[i];
        refused_new_scroll("macos-aarch64-metal", &o, "--min-macos-version");
    }
}

static void new_scroll_max_host_app_version_must_be_above_min(void)
{
    sc_new_scroll_options o = opts("demo", CPU);
    o.min_host_app_version = "2";
    o.max_host_app_version_exclusive = "2.0.0"; /* equal: no version in [2, 2) */
    refused_new_scroll(CPU, &o, "--max-host-app-version-exclusive");
    o.max_host_app_version_exclusive = "1.9";
    refused_new_scroll(CPU, &o, "--max-host-app-version-exclusive");
}

static void new_scroll_platform_floors_only_for_their_targets(void)
{
    sc_new_scroll_options o = opts("demo", CPU);
    o.min_nvidia_driver_version = "550";
    refused_new_scroll(CPU, &o, "--min-nvidia-driver-version");
    refused_new_scroll("macos-aarch64-metal", &o, "--min-nvidia-driver-version");
    o = opts("demo", CPU);
    o.min_macos_version = "14";
    refused_new_scroll(CPU, &o, "--min-macos-version");
    refused_new_scroll(CUDA, &o, "--min-macos-version");
}

static void new_scroll_min_ram_gb_must_be_a_positive_number(void)
{
    static const char *const bad[] = {"0", "-1", "16GB", "sixteen", "\"16\"", "1,5", "0x10",
                                      "[16]", "null", "true", "1e999"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        sc_new_scroll_options o = opts("demo", CPU);
        o.min_ram_gb = bad[i];
        refused_new_scroll(CPU, &o, "--min-ram-gb");
    }
}

/* --python-version is a version, never a word like "latest": refused, and
 * nothing written. */
static void new_scroll_python_version_must_be_a_version(void)
{
    static const char *const bad[] = {"latest", "3", "3.", "3.x", "3.12.7.1", "3.*", "", "py3.12",
                                      "3.12.*.1", "3.12 "};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        sc_test_ws w = sc_test_ws_new();
        sc_error err;
        sc_new_scroll_options o = opts("demo", CPU);
        o.python_version = bad[i];
        SC_EXPECT_CODE(sc_author_new_scroll(w.scrolls, &o, &err), SC_E_USAGE, &err);
        CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "--python-version"));
        char *t = slurp(w.scrolls, "demo/" CPU "/scroll.json");
        CU_ASSERT_PTR_NULL(t);
        free(t);
        sc_test_ws_free(&w);
    }
    static const char *const good[] = {"3.12", "3.11.9", "3.11.*"};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        sc_test_ws w = sc_test_ws_new();
        sc_error err;
        sc_new_scroll_options o = opts("demo", CPU);
        o.python_version = good[i];
        SC_EXPECT_CODE(sc_author_new_scroll(w.scrolls, &o, &err), SC_OK, &err);
        sc_test_ws_free(&w);
    }
}

static void new_scroll_missing_flag_is_usage_naming_it(void)
{
    sc_test_ws w = sc_test_ws_new();
    sc_error err;
    sc_new_scroll_options o = opts("demo", CPU);
    o.source_revision = NULL;
    SC_EXPECT_CODE(sc_author_new_scroll(w.scrolls, &o, &err), SC_E_USAGE, &err);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "--source-revision"));
    o = opts(NULL, CPU);
    SC_EXPECT_CODE(sc_author_new_scroll(w.scrolls, &o, &err), SC_E_USAGE, &err);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "--box-id"));
    o = opts("demo", NULL);
    SC_EXPECT_CODE(sc_author_new_scroll(w.scrolls, &o, &err), SC_E_USAGE, &err);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "--target"));
    o = opts("demo", CPU);
    o.execution = "script";
    SC_EXPECT_CODE(sc_author_new_scroll(w.scrolls, &o, &err), SC_E_USAGE, &err);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "--script"));
    CU_ASSERT(!sc_is_dir(w.scrolls) || rmdir(w.scrolls) == 0); /* nothing written */
    sc_test_ws_free(&w);
}

static void new_scroll_existing_is_scroll_exists(void)
{
    sc_test_ws w = ws_with_box(0);
    char *before = slurp(w.scrolls, SCROLL_CPU);
    sc_error err;
    sc_new_scroll_options o = opts("demo", CPU);
    o.model_id = "other";
    SC_EXPECT_CODE(sc_author_new_scroll(w.scrolls, &o, &err), SC_E_SCROLL_EXISTS, &err);
    char *after = slurp(w.scrolls, SCROLL_CPU);
    CU_ASSERT_STRING_EQUAL(before, after);
    free(before);
    free(after);
    sc_test_ws_free(&w);
}

static void new_scroll_bad_target_writes_nothing(void)
{
    sc_test_ws w = sc_test_ws_new();
    sc_error err;
    sc_new_scroll_options o = opts("demo", "linux-x86_64-gpu");
    SC_EXPECT_CODE(sc_author_new_scroll(w.scrolls, &o, &err), SC_E_UNSUPPORTED_TARGET, &err);
    o = opts("Demo", CPU);
    SC_EXPECT_CODE(sc_author_new_scroll(w.scrolls, &o, &err), SC_E_USAGE, &err);
    CU_ASSERT_EQUAL(rmdir(w.scrolls), 0); /* still empty */
    sc_test_ws_free(&w);
}

static void new_scroll_execution_script_and_module(void)
{
    sc_test_ws w = sc_test_ws_new();
    sc_error err;
    sc_new_scroll_options o = opts("a", CPU);
    o.execution = "script";
    o.script = "app/main.py";
    CU_ASSERT_EQUAL_FATAL(sc_author_new_scroll(w.scrolls, &o, &err), SC_OK);
    o = opts("b", CPU);
    o.execution = "module";
    o.module = "pkg.cli";
    CU_ASSERT_EQUAL_FATAL(sc_author_new_scroll(w.scrolls, &o, &err), SC_OK);
    sc_json *a = load_json(w.scrolls, "a/" CPU "/scroll.json");
    sc_json *b = load_json(w.scrolls, "b/" CPU "/scroll.json");
    CU_ASSERT_STRING_EQUAL(sc_json_cstr(sc_json_get(sc_json_get(a, "execution"), "kind")),
                           "python-script");
    CU_ASSERT_STRING_EQUAL(sc_json_cstr(sc_json_get(sc_json_get(a, "execution"), "script")),
                           "app/main.py");
    CU_ASSERT_STRING_EQUAL(sc_json_cstr(sc_json_get(sc_json_get(b, "execution"), "module")),
                           "pkg.cli");
    o = opts("c", CPU);
    o.module = "pkg";
    SC_EXPECT_CODE(sc_author_new_scroll(w.scrolls, &o, &err), SC_E_USAGE, &err);
    sc_json_free(a);
    sc_json_free(b);
    sc_test_ws_free(&w);
}

static void new_scroll_leaves_no_staging_directory(void)
{
    sc_test_ws w = ws_with_box(0);
    char *p = sc_path_join(w.scrolls, "demo");
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "test $(ls -A '%s' | wc -l) -eq 1", p);
    CU_ASSERT_EQUAL(system(cmd), 0);
    free(p);
    sc_test_ws_free(&w);
}

/* ---- init --------------------------------------------------------------------- */

static void init_writes_config_scrolls_and_gitignore_once(void)
{
    sc_test_ws w = sc_test_ws_new();
    sc_error err;
    sc_init_result r;
    char *scrolls = sc_path_join(w.root, "custom/scrolls");
    CU_ASSERT_EQUAL_FATAL(sc_author_init(w.root, scrolls, 0, NULL, &r, &err), SC_OK);
    CU_ASSERT(r.wrote_config && r.created_scrolls && r.wrote_gitignore && !r.wrote_example);
    CU_ASSERT(sc_is_dir(scrolls));
    char *cfg = slurp(w.root, "scrollcase.config.json");
    CU_ASSERT_STRING_EQUAL(cfg, "{\n  \"version\": 1,\n  \"paths\": {\n"
                                "    \"scrolls\": \"scrolls\",\n"
                                "    \"build\": \".scrollcase/build\",\n"
                                "    \"dist\": \".scrollcase/dist\",\n"
                                "    \"keys\": \".scrollcase/keys\",\n"
                                "    \"toolchain\": \".scrollcase/toolchain\"\n  }\n}\n");
    CU_ASSERT_EQUAL_FATAL(sc_author_init(w.root, scrolls, 0, NULL, &r, &err), SC_OK);
    CU_ASSERT(!r.wrote_config && !r.created_scrolls && !r.wrote_gitignore);
    char *gi = slurp(w.root, ".gitignore");
    CU_ASSERT_STRING_EQUAL(gi, "# scrollcase build state\n.scrollcase/\n");
    free(cfg);
    free(gi);
    free(scrolls);
    sc_test_ws_free(&w);
}

static void init_never_overwrites_and_appends_to_gitignore(void)
{
    sc_test_ws w = sc_test_ws_new();
    sc_test_write(w.root, "scrollcase.config.json", "{\"version\": 1}\n");
    sc_test_write(w.root, ".gitignore", "node_modules");
    sc_error err;
    sc_init_result r;
    CU_ASSERT_EQUAL_FATAL(sc_author_init(w.root, w.scrolls, 0, NULL, &r, &err), SC_OK);
    CU_ASSERT(!r.wrote_config && r.wrote_gitignore);
    char *cfg = slurp(w.root, "scrollcase.config.json");
    char *gi = slurp(w.root, ".gitignore");
    CU_ASSERT_STRING_EQUAL(cfg, "{\"version\": 1}\n");
    CU_ASSERT_STRING_EQUAL(gi, "node_modules\n# scrollcase build state\n.scrollcase/\n");
    free(cfg);
    free(gi);
    sc_test_ws_free(&w);
}

static void init_example_is_a_valid_native_scroll(void)
{
    sc_test_ws w = sc_test_ws_new();
    sc_error err;
    sc_init_result r;
    CU_ASSERT_EQUAL_FATAL(sc_author_init(w.root, w.scrolls, 1, "0.50.0", &r, &err), SC_OK);
    CU_ASSERT(r.wrote_example);
    char ref[128];
    snprintf(ref, sizeof ref, "%s/%s", SC_AUTHOR_EXAMPLE_BOX, sc_author_native_target());
    CU_ASSERT(load_ok(&w, ref));
    /* A second init keeps the example as it is. */
    CU_ASSERT_EQUAL(sc_author_init(w.root, w.scrolls, 1, NULL, &r, &err), SC_OK);
    CU_ASSERT(!r.wrote_example);
    sc_test_ws_free(&w);
}

/* ---- choosing files ------------------------------------------------------------- */

static void several_targets_need_target_flag(void)
{
    sc_test_ws w = ws_with_box(1);
    sc_author_ctx c = ctx(&w, NULL);
    sc_error err;
    SC_EXPECT_CODE(sc_author_add(&c, SC_AUTHOR_IMPORT, "demo", "numpy", NULL, NULL, &err),
                   SC_E_USAGE, &err);
    c.target = "linux-x86_64-cuda11.8";
    SC_EXPECT_CODE(sc_author_add(&c, SC_AUTHOR_IMPORT, "demo", "numpy", NULL, NULL, &err),
                   SC_E_SCROLL_NOT_FOUND, &err);
    c.target = CUDA;
    CU_ASSERT_EQUAL(sc_author_add(&c, SC_AUTHOR_IMPORT, "demo", "numpy", NULL, NULL, &err),
                    SC_OK);
    char *a = slurp(w.scrolls, SCROLL_CPU), *b = slurp(w.scrolls, SCROLL_CUDA);
    CU_ASSERT_PTR_NULL(strstr(a, "numpy"));
    CU_ASSERT_PTR_NOT_NULL(strstr(b, "numpy"));
    free(a);
    free(b);
    c.target = "all";
    CU_ASSERT_EQUAL(sc_author_add(&c, SC_AUTHOR_IMPORT, "demo", "yaml", NULL, NULL, &err),
                    SC_OK);
    a = slurp(w.scrolls, SCROLL_CPU);
    b = slurp(w.scrolls, SCROLL_CUDA);
    CU_ASSERT_PTR_NOT_NULL(strstr(a, "yaml"));
    CU_ASSERT_PTR_NOT_NULL(strstr(b, "yaml"));
    free(a);
    free(b);
    sc_test_ws_free(&w);
}

static void all_edits_the_base_of_a_split_box(void)
{
    sc_test_ws w = sc_test_ws_new();
    sc_test_ws_put(&w, "demo/scroll.json",
                   "{'schemaVersion':3,'boxId':'demo','modelId':'m','runtimeId':'r',"
                   "'version':'1','sourceRevision':'x','pythonVersion':'3.11',"
                   "'pixiVersion':'0.40.0','selfTest':{'imports':['json']}}");
    sc_test_ws_put(&w, "demo/" CPU "/scroll.json",
                   "{'extends':'../scroll.json','target':{'platform':'linux','arch':"
                   "'x86_64','accelerator':'cpu'}}");
    sc_author_ctx c = ctx(&w, "all");
    sc_error err;
    CU_ASSERT_EQUAL(sc_author_add(&c, SC_AUTHOR_ENV, "demo", "A=1", NULL, NULL, &err), SC_OK);
    char *base = slurp(w.scrolls, "demo/scroll.json"), *frag = slurp(w.scrolls, SCROLL_CPU);
    CU_ASSERT_PTR_NOT_NULL(strstr(base, "\"A\": \"1\""));
    CU_ASSERT_PTR_NULL(strstr(frag, "\"A\""));
    free(base);
    free(frag);
    sc_test_ws_free(&w);
}

static void box_must_be_one_name(void)
{
    sc_test_ws w = ws_with_box(0);
    sc_author_ctx c = ctx(&w, NULL);
    sc_error err;
    SC_EXPECT_CODE(sc_author_add(&c, SC_AUTHOR_IMPORT, "demo/" CPU, "x", NULL, NULL, &err),
                   SC_E_INVALID_REFERENCE, &err);
    SC_EXPECT_CODE(sc_author_add(&c, SC_AUTHOR_IMPORT, "nobox", "x", NULL, NULL, &err),
                   SC_E_SCROLL_NOT_FOUND, &err);
    sc_test_ws_free(&w);
}

/* ---- add / remove ------------------------------------------------------------------ */

static void add_file_pins_sha256_and_lists_it_in_self_test(void)
{
    sc_test_ws w = ws_with_box(0);
    sc_test_write(w.root, "src/model.bin", "weights");
    sc_author_ctx c = ctx(&w, NULL);
    sc_error err;
    CU_ASSERT_EQUAL_FATAL(
        sc_author_add(&c, SC_AUTHOR_FILE, "demo", "src/model.bin", "data/m.bin", NULL, &err),
        SC_OK);
    sc_json *d = load_json(w.scrolls, SCROLL_CPU);
    const sc_json *e = sc_json_at(sc_json_get(d, "localFiles"), 0);
    char hex[65];
    sc_sha256_hex("weights", 7, hex, &err);
    CU_ASSERT_STRING_EQUAL(sc_json_cstr(sc_json_get(e, "sourcePath")), "src/model.bin");
    CU_ASSERT_STRING_EQUAL(sc_json_cstr(sc_json_get(e, "relativePath")), "data/m.bin");
    CU_ASSERT_STRING_EQUAL(sc_json_cstr(sc_json_get(e, "sha256")), hex);
    const sc_json *files = sc_json_get(sc_json_get(d, "selfTest"), "files");
    CU_ASSERT_EQUAL(files ? files->length : 0, 1);
    CU_ASSERT_STRING_EQUAL(sc_json_cstr(sc_json_at(files, 0)), "data/m.bin");
    /* localFiles lands where the table of 5.2 puts it: before selfTest. */
    char keys[512];
    keys_of(d, keys, sizeof keys);
    CU_ASSERT_PTR_NOT_NULL(strstr(keys, "pixiVersion localFiles selfTest"));
    sc_json_free(d);
    sc_test_ws_free(&w);
}

static void add_file_default_path_is_base_name(void)
{
    sc_test_ws w = ws_with_box(0);
    sc_test_write(w.root, "src/deep/x.txt", "x");
    sc_author_ctx c = ctx(&w, NULL);
    sc_error err;
    CU_ASSERT_EQUAL_FATAL(
        sc_author_add(&c, SC_AUTHOR_FILE, "demo", "src/deep/x.txt", NULL, NULL, &err), SC_OK);
    sc_json *d = load_json(w.scrolls, SCROLL_CPU);
    CU_ASSERT_STRING_EQUAL(
        sc_json_cstr(sc_json_get(sc_json_at(sc_json_get(d, "localFiles"), 0), "relativePath")),
        "x.txt");
    sc_json_free(d);
    sc_test_ws_free(&w);
}

static void add_file_refuses_links_missing_and_outside_files(void)
{
    sc_test_ws w = ws_with_box(0);
    sc_test_write(w.root, "real.txt", "x");
    char *link = sc_path_join(w.root, "link.txt");
    CU_ASSERT_EQUAL_FATAL(symlink("real.txt", link), 0);
    char *before = slurp(w.scrolls, SCROLL_CPU);
    sc_author_ctx c = ctx(&w, NULL);
    sc_error err;
    SC_EXPECT_CODE(sc_author_add(&c, SC_AUTHOR_FILE, "demo", "link.txt", NULL, NULL, &err),
                   SC_E_USAGE, &err);
    SC_EXPECT_CODE(sc_author_add(&c, SC_AUTHOR_FILE, "demo", "nope.txt", NULL, NULL, &err),
                   SC_E_LOCAL_FILE_MISSING, &err);
    SC_EXPECT_CODE(sc_author_add(&c, SC_AUTHOR_FILE, "demo", "scrolls", NULL, NULL, &err),
                   SC_E_USAGE, &err);
    sc_test_ws other = sc_test_ws_new();
    sc_test_write(other.root, "o.txt", "o");
    char *outside = sc_path_join(other.root, "o.txt");
    SC_EXPECT_CODE(sc_author_add(&c, SC_AUTHOR_FILE, "demo", outside, NULL, NULL, &err),
                   SC_E_UNSAFE_PATH, &err);
    SC_EXPECT_CODE(sc_author_add(&c, SC_AUTHOR_FILE, "demo", "real.txt", "../x", NULL, &err),
                   SC_E_UNSAFE_PATH, &err);
    char *after = slurp(w.scrolls, SCROLL_CPU);
    CU_ASSERT_STRING_EQUAL(before, after);
    free(before);
    free(after);
    free(outside);
    free(link);
    sc_test_ws_free(&other);
    sc_test_ws_free(&w);
}

static void add_env_splits_at_the_first_equals_and_replaces(void)
{
    sc_test_ws w = ws_with_box(0);
    sc_author_ctx c = ctx(&w, NULL);
    sc_error err;
    CU_ASSERT_EQUAL(sc_author_add(&c, SC_AUTHOR_ENV, "demo", "OPTS=a=b", NULL, NULL, &err), SC_OK);
    CU_ASSERT_EQUAL(sc_author_add(&c, SC_AUTHOR_ENV, "demo", "X=", NULL, NULL, &err), SC_OK);
    CU_ASSERT_EQUAL(sc_author_add(&c, SC_AUTHOR_ENV, "demo", "OPTS=c", NULL, NULL, &err), SC_OK);
    SC_EXPECT_CODE(sc_author_add(&c, SC_AUTHOR_ENV, "demo", "NOVALUE", NULL, NULL, &err),
                   SC_E_USAGE, &err);
    SC_EXPECT_CODE(sc_author_add(&c, SC_AUTHOR_ENV, "demo", "=v", NULL, NULL, &err), SC_E_USAGE,
                   &err);
    sc_json *d = load_json(w.scrolls, SCROLL_CPU);
    const sc_json *env = sc_json_get(d, "environment");
    char keys[128];
    keys_of(env, keys, sizeof keys);
    CU_ASSERT_STRING_EQUAL(keys, "OPTS X");
    CU_ASSERT_STRING_EQUAL(sc_json_cstr(sc_json_get(env, "OPTS")), "c");
    CU_ASSERT_STRING_EQUAL(sc_json_cstr(sc_json_get(env, "X")), "");
    sc_json_free(d);
    sc_test_ws_free(&w);
}

static void add_import_takes_dotted_names_once(void)
{
    sc_test_ws w = ws_with_box(0);
    sc_author_ctx c = ctx(&w, NULL);
    sc_error err;
    CU_ASSERT_EQUAL(sc_author_add(&c, SC_AUTHOR_IMPORT, "demo", "a.b_c", NULL, NULL, &err), SC_OK);
    CU_ASSERT_EQUAL(sc_author_add(&c, SC_AUTHOR_IMPORT, "demo", "a.b_c", NULL, NULL, &err), SC_OK);
    SC_EXPECT_CODE(sc_author_add(&c, SC_AUTHOR_IMPORT, "demo", "a..b", NULL, NULL, &err),
                   SC_E_USAGE, &err);
    SC_EXPECT_CODE(sc_author_add(&c, SC_AUTHOR_IMPORT, "demo", "9x", NULL, NULL, &err),
                   SC_E_USAGE, &err);
    sc_json *d = load_json(w.scrolls, SCROLL_CPU);
    CU_ASSERT_EQUAL(sc_json_get(sc_json_get(d, "selfTest"), "imports")->length, 2);
    sc_json_free(d);
    sc_test_ws_free(&w);
}

static void add_dep_edits_dependencies_in_place(void)
{
    sc_test_ws w = ws_with_box(0);
    char *p = sc_path_join(w.scrolls, TOML_CPU);
    sc_error err;
    const char *orig = "# top comment\n[workspace]\nname = \"x\"\nchannels = [\"conda-forge\"]\n"
                       "platforms = [\"linux-64\"]\n\n[dependencies]\npython = \"3.12.*\"\n"
                       "# keep me\n\n[tasks]\nrun = \"python\"\n";
    CU_ASSERT_EQUAL_FATAL(sc_file_write_atomic(p, orig, strlen(orig), 0644, &err), SC_OK);
    sc_author_ctx c = ctx(&w, NULL);
    CU_ASSERT_EQUAL(sc_author_add(&c, SC_AUTHOR_DEP, "demo", "numpy", NULL, ">=1.26", &err),
                    SC_OK);
    CU_ASSERT_EQUAL(sc_author_add(&c, SC_AUTHOR_DEP, "demo", "python", NULL, "3.11.*", &err),
                    SC_OK);
    CU_ASSERT_EQUAL(sc_author_add(&c, SC_AUTHOR_DEP, "demo", "scipy", NULL, NULL, &err), SC_OK);
    char *t = slurp(w.scrolls, TOML_CPU);
    CU_ASSERT_STRING_EQUAL(t, "# top comment\n[workspace]\nname = \"x\"\n"
                              "channels = [\"conda-forge\"]\nplatforms = [\"linux-64\"]\n\n"
                              "[dependencies]\npython = \"3.11.*\"\nnumpy = \">=1.26\"\n"
                              "scipy = \"*\"\n# keep me\n\n[tasks]\nrun = \"python\"\n");
    free(t);
    CU_ASSERT_EQUAL(sc_author_remove(&c, SC_AUTHOR_DEP, "demo", "numpy", &err), SC_OK);
    t = slurp(w.scrolls, TOML_CPU);
    CU_ASSERT_PTR_NULL(strstr(t, "numpy"));
    free(t);
    free(p);
    sc_test_ws_free(&w);
}

static void add_dep_creates_the_section_when_absent(void)
{
    sc_test_ws w = ws_with_box(0);
    char *p = sc_path_join(w.scrolls, TOML_CPU);
    sc_error err;
    const char *orig = "[workspace]\nname = \"x\"";
    CU_ASSERT_EQUAL_FATAL(sc_file_write_atomic(p, orig, strlen(orig), 0644, &err), SC_OK);
    sc_author_ctx c = ctx(&w, NULL);
    CU_ASSERT_EQUAL(sc_author_add(&c, SC_AUTHOR_DEP, "demo", "zlib", NULL, "1.3", &err), SC_OK);
    char *t = slurp(w.scrolls, TOML_CPU);
    CU_ASSERT_STRING_EQUAL(t, "[workspace]\nname = \"x\"\n\n[dependencies]\nzlib = \"1.3\"\n");
    free(t);
    free(p);
    sc_test_ws_free(&w);
}

static void add_dep_refuses_non_conda_names_and_quoted_specs(void)
{
    sc_test_ws w = ws_with_box(0);
    char *before = slurp(w.scrolls, TOML_CPU);
    sc_author_ctx c = ctx(&w, NULL);
    sc_error err;
    SC_EXPECT_CODE(sc_author_add(&c, SC_AUTHOR_DEP, "demo", "NumPy", NULL, NULL, &err),
                   SC_E_USAGE, &err);
    SC_EXPECT_CODE(sc_author_add(&c, SC_AUTHOR_DEP, "demo", "numpy-", NULL, NULL, &err),
                   SC_E_USAGE, &err);
    SC_EXPECT_CODE(sc_author_add(&c, SC_AUTHOR_DEP, "demo", "numpy", NULL, "1\"2", &err),
                   SC_E_USAGE, &err);
    char *after = slurp(w.scrolls, TOML_CPU);
    CU_ASSERT_STRING_EQUAL(before, after);
    free(before);
    free(after);
    sc_test_ws_free(&w);
}

static void add_dep_with_several_targets_and_all_edits_each(void)
{
    sc_test_ws w = ws_with_box(1);
    sc_author_ctx c = ctx(&w, "all");
    sc_error err;
    CU_ASSERT_EQUAL(sc_author_add(&c, SC_AUTHOR_DEP, "demo", "numpy", NULL, NULL, &err), SC_OK);
    char *a = slurp(w.scrolls, TOML_CPU), *b = slurp(w.scrolls, "demo/" CUDA "/pixi.toml");
    CU_ASSERT_PTR_NOT_NULL(strstr(a, "numpy = \"*\""));
    CU_ASSERT_PTR_NOT_NULL(strstr(b, "numpy = \"*\""));
    free(a);
    free(b);
    sc_test_ws_free(&w);
}

/* A pixi.toml as people write them: every TOML form the old line editor broke on. */
static const char real_manifest[] =
    "# demo workspace\n"
    "[workspace]\n"
    "name = \"demo\"\n"
    "channels = [\n  \"conda-forge\",  # main\n  \"pytorch\",\n]\n"
    "platforms = [\"linux-64\"]\n"
    "\n"
    "[tasks]\n"
    "serve = \"\"\"\n"
    "python -m demo.serve \\\n"
    "  --port 8000\n"
    "[dependencies]\n"
    "\"\"\"\n"
    "check = { cmd = '''pytest -q''', depends-on = [\"lint\"] }\n"
    "\n"
    "[dependencies]\n"
    "python = \"3.12.*\"   # the interpreter\n"
    "pytorch = { version = \"2.5.*\", channel = \"pytorch\" }\n"
    "cuda.version = \"12.4.*\"\n"
    "cuda.build = \"*\"\n"
    "\n"
    "# GPU extras\n"
    "[feature.gpu.dependencies]\n"
    "numpy = \"1.*\"\n"
    "\n"
    "[target.linux-64.dependencies]\n"
    "python = \"3.12.*\"\n"
    "\n"
    "[[tool.matrix]]\n"
    "python = \"3.11\"\n"
    "[[tool.matrix]]\n"
    "python = \"3.12\"\n";

static void write_manifest(const sc_test_ws *w, const char *text)
{
    char *p = sc_path_join(w->scrolls, TOML_CPU);
    sc_error err;
    CU_ASSERT_EQUAL_FATAL(sc_file_write_atomic(p, text, strlen(text), 0644, &err), SC_OK);
    free(p);
}

/* The manifest after replacing the bytes [from, from+strlen(old)) = old by new. */
static char *spliced(const char *text, const char *old, const char *new_text)
{
    const char *at = strstr(text, old);
    CU_ASSERT_PTR_NOT_NULL_FATAL(at);
    size_t n = strlen(text) - strlen(old) + strlen(new_text) + 1;
    char *r = malloc(n);
    snprintf(r, n, "%.*s%s%s", (int)(at - text), text, new_text, at + strlen(old));
    return r;
}

static void add_dep_keeps_a_real_manifest_byte_for_byte(void)
{
    sc_test_ws w = ws_with_box(0);
    write_manifest(&w, real_manifest);
    sc_author_ctx c = ctx(&w, NULL);
    sc_error err;
    /* a new entry goes after the last line of [dependencies], not into the task string */
    SC_EXPECT_CODE(sc_author_add(&c, SC_AUTHOR_DEP, "demo", "numpy", NULL, ">=1.26", &err), SC_OK,
                   &err);
    char *want = spliced(real_manifest, "cuda.build = \"*\"\n",
                         "cuda.build = \"*\"\nnumpy = \">=1.26\"\n");
    char *t = slurp(w.scrolls, TOML_CPU);
    CU_ASSERT_STRING_EQUAL(t, want);
    free(t);
    /* an existing value is replaced where it stands; its comment stays */
    SC_EXPECT_CODE(sc_author_add(&c, SC_AUTHOR_DEP, "demo", "python", NULL, "3.11.*", &err), SC_OK,
                   &err);
    char *want2 = spliced(want, "python = \"3.12.*\"   #", "python = \"3.11.*\"   #");
    t = slurp(w.scrolls, TOML_CPU);
    CU_ASSERT_STRING_EQUAL(t, want2);
    free(t);
    /* an inline-table entry and a dotted-key entry are removed with their lines */
    SC_EXPECT_CODE(sc_author_remove(&c, SC_AUTHOR_DEP, "demo", "pytorch", &err), SC_OK, &err);
    SC_EXPECT_CODE(sc_author_remove(&c, SC_AUTHOR_DEP, "demo", "cuda", &err), SC_OK, &err);
    char *a = spliced(want2, "pytorch = { version = \"2.5.*\", channel = \"pytorch\" }\n", "");
    char *want3 = spliced(a, "cuda.version = \"12.4.*\"\ncuda.build = \"*\"\n", "");
    t = slurp(w.scrolls, TOML_CPU);
    CU_ASSERT_STRING_EQUAL(t, want3);
    /* [feature.gpu.dependencies] and [target.linux-64.dependencies] are untouched */
    CU_ASSERT_PTR_NOT_NULL(strstr(t, "[feature.gpu.dependencies]\nnumpy = \"1.*\"\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(t, "[target.linux-64.dependencies]\npython = \"3.12.*\"\n"));
    free(t);
    free(a);
    free(want);
    free(want2);
    free(want3);
    sc_test_ws_free(&w);
}

static void add_dep_replaces_a_dotted_entry_in_its_place(void)
{
    sc_test_ws w = ws_with_box(0);
    write_manifest(&w, real_manifest);
    sc_author_ctx c = ctx(&w, NULL);
    sc_error err;
    SC_EXPECT_CODE(sc_author_add(&c, SC_AUTHOR_DEP, "demo", "cuda", NULL, "12.6.*", &err), SC_OK,
                   &err);
    char *want = spliced(real_manifest, "cuda.version = \"12.4.*\"\ncuda.build = \"*\"\n",
                         "cuda = \"12.6.*\"\n");
    char *t = slurp(w.scrolls, TOML_CPU);
    CU_ASSERT_STRING_EQUAL(t, want);
    free(t);
    free(want);
    sc_test_ws_free(&w);
}

static void add_dep_edits_dotted_and_inline_dependencies(void)
{
    sc_test_ws w = ws_with_box(0);
    sc_author_ctx c = ctx(&w, NULL);
    sc_error err;
    const char *dotted = "[workspace]\nname = \"x\"\n[dependencies]\n";
    const char *root_dotted = "dependencies.python = \"3.12.*\"  # py\n\n[workspace]\nname = \"x\"\n";
    write_manifest(&w, root_dotted);
    SC_EXPECT_CODE(sc_author_add(&c, SC_AUTHOR_DEP, "demo", "zlib", NULL, "1.3", &err), SC_OK,
                   &err);
    char *t = slurp(w.scrolls, TOML_CPU);
    CU_ASSERT_STRING_EQUAL(t, "dependencies.python = \"3.12.*\"  # py\ndependencies.zlib = \"1.3\"\n"
                              "\n[workspace]\nname = \"x\"\n");
    free(t);
    SC_EXPECT_CODE(sc_author_remove(&c, SC_AUTHOR_DEP, "demo", "python", &err), SC_OK, &err);
    t = slurp(w.scrolls, TOML_CPU);
    CU_ASSERT_STRING_EQUAL(t, "dependencies.zlib = \"1.3\"\n\n[workspace]\nname = \"x\"\n");
    free(t);
    const char *inl = "dependencies = { python = \"3.12.*\" }\n[workspace]\nname = \"x\"\n";
    write_manifest(&w, inl);
    SC_EXPECT_CODE(sc_author_add(&c, SC_AUTHOR_DEP, "demo", "zlib", NULL, NULL, &err), SC_OK,
                   &err);
    t = slurp(w.scrolls, TOML_CPU);
    CU_ASSERT_STRING_EQUAL(t, "dependencies = { python = \"3.12.*\", zlib = \"*\" }\n"
                              "[workspace]\nname = \"x\"\n");
    free(t);
    SC_EXPECT_CODE(sc_author_remove(&c, SC_AUTHOR_DEP, "demo", "python", &err), SC_OK, &err);
    SC_EXPECT_CODE(sc_author_remove(&c, SC_AUTHOR_DEP, "demo", "zlib", &err), SC_OK, &err);
    t = slurp(w.scrolls, TOML_CPU);
    CU_ASSERT_STRING_EQUAL(t, "dependencies = {  }\n[workspace]\nname = \"x\"\n");
    free(t);
    SC_EXPECT_CODE(sc_author_add(&c, SC_AUTHOR_DEP, "demo", "zlib", NULL, NULL, &err), SC_OK,
                   &err);
    t = slurp(w.scrolls, TOML_CPU);
    CU_ASSERT_STRING_EQUAL(t, "dependencies = {   zlib = \"*\" }\n[workspace]\nname = \"x\"\n");
    free(t);
    /* an empty [dependencies] section at the end of a file without a final newline */
    write_manifest(&w, "[workspace]\nname = \"x\"\n[dependencies]");
    SC_EXPECT_CODE(sc_author_add(&c, SC_AUTHOR_DEP, "demo", "zlib", NULL, NULL, &err), SC_OK,
                   &err);
    t = slurp(w.scrolls, TOML_CPU);
    CU_ASSERT_STRING_EQUAL(t, "[workspace]\nname = \"x\"\n[dependencies]\nzlib = \"*\"\n");
    free(t);
    write_manifest(&w, dotted);
    SC_EXPECT_CODE(sc_author_add(&c, SC_AUTHOR_DEP, "demo", "zlib", NULL, NULL, &err), SC_OK,
                   &err);
    t = slurp(w.scrolls, TOML_CPU);
    CU_ASSERT_STRING_EQUAL(t, "[workspace]\nname = \"x\"\n[dependencies]\nzlib = \"*\"\n");
    free(t);
    sc_test_ws_free(&w);
}

static void add_dep_refuses_a_table_entry_and_a_broken_manifest(void)
{
    sc_test_ws w = ws_with_box(0);
    sc_author_ctx c = ctx(&w, NULL);
    sc_error err;
    const char *table = "[workspace]\nname = \"x\"\n[dependencies.numpy]\nversion = \"1.*\"\n";
    write_manifest(&w, table);
    SC_EXPECT_CODE(sc_author_add(&c, SC_AUTHOR_DEP, "demo", "numpy", NULL, NULL, &err),
                   SC_E_INVALID_PIXI_TOML, &err);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "scroll check"));
    char *t = slurp(w.scrolls, TOML_CPU);
    CU_ASSERT_STRING_EQUAL(t, table);
    free(t);
    /* a new name beside a [dependencies.x] table: a [dependencies] section is added */
    SC_EXPECT_CODE(sc_author_add(&c, SC_AUTHOR_DEP, "demo", "zlib", NULL, NULL, &err), SC_OK,
                   &err);
    t = slurp(w.scrolls, TOML_CPU);
    CU_ASSERT_STRING_EQUAL(t, "[workspace]\nname = \"x\"\n[dependencies.numpy]\n"
                              "version = \"1.*\"\n\n[dependencies]\nzlib = \"*\"\n");
    free(t);
    const char *broken = "[workspace]\nname = \"x\"\n[dependencies]\npython = \"3.12\n";
    write_manifest(&w, broken);
    SC_EXPECT_CODE(sc_author_add(&c, SC_AUTHOR_DEP, "demo", "zlib", NULL, NULL, &err),
                   SC_E_INVALID_PIXI_TOML, &err);
    t = slurp(w.scrolls, TOML_CPU);
    CU_ASSERT_STRING_EQUAL(t, broken);
    free(t);
    sc_test_ws_free(&w);
}

/* Issue 24: several dependencies are one edit, in every table form, all or
 * nothing; a name given twice takes its last spec. */
static void add_deps_is_one_edit_all_or_nothing(void)
{
    sc_test_ws w = ws_with_box(0);
    sc_author_ctx c = ctx(&w, NULL);
    sc_error err;
    const char *names[] = {"zlib", "numpy", "zlib", "scipy"};
    const char *specs[] = {"1.2", ">=1.26", "1.3", NULL};
    write_manifest(&w, "[workspace]\nname = \"x\"\n[dependencies]\nnumpy = \"1.0\"  # pin\n");
    SC_EXPECT_CODE(sc_author_add_deps(&c, "demo", names, specs, 4, &err), SC_OK, &err);
    char *t = slurp(w.scrolls, TOML_CPU);
    CU_ASSERT_STRING_EQUAL(t, "[workspace]\nname = \"x\"\n[dependencies]\n"
                              "numpy = \">=1.26\"  # pin\nzlib = \"1.3\"\nscipy = \"*\"\n");
    free(t);
    write_manifest(&w, "dependencies = { python = \"3.12.*\" }\n[workspace]\nname = \"x\"\n");
    SC_EXPECT_CODE(sc_author_add_deps(&c, "demo", names, specs, 4, &err), SC_OK, &err);
    t = slurp(w.scrolls, TOML_CPU);
    CU_ASSERT_STRING_EQUAL(t, "dependencies = { python = \"3.12.*\", numpy = \">=1.26\", "
                              "zlib = \"1.3\", scipy = \"*\" }\n[workspace]\nname = \"x\"\n");
    free(t);
    write_manifest(&w, "[workspace]\nname = \"x\"\n");
    SC_EXPECT_CODE(sc_author_add_deps(&c, "demo", names, specs, 2, &err), SC_OK, &err);
    t = slurp(w.scrolls, TOML_CPU);
    CU_ASSERT_STRING_EQUAL(t, "[workspace]\nname = \"x\"\n\n[dependencies]\n"
                              "zlib = \"1.2\"\nnumpy = \">=1.26\"\n");
    free(t);
    /* scipy written as a table: nothing is added, not even the names before it */
    const char *table = "[workspace]\nname = \"x\"\n[dependencies.scipy]\nversion = \"1.*\"\n";
    write_manifest(&w, table);
    SC_EXPECT_CODE(sc_author_add_deps(&c, "demo", names, specs, 4, &err),
                   SC_E_INVALID_PIXI_TOML, &err);
    t = slurp(w.scrolls, TOML_CPU);
    CU_ASSERT_STRING_EQUAL(t, table);
    free(t);
    /* a bad name anywhere: nothing is read or written */
    const char *bad[] = {"zlib", "NumPy"};
    SC_EXPECT_CODE(sc_author_add_deps(&c, "demo", bad, NULL, 2, &err), SC_E_USAGE, &err);
    t = slurp(w.scrolls, TOML_CPU);
    CU_ASSERT_STRING_EQUAL(t, table);
    free(t);
    sc_test_ws_free(&w);
}

static void remove_without_a_match_is_an_error(void)
{
    sc_test_ws w = ws_with_box(0);
    sc_author_ctx c = ctx(&w, NULL);
    sc_error err;
    SC_EXPECT_CODE(sc_author_remove(&c, SC_AUTHOR_FILE, "demo", "x", &err), SC_E_USAGE, &err);
    SC_EXPECT_CODE(sc_author_remove(&c, SC_AUTHOR_ASSET, "demo", "x", &err), SC_E_USAGE, &err);
    SC_EXPECT_CODE(sc_author_remove(&c, SC_AUTHOR_ENV, "demo", "X", &err), SC_E_USAGE, &err);
    SC_EXPECT_CODE(sc_author_remove(&c, SC_AUTHOR_IMPORT, "demo", "os", &err), SC_E_USAGE, &err);
    SC_EXPECT_CODE(sc_author_remove(&c, SC_AUTHOR_DEP, "demo", "numpy", &err), SC_E_USAGE, &err);
    sc_test_ws_free(&w);
}

static void remove_last_import_is_refused(void)
{
    sc_test_ws w = ws_with_box(0);
    char *before = slurp(w.scrolls, SCROLL_CPU);
    sc_author_ctx c = ctx(&w, NULL);
    sc_error err;
    SC_EXPECT_CODE(sc_author_remove(&c, SC_AUTHOR_IMPORT, "demo", "json", &err),
                   SC_E_INVALID_SCROLL, &err);
    char *after = slurp(w.scrolls, SCROLL_CPU);
    CU_ASSERT_STRING_EQUAL(before, after);
    CU_ASSERT_EQUAL(sc_author_add(&c, SC_AUTHOR_IMPORT, "demo", "os", NULL, NULL, &err), SC_OK);
    CU_ASSERT_EQUAL(sc_author_remove(&c, SC_AUTHOR_IMPORT, "demo", "json", &err), SC_OK);
    free(before);
    free(after);
    sc_test_ws_free(&w);
}

static void remove_file_and_env_restore_the_scroll(void)
{
    sc_test_ws w = ws_with_box(0);
    char *before = slurp(w.scrolls, SCROLL_CPU);
    sc_test_write(w.root, "a.txt", "a");
    sc_author_ctx c = ctx(&w, NULL);
    sc_error err;
    CU_ASSERT_EQUAL_FATAL(sc_author_add(&c, SC_AUTHOR_FILE, "demo", "a.txt", NULL, NULL, &err),
                          SC_OK);
    CU_ASSERT_EQUAL_FATAL(sc_author_add(&c, SC_AUTHOR_ENV, "demo", "K=V", NULL, NULL, &err),
                          SC_OK);
    CU_ASSERT_EQUAL(sc_author_remove(&c, SC_AUTHOR_FILE, "demo", "a.txt", &err), SC_OK);
    CU_ASSERT_EQUAL(sc_author_remove(&c, SC_AUTHOR_ENV, "demo", "K", &err), SC_OK);
    char *after = slurp(w.scrolls, SCROLL_CPU);
    CU_ASSERT_STRING_EQUAL(before, after); /* empty containers are removed */
    free(before);
    free(after);
    sc_test_ws_free(&w);
}

static int array_has_file(const sc_json *d, const char *rel)
{
    const sc_json *files = sc_json_get(sc_json_get(d, "selfTest"), "files");
    for (size_t i = 0; files != NULL && i < files->length; i++)
        if (strcmp(sc_json_cstr(sc_json_at(files, i)), rel) == 0)
            return 1;
    return 0;
}

/* ---- assets (through the fetch hook) ------------------------------------------------ */

typedef struct fake_fetch {
    const char *body;
    int calls;
} fake_fetch;

static sc_code fake(void *vctx, const char *url, const char *dest, uint64_t *size,
                    char hex[65], sc_error *err)
{
    (void)url;
    fake_fetch *f = vctx;
    f->calls++;
    sc_code rc = sc_file_write_atomic(dest, f->body, strlen(f->body), 0644, err);
    if (rc != SC_OK)
        return rc;
    *size = strlen(f->body);
    return sc_sha256_hex(f->body, strlen(f->body), hex, err);
}

static void add_asset_pins_size_and_sha256_under_the_model_cache(void)
{
    sc_test_ws w = ws_with_box(0);
    fake_fetch f = {"0123456789", 0};
    sc_author_ctx c = ctx(&w, NULL);
    c.fetch = fake;
    c.fetch_ctx = &f;
    sc_error err;
    CU_ASSERT_EQUAL_FATAL(sc_author_add(&c, SC_AUTHOR_ASSET, "demo",
                                        "https://example.invalid/m/weights.bin?x=1", NULL, NULL,
                                        &err),
                          SC_OK);
    CU_ASSERT_EQUAL(f.calls, 1);
    sc_json *d = load_json(w.scrolls, SCROLL_CPU);
    const sc_json *a = sc_json_at(sc_json_get(d, "assets"), 0);
    uint64_t size = 0;
    char hex[65];
    sc_sha256_hex("0123456789", 10, hex, &err);
    CU_ASSERT_STRING_EQUAL(sc_json_cstr(sc_json_get(a, "relativePath")),
                           "model-cache/demo/weights.bin");
    CU_ASSERT(sc_json_uint53(sc_json_get(a, "sizeBytes"), &size) && size == 10);
    CU_ASSERT_STRING_EQUAL(sc_json_cstr(sc_json_get(a, "sha256")), hex);
    CU_ASSERT(array_has_file(d, "model-cache/demo/weights.bin"));
    sc_json_free(d);
    sc_test_ws_free(&w);
}

static void add_asset_refuses_empty_bodies_and_non_http_urls(void)
{
    sc_test_ws w = ws_with_box(0);
    char *before = slurp(w.scrolls, SCROLL_CPU);
    fake_fetch f = {"", 0};
    sc_author_ctx c = ctx(&w, NULL);
    c.fetch = fake;
    c.fetch_ctx = &f;
    sc_error err;
    SC_EXPECT_CODE(sc_author_add(&c, SC_AUTHOR_ASSET, "demo", "https://example.invalid/a.bin",
                                 NULL, NULL, &err),
                   SC_E_DOWNLOAD_FAILED, &err);
    SC_EXPECT_CODE(sc_author_add(&c, SC_AUTHOR_ASSET, "demo", "ftp://example.invalid/a.bin",
                                 NULL, NULL, &err),
                   SC_E_USAGE, &err);
    SC_EXPECT_CODE(sc_author_add(&c, SC_AUTHOR_ASSET, "demo", "https://example.invalid/",
                                 NULL, NULL, &err),
                   SC_E_USAGE, &err);
    CU_ASSERT_EQUAL(f.calls, 1);
    char *after = slurp(w.scrolls, SCROLL_CPU);
    CU_ASSERT_STRING_EQUAL(before, after);
    free(before);
    free(after);
    sc_test_ws_free(&w);
}

static void new_scroll_needs_the_scrolls_directory(void)
{
    sc_test_ws w = sc_test_ws_new();
    CU_ASSERT_EQUAL_FATAL(rmdir(w.scrolls), 0);
    sc_error err;
    sc_new_scroll_options o = opts("demo", CPU);
    SC_EXPECT_CODE(sc_author_new_scroll(w.scrolls, &o, &err), SC_E_IO, &err);
    CU_ASSERT(!sc_is_dir(w.scrolls));
    sc_test_ws_free(&w);
}

static void remove_import_of_an_extending_scroll_drops_the_member(void)
{
    sc_test_ws w = sc_test_ws_new();
    sc_test_ws_put(&w, "demo/scroll.json",
                   "{'schemaVersion':3,'boxId':'demo','modelId':'m','runtimeId':'r',"
                   "'version':'1','sourceRevision':'x','pythonVersion':'3.11',"
                   "'pixiVersion':'0.40.0','selfTest':{'imports':['json']}}");
    sc_test_ws_put(&w, "demo/" CPU "/scroll.json",
                   "{'extends':'../scroll.json','target':{'platform':'linux','arch':"
                   "'x86_64','accelerator':'cpu'},'selfTest':{'imports':['os']}}");
    sc_author_ctx c = ctx(&w, CPU);
    sc_error err;
    CU_ASSERT_EQUAL(sc_author_remove(&c, SC_AUTHOR_IMPORT, "demo", "os", &err), SC_OK);
    sc_json *d = load_json(w.scrolls, SCROLL_CPU);
    CU_ASSERT_PTR_NULL(sc_json_get(sc_json_get(d, "selfTest"), "imports"));
    CU_ASSERT(load_ok(&w, "demo/" CPU));
    sc_json_free(d);
    sc_test_ws_free(&w);
}

static void add_asset_default_path_needs_one_model_cache(void)
{
    sc_test_ws w = ws_with_box(1);
    sc_author_ctx c = ctx(&w, CUDA);
    sc_error err;
    CU_ASSERT_EQUAL_FATAL(sc_author_edit_field(&c, "demo", "modelCacheSubdir", "cache/x", &err),
                          SC_OK);
    fake_fetch f = {"abc", 0};
    c.fetch = fake;
    c.fetch_ctx = &f;
    c.target = "all";
    SC_EXPECT_CODE(sc_author_add(&c, SC_AUTHOR_ASSET, "demo", "https://example.invalid/a.bin",
                                 NULL, NULL, &err),
                   SC_E_USAGE, &err);
    CU_ASSERT_EQUAL(f.calls, 0); /* refused before any download */
    CU_ASSERT_EQUAL(sc_author_add(&c, SC_AUTHOR_ASSET, "demo", "https://example.invalid/a.bin",
                                  "shared/a.bin", NULL, &err),
                    SC_OK);
    CU_ASSERT_EQUAL(f.calls, 1); /* once for every target */
    char *a = slurp(w.scrolls, SCROLL_CPU), *b = slurp(w.scrolls, SCROLL_CUDA);
    CU_ASSERT_PTR_NOT_NULL(strstr(a, "shared/a.bin"));
    CU_ASSERT_PTR_NOT_NULL(strstr(b, "shared/a.bin"));
    free(a);
    free(b);
    sc_test_ws_free(&w);
}

/* ---- edit scroll -------------------------------------------------------------------- */

static void edit_sets_in_place_and_inserts_by_the_member_table(void)
{
    sc_test_ws w = ws_with_box(0);
    sc_author_ctx c = ctx(&w, NULL);
    sc_error err;
    CU_ASSERT_EQUAL(sc_author_edit_field(&c, "demo", "version", "  2.0.0\n", &err), SC_OK);
    CU_ASSERT_EQUAL(sc_author_edit_field(&c, "demo", "scrollId", "s", &err), SC_OK);
    CU_ASSERT_EQUAL(sc_author_edit_field(&c, "demo", "assetBaseUrl", "https://x", &err), SC_OK);
    CU_ASSERT_EQUAL(sc_author_edit_field(&c, "demo", "weights", "embed", &err), SC_OK);
    sc_json *d = load_json(w.scrolls, SCROLL_CPU);
    char keys[512];
    keys_of(d, keys, sizeof keys);
    CU_ASSERT_STRING_EQUAL(keys, "$schema schemaVersion scrollId boxId modelId runtimeId version "
                                 "sourceRevision target pythonVersion pixiVersion assetBaseUrl "
                                 "selfTest weights");
    CU_ASSERT_STRING_EQUAL(sc_json_cstr(sc_json_get(d, "version")), "2.0.0");
    sc_json_free(d);
    sc_test_ws_free(&w);
}

static void edit_refuses_fields_that_are_not_editable(void)
{
    sc_test_ws w = ws_with_box(0);
    sc_author_ctx c = ctx(&w, NULL);
    sc_error err;
    SC_EXPECT_CODE(sc_author_edit_field(&c, "demo", "boxId", "x", &err), SC_E_USAGE, &err);
    SC_EXPECT_CODE(sc_author_edit_field(&c, "demo", "target", "x", &err), SC_E_USAGE, &err);
    SC_EXPECT_CODE(sc_author_edit_field(&c, "demo", "weights", "lazy", &err), SC_E_USAGE, &err);
    SC_EXPECT_CODE(sc_author_edit_field(&c, "demo", "version", "   ", &err), SC_E_USAGE, &err);
    CU_ASSERT(sc_author_field_editable("condaDependencyLicenseAudit"));
    CU_ASSERT(!sc_author_field_editable("selfTest"));
    sc_test_ws_free(&w);
}

static void edit_that_invalidates_the_box_is_rolled_back(void)
{
    sc_test_ws w = ws_with_box(0);
    char *before = slurp(w.scrolls, SCROLL_CPU);
    sc_author_ctx c = ctx(&w, NULL);
    sc_error err;
    /* on-demand without an asset: invalid-scroll (5.3 step 6) */
    SC_EXPECT_CODE(sc_author_edit_field(&c, "demo", "weights", "on-demand", &err),
                   SC_E_INVALID_SCROLL, &err);
    SC_EXPECT_CODE(sc_author_edit_field(&c, "demo", "modelCacheSubdir", "../x", &err),
                   SC_E_UNSAFE_PATH, &err);
    char *after = slurp(w.scrolls, SCROLL_CPU);
    CU_ASSERT_STRING_EQUAL(before, after);
    free(before);
    free(after);
    sc_test_ws_free(&w);
}

static void edit_of_a_base_is_checked_against_every_target(void)
{
    sc_test_ws w = sc_test_ws_new();
    const char *base = "{'schemaVersion':3,'boxId':'demo','modelId':'m','runtimeId':'r',"
                       "'version':'1','sourceRevision':'x','pythonVersion':'3.11',"
                       "'pixiVersion':'0.40.0','selfTest':{'imports':['json']}}";
    sc_test_ws_put(&w, "demo/scroll.json", base);
    sc_test_ws_put(&w, "demo/" CPU "/scroll.json",
                   "{'extends':'../scroll.json','target':{'platform':'linux','arch':'x86_64',"
                   "'accelerator':'cpu'},'localFiles':[{'sourcePath':'a','relativePath':'W.bin'}]}");
    sc_test_ws_put(&w, "demo/" CUDA "/scroll.json",
                   "{'extends':'../scroll.json','target':{'platform':'linux','arch':'x86_64',"
                   "'accelerator':'cuda','cudaVersion':'12.4'}}");
    sc_test_write(w.root, "w.bin", "w");
    char *before = slurp(w.scrolls, "demo/scroll.json");
    sc_author_ctx c = ctx(&w, "all");
    sc_error err;
    /* w.bin collides with the cpu target's W.bin after case folding. */
    SC_EXPECT_CODE(sc_author_add(&c, SC_AUTHOR_FILE, "demo", "w.bin", NULL, NULL, &err),
                   SC_E_ENTRY_COLLISION, &err);
    char *after = slurp(w.scrolls, "demo/scroll.json");
    CU_ASSERT_STRING_EQUAL(before, after);
    free(before);
    free(after);
    sc_test_ws_free(&w);
}

/* ---- refresh ----------------------------------------------------------------------------- */

static void refresh_reports_drift_and_writes_nothing_without_repin(void)
{
    sc_test_ws w = ws_with_box(0);
    sc_test_write(w.root, "a.txt", "one");
    sc_author_ctx c = ctx(&w, NULL);
    sc_error err;
    CU_ASSERT_EQUAL_FATAL(sc_author_add(&c, SC_AUTHOR_FILE, "demo", "a.txt", NULL, NULL, &err),
                          SC_OK);
    sc_json *rep = NULL;
    CU_ASSERT_EQUAL(sc_author_refresh(&c, "demo", 0, 0, &rep, &err), SC_OK);
    CU_ASSERT_EQUAL(sc_json_get(rep, "localFiles")->length, 0);
    sc_json_free(rep);
    sc_test_write(w.root, "a.txt", "two");
    char *before = slurp(w.scrolls, SCROLL_CPU);
    SC_EXPECT_CODE(sc_author_refresh(&c, "demo", 0, 0, &rep, &err), SC_E_LOCAL_FILE_MISMATCH,
                   &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(rep);
    CU_ASSERT_EQUAL(sc_json_get(rep, "localFiles")->length, 1);
    char *after = slurp(w.scrolls, SCROLL_CPU);
    CU_ASSERT_STRING_EQUAL(before, after);
    free(before);
    free(after);
    sc_json_free(rep);
    sc_test_ws_free(&w);
}

static void refresh_repin_rewrites_changed_pins(void)
{
    sc_test_ws w = ws_with_box(0);
    sc_test_write(w.root, "a.txt", "one");
    sc_author_ctx c = ctx(&w, NULL);
    sc_error err;
    CU_ASSERT_EQUAL_FATAL(sc_author_add(&c, SC_AUTHOR_FILE, "demo", "a.txt", NULL, NULL, &err),
                          SC_OK);
    sc_test_write(w.root, "a.txt", "two");
    CU_ASSERT_EQUAL(sc_author_refresh(&c, "demo", 1, 0, NULL, &err), SC_OK);
    sc_json *d = load_json(w.scrolls, SCROLL_CPU);
    char hex[65];
    sc_sha256_hex("two", 3, hex, &err);
    CU_ASSERT_STRING_EQUAL(
        sc_json_cstr(sc_json_get(sc_json_at(sc_json_get(d, "localFiles"), 0), "sha256")), hex);
    CU_ASSERT_EQUAL(sc_author_refresh(&c, "demo", 0, 0, NULL, &err), SC_OK);
    sc_json_free(d);
    sc_test_ws_free(&w);
}

static void refresh_missing_source_is_local_file_missing(void)
{
    sc_test_ws w = ws_with_box(0);
    sc_test_write(w.root, "a.txt", "one");
    sc_author_ctx c = ctx(&w, NULL);
    sc_error err;
    CU_ASSERT_EQUAL_FATAL(sc_author_add(&c, SC_AUTHOR_FILE, "demo", "a.txt", NULL, NULL, &err),
                          SC_OK);
    char *p = sc_path_join(w.root, "a.txt");
    unlink(p);
    free(p);
    SC_EXPECT_CODE(sc_author_refresh(&c, "demo", 1, 0, NULL, &err), SC_E_LOCAL_FILE_MISSING,
                   &err);
    sc_test_ws_free(&w);
}

static void refresh_touches_assets_only_when_asked(void)
{
    sc_test_ws w = ws_with_box(0);
    fake_fetch f = {"abc", 0};
    sc_author_ctx c = ctx(&w, NULL);
    c.fetch = fake;
    c.fetch_ctx = &f;
    sc_error err;
    CU_ASSERT_EQUAL_FATAL(sc_author_add(&c, SC_AUTHOR_ASSET, "demo",
                                        "https://example.invalid/a.bin", NULL, NULL, &err),
                          SC_OK);
    f.body = "abcd";
    CU_ASSERT_EQUAL(sc_author_refresh(&c, "demo", 0, 0, NULL, &err), SC_OK);
    CU_ASSERT_EQUAL(f.calls, 1); /* no network without check_assets */
    SC_EXPECT_CODE(sc_author_refresh(&c, "demo", 0, 1, NULL, &err), SC_E_ASSET_SIZE, &err);
    CU_ASSERT_EQUAL(sc_author_refresh(&c, "demo", 1, 1, NULL, &err), SC_OK);
    CU_ASSERT_EQUAL(sc_author_refresh(&c, "demo", 0, 1, NULL, &err), SC_OK);
    sc_json *d = load_json(w.scrolls, SCROLL_CPU);
    uint64_t size = 0;
    CU_ASSERT(sc_json_uint53(sc_json_get(sc_json_at(sc_json_get(d, "assets"), 0), "sizeBytes"),
                             &size) &&
              size == 4);
    sc_json_free(d);
    sc_test_ws_free(&w);
}

void register_author_tests(void)
{
    CU_pSuite s = CU_add_suite("author", NULL, NULL);
    if (s == NULL)
        CU_FAIL_FATAL("CU_add_suite failed");
    SC_ADD_TEST(s, new_scroll_writes_minimal_v3_scroll);
    SC_ADD_TEST(s, new_scroll_writes_pixi_toml_for_the_target);
    SC_ADD_TEST(s, new_scroll_min_flags_write_compatibility);
    SC_ADD_TEST(s, new_scroll_min_versions_must_be_dotted_numbers);
    SC_ADD_TEST(s, new_scroll_max_host_app_version_must_be_above_min);
    SC_ADD_TEST(s, new_scroll_platform_floors_only_for_their_targets);
    SC_ADD_TEST(s, new_scroll_min_ram_gb_must_be_a_positive_number);
    SC_ADD_TEST(s, new_scroll_missing_flag_is_usage_naming_it);
    SC_ADD_TEST(s, new_scroll_python_version_must_be_a_version);
    SC_ADD_TEST(s, new_scroll_existing_is_scroll_exists);
    SC_ADD_TEST(s, new_scroll_bad_target_writes_nothing);
    SC_ADD_TEST(s, new_scroll_execution_script_and_module);
    SC_ADD_TEST(s, new_scroll_leaves_no_staging_directory);
    SC_ADD_TEST(s, new_scroll_default_args_are_execution_default_args);
    SC_ADD_TEST(s, new_scroll_default_args_must_be_strings_with_execution);
    SC_ADD_TEST(s, new_scroll_generate_script_writes_and_declares_a_starter);
    SC_ADD_TEST(s, new_scroll_generate_script_never_replaces_and_leaves_nothing);
    SC_ADD_TEST(s, init_writes_config_scrolls_and_gitignore_once);
    SC_ADD_TEST(s, init_never_overwrites_and_appends_to_gitignore);
    SC_ADD_TEST(s, init_example_is_a_valid_native_scroll);
    SC_ADD_TEST(s, several_targets_need_target_flag);
    SC_ADD_TEST(s, all_edits_the_base_of_a_split_box);
    SC_ADD_TEST(s, box_must_be_one_name);
    SC_ADD_TEST(s, add_file_pins_sha256_and_lists_it_in_self_test);
    SC_ADD_TEST(s, add_file_default_path_is_base_name);
    SC_ADD_TEST(s, add_file_refuses_links_missing_and_outside_files);
    SC_ADD_TEST(s, add_env_splits_at_the_first_equals_and_replaces);
    SC_ADD_TEST(s, add_import_takes_dotted_names_once);
    SC_ADD_TEST(s, add_dep_edits_dependencies_in_place);
    SC_ADD_TEST(s, add_dep_creates_the_section_when_absent);
    SC_ADD_TEST(s, add_dep_refuses_non_conda_names_and_quoted_specs);
    SC_ADD_TEST(s, add_dep_with_several_targets_and_all_edits_each);
    SC_ADD_TEST(s, add_dep_keeps_a_real_manifest_byte_for_byte);
    SC_ADD_TEST(s, add_dep_replaces_a_dotted_entry_in_its_place);
    SC_ADD_TEST(s, add_dep_edits_dotted_and_inline_dependencies);
    SC_ADD_TEST(s, add_dep_refuses_a_table_entry_and_a_broken_manifest);
    SC_ADD_TEST(s, add_deps_is_one_edit_all_or_nothing);
    SC_ADD_TEST(s, remove_without_a_match_is_an_error);
    SC_ADD_TEST(s, remove_last_import_is_refused);
    SC_ADD_TEST(s, remove_file_and_env_restore_the_scroll);
    SC_ADD_TEST(s, add_asset_pins_size_and_sha256_under_the_model_cache);
    SC_ADD_TEST(s, add_asset_refuses_empty_bodies_and_non_http_urls);
    SC_ADD_TEST(s, new_scroll_needs_the_scrolls_directory);
    SC_ADD_TEST(s, remove_import_of_an_extending_scroll_drops_the_member);
    SC_ADD_TEST(s, add_asset_default_path_needs_one_model_cache);
    SC_ADD_TEST(s, edit_sets_in_place_and_inserts_by_the_member_table);
    SC_ADD_TEST(s, edit_refuses_fields_that_are_not_editable);
    SC_ADD_TEST(s, edit_that_invalidates_the_box_is_rolled_back);
    SC_ADD_TEST(s, edit_of_a_base_is_checked_against_every_target);
    SC_ADD_TEST(s, refresh_reports_drift_and_writes_nothing_without_repin);
    SC_ADD_TEST(s, refresh_repin_rewrites_changed_pins);
    SC_ADD_TEST(s, refresh_missing_source_is_local_file_missing);
    SC_ADD_TEST(s, refresh_touches_assets_only_when_asked);
}
