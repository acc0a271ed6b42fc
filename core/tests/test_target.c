/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_target.c — docs/format-v3.md section 4 (targets), black-box.
 *
 * One test per rule: the matrix rows and their derived facts (4.1, 4.3), the
 * checks of a target object in their order (4.2), the cudaVersion full match,
 * the id and its parsing, and the absence of any dependence on the host.
 */
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "scrollcase/error.h"
#include "scrollcase/json.h"
#include "scrollcase/target.h"

/* ---- helpers ---------------------------------------------------------- */

/* Assert a code, printing the error on mismatch; reports the caller's line. */
static void expect_code_at(sc_code got, sc_code want, const sc_error *err,
                           const char *what, int line)
{
    if (got != want)
        fprintf(stderr, "\n  line %d (%s): got %s, want %s: %s\n", line, what,
                sc_code_name(got), sc_code_name(want),
                err ? err->message : "");
    CU_assertImplementation(got == want, (unsigned)line, "code as expected",
                            __FILE__, "", CU_FALSE);
}
#define EXPECT_CODE(got, want, err, what) \
    expect_code_at((got), (want), (err), (what), __LINE__)

/* Parse a target object from JSON text and read it with field "$.target". */
static sc_code target_from_text(const char *text, sc_target *t, sc_error *err)
{
    sc_json *v = NULL;
    sc_error perr;
    sc_error_clear(&perr);
    sc_error_clear(err);
    if (sc_json_parse(text, strlen(text), &v, &perr) != SC_OK) {
        fprintf(stderr, "\n  test JSON does not parse: %s (%s)\n", text,
                perr.message);
        CU_FAIL("test JSON does not parse");
        return SC_E_INTERNAL;
    }
    sc_target tmp;
    memset(&tmp, 0, sizeof tmp);
    sc_code c = sc_target_from_json(v, "$.target", t ? t : &tmp, err);
    sc_json_free(v);
    return c;
}

#define EXPECT_TARGET(text, want)                                          \
    do {                                                                   \
        sc_error e_;                                                       \
        sc_target t_;                                                      \
        sc_code c_ = target_from_text((text), &t_, &e_);                   \
        expect_code_at(c_, (want), &e_, (text), __LINE__);                 \
    } while (0)

static sc_target mk(sc_platform p, sc_arch a, sc_accel acc, const char *cuda)
{
    sc_target t;
    memset(&t, 0, sizeof t);
    t.platform = p;
    t.arch = a;
    t.accelerator = acc;
    if (cuda != NULL)
        snprintf(t.cuda_version, sizeof t.cuda_version, "%s", cuda);
    return t;
}

static void expect_id(const sc_target *t, const char *want)
{
    char buf[SC_TARGET_ID_MAX];
    sc_target_id(t, buf, sizeof buf);
    CU_ASSERT_STRING_EQUAL(buf, want);
}

static void expect_str(const char *got, const char *want)
{
    CU_ASSERT_PTR_NOT_NULL_FATAL(got);
    CU_ASSERT_STRING_EQUAL(got, want);
}

/* The variables of 4.3 that every target removes. */
static const char *const common_vars[] = {"PYTHONPATH", "PYTHONHOME",
                                          "PYTHONSTARTUP", "PYTHONBREAKPOINT"};

static void expect_vars(const sc_target *t, const char *extra)
{
    const char *const *v = sc_target_execution_affecting_variables(t);
    CU_ASSERT_PTR_NOT_NULL_FATAL(v);
    size_t n = 0;
    while (v[n] != NULL)
        n++;
    CU_ASSERT_EQUAL(n, 4 + (extra != NULL));
    for (size_t i = 0; i < 4 && i < n; i++)
        CU_ASSERT_STRING_EQUAL(v[i], common_vars[i]);
    if (extra != NULL && n == 5)
        CU_ASSERT_STRING_EQUAL(v[4], extra);
}

static void expect_env(const sc_target *t, const char *name, const char *value)
{
    size_t n = 0;
    const sc_env_pair *p = sc_target_validation_environment(t, &n);
    CU_ASSERT_EQUAL_FATAL(n, 1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    CU_ASSERT_STRING_EQUAL(p[0].name, name);
    CU_ASSERT_STRING_EQUAL(p[0].value, value);
}

/* Every valid id we know of: the six accelerators, plus more CUDA versions. */
static const char *const valid_ids[] = {
    "macos-aarch64-metal",   "macos-aarch64-cpu",     "linux-x86_64-cpu",
    "linux-x86_64-cuda12.4", "linux-x86_64-cuda11.8", "linux-x86_64-cuda12.04",
    "linux-x86_64-cuda10.0", "windows-x86_64-cpu",    "windows-x86_64-cuda12.4",
    "windows-x86_64-cuda13.1",
};

/* ---- 4.1 the matrix and 4.3 derived facts ----------------------------- */

static void matrix_row_macos_aarch64(void)
{
    sc_error err;
    sc_target metal = mk(SC_PLATFORM_MACOS, SC_ARCH_AARCH64, SC_ACCEL_METAL, NULL);
    sc_target cpu = mk(SC_PLATFORM_MACOS, SC_ARCH_AARCH64, SC_ACCEL_CPU, NULL);
    EXPECT_CODE(sc_target_check(&metal, "$", &err), SC_OK, &err, "metal");
    EXPECT_CODE(sc_target_check(&cpu, "$", &err), SC_OK, &err, "cpu");
    expect_id(&metal, "macos-aarch64-metal");
    expect_id(&cpu, "macos-aarch64-cpu");
    const sc_target *both[] = {&metal, &cpu};
    for (int i = 0; i < 2; i++) {
        const sc_target *t = both[i];
        expect_str(sc_target_adapter_id(t), "macos-aarch64");
        expect_str(sc_target_conda_subdir(t), "osx-arm64");
        expect_str(sc_target_payload_root(t), "venv");
        expect_str(sc_target_python_entry_point(t), "venv/bin/python");
        expect_str(sc_target_scripts_dir(t), "venv/bin");
        expect_str(sc_target_exe_suffix(t), "");
        expect_str(sc_target_launcher_kind(t), "posix-polyglot");
    }
}

static void matrix_row_linux_x86_64(void)
{
    sc_error err;
    sc_target cpu = mk(SC_PLATFORM_LINUX, SC_ARCH_X86_64, SC_ACCEL_CPU, NULL);
    sc_target cuda = mk(SC_PLATFORM_LINUX, SC_ARCH_X86_64, SC_ACCEL_CUDA, "12.4");
    EXPECT_CODE(sc_target_check(&cpu, "$", &err), SC_OK, &err, "cpu");
    EXPECT_CODE(sc_target_check(&cuda, "$", &err), SC_OK, &err, "cuda");
    expect_id(&cpu, "linux-x86_64-cpu");
    expect_id(&cuda, "linux-x86_64-cuda12.4");
    const sc_target *both[] = {&cpu, &cuda};
    for (int i = 0; i < 2; i++) {
        const sc_target *t = both[i];
        expect_str(sc_target_adapter_id(t), "linux-x86_64");
        expect_str(sc_target_conda_subdir(t), "linux-64");
        expect_str(sc_target_payload_root(t), "venv");
        expect_str(sc_target_python_entry_point(t), "venv/bin/python");
        expect_str(sc_target_scripts_dir(t), "venv/bin");
        expect_str(sc_target_exe_suffix(t), "");
        expect_str(sc_target_launcher_kind(t), "posix-polyglot");
    }
}

static void matrix_row_windows_x86_64(void)
{
    sc_error err;
    sc_target cpu = mk(SC_PLATFORM_WINDOWS, SC_ARCH_X86_64, SC_ACCEL_CPU, NULL);
    sc_target cuda = mk(SC_PLATFORM_WINDOWS, SC_ARCH_X86_64, SC_ACCEL_CUDA, "11.8");
    EXPECT_CODE(sc_target_check(&cpu, "$", &err), SC_OK, &err, "cpu");
    EXPECT_CODE(sc_target_check(&cuda, "$", &err), SC_OK, &err, "cuda");
    expect_id(&cpu, "windows-x86_64-cpu");
    expect_id(&cuda, "windows-x86_64-cuda11.8");
    const sc_target *both[] = {&cpu, &cuda};
    for (int i = 0; i < 2; i++) {
        const sc_target *t = both[i];
        expect_str(sc_target_adapter_id(t), "windows-x86_64");
        expect_str(sc_target_conda_subdir(t), "win-64");
        expect_str(sc_target_payload_root(t), "venv");
        expect_str(sc_target_python_entry_point(t), "venv/python.exe");
        expect_str(sc_target_scripts_dir(t), "venv/Scripts");
        expect_str(sc_target_exe_suffix(t), ".exe");
        expect_str(sc_target_launcher_kind(t), "uv-windows-pe");
    }
}

/* Nothing outside the matrix has an id: every other triple is unsupported. */
static void matrix_is_closed(void)
{
    int supported = 0;
    for (int p = 0; p < 3; p++)
        for (int a = 0; a < 2; a++)
            for (int acc = 0; acc < 3; acc++) {
                sc_error err;
                sc_target t = mk((sc_platform)p, (sc_arch)a, (sc_accel)acc,
                                 acc == SC_ACCEL_CUDA ? "12.4" : NULL);
                sc_code c = sc_target_check(&t, "$", &err);
                if (c == SC_OK)
                    supported++;
                else
                    EXPECT_CODE(c, SC_E_UNSUPPORTED_TARGET, &err, "off-matrix");
            }
    CU_ASSERT_EQUAL(supported, 6);
}

static void derived_self_test_assertion(void)
{
    sc_target m = mk(SC_PLATFORM_MACOS, SC_ARCH_AARCH64, SC_ACCEL_METAL, NULL);
    sc_target l = mk(SC_PLATFORM_LINUX, SC_ARCH_X86_64, SC_ACCEL_CUDA, "12.4");
    sc_target w = mk(SC_PLATFORM_WINDOWS, SC_ARCH_X86_64, SC_ACCEL_CPU, NULL);
    expect_str(sc_target_self_test_assertion(&m),
               "import sys; assert sys.platform == 'darwin'");
    expect_str(sc_target_self_test_assertion(&l),
               "import sys; assert sys.platform.startswith('linux')");
    expect_str(sc_target_self_test_assertion(&w),
               "import sys; assert sys.platform == 'win32'");
}

static void derived_validation_environment(void)
{
    sc_target cpu = mk(SC_PLATFORM_WINDOWS, SC_ARCH_X86_64, SC_ACCEL_CPU, NULL);
    sc_target mcpu = mk(SC_PLATFORM_MACOS, SC_ARCH_AARCH64, SC_ACCEL_CPU, NULL);
    sc_target cuda = mk(SC_PLATFORM_LINUX, SC_ARCH_X86_64, SC_ACCEL_CUDA, "12.4");
    sc_target metal = mk(SC_PLATFORM_MACOS, SC_ARCH_AARCH64, SC_ACCEL_METAL, NULL);
    expect_env(&cpu, "CUDA_VISIBLE_DEVICES", "");
    expect_env(&mcpu, "CUDA_VISIBLE_DEVICES", "");
    expect_env(&cuda, "CUDA_VISIBLE_DEVICES", "0");
    expect_env(&metal, "PYTORCH_ENABLE_MPS_FALLBACK", "0");
}

static void derived_execution_affecting_variables(void)
{
    sc_target m = mk(SC_PLATFORM_MACOS, SC_ARCH_AARCH64, SC_ACCEL_CPU, NULL);
    sc_target l = mk(SC_PLATFORM_LINUX, SC_ARCH_X86_64, SC_ACCEL_CPU, NULL);
    sc_target w = mk(SC_PLATFORM_WINDOWS, SC_ARCH_X86_64, SC_ACCEL_CUDA, "12.4");
    expect_vars(&m, "DYLD_INSERT_LIBRARIES");
    expect_vars(&l, "LD_PRELOAD");
    expect_vars(&w, NULL);
}

/* ---- 4.2 the target object, rule by rule ------------------------------ */

static void rule1_not_an_object(void)
{
    EXPECT_TARGET("[]", SC_E_INVALID_TARGET);
    EXPECT_TARGET("\"linux-x86_64-cpu\"", SC_E_INVALID_TARGET);
    EXPECT_TARGET("null", SC_E_INVALID_TARGET);
    EXPECT_TARGET("3", SC_E_INVALID_TARGET);
    EXPECT_TARGET("[{\"platform\":\"linux\",\"arch\":\"x86_64\",\"accelerator\":\"cpu\"}]",
                  SC_E_INVALID_TARGET);
}

static void rule2_no_other_member(void)
{
    EXPECT_TARGET("{\"platform\":\"linux\",\"arch\":\"x86_64\",\"accelerator\":\"cpu\","
                  "\"os\":\"linux\"}",
                  SC_E_INVALID_TARGET);
    /* keys are case-sensitive: "Platform" is another member */
    EXPECT_TARGET("{\"platform\":\"linux\",\"arch\":\"x86_64\",\"accelerator\":\"cpu\","
                  "\"Platform\":\"linux\"}",
                  SC_E_INVALID_TARGET);
}

static void rule2_message_names_the_member(void)
{
    sc_error err;
    sc_target t;
    sc_code c = target_from_text(
        "{\"platform\":\"linux\",\"arch\":\"x86_64\",\"accelerator\":\"cpu\",\"gpu\":1}",
        &t, &err);
    EXPECT_CODE(c, SC_E_INVALID_TARGET, &err, "gpu member");
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "gpu"));
}

static void rule3_members_present(void)
{
    EXPECT_TARGET("{\"arch\":\"x86_64\",\"accelerator\":\"cpu\"}", SC_E_INVALID_TARGET);
    EXPECT_TARGET("{\"platform\":\"linux\",\"accelerator\":\"cpu\"}", SC_E_INVALID_TARGET);
    EXPECT_TARGET("{\"platform\":\"linux\",\"arch\":\"x86_64\"}", SC_E_INVALID_TARGET);
    EXPECT_TARGET("{}", SC_E_INVALID_TARGET);
}

static void rule3_members_are_strings(void)
{
    EXPECT_TARGET("{\"platform\":1,\"arch\":\"x86_64\",\"accelerator\":\"cpu\"}",
                  SC_E_INVALID_TARGET);
    EXPECT_TARGET("{\"platform\":\"linux\",\"arch\":[\"x86_64\"],\"accelerator\":\"cpu\"}",
                  SC_E_INVALID_TARGET);
    EXPECT_TARGET("{\"platform\":\"linux\",\"arch\":\"x86_64\",\"accelerator\":null}",
                  SC_E_INVALID_TARGET);
    EXPECT_TARGET("{\"platform\":\"linux\",\"arch\":\"x86_64\",\"accelerator\":\"cuda\","
                  "\"cudaVersion\":12.4}",
                  SC_E_INVALID_TARGET);
}

/* cudaVersion: null is not absent. */
static void rule3_cuda_version_null_is_not_absent(void)
{
    EXPECT_TARGET("{\"platform\":\"linux\",\"arch\":\"x86_64\",\"accelerator\":\"cpu\","
                  "\"cudaVersion\":null}",
                  SC_E_INVALID_TARGET);
}

static void rule4_triple_in_matrix(void)
{
    EXPECT_TARGET("{\"platform\":\"linux\",\"arch\":\"aarch64\",\"accelerator\":\"cpu\"}",
                  SC_E_UNSUPPORTED_TARGET);
    EXPECT_TARGET("{\"platform\":\"macos\",\"arch\":\"x86_64\",\"accelerator\":\"cpu\"}",
                  SC_E_UNSUPPORTED_TARGET);
    EXPECT_TARGET("{\"platform\":\"windows\",\"arch\":\"x86_64\",\"accelerator\":\"metal\"}",
                  SC_E_UNSUPPORTED_TARGET);
    EXPECT_TARGET("{\"platform\":\"freebsd\",\"arch\":\"x86_64\",\"accelerator\":\"cpu\"}",
                  SC_E_UNSUPPORTED_TARGET);
    EXPECT_TARGET("{\"platform\":\"linux\",\"arch\":\"x86_64\",\"accelerator\":\"rocm\"}",
                  SC_E_UNSUPPORTED_TARGET);
    /* names are exact: no case folding, no aliases */
    EXPECT_TARGET("{\"platform\":\"Linux\",\"arch\":\"x86_64\",\"accelerator\":\"cpu\"}",
                  SC_E_UNSUPPORTED_TARGET);
    EXPECT_TARGET("{\"platform\":\"linux\",\"arch\":\"amd64\",\"accelerator\":\"cpu\"}",
                  SC_E_UNSUPPORTED_TARGET);
    EXPECT_TARGET("{\"platform\":\"darwin\",\"arch\":\"aarch64\",\"accelerator\":\"cpu\"}",
                  SC_E_UNSUPPORTED_TARGET);
}

/* Rule 3 asks for strings; a string holding NUL is a string, so such a
   triple fails rule 4 (not in the matrix), not rule 3. */
static void rule4_string_with_nul_is_unsupported(void)
{
    EXPECT_TARGET("{\"platform\":\"linux\\u0000\",\"arch\":\"x86_64\",\"accelerator\":\"cpu\"}",
                  SC_E_UNSUPPORTED_TARGET);
}

static void rule5_cuda_requires_version(void)
{
    EXPECT_TARGET("{\"platform\":\"linux\",\"arch\":\"x86_64\",\"accelerator\":\"cuda\"}",
                  SC_E_INVALID_TARGET);
    EXPECT_TARGET("{\"platform\":\"windows\",\"arch\":\"x86_64\",\"accelerator\":\"cuda\"}",
                  SC_E_INVALID_TARGET);
}

static void rule5_only_cuda_declares_version(void)
{
    EXPECT_TARGET("{\"platform\":\"linux\",\"arch\":\"x86_64\",\"accelerator\":\"cpu\","
                  "\"cudaVersion\":\"12.4\"}",
                  SC_E_INVALID_TARGET);
    EXPECT_TARGET("{\"platform\":\"macos\",\"arch\":\"aarch64\",\"accelerator\":\"metal\","
                  "\"cudaVersion\":\"12.4\"}",
                  SC_E_INVALID_TARGET);
}

static void rule5_valid_targets_accepted(void)
{
    sc_error err;
    sc_target t;
    sc_code c = target_from_text(
        "{\"accelerator\":\"cuda\",\"cudaVersion\":\"12.4\",\"arch\":\"x86_64\","
        "\"platform\":\"linux\"}",
        &t, &err);
    EXPECT_CODE(c, SC_OK, &err, "member order is free");
    if (c == SC_OK) {
        CU_ASSERT_EQUAL(t.platform, SC_PLATFORM_LINUX);
        CU_ASSERT_EQUAL(t.arch, SC_ARCH_X86_64);
        CU_ASSERT_EQUAL(t.accelerator, SC_ACCEL_CUDA);
        CU_ASSERT_STRING_EQUAL(t.cuda_version, "12.4");
    }
    c = target_from_text("{\"platform\":\"macos\",\"arch\":\"aarch64\",\"accelerator\":\"metal\"}",
                         &t, &err);
    EXPECT_CODE(c, SC_OK, &err, "metal");
    if (c == SC_OK)
        CU_ASSERT_STRING_EQUAL(t.cuda_version, "");
}

/* Order: where two rules fail, the earlier one is reported. */
static void order_rule2_before_rule3(void)
{
    /* An unknown member and a missing platform: rule 2 names the member. */
    sc_error err;
    sc_code c = target_from_text("{\"arch\":\"x86_64\",\"accelerator\":\"cpu\","
                                 "\"zzextra\":1}",
                                 NULL, &err);
    EXPECT_CODE(c, SC_E_INVALID_TARGET, &err, "extra + missing platform");
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "zzextra"));
}

static void order_rule2_before_rule4(void)
{
    /* Unknown member and an off-matrix triple: rule 2 (invalid-target). */
    EXPECT_TARGET("{\"platform\":\"beos\",\"arch\":\"x86_64\",\"accelerator\":\"cpu\","
                  "\"extra\":true}",
                  SC_E_INVALID_TARGET);
}

static void order_rule3_before_rule4(void)
{
    /* Off-matrix triple and a non-string cudaVersion: rule 3. */
    EXPECT_TARGET("{\"platform\":\"beos\",\"arch\":\"x86_64\",\"accelerator\":\"cpu\","
                  "\"cudaVersion\":null}",
                  SC_E_INVALID_TARGET);
    /* Off-matrix platform and a missing accelerator: rule 3. */
    EXPECT_TARGET("{\"platform\":\"beos\",\"arch\":\"x86_64\"}", SC_E_INVALID_TARGET);
}

static void order_rule4_before_rule5(void)
{
    /* macOS has no cuda: unsupported, not "missing cudaVersion". */
    EXPECT_TARGET("{\"platform\":\"macos\",\"arch\":\"aarch64\",\"accelerator\":\"cuda\"}",
                  SC_E_UNSUPPORTED_TARGET);
    /* Off-matrix triple carrying a cudaVersion: unsupported. */
    EXPECT_TARGET("{\"platform\":\"linux\",\"arch\":\"aarch64\",\"accelerator\":\"cpu\","
                  "\"cudaVersion\":\"12.4\"}",
                  SC_E_UNSUPPORTED_TARGET);
    EXPECT_TARGET("{\"platform\":\"linux\",\"arch\":\"aarch64\",\"accelerator\":\"cuda\","
                  "\"cudaVersion\":\"bad\"}",
                  SC_E_UNSUPPORTED_TARGET);
}

/* ---- cudaVersion full match ------------------------------------------- */

static const char *const cuda_good[] = {"12.4", "12.04", "1.0", "10.10", "9.123",
                                        "11.8", "100.0", "1.00"};
static const char *const cuda_bad[] = {
    "",      "12",     "12.",    ".4",     "012.4",  "0.9",   "12.4.1", "12..4",
    "12.4\n", "\n12.4", " 12.4", "12.4 ", "v12.4",  "12,4",  "12.4a",  "1e1",
    "+12.4", "-12.4",  "12.-4",  "12.4-1", "１2.4" /* fullwidth digit */};

static void cuda_version_valid_forms(void)
{
    for (size_t i = 0; i < sizeof cuda_good / sizeof cuda_good[0]; i++) {
        CU_ASSERT_EQUAL(sc_cuda_version_valid(cuda_good[i]), 1);
        char text[256];
        snprintf(text, sizeof text,
                 "{\"platform\":\"linux\",\"arch\":\"x86_64\",\"accelerator\":\"cuda\","
                 "\"cudaVersion\":\"%s\"}",
                 cuda_good[i]);
        EXPECT_TARGET(text, SC_OK);
    }
}

static void cuda_version_minor_leading_zero_is_valid(void)
{
    sc_error err;
    sc_target t;
    EXPECT_CODE(target_from_text("{\"platform\":\"linux\",\"arch\":\"x86_64\","
                                 "\"accelerator\":\"cuda\",\"cudaVersion\":\"12.04\"}",
                                 &t, &err),
                SC_OK, &err, "12.04");
    expect_id(&t, "linux-x86_64-cuda12.04");
}

static void cuda_version_full_match_rejects(void)
{
    for (size_t i = 0; i < sizeof cuda_bad / sizeof cuda_bad[0]; i++) {
        CU_ASSERT_EQUAL(sc_cuda_version_valid(cuda_bad[i]), 0);
        sc_error err;
        sc_target t = mk(SC_PLATFORM_LINUX, SC_ARCH_X86_64, SC_ACCEL_CUDA, cuda_bad[i]);
        EXPECT_CODE(sc_target_check(&t, "$", &err), SC_E_INVALID_TARGET, &err,
                    cuda_bad[i]);
    }
}

/* "not even a newline": a trailing LF in the JSON string is a breach. */
static void cuda_version_trailing_newline_rejected(void)
{
    EXPECT_TARGET("{\"platform\":\"linux\",\"arch\":\"x86_64\",\"accelerator\":\"cuda\","
                  "\"cudaVersion\":\"12.4\\n\"}",
                  SC_E_INVALID_TARGET);
    EXPECT_TARGET("{\"platform\":\"linux\",\"arch\":\"x86_64\",\"accelerator\":\"cuda\","
                  "\"cudaVersion\":\"12.4\\u0000\"}",
                  SC_E_INVALID_TARGET);
}

static void cuda_version_leading_zero_major_rejected(void)
{
    EXPECT_TARGET("{\"platform\":\"linux\",\"arch\":\"x86_64\",\"accelerator\":\"cuda\","
                  "\"cudaVersion\":\"012.4\"}",
                  SC_E_INVALID_TARGET);
    EXPECT_TARGET("{\"platform\":\"linux\",\"arch\":\"x86_64\",\"accelerator\":\"cuda\","
                  "\"cudaVersion\":\"0.1\"}",
                  SC_E_INVALID_TARGET);
}

static void cuda_version_exactly_one_dot(void)
{
    EXPECT_TARGET("{\"platform\":\"linux\",\"arch\":\"x86_64\",\"accelerator\":\"cuda\","
                  "\"cudaVersion\":\"12.4.1\"}",
                  SC_E_INVALID_TARGET);
    EXPECT_TARGET("{\"platform\":\"windows\",\"arch\":\"x86_64\",\"accelerator\":\"cuda\","
                  "\"cudaVersion\":\"12\"}",
                  SC_E_INVALID_TARGET);
}

/* ---- the id ----------------------------------------------------------- */

static void id_cuda_has_no_separator(void)
{
    sc_target t = mk(SC_PLATFORM_LINUX, SC_ARCH_X86_64, SC_ACCEL_CUDA, "12.4");
    expect_id(&t, "linux-x86_64-cuda12.4");
    sc_target w = mk(SC_PLATFORM_WINDOWS, SC_ARCH_X86_64, SC_ACCEL_CUDA, "11.8");
    expect_id(&w, "windows-x86_64-cuda11.8");
}

static void parse_id_round_trips_every_valid_id(void)
{
    for (size_t i = 0; i < sizeof valid_ids / sizeof valid_ids[0]; i++) {
        sc_error err;
        sc_target t;
        memset(&t, 0xa5, sizeof t);
        sc_code c = sc_target_parse_id(valid_ids[i], &t, &err);
        EXPECT_CODE(c, SC_OK, &err, valid_ids[i]);
        if (c != SC_OK)
            continue;
        EXPECT_CODE(sc_target_check(&t, "$", &err), SC_OK, &err, valid_ids[i]);
        expect_id(&t, valid_ids[i]);
    }
}

static void parse_id_gives_the_fields(void)
{
    sc_error err;
    sc_target t;
    CU_ASSERT_EQUAL_FATAL(sc_target_parse_id("windows-x86_64-cuda12.04", &t, &err), SC_OK);
    CU_ASSERT_EQUAL(t.platform, SC_PLATFORM_WINDOWS);
    CU_ASSERT_EQUAL(t.arch, SC_ARCH_X86_64);
    CU_ASSERT_EQUAL(t.accelerator, SC_ACCEL_CUDA);
    CU_ASSERT_STRING_EQUAL(t.cuda_version, "12.04");
    CU_ASSERT_EQUAL_FATAL(sc_target_parse_id("macos-aarch64-metal", &t, &err), SC_OK);
    CU_ASSERT_EQUAL(t.platform, SC_PLATFORM_MACOS);
    CU_ASSERT_EQUAL(t.arch, SC_ARCH_AARCH64);
    CU_ASSERT_EQUAL(t.accelerator, SC_ACCEL_METAL);
    CU_ASSERT_STRING_EQUAL(t.cuda_version, "");
}

static void parse_id_rejects_off_matrix_ids(void)
{
    static const char *const ids[] = {
        "",
        "linux",
        "linux-x86_64",
        "linux-x86_64-",
        "linux-aarch64-cpu",
        "macos-x86_64-cpu",
        "windows-x86_64-metal",
        "macos-aarch64-cuda12.4",
        "Linux-x86_64-cpu",
        "linux-x86_64-CPU",
        "linux-x86-64-cpu",
        "linux-x86_64-cpu-",
        "linux-x86_64-cpu ",
        "linux_x86_64_cpu",
        "linux-x86_64-rocm",
        "linux-x86_64-cpu/",
    };
    for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++) {
        sc_error err;
        sc_target t;
        EXPECT_CODE(sc_target_parse_id(ids[i], &t, &err), SC_E_UNSUPPORTED_TARGET,
                    &err, ids[i]);
    }
}

static void parse_id_rejects_bad_cuda_versions(void)
{
    static const char *const ids[] = {
        "linux-x86_64-cuda12.4.1", "linux-x86_64-cuda012.4", "linux-x86_64-cuda12",
        "linux-x86_64-cuda12.",    "linux-x86_64-cuda.4",    "linux-x86_64-cuda12.4\n",
        "linux-x86_64-cuda-12.4",  "windows-x86_64-cuda12.4a",
    };
    for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++) {
        sc_error err;
        sc_target t;
        EXPECT_CODE(sc_target_parse_id(ids[i], &t, &err), SC_E_INVALID_TARGET, &err,
                    ids[i]);
    }
    /* "cuda" with no version at all is not an id either (code unspecified). */
    sc_error err;
    sc_target t;
    CU_ASSERT_NOT_EQUAL(sc_target_parse_id("linux-x86_64-cuda", &t, &err), SC_OK);
}

/* ---- to_json and describe --------------------------------------------- */

static void to_json_round_trips(void)
{
    for (size_t i = 0; i < sizeof valid_ids / sizeof valid_ids[0]; i++) {
        sc_error err;
        sc_target t, back;
        CU_ASSERT_EQUAL_FATAL(sc_target_parse_id(valid_ids[i], &t, &err), SC_OK);
        sc_json *j = sc_target_to_json(&t);
        CU_ASSERT_PTR_NOT_NULL_FATAL(j);
        CU_ASSERT_FATAL(j->length >= 3);
        /* canonical member order */
        CU_ASSERT_STRING_EQUAL(sc_json_at(j, 0)->key, "platform");
        CU_ASSERT_STRING_EQUAL(sc_json_at(j, 1)->key, "arch");
        CU_ASSERT_STRING_EQUAL(sc_json_at(j, 2)->key, "accelerator");
        if (t.accelerator == SC_ACCEL_CUDA) {
            CU_ASSERT_EQUAL(j->length, 4);
            CU_ASSERT_STRING_EQUAL(sc_json_at(j, 3)->key, "cudaVersion");
        } else {
            CU_ASSERT_EQUAL(j->length, 3);
        }
        EXPECT_CODE(sc_target_from_json(j, "$", &back, &err), SC_OK, &err, valid_ids[i]);
        expect_id(&back, valid_ids[i]);
        sc_json_free(j);
    }
}

static const char *get_str(const sc_json *o, const char *key)
{
    return sc_json_cstr(sc_json_get(o, key));
}

static void describe_members_in_order(void)
{
    static const char *const keys[] = {
        "targetId",          "target",    "adapterId",  "condaSubdir",
        "payloadRoot",       "pythonEntryPoint", "scriptsDir", "exeSuffix",
        "launcherKind",      "selfTestAssertion", "validationEnvironment",
        "executionAffectingVariables"};
    sc_target t = mk(SC_PLATFORM_LINUX, SC_ARCH_X86_64, SC_ACCEL_CUDA, "12.4");
    sc_json *d = sc_target_describe(&t);
    CU_ASSERT_PTR_NOT_NULL_FATAL(d);
    CU_ASSERT_EQUAL(d->length, sizeof keys / sizeof keys[0]);
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        const sc_json *m = sc_json_at(d, i);
        CU_ASSERT_PTR_NOT_NULL(m);
        if (m != NULL)
            CU_ASSERT_STRING_EQUAL(m->key, keys[i]);
    }
    sc_json_free(d);
}

static void describe_linux_cuda_contents(void)
{
    sc_target t = mk(SC_PLATFORM_LINUX, SC_ARCH_X86_64, SC_ACCEL_CUDA, "12.4");
    sc_json *d = sc_target_describe(&t);
    CU_ASSERT_PTR_NOT_NULL_FATAL(d);
    expect_str(get_str(d, "targetId"), "linux-x86_64-cuda12.4");
    const sc_json *tj = sc_json_get(d, "target");
    CU_ASSERT_PTR_NOT_NULL_FATAL(tj);
    expect_str(get_str(tj, "platform"), "linux");
    expect_str(get_str(tj, "arch"), "x86_64");
    expect_str(get_str(tj, "accelerator"), "cuda");
    expect_str(get_str(tj, "cudaVersion"), "12.4");
    expect_str(get_str(d, "adapterId"), "linux-x86_64");
    expect_str(get_str(d, "condaSubdir"), "linux-64");
    expect_str(get_str(d, "payloadRoot"), "venv");
    expect_str(get_str(d, "pythonEntryPoint"), "venv/bin/python");
    expect_str(get_str(d, "scriptsDir"), "venv/bin");
    expect_str(get_str(d, "exeSuffix"), "");
    expect_str(get_str(d, "launcherKind"), "posix-polyglot");
    expect_str(get_str(d, "selfTestAssertion"),
               "import sys; assert sys.platform.startswith('linux')");
    const sc_json *env = sc_json_get(d, "validationEnvironment");
    CU_ASSERT_PTR_NOT_NULL_FATAL(env);
    CU_ASSERT_EQUAL(env->length, 1);
    expect_str(get_str(env, "CUDA_VISIBLE_DEVICES"), "0");
    const sc_json *vars = sc_json_get(d, "executionAffectingVariables");
    CU_ASSERT_PTR_NOT_NULL_FATAL(vars);
    CU_ASSERT_EQUAL_FATAL(vars->length, 5);
    expect_str(sc_json_cstr(sc_json_at(vars, 0)), "PYTHONPATH");
    expect_str(sc_json_cstr(sc_json_at(vars, 1)), "PYTHONHOME");
    expect_str(sc_json_cstr(sc_json_at(vars, 2)), "PYTHONSTARTUP");
    expect_str(sc_json_cstr(sc_json_at(vars, 3)), "PYTHONBREAKPOINT");
    expect_str(sc_json_cstr(sc_json_at(vars, 4)), "LD_PRELOAD");
    sc_json_free(d);
}

static void describe_windows_and_macos_contents(void)
{
    sc_target w = mk(SC_PLATFORM_WINDOWS, SC_ARCH_X86_64, SC_ACCEL_CPU, NULL);
    sc_json *d = sc_target_describe(&w);
    CU_ASSERT_PTR_NOT_NULL_FATAL(d);
    expect_str(get_str(d, "targetId"), "windows-x86_64-cpu");
    CU_ASSERT_PTR_NULL(sc_json_get(sc_json_get(d, "target"), "cudaVersion"));
    expect_str(get_str(d, "pythonEntryPoint"), "venv/python.exe");
    expect_str(get_str(d, "scriptsDir"), "venv/Scripts");
    expect_str(get_str(d, "exeSuffix"), ".exe");
    expect_str(get_str(d, "launcherKind"), "uv-windows-pe");
    expect_str(get_str(sc_json_get(d, "validationEnvironment"), "CUDA_VISIBLE_DEVICES"), "");
    CU_ASSERT_EQUAL(sc_json_get(d, "executionAffectingVariables")->length, 4);
    sc_json_free(d);

    sc_target m = mk(SC_PLATFORM_MACOS, SC_ARCH_AARCH64, SC_ACCEL_METAL, NULL);
    d = sc_target_describe(&m);
    CU_ASSERT_PTR_NOT_NULL_FATAL(d);
    expect_str(get_str(d, "targetId"), "macos-aarch64-metal");
    expect_str(get_str(d, "condaSubdir"), "osx-arm64");
    expect_str(get_str(d, "selfTestAssertion"),
               "import sys; assert sys.platform == 'darwin'");
    expect_str(get_str(sc_json_get(d, "validationEnvironment"), "PYTORCH_ENABLE_MPS_FALLBACK"),
               "0");
    const sc_json *vars = sc_json_get(d, "executionAffectingVariables");
    CU_ASSERT_EQUAL_FATAL(vars->length, 5);
    expect_str(sc_json_cstr(sc_json_at(vars, 4)), "DYLD_INSERT_LIBRARIES");
    sc_json_free(d);
}

/* Describe every valid id to bytes. */
static char *describe_all(void)
{
    size_t cap = 1, used = 0;
    char *all = calloc(1, 1);
    for (size_t i = 0; all && i < sizeof valid_ids / sizeof valid_ids[0]; i++) {
        sc_error err;
        sc_target t;
        if (sc_target_parse_id(valid_ids[i], &t, &err) != SC_OK)
            continue;
        sc_json *d = sc_target_describe(&t);
        char *text = NULL;
        size_t len = 0;
        if (d == NULL || sc_json_write(d, &text, &len, &err) != SC_OK) {
            sc_json_free(d);
            free(all);
            return NULL;
        }
        sc_json_free(d);
        cap = used + len + 1;
        char *grown = realloc(all, cap);
        if (grown == NULL) {
            free(all);
            free(text);
            return NULL;
        }
        all = grown;
        memcpy(all + used, text, len + 1);
        used += len;
        free(text);
    }
    return all;
}

/* Facts come from the table, not from the host: the host's environment and
 * locale change nothing, and a foreign target's facts are its own. */
static void no_host_dependence(void)
{
    char *before = describe_all();
    CU_ASSERT_PTR_NOT_NULL_FATAL(before);

    static const char *const vars[] = {"PYTHONPATH", "CUDA_VISIBLE_DEVICES",
                                       "PYTORCH_ENABLE_MPS_FALLBACK", "LD_PRELOAD_X",
                                       "SC_TARGET", "OS"};
    char *saved[sizeof vars / sizeof vars[0]];
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        const char *v = getenv(vars[i]);
        saved[i] = v ? strdup(v) : NULL;
        setenv(vars[i], "host-value", 1);
    }
    char *old_locale = strdup(setlocale(LC_ALL, NULL));
    setlocale(LC_ALL, "");

    char *after = describe_all();

    if (old_locale != NULL)
        setlocale(LC_ALL, old_locale);
    free(old_locale);
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        if (saved[i] != NULL)
            setenv(vars[i], saved[i], 1);
        else
            unsetenv(vars[i]);
        free(saved[i]);
    }

    CU_ASSERT_PTR_NOT_NULL(after);
    if (after != NULL)
        CU_ASSERT_STRING_EQUAL(before, after);
    /* A macOS target described on this (non-macOS) host is still macOS. */
    CU_ASSERT_PTR_NOT_NULL(strstr(before, "sys.platform == 'darwin'"));
    CU_ASSERT_PTR_NOT_NULL(strstr(before, "venv/python.exe"));
    CU_ASSERT_PTR_NULL(strstr(before, "host-value"));
    free(before);
    free(after);
}

/* ---- registration ----------------------------------------------------- */

void register_target_tests(void)
{
    CU_pSuite s = CU_add_suite("target", NULL, NULL);
    if (s == NULL)
        CU_FAIL_FATAL("CU_add_suite failed");
    SC_ADD_TEST(s, matrix_row_macos_aarch64);
    SC_ADD_TEST(s, matrix_row_linux_x86_64);
    SC_ADD_TEST(s, matrix_row_windows_x86_64);
    SC_ADD_TEST(s, matrix_is_closed);
    SC_ADD_TEST(s, derived_self_test_assertion);
    SC_ADD_TEST(s, derived_validation_environment);
    SC_ADD_TEST(s, derived_execution_affecting_variables);
    SC_ADD_TEST(s, rule1_not_an_object);
    SC_ADD_TEST(s, rule2_no_other_member);
    SC_ADD_TEST(s, rule2_message_names_the_member);
    SC_ADD_TEST(s, rule3_members_present);
    SC_ADD_TEST(s, rule3_members_are_strings);
    SC_ADD_TEST(s, rule3_cuda_version_null_is_not_absent);
    SC_ADD_TEST(s, rule4_triple_in_matrix);
    SC_ADD_TEST(s, rule4_string_with_nul_is_unsupported);
    SC_ADD_TEST(s, rule5_cuda_requires_version);
    SC_ADD_TEST(s, rule5_only_cuda_declares_version);
    SC_ADD_TEST(s, rule5_valid_targets_accepted);
    SC_ADD_TEST(s, order_rule2_before_rule3);
    SC_ADD_TEST(s, order_rule2_before_rule4);
    SC_ADD_TEST(s, order_rule3_before_rule4);
    SC_ADD_TEST(s, order_rule4_before_rule5);
    SC_ADD_TEST(s, cuda_version_valid_forms);
    SC_ADD_TEST(s, cuda_version_minor_leading_zero_is_valid);
    SC_ADD_TEST(s, cuda_version_full_match_rejects);
    SC_ADD_TEST(s, cuda_version_trailing_newline_rejected);
    SC_ADD_TEST(s, cuda_version_leading_zero_major_rejected);
    SC_ADD_TEST(s, cuda_version_exactly_one_dot);
    SC_ADD_TEST(s, id_cuda_has_no_separator);
    SC_ADD_TEST(s, parse_id_round_trips_every_valid_id);
    SC_ADD_TEST(s, parse_id_gives_the_fields);
    SC_ADD_TEST(s, parse_id_rejects_off_matrix_ids);
    SC_ADD_TEST(s, parse_id_rejects_bad_cuda_versions);
    SC_ADD_TEST(s, to_json_round_trips);
    SC_ADD_TEST(s, describe_members_in_order);
    SC_ADD_TEST(s, describe_linux_cuda_contents);
    SC_ADD_TEST(s, describe_windows_and_macos_contents);
    SC_ADD_TEST(s, no_host_dependence);
}
