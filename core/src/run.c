/* SPDX-License-Identifier: Apache-2.0 */
/*
 * run.c — running a prepared or attached box's declared execution.
 *
 * Guarantees: see run.h.  Every refusal happens before fork; the child gets
 * exactly the argv and environment built here and nothing from the calling
 * process's own environ (the host layer is whatever the caller passed).
 */
#define _POSIX_C_SOURCE 200809L
#include "scrollcase/run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "scrollcase/assets.h"
#include "scrollcase/execution.h"
#include "scrollcase/file.h"
#include "scrollcase/process.h"

int sc_run_host_pair(sc_platform *platform, sc_arch *arch)
{
#if defined(__linux__) && defined(__x86_64__)
    *platform = SC_PLATFORM_LINUX;
    *arch = SC_ARCH_X86_64;
    return 1;
#elif defined(__APPLE__) && (defined(__aarch64__) || defined(__arm64__))
    *platform = SC_PLATFORM_MACOS;
    *arch = SC_ARCH_AARCH64;
    return 1;
#elif defined(_WIN32) && (defined(_M_X64) || defined(__x86_64__))
    *platform = SC_PLATFORM_WINDOWS;
    *arch = SC_ARCH_X86_64;
    return 1;
#else
    (void)platform;
    (void)arch;
    return 0;
#endif
}

/* The host's os/arch in the words of the message. */
static void host_words(char *buf, size_t size)
{
    sc_platform p;
    sc_arch a;
    if (sc_run_host_pair(&p, &a)) {
        snprintf(buf, size, "%s/%s", sc_platform_name(p), sc_arch_name(a));
        return;
    }
    const char *os =
#if defined(__linux__)
        "linux";
#elif defined(__APPLE__)
        "macos";
#elif defined(_WIN32)
        "windows";
#else
        "unknown";
#endif
    const char *arch =
#if defined(__x86_64__)
        "x86_64";
#elif defined(__aarch64__) || defined(__arm64__)
        "aarch64";
#else
        "unknown";
#endif
    snprintf(buf, size, "%s/%s", os, arch);
}

sc_code sc_run_native_check(const sc_target *target, sc_error *err)
{
    sc_platform p;
    sc_arch a;
    if (sc_run_host_pair(&p, &a) && p == target->platform && a == target->arch)
        return SC_OK;
    char id[SC_TARGET_ID_MAX], host[64];
    sc_target_id(target, id, sizeof id);
    host_words(host, sizeof host);
    return sc_error_set(err, SC_E_FOREIGN_TARGET, "$.target",
                        "Box target %s cannot run on %s; requires %s/%s.", id, host,
                        sc_platform_name(target->platform), sc_arch_name(target->arch));
}

void sc_run_result_free(sc_run_result *r)
{
    if (r == NULL)
        return;
    sc_json_free(r->environment_report);
    r->environment_report = NULL;
}

static sc_code oom(sc_error *err)
{
    return sc_error_set(err, SC_E_OUT_OF_MEMORY, NULL, "out of memory");
}

/* argv: [program, root/script | "-m" module, defaultArgs..., args...].
 * Strings it allocates are listed in owned (freed by the caller). */
static sc_code build_argv(const sc_run_spec *spec, const sc_json *ex,
                          const char *program, char ***argv_out, char **owned,
                          sc_error *err)
{
    const sc_json *defaults = sc_json_get(ex, "defaultArgs");
    size_t nd = sc_json_is(defaults, SC_JSON_ARRAY) ? defaults->length : 0;
    if (defaults != NULL && !sc_json_is(defaults, SC_JSON_ARRAY))
        return sc_error_set(err, SC_E_INVALID_MANIFEST, "$.execution.defaultArgs",
                            "$.execution.defaultArgs: must be an array of strings");
    char **argv = calloc(nd + spec->nargs + 4, sizeof *argv);
    if (argv == NULL)
        return oom(err);
    size_t k = 0;
    argv[k++] = (char *)program;
    const char *kind = sc_json_cstr(sc_json_get(ex, "kind"));
    if (kind != NULL && strcmp(kind, "python-script") == 0) {
        *owned = sc_path_join(spec->root, sc_json_cstr(sc_json_get(ex, "script")));
        if (*owned == NULL) {
            free(argv);
            return oom(err);
        }
        argv[k++] = *owned;
    } else {
        argv[k++] = (char *)"-m";
        argv[k++] = (char *)sc_json_cstr(sc_json_get(ex, "module"));
    }
    for (const sc_json *d = nd ? defaults->child : NULL; d != NULL; d = d->next) {
        const char *s = sc_json_cstr(d);
        if (s == NULL) {
            free(argv);
            return sc_error_set(err, SC_E_INVALID_MANIFEST, "$.execution.defaultArgs",
                                "$.execution.defaultArgs: must be an array of strings");
        }
        argv[k++] = (char *)s;
    }
    for (size_t i = 0; i < spec->nargs; i++) {
        if (spec->args[i] == NULL) {
            free(argv);
            return sc_error_set(err, SC_E_USAGE, NULL,
                                "Box execution arguments must be an array of strings.");
        }
        argv[k++] = spec->args[i];
    }
    argv[k] = NULL;
    *argv_out = argv;
    return SC_OK;
}

sc_code sc_run(const sc_run_spec *spec, sc_run_result *out, sc_error *err)
{
    memset(out, 0, sizeof *out);
    const sc_json *rel = spec->release;
    if (spec->root == NULL || spec->root[0] != '/' || rel == NULL)
        return sc_error_set(err, SC_E_USAGE, NULL,
                            "running a box needs its absolute root and its release");
    const sc_json *ex = sc_json_get(rel, "execution");
    if (ex == NULL || sc_json_is(ex, SC_JSON_NULL))
        return sc_error_set(err, SC_E_NO_EXECUTION, "$.execution",
                            "Box does not declare an execution entry point.");
    sc_target own;
    const sc_target *t = spec->target;
    if (t == NULL) {
        sc_code c = sc_target_from_json(sc_json_get(rel, "target"), "$.target", &own, err);
        if (c != SC_OK)
            return c;
        t = &own;
    }
    sc_code c = sc_run_native_check(t, err);
    if (c != SC_OK)
        return c;

    struct stat st;
    if (lstat(spec->root, &st) != 0 || !S_ISDIR(st.st_mode) ||
        (unsigned long long)st.st_dev != spec->dev ||
        (unsigned long long)st.st_ino != spec->ino)
        return sc_error_set(err, SC_E_DESTINATION_CHANGED, spec->root,
                            "Prepared box root no longer matches the prepared box.");

    const char *entry = sc_json_cstr(sc_json_get(rel, "pythonEntryPoint"));
    if (entry == NULL)
        entry = sc_target_python_entry_point(t);
    if (!sc_execution_has_in_dir((void *)spec->root, entry))
        return sc_error_set(err, SC_E_MISSING_INTERPRETER, entry,
                            "Prepared box is missing %s.", entry);
    c = sc_execution_check(rel, t, sc_execution_has_in_dir, (void *)spec->root, err);
    if (c != SC_OK)
        return c;
    c = sc_assets_check(spec->root, sc_json_get(rel, "assets"), err);
    if (c != SC_OK)
        return c;

    /* Environment: host < caller < release, the child's complete env. */
    sc_env_map release_env = {0}, child_env = {0};
    char **envp = NULL, **argv = NULL;
    char *program = NULL, *script = NULL;
    const sc_json *renv = sc_json_get(rel, "environment");
    if (renv != NULL)
        c = sc_env_map_from_json(&release_env, renv, "release", err);
    sc_env_layer layers[3];
    size_t nl = 0;
    layers[nl++] = (sc_env_layer){SC_ENV_HOST, spec->host};
    if (spec->caller != NULL)
        layers[nl++] = (sc_env_layer){SC_ENV_CALLER, spec->caller};
    layers[nl++] = (sc_env_layer){SC_ENV_RELEASE, &release_env};
    if (c == SC_OK)
        c = sc_env_resolve(layers, nl, t, spec->env_report_full || spec->env_report_values,
                           spec->env_report_values, &child_env, &out->environment_report,
                           err);
    if (c == SC_OK && spec->on_environment_report != NULL)
        spec->on_environment_report(spec->report_ctx, out->environment_report);
    if (c == SC_OK)
        c = sc_env_map_to_envp(&child_env, &envp, err);
    if (c == SC_OK) {
        program = sc_path_join(spec->root, entry);
        c = program == NULL ? oom(err) : SC_OK;
    }
    if (c == SC_OK)
        c = build_argv(spec, ex, program, &argv, &script, err);
    if (c == SC_OK) {
        sc_process_spec ps = {
            .program = program,
            .argv = argv,
            .envp = envp,
            .cwd = spec->root,
            .stdin_fd = spec->stdin_fd,
            .stdout_fd = spec->stdout_fd,
            .stderr_fd = spec->stderr_fd,
            .timeout_seconds = 0,
            .forward_signals = spec->forward_signals,
            .own_process_group = 0,
        };
        sc_process_result pr;
        c = sc_process_run(&ps, &pr, err);
        if (c == SC_OK) {
            out->spawned = 1;
            out->exited = pr.exited;
            out->exit_code = pr.exit_code;
            out->term_signal = pr.term_signal;
            out->forwarded_signal = pr.forwarded_signal;
        }
    }
    free(argv);
    free(script);
    free(program);
    sc_env_envp_free(envp);
    sc_env_map_free(&release_env);
    sc_env_map_free(&child_env);
    return c;
}
