/* SPDX-License-Identifier: Apache-2.0 */
/*
 * progress.c — sizes for people (progress.h).
 */
#include "scrollcase/progress.h"

#include <stdio.h>

size_t sc_progress_short_size(uint64_t bytes, char *buf, size_t size)
{
    static const char *const units[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    if (bytes < 1024)
        return (size_t)snprintf(buf, size, "%llu B", (unsigned long long)bytes);
    double v = (double)bytes / 1024.0;
    size_t u = 0;
    while (v >= 1024.0 && u + 1 < sizeof units / sizeof units[0]) {
        v /= 1024.0;
        u++;
    }
    return (size_t)snprintf(buf, size, "%.1f %s", v, units[u]);
}

size_t sc_progress_human_size(uint64_t bytes, char *buf, size_t size)
{
    if (bytes < 1024)
        return (size_t)snprintf(buf, size, "%llu bytes", (unsigned long long)bytes);
    char s[32];
    sc_progress_short_size(bytes, s, sizeof s);
    return (size_t)snprintf(buf, size, "%s (%llu bytes)", s, (unsigned long long)bytes);
}
