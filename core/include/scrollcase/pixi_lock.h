/* SPDX-License-Identifier: Apache-2.0 */
/*
 * pixi_lock.h — reading pixi.lock (lock format versions 5 and 6).
 *
 * Guarantees (docs/format-v3.md 19.2): the lock is read with libyaml's event
 * API into a bounded tree (at most SC_LOCK_MAX_BYTES, nested at most
 * SC_LOCK_MAX_DEPTH), refusing aliases, several documents, duplicate or
 * non-scalar keys.  Any failure — YAML syntax, a version other than 5 or 6,
 * a missing or mistyped member, an environment entry that names no package
 * — is SC_E_INVALID_LOCK, with "<name>:<line>:<column>: ..." where the
 * failure has a place.  Every package's name, version, build, licence,
 * kind, location, file name, depends and requires_dist is exposed, in file
 * order, for the audit and for the builder's licence inventory.  Nothing is
 * written; no global state.
 */
#ifndef SCROLLCASE_PIXI_LOCK_H
#define SCROLLCASE_PIXI_LOCK_H

#include <stddef.h>

#include "scrollcase/error.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SC_LOCK_MAX_BYTES ((size_t)64 * 1024 * 1024)
#define SC_LOCK_MAX_DEPTH 32

typedef enum sc_lock_kind { SC_LOCK_CONDA, SC_LOCK_PYPI } sc_lock_kind;

typedef struct sc_lock_package {
    sc_lock_kind kind;
    char *location; /* the conda:/pypi: value as written (URL or path) */
    char *filename; /* its last segment, %XX decoded */
    char *name;     /* conda: the `name` member or from the file name;
                       pypi: the `name` member */
    char *version;
    char *build;    /* conda only (member or file name); NULL for pypi */
    char *subdir;   /* conda: `subdir` member, else the URL's directory; may be NULL */
    char *license;  /* NULL when absent */
    char **depends; /* conda `depends` */
    size_t ndepends;
    char **requires_dist; /* pypi `requires_dist` */
    size_t nrequires_dist;
} sc_lock_package;

typedef struct sc_lock_platform {
    char *platform;   /* "linux-64" */
    size_t *packages; /* indices into sc_pixi_lock.packages, in file order */
    size_t count;
} sc_lock_platform;

typedef struct sc_lock_environment {
    char *name;
    sc_lock_platform *platforms;
    size_t nplatforms;
} sc_lock_environment;

typedef struct sc_pixi_lock {
    int version;
    sc_lock_package *packages;
    size_t npackages;
    sc_lock_environment *environments;
    size_t nenvironments;
} sc_pixi_lock;

/* Parse len bytes; name is for messages and err->path. */
sc_code sc_pixi_lock_parse(const char *bytes, size_t len, const char *name,
                           sc_pixi_lock **out, sc_error *err);

/* Read and parse a file (SC_E_IO when it cannot be read). */
sc_code sc_pixi_lock_read(const char *path, sc_pixi_lock **out, sc_error *err);

/* The packages of one environment and platform, or NULL. */
const sc_lock_platform *sc_pixi_lock_find(const sc_pixi_lock *l,
                                          const char *environment,
                                          const char *platform);

void sc_pixi_lock_free(sc_pixi_lock *l);

#ifdef __cplusplus
}
#endif

#endif
