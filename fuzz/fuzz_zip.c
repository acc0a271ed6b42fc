/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_zip.c — the archive reader (archive_read.h, format-v3 15.2).
 *
 * Input: archive bytes, written to an anonymous temporary file and opened
 * with sc_zip_open_fd under a 64 MiB budget.  Checked: no crash, no leak,
 * only the reader's codes; an accepted archive finds every entry again by
 * its path (sc_zip_find), every link has its checked target, and every
 * entry reads (up to 1 MiB) either exactly as declared or with
 * invalid-archive / extraction-limit.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "scrollcase/archive_read.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int reader_code(sc_code c)
{
    return c == SC_E_INVALID_ARCHIVE || c == SC_E_UNSAFE_PATH || c == SC_E_ENCRYPTED_ENTRY ||
           c == SC_E_SPECIAL_ENTRY || c == SC_E_LINK_ENTRY || c == SC_E_ENTRY_COLLISION ||
           c == SC_E_EXTRACTION_LIMIT || c == SC_E_OUT_OF_MEMORY;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    FILE *f = tmpfile();
    if (f == NULL)
        return 0;
    if (size > 0 && fwrite(data, 1, size, f) != size) {
        fclose(f);
        return 0;
    }
    fflush(f);
    sc_zip_limits lim = {(uint64_t)64 << 20, 0};
    sc_zip *z = NULL;
    sc_error err;
    sc_code rc = sc_zip_open_fd(fileno(f), "fuzz.zip", &lim, &z, &err);
    fclose(f); /* the reader holds its own descriptor */
    if (rc != SC_OK) {
        if (!reader_code(rc) || z != NULL)
            abort();
        return 0;
    }
    for (size_t i = 0; i < sc_zip_count(z); i++) {
        const sc_zip_entry *e = sc_zip_at(z, i);
        if (e == NULL || sc_zip_find(z, e->path) != e || strlen(e->path) != e->path_len)
            abort();
        if ((e->type == SC_ZIP_LINK) != (e->link_target != NULL))
            abort();
        char *bytes = NULL;
        size_t len = 0;
        rc = sc_zip_read(z, e, (size_t)1 << 20, &bytes, &len, &err);
        if (rc == SC_OK) {
            if (len != e->size || bytes == NULL || bytes[len] != '\0')
                abort();
        } else if (rc != SC_E_INVALID_ARCHIVE && rc != SC_E_EXTRACTION_LIMIT &&
                   rc != SC_E_OUT_OF_MEMORY) {
            abort();
        }
        free(bytes);
    }
    sc_zip_close(z);
    return 0;
}
