/* SPDX-License-Identifier: Apache-2.0 */
/*
 * execution.h — static discoverability of a box's execution entry point.
 *
 * Guarantees (docs/format-v3.md 16.6, 10.2): a python-script execution is
 * discoverable iff its script path is present (file or link) in the box; a
 * python-module execution iff one of <m>.py, <m>/__main__.py (m = the module
 * with '.' as '/') is present under "", the standard library directory or
 * its site-packages (tried in that order).  The standard library directory
 * is venv/Lib on Windows targets and venv/lib/python<maj>.<min> elsewhere,
 * <maj>.<min> read from provenance.pythonVersion.  The same rule serves an
 * archive's entry set and a directory on disk: presence comes from a callback.
 */
#ifndef SCROLLCASE_EXECUTION_H
#define SCROLLCASE_EXECUTION_H

#include "scrollcase/error.h"
#include "scrollcase/json.h"
#include "scrollcase/target.h"

#ifdef __cplusplus
extern "C" {
#endif

/* 1 if a file or link entry exists at the payload path, else 0. */
typedef int (*sc_has_path_fn)(void *ctx, const char *path);

/*
 * release: a checked release or box.json (execution, provenance.pythonVersion,
 * target).  target may be NULL (then read from the release).  No execution ->
 * SC_OK (library-only).  script missing -> SC_E_MISSING_SCRIPT "Execution
 * script is missing from the box: <script>."; module not discoverable ->
 * SC_E_MISSING_MODULE "Execution module is not discoverable in the box:
 * <module>."; a python-module release whose pythonVersion does not start
 * with <digits>.<digits> followed by '.' or its end -> SC_E_INVALID_MANIFEST
 * "Invalid Python version for execution discovery: <v>."; a malformed
 * execution object -> SC_E_INVALID_MANIFEST; an unsafe script path ->
 * SC_E_UNSAFE_PATH.
 */
sc_code sc_execution_check(const sc_json *release, const sc_target *target,
                           sc_has_path_fn has, void *ctx, sc_error *err);

/* has() over a directory tree: root_dir is a const char * directory path;
 * lstat of root_dir/path says regular file or symlink. */
int sc_execution_has_in_dir(void *root_dir, const char *path);

#ifdef __cplusplus
}
#endif

#endif
