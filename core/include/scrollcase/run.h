/* SPDX-License-Identifier: Apache-2.0 */
/*
 * run.h — running a prepared or attached box's declared execution.
 *
 * Guarantees (docs/format-v3.md 16.6): every check happens before anything
 * is spawned, in this order: an execution is declared (no-execution); the
 * host is the target's platform and architecture (foreign-target); the root
 * is still the recorded directory (destination-changed); the entry point is
 * present (missing-interpreter); the execution is discoverable
 * (missing-script, missing-module); the on-demand assets match
 * (asset-missing, asset-size, asset-hash); the environment layers are valid
 * (invalid-environment).  Then the entry point is execve'd with
 * [root/entryPoint, root/script | "-m" module, defaultArgs..., args...],
 * cwd = root, the environment host < caller < release and nothing else.
 */
#ifndef SCROLLCASE_RUN_H
#define SCROLLCASE_RUN_H

#include <stddef.h>

#include "scrollcase/environment.h"
#include "scrollcase/error.h"
#include "scrollcase/json.h"
#include "scrollcase/target.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sc_run_spec {
    const char *root;            /* absolute root of a prepared/attached box */
    const sc_json *release;      /* the verified release payload (execution, assets, environment, target, pythonEntryPoint, provenance) */
    const sc_target *target;     /* NULL: read from release */
    unsigned long long dev, ino; /* recorded identity of root (from the receipt) */
    const sc_env_map *host;      /* host layer (the real environ, or injected by tests/adapters); NULL: empty */
    const sc_env_map *caller;    /* may be NULL */
    char *const *args; size_t nargs;  /* caller arguments */
    int env_report_full, env_report_values; /* report mode full if either; reveal host values if values */
    int stdin_fd, stdout_fd, stderr_fd; /* -1 inherit */
    int forward_signals;
    /* Called once the environment is resolved, before spawning (may be NULL):
     * where a CLI prints the report so that it precedes the child's output. */
    void (*on_environment_report)(void *ctx, const sc_json *report);
    void *report_ctx;
} sc_run_spec;

typedef struct sc_run_result {
    int exited, exit_code, term_signal, forwarded_signal;
    sc_json *environment_report; /* owned; set once resolved (also when spawning then failed) */
    int spawned;                 /* 1 once the child was started */
} sc_run_result;

/* §8.3 in the order above.  Non-zero exit and death by signal are results,
 * not errors.  *out is always initialised; free it with sc_run_result_free. */
sc_code sc_run(const sc_run_spec *spec, sc_run_result *out, sc_error *err);
void sc_run_result_free(sc_run_result *r);

/* The native host check alone (used by attach too):
 * SC_E_FOREIGN_TARGET "Box target <id> cannot run on <os>/<arch>; requires
 * <os>/<arch>." */
sc_code sc_run_native_check(const sc_target *target, sc_error *err);

/* This host's platform and architecture as the matrix names them; 0 when the
 * host is none of the matrix's pairs (then nothing runs natively). */
int sc_run_host_pair(sc_platform *platform, sc_arch *arch);

#ifdef __cplusplus
}
#endif

#endif
