/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_scroll.c — docs/format-v3.md sections 5 (scrolls) and 6 (workspace),
 * black-box.
 *
 * Scrolls are resolved from memory (sc_scroll_resolve) and loaded from
 * temporary workspaces (sc_scroll_load, sc_scroll_list_refs); the config is
 * checked with sc_config_check and sc_workspace_resolve.  Each test names the
 * rule it pins; a test of the form sN_before_sM shows that step N of 5.3 is
 * reported when steps N and M both fail.
 *
 * JSON in this file is written with single quotes for legibility; sc_test_dq()
 * turns them into double quotes (no test value contains a quote).
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "scrollcase/config.h"
#include "scrollcase/error.h"
#include "scrollcase/file.h"
#include "scrollcase/json.h"
#include "scrollcase/scroll.h"
#include "scrollcase/target.h"

/* ---- fixtures --------------------------------------------------------- */

#define A16 "aaaaaaaaaaaaaaaa"
#define SHA "'" A16 A16 A16 A16 "'"
#define TGT_CPU "{'platform':'linux','arch':'x86_64','accelerator':'cpu'}"
#define TGT_CUDA "{'platform':'linux','arch':'x86_64','accelerator':'cuda','cudaVersion':'12.4'}"
#define TGT_WIN "{'platform':'windows','arch':'x86_64','accelerator':'cpu'}"
#define ASSET(p) "{'url':'https://example.com/x','relativePath':'" p "','sizeBytes':1,'sha256':" SHA "}"
#define LOCAL(p) "{'sourcePath':'src/" p "','relativePath':'" p "'}"
#define ARCHIVE(p, d) "{'relativePath':'" p "','format':'zip','destination':'" d "'}"

/* The smallest valid scroll: demo / linux-x86_64-cpu. */
static const char MIN[] =
    "{'schemaVersion':3,'boxId':'demo','modelId':'demo-model','runtimeId':'torch',"
    "'version':'1.0.0','sourceRevision':'abc123','target':" TGT_CPU ","
    "'pythonVersion':'3.11','pixiVersion':'0.40.0','selfTest':{'imports':['json']}}";

/* A base and a target scroll that extends it; together they equal MIN. */
static const char BASE[] =
    "{'schemaVersion':3,'boxId':'demo','modelId':'demo-model','runtimeId':'torch',"
    "'version':'1.0.0','sourceRevision':'abc123','pythonVersion':'3.11',"
    "'pixiVersion':'0.40.0','selfTest':{'imports':['json']}}";
static const char FRAG[] = "{'extends':'../scroll.json','target':" TGT_CPU "}";

#define MIN_EFFECTIVE_KEYS                                                     \
    "schemaVersion boxId modelId runtimeId version sourceRevision target "     \
    "pythonVersion pixiVersion selfTest scrollId scrollVersion compatibility " \
    "pythonEntryPoint modelCacheSubdir assets"

#define FRAG_NAME "scrolls/demo/linux-x86_64-cpu/scroll.json"
#define BASE_NAME "scrolls/demo/scroll.json"

/* ---- helpers ---------------------------------------------------------- */


static void expect_names_at(const sc_error *err, const char *field, int line)
{
    int ok = strstr(err->message, field) != NULL;
    if (!ok)
        fprintf(stderr, "\n  line %d: message does not name %s: %s\n", line,
                field, err->message);
    CU_assertImplementation(ok, (unsigned)line, "message names the field",
                            __FILE__, "", CU_FALSE);
}
#define EXPECT_NAMES(err, field) expect_names_at((err), (field), __LINE__)

/* Parse single-quoted JSON text; NULL (and a failure) if it does not parse. */
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

/*
 * text with every member of the object `set` set (replaced in place, or
 * appended) and every space-separated key of `drop` removed.  Returned
 * double-quoted (caller frees).
 */
static char *patch(const char *text, const char *set, const char *drop)
{
    sc_json *doc = parse_q(text);
    if (doc == NULL)
        return strdup("null");
    if (set != NULL) {
        sc_json *o = parse_q(set);
        for (const sc_json *m = o ? o->child : NULL; m; m = m->next)
            sc_json_object_set(doc, m->key, sc_json_copy(m));
        sc_json_free(o);
    }
    if (drop != NULL) {
        char *d = strdup(drop);
        for (char *k = strtok(d, " "); k; k = strtok(NULL, " "))
            sc_json_object_remove(doc, k);
        free(d);
    }
    char *out = NULL;
    size_t len = 0;
    sc_error err;
    if (sc_json_write(doc, &out, &len, &err) != SC_OK)
        out = strdup("null");
    sc_json_free(doc);
    return out;
}

/*
 * Resolve fragment (and base; NULL: absent) from memory.  Texts may use
 * single quotes.  box/tgt NULL skips the layout check.
 */
static sc_code res(const char *frag, const char *base, const char *box,
                   const char *tgt, sc_scroll **out, sc_error *err)
{
    char *f = sc_test_dq(frag);
    char *b = base ? sc_test_dq(base) : NULL;
    sc_scroll_source fs = {f, strlen(f), FRAG_NAME};
    sc_scroll_source bs = {b, b ? strlen(b) : 0, BASE_NAME};
    sc_scroll *s = NULL;
    sc_error_clear(err);
    sc_code c = sc_scroll_resolve(&fs, &bs, box, tgt, &s, err);
    free(f);
    free(b);
    if (c != SC_OK) {
        CU_ASSERT_EQUAL(err->code, c);
        s = NULL;
    }
    if (out != NULL)
        *out = s;
    else
        sc_scroll_free(s);
    return c;
}

/* MIN patched, resolved without layout check. */
static sc_code chk(const char *set, const char *drop, sc_error *err)
{
    char *t = patch(MIN, set, drop);
    sc_code c = res(t, NULL, NULL, NULL, NULL, err);
    free(t);
    return c;
}

/*
 * MIN spelled out by hand, with no JSON round trip (so that number literals
 * such as 1.0, 1e0 and -0 reach the reader as written): the version, the
 * selfTest object and extra members (text starting with ',') are spliced in.
 */
static sc_code chk_raw(const char *version, const char *self_test, const char *extra,
                       sc_error *err)
{
    char text[4096];
    snprintf(text, sizeof text,
             "{'schemaVersion':%s,'boxId':'demo','modelId':'demo-model','runtimeId':'torch',"
             "'version':'1.0.0','sourceRevision':'abc123','target':" TGT_CPU ","
             "'pythonVersion':'3.11','pixiVersion':'0.40.0','selfTest':%s%s}",
             version ? version : "3", self_test ? self_test : "{'imports':['json']}",
             extra ? extra : "");
    return res(text, NULL, NULL, NULL, NULL, err);
}

/* MIN patched, resolved; the scroll (a failure and NULL if it does not resolve). */
static sc_scroll *ok_at(const char *set, const char *drop, int line)
{
    char *t = patch(MIN, set, drop);
    sc_scroll *s = NULL;
    sc_error err;
    sc_code c = res(t, NULL, NULL, NULL, &s, &err);
    sc_test_expect_code_at(c, SC_OK, &err, __FILE__, line);
    free(t);
    return s;
}
#define OK_SCROLL(set, drop) ok_at((set), (drop), __LINE__)

/* The split pair patched and resolved. */
static sc_code split(const char *frag_set, const char *base_set,
                     const char *base_drop, sc_scroll **out, sc_error *err)
{
    char *f = patch(FRAG, frag_set, NULL);
    char *b = patch(BASE, base_set, base_drop);
    sc_code c = res(f, b, NULL, NULL, out, err);
    free(f);
    free(b);
    return c;
}

#define EXPECT_CHK(set, drop, want)                                        \
    do {                                                                   \
        sc_error e_;                                                       \
        sc_test_expect_code_at(chk((set), (drop), &e_), (want), &e_, __FILE__, __LINE__);    \
    } while (0)

/* "k1 k2 ..." of an object's members, in order (static buffer). */
static const char *keys_of(const sc_json *o)
{
    static char buf[2048];
    buf[0] = '\0';
    for (const sc_json *m = o ? o->child : NULL; m; m = m->next) {
        if (buf[0] != '\0')
            strncat(buf, " ", sizeof buf - strlen(buf) - 1);
        strncat(buf, m->key, sizeof buf - strlen(buf) - 1);
    }
    return buf;
}

/* "a b ..." of an array of strings (or of the `field` of each object element). */
static const char *strings_of(const sc_json *a, const char *field)
{
    static char buf[2048];
    buf[0] = '\0';
    for (const sc_json *m = a ? a->child : NULL; m; m = m->next) {
        const sc_json *v = field ? sc_json_get(m, field) : m;
        const char *s = sc_json_cstr(v);
        if (buf[0] != '\0')
            strncat(buf, " ", sizeof buf - strlen(buf) - 1);
        strncat(buf, s ? s : "<?>", sizeof buf - strlen(buf) - 1);
    }
    return buf;
}

static const char *eff_str(const sc_scroll *s, const char *key)
{
    return sc_json_cstr(sc_json_get(s->effective, key));
}

static sc_json *eff(const sc_scroll *s, const char *key)
{
    return sc_json_get(s->effective, key);
}

static char *write_text(const sc_json *v)
{
    char *out = NULL;
    size_t len = 0;
    sc_error err;
    if (sc_json_write(v, &out, &len, &err) != SC_OK)
        return NULL;
    return out;
}

static void ws_mkdir(const sc_test_ws *w, const char *rel)
{
    char *p = sc_path_join(w->scrolls, rel);
    mkdir(p, 0755);
    free(p);
}

/* ---- 5.3 step 2: parse ------------------------------------------------- */

static void s2_parse_invalid_json(void)
{
    sc_error err;
    SC_EXPECT_CODE(res("{", NULL, NULL, NULL, NULL, &err), SC_E_INVALID_JSON, &err);
    SC_EXPECT_CODE(res("", NULL, NULL, NULL, NULL, &err), SC_E_INVALID_JSON, &err);
    SC_EXPECT_CODE(res("{'schemaVersion':2,", NULL, NULL, NULL, NULL, &err),
                SC_E_INVALID_JSON, &err);
    SC_EXPECT_CODE(res("\xEF\xBB\xBF{}", NULL, NULL, NULL, NULL, &err), SC_E_INVALID_JSON,
                &err);
}

static void s2_parse_is_strict(void)
{
    sc_error err;
    /* duplicate key, trailing garbage: the strict reader refuses both */
    SC_EXPECT_CODE(res("{'boxId':'a','boxId':'a'}", NULL, NULL, NULL, NULL, &err),
                SC_E_INVALID_JSON, &err);
    char *t = patch(MIN, NULL, NULL);
    size_t n = strlen(t);
    char *u = malloc(n + 3);
    memcpy(u, t, n);
    memcpy(u + n, " x", 3);
    SC_EXPECT_CODE(res(u, NULL, NULL, NULL, NULL, &err), SC_E_INVALID_JSON, &err);
    free(u);
    free(t);
}

static void s2_top_level_must_be_object(void)
{
    sc_error err;
    SC_EXPECT_CODE(res("[]", NULL, NULL, NULL, NULL, &err), SC_E_INVALID_SCROLL, &err);
    SC_EXPECT_CODE(res("'scroll'", NULL, NULL, NULL, NULL, &err), SC_E_INVALID_SCROLL, &err);
    SC_EXPECT_CODE(res("3", NULL, NULL, NULL, NULL, &err), SC_E_INVALID_SCROLL, &err);
    SC_EXPECT_CODE(res("null", NULL, NULL, NULL, NULL, &err), SC_E_INVALID_SCROLL, &err);
}

/* ---- step 3: version --------------------------------------------------- */

static void s3_version_1_and_2_deprecated(void)
{
    EXPECT_CHK("{'schemaVersion':1}", NULL, SC_E_DEPRECATED_SCHEMA_VERSION);
    EXPECT_CHK("{'schemaVersion':2}", NULL, SC_E_DEPRECATED_SCHEMA_VERSION);
}

static void s3_other_versions_unsupported(void)
{
    static const char *const v[] = {"0", "4", "'3'", "3.0", "3e0", "null", "true", "-3",
                                    "2.0", "[3]"};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        sc_error err;
        SC_EXPECT_CODE(chk_raw(v[i], NULL, NULL, &err), SC_E_UNSUPPORTED_SCHEMA_VERSION, &err);
    }
}

/* 3.0 is not the integer 3: the message shows the literal and says why. */
static void s3_fractional_three_says_it_must_be_the_integer(void)
{
    static const char *const v[] = {"{'schemaVersion':3.0}", "{'schemaVersion':3e0}"};
    for (size_t i = 0; i < 2; i++) {
        sc_error err;
        sc_json *d = parse_q(v[i]);
        SC_EXPECT_CODE(sc_scroll_check_version(d, "x.json", &err),
                       SC_E_UNSUPPORTED_SCHEMA_VERSION, &err);
        CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "3.0"));
        CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "must be the integer 3"));
        sc_json_free(d);
    }
}

static void s3_missing_version_is_invalid_scroll(void)
{
    sc_error err;
    SC_EXPECT_CODE(chk(NULL, "schemaVersion", &err), SC_E_INVALID_SCROLL, &err);
    EXPECT_NAMES(&err, "schemaVersion");
}

static void s3_check_version_direct(void)
{
    sc_error err;
    sc_json *d = parse_q("{'schemaVersion':2}");
    SC_EXPECT_CODE(sc_scroll_check_version(d, "x.json", &err), SC_E_DEPRECATED_SCHEMA_VERSION,
                &err);
    sc_json_free(d);
    d = parse_q("{'schemaVersion':3}");
    SC_EXPECT_CODE(sc_scroll_check_version(d, "x.json", &err), SC_OK, &err);
    sc_json_free(d);
    d = parse_q("{'boxId':'a'}");
    SC_EXPECT_CODE(sc_scroll_check_version(d, "x.json", &err), SC_OK, &err);
    sc_json_free(d);
    d = parse_q("{'schemaVersion':3.0}");
    SC_EXPECT_CODE(sc_scroll_check_version(d, "x.json", &err),
                SC_E_UNSUPPORTED_SCHEMA_VERSION, &err);
    sc_json_free(d);
}

static void s3_before_s5(void)
{
    /* deprecated version and schema breaches: the version wins */
    EXPECT_CHK("{'schemaVersion':2,'boxId':'Not A Slug','foo':1}", "target",
               SC_E_DEPRECATED_SCHEMA_VERSION);
    EXPECT_CHK("{'schemaVersion':4,'target':{'platform':'beos'}}", NULL,
               SC_E_UNSUPPORTED_SCHEMA_VERSION);
}

static void s3_before_s4(void)
{
    /* v2 fragment with a broken extends and no base: the version wins */
    sc_error err;
    SC_EXPECT_CODE(res("{'schemaVersion':2,'extends':'base.json'}", NULL, NULL, NULL, NULL, &err),
                SC_E_DEPRECATED_SCHEMA_VERSION, &err);
    SC_EXPECT_CODE(res("{'schemaVersion':2,'extends':'../scroll.json'}", "{", NULL, NULL, NULL,
                    &err),
                SC_E_DEPRECATED_SCHEMA_VERSION, &err);
}

/* ---- step 4: base ------------------------------------------------------ */

static void s4_extends_must_be_the_constant(void)
{
    sc_error err;
    static const char *const v[] = {"'scroll.json'", "'../scroll.json '", "'../Scroll.json'",
                                    "'../../scroll.json'", "true", "null", "['../scroll.json']"};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        char set[64];
        snprintf(set, sizeof set, "{'extends':%s}", v[i]);
        SC_EXPECT_CODE(split(set, NULL, NULL, NULL, &err), SC_E_INVALID_SCROLL, &err);
    }
}

static void s4_base_must_exist(void)
{
    sc_error err;
    char *f = patch(FRAG, NULL, NULL);
    SC_EXPECT_CODE(res(f, NULL, NULL, NULL, NULL, &err), SC_E_INVALID_SCROLL, &err);
    free(f);
}

static void s4_base_must_parse(void)
{
    sc_error err;
    SC_EXPECT_CODE(res(FRAG, "{'boxId':", NULL, NULL, NULL, &err), SC_E_INVALID_JSON, &err);
}

static void s4_base_must_be_object(void)
{
    sc_error err;
    SC_EXPECT_CODE(res(FRAG, "[]", NULL, NULL, NULL, &err), SC_E_INVALID_SCROLL, &err);
}

static void s4_base_version_checked(void)
{
    sc_error err;
    SC_EXPECT_CODE(split(NULL, "{'schemaVersion':2}", NULL, NULL, &err),
                SC_E_DEPRECATED_SCHEMA_VERSION, &err);
    SC_EXPECT_CODE(split(NULL, "{'schemaVersion':'3'}", NULL, NULL, &err),
                SC_E_UNSUPPORTED_SCHEMA_VERSION, &err);
}

static void s4_base_declares_no_target(void)
{
    sc_error err;
    SC_EXPECT_CODE(split(NULL, "{'target':" TGT_CPU "}", NULL, NULL, &err),
                SC_E_INVALID_SCROLL, &err);
}

static void s4_base_declares_no_extends(void)
{
    sc_error err;
    SC_EXPECT_CODE(split(NULL, "{'extends':'../scroll.json'}", NULL, NULL, &err),
                SC_E_INVALID_SCROLL, &err);
}

static void s4_base_version_before_base_target(void)
{
    sc_error err;
    SC_EXPECT_CODE(split(NULL, "{'schemaVersion':1,'target':" TGT_CPU "}", NULL, NULL, &err),
                SC_E_DEPRECATED_SCHEMA_VERSION, &err);
}

static void s4_base_ignored_without_extends(void)
{
    sc_error err;
    char *t = patch(MIN, NULL, NULL);
    SC_EXPECT_CODE(res(t, "{ not json", NULL, NULL, NULL, &err), SC_OK, &err);
    free(t);
}

static void s4_before_s5(void)
{
    sc_error err;
    /* unreadable base beats a fragment with a bad target and unknown member */
    SC_EXPECT_CODE(res("{'extends':'../scroll.json','target':{'platform':1},'foo':1}", "[",
                    NULL, NULL, NULL, &err),
                SC_E_INVALID_JSON, &err);
    /* deprecated base beats an unsupported target */
    SC_EXPECT_CODE(split("{'target':{'platform':'linux','arch':'aarch64','accelerator':'cpu'}}",
                      "{'schemaVersion':2}", NULL, NULL, &err),
                SC_E_DEPRECATED_SCHEMA_VERSION, &err);
}

/* ---- step 5: schema ------------------------------------------------------ */

static void s5_minimal_scroll_resolves(void)
{
    sc_scroll *s = OK_SCROLL(NULL, NULL);
    if (s == NULL)
        return;
    CU_ASSERT_STRING_EQUAL(s->box_id, "demo");
    CU_ASSERT_STRING_EQUAL(s->target_id, "linux-x86_64-cpu");
    CU_ASSERT_EQUAL(s->target.platform, SC_PLATFORM_LINUX);
    CU_ASSERT_EQUAL(s->target.accelerator, SC_ACCEL_CPU);
    CU_ASSERT_PTR_NULL(s->path);
    CU_ASSERT_PTR_NULL(s->base_path);
    sc_scroll_free(s);
}

static void s5_each_required_member(void)
{
    static const char *const req[] = {"schemaVersion", "boxId", "modelId", "runtimeId",
                                      "version", "sourceRevision", "pythonVersion",
                                      "selfTest", "pixiVersion"};
    for (size_t i = 0; i < sizeof req / sizeof req[0]; i++) {
        sc_error err;
        SC_EXPECT_CODE(chk(NULL, req[i], &err), SC_E_INVALID_SCROLL, &err);
        EXPECT_NAMES(&err, req[i]);
    }
}

static void s5_required_in_listed_order(void)
{
    sc_error err;
    /* selfTest comes before pixiVersion in the required order */
    SC_EXPECT_CODE(chk(NULL, "pixiVersion selfTest", &err), SC_E_INVALID_SCROLL, &err);
    EXPECT_NAMES(&err, "$.selfTest");
    CU_ASSERT_PTR_NULL(strstr(err.message, "pixiVersion"));
    /* boxId before modelId */
    SC_EXPECT_CODE(chk(NULL, "modelId boxId", &err), SC_E_INVALID_SCROLL, &err);
    EXPECT_NAMES(&err, "$.boxId");
}

static void s5_required_before_member_checks(void)
{
    sc_error err;
    SC_EXPECT_CODE(chk("{'boxId':'Not A Slug'}", "pixiVersion", &err), SC_E_INVALID_SCROLL, &err);
    EXPECT_NAMES(&err, "$.pixiVersion");
}

static void s5_members_in_table_order(void)
{
    /* weights is declared first, scrollVersion last: the table puts
       scrollVersion first */
    sc_error err;
    SC_EXPECT_CODE(res("{'weights':'lazy','schemaVersion':3,'boxId':'demo','modelId':'m',"
                    "'runtimeId':'r','version':'1','sourceRevision':'s','target':" TGT_CPU ","
                    "'pythonVersion':'3.11','pixiVersion':'0.1',"
                    "'selfTest':{'imports':['json']},'scrollVersion':''}",
                    NULL, NULL, NULL, NULL, &err),
                SC_E_INVALID_SCROLL, &err);
    EXPECT_NAMES(&err, "$.scrollVersion");
}

static void s5_unknown_member_refused(void)
{
    sc_error err;
    SC_EXPECT_CODE(chk("{'foo':1}", NULL, &err), SC_E_INVALID_SCROLL, &err);
    EXPECT_NAMES(&err, "$.foo");
    /* keys are case-sensitive: BoxId is unknown */
    SC_EXPECT_CODE(chk("{'BoxId':'demo'}", NULL, &err), SC_E_INVALID_SCROLL, &err);
    EXPECT_NAMES(&err, "BoxId");
}

static void s5_unknown_members_after_known(void)
{
    sc_error err;
    SC_EXPECT_CODE(res("{'zzz':1,'schemaVersion':3,'boxId':'demo','modelId':'m','runtimeId':'r',"
                    "'version':'1','sourceRevision':'s','target':" TGT_CPU ","
                    "'pythonVersion':'3.11','pixiVersion':'0.1',"
                    "'selfTest':{'imports':['json']},'weights':'lazy'}",
                    NULL, NULL, NULL, NULL, &err),
                SC_E_INVALID_SCROLL, &err);
    EXPECT_NAMES(&err, "$.weights");
}

static void s5_unknown_members_in_declaration_order(void)
{
    sc_error err;
    SC_EXPECT_CODE(chk("{'zeta':1,'alpha':2}", NULL, &err), SC_E_INVALID_SCROLL, &err);
    EXPECT_NAMES(&err, "$.zeta");
    CU_ASSERT_PTR_NULL(strstr(err.message, "alpha"));
}

static void s5_nested_unknown_member_refused(void)
{
    sc_error err;
    SC_EXPECT_CODE(chk("{'selfTest':{'imports':['json'],'retries':2}}", NULL, &err),
                SC_E_INVALID_SCROLL, &err);
    EXPECT_NAMES(&err, "retries");
    EXPECT_CHK("{'assets':[{'url':'u','relativePath':'m','sizeBytes':1,'sha256':" SHA
               ",'md5':'x'}]}",
               NULL, SC_E_INVALID_SCROLL);
}

static void s5_target_reports_section_4_codes(void)
{
    EXPECT_CHK("{'target':{'platform':'linux','arch':'x86_64','accelerator':'cpu','os':1}}",
               NULL, SC_E_INVALID_TARGET);
    EXPECT_CHK("{'target':{'platform':'linux','arch':'aarch64','accelerator':'cpu'}}", NULL,
               SC_E_UNSUPPORTED_TARGET);
    EXPECT_CHK("{'target':{'platform':'linux','arch':'x86_64','accelerator':'cuda'}}", NULL,
               SC_E_INVALID_TARGET);
    EXPECT_CHK("{'target':'linux-x86_64-cpu'}", NULL, SC_E_INVALID_TARGET);
}

static void s5_target_checked_at_its_place(void)
{
#define BAD_TGT "'target':{'platform':'linux','arch':'aarch64','accelerator':'cpu'}"
    /* a missing required member comes first */
    EXPECT_CHK("{" BAD_TGT "}", "pixiVersion", SC_E_INVALID_SCROLL);
    /* boxId is before target in the table */
    EXPECT_CHK("{" BAD_TGT ",'boxId':'Demo'}", NULL, SC_E_INVALID_SCROLL);
    /* compatibility, weights and unknown members come after it */
    EXPECT_CHK("{" BAD_TGT ",'compatibility':'x','weights':'lazy','foo':1}", NULL,
               SC_E_UNSUPPORTED_TARGET);
#undef BAD_TGT
}

static void s5_schema_constant(void)
{
    EXPECT_CHK("{'$schema':'https://scrollcase.dev/schema/v2/scroll.schema.json'}", NULL,
               SC_E_INVALID_SCROLL);
    EXPECT_CHK("{'$schema':3}", NULL, SC_E_INVALID_SCROLL);
    sc_scroll *s = OK_SCROLL("{'$schema':'" SC_SCROLL_SCHEMA_ID "'}", NULL);
    sc_scroll_free(s);
}

static void s5_slug_ids(void)
{
    static const char *const bad[] = {"'Demo'", "'a_b'", "'a--b'", "'a.'", "'-a'", "''",
                                      "'a b'", "'a..b'", "3"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char set[96];
        snprintf(set, sizeof set, "{'modelId':%s}", bad[i]);
        sc_error err;
        SC_EXPECT_CODE(chk(set, NULL, &err), SC_E_INVALID_SCROLL, &err);
    }
    EXPECT_CHK("{'runtimeId':'Torch'}", NULL, SC_E_INVALID_SCROLL);
    EXPECT_CHK("{'boxId':'demo_box'}", NULL, SC_E_INVALID_SCROLL);
    sc_scroll *s = OK_SCROLL("{'modelId':'a.b-c1','runtimeId':'0'}", NULL);
    sc_scroll_free(s);
}

static void s5_text_members_non_empty(void)
{
    static const char *const keys[] = {"version", "sourceRevision", "pythonVersion",
                                       "pixiVersion", "scrollId", "scrollVersion",
                                       "assetBaseUrl", "pythonEntryPoint"};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        char set[96];
        sc_error err;
        snprintf(set, sizeof set, "{'%s':''}", keys[i]);
        SC_EXPECT_CODE(chk(set, NULL, &err), SC_E_INVALID_SCROLL, &err);
        snprintf(set, sizeof set, "{'%s':7}", keys[i]);
        SC_EXPECT_CODE(chk(set, NULL, &err), SC_E_INVALID_SCROLL, &err);
    }
}

static void s5_compatibility_is_open(void)
{
    sc_scroll *s = OK_SCROLL("{'compatibility':{'minRamGb':0.5,'minMacosVersion':'13.0',"
                             "'somethingNew':[1,2]}}",
                             NULL);
    if (s != NULL)
        CU_ASSERT_STRING_EQUAL(keys_of(eff(s, "compatibility")),
                               "minRamGb minMacosVersion somethingNew");
    sc_scroll_free(s);
}

static void s5_compatibility_known_members(void)
{
    EXPECT_CHK("{'compatibility':{'minRamGb':0}}", NULL, SC_E_INVALID_SCROLL);
    EXPECT_CHK("{'compatibility':{'minRamGb':-1}}", NULL, SC_E_INVALID_SCROLL);
    EXPECT_CHK("{'compatibility':{'minRamGb':'8'}}", NULL, SC_E_INVALID_SCROLL);
    EXPECT_CHK("{'compatibility':{'minNvidiaDriverVersion':''}}", NULL, SC_E_INVALID_SCROLL);
    EXPECT_CHK("{'compatibility':{'minHostAppVersion':1}}", NULL, SC_E_INVALID_SCROLL);
    EXPECT_CHK("{'compatibility':[]}", NULL, SC_E_INVALID_SCROLL);
}

static void s5_environment_names_and_values(void)
{
    sc_scroll *s = OK_SCROLL("{'environment':{'A':'','B C':'x','OMP_NUM_THREADS':'1'}}", NULL);
    sc_scroll_free(s);
    EXPECT_CHK("{'environment':{'A=B':'x'}}", NULL, SC_E_INVALID_SCROLL);
    EXPECT_CHK("{'environment':{'':'x'}}", NULL, SC_E_INVALID_SCROLL);
    EXPECT_CHK("{'environment':{'A':1}}", NULL, SC_E_INVALID_SCROLL);
    EXPECT_CHK("{'environment':{'A':'x\\u0000y'}}", NULL, SC_E_INVALID_SCROLL);
    EXPECT_CHK("{'environment':{'A\\u0000':'x'}}", NULL, SC_E_INVALID_SCROLL);
    EXPECT_CHK("{'environment':['A=1']}", NULL, SC_E_INVALID_SCROLL);
}

static void s5_asset_members(void)
{
    sc_scroll *s = OK_SCROLL("{'assets':[" ASSET("m.bin") "]}", NULL);
    sc_scroll_free(s);
    EXPECT_CHK("{'assets':[{'url':'u','relativePath':'m','sizeBytes':1}]}", NULL,
               SC_E_INVALID_SCROLL);
    EXPECT_CHK("{'assets':[{'url':'','relativePath':'m','sizeBytes':1,'sha256':" SHA "}]}",
               NULL, SC_E_INVALID_SCROLL);
    EXPECT_CHK("{'assets':[{'url':'u','relativePath':'m','sizeBytes':0,'sha256':" SHA "}]}",
               NULL, SC_E_INVALID_SCROLL);
    EXPECT_CHK("{'assets':[{'url':'u','relativePath':'m','sizeBytes':1,'sha256':'"
               "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA'}]}",
               NULL, SC_E_INVALID_SCROLL);
    EXPECT_CHK("{'assets':[{'url':'u','relativePath':'m','sizeBytes':1,'sha256':'abc'}]}",
               NULL, SC_E_INVALID_SCROLL);
    EXPECT_CHK("{'assets':" ASSET("m") "}", NULL, SC_E_INVALID_SCROLL);
    EXPECT_CHK("{'assets':[" ASSET("") "]}", NULL, SC_E_INVALID_SCROLL);
}

/* 2.1: 1.0, 1e0 and -0 are not integers. */
static void s5_size_bytes_rejects_1_0_and_minus_0(void)
{
    static const char *const v[] = {"1.0", "1e0", "-0", "-1", "1.5", "'1'"};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        char extra[512];
        snprintf(extra, sizeof extra,
                 ",'assets':[{'url':'u','relativePath':'m','sizeBytes':%s,'sha256':" SHA "}]",
                 v[i]);
        sc_error err;
        SC_EXPECT_CODE(chk_raw(NULL, NULL, extra, &err), SC_E_INVALID_SCROLL, &err);
    }
}

static void s5_strip_components_integer(void)
{
    static const char *const bad[] = {"1.0", "-0", "1e0", "-1", "true"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char extra[512];
        snprintf(extra, sizeof extra,
                 ",'assets':[" ASSET("w.zip") "],'assetArchives':[{'relativePath':'w.zip',"
                 "'format':'zip','destination':'out','stripComponents':%s}]",
                 bad[i]);
        sc_error err;
        SC_EXPECT_CODE(chk_raw(NULL, NULL, extra, &err), SC_E_INVALID_SCROLL, &err);
    }
    sc_scroll *s = OK_SCROLL("{'assets':[" ASSET("w.zip") "],'assetArchives':[{'relativePath':"
                             "'w.zip','format':'tar.gz','destination':'out',"
                             "'stripComponents':0,'removeAfterExtract':true}]}",
                             NULL);
    sc_scroll_free(s);
}

static void s5_asset_archive_members(void)
{
    EXPECT_CHK("{'assets':[" ASSET("w.zip") "],'assetArchives':[{'relativePath':'w.zip',"
               "'format':'tar','destination':'out'}]}",
               NULL, SC_E_INVALID_SCROLL);
    EXPECT_CHK("{'assets':[" ASSET("w.zip") "],'assetArchives':[{'relativePath':'w.zip',"
               "'format':'zip'}]}",
               NULL, SC_E_INVALID_SCROLL);
    EXPECT_CHK("{'assets':[" ASSET("w.zip") "],'assetArchives':[{'relativePath':'w.zip',"
               "'format':'zip','destination':'out','removeAfterExtract':'yes'}]}",
               NULL, SC_E_INVALID_SCROLL);
}

static void s5_local_file_members(void)
{
    sc_scroll *s = OK_SCROLL("{'localFiles':[{'sourcePath':'a','relativePath':'b','sha256':"
                             SHA "}]}",
                             NULL);
    sc_scroll_free(s);
    EXPECT_CHK("{'localFiles':[{'sourcePath':'a'}]}", NULL, SC_E_INVALID_SCROLL);
    EXPECT_CHK("{'localFiles':[{'sourcePath':'a','relativePath':'b','sha256':'x'}]}", NULL,
               SC_E_INVALID_SCROLL);
    EXPECT_CHK("{'localFiles':[{'sourcePath':'a','relativePath':'b','mode':1}]}", NULL,
               SC_E_INVALID_SCROLL);
}

static void s5_path_arrays_are_arrays_of_text(void)
{
    EXPECT_CHK("{'prunePaths':'a'}", NULL, SC_E_INVALID_SCROLL);
    EXPECT_CHK("{'uncompressedPaths':[1]}", NULL, SC_E_INVALID_SCROLL);
    EXPECT_CHK("{'prunePaths':['']}", NULL, SC_E_INVALID_SCROLL);
    EXPECT_CHK("{'condaDependencyLicenseAudit':''}", NULL, SC_E_INVALID_SCROLL);
    EXPECT_CHK("{'modelCacheSubdir':5}", NULL, SC_E_INVALID_SCROLL);
}

static void s5_self_test_imports_non_empty(void)
{
    EXPECT_CHK("{'selfTest':{'imports':[]}}", NULL, SC_E_INVALID_SCROLL);
    EXPECT_CHK("{'selfTest':{}}", NULL, SC_E_INVALID_SCROLL);
    EXPECT_CHK("{'selfTest':{'imports':'json'}}", NULL, SC_E_INVALID_SCROLL);
    EXPECT_CHK("{'selfTest':[]}", NULL, SC_E_INVALID_SCROLL);
}

static void s5_self_test_imports_dotted_names(void)
{
    sc_scroll *s = OK_SCROLL("{'selfTest':{'imports':['torch','pkg.sub_mod.X1','_private',"
                             "'a.b.c.d']}}",
                             NULL);
    sc_scroll_free(s);
    static const char *const bad[] = {"my-mod", "1abc", "a..b", "a.", ".a", "", "a.1b",
                                      "a b", "pkg/mod", "caf\\u00e9"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char set[96];
        snprintf(set, sizeof set, "{'selfTest':{'imports':['json','%s']}}", bad[i]);
        sc_error err;
        SC_EXPECT_CODE(chk(set, NULL, &err), SC_E_INVALID_SCROLL, &err);
    }
}

static void s5_self_test_code_or_file_not_both(void)
{
    EXPECT_CHK("{'selfTest':{'imports':['json'],'pythonCode':'print(1)','pythonFile':'t.py'}}",
               NULL, SC_E_INVALID_SCROLL);
    EXPECT_CHK("{'selfTest':{'imports':['json'],'pythonCode':''}}", NULL, SC_E_INVALID_SCROLL);
    sc_scroll *s = OK_SCROLL("{'selfTest':{'imports':['json'],'pythonCode':'print(1)'}}", NULL);
    sc_scroll_free(s);
    s = OK_SCROLL("{'selfTest':{'imports':['json'],'pythonFile':'t.py'}}", NULL);
    sc_scroll_free(s);
}

static void s5_timeout_default_is_180(void)
{
    sc_scroll *s = OK_SCROLL(NULL, NULL);
    if (s == NULL)
        return;
    uint64_t v = 0;
    CU_ASSERT_TRUE(sc_json_uint53(sc_json_get(eff(s, "selfTest"), "timeoutSeconds"), &v));
    CU_ASSERT_EQUAL(v, SC_SELF_TEST_TIMEOUT_DEFAULT);
    CU_ASSERT_EQUAL(v, 180);
    sc_scroll_free(s);
}

static void s5_timeout_bounds(void)
{
    EXPECT_CHK("{'selfTest':{'imports':['json'],'timeoutSeconds':0}}", NULL,
               SC_E_INVALID_SCROLL);
    EXPECT_CHK("{'selfTest':{'imports':['json'],'timeoutSeconds':86401}}", NULL,
               SC_E_INVALID_SCROLL);
    EXPECT_CHK("{'selfTest':{'imports':['json'],'timeoutSeconds':-5}}", NULL,
               SC_E_INVALID_SCROLL);
    static const unsigned ok[] = {1, 86400};
    for (int i = 0; i < 2; i++) {
        char set[96];
        snprintf(set, sizeof set, "{'selfTest':{'imports':['json'],'timeoutSeconds':%u}}",
                 ok[i]);
        sc_scroll *s = OK_SCROLL(set, NULL);
        if (s == NULL)
            continue;
        uint64_t v = 0;
        CU_ASSERT_TRUE(sc_json_uint53(sc_json_get(eff(s, "selfTest"), "timeoutSeconds"), &v));
        CU_ASSERT_EQUAL(v, ok[i]);
        sc_scroll_free(s);
    }
}

static void s5_timeout_rejects_1_0_and_minus_0(void)
{
    static const char *const v[] = {"1.0", "-0", "1e0", "180.0", "1.8e2", "'180'"};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        char st[96];
        snprintf(st, sizeof st, "{'imports':['json'],'timeoutSeconds':%s}", v[i]);
        sc_error err;
        SC_EXPECT_CODE(chk_raw(NULL, st, NULL, &err), SC_E_INVALID_SCROLL, &err);
    }
}

static void s5_weights_values(void)
{
    EXPECT_CHK("{'weights':'lazy'}", NULL, SC_E_INVALID_SCROLL);
    EXPECT_CHK("{'weights':'Embed'}", NULL, SC_E_INVALID_SCROLL);
    EXPECT_CHK("{'weights':true}", NULL, SC_E_INVALID_SCROLL);
    sc_scroll *s = OK_SCROLL("{'weights':'embed'}", NULL);
    sc_scroll_free(s);
}

static void s5_execution_kinds(void)
{
    sc_scroll *s = OK_SCROLL("{'execution':{'kind':'python-script','script':'run.py',"
                             "'defaultArgs':['--x']}}",
                             NULL);
    sc_scroll_free(s);
    s = OK_SCROLL("{'execution':{'kind':'python-module','module':'pkg.main','defaultArgs':[]}}",
                  NULL);
    sc_scroll_free(s);
    EXPECT_CHK("{'execution':{'kind':'python-module','module':'pkg-main','defaultArgs':[]}}",
               NULL, SC_E_INVALID_SCROLL);
    EXPECT_CHK("{'execution':{'kind':'shell','script':'run.sh','defaultArgs':[]}}", NULL,
               SC_E_INVALID_SCROLL);
    EXPECT_CHK("{'execution':{'kind':'python-script','script':'run.py'}}", NULL,
               SC_E_INVALID_SCROLL);
    EXPECT_CHK("{'execution':{'kind':'python-script','script':'run.py','defaultArgs':[1]}}",
               NULL, SC_E_INVALID_SCROLL);
    EXPECT_CHK("{'execution':{'kind':'python-module','module':'m','script':'x.py',"
               "'defaultArgs':[]}}",
               NULL, SC_E_INVALID_SCROLL);
    EXPECT_CHK("{'execution':{'kind':'python-script','module':'m','defaultArgs':[]}}", NULL,
               SC_E_INVALID_SCROLL);
    /* 5.2: no defaultArgs string holds U+0000: the scroll is refused, not
     * only the release built from it. */
    EXPECT_CHK("{'execution':{'kind':'python-module','module':'m','defaultArgs':['a\\u0000b']}}",
               NULL, SC_E_INVALID_SCROLL);
    s = OK_SCROLL("{'execution':{'kind':'python-module','module':'m','defaultArgs':['a\\u0001b']}}",
                  NULL);
    sc_scroll_free(s);
}

static void s5_parity_rules(void)
{
#define PAR(acc, tol) "{'parity':{'script':'p.py','accelerators':" acc ",'tolerances':" tol "}}"
    sc_scroll *s = OK_SCROLL(PAR("['cpu','cuda']", "{'absolute':0.001,'minimumCosine':1}"),
                             NULL);
    sc_scroll_free(s);
    s = OK_SCROLL(PAR("['cuda','cpu']", "{'minimumCosine':-0.5}"), NULL);
    sc_scroll_free(s);
    EXPECT_CHK(PAR("['cpu']", "{'absolute':0.1}"), NULL, SC_E_INVALID_SCROLL);
    EXPECT_CHK(PAR("['cpu','cpu']", "{'absolute':0.1}"), NULL, SC_E_INVALID_SCROLL);
    EXPECT_CHK(PAR("['cpu','tpu']", "{'absolute':0.1}"), NULL, SC_E_INVALID_SCROLL);
    EXPECT_CHK(PAR("['cpu','cuda']", "{}"), NULL, SC_E_INVALID_SCROLL);
    EXPECT_CHK(PAR("['cpu','cuda']", "{'absolute':0}"), NULL, SC_E_INVALID_SCROLL);
    EXPECT_CHK(PAR("['cpu','cuda']", "{'relative':-1}"), NULL, SC_E_INVALID_SCROLL);
    EXPECT_CHK(PAR("['cpu','cuda']", "{'minimumCosine':1.5}"), NULL, SC_E_INVALID_SCROLL);
    EXPECT_CHK(PAR("['cpu','cuda']", "{'absolute':0.1,'l2':0.1}"), NULL, SC_E_INVALID_SCROLL);
    EXPECT_CHK("{'parity':{'accelerators':['cpu','cuda'],'tolerances':{'absolute':1}}}", NULL,
               SC_E_INVALID_SCROLL);
#undef PAR
}

/* Step 14: metal has no validation environment on Linux (the default target
 * of these scrolls): refused when the scroll is read, naming the field. */
static void s14_parity_accelerator_without_validation_environment(void)
{
    sc_error err;
    SC_EXPECT_CODE(chk("{'parity':{'script':'p.py','accelerators':['cpu','metal'],"
                       "'tolerances':{'absolute':0.1}}}", NULL, &err),
                   SC_E_INVALID_SCROLL, &err);
    EXPECT_NAMES(&err, "$.parity.accelerators[1]");
    EXPECT_NAMES(&err, "metal");
}

/* ---- step 6: weights -------------------------------------------------- */

static void s6_on_demand_with_archives_refused(void)
{
    EXPECT_CHK("{'weights':'on-demand','assets':[" ASSET("w.zip") "],'assetArchives':["
               ARCHIVE("w.zip", "out") "]}",
               NULL, SC_E_INVALID_SCROLL);
}

static void s6_on_demand_without_assets_refused(void)
{
    EXPECT_CHK("{'weights':'on-demand'}", NULL, SC_E_INVALID_SCROLL);
    EXPECT_CHK("{'weights':'on-demand','assets':[]}", NULL, SC_E_INVALID_SCROLL);
}

static void s6_on_demand_with_assets_accepted(void)
{
    sc_scroll *s = OK_SCROLL("{'weights':'on-demand','assets':[" ASSET("m.bin") "],"
                             "'assetArchives':[]}",
                             NULL);
    sc_scroll_free(s);
    /* embed (or absent) needs no asset */
    s = OK_SCROLL("{'weights':'embed','assetArchives':[]}", NULL);
    sc_scroll_free(s);
}

static void s5_before_s6(void)
{
    /* a bad target (step 5, section-4 code) beats on-demand without assets */
    EXPECT_CHK("{'weights':'on-demand','target':{'platform':'linux','arch':'x86_64',"
               "'accelerator':'cuda'}}",
               NULL, SC_E_INVALID_TARGET);
}

static void s6_before_s9(void)
{
    EXPECT_CHK("{'weights':'on-demand','assets':[" ASSET("w.zip") "],'assetArchives':["
               ARCHIVE("w.zip", "../out") "]}",
               NULL, SC_E_INVALID_SCROLL);
    EXPECT_CHK("{'weights':'on-demand','modelCacheSubdir':'/abs'}", NULL, SC_E_INVALID_SCROLL);
}

/* ---- step 7: target present ------------------------------------------- */

static void s7_target_required(void)
{
    sc_error err;
    SC_EXPECT_CODE(chk(NULL, "target", &err), SC_E_INVALID_SCROLL, &err);
    EXPECT_NAMES(&err, "target");
}

static void s7_before_s9(void)
{
    EXPECT_CHK("{'modelCacheSubdir':'../x'}", "target", SC_E_INVALID_SCROLL);
}

static void s7_before_s12(void)
{
    sc_error err;
    char *t = patch(MIN, NULL, "target");
    SC_EXPECT_CODE(res(t, NULL, "other", "windows-x86_64-cpu", NULL, &err), SC_E_INVALID_SCROLL,
                &err);
    free(t);
}

/* ---- step 8: defaults -------------------------------------------------- */

static void s8_defaults_appended_in_order(void)
{
    sc_scroll *s = OK_SCROLL(NULL, NULL);
    if (s == NULL)
        return;
    CU_ASSERT_STRING_EQUAL(keys_of(s->effective), MIN_EFFECTIVE_KEYS);
    sc_scroll_free(s);
}

static void s8_default_values(void)
{
    sc_scroll *s = OK_SCROLL(NULL, NULL);
    if (s == NULL)
        return;
    CU_ASSERT_STRING_EQUAL(eff_str(s, "scrollId"), "demo-linux-x86_64-cpu");
    CU_ASSERT_STRING_EQUAL(eff_str(s, "scrollVersion"), "1.0.0");
    CU_ASSERT_TRUE(sc_json_is(eff(s, "compatibility"), SC_JSON_OBJECT));
    CU_ASSERT_EQUAL(eff(s, "compatibility")->length, 0);
    CU_ASSERT_STRING_EQUAL(eff_str(s, "pythonEntryPoint"), "venv/bin/python");
    CU_ASSERT_STRING_EQUAL(eff_str(s, "modelCacheSubdir"), "model-cache/demo");
    CU_ASSERT_TRUE(sc_json_is(eff(s, "assets"), SC_JSON_ARRAY));
    CU_ASSERT_EQUAL(eff(s, "assets")->length, 0);
    /* no defaults for these */
    CU_ASSERT_PTR_NULL(eff(s, "weights"));
    CU_ASSERT_PTR_NULL(eff(s, "execution"));
    CU_ASSERT_PTR_NULL(eff(s, "environment"));
    CU_ASSERT_PTR_NULL(eff(s, "assetArchives"));
    CU_ASSERT_PTR_NULL(eff(s, "localFiles"));
    sc_scroll_free(s);
}

static void s8_default_ids_follow_the_target(void)
{
    sc_scroll *s = OK_SCROLL("{'target':" TGT_CUDA "}", NULL);
    if (s != NULL) {
        CU_ASSERT_STRING_EQUAL(eff_str(s, "scrollId"), "demo-linux-x86_64-cuda12.4");
        CU_ASSERT_STRING_EQUAL(s->target_id, "linux-x86_64-cuda12.4");
    }
    sc_scroll_free(s);
    s = OK_SCROLL("{'target':" TGT_WIN ",'boxId':'other'}", NULL);
    if (s != NULL) {
        CU_ASSERT_STRING_EQUAL(eff_str(s, "pythonEntryPoint"), "venv/python.exe");
        CU_ASSERT_STRING_EQUAL(eff_str(s, "modelCacheSubdir"), "model-cache/other");
        CU_ASSERT_STRING_EQUAL(eff_str(s, "scrollId"), "other-windows-x86_64-cpu");
    }
    sc_scroll_free(s);
}

static void s8_declared_members_keep_place_and_value(void)
{
    sc_error err;
    sc_scroll *s = NULL;
    SC_EXPECT_CODE(res("{'scrollId':'custom','assets':[],'schemaVersion':3,'boxId':'demo',"
                    "'modelId':'m','runtimeId':'r','version':'1','sourceRevision':'s',"
                    "'target':" TGT_CPU ",'pythonVersion':'3.11','pixiVersion':'0.1',"
                    "'selfTest':{'imports':['json']},'modelCacheSubdir':'cache'}",
                    NULL, NULL, NULL, &s, &err),
                SC_OK, &err);
    if (s == NULL)
        return;
    CU_ASSERT_STRING_EQUAL(keys_of(s->effective),
                           "scrollId assets schemaVersion boxId modelId runtimeId version "
                           "sourceRevision target pythonVersion pixiVersion selfTest "
                           "modelCacheSubdir scrollVersion compatibility pythonEntryPoint");
    CU_ASSERT_STRING_EQUAL(eff_str(s, "scrollId"), "custom");
    CU_ASSERT_STRING_EQUAL(eff_str(s, "modelCacheSubdir"), "cache");
    sc_scroll_free(s);
}

static void s8_self_test_defaults(void)
{
    sc_scroll *s = OK_SCROLL(NULL, NULL);
    if (s != NULL) {
        const sc_json *st = eff(s, "selfTest");
        CU_ASSERT_STRING_EQUAL(keys_of(st), "imports files timeoutSeconds");
        CU_ASSERT_TRUE(sc_json_is(sc_json_get(st, "files"), SC_JSON_ARRAY));
        CU_ASSERT_EQUAL(sc_json_get(st, "files")->length, 0);
    }
    sc_scroll_free(s);
    /* a declared timeoutSeconds stays in place; files is appended after it */
    s = OK_SCROLL("{'selfTest':{'timeoutSeconds':30,'imports':['json']}}", NULL);
    if (s != NULL)
        CU_ASSERT_STRING_EQUAL(keys_of(eff(s, "selfTest")), "timeoutSeconds imports files");
    sc_scroll_free(s);
}

static void s8_entry_point_default_declared_equal(void)
{
    sc_scroll *s = OK_SCROLL("{'pythonEntryPoint':'venv/bin/python'}", NULL);
    if (s != NULL)
        CU_ASSERT_STRING_EQUAL(keys_of(s->effective),
                               "schemaVersion boxId modelId runtimeId version sourceRevision "
                               "target pythonVersion pixiVersion selfTest pythonEntryPoint "
                               "scrollId scrollVersion compatibility modelCacheSubdir assets");
    sc_scroll_free(s);
}

/* ---- step 9: paths ------------------------------------------------------ */

/* Every path member of step 9, in the order listed, safe and unsafe forms. */
static const struct path_item {
    const char *safe, *unsafe, *field;
} path_items[] = {
    {"cache/x", "../cache", "$.modelCacheSubdir"},
    {"m.bin", "a/./m.bin", "$.assets[0].relativePath"},
    {"w.zip", "/w.zip", "$.assetArchives[0].relativePath"},
    {"out", "out\\\\x", "$.assetArchives[0].destination"},
    {"src.txt", "../src.txt", "$.localFiles[0].sourcePath"},
    {"local.txt", "C:local.txt", "$.localFiles[0].relativePath"},
    {"a/b", "a//b", "$.prunePaths[0]"},
    {"u", "u/", "$.uncompressedPaths[0]"},
    {"t", "./t", "$.selfTest.files[0]"},
    {"test.py", "..", "$.selfTest.pythonFile"},
    {"run.py", "/run.py", "$.execution.script"},
    {"parity.py", "p\\\\q.py", "$.parity.script"},
    {"licenses.json", "lic/../x", "$.condaDependencyLicenseAudit"},
};
#define N_PATH_ITEMS (sizeof path_items / sizeof path_items[0])

/* A scroll using every path member; bit i of mask makes item i unsafe. */
static sc_code paths_scroll(unsigned mask, sc_error *err)
{
    const char *v[N_PATH_ITEMS];
    for (size_t i = 0; i < N_PATH_ITEMS; i++)
        v[i] = (mask >> i) & 1 ? path_items[i].unsafe : path_items[i].safe;
    char text[4096];
    snprintf(text, sizeof text,
             "{'schemaVersion':3,'boxId':'demo','modelId':'m','runtimeId':'r','version':'1',"
             "'sourceRevision':'s','target':" TGT_CPU ",'pythonVersion':'3.11',"
             "'pixiVersion':'0.1','modelCacheSubdir':'%s',"
             "'assets':[{'url':'u','relativePath':'%s','sizeBytes':1,'sha256':" SHA "},"
             ASSET("w.zip") "],"
             "'assetArchives':[{'relativePath':'%s','format':'zip','destination':'%s'}],"
             "'localFiles':[{'sourcePath':'%s','relativePath':'%s'}],"
             "'prunePaths':['%s'],'uncompressedPaths':['%s'],"
             "'selfTest':{'imports':['json'],'files':['%s'],'pythonFile':'%s'},"
             "'execution':{'kind':'python-script','script':'%s','defaultArgs':[]},"
             "'parity':{'script':'%s','accelerators':['cpu','cuda'],"
             "'tolerances':{'absolute':0.001}},"
             "'condaDependencyLicenseAudit':'%s'}",
             v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9], v[10], v[11], v[12]);
    return res(text, NULL, NULL, NULL, NULL, err);
}

static void s9_all_path_members_safe(void)
{
    sc_error err;
    SC_EXPECT_CODE(paths_scroll(0, &err), SC_OK, &err);
}

static void s9_each_path_member_checked(void)
{
    for (size_t i = 0; i < N_PATH_ITEMS; i++) {
        sc_error err;
        SC_EXPECT_CODE(paths_scroll(1u << i, &err), SC_E_UNSAFE_PATH, &err);
        EXPECT_NAMES(&err, path_items[i].field);
    }
}

static void s9_paths_checked_in_listed_order(void)
{
    for (size_t i = 0; i + 1 < N_PATH_ITEMS; i++) {
        sc_error err;
        SC_EXPECT_CODE(paths_scroll(3u << i, &err), SC_E_UNSAFE_PATH, &err);
        EXPECT_NAMES(&err, path_items[i].field);
    }
    /* the first and the last */
    sc_error err;
    SC_EXPECT_CODE(paths_scroll(1u | (1u << (N_PATH_ITEMS - 1)), &err), SC_E_UNSAFE_PATH, &err);
    EXPECT_NAMES(&err, path_items[0].field);
}

static void s9_python_module_is_not_a_path(void)
{
    /* execution.module is a dotted name; only python-script's script is a path */
    sc_scroll *s = OK_SCROLL("{'execution':{'kind':'python-module','module':'a.b',"
                             "'defaultArgs':['../x']}}",
                             NULL);
    sc_scroll_free(s);
}

static void s9_before_s10(void)
{
    /* undeclared archive source and an unsafe destination: the path wins */
    EXPECT_CHK("{'assetArchives':[" ARCHIVE("w.zip", "../out") "]}", NULL, SC_E_UNSAFE_PATH);
}

static void s9_before_s11(void)
{
    EXPECT_CHK("{'assets':[" ASSET("m.bin") "," ASSET("M.bin") "],'prunePaths':['/x']}", NULL,
               SC_E_UNSAFE_PATH);
}

/* ---- step 10: archive sources -------------------------------------------- */

static void s10_archive_source_must_be_declared(void)
{
    sc_error err;
    SC_EXPECT_CODE(chk("{'assetArchives':[" ARCHIVE("w.zip", "out") "]}", NULL, &err),
                SC_E_INVALID_SCROLL, &err);
    SC_EXPECT_CODE(chk("{'assets':[" ASSET("v.zip") "],'assetArchives':[" ARCHIVE("w.zip", "out")
                    "]}",
                    NULL, &err),
                SC_E_INVALID_SCROLL, &err);
}

static void s10_archive_source_may_be_asset(void)
{
    sc_scroll *s = OK_SCROLL("{'assets':[" ASSET("w.zip") "],'assetArchives':["
                             ARCHIVE("w.zip", "out") "]}",
                             NULL);
    sc_scroll_free(s);
}

static void s10_archive_source_may_be_local_file(void)
{
    sc_scroll *s = OK_SCROLL("{'localFiles':[" LOCAL("w.tar.gz") "],'assetArchives':["
                             "{'relativePath':'w.tar.gz','format':'tar.gz',"
                             "'destination':'out'}]}",
                             NULL);
    sc_scroll_free(s);
}

static void s10_two_archives_same_source(void)
{
    EXPECT_CHK("{'assets':[" ASSET("w.zip") "],'assetArchives':[" ARCHIVE("w.zip", "a") ","
               ARCHIVE("w.zip", "b") "]}",
               NULL, SC_E_INVALID_SCROLL);
}

static void s10_before_s11(void)
{
    EXPECT_CHK("{'assets':[" ASSET("m.bin") "," ASSET("M.bin") "],'assetArchives':["
               ARCHIVE("w.zip", "out") "]}",
               NULL, SC_E_INVALID_SCROLL);
}

/* ---- step 11: distinct destinations --------------------------------------- */

static void s11_case_folded_collision(void)
{
    EXPECT_CHK("{'assets':[" ASSET("Model.bin") "],'localFiles':[" LOCAL("model.BIN") "]}",
               NULL, SC_E_ENTRY_COLLISION);
    EXPECT_CHK("{'assets':[" ASSET("dir/A.bin") "," ASSET("DIR/a.bin") "]}", NULL,
               SC_E_ENTRY_COLLISION);
}

static void s11_exact_duplicate_collision(void)
{
    EXPECT_CHK("{'assets':[" ASSET("m.bin") "," ASSET("m.bin") "]}", NULL,
               SC_E_ENTRY_COLLISION);
    EXPECT_CHK("{'localFiles':[" LOCAL("x") "," LOCAL("x") "]}", NULL, SC_E_ENTRY_COLLISION);
}

static void s11_only_ascii_is_folded(void)
{
    sc_scroll *s = OK_SCROLL("{'assets':[" ASSET("\\u00c9.bin") "," ASSET("\\u00e9.bin") "]}",
                             NULL);
    sc_scroll_free(s);
    s = OK_SCROLL("{'assets':[" ASSET("a/b") "," ASSET("a/bc") "]}", NULL);
    sc_scroll_free(s);
}

static void s11_before_s12(void)
{
    sc_error err;
    char *t = patch(MIN, "{'assets':[" ASSET("m.bin") "," ASSET("M.BIN") "]}", NULL);
    SC_EXPECT_CODE(res(t, NULL, "other", "linux-x86_64-cpu", NULL, &err), SC_E_ENTRY_COLLISION,
                &err);
    free(t);
}

/* ---- step 12: layout --------------------------------------------------- */

static void s12_box_directory_must_be_box_id(void)
{
    sc_error err;
    char *t = patch(MIN, NULL, NULL);
    SC_EXPECT_CODE(res(t, NULL, "demo2", "linux-x86_64-cpu", NULL, &err), SC_E_LAYOUT_MISMATCH,
                &err);
    SC_EXPECT_CODE(res(t, NULL, "Demo", "linux-x86_64-cpu", NULL, &err), SC_E_LAYOUT_MISMATCH,
                &err);
    SC_EXPECT_CODE(res(t, NULL, "demo", "linux-x86_64-cpu", NULL, &err), SC_OK, &err);
    free(t);
}

static void s12_target_directory_must_be_target_id(void)
{
    sc_error err;
    char *t = patch(MIN, NULL, NULL);
    SC_EXPECT_CODE(res(t, NULL, "demo", "linux-x86_64-cuda12.4", NULL, &err),
                SC_E_LAYOUT_MISMATCH, &err);
    SC_EXPECT_CODE(res(t, NULL, "demo", "linux-x86_64-CPU", NULL, &err), SC_E_LAYOUT_MISMATCH,
                &err);
    free(t);
    t = patch(MIN, "{'target':" TGT_CUDA "}", NULL);
    SC_EXPECT_CODE(res(t, NULL, "demo", "linux-x86_64-cuda12.04", NULL, &err),
                SC_E_LAYOUT_MISMATCH, &err);
    SC_EXPECT_CODE(res(t, NULL, "demo", "linux-x86_64-cuda12.4", NULL, &err), SC_OK, &err);
    free(t);
}

static void s12_before_s13(void)
{
    sc_error err;
    char *t = patch(MIN, "{'pythonEntryPoint':'venv/python.exe'}", NULL);
    SC_EXPECT_CODE(res(t, NULL, "demo", "windows-x86_64-cpu", NULL, &err), SC_E_LAYOUT_MISMATCH,
                &err);
    free(t);
}

/* ---- step 13: entry point ------------------------------------------------ */

static void s13_entry_point_must_match_target(void)
{
    EXPECT_CHK("{'pythonEntryPoint':'venv/python.exe'}", NULL, SC_E_INVALID_SCROLL);
    EXPECT_CHK("{'pythonEntryPoint':'venv/bin/python3'}", NULL, SC_E_INVALID_SCROLL);
    EXPECT_CHK("{'target':" TGT_WIN ",'pythonEntryPoint':'venv/bin/python'}", NULL,
               SC_E_INVALID_SCROLL);
    sc_scroll *s = OK_SCROLL("{'target':" TGT_WIN ",'pythonEntryPoint':'venv/python.exe'}",
                             NULL);
    sc_scroll_free(s);
}

/* ---- 5.4 the join -------------------------------------------------------- */

static void join_split_equals_whole(void)
{
    sc_error err;
    sc_scroll *s = NULL;
    SC_EXPECT_CODE(split(NULL, NULL, NULL, &s, &err), SC_OK, &err);
    sc_scroll *w = OK_SCROLL(NULL, NULL);
    if (s != NULL && w != NULL) {
        CU_ASSERT_TRUE(sc_json_equal(s->effective, w->effective));
        CU_ASSERT_PTR_NULL(eff(s, "extends"));
        CU_ASSERT_STRING_EQUAL(s->target_id, "linux-x86_64-cpu");
    }
    sc_scroll_free(s);
    sc_scroll_free(w);
}

static void join_member_order_base_then_scroll(void)
{
    sc_error err;
    sc_scroll *s = NULL;
    SC_EXPECT_CODE(res("{'environment':{'A':'1'},'extends':'../scroll.json','version':'2',"
                    "'target':" TGT_CPU ",'weights':'embed'}",
                    BASE, NULL, NULL, &s, &err),
                SC_OK, &err);
    if (s == NULL)
        return;
    CU_ASSERT_STRING_EQUAL(keys_of(s->effective),
                           "schemaVersion boxId modelId runtimeId version sourceRevision "
                           "pythonVersion pixiVersion selfTest environment target weights "
                           "scrollId scrollVersion compatibility pythonEntryPoint "
                           "modelCacheSubdir assets");
    CU_ASSERT_STRING_EQUAL(eff_str(s, "version"), "2");
    sc_scroll_free(s);
}

static void join_scalars_scroll_wins(void)
{
    sc_error err;
    sc_scroll *s = NULL;
    SC_EXPECT_CODE(split("{'modelId':'other','scrollVersion':'2.0.0','weights':'embed'}",
                      "{'scrollVersion':'1.5.0','weights':'on-demand'}", NULL, &s, &err),
                SC_OK, &err);
    if (s == NULL)
        return;
    CU_ASSERT_STRING_EQUAL(eff_str(s, "modelId"), "other");
    CU_ASSERT_STRING_EQUAL(eff_str(s, "scrollVersion"), "2.0.0");
    CU_ASSERT_STRING_EQUAL(eff_str(s, "weights"), "embed");
    sc_scroll_free(s);
}

static void join_execution_and_parity_replaced(void)
{
    sc_error err;
    sc_scroll *s = NULL;
    SC_EXPECT_CODE(split("{'execution':{'kind':'python-script','script':'run.py','defaultArgs':[]},"
                      "'parity':{'script':'p2.py','accelerators':['cpu','cuda'],"
                      "'tolerances':{'relative':0.1}}}",
                      "{'execution':{'kind':'python-module','module':'pkg.main',"
                      "'defaultArgs':['--x']},'parity':{'script':'p.py',"
                      "'accelerators':['cpu','metal'],'tolerances':{'absolute':0.1}}}",
                      NULL, &s, &err),
                SC_OK, &err);
    if (s == NULL)
        return;
    CU_ASSERT_STRING_EQUAL(keys_of(eff(s, "execution")), "kind script defaultArgs");
    CU_ASSERT_EQUAL(sc_json_get(eff(s, "execution"), "defaultArgs")->length, 0);
    CU_ASSERT_STRING_EQUAL(keys_of(sc_json_get(eff(s, "parity"), "tolerances")), "relative");
    CU_ASSERT_STRING_EQUAL(strings_of(sc_json_get(eff(s, "parity"), "accelerators"), NULL),
                           "cpu cuda");
    sc_scroll_free(s);
}

static void join_asset_arrays_concatenated_base_first(void)
{
    sc_error err;
    sc_scroll *s = NULL;
    SC_EXPECT_CODE(split("{'assets':[" ASSET("f1") "," ASSET("f2") "],'localFiles':[" LOCAL("lf")
                      "]}",
                      "{'assets':[" ASSET("b1") "],'localFiles':[" LOCAL("lb") "]}", NULL, &s,
                      &err),
                SC_OK, &err);
    if (s == NULL)
        return;
    CU_ASSERT_STRING_EQUAL(strings_of(eff(s, "assets"), "relativePath"), "b1 f1 f2");
    CU_ASSERT_STRING_EQUAL(strings_of(eff(s, "localFiles"), "relativePath"), "lb lf");
    sc_scroll_free(s);
}

static void join_asset_arrays_present_if_either_side(void)
{
    sc_error err;
    sc_scroll *s = NULL;
    /* the archive's source is declared by the base, the archive by the scroll */
    SC_EXPECT_CODE(split("{'assetArchives':[" ARCHIVE("w.zip", "out") "]}",
                      "{'assets':[" ASSET("w.zip") "],'localFiles':[" LOCAL("lb") "]}", NULL,
                      &s, &err),
                SC_OK, &err);
    if (s == NULL)
        return;
    CU_ASSERT_STRING_EQUAL(strings_of(eff(s, "assets"), "relativePath"), "w.zip");
    CU_ASSERT_STRING_EQUAL(strings_of(eff(s, "localFiles"), "relativePath"), "lb");
    CU_ASSERT_STRING_EQUAL(strings_of(eff(s, "assetArchives"), "relativePath"), "w.zip");
    sc_scroll_free(s);
}

static void join_path_lists_drop_later_duplicates(void)
{
    sc_error err;
    sc_scroll *s = NULL;
    SC_EXPECT_CODE(split("{'prunePaths':['b','c','A'],'uncompressedPaths':['y','x']}",
                      "{'prunePaths':['a','b'],'uncompressedPaths':['x']}", NULL, &s, &err),
                SC_OK, &err);
    if (s == NULL)
        return;
    CU_ASSERT_STRING_EQUAL(strings_of(eff(s, "prunePaths"), NULL), "a b c A");
    CU_ASSERT_STRING_EQUAL(strings_of(eff(s, "uncompressedPaths"), NULL), "x y");
    sc_scroll_free(s);
}

static void join_compatibility_merged_by_key(void)
{
    sc_error err;
    sc_scroll *s = NULL;
    SC_EXPECT_CODE(split("{'compatibility':{'minRamGb':8,'xNote':'y'}}",
                      "{'compatibility':{'minRamGb':4,'minMacosVersion':'13'}}", NULL, &s, &err),
                SC_OK, &err);
    if (s == NULL)
        return;
    const sc_json *c = eff(s, "compatibility");
    CU_ASSERT_STRING_EQUAL(keys_of(c), "minRamGb minMacosVersion xNote");
    CU_ASSERT_EQUAL(sc_json_get(c, "minRamGb")->number, 8);
    sc_scroll_free(s);
}

static void join_environment_merged_by_key(void)
{
    sc_error err;
    sc_scroll *s = NULL;
    SC_EXPECT_CODE(split("{'environment':{'C':'4','B':'3'}}", "{'environment':{'A':'1','B':'2'}}",
                      NULL, &s, &err),
                SC_OK, &err);
    if (s == NULL)
        return;
    const sc_json *e = eff(s, "environment");
    CU_ASSERT_STRING_EQUAL(keys_of(e), "A B C");
    CU_ASSERT_STRING_EQUAL(sc_json_cstr(sc_json_get(e, "B")), "3");
    sc_scroll_free(s);
}

static void join_self_test_imports_union(void)
{
    sc_error err;
    sc_scroll *s = NULL;
    SC_EXPECT_CODE(split("{'selfTest':{'imports':['os','sys','json']}}",
                      "{'selfTest':{'imports':['json','os']}}", NULL, &s, &err),
                SC_OK, &err);
    if (s == NULL)
        return;
    CU_ASSERT_STRING_EQUAL(strings_of(sc_json_get(eff(s, "selfTest"), "imports"), NULL),
                           "json os sys");
    sc_scroll_free(s);
}

static void join_self_test_files_union(void)
{
    sc_error err;
    sc_scroll *s = NULL;
    SC_EXPECT_CODE(split("{'selfTest':{'imports':['json'],'files':['b','a']}}",
                      "{'selfTest':{'imports':['json'],'files':['a']}}", NULL, &s, &err),
                SC_OK, &err);
    if (s != NULL)
        CU_ASSERT_STRING_EQUAL(strings_of(sc_json_get(eff(s, "selfTest"), "files"), NULL),
                               "a b");
    sc_scroll_free(s);
    /* only the base has files */
    SC_EXPECT_CODE(split("{'selfTest':{'imports':['sys']}}",
                      "{'selfTest':{'imports':['json'],'files':['f']}}", NULL, &s, &err),
                SC_OK, &err);
    if (s != NULL)
        CU_ASSERT_STRING_EQUAL(strings_of(sc_json_get(eff(s, "selfTest"), "files"), NULL), "f");
    sc_scroll_free(s);
}

static void join_self_test_scroll_code_drops_base_code_and_file(void)
{
    sc_error err;
    sc_scroll *s = NULL;
    SC_EXPECT_CODE(split("{'selfTest':{'imports':['json'],'pythonFile':'t.py'}}",
                      "{'selfTest':{'imports':['json'],'pythonCode':'print(1)'}}", NULL, &s,
                      &err),
                SC_OK, &err);
    if (s != NULL) {
        CU_ASSERT_PTR_NULL(sc_json_get(eff(s, "selfTest"), "pythonCode"));
        CU_ASSERT_STRING_EQUAL(sc_json_cstr(sc_json_get(eff(s, "selfTest"), "pythonFile")),
                               "t.py");
    }
    sc_scroll_free(s);
    SC_EXPECT_CODE(split("{'selfTest':{'imports':['json'],'pythonCode':'print(2)'}}",
                      "{'selfTest':{'imports':['json'],'pythonFile':'t.py'}}", NULL, &s, &err),
                SC_OK, &err);
    if (s != NULL) {
        CU_ASSERT_PTR_NULL(sc_json_get(eff(s, "selfTest"), "pythonFile"));
        CU_ASSERT_STRING_EQUAL(sc_json_cstr(sc_json_get(eff(s, "selfTest"), "pythonCode")),
                               "print(2)");
    }
    sc_scroll_free(s);
}

static void join_self_test_base_code_kept(void)
{
    sc_error err;
    sc_scroll *s = NULL;
    SC_EXPECT_CODE(split("{'selfTest':{'imports':['sys'],'files':['f']}}",
                      "{'selfTest':{'imports':['json'],'pythonCode':'print(1)',"
                      "'timeoutSeconds':10}}",
                      NULL, &s, &err),
                SC_OK, &err);
    if (s != NULL) {
        const sc_json *st = eff(s, "selfTest");
        CU_ASSERT_STRING_EQUAL(sc_json_cstr(sc_json_get(st, "pythonCode")), "print(1)");
        /* merged by key: base keys, then the scroll's new keys */
        CU_ASSERT_STRING_EQUAL(keys_of(st), "imports pythonCode timeoutSeconds files");
    }
    sc_scroll_free(s);
}

static void join_self_test_timeout_scroll_wins(void)
{
    sc_error err;
    sc_scroll *s = NULL;
    SC_EXPECT_CODE(split("{'selfTest':{'imports':['json'],'timeoutSeconds':20}}",
                      "{'selfTest':{'imports':['json'],'timeoutSeconds':10}}", NULL, &s, &err),
                SC_OK, &err);
    if (s != NULL)
        CU_ASSERT_EQUAL(sc_json_get(eff(s, "selfTest"), "timeoutSeconds")->number, 20);
    sc_scroll_free(s);
}

static void join_wrong_type_is_replaced_not_merged(void)
{
    sc_error err;
    sc_scroll *s = NULL;
    /* a bad base value is simply replaced by the scroll's */
    SC_EXPECT_CODE(split("{'environment':{'A':'1'},'assets':[" ASSET("m") "]}",
                      "{'environment':'A=0','assets':'none'}", NULL, &s, &err),
                SC_OK, &err);
    if (s != NULL) {
        CU_ASSERT_STRING_EQUAL(keys_of(eff(s, "environment")), "A");
        CU_ASSERT_STRING_EQUAL(strings_of(eff(s, "assets"), "relativePath"), "m");
    }
    sc_scroll_free(s);
    /* a bad scroll value replaces the base's and step 5 reports it */
    SC_EXPECT_CODE(split("{'compatibility':[]}", "{'compatibility':{'minRamGb':4}}", NULL, NULL,
                      &err),
                SC_E_INVALID_SCROLL, &err);
    SC_EXPECT_CODE(split("{'prunePaths':'a'}", "{'prunePaths':['b']}", NULL, NULL, &err),
                SC_E_INVALID_SCROLL, &err);
    SC_EXPECT_CODE(split("{'selfTest':'json'}", NULL, NULL, NULL, &err), SC_E_INVALID_SCROLL, &err);
}

static void join_schema_applies_to_joined_scroll(void)
{
    sc_error err;
    /* required members may come from either side */
    SC_EXPECT_CODE(split("{'pythonVersion':'3.12'}", NULL, "pythonVersion", NULL, &err), SC_OK,
                &err);
    /* schemaVersion from the base only */
    SC_EXPECT_CODE(res(FRAG, BASE, NULL, NULL, NULL, &err), SC_OK, &err);
    /* missing on both sides */
    SC_EXPECT_CODE(split(NULL, NULL, "schemaVersion", NULL, &err), SC_E_INVALID_SCROLL, &err);
    /* an unknown base member is a breach of the joined scroll */
    SC_EXPECT_CODE(split(NULL, "{'legacy':true}", NULL, NULL, &err), SC_E_INVALID_SCROLL, &err);
    EXPECT_NAMES(&err, "$.legacy");
}

static void join_fragment_version_checked(void)
{
    sc_error err;
    SC_EXPECT_CODE(split("{'schemaVersion':2}", NULL, NULL, NULL, &err),
                SC_E_DEPRECATED_SCHEMA_VERSION, &err);
}

static void join_collision_across_base_and_scroll(void)
{
    sc_error err;
    SC_EXPECT_CODE(split("{'assets':[" ASSET("m.bin") "]}", "{'assets':[" ASSET("M.bin") "]}", NULL,
                      NULL, &err),
                SC_E_ENTRY_COLLISION, &err);
}

/* ---- determinism --------------------------------------------------------- */

static void determinism_same_bytes_twice(void)
{
    const char *set = "{'environment':{'Z':'1','A':'2'},'assets':[" ASSET("b") "," ASSET("a")
                      "],'compatibility':{'z':1,'a':2}}";
    sc_scroll *a = OK_SCROLL(set, NULL);
    sc_scroll *b = OK_SCROLL(set, NULL);
    if (a != NULL && b != NULL) {
        char *ta = write_text(a->effective);
        char *tb = write_text(b->effective);
        CU_ASSERT_PTR_NOT_NULL(ta);
        if (ta != NULL && tb != NULL)
            CU_ASSERT_STRING_EQUAL(ta, tb);
        free(ta);
        free(tb);
    }
    sc_scroll_free(a);
    sc_scroll_free(b);
}

static void determinism_split_same_bytes_twice(void)
{
    sc_error err;
    sc_scroll *a = NULL, *b = NULL;
    const char *fs = "{'environment':{'B':'1'},'prunePaths':['x']}";
    const char *bs = "{'environment':{'A':'1'},'prunePaths':['y','x']}";
    SC_EXPECT_CODE(split(fs, bs, NULL, &a, &err), SC_OK, &err);
    SC_EXPECT_CODE(split(fs, bs, NULL, &b, &err), SC_OK, &err);
    if (a != NULL && b != NULL) {
        char *ta = write_text(a->effective);
        char *tb = write_text(b->effective);
        if (ta != NULL && tb != NULL)
            CU_ASSERT_STRING_EQUAL(ta, tb);
        free(ta);
        free(tb);
    }
    sc_scroll_free(a);
    sc_scroll_free(b);
}

/* ---- sc_scroll_load from a workspace ---------------------------------------- */

static void load_whole_scroll(void)
{
    sc_test_ws w = sc_test_ws_new();
    char *t = patch(MIN, NULL, NULL);
    sc_test_write(w.scrolls, "demo/linux-x86_64-cpu/scroll.json", t);
    sc_error err;
    sc_scroll *s = NULL;
    SC_EXPECT_CODE(sc_scroll_load(w.scrolls, "demo/linux-x86_64-cpu", &s, &err), SC_OK, &err);
    if (s != NULL) {
        CU_ASSERT_STRING_EQUAL(s->box_id, "demo");
        CU_ASSERT_STRING_EQUAL(s->target_id, "linux-x86_64-cpu");
        CU_ASSERT_PTR_NOT_NULL(s->path);
        if (s->path != NULL)
            CU_ASSERT_PTR_NOT_NULL(strstr(s->path, "demo/linux-x86_64-cpu/scroll.json"));
        CU_ASSERT_PTR_NULL(s->base_path);
        CU_ASSERT_STRING_EQUAL(keys_of(s->effective), MIN_EFFECTIVE_KEYS);
    }
    sc_scroll_free(s);
    free(t);
    sc_test_ws_free(&w);
}

static void load_split_scroll(void)
{
    sc_test_ws w = sc_test_ws_new();
    sc_test_ws_put(&w, "demo/scroll.json", BASE);
    sc_test_ws_put(&w, "demo/linux-x86_64-cpu/scroll.json", FRAG);
    sc_error err;
    sc_scroll *s = NULL;
    SC_EXPECT_CODE(sc_scroll_load(w.scrolls, "demo/linux-x86_64-cpu", &s, &err), SC_OK, &err);
    if (s != NULL) {
        CU_ASSERT_PTR_NOT_NULL(s->base_path);
        if (s->base_path != NULL)
            CU_ASSERT_PTR_NOT_NULL(strstr(s->base_path, "demo/scroll.json"));
        CU_ASSERT_PTR_NULL(eff(s, "extends"));
    }
    sc_scroll_free(s);
    sc_test_ws_free(&w);
}

static void load_split_base_missing(void)
{
    sc_test_ws w = sc_test_ws_new();
    sc_test_ws_put(&w, "demo/linux-x86_64-cpu/scroll.json", FRAG);
    sc_error err;
    sc_scroll *s = NULL;
    SC_EXPECT_CODE(sc_scroll_load(w.scrolls, "demo/linux-x86_64-cpu", &s, &err),
                SC_E_INVALID_SCROLL, &err);
    CU_ASSERT_PTR_NULL(s);
    sc_test_ws_free(&w);
}

static void load_invalid_json(void)
{
    sc_test_ws w = sc_test_ws_new();
    sc_test_ws_put(&w, "demo/linux-x86_64-cpu/scroll.json", "{'schemaVersion':3,");
    sc_error err;
    sc_scroll *s = NULL;
    SC_EXPECT_CODE(sc_scroll_load(w.scrolls, "demo/linux-x86_64-cpu", &s, &err), SC_E_INVALID_JSON,
                &err);
    EXPECT_NAMES(&err, "scroll.json");
    sc_test_ws_free(&w);
}

static void load_layout_mismatch_box(void)
{
    sc_test_ws w = sc_test_ws_new();
    sc_test_ws_put(&w, "other/linux-x86_64-cpu/scroll.json", MIN);
    sc_error err;
    sc_scroll *s = NULL;
    SC_EXPECT_CODE(sc_scroll_load(w.scrolls, "other/linux-x86_64-cpu", &s, &err),
                SC_E_LAYOUT_MISMATCH, &err);
    sc_test_ws_free(&w);
}

static void load_layout_mismatch_target(void)
{
    sc_test_ws w = sc_test_ws_new();
    sc_test_ws_put(&w, "demo/windows-x86_64-cpu/scroll.json", MIN);
    sc_error err;
    sc_scroll *s = NULL;
    SC_EXPECT_CODE(sc_scroll_load(w.scrolls, "demo/windows-x86_64-cpu", &s, &err),
                SC_E_LAYOUT_MISMATCH, &err);
    sc_test_ws_free(&w);
}

static void load_invalid_reference(void)
{
    static const char *const refs[] = {
        "",        "/",         "demo/linux-x86_64-cpu/x", "/demo/linux-x86_64-cpu",
        "demo/",   "demo//x",   "./linux-x86_64-cpu",      "demo/..",
        "../demo", ".demo/x",   "demo/.hidden",            "demo\\linux-x86_64-cpu",
        "demo/a\\b",
    };
    sc_test_ws w = sc_test_ws_new();
    sc_test_ws_put(&w, "demo/linux-x86_64-cpu/scroll.json", MIN);
    for (size_t i = 0; i < sizeof refs / sizeof refs[0]; i++) {
        sc_error err;
        sc_scroll *s = NULL;
        sc_code c = sc_scroll_load(w.scrolls, refs[i], &s, &err);
        if (c != SC_E_INVALID_REFERENCE)
            fprintf(stderr, "\n  ref \"%s\"", refs[i]);
        SC_EXPECT_CODE(c, SC_E_INVALID_REFERENCE, &err);
        sc_scroll_free(s);
    }
    sc_test_ws_free(&w);
}

/* A segment must be a safe path (section 3): "C:" starts with a drive prefix. */
static void load_reference_drive_prefix_segment_invalid(void)
{
    sc_test_ws w = sc_test_ws_new();
    sc_test_ws_put(&w, "demo/linux-x86_64-cpu/scroll.json", MIN);
    static const char *const refs[] = {"C:/linux-x86_64-cpu", "demo/c:"};
    for (size_t i = 0; i < sizeof refs / sizeof refs[0]; i++) {
        sc_error err;
        sc_scroll *s = NULL;
        SC_EXPECT_CODE(sc_scroll_load(w.scrolls, refs[i], &s, &err), SC_E_INVALID_REFERENCE, &err);
        sc_scroll_free(s);
    }
    sc_scroll_ref_list l = {NULL, 0};
    sc_error err;
    SC_EXPECT_CODE(sc_scroll_list_refs(w.scrolls, "C:", &l, &err), SC_E_INVALID_REFERENCE, &err);
    sc_scroll_ref_list_free(&l);
    sc_test_ws_free(&w);
}

static void load_scroll_not_found(void)
{
    sc_test_ws w = sc_test_ws_new();
    sc_test_ws_put(&w, "demo/linux-x86_64-cpu/scroll.json", MIN);
    ws_mkdir(&w, "demo/windows-x86_64-cpu"); /* a directory without scroll.json */
    static const char *const refs[] = {"nobox/linux-x86_64-cpu", "demo/linux-x86_64-cuda12.4",
                                       "demo/windows-x86_64-cpu", "demo/whatever"};
    for (size_t i = 0; i < sizeof refs / sizeof refs[0]; i++) {
        sc_error err;
        sc_scroll *s = NULL;
        SC_EXPECT_CODE(sc_scroll_load(w.scrolls, refs[i], &s, &err), SC_E_SCROLL_NOT_FOUND, &err);
        sc_scroll_free(s);
    }
    sc_test_ws_free(&w);
}

static void load_same_as_resolve_and_deterministic(void)
{
    sc_test_ws w = sc_test_ws_new();
    const char *set = "{'environment':{'B':'1','A':'2'},'assets':[" ASSET("z") "]}";
    char *frag = patch(FRAG, set, NULL);
    sc_test_ws_put(&w, "demo/scroll.json", BASE);
    sc_test_write(w.scrolls, "demo/linux-x86_64-cpu/scroll.json", frag);
    sc_error err;
    sc_scroll *a = NULL, *b = NULL, *m = NULL;
    SC_EXPECT_CODE(sc_scroll_load(w.scrolls, "demo/linux-x86_64-cpu", &a, &err), SC_OK, &err);
    SC_EXPECT_CODE(sc_scroll_load(w.scrolls, "demo/linux-x86_64-cpu", &b, &err), SC_OK, &err);
    SC_EXPECT_CODE(res(frag, BASE, "demo", "linux-x86_64-cpu", &m, &err), SC_OK, &err);
    if (a != NULL && b != NULL && m != NULL) {
        char *ta = write_text(a->effective);
        char *tb = write_text(b->effective);
        char *tm = write_text(m->effective);
        if (ta && tb && tm) {
            CU_ASSERT_STRING_EQUAL(ta, tb);
            CU_ASSERT_STRING_EQUAL(ta, tm);
        }
        free(ta);
        free(tb);
        free(tm);
    }
    sc_scroll_free(a);
    sc_scroll_free(b);
    sc_scroll_free(m);
    free(frag);
    sc_test_ws_free(&w);
}

/* ---- sc_scroll_list_refs --------------------------------------------------- */

static const char *refs_joined(const sc_scroll_ref_list *l)
{
    static char buf[2048];
    buf[0] = '\0';
    for (size_t i = 0; i < l->count; i++) {
        if (i)
            strncat(buf, " ", sizeof buf - strlen(buf) - 1);
        strncat(buf, l->refs[i], sizeof buf - strlen(buf) - 1);
    }
    return buf;
}

/* Create boxes and targets in reverse byte order. */
static sc_test_ws ws_listing(void)
{
    sc_test_ws w = sc_test_ws_new();
    sc_test_ws_put(&w, "zeta/windows-x86_64-cpu/scroll.json", "{}");
    sc_test_ws_put(&w, "zeta/linux-x86_64-cpu/scroll.json", "{}");
    sc_test_ws_put(&w, "beta/macos-aarch64-metal/scroll.json", "{}");
    sc_test_ws_put(&w, "beta/linux-x86_64-cuda12.4/scroll.json", "{}");
    sc_test_ws_put(&w, "beta/linux-x86_64-cpu/scroll.json", "{}");
    sc_test_ws_put(&w, "beta/scroll.json", "{}");                /* a base, never a target */
    ws_mkdir(&w, "beta/windows-x86_64-cpu");             /* no scroll.json */
    sc_test_ws_put(&w, "beta/windows-x86_64-cpu/pixi.toml", ""); /* still no scroll.json */
    sc_test_ws_put(&w, "Alpha/linux-x86_64-cpu/scroll.json", "{}");
    ws_mkdir(&w, "empty");
    sc_test_ws_put(&w, "onlybase/scroll.json", "{}");
    sc_test_ws_put(&w, "README.md", "not a box"); /* a file, not a box directory */
    return w;
}

static void list_all_in_byte_order(void)
{
    sc_test_ws w = ws_listing();
    sc_scroll_ref_list l = {NULL, 0};
    sc_error err;
    SC_EXPECT_CODE(sc_scroll_list_refs(w.scrolls, NULL, &l, &err), SC_OK, &err);
    CU_ASSERT_STRING_EQUAL(refs_joined(&l),
                           "Alpha/linux-x86_64-cpu beta/linux-x86_64-cpu "
                           "beta/linux-x86_64-cuda12.4 beta/macos-aarch64-metal "
                           "zeta/linux-x86_64-cpu zeta/windows-x86_64-cpu");
    sc_scroll_ref_list_free(&l);
    sc_test_ws_free(&w);
}

static void list_boxes_in_directory_name_order(void)
{
    /* "a" < "a-b" as directory names, though "a-b/..." < "a/..." as whole refs */
    sc_test_ws w = sc_test_ws_new();
    sc_test_ws_put(&w, "a-b/linux-x86_64-cpu/scroll.json", "{}");
    sc_test_ws_put(&w, "a/linux-x86_64-cpu/scroll.json", "{}");
    sc_scroll_ref_list l = {NULL, 0};
    sc_error err;
    SC_EXPECT_CODE(sc_scroll_list_refs(w.scrolls, NULL, &l, &err), SC_OK, &err);
    CU_ASSERT_STRING_EQUAL(refs_joined(&l), "a/linux-x86_64-cpu a-b/linux-x86_64-cpu");
    sc_scroll_ref_list_free(&l);
    sc_test_ws_free(&w);
}

static void list_box_targets_skip_base_and_bare_dirs(void)
{
    sc_test_ws w = ws_listing();
    sc_scroll_ref_list l = {NULL, 0};
    sc_error err;
    SC_EXPECT_CODE(sc_scroll_list_refs(w.scrolls, "beta", &l, &err), SC_OK, &err);
    CU_ASSERT_STRING_EQUAL(refs_joined(&l), "beta/linux-x86_64-cpu beta/linux-x86_64-cuda12.4 "
                                            "beta/macos-aarch64-metal");
    sc_scroll_ref_list_free(&l);
    sc_test_ws_free(&w);
}

static void list_exact_reference(void)
{
    sc_test_ws w = ws_listing();
    sc_scroll_ref_list l = {NULL, 0};
    sc_error err;
    SC_EXPECT_CODE(sc_scroll_list_refs(w.scrolls, "zeta/linux-x86_64-cpu", &l, &err), SC_OK, &err);
    CU_ASSERT_STRING_EQUAL(refs_joined(&l), "zeta/linux-x86_64-cpu");
    sc_scroll_ref_list_free(&l);
    sc_test_ws_free(&w);
}

static void list_names_nothing_is_scroll_not_found(void)
{
    sc_test_ws w = ws_listing();
    static const char *const sel[] = {"nobox", "empty", "onlybase", "beta/windows-x86_64-cpu",
                                      "beta/windows-x86_64-cuda12.4", "alpha"};
    for (size_t i = 0; i < sizeof sel / sizeof sel[0]; i++) {
        sc_scroll_ref_list l = {NULL, 0};
        sc_error err;
        SC_EXPECT_CODE(sc_scroll_list_refs(w.scrolls, sel[i], &l, &err), SC_E_SCROLL_NOT_FOUND,
                    &err);
        sc_scroll_ref_list_free(&l);
    }
    sc_test_ws_free(&w);
}

static void list_empty_workspace_is_scroll_not_found(void)
{
    sc_test_ws w = sc_test_ws_new();
    sc_test_ws_put(&w, "onlybase/scroll.json", "{}");
    sc_scroll_ref_list l = {NULL, 0};
    sc_error err;
    SC_EXPECT_CODE(sc_scroll_list_refs(w.scrolls, NULL, &l, &err), SC_E_SCROLL_NOT_FOUND, &err);
    sc_scroll_ref_list_free(&l);
    sc_test_ws_free(&w);
}

static void list_invalid_reference(void)
{
    sc_test_ws w = ws_listing();
    static const char *const sel[] = {"", "beta/", "/beta", "beta//x", "beta/x/y", ".",
                                      "..", "beta/..", ".git", "beta/.x", "be\\ta"};
    for (size_t i = 0; i < sizeof sel / sizeof sel[0]; i++) {
        sc_scroll_ref_list l = {NULL, 0};
        sc_error err;
        sc_code c = sc_scroll_list_refs(w.scrolls, sel[i], &l, &err);
        if (c != SC_E_INVALID_REFERENCE)
            fprintf(stderr, "\n  selector \"%s\"", sel[i]);
        SC_EXPECT_CODE(c, SC_E_INVALID_REFERENCE, &err);
        sc_scroll_ref_list_free(&l);
    }
    sc_test_ws_free(&w);
}

/* ---- 6 config ------------------------------------------------------------- */

/* sc_config_check on single-quoted JSON, named "my/scrollcase.config.json". */
static sc_code config_q(const char *text, sc_error *err)
{
    sc_json *doc = parse_q(text);
    if (doc == NULL)
        return SC_E_INTERNAL;
    const char *out[SC_WS_PATH_COUNT];
    sc_error_clear(err);
    sc_code c = sc_config_check(doc, "my/scrollcase.config.json", out, err);
    sc_json_free(doc);
    return c;
}

static void config_paths_read(void)
{
    sc_json *doc = parse_q("{'version':1,'paths':{'scrolls':'s','build':'b','dist':'d',"
                           "'keys':'k','toolchain':'t'},'other':{'anything':[1]}}");
    CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
    const char *out[SC_WS_PATH_COUNT];
    sc_error err;
    SC_EXPECT_CODE(sc_config_check(doc, "c.json", out, &err), SC_OK, &err);
    static const char *const want[] = {"s", "b", "d", "k", "t"};
    for (int i = 0; i < SC_WS_PATH_COUNT; i++) {
        CU_ASSERT_PTR_NOT_NULL(out[i]);
        if (out[i] != NULL)
            CU_ASSERT_STRING_EQUAL(out[i], want[i]);
    }
    sc_json_free(doc);
}

static void config_optional_members(void)
{
    sc_json *doc = parse_q("{'paths':{'build':'out'}}");
    CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
    const char *out[SC_WS_PATH_COUNT];
    sc_error err;
    SC_EXPECT_CODE(sc_config_check(doc, "c.json", out, &err), SC_OK, &err);
    CU_ASSERT_PTR_NULL(out[SC_WS_SCROLLS]);
    CU_ASSERT_PTR_NOT_NULL(out[SC_WS_BUILD]);
    CU_ASSERT_PTR_NULL(out[SC_WS_DIST]);
    sc_json_free(doc);
    SC_EXPECT_CODE(config_q("{}", &err), SC_OK, &err);
    SC_EXPECT_CODE(config_q("{'version':1}", &err), SC_OK, &err);
    SC_EXPECT_CODE(config_q("{'name':'x','version':1,'extra':null}", &err), SC_OK, &err);
}

static void config_must_be_object(void)
{
    sc_error err;
    SC_EXPECT_CODE(config_q("[]", &err), SC_E_INVALID_CONFIG, &err);
    SC_EXPECT_CODE(config_q("'paths'", &err), SC_E_INVALID_CONFIG, &err);
    EXPECT_NAMES(&err, "scrollcase.config.json");
}

static void config_version_must_be_integer_1(void)
{
    static const char *const v[] = {"2", "0", "'1'", "1.0", "1e0", "null", "true"};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        char text[64];
        snprintf(text, sizeof text, "{'version':%s}", v[i]);
        sc_error err;
        SC_EXPECT_CODE(config_q(text, &err), SC_E_INVALID_CONFIG, &err);
    }
}

static void config_paths_must_be_object(void)
{
    sc_error err;
    SC_EXPECT_CODE(config_q("{'paths':['scrolls']}", &err), SC_E_INVALID_CONFIG, &err);
    SC_EXPECT_CODE(config_q("{'paths':null}", &err), SC_E_INVALID_CONFIG, &err);
}

static void config_paths_only_known_members(void)
{
    sc_error err;
    SC_EXPECT_CODE(config_q("{'paths':{'scrolls':'s','cache':'c'}}", &err),
                SC_E_INVALID_CONFIG, &err);
    EXPECT_NAMES(&err, "cache");
    SC_EXPECT_CODE(config_q("{'paths':{'Scrolls':'s'}}", &err), SC_E_INVALID_CONFIG, &err);
}

static void config_paths_non_empty_strings(void)
{
    sc_error err;
    SC_EXPECT_CODE(config_q("{'paths':{'scrolls':''}}", &err), SC_E_INVALID_CONFIG, &err);
    EXPECT_NAMES(&err, "scrolls");
    SC_EXPECT_CODE(config_q("{'paths':{'keys':1}}", &err), SC_E_INVALID_CONFIG, &err);
    SC_EXPECT_CODE(config_q("{'paths':{'dist':['d']}}", &err), SC_E_INVALID_CONFIG, &err);
}

static void config_path_keys_and_defaults(void)
{
    static const char *const keys[] = {"scrolls", "build", "dist", "keys", "toolchain"};
    static const char *const defs[] = {"scrolls", ".scrollcase/build", ".scrollcase/dist",
                                       ".scrollcase/keys", ".scrollcase/toolchain"};
    for (int i = 0; i < SC_WS_PATH_COUNT; i++) {
        CU_ASSERT_STRING_EQUAL(sc_ws_path_key((enum sc_ws_path)i), keys[i]);
        CU_ASSERT_STRING_EQUAL(sc_ws_path_default((enum sc_ws_path)i), defs[i]);
    }
}

/* ---- 6 workspace ------------------------------------------------------------ */

/* Lexically normalise a path: no "//", no "." segment, no trailing "/". */
static void norm(const char *in, char *out, size_t size)
{
    size_t o = 0;
    const char *p = in;
    int abs = *p == '/';
    out[0] = '\0';
    if (abs && o + 1 < size)
        out[o++] = '/';
    while (*p) {
        while (*p == '/')
            p++;
        const char *e = strchr(p, '/');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        if (n == 0)
            break;
        if (!(n == 1 && p[0] == '.')) {
            if (o > (size_t)abs && o + 1 < size)
                out[o++] = '/';
            for (size_t i = 0; i < n && o + 1 < size; i++)
                out[o++] = p[i];
        }
        p += n;
    }
    out[o] = '\0';
}

static void expect_path_at(const char *got, const char *dir, const char *rel, int line)
{
    char want[PATH_MAX * 2], a[PATH_MAX * 2], b[PATH_MAX * 2];
    if (rel != NULL)
        snprintf(want, sizeof want, "%s/%s", dir, rel);
    else
        snprintf(want, sizeof want, "%s", dir);
    norm(want, a, sizeof a);
    norm(got ? got : "(null)", b, sizeof b);
    if (strcmp(a, b) != 0)
        fprintf(stderr, "\n  line %d: path %s, want %s\n", line, b, a);
    CU_assertImplementation(strcmp(a, b) == 0, (unsigned)line, "path as expected", __FILE__,
                            "", CU_FALSE);
}
#define EXPECT_PATH(got, dir, rel) expect_path_at((got), (dir), (rel), __LINE__)

static char *mkpath(const char *root, const char *rel)
{
    char *p = sc_path_join(root, rel);
    /* mkdir -p */
    for (char *s = p + strlen(root) + 1; *s; s++)
        if (*s == '/') {
            *s = '\0';
            mkdir(p, 0755);
            *s = '/';
        }
    mkdir(p, 0755);
    return p;
}

static void ws_defaults_against_root(void)
{
    sc_test_ws w = sc_test_ws_new();
    sc_workspace_options o;
    memset(&o, 0, sizeof o);
    o.project_root = w.root;
    o.cwd = w.root;
    sc_workspace out;
    memset(&out, 0, sizeof out);
    sc_error err;
    SC_EXPECT_CODE(sc_workspace_resolve(&o, &out, &err), SC_OK, &err);
    EXPECT_PATH(out.root, w.root, NULL);
    CU_ASSERT_PTR_NULL(out.config_path);
    for (int i = 0; i < SC_WS_PATH_COUNT; i++)
        EXPECT_PATH(out.paths[i], w.root, sc_ws_path_default((enum sc_ws_path)i));
    sc_workspace_free(&out);
    sc_test_ws_free(&w);
}

static void ws_precedence_flag_config_default(void)
{
    sc_test_ws w = sc_test_ws_new();
    sc_test_write(w.root, "scrollcase.config.json",
                  "{\"version\": 1, \"paths\": {\"build\": \"cfg-build\", \"dist\": \"cfg-dist\"}}");
    char *cwd = mkpath(w.root, "sub/dir");
    sc_workspace_options o;
    memset(&o, 0, sizeof o);
    o.cwd = cwd;
    o.paths[SC_WS_BUILD] = "flag-build"; /* flag beats config, against cwd */
    sc_workspace out;
    memset(&out, 0, sizeof out);
    sc_error err;
    SC_EXPECT_CODE(sc_workspace_resolve(&o, &out, &err), SC_OK, &err);
    EXPECT_PATH(out.root, w.root, NULL);
    EXPECT_PATH(out.paths[SC_WS_BUILD], cwd, "flag-build");
    EXPECT_PATH(out.paths[SC_WS_DIST], w.root, "cfg-dist");
    EXPECT_PATH(out.paths[SC_WS_SCROLLS], w.root, "scrolls");
    EXPECT_PATH(out.paths[SC_WS_KEYS], w.root, ".scrollcase/keys");
    sc_workspace_free(&out);
    free(cwd);
    sc_test_ws_free(&w);
}

static void ws_flag_absolute_kept(void)
{
    sc_test_ws w = sc_test_ws_new();
    sc_workspace_options o;
    memset(&o, 0, sizeof o);
    o.cwd = w.root;
    o.project_root = w.root;
    o.paths[SC_WS_SCROLLS] = "/abs/scrolls";
    sc_workspace out;
    memset(&out, 0, sizeof out);
    sc_error err;
    SC_EXPECT_CODE(sc_workspace_resolve(&o, &out, &err), SC_OK, &err);
    EXPECT_PATH(out.paths[SC_WS_SCROLLS], "/abs/scrolls", NULL);
    sc_workspace_free(&out);
    sc_test_ws_free(&w);
}

static void ws_root_found_walking_up(void)
{
    sc_test_ws w = sc_test_ws_new();
    char *proj = mkpath(w.root, "proj");
    sc_test_write(proj, "scrollcase.config.json", "{\"paths\": {\"scrolls\": \"boxes\"}}");
    char *cwd = mkpath(proj, "a/b/c");
    sc_workspace_options o;
    memset(&o, 0, sizeof o);
    o.cwd = cwd;
    sc_workspace out;
    memset(&out, 0, sizeof out);
    sc_error err;
    SC_EXPECT_CODE(sc_workspace_resolve(&o, &out, &err), SC_OK, &err);
    EXPECT_PATH(out.root, proj, NULL);
    EXPECT_PATH(out.config_path, proj, "scrollcase.config.json");
    EXPECT_PATH(out.paths[SC_WS_SCROLLS], proj, "boxes");
    sc_workspace_free(&out);
    free(cwd);
    free(proj);
    sc_test_ws_free(&w);
}

static void ws_nearest_config_wins(void)
{
    sc_test_ws w = sc_test_ws_new();
    sc_test_write(w.root, "scrollcase.config.json", "{}");
    char *inner = mkpath(w.root, "inner");
    sc_test_write(inner, "scrollcase.config.json", "{}");
    char *cwd = mkpath(inner, "x");
    sc_workspace_options o;
    memset(&o, 0, sizeof o);
    o.cwd = cwd;
    sc_workspace out;
    memset(&out, 0, sizeof out);
    sc_error err;
    SC_EXPECT_CODE(sc_workspace_resolve(&o, &out, &err), SC_OK, &err);
    EXPECT_PATH(out.root, inner, NULL);
    sc_workspace_free(&out);
    free(cwd);
    free(inner);
    sc_test_ws_free(&w);
}

static void ws_no_config_root_is_cwd(void)
{
    sc_test_ws w = sc_test_ws_new();
    char *cwd = mkpath(w.root, "plain/dir");
    sc_workspace_options o;
    memset(&o, 0, sizeof o);
    o.cwd = cwd;
    sc_workspace out;
    memset(&out, 0, sizeof out);
    sc_error err;
    SC_EXPECT_CODE(sc_workspace_resolve(&o, &out, &err), SC_OK, &err);
    EXPECT_PATH(out.root, cwd, NULL);
    CU_ASSERT_PTR_NULL(out.config_path);
    EXPECT_PATH(out.paths[SC_WS_SCROLLS], cwd, "scrolls");
    sc_workspace_free(&out);
    free(cwd);
    sc_test_ws_free(&w);
}

static void ws_config_flag_directory_is_root(void)
{
    sc_test_ws w = sc_test_ws_new();
    char *conf_dir = mkpath(w.root, "elsewhere/conf");
    sc_test_write(conf_dir, "custom.json", "{\"paths\": {\"keys\": \"k\"}}");
    char *conf = sc_path_join(conf_dir, "custom.json");
    char *cwd = mkpath(w.root, "work");
    sc_test_write(cwd, "scrollcase.config.json", "{\"paths\": {\"keys\": \"wrong\"}}");
    sc_workspace_options o;
    memset(&o, 0, sizeof o);
    o.cwd = cwd;
    o.config = conf;
    sc_workspace out;
    memset(&out, 0, sizeof out);
    sc_error err;
    SC_EXPECT_CODE(sc_workspace_resolve(&o, &out, &err), SC_OK, &err);
    EXPECT_PATH(out.root, conf_dir, NULL);
    EXPECT_PATH(out.config_path, conf, NULL);
    EXPECT_PATH(out.paths[SC_WS_KEYS], conf_dir, "k");
    EXPECT_PATH(out.paths[SC_WS_SCROLLS], conf_dir, "scrolls");
    sc_workspace_free(&out);
    free(cwd);
    free(conf);
    free(conf_dir);
    sc_test_ws_free(&w);
}

static void ws_project_root_flag_wins(void)
{
    sc_test_ws w = sc_test_ws_new();
    sc_test_write(w.root, "scrollcase.config.json", "{}");
    char *cwd = mkpath(w.root, "a");
    char *proj = mkpath(w.root, "other");
    sc_test_write(proj, "scrollcase.config.json", "{\"paths\": {\"scrolls\": \"s2\"}}");
    sc_workspace_options o;
    memset(&o, 0, sizeof o);
    o.cwd = cwd;
    o.project_root = proj;
    sc_workspace out;
    memset(&out, 0, sizeof out);
    sc_error err;
    SC_EXPECT_CODE(sc_workspace_resolve(&o, &out, &err), SC_OK, &err);
    EXPECT_PATH(out.root, proj, NULL);
    EXPECT_PATH(out.paths[SC_WS_SCROLLS], proj, "s2");
    sc_workspace_free(&out);
    free(cwd);
    free(proj);
    sc_test_ws_free(&w);
}

static void ws_missing_config_flag_is_invalid_config(void)
{
    sc_test_ws w = sc_test_ws_new();
    char *conf = sc_path_join(w.root, "nope/scrollcase.config.json");
    sc_workspace_options o;
    memset(&o, 0, sizeof o);
    o.cwd = w.root;
    o.config = conf;
    sc_workspace out;
    memset(&out, 0, sizeof out);
    sc_error err;
    SC_EXPECT_CODE(sc_workspace_resolve(&o, &out, &err), SC_E_INVALID_CONFIG, &err);
    EXPECT_NAMES(&err, "nope/scrollcase.config.json");
    free(conf);
    sc_test_ws_free(&w);
}

static void ws_bad_config_reported(void)
{
    sc_test_ws w = sc_test_ws_new();
    sc_test_write(w.root, "scrollcase.config.json", "{\"version\": 2}");
    sc_workspace_options o;
    memset(&o, 0, sizeof o);
    o.cwd = w.root;
    sc_workspace out;
    memset(&out, 0, sizeof out);
    sc_error err;
    SC_EXPECT_CODE(sc_workspace_resolve(&o, &out, &err), SC_E_INVALID_CONFIG, &err);
    EXPECT_NAMES(&err, "scrollcase.config.json");
    sc_test_write(w.root, "scrollcase.config.json", "{\"version\": 1,}");
    SC_EXPECT_CODE(sc_workspace_resolve(&o, &out, &err), SC_E_INVALID_JSON, &err);
    EXPECT_NAMES(&err, "scrollcase.config.json");
    sc_test_ws_free(&w);
}

/* ---- registration ----------------------------------------------------------- */

void register_scroll_tests(void)
{
    CU_pSuite s = CU_add_suite("scroll", NULL, NULL);
    if (s == NULL)
        CU_FAIL_FATAL("CU_add_suite failed");
    SC_ADD_TEST(s, s2_parse_invalid_json);
    SC_ADD_TEST(s, s2_parse_is_strict);
    SC_ADD_TEST(s, s2_top_level_must_be_object);
    SC_ADD_TEST(s, s3_version_1_and_2_deprecated);
    SC_ADD_TEST(s, s3_other_versions_unsupported);
    SC_ADD_TEST(s, s3_fractional_three_says_it_must_be_the_integer);
    SC_ADD_TEST(s, s3_missing_version_is_invalid_scroll);
    SC_ADD_TEST(s, s3_check_version_direct);
    SC_ADD_TEST(s, s3_before_s4);
    SC_ADD_TEST(s, s3_before_s5);
    SC_ADD_TEST(s, s4_extends_must_be_the_constant);
    SC_ADD_TEST(s, s4_base_must_exist);
    SC_ADD_TEST(s, s4_base_must_parse);
    SC_ADD_TEST(s, s4_base_must_be_object);
    SC_ADD_TEST(s, s4_base_version_checked);
    SC_ADD_TEST(s, s4_base_declares_no_target);
    SC_ADD_TEST(s, s4_base_declares_no_extends);
    SC_ADD_TEST(s, s4_base_version_before_base_target);
    SC_ADD_TEST(s, s4_base_ignored_without_extends);
    SC_ADD_TEST(s, s4_before_s5);
    SC_ADD_TEST(s, s5_minimal_scroll_resolves);
    SC_ADD_TEST(s, s5_each_required_member);
    SC_ADD_TEST(s, s5_required_in_listed_order);
    SC_ADD_TEST(s, s5_required_before_member_checks);
    SC_ADD_TEST(s, s5_members_in_table_order);
    SC_ADD_TEST(s, s5_unknown_member_refused);
    SC_ADD_TEST(s, s5_unknown_members_after_known);
    SC_ADD_TEST(s, s5_unknown_members_in_declaration_order);
    SC_ADD_TEST(s, s5_nested_unknown_member_refused);
    SC_ADD_TEST(s, s5_target_reports_section_4_codes);
    SC_ADD_TEST(s, s5_target_checked_at_its_place);
    SC_ADD_TEST(s, s5_schema_constant);
    SC_ADD_TEST(s, s5_slug_ids);
    SC_ADD_TEST(s, s5_text_members_non_empty);
    SC_ADD_TEST(s, s5_compatibility_is_open);
    SC_ADD_TEST(s, s5_compatibility_known_members);
    SC_ADD_TEST(s, s5_environment_names_and_values);
    SC_ADD_TEST(s, s5_asset_members);
    SC_ADD_TEST(s, s5_size_bytes_rejects_1_0_and_minus_0);
    SC_ADD_TEST(s, s5_strip_components_integer);
    SC_ADD_TEST(s, s5_asset_archive_members);
    SC_ADD_TEST(s, s5_local_file_members);
    SC_ADD_TEST(s, s5_path_arrays_are_arrays_of_text);
    SC_ADD_TEST(s, s5_self_test_imports_non_empty);
    SC_ADD_TEST(s, s5_self_test_imports_dotted_names);
    SC_ADD_TEST(s, s5_self_test_code_or_file_not_both);
    SC_ADD_TEST(s, s5_timeout_default_is_180);
    SC_ADD_TEST(s, s5_timeout_bounds);
    SC_ADD_TEST(s, s5_timeout_rejects_1_0_and_minus_0);
    SC_ADD_TEST(s, s5_weights_values);
    SC_ADD_TEST(s, s5_execution_kinds);
    SC_ADD_TEST(s, s5_parity_rules);
    SC_ADD_TEST(s, s14_parity_accelerator_without_validation_environment);
    SC_ADD_TEST(s, s5_before_s6);
    SC_ADD_TEST(s, s6_on_demand_with_archives_refused);
    SC_ADD_TEST(s, s6_on_demand_without_assets_refused);
    SC_ADD_TEST(s, s6_on_demand_with_assets_accepted);
    SC_ADD_TEST(s, s6_before_s9);
    SC_ADD_TEST(s, s7_target_required);
    SC_ADD_TEST(s, s7_before_s9);
    SC_ADD_TEST(s, s7_before_s12);
    SC_ADD_TEST(s, s8_defaults_appended_in_order);
    SC_ADD_TEST(s, s8_default_values);
    SC_ADD_TEST(s, s8_default_ids_follow_the_target);
    SC_ADD_TEST(s, s8_declared_members_keep_place_and_value);
    SC_ADD_TEST(s, s8_self_test_defaults);
    SC_ADD_TEST(s, s8_entry_point_default_declared_equal);
    SC_ADD_TEST(s, s9_all_path_members_safe);
    SC_ADD_TEST(s, s9_each_path_member_checked);
    SC_ADD_TEST(s, s9_paths_checked_in_listed_order);
    SC_ADD_TEST(s, s9_python_module_is_not_a_path);
    SC_ADD_TEST(s, s9_before_s10);
    SC_ADD_TEST(s, s9_before_s11);
    SC_ADD_TEST(s, s10_archive_source_must_be_declared);
    SC_ADD_TEST(s, s10_archive_source_may_be_asset);
    SC_ADD_TEST(s, s10_archive_source_may_be_local_file);
    SC_ADD_TEST(s, s10_two_archives_same_source);
    SC_ADD_TEST(s, s10_before_s11);
    SC_ADD_TEST(s, s11_case_folded_collision);
    SC_ADD_TEST(s, s11_exact_duplicate_collision);
    SC_ADD_TEST(s, s11_only_ascii_is_folded);
    SC_ADD_TEST(s, s11_before_s12);
    SC_ADD_TEST(s, s12_box_directory_must_be_box_id);
    SC_ADD_TEST(s, s12_target_directory_must_be_target_id);
    SC_ADD_TEST(s, s12_before_s13);
    SC_ADD_TEST(s, s13_entry_point_must_match_target);
    SC_ADD_TEST(s, join_split_equals_whole);
    SC_ADD_TEST(s, join_member_order_base_then_scroll);
    SC_ADD_TEST(s, join_scalars_scroll_wins);
    SC_ADD_TEST(s, join_execution_and_parity_replaced);
    SC_ADD_TEST(s, join_asset_arrays_concatenated_base_first);
    SC_ADD_TEST(s, join_asset_arrays_present_if_either_side);
    SC_ADD_TEST(s, join_path_lists_drop_later_duplicates);
    SC_ADD_TEST(s, join_compatibility_merged_by_key);
    SC_ADD_TEST(s, join_environment_merged_by_key);
    SC_ADD_TEST(s, join_self_test_imports_union);
    SC_ADD_TEST(s, join_self_test_files_union);
    SC_ADD_TEST(s, join_self_test_scroll_code_drops_base_code_and_file);
    SC_ADD_TEST(s, join_self_test_base_code_kept);
    SC_ADD_TEST(s, join_self_test_timeout_scroll_wins);
    SC_ADD_TEST(s, join_wrong_type_is_replaced_not_merged);
    SC_ADD_TEST(s, join_schema_applies_to_joined_scroll);
    SC_ADD_TEST(s, join_fragment_version_checked);
    SC_ADD_TEST(s, join_collision_across_base_and_scroll);
    SC_ADD_TEST(s, determinism_same_bytes_twice);
    SC_ADD_TEST(s, determinism_split_same_bytes_twice);
    SC_ADD_TEST(s, load_whole_scroll);
    SC_ADD_TEST(s, load_split_scroll);
    SC_ADD_TEST(s, load_split_base_missing);
    SC_ADD_TEST(s, load_invalid_json);
    SC_ADD_TEST(s, load_layout_mismatch_box);
    SC_ADD_TEST(s, load_layout_mismatch_target);
    SC_ADD_TEST(s, load_invalid_reference);
    SC_ADD_TEST(s, load_reference_drive_prefix_segment_invalid);
    SC_ADD_TEST(s, load_scroll_not_found);
    SC_ADD_TEST(s, load_same_as_resolve_and_deterministic);
    SC_ADD_TEST(s, list_all_in_byte_order);
    SC_ADD_TEST(s, list_boxes_in_directory_name_order);
    SC_ADD_TEST(s, list_box_targets_skip_base_and_bare_dirs);
    SC_ADD_TEST(s, list_exact_reference);
    SC_ADD_TEST(s, list_names_nothing_is_scroll_not_found);
    SC_ADD_TEST(s, list_empty_workspace_is_scroll_not_found);
    SC_ADD_TEST(s, list_invalid_reference);
    SC_ADD_TEST(s, config_paths_read);
    SC_ADD_TEST(s, config_optional_members);
    SC_ADD_TEST(s, config_must_be_object);
    SC_ADD_TEST(s, config_version_must_be_integer_1);
    SC_ADD_TEST(s, config_paths_must_be_object);
    SC_ADD_TEST(s, config_paths_only_known_members);
    SC_ADD_TEST(s, config_paths_non_empty_strings);
    SC_ADD_TEST(s, config_path_keys_and_defaults);
    SC_ADD_TEST(s, ws_defaults_against_root);
    SC_ADD_TEST(s, ws_precedence_flag_config_default);
    SC_ADD_TEST(s, ws_flag_absolute_kept);
    SC_ADD_TEST(s, ws_root_found_walking_up);
    SC_ADD_TEST(s, ws_nearest_config_wins);
    SC_ADD_TEST(s, ws_no_config_root_is_cwd);
    SC_ADD_TEST(s, ws_config_flag_directory_is_root);
    SC_ADD_TEST(s, ws_project_root_flag_wins);
    SC_ADD_TEST(s, ws_missing_config_flag_is_invalid_config);
    SC_ADD_TEST(s, ws_bad_config_reported);
}
