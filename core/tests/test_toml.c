/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_toml.c — docs/format-v3.md 19.2, the TOML 1.0 reader pixi.toml is
 * read with: what it takes, what it refuses, where it says it stopped, and
 * the byte offsets it keeps for in-place edits.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "scrollcase/json.h"
#include "scrollcase/toml.h"

void sc_test_register_toml(void);

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

/* Read with sc_toml_read; the tree or NULL. */
static sc_toml *read_ok(const char *text)
{
    sc_toml *v = NULL;
    sc_error err;
    sc_code c = sc_toml_read(text, strlen(text), "pixi.toml", &v, &err);
    SC_EXPECT_CODE(c, SC_OK, &err);
    return v;
}

static const sc_toml *tat(const sc_toml *v, const char *path)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *k = strtok(buf, "."); k != NULL && v != NULL; k = strtok(NULL, "."))
        v = sc_toml_get(v, k);
    return v;
}

static void test_multiline_strings_trim_and_continue(void)
{
    sc_toml *v = read_ok("a = \"\"\"\nline one\nline \\\n    two\\tend\"\"\"\n"
                         "b = '''\nC:\\raw\\\n'''\n"
                         "c = \"\"\"quotes \"\" inside\"\"\"\"\"\n"
                         "d = '''x''''\n"
                         "e = \"\"\"crlf\r\nline\"\"\"\n");
    CU_ASSERT_STRING_EQUAL(tat(v, "a")->string, "line one\nline two\tend");
    CU_ASSERT_STRING_EQUAL(tat(v, "b")->string, "C:\\raw\\\n");
    CU_ASSERT_STRING_EQUAL(tat(v, "c")->string, "quotes \"\" inside\"\"");
    CU_ASSERT_STRING_EQUAL(tat(v, "d")->string, "x'");
    CU_ASSERT_STRING_EQUAL(tat(v, "e")->string, "crlf\nline");
    sc_toml_free(v);
    REFUSE("x = \"\"\"six\"\"\"\"\"\"\n");
    REFUSE("x = \"\"\"open\n");
    REFUSE("x = '''a\x01'''\n");
    REFUSE("x = \"\"\"a \\ b\"\"\"\n");
}

static void test_unicode_escapes_name_scalar_values(void)
{
    sc_toml *v = read_ok("a = \"\\u00e9\\U0001F600\\u0000\"\n");
    CU_ASSERT_EQUAL(tat(v, "a")->length, 7);
    CU_ASSERT(memcmp(tat(v, "a")->string, "\xc3\xa9\xf0\x9f\x98\x80\0", 7) == 0);
    sc_toml_free(v);
    REFUSE("x = \"\\uD800\"\n");
    REFUSE("x = \"\\uDFFF\"\n");
    REFUSE("x = \"\\U00110000\"\n");
    REFUSE("x = \"\\u12\"\n");
    REFUSE("x = \"\\e\"\n");
    REFUSE("x = \"\\x41\"\n");
}

static void test_integers_in_every_base_within_int64(void)
{
    sc_toml *v = read_ok("h = 0xDEAD_beef\no = 0o755\nb = 0b1101\nmax = 9223372036854775807\n"
                         "min = -9223372036854775808\nz = -0\nu = 1_000_000\n");
    CU_ASSERT_EQUAL(tat(v, "h")->integer, 0xDEADBEEF);
    CU_ASSERT_EQUAL(tat(v, "o")->integer, 0755);
    CU_ASSERT_EQUAL(tat(v, "b")->integer, 13);
    CU_ASSERT(tat(v, "max")->integer == INT64_MAX);
    CU_ASSERT(tat(v, "min")->integer == INT64_MIN);
    CU_ASSERT_EQUAL(tat(v, "u")->integer, 1000000);
    CU_ASSERT_EQUAL(tat(v, "u")->type, SC_TOML_INTEGER);
    sc_toml_free(v);
    REFUSE("x = 9223372036854775808\n");
    REFUSE("x = -9223372036854775809\n");
    REFUSE("x = 0x8000000000000000\n");
    REFUSE("x = -0x1\n");
    REFUSE("x = 012\n");
    REFUSE("x = 1__0\n");
    REFUSE("x = _1\n");
    REFUSE("x = 1_\n");
    REFUSE("x = 0X1F\n");
    REFUSE("x = 0b102\n");
}

static void test_floats_with_exponents_inf_and_nan(void)
{
    sc_toml *v = read_ok("a = 0.5\nb = -1e-3\nc = 6.626e-34\nd = 1E06\ne = inf\nf = -inf\n"
                         "g = nan\nh = 1_000.000_1\ni = -0.0\n");
    CU_ASSERT_EQUAL(tat(v, "a")->type, SC_TOML_FLOAT);
    CU_ASSERT_DOUBLE_EQUAL(tat(v, "a")->real, 0.5, 0);
    CU_ASSERT_DOUBLE_EQUAL(tat(v, "b")->real, -0.001, 1e-18);
    CU_ASSERT_DOUBLE_EQUAL(tat(v, "d")->real, 1e6, 0);
    CU_ASSERT(isinf(tat(v, "e")->real) && tat(v, "e")->real > 0);
    CU_ASSERT(isinf(tat(v, "f")->real) && tat(v, "f")->real < 0);
    CU_ASSERT(isnan(tat(v, "g")->real));
    CU_ASSERT_DOUBLE_EQUAL(tat(v, "h")->real, 1000.0001, 1e-12);
    sc_toml_free(v);
    REFUSE("x = .5\n");
    REFUSE("x = 5.\n");
    REFUSE("x = 1e\n");
    REFUSE("x = 01.5\n");
    REFUSE("x = 1.5_\n");
    REFUSE("x = infinity\n");
    REFUSE("x = 1e400\n");
}

static void test_dates_and_times_of_four_kinds(void)
{
    sc_toml *v = read_ok("odt = 1979-05-27T07:32:00.999999Z\nsp = 1979-05-27 07:32:00-07:00\n"
                         "ldt = 1979-05-27t07:32:00\nld = 2024-02-29\nlt = 23:59:60.5\n");
    CU_ASSERT_EQUAL(tat(v, "odt")->type, SC_TOML_DATETIME);
    CU_ASSERT_STRING_EQUAL(tat(v, "odt")->string, "1979-05-27T07:32:00.999999Z");
    CU_ASSERT_EQUAL(tat(v, "odt")->nanosecond, 999999000);
    CU_ASSERT_EQUAL(tat(v, "sp")->type, SC_TOML_DATETIME);
    CU_ASSERT_STRING_EQUAL(tat(v, "sp")->string, "1979-05-27T07:32:00-07:00");
    CU_ASSERT_EQUAL(tat(v, "sp")->offset_minutes, -420);
    CU_ASSERT_EQUAL(tat(v, "ldt")->type, SC_TOML_LOCAL_DATETIME);
    CU_ASSERT_STRING_EQUAL(tat(v, "ldt")->string, "1979-05-27T07:32:00");
    CU_ASSERT_EQUAL(tat(v, "ld")->type, SC_TOML_LOCAL_DATE);
    CU_ASSERT_EQUAL(tat(v, "lt")->type, SC_TOML_LOCAL_TIME);
    CU_ASSERT_EQUAL(tat(v, "lt")->second, 60);
    sc_toml_free(v);
    REFUSE("x = 2023-02-29\n");
    REFUSE("x = 1979-13-01\n");
    REFUSE("x = 1979-05-27T24:00:00\n");
    REFUSE("x = 1979-05-27T07:32\n");
    REFUSE("x = 1979-05-27T\n");
    REFUSE("x = 07:32:00Z\n");
    REFUSE("x = 1979-05-27T07:32:00+25:00\n");
    REFUSE("x = 1979-5-27\n");
}

static void test_arrays_of_tables_append_elements(void)
{
    sc_toml *v = read_ok("[[fruit]]\nname = \"apple\"\n[fruit.physical]\ncolor = \"red\"\n"
                         "[[fruit.variety]]\nname = \"red delicious\"\n"
                         "[[fruit]]\nname = \"banana\"\n[fruit.physical]\ncolor = \"yellow\"\n");
    const sc_toml *f = tat(v, "fruit");
    CU_ASSERT_EQUAL_FATAL(f->type, SC_TOML_ARRAY);
    CU_ASSERT_EQUAL(f->origin, SC_TOML_ARRAY_TABLES);
    CU_ASSERT_EQUAL(f->length, 2);
    CU_ASSERT_STRING_EQUAL(tat(f->child, "physical.color")->string, "red");
    CU_ASSERT_STRING_EQUAL(tat(f->last, "physical.color")->string, "yellow");
    CU_ASSERT_EQUAL(tat(f->child, "variety")->length, 1);
    sc_toml_free(v);
    REFUSE("a = [1]\n[[a]]\n");
    REFUSE("[a]\n[[a]]\n");
    REFUSE("[[a]]\n[a]\n");
    REFUSE("[[a]\n");
    REFUSE("[ [a]]\n");
}

static void test_dotted_keys_define_tables_once(void)
{
    sc_toml *v = read_ok("fruit.apple.color = \"red\"\nfruit.apple.taste.sweet = true\n"
                         "[fruit.apple.texture]\nsmooth = true\n"
                         "[x.y.z]\n[x]\ny.w = 1\n");
    CU_ASSERT_EQUAL(tat(v, "fruit.apple")->origin, SC_TOML_DOTTED);
    CU_ASSERT(tat(v, "fruit.apple.texture.smooth")->boolean);
    CU_ASSERT_EQUAL(tat(v, "x.y.w")->integer, 1);
    sc_toml_free(v);
    REFUSE("a.b = 1\n[a]\n");
    REFUSE("a.b = 1\n[a.b]\n");
    REFUSE("[a.b]\nc = 1\n[a]\nb.d = 2\n");
    REFUSE("[a]\nb.c = 1\n[a.x]\n[a]\n");
    REFUSE("[a]\nb.c = 1\n[x]\n[a.b]\n");
    REFUSE("a = 1\na.b = 2\n");
    REFUSE("a.b = 1\na = 2\n");
}

static void test_inline_tables_are_closed(void)
{
    sc_toml *v = read_ok("p = { name = \"n\", a.b = 1, a.c = [1, { d = 2 }], e = {} }\n");
    CU_ASSERT_EQUAL(tat(v, "p.a.b")->integer, 1);
    CU_ASSERT_EQUAL(tat(v, "p.a.c")->length, 2);
    CU_ASSERT_EQUAL(tat(v, "p.e")->length, 0);
    sc_toml_free(v);
    REFUSE("p = { a.b = 1 }\np.a.c = 2\n");
    REFUSE("p = { a = { b = 1 } }\n[p.a]\n");
    REFUSE("p = { a = { b = 1 }, a.c = 2 }\n");
    REFUSE("[[p]]\nq = { a = 1 }\n[p.q.x]\n");
}

static void test_spans_locate_keys_values_and_tables(void)
{
    const char *text = "# top\n[workspace]\nname = \"w\"  # the name\n\n"
                       "[dependencies]\npython = \"3.12.*\"\nnumpy.version = \"1.*\"\n"
                       "[tasks]\nrun = \"\"\"\npython -m x\n\"\"\"\n";
    sc_toml *v = read_ok(text);
    const sc_toml *name = tat(v, "workspace.name");
    CU_ASSERT_EQUAL(name->entry.start, (size_t)(strstr(text, "name =") - text));
    CU_ASSERT_EQUAL(name->value.start, (size_t)(strstr(text, "\"w\"") - text));
    CU_ASSERT_EQUAL(name->value.end, name->value.start + 3);
    CU_ASSERT_EQUAL(name->line_end, (size_t)(strstr(text, "\n\n[dep") - text) + 1);
    const sc_toml *deps = tat(v, "dependencies");
    CU_ASSERT_EQUAL(deps->origin, SC_TOML_HEADER);
    CU_ASSERT_EQUAL(deps->entry.start, (size_t)(strstr(text, "[dependencies]") - text));
    CU_ASSERT_EQUAL(deps->entry.end, deps->entry.start + 14);
    CU_ASSERT_EQUAL(deps->body_end, (size_t)(strstr(text, "[tasks]") - text));
    const sc_toml *numpy = tat(v, "dependencies.numpy");
    CU_ASSERT_EQUAL(numpy->origin, SC_TOML_DOTTED);
    CU_ASSERT_EQUAL(numpy->key_span.start, (size_t)(strstr(text, "numpy") - text));
    CU_ASSERT_EQUAL(numpy->key_span.end, numpy->key_span.start + 5);
    const sc_toml *run = tat(v, "tasks.run");
    CU_ASSERT_EQUAL(run->value.end, strlen(text) - 1);
    CU_ASSERT_EQUAL(v->body_end, 0);
    sc_toml_free(v);
}

static void test_json_view_refuses_what_json_cannot_hold(void)
{
    REFUSE("x = 9007199254740992\n");
    REFUSE("x = nan\n");
    REFUSE("x = \"a\\u0000b\"\n");
    REFUSE("\"a\\u0000b\" = 1\n\"a\\u0000c\" = 2\n");
    sc_json *v = parse_ok("d = 1979-05-27T07:32:00Z\nf = 0.25\nbig = 9007199254740991\n");
    CU_ASSERT_STRING_EQUAL(sc_json_cstr(sc_json_get(v, "d")), "1979-05-27T07:32:00Z");
    CU_ASSERT_DOUBLE_EQUAL(sc_json_get(v, "f")->number, 0.25, 0);
    CU_ASSERT(sc_json_get(v, "big")->is_integer);
    sc_json_free(v);
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
    const char *text = "[workspace]\nname = \"x\"\nratio = 0.5.1\n";
    CU_ASSERT_EQUAL(sc_toml_parse(text, strlen(text), "scrolls/b/t/pixi.toml", &v, &err),
                    SC_E_INVALID_PIXI_TOML);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "scrolls/b/t/pixi.toml:3:"));
    CU_ASSERT_STRING_EQUAL(err.path, "scrolls/b/t/pixi.toml");
}

void sc_test_register_toml(void)
{
    CU_pSuite s = CU_add_suite("toml", NULL, NULL);
    if (s == NULL)
        CU_FAIL_FATAL("CU_add_suite failed");
    SC_ADD_TEST(s, test_pixi_manifest_reads_as_tables);
    SC_ADD_TEST(s, test_dotted_and_quoted_keys);
    SC_ADD_TEST(s, test_strings_basic_escapes_and_literal);
    SC_ADD_TEST(s, test_integers_booleans_arrays);
    SC_ADD_TEST(s, test_crlf_line_ends);
    SC_ADD_TEST(s, test_multiline_strings_trim_and_continue);
    SC_ADD_TEST(s, test_unicode_escapes_name_scalar_values);
    SC_ADD_TEST(s, test_integers_in_every_base_within_int64);
    SC_ADD_TEST(s, test_floats_with_exponents_inf_and_nan);
    SC_ADD_TEST(s, test_dates_and_times_of_four_kinds);
    SC_ADD_TEST(s, test_arrays_of_tables_append_elements);
    SC_ADD_TEST(s, test_dotted_keys_define_tables_once);
    SC_ADD_TEST(s, test_inline_tables_are_closed);
    SC_ADD_TEST(s, test_spans_locate_keys_values_and_tables);
    SC_ADD_TEST(s, test_json_view_refuses_what_json_cannot_hold);
    SC_ADD_TEST(s, test_definitions_twice_are_refused);
    SC_ADD_TEST(s, test_malformed_text_is_refused);
    SC_ADD_TEST(s, test_encoding_is_checked);
    SC_ADD_TEST(s, test_nesting_is_bounded);
    SC_ADD_TEST(s, test_errors_name_line_and_column);
}
