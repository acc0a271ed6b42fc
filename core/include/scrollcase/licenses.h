/* SPDX-License-Identifier: Apache-2.0 */
/*
 * licenses.h — the licence inventory of a lock and the reviewed-audit gate
 * (docs/format-v3.md 10.7, 20.4).
 *
 * Guarantees: the inventory lists every package the lock's "default"
 * environment installs on the target's conda platform, sorted by the bytes
 * of the name then of the version; a package with no licence, an empty one
 * or "UNKNOWN" is refused (SC_E_LICENSE_AUDIT_MISMATCH naming it).  The gate
 * refuses a reviewed file of schemaVersion 1 or 2 by name
 * (SC_E_DEPRECATED_SCHEMA_VERSION, the way out in the message) and any other
 * non-3 version (SC_E_UNSUPPORTED_SCHEMA_VERSION), compares the inventory
 * with the reviewed file byte for byte after deterministic writing and writes
 * <payload_root>/THIRD_PARTY_NOTICES/conda-distributions.json atomically.
 */
#ifndef SCROLLCASE_LICENSES_H
#define SCROLLCASE_LICENSES_H

#include "scrollcase/error.h"
#include "scrollcase/json.h"
#include "scrollcase/pixi_lock.h"
#include "scrollcase/target.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Path of the notices file under the payload root. */
#define SC_LICENSE_NOTICES_PATH "THIRD_PARTY_NOTICES/conda-distributions.json"

/* ns NULL = "scrollcase.box"; lock_sha256 is the lock file's hex digest. */
sc_code sc_license_inventory(const sc_pixi_lock *lock, const sc_target *t,
                             const char *lock_sha256, const char *ns,
                             sc_json **inventory, sc_error *err);

/*
 * A prefix build (docs/format-v3.md 20.4): the lock's inventory describes
 * the box only when the prefix holds what the lock lists.  The records of
 * <prefix>/conda-meta (sc_conda_meta_read) must be exactly the conda
 * packages (conda_source ones included) that the lock's default
 * environment lists for the target's platform — the same name, version
 * and build, and the same sha256 where both give one.  A prefix without
 * conda-meta, a package on one side only or a different archive is
 * SC_E_LOCK_PAYLOAD_MISMATCH naming the first difference (in byte order of
 * name, version, build); unreadable records keep their codes.  PyPI
 * packages leave no conda-meta record and are taken from the lock.
 */
sc_code sc_license_check_prefix(const sc_pixi_lock *lock, const sc_target *t,
                                const char *prefix, sc_error *err);

/* reviewed_path NULL: no comparison.  payload_root NULL: nothing written. */
sc_code sc_license_gate(const sc_json *inventory, const char *reviewed_path,
                        const char *payload_root, sc_error *err);

#ifdef __cplusplus
}
#endif

#endif
