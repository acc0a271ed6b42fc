/* SPDX-License-Identifier: Apache-2.0 */
/*
 * wheel_install.h — install one verified PyPI wheel into an environment
 * prefix, as uv installs wheels for pixi (PEP 427 / PEP 491, the "binary
 * distribution format" specification), with nothing but libscrollcase.
 *
 * Guarantees (docs/format-v3.md 20.2, "Installing wheels"):
 *   - a wheel is refused before a byte of it is written when its file name's
 *     tags exclude the locked interpreter or the target's platform
 *     (wheel-incompatible), when its WHEEL file is not a 1.x wheel
 *     (invalid-wheel), when METADATA's Requires-Python excludes the
 *     interpreter (wheel-incompatible), when a member's sha256 or size
 *     disagrees with RECORD, a member is missing from RECORD or RECORD lists
 *     a file the wheel lacks (wheel-record-mismatch), a member name is
 *     unsafe (unsafe-path: `..`, absolute, backslash, drive), or a file
 *     would land on a directory of the prefix (entry-collision);
 *   - on refusal or failure the prefix is as it was before the call (files
 *     are staged in a directory inside the prefix and moved into place only
 *     once every check passed; only an I/O error while moving can leave a
 *     partial install, and the lock installer then removes the prefix);
 *   - the bytes written depend only on the wheel's bytes and the options:
 *     modes are set explicitly (0755 for launchers, for scripts from
 *     `.data/scripts/` and for members whose zip external attributes carry
 *     any exec bit; 0644 otherwise; directories 0755), no .pyc is compiled,
 *     no timestamp is taken from anywhere, INSTALLER and RECORD are written
 *     in a fixed form, the umask and locale do not matter;
 *   - console_scripts and gui_scripts entry points, and `#!python` scripts,
 *     are written directly in their final relocatable form (the format-v3
 *     20.2 step 8 `#!/bin/sh` trampoline that execs the sibling interpreter),
 *     never with a build path; RECORD lists their final bytes;
 *   - every function is reentrant: no global state, so several threads may
 *     install different wheels into one prefix at once as long as no two
 *     wheels write the same path (the lock installer installs wheels in
 *     byte order of their normalised names, one after another, for a
 *     deterministic result when two wheels do write one path: the later
 *     one wins).
 */
#ifndef SCROLLCASE_WHEEL_INSTALL_H
#define SCROLLCASE_WHEEL_INSTALL_H

#include <stddef.h>
#include <stdint.h>

#include "scrollcase/error.h"
#include "scrollcase/target.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What INSTALLER holds when the caller does not say (then a final LF). */
#define SC_WHEEL_INSTALLER_DEFAULT "scrollcase"

/* The environment a wheel goes into.  Every string is borrowed. */
typedef struct sc_wheel_env {
    const sc_target *target;     /* platform tags and launcher kind */
    const char *python_version;  /* the locked interpreter, "3.11.9" or "3.11" */
    const char *site_packages;   /* relative to the prefix:
                                    "lib/python3.11/site-packages" or
                                    "Lib/site-packages" */
    const char *scripts_dir;     /* relative to the prefix: "bin" or "Scripts" */
    const char *python_exe;      /* the interpreter's file name the launchers
                                    exec from the scripts directory: "python"
                                    (NULL: the last segment of
                                    sc_target_python_entry_point) */
    const char *installer;       /* INSTALLER's line; NULL: "scrollcase" */
    unsigned jobs;               /* threads extracting one wheel (jobs.h:
                                    0 = every CPU); never changes the bytes */
} sc_wheel_env;

/*
 * Check a wheel before any download, from its location alone (URL or file
 * name; the last path segment is parsed with sc_wheel_parse): it must be a
 * wheel file name (not one → invalid-wheel), one of its python/abi tags must
 * run on the locked interpreter (PEP 425: cpXY exact, cpXY-abi3 with XY not
 * above, pyX / pyXY not above) and one of its platform tags must install on
 * the target (wheel-incompatible otherwise):
 *   linux x86_64:   any, linux_x86_64, manylinux1/2010/2014_x86_64,
 *                   manylinux_X_Y_x86_64 for any X_Y (the locked interpreter
 *                   is conda's, whose glibc floor the lock already fixed);
 *                   musllinux_* is refused (conda's CPython is glibc);
 *   macOS arm64:    any, macosx_X_Y_arm64 and macosx_X_Y_universal2 (any
 *                   X_Y: the lock fixed the deployment floor);
 *   Windows x86_64: any, win_amd64.
 * The message names the wheel by its file name.
 */
sc_code sc_wheel_check_location(const char *location, const sc_wheel_env *env,
                                sc_error *err);

/*
 * Check a Requires-Python specifier set (the lock's `requires_python` of a
 * PyPI package, before any download, or METADATA's after) against the
 * locked interpreter: NULL or "" passes; not a PEP 440 specifier set →
 * invalid-wheel; excluding the interpreter → wheel-incompatible.  `display`
 * names the wheel in the message.
 */
sc_code sc_wheel_check_requires_python(const char *spec, const char *display,
                                       const sc_wheel_env *env, sc_error *err);

/*
 * Check a downloaded wheel file (already sha256-checked against the lock)
 * without writing anything: sc_wheel_check_location on `display` (or the
 * path's last segment when NULL), then WHEEL (Wheel-Version 1.x,
 * Root-Is-Purelib true|false) and METADATA's Requires-Python.  Does not hash
 * the members; sc_wheel_install does.
 */
sc_code sc_wheel_check_file(const char *wheel_path, const char *display,
                            const sc_wheel_env *env, sc_error *err);

/* One installed file (path relative to the prefix, '/'-separated). */
typedef struct sc_wheel_file {
    char *path;
    uint64_t size;
    char sha256[65]; /* lowercase hex of the bytes written */
    unsigned mode;   /* 0644 or 0755 */
} sc_wheel_file;

/* What sc_wheel_install did; free with sc_wheel_installed_free. */
typedef struct sc_wheel_installed {
    char *name;            /* the distribution as METADATA's Name says */
    char *version;         /* METADATA's Version */
    char *dist_info;       /* "<site-packages>/<name>-<version>.dist-info" */
    sc_wheel_file *files;  /* every file written, RECORD included, sorted
                              by path bytes */
    size_t nfiles;
    uint64_t bytes;        /* sum of files[].size */
    size_t nlaunchers;     /* console/gui launchers written */
} sc_wheel_installed;

/*
 * Install the wheel file at wheel_path into prefix (an existing directory).
 * display names the wheel in messages (the lock's URL or file name; NULL:
 * the path's last segment) and is what the file-name checks read.  Files
 * already in the prefix at a path the wheel writes are replaced.  out may be
 * NULL; on success the caller owns *out.  Codes: invalid-wheel,
 * wheel-incompatible, wheel-record-mismatch, unsafe-path, entry-collision,
 * invalid-archive and the other codes of sc_zip_open, io-error,
 * out-of-memory.  A .data/scripts file named like an entry point (less
 * ".exe", "-script.py", ".pya") is not installed: the launcher is.
 */
sc_code sc_wheel_install(const char *wheel_path, const char *display, const char *prefix,
                         const sc_wheel_env *env, sc_wheel_installed *out, sc_error *err);

void sc_wheel_installed_free(sc_wheel_installed *r);

/* ---- the text parsers, exposed for the tests and the fuzz target ---- */

/*
 * PEP 440 version specifiers: 1 when `version` satisfies every clause of
 * `spec` (comma-separated; ==, !=, >=, <=, >, <, ~=, ===, and ==/!= with a
 * trailing ".*"), 0 when it does not, -1 when spec is not a specifier set.
 * Release segments compare numerically with zero padding; pre-, post- and
 * dev-releases and local versions are ordered as PEP 440 orders them; an
 * empty spec is satisfied.
 */
int sc_pep440_satisfies(const char *spec, const char *version);

/* A parsed WHEEL file. */
typedef struct sc_wheel_meta {
    int version_major, version_minor; /* Wheel-Version */
    int root_is_purelib;              /* 1 true, 0 false */
} sc_wheel_meta;

/* Parse WHEEL (RFC 822 headers).  invalid-wheel on a missing or bad
 * Wheel-Version or Root-Is-Purelib, or a major version other than 1. */
sc_code sc_wheel_meta_parse(const char *text, size_t len, const char *name,
                            sc_wheel_meta *out, sc_error *err);

/* One RECORD row: path, hash ("sha256=<urlsafe b64, no padding>" decoded to
 * hex, "" when the row has none: RECORD itself and signatures), size (-1
 * when empty). */
typedef struct sc_wheel_record_row {
    char *path;
    char sha256[65];
    int64_t size;
} sc_wheel_record_row;

/* Parse RECORD (CSV as Python's csv module writes it: quoted fields with
 * "" escapes, CRLF or LF).  A hash other than sha256 (or stronger: sha384,
 * sha512 are refused too, being unverifiable here) → wheel-record-mismatch. */
sc_code sc_wheel_record_parse(const char *text, size_t len, const char *name,
                              sc_wheel_record_row **rows, size_t *nrows, sc_error *err);
void sc_wheel_record_free(sc_wheel_record_row *rows, size_t nrows);

/* One console or gui script of entry_points.txt. */
typedef struct sc_wheel_entry_point {
    char *name;     /* script name */
    char *module;   /* "pkg.cli" */
    char *attr;     /* "main" or "App.run" (dotted names) */
    int gui;        /* 1: gui_scripts */
} sc_wheel_entry_point;

/* Parse entry_points.txt (INI), keeping [console_scripts] and
 * [gui_scripts] sorted by name; extras ("[x]") are ignored, other sections
 * skipped.  A script name that is empty, ".", "..", holds '/', '\\' or a
 * control character, a name given twice, or a value that is not
 * "module:attr" with dotted names → invalid-wheel.  Launchers are made with
 * conda_link.h's sc_python_entry_point_launcher, so a wheel's and a conda
 * package's entry points are the same bytes. */
sc_code sc_wheel_entry_points_parse(const char *text, size_t len, const char *name,
                                    sc_wheel_entry_point **eps, size_t *neps,
                                    sc_error *err);
void sc_wheel_entry_points_free(sc_wheel_entry_point *eps, size_t neps);

/* The first value of header `field` ("Requires-Python", "Name",
 * "Version"; case-insensitive) in a METADATA text, surrounding blanks
 * trimmed, continuation lines joined (malloc'd; NULL with *found 0 when
 * absent; NULL with *found 1 when out of memory).  Only the header block
 * (up to the first empty line) is read. */
char *sc_wheel_metadata_field(const char *text, size_t len, const char *field, int *found);

#ifdef __cplusplus
}
#endif

#endif
