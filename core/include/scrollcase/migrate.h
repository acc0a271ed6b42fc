/* SPDX-License-Identifier: Apache-2.0 */
/*
 * migrate.h — rewriting schema-v2 scrolls as schema v3.
 *
 * Guarantees (docs/format-v3.md, "Migration"): a v2 scroll becomes the v3
 * scroll with the same meaning — schemaVersion 3 and the v3 $schema, every
 * other member and its order kept — or nothing is written at all.  When the
 * scroll has a base, the base and every target scroll of the box that
 * extends it are migrated together, since a base is shared.  Each result is
 * validated as v3 before anything is written; a scroll whose meaning v3
 * cannot keep (v3 refuses it) is migrate-refused naming the reason.  Files
 * are replaced atomically one by one (temporary name, rename): an
 * interrupted migration leaves every file either v2 or v3, and running it
 * again completes it.  Given the project root, the schema-2 licence
 * inventories the migrated scrolls declare (condaDependencyLicenseAudit)
 * are converted with them under the same rules: schemaVersion 3,
 * dependencyLockSha256 renamed lockSha256 in place, nothing else changed,
 * the result checked as a v3 inventory (10.7) for the scroll's target
 * before anything is written.
 */
#ifndef SCROLLCASE_MIGRATE_H
#define SCROLLCASE_MIGRATE_H

#include <stddef.h>

#include "scrollcase/error.h"
#include "scrollcase/json.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Migrate one document in memory: a v2 scroll (fragment or base) → its v3
 * form (a new tree).  v3 already → a copy and *changed = 0.  A v1 document
 * or another version → migrate-refused.  This does not validate the whole
 * scroll; sc_migrate_box does.
 */
sc_code sc_migrate_document(const sc_json *doc, const char *name,
                            sc_json **out, int *changed, sc_error *err);

typedef struct sc_migrate_result {
    char **written; /* paths relative to the scrolls directory, in write order */
    size_t count;
    char **inventories; /* licence inventories written, as declared (relative
                           to the project root), in write order, after the
                           scrolls */
    size_t ninventories;
} sc_migrate_result;

/*
 * Migrate one licence inventory in memory: schemaVersion 2 → 3 with
 * dependencyLockSha256 renamed lockSha256 (member order kept); already 3 →
 * a copy and *changed = 0.  Anything else, a v2 document without a
 * dependencyLockSha256 string or with a lockSha256 already, a result that
 * is not a valid v3 inventory, or (target_id not NULL) one for another
 * target → migrate-refused naming name and the reason.
 */
sc_code sc_migrate_inventory(const sc_json *doc, const char *name, const char *target_id,
                             sc_json **out, int *changed, sc_error *err);

/*
 * Migrate by reference ("<box>/<target>" or "<box>") in a scrolls directory.
 * dry_run: validate only, write nothing (result lists what would be written).
 */
sc_code sc_migrate_ref(const char *scrolls_dir, const char *ref, int dry_run,
                       sc_migrate_result *out, sc_error *err);

/*
 * sc_migrate_ref, and (project_root not NULL) the licence inventories the
 * scrolls declare, read from <project_root>/<declared path>; a declared
 * file that does not exist is left for `scrollcase audit --write`.
 */
sc_code sc_migrate_workspace(const char *scrolls_dir, const char *project_root,
                             const char *ref, int dry_run, sc_migrate_result *out,
                             sc_error *err);
void sc_migrate_result_free(sc_migrate_result *r);

#ifdef __cplusplus
}
#endif

#endif
