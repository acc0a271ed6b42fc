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
