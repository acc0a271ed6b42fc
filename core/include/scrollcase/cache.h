/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cache.h — the content-addressed asset cache builds read before the
 * network: <dir>/<sha256> holds an asset whose SHA-256 is its name, and
 * <dir>/<sha256>.part a download in progress, kept there so that the next
 * build resumes it.  The directory is $SCROLLCASE_CACHE, else
 * $HOME/.cache/scrollcase/assets.
 */
#ifndef SCROLLCASE_CACHE_H
#define SCROLLCASE_CACHE_H

#include <stddef.h>
#include <stdint.h>

#include "scrollcase/download.h"
#include "scrollcase/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The cache directory (caller frees); NULL with SC_OK when neither variable is set. */
sc_code sc_cache_dir(char **out, sc_error *err);

/*
 * Put the asset url (size bytes, sha256_hex) at dest: from the cache when it
 * holds it (verified again), else downloaded into the cache (resumable,
 * checked) and then copied.  offline: a miss is SC_E_ASSET_NOT_CACHED and
 * nothing is fetched.  *hit says whether the network was left alone.
 */
sc_code sc_cache_fetch(const char *dir, const char *url, uint64_t size, const char *sha256_hex,
                       int offline, const sc_download_options *o, const char *dest, int *hit,
                       sc_error *err);

typedef struct sc_cache_entry {
    char name[80];     /* "<sha256>" or "<sha256>.part" */
    uint64_t size;
    int partial;       /* a .part */
} sc_cache_entry;

/* Every entry, sorted by name (caller frees *entries). */
sc_code sc_cache_list(const char *dir, sc_cache_entry **entries, size_t *n, sc_error *err);

/*
 * Remove every .part, every file whose SHA-256 is not its name, and
 * anything else that is not a cache entry; *removed and *freed count them.
 */
sc_code sc_cache_gc(const char *dir, size_t *removed, uint64_t *freed, sc_error *err);

#ifdef __cplusplus
}
#endif

#endif
