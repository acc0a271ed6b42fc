/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gates.h — the builder's gates: the self-test, the parity gate runner, the
 * check that the gates left the payload as it was, and the `gates` record of
 * the release (docs/format-v3.md 20.5, 17.5, 10.2).
 *
 * Guarantees:
 *  - Every gate process is started without a shell (process.h), in the
 *    payload root, under a time limit, with exactly the environment
 *    sanitised host < scroll `environment` < the accelerator's validation
 *    environment (16.4): PYTHONPATH, PYTHONHOME, PYTHONSTARTUP,
 *    PYTHONBREAKPOINT, LD_PRELOAD and DYLD_INSERT_LIBRARIES of the host never
 *    reach it.
 *  - A gate that exits non-zero or is killed is gate-failed naming the
 *    interpreter and the status; a gate past its limit is timeout; one that
 *    cannot start is spawn-failure.
 *  - The parity gate never runs a CUDA accelerator on a host whose probe finds
 *    no usable GPU: that is accelerator-unavailable before any run, never a
 *    silent CPU run.  Runs go in declaration order; every later accelerator
 *    is compared with the first by the engine of 17 (parity.h), whose codes
 *    are returned unchanged.  A run's standard output is kept up to a cap;
 *    more than the cap is invalid-parity-values.
 *  - The records hold measurements only, never durations or clocks, so the
 *    same payload on the same host class records the same bytes.
 *  - Nothing here writes into the payload.
 */
#ifndef SCROLLCASE_GATES_H
#define SCROLLCASE_GATES_H

#include <stddef.h>

#include "scrollcase/cuda_binaries.h"
#include "scrollcase/environment.h"
#include "scrollcase/error.h"
#include "scrollcase/gpu_probe.h"
#include "scrollcase/json.h"
#include "scrollcase/payload.h"
#include "scrollcase/target.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The default cap on a parity run's standard output. */
#define SC_GATE_PARITY_STDOUT_MAX ((size_t)64 * 1024 * 1024)

/*
 * The self-test gate.  code = "<target assertion>\nimport <imports joined
 * ', '>" and, when the scroll's selfTest has one, "\n<pythonFile contents>"
 * (pythonFile is read from project_root; missing -> local-file-missing) or
 * "\n<pythonCode>".  Runs <payload_root>/<pythonEntryPoint> -c <code> (the
 * scroll's pythonEntryPoint, else the target's), cwd payload_root, in the
 * gate environment of the target's accelerator, within
 * selfTest.timeoutSeconds (default 180; past it -> timeout).  host NULL: this
 * process's environ.  out_fd / err_fd: the child's stdout / stderr (-1:
 * inherit).  *record (may be NULL) = gates.selfTest {imports, extra:
 * "pythonFile" | "pythonCode" | "none"}.
 */
sc_code sc_gate_self_test(const char *payload_root, const sc_json *scroll, const sc_target *t,
                          const char *project_root, const sc_env_map *host, int out_fd,
                          int err_fd, sc_json **record, sc_error *err);

/* The same, telling progress (progress.h, step "self-test"; NULL: none):
 * files 0 then 1 of 1 run, and about once a second elapsed_ms of the run
 * against limit_ms, the time limit.  No bytes are counted. */
sc_code sc_gate_self_test_with(const char *payload_root, const sc_json *scroll,
                               const sc_target *t, const char *project_root,
                               const sc_env_map *host, int out_fd, int err_fd,
                               sc_progress_fn progress, void *progress_ctx, sc_json **record,
                               sc_error *err);

/* The host probe the parity gate asks when "cuda" takes part.  It fills
 * facts (always; the gate frees them) and returns SC_OK only for a usable
 * host, as sc_gpu_probe does. */
typedef sc_code (*sc_gate_probe_fn)(void *ctx, sc_gpu_facts *facts, sc_error *err);

typedef struct sc_gate_parity_options {
    sc_gate_probe_fn probe;    /* NULL: sc_gpu_probe(probe_options) */
    void *probe_ctx;
    const sc_gpu_probe_options *probe_options; /* for the default probe; may be NULL */
    size_t stdout_max;         /* 0: SC_GATE_PARITY_STDOUT_MAX */
    int stderr_fd;             /* where a run's stderr goes; -1: inherit; 0 is taken as -1 */
    /* progress (progress.h, step "parity"; NULL: none): files_done runs
     * done of files_total accelerators, item the accelerator running, and
     * about once a second its elapsed_ms against limit_ms (each run's own
     * time limit, not the gate's).  No bytes are counted. */
    sc_progress_fn progress;
    void *progress_ctx;
} sc_gate_parity_options;

/*
 * The parity gate of a scroll that declares `parity` (a scroll without it:
 * SC_OK with both records NULL).  Every accelerator must have a validation
 * environment on the target's platform (macOS: cpu, metal; Linux, Windows:
 * cpu, cuda), else invalid-scroll; fewer than two accelerators is
 * invalid-scroll.  When "cuda" is one of them the probe runs first; not
 * usable -> accelerator-unavailable.  Each accelerator in order: run
 * <payload_root>/<entry point> <parity.script>, cwd payload_root, in that
 * accelerator's gate environment, within timeout_seconds (<= 0: the scroll's
 * selfTest.timeoutSeconds, default 180); non-zero -> gate-failed; stdout
 * parsed with sc_parity_values_parse.  Then sc_parity_gate.  On success
 * *parity_record = gates.parity and *host_record = gates.host when "cuda"
 * took part (else NULL).  Nothing is returned on failure.
 */
sc_code sc_gate_parity(const char *payload_root, const sc_json *scroll, const sc_target *t,
                       const sc_env_map *host, int timeout_seconds, sc_json **parity_record,
                       sc_json **host_record, sc_error *err);

/* The same with the options above (options may be NULL). */
sc_code sc_gate_parity_ex(const char *payload_root, const sc_json *scroll, const sc_target *t,
                          const sc_env_map *host, int timeout_seconds,
                          const sc_gate_parity_options *options, sc_json **parity_record,
                          sc_json **host_record, sc_error *err);

/*
 * The payload as it stands before the gates: its collected, hashed list
 * (sc_payload_collect) and the digest of that list.  *before must be zeroed;
 * free it with sc_payload_list_free.
 */
sc_code sc_gate_payload_snapshot(const char *payload_root, sc_payload_list *before,
                                 char before_hex[65], sc_error *err);

/*
 * After the gates, against the snapshot: the payload collected again
 * (__pycache__ and *.pyc are skipped by collection) must list the same
 * records.  A file created, removed, changed or turned into a link ->
 * gate-modified-payload naming the first path (in list order) that differs.
 */
sc_code sc_gate_payload_unchanged_list(const char *payload_root, const sc_payload_list *before,
                                       sc_error *err);

/*
 * sc_gate_payload_snapshot on jobs hashing threads (0: every CPU), with the
 * CRC-32 of every file as well (SC_PAYLOAD_CRC) for the archive writer.
 * env (may be NULL): the list the environment was hashed into when it was
 * copied to payload_root/env_under; its unchanged files are not read again
 * (sc_payload_options.reuse_sub).  progress (NULL: none) hears the hashing
 * (step "digest", sc_payload_options.progress).
 */
sc_code sc_gate_payload_snapshot_with(const char *payload_root, unsigned jobs,
                                      const sc_payload_list *env, const char *env_under,
                                      sc_progress_fn progress, void *progress_ctx,
                                      sc_payload_list *before, char before_hex[65],
                                      sc_error *err);

/*
 * sc_gate_payload_unchanged_list keeping the list collected after the gates
 * in *after (free it with sc_payload_list_free; empty on failure).  A file
 * whose identity, size, mode and times show no change since the snapshot
 * hashed it (sc_payload_options.reuse) keeps its digest unread, so an
 * untouched payload costs a walk, not a second read.  progress (NULL: none)
 * hears it as step "recheck" (a reused digest counts as done).
 */
sc_code sc_gate_payload_recheck(const char *payload_root, const sc_payload_list *before,
                                unsigned jobs, sc_progress_fn progress, void *progress_ctx,
                                sc_payload_list *after, sc_error *err);

/*
 * The same check given only the digest taken before the gates.  When the
 * digest differs the first differing path is named if the payload root holds
 * a payload-digest.v1 whose stream has that digest (the builder's list);
 * otherwise the message says the digest changed.  before_hex is 64 lowercase
 * hex, else usage.
 */
sc_code sc_gate_payload_unchanged(const char *payload_root, const char *before_hex,
                                  sc_error *err);

/*
 * The CUDA binaries gate (docs/format-v3.md 19.10) over the audit of a
 * payload (cuda_binaries.h).  declared is the scroll's `cuda` member, or
 * NULL.
 *
 * CUDA target: SC_E_CUDA_BINARIES_MISMATCH when a payload file ships (its
 * DT_SONAME) or needs (DT_NEEDED) a soname whose major follows the CUDA
 * major and differs from the target's, naming the first such file in path
 * order (its soname before its needed names) and the soname; then
 * SC_E_CUDA_BINARIES_MISSING when no file carries device code and no CUDA
 * library is shipped or needed, unless declared.  On SC_OK *record is the
 * release's cudaBinaries {cubins, ptx, cudaMajors, opaqueLibraries,
 * declared?} (10.2), owned by the caller.
 *
 * Other targets: always SC_OK with *record NULL; *warning (owned by the
 * caller) is a line for people when the payload carries device code or
 * CUDA libraries (wasted bytes), else NULL.  warning may be NULL for CUDA
 * targets.  SC_E_OUT_OF_MEMORY otherwise.
 */
sc_code sc_gate_cuda_binaries(const sc_cuda_binaries *audit, const sc_target *t,
                              const sc_json *declared, sc_json **record, char **warning,
                              sc_error *err);

/*
 * gates {selfTest?, parity?, host?, cudaAudit?} from the parts (any may be
 * NULL; takes ownership of all of them, also on failure).  NULL when all are
 * NULL or memory runs out (then every part has been freed).
 */
sc_json *sc_gates_record(sc_json *self_test, sc_json *parity, sc_json *host,
                         sc_json *cuda_audit);

#ifdef __cplusplus
}
#endif

#endif
