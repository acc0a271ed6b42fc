/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_trust.c — the trust-file reader (8.3) and what it rests on: strict
 * PEM (8.1) and strict base64 (8.2).
 *
 * Input: a trust file's bytes; the same bytes are also read as PEM (public
 * and private) and decoded as base64.  Checked: no crash, no leak; an
 * accepted set holds only valid keys under distinct, non-empty keyIds, each
 * found again by sc_trust_find; an accepted PEM is written back as the same
 * key; base64 that decodes encodes back to exactly the same text
 * (canonical), and its length agrees with sc_base64_decoded_len.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "scrollcase/base64.h"
#include "scrollcase/keys.h"
#include "scrollcase/trust.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *bytes = (const char *)data;
    sc_error err;
    sc_trust t;
    if (sc_trust_parse(bytes, size, "fuzz/trust.json", &t, &err) == SC_OK) {
        for (size_t i = 0; i < t.count; i++) {
            const sc_trusted_key *k = &t.keys[i];
            if (k->key_id_len == 0 || !sc_public_key_valid(k->public_key) ||
                sc_trust_find(&t, k->key_id, k->key_id_len) != k)
                abort();
        }
        sc_trust_free(&t);
    } else if (err.code != SC_E_INVALID_JSON && err.code != SC_E_INVALID_TRUST_FILE &&
               err.code != SC_E_OUT_OF_MEMORY) {
        abort();
    }

    unsigned char pub[SC_ED25519_PUBLIC_LEN], back[SC_ED25519_PUBLIC_LEN];
    if (sc_public_pem_read(bytes, size, pub, &err) == SC_OK) {
        char *pem = NULL;
        size_t len = 0;
        if (sc_public_pem_write(pub, &pem, &len, &err) != SC_OK ||
            sc_public_pem_read(pem, len, back, &err) != SC_OK ||
            memcmp(pub, back, sizeof pub) != 0)
            abort();
        free(pem);
    } else if (err.code != SC_E_INVALID_KEY) {
        abort();
    }
    unsigned char seed[SC_ED25519_SEED_LEN];
    if (sc_private_pem_read(bytes, size, seed, &err) != SC_OK && err.code != SC_E_INVALID_KEY)
        abort();

    size_t n = sc_base64_decoded_len(bytes, size);
    if (n != SC_BASE64_INVALID) {
        unsigned char *out = malloc(n + 1);
        size_t got = 0;
        if (out == NULL)
            abort();
        if (sc_base64_decode(bytes, size, out, n, &got)) {
            char *text = NULL;
            size_t tl = 0;
            if (got != n || sc_base64_encode(out, got, &text, &tl, &err) != SC_OK ||
                tl != size || memcmp(text, bytes, size) != 0)
                abort();
            free(text);
        }
        free(out);
    }
    return 0;
}
