/* SPDX-License-Identifier: Apache-2.0 */
/*
 * environment.h — environment layers, their resolution and the report.
 *
 * Guarantees (docs/format-v3.md 16.4): a child process's environment is
 * exactly the resolution of the layers it is given, later layers winning;
 * nothing else leaks in.  Every name is non-empty and holds neither '=' nor
 * NUL and every value is NUL-free, else invalid-environment naming the
 * layer's source.  On a Windows target names are compared after ASCII
 * upper-casing and the last layer's spelling is the only one kept.  The
 * resolved environment is sorted by the bytes of the names; the report lists
 * variables in the same order, and masks host values unless told to reveal
 * them.  Results do not depend on the order of the host's environ.
 */
#ifndef SCROLLCASE_ENVIRONMENT_H
#define SCROLLCASE_ENVIRONMENT_H

#include <stddef.h>

#include "scrollcase/error.h"
#include "scrollcase/json.h"
#include "scrollcase/target.h"

#ifdef __cplusplus
extern "C" {
#endif

/* An ordered name -> value map; it owns its strings. Zero-initialise it. */
typedef struct sc_env_map {
    char **names;
    char **values;
    size_t count, cap;
} sc_env_map;

/* Where a layer comes from; its name in messages and the report. */
typedef enum sc_env_source {
    SC_ENV_HOST,
    SC_ENV_CALLER,
    SC_ENV_RELEASE,
    SC_ENV_VALIDATION
} sc_env_source;

/* "host", "caller", "release", "validation". */
const char *sc_env_source_name(sc_env_source s);

/* Set name to value: an existing entry of the same name (bytes) is replaced
 * in place, else one is appended. Both strings are copied. */
sc_code sc_env_map_set(sc_env_map *m, const char *name, const char *value,
                       sc_error *err);

/* The value of name (exact bytes), or NULL. */
const char *sc_env_map_get(const sc_env_map *m, const char *name);

/* Read "NAME=value" strings (split at the first '='); entries without '='
 * cannot be represented and are skipped.  envp is NULL-terminated. */
sc_code sc_env_map_from_environ(sc_env_map *m, char *const *envp,
                                sc_error *err);

/* Read a JSON object of strings (a release's `environment`).  A non-object,
 * a non-string value, a NUL in a name or value, an empty name or a name with
 * '=' -> invalid-environment "Box execution <what> environment must map
 * valid names to string values." */
sc_code sc_env_map_from_json(sc_env_map *m, const sc_json *object,
                             const char *what, sc_error *err);

/* A NULL-terminated "NAME=value" array for execve (caller frees with
 * sc_env_envp_free). */
sc_code sc_env_map_to_envp(const sc_env_map *m, char ***envp, sc_error *err);
void sc_env_envp_free(char **envp);

void sc_env_map_free(sc_env_map *m);

typedef struct sc_env_layer {
    sc_env_source source;
    const sc_env_map *map; /* NULL: an empty layer */
} sc_env_layer;

/*
 * Layer in order (later wins); names checked (non-empty, no '=', no NUL;
 * values no NUL -> SC_E_INVALID_ENVIRONMENT naming the source); Windows
 * targets compare names case-insensitively (upper-cased; the last layer's
 * spelling wins and removes the earlier one).  *child (zero-initialised by
 * the caller, or empty) = the child's complete environment sorted by name;
 * *report (may be NULL) = the report JSON:
 *   {mode: "summary"|"full", hostValuesRevealed, releaseVariableCount,
 *    conflictCount, dangerousHostVariables: [...], remainingVariableCount,
 *    variables: [{name, source, value, executionAffecting, conflict,
 *                 sources: [{source, name, value}]}]}
 * with host values masked as "<masked>" unless reveal; summary shows a
 * variable iff it has a release source, is execution-affecting (name in the
 * target's list AND a host source exists) or conflicts (more than one
 * distinct value among its sources).  Nothing is returned on failure.
 */
sc_code sc_env_resolve(const sc_env_layer *layers, size_t n,
                       const sc_target *target, int full, int reveal,
                       sc_env_map *child, sc_json **report, sc_error *err);

/* The host layer with the execution-affecting variables of every target
 * removed (self-test and parity, v3: PYTHONPATH PYTHONHOME PYTHONSTARTUP
 * PYTHONBREAKPOINT LD_PRELOAD DYLD_INSERT_LIBRARIES); names compared
 * exactly. *out zero-initialised by the caller. */
sc_code sc_env_sanitised_host(const sc_env_map *host, sc_env_map *out,
                              sc_error *err);

#ifdef __cplusplus
}
#endif

#endif
