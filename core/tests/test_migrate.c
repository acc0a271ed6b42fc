/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_migrate.c — docs/format-v3.md section 7 (migration), black-box.
 *
 * sc_migrate_document in memory, then sc_migrate_ref on temporary
 * workspaces: whole and split scrolls, dry runs, refusals (nothing written:
 * file bytes are compared before and after), atomic replacement and no
 * temporary files left behind.
 *
 * JSON in this file is written with single quotes; sc_test_dq() makes it JSON.
 */
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "scrollcase/error.h"
#include "scrollcase/file.h"
#include "scrollcase/json.h"
#include "scrollcase/migrate.h"
#include "scrollcase/path.h"
#include "scrollcase/scroll.h"

#define V2_SCHEMA "https://scrollcase.dev/schema/v2/scroll.schema.json"
#define A16 "aaaaaaaaaaaaaaaa"
#define SHA "'" A16 A16 A16 A16 "'"
#define TGT_CPU "{'platform':'linux','arch':'x86_64','accelerator':'cpu'}"
#define TGT_CUDA "{'platform':'linux','arch':'x86_64','accelerator':'cuda','cudaVersion':'12.4'}"
#define TGT_WIN "{'platform':'windows','arch':'x86_64','accelerator':'cpu'}"
#define ASSET(p) "{'url':'https://example.com/x','relativePath':'" p "','sizeBytes':1,'sha256':" SHA "}"

/* Body members after the version, target excluded. */
#define BODY                                                                    \
    "'boxId':'demo','modelId':'demo-model','runtimeId':'torch','version':'1.0.0'," \
    "'sourceRevision':'abc123','pythonVersion':'3.11','pixiVersion':'0.40.0'"

/* A whole v2 scroll for demo/linux-x86_64-cpu, $schema first, version second. */
#define V2_WHOLE(extra)                                                        \
    "{'$schema':'" V2_SCHEMA "','schemaVersion':2," BODY ",'target':" TGT_CPU   \
    ",'selfTest':{'imports':['json']}" extra "}"
#define V3_WHOLE(extra)                                                        \
    "{'$schema':'" SC_SCROLL_SCHEMA_ID "','schemaVersion':3," BODY              \
    ",'target':" TGT_CPU ",'selfTest':{'imports':['json']}" extra "}"

/* A split v2 box: base and target scrolls (schemaVersion after boxId). */
#define V2_BASE "{'boxId':'demo','schemaVersion':2,'modelId':'demo-model','runtimeId':'torch'," \
    "'version':'1.0.0','sourceRevision':'abc123','pythonVersion':'3.11',"                      \
    "'pixiVersion':'0.40.0','selfTest':{'imports':['json']}}"
#define V2_FRAG(tgt, extra) \
    "{'schemaVersion':2,'extends':'../scroll.json','target':" tgt extra "}"

/* ---- helpers ----------------------------------------------------------- */


static sc_json *parse_q(const char *text)
{
    char *t = sc_test_dq(text);
    sc_json *v = NULL;
    sc_error err;
    if (sc_json_parse(t, strlen(t), &v, &err) != SC_OK) {
        fprintf(stderr, "\n  test JSON does not parse: %s (%s)\n", text, err.message);
        CU_FAIL("test JSON does not parse");
        v = NULL;
    }
    free(t);
    return v;
}

static char *write_text(const sc_json *v)
{
    char *out = NULL;
    size_t len = 0;
    sc_error err;
    if (v == NULL || sc_json_write(v, &out, &len, &err) != SC_OK)
        return NULL;
    return out;
}

/* The deterministic writer's bytes for single-quoted JSON text. */
static char *canonical(const char *text)
{
    sc_json *v = parse_q(text);
    char *t = write_text(v);
    sc_json_free(v);
    return t;
}

/* Migrate a document given as text. */
static sc_code mig_doc(const char *text, sc_json **out, int *changed, sc_error *err)
{
    sc_json *doc = parse_q(text);
    if (doc == NULL)
        return SC_E_INTERNAL;
    *out = NULL;
    *changed = -1;
    sc_error_clear(err);
    sc_code c = sc_migrate_document(doc, "scroll.json", out, changed, err);
    sc_json_free(doc);
    return c;
}

/* The bytes of scrolls/rel (NULL if unreadable; caller frees). */
static char *ws_get(const sc_test_ws *w, const char *rel)
{
    char *p = sc_path_join(w->scrolls, rel);
    char *bytes = NULL;
    size_t len = 0;
    sc_error err;
    if (sc_file_read(p, &bytes, &len, NULL, &err) != SC_OK)
        bytes = NULL;
    free(p);
    return bytes;
}

/* The files of a split box, for before/after comparisons. */
static const char *const box_files[] = {
    "demo/scroll.json", "demo/linux-x86_64-cpu/scroll.json",
    "demo/linux-x86_64-cuda12.4/scroll.json", "demo/windows-x86_64-cpu/scroll.json"};
#define N_BOX_FILES (sizeof box_files / sizeof box_files[0])

typedef struct snapshot {
    char *bytes[N_BOX_FILES];
} snapshot;

static snapshot snap(const sc_test_ws *w)
{
    snapshot s;
    for (size_t i = 0; i < N_BOX_FILES; i++)
        s.bytes[i] = ws_get(w, box_files[i]);
    return s;
}

static void snap_free(snapshot *s)
{
    for (size_t i = 0; i < N_BOX_FILES; i++)
        free(s->bytes[i]);
}

/* 1 if file i has the same bytes (or is equally absent) in both. */
static int snap_same(const snapshot *a, const snapshot *b, size_t i)
{
    if (a->bytes[i] == NULL || b->bytes[i] == NULL)
        return a->bytes[i] == b->bytes[i];
    return strcmp(a->bytes[i], b->bytes[i]) == 0;
}

static void expect_unchanged_at(const sc_test_ws *w, const snapshot *before, int line)
{
    snapshot after = snap(w);
    for (size_t i = 0; i < N_BOX_FILES; i++) {
        int same = snap_same(before, &after, i);
        if (!same)
            fprintf(stderr, "\n  line %d: %s changed\n", line, box_files[i]);
        CU_assertImplementation(same, (unsigned)line, "file unchanged", __FILE__, "",
                                CU_FALSE);
    }
    snap_free(&after);
}
#define EXPECT_UNCHANGED(w, before) expect_unchanged_at((w), (before), __LINE__)

/* Number of entries anywhere under dir whose name starts with '.' or holds "tmp". */
static int stray_files(const char *dir)
{
    DIR *d = opendir(dir);
    if (d == NULL)
        return 0;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        if (e->d_name[0] == '.' || strstr(e->d_name, "tmp") != NULL) {
            fprintf(stderr, "\n  stray file %s/%s\n", dir, e->d_name);
            n++;
        }
        char *sub = sc_path_join(dir, e->d_name);
        if (sc_is_dir(sub))
            n += stray_files(sub);
        free(sub);
    }
    closedir(d);
    return n;
}

/* A split box: base, two targets extending it, one standalone target. */
static void put_split_box(const sc_test_ws *w, const char *cuda_extra)
{
    char frag[1024];
    sc_test_ws_put(w, "demo/scroll.json", V2_BASE);
    sc_test_ws_put(w, "demo/linux-x86_64-cpu/scroll.json", V2_FRAG(TGT_CPU, ""));
    snprintf(frag, sizeof frag, "{'schemaVersion':2,'extends':'../scroll.json','target':"
             TGT_CUDA "%s}", cuda_extra);
    sc_test_ws_put(w, "demo/linux-x86_64-cuda12.4/scroll.json", frag);
    sc_test_ws_put(w, "demo/windows-x86_64-cpu/scroll.json",
           "{'schemaVersion':2," BODY ",'target':" TGT_WIN ",'selfTest':{'imports':['json']}}");
}

static int written_has(const sc_migrate_result *r, const char *suffix)
{
    for (size_t i = 0; i < r->count; i++) {
        size_t n = strlen(r->written[i]), m = strlen(suffix);
        if (n >= m && strcmp(r->written[i] + n - m, suffix) == 0)
            return 1;
    }
    return 0;
}

static sc_code load(const sc_test_ws *w, const char *ref, sc_error *err)
{
    sc_scroll *s = NULL;
    sc_code c = sc_scroll_load(w->scrolls, ref, &s, err);
    sc_scroll_free(s);
    return c;
}

/* ---- sc_migrate_document ---------------------------------------------------- */

static void doc_v2_becomes_v3_in_place(void)
{
    sc_json *in = parse_q(V2_BASE);
    sc_json *out = NULL;
    int changed = -1;
    sc_error err;
    SC_EXPECT_CODE(mig_doc(V2_BASE, &out, &changed, &err), SC_OK, &err);
    CU_ASSERT_EQUAL(changed, 1);
    if (out != NULL && in != NULL) {
        /* same members in the same order; only the version differs */
        CU_ASSERT_EQUAL(out->length, in->length);
        const sc_json *a = in->child, *b = out->child;
        for (; a && b; a = a->next, b = b->next) {
            CU_ASSERT_STRING_EQUAL(a->key, b->key);
            if (strcmp(a->key, "schemaVersion") != 0)
                CU_ASSERT_TRUE(sc_json_equal(a, b));
        }
        uint64_t v = 0;
        CU_ASSERT_TRUE(sc_json_uint53(sc_json_get(out, "schemaVersion"), &v));
        CU_ASSERT_EQUAL(v, 3);
        CU_ASSERT_TRUE(sc_json_get(out, "schemaVersion")->is_integer);
        CU_ASSERT_PTR_NULL(sc_json_get(out, "$schema")); /* not added */
    }
    sc_json_free(in);
    sc_json_free(out);
}

static void doc_schema_id_rewritten(void)
{
    sc_json *out = NULL;
    int changed = -1;
    sc_error err;
    SC_EXPECT_CODE(mig_doc(V2_WHOLE(""), &out, &changed, &err), SC_OK, &err);
    CU_ASSERT_EQUAL(changed, 1);
    if (out != NULL) {
        CU_ASSERT_STRING_EQUAL(out->child->key, "$schema");
        CU_ASSERT_STRING_EQUAL(sc_json_cstr(out->child), SC_SCROLL_SCHEMA_ID);
    }
    sc_json_free(out);
}

static void doc_nothing_else_changes(void)
{
    /* writing the result gives exactly the v3 text's canonical bytes */
    sc_json *out = NULL;
    int changed = -1;
    sc_error err;
    const char *extra = ",'environment':{'Z':'1','A':'2'},'weights':'embed','legacyField':[1.5,"
                        "'x']";
    char v2[2048], v3[2048];
    snprintf(v2, sizeof v2, "{'$schema':'" V2_SCHEMA "','schemaVersion':2," BODY
             ",'target':" TGT_CPU ",'selfTest':{'imports':['json']}%s}", extra);
    snprintf(v3, sizeof v3, "{'$schema':'" SC_SCROLL_SCHEMA_ID "','schemaVersion':3," BODY
             ",'target':" TGT_CPU ",'selfTest':{'imports':['json']}%s}", extra);
    SC_EXPECT_CODE(mig_doc(v2, &out, &changed, &err), SC_OK, &err);
    char *got = write_text(out);
    char *want = canonical(v3);
    CU_ASSERT_PTR_NOT_NULL(got);
    if (got != NULL && want != NULL)
        CU_ASSERT_STRING_EQUAL(got, want);
    free(got);
    free(want);
    sc_json_free(out);
}

static void doc_v3_left_alone(void)
{
    sc_json *out = NULL;
    int changed = -1;
    sc_error err;
    SC_EXPECT_CODE(mig_doc(V3_WHOLE(""), &out, &changed, &err), SC_OK, &err);
    CU_ASSERT_EQUAL(changed, 0);
    char *got = write_text(out);
    char *want = canonical(V3_WHOLE(""));
    if (got != NULL && want != NULL)
        CU_ASSERT_STRING_EQUAL(got, want);
    free(got);
    free(want);
    sc_json_free(out);
}

static void doc_v1_refused(void)
{
    sc_json *out = NULL;
    int changed = -1;
    sc_error err;
    SC_EXPECT_CODE(mig_doc("{'schemaVersion':1,'boxId':'demo'}", &out, &changed, &err),
                SC_E_MIGRATE_REFUSED, &err);
    sc_json_free(out);
}

static void doc_other_versions_refused(void)
{
    static const char *const v[] = {"0", "4", "'2'", "2.0", "null", "true", "-2"};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        char text[128];
        snprintf(text, sizeof text, "{'schemaVersion':%s,'boxId':'demo'}", v[i]);
        sc_json *out = NULL;
        int changed = -1;
        sc_error err;
        SC_EXPECT_CODE(mig_doc(text, &out, &changed, &err), SC_E_MIGRATE_REFUSED, &err);
        sc_json_free(out);
    }
}

static void doc_input_not_modified(void)
{
    sc_json *doc = parse_q(V2_WHOLE(""));
    CU_ASSERT_PTR_NOT_NULL_FATAL(doc);
    char *before = write_text(doc);
    sc_json *out = NULL;
    int changed = -1;
    sc_error err;
    SC_EXPECT_CODE(sc_migrate_document(doc, "scroll.json", &out, &changed, &err), SC_OK, &err);
    char *after = write_text(doc);
    if (before != NULL && after != NULL)
        CU_ASSERT_STRING_EQUAL(before, after);
    free(before);
    free(after);
    sc_json_free(out);
    sc_json_free(doc);
}

/* ---- sc_migrate_ref -------------------------------------------------------- */

static void ref_whole_scroll_rewritten(void)
{
    sc_test_ws w = sc_test_ws_new();
    sc_test_ws_put(&w, "demo/linux-x86_64-cpu/scroll.json", V2_WHOLE(""));
    sc_migrate_result r = {NULL, 0, NULL, 0};
    sc_error err;
    SC_EXPECT_CODE(sc_migrate_ref(w.scrolls, "demo/linux-x86_64-cpu", 0, &r, &err), SC_OK, &err);
    CU_ASSERT_EQUAL(r.count, 1);
    CU_ASSERT_TRUE(written_has(&r, "demo/linux-x86_64-cpu/scroll.json"));
    char *got = ws_get(&w, "demo/linux-x86_64-cpu/scroll.json");
    char *want = canonical(V3_WHOLE(""));
    CU_ASSERT_PTR_NOT_NULL(got);
    if (got != NULL && want != NULL)
        CU_ASSERT_STRING_EQUAL(got, want);
    SC_EXPECT_CODE(load(&w, "demo/linux-x86_64-cpu", &err), SC_OK, &err);
    free(got);
    free(want);
    sc_migrate_result_free(&r);
    sc_test_ws_free(&w);
}

static void ref_split_migrates_base_and_siblings(void)
{
    sc_test_ws w = sc_test_ws_new();
    put_split_box(&w, "");
    snapshot before = snap(&w);
    sc_migrate_result r = {NULL, 0, NULL, 0};
    sc_error err;
    SC_EXPECT_CODE(sc_migrate_ref(w.scrolls, "demo/linux-x86_64-cpu", 0, &r, &err), SC_OK, &err);
    CU_ASSERT_EQUAL(r.count, 3);
    CU_ASSERT_TRUE(written_has(&r, "demo/scroll.json"));
    CU_ASSERT_TRUE(written_has(&r, "demo/linux-x86_64-cpu/scroll.json"));
    CU_ASSERT_TRUE(written_has(&r, "demo/linux-x86_64-cuda12.4/scroll.json"));
    CU_ASSERT_FALSE(written_has(&r, "demo/windows-x86_64-cpu/scroll.json"));
    SC_EXPECT_CODE(load(&w, "demo/linux-x86_64-cpu", &err), SC_OK, &err);
    SC_EXPECT_CODE(load(&w, "demo/linux-x86_64-cuda12.4", &err), SC_OK, &err);
    /* the standalone sibling does not share the base: untouched, still v2 */
    snapshot after = snap(&w);
    CU_ASSERT_TRUE(snap_same(&before, &after, 3));
    SC_EXPECT_CODE(load(&w, "demo/windows-x86_64-cpu", &err), SC_E_DEPRECATED_SCHEMA_VERSION, &err);
    /* the base keeps its member order (schemaVersion second) */
    char *base = ws_get(&w, "demo/scroll.json");
    char *want = canonical("{'boxId':'demo','schemaVersion':3,'modelId':'demo-model',"
                           "'runtimeId':'torch','version':'1.0.0','sourceRevision':'abc123',"
                           "'pythonVersion':'3.11','pixiVersion':'0.40.0',"
                           "'selfTest':{'imports':['json']}}");
    if (base != NULL && want != NULL)
        CU_ASSERT_STRING_EQUAL(base, want);
    free(base);
    free(want);
    snap_free(&after);
    snap_free(&before);
    sc_migrate_result_free(&r);
    sc_test_ws_free(&w);
}

static void ref_box_migrates_every_target(void)
{
    sc_test_ws w = sc_test_ws_new();
    put_split_box(&w, "");
    sc_migrate_result r = {NULL, 0, NULL, 0};
    sc_error err;
    SC_EXPECT_CODE(sc_migrate_ref(w.scrolls, "demo", 0, &r, &err), SC_OK, &err);
    CU_ASSERT_EQUAL(r.count, 4);
    SC_EXPECT_CODE(load(&w, "demo/linux-x86_64-cpu", &err), SC_OK, &err);
    SC_EXPECT_CODE(load(&w, "demo/linux-x86_64-cuda12.4", &err), SC_OK, &err);
    SC_EXPECT_CODE(load(&w, "demo/windows-x86_64-cpu", &err), SC_OK, &err);
    sc_migrate_result_free(&r);
    sc_test_ws_free(&w);
}

static void ref_box_without_base_migrates_every_target(void)
{
    sc_test_ws w = sc_test_ws_new();
    sc_test_ws_put(&w, "demo/linux-x86_64-cpu/scroll.json", V2_WHOLE(""));
    sc_test_ws_put(&w, "demo/windows-x86_64-cpu/scroll.json",
           "{'schemaVersion':2," BODY ",'target':" TGT_WIN ",'selfTest':{'imports':['json']}}");
    sc_migrate_result r = {NULL, 0, NULL, 0};
    sc_error err;
    SC_EXPECT_CODE(sc_migrate_ref(w.scrolls, "demo", 0, &r, &err), SC_OK, &err);
    CU_ASSERT_EQUAL(r.count, 2);
    SC_EXPECT_CODE(load(&w, "demo/linux-x86_64-cpu", &err), SC_OK, &err);
    SC_EXPECT_CODE(load(&w, "demo/windows-x86_64-cpu", &err), SC_OK, &err);
    sc_migrate_result_free(&r);
    sc_test_ws_free(&w);
}

static void ref_v3_base_left_alone_v2_target_migrated(void)
{
    sc_test_ws w = sc_test_ws_new();
    sc_test_ws_put(&w, "demo/scroll.json",
           "{'schemaVersion':3," BODY ",'selfTest':{'imports':['json']}}");
    sc_test_ws_put(&w, "demo/linux-x86_64-cpu/scroll.json", V2_FRAG(TGT_CPU, ""));
    char *base_before = ws_get(&w, "demo/scroll.json");
    sc_migrate_result r = {NULL, 0, NULL, 0};
    sc_error err;
    SC_EXPECT_CODE(sc_migrate_ref(w.scrolls, "demo/linux-x86_64-cpu", 0, &r, &err), SC_OK, &err);
    CU_ASSERT_EQUAL(r.count, 1);
    CU_ASSERT_TRUE(written_has(&r, "demo/linux-x86_64-cpu/scroll.json"));
    char *base_after = ws_get(&w, "demo/scroll.json");
    if (base_before != NULL && base_after != NULL)
        CU_ASSERT_STRING_EQUAL(base_before, base_after);
    SC_EXPECT_CODE(load(&w, "demo/linux-x86_64-cpu", &err), SC_OK, &err);
    free(base_before);
    free(base_after);
    sc_migrate_result_free(&r);
    sc_test_ws_free(&w);
}

static void ref_dry_run_writes_nothing(void)
{
    sc_test_ws w = sc_test_ws_new();
    put_split_box(&w, "");
    snapshot before = snap(&w);
    sc_migrate_result r = {NULL, 0, NULL, 0};
    sc_error err;
    SC_EXPECT_CODE(sc_migrate_ref(w.scrolls, "demo/linux-x86_64-cpu", 1, &r, &err), SC_OK, &err);
    CU_ASSERT_EQUAL(r.count, 3); /* what would be written */
    EXPECT_UNCHANGED(&w, &before);
    CU_ASSERT_EQUAL(stray_files(w.root), 0);
    snap_free(&before);
    sc_migrate_result_free(&r);
    sc_test_ws_free(&w);
}

/* A split box whose cuda sibling breaks v3 in the given way: migrating the
   cpu target is refused, names the sibling, and writes nothing. */
static void expect_split_refused_at(const char *cuda_extra, int line)
{
    sc_test_ws w = sc_test_ws_new();
    put_split_box(&w, cuda_extra);
    snapshot before = snap(&w);
    sc_migrate_result r = {NULL, 0, NULL, 0};
    sc_error err;
    sc_code c = sc_migrate_ref(w.scrolls, "demo/linux-x86_64-cpu", 0, &r, &err);
    sc_test_expect_code_at(c, SC_E_MIGRATE_REFUSED, &err, __FILE__, line);
    int named = strstr(err.message, "linux-x86_64-cuda12.4") != NULL;
    if (!named)
        fprintf(stderr, "\n  line %d: refusal does not name the scroll: %s\n", line,
                err.message);
    CU_assertImplementation(named, (unsigned)line, "names the scroll", __FILE__, "", CU_FALSE);
    expect_unchanged_at(&w, &before, line);
    CU_assertImplementation(stray_files(w.root) == 0, (unsigned)line, "no stray files",
                            __FILE__, "", CU_FALSE);
    snap_free(&before);
    sc_migrate_result_free(&r);
    sc_test_ws_free(&w);
}

static void ref_dry_run_still_refuses(void)
{
    sc_test_ws w = sc_test_ws_new();
    put_split_box(&w, ",'weights':'on-demand'");
    snapshot before = snap(&w);
    sc_migrate_result r = {NULL, 0, NULL, 0};
    sc_error err;
    SC_EXPECT_CODE(sc_migrate_ref(w.scrolls, "demo", 1, &r, &err), SC_E_MIGRATE_REFUSED, &err);
    EXPECT_UNCHANGED(&w, &before);
    snap_free(&before);
    sc_migrate_result_free(&r);
    sc_test_ws_free(&w);
}

static void ref_refused_non_dotted_import(void)
{
    expect_split_refused_at(",'selfTest':{'imports':['my-module']}", __LINE__);
}

static void ref_refused_on_demand_without_assets(void)
{
    expect_split_refused_at(",'weights':'on-demand'", __LINE__);
}

static void ref_refused_dot_segment_path(void)
{
    expect_split_refused_at(",'modelCacheSubdir':'./cache'", __LINE__);
}

static void ref_refused_backslash_path(void)
{
    expect_split_refused_at(",'localFiles':[{'sourcePath':'src\\\\w.bin','relativePath':'w.bin'}]",
                            __LINE__);
}

static void ref_refused_case_only_destinations(void)
{
    expect_split_refused_at(",'assets':[" ASSET("Model.bin") "," ASSET("model.bin") "]",
                            __LINE__);
}

static void ref_refused_whole_scroll_writes_nothing(void)
{
    sc_test_ws w = sc_test_ws_new();
    sc_test_ws_put(&w, "demo/linux-x86_64-cpu/scroll.json",
           V2_WHOLE(",'prunePaths':['a/./b']"));
    char *before = ws_get(&w, "demo/linux-x86_64-cpu/scroll.json");
    sc_migrate_result r = {NULL, 0, NULL, 0};
    sc_error err;
    SC_EXPECT_CODE(sc_migrate_ref(w.scrolls, "demo/linux-x86_64-cpu", 0, &r, &err),
                SC_E_MIGRATE_REFUSED, &err);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "linux-x86_64-cpu"));
    char *after = ws_get(&w, "demo/linux-x86_64-cpu/scroll.json");
    CU_ASSERT_PTR_NOT_NULL(after);
    if (before != NULL && after != NULL)
        CU_ASSERT_STRING_EQUAL(before, after);
    CU_ASSERT_EQUAL(stray_files(w.root), 0);
    free(before);
    free(after);
    sc_migrate_result_free(&r);
    sc_test_ws_free(&w);
}

static void ref_refused_layout_mismatch(void)
{
    /* all of section 5 applies, the layout included */
    sc_test_ws w = sc_test_ws_new();
    sc_test_ws_put(&w, "other/linux-x86_64-cpu/scroll.json", V2_WHOLE(""));
    char *before = ws_get(&w, "other/linux-x86_64-cpu/scroll.json");
    sc_migrate_result r = {NULL, 0, NULL, 0};
    sc_error err;
    SC_EXPECT_CODE(sc_migrate_ref(w.scrolls, "other/linux-x86_64-cpu", 0, &r, &err),
                SC_E_MIGRATE_REFUSED, &err);
    char *after = ws_get(&w, "other/linux-x86_64-cpu/scroll.json");
    if (before != NULL && after != NULL)
        CU_ASSERT_STRING_EQUAL(before, after);
    free(before);
    free(after);
    sc_migrate_result_free(&r);
    sc_test_ws_free(&w);
}

static void ref_v1_refused_unchanged(void)
{
    sc_test_ws w = sc_test_ws_new();
    sc_test_ws_put(&w, "demo/linux-x86_64-cpu/scroll.json",
           "{'schemaVersion':1," BODY ",'target':" TGT_CPU ",'selfTest':{'imports':['json']}}");
    char *before = ws_get(&w, "demo/linux-x86_64-cpu/scroll.json");
    sc_migrate_result r = {NULL, 0, NULL, 0};
    sc_error err;
    SC_EXPECT_CODE(sc_migrate_ref(w.scrolls, "demo/linux-x86_64-cpu", 0, &r, &err),
                SC_E_MIGRATE_REFUSED, &err);
    char *after = ws_get(&w, "demo/linux-x86_64-cpu/scroll.json");
    if (before != NULL && after != NULL)
        CU_ASSERT_STRING_EQUAL(before, after);
    free(before);
    free(after);
    sc_migrate_result_free(&r);
    sc_test_ws_free(&w);
}

static void ref_v3_left_alone(void)
{
    sc_test_ws w = sc_test_ws_new();
    /* compact, non-canonical bytes: a rewrite would show */
    sc_test_ws_put(&w, "demo/linux-x86_64-cpu/scroll.json", V3_WHOLE(""));
    char *before = ws_get(&w, "demo/linux-x86_64-cpu/scroll.json");
    sc_migrate_result r = {NULL, 0, NULL, 0};
    sc_error err;
    SC_EXPECT_CODE(sc_migrate_ref(w.scrolls, "demo/linux-x86_64-cpu", 0, &r, &err), SC_OK, &err);
    CU_ASSERT_EQUAL(r.count, 0);
    char *after = ws_get(&w, "demo/linux-x86_64-cpu/scroll.json");
    if (before != NULL && after != NULL)
        CU_ASSERT_STRING_EQUAL(before, after);
    free(before);
    free(after);
    sc_migrate_result_free(&r);
    sc_test_ws_free(&w);
}

static void ref_written_by_rename(void)
{
    /* a hard link to the old file keeps the old bytes: the file was
       replaced by a rename, not rewritten in place */
    sc_test_ws w = sc_test_ws_new();
    sc_test_ws_put(&w, "demo/linux-x86_64-cpu/scroll.json", V2_WHOLE(""));
    char *file = sc_path_join(w.scrolls, "demo/linux-x86_64-cpu/scroll.json");
    char *link_path = sc_path_join(w.root, "old-link.json");
    CU_ASSERT_EQUAL_FATAL(link(file, link_path), 0);
    char *before = ws_get(&w, "demo/linux-x86_64-cpu/scroll.json");
    struct stat st0, st1;
    CU_ASSERT_EQUAL(stat(file, &st0), 0);
    sc_migrate_result r = {NULL, 0, NULL, 0};
    sc_error err;
    SC_EXPECT_CODE(sc_migrate_ref(w.scrolls, "demo/linux-x86_64-cpu", 0, &r, &err), SC_OK, &err);
    CU_ASSERT_EQUAL(stat(file, &st1), 0);
    CU_ASSERT_NOT_EQUAL(st0.st_ino, st1.st_ino);
    char *old = NULL;
    size_t len = 0;
    CU_ASSERT_EQUAL(sc_file_read(link_path, &old, &len, NULL, &err), SC_OK);
    if (old != NULL && before != NULL)
        CU_ASSERT_STRING_EQUAL(old, before);
    free(old);
    free(before);
    free(file);
    free(link_path);
    sc_migrate_result_free(&r);
    sc_test_ws_free(&w);
}

static void ref_no_temporary_files_left(void)
{
    sc_test_ws w = sc_test_ws_new();
    put_split_box(&w, "");
    sc_migrate_result r = {NULL, 0, NULL, 0};
    sc_error err;
    SC_EXPECT_CODE(sc_migrate_ref(w.scrolls, "demo", 0, &r, &err), SC_OK, &err);
    CU_ASSERT_EQUAL(stray_files(w.root), 0);
    sc_migrate_result_free(&r);
    sc_test_ws_free(&w);
}

static void ref_reference_errors(void)
{
    sc_test_ws w = sc_test_ws_new();
    sc_test_ws_put(&w, "demo/linux-x86_64-cpu/scroll.json", V2_WHOLE(""));
    sc_migrate_result r = {NULL, 0, NULL, 0};
    sc_error err;
    SC_EXPECT_CODE(sc_migrate_ref(w.scrolls, "demo/../x", 0, &r, &err), SC_E_INVALID_REFERENCE,
                &err);
    sc_migrate_result_free(&r);
    SC_EXPECT_CODE(sc_migrate_ref(w.scrolls, "demo/linux-x86_64-cpu/", 0, &r, &err),
                SC_E_INVALID_REFERENCE, &err);
    sc_migrate_result_free(&r);
    SC_EXPECT_CODE(sc_migrate_ref(w.scrolls, "nobox", 0, &r, &err), SC_E_SCROLL_NOT_FOUND, &err);
    sc_migrate_result_free(&r);
    SC_EXPECT_CODE(sc_migrate_ref(w.scrolls, "demo/windows-x86_64-cpu", 0, &r, &err),
                SC_E_SCROLL_NOT_FOUND, &err);
    sc_migrate_result_free(&r);
    sc_test_ws_free(&w);
}

/* ---- licence inventories (schema 2 → 3) ------------------------------------ */

#define INV_SHA "b29324db0edd950b3f793ebd521787ee15e55109ae62d14654e48f181e2134af"
#define INV_PKGS "'packages':[{'name':'bzip2','version':'1.0.8','declaredLicense':'bzip2-1.0.6'," \
    "'source':'conda'}]"
#define INV_V2(tid) "{'schemaVersion':2,'kind':'scrollcase.box.dependency-license-audit'," \
    "'targetId':'" tid "','dependencyLockSha256':'" INV_SHA "'," INV_PKGS "}"
#define INV_V3(tid) "{'schemaVersion':3,'kind':'scrollcase.box.dependency-license-audit'," \
    "'targetId':'" tid "','lockSha256':'" INV_SHA "'," INV_PKGS "}"
#define INV_DECL ",'condaDependencyLicenseAudit':'inv/conda-licenses.json'"

/* Write bytes to <root>/inv/conda-licenses.json. */
static void put_inventory_raw(const sc_test_ws *w, const char *t)
{
    char *dir = sc_path_join(w->root, "inv");
    char *path = dir ? sc_path_join(dir, "conda-licenses.json") : NULL;
    sc_error err;
    CU_ASSERT_FATAL(dir && path);
    mkdir(dir, 0755);
    SC_EXPECT_CODE(sc_file_write_atomic(path, t, strlen(t), 0644, &err), SC_OK, &err);
    free(path);
    free(dir);
}

static void put_inventory(const sc_test_ws *w, const char *text)
{
    char *t = sc_test_dq(text);
    CU_ASSERT_FATAL(t != NULL);
    put_inventory_raw(w, t);
    free(t);
}

static char *get_inventory(const sc_test_ws *w)
{
    char *path = sc_path_join(w->root, "inv/conda-licenses.json");
    char *bytes = NULL;
    size_t len = 0;
    sc_error err;
    if (path == NULL || sc_file_read(path, &bytes, &len, NULL, &err) != SC_OK)
        bytes = NULL;
    free(path);
    return bytes;
}

static void inventory_v2_converted_with_its_scroll(void)
{
    sc_test_ws w = sc_test_ws_new();
    sc_test_ws_put(&w, "demo/linux-x86_64-cpu/scroll.json", V2_WHOLE(INV_DECL));
    put_inventory(&w, INV_V2("linux-x86_64-cpu"));
    sc_migrate_result r = {NULL, 0, NULL, 0};
    sc_error err;
    SC_EXPECT_CODE(sc_migrate_workspace(w.scrolls, w.root, "demo/linux-x86_64-cpu", 0, &r, &err),
                   SC_OK, &err);
    CU_ASSERT_EQUAL(r.count, 1);
    CU_ASSERT_EQUAL_FATAL(r.ninventories, 1);
    CU_ASSERT_STRING_EQUAL(r.inventories[0], "inv/conda-licenses.json");
    char *got = get_inventory(&w), *want = canonical(INV_V3("linux-x86_64-cpu"));
    CU_ASSERT_PTR_NOT_NULL(got);
    if (got && want)
        CU_ASSERT_STRING_EQUAL(got, want); /* renamed in place, nothing else changed */
    free(got);
    free(want);
    sc_migrate_result_free(&r);
    /* a second run has nothing left to do */
    SC_EXPECT_CODE(sc_migrate_workspace(w.scrolls, w.root, "demo/linux-x86_64-cpu", 0, &r, &err),
                   SC_OK, &err);
    CU_ASSERT(r.count == 0 && r.ninventories == 0);
    sc_migrate_result_free(&r);
    sc_test_ws_free(&w);
}

static void inventory_v2_beside_a_v3_scroll_is_converted(void)
{
    sc_test_ws w = sc_test_ws_new();
    sc_test_ws_put(&w, "demo/linux-x86_64-cpu/scroll.json", V3_WHOLE(INV_DECL));
    put_inventory(&w, INV_V2("linux-x86_64-cpu"));
    sc_migrate_result r = {NULL, 0, NULL, 0};
    sc_error err;
    SC_EXPECT_CODE(sc_migrate_workspace(w.scrolls, w.root, "demo", 1, &r, &err), SC_OK, &err);
    CU_ASSERT(r.count == 0 && r.ninventories == 1); /* dry run: listed */
    char *got = get_inventory(&w), *v2 = sc_test_dq(INV_V2("linux-x86_64-cpu"));
    CU_ASSERT(got && v2 && strcmp(got, v2) == 0); /* but not written */
    free(got);
    free(v2);
    sc_migrate_result_free(&r);
    SC_EXPECT_CODE(sc_migrate_workspace(w.scrolls, w.root, "demo", 0, &r, &err), SC_OK, &err);
    CU_ASSERT(r.count == 0 && r.ninventories == 1);
    sc_migrate_result_free(&r);
    sc_test_ws_free(&w);
}

static void inventory_refusal_writes_nothing(void)
{
    static const char *const bad[] = {
        INV_V2("windows-x86_64-cpu"), /* another target's */
        "{'schemaVersion':2,'kind':'scrollcase.box.dependency-license-audit',"
        "'targetId':'linux-x86_64-cpu'," INV_PKGS "}", /* no dependencyLockSha256 */
        "{'schemaVersion':2,'kind':'scrollcase.box.dependency-license-audit',"
        "'targetId':'linux-x86_64-cpu','dependencyLockSha256':'" INV_SHA "','lockSha256':'"
        INV_SHA "'," INV_PKGS "}", /* both names */
        "{'schemaVersion':2,'kind':'scrollcase.box.dependency-license-audit',"
        "'targetId':'linux-x86_64-cpu','dependencyLockSha256':'xyz'," INV_PKGS "}",
        "{'schemaVersion':1}", "[2]", "{"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        sc_test_ws w = sc_test_ws_new();
        sc_test_ws_put(&w, "demo/linux-x86_64-cpu/scroll.json", V2_WHOLE(INV_DECL));
        put_inventory_raw(&w, bad[i]);
        char *scroll_before = ws_get(&w, "demo/linux-x86_64-cpu/scroll.json");
        char *inv_before = get_inventory(&w);
        sc_migrate_result r = {NULL, 0, NULL, 0};
        sc_error err;
        SC_EXPECT_CODE(sc_migrate_workspace(w.scrolls, w.root, "demo/linux-x86_64-cpu", 0, &r,
                                            &err),
                       SC_E_MIGRATE_REFUSED, &err);
        CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "inv/conda-licenses.json"));
        char *scroll_after = ws_get(&w, "demo/linux-x86_64-cpu/scroll.json");
        char *inv_after = get_inventory(&w);
        CU_ASSERT(scroll_before && scroll_after && strcmp(scroll_before, scroll_after) == 0);
        CU_ASSERT(inv_before && inv_after && strcmp(inv_before, inv_after) == 0);
        free(scroll_before);
        free(scroll_after);
        free(inv_before);
        free(inv_after);
        sc_test_ws_free(&w);
    }
}

static void inventory_missing_or_without_root_is_left_alone(void)
{
    sc_test_ws w = sc_test_ws_new();
    sc_test_ws_put(&w, "demo/linux-x86_64-cpu/scroll.json", V2_WHOLE(INV_DECL));
    sc_migrate_result r = {NULL, 0, NULL, 0};
    sc_error err;
    SC_EXPECT_CODE(sc_migrate_workspace(w.scrolls, w.root, "demo", 0, &r, &err), SC_OK, &err);
    CU_ASSERT(r.count == 1 && r.ninventories == 0);
    sc_migrate_result_free(&r);
    sc_test_ws_free(&w);
    w = sc_test_ws_new();
    sc_test_ws_put(&w, "demo/linux-x86_64-cpu/scroll.json", V2_WHOLE(INV_DECL));
    put_inventory(&w, INV_V2("linux-x86_64-cpu"));
    SC_EXPECT_CODE(sc_migrate_ref(w.scrolls, "demo", 0, &r, &err), SC_OK, &err);
    CU_ASSERT(r.count == 1 && r.ninventories == 0);
    char *got = get_inventory(&w), *v2 = sc_test_dq(INV_V2("linux-x86_64-cpu"));
    CU_ASSERT(got && v2 && strcmp(got, v2) == 0);
    free(got);
    free(v2);
    sc_migrate_result_free(&r);
    sc_test_ws_free(&w);
}

/* ---- registration ------------------------------------------------------- */

void register_migrate_tests(void)
{
    CU_pSuite s = CU_add_suite("migrate", NULL, NULL);
    if (s == NULL)
        CU_FAIL_FATAL("CU_add_suite failed");
    SC_ADD_TEST(s, doc_v2_becomes_v3_in_place);
    SC_ADD_TEST(s, doc_schema_id_rewritten);
    SC_ADD_TEST(s, doc_nothing_else_changes);
    SC_ADD_TEST(s, doc_v3_left_alone);
    SC_ADD_TEST(s, doc_v1_refused);
    SC_ADD_TEST(s, doc_other_versions_refused);
    SC_ADD_TEST(s, doc_input_not_modified);
    SC_ADD_TEST(s, ref_whole_scroll_rewritten);
    SC_ADD_TEST(s, ref_split_migrates_base_and_siblings);
    SC_ADD_TEST(s, ref_box_migrates_every_target);
    SC_ADD_TEST(s, ref_box_without_base_migrates_every_target);
    SC_ADD_TEST(s, ref_v3_base_left_alone_v2_target_migrated);
    SC_ADD_TEST(s, ref_dry_run_writes_nothing);
    SC_ADD_TEST(s, ref_dry_run_still_refuses);
    SC_ADD_TEST(s, ref_refused_non_dotted_import);
    SC_ADD_TEST(s, ref_refused_on_demand_without_assets);
    SC_ADD_TEST(s, ref_refused_dot_segment_path);
    SC_ADD_TEST(s, ref_refused_backslash_path);
    SC_ADD_TEST(s, ref_refused_case_only_destinations);
    SC_ADD_TEST(s, ref_refused_whole_scroll_writes_nothing);
    SC_ADD_TEST(s, ref_refused_layout_mismatch);
    SC_ADD_TEST(s, ref_v1_refused_unchanged);
    SC_ADD_TEST(s, ref_v3_left_alone);
    SC_ADD_TEST(s, ref_written_by_rename);
    SC_ADD_TEST(s, ref_no_temporary_files_left);
    SC_ADD_TEST(s, ref_reference_errors);
    SC_ADD_TEST(s, inventory_v2_converted_with_its_scroll);
    SC_ADD_TEST(s, inventory_v2_beside_a_v3_scroll_is_converted);
    SC_ADD_TEST(s, inventory_refusal_writes_nothing);
    SC_ADD_TEST(s, inventory_missing_or_without_root_is_left_alone);
}
