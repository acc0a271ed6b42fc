/* SPDX-License-Identifier: Apache-2.0 */
/*
 * requirements.h — a pip requirements.txt read as conda-forge dependencies,
 * for `scrollcase add dep BOX --from-requirements FILE`.
 *
 * One requirement per line; a '#' starts a comment.  A line is kept as a
 * dependency {name, spec} when it is a plain requirement: NAME, optional
 * [extras], optional version specifiers, optional "; marker".  The name is
 * lowercased with '_' made '-', then renamed where conda-forge is known to
 * call the package otherwise (torch -> pytorch, ...); `from` holds the name
 * as written when the result differs from it; the specifiers lose their spaces and default to "*"; the
 * marker is dropped.  Everything that cannot be said as a conda dependency
 * is reported, never silently dropped: pip options ("-r", "-e", "--index-url"),
 * URLs and "name @ url" references, extras, names that are not conda names,
 * specifiers a pixi.toml string cannot hold.
 */
#ifndef SCROLLCASE_REQUIREMENTS_H
#define SCROLLCASE_REQUIREMENTS_H

#include <stddef.h>

#include "scrollcase/error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sc_requirement {
    char *name; /* the conda-forge name */
    char *spec; /* "*" or the specifiers, e.g. ">=1.2,<2" */
    char *from; /* the name as written when name differs from it, else NULL */
} sc_requirement;

typedef struct sc_requirement_skip {
    char *line;         /* what was skipped (the line, or NAME[extras]) */
    const char *reason; /* a static sentence */
} sc_requirement_skip;

typedef struct sc_requirements {
    sc_requirement *deps;
    size_t ndeps;
    sc_requirement_skip *skipped;
    size_t nskipped;
    size_t dep_cap, skip_cap; /* allocated lengths (the arrays grow by doubling) */
} sc_requirements;

/*
 * Read len bytes of requirements.txt text.  Fails only for out-of-memory
 * (anything unreadable is a skip); *out is always initialised.
 */
sc_code sc_requirements_parse(const char *text, size_t len, sc_requirements *out,
                              sc_error *err);

void sc_requirements_free(sc_requirements *r);

#ifdef __cplusplus
}
#endif

#endif
