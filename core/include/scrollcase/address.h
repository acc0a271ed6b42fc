/* SPDX-License-Identifier: Apache-2.0 */
/*
 * address.h — the names and addresses of docs/format-v3.md section 11, and
 * the builder's cohortSalt (10.5).
 *
 * Guarantees: every name is a pure function of its inputs (no clock, no
 * file system, no environment); the inputs are checked first and a bad one
 * is refused rather than put into a name: boxId a slug, version a non-empty
 * string, the target id one of the matrix (section 4 codes), the channel
 * nightly/beta/stable, each sha256 64 lowercase hex digits, assetBaseUrl
 * non-empty — all else invalid-manifest.  Each string of an sc_address is
 * owned by it; sc_address_free frees them all.
 */
#ifndef SCROLLCASE_ADDRESS_H
#define SCROLLCASE_ADDRESS_H

#include <stddef.h>

#include "scrollcase/error.h"
#include "scrollcase/json.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SC_COHORT_SALT_LEN 32 /* hex digits */

/* What names are made of.  Only box_id, version and target_id are required;
 * a name whose inputs are NULL is not made (its field stays NULL). */
typedef struct sc_address_input {
    const char *box_id;
    const char *version;
    const char *target_id;      /* "linux-x86_64-cuda12.4" */
    const char *channel;        /* for channel_file */
    const char *archive_sha256; /* for archive_object, archive_url */
    const char *release_sha256; /* of the release envelope file's bytes */
    const char *asset_base_url; /* for the two URLs */
} sc_address_input;

typedef struct sc_address {
    char *stem;                 /* <boxId>-<version>-<targetId> */
    char *prefix;               /* boxes/<boxId>/<version>/<targetId> */
    char *archive_object;       /* <prefix>/<archive sha256>.zip */
    char *release_object;       /* <prefix>/<release sha256>.release.json */
    char *archive_url;          /* <base less one trailing '/'>/<archive object> */
    char *release_manifest_url; /* <base less one trailing '/'>/<release object> */
    char *channel_file;         /* channels/<boxId>/<channel>/<targetId>.json */
    char *cohort_salt;          /* first 32 hex of SHA-256("<boxId>:<version>") */
} sc_address;

/* Make every name whose inputs are given.  On failure *out is all NULL. */
sc_code sc_address_make(const sc_address_input *in, sc_address *out,
                        sc_error *err);

/* Free the strings (not the struct); safe on a zeroed or freed address. */
void sc_address_free(sc_address *a);

/*
 * The names as one JSON object, members in this order: stem, prefix,
 * archiveObject, releaseObject, archiveUrl, releaseManifestUrl,
 * channelFile, cohortSalt; a name not made is null.  NULL when out of
 * memory.
 */
sc_json *sc_address_to_json(const sc_address *a);

/*
 * The builder's cohortSalt: the first 32 lowercase hex digits of
 * SHA-256 of the UTF-8 bytes "<boxId>:<version>", into out (33 bytes).
 * No check of the inputs.
 */
sc_code sc_cohort_salt(const char *box_id, const char *version,
                       char out[SC_COHORT_SALT_LEN + 1], sc_error *err);

/*
 * The archive a consumer looks for beside a release file by default:
 * "<directory of release_path>/<archive_sha256>.zip", or just
 * "<archive_sha256>.zip" when release_path has no '/'.  NULL when out of
 * memory.  Caller frees.
 */
char *sc_address_default_archive(const char *release_path,
                                 const char *archive_sha256);

#ifdef __cplusplus
}
#endif

#endif
