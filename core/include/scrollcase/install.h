/* SPDX-License-Identifier: Apache-2.0 */
/*
 * install.h — a consumer's whole path in one call (`scrollcase install`):
 * fetch a signed channel or release over HTTP(S), pick the release this
 * install is served (12), fetch its archive into the asset cache and
 * prepare it (16.2).
 *
 * Guarantees:
 *  - Every document is verified against the trust set before anything it
 *    says is used: the channel (9.2, then cohort selection), the release
 *    (9.2; the document at the URL the channel names), and the archive is
 *    taken only with the size and SHA-256 the release pins (download.h:
 *    resumed from a .part in the cache, retried on network errors and 5xx).
 *  - Documents are fetched into a private temporary directory that is
 *    always removed; the archive stays in the cache (asset_cache.h), so a
 *    second install of the same release fetches only the documents.
 *  - Then sc_box_prepare: nothing at the destination unless it all worked.
 */
#ifndef SCROLLCASE_INSTALL_H
#define SCROLLCASE_INSTALL_H

#include "scrollcase/box.h"
#include "scrollcase/download.h"
#include "scrollcase/error.h"
#include "scrollcase/trust.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sc_install_options {
    const char *url;          /* a signed channel or release, http(s) */
    const char *destination;  /* must not exist */
    const sc_trust *trust;    /* checked by the caller (sc_trust_read_file) */
    const char *install_id;   /* for a channel (cohort selection); NULL: usage */
    const char *cache_dir;    /* NULL: sc_asset_cache_dir */
    const char *tmpdir;       /* NULL: $TMPDIR, else /tmp */
    const sc_download_options *download; /* may be NULL */
    const sc_box_options *box;  /* prepare's options (its progress); may be NULL */
} sc_install_options;

/* What was installed besides the receipt.  Owned; sc_install_result_free. */
typedef struct sc_install_result {
    sc_receipt receipt;
    char *channel_url;        /* NULL when the URL was a release */
    char *release_url;
    char *archive_url;
    char *archive_path;       /* the cached archive */
} sc_install_result;

void sc_install_result_free(sc_install_result *r);

/*
 * Install: codes of download.h (download-failed, asset-size, asset-hash),
 * of the envelope and manifest checks, no-release-for-cohort,
 * channel-release-mismatch (16.7: a channel's release must be the one its
 * entry names, by content address, box id, version and target), and of
 * sc_box_prepare; a document of another type than channel or release ->
 * invalid-manifest.  A relative releaseManifestUrl or archive.url is taken
 * against the URL of the document that names it.  *out is always
 * initialised.
 */
sc_code sc_install(const sc_install_options *o, sc_install_result *out, sc_error *err);

#ifdef __cplusplus
}
#endif

#endif
