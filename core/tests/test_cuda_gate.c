/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_cuda_gate.c — the CUDA binaries gate (docs/format-v3.md 19.10) over
 * audits written by hand, and the coverage rule of 19.11.  One test per
 * rule.  The gate through `scrollcase build`, over ELF files made by cc and
 * nvcc and the toolkit's own libraries, is cuda/tests/cuda_binaries_gate_test.sh.
 */
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "scrollcase/compat.h"
#include "scrollcase/cuda_binaries.h"
#include "scrollcase/gates.h"
#include "scrollcase/json.h"
#include "scrollcase/target.h"

/* ---- an audit by hand ------------------------------------------------------ */

#define MAX 8

typedef struct fake {
    sc_cuda_binaries a;
    sc_cuda_binary files[MAX];
    sc_cuda_code_count codes[MAX];
    sc_cuda_library libs[MAX];
    char *needed[MAX][MAX];
} fake;

static void fake_init(fake *f)
{
    memset(f, 0, sizeof *f);
    f->a.files = f->files;
    f->a.codes = f->codes;
    f->a.libraries = f->libs;
}

/* A library entry (kept in soname order by the caller). */
static void add_library(fake *f, const char *soname, const char *shipped_by,
                        const char *needed_by)
{
    sc_cuda_library *l = &f->libs[f->a.library_count++];
    l->soname = (char *)soname;
    l->rule = sc_cuda_library_rule_find(soname, &l->major);
    l->shipped_by = shipped_by;
    l->needed_by = needed_by;
    l->needed_count = needed_by != NULL;
}

/* A file (in path order) shipping soname (or NULL) and needing one name (or NULL). */
static sc_cuda_binary *add_file(fake *f, const char *path, const char *soname,
                                const char *needs)
{
    size_t i = f->a.file_count++;
    sc_cuda_binary *b = &f->files[i];
    b->path = (char *)path;
    b->size = 1000;
    b->elf.soname = (char *)soname;
    if (needs != NULL) {
        f->needed[i][0] = (char *)needs;
        b->elf.needed = f->needed[i];
        b->elf.needed_count = 1;
    }
    if (soname != NULL)
        add_library(f, soname, path, NULL);
    if (needs != NULL)
        add_library(f, needs, NULL, path);
    return b;
}

static void add_code(fake *f, const char *name)
{
    sc_cuda_code_count *c = &f->codes[f->a.code_count++];
    CU_ASSERT_FATAL(sc_cuda_code_parse(name, &c->code));
    c->entries = c->files = 1;
}

static sc_target target(const char *platform_arch_accel, const char *cuda)
{
    sc_target t;
    memset(&t, 0, sizeof t);
    t.platform = strncmp(platform_arch_accel, "windows", 7) == 0 ? SC_PLATFORM_WINDOWS
                                                                 : SC_PLATFORM_LINUX;
    t.arch = SC_ARCH_X86_64;
    t.accelerator = strstr(platform_arch_accel, "cuda") ? SC_ACCEL_CUDA : SC_ACCEL_CPU;
    if (cuda != NULL)
        strcpy(t.cuda_version, cuda);
    return t;
}

static sc_code gate(const fake *f, const sc_target *t, const sc_json *declared,
                    sc_json **record, char **warning, sc_error *err)
{
    return sc_gate_cuda_binaries(&f->a, t, declared, record, warning, err);
}

static char *compact(const sc_json *v)
{
    char *s = NULL;
    size_t n = 0;
    sc_error err;
    if (v == NULL || sc_json_write_compact(v, &s, &n, &err) != SC_OK)
        return NULL;
    return s;
}

/* ---- the gate ----------------------------------------------------------------- */

static void test_nothing_cuda_is_missing(void)
{
    fake f;
    fake_init(&f);
    add_file(&f, "venv/lib/libopenblas.so.0", "libopenblas.so.0", "libc.so.6");
    sc_target t = target("linux-cuda", "13.0");
    sc_json *rec = NULL;
    sc_error err;
    CU_ASSERT_EQUAL(gate(&f, &t, NULL, &rec, NULL, &err), SC_E_CUDA_BINARIES_MISSING);
    CU_ASSERT_PTR_NULL(rec);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "linux-x86_64-cuda13.0"));
}

static void test_declaration_lifts_missing(void)
{
    fake f;
    fake_init(&f);
    add_file(&f, "venv/lib/libopenblas.so.0", "libopenblas.so.0", NULL);
    sc_target t = target("linux-cuda", "13.0");
    sc_json *decl = NULL, *rec = NULL;
    sc_error err;
    const char *d = "{\"deviceCode\":\"runtime\",\"reason\":\"Triton\"}";
    CU_ASSERT_EQUAL_FATAL(sc_json_parse(d, strlen(d), &decl, &err), SC_OK);
    CU_ASSERT_EQUAL(gate(&f, &t, decl, &rec, NULL, &err), SC_OK);
    char *s = compact(rec);
    CU_ASSERT_STRING_EQUAL(s, "{\"cubins\":[],\"ptx\":[],\"cudaMajors\":[],\"opaqueLibraries\":[],"
                              "\"declared\":{\"deviceCode\":\"runtime\",\"reason\":\"Triton\"}}");
    free(s);
    sc_json_free(rec);
    sc_json_free(decl);
}

static void test_needing_the_driver_alone_is_not_missing(void)
{
    fake f;
    fake_init(&f);
    add_file(&f, "venv/bin/app", NULL, "libcuda.so.1");
    sc_target t = target("linux-cuda", "13.0");
    sc_json *rec = NULL;
    sc_error err;
    CU_ASSERT_EQUAL(gate(&f, &t, NULL, &rec, NULL, &err), SC_OK);
    char *s = compact(rec);
    CU_ASSERT_STRING_EQUAL(s, "{\"cubins\":[],\"ptx\":[],\"cudaMajors\":[],\"opaqueLibraries\":[]}");
    free(s);
    sc_json_free(rec);
}

static void test_shipped_major_mismatch_names_file_and_soname(void)
{
    fake f;
    fake_init(&f);
    add_file(&f, "venv/lib/a/libcudart.so.12", "libcudart.so.12", NULL);
    add_file(&f, "venv/lib/b/libcublas.so.11", "libcublas.so.11", NULL);
    sc_target t = target("linux-cuda", "13.0");
    sc_json *rec = NULL;
    sc_error err;
    CU_ASSERT_EQUAL(gate(&f, &t, NULL, &rec, NULL, &err), SC_E_CUDA_BINARIES_MISMATCH);
    /* the first in path order */
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "venv/lib/a/libcudart.so.12 ships libcudart.so.12"));
    CU_ASSERT_STRING_EQUAL(err.path, "venv/lib/a/libcudart.so.12");
}

static void test_needed_major_mismatch_names_the_needing_file(void)
{
    fake f;
    fake_init(&f);
    add_file(&f, "venv/lib/libtorch_cuda.so", "libtorch_cuda.so", "libcublasLt.so.12");
    sc_target t = target("linux-cuda", "13.0");
    sc_json *rec = NULL;
    sc_error err;
    CU_ASSERT_EQUAL(gate(&f, &t, NULL, &rec, NULL, &err), SC_E_CUDA_BINARIES_MISMATCH);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "libtorch_cuda.so needs libcublasLt.so.12"));
}

static void test_own_major_sonames_are_not_judged(void)
{
    fake f;
    fake_init(&f);
    /* CUDA 13.0 itself ships these */
    add_file(&f, "venv/lib/libcufft.so.12", "libcufft.so.12", NULL);
    add_file(&f, "venv/lib/libcurand.so.10", "libcurand.so.10", NULL);
    add_file(&f, "venv/lib/libnccl.so.2", "libnccl.so.2", NULL);
    sc_target t = target("linux-cuda", "13.0");
    sc_json *rec = NULL;
    sc_error err;
    CU_ASSERT_EQUAL(gate(&f, &t, NULL, &rec, NULL, &err), SC_OK);
    sc_json_free(rec);
}

static void test_declaration_does_not_lift_mismatch(void)
{
    fake f;
    fake_init(&f);
    add_file(&f, "venv/lib/libcudart.so.12", "libcudart.so.12", NULL);
    sc_target t = target("linux-cuda", "13.0");
    sc_json *decl = NULL, *rec = NULL;
    sc_error err;
    const char *d = "{\"deviceCode\":\"runtime\",\"reason\":\"Numba\"}";
    CU_ASSERT_EQUAL_FATAL(sc_json_parse(d, strlen(d), &decl, &err), SC_OK);
    CU_ASSERT_EQUAL(gate(&f, &t, decl, &rec, NULL, &err), SC_E_CUDA_BINARIES_MISMATCH);
    sc_json_free(decl);
}

static void test_record_is_the_union_in_canonical_order(void)
{
    fake f;
    fake_init(&f);
    add_file(&f, "venv/lib/libcublas.so.13", "libcublas.so.13", "libcudart.so.13");
    add_file(&f, "venv/lib/libcudnn.so.9", "libcudnn.so.9", NULL);
    /* the audit's union, in sc_cuda_code_compare order */
    add_code(&f, "sm_90");
    add_code(&f, "sm_90a");
    add_code(&f, "sm_100");
    add_code(&f, "sm_100f");
    add_code(&f, "compute_90");
    /* libraries by soname: libcublas, libcudart (needed), libcudnn */
    sc_target t = target("linux-cuda", "13.0");
    sc_json *rec = NULL;
    sc_error err;
    CU_ASSERT_EQUAL_FATAL(gate(&f, &t, NULL, &rec, NULL, &err), SC_OK);
    char *s = compact(rec);
    CU_ASSERT_STRING_EQUAL(s, "{\"cubins\":[\"sm_90\",\"sm_90a\",\"sm_100\",\"sm_100f\"],"
                              "\"ptx\":[\"compute_90\"],\"cudaMajors\":[13],"
                              "\"opaqueLibraries\":[\"libcudnn.so.9\"]}");
    free(s);
    sc_json_free(rec);
}

static void test_cpu_target_warns_and_records_nothing(void)
{
    fake f;
    fake_init(&f);
    add_file(&f, "venv/lib/libcudart.so.12", "libcudart.so.12", NULL);
    add_file(&f, "venv/lib/libz.so.1", "libz.so.1", NULL);
    sc_target t = target("linux-cpu", NULL);
    sc_json *rec = NULL;
    char *warning = NULL;
    sc_error err;
    /* no mismatch for a CPU box: it has no CUDA major */
    CU_ASSERT_EQUAL(gate(&f, &t, NULL, &rec, &warning, &err), SC_OK);
    CU_ASSERT_PTR_NULL(rec);
    CU_ASSERT_PTR_NOT_NULL_FATAL(warning);
    CU_ASSERT_PTR_NOT_NULL(strstr(warning, "1 file(s)"));
    CU_ASSERT_PTR_NOT_NULL(strstr(warning, "1000 bytes"));
    free(warning);
}

static void test_cpu_target_without_cuda_is_silent(void)
{
    fake f;
    fake_init(&f);
    add_file(&f, "venv/lib/libz.so.1", "libz.so.1", NULL);
    sc_target t = target("linux-cpu", NULL);
    sc_json *rec = NULL;
    char *warning = (char *)"x";
    sc_error err;
    CU_ASSERT_EQUAL(gate(&f, &t, NULL, &rec, &warning, &err), SC_OK);
    CU_ASSERT_PTR_NULL(warning);
    CU_ASSERT_PTR_NULL(rec);
}

static void test_unreadable_file_counts_for_nothing(void)
{
    fake f;
    fake_init(&f);
    sc_cuda_binary *b = add_file(&f, "venv/lib/broken.so", NULL, NULL);
    b->error = (char *)"invalid-elf";
    f.a.unreadable = 1;
    sc_target t = target("linux-cuda", "12.4");
    sc_json *rec = NULL;
    sc_error err;
    CU_ASSERT_EQUAL(gate(&f, &t, NULL, &rec, NULL, &err), SC_E_CUDA_BINARIES_MISSING);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "1 unreadable"));
}

static void test_windows_target_is_not_judged(void)
{
    fake f;
    fake_init(&f);
    sc_target t = target("windows-cuda", "12.4");
    sc_json *rec = NULL;
    sc_error err;
    CU_ASSERT_EQUAL(gate(&f, &t, NULL, &rec, NULL, &err), SC_OK);
    CU_ASSERT_PTR_NULL(rec);
}

/* ---- coverage (19.11) -------------------------------------------------------- */

static int runs(const char *name, int major, int minor)
{
    sc_cuda_code c;
    CU_ASSERT_FATAL(sc_cuda_code_parse(name, &c));
    return sc_cuda_code_runs_on(&c, major, minor);
}

static void test_cubin_runs_on_later_minors_of_its_major(void)
{
    CU_ASSERT(runs("sm_80", 8, 0));
    CU_ASSERT(runs("sm_80", 8, 6));
    CU_ASSERT(!runs("sm_86", 8, 0));
    CU_ASSERT(!runs("sm_80", 9, 0));
    CU_ASSERT(!runs("sm_90", 8, 9));
    CU_ASSERT(runs("sm_120", 12, 1));
}

static void test_arch_specific_runs_on_exactly_its_capability(void)
{
    CU_ASSERT(runs("sm_90a", 9, 0));
    CU_ASSERT(!runs("sm_100a", 10, 3));
    CU_ASSERT(runs("compute_90a", 9, 0));
    CU_ASSERT(!runs("compute_90a", 10, 0));
}

static void test_family_specific_runs_within_its_family(void)
{
    CU_ASSERT(runs("sm_100f", 10, 0));
    CU_ASSERT(runs("sm_100f", 10, 3));
    CU_ASSERT(!runs("sm_103f", 10, 0));
    CU_ASSERT(!runs("sm_100f", 12, 0));
    CU_ASSERT(runs("compute_100f", 10, 3));
    CU_ASSERT(!runs("compute_100f", 11, 0));
}

static void test_plain_ptx_runs_at_or_above_its_architecture(void)
{
    CU_ASSERT(runs("compute_80", 8, 0));
    CU_ASSERT(runs("compute_80", 8, 9));
    CU_ASSERT(runs("compute_80", 12, 0));
    CU_ASSERT(!runs("compute_90", 8, 9));
    CU_ASSERT(!runs("compute_86", 8, 0));
}

void register_cuda_gate_tests(void)
{
    CU_pSuite s = CU_add_suite("cuda_gate", NULL, NULL);
    SC_ADD_TEST(s, test_nothing_cuda_is_missing);
    SC_ADD_TEST(s, test_declaration_lifts_missing);
    SC_ADD_TEST(s, test_needing_the_driver_alone_is_not_missing);
    SC_ADD_TEST(s, test_shipped_major_mismatch_names_file_and_soname);
    SC_ADD_TEST(s, test_needed_major_mismatch_names_the_needing_file);
    SC_ADD_TEST(s, test_own_major_sonames_are_not_judged);
    SC_ADD_TEST(s, test_declaration_does_not_lift_mismatch);
    SC_ADD_TEST(s, test_record_is_the_union_in_canonical_order);
    SC_ADD_TEST(s, test_cpu_target_warns_and_records_nothing);
    SC_ADD_TEST(s, test_cpu_target_without_cuda_is_silent);
    SC_ADD_TEST(s, test_unreadable_file_counts_for_nothing);
    SC_ADD_TEST(s, test_windows_target_is_not_judged);
    SC_ADD_TEST(s, test_cubin_runs_on_later_minors_of_its_major);
    SC_ADD_TEST(s, test_arch_specific_runs_on_exactly_its_capability);
    SC_ADD_TEST(s, test_family_specific_runs_within_its_family);
    SC_ADD_TEST(s, test_plain_ptx_runs_at_or_above_its_architecture);
}
