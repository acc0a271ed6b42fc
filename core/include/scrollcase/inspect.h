/* SPDX-License-Identifier: Apache-2.0 */
/*
 * inspect.h — looking inside a box without extracting it, and comparing two
 * (`scrollcase inspect`, `scrollcase diff`; docs/cli.md).
 *
 * Guarantees:
 *  - Nothing is extracted and nothing is written: an archive is opened with
 *    the reader's inspection (archive_read.h, so every check of 15.2 runs
 *    first), only box.json is read out of it (at most 1 MiB), and the
 *    archive file is hashed in one streaming pass.
 *  - The documents are deterministic: members in a fixed order, entries in
 *    central-directory order, numbers exact.
 *  - A diff walks both entry lists once after sorting them by path
 *    (O(n log n)); its lists are sorted by path.
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
 * Whether path is a ZIP archive (it starts with a local header or an end
 * record): *is_archive 1, else 0.  A file that cannot be opened is
 * archive-not-found (missing) or io-error.
 */
sc_code sc_inspect_sniff(const char *path, int *is_archive, sc_error *err);

/*
 * An archive as a JSON object: {path, sizeBytes, sha256, entryCount,
 * totalSizeBytes, compressedSizeBytes, box (box.json's object, or null when
 * the archive has none), entries: [{path, type ("file", "directory",
 * "link"), sizeBytes, compressedSizeBytes, method ("stored", "deflate"),
 * mode ("0644"), crc32 (8 hex digits), linkTarget (null but for links)}]}.
 * The reader's codes (archive_read.h); a box.json that is not JSON, or over
 * 1 MiB, is invalid-manifest.
 */
sc_code sc_inspect_archive(const char *archive_path, sc_json **out, sc_error *err);

/*
 * A verified release as a JSON object: {boxId, modelId, runtimeId, version,
 * targetId, target, signingKeyIds, compatibility, archive {url, sha256,
 * sizeBytes}, installedSizeBytes, payloadDigest, pythonEntryPoint,
 * execution (or null), assets (count of on-demand assets), provenance,
 * gates (or null)}.
 */
sc_code sc_inspect_release(const sc_release *r, sc_json **out, sc_error *err);

/*
 * The whole inspection document's body: {"inspected": "release"|"archive",
 * "release": object|null, "archive": object|null, "archiveMatchesRelease":
 * bool|null}.  r may be NULL (an archive alone); archive_path may be NULL or
 * name a missing file when r is given (then "archive" is null).
 */
sc_code sc_inspect(const sc_release *r, const char *archive_path, sc_json **out,
                   sc_error *err);

/*
 * Compare two inspection bodies (sc_inspect) of the same kind: {identical,
 * identity: [{member, a, b}], provenance: [...], gates: [...], release:
 * [...] (archive, sizes, payload digest, compatibility, execution...),
 * payload: {added: [{path, type, sizeBytes}], removed: [...], changed:
 * [{path, a: {type, sizeBytes, mode, crc32, linkTarget}, b: {...},
 * changes: ["type"|"size"|"content"|"mode"|"linkTarget"]}], addedBytes,
 * removedBytes} or null when either side has no archive}.  A release
 * against an archive is usage.
 */
sc_code sc_inspect_diff(const sc_json *a, const sc_json *b, sc_json **out, sc_error *err);

#ifdef __cplusplus
}
#endif

#endif
