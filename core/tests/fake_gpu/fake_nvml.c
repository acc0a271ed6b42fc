/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fake_nvml.c — a stand-in for libnvidia-ml.so.1 for the GPU probe's tests:
 * it reports driver version 550.54.15.
 */
#include <string.h>

int nvmlInit_v2(void);
int nvmlSystemGetDriverVersion(char *version, unsigned int length);
int nvmlShutdown(void);

int nvmlInit_v2(void)
{
    return 0;
}

int nvmlSystemGetDriverVersion(char *version, unsigned int length)
{
    static const char v[] = "550.54.15";
    if (length < sizeof v)
        return 7;
    memcpy(version, v, sizeof v);
    return 0;
}

int nvmlShutdown(void)
{
    return 0;
}
