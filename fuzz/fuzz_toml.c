/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_toml_subset.c — the TOML-subset reader (sc_toml_parse) and the
 * pixi.toml rules of the audit over whatever it accepts (docs/format-v3.md
 * 19.2, 19.4).
 *
 * Input: the bytes of one pixi.toml.
 * Checked: no crash, no leak; one code per failure (err->code equals the
 * returned code: invalid-pixi-toml or out-of-memory), and nothing handed
 * back on failure; an accepted manifest is a JSON object that the JSON
 * writer writes the same way twice; the audit of it beside a fixed clean
 * lock succeeds or fails with invalid-pixi-toml only.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "scrollcase/audit.h"
#include "scrollcase/json.h"
#include "scrollcase/pixi_lock.h"
#include "scrollcase/target.h"
#include "scrollcase/toml.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char lock_text[] =
    "version: 6\nenvironments:\n  default:\n    packages:\n      linux-64:\n"
    "      - conda: https://c/noarch/cuda-version-12.4-h3060b56_3.conda\n"
    "packages:\n- conda: https://c/noarch/cuda-version-12.4-h3060b56_3.conda\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sc_json *doc = NULL;
    sc_error err;
    sc_code c = sc_toml_parse((const char *)data, size, "fuzz/pixi.toml", &doc, &err);
    if (c != err.code)
        abort();
    if (c != SC_OK) {
        if (doc != NULL || (c != SC_E_INVALID_PIXI_TOML && c != SC_E_OUT_OF_MEMORY))
            abort();
        return 0;
    }
    if (doc == NULL || doc->type != SC_JSON_OBJECT)
        abort();
    char *a = NULL, *b = NULL;
    size_t la = 0, lb = 0;
    if (sc_json_write(doc, &a, &la, &err) != SC_OK || sc_json_write(doc, &b, &lb, &err) != SC_OK ||
        la != lb || memcmp(a, b, la) != 0)
        abort();
    free(a);
    free(b);
    sc_pixi_lock *lock = NULL;
    if (sc_pixi_lock_parse(lock_text, sizeof lock_text - 1, "pixi.lock", &lock, &err) != SC_OK)
        abort();
    sc_target t;
    if (sc_target_parse_id("linux-x86_64-cuda12.4", &t, &err) != SC_OK)
        abort();
    sc_audit_report rep;
    memset(&rep, 0, sizeof rep);
    c = sc_audit_pixi(&t, doc, "pixi.toml", lock, &rep, &err);
    if (c != err.code || (c != SC_OK && c != SC_E_INVALID_PIXI_TOML && c != SC_E_OUT_OF_MEMORY))
        abort();
    if (rep.errors + rep.warnings != rep.count)
        abort();
    sc_audit_report_free(&rep);
    sc_pixi_lock_free(lock);
    sc_json_free(doc);
    return 0;
}
