/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_payload_list.c — the payload digest list parser (docs/format-v3.md
 * 14.4) and the serializer it mirrors.
 *
 * Input: the bytes of one payload-digest.v1.
 * Checked: no crash, no leak, one code per failure (err->code equals the
 * returned code), and only the parser's codes (invalid-payload-list,
 * unsafe-path, entry-collision, out-of-memory); a list that parses is
 * canonical, so serializing what was parsed gives back exactly the input
 * bytes, and its digest is the SHA-256 of the input.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "scrollcase/digest.h"
#include "scrollcase/payload.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *bytes = (const char *)data;
    sc_payload_list list = {NULL, 0, 0};
    sc_error err;
    sc_code rc = sc_payload_parse(bytes, size, &list, &err);
    if (rc != err.code)
        abort();
    if (rc != SC_OK) {
        if (rc != SC_E_INVALID_PAYLOAD_LIST && rc != SC_E_UNSAFE_PATH &&
            rc != SC_E_ENTRY_COLLISION && rc != SC_E_OUT_OF_MEMORY)
            abort();
        if (list.count != 0 || list.entries != NULL)
            abort();
        return 0;
    }
    char *again = NULL;
    size_t len = 0;
    if (sc_payload_serialize(&list, &again, &len, &err) != SC_OK)
        abort();
    if (len != size || memcmp(again, bytes, size) != 0)
        abort();
    free(again);
    char want[65], got[65];
    if (sc_sha256_hex(bytes, size, want, &err) != SC_OK ||
        sc_payload_digest(&list, got, &err) != SC_OK || strcmp(want, got) != 0)
        abort();
    uint64_t total = 1;
    if (sc_payload_measure(&list, &total, &err) != SC_OK || total != 0)
        abort();
    sc_payload_list_free(&list);
    return 0;
}
