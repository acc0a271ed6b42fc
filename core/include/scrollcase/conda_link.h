/* SPDX-License-Identifier: Apache-2.0 */
/*
 * conda_link.h — link extracted conda packages into one prefix (`venv`).
 *
 * Given packages that sc_conda_extract() unpacked, sc_conda_link() writes
 * the prefix the way docs/format-v3.md 20.2 ("Linking conda packages") specifies:
 *   - order: a topological order of the packages by their `depends` names
 *     (dependencies first); among packages that are ready at the same time
 *     the smaller name (bytes) goes first; a cycle is broken by taking the
 *     remaining package with the smallest name.  The order never depends on
 *     the order of the input array.
 *   - clobbering: the prefix holds what writing every package's entries
 *     one after the other in that order would leave, each entry replacing
 *     whatever stands at its path (a file, a link, or a directory with all
 *     it holds) and any file or link at a directory on its way; paths are
 *     compared after ASCII case folding on a case-folding target.  So the
 *     later package wins, for a path that is a file in one package and a
 *     directory in another too.  This is computed before anything is
 *     written; a losing entry is never written.  Each lost file, link or
 *     entry point of another package is reported through on_clobber, in
 *     byte order of the loser's path, then link order: the path (the
 *     winner's when it wrote that same path, else the loser's), the winner
 *     (the package of the last later entry at that same path; else, for a
 *     file or link, of the last entry beneath it; else of the last later
 *     file or link at the directory on its way nearest the root) and the
 *     loser.
 *   - every listed path: "hardlink" files are hard-linked from the extracted
 *     directory when both are on one file system and the file is not
 *     rewritten, else copied; `no_link` files are always copied; soft links
 *     are re-created with the same target text; directories are created;
 *     file modes are those of the extracted file (& 0777), directories 0755.
 *   - noarch: python: `site-packages/X` -> `<site_packages>/X`,
 *     `python-scripts/X` -> `<scripts_dir>/X`; each entry point of
 *     info/link.json becomes `<scripts_dir>/<command>`, a launcher (below)
 *     (`<command>-script.py` and no rewrites when `windows` is set).
 *   - placeholders are never substituted; the only rewrite is of launchers:
 *     a listed text-mode file in scripts_dir whose first line is a `#!` line
 *     naming its placeholder and a `python*` interpreter, and every
 *     noarch python-scripts file that starts with `#!`, is written as the
 *     relocatable /bin/sh trampoline of format-v3 20.2 step 8 followed by
 *     the body without its first line, mode 0755 (never hard-linked).
 *   - pre/post-link scripts are never run (they are plain listed files).
 *   - conda-meta/<name>-<version>-<build>.json per package: name, version,
 *     build, license (the lock's licence if given, else index.json's; left
 *     out when neither), 2-space JSON + LF, mode 0644.
 *
 * Errors: SC_E_USAGE (bad options, site_packages missing for a
 * noarch:python package), SC_E_ENTRY_COLLISION (a package file where a
 * conda-meta record goes), SC_E_EXISTING_DESTINATION
 * (prefix exists and is not an empty directory), SC_E_INVALID_PACKAGE (an
 * extracted file missing), SC_E_IO, SC_E_OUT_OF_MEMORY.  On failure the
 * prefix directory is removed (the caller hands in a prefix that does not
 * exist or is empty).
 *
 * Thread safety: no global state.
 */
#ifndef SCROLLCASE_CONDA_LINK_H
#define SCROLLCASE_CONDA_LINK_H

#include <stddef.h>

#include "scrollcase/conda_package.h"
#include "scrollcase/error.h"
#include "scrollcase/strbuf.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One package to link.  All pointers are borrowed for the call. */
typedef struct sc_conda_link_package {
    const sc_conda_package *pkg;  /* from sc_conda_extract */
    const char *extracted_dir;    /* its dest directory */
    const char *license;          /* the lock record's licence; NULL: index.json's */
} sc_conda_link_package;

/* One clobbered path, as reported.  Strings borrowed for the callback. */
typedef struct sc_conda_clobber {
    const char *path;             /* prefix-relative path that is written */
    const sc_conda_package *winner;
    const sc_conda_package *loser;
} sc_conda_clobber;

typedef void (*sc_conda_clobber_fn)(void *ctx, const sc_conda_clobber *c);

typedef struct sc_conda_link_options {
    const char *prefix;         /* absolute or relative directory; created */
    const char *site_packages;  /* prefix-relative, e.g. "lib/python3.11/site-packages";
                                 * required only when a noarch:python package is linked */
    const char *scripts_dir;    /* prefix-relative scripts directory; NULL: "bin" */
    const char *python;         /* interpreter's file name in scripts_dir; NULL: "python" */
    int case_folding;           /* the target's file system folds case (osx, win) */
    sc_conda_clobber_fn on_clobber; /* may be NULL */
    void *clobber_ctx;
    /* Nonzero: every file is copied, never hard-linked.  Zero (the default):
     * files share their inode with the extracted directory, so whoever
     * keeps that directory (a cache) must not let anything rewrite a venv
     * file in place; replace files (write a new one, rename) instead. */
    int copy_files;
    /* Nonzero for a Windows target (no POSIX launchers, format-v3 20.2 step
     * 8): no file is rewritten as a launcher, and each entry point becomes
     * <scripts_dir>/<command>-script.py (the launcher's text; the wheel
     * installer writes its console scripts the same way).  No .exe is made. */
    int windows;
} sc_conda_link_options;

/*
 * The link order of pkgs (see above): order[i] is the index into pkgs of
 * the i-th package to link.  order holds n entries (caller-allocated).
 * Two packages with the same name -> SC_E_INVALID_PACKAGE.
 */
sc_code sc_conda_link_order(const sc_conda_link_package *pkgs, size_t n, size_t *order,
                            sc_error *err);

/* Link pkgs[0..n) into opts->prefix.  *clobbers (may be NULL) = how many
 * clobbered paths were reported. */
sc_code sc_conda_link(const sc_conda_link_package *pkgs, size_t n,
                      const sc_conda_link_options *opts, size_t *clobbers, sc_error *err);

/*
 * "lib/pythonX.Y/site-packages" (POSIX) or "Lib/site-packages" (windows
 * nonzero) from a python record's version ("3.11.9" -> "3.11").  A version
 * without a major.minor -> SC_E_INVALID_PACKAGE.  *out owned by the caller.
 */
sc_code sc_conda_site_packages(const char *python_version, int windows, char **out,
                               sc_error *err);

/*
 * The relocatable launcher head of format-v3 20.2 step 8: "#!/bin/sh",
 * the '''exec' line running "<dir of $0>/<python>" on the file, and "' '''",
 * each ending in LF, appended to out.
 */
sc_code sc_python_trampoline_head(const char *python, sc_strbuf *out, sc_error *err);

/*
 * A whole console-script launcher for `module:function` (appended to out):
 * the trampoline head, then a Python body that imports function from module,
 * strips "-script.py"/".exe" from argv[0] and exits with function()'s
 * result.  function may be dotted ("a.b" -> attribute of an attribute).
 * Shared with the wheel installer so both write the same bytes.
 */
sc_code sc_python_entry_point_launcher(const char *python, const char *module,
                                       const char *function, sc_strbuf *out,
                                       sc_error *err);

#ifdef __cplusplus
}
#endif

#endif
