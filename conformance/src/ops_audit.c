/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ops_audit.c — the adapter's CUDA ABI audit operation (conformance/README.md
 * 3.6.6, docs/format-v3.md 19).
 *
 * audit-cuda: the target comes from the input `target` or, with
 * args.reference, from that scroll under DIR/scrolls; pixi.toml and
 * pixi.lock are the inputs `pixi-toml` and `pixi-lock`.  Output
 * {"findings": [{"severity", "code", "package"}, ...]} in the library's
 * order; the evidence lines are for people and are left out.
 */
#include <stdlib.h>
#include <string.h>

#include "scrollcase/audit.h"
#include "scrollcase/file.h"
#include "scrollcase/json.h"
#include "scrollcase/scroll.h"
#include "scrollcase/target.h"

#include "adapter.h"

static int op_audit_cuda(kase *k, result *r)
{
    static const char *const names[] = {"reference", NULL};
    int rc = ad_args_known(k, names);
    if (rc != 0)
        return rc;
    const sc_json *ref = ad_get(k->args, "reference");
    sc_target t;
    if (ref != NULL) {
        const char *s_ref = sc_json_cstr(ref);
        if (s_ref == NULL)
            return ad_fail(EXIT_ADAPTER, "args.reference must be a string without NUL");
        char *scrolls = sc_path_join(k->dir, "scrolls");
        if (scrolls == NULL)
            return ad_fail(EXIT_ADAPTER, "out of memory");
        sc_scroll *s = NULL;
        r->code = sc_scroll_load(scrolls, s_ref, &s, &r->err);
        free(scrolls);
        if (r->code != SC_OK) {
            sc_scroll_free(s);
            return 0;
        }
        t = s->target;
        sc_scroll_free(s);
    } else {
        sc_json *doc = NULL;
        if ((rc = ad_parse_input(k, "target", &doc, r)) != 0 || doc == NULL)
            return rc;
        r->code = sc_target_from_json(doc, "$", &t, &r->err);
        sc_json_free(doc);
        if (r->code != SC_OK)
            return 0;
    }
    char *toml = NULL, *lock = NULL;
    if ((rc = ad_input_path(k, "pixi-toml", &toml, NULL)) != 0)
        return rc;
    if ((rc = ad_input_path(k, "pixi-lock", &lock, NULL)) != 0) {
        free(toml);
        return rc;
    }
    sc_audit_report rep;
    memset(&rep, 0, sizeof rep);
    r->code = sc_audit_files(&t, toml, lock, &rep, &r->err);
    free(toml);
    free(lock);
    if (r->code == SC_OK)
        r->out = ad_must(sc_audit_report_json(&rep, 0));
    sc_audit_report_free(&rep);
    return 0;
}

const ad_op ad_ops_audit[] = {
    {"audit-cuda", op_audit_cuda},
    {NULL, NULL},
};
