/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_address.c — docs/format-v3.md sections 11 (names and addresses),
 * 10.5 (the builder's cohortSalt), 12 (cohorts) and 13 (revocation),
 * black-box through address.h and cohort.h.
 *
 * Every expected digest-derived value here (salts, buckets) was computed
 * independently with Python's hashlib:
 *   salt   = hashlib.sha256(f"{boxId}:{version}".encode()).hexdigest()[:32]
 *   bucket = int.from_bytes(hashlib.sha256(salt.encode() + b"\0" +
 *                                          id.encode()).digest()[:4], "big") % 10000
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "scrollcase/address.h"
#include "scrollcase/cohort.h"
#include "scrollcase/error.h"
#include "scrollcase/json.h"
#include "scrollcase/manifest.h"

#define A16 "aaaaaaaaaaaaaaaa"
#define B16 "bbbbbbbbbbbbbbbb"
#define SHA_A A16 A16 A16 A16
#define SHA_B B16 B16 B16 B16

/* Parse single-quoted JSON and check it as a manifest of the given type. */
static sc_json *checked(const char *text, sc_doc_type type)
{
    char *t = sc_test_dq(text);
    sc_json *v = NULL;
    sc_error err;
    CU_ASSERT_EQUAL_FATAL(sc_json_parse(t, strlen(t), &v, &err), SC_OK);
    free(t);
    if (sc_manifest_check(v, type, NULL, &err) != SC_OK) {
        fprintf(stderr, "\n  fixture does not check: %s\n", err.message);
        CU_FAIL("fixture does not pass sc_manifest_check");
    }
    return v;
}

/* ---- names (11) --------------------------------------------------------- */

static const sc_address_input FULL = {
    "demo", "1.0.0", "linux-x86_64-cuda12.4", "stable", SHA_A, SHA_B,
    "https://cdn.example.com/boxes/"};

static void names_of_section_11(void)
{
    sc_address a;
    sc_error err;
    CU_ASSERT_EQUAL_FATAL(sc_address_make(&FULL, &a, &err), SC_OK);
    CU_ASSERT_STRING_EQUAL(a.stem, "demo-1.0.0-linux-x86_64-cuda12.4");
    CU_ASSERT_STRING_EQUAL(a.prefix, "boxes/demo/1.0.0/linux-x86_64-cuda12.4");
    CU_ASSERT_STRING_EQUAL(a.archive_object,
                           "boxes/demo/1.0.0/linux-x86_64-cuda12.4/" SHA_A ".zip");
    CU_ASSERT_STRING_EQUAL(a.release_object,
                           "boxes/demo/1.0.0/linux-x86_64-cuda12.4/" SHA_B ".release.json");
    CU_ASSERT_STRING_EQUAL(a.archive_url, "https://cdn.example.com/boxes/boxes/demo/1.0.0/"
                                          "linux-x86_64-cuda12.4/" SHA_A ".zip");
    CU_ASSERT_STRING_EQUAL(a.release_manifest_url,
                           "https://cdn.example.com/boxes/boxes/demo/1.0.0/"
                           "linux-x86_64-cuda12.4/" SHA_B ".release.json");
    CU_ASSERT_STRING_EQUAL(a.channel_file, "channels/demo/stable/linux-x86_64-cuda12.4.json");
    CU_ASSERT_STRING_EQUAL(a.cohort_salt, "3ac30634975c0041986ee662aa7ca4a6");
    sc_address_free(&a);
    sc_address_free(&a); /* safe twice */
}

static void base_url_loses_exactly_one_trailing_slash(void)
{
    static const struct {
        const char *base, *url;
    } cases[] = {
        {"https://x.example", "https://x.example/boxes/b/1/linux-x86_64-cpu/" SHA_A ".zip"},
        {"https://x.example/", "https://x.example/boxes/b/1/linux-x86_64-cpu/" SHA_A ".zip"},
        {"https://x.example//", "https://x.example//boxes/b/1/linux-x86_64-cpu/" SHA_A ".zip"},
        {"/", "/boxes/b/1/linux-x86_64-cpu/" SHA_A ".zip"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sc_address_input in = {"b", "1", "linux-x86_64-cpu", NULL, SHA_A, NULL, cases[i].base};
        sc_address a;
        sc_error err;
        CU_ASSERT_EQUAL_FATAL(sc_address_make(&in, &a, &err), SC_OK);
        CU_ASSERT_STRING_EQUAL(a.archive_url, cases[i].url);
        CU_ASSERT_PTR_NULL(a.release_manifest_url);
        CU_ASSERT_PTR_NULL(a.release_object);
        CU_ASSERT_PTR_NULL(a.channel_file);
        sc_address_free(&a);
    }
}

static void names_without_optional_inputs(void)
{
    sc_address_input in = {"demo", "2", "macos-aarch64-metal", NULL, NULL, NULL, NULL};
    sc_address a;
    sc_error err;
    CU_ASSERT_EQUAL_FATAL(sc_address_make(&in, &a, &err), SC_OK);
    CU_ASSERT_STRING_EQUAL(a.stem, "demo-2-macos-aarch64-metal");
    CU_ASSERT_PTR_NULL(a.archive_object);
    CU_ASSERT_PTR_NULL(a.archive_url);
    CU_ASSERT_PTR_NOT_NULL(a.cohort_salt);
    sc_json *j = sc_address_to_json(&a);
    char *text = NULL;
    size_t len = 0;
    CU_ASSERT_EQUAL(sc_json_write_compact(j, &text, &len, &err), SC_OK);
    CU_ASSERT_STRING_EQUAL(text,
                           "{\"stem\":\"demo-2-macos-aarch64-metal\","
                           "\"prefix\":\"boxes/demo/2/macos-aarch64-metal\","
                           "\"archiveObject\":null,\"releaseObject\":null,"
                           "\"archiveUrl\":null,\"releaseManifestUrl\":null,"
                           "\"channelFile\":null,"
                           "\"cohortSalt\":\"ad2e09ba8cdab6ef0bc88942733ffe27\"}");
    free(text);
    sc_json_free(j);
    sc_address_free(&a);
}

static void names_as_json_in_order(void)
{
    sc_address a;
    sc_error err;
    CU_ASSERT_EQUAL_FATAL(sc_address_make(&FULL, &a, &err), SC_OK);
    sc_json *j = sc_address_to_json(&a);
    CU_ASSERT_PTR_NOT_NULL_FATAL(j);
    static const char *const keys[] = {"stem", "prefix", "archiveObject", "releaseObject",
                                       "archiveUrl", "releaseManifestUrl", "channelFile",
                                       "cohortSalt"};
    size_t i = 0;
    for (const sc_json *m = j->child; m; m = m->next, i++) {
        CU_ASSERT_FATAL(i < 8);
        CU_ASSERT_STRING_EQUAL(m->key, keys[i]);
        CU_ASSERT_EQUAL(m->type, SC_JSON_STRING);
    }
    CU_ASSERT_EQUAL(i, 8);
    CU_ASSERT_STRING_EQUAL(sc_json_get(j, "channelFile")->string,
                           "channels/demo/stable/linux-x86_64-cuda12.4.json");
    sc_json_free(j);
    sc_address_free(&a);
}

static void names_refuse_bad_inputs(void)
{
    static const struct {
        sc_address_input in;
        sc_code code;
    } cases[] = {
        {{"Demo", "1", "linux-x86_64-cpu", NULL, NULL, NULL, NULL}, SC_E_INVALID_MANIFEST},
        {{NULL, "1", "linux-x86_64-cpu", NULL, NULL, NULL, NULL}, SC_E_INVALID_MANIFEST},
        {{"demo", "", "linux-x86_64-cpu", NULL, NULL, NULL, NULL}, SC_E_INVALID_MANIFEST},
        {{"demo", NULL, "linux-x86_64-cpu", NULL, NULL, NULL, NULL}, SC_E_INVALID_MANIFEST},
        {{"demo", "1", "linux-aarch64-cpu", NULL, NULL, NULL, NULL}, SC_E_UNSUPPORTED_TARGET},
        {{"demo", "1", "linux-x86_64-cuda1.2.3", NULL, NULL, NULL, NULL}, SC_E_INVALID_TARGET},
        {{"demo", "1", NULL, NULL, NULL, NULL, NULL}, SC_E_INVALID_TARGET},
        {{"demo", "1", "linux-x86_64-cpu", "canary", NULL, NULL, NULL}, SC_E_INVALID_MANIFEST},
        {{"demo", "1", "linux-x86_64-cpu", NULL, "abc", NULL, NULL}, SC_E_INVALID_MANIFEST},
        {{"demo", "1", "linux-x86_64-cpu", NULL, NULL, SHA_A "0", NULL}, SC_E_INVALID_MANIFEST},
        {{"demo", "1", "linux-x86_64-cpu", NULL, NULL, NULL, ""}, SC_E_INVALID_MANIFEST},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sc_address a;
        sc_error err;
        sc_code c = sc_address_make(&cases[i].in, &a, &err);
        if (c != cases[i].code)
            fprintf(stderr, "\n  case %zu: got %s\n", i, sc_code_name(c));
        CU_ASSERT_EQUAL(c, cases[i].code);
        CU_ASSERT_PTR_NULL(a.stem);
        CU_ASSERT_PTR_NULL(a.cohort_salt);
    }
}

static void cohort_salt_is_first_32_hex_of_sha256(void)
{
    static const struct {
        const char *box, *version, *salt;
    } cases[] = {
        {"demo", "1.0.0", "3ac30634975c0041986ee662aa7ca4a6"},
        {"example-model", "2.3.1", "a55fafcc50d9c88bda0dfb81239a93cb"},
        {"a.b-c", "1", "5d9936454d1772ae1926a334ed3768b8"},
        {"box", "\xe7\x89\x88\xe6\x9c\xac", "87bd2fb826248ab572482a9f6c297057"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char salt[SC_COHORT_SALT_LEN + 1];
        sc_error err;
        CU_ASSERT_EQUAL(sc_cohort_salt(cases[i].box, cases[i].version, salt, &err), SC_OK);
        CU_ASSERT_STRING_EQUAL(salt, cases[i].salt);
    }
}

static void default_archive_beside_release(void)
{
    char *p = sc_address_default_archive("dist/rel/x.release.json", SHA_A);
    CU_ASSERT_STRING_EQUAL(p, "dist/rel/" SHA_A ".zip");
    free(p);
    p = sc_address_default_archive("x.release.json", SHA_A);
    CU_ASSERT_STRING_EQUAL(p, SHA_A ".zip");
    free(p);
    p = sc_address_default_archive("/x.release.json", SHA_A);
    CU_ASSERT_STRING_EQUAL(p, "/" SHA_A ".zip");
    free(p);
}

/* ---- cohorts (12) ------------------------------------------------------ */

#define SALT_DEMO "3ac30634975c0041986ee662aa7ca4a6"
#define SALT_EX "a55fafcc50d9c88bda0dfb81239a93cb"
#define SALT_SEQ "0123456789abcdef0123456789abcdef"
#define SALT_F "ffffffffffffffffffffffffffffffff"
#define ID_UUID "00000000-0000-4000-8000-000000000000"
#define ID_E "\xc3\xa9"
#define ID_JA "\xe6\x97\xa5\xe6\x9c\xac\xe8\xaa\x9e\xe3\x81\xae" "ID"

static void cohort_bucket_vectors(void)
{
    static const struct {
        const char *salt, *id;
        uint32_t bucket;
    } v[] = {
        {SALT_DEMO, "a", 8842},
        {SALT_DEMO, "install-0001", 9944},
        {SALT_DEMO, "install-0002", 7484},
        {SALT_DEMO, ID_UUID, 4829},
        {SALT_DEMO, ID_E, 7984},
        {SALT_DEMO, ID_JA, 7707},
        {SALT_DEMO, "A", 7274},
        {SALT_DEMO, "a b", 4504},
        {SALT_DEMO, "tab\tid", 181},
        {SALT_DEMO, "id-80", 3900},
        {SALT_DEMO, "id-2662", 0},
        {SALT_DEMO, "id-11322", 9999},
        {SALT_EX, "a", 4056},
        {SALT_EX, "install-0001", 2169},
        {SALT_EX, "install-0002", 9737},
        {SALT_EX, ID_UUID, 7066},
        {SALT_EX, ID_E, 7354},
        {SALT_EX, ID_JA, 507},
        {SALT_SEQ, "a", 3166},
        {SALT_SEQ, "install-0001", 6195},
        {SALT_SEQ, "install-0002", 7693},
        {SALT_SEQ, ID_UUID, 8861},
        {SALT_SEQ, ID_E, 6636},
        {SALT_SEQ, ID_JA, 2730},
        {SALT_F, "a", 6330},
        {SALT_F, "install-0001", 2048},
        {SALT_F, "install-0002", 7787},
        {SALT_F, ID_UUID, 8345},
        {SALT_F, ID_E, 5995},
        {SALT_F, ID_JA, 7652},
    };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        uint32_t b = 12345;
        sc_error err;
        CU_ASSERT_EQUAL(sc_cohort_bucket(v[i].salt, v[i].id, &b, &err), SC_OK);
        if (b != v[i].bucket)
            fprintf(stderr, "\n  vector %zu: bucket %u, want %u\n", i, (unsigned)b,
                    (unsigned)v[i].bucket);
        CU_ASSERT_EQUAL(b, v[i].bucket);
    }
    /* the longest id allowed: 256 bytes of 'x' */
    char id[SC_INSTALL_ID_MAX + 1];
    memset(id, 'x', SC_INSTALL_ID_MAX);
    id[SC_INSTALL_ID_MAX] = '\0';
    uint32_t b = 0;
    sc_error err;
    CU_ASSERT_EQUAL(sc_cohort_bucket(SALT_DEMO, id, &b, &err), SC_OK);
    CU_ASSERT_EQUAL(b, 2508);
}

static void install_id_rules(void)
{
    sc_error err;
    uint32_t b;
    char id[SC_INSTALL_ID_MAX + 2];
    memset(id, 'x', sizeof id - 1);
    id[sizeof id - 1] = '\0'; /* 257 bytes */
    CU_ASSERT_EQUAL(sc_cohort_bucket(SALT_DEMO, id, &b, &err), SC_E_INVALID_INSTALL_ID);
    CU_ASSERT_EQUAL(sc_cohort_bucket(SALT_DEMO, "", &b, &err), SC_E_INVALID_INSTALL_ID);
    CU_ASSERT_EQUAL(sc_cohort_bucket(SALT_DEMO, NULL, &b, &err), SC_E_INVALID_INSTALL_ID);
    CU_ASSERT_EQUAL(sc_cohort_bucket_n(SALT_DEMO, 32, "a\0b", 3, &b, &err),
                    SC_E_INVALID_INSTALL_ID);
    CU_ASSERT_EQUAL(sc_cohort_bucket(SALT_DEMO, "\xff", &b, &err), SC_E_INVALID_INSTALL_ID);
    CU_ASSERT_EQUAL(sc_cohort_bucket(SALT_DEMO, "\xc0\xaf", &b, &err), SC_E_INVALID_INSTALL_ID);
    CU_ASSERT_EQUAL(sc_cohort_bucket(SALT_DEMO, "\xed\xa0\x80", &b, &err),
                    SC_E_INVALID_INSTALL_ID);
    CU_ASSERT_EQUAL(sc_install_id_check("ok", 2, &err), SC_OK);
    /* 256 bytes made of multi-byte characters are still 256 bytes */
    char wide[SC_INSTALL_ID_MAX + 1];
    for (size_t i = 0; i < SC_INSTALL_ID_MAX; i += 2) {
        wide[i] = '\xc3';
        wide[i + 1] = '\xa9';
    }
    CU_ASSERT_EQUAL(sc_install_id_check(wide, SC_INSTALL_ID_MAX, &err), SC_OK);
    wide[0] = 'x';
    CU_ASSERT_EQUAL(sc_install_id_check(wide, SC_INSTALL_ID_MAX, &err),
                    SC_E_INVALID_INSTALL_ID);
}

#define CHANNEL(releases)                                                       \
    "{'schemaVersion':3,'kind':'scrollcase.box.channel','channel':'beta',"     \
    "'boxId':'demo','target':{'platform':'linux','arch':'x86_64','accelerator':'cpu'}," \
    "'updatedAt':'2026-01-01T00:00:00Z','cohortSalt':'" SALT_DEMO "',"          \
    "'releases':[" releases "]}"
#define REL_AT(v, pct) "{'version':'" v "','releaseManifestUrl':'https://x/" v "','rolloutPercentage':" #pct "}"

static void cohort_select_walks_releases_in_order(void)
{
    static const struct {
        const char *channel, *id;
        sc_code code;
        size_t index;
        uint32_t bucket;
    } cases[] = {
        /* bucket 181: 1% covers 0..99, 2% covers 0..199 */
        {CHANNEL(REL_AT("a", 1) "," REL_AT("b", 2)), "tab\tid", SC_OK, 1, 181},
        /* bucket 3900: 39% is 3900 > 3900, false; 40% serves */
        {CHANNEL(REL_AT("a", 39) "," REL_AT("b", 40)), "id-80", SC_OK, 1, 3900},
        {CHANNEL(REL_AT("a", 39)), "id-80", SC_E_NO_RELEASE_FOR_COHORT, 0, 3900},
        /* bucket 0: the smallest rollout serves it */
        {CHANNEL(REL_AT("a", 1) "," REL_AT("b", 100)), "id-2662", SC_OK, 0, 0},
        /* bucket 9999: only 100% serves it */
        {CHANNEL(REL_AT("a", 99)), "id-11322", SC_E_NO_RELEASE_FOR_COHORT, 0, 9999},
        {CHANNEL(REL_AT("a", 99) "," REL_AT("b", 100)), "id-11322", SC_OK, 1, 9999},
        /* declared order, not the largest rollout: the first match wins */
        {CHANNEL(REL_AT("a", 100) "," REL_AT("b", 50)), "a b", SC_OK, 0, 4504},
        {CHANNEL(REL_AT("a", 45) "," REL_AT("b", 46) "," REL_AT("c", 100)), "a b", SC_OK, 1, 4504},
        {CHANNEL(REL_AT("a", 10) "," REL_AT("b", 20)), "install-0001", SC_E_NO_RELEASE_FOR_COHORT,
         0, 9944},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sc_json *ch = checked(cases[i].channel, SC_DOC_CHANNEL);
        size_t index = 77;
        uint32_t bucket = 77;
        sc_error err;
        sc_code c = sc_cohort_select(ch, cases[i].id, &index, &bucket, &err);
        if (c != cases[i].code)
            fprintf(stderr, "\n  case %zu: got %s\n", i, sc_code_name(c));
        CU_ASSERT_EQUAL(c, cases[i].code);
        CU_ASSERT_EQUAL(err.code, c);
        CU_ASSERT_EQUAL(bucket, cases[i].bucket);
        if (c == SC_OK)
            CU_ASSERT_EQUAL(index, cases[i].index);
        sc_json_free(ch);
    }
}

static void cohort_select_checks_install_id_first(void)
{
    sc_json *ch = checked(CHANNEL(REL_AT("a", 100)), SC_DOC_CHANNEL);
    sc_error err;
    size_t index;
    uint32_t bucket;
    CU_ASSERT_EQUAL(sc_cohort_select(ch, "", &index, &bucket, &err), SC_E_INVALID_INSTALL_ID);
    CU_ASSERT_EQUAL(sc_cohort_select_n(ch, "a\0", 2, &index, &bucket, &err),
                    SC_E_INVALID_INSTALL_ID);
    CU_ASSERT_EQUAL(sc_cohort_select(ch, "a", NULL, NULL, &err), SC_OK);
    sc_json_free(ch);
}

/* ---- revocation (13) --------------------------------------------------- */

#define T_CPU "{'platform':'linux','arch':'x86_64','accelerator':'cpu'}"
#define T_CUDA "{'platform':'linux','arch':'x86_64','accelerator':'cuda','cudaVersion':'12.4'}"
#define BOXJ(box, ver, target)                                                  \
    "{'schemaVersion':3,'boxId':'" box "','modelId':'m','runtimeId':'r','version':'" ver "'," \
    "'target':" target ",'pythonEntryPoint':'venv/bin/python','modelCacheSubdir':'c',"  \
    "'selfTest':{'pythonImports':['json'],'timeoutSeconds':180},"                \
    "'provenance':{'scrollId':'s','scrollVersion':'1','builderRevision':"      \
    "'0123456789abcdef0123456789abcdef01234567','sourceTreeDirty':false,"       \
    "'sourceRevision':'r','pythonVersion':'3.11','environment':{'source':'prefix',"  \
    "'prefixDigest':'" SHA_A "'},'builder':{'name':'b','version':'1'},"          \
    "'builtAt':'2026-01-01T00:00:00Z'}}"
#define ENTRY(box, ver, extra) \
    "{'boxId':'" box "','version':'" ver "'" extra ",'reason':'reason " box " " ver "','revokedAt':'2026-01-02T00:00:00Z'}"
#define REVOCATIONS(entries)                                                    \
    "{'schemaVersion':3,'kind':'any.ns.revocations','updatedAt':'2026-01-03T00:00:00Z'," \
    "'revocations':[" entries "]}"

static void revocation_matches(void)
{
    static const struct {
        const char *release, *revocations;
        sc_code code;
        const char *reason;
    } cases[] = {
        /* an entry without target revokes every target */
        {BOXJ("demo", "1.0.0", T_CPU), REVOCATIONS(ENTRY("demo", "1.0.0", "")),
         SC_E_REVOKED_RELEASE, "reason demo 1.0.0"},
        {BOXJ("demo", "1.0.0", T_CUDA), REVOCATIONS(ENTRY("demo", "1.0.0", "")),
         SC_E_REVOKED_RELEASE, "reason demo 1.0.0"},
        /* with a target: only that target */
        {BOXJ("demo", "1.0.0", T_CUDA), REVOCATIONS(ENTRY("demo", "1.0.0", ",'target':" T_CUDA)),
         SC_E_REVOKED_RELEASE, "reason demo 1.0.0"},
        {BOXJ("demo", "1.0.0", T_CPU), REVOCATIONS(ENTRY("demo", "1.0.0", ",'target':" T_CUDA)),
         SC_OK, NULL},
        /* target equality ignores member order */
        {BOXJ("demo", "1.0.0", T_CPU),
         REVOCATIONS(ENTRY("demo", "1.0.0",
                           ",'target':{'accelerator':'cpu','platform':'linux','arch':'x86_64'}")),
         SC_E_REVOKED_RELEASE, "reason demo 1.0.0"},
        /* another CUDA version is another target */
        {BOXJ("demo", "1.0.0", T_CUDA),
         REVOCATIONS(ENTRY("demo", "1.0.0",
                           ",'target':{'platform':'linux','arch':'x86_64','accelerator':'cuda','cudaVersion':'12.40'}")),
         SC_OK, NULL},
        /* exact strings: no version normalisation, no prefix match */
        {BOXJ("demo", "1.0.0", T_CPU), REVOCATIONS(ENTRY("demo", "1.0", "")), SC_OK, NULL},
        {BOXJ("demo", "1.0.0", T_CPU), REVOCATIONS(ENTRY("demo", "v1.0.0", "")), SC_OK, NULL},
        {BOXJ("demo", "1.0.0", T_CPU), REVOCATIONS(ENTRY("demo", "1.0.0 ", "")), SC_OK, NULL},
        {BOXJ("demo", "1.0.0", T_CPU), REVOCATIONS(ENTRY("demo2", "1.0.0", "")), SC_OK, NULL},
        {BOXJ("demo", "1.0.0-RC1", T_CPU), REVOCATIONS(ENTRY("demo", "1.0.0-rc1", "")), SC_OK, NULL},
        /* an empty list revokes nothing */
        {BOXJ("demo", "1.0.0", T_CPU), REVOCATIONS(""), SC_OK, NULL},
        /* the first matching entry is the one reported */
        {BOXJ("demo", "1.0.0", T_CPU),
         REVOCATIONS(ENTRY("demo", "0.9", "") "," ENTRY("demo", "1.0.0", "") ","
                     "{'boxId':'demo','version':'1.0.0','reason':'second','revokedAt':'2026-01-02T00:00:00Z'}"),
         SC_E_REVOKED_RELEASE, "reason demo 1.0.0"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sc_json *rel = checked(cases[i].release, SC_DOC_BOX);
        sc_json *revs = checked(cases[i].revocations, SC_DOC_REVOCATIONS);
        sc_error err;
        sc_code c = sc_revocation_check(rel, revs, &err);
        if (c != cases[i].code)
            fprintf(stderr, "\n  case %zu: got %s\n", i, sc_code_name(c));
        CU_ASSERT_EQUAL(c, cases[i].code);
        CU_ASSERT_EQUAL(err.code, c);
        if (cases[i].reason != NULL)
            CU_ASSERT_PTR_NOT_NULL(strstr(err.message, cases[i].reason));
        sc_json_free(rel);
        sc_json_free(revs);
    }
}

/* ---- registration ---------------------------------------------------- */

void register_address_tests(void)
{
    CU_pSuite s = CU_add_suite("address", NULL, NULL);
    if (s == NULL)
        CU_FAIL_FATAL("CU_add_suite failed");
    SC_ADD_TEST(s, names_of_section_11);
    SC_ADD_TEST(s, base_url_loses_exactly_one_trailing_slash);
    SC_ADD_TEST(s, names_without_optional_inputs);
    SC_ADD_TEST(s, names_as_json_in_order);
    SC_ADD_TEST(s, names_refuse_bad_inputs);
    SC_ADD_TEST(s, cohort_salt_is_first_32_hex_of_sha256);
    SC_ADD_TEST(s, default_archive_beside_release);
    SC_ADD_TEST(s, cohort_bucket_vectors);
    SC_ADD_TEST(s, install_id_rules);
    SC_ADD_TEST(s, cohort_select_walks_releases_in_order);
    SC_ADD_TEST(s, cohort_select_checks_install_id_first);
    SC_ADD_TEST(s, revocation_matches);
}
