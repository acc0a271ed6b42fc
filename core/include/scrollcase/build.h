/* SPDX-License-Identifier: Apache-2.0 */
/*
 * build.h — building a box from a scroll (docs/format-v3.md 20).
 *
 * Guarantees:
 *  - The steps run in the one order of 20.1 and the first failure wins.
 *    Every refusal that the scroll and the options alone can decide
 *    (channel, weights, asset base URL, namespace, native host, signing
 *    preflight, environment source, CUDA audit gate) comes before any
 *    process is started, anything is downloaded or any directory is
 *    created or removed.
 *  - Provenance comes from git (HEAD, `status --porcelain`, the committer
 *    time of HEAD in UTC), never from the clock, the time zone or the
 *    locale; git runs without a shell.
 *  - The archive and the release document are byte-identical for one commit
 *    whatever TZ, LC_ALL, the umask or the order a file system lists a
 *    directory in (20.7).
 *  - Every document is checked with sc_manifest_check before it is signed;
 *    publication into the dist tree writes temporaries in the destination
 *    directories and renames them, archive first, release next, channel
 *    last, and removes what it placed when a later step fails, so a failure
 *    leaves no half-published tree.
 */
#ifndef SCROLLCASE_BUILD_H
#define SCROLLCASE_BUILD_H

#include <stdint.h>

#include "scrollcase/archive_write.h"
#include "scrollcase/config.h"
#include "scrollcase/error.h"
#include "scrollcase/lock_install.h"
#include "scrollcase/progress.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SC_BUILD_DEFAULT_CHANNEL "beta"
#define SC_BUILDER_NAME "scrollcase"
/* <build>/<scrollId>/payload is the payload; <build>/<scrollId> is scratch. */
#define SC_BUILD_PAYLOAD_DIR "payload"

/* A progress line: step ("git", "environment", "self-test", ...) and what. */
typedef void (*sc_build_progress_fn)(void *ctx, const char *step, const char *detail);

typedef struct sc_build_options {
    const sc_workspace *workspace; /* scrolls, build, dist, keys; root = project */
    const char *ref;               /* "<boxId>/<targetId>" */
    const char *channel;           /* NULL: "beta" */
    const char *weights;           /* NULL: the scroll's, else "embed" */
    const char *asset_base_url;    /* NULL: the scroll's assetBaseUrl */
    const char *ns;                /* document namespace; NULL: scrollcase.box */
    int allow_dirty;
    /* environment source: exactly one of a prefix or the lock */
    const char *environment_prefix; /* relocatable prefix, copied in as venv/ */
    /* the lock source's road: NULL or "lock" — the native installer
     * (lock_install.h), the default; "pixi" — pixi install + conda-pack */
    const char *environment_from;
    const char *pixi;              /* --environment-from pixi: pixi and conda-pack paths */
    const char *conda_pack;
    /* the native installer's sources (lock_install.h): URL prefix rewrites
     * and a local channel directory (NULL: none) */
    const sc_channel_mirror *channel_mirrors;
    size_t nchannel_mirrors;
    const char *channel_dir;
    /* signing: a local key pair (sc_keys_load_signing: the private key file
     * private_key, NULL: the keys directory's, one pair with public_key;
     * key_id NULL: whichever keyId it is), or an external signer checked
     * against the trust file public_key (private_key and key_id then
     * SC_E_USAGE) */
    const char *key_id;
    const char *signer_command;
    const char *private_key;       /* upstream's --private-key; NULL: the keys directory's */
    const char *public_key;        /* NULL: the keys directory's public file */
    int no_cuda_audit;
    sc_archive_compression compression;
    sc_build_progress_fn progress; /* may be NULL */
    void *progress_ctx;
    char *const *host_env;         /* NULL: environ (PATH for git, self-test base) */
    unsigned jobs;                 /* hashing and compression threads; 0: every CPU */
    /* embedded assets come through the asset cache (asset_cache.h) */
    const char *asset_cache;       /* NULL: sc_asset_cache_dir */
    int offline;                   /* fetch nothing: an uncached asset is asset-not-cached */
    /* bytes and files done of the total of every long step (may be NULL):
     * copy, digest, download, self-test, parity, recheck and archive
     * (progress.h); the step lines above come as well */
    sc_progress_fn transfer;
    void *transfer_ctx;
} sc_build_options;

typedef struct sc_build_result {
    char *box_id, *version, *target_id, *weights, *channel;
    char *archive_path;  /* published, all under the dist directory */
    char *release_path;
    char *channel_path;
    char archive_sha256[65];
    char release_sha256[65];
    char payload_sha256[65];
    uint64_t archive_size;
    uint64_t installed_size;
    char builder_revision[41];
    char built_at[21];
    int source_tree_dirty;
} sc_build_result;

/* Build and publish one box.  *r is always initialised; sc_build_result_free. */
sc_code sc_build(const sc_build_options *o, sc_build_result *r, sc_error *err);
void sc_build_result_free(sc_build_result *r);

/*
 * UTC timestamp YYYY-MM-DDTHH:MM:SSZ of seconds since the epoch (no time
 * zone, no locale); out holds 21 bytes.  SC_E_INTERNAL when out of range.
 */
sc_code sc_build_timestamp(long long seconds, char out[21], sc_error *err);

#ifdef __cplusplus
}
#endif

#endif
