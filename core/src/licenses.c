/* SPDX-License-Identifier: Apache-2.0 */
/*
 * licenses.c — the licence inventory and the reviewed-audit gate.
 *
 * Guarantees: see licenses.h.  The inventory is built from the lock alone
 * (no network, no environment), so the same lock and target always give
 * the same bytes.  The comparison is of deterministic texts (json.h), and a
 * mismatch names the first member or package that differs.
 */
#define _POSIX_C_SOURCE 200809L
#include "scrollcase/licenses.h"
#include "scrollcase/remedy.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "scrollcase/audit.h"
#include "scrollcase/digest.h"
#include "scrollcase/file.h"
#include "scrollcase/path.h"

#define LICENSE_DEFAULT_NS "scrollcase.box"
#define LICENSE_ENVIRONMENT "default"

static int unknown_license(const char *l)
{
    if (!l)
        return 1;
    while (*l == ' ' || *l == '\t')
        l++;
    if (*l == '\0')
        return 1;
    static const char word[] = "unknown";
    size_t i = 0;
    for (; word[i]; i++) {
        char ch = l[i];
        if (ch >= 'A' && ch <= 'Z')
            ch = (char)(ch - 'A' + 'a');
        if (ch != word[i])
            return 0;
    }
    while (l[i] == ' ' || l[i] == '\t')
        i++;
    return l[i] == '\0';
}

static int cmp_pkg(const void *a, const void *b)
{
    const sc_lock_package *x = *(const sc_lock_package *const *)a;
    const sc_lock_package *y = *(const sc_lock_package *const *)b;
    int c = strcmp(x->name, y->name);
    if (c == 0)
        c = strcmp(x->version, y->version);
    if (c == 0)
        c = (int)x->kind - (int)y->kind;
    return c;
}

sc_code sc_license_inventory(const sc_pixi_lock *lock, const sc_target *t, const char *lock_sha256,
                             const char *ns, sc_json **inventory, sc_error *err)
{
    *inventory = NULL;
    if (!lock || !t || !lock_sha256)
        return sc_error_set(err, SC_E_USAGE, NULL, "the licence inventory needs a lock, a target and its digest");
    if (!sc_is_lower_hex(lock_sha256, strlen(lock_sha256), 64))
        return sc_error_set(err, SC_E_USAGE, NULL, "the lock digest is not 64 lowercase hex digits");
    const char *subdir = sc_target_conda_subdir(t);
    const sc_lock_platform *pl = sc_pixi_lock_find(lock, LICENSE_ENVIRONMENT, subdir);
    if (!pl || pl->count == 0)
        return sc_error_set(err, SC_E_INVALID_LOCK, "pixi.lock",
                            "environment default locks no packages for %s", subdir);
    const sc_lock_package **v = malloc(pl->count * sizeof *v);
    if (!v)
        return sc_error_set(err, SC_E_OUT_OF_MEMORY, NULL, "out of memory");
    for (size_t i = 0; i < pl->count; i++) {
        const sc_lock_package *p = &lock->packages[pl->packages[i]];
        if (!p->name || !p->version) {
            free(v);
            return sc_error_set(err, SC_E_INVALID_LOCK, "pixi.lock",
                                "package %s locked for %s has no version (a package built "
                                "from source); the licence inventory lists versions",
                                p->name ? p->name : "(unnamed)", subdir);
        }
        if (unknown_license(p->license)) {
            free(v);
            return sc_error_set(err, SC_E_LICENSE_AUDIT_MISMATCH, p->name,
                                "%s %s declares no licence (%s); it cannot be shipped unreviewed",
                                p->name, p->version, p->license ? p->license : "absent");
        }
        v[i] = p;
    }
    qsort(v, pl->count, sizeof *v, cmp_pkg);
    /* 10.7: an inventory lists each (name, version) once; a lock that holds
     * two builds (or a conda and a PyPI package) of one name and version is
     * refused here, not written as a document the manifest check refuses. */
    for (size_t i = 1; i < pl->count; i++) {
        if (strcmp(v[i - 1]->name, v[i]->name) == 0 &&
            strcmp(v[i - 1]->version, v[i]->version) == 0) {
            sc_code c = sc_error_set(err, SC_E_LICENSE_AUDIT_MISMATCH, v[i]->name,
                                     "%s %s is locked twice for %s; a licence inventory lists "
                                     "each name and version once (run pixi lock again)",
                                     v[i]->name, v[i]->version, subdir);
            free(v);
            return c;
        }
    }

    char kind[256];
    int kn = snprintf(kind, sizeof kind, "%s.dependency-license-audit", ns ? ns : LICENSE_DEFAULT_NS);
    if (kn < 0 || (size_t)kn >= sizeof kind) {
        free(v);
        return sc_error_set(err, SC_E_USAGE, NULL, "the namespace is too long");
    }
    char tid[64];
    sc_target_id(t, tid, sizeof tid);

    sc_json *doc = sc_json_new_object();
    sc_json *packages = sc_json_new_array();
    int ok = doc && packages;
    ok = ok && sc_json_object_append(doc, "schemaVersion", sc_json_new_number(3)) == 0;
    ok = ok && sc_json_object_append(doc, "kind", sc_json_new_string(kind)) == 0;
    ok = ok && sc_json_object_append(doc, "targetId", sc_json_new_string(tid)) == 0;
    ok = ok && sc_json_object_append(doc, "lockSha256", sc_json_new_string(lock_sha256)) == 0;
    for (size_t i = 0; ok && i < pl->count; i++) {
        sc_json *e = sc_json_new_object();
        ok = e != NULL;
        ok = ok && sc_json_object_append(e, "name", sc_json_new_string(v[i]->name)) == 0;
        ok = ok && sc_json_object_append(e, "version", sc_json_new_string(v[i]->version)) == 0;
        ok = ok && sc_json_object_append(e, "declaredLicense",
                                         sc_json_new_string(v[i]->license)) == 0;
        ok = ok && sc_json_object_append(e, "source",
                                         sc_json_new_string(v[i]->kind == SC_LOCK_CONDA
                                                                ? "conda" : "pypi")) == 0;
        if (ok)
            ok = sc_json_array_append(packages, e) == 0;
        else
            sc_json_free(e);
    }
    free(v);
    if (ok) {
        ok = sc_json_object_append(doc, "packages", packages) == 0;
        if (ok)
            packages = NULL;
    }
    if (!ok) {
        sc_json_free(packages);
        sc_json_free(doc);
        return sc_error_set(err, SC_E_OUT_OF_MEMORY, NULL, "out of memory");
    }
    *inventory = doc;
    return SC_OK;
}

/* Name the first difference between the inventory and the reviewed file. */
static sc_code mismatch(const sc_json *have, const sc_json *want, const char *reviewed_path,
                        sc_error *err)
{
    static const char *const top[] = {"schemaVersion", "kind", "targetId", "lockSha256"};
    for (size_t i = 0; i < sizeof top / sizeof top[0]; i++) {
        if (!sc_json_equal(sc_json_get(have, top[i]), sc_json_get(want, top[i])))
            return sc_error_set(err, SC_E_LICENSE_AUDIT_MISMATCH, reviewed_path,
                                "%s: %s differs from the lock's inventory%s", reviewed_path,
                                top[i],
                                strcmp(top[i], "lockSha256") == 0
                                    ? " (the lock changed: review it and run `" SC_REMEDY_AUDIT_WRITE "`)"
                                    : "");
    }
    const sc_json *hp = sc_json_get(have, "packages");
    const sc_json *wp = sc_json_get(want, "packages");
    size_t hn = hp ? hp->length : 0;
    size_t wn = wp && sc_json_is(wp, SC_JSON_ARRAY) ? wp->length : 0;
    for (size_t i = 0; i < hn || i < wn; i++) {
        const sc_json *h = i < hn ? sc_json_at(hp, i) : NULL;
        const sc_json *w = i < wn ? sc_json_at(wp, i) : NULL;
        if (h && w && sc_json_equal(h, w))
            continue;
        const char *hname = h ? sc_json_cstr(sc_json_get(h, "name")) : NULL;
        const char *wname = w ? sc_json_cstr(sc_json_get(w, "name")) : NULL;
        if (!w)
            return sc_error_set(err, SC_E_LICENSE_AUDIT_MISMATCH, reviewed_path,
                                "%s: package %s is locked but not reviewed", reviewed_path, hname);
        if (!h)
            return sc_error_set(err, SC_E_LICENSE_AUDIT_MISMATCH, reviewed_path,
                                "%s: package %s is reviewed but no longer locked", reviewed_path,
                                wname ? wname : "(unnamed)");
        return sc_error_set(err, SC_E_LICENSE_AUDIT_MISMATCH, reviewed_path,
                            "%s: packages[%zu] is %s in the lock but %s in the review",
                            reviewed_path, i, hname ? hname : "?", wname ? wname : "?");
    }
    return sc_error_set(err, SC_E_LICENSE_AUDIT_MISMATCH, reviewed_path,
                        "%s differs from the lock's inventory", reviewed_path);
}

/* The reviewed file's schemaVersion: 3, or refused by name (section 1). */
static sc_code reviewed_version(const sc_json *want, const char *path, sc_error *err)
{
    const sc_json *v = sc_json_is(want, SC_JSON_OBJECT) ? sc_json_get(want, "schemaVersion") : NULL;
    uint64_t n = 0;
    if (v == NULL || (sc_json_uint53(v, &n) && n == 3))
        return SC_OK; /* a missing version is a difference like any other */
    if (sc_json_uint53(v, &n) && (n == 1 || n == 2))
        return sc_error_set(err, SC_E_DEPRECATED_SCHEMA_VERSION, path,
                            "%s is a schema-%d licence inventory (v3 renamed "
                            "dependencyLockSha256 to lockSha256); convert it with `"
                            SC_REMEDY_MIGRATE "`, or write it anew with `"
                            SC_REMEDY_AUDIT_WRITE "`, and review it", path, (int)n);
    char shown[48];
    sc_json_describe_value(v, shown, sizeof shown);
    return sc_error_set(err, SC_E_UNSUPPORTED_SCHEMA_VERSION, path,
                        "%s: unsupported schemaVersion %s; it must be the integer 3", path,
                        shown);
}

sc_code sc_license_gate(const sc_json *inventory, const char *reviewed_path,
                        const char *payload_root, sc_error *err)
{
    if (!inventory)
        return sc_error_set(err, SC_E_USAGE, NULL, "the licence gate needs an inventory");
    char *have = NULL;
    size_t have_len = 0;
    sc_code rc = sc_json_write(inventory, &have, &have_len, err);
    if (rc != SC_OK)
        return rc;
    if (reviewed_path) {
        char *bytes = NULL;
        size_t len = 0;
        int missing = 0;
        rc = sc_file_read(reviewed_path, &bytes, &len, &missing, err);
        if (rc != SC_OK) {
            free(have);
            if (missing)
                return sc_error_set(err, SC_E_LICENSE_AUDIT_MISMATCH, reviewed_path,
                                    "the reviewed licence audit %s does not exist "
                                    "(run `" SC_REMEDY_AUDIT_WRITE "` and review it)",
                                    reviewed_path);
            return rc;
        }
        sc_json *want = NULL;
        rc = sc_json_parse(bytes, len, &want, err);
        free(bytes);
        if (rc == SC_OK)
            rc = reviewed_version(want, reviewed_path, err);
        if (rc != SC_OK) {
            sc_json_free(want);
            free(have);
            return rc;
        }
        char *want_text = NULL;
        size_t want_len = 0;
        rc = sc_json_write(want, &want_text, &want_len, err);
        if (rc == SC_OK && (want_len != have_len || memcmp(want_text, have, have_len) != 0))
            rc = mismatch(inventory, want, reviewed_path, err);
        free(want_text);
        sc_json_free(want);
        if (rc != SC_OK) {
            free(have);
            return rc;
        }
    }
    if (payload_root) {
        char *dir = sc_path_join(payload_root, "THIRD_PARTY_NOTICES");
        char *file = dir ? sc_path_join(dir, "conda-distributions.json") : NULL;
        struct stat st;
        if (!file) {
            rc = sc_error_set(err, SC_E_OUT_OF_MEMORY, NULL, "out of memory");
        } else if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
            rc = sc_error_set(err, SC_E_IO, dir, "cannot create %s: %s", dir, strerror(errno));
        } else if (lstat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
            rc = sc_error_set(err, SC_E_IO, dir, "%s is not a directory", dir);
        } else {
            rc = sc_file_write_atomic(file, have, have_len, 0644, err);
        }
        free(file);
        free(dir);
    }
    free(have);
    return rc;
}

/* ---- a prefix build: does the lock describe the prefix? ------------------- */

typedef struct nvb {
    const char *name, *version, *build, *sha256;
} nvb;

static int nvb_cmp(const void *a, const void *b)
{
    const nvb *x = a, *y = b;
    int c = strcmp(x->name, y->name);
    if (c == 0)
        c = strcmp(x->version, y->version);
    if (c == 0)
        c = strcmp(x->build, y->build);
    return c;
}

sc_code sc_license_check_prefix(const sc_pixi_lock *lock, const sc_target *t,
                                const char *prefix, sc_error *err)
{
    const char *subdir = sc_target_conda_subdir(t);
    const sc_lock_platform *pl = sc_pixi_lock_find(lock, LICENSE_ENVIRONMENT, subdir);
    if (!pl || pl->count == 0)
        return sc_error_set(err, SC_E_INVALID_LOCK, "pixi.lock",
                            "environment default locks no packages for %s", subdir);
    sc_conda_record *recs = NULL;
    size_t nrec = 0;
    int missing = 0;
    sc_code rc = sc_conda_meta_read(prefix, &recs, &nrec, &missing, err);
    if (rc != SC_OK)
        return missing ? sc_error_set(err, SC_E_LOCK_PAYLOAD_MISMATCH, prefix,
                                      "the prefix %s has no conda-meta, so nothing shows that "
                                      "pixi.lock describes it and its licence inventory cannot "
                                      "be shipped; build from the lock (without "
                                      "--environment-prefix) or from a prefix pixi installed "
                                      "from this lock", prefix)
                       : rc;
    nvb *have = calloc(nrec + 1, sizeof *have), *want = calloc(pl->count + 1, sizeof *want);
    size_t nwant = 0;
    if (have == NULL || want == NULL) {
        rc = sc_error_set(err, SC_E_OUT_OF_MEMORY, NULL, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < nrec; i++)
        have[i] = (nvb){recs[i].name, recs[i].version, recs[i].build, recs[i].sha256};
    for (size_t i = 0; i < pl->count; i++) {
        const sc_lock_package *p = &lock->packages[pl->packages[i]];
        if (p->kind != SC_LOCK_CONDA)
            continue;
        want[nwant++] = (nvb){p->name, p->version ? p->version : "", p->build ? p->build : "",
                              p->sha256};
    }
    qsort(have, nrec, sizeof *have, nvb_cmp);
    qsort(want, nwant, sizeof *want, nvb_cmp);
    size_t i = 0, j = 0;
    while (rc == SC_OK && (i < nrec || j < nwant)) {
        int c = i == nrec ? 1 : j == nwant ? -1 : nvb_cmp(&have[i], &want[j]);
        if (c < 0)
            rc = sc_error_set(err, SC_E_LOCK_PAYLOAD_MISMATCH, have[i].name,
                              "the prefix %s holds %s %s (%s), which pixi.lock does not list "
                              "for %s: the lock's licence inventory would not describe this "
                              "payload", prefix, have[i].name, have[i].version, have[i].build,
                              subdir);
        else if (c > 0)
            rc = sc_error_set(err, SC_E_LOCK_PAYLOAD_MISMATCH, want[j].name,
                              "pixi.lock lists %s %s (%s) for %s, which the prefix %s does "
                              "not hold: the lock's licence inventory would not describe this "
                              "payload", want[j].name, want[j].version, want[j].build, subdir,
                              prefix);
        else if (have[i].sha256 && want[j].sha256 && strcmp(have[i].sha256, want[j].sha256) != 0)
            rc = sc_error_set(err, SC_E_LOCK_PAYLOAD_MISMATCH, want[j].name,
                              "%s %s (%s) in the prefix %s came from another archive than "
                              "pixi.lock names (sha256 %s, locked %s)", want[j].name,
                              want[j].version, want[j].build, prefix, have[i].sha256,
                              want[j].sha256);
        else {
            i++;
            j++;
        }
    }
done:
    free(have);
    free(want);
    sc_conda_records_free(recs, nrec);
    return rc;
}
