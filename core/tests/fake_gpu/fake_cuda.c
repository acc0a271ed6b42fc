/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fake_cuda.c — a stand-in for libcuda.so.1, built as several shared
 * libraries for the GPU probe's tests (test_parity.c).  It exports the
 * driver entry points with the documented ABI; FAKE_MODE selects what the
 * "driver" answers:
 *   FAKE_OK         two devices, CUDA 12.4
 *   FAKE_NO_DEVICE  cuInit returns CUDA_ERROR_NO_DEVICE (100)
 *   FAKE_INIT_FAIL  cuInit returns 999
 *   FAKE_NO_SYMBOL  everything but cuDeviceTotalMem_v2
 *   FAKE_ZERO       cuInit succeeds, the count is 0
 */
#include <stddef.h>
#include <string.h>

#define FAKE_OK 1
#define FAKE_NO_DEVICE 2
#define FAKE_INIT_FAIL 3
#define FAKE_NO_SYMBOL 4
#define FAKE_ZERO 5

int cuInit(unsigned int flags);
int cuDriverGetVersion(int *version);
int cuDeviceGetCount(int *count);
int cuDeviceGet(int *device, int ordinal);
int cuDeviceGetName(char *name, int len, int device);
int cuDeviceGetAttribute(int *value, int attribute, int device);
#if FAKE_MODE != FAKE_NO_SYMBOL
int cuDeviceTotalMem_v2(size_t *bytes, int device);
#endif

int cuInit(unsigned int flags)
{
    (void)flags;
    if (FAKE_MODE == FAKE_NO_DEVICE)
        return 100;
    if (FAKE_MODE == FAKE_INIT_FAIL)
        return 999;
    return 0;
}

int cuDriverGetVersion(int *version)
{
    *version = 12040;
    return 0;
}

int cuDeviceGetCount(int *count)
{
    *count = FAKE_MODE == FAKE_ZERO ? 0 : 2;
    return 0;
}

int cuDeviceGet(int *device, int ordinal)
{
    *device = ordinal;
    return 0;
}

int cuDeviceGetName(char *name, int len, int device)
{
    const char *n = device == 0 ? "Fake GPU Zero" : "Fake GPU One";
    size_t k = strlen(n);
    if (len <= 0 || (size_t)len <= k)
        return 1;
    memcpy(name, n, k + 1);
    return 0;
}

int cuDeviceGetAttribute(int *value, int attribute, int device)
{
    if (attribute == 75)
        *value = device == 0 ? 9 : 8;
    else if (attribute == 76)
        *value = device == 0 ? 0 : 6;
    else
        return 1;
    return 0;
}

#if FAKE_MODE != FAKE_NO_SYMBOL
int cuDeviceTotalMem_v2(size_t *bytes, int device)
{
    *bytes = device == 0 ? (size_t)150754820096ULL : (size_t)25769803776ULL;
    return 0;
}
#endif
