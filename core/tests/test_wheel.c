/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_wheel.c — docs/format-v3.md 19.2-19.3: reading pixi.lock, and what
 * file names, tags and build strings say about a build.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "scrollcase/pixi_lock.h"
#include "scrollcase/wheel.h"

void sc_test_register_wheel(void);
void sc_test_register_pixi_lock(void);

/* ---- wheels and tags (19.3) -------------------------------------------- */

static void test_wheel_name_has_five_or_six_parts(void)
{
    sc_wheel w;
    CU_ASSERT_EQUAL(sc_wheel_parse("https://h/p/flash_attn-2.8.0.post2+cu12torch2.8cxx11abiFALSE-cp312-cp312-linux_x86_64.whl", &w), 1);
    CU_ASSERT_STRING_EQUAL(w.name, "flash_attn");
    CU_ASSERT_STRING_EQUAL(w.version, "2.8.0.post2+cu12torch2.8cxx11abiFALSE");
    CU_ASSERT_STRING_EQUAL(w.local, "cu12torch2.8cxx11abiFALSE");
    CU_ASSERT_PTR_NULL(w.build);
    CU_ASSERT_STRING_EQUAL(w.python, "cp312");
    CU_ASSERT_STRING_EQUAL(w.platform, "linux_x86_64");
    sc_wheel_free(&w);
    CU_ASSERT_EQUAL(sc_wheel_parse("pkg-1.0-1-py3-none-any.whl", &w), 1);
    CU_ASSERT_STRING_EQUAL(w.build, "1");
    CU_ASSERT_PTR_NULL(w.local);
    sc_wheel_free(&w);
}

static void test_wheel_url_is_decoded_and_trimmed(void)
{
    sc_wheel w;
    CU_ASSERT_EQUAL(sc_wheel_parse("https://download.pytorch.org/whl/cu124/torch-2.5.1%2Bcu124-cp312-cp312-linux_x86_64.whl#sha256=ab", &w), 1);
    CU_ASSERT_STRING_EQUAL(w.local, "cu124");
    sc_wheel_free(&w);
    char *f = sc_location_filename("https://x/a/b%2Bc.whl?x=1");
    CU_ASSERT_STRING_EQUAL(f, "b+c.whl");
    free(f);
}

static void test_not_a_wheel_or_a_bad_wheel_name(void)
{
    sc_wheel w;
    CU_ASSERT_EQUAL(sc_wheel_parse("https://h/p/pkg-1.0.tar.gz", &w), 0);
    CU_ASSERT_EQUAL(sc_wheel_parse("git+https://github.com/o/r.git@abc", &w), 0);
    CU_ASSERT_EQUAL(sc_wheel_parse("a-1.0-py3-none.whl", &w), -1);
    CU_ASSERT_EQUAL(sc_wheel_parse("a-1.0-x-y-py3-none-any.whl", &w), -1);
    CU_ASSERT_EQUAL(sc_wheel_parse("a-1.0-b1-py3-none-any.whl", &w), -1);
    CU_ASSERT_EQUAL(sc_wheel_parse("a--py3-none-any.whl", &w), -1);
}

static void test_build_facts_cuda_tags(void)
{
    sc_build_facts f;
    sc_build_facts_scan("cu124", &f);
    CU_ASSERT(f.cuda_major == 12 && f.cuda_minor == 4 && !f.cpu);
    sc_build_facts_scan("cu118", &f);
    CU_ASSERT(f.cuda_major == 11 && f.cuda_minor == 8);
    sc_build_facts_scan("cu12torch2.8cxx11abiTRUE", &f);
    CU_ASSERT(f.cuda_major == 12 && f.cuda_minor == -1);
    CU_ASSERT(f.torch_major == 2 && f.torch_minor == 8 && f.cxx11abi == 1);
    sc_build_facts_scan("cuda126_mkl_py312_h1f6bd35_306", &f);
    CU_ASSERT(f.cuda_major == 12 && f.cuda_minor == 6);
    sc_build_facts_scan("py3.12_cuda12.4_cudnn9.1.0_0", &f);
    CU_ASSERT(f.cuda_major == 12 && f.cuda_minor == 4);
    sc_build_facts_scan("cuda130_generic_py313", &f);
    CU_ASSERT(f.cuda_major == 13 && f.cuda_minor == 0);
}

static void test_build_facts_cpu_and_words(void)
{
    sc_build_facts f;
    sc_build_facts_scan("cpu_mkl_py312_heeca0f5_108", &f);
    CU_ASSERT(f.cpu && f.cuda_major == -1);
    sc_build_facts_scan("py3.12_cpu_0", &f);
    CU_ASSERT(f.cpu);
    sc_build_facts_scan("cpu", &f);
    CU_ASSERT(f.cpu);
    /* tags inside a word are not tags */
    sc_build_facts_scan("h5888daf_cudnn9_libcudart12_cpuinfo", &f);
    CU_ASSERT(!f.cpu && f.cuda_major == -1);
    sc_build_facts_scan("cxx11abiFALSE", &f);
    CU_ASSERT_EQUAL(f.cxx11abi, 0);
    sc_build_facts_scan(NULL, &f);
    CU_ASSERT(!f.cpu && f.cuda_major == -1 && f.torch_major == -1 && f.cxx11abi == -1);
}

static sc_wheel W(const char *name)
{
    sc_wheel w;
    int r = sc_wheel_parse(name, &w);
    CU_ASSERT_EQUAL_FATAL(r, 1);
    return w;
}

static void test_python_tags(void)
{
    sc_wheel w = W("a-1-cp312-cp312-any.whl");
    CU_ASSERT(sc_wheel_python_ok(&w, 3, 12));
    CU_ASSERT(!sc_wheel_python_ok(&w, 3, 11));
    CU_ASSERT(!sc_wheel_python_ok(&w, 3, 13));
    sc_wheel_free(&w);
    w = W("a-1-cp39-abi3-any.whl");
    CU_ASSERT(sc_wheel_python_ok(&w, 3, 12));
    CU_ASSERT(!sc_wheel_python_ok(&w, 3, 8));
    sc_wheel_free(&w);
    w = W("a-1-py2.py3-none-any.whl");
    CU_ASSERT(sc_wheel_python_ok(&w, 3, 12));
    sc_wheel_free(&w);
    w = W("a-1-py313-none-any.whl");
    CU_ASSERT(!sc_wheel_python_ok(&w, 3, 12));
    sc_wheel_free(&w);
}

static void test_platform_tags(void)
{
    sc_wheel w = W("a-1-py3-none-manylinux_2_17_x86_64.manylinux2014_x86_64.whl");
    CU_ASSERT(sc_wheel_platform_ok(&w, "linux-64"));
    CU_ASSERT(!sc_wheel_platform_ok(&w, "win-64"));
    CU_ASSERT_EQUAL(sc_wheel_manylinux_cxx11abi(&w), 0);
    sc_wheel_free(&w);
    w = W("a-1-py3-none-manylinux_2_28_x86_64.whl");
    CU_ASSERT_EQUAL(sc_wheel_manylinux_cxx11abi(&w), 1);
    sc_wheel_free(&w);
    w = W("a-1-py3-none-musllinux_1_2_x86_64.whl");
    CU_ASSERT(!sc_wheel_platform_ok(&w, "linux-64"));
    CU_ASSERT_EQUAL(sc_wheel_manylinux_cxx11abi(&w), -1);
    sc_wheel_free(&w);
    w = W("a-1-py3-none-win_amd64.whl");
    CU_ASSERT(sc_wheel_platform_ok(&w, "win-64"));
    sc_wheel_free(&w);
    w = W("a-1-py3-none-macosx_11_0_universal2.whl");
    CU_ASSERT(sc_wheel_platform_ok(&w, "osx-arm64"));
    CU_ASSERT(!sc_wheel_platform_ok(&w, "linux-64"));
    sc_wheel_free(&w);
    w = W("a-1-py3-none-any.whl");
    CU_ASSERT(sc_wheel_platform_ok(&w, "linux-64") && sc_wheel_platform_ok(&w, "win-64"));
    sc_wheel_free(&w);
}

static void test_conda_filename_and_names(void)
{
    char *n, *v, *b;
    CU_ASSERT_EQUAL(sc_conda_filename_split("cuda-version-12.4-h3060b56_3.conda", &n, &v, &b), 1);
    CU_ASSERT_STRING_EQUAL(n, "cuda-version");
    CU_ASSERT_STRING_EQUAL(v, "12.4");
    CU_ASSERT_STRING_EQUAL(b, "h3060b56_3");
    free(n), free(v), free(b);
    CU_ASSERT_EQUAL(sc_conda_filename_split("pytorch-2.5.1-py3.12_cuda12.4_cudnn9.1.0_0.tar.bz2", &n, &v, &b), 1);
    CU_ASSERT_STRING_EQUAL(b, "py3.12_cuda12.4_cudnn9.1.0_0");
    free(n), free(v), free(b);
    CU_ASSERT_EQUAL(sc_conda_filename_split("two-parts.conda", &n, &v, &b), 0);
    CU_ASSERT_EQUAL(sc_conda_filename_split("a-1-b.zip", &n, &v, &b), 0);
    CU_ASSERT_EQUAL(sc_conda_filename_split("-1-b.conda", &n, &v, &b), 0);
    char *p = sc_pypi_normalize("Flash__Attn.x-Y");
    CU_ASSERT_STRING_EQUAL(p, "flash-attn-x-y");
    free(p);
    int a, c;
    CU_ASSERT_EQUAL(sc_version_major_minor("2.9.1+cu124", &a, &c), 2);
    CU_ASSERT(a == 2 && c == 9);
    CU_ASSERT_EQUAL(sc_version_major_minor("12", &a, &c), 1);
    CU_ASSERT(a == 12 && c == -1);
    CU_ASSERT_EQUAL(sc_version_major_minor(">=12", &a, &c), 0);
}

/* ---- pixi.lock (19.2) ---------------------------------------------------- */

static const char lock6[] =
    "version: 6\n"
    "environments:\n"
    "  default:\n"
    "    channels:\n"
    "    - url: https://conda.anaconda.org/conda-forge/\n"
    "    packages:\n"
    "      linux-64:\n"
    "      - conda: https://conda.anaconda.org/conda-forge/noarch/cuda-version-12.4-h3060b56_3.conda\n"
    "      - pypi: https://files.pythonhosted.org/packages/ab/torch-2.5.1-cp312-cp312-manylinux1_x86_64.whl\n"
    "packages:\n"
    "- conda: https://conda.anaconda.org/conda-forge/noarch/cuda-version-12.4-h3060b56_3.conda\n"
    "  sha256: 00112233445566778899AABBCCDDEEFF00112233445566778899aabbccddeeff\n"
    "  depends:\n"
    "  - __cuda >=12\n"
    "  license: LicenseRef-NVIDIA\n"
    "- pypi: https://files.pythonhosted.org/packages/ab/torch-2.5.1-cp312-cp312-manylinux1_x86_64.whl\n"
    "  name: torch\n"
    "  version: 2.5.1\n"
    "  requires_dist:\n"
    "  - filelock\n"
    "  - nvidia-cublas-cu12==12.4.5.8 ; platform_system == 'Linux'\n"
    "  requires_python: '>=3.9.0'\n";

static sc_pixi_lock *lock_ok(const char *text)
{
    sc_pixi_lock *l = NULL;
    sc_error err;
    sc_code c = sc_pixi_lock_parse(text, strlen(text), "pixi.lock", &l, &err);
    SC_EXPECT_CODE(c, SC_OK, &err);
    return l;
}

static void lock_refused(const char *text, const char *where, int line)
{
    sc_pixi_lock *l = NULL;
    sc_error err;
    sc_code c = sc_pixi_lock_parse(text, strlen(text), "pixi.lock", &l, &err);
    sc_test_expect_code_at(c, SC_E_INVALID_LOCK, &err, __FILE__, line);
    CU_ASSERT_PTR_NULL(l);
    if (where != NULL && strstr(err.message, where) == NULL) {
        fprintf(stderr, "\n  line %d: message \"%s\" lacks \"%s\"\n", line, err.message, where);
        CU_FAIL("message names the place");
    }
    sc_pixi_lock_free(l);
}
#define LOCK_REFUSED(text, where) lock_refused((text), (where), __LINE__)

static void test_lock_v6_exposes_every_package_field(void)
{
    sc_pixi_lock *l = lock_ok(lock6);
    CU_ASSERT_EQUAL(l->version, 6);
    CU_ASSERT_EQUAL_FATAL(l->npackages, 2);
    const sc_lock_package *c = &l->packages[0], *p = &l->packages[1];
    CU_ASSERT_EQUAL(c->kind, SC_LOCK_CONDA);
    CU_ASSERT_STRING_EQUAL(c->name, "cuda-version");
    CU_ASSERT_STRING_EQUAL(c->version, "12.4");
    CU_ASSERT_STRING_EQUAL(c->build, "h3060b56_3");
    CU_ASSERT_STRING_EQUAL(c->subdir, "noarch");
    CU_ASSERT_STRING_EQUAL(c->license, "LicenseRef-NVIDIA");
    CU_ASSERT_STRING_EQUAL(c->filename, "cuda-version-12.4-h3060b56_3.conda");
    CU_ASSERT(c->ndepends == 1 && strcmp(c->depends[0], "__cuda >=12") == 0);
    CU_ASSERT_STRING_EQUAL(c->sha256,
                           "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff");
    CU_ASSERT_EQUAL(p->kind, SC_LOCK_PYPI);
    CU_ASSERT_PTR_NULL(p->sha256);
    CU_ASSERT_STRING_EQUAL(p->name, "torch");
    CU_ASSERT_STRING_EQUAL(p->version, "2.5.1");
    CU_ASSERT_PTR_NULL(p->build);
    CU_ASSERT_PTR_NULL(p->license);
    CU_ASSERT_EQUAL(p->nrequires_dist, 2);
    const sc_lock_platform *pl = sc_pixi_lock_find(l, "default", "linux-64");
    CU_ASSERT_FATAL(pl != NULL);
    CU_ASSERT(pl->count == 2 && pl->packages[0] == 0 && pl->packages[1] == 1);
    CU_ASSERT_PTR_NULL(sc_pixi_lock_find(l, "default", "win-64"));
    CU_ASSERT_PTR_NULL(sc_pixi_lock_find(l, "gpu", "linux-64"));
    sc_pixi_lock_free(l);
}

static void test_lock_v5_fields_win_over_the_file_name(void)
{
    sc_pixi_lock *l = lock_ok("version: 5\n"
                              "environments: {}\n"
                              "packages:\n"
                              "- conda: https://c/linux-64/x-1-h_0.conda\n"
                              "  name: pytorch\n"
                              "  version: '2.5'\n"
                              "  build: cuda124_0\n"
                              "  subdir: linux-64\n");
    CU_ASSERT_STRING_EQUAL(l->packages[0].name, "pytorch");
    CU_ASSERT_STRING_EQUAL(l->packages[0].version, "2.5");
    CU_ASSERT_STRING_EQUAL(l->packages[0].build, "cuda124_0");
    sc_pixi_lock_free(l);
}

static void test_lock_yaml_errors_name_line_and_column(void)
{
    LOCK_REFUSED("version: 6\npackages: [\n", "pixi.lock:");
    LOCK_REFUSED("version: 6\n  bad: indent\n", "pixi.lock:2:");
    LOCK_REFUSED("", NULL);
    LOCK_REFUSED("--- 1\n--- 2\n", NULL);
}

static void test_lock_unknown_versions_are_refused_naming_those_read(void)
{
    LOCK_REFUSED("version: 8\nenvironments: {}\npackages: []\n", "5, 6 and 7");
    LOCK_REFUSED("version: 8\nenvironments: {}\npackages: []\n", "pixi.lock:1:");
    LOCK_REFUSED("version: 4\nenvironments: {}\npackages: []\n", "version 4 is not");
    LOCK_REFUSED("version: 70\nenvironments: {}\npackages: []\n", "version 70 is not");
    LOCK_REFUSED("version: [7]\nenvironments: {}\npackages: []\n", "5, 6 and 7");
    LOCK_REFUSED("environments: {}\npackages: []\n", "version");
    LOCK_REFUSED("- version: 6\n", NULL);
}

/* A v7 lock as pixi 0.73 writes it: a platforms list (one with its own
 * name and subdir), sequences not indented under their key, conda, PyPI
 * and source packages. */
static const char lock7[] =
    "version: 7\n"
    "platforms:\n"
    "- name: linux-64\n"
    "  virtual-packages:\n"
    "  - __unix=0=0\n"
    "  - __glibc=2.28\n"
    "- name: linux-64-gpu\n"
    "  subdir: linux-64\n"
    "environments:\n"
    "  default:\n"
    "    channels:\n"
    "    - url: https://conda.anaconda.org/conda-forge/\n"
    "    indexes:\n"
    "    - https://pypi.org/simple\n"
    "    packages:\n"
    "      linux-64:\n"
    "      - conda: https://conda.anaconda.org/conda-forge/linux-64/python-3.12.7-hc5c86c4_0_cpython.conda\n"
    "      - pypi: https://files.pythonhosted.org/packages/ab/cd/numpy-2.1.3-cp312-cp312-manylinux_2_17_x86_64.whl\n"
    "      - pypi: ./local-pkg\n"
    "      - conda_source: mypkg[87dc0b8a] @ ./mypkg\n"
    "  gpu:\n"
    "    channels: []\n"
    "    packages:\n"
    "      linux-64-gpu:\n"
    "      - conda: https://conda.anaconda.org/conda-forge/linux-64/python-3.12.7-hc5c86c4_0_cpython.conda\n"
    "packages:\n"
    "- conda: https://conda.anaconda.org/conda-forge/linux-64/python-3.12.7-hc5c86c4_0_cpython.conda\n"
    "  sha256: 4fde5c3008bf5d2db82f2b50204464314cc3c91c1d953652f7bd01d9e52aefdf\n"
    "  md5: 8ac3367aafb1cc0a068483c580af8015\n"
    "  depends:\n"
    "  - libgcc >=13\n"
    "  license: Python-2.0\n"
    "  run_exports:\n"
    "    weak:\n"
    "    - python_abi 3.12.* *_cp312\n"
    "  size: 31574780\n"
    "  timestamp: 1728047496079\n"
    "- pypi: https://files.pythonhosted.org/packages/ab/cd/numpy-2.1.3-cp312-cp312-manylinux_2_17_x86_64.whl\n"
    "  name: numpy\n"
    "  version: 2.1.3\n"
    "  sha256: adfa71f158cbd872a36394c56c3568e6034aa55c623634b37a4836bd036e6b91\n"
    "  requires_dist:\n"
    "  - pytest ; extra == 'test'\n"
    "  requires_python: '>=3.10'\n"
    "- pypi: ./local-pkg\n"
    "  name: local-pkg\n"
    "- conda_source: mypkg[87dc0b8a] @ ./mypkg\n"
    "  version: 0.1.0\n"
    "  build: pyhbf21a9e_0\n"
    "  subdir: noarch\n"
    "  license: MIT\n";

static void test_lock_v7_exposes_every_package_field(void)
{
    sc_pixi_lock *l = lock_ok(lock7);
    CU_ASSERT_EQUAL(l->version, 7);
    CU_ASSERT_EQUAL_FATAL(l->npackages, 4);
    const sc_lock_package *c = &l->packages[0], *w = &l->packages[1], *d = &l->packages[2],
                          *s = &l->packages[3];
    CU_ASSERT(c->kind == SC_LOCK_CONDA && !c->source);
    CU_ASSERT_STRING_EQUAL(c->name, "python");
    CU_ASSERT_STRING_EQUAL(c->version, "3.12.7");
    CU_ASSERT_STRING_EQUAL(c->build, "hc5c86c4_0_cpython");
    CU_ASSERT_STRING_EQUAL(c->subdir, "linux-64");
    CU_ASSERT_STRING_EQUAL(c->license, "Python-2.0");
    CU_ASSERT_STRING_EQUAL(c->sha256,
                           "4fde5c3008bf5d2db82f2b50204464314cc3c91c1d953652f7bd01d9e52aefdf");
    CU_ASSERT(c->ndepends == 1 && strcmp(c->depends[0], "libgcc >=13") == 0);
    CU_ASSERT_EQUAL(w->kind, SC_LOCK_PYPI);
    CU_ASSERT_STRING_EQUAL(w->name, "numpy");
    CU_ASSERT_STRING_EQUAL(w->version, "2.1.3");
    CU_ASSERT_STRING_EQUAL(w->sha256,
                           "adfa71f158cbd872a36394c56c3568e6034aa55c623634b37a4836bd036e6b91");
    CU_ASSERT(w->nrequires_dist == 1 && strcmp(w->requires_dist[0], "pytest ; extra == 'test'") == 0);
    CU_ASSERT_EQUAL(d->kind, SC_LOCK_PYPI);
    CU_ASSERT_STRING_EQUAL(d->name, "local-pkg");
    CU_ASSERT_PTR_NULL(d->version);
    CU_ASSERT(s->kind == SC_LOCK_CONDA && s->source);
    CU_ASSERT_STRING_EQUAL(s->name, "mypkg");
    CU_ASSERT_STRING_EQUAL(s->version, "0.1.0");
    CU_ASSERT_STRING_EQUAL(s->subdir, "noarch");
    CU_ASSERT_STRING_EQUAL(s->license, "MIT");
    const sc_lock_platform *pl = sc_pixi_lock_find(l, "default", "linux-64");
    CU_ASSERT_FATAL(pl != NULL);
    CU_ASSERT_STRING_EQUAL(pl->subdir, "linux-64");
    CU_ASSERT(pl->count == 4 && pl->packages[0] == 0 && pl->packages[1] == 1 &&
              pl->packages[2] == 2 && pl->packages[3] == 3);
    /* a platform named other than its subdir is found by either */
    const sc_lock_platform *g = sc_pixi_lock_find(l, "gpu", "linux-64");
    CU_ASSERT_FATAL(g != NULL);
    CU_ASSERT_STRING_EQUAL(g->platform, "linux-64-gpu");
    CU_ASSERT(g == sc_pixi_lock_find(l, "gpu", "linux-64-gpu"));
    CU_ASSERT_PTR_NULL(sc_pixi_lock_find(l, "default", "win-64"));
    sc_pixi_lock_free(l);
}

static void test_lock_v7_platforms_must_be_declared(void)
{
    LOCK_REFUSED("version: 7\nenvironments: {}\npackages: []\n", "platforms is missing");
    LOCK_REFUSED("version: 7\nplatforms: {}\nenvironments: {}\npackages: []\n", "sequence");
    LOCK_REFUSED("version: 7\nplatforms:\n- subdir: linux-64\nenvironments: {}\npackages: []\n",
                 "platforms[0].name");
    LOCK_REFUSED("version: 7\nplatforms:\n- name: a\n- name: a\nenvironments: {}\npackages: []\n",
                 "twice");
    LOCK_REFUSED("version: 7\nplatforms:\n- name: a\n  virtual-packages: x\nenvironments: {}\n"
                 "packages: []\n", "virtual-packages");
    LOCK_REFUSED("version: 7\nplatforms:\n- name: win-64\nenvironments:\n  default:\n"
                 "    packages:\n      linux-64: []\npackages: []\n",
                 "not in the lock's platforms list");
    /* v6 has no platforms list: its keys are subdirs */
    sc_pixi_lock *l = lock_ok("version: 6\nenvironments:\n  default:\n    packages:\n"
                              "      linux-64: []\npackages: []\n");
    CU_ASSERT_STRING_EQUAL(l->environments[0].platforms[0].subdir, "linux-64");
    sc_pixi_lock_free(l);
}

static void test_lock_v7_packages_must_be_well_formed(void)
{
    const char *head = "version: 7\nplatforms: []\nenvironments: {}\npackages:\n";
    char buf[512];
#define V7(body) (snprintf(buf, sizeof buf, "%s%s", head, (body)), buf)
    LOCK_REFUSED(V7("- conda: https://x/noarch/a-1-b.conda\n  conda_source: a @ .\n"),
                 "exactly one of conda, conda_source and pypi");
    LOCK_REFUSED(V7("- pypi: ./x\n"), "needs a name");
    LOCK_REFUSED(V7("- pypi: ./x\n  name: x\n  version: ''\n"), "non-empty version");
    LOCK_REFUSED(V7("- conda_source: '[abc] @ .'\n"), "needs a name");
    LOCK_REFUSED(V7("- conda: https://x/noarch/a-1-b.conda\n  sha256: abc\n"), "sha256");
    LOCK_REFUSED(V7("- conda: https://x/noarch/a-1-b.conda\n  sha256: [a]\n"), "sha256");
#undef V7
    /* conda_source is a v7 key: v6 has no such package */
    LOCK_REFUSED("version: 6\nenvironments: {}\npackages:\n- conda_source: a @ .\n",
                 "exactly one of conda and pypi");
}

static void test_lock_v5_kind_and_url_entries(void)
{
    sc_pixi_lock *l = lock_ok("version: 5\n"
                              "environments:\n  default:\n    packages:\n      osx-arm64:\n"
                              "        - conda: https://c/osx-arm64/bzip2-1.0.8-h93a5062_5.conda\n"
                              "        - pypi: ./links/requests-2.31.0-py3-none-any.whl\n"
                              "packages:\n"
                              "  - kind: conda\n    name: bzip2\n    version: 1.0.8\n"
                              "    build: h93a5062_5\n    subdir: osx-arm64\n"
                              "    url: https://c/osx-arm64/bzip2-1.0.8-h93a5062_5.conda\n"
                              "    license: bzip2-1.0.6\n"
                              "  - kind: pypi\n    name: requests\n    version: 2.31.0\n"
                              "    path: ./links/requests-2.31.0-py3-none-any.whl\n");
    CU_ASSERT_EQUAL_FATAL(l->npackages, 2);
    CU_ASSERT(l->packages[0].kind == SC_LOCK_CONDA);
    CU_ASSERT_STRING_EQUAL(l->packages[0].license, "bzip2-1.0.6");
    CU_ASSERT(l->packages[1].kind == SC_LOCK_PYPI);
    const sc_lock_platform *pl = sc_pixi_lock_find(l, "default", "osx-arm64");
    CU_ASSERT(pl != NULL && pl->count == 2);
    sc_pixi_lock_free(l);
    LOCK_REFUSED("version: 5\nenvironments: {}\npackages:\n- kind: npm\n  url: x\n", "kind");
    LOCK_REFUSED("version: 5\nenvironments: {}\npackages:\n- kind: conda\n  name: a\n", "url and path");
    LOCK_REFUSED("version: 6\nenvironments: {}\npackages:\n- kind: conda\n  url: https://x/noarch/a-1-b.conda\n",
                 "exactly one");
}

static void test_lock_refuses_aliases_duplicates_and_deep_nesting(void)
{
    LOCK_REFUSED("version: 6\na: &x 1\nb: *x\n", "alias");
    LOCK_REFUSED("version: 6\nversion: 6\n", "twice");
    LOCK_REFUSED("version: 6\n? [a]\n: 1\n", "scalar");
    char deep[200];
    size_t n = 0;
    for (int i = 0; i <= SC_LOCK_MAX_DEPTH; i++)
        deep[n++] = '[';
    for (int i = 0; i <= SC_LOCK_MAX_DEPTH; i++)
        deep[n++] = ']';
    deep[n] = '\0';
    LOCK_REFUSED(deep, "deeper");
}

static void test_lock_packages_must_be_well_formed(void)
{
    LOCK_REFUSED("version: 6\nenvironments: {}\npackages:\n- conda: a\n  pypi: b\n", "exactly one");
    LOCK_REFUSED("version: 6\nenvironments: {}\npackages:\n- sha256: x\n", "exactly one");
    LOCK_REFUSED("version: 6\nenvironments: {}\npackages:\n- pypi: https://x/a-1-py3-none-any.whl\n  name: a\n",
                 "name and version");
    LOCK_REFUSED("version: 6\nenvironments: {}\npackages:\n- conda: https://x/noarch/notaname.conda\n",
                 "name-version-build");
    LOCK_REFUSED("version: 6\nenvironments: {}\npackages:\n- conda: https://x/noarch/a-1-b.conda\n  depends: x\n",
                 "depends");
    LOCK_REFUSED("version: 6\nenvironments: {}\npackages: {}\n", "sequence");
    LOCK_REFUSED("version: 6\npackages: []\n", "environments");
}

static void test_lock_environment_entries_must_name_packages(void)
{
    LOCK_REFUSED("version: 6\nenvironments:\n  default:\n    packages:\n      linux-64:\n"
                 "      - conda: https://x/noarch/a-1-b.conda\npackages: []\n",
                 "names no package");
    LOCK_REFUSED("version: 6\nenvironments:\n  default:\n    packages:\n      linux-64:\n"
                 "      - pypi: https://x/noarch/a-1-b.conda\n"
                 "packages:\n- conda: https://x/noarch/a-1-b.conda\n",
                 "names no package");
}

void sc_test_register_wheel(void)
{
    CU_pSuite s = CU_add_suite("wheel-tags", NULL, NULL);
    if (s == NULL)
        CU_FAIL_FATAL("CU_add_suite failed");
    SC_ADD_TEST(s, test_wheel_name_has_five_or_six_parts);
    SC_ADD_TEST(s, test_wheel_url_is_decoded_and_trimmed);
    SC_ADD_TEST(s, test_not_a_wheel_or_a_bad_wheel_name);
    SC_ADD_TEST(s, test_build_facts_cuda_tags);
    SC_ADD_TEST(s, test_build_facts_cpu_and_words);
    SC_ADD_TEST(s, test_python_tags);
    SC_ADD_TEST(s, test_platform_tags);
    SC_ADD_TEST(s, test_conda_filename_and_names);
}

void sc_test_register_pixi_lock(void)
{
    CU_pSuite s = CU_add_suite("pixi-lock", NULL, NULL);
    if (s == NULL)
        CU_FAIL_FATAL("CU_add_suite failed");
    SC_ADD_TEST(s, test_lock_v6_exposes_every_package_field);
    SC_ADD_TEST(s, test_lock_v5_fields_win_over_the_file_name);
    SC_ADD_TEST(s, test_lock_yaml_errors_name_line_and_column);
    SC_ADD_TEST(s, test_lock_unknown_versions_are_refused_naming_those_read);
    SC_ADD_TEST(s, test_lock_v7_exposes_every_package_field);
    SC_ADD_TEST(s, test_lock_v7_platforms_must_be_declared);
    SC_ADD_TEST(s, test_lock_v7_packages_must_be_well_formed);
    SC_ADD_TEST(s, test_lock_v5_kind_and_url_entries);
    SC_ADD_TEST(s, test_lock_refuses_aliases_duplicates_and_deep_nesting);
    SC_ADD_TEST(s, test_lock_packages_must_be_well_formed);
    SC_ADD_TEST(s, test_lock_environment_entries_must_name_packages);
}
