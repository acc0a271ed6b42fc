/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cmd_build.c — scrollcase build.
 *
 * Argument parsing and printing only: the pipeline is libscrollcase's
 * (build.h, docs/format-v3.md 20).  Progress lines go to stderr; the result
 * (text, or --json) to stdout.  Exit status: 0 built and published, 1 a
 * refusal or failure (its code printed), 2 a usage error.
 */
#define _POSIX_C_SOURCE 200809L

#include "commands.h"

#include "args.h"
#include "progress.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scrollcase/build.h"
#include "scrollcase/config.h"
#include "scrollcase/error.h"
#include "scrollcase/jobs.h"
#include "scrollcase/json.h"
#include "scrollcase/scroll.h"

static void print_progress(void *ctx, const char *step, const char *detail)
{
    sc_cli_progress_step(ctx, step, detail);
}

/* The references REF and --target select (sorted), into *refs. */
static sc_code select_refs(const sc_cli_args *a, const char *scrolls, sc_scroll_ref_list *out,
                           sc_error *err)
{
    const char *ref = a->npositional > 0 ? a->positional[0] : NULL;
    const char *target = sc_cli_value(a, OPT_TARGET);
    sc_code c = sc_scroll_list_refs(scrolls, ref, out, err);
    if (c != SC_OK)
        return c;
    if (target != NULL && strcmp(target, "all") != 0) {
        size_t k = 0;
        for (size_t i = 0; i < out->count; i++) {
            const char *slash = strchr(out->refs[i], '/');
            if (slash && strcmp(slash + 1, target) == 0)
                out->refs[k++] = out->refs[i];
            else
                free(out->refs[i]);
        }
        out->count = k;
        if (k == 0)
            return sc_error_set(err, SC_E_SCROLL_NOT_FOUND, NULL,
                                "no scroll of %s has the target %s", ref ? ref : "the workspace",
                                target);
    }
    if (out->count > 1 && target == NULL)
        return sc_error_set(err, SC_E_USAGE, NULL,
                            "%s names %zu scrolls; pass <boxId>/<targetId>, --target ID or "
                            "--target all",
                            ref ? ref : "the workspace", out->count);
    return SC_OK;
}

static sc_json *result_json(const sc_build_result *r)
{
    sc_json *o = sc_json_new_object();
    if (o == NULL)
        return NULL;
    struct {
        const char *k, *v;
    } s[] = {{"boxId", r->box_id},
             {"version", r->version},
             {"targetId", r->target_id},
             {"channel", r->channel},
             {"weights", r->weights},
             {"archivePath", r->archive_path},
             {"archiveSha256", r->archive_sha256},
             {"releasePath", r->release_path},
             {"releaseSha256", r->release_sha256},
             {"channelPath", r->channel_path},
             {"payloadDigest", r->payload_sha256},
             {"builderRevision", r->builder_revision},
             {"builtAt", r->built_at}};
    int bad = 0;
    for (size_t i = 0; i < sizeof s / sizeof s[0]; i++)
        bad |= sc_json_object_append(o, s[i].k, sc_json_new_string(s[i].v));
    bad |= sc_json_object_append(o, "sourceTreeDirty", sc_json_new_bool(r->source_tree_dirty));
    bad |= sc_json_object_append(o, "archiveSizeBytes", sc_json_new_number((double)r->archive_size));
    bad |= sc_json_object_append(o, "installedSizeBytes",
                                 sc_json_new_number((double)r->installed_size));
    if (bad) {
        sc_json_free(o);
        return NULL;
    }
    return o;
}

static int build_with(sc_cli_args *a, sc_cli_progress *progress_shown);

static int cmd_build(sc_cli_args *a)
{
    if (a->npositional > 1)
        return sc_cli_usage_error("unexpected argument %s", a->positional[1]);
    const char *comp = sc_cli_value(a, OPT_COMPRESSION);
    if (comp != NULL && strcmp(comp, "deflate") != 0 && strcmp(comp, "store") != 0)
        return sc_cli_usage_error("--compression takes deflate or store, not %s", comp);
    unsigned jobs = 0;
    int jrc = sc_cli_jobs(a, &jobs);
    if (jrc != 0)
        return jrc;
    sc_channel_mirror mirrors[SC_CLI_MAX_MIRRORS];
    size_t nmirrors = 0;
    int mrc = sc_cli_mirrors(a, mirrors, &nmirrors);
    if (mrc != 0)
        return mrc;
    if (a->signer != NULL && a->key_id != NULL)
        return sc_cli_usage_error("%s", "--key-id is for local keys, not with --signer-command");
    if (a->signer != NULL && sc_cli_value(a, OPT_PRIVATE_KEY) != NULL)
        return sc_cli_usage_error("%s", "--private-key is for local signing, not with "
                                        "--signer-command (the external signer holds its key)");
    sc_cli_progress shown;
    int prc = sc_cli_progress_open(&shown, a);
    if (prc != 0)
        return prc;
    prc = build_with(a, &shown);
    sc_cli_progress_close(&shown);
    return prc;
}

static int build_with(sc_cli_args *a, sc_cli_progress *progress_shown)
{
    const char *comp = sc_cli_value(a, OPT_COMPRESSION);
    unsigned jobs = 0;
    (void)sc_cli_jobs(a, &jobs); /* checked by cmd_build */
    sc_channel_mirror mirrors[SC_CLI_MAX_MIRRORS];
    size_t nmirrors = 0;
    (void)sc_cli_mirrors(a, mirrors, &nmirrors); /* checked by cmd_build */
    sc_error err;
    sc_workspace ws;
    if (sc_workspace_resolve(&a->ws, &ws, &err) != SC_OK)
        return sc_cli_report(&err);
    sc_scroll_ref_list refs = {NULL, 0};
    int rc = 0;
    if (select_refs(a, ws.paths[SC_WS_SCROLLS], &refs, &err) != SC_OK) {
        rc = sc_cli_report(&err);
        sc_scroll_ref_list_free(&refs);
        sc_workspace_free(&ws);
        return rc;
    }
    sc_json *all = (sc_cli_has(a, OPT_JSON)) ? sc_json_new_array() : NULL;
    for (size_t i = 0; rc == 0 && i < refs.count; i++) {
        sc_build_options o;
        memset(&o, 0, sizeof o);
        o.workspace = &ws;
        o.ref = refs.refs[i];
        o.channel = sc_cli_value(a, OPT_CHANNEL);
        o.weights = sc_cli_value(a, OPT_WEIGHTS);
        o.asset_base_url = sc_cli_value(a, OPT_ASSET_BASE_URL);
        o.ns = sc_cli_value(a, OPT_NAMESPACE);
        o.allow_dirty = (sc_cli_has(a, OPT_ALLOW_DIRTY)) != 0;
        o.environment_prefix = sc_cli_value(a, OPT_ENV_PREFIX);
        o.environment_from = sc_cli_value(a, OPT_ENV_FROM);
        o.channel_mirrors = mirrors;
        o.nchannel_mirrors = nmirrors;
        o.channel_dir = sc_cli_value(a, OPT_CHANNEL_DIR);
        o.pixi = sc_cli_value(a, OPT_PIXI);
        o.conda_pack = sc_cli_value(a, OPT_CONDA_PACK);
        o.key_id = a->key_id;
        o.signer_command = a->signer;
        o.private_key = sc_cli_value(a, OPT_PRIVATE_KEY);
        o.public_key = a->public_key;
        o.no_cuda_audit = (sc_cli_has(a, OPT_NO_CUDA_AUDIT)) != 0;
        o.compression = comp && strcmp(comp, "store") == 0 ? SC_ARCHIVE_STORE : SC_ARCHIVE_DEFLATE;
        o.jobs = (unsigned)jobs;
        o.offline = sc_cli_has(a, OPT_OFFLINE) != 0;
        o.progress = print_progress;
        o.progress_ctx = progress_shown;
        o.transfer = sc_cli_progress_event;
        o.transfer_ctx = progress_shown;
        sc_build_result r;
        if (sc_build(&o, &r, &err) != SC_OK) {
            sc_cli_progress_break(progress_shown); /* the error below the steps, not in them */
            rc = sc_cli_report(&err);
        } else if (all != NULL) {
            if (sc_json_array_append(all, result_json(&r)) != 0) {
                sc_error_set(&err, SC_E_OUT_OF_MEMORY, NULL, "out of memory");
                rc = sc_cli_report(&err);
            }
        } else {
            printf("built %s %s %s (%s channel)\n  archive: %s\n  release: %s\n  channel: %s\n",
                   r.box_id, r.version, r.target_id, r.channel, r.archive_path, r.release_path,
                   r.channel_path);
            if (fflush(stdout) != 0)
                rc = EXIT_REJECTED;
        }
        sc_build_result_free(&r);
    }
    if (all != NULL) {
        /* {"builds": [one result per target built]} */
        sc_json *o = rc == 0 ? sc_json_new_object() : NULL;
        if (o != NULL && sc_json_object_append(o, "builds", all) != 0) {
            sc_json_free(o);
            o = NULL;
        } else if (o == NULL) {
            sc_json_free(all);
        }
        if (rc == 0)
            rc = sc_cli_print_json(o);
    }
    sc_scroll_ref_list_free(&refs);
    sc_workspace_free(&ws);
    return rc;
}

const sc_cli_command sc_cli_build_commands[] = {
    {"build", "publisher", "build, sign and publish a box",
     "Builds the box of one scroll and publishes it into the dist directory\n"
     "(docs/format-v3.md 20): boxes/<boxId>/<version>/<targetId>/<archive sha256>.zip,\n"
     "<release sha256>.release.json beside it, and\n"
     "channels/<boxId>/<channel>/<targetId>.json.  REF is <boxId>/<targetId>, or\n"
     "<boxId> with --target, or nothing when the workspace has one scroll;\n"
     "--target all builds every target REF names, one after the other.\n"
     "\n"
     "Every refusal the scroll and the options decide (channel, weights, asset\n"
     "base URL, namespace, native host, signing keys, environment source, CUDA\n"
     "audit, the lock's packages) comes before git runs or a directory changes.\n"
     "The environment is a relocatable prefix (--environment-prefix, copied in\n"
     "as venv/) or, by default, the scroll's pixi.lock installed natively: every\n"
     "package fetched by URL through the asset cache, its sha256 checked, then\n"
     "extracted and linked with no package manager (--channel-mirror FROM=TO\n"
     "rewrites URL prefixes, --channel-dir takes packages from a local channel,\n"
     "--offline fetches nothing).  --environment-from pixi takes the older road:\n"
     "pixi install --frozen with the pinned pixi, then conda-pack\n"
     "(--pixi/--conda-pack name the tools).  The source tree must be a\n"
     "clean git checkout unless --allow-dirty.  Documents are signed with a\n"
     "local pair (--key-id checks its keyId): the private key --private-key\n"
     "(default: <keys>/signing-private.pem) with its public key file\n"
     "--public-key (default: <keys>/signing-public.json), which must be one\n"
     "pair; or by an external signer checked against --public-key.\n"
     "--compression store writes every entry stored (byte-identical\n"
     "across implementations).  --no-cuda-audit skips the CUDA ABI audit of a\n"
     "CUDA target's lock; the release records that it was opted out.  It never\n"
     "skips the CUDA binaries gate: a CUDA payload whose ELF files carry no\n"
     "device code and need no CUDA library is cuda-binaries-missing unless the\n"
     "scroll declares \"cuda\": {\"deviceCode\": \"runtime\", \"reason\": ...}.\n"
     "\n"
     "Embedded assets come through the asset cache ($SCROLLCASE_CACHE, else\n"
     "~/.cache/scrollcase/assets, files named by their SHA-256): a cached asset\n"
     "is copied from there, a missing one is downloaded into it first (a .part\n"
     "left there by an interrupted build is resumed).  --offline fetches\n"
     "nothing: an asset that is not cached is asset-not-cached.\n",
     SC_CLI_OPERANDS({"REF", 0, 0, SC_COMPLETE_NONE}),
     SC_CLI_OPTIONS({OPT_TARGET, "the target to build, or all"}, {OPT_CHANNEL, NULL},
                    {OPT_WEIGHTS, NULL}, {OPT_ASSET_BASE_URL, NULL}, {OPT_NAMESPACE, NULL},
                    {OPT_ALLOW_DIRTY, NULL}, {OPT_ENV_PREFIX, NULL}, {OPT_ENV_FROM, NULL},
                    {OPT_CHANNEL_MIRROR, NULL}, {OPT_CHANNEL_DIR, NULL}, {OPT_PIXI, NULL},
                    {OPT_CONDA_PACK, NULL}, {OPT_KEY_ID, "refuse unless the key pair is this keyId"},
                    {OPT_SIGNER, NULL}, {OPT_PRIVATE_KEY, NULL}, {OPT_PUBLIC_KEY, NULL},
                    {OPT_COMPRESSION, NULL},
                    {OPT_JOBS, NULL}, {OPT_OFFLINE, NULL}, {OPT_NO_CUDA_AUDIT, NULL},
                    {OPT_JSON, NULL}, {OPT_QUIET, NULL}, {OPT_PROGRESS_FD, NULL}),
     NULL, 0, cmd_build, NULL},
    SC_CLI_END,
};
