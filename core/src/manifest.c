/* SPDX-License-Identifier: Apache-2.0 */
/*
 * manifest.c — manifests (docs/format-v3.md §9.2 steps 7-10, §10).
 *
 * Guarantees: one fixed order of checks, the first failure is the only one
 * reported, with exactly one code.  The schemas are hand-coded from a table
 * per object (name, required, check), walked as §5.5 says: type, required
 * members in table order, present members in table order, unknown members
 * in declaration order.  A payload path is refused with unsafe-path at its
 * member's place in that order (its pattern check); a target object reports
 * the codes of §4.  Nothing here allocates except sc_manifest_read_box_json,
 * whose parsed tree has one owner: the caller on success, nobody on failure.
 * Every failure message names the member as a "$.a.b[0]" path, which is
 * also put in err->path.
 */
#include "scrollcase/manifest.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "scrollcase/fatbin.h"
#include "scrollcase/path.h"
#include "scrollcase/target.h"

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* State of one check: where errors go and what earlier members told us. */
typedef struct ctx {
    sc_check chk;     /* code invalid-manifest, no message prefix */
    sc_target target; /* the top-level target, once checked */
    int have_target;
} ctx;

typedef sc_code (*check_fn)(ctx *c, const sc_json *v, const char *field);

/* One member of an object's table. */
typedef struct member {
    const char *name;
    int required;
    check_fn check;
} member;

/* ------------------------------------------------------------------------
 * Failures and field names.
 */
/* The string's bytes equal the NUL-terminated s (no embedded NUL). */
static int str_is(const sc_json *v, const char *s)
{
    size_t n = strlen(s);
    return v->type == SC_JSON_STRING && v->length == n &&
           memcmp(v->string, s, n) == 0;
}

/* ------------------------------------------------------------------------
 * Value checks.  Each first checks the type, then the value.
 */
/* A text (the table form of sc_check_text). */
static sc_code want_text(ctx *c, const sc_json *v, const char *field)
{
    return sc_check_text(&c->chk, v, field);
}

static sc_code want_slug(ctx *c, const sc_json *v, const char *field)
{
    sc_code rc = sc_check_text(&c->chk, v, field);
    if (rc == SC_OK && !sc_is_slug(sc_json_cstr(v)))
        rc = sc_check_fail(&c->chk, field,
                 "%s does not match the required pattern ^[a-z0-9]+(?:[-.][a-z0-9]+)*$",
                 field);
    return rc;
}

static sc_code want_module(ctx *c, const sc_json *v, const char *field)
{
    sc_code rc = sc_check_text(&c->chk, v, field);
    if (rc == SC_OK && !sc_is_dotted_name(sc_json_cstr(v)))
        rc = sc_check_fail(&c->chk, field, "%s must be a dotted Python module name", field);
    return rc;
}

/* A text that is also a payload path (§3): unsafe-path when it is not. */
static sc_code want_path(ctx *c, const sc_json *v, const char *field)
{
    sc_code rc = sc_check_text(&c->chk, v, field);
    if (rc == SC_OK)
        rc = sc_path_check(v->string, v->length, field, c->chk.err);
    return rc;
}

static sc_code want_hex(ctx *c, const sc_json *v, const char *field,
                        size_t digits)
{
    return sc_check_lower_hex(&c->chk, v, field, digits);
}

static sc_code want_sha256(ctx *c, const sc_json *v, const char *field)
{
    return want_hex(c, v, field, 64);
}

static sc_code want_revision(ctx *c, const sc_json *v, const char *field)
{
    return want_hex(c, v, field, 40);
}

static sc_code want_salt(ctx *c, const sc_json *v, const char *field)
{
    return want_hex(c, v, field, 32);
}

static sc_code want_positive_integer(ctx *c, const sc_json *v, const char *field)
{
    return sc_check_integer(&c->chk, v, field, 1, (uint64_t)SC_JSON_MAX_SAFE_INTEGER);
}

static sc_code want_boolean(ctx *c, const sc_json *v, const char *field)
{
    return sc_check_type(&c->chk, v, SC_JSON_BOOL, field);
}

/* A string equal to one of the n names (a constant when n is 1). */
static sc_code want_one_of(ctx *c, const sc_json *v, const char *field,
                           const char *const *names, size_t n)
{
    sc_code rc = sc_check_type(&c->chk, v, SC_JSON_STRING, field);
    if (rc != SC_OK)
        return rc;
    for (size_t i = 0; i < n; i++)
        if (str_is(v, names[i]))
            return SC_OK;
    char list[160] = "";
    for (size_t i = 0; i < n; i++) {
        size_t used = strlen(list);
        snprintf(list + used, sizeof list - used, "%s\"%s\"",
                 i == 0 ? "" : (i + 1 == n ? " or " : ", "), names[i]);
    }
    return sc_check_fail(&c->chk, field, "%s must be %s", field, list);
}

static int digits(const char *s, size_t n, int *out)
{
    int v = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return 0;
        v = v * 10 + (s[i] - '0');
    }
    *out = v;
    return 1;
}

int sc_manifest_timestamp_valid(const char *s, size_t len)
{
    static const int days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    int y, mo, d, h, mi, se;
    if (s == NULL || len != 20 || s[4] != '-' || s[7] != '-' || s[10] != 'T' ||
        s[13] != ':' || s[16] != ':' || s[19] != 'Z')
        return 0;
    if (!digits(s, 4, &y) || !digits(s + 5, 2, &mo) || !digits(s + 8, 2, &d) ||
        !digits(s + 11, 2, &h) || !digits(s + 14, 2, &mi) ||
        !digits(s + 17, 2, &se))
        return 0;
    if (mo < 1 || mo > 12 || h > 23 || mi > 59 || se > 59 || d < 1)
        return 0;
    int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    int max = days[mo - 1] + (mo == 2 && leap);
    return d <= max;
}

static sc_code want_timestamp(ctx *c, const sc_json *v, const char *field)
{
    sc_code rc = sc_check_type(&c->chk, v, SC_JSON_STRING, field);
    if (rc == SC_OK && !sc_manifest_timestamp_valid(v->string, v->length))
        rc = sc_check_fail(&c->chk, field,
                 "%s must be a UTC timestamp YYYY-MM-DDTHH:MM:SSZ (no fraction, "
                 "no offset)", field);
    return rc;
}

/* A number with a range: lo/hi inclusive unless the *_open flag is set. */
static sc_code want_number(ctx *c, const sc_json *v, const char *field,
                           int has_lo, double lo, int lo_open, int has_hi,
                           double hi)
{
    sc_code rc = sc_check_type(&c->chk, v, SC_JSON_NUMBER, field);
    if (rc != SC_OK)
        return rc;
    if (has_lo && lo_open && !(v->number > lo))
        return sc_check_fail(&c->chk, field, "%s must be greater than %g", field, lo);
    if (has_lo && !lo_open && !(v->number >= lo))
        return sc_check_fail(&c->chk, field, "%s must be at least %g", field, lo);
    if (has_hi && !(v->number <= hi))
        return sc_check_fail(&c->chk, field, "%s must be at most %g", field, hi);
    return SC_OK;
}

static sc_code want_greater_than_zero(ctx *c, const sc_json *v, const char *field)
{
    return want_number(c, v, field, 1, 0, 1, 0, 0);
}

static sc_code want_not_negative(ctx *c, const sc_json *v, const char *field)
{
    return want_number(c, v, field, 1, 0, 0, 0, 0);
}

static sc_code want_cosine(ctx *c, const sc_json *v, const char *field)
{
    return want_number(c, v, field, 1, -1, 0, 1, 1);
}

static sc_code want_at_most_one(ctx *c, const sc_json *v, const char *field)
{
    return want_number(c, v, field, 0, 0, 0, 1, 1);
}

/* An array of at least min_items elements, each passing check, in order. */
static sc_code want_array(ctx *c, const sc_json *v, const char *field,
                          size_t min_items, check_fn check)
{
    sc_code rc = sc_check_type(&c->chk, v, SC_JSON_ARRAY, field);
    if (rc != SC_OK)
        return rc;
    if (v->length < min_items)
        return sc_check_fail(&c->chk, field, "%s must contain at least %zu item(s)", field,
                   min_items);
    size_t i = 0;
    for (const sc_json *e = v->child; e; e = e->next, i++) {
        char f[SC_FIELD_MAX];
        sc_field_index(f, field, i);
        if ((rc = check(c, e, f)) != SC_OK)
            return rc;
    }
    return SC_OK;
}

/* The member's key is one of the table's names (a key holding NUL is not). */
static int in_table(const member *table, size_t n, const sc_json *m)
{
    if (strlen(m->key) != m->key_length)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (strcmp(table[i].name, m->key) == 0)
            return 1;
    return 0;
}

static sc_code want_required(ctx *c, const sc_json *obj, const char *field,
                             const member *table, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (table[i].required && sc_json_get(obj, table[i].name) == NULL)
            return sc_check_fail(&c->chk, field, "%s.%s is required", field, table[i].name);
    return SC_OK;
}

static sc_code want_members(ctx *c, const sc_json *obj, const char *field,
                            const member *table, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const sc_json *m = sc_json_get(obj, table[i].name);
        char f[SC_FIELD_MAX];
        sc_code rc;
        if (m == NULL || table[i].check == NULL)
            continue;
        sc_field_member(f, field, table[i].name);
        if ((rc = table[i].check(c, m, f)) != SC_OK)
            return rc;
    }
    return SC_OK;
}

static sc_code want_known(ctx *c, const sc_json *obj, const char *field,
                          const member *table, size_t n)
{
    for (const sc_json *m = obj->child; m; m = m->next)
        if (!in_table(table, n, m)) {
            char f[SC_FIELD_MAX];
            sc_field_member(f, field, m->key);
            return sc_check_fail(&c->chk, f, "%s is not allowed", f);
        }
    return SC_OK;
}

/* A closed object of the table: type, required, members, unknown members. */
static sc_code want_object(ctx *c, const sc_json *v, const char *field,
                           const member *table, size_t n)
{
    sc_code rc;
    if ((rc = sc_check_type(&c->chk, v, SC_JSON_OBJECT, field)) != SC_OK ||
        (rc = want_required(c, v, field, table, n)) != SC_OK ||
        (rc = want_members(c, v, field, table, n)) != SC_OK)
        return rc;
    return want_known(c, v, field, table, n);
}

#define OBJECT_CHECK(fn, table)                                               \
    static sc_code fn(ctx *c, const sc_json *v, const char *field)            \
    {                                                                         \
        return want_object(c, v, field, table, COUNT(table));                 \
    }

/* ------------------------------------------------------------------------
 * The pieces shared by releases and box.json (§5.2, §10.2).
 */
static sc_code check_target(ctx *c, const sc_json *v, const char *field)
{
    sc_code rc = sc_target_from_json(v, field, &c->target, c->chk.err);
    if (rc == SC_OK)
        c->have_target = 1;
    return rc;
}

/* A text equal to the target's entry point (the target is checked before). */
static sc_code check_entry_point(ctx *c, const sc_json *v, const char *field)
{
    sc_code rc = sc_check_text(&c->chk, v, field);
    if (rc != SC_OK || !c->have_target)
        return rc;
    const char *ep = sc_target_python_entry_point(&c->target);
    if (ep == NULL || !str_is(v, ep))
        return sc_check_fail(&c->chk, field, "%s must be %s, the entry point of %s boxes",
                   field, ep ? ep : "?", sc_target_adapter_id(&c->target));
    return SC_OK;
}

static sc_code check_compatibility(ctx *c, const sc_json *v, const char *field)
{
    static const char *const texts[] = {"minHostAppVersion",
                                        "maxHostAppVersionExclusive",
                                        "minMacosVersion",
                                        "minNvidiaDriverVersion"};
    static const char *const hosts[] = {"native", "windows-wsl2"};
    char f[SC_FIELD_MAX];
    sc_code rc;
    const sc_json *m;
    if ((rc = sc_check_type(&c->chk, v, SC_JSON_OBJECT, field)) != SC_OK)
        return rc;
    for (size_t i = 0; i < COUNT(texts); i++)
        if ((m = sc_json_get(v, texts[i])) != NULL) {
            sc_field_member(f, field, texts[i]);
            if ((rc = sc_check_text(&c->chk, m, f)) != SC_OK)
                return rc;
        }
    if ((m = sc_json_get(v, "minRamGb")) != NULL) {
        sc_field_member(f, field, "minRamGb");
        if ((rc = want_greater_than_zero(c, m, f)) != SC_OK)
            return rc;
    }
    if ((m = sc_json_get(v, "hostEnvironments")) != NULL) {
        sc_field_member(f, field, "hostEnvironments");
        if ((rc = sc_check_type(&c->chk, m, SC_JSON_ARRAY, f)) != SC_OK)
            return rc;
        if (m->length < 1)
            return sc_check_fail(&c->chk, f, "%s must contain at least 1 item(s)", f);
        size_t i = 0;
        for (const sc_json *e = m->child; e; e = e->next, i++) {
            char g[SC_FIELD_MAX];
            sc_field_index(g, f, i);
            if ((rc = want_one_of(c, e, g, hosts, COUNT(hosts))) != SC_OK)
                return rc;
        }
    }
    return SC_OK; /* open: other members are carried, not checked */
}

static sc_code check_environment(ctx *c, const sc_json *v, const char *field)
{
    sc_code rc;
    if ((rc = sc_check_type(&c->chk, v, SC_JSON_OBJECT, field)) != SC_OK)
        return rc;
    for (const sc_json *m = v->child; m; m = m->next) {
        char f[SC_FIELD_MAX];
        sc_field_member(f, field, m->key);
        if (m->key_length == 0 || strlen(m->key) != m->key_length ||
            strchr(m->key, '=') != NULL)
            return sc_check_fail(&c->chk, field,
                       "%s: the variable name \"%s\" must be non-empty, without "
                       "'=' and without NUL", field, m->key);
        if ((rc = sc_check_type(&c->chk, m, SC_JSON_STRING, f)) != SC_OK)
            return rc;
        if (strlen(m->string) != m->length)
            return sc_check_fail(&c->chk, f, "%s must not contain NUL", f);
    }
    return SC_OK;
}

static sc_code check_string(ctx *c, const sc_json *v, const char *field)
{
    return sc_check_type(&c->chk, v, SC_JSON_STRING, field);
}

/* A program argument: a string (possibly empty) without U+0000, which no
 * argv entry can carry (5.2), so verify and prepare refuse it, not run. */
static sc_code check_arg(ctx *c, const sc_json *v, const char *field)
{
    sc_code rc = check_string(c, v, field);
    if (rc == SC_OK && memchr(v->string, '\0', v->length) != NULL)
        rc = sc_check_fail(&c->chk, field,
                           "%s holds U+0000, which no program argument can carry", field);
    return rc;
}

static sc_code check_default_args(ctx *c, const sc_json *v, const char *field)
{
    return want_array(c, v, field, 0, check_arg);
}

static sc_code check_execution_kind(ctx *c, const sc_json *v, const char *field)
{
    static const char *const kinds[] = {"python-script", "python-module"};
    return want_one_of(c, v, field, kinds, COUNT(kinds));
}

/* oneOf by kind: the branch is chosen by `kind`, then checked as a whole. */
static sc_code check_execution(ctx *c, const sc_json *v, const char *field)
{
    static const member kind_only[] = {{"kind", 1, check_execution_kind}};
    static const member script[] = {{"kind", 1, NULL},
                                    {"script", 1, want_path},
                                    {"defaultArgs", 1, check_default_args}};
    static const member module[] = {{"kind", 1, NULL},
                                    {"module", 1, want_module},
                                    {"defaultArgs", 1, check_default_args}};
    sc_code rc;
    if ((rc = sc_check_type(&c->chk, v, SC_JSON_OBJECT, field)) != SC_OK ||
        (rc = want_required(c, v, field, kind_only, 1)) != SC_OK ||
        (rc = want_members(c, v, field, kind_only, 1)) != SC_OK)
        return rc;
    if (str_is(sc_json_get(v, "kind"), "python-script"))
        return want_object(c, v, field, script, COUNT(script));
    return want_object(c, v, field, module, COUNT(module));
}

static sc_code check_on_demand(ctx *c, const sc_json *v, const char *field)
{
    static const char *const on_demand[] = {"on-demand"};
    return want_one_of(c, v, field, on_demand, 1);
}

static const member asset_members[] = {{"url", 1, want_text},
                                       {"relativePath", 1, want_path},
                                       {"sizeBytes", 1, want_positive_integer},
                                       {"sha256", 1, want_sha256}};
OBJECT_CHECK(check_asset, asset_members)

static sc_code check_assets(ctx *c, const sc_json *v, const char *field)
{
    return want_array(c, v, field, 1, check_asset);
}

static sc_code check_imports(ctx *c, const sc_json *v, const char *field)
{
    return want_array(c, v, field, 1, want_module);
}

static sc_code check_timeout(ctx *c, const sc_json *v, const char *field)
{
    return sc_check_integer(&c->chk, v, field, 1, 86400);
}

static const member self_test_members[] = {
    {"pythonImports", 1, check_imports}, {"timeoutSeconds", 1, check_timeout}};
OBJECT_CHECK(check_self_test, self_test_members)

/* provenance.environment: oneOf by source. */
static sc_code check_env_source(ctx *c, const sc_json *v, const char *field)
{
    static const char *const sources[] = {"lock", "pixi-lock", "prefix"};
    return want_one_of(c, v, field, sources, COUNT(sources));
}

static sc_code check_provenance_environment(ctx *c, const sc_json *v,
                                            const char *field)
{
    static const member source_only[] = {{"source", 1, check_env_source}};
    static const member pixi[] = {{"source", 1, NULL},
                                  {"pixiVersion", 1, want_text},
                                  {"lockSha256", 1, want_sha256}};
    static const member prefix[] = {{"source", 1, NULL},
                                    {"prefixDigest", 1, want_sha256}};
    static const member lock[] = {{"source", 1, NULL},
                                  {"lockSha256", 1, want_sha256},
                                  {"installer", 1, want_text}};
    sc_code rc;
    if ((rc = sc_check_type(&c->chk, v, SC_JSON_OBJECT, field)) != SC_OK ||
        (rc = want_required(c, v, field, source_only, 1)) != SC_OK ||
        (rc = want_members(c, v, field, source_only, 1)) != SC_OK)
        return rc;
    if (str_is(sc_json_get(v, "source"), "pixi-lock"))
        return want_object(c, v, field, pixi, COUNT(pixi));
    if (str_is(sc_json_get(v, "source"), "lock"))
        return want_object(c, v, field, lock, COUNT(lock));
    return want_object(c, v, field, prefix, COUNT(prefix));
}

static const member builder_members[] = {{"name", 1, want_text},
                                         {"version", 1, want_text}};
OBJECT_CHECK(check_builder, builder_members)

static const member provenance_members[] = {
    {"scrollId", 1, want_text},
    {"scrollVersion", 1, want_text},
    {"builderRevision", 1, want_revision},
    {"sourceTreeDirty", 1, want_boolean},
    {"sourceRevision", 1, want_text},
    {"pythonVersion", 1, want_text},
    {"environment", 1, check_provenance_environment},
    {"builder", 1, check_builder},
    {"builtAt", 1, want_timestamp}};
OBJECT_CHECK(check_provenance, provenance_members)

/* ---- gates ------------------------------------------------------------- */
static sc_code check_extra(ctx *c, const sc_json *v, const char *field)
{
    static const char *const extras[] = {"pythonFile", "pythonCode", "none"};
    return want_one_of(c, v, field, extras, COUNT(extras));
}

static const member gate_self_test_members[] = {{"imports", 1, check_imports},
                                                {"extra", 1, check_extra}};
OBJECT_CHECK(check_gate_self_test, gate_self_test_members)

static sc_code check_accelerator(ctx *c, const sc_json *v, const char *field)
{
    static const char *const accels[] = {"cpu", "metal", "cuda"};
    return want_one_of(c, v, field, accels, COUNT(accels));
}

static const member tolerance_members[] = {
    {"absolute", 0, want_greater_than_zero},
    {"relative", 0, want_greater_than_zero},
    {"minimumCosine", 0, want_at_most_one}};

static sc_code check_tolerances(ctx *c, const sc_json *v, const char *field)
{
    sc_code rc = sc_check_type(&c->chk, v, SC_JSON_OBJECT, field);
    if (rc != SC_OK)
        return rc;
    if (!sc_json_get(v, "absolute") && !sc_json_get(v, "relative") &&
        !sc_json_get(v, "minimumCosine"))
        return sc_check_fail(&c->chk, field,
                   "%s must declare at least one of absolute, relative, minimumCosine",
                   field);
    return want_object(c, v, field, tolerance_members, COUNT(tolerance_members));
}

static const member comparison_members[] = {
    {"accelerator", 1, check_accelerator},
    {"maximumAbsoluteError", 1, want_not_negative},
    {"maximumRelativeError", 1, want_not_negative},
    {"cosineSimilarity", 1, want_cosine}};
OBJECT_CHECK(check_comparison, comparison_members)

static sc_code check_comparisons(ctx *c, const sc_json *v, const char *field)
{
    return want_array(c, v, field, 1, check_comparison);
}

static const member parity_members[] = {
    {"reference", 1, check_accelerator},
    {"tolerances", 1, check_tolerances},
    {"valueCount", 1, want_positive_integer},
    {"comparisons", 1, check_comparisons}};
OBJECT_CHECK(check_gate_parity, parity_members)

static int is_compute_capability(const sc_json *v)
{
    size_t i = 0, n = v->length;
    const char *s = v->string;
    size_t start = i;
    while (i < n && s[i] >= '0' && s[i] <= '9')
        i++;
    if (i == start || i >= n || s[i] != '.')
        return 0;
    start = ++i;
    while (i < n && s[i] >= '0' && s[i] <= '9')
        i++;
    return i > start && i == n;
}

static sc_code check_compute_capability(ctx *c, const sc_json *v,
                                        const char *field)
{
    sc_code rc = sc_check_type(&c->chk, v, SC_JSON_STRING, field);
    if (rc == SC_OK && !is_compute_capability(v))
        rc = sc_check_fail(&c->chk, field, "%s must match ^[0-9]+\\.[0-9]+$", field);
    return rc;
}

static const member gpu_members[] = {
    {"name", 1, want_text}, {"computeCapability", 1, check_compute_capability}};
OBJECT_CHECK(check_gpu, gpu_members)

static sc_code check_gpus(ctx *c, const sc_json *v, const char *field)
{
    return want_array(c, v, field, 1, check_gpu);
}

static const member host_members[] = {{"nvidiaDriverVersion", 1, want_text},
                                      {"gpus", 1, check_gpus}};
OBJECT_CHECK(check_gate_host, host_members)

/* gates.cudaAudit (19.7): what the build's CUDA ABI audit gate recorded.  A
 * release exists only when the audit passed (no error finding) or was opted
 * out, so "failed" is not a status a release can carry. */
static sc_code check_audit_status(ctx *c, const sc_json *v, const char *field)
{
    static const char *const statuses[] = {"passed", "opted-out"};
    return want_one_of(c, v, field, statuses, COUNT(statuses));
}

static sc_code want_zero(ctx *c, const sc_json *v, const char *field)
{
    return sc_check_integer(&c->chk, v, field, 0, 0);
}

static sc_code want_count(ctx *c, const sc_json *v, const char *field)
{
    return sc_check_integer(&c->chk, v, field, 0, (uint64_t)SC_JSON_MAX_SAFE_INTEGER);
}

static sc_code check_finding_codes(ctx *c, const sc_json *v, const char *field)
{
    return want_array(c, v, field, 0, want_slug);
}

static sc_code check_gate_cuda_audit(ctx *c, const sc_json *v, const char *field)
{
    static const member status_only[] = {{"status", 1, check_audit_status}};
    static const member passed[] = {{"status", 1, NULL},
                                    {"errors", 1, want_zero},
                                    {"warnings", 1, want_count},
                                    {"findings", 1, check_finding_codes}};
    static const member opted_out[] = {{"status", 1, NULL}};
    sc_code rc;
    if ((rc = sc_check_type(&c->chk, v, SC_JSON_OBJECT, field)) != SC_OK ||
        (rc = want_required(c, v, field, status_only, 1)) != SC_OK ||
        (rc = want_members(c, v, field, status_only, 1)) != SC_OK)
        return rc;
    if (str_is(sc_json_get(v, "status"), "passed"))
        return want_object(c, v, field, passed, COUNT(passed));
    return want_object(c, v, field, opted_out, COUNT(opted_out));
}

static const member gates_members[] = {{"selfTest", 0, check_gate_self_test},
                                       {"parity", 0, check_gate_parity},
                                       {"host", 0, check_gate_host},
                                       {"cudaAudit", 0, check_gate_cuda_audit}};

static sc_code check_gates(ctx *c, const sc_json *v, const char *field)
{
    sc_code rc = sc_check_type(&c->chk, v, SC_JSON_OBJECT, field);
    if (rc != SC_OK)
        return rc;
    if (!sc_json_get(v, "selfTest") && !sc_json_get(v, "parity") &&
        !sc_json_get(v, "host") && !sc_json_get(v, "cudaAudit"))
        return sc_check_fail(&c->chk, field,
                   "%s must record at least one of selfTest, parity, host, cudaAudit", field);
    return want_object(c, v, field, gates_members, COUNT(gates_members));
}

/* ---- cudaBinaries (10.2, 19.10) ----------------------------------------- */
#define CUDA_ARCH_MAX 64
#define CUDA_MAJORS_MAX 16
#define CUDA_SONAMES_MAX 256
#define CUDA_SONAME_BYTES 255

/* One item of a strictly ordered list: its own checks, then its place after
 * prev (NULL for the first). */
typedef sc_code (*list_item_fn)(ctx *c, const sc_json *e, const sc_json *prev,
                                const char *field);

/* An array of at most max items, each passing item in order. */
static sc_code want_strict_list(ctx *c, const sc_json *v, const char *field, size_t max,
                                list_item_fn item)
{
    sc_code rc = sc_check_type(&c->chk, v, SC_JSON_ARRAY, field);
    if (rc != SC_OK)
        return rc;
    const sc_json *prev = NULL;
    size_t i = 0;
    for (const sc_json *e = v->child; e; prev = e, e = e->next, i++) {
        char f[SC_FIELD_MAX];
        sc_field_index(f, field, i);
        if ((rc = item(c, e, prev, f)) != SC_OK)
            return rc;
    }
    if (v->length > max)
        return sc_check_fail(&c->chk, field, "%s holds more than %zu items", field, max);
    return SC_OK;
}

static sc_code out_of_order(ctx *c, const char *field)
{
    return sc_check_fail(&c->chk, field,
                         "%s is out of order or repeated: each is listed once, in the "
                         "canonical order", field);
}

/* An architecture name of one kind (19.8), after prev in canonical order. */
static sc_code want_arch(ctx *c, const sc_json *e, const sc_json *prev, const char *field,
                         sc_fatbin_kind kind, const char *pattern)
{
    sc_cuda_code code, before;
    sc_code rc = sc_check_type(&c->chk, e, SC_JSON_STRING, field);
    if (rc != SC_OK)
        return rc;
    if (strlen(e->string) != e->length || !sc_cuda_code_parse(e->string, &code) ||
        code.kind != kind)
        return sc_check_fail(&c->chk, field, "%s must match %s", field, pattern);
    if (prev != NULL && sc_cuda_code_parse(prev->string, &before) &&
        sc_cuda_code_compare(&before, &code) >= 0)
        return out_of_order(c, field);
    return SC_OK;
}

static sc_code cubin_item(ctx *c, const sc_json *e, const sc_json *prev, const char *field)
{
    return want_arch(c, e, prev, field, SC_FATBIN_CUBIN, "^sm_[1-9][0-9]{1,2}[af]?$");
}

static sc_code ptx_item(ctx *c, const sc_json *e, const sc_json *prev, const char *field)
{
    return want_arch(c, e, prev, field, SC_FATBIN_PTX, "^compute_[1-9][0-9]{1,2}[af]?$");
}

/* A CUDA major: the target's (the gate refused any other), ascending. */
static sc_code major_item(ctx *c, const sc_json *e, const sc_json *prev, const char *field)
{
    sc_code rc = sc_check_integer(&c->chk, e, field, 1, 9999);
    if (rc != SC_OK)
        return rc;
    if (prev != NULL && !(e->number > prev->number))
        return out_of_order(c, field);
    unsigned want = sc_target_cuda_major(&c->target);
    if (e->number != (double)want)
        return sc_check_fail(&c->chk, field,
                             "%s is not the target's CUDA major %u: the binaries gate "
                             "refuses such a box", field, want);
    return SC_OK;
}

/* A soname: text of at most 255 bytes without '/', after prev in byte order. */
static sc_code soname_item(ctx *c, const sc_json *e, const sc_json *prev, const char *field)
{
    sc_code rc = sc_check_text(&c->chk, e, field);
    if (rc != SC_OK)
        return rc;
    if (e->length > CUDA_SONAME_BYTES || memchr(e->string, '/', e->length) != NULL)
        return sc_check_fail(&c->chk, field,
                             "%s must be a soname of at most %d bytes without '/'", field,
                             CUDA_SONAME_BYTES);
    if (prev != NULL) {
        size_t n = prev->length < e->length ? prev->length : e->length;
        int cmp = memcmp(prev->string, e->string, n);
        if (cmp > 0 || (cmp == 0 && prev->length >= e->length))
            return out_of_order(c, field);
    }
    return SC_OK;
}

static sc_code check_cubins(ctx *c, const sc_json *v, const char *field)
{
    return want_strict_list(c, v, field, CUDA_ARCH_MAX, cubin_item);
}

static sc_code check_ptx(ctx *c, const sc_json *v, const char *field)
{
    return want_strict_list(c, v, field, CUDA_ARCH_MAX, ptx_item);
}

static sc_code check_cuda_majors(ctx *c, const sc_json *v, const char *field)
{
    return want_strict_list(c, v, field, CUDA_MAJORS_MAX, major_item);
}

static sc_code check_sonames(ctx *c, const sc_json *v, const char *field)
{
    return want_strict_list(c, v, field, CUDA_SONAMES_MAX, soname_item);
}

static sc_code check_device_code(ctx *c, const sc_json *v, const char *field)
{
    static const char *const kinds[] = {"runtime"};
    return want_one_of(c, v, field, kinds, COUNT(kinds));
}

static const member declared_members[] = {{"deviceCode", 1, check_device_code},
                                          {"reason", 1, want_text}};
OBJECT_CHECK(check_declared, declared_members)

static const member cuda_binaries_members[] = {{"cubins", 1, check_cubins},
                                               {"ptx", 1, check_ptx},
                                               {"cudaMajors", 1, check_cuda_majors},
                                               {"opaqueLibraries", 1, check_sonames},
                                               {"declared", 0, check_declared}};

static sc_code check_cuda_binaries(ctx *c, const sc_json *v, const char *field)
{
    sc_code rc = want_object(c, v, field, cuda_binaries_members, COUNT(cuda_binaries_members));
    if (rc == SC_OK && (!c->have_target || c->target.accelerator != SC_ACCEL_CUDA))
        rc = sc_check_fail(&c->chk, field,
                           "%s is allowed only on a CUDA target: a CPU or Metal box's CUDA "
                           "code is a build warning, never a record", field);
    return rc;
}

/* ------------------------------------------------------------------------
 * The release's own members.
 */
static sc_code check_zip(ctx *c, const sc_json *v, const char *field)
{
    static const char *const zip[] = {"zip"};
    return want_one_of(c, v, field, zip, 1);
}

static const member archive_members[] = {
    {"format", 1, check_zip}, {"url", 1, want_text},
    {"sha256", 1, want_sha256}, {"sizeBytes", 1, want_positive_integer}};
OBJECT_CHECK(check_archive, archive_members)

static sc_code check_digest_format(ctx *c, const sc_json *v, const char *field)
{
    static const char *const formats[] = {"sha256-path-list-v1"};
    return want_one_of(c, v, field, formats, 1);
}

static const member payload_digest_members[] = {
    {"format", 1, check_digest_format}, {"sha256", 1, want_sha256}};
OBJECT_CHECK(check_payload_digest, payload_digest_members)

/* schemaVersion and kind are checked before the schema (steps 8, 9). */
static const member release_members[] = {
    {"schemaVersion", 1, NULL},
    {"kind", 1, NULL},
    {"boxId", 1, want_slug},
    {"modelId", 1, want_slug},
    {"runtimeId", 1, want_slug},
    {"version", 1, want_text},
    {"target", 1, check_target},
    {"compatibility", 1, check_compatibility},
    {"archive", 1, check_archive},
    {"installedSizeBytes", 1, want_positive_integer},
    {"payloadDigest", 1, check_payload_digest},
    {"pythonEntryPoint", 1, check_entry_point},
    {"modelCacheSubdir", 1, want_path},
    {"selfTest", 1, check_self_test},
    {"environment", 0, check_environment},
    {"execution", 0, check_execution},
    {"weights", 0, check_on_demand},
    {"assets", 0, check_assets},
    {"provenance", 1, check_provenance},
    {"gates", 0, check_gates},
    {"cudaBinaries", 0, check_cuda_binaries}};

static const member box_members[] = {
    {"schemaVersion", 1, NULL},
    {"boxId", 1, want_slug},
    {"modelId", 1, want_slug},
    {"runtimeId", 1, want_slug},
    {"version", 1, want_text},
    {"target", 1, check_target},
    {"pythonEntryPoint", 1, check_entry_point},
    {"modelCacheSubdir", 1, want_path},
    {"selfTest", 1, check_self_test},
    {"environment", 0, check_environment},
    {"execution", 0, check_execution},
    {"weights", 0, check_on_demand},
    {"assets", 0, check_assets},
    {"provenance", 1, check_provenance}};

/* ---- channel ----------------------------------------------------------- */
static sc_code check_channel_name(ctx *c, const sc_json *v, const char *field)
{
    static const char *const names[] = {"nightly", "beta", "stable"};
    return want_one_of(c, v, field, names, COUNT(names));
}

static sc_code check_rollout(ctx *c, const sc_json *v, const char *field)
{
    return sc_check_integer(&c->chk, v, field, 1, 100);
}

static const member channel_release_members[] = {
    {"version", 1, want_text},
    {"releaseManifestUrl", 1, want_text},
    {"rolloutPercentage", 1, check_rollout}};
OBJECT_CHECK(check_channel_release, channel_release_members)

static sc_code check_channel_releases(ctx *c, const sc_json *v, const char *field)
{
    return want_array(c, v, field, 1, check_channel_release);
}

static const member channel_members[] = {
    {"schemaVersion", 1, NULL},
    {"kind", 1, NULL},
    {"channel", 1, check_channel_name},
    {"boxId", 1, want_slug},
    {"target", 1, check_target},
    {"updatedAt", 1, want_timestamp},
    {"cohortSalt", 1, want_salt},
    {"releases", 1, check_channel_releases}};

/* ---- revocations ------------------------------------------------------- */
static sc_code check_any_target(ctx *c, const sc_json *v, const char *field)
{
    sc_target t;
    return sc_target_from_json(v, field, &t, c->chk.err);
}

static const member revocation_members[] = {
    {"boxId", 1, want_slug},
    {"version", 1, want_text},
    {"target", 0, check_any_target},
    {"reason", 1, want_text},
    {"revokedAt", 1, want_timestamp}};
OBJECT_CHECK(check_revocation, revocation_members)

static sc_code check_revocation_list(ctx *c, const sc_json *v, const char *field)
{
    return want_array(c, v, field, 0, check_revocation);
}

static const member revocations_members[] = {
    {"schemaVersion", 1, NULL},
    {"kind", 1, NULL},
    {"updatedAt", 1, want_timestamp},
    {"revocations", 1, check_revocation_list}};

/* ---- licence inventory ------------------------------------------------- */
static sc_code check_target_id(ctx *c, const sc_json *v, const char *field)
{
    sc_code rc = sc_check_text(&c->chk, v, field);
    if (rc != SC_OK)
        return rc;
    sc_target t;
    sc_error ignored;
    const char *s = sc_json_cstr(v);
    if (s == NULL || sc_target_parse_id(s, &t, &ignored) != SC_OK)
        return sc_check_fail(&c->chk, field, "%s must be a target id such as linux-x86_64-cpu",
                   field);
    char id[SC_TARGET_ID_MAX];
    sc_target_id(&t, id, sizeof id);
    if (strcmp(id, s) != 0)
        return sc_check_fail(&c->chk, field, "%s must be a target id such as linux-x86_64-cpu",
                   field);
    c->target = t;
    c->have_target = 1;
    return SC_OK;
}

static sc_code check_source(ctx *c, const sc_json *v, const char *field)
{
    static const char *const sources[] = {"conda", "pypi"};
    return want_one_of(c, v, field, sources, COUNT(sources));
}

static const member package_members[] = {{"name", 1, want_text},
                                         {"version", 1, want_text},
                                         {"declaredLicense", 1, want_text},
                                         {"source", 1, check_source}};
OBJECT_CHECK(check_package, package_members)

/* Compare two strings by their bytes (a shorter prefix sorts first). */
static int bytes_cmp(const sc_json *a, const sc_json *b)
{
    size_t n = a->length < b->length ? a->length : b->length;
    int r = n ? memcmp(a->string, b->string, n) : 0;
    if (r != 0)
        return r;
    return a->length < b->length ? -1 : a->length > b->length;
}

static sc_code check_packages(ctx *c, const sc_json *v, const char *field)
{
    sc_code rc = want_array(c, v, field, 0, check_package);
    if (rc != SC_OK)
        return rc;
    size_t i = 1;
    for (const sc_json *p = v->child; p && p->next; p = p->next, i++) {
        const sc_json *q = p->next;
        int r = bytes_cmp(sc_json_get(p, "name"), sc_json_get(q, "name"));
        if (r == 0)
            r = bytes_cmp(sc_json_get(p, "version"), sc_json_get(q, "version"));
        if (r > 0) {
            char f[SC_FIELD_MAX];
            sc_field_index(f, field, i);
            return sc_check_fail(&c->chk, f,
                       "%s is out of order: packages are sorted by the bytes of "
                       "name, then of version", f);
        }
        if (r == 0) {
            /* one entry per (name, version): a second one could only
             * contradict or repeat the first (10.7) */
            char f[SC_FIELD_MAX];
            sc_field_index(f, field, i);
            return sc_check_fail(&c->chk, f,
                       "%s repeats the name and version of the entry before it: a "
                       "package is listed once", f);
        }
    }
    return SC_OK;
}

static const member license_members[] = {
    {"schemaVersion", 1, NULL},
    {"kind", 1, NULL},
    {"targetId", 1, check_target_id},
    {"lockSha256", 1, want_sha256},
    {"packages", 1, check_packages}};

/* ------------------------------------------------------------------------
 * Kinds, versions, the whole check.
 */
static const char *const type_names[] = {"any", "release", "channel",
                                         "revocations",
                                         "dependency-license-audit", "box"};

const char *sc_doc_type_name(sc_doc_type type)
{
    if ((unsigned)type >= COUNT(type_names))
        return "unknown";
    return type_names[type];
}

int sc_manifest_parse_kind(const char *kind, size_t len, sc_doc_type *type,
                           size_t *ns_len)
{
    if (kind == NULL || strlen(kind) != len)
        return 0;
    const char *dot = strrchr(kind, '.');
    if (dot == NULL || dot == kind)
        return 0;
    size_t n = (size_t)(dot - kind);
    const char *t = dot + 1;
    sc_doc_type found = SC_DOC_ANY;
    for (int i = SC_DOC_RELEASE; i <= SC_DOC_LICENSE_INVENTORY; i++)
        if (strcmp(t, type_names[i]) == 0)
            found = (sc_doc_type)i;
    if (found == SC_DOC_ANY)
        return 0;
    /* the namespace: runs of [a-z0-9]+ joined by single '.' or '-' */
    int need_char = 1;
    for (size_t i = 0; i < n; i++) {
        char ch = kind[i];
        int alnum = (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9');
        if (alnum)
            need_char = 0;
        else if ((ch == '.' || ch == '-') && !need_char)
            need_char = 1;
        else
            return 0;
    }
    if (need_char)
        return 0;
    if (type)
        *type = found;
    if (ns_len)
        *ns_len = n;
    return 1;
}

/* §9.2 step 8: absent → invalid-manifest; 1, 2 deprecated; else unsupported. */
static sc_code check_version(ctx *c, const sc_json *doc, sc_doc_type expect)
{
    const sc_json *v = sc_json_get(doc, "schemaVersion");
    if (v == NULL)
        return sc_check_fail(&c->chk, "$.schemaVersion", "$.schemaVersion is required");
    uint64_t n = 0;
    if (sc_json_is(v, SC_JSON_NUMBER) && sc_json_uint53(v, &n)) {
        if (n == SC_MANIFEST_SCHEMA_VERSION)
            return SC_OK;
        if (n == 1 || n == 2) {
            const char *way = expect == SC_DOC_RELEASE || expect == SC_DOC_BOX
                                  ? "rebuild the box with a v3 builder"
                                  : "boxes and signed documents are never "
                                    "converted: rebuild the box or re-issue "
                                    "the document as schema version 3";
            return sc_error_set(c->chk.err, SC_E_DEPRECATED_SCHEMA_VERSION,
                                "$.schemaVersion",
                                "schemaVersion %d is deprecated: this is a v%d "
                                "%s; %s", (int)n, (int)n,
                                expect == SC_DOC_ANY ? "document"
                                                     : sc_doc_type_name(expect),
                                way);
        }
    }
    char shown[48];
    sc_json_describe_value(v, shown, sizeof shown);
    return sc_error_set(c->chk.err, SC_E_UNSUPPORTED_SCHEMA_VERSION,
                        "$.schemaVersion",
                        "unsupported schemaVersion %s; it must be the integer 3 (no "
                        "fraction, no exponent)", shown);
}

/* Copy src into dst (size bytes), marking info truncated if it is cut. */
static void put(sc_manifest_info *info, char *dst, size_t size, const char *src,
                size_t n)
{
    if (n >= size) {
        n = size - 1;
        info->truncated = 1;
    }
    memcpy(dst, src, n);
    dst[n] = '\0';
}

static void put_identity(sc_manifest_info *info, const char *a, const char *b,
                         const char *d)
{
    int n;
    if (d != NULL)
        n = snprintf(info->identity, sizeof info->identity, "%s %s %s", a, b, d);
    else
        n = snprintf(info->identity, sizeof info->identity, "%s %s", a, b);
    if (n < 0 || (size_t)n >= sizeof info->identity)
        info->truncated = 1;
}

/* Strings of a checked manifest, shown with any NUL as the end. */
static const char *text_of(const sc_json *doc, const char *key)
{
    const sc_json *v = sc_json_get(doc, key);
    return v && v->type == SC_JSON_STRING ? v->string : "";
}

static void fill_identity(sc_manifest_info *info, const sc_json *doc,
                          const ctx *c)
{
    char tid[SC_TARGET_ID_MAX] = "";
    if (c->have_target)
        sc_target_id(&c->target, tid, sizeof tid);
    switch (info->type) {
    case SC_DOC_RELEASE:
    case SC_DOC_BOX:
        put_identity(info, text_of(doc, "boxId"), text_of(doc, "version"), tid);
        break;
    case SC_DOC_CHANNEL:
        put_identity(info, text_of(doc, "boxId"), text_of(doc, "channel"), tid);
        break;
    case SC_DOC_REVOCATIONS:
        put_identity(info, "revocations", text_of(doc, "updatedAt"), NULL);
        break;
    case SC_DOC_LICENSE_INVENTORY:
        put_identity(info, "dependency-license-audit", tid, NULL);
        break;
    case SC_DOC_ANY:
        break;
    }
}

/* weights and assets: each requires the other (checked after required). */
static sc_code check_weights_assets(ctx *c, const sc_json *doc)
{
    int w = sc_json_get(doc, "weights") != NULL;
    int a = sc_json_get(doc, "assets") != NULL;
    if (w && !a)
        return sc_check_fail(&c->chk, "$.assets", "$.assets is required when $.weights is present");
    if (a && !w)
        return sc_check_fail(&c->chk, "$.weights",
                   "$.weights is required when $.assets is present");
    return SC_OK;
}

static sc_code check_schema(ctx *c, const sc_json *doc, sc_doc_type type)
{
    const member *table;
    size_t n;
    switch (type) {
    case SC_DOC_RELEASE:
        table = release_members, n = COUNT(release_members);
        break;
    case SC_DOC_BOX:
        table = box_members, n = COUNT(box_members);
        break;
    case SC_DOC_CHANNEL:
        table = channel_members, n = COUNT(channel_members);
        break;
    case SC_DOC_REVOCATIONS:
        table = revocations_members, n = COUNT(revocations_members);
        break;
    case SC_DOC_LICENSE_INVENTORY:
        table = license_members, n = COUNT(license_members);
        break;
    default:
        return sc_error_set(c->chk.err, SC_E_INTERNAL, NULL, "no schema for type %d",
                            (int)type);
    }
    sc_code rc;
    if ((rc = want_required(c, doc, "$", table, n)) != SC_OK)
        return rc;
    if ((type == SC_DOC_RELEASE || type == SC_DOC_BOX) &&
        (rc = check_weights_assets(c, doc)) != SC_OK)
        return rc;
    if ((rc = want_members(c, doc, "$", table, n)) != SC_OK)
        return rc;
    return want_known(c, doc, "$", table, n);
}

sc_code sc_manifest_check(const sc_json *payload, sc_doc_type expect,
                          sc_manifest_info *info, sc_error *err)
{
    ctx c;
    sc_manifest_info local;
    sc_code rc;
    memset(&c, 0, sizeof c);
    c.chk.err = err;
    c.chk.code = SC_E_INVALID_MANIFEST;
    if (info == NULL)
        info = &local;
    memset(info, 0, sizeof *info);
    sc_error_clear(err);

    /* step 7: an object */
    if (!sc_json_is(payload, SC_JSON_OBJECT))
        return sc_check_fail(&c.chk, "$", "a manifest must be a JSON object, received %s",
                   sc_json_type_name(payload));
    /* step 8: the version */
    if ((rc = check_version(&c, payload, expect)) != SC_OK)
        return rc;
    /* step 9: the kind */
    sc_doc_type type = SC_DOC_BOX;
    if (expect != SC_DOC_BOX) {
        const sc_json *k = sc_json_get(payload, "kind");
        size_t ns_len = 0;
        if (k == NULL)
            return sc_check_fail(&c.chk, "$.kind", "$.kind is required");
        if (!sc_json_is(k, SC_JSON_STRING))
            return sc_check_fail(&c.chk, "$.kind", "$.kind must be a string, received %s",
                       sc_json_type_name(k));
        if (!sc_manifest_parse_kind(k->string, k->length, &type, &ns_len))
            return sc_check_fail(&c.chk, "$.kind",
                       "$.kind \"%s\" is not <namespace>.<type> with a namespace "
                       "matching ^[a-z0-9]+(?:[.-][a-z0-9]+)*$ and a type of "
                       "release, channel, revocations or dependency-license-audit",
                       k->string);
        if (expect != SC_DOC_ANY && type != expect)
            return sc_check_fail(&c.chk, "$.kind", "$.kind is %s, but a %s was expected",
                       k->string, sc_doc_type_name(expect));
        put(info, info->kind, sizeof info->kind, k->string, k->length);
        put(info, info->ns, sizeof info->ns, k->string, ns_len);
    }
    info->type = type;
    /* step 10: the schema of the type */
    if ((rc = check_schema(&c, payload, type)) != SC_OK)
        return rc;
    fill_identity(info, payload, &c);
    return SC_OK;
}

sc_code sc_manifest_read_box_json(const char *bytes, size_t len, sc_json **out,
                                  sc_manifest_info *info, sc_error *err)
{
    sc_json *doc = NULL;
    sc_code rc;
    *out = NULL;
    sc_error_clear(err);
    if (len > SC_BOX_JSON_MAX_BYTES)
        return sc_error_set(err, SC_E_INVALID_MANIFEST, "box.json",
                            "box.json: %zu bytes is more than the %d bytes a "
                            "reader accepts", len, SC_BOX_JSON_MAX_BYTES);
    if ((rc = sc_json_parse(bytes, len, &doc, err)) != SC_OK) {
        sc_error_prefix(err, "box.json");
        return rc;
    }
    if ((rc = sc_manifest_check(doc, SC_DOC_BOX, info, err)) != SC_OK) {
        sc_error_prefix(err, "box.json");
        sc_json_free(doc);
        return rc;
    }
    *out = doc;
    return SC_OK;
}

sc_code sc_manifest_agreement(const sc_json *release, const sc_json *box,
                              sc_error *err)
{
    static const char *const fields[] = {
        "schemaVersion", "boxId", "modelId", "runtimeId", "version",
        "target", "pythonEntryPoint", "modelCacheSubdir", "environment",
        "selfTest", "execution", "weights", "assets", "provenance"};
    sc_error_clear(err);
    for (size_t i = 0; i < COUNT(fields); i++) {
        const sc_json *a = sc_json_get(release, fields[i]);
        const sc_json *b = sc_json_get(box, fields[i]);
        if (a == NULL && b == NULL)
            continue;
        if (a != NULL && b != NULL && sc_json_equal(a, b))
            continue;
        sc_code code = SC_E_MANIFEST_DISAGREEMENT;
        if (strcmp(fields[i], "environment") == 0)
            code = SC_E_ENVIRONMENT_DISAGREEMENT;
        else if (strcmp(fields[i], "execution") == 0)
            code = SC_E_EXECUTION_DISAGREEMENT;
        char f[SC_FIELD_MAX];
        sc_field_member(f, "$", fields[i]);
        return sc_error_set(err, code, f,
                            "box.json mismatch: %s differs between the signed "
                            "release and the archive's box.json%s", f,
                            a == NULL   ? " (absent from the release)"
                            : b == NULL ? " (absent from box.json)"
                                        : "");
    }
    return SC_OK;
}
