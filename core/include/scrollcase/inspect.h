/* SPDX-License-Identifier: Apache-2.0 */
/*
 * inspect.h — what is inside a box, and how two boxes differ, without
 * extracting anything: the archive's central directory (archive_read.h, the
 * same inspection verify does) and the verified release.
 */
#ifndef SCROLLCASE_INSPECT_H
#define SCROLLCASE_INSPECT_H

#include "scrollcase/box.h"
#include "scrollcase/error.h"
#include "scrollcase/json.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * An archive: {"archivePath", "entryCount", "totalSizeBytes",
 * "compressedSizeBytes", "box": box.json or null, "entries": [{"path",
 * "type": "file"|"directory"|"link", "sizeBytes", "compressedSizeBytes",
 * "method": "stored"|"deflate", "mode": "0644", "linkTarget"?}]} in the
 * archive's order.  The archive is inspected as verify inspects it (every
 * entry rule); nothing is written.
 */
sc_code sc_inspect_archive(const char *archive_path, sc_json **out, sc_error *err);

/*
 * A verified release: {"releasePath", "kind", "boxId", "modelId",
 * "runtimeId", "version", "targetId", "signingKeyIds", "provenance",
 * "gates", "archive": {"url", "sha256", "sizeBytes"}, "installedSizeBytes",
 * "payloadDigest"} and, when archive_path is not NULL, the archive's
 * inspection under "contents".
 */
sc_code sc_inspect_release(const sc_release *r, const char *release_path,
                           const char *archive_path, sc_json **out, sc_error *err);

/*
 * Two inspections compared: {"changed": [{"field", "a", "b"}] over the
 * identity fields, provenance, gates and sizes, "added": [{"path",
 * "sizeBytes"}], "removed": [...], "modified": [{"path", "a": {sizeBytes,
 * mode, method, type, linkTarget}, "b": {...}}]} (paths in byte order), and
 * "same": true when all are empty.  O(n log n) in the entries.
 */
sc_code sc_inspect_diff(const sc_json *a, const sc_json *b, sc_json **out, sc_error *err);

#ifdef __cplusplus
}
#endif

#endif
