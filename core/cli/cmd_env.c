/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cmd_env.c — scrollcase doctor, scrollcase lock and scrollcase env-install.
 *
 * doctor is read-only: every check runs whatever the others found, each
 * failing one prints a remedy, and the exit status is 1 when any failed.
 * For CUDA it tells two things apart (a host can have one without the
 * other): "can run CUDA" needs the NVIDIA driver (libcuda answering the GPU
 * probe with a device, and a driver new enough for the target's CUDA);
 * "can compile CUDA" needs a toolkit (nvcc and cuda_runtime.h under the
 * toolkit's include directory — headers that only ship inside Python
 * packages do not make one).  Building or running a box never compiles
 * CUDA and never calls nvidia-smi, so those checks are warnings, not
 * failures.
 *
 * Injectable for tests: SCROLLCASE_LIBCUDA / SCROLLCASE_LIBNVML (the GPU
 * probe's libraries), SCROLLCASE_CUDA_HOME (else CUDA_HOME, else
 * /usr/local/cuda), PATH (git, nvidia-smi, nvcc, pixi, conda-pack).
 */
#define _POSIX_C_SOURCE 200809L

#include "commands.h"

#include "args.h"
#include "progress.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scrollcase/config.h"
#include "scrollcase/remedy.h"
#include "scrollcase/envsource.h"
#include "scrollcase/error.h"
#include "scrollcase/file.h"
#include "scrollcase/gpu_probe.h"
#include "scrollcase/json.h"
#include "scrollcase/keys.h"
#include "scrollcase/libraries.h"
#include "scrollcase/lock_install.h"
#include "scrollcase/scroll.h"
#include "scrollcase/target.h"

/* ---- choosing a scroll ----------------------------------------------------- */

/*
 * The one scroll a selector names: "<box>/<target>", "<box>" (+ target_id
 * or a single target), NULL (the workspace's only scroll, or the one with
 * target_id).  *dir = its directory.
 */
static sc_code pick_scroll(const char *scrolls, const char *selector, const char *target_id,
                           sc_scroll **out, char **dir, sc_error *err)
{
    *out = NULL;
    *dir = NULL;
    sc_scroll_ref_list refs;
    memset(&refs, 0, sizeof refs);
    sc_code c = sc_scroll_list_refs(scrolls, selector, &refs, err);
    if (c != SC_OK)
        return c;
    const char *chosen = NULL;
    size_t matches = 0;
    for (size_t i = 0; i < refs.count; i++) {
        const char *r = refs.refs[i];
        const char *slash = strchr(r, '/');
        if (target_id != NULL && (slash == NULL || strcmp(slash + 1, target_id) != 0))
            continue;
        chosen = r;
        matches++;
    }
    if (matches != 1) {
        c = sc_error_set(err, SC_E_USAGE, NULL,
                         matches == 0 ? "no scroll matches %s%s%s"
                                      : "%s%s%s names more than one scroll; give <boxId>/<targetId> "
                                        "or --target",
                         selector ? selector : "the workspace", target_id ? " with --target " : "",
                         target_id ? target_id : "");
        sc_scroll_ref_list_free(&refs);
        return c;
    }
    c = sc_scroll_load(scrolls, chosen, out, err);
    if (c == SC_OK) {
        *dir = sc_path_join(scrolls, chosen);
        if (*dir == NULL)
            c = sc_error_set(err, SC_E_OUT_OF_MEMORY, NULL, "out of memory");
    }
    sc_scroll_ref_list_free(&refs);
    return c;
}

static const char *scroll_pixi_version(const sc_scroll *s)
{
    const sc_json *v = s ? sc_json_get(s->effective, "pixiVersion") : NULL;
    return v != NULL && sc_json_is(v, SC_JSON_STRING) ? sc_json_cstr(v) : NULL;
}

/* ---- lock ------------------------------------------------------------------ */

static int cmd_lock(sc_cli_args *a)
{
    if (a->npositional > 1)
        return sc_cli_usage_error("unexpected argument %s", a->positional[1]);
    sc_error err;
    sc_error_clear(&err);
    sc_workspace ws;
    if (sc_workspace_resolve(&a->ws, &ws, &err) != SC_OK)
        return sc_cli_report(&err);
    sc_scroll *s = NULL;
    char *dir = NULL;
    sc_pixi_tools tools;
    memset(&tools, 0, sizeof tools);
    int rc = 0;
    sc_code c = pick_scroll(ws.paths[SC_WS_SCROLLS], a->npositional ? a->positional[0] : NULL,
                            sc_cli_value(a, OPT_TARGET), &s, &dir, &err);
    const char *pin = c == SC_OK ? scroll_pixi_version(s) : NULL;
    if (c == SC_OK && pin == NULL)
        c = sc_error_set(&err, SC_E_INVALID_SCROLL, s->path, "%s pins no pixiVersion",
                         s->path ? s->path : "the scroll");
    if (c == SC_OK)
        c = sc_pixi_discover_pixi(sc_cli_value(a, OPT_PIXI), ws.paths[SC_WS_TOOLCHAIN], pin,
                                  &tools, &err);
    if (c == SC_OK)
        c = sc_pixi_run_lock(&tools, dir, &err);
    if (c != SC_OK) {
        rc = sc_cli_report(&err);
    } else if (sc_cli_json()) {
        char *lock = sc_path_join(dir, "pixi.lock");
        sc_json *o = sc_json_new_object();
        if (o != NULL && (lock == NULL ||
                          sc_json_object_append(o, "lockPath", sc_json_new_string(lock)) != 0)) {
            sc_json_free(o);
            o = NULL;
        }
        free(lock);
        rc = sc_cli_print_json(o);
    } else {
        printf("Updated %s/pixi.lock\n", dir);
        if (fflush(stdout) != 0)
            rc = EXIT_REJECTED;
    }
    sc_pixi_tools_free(&tools);
    sc_scroll_free(s);
    free(dir);
    sc_workspace_free(&ws);
    return rc;
}

/* ---- env-install ----------------------------------------------------------- */

static void install_note(void *ctx, const char *text)
{
    sc_cli_progress_step(ctx, "note", text);
}

static int env_install_with(sc_cli_args *a, sc_cli_progress *shown)
{
    unsigned jobs = 0;
    (void)sc_cli_jobs(a, &jobs); /* checked by cmd_env_install */
    sc_channel_mirror mirrors[SC_CLI_MAX_MIRRORS];
    size_t nmirrors = 0;
    (void)sc_cli_mirrors(a, mirrors, &nmirrors);
    sc_error err;
    sc_error_clear(&err);
    sc_workspace ws;
    if (sc_workspace_resolve(&a->ws, &ws, &err) != SC_OK)
        return sc_cli_report(&err);
    sc_scroll *s = NULL;
    char *dir = NULL, *lock = NULL;
    sc_code c = pick_scroll(ws.paths[SC_WS_SCROLLS], a->npositional ? a->positional[0] : NULL,
                            sc_cli_value(a, OPT_TARGET), &s, &dir, &err);
    if (c == SC_OK && (lock = sc_path_join(dir, "pixi.lock")) == NULL)
        c = sc_error_set(&err, SC_E_OUT_OF_MEMORY, NULL, "out of memory");
    if (c == SC_OK && !sc_is_file(lock))
        c = sc_error_set(&err, SC_E_MISSING_LOCK, lock, "Missing dependency lock: %s", lock);
    sc_lock_install_result r;
    memset(&r, 0, sizeof r);
    const char *into = sc_cli_value(a, OPT_INTO);
    if (c == SC_OK) {
        sc_lock_install_options o;
        memset(&o, 0, sizeof o);
        o.lock_path = lock;
        o.target = &s->target;
        o.offline = sc_cli_has(a, OPT_OFFLINE) != 0;
        o.mirrors = mirrors;
        o.nmirrors = nmirrors;
        o.channel_dir = sc_cli_value(a, OPT_CHANNEL_DIR);
        o.jobs = jobs;
        o.progress = sc_cli_progress_event;
        o.progress_ctx = shown;
        o.note = install_note;
        o.note_ctx = shown;
        sc_cli_progress_step(shown, "environment", lock);
        c = sc_lock_install(&o, into, &r, &err);
    }
    int rc = 0;
    if (c != SC_OK) {
        sc_cli_progress_break(shown);
        rc = sc_cli_report(&err);
    } else if (sc_cli_json()) {
        sc_json *o = sc_json_new_object(), *scripts = sc_json_new_array();
        int bad = o == NULL || scripts == NULL;
        for (size_t i = 0; !bad && i < r.nlink_scripts; i++)
            bad = sc_json_array_append(scripts, sc_json_new_string(r.link_scripts[i])) != 0;
        bad = bad || sc_json_object_append(o, "into", sc_json_new_string(into)) ||
              sc_json_object_append(o, "lockPath", sc_json_new_string(lock)) ||
              sc_json_object_append(o, "lockSha256", sc_json_new_string(r.lock_sha256)) ||
              sc_json_object_append(o, "installer",
                                    sc_json_new_string(sc_lock_install_installer())) ||
              sc_json_object_append(o, "condaPackages",
                                    sc_json_new_number((double)r.conda_packages)) ||
              sc_json_object_append(o, "wheels", sc_json_new_number((double)r.wheels)) ||
              sc_json_object_append(o, "bytesFetched",
                                    sc_json_new_number((double)r.bytes_fetched)) ||
              sc_json_object_append(o, "cacheHits", sc_json_new_number((double)r.cache_hits));
        if (!bad) {
            bad = sc_json_object_append(o, "linkScriptsNotRun", scripts) != 0;
            scripts = NULL;
        }
        sc_json_free(scripts);
        if (bad) {
            sc_json_free(o);
            o = NULL;
        }
        rc = sc_cli_print_json(o);
    } else {
        printf("Installed %zu conda package%s and %zu wheel%s from %s into %s\n",
               r.conda_packages, r.conda_packages == 1 ? "" : "s", r.wheels,
               r.wheels == 1 ? "" : "s", lock, into);
        if (fflush(stdout) != 0)
            rc = EXIT_REJECTED;
    }
    sc_lock_install_result_free(&r);
    free(lock);
    free(dir);
    sc_scroll_free(s);
    sc_workspace_free(&ws);
    return rc;
}

static int cmd_env_install(sc_cli_args *a)
{
    if (a->npositional > 1)
        return sc_cli_usage_error("unexpected argument %s", a->positional[1]);
    if (sc_cli_value(a, OPT_INTO) == NULL)
        return sc_cli_usage_error("%s", "env-install needs --into DIR (a directory that does "
                                        "not exist yet)");
    unsigned jobs = 0;
    int jrc = sc_cli_jobs(a, &jobs);
    if (jrc != 0)
        return jrc;
    sc_channel_mirror mirrors[SC_CLI_MAX_MIRRORS];
    size_t nmirrors = 0;
    int mrc = sc_cli_mirrors(a, mirrors, &nmirrors);
    if (mrc != 0)
        return mrc;
    sc_cli_progress shown;
    int prc = sc_cli_progress_open(&shown, a);
    if (prc != 0)
        return prc;
    prc = env_install_with(a, &shown);
    sc_cli_progress_close(&shown);
    return prc;
}

/* ---- doctor ---------------------------------------------------------------- */

typedef enum { ST_OK, ST_FAILED, ST_WARNING } check_status;

typedef struct check {
    const char *name;
    check_status status;
    char detail[1280]; /* room for a path and an sc_error message */
    char remedy[512];
} check;

#define MAX_CHECKS 16 /* 14 at most: nine, and five for a CUDA target */

typedef struct doctor {
    check checks[MAX_CHECKS];
    size_t n;
} doctor;

static check *add_check(doctor *d, const char *name, check_status st, const char *remedy,
                        const char *fmt, const char *arg1, const char *arg2)
{
    if (d->n == MAX_CHECKS) { /* a check added without raising MAX_CHECKS */
        fprintf(stderr, "scrollcase: internal error: doctor has more than %d checks\n",
                MAX_CHECKS);
        abort();
    }
    check *k = &d->checks[d->n++];
    k->name = name;
    k->status = st;
    snprintf(k->detail, sizeof k->detail, fmt, arg1 ? arg1 : "", arg2 ? arg2 : "");
    snprintf(k->remedy, sizeof k->remedy, "%s", st == ST_OK ? "" : remedy);
    return k;
}

/* The libraries loaded on first use (libraries.h), loaded now: a host
 * without libcurl fails its first download, one without libarchive its
 * first packed environment or asset archive. */
static void check_libraries(doctor *d)
{
    for (size_t i = 0; i < sc_library_count(); i++) {
        const sc_library_info *l = sc_library_at(i);
        sc_error err;
        char remedy[128];
        snprintf(remedy, sizeof remedy, "install it: `apt-get install %s`", l->package);
        if (sc_library_load(i, &err) == SC_OK)
            add_check(d, l->name, ST_OK, "", "%s, for %s", l->soname, l->needed_for);
        else
            add_check(d, l->name, ST_FAILED, remedy, "%s%s", err.message, NULL);
    }
}

static const char *toolkit_dir(void)
{
    const char *h = getenv("SCROLLCASE_CUDA_HOME");
    if (h == NULL || h[0] == '\0')
        h = getenv("CUDA_HOME");
    return h != NULL && h[0] != '\0' ? h : "/usr/local/cuda";
}

static void check_git(doctor *d, const char *root)
{
    char *git = sc_tool_which("git");
    if (git == NULL) {
        add_check(d, "git", ST_FAILED, "install git; a build records the commit it came from",
                  "git not found on PATH%s%s", NULL, NULL);
        return;
    }
    char out[128] = "";
    int status = 0;
    sc_error err;
    char *argv[] = {git, "-C", (char *)root, "rev-parse", "HEAD", NULL};
    if (sc_tool_run_capture(argv, NULL, out, sizeof out, 1, &status, &err) != SC_OK ||
        status != 0 || strlen(out) < 12) {
        add_check(d, "git", ST_FAILED,
                  "run inside a git checkout with at least one commit (git init; git commit)",
                  "no commit at %s%s", root, NULL);
    } else {
        out[12] = '\0';
        add_check(d, "git", ST_OK, "", "HEAD %s%s", out, NULL);
    }
    free(git);
}

static void check_keys(doctor *d, const char *keys_dir)
{
    sc_key_paths paths;
    memset(&paths, 0, sizeof paths);
    sc_error err;
    sc_signing_key key;
    memset(&key, 0, sizeof key);
    if (sc_key_paths_in(keys_dir, &paths, &err) != SC_OK ||
        sc_keys_load(paths.private_path, paths.public_path, &key, &err) != SC_OK) {
        add_check(d, "keys", ST_FAILED,
                  "run `" SC_REMEDY_KEYGEN "`, or sign externally: `" SC_REMEDY_SIGNER "`",
                  "no signing key pair in %s: %s", keys_dir, err.message);
    } else {
        add_check(d, "keys", ST_OK, "", "signing key %s in %s", key.key_id, keys_dir);
        sc_signing_key_free(&key);
    }
    sc_key_paths_free(&paths);
}

/* "12.4" from 12040. */
static void cuda_text(int v, char *buf, size_t size)
{
    snprintf(buf, size, "%d.%d", v / 1000, (v % 1000) / 10);
}

/* Compare "12.4"-style versions: <0, 0, >0. */
static int cuda_cmp(int driver, const char *target)
{
    int maj = atoi(target);
    const char *dot = strchr(target, '.');
    int min = dot ? atoi(dot + 1) : 0;
    int want = maj * 1000 + min * 10;
    return driver - want;
}

typedef struct cuda_verdict {
    int can_run, can_compile;
    char run_why[256], compile_why[256];
} cuda_verdict;

static void check_cuda(doctor *d, const sc_target *t, cuda_verdict *v)
{
    /* the driver, through the probe */
    sc_gpu_probe_options o = {getenv("SCROLLCASE_LIBCUDA"), getenv("SCROLLCASE_LIBNVML")};
    sc_gpu_facts facts;
    memset(&facts, 0, sizeof facts);
    sc_error err;
    sc_code pc = sc_gpu_probe(&o, &facts, &err);
    char text[64], buf[160];
    v->can_run = 0;
    if (pc == SC_OK && facts.status == SC_GPU_OK) {
        cuda_text(facts.cuda_version, text, sizeof text);
        snprintf(buf, sizeof buf, "%zu GPU(s), driver supports CUDA %s", facts.device_count, text);
        if (cuda_cmp(facts.cuda_version, t->cuda_version) < 0) {
            add_check(d, "libcuda", ST_FAILED,
                      "upgrade the NVIDIA driver to one that supports the target's CUDA",
                      "%s; the target needs CUDA %s", buf, t->cuda_version);
            snprintf(v->run_why, sizeof v->run_why,
                     "the driver supports CUDA %s, the target needs %s", text, t->cuda_version);
        } else {
            add_check(d, "libcuda", ST_OK, "", "%s%s", buf, NULL);
            v->can_run = 1;
            snprintf(v->run_why, sizeof v->run_why, "driver and %zu GPU(s)", facts.device_count);
        }
    } else {
        add_check(d, "libcuda", ST_FAILED,
                  "install the NVIDIA driver (libcuda.so.1) on this host, or in a container "
                  "run it with the GPU exposed (e.g. --gpus all)",
                  "no usable CUDA driver: %s%s", facts.reason[0] ? facts.reason : err.message,
                  NULL);
        snprintf(v->run_why, sizeof v->run_why, "no usable CUDA driver: %s",
                 facts.reason[0] ? facts.reason : "unknown");
    }
    if (facts.driver_version[0] != '\0')
        add_check(d, "driver", ST_OK, "", "NVIDIA driver %s%s", facts.driver_version, NULL);
    else
        add_check(d, "driver", ST_FAILED,
                  "install the NVIDIA driver with NVML (libnvidia-ml.so.1); releases record its "
                  "version", "no driver version (NVML %s)%s",
                  pc == SC_OK ? "missing" : "not reached", NULL);
    sc_gpu_facts_free(&facts);

    char *smi = sc_tool_which("nvidia-smi");
    if (smi != NULL)
        add_check(d, "nvidia-smi", ST_OK, "", "%s%s", smi, NULL);
    else
        add_check(d, "nvidia-smi", ST_WARNING,
                  "install the NVIDIA driver utilities (nvidia-smi) to inspect GPUs; boxes do "
                  "not need it",
                  "not found on PATH%s%s", NULL, NULL);
    free(smi);

    /* the toolkit: nvcc and headers */
    const char *home = toolkit_dir();
    char *bin = sc_path_join(home, "bin/nvcc");
    char *nvcc = bin != NULL ? sc_tool_which(bin) : NULL;
    if (nvcc == NULL)
        nvcc = sc_tool_which("nvcc");
    free(bin);
    if (nvcc != NULL)
        add_check(d, "nvcc", ST_OK, "", "%s%s", nvcc, NULL);
    else
        add_check(d, "nvcc", ST_WARNING,
                  "install the CUDA toolkit (only needed to compile CUDA code, not to build or "
                  "run a box); set SCROLLCASE_CUDA_HOME if it is not in /usr/local/cuda",
                  "not in %s/bin nor on PATH%s", home, NULL);
    /* headers: the toolkit's include dir, or the one beside the nvcc found */
    char *inc = sc_path_join(home, "include/cuda_runtime.h");
    int headers = inc != NULL && sc_is_file(inc);
    char *found_at = headers ? inc : NULL;
    char *alt = NULL;
    if (!headers && nvcc != NULL) {
        char *copy = strdup(nvcc);
        char *slash = copy ? strrchr(copy, '/') : NULL;
        if (slash != NULL) {
            *slash = '\0';
            alt = sc_path_join(copy, "../include/cuda_runtime.h");
            headers = alt != NULL && sc_is_file(alt);
            found_at = headers ? alt : NULL;
        }
        free(copy);
    }
    if (headers)
        add_check(d, "cuda headers", ST_OK, "", "%s%s", found_at, NULL);
    else
        add_check(d, "cuda headers", ST_WARNING,
                  "install the CUDA toolkit's development headers; cuda_runtime.h inside Python "
                  "packages (nvidia-cuda-runtime, triton) does not make a toolkit",
                  "no cuda_runtime.h under %s/include%s", home, NULL);
    v->can_compile = nvcc != NULL && headers;
    if (v->can_compile)
        snprintf(v->compile_why, sizeof v->compile_why, "nvcc and headers");
    else
        snprintf(v->compile_why, sizeof v->compile_why, "%s%s%s",
                 nvcc == NULL ? "no nvcc" : "", nvcc == NULL && !headers ? ", " : "",
                 headers ? "" : "no cuda_runtime.h in a toolkit");
    free(inc);
    free(alt);
    free(nvcc);
}

static const char *status_name(check_status s)
{
    return s == ST_OK ? "ok" : s == ST_FAILED ? "failed" : "warning";
}

static const char *status_symbol(check_status s)
{
    return s == ST_OK ? "\xE2\x9C\x93" : s == ST_FAILED ? "\xE2\x9C\x97" : "\xE2\x9A\xA0";
}

static int put_str(sc_json *o, const char *k, const char *v)
{
    sc_json *s = sc_json_new_string(v);
    return s != NULL && sc_json_object_append(o, k, s) == 0;
}

static int cmd_doctor(sc_cli_args *a)
{
    if (a->npositional > 0)
        return sc_cli_usage_error("unexpected argument %s", a->positional[0]);
    doctor d;
    memset(&d, 0, sizeof d);
    sc_error err;
    sc_error_clear(&err);
    sc_workspace ws;
    memset(&ws, 0, sizeof ws);
    int have_ws = sc_workspace_resolve(&a->ws, &ws, &err) == SC_OK;
    if (!have_ws) {
        add_check(&d, "workspace", ST_FAILED, "fix or remove the workspace configuration",
                  "%s%s", err.message, NULL);
    } else if (ws.config_path != NULL) {
        add_check(&d, "workspace", ST_OK, "", "config %s%s", ws.config_path, NULL);
    } else {
        add_check(&d, "workspace", ST_OK, "",
                  "no " SC_CONFIG_FILE " found; using defaults under %s%s", ws.root, NULL);
    }
    /* the scroll, when one is named */
    sc_scroll *s = NULL;
    char *sdir = NULL;
    int have_target = 0;
    sc_target target;
    memset(&target, 0, sizeof target);
    const char *scroll_ref = sc_cli_value(a, OPT_SCROLL);
    const char *target_id = sc_cli_value(a, OPT_TARGET);
    int scroll_failed = 0;
    if (have_ws) {
        const char *scrolls = ws.paths[SC_WS_SCROLLS];
        if (sc_is_dir(scrolls))
            add_check(&d, "scrolls", ST_OK, "", "%s%s", scrolls, NULL);
        else
            add_check(&d, "scrolls", ST_FAILED,
                      "run `" SC_REMEDY_INIT "`, or point --scrolls-dir at your scrolls",
                      "no scrolls directory at %s%s", scrolls, NULL);
        if (scroll_ref != NULL) {
            sc_error serr;
            if (pick_scroll(scrolls, scroll_ref, target_id, &s, &sdir, &serr) != SC_OK) {
                add_check(&d, "scroll", ST_FAILED, "fix the scroll, or name an existing one",
                          "%s%s", serr.message, NULL);
                scroll_failed = 1;
            } else {
                add_check(&d, "scroll", ST_OK, "", "%s (%s)", s->box_id, s->target_id);
                target = s->target;
                have_target = 1;
            }
        }
    } else {
        add_check(&d, "scrolls", ST_FAILED, "fix the workspace first", "not checked%s%s", NULL,
                  NULL);
    }
    if (!have_target && target_id != NULL && !scroll_failed) {
        sc_error terr;
        if (sc_target_parse_id(target_id, &target, &terr) != SC_OK) {
            sc_scroll_free(s);
            free(sdir);
            if (have_ws)
                sc_workspace_free(&ws);
            return sc_cli_usage_error("unknown target id %s", target_id);
        }
        have_target = 1;
    }
    check_git(&d, have_ws ? ws.root : ".");
    check_libraries(&d);
    /* pixi: only when a version is asked for */
    const char *toolchain = have_ws ? ws.paths[SC_WS_TOOLCHAIN] : NULL;
    const char *want = sc_cli_value(a, OPT_PIXI_VERSION);
    if (want == NULL)
        want = scroll_pixi_version(s);
    sc_pixi_tools tools;
    memset(&tools, 0, sizeof tools);
    if (want == NULL) {
        add_check(&d, "pixi", ST_OK, "",
                  "not checked: no --pixi-version and no --scroll pinning one%s%s", NULL, NULL);
    } else {
        sc_error perr;
        if (sc_pixi_discover_pixi(sc_cli_value(a, OPT_PIXI), toolchain, want, &tools, &perr) ==
            SC_OK)
            add_check(&d, "pixi", ST_OK, "", "pixi %s at %s", tools.pixi_version, tools.pixi);
        else
            add_check(&d, "pixi", ST_FAILED,
                      "install the pinned pixi from https://pixi.sh/ into the toolchain "
                      "directory's bin/ or onto PATH, or name it: `" SC_REMEDY_DOCTOR_PIXI "`",
                      "%s%s", perr.message, NULL);
    }
    {
        sc_error cerr;
        if (sc_pixi_discover_conda_pack(sc_cli_value(a, OPT_CONDA_PACK), toolchain, &tools,
                                        &cerr) == SC_OK)
            add_check(&d, "conda-pack", ST_OK, "", "%s%s", tools.conda_pack, NULL);
        else
            /* only the lock source packs: a prefix build never needs conda-pack, so
             * its absence fails doctor only when the lock's tools were asked for */
            add_check(&d, "conda-pack",
                      sc_cli_value(a, OPT_PIXI_VERSION) || sc_cli_value(a, OPT_PIXI) ||
                              sc_cli_value(a, OPT_CONDA_PACK)
                          ? ST_FAILED
                          : ST_WARNING,
                      "install conda-pack " SC_CONDA_PACK_VERSION
                      " (`pixi global install conda-pack==" SC_CONDA_PACK_VERSION
                      "`) and check it: `" SC_REMEDY_DOCTOR_CONDA_PACK "`; a build from a "
                      "prefix does not use it",
                      "%s%s", cerr.message, NULL);
    }
    sc_pixi_tools_free(&tools);
    if (have_ws)
        check_keys(&d, ws.paths[SC_WS_KEYS]);
    else
        add_check(&d, "keys", ST_FAILED, "fix the workspace first", "not checked%s%s", NULL, NULL);
    cuda_verdict cv;
    memset(&cv, 0, sizeof cv);
    int cuda = have_target && target.accelerator == SC_ACCEL_CUDA;
    if (cuda)
        check_cuda(&d, &target, &cv);

    int failed = 0;
    for (size_t i = 0; i < d.n; i++)
        failed |= d.checks[i].status == ST_FAILED;
    int rc = failed ? EXIT_REJECTED : 0;
    if (sc_cli_has(a, OPT_JSON)) {
        sc_json *root = sc_json_new_object(), *arr = sc_json_new_array();
        int ok = root != NULL && arr != NULL;
        for (size_t i = 0; ok && i < d.n; i++) {
            sc_json *o = sc_json_new_object();
            ok = o != NULL && put_str(o, "name", d.checks[i].name) &&
                 put_str(o, "status", status_name(d.checks[i].status)) &&
                 put_str(o, "detail", d.checks[i].detail) &&
                 (d.checks[i].remedy[0] == '\0' || put_str(o, "remedy", d.checks[i].remedy));
            if (o != NULL && sc_json_array_append(arr, o) != 0) {
                sc_json_free(o);
                ok = 0;
            }
        }
        if (ok) {
            ok = sc_json_object_append(root, "checks", arr) == 0;
            arr = NULL;
        }
        if (ok && cuda) {
            sc_json *c = sc_json_new_object();
            sc_json *r = sc_json_new_bool(cv.can_run), *m = sc_json_new_bool(cv.can_compile);
            ok = c != NULL && r != NULL && m != NULL && sc_json_object_append(c, "canRun", r) == 0;
            r = NULL;
            ok = ok && put_str(c, "canRunWhy", cv.run_why) &&
                 sc_json_object_append(c, "canCompile", m) == 0;
            m = NULL;
            ok = ok && put_str(c, "canCompileWhy", cv.compile_why) &&
                 sc_json_object_append(root, "cuda", c) == 0;
            if (!ok && c != NULL)
                sc_json_free(c);
            sc_json_free(r);
            sc_json_free(m);
        }
        sc_json_free(arr);
        if (!ok) {
            sc_json_free(root);
            root = NULL;
        }
        int prc;
        if (failed) {
            /* the checks beside the error: ok false, error doctor-failed */
            sc_error derr;
            size_t n = 0;
            for (size_t i = 0; i < d.n; i++)
                n += d.checks[i].status == ST_FAILED;
            sc_error_set(&derr, SC_E_DOCTOR_FAILED, NULL,
                         "%zu check(s) failed; each names its remedy", n);
            prc = sc_cli_fail_json(root, &derr);
        } else {
            prc = sc_cli_print_json(root);
        }
        if (prc != 0)
            rc = prc;
    } else {
        for (size_t i = 0; i < d.n; i++) {
            const check *k = &d.checks[i];
            printf("%s %-11s %s\n", status_symbol(k->status), k->name, k->detail);
            if (k->remedy[0] != '\0')
                printf("  remedy: %s\n", k->remedy);
        }
        if (cuda) {
            printf("can run CUDA: %s (%s)\n", cv.can_run ? "yes" : "no", cv.run_why);
            printf("can compile CUDA: %s (%s)\n", cv.can_compile ? "yes" : "no", cv.compile_why);
        }
        if (failed)
            printf("Some checks failed; see the remedies above.\n");
        if (fflush(stdout) != 0)
            rc = EXIT_REJECTED;
    }
    sc_scroll_free(s);
    free(sdir);
    if (have_ws)
        sc_workspace_free(&ws);
    return rc;
}

const sc_cli_command sc_cli_env_commands[] = {
    {"doctor", "host", "check this host for building boxes (CUDA too)",
     "Checks, without changing anything, what building boxes needs on this host:\n"
     "workspace, scrolls (the scrolls directory exists), git (HEAD of the\n"
     "project root), pixi (only when a version is asked for: --pixi-version, or\n"
     "the pixiVersion of --scroll; found as the build finds it and equal to it),\n"
     "conda-pack (answers --help), keys (the keys directory holds a signing pair\n"
     "that loads).  For a CUDA target (--scroll's, or --target a CUDA id) also:\n"
     "libcuda (the GPU probe finds a device and a driver that supports the\n"
     "target's CUDA), driver (NVML's driver version), nvidia-smi on PATH, nvcc\n"
     "(<toolkit>/bin or PATH) and cuda headers (cuda_runtime.h under\n"
     "<toolkit>/include), then \"can run CUDA: yes/no (why)\" and \"can compile\n"
     "CUDA: yes/no (why)\".  The toolkit is SCROLLCASE_CUDA_HOME, else CUDA_HOME,\n"
     "else /usr/local/cuda.  nvidia-smi, nvcc and the headers are warnings (a\n"
     "build never calls nvidia-smi or compiles CUDA).  Every failing check\n"
     "prints a remedy; exit 1 when any failed, 0 otherwise, 2 for a usage\n"
     "error.  --json prints {ok, checks: [{name, status, detail, remedy?}],\n"
     "cuda?: {canRun, canRunWhy, canCompile, canCompileWhy}}.\n",
     NULL,
     SC_CLI_OPTIONS({OPT_SCROLL, NULL}, {OPT_TARGET, NULL}, {OPT_PIXI, NULL},
                    {OPT_CONDA_PACK, NULL}, {OPT_PIXI_VERSION, "the pixi version to expect"},
                    {OPT_JSON, NULL}),
     NULL, 0, cmd_doctor, NULL},
    {"lock", "author", "re-lock a scroll with the pixi it pins",
     "Re-solves one scroll's dependencies: runs `pixi lock --manifest-path\n"
     "<scrollDir>/pixi.toml` with the pixi the scroll pins (pixiVersion; found\n"
     "as the build finds it: --pixi, SCROLLCASE_PIXI, <toolchain>/bin/pixi,\n"
     "PATH) and prints \"Updated <scrollDir>/pixi.lock\".  REF is <boxId>/<targetId>,\n"
     "or <boxId> with --target or a single target, or absent when the workspace\n"
     "has one scroll.  Exit 1 with tool-missing, tool-version-mismatch,\n"
     "invalid-scroll or invalid-pixi-toml; 2 for a usage error.\n",
     SC_CLI_OPERANDS({"REF", 0, 0, SC_COMPLETE_NONE}),
     SC_CLI_OPTIONS({OPT_TARGET, NULL}, {OPT_PIXI, NULL}, {OPT_JSON, NULL}),
     NULL, 0, cmd_lock, NULL},
    {"env-install", "author", "install a scroll's locked environment into a directory",
     "Materialises the environment of one scroll's pixi.lock (its default\n"
     "environment, for the scroll's target) into --into DIR, which must not\n"
     "exist, with exactly the installer `scrollcase build` uses by default\n"
     "(docs/format-v3.md 20.2, \"From the lock\"): no solver and no package\n"
     "manager.  Every package is fetched by its URL through the asset cache\n"
     "($SCROLLCASE_CACHE, else ~/.cache/scrollcase/assets) and its sha256\n"
     "checked before it is used; conda packages are extracted on every core and\n"
     "linked in dependency order, then the wheels.  Refused before any\n"
     "download: sdists, path, git or editable PyPI entries, conda_source\n"
     "packages, packages without sha256 (unsupported-lock-package), a lock with\n"
     "no packages for the target (lock-platform-missing), a wheel whose tags\n"
     "exclude the interpreter (wheel-incompatible).  --channel-mirror FROM=TO\n"
     "(repeatable) fetches URLs starting with FROM from TO; --channel-dir DIR\n"
     "takes packages from a local channel (<DIR>/<subdir>/<file>) first;\n"
     "--offline fetches nothing (asset-not-cached).  Pre/post-link scripts are\n"
     "never run; such packages are named in a note.  On failure DIR does not\n"
     "exist.  --json prints {into, lockPath, lockSha256, installer,\n"
     "condaPackages, wheels, bytesFetched, cacheHits, linkScriptsNotRun}.\n",
     SC_CLI_OPERANDS({"REF", 0, 0, SC_COMPLETE_NONE}),
     SC_CLI_OPTIONS({OPT_TARGET, NULL}, {OPT_INTO, NULL}, {OPT_CHANNEL_MIRROR, NULL},
                    {OPT_CHANNEL_DIR, NULL}, {OPT_OFFLINE, NULL}, {OPT_JOBS, NULL},
                    {OPT_JSON, NULL}, {OPT_QUIET, NULL}, {OPT_PROGRESS_FD, NULL}),
     NULL, 0, cmd_env_install, NULL},
    SC_CLI_END,
};
