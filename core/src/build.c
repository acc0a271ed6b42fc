/* SPDX-License-Identifier: Apache-2.0 */
/*
 * build.c — building a box from a scroll (docs/format-v3.md 20).
 *
 * Guarantees: the steps of 20.1 run in that order; everything decidable
 * from the scroll and the options is refused before a process runs or a
 * directory changes; provenance comes from git, the time from HEAD's
 * committer time in UTC; the payload digest is taken before the gates and
 * compared after them; documents are checked before they are signed and
 * published by rename, archive, release, channel, undoing what was placed
 * when a later step fails.  Outputs depend only on the commit, the scroll,
 * the environment's bytes and the options (20.7).
 *
 * The environment sources are envsource.h's, assets download.h's, asset
 * archives asset_archive.h's, the licence inventory licenses.h's and the
 * gates gates.h's; this file orders them and writes the documents.
 */
#define _POSIX_C_SOURCE 200809L
#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE
#endif

#include "scrollcase/build.h"

#include "scrollcase/asset_cache.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "scrollcase/address.h"
#include "scrollcase/asset_archive.h"
#include "scrollcase/audit.h"
#include "scrollcase/box.h"
#include "cleanup_internal.h"
#include "scrollcase/copy.h"
#include "scrollcase/digest.h"
#include "scrollcase/download.h"
#include "scrollcase/envelope.h"
#include "scrollcase/environment.h"
#include "scrollcase/envsource.h"
#include "scrollcase/execution.h"
#include "scrollcase/file.h"
#include "scrollcase/gates.h"
#include "scrollcase/json.h"
#include "scrollcase/keys.h"
#include "scrollcase/licenses.h"
#include "scrollcase/manifest.h"
#include "scrollcase/path.h"
#include "scrollcase/payload.h"
#include "scrollcase/pixi_lock.h"
#include "scrollcase/process.h"
#include "scrollcase/run.h"
#include "scrollcase/scroll.h"
#include "scrollcase/target.h"
#include "scrollcase/trust.h"

#ifndef SC_VERSION
#define SC_VERSION "0.0.0"
#endif

extern char **environ;

#define OOM(err) sc_error_set((err), SC_E_OUT_OF_MEMORY, NULL, "out of memory")
#define GIT_TIMEOUT_SECONDS 120

typedef struct build_ctx {
    const sc_build_options *o;
    sc_build_result *r;
    sc_scroll *s;
    const sc_json *eff;
    char target_id[SC_TARGET_ID_MAX];
    const char *channel, *weights, *ns;
    char *base_url;
    char *scroll_dir, *scratch_dir, *payload_dir;
    int scratch_slot; /* cleanup.h's slot of scratch_dir, -1 when none */
    sc_signing_key key;
    int have_key;
    sc_trust trust;
    int have_trust;
    sc_json *cuda_record;
    sc_json *cuda_binaries; /* the release's cudaBinaries (19.10), CUDA targets */
    char *git;
    sc_json *env_provenance;
    sc_json *gates;
    char prefix_digest[65];
    char *toml, *lock;
    sc_pixi_lock *plock;  /* the lock, read before anything runs */
    sc_json *inventory;   /* the licence inventory, checked before anything runs */
    char lock_sha[65];
    sc_pixi_tools tools;
    int have_tools;
    sc_env_map host;
    sc_payload_list after; /* the payload collected after the gates (with CRCs) */
    sc_payload_list env_list; /* the copied prefix as hashed (paths under the venv) */
    uint64_t asset_index, asset_count; /* the asset downloading, of how many */
    const char *asset_rel;             /* its relativePath */
    int asset_finished;                /* its last progress event was sent */
} build_ctx;

static void progress(const build_ctx *b, const char *step, const char *detail)
{
    if (b->o->progress)
        b->o->progress(b->o->progress_ctx, step, detail ? detail : "");
}

static char *str_printf(const char *fmt, const char *a, const char *c)
{
    size_t n = strlen(fmt) + strlen(a) + (c ? strlen(c) : 0) + 1;
    char *s = malloc(n);
    if (s)
        snprintf(s, n, fmt, a, c ? c : "");
    return s;
}

static const char *scroll_str(const sc_json *eff, const char *key)
{
    const sc_json *v = sc_json_get(eff, key);
    return v && v->type == SC_JSON_STRING ? v->string : NULL;
}

static size_t array_len(const sc_json *v)
{
    return v && v->type == SC_JSON_ARRAY ? v->length : 0;
}

static int put(sc_json *o, const char *key, sc_json *v)
{
    return sc_json_object_append(o, key, v) != 0;
}

static int put_copy(sc_json *o, const char *key, const sc_json *from)
{
    const sc_json *v = sc_json_get(from, key);
    return v ? put(o, key, sc_json_copy(v)) : 0;
}

sc_code sc_build_timestamp(long long seconds, char out[21], sc_error *err)
{
    time_t t = (time_t)seconds;
    struct tm tm;
    if ((long long)t != seconds || gmtime_r(&t, &tm) == NULL || tm.tm_year + 1900 < 0 ||
        tm.tm_year + 1900 > 9999)
        return sc_error_set(err, SC_E_INTERNAL, NULL, "commit time %lld is out of range",
                            seconds);
    char buf[80];
    snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02dZ", tm.tm_year + 1900,
             tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
    memcpy(out, buf, 20);
    out[20] = '\0';
    return SC_OK;
}

/* ---- processes ---------------------------------------------------------- */

static char *const *host_env(const build_ctx *b)
{
    return b->o->host_env ? b->o->host_env : environ;
}

/* The first executable <dir>/<name> along PATH of the host environment. */
static char *find_on_path(char *const *envp, const char *name)
{
    const char *path = NULL;
    for (size_t i = 0; envp && envp[i]; i++)
        if (strncmp(envp[i], "PATH=", 5) == 0)
            path = envp[i] + 5;
    if (path == NULL)
        path = "/usr/bin:/bin";
    const char *p = path;
    for (;;) {
        const char *end = strchr(p, ':');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        if (n > 0 && p[0] == '/') {
            char *cand = malloc(n + strlen(name) + 2);
            if (cand == NULL)
                return NULL;
            memcpy(cand, p, n);
            cand[n] = '/';
            strcpy(cand + n + 1, name);
            if (sc_is_file(cand) && access(cand, X_OK) == 0)
                return cand;
            free(cand);
        }
        if (end == NULL)
            return NULL;
        p = end + 1;
    }
}

/* Run argv (no shell) in cwd; *out = its stdout (NUL-terminated). */
static sc_code run_capture(const char *program, char *const *argv, char *const *envp,
                           const char *cwd, char **out, int *status, sc_error *err)
{
    *out = NULL;
    FILE *f = tmpfile();
    if (f == NULL)
        return sc_error_set(err, SC_E_IO, NULL, "cannot create a temporary file: %s",
                            strerror(errno));
    int devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
    sc_process_spec spec = {program, argv, envp, cwd, devnull, fileno(f), devnull,
                            GIT_TIMEOUT_SECONDS, 0, 1, NULL, NULL, 0};
    sc_process_result res;
    sc_code c = sc_process_run(&spec, &res, err);
    if (devnull >= 0)
        close(devnull);
    if (c == SC_OK) {
        *status = res.exited ? res.exit_code : 128 + res.term_signal;
        long n = (fflush(f) == 0 && fseek(f, 0, SEEK_END) == 0) ? ftell(f) : -1;
        char *buf = n >= 0 ? malloc((size_t)n + 1) : NULL;
        if (n < 0)
            c = sc_error_set(err, SC_E_IO, NULL, "cannot read the output of %s", program);
        else if (buf == NULL)
            c = OOM(err);
        else {
            rewind(f);
            if (fread(buf, 1, (size_t)n, f) != (size_t)n) {
                free(buf);
                buf = NULL;
                c = sc_error_set(err, SC_E_IO, NULL, "cannot read the output of %s", program);
            } else {
                buf[n] = '\0';
                *out = buf;
            }
        }
    }
    fclose(f);
    return c;
}

/* ---- files -------------------------------------------------------------- */

static sc_code mkdirs(const char *path, sc_error *err)
{
    char *p = strdup(path);
    if (p == NULL)
        return OOM(err);
    for (char *s = p + 1;; s++) {
        if (*s == '/' || *s == '\0') {
            char save = *s;
            *s = '\0';
            if (mkdir(p, 0755) != 0 && errno != EEXIST) {
                sc_code c = sc_error_set(err, SC_E_IO, p, "cannot create directory %s: %s", p,
                                         strerror(errno));
                free(p);
                return c;
            }
            *s = save;
            if (save == '\0')
                break;
        }
    }
    free(p);
    return sc_is_dir(path) ? SC_OK
                           : sc_error_set(err, SC_E_IO, path, "%s is not a directory", path);
}

static sc_code copy_file(const char *from, const char *to, unsigned mode, sc_error *err)
{
    int in;
    sc_code oc = sc_file_open_regular(from, SC_FILE_NOFOLLOW, &in, NULL, NULL, err);
    if (oc != SC_OK)
        return oc;
    int out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (out < 0) {
        close(in);
        return sc_error_set(err, SC_E_IO, to, "cannot create %s: %s", to, strerror(errno));
    }
    sc_code c = sc_copy_fd(in, out, from, to, err);
    if (c == SC_OK && fchmod(out, mode) != 0)
        c = sc_error_set(err, SC_E_IO, to, "cannot chmod %s: %s", to, strerror(errno));
    if (close(out) != 0 && c == SC_OK)
        c = sc_error_set(err, SC_E_IO, to, "cannot write %s: %s", to, strerror(errno));
    close(in);
    return c;
}

/* ---- step 1: the scroll and the options --------------------------------- */

static int valid_namespace(const char *ns)
{
    char kind[SC_NAMESPACE_MAX + 16];
    size_t n = strlen(ns);
    if (n == 0 || n >= SC_NAMESPACE_MAX)
        return 0;
    snprintf(kind, sizeof kind, "%s.release", ns);
    sc_doc_type t;
    return sc_manifest_parse_kind(kind, strlen(kind), &t, NULL);
}

static sc_code preflight_signing(build_ctx *b, sc_error *err)
{
    const sc_build_options *o = b->o;
    const char *keys = o->workspace->paths[SC_WS_KEYS];
    sc_key_paths kp = {NULL, NULL};
    sc_code c = SC_OK;
    if (o->signer_command != NULL) {
        if (o->key_id != NULL)
            return sc_error_set(err, SC_E_USAGE, NULL,
                                "--key-id is for local keys, not with --signer-command");
        if (o->private_key != NULL)
            return sc_error_set(err, SC_E_USAGE, NULL,
                                "--private-key is for local signing, not with --signer-command "
                                "(the external signer holds its key)");
        char **words = NULL;
        size_t count = 0;
        c = sc_signer_split(o->signer_command, &words, &count, err);
        sc_signer_words_free(words);
        if (c != SC_OK)
            return c;
        const char *trust = o->public_key;
        if (trust == NULL) {
            if ((c = sc_key_paths_in(keys, &kp, err)) != SC_OK)
                return c;
            trust = kp.public_path;
        }
        c = sc_trust_read_file(trust, &b->trust, err);
        b->have_trust = c == SC_OK;
        sc_key_paths_free(&kp);
        return c;
    }
    c = sc_keys_load_signing(keys, o->private_key, o->public_key, o->key_id, &b->key, err);
    b->have_key = c == SC_OK;
    return c;
}

/* Is rel the relativePath of a declared asset or local file? */
static int declared_source(const sc_json *eff, const char *rel)
{
    const char *arrays[] = {"assets", "localFiles"};
    for (size_t k = 0; k < 2; k++) {
        const sc_json *a = sc_json_get(eff, arrays[k]);
        for (size_t i = 0; i < array_len(a); i++) {
            const char *p = scroll_str(sc_json_at(a, i), "relativePath");
            if (p && strcmp(p, rel) == 0)
                return 1;
        }
    }
    return 0;
}

/* The lock source's road: pixi + conda-pack only when asked for, by
 * --environment-from pixi or (upstream's spelling) by naming --pixi or
 * --conda-pack. */
static int from_pixi(const sc_build_options *o)
{
    if (o->environment_from != NULL)
        return strcmp(o->environment_from, "pixi") == 0;
    return o->pixi != NULL || o->conda_pack != NULL;
}

static void install_note(void *ctx, const char *text)
{
    progress(ctx, "note", text);
}

/* The native installer's options for this build (20.2, "From the lock"). */
static void lock_options(const build_ctx *b, sc_lock_install_options *lo)
{
    memset(lo, 0, sizeof *lo);
    lo->lock_path = b->lock;
    lo->target = &b->s->target;
    lo->cache_dir = b->o->asset_cache;
    lo->offline = b->o->offline;
    lo->mirrors = b->o->channel_mirrors;
    lo->nmirrors = b->o->nchannel_mirrors;
    lo->channel_dir = b->o->channel_dir;
    lo->jobs = b->o->jobs;
    lo->progress = b->o->transfer;
    lo->progress_ctx = b->o->transfer_ctx;
    lo->note = install_note;
    lo->note_ctx = (void *)b;
}

/* The licence inventory (20.4), decided before anything runs: built from
 * the lock, the prefix's conda-meta checked against the lock for a prefix
 * build, then compared with the reviewed file.  Step 17 only writes it. */
static sc_code preflight_licenses(build_ctx *b, sc_error *err)
{
    const char *reviewed = scroll_str(b->eff, "condaDependencyLicenseAudit");
    if (reviewed == NULL)
        return SC_OK;
    unsigned char d[SC_SHA256_LEN];
    char hex[65];
    sc_code c = sc_sha256_file(b->lock, d, err);
    if (c != SC_OK)
        return c;
    sc_hex_lower(d, SC_SHA256_LEN, hex);
    c = sc_license_inventory(b->plock, &b->s->target, hex, NULL, &b->inventory, err);
    if (c == SC_OK && b->o->environment_prefix != NULL)
        c = sc_license_check_prefix(b->plock, &b->s->target, b->o->environment_prefix, err);
    if (c != SC_OK)
        return c;
    char *path = sc_path_join(b->o->workspace->root, reviewed);
    c = path ? sc_license_gate(b->inventory, path, NULL, err) : OOM(err);
    free(path);
    return c;
}

static sc_code step_scroll(build_ctx *b, sc_error *err)
{
    const sc_build_options *o = b->o;
    if (o->workspace == NULL || o->ref == NULL)
        return sc_error_set(err, SC_E_USAGE, NULL, "a build needs a workspace and a scroll");
    progress(b, "scroll", o->ref);
    sc_code c = sc_scroll_load(o->workspace->paths[SC_WS_SCROLLS], o->ref, &b->s, err);
    if (c != SC_OK)
        return c;
    b->eff = b->s->effective;
    sc_target_id(&b->s->target, b->target_id, sizeof b->target_id);
    if ((b->scroll_dir = sc_path_join(o->workspace->paths[SC_WS_SCROLLS], o->ref)) == NULL)
        return OOM(err);

    b->channel = o->channel ? o->channel : SC_BUILD_DEFAULT_CHANNEL;
    if (strcmp(b->channel, "nightly") != 0 && strcmp(b->channel, "beta") != 0 &&
        strcmp(b->channel, "stable") != 0)
        return sc_error_set(err, SC_E_USAGE, NULL,
                            "Unsupported channel: %s. Use nightly or beta or stable.",
                            b->channel);
    b->weights = o->weights ? o->weights : scroll_str(b->eff, "weights");
    if (b->weights == NULL)
        b->weights = "embed";
    if (strcmp(b->weights, "embed") != 0 && strcmp(b->weights, "on-demand") != 0)
        return sc_error_set(err, SC_E_USAGE, NULL,
                            "Unsupported weights mode: %s. Use embed or on-demand.", b->weights);
    int on_demand = strcmp(b->weights, "on-demand") == 0;
    const sc_json *assets = sc_json_get(b->eff, "assets");
    const sc_json *archives = sc_json_get(b->eff, "assetArchives");
    if (on_demand && array_len(assets) == 0)
        return sc_error_set(err, SC_E_INVALID_SCROLL, "$.weights",
                            "an on-demand box needs at least one asset");
    if (on_demand && array_len(archives) > 0)
        return sc_error_set(err, SC_E_INVALID_SCROLL, "$.assetArchives",
                            "asset archives are expanded at build time; an on-demand box "
                            "cannot declare them");
    for (size_t i = 0; i < array_len(archives); i++) {
        const char *rel = scroll_str(sc_json_at(archives, i), "relativePath");
        if (rel == NULL || !declared_source(b->eff, rel))
            return sc_error_set(err, SC_E_INVALID_SCROLL, "$.assetArchives",
                                "asset archive %s is neither a declared asset nor a local file",
                                rel ? rel : "?");
    }
    const char *url = o->asset_base_url ? o->asset_base_url : scroll_str(b->eff, "assetBaseUrl");
    if (url == NULL || url[0] == '\0')
        return sc_error_set(err, SC_E_USAGE, NULL,
                            "No asset base URL: declare assetBaseUrl in the scroll or pass "
                            "--asset-base-url.");
    size_t ul = strlen(url);
    if ((b->base_url = strdup(url)) == NULL)
        return OOM(err);
    if (ul > 1 && b->base_url[ul - 1] == '/')
        b->base_url[ul - 1] = '\0';
    b->ns = o->ns ? o->ns : SC_DEFAULT_NAMESPACE;
    if (!valid_namespace(b->ns))
        return sc_error_set(err, SC_E_USAGE, NULL, "Invalid document namespace: %s", b->ns);
    if ((c = sc_run_native_check(&b->s->target, err)) != SC_OK)
        return c;
    if ((c = preflight_signing(b, err)) != SC_OK)
        return c;
    if (o->environment_from != NULL && strcmp(o->environment_from, "lock") != 0 &&
        strcmp(o->environment_from, "pixi") != 0)
        return sc_error_set(err, SC_E_USAGE, "--environment-from",
                            "--environment-from is lock (the native installer, the default) or "
                            "pixi (pixi install + conda-pack), not %s",
                            o->environment_from);
    if (o->environment_prefix != NULL && (o->pixi != NULL || o->conda_pack != NULL))
        return sc_error_set(err, SC_E_USAGE, NULL,
                            "--environment-prefix and --pixi/--conda-pack are two sources; "
                            "give one");
    if (o->environment_prefix != NULL && o->environment_from != NULL)
        return sc_error_set(err, SC_E_USAGE, NULL,
                            "--environment-prefix and --environment-from are two sources; "
                            "give one");
    if (!from_pixi(o) && (o->pixi != NULL || o->conda_pack != NULL))
        return sc_error_set(err, SC_E_USAGE, NULL,
                            "--pixi and --conda-pack name the tools of --environment-from pixi, "
                            "not of --environment-from lock");
    if (o->environment_prefix != NULL &&
        (o->nchannel_mirrors > 0 || o->channel_dir != NULL))
        return sc_error_set(err, SC_E_USAGE, NULL,
                            "--channel-mirror and --channel-dir feed the lock source, not "
                            "--environment-prefix");
    if (o->environment_prefix != NULL) {
        struct stat st;
        if (lstat(o->environment_prefix, &st) != 0 || !S_ISDIR(st.st_mode))
            return sc_error_set(err, SC_E_IO, o->environment_prefix,
                                "environment prefix %s is not a directory",
                                o->environment_prefix);
    }
    /* the lock is needed by the lock source, the CUDA audit and the licence
     * inventory */
    int cuda_audit = b->s->target.accelerator == SC_ACCEL_CUDA && !o->no_cuda_audit;
    if (o->environment_prefix == NULL || cuda_audit ||
        sc_json_get(b->eff, "condaDependencyLicenseAudit")) {
        b->toml = sc_path_join(b->scroll_dir, "pixi.toml");
        b->lock = sc_path_join(b->scroll_dir, "pixi.lock");
        if (b->toml == NULL || b->lock == NULL)
            return OOM(err);
        const char *missing = !sc_is_file(b->toml) ? b->toml : !sc_is_file(b->lock) ? b->lock : NULL;
        if (missing)
            return sc_error_set(err, SC_E_MISSING_LOCK, missing, "Missing dependency lock: %s",
                                missing);
    }
    /* an unreadable lock is found now, not after the environment is made */
    if (b->lock != NULL && (c = sc_pixi_lock_read(b->lock, &b->plock, err)) != SC_OK)
        return c;
    /* the native installer's refusals (an sdist, no sha256, no platform, ...)
     * come now too: nothing is downloaded before they pass */
    if (o->environment_prefix == NULL && !from_pixi(o)) {
        sc_lock_install_options lo;
        lock_options(b, &lo);
        sc_lock_install_plan plan;
        if ((c = sc_lock_install_plan_make(&lo, &plan, err)) != SC_OK)
            return c;
        sc_lock_install_plan_free(&plan);
    }
    c = sc_audit_gate(&b->s->target, b->scroll_dir, o->no_cuda_audit, NULL, &b->cuda_record,
                      err);
    if (c == SC_OK)
        c = preflight_licenses(b, err);
    return c;
}

/* ---- step 2: git -------------------------------------------------------- */

static sc_code git(build_ctx *b, const char *const *args, char **out, int *status,
                   sc_error *err)
{
    char *argv[8];
    size_t n = 0;
    argv[n++] = "git";
    for (size_t i = 0; args[i] && n < 7; i++)
        argv[n++] = (char *)args[i];
    argv[n] = NULL;
    sc_code c = run_capture(b->git, argv, host_env(b), b->o->workspace->root, out, status, err);
    if (c == SC_E_SPAWN_FAILURE)
        c = sc_error_set(err, SC_E_TOOL_MISSING, b->git, "git does not start: %s",
                         err->message);
    return c;
}

static sc_code step_git(build_ctx *b, sc_error *err)
{
    progress(b, "git", b->o->workspace->root);
    b->git = find_on_path(host_env(b), "git");
    if (b->git == NULL)
        return sc_error_set(err, SC_E_NOT_A_GIT_CHECKOUT, NULL,
                            "A box records the commit it was built from; git is not on PATH.");
    char *out = NULL;
    int status = 0;
    static const char *const head[] = {"rev-parse", "--verify", "HEAD", NULL};
    sc_code c = git(b, head, &out, &status, err);
    if (c != SC_OK)
        return c;
    size_t n = strcspn(out, "\n");
    if (status != 0 || n != 40 || !sc_is_lower_hex(out, n, 40)) {
        free(out);
        return sc_error_set(err, SC_E_NOT_A_GIT_CHECKOUT, b->o->workspace->root,
                            "A box records the commit it was built from; run inside a git "
                            "checkout (%s is not one with a commit).",
                            b->o->workspace->root);
    }
    memcpy(b->r->builder_revision, out, 40);
    b->r->builder_revision[40] = '\0';
    free(out);
    static const char *const st[] = {"status", "--porcelain", "--untracked-files=all", NULL};
    if ((c = git(b, st, &out, &status, err)) != SC_OK)
        return c;
    int dirty = out[0] != '\0';
    free(out);
    if (status != 0)
        return sc_error_set(err, SC_E_NOT_A_GIT_CHECKOUT, b->o->workspace->root,
                            "git status failed in %s", b->o->workspace->root);
    if (dirty && !b->o->allow_dirty)
        return sc_error_set(err, SC_E_DIRTY_SOURCE_TREE, b->o->workspace->root,
                            "Refusing to build from a dirty source tree. Commit first, or "
                            "pass --allow-dirty for local development.");
    b->r->source_tree_dirty = dirty;
    static const char *const when[] = {"show", "-s", "--format=%ct", "HEAD", NULL};
    if ((c = git(b, when, &out, &status, err)) != SC_OK)
        return c;
    char *end = NULL;
    errno = 0;
    long long secs = strtoll(out, &end, 10);
    int ok = status == 0 && end != out && errno == 0 && (*end == '\n' || *end == '\0');
    free(out);
    if (!ok)
        return sc_error_set(err, SC_E_NOT_A_GIT_CHECKOUT, b->o->workspace->root,
                            "cannot read the committer time of HEAD");
    return sc_build_timestamp(secs, b->r->built_at, err);
}

/* ---- steps 3-5: directories, environment, payload inputs ----------------- */

static sc_code step_reset(build_ctx *b, sc_error *err)
{
    const char *scroll_id = scroll_str(b->eff, "scrollId");
    if (scroll_id == NULL)
        return sc_error_set(err, SC_E_INTERNAL, "$.scrollId", "effective scroll has no scrollId");
    b->scratch_dir = sc_path_join(b->o->workspace->paths[SC_WS_BUILD], scroll_id);
    if (b->scratch_dir == NULL ||
        (b->payload_dir = sc_path_join(b->scratch_dir, SC_BUILD_PAYLOAD_DIR)) == NULL)
        return OOM(err);
    sc_code c = sc_file_remove_tree(b->scratch_dir, err);
    if (c == SC_OK) {
        /* an interrupted build leaves no scratch either (cleanup.h) */
        sigset_t held;
        sc_cleanup_hold(&held);
        c = mkdirs(b->scratch_dir, err);
        if (c == SC_OK && (b->scratch_slot = sc_cleanup_add_path(b->scratch_dir)) < 0)
            c = sc_error_set(err, SC_E_IO, b->scratch_dir,
                             "cannot register %s for cleanup: %s", b->scratch_dir,
                             strerror(errno));
        sc_cleanup_release(&held);
    }
    if (c == SC_OK)
        c = mkdirs(b->payload_dir, err);
    return c;
}

/* Lock source: find pixi (the scroll's exact version) and conda-pack. */
static sc_code step_tools(build_ctx *b, sc_error *err)
{
    if (b->o->environment_prefix != NULL || !from_pixi(b->o))
        return SC_OK;
    progress(b, "tools", scroll_str(b->eff, "pixiVersion"));
    sc_code c = sc_pixi_discover(b->o->pixi, b->o->conda_pack,
                                 b->o->workspace->paths[SC_WS_TOOLCHAIN],
                                 scroll_str(b->eff, "pixiVersion"), &b->tools, err);
    b->have_tools = c == SC_OK;
    return c;
}

/* The target's interpreter, a file or a link resolving to one, in the
 * payload (20.2: the lock source ends with it) -> else relocation-failed. */
static sc_code entry_point_present(const build_ctx *b, sc_error *err)
{
    const char *ep = sc_target_python_entry_point(&b->s->target);
    char *path = sc_path_join(b->payload_dir, ep);
    if (path == NULL)
        return OOM(err);
    struct stat st;
    sc_code c = SC_OK;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
        c = sc_error_set(err, SC_E_RELOCATION_FAILED, ep,
                         "the environment installed from the lock has no %s: the lock names no "
                         "python package for the target",
                         ep);
    free(path);
    return c;
}

static sc_code step_environment(build_ctx *b, sc_error *err)
{
    const char *prefix = b->o->environment_prefix;
    char *venv = sc_path_join(b->payload_dir, sc_target_payload_root(&b->s->target));
    if (venv == NULL)
        return OOM(err);
    sc_code c;
    sc_json *e = sc_json_new_object();
    int bad = e == NULL;
    if (prefix != NULL) {
        progress(b, "environment", prefix);
        c = sc_envsource_copy_prefix_with(prefix, venv, &b->s->target, b->prefix_digest,
                                          b->o->jobs, &b->env_list, b->o->transfer,
                                          b->o->transfer_ctx, err);
        if (c == SC_OK && !bad)
            bad = put(e, "source", sc_json_new_string("prefix")) ||
                  put(e, "prefixDigest", sc_json_new_string(b->prefix_digest));
    } else if (!from_pixi(b->o)) {
        progress(b, "environment", "the lock, installed natively");
        sc_lock_install_options lo;
        lock_options(b, &lo);
        sc_lock_install_result res;
        c = sc_lock_install(&lo, venv, &res, err);
        if (c == SC_OK)
            c = entry_point_present(b, err);
        if (c == SC_OK && !bad)
            bad = put(e, "source", sc_json_new_string("lock")) ||
                  put(e, "lockSha256", sc_json_new_string(res.lock_sha256)) ||
                  put(e, "installer", sc_json_new_string(sc_lock_install_installer()));
        sc_lock_install_result_free(&res);
        if (c != SC_OK) {
            sc_error ignored;
            (void)sc_file_remove_tree(venv, &ignored);
        }
    } else {
        progress(b, "environment", "pixi install --frozen, conda-pack, relocation");
        c = sc_envsource_install_pixi(&b->tools, b->scroll_dir, b->scratch_dir, venv,
                                      &b->s->target, b->lock_sha, err);
        if (c == SC_OK && !bad)
            bad = put(e, "source", sc_json_new_string("pixi-lock")) ||
                  put_copy(e, "pixiVersion", b->eff) ||
                  put(e, "lockSha256", sc_json_new_string(b->lock_sha));
    }
    free(venv);
    if (c == SC_OK && bad)
        c = OOM(err);
    if (c != SC_OK) {
        sc_json_free(e);
        return c;
    }
    b->env_provenance = e;
    return SC_OK;
}

static void download_progress(void *ctx, const char *what, uint64_t done, uint64_t total)
{
    const build_ctx *b = ctx;
    if (b->o->transfer != NULL) {
        /* bytes and files; the last event once */
        int finished = total > 0 && done == total;
        if (finished && b->asset_finished)
            return;
        ((build_ctx *)ctx)->asset_finished = finished;
        sc_progress_event e = {"download", b->asset_rel, done, total,
                               b->asset_index + (uint64_t)finished, b->asset_count, finished,
                               0, 0, NULL};
        b->o->transfer(b->o->transfer_ctx, &e);
        return;
    }
    if (done == 0 || (total > 0 && done == total)) {
        char line[64];
        snprintf(line, sizeof line, "%llu/%llu bytes", (unsigned long long)done,
                 (unsigned long long)total);
        char *d = str_printf("%s %s", what, line);
        if (d)
            progress(b, "download", d);
        free(d);
    }
}

static sc_code step_assets(build_ctx *b, sc_error *err)
{
    if (strcmp(b->weights, "embed") != 0)
        return SC_OK;
    const sc_json *a = sc_json_get(b->eff, "assets");
    sc_download_options opt;
    memset(&opt, 0, sizeof opt);
    opt.progress = download_progress;
    opt.ctx = b;
    sc_code c = SC_OK;
    char *cache = NULL;
    if (array_len(a) > 0) {
        if (b->o->asset_cache != NULL)
            cache = strdup(b->o->asset_cache);
        else if ((c = sc_asset_cache_dir(&cache, err)) != SC_OK)
            return c;
        if (cache == NULL)
            return OOM(err);
    }
    for (size_t i = 0; c == SC_OK && i < array_len(a); i++) {
        const sc_json *as = sc_json_at(a, i);
        const char *rel = scroll_str(as, "relativePath");
        uint64_t size = 0;
        sc_json_uint53(sc_json_get(as, "sizeBytes"), &size);
        char *dst = sc_path_join(b->payload_dir, rel);
        if (dst == NULL) {
            free(cache);
            return OOM(err);
        }
        char *slash = strrchr(dst, '/');
        *slash = '\0';
        c = mkdirs(dst, err);
        *slash = '/';
        if (c == SC_OK) {
            progress(b, "download", rel);
            b->asset_index = (uint64_t)i;
            b->asset_count = (uint64_t)array_len(a);
            b->asset_rel = rel;
            b->asset_finished = 0;
            if (b->o->transfer != NULL) /* the step's first event, at 0 */
                download_progress(b, rel, 0, size);
            /* the cache first: a second build fetches nothing, a .part there resumes */
            c = sc_asset_cache_copy_to(cache, scroll_str(as, "url"), size,
                                       scroll_str(as, "sha256"), b->o->offline, &opt, dst, err);
            if (c == SC_OK && b->o->transfer != NULL && !b->asset_finished)
                download_progress(b, rel, size, size); /* from the cache: done at once */
        }
        free(dst);
    }
    free(cache);
    return c;
}

static sc_code step_asset_archives(build_ctx *b, sc_error *err)
{
    const sc_json *a = sc_json_get(b->eff, "assetArchives");
    sc_code c = SC_OK;
    for (size_t i = 0; c == SC_OK && i < array_len(a); i++) {
        progress(b, "asset-archive", scroll_str(sc_json_at(a, i), "relativePath"));
        c = sc_asset_archive_extract(b->payload_dir, sc_json_at(a, i), err);
    }
    return c;
}

static sc_code step_licenses(build_ctx *b, sc_error *err)
{
    if (b->inventory == NULL)
        return SC_OK;
    progress(b, "licences", scroll_str(b->eff, "condaDependencyLicenseAudit"));
    return sc_license_gate(b->inventory, NULL, b->payload_dir, err);
}

static sc_code step_local_files(build_ctx *b, sc_error *err)
{
    const sc_json *files = sc_json_get(b->eff, "localFiles");
    sc_code c = SC_OK;
    for (size_t i = 0; c == SC_OK && i < array_len(files); i++) {
        const sc_json *f = sc_json_at(files, i);
        const char *srcrel = scroll_str(f, "sourcePath"), *rel = scroll_str(f, "relativePath");
        const char *want = scroll_str(f, "sha256");
        /* links are followed while they stay in the project (20.3) */
        char *src = NULL;
        char *dst = sc_path_join(b->payload_dir, rel);
        struct stat st;
        if (dst == NULL)
            c = OOM(err);
        else if ((c = sc_file_resolve_local(b->o->workspace->root, srcrel, &src, err)) != SC_OK)
            ;
        else if (stat(src, &st) != 0)
            c = sc_error_set(err, SC_E_LOCAL_FILE_MISSING, srcrel,
                             "Local box file is missing: %s", srcrel);
        else if (want != NULL) {
            unsigned char d[SC_SHA256_LEN];
            char hex[65];
            c = sc_sha256_file(src, d, err);
            if (c == SC_OK) {
                sc_hex_lower(d, SC_SHA256_LEN, hex);
                if (strcmp(hex, want) != 0)
                    c = sc_error_set(err, SC_E_LOCAL_FILE_MISMATCH, srcrel,
                                     "Local box file SHA-256 mismatch: %s", srcrel);
            }
        }
        if (c == SC_OK) {
            char *slash = strrchr(dst, '/');
            *slash = '\0';
            c = mkdirs(dst, err);
            *slash = '/';
        }
        if (c == SC_OK) {
            unlink(dst);
            c = copy_file(src, dst, (st.st_mode & 0111) ? 0755 : 0644, err);
        }
        free(src);
        free(dst);
    }
    return c;
}

static sc_code step_prune(build_ctx *b, sc_error *err)
{
    const sc_json *p = sc_json_get(b->eff, "prunePaths");
    sc_code c = SC_OK;
    for (size_t i = 0; c == SC_OK && i < array_len(p); i++) {
        char *full = sc_path_join(b->payload_dir, sc_json_at(p, i)->string);
        if (full == NULL)
            return OOM(err);
        struct stat st;
        if (lstat(full, &st) == 0)
            c = S_ISDIR(st.st_mode) ? sc_file_remove_tree(full, err)
                                    : (unlink(full) == 0
                                           ? SC_OK
                                           : sc_error_set(err, SC_E_IO, full,
                                                          "cannot remove %s: %s", full,
                                                          strerror(errno)));
        free(full);
    }
    return c;
}

/* ---- 20.1 step 16: the CUDA binaries gate (19.10) --------------------------- */

static sc_code step_cuda_binaries(build_ctx *b, sc_error *err)
{
    progress(b, "cuda-binaries", b->payload_dir);
    sc_cuda_binaries audit;
    char *warning = NULL;
    sc_code c = sc_cuda_binaries_audit_jobs(b->payload_dir, b->o->jobs, &audit, err);
    if (c != SC_OK)
        return c;
    c = sc_gate_cuda_binaries(&audit, &b->s->target, sc_json_get(b->eff, "cuda"),
                              &b->cuda_binaries, &warning, err);
    sc_cuda_binaries_free(&audit);
    if (warning != NULL)
        progress(b, "warning", warning);
    free(warning);
    return c;
}

/* ---- step 6: checks and box.json ---------------------------------------- */

static int is_on_demand_asset(const build_ctx *b, const char *path)
{
    if (strcmp(b->weights, "on-demand") != 0)
        return 0;
    const sc_json *a = sc_json_get(b->eff, "assets");
    for (size_t i = 0; i < array_len(a); i++) {
        const char *p = scroll_str(sc_json_at(a, i), "relativePath");
        if (p && strcmp(p, path) == 0)
            return 1;
    }
    return 0;
}

static sc_code step_self_test_files(build_ctx *b, sc_error *err)
{
    const sc_json *files = sc_json_get(sc_json_get(b->eff, "selfTest"), "files");
    for (size_t i = 0; i < array_len(files); i++) {
        const char *p = sc_json_at(files, i)->string;
        if (is_on_demand_asset(b, p))
            continue;
        char *full = sc_path_join(b->payload_dir, p);
        if (full == NULL)
            return OOM(err);
        int ok = access(full, F_OK) == 0;
        free(full);
        if (!ok)
            return sc_error_set(err, SC_E_GATE_FAILED, p, "Missing self-test file: %s", p);
    }
    return SC_OK;
}

static sc_json *release_self_test(const build_ctx *b)
{
    const sc_json *st = sc_json_get(b->eff, "selfTest");
    sc_json *o = sc_json_new_object();
    if (o == NULL)
        return NULL;
    if (put(o, "pythonImports", sc_json_copy(sc_json_get(st, "imports"))) ||
        put(o, "timeoutSeconds", sc_json_copy(sc_json_get(st, "timeoutSeconds")))) {
        sc_json_free(o);
        return NULL;
    }
    return o;
}

static sc_json *provenance(const build_ctx *b)
{
    sc_json *p = sc_json_new_object(), *builder = sc_json_new_object();
    int bad = p == NULL || builder == NULL;
    if (builder && !bad)
        bad = put(builder, "name", sc_json_new_string(SC_BUILDER_NAME)) ||
              put(builder, "version", sc_json_new_string(SC_VERSION));
    if (!bad)
        bad = put_copy(p, "scrollId", b->eff) || put_copy(p, "scrollVersion", b->eff) ||
              put(p, "builderRevision", sc_json_new_string(b->r->builder_revision)) ||
              put(p, "sourceTreeDirty", sc_json_new_bool(b->r->source_tree_dirty)) ||
              put_copy(p, "sourceRevision", b->eff) || put_copy(p, "pythonVersion", b->eff) ||
              put(p, "environment", sc_json_copy(b->env_provenance));
    if (!bad) {
        bad = put(p, "builder", builder);
        builder = NULL;
    }
    if (!bad)
        bad = put(p, "builtAt", sc_json_new_string(b->r->built_at));
    sc_json_free(builder);
    if (bad) {
        sc_json_free(p);
        return NULL;
    }
    return p;
}

/* The members box.json shares with the release from pythonEntryPoint on. */
static int put_tail(const build_ctx *b, sc_json *o)
{
    int on_demand = strcmp(b->weights, "on-demand") == 0;
    int bad = put(o, "pythonEntryPoint",
                  sc_json_new_string(sc_target_python_entry_point(&b->s->target))) ||
              put_copy(o, "modelCacheSubdir", b->eff) ||
              put(o, "selfTest", release_self_test(b)) || put_copy(o, "environment", b->eff) ||
              put_copy(o, "execution", b->eff);
    if (!bad && on_demand)
        bad = put(o, "weights", sc_json_new_string("on-demand")) || put_copy(o, "assets", b->eff);
    if (!bad)
        bad = put(o, "provenance", provenance(b));
    return bad;
}

static int put_head(const build_ctx *b, sc_json *o, const char *kind)
{
    int bad = put(o, "schemaVersion", sc_json_new_number(SC_MANIFEST_SCHEMA_VERSION));
    if (!bad && kind)
        bad = put(o, "kind", sc_json_new_string(kind));
    return bad || put_copy(o, "boxId", b->eff) || put_copy(o, "modelId", b->eff) ||
           put_copy(o, "runtimeId", b->eff) || put_copy(o, "version", b->eff) ||
           put(o, "target", sc_target_to_json(&b->s->target));
}

static sc_code step_box_json(build_ctx *b, sc_error *err)
{
    sc_json *box = sc_json_new_object();
    if (box == NULL || put_head(b, box, NULL) || put_tail(b, box)) {
        sc_json_free(box);
        return OOM(err);
    }
    sc_code c = sc_execution_check(box, &b->s->target, sc_execution_has_in_dir,
                                   b->payload_dir, err);
    if (c == SC_OK && (c = sc_manifest_check(box, SC_DOC_BOX, NULL, err)) != SC_OK)
        sc_error_prefix(err, "box.json");
    char *path = c == SC_OK ? sc_path_join(b->payload_dir, "box.json") : NULL;
    if (c == SC_OK && path == NULL)
        c = OOM(err);
    if (c == SC_OK)
        c = sc_json_write_file(box, path, 0644, err);
    free(path);
    sc_json_free(box);
    return c;
}

/* ---- step 7: gates ------------------------------------------------------ */

static sc_code step_gates(build_ctx *b, char digest[65], sc_error *err)
{
    progress(b, "digest", b->payload_dir);
    sc_payload_list before = {0};
    sc_json *st = NULL, *parity = NULL, *host = NULL;
    sc_code c = sc_gate_payload_snapshot_with(b->payload_dir, b->o->jobs, &b->env_list,
                                              sc_target_payload_root(&b->s->target),
                                              b->o->transfer, b->o->transfer_ctx, &before,
                                              digest, err);
    sc_payload_list_free(&b->env_list);
    if (c == SC_OK) {
        progress(b, "self-test", sc_target_python_entry_point(&b->s->target));
        c = sc_gate_self_test_with(b->payload_dir, b->eff, &b->s->target,
                                   b->o->workspace->root, &b->host, -1, -1, b->o->transfer,
                                   b->o->transfer_ctx, &st, err);
    }
    if (c == SC_OK && sc_json_get(b->eff, "parity")) {
        progress(b, "parity", "");
        sc_gate_parity_options po;
        memset(&po, 0, sizeof po);
        po.progress = b->o->transfer;
        po.progress_ctx = b->o->transfer_ctx;
        c = sc_gate_parity_ex(b->payload_dir, b->eff, &b->s->target, &b->host, 0, &po, &parity,
                              &host, err);
    }
    /* Collected again, each file whose stamp shows no change keeping its
     * digest unread; the list is the archive step's too. */
    if (c == SC_OK)
        c = sc_gate_payload_recheck(b->payload_dir, &before, b->o->jobs, b->o->transfer,
                                    b->o->transfer_ctx, &b->after, err);
    sc_payload_list_free(&before);
    if (c != SC_OK) {
        sc_json_free(st);
        sc_json_free(parity);
        sc_json_free(host);
        return c;
    }
    sc_json *cuda = b->cuda_record;
    b->cuda_record = NULL;
    b->gates = sc_gates_record(st, parity, host, cuda);
    return b->gates ? SC_OK : OOM(err);
}

/* ---- step 8: digest list, size, archive ---------------------------------- */

static int under(const char *path, const char *prefix)
{
    size_t n = strlen(prefix);
    return strncmp(path, prefix, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

static int stored_path(const build_ctx *b, const char *path)
{
    const sc_json *a = sc_json_get(b->eff, "assets");
    for (size_t i = 0; i < array_len(a); i++) {
        const char *p = scroll_str(sc_json_at(a, i), "relativePath");
        if (p && under(path, p))
            return 1;
    }
    const sc_json *u = sc_json_get(b->eff, "uncompressedPaths");
    for (size_t i = 0; i < array_len(u); i++)
        if (under(path, sc_json_at(u, i)->string))
            return 1;
    return 0;
}

static sc_code step_archive(build_ctx *b, char *archive_tmp, sc_error *err)
{
    progress(b, "archive", archive_tmp);
    /* The list the gates check collected: hashed once (before the gates)
     * with each file's CRC-32, so a stored file is read once more, while it
     * is copied, and checked against that CRC. */
    sc_payload_list l = b->after;
    memset(&b->after, 0, sizeof b->after);
    char list_sha[65];
    sc_code c = sc_payload_write_list(b->payload_dir, &l, list_sha, err);
    if (c == SC_OK)
        c = sc_payload_logical_size(b->payload_dir, &l, &b->r->installed_size, err);
    sc_archive_entry *e = NULL;
    char **sources = NULL;
    size_t n = l.count + 1;
    if (c == SC_OK) {
        e = calloc(n, sizeof *e);
        sources = calloc(n, sizeof *sources);
        if (e == NULL || sources == NULL)
            c = OOM(err);
    }
    const sc_target *t = &b->s->target;
    int windows = t->platform == SC_PLATFORM_WINDOWS;
    for (size_t i = 0; c == SC_OK && i < l.count; i++) {
        const sc_payload_entry *pe = &l.entries[i];
        e[i].path = pe->path;
        if (pe->kind == SC_PAYLOAD_LINK) {
            e[i].kind = SC_ARCHIVE_LINK;
            e[i].data = pe->link_target;
            e[i].data_len = strlen(pe->link_target);
        } else {
            e[i].kind = SC_ARCHIVE_FILE;
            if ((sources[i] = sc_path_join(b->payload_dir, pe->path)) == NULL)
                c = OOM(err);
            e[i].source = sources[i];
            e[i].executable = !windows && (strcmp(pe->path, sc_target_python_entry_point(t)) == 0 ||
                                           under(pe->path, sc_target_scripts_dir(t)));
            e[i].stored = stored_path(b, pe->path);
            e[i].crc_known = pe->has_crc;
            e[i].crc = pe->crc32;
            e[i].size = pe->size;
        }
    }
    if (c == SC_OK) {
        e[n - 1].path = SC_PAYLOAD_LIST_NAME;
        e[n - 1].kind = SC_ARCHIVE_FILE;
        if ((sources[n - 1] = sc_path_join(b->payload_dir, SC_PAYLOAD_LIST_NAME)) == NULL)
            c = OOM(err);
        e[n - 1].source = sources[n - 1];
    }
    if (c == SC_OK) {
        sc_archive_options ao = {.jobs = b->o->jobs,
                                 .progress = b->o->transfer,
                                 .progress_ctx = b->o->transfer_ctx};
        c = sc_archive_write_file_with(e, n, b->o->compression, &ao, archive_tmp,
                                       &b->r->archive_size, b->r->archive_sha256, err);
    }
    for (size_t i = 0; sources && i < n; i++)
        free(sources[i]);
    free(sources);
    free(e);
    sc_payload_list_free(&l);
    return c;
}

/* ---- step 9: documents, signing, publication ------------------------------ */

static sc_code sign(build_ctx *b, const sc_json *doc, sc_doc_type type, char **text,
                    size_t *len, sc_error *err)
{
    char *payload = NULL;
    size_t plen = 0;
    sc_code c = sc_manifest_check(doc, type, NULL, err);
    if (c != SC_OK)
        return c;
    if ((c = sc_json_write(doc, &payload, &plen, err)) != SC_OK)
        return c;
    if (b->have_key)
        c = sc_envelope_sign_text(payload, plen, &b->key, 1, text, len, err);
    else
        c = sc_envelope_sign_external(b->o->signer_command, payload, plen, &b->trust, type, text,
                                      len, err);
    free(payload);
    return c;
}

static sc_json *release_document(const build_ctx *b, const sc_address *addr,
                                 const char *payload_sha, const char *kind)
{
    sc_json *o = sc_json_new_object(), *arch = sc_json_new_object(), *pd = sc_json_new_object();
    int bad = o == NULL || arch == NULL || pd == NULL;
    if (!bad)
        bad = put(arch, "format", sc_json_new_string("zip")) ||
              put(arch, "url", sc_json_new_string(addr->archive_url)) ||
              put(arch, "sha256", sc_json_new_string(b->r->archive_sha256)) ||
              put(arch, "sizeBytes", sc_json_new_number((double)b->r->archive_size)) ||
              put(pd, "format", sc_json_new_string(SC_PAYLOAD_FORMAT)) ||
              put(pd, "sha256", sc_json_new_string(payload_sha));
    if (!bad)
        bad = put_head(b, o, kind) || put_copy(o, "compatibility", b->eff);
    if (!bad) {
        bad = put(o, "archive", arch);
        arch = NULL;
    }
    if (!bad)
        bad = put(o, "installedSizeBytes", sc_json_new_number((double)b->r->installed_size));
    if (!bad) {
        bad = put(o, "payloadDigest", pd);
        pd = NULL;
    }
    if (!bad)
        bad = put_tail(b, o);
    if (!bad && b->gates && b->gates->length > 0)
        bad = put(o, "gates", sc_json_copy(b->gates));
    if (!bad && b->cuda_binaries != NULL)
        bad = put(o, "cudaBinaries", sc_json_copy(b->cuda_binaries));
    sc_json_free(arch);
    sc_json_free(pd);
    if (bad) {
        sc_json_free(o);
        return NULL;
    }
    return o;
}

static sc_json *channel_document(const build_ctx *b, const sc_address *addr, const char *kind)
{
    sc_json *o = sc_json_new_object(), *rels = sc_json_new_array(), *rel = sc_json_new_object();
    int bad = o == NULL || rels == NULL || rel == NULL;
    if (!bad)
        bad = put_copy(rel, "version", b->eff) ||
              put(rel, "releaseManifestUrl", sc_json_new_string(addr->release_manifest_url)) ||
              put(rel, "rolloutPercentage", sc_json_new_number(100));
    if (!bad) {
        bad = sc_json_array_append(rels, rel) != 0;
        rel = NULL;
    }
    if (!bad)
        bad = put(o, "schemaVersion", sc_json_new_number(SC_MANIFEST_SCHEMA_VERSION)) ||
              put(o, "kind", sc_json_new_string(kind)) ||
              put(o, "channel", sc_json_new_string(b->channel)) ||
              put_copy(o, "boxId", b->eff) ||
              put(o, "target", sc_target_to_json(&b->s->target)) ||
              put(o, "updatedAt", sc_json_new_string(b->r->built_at)) ||
              put(o, "cohortSalt", sc_json_new_string(addr->cohort_salt));
    if (!bad) {
        bad = put(o, "releases", rels);
        rels = NULL;
    }
    sc_json_free(rels);
    sc_json_free(rel);
    if (bad) {
        sc_json_free(o);
        return NULL;
    }
    return o;
}

/* Move from into to (same directory tree: rename; else copy beside to, rename). */
static sc_code place(const char *from, const char *to, sc_error *err)
{
    char *slash = strrchr(to, '/');
    char *dir = slash ? strndup(to, (size_t)(slash - to)) : strdup(".");
    if (dir == NULL)
        return OOM(err);
    sc_code c = mkdirs(dir, err);
    free(dir);
    if (c != SC_OK)
        return c;
    if (rename(from, to) == 0)
        return SC_OK;
    if (errno != EXDEV)
        return sc_error_set(err, SC_E_IO, to, "cannot publish %s: %s", to, strerror(errno));
    char *tmp = str_printf("%s.tmp%s", to, "");
    if (tmp == NULL)
        return OOM(err);
    int slot = sc_cleanup_add_path(tmp);
    c = copy_file(from, tmp, 0644, err);
    if (c == SC_OK && rename(tmp, to) != 0)
        c = sc_error_set(err, SC_E_IO, to, "cannot publish %s: %s", to, strerror(errno));
    sc_cleanup_drop_path(slot, 0);
    if (c != SC_OK)
        unlink(tmp);
    else
        unlink(from);
    free(tmp);
    return c;
}

static sc_code step_publish(build_ctx *b, const char *archive_tmp, const char *payload_sha,
                            sc_error *err)
{
    progress(b, "sign", b->have_key ? b->key.key_id : b->o->signer_command);
    const char *dist = b->o->workspace->paths[SC_WS_DIST];
    char *release_kind = str_printf("%s.release%s", b->ns, NULL);
    char *channel_kind = str_printf("%s.channel%s", b->ns, NULL);
    sc_address addr;
    memset(&addr, 0, sizeof addr);
    sc_json *release = NULL, *channel = NULL;
    char *rtext = NULL, *ctext = NULL, *rtmp = NULL, *ctmp = NULL;
    size_t rlen = 0, clen = 0;
    sc_code c = release_kind && channel_kind ? SC_OK : OOM(err);
    sc_address_input in = {scroll_str(b->eff, "boxId"), scroll_str(b->eff, "version"),
                           b->target_id, b->channel, b->r->archive_sha256, NULL, b->base_url};
    if (c == SC_OK)
        c = sc_address_make(&in, &addr, err);
    if (c == SC_OK && (release = release_document(b, &addr, payload_sha, release_kind)) == NULL)
        c = OOM(err);
    if (c == SC_OK && (c = sign(b, release, SC_DOC_RELEASE, &rtext, &rlen, err)) != SC_OK)
        sc_error_prefix(err, "release");
    if (c == SC_OK)
        c = sc_sha256_hex(rtext, rlen, b->r->release_sha256, err);
    if (c == SC_OK) {
        sc_address_free(&addr);
        in.release_sha256 = b->r->release_sha256;
        c = sc_address_make(&in, &addr, err);
    }
    if (c == SC_OK && (channel = channel_document(b, &addr, channel_kind)) == NULL)
        c = OOM(err);
    if (c == SC_OK && (c = sign(b, channel, SC_DOC_CHANNEL, &ctext, &clen, err)) != SC_OK)
        sc_error_prefix(err, "channel");
    /* scratch copies of the signed documents, then the publication */
    if (c == SC_OK) {
        rtmp = sc_path_join(b->scratch_dir, "release.json");
        ctmp = sc_path_join(b->scratch_dir, "channel.json");
        b->r->archive_path = sc_path_join(dist, addr.archive_object);
        b->r->release_path = sc_path_join(dist, addr.release_object);
        b->r->channel_path = sc_path_join(dist, addr.channel_file);
        if (!rtmp || !ctmp || !b->r->archive_path || !b->r->release_path || !b->r->channel_path)
            c = OOM(err);
    }
    if (c == SC_OK)
        c = sc_file_write_atomic(rtmp, rtext, rlen, 0644, err);
    if (c == SC_OK)
        c = sc_file_write_atomic(ctmp, ctext, clen, 0644, err);
    if (c == SC_OK) {
        progress(b, "publish", dist);
        int had_archive = access(b->r->archive_path, F_OK) == 0;
        int had_release = access(b->r->release_path, F_OK) == 0;
        c = place(archive_tmp, b->r->archive_path, err);
        if (c == SC_OK && (c = place(rtmp, b->r->release_path, err)) != SC_OK && !had_archive)
            unlink(b->r->archive_path);
        if (c == SC_OK && (c = place(ctmp, b->r->channel_path, err)) != SC_OK) {
            if (!had_release)
                unlink(b->r->release_path);
            if (!had_archive)
                unlink(b->r->archive_path);
        }
    }
    free(release_kind);
    free(channel_kind);
    free(rtext);
    free(ctext);
    free(rtmp);
    free(ctmp);
    sc_json_free(release);
    sc_json_free(channel);
    sc_address_free(&addr);
    return c;
}

/* ---- the pipeline ----------------------------------------------------------- */

static sc_code dupstr(char **dst, const char *s, sc_error *err)
{
    if (s == NULL)
        return SC_OK;
    return (*dst = strdup(s)) ? SC_OK : OOM(err);
}

sc_code sc_build(const sc_build_options *o, sc_build_result *r, sc_error *err)
{
    memset(r, 0, sizeof *r);
    build_ctx b;
    memset(&b, 0, sizeof b);
    b.o = o;
    b.r = r;
    b.scratch_slot = -1;
    char payload_sha[65] = "";
    char *archive_tmp = NULL;
    sc_code c = sc_crypto_init(err);
    if (c == SC_OK)
        c = step_scroll(&b, err);
    if (c == SC_OK)
        c = sc_env_map_from_environ(&b.host, host_env(&b), err);
    if (c == SC_OK)
        c = step_git(&b, err);
    if (c == SC_OK)
        c = step_tools(&b, err);
    if (c == SC_OK)
        c = step_reset(&b, err);
    if (c == SC_OK)
        c = step_environment(&b, err);
    if (c == SC_OK) {
        progress(&b, "payload", b.payload_dir);
        c = step_assets(&b, err);
    }
    if (c == SC_OK)
        c = step_local_files(&b, err);
    if (c == SC_OK && strcmp(b.weights, "embed") == 0)
        c = step_asset_archives(&b, err);
    if (c == SC_OK)
        c = step_prune(&b, err);
    if (c == SC_OK)
        c = step_cuda_binaries(&b, err);
    if (c == SC_OK)
        c = step_licenses(&b, err);
    if (c == SC_OK)
        c = step_self_test_files(&b, err);
    if (c == SC_OK)
        c = step_box_json(&b, err);
    if (c == SC_OK)
        c = step_gates(&b, payload_sha, err);
    if (c == SC_OK) {
        archive_tmp = sc_path_join(b.scratch_dir, "archive.zip");
        c = archive_tmp ? step_archive(&b, archive_tmp, err) : OOM(err);
    }
    if (c == SC_OK)
        c = step_publish(&b, archive_tmp, payload_sha, err);
    if (c == SC_OK) {
        memcpy(r->payload_sha256, payload_sha, sizeof payload_sha);
        c = dupstr(&r->box_id, scroll_str(b.eff, "boxId"), err);
        if (c == SC_OK)
            c = dupstr(&r->version, scroll_str(b.eff, "version"), err);
        if (c == SC_OK)
            c = dupstr(&r->target_id, b.target_id, err);
        if (c == SC_OK)
            c = dupstr(&r->weights, b.weights, err);
        if (c == SC_OK)
            c = dupstr(&r->channel, b.channel, err);
    }
    free(archive_tmp);
    /* a failed build leaves no payload (nor scratch) behind */
    sc_cleanup_drop_path(b.scratch_slot, c != SC_OK);
    if (c != SC_OK && b.scratch_dir != NULL) {
        sc_error ignored;
        (void)sc_file_remove_tree(b.scratch_dir, &ignored);
    }
    sc_pixi_lock_free(b.plock);
    sc_json_free(b.inventory);
    sc_scroll_free(b.s);
    free(b.base_url);
    free(b.scroll_dir);
    free(b.scratch_dir);
    free(b.payload_dir);
    if (b.have_key)
        sc_signing_key_free(&b.key);
    if (b.have_trust)
        sc_trust_free(&b.trust);
    sc_json_free(b.cuda_record);
    sc_json_free(b.cuda_binaries);
    free(b.git);
    free(b.toml);
    free(b.lock);
    if (b.have_tools)
        sc_pixi_tools_free(&b.tools);
    sc_env_map_free(&b.host);
    sc_json_free(b.env_provenance);
    sc_json_free(b.gates);
    sc_payload_list_free(&b.after);
    sc_payload_list_free(&b.env_list);
    return c;
}

void sc_build_result_free(sc_build_result *r)
{
    if (r == NULL)
        return;
    free(r->box_id);
    free(r->version);
    free(r->target_id);
    free(r->weights);
    free(r->channel);
    free(r->archive_path);
    free(r->release_path);
    free(r->channel_path);
    memset(r, 0, sizeof *r);
}
