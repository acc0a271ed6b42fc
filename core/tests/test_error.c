/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_error.c — the error-code enum, its names, docs/errors.md and the
 * error object.
 */
#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scrollcase/error.h"
#include "scrollcase/path.h"
#include "scrollcase/file.h"

#ifndef SC_SOURCE_DIR
#error "SC_SOURCE_DIR must be defined for the unit tests"
#endif

static int is_kebab(const char *s)
{
    /* ^[a-z0-9]+(-[a-z0-9]+)*$ */
    if (s == NULL || *s == '\0')
        return 0;
    for (;;) {
        if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9')))
            return 0;
        while ((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9'))
            s++;
        if (*s == '\0')
            return 1;
        if (*s != '-')
            return 0;
        s++;
    }
}

static void test_every_code_has_unique_kebab_case_name(void)
{
    size_t n = sc_code_count();
    CU_ASSERT_EQUAL(n, (size_t)SC_CODE_COUNT_);
    CU_ASSERT_TRUE(n > 1);
    for (size_t i = 0; i < n; i++) {
        const char *a = sc_code_name((sc_code)i);
        if (!is_kebab(a))
            fprintf(stderr, "\n  code %zu name \"%s\" is not kebab-case\n", i, a ? a : "(none)");
        CU_ASSERT_TRUE(is_kebab(a));
        for (size_t j = i + 1; j < n; j++) {
            if (strcmp(a, sc_code_name((sc_code)j)) == 0)
                fprintf(stderr, "\n  codes %zu and %zu share the name \"%s\"\n", i, j, a);
            CU_ASSERT_STRING_NOT_EQUAL(a, sc_code_name((sc_code)j));
        }
    }
    CU_ASSERT_STRING_EQUAL(sc_code_name(SC_OK), "ok");
    CU_ASSERT_STRING_EQUAL(sc_code_name(SC_E_INVALID_JSON), "invalid-json");
    CU_ASSERT_STRING_EQUAL(sc_code_name(SC_E_UNSAFE_PATH), "unsafe-path");
}

static void test_code_from_name_round_trips(void)
{
    for (size_t i = 0; i < sc_code_count(); i++)
        CU_ASSERT_EQUAL(sc_code_from_name(sc_code_name((sc_code)i)), (sc_code)i);
}

static void test_unknown_names_and_codes_are_refused(void)
{
    CU_ASSERT_EQUAL(sc_code_from_name("no-such-code"), SC_CODE_COUNT_);
    CU_ASSERT_EQUAL(sc_code_from_name("Invalid-Json"), SC_CODE_COUNT_);
    CU_ASSERT_EQUAL(sc_code_from_name(""), SC_CODE_COUNT_);
    CU_ASSERT_EQUAL(sc_code_from_name(NULL), SC_CODE_COUNT_);
    CU_ASSERT_STRING_EQUAL(sc_code_name(SC_CODE_COUNT_), "internal");
    CU_ASSERT_STRING_EQUAL(sc_code_name((sc_code)-1), "internal");
}

/* docs/errors.md has one table row per code: a line starting "| `<code>` |". */
static void test_errors_md_lists_every_code(void)
{
    const char *path = SC_SOURCE_DIR "/docs/errors.md";
    char *doc = NULL;
    size_t len = 0;
    sc_error err;
    sc_code rc = sc_file_read(path, &doc, &len, NULL, &err);
    if (rc != SC_OK)
        fprintf(stderr, "\n  %s\n", err.message);
    CU_ASSERT_EQUAL_FATAL(rc, SC_OK);
    for (size_t i = 0; i < sc_code_count(); i++) {
        char row[128];
        snprintf(row, sizeof row, "| `%s` |", sc_code_name((sc_code)i));
        size_t rl = strlen(row);
        int found = 0;
        /* Look at line starts only. */
        for (const char *line = doc; line != NULL && !found;) {
            if (strncmp(line, row, rl) == 0)
                found = 1;
            const char *nl = strchr(line, '\n');
            line = nl ? nl + 1 : NULL;
        }
        if (!found)
            fprintf(stderr, "\n  docs/errors.md has no row \"%s\"\n", row);
        CU_ASSERT_TRUE(found);
    }
    free(doc);
}

static void test_messages_are_one_line(void)
{
    sc_error err;
    CU_ASSERT_EQUAL(sc_error_set(&err, SC_E_IO, "a\nb", "x\ny\r%s\t%c", "z\n", 0x7f),
                    SC_E_IO);
    CU_ASSERT_EQUAL(err.code, SC_E_IO);
    CU_ASSERT_STRING_EQUAL(err.message, "x?y?z???");
    CU_ASSERT_STRING_EQUAL(err.path, "a?b");
    sc_error_prefix(&err, "file\n.json");
    CU_ASSERT_STRING_EQUAL(err.message, "file?.json: x?y?z???");
    for (const char *m = err.message; *m; m++)
        CU_ASSERT_TRUE((unsigned char)*m >= 0x20 && *m != 0x7f);
}

static void test_error_set_truncates_and_never_overflows(void)
{
    sc_error err;
    char big[SC_ERROR_MESSAGE_MAX * 3];
    memset(big, 'm', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    char bigpath[SC_ERROR_PATH_MAX * 2];
    memset(bigpath, 'p', sizeof bigpath - 1);
    bigpath[sizeof bigpath - 1] = '\0';
    sc_error_set(&err, SC_E_INTERNAL, bigpath, "%s", big);
    CU_ASSERT_EQUAL(strlen(err.message), SC_ERROR_MESSAGE_MAX - 1);
    CU_ASSERT_EQUAL(strlen(err.path), SC_ERROR_PATH_MAX - 1);
    sc_error_prefix(&err, "pre");
    CU_ASSERT_EQUAL(strlen(err.message), SC_ERROR_MESSAGE_MAX - 1);
    CU_ASSERT_EQUAL(strncmp(err.message, "pre: mmm", 8), 0);
}

/* A message or path cut at its buffer's end by the bound keeps its last
 * character whole: valid UTF-8 in, valid UTF-8 out, for every cut (each of
 * the four offsets at which a run of 2-, 3- and 4-byte characters can
 * meet the bound). */
static void test_a_cut_message_keeps_whole_characters(void)
{
    static const char *const chars[] = {"\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x93\xa6"};
    for (size_t c = 0; c < 3; c++) {
        size_t w = strlen(chars[c]);
        for (size_t shift = 0; shift < 4; shift++) {
            char text[SC_ERROR_PATH_MAX * 2];
            size_t n = 0;
            for (; n < shift; n++)
                text[n] = 'a';
            while (n + w < sizeof text) {
                memcpy(text + n, chars[c], w);
                n += w;
            }
            text[n] = '\0';
            sc_error err;
            sc_error_set(&err, SC_E_INVALID_LOCK, text, "%s", text);
            CU_ASSERT_TRUE(sc_utf8_valid(err.message, strlen(err.message)));
            CU_ASSERT_TRUE(sc_utf8_valid(err.path, strlen(err.path)));
            /* only the cut character goes: at most w - 1 bytes short */
            CU_ASSERT_TRUE(strlen(err.message) + w - 1 >= SC_ERROR_MESSAGE_MAX - 1);
            CU_ASSERT_TRUE(strlen(err.path) + w - 1 >= SC_ERROR_PATH_MAX - 1);
            sc_error_prefix(&err, "\xe2\x82\xac");
            CU_ASSERT_TRUE(sc_utf8_valid(err.message, strlen(err.message)));
        }
    }
    /* Text that was already broken is not the cut's business: a stray
     * continuation byte in the middle stays as it was. */
    sc_error err;
    sc_error_set(&err, SC_E_IO, NULL, "a\x80" "b");
    CU_ASSERT_STRING_EQUAL(err.message, "a\x80" "b");
}

static void test_error_clear_and_null_error(void)
{
    sc_error err;
    sc_error_set(&err, SC_E_USAGE, "p", "m");
    sc_error_clear(&err);
    CU_ASSERT_EQUAL(err.code, SC_OK);
    CU_ASSERT_STRING_EQUAL(err.message, "");
    CU_ASSERT_STRING_EQUAL(err.path, "");
    /* A NULL error object is allowed everywhere. */
    sc_error_clear(NULL);
    CU_ASSERT_EQUAL(sc_error_set(NULL, SC_E_TIMEOUT, NULL, "x"), SC_E_TIMEOUT);
    sc_error_prefix(NULL, "x");
    sc_error_set(&err, SC_E_USAGE, NULL, "m");
    CU_ASSERT_STRING_EQUAL(err.path, "");
    sc_error_prefix(&err, "");
    CU_ASSERT_STRING_EQUAL(err.message, "m");
}

void register_error_tests(void)
{
    CU_pSuite s = CU_add_suite("error", NULL, NULL);
    if (s == NULL)
        CU_FAIL_FATAL("CU_add_suite failed");
    SC_ADD_TEST(s, test_every_code_has_unique_kebab_case_name);
    SC_ADD_TEST(s, test_code_from_name_round_trips);
    SC_ADD_TEST(s, test_unknown_names_and_codes_are_refused);
    SC_ADD_TEST(s, test_errors_md_lists_every_code);
    SC_ADD_TEST(s, test_messages_are_one_line);
    SC_ADD_TEST(s, test_error_set_truncates_and_never_overflows);
    SC_ADD_TEST(s, test_a_cut_message_keeps_whole_characters);
    SC_ADD_TEST(s, test_error_clear_and_null_error);
}
