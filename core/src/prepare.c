/* SPDX-License-Identifier: Apache-2.0 */
/*
 * prepare.c — prepare, attach, extracted-tree verification, the self-test
 * and temporary runs (docs/format-v3.md 16.1-16.3, 16.6).
 *
 * Guarantees:
 *  - prepare: the destination is checked absent (lstat) before the archive is
 *    read, after its parent is created and right before the rename; the tree
 *    is built in a fresh stage directory beside the destination and appears
 *    there by one rename that never replaces anything (renameat2
 *    RENAME_NOREPLACE where the kernel has it); the stage is removed on every
 *    path, and a failed prepare leaves no destination.  Stale stages of dead
 *    processes for the same destination name are removed first.
 *  - The signal cleanup removes the active stage (and the private root of a
 *    self-test or temporary run) with system calls only (openat,
 *    getdents64, unlinkat), then lets the signal end the process.
 *  - attach reads no payload bytes (assets excepted).
 *  - Temporary directories of the self-test and of temporary runs are
 *    removed on every path.
 */
#include "scrollcase/box.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <unistd.h>

#include "box_internal.h"
#include "progress_internal.h"
#include "scrollcase/assets.h"
#include "scrollcase/audit.h"
#include "scrollcase/cleanup.h"
#include "scrollcase/execution.h"
#include "scrollcase/digest.h"
#include "scrollcase/file.h"
#include "scrollcase/payload.h"
#include "scrollcase/process.h"
#include "scrollcase/run.h"

extern char **environ;

#define STAGE_PREFIX ".scrollcase-prepare-"
/* Longest destination basename a stage name holds as it is (16.2 step 4):
 * 20 + 200 + "-" + a pid of up to 10 digits + "-" + 6 = 238 <= NAME_MAX. */
#define STAGE_BASE_MAX 200

static sc_code oom(sc_error *err)
{
    return sc_error_set(err, SC_E_OUT_OF_MEMORY, NULL, "out of memory");
}

sc_code sc_box_remove_tree(const char *path, sc_error *err)
{
    return sc_file_remove_tree(path, err);
}

/* ---- the active stage and the signal cleanup ---------------------------------- */

/* The stage being filled and the private temporary root of a self-test or
 * temporary run, as slots of cleanup.h's registry (-1: none). */
static int g_stage = -1;
static int g_tmp_root = -1;

const char *sc_box_prepare_active_stage(void)
{
    return sc_cleanup_path(g_stage);
}

/* Remove the registered directory *slot and forget it. */
static void slot_remove(int *slot)
{
    sc_cleanup_drop_path(*slot, 1);
    *slot = -1;
}

void sc_box_prepare_signal_cleanup(void)
{
    sc_cleanup_install();
}

/* ---- receipts -------------------------------------------------------------- */

void sc_receipt_free(sc_receipt *r)
{
    if (r == NULL)
        return;
    free(r->root);
    free(r->box_id);
    free(r->model_id);
    free(r->runtime_id);
    free(r->version);
    free(r->python_entry_point);
    for (size_t i = 0; i < r->signing_key_count; i++)
        free(r->signing_key_ids[i]);
    free(r->signing_key_ids);
    sc_json_free(r->environment_report);
    memset(r, 0, sizeof *r);
}

static char *dup_member(const sc_json *p, const char *key)
{
    const sc_json *v = sc_json_get(p, key);
    return v != NULL && v->type == SC_JSON_STRING ? sc_box_strndup(v->string, v->length)
                                                  : sc_box_strndup("", 0);
}

/* The host layer: the given map, or the process's environment. */
static sc_code host_map(const sc_env_map *host, sc_env_map *own, const sc_env_map **use,
                        sc_error *err)
{
    memset(own, 0, sizeof *own);
    if (host != NULL) {
        *use = host;
        return SC_OK;
    }
    *use = own;
    return sc_env_map_from_environ(own, environ, err);
}

/* The report of host < release (receipts, extracted-tree verification). */
static sc_code environment_report(const sc_release *r, const sc_env_map *host, int full,
                                  int reveal, sc_json **report, sc_error *err)
{
    *report = NULL;
    sc_env_map own, rel, child;
    const sc_env_map *h = NULL;
    memset(&rel, 0, sizeof rel);
    memset(&child, 0, sizeof child);
    sc_code c = host_map(host, &own, &h, err);
    const sc_json *env = sc_json_get(r->doc.payload, "environment");
    if (c == SC_OK && env != NULL)
        c = sc_env_map_from_json(&rel, env, "release", err);
    if (c == SC_OK) {
        sc_env_layer layers[2] = {{SC_ENV_HOST, h}, {SC_ENV_RELEASE, &rel}};
        c = sc_env_resolve(layers, 2, &r->target, full, reveal, &child, report, err);
    }
    sc_env_map_free(&child);
    sc_env_map_free(&rel);
    sc_env_map_free(&own);
    return c;
}

static sc_code fill_receipt(const sc_release *r, const char *status, const char *root,
                            const struct stat *st, uint64_t installed, sc_receipt *out,
                            sc_error *err)
{
    memset(out, 0, sizeof *out);
    const sc_json *p = r->doc.payload;
    out->status = status;
    out->root = sc_box_strndup(root, strlen(root));
    out->box_id = dup_member(p, "boxId");
    out->model_id = dup_member(p, "modelId");
    out->runtime_id = dup_member(p, "runtimeId");
    out->version = dup_member(p, "version");
    out->python_entry_point = dup_member(p, "pythonEntryPoint");
    if (out->root == NULL || out->box_id == NULL || out->model_id == NULL ||
        out->runtime_id == NULL || out->version == NULL || out->python_entry_point == NULL)
        goto nomem;
    snprintf(out->target_id, sizeof out->target_id, "%s", r->target_id);
    const char *kind = sc_json_cstr(sc_json_get(sc_json_get(p, "execution"), "kind"));
    snprintf(out->execution_kind, sizeof out->execution_kind, "%s",
             kind != NULL ? kind : "");
    const sc_json *assets = sc_json_get(p, "assets");
    out->required_asset_count = assets != NULL ? assets->length : 0;
    if (r->signing_key_count > 0) {
        out->signing_key_ids = calloc(r->signing_key_count, sizeof *out->signing_key_ids);
        if (out->signing_key_ids == NULL)
            goto nomem;
        for (size_t i = 0; i < r->signing_key_count; i++) {
            out->signing_key_ids[i] =
                sc_box_strndup(r->signing_key_ids[i], strlen(r->signing_key_ids[i]));
            if (out->signing_key_ids[i] == NULL)
                goto nomem;
            out->signing_key_count = i + 1;
        }
    }
    memcpy(out->release_payload_sha256, r->doc.payload_sha256, sizeof out->release_payload_sha256);
    memcpy(out->archive_sha256, r->archive_sha256, sizeof out->archive_sha256);
    out->archive_size = r->archive_size;
    out->installed_size = installed;
    out->dev = st->st_dev;
    out->ino = st->st_ino;
    return SC_OK;
nomem:
    sc_receipt_free(out);
    return oom(err);
}

sc_json *sc_receipt_to_json(const sc_receipt *r)
{
    sc_json *o = sc_json_new_object();
    sc_json *keys = sc_json_new_array();
    if (o == NULL || keys == NULL) {
        sc_json_free(o);
        sc_json_free(keys);
        return NULL;
    }
    int bad = 0;
    for (size_t i = 0; i < r->signing_key_count; i++)
        bad |= sc_json_array_append(keys, sc_json_new_string(r->signing_key_ids[i]));
    bad |= sc_json_object_append(o, "status", sc_json_new_string(r->status));
    bad |= sc_json_object_append(o, "root", sc_json_new_string(r->root));
    bad |= sc_json_object_append(o, "boxId", sc_json_new_string(r->box_id));
    bad |= sc_json_object_append(o, "modelId", sc_json_new_string(r->model_id));
    bad |= sc_json_object_append(o, "runtimeId", sc_json_new_string(r->runtime_id));
    bad |= sc_json_object_append(o, "version", sc_json_new_string(r->version));
    bad |= sc_json_object_append(o, "targetId", sc_json_new_string(r->target_id));
    bad |= sc_json_object_append(o, "pythonEntryPoint",
                                 sc_json_new_string(r->python_entry_point));
    bad |= sc_json_object_append(o, "executionKind",
                                 r->execution_kind[0] != '\0'
                                     ? sc_json_new_string(r->execution_kind)
                                     : sc_json_new_null());
    bad |= sc_json_object_append(o, "requiredAssets",
                                 sc_json_new_number((double)r->required_asset_count));
    bad |= sc_json_object_append(o, "signingKeyIds", keys);
    bad |= sc_json_object_append(o, "releasePayloadSha256",
                                 sc_json_new_string(r->release_payload_sha256));
    bad |= sc_json_object_append(o, "archiveSha256", sc_json_new_string(r->archive_sha256));
    bad |= sc_json_object_append(o, "archiveSizeBytes",
                                 sc_json_new_number((double)r->archive_size));
    bad |= sc_json_object_append(o, "installedSizeBytes",
                                 sc_json_new_number((double)r->installed_size));
    if (r->environment_report != NULL) {
        sc_json *rep = sc_json_copy(r->environment_report);
        bad |= rep == NULL ? -1 : sc_json_object_append(o, "environmentReport", rep);
    }
    if (bad != 0) {
        sc_json_free(o);
        return NULL;
    }
    return o;
}

/* ---- prepare (16.2) ----------------------------------------------------------- */

/* existing-destination unless lstat says "no such file". */
static sc_code destination_absent(const char *dest, sc_error *err)
{
    struct stat st;
    if (lstat(dest, &st) == 0)
        return sc_error_set(err, SC_E_EXISTING_DESTINATION, dest,
                            "the destination already exists: %s", dest);
    if (errno != ENOENT)
        return sc_error_set(err, SC_E_IO, dest, "cannot look at the destination: %s",
                            strerror(errno));
    return SC_OK;
}

/* mkdir -p of dir (each missing level 0755 before the umask). */
static sc_code make_parents(char *dir, sc_error *err)
{
    struct stat st;
    if (stat(dir, &st) == 0) {
        if (S_ISDIR(st.st_mode))
            return SC_OK;
        return sc_error_set(err, SC_E_IO, dir, "the destination's parent is not a directory");
    }
    char *slash = strrchr(dir, '/');
    if (slash != NULL && slash != dir) {
        *slash = '\0';
        sc_code c = make_parents(dir, err);
        *slash = '/';
        if (c != SC_OK)
            return c;
    }
    if (mkdir(dir, 0755) != 0 && errno != EEXIST)
        return sc_error_set(err, SC_E_IO, dir, "cannot create %s: %s", dir, strerror(errno));
    return SC_OK;
}

/*
 * Remove the stages ".scrollcase-prepare-<base>-<pid>-XXXXXX" in parent
 * whose pid is no living process (ours counts as living).
 */
static void remove_stale_stages(const char *parent, const char *base)
{
    DIR *d = opendir(parent);
    if (d == NULL)
        return;
    size_t plen = strlen(STAGE_PREFIX), blen = strlen(base);
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        const char *n = e->d_name;
        if (strncmp(n, STAGE_PREFIX, plen) != 0 || strncmp(n + plen, base, blen) != 0 ||
            n[plen + blen] != '-')
            continue;
        const char *q = n + plen + blen + 1;
        char *end = NULL;
        errno = 0;
        long pid = strtol(q, &end, 10);
        if (end == q || errno != 0 || pid <= 0 || *end != '-' || strlen(end + 1) != 6 ||
            strchr(end + 1, '-') != NULL || q[0] < '1' || q[0] > '9')
            continue;
        if ((pid_t)pid == getpid() || kill((pid_t)pid, 0) == 0 || errno != ESRCH)
            continue;
        (void)sc_file_remove_at(dirfd(d), n);
    }
    closedir(d);
}

/* rename that never replaces (RENAME_NOREPLACE where available). */
static int rename_new(const char *from, const char *to)
{
#ifdef SYS_renameat2
    long rc = syscall(SYS_renameat2, AT_FDCWD, from, AT_FDCWD, to, 1u /* NOREPLACE */);
    if (rc == 0)
        return 0;
    if (errno != ENOSYS && errno != EINVAL)
        return -1;
#endif
    return rename(from, to);
}

static sc_code measure_tree(const char *root, sc_payload_list *list, uint64_t *size,
                            sc_error *err)
{
    sc_code c = sc_payload_collect(root, 0, list, err);
    if (c == SC_OK)
        c = sc_payload_logical_size(root, list, size, err);
    return c;
}

/*
 * The first hash, taken beside the extraction (sc_box_inspect_deferred):
 * a difference is archive-changed when the file's stamp moved since right
 * before the hash began (it was written in place while prepare read it,
 * as step 8 says), else archive-hash.
 */
static sc_code wait_hash(sc_box_archive *a, const char *archive_path, sc_error *err)
{
    sc_error he;
    sc_code c = sc_box_archive_hashed(a, &he);
    if (c == SC_OK)
        return SC_OK;
    if (c == SC_E_ARCHIVE_HASH && sc_box_archive_moved(a))
        return sc_error_set(err, SC_E_ARCHIVE_CHANGED, archive_path,
                            "the archive changed while it was extracted (its SHA-256 no "
                            "longer matches the release)");
    if (err != NULL)
        *err = he;
    return c;
}

static sc_code prepare_impl(const sc_release *r, const char *archive_path,
                            const char *destination, const sc_box_options *o, int recheck,
                            sc_box_report *report, sc_receipt *out, sc_error *err);

sc_code sc_box_prepare_with(const sc_release *r, const char *archive_path,
                            const char *destination, const sc_box_options *o,
                            sc_receipt *out, sc_error *err)
{
    return prepare_impl(r, archive_path, destination, o, 1, NULL, out, err);
}

sc_code sc_box_prepare(const sc_release *r, const char *archive_path,
                       const char *destination, sc_receipt *out, sc_error *err)
{
    return sc_box_prepare_with(r, archive_path, destination, NULL, out, err);
}

/*
 * Prepare (16.2).  report (may be NULL): the inspection's report (as
 * sc_box_verify_with's).  recheck 0: the archive is not read a second time
 * when its stamp cannot vouch that it stayed unchanged during the
 * extraction -- only for a caller that checks the extracted payload's
 * digest against the release itself (the self-test).
 */
static sc_code prepare_impl(const sc_release *r, const char *archive_path,
                            const char *destination, const sc_box_options *o, int recheck,
                            sc_box_report *report, sc_receipt *out, sc_error *err)
{
    memset(out, 0, sizeof *out);
    unsigned jobs = o != NULL ? o->jobs : 0;
    if (destination == NULL || destination[0] == '\0')
        return sc_error_set(err, SC_E_USAGE, NULL, "a destination is required to prepare a box");
    char *dest = sc_box_absolute(destination);
    if (dest == NULL)
        return oom(err);
    char *parent = NULL, *stage = NULL, *payload = NULL;
    sc_box_archive a;
    memset(&a, 0, sizeof a);
    a.fd = -1;
    sc_payload_list list;
    memset(&list, 0, sizeof list);
    int installed = 0;
    int hash_open = 0; /* the archive's hash may still be running */
    sc_code c = destination_absent(dest, err);
    if (c != SC_OK)
        goto done;
    /* The hash runs beside the extraction into the private stage; nothing
     * is moved into place before it is known to match, and its failure is
     * the one reported (16.2's order), whatever else failed meanwhile. */
    if ((c = sc_box_inspect_deferred(r, archive_path, o, 0, &a, report, err)) != SC_OK)
        goto done;
    hash_open = 1;
    const char *slash = strrchr(dest, '/');
    const char *base = slash + 1;
    if (*base == '\0') {
        c = sc_error_set(err, SC_E_EXISTING_DESTINATION, dest,
                         "the destination is the file system root");
        goto done;
    }
    parent = sc_box_strndup(dest, slash == dest ? 1 : (size_t)(slash - dest));
    if (parent == NULL) {
        c = oom(err);
        goto done;
    }
    if ((c = make_parents(parent, err)) != SC_OK ||
        (c = destination_absent(dest, err)) != SC_OK)
        goto done;
    /* 16.2 step 4: the basename itself when at most STAGE_BASE_MAX bytes,
     * else "sha256-" and the hex SHA-256 of its bytes, so that the stage
     * name stays within NAME_MAX for any legal destination. */
    char hashed[8 + 65];
    if (strlen(base) > STAGE_BASE_MAX) {
        char hex[65];
        if ((c = sc_sha256_hex(base, strlen(base), hex, err)) != SC_OK)
            goto done;
        snprintf(hashed, sizeof hashed, "sha256-%s", hex);
        base = hashed;
    }
    remove_stale_stages(parent, base);
    size_t n = strlen(parent) + strlen(STAGE_PREFIX) + strlen(base) + 48;
    stage = malloc(n);
    if (stage == NULL) {
        c = oom(err);
        goto done;
    }
    snprintf(stage, n, "%s/%s%s-%ld-XXXXXX", strcmp(parent, "/") == 0 ? "" : parent,
             STAGE_PREFIX, base, (long)getpid());
    if (sc_cleanup_mkdtemp(stage, &g_stage) != 0) {
        c = sc_error_set(err, SC_E_IO, stage, "cannot create the stage directory: %s",
                         strerror(errno));
        free(stage);
        stage = NULL;
        goto done;
    }
    if (g_stage < 0) {
        (void)rmdir(stage);
        c = oom(err);
        free(stage);
        stage = NULL;
        goto done;
    }
    payload = sc_path_join(stage, "payload");
    if (payload == NULL) {
        c = oom(err);
        goto done;
    }
    if (mkdir(payload, 0700) != 0 || chmod(payload, 0755) != 0) {
        c = sc_error_set(err, SC_E_IO, payload, "cannot create %s: %s", payload,
                         strerror(errno));
        goto done;
    }
    sc_zip_extract_options xo = {.jobs = jobs,
                                 .progress = o != NULL ? o->progress : NULL,
                                 .progress_ctx = o != NULL ? o->progress_ctx : NULL};
    if ((c = sc_zip_extract_opts(a.zip, payload, &xo, err)) != SC_OK)
        goto done;
    uint64_t size = 0;
    if ((c = measure_tree(payload, &list, &size, err)) != SC_OK)
        goto done;
    if (size != r->installed_size) {
        c = sc_error_set(err, SC_E_INSTALLED_SIZE_MISMATCH, dest,
                         "the extracted payload is %llu bytes; the release signs %llu",
                         (unsigned long long)size, (unsigned long long)r->installed_size);
        goto done;
    }
    hash_open = 0;
    if ((c = wait_hash(&a, archive_path, err)) != SC_OK)
        goto done;
    /* The archive hashed once: read again only when its stamp moved (and
     * the caller does not check the payload's digest itself). */
    if (recheck &&
        (c = sc_box_archive_unchanged(&a, archive_path, r, SC_E_ARCHIVE_CHANGED, o, err)) !=
            SC_OK)
        goto done;
    struct stat before, after;
    if (lstat(payload, &before) != 0) {
        c = sc_error_set(err, SC_E_IO, payload, "cannot stat %s: %s", payload, strerror(errno));
        goto done;
    }
    if ((c = destination_absent(dest, err)) != SC_OK)
        goto done;
    if (rename_new(payload, dest) != 0) {
        int e = errno;
        c = e == EEXIST || e == ENOTEMPTY
                ? sc_error_set(err, SC_E_EXISTING_DESTINATION, dest,
                               "the destination already exists: %s", dest)
                : sc_error_set(err, SC_E_IO, dest, "cannot move the box into place: %s",
                               strerror(e));
        goto done;
    }
    installed = 1;
    if (lstat(dest, &after) != 0 || !S_ISDIR(after.st_mode) || after.st_dev != before.st_dev ||
        after.st_ino != before.st_ino) {
        c = sc_error_set(err, SC_E_DESTINATION_CHANGED, dest,
                         "the prepared destination changed while it was installed");
        goto done;
    }
    if ((c = fill_receipt(r, "prepared", dest, &after, size, out, err)) != SC_OK)
        goto done;
    /* The report is diagnostic: a host environment it cannot resolve does
     * not undo a prepared box; the receipt then carries none. */
    sc_json *env_report = NULL;
    sc_error ignored;
    if (environment_report(r, NULL, 0, 0, &env_report, &ignored) == SC_OK)
        out->environment_report = env_report;
done:
    if (c != SC_OK && hash_open) {
        sc_error he;
        sc_code hc = wait_hash(&a, archive_path, &he);
        if (hc != SC_OK) {
            c = hc;
            if (err != NULL)
                *err = he;
        }
    }
    if (c != SC_OK && installed) {
        /* Only remove what we installed: the identity must still be ours. */
        struct stat now;
        if (lstat(dest, &now) == 0 && c != SC_E_DESTINATION_CHANGED)
            (void)sc_file_remove_at(AT_FDCWD, dest);
    }
    if (stage != NULL) {
        slot_remove(&g_stage);
    }
    sc_payload_list_free(&list);
    sc_box_archive_close(&a);
    free(payload);
    free(stage);
    free(parent);
    free(dest);
    return c;
}

/* ---- attach (16.3) --------------------------------------------------------------- */

/* Binary search of a sorted collected list. */
static int has_in_list(void *ctx, const char *path)
{
    const sc_payload_list *l = ctx;
    size_t lo = 0, hi = l->count, n = strlen(path);
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const sc_payload_entry *e = &l->entries[mid];
        size_t m = e->path_len < n ? e->path_len : n;
        int cmp = memcmp(e->path, path, m);
        if (cmp == 0)
            cmp = e->path_len < n ? -1 : e->path_len > n ? 1 : 0;
        if (cmp == 0)
            return 1;
        if (cmp < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return 0;
}

static sc_code root_directory(const char *root, struct stat *st, sc_error *err)
{
    if (lstat(root, st) != 0 || !S_ISDIR(st->st_mode))
        return sc_error_set(err, SC_E_ATTACH_ROOT, root, "%s is not an extracted box directory",
                            root);
    return SC_OK;
}

sc_code sc_box_attach(const sc_release *r, const char *root, const sc_env_map *host,
                      int full, int reveal, sc_receipt *out, sc_error *err)
{
    memset(out, 0, sizeof *out);
    char *abs = sc_box_absolute(root);
    if (abs == NULL)
        return oom(err);
    sc_payload_list list;
    memset(&list, 0, sizeof list);
    struct stat first, last;
    uint64_t size = 0;
    sc_code c = root_directory(abs, &first, err);
    if (c == SC_OK)
        c = sc_run_native_check(&r->target, err);
    if (c == SC_OK) /* extra files are ignored (16.3), special ones too */
        c = sc_payload_collect(abs, SC_PAYLOAD_SKIP_SPECIAL, &list, err);
    if (c == SC_OK && !has_in_list(&list, r->entry_point))
        c = sc_error_set(err, SC_E_ATTACH_MISSING_INTERPRETER, r->entry_point,
                         "the attached box is missing its entry point %s", r->entry_point);
    if (c == SC_OK)
        c = sc_execution_check(r->doc.payload, &r->target, has_in_list, &list, err);
    if (c == SC_OK)
        c = sc_assets_check(abs, sc_json_get(r->doc.payload, "assets"), err);
    if (c == SC_OK)
        c = sc_payload_logical_size(abs, &list, &size, err);
    if (c == SC_OK && (lstat(abs, &last) != 0 || !S_ISDIR(last.st_mode) ||
                       last.st_dev != first.st_dev || last.st_ino != first.st_ino))
        c = sc_error_set(err, SC_E_ATTACH_ROOT, abs,
                         "the attached box root changed while it was being checked");
    if (c == SC_OK)
        c = fill_receipt(r, "attached", abs, &last, size, out, err);
    if (c == SC_OK) {
        sc_json *report = NULL;
        if ((c = environment_report(r, host, full, reveal, &report, err)) != SC_OK)
            sc_receipt_free(out);
        else
            out->environment_report = report;
    }
    sc_payload_list_free(&list);
    free(abs);
    return c;
}

/* ---- extracted trees --------------------------------------------------------------- */

void sc_extracted_report_free(sc_extracted_report *r)
{
    if (r == NULL)
        return;
    sc_json_free(r->environment_report);
    memset(r, 0, sizeof *r);
}

sc_code sc_box_verify_extracted(const sc_release *r, const char *root,
                                const sc_env_map *host, int full, int reveal,
                                sc_extracted_report *out, sc_error *err)
{
    return sc_box_verify_extracted_with(r, root, host, full, reveal, NULL, out, err);
}

/* What the listed entries of a tree should add up to: the signed installed
 * size less the list file (a bar's total only; 0 when that cannot be). */
static uint64_t expected_listed_bytes(const sc_release *r, const char *root)
{
    char *list = sc_path_join(root, SC_PAYLOAD_LIST_NAME);
    struct stat st;
    uint64_t n = 0;
    if (list != NULL && lstat(list, &st) == 0 && S_ISREG(st.st_mode) &&
        (uint64_t)st.st_size <= r->installed_size)
        n = r->installed_size - (uint64_t)st.st_size;
    free(list);
    return n;
}

sc_code sc_box_verify_extracted_with(const sc_release *r, const char *root,
                                     const sc_env_map *host, int full, int reveal,
                                     const sc_box_options *o, sc_extracted_report *out,
                                     sc_error *err)
{
    memset(out, 0, sizeof *out);
    char *abs = sc_box_absolute(root);
    if (abs == NULL)
        return oom(err);
    struct stat st;
    sc_code c = root_directory(abs, &st, err);
    if (c == SC_OK) {
        sc_payload_verify_options vo;
        memset(&vo, 0, sizeof vo);
        vo.jobs = o != NULL ? o->jobs : 0;
        if (o != NULL && o->progress != NULL) {
            vo.progress = o->progress;
            vo.progress_ctx = o->progress_ctx;
            vo.bytes_expected = expected_listed_bytes(r, abs);
        }
        c = sc_payload_verify_tree_opts(abs, r->payload_digest, &vo, &out->entry_count, err);
    }
    if (c == SC_OK)
        c = environment_report(r, host, full, reveal, &out->environment_report, err);
    free(abs);
    return c;
}

/* ---- self-test ----------------------------------------------------------------------- */

/* A private directory "<tmpdir>/<prefix>XXXXXX" (caller frees), registered
 * for the signal cleanup (the caller unregisters it once removed). */
static sc_code private_dir(const char *tmpdir, const char *prefix, char **out, sc_error *err)
{
    *out = NULL;
    if (tmpdir == NULL || tmpdir[0] == '\0')
        tmpdir = getenv("TMPDIR");
    if (tmpdir == NULL || tmpdir[0] == '\0')
        tmpdir = "/tmp";
    size_t n = strlen(tmpdir) + strlen(prefix) + 16;
    char *p = malloc(n);
    if (p == NULL)
        return oom(err);
    snprintf(p, n, "%s/%sXXXXXX", tmpdir, prefix);
    if (sc_cleanup_mkdtemp(p, &g_tmp_root) != 0) {
        int e = errno;
        free(p);
        return sc_error_set(err, SC_E_IO, tmpdir, "cannot create a temporary directory in %s: %s",
                            tmpdir, strerror(e));
    }
    if (g_tmp_root < 0) {
        (void)rmdir(p);
        free(p);
        return oom(err);
    }
    *out = p;
    return SC_OK;
}

/* The imports line: "import a, b". */
static char *self_test_code(const sc_release *r)
{
    const char *assertion = sc_target_self_test_assertion(&r->target);
    const sc_json *imports = sc_json_get(sc_json_get(r->doc.payload, "selfTest"), "pythonImports");
    size_t n = strlen(assertion) + 16;
    for (size_t i = 0; imports != NULL && i < imports->length; i++)
        n += sc_json_at(imports, i)->length + 2;
    char *code = malloc(n);
    if (code == NULL)
        return NULL;
    size_t len = (size_t)snprintf(code, n, "%s\nimport ", assertion);
    for (size_t i = 0; imports != NULL && i < imports->length; i++) {
        const sc_json *m = sc_json_at(imports, i);
        len += (size_t)snprintf(code + len, n - len, "%s%s", i > 0 ? ", " : "", m->string);
    }
    return code;
}

static void self_test_tick(void *ctx, unsigned long long elapsed_ms)
{
    sc_progress_meter_tick(ctx, "", elapsed_ms);
}

static sc_code run_self_test(const sc_release *r, const char *root, const sc_env_map *host,
                             const sc_box_options *o, sc_error *err)
{
    sc_env_map own, clean, rel, val, child;
    const sc_env_map *h = NULL;
    memset(&clean, 0, sizeof clean);
    memset(&rel, 0, sizeof rel);
    memset(&val, 0, sizeof val);
    memset(&child, 0, sizeof child);
    char **envp = NULL, *code = NULL, *program = NULL;
    sc_code c = host_map(host, &own, &h, err);
    if (c == SC_OK)
        c = sc_env_sanitised_host(h, &clean, err);
    const sc_json *env = sc_json_get(r->doc.payload, "environment");
    if (c == SC_OK && env != NULL)
        c = sc_env_map_from_json(&rel, env, "release", err);
    size_t nv = 0;
    const sc_env_pair *pairs = sc_target_validation_environment(&r->target, &nv);
    for (size_t i = 0; c == SC_OK && i < nv; i++)
        c = sc_env_map_set(&val, pairs[i].name, pairs[i].value, err);
    if (c == SC_OK) {
        sc_env_layer layers[3] = {
            {SC_ENV_HOST, &clean}, {SC_ENV_RELEASE, &rel}, {SC_ENV_VALIDATION, &val}};
        c = sc_env_resolve(layers, 3, &r->target, 0, 0, &child, NULL, err);
    }
    if (c == SC_OK)
        c = sc_env_map_to_envp(&child, &envp, err);
    if (c == SC_OK) {
        code = self_test_code(r);
        program = sc_path_join(root, r->entry_point);
        if (code == NULL || program == NULL)
            c = oom(err);
    }
    if (c == SC_OK) {
        uint64_t timeout = 180;
        (void)sc_json_uint53(sc_json_get(sc_json_get(r->doc.payload, "selfTest"),
                                         "timeoutSeconds"),
                             &timeout);
        char *argv[] = {program, (char *)"-c", code, NULL};
        sc_process_spec spec;
        memset(&spec, 0, sizeof spec);
        spec.program = program;
        spec.argv = argv;
        spec.envp = envp;
        spec.cwd = root;
        spec.stdin_fd = -1;
        spec.stdout_fd = STDERR_FILENO; /* the command's stdout stays its own */
        spec.stderr_fd = -1;
        spec.timeout_seconds = (int)timeout;
        spec.forward_signals = sc_process_signal_forwarding(); /* only when the program asked */
        spec.own_process_group = 1;
        spec.exit_on_forwarded = 1;
        sc_progress_meter meter;
        sc_progress_meter_start_runs(&meter, o != NULL ? o->progress : NULL,
                                     o != NULL ? o->progress_ctx : NULL, "self-test", program,
                                     1, timeout * 1000);
        if (meter.open) {
            spec.tick = self_test_tick;
            spec.tick_ctx = &meter;
        }
        sc_process_result res;
        memset(&res, 0, sizeof res);
        c = sc_process_run(&spec, &res, err);
        if (c == SC_OK && !res.exited)
            c = sc_error_set(err, SC_E_SELF_TEST_FAILED, program,
                             "the self-test was killed by %s", sc_signal_name(res.term_signal));
        else if (c == SC_OK && res.exit_code != 0)
            c = sc_error_set(err, SC_E_SELF_TEST_FAILED, program,
                             "the self-test exited with status %d", res.exit_code);
        if (c == SC_OK)
            sc_progress_meter_add(&meter, program, 0, 1);
        sc_progress_meter_end(&meter, c == SC_OK);
    }
    sc_env_envp_free(envp);
    free(code);
    free(program);
    sc_env_map_free(&child);
    sc_env_map_free(&val);
    sc_env_map_free(&rel);
    sc_env_map_free(&clean);
    sc_env_map_free(&own);
    return c;
}

sc_code sc_box_self_test(const sc_release *r, const char *archive_path, const char *tmpdir,
                         const sc_env_map *host, sc_error *err)
{
    return sc_box_self_test_with(r, archive_path, tmpdir, host, NULL, err);
}

sc_code sc_box_self_test_with(const sc_release *r, const char *archive_path,
                              const char *tmpdir, const sc_env_map *host,
                              const sc_box_options *o, sc_error *err)
{
    return sc_box_verify_self_test_with(r, archive_path, tmpdir, host, o, NULL, err);
}

sc_code sc_box_verify_self_test_with(const sc_release *r, const char *archive_path,
                                     const char *tmpdir, const sc_env_map *host,
                                     const sc_box_options *o, sc_box_report *out,
                                     sc_error *err)
{
    sc_box_report report;
    sc_code c = sc_run_native_check(&r->target, err);
    if (c != SC_OK)
        return c;
    char *tmp = NULL, *box = NULL;
    if ((c = private_dir(tmpdir, "scrollcase-self-test-", &tmp, err)) != SC_OK)
        return c;
    sc_receipt receipt;
    memset(&receipt, 0, sizeof receipt);
    sc_payload_list list;
    memset(&list, 0, sizeof list);
    box = sc_path_join(tmp, "box");
    if (box == NULL)
        c = oom(err);
    sc_payload_options po;
    memset(&po, 0, sizeof po);
    po.jobs = o != NULL ? o->jobs : 0;
    /* one read of the archive: its hash beside the extraction, no second
     * one, since the payload digest below checks what was extracted */
    if (c == SC_OK)
        c = prepare_impl(r, archive_path, box, o, 0, &report, &receipt, err);
    po.progress = o != NULL ? o->progress : NULL;
    po.progress_ctx = o != NULL ? o->progress_ctx : NULL;
    if (c == SC_OK)
        c = sc_payload_collect_with(box, SC_PAYLOAD_HASH, &po, &list, err);
    char hex[65];
    if (c == SC_OK)
        c = sc_payload_digest(&list, hex, err);
    if (c == SC_OK && strcmp(hex, r->payload_digest) != 0)
        c = sc_error_set(err, SC_E_PAYLOAD_MISMATCH, archive_path,
                         "the extracted payload's digest is %s; the release signs %s", hex,
                         r->payload_digest);
    if (c == SC_OK)
        c = run_self_test(r, box, host, o, err);
    if (c == SC_OK && out != NULL)
        *out = report;
    sc_payload_list_free(&list);
    sc_receipt_free(&receipt);
    slot_remove(&g_tmp_root);
    free(box);
    free(tmp);
    return c;
}

/* ---- verify --audit ------------------------------------------------------------------ */

sc_code sc_box_audit_extracted(const sc_release *r, const char *root, sc_audit_report *rep,
                               sc_error *err)
{
    char *prefix = sc_path_join(root, sc_target_payload_root(&r->target));
    if (prefix == NULL)
        return oom(err);
    sc_code c = sc_audit_conda_meta(prefix, &r->target, rep, err);
    free(prefix);
    return c;
}

sc_code sc_box_audit_archive(const sc_release *r, const char *archive_path, const char *tmpdir,
                             sc_audit_report *rep, sc_error *err)
{
    char *tmp = NULL, *box = NULL;
    sc_code c = private_dir(tmpdir, "scrollcase-audit-", &tmp, err);
    if (c != SC_OK)
        return c;
    sc_receipt receipt;
    memset(&receipt, 0, sizeof receipt);
    box = sc_path_join(tmp, "box");
    if (box == NULL)
        c = oom(err);
    if (c == SC_OK)
        c = sc_box_prepare(r, archive_path, box, &receipt, err);
    if (c == SC_OK)
        c = sc_box_audit_extracted(r, box, rep, err);
    sc_receipt_free(&receipt);
    slot_remove(&g_tmp_root);
    free(box);
    free(tmp);
    return c;
}

/* ---- temporary runs ------------------------------------------------------------------ */

sc_code sc_box_run_temporary(const sc_release *r, const char *archive_path,
                             const sc_box_run_options *o, sc_run_result *out, sc_error *err)
{
    memset(out, 0, sizeof *out);
    char *tmp = NULL, *box = NULL;
    sc_code c = private_dir(o->tmpdir, "scrollcase-run-", &tmp, err);
    if (c != SC_OK)
        return c;
    sc_receipt receipt;
    memset(&receipt, 0, sizeof receipt);
    box = sc_path_join(tmp, "box");
    if (box == NULL)
        c = oom(err);
    sc_box_options bo = {.progress = o->progress, .progress_ctx = o->progress_ctx};
    if (c == SC_OK)
        c = sc_box_prepare_with(r, archive_path, box, &bo, &receipt, err);
    if (c == SC_OK && o->on_prepared != NULL)
        o->on_prepared(o->ctx, &receipt);
    if (c == SC_OK) {
        sc_run_spec spec;
        memset(&spec, 0, sizeof spec);
        spec.root = receipt.root;
        spec.release = r->doc.payload;
        spec.target = &r->target;
        spec.dev = (unsigned long long)receipt.dev;
        spec.ino = (unsigned long long)receipt.ino;
        spec.host = o->host;
        spec.caller = o->caller;
        spec.args = o->args;
        spec.nargs = o->nargs;
        spec.env_report_full = o->full;
        spec.env_report_values = o->reveal;
        spec.stdin_fd = spec.stdout_fd = spec.stderr_fd = -1;
        spec.forward_signals = o->forward_signals;
        c = sc_run(&spec, out, err);
    }
    sc_receipt_free(&receipt);
    slot_remove(&g_tmp_root);
    free(box);
    free(tmp);
    return c;
}
