/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_manifest.c — docs/format-v3.md 9.2 steps 7-10 and section 10
 * (kinds, releases, box.json, channels, revocations, licence inventories,
 * agreement), black-box through manifest.h.
 *
 * Each test names the rule it pins.  Documents start from a valid one
 * (REL, BOX, CHAN, REVS, LIC below) and are changed one member at a time:
 * mut() sets (or, with DROP, removes) the member at a dotted path
 * ("provenance.environment.source", "assets.0.url").  rep() changes the
 * text itself, for number spellings that a JSON round trip would lose.
 *
 * JSON in this file is written with single quotes; sc_test_dq() turns them into
 * double quotes (no test value contains a quote).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "scrollcase/error.h"
#include "scrollcase/json.h"
#include "scrollcase/manifest.h"

/* ---- fixtures --------------------------------------------------------- */

#define A16 "aaaaaaaaaaaaaaaa"
#define SHA "'" A16 A16 A16 A16 "'"
#define REV "'0123456789abcdef0123456789abcdef01234567'"
#define TGT_CPU "{'platform':'linux','arch':'x86_64','accelerator':'cpu'}"
#define TGT_CUDA "{'platform':'linux','arch':'x86_64','accelerator':'cuda','cudaVersion':'12.4'}"
#define TGT_WIN "{'platform':'windows','arch':'x86_64','accelerator':'cpu'}"

#define PROV                                                                  \
    "{'scrollId':'demo-linux-x86_64-cpu','scrollVersion':'1.0.0',"           \
    "'builderRevision':" REV ",'sourceTreeDirty':false,"                     \
    "'sourceRevision':'abc123','pythonVersion':'3.11',"                      \
    "'environment':{'source':'pixi-lock','pixiVersion':'0.40.0','lockSha256':" SHA "}," \
    "'builder':{'name':'scrollcase','version':'0.1.0'},"                     \
    "'builtAt':'2026-01-01T00:00:00Z'}"

#define SELF_TEST "{'pythonImports':['json'],'timeoutSeconds':180}"

/* A valid release with every required member and no optional one. */
static const char REL[] =
    "{'schemaVersion':3,'kind':'scrollcase.box.release','boxId':'demo',"
    "'modelId':'demo-model','runtimeId':'torch','version':'1.0.0',"
    "'target':" TGT_CPU ",'compatibility':{},"
    "'archive':{'format':'zip','url':'https://example.com/a.zip','sha256':" SHA ",'sizeBytes':10},"
    "'installedSizeBytes':20,"
    "'payloadDigest':{'format':'sha256-path-list-v1','sha256':" SHA "},"
    "'pythonEntryPoint':'venv/bin/python','modelCacheSubdir':'model-cache/demo',"
    "'selfTest':" SELF_TEST ",'provenance':" PROV "}";

#define ASSET "{'url':'https://example.com/w.bin','relativePath':'weights/w.bin','sizeBytes':5,'sha256':" SHA "}"
#define GATES                                                                 \
    "{'selfTest':{'imports':['json'],'extra':'none'},"                       \
    "'parity':{'reference':'cpu','tolerances':{'absolute':0.001},'valueCount':4," \
    "'comparisons':[{'accelerator':'cuda','maximumAbsoluteError':0,"          \
    "'maximumRelativeError':0.5,'cosineSimilarity':-1}]},"                    \
    "'host':{'nvidiaDriverVersion':'550.54','gpus':[{'name':'H100','computeCapability':'9.0'}]}}"

/* A valid release with every optional member. */
static const char REL_FULL[] =
    "{'schemaVersion':3,'kind':'acme.models.release','boxId':'demo',"
    "'modelId':'demo-model','runtimeId':'torch','version':'1.0.0',"
    "'target':" TGT_CPU ","
    "'compatibility':{'minHostAppVersion':'1','maxHostAppVersionExclusive':'2',"
    "'minMacosVersion':'14','minNvidiaDriverVersion':'550','minRamGb':0.5,"
    "'hostEnvironments':['native','windows-wsl2'],'futureKey':{'x':1}},"
    "'archive':{'format':'zip','url':'https://example.com/a.zip','sha256':" SHA ",'sizeBytes':10},"
    "'installedSizeBytes':20,"
    "'payloadDigest':{'format':'sha256-path-list-v1','sha256':" SHA "},"
    "'pythonEntryPoint':'venv/bin/python','modelCacheSubdir':'model-cache/demo',"
    "'selfTest':" SELF_TEST ","
    "'environment':{'HF_HOME':'model-cache','EMPTY':''},"
    "'execution':{'kind':'python-module','module':'demo.cli','defaultArgs':['--fast','']},"
    "'weights':'on-demand','assets':[" ASSET "],"
    "'provenance':" PROV ",'gates':" GATES "}";

/* The box.json of REL. */
static const char BOX[] =
    "{'schemaVersion':3,'boxId':'demo','modelId':'demo-model','runtimeId':'torch',"
    "'version':'1.0.0','target':" TGT_CPU ",'pythonEntryPoint':'venv/bin/python',"
    "'modelCacheSubdir':'model-cache/demo','selfTest':" SELF_TEST ","
    "'provenance':" PROV "}";

/* The box.json of REL_FULL. */
static const char BOX_FULL[] =
    "{'schemaVersion':3,'boxId':'demo','modelId':'demo-model','runtimeId':'torch',"
    "'version':'1.0.0','target':" TGT_CPU ",'pythonEntryPoint':'venv/bin/python',"
    "'modelCacheSubdir':'model-cache/demo','selfTest':" SELF_TEST ","
    "'environment':{'HF_HOME':'model-cache','EMPTY':''},"
    "'execution':{'kind':'python-module','module':'demo.cli','defaultArgs':['--fast','']},"
    "'weights':'on-demand','assets':[" ASSET "],"
    "'provenance':" PROV "}";

static const char CHAN[] =
    "{'schemaVersion':3,'kind':'scrollcase.box.channel','channel':'stable',"
    "'boxId':'demo','target':" TGT_CPU ",'updatedAt':'2026-01-01T00:00:00Z',"
    "'cohortSalt':'3ac30634975c0041986ee662aa7ca4a6',"
    "'releases':[{'version':'1.0.0','releaseManifestUrl':'https://example.com/r.json',"
    "'rolloutPercentage':100}]}";

static const char REVS[] =
    "{'schemaVersion':3,'kind':'scrollcase.box.revocations',"
    "'updatedAt':'2026-01-01T00:00:00Z','revocations':["
    "{'boxId':'demo','version':'0.9.0','reason':'broken weights','revokedAt':'2026-01-01T00:00:00Z'},"
    "{'boxId':'demo','version':'0.8.0','target':" TGT_CUDA ",'reason':'bad kernel',"
    "'revokedAt':'2026-01-01T00:00:00Z'}]}";

#define PKG(n, v) "{'name':'" n "','version':'" v "','declaredLicense':'MIT','source':'conda'}"
static const char LIC[] =
    "{'schemaVersion':3,'kind':'scrollcase.box.dependency-license-audit',"
    "'targetId':'linux-x86_64-cpu','lockSha256':" SHA ","
    "'packages':[" PKG("numpy", "1.26.0") "," PKG("python", "3.11.8") "]}";

#define DROP "\x01" /* mut(): remove the member */

/* ---- helpers ---------------------------------------------------------- */

static sc_json *parse_q(const char *text)
{
    char *t = sc_test_dq(text);
    sc_json *v = NULL;
    sc_error err;
    if (t == NULL || sc_json_parse(t, strlen(t), &v, &err) != SC_OK) {
        fprintf(stderr, "\n  test JSON does not parse: %s (%s)\n", text, err.message);
        CU_FAIL("test JSON does not parse");
        v = NULL;
    }
    free(t);
    return v;
}

/* Set (value != NULL) or remove the member at a dotted path; 0 on success. */
static int set_at(sc_json *doc, const char *path, sc_json *value)
{
    char *p = strdup(path);
    char *seg = p, *dot;
    sc_json *cur = doc;
    int rc = -1;
    while (cur != NULL && (dot = strchr(seg, '.')) != NULL) {
        *dot = '\0';
        if (cur->type == SC_JSON_ARRAY)
            cur = sc_json_at(cur, (size_t)atoi(seg));
        else
            cur = sc_json_get(cur, seg);
        seg = dot + 1;
    }
    if (cur != NULL && cur->type == SC_JSON_OBJECT) {
        if (value != NULL) {
            rc = sc_json_object_set(cur, seg, value);
            value = NULL;
        } else {
            rc = sc_json_object_remove(cur, seg) ? 0 : -1;
        }
    }
    sc_json_free(value);
    free(p);
    if (rc != 0) {
        fprintf(stderr, "\n  test path %s not found\n", path);
        CU_FAIL("test path not found");
    }
    return rc;
}

/*
 * base with each (path, value) pair applied (value DROP removes), NULL
 * ending the list; checked as type.  Also checks err->code == result.
 */
static sc_code mutv(const char *base, sc_doc_type type, sc_error *err, ...)
{
    sc_json *doc = parse_q(base);
    va_list ap;
    va_start(ap, err);
    for (const char *path = va_arg(ap, const char *); path != NULL;
         path = va_arg(ap, const char *)) {
        const char *value = va_arg(ap, const char *);
        set_at(doc, path, strcmp(value, DROP) == 0 ? NULL : parse_q(value));
    }
    va_end(ap);
    sc_error_clear(err);
    sc_code c = sc_manifest_check(doc, type, NULL, err);
    CU_ASSERT_EQUAL(err->code, c);
    sc_json_free(doc);
    return c;
}

static sc_code mut(const char *base, sc_doc_type type, const char *path,
                   const char *value, sc_error *err)
{
    if (path == NULL)
        return mutv(base, type, err, (const char *)NULL);
    return mutv(base, type, err, path, value, (const char *)NULL);
}

/* base with the first `from` in its text replaced by `to`, checked. */
static sc_code rep(const char *base, sc_doc_type type, const char *from,
                   const char *to, sc_error *err)
{
    const char *at = strstr(base, from);
    CU_ASSERT_PTR_NOT_NULL_FATAL(at);
    size_t n = strlen(base) - strlen(from) + strlen(to) + 1;
    char *text = malloc(n);
    snprintf(text, n, "%.*s%s%s", (int)(at - base), base, to, at + strlen(from));
    char *t = sc_test_dq(text);
    sc_json *doc = NULL;
    sc_code c = sc_json_parse(t, strlen(t), &doc, err);
    if (c == SC_OK)
        c = sc_manifest_check(doc, type, NULL, err);
    sc_json_free(doc);
    free(t);
    free(text);
    return c;
}

static void expect_names_at(const sc_error *err, const char *text, int line)
{
    int ok = strstr(err->message, text) != NULL;
    if (!ok)
        fprintf(stderr, "\n  line %d: message does not name %s: %s\n", line,
                text, err->message);
    CU_assertImplementation(ok, (unsigned)line, "message names it", __FILE__,
                            "", CU_FALSE);
}

/* EXPECT(base, type, path, value, code): one member changed. */
#define EXPECT(base, type, path, value, want)                                 \
    do {                                                                      \
        sc_error e_;                                                          \
        sc_test_expect_code_at(mut((base), (type), (path), (value), &e_), (want), &e_, __FILE__, \
                       __LINE__);                                             \
    } while (0)
/* EXPECT_AT: the same, and the message names `named`. */
#define EXPECT_AT(base, type, path, value, want, named)                       \
    do {                                                                      \
        sc_error e_;                                                          \
        sc_test_expect_code_at(mut((base), (type), (path), (value), &e_), (want), &e_, __FILE__, \
                       __LINE__);                                             \
        expect_names_at(&e_, (named), __LINE__);                              \
    } while (0)
#define EXPECT_REP(base, type, from, to, want)                                \
    do {                                                                      \
        sc_error e_;                                                          \
        sc_test_expect_code_at(rep((base), (type), (from), (to), &e_), (want), &e_, __FILE__,   \
                       __LINE__);                                             \
    } while (0)

#define R SC_DOC_RELEASE
#define B SC_DOC_BOX
#define C SC_DOC_CHANNEL
#define V SC_DOC_REVOCATIONS
#define L SC_DOC_LICENSE_INVENTORY
#define OK SC_OK
#define BAD SC_E_INVALID_MANIFEST
#define UNSAFE SC_E_UNSAFE_PATH

/* Every required member of a document, dropped one at a time. */
static void requires_each(const char *base, sc_doc_type type,
                          const char *const *names, size_t n, int line)
{
    for (size_t i = 0; i < n; i++) {
        sc_error e;
        sc_code c = mut(base, type, names[i], DROP, &e);
        const char *last = strrchr(names[i], '.');
        sc_test_expect_code_at(c, BAD, &e, __FILE__, line);
        expect_names_at(&e, last ? last + 1 : names[i], line);
    }
}
#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/*
 * Every member of a valid document replaced by a value of another JSON type:
 * invalid-manifest, except schemaVersion (unsupported-schema-version) and
 * a target object (invalid-target).
 */
static void each_member_wrong_type(const char *base, sc_doc_type type, int line)
{
    sc_json *doc = parse_q(base);
    for (const sc_json *m = doc ? doc->child : NULL; m; m = m->next) {
        const char *wrong;
        switch (m->type) {
        case SC_JSON_STRING:
            wrong = "1";
            break;
        case SC_JSON_NUMBER:
            wrong = "'1'";
            break;
        case SC_JSON_ARRAY:
            wrong = "{}";
            break;
        case SC_JSON_OBJECT:
            wrong = "[]";
            break;
        default:
            wrong = "'x'";
            break;
        }
        sc_code want = BAD;
        if (strcmp(m->key, "schemaVersion") == 0)
            want = SC_E_UNSUPPORTED_SCHEMA_VERSION;
        else if (strcmp(m->key, "target") == 0)
            want = SC_E_INVALID_TARGET;
        sc_error e;
        sc_test_expect_code_at(mut(base, type, m->key, wrong, &e), want, &e, __FILE__, line);
        sc_test_expect_code_at(mut(base, type, m->key, "null", &e), want, &e, __FILE__, line);
        if (want == BAD)
            expect_names_at(&e, m->key, line);
    }
    sc_json_free(doc);
}

static void release_member_wrong_types(void)
{
    each_member_wrong_type(REL_FULL, R, __LINE__);
}

static void box_member_wrong_types(void)
{
    each_member_wrong_type(BOX_FULL, B, __LINE__);
}

static void channel_member_wrong_types(void)
{
    each_member_wrong_type(CHAN, C, __LINE__);
}

static void revocations_member_wrong_types(void)
{
    each_member_wrong_type(REVS, V, __LINE__);
}

static void license_member_wrong_types(void)
{
    each_member_wrong_type(LIC, L, __LINE__);
}

/* ---- the valid documents ------------------------------------------- */

static void valid_documents_pass(void)
{
    EXPECT(REL, R, NULL, NULL, OK);
    EXPECT(REL_FULL, R, NULL, NULL, OK);
    EXPECT(BOX, B, NULL, NULL, OK);
    EXPECT(BOX_FULL, B, NULL, NULL, OK);
    EXPECT(CHAN, C, NULL, NULL, OK);
    EXPECT(REVS, V, NULL, NULL, OK);
    EXPECT(LIC, L, NULL, NULL, OK);
}

static void any_accepts_each_kind(void)
{
    EXPECT(REL, SC_DOC_ANY, NULL, NULL, OK);
    EXPECT(CHAN, SC_DOC_ANY, NULL, NULL, OK);
    EXPECT(REVS, SC_DOC_ANY, NULL, NULL, OK);
    EXPECT(LIC, SC_DOC_ANY, NULL, NULL, OK);
    /* box.json has no kind, so it is no signed document */
    EXPECT(BOX, SC_DOC_ANY, NULL, NULL, BAD);
}

static void info_names_kind_namespace_identity(void)
{
    static const struct {
        const char *doc;
        sc_doc_type expect, type;
        const char *kind, *ns, *identity;
    } cases[] = {
        {REL, SC_DOC_ANY, R, "scrollcase.box.release", "scrollcase.box",
         "demo 1.0.0 linux-x86_64-cpu"},
        {REL_FULL, R, R, "acme.models.release", "acme.models",
         "demo 1.0.0 linux-x86_64-cpu"},
        {BOX, B, B, "", "", "demo 1.0.0 linux-x86_64-cpu"},
        {CHAN, SC_DOC_ANY, C, "scrollcase.box.channel", "scrollcase.box",
         "demo stable linux-x86_64-cpu"},
        {REVS, V, V, "scrollcase.box.revocations", "scrollcase.box",
         "revocations 2026-01-01T00:00:00Z"},
        {LIC, L, L, "scrollcase.box.dependency-license-audit", "scrollcase.box",
         "dependency-license-audit linux-x86_64-cpu"},
    };
    for (size_t i = 0; i < COUNT(cases); i++) {
        sc_json *doc = parse_q(cases[i].doc);
        sc_manifest_info info;
        sc_error err;
        CU_ASSERT_EQUAL(sc_manifest_check(doc, cases[i].expect, &info, &err), SC_OK);
        CU_ASSERT_EQUAL(info.type, cases[i].type);
        CU_ASSERT_STRING_EQUAL(info.kind, cases[i].kind);
        CU_ASSERT_STRING_EQUAL(info.ns, cases[i].ns);
        CU_ASSERT_STRING_EQUAL(info.identity, cases[i].identity);
        CU_ASSERT_EQUAL(info.truncated, 0);
        sc_json_free(doc);
    }
    /* a CUDA target's id in the identity */
    sc_json *doc = parse_q(REL);
    sc_json_object_set(doc, "target", parse_q(TGT_CUDA));
    sc_manifest_info info;
    sc_error err;
    CU_ASSERT_EQUAL(sc_manifest_check(doc, R, &info, &err), SC_OK);
    CU_ASSERT_STRING_EQUAL(info.identity, "demo 1.0.0 linux-x86_64-cuda12.4");
    sc_json_free(doc);
}

static void info_long_namespace_is_truncated_not_refused(void)
{
    char kind[400];
    memset(kind, 'a', 300);
    strcpy(kind + 300, ".release");
    sc_json *doc = parse_q(REL);
    sc_json_object_set(doc, "kind", sc_json_new_string(kind));
    sc_manifest_info info;
    sc_error err;
    CU_ASSERT_EQUAL(sc_manifest_check(doc, R, &info, &err), SC_OK);
    CU_ASSERT_EQUAL(info.truncated, 1);
    CU_ASSERT_EQUAL(strlen(info.ns), SC_NAMESPACE_MAX - 1);
    sc_json_free(doc);
}

static void info_long_version_truncates_identity(void)
{
    char version[2000];
    memset(version, '9', sizeof version - 1);
    version[sizeof version - 1] = '\0';
    sc_json *doc = parse_q(REL);
    sc_json_object_set(doc, "version", sc_json_new_string(version));
    sc_manifest_info info;
    sc_error err;
    CU_ASSERT_EQUAL(sc_manifest_check(doc, R, &info, &err), SC_OK);
    CU_ASSERT_EQUAL(info.truncated, 1);
    CU_ASSERT_EQUAL(strlen(info.identity), SC_IDENTITY_MAX - 1);
    CU_ASSERT_EQUAL(strncmp(info.identity, "demo 999", 8), 0);
    sc_json_free(doc);
}

static void long_member_names_are_cut_in_messages(void)
{
    char key[1200];
    memset(key, 'k', sizeof key - 1);
    key[sizeof key - 1] = '\0';
    sc_json *doc = parse_q(REL);
    sc_json_object_append(doc, key, sc_json_new_number(1));
    sc_error err;
    CU_ASSERT_EQUAL(sc_manifest_check(doc, R, NULL, &err), BAD);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "..."));
    sc_json_free(doc);
    /* the same inside a nested object */
    doc = parse_q(REL);
    sc_json_object_append(sc_json_get(doc, "archive"), key, sc_json_new_number(1));
    CU_ASSERT_EQUAL(sc_manifest_check(doc, R, NULL, &err), BAD);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "$.archive.kkk"));
    sc_json_free(doc);
}

/* ---- step 7: an object ------------------------------------------------ */

static void s7_payload_must_be_object(void)
{
    static const char *const texts[] = {"[]", "3", "'x'", "null", "true"};
    for (size_t i = 0; i < COUNT(texts); i++) {
        sc_json *doc = parse_q(texts[i]);
        sc_error err;
        CU_ASSERT_EQUAL(sc_manifest_check(doc, SC_DOC_ANY, NULL, &err), BAD);
        CU_ASSERT_EQUAL(sc_manifest_check(doc, B, NULL, &err), BAD);
        sc_json_free(doc);
    }
}

/* ---- step 8: the version --------------------------------------------- */

static void s8_version_absent_is_invalid_manifest(void)
{
    EXPECT_AT(REL, R, "schemaVersion", DROP, BAD, "schemaVersion");
    EXPECT(BOX, B, "schemaVersion", DROP, BAD);
    EXPECT(CHAN, SC_DOC_ANY, "schemaVersion", DROP, BAD);
}

static void s8_version_1_and_2_deprecated(void)
{
    const char *docs[] = {REL, BOX, CHAN, REVS, LIC};
    const sc_doc_type types[] = {R, B, C, V, L};
    for (size_t i = 0; i < COUNT(docs); i++) {
        EXPECT_AT(docs[i], types[i], "schemaVersion", "1", SC_E_DEPRECATED_SCHEMA_VERSION, "1");
        EXPECT_AT(docs[i], types[i], "schemaVersion", "2", SC_E_DEPRECATED_SCHEMA_VERSION, "2");
        EXPECT(docs[i], SC_DOC_ANY, "schemaVersion", "2", SC_E_DEPRECATED_SCHEMA_VERSION);
    }
}

static void s8_other_versions_unsupported(void)
{
    static const char *const values[] = {"0", "4", "'3'", "null", "true", "[3]", "{}"};
    for (size_t i = 0; i < COUNT(values); i++) {
        EXPECT(REL, R, "schemaVersion", values[i], SC_E_UNSUPPORTED_SCHEMA_VERSION);
        EXPECT(BOX, B, "schemaVersion", values[i], SC_E_UNSUPPORTED_SCHEMA_VERSION);
    }
    /* integral values that are not integer literals */
    EXPECT_REP(REL, R, "'schemaVersion':3", "'schemaVersion':3.0", SC_E_UNSUPPORTED_SCHEMA_VERSION);
    EXPECT_REP(REL, R, "'schemaVersion':3", "'schemaVersion':3e0", SC_E_UNSUPPORTED_SCHEMA_VERSION);
    EXPECT_REP(REL, R, "'schemaVersion':3", "'schemaVersion':2.0", SC_E_UNSUPPORTED_SCHEMA_VERSION);
    EXPECT_REP(REL, R, "'schemaVersion':3", "'schemaVersion':-0", SC_E_UNSUPPORTED_SCHEMA_VERSION);
}

static void s8_version_before_kind_and_schema(void)
{
    sc_error e;
    sc_test_expect_code_at(mutv(REL, R, &e, "schemaVersion", "2", "kind", "'Bad'", "target", "1",
                        (const char *)NULL),
                   SC_E_DEPRECATED_SCHEMA_VERSION, &e, __FILE__, __LINE__);
    sc_test_expect_code_at(mutv(REL, C, &e, "schemaVersion", "9", (const char *)NULL),
                   SC_E_UNSUPPORTED_SCHEMA_VERSION, &e, __FILE__, __LINE__);
}

/* ---- step 9: the kind ------------------------------------------------ */

static void kind_parse_rules(void)
{
    static const struct {
        const char *kind;
        int ok;
        sc_doc_type type;
        size_t ns;
    } cases[] = {
        {"x.release", 1, R, 1},
        {"scrollcase.box.release", 1, R, 14},
        {"acme.model-pack.channel", 1, C, 15},
        {"a1.b-2.c3.revocations", 1, V, 9},
        {"0.dependency-license-audit", 1, L, 1},
        {"release", 0, R, 0},
        {".release", 0, R, 0},
        {"Acme.release", 0, R, 0},
        {"acme.Release", 0, R, 0},
        {"acme.model-pack.unknown", 0, R, 0},
        {"acme..release", 0, R, 0},
        {"acme-.release", 0, R, 0},
        {"-acme.release", 0, R, 0},
        {"acme.-x.release", 0, R, 0},
        {"acme_x.release", 0, R, 0},
        {"acme x.release", 0, R, 0},
        {"acme.release.", 0, R, 0},
        {"acme.", 0, R, 0},
        {"", 0, R, 0},
        {"acme.box", 0, R, 0},
        {"acme.release ", 0, R, 0},
        {"acme.relEase", 0, R, 0},
        {"ac\xc3\xa9.release", 0, R, 0},
    };
    for (size_t i = 0; i < COUNT(cases); i++) {
        sc_doc_type t = SC_DOC_ANY;
        size_t ns = 0;
        int ok = sc_manifest_parse_kind(cases[i].kind, strlen(cases[i].kind), &t, &ns);
        if (ok != cases[i].ok)
            fprintf(stderr, "\n  kind \"%s\": got %d\n", cases[i].kind, ok);
        CU_ASSERT_EQUAL(ok, cases[i].ok);
        if (ok && cases[i].ok) {
            CU_ASSERT_EQUAL(t, cases[i].type);
            CU_ASSERT_EQUAL(ns, cases[i].ns);
        }
    }
    /* a kind holding NUL is no kind */
    CU_ASSERT_EQUAL(sc_manifest_parse_kind("x\0.release", 10, NULL, NULL), 0);
    CU_ASSERT_EQUAL(sc_manifest_parse_kind("x.release", 9, NULL, NULL), 1);
}

static void kind_x_release_accepted(void)
{
    EXPECT(REL, R, "kind", "'x.release'", OK);
    EXPECT(REL, SC_DOC_ANY, "kind", "'x.release'", OK);
}

static void kind_invalid_refused(void)
{
    static const char *const kinds[] = {"'release'", "'.release'", "'Acme.release'",
                                        "'acme.model-pack.unknown'", "'acme..release'",
                                        "'scrollcase.box.Release'", "''"};
    for (size_t i = 0; i < COUNT(kinds); i++) {
        EXPECT_AT(REL, R, "kind", kinds[i], BAD, "$.kind");
        EXPECT(REL, SC_DOC_ANY, "kind", kinds[i], BAD);
    }
    EXPECT_REP(REL, R, "'kind':'scrollcase.box.release'", "'kind':'scrollcase.box\\u0000.release'", BAD);
}

static void kind_missing_or_not_string_refused(void)
{
    EXPECT_AT(REL, R, "kind", DROP, BAD, "$.kind");
    EXPECT(REL, SC_DOC_ANY, "kind", DROP, BAD);
    EXPECT(REL, R, "kind", "3", BAD);
    EXPECT(REL, R, "kind", "['x.release']", BAD);
    EXPECT(REL, R, "kind", "null", BAD);
}

static void kind_must_be_the_expected_type(void)
{
    EXPECT_AT(REL, C, NULL, NULL, BAD, "$.kind");
    EXPECT(REL, V, NULL, NULL, BAD);
    EXPECT(CHAN, R, NULL, NULL, BAD);
    EXPECT(REVS, R, NULL, NULL, BAD);
    EXPECT(LIC, R, NULL, NULL, BAD);
    EXPECT(REL, L, NULL, NULL, BAD);
    /* a release with a channel's kind is refused as a release by kind */
    EXPECT(REL, R, "kind", "'scrollcase.box.channel'", BAD);
}

static void kind_before_schema(void)
{
    /* a wrong kind is reported even when the target is unsupported */
    sc_error e;
    sc_test_expect_code_at(mutv(REL, R, &e, "kind", "'x.channel'", "target",
                        "{'platform':'linux','arch':'aarch64','accelerator':'cpu'}",
                        (const char *)NULL),
                   BAD, &e, __FILE__, __LINE__);
    expect_names_at(&e, "$.kind", __LINE__);
}

static void kind_any_namespace_accepted(void)
{
    EXPECT(REL, R, "kind", "'com.example.release'", OK);
    EXPECT(CHAN, C, "kind", "'acme-corp.channel'", OK);
    EXPECT(REVS, V, "kind", "'other.publisher.revocations'", OK);
}

/* ---- release (10.2) ------------------------------------------------- */

static void release_requires_each_member(void)
{
    static const char *const names[] = {
        "schemaVersion", "kind", "boxId", "modelId", "runtimeId", "version",
        "target", "compatibility", "archive", "installedSizeBytes",
        "payloadDigest", "pythonEntryPoint", "modelCacheSubdir", "selfTest",
        "provenance"};
    requires_each(REL, R, names, COUNT(names), __LINE__);
}

static void release_optional_members_may_be_absent(void)
{
    static const char *const names[] = {"environment", "execution", "gates"};
    for (size_t i = 0; i < COUNT(names); i++)
        EXPECT(REL_FULL, R, names[i], DROP, OK);
}

static void release_required_before_members(void)
{
    /* a missing provenance is reported before an unsupported target */
    sc_error e;
    sc_test_expect_code_at(mutv(REL, R, &e, "provenance", DROP, "target",
                        "{'platform':'linux','arch':'aarch64','accelerator':'cpu'}",
                        (const char *)NULL),
                   BAD, &e, __FILE__, __LINE__);
    expect_names_at(&e, "provenance", __LINE__);
}

static void release_members_in_table_order(void)
{
    sc_error e;
    /* boxId (before target) wins over the target */
    sc_test_expect_code_at(mutv(REL, R, &e, "boxId", "'Demo'", "target", "{}", (const char *)NULL),
                   BAD, &e, __FILE__, __LINE__);
    expect_names_at(&e, "$.boxId", __LINE__);
    /* target (before modelCacheSubdir) wins over an unsafe path */
    sc_test_expect_code_at(mutv(REL, R, &e, "target",
                        "{'platform':'linux','arch':'aarch64','accelerator':'cpu'}",
                        "modelCacheSubdir", "'../x'", (const char *)NULL),
                   SC_E_UNSUPPORTED_TARGET, &e, __FILE__, __LINE__);
    /* modelCacheSubdir (before selfTest) wins over selfTest */
    sc_test_expect_code_at(mutv(REL, R, &e, "modelCacheSubdir", "'/abs'", "selfTest", "{}",
                        (const char *)NULL),
                   UNSAFE, &e, __FILE__, __LINE__);
    /* archive (before modelCacheSubdir) wins over an unsafe path */
    sc_test_expect_code_at(mutv(REL, R, &e, "archive.format", "'tar'", "modelCacheSubdir", "'a/../b'",
                        (const char *)NULL),
                   BAD, &e, __FILE__, __LINE__);
    /* the entry-point rule runs at its member's place, before modelCacheSubdir */
    sc_test_expect_code_at(mutv(REL, R, &e, "pythonEntryPoint", "'python'", "modelCacheSubdir", "'../x'",
                        (const char *)NULL),
                   BAD, &e, __FILE__, __LINE__);
    expect_names_at(&e, "$.pythonEntryPoint", __LINE__);
    /* an unknown member is reported after every member's own checks */
    sc_test_expect_code_at(mutv(REL, R, &e, "aaa", "1", "target", "{'platform':'x','arch':'y','accelerator':'z'}",
                        (const char *)NULL),
                   SC_E_UNSUPPORTED_TARGET, &e, __FILE__, __LINE__);
    /* table order, not declaration order: provenance before gates */
    sc_test_expect_code_at(mutv(REL_FULL, R, &e, "gates", "{}", "provenance.builtAt", "'x'",
                        (const char *)NULL),
                   BAD, &e, __FILE__, __LINE__);
    expect_names_at(&e, "builtAt", __LINE__);
}

static void release_unknown_member_refused(void)
{
    EXPECT_AT(REL, R, "extra", "1", BAD, "$.extra is not allowed");
    EXPECT_AT(REL, R, "archive.extra", "1", BAD, "$.archive.extra");
    EXPECT_AT(REL, R, "payloadDigest.extra", "1", BAD, "$.payloadDigest.extra");
    EXPECT_AT(REL, R, "selfTest.files", "[]", BAD, "$.selfTest.files");
    EXPECT_AT(REL, R, "provenance.pixiVersion", "'0.40.0'", BAD, "$.provenance.pixiVersion");
    EXPECT(REL, R, "provenance.dependencyLockSha256", SHA, BAD);
}

static void release_ids_are_slugs(void)
{
    static const char *const ids[] = {"boxId", "modelId", "runtimeId"};
    static const char *const bad[] = {"'Demo'", "'demo_x'", "''", "'-demo'", "'demo-'",
                                      "'de..mo'", "3", "null"};
    for (size_t i = 0; i < COUNT(ids); i++) {
        for (size_t j = 0; j < COUNT(bad); j++) {
            EXPECT(REL, R, ids[i], bad[j], BAD);
            EXPECT(BOX, B, ids[i], bad[j], BAD);
        }
        EXPECT(REL, R, ids[i], "'a.b-c.0'", OK);
    }
}

static void release_version_is_text(void)
{
    EXPECT_AT(REL, R, "version", "''", BAD, "$.version");
    EXPECT(REL, R, "version", "1", BAD);
    EXPECT(REL, R, "version", "'any text / at all'", OK);
}

static void release_target_reports_section_4_codes(void)
{
    EXPECT(REL, R, "target", "'linux'", SC_E_INVALID_TARGET);
    EXPECT(REL, R, "target", "{'platform':'linux','arch':'x86_64'}", SC_E_INVALID_TARGET);
    EXPECT(REL, R, "target", "{'platform':'linux','arch':'x86_64','accelerator':'cpu','x':1}",
           SC_E_INVALID_TARGET);
    EXPECT(REL, R, "target", "{'platform':'linux','arch':'aarch64','accelerator':'cpu'}",
           SC_E_UNSUPPORTED_TARGET);
    EXPECT(REL, R, "target", "{'platform':'linux','arch':'x86_64','accelerator':'cuda'}",
           SC_E_INVALID_TARGET);
    EXPECT(REL, R, "target", TGT_CUDA, OK);
    EXPECT(BOX, B, "target", "{'platform':'macos','arch':'x86_64','accelerator':'cpu'}",
           SC_E_UNSUPPORTED_TARGET);
}

static void release_compatibility_is_open(void)
{
    EXPECT(REL, R, "compatibility", "{'anything':[1,{}],'minRamGb':16}", OK);
    EXPECT(REL, R, "compatibility", "[]", BAD);
    EXPECT(REL, R, "compatibility.minHostAppVersion", "''", BAD);
    EXPECT(REL, R, "compatibility.maxHostAppVersionExclusive", "2", BAD);
    EXPECT(REL, R, "compatibility.minMacosVersion", "''", BAD);
    EXPECT(REL, R, "compatibility.minNvidiaDriverVersion", "550", BAD);
    EXPECT_AT(REL, R, "compatibility.minRamGb", "0", BAD, "$.compatibility.minRamGb");
    EXPECT(REL, R, "compatibility.minRamGb", "-1", BAD);
    EXPECT(REL, R, "compatibility.minRamGb", "'8'", BAD);
    EXPECT(REL, R, "compatibility.minRamGb", "0.001", OK);
}

static void release_compatibility_host_environments(void)
{
    EXPECT(REL, R, "compatibility.hostEnvironments", "['native']", OK);
    EXPECT(REL, R, "compatibility.hostEnvironments", "['windows-wsl2','native']", OK);
    EXPECT(REL, R, "compatibility.hostEnvironments", "[]", BAD);
    EXPECT(REL, R, "compatibility.hostEnvironments", "['wsl']", BAD);
    EXPECT(REL, R, "compatibility.hostEnvironments", "'native'", BAD);
    EXPECT_AT(REL, R, "compatibility.hostEnvironments", "['native',1]", BAD,
              "$.compatibility.hostEnvironments[1]");
}

static void release_archive_rules(void)
{
    static const char *const names[] = {"format", "url", "sha256", "sizeBytes"};
    for (size_t i = 0; i < COUNT(names); i++) {
        char path[64];
        snprintf(path, sizeof path, "archive.%s", names[i]);
        EXPECT(REL, R, path, DROP, BAD);
    }
    EXPECT(REL, R, "archive", "'a.zip'", BAD);
    EXPECT(REL, R, "archive.format", "'tar.gz'", BAD);
    EXPECT(REL, R, "archive.format", "'ZIP'", BAD);
    EXPECT(REL, R, "archive.url", "''", BAD);
    EXPECT(REL, R, "archive.sha256", "'" A16 A16 A16 "aaaaaaaaaaaaaaaA'", BAD);
    EXPECT(REL, R, "archive.sha256", "'" A16 A16 A16 "aaaaaaaaaaaaaaa'", BAD);
    EXPECT(REL, R, "archive.sha256", "'" A16 A16 A16 A16 "a'", BAD);
    EXPECT(REL, R, "archive.sha256", "'" A16 A16 A16 "aaaaaaaaaaaaaaag'", BAD);
    EXPECT(REL, R, "archive.sizeBytes", "0", BAD);
    EXPECT(REL, R, "archive.sizeBytes", "-1", BAD);
    EXPECT(REL, R, "archive.sizeBytes", "'10'", BAD);
    EXPECT(REL, R, "archive.sizeBytes", "9007199254740991", OK);
    EXPECT_REP(REL, R, "'sizeBytes':10", "'sizeBytes':10.0", BAD);
    EXPECT_REP(REL, R, "'sizeBytes':10", "'sizeBytes':1e1", BAD);
}

static void release_installed_size_required_integer(void)
{
    EXPECT_AT(REL, R, "installedSizeBytes", DROP, BAD, "installedSizeBytes");
    EXPECT(REL, R, "installedSizeBytes", "0", BAD);
    EXPECT(REL, R, "installedSizeBytes", "1", OK);
    EXPECT(REL, R, "installedSizeBytes", "1.5", BAD);
    EXPECT(REL, R, "installedSizeBytes", "'20'", BAD);
    EXPECT_REP(REL, R, "'installedSizeBytes':20", "'installedSizeBytes':20.0", BAD);
    EXPECT_REP(REL, R, "'installedSizeBytes':20", "'installedSizeBytes':2e1", BAD);
}

static void release_payload_digest_required(void)
{
    EXPECT_AT(REL, R, "payloadDigest", DROP, BAD, "payloadDigest");
    EXPECT(REL, R, "payloadDigest.format", "'sha256-path-list-v2'", BAD);
    EXPECT(REL, R, "payloadDigest.format", DROP, BAD);
    EXPECT(REL, R, "payloadDigest.sha256", DROP, BAD);
    EXPECT(REL, R, "payloadDigest.sha256", "'abc'", BAD);
    EXPECT(REL, R, "payloadDigest", "null", BAD);
}

static void release_entry_point_equals_target(void)
{
    EXPECT_AT(REL, R, "pythonEntryPoint", "'venv/bin/python3'", BAD, "$.pythonEntryPoint");
    EXPECT(REL, R, "pythonEntryPoint", "''", BAD);
    EXPECT(REL, R, "pythonEntryPoint", "1", BAD);
    sc_error e;
    sc_test_expect_code_at(mutv(REL, R, &e, "target", TGT_WIN, (const char *)NULL), BAD, &e, __FILE__, __LINE__);
    sc_test_expect_code_at(mutv(REL, R, &e, "target", TGT_WIN, "pythonEntryPoint", "'venv/python.exe'",
                        (const char *)NULL),
                   OK, &e, __FILE__, __LINE__);
    sc_test_expect_code_at(mutv(BOX, B, &e, "target", TGT_WIN, (const char *)NULL), BAD, &e, __FILE__, __LINE__);
    sc_test_expect_code_at(mutv(BOX, B, &e, "target", TGT_WIN, "pythonEntryPoint", "'venv/python.exe'",
                        (const char *)NULL),
                   OK, &e, __FILE__, __LINE__);
}

static void release_model_cache_subdir_is_path(void)
{
    static const char *const unsafe[] = {"'../x'", "'/abs'", "'a//b'", "'a/'", "'./a'",
                                         "'a\\\\b'", "'C:x'", "'a/./b'"};
    for (size_t i = 0; i < COUNT(unsafe); i++) {
        EXPECT(REL, R, "modelCacheSubdir", unsafe[i], UNSAFE);
        EXPECT(BOX, B, "modelCacheSubdir", unsafe[i], UNSAFE);
    }
    EXPECT(REL, R, "modelCacheSubdir", "''", BAD);
    EXPECT(REL, R, "modelCacheSubdir", "3", BAD);
    EXPECT(REL, R, "modelCacheSubdir", "'x'", OK);
    EXPECT(REL, R, "modelCacheSubdir", "'..a/b..'", OK);
}

static void release_self_test_rules(void)
{
    EXPECT(REL, R, "selfTest", "[]", BAD);
    EXPECT(REL, R, "selfTest.pythonImports", DROP, BAD);
    EXPECT(REL, R, "selfTest.timeoutSeconds", DROP, BAD);
    EXPECT(REL, R, "selfTest.pythonImports", "[]", BAD);
    EXPECT(REL, R, "selfTest.pythonImports", "'json'", BAD);
    EXPECT_AT(REL, R, "selfTest.pythonImports", "['json','1abc']", BAD,
              "$.selfTest.pythonImports[1]");
    EXPECT(REL, R, "selfTest.pythonImports", "['a.']", BAD);
    EXPECT(REL, R, "selfTest.pythonImports", "['a-b']", BAD);
    EXPECT(REL, R, "selfTest.pythonImports", "['']", BAD);
    EXPECT(REL, R, "selfTest.pythonImports", "['_a.B_1.c']", OK);
    EXPECT(REL, R, "selfTest.timeoutSeconds", "0", BAD);
    EXPECT(REL, R, "selfTest.timeoutSeconds", "86401", BAD);
    EXPECT(REL, R, "selfTest.timeoutSeconds", "86400", OK);
    EXPECT(REL, R, "selfTest.timeoutSeconds", "1", OK);
    EXPECT(REL, R, "selfTest.timeoutSeconds", "'180'", BAD);
    EXPECT_REP(REL, R, "'timeoutSeconds':180", "'timeoutSeconds':180.0", BAD);
    EXPECT(REL, R, "selfTest.imports", "['json']", BAD);
}

static void release_environment_rules(void)
{
    EXPECT(REL, R, "environment", "{}", OK);
    EXPECT(REL, R, "environment", "{'A':'1','B_C':'x=y'}", OK);
    EXPECT(REL, R, "environment", "[]", BAD);
    EXPECT(REL, R, "environment", "{'A=B':'1'}", BAD);
    EXPECT(REL, R, "environment", "{'':'1'}", BAD);
    EXPECT(REL, R, "environment", "{'A':1}", BAD);
    EXPECT(REL, R, "environment", "{'A':null}", BAD);
    EXPECT_REP(REL, R, "'installedSizeBytes'", "'environment':{'A':'x\\u0000y'},'installedSizeBytes'", BAD);
    EXPECT_REP(REL, R, "'installedSizeBytes'", "'environment':{'A\\u0000':'x'},'installedSizeBytes'", BAD);
}

static void release_execution_rules(void)
{
    EXPECT(REL, R, "execution", "{'kind':'python-script','script':'bin/run.py','defaultArgs':[]}", OK);
    EXPECT(REL, R, "execution", "{'kind':'python-module','module':'a.b','defaultArgs':['x']}", OK);
    EXPECT(REL, R, "execution", "'a.b'", BAD);
    EXPECT(REL, R, "execution", "{'script':'a.py','defaultArgs':[]}", BAD);
    EXPECT(REL, R, "execution", "{'kind':'shell','script':'a.py','defaultArgs':[]}", BAD);
    EXPECT(REL, R, "execution", "{'kind':'python-script','script':'a.py'}", BAD);
    EXPECT(REL, R, "execution", "{'kind':'python-script','defaultArgs':[]}", BAD);
    EXPECT(REL, R, "execution", "{'kind':'python-script','script':'a.py','defaultArgs':[1]}", BAD);
    EXPECT(REL, R, "execution", "{'kind':'python-script','script':'a.py','defaultArgs':'x'}", BAD);
    EXPECT(REL, R, "execution", "{'kind':'python-script','script':'','defaultArgs':[]}", BAD);
    EXPECT(REL, R, "execution", "{'kind':'python-script','script':'../a.py','defaultArgs':[]}", UNSAFE);
    EXPECT(REL, R, "execution", "{'kind':'python-script','script':'/a.py','defaultArgs':[]}", UNSAFE);
    EXPECT(REL, R, "execution", "{'kind':'python-module','module':'a-b','defaultArgs':[]}", BAD);
    EXPECT(REL, R, "execution", "{'kind':'python-module','module':'a/b','defaultArgs':[]}", BAD);
    /* a member of the other branch is unknown */
    EXPECT(REL, R, "execution",
           "{'kind':'python-script','script':'a.py','module':'a','defaultArgs':[]}", BAD);
    EXPECT(REL, R, "execution",
           "{'kind':'python-module','module':'a','script':'a.py','defaultArgs':[]}", BAD);
    /* a module is not a path: '..' means nothing to it, but is no module either */
    EXPECT(REL, R, "execution", "{'kind':'python-module','module':'..','defaultArgs':[]}", BAD);
}

static void release_weights_iff_assets(void)
{
    EXPECT_AT(REL_FULL, R, "assets", DROP, BAD, "$.assets");
    EXPECT_AT(REL_FULL, R, "weights", DROP, BAD, "$.weights");
    EXPECT(REL, R, "weights", "'on-demand'", BAD);
    EXPECT(REL, R, "assets", "[" ASSET "]", BAD);
    EXPECT(REL_FULL, R, "weights", "'embed'", BAD);
    EXPECT(REL_FULL, R, "weights", "1", BAD);
    sc_error e;
    sc_test_expect_code_at(mutv(REL_FULL, R, &e, "weights", DROP, "assets", DROP, (const char *)NULL),
                   OK, &e, __FILE__, __LINE__);
    /* the pairing is a requirement: it is reported before the members */
    sc_test_expect_code_at(mutv(REL_FULL, R, &e, "weights", DROP, "target", "{}", (const char *)NULL),
                   BAD, &e, __FILE__, __LINE__);
    expect_names_at(&e, "$.weights", __LINE__);
}

static void release_asset_rules(void)
{
    EXPECT(REL_FULL, R, "assets", "[]", BAD);
    EXPECT(REL_FULL, R, "assets", "{}", BAD);
    EXPECT(REL_FULL, R, "assets.0.url", DROP, BAD);
    EXPECT(REL_FULL, R, "assets.0.relativePath", DROP, BAD);
    EXPECT(REL_FULL, R, "assets.0.sizeBytes", DROP, BAD);
    EXPECT(REL_FULL, R, "assets.0.sha256", DROP, BAD);
    EXPECT(REL_FULL, R, "assets.0.url", "''", BAD);
    EXPECT_AT(REL_FULL, R, "assets.0.relativePath", "'../w.bin'", UNSAFE,
              "$.assets[0].relativePath");
    EXPECT(REL_FULL, R, "assets.0.relativePath", "'w//x'", UNSAFE);
    EXPECT(REL_FULL, R, "assets.0.relativePath", "''", BAD);
    EXPECT(REL_FULL, R, "assets.0.sizeBytes", "0", BAD);
    EXPECT(REL_FULL, R, "assets.0.sha256", "'x'", BAD);
    EXPECT(REL_FULL, R, "assets.0.extra", "1", BAD);
}

static void release_provenance_requires_each_member(void)
{
    static const char *const names[] = {
        "provenance.scrollId", "provenance.scrollVersion", "provenance.builderRevision",
        "provenance.sourceTreeDirty", "provenance.sourceRevision",
        "provenance.pythonVersion", "provenance.environment", "provenance.builder",
        "provenance.builtAt"};
    requires_each(REL, R, names, COUNT(names), __LINE__);
    requires_each(BOX, B, names, COUNT(names), __LINE__);
}

static void release_provenance_rules(void)
{
    EXPECT(REL, R, "provenance", "[]", BAD);
    EXPECT(REL, R, "provenance.scrollId", "''", BAD);
    EXPECT(REL, R, "provenance.scrollVersion", "1", BAD);
    EXPECT(REL, R, "provenance.builderRevision", "'0123456789abcdef0123456789abcdef0123456'", BAD);
    EXPECT(REL, R, "provenance.builderRevision", "'0123456789ABCDEF0123456789abcdef01234567'", BAD);
    EXPECT(REL, R, "provenance.builderRevision", "'0123456789abcdef0123456789abcdef012345678'", BAD);
    EXPECT(REL, R, "provenance.sourceTreeDirty", "'false'", BAD);
    EXPECT(REL, R, "provenance.sourceTreeDirty", "0", BAD);
    EXPECT(REL, R, "provenance.sourceTreeDirty", "true", OK);
    EXPECT(REL, R, "provenance.sourceRevision", "''", BAD);
    EXPECT(REL, R, "provenance.pythonVersion", "''", BAD);
    EXPECT(REL, R, "provenance.builder", "'scrollcase'", BAD);
    EXPECT(REL, R, "provenance.builder.name", DROP, BAD);
    EXPECT(REL, R, "provenance.builder.version", DROP, BAD);
    EXPECT(REL, R, "provenance.builder.version", "''", BAD);
    EXPECT(REL, R, "provenance.builder.url", "'x'", BAD);
}

static void provenance_environment_one_of(void)
{
    EXPECT(REL, R, "provenance.environment", "{'source':'prefix','prefixDigest':" SHA "}", OK);
    EXPECT(REL, R, "provenance.environment",
           "{'source':'pixi-lock','pixiVersion':'0.1','lockSha256':" SHA "}", OK);
    EXPECT(REL, R, "provenance.environment", "'pixi-lock'", BAD);
    EXPECT_AT(REL, R, "provenance.environment", "{'pixiVersion':'0.1','lockSha256':" SHA "}", BAD,
              "$.provenance.environment.source");
    EXPECT(REL, R, "provenance.environment", "{'source':'conda','prefixDigest':" SHA "}", BAD);
    EXPECT(REL, R, "provenance.environment", "{'source':1,'prefixDigest':" SHA "}", BAD);
    EXPECT(REL, R, "provenance.environment", "{'source':'prefix'}", BAD);
    EXPECT(REL, R, "provenance.environment", "{'source':'prefix','prefixDigest':'x'}", BAD);
    EXPECT(REL, R, "provenance.environment", "{'source':'pixi-lock','lockSha256':" SHA "}", BAD);
    EXPECT(REL, R, "provenance.environment", "{'source':'pixi-lock','pixiVersion':'0.1'}", BAD);
    EXPECT(REL, R, "provenance.environment",
           "{'source':'pixi-lock','pixiVersion':'','lockSha256':" SHA "}", BAD);
    /* the members of one branch are unknown in the other */
    EXPECT(REL, R, "provenance.environment",
           "{'source':'prefix','prefixDigest':" SHA ",'lockSha256':" SHA "}", BAD);
    EXPECT(REL, R, "provenance.environment",
           "{'source':'pixi-lock','pixiVersion':'0.1','lockSha256':" SHA ",'prefixDigest':" SHA "}",
           BAD);
}

static void timestamp_rules(void)
{
    static const struct {
        const char *s;
        int ok;
    } cases[] = {
        {"2026-01-01T00:00:00Z", 1},
        {"1999-12-31T23:59:59Z", 1},
        {"2024-02-29T12:00:00Z", 1},
        {"2000-02-29T12:00:00Z", 1},
        {"0000-01-01T00:00:00Z", 1},
        {"2026-01-01T00:00:00.000Z", 0},
        {"2026-01-01T00:00:00.5Z", 0},
        {"2026-01-01T00:00:00+00:00", 0},
        {"2026-01-01T00:00:00-01:00", 0},
        {"2026-01-01T00:00:00z", 0},
        {"2026-01-01t00:00:00Z", 0},
        {"2026-01-01 00:00:00Z", 0},
        {"2026-01-01T00:00:00", 0},
        {"2026-01-01", 0},
        {"2026-1-01T00:00:00Z", 0},
        {"26-01-01T00:00:00Z", 0},
        {"2026-00-01T00:00:00Z", 0},
        {"2026-13-01T00:00:00Z", 0},
        {"2026-01-00T00:00:00Z", 0},
        {"2026-01-32T00:00:00Z", 0},
        {"2026-02-29T00:00:00Z", 0},
        {"1900-02-29T00:00:00Z", 0},
        {"2026-04-31T00:00:00Z", 0},
        {"2026-01-01T24:00:00Z", 0},
        {"2026-01-01T00:60:00Z", 0},
        {"2026-01-01T00:00:60Z", 0},
        {"2026-01-01T00:00:00Z ", 0},
        {" 2026-01-01T00:00:00Z", 0},
        {"+026-01-01T00:00:00Z", 0},
        {"", 0},
    };
    for (size_t i = 0; i < COUNT(cases); i++) {
        int ok = sc_manifest_timestamp_valid(cases[i].s, strlen(cases[i].s));
        if (ok != cases[i].ok)
            fprintf(stderr, "\n  timestamp \"%s\": got %d\n", cases[i].s, ok);
        CU_ASSERT_EQUAL(ok, cases[i].ok);
    }
    CU_ASSERT_EQUAL(sc_manifest_timestamp_valid("2026-01-01T00:00:00Z\0", 21), 0);
}

static void timestamps_in_documents(void)
{
    EXPECT(REL, R, "provenance.builtAt", "'2026-01-01T00:00:00Z'", OK);
    EXPECT_AT(REL, R, "provenance.builtAt", "'2026-01-01T00:00:00.5Z'", BAD, "$.provenance.builtAt");
    EXPECT(REL, R, "provenance.builtAt", "'2026-01-01T00:00:00+00:00'", BAD);
    EXPECT(REL, R, "provenance.builtAt", "'2026-01-01T00:00:00z'", BAD);
    EXPECT(REL, R, "provenance.builtAt", "''", BAD);
    EXPECT(REL, R, "provenance.builtAt", "1767225600", BAD);
    EXPECT(CHAN, C, "updatedAt", "'2026-01-01T00:00:00.123Z'", BAD);
    EXPECT(REVS, V, "updatedAt", "'2026-01-01T00:00:00+01:00'", BAD);
    EXPECT(REVS, V, "revocations.0.revokedAt", "'2026-01-01t00:00:00z'", BAD);
}

static void release_gates_rules(void)
{
    EXPECT(REL, R, "gates", GATES, OK);
    EXPECT(REL, R, "gates", "{'selfTest':{'imports':['json'],'extra':'pythonFile'}}", OK);
    EXPECT(REL, R, "gates", "{'host':{'nvidiaDriverVersion':'550','gpus':[{'name':'x','computeCapability':'12.10'}]}}", OK);
    EXPECT_AT(REL, R, "gates", "{}", BAD, "$.gates");
    EXPECT(REL, R, "gates", "{'other':1}", BAD);
    EXPECT(REL, R, "gates", "[]", BAD);
    EXPECT(REL_FULL, R, "gates.durationSeconds", "1", BAD);
    /* selfTest */
    EXPECT(REL, R, "gates", "{'selfTest':{'imports':[],'extra':'none'}}", BAD);
    EXPECT(REL, R, "gates", "{'selfTest':{'imports':['a-b'],'extra':'none'}}", BAD);
    EXPECT(REL, R, "gates", "{'selfTest':{'imports':['a'],'extra':'other'}}", BAD);
    EXPECT(REL, R, "gates", "{'selfTest':{'imports':['a']}}", BAD);
    EXPECT(REL, R, "gates", "{'selfTest':{'extra':'none'}}", BAD);
    /* parity */
    EXPECT(REL_FULL, R, "gates.parity.reference", "'tpu'", BAD);
    EXPECT(REL_FULL, R, "gates.parity.reference", "'metal'", OK);
    EXPECT(REL_FULL, R, "gates.parity.tolerances", "{}", BAD);
    EXPECT(REL_FULL, R, "gates.parity.tolerances", "{'other':1}", BAD);
    EXPECT(REL_FULL, R, "gates.parity.tolerances", "{'absolute':0.1,'other':1}", BAD);
    EXPECT(REL_FULL, R, "gates.parity.tolerances", "{'relative':0}", BAD);
    EXPECT(REL_FULL, R, "gates.parity.tolerances", "{'absolute':-1}", BAD);
    EXPECT(REL_FULL, R, "gates.parity.tolerances", "{'minimumCosine':1.5}", BAD);
    EXPECT(REL_FULL, R, "gates.parity.tolerances", "{'minimumCosine':1}", OK);
    EXPECT(REL_FULL, R, "gates.parity.tolerances", "{'minimumCosine':-5}", OK);
    EXPECT(REL_FULL, R, "gates.parity.valueCount", "0", BAD);
    EXPECT(REL_FULL, R, "gates.parity.valueCount", "1.5", BAD);
    EXPECT(REL_FULL, R, "gates.parity.valueCount", DROP, BAD);
    EXPECT(REL_FULL, R, "gates.parity.comparisons", "[]", BAD);
    EXPECT(REL_FULL, R, "gates.parity.comparisons.0.accelerator", "'gpu'", BAD);
    EXPECT(REL_FULL, R, "gates.parity.comparisons.0.maximumAbsoluteError", "-0.1", BAD);
    EXPECT(REL_FULL, R, "gates.parity.comparisons.0.maximumRelativeError", "-1", BAD);
    EXPECT(REL_FULL, R, "gates.parity.comparisons.0.maximumRelativeError", "'0'", BAD);
    EXPECT(REL_FULL, R, "gates.parity.comparisons.0.cosineSimilarity", "-1.5", BAD);
    EXPECT(REL_FULL, R, "gates.parity.comparisons.0.cosineSimilarity", "1.0000001", BAD);
    EXPECT(REL_FULL, R, "gates.parity.comparisons.0.cosineSimilarity", "1", OK);
    EXPECT(REL_FULL, R, "gates.parity.comparisons.0.cosineSimilarity", DROP, BAD);
    EXPECT(REL_FULL, R, "gates.parity.comparisons.0.seconds", "1", BAD);
    /* host */
    EXPECT(REL_FULL, R, "gates.host.nvidiaDriverVersion", "''", BAD);
    EXPECT(REL_FULL, R, "gates.host.gpus", "[]", BAD);
    EXPECT(REL_FULL, R, "gates.host.gpus.0.name", "''", BAD);
    static const char *const caps[] = {"'9'", "'9.'", "'.9'", "'9.0.1'", "'a.b'", "'9,0'",
                                       "' 9.0'", "9.0"};
    for (size_t i = 0; i < COUNT(caps); i++)
        EXPECT(REL_FULL, R, "gates.host.gpus.0.computeCapability", caps[i], BAD);
    EXPECT(REL_FULL, R, "gates.host.gpus.0.computeCapability", "'10.00'", OK);
}

/* ---- box.json (10.3) ------------------------------------------------ */

static void box_requires_each_member(void)
{
    static const char *const names[] = {"schemaVersion", "boxId", "modelId", "runtimeId",
                                        "version", "target", "pythonEntryPoint",
                                        "modelCacheSubdir", "selfTest", "provenance"};
    requires_each(BOX, B, names, COUNT(names), __LINE__);
}

static void box_release_only_members_refused(void)
{
    EXPECT_AT(BOX, B, "kind", "'scrollcase.box.release'", BAD, "$.kind");
    EXPECT(BOX, B, "compatibility", "{}", BAD);
    EXPECT(BOX, B, "archive", "{}", BAD);
    EXPECT(BOX, B, "installedSizeBytes", "1", BAD);
    EXPECT(BOX, B, "payloadDigest", "{}", BAD);
    EXPECT(BOX, B, "gates", GATES, BAD);
}

static void box_members_follow_release_rules(void)
{
    EXPECT(BOX_FULL, B, "assets", DROP, BAD);
    EXPECT(BOX_FULL, B, "weights", DROP, BAD);
    EXPECT(BOX_FULL, B, "assets.0.relativePath", "'/w'", UNSAFE);
    EXPECT(BOX_FULL, B, "execution.script", "'x'", BAD);
    EXPECT(BOX, B, "selfTest.timeoutSeconds", "0", BAD);
    EXPECT(BOX, B, "provenance.environment.source", "'x'", BAD);
    EXPECT(BOX, B, "environment", "{'A=':'x'}", BAD);
}

static char *box_text(const char *q, size_t pad_to)
{
    char *t = sc_test_dq(q);
    size_t n = strlen(t);
    if (pad_to <= n)
        return t;
    char *p = realloc(t, pad_to);
    memset(p + n, ' ', pad_to - n);
    return p;
}

static void box_json_read_size_limit(void)
{
    sc_json *doc = NULL;
    sc_error err;
    sc_manifest_info info;
    char *t = box_text(BOX, SC_BOX_JSON_MAX_BYTES);
    CU_ASSERT_EQUAL(sc_manifest_read_box_json(t, SC_BOX_JSON_MAX_BYTES, &doc, &info, &err), OK);
    CU_ASSERT_PTR_NOT_NULL(doc);
    CU_ASSERT_EQUAL(info.type, B);
    sc_json_free(doc);
    free(t);
    t = box_text(BOX, SC_BOX_JSON_MAX_BYTES + 1);
    CU_ASSERT_EQUAL(sc_manifest_read_box_json(t, SC_BOX_JSON_MAX_BYTES + 1, &doc, NULL, &err),
                    BAD);
    CU_ASSERT_PTR_NULL(doc);
    free(t);
}

static void box_json_read_parses_strictly_then_checks(void)
{
    sc_json *doc = (sc_json *)1;
    sc_error err;
    CU_ASSERT_EQUAL(sc_manifest_read_box_json("{", 1, &doc, NULL, &err), SC_E_INVALID_JSON);
    CU_ASSERT_PTR_NULL(doc);
    CU_ASSERT_EQUAL(sc_manifest_read_box_json("{\"a\":1,\"a\":1}", 13, &doc, NULL, &err),
                    SC_E_INVALID_JSON);
    CU_ASSERT_EQUAL(sc_manifest_read_box_json("[]", 2, &doc, NULL, &err), BAD);
    CU_ASSERT_PTR_NULL(doc);
    char *t = sc_test_dq(BOX);
    t[strlen(t) - 1] = ',';
    char *u = malloc(strlen(t) + 16);
    sprintf(u, "%s\"x\":1}", t);
    CU_ASSERT_EQUAL(sc_manifest_read_box_json(u, strlen(u), &doc, NULL, &err), BAD);
    CU_ASSERT_PTR_NULL(doc);
    free(u);
    free(t);
    t = sc_test_dq(BOX);
    char *v = strstr(t, "\"schemaVersion\":3");
    v[16] = '2';
    CU_ASSERT_EQUAL(sc_manifest_read_box_json(t, strlen(t), &doc, NULL, &err),
                    SC_E_DEPRECATED_SCHEMA_VERSION);
    free(t);
}

/* ---- channel (10.5) ------------------------------------------------- */

static void channel_requires_each_member(void)
{
    static const char *const names[] = {"schemaVersion", "kind", "channel", "boxId", "target",
                                        "updatedAt", "cohortSalt", "releases",
                                        "releases.0.version", "releases.0.releaseManifestUrl",
                                        "releases.0.rolloutPercentage"};
    requires_each(CHAN, C, names, COUNT(names), __LINE__);
}

static void channel_rules(void)
{
    EXPECT(CHAN, C, "channel", "'nightly'", OK);
    EXPECT(CHAN, C, "channel", "'beta'", OK);
    EXPECT_AT(CHAN, C, "channel", "'Stable'", BAD, "$.channel");
    EXPECT(CHAN, C, "channel", "'canary'", BAD);
    EXPECT(CHAN, C, "channel", "1", BAD);
    EXPECT(CHAN, C, "boxId", "'Demo'", BAD);
    EXPECT(CHAN, C, "target", "{'platform':'windows','arch':'aarch64','accelerator':'cpu'}",
           SC_E_UNSUPPORTED_TARGET);
    EXPECT(CHAN, C, "target", "{}", SC_E_INVALID_TARGET);
    EXPECT(CHAN, C, "extra", "1", BAD);
    EXPECT(CHAN, C, "releases.0.extra", "1", BAD);
}

static void channel_cohort_salt_is_32_lower_hex(void)
{
    EXPECT(CHAN, C, "cohortSalt", "'0123456789abcdef0123456789abcdef'", OK);
    EXPECT_AT(CHAN, C, "cohortSalt", "'0123456789abcdef0123456789abcde'", BAD, "$.cohortSalt");
    EXPECT(CHAN, C, "cohortSalt", "'0123456789abcdef0123456789abcdef0'", BAD);
    EXPECT(CHAN, C, "cohortSalt", "'0123456789ABCDEF0123456789abcdef'", BAD);
    EXPECT(CHAN, C, "cohortSalt", "'0123456789abcdef0123456789abcdeg'", BAD);
    EXPECT(CHAN, C, "cohortSalt", "''", BAD);
    EXPECT(CHAN, C, "cohortSalt", "32", BAD);
}

static void channel_releases_rules(void)
{
    EXPECT(CHAN, C, "releases", "[]", BAD);
    EXPECT(CHAN, C, "releases", "{}", BAD);
    EXPECT(CHAN, C, "releases.0.version", "''", BAD);
    EXPECT(CHAN, C, "releases.0.releaseManifestUrl", "''", BAD);
    EXPECT_AT(CHAN, C, "releases.0.rolloutPercentage", "0", BAD, "$.releases[0].rolloutPercentage");
    EXPECT(CHAN, C, "releases.0.rolloutPercentage", "101", BAD);
    EXPECT(CHAN, C, "releases.0.rolloutPercentage", "50.5", BAD);
    EXPECT(CHAN, C, "releases.0.rolloutPercentage", "'50'", BAD);
    EXPECT(CHAN, C, "releases.0.rolloutPercentage", "1", OK);
    EXPECT_REP(CHAN, C, "'rolloutPercentage':100", "'rolloutPercentage':100.0", BAD);
    EXPECT_REP(CHAN, C, "'rolloutPercentage':100", "'rolloutPercentage':1e2", BAD);
}

/* ---- revocations (10.6) --------------------------------------------- */

static void revocations_requires_each_member(void)
{
    static const char *const names[] = {"schemaVersion", "kind", "updatedAt", "revocations",
                                        "revocations.0.boxId", "revocations.0.version",
                                        "revocations.0.reason", "revocations.0.revokedAt"};
    requires_each(REVS, V, names, COUNT(names), __LINE__);
}

static void revocations_rules(void)
{
    EXPECT(REVS, V, "revocations", "[]", OK);
    EXPECT(REVS, V, "revocations", "{}", BAD);
    EXPECT(REVS, V, "revocations.1.target", DROP, OK);
    EXPECT(REVS, V, "revocations.0.boxId", "'Demo'", BAD);
    EXPECT(REVS, V, "revocations.0.version", "''", BAD);
    EXPECT_AT(REVS, V, "revocations.0.reason", "''", BAD, "$.revocations[0].reason");
    EXPECT(REVS, V, "revocations.0.extra", "1", BAD);
    EXPECT(REVS, V, "revocations.1.target", "{'platform':'linux','arch':'x86_64','accelerator':'metal'}",
           SC_E_UNSUPPORTED_TARGET);
    EXPECT(REVS, V, "revocations.1.target", "{'platform':'linux','arch':'x86_64','accelerator':'cpu','cudaVersion':'12.4'}",
           SC_E_INVALID_TARGET);
    EXPECT(REVS, V, "extra", "1", BAD);
}

/* ---- licence inventory (10.7) --------------------------------------- */

static void license_requires_each_member(void)
{
    static const char *const names[] = {"schemaVersion", "kind", "targetId", "lockSha256",
                                        "packages", "packages.0.name", "packages.0.version",
                                        "packages.0.declaredLicense", "packages.0.source"};
    requires_each(LIC, L, names, COUNT(names), __LINE__);
}

static void license_rules(void)
{
    EXPECT(LIC, L, "packages", "[]", OK);
    EXPECT(LIC, L, "targetId", "'linux-x86_64-cuda12.4'", OK);
    EXPECT(LIC, L, "targetId", "'windows-x86_64-cpu'", OK);
    EXPECT_AT(LIC, L, "targetId", "'linux-aarch64-cpu'", BAD, "$.targetId");
    EXPECT(LIC, L, "targetId", "'linux-x86_64-cuda'", BAD);
    EXPECT(LIC, L, "targetId", "'linux-x86_64'", BAD);
    EXPECT(LIC, L, "targetId", "''", BAD);
    EXPECT(LIC, L, "targetId", TGT_CPU, BAD);
    EXPECT(LIC, L, "lockSha256", "'x'", BAD);
    EXPECT(LIC, L, "packages.0.source", "'npm'", BAD);
    EXPECT(LIC, L, "packages.0.source", "'pypi'", OK);
    EXPECT(LIC, L, "packages.0.declaredLicense", "''", BAD);
    EXPECT(LIC, L, "packages.0.extra", "1", BAD);
    EXPECT(LIC, L, "extra", "1", BAD);
}

static void license_packages_sorted_by_name_then_version(void)
{
    EXPECT_AT(LIC, L, "packages", "[" PKG("python", "3.11.8") "," PKG("numpy", "1.26.0") "]",
              BAD, "$.packages[1]");
    /* bytes: upper case sorts before lower case; a prefix before its extensions */
    EXPECT(LIC, L, "packages", "[" PKG("Zlib", "1") "," PKG("abc", "1") "," PKG("abcd", "1") "]", OK);
    EXPECT(LIC, L, "packages", "[" PKG("abcd", "1") "," PKG("abc", "1") "]", BAD);
    /* the same name: by version bytes ("10" before "9") */
    EXPECT(LIC, L, "packages", "[" PKG("a", "10.0") "," PKG("a", "9.0") "]", OK);
    EXPECT(LIC, L, "packages", "[" PKG("a", "9.0") "," PKG("a", "10.0") "]", BAD);
    /* a bad element is reported before the order */
    EXPECT(LIC, L, "packages", "[" PKG("b", "1") ",{'name':'a'}]", BAD);
}

static void license_lists_each_name_and_version_once(void)
{
    /* strictly increasing: an equal (name, version) twice is refused, at the
     * second entry, whatever its licence or source */
    EXPECT_AT(LIC, L, "packages", "[" PKG("a", "1") "," PKG("a", "1") "]", BAD,
              "$.packages[1]");
    EXPECT_AT(LIC, L, "packages", "[" PKG("a", "1") "," PKG("b", "2") "," PKG("b", "2") "]",
              BAD, "$.packages[2]");
    /* names that differ only in case are two packages (bytes) */
    EXPECT(LIC, L, "packages", "[" PKG("A", "1") "," PKG("a", "1") "]", OK);
    EXPECT(LIC, L, "packages", "[" PKG("a", "1") "," PKG("a", "1.0") "]", OK);
}

/* ---- agreement (10.4) ----------------------------------------------- */

static sc_code agree(const char *rel, const char *box, sc_error *err)
{
    sc_json *r = parse_q(rel), *b = parse_q(box);
    sc_code c = sc_manifest_agreement(r, b, err);
    CU_ASSERT_EQUAL(err->code, c);
    sc_json_free(r);
    sc_json_free(b);
    return c;
}

/* box with one member changed (value DROP removes) against release. */
static sc_code agree_mut(const char *rel, const char *box, const char *path,
                         const char *value, sc_error *err)
{
    sc_json *r = parse_q(rel), *b = parse_q(box);
    set_at(b, path, strcmp(value, DROP) == 0 ? NULL : parse_q(value));
    sc_code c = sc_manifest_agreement(r, b, err);
    sc_json_free(r);
    sc_json_free(b);
    return c;
}

static void agreement_same_members_agree(void)
{
    sc_error e;
    sc_test_expect_code_at(agree(REL, BOX, &e), OK, &e, __FILE__, __LINE__);
    sc_test_expect_code_at(agree(REL_FULL, BOX_FULL, &e), OK, &e, __FILE__, __LINE__);
}

static void agreement_each_field_with_its_code(void)
{
    static const struct {
        const char *path, *value;
        sc_code code;
        const char *field;
    } cases[] = {
        {"schemaVersion", "2", SC_E_MANIFEST_DISAGREEMENT, "$.schemaVersion"},
        {"boxId", "'other'", SC_E_MANIFEST_DISAGREEMENT, "$.boxId"},
        {"modelId", "'other'", SC_E_MANIFEST_DISAGREEMENT, "$.modelId"},
        {"runtimeId", "'other'", SC_E_MANIFEST_DISAGREEMENT, "$.runtimeId"},
        {"version", "'1.0.1'", SC_E_MANIFEST_DISAGREEMENT, "$.version"},
        {"target", TGT_CUDA, SC_E_MANIFEST_DISAGREEMENT, "$.target"},
        {"pythonEntryPoint", "'venv/python.exe'", SC_E_MANIFEST_DISAGREEMENT, "$.pythonEntryPoint"},
        {"modelCacheSubdir", "'other'", SC_E_MANIFEST_DISAGREEMENT, "$.modelCacheSubdir"},
        {"environment", "{'HF_HOME':'model-cache','EMPTY':'x'}", SC_E_ENVIRONMENT_DISAGREEMENT, "$.environment"},
        {"environment", DROP, SC_E_ENVIRONMENT_DISAGREEMENT, "$.environment"},
        {"environment", "{}", SC_E_ENVIRONMENT_DISAGREEMENT, "$.environment"},
        {"selfTest.timeoutSeconds", "181", SC_E_MANIFEST_DISAGREEMENT, "$.selfTest"},
        {"execution.defaultArgs", "['--fast']", SC_E_EXECUTION_DISAGREEMENT, "$.execution"},
        {"execution", DROP, SC_E_EXECUTION_DISAGREEMENT, "$.execution"},
        {"weights", DROP, SC_E_MANIFEST_DISAGREEMENT, "$.weights"},
        {"assets.0.sizeBytes", "6", SC_E_MANIFEST_DISAGREEMENT, "$.assets"},
        {"provenance.builtAt", "'2026-01-01T00:00:01Z'", SC_E_MANIFEST_DISAGREEMENT, "$.provenance"},
        {"provenance.environment.pixiVersion", "'0.41.0'", SC_E_MANIFEST_DISAGREEMENT, "$.provenance"},
    };
    for (size_t i = 0; i < COUNT(cases); i++) {
        sc_error e;
        sc_code c = agree_mut(REL_FULL, BOX_FULL, cases[i].path, cases[i].value, &e);
        sc_test_expect_code_at(c, cases[i].code, &e, __FILE__, __LINE__);
        expect_names_at(&e, cases[i].field, __LINE__);
        CU_ASSERT_STRING_EQUAL(e.path, cases[i].field);
    }
}

static void agreement_absent_equals_only_absent(void)
{
    sc_error e;
    /* environment present in box.json, absent from the release */
    sc_test_expect_code_at(agree_mut(REL, BOX, "environment", "{}", &e), SC_E_ENVIRONMENT_DISAGREEMENT,
                   &e, __FILE__, __LINE__);
    sc_test_expect_code_at(agree_mut(REL, BOX, "execution",
                             "{'kind':'python-module','module':'a','defaultArgs':[]}", &e),
                   SC_E_EXECUTION_DISAGREEMENT, &e, __FILE__, __LINE__);
    sc_test_expect_code_at(agree_mut(REL, BOX, "assets", "[]", &e), SC_E_MANIFEST_DISAGREEMENT, &e, __FILE__,
                   __LINE__);
}

static void agreement_order_and_numbers_ignored(void)
{
    sc_error e;
    /* member order of objects is ignored */
    sc_test_expect_code_at(agree_mut(REL, BOX, "target",
                             "{'accelerator':'cpu','arch':'x86_64','platform':'linux'}", &e),
                   OK, &e, __FILE__, __LINE__);
    /* numbers compare by value */
    sc_json *r = parse_q(REL);
    char *t = sc_test_dq(BOX);
    char *at = strstr(t, "180");
    char *u = malloc(strlen(t) + 8);
    sprintf(u, "%.*s1.8e2%s", (int)(at - t), t, at + 3);
    sc_json *b = NULL;
    CU_ASSERT_EQUAL_FATAL(sc_json_parse(u, strlen(u), &b, &e), OK);
    CU_ASSERT_EQUAL(sc_manifest_agreement(r, b, &e), OK);
    sc_json_free(b);
    sc_json_free(r);
    free(u);
    free(t);
    /* array order is not ignored */
    sc_test_expect_code_at(agree_mut(REL, BOX, "selfTest.pythonImports", "['json','os']", &e),
                   SC_E_MANIFEST_DISAGREEMENT, &e, __FILE__, __LINE__);
}

static void agreement_release_only_members_not_compared(void)
{
    sc_error e;
    /* kind, compatibility, archive, installedSizeBytes, payloadDigest, gates
     * live in the release only; REL_FULL has all of them, BOX_FULL none */
    sc_test_expect_code_at(agree(REL_FULL, BOX_FULL, &e), OK, &e, __FILE__, __LINE__);
    /* a member outside the 14 in box.json is not compared either */
    sc_test_expect_code_at(agree_mut(REL, BOX, "gates", "{}", &e), OK, &e, __FILE__, __LINE__);
}

static void agreement_first_difference_wins(void)
{
    sc_json *r = parse_q(REL_FULL), *b = parse_q(BOX_FULL);
    sc_error e;
    set_at(b, "execution", NULL);
    set_at(b, "environment", parse_q("{}"));
    sc_test_expect_code_at(sc_manifest_agreement(r, b, &e), SC_E_ENVIRONMENT_DISAGREEMENT, &e, __FILE__, __LINE__);
    set_at(b, "modelCacheSubdir", parse_q("'x'"));
    sc_test_expect_code_at(sc_manifest_agreement(r, b, &e), SC_E_MANIFEST_DISAGREEMENT, &e, __FILE__, __LINE__);
    expect_names_at(&e, "$.modelCacheSubdir", __LINE__);
    sc_json_free(b);
    b = parse_q(BOX_FULL);
    set_at(b, "execution", NULL);
    set_at(b, "provenance", parse_q("{}"));
    sc_test_expect_code_at(sc_manifest_agreement(r, b, &e), SC_E_EXECUTION_DISAGREEMENT, &e, __FILE__, __LINE__);
    sc_json_free(b);
    sc_json_free(r);
}

/* ---- registration --------------------------------------------------- */

#define MANIFEST_TESTS(X)                                                     \
    X(valid_documents_pass)                                                   \
    X(release_member_wrong_types)                                             \
    X(box_member_wrong_types)                                                 \
    X(channel_member_wrong_types)                                             \
    X(revocations_member_wrong_types)                                         \
    X(license_member_wrong_types)                                             \
    X(any_accepts_each_kind)                                                  \
    X(info_names_kind_namespace_identity)                                     \
    X(info_long_namespace_is_truncated_not_refused)                           \
    X(info_long_version_truncates_identity)                                   \
    X(long_member_names_are_cut_in_messages)                                  \
    X(s7_payload_must_be_object)                                              \
    X(s8_version_absent_is_invalid_manifest)                                  \
    X(s8_version_1_and_2_deprecated)                                          \
    X(s8_other_versions_unsupported)                                          \
    X(s8_version_before_kind_and_schema)                                      \
    X(kind_parse_rules)                                                       \
    X(kind_x_release_accepted)                                                \
    X(kind_invalid_refused)                                                   \
    X(kind_missing_or_not_string_refused)                                     \
    X(kind_must_be_the_expected_type)                                         \
    X(kind_before_schema)                                                     \
    X(kind_any_namespace_accepted)                                            \
    X(release_requires_each_member)                                           \
    X(release_optional_members_may_be_absent)                                 \
    X(release_required_before_members)                                        \
    X(release_members_in_table_order)                                         \
    X(release_unknown_member_refused)                                         \
    X(release_ids_are_slugs)                                                  \
    X(release_version_is_text)                                                \
    X(release_target_reports_section_4_codes)                                 \
    X(release_compatibility_is_open)                                          \
    X(release_compatibility_host_environments)                                \
    X(release_archive_rules)                                                  \
    X(release_installed_size_required_integer)                                \
    X(release_payload_digest_required)                                        \
    X(release_entry_point_equals_target)                                      \
    X(release_model_cache_subdir_is_path)                                     \
    X(release_self_test_rules)                                                \
    X(release_environment_rules)                                              \
    X(release_execution_rules)                                                \
    X(release_weights_iff_assets)                                             \
    X(release_asset_rules)                                                    \
    X(release_provenance_requires_each_member)                                \
    X(release_provenance_rules)                                               \
    X(provenance_environment_one_of)                                          \
    X(timestamp_rules)                                                        \
    X(timestamps_in_documents)                                                \
    X(release_gates_rules)                                                    \
    X(box_requires_each_member)                                               \
    X(box_release_only_members_refused)                                       \
    X(box_members_follow_release_rules)                                       \
    X(box_json_read_size_limit)                                               \
    X(box_json_read_parses_strictly_then_checks)                              \
    X(channel_requires_each_member)                                           \
    X(channel_rules)                                                          \
    X(channel_cohort_salt_is_32_lower_hex)                                    \
    X(channel_releases_rules)                                                 \
    X(revocations_requires_each_member)                                       \
    X(revocations_rules)                                                      \
    X(license_requires_each_member)                                           \
    X(license_rules)                                                          \
    X(license_packages_sorted_by_name_then_version)                           \
    X(license_lists_each_name_and_version_once)                               \
    X(agreement_same_members_agree)                                           \
    X(agreement_each_field_with_its_code)                                     \
    X(agreement_absent_equals_only_absent)                                    \
    X(agreement_order_and_numbers_ignored)                                    \
    X(agreement_release_only_members_not_compared)                            \
    X(agreement_first_difference_wins)

void register_manifest_tests(void)
{
    CU_pSuite s = CU_add_suite("manifest", NULL, NULL);
    if (s == NULL)
        CU_FAIL_FATAL("CU_add_suite failed");
#define ADD(fn) SC_ADD_TEST(s, fn);
    MANIFEST_TESTS(ADD)
#undef ADD
}
