/* SPDX-License-Identifier: Apache-2.0 */
/*
 * mutation.c — the mutations of scrollcase-mutant-adapter (see mutation.h
 * and conformance/mutants.json).  Each one changes what the real library
 * returned, the way a plausible bug in a port would; none of them touches
 * the library.
 */
#include "mutation.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

#include "scrollcase/base64.h"
#include "scrollcase/compat.h"
#include "scrollcase/fatbin.h"
#include "scrollcase/file.h"
#include "scrollcase/manifest.h"

typedef enum {
    M_NONE,
    M_ACCEPT_DEPRECATED,
    M_LAX_JSON,
    M_CUDA_SEPARATOR,
    M_WRONG_TARGET_CODE,
    M_NO_DEFAULTS,
    M_CASE_SENSITIVE_COLLISION,
    M_REVERSE_JOIN,
    M_MIGRATE_NOOP,
    M_LAX_SIGNATURE,
    M_LAX_TRUST,
    M_LAX_PAYLOAD_HASH,
    M_AGREEMENT_IGNORES_ENVIRONMENT,
    M_COHORT_BUCKET_SHIFT,
    M_IGNORE_REVOCATIONS,
    M_PREPARE_OVERWRITES_DESTINATION,
    M_SIGNAL_AS_EXIT_STATUS,
    M_RUN_IGNORES_RELEASE_ENVIRONMENT,
    M_PARITY_NON_FINITE_PASSES,
    M_PARITY_BREACH_IGNORED,
    M_COMPAT_PENDING_AS_SUPPORTED,
    M_CALENDAR_UNCHECKED,
    M_LEAP_YEARS_IGNORED,
    M_CENTURY_LEAP_RULE_IGNORED,
    M_LEAP_SECOND_ALLOWED,
    M_YEAR_ZERO_REFUSED,
    M_SCHEMA_VERSION_BY_VALUE,
    M_SLUG_WITHOUT_DOTS,
    M_DUPLICATE_LICENCE_ENTRIES,
    M_ZERO_TOLERANCE_ALLOWED,
    M_UNICODE_CASE_FOLD,
    M_FEFF_AS_WHITESPACE,
    M_COVERAGE_MINOR_IGNORED,
    M_COVERAGE_CUBIN_CROSSES_MAJOR,
    M_COVERAGE_ARCH_SPECIFIC_AS_PLAIN,
    M_COVERAGE_FAMILY_AS_EXACT,
    M_COVERAGE_FAMILY_CROSSES_MAJOR,
    M_COVERAGE_REFUSES_UNSEEN,
    M_CUDA_ARCH_BYTE_ORDER,
    M_CHANNEL_RELEASE_UNCHECKED
} mutation;

static const struct {
    const char *name;
    mutation m;
} known[] = {
    {"accept-deprecated", M_ACCEPT_DEPRECATED},
    {"lax-json", M_LAX_JSON},
    {"cuda-separator", M_CUDA_SEPARATOR},
    {"wrong-target-code", M_WRONG_TARGET_CODE},
    {"no-defaults", M_NO_DEFAULTS},
    {"case-sensitive-collision", M_CASE_SENSITIVE_COLLISION},
    {"reverse-join", M_REVERSE_JOIN},
    {"migrate-noop", M_MIGRATE_NOOP},
    {"lax-signature", M_LAX_SIGNATURE},
    {"lax-trust", M_LAX_TRUST},
    {"lax-payload-hash", M_LAX_PAYLOAD_HASH},
    {"agreement-ignores-environment", M_AGREEMENT_IGNORES_ENVIRONMENT},
    {"cohort-bucket-shift", M_COHORT_BUCKET_SHIFT},
    {"ignore-revocations", M_IGNORE_REVOCATIONS},
    {"prepare-overwrites-destination", M_PREPARE_OVERWRITES_DESTINATION},
    {"signal-as-exit-status", M_SIGNAL_AS_EXIT_STATUS},
    {"run-ignores-release-environment", M_RUN_IGNORES_RELEASE_ENVIRONMENT},
    {"parity-non-finite-passes", M_PARITY_NON_FINITE_PASSES},
    {"parity-breach-ignored", M_PARITY_BREACH_IGNORED},
    {"compat-pending-as-supported", M_COMPAT_PENDING_AS_SUPPORTED},
    {"calendar-unchecked", M_CALENDAR_UNCHECKED},
    {"leap-years-ignored", M_LEAP_YEARS_IGNORED},
    {"century-leap-rule-ignored", M_CENTURY_LEAP_RULE_IGNORED},
    {"leap-second-allowed", M_LEAP_SECOND_ALLOWED},
    {"year-zero-refused", M_YEAR_ZERO_REFUSED},
    {"schema-version-by-value", M_SCHEMA_VERSION_BY_VALUE},
    {"slug-without-dots", M_SLUG_WITHOUT_DOTS},
    {"duplicate-licence-entries", M_DUPLICATE_LICENCE_ENTRIES},
    {"zero-tolerance-allowed", M_ZERO_TOLERANCE_ALLOWED},
    {"unicode-case-fold", M_UNICODE_CASE_FOLD},
    {"feff-as-whitespace", M_FEFF_AS_WHITESPACE},
    {"coverage-minor-ignored", M_COVERAGE_MINOR_IGNORED},
    {"coverage-cubin-crosses-major", M_COVERAGE_CUBIN_CROSSES_MAJOR},
    {"coverage-arch-specific-as-plain", M_COVERAGE_ARCH_SPECIFIC_AS_PLAIN},
    {"coverage-family-as-exact", M_COVERAGE_FAMILY_AS_EXACT},
    {"coverage-family-crosses-major", M_COVERAGE_FAMILY_CROSSES_MAJOR},
    {"coverage-refuses-unseen", M_COVERAGE_REFUSES_UNSEEN},
    {"cuda-arch-byte-order", M_CUDA_ARCH_BYTE_ORDER},
    {"channel-release-unchecked", M_CHANNEL_RELEASE_UNCHECKED},
};
#define NKNOWN (sizeof known / sizeof known[0])

static mutation active = M_NONE;
static const char *active_name = NULL;

int sc_mutation_init(void)
{
    const char *v = getenv("SCROLLCASE_MUTATION");
    if (v == NULL || v[0] == '\0')
        return 0;
    for (size_t i = 0; i < NKNOWN; i++) {
        if (strcmp(known[i].name, v) == 0) {
            active = known[i].m;
            active_name = known[i].name;
            return 0;
        }
    }
    fprintf(stderr, "scrollcase-mutant-adapter: unknown mutation \"%s\" in "
                    "SCROLLCASE_MUTATION\n", v);
    return -1;
}

void sc_mutation_hello(sc_json *hello)
{
    sc_json *all = sc_json_new_array();
    for (size_t i = 0; all != NULL && i < NKNOWN; i++)
        sc_json_array_append(all, sc_json_new_string(known[i].name));
    sc_json_object_set(hello, "mutation", active_name ? sc_json_new_string(active_name)
                                                      : sc_json_new_null());
    sc_json_object_set(hello, "mutations", all);
}

/* A rejection turned into a success with an empty object. */
static int swallow(sc_code *code, sc_json **output, sc_code which)
{
    if (*code != which)
        return 0;
    sc_json *empty = sc_json_new_object();
    if (empty == NULL)
        return -1;
    *code = SC_OK;
    sc_json_free(*output);
    *output = empty;
    return 0;
}

static sc_json *member(sc_json *o, const char *key)
{
    if (o == NULL || o->type != SC_JSON_OBJECT)
        return NULL;
    return sc_json_get(o, key);
}

/* "linux-x86_64-cuda12.4" -> "linux-x86_64-cuda-12.4" */
static int cuda_separator(sc_json *output)
{
    const char *id = sc_json_cstr(member(output, "targetId"));
    if (id == NULL)
        return 0;
    const char *at = strstr(id, "-cuda");
    if (at == NULL || at[5] < '0' || at[5] > '9')
        return 0;
    size_t head = (size_t)(at - id) + 5;
    sc_buf b = {0};
    sc_buf_add(&b, id, head);
    sc_buf_puts(&b, "-");
    sc_buf_puts(&b, id + head);
    int rc = sc_json_object_set(output, "targetId", sc_json_new_string(b.data));
    sc_buf_free(&b);
    return rc;
}

/* 1 if the named scroll document declares key (0 if not or unreadable). */
static int declares(const char *path, const char *key, int *extends)
{
    sc_json *doc = NULL;
    sc_error err;
    sc_error_clear(&err);
    if (sc_json_parse_file(path, &doc, &err) != SC_OK)
        return 0;
    int found = member(doc, key) != NULL;
    if (extends != NULL)
        *extends = member(doc, "extends") != NULL;
    sc_json_free(doc);
    return found;
}

/* Drop the scrollId / scrollVersion that the defaults step added. */
static int no_defaults(const sc_adapter_ctx *ctx, sc_json *output)
{
    sc_json *scroll = member(output, "scroll");
    if (scroll == NULL || ctx->reference == NULL)
        return 0;
    static const char *const keys[] = {"scrollId", "scrollVersion"};
    sc_buf frag = {0}, base = {0};
    sc_buf_printf(&frag, "%s/scrolls/%s/scroll.json", ctx->case_dir, ctx->reference);
    const char *slash = strchr(ctx->reference, '/');
    int box_len = slash ? (int)(slash - ctx->reference) : (int)strlen(ctx->reference);
    sc_buf_printf(&base, "%s/scrolls/%.*s/scroll.json", ctx->case_dir, box_len,
                  ctx->reference);
    for (size_t i = 0; i < 2; i++) {
        int extends = 0;
        int declared = declares(frag.data, keys[i], &extends);
        if (!declared && extends)
            declared = declares(base.data, keys[i], NULL);
        if (!declared)
            sc_json_object_remove(scroll, keys[i]);
    }
    sc_buf_free(&frag);
    sc_buf_free(&base);
    return 0;
}

static int reverse_member(sc_json *scroll, const char *key)
{
    sc_json *a = member(scroll, key);
    if (a == NULL || a->type != SC_JSON_ARRAY || a->length < 2)
        return 0;
    sc_json *r = sc_json_new_array();
    if (r == NULL)
        return -1;
    for (size_t i = a->length; i-- > 0;)
        if (sc_json_array_append(r, sc_json_copy(sc_json_at(a, i))) != 0) {
            sc_json_free(r);
            return -1;
        }
    return sc_json_object_set(scroll, key, r);
}

/* Report every written file as it was before: nothing was migrated. */
static int migrate_noop(const sc_adapter_ctx *ctx, sc_json *output)
{
    sc_json *files = member(output, "files");
    if (files == NULL || files->type != SC_JSON_OBJECT)
        return 0;
    /* Copy the keys first: replacing a value may replace its member node. */
    size_t n = 0;
    for (sc_json *m = files->child; m != NULL; m = m->next)
        n++;
    char **keys = sc_xmalloc(sizeof *keys * (n + 1));
    n = 0;
    for (sc_json *m = files->child; m != NULL; m = m->next)
        keys[n++] = sc_xstrdup(m->key);
    int rc = 0;
    for (size_t i = 0; i < n; i++) {
        sc_buf path = {0};
        sc_buf_printf(&path, "%s/scrolls/%s", ctx->case_dir, keys[i]);
        sc_json *orig = NULL;
        sc_error err;
        sc_error_clear(&err);
        sc_code code = sc_json_parse_file(path.data, &orig, &err);
        sc_buf_free(&path);
        if (code == SC_OK && rc == 0 && sc_json_object_set(files, keys[i], orig) != 0)
            rc = -1;
        else if (code == SC_OK && rc != 0)
            sc_json_free(orig);
    }
    for (size_t i = 0; i < n; i++)
        free(keys[i]);
    free(keys);
    return rc;
}

/* The bucket one further along: a port that hashes the bytes in another
 * order or rounds differently lands install ids in other buckets. */
static int shift_bucket(sc_json *output)
{
    sc_json *b = member(output, "bucket");
    if (b == NULL || b->type != SC_JSON_NUMBER)
        return 0;
    double next = b->number + 1 >= 10000 ? 0 : b->number + 1;
    return sc_json_object_set(output, "bucket", sc_json_new_number(next));
}

static int is_run(const sc_adapter_ctx *ctx)
{
    return strcmp(ctx->operation, "box-run") == 0 ||
           strcmp(ctx->operation, "box-run-temporary") == 0;
}

/* A death by signal n reported as exit status 128 + n, the way a shell
 * reports it: the port lost the distinction. */
static int signal_as_exit(sc_json *output)
{
    const char *sig = sc_json_cstr(member(output, "signal"));
    if (sig == NULL)
        return 0;
    int n = strcmp(sig, "SIGTERM") == 0 ? 15 : strcmp(sig, "SIGINT") == 0 ? 2 : 1;
    if (sc_json_object_set(output, "exitCode", sc_json_new_number(128 + n)) != 0)
        return -1;
    return sc_json_object_set(output, "signal", sc_json_new_null());
}

/* The child's environment without the variables the release declares: the
 * port forgot the release layer (read from the case's release.json). */
static int drop_release_environment(const sc_adapter_ctx *ctx, sc_json *output)
{
    sc_json *env = member(output, "effectiveEnvironment");
    if (env == NULL || env->type != SC_JSON_OBJECT)
        return 0;
    sc_buf path = {0};
    sc_buf_printf(&path, "%s/release.json", ctx->case_dir);
    sc_json *envelope = NULL, *payload = NULL;
    sc_error err;
    sc_error_clear(&err);
    sc_code code = sc_json_parse_file(path.data, &envelope, &err);
    sc_buf_free(&path);
    if (code != SC_OK)
        return 0;
    const sc_json *b64 = member(envelope, "payloadBase64");
    if (b64 != NULL && b64->type == SC_JSON_STRING) {
        unsigned char *bytes = sc_xmalloc(b64->length + 1);
        size_t n = 0;
        if (sc_base64_decode(b64->string, b64->length, bytes, b64->length, &n) &&
            sc_json_parse((const char *)bytes, n, &payload, &err) != SC_OK)
            payload = NULL;
        free(bytes);
    }
    const sc_json *declared = member(payload, "environment");
    for (const sc_json *v = declared != NULL ? declared->child : NULL; v != NULL; v = v->next)
        sc_json_object_remove(env, v->key);
    sc_json_free(payload);
    sc_json_free(envelope);
    return 0;
}

/* A pending-probe verdict reported as supported: the port treats a device
 * probe that could not run as a pass. */
static int pending_as_supported(sc_json *output)
{
    sc_json *verdict = member(output, "verdict");
    const char *v = sc_json_cstr(verdict);
    if (v == NULL || strcmp(v, "pending-probe") != 0)
        return 0;
    sc_json *s = sc_json_new_string("supported");
    if (s == NULL || sc_json_object_set(output, "verdict", s) != 0)
        return -1;
    return 0;
}

/* ---- mutations of suite 2.0.0: the port's own (wrong) rule is applied to
 * the case's input, and the library's verdict is redone with it ---------- */

/* The case's manifest-check input, parsed, and its args.type; NULL when
 * this is not such a case or it cannot be read. */
static sc_json *manifest_input(const sc_adapter_ctx *ctx, sc_doc_type *type,
                               const char **type_name)
{
    static char name[32];
    if (strcmp(ctx->operation, "manifest-check") != 0)
        return NULL;
    sc_buf path = {0};
    sc_buf_printf(&path, "%s/case.json", ctx->case_dir);
    sc_json *kase = NULL, *doc = NULL;
    sc_error err;
    sc_error_clear(&err);
    if (sc_json_parse_file_depth(path.data, SC_JSON_ENVELOPE_DEPTH, &kase, &err) != SC_OK) {
        sc_buf_free(&path);
        return NULL;
    }
    const char *t = sc_json_cstr(member(member(kase, "args"), "type"));
    static const struct {
        const char *name;
        sc_doc_type type;
    } types[] = {{"release", SC_DOC_RELEASE},
                 {"channel", SC_DOC_CHANNEL},
                 {"revocations", SC_DOC_REVOCATIONS},
                 {"license-inventory", SC_DOC_LICENSE_INVENTORY},
                 {"box", SC_DOC_BOX}};
    int found = 0;
    for (size_t i = 0; t != NULL && i < sizeof types / sizeof types[0]; i++)
        if (strcmp(types[i].name, t) == 0) {
            *type = types[i].type;
            snprintf(name, sizeof name, "%s", t);
            *type_name = name;
            found = 1;
        }
    sc_json_free(kase);
    path.len = 0;
    sc_buf_printf(&path, "%s/manifest.json", ctx->case_dir);
    if (!found || sc_json_parse_file(path.data, &doc, &err) != SC_OK)
        doc = NULL;
    sc_buf_free(&path);
    return doc;
}

/* Check the (rewritten) manifest again; on success the result becomes the
 * manifest-check output, with identity_override when it is given. */
static int recheck(sc_json *doc, sc_doc_type type, const char *type_name,
                   const char *identity_override, sc_code *code, sc_json **output)
{
    sc_manifest_info info;
    memset(&info, 0, sizeof info);
    sc_error err;
    sc_error_clear(&err);
    if (sc_manifest_check(doc, type, &info, &err) != SC_OK)
        return 0;
    sc_json *o = sc_json_new_object();
    if (o == NULL ||
        sc_json_object_set(o, "type", sc_json_new_string(type_name)) != 0 ||
        sc_json_object_set(o, "identity", sc_json_new_string(identity_override
                                                                 ? identity_override
                                                                 : info.identity)) != 0) {
        sc_json_free(o);
        return -1;
    }
    sc_json_free(*output);
    *output = o;
    *code = SC_OK;
    return 0;
}

/* The port's calendar, for each timestamp mutation: 1 when the port would
 * accept s (which has the YYYY-MM-DDTHH:MM:SSZ shape). */
static int port_timestamp_valid(const char *s, size_t len)
{
    if (len != 20)
        return 0;
    int v[6];
    static const int at[6] = {0, 5, 8, 11, 14, 17}, width[6] = {4, 2, 2, 2, 2, 2};
    for (int i = 0; i < 6; i++) {
        v[i] = 0;
        for (int j = 0; j < width[i]; j++) {
            char ch = s[at[i] + j];
            if (ch < '0' || ch > '9')
                return 0;
            v[i] = v[i] * 10 + (ch - '0');
        }
    }
    int y = v[0], mo = v[1], d = v[2], h = v[3], mi = v[4], se = v[5];
    if (mo < 1 || mo > 12 || d < 1 || h > 23 || mi > 59)
        return 0;
    if (active == M_YEAR_ZERO_REFUSED && y == 0)
        return 0;
    if (se > (active == M_LEAP_SECOND_ALLOWED ? 60 : 59))
        return 0;
    if (active == M_CALENDAR_UNCHECKED)
        return d <= 31;
    static const int days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    if (active == M_LEAP_YEARS_IGNORED)
        leap = 0;
    if (active == M_CENTURY_LEAP_RULE_IGNORED)
        leap = y % 4 == 0;
    return d <= days[mo - 1] + (mo == 2 && leap);
}

/* Walk every timestamp member (builtAt, updatedAt, revokedAt).  *port_only:
 * one the port accepts and the format refuses (replaced by a valid one);
 * *format_only: one the format accepts and the port refuses. */
static int walk_timestamps(sc_json *v, int *port_only, int *format_only)
{
    if (v == NULL || (v->type != SC_JSON_OBJECT && v->type != SC_JSON_ARRAY))
        return 0;
    for (sc_json *m = v->child; m != NULL; m = m->next) {
        if (v->type == SC_JSON_OBJECT && m->type == SC_JSON_STRING &&
            (strcmp(m->key, "builtAt") == 0 || strcmp(m->key, "updatedAt") == 0 ||
             strcmp(m->key, "revokedAt") == 0)) {
            int real = sc_manifest_timestamp_valid(m->string, m->length);
            int port = port_timestamp_valid(m->string, m->length);
            if (port && !real) {
                *port_only = 1;
                sc_json *fine = sc_json_new_string("2000-01-01T00:00:00Z");
                if (fine == NULL || sc_json_object_set(v, m->key, fine) != 0)
                    return -1;
                return walk_timestamps(v, port_only, format_only); /* m was replaced */
            }
            if (real && !port)
                *format_only = 1;
        } else if (walk_timestamps(m, port_only, format_only) != 0) {
            return -1;
        }
    }
    return 0;
}

static int timestamps(const sc_adapter_ctx *ctx, sc_code *code, sc_json **output)
{
    sc_doc_type type;
    const char *type_name = NULL;
    sc_json *doc = manifest_input(ctx, &type, &type_name);
    if (doc == NULL)
        return 0;
    char identity[128] = "";
    const char *updated = sc_json_cstr(member(doc, "updatedAt"));
    if (type == SC_DOC_REVOCATIONS && updated != NULL)
        snprintf(identity, sizeof identity, "revocations %s", updated);
    int port_only = 0, format_only = 0, rc = walk_timestamps(doc, &port_only, &format_only);
    if (rc == 0 && *code == SC_OK && format_only) {
        sc_json_free(*output);
        *output = NULL;
        *code = SC_E_INVALID_MANIFEST;
    } else if (rc == 0 && *code == SC_E_INVALID_MANIFEST && port_only) {
        rc = recheck(doc, type, type_name, identity[0] ? identity : NULL, code, output);
    }
    sc_json_free(doc);
    return rc;
}

/* schemaVersion compared by value (3.0, 3e0) or as text ("3"). */
static int schema_by_value(const sc_adapter_ctx *ctx, sc_code *code, sc_json **output)
{
    if (*code != SC_E_UNSUPPORTED_SCHEMA_VERSION)
        return 0;
    sc_doc_type type;
    const char *type_name = NULL;
    sc_json *doc = manifest_input(ctx, &type, &type_name);
    const sc_json *v = member(doc, "schemaVersion");
    int rc = 0;
    if (v != NULL && ((v->type == SC_JSON_NUMBER && v->number == 3) ||
                      (v->type == SC_JSON_STRING && strcmp(v->string, "3") == 0))) {
        if (sc_json_object_set(doc, "schemaVersion", sc_json_new_number(3)) != 0)
            rc = -1;
        else
            rc = recheck(doc, type, type_name, NULL, code, output);
    }
    sc_json_free(doc);
    return rc;
}

static int has_dot(const sc_json *v)
{
    return v != NULL && v->type == SC_JSON_STRING && memchr(v->string, '.', v->length);
}

/* Slugs read as ^[a-z0-9]+(-[a-z0-9]+)*$: a '.' is refused. */
static int slug_without_dots(const sc_adapter_ctx *ctx, sc_code *code, sc_json **output)
{
    if (*code != SC_OK)
        return 0;
    sc_doc_type type;
    const char *type_name = NULL;
    sc_json *doc = manifest_input(ctx, &type, &type_name);
    if (doc == NULL)
        return 0;
    int dotted = has_dot(member(doc, "boxId")) || has_dot(member(doc, "modelId")) ||
                 has_dot(member(doc, "runtimeId"));
    const sc_json *list = member(doc, "revocations");
    for (size_t i = 0; list != NULL && list->type == SC_JSON_ARRAY && i < list->length; i++)
        dotted = dotted || has_dot(member((sc_json *)sc_json_at(list, i), "boxId"));
    if (dotted) {
        sc_json_free(*output);
        *output = NULL;
        *code = SC_E_INVALID_MANIFEST;
    }
    sc_json_free(doc);
    return 0;
}

static int same_string(const sc_json *a, const sc_json *b)
{
    return a != NULL && b != NULL && a->type == SC_JSON_STRING && b->type == SC_JSON_STRING &&
           a->length == b->length && memcmp(a->string, b->string, a->length) == 0;
}

/* Equal (name, version) neighbours pass the order check: drop the repeats. */
static int duplicate_licences(const sc_adapter_ctx *ctx, sc_code *code, sc_json **output)
{
    if (*code != SC_E_INVALID_MANIFEST)
        return 0;
    sc_doc_type type;
    const char *type_name = NULL;
    sc_json *doc = manifest_input(ctx, &type, &type_name);
    sc_json *pk = member(doc, "packages");
    int rc = 0;
    if (type == SC_DOC_LICENSE_INVENTORY && pk != NULL && pk->type == SC_JSON_ARRAY) {
        sc_json *kept = sc_json_new_array();
        int dropped = 0;
        const sc_json *prev = NULL;
        for (size_t i = 0; kept != NULL && i < pk->length; i++) {
            sc_json *e = (sc_json *)sc_json_at(pk, i);
            if (prev != NULL && same_string(member((sc_json *)prev, "name"), member(e, "name")) &&
                same_string(member((sc_json *)prev, "version"), member(e, "version"))) {
                dropped = 1;
                continue;
            }
            prev = e;
            if (sc_json_array_append(kept, sc_json_copy(e)) != 0)
                rc = -1;
        }
        if (kept == NULL || rc != 0 || sc_json_object_set(doc, "packages", kept) != 0)
            rc = -1;
        else if (dropped)
            rc = recheck(doc, type, type_name, NULL, code, output);
    }
    sc_json_free(doc);
    return rc;
}

/* A tolerance of 0 (or -0) taken as "exact" instead of refused. */
static int zero_tolerance(const sc_adapter_ctx *ctx, sc_code *code, sc_json **output)
{
    if (*code != SC_E_INVALID_MANIFEST)
        return 0;
    sc_doc_type type;
    const char *type_name = NULL;
    sc_json *doc = manifest_input(ctx, &type, &type_name);
    sc_json *tol = member(member(member(doc, "gates"), "parity"), "tolerances");
    int zero = 0, rc = 0;
    static const char *const keys[] = {"absolute", "relative"};
    for (size_t i = 0; i < 2 && rc == 0; i++) {
        const sc_json *v = member(tol, keys[i]);
        if (v != NULL && v->type == SC_JSON_NUMBER && v->number == 0) {
            zero = 1;
            rc = sc_json_object_set(tol, keys[i], sc_json_new_number(1e-9));
        }
    }
    if (rc == 0 && zero)
        rc = recheck(doc, type, type_name, NULL, code, output);
    sc_json_free(doc);
    return rc;
}

static int by_canonical_order(const void *a, const void *b)
{
    return sc_cuda_code_compare(a, b);
}

/* cudaBinaries' architecture lists ordered by their bytes (sm_100 before
 * sm_90) instead of the canonical order of 19.8.  1 when each list of rec is
 * strictly ascending under the order (byte: strcmp, else canonical). */
static int arch_lists_sorted(const sc_json *rec, int bytes)
{
    static const char *const lists[] = {"cubins", "ptx"};
    for (size_t l = 0; l < 2; l++) {
        const sc_json *list = sc_json_get(rec, lists[l]);
        const char *prev = NULL;
        for (const sc_json *e = list != NULL ? list->child : NULL; e != NULL; e = e->next) {
            const char *s = sc_json_cstr(e);
            sc_cuda_code a, b;
            if (s == NULL)
                return 0;
            if (prev != NULL &&
                (bytes ? strcmp(prev, s) >= 0
                       : !sc_cuda_code_parse(prev, &a) || !sc_cuda_code_parse(s, &b) ||
                             sc_cuda_code_compare(&a, &b) >= 0))
                return 0;
            prev = s;
        }
    }
    return 1;
}

/* The port refuses a canonical list that is not in byte order, and accepts a
 * byte-ordered one (checked as if it were canonical). */
static int arch_byte_order(const sc_adapter_ctx *ctx, sc_code *code, sc_json **output)
{
    sc_doc_type type;
    const char *type_name = NULL;
    sc_json *doc = manifest_input(ctx, &type, &type_name);
    sc_json *rec = member(doc, "cudaBinaries");
    int rc = 0;
    if (rec == NULL || rec->type != SC_JSON_OBJECT) {
        sc_json_free(doc);
        return 0;
    }
    int by_bytes = arch_lists_sorted(rec, 1), canonical = arch_lists_sorted(rec, 0);
    if (*code == SC_OK && canonical && !by_bytes) {
        sc_json_free(*output);
        *output = NULL;
        *code = SC_E_INVALID_MANIFEST;
    } else if (*code == SC_E_INVALID_MANIFEST && by_bytes && !canonical) {
        /* what the real check says once the lists are in its order */
        static const char *const lists[] = {"cubins", "ptx"};
        for (size_t l = 0; l < 2 && rc == 0; l++) {
            sc_json *list = member(rec, lists[l]);
            sc_cuda_code codes[128];
            size_t n = 0;
            for (sc_json *e = list != NULL ? list->child : NULL; e != NULL && n < 128;
                 e = e->next)
                if (sc_cuda_code_parse(sc_json_cstr(e), &codes[n]))
                    n++;
            if (list == NULL || n != list->length)
                break; /* a name the real check refuses anyway */
            qsort(codes, n, sizeof codes[0], by_canonical_order);
            sc_json *sorted = sc_json_new_array();
            for (size_t i = 0; sorted != NULL && i < n && rc == 0; i++) {
                char name[16];
                sc_cuda_code_name(&codes[i], name, sizeof name);
                rc = sc_json_array_append(sorted, sc_json_new_string(name));
            }
            rc = rc != 0 || sorted == NULL ? -1 : sc_json_object_set(rec, lists[l], sorted);
        }
        if (rc == 0)
            rc = recheck(doc, type, type_name, NULL, code, output);
    }
    sc_json_free(doc);
    return rc;
}

/* ---- coverage mutations (suite 2.1.0): the port's wrong coverage rule is
 * expressed as a rewrite of the release's cudaBinaries under which the real
 * rule of 19.11 gives the port's answer, and the verdict is redone ------- */

/* The name the real rule must see for the port's rule on `name` to hold;
 * NULL to keep it.  out holds at least 16 bytes. */
static const char *port_arch(const char *name, char *out, size_t size)
{
    sc_cuda_code code;
    if (name == NULL || !sc_cuda_code_parse(name, &code))
        return NULL;
    int cubin = code.kind == SC_FATBIN_CUBIN;
    switch (active) {
    case M_COVERAGE_MINOR_IGNORED: /* a cubin runs on every minor of its major */
        if (!cubin || code.variant != SC_CUDA_VARIANT_NONE || code.arch % 10 == 0)
            return NULL;
        code.arch -= code.arch % 10;
        break;
    case M_COVERAGE_ARCH_SPECIFIC_AS_PLAIN: /* sm_90a taken for sm_90 */
        if (code.variant != SC_CUDA_VARIANT_ARCH)
            return NULL;
        code.variant = SC_CUDA_VARIANT_NONE;
        break;
    case M_COVERAGE_FAMILY_AS_EXACT: /* sm_100f taken for sm_100a */
        if (code.variant != SC_CUDA_VARIANT_FAMILY)
            return NULL;
        code.variant = SC_CUDA_VARIANT_ARCH;
        break;
    case M_COVERAGE_FAMILY_CROSSES_MAJOR: /* sm_100f taken for compute_100 */
        if (code.variant != SC_CUDA_VARIANT_FAMILY)
            return NULL;
        code.variant = SC_CUDA_VARIANT_NONE;
        code.kind = SC_FATBIN_PTX;
        break;
    default:
        return NULL;
    }
    sc_cuda_code_name(&code, out, size);
    return out;
}

static int coverage(const sc_adapter_ctx *ctx, sc_code *code, sc_json **output)
{
    if (*code != SC_OK || strcmp(ctx->operation, "compat") != 0)
        return 0;
    sc_buf path = {0};
    sc_json *rel = NULL, *kase = NULL, *cubins = NULL, *ptx = NULL;
    sc_host_facts h;
    sc_error err;
    int rc = 0, changed = 0, have_facts = 0;
    memset(&h, 0, sizeof h);
    sc_error_clear(&err);
    sc_buf_printf(&path, "%s/release.json", ctx->case_dir);
    if (sc_json_parse_file(path.data, &rel, &err) != SC_OK)
        goto done;
    sc_json *rec = member(rel, "cudaBinaries");
    if (rec == NULL)
        goto done;
    if (active == M_COVERAGE_REFUSES_UNSEEN) {
        /* the port refuses without positive evidence: unseen code ignored */
        sc_json *opaque = member(rec, "opaqueLibraries");
        changed = (opaque != NULL && opaque->length > 0) || member(rec, "declared") != NULL;
        sc_json_object_remove(rec, "declared");
        if (sc_json_object_set(rec, "opaqueLibraries", sc_json_new_array()) != 0) {
            rc = -1;
            goto done;
        }
    }
    /* the port's reading of every entry, then both lists in canonical order */
    sc_cuda_code codes[256];
    size_t n = 0;
    static const char *const lists[] = {"cubins", "ptx"};
    for (size_t l = 0; l < 2; l++)
        for (sc_json *e = member(rec, lists[l]) != NULL ? member(rec, lists[l])->child : NULL;
             e != NULL && n < 256; e = e->next) {
            char name[16];
            const char *to = port_arch(sc_json_cstr(e), name, sizeof name);
            changed |= to != NULL;
            if (!sc_cuda_code_parse(to != NULL ? to : sc_json_cstr(e), &codes[n]))
                goto done;
            sc_cuda_code was = codes[n++];
            /* a cubin that crosses majors: the port also loads it on every
             * later major, as if the box had sm_<M>0 for each */
            if (active == M_COVERAGE_CUBIN_CROSSES_MAJOR && was.kind == SC_FATBIN_CUBIN &&
                was.variant == SC_CUDA_VARIANT_NONE)
                for (unsigned m = was.arch / 10 + 1; m <= 15 && n < 256; m++) {
                    codes[n] = was;
                    codes[n++].arch = m * 10;
                    changed = 1;
                }
        }
    qsort(codes, n, sizeof codes[0], by_canonical_order);
    cubins = sc_json_new_array();
    ptx = sc_json_new_array();
    if (cubins == NULL || ptx == NULL) {
        rc = -1;
        goto done;
    }
    for (size_t i = 0; i < n && rc == 0; i++) {
        char name[16];
        if (i > 0 && sc_cuda_code_compare(&codes[i - 1], &codes[i]) == 0)
            continue;
        sc_cuda_code_name(&codes[i], name, sizeof name);
        rc = sc_json_array_append(codes[i].kind == SC_FATBIN_CUBIN ? cubins : ptx,
                                  sc_json_new_string(name));
    }
    if (rc != 0 || !changed)
        goto done;
    if (sc_json_object_set(rec, "cubins", cubins) != 0 ||
        (cubins = NULL, sc_json_object_set(rec, "ptx", ptx) != 0)) {
        rc = -1;
        goto done;
    }
    ptx = NULL;
    sc_buf_free(&path);
    sc_buf_printf(&path, "%s/host.json", ctx->case_dir);
    if (sc_host_facts_read_file(path.data, &h, &err) != SC_OK)
        goto done;
    have_facts = 1;
    sc_buf_free(&path);
    sc_buf_printf(&path, "%s/case.json", ctx->case_dir);
    if (sc_json_parse_file(path.data, &kase, &err) != SC_OK)
        goto done;
    const char *app = sc_json_cstr(member(member(kase, "args"), "hostAppVersion"));
    if (app != NULL && sc_host_facts_set_app_version(&h, app, &err) != SC_OK)
        goto done;
    sc_compat_result res;
    if (sc_compat_evaluate(rel, &h, &res, &err) == SC_OK) {
        sc_json_free(*output);
        *output = res.report;
        res.report = NULL;
    }
done:
    if (have_facts)
        sc_host_facts_free(&h);
    sc_json_free(cubins);
    sc_json_free(ptx);
    sc_json_free(kase);
    sc_json_free(rel);
    sc_buf_free(&path);
    return rc;
}

/* Unicode-style case folding of a UTF-8 path (a port using its language's
 * lower() or casefold()): ASCII, Latin-1, Greek and Cyrillic capitals, the
 * Kelvin sign, final sigma, and sharp s as "ss". */
static char *unicode_fold(const char *s, size_t len)
{
    sc_buf b = {0};
    for (size_t i = 0; i < len;) {
        unsigned char c = (unsigned char)s[i];
        unsigned cp;
        size_t n;
        if (c < 0x80) {
            cp = c;
            n = 1;
        } else if ((c & 0xe0) == 0xc0 && i + 1 < len) {
            cp = ((c & 0x1fu) << 6) | ((unsigned char)s[i + 1] & 0x3fu);
            n = 2;
        } else if ((c & 0xf0) == 0xe0 && i + 2 < len) {
            cp = ((c & 0x0fu) << 12) | (((unsigned char)s[i + 1] & 0x3fu) << 6) |
                 ((unsigned char)s[i + 2] & 0x3fu);
            n = 3;
        } else {
            sc_buf_add(&b, s + i, 1);
            i++;
            continue;
        }
        if (cp >= 'A' && cp <= 'Z')
            cp += 32;
        else if ((cp >= 0xc0 && cp <= 0xde && cp != 0xd7) || (cp >= 0x391 && cp <= 0x3a9) ||
                 (cp >= 0x410 && cp <= 0x42f))
            cp += 32;
        else if (cp >= 0x400 && cp <= 0x40f)
            cp += 80;
        else if (cp == 0x3c2)
            cp = 0x3c3;
        else if (cp == 0x212a)
            cp = 'k';
        if (cp == 0xdf || cp == 0x1e9e) {
            sc_buf_puts(&b, "ss");
        } else if (cp < 0x80) {
            char ch = (char)cp;
            sc_buf_add(&b, &ch, 1);
        } else if (cp < 0x800) {
            char u[2] = {(char)(0xc0 | (cp >> 6)), (char)(0x80 | (cp & 0x3f))};
            sc_buf_add(&b, u, 2);
        } else {
            char u[3] = {(char)(0xe0 | (cp >> 12)), (char)(0x80 | ((cp >> 6) & 0x3f)),
                         (char)(0x80 | (cp & 0x3f))};
            sc_buf_add(&b, u, 3);
        }
        i += n;
    }
    return b.data ? b.data : sc_xstrdup("");
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Accepted listings whose paths collide under Unicode folding: the port
 * reports entry-collision for two distinct files. */
static int unicode_collision(const sc_adapter_ctx *ctx, sc_code *code, sc_json **output)
{
    if (*code != SC_OK || (strcmp(ctx->operation, "payload-list-parse") != 0 &&
                           strcmp(ctx->operation, "archive-inspect") != 0))
        return 0;
    const sc_json *entries = member(*output, "entries");
    if (entries == NULL || entries->type != SC_JSON_ARRAY)
        return 0;
    size_t n = entries->length, k = 0;
    char **folded = sc_xmalloc(sizeof *folded * (n + 1));
    for (size_t i = 0; i < n; i++) {
        const sc_json *p = member((sc_json *)sc_json_at(entries, i), "path");
        if (p != NULL && p->type == SC_JSON_STRING)
            folded[k++] = unicode_fold(p->string, p->length);
    }
    qsort(folded, k, sizeof *folded, cmp_str);
    int collide = 0;
    for (size_t i = 1; i < k; i++)
        collide = collide || strcmp(folded[i - 1], folded[i]) == 0;
    for (size_t i = 0; i < k; i++)
        free(folded[i]);
    free(folded);
    if (collide) {
        sc_json_free(*output);
        *output = NULL;
        *code = SC_E_ENTRY_COLLISION;
    }
    return 0;
}

/* A reader that skips U+FEFF between tokens as if it were white space. */
static int feff_as_whitespace(const sc_adapter_ctx *ctx, sc_code *code, sc_json **output)
{
    if (*code != SC_E_INVALID_JSON || strcmp(ctx->operation, "json-read") != 0)
        return 0;
    sc_buf path = {0};
    sc_buf_printf(&path, "%s/input.json", ctx->case_dir);
    char *bytes = NULL;
    size_t len = 0;
    sc_error err;
    sc_error_clear(&err);
    sc_code rc = sc_file_read(path.data, &bytes, &len, NULL, &err);
    sc_buf_free(&path);
    if (rc != SC_OK)
        return 0;
    sc_buf clean = {0};
    int in_string = 0, stripped = 0;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)bytes[i];
        if (!in_string && c == 0xef && i + 2 < len && (unsigned char)bytes[i + 1] == 0xbb &&
            (unsigned char)bytes[i + 2] == 0xbf) {
            i += 2;
            stripped = 1;
            continue;
        }
        if (in_string && c == '\\' && i + 1 < len) {
            sc_buf_add(&clean, bytes + i, 2);
            i++;
            continue;
        }
        if (c == '"')
            in_string = !in_string;
        sc_buf_add(&clean, bytes + i, 1);
    }
    free(bytes);
    sc_json *doc = NULL;
    int out = 0;
    if (stripped && sc_json_parse(clean.data ? clean.data : "", clean.len, &doc, &err) == SC_OK) {
        char *text = NULL;
        size_t tlen = 0;
        sc_json *o = sc_json_new_object();
        if (o == NULL || sc_json_write(doc, &text, &tlen, &err) != SC_OK ||
            sc_json_object_set(o, "value", doc) != 0 ||
            sc_json_object_set(o, "written", sc_json_new_string_len(text, tlen)) != 0) {
            out = -1;
            sc_json_free(o);
        } else {
            sc_json_free(*output);
            *output = o;
            *code = SC_OK;
        }
        free(text);
    }
    sc_buf_free(&clean);
    return out;
}

int sc_mutation_apply(const sc_adapter_ctx *ctx, sc_code *code, sc_json **output)
{
    int is_resolve = strcmp(ctx->operation, "scroll-resolve") == 0;
    switch (active) {
    case M_NONE:
        return 0;
    case M_ACCEPT_DEPRECATED:
        return swallow(code, output, SC_E_DEPRECATED_SCHEMA_VERSION);
    case M_LAX_JSON:
        return swallow(code, output, SC_E_INVALID_JSON);
    case M_CASE_SENSITIVE_COLLISION:
        return swallow(code, output, SC_E_ENTRY_COLLISION);
    case M_WRONG_TARGET_CODE:
        if (*code == SC_E_UNSUPPORTED_TARGET)
            *code = SC_E_INVALID_TARGET;
        return 0;
    case M_CUDA_SEPARATOR:
        return *code == SC_OK ? cuda_separator(*output) : 0;
    case M_NO_DEFAULTS:
        return *code == SC_OK && is_resolve ? no_defaults(ctx, *output) : 0;
    case M_REVERSE_JOIN:
        if (*code == SC_OK && is_resolve) {
            sc_json *scroll = member(*output, "scroll");
            if (reverse_member(scroll, "assets") != 0 ||
                reverse_member(scroll, "localFiles") != 0)
                return -1;
        }
        return 0;
    case M_LAX_SIGNATURE:
        return swallow(code, output, SC_E_INVALID_SIGNATURE);
    case M_LAX_TRUST:
        return swallow(code, output, SC_E_INVALID_TRUST_FILE);
    case M_LAX_PAYLOAD_HASH:
        return swallow(code, output, SC_E_ALTERED_PAYLOAD);
    case M_AGREEMENT_IGNORES_ENVIRONMENT:
        return swallow(code, output, SC_E_ENVIRONMENT_DISAGREEMENT);
    case M_COHORT_BUCKET_SHIFT:
        return *code == SC_OK && strcmp(ctx->operation, "cohort") == 0
                   ? shift_bucket(*output)
                   : 0;
    case M_IGNORE_REVOCATIONS:
        return swallow(code, output, SC_E_REVOKED_RELEASE);
    case M_PREPARE_OVERWRITES_DESTINATION:
        return swallow(code, output, SC_E_EXISTING_DESTINATION);
    case M_SIGNAL_AS_EXIT_STATUS:
        return *code == SC_OK && is_run(ctx) ? signal_as_exit(*output) : 0;
    case M_RUN_IGNORES_RELEASE_ENVIRONMENT:
        return *code == SC_OK && is_run(ctx) ? drop_release_environment(ctx, *output) : 0;
    case M_PARITY_NON_FINITE_PASSES:
        return swallow(code, output, SC_E_PARITY_NON_FINITE);
    case M_PARITY_BREACH_IGNORED:
        return swallow(code, output, SC_E_PARITY_BREACH);
    case M_COMPAT_PENDING_AS_SUPPORTED:
        return *code == SC_OK && strcmp(ctx->operation, "compat") == 0
                   ? pending_as_supported(*output)
                   : 0;
    case M_MIGRATE_NOOP:
        return *code == SC_OK && strcmp(ctx->operation, "scroll-migrate") == 0
                   ? migrate_noop(ctx, *output)
                   : 0;
    case M_CALENDAR_UNCHECKED:
    case M_LEAP_YEARS_IGNORED:
    case M_CENTURY_LEAP_RULE_IGNORED:
    case M_LEAP_SECOND_ALLOWED:
    case M_YEAR_ZERO_REFUSED:
        return timestamps(ctx, code, output);
    case M_SCHEMA_VERSION_BY_VALUE:
        return schema_by_value(ctx, code, output);
    case M_SLUG_WITHOUT_DOTS:
        return slug_without_dots(ctx, code, output);
    case M_DUPLICATE_LICENCE_ENTRIES:
        return duplicate_licences(ctx, code, output);
    case M_ZERO_TOLERANCE_ALLOWED:
        return zero_tolerance(ctx, code, output);
    case M_UNICODE_CASE_FOLD:
        return unicode_collision(ctx, code, output);
    case M_FEFF_AS_WHITESPACE:
        return feff_as_whitespace(ctx, code, output);
    case M_COVERAGE_MINOR_IGNORED:
    case M_COVERAGE_CUBIN_CROSSES_MAJOR:
    case M_COVERAGE_ARCH_SPECIFIC_AS_PLAIN:
    case M_COVERAGE_FAMILY_AS_EXACT:
    case M_COVERAGE_FAMILY_CROSSES_MAJOR:
    case M_COVERAGE_REFUSES_UNSEEN:
        return coverage(ctx, code, output);
    case M_CUDA_ARCH_BYTE_ORDER:
        return arch_byte_order(ctx, code, output);
    case M_CHANNEL_RELEASE_UNCHECKED:
        return swallow(code, output, SC_E_CHANNEL_RELEASE_MISMATCH);
    }
    return 0;
}
