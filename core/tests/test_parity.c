/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_parity.c — parity (docs/format-v3.md 17), the GPU probe (18.2) and
 * host verdicts (18.1, 18.3, 18.4).  Each test names the rule it checks.
 * The probe is exercised against real shared libraries built from
 * tests/fake_gpu/ (SC_FAKE_GPU_DIR) and loaded with a real dlopen.
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "scrollcase/compat.h"
#include "scrollcase/gpu_probe.h"
#include "scrollcase/json.h"
#include "scrollcase/parity.h"

#ifndef SC_FAKE_GPU_DIR
#define SC_FAKE_GPU_DIR "."
#endif

/* ---- helpers ----------------------------------------------------------- */

static sc_code values_of(const char *json, sc_parity_values *v, sc_error *err)
{
    char *dq = sc_test_dq(json);
    sc_code c = sc_parity_values_parse(dq, strlen(dq), "test", v, err);
    free(dq);
    return c;
}

static sc_parity_tolerances tol(int ha, double a, int hr, double r, int hc, double c)
{
    sc_parity_tolerances t = {ha, hr, hc, a, r, c};
    return t;
}

/* Compare two documents under t; the measurement in *m. */
static sc_code compare(const char *ref, const char *cand, sc_parity_tolerances t,
                       sc_parity_measurement *m, sc_error *err)
{
    sc_parity_values r = {NULL, 0}, c = {NULL, 0};
    sc_code code = values_of(ref, &r, err);
    if (code == SC_OK)
        code = values_of(cand, &c, err);
    if (code == SC_OK)
        code = sc_parity_compare(&r, &c, &t, "cpu", "cuda", m, err);
    sc_parity_values_free(&r);
    sc_parity_values_free(&c);
    return code;
}

/* ---- 17.1 values --------------------------------------------------------- */

static void test_values_array_of_numbers(void)
{
    sc_parity_values v;
    sc_error err;
    SC_EXPECT_CODE(values_of("[1, -2.5, 1e-3]", &v, &err), SC_OK, &err);
    CU_ASSERT_EQUAL(v.count, 3);
    CU_ASSERT_EQUAL(v.values[1], -2.5);
    sc_parity_values_free(&v);
}

static void test_values_object_reads_values_member_and_ignores_others(void)
{
    sc_parity_values v;
    sc_error err;
    SC_EXPECT_CODE(values_of("{'device': 'x', 'values': [4]}", &v, &err), SC_OK, &err);
    CU_ASSERT_EQUAL(v.count, 1);
    CU_ASSERT_EQUAL(v.values[0], 4.0);
    sc_parity_values_free(&v);
}

static void test_values_bit_patterns_are_binary32_and_binary64(void)
{
    sc_parity_values v;
    sc_error err;
    SC_EXPECT_CODE(values_of("['0x3f800000', '0x3ff8000000000000', '0x33800000']", &v, &err),
                   SC_OK, &err);
    CU_ASSERT_EQUAL(v.values[0], 1.0);
    CU_ASSERT_EQUAL(v.values[1], 1.5);
    CU_ASSERT_EQUAL(v.values[2], ldexp(1.0, -24)); /* widened exactly */
    sc_parity_values_free(&v);
}

static void test_values_wrong_shapes_are_invalid_parity_values(void)
{
    static const char *const bad[] = {
        "[]", "{'value': [1]}", "{'values': 'x'}", "1", "[null]", "[true]", "['1.0']",
        "['0x3F800000']", "['0X3f800000']", "['0x3f80000']", "['0x3f8000000000']", "[[1]]",
        "['0x3f800000 ']", NULL};
    for (size_t i = 0; bad[i] != NULL; i++) {
        sc_parity_values v;
        sc_error err;
        sc_code c = values_of(bad[i], &v, &err);
        if (c != SC_E_INVALID_PARITY_VALUES)
            fprintf(stderr, "\n  %s: %s\n", bad[i], sc_code_name(c));
        CU_ASSERT_EQUAL(c, SC_E_INVALID_PARITY_VALUES);
        CU_ASSERT_PTR_NULL(v.values);
    }
}

static void test_values_not_json_is_invalid_json(void)
{
    sc_parity_values v;
    sc_error err;
    SC_EXPECT_CODE(sc_parity_values_parse("[NaN]", 5, "x", &v, &err), SC_E_INVALID_JSON, &err);
}

static void test_values_nan_and_infinity_are_parity_non_finite(void)
{
    static const char *const bad[] = {"['0x7fc00000']", "['0x7f800000']", "['0xff800000']",
                                      "['0x7ff0000000000001']", "['0xfff0000000000000']",
                                      NULL};
    for (size_t i = 0; bad[i] != NULL; i++) {
        sc_parity_values v;
        sc_error err;
        SC_EXPECT_CODE(values_of(bad[i], &v, &err), SC_E_PARITY_NON_FINITE, &err);
    }
}

static void test_values_shape_is_checked_before_finiteness(void)
{
    sc_parity_values v;
    sc_error err;
    SC_EXPECT_CODE(values_of("['0x7fc00000', null]", &v, &err), SC_E_INVALID_PARITY_VALUES,
                   &err);
}

static void test_values_read_file_missing_is_io_error(void)
{
    sc_parity_values v;
    sc_error err;
    SC_EXPECT_CODE(sc_parity_values_read_file("/nonexistent/values.json", &v, &err), SC_E_IO,
                   &err);
}

/* ---- 17.2 tolerances ----------------------------------------------------- */

static void test_tolerances_at_least_one_bound(void)
{
    sc_parity_tolerances t = tol(0, 0, 0, 0, 0, 0);
    sc_error err;
    SC_EXPECT_CODE(sc_parity_tolerances_check(&t, &err), SC_E_INVALID_TOLERANCE, &err);
}

static void test_tolerances_absolute_and_relative_finite_and_positive(void)
{
    sc_error err;
    sc_parity_tolerances t = tol(1, 0.0, 0, 0, 0, 0);
    SC_EXPECT_CODE(sc_parity_tolerances_check(&t, &err), SC_E_INVALID_TOLERANCE, &err);
    t = tol(1, -1e-4, 0, 0, 0, 0);
    SC_EXPECT_CODE(sc_parity_tolerances_check(&t, &err), SC_E_INVALID_TOLERANCE, &err);
    t = tol(0, 0, 1, INFINITY, 0, 0);
    SC_EXPECT_CODE(sc_parity_tolerances_check(&t, &err), SC_E_INVALID_TOLERANCE, &err);
    t = tol(0, 0, 1, NAN, 0, 0);
    SC_EXPECT_CODE(sc_parity_tolerances_check(&t, &err), SC_E_INVALID_TOLERANCE, &err);
    t = tol(1, 1e-300, 1, 1e300, 0, 0);
    SC_EXPECT_CODE(sc_parity_tolerances_check(&t, &err), SC_OK, &err);
}

static void test_tolerances_cosine_at_most_one_below_minus_one_vacuous(void)
{
    sc_error err;
    sc_parity_tolerances t = tol(0, 0, 0, 0, 1, 1.0000001);
    SC_EXPECT_CODE(sc_parity_tolerances_check(&t, &err), SC_E_INVALID_TOLERANCE, &err);
    t = tol(0, 0, 0, 0, 1, 1.0);
    SC_EXPECT_CODE(sc_parity_tolerances_check(&t, &err), SC_OK, &err);
    t = tol(0, 0, 0, 0, 1, -5.0);
    SC_EXPECT_CODE(sc_parity_tolerances_check(&t, &err), SC_OK, &err);
}

static void test_tolerance_text_is_one_json_number_literal(void)
{
    static const char *const good[] = {"1e-4", "0.001", "1", "-2", "0.9999", NULL};
    static const char *const bad[] = {"", " 1", "1 ", "+1", "NaN", "inf", "1e400", "0x10",
                                      "1.", ".5", "1e", "\"1\"", NULL};
    double d;
    sc_error err;
    for (size_t i = 0; good[i] != NULL; i++)
        SC_EXPECT_CODE(sc_parity_tolerance_parse(good[i], "absolute", &d, &err), SC_OK, &err);
    SC_EXPECT_CODE(sc_parity_tolerance_parse("1e-4", "absolute", &d, &err), SC_OK, &err);
    CU_ASSERT_EQUAL(d, 1e-4);
    for (size_t i = 0; bad[i] != NULL; i++)
        SC_EXPECT_CODE(sc_parity_tolerance_parse(bad[i], "absolute", &d, &err),
                       SC_E_INVALID_TOLERANCE, &err);
}

static void test_tolerances_object_refuses_unknown_members_and_non_numbers(void)
{
    sc_parity_tolerances t;
    sc_error err;
    sc_json *j = NULL;
    const char *docs[] = {"{\"absolute\": 1e-4, \"other\": 1}", "{\"absolute\": \"1\"}", "[]",
                          NULL};
    for (size_t i = 0; docs[i] != NULL; i++) {
        CU_ASSERT_EQUAL_FATAL(sc_json_parse(docs[i], strlen(docs[i]), &j, &err), SC_OK);
        SC_EXPECT_CODE(sc_parity_tolerances_from_json(j, &t, &err), SC_E_INVALID_TOLERANCE,
                       &err);
        sc_json_free(j);
    }
    const char *ok = "{\"absolute\": 1e-4, \"minimumCosine\": 0.99}";
    CU_ASSERT_EQUAL_FATAL(sc_json_parse(ok, strlen(ok), &j, &err), SC_OK);
    SC_EXPECT_CODE(sc_parity_tolerances_from_json(j, &t, &err), SC_OK, &err);
    CU_ASSERT_TRUE(t.has_absolute && !t.has_relative && t.has_minimum_cosine);
    sc_json_free(j);
}

static void test_compare_checks_tolerances_before_lengths(void)
{
    sc_parity_measurement m;
    sc_error err;
    SC_EXPECT_CODE(compare("[1, 2]", "[1]", tol(0, 0, 0, 0, 0, 0), &m, &err),
                   SC_E_INVALID_TOLERANCE, &err);
}

/* ---- 17.3 measurements -------------------------------------------------- */

static void test_length_mismatch_fails_before_measuring(void)
{
    sc_parity_measurement m;
    sc_error err;
    SC_EXPECT_CODE(compare("[1, 2]", "[1]", tol(1, 1e9, 0, 0, 0, 0), &m, &err),
                   SC_E_PARITY_LENGTH_MISMATCH, &err);
}

static void test_measurements_absolute_relative_cosine(void)
{
    sc_parity_measurement m;
    sc_error err;
    SC_EXPECT_CODE(compare("[1, 2, 4]", "[1.5, 2, 3]", tol(1, 10, 0, 0, 0, 0), &m, &err), SC_OK,
                   &err);
    CU_ASSERT_EQUAL(m.value_count, 3);
    CU_ASSERT_EQUAL(m.maximum_absolute_error, 1.0);
    CU_ASSERT_EQUAL(m.maximum_relative_error, 0.5);
    /* By the formula of 17.3, written out. */
    double x[3] = {0.25, 0.5, 1.0}, y[3] = {0.5, 2.0 / 3.0, 1.0};
    double d = 0, p = 0, q = 0;
    for (int i = 0; i < 3; i++) {
        double xy = x[i] * y[i], xx = x[i] * x[i], yy = y[i] * y[i];
        d = d + xy;
        p = p + xx;
        q = q + yy;
    }
    CU_ASSERT_EQUAL(m.cosine_similarity, d / sqrt(p * q));
}

/* Equal vectors have cosine exactly 1, so minimumCosine 1 passes them (this
 * one gave 0.9999999999999998 with sqrt(P) * sqrt(Q)). */
static void test_equal_vectors_have_cosine_exactly_one(void)
{
    static const char v[] = "[1.3292401940446954, -1.6274266723772841, 2.6716241733235337, "
                            "2.408564745668901, -2.816460101798679, -2.8473248340392354]";
    sc_parity_measurement m;
    sc_error err;
    SC_EXPECT_CODE(compare(v, v, tol(0, 0, 0, 0, 1, 1.0), &m, &err), SC_OK, &err);
    CU_ASSERT_EQUAL(m.cosine_similarity, 1.0);
}

static void test_relative_error_skips_zero_references(void)
{
    sc_parity_measurement m;
    sc_error err;
    SC_EXPECT_CODE(compare("[0, 2]", "[1e-7, 2]", tol(1, 1, 0, 0, 0, 0), &m, &err), SC_OK, &err);
    CU_ASSERT_EQUAL(m.maximum_relative_error, 0.0);
    CU_ASSERT_EQUAL(m.maximum_absolute_error, 1e-7);
}

static void test_relative_error_counts_tiny_nonzero_references(void)
{
    sc_parity_measurement m;
    sc_error err;
    SC_EXPECT_CODE(compare("[1e-30, 1]", "[2e-30, 1]", tol(1, 1, 0, 0, 0, 0), &m, &err), SC_OK,
                   &err);
    CU_ASSERT_EQUAL(m.maximum_relative_error, 1.0);
}

static void test_cosine_zero_vector_rule(void)
{
    sc_parity_measurement m;
    sc_error err;
    SC_EXPECT_CODE(compare("[0, 0]", "[0, -0.0]", tol(1, 1, 0, 0, 0, 0), &m, &err), SC_OK, &err);
    CU_ASSERT_EQUAL(m.cosine_similarity, 1.0);
    SC_EXPECT_CODE(compare("[1, 2]", "[0, 0]", tol(1, 10, 0, 0, 0, 0), &m, &err), SC_OK, &err);
    CU_ASSERT_EQUAL(m.cosine_similarity, 0.0);
    SC_EXPECT_CODE(compare("[0, 0]", "[1, 2]", tol(1, 10, 0, 0, 0, 0), &m, &err), SC_OK, &err);
    CU_ASSERT_EQUAL(m.cosine_similarity, 0.0);
}

static void test_cosine_of_opposite_and_scaled_vectors(void)
{
    sc_parity_measurement m;
    sc_error err;
    SC_EXPECT_CODE(compare("[3, 4]", "[-3, -4]", tol(1, 100, 0, 0, 0, 0), &m, &err), SC_OK, &err);
    CU_ASSERT_EQUAL(m.cosine_similarity, -1.0);
    SC_EXPECT_CODE(compare("[3, 4]", "[6, 8]", tol(1, 100, 0, 0, 0, 0), &m, &err), SC_OK, &err);
    CU_ASSERT_EQUAL(m.cosine_similarity, 1.0);
}

static void test_cosine_of_subnormal_vectors_is_not_assumed(void)
{
    sc_parity_measurement m;
    sc_error err;
    SC_EXPECT_CODE(compare("[5e-320, 1e-320]", "[1e-320, 5e-320]", tol(1, 1, 0, 0, 0, 0), &m,
                           &err),
                   SC_OK, &err);
    CU_ASSERT_TRUE(m.cosine_similarity > 0.3 && m.cosine_similarity < 0.5);
}

static void test_overflowing_measurements_saturate(void)
{
    sc_parity_measurement m;
    sc_error err;
    SC_EXPECT_CODE(compare("[1e308, 1]", "[-1e308, 1]", tol(0, 0, 1, 2, 0, 0), &m, &err), SC_OK,
                   &err);
    CU_ASSERT_EQUAL(m.maximum_absolute_error, DBL_MAX);
    CU_ASSERT_TRUE(isfinite(m.maximum_relative_error));
    CU_ASSERT_EQUAL(m.cosine_similarity, -1.0);
}

/* ---- 17.4 bounds --------------------------------------------------------- */

static void test_bound_equal_to_measurement_passes(void)
{
    sc_parity_measurement m;
    sc_error err;
    SC_EXPECT_CODE(compare("[1, 2]", "[1.5, 2]", tol(1, 0.5, 1, 0.5, 0, 0), &m, &err), SC_OK,
                   &err);
}

static void test_breach_absolute_then_relative_then_cosine(void)
{
    sc_parity_measurement m;
    sc_error err;
    SC_EXPECT_CODE(compare("[1, 2]", "[-1, 2]", tol(1, 0.1, 1, 0.1, 1, 0.999), &m, &err),
                   SC_E_PARITY_BREACH, &err);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "maximum absolute error 2 exceeds 0.1"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "cpu vs cuda"));
    SC_EXPECT_CODE(compare("[1, 2]", "[-1, 2]", tol(0, 0, 1, 0.1, 1, 0.999), &m, &err),
                   SC_E_PARITY_BREACH, &err);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "maximum relative error 2 exceeds 0.1"));
    SC_EXPECT_CODE(compare("[1, 2]", "[-1, 2]", tol(0, 0, 0, 0, 1, 0.999), &m, &err),
                   SC_E_PARITY_BREACH, &err);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "cosine similarity 0.6 "));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "is below 0.999"));
    /* The measurements are still reported on a breach. */
    CU_ASSERT_EQUAL(m.maximum_absolute_error, 2.0);
}

static void test_cosine_only_drift_breaches_cosine_bound(void)
{
    sc_parity_measurement m;
    sc_error err;
    /* Each element within 0.1, but the direction turned. */
    SC_EXPECT_CODE(compare("[1, 0.05]", "[0.95, 0.15]", tol(1, 0.1, 0, 0, 1, 0.999), &m, &err),
                   SC_E_PARITY_BREACH, &err);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "cosine"));
}

/* ---- 17.5 the gate ------------------------------------------------------- */

static void test_gate_records_every_candidate_against_the_first(void)
{
    sc_parity_values runs[3];
    sc_error err;
    CU_ASSERT_EQUAL_FATAL(values_of("[1, 2]", &runs[0], &err), SC_OK);
    CU_ASSERT_EQUAL_FATAL(values_of("[1, 2.001]", &runs[1], &err), SC_OK);
    CU_ASSERT_EQUAL_FATAL(values_of("[1.001, 2]", &runs[2], &err), SC_OK);
    const char *acc[] = {"cpu", "cuda", "metal"};
    sc_parity_tolerances t = tol(1, 0.01, 0, 0, 1, 0.99);
    sc_json *gate = NULL;
    SC_EXPECT_CODE(sc_parity_gate(acc, runs, 3, &t, &gate, &err), SC_OK, &err);
    char *text = NULL;
    size_t len = 0;
    CU_ASSERT_EQUAL_FATAL(sc_json_write_compact(gate, &text, &len, &err), SC_OK);
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "{\"reference\":\"cpu\",\"tolerances\":{\"absolute\":0.01,"
                                        "\"minimumCosine\":0.99},\"valueCount\":2,"
                                        "\"comparisons\":[{\"accelerator\":\"cuda\","));
    CU_ASSERT_PTR_NOT_NULL(strstr(text, "{\"accelerator\":\"metal\","));
    free(text);
    sc_json_free(gate);
    /* A breach by the second candidate fails the gate and names it. */
    t = tol(1, 0.0001, 0, 0, 0, 0);
    SC_EXPECT_CODE(sc_parity_gate(acc, runs, 3, &t, &gate, &err), SC_E_PARITY_BREACH, &err);
    CU_ASSERT_PTR_NULL(gate);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "cpu vs cuda"));
    SC_EXPECT_CODE(sc_parity_gate(acc, runs, 1, &t, &gate, &err), SC_E_INTERNAL, &err);
    for (int i = 0; i < 3; i++)
        sc_parity_values_free(&runs[i]);
}

/* ---- 18.2 the GPU probe -------------------------------------------------- */

static sc_code probe_with(const char *cuda, const char *nvml, sc_gpu_facts *f, sc_error *err)
{
    char c[1024], n[1024];
    snprintf(c, sizeof c, "%s/%s", SC_FAKE_GPU_DIR, cuda);
    snprintf(n, sizeof n, "%s/%s", SC_FAKE_GPU_DIR, nvml);
    sc_gpu_probe_options o = {c, n};
    return sc_gpu_probe(&o, f, err);
}

static void test_probe_no_driver_library_is_absent_no_driver(void)
{
    sc_gpu_facts f;
    sc_error err;
    sc_gpu_probe_options o = {"/nonexistent/libcuda.so.1", "/nonexistent/libnvidia-ml.so.1"};
    SC_EXPECT_CODE(sc_gpu_probe(&o, &f, &err), SC_E_ACCELERATOR_UNAVAILABLE, &err);
    CU_ASSERT_EQUAL(f.status, SC_GPU_ABSENT);
    CU_ASSERT_STRING_EQUAL(f.reason, "no-driver");
    sc_gpu_facts_free(&f);
}

static void test_probe_reads_driver_devices_and_nvml_version(void)
{
    sc_gpu_facts f;
    sc_error err;
    SC_EXPECT_CODE(probe_with("fake_cuda_ok.so", "fake_nvml.so", &f, &err), SC_OK, &err);
    CU_ASSERT_EQUAL(f.status, SC_GPU_OK);
    CU_ASSERT_EQUAL(f.cuda_version, 12040);
    CU_ASSERT_STRING_EQUAL(f.driver_version, "550.54.15");
    CU_ASSERT_EQUAL_FATAL(f.device_count, 2);
    CU_ASSERT_STRING_EQUAL(f.devices[0].name, "Fake GPU Zero");
    CU_ASSERT_EQUAL(f.devices[0].cc_major, 9);
    CU_ASSERT_EQUAL(f.devices[1].cc_minor, 6);
    CU_ASSERT_EQUAL(f.devices[0].memory_bytes, 150754820096ULL);
    sc_json *j = sc_gpu_facts_json(&f);
    char *text = NULL;
    size_t len = 0;
    CU_ASSERT_EQUAL_FATAL(sc_json_write_compact(j, &text, &len, &err), SC_OK);
    CU_ASSERT_STRING_EQUAL(text,
                           "{\"status\":\"ok\",\"driverVersion\":\"550.54.15\",\"cudaVersion\":"
                           "\"12.4\",\"devices\":[{\"name\":\"Fake GPU Zero\","
                           "\"computeCapability\":\"9.0\",\"memoryBytes\":150754820096},"
                           "{\"name\":\"Fake GPU One\",\"computeCapability\":\"8.6\","
                           "\"memoryBytes\":25769803776}]}");
    free(text);
    sc_json_free(j);
    sc_gpu_facts_free(&f);
}

static void test_probe_without_nvml_leaves_driver_version_unknown(void)
{
    sc_gpu_facts f;
    sc_error err;
    SC_EXPECT_CODE(probe_with("fake_cuda_ok.so", "missing_nvml.so", &f, &err), SC_OK, &err);
    CU_ASSERT_STRING_EQUAL(f.driver_version, "");
    /* Without a driver version the probe cannot vouch for gates.host. */
    sc_json *gate = NULL;
    SC_EXPECT_CODE(sc_gpu_facts_gate_json(&f, &gate, &err), SC_E_ACCELERATOR_UNAVAILABLE, &err);
    CU_ASSERT_PTR_NULL(gate);
    sc_gpu_facts_free(&f);
}

static void test_gates_host_records_driver_and_each_gpu(void)
{
    sc_gpu_facts f;
    sc_error err;
    SC_EXPECT_CODE(probe_with("fake_cuda_ok.so", "fake_nvml.so", &f, &err), SC_OK, &err);
    sc_json *gate = NULL;
    SC_EXPECT_CODE(sc_gpu_facts_gate_json(&f, &gate, &err), SC_OK, &err);
    char *text = NULL;
    size_t len = 0;
    CU_ASSERT_EQUAL_FATAL(sc_json_write_compact(gate, &text, &len, &err), SC_OK);
    CU_ASSERT_STRING_EQUAL(text, "{\"nvidiaDriverVersion\":\"550.54.15\",\"gpus\":["
                                 "{\"name\":\"Fake GPU Zero\",\"computeCapability\":\"9.0\"},"
                                 "{\"name\":\"Fake GPU One\",\"computeCapability\":\"8.6\"}]}");
    free(text);
    sc_json_free(gate);
    sc_gpu_facts_free(&f);
}

static void test_probe_no_device_init_fail_zero_count_are_absent(void)
{
    static const struct {
        const char *lib, *reason;
    } rows[] = {{"fake_cuda_no_device.so", "no-device"},
                {"fake_cuda_init_fail.so", "init-failed"},
                {"fake_cuda_zero.so", "no-device"}};
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        sc_gpu_facts f;
        sc_error err;
        SC_EXPECT_CODE(probe_with(rows[i].lib, "fake_nvml.so", &f, &err),
                       SC_E_ACCELERATOR_UNAVAILABLE, &err);
        CU_ASSERT_EQUAL(f.status, SC_GPU_ABSENT);
        CU_ASSERT_STRING_EQUAL(f.reason, rows[i].reason);
        CU_ASSERT_PTR_NOT_NULL(strstr(err.message, rows[i].reason));
        sc_gpu_facts_free(&f);
    }
}

static void test_probe_missing_symbol_is_unprobed(void)
{
    sc_gpu_facts f;
    sc_error err;
    SC_EXPECT_CODE(probe_with("fake_cuda_no_symbol.so", "fake_nvml.so", &f, &err),
                   SC_E_ACCELERATOR_UNAVAILABLE, &err);
    CU_ASSERT_EQUAL(f.status, SC_GPU_UNPROBED);
    CU_ASSERT_STRING_EQUAL(f.reason, "symbol-missing");
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "cuDeviceTotalMem_v2"));
    sc_gpu_facts_free(&f);
}

/* ---- 18.1 host facts, 18.3 constraints, 18.4 verdicts ------------------- */

static const char *const cuda_release =
    "{'schemaVersion': 3, 'kind': 'scrollcase.box.release', 'boxId': 'demo',"
    " 'modelId': 'demo-model', 'runtimeId': 'torch', 'version': '1.2.3',"
    " 'target': {'platform': 'linux', 'arch': 'x86_64', 'accelerator': 'cuda',"
    " 'cudaVersion': '12.4'},"
    " 'compatibility': {'minHostAppVersion': '1.0.0', 'maxHostAppVersionExclusive': '2.0.0',"
    " 'minNvidiaDriverVersion': '550.54', 'minRamGb': 16, 'hostEnvironments': ['native']%s},"
    " 'archive': {'format': 'zip', 'url': 'https://example.org/a.zip',"
    " 'sha256': '0000000000000000000000000000000000000000000000000000000000000000',"
    " 'sizeBytes': 10},"
    " 'installedSizeBytes': 20,"
    " 'payloadDigest': {'format': 'sha256-path-list-v1',"
    " 'sha256': '1111111111111111111111111111111111111111111111111111111111111111'},"
    " 'pythonEntryPoint': 'venv/bin/python', 'modelCacheSubdir': 'model-cache/demo',"
    " 'selfTest': {'pythonImports': ['demo_model'], 'timeoutSeconds': 180},"
    " 'provenance': {'scrollId': 'demo-linux-x86_64-cuda12.4', 'scrollVersion': '1.0.0',"
    " 'builderRevision': '0123456789abcdef0123456789abcdef01234567',"
    " 'sourceTreeDirty': false, 'sourceRevision': 'v1', 'pythonVersion': '3.11.9',"
    " 'environment': {'source': 'prefix', 'prefixDigest':"
    " '2222222222222222222222222222222222222222222222222222222222222222'},"
    " 'builder': {'name': 'scrollcase', 'version': '0.1.0'},"
    " 'builtAt': '2026-07-29T12:00:00Z'}}";

static const char *const good_gpu =
    "{'status': 'ok', 'driverVersion': '550.54.15', 'cudaVersion': '12.4',"
    " 'devices': [{'name': 'H200', 'computeCapability': '9.0', 'memoryBytes': 1}]}";

static sc_json *parse_dq(const char *fmt, const char *a)
{
    char buf[8192];
    snprintf(buf, sizeof buf, fmt, a);
    char *dq = sc_test_dq(buf);
    sc_json *j = NULL;
    sc_error err;
    if (sc_json_parse(dq, strlen(dq), &j, &err) != SC_OK)
        fprintf(stderr, "\n  test JSON: %s\n", err.message);
    free(dq);
    return j;
}

/* Evaluate the CUDA release (extra compatibility text) on host facts. */
static sc_compat_verdict verdict_of(const char *extra, const char *host_fmt, const char *gpu,
                                    char *first_constraint, size_t size)
{
    sc_json *rel = parse_dq(cuda_release, extra);
    sc_json *hj = parse_dq(host_fmt, gpu);
    CU_ASSERT_PTR_NOT_NULL_FATAL(rel);
    CU_ASSERT_PTR_NOT_NULL_FATAL(hj);
    sc_host_facts h;
    sc_error err;
    SC_EXPECT_CODE(sc_host_facts_from_json(hj, &h, &err), SC_OK, &err);
    sc_compat_result res;
    SC_EXPECT_CODE(sc_compat_evaluate(rel, &h, &res, &err), SC_OK, &err);
    sc_compat_verdict v = res.verdict;
    if (first_constraint != NULL) {
        const char *c = sc_json_cstr(sc_json_get(
            sc_json_at(sc_json_get(res.report, v == SC_COMPAT_PENDING ? "pending" : "refusals"),
                       0),
            "constraint"));
        snprintf(first_constraint, size, "%s", c != NULL ? c : "");
    }
    sc_compat_result_free(&res);
    sc_host_facts_free(&h);
    sc_json_free(rel);
    sc_json_free(hj);
    return v;
}

#define HOST(extra)                                                                        \
    "{'platform': 'linux', 'arch': 'x86_64', 'hostEnvironment': 'native',"                 \
    " 'hostAppVersion': '1.4.0', 'ramGb': 64" extra ", 'gpu': %s}"

static void test_verdict_supported_when_every_constraint_holds(void)
{
    CU_ASSERT_EQUAL(verdict_of("", HOST(""), good_gpu, NULL, 0), SC_COMPAT_SUPPORTED);
}

static void test_verdict_refusal_names_each_constraint_in_order(void)
{
    static const struct {
        const char *extra, *host, *gpu, *constraint;
    } rows[] = {
        {"", "{'platform': 'windows', 'arch': 'x86_64', 'hostEnvironment': 'native',"
             " 'hostAppVersion': '1.4.0', 'ramGb': 64, 'gpu': %s}",
         NULL, "target.platform"},
        {"", "{'platform': 'linux', 'arch': 'aarch64', 'hostEnvironment': 'native',"
             " 'hostAppVersion': '1.4.0', 'ramGb': 64, 'gpu': %s}",
         NULL, "target.arch"},
        {"", "{'platform': 'linux', 'arch': 'x86_64', 'hostEnvironment': 'windows-wsl2',"
             " 'hostAppVersion': '1.4.0', 'ramGb': 64, 'gpu': %s}",
         NULL, "compatibility.hostEnvironments"},
        {"", "{'platform': 'linux', 'arch': 'x86_64', 'hostEnvironment': 'native',"
             " 'hostAppVersion': '0.9', 'ramGb': 64, 'gpu': %s}",
         NULL, "compatibility.minHostAppVersion"},
        {"", "{'platform': 'linux', 'arch': 'x86_64', 'hostEnvironment': 'native',"
             " 'hostAppVersion': '2.0', 'ramGb': 64, 'gpu': %s}",
         NULL, "compatibility.maxHostAppVersionExclusive"},
        {"", "{'platform': 'linux', 'arch': 'x86_64', 'hostEnvironment': 'native',"
             " 'hostAppVersion': '1.4.0', 'ramGb': 15.9, 'gpu': %s}",
         NULL, "compatibility.minRamGb"},
        {"", HOST(""),
         "{'status': 'ok', 'driverVersion': '550.54.15', 'cudaVersion': '12.4', 'devices': []}",
         "target.accelerator"},
        {"", HOST(""),
         "{'status': 'ok', 'driverVersion': '550.40', 'cudaVersion': '12.4', 'devices':"
         " [{'name': 'x', 'computeCapability': '9.0', 'memoryBytes': 1}]}",
         "compatibility.minNvidiaDriverVersion"},
        {"", HOST(""),
         "{'status': 'ok', 'driverVersion': '550.54.15', 'cudaVersion': '12.3', 'devices':"
         " [{'name': 'x', 'computeCapability': '9.0', 'memoryBytes': 1}]}",
         "target.cudaVersion"},
        {", 'org.example.minVramGb': 24", HOST(""), NULL, "compatibility.org.example.minVramGb"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        char first[256];
        sc_compat_verdict v = verdict_of(rows[i].extra, rows[i].host,
                                         rows[i].gpu != NULL ? rows[i].gpu : good_gpu, first,
                                         sizeof first);
        CU_ASSERT_EQUAL(v, SC_COMPAT_REFUSED);
        if (strcmp(first, rows[i].constraint) != 0)
            fprintf(stderr, "\n  row %zu: first refusal %s, expected %s\n", i, first,
                    rows[i].constraint);
        CU_ASSERT_STRING_EQUAL(first, rows[i].constraint);
    }
}

static void test_unknown_facts_are_refusals_never_passes(void)
{
    char first[256];
    /* No hostAppVersion, no ramGb, no gpu member. */
    CU_ASSERT_EQUAL(verdict_of("", "{'platform': 'linux', 'arch': 'x86_64',"
                                   " 'hostEnvironment': 'native', 'ramGb': 64, 'gpu': %s}",
                               good_gpu, first, sizeof first),
                    SC_COMPAT_REFUSED);
    CU_ASSERT_STRING_EQUAL(first, "compatibility.minHostAppVersion");
    CU_ASSERT_EQUAL(verdict_of("", "{'platform': 'linux', 'arch': 'x86_64', %s"
                                   "'hostEnvironment': 'native', 'hostAppVersion': '1.4'}",
                               "", first, sizeof first),
                    SC_COMPAT_REFUSED);
    CU_ASSERT_STRING_EQUAL(first, "compatibility.minRamGb");
}

static void test_unprobed_gpu_makes_device_constraints_pending(void)
{
    char first[256];
    CU_ASSERT_EQUAL(verdict_of("", HOST(""), "{'status': 'unprobed', 'reason': 'symbol-missing'}",
                               first, sizeof first),
                    SC_COMPAT_PENDING);
    CU_ASSERT_STRING_EQUAL(first, "target.accelerator");
    /* A refusal elsewhere wins over pending. */
    CU_ASSERT_EQUAL(verdict_of("", "{'platform': 'linux', 'arch': 'x86_64',"
                                   " 'hostEnvironment': 'native', 'hostAppVersion': '1.4.0',"
                                   " 'ramGb': 1, 'gpu': %s}",
                               "{'status': 'unprobed', 'reason': 'x'}", first, sizeof first),
                    SC_COMPAT_REFUSED);
}

static void test_absent_gpu_refuses_cuda_release(void)
{
    char first[256];
    CU_ASSERT_EQUAL(verdict_of("", HOST(""), "{'status': 'absent', 'reason': 'no-driver'}",
                               first, sizeof first),
                    SC_COMPAT_REFUSED);
    CU_ASSERT_STRING_EQUAL(first, "target.accelerator");
}

static void test_refusal_error_is_host_incompatible_naming_fact_value_range(void)
{
    sc_json *rel = parse_dq(cuda_release, "");
    sc_json *hj = parse_dq(HOST(""), "{'status': 'ok', 'driverVersion': '535.104.05',"
                                     " 'cudaVersion': '12.4', 'devices': [{'name': 'x',"
                                     " 'computeCapability': '9.0', 'memoryBytes': 1}]}");
    sc_host_facts h;
    sc_compat_result res;
    sc_error err;
    CU_ASSERT_EQUAL_FATAL(sc_host_facts_from_json(hj, &h, &err), SC_OK);
    CU_ASSERT_EQUAL_FATAL(sc_compat_evaluate(rel, &h, &res, &err), SC_OK);
    SC_EXPECT_CODE(sc_compat_refusal_error(&res, &err), SC_E_HOST_INCOMPATIBLE, &err);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "nvidiaDriverVersion is 535.104.05, required "
                                               ">= 550.54"));
    sc_compat_result_free(&res);
    sc_host_facts_free(&h);
    sc_json_free(rel);
    sc_json_free(hj);
}

static void test_release_is_checked_before_evaluation(void)
{
    sc_json *rel = parse_dq("{'schemaVersion': 3, 'kind': 'scrollcase.box.release'%s}", "");
    sc_host_facts h;
    memset(&h, 0, sizeof h);
    sc_compat_result res;
    sc_error err;
    SC_EXPECT_CODE(sc_compat_evaluate(rel, &h, &res, &err), SC_E_INVALID_MANIFEST, &err);
    CU_ASSERT_PTR_NULL(res.report);
    sc_json_free(rel);
}

static void test_host_facts_are_read_strictly(void)
{
    static const char *const bad[] = {
        "[]%s", "{'arch': 'x86_64'%s}", "{'platform': 'linux'%s}",
        "{'platform': 'linux', 'arch': 'x86_64', 'cpus': 4%s}",
        "{'platform': '', 'arch': 'x86_64'%s}",
        "{'platform': 'linux', 'arch': 'x86_64', 'ramGb': -1%s}",
        "{'platform': 'linux', 'arch': 'x86_64', 'gpu': {'status': 'absent'}%s}",
        "{'platform': 'linux', 'arch': 'x86_64', 'gpu': {'status': 'ok', 'cudaVersion': '12',"
        " 'devices': []}%s}",
        "{'platform': 'linux', 'arch': 'x86_64', 'gpu': {'status': 'ok', 'cudaVersion': '12.100',"
        " 'devices': []}%s}",
        "{'platform': 'linux', 'arch': 'x86_64', 'gpu': {'status': 'ok', 'cudaVersion': '12.4',"
        " 'devices': [{'name': 'x', 'computeCapability': '9', 'memoryBytes': 1}]}%s}",
        "{'platform': 'linux', 'arch': 'x86_64', 'hostAppVersion':"
        " '1.00000000000000000000000000000000000000000000000000000000000000000000000000000"
        "000000000000000000'%s}",
        NULL};
    for (size_t i = 0; bad[i] != NULL; i++) {
        sc_json *j = parse_dq(bad[i], "");
        CU_ASSERT_PTR_NOT_NULL_FATAL(j);
        sc_host_facts h;
        sc_error err;
        sc_code c = sc_host_facts_from_json(j, &h, &err);
        if (c != SC_E_INVALID_HOST_FACTS)
            fprintf(stderr, "\n  facts %zu: %s\n", i, sc_code_name(c));
        CU_ASSERT_EQUAL(c, SC_E_INVALID_HOST_FACTS);
        sc_json_free(j);
    }
}

static void test_host_facts_round_trip_through_json(void)
{
    sc_json *j = parse_dq(HOST(", 'macosVersion': '14.1'"), good_gpu);
    sc_host_facts h;
    sc_error err;
    CU_ASSERT_EQUAL_FATAL(sc_host_facts_from_json(j, &h, &err), SC_OK);
    sc_json *back = sc_host_facts_json(&h);
    CU_ASSERT_TRUE(sc_json_equal(j, back));
    sc_json_free(back);
    sc_host_facts_free(&h);
    sc_json_free(j);
}

static void test_gathered_facts_name_this_host_and_read_back(void)
{
    sc_gpu_probe_options o = {"/nonexistent/libcuda.so.1", "/nonexistent/libnvidia-ml.so.1"};
    sc_host_facts h;
    sc_error err;
    SC_EXPECT_CODE(sc_host_facts_gather(&o, &h, &err), SC_OK, &err);
#ifdef __linux__
    CU_ASSERT_STRING_EQUAL(h.platform, "linux");
#endif
    CU_ASSERT_TRUE(h.platform[0] != '\0' && h.arch[0] != '\0');
    CU_ASSERT_TRUE(h.has_ram && h.ram_gb > 0);
    CU_ASSERT_TRUE(h.has_gpu && h.gpu.status == SC_GPU_ABSENT);
    sc_json *j = sc_host_facts_json(&h);
    sc_host_facts again;
    SC_EXPECT_CODE(sc_host_facts_from_json(j, &again, &err), SC_OK, &err);
    sc_host_facts_free(&again);
    sc_json_free(j);
    sc_host_facts_free(&h);
}

static void test_versions_compare_as_dotted_numbers(void)
{
    int c = 99;
    CU_ASSERT_TRUE(sc_version_compare("550.54", "550.54.0", &c) && c == 0);
    CU_ASSERT_TRUE(sc_version_compare("12.04", "12.4", &c) && c == 0);
    CU_ASSERT_TRUE(sc_version_compare("12.10", "12.9", &c) && c > 0);
    CU_ASSERT_TRUE(sc_version_compare("1", "1.0.1", &c) && c < 0);
    CU_ASSERT_TRUE(sc_version_compare("99999999999999999999999", "2", &c) && c > 0);
    CU_ASSERT_TRUE(sc_version_compare("0.0.0", "0", &c) && c == 0);
    CU_ASSERT_FALSE(sc_version_compare("1.2.0-beta", "1", &c));
    CU_ASSERT_FALSE(sc_version_compare("1..2", "1", &c));
    CU_ASSERT_FALSE(sc_version_compare("", "1", &c));
    CU_ASSERT_FALSE(sc_version_compare("1.", "1", &c));
    CU_ASSERT_FALSE(sc_version_compare("v1", "1", &c));
}

void register_parity_tests(void)
{
    CU_pSuite s = CU_add_suite("parity", NULL, NULL);
    if (s == NULL)
        return;
    SC_ADD_TEST(s, test_values_array_of_numbers);
    SC_ADD_TEST(s, test_values_object_reads_values_member_and_ignores_others);
    SC_ADD_TEST(s, test_values_bit_patterns_are_binary32_and_binary64);
    SC_ADD_TEST(s, test_values_wrong_shapes_are_invalid_parity_values);
    SC_ADD_TEST(s, test_values_not_json_is_invalid_json);
    SC_ADD_TEST(s, test_values_nan_and_infinity_are_parity_non_finite);
    SC_ADD_TEST(s, test_values_shape_is_checked_before_finiteness);
    SC_ADD_TEST(s, test_values_read_file_missing_is_io_error);
    SC_ADD_TEST(s, test_tolerances_at_least_one_bound);
    SC_ADD_TEST(s, test_tolerances_absolute_and_relative_finite_and_positive);
    SC_ADD_TEST(s, test_tolerances_cosine_at_most_one_below_minus_one_vacuous);
    SC_ADD_TEST(s, test_tolerance_text_is_one_json_number_literal);
    SC_ADD_TEST(s, test_tolerances_object_refuses_unknown_members_and_non_numbers);
    SC_ADD_TEST(s, test_compare_checks_tolerances_before_lengths);
    SC_ADD_TEST(s, test_length_mismatch_fails_before_measuring);
    SC_ADD_TEST(s, test_measurements_absolute_relative_cosine);
    SC_ADD_TEST(s, test_equal_vectors_have_cosine_exactly_one);
    SC_ADD_TEST(s, test_relative_error_skips_zero_references);
    SC_ADD_TEST(s, test_relative_error_counts_tiny_nonzero_references);
    SC_ADD_TEST(s, test_cosine_zero_vector_rule);
    SC_ADD_TEST(s, test_cosine_of_opposite_and_scaled_vectors);
    SC_ADD_TEST(s, test_cosine_of_subnormal_vectors_is_not_assumed);
    SC_ADD_TEST(s, test_overflowing_measurements_saturate);
    SC_ADD_TEST(s, test_bound_equal_to_measurement_passes);
    SC_ADD_TEST(s, test_breach_absolute_then_relative_then_cosine);
    SC_ADD_TEST(s, test_cosine_only_drift_breaches_cosine_bound);
    SC_ADD_TEST(s, test_gate_records_every_candidate_against_the_first);

    CU_pSuite p = CU_add_suite("gpu_probe", NULL, NULL);
    if (p == NULL)
        return;
    SC_ADD_TEST(p, test_probe_no_driver_library_is_absent_no_driver);
    SC_ADD_TEST(p, test_probe_reads_driver_devices_and_nvml_version);
    SC_ADD_TEST(p, test_probe_without_nvml_leaves_driver_version_unknown);
    SC_ADD_TEST(p, test_gates_host_records_driver_and_each_gpu);
    SC_ADD_TEST(p, test_probe_no_device_init_fail_zero_count_are_absent);
    SC_ADD_TEST(p, test_probe_missing_symbol_is_unprobed);

    CU_pSuite c = CU_add_suite("compat", NULL, NULL);
    if (c == NULL)
        return;
    SC_ADD_TEST(c, test_verdict_supported_when_every_constraint_holds);
    SC_ADD_TEST(c, test_verdict_refusal_names_each_constraint_in_order);
    SC_ADD_TEST(c, test_unknown_facts_are_refusals_never_passes);
    SC_ADD_TEST(c, test_unprobed_gpu_makes_device_constraints_pending);
    SC_ADD_TEST(c, test_absent_gpu_refuses_cuda_release);
    SC_ADD_TEST(c, test_refusal_error_is_host_incompatible_naming_fact_value_range);
    SC_ADD_TEST(c, test_release_is_checked_before_evaluation);
    SC_ADD_TEST(c, test_host_facts_are_read_strictly);
    SC_ADD_TEST(c, test_host_facts_round_trip_through_json);
    SC_ADD_TEST(c, test_gathered_facts_name_this_host_and_read_back);
    SC_ADD_TEST(c, test_versions_compare_as_dotted_numbers);
}
