/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_fatbin.c — the fatbin container reader (sc_fatbin_parse, fatbin.h)
 * over the bytes of one `.nv_fatbin` section.
 *
 * Checked: no crash, no leak, no read past the input (ASan); a failure is
 * invalid-elf or out-of-memory and hands nothing back; on success every
 * entry's header and payload lie inside the input, entries are in section
 * order, their container numbers never go down and stay below the count
 * of containers (a container may hold no entry), the kind is PTX or
 * cubin, the name of each entry's code parses back to the same code, and
 * the count is at most size / 64.
 */
#include <stdint.h>
#include <stdlib.h>

#include "scrollcase/fatbin.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sc_fatbin fb;
    sc_error err;
    sc_code c = sc_fatbin_parse(data, size, "fuzz/.nv_fatbin", &fb, &err);
    if (c != SC_OK) {
        if ((c != SC_E_INVALID_ELF && c != SC_E_OUT_OF_MEMORY) || err.code != c ||
            fb.entries != NULL || fb.count != 0)
            abort();
        return 0;
    }
    if (fb.count > size / 64)
        abort();
    uint64_t last = 0;
    unsigned container = 0;
    for (size_t i = 0; i < fb.count; i++) {
        const sc_fatbin_entry *e = &fb.entries[i];
        if (e->offset > size || size - e->offset < 64 || e->payload_size > size - e->offset - 64)
            abort();
        if (i > 0 && e->offset <= last)
            abort();
        if (e->container < container || e->container >= fb.containers)
            abort();
        container = e->container;
        last = e->offset;
        if (e->code.kind != SC_FATBIN_PTX && e->code.kind != SC_FATBIN_CUBIN)
            abort();
        char name[16];
        sc_cuda_code back;
        if (sc_cuda_code_name(&e->code, name, sizeof name) >= sizeof name ||
            !sc_cuda_code_parse(name, &back) || sc_cuda_code_compare(&back, &e->code) != 0)
            abort();
    }
    sc_fatbin_free(&fb);
    return 0;
}
