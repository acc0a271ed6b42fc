/* SPDX-License-Identifier: Apache-2.0 */
/*
 * compat.h — host verdicts: can this host run this release?
 * (docs/format-v3.md 18).
 *
 * Guarantees:
 *  - Host facts come from a host-facts document (18.1, checked strictly:
 *    invalid-host-facts) or are gathered live (uname, sysconf, the GPU
 *    probe of gpu_probe.h); either way the verdict depends only on the
 *    release and the facts struct.
 *  - Every constraint of 18.3 is evaluated, in its fixed order; each one
 *    the host breaks, or that cannot be evaluated (a fact that is unknown,
 *    a version that is not dotted numbers, a compatibility member the
 *    format does not define), is a refusal naming the constraint, the fact,
 *    the host's value and the required range — never a pass.  A device
 *    constraint whose fact only a GPU probe that could not run would give
 *    is pending instead.  Verdict: refused if any refusal, else pending if
 *    anything is pending, else supported.
 *  - The release is checked as a release manifest (10.2) first.
 */
#ifndef SCROLLCASE_COMPAT_H
#define SCROLLCASE_COMPAT_H

#include <stddef.h>

#include "scrollcase/error.h"
#include "scrollcase/fatbin.h"
#include "scrollcase/gpu_probe.h"
#include "scrollcase/json.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SC_HOST_TEXT_MAX 96

/* What is known about a host; an empty string / has_ 0 means unknown. */
typedef struct sc_host_facts {
    char platform[SC_HOST_TEXT_MAX];          /* "linux", "macos", "windows", ... */
    char arch[SC_HOST_TEXT_MAX];              /* "x86_64", "aarch64", ... */
    char host_environment[SC_HOST_TEXT_MAX];  /* "native", "windows-wsl2" */
    char host_app_version[SC_HOST_TEXT_MAX];
    char macos_version[SC_HOST_TEXT_MAX];
    int has_ram;
    double ram_gb;
    int has_gpu;                              /* the gpu member was given */
    sc_gpu_facts gpu;
} sc_host_facts;

typedef enum sc_compat_verdict {
    SC_COMPAT_SUPPORTED, /* exit 0 */
    SC_COMPAT_REFUSED,   /* exit 2 */
    SC_COMPAT_PENDING    /* exit 3: supported pending a device probe */
} sc_compat_verdict;

/*
 * The result: {verdict: "supported"|"refused"|"pending-probe", refusals:
 * [{constraint, fact, value, required}], pending: [{constraint, fact,
 * required}]} — value a string, a number or null (unknown).
 */
typedef struct sc_compat_result {
    sc_compat_verdict verdict;
    sc_json *report;
    size_t refusal_count, pending_count;
} sc_compat_result;

void sc_host_facts_free(sc_host_facts *h);

/* Read a host-facts document (18.1) from parsed JSON; invalid-host-facts. */
sc_code sc_host_facts_from_json(const sc_json *doc, sc_host_facts *h, sc_error *err);

/* Read a host-facts file: io-error, invalid-json, invalid-host-facts. */
sc_code sc_host_facts_read_file(const char *path, sc_host_facts *h, sc_error *err);

/*
 * Gather this host's facts (18.2): platform and arch from uname, memory
 * from sysconf, WSL from /proc/sys/kernel/osrelease, the GPU from the probe
 * (probe options may be NULL).  A probe that finds nothing is a fact, not
 * an error.
 */
sc_code sc_host_facts_gather(const sc_gpu_probe_options *probe, sc_host_facts *h,
                             sc_error *err);

/*
 * Replace the host application version (--host-app-version, the case
 * argument): non-empty text without NUL, shorter than SC_HOST_TEXT_MAX
 * bytes, else invalid-host-facts.
 */
sc_code sc_host_facts_set_app_version(sc_host_facts *h, const char *version,
                                      sc_error *err);

/* The facts as a host-facts document (what --host-facts reads). */
sc_json *sc_host_facts_json(const sc_host_facts *h);

/*
 * Evaluate a release against the facts.  The release is checked first
 * (sc_manifest_check as SC_DOC_RELEASE; its codes).  SC_OK for every
 * verdict; res->report is owned by the caller (sc_compat_result_free).
 */
sc_code sc_compat_evaluate(const sc_json *release, const sc_host_facts *h,
                           sc_compat_result *res, sc_error *err);

void sc_compat_result_free(sc_compat_result *res);

/*
 * Coverage (docs/format-v3.md 19.11): 1 when device code for `code` runs
 * on a GPU of compute capability major.minor.  A cubin sm_XY: same major,
 * minor >= Y; an `a` entry (cubin or PTX): exactly X.Y; an `f` entry: same
 * major, minor >= Y; plain PTX compute_XY: major.minor >= X.Y.
 */
int sc_cuda_code_runs_on(const sc_cuda_code *code, int major, int minor);

/* "supported" / "refused" / "pending-probe". */
const char *sc_compat_verdict_name(sc_compat_verdict v);

/*
 * The first refusal as an error: host-incompatible naming the constraint,
 * the fact, its value and the range.  Only for a refused result.
 */
sc_code sc_compat_refusal_error(const sc_compat_result *res, sc_error *err);

/*
 * Compare two dotted numeric versions (^[0-9]+(\.[0-9]+)*$, any number of
 * digits; missing components are 0): *cmp is <0, 0 or >0.  Returns 0 when
 * either is not such a version.
 */
int sc_version_compare(const char *a, const char *b, int *cmp);

#ifdef __cplusplus
}
#endif

#endif
