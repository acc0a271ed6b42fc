/* SPDX-License-Identifier: Apache-2.0 */
/*
 * install.c — channel or release URL to a prepared box (install.h).  Every
 * rule is another module's: download.c fetches, envelope.c and box.c
 * verify, cohort.c picks, cache.c holds the archive, prepare.c extracts.
 */
#define _POSIX_C_SOURCE 200809L

#include "scrollcase/install.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scrollcase/cache.h"
#include "scrollcase/cohort.h"
#include "scrollcase/envelope.h"
#include "scrollcase/file.h"
#include "scrollcase/json.h"
#include "scrollcase/trust.h"

static sc_code oom(sc_error *err)
{
    return sc_error_set(err, SC_E_OUT_OF_MEMORY, NULL, "out of memory");
}

static int ends_with(const char *s, const char *tail)
{
    size_t n = strlen(s), m = strlen(tail);
    return n >= m && strcmp(s + n - m, tail) == 0;
}

sc_code sc_install(const sc_install_options *o, sc_receipt *out, char **release_url,
                   sc_error *err)
{
    memset(out, 0, sizeof *out);
    *release_url = NULL;
    if (o->url == NULL || o->destination == NULL || o->trust_path == NULL)
        return sc_error_set(err, SC_E_USAGE, NULL, "install needs a URL, a destination and a trust file");
    const char *tmp = o->tmpdir ? o->tmpdir : getenv("TMPDIR");
    char *scratch = sc_path_join(tmp && tmp[0] ? tmp : "/tmp", "scrollcase-install-XXXXXX");
    if (scratch == NULL)
        return oom(err);
    if (mkdtemp(scratch) == NULL) {
        sc_code c = sc_error_set(err, SC_E_IO, scratch, "cannot create a scratch directory %s",
                                 scratch);
        free(scratch);
        return c;
    }
    sc_trust trust;
    memset(&trust, 0, sizeof trust);
    sc_verified_document vd;
    memset(&vd, 0, sizeof vd);
    sc_release rel;
    memset(&rel, 0, sizeof rel);
    char *doc = sc_path_join(scratch, "document.json");
    char *release = sc_path_join(scratch, "release.json");
    char *archive = sc_path_join(scratch, "archive.zip");
    char *cache = NULL, *url = NULL;
    uint64_t size = 0;
    char sha[65];
    sc_code c = doc && release && archive ? SC_OK : oom(err);
    if (c == SC_OK)
        c = sc_trust_read_file(o->trust_path, &trust, err);
    if (c == SC_OK)
        c = sc_download_measure(o->url, doc, o->download, &size, sha, err);
    if (c == SC_OK)
        c = sc_envelope_verify_file(o->trust_path, doc, SC_DOC_ANY, &vd, err);
    if (c == SC_OK && ends_with(vd.info.kind, ".channel")) {
        if (o->install_id == NULL) {
            c = sc_error_set(err, SC_E_USAGE, NULL,
                             "%s is a channel: pass --install-id ID to pick the release", o->url);
        } else {
            size_t index = 0;
            uint32_t bucket = 0;
            c = sc_cohort_select(vd.payload, o->install_id, &index, &bucket, err);
            const char *u = c == SC_OK ? sc_json_cstr(sc_json_get(
                                             sc_json_at(sc_json_get(vd.payload, "releases"), index),
                                             "releaseManifestUrl"))
                                       : NULL;
            if (c == SC_OK && u == NULL)
                c = sc_error_set(err, SC_E_INVALID_MANIFEST, "releases", "the channel's release has no releaseManifestUrl");
            if (c == SC_OK && (url = strdup(u)) == NULL)
                c = oom(err);
            if (c == SC_OK)
                c = sc_download_measure(url, release, o->download, &size, sha, err);
        }
    } else if (c == SC_OK && ends_with(vd.info.kind, ".release")) {
        if ((url = strdup(o->url)) == NULL)
            c = oom(err);
        else if (rename(doc, release) != 0)
            c = sc_error_set(err, SC_E_IO, release, "cannot move %s", doc);
    } else if (c == SC_OK) {
        c = sc_error_set(err, SC_E_INVALID_MANIFEST, o->url,
                         "%s is a %s, not a channel or a release", o->url, vd.info.kind);
    }
    if (c == SC_OK)
        c = sc_release_open(release, &trust, NULL, &rel, err);
    if (c == SC_OK) {
        c = o->cache_dir != NULL ? ((cache = strdup(o->cache_dir)) ? SC_OK : oom(err))
                                 : sc_cache_dir(&cache, err);
    }
    int hit = 0;
    if (c == SC_OK)
        c = sc_cache_fetch(cache, rel.archive_url, rel.archive_size, rel.archive_sha256,
                           o->offline, o->download, archive, &hit, err);
    if (c == SC_OK)
        c = sc_box_prepare(&rel, archive, o->destination, out, err);
    sc_error ignored;
    sc_file_remove_tree(scratch, &ignored);
    if (c == SC_OK) {
        *release_url = url;
        url = NULL;
    }
    free(url);
    free(cache);
    free(doc);
    free(release);
    free(archive);
    free(scratch);
    sc_release_free(&rel);
    sc_verified_document_free(&vd);
    sc_trust_free(&trust);
    return c;
}
