/* SPDX-License-Identifier: Apache-2.0 */
/*
 * install.c — fetch, verify and prepare a box from where it is published
 * (install.h): the channel or release over HTTP(S) into a private
 * temporary directory, the archive into the asset cache, then prepare.
 */
#include "scrollcase/install.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "scrollcase/asset_cache.h"
#include "scrollcase/cleanup.h"
#include "scrollcase/cohort.h"
#include "scrollcase/envelope.h"
#include "scrollcase/file.h"
#include "scrollcase/path.h"

static sc_code oom(sc_error *err)
{
    return sc_error_set(err, SC_E_OUT_OF_MEMORY, NULL, "out of memory");
}

void sc_install_result_free(sc_install_result *r)
{
    if (r == NULL)
        return;
    sc_receipt_free(&r->receipt);
    free(r->channel_url);
    free(r->release_url);
    free(r->archive_url);
    free(r->archive_path);
    memset(r, 0, sizeof *r);
}

/* ref taken against base (RFC 3986 in the three cases a publisher uses:
 * absolute, host-absolute "/...", relative to base's directory). */
static char *resolve(const char *base, const char *ref)
{
    if (strstr(ref, "://") != NULL)
        return strdup(ref);
    size_t end = strcspn(base, "?#");
    const char *scheme_end = strstr(base, "://");
    size_t host_end = end;
    if (scheme_end != NULL && (size_t)(scheme_end - base) < end) {
        const char *slash = memchr(scheme_end + 3, '/', end - (size_t)(scheme_end + 3 - base));
        host_end = slash != NULL ? (size_t)(slash - base) : end;
    }
    size_t keep;
    if (ref[0] == '/') {
        keep = host_end;
    } else {
        keep = end;
        while (keep > host_end && base[keep - 1] != '/')
            keep--;
        if (keep == host_end) { /* no path: the root */
            size_t n = host_end + 1 + strlen(ref) + 1;
            char *out = malloc(n);
            if (out != NULL)
                snprintf(out, n, "%.*s/%s", (int)host_end, base, ref);
            return out;
        }
    }
    size_t n = keep + strlen(ref) + 1;
    char *out = malloc(n);
    if (out != NULL)
        snprintf(out, n, "%.*s%s", (int)keep, base, ref);
    return out;
}

/* Fetch url to <dir>/<name> and read it. */
static sc_code fetch_document(const char *url, const char *dir, const char *name,
                              const sc_download_options *o, char **bytes, size_t *len,
                              sc_error *err)
{
    *bytes = NULL;
    char *path = sc_path_join(dir, name);
    if (path == NULL)
        return oom(err);
    uint64_t size = 0;
    char sha[65];
    /* A document is at most SC_FILE_READ_MAX bytes: a server that sends more
     * (one that never ends) is stopped there, not after the disk is full. */
    sc_download_options bounded;
    if (o != NULL)
        bounded = *o;
    else
        memset(&bounded, 0, sizeof bounded);
    bounded.max_bytes = SC_FILE_READ_MAX;
    sc_code c = sc_download_measure(url, path, &bounded, &size, sha, err);
    if (c == SC_E_ASSET_SIZE)
        c = sc_error_set(err, SC_E_DOWNLOAD_FAILED, url,
                         "%s sends more than %zu bytes, the most a channel or release "
                         "document may be",
                         url, (size_t)SC_FILE_READ_MAX);
    if (c == SC_OK)
        c = sc_file_read(path, bytes, len, NULL, err);
    free(path);
    return c;
}

sc_code sc_install(const sc_install_options *o, sc_install_result *out, sc_error *err)
{
    memset(out, 0, sizeof *out);
    if (o->url == NULL || o->destination == NULL || o->trust == NULL)
        return sc_error_set(err, SC_E_USAGE, NULL, "install needs a URL, a destination and a trust set");
    char *cache = NULL;
    sc_code c = o->cache_dir != NULL ? ((cache = strdup(o->cache_dir)) ? SC_OK : oom(err))
                                     : sc_asset_cache_dir(&cache, err);
    if (c != SC_OK)
        return c;
    const char *tmpdir = o->tmpdir ? o->tmpdir : getenv("TMPDIR");
    if (tmpdir == NULL || tmpdir[0] == '\0')
        tmpdir = "/tmp";
    char *tmpl = sc_path_join(tmpdir, "scrollcase-install-XXXXXX");
    if (tmpl == NULL) {
        free(cache);
        return oom(err);
    }
    int tmp_slot; /* removed by an interruption too (cleanup.h) */
    if (sc_cleanup_mkdtemp(tmpl, &tmp_slot) != 0) {
        c = sc_error_set(err, SC_E_IO, tmpdir, "cannot create a temporary directory in %s: %s",
                         tmpdir, strerror(errno));
        free(tmpl);
        free(cache);
        return c;
    }
    char *bytes = NULL;
    size_t len = 0;
    sc_verified_document doc;
    memset(&doc, 0, sizeof doc);
    sc_release rel;
    memset(&rel, 0, sizeof rel);
    int rel_open = 0, is_channel = 0;
    size_t index = 0;
    out->release_url = strdup(o->url);
    if (out->release_url == NULL)
        c = oom(err);
    if (c == SC_OK)
        c = fetch_document(o->url, tmpl, "document.json", o->download, &bytes, &len, err);
    if (c == SC_OK)
        c = sc_envelope_verify(bytes, len, o->trust, SC_DOC_ANY, &doc, err);
    if (c == SC_OK && doc.info.type == SC_DOC_CHANNEL) {
        /* 12: the release this install is served */
        is_channel = 1;
        uint32_t bucket = 0;
        if (o->install_id == NULL)
            c = sc_error_set(err, SC_E_USAGE, NULL,
                             "%s is a channel: give --install-id ID to pick a release", o->url);
        if (c == SC_OK)
            c = sc_cohort_select(doc.payload, o->install_id, &index, &bucket, err);
        const char *ref = NULL;
        if (c == SC_OK)
            ref = sc_json_cstr(sc_json_get(sc_json_at(sc_json_get(doc.payload, "releases"), index),
                                           "releaseManifestUrl"));
        if (c == SC_OK) {
            out->channel_url = out->release_url;
            out->release_url = ref != NULL ? resolve(o->url, ref) : NULL;
            if (out->release_url == NULL)
                c = oom(err);
        }
        free(bytes);
        bytes = NULL;
        if (c == SC_OK)
            c = fetch_document(out->release_url, tmpl, "release.json", o->download, &bytes, &len,
                               err);
    } else if (c == SC_OK && doc.info.type != SC_DOC_RELEASE) {
        c = sc_error_set(err, SC_E_INVALID_MANIFEST, o->url,
                         "%s is neither a channel nor a release; give the URL of one", o->url);
    }
    /* 16.7: the release is the one the channel's entry names: its bytes by
     * content address first, then, verified, its box, version and target */
    if (c == SC_OK && is_channel &&
        (c = sc_channel_release_bytes_check(doc.payload, index, bytes, len, err)) != SC_OK)
        sc_error_prefix(err, out->channel_url);
    if (c == SC_OK) {
        c = sc_release_open_bytes(bytes, len, o->trust, NULL, &rel, err);
        rel_open = c == SC_OK;
        if (c != SC_OK)
            sc_error_prefix(err, out->release_url);
    }
    if (c == SC_OK && is_channel &&
        (c = sc_channel_release_identity_check(doc.payload, index, rel.doc.payload, err)) !=
            SC_OK)
        sc_error_prefix(err, out->channel_url);
    sc_verified_document_free(&doc);
    if (c == SC_OK) {
        out->archive_url = resolve(out->release_url, rel.archive_url);
        if (out->archive_url == NULL)
            c = oom(err);
    }
    if (c == SC_OK)
        c = sc_asset_cache_fetch(cache, out->archive_url, rel.archive_size, rel.archive_sha256, 0,
                                 o->download, &out->archive_path, err);
    if (c == SC_OK)
        c = sc_box_prepare_with(&rel, out->archive_path, o->destination, o->box, &out->receipt,
                                err);
    free(bytes);
    if (rel_open)
        sc_release_free(&rel);
    (void)sc_cleanup_remove_dir(tmp_slot, tmpl);
    free(tmpl);
    free(cache);
    return c;
}
