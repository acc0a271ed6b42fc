/* SPDX-License-Identifier: Apache-2.0 */
/*
 * harness.h — what every unit-test file shares.
 *
 * Each test file defines one register function that adds a CUnit suite;
 * harness.c lists them.  Tests name the rule they check.
 */
#ifndef SC_TEST_HARNESS_H
#define SC_TEST_HARNESS_H

#include <CUnit/CUnit.h>

#include "scrollcase/error.h"

void register_error_tests(void);
void register_json_tests(void);
void register_strbuf_tests(void);
void register_path_tests(void);
void register_target_tests(void);
void register_scroll_tests(void);
void register_migrate_tests(void);
void register_file_tests(void);
/* Areas that may not be built yet: weak, registered when linked in. */
void register_document_tests(void) __attribute__((weak));
void register_manifest_tests(void) __attribute__((weak));
void register_address_tests(void) __attribute__((weak));
void register_payload_tests(void) __attribute__((weak));
void register_archive_write_tests(void) __attribute__((weak));
void register_archive_read_tests(void) __attribute__((weak));
void register_consumer_tests(void) __attribute__((weak));
void register_run_tests(void) __attribute__((weak));
void register_parity_tests(void) __attribute__((weak));
void register_audit_tests(void) __attribute__((weak));
void register_build_tests(void) __attribute__((weak));
void register_download_tests(void) __attribute__((weak));
void register_envsource_tests(void) __attribute__((weak));
void register_gates_tests(void) __attribute__((weak));
void register_cuda_binaries_tests(void) __attribute__((weak));
void register_cuda_gate_tests(void) __attribute__((weak));
void register_author_tests(void) __attribute__((weak));
void register_requirements_tests(void) __attribute__((weak));
void register_progress_tests(void) __attribute__((weak));
void register_lock_install_tests(void) __attribute__((weak));
void register_conda_package_tests(void) __attribute__((weak));
void register_wheel_install_tests(void) __attribute__((weak));

/* A fresh empty directory under $TMPDIR for one test (caller frees). */
char *sc_test_tmpdir(void);
/* rm -rf path (test helper only). */
void sc_test_rmtree(const char *path);
/* Write a NUL-terminated string to dir/rel, creating parent directories. */
void sc_test_write(const char *dir, const char *rel, const char *text);
/* The bytes of dir/rel, NUL-terminated (caller frees); NULL when it cannot
 * be read. */
char *sc_test_read(const char *dir, const char *rel);

/*
 * The temporary root of a consumer test (issue 14: nothing is left behind).
 * sc_test_tmp_root_setup makes a fresh empty directory and points TMPDIR at
 * it, so every temporary an operation makes by default lands there;
 * sc_test_tmp_root_teardown asserts that it is empty again (whatever the
 * test's operations returned), removes it and restores TMPDIR.  The
 * consumer and run suites install them as per-test setup and teardown.
 * sc_test_expect_empty asserts that a directory (an explicit tmpdir) holds
 * nothing.
 */
void sc_test_tmp_root_setup(void);
void sc_test_tmp_root_teardown(void);
const char *sc_test_tmp_root(void);
void sc_test_expect_empty_at(const char *dir, const char *file, int line);
#define sc_test_expect_empty(dir) sc_test_expect_empty_at((dir), __FILE__, __LINE__)

/* A copy of s with every ' turned into " (tests write JSON single-quoted). */
char *sc_test_dq(const char *s);

/* Assert a code, printing both codes and the message when they differ. */
void sc_test_expect_code_at(sc_code got, sc_code want, const sc_error *err,
                            const char *file, int line);
#define SC_EXPECT_CODE(got, want, err)                                       \
    sc_test_expect_code_at((got), (want), (err), __FILE__, __LINE__)

/* A temporary workspace: a fresh directory (real path) with scrolls/. */
typedef struct sc_test_ws {
    char *root;
    char *scrolls;
} sc_test_ws;
sc_test_ws sc_test_ws_new(void);
void sc_test_ws_free(sc_test_ws *w);
/* Write single-quoted JSON text to <scrolls>/rel. */
void sc_test_ws_put(const sc_test_ws *w, const char *rel, const char *text);

#define SC_ADD_TEST(suite, fn)                                              \
    do {                                                                    \
        if (CU_add_test((suite), #fn, (fn)) == NULL)                        \
            CU_FAIL_FATAL("CU_add_test failed");                            \
    } while (0)

#endif
