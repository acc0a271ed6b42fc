/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_audit.c — docs/format-v3.md 19, the CUDA ABI audit: one test per
 * rule of 19.4-19.5 (each finding produced, and not produced by a clean
 * input), the order and shape of the report, the conda-meta audit of a
 * payload (19.5, verify --audit) and the build gate (19.7).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "scrollcase/audit.h"
#include "scrollcase/path.h"
#include "scrollcase/file.h"
#include "scrollcase/json.h"
#include "scrollcase/pixi_lock.h"
#include "scrollcase/target.h"
#include "scrollcase/toml.h"

void sc_test_register_toml(void);
void sc_test_register_wheel(void);
void sc_test_register_pixi_lock(void);

/* ---- inputs ------------------------------------------------------------- */

#define CF "https://conda.anaconda.org/conda-forge/"
#define PYPI "https://files.pythonhosted.org/packages/ab/"

#define PY312 "- conda: " CF "linux-64/python-3.12.7-hc5c86c4_0_cpython.conda\n  license: Python-2.0\n"
#define CV124 "- conda: " CF "noarch/cuda-version-12.4-h3060b56_3.conda\n"
#define CV126 "- conda: " CF "noarch/cuda-version-12.6-h7480c83_3.conda\n"
#define PT_CUDA "- conda: https://conda.anaconda.org/pytorch/linux-64/pytorch-2.5.1-py3.12_cuda12.4_cudnn9.1.0_0.tar.bz2\n"
#define PT_CPU "- conda: " CF "linux-64/pytorch-2.5.1-cpu_mkl_py312_heeca0f5_108.conda\n"
#define PT_126 "- conda: " CF "linux-64/pytorch-2.5.1-cuda126_mkl_py312_h1f6bd35_306.conda\n"
#define OSX_PKG "- conda: " CF "osx-arm64/libcxx-19.1.4-ha82da77_0.conda\n"
#define TORCH_WHL "- pypi: " PYPI "torch-2.5.1-cp312-cp312-manylinux1_x86_64.whl\n  name: torch\n  version: 2.5.1\n"
#define TORCH_CPU "- pypi: https://download.pytorch.org/whl/cpu/torch-2.5.1%2Bcpu-cp312-cp312-linux_x86_64.whl\n" \
                  "  name: torch\n  version: 2.5.1+cpu\n"
#define TV_OK "- pypi: " PYPI "torchvision-0.20.1-cp312-cp312-manylinux1_x86_64.whl\n  name: torchvision\n" \
              "  version: 0.20.1\n  requires_dist:\n  - numpy\n  - torch==2.5.1\n"
#define TV_CU118 "- pypi: https://download.pytorch.org/whl/cu118/torchvision-0.20.1%2Bcu118-cp312-cp312-linux_x86_64.whl\n" \
                 "  name: torchvision\n  version: 0.20.1+cu118\n  requires_dist:\n  - torch==2.5.1\n"
#define NV12 "- pypi: " PYPI "nvidia_cublas_cu12-12.4.5.8-py3-none-manylinux2014_x86_64.whl\n" \
             "  name: nvidia-cublas-cu12\n  version: 12.4.5.8\n"
#define NV11 "- pypi: " PYPI "nvidia_cuda_runtime_cu11-11.8.89-py3-none-manylinux2014_x86_64.whl\n" \
             "  name: nvidia-cuda-runtime-cu11\n  version: 11.8.89\n"
#define FA(tag, py) "- pypi: " PYPI "flash_attn-2.7.0.post2%2B" tag "-" py "-" py "-linux_x86_64.whl\n" \
                    "  name: flash-attn\n  version: 2.7.0.post2+" tag "\n  requires_dist:\n  - torch\n"
#define MAC_WHL "- pypi: " PYPI "safetensors-0.4.5-cp312-cp312-macosx_11_0_arm64.whl\n  name: safetensors\n  version: 0.4.5\n"
#define TA_211 "- pypi: " PYPI "torchaudio-2.11.0-cp312-cp312-manylinux_2_28_x86_64.whl\n  name: torchaudio\n  version: 2.11.0\n"
#define TORCH_291 "- pypi: " PYPI "torch-2.9.1-cp312-cp312-manylinux_2_28_x86_64.whl\n  name: torch\n  version: 2.9.1\n"
#define TC_080 "- pypi: " PYPI "torchcodec-0.8.0-cp312-cp312-manylinux_2_28_x86_64.whl\n  name: torchcodec\n  version: 0.8.0\n"
#define XF_PIN "- pypi: " PYPI "xformers-0.0.28-cp39-abi3-manylinux_2_28_x86_64.whl\n  name: xformers\n  version: 0.0.28\n" \
               "  requires_dist:\n  - numpy\n  - torch==2.4.0 ; platform_system == 'Linux'\n  - torch>=2 ; extra == 'x'\n"

#define TOML_HEAD "[workspace]\nname = \"demo\"\nchannels = [\"conda-forge\"]\n"
#define TOML_OK TOML_HEAD "platforms = [\"linux-64\"]\n[system-requirements]\ncuda = \"12.4\"\n" \
                "[dependencies]\npython = \"3.12.*\"\ncuda-version = \"12.4.*\"\n"

/* A lock (format 6) whose default environment lists pkgs for platform. */
static char *mk_lock(const char *platform, const char *const *pkgs)
{
    size_t cap = 4096;
    for (size_t i = 0; pkgs[i]; i++)
        cap += 2 * strlen(pkgs[i]) + 16;
    char *out = malloc(cap);
    CU_ASSERT_FATAL(out != NULL);
    size_t n = (size_t)snprintf(out, cap, "version: 6\nenvironments:\n  default:\n    channels:\n"
                                          "    - url: " CF "\n    packages:\n      %s:\n", platform);
    for (size_t i = 0; pkgs[i]; i++) {
        size_t first = strcspn(pkgs[i], "\n");
        n += (size_t)snprintf(out + n, cap - n, "      %.*s\n", (int)first, pkgs[i]);
    }
    n += (size_t)snprintf(out + n, cap - n, "packages:\n");
    for (size_t i = 0; pkgs[i]; i++)
        n += (size_t)snprintf(out + n, cap - n, "%s", pkgs[i]);
    return out;
}

static sc_target target_of(const char *id)
{
    sc_target t;
    sc_error err;
    sc_code c = sc_target_parse_id(id, &t, &err);
    CU_ASSERT_EQUAL_FATAL(c, SC_OK);
    return t;
}

/* Audit toml and a lock of pkgs for target id; the call must succeed. */
static sc_audit_report audit_as(const char *id, const char *platform, const char *toml,
                                const char *const *pkgs)
{
    sc_audit_report rep;
    memset(&rep, 0, sizeof rep);
    sc_target t = target_of(id);
    sc_json *doc = NULL;
    sc_pixi_lock *lock = NULL;
    sc_error err;
    SC_EXPECT_CODE(sc_toml_parse(toml, strlen(toml), "pixi.toml", &doc, &err), SC_OK, &err);
    char *text = mk_lock(platform, pkgs);
    SC_EXPECT_CODE(sc_pixi_lock_parse(text, strlen(text), "pixi.lock", &lock, &err), SC_OK, &err);
    free(text);
    if (doc != NULL && lock != NULL)
        SC_EXPECT_CODE(sc_audit_pixi(&t, doc, "pixi.toml", lock, &rep, &err), SC_OK, &err);
    sc_json_free(doc);
    sc_pixi_lock_free(lock);
    return rep;
}

#define AUDIT(toml, ...) audit_as("linux-x86_64-cuda12.4", "linux-64", (toml), \
                                  (const char *const[]){__VA_ARGS__, NULL})

static size_t count_code(const sc_audit_report *r, sc_audit_code code, const char *pkg)
{
    size_t n = 0;
    for (size_t i = 0; i < r->count; i++)
        if (r->findings[i].code == code && (pkg == NULL || strcmp(r->findings[i].package, pkg) == 0))
            n++;
    return n;
}

static void print_report(const sc_audit_report *r)
{
    for (size_t i = 0; i < r->count; i++)
        fprintf(stderr, "\n    %s %s [%s] %s", sc_audit_severity_name(r->findings[i].severity),
                sc_audit_code_name(r->findings[i].code), r->findings[i].package,
                r->findings[i].evidence);
}

/* Exactly the one finding code (for pkg), nothing else. */
static void expect_only_at(sc_audit_report r, sc_audit_code code, const char *pkg, int line)
{
    int ok = r.count == 1 && count_code(&r, code, pkg) == 1;
    if (!ok) {
        fprintf(stderr, "\n  line %d: want only %s [%s], got %zu:", line, sc_audit_code_name(code),
                pkg ? pkg : "*", r.count);
        print_report(&r);
    }
    CU_assertImplementation(ok, (unsigned)line, "exactly the expected finding", __FILE__, "",
                            CU_FALSE);
    sc_audit_report_free(&r);
}
#define EXPECT_ONLY(rep, code, pkg) expect_only_at((rep), (code), (pkg), __LINE__)

static void expect_none_at(sc_audit_report r, int line)
{
    if (r.count != 0) {
        fprintf(stderr, "\n  line %d: want no finding, got %zu:", line, r.count);
        print_report(&r);
    }
    CU_assertImplementation(r.count == 0, (unsigned)line, "no finding", __FILE__, "", CU_FALSE);
    sc_audit_report_free(&r);
}
#define EXPECT_NONE(rep) expect_none_at((rep), __LINE__)

/* ---- clean inputs ------------------------------------------------------- */

static void test_clean_conda_cuda_lock_has_no_finding(void)
{
    EXPECT_NONE(AUDIT(TOML_OK, PY312, CV124, PT_CUDA));
}

static void test_clean_pypi_cuda_lock_has_no_finding(void)
{
    EXPECT_NONE(AUDIT(TOML_OK, PY312, CV124, TORCH_WHL, TV_OK, NV12,
                      FA("cu12torch2.5cxx11abiFALSE", "cp312")));
}

static void test_cpu_target_skips_the_cuda_checks(void)
{
    EXPECT_NONE(audit_as("linux-x86_64-cpu", "linux-64", TOML_HEAD "platforms = [\"linux-64\"]\n",
                         (const char *const[]){PY312, PT_CPU, TORCH_CPU, NV11, NULL}));
}

/* ---- pixi.toml (19.4) ---------------------------------------------------- */

static void test_platforms_must_be_the_target_subdir(void)
{
    const char *rest = "[system-requirements]\ncuda = \"12.4\"\n[dependencies]\ncuda-version = \"12.4.*\"\n";
    char toml[512];
    snprintf(toml, sizeof toml, TOML_HEAD "platforms = [\"linux-64\", \"osx-arm64\"]\n%s", rest);
    EXPECT_ONLY(AUDIT(toml, PY312, CV124, PT_CUDA), SC_AUDIT_PLATFORMS_MISMATCH, "");
    snprintf(toml, sizeof toml, TOML_HEAD "platforms = [\"win-64\"]\n%s", rest);
    EXPECT_ONLY(AUDIT(toml, PY312, CV124, PT_CUDA), SC_AUDIT_PLATFORMS_MISMATCH, "");
    snprintf(toml, sizeof toml, TOML_HEAD "%s", rest);
    EXPECT_ONLY(AUDIT(toml, PY312, CV124, PT_CUDA), SC_AUDIT_PLATFORMS_MISMATCH, "");
    snprintf(toml, sizeof toml, "[project]\nplatforms = [\"linux-64\"]\n%s", rest);
    EXPECT_NONE(AUDIT(toml, PY312, CV124, PT_CUDA));
}

static void test_system_requirement_cuda_must_agree(void)
{
    const char *pin = "[dependencies]\ncuda-version = \"12.4.*\"\n";
    char toml[512];
    snprintf(toml, sizeof toml, TOML_HEAD "platforms = [\"linux-64\"]\n%s", pin);
    EXPECT_ONLY(AUDIT(toml, PY312, CV124, PT_CUDA), SC_AUDIT_SYSTEM_CUDA_MISSING, "");
    snprintf(toml, sizeof toml, TOML_HEAD "platforms = [\"linux-64\"]\n[system-requirements]\ncuda = \"11.8\"\n%s", pin);
    EXPECT_ONLY(AUDIT(toml, PY312, CV124, PT_CUDA), SC_AUDIT_SYSTEM_CUDA_MISMATCH, "");
    snprintf(toml, sizeof toml, TOML_HEAD "platforms = [\"linux-64\"]\n[system-requirements]\ncuda = 12\n%s", pin);
    EXPECT_ONLY(AUDIT(toml, PY312, CV124, PT_CUDA), SC_AUDIT_SYSTEM_CUDA_MISMATCH, "");
    /* a major alone does not contradict 12.4 */
    snprintf(toml, sizeof toml, TOML_HEAD "platforms = [\"linux-64\"]\n[system-requirements]\ncuda = \"12\"\n%s", pin);
    EXPECT_NONE(AUDIT(toml, PY312, CV124, PT_CUDA));
}

static void test_cuda_version_pin_must_fix_the_target_minor(void)
{
    const char *head = TOML_HEAD "platforms = [\"linux-64\"]\n[system-requirements]\ncuda = \"12.4\"\n";
    char toml[512];
    snprintf(toml, sizeof toml, "%s[dependencies]\npython = \"3.12.*\"\n", head);
    EXPECT_ONLY(AUDIT(toml, PY312, CV124, PT_CUDA), SC_AUDIT_CUDA_VERSION_PIN_MISSING, "cuda-version");
    snprintf(toml, sizeof toml, "%s[dependencies]\ncuda-version = \"12.1.*\"\n", head);
    EXPECT_ONLY(AUDIT(toml, PY312, CV124, PT_CUDA), SC_AUDIT_CUDA_VERSION_PIN_MISMATCH, "cuda-version");
    snprintf(toml, sizeof toml, "%s[dependencies]\ncuda-version = \">=12\"\n", head);
    EXPECT_ONLY(AUDIT(toml, PY312, CV124, PT_CUDA), SC_AUDIT_CUDA_VERSION_PIN_LOOSE, "cuda-version");
    snprintf(toml, sizeof toml, "%s[dependencies]\ncuda-version = \"12.*\"\n", head);
    EXPECT_ONLY(AUDIT(toml, PY312, CV124, PT_CUDA), SC_AUDIT_CUDA_VERSION_PIN_LOOSE, "cuda-version");
    snprintf(toml, sizeof toml, "%s[dependencies]\ncuda-version = { version = \"==12.4\" }\n", head);
    EXPECT_NONE(AUDIT(toml, PY312, CV124, PT_CUDA));
    /* the platform's own table is read first */
    snprintf(toml, sizeof toml, "%s[dependencies]\ncuda-version = \"11.8.*\"\n"
             "[target.linux-64.dependencies]\ncuda-version = \"12.4\"\n", head);
    EXPECT_NONE(AUDIT(toml, PY312, CV124, PT_CUDA));
}

static void test_workspace_table_is_required(void)
{
    sc_target t = target_of("linux-x86_64-cuda12.4");
    const char *toml = "[dependencies]\npython = \"3.12.*\"\n";
    char *text = mk_lock("linux-64", (const char *const[]){PY312, NULL});
    sc_json *doc = NULL;
    sc_pixi_lock *lock = NULL;
    sc_error err;
    sc_audit_report rep;
    memset(&rep, 0, sizeof rep);
    CU_ASSERT_EQUAL_FATAL(sc_toml_parse(toml, strlen(toml), "pixi.toml", &doc, &err), SC_OK);
    CU_ASSERT_EQUAL_FATAL(sc_pixi_lock_parse(text, strlen(text), "pixi.lock", &lock, &err), SC_OK);
    SC_EXPECT_CODE(sc_audit_pixi(&t, doc, "pixi.toml", lock, &rep, &err), SC_E_INVALID_PIXI_TOML, &err);
    sc_audit_report_free(&rep);
    sc_json_free(doc);
    sc_pixi_lock_free(lock);
    free(text);
}

/* ---- conda packages (19.5) ----------------------------------------------- */

static void test_lock_without_the_target_platform(void)
{
    EXPECT_ONLY(audit_as("linux-x86_64-cuda12.4", "win-64", TOML_OK,
                         (const char *const[]){PY312, CV124, NULL}),
                SC_AUDIT_LOCK_PLATFORM_MISSING, "");
}

static void test_conda_package_from_another_subdir(void)
{
    EXPECT_ONLY(AUDIT(TOML_OK, PY312, CV124, PT_CUDA, OSX_PKG), SC_AUDIT_CONDA_SUBDIR_MISMATCH, "libcxx");
}

static void test_conda_cpu_build_under_a_cuda_target(void)
{
    EXPECT_ONLY(AUDIT(TOML_OK, PY312, CV124, PT_CPU), SC_AUDIT_CONDA_CPU_BUILD, "pytorch");
}

static void test_conda_build_for_another_cuda_version(void)
{
    EXPECT_ONLY(AUDIT(TOML_OK, PY312, CV124, PT_126), SC_AUDIT_CONDA_CUDA_BUILD_MISMATCH, "pytorch");
}

static void test_cuda_version_resolved_to_another_minor(void)
{
    EXPECT_ONLY(AUDIT(TOML_OK, PY312, CV126, PT_CUDA), SC_AUDIT_CUDA_VERSION_LOCKED_MISMATCH, "cuda-version");
}

static void test_cuda_version_not_locked_is_a_warning(void)
{
    sc_audit_report r = AUDIT(TOML_OK, PY312, PT_CUDA);
    CU_ASSERT(r.errors == 0 && r.warnings == 1);
    EXPECT_ONLY(r, SC_AUDIT_CUDA_VERSION_NOT_LOCKED, "cuda-version");
}

/* ---- PyPI wheels (19.5) -------------------------------------------------- */

static void test_cpu_wheel_under_a_cuda_target(void)
{
    EXPECT_ONLY(AUDIT(TOML_OK, PY312, CV124, TORCH_CPU), SC_AUDIT_WHEEL_CPU_BUILD, "torch");
}

static void test_wheel_for_another_cuda_version(void)
{
    EXPECT_ONLY(AUDIT(TOML_OK, PY312, CV124, TORCH_WHL, TV_CU118), SC_AUDIT_WHEEL_CUDA_MISMATCH,
                "torchvision");
    EXPECT_ONLY(AUDIT(TOML_OK, PY312, CV124, TORCH_WHL, FA("cu11torch2.5cxx11abiFALSE", "cp312")),
                SC_AUDIT_WHEEL_CUDA_MISMATCH, "flash-attn");
}

static void test_nvidia_runtime_wheel_of_another_major(void)
{
    EXPECT_ONLY(AUDIT(TOML_OK, PY312, CV124, TORCH_WHL, NV12, NV11), SC_AUDIT_NVIDIA_WHEEL_MAJOR_MISMATCH,
                "nvidia-cuda-runtime-cu11");
}

static void test_wheel_python_tag_must_run_on_the_locked_python(void)
{
    EXPECT_ONLY(AUDIT(TOML_OK, PY312, CV124, TORCH_WHL, FA("cu12torch2.5cxx11abiFALSE", "cp311")),
                SC_AUDIT_WHEEL_PYTHON_MISMATCH, "flash-attn");
    /* without a locked python the tags cannot be judged */
    EXPECT_NONE(AUDIT(TOML_OK, CV124, TORCH_WHL, FA("cu12torch2.5cxx11abiFALSE", "cp311")));
}

static void test_wheel_platform_tag_must_install_on_the_target(void)
{
    EXPECT_ONLY(AUDIT(TOML_OK, PY312, CV124, TORCH_WHL, MAC_WHL), SC_AUDIT_WHEEL_PLATFORM_MISMATCH,
                "safetensors");
}

static void test_wheel_torch_tag_must_match_the_locked_torch(void)
{
    EXPECT_ONLY(AUDIT(TOML_OK, PY312, CV124, TORCH_WHL, FA("cu12torch2.4cxx11abiFALSE", "cp312")),
                SC_AUDIT_WHEEL_TORCH_MISMATCH, "flash-attn");
    /* a conda pytorch is the locked torch when PyPI has none */
    EXPECT_ONLY(AUDIT(TOML_OK, PY312, CV124, PT_CUDA, FA("cu12torch2.4cxx11abiTRUE", "cp312")),
                SC_AUDIT_WHEEL_TORCH_MISMATCH, "flash-attn");
}

static void test_wheel_cxx11abi_must_match_the_locked_torch(void)
{
    EXPECT_ONLY(AUDIT(TOML_OK, PY312, CV124, TORCH_WHL, FA("cu12torch2.5cxx11abiTRUE", "cp312")),
                SC_AUDIT_WHEEL_CXX11ABI_MISMATCH, "flash-attn");
    /* conda-forge pytorch uses the new ABI */
    EXPECT_ONLY(AUDIT(TOML_OK, PY312, CV124, PT_CUDA, FA("cu12torch2.5cxx11abiFALSE", "cp312")),
                SC_AUDIT_WHEEL_CXX11ABI_MISMATCH, "flash-attn");
}

static void test_wheel_named_in_lock_but_not_a_wheel_name(void)
{
    sc_target t = target_of("linux-x86_64-cuda12.4");
    char *text = mk_lock("linux-64", (const char *const[]){
        PY312, "- pypi: " PYPI "broken-1.0-py3-none.whl\n  name: broken\n  version: 1.0\n", NULL});
    sc_json *doc = NULL;
    sc_pixi_lock *lock = NULL;
    sc_error err;
    sc_audit_report rep;
    memset(&rep, 0, sizeof rep);
    CU_ASSERT_EQUAL_FATAL(sc_toml_parse(TOML_OK, strlen(TOML_OK), "pixi.toml", &doc, &err), SC_OK);
    CU_ASSERT_EQUAL_FATAL(sc_pixi_lock_parse(text, strlen(text), "pixi.lock", &lock, &err), SC_OK);
    SC_EXPECT_CODE(sc_audit_pixi(&t, doc, "pixi.toml", lock, &rep, &err), SC_E_INVALID_LOCK, &err);
    sc_audit_report_free(&rep);
    sc_json_free(doc);
    sc_pixi_lock_free(lock);
    free(text);
}

/* ---- side-car drift (19.5) ----------------------------------------------- */

static void test_sidecar_pin_must_target_the_locked_torch(void)
{
    EXPECT_ONLY(AUDIT(TOML_OK, PY312, CV124, TORCH_WHL, XF_PIN), SC_AUDIT_SIDECAR_TORCH_MISMATCH, "xformers");
}

static void test_sidecar_without_torch_requirement_warns(void)
{
    sc_audit_report r = AUDIT(TOML_OK, PY312, CV124, TORCH_291, TC_080);
    CU_ASSERT_PTR_NOT_NULL(r.count ? strstr(r.findings[0].evidence, "github.com/pytorch/torchcodec") : NULL);
    EXPECT_ONLY(r, SC_AUDIT_SIDECAR_TORCH_UNPINNED, "torchcodec");
}

static void test_torchaudio_2_11_beside_torch_2_9(void)
{
    sc_audit_report r = AUDIT(TOML_OK, PY312, CV124, TORCH_291, TA_211);
    CU_ASSERT_EQUAL(r.count, 2);
    CU_ASSERT_EQUAL(count_code(&r, SC_AUDIT_SIDECAR_TORCH_MISMATCH, "torchaudio"), 1);
    CU_ASSERT_EQUAL(count_code(&r, SC_AUDIT_SIDECAR_TORCH_UNPINNED, "torchaudio"), 1);
    CU_ASSERT(r.errors == 1 && r.warnings == 1);
    sc_audit_report_free(&r);
}

/* ---- the report ---------------------------------------------------------- */

static void test_findings_sorted_by_code_then_package(void)
{
    sc_audit_report r = AUDIT(TOML_HEAD "platforms = [\"linux-64\"]\n", PT_CPU, TV_CU118, MAC_WHL, TORCH_WHL,
                              NV11, OSX_PKG);
    CU_ASSERT(r.count >= 6);
    for (size_t i = 1; i < r.count; i++) {
        int c = strcmp(sc_audit_code_name(r.findings[i - 1].code), sc_audit_code_name(r.findings[i].code));
        CU_ASSERT(c < 0 || (c == 0 && strcmp(r.findings[i - 1].package, r.findings[i].package) <= 0));
    }
    sc_audit_report_free(&r);
}

static void test_report_json_shape(void)
{
    sc_audit_report r = AUDIT(TOML_OK, PY312, CV124, PT_CPU);
    sc_json *j = sc_audit_report_json(&r, 1);
    CU_ASSERT_FATAL(j != NULL);
    const sc_json *f = sc_json_at(sc_json_get(j, "findings"), 0);
    CU_ASSERT_STRING_EQUAL(sc_json_cstr(sc_json_get(f, "severity")), "error");
    CU_ASSERT_STRING_EQUAL(sc_json_cstr(sc_json_get(f, "code")), "conda-cpu-build");
    CU_ASSERT_STRING_EQUAL(sc_json_cstr(sc_json_get(f, "package")), "pytorch");
    CU_ASSERT_PTR_NOT_NULL(sc_json_cstr(sc_json_get(f, "evidence")));
    CU_ASSERT_EQUAL(sc_json_get(j, "errors")->number, 1);
    sc_json_free(j);
    j = sc_audit_report_json(&r, 0);
    CU_ASSERT_PTR_NULL(sc_json_get(sc_json_at(sc_json_get(j, "findings"), 0), "evidence"));
    CU_ASSERT_PTR_NULL(sc_json_get(j, "errors"));
    sc_json_free(j);
    sc_audit_report_free(&r);
}

/* Evidence is bounded (512 bytes); one cut inside a multi-byte character
 * drops that character whole, so the report is still valid UTF-8 and
 * writes as JSON (a fuzz find: a long non-ASCII build string). */
static void test_long_evidence_is_cut_between_characters(void)
{
    for (int shift = 0; shift < 2; shift++) {
        char pkg[2048];
        char build[1200];
        size_t n = (size_t)snprintf(build, sizeof build, "cpu_%s", shift ? "x" : "");
        while (n + 2 < 700) {
            memcpy(build + n, "\xc3\xa9", 2); /* é */
            n += 2;
        }
        build[n] = '\0';
        snprintf(pkg, sizeof pkg, "- conda: " CF "linux-64/pytorch-2.5.1-%s.conda\n", build);
        sc_audit_report r = AUDIT(TOML_OK, PY312, CV124, pkg);
        CU_ASSERT_EQUAL(count_code(&r, SC_AUDIT_CONDA_CPU_BUILD, "pytorch"), 1);
        for (size_t i = 0; i < r.count; i++)
            CU_ASSERT_TRUE(sc_utf8_valid(r.findings[i].evidence, strlen(r.findings[i].evidence)));
        sc_json *j = sc_audit_report_json(&r, 1);
        CU_ASSERT_PTR_NOT_NULL_FATAL(j);
        char *text = NULL;
        size_t len = 0;
        sc_error err;
        SC_EXPECT_CODE(sc_json_write(j, &text, &len, &err), SC_OK, &err);
        free(text);
        sc_json_free(j);
        sc_audit_report_free(&r);
    }
}

static void test_finding_codes_are_listed_in_section_19(void)
{
    char *path = sc_path_join(SC_SOURCE_DIR, "docs/format-v3.md");
    char *doc = NULL;
    size_t len = 0;
    sc_error err;
    CU_ASSERT_EQUAL_FATAL(sc_file_read(path, &doc, &len, NULL, &err), SC_OK);
    const char *sec = strstr(doc, "## 19. CUDA ABI audit");
    CU_ASSERT_FATAL(sec != NULL);
    for (int c = 0; c < SC_AUDIT_CODE_COUNT_; c++) {
        char row[128];
        snprintf(row, sizeof row, "| `%s` | %s |", sc_audit_code_name((sc_audit_code)c),
                 sc_audit_severity_name(sc_audit_code_severity((sc_audit_code)c)));
        if (strstr(sec, row) == NULL) {
            fprintf(stderr, "\n  section 19 lacks the row %s", row);
            CU_FAIL("finding code listed with its severity");
        }
    }
    free(doc);
    free(path);
}

/* ---- conda-meta of a payload (19.5, verify --audit) ---------------------- */

static void put_record(const char *root, const char *name, const char *version, const char *build,
                       const char *subdir)
{
    char rel[256], text[512];
    snprintf(rel, sizeof rel, "conda-meta/%s-%s-%s.json", name, version, build);
    snprintf(text, sizeof text, "{\"name\": \"%s\", \"version\": \"%s\", \"build\": \"%s\", "
             "\"build_number\": 0, \"subdir\": \"%s\", \"depends\": []}\n", name, version, build, subdir);
    sc_test_write(root, rel, text);
}

static void test_conda_meta_records_are_audited(void)
{
    char *root = sc_test_tmpdir();
    put_record(root, "python", "3.12.7", "hc5c86c4_0_cpython", "linux-64");
    put_record(root, "cuda-version", "12.4", "h3060b56_3", "noarch");
    put_record(root, "pytorch", "2.5.1", "py3.12_cuda12.4_cudnn9.1.0_0", "linux-64");
    sc_test_write(root, "conda-meta/history", "==> 2024 <==\n");
    sc_target t = target_of("linux-x86_64-cuda12.4");
    sc_audit_report r;
    memset(&r, 0, sizeof r);
    sc_error err;
    SC_EXPECT_CODE(sc_audit_conda_meta(root, &t, &r, &err), SC_OK, &err);
    EXPECT_NONE(r);
    put_record(root, "pytorch", "2.5.1", "cpu_mkl_py312_heeca0f5_108", "linux-64");
    put_record(root, "libcxx", "19.1.4", "ha82da77_0", "osx-arm64");
    memset(&r, 0, sizeof r);
    SC_EXPECT_CODE(sc_audit_conda_meta(root, &t, &r, &err), SC_OK, &err);
    CU_ASSERT_EQUAL(r.count, 2);
    CU_ASSERT_EQUAL(count_code(&r, SC_AUDIT_CONDA_CPU_BUILD, "pytorch"), 1);
    CU_ASSERT_EQUAL(count_code(&r, SC_AUDIT_CONDA_SUBDIR_MISMATCH, "libcxx"), 1);
    sc_audit_report_free(&r);
    sc_test_rmtree(root);
    free(root);
}

static void test_conda_meta_missing_or_broken(void)
{
    char *root = sc_test_tmpdir();
    sc_target t = target_of("linux-x86_64-cuda12.4");
    sc_audit_report r;
    memset(&r, 0, sizeof r);
    sc_error err;
    SC_EXPECT_CODE(sc_audit_conda_meta(root, &t, &r, &err), SC_E_IO, &err);
    sc_test_write(root, "conda-meta/a.json", "{\"name\": \"a\", \"version\": 1, \"build\": \"b\"}");
    SC_EXPECT_CODE(sc_audit_conda_meta(root, &t, &r, &err), SC_E_INVALID_LOCK, &err);
    sc_test_write(root, "conda-meta/a.json", "{\"name\": ");
    SC_EXPECT_CODE(sc_audit_conda_meta(root, &t, &r, &err), SC_E_INVALID_JSON, &err);
    sc_audit_report_free(&r);
    sc_test_rmtree(root);
    free(root);
}

/* ---- the build gate (19.7) ----------------------------------------------- */

static char *scroll_dir_with(const char *toml, const char *const *pkgs)
{
    char *root = sc_test_tmpdir();
    char *lock = mk_lock("linux-64", pkgs);
    sc_test_write(root, "pixi.toml", toml);
    sc_test_write(root, "pixi.lock", lock);
    free(lock);
    return root;
}

static void test_gate_is_not_run_for_other_targets(void)
{
    sc_target t = target_of("linux-x86_64-cpu");
    sc_json *rec = (sc_json *)1;
    sc_error err;
    /* the directory does not even exist: nothing is read */
    SC_EXPECT_CODE(sc_audit_gate(&t, "/nonexistent-scroll-dir", 0, NULL, &rec, &err), SC_OK, &err);
    CU_ASSERT_PTR_NULL(rec);
}

static void test_gate_opt_out_is_recorded(void)
{
    sc_target t = target_of("linux-x86_64-cuda12.4");
    sc_json *rec = NULL;
    sc_error err;
    SC_EXPECT_CODE(sc_audit_gate(&t, "/nonexistent-scroll-dir", 1, NULL, &rec, &err), SC_OK, &err);
    CU_ASSERT_FATAL(rec != NULL);
    CU_ASSERT_STRING_EQUAL(sc_json_cstr(sc_json_get(rec, "status")), "opted-out");
    CU_ASSERT_EQUAL(rec->length, 1);
    sc_json_free(rec);
}

static void test_gate_fails_on_error_findings(void)
{
    char *dir = scroll_dir_with(TOML_OK, (const char *const[]){PY312, CV124, PT_CPU, TC_080, TORCH_291, NULL});
    sc_target t = target_of("linux-x86_64-cuda12.4");
    sc_json *rec = NULL;
    sc_error err;
    SC_EXPECT_CODE(sc_audit_gate(&t, dir, 0, NULL, &rec, &err), SC_E_AUDIT_FAILED, &err);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "conda-cpu-build"));
    CU_ASSERT_FATAL(rec != NULL);
    CU_ASSERT_STRING_EQUAL(sc_json_cstr(sc_json_get(rec, "status")), "failed");
    CU_ASSERT_EQUAL(sc_json_get(rec, "errors")->number, 1);
    CU_ASSERT_EQUAL(sc_json_get(rec, "warnings")->number, 1);
    CU_ASSERT_EQUAL(sc_json_get(rec, "findings")->length, 2);
    sc_json_free(rec);
    sc_test_rmtree(dir);
    free(dir);
}

static void test_gate_passes_a_clean_lock(void)
{
    char *dir = scroll_dir_with(TOML_OK, (const char *const[]){PY312, CV124, PT_CUDA, NULL});
    sc_target t = target_of("linux-x86_64-cuda12.4");
    sc_json *rec = NULL;
    sc_audit_report rep;
    memset(&rep, 0, sizeof rep);
    sc_error err;
    SC_EXPECT_CODE(sc_audit_gate(&t, dir, 0, &rep, &rec, &err), SC_OK, &err);
    CU_ASSERT_FATAL(rec != NULL);
    CU_ASSERT_STRING_EQUAL(sc_json_cstr(sc_json_get(rec, "status")), "passed");
    CU_ASSERT_EQUAL(sc_json_get(rec, "findings")->length, 0);
    CU_ASSERT_EQUAL(rep.count, 0);
    sc_json_free(rec);
    sc_audit_report_free(&rep);
    /* a missing lock is an error of the call, not a finding */
    char *lock = sc_path_join(dir, "pixi.lock");
    remove(lock);
    free(lock);
    SC_EXPECT_CODE(sc_audit_gate(&t, dir, 0, NULL, &rec, &err), SC_E_IO, &err);
    CU_ASSERT_PTR_NULL(rec);
    sc_test_rmtree(dir);
    free(dir);
}

void register_audit_tests(void)
{
    sc_test_register_toml();
    sc_test_register_wheel();
    sc_test_register_pixi_lock();
    CU_pSuite s = CU_add_suite("audit", NULL, NULL);
    if (s == NULL)
        CU_FAIL_FATAL("CU_add_suite failed");
    SC_ADD_TEST(s, test_clean_conda_cuda_lock_has_no_finding);
    SC_ADD_TEST(s, test_clean_pypi_cuda_lock_has_no_finding);
    SC_ADD_TEST(s, test_cpu_target_skips_the_cuda_checks);
    SC_ADD_TEST(s, test_platforms_must_be_the_target_subdir);
    SC_ADD_TEST(s, test_system_requirement_cuda_must_agree);
    SC_ADD_TEST(s, test_cuda_version_pin_must_fix_the_target_minor);
    SC_ADD_TEST(s, test_workspace_table_is_required);
    SC_ADD_TEST(s, test_lock_without_the_target_platform);
    SC_ADD_TEST(s, test_conda_package_from_another_subdir);
    SC_ADD_TEST(s, test_conda_cpu_build_under_a_cuda_target);
    SC_ADD_TEST(s, test_conda_build_for_another_cuda_version);
    SC_ADD_TEST(s, test_cuda_version_resolved_to_another_minor);
    SC_ADD_TEST(s, test_cuda_version_not_locked_is_a_warning);
    SC_ADD_TEST(s, test_cpu_wheel_under_a_cuda_target);
    SC_ADD_TEST(s, test_wheel_for_another_cuda_version);
    SC_ADD_TEST(s, test_nvidia_runtime_wheel_of_another_major);
    SC_ADD_TEST(s, test_wheel_python_tag_must_run_on_the_locked_python);
    SC_ADD_TEST(s, test_wheel_platform_tag_must_install_on_the_target);
    SC_ADD_TEST(s, test_wheel_torch_tag_must_match_the_locked_torch);
    SC_ADD_TEST(s, test_wheel_cxx11abi_must_match_the_locked_torch);
    SC_ADD_TEST(s, test_wheel_named_in_lock_but_not_a_wheel_name);
    SC_ADD_TEST(s, test_sidecar_pin_must_target_the_locked_torch);
    SC_ADD_TEST(s, test_sidecar_without_torch_requirement_warns);
    SC_ADD_TEST(s, test_torchaudio_2_11_beside_torch_2_9);
    SC_ADD_TEST(s, test_findings_sorted_by_code_then_package);
    SC_ADD_TEST(s, test_report_json_shape);
    SC_ADD_TEST(s, test_long_evidence_is_cut_between_characters);
    SC_ADD_TEST(s, test_finding_codes_are_listed_in_section_19);
    SC_ADD_TEST(s, test_conda_meta_records_are_audited);
    SC_ADD_TEST(s, test_conda_meta_missing_or_broken);
    SC_ADD_TEST(s, test_gate_is_not_run_for_other_targets);
    SC_ADD_TEST(s, test_gate_opt_out_is_recorded);
    SC_ADD_TEST(s, test_gate_fails_on_error_findings);
    SC_ADD_TEST(s, test_gate_passes_a_clean_lock);
}
