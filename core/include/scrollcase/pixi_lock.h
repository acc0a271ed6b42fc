/* SPDX-License-Identifier: Apache-2.0 */
/*
 * pixi_lock.h — reading pixi.lock (lock format versions 5, 6 and 7).
 *
 * Guarantees (docs/format-v3.md 19.2): the lock is read with libyaml's event
 * API into a bounded tree (at most SC_LOCK_MAX_BYTES, nested at most
 * SC_LOCK_MAX_DEPTH), refusing aliases, several documents, duplicate or
 * non-scalar keys.  Any failure — YAML syntax, a version other than 5, 6 or
 * 7 (the message names the version found and the ones read), a missing or
 * mistyped member, an environment entry that names no package, a v7
 * environment platform missing from the top-level platforms list — is
 * SC_E_INVALID_LOCK, with "<name>:<line>:<column>: ..." where the failure
 * has a place.  Every package's kind, location, file name, name, version,
 * build, subdir, sha256, licence, depends and requires_dist is exposed, in
 * file order, for the audit and for the builder's licence inventory; every
 * environment platform carries its conda subdir.  Nothing is written; no
 * global state.
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

#define SC_LOCK_VERSION_MIN 5
#define SC_LOCK_VERSION_MAX 7

typedef struct sc_lock_package {
    sc_lock_kind kind;
    int source;     /* 1: a v7 `conda_source` package (kind is SC_LOCK_CONDA) */
    char *location; /* the conda:/pypi:/conda_source: value as written (URL,
                       path or, for a source package, its identifier);
                       v5's `url:`/`path:` for a `kind:` entry */
    char *filename; /* its last segment, %XX decoded */
    char *name;     /* conda: the `name` member, else from the file name (a
                       source package: from its identifier); pypi: `name` */
    char *version;  /* NULL only for a v7 pypi or conda_source package that
                       has none (a package built from source) */
    char *build;    /* conda only (member or file name); NULL for pypi */
    char *subdir;   /* conda: `subdir` member, else the URL's directory; may be NULL */
    char *sha256;   /* the `sha256` member, 64 hex digits; NULL when absent */
    char *license;  /* NULL when absent */
    char **depends; /* conda `depends` */
    size_t ndepends;
    char **requires_dist; /* pypi `requires_dist` */
    size_t nrequires_dist;
    unsigned long long size; /* the `size` member (decimal digits), 0 when absent */
    int editable;            /* pypi `editable: true` */
    char *requires_python;   /* pypi `requires_python`; NULL when absent */
} sc_lock_package;

typedef struct sc_lock_platform {
    char *platform;   /* the key of the environment's packages: "linux-64" */
    char *subdir;     /* its conda subdir: v7's platforms[].subdir, else the key */
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

/* The packages of one environment and platform, or NULL.  platform is
 * matched against the keys first, then against the subdirs (v7 may name a
 * platform other than its subdir). */
const sc_lock_platform *sc_pixi_lock_find(const sc_pixi_lock *l,
                                          const char *environment,
                                          const char *platform);

void sc_pixi_lock_free(sc_pixi_lock *l);

#ifdef __cplusplus
}
#endif

#endif
