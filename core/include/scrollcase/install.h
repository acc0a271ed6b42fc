/* SPDX-License-Identifier: Apache-2.0 */
/*
 * install.h — a consumer's whole path in one call: a channel or release URL
 * over HTTP(S), the release it serves this install, the archive through the
 * asset cache (resumable, size- and hash-checked while it streams), then
 * verify and prepare (box.h) into a new directory.
 */
#ifndef SCROLLCASE_INSTALL_H
#define SCROLLCASE_INSTALL_H

#include "scrollcase/box.h"
#include "scrollcase/download.h"
#include "scrollcase/error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sc_install_options {
    const char *url;          /* a signed channel or release document */
    const char *destination;  /* must not exist (prepare) */
    const char *trust_path;   /* the trust file */
    const char *install_id;   /* this install's cohort id: required for a channel */
    const char *cache_dir;    /* NULL: sc_cache_dir's; none: the archive goes to tmpdir */
    const char *tmpdir;       /* NULL: $TMPDIR, else /tmp (the documents' scratch) */
    int offline;              /* the archive from the cache only */
    const sc_download_options *download; /* may be NULL */
} sc_install_options;

/*
 * Fetch o->url; verify it (any signed document); a channel picks the release
 * for o->install_id (format-v3 12) and that release is fetched and verified;
 * the release's archive comes through the cache; then sc_box_prepare into
 * o->destination.  *out is the receipt; *release_url (caller frees) the
 * release installed.  The scratch directory is removed on every path.
 */
sc_code sc_install(const sc_install_options *o, sc_receipt *out, char **release_url,
                   sc_error *err);

#ifdef __cplusplus
}
#endif

#endif
