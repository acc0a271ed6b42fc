/* SPDX-License-Identifier: Apache-2.0 */
/*
 * remedy.c — the list of printed remedies (remedy.h).
 */
#include "scrollcase/remedy.h"

#include <stddef.h>

const char *const *sc_remedy_commands(void)
{
    static const char *const all[] = {
        SC_REMEDY_KEYGEN,      SC_REMEDY_KEYGEN_FORCE, SC_REMEDY_KEYGEN_PATHS,
        SC_REMEDY_SIGNER,      SC_REMEDY_INIT,         SC_REMEDY_MIGRATE,
        SC_REMEDY_AUDIT_WRITE, SC_REMEDY_LOCK,         SC_REMEDY_DOCTOR_PIXI,
        SC_REMEDY_DOCTOR_CONDA_PACK, SC_REMEDY_BUILD_PREFIX, SC_REMEDY_AUDIT_BINARIES,
        SC_REMEDY_AUDIT_CUDA, SC_REMEDY_BUILD_PIXI,
        NULL};
    return all;
}
