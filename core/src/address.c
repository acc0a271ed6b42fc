/* SPDX-License-Identifier: Apache-2.0 */
/*
 * address.c — names and addresses (docs/format-v3.md §11) and the builder's
 * cohortSalt (§10.5).
 *
 * Guarantees: inputs are checked before any name is made, so no name ever
 * holds a bad part; names are built with exact lengths (no fixed buffers
 * that could cut one short); SHA-256 comes from digest.h (OpenSSL EVP),
 * never from a hash written here.  On failure nothing is left allocated.
 */
#include "scrollcase/address.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scrollcase/digest.h"
#include "scrollcase/path.h"
#include "scrollcase/target.h"

/* A new string of the pieces, NULL-terminated argument list.  NULL on OOM. */
static char *concat(const char *first, ...)
{
    va_list ap;
    size_t n = 0;
    va_start(ap, first);
    for (const char *s = first; s != NULL; s = va_arg(ap, const char *))
        n += strlen(s);
    va_end(ap);
    char *out = malloc(n + 1);
    if (out == NULL)
        return NULL;
    char *p = out;
    va_start(ap, first);
    for (const char *s = first; s != NULL; s = va_arg(ap, const char *)) {
        size_t k = strlen(s);
        memcpy(p, s, k);
        p += k;
    }
    va_end(ap);
    *p = '\0';
    return out;
}

static int is_hex64(const char *s)
{
    if (strlen(s) != 64)
        return 0;
    for (size_t i = 0; i < 64; i++)
        if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
            return 0;
    return 1;
}

static sc_code check_inputs(const sc_address_input *in, sc_error *err)
{
    if (in->box_id == NULL || !sc_is_slug(in->box_id))
        return sc_error_set(err, SC_E_INVALID_MANIFEST, "boxId",
                            "boxId must match ^[a-z0-9]+(?:[-.][a-z0-9]+)*$");
    if (in->version == NULL || in->version[0] == '\0')
        return sc_error_set(err, SC_E_INVALID_MANIFEST, "version",
                            "version must be a non-empty string");
    if (in->target_id == NULL)
        return sc_error_set(err, SC_E_INVALID_TARGET, "targetId",
                            "a target id is required");
    sc_target t;
    sc_code rc = sc_target_parse_id(in->target_id, &t, err);
    if (rc != SC_OK)
        return rc;
    char id[SC_TARGET_ID_MAX];
    sc_target_id(&t, id, sizeof id);
    if (strcmp(id, in->target_id) != 0)
        return sc_error_set(err, SC_E_UNSUPPORTED_TARGET, "targetId",
                            "unsupported box target id %s", in->target_id);
    if (in->channel != NULL && strcmp(in->channel, "nightly") != 0 &&
        strcmp(in->channel, "beta") != 0 && strcmp(in->channel, "stable") != 0)
        return sc_error_set(err, SC_E_INVALID_MANIFEST, "channel",
                            "channel must be \"nightly\", \"beta\" or \"stable\"");
    if (in->archive_sha256 != NULL && !is_hex64(in->archive_sha256))
        return sc_error_set(err, SC_E_INVALID_MANIFEST, "archiveSha256",
                            "the archive sha256 must be 64 lowercase hex digits");
    if (in->release_sha256 != NULL && !is_hex64(in->release_sha256))
        return sc_error_set(err, SC_E_INVALID_MANIFEST, "releaseSha256",
                            "the release file sha256 must be 64 lowercase hex digits");
    if (in->asset_base_url != NULL && in->asset_base_url[0] == '\0')
        return sc_error_set(err, SC_E_INVALID_MANIFEST, "assetBaseUrl",
                            "assetBaseUrl must not be empty");
    return SC_OK;
}

void sc_address_free(sc_address *a)
{
    if (a == NULL)
        return;
    free(a->stem);
    free(a->prefix);
    free(a->archive_object);
    free(a->release_object);
    free(a->archive_url);
    free(a->release_manifest_url);
    free(a->channel_file);
    free(a->cohort_salt);
    memset(a, 0, sizeof *a);
}

sc_code sc_cohort_salt(const char *box_id, const char *version,
                       char out[SC_COHORT_SALT_LEN + 1], sc_error *err)
{
    static const char hex[] = "0123456789abcdef";
    char *text = concat(box_id, ":", version, (const char *)NULL);
    unsigned char md[SC_SHA256_LEN];
    out[0] = '\0';
    if (text == NULL)
        return sc_error_set(err, SC_E_OUT_OF_MEMORY, NULL, "out of memory");
    sc_code rc = sc_sha256(text, strlen(text), md, err);
    free(text);
    if (rc != SC_OK)
        return rc;
    for (size_t i = 0; i < SC_COHORT_SALT_LEN / 2; i++) {
        out[2 * i] = hex[md[i] >> 4];
        out[2 * i + 1] = hex[md[i] & 15];
    }
    out[SC_COHORT_SALT_LEN] = '\0';
    return SC_OK;
}

/* The base URL less exactly one trailing '/' (a new string). */
static char *base_url(const char *url)
{
    size_t n = strlen(url);
    if (n > 0 && url[n - 1] == '/')
        n--;
    char *out = malloc(n + 1);
    if (out != NULL) {
        memcpy(out, url, n);
        out[n] = '\0';
    }
    return out;
}

sc_code sc_address_make(const sc_address_input *in, sc_address *out,
                        sc_error *err)
{
    sc_address a;
    char salt[SC_COHORT_SALT_LEN + 1];
    char *base = NULL;
    sc_code rc;
    memset(out, 0, sizeof *out);
    memset(&a, 0, sizeof a);
    sc_error_clear(err);
    if ((rc = check_inputs(in, err)) != SC_OK)
        return rc;
    if ((rc = sc_cohort_salt(in->box_id, in->version, salt, err)) != SC_OK)
        return rc;
    int oom = 0;
#define MAKE(field, ...)                                                    \
    do {                                                                    \
        if (!oom && ((field) = concat(__VA_ARGS__, (const char *)NULL)) == NULL) \
            oom = 1;                                                        \
    } while (0)
    MAKE(a.stem, in->box_id, "-", in->version, "-", in->target_id);
    MAKE(a.prefix, "boxes/", in->box_id, "/", in->version, "/", in->target_id);
    MAKE(a.cohort_salt, salt);
    if (in->archive_sha256 != NULL)
        MAKE(a.archive_object, a.prefix ? a.prefix : "", "/", in->archive_sha256, ".zip");
    if (in->release_sha256 != NULL)
        MAKE(a.release_object, a.prefix ? a.prefix : "", "/", in->release_sha256,
             ".release.json");
    if (in->channel != NULL)
        MAKE(a.channel_file, "channels/", in->box_id, "/", in->channel, "/",
             in->target_id, ".json");
    if (!oom && in->asset_base_url != NULL &&
        (base = base_url(in->asset_base_url)) == NULL)
        oom = 1;
    if (base != NULL && a.archive_object != NULL)
        MAKE(a.archive_url, base, "/", a.archive_object);
    if (base != NULL && a.release_object != NULL)
        MAKE(a.release_manifest_url, base, "/", a.release_object);
#undef MAKE
    free(base);
    if (oom) {
        sc_address_free(&a);
        return sc_error_set(err, SC_E_OUT_OF_MEMORY, NULL, "out of memory");
    }
    *out = a;
    return SC_OK;
}

sc_json *sc_address_to_json(const sc_address *a)
{
    const char *keys[] = {"stem", "prefix", "archiveObject", "releaseObject",
                          "archiveUrl", "releaseManifestUrl", "channelFile",
                          "cohortSalt"};
    const char *values[] = {a->stem, a->prefix, a->archive_object,
                            a->release_object, a->archive_url,
                            a->release_manifest_url, a->channel_file,
                            a->cohort_salt};
    sc_json *o = sc_json_new_object();
    if (o == NULL)
        return NULL;
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        sc_json *v = values[i] ? sc_json_new_string(values[i]) : sc_json_new_null();
        /* append takes v, and frees it when it fails */
        if (v == NULL || sc_json_object_append(o, keys[i], v) != 0) {
            sc_json_free(o);
            return NULL;
        }
    }
    return o;
}

char *sc_address_default_archive(const char *release_path,
                                 const char *archive_sha256)
{
    const char *slash = strrchr(release_path, '/');
    if (slash == NULL)
        return concat(archive_sha256, ".zip", (const char *)NULL);
    size_t n = (size_t)(slash - release_path) + 1; /* keep the '/' */
    char *dir = malloc(n + 1);
    if (dir == NULL)
        return NULL;
    memcpy(dir, release_path, n);
    dir[n] = '\0';
    char *out = concat(dir, archive_sha256, ".zip", (const char *)NULL);
    free(dir);
    return out;
}
