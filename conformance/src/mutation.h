/* SPDX-License-Identifier: Apache-2.0 */
/*
 * mutation.h — the mutation layer of scrollcase-mutant-adapter.
 *
 * The mutant adapter is the built-in adapter's code compiled with
 * SC_ADAPTER_MUTANT defined.  After the real library has produced its
 * result, the mutation named by the environment variable SCROLLCASE_MUTATION
 * rewrites that result the way a plausible bug in a port would.  Each
 * mutation is described in conformance/mutants.json together with the cases
 * that must catch it.  With the variable unset or empty the mutant adapter
 * behaves exactly like the built-in one.
 */
#ifndef SC_CONFORM_MUTATION_H
#define SC_CONFORM_MUTATION_H

#include "scrollcase/error.h"
#include "scrollcase/json.h"

/* What the layer may look at besides the result. */
typedef struct sc_adapter_ctx {
    const char *operation;
    const char *case_dir;   /* the case directory (read only) */
    const char *reference;  /* args.reference, or NULL */
} sc_adapter_ctx;

/*
 * Read SCROLLCASE_MUTATION.  Returns 0, or -1 (after a message on stderr)
 * when it names no known mutation.
 */
int sc_mutation_init(void);

/* Add "mutation" (the active one or null) and "mutations" (all) to hello. */
void sc_mutation_hello(sc_json *hello);

/*
 * Rewrite a result: *code is the library's code (SC_OK on success) and
 * *output the success output (NULL on failure).  On return the same
 * convention holds.  Returns 0, or -1 when the layer itself failed.
 */
int sc_mutation_apply(const sc_adapter_ctx *ctx, sc_code *code, sc_json **output);

#endif
