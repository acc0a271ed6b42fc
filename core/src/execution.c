/* SPDX-License-Identifier: Apache-2.0 */
/*
 * execution.c — static discoverability of a box's execution entry point.
 *
 * Guarantees: see execution.h.  Nothing here runs or opens a file; presence
 * comes from the caller's callback (an archive's entry set, or lstat under a
 * directory through sc_execution_has_in_dir).
 */
#define _POSIX_C_SOURCE 200809L
#include "scrollcase/execution.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "scrollcase/file.h"
#include "scrollcase/path.h"

static sc_code bad(sc_error *err, const char *field, const char *what)
{
    return sc_error_set(err, SC_E_INVALID_MANIFEST, field, "%s: %s", field, what);
}

/* maj.min from ^(\d+)\.(\d+)(?:\.|$) into buf; 0 if it does not match. */
static int python_minor(const char *v, char *buf, size_t size)
{
    const char *p = v;
    size_t a = strspn(p, "0123456789");
    if (a == 0 || p[a] != '.')
        return 0;
    size_t b = strspn(p + a + 1, "0123456789");
    if (b == 0)
        return 0;
    char after = p[a + 1 + b];
    if (after != '\0' && after != '.')
        return 0;
    if (a + 1 + b + 1 > size)
        return 0;
    memcpy(buf, p, a + 1 + b);
    buf[a + 1 + b] = '\0';
    return 1;
}

static sc_code check_module(const char *module, const sc_json *release,
                            const sc_target *t, sc_has_path_fn has, void *ctx,
                            sc_error *err)
{
    const char *pv = sc_json_cstr(sc_json_get(sc_json_get(release, "provenance"),
                                              "pythonVersion"));
    char minor[64];
    if (pv == NULL || !python_minor(pv, minor, sizeof minor))
        return sc_error_set(err, SC_E_INVALID_MANIFEST, "$.provenance.pythonVersion",
                            "Invalid Python version for execution discovery: %s.",
                            pv ? pv : "(none)");
    char stdlib[96];
    if (t->platform == SC_PLATFORM_WINDOWS)
        snprintf(stdlib, sizeof stdlib, "venv/Lib");
    else
        snprintf(stdlib, sizeof stdlib, "venv/lib/python%s", minor);
    size_t ml = strlen(module);
    char *m = strdup(module);
    size_t cap = ml + sizeof stdlib + 64;
    char *cand = malloc(cap);
    if (m == NULL || cand == NULL) {
        free(m);
        free(cand);
        return sc_error_set(err, SC_E_OUT_OF_MEMORY, NULL, "out of memory");
    }
    for (char *p = m; *p; p++)
        if (*p == '.')
            *p = '/';
    const char *suffixes[] = {".py", "/__main__.py"};
    int found = 0;
    for (int r = 0; r < 3 && !found; r++) {
        const char *pre = r == 0 ? "" : stdlib;
        const char *mid = r == 0 ? "" : r == 1 ? "/" : "/site-packages/";
        for (int s = 0; s < 2 && !found; s++) {
            snprintf(cand, cap, "%s%s%s%s", pre, mid, m, suffixes[s]);
            found = has(ctx, cand) != 0;
        }
    }
    free(m);
    free(cand);
    if (!found)
        return sc_error_set(err, SC_E_MISSING_MODULE, "$.execution.module",
                            "Execution module is not discoverable in the box: %s.", module);
    return SC_OK;
}

sc_code sc_execution_check(const sc_json *release, const sc_target *target,
                           sc_has_path_fn has, void *ctx, sc_error *err)
{
    const sc_json *ex = sc_json_get(release, "execution");
    if (ex == NULL)
        return SC_OK;
    sc_target own;
    if (target == NULL) {
        sc_code c = sc_target_from_json(sc_json_get(release, "target"), "$.target",
                                        &own, err);
        if (c != SC_OK)
            return c;
        target = &own;
    }
    if (!sc_json_is(ex, SC_JSON_OBJECT))
        return bad(err, "$.execution", "must be an object");
    const char *kind = sc_json_cstr(sc_json_get(ex, "kind"));
    if (kind != NULL && strcmp(kind, "python-script") == 0) {
        const sc_json *sj = sc_json_get(ex, "script");
        const char *script = sc_json_cstr(sj);
        if (script == NULL)
            return bad(err, "$.execution.script", "must be a string");
        sc_code c = sc_path_check(script, sj->length, "$.execution.script", err);
        if (c != SC_OK)
            return c;
        if (!has(ctx, script))
            return sc_error_set(err, SC_E_MISSING_SCRIPT, "$.execution.script",
                                "Execution script is missing from the box: %s.", script);
        return SC_OK;
    }
    if (kind != NULL && strcmp(kind, "python-module") == 0) {
        const char *module = sc_json_cstr(sc_json_get(ex, "module"));
        if (module == NULL || !sc_is_dotted_name(module))
            return bad(err, "$.execution.module", "must be a dotted module name");
        return check_module(module, release, target, has, ctx, err);
    }
    return bad(err, "$.execution.kind", "must be python-script or python-module");
}

int sc_execution_has_in_dir(void *root_dir, const char *path)
{
    char *full = sc_path_join((const char *)root_dir, path);
    if (full == NULL)
        return 0;
    struct stat st;
    int ok = lstat(full, &st) == 0 && (S_ISREG(st.st_mode) || S_ISLNK(st.st_mode));
    free(full);
    return ok;
}
