/* SPDX-License-Identifier: Apache-2.0 */
/*
 * trust.h — trust files and the set of keys they trust (docs/format-v3.md 8.3).
 *
 * Guarantees: a trust file is read exactly as 8.3 says.  Bytes that are not
 * strict JSON are SC_E_INVALID_JSON; every breach of the shape or of one key
 * is SC_E_INVALID_TRUST_FILE, naming the entry ("$" or "$.keys[i]") and, when
 * it has one, its keyId.  A file that cannot be read is also
 * SC_E_INVALID_TRUST_FILE (9.2 step 1 has no other code).  An accepted set
 * holds only valid public keys (canonical, prime-order subgroup, not of
 * small order) under distinct keyIds; it may be empty.
 */
#ifndef SCROLLCASE_TRUST_H
#define SCROLLCASE_TRUST_H

#include <stddef.h>

#include "scrollcase/error.h"
#include "scrollcase/json.h"
#include "scrollcase/keys.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sc_trusted_key {
    char *key_id;      /* NUL-terminated; compared by its key_id_len bytes */
    size_t key_id_len;
    unsigned char public_key[SC_ED25519_PUBLIC_LEN];
} sc_trusted_key;

/* A set of trusted keys.  Zero it to start empty; sc_trust_free it.
 * keys[0..count) in the order added; the rest is the set's own (room and
 * a keyId index, so that adding and finding a key cost O(1) expected:
 * a bundle of n keys loads in O(n)). */
typedef struct sc_trust {
    sc_trusted_key *keys;
    size_t count;
    size_t cap;       /* room in keys */
    size_t *index;    /* open addressing: position in keys + 1; 0 empty */
    size_t index_cap; /* a power of two, or 0 */
} sc_trust;

/* Check a parsed trust document; name (the file) is for messages. */
sc_code sc_trust_from_json(const sc_json *doc, const char *name, sc_trust *out,
                           sc_error *err);

/* Parse and check len bytes. */
sc_code sc_trust_parse(const char *bytes, size_t len, const char *name,
                       sc_trust *out, sc_error *err);

/* Read, parse and check a file (9.2 step 1). */
sc_code sc_trust_read_file(const char *path, sc_trust *out, sc_error *err);

/*
 * Add one key (copied) to a set: SC_E_INVALID_TRUST_FILE if the keyId is
 * empty or already there or the key is not valid.
 */
sc_code sc_trust_add(sc_trust *t, const char *key_id, size_t key_id_len,
                     const unsigned char pub[SC_ED25519_PUBLIC_LEN], sc_error *err);

/* The key with exactly this keyId (byte comparison), or NULL. */
const sc_trusted_key *sc_trust_find(const sc_trust *t, const char *key_id,
                                    size_t key_id_len);

void sc_trust_free(sc_trust *t);

#ifdef __cplusplus
}
#endif

#endif
