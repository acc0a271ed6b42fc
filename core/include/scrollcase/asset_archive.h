/* SPDX-License-Identifier: Apache-2.0 */
/*
 * asset_archive.h — expanding a scroll's assetArchives into the payload
 * (docs/format-v3.md 20.3).
 *
 * Guarantees: an archive is first extracted into a private temporary
 * directory beside the payload (zip through scrollcase/archive_read.h with
 * all of its checks; tar.gz through libarchive, admitting only regular files
 * and directories with safe names); stripComponents removes exactly one root
 * directory per step (a "__MACOSX" root is ignored; anything else ->
 * SC_E_ASSET_ARCHIVE_CONFLICT); each file is then copied into
 * <payload_root>/<destination>/ with exclusive create, so an existing file is
 * never overwritten (SC_E_ASSET_ARCHIVE_CONFLICT).  Names equal after ASCII
 * case folding are refused before anything is copied: two in the archive are
 * SC_E_ENTRY_COLLISION (zip and tar.gz alike), one against a different name
 * the payload holds SC_E_ASSET_ARCHIVE_CONFLICT.  Names the payload digest
 * skips (14.3: __pycache__, .DS_Store, *.pyc) are not copied.  The temporary
 * directory is always removed; the archive is removed after success unless
 * removeAfterExtract is false.
 */
#ifndef SCROLLCASE_ASSET_ARCHIVE_H
#define SCROLLCASE_ASSET_ARCHIVE_H

#include "scrollcase/error.h"
#include "scrollcase/json.h"

#ifdef __cplusplus
extern "C" {
#endif

/* spec: one assetArchives entry of the effective scroll (5.2). */
sc_code sc_asset_archive_extract(const char *payload_root, const sc_json *spec,
                                 sc_error *err);

#ifdef __cplusplus
}
#endif

#endif
