/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_gates.c — the builder's gates (docs/format-v3.md 20.5, 17.5, 16.4):
 * the self-test, the parity gate runner, the payload-unchanged check and the
 * `gates` record.  The gates run a REAL interpreter: a payload whose
 * venv/bin/python is a link to /usr/bin/python3 (tests that need it are
 * skipped, visibly, when it is missing).  The GPU probe is the real one,
 * pointed at the stand-in driver libraries of tests/fake_gpu/, or a probe
 * function handed in through the options.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "scrollcase/file.h"
#include "scrollcase/gates.h"
#include "scrollcase/json.h"
#include "scrollcase/payload.h"
#include "scrollcase/target.h"

#ifndef SC_FAKE_GPU_DIR
#define SC_FAKE_GPU_DIR "."
#endif

#define PYTHON "/usr/bin/python3"

/* ---- helpers ----------------------------------------------------------- */

typedef struct fixture {
    char *dir;     /* the test's temporary directory */
    char *payload; /* dir/payload, holding venv/bin/python -> /usr/bin/python3 */
    char *project; /* dir/project */
    sc_env_map host;
} fixture;

static int have_python(void)
{
    if (access(PYTHON, X_OK) == 0)
        return 1;
    fprintf(stderr, "\n  SKIPPED: %s is missing; the gate tests need a real interpreter\n",
            PYTHON);
    return 0;
}

static int fixture_new(fixture *f)
{
    memset(f, 0, sizeof *f);
    if (!have_python())
        return 0;
    f->dir = sc_test_tmpdir();
    CU_ASSERT_PTR_NOT_NULL_FATAL(f->dir);
    f->payload = sc_path_join(f->dir, "payload");
    f->project = sc_path_join(f->dir, "project");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f->payload);
    CU_ASSERT_PTR_NOT_NULL_FATAL(f->project);
    char link[4096];
    CU_ASSERT_EQUAL_FATAL(mkdir(f->payload, 0755), 0);
    CU_ASSERT_EQUAL_FATAL(mkdir(f->project, 0755), 0);
    snprintf(link, sizeof link, "%s/venv", f->payload);
    CU_ASSERT_EQUAL_FATAL(mkdir(link, 0755), 0);
    snprintf(link, sizeof link, "%s/venv/bin", f->payload);
    CU_ASSERT_EQUAL_FATAL(mkdir(link, 0755), 0);
    snprintf(link, sizeof link, "%s/venv/bin/python", f->payload);
    CU_ASSERT_EQUAL_FATAL(symlink(PYTHON, link), 0);
    sc_error err;
    CU_ASSERT_EQUAL_FATAL(sc_env_map_set(&f->host, "PATH", "/usr/bin:/bin", &err), SC_OK);
    return 1;
}

static void fixture_free(fixture *f)
{
    if (f->dir != NULL)
        sc_test_rmtree(f->dir);
    free(f->dir);
    free(f->payload);
    free(f->project);
    sc_env_map_free(&f->host);
}

/* A scroll from single-quoted JSON. */
static sc_json *scroll_of(const char *text)
{
    char *dq = sc_test_dq(text);
    sc_json *s = NULL;
    sc_error err;
    CU_ASSERT_EQUAL_FATAL(sc_json_parse(dq, strlen(dq), &s, &err), SC_OK);
    free(dq);
    return s;
}

/* Set selfTest.pythonCode (code may hold quotes, so it is not in the JSON). */
static void set_code(sc_json *scroll, const char *code)
{
    sc_json *st = sc_json_get(scroll, "selfTest");
    CU_ASSERT_PTR_NOT_NULL_FATAL(st);
    CU_ASSERT_EQUAL_FATAL(sc_json_object_set(st, "pythonCode", sc_json_new_string(code)), 0);
}

static sc_target target_of(const char *id)
{
    sc_target t;
    sc_error err;
    CU_ASSERT_EQUAL_FATAL(sc_target_parse_id(id, &t, &err), SC_OK);
    return t;
}

static char *slurp(const char *dir, const char *rel)
{
    char *p = sc_path_join(dir, rel);
    char *bytes = NULL;
    size_t len = 0;
    sc_error err;
    if (sc_file_read(p, &bytes, &len, NULL, &err) != SC_OK)
        bytes = NULL;
    free(p);
    return bytes;
}

static char *compact(const sc_json *v)
{
    char *text = NULL;
    size_t len = 0;
    sc_error err;
    CU_ASSERT_EQUAL_FATAL(sc_json_write_compact(v, &text, &len, &err), SC_OK);
    return text;
}

static const char *const BASE = "{'selfTest': {'imports': ['json', 'os.path'], "
                                "'files': [], 'timeoutSeconds': 60}}";

static sc_code self_test(fixture *f, const sc_json *scroll, const char *target,
                         sc_json **record, sc_error *err)
{
    sc_target t = target_of(target);
    return sc_gate_self_test(f->payload, scroll, &t, f->project, &f->host, -1, -1, record, err);
}

/* ---- the self-test ----------------------------------------------------- */

static void test_self_test_imports_that_exist_pass_and_are_recorded(void)
{
    fixture f;
    if (!fixture_new(&f))
        return;
    sc_json *s = scroll_of(BASE), *rec = NULL;
    sc_error err;
    SC_EXPECT_CODE(self_test(&f, s, "linux-x86_64-cpu", &rec, &err), SC_OK, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(rec);
    char *text = compact(rec);
    CU_ASSERT_STRING_EQUAL(text, "{\"imports\":[\"json\",\"os.path\"],\"extra\":\"none\"}");
    free(text);
    sc_json_free(rec);
    sc_json_free(s);
    fixture_free(&f);
}

static void test_self_test_missing_import_is_gate_failed(void)
{
    fixture f;
    if (!fixture_new(&f))
        return;
    sc_json *s = scroll_of("{'selfTest': {'imports': ['json', 'no_such_module_xq'], "
                           "'timeoutSeconds': 60}}");
    sc_json *rec = NULL;
    sc_error err;
    SC_EXPECT_CODE(self_test(&f, s, "linux-x86_64-cpu", &rec, &err), SC_E_GATE_FAILED, &err);
    CU_ASSERT_PTR_NULL(rec);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "exited with status 1"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "venv/bin/python"));
    sc_json_free(s);
    fixture_free(&f);
}

static void test_self_test_runs_the_target_platform_assertion(void)
{
    fixture f;
    if (!fixture_new(&f))
        return;
    /* A Windows target's assertion (sys.platform == 'win32') cannot hold
     * here; the interpreter is named explicitly so it is the same one. */
    sc_json *s = scroll_of("{'pythonEntryPoint': 'venv/bin/python', 'selfTest': "
                           "{'imports': ['json'], 'timeoutSeconds': 60}}");
    sc_error err;
    SC_EXPECT_CODE(self_test(&f, s, "windows-x86_64-cpu", NULL, &err), SC_E_GATE_FAILED, &err);
    /* and the Linux assertion holds */
    SC_EXPECT_CODE(self_test(&f, s, "linux-x86_64-cpu", NULL, &err), SC_OK, &err);
    sc_json_free(s);
    fixture_free(&f);
}

static void test_self_test_python_code_runs_after_the_imports(void)
{
    fixture f;
    if (!fixture_new(&f))
        return;
    sc_json *s = scroll_of(BASE), *rec = NULL;
    char code[8192];
    /* json was imported by the imports line; the code uses it unimported */
    snprintf(code, sizeof code, "open('%s/code-ran', 'w').write(json.dumps('yes'))", f.dir);
    set_code(s, code);
    sc_error err;
    SC_EXPECT_CODE(self_test(&f, s, "linux-x86_64-cpu", &rec, &err), SC_OK, &err);
    char *out = slurp(f.dir, "code-ran");
    CU_ASSERT_PTR_NOT_NULL_FATAL(out);
    CU_ASSERT_STRING_EQUAL(out, "\"yes\"");
    free(out);
    CU_ASSERT_STRING_EQUAL(sc_json_cstr(sc_json_get(rec, "extra")), "pythonCode");
    sc_json_free(rec);
    /* a failing pythonCode fails the gate with its status */
    set_code(s, "raise SystemExit(3)");
    SC_EXPECT_CODE(self_test(&f, s, "linux-x86_64-cpu", &rec, &err), SC_E_GATE_FAILED, &err);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "status 3"));
    CU_ASSERT_PTR_NULL(rec);
    sc_json_free(s);
    fixture_free(&f);
}

static void test_self_test_python_file_is_read_from_the_project_root(void)
{
    fixture f;
    if (!fixture_new(&f))
        return;
    char code[8192];
    snprintf(code, sizeof code, "import os\nopen('%s/file-ran', 'w').write(os.getcwd())\n",
             f.dir);
    sc_test_write(f.project, "checks/self_test.py", code);
    sc_json *s = scroll_of("{'selfTest': {'imports': ['json'], 'pythonFile': "
                           "'checks/self_test.py', 'timeoutSeconds': 60}}");
    sc_json *rec = NULL;
    sc_error err;
    SC_EXPECT_CODE(self_test(&f, s, "linux-x86_64-cpu", &rec, &err), SC_OK, &err);
    char *out = slurp(f.dir, "file-ran");
    CU_ASSERT_PTR_NOT_NULL_FATAL(out);
    /* it ran in the payload root */
    char real[4096];
    CU_ASSERT_PTR_NOT_NULL_FATAL(realpath(f.payload, real));
    CU_ASSERT_STRING_EQUAL(out, real);
    free(out);
    CU_ASSERT_STRING_EQUAL(sc_json_cstr(sc_json_get(rec, "extra")), "pythonFile");
    sc_json_free(rec);
    sc_json_free(s);
    fixture_free(&f);
}

static void test_self_test_missing_python_file_is_local_file_missing(void)
{
    fixture f;
    if (!fixture_new(&f))
        return;
    sc_json *s = scroll_of("{'selfTest': {'imports': ['json'], 'pythonFile': "
                           "'checks/absent.py', 'timeoutSeconds': 60}}");
    sc_json *rec = NULL;
    sc_error err;
    SC_EXPECT_CODE(self_test(&f, s, "linux-x86_64-cpu", &rec, &err), SC_E_LOCAL_FILE_MISSING,
                   &err);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "checks/absent.py"));
    CU_ASSERT_PTR_NULL(rec);
    sc_json_free(s);
    fixture_free(&f);
}

static void test_self_test_past_its_time_limit_is_timeout(void)
{
    fixture f;
    if (!fixture_new(&f))
        return;
    sc_json *s = scroll_of("{'selfTest': {'imports': ['json'], 'timeoutSeconds': 1}}");
    set_code(s, "while True: pass");
    sc_error err;
    SC_EXPECT_CODE(self_test(&f, s, "linux-x86_64-cpu", NULL, &err), SC_E_TIMEOUT, &err);
    sc_json_free(s);
    fixture_free(&f);
}

static void test_self_test_interpreter_that_cannot_start_is_spawn_failure(void)
{
    fixture f;
    if (!fixture_new(&f))
        return;
    sc_json *s = scroll_of("{'pythonEntryPoint': 'venv/bin/absent-python', 'selfTest': "
                           "{'imports': ['json'], 'timeoutSeconds': 60}}");
    sc_error err;
    SC_EXPECT_CODE(self_test(&f, s, "linux-x86_64-cpu", NULL, &err), SC_E_SPAWN_FAILURE, &err);
    sc_json_free(s);
    fixture_free(&f);
}

/* Dump the child's environment as JSON to <dir>/<name>. */
static void set_env_dump(sc_json *s, const char *dir, const char *name)
{
    char code[8192];
    snprintf(code, sizeof code,
             "import os\nopen('%s/%s', 'w').write(json.dumps(dict(os.environ), "
             "sort_keys=True))",
             dir, name);
    set_code(s, code);
}

static sc_json *env_dump(const char *dir, const char *name)
{
    char *text = slurp(dir, name);
    CU_ASSERT_PTR_NOT_NULL_FATAL(text);
    sc_json *j = NULL;
    sc_error err;
    CU_ASSERT_EQUAL_FATAL(sc_json_parse(text, strlen(text), &j, &err), SC_OK);
    free(text);
    return j;
}

static void test_self_test_environment_is_sanitised_host_then_scroll_then_validation(void)
{
    fixture f;
    if (!fixture_new(&f))
        return;
    sc_error err;
    CU_ASSERT_EQUAL_FATAL(sc_env_map_set(&f.host, "PYTHONPATH", "/nonexistent/evil", &err), SC_OK);
    CU_ASSERT_EQUAL_FATAL(sc_env_map_set(&f.host, "LD_PRELOAD", "/nonexistent/evil.so", &err),
                          SC_OK);
    CU_ASSERT_EQUAL_FATAL(sc_env_map_set(&f.host, "PYTHONSTARTUP", "/nonexistent/s.py", &err),
                          SC_OK);
    CU_ASSERT_EQUAL_FATAL(sc_env_map_set(&f.host, "GATE_HOST_ONLY", "host", &err), SC_OK);
    CU_ASSERT_EQUAL_FATAL(sc_env_map_set(&f.host, "GATE_BOTH", "host", &err), SC_OK);
    CU_ASSERT_EQUAL_FATAL(sc_env_map_set(&f.host, "CUDA_VISIBLE_DEVICES", "7", &err), SC_OK);
    sc_json *s = scroll_of("{'environment': {'GATE_BOTH': 'scroll', 'GATE_SCROLL_ONLY': 's', "
                           "'CUDA_VISIBLE_DEVICES': '3'}, "
                           "'selfTest': {'imports': ['json'], 'timeoutSeconds': 60}}");
    set_env_dump(s, f.dir, "env.json");
    SC_EXPECT_CODE(self_test(&f, s, "linux-x86_64-cpu", NULL, &err), SC_OK, &err);
    sc_json *e = env_dump(f.dir, "env.json");
    CU_ASSERT_PTR_NULL(sc_json_get(e, "PYTHONPATH"));
    CU_ASSERT_PTR_NULL(sc_json_get(e, "LD_PRELOAD"));
    CU_ASSERT_PTR_NULL(sc_json_get(e, "PYTHONSTARTUP"));
    CU_ASSERT_STRING_EQUAL(sc_json_cstr(sc_json_get(e, "GATE_HOST_ONLY")), "host");
    CU_ASSERT_STRING_EQUAL(sc_json_cstr(sc_json_get(e, "GATE_BOTH")), "scroll");
    CU_ASSERT_STRING_EQUAL(sc_json_cstr(sc_json_get(e, "GATE_SCROLL_ONLY")), "s");
    /* the cpu validation environment wins over both */
    CU_ASSERT_STRING_EQUAL(sc_json_cstr(sc_json_get(e, "CUDA_VISIBLE_DEVICES")), "");
    sc_json_free(e);
    /* a CUDA target's self-test runs under CUDA_VISIBLE_DEVICES=0 */
    SC_EXPECT_CODE(self_test(&f, s, "linux-x86_64-cuda12.4", NULL, &err), SC_OK, &err);
    e = env_dump(f.dir, "env.json");
    CU_ASSERT_STRING_EQUAL(sc_json_cstr(sc_json_get(e, "CUDA_VISIBLE_DEVICES")), "0");
    sc_json_free(e);
    sc_json_free(s);
    fixture_free(&f);
}

static void test_self_test_bad_scroll_environment_is_invalid_environment(void)
{
    fixture f;
    if (!fixture_new(&f))
        return;
    sc_json *s = scroll_of("{'environment': {'A=B': 'x'}, "
                           "'selfTest': {'imports': ['json'], 'timeoutSeconds': 60}}");
    sc_error err;
    SC_EXPECT_CODE(self_test(&f, s, "linux-x86_64-cpu", NULL, &err), SC_E_INVALID_ENVIRONMENT,
                   &err);
    sc_json_free(s);
    fixture_free(&f);
}

/* ---- the parity gate --------------------------------------------------- */

/* A parity script printing by CUDA_VISIBLE_DEVICES ("" = cpu, "0" = cuda,
 * else by PYTORCH_ENABLE_MPS_FALLBACK = metal).  Each run appends its
 * accelerator to <dir>/runs so tests can see what ran.  It exits 9 when an
 * execution-affecting host variable reached it. */
static void write_parity_script(fixture *f, const char *cpu, const char *cuda, const char *metal)
{
    char text[16384];
    snprintf(text, sizeof text,
             "import os, sys\n"
             "if 'PYTHONPATH' in os.environ or 'LD_PRELOAD' in os.environ:\n"
             "    sys.exit(9)\n"
             "d = os.environ.get('CUDA_VISIBLE_DEVICES')\n"
             "acc = 'metal' if os.environ.get('PYTORCH_ENABLE_MPS_FALLBACK') == '0' else "
             "('cpu' if d == '' else 'cuda' if d == '0' else 'other')\n"
             "open('%s/runs', 'a').write(acc + '\\n')\n"
             "out = {'cpu': r'''%s''', 'cuda': r'''%s''', 'metal': r'''%s'''}.get(acc)\n"
             "if out is None or out == 'FAIL':\n"
             "    sys.stderr.write('no output for ' + acc + '\\n')\n"
             "    sys.exit(4)\n"
             "if out == 'HANG':\n"
             "    while True: pass\n"
             "print(out)\n",
             f->dir, cpu, cuda, metal);
    sc_test_write(f->payload, "checks/parity.py", text);
}

static const char *const PARITY_SCROLL =
    "{'selfTest': {'imports': ['json'], 'timeoutSeconds': 60}, "
    "'parity': {'script': 'checks/parity.py', 'accelerators': ['cpu', 'cuda'], "
    "'tolerances': {'absolute': 0.001, 'minimumCosine': 0.99}}}";

/* The real probe, pointed at the stand-in libraries. */
static sc_gpu_probe_options fake_ok_libs(char *c, char *n, size_t size)
{
    snprintf(c, size, "%s/fake_cuda_ok.so", SC_FAKE_GPU_DIR);
    snprintf(n, size, "%s/fake_nvml.so", SC_FAKE_GPU_DIR);
    sc_gpu_probe_options o = {c, n};
    return o;
}

static sc_code parity_with_gpu(fixture *f, const char *scroll_text, const char *target,
                               sc_json **rec, sc_json **host, sc_error *err)
{
    char c[2048], n[2048];
    sc_gpu_probe_options po = fake_ok_libs(c, n, sizeof c);
    sc_gate_parity_options o;
    memset(&o, 0, sizeof o);
    o.probe_options = &po;
    o.stderr_fd = -1;
    sc_json *s = scroll_of(scroll_text);
    sc_target t = target_of(target);
    sc_code rc = sc_gate_parity_ex(f->payload, s, &t, &f->host, 30, &o, rec, host, err);
    sc_json_free(s);
    return rc;
}

static void test_parity_without_parity_member_records_nothing(void)
{
    fixture f;
    if (!fixture_new(&f))
        return;
    sc_json *s = scroll_of(BASE), *rec = NULL, *host = NULL;
    sc_target t = target_of("linux-x86_64-cpu");
    sc_error err;
    SC_EXPECT_CODE(sc_gate_parity(f.payload, s, &t, &f.host, 0, &rec, &host, &err), SC_OK, &err);
    CU_ASSERT_PTR_NULL(rec);
    CU_ASSERT_PTR_NULL(host);
    sc_json_free(s);
    fixture_free(&f);
}

static void test_parity_cuda_on_a_host_without_gpu_is_accelerator_unavailable(void)
{
    fixture f;
    if (!fixture_new(&f))
        return;
    write_parity_script(&f, "[1, 2, 3]", "[1, 2, 3]", "");
    sc_gpu_probe_options po = {"/nonexistent/libcuda.so.1", "/nonexistent/libnvidia-ml.so.1"};
    sc_gate_parity_options o;
    memset(&o, 0, sizeof o);
    o.probe_options = &po;
    sc_json *s = scroll_of(PARITY_SCROLL), *rec = NULL, *host = NULL;
    sc_target t = target_of("linux-x86_64-cuda12.4");
    sc_error err;
    SC_EXPECT_CODE(sc_gate_parity_ex(f.payload, s, &t, &f.host, 30, &o, &rec, &host, &err),
                   SC_E_ACCELERATOR_UNAVAILABLE, &err);
    CU_ASSERT_PTR_NULL(rec);
    CU_ASSERT_PTR_NULL(host);
    /* refused before anything ran: no silent CPU run */
    char *runs = slurp(f.dir, "runs");
    CU_ASSERT_PTR_NULL(runs);
    free(runs);
    sc_json_free(s);
    fixture_free(&f);
}

/* The plain entry point asks the real probe of this host: without a usable
 * GPU (the usual CI host) a (cpu, cuda) gate is accelerator-unavailable and
 * nothing runs; with one, both runs happen and gates.host is recorded. */
static void test_parity_default_probe_follows_this_host(void)
{
    fixture f;
    if (!fixture_new(&f))
        return;
    write_parity_script(&f, "[1, 2, 3]", "[1, 2, 3]", "");
    sc_gpu_facts facts;
    sc_error err;
    int usable = sc_gpu_probe(NULL, &facts, &err) == SC_OK;
    sc_gpu_facts_free(&facts);
    sc_json *s = scroll_of(PARITY_SCROLL), *rec = NULL, *host = NULL;
    sc_target t = target_of("linux-x86_64-cuda12.4");
    sc_code c = sc_gate_parity(f.payload, s, &t, &f.host, 30, &rec, &host, &err);
    char *runs = slurp(f.dir, "runs");
    if (usable) {
        SC_EXPECT_CODE(c, SC_OK, &err);
        CU_ASSERT_PTR_NOT_NULL(host);
        CU_ASSERT_PTR_NOT_NULL(runs);
    } else {
        SC_EXPECT_CODE(c, SC_E_ACCELERATOR_UNAVAILABLE, &err);
        CU_ASSERT_PTR_NULL(runs);
    }
    free(runs);
    sc_json_free(rec);
    sc_json_free(host);
    sc_json_free(s);
    fixture_free(&f);
}

/* ---- progress of the gates (progress.h) ------------------------------------------ */

typedef struct gate_events {
    sc_progress_event ev[64]; /* item pointers not kept */
    size_t n;
} gate_events;

static void hear(void *ctx, const sc_progress_event *e)
{
    gate_events *g = ctx;
    if (g->n < sizeof g->ev / sizeof g->ev[0]) {
        g->ev[g->n] = *e;
        g->ev[g->n].item = NULL;
        g->n++;
    }
}

/* One step's events: runs 0 first, one finished event, last, every run done,
 * each event carrying the run's time limit and no bytes. */
static void expect_runs(const gate_events *g, const char *step, uint64_t runs, uint64_t limit_ms)
{
    CU_ASSERT_TRUE_FATAL(g->n >= 2);
    CU_ASSERT_EQUAL(g->ev[0].files_done, 0);
    size_t finished = 0;
    for (size_t i = 0; i < g->n; i++) {
        CU_ASSERT_STRING_EQUAL(g->ev[i].step, step);
        CU_ASSERT_EQUAL(g->ev[i].files_total, runs);
        CU_ASSERT_EQUAL(g->ev[i].limit_ms, limit_ms);
        CU_ASSERT_EQUAL(g->ev[i].bytes_total, 0);
        finished += g->ev[i].finished != 0;
    }
    CU_ASSERT_EQUAL(finished, 1);
    CU_ASSERT_TRUE(g->ev[g->n - 1].finished);
    CU_ASSERT_EQUAL(g->ev[g->n - 1].files_done, runs);
}

static void test_parity_progress_counts_the_runs_against_their_limit(void)
{
    fixture f;
    if (!fixture_new(&f))
        return;
    write_parity_script(&f, "[1, 2, 3]", "[1, 2, 3]", "");
    char c[2048], n[2048];
    sc_gpu_probe_options po = fake_ok_libs(c, n, sizeof c);
    static gate_events g;
    memset(&g, 0, sizeof g);
    sc_gate_parity_options o;
    memset(&o, 0, sizeof o);
    o.probe_options = &po;
    o.stderr_fd = -1;
    o.progress = hear;
    o.progress_ctx = &g;
    sc_json *s = scroll_of(PARITY_SCROLL), *rec = NULL, *host = NULL;
    sc_target t = target_of("linux-x86_64-cuda12.4");
    sc_error err;
    SC_EXPECT_CODE(sc_gate_parity_ex(f.payload, s, &t, &f.host, 30, &o, &rec, &host, &err),
                   SC_OK, &err);
    expect_runs(&g, "parity", 2, 30000); /* cpu, then cuda: 1 of 2 after the first */
    int saw_one_of_two = 0;
    for (size_t i = 0; i < g.n; i++)
        saw_one_of_two |= g.ev[i].files_done == 1 && !g.ev[i].finished;
    CU_ASSERT_TRUE(saw_one_of_two);
    sc_json_free(rec);
    sc_json_free(host);
    sc_json_free(s);
    fixture_free(&f);
}

static void test_self_test_progress_is_one_run_and_none_finished_on_failure(void)
{
    fixture f;
    if (!fixture_new(&f))
        return;
    static gate_events g;
    memset(&g, 0, sizeof g);
    sc_json *s = scroll_of(BASE);
    sc_target t = target_of("linux-x86_64-cpu");
    sc_error err;
    SC_EXPECT_CODE(sc_gate_self_test_with(f.payload, s, &t, f.project, &f.host, -1, -1, hear, &g,
                                          NULL, &err),
                   SC_OK, &err);
    expect_runs(&g, "self-test", 1, 60000); /* BASE: timeoutSeconds 60 */
    sc_json_free(s);
    s = scroll_of("{'selfTest': {'imports': ['no_such_module_xq'], 'timeoutSeconds': 60}}");
    memset(&g, 0, sizeof g);
    SC_EXPECT_CODE(sc_gate_self_test_with(f.payload, s, &t, f.project, &f.host, -1, -1, hear, &g,
                                          NULL, &err),
                   SC_E_GATE_FAILED, &err);
    CU_ASSERT_TRUE(g.n >= 1);
    for (size_t i = 0; i < g.n; i++)
        CU_ASSERT_FALSE(g.ev[i].finished);
    sc_json_free(s);
    fixture_free(&f);
}

static int probe_calls;

static sc_code probe_absent(void *ctx, sc_gpu_facts *facts, sc_error *err)
{
    (void)ctx;
    probe_calls++;
    memset(facts, 0, sizeof *facts);
    facts->status = SC_GPU_ABSENT;
    snprintf(facts->reason, sizeof facts->reason, "no-device");
    return sc_error_set(err, SC_E_ACCELERATOR_UNAVAILABLE, "", "no CUDA device: no-device");
}

static void test_parity_asks_the_injected_probe_before_any_run(void)
{
    fixture f;
    if (!fixture_new(&f))
        return;
    write_parity_script(&f, "[1, 2, 3]", "[1, 2, 3]", "");
    sc_gate_parity_options o;
    memset(&o, 0, sizeof o);
    o.probe = probe_absent;
    probe_calls = 0;
    sc_json *s = scroll_of(PARITY_SCROLL), *rec = NULL, *host = NULL;
    sc_target t = target_of("linux-x86_64-cpu");
    sc_error err;
    SC_EXPECT_CODE(sc_gate_parity_ex(f.payload, s, &t, &f.host, 30, &o, &rec, &host, &err),
                   SC_E_ACCELERATOR_UNAVAILABLE, &err);
    CU_ASSERT_EQUAL(probe_calls, 1);
    char *runs = slurp(f.dir, "runs");
    CU_ASSERT_PTR_NULL(runs);
    free(runs);
    sc_json_free(s);
    fixture_free(&f);
}

static void test_parity_within_tolerance_records_measurements_and_host(void)
{
    fixture f;
    if (!fixture_new(&f))
        return;
    write_parity_script(&f, "[1.0, 2.0, 4.0]", "{\"values\": [1.0, 2.0005, 4.0]}", "");
    sc_error err;
    CU_ASSERT_EQUAL_FATAL(sc_env_map_set(&f.host, "CUDA_VISIBLE_DEVICES", "5", &err), SC_OK);
    sc_json *rec = NULL, *host = NULL;
    SC_EXPECT_CODE(parity_with_gpu(&f, PARITY_SCROLL, "linux-x86_64-cuda12.4", &rec, &host, &err),
                   SC_OK, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(rec);
    CU_ASSERT_PTR_NOT_NULL_FATAL(host);
    CU_ASSERT_STRING_EQUAL(sc_json_cstr(sc_json_get(rec, "reference")), "cpu");
    uint64_t count = 0;
    CU_ASSERT(sc_json_uint53(sc_json_get(rec, "valueCount"), &count) && count == 3);
    const sc_json *cmp = sc_json_at(sc_json_get(rec, "comparisons"), 0);
    CU_ASSERT_STRING_EQUAL(sc_json_cstr(sc_json_get(cmp, "accelerator")), "cuda");
    double abs_err = sc_json_get(cmp, "maximumAbsoluteError")->number;
    CU_ASSERT(abs_err > 0.00049 && abs_err < 0.00051);
    CU_ASSERT_STRING_EQUAL(sc_json_cstr(sc_json_get(host, "nvidiaDriverVersion")), "550.54.15");
    CU_ASSERT_STRING_EQUAL(
        sc_json_cstr(sc_json_get(sc_json_at(sc_json_get(host, "gpus"), 0), "name")),
        "Fake GPU Zero");
    /* each accelerator ran once, in declaration order, under its own
     * validation environment (the host's CUDA_VISIBLE_DEVICES did not win) */
    char *runs = slurp(f.dir, "runs");
    CU_ASSERT_PTR_NOT_NULL_FATAL(runs);
    CU_ASSERT_STRING_EQUAL(runs, "cpu\ncuda\n");
    free(runs);
    sc_json_free(rec);
    sc_json_free(host);
    fixture_free(&f);
}

static void test_parity_drift_past_a_bound_is_parity_breach(void)
{
    fixture f;
    if (!fixture_new(&f))
        return;
    write_parity_script(&f, "[1.0, 2.0, 4.0]", "[1.0, 2.5, 4.0]", "");
    sc_json *rec = NULL, *host = NULL;
    sc_error err;
    SC_EXPECT_CODE(parity_with_gpu(&f, PARITY_SCROLL, "linux-x86_64-cuda12.4", &rec, &host, &err),
                   SC_E_PARITY_BREACH, &err);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "cpu vs cuda"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "absolute"));
    CU_ASSERT_PTR_NULL(rec);
    CU_ASSERT_PTR_NULL(host);
    fixture_free(&f);
}

static void test_parity_non_finite_output_is_parity_non_finite(void)
{
    fixture f;
    if (!fixture_new(&f))
        return;
    write_parity_script(&f, "[1.0, 2.0]", "[1.0, \"0x7ff0000000000000\"]", "");
    sc_json *rec = NULL, *host = NULL;
    sc_error err;
    SC_EXPECT_CODE(parity_with_gpu(&f, PARITY_SCROLL, "linux-x86_64-cuda12.4", &rec, &host, &err),
                   SC_E_PARITY_NON_FINITE, &err);
    CU_ASSERT_PTR_NULL(rec);
    fixture_free(&f);
}

static void test_parity_outputs_of_different_lengths_are_parity_length_mismatch(void)
{
    fixture f;
    if (!fixture_new(&f))
        return;
    write_parity_script(&f, "[1.0, 2.0, 3.0]", "[1.0, 2.0]", "");
    sc_json *rec = NULL, *host = NULL;
    sc_error err;
    SC_EXPECT_CODE(parity_with_gpu(&f, PARITY_SCROLL, "linux-x86_64-cuda12.4", &rec, &host, &err),
                   SC_E_PARITY_LENGTH_MISMATCH, &err);
    fixture_free(&f);
}

static void test_parity_output_that_is_not_json_is_refused(void)
{
    fixture f;
    if (!fixture_new(&f))
        return;
    write_parity_script(&f, "[1.0, 2.0]", "NaN", "");
    sc_json *rec = NULL, *host = NULL;
    sc_error err;
    SC_EXPECT_CODE(parity_with_gpu(&f, PARITY_SCROLL, "linux-x86_64-cuda12.4", &rec, &host, &err),
                   SC_E_INVALID_JSON, &err);
    fixture_free(&f);
}

static void test_parity_run_that_fails_is_gate_failed(void)
{
    fixture f;
    if (!fixture_new(&f))
        return;
    write_parity_script(&f, "[1.0, 2.0]", "FAIL", "");
    sc_json *rec = NULL, *host = NULL;
    sc_error err;
    SC_EXPECT_CODE(parity_with_gpu(&f, PARITY_SCROLL, "linux-x86_64-cuda12.4", &rec, &host, &err),
                   SC_E_GATE_FAILED, &err);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "status 4"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "cuda"));
    fixture_free(&f);
}

static void test_parity_run_past_its_time_limit_is_timeout(void)
{
    fixture f;
    if (!fixture_new(&f))
        return;
    write_parity_script(&f, "HANG", "[1]", "");
    char c[2048], n[2048];
    sc_gpu_probe_options po = fake_ok_libs(c, n, sizeof c);
    sc_gate_parity_options o;
    memset(&o, 0, sizeof o);
    o.probe_options = &po;
    sc_json *s = scroll_of(PARITY_SCROLL), *rec = NULL, *host = NULL;
    sc_target t = target_of("linux-x86_64-cuda12.4");
    sc_error err;
    SC_EXPECT_CODE(sc_gate_parity_ex(f.payload, s, &t, &f.host, 1, &o, &rec, &host, &err),
                   SC_E_TIMEOUT, &err);
    sc_json_free(s);
    fixture_free(&f);
}

static void test_parity_sanitises_the_host_environment(void)
{
    fixture f;
    if (!fixture_new(&f))
        return;
    write_parity_script(&f, "[1.0]", "[1.0]", "");
    sc_error err;
    CU_ASSERT_EQUAL_FATAL(sc_env_map_set(&f.host, "PYTHONPATH", "/nonexistent", &err), SC_OK);
    CU_ASSERT_EQUAL_FATAL(sc_env_map_set(&f.host, "LD_PRELOAD", "/nonexistent.so", &err), SC_OK);
    sc_json *rec = NULL, *host = NULL;
    /* the script exits 9 if either variable reaches it */
    SC_EXPECT_CODE(parity_with_gpu(&f, PARITY_SCROLL, "linux-x86_64-cuda12.4", &rec, &host, &err),
                   SC_OK, &err);
    sc_json_free(rec);
    sc_json_free(host);
    fixture_free(&f);
}

static void test_parity_cpu_and_metal_on_macos_need_no_gpu_probe(void)
{
    fixture f;
    if (!fixture_new(&f))
        return;
    write_parity_script(&f, "[1.0, 0.0]", "FAIL", "[1.0, 0.0005]");
    sc_gate_parity_options o;
    memset(&o, 0, sizeof o);
    o.probe = probe_absent;
    probe_calls = 0;
    sc_json *s = scroll_of("{'selfTest': {'imports': ['json'], 'timeoutSeconds': 60}, "
                           "'parity': {'script': 'checks/parity.py', "
                           "'accelerators': ['cpu', 'metal'], "
                           "'tolerances': {'absolute': 0.001}}}");
    sc_json *rec = NULL, *host = NULL;
    sc_target t = target_of("macos-aarch64-metal");
    sc_error err;
    SC_EXPECT_CODE(sc_gate_parity_ex(f.payload, s, &t, &f.host, 30, &o, &rec, &host, &err),
                   SC_OK, &err);
    CU_ASSERT_EQUAL(probe_calls, 0);
    CU_ASSERT_PTR_NOT_NULL(rec);
    CU_ASSERT_PTR_NULL(host);
    char *runs = slurp(f.dir, "runs");
    CU_ASSERT_PTR_NOT_NULL_FATAL(runs);
    CU_ASSERT_STRING_EQUAL(runs, "cpu\nmetal\n");
    free(runs);
    sc_json_free(rec);
    sc_json_free(s);
    fixture_free(&f);
}

static void test_parity_accelerator_without_validation_environment_is_invalid_scroll(void)
{
    fixture f;
    if (!fixture_new(&f))
        return;
    write_parity_script(&f, "[1.0]", "[1.0]", "[1.0]");
    sc_json *s = scroll_of("{'selfTest': {'imports': ['json'], 'timeoutSeconds': 60}, "
                           "'parity': {'script': 'checks/parity.py', "
                           "'accelerators': ['cpu', 'metal'], "
                           "'tolerances': {'absolute': 0.001}}}");
    sc_json *rec = NULL, *host = NULL;
    sc_target t = target_of("linux-x86_64-cpu");
    sc_error err;
    SC_EXPECT_CODE(sc_gate_parity(f.payload, s, &t, &f.host, 30, &rec, &host, &err),
                   SC_E_INVALID_SCROLL, &err);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "metal"));
    char *runs = slurp(f.dir, "runs");
    CU_ASSERT_PTR_NULL(runs);
    free(runs);
    sc_json_free(s);
    fixture_free(&f);
}

/* ---- the payload must not change ---------------------------------------- */

typedef struct snap {
    char *dir;
    sc_payload_list before;
    char hex[65];
} snap;

static void snap_new(snap *s)
{
    memset(s, 0, sizeof *s);
    s->dir = sc_test_tmpdir();
    CU_ASSERT_PTR_NOT_NULL_FATAL(s->dir);
    sc_test_write(s->dir, "venv/lib/mod.py", "x = 1\n");
    sc_test_write(s->dir, "model/weights.bin", "weights");
    sc_error err;
    CU_ASSERT_EQUAL_FATAL(sc_gate_payload_snapshot(s->dir, &s->before, s->hex, &err), SC_OK);
}

static void snap_free(snap *s)
{
    sc_payload_list_free(&s->before);
    sc_test_rmtree(s->dir);
    free(s->dir);
}

static void test_payload_untouched_by_the_gates_passes(void)
{
    snap s;
    snap_new(&s);
    sc_error err;
    SC_EXPECT_CODE(sc_gate_payload_unchanged_list(s.dir, &s.before, &err), SC_OK, &err);
    SC_EXPECT_CODE(sc_gate_payload_unchanged(s.dir, s.hex, &err), SC_OK, &err);
    snap_free(&s);
}

static void test_payload_file_created_by_a_gate_is_gate_modified_payload(void)
{
    snap s;
    snap_new(&s);
    sc_test_write(s.dir, "venv/lib/new.txt", "new");
    sc_error err;
    SC_EXPECT_CODE(sc_gate_payload_unchanged_list(s.dir, &s.before, &err),
                   SC_E_GATE_MODIFIED_PAYLOAD, &err);
    CU_ASSERT_STRING_EQUAL(err.path, "venv/lib/new.txt");
    SC_EXPECT_CODE(sc_gate_payload_unchanged(s.dir, s.hex, &err), SC_E_GATE_MODIFIED_PAYLOAD,
                   &err);
    snap_free(&s);
}

static void test_payload_file_changed_by_a_gate_is_gate_modified_payload(void)
{
    snap s;
    snap_new(&s);
    sc_test_write(s.dir, "model/weights.bin", "weightz");
    sc_error err;
    SC_EXPECT_CODE(sc_gate_payload_unchanged_list(s.dir, &s.before, &err),
                   SC_E_GATE_MODIFIED_PAYLOAD, &err);
    CU_ASSERT_STRING_EQUAL(err.path, "model/weights.bin");
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "changed"));
    snap_free(&s);
}

static void test_payload_change_after_a_settled_snapshot_is_gate_modified_payload(void)
{
    /* The snapshot's digests are reused for files whose stamp did not move;
     * a gate's write, even of the same size long after the file was made,
     * moves ctime, so the file is read again and the change caught. */
    snap s;
    memset(&s, 0, sizeof s);
    s.dir = sc_test_tmpdir();
    CU_ASSERT_PTR_NOT_NULL_FATAL(s.dir);
    sc_test_write(s.dir, "venv/lib/mod.py", "x = 1\n");
    sc_test_write(s.dir, "model/weights.bin", "weights");
    struct timespec t = {0, (long)SC_PAYLOAD_RACY_NS + 30000000L};
    while (nanosleep(&t, &t) != 0)
        ;
    sc_error err;
    CU_ASSERT_EQUAL_FATAL(sc_gate_payload_snapshot_with(s.dir, 2, NULL, NULL, NULL, NULL, &s.before, s.hex, &err), SC_OK);
    sc_payload_list after;
    SC_EXPECT_CODE(sc_gate_payload_recheck(s.dir, &s.before, 2, NULL, NULL, &after, &err), SC_OK, &err);
    CU_ASSERT_EQUAL(after.count, 2);
    sc_payload_list_free(&after);
    sc_test_write(s.dir, "model/weights.bin", "weightz");
    SC_EXPECT_CODE(sc_gate_payload_recheck(s.dir, &s.before, 2, NULL, NULL, &after, &err),
                   SC_E_GATE_MODIFIED_PAYLOAD, &err);
    CU_ASSERT_STRING_EQUAL(err.path, "model/weights.bin");
    CU_ASSERT_EQUAL(after.count, 0);
    snap_free(&s);
}

static void test_payload_file_removed_by_a_gate_is_gate_modified_payload(void)
{
    snap s;
    snap_new(&s);
    char *p = sc_path_join(s.dir, "venv/lib/mod.py");
    CU_ASSERT_EQUAL_FATAL(unlink(p), 0);
    free(p);
    sc_error err;
    SC_EXPECT_CODE(sc_gate_payload_unchanged_list(s.dir, &s.before, &err),
                   SC_E_GATE_MODIFIED_PAYLOAD, &err);
    CU_ASSERT_STRING_EQUAL(err.path, "venv/lib/mod.py");
    snap_free(&s);
}

static void test_payload_pycache_and_pyc_written_by_a_gate_are_ignored(void)
{
    snap s;
    snap_new(&s);
    sc_test_write(s.dir, "venv/lib/__pycache__/mod.cpython-311.pyc", "bytecode");
    sc_test_write(s.dir, "venv/lib/legacy.pyc", "bytecode");
    sc_error err;
    SC_EXPECT_CODE(sc_gate_payload_unchanged_list(s.dir, &s.before, &err), SC_OK, &err);
    SC_EXPECT_CODE(sc_gate_payload_unchanged(s.dir, s.hex, &err), SC_OK, &err);
    snap_free(&s);
}

static void test_payload_digest_check_names_the_path_from_the_written_list(void)
{
    snap s;
    snap_new(&s);
    char hex[65];
    sc_error err;
    CU_ASSERT_EQUAL_FATAL(sc_payload_write_list(s.dir, &s.before, hex, &err), SC_OK);
    CU_ASSERT_STRING_EQUAL(hex, s.hex);
    sc_test_write(s.dir, "model/weights.bin", "weightz");
    SC_EXPECT_CODE(sc_gate_payload_unchanged(s.dir, s.hex, &err), SC_E_GATE_MODIFIED_PAYLOAD,
                   &err);
    CU_ASSERT_STRING_EQUAL(err.path, "model/weights.bin");
    SC_EXPECT_CODE(sc_gate_payload_unchanged(s.dir, "ABC", &err), SC_E_USAGE, &err);
    snap_free(&s);
}

static void test_real_self_test_leaves_the_payload_unchanged(void)
{
    fixture f;
    if (!fixture_new(&f))
        return;
    sc_payload_list before;
    memset(&before, 0, sizeof before);
    char hex[65];
    sc_error err;
    CU_ASSERT_EQUAL_FATAL(sc_gate_payload_snapshot(f.payload, &before, hex, &err), SC_OK);
    sc_json *s = scroll_of(BASE);
    SC_EXPECT_CODE(self_test(&f, s, "linux-x86_64-cpu", NULL, &err), SC_OK, &err);
    SC_EXPECT_CODE(sc_gate_payload_unchanged_list(f.payload, &before, &err), SC_OK, &err);
    /* a self-test that writes into the payload is caught */
    set_code(s, "open('written-by-gate.txt', 'w').write('x')");
    SC_EXPECT_CODE(self_test(&f, s, "linux-x86_64-cpu", NULL, &err), SC_OK, &err);
    SC_EXPECT_CODE(sc_gate_payload_unchanged(f.payload, hex, &err), SC_E_GATE_MODIFIED_PAYLOAD,
                   &err);
    SC_EXPECT_CODE(sc_gate_payload_unchanged_list(f.payload, &before, &err),
                   SC_E_GATE_MODIFIED_PAYLOAD, &err);
    CU_ASSERT_STRING_EQUAL(err.path, "written-by-gate.txt");
    sc_payload_list_free(&before);
    sc_json_free(s);
    fixture_free(&f);
}

/* ---- the record --------------------------------------------------------- */

static void test_gates_record_orders_members_and_omits_absent_ones(void)
{
    CU_ASSERT_PTR_NULL(sc_gates_record(NULL, NULL, NULL, NULL));
    sc_json *audit = scroll_of("{'status': 'opted-out'}");
    sc_json *st = scroll_of("{'imports': ['json'], 'extra': 'none'}");
    sc_json *g = sc_gates_record(st, NULL, NULL, audit);
    CU_ASSERT_PTR_NOT_NULL_FATAL(g);
    char *text = compact(g);
    CU_ASSERT_STRING_EQUAL(text, "{\"selfTest\":{\"imports\":[\"json\"],\"extra\":\"none\"},"
                                 "\"cudaAudit\":{\"status\":\"opted-out\"}}");
    free(text);
    sc_json_free(g);
    sc_json *host = scroll_of("{'nvidiaDriverVersion': '550.54.15', 'gpus': []}");
    g = sc_gates_record(NULL, NULL, host, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(g);
    CU_ASSERT_PTR_NOT_NULL(sc_json_get(g, "host"));
    CU_ASSERT_EQUAL(g->length, 1);
    sc_json_free(g);
}

void register_gates_tests(void)
{
    CU_pSuite s = CU_add_suite("gates", NULL, NULL);
    if (s == NULL)
        return;
    SC_ADD_TEST(s, test_self_test_imports_that_exist_pass_and_are_recorded);
    SC_ADD_TEST(s, test_self_test_progress_is_one_run_and_none_finished_on_failure);
    SC_ADD_TEST(s, test_parity_progress_counts_the_runs_against_their_limit);
    SC_ADD_TEST(s, test_self_test_missing_import_is_gate_failed);
    SC_ADD_TEST(s, test_self_test_runs_the_target_platform_assertion);
    SC_ADD_TEST(s, test_self_test_python_code_runs_after_the_imports);
    SC_ADD_TEST(s, test_self_test_python_file_is_read_from_the_project_root);
    SC_ADD_TEST(s, test_self_test_missing_python_file_is_local_file_missing);
    SC_ADD_TEST(s, test_self_test_past_its_time_limit_is_timeout);
    SC_ADD_TEST(s, test_self_test_interpreter_that_cannot_start_is_spawn_failure);
    SC_ADD_TEST(s, test_self_test_environment_is_sanitised_host_then_scroll_then_validation);
    SC_ADD_TEST(s, test_self_test_bad_scroll_environment_is_invalid_environment);
    SC_ADD_TEST(s, test_parity_without_parity_member_records_nothing);
    SC_ADD_TEST(s, test_parity_cuda_on_a_host_without_gpu_is_accelerator_unavailable);
    SC_ADD_TEST(s, test_parity_default_probe_follows_this_host);
    SC_ADD_TEST(s, test_parity_asks_the_injected_probe_before_any_run);
    SC_ADD_TEST(s, test_parity_within_tolerance_records_measurements_and_host);
    SC_ADD_TEST(s, test_parity_drift_past_a_bound_is_parity_breach);
    SC_ADD_TEST(s, test_parity_non_finite_output_is_parity_non_finite);
    SC_ADD_TEST(s, test_parity_outputs_of_different_lengths_are_parity_length_mismatch);
    SC_ADD_TEST(s, test_parity_output_that_is_not_json_is_refused);
    SC_ADD_TEST(s, test_parity_run_that_fails_is_gate_failed);
    SC_ADD_TEST(s, test_parity_run_past_its_time_limit_is_timeout);
    SC_ADD_TEST(s, test_parity_sanitises_the_host_environment);
    SC_ADD_TEST(s, test_parity_cpu_and_metal_on_macos_need_no_gpu_probe);
    SC_ADD_TEST(s, test_parity_accelerator_without_validation_environment_is_invalid_scroll);
    SC_ADD_TEST(s, test_payload_untouched_by_the_gates_passes);
    SC_ADD_TEST(s, test_payload_file_created_by_a_gate_is_gate_modified_payload);
    SC_ADD_TEST(s, test_payload_file_changed_by_a_gate_is_gate_modified_payload);
    SC_ADD_TEST(s, test_payload_change_after_a_settled_snapshot_is_gate_modified_payload);
    SC_ADD_TEST(s, test_payload_file_removed_by_a_gate_is_gate_modified_payload);
    SC_ADD_TEST(s, test_payload_pycache_and_pyc_written_by_a_gate_are_ignored);
    SC_ADD_TEST(s, test_payload_digest_check_names_the_path_from_the_written_list);
    SC_ADD_TEST(s, test_real_self_test_leaves_the_payload_unchanged);
    SC_ADD_TEST(s, test_gates_record_orders_members_and_omits_absent_ones);
}
