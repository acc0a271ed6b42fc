/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gates.c — the builder's self-test and parity gates, the check that they
 * left the payload alone, and the release's `gates` record
 * (docs/format-v3.md 20.5, 17.5, 16.4).
 *
 * Guarantees: see gates.h.  In short: no shell, a time limit on every gate
 * process, the gate environment (sanitised host < scroll environment <
 * validation environment) and nothing else, no CUDA run without a usable
 * GPU, the parity engine's codes unchanged, and a payload that must list the
 * same records after the gates as before them.
 */
#include "scrollcase/gates.h"
#include "jobs_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "scrollcase/digest.h"
#include "scrollcase/file.h"
#include "scrollcase/parity.h"
#include "scrollcase/process.h"
#include "scrollcase/remedy.h"
#include "scrollcase/scroll.h"
#include "scrollcase/strbuf.h"
#include "progress_internal.h"

extern char **environ;

static sc_code oom(sc_error *err)
{
    return sc_error_set(err, SC_E_OUT_OF_MEMORY, "", "out of memory");
}

/* ---- the gate environment ---------------------------------------------------------- */

/* sanitised host < scroll environment < validation environment of `accel`
 * on the target's platform, as a NULL-terminated envp (caller frees). */
static sc_code gate_envp(const sc_env_map *host, const sc_json *scroll, const sc_target *t,
                         sc_accel accel, char ***envp, sc_error *err)
{
    *envp = NULL;
    sc_env_map own, clean, scr, val, child;
    memset(&own, 0, sizeof own);
    memset(&clean, 0, sizeof clean);
    memset(&scr, 0, sizeof scr);
    memset(&val, 0, sizeof val);
    memset(&child, 0, sizeof child);
    sc_code c = SC_OK;
    if (host == NULL) {
        c = sc_env_map_from_environ(&own, environ, err);
        host = &own;
    }
    if (c == SC_OK)
        c = sc_env_sanitised_host(host, &clean, err);
    const sc_json *env = sc_json_get(scroll, "environment");
    if (c == SC_OK && env != NULL)
        c = sc_env_map_from_json(&scr, env, "scroll", err);
    sc_target vt = *t;
    vt.accelerator = accel;
    size_t nv = 0;
    const sc_env_pair *pairs = sc_target_validation_environment(&vt, &nv);
    for (size_t i = 0; c == SC_OK && i < nv; i++)
        c = sc_env_map_set(&val, pairs[i].name, pairs[i].value, err);
    if (c == SC_OK) {
        /* The scroll's environment is the release's: it becomes the signed
         * `environment` of the box. */
        sc_env_layer layers[3] = {
            {SC_ENV_HOST, &clean}, {SC_ENV_RELEASE, &scr}, {SC_ENV_VALIDATION, &val}};
        c = sc_env_resolve(layers, 3, t, 0, 0, &child, NULL, err);
    }
    if (c == SC_OK)
        c = sc_env_map_to_envp(&child, envp, err);
    sc_env_map_free(&child);
    sc_env_map_free(&val);
    sc_env_map_free(&scr);
    sc_env_map_free(&clean);
    sc_env_map_free(&own);
    return c;
}

/* <payload_root>/<entry point> (caller frees): the scroll's pythonEntryPoint,
 * else the target's. */
static char *interpreter_path(const char *payload_root, const sc_json *scroll,
                              const sc_target *t)
{
    const char *ep = sc_json_cstr(sc_json_get(scroll, "pythonEntryPoint"));
    if (ep == NULL || ep[0] == '\0')
        ep = sc_target_python_entry_point(t);
    return sc_path_join(payload_root, ep);
}

static int gate_timeout(const sc_json *scroll)
{
    uint64_t v = SC_SELF_TEST_TIMEOUT_DEFAULT;
    if (!sc_json_uint53(sc_json_get(sc_json_get(scroll, "selfTest"), "timeoutSeconds"), &v) ||
        v == 0 || v > SC_SELF_TEST_TIMEOUT_MAX)
        v = SC_SELF_TEST_TIMEOUT_DEFAULT;
    return (int)v;
}

/* A gate run's time, for its meter (NULL: none). */
typedef struct gate_watch {
    sc_progress_meter *meter;
    const char *item;
} gate_watch;

static void gate_tick(void *ctx, unsigned long long elapsed_ms)
{
    const gate_watch *w = ctx;
    sc_progress_meter_tick(w->meter, w->item, elapsed_ms);
}

/* Run one gate process; a non-zero exit or a death by signal is gate-failed. */
static sc_code run_gate(const char *program, char *const *argv, char *const *envp,
                        const char *cwd, int out_fd, int err_fd, int timeout, const char *what,
                        gate_watch *watch, sc_error *err)
{
    sc_process_spec spec;
    memset(&spec, 0, sizeof spec);
    spec.program = program;
    spec.argv = argv;
    spec.envp = envp;
    spec.cwd = cwd;
    spec.stdin_fd = -1;
    spec.stdout_fd = out_fd;
    spec.stderr_fd = err_fd;
    spec.timeout_seconds = timeout;
    spec.forward_signals = sc_process_signal_forwarding(); /* only when the program asked */
    spec.own_process_group = 1;
    spec.exit_on_forwarded = 1;
    if (watch != NULL && watch->meter != NULL && watch->meter->fn != NULL) {
        spec.tick = gate_tick;
        spec.tick_ctx = watch;
    }
    sc_process_result res;
    memset(&res, 0, sizeof res);
    sc_code c = sc_process_run(&spec, &res, err);
    if (c != SC_OK)
        return c;
    if (!res.exited)
        return sc_error_set(err, SC_E_GATE_FAILED, program, "%s: %s was killed by %s", what,
                            program, sc_signal_name(res.term_signal));
    if (res.exit_code != 0)
        return sc_error_set(err, SC_E_GATE_FAILED, program, "%s: %s exited with status %d",
                            what, program, res.exit_code);
    return SC_OK;
}

/* ---- the self-test ----------------------------------------------------------------- */


sc_code sc_gate_self_test(const char *payload_root, const sc_json *scroll, const sc_target *t,
                          const char *project_root, const sc_env_map *host, int out_fd,
                          int err_fd, sc_json **record, sc_error *err)
{
    return sc_gate_self_test_with(payload_root, scroll, t, project_root, host, out_fd, err_fd,
                                  NULL, NULL, record, err);
}

sc_code sc_gate_self_test_with(const char *payload_root, const sc_json *scroll,
                               const sc_target *t, const char *project_root,
                               const sc_env_map *host, int out_fd, int err_fd,
                               sc_progress_fn progress, void *progress_ctx, sc_json **record,
                               sc_error *err)
{
    if (record != NULL)
        *record = NULL;
    const sc_json *st = sc_json_get(scroll, "selfTest");
    const sc_json *imports = sc_json_get(st, "imports");
    if (!sc_json_is(imports, SC_JSON_ARRAY) || imports->length == 0)
        return sc_error_set(err, SC_E_INVALID_SCROLL, "$.selfTest.imports",
                            "$.selfTest.imports must be a non-empty array of modules");
    const char *python_file = sc_json_cstr(sc_json_get(st, "pythonFile"));
    const char *python_code = sc_json_cstr(sc_json_get(st, "pythonCode"));
    const char *extra_kind = python_file ? "pythonFile" : python_code ? "pythonCode" : "none";

    sc_strbuf code = SC_STRBUF_INIT;
    char *file_bytes = NULL, *program = NULL, **envp = NULL;
    sc_json *rec = NULL;
    sc_code c = SC_OK;
    int bad = sc_strbuf_adds(&code, sc_target_self_test_assertion(t)) ||
              sc_strbuf_adds(&code, "\nimport ");
    for (size_t i = 0; !bad && i < imports->length; i++) {
        const char *m = sc_json_cstr(sc_json_at(imports, i));
        if (m == NULL) {
            c = sc_error_set(err, SC_E_INVALID_SCROLL, "$.selfTest.imports",
                             "$.selfTest.imports[%zu] must be a module name", i);
            goto done;
        }
        bad |= (i > 0 && sc_strbuf_adds(&code, ", ")) || sc_strbuf_adds(&code, m);
    }
    if (!bad && python_file != NULL) {
        char *path = sc_path_join(project_root ? project_root : ".", python_file);
        if (path == NULL) {
            c = oom(err);
            goto done;
        }
        size_t len = 0;
        int missing = 0;
        sc_error e2;
        memset(&e2, 0, sizeof e2);
        c = sc_file_read(path, &file_bytes, &len, &missing, &e2);
        if (c != SC_OK) {
            if (missing || c == SC_E_IO)
                c = sc_error_set(err, SC_E_LOCAL_FILE_MISSING, path,
                                 "Self-test Python file is missing: %s", path);
            else
                *err = e2;
            free(path);
            goto done;
        }
        if (strlen(file_bytes) != len) {
            c = sc_error_set(err, SC_E_GATE_FAILED, path,
                             "self-test Python file %s holds a NUL byte", path);
            free(path);
            goto done;
        }
        free(path);
        bad |= sc_strbuf_adds(&code, "\n") || sc_strbuf_add(&code, file_bytes, len);
    } else if (!bad && python_code != NULL) {
        bad |= sc_strbuf_adds(&code, "\n") || sc_strbuf_adds(&code, python_code);
    }
    program = interpreter_path(payload_root, scroll, t);
    if (bad || program == NULL) {
        c = oom(err);
        goto done;
    }
    if (record != NULL) {
        /* _append frees the value when it fails */
        rec = sc_json_new_object();
        if (rec == NULL || sc_json_object_append(rec, "imports", sc_json_copy(imports)) != 0 ||
            sc_json_object_append(rec, "extra", sc_json_new_string(extra_kind)) != 0) {
            c = oom(err);
            goto done;
        }
    }
    if ((c = gate_envp(host, scroll, t, t->accelerator, &envp, err)) != SC_OK)
        goto done;
    char *argv[] = {program, (char *)"-c", code.p, NULL};
    sc_progress_meter meter;
    sc_progress_meter_start_runs(&meter, progress, progress_ctx, "self-test", program, 1,
                                 (uint64_t)gate_timeout(scroll) * 1000);
    gate_watch watch = {&meter, program};
    c = run_gate(program, argv, envp, payload_root, out_fd, err_fd, gate_timeout(scroll),
                 "self-test failed", &watch, err);
    if (c == SC_OK)
        sc_progress_meter_add(&meter, program, 0, 1);
    sc_progress_meter_end(&meter, c == SC_OK);
done:
    sc_env_envp_free(envp);
    free(program);
    free(file_bytes);
    sc_strbuf_free(&code);
    if (c == SC_OK && record != NULL) {
        *record = rec;
        rec = NULL;
    }
    sc_json_free(rec);
    return c;
}

/* ---- capturing a run's standard output --------------------------------------------- */

typedef struct capture {
    int fd;
    size_t max;
    sc_strbuf out;
    int overflow, failed;
    atomic_int stop;
} capture;

/* Read until EOF, or until told to stop and nothing more is waiting (a
 * grandchild that kept the pipe open cannot hold the gate). */
static void *capture_main(void *arg)
{
    capture *cap = arg;
    char chunk[65536];
    for (;;) {
        struct pollfd p = {cap->fd, POLLIN, 0};
        int stopping = atomic_load(&cap->stop);
        int r = poll(&p, 1, stopping ? 0 : 100);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            cap->failed = 1;
            break;
        }
        if (r == 0) {
            if (stopping)
                break;
            continue;
        }
        ssize_t n = read(cap->fd, chunk, sizeof chunk);
        if (n < 0) {
            if (errno == EINTR || errno == EAGAIN)
                continue;
            cap->failed = 1;
            break;
        }
        if (n == 0)
            break;
        size_t keep = (size_t)n;
        if (cap->out.len + keep > cap->max) {
            keep = cap->max - cap->out.len;
            cap->overflow = 1;
        }
        if (keep > 0 && !cap->failed && sc_strbuf_add(&cap->out, chunk, keep) != SC_OK)
            cap->failed = 1;
    }
    return NULL;
}

/* Run and keep stdout (at most max bytes) in *out / *out_len (caller frees). */
static sc_code run_captured(const char *program, char *const *argv, char *const *envp,
                            const char *cwd, int err_fd, int timeout, size_t max,
                            const char *what, gate_watch *watch, char **out, size_t *out_len,
                            sc_error *err)
{
    *out = NULL;
    *out_len = 0;
    int fds[2];
    if (pipe(fds) != 0)
        return sc_error_set(err, SC_E_IO, "", "cannot create a pipe: %s", strerror(errno));
    (void)fcntl(fds[0], F_SETFD, FD_CLOEXEC);
    (void)fcntl(fds[1], F_SETFD, FD_CLOEXEC);
    capture cap;
    memset(&cap, 0, sizeof cap);
    cap.fd = fds[0];
    cap.max = max;
    atomic_init(&cap.stop, 0);
    pthread_t th;
    if (sc_jobs_thread_start(&th, capture_main, &cap) != 0) {
        close(fds[0]);
        close(fds[1]);
        return sc_error_set(err, SC_E_OUT_OF_MEMORY, "", /* EAGAIN: a resource */
                            "out of memory starting a reader thread");
    }
    sc_code c = run_gate(program, argv, envp, cwd, fds[1], err_fd, timeout, what, watch, err);
    close(fds[1]);
    atomic_store(&cap.stop, 1);
    pthread_join(th, NULL);
    close(fds[0]);
    if (c == SC_OK && cap.failed)
        c = sc_error_set(err, SC_E_IO, program,
                         "%s: cannot read the output of %s", what, program);
    if (c == SC_OK && cap.overflow)
        c = sc_error_set(err, SC_E_INVALID_PARITY_VALUES, program,
                         "%s: %s printed more than %zu bytes", what, program, max);
    if (c != SC_OK) {
        sc_strbuf_free(&cap.out);
        return c;
    }
    *out = sc_strbuf_detach(&cap.out, out_len);
    if (*out == NULL)
        return oom(err);
    return SC_OK;
}

/* ---- the parity gate --------------------------------------------------------------- */

static int accel_from_name(const char *s, sc_accel *out)
{
    if (s == NULL)
        return 0;
    if (strcmp(s, "cpu") == 0)
        *out = SC_ACCEL_CPU;
    else if (strcmp(s, "cuda") == 0)
        *out = SC_ACCEL_CUDA;
    else if (strcmp(s, "metal") == 0)
        *out = SC_ACCEL_METAL;
    else
        return 0;
    return 1;
}

/* macOS validates cpu and metal; Linux and Windows cpu and cuda. */
static sc_code default_probe(void *ctx, sc_gpu_facts *facts, sc_error *err)
{
    return sc_gpu_probe((const sc_gpu_probe_options *)ctx, facts, err);
}

sc_code sc_gate_parity(const char *payload_root, const sc_json *scroll, const sc_target *t,
                       const sc_env_map *host, int timeout_seconds, sc_json **parity_record,
                       sc_json **host_record, sc_error *err)
{
    return sc_gate_parity_ex(payload_root, scroll, t, host, timeout_seconds, NULL,
                             parity_record, host_record, err);
}

sc_code sc_gate_parity_ex(const char *payload_root, const sc_json *scroll, const sc_target *t,
                          const sc_env_map *host, int timeout_seconds,
                          const sc_gate_parity_options *options, sc_json **parity_record,
                          sc_json **host_record, sc_error *err)
{
    if (parity_record != NULL)
        *parity_record = NULL;
    if (host_record != NULL)
        *host_record = NULL;
    const sc_json *parity = sc_json_get(scroll, "parity");
    if (parity == NULL)
        return SC_OK;
    const char *script = sc_json_cstr(sc_json_get(parity, "script"));
    const sc_json *accs = sc_json_get(parity, "accelerators");
    if (script == NULL)
        return sc_error_set(err, SC_E_INVALID_SCROLL, "$.parity.script",
                            "$.parity.script must be a payload path");
    if (!sc_json_is(accs, SC_JSON_ARRAY) || accs->length < 2)
        return sc_error_set(err, SC_E_INVALID_SCROLL, "$.parity.accelerators",
                            "A parity check needs at least two accelerators to compare.");
    sc_parity_tolerances tol;
    sc_code c = sc_parity_tolerances_from_json(sc_json_get(parity, "tolerances"), &tol, err);
    if (c != SC_OK)
        return c;
    size_t n = accs->length;
    char adapter[SC_TARGET_ID_MAX];
    snprintf(adapter, sizeof adapter, "%s", sc_target_adapter_id(t));
    int uses_cuda = 0;
    for (size_t i = 0; i < n; i++) {
        const char *name = sc_json_cstr(sc_json_at(accs, i));
        sc_accel a;
        if (!accel_from_name(name, &a))
            return sc_error_set(err, SC_E_INVALID_SCROLL, "$.parity.accelerators",
                                "$.parity.accelerators[%zu] must be cpu, metal or cuda", i);
        if (!sc_platform_validates_accelerator(t->platform, a))
            return sc_error_set(err, SC_E_INVALID_SCROLL, "$.parity.accelerators",
                                "Target %s defines no validation environment for accelerator "
                                "%s.",
                                adapter, name);
        uses_cuda |= a == SC_ACCEL_CUDA;
    }

    size_t stdout_max = SC_GATE_PARITY_STDOUT_MAX;
    int err_fd = -1;
    if (options != NULL) {
        if (options->stdout_max > 0)
            stdout_max = options->stdout_max;
        if (options->stderr_fd > 0)
            err_fd = options->stderr_fd;
    }
    if (timeout_seconds <= 0)
        timeout_seconds = gate_timeout(scroll);

    sc_json *host_rec = NULL;
    if (uses_cuda) {
        /* Before any run: a CUDA run on a host without a usable GPU would
         * quietly compute on the CPU. */
        sc_gate_probe_fn probe = default_probe;
        void *ctx = options ? (void *)options->probe_options : NULL;
        if (options != NULL && options->probe != NULL) {
            probe = options->probe;
            ctx = options->probe_ctx;
        }
        sc_gpu_facts facts;
        memset(&facts, 0, sizeof facts);
        c = probe(ctx, &facts, err);
        if (c == SC_OK && facts.status != SC_GPU_OK)
            c = sc_error_set(err, SC_E_ACCELERATOR_UNAVAILABLE, "",
                             "the parity gate needs a usable CUDA device: %s",
                             facts.reason[0] ? facts.reason : sc_gpu_status_name(facts.status));
        if (c == SC_OK)
            c = sc_gpu_facts_gate_json(&facts, &host_rec, err);
        sc_gpu_facts_free(&facts);
        if (c != SC_OK)
            return c;
    }

    const char **names = calloc(n, sizeof *names);
    sc_parity_values *runs = calloc(n, sizeof *runs);
    char *program = interpreter_path(payload_root, scroll, t);
    sc_json *gate = NULL;
    if (names == NULL || runs == NULL || program == NULL) {
        c = oom(err);
        goto done;
    }
    sc_progress_meter meter;
    sc_progress_meter_start_runs(&meter, options ? options->progress : NULL,
                                 options ? options->progress_ctx : NULL, "parity", "", n,
                                 (uint64_t)timeout_seconds * 1000);
    for (size_t i = 0; i < n && c == SC_OK; i++) {
        names[i] = sc_json_cstr(sc_json_at(accs, i));
        gate_watch watch = {&meter, names[i]};
        sc_accel a = SC_ACCEL_CPU;
        (void)accel_from_name(names[i], &a);
        char **envp = NULL;
        char what[64];
        snprintf(what, sizeof what, "parity check on %s", names[i]);
        if ((c = gate_envp(host, scroll, t, a, &envp, err)) != SC_OK)
            break;
        char *argv[] = {program, (char *)script, NULL};
        char *out = NULL;
        size_t len = 0;
        c = run_captured(program, argv, envp, payload_root, err_fd, timeout_seconds,
                         stdout_max, what, &watch, &out, &len, err);
        sc_env_envp_free(envp);
        if (c == SC_OK)
            c = sc_parity_values_parse(out, len, what, &runs[i], err);
        free(out);
        if (c == SC_OK)
            sc_progress_meter_add(&meter, names[i], 0, 1);
    }
    sc_progress_meter_end(&meter, c == SC_OK);
    if (c == SC_OK)
        c = sc_parity_gate(names, runs, n, &tol, &gate, err);
done:
    for (size_t i = 0; runs != NULL && i < n; i++)
        sc_parity_values_free(&runs[i]);
    free(runs);
    free(names);
    free(program);
    if (c != SC_OK) {
        sc_json_free(host_rec);
        sc_json_free(gate);
        return c;
    }
    if (parity_record != NULL)
        *parity_record = gate;
    else
        sc_json_free(gate);
    if (host_record != NULL)
        *host_record = host_rec;
    else
        sc_json_free(host_rec);
    return SC_OK;
}

/* ---- the payload must not change --------------------------------------------------- */

sc_code sc_gate_payload_snapshot(const char *payload_root, sc_payload_list *before,
                                 char before_hex[65], sc_error *err)
{
    return sc_gate_payload_snapshot_with(payload_root, 0, NULL, NULL, NULL, NULL, before,
                                         before_hex, err);
}

sc_code sc_gate_payload_snapshot_with(const char *payload_root, unsigned jobs,
                                      const sc_payload_list *env, const char *env_under,
                                      sc_progress_fn progress, void *progress_ctx,
                                      sc_payload_list *before, char before_hex[65],
                                      sc_error *err)
{
    sc_payload_options o = {.jobs = jobs,
                            .reuse_sub = env,
                            .reuse_under = env_under,
                            .progress = progress,
                            .progress_ctx = progress_ctx,
                            .progress_step = "digest"};
    sc_code c = sc_payload_collect_with(payload_root, SC_PAYLOAD_HASH | SC_PAYLOAD_CRC, &o,
                                        before, err);
    if (c == SC_OK && (c = sc_payload_digest(before, before_hex, err)) != SC_OK)
        sc_payload_list_free(before);
    return c;
}

static int path_cmp(const sc_payload_entry *a, const sc_payload_entry *b)
{
    size_t n = a->path_len < b->path_len ? a->path_len : b->path_len;
    int r = memcmp(a->path, b->path, n);
    if (r != 0)
        return r;
    return a->path_len < b->path_len ? -1 : a->path_len > b->path_len ? 1 : 0;
}

/* The first difference between two lists sorted by path bytes, or SC_OK. */
static sc_code compare_lists(const char *root, const sc_payload_list *before,
                             const sc_payload_list *after, sc_error *err)
{
    size_t i = 0, j = 0;
    while (i < before->count || j < after->count) {
        const sc_payload_entry *b = i < before->count ? &before->entries[i] : NULL;
        const sc_payload_entry *a = j < after->count ? &after->entries[j] : NULL;
        int r = b == NULL ? 1 : a == NULL ? -1 : path_cmp(b, a);
        if (r > 0)
            return sc_error_set(err, SC_E_GATE_MODIFIED_PAYLOAD, a->path,
                                "a gate created %s in the payload %s", a->path, root);
        if (r < 0)
            return sc_error_set(err, SC_E_GATE_MODIFIED_PAYLOAD, b->path,
                                "a gate removed %s from the payload %s", b->path, root);
        if (a->kind != b->kind)
            return sc_error_set(err, SC_E_GATE_MODIFIED_PAYLOAD, a->path,
                                "a gate turned %s into a %s in the payload %s", a->path,
                                a->kind == SC_PAYLOAD_LINK ? "link" : "file", root);
        if (strcmp(a->sha256, b->sha256) != 0)
            return sc_error_set(err, SC_E_GATE_MODIFIED_PAYLOAD, a->path,
                                "a gate changed %s in the payload %s", a->path, root);
        i++;
        j++;
    }
    return SC_OK;
}

sc_code sc_gate_payload_unchanged_list(const char *payload_root, const sc_payload_list *before,
                                       sc_error *err)
{
    sc_payload_list after;
    memset(&after, 0, sizeof after);
    sc_code c = sc_gate_payload_recheck(payload_root, before, 0, NULL, NULL, &after, err);
    sc_payload_list_free(&after);
    return c;
}

sc_code sc_gate_payload_recheck(const char *payload_root, const sc_payload_list *before,
                                unsigned jobs, sc_progress_fn progress, void *progress_ctx,
                                sc_payload_list *after, sc_error *err)
{
    memset(after, 0, sizeof *after);
    sc_payload_options o = {.jobs = jobs,
                            .reuse = before,
                            .progress = progress,
                            .progress_ctx = progress_ctx,
                            .progress_step = "recheck"};
    sc_code c = sc_payload_collect_with(payload_root, SC_PAYLOAD_HASH | SC_PAYLOAD_CRC, &o,
                                        after, err);
    if (c == SC_OK)
        c = compare_lists(payload_root, before, after, err);
    if (c != SC_OK)
        sc_payload_list_free(after);
    return c;
}

sc_code sc_gate_payload_unchanged(const char *payload_root, const char *before_hex,
                                  sc_error *err)
{
    if (before_hex == NULL || !sc_is_lower_hex(before_hex, strlen(before_hex), 64))
        return sc_error_set(err, SC_E_USAGE, "", "the payload digest before the gates must be "
                                                 "64 lowercase hex digits");
    sc_payload_list after;
    memset(&after, 0, sizeof after);
    char hex[65];
    sc_code c = sc_payload_collect(payload_root, SC_PAYLOAD_HASH, &after, err);
    if (c == SC_OK)
        c = sc_payload_digest(&after, hex, err);
    if (c != SC_OK || strcmp(hex, before_hex) == 0) {
        sc_payload_list_free(&after);
        return c;
    }
    /* Changed.  Name the path when the builder's list of the payload before
     * the gates is at its root. */
    char *list_path = sc_path_join(payload_root, SC_PAYLOAD_LIST_NAME);
    char *bytes = NULL;
    size_t len = 0;
    sc_error quiet;
    memset(&quiet, 0, sizeof quiet);
    char list_hex[65] = "";
    if (list_path != NULL && sc_is_file(list_path) &&
        sc_file_read(list_path, &bytes, &len, NULL, &quiet) == SC_OK &&
        sc_sha256_hex(bytes, len, list_hex, &quiet) == SC_OK && strcmp(list_hex, before_hex) == 0) {
        sc_payload_list before;
        memset(&before, 0, sizeof before);
        if (sc_payload_parse(bytes, len, &before, &quiet) == SC_OK)
            c = compare_lists(payload_root, &before, &after, err);
        sc_payload_list_free(&before);
    }
    free(bytes);
    free(list_path);
    sc_payload_list_free(&after);
    if (c == SC_OK)
        c = sc_error_set(err, SC_E_GATE_MODIFIED_PAYLOAD, payload_root,
                         "the gates changed the payload %s: its digest was %s and is now %s",
                         payload_root, before_hex, hex);
    return c;
}

/* ---- the record -------------------------------------------------------------------- */

sc_json *sc_gates_record(sc_json *self_test, sc_json *parity, sc_json *host,
                         sc_json *cuda_audit)
{
    sc_json *parts[4] = {self_test, parity, host, cuda_audit};
    static const char *const keys[4] = {"selfTest", "parity", "host", "cudaAudit"};
    int any = 0;
    for (int i = 0; i < 4; i++)
        any |= parts[i] != NULL;
    if (!any)
        return NULL;
    sc_json *g = sc_json_new_object();
    for (int i = 0; i < 4; i++) {
        if (parts[i] == NULL)
            continue;
        if (g == NULL) {
            sc_json_free(parts[i]);
            continue;
        }
        /* _append frees the value when it fails */
        if (sc_json_object_append(g, keys[i], parts[i]) != 0) {
            sc_json_free(g);
            g = NULL;
        }
    }
    return g;
}

/* ---- the CUDA binaries gate (19.10) ---------------------------------------- */

/* The CUDA major of a soname that follows it, or 0 (not such a soname). */
static unsigned follows_major(const char *soname)
{
    unsigned major = 0;
    const sc_cuda_library_rule *rule = sc_cuda_library_rule_find(soname, &major);
    return rule != NULL && rule->soname_class == SC_CUDA_SONAME_FOLLOWS_CUDA ? major : 0;
}

static sc_code mismatch(const sc_cuda_binaries *a, const sc_target *t, sc_error *err)
{
    unsigned want = sc_target_cuda_major(t);
    char tid[SC_TARGET_ID_MAX];
    sc_target_id(t, tid, sizeof tid);
    for (size_t i = 0; i < a->file_count; i++) {
        const sc_cuda_binary *f = &a->files[i];
        if (f->error != NULL)
            continue;
        unsigned m = f->elf.soname != NULL ? follows_major(f->elf.soname) : 0;
        if (m != 0 && m != want)
            return sc_error_set(err, SC_E_CUDA_BINARIES_MISMATCH, f->path,
                                "%s ships %s, a CUDA %u library, but the target %s has CUDA "
                                "%u; `" SC_REMEDY_AUDIT_BINARIES "` lists every CUDA "
                                "library of the payload", f->path, f->elf.soname, m, tid, want);
        for (size_t n = 0; n < f->elf.needed_count; n++) {
            m = follows_major(f->elf.needed[n]);
            if (m != 0 && m != want)
                return sc_error_set(err, SC_E_CUDA_BINARIES_MISMATCH, f->path,
                                    "%s needs %s, a CUDA %u library, but the target %s has "
                                    "CUDA %u; `" SC_REMEDY_AUDIT_BINARIES "` lists every "
                                    "CUDA library of the payload", f->path, f->elf.needed[n],
                                    m, tid, want);
        }
    }
    return SC_OK;
}

static sc_json *cuda_record(const sc_cuda_binaries *a, const sc_json *declared)
{
    sc_json *rec = sc_json_new_object(), *cubins = sc_json_new_array();
    sc_json *ptx = sc_json_new_array(), *majors = sc_json_new_array();
    sc_json *opaque = sc_json_new_array();
    int bad = rec == NULL || cubins == NULL || ptx == NULL || majors == NULL || opaque == NULL;
    for (size_t i = 0; !bad && i < a->code_count; i++) {
        char name[16];
        sc_cuda_code_name(&a->codes[i].code, name, sizeof name);
        bad = sc_json_array_append(a->codes[i].code.kind == SC_FATBIN_CUBIN ? cubins : ptx,
                                   sc_json_new_string(name)) != 0;
    }
    unsigned m[16];
    size_t nm = sc_cuda_binaries_majors(a, m, 16);
    for (size_t i = 0; !bad && i < nm && i < 16; i++)
        bad = sc_json_array_append(majors, sc_json_new_number((double)m[i])) != 0;
    for (size_t i = 0; !bad && i < a->library_count; i++)
        if (a->libraries[i].rule != NULL && a->libraries[i].rule->device_code_hidden)
            bad = sc_json_array_append(opaque, sc_json_new_string(a->libraries[i].soname)) != 0;
    sc_json *parts[4] = {cubins, ptx, majors, opaque};
    static const char *const keys[4] = {"cubins", "ptx", "cudaMajors", "opaqueLibraries"};
    for (int i = 0; i < 4; i++) {
        if (!bad) /* _append frees the value when it fails */
            bad = sc_json_object_append(rec, keys[i], parts[i]) != 0;
        else
            sc_json_free(parts[i]);
    }
    if (!bad && declared != NULL)
        bad = sc_json_object_append(rec, "declared", sc_json_copy(declared)) != 0;
    if (bad) {
        sc_json_free(rec);
        return NULL;
    }
    return rec;
}

/* "3 files carry CUDA device code or libraries (1234567 bytes) in a cpu box". */
static char *waste_warning(const sc_cuda_binaries *a, const sc_target *t)
{
    size_t files = 0;
    uint64_t bytes = 0;
    for (size_t i = 0; i < a->file_count; i++) {
        const sc_cuda_binary *f = &a->files[i];
        unsigned major = 0;
        int cuda = f->error == NULL &&
                   (f->code_count > 0 ||
                    (f->elf.soname != NULL && sc_cuda_library_rule_find(f->elf.soname, &major)));
        if (cuda) {
            files++;
            bytes += f->size;
        }
    }
    if (files == 0)
        return NULL;
    char tid[SC_TARGET_ID_MAX];
    sc_target_id(t, tid, sizeof tid);
    sc_strbuf b;
    sc_strbuf_init(&b);
    sc_code c = sc_strbuf_printf(&b,
                     "%zu file(s) carry CUDA device code or ship a CUDA library (%llu bytes) "
                     "in a %s box, which cannot use them; `" SC_REMEDY_AUDIT_BINARIES "` "
                     "lists them", files, (unsigned long long)bytes, tid);
    char *line = sc_strbuf_detach(&b, NULL);
    if (c != SC_OK) {
        free(line);
        line = NULL;
    }
    return line;
}

sc_code sc_gate_cuda_binaries(const sc_cuda_binaries *audit, const sc_target *t,
                              const sc_json *declared, sc_json **record, char **warning,
                              sc_error *err)
{
    *record = NULL;
    if (warning != NULL)
        *warning = NULL;
    if (t->platform == SC_PLATFORM_WINDOWS)
        return SC_OK; /* PE files: this version reads ELF only (19.10) */
    if (t->accelerator != SC_ACCEL_CUDA) {
        if (warning != NULL) {
            *warning = waste_warning(audit, t);
            /* NULL also when memory ran out: a warning is not worth a failure */
        }
        return SC_OK;
    }
    sc_code c = mismatch(audit, t, err);
    if (c != SC_OK)
        return c;
    if (!sc_cuda_binaries_uses_cuda(audit) && declared == NULL) {
        char tid[SC_TARGET_ID_MAX];
        sc_target_id(t, tid, sizeof tid);
        return sc_error_set(err, SC_E_CUDA_BINARIES_MISSING, "",
                            "no file of the payload carries CUDA device code, ships or needs "
                            "a CUDA library: this %s box cannot use a GPU (%zu ELF file(s), "
                            "%zu unreadable); install CUDA builds (`" SC_REMEDY_AUDIT_CUDA "` "
                            "checks the lock, `" SC_REMEDY_AUDIT_BINARIES "` the files), or "
                            "declare code compiled at run time in the scroll's \"cuda\" "
                            "member", tid, audit->file_count,
                            audit->unreadable);
    }
    *record = cuda_record(audit, declared);
    return *record != NULL ? SC_OK : oom(err);
}
