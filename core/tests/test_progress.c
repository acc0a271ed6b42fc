/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_progress.c — sizes for people (progress.h): the exact byte count
 * always beside the rounded one.
 */
#include <string.h>

#include "harness.h"
#include "scrollcase/progress.h"

static void progress_sizes_carry_the_exact_bytes(void)
{
    char b[64];
    sc_progress_human_size(0, b, sizeof b);
    CU_ASSERT_STRING_EQUAL(b, "0 bytes");
    sc_progress_human_size(1023, b, sizeof b);
    CU_ASSERT_STRING_EQUAL(b, "1023 bytes");
    sc_progress_human_size(1536, b, sizeof b);
    CU_ASSERT_STRING_EQUAL(b, "1.5 KiB (1536 bytes)");
    sc_progress_human_size(2147483648ULL, b, sizeof b);
    CU_ASSERT_STRING_EQUAL(b, "2.0 GiB (2147483648 bytes)");
    sc_progress_human_size(18446744073709551615ULL, b, sizeof b);
    CU_ASSERT_STRING_EQUAL(b, "16.0 EiB (18446744073709551615 bytes)");
}

static void progress_short_sizes_round_to_one_decimal(void)
{
    char b[32];
    sc_progress_short_size(512, b, sizeof b);
    CU_ASSERT_STRING_EQUAL(b, "512 B");
    sc_progress_short_size(5 * 1024 * 1024 + 512 * 1024, b, sizeof b);
    CU_ASSERT_STRING_EQUAL(b, "5.5 MiB");
    char tiny[4];
    CU_ASSERT_EQUAL(sc_progress_short_size(1536, tiny, sizeof tiny), strlen("1.5 KiB"));
    CU_ASSERT_EQUAL(tiny[3], '\0');
}

void register_progress_tests(void)
{
    CU_pSuite s = CU_add_suite("progress", NULL, NULL);
    if (s == NULL)
        CU_FAIL_FATAL("CU_add_suite failed");
    SC_ADD_TEST(s, progress_sizes_carry_the_exact_bytes);
    SC_ADD_TEST(s, progress_short_sizes_round_to_one_decimal);
}
