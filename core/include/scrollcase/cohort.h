/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cohort.h — cohort selection in a channel (docs/format-v3.md section 12)
 * revocation matching (section 13) and the binding of a channel entry to
 * the release it names (section 16.7).
 *
 * Guarantees: the bucket is exactly
 *   BE-uint32(SHA-256(utf8(cohortSalt) || 0x00 || utf8(installId))[0..4]) mod 10000
 * (SHA-256 from digest.h); releases are walked in declared order and
 * the first whose rolloutPercentage x 100 is greater than the bucket is
 * served.  The functions taking JSON expect documents that already passed
 * sc_manifest_check (a channel, a revocations document, a release or a
 * box.json): they rely on the members being there with their types and do
 * not check them again.  Nothing is allocated that outlives a call.
 */
#ifndef SCROLLCASE_COHORT_H
#define SCROLLCASE_COHORT_H

#include <stddef.h>
#include <stdint.h>

#include "scrollcase/error.h"
#include "scrollcase/json.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SC_INSTALL_ID_MAX 256 /* bytes */
#define SC_COHORT_BUCKETS 10000u

/*
 * The install-id rule: len bytes, non-empty, no NUL, valid UTF-8, at most
 * SC_INSTALL_ID_MAX bytes; else invalid-install-id.
 */
sc_code sc_install_id_check(const char *id, size_t len, sc_error *err);

/*
 * The bucket (0..9999) of an install id under a salt (salt_len bytes of
 * any content; a checked channel's cohortSalt is 32 hex digits).  The
 * install id is checked first (invalid-install-id).
 */
sc_code sc_cohort_bucket_n(const char *salt, size_t salt_len, const char *id,
                           size_t id_len, uint32_t *bucket, sc_error *err);

/* The same for NUL-terminated strings. */
sc_code sc_cohort_bucket(const char *salt, const char *install_id,
                         uint32_t *bucket, sc_error *err);

/*
 * Select the release a checked channel serves to an install id: *index is
 * the position in `releases` of the release served, *bucket the bucket
 * (either may be NULL).  invalid-install-id, or no-release-for-cohort when
 * no release's rollout reaches the bucket (*bucket is still set).
 */
sc_code sc_cohort_select_n(const sc_json *channel, const char *id,
                           size_t id_len, size_t *index, uint32_t *bucket,
                           sc_error *err);
sc_code sc_cohort_select(const sc_json *channel, const char *install_id,
                         size_t *index, uint32_t *bucket, sc_error *err);

/*
 * Refuse a release (or box.json) that a checked revocations document
 * lists: an entry whose boxId and version are the release's (exact bytes)
 * and, when the entry has a target, whose target is the release's (JSON
 * equality) → revoked-release, the message naming the reason.  The first
 * matching entry in declared order is reported.
 */
sc_code sc_revocation_check(const sc_json *release, const sc_json *revocations,
                            sc_error *err);

/*
 * 16.7 step 1: the bytes served at the releaseManifestUrl of entry `index`
 * of a checked channel (the release envelope file, url_len bytes) are the
 * release that entry names: the URL's last path segment (less any ?query
 * or #fragment) is "<64 lowercase hex>.release.json" (section 11's release
 * object) and that hex is their SHA-256.  Else channel-release-mismatch.
 */
sc_code sc_channel_release_bytes_check(const sc_json *channel, size_t index,
                                       const void *url_bytes, size_t url_len,
                                       sc_error *err);

/*
 * 16.7 step 2: release (the payload of those bytes, verified and checked
 * as a release manifest, 10.2) is of the channel's boxId, the entry's
 * version and the channel's target (the same target id).  Else
 * channel-release-mismatch, naming what differs.
 */
sc_code sc_channel_release_identity_check(const sc_json *channel, size_t index,
                                          const sc_json *release, sc_error *err);

/* The content address a releaseManifestUrl names: the 64 hex digits of its
 * last segment "<sha256>.release.json" (less ?query, #fragment) copied to
 * hex (NUL-terminated); 0, or -1 when it names none. */
int sc_channel_release_address(const char *url, size_t len, char hex[65]);

#ifdef __cplusplus
}
#endif

#endif
