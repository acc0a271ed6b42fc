/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_toml.c — the TOML 1.0 reader (sc_toml_read), its JSON view
 * (sc_toml_parse) and the pixi.toml rules of the audit over whatever it
 * accepts (docs/format-v3.md 19.2, 19.4).
 *
 * Input: the bytes of one TOML document.
 * Checked: no crash, no leak; one code per failure (err->code equals the
 * returned code: invalid-pixi-toml or out-of-memory), and nothing handed
 * back on failure; every span of an accepted tree lies inside the input
 * (start <= end, a value inside its entry, a member's line end past its
 * value); the text of each top-level value's span, read again on its own
 * as `x = <text>`, gives a value of the same type and size; the JSON view
 * either succeeds or refuses with invalid-pixi-toml, and sc_toml_parse
 * agrees with it; an accepted manifest is a JSON object that the JSON
 * writer writes the same way twice; the audit of it beside a fixed clean
 * lock succeeds or fails with invalid-pixi-toml only.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "scrollcase/audit.h"
#include "scrollcase/json.h"
#include "scrollcase/pixi_lock.h"
#include "scrollcase/strbuf.h"
#include "scrollcase/target.h"
#include "scrollcase/toml.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char lock_text[] =
    "version: 6\nenvironments:\n  default:\n    packages:\n      linux-64:\n"
    "      - conda: https://c/noarch/cuda-version-12.4-h3060b56_3.conda\n"
    "packages:\n- conda: https://c/noarch/cuda-version-12.4-h3060b56_3.conda\n";

static void check_spans(const sc_toml *v, size_t size)
{
    if (v->entry.start > v->entry.end || v->entry.end > size || v->value.start > v->value.end ||
        v->value.end > size || v->line_end > size || v->body_end > size ||
        v->key_span.start > v->key_span.end || v->key_span.end > size)
        abort();
    /* (a table made by dotted keys inside an inline table has no value span) */
    if (v->origin == SC_TOML_VALUE && v->key != NULL && v->value.end != 0 &&
        (v->value.start < v->entry.start || v->value.end > v->entry.end ||
         (v->line_end != 0 && v->line_end < v->value.end)))
        abort();
    for (const sc_toml *c = v->child; c != NULL; c = c->next)
        check_spans(c, size);
}

/* The bytes of a top-level value read again on their own. */
static void check_reread(const sc_toml *root, const char *s)
{
    int n = 0;
    for (const sc_toml *m = root->child; m != NULL && n < 8; m = m->next) {
        if (m->origin != SC_TOML_VALUE)
            continue;
        n++;
        sc_strbuf b = SC_STRBUF_INIT;
        if (sc_strbuf_adds(&b, "x = ") != SC_OK ||
            sc_strbuf_add(&b, s + m->value.start, m->value.end - m->value.start) != SC_OK ||
            sc_strbuf_adds(&b, "\n") != SC_OK)
            abort();
        sc_toml *again = NULL;
        sc_error err;
        if (sc_toml_read(b.p, b.len, "reread", &again, &err) != SC_OK)
            abort();
        const sc_toml *x = again->child;
        if (x == NULL || x->type != m->type || x->length != m->length ||
            (m->type == SC_TOML_INTEGER && x->integer != m->integer) ||
            ((m->type == SC_TOML_STRING || m->type >= SC_TOML_DATETIME) &&
             memcmp(x->string, m->string, m->length) != 0))
            abort();
        sc_toml_free(again);
        sc_strbuf_free(&b);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sc_error err;
    sc_toml *tree = NULL;
    sc_code tc = sc_toml_read((const char *)data, size, "fuzz/pixi.toml", &tree, &err);
    if (tc != err.code || (tc != SC_OK && tree != NULL))
        abort();
    if (tc != SC_OK && tc != SC_E_INVALID_PIXI_TOML && tc != SC_E_OUT_OF_MEMORY)
        abort();
    sc_json *view = NULL;
    sc_code vc = tc;
    if (tc == SC_OK) {
        if (tree->type != SC_TOML_TABLE || tree->origin != SC_TOML_ROOT)
            abort();
        check_spans(tree, size);
        check_reread(tree, (const char *)data);
        vc = sc_toml_to_json(tree, (const char *)data, size, "fuzz/pixi.toml", &view, &err);
        if (vc != err.code || (vc != SC_OK && vc != SC_E_INVALID_PIXI_TOML &&
                               vc != SC_E_OUT_OF_MEMORY))
            abort();
        sc_toml_free(tree);
        sc_json_free(view);
    }
    sc_json *doc = NULL;
    sc_code c = sc_toml_parse((const char *)data, size, "fuzz/pixi.toml", &doc, &err);
    if (c != err.code || c != vc)
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
