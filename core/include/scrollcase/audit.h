/* SPDX-License-Identifier: Apache-2.0 */
/*
 * audit.h — the CUDA ABI audit: is what pixi solved really the build the
 * target names?
 *
 * Guarantees (docs/format-v3.md 19): the audit reads a target, a pixi.toml
 * (toml.h) and a pixi.lock (pixi_lock.h) — or the conda-meta records
 * of a built payload — and reports typed findings: a severity (error or
 * warning), a stable kebab-case finding code from the closed list of 19.6
 * (finding codes, distinct from the error codes of error.h), the package
 * concerned ("" when none) and one line of evidence for people.  Findings
 * are reported in one order whatever the input order: by code, then
 * package, then evidence (bytes).  Reading failures are errors of the call
 * (invalid-pixi-toml, invalid-lock, io-error), never findings.  Nothing is
 * written.
 */
#ifndef SCROLLCASE_AUDIT_H
#define SCROLLCASE_AUDIT_H

#include <stddef.h>

#include "scrollcase/error.h"
#include "scrollcase/json.h"
#include "scrollcase/pixi_lock.h"
#include "scrollcase/scroll.h"
#include "scrollcase/target.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum sc_audit_severity { SC_AUDIT_ERROR, SC_AUDIT_WARNING } sc_audit_severity;

/* The finding codes (19.6). */
#define SC_AUDIT_FINDING_CODES(X)                                            \
    X(PLATFORMS_MISMATCH, "platforms-mismatch", SC_AUDIT_ERROR)             \
    X(SYSTEM_CUDA_MISSING, "system-cuda-missing", SC_AUDIT_ERROR)           \
    X(SYSTEM_CUDA_MISMATCH, "system-cuda-mismatch", SC_AUDIT_ERROR)         \
    X(CUDA_VERSION_PIN_MISSING, "cuda-version-pin-missing", SC_AUDIT_ERROR) \
    X(CUDA_VERSION_PIN_MISMATCH, "cuda-version-pin-mismatch", SC_AUDIT_ERROR) \
    X(CUDA_VERSION_PIN_LOOSE, "cuda-version-pin-loose", SC_AUDIT_WARNING)   \
    X(LOCK_PLATFORM_MISSING, "lock-platform-missing", SC_AUDIT_ERROR)       \
    X(CONDA_SUBDIR_MISMATCH, "conda-subdir-mismatch", SC_AUDIT_ERROR)       \
    X(CONDA_CPU_BUILD, "conda-cpu-build", SC_AUDIT_ERROR)                   \
    X(CONDA_CUDA_BUILD_MISMATCH, "conda-cuda-build-mismatch", SC_AUDIT_ERROR) \
    X(CUDA_VERSION_LOCKED_MISMATCH, "cuda-version-locked-mismatch", SC_AUDIT_ERROR) \
    X(CUDA_VERSION_NOT_LOCKED, "cuda-version-not-locked", SC_AUDIT_WARNING) \
    X(WHEEL_CPU_BUILD, "wheel-cpu-build", SC_AUDIT_ERROR)                   \
    X(WHEEL_CUDA_MISMATCH, "wheel-cuda-mismatch", SC_AUDIT_ERROR)           \
    X(NVIDIA_WHEEL_MAJOR_MISMATCH, "nvidia-wheel-major-mismatch", SC_AUDIT_ERROR) \
    X(WHEEL_PYTHON_MISMATCH, "wheel-python-mismatch", SC_AUDIT_ERROR)       \
    X(WHEEL_PLATFORM_MISMATCH, "wheel-platform-mismatch", SC_AUDIT_ERROR)   \
    X(WHEEL_TORCH_MISMATCH, "wheel-torch-mismatch", SC_AUDIT_ERROR)         \
    X(WHEEL_CXX11ABI_MISMATCH, "wheel-cxx11abi-mismatch", SC_AUDIT_ERROR)   \
    X(SIDECAR_TORCH_MISMATCH, "sidecar-torch-mismatch", SC_AUDIT_ERROR)     \
    X(SIDECAR_TORCH_UNPINNED, "sidecar-torch-unpinned", SC_AUDIT_WARNING)

typedef enum sc_audit_code {
#define SC_X_AUDIT_ENUM(e, s, sev) SC_AUDIT_##e,
    SC_AUDIT_FINDING_CODES(SC_X_AUDIT_ENUM)
#undef SC_X_AUDIT_ENUM
    SC_AUDIT_CODE_COUNT_
} sc_audit_code;

typedef struct sc_audit_finding {
    sc_audit_code code;
    sc_audit_severity severity;
    char *package;  /* "" when the finding is about no one package */
    char *evidence; /* one line */
} sc_audit_finding;

typedef struct sc_audit_report {
    sc_audit_finding *findings;
    size_t count, cap;
    size_t errors, warnings;
} sc_audit_report;

/* "platforms-mismatch" ...; NULL when out of range. */
const char *sc_audit_code_name(sc_audit_code c);
/* The severity every finding of that code has. */
sc_audit_severity sc_audit_code_severity(sc_audit_code c);
const char *sc_audit_severity_name(sc_audit_severity s); /* "error" / "warning" */

/*
 * Audit a parsed pixi.toml (the object sc_toml_parse returns) and a parsed
 * lock for the target.  Findings are added to *rep (zero it first) and left
 * sorted.  The manifest must have a `workspace` (or, from older pixi,
 * `project`) table, else invalid-pixi-toml.
 */
sc_code sc_audit_pixi(const sc_target *t, const sc_json *pixi_toml,
                      const char *toml_name, const sc_pixi_lock *lock,
                      sc_audit_report *rep, sc_error *err);

/* Read and parse both files, then sc_audit_pixi. */
sc_code sc_audit_files(const sc_target *t, const char *pixi_toml_path,
                       const char *pixi_lock_path, sc_audit_report *rep,
                       sc_error *err);

/*
 * The audit of a built payload (verify --audit): the records
 * <root>/conda-meta/<name>.json (root is the conda prefix, the payload's `venv`),
 * read in byte order of their names, each a JSON object with string
 * `name`, `version`, `build` and optional `subdir`.  The conda checks of
 * 19.5 apply to them (CUDA checks only for a CUDA target).  A record that
 * is not such an object is invalid-lock; a missing conda-meta is io-error.
 */
sc_code sc_audit_conda_meta(const char *root, const sc_target *t,
                            sc_audit_report *rep, sc_error *err);

/* One record of <root>/conda-meta: the members the audits read. */
typedef struct sc_conda_record {
    char *file;    /* its file name, "<name>-<version>-<build>.json" */
    char *name, *version, *build;
    char *subdir;  /* NULL when absent */
    char *sha256;  /* NULL when absent */
    char *license; /* NULL when absent */
} sc_conda_record;

/*
 * Read the records of <root>/conda-meta in byte order of their file names
 * (the reader of sc_audit_conda_meta): no conda-meta directory → io-error
 * with *missing set (missing may be NULL); a record that is not JSON →
 * invalid-json; one without string name, version and build, or with a
 * non-string subdir, sha256 or license → invalid-lock.
 */
sc_code sc_conda_meta_read(const char *root, sc_conda_record **out, size_t *count,
                           int *missing, sc_error *err);
void sc_conda_records_free(sc_conda_record *r, size_t count);

/* Sort the findings (code, package, evidence); done by the audits above. */
void sc_audit_report_sort(sc_audit_report *rep);

/* {"findings": [{"severity", "code", "package", "evidence"}, ...],
 *  "errors": n, "warnings": n}; with_evidence 0 leaves evidence out (the
 * conformance output).  NULL when out of memory. */
sc_json *sc_audit_report_json(const sc_audit_report *rep, int with_evidence);

void sc_audit_report_free(sc_audit_report *rep);

/*
 * The build gate (19.7), called by the builder for every target before it
 * installs the environment.  scroll_dir holds the scroll's pixi.toml and
 * pixi.lock.  For a target that is not CUDA nothing runs and *record is
 * NULL.  With opt_out the audit does not run and *record is
 * {"status": "opted-out"}.  Otherwise the audit runs; *record is
 * {"status": "passed"|"failed", "errors": n, "warnings": n,
 *  "findings": [<code>, ...]} (codes sorted, repeated as found) and the
 * call returns audit-failed (message naming the first error finding) when
 * any finding is of error severity.  rep (may be NULL) receives the
 * findings.  *record is the caller's, also on failure.
 */
sc_code sc_audit_gate(const sc_target *t, const char *scroll_dir, int opt_out,
                      sc_audit_report *rep, sc_json **record, sc_error *err);

#ifdef __cplusplus
}
#endif

#endif
