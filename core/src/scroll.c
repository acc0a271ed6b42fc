/* SPDX-License-Identifier: Apache-2.0 */
/*
 * scroll.c — reading scrolls (docs/format-v3.md §5).
 *
 * Guarantees: the checks of §5.3 run in exactly the documented order and the
 * first failure is the only one reported, with one code; the effective
 * scroll is built by appending defaults in the documented order; no work is
 * quadratic in the size of the input (set look-ups go through a hash set);
 * directory listings are sorted by bytes, never taken in file-system order.
 */
#include "scrollcase/scroll.h"
#include "scrollcase/remedy.h"

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "check.h"
#include "scrollcase/file.h"
#include "scrollcase/path.h"


/* ------------------------------------------------------------------------
 * A small set of byte strings (open addressing, FNV-1a).  Used for the
 * duplicate checks so that hostile scrolls cannot make them quadratic.
 */
typedef struct strset {
    const char **keys;
    size_t *lens;
    size_t *values;
    size_t cap, count;
} strset;

static uint64_t fnv1a(const char *s, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++) {
        h ^= (unsigned char)s[i];
        h *= 1099511628211ull;
    }
    return h;
}

static int strset_init(strset *s, size_t expected)
{
    size_t cap = 16;
    while (cap < expected * 2 + 1)
        cap *= 2;
    s->keys = calloc(cap, sizeof *s->keys);
    s->lens = calloc(cap, sizeof *s->lens);
    s->values = calloc(cap, sizeof *s->values);
    s->cap = cap;
    s->count = 0;
    if (s->keys == NULL || s->lens == NULL || s->values == NULL) {
        free(s->keys);
        free(s->lens);
        free(s->values);
        return -1;
    }
    return 0;
}

static void strset_free(strset *s)
{
    free(s->keys);
    free(s->lens);
    free(s->values);
}

/*
 * Look key up; if absent, insert it with value (the key is borrowed, not
 * copied) and return 0; if present, store its value in *found and return 1.
 * The set is sized by strset_init for all insertions that will happen.
 */
static int strset_add(strset *s, const char *key, size_t len, size_t value,
                      size_t *found)
{
    size_t i = (size_t)(fnv1a(key, len) & (s->cap - 1));
    while (s->keys[i] != NULL) {
        if (s->lens[i] == len && memcmp(s->keys[i], key, len) == 0) {
            if (found)
                *found = s->values[i];
            return 1;
        }
        i = (i + 1) & (s->cap - 1);
    }
    s->keys[i] = key;
    s->lens[i] = len;
    s->values[i] = value;
    s->count++;
    return 0;
}

static int strset_has(const strset *s, const char *key, size_t len)
{
    size_t i = (size_t)(fnv1a(key, len) & (s->cap - 1));
    while (s->keys[i] != NULL) {
        if (s->lens[i] == len && memcmp(s->keys[i], key, len) == 0)
            return 1;
        i = (i + 1) & (s->cap - 1);
    }
    return 0;
}

/* ------------------------------------------------------------------------
 * Messages.  Every scroll failure is "<file>: <field> <what>".
 */
typedef sc_check ctx; /* prefix: the file name */

static sc_code oom(ctx *c)
{
    return sc_error_set(c->err, SC_E_OUT_OF_MEMORY, NULL, "%s: out of memory",
                        c->prefix);
}

/* ------------------------------------------------------------------------
 * Schema checks (§5.5).  Each returns SC_OK or the failure.
 */
static sc_code want_pattern(ctx *c, const sc_json *v, const char *field,
                            int (*ok)(const char *), const char *what)
{
    sc_code rc = sc_check_text(c, v, field);
    if (rc != SC_OK)
        return rc;
    if (sc_json_cstr(v) == NULL || !ok(v->string))
        return sc_check_fail_code(c, SC_E_INVALID_SCROLL, field,
                    "%s does not match the required pattern (%s)", field, what);
    return SC_OK;
}

static sc_code want_required(ctx *c, const sc_json *obj, const char *field,
                             const char *const *names, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (sc_json_get(obj, names[i]) == NULL)
            return sc_check_fail_code(c, SC_E_INVALID_SCROLL, field, "%s.%s is required",
                        field, names[i]);
    return SC_OK;
}

static int in_list(const char *const *names, size_t n, const sc_json *member)
{
    if (strlen(member->key) != member->key_length)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (strcmp(names[i], member->key) == 0)
            return 1;
    return 0;
}

static sc_code want_known(ctx *c, const sc_json *obj, const char *field,
                          const char *const *names, size_t n)
{
    for (const sc_json *m = obj->child; m; m = m->next)
        if (!in_list(names, n, m)) {
            char f[SC_FIELD_MAX];
            sc_field_member(f, field, m->key);
            return sc_check_fail_code(c, SC_E_INVALID_SCROLL, f, "%s is not allowed", f);
        }
    return SC_OK;
}

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* An array whose every element passes check. */
static sc_code want_array_of(ctx *c, const sc_json *v, const char *field,
                             size_t min_items,
                             sc_code (*check)(ctx *, const sc_json *, const char *))
{
    sc_code rc = sc_check_type(c, v, SC_JSON_ARRAY, field);
    if (rc != SC_OK)
        return rc;
    if (v->length < min_items)
        return sc_check_fail_code(c, SC_E_INVALID_SCROLL, field,
                    "%s must contain at least %zu item(s)", field, min_items);
    size_t i = 0;
    for (const sc_json *e = v->child; e; e = e->next, i++) {
        char f[SC_FIELD_MAX];
        sc_field_index(f, field, i);
        if ((rc = check(c, e, f)) != SC_OK)
            return rc;
    }
    return SC_OK;
}

static sc_code check_module(ctx *c, const sc_json *v, const char *field)
{
    return want_pattern(c, v, field, sc_is_dotted_name, "a dotted Python module name");
}

/* A program argument (5.2): a string without U+0000, which no argv entry can
 * carry; refused here so that the scroll, not its release, is refused. */
static sc_code check_string_arg(ctx *c, const sc_json *v, const char *field)
{
    sc_code rc = sc_check_type(c, v, SC_JSON_STRING, field);
    if (rc != SC_OK)
        return rc;
    if (memchr(v->string, '\0', v->length) != NULL)
        return sc_check_fail_code(c, SC_E_INVALID_SCROLL, field,
                    "%s holds U+0000, which no program argument can carry", field);
    return SC_OK;
}

static sc_code check_asset(ctx *c, const sc_json *v, const char *field)
{
    static const char *const keys[] = {"url", "relativePath", "sizeBytes", "sha256"};
    char f[SC_FIELD_MAX];
    sc_code rc;
    if ((rc = sc_check_type(c, v, SC_JSON_OBJECT, field)) != SC_OK ||
        (rc = want_required(c, v, field, keys, 4)) != SC_OK)
        return rc;
    sc_field_member(f, field, "url");
    if ((rc = sc_check_text(c, sc_json_get(v, "url"), f)) != SC_OK)
        return rc;
    sc_field_member(f, field, "relativePath");
    if ((rc = sc_check_text(c, sc_json_get(v, "relativePath"), f)) != SC_OK)
        return rc;
    sc_field_member(f, field, "sizeBytes");
    if ((rc = sc_check_integer(c, sc_json_get(v, "sizeBytes"), f, 1,
                           (uint64_t)SC_JSON_MAX_SAFE_INTEGER)) != SC_OK)
        return rc;
    sc_field_member(f, field, "sha256");
    if ((rc = sc_check_lower_hex(c, sc_json_get(v, "sha256"), f, 64)) != SC_OK)
        return rc;
    return want_known(c, v, field, keys, 4);
}

static sc_code check_asset_archive(ctx *c, const sc_json *v, const char *field)
{
    static const char *const keys[] = {"relativePath", "format", "destination",
                                       "stripComponents", "removeAfterExtract"};
    char f[SC_FIELD_MAX];
    sc_code rc;
    const sc_json *m;
    if ((rc = sc_check_type(c, v, SC_JSON_OBJECT, field)) != SC_OK ||
        (rc = want_required(c, v, field, keys, 3)) != SC_OK)
        return rc;
    sc_field_member(f, field, "relativePath");
    if ((rc = sc_check_text(c, sc_json_get(v, "relativePath"), f)) != SC_OK)
        return rc;
    sc_field_member(f, field, "format");
    m = sc_json_get(v, "format");
    if ((rc = sc_check_type(c, m, SC_JSON_STRING, f)) != SC_OK)
        return rc;
    if (sc_json_cstr(m) == NULL ||
        (strcmp(m->string, "zip") != 0 && strcmp(m->string, "tar.gz") != 0))
        return sc_check_fail_code(c, SC_E_INVALID_SCROLL, f, "%s must be \"zip\" or \"tar.gz\"", f);
    sc_field_member(f, field, "destination");
    if ((rc = sc_check_text(c, sc_json_get(v, "destination"), f)) != SC_OK)
        return rc;
    if ((m = sc_json_get(v, "stripComponents")) != NULL) {
        sc_field_member(f, field, "stripComponents");
        if ((rc = sc_check_integer(c, m, f, 0, (uint64_t)SC_JSON_MAX_SAFE_INTEGER)) != SC_OK)
            return rc;
    }
    if ((m = sc_json_get(v, "removeAfterExtract")) != NULL) {
        sc_field_member(f, field, "removeAfterExtract");
        if ((rc = sc_check_type(c, m, SC_JSON_BOOL, f)) != SC_OK)
            return rc;
    }
    return want_known(c, v, field, keys, COUNT(keys));
}

static sc_code check_local_file(ctx *c, const sc_json *v, const char *field)
{
    static const char *const keys[] = {"sourcePath", "relativePath", "sha256"};
    char f[SC_FIELD_MAX];
    sc_code rc;
    const sc_json *m;
    if ((rc = sc_check_type(c, v, SC_JSON_OBJECT, field)) != SC_OK ||
        (rc = want_required(c, v, field, keys, 2)) != SC_OK)
        return rc;
    sc_field_member(f, field, "sourcePath");
    if ((rc = sc_check_text(c, sc_json_get(v, "sourcePath"), f)) != SC_OK)
        return rc;
    sc_field_member(f, field, "relativePath");
    if ((rc = sc_check_text(c, sc_json_get(v, "relativePath"), f)) != SC_OK)
        return rc;
    if ((m = sc_json_get(v, "sha256")) != NULL) {
        sc_field_member(f, field, "sha256");
        if ((rc = sc_check_lower_hex(c, m, f, 64)) != SC_OK)
            return rc;
    }
    return want_known(c, v, field, keys, COUNT(keys));
}

static sc_code check_path_text(ctx *c, const sc_json *v, const char *field)
{
    return sc_check_text(c, v, field);
}

static sc_code check_compatibility(ctx *c, const sc_json *v, const char *field)
{
    static const char *const texts[] = {"minHostAppVersion",
                                        "maxHostAppVersionExclusive",
                                        "minMacosVersion", "minNvidiaDriverVersion"};
    char f[SC_FIELD_MAX];
    sc_code rc;
    if ((rc = sc_check_type(c, v, SC_JSON_OBJECT, field)) != SC_OK)
        return rc;
    for (size_t i = 0; i < COUNT(texts); i++) {
        const sc_json *m = sc_json_get(v, texts[i]);
        if (m == NULL)
            continue;
        sc_field_member(f, field, texts[i]);
        if ((rc = sc_check_text(c, m, f)) != SC_OK)
            return rc;
    }
    const sc_json *ram = sc_json_get(v, "minRamGb");
    if (ram != NULL) {
        sc_field_member(f, field, "minRamGb");
        if ((rc = sc_check_type(c, ram, SC_JSON_NUMBER, f)) != SC_OK)
            return rc;
        if (!(ram->number > 0))
            return sc_check_fail_code(c, SC_E_INVALID_SCROLL, f, "%s must be greater than 0", f);
    }
    return SC_OK; /* an open object: other members are allowed */
}

static sc_code check_environment(ctx *c, const sc_json *v, const char *field)
{
    sc_code rc;
    if ((rc = sc_check_type(c, v, SC_JSON_OBJECT, field)) != SC_OK)
        return rc;
    for (const sc_json *m = v->child; m; m = m->next) {
        char f[SC_FIELD_MAX];
        sc_field_member(f, field, m->key);
        if (m->key_length == 0 || strlen(m->key) != m->key_length ||
            strchr(m->key, '=') != NULL)
            return sc_check_fail_code(c, SC_E_INVALID_SCROLL, field,
                        "%s property name \"%s\" does not match the required "
                        "pattern (no '=', no NUL, not empty)", field, m->key);
        if ((rc = sc_check_type(c, m, SC_JSON_STRING, f)) != SC_OK)
            return rc;
        if (strlen(m->string) != m->length)
            return sc_check_fail_code(c, SC_E_INVALID_SCROLL, f, "%s must not contain NUL", f);
    }
    return SC_OK;
}

static sc_code check_self_test(ctx *c, const sc_json *v, const char *field)
{
    static const char *const keys[] = {"imports", "files", "pythonCode",
                                       "pythonFile", "timeoutSeconds"};
    char f[SC_FIELD_MAX];
    sc_code rc;
    const sc_json *m;
    if ((rc = sc_check_type(c, v, SC_JSON_OBJECT, field)) != SC_OK ||
        (rc = want_required(c, v, field, keys, 1)) != SC_OK)
        return rc;
    sc_field_member(f, field, "imports");
    if ((rc = want_array_of(c, sc_json_get(v, "imports"), f, 1, check_module)) != SC_OK)
        return rc;
    if ((m = sc_json_get(v, "files")) != NULL) {
        sc_field_member(f, field, "files");
        if ((rc = want_array_of(c, m, f, 0, check_path_text)) != SC_OK)
            return rc;
    }
    if ((m = sc_json_get(v, "pythonCode")) != NULL) {
        sc_field_member(f, field, "pythonCode");
        if ((rc = sc_check_text(c, m, f)) != SC_OK)
            return rc;
    }
    if ((m = sc_json_get(v, "pythonFile")) != NULL) {
        sc_field_member(f, field, "pythonFile");
        if ((rc = sc_check_text(c, m, f)) != SC_OK)
            return rc;
    }
    if ((m = sc_json_get(v, "timeoutSeconds")) != NULL) {
        sc_field_member(f, field, "timeoutSeconds");
        if ((rc = sc_check_integer(c, m, f, 1, SC_SELF_TEST_TIMEOUT_MAX)) != SC_OK)
            return rc;
    }
    if ((rc = want_known(c, v, field, keys, COUNT(keys))) != SC_OK)
        return rc;
    if (sc_json_get(v, "pythonCode") && sc_json_get(v, "pythonFile"))
        return sc_check_fail_code(c, SC_E_INVALID_SCROLL, field,
                    "%s declares both pythonCode and pythonFile; choose one", field);
    return SC_OK;
}

static sc_code check_execution(ctx *c, const sc_json *v, const char *field)
{
    static const char *const script_keys[] = {"kind", "script", "defaultArgs"};
    static const char *const module_keys[] = {"kind", "module", "defaultArgs"};
    char f[SC_FIELD_MAX];
    sc_code rc;
    if ((rc = sc_check_type(c, v, SC_JSON_OBJECT, field)) != SC_OK ||
        (rc = want_required(c, v, field, script_keys, 1)) != SC_OK)
        return rc;
    const sc_json *kind = sc_json_get(v, "kind");
    sc_field_member(f, field, "kind");
    if ((rc = sc_check_type(c, kind, SC_JSON_STRING, f)) != SC_OK)
        return rc;
    int script = strcmp(kind->string, "python-script") == 0;
    int module = strcmp(kind->string, "python-module") == 0;
    if ((!script && !module) || strlen(kind->string) != kind->length)
        return sc_check_fail_code(c, SC_E_INVALID_SCROLL, f,
                    "%s must be \"python-script\" or \"python-module\"", f);
    const char *const *keys = script ? script_keys : module_keys;
    if ((rc = want_required(c, v, field, keys, 3)) != SC_OK)
        return rc;
    sc_field_member(f, field, keys[1]);
    rc = script ? sc_check_text(c, sc_json_get(v, keys[1]), f)
                : check_module(c, sc_json_get(v, keys[1]), f);
    if (rc != SC_OK)
        return rc;
    sc_field_member(f, field, "defaultArgs");
    if ((rc = want_array_of(c, sc_json_get(v, "defaultArgs"), f, 0,
                            check_string_arg)) != SC_OK)
        return rc;
    return want_known(c, v, field, keys, 3);
}

static sc_code check_accelerator_name(ctx *c, const sc_json *v, const char *field)
{
    sc_code rc = sc_check_type(c, v, SC_JSON_STRING, field);
    if (rc != SC_OK)
        return rc;
    if (strcmp(v->string, "cpu") && strcmp(v->string, "metal") &&
        strcmp(v->string, "cuda"))
        return sc_check_fail_code(c, SC_E_INVALID_SCROLL, field,
                    "%s must be \"cpu\", \"metal\" or \"cuda\"", field);
    if (strlen(v->string) != v->length)
        return sc_check_fail_code(c, SC_E_INVALID_SCROLL, field,
                    "%s must be \"cpu\", \"metal\" or \"cuda\"", field);
    return SC_OK;
}

static sc_code check_parity(ctx *c, const sc_json *v, const char *field)
{
    static const char *const keys[] = {"script", "accelerators", "tolerances"};
    static const char *const tol_keys[] = {"absolute", "relative", "minimumCosine"};
    char f[SC_FIELD_MAX];
    sc_code rc;
    if ((rc = sc_check_type(c, v, SC_JSON_OBJECT, field)) != SC_OK ||
        (rc = want_required(c, v, field, keys, 3)) != SC_OK)
        return rc;
    sc_field_member(f, field, "script");
    if ((rc = sc_check_text(c, sc_json_get(v, "script"), f)) != SC_OK)
        return rc;
    const sc_json *acc = sc_json_get(v, "accelerators");
    sc_field_member(f, field, "accelerators");
    if ((rc = want_array_of(c, acc, f, 2, check_accelerator_name)) != SC_OK)
        return rc;
    /* distinct: at most three names exist, so a bit set does */
    unsigned seen = 0;
    for (const sc_json *e = acc->child; e; e = e->next) {
        unsigned bit = e->string[0] == 'c' ? (e->string[1] == 'p' ? 1u : 4u) : 2u;
        if (seen & bit)
            return sc_check_fail_code(c, SC_E_INVALID_SCROLL, f,
                        "%s names \"%s\" twice", f, e->string);
        seen |= bit;
    }
    const sc_json *tol = sc_json_get(v, "tolerances");
    sc_field_member(f, field, "tolerances");
    if ((rc = sc_check_type(c, tol, SC_JSON_OBJECT, f)) != SC_OK)
        return rc;
    if (tol->length < 1)
        return sc_check_fail_code(c, SC_E_INVALID_SCROLL, f,
                    "%s must declare at least one tolerance", f);
    for (size_t i = 0; i < COUNT(tol_keys); i++) {
        const sc_json *m = sc_json_get(tol, tol_keys[i]);
        if (m == NULL)
            continue;
        char g[SC_FIELD_MAX];
        sc_field_member(g, f, tol_keys[i]);
        if ((rc = sc_check_type(c, m, SC_JSON_NUMBER, g)) != SC_OK)
            return rc;
        if (i < 2 && !(m->number > 0))
            return sc_check_fail_code(c, SC_E_INVALID_SCROLL, g, "%s must be greater than 0", g);
        if (i == 2 && !(m->number <= 1))
            return sc_check_fail_code(c, SC_E_INVALID_SCROLL, g, "%s must be at most 1", g);
    }
    if ((rc = want_known(c, tol, f, tol_keys, COUNT(tol_keys))) != SC_OK)
        return rc;
    return want_known(c, v, field, keys, COUNT(keys));
}

/* cuda (5.2): {deviceCode: "runtime", reason: text}, the declaration that
 * the box compiles its device code at run time (19.10). */
static sc_code check_cuda(ctx *c, const sc_json *v, const char *field)
{
    static const char *const keys[] = {"deviceCode", "reason"};
    char f[SC_FIELD_MAX];
    sc_code rc;
    if ((rc = sc_check_type(c, v, SC_JSON_OBJECT, field)) != SC_OK ||
        (rc = want_required(c, v, field, keys, COUNT(keys))) != SC_OK)
        return rc;
    const sc_json *dc = sc_json_get(v, "deviceCode");
    sc_field_member(f, field, "deviceCode");
    if ((rc = sc_check_type(c, dc, SC_JSON_STRING, f)) != SC_OK)
        return rc;
    if (strcmp(dc->string, "runtime") != 0 || dc->length != strlen("runtime"))
        return sc_check_fail_code(c, SC_E_INVALID_SCROLL, f, "%s must be \"runtime\"", f);
    sc_field_member(f, field, "reason");
    if ((rc = sc_check_text(c, sc_json_get(v, "reason"), f)) != SC_OK)
        return rc;
    return want_known(c, v, field, keys, COUNT(keys));
}

static int is_schema_id(const char *s)
{
    return strcmp(s, SC_SCROLL_SCHEMA_ID) == 0;
}

static int is_weights(const char *s)
{
    return strcmp(s, "embed") == 0 || strcmp(s, "on-demand") == 0;
}

sc_code sc_scroll_check_version(const sc_json *doc, const char *name,
                                sc_error *err)
{
    const sc_json *v = sc_json_get(doc, "schemaVersion");
    if (v == NULL)
        return SC_OK;
    uint64_t n = 0;
    if (sc_json_is(v, SC_JSON_NUMBER) && sc_json_uint53(v, &n)) {
        if (n == SC_SCROLL_SCHEMA_VERSION)
            return SC_OK;
        if (n == 1 || n == 2)
            return sc_error_set(err, SC_E_DEPRECATED_SCHEMA_VERSION, name,
                                "%s: schemaVersion %d is deprecated; this is a v%d "
                                "scroll, convert it with `" SC_REMEDY_MIGRATE "`",
                                name, (int)n, (int)n);
    }
    char shown[48];
    sc_json_describe_value(v, shown, sizeof shown);
    return sc_error_set(err, SC_E_UNSUPPORTED_SCHEMA_VERSION, name,
                        "%s: unsupported schemaVersion %s; it must be the integer 3 (no fraction, "
                        "no exponent)", name,
                        shown);
}

/* The schema step (§5.3 step 5, order of §5.5). */
static sc_code check_schema(ctx *c, const sc_json *s, sc_target *target,
                            int *has_target)
{
    static const char *const required[] = {
        "schemaVersion", "boxId", "modelId", "runtimeId", "version",
        "sourceRevision", "pythonVersion", "selfTest", "pixiVersion"};
    static const char *const members[] = {
        "$schema", "schemaVersion", "scrollId", "scrollVersion", "boxId",
        "modelId", "runtimeId", "version", "sourceRevision", "target",
        "compatibility", "pythonVersion", "pixiVersion",
        "condaDependencyLicenseAudit", "pythonEntryPoint", "modelCacheSubdir",
        "environment", "assetBaseUrl", "assets", "assetArchives", "localFiles",
        "prunePaths", "uncompressedPaths", "selfTest", "weights", "execution",
        "parity", "cuda"};
    sc_code rc;
    if ((rc = want_required(c, s, "$", required, COUNT(required))) != SC_OK)
        return rc;
    *has_target = 0;
    for (size_t i = 0; i < COUNT(members); i++) {
        const char *k = members[i];
        const sc_json *v = sc_json_get(s, k);
        char f[SC_FIELD_MAX];
        if (v == NULL)
            continue;
        sc_field_member(f, "$", k);
        if (strcmp(k, "$schema") == 0) {
            rc = sc_check_type(c, v, SC_JSON_STRING, f);
            if (rc == SC_OK && !is_schema_id(v->string))
                rc = sc_check_fail_code(c, SC_E_INVALID_SCROLL, f, "%s must equal \"%s\"", f,
                          SC_SCROLL_SCHEMA_ID);
        } else if (strcmp(k, "schemaVersion") == 0) {
            rc = sc_scroll_check_version(s, c->prefix, c->err);
        } else if (!strcmp(k, "boxId") || !strcmp(k, "modelId") ||
                   !strcmp(k, "runtimeId")) {
            rc = want_pattern(c, v, f, sc_is_slug, "^[a-z0-9]+(?:[-.][a-z0-9]+)*$");
        } else if (strcmp(k, "target") == 0) {
            rc = sc_target_from_json(v, f, target, c->err);
            if (rc != SC_OK)
                sc_error_prefix(c->err, c->prefix);
            *has_target = 1;
        } else if (strcmp(k, "compatibility") == 0) {
            rc = check_compatibility(c, v, f);
        } else if (strcmp(k, "environment") == 0) {
            rc = check_environment(c, v, f);
        } else if (strcmp(k, "assets") == 0) {
            rc = want_array_of(c, v, f, 0, check_asset);
        } else if (strcmp(k, "assetArchives") == 0) {
            rc = want_array_of(c, v, f, 0, check_asset_archive);
        } else if (strcmp(k, "localFiles") == 0) {
            rc = want_array_of(c, v, f, 0, check_local_file);
        } else if (!strcmp(k, "prunePaths") || !strcmp(k, "uncompressedPaths")) {
            rc = want_array_of(c, v, f, 0, check_path_text);
        } else if (strcmp(k, "selfTest") == 0) {
            rc = check_self_test(c, v, f);
        } else if (strcmp(k, "weights") == 0) {
            rc = sc_check_type(c, v, SC_JSON_STRING, f);
            if (rc == SC_OK && (!is_weights(v->string) || strlen(v->string) != v->length))
                rc = sc_check_fail_code(c, SC_E_INVALID_SCROLL, f,
                          "%s must be \"embed\" or \"on-demand\"", f);
        } else if (strcmp(k, "execution") == 0) {
            rc = check_execution(c, v, f);
        } else if (strcmp(k, "parity") == 0) {
            rc = check_parity(c, v, f);
        } else if (strcmp(k, "cuda") == 0) {
            rc = check_cuda(c, v, f);
        } else {
            /* every other member is a text (paths are checked in step 9) */
            rc = sc_check_text(c, v, f);
        }
        if (rc != SC_OK)
            return rc;
    }
    return want_known(c, s, "$", members, COUNT(members));
}

/* ------------------------------------------------------------------------
 * The join (§5.4).
 */
static int append_copy(sc_json *array, const sc_json *v)
{
    sc_json *cp = sc_json_copy(v);
    return cp == NULL ? -1 : sc_json_array_append(array, cp);
}

/* Concatenate a then b; dedupe drops later exact duplicate strings. */
static sc_json *concat(const sc_json *a, const sc_json *b, int dedupe)
{
    sc_json *out = sc_json_new_array();
    strset seen;
    if (out == NULL)
        return NULL;
    if (dedupe && strset_init(&seen, a->length + b->length) != 0) {
        sc_json_free(out);
        return NULL;
    }
    const sc_json *parts[2] = {a, b};
    for (int p = 0; p < 2; p++)
        for (const sc_json *e = parts[p]->child; e; e = e->next) {
            if (dedupe && e->type == SC_JSON_STRING &&
                strset_add(&seen, e->string, e->length, 0, NULL))
                continue;
            if (append_copy(out, e) != 0) {
                if (dedupe)
                    strset_free(&seen);
                sc_json_free(out);
                return NULL;
            }
        }
    if (dedupe)
        strset_free(&seen);
    return out;
}

/* Merge objects by key: a's members in order, b wins, b's new keys after. */
static sc_json *merge(const sc_json *a, const sc_json *b)
{
    sc_json *out = sc_json_copy(a);
    if (out == NULL)
        return NULL;
    for (const sc_json *m = b->child; m; m = m->next) {
        sc_json *cp = sc_json_copy(m);
        if (cp == NULL || sc_json_object_set(out, m->key, cp) != 0) {
            sc_json_free(out);
            return NULL;
        }
    }
    return out;
}

static sc_json *merge_self_test(const sc_json *a, const sc_json *b)
{
    sc_json *out = sc_json_copy(a);
    if (out == NULL)
        return NULL;
    if (sc_json_get(b, "pythonCode") || sc_json_get(b, "pythonFile")) {
        sc_json_object_remove(out, "pythonCode");
        sc_json_object_remove(out, "pythonFile");
    }
    for (const sc_json *m = b->child; m; m = m->next) {
        const sc_json *mine = sc_json_get(out, m->key);
        sc_json *v;
        if ((strcmp(m->key, "imports") == 0 || strcmp(m->key, "files") == 0) &&
            sc_json_is(mine, SC_JSON_ARRAY) && sc_json_is(m, SC_JSON_ARRAY))
            v = concat(mine, m, 1);
        else
            v = sc_json_copy(m);
        if (v == NULL || sc_json_object_set(out, m->key, v) != 0) {
            sc_json_free(out);
            return NULL;
        }
    }
    return out;
}

static sc_json *join_member(const char *key, const sc_json *base,
                            const sc_json *frag)
{
    int arrays = sc_json_is(base, SC_JSON_ARRAY) && sc_json_is(frag, SC_JSON_ARRAY);
    int objects = sc_json_is(base, SC_JSON_OBJECT) && sc_json_is(frag, SC_JSON_OBJECT);
    if (arrays && (!strcmp(key, "assets") || !strcmp(key, "assetArchives") ||
                   !strcmp(key, "localFiles")))
        return concat(base, frag, 0);
    if (arrays && (!strcmp(key, "prunePaths") || !strcmp(key, "uncompressedPaths")))
        return concat(base, frag, 1);
    if (objects && (!strcmp(key, "compatibility") || !strcmp(key, "environment")))
        return merge(base, frag);
    if (objects && !strcmp(key, "selfTest"))
        return merge_self_test(base, frag);
    return sc_json_copy(frag);
}

static sc_json *join(const sc_json *base, const sc_json *frag)
{
    sc_json *out = sc_json_copy(base);
    if (out == NULL)
        return NULL;
    for (const sc_json *m = frag->child; m; m = m->next) {
        if (strcmp(m->key, "extends") == 0 && strlen(m->key) == m->key_length)
            continue;
        const sc_json *b = sc_json_get(out, m->key);
        sc_json *v = b ? join_member(m->key, b, m) : sc_json_copy(m);
        if (v == NULL || sc_json_object_set(out, m->key, v) != 0) {
            sc_json_free(out);
            return NULL;
        }
    }
    return out;
}

/* ------------------------------------------------------------------------
 * Steps after the schema.
 */
static int add_default(sc_json *obj, const char *key, sc_json *v)
{
    if (v == NULL)
        return -1;
    if (sc_json_get(obj, key) != NULL) {
        sc_json_free(v);
        return 0;
    }
    return sc_json_object_append(obj, key, v);
}

static sc_code fill_defaults(ctx *c, sc_json *s, const char *box_id,
                             const char *target_id, const sc_target *t)
{
    size_t n = strlen(box_id) + strlen(target_id) + 16;
    char *scroll_id = malloc(n);
    char *cache = malloc(n);
    if (scroll_id == NULL || cache == NULL) {
        free(scroll_id);
        free(cache);
        return oom(c);
    }
    snprintf(scroll_id, n, "%s-%s", box_id, target_id);
    snprintf(cache, n, "model-cache/%s", box_id);
    int bad = add_default(s, "scrollId", sc_json_new_string(scroll_id));
    bad |= add_default(s, "scrollVersion", sc_json_new_string("1.0.0"));
    bad |= add_default(s, "compatibility", sc_json_new_object());
    bad |= add_default(s, "pythonEntryPoint",
                       sc_json_new_string(sc_target_python_entry_point(t)));
    bad |= add_default(s, "modelCacheSubdir", sc_json_new_string(cache));
    bad |= add_default(s, "assets", sc_json_new_array());
    sc_json *st = sc_json_get(s, "selfTest");
    bad |= add_default(st, "files", sc_json_new_array());
    bad |= add_default(st, "timeoutSeconds",
                       sc_json_new_number(SC_SELF_TEST_TIMEOUT_DEFAULT));
    free(scroll_id);
    free(cache);
    return bad ? oom(c) : SC_OK;
}

static sc_code check_path(ctx *c, const sc_json *v, const char *field)
{
    if (v == NULL)
        return SC_OK;
    sc_code rc = sc_path_check(v->string, v->length, field, c->err);
    if (rc != SC_OK)
        sc_error_prefix(c->err, c->prefix);
    return rc;
}

static sc_code check_item_paths(ctx *c, const sc_json *s, const char *array,
                                const char *k1, const char *k2)
{
    const sc_json *a = sc_json_get(s, array);
    size_t i = 0;
    sc_code rc;
    for (const sc_json *e = a ? a->child : NULL; e; e = e->next, i++) {
        char base[SC_FIELD_MAX], f[SC_FIELD_MAX];
        snprintf(base, sizeof base, "$.%s[%zu]", array, i);
        sc_field_member(f, base, k1);
        if ((rc = check_path(c, sc_json_get(e, k1), f)) != SC_OK)
            return rc;
        if (k2 != NULL) {
            sc_field_member(f, base, k2);
            if ((rc = check_path(c, sc_json_get(e, k2), f)) != SC_OK)
                return rc;
        }
    }
    return SC_OK;
}

static sc_code check_list_paths(ctx *c, const sc_json *a, const char *field)
{
    size_t i = 0;
    sc_code rc;
    for (const sc_json *e = a ? a->child : NULL; e; e = e->next, i++) {
        char f[SC_FIELD_MAX];
        sc_field_index(f, field, i);
        if ((rc = check_path(c, e, f)) != SC_OK)
            return rc;
    }
    return SC_OK;
}

/* Step 9. */
static sc_code check_paths(ctx *c, const sc_json *s)
{
    sc_code rc;
    const sc_json *st = sc_json_get(s, "selfTest");
    const sc_json *ex = sc_json_get(s, "execution");
    const sc_json *par = sc_json_get(s, "parity");
    if ((rc = check_path(c, sc_json_get(s, "modelCacheSubdir"), "$.modelCacheSubdir")) ||
        (rc = check_item_paths(c, s, "assets", "relativePath", NULL)) ||
        (rc = check_item_paths(c, s, "assetArchives", "relativePath", "destination")) ||
        (rc = check_item_paths(c, s, "localFiles", "sourcePath", "relativePath")) ||
        (rc = check_list_paths(c, sc_json_get(s, "prunePaths"), "$.prunePaths")) ||
        (rc = check_list_paths(c, sc_json_get(s, "uncompressedPaths"), "$.uncompressedPaths")) ||
        (rc = check_list_paths(c, sc_json_get(st, "files"), "$.selfTest.files")) ||
        (rc = check_path(c, sc_json_get(st, "pythonFile"), "$.selfTest.pythonFile")))
        return rc;
    if (ex != NULL && strcmp(sc_json_get(ex, "kind")->string, "python-script") == 0 &&
        (rc = check_path(c, sc_json_get(ex, "script"), "$.execution.script")))
        return rc;
    if (par != NULL && (rc = check_path(c, sc_json_get(par, "script"), "$.parity.script")))
        return rc;
    return check_path(c, sc_json_get(s, "condaDependencyLicenseAudit"),
                      "$.condaDependencyLicenseAudit");
}

/* Step 10: every asset archive expands a declared asset or local file. */
static sc_code check_archive_sources(ctx *c, const sc_json *s)
{
    const sc_json *archives = sc_json_get(s, "assetArchives");
    if (archives == NULL || archives->length == 0)
        return SC_OK;
    const sc_json *assets = sc_json_get(s, "assets");
    const sc_json *locals = sc_json_get(s, "localFiles");
    size_t n = assets->length + (locals ? locals->length : 0);
    strset declared, used;
    if (strset_init(&declared, n) != 0)
        return oom(c);
    if (strset_init(&used, archives->length) != 0) {
        strset_free(&declared);
        return oom(c);
    }
    const sc_json *lists[2] = {assets, locals};
    for (int l = 0; l < 2; l++)
        for (const sc_json *e = lists[l] ? lists[l]->child : NULL; e; e = e->next) {
            const sc_json *p = sc_json_get(e, "relativePath");
            strset_add(&declared, p->string, p->length, 0, NULL);
        }
    sc_code rc = SC_OK;
    size_t i = 0;
    for (const sc_json *e = archives->child; e && rc == SC_OK; e = e->next, i++) {
        const sc_json *p = sc_json_get(e, "relativePath");
        char f[SC_FIELD_MAX];
        snprintf(f, sizeof f, "$.assetArchives[%zu].relativePath", i);
        if (!strset_has(&declared, p->string, p->length))
            rc = sc_check_fail_code(c, SC_E_INVALID_SCROLL, f,
                      "%s names %s, which is neither a declared asset nor a "
                      "local file", f, p->string);
        else if (strset_add(&used, p->string, p->length, i, NULL))
            rc = sc_check_fail_code(c, SC_E_INVALID_SCROLL, f,
                      "%s names %s, which another asset archive already expands",
                      f, p->string);
    }
    strset_free(&declared);
    strset_free(&used);
    return rc;
}

/* Step 11: assets and local files claim distinct paths (ASCII case folded). */
static sc_code check_destinations(ctx *c, const sc_json *s)
{
    const sc_json *lists[2] = {sc_json_get(s, "assets"), sc_json_get(s, "localFiles")};
    static const char *const what[2] = {"asset", "local file"};
    size_t n = 0;
    for (int l = 0; l < 2; l++)
        n += lists[l] ? lists[l]->length : 0;
    if (n < 2)
        return SC_OK;
    char **folded = calloc(n, sizeof *folded);
    int *kind = calloc(n, sizeof *kind);
    const char **orig = calloc(n, sizeof *orig);
    strset seen;
    if (folded == NULL || kind == NULL || orig == NULL || strset_init(&seen, n) != 0) {
        free(folded);
        free(kind);
        free(orig);
        return oom(c);
    }
    sc_code rc = SC_OK;
    size_t i = 0;
    for (int l = 0; l < 2 && rc == SC_OK; l++)
        for (const sc_json *e = lists[l] ? lists[l]->child : NULL; e && rc == SC_OK;
             e = e->next, i++) {
            const sc_json *p = sc_json_get(e, "relativePath");
            folded[i] = malloc(p->length + 1);
            if (folded[i] == NULL) {
                rc = oom(c);
                break;
            }
            for (size_t k = 0; k <= p->length; k++) {
                char ch = p->string[k];
                folded[i][k] = (ch >= 'A' && ch <= 'Z') ? (char)(ch - 'A' + 'a') : ch;
            }
            kind[i] = l;
            orig[i] = p->string;
            size_t first = 0;
            if (strset_add(&seen, folded[i], p->length, i, &first))
                rc = sc_check_fail_code(c, SC_E_ENTRY_COLLISION, p->string,
                          "the %s at %s and the %s at %s claim the same path in "
                          "the box (paths equal after ASCII case folding); one "
                          "box file has one source",
                          what[kind[first]], orig[first], what[l], p->string);
        }
    for (size_t k = 0; k < n; k++)
        free(folded[k]);
    free(folded);
    free(kind);
    free(orig);
    strset_free(&seen);
    return rc;
}

/* ------------------------------------------------------------------------
 * Resolve.
 */
static sc_code parse_object(ctx *c, const sc_scroll_source *src, sc_json **out,
                            const char *what)
{
    sc_code rc = sc_json_parse(src->bytes, src->len, out, c->err);
    if (rc != SC_OK) {
        sc_error_prefix(c->err, src->name);
        c->err->code = rc;
        return rc;
    }
    if (!sc_json_is(*out, SC_JSON_OBJECT)) {
        rc = sc_check_fail_code(c, SC_E_INVALID_SCROLL, "$", "%s must be a JSON object, received %s",
                  what, sc_json_type_name(*out));
        sc_json_free(*out);
        *out = NULL;
    }
    return rc;
}

static sc_code read_base(ctx *c, const sc_json *frag, const sc_scroll_source *base,
                         sc_json **out)
{
    const sc_json *ext = sc_json_get(frag, "extends");
    *out = NULL;
    if (ext == NULL)
        return SC_OK;
    if (!sc_json_is(ext, SC_JSON_STRING) || strcmp(ext->string, SC_SCROLL_BASE_REF) != 0 ||
        ext->length != strlen(SC_SCROLL_BASE_REF))
        return sc_check_fail_code(c, SC_E_INVALID_SCROLL, "$.extends",
                    "$.extends must be \"%s\"; the only base is the box's scroll.json",
                    SC_SCROLL_BASE_REF);
    const char *bname = base && base->name ? base->name : "../scroll.json";
    if (base == NULL || base->bytes == NULL)
        return sc_check_fail_code(c, SC_E_INVALID_SCROLL, "$.extends",
                    "extends its base %s, which does not exist", bname);
    ctx bc = {c->err, SC_E_INVALID_SCROLL, bname};
    sc_code rc = parse_object(&bc, base, out, "a base scroll");
    if (rc != SC_OK)
        return rc;
    if ((rc = sc_scroll_check_version(*out, bname, c->err)) != SC_OK)
        ;
    else if (sc_json_get(*out, "target") != NULL)
        rc = sc_check_fail_code(&bc, SC_E_INVALID_SCROLL, "$.target",
                  "a base declares a target; each target scroll declares its own");
    else if (sc_json_get(*out, "extends") != NULL)
        rc = sc_check_fail_code(&bc, SC_E_INVALID_SCROLL, "$.extends",
                  "a base extends nothing: a base is one level, not a chain");
    if (rc != SC_OK) {
        sc_json_free(*out);
        *out = NULL;
    }
    return rc;
}

void sc_scroll_free(sc_scroll *s)
{
    if (s == NULL)
        return;
    free(s->box_id);
    free(s->target_id);
    sc_json_free(s->effective);
    free(s->path);
    free(s->base_path);
    free(s);
}

sc_code sc_scroll_resolve(const sc_scroll_source *fragment,
                          const sc_scroll_source *base, const char *box_dir,
                          const char *target_dir, sc_scroll **out,
                          sc_error *err)
{
    const char *name = fragment->name ? fragment->name : "scroll.json";
    ctx c = {err, SC_E_INVALID_SCROLL, name};
    sc_json *frag = NULL, *b = NULL, *s = NULL;
    sc_scroll *res = NULL;
    sc_target target;
    int has_target = 0;
    char tid[SC_TARGET_ID_MAX];
    sc_code rc;
    *out = NULL;
    sc_error_clear(err);

    /* 2. parse; 3. version; 4. base and join */
    if ((rc = parse_object(&c, fragment, &frag, "a scroll")) != SC_OK)
        return rc;
    if ((rc = sc_scroll_check_version(frag, name, err)) != SC_OK)
        goto done;
    if ((rc = read_base(&c, frag, base, &b)) != SC_OK)
        goto done;
    if (b != NULL) {
        s = join(b, frag);
        if (s == NULL) {
            rc = oom(&c);
            goto done;
        }
    } else {
        s = frag;
        frag = NULL;
    }

    /* 5. schema */
    char joined_name[SC_ERROR_PATH_MAX];
    snprintf(joined_name, sizeof joined_name, "%s%s", name,
             b ? " (joined with its base)" : "");
    c.prefix = joined_name;
    memset(&target, 0, sizeof target);
    if ((rc = check_schema(&c, s, &target, &has_target)) != SC_OK)
        goto done;

    /* 6. weights */
    const sc_json *w = sc_json_get(s, "weights");
    if (w != NULL && strcmp(w->string, "on-demand") == 0) {
        const sc_json *arch = sc_json_get(s, "assetArchives");
        const sc_json *assets = sc_json_get(s, "assets");
        if (arch != NULL && arch->length > 0) {
            rc = sc_check_fail_code(&c, SC_E_INVALID_SCROLL, "$.weights",
                      "on-demand weights cannot be combined with assetArchives, "
                      "which are expanded at build time");
            goto done;
        }
        if (assets == NULL || assets->length == 0) {
            rc = sc_check_fail_code(&c, SC_E_INVALID_SCROLL, "$.weights",
                      "on-demand weights need at least one asset to fetch on demand");
            goto done;
        }
    }

    /* 7. target present */
    if (!has_target) {
        rc = sc_check_fail_code(&c, SC_E_INVALID_SCROLL, "$.target",
                  "the scroll declares no target");
        goto done;
    }
    sc_target_id(&target, tid, sizeof tid);

    /* 8. defaults */
    const char *box_id = sc_json_get(s, "boxId")->string;
    if ((rc = fill_defaults(&c, s, box_id, tid, &target)) != SC_OK)
        goto done;

    /* 9.–11. */
    if ((rc = check_paths(&c, s)) != SC_OK ||
        (rc = check_archive_sources(&c, s)) != SC_OK ||
        (rc = check_destinations(&c, s)) != SC_OK)
        goto done;

    /* 12. layout */
    if (box_dir != NULL && strcmp(box_dir, box_id) != 0) {
        rc = sc_check_fail_code(&c, SC_E_LAYOUT_MISMATCH, "$.boxId",
                  "the box directory %s does not match boxId %s", box_dir, box_id);
        goto done;
    }
    if (target_dir != NULL && strcmp(target_dir, tid) != 0) {
        rc = sc_check_fail_code(&c, SC_E_LAYOUT_MISMATCH, "$.target",
                  "the target directory %s does not match the declared target %s",
                  target_dir, tid);
        goto done;
    }

    /* 13. entry point */
    const sc_json *ep = sc_json_get(s, "pythonEntryPoint");
    if (strcmp(ep->string, sc_target_python_entry_point(&target)) != 0 ||
        ep->length != strlen(ep->string)) {
        rc = sc_check_fail_code(&c, SC_E_INVALID_SCROLL, "$.pythonEntryPoint",
                  "%s scrolls must use Python entry point %s",
                  sc_target_adapter_id(&target), sc_target_python_entry_point(&target));
        goto done;
    }

    /* 14. parity accelerators: each has a validation environment here */
    const sc_json *par = sc_json_get(s, "parity");
    const sc_json *accs = par ? sc_json_get(par, "accelerators") : NULL;
    for (size_t i = 0; accs != NULL && i < accs->length; i++) {
        const char *an = sc_json_at(accs, i)->string;
        sc_accel a = strcmp(an, "cpu") == 0 ? SC_ACCEL_CPU
                     : strcmp(an, "metal") == 0 ? SC_ACCEL_METAL : SC_ACCEL_CUDA;
        if (!sc_platform_validates_accelerator(target.platform, a)) {
            char f[SC_FIELD_MAX];
            sc_field_index(f, "$.parity.accelerators", i);
            rc = sc_check_fail_code(&c, SC_E_INVALID_SCROLL, f,
                      "%s is %s, but target %s defines no validation environment for "
                      "it (%s: %s)", f, an, tid, sc_target_adapter_id(&target),
                      target.platform == SC_PLATFORM_MACOS ? "cpu, metal" : "cpu, cuda");
            goto done;
        }
    }

    /* 15. a CUDA declaration needs a CUDA target */
    if (sc_json_get(s, "cuda") != NULL && target.accelerator != SC_ACCEL_CUDA) {
        rc = sc_check_fail_code(&c, SC_E_INVALID_SCROLL, "$.cuda",
                  "$.cuda declares run-time CUDA device code, but target %s is not CUDA; "
                  "remove it (it lifts a rule of the CUDA binaries gate)", tid);
        goto done;
    }

    res = calloc(1, sizeof *res);
    if (res == NULL || (res->box_id = strdup(box_id)) == NULL ||
        (res->target_id = strdup(tid)) == NULL) {
        rc = oom(&c);
        goto done;
    }
    if (b != NULL && base->name != NULL &&
        (res->base_path = strdup(base->name)) == NULL) {
        rc = oom(&c);
        goto done;
    }
    res->target = target;
    res->effective = s;
    s = NULL;
    *out = res;
    res = NULL;
    rc = SC_OK;
done:
    sc_scroll_free(res);
    sc_json_free(frag);
    sc_json_free(b);
    sc_json_free(s);
    return rc;
}

/* ------------------------------------------------------------------------
 * The workspace side: references, files, listings.
 */
static int segment_ok(const char *s, size_t n)
{
    if (n == 0 || s[0] == '.')
        return 0;
    if (n >= 2 && s[1] == ':' &&
        ((s[0] >= 'A' && s[0] <= 'Z') || (s[0] >= 'a' && s[0] <= 'z')))
        return 0; /* a drive prefix */
    for (size_t i = 0; i < n; i++)
        if (s[i] == '\\' || s[i] == '\0' || s[i] == '/')
            return 0;
    return sc_utf8_valid(s, n);
}

/* Split a reference into box (and target, or NULL). */
static sc_code split_ref(const char *ref, char **box, char **target, sc_error *err)
{
    *box = *target = NULL;
    const char *slash = strchr(ref, '/');
    size_t blen = slash ? (size_t)(slash - ref) : strlen(ref);
    if (!segment_ok(ref, blen) ||
        (slash && (strchr(slash + 1, '/') || !segment_ok(slash + 1, strlen(slash + 1)))))
        return sc_error_set(err, SC_E_INVALID_REFERENCE, ref,
                            "invalid scroll reference \"%s\"; use <boxId>/<targetId> "
                            "or <boxId>", ref);
    *box = strndup(ref, blen);
    if (slash)
        *target = strdup(slash + 1);
    if (*box == NULL || (slash && *target == NULL)) {
        free(*box);
        free(*target);
        *box = *target = NULL;
        return sc_error_set(err, SC_E_OUT_OF_MEMORY, NULL, "out of memory");
    }
    return SC_OK;
}

static char *join3(const char *a, const char *b, const char *c)
{
    char *ab = sc_path_join(a, b);
    if (ab == NULL || c == NULL)
        return ab;
    char *abc = sc_path_join(ab, c);
    free(ab);
    return abc;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted names of the subdirectories of dir (hidden ones skipped). */
static sc_code list_dirs(const char *dir, char ***names, size_t *count,
                         sc_error *err)
{
    *names = NULL;
    *count = 0;
    DIR *d = opendir(dir);
    if (d == NULL)
        return sc_error_set(err, SC_E_IO, dir, "%s: %s", dir, strerror(errno));
    size_t cap = 0;
    struct dirent *e;
    sc_code rc = SC_OK;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char *full = sc_path_join(dir, e->d_name);
        int isdir = full && sc_is_dir(full);
        free(full);
        if (!isdir)
            continue;
        if (*count == cap) {
            size_t ncap = cap ? cap * 2 : 8;
            char **nn = realloc(*names, ncap * sizeof *nn);
            if (nn == NULL) {
                rc = SC_E_OUT_OF_MEMORY;
                break;
            }
            *names = nn;
            cap = ncap;
        }
        if (((*names)[*count] = strdup(e->d_name)) == NULL) {
            rc = SC_E_OUT_OF_MEMORY;
            break;
        }
        (*count)++;
    }
    closedir(d);
    if (rc != SC_OK) {
        for (size_t i = 0; i < *count; i++)
            free((*names)[i]);
        free(*names);
        *names = NULL;
        *count = 0;
        return sc_error_set(err, rc, NULL, "out of memory");
    }
    if (*count > 1)
        qsort(*names, *count, sizeof **names, cmp_str);
    return SC_OK;
}

void sc_scroll_ref_list_free(sc_scroll_ref_list *l)
{
    if (l == NULL)
        return;
    for (size_t i = 0; i < l->count; i++)
        free(l->refs[i]);
    free(l->refs);
    l->refs = NULL;
    l->count = 0;
}

static int push_ref(sc_scroll_ref_list *l, const char *box, const char *target)
{
    char **nr = realloc(l->refs, (l->count + 1) * sizeof *nr);
    if (nr == NULL)
        return -1;
    l->refs = nr;
    size_t n = strlen(box) + strlen(target) + 2;
    if ((l->refs[l->count] = malloc(n)) == NULL)
        return -1;
    snprintf(l->refs[l->count], n, "%s/%s", box, target);
    l->count++;
    return 0;
}

/* Append the targets of one box (directories with a scroll.json). */
static sc_code box_targets(const char *scrolls_dir, const char *box,
                           sc_scroll_ref_list *out, sc_error *err)
{
    char *bdir = sc_path_join(scrolls_dir, box);
    char **names = NULL;
    size_t n = 0;
    if (bdir == NULL)
        return sc_error_set(err, SC_E_OUT_OF_MEMORY, NULL, "out of memory");
    sc_code rc = list_dirs(bdir, &names, &n, err);
    for (size_t i = 0; i < n; i++) {
        char *f = rc == SC_OK ? join3(bdir, names[i], "scroll.json") : NULL;
        if (rc == SC_OK && f == NULL)
            rc = sc_error_set(err, SC_E_OUT_OF_MEMORY, NULL, "out of memory");
        if (rc == SC_OK && sc_is_file(f) && push_ref(out, box, names[i]) != 0)
            rc = sc_error_set(err, SC_E_OUT_OF_MEMORY, NULL, "out of memory");
        free(f);
        free(names[i]);
    }
    free(names);
    free(bdir);
    return rc;
}

sc_code sc_scroll_list_refs(const char *scrolls_dir, const char *selector,
                            sc_scroll_ref_list *out, sc_error *err)
{
    out->refs = NULL;
    out->count = 0;
    sc_error_clear(err);
    if (selector == NULL) {
        if (!sc_is_dir(scrolls_dir))
            return sc_error_set(err, SC_E_SCROLL_NOT_FOUND, scrolls_dir,
                                "no scrolls found: %s is not a directory; run "
                                "scrollcase init or scrollcase new scroll",
                                scrolls_dir);
        char **boxes = NULL;
        size_t nb = 0;
        sc_code rc = list_dirs(scrolls_dir, &boxes, &nb, err);
        for (size_t i = 0; i < nb; i++) {
            if (rc == SC_OK)
                rc = box_targets(scrolls_dir, boxes[i], out, err);
            free(boxes[i]);
        }
        free(boxes);
        if (rc == SC_OK && out->count == 0)
            rc = sc_error_set(err, SC_E_SCROLL_NOT_FOUND, scrolls_dir,
                              "no scrolls found in %s", scrolls_dir);
        if (rc != SC_OK)
            sc_scroll_ref_list_free(out);
        return rc;
    }
    char *box, *target;
    sc_code rc = split_ref(selector, &box, &target, err);
    if (rc != SC_OK)
        return rc;
    char *bdir = sc_path_join(scrolls_dir, box);
    if (bdir == NULL) {
        rc = sc_error_set(err, SC_E_OUT_OF_MEMORY, NULL, "out of memory");
    } else if (!sc_is_dir(bdir)) {
        rc = sc_error_set(err, SC_E_SCROLL_NOT_FOUND, selector,
                          "scroll or box not found: %s (no directory %s)", selector, bdir);
    } else if (target != NULL) {
        char *f = join3(bdir, target, "scroll.json");
        if (f == NULL)
            rc = sc_error_set(err, SC_E_OUT_OF_MEMORY, NULL, "out of memory");
        else if (!sc_is_file(f))
            rc = sc_error_set(err, SC_E_SCROLL_NOT_FOUND, f,
                              "scroll not found: %s (no file %s)", selector, f);
        else if (push_ref(out, box, target) != 0)
            rc = sc_error_set(err, SC_E_OUT_OF_MEMORY, NULL, "out of memory");
        free(f);
    } else {
        rc = box_targets(scrolls_dir, box, out, err);
        if (rc == SC_OK && out->count == 0)
            rc = sc_error_set(err, SC_E_SCROLL_NOT_FOUND, selector,
                              "box %s contains no target scrolls", selector);
    }
    free(bdir);
    free(box);
    free(target);
    if (rc != SC_OK)
        sc_scroll_ref_list_free(out);
    return rc;
}

sc_code sc_scroll_load(const char *scrolls_dir, const char *ref,
                       sc_scroll **out, sc_error *err)
{
    char *box = NULL, *target = NULL, *fpath = NULL, *bpath = NULL;
    char *fbytes = NULL, *bbytes = NULL;
    size_t flen = 0, blen = 0;
    int missing = 0;
    sc_code rc;
    *out = NULL;
    sc_error_clear(err);
    if ((rc = split_ref(ref, &box, &target, err)) != SC_OK)
        return rc;
    if (target == NULL) {
        rc = sc_error_set(err, SC_E_INVALID_REFERENCE, ref,
                          "invalid scroll reference \"%s\"; use <boxId>/<targetId>", ref);
        goto done;
    }
    char *bdir = sc_path_join(scrolls_dir, box);
    fpath = bdir ? join3(bdir, target, "scroll.json") : NULL;
    bpath = bdir ? sc_path_join(bdir, "scroll.json") : NULL;
    free(bdir);
    if (fpath == NULL || bpath == NULL) {
        rc = sc_error_set(err, SC_E_OUT_OF_MEMORY, NULL, "out of memory");
        goto done;
    }
    if (!sc_is_file(fpath)) {
        /* missing, or a path through something that is not a directory */
        rc = sc_error_set(err, SC_E_SCROLL_NOT_FOUND, fpath,
                          "scroll not found: %s (no file %s)", ref, fpath);
        goto done;
    }
    rc = sc_file_read(fpath, &fbytes, &flen, &missing, err);
    if (rc != SC_OK) {
        if (missing)
            rc = sc_error_set(err, SC_E_SCROLL_NOT_FOUND, fpath,
                              "scroll not found: %s (no file %s)", ref, fpath);
        goto done;
    }
    sc_error tmp;
    if (sc_file_read(bpath, &bbytes, &blen, &missing, &tmp) != SC_OK)
        bbytes = NULL; /* absent (or unreadable): reported only if extended */
    sc_scroll_source fs = {fbytes, flen, fpath};
    sc_scroll_source bs = {bbytes, blen, bpath};
    rc = sc_scroll_resolve(&fs, &bs, box, target, out, err);
    if (rc == SC_OK) {
        (*out)->path = fpath;
        fpath = NULL;
    }
done:
    free(box);
    free(target);
    free(fpath);
    free(bpath);
    free(fbytes);
    free(bbytes);
    return rc;
}
