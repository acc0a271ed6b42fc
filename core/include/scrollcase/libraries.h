/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libraries.h — the shared libraries libscrollcase loads on first use, not
 * at start: libcurl (downloads) and libarchive (tar archives).  A program
 * that never downloads and never reads a tar (verify, prepare, attach, run,
 * inspect) never loads them.  These calls say which they are and load one
 * now, as its first use would, so that a host can be checked before a build
 * needs them (scrollcase doctor).  Implemented in lazylib.c.
 *
 * Thread-safe.  A library is loaded at most once per process and stays
 * loaded; a load that failed fails the same way on every later call.
 */
#ifndef SCROLLCASE_LIBRARIES_H
#define SCROLLCASE_LIBRARIES_H

#include <stddef.h>

#include "scrollcase/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One library loaded on first use.  Every string is static. */
typedef struct sc_library_info {
    const char *name;       /* "libcurl", "libarchive" */
    const char *soname;     /* what is loaded: the soname of the library the
                               build was compiled against ("libcurl.so.4") */
    const char *package;    /* the Debian package that installs it ("libcurl4") */
    const char *needed_for; /* what needs it, for people ("downloads") */
} sc_library_info;

/* How many there are (2). */
size_t sc_library_count(void);

/* The i-th, in a fixed order (libcurl, libarchive); NULL when i is not
 * below sc_library_count(). */
const sc_library_info *sc_library_at(size_t i);

/*
 * Load the i-th now, with every function libscrollcase uses from it, as its
 * first use would.  SC_OK when it is whole; SC_E_LIBRARY_MISSING when it
 * cannot be loaded or lacks a function (err names the soname, the dynamic
 * loader's reason or the missing function, and the package to install);
 * SC_E_USAGE for an i out of range.
 */
sc_code sc_library_load(size_t i, sc_error *err);

#ifdef __cplusplus
}
#endif

#endif
