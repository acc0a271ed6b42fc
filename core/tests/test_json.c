/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_json.c — the strict JSON reader and the deterministic writer.
 *
 * One test per rule of json.h; each is named after the rule it checks.
 */
#include "harness.h"

#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "scrollcase/file.h"
#include "scrollcase/json.h"

/* ---- helpers ------------------------------------------------------------ */

/* Parse len bytes; expect SC_E_INVALID_JSON whose message has the standard
 * prefix and contains needle (when not NULL). */
static void expect_invalid(const char *text, size_t len, const char *needle,
                           int line)
{
    sc_json *v = (sc_json *)1;
    sc_error err;
    sc_code rc = sc_json_parse(text, len, &v, &err);
    int ok = rc == SC_E_INVALID_JSON && err.code == SC_E_INVALID_JSON &&
             v == NULL &&
             strncmp(err.message, "invalid-json at byte ", 21) == 0 &&
             strchr(err.message, '\n') == NULL &&
             (needle == NULL || strstr(err.message, needle) != NULL);
    if (!ok)
        fprintf(stderr, "\n  line %d: input %.*s: got %s \"%s\" (wanted \"%s\")\n",
                line, (int)(len > 60 ? 60 : len), text, sc_code_name(rc),
                err.message, needle ? needle : "");
    CU_ASSERT_TRUE(ok);
    if (rc == SC_OK)
        sc_json_free(v);
}

#define EXPECT_INVALID(lit, needle) \
    expect_invalid((lit), sizeof(lit) - 1, (needle), __LINE__)

static sc_json *parse_ok_len(const char *text, size_t len, int line)
{
    sc_json *v = NULL;
    sc_error err;
    sc_code rc = sc_json_parse(text, len, &v, &err);
    if (rc != SC_OK)
        fprintf(stderr, "\n  line %d: input %.*s: %s\n", line,
                (int)(len > 60 ? 60 : len), text, err.message);
    CU_ASSERT_EQUAL(rc, SC_OK);
    CU_ASSERT_PTR_NOT_NULL(v);
    return v;
}

#define PARSE_OK(lit) parse_ok_len((lit), sizeof(lit) - 1, __LINE__)

static void expect_valid(const char *text, size_t len, int line)
{
    sc_json_free(parse_ok_len(text, len, line));
}

#define EXPECT_VALID(lit) expect_valid((lit), sizeof(lit) - 1, __LINE__)

/* Write v (pretty) and compare with want. */
static void expect_written(const sc_json *v, const char *want, int line)
{
    char *text = NULL;
    size_t len = 0;
    sc_error err;
    sc_code rc = sc_json_write(v, &text, &len, &err);
    CU_ASSERT_EQUAL(rc, SC_OK);
    if (rc != SC_OK) {
        fprintf(stderr, "\n  line %d: write failed: %s\n", line, err.message);
        return;
    }
    int same = len == strlen(want) && memcmp(text, want, len) == 0;
    if (!same)
        fprintf(stderr, "\n  line %d: wrote\n%s  wanted\n%s", line, text, want);
    CU_ASSERT_TRUE(same);
    free(text);
}

/* Nested arrays n deep ("[[...]]"), caller frees. */
static char *nested(size_t n, char open, char close, const char *inner)
{
    size_t il = strlen(inner);
    char *s = malloc(2 * n + il + 1);
    if (s == NULL)
        return NULL;
    memset(s, open, n);
    memcpy(s + n, inner, il);
    memset(s + n + il, close, n);
    s[2 * n + il] = '\0';
    return s;
}

/* ---- the grammar ---------------------------------------------------------- */

static void test_empty_input_is_invalid_json(void)
{
    EXPECT_INVALID("", "empty input");
    EXPECT_INVALID(" \t\r\n", "only whitespace");
    sc_json *v = NULL;
    sc_error err;
    CU_ASSERT_EQUAL(sc_json_parse(NULL, 0, &v, &err), SC_E_INVALID_JSON);
}

static void test_bom_is_invalid_json(void)
{
    EXPECT_INVALID("\xEF\xBB\xBF{}", "byte-order mark");
    EXPECT_INVALID("\xEF\xBB\xBF", "byte-order mark");
    EXPECT_INVALID("\xFE\xFF{}", "at byte 0");
    EXPECT_INVALID(" \xEF\xBB\xBF{}", "at byte 1");
    /* U+FEFF inside a string is just a character. */
    EXPECT_VALID("\"\xEF\xBB\xBF\"");
}

static void test_leading_zero_is_invalid_json(void)
{
    EXPECT_INVALID("01", "leading zero");
    EXPECT_INVALID("[-01]", "leading zero");
    EXPECT_INVALID("00", "leading zero");
    EXPECT_VALID("[0, -0, 0.5, 0e1, 10, 100]");
}

static void test_plus_sign_is_invalid_json(void)
{
    EXPECT_INVALID("+1", "'+'");
    EXPECT_INVALID("[1, +2]", "at byte 4");
    EXPECT_VALID("[1e+2, 1E-2, 1e2]"); /* '+' in an exponent is fine */
}

static void test_leading_dot_is_invalid_json(void)
{
    EXPECT_INVALID(".5", "'.'");
    EXPECT_INVALID("-.5", "expected a digit after '-'");
}

static void test_trailing_dot_is_invalid_json(void)
{
    EXPECT_INVALID("1.", "after '.'");
    EXPECT_INVALID("[1.]", "after '.'");
    EXPECT_INVALID("1.e5", "after '.'");
}

static void test_exponent_without_digits_is_invalid_json(void)
{
    EXPECT_INVALID("1e", "exponent");
    EXPECT_INVALID("1e+", "exponent");
    EXPECT_INVALID("1E-x", "exponent");
}

static void test_nan_and_infinity_are_invalid_json(void)
{
    EXPECT_INVALID("NaN", "NaN");
    EXPECT_INVALID("[Infinity]", "Infinity");
    EXPECT_INVALID("-Infinity", "-Infinity");
    EXPECT_INVALID("nan", "null"); /* 'n' must start null */
}

static void test_comments_are_invalid_json(void)
{
    EXPECT_INVALID("// c\n{}", "comments");
    EXPECT_INVALID("{} /* c */", "comments");
    EXPECT_INVALID("[1 /* c */]", "comments");
    EXPECT_INVALID("{\"a\": 1 # c\n}", "'#'");
}

static void test_single_quotes_are_invalid_json(void)
{
    EXPECT_INVALID("'a'", "single quotes");
    EXPECT_INVALID("{'a': 1}", "single quotes");
}

static void test_raw_control_character_in_string_is_invalid_json(void)
{
    EXPECT_INVALID("\"a\tb\"", "raw control character 0x09");
    EXPECT_INVALID("\"a\nb\"", "at byte 2");
    EXPECT_INVALID("\"\x1f\"", "0x1f");
    EXPECT_INVALID("\"a\0b\"", "0x00");
    EXPECT_VALID("\"\x7f\""); /* DEL is not a control character for JSON */
}

static void test_unescaped_quote_and_bad_escapes_are_invalid_json(void)
{
    EXPECT_INVALID("\"\\x41\"", "invalid escape");
    EXPECT_INVALID("\"\\U0041\"", "invalid escape");
    EXPECT_INVALID("\"\\'\"", "invalid escape");
    EXPECT_INVALID("\"\\u12G4\"", "four hex digits");
    EXPECT_INVALID("\"\\u12\"", "four hex digits");
    EXPECT_INVALID("\"abc", "unterminated string");
    EXPECT_INVALID("\"abc\\", "unterminated string");
    EXPECT_INVALID("\"a\"b\"", "trailing");
}

static void test_valid_escapes_decode(void)
{
    sc_json *v = PARSE_OK("\"\\\" \\\\ \\/ \\b \\f \\n \\r \\t \\u0041 \\u00e9 \\u20AC\"");
    const char want[] = "\" \\ / \b \f \n \r \t A \xC3\xA9 \xE2\x82\xAC";
    CU_ASSERT_EQUAL(v->length, sizeof want - 1);
    CU_ASSERT_EQUAL(memcmp(v->string, want, sizeof want - 1), 0);
    sc_json_free(v);
}

static void test_invalid_utf8_is_invalid_json(void)
{
    EXPECT_INVALID("\"\xC0\xAF\"", "invalid UTF-8");         /* overlong '/' */
    EXPECT_INVALID("\"\xE0\x80\xAF\"", "invalid UTF-8");     /* overlong 3 */
    EXPECT_INVALID("\"\xF0\x80\x80\xAF\"", "invalid UTF-8"); /* overlong 4 */
    EXPECT_INVALID("\"\xED\xA0\x80\"", "invalid UTF-8");     /* U+D800 */
    EXPECT_INVALID("\"\xED\xBF\xBF\"", "invalid UTF-8");     /* U+DFFF */
    EXPECT_INVALID("\"\xF4\x90\x80\x80\"", "invalid UTF-8"); /* U+110000 */
    EXPECT_INVALID("\"\xF5\x80\x80\x80\"", "invalid UTF-8");
    EXPECT_INVALID("\"\xFF\"", "invalid UTF-8");
    EXPECT_INVALID("\"\x80\"", "invalid UTF-8"); /* stray continuation */
    EXPECT_INVALID("\"\xE2\x82\"", "at byte 1");  /* truncated */
    EXPECT_INVALID("\"\xE2\x82", "at byte 1");
    EXPECT_INVALID("\"ab\xC3\"", "at byte 3");
    EXPECT_INVALID("[1, \xC3\xA9]", "byte 0xc3"); /* outside a string */
    EXPECT_VALID("\"\xC2\x80\xDF\xBF\xE0\xA0\x80\xED\x9F\xBF\xEE\x80\x80"
                 "\xF0\x90\x80\x80\xF4\x8F\xBF\xBF\"");
}

static void test_lone_surrogate_escape_is_invalid_json(void)
{
    EXPECT_INVALID("\"\\uD800\"", "lone high surrogate \\uD800");
    EXPECT_INVALID("\"\\udbff x\"", "lone high surrogate");
    EXPECT_INVALID("\"\\uDC00\"", "lone low surrogate \\uDC00");
    EXPECT_INVALID("\"\\uD800\\u0041\"", "lone high surrogate");
    EXPECT_INVALID("\"\\uD800\\uD800\"", "lone high surrogate");
    EXPECT_INVALID("\"\\uDC00\\uD800\"", "lone low surrogate");
    EXPECT_INVALID("\"\\uD800\\n\"", "lone high surrogate");
    EXPECT_INVALID("\"x\\uD800\\uZZZZ\"", "at byte 8");
}

static void test_surrogate_pair_escape_decodes(void)
{
    sc_json *v = PARSE_OK("\"\\uD83D\\uDE00\\udbff\\udfff\"");
    CU_ASSERT_EQUAL(v->length, 8);
    CU_ASSERT_EQUAL(memcmp(v->string, "\xF0\x9F\x98\x80\xF4\x8F\xBF\xBF", 8), 0);
    sc_json_free(v);
}

static void test_literals_must_be_exact(void)
{
    EXPECT_INVALID("tru", "expected true");
    EXPECT_INVALID("True", "'T'");
    EXPECT_INVALID("nul", "expected null");
    EXPECT_INVALID("[fals]", "expected false");
    EXPECT_INVALID("truex", "trailing 'x'");
    EXPECT_INVALID("undefined", "'u'");
    sc_json *v = PARSE_OK("[true, false, null]");
    CU_ASSERT_TRUE(sc_json_is(sc_json_at(v, 0), SC_JSON_BOOL) && sc_json_at(v, 0)->boolean);
    CU_ASSERT_TRUE(sc_json_is(sc_json_at(v, 1), SC_JSON_BOOL) && !sc_json_at(v, 1)->boolean);
    CU_ASSERT_TRUE(sc_json_is(sc_json_at(v, 2), SC_JSON_NULL));
    sc_json_free(v);
}

static void test_only_json_whitespace_is_skipped(void)
{
    EXPECT_VALID(" \t\n\r[ \t\n\r1 \t\n\r, \t\n\r{ \t\n\r\"a\" \t\n\r: \t\n\r2 \t\n\r} \t\n\r] \t\n\r");
    EXPECT_INVALID("\v[]", "byte 0x0b");
    EXPECT_INVALID("[]\f", "byte 0x0c");
    EXPECT_INVALID("\xC2\xA0[]", "byte 0xc2"); /* NBSP */
    EXPECT_INVALID("[1,\xE3\x80\x80" "2]", "at byte 3");
}

static void test_trailing_characters_are_invalid_json(void)
{
    EXPECT_INVALID("{} x", "at byte 3: trailing 'x'");
    EXPECT_INVALID("[]]", "at byte 2");
    EXPECT_INVALID("1 2", "at byte 2");
    EXPECT_INVALID("{}\0", "byte 0x00");
    EXPECT_INVALID("\"a\" \"b\"", "trailing");
    EXPECT_VALID("{} \n");
}

static void test_trailing_comma_is_invalid_json(void)
{
    EXPECT_INVALID("[1,]", "trailing comma");
    EXPECT_INVALID("{\"a\":1,}", "trailing comma");
    EXPECT_INVALID("[,1]", "expected a value");
    EXPECT_INVALID("[1,,2]", "expected a value");
    EXPECT_INVALID("{,}", "expected a string key");
}

static void test_unterminated_containers_are_invalid_json(void)
{
    EXPECT_INVALID("[", "end of input");
    EXPECT_INVALID("[1", "end of input");
    EXPECT_INVALID("{\"a\"", "expected ':'");
    EXPECT_INVALID("{\"a\":", "end of input");
    EXPECT_INVALID("{\"a\":1", "end of input");
    EXPECT_INVALID("{1:2}", "expected a string key");
    EXPECT_INVALID("[1 2]", "expected ',' or ']'");
    EXPECT_INVALID("{\"a\":1 \"b\":2}", "expected ',' or '}'");
}

static void test_top_level_scalars_are_accepted(void)
{
    sc_json *v = PARSE_OK("\"s\"");
    CU_ASSERT_STRING_EQUAL(sc_json_cstr(v), "s");
    sc_json_free(v);
    v = PARSE_OK(" 12 ");
    CU_ASSERT_TRUE(sc_json_is(v, SC_JSON_NUMBER) && v->number == 12.0);
    sc_json_free(v);
    EXPECT_VALID("null");
    EXPECT_VALID("false");
}

/* ---- keys -------------------------------------------------------------------- */

static void test_duplicate_key_is_invalid_json(void)
{
    EXPECT_INVALID("{\"a\": 1, \"a\": 2}",
                   "invalid-json at byte 9: duplicate key \"a\"");
    EXPECT_INVALID("{\"x\": {\"b\": 1, \"c\": 2, \"b\": 3}}", "duplicate key \"b\"");
    EXPECT_INVALID("{\"\": 1, \"\": 2}", "duplicate key \"\"");
    /* Same value, still a duplicate. */
    EXPECT_INVALID("{\"a\": 1, \"a\": 1}", "duplicate key");
    /* The same key in different objects is fine. */
    EXPECT_VALID("{\"a\": {\"a\": 1}, \"b\": {\"a\": 2}, \"c\": [{\"a\": 3}, {\"a\": 4}]}");
}

static void test_duplicate_key_comparison_is_bytewise_after_unescaping(void)
{
    /* \u0061 is "a": the decoded bytes are equal. */
    EXPECT_INVALID("{\"a\": 1, \"\\u0061\": 2}", "duplicate key \"a\"");
    /* Precomposed vs decomposed e-acute: different bytes, not duplicates. */
    EXPECT_VALID("{\"\xC3\xA9\": 1, \"e\xCC\x81\": 2}");
    /* Keys with NUL differ from their prefixes. */
    EXPECT_VALID("{\"a\": 1, \"a\\u0000\": 2, \"a\\u0000b\": 3}");
    EXPECT_INVALID("{\"a\\u0000\": 1, \"a\\u0000\": 2}", "duplicate key \"a\\u0000\"");
}

static void test_keys_are_case_sensitive(void)
{
    sc_json *v = PARSE_OK("{\"name\": 1, \"Name\": 2, \"NAME\": 3}");
    CU_ASSERT_EQUAL(v->length, 3);
    CU_ASSERT_EQUAL(sc_json_get(v, "Name")->number, 2.0);
    CU_ASSERT_PTR_NULL(sc_json_get(v, "nAME"));
    sc_json_free(v);
}

static void test_duplicate_key_in_large_object_is_invalid_json(void)
{
    /* 20000 distinct keys, then one repeat at the end: must be found (and
     * quickly: the check is hashed, not pairwise). */
    size_t n = 20000;
    size_t cap = n * 24 + 64;
    char *s = malloc(cap);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    size_t o = 0;
    s[o++] = '{';
    for (size_t i = 0; i < n; i++)
        o += (size_t)snprintf(s + o, cap - o, "\"key%zu\": %zu, ", i, i);
    size_t dup_at = o;
    o += (size_t)snprintf(s + o, cap - o, "\"key12345\": 0}");
    sc_json *v = NULL;
    sc_error err;
    CU_ASSERT_EQUAL(sc_json_parse(s, o, &v, &err), SC_E_INVALID_JSON);
    char want[96];
    snprintf(want, sizeof want, "invalid-json at byte %zu: duplicate key \"key12345\"",
             dup_at);
    CU_ASSERT_STRING_EQUAL(err.message, want);
    /* Without the repeat it parses, in order. */
    s[dup_at - 2] = '}';
    CU_ASSERT_EQUAL(sc_json_parse(s, dup_at - 1, &v, &err), SC_OK);
    CU_ASSERT_EQUAL(v->length, n);
    CU_ASSERT_EQUAL(sc_json_get(v, "key19999")->number, 19999.0);
    CU_ASSERT_STRING_EQUAL(sc_json_at(v, 7)->key, "key7");
    sc_json_free(v);
    free(s);
}

static void test_member_order_is_kept(void)
{
    sc_json *v = PARSE_OK("{\"z\": 1, \"a\": 2, \"m\": 3}");
    CU_ASSERT_STRING_EQUAL(sc_json_at(v, 0)->key, "z");
    CU_ASSERT_STRING_EQUAL(sc_json_at(v, 1)->key, "a");
    CU_ASSERT_STRING_EQUAL(sc_json_at(v, 2)->key, "m");
    CU_ASSERT_PTR_NULL(sc_json_at(v, 3));
    expect_written(v, "{\n  \"z\": 1,\n  \"a\": 2,\n  \"m\": 3\n}\n", __LINE__);
    sc_json_free(v);
}

static void test_strings_may_hold_nul(void)
{
    sc_json *v = PARSE_OK("{\"k\\u0000ey\": \"a\\u0000b\"}");
    sc_json *m = sc_json_at(v, 0);
    CU_ASSERT_EQUAL(m->key_length, 4);
    CU_ASSERT_EQUAL(memcmp(m->key, "k\0ey", 4), 0);
    CU_ASSERT_EQUAL(m->length, 3);
    CU_ASSERT_EQUAL(memcmp(m->string, "a\0b", 4), 0); /* and NUL-terminated */
    CU_ASSERT_PTR_NULL(sc_json_cstr(m));               /* not a C string */
    CU_ASSERT_PTR_NULL(sc_json_get(v, "k"));           /* lookup by C key */
    expect_written(v, "{\n  \"k\\u0000ey\": \"a\\u0000b\"\n}\n", __LINE__);
    sc_json_free(v);
}

/* ---- nesting -------------------------------------------------------------- */

static void test_nesting_64_accepted_65_rejected(void)
{
    char *s = nested(64, '[', ']', "");
    expect_valid(s, strlen(s), __LINE__);
    free(s);
    s = nested(65, '[', ']', "");
    expect_invalid(s, strlen(s), "at byte 64: nesting deeper than 64", __LINE__);
    free(s);

    /* Objects count the same; a scalar inside does not add a level. */
    size_t n = 64;
    size_t cap = n * 8 + 16;
    char *o = malloc(cap);
    CU_ASSERT_PTR_NOT_NULL_FATAL(o);
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        k += (size_t)snprintf(o + k, cap - k, "{\"a\":");
    k += (size_t)snprintf(o + k, cap - k, "1");
    for (size_t i = 0; i < n; i++)
        o[k++] = '}';
    expect_valid(o, k, __LINE__);
    /* Replace the innermost 1 by [] → 65 levels. */
    char *p = malloc(k + 2);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    size_t one = n * 5;
    memcpy(p, o, one);
    memcpy(p + one, "[]", 2);
    memcpy(p + one + 2, o + one + 1, k - one - 1);
    expect_invalid(p, k + 1, "nesting deeper than 64", __LINE__);
    free(p);
    free(o);

    /* Mixed, 64 deep, followed by siblings at every level. */
    s = nested(63, '[', ']', "{\"x\": [1, 2], \"y\": {}}");
    expect_invalid(s, strlen(s), "nesting deeper than 64", __LINE__);
    free(s);
    s = nested(62, '[', ']', "{\"x\": [1, 2], \"y\": {}}");
    expect_valid(s, strlen(s), __LINE__);
    free(s);

    /* Very deep input fails quickly and cleanly. */
    s = nested(100000, '[', ']', "");
    expect_invalid(s, strlen(s), "at byte 64:", __LINE__);
    free(s);
}

/* A protocol envelope (conformance case files and messages) may nest
 * SC_JSON_ENVELOPE_DEPTH (72) deep, so that a document at the 64 limit fits
 * in the message carrying it; documents keep the 64 limit. */
static void test_envelope_depth_72_only_where_asked(void)
{
    sc_error err;
    sc_json *v = NULL;
    char *s = nested(SC_JSON_ENVELOPE_DEPTH, '[', ']', "");
    CU_ASSERT_EQUAL(sc_json_parse_depth(s, strlen(s), SC_JSON_ENVELOPE_DEPTH, &v, &err), SC_OK);
    CU_ASSERT_PTR_NOT_NULL_FATAL(v);
    sc_json *w = NULL;
    CU_ASSERT_EQUAL(sc_json_parse(s, strlen(s), &w, &err), SC_E_INVALID_JSON);
    CU_ASSERT_PTR_NULL(w);
    free(s);
    s = nested(65, '[', ']', "");
    CU_ASSERT_EQUAL(sc_json_parse(s, strlen(s), &w, &err), SC_E_INVALID_JSON);
    CU_ASSERT_EQUAL(sc_json_parse_depth(s, strlen(s), 64, &w, &err), SC_E_INVALID_JSON);
    CU_ASSERT_EQUAL(sc_json_parse_depth(s, strlen(s), 65, &w, &err), SC_OK);
    sc_json_free(w);
    free(s);
    s = nested(SC_JSON_ENVELOPE_DEPTH + 1, '[', ']', "");
    w = NULL;
    CU_ASSERT_EQUAL(sc_json_parse_depth(s, strlen(s), SC_JSON_ENVELOPE_DEPTH, &w, &err),
                    SC_E_INVALID_JSON);
    CU_ASSERT_PTR_NULL(w);
    free(s);

    /* The writers: 72 deep only with the envelope depth. */
    char *text = NULL;
    size_t len = 0;
    CU_ASSERT_EQUAL(sc_json_write_depth(v, 1, SC_JSON_ENVELOPE_DEPTH, &text, &len, &err), SC_OK);
    CU_ASSERT_EQUAL(len, 2 * (size_t)SC_JSON_ENVELOPE_DEPTH);
    free(text);
    text = NULL;
    CU_ASSERT_EQUAL(sc_json_write_depth(v, 0, SC_JSON_ENVELOPE_DEPTH, &text, &len, &err), SC_OK);
    free(text);
    text = NULL;
    CU_ASSERT_EQUAL(sc_json_write_compact(v, &text, &len, &err), SC_E_INVALID_JSON);
    CU_ASSERT_PTR_NULL(text);
    CU_ASSERT_EQUAL(sc_json_write(v, &text, &len, &err), SC_E_INVALID_JSON);

    /* A depth outside 1..72 is a usage error, not a silent clamp. */
    CU_ASSERT_EQUAL(sc_json_parse_depth("[]", 2, 0, &w, &err), SC_E_USAGE);
    CU_ASSERT_EQUAL(sc_json_parse_depth("[]", 2, SC_JSON_ENVELOPE_DEPTH + 1, &w, &err),
                    SC_E_USAGE);
    CU_ASSERT_EQUAL(sc_json_write_depth(v, 1, 0, &text, &len, &err), SC_E_USAGE);
    sc_json_free(v);
}

/* ---- numbers ---------------------------------------------------------------- */

static void test_number_overflowing_double_is_invalid_json(void)
{
    EXPECT_INVALID("1e309", "overflows a double");
    EXPECT_INVALID("[-1e309]", "at byte 1: number -1e309 overflows");
    EXPECT_INVALID("1.8e308", "overflows");
    EXPECT_INVALID("1e99999999999999999999999", "overflows");
    EXPECT_INVALID("0.0000000000000000001e328", "overflows");
    sc_json *v = PARSE_OK("[1.7976931348623157e308, 0e99999999999999999999, "
                          "1e-400, 100000000000000000000000000000e-29]");
    CU_ASSERT_EQUAL(sc_json_at(v, 0)->number, 1.7976931348623157e308);
    CU_ASSERT_EQUAL(sc_json_at(v, 1)->number, 0.0);
    CU_ASSERT_EQUAL(sc_json_at(v, 2)->number, 0.0); /* underflow is not overflow */
    CU_ASSERT_EQUAL(sc_json_at(v, 3)->number, 1.0);
    sc_json_free(v);
}

static void test_integer_above_2_53_minus_1_rejected(void)
{
    sc_json *v = PARSE_OK("[9007199254740991, -9007199254740991, 0, -0]");
    uint64_t u = 0;
    CU_ASSERT_TRUE(sc_json_uint53(sc_json_at(v, 0), &u));
    CU_ASSERT_EQUAL(u, UINT64_C(9007199254740991));
    CU_ASSERT_TRUE(sc_json_at(v, 1)->is_integer);
    CU_ASSERT_EQUAL(sc_json_at(v, 1)->number, -9007199254740991.0);
    sc_json_free(v);
    EXPECT_INVALID("9007199254740992", "integer literal 9007199254740992 exceeds 2^53-1");
    EXPECT_INVALID("[-9007199254740992]", "at byte 1: integer literal");
    EXPECT_INVALID("9007199254740993", "exceeds 2^53-1");
    EXPECT_INVALID("10000000000000000", "exceeds 2^53-1");
    EXPECT_INVALID("123456789012345678901234567890", "exceeds 2^53-1");
    /* Not integer literals: a fraction or an exponent makes them numbers. */
    v = PARSE_OK("[9007199254740992.0, 1e16, 9007199254740993e0]");
    CU_ASSERT_FALSE(sc_json_at(v, 0)->is_integer);
    CU_ASSERT_EQUAL(sc_json_at(v, 1)->number, 1e16);
    CU_ASSERT_FALSE(sc_json_uint53(sc_json_at(v, 1), NULL));
    sc_json_free(v);
}

static void test_number_values_are_exact(void)
{
    sc_json *v = PARSE_OK("[0.1, -2.5e-3, 1E2, 123456.789e3, 5e-324, "
                          "2.2250738585072014e-308, 0.30000000000000004, -0]");
    CU_ASSERT_EQUAL(sc_json_at(v, 0)->number, 0.1);
    CU_ASSERT_EQUAL(sc_json_at(v, 1)->number, -2.5e-3);
    CU_ASSERT_EQUAL(sc_json_at(v, 2)->number, 100.0);
    CU_ASSERT_EQUAL(sc_json_at(v, 3)->number, 123456789.0);
    CU_ASSERT_EQUAL(sc_json_at(v, 4)->number, 5e-324);
    CU_ASSERT_EQUAL(sc_json_at(v, 5)->number, 2.2250738585072014e-308);
    CU_ASSERT_EQUAL(sc_json_at(v, 6)->number, 0.30000000000000004);
    CU_ASSERT_TRUE(signbit(sc_json_at(v, 7)->number));
    sc_json_free(v);
}

static void test_is_integer_reflects_the_literal(void)
{
    sc_json *v = PARSE_OK("[1, 1.0, 1e0, -3, 0]");
    CU_ASSERT_TRUE(sc_json_at(v, 0)->is_integer);
    CU_ASSERT_FALSE(sc_json_at(v, 1)->is_integer);
    CU_ASSERT_FALSE(sc_json_at(v, 2)->is_integer);
    CU_ASSERT_TRUE(sc_json_at(v, 3)->is_integer);
    CU_ASSERT_TRUE(sc_json_at(v, 4)->is_integer);
    sc_json_free(v);
    sc_json *n = sc_json_new_number(2.0);
    CU_ASSERT_TRUE(n->is_integer);
    sc_json_free(n);
    n = sc_json_new_number(2.5);
    CU_ASSERT_FALSE(n->is_integer);
    sc_json_free(n);
    n = sc_json_new_number(9007199254740992.0);
    CU_ASSERT_FALSE(n->is_integer);
    sc_json_free(n);
}

static void test_uint53_accepts_only_integer_literals_in_range(void)
{
    sc_json *v = PARSE_OK("[0, 42, 9007199254740991, -1, -0, 1.0, 1e2, \"1\", null]");
    uint64_t u = 99;
    CU_ASSERT_TRUE(sc_json_uint53(sc_json_at(v, 0), &u) && u == 0);
    CU_ASSERT_TRUE(sc_json_uint53(sc_json_at(v, 1), &u) && u == 42);
    CU_ASSERT_TRUE(sc_json_uint53(sc_json_at(v, 2), &u));
    for (size_t i = 3; i < 9; i++)
        CU_ASSERT_FALSE(sc_json_uint53(sc_json_at(v, i), &u));
    CU_ASSERT_FALSE(sc_json_uint53(NULL, &u));
    sc_json_free(v);
    sc_json *b = sc_json_new_number(7.0);
    CU_ASSERT_TRUE(sc_json_uint53(b, &u) && u == 7);
    sc_json_free(b);
    b = sc_json_new_number(-0.0);
    CU_ASSERT_FALSE(sc_json_uint53(b, &u));
    sc_json_free(b);
}

/* LC_NUMERIC with a decimal comma must change neither reading nor writing. */
static void test_parse_is_locale_independent(void)
{
    static const char *const names[] = {"de_DE.UTF-8", "de_DE.utf8", "de_DE",
                                        "fr_FR.UTF-8", "fr_FR.utf8", "nl_NL.UTF-8"};
    const char *got = NULL;
    for (size_t i = 0; i < sizeof names / sizeof names[0] && got == NULL; i++)
        if (setlocale(LC_NUMERIC, names[i]) != NULL)
            got = names[i];
    if (got == NULL) {
        printf("\n  [skipped: no decimal-comma locale (de_DE.UTF-8, fr_FR.UTF-8, "
               "nl_NL.UTF-8) is installed] ");
        setlocale(LC_NUMERIC, "C");
        return;
    }
    /* Make sure the locale really uses a comma, else the test proves nothing. */
    char probe[16];
    snprintf(probe, sizeof probe, "%.1f", 1.5);
    CU_ASSERT_STRING_EQUAL(probe, "1,5");

    sc_json *v = PARSE_OK("[1.5, -0.25e1, 3.14159, 1e-7, 123456.5]");
    if (v != NULL) {
        CU_ASSERT_EQUAL(sc_json_at(v, 0)->number, 1.5);
        CU_ASSERT_EQUAL(sc_json_at(v, 1)->number, -2.5);
        CU_ASSERT_EQUAL(sc_json_at(v, 2)->number, 3.14159);
        CU_ASSERT_EQUAL(sc_json_at(v, 3)->number, 1e-7);
        CU_ASSERT_EQUAL(sc_json_at(v, 4)->number, 123456.5);
        char *text = NULL;
        size_t len = 0;
        sc_error err;
        CU_ASSERT_EQUAL(sc_json_write_compact(v, &text, &len, &err), SC_OK);
        CU_ASSERT_STRING_EQUAL(text, "[1.5,-2.5,3.14159,1e-7,123456.5]");
        free(text);
        sc_json_free(v);
    }
    char buf[32];
    sc_json_format_number(0.1, buf, sizeof buf);
    CU_ASSERT_STRING_EQUAL(buf, "0.1");
    EXPECT_INVALID("1,5", "trailing ','");
    setlocale(LC_NUMERIC, "C");
}

/* ---- error messages -------------------------------------------------------- */

static void test_error_message_has_byte_offset(void)
{
    sc_json *v = NULL;
    sc_error err;
    const char *text = "{\"a\": [1, 2, x]}";
    CU_ASSERT_EQUAL(sc_json_parse(text, strlen(text), &v, &err), SC_E_INVALID_JSON);
    CU_ASSERT_EQUAL(err.code, SC_E_INVALID_JSON);
    CU_ASSERT_STRING_EQUAL(err.message,
                           "invalid-json at byte 13: expected a value, found 'x'");
    CU_ASSERT_STRING_EQUAL(err.path, "");
    CU_ASSERT_PTR_NULL(v);
    /* Long keys and odd bytes are shown escaped and cut, on one line. */
    char big[400];
    size_t o = 0;
    o += (size_t)snprintf(big, sizeof big, "{\"");
    for (int i = 0; i < 100; i++)
        big[o++] = 'k';
    memcpy(big + o, "\\n\": 1, \"", 9);
    o += 9;
    for (int i = 0; i < 100; i++)
        big[o++] = 'k';
    memcpy(big + o, "\\n\": 2}", 7);
    o += 7;
    CU_ASSERT_EQUAL(sc_json_parse(big, o, &v, &err), SC_E_INVALID_JSON);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "duplicate key \"kkkk"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "...\""));
    CU_ASSERT_PTR_NULL(strchr(err.message, '\n'));
}

static void test_parse_file_names_the_file(void)
{
    char *dir = sc_test_tmpdir();
    CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
    char *good = sc_path_join(dir, "good.json");
    char *bad = sc_path_join(dir, "bad.json");
    char *missing = sc_path_join(dir, "missing.json");
    sc_test_write(dir, "good.json", "{\"a\": [1]}\n");
    sc_test_write(dir, "bad.json", "{\"a\": 1,}");

    sc_json *v = NULL;
    sc_error err;
    CU_ASSERT_EQUAL(sc_json_parse_file(good, &v, &err), SC_OK);
    CU_ASSERT_EQUAL(sc_json_get(v, "a")->length, 1);
    sc_json_free(v);

    CU_ASSERT_EQUAL(sc_json_parse_file(bad, &v, &err), SC_E_INVALID_JSON);
    CU_ASSERT_PTR_NULL(v);
    CU_ASSERT_STRING_EQUAL(err.path, bad);
    char want[1200];
    snprintf(want, sizeof want, "%s: invalid-json at byte 8: trailing comma before '}'", bad);
    CU_ASSERT_STRING_EQUAL(err.message, want);

    CU_ASSERT_EQUAL(sc_json_parse_file(missing, &v, &err), SC_E_IO);
    CU_ASSERT_STRING_EQUAL(err.path, missing);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, missing));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "No such file"));

    free(good);
    free(bad);
    free(missing);
    sc_test_rmtree(dir);
    free(dir);
}

/* ---- writing ------------------------------------------------------------------- */

static void test_writer_layout_is_two_space_lf_key_colon_space(void)
{
    sc_json *v = PARSE_OK("{\"b\":[1,{\"c\":null,\"d\":[true,false]},\"s\"],\"a\":{\"e\":-1.5}}");
    expect_written(v,
                   "{\n"
                   "  \"b\": [\n"
                   "    1,\n"
                   "    {\n"
                   "      \"c\": null,\n"
                   "      \"d\": [\n"
                   "        true,\n"
                   "        false\n"
                   "      ]\n"
                   "    },\n"
                   "    \"s\"\n"
                   "  ],\n"
                   "  \"a\": {\n"
                   "    \"e\": -1.5\n"
                   "  }\n"
                   "}\n",
                   __LINE__);
    sc_json_free(v);
    v = PARSE_OK("\"top\"");
    expect_written(v, "\"top\"\n", __LINE__);
    sc_json_free(v);
}

static void test_writer_writes_empty_containers_as_brackets(void)
{
    sc_json *v = PARSE_OK("{\"a\": [ ], \"o\": { }, \"n\": [[], {}]}");
    expect_written(v,
                   "{\n  \"a\": [],\n  \"o\": {},\n  \"n\": [\n    [],\n    {}\n  ]\n}\n",
                   __LINE__);
    sc_json_free(v);
    sc_json *e = sc_json_new_object();
    expect_written(e, "{}\n", __LINE__);
    sc_json_free(e);
    e = sc_json_new_array();
    expect_written(e, "[]\n", __LINE__);
    sc_json_free(e);
}

static void test_writer_escapes_like_json_stringify(void)
{
    /* Every byte 0x01..0x7f, then NUL, then non-ASCII, U+2028/9, DEL. */
    char in[200];
    size_t n = 0;
    for (int c = 1; c < 0x80; c++)
        in[n++] = (char)c;
    in[n++] = '\0';
    const char tail[] = "\xC3\xA9\xE2\x80\xA8\xE2\x80\xA9\xF0\x9F\x98\x80";
    memcpy(in + n, tail, sizeof tail - 1);
    n += sizeof tail - 1;
    sc_json *s = sc_json_new_string_len(in, n);
    CU_ASSERT_PTR_NOT_NULL_FATAL(s);
    char *text = NULL;
    size_t len = 0;
    sc_error err;
    CU_ASSERT_EQUAL(sc_json_write_compact(s, &text, &len, &err), SC_OK);
    /* What JSON.stringify gives for the same string. */
    const char *want =
        "\"\\u0001\\u0002\\u0003\\u0004\\u0005\\u0006\\u0007\\b\\t\\n\\u000b\\f\\r"
        "\\u000e\\u000f\\u0010\\u0011\\u0012\\u0013\\u0014\\u0015\\u0016\\u0017"
        "\\u0018\\u0019\\u001a\\u001b\\u001c\\u001d\\u001e\\u001f"
        " !\\\"#$%&'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\\\]^_"
        "`abcdefghijklmnopqrstuvwxyz{|}~\x7f\\u0000"
        "\xC3\xA9\xE2\x80\xA8\xE2\x80\xA9\xF0\x9F\x98\x80\"";
    CU_ASSERT_EQUAL(len, strlen(want));
    CU_ASSERT_STRING_EQUAL(text, want);
    free(text);
    sc_json_free(s);

    /* Keys are escaped the same way. */
    sc_json *o = sc_json_new_object();
    CU_ASSERT_EQUAL(sc_json_object_append(o, "a\"b\\c\x1f", sc_json_new_null()), 0);
    expect_written(o, "{\n  \"a\\\"b\\\\c\\u001f\": null\n}\n", __LINE__);
    sc_json_free(o);
}

struct number_case {
    double value;
    const char *js; /* String(value) in JavaScript */
};

static void test_number_format_matches_ecmascript(void)
{
    static const struct number_case cases[] = {
        {0.0, "0"},
        {-0.0, "0"},
        {1.0, "1"},
        {-1.0, "-1"},
        {25.0, "25"},
        {100.0, "100"},
        {0.1, "0.1"},
        {-0.5, "-0.5"},
        {1.5, "1.5"},
        {4.35, "4.35"},
        {123.456, "123.456"},
        {0.30000000000000004, "0.30000000000000004"},
        {0.3333333333333333, "0.3333333333333333"},
        {0.6666666666666666, "0.6666666666666666"},
        {1.0000000000000002, "1.0000000000000002"},
        {123456789.0, "123456789"},
        {9007199254740991.0, "9007199254740991"},
        {9007199254740992.0, "9.007199254740992e+15"},
        {18446744073709551616.0, "1.8446744073709552e+19"},
        {12345678901234567890.0, "1.2345678901234567e+19"},
        {9223372036854775808.0, "9.223372036854776e+18"},
        {1e20, "1e+20"},
        {999999999999999900000.0, "9.999999999999999e+20"},
        {1e21, "1e+21"},
        {-1e21, "-1e+21"},
        {1.23e22, "1.23e+22"},
        {1e100, "1e+100"},
        {1.5e300, "1.5e+300"},
        {1.7976931348623157e308, "1.7976931348623157e+308"},
        {0.000001, "0.000001"},
        {0.000001234, "0.000001234"},
        {0.00001, "0.00001"},
        {0.000123, "0.000123"},
        {1e-7, "1e-7"},
        {5e-7, "5e-7"},
        {1.5e-7, "1.5e-7"},
        {-1.23456e-8, "-1.23456e-8"},
        {1.23e-18, "1.23e-18"},
        {2.2250738585072014e-308, "2.2250738585072014e-308"},
        {5e-324, "5e-324"},
        {-5e-324, "-5e-324"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char buf[32];
        size_t n = sc_json_format_number(cases[i].value, buf, sizeof buf);
        if (strcmp(buf, cases[i].js) != 0)
            fprintf(stderr, "\n  %.17g: got %s, JavaScript gives %s\n",
                    cases[i].value, buf, cases[i].js);
        CU_ASSERT_STRING_EQUAL(buf, cases[i].js);
        CU_ASSERT_EQUAL(n, strlen(cases[i].js));
    }
    /* Non-finite values format like String(x), though the writer refuses them. */
    char buf[32];
    sc_json_format_number(NAN, buf, sizeof buf);
    CU_ASSERT_STRING_EQUAL(buf, "NaN");
    sc_json_format_number(-INFINITY, buf, sizeof buf);
    CU_ASSERT_STRING_EQUAL(buf, "-Infinity");
    /* A short buffer truncates like snprintf and reports the full length. */
    char tiny[4];
    CU_ASSERT_EQUAL(sc_json_format_number(123456.0, tiny, sizeof tiny), 6);
    CU_ASSERT_STRING_EQUAL(tiny, "123");
}

static void test_number_format_round_trips_shortest(void)
{
    /* Every formatted value reads back exactly, over a spread of magnitudes
     * and bit patterns (a simple LCG, fixed seed). */
    uint64_t x = 0x9E3779B97F4A7C15u;
    for (int i = 0; i < 20000; i++) {
        x = x * 6364136223846793005u + 1442695040888963407u;
        double d;
        uint64_t bits = x;
        memcpy(&d, &bits, sizeof d);
        if (!isfinite(d))
            continue;
        char buf[32];
        sc_json_format_number(d, buf, sizeof buf);
        sc_json *v = NULL;
        sc_error err;
        /* Parse as JSON only when it is not an over-large integer literal. */
        if (strchr(buf, '.') == NULL && strchr(buf, 'e') == NULL &&
            (d > SC_JSON_MAX_SAFE_INTEGER || d < -SC_JSON_MAX_SAFE_INTEGER))
            continue;
        CU_ASSERT_EQUAL(sc_json_parse(buf, strlen(buf), &v, &err), SC_OK);
        if (v != NULL) {
            if (v->number != d)
                fprintf(stderr, "\n  %a formatted %s reads back %a\n", d, buf, v->number);
            CU_ASSERT_TRUE(v->number == d);
            sc_json_free(v);
        }
    }
}

static void test_writer_uses_exponent_form_from_2_53_so_text_reads_back(void)
{
    /* docs/format-v3.md 2.2: from 2^53 up numbers are written in exponent
     * form, so written text never holds an integer literal beyond 2^53-1
     * that the reader would refuse (2.1 rule 6). */
    sc_json *v = PARSE_OK("[1e20, -1.8446744073709552e19, 9.007199254740993e15, "
                          "9007199254740991, 1e21, 123456789012345680000.0]");
    char *text = NULL;
    size_t len = 0;
    sc_error err;
    CU_ASSERT_EQUAL(sc_json_write_compact(v, &text, &len, &err), SC_OK);
    CU_ASSERT_STRING_EQUAL(text, "[1e+20,-1.8446744073709552e+19,"
                                 "9.007199254740992e+15,9007199254740991,1e+21,"
                                 "1.2345678901234568e+20]");
    sc_json *again = NULL;
    CU_ASSERT_EQUAL(sc_json_parse(text, len, &again, &err), SC_OK);
    CU_ASSERT_TRUE(sc_json_equal(v, again));
    sc_json_free(again);
    free(text);
    sc_json_free(v);
}

static void test_compact_writer_has_no_whitespace(void)
{
    sc_json *v = PARSE_OK("{ \"a\" : [ 1 , 2 , { } , [ ] ] , \"b c\" : \"d e\" }");
    char *text = NULL;
    size_t len = 0;
    sc_error err;
    CU_ASSERT_EQUAL(sc_json_write_compact(v, &text, &len, &err), SC_OK);
    CU_ASSERT_STRING_EQUAL(text, "{\"a\":[1,2,{},[]],\"b c\":\"d e\"}");
    CU_ASSERT_EQUAL(len, strlen(text));
    free(text);
    sc_json_free(v);
}

static void test_writer_refuses_what_it_could_not_read_back(void)
{
    char *text = (char *)1;
    size_t len = 9;
    sc_error err;
    /* A non-finite number. */
    sc_json *a = sc_json_new_array();
    sc_json_array_append(a, sc_json_new_number(NAN));
    CU_ASSERT_EQUAL(sc_json_write(a, &text, &len, &err), SC_E_INVALID_JSON);
    CU_ASSERT_PTR_NULL(text);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "not finite"));
    sc_json_free(a);
    /* A string that is not UTF-8. */
    a = sc_json_new_string("\xC0\xAF");
    CU_ASSERT_EQUAL(sc_json_write(a, &text, &len, &err), SC_E_INVALID_JSON);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "UTF-8"));
    sc_json_free(a);
    /* Duplicate keys put there with _append, in small and large objects. */
    for (int size = 2; size <= 40; size += 38) {
        sc_json *o = sc_json_new_object();
        for (int i = 0; i < size; i++) {
            char k[16];
            snprintf(k, sizeof k, "k%d", i == size - 1 ? 0 : i);
            sc_json_object_append(o, k, sc_json_new_number(i));
        }
        CU_ASSERT_EQUAL(sc_json_write(o, &text, &len, &err), SC_E_INVALID_JSON);
        CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "duplicate key"));
        sc_json_free(o);
    }
    /* Nesting deeper than 64 (built, not parsed). */
    sc_json *root = sc_json_new_array();
    sc_json *cur = root;
    for (int i = 1; i < 64; i++) { /* 64 levels in all */
        sc_json *n = sc_json_new_array();
        sc_json_array_append(cur, n);
        cur = n;
    }
    CU_ASSERT_EQUAL(sc_json_write(root, &text, &len, &err), SC_OK); /* 64: fine */
    free(text);
    sc_json_array_append(cur, sc_json_new_array());                  /* 65 */
    CU_ASSERT_EQUAL(sc_json_write(root, &text, &len, &err), SC_E_INVALID_JSON);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "nesting"));
    sc_json_free(root);
}

static void test_write_then_parse_round_trips(void)
{
    const char src[] =
        "{\"schemaVersion\": 3, \"s\": \"a\\u0000\\u001f\\\"\\\\\\/\xE2\x82\xAC\", "
        "\"n\": [0, -0, 1.5, -2e-9, 1e300, 9007199254740991, 1e21], "
        "\"o\": {\"x\": {}, \"y\": [], \"z\": [null, true, false]}}";
    sc_json *v = PARSE_OK(src);
    char *text = NULL;
    size_t len = 0;
    sc_error err;
    CU_ASSERT_EQUAL(sc_json_write(v, &text, &len, &err), SC_OK);
    sc_json *again = NULL;
    CU_ASSERT_EQUAL(sc_json_parse(text, len, &again, &err), SC_OK);
    CU_ASSERT_TRUE(sc_json_equal(v, again));
    char *text2 = NULL;
    size_t len2 = 0;
    CU_ASSERT_EQUAL(sc_json_write(again, &text2, &len2, &err), SC_OK);
    CU_ASSERT_EQUAL(len, len2);
    CU_ASSERT_STRING_EQUAL(text, text2);
    CU_ASSERT_EQUAL(text[len - 1], '\n');
    free(text);
    free(text2);
    sc_json_free(again);
    sc_json_free(v);
}

static void test_write_file_is_atomic_with_mode(void)
{
    char *dir = sc_test_tmpdir();
    CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
    char *path = sc_path_join(dir, "out.json");
    sc_json *v = PARSE_OK("{\"a\": 1}");
    sc_error err;
    mode_t old = umask(0077);
    CU_ASSERT_EQUAL(sc_json_write_file(v, path, 0644, &err), SC_OK);
    umask(old);
    struct stat st;
    CU_ASSERT_EQUAL(stat(path, &st), 0);
    CU_ASSERT_EQUAL(st.st_mode & 07777, 0644);
    char *bytes = NULL;
    size_t len = 0;
    CU_ASSERT_EQUAL(sc_file_read(path, &bytes, &len, NULL, &err), SC_OK);
    CU_ASSERT_STRING_EQUAL(bytes, "{\n  \"a\": 1\n}\n");
    free(bytes);
    /* A tree the writer refuses leaves the old file alone. */
    sc_json_object_set(v, "a", sc_json_new_number(INFINITY));
    CU_ASSERT_EQUAL(sc_json_write_file(v, path, 0644, &err), SC_E_INVALID_JSON);
    CU_ASSERT_EQUAL(sc_file_read(path, &bytes, &len, NULL, &err), SC_OK);
    CU_ASSERT_STRING_EQUAL(bytes, "{\n  \"a\": 1\n}\n");
    free(bytes);
    sc_json_free(v);
    free(path);
    sc_test_rmtree(dir);
    free(dir);
}

/* ---- equality ------------------------------------------------------------------ */

static void test_equal_is_semantic(void)
{
    sc_json *a = PARSE_OK("{\"x\": 1, \"y\": [1, 2], \"z\": {\"p\": \"q\"}}");
    sc_json *b = PARSE_OK("{\"z\": {\"p\": \"q\"}, \"y\": [1, 2], \"x\": 1.0}");
    sc_json *c = PARSE_OK("{\"x\": 1, \"y\": [2, 1], \"z\": {\"p\": \"q\"}}");
    sc_json *d = PARSE_OK("{\"x\": 1, \"y\": [1, 2], \"z\": {\"p\": \"q\"}, \"w\": null}");
    sc_json *e = PARSE_OK("{\"x\": 1, \"y\": [1, 2], \"Z\": {\"p\": \"q\"}}");
    CU_ASSERT_TRUE(sc_json_equal(a, b));  /* member order ignored, 1 == 1.0 */
    CU_ASSERT_FALSE(sc_json_equal(a, c)); /* element order matters */
    CU_ASSERT_FALSE(sc_json_equal(a, d));
    CU_ASSERT_FALSE(sc_json_equal(d, a));
    CU_ASSERT_FALSE(sc_json_equal(a, e)); /* keys are case-sensitive */
    sc_json_free(a);
    sc_json_free(b);
    sc_json_free(c);
    sc_json_free(d);
    sc_json_free(e);

    a = PARSE_OK("[0, \"a\\u0000b\", true, null]");
    b = PARSE_OK("[-0, \"a\\u0000b\", true, null]");
    c = PARSE_OK("[0, \"a\\u0000c\", true, null]");
    d = PARSE_OK("[0, \"a\\u0000b\", 1, null]");
    CU_ASSERT_TRUE(sc_json_equal(a, b)); /* numbers by value: -0 == 0 */
    CU_ASSERT_FALSE(sc_json_equal(a, c)); /* strings by all bytes */
    CU_ASSERT_FALSE(sc_json_equal(a, d)); /* types must match */
    CU_ASSERT_TRUE(sc_json_equal(NULL, NULL));
    CU_ASSERT_FALSE(sc_json_equal(a, NULL));
    sc_json_free(a);
    sc_json_free(b);
    sc_json_free(c);
    sc_json_free(d);

    /* Large objects (sorted comparison) agree with small ones. */
    a = sc_json_new_object();
    b = sc_json_new_object();
    for (int i = 0; i < 50; i++) {
        char k[16];
        snprintf(k, sizeof k, "k%d", i);
        sc_json_object_append(a, k, sc_json_new_number(i));
        snprintf(k, sizeof k, "k%d", 49 - i);
        sc_json_object_append(b, k, sc_json_new_number(49 - i));
    }
    CU_ASSERT_TRUE(sc_json_equal(a, b));
    sc_json_object_set(b, "k7", sc_json_new_number(8));
    CU_ASSERT_FALSE(sc_json_equal(a, b));
    sc_json_free(a);
    sc_json_free(b);
}

/* ---- building -------------------------------------------------------------------- */

static void test_object_set_replaces_in_place_or_appends(void)
{
    sc_json *o = sc_json_new_object();
    CU_ASSERT_EQUAL(sc_json_object_append(o, "a", sc_json_new_number(1)), 0);
    CU_ASSERT_EQUAL(sc_json_object_append(o, "b", sc_json_new_number(2)), 0);
    CU_ASSERT_EQUAL(sc_json_object_append(o, "c", sc_json_new_number(3)), 0);
    CU_ASSERT_EQUAL(sc_json_object_set(o, "b", sc_json_new_string("two")), 0);
    CU_ASSERT_EQUAL(sc_json_object_set(o, "c", sc_json_new_bool(1)), 0);
    CU_ASSERT_EQUAL(sc_json_object_set(o, "d", sc_json_new_null()), 0);
    CU_ASSERT_EQUAL(o->length, 4);
    expect_written(o, "{\n  \"a\": 1,\n  \"b\": \"two\",\n  \"c\": true,\n  \"d\": null\n}\n",
                   __LINE__);
    CU_ASSERT_PTR_EQUAL(o->last, sc_json_get(o, "d"));
    /* Bad arguments free the value and fail. */
    CU_ASSERT_EQUAL(sc_json_object_set(NULL, "x", sc_json_new_null()), -1);
    CU_ASSERT_EQUAL(sc_json_object_append(o, NULL, sc_json_new_null()), -1);
    CU_ASSERT_EQUAL(sc_json_object_set(o, "x", NULL), -1);
    sc_json *arr = sc_json_new_array();
    CU_ASSERT_EQUAL(sc_json_object_append(arr, "x", sc_json_new_null()), -1);
    CU_ASSERT_EQUAL(sc_json_array_append(o, sc_json_new_null()), -1);
    sc_json_free(arr);
    sc_json_free(o);
}

static void test_object_remove_and_take(void)
{
    sc_json *o = PARSE_OK("{\"a\": 1, \"b\": [2], \"c\": 3}");
    sc_json *b = sc_json_object_take(o, "b");
    CU_ASSERT_PTR_NOT_NULL_FATAL(b);
    CU_ASSERT_PTR_NULL(b->key);
    CU_ASSERT_PTR_NULL(b->next);
    CU_ASSERT_EQUAL(o->length, 2);
    CU_ASSERT_EQUAL(sc_json_object_remove(o, "c"), 1);
    CU_ASSERT_EQUAL(sc_json_object_remove(o, "c"), 0);
    CU_ASSERT_PTR_NULL(sc_json_object_take(o, "zz"));
    CU_ASSERT_PTR_EQUAL(o->last, sc_json_get(o, "a"));
    CU_ASSERT_EQUAL(sc_json_object_append(o, "b", b), 0); /* re-home it */
    expect_written(o, "{\n  \"a\": 1,\n  \"b\": [\n    2\n  ]\n}\n", __LINE__);
    CU_ASSERT_EQUAL(sc_json_object_remove(o, "a"), 1);
    CU_ASSERT_EQUAL(sc_json_object_remove(o, "b"), 1);
    CU_ASSERT_PTR_NULL(o->child);
    CU_ASSERT_PTR_NULL(o->last);
    expect_written(o, "{}\n", __LINE__);
    sc_json_free(o);
}

static void test_copy_is_deep(void)
{
    sc_json *v = PARSE_OK("{\"a\": [1, {\"b\": \"c\\u0000d\"}], \"e\": true}");
    sc_json *c = sc_json_copy(v);
    CU_ASSERT_TRUE(sc_json_equal(v, c));
    CU_ASSERT_PTR_NULL(c->key);
    sc_json_object_set(sc_json_at(sc_json_get(v, "a"), 1), "b", sc_json_new_null());
    CU_ASSERT_FALSE(sc_json_equal(v, c));
    CU_ASSERT_EQUAL(sc_json_get(sc_json_at(sc_json_get(c, "a"), 1), "b")->length, 3);
    sc_json_free(v);
    sc_json_free(c);
    /* A member copied alone loses its key. */
    v = PARSE_OK("{\"k\": 5}");
    c = sc_json_copy(sc_json_get(v, "k"));
    CU_ASSERT_PTR_NULL(c->key);
    CU_ASSERT_PTR_NULL(c->next);
    sc_json_free(c);
    sc_json_free(v);
}

static void test_type_names_and_lookups(void)
{
    sc_json *v = PARSE_OK("[null, true, 1, \"s\", [], {}]");
    static const char *const names[] = {"null", "boolean", "number", "string",
                                        "array", "object"};
    for (size_t i = 0; i < 6; i++)
        CU_ASSERT_STRING_EQUAL(sc_json_type_name(sc_json_at(v, i)), names[i]);
    CU_ASSERT_PTR_NULL(sc_json_at(v, 6));
    CU_ASSERT_PTR_NULL(sc_json_get(v, "x")); /* not an object */
    CU_ASSERT_PTR_NULL(sc_json_cstr(sc_json_at(v, 2)));
    CU_ASSERT_FALSE(sc_json_is(NULL, SC_JSON_NULL));
    sc_json_free(v);
}

static void test_deep_built_tree_frees_without_recursion(void)
{
    /* 200000 levels: sc_json_free must not recurse. */
    sc_json *root = sc_json_new_array();
    sc_json *cur = root;
    for (int i = 0; i < 200000 && cur != NULL; i++) {
        sc_json *n = sc_json_new_array();
        if (n == NULL || sc_json_array_append(cur, n) != 0)
            break;
        cur = n;
    }
    sc_json_free(root);
    CU_PASS("freed");
}

void register_json_tests(void)
{
    CU_pSuite s = CU_add_suite("json", NULL, NULL);
    if (s == NULL)
        CU_FAIL_FATAL("CU_add_suite failed");
    SC_ADD_TEST(s, test_empty_input_is_invalid_json);
    SC_ADD_TEST(s, test_bom_is_invalid_json);
    SC_ADD_TEST(s, test_leading_zero_is_invalid_json);
    SC_ADD_TEST(s, test_plus_sign_is_invalid_json);
    SC_ADD_TEST(s, test_leading_dot_is_invalid_json);
    SC_ADD_TEST(s, test_trailing_dot_is_invalid_json);
    SC_ADD_TEST(s, test_exponent_without_digits_is_invalid_json);
    SC_ADD_TEST(s, test_nan_and_infinity_are_invalid_json);
    SC_ADD_TEST(s, test_comments_are_invalid_json);
    SC_ADD_TEST(s, test_single_quotes_are_invalid_json);
    SC_ADD_TEST(s, test_raw_control_character_in_string_is_invalid_json);
    SC_ADD_TEST(s, test_unescaped_quote_and_bad_escapes_are_invalid_json);
    SC_ADD_TEST(s, test_valid_escapes_decode);
    SC_ADD_TEST(s, test_invalid_utf8_is_invalid_json);
    SC_ADD_TEST(s, test_lone_surrogate_escape_is_invalid_json);
    SC_ADD_TEST(s, test_surrogate_pair_escape_decodes);
    SC_ADD_TEST(s, test_literals_must_be_exact);
    SC_ADD_TEST(s, test_only_json_whitespace_is_skipped);
    SC_ADD_TEST(s, test_trailing_characters_are_invalid_json);
    SC_ADD_TEST(s, test_trailing_comma_is_invalid_json);
    SC_ADD_TEST(s, test_unterminated_containers_are_invalid_json);
    SC_ADD_TEST(s, test_top_level_scalars_are_accepted);
    SC_ADD_TEST(s, test_duplicate_key_is_invalid_json);
    SC_ADD_TEST(s, test_duplicate_key_comparison_is_bytewise_after_unescaping);
    SC_ADD_TEST(s, test_keys_are_case_sensitive);
    SC_ADD_TEST(s, test_duplicate_key_in_large_object_is_invalid_json);
    SC_ADD_TEST(s, test_member_order_is_kept);
    SC_ADD_TEST(s, test_strings_may_hold_nul);
    SC_ADD_TEST(s, test_nesting_64_accepted_65_rejected);
    SC_ADD_TEST(s, test_envelope_depth_72_only_where_asked);
    SC_ADD_TEST(s, test_number_overflowing_double_is_invalid_json);
    SC_ADD_TEST(s, test_integer_above_2_53_minus_1_rejected);
    SC_ADD_TEST(s, test_number_values_are_exact);
    SC_ADD_TEST(s, test_is_integer_reflects_the_literal);
    SC_ADD_TEST(s, test_uint53_accepts_only_integer_literals_in_range);
    SC_ADD_TEST(s, test_parse_is_locale_independent);
    SC_ADD_TEST(s, test_error_message_has_byte_offset);
    SC_ADD_TEST(s, test_parse_file_names_the_file);
    SC_ADD_TEST(s, test_writer_layout_is_two_space_lf_key_colon_space);
    SC_ADD_TEST(s, test_writer_writes_empty_containers_as_brackets);
    SC_ADD_TEST(s, test_writer_escapes_like_json_stringify);
    SC_ADD_TEST(s, test_number_format_matches_ecmascript);
    SC_ADD_TEST(s, test_number_format_round_trips_shortest);
    SC_ADD_TEST(s, test_writer_uses_exponent_form_from_2_53_so_text_reads_back);
    SC_ADD_TEST(s, test_compact_writer_has_no_whitespace);
    SC_ADD_TEST(s, test_writer_refuses_what_it_could_not_read_back);
    SC_ADD_TEST(s, test_write_then_parse_round_trips);
    SC_ADD_TEST(s, test_write_file_is_atomic_with_mode);
    SC_ADD_TEST(s, test_equal_is_semantic);
    SC_ADD_TEST(s, test_object_set_replaces_in_place_or_appends);
    SC_ADD_TEST(s, test_object_remove_and_take);
    SC_ADD_TEST(s, test_copy_is_deep);
    SC_ADD_TEST(s, test_type_names_and_lookups);
    SC_ADD_TEST(s, test_deep_built_tree_frees_without_recursion);
}
