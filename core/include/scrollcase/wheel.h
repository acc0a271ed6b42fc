/* SPDX-License-Identifier: Apache-2.0 */
/*
 * wheel.h — what a package's file name and build string say about the
 * build: wheel file names and tags (PEP 427 / PEP 425), conda file names and
 * build strings, PEP 503 names, and the CUDA / CPU / torch / C++-ABI tags
 * that CUDA builds carry.
 *
 * Guarantees (docs/format-v3.md 19.3): pure functions of their text; no
 * allocation except where a result is handed to the caller; never reads a
 * file.  A tag the rules do not recognise is simply not reported: these
 * functions describe, the audit (audit.h) judges.
 */
#ifndef SCROLLCASE_WHEEL_H
#define SCROLLCASE_WHEEL_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A parsed wheel file name; every member points into one owned buffer. */
typedef struct sc_wheel {
    char *buf_;           /* owner of the strings below */
    const char *name;     /* distribution as written */
    const char *version;  /* whole version, local part included */
    const char *local;    /* after '+', or NULL */
    const char *build;    /* build tag, or NULL */
    const char *python;   /* "cp312", "py2.py3" */
    const char *abi;      /* "cp312", "abi3", "none" */
    const char *platform; /* "manylinux_2_28_x86_64", "any", ... */
} sc_wheel;

/*
 * Parse the last path segment of a location (URL query and fragment
 * dropped, %XX escapes decoded) as {name}-{version}[-{build}]-{python}-{abi}-
 * {platform}.whl.  Returns 1 and fills *w (free with sc_wheel_free), 0 when
 * the segment does not end in ".whl", -1 when it does but is not a wheel
 * name, -2 when out of memory.
 */
int sc_wheel_parse(const char *location, sc_wheel *w);
void sc_wheel_free(sc_wheel *w);

/* The last path segment of a location, query/fragment dropped, %XX
 * decoded (malloc'd; NULL when out of memory). */
char *sc_location_filename(const char *location);

/* Facts a build string or a local version carries (-1: not stated). */
typedef struct sc_build_facts {
    int cpu;                      /* 1: a "cpu" tag */
    int cuda_major, cuda_minor;   /* cu124 / cuda126 / cuda12.4 / cu12 (minor -1) */
    int torch_major, torch_minor; /* torch2.8 */
    int cxx11abi;                 /* cxx11abiTRUE 1, cxx11abiFALSE 0 */
} sc_build_facts;

/*
 * Scan a conda build string or a wheel's local version for the tags above:
 * "cpu" and "cuda"/"cu" + digits where not preceded by a lower-case letter;
 * a run of 3+ digits is major (all but the last digit) and minor (the last
 * digit), 1-2 digits are a major alone, "cuda12.4" is explicit; "torch"
 * X.Y; "cxx11abi" TRUE/FALSE.
 */
void sc_build_facts_scan(const char *s, sc_build_facts *f);

/*
 * Split a conda file name "name-version-build.conda" (or ".tar.bz2") at its
 * last two '-'.  Returns 1 and three malloc'd strings, 0 when it is not of
 * that form, -2 when out of memory.
 */
int sc_conda_filename_split(const char *filename, char **name, char **version,
                            char **build);

/* PEP 503 normalised name (lower case, runs of -_. made one '-'); malloc'd. */
char *sc_pypi_normalize(const char *name);

/*
 * Leading "<major>.<minor>" of a version ("2.9.1+cu124" → 2, 9).  Returns 2
 * when both are there, 1 for a major alone ("12"), 0 when the version does
 * not start with digits.
 */
int sc_version_major_minor(const char *v, int *major, int *minor);

/*
 * 1 when one of the wheel's python/abi tags runs on CPython py_major.
 * py_minor: an exact "cpXY", "pyX"/"pyXY" (XY not above the interpreter),
 * or "cpXY" with abi "abi3" and XY not above it; else 0.
 */
int sc_wheel_python_ok(const sc_wheel *w, int py_major, int py_minor);

/* 1 when one of the wheel's platform tags installs on the conda subdir
 * ("linux-64", "win-64", "osx-arm64"); else 0. */
int sc_wheel_platform_ok(const sc_wheel *w, const char *subdir);

/* The C++ ABI a manylinux platform tag implies for a torch wheel:
 * manylinux_2_28 or later 1, manylinux1/2010/2014/_2_17 0, else -1. */
int sc_wheel_manylinux_cxx11abi(const sc_wheel *w);

#ifdef __cplusplus
}
#endif

#endif
