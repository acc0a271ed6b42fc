/* SPDX-License-Identifier: Apache-2.0 */
/*
 * assets.h — checking a box's on-demand assets on disk.
 *
 * Guarantees (docs/format-v3.md 16.5): assets are never fetched.  Each signed
 * descriptor is checked in order and the first failure is reported, naming
 * the relativePath: unsafe path -> unsafe-path; nothing there (or a
 * non-directory on the way) -> asset-missing; a symlink anywhere on the path,
 * or anything but a regular file at its end -> asset-missing ("not a regular
 * file"); a size other than sizeBytes -> asset-size; a SHA-256 other than
 * sha256 (read streaming, through the descriptor opened without following
 * links) -> asset-hash.
 */
#ifndef SCROLLCASE_ASSETS_H
#define SCROLLCASE_ASSETS_H

#include "scrollcase/error.h"
#include "scrollcase/json.h"

#ifdef __cplusplus
extern "C" {
#endif

/* root: the box root directory; assets: the release's `assets` array (NULL:
 * none, nothing to check).  A malformed descriptor -> invalid-manifest. */
sc_code sc_assets_check(const char *root, const sc_json *assets, sc_error *err);

#ifdef __cplusplus
}
#endif

#endif
