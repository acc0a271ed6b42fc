/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_lock_install.c — the native lock installer's plan (format-v3 20.2,
 * "From the lock"): what it refuses before anything is downloaded, the
 * order it installs in, channel mirrors, and that a failed install leaves
 * no prefix behind.  Installs of real packages served over loopback are in
 * core/tests/cli/lock_install_cli_test.sh.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "scrollcase/file.h"
#include "scrollcase/lock_install.h"

#define H64(c) c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c \
               c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c c
#define SHA_A H64("a")
#define SHA_B H64("b")
#define SHA_C H64("c")
#define CH "https://conda.example.invalid/cf"
#define PY "https://files.example.invalid/w"

static sc_target linux_cpu(void)
{
    sc_target t;
    memset(&t, 0, sizeof t);
    t.platform = SC_PLATFORM_LINUX;
    t.arch = SC_ARCH_X86_64;
    t.accelerator = SC_ACCEL_CPU;
    return t;
}

/* A v6 lock whose linux-64 default environment names the given package
 * lines (each "- conda: URL" or "- pypi: URL"), with records. */
typedef struct lockcase {
    char *dir;
    char *lock;
    sc_target t;
    sc_lock_install_options o;
} lockcase;

static lockcase lock_case_(const char *env_packages, const char *records)
{
    lockcase c;
    memset(&c, 0, sizeof c);
    c.dir = sc_test_tmpdir();
    CU_ASSERT_PTR_NOT_NULL_FATAL(c.dir);
    char *text = NULL;
    CU_ASSERT_FATAL(asprintf(&text,
                             "version: 6\n"
                             "environments:\n"
                             "  default:\n"
                             "    channels:\n"
                             "    - url: " CH "/\n"
                             "    packages:\n"
                             "      linux-64:\n"
                             "%s"
                             "packages:\n"
                             "%s",
                             env_packages, records) > 0);
    sc_test_write(c.dir, "pixi.lock", text);
    free(text);
    c.lock = sc_path_join(c.dir, "pixi.lock");
    c.t = linux_cpu();
    c.o.lock_path = c.lock;
    return c;
}

/* The options point at the case's own target: set once the case is where
 * it stays (the caller's variable). */
#define lock_case(c, env, rec) ((c) = lock_case_((env), (rec)), (c).o.target = &(c).t)

static void lock_case_free(lockcase *c)
{
    sc_test_rmtree(c->dir);
    free(c->dir);
    free(c->lock);
}

#define PYTHON_ENV "      - conda: " CH "/linux-64/python-3.11.9-h0_0_cpython.conda\n"
#define PYTHON_REC                                                                \
    "- conda: " CH "/linux-64/python-3.11.9-h0_0_cpython.conda\n"                \
    "  sha256: " SHA_A "\n"                                                       \
    "  size: 1000\n"

/* Plan; expect code, and the message to name `names`. */
static void expect_plan(lockcase *c, sc_code want, const char *names)
{
    sc_lock_install_plan plan;
    sc_error err;
    sc_error_clear(&err);
    sc_code got = sc_lock_install_plan_make(&c->o, &plan, &err);
    SC_EXPECT_CODE(got, want, &err);
    if (got == SC_OK)
        sc_lock_install_plan_free(&plan);
    if (names != NULL && strstr(err.message, names) == NULL) {
        fprintf(stderr, "\n  message \"%s\" does not name %s\n", err.message, names);
        CU_FAIL("the refusal does not name the package");
    }
}

static void test_refuses_sdist_before_download(void)
{
    lockcase c;
    lock_case(c, PYTHON_ENV "      - pypi: " PY "/pillow-9.0.1.tar.gz\n",
                           PYTHON_REC "- pypi: " PY "/pillow-9.0.1.tar.gz\n"
                                      "  name: pillow\n  version: 9.0.1\n  sha256: " SHA_B "\n");
    expect_plan(&c, SC_E_UNSUPPORTED_LOCK_PACKAGE, "pillow 9.0.1");
    lock_case_free(&c);
}

static void test_refuses_git_entry(void)
{
    lockcase c;
    lock_case(c, PYTHON_ENV "      - pypi: git+https://git.example.invalid/x.git@abc\n",
                           PYTHON_REC "- pypi: git+https://git.example.invalid/x.git@abc\n"
                                      "  name: x\n  version: 1.0\n");
    expect_plan(&c, SC_E_UNSUPPORTED_LOCK_PACKAGE, "git checkout");
    lock_case_free(&c);
}

static void test_refuses_path_entry(void)
{
    lockcase c;
    lock_case(c, PYTHON_ENV "      - pypi: ./src/mypkg\n",
                           PYTHON_REC "- pypi: ./src/mypkg\n  name: mypkg\n  version: 0.1\n"
                                      "  sha256: " SHA_B "\n");
    expect_plan(&c, SC_E_UNSUPPORTED_LOCK_PACKAGE, "mypkg");
    lock_case_free(&c);
}

static void test_refuses_editable_entry(void)
{
    lockcase c;
    lock_case(c, PYTHON_ENV "      - pypi: ./src/mypkg\n",
                           PYTHON_REC "- pypi: ./src/mypkg\n  name: mypkg\n  version: 0.1\n"
                                      "  editable: true\n");
    expect_plan(&c, SC_E_UNSUPPORTED_LOCK_PACKAGE, "editable");
    lock_case_free(&c);
}

static void test_refuses_package_without_sha256(void)
{
    lockcase c;
    lock_case(c, PYTHON_ENV "      - conda: " CH "/linux-64/zlib-1.3-h1_0.conda\n",
                           PYTHON_REC "- conda: " CH "/linux-64/zlib-1.3-h1_0.conda\n"
                                      "  size: 10\n");
    expect_plan(&c, SC_E_UNSUPPORTED_LOCK_PACKAGE, "zlib 1.3");
    lock_case_free(&c);
}

static void test_refuses_conda_source_package(void)
{
    lockcase c;
    memset(&c, 0, sizeof c);
    c.dir = sc_test_tmpdir();
    sc_test_write(c.dir, "pixi.lock",
                  "version: 7\n"
                  "platforms:\n- name: linux-64\n"
                  "environments:\n  default:\n    channels:\n    - url: " CH "/\n"
                  "    packages:\n      linux-64:\n"
                  "      - conda_source: mypkg[abcd1234] @ .\n"
                  "packages:\n"
                  "- conda_source: mypkg[abcd1234] @ .\n"
                  "  version: 0.1.0\n  build: hbuild_0\n  subdir: linux-64\n");
    c.lock = sc_path_join(c.dir, "pixi.lock");
    c.t = linux_cpu();
    c.o.lock_path = c.lock;
    c.o.target = &c.t;
    expect_plan(&c, SC_E_UNSUPPORTED_LOCK_PACKAGE, "conda_source");
    lock_case_free(&c);
}

static void test_refuses_lock_without_the_target_platform(void)
{
    lockcase c;
    lock_case(c, PYTHON_ENV, PYTHON_REC);
    sc_target mac = c.t;
    mac.platform = SC_PLATFORM_MACOS;
    mac.arch = SC_ARCH_AARCH64;
    mac.accelerator = SC_ACCEL_METAL;
    c.o.target = &mac;
    expect_plan(&c, SC_E_LOCK_PLATFORM_MISSING, "osx-arm64");
    lock_case_free(&c);
}

static void test_refuses_wheel_for_another_platform(void)
{
    lockcase c;
    lock_case(c, PYTHON_ENV "      - pypi: " PY "/fast-1.0-cp311-cp311-win_amd64.whl\n",
                           PYTHON_REC "- pypi: " PY "/fast-1.0-cp311-cp311-win_amd64.whl\n"
                                      "  name: fast\n  version: '1.0'\n  sha256: " SHA_B "\n");
    expect_plan(&c, SC_E_WHEEL_INCOMPATIBLE, "fast");
    lock_case_free(&c);
}

/* the lock's requires_python is judged against the locked interpreter */
static void test_refuses_wheel_whose_requires_python_excludes_the_interpreter(void)
{
    lockcase c;
    lock_case(c, PYTHON_ENV "      - pypi: " PY "/newer-1.0-py3-none-any.whl\n",
              PYTHON_REC "- pypi: " PY "/newer-1.0-py3-none-any.whl\n"
                         "  name: newer\n  version: '1.0'\n  sha256: " SHA_B "\n"
                         "  requires_python: '>=3.12'\n");
    expect_plan(&c, SC_E_WHEEL_INCOMPATIBLE, ">=3.12");
    lock_case_free(&c);
}

static void test_refuses_wheel_without_python(void)
{
    lockcase c;
    lock_case(c, "      - pypi: " PY "/six-1.16.0-py2.py3-none-any.whl\n",
                           "- pypi: " PY "/six-1.16.0-py2.py3-none-any.whl\n"
                           "  name: six\n  version: 1.16.0\n  sha256: " SHA_B "\n");
    expect_plan(&c, SC_E_UNSUPPORTED_LOCK_PACKAGE, "six");
    lock_case_free(&c);
}

/* conda packages in lock order, wheels after them sorted by normalised name */
static void test_plan_order_conda_then_wheels_by_name(void)
{
    lockcase c;
    lock_case(c, 
        "      - conda: " CH "/linux-64/zlib-1.3-h1_0.conda\n" PYTHON_ENV
        "      - pypi: " PY "/Zeta_Pkg-1.0-py3-none-any.whl\n"
        "      - pypi: " PY "/alpha-2.0-py3-none-any.whl\n",
        PYTHON_REC "- conda: " CH "/linux-64/zlib-1.3-h1_0.conda\n  sha256: " SHA_C "\n"
                   "- pypi: " PY "/Zeta_Pkg-1.0-py3-none-any.whl\n  name: Zeta_Pkg\n"
                   "  version: '1.0'\n  sha256: " SHA_B "\n"
                   "- pypi: " PY "/alpha-2.0-py3-none-any.whl\n  name: alpha\n"
                   "  version: '2.0'\n  sha256: " SHA_C "\n");
    sc_lock_install_plan plan;
    sc_error err;
    SC_EXPECT_CODE(sc_lock_install_plan_make(&c.o, &plan, &err), SC_OK, &err);
    CU_ASSERT_EQUAL_FATAL(plan.nitems, 4);
    CU_ASSERT_EQUAL(plan.nconda, 2);
    CU_ASSERT_STRING_EQUAL(plan.items[0].label, "zlib-1.3-h1_0");
    CU_ASSERT_STRING_EQUAL(plan.items[1].label, "python-3.11.9-h0_0_cpython");
    CU_ASSERT_STRING_EQUAL(plan.items[2].pkg->name, "alpha");
    CU_ASSERT_STRING_EQUAL(plan.items[3].pkg->name, "Zeta_Pkg");
    CU_ASSERT_STRING_EQUAL(plan.python_version, "3.11.9");
    CU_ASSERT_STRING_EQUAL(plan.site_packages, "lib/python3.11/site-packages");
    CU_ASSERT_EQUAL(strlen(plan.lock_sha256), 64);
    sc_lock_install_plan_free(&plan);
    lock_case_free(&c);
}

static void test_mirror_rewrites_the_first_matching_prefix(void)
{
    lockcase c;
    lock_case(c, PYTHON_ENV, PYTHON_REC);
    sc_channel_mirror m[2];
    sc_error err;
    SC_EXPECT_CODE(sc_channel_mirror_parse("https://other.invalid=http://127.0.0.1:9/x", &m[0],
                                           &err),
                   SC_OK, &err);
    SC_EXPECT_CODE(sc_channel_mirror_parse(CH "=/srv/mirror", &m[1], &err), SC_OK, &err);
    c.o.mirrors = m;
    c.o.nmirrors = 2;
    sc_lock_install_plan plan;
    SC_EXPECT_CODE(sc_lock_install_plan_make(&c.o, &plan, &err), SC_OK, &err);
    CU_ASSERT_EQUAL_FATAL(plan.nitems, 1);
    CU_ASSERT_STRING_EQUAL(plan.items[0].url,
                           "file:///srv/mirror/linux-64/python-3.11.9-h0_0_cpython.conda");
    sc_lock_install_plan_free(&plan);
    lock_case_free(&c);
}

static void test_mirror_spec_needs_from_and_a_url_or_directory(void)
{
    static const char *const bad[] = {"", "=http://x", "https://a.invalid=", "noequals",
                                      "https://a.invalid=relative/dir", "a=ftp://x"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        sc_channel_mirror m;
        sc_error err;
        SC_EXPECT_CODE(sc_channel_mirror_parse(bad[i], &m, &err), SC_E_USAGE, &err);
    }
}

/* Offline with an empty cache: asset-not-cached naming the package; no
 * prefix and no staging or scratch directory beside it afterwards. */
static void test_offline_uncached_leaves_nothing(void)
{
    lockcase c;
    lock_case(c, PYTHON_ENV, PYTHON_REC);
    char *cache = sc_path_join(c.dir, "cache");
    char *venv = sc_path_join(c.dir, "venv");
    c.o.cache_dir = cache;
    c.o.offline = 1;
    sc_lock_install_result r;
    sc_error err;
    SC_EXPECT_CODE(sc_lock_install(&c.o, venv, &r, &err), SC_E_ASSET_NOT_CACHED, &err);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "python-3.11.9-h0_0_cpython"));
    struct stat st;
    CU_ASSERT_NOT_EQUAL(lstat(venv, &st), 0);
    char *staging = sc_path_join(c.dir, ".venv.scrollcase-staging");
    char *scratch = sc_path_join(c.dir, ".venv.scrollcase-packages");
    CU_ASSERT_NOT_EQUAL(lstat(staging, &st), 0);
    CU_ASSERT_NOT_EQUAL(lstat(scratch, &st), 0);
    free(staging);
    free(scratch);
    free(cache);
    free(venv);
    lock_case_free(&c);
}

static void test_existing_prefix_is_refused(void)
{
    lockcase c;
    lock_case(c, PYTHON_ENV, PYTHON_REC);
    sc_lock_install_result r;
    sc_error err;
    SC_EXPECT_CODE(sc_lock_install(&c.o, c.dir, &r, &err), SC_E_EXISTING_DESTINATION, &err);
    lock_case_free(&c);
}

void register_lock_install_tests(void)
{
    CU_pSuite s = CU_add_suite("lock-install", NULL, NULL);
    if (s == NULL)
        CU_FAIL_FATAL("CU_add_suite failed");
    CU_add_test(s, "refuses_sdist_before_download", test_refuses_sdist_before_download);
    CU_add_test(s, "refuses_git_entry", test_refuses_git_entry);
    CU_add_test(s, "refuses_path_entry", test_refuses_path_entry);
    CU_add_test(s, "refuses_editable_entry", test_refuses_editable_entry);
    CU_add_test(s, "refuses_package_without_sha256", test_refuses_package_without_sha256);
    CU_add_test(s, "refuses_conda_source_package", test_refuses_conda_source_package);
    CU_add_test(s, "refuses_lock_without_the_target_platform",
                test_refuses_lock_without_the_target_platform);
    CU_add_test(s, "refuses_wheel_for_another_platform", test_refuses_wheel_for_another_platform);
    CU_add_test(s, "refuses_wheel_without_python", test_refuses_wheel_without_python);
    CU_add_test(s, "refuses_wheel_whose_requires_python_excludes_the_interpreter",
                test_refuses_wheel_whose_requires_python_excludes_the_interpreter);
    CU_add_test(s, "plan_order_conda_then_wheels_by_name",
                test_plan_order_conda_then_wheels_by_name);
    CU_add_test(s, "mirror_rewrites_the_first_matching_prefix",
                test_mirror_rewrites_the_first_matching_prefix);
    CU_add_test(s, "mirror_spec_needs_from_and_a_url_or_directory",
                test_mirror_spec_needs_from_and_a_url_or_directory);
    CU_add_test(s, "offline_uncached_leaves_nothing", test_offline_uncached_leaves_nothing);
    CU_add_test(s, "existing_prefix_is_refused", test_existing_prefix_is_refused);
}
