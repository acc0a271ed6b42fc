/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gpu_probe.c — the host's NVIDIA facts through dlopen (docs/format-v3.md
 * 18.2).
 *
 * Guarantees: see gpu_probe.h.  No CUDA header is used: the handful of
 * driver and NVML entry points are declared here with the C types of their
 * documented ABI (CUresult and nvmlReturn_t are int, CUdevice is int).
 * Both libraries are closed before the call returns.
 */
#include "scrollcase/gpu_probe.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scrollcase/json.h"

/* The driver API's ABI, as documented in cuda.h. */
typedef int (*cu_init_fn)(unsigned int flags);
typedef int (*cu_driver_get_version_fn)(int *version);
typedef int (*cu_device_get_count_fn)(int *count);
typedef int (*cu_device_get_fn)(int *device, int ordinal);
typedef int (*cu_device_get_name_fn)(char *name, int len, int device);
typedef int (*cu_device_get_attribute_fn)(int *value, int attribute, int device);
typedef int (*cu_device_total_mem_fn)(size_t *bytes, int device);
/* NVML's. */
typedef int (*nvml_init_fn)(void);
typedef int (*nvml_get_driver_version_fn)(char *version, unsigned int length);
typedef int (*nvml_shutdown_fn)(void);

#define CU_SUCCESS 0
#define CU_ERROR_NO_DEVICE 100
#define CU_ATTR_CC_MAJOR 75
#define CU_ATTR_CC_MINOR 76
#define NVML_SUCCESS 0

/* dlsym into a function pointer without an object-to-function cast. */
static int lookup(void *lib, const char *name, void *fn, size_t fn_size)
{
    void *p = dlsym(lib, name);
    if (p == NULL || fn_size != sizeof p)
        return 0;
    memcpy(fn, &p, sizeof p);
    return 1;
}
#define LOOKUP(lib, name, fn) lookup((lib), (name), &(fn), sizeof(fn))

const char *sc_gpu_status_name(sc_gpu_status s)
{
    switch (s) {
    case SC_GPU_OK:
        return "ok";
    case SC_GPU_ABSENT:
        return "absent";
    case SC_GPU_UNPROBED:
        return "unprobed";
    }
    return "unprobed";
}

void sc_gpu_facts_free(sc_gpu_facts *facts)
{
    if (facts == NULL)
        return;
    free(facts->devices);
    facts->devices = NULL;
    facts->device_count = 0;
}

static sc_code unavailable(sc_gpu_facts *f, sc_gpu_status status, const char *reason,
                           sc_error *err, const char *detail)
{
    f->status = status;
    snprintf(f->reason, sizeof f->reason, "%s", reason);
    free(f->devices);
    f->devices = NULL;
    f->device_count = 0;
    return sc_error_set(err, SC_E_ACCELERATOR_UNAVAILABLE, "gpu",
                        "no usable NVIDIA GPU (%s): %s", reason, detail);
}

/* The driver version from NVML, or "" when NVML is missing or refuses. */
static void nvml_driver_version(const char *path, char *out, size_t size)
{
    out[0] = '\0';
    void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL)
        return;
    nvml_init_fn init = NULL;
    nvml_get_driver_version_fn get = NULL;
    nvml_shutdown_fn shutdown = NULL;
    if ((LOOKUP(lib, "nvmlInit_v2", init) || LOOKUP(lib, "nvmlInit", init)) &&
        LOOKUP(lib, "nvmlSystemGetDriverVersion", get) &&
        LOOKUP(lib, "nvmlShutdown", shutdown) && init() == NVML_SUCCESS) {
        char buf[SC_GPU_TEXT_MAX];
        memset(buf, 0, sizeof buf);
        if (get(buf, (unsigned int)sizeof buf - 1) == NVML_SUCCESS)
            snprintf(out, size, "%s", buf);
        shutdown();
    }
    dlclose(lib);
}

sc_code sc_gpu_probe(const sc_gpu_probe_options *options, sc_gpu_facts *f, sc_error *err)
{
    memset(f, 0, sizeof *f);
    f->status = SC_GPU_UNPROBED;
    const char *cuda_path = options != NULL && options->cuda_library != NULL
                                ? options->cuda_library
                                : SC_GPU_DEFAULT_CUDA_LIBRARY;
    const char *nvml_path = options != NULL && options->nvml_library != NULL
                                ? options->nvml_library
                                : SC_GPU_DEFAULT_NVML_LIBRARY;
    void *lib = dlopen(cuda_path, RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL) {
        const char *why = dlerror();
        return unavailable(f, SC_GPU_ABSENT, "no-driver", err,
                           why != NULL ? why : cuda_path);
    }
    cu_init_fn init = NULL;
    cu_driver_get_version_fn get_version = NULL;
    cu_device_get_count_fn get_count = NULL;
    cu_device_get_fn get_device = NULL;
    cu_device_get_name_fn get_name = NULL;
    cu_device_get_attribute_fn get_attribute = NULL;
    cu_device_total_mem_fn total_mem = NULL;
    const char *missing = NULL;
    if (!LOOKUP(lib, "cuInit", init))
        missing = "cuInit";
    else if (!LOOKUP(lib, "cuDriverGetVersion", get_version))
        missing = "cuDriverGetVersion";
    else if (!LOOKUP(lib, "cuDeviceGetCount", get_count))
        missing = "cuDeviceGetCount";
    else if (!LOOKUP(lib, "cuDeviceGet", get_device))
        missing = "cuDeviceGet";
    else if (!LOOKUP(lib, "cuDeviceGetName", get_name))
        missing = "cuDeviceGetName";
    else if (!LOOKUP(lib, "cuDeviceGetAttribute", get_attribute))
        missing = "cuDeviceGetAttribute";
    else if (!LOOKUP(lib, "cuDeviceTotalMem_v2", total_mem))
        missing = "cuDeviceTotalMem_v2";
    if (missing != NULL) {
        dlclose(lib);
        return unavailable(f, SC_GPU_UNPROBED, "symbol-missing", err, missing);
    }
    char detail[96];
    int rc = init(0);
    if (rc != CU_SUCCESS) {
        dlclose(lib);
        snprintf(detail, sizeof detail, "cuInit returned %d", rc);
        return unavailable(f, SC_GPU_ABSENT, rc == CU_ERROR_NO_DEVICE ? "no-device"
                                                                       : "init-failed",
                           err, detail);
    }
    int version = 0, count = 0;
    if ((rc = get_version(&version)) != CU_SUCCESS || (rc = get_count(&count)) != CU_SUCCESS) {
        dlclose(lib);
        snprintf(detail, sizeof detail, "the driver refused a query (%d)", rc);
        return unavailable(f, SC_GPU_ABSENT, "query-failed", err, detail);
    }
    if (count <= 0) {
        dlclose(lib);
        return unavailable(f, SC_GPU_ABSENT, "no-device", err, "the driver lists no device");
    }
    f->devices = calloc((size_t)count, sizeof *f->devices);
    if (f->devices == NULL) {
        dlclose(lib);
        return sc_error_set(err, SC_E_OUT_OF_MEMORY, "gpu", "out of memory");
    }
    f->device_count = (size_t)count;
    for (int i = 0; i < count; i++) {
        sc_gpu_device *d = &f->devices[i];
        int dev = 0;
        size_t bytes = 0;
        if ((rc = get_device(&dev, i)) != CU_SUCCESS ||
            (rc = get_name(d->name, (int)sizeof d->name - 1, dev)) != CU_SUCCESS ||
            (rc = get_attribute(&d->cc_major, CU_ATTR_CC_MAJOR, dev)) != CU_SUCCESS ||
            (rc = get_attribute(&d->cc_minor, CU_ATTR_CC_MINOR, dev)) != CU_SUCCESS ||
            (rc = total_mem(&bytes, dev)) != CU_SUCCESS) {
            dlclose(lib);
            snprintf(detail, sizeof detail, "the driver refused a query of device %d (%d)",
                     i, rc);
            return unavailable(f, SC_GPU_ABSENT, "query-failed", err, detail);
        }
        d->name[sizeof d->name - 1] = '\0';
        d->memory_bytes = (uint64_t)bytes;
    }
    dlclose(lib);
    f->cuda_version = version;
    nvml_driver_version(nvml_path, f->driver_version, sizeof f->driver_version);
    f->status = SC_GPU_OK;
    return SC_OK;
}

sc_json *sc_gpu_facts_json(const sc_gpu_facts *f)
{
    sc_json *o = sc_json_new_object();
    if (o == NULL)
        return NULL;
    int bad = sc_json_object_append(o, "status",
                                    sc_json_new_string(sc_gpu_status_name(f->status)));
    if (f->status != SC_GPU_OK) {
        bad |= sc_json_object_append(o, "reason", sc_json_new_string(f->reason));
    } else {
        char cv[32];
        snprintf(cv, sizeof cv, "%d.%d", f->cuda_version / 1000,
                 (f->cuda_version % 1000) / 10);
        if (f->driver_version[0] != '\0')
            bad |= sc_json_object_append(o, "driverVersion",
                                         sc_json_new_string(f->driver_version));
        bad |= sc_json_object_append(o, "cudaVersion", sc_json_new_string(cv));
        sc_json *list = sc_json_new_array();
        for (size_t i = 0; list != NULL && i < f->device_count; i++) {
            const sc_gpu_device *d = &f->devices[i];
            char cc[32];
            snprintf(cc, sizeof cc, "%d.%d", d->cc_major, d->cc_minor);
            sc_json *item = sc_json_new_object();
            int b = item == NULL;
            b = b || sc_json_object_append(item, "name", sc_json_new_string(d->name));
            b = b || sc_json_object_append(item, "computeCapability", sc_json_new_string(cc));
            b = b || sc_json_object_append(item, "memoryBytes",
                                           sc_json_new_number((double)d->memory_bytes));
            if (b || sc_json_array_append(list, item) != 0) {
                sc_json_free(item);
                sc_json_free(list);
                list = NULL;
            }
        }
        bad |= sc_json_object_append(o, "devices", list);
    }
    if (bad) {
        sc_json_free(o);
        return NULL;
    }
    return o;
}

sc_code sc_gpu_facts_gate_json(const sc_gpu_facts *f, sc_json **out, sc_error *err)
{
    *out = NULL;
    if (f->status != SC_GPU_OK || f->driver_version[0] == '\0' || f->device_count == 0)
        return sc_error_set(err, SC_E_ACCELERATOR_UNAVAILABLE, "gates.host",
                            "the GPU probe has no driver version and device to record");
    sc_json *o = sc_json_new_object();
    sc_json *gpus = sc_json_new_array();
    int bad = o == NULL || gpus == NULL;
    for (size_t i = 0; !bad && i < f->device_count; i++) {
        char cc[32];
        snprintf(cc, sizeof cc, "%d.%d", f->devices[i].cc_major, f->devices[i].cc_minor);
        sc_json *g = sc_json_new_object();
        bad = g == NULL;
        bad = bad || sc_json_object_append(g, "name", sc_json_new_string(f->devices[i].name));
        bad = bad || sc_json_object_append(g, "computeCapability", sc_json_new_string(cc));
        if (bad || sc_json_array_append(gpus, g) != 0) {
            sc_json_free(g);
            bad = 1;
        }
    }
    if (!bad) {
        bad = sc_json_object_append(o, "nvidiaDriverVersion",
                                    sc_json_new_string(f->driver_version)) != 0;
        bad = sc_json_object_append(o, "gpus", gpus) != 0 || bad;
        gpus = NULL;
    }
    sc_json_free(gpus);
    if (bad) {
        sc_json_free(o);
        return sc_error_set(err, SC_E_OUT_OF_MEMORY, "gates.host", "out of memory");
    }
    *out = o;
    return SC_OK;
}
