/* SPDX-License-Identifier: Apache-2.0 */
/*
 * harness.c — the unit-test driver.
 *
 *   unit_tests                      run every test
 *   unit_tests --list               print "suite/test" per line
 *   unit_tests --run SUITE/TEST     run one test
 *   unit_tests --ctest-script FILE  write add_test() lines, one per test
 *
 * The exit status is 1 when any assertion failed (CUnit's own run functions
 * return a framework status, not the failure count, so we read the count).
 */
#define _XOPEN_SOURCE 700
#include "harness.h"

#include "scrollcase/file.h"

#include <CUnit/Basic.h>
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void register_all(void)
{
    register_error_tests();
    register_json_tests();
    register_strbuf_tests();
    register_path_tests();
    register_target_tests();
    register_scroll_tests();
    register_migrate_tests();
    register_file_tests();
    if (register_document_tests)
        register_document_tests();
    if (register_manifest_tests)
        register_manifest_tests();
    if (register_address_tests)
        register_address_tests();
    if (register_payload_tests)
        register_payload_tests();
    if (register_archive_write_tests)
        register_archive_write_tests();
    if (register_archive_read_tests)
        register_archive_read_tests();
    if (register_consumer_tests)
        register_consumer_tests();
    if (register_run_tests)
        register_run_tests();
    if (register_parity_tests)
        register_parity_tests();
    if (register_audit_tests)
        register_audit_tests();
    if (register_build_tests)
        register_build_tests();
    if (register_download_tests)
        register_download_tests();
    if (register_envsource_tests)
        register_envsource_tests();
    if (register_lock_install_tests)
        register_lock_install_tests();
    if (register_conda_package_tests)
        register_conda_package_tests();
    if (register_wheel_install_tests)
        register_wheel_install_tests();
    if (register_gates_tests)
        register_gates_tests();
    if (register_cuda_binaries_tests)
        register_cuda_binaries_tests();
    if (register_cuda_gate_tests)
        register_cuda_gate_tests();
    if (register_author_tests)
        register_author_tests();
    if (register_requirements_tests)
        register_requirements_tests();
    if (register_progress_tests)
        register_progress_tests();
}

char *sc_test_tmpdir(void)
{
    const char *base = getenv("TMPDIR");
    if (base == NULL || base[0] == '\0')
        base = "/tmp";
    size_t n = strlen(base) + 32;
    char *p = malloc(n);
    if (p == NULL)
        return NULL;
    snprintf(p, n, "%s/sc-test-XXXXXX", base);
    if (mkdtemp(p) == NULL) {
        free(p);
        return NULL;
    }
    return p;
}

static char *g_tmp_root;
static char *g_saved_tmpdir;
static int g_had_tmpdir;

void sc_test_tmp_root_setup(void)
{
    const char *cur = getenv("TMPDIR");
    g_had_tmpdir = cur != NULL;
    g_saved_tmpdir = cur ? strdup(cur) : NULL;
    g_tmp_root = sc_test_tmpdir();
    if (g_tmp_root != NULL)
        setenv("TMPDIR", g_tmp_root, 1);
}

const char *sc_test_tmp_root(void)
{
    return g_tmp_root;
}

void sc_test_expect_empty_at(const char *dir, const char *file, int line)
{
    DIR *d = opendir(dir);
    if (d == NULL) {
        if (errno != ENOENT)
            CU_assertImplementation(0, (unsigned)line, "the temporary root cannot be listed",
                                    file, "", CU_FALSE);
        return;
    }
    int left = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        if (left++ == 0)
            fprintf(stderr, "\n  %s:%d: left behind in %s: %s\n", file, line, dir, e->d_name);
    }
    closedir(d);
    CU_assertImplementation(left == 0, (unsigned)line, "the temporary root is empty afterwards",
                            file, "", CU_FALSE);
}

void sc_test_tmp_root_teardown(void)
{
    if (g_had_tmpdir)
        setenv("TMPDIR", g_saved_tmpdir, 1);
    else
        unsetenv("TMPDIR");
    free(g_saved_tmpdir);
    g_saved_tmpdir = NULL;
    if (g_tmp_root == NULL)
        return;
    sc_test_expect_empty(g_tmp_root);
    sc_test_rmtree(g_tmp_root);
    free(g_tmp_root);
    g_tmp_root = NULL;
}

static int rm_one(const char *path, const struct stat *st, int flag,
                  struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

void sc_test_rmtree(const char *path)
{
    if (path != NULL)
        nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

void sc_test_write(const char *dir, const char *rel, const char *text)
{
    size_t n = strlen(dir) + strlen(rel) + 2;
    char *p = malloc(n);
    if (p == NULL)
        return;
    snprintf(p, n, "%s/%s", dir, rel);
    for (char *s = p + strlen(dir) + 1; *s; s++) {
        if (*s == '/') {
            *s = '\0';
            mkdir(p, 0755);
            *s = '/';
        }
    }
    FILE *f = fopen(p, "wb");
    if (f != NULL) {
        fputs(text, f);
        fclose(f);
    }
    free(p);
}

char *sc_test_read(const char *dir, const char *rel)
{
    char *p = sc_path_join(dir, rel);
    char *text = NULL;
    size_t len;
    sc_error err;
    if (p == NULL || sc_file_read(p, &text, &len, NULL, &err) != SC_OK)
        text = NULL;
    free(p);
    return text;
}

char *sc_test_dq(const char *s)
{
    char *r = strdup(s);
    for (char *p = r; p && *p; p++)
        if (*p == '\'')
            *p = '"';
    return r;
}

void sc_test_expect_code_at(sc_code got, sc_code want, const sc_error *err,
                            const char *file, int line)
{
    if (got != want)
        fprintf(stderr, "\n  %s:%d: got %s, want %s: %s\n", file, line,
                sc_code_name(got), sc_code_name(want), err ? err->message : "");
    CU_assertImplementation(got == want, (unsigned)line, "code as expected", file,
                            "", CU_FALSE);
}

sc_test_ws sc_test_ws_new(void)
{
    sc_test_ws w = {NULL, NULL};
    char *t = sc_test_tmpdir();
    CU_ASSERT_PTR_NOT_NULL_FATAL(t);
    char real[PATH_MAX];
    w.root = realpath(t, real) ? strdup(real) : strdup(t);
    free(t);
    size_t n = strlen(w.root) + sizeof "/scrolls";
    w.scrolls = malloc(n);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w.scrolls);
    snprintf(w.scrolls, n, "%s/scrolls", w.root);
    mkdir(w.scrolls, 0755);
    return w;
}

void sc_test_ws_free(sc_test_ws *w)
{
    sc_test_rmtree(w->root);
    free(w->root);
    free(w->scrolls);
}

void sc_test_ws_put(const sc_test_ws *w, const char *rel, const char *text)
{
    char *t = sc_test_dq(text);
    sc_test_write(w->scrolls, rel, t);
    free(t);
}

static int write_ctest_script(const char *self, const char *out)
{
    FILE *f = fopen(out, "w");
    if (f == NULL) {
        perror(out);
        return 2;
    }
    for (CU_pSuite s = CU_get_registry()->pSuite; s; s = s->pNext)
        for (CU_pTest t = s->pTest; t; t = t->pNext) {
            fprintf(f, "add_test(\"unit/%s/%s\" \"%s\" --run \"%s/%s\")\n",
                    s->pName, t->pName, self, s->pName, t->pName);
            fprintf(f, "set_tests_properties(\"unit/%s/%s\" PROPERTIES LABELS unit)\n",
                    s->pName, t->pName);
        }
    fclose(f);
    return 0;
}

int main(int argc, char **argv)
{
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 2;
    register_all();
    CU_basic_set_mode(CU_BRM_VERBOSE);
    int rc = 0;
    if (argc == 2 && strcmp(argv[1], "--list") == 0) {
        for (CU_pSuite s = CU_get_registry()->pSuite; s; s = s->pNext)
            for (CU_pTest t = s->pTest; t; t = t->pNext)
                printf("%s/%s\n", s->pName, t->pName);
    } else if (argc == 3 && strcmp(argv[1], "--ctest-script") == 0) {
        rc = write_ctest_script(argv[0], argv[2]);
    } else if (argc == 3 && strcmp(argv[1], "--run") == 0) {
        char *name = strdup(argv[2]);
        char *slash = name ? strchr(name, '/') : NULL;
        if (name == NULL) {
            CU_cleanup_registry();
            return 2;
        }
        if (slash == NULL) {
            /* a whole suite in one process (ci/memcheck: one valgrind start
             * per suite instead of one per test) */
            CU_pSuite s = CU_get_suite(name);
            if (s == NULL) {
                fprintf(stderr, "unit_tests: no suite %s\n", name);
                rc = 2;
            } else {
                CU_basic_run_suite(s);
                rc = CU_get_number_of_failures() > 0 || CU_get_number_of_tests_failed() > 0;
            }
            free(name);
            CU_cleanup_registry();
            return rc;
        }
        *slash = '\0';
        CU_pSuite s = CU_get_suite(name);
        CU_pTest t = s ? CU_get_test(s, slash + 1) : NULL;
        if (t == NULL) {
            fprintf(stderr, "unit_tests: no test %s\n", argv[2]);
            rc = 2;
        } else {
            CU_basic_run_test(s, t);
            rc = CU_get_number_of_failures() > 0 || CU_get_number_of_tests_failed() > 0;
        }
        free(name);
    } else if (argc == 1) {
        CU_basic_run_tests();
        rc = CU_get_number_of_failures() > 0 || CU_get_number_of_tests_failed() > 0;
    } else {
        fprintf(stderr, "usage: unit_tests [--list | --run SUITE[/TEST] | --ctest-script FILE]\n");
        rc = 2;
    }
    CU_cleanup_registry();
    return rc;
}
