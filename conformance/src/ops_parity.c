/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ops_parity.c — the adapter's parity and host operations
 * (conformance/README.md 3.6.5): parity-compare (docs/format-v3.md 17) and
 * compat (18).
 */
#include "adapter.h"

#include <stdlib.h>

#include "scrollcase/compat.h"
#include "scrollcase/file.h"
#include "scrollcase/manifest.h"
#include "scrollcase/parity.h"

/* One tolerance argument (a JSON number literal as text), if given. */
static int tolerance_arg(kase *k, const char *name, int *has, double *value, result *r)
{
    const char *text = NULL;
    int rc = ad_string_arg(k, name, 0, &text);
    if (rc != 0 || text == NULL || r->code != SC_OK)
        return rc;
    *has = 1;
    r->code = sc_parity_tolerance_parse(text, name, value, &r->err);
    return 0;
}

/* The values document of a role (17.1). */
static int values_input(kase *k, const char *role, sc_parity_values *v, result *r)
{
    char *path = NULL;
    int rc = ad_input_path(k, role, &path, NULL);
    if (rc != 0)
        return rc;
    char *bytes = NULL;
    size_t len = 0;
    r->code = sc_file_read(path, &bytes, &len, NULL, &r->err);
    if (r->code == SC_OK)
        r->code = sc_parity_values_parse(bytes, len, role, v, &r->err);
    free(bytes);
    free(path);
    return 0;
}

static int op_parity_compare(kase *k, result *r)
{
    static const char *const names[] = {"absolute", "relative", "minimumCosine", NULL};
    sc_parity_tolerances t = {0, 0, 0, 0, 0, 0};
    sc_parity_values ref = {NULL, 0}, cand = {NULL, 0};
    int rc = ad_args_known(k, names);
    r->code = SC_OK;
    if (rc == 0)
        rc = tolerance_arg(k, "absolute", &t.has_absolute, &t.absolute, r);
    if (rc == 0)
        rc = tolerance_arg(k, "relative", &t.has_relative, &t.relative, r);
    if (rc == 0)
        rc = tolerance_arg(k, "minimumCosine", &t.has_minimum_cosine, &t.minimum_cosine, r);
    if (rc == 0 && r->code == SC_OK)
        r->code = sc_parity_tolerances_check(&t, &r->err);
    if (rc == 0 && r->code == SC_OK)
        rc = values_input(k, "reference", &ref, r);
    if (rc == 0 && r->code == SC_OK)
        rc = values_input(k, "candidate", &cand, r);
    if (rc == 0 && r->code == SC_OK) {
        sc_parity_measurement m;
        r->code = sc_parity_compare(&ref, &cand, &t, "reference", "candidate", &m, &r->err);
        if (r->code == SC_OK)
            r->out = ad_must(sc_parity_measurement_json(&m));
    }
    sc_parity_values_free(&ref);
    sc_parity_values_free(&cand);
    return rc;
}

static int op_compat(kase *k, result *r)
{
    static const char *const names[] = {"hostAppVersion", NULL};
    sc_json *release = NULL, *facts = NULL;
    sc_host_facts h;
    int have_facts = 0;
    const char *app = NULL;
    int rc = ad_args_known(k, names);
    if (rc == 0)
        rc = ad_string_arg(k, "hostAppVersion", 0, &app);
    /* The release (10.2) first, then the facts (18.1). */
    if (rc == 0)
        rc = ad_parse_input(k, "release", &release, r);
    if (rc == 0 && r->code == SC_OK)
        r->code = sc_manifest_check(release, SC_DOC_RELEASE, NULL, &r->err);
    if (rc == 0 && r->code == SC_OK)
        rc = ad_parse_input(k, "host", &facts, r);
    if (rc == 0 && r->code == SC_OK) {
        r->code = sc_host_facts_from_json(facts, &h, &r->err);
        have_facts = r->code == SC_OK;
    }
    if (rc == 0 && r->code == SC_OK && app != NULL)
        r->code = sc_host_facts_set_app_version(&h, app, &r->err);
    if (rc == 0 && r->code == SC_OK) {
        sc_compat_result res;
        r->code = sc_compat_evaluate(release, &h, &res, &r->err);
        if (r->code == SC_OK) {
            r->out = res.report;
            res.report = NULL;
        }
    }
    if (have_facts)
        sc_host_facts_free(&h);
    sc_json_free(release);
    sc_json_free(facts);
    return rc;
}

const ad_op ad_ops_parity[] = {
    {"compat", op_compat},
    {"parity-compare", op_parity_compare},
    {NULL, NULL},
};
