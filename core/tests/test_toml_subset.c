/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_toml_subset.c — docs/format-v3.md 19.2, the TOML subset pixi.toml is
 * read with: what it takes, what it refuses, and where it says it stopped.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "scrollcase/json.h"
#include "scrollcase/toml_subset.h"

void sc_test_register_toml_subset(void);

static sc_json *parse_ok(const char *text)
{
    sc_json *v = NULL;
    sc_error err;
    sc_code c = sc_toml_parse(text, strlen(text), "pixi.toml", &v, &err);
    SC_EXPECT_CODE(c, SC_OK, &err);
    return v;
}

static void refuse(const char *text, int line)
{
    sc_json *v = NULL;
    sc_error err;
    sc_code c = sc_toml_parse(text, strlen(text), "pixi.toml", &v, &err);
    sc_test_expect_code_at(c, SC_E_INVALID_PIXI_TOML, &err, __FILE__, line);
    CU_ASSERT_PTR_NULL(v);
    sc_json_free(v);
}
#define REFUSE(text) refuse((text), __LINE__)

/* The value at a dotted path of plain keys ("a.b.c"). */
static const sc_json *at(const sc_json *v, const char *path)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *k = strtok(buf, "."); k != NULL && v != NULL; k = strtok(NULL, "."))
        v = sc_json_get(v, k);
    return v;
}

static void test_pixi_manifest_reads_as_tables(void)
{
    sc_json *v = parse_ok("# a pixi manifest\n"
                          "[workspace]\n"
                          "name = \"demo-linux-x86_64-cuda12.4\"\n"
                          "channels = [\"conda-forge\"]\n"
                          "platforms = [\"linux-64\"]   # one subdir\n"
                          "\n"
                          "[system-requirements]\n"
                          "cuda = \"12.4\"\n"
                          "\n"
                          "[dependencies]\n"
                          "python = \"3.12.*\"\n"
                          "pytorch = { version = \"2.*\", build = \"cuda*\" }\n"
                          "cuda-version = \"12.4.*\"\n");
    CU_ASSERT_STRING_EQUAL(sc_json_cstr(at(v, "workspace.name")), "demo-linux-x86_64-cuda12.4");
    const sc_json *pl = at(v, "workspace.platforms");
    CU_ASSERT(pl != NULL && pl->type == SC_JSON_ARRAY && pl->length == 1);
    CU_ASSERT_STRING_EQUAL(sc_json_cstr(at(v, "system-requirements.cuda")), "12.4");
    CU_ASSERT_STRING_EQUAL(sc_json_cstr(at(v, "dependencies.pytorch.build")), "cuda*");
    /* tables keep the order their keys first appear in */
    CU_ASSERT_STRING_EQUAL(v->child->key, "workspace");
    CU_ASSERT_STRING_EQUAL(v->last->key, "dependencies");
    sc_json_free(v);
}

static void test_dotted_and_quoted_keys(void)
{
    sc_json *v = parse_ok("[target.linux-64.dependencies]\n"
                          "\"cuda-version\" = '12.4.*'\n"
                          "a.b . c = 1\n"
                          "[feature.\"gpu\".system-requirements]\n"
                          "cuda = \"12\"\n");
    CU_ASSERT_STRING_EQUAL(sc_json_cstr(at(v, "target.linux-64.dependencies.cuda-version")), "12.4.*");
    CU_ASSERT_EQUAL(at(v, "target.linux-64.dependencies.a.b.c")->number, 1);
    CU_ASSERT_STRING_EQUAL(sc_json_cstr(at(v, "feature.gpu.system-requirements.cuda")), "12");
    sc_json_free(v);
}

static void test_strings_basic_escapes_and_literal(void)
{
    sc_json *v = parse_ok("a = \"t\\tq\\\"b\\\\u\\u00e9\\U0001F600\"\nb = 'C:\\path\\no-escape'\n");
    CU_ASSERT_STRING_EQUAL(sc_json_cstr(sc_json_get(v, "a")), "t\tq\"b\\u\xc3\xa9\xf0\x9f\x98\x80");
    CU_ASSERT_STRING_EQUAL(sc_json_cstr(sc_json_get(v, "b")), "C:\\path\\no-escape");
    sc_json_free(v);
}

static void test_integers_booleans_arrays(void)
{
    sc_json *v = parse_ok("n = -1_000\np = +7\nz = 0\nt = true\nf = false\n"
                          "arr = [\n  1, # comment\n  \"x\",\n  [true],\n]\nempty = []\n");
    CU_ASSERT_EQUAL(sc_json_get(v, "n")->number, -1000);
    CU_ASSERT_EQUAL(sc_json_get(v, "p")->number, 7);
    CU_ASSERT_EQUAL(sc_json_get(v, "z")->number, 0);
    CU_ASSERT(sc_json_get(v, "t")->type == SC_JSON_BOOL && sc_json_get(v, "t")->boolean);
    CU_ASSERT(sc_json_get(v, "f")->type == SC_JSON_BOOL && !sc_json_get(v, "f")->boolean);
    CU_ASSERT_EQUAL(sc_json_get(v, "arr")->length, 3);
    CU_ASSERT_EQUAL(sc_json_get(v, "empty")->length, 0);
    sc_json_free(v);
}

static void test_crlf_line_ends(void)
{
    sc_json *v = parse_ok("[workspace]\r\nname = \"x\"\r\n");
    CU_ASSERT_STRING_EQUAL(sc_json_cstr(at(v, "workspace.name")), "x");
    sc_json_free(v);
}

static void test_values_outside_the_subset_are_refused(void)
{
    REFUSE("x = 0.5\n");
    REFUSE("x = 1e3\n");
    REFUSE("x = 1979-05-27\n");
    REFUSE("x = 0x1F\n");
    REFUSE("x = 012\n");
    REFUSE("x = inf\n");
    REFUSE("x = \"\"\"multi\nline\"\"\"\n");
    REFUSE("x = '''multi'''\n");
    REFUSE("[[tool.item]]\nname = \"a\"\n");
    REFUSE("x = 9007199254740992\n");
}

static void test_definitions_twice_are_refused(void)
{
    REFUSE("a = 1\na = 2\n");
    REFUSE("[t]\na = 1\n[t]\nb = 2\n");
    REFUSE("a = 1\n[a]\nb = 2\n");
    REFUSE("t = { a = 1 }\nt.b = 2\n");
    REFUSE("t = { a = 1 }\n[t]\nb = 2\n");
    REFUSE("x = { a = 1, a = 2 }\n");
}

static void test_malformed_text_is_refused(void)
{
    REFUSE("x = \"open\n");
    REFUSE("x = \"bad \\q escape\"\n");
    REFUSE("x = \"\\u0000\"\n");
    REFUSE("x = \"\\uD800\"\n");
    REFUSE("x = 1 y = 2\n");
    REFUSE("x\n");
    REFUSE("= 1\n");
    REFUSE("x = [1 2]\n");
    REFUSE("x = { a = 1,\n b = 2 }\n");
    REFUSE("x = { a = 1, }\n");
    REFUSE("[t\n");
    REFUSE("x = \"a\tb\x01\"\n");
    REFUSE("x = 1 # \x01\n");
}

static void test_encoding_is_checked(void)
{
    REFUSE("\xEF\xBB\xBFx = 1\n");
    REFUSE("x = \"\xC3\x28\"\n");
    sc_json *v = NULL;
    sc_error err;
    const char nul[] = "x = 1\n\0y = 2\n";
    CU_ASSERT_EQUAL(sc_toml_parse(nul, sizeof nul - 1, "pixi.toml", &v, &err), SC_E_INVALID_PIXI_TOML);
    CU_ASSERT_PTR_NULL(v);
}

static void test_nesting_is_bounded(void)
{
    char buf[512];
    size_t n = 0;
    n += (size_t)snprintf(buf, sizeof buf, "x = ");
    for (int i = 0; i < SC_TOML_MAX_DEPTH + 1; i++)
        buf[n++] = '[';
    for (int i = 0; i < SC_TOML_MAX_DEPTH + 1; i++)
        buf[n++] = ']';
    buf[n++] = '\n';
    buf[n] = '\0';
    REFUSE(buf);
    /* headers and dotted keys count towards the same bound */
    char hdr[512];
    n = 0;
    hdr[n++] = '[';
    for (int i = 0; i < SC_TOML_MAX_DEPTH + 1; i++)
        n += (size_t)snprintf(hdr + n, sizeof hdr - n, i ? ".t" : "t");
    n += (size_t)snprintf(hdr + n, sizeof hdr - n, "]\n");
    REFUSE(hdr);
    n = (size_t)snprintf(hdr, sizeof hdr, "[a.b.c.d.e.f.g.h.i.j.k.l.m.n.o.p]\n"
                                          "q.r.s.t.u.v.w.x.y.z.aa.bb.cc.dd.ee.ff = [1]\n");
    REFUSE(hdr);
    sc_json *v = parse_ok("[a.b.c.d.e.f.g.h.i.j.k.l.m.n.o.p]\n"
                          "q.r.s.t.u.v.w.x.y.z.aa.bb.cc.dd.ee.ff = 1\n");
    sc_json_free(v);
}

static void test_errors_name_line_and_column(void)
{
    sc_json *v = NULL;
    sc_error err;
    const char *text = "[workspace]\nname = \"x\"\nratio = 0.5\n";
    CU_ASSERT_EQUAL(sc_toml_parse(text, strlen(text), "scrolls/b/t/pixi.toml", &v, &err),
                    SC_E_INVALID_PIXI_TOML);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "scrolls/b/t/pixi.toml:3:"));
    CU_ASSERT_STRING_EQUAL(err.path, "scrolls/b/t/pixi.toml");
}

void sc_test_register_toml_subset(void)
{
    CU_pSuite s = CU_add_suite("toml-subset", NULL, NULL);
    if (s == NULL)
        CU_FAIL_FATAL("CU_add_suite failed");
    SC_ADD_TEST(s, test_pixi_manifest_reads_as_tables);
    SC_ADD_TEST(s, test_dotted_and_quoted_keys);
    SC_ADD_TEST(s, test_strings_basic_escapes_and_literal);
    SC_ADD_TEST(s, test_integers_booleans_arrays);
    SC_ADD_TEST(s, test_crlf_line_ends);
    SC_ADD_TEST(s, test_values_outside_the_subset_are_refused);
    SC_ADD_TEST(s, test_definitions_twice_are_refused);
    SC_ADD_TEST(s, test_malformed_text_is_refused);
    SC_ADD_TEST(s, test_encoding_is_checked);
    SC_ADD_TEST(s, test_nesting_is_bounded);
    SC_ADD_TEST(s, test_errors_name_line_and_column);
}
