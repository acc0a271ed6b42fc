/* SPDX-License-Identifier: Apache-2.0 */
/*
 * migrate.c — schema-v2 scrolls to v3 (docs/format-v3.md §7).
 *
 * Guarantees: nothing is written unless every scroll of the migration passes
 * v3 validation; each file is replaced atomically; members keep their order.
 */
#include "scrollcase/migrate.h"
#include "cleanup_internal.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "scrollcase/file.h"
#include "scrollcase/manifest.h"
#include "scrollcase/path.h"
#include "scrollcase/scroll.h"

#define V2_SCHEMA_ID "https://scrollcase.dev/schema/v2/scroll.schema.json"

sc_code sc_migrate_document(const sc_json *doc, const char *name,
                            sc_json **out, int *changed, sc_error *err)
{
    *out = NULL;
    *changed = 0;
    if (!sc_json_is(doc, SC_JSON_OBJECT))
        return sc_error_set(err, SC_E_MIGRATE_REFUSED, name,
                            "%s: a scroll must be a JSON object", name);
    const sc_json *v = sc_json_get(doc, "schemaVersion");
    uint64_t n = 0;
    int version = 0; /* 0: none declared */
    if (v != NULL) {
        if (!sc_json_uint53(v, &n) || (n != 1 && n != 2 && n != 3))
            return sc_error_set(err, SC_E_MIGRATE_REFUSED, name,
                                "%s: schemaVersion is neither 2 nor 3; only v2 "
                                "scrolls can be migrated", name);
        version = (int)n;
    }
    if (version == 1)
        return sc_error_set(err, SC_E_MIGRATE_REFUSED, name,
                            "%s: a v1 scroll cannot be migrated; v1 vocabulary "
                            "and layout are gone — write the scroll anew", name);
    sc_json *cp = sc_json_copy(doc);
    if (cp == NULL)
        return sc_error_set(err, SC_E_OUT_OF_MEMORY, NULL, "out of memory");
    if (version == 2) {
        const sc_json *schema = sc_json_get(cp, "$schema");
        if (sc_json_object_set(cp, "schemaVersion", sc_json_new_number(3)) != 0 ||
            (schema != NULL && sc_json_cstr(schema) != NULL &&
             strcmp(schema->string, V2_SCHEMA_ID) == 0 &&
             sc_json_object_set(cp, "$schema", sc_json_new_string(SC_SCROLL_SCHEMA_ID)) != 0)) {
            sc_json_free(cp);
            return sc_error_set(err, SC_E_OUT_OF_MEMORY, NULL, "out of memory");
        }
        *changed = 1;
    }
    *out = cp;
    return SC_OK;
}

sc_code sc_migrate_inventory(const sc_json *doc, const char *name, const char *target_id,
                             sc_json **out, int *changed, sc_error *err)
{
    *out = NULL;
    *changed = 0;
    if (!sc_json_is(doc, SC_JSON_OBJECT))
        return sc_error_set(err, SC_E_MIGRATE_REFUSED, name,
                            "%s: a licence inventory must be a JSON object", name);
    const sc_json *v = sc_json_get(doc, "schemaVersion");
    uint64_t n = 0;
    if (v == NULL || !sc_json_uint53(v, &n) || (n != 2 && n != 3))
        return sc_error_set(err, SC_E_MIGRATE_REFUSED, name,
                            "%s: schemaVersion is neither 2 nor 3; only schema-2 licence "
                            "inventories are converted (write a new one with scrollcase "
                            "audit --write)", name);
    sc_json *cp = NULL;
    if (n == 3) {
        cp = sc_json_copy(doc);
    } else {
        const sc_json *old = sc_json_get(doc, "dependencyLockSha256");
        if (sc_json_cstr(old) == NULL)
            return sc_error_set(err, SC_E_MIGRATE_REFUSED, name,
                                "%s: a schema-2 licence inventory names its lock in "
                                "dependencyLockSha256, a string; this one has none", name);
        if (sc_json_get(doc, "lockSha256") != NULL)
            return sc_error_set(err, SC_E_MIGRATE_REFUSED, name,
                                "%s: has both dependencyLockSha256 and lockSha256; v3 "
                                "renamed the first to the second, so one must go", name);
        cp = sc_json_new_object();
        for (const sc_json *m = doc->child; cp != NULL && m != NULL; m = m->next) {
            const char *key = m->key;
            sc_json *val;
            if (strcmp(key, "schemaVersion") == 0) {
                val = sc_json_new_number(3);
            } else {
                if (strcmp(key, "dependencyLockSha256") == 0)
                    key = "lockSha256";
                val = sc_json_copy(m);
            }
            if (val == NULL || sc_json_object_append(cp, key, val) != 0) {
                sc_json_free(cp);
                cp = NULL;
            }
        }
        *changed = 1;
    }
    if (cp == NULL) {
        *changed = 0;
        return sc_error_set(err, SC_E_OUT_OF_MEMORY, NULL, "out of memory");
    }
    sc_error why;
    sc_code rc = sc_manifest_check(cp, SC_DOC_LICENSE_INVENTORY, NULL, &why);
    if (rc == SC_E_OUT_OF_MEMORY) {
        *err = why;
    } else if (rc != SC_OK) {
        rc = sc_error_set(err, SC_E_MIGRATE_REFUSED, name,
                          "%s cannot be converted faithfully: as a v3 licence inventory "
                          "it is refused with %s (%s)", name, sc_code_name(why.code),
                          why.message);
    } else if (target_id != NULL) {
        const char *tid = sc_json_cstr(sc_json_get(cp, "targetId"));
        if (tid == NULL || strcmp(tid, target_id) != 0)
            rc = sc_error_set(err, SC_E_MIGRATE_REFUSED, name,
                              "%s: its targetId %s is not the target of the scroll that "
                              "declares it (%s)", name, tid ? tid : "(none)", target_id);
    }
    if (rc != SC_OK) {
        sc_json_free(cp);
        *changed = 0;
        return rc;
    }
    *out = cp;
    return SC_OK;
}

void sc_migrate_result_free(sc_migrate_result *r)
{
    if (r == NULL)
        return;
    for (size_t i = 0; i < r->count; i++)
        free(r->written[i]);
    free(r->written);
    for (size_t i = 0; i < r->ninventories; i++)
        free(r->inventories[i]);
    free(r->inventories);
    r->written = NULL;
    r->count = 0;
    r->inventories = NULL;
    r->ninventories = 0;
}

/* A licence inventory to convert. */
/* A file's bytes before a migration replaced it (missing: it was not there). */
typedef struct saved {
    char *path;
    char *bytes;
    size_t len;
    int missing;
} saved;

static sc_code save(saved *v, const char *path, sc_error *err)
{
    v->path = strdup(path);
    if (v->path == NULL)
        return sc_error_set(err, SC_E_OUT_OF_MEMORY, NULL, "out of memory");
    sc_code rc = sc_file_read(path, &v->bytes, &v->len, &v->missing, err);
    if (rc != SC_OK && v->missing) {
        sc_error_clear(err);
        rc = SC_OK;
    }
    return rc;
}

/* Put the old bytes back (undo), or only forget them. */
static void restore_saved(const saved *v, int undo)
{
    sc_error ignored;
    if (!undo || v->path == NULL)
        return;
    if (v->missing)
        (void)unlink(v->path);
    else
        (void)sc_file_write_atomic(v->path, v->bytes, v->len, 0644, &ignored);
}

static void saved_free(saved *v)
{
    free(v->path);
    free(v->bytes);
}

typedef struct inv {
    char *rel;  /* as declared, relative to the project root */
    char *path;
    char *text;
    size_t len;
} inv;

static void inv_free(inv *v)
{
    free(v->rel);
    free(v->path);
    free(v->text);
}

/* One file of a migration. */
typedef struct doc {
    char *rel;    /* relative to the scrolls dir */
    char *path;   /* full path */
    char *target; /* target dir name; NULL for the base */
    sc_json *migrated;
    char *text;   /* migrated text */
    size_t len;
    int changed;
} doc;

static void doc_free(doc *d)
{
    free(d->rel);
    free(d->path);
    free(d->target);
    sc_json_free(d->migrated);
    free(d->text);
}

static sc_code load_doc(const char *scrolls_dir, const char *box,
                        const char *target, doc *d, int *extends, sc_error *err)
{
    memset(d, 0, sizeof *d);
    size_t n = strlen(box) + (target ? strlen(target) : 0) + 16;
    d->rel = malloc(n);
    if (d->rel == NULL)
        return sc_error_set(err, SC_E_OUT_OF_MEMORY, NULL, "out of memory");
    if (target)
        snprintf(d->rel, n, "%s/%s/scroll.json", box, target);
    else
        snprintf(d->rel, n, "%s/scroll.json", box);
    d->path = sc_path_join(scrolls_dir, d->rel);
    d->target = target ? strdup(target) : NULL;
    if (d->path == NULL || (target && d->target == NULL))
        return sc_error_set(err, SC_E_OUT_OF_MEMORY, NULL, "out of memory");
    sc_json *parsed = NULL;
    sc_code rc = sc_json_parse_file(d->path, &parsed, err);
    if (rc != SC_OK)
        return rc;
    if (extends)
        *extends = sc_json_is(parsed, SC_JSON_OBJECT) && sc_json_get(parsed, "extends");
    rc = sc_migrate_document(parsed, d->path, &d->migrated, &d->changed, err);
    sc_json_free(parsed);
    if (rc != SC_OK)
        return rc;
    return sc_json_write(d->migrated, &d->text, &d->len, err);
}

/* The inventory a resolved scroll declares, when it needs converting. */
static sc_code collect_inventory(const char *project_root, const sc_scroll *s, inv *invs,
                                 size_t *ninvs, sc_error *err)
{
    const char *rel = sc_json_cstr(sc_json_get(s->effective, "condaDependencyLicenseAudit"));
    if (rel == NULL)
        return SC_OK;
    for (size_t i = 0; i < *ninvs; i++)
        if (strcmp(invs[i].rel, rel) == 0)
            return SC_OK;
    char *path = sc_path_join(project_root, rel);
    if (path == NULL)
        return sc_error_set(err, SC_E_OUT_OF_MEMORY, NULL, "out of memory");
    char *bytes = NULL;
    size_t len = 0;
    int missing = 0;
    sc_code rc = sc_file_read(path, &bytes, &len, &missing, err);
    if (rc != SC_OK) {
        free(path);
        if (missing) {
            sc_error_clear(err);
            return SC_OK; /* nothing to convert: audit --write makes one */
        }
        return rc;
    }
    sc_json *parsed = NULL;
    sc_error why;
    rc = sc_json_parse(bytes, len, &parsed, &why);
    free(bytes);
    if (rc != SC_OK) {
        free(path);
        return rc == SC_E_OUT_OF_MEMORY
                   ? sc_error_set(err, rc, NULL, "out of memory")
                   : sc_error_set(err, SC_E_MIGRATE_REFUSED, rel,
                                  "%s (the licence inventory of %s) is not JSON: %s", rel,
                                  s->target_id, why.message);
    }
    sc_json *conv = NULL;
    int changed = 0;
    rc = sc_migrate_inventory(parsed, rel, s->target_id, &conv, &changed, err);
    sc_json_free(parsed);
    if (rc == SC_OK && changed) {
        inv *v = &invs[*ninvs];
        memset(v, 0, sizeof *v);
        v->path = path;
        path = NULL;
        v->rel = strdup(rel);
        rc = v->rel ? sc_json_write(conv, &v->text, &v->len, err)
                    : sc_error_set(err, SC_E_OUT_OF_MEMORY, NULL, "out of memory");
        (*ninvs)++;
    }
    sc_json_free(conv);
    free(path);
    return rc;
}

sc_code sc_migrate_ref(const char *scrolls_dir, const char *ref, int dry_run,
                       sc_migrate_result *out, sc_error *err)
{
    return sc_migrate_workspace(scrolls_dir, NULL, ref, dry_run, out, err);
}

sc_code sc_migrate_workspace(const char *scrolls_dir, const char *project_root,
                             const char *ref, int dry_run, sc_migrate_result *out,
                             sc_error *err)
{
    memset(out, 0, sizeof *out);
    sc_error_clear(err);
    inv *invs = NULL;
    size_t ninvs = 0;
    sc_scroll_ref_list refs = {NULL, 0};
    sc_code rc = sc_scroll_list_refs(scrolls_dir, ref, &refs, err);
    if (rc != SC_OK)
        return rc;
    const char *slash = strchr(ref, '/');
    char *box = strndup(ref, slash ? (size_t)(slash - ref) : strlen(ref));
    doc *docs = calloc(refs.count + 1, sizeof *docs);
    size_t ndocs = 0;
    if (box == NULL || docs == NULL) {
        rc = sc_error_set(err, SC_E_OUT_OF_MEMORY, NULL, "out of memory");
        goto done;
    }
    /* Does the named scroll (or any scroll of the box) extend the base? */
    int any_extends = 0;
    for (size_t i = 0; i < refs.count && rc == SC_OK; i++) {
        int ext = 0;
        rc = load_doc(scrolls_dir, box, strchr(refs.refs[i], '/') + 1,
                      &docs[ndocs++], &ext, err);
        any_extends |= ext;
    }
    if (rc == SC_OK && any_extends) {
        /*
         * The base is shared: migrate it first, then, in byte order, every
         * target of the box that was named or that extends the base.
         */
        sc_scroll_ref_list all = {NULL, 0};
        rc = sc_scroll_list_refs(scrolls_dir, box, &all, err);
        doc *grown = rc == SC_OK ? realloc(docs, (all.count + 1) * sizeof *docs) : NULL;
        if (rc == SC_OK && grown == NULL)
            rc = sc_error_set(err, SC_E_OUT_OF_MEMORY, NULL, "out of memory");
        if (rc == SC_OK) {
            docs = grown;
            for (size_t i = 0; i < ndocs; i++)
                doc_free(&docs[i]);
            ndocs = 0;
            rc = load_doc(scrolls_dir, box, NULL, &docs[ndocs++], NULL, err);
            for (size_t i = 0; i < all.count && rc == SC_OK; i++) {
                int ext = 0, named = 0;
                for (size_t k = 0; k < refs.count; k++)
                    named |= strcmp(refs.refs[k], all.refs[i]) == 0;
                doc d;
                rc = load_doc(scrolls_dir, box, strchr(all.refs[i], '/') + 1, &d,
                              &ext, err);
                if (rc == SC_OK && (ext || named))
                    docs[ndocs++] = d;
                else
                    doc_free(&d);
            }
        }
        sc_scroll_ref_list_free(&all);
    }
    if (rc != SC_OK)
        goto done;

    int changed = 0;
    for (size_t i = 0; i < ndocs; i++)
        changed |= docs[i].changed;

    /* Validate every migrated target scroll as v3 before writing anything,
     * and collect the licence inventories they declare. */
    const doc *base = any_extends ? &docs[0] : NULL;
    if (project_root != NULL && (invs = calloc(ndocs + 1, sizeof *invs)) == NULL)
        rc = sc_error_set(err, SC_E_OUT_OF_MEMORY, NULL, "out of memory");
    for (size_t i = 0; i < ndocs && rc == SC_OK; i++) {
        if (docs[i].target == NULL || (!changed && project_root == NULL))
            continue;
        sc_scroll_source fs = {docs[i].text, docs[i].len, docs[i].path};
        sc_scroll_source bs = {base ? base->text : NULL, base ? base->len : 0,
                               base ? base->path : NULL};
        sc_scroll *s = NULL;
        sc_error why;
        sc_code vr = sc_scroll_resolve(&fs, &bs, box, docs[i].target, &s, &why);
        if (vr != SC_OK && changed)
            rc = sc_error_set(err, SC_E_MIGRATE_REFUSED, docs[i].path,
                              "%s cannot be migrated faithfully: as v3 it is "
                              "refused with %s (%s)", docs[i].rel,
                              sc_code_name(why.code), why.message);
        else if (vr == SC_OK && project_root != NULL)
            rc = collect_inventory(project_root, s, invs, &ninvs, err);
        sc_scroll_free(s);
    }
    if (rc != SC_OK || (!changed && ninvs == 0))
        goto done;

    out->written = calloc(ndocs, sizeof *out->written);
    out->inventories = calloc(ninvs + 1, sizeof *out->inventories);
    if (out->written == NULL || out->inventories == NULL) {
        rc = sc_error_set(err, SC_E_OUT_OF_MEMORY, NULL, "out of memory");
        goto done;
    }
    /* Every file is replaced whole, one after the other: an interruption
     * waits until all are (cleanup.h), and a write that fails puts back the
     * ones already replaced, so a migration is never half done. */
    sigset_t held;
    sc_cleanup_hold(&held);
    size_t nold = ndocs + ninvs, replaced = 0;
    saved *old = dry_run || nold == 0 ? NULL : calloc(nold, sizeof *old);
    if (!dry_run && nold > 0 && old == NULL)
        rc = sc_error_set(err, SC_E_OUT_OF_MEMORY, NULL, "out of memory");
    for (size_t i = 0; i < ndocs && rc == SC_OK; i++) {
        if (!docs[i].changed)
            continue;
        if (!dry_run && (rc = save(&old[replaced], docs[i].path, err)) == SC_OK &&
            (rc = sc_file_write_atomic(docs[i].path, docs[i].text, docs[i].len, 0644, err)) ==
                SC_OK)
            replaced++;
        if (rc == SC_OK) {
            out->written[out->count] = strdup(docs[i].rel);
            if (out->written[out->count] == NULL)
                rc = sc_error_set(err, SC_E_OUT_OF_MEMORY, NULL, "out of memory");
            else
                out->count++;
        }
    }
    for (size_t i = 0; i < ninvs && rc == SC_OK; i++) {
        if (!dry_run && (rc = save(&old[replaced], invs[i].path, err)) == SC_OK &&
            (rc = sc_file_write_atomic(invs[i].path, invs[i].text, invs[i].len, 0644, err)) ==
                SC_OK)
            replaced++;
        if (rc == SC_OK) {
            out->inventories[out->ninventories] = strdup(invs[i].rel);
            if (out->inventories[out->ninventories] == NULL)
                rc = sc_error_set(err, SC_E_OUT_OF_MEMORY, NULL, "out of memory");
            else
                out->ninventories++;
        }
    }
    if (old != NULL) {
        for (size_t i = replaced; i-- > 0;)
            restore_saved(&old[i], rc != SC_OK);
        for (size_t i = 0; i < nold; i++)
            saved_free(&old[i]);
        free(old);
    }
    sc_cleanup_release(&held);
done:
    if (rc != SC_OK)
        sc_migrate_result_free(out);
    for (size_t i = 0; i < ndocs; i++)
        doc_free(&docs[i]);
    free(docs);
    for (size_t i = 0; i < ninvs; i++)
        inv_free(&invs[i]);
    free(invs);
    free(box);
    sc_scroll_ref_list_free(&refs);
    return rc;
}
