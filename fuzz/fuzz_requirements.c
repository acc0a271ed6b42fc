/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_requirements.c — the requirements.txt reader against arbitrary bytes.
 *
 * Checks, aborting on any breach: the reader succeeds (only memory can fail
 * it); every dependency has a conda name and a non-empty specifier free of
 * quotes, backslashes and control characters; every skip has a reason.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scrollcase/requirements.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(int ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "fuzz_requirements: %s\n", what);
        abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sc_requirements r;
    sc_error err;
    sc_code c = sc_requirements_parse((const char *)data, size, &r, &err);
    check(c == SC_OK || c == SC_E_OUT_OF_MEMORY, "an error other than out-of-memory");
    if (c != SC_OK)
        return 0;
    for (size_t i = 0; i < r.ndeps; i++) {
        const char *n = r.deps[i].name, *s = r.deps[i].spec;
        check(n != NULL && n[0] != '\0', "an empty name");
        for (const char *p = n; *p; p++)
            check((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '.' ||
                      *p == '_' || *p == '-',
                  "a name with a character conda refuses");
        check(s != NULL && s[0] != '\0', "an empty specifier");
        for (const char *p = s; *p; p++)
            check(*p != '"' && *p != '\\' && (unsigned char)*p >= 0x20 && *p != 0x7f,
                  "a specifier pixi.toml cannot hold");
    }
    for (size_t i = 0; i < r.nskipped; i++)
        check(r.skipped[i].line != NULL && r.skipped[i].reason != NULL, "a skip without reason");
    sc_requirements_free(&r);
    return 0;
}
