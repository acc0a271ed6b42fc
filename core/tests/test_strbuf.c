/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_strbuf.c — the growable buffer (strbuf.h): appends, the terminator,
 * detach, insert, and the overflow guard on doubling.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "scrollcase/strbuf.h"

static void strbuf_appends_bytes_strings_and_printf(void)
{
    sc_strbuf b = SC_STRBUF_INIT;
    CU_ASSERT_EQUAL(sc_strbuf_adds(&b, "abc"), SC_OK);
    CU_ASSERT_EQUAL(sc_strbuf_add(&b, "d\0e", 3), SC_OK);
    CU_ASSERT_EQUAL(sc_strbuf_addc(&b, 'f'), SC_OK);
    CU_ASSERT_EQUAL(sc_strbuf_printf(&b, "-%d-%s", 42, "x"), SC_OK);
    CU_ASSERT_EQUAL(b.len, 12);
    CU_ASSERT(memcmp(b.p, "abcd\0ef-42-x", 13) == 0);
    CU_ASSERT_EQUAL(b.p[b.len], '\0');
    sc_strbuf_free(&b);
    CU_ASSERT_PTR_NULL(b.p);
    CU_ASSERT_EQUAL(b.len, 0);
}

static void strbuf_grows_past_many_doublings(void)
{
    sc_strbuf b;
    sc_strbuf_init(&b);
    char chunk[1000];
    memset(chunk, 'z', sizeof chunk);
    for (int i = 0; i < 300; i++)
        CU_ASSERT_EQUAL_FATAL(sc_strbuf_add(&b, chunk, sizeof chunk), SC_OK);
    CU_ASSERT_EQUAL(b.len, 300000);
    CU_ASSERT(b.cap > b.len);
    CU_ASSERT_EQUAL(b.p[299999], 'z');
    CU_ASSERT_EQUAL(b.p[300000], '\0');
    /* a long printf crosses the capacity in one go */
    CU_ASSERT_EQUAL(sc_strbuf_printf(&b, "%5000s", "q"), SC_OK);
    CU_ASSERT_EQUAL(b.len, 305000);
    CU_ASSERT_EQUAL(b.p[304999], 'q');
    sc_strbuf_free(&b);
}

static void strbuf_insert_and_truncate(void)
{
    sc_strbuf b = SC_STRBUF_INIT;
    CU_ASSERT_EQUAL(sc_strbuf_adds(&b, "hello world"), SC_OK);
    CU_ASSERT_EQUAL(sc_strbuf_insert(&b, 5, ",", 1), SC_OK);
    CU_ASSERT_STRING_EQUAL(b.p, "hello, world");
    CU_ASSERT_EQUAL(sc_strbuf_insert(&b, 0, ">", 1), SC_OK);
    CU_ASSERT_EQUAL(sc_strbuf_insert(&b, b.len, "<", 1), SC_OK);
    CU_ASSERT_STRING_EQUAL(b.p, ">hello, world<");
    sc_strbuf_truncate(&b, 6);
    CU_ASSERT_STRING_EQUAL(b.p, ">hello");
    CU_ASSERT_EQUAL(b.len, 6);
    sc_strbuf_free(&b);
}

static void strbuf_detach_hands_over_and_resets(void)
{
    sc_strbuf b = SC_STRBUF_INIT;
    size_t n = 99;
    char *empty = sc_strbuf_detach(&b, &n);
    CU_ASSERT_PTR_NOT_NULL_FATAL(empty);
    CU_ASSERT_STRING_EQUAL(empty, "");
    CU_ASSERT_EQUAL(n, 0);
    free(empty);
    CU_ASSERT_EQUAL(sc_strbuf_adds(&b, "kept"), SC_OK);
    char *s = sc_strbuf_detach(&b, &n);
    CU_ASSERT_STRING_EQUAL(s, "kept");
    CU_ASSERT_EQUAL(n, 4);
    CU_ASSERT_PTR_NULL(b.p);
    CU_ASSERT_EQUAL(b.len, 0);
    CU_ASSERT_EQUAL(b.cap, 0);
    free(s);
}

static void strbuf_doubling_refuses_overflow(void)
{
    /* The doubling stops with 0 instead of wrapping around. */
    CU_ASSERT_EQUAL(sc_strbuf_grown_capacity(0, 10), 64);
    CU_ASSERT_EQUAL(sc_strbuf_grown_capacity(64, 65), 128);
    CU_ASSERT_EQUAL(sc_strbuf_grown_capacity(SIZE_MAX / 2 + 1, SIZE_MAX), 0);
    CU_ASSERT_EQUAL(sc_strbuf_grown_capacity(64, SIZE_MAX), 0);
    CU_ASSERT_EQUAL(sc_strbuf_grown_capacity(SIZE_MAX / 4 + 1, SIZE_MAX / 2 + 1),
                    SIZE_MAX / 2 + 1);
    /* A request whose size cannot be represented fails and changes nothing. */
    sc_strbuf b = SC_STRBUF_INIT;
    CU_ASSERT_EQUAL(sc_strbuf_adds(&b, "ab"), SC_OK);
    char *p = b.p;
    size_t cap = b.cap;
    CU_ASSERT_EQUAL(sc_strbuf_reserve(&b, SIZE_MAX - 1), SC_E_OUT_OF_MEMORY);
    CU_ASSERT_EQUAL(sc_strbuf_reserve(&b, SIZE_MAX), SC_E_OUT_OF_MEMORY);
    CU_ASSERT_EQUAL(sc_strbuf_add(&b, "x", SIZE_MAX - 2), SC_E_OUT_OF_MEMORY);
    CU_ASSERT_PTR_EQUAL(b.p, p);
    CU_ASSERT_EQUAL(b.cap, cap);
    CU_ASSERT_EQUAL(b.len, 2);
    CU_ASSERT_STRING_EQUAL(b.p, "ab");
    sc_strbuf_free(&b);
}

void register_strbuf_tests(void)
{
    CU_pSuite s = CU_add_suite("strbuf", NULL, NULL);
    if (s == NULL)
        CU_FAIL_FATAL("CU_add_suite failed");
    SC_ADD_TEST(s, strbuf_appends_bytes_strings_and_printf);
    SC_ADD_TEST(s, strbuf_grows_past_many_doublings);
    SC_ADD_TEST(s, strbuf_insert_and_truncate);
    SC_ADD_TEST(s, strbuf_detach_hands_over_and_resets);
    SC_ADD_TEST(s, strbuf_doubling_refuses_overflow);
}
