/* SPDX-License-Identifier: Apache-2.0 */
/*
 * target.h — the closed target matrix and everything derived from a target.
 *
 * Guarantees (docs/format-v3.md, "Targets"): a target is one of
 *   macos/aarch64/{metal,cpu}, linux/x86_64/{cpu,cuda}, windows/x86_64/{cpu,cuda};
 * a CUDA target carries cudaVersion matching ^[1-9][0-9]*\.[0-9]+$ (full
 * match, nothing trailing) and no other target may carry one.  Its id is
 * "<platform>-<arch>-<accelerator>" or "<platform>-<arch>-cuda<cudaVersion>".
 * Reading a target object checks, in this order and reporting the first
 * failure: it is an object (invalid-target); it has no member other than
 * platform, arch, accelerator, cudaVersion (invalid-target); platform, arch
 * and accelerator are present strings, and cudaVersion if present is a string
 * (invalid-target); the triple is in the matrix (unsupported-target); the
 * cudaVersion rule (invalid-target).
 */
#ifndef SCROLLCASE_TARGET_H
#define SCROLLCASE_TARGET_H

#include <stddef.h>

#include "scrollcase/error.h"
#include "scrollcase/json.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum sc_platform { SC_PLATFORM_MACOS, SC_PLATFORM_LINUX, SC_PLATFORM_WINDOWS } sc_platform;
typedef enum sc_arch { SC_ARCH_AARCH64, SC_ARCH_X86_64 } sc_arch;
typedef enum sc_accel { SC_ACCEL_CPU, SC_ACCEL_METAL, SC_ACCEL_CUDA } sc_accel;

#define SC_CUDA_VERSION_MAX 32
#define SC_TARGET_ID_MAX 64

typedef struct sc_target {
    sc_platform platform;
    sc_arch arch;
    sc_accel accelerator;
    char cuda_version[SC_CUDA_VERSION_MAX]; /* "" unless accelerator is cuda */
} sc_target;

/* One NAME=value of a validation environment. */
typedef struct sc_env_pair {
    const char *name;
    const char *value;
} sc_env_pair;

/*
 * Read a target object.  field is the JSON path used in messages ("$" for a
 * standalone target, "$.target" inside a scroll).
 */
sc_code sc_target_from_json(const sc_json *v, const char *field, sc_target *out,
                            sc_error *err);

/* The target as a JSON object in canonical member order. NULL on OOM. */
sc_json *sc_target_to_json(const sc_target *t);

/* Check a target built in code (the matrix and the cudaVersion rule). */
sc_code sc_target_check(const sc_target *t, const char *field, sc_error *err);

/* Write the target id into buf (SC_TARGET_ID_MAX bytes is always enough). */
void sc_target_id(const sc_target *t, char *buf, size_t size);

/* Parse a target id back ("linux-x86_64-cuda12.4"); invalid ids fail with
 * unsupported-target or invalid-target as sc_target_check would. */
sc_code sc_target_parse_id(const char *id, sc_target *out, sc_error *err);

/* 1 if s matches ^[1-9][0-9]*\.[0-9]+$ exactly. */
int sc_cuda_version_valid(const char *s);

/* The CUDA major of a CUDA target: the integer before the dot of its
 * cudaVersion (13 for 13.0), capped at 999999; 0 for other targets. */
unsigned sc_target_cuda_major(const sc_target *t);

const char *sc_platform_name(sc_platform p);  /* "linux" */
const char *sc_arch_name(sc_arch a);          /* "x86_64" */
const char *sc_accel_name(sc_accel a);        /* "cuda" */

/* Facts of the target's platform/arch pair (the "adapter"). */
const char *sc_target_adapter_id(const sc_target *t);       /* "linux-x86_64" */
const char *sc_target_conda_subdir(const sc_target *t);     /* "linux-64" */
const char *sc_target_python_entry_point(const sc_target *t); /* "venv/bin/python" */
const char *sc_target_scripts_dir(const sc_target *t);      /* "venv/bin" */
const char *sc_target_payload_root(const sc_target *t);     /* "venv" */
const char *sc_target_exe_suffix(const sc_target *t);       /* "" or ".exe" */
const char *sc_target_launcher_kind(const sc_target *t);    /* "posix-polyglot" */
const char *sc_target_self_test_assertion(const sc_target *t);

/*
 * The validation environment of the target's accelerator: *count pairs
 * (one for every target in the matrix).
 */
const sc_env_pair *sc_target_validation_environment(const sc_target *t,
                                                    size_t *count);

/* 1 when the platform defines a validation environment for accelerator a
 * (4.3): cpu everywhere, metal on macOS, cuda on Linux and Windows. */
int sc_platform_validates_accelerator(sc_platform p, sc_accel a);

/* Host variables that change what a box executes; NULL-terminated. */
const char *const *sc_target_execution_affecting_variables(const sc_target *t);

/*
 * Everything above as one JSON object (the "target-id" conformance output):
 * {targetId, target, adapterId, condaSubdir, payloadRoot, pythonEntryPoint,
 *  scriptsDir, exeSuffix, launcherKind, selfTestAssertion,
 *  validationEnvironment{...}, executionAffectingVariables[...]}.
 */
sc_json *sc_target_describe(const sc_target *t);

#ifdef __cplusplus
}
#endif

#endif
