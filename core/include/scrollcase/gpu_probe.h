/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gpu_probe.h — the host's NVIDIA facts, read without linking the driver
 * (docs/format-v3.md 18.2).
 *
 * Guarantees: the probe loads the CUDA driver library (libcuda.so.1) and
 * NVML (libnvidia-ml.so.1) with dlopen at the time of the call, looks up
 * the few entry points it needs with dlsym, and closes both before it
 * returns: no CUDA header and no link-time dependency.  Its answer is one
 * of three states — usable (driver version, the CUDA version the driver
 * supports, every visible GPU), absent (no driver, no device, the driver
 * refuses to start) or unprobed (the library is there but not one the probe
 * can query) — each non-usable state with a named reason.  A host that is
 * not usable is SC_E_ACCELERATOR_UNAVAILABLE: there is no fallback.
 */
#ifndef SCROLLCASE_GPU_PROBE_H
#define SCROLLCASE_GPU_PROBE_H

#include <stddef.h>
#include <stdint.h>

#include "scrollcase/error.h"
#include "scrollcase/json.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SC_GPU_DEFAULT_CUDA_LIBRARY "libcuda.so.1"
#define SC_GPU_DEFAULT_NVML_LIBRARY "libnvidia-ml.so.1"
#define SC_GPU_NAME_MAX 256
#define SC_GPU_TEXT_MAX 96

typedef enum sc_gpu_status {
    SC_GPU_OK,       /* "ok": a usable driver and at least one GPU */
    SC_GPU_ABSENT,   /* "absent": the probe ran; nothing usable */
    SC_GPU_UNPROBED  /* "unprobed": the probe could not ask */
} sc_gpu_status;

typedef struct sc_gpu_device {
    char name[SC_GPU_NAME_MAX];
    int cc_major, cc_minor;      /* compute capability */
    uint64_t memory_bytes;
} sc_gpu_device;

/* What the probe found.  Owned; sc_gpu_facts_free. */
typedef struct sc_gpu_facts {
    sc_gpu_status status;
    char reason[SC_GPU_TEXT_MAX];         /* non-ok: no-driver, no-device,
                                             init-failed, symbol-missing, ... */
    char driver_version[SC_GPU_TEXT_MAX]; /* NVML's, "" when NVML is missing */
    int cuda_version;                     /* cuDriverGetVersion: 12040 = 12.4 */
    sc_gpu_device *devices;
    size_t device_count;
} sc_gpu_facts;

/* Which libraries to load; NULL members mean the defaults above. */
typedef struct sc_gpu_probe_options {
    const char *cuda_library;
    const char *nvml_library;
} sc_gpu_probe_options;

/*
 * Probe (options may be NULL).  SC_OK with status SC_GPU_OK, or
 * SC_E_ACCELERATOR_UNAVAILABLE with status absent/unprobed and the reason
 * in both facts->reason and the message; out of memory is SC_E_OUT_OF_MEMORY.
 * facts is always filled and must be freed.
 */
sc_code sc_gpu_probe(const sc_gpu_probe_options *options, sc_gpu_facts *facts,
                     sc_error *err);

void sc_gpu_facts_free(sc_gpu_facts *facts);

/* "ok" / "absent" / "unprobed". */
const char *sc_gpu_status_name(sc_gpu_status s);

/*
 * The facts as the `gpu` member of a host-facts document (18.1):
 * {status: "ok", driverVersion?, cudaVersion: "12.4", devices: [{name,
 * computeCapability: "9.0", memoryBytes}]} or {status, reason}.
 */
sc_json *sc_gpu_facts_json(const sc_gpu_facts *facts);

/*
 * The release's `gates.host` record (docs/format-v3.md 10.2, 17.5) of a
 * usable probe: {nvidiaDriverVersion, gpus: [{name, computeCapability}]}.
 * A probe that is not ok, knows no driver version or lists no GPU cannot
 * vouch for a device: accelerator-unavailable.
 */
sc_code sc_gpu_facts_gate_json(const sc_gpu_facts *facts, sc_json **out, sc_error *err);

#ifdef __cplusplus
}
#endif

#endif
