/* SPDX-License-Identifier: Apache-2.0 */
/*
 * asset_cache.h — the content-addressed cache of downloaded assets
 * (docs/cli.md, "The asset cache").
 *
 * The cache is one directory: $SCROLLCASE_CACHE when it is set and not
 * empty, else $HOME/.cache/scrollcase/assets.  An asset lives there as a
 * file named by its SHA-256 (64 lowercase hex digits), written only by
 * download.h's rename of a verified file; a download in progress is
 * "<sha256>.part" beside it, kept when a download fails so that the next
 * one (the next build) resumes it with a Range request.  A cached file is
 * used only when its size and SHA-256 still match the pin (it is hashed
 * each time it is used), so a damaged entry is fetched again, never used.
 * Offline, nothing is fetched: an asset that is not cached is
 * asset-not-cached.
 */
#ifndef SCROLLCASE_ASSET_CACHE_H
#define SCROLLCASE_ASSET_CACHE_H

#include <stdint.h>

#include "scrollcase/download.h"
#include "scrollcase/error.h"
#include "scrollcase/json.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The cache directory (see above; not created).  Caller frees *out.  No
 * $SCROLLCASE_CACHE and no $HOME -> usage. */
sc_code sc_asset_cache_dir(char **out, sc_error *err);

/*
 * Make the pinned asset (size, sha256: 64 lowercase hex) present in the
 * cache directory dir (created when missing): kept when it is there and
 * matches, else downloaded from url into it (resuming a .part), unless
 * offline (then asset-not-cached).  *path (may be NULL; caller frees) is
 * the cached file.  Download codes as sc_download_verified.  size 0 pins
 * the digest alone.  A file:// URL (an absolute path, %XX decoded) is
 * copied in and checked the same way, never used in place; an unreadable
 * one is download-failed.
 */
sc_code sc_asset_cache_fetch(const char *dir, const char *url, uint64_t size,
                             const char *sha256, int offline, const sc_download_options *o,
                             char **path, sc_error *err);

/*
 * sc_asset_cache_fetch, then copy the cached file to dest (replaced; mode
 * 0644).  The cache keeps its copy.
 */
sc_code sc_asset_cache_copy_to(const char *dir, const char *url, uint64_t size,
                               const char *sha256, int offline,
                               const sc_download_options *o, const char *dest, sc_error *err);

/*
 * The cache's contents: {directory, entries: [{sha256, sizeBytes,
 * partial}] sorted by name, totalBytes}.  Nothing is hashed.  A cache
 * directory that does not exist lists as empty.
 */
sc_code sc_asset_cache_list(const char *dir, sc_json **out, sc_error *err);

/*
 * Remove from the cache what cannot be used: partial downloads (.part),
 * entries whose bytes no longer hash to their name, and anything whose
 * name is not an entry's.  {directory, removed: [{name, sizeBytes, reason
 * ("partial", "damaged", "foreign")}], freedBytes, kept}.  Every entry is
 * hashed (one streaming pass each).
 */
sc_code sc_asset_cache_gc(const char *dir, sc_json **out, sc_error *err);

#ifdef __cplusplus
}
#endif

#endif
