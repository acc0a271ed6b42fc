/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_pixi_lock.c — the pixi.lock reader (sc_pixi_lock_parse) and the
 * audit rules over whatever it accepts (docs/format-v3.md 19.2, 19.5).
 *
 * Input: the bytes of one pixi.lock.
 * Checked: no crash, no leak, no unbounded recursion; one code per failure
 * (err->code equals the returned code, which is invalid-lock or
 * out-of-memory); an accepted lock has a name for every package, a version
 * for every one but a v7 PyPI or source package, a build for every conda
 * package, a sha256 of 64 lowercase hex digits where one is given, a subdir
 * for every environment platform, and environment entries that index
 * existing packages; the licence inventory of an accepted lock succeeds or
 * fails with invalid-lock or license-audit-mismatch; the audit of an
 * accepted lock for three targets
 * succeeds or fails with invalid-lock only, returns a sorted report whose
 * error and warning counts add up, and writes it the same way twice.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "scrollcase/audit.h"
#include "scrollcase/digest.h"
#include "scrollcase/json.h"
#include "scrollcase/licenses.h"
#include "scrollcase/pixi_lock.h"
#include "scrollcase/target.h"
#include "scrollcase/toml.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char manifest[] =
    "[workspace]\nname = \"fuzz\"\nchannels = [\"conda-forge\"]\nplatforms = [\"linux-64\"]\n"
    "[system-requirements]\ncuda = \"12.4\"\n[dependencies]\ncuda-version = \"12.4.*\"\n";

static void audit_once(const char *id, const sc_json *doc, const sc_pixi_lock *lock)
{
    sc_target t;
    sc_error err;
    if (sc_target_parse_id(id, &t, &err) != SC_OK)
        abort();
    sc_audit_report rep;
    memset(&rep, 0, sizeof rep);
    sc_code c = sc_audit_pixi(&t, doc, "pixi.toml", lock, &rep, &err);
    if (c != err.code)
        abort();
    if (c != SC_OK && c != SC_E_INVALID_LOCK && c != SC_E_OUT_OF_MEMORY)
        abort();
    if (rep.errors + rep.warnings != rep.count)
        abort();
    for (size_t i = 1; i < rep.count; i++) {
        int o = strcmp(sc_audit_code_name(rep.findings[i - 1].code),
                       sc_audit_code_name(rep.findings[i].code));
        if (o > 0 || (o == 0 && strcmp(rep.findings[i - 1].package, rep.findings[i].package) > 0))
            abort();
    }
    sc_json *a = sc_audit_report_json(&rep, 1), *b = sc_audit_report_json(&rep, 1);
    char *ta = NULL, *tb = NULL;
    size_t la = 0, lb = 0;
    if (a == NULL || b == NULL || sc_json_write(a, &ta, &la, &err) != SC_OK ||
        sc_json_write(b, &tb, &lb, &err) != SC_OK || la != lb || memcmp(ta, tb, la) != 0)
        abort();
    free(ta);
    free(tb);
    sc_json_free(a);
    sc_json_free(b);
    sc_audit_report_free(&rep);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sc_pixi_lock *lock = NULL;
    sc_error err;
    sc_code c = sc_pixi_lock_parse((const char *)data, size, "fuzz/pixi.lock", &lock, &err);
    if (c != err.code)
        abort();
    if (c != SC_OK) {
        if (lock != NULL || (c != SC_E_INVALID_LOCK && c != SC_E_OUT_OF_MEMORY))
            abort();
        return 0;
    }
    for (size_t i = 0; i < lock->npackages; i++) {
        const sc_lock_package *p = &lock->packages[i];
        if (p->name == NULL || p->location == NULL || p->filename == NULL)
            abort();
        if (p->version == NULL && (lock->version < 7 || (p->kind == SC_LOCK_CONDA && !p->source)))
            abort();
        if (p->kind == SC_LOCK_CONDA && p->build == NULL)
            abort();
        if (p->sha256 != NULL && !sc_is_lower_hex(p->sha256, strlen(p->sha256), 64))
            abort();
    }
    for (size_t e = 0; e < lock->nenvironments; e++)
        for (size_t pl = 0; pl < lock->environments[e].nplatforms; pl++) {
            const sc_lock_platform *p = &lock->environments[e].platforms[pl];
            if (p->platform == NULL || p->subdir == NULL)
                abort();
            for (size_t i = 0; i < p->count; i++)
                if (p->packages[i] >= lock->npackages)
                    abort();
        }
    sc_json *doc = NULL;
    if (sc_toml_parse(manifest, sizeof manifest - 1, "pixi.toml", &doc, &err) != SC_OK)
        abort();
    audit_once("linux-x86_64-cuda12.4", doc, lock);
    audit_once("linux-x86_64-cpu", doc, lock);
    audit_once("windows-x86_64-cuda11.8", doc, lock);
    sc_target t;
    if (sc_target_parse_id("linux-x86_64-cpu", &t, &err) != SC_OK)
        abort();
    sc_json *inv = NULL;
    c = sc_license_inventory(lock, &t, "0000000000000000000000000000000000000000000000000000000000000000",
                             NULL, &inv, &err);
    if (c != err.code && c != SC_OK)
        abort();
    if (c != SC_OK && c != SC_E_INVALID_LOCK && c != SC_E_LICENSE_AUDIT_MISMATCH &&
        c != SC_E_OUT_OF_MEMORY)
        abort();
    if ((c == SC_OK) != (inv != NULL))
        abort();
    sc_json_free(inv);
    sc_json_free(doc);
    sc_pixi_lock_free(lock);
    return 0;
}
