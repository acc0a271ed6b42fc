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
    M_COMPAT_PENDING_AS_SUPPORTED
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
    }
    return 0;
}
