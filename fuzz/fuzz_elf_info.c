/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_elf_info.c — the ELF reader (sc_elf_info_read_memory, elf_info.h)
 * over the bytes of one file, then the fatbin reader over the `.nv_fatbin`
 * section it locates, as the audit of a payload does.
 *
 * Checked: no crash, no leak, no read past the input (ASan); a failure is
 * invalid-elf or out-of-memory and hands nothing back; on success the class
 * is 32 or 64, every DT_NEEDED string is there, a located `.nv_fatbin` lies
 * inside the input, and the fatbin reader over it succeeds or fails with
 * invalid-elf / out-of-memory.
 */
#include <stdint.h>
#include <stdlib.h>

#include "scrollcase/elf_info.h"
#include "scrollcase/fatbin.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sc_elf_info info;
    sc_error err;
    sc_code c = sc_elf_info_read_memory(data, size, "fuzz.so", &info, &err);
    if (c != SC_OK) {
        if ((c != SC_E_INVALID_ELF && c != SC_E_OUT_OF_MEMORY) || err.code != c ||
            info.needed != NULL || info.soname != NULL)
            abort();
        return 0;
    }
    if (info.bits != 32 && info.bits != 64)
        abort();
    for (size_t i = 0; i < info.needed_count; i++)
        if (info.needed[i] == NULL)
            abort();
    if (info.has_fatbin) {
        if (info.fatbin_offset > size || info.fatbin_size > size - info.fatbin_offset)
            abort();
        sc_fatbin fb;
        c = sc_fatbin_parse(data + info.fatbin_offset, (size_t)info.fatbin_size, "fuzz.so", &fb,
                            &err);
        if (c != SC_OK && c != SC_E_INVALID_ELF && c != SC_E_OUT_OF_MEMORY)
            abort();
        sc_fatbin_free(&fb);
    }
    sc_elf_info_free(&info);
    return 0;
}
