/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cohort.c — cohorts (docs/format-v3.md §12) and revocations (§13).
 *
 * Guarantees: the install id is checked before anything is hashed; the hash
 * input is built in one exactly sized buffer (salt, one 0x00 byte, id) and
 * freed before returning; SHA-256 comes from digest.h (OpenSSL EVP).  Inputs that are JSON
 * documents are trusted to have passed sc_manifest_check; nothing else is
 * assumed of them, and they are only read.
 */
#include "scrollcase/cohort.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scrollcase/digest.h"
#include "scrollcase/path.h"
#include "scrollcase/target.h"

sc_code sc_install_id_check(const char *id, size_t len, sc_error *err)
{
    if (id == NULL || len == 0)
        return sc_error_set(err, SC_E_INVALID_INSTALL_ID, "installId",
                            "the install id must not be empty");
    if (len > SC_INSTALL_ID_MAX)
        return sc_error_set(err, SC_E_INVALID_INSTALL_ID, "installId",
                            "the install id is %zu bytes; at most %d are allowed",
                            len, SC_INSTALL_ID_MAX);
    if (memchr(id, '\0', len) != NULL)
        return sc_error_set(err, SC_E_INVALID_INSTALL_ID, "installId",
                            "the install id must not contain NUL");
    if (!sc_utf8_valid(id, len))
        return sc_error_set(err, SC_E_INVALID_INSTALL_ID, "installId",
                            "the install id is not valid UTF-8");
    return SC_OK;
}

sc_code sc_cohort_bucket_n(const char *salt, size_t salt_len, const char *id,
                           size_t id_len, uint32_t *bucket, sc_error *err)
{
    sc_code rc = sc_install_id_check(id, id_len, err);
    if (rc != SC_OK)
        return rc;
    size_t n = salt_len + 1 + id_len;
    unsigned char *buf = malloc(n);
    if (buf == NULL)
        return sc_error_set(err, SC_E_OUT_OF_MEMORY, NULL, "out of memory");
    if (salt_len)
        memcpy(buf, salt, salt_len);
    buf[salt_len] = 0x00;
    memcpy(buf + salt_len + 1, id, id_len);
    unsigned char md[SC_SHA256_LEN];
    rc = sc_sha256(buf, n, md, err);
    free(buf);
    if (rc != SC_OK)
        return rc;
    uint32_t be = ((uint32_t)md[0] << 24) | ((uint32_t)md[1] << 16) |
                  ((uint32_t)md[2] << 8) | (uint32_t)md[3];
    *bucket = be % SC_COHORT_BUCKETS;
    return SC_OK;
}

sc_code sc_cohort_bucket(const char *salt, const char *install_id,
                         uint32_t *bucket, sc_error *err)
{
    return sc_cohort_bucket_n(salt, salt ? strlen(salt) : 0, install_id,
                              install_id ? strlen(install_id) : 0, bucket, err);
}

sc_code sc_cohort_select_n(const sc_json *channel, const char *id,
                           size_t id_len, size_t *index, uint32_t *bucket,
                           sc_error *err)
{
    const sc_json *salt = sc_json_get(channel, "cohortSalt");
    const sc_json *releases = sc_json_get(channel, "releases");
    uint32_t b = 0;
    sc_code rc;
    sc_error_clear(err);
    if (salt == NULL || salt->type != SC_JSON_STRING ||
        !sc_json_is(releases, SC_JSON_ARRAY))
        return sc_error_set(err, SC_E_INTERNAL, NULL,
                            "sc_cohort_select needs a checked channel");
    if ((rc = sc_cohort_bucket_n(salt->string, salt->length, id, id_len, &b,
                                 err)) != SC_OK)
        return rc;
    if (bucket)
        *bucket = b;
    size_t i = 0;
    for (const sc_json *r = releases->child; r; r = r->next, i++) {
        uint64_t pct = 0;
        if (sc_json_uint53(sc_json_get(r, "rolloutPercentage"), &pct) &&
            pct * 100 > b) {
            if (index)
                *index = i;
            return SC_OK;
        }
    }
    return sc_error_set(err, SC_E_NO_RELEASE_FOR_COHORT, "$.releases",
                        "no release of the channel is rolled out to cohort "
                        "bucket %u", (unsigned)b);
}

sc_code sc_cohort_select(const sc_json *channel, const char *install_id,
                         size_t *index, uint32_t *bucket, sc_error *err)
{
    return sc_cohort_select_n(channel, install_id,
                              install_id ? strlen(install_id) : 0, index,
                              bucket, err);
}

static int same_string(const sc_json *a, const sc_json *b)
{
    return a != NULL && b != NULL && a->type == SC_JSON_STRING &&
           b->type == SC_JSON_STRING && a->length == b->length &&
           memcmp(a->string, b->string, a->length) == 0;
}

sc_code sc_revocation_check(const sc_json *release, const sc_json *revocations,
                            sc_error *err)
{
    const sc_json *list = sc_json_get(revocations, "revocations");
    const sc_json *box = sc_json_get(release, "boxId");
    const sc_json *version = sc_json_get(release, "version");
    const sc_json *target = sc_json_get(release, "target");
    sc_error_clear(err);
    if (!sc_json_is(list, SC_JSON_ARRAY))
        return sc_error_set(err, SC_E_INTERNAL, NULL,
                            "sc_revocation_check needs a checked revocations document");
    size_t i = 0;
    for (const sc_json *e = list->child; e; e = e->next, i++) {
        if (!same_string(sc_json_get(e, "boxId"), box) ||
            !same_string(sc_json_get(e, "version"), version))
            continue;
        const sc_json *t = sc_json_get(e, "target");
        if (t != NULL && !sc_json_equal(t, target))
            continue;
        const sc_json *reason = sc_json_get(e, "reason");
        const sc_json *at = sc_json_get(e, "revokedAt");
        char path[64];
        snprintf(path, sizeof path, "$.revocations[%zu]", i);
        return sc_error_set(err, SC_E_REVOKED_RELEASE, path,
                            "release %s %s is revoked%s%s: %s", box->string,
                            version->string, at ? " since " : "",
                            at ? at->string : "",
                            reason ? reason->string : "(no reason given)");
    }
    return SC_OK;
}

/* ---- 16.7: a channel entry and the release it names ------------------------ */

int sc_channel_release_address(const char *url, size_t len, char hex[65])
{
    static const char suffix[] = ".release.json";
    size_t sn = sizeof suffix - 1;
    size_t end = 0;
    while (end < len && url[end] != '?' && url[end] != '#')
        end++;
    size_t start = end;
    while (start > 0 && url[start - 1] != '/')
        start--;
    if (end - start != 64 + sn || memcmp(url + end - sn, suffix, sn) != 0 ||
        !sc_is_lower_hex(url + start, 64, 64))
        return -1;
    memcpy(hex, url + start, 64);
    hex[64] = '\0';
    return 0;
}

static const char *cstr_or(const sc_json *v, const char *dflt)
{
    return v != NULL && v->type == SC_JSON_STRING ? v->string : dflt;
}

sc_code sc_channel_release_bytes_check(const sc_json *channel, size_t index,
                                       const void *url_bytes, size_t url_len,
                                       sc_error *err)
{
    sc_error_clear(err);
    const sc_json *entry = sc_json_at(sc_json_get(channel, "releases"), index);
    const sc_json *url = sc_json_get(entry, "releaseManifestUrl");
    if (url == NULL || url->type != SC_JSON_STRING)
        return sc_error_set(err, SC_E_INTERNAL, NULL,
                            "sc_channel_release_bytes_check needs a checked channel");
    char path[48];
    snprintf(path, sizeof path, "$.releases[%zu].releaseManifestUrl", index);
    char want[65];
    if (sc_channel_release_address(url->string, url->length, want) != 0)
        return sc_error_set(err, SC_E_CHANNEL_RELEASE_MISMATCH, path,
                            "the channel names its release %s, which is no content address "
                            "(section 11: <sha256>.release.json); republish the channel with "
                            "`scrollcase build`",
                            url->string);
    unsigned char md[SC_SHA256_LEN];
    char got[65];
    sc_code c = sc_sha256(url_bytes, url_len, md, err);
    if (c != SC_OK)
        return c;
    sc_hex_lower(md, SC_SHA256_LEN, got);
    got[64] = '\0';
    if (strcmp(got, want) != 0)
        return sc_error_set(err, SC_E_CHANNEL_RELEASE_MISMATCH, path,
                            "the release served at %s has SHA-256 %s, not the %s its name "
                            "and the channel promise",
                            url->string, got, want);
    return SC_OK;
}

sc_code sc_channel_release_identity_check(const sc_json *channel, size_t index,
                                          const sc_json *release, sc_error *err)
{
    sc_error_clear(err);
    const sc_json *entry = sc_json_at(sc_json_get(channel, "releases"), index);
    if (entry == NULL || release == NULL)
        return sc_error_set(err, SC_E_INTERNAL, NULL,
                            "sc_channel_release_identity_check needs a checked channel and "
                            "release");
    const sc_json *ch_box = sc_json_get(channel, "boxId");
    const sc_json *rel_box = sc_json_get(release, "boxId");
    if (!same_string(ch_box, rel_box))
        return sc_error_set(err, SC_E_CHANNEL_RELEASE_MISMATCH, "$.boxId",
                            "the channel is for box %s; the release it leads to is of box %s",
                            cstr_or(ch_box, "?"), cstr_or(rel_box, "?"));
    const sc_json *want_v = sc_json_get(entry, "version");
    const sc_json *rel_v = sc_json_get(release, "version");
    if (!same_string(want_v, rel_v))
        return sc_error_set(err, SC_E_CHANNEL_RELEASE_MISMATCH, "$.version",
                            "the channel's entry names version %s; the release it leads to is "
                            "version %s",
                            cstr_or(want_v, "?"), cstr_or(rel_v, "?"));
    sc_target ct, rt;
    sc_error ignored;
    if (sc_target_from_json(sc_json_get(channel, "target"), "$.target", &ct, &ignored) != SC_OK ||
        sc_target_from_json(sc_json_get(release, "target"), "$.target", &rt, &ignored) != SC_OK)
        return sc_error_set(err, SC_E_INTERNAL, NULL,
                            "sc_channel_release_identity_check needs checked targets");
    char cid[SC_TARGET_ID_MAX], rid[SC_TARGET_ID_MAX];
    sc_target_id(&ct, cid, sizeof cid);
    sc_target_id(&rt, rid, sizeof rid);
    if (strcmp(cid, rid) != 0)
        return sc_error_set(err, SC_E_CHANNEL_RELEASE_MISMATCH, "$.target",
                            "the channel is for target %s; the release it leads to is for %s",
                            cid, rid);
    return SC_OK;
}
