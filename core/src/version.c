/* SPDX-License-Identifier: Apache-2.0 */
/* version.c — sc_version (scrollcase/version.h). */
#include "scrollcase/version.h"

#include <stddef.h>

const char *sc_version(int *major, int *minor, int *patch)
{
    if (major != NULL)
        *major = SC_VERSION_MAJOR;
    if (minor != NULL)
        *minor = SC_VERSION_MINOR;
    if (patch != NULL)
        *patch = SC_VERSION_PATCH;
    return SC_VERSION_STRING;
}
