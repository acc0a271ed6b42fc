/* SPDX-License-Identifier: Apache-2.0 */
/*
 * trust.c — reading trust files (8.3) into a set of keys.
 *
 * Guarantees: see trust.h.  Within one key the checks run: object; keyId
 * present; then keyId, algorithm, publicKeyPem, publicKeyBase64 in that
 * order; unknown members; a key given at all; the PEM; the base64; the two
 * agree; the point is valid; then the keyId is new in the bundle.  The first
 * failure is the one reported; on failure nothing is returned.
 */
#include "scrollcase/trust.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scrollcase/base64.h"
#include "scrollcase/file.h"

void sc_trust_free(sc_trust *t)
{
    if (t == NULL)
        return;
    for (size_t i = 0; i < t->count; i++)
        free(t->keys[i].key_id);
    free(t->keys);
    free(t->index);
    memset(t, 0, sizeof *t);
}

static size_t key_hash(const char *s, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++) {
        h ^= (unsigned char)s[i];
        h *= 1099511628211ull;
    }
    return (size_t)(h ^ (h >> 29));
}

/* The index slot of key_id: its own, or the empty one where it would go. */
static size_t *index_slot(const sc_trust *t, const char *key_id, size_t key_id_len)
{
    size_t mask = t->index_cap - 1;
    for (size_t i = key_hash(key_id, key_id_len) & mask;; i = (i + 1) & mask) {
        size_t *s = &t->index[i];
        if (*s == 0)
            return s;
        const sc_trusted_key *k = &t->keys[*s - 1];
        if (k->key_id_len == key_id_len && memcmp(k->key_id, key_id, key_id_len) == 0)
            return s;
    }
}

const sc_trusted_key *sc_trust_find(const sc_trust *t, const char *key_id,
                                    size_t key_id_len)
{
    if (t == NULL || key_id == NULL || t->count == 0)
        return NULL;
    if (t->index_cap == 0) { /* a set filled by hand (keys and count only) */
        for (size_t i = 0; i < t->count; i++)
            if (t->keys[i].key_id_len == key_id_len &&
                memcmp(t->keys[i].key_id, key_id, key_id_len) == 0)
                return &t->keys[i];
        return NULL;
    }
    const size_t *s = index_slot(t, key_id, key_id_len);
    return *s ? &t->keys[*s - 1] : NULL;
}

/* Room for one more key, in keys and in an index at most half full. */
static int grow(sc_trust *t)
{
    if (t->count == t->cap) {
        size_t ncap = t->cap ? t->cap * 2 : 8;
        if (ncap > SIZE_MAX / sizeof *t->keys)
            return -1;
        sc_trusted_key *nk = realloc(t->keys, ncap * sizeof *nk);
        if (nk == NULL)
            return -1;
        t->keys = nk;
        t->cap = ncap;
    }
    if ((t->count + 1) * 2 > t->index_cap) {
        size_t ncap = t->index_cap ? t->index_cap : 16;
        while ((t->count + 1) * 2 > ncap)
            ncap *= 2;
        if (ncap > SIZE_MAX / sizeof *t->index)
            return -1;
        size_t *ni = calloc(ncap, sizeof *ni);
        if (ni == NULL)
            return -1;
        free(t->index);
        t->index = ni;
        t->index_cap = ncap;
        for (size_t i = 0; i < t->count; i++)
            *index_slot(t, t->keys[i].key_id, t->keys[i].key_id_len) = i + 1;
    }
    return 0;
}

static sc_code insert(sc_trust *t, const char *key_id, size_t key_id_len,
                      const unsigned char pub[SC_ED25519_PUBLIC_LEN], sc_error *err);

sc_code sc_trust_add(sc_trust *t, const char *key_id, size_t key_id_len,
                     const unsigned char pub[SC_ED25519_PUBLIC_LEN], sc_error *err)
{
    if (t == NULL || key_id == NULL || pub == NULL)
        return sc_error_set(err, SC_E_USAGE, NULL, "sc_trust_add: no set, keyId or key");
    if (key_id_len == 0)
        return sc_error_set(err, SC_E_INVALID_TRUST_FILE, NULL, "an empty keyId");
    if (sc_trust_find(t, key_id, key_id_len) != NULL)
        return sc_error_set(err, SC_E_INVALID_TRUST_FILE, NULL,
                            "keyId \"%.*s\" is trusted twice", (int)key_id_len, key_id);
    if (!sc_public_key_valid(pub))
        return sc_error_set(err, SC_E_INVALID_TRUST_FILE, NULL,
                            "keyId \"%.*s\": not a valid Ed25519 public key "
                            "(non-canonical, of small order or outside the prime-order "
                            "subgroup)", (int)key_id_len, key_id);
    return insert(t, key_id, key_id_len, pub, err);
}

/* Add a key already checked (non-empty, new, valid). */
static sc_code insert(sc_trust *t, const char *key_id, size_t key_id_len,
                      const unsigned char pub[SC_ED25519_PUBLIC_LEN], sc_error *err)
{
    if (grow(t) != 0)
        return sc_error_set(err, SC_E_OUT_OF_MEMORY, NULL, "out of memory");
    char *id = malloc(key_id_len + 1);
    if (id == NULL)
        return sc_error_set(err, SC_E_OUT_OF_MEMORY, NULL, "out of memory");
    memcpy(id, key_id, key_id_len);
    id[key_id_len] = '\0';
    sc_trusted_key *k = &t->keys[t->count];
    k->key_id = id;
    k->key_id_len = key_id_len;
    memcpy(k->public_key, pub, SC_ED25519_PUBLIC_LEN);
    *index_slot(t, id, key_id_len) = t->count + 1;
    t->count++;
    return SC_OK;
}

/* Report a failure of one entry: "<name>: <entry> (keyId "x"): <what>". */
static sc_code entry_error(sc_error *err, const char *name, const char *entry,
                           const sc_json *key_id, const char *what)
{
    if (key_id != NULL && key_id->type == SC_JSON_STRING && key_id->length > 0)
        return sc_error_set(err, SC_E_INVALID_TRUST_FILE, entry,
                            "%s: trust entry %s (keyId \"%.*s\"): %s", name, entry,
                            key_id->length > 200 ? 200 : (int)key_id->length,
                            key_id->string, what);
    return sc_error_set(err, SC_E_INVALID_TRUST_FILE, entry, "%s: trust entry %s: %s",
                        name, entry, what);
}

/* 1 if member m's key is exactly name (keys may hold NUL bytes). */
static int key_is(const sc_json *m, const char *name)
{
    size_t n = strlen(name);
    return m->key_length == n && memcmp(m->key, name, n) == 0;
}

static int is_string_or_null(const sc_json *v)
{
    return v == NULL || v->type == SC_JSON_STRING || v->type == SC_JSON_NULL;
}

/* Check one key entry and add it to out. */
static sc_code read_key(const sc_json *k, const char *name, const char *entry,
                        sc_trust *out, sc_error *err)
{
    if (!sc_json_is(k, SC_JSON_OBJECT))
        return entry_error(err, name, entry, NULL, "a key must be a JSON object");
    const sc_json *id = sc_json_get(k, "keyId");
    const sc_json *alg = sc_json_get(k, "algorithm");
    const sc_json *pem = sc_json_get(k, "publicKeyPem");
    const sc_json *b64 = sc_json_get(k, "publicKeyBase64");
    if (id == NULL)
        return entry_error(err, name, entry, NULL, "keyId is required");
    if (id->type != SC_JSON_STRING || id->length == 0)
        return entry_error(err, name, entry, NULL, "keyId must be a non-empty string");
    if (alg != NULL && !(alg->type == SC_JSON_STRING && alg->length == 7 &&
                         memcmp(alg->string, "ed25519", 7) == 0))
        return entry_error(err, name, entry, id, "algorithm must be \"ed25519\"");
    if (!is_string_or_null(pem))
        return entry_error(err, name, entry, id, "publicKeyPem must be a string or null");
    if (!is_string_or_null(b64))
        return entry_error(err, name, entry, id, "publicKeyBase64 must be a string or null");
    for (const sc_json *m = k->child; m != NULL; m = m->next)
        if (!key_is(m, "keyId") && !key_is(m, "algorithm") && !key_is(m, "publicKeyPem") &&
            !key_is(m, "publicKeyBase64")) {
            char what[160];
            snprintf(what, sizeof what, "member \"%.100s\" is not allowed", m->key);
            return entry_error(err, name, entry, id, what);
        }
    int has_pem = pem != NULL && pem->type == SC_JSON_STRING;
    int has_b64 = b64 != NULL && b64->type == SC_JSON_STRING;
    if (!has_pem && !has_b64)
        return entry_error(err, name, entry, id,
                           "no public key: give publicKeyPem, publicKeyBase64 or both");
    unsigned char from_pem[SC_ED25519_PUBLIC_LEN], from_b64[SC_ED25519_PUBLIC_LEN];
    if (has_pem) {
        sc_error e2;
        if (sc_public_pem_read(pem->string, pem->length, from_pem, &e2) != SC_OK)
            return entry_error(err, name, entry, id, e2.message);
    }
    if (has_b64) {
        size_t n = 0;
        if (!sc_base64_decode(b64->string, b64->length, from_b64, sizeof from_b64, &n) ||
            n != SC_ED25519_PUBLIC_LEN)
            return entry_error(err, name, entry, id,
                               "publicKeyBase64 is not strict base64 of 32 bytes");
    }
    if (has_pem && has_b64 && memcmp(from_pem, from_b64, SC_ED25519_PUBLIC_LEN) != 0)
        return entry_error(err, name, entry, id,
                           "publicKeyPem and publicKeyBase64 are different keys");
    const unsigned char *pub = has_pem ? from_pem : from_b64;
    if (!sc_public_key_valid(pub))
        return entry_error(err, name, entry, id,
                           "not a valid Ed25519 public key (non-canonical, of small "
                           "order or outside the prime-order subgroup)");
    if (sc_trust_find(out, id->string, id->length) != NULL)
        return entry_error(err, name, entry, id, "another key of the bundle has this keyId");
    sc_error e3;
    /* checked above: valid and new; an empty keyId is sc_trust_add's to refuse */
    sc_code c = id->length > 0 ? insert(out, id->string, id->length, pub, &e3)
                               : sc_trust_add(out, id->string, id->length, pub, &e3);
    if (c == SC_E_OUT_OF_MEMORY)
        return sc_error_set(err, c, NULL, "%s", e3.message);
    if (c != SC_OK)
        return entry_error(err, name, entry, id, e3.message);
    return SC_OK;
}

sc_code sc_trust_from_json(const sc_json *doc, const char *name, sc_trust *out,
                           sc_error *err)
{
    if (out == NULL)
        return sc_error_set(err, SC_E_USAGE, NULL, "sc_trust_from_json: no output");
    memset(out, 0, sizeof *out);
    if (name == NULL)
        name = "trust file";
    if (doc == NULL)
        return sc_error_set(err, SC_E_USAGE, NULL, "sc_trust_from_json: no document");
    const sc_json *keys = sc_json_is(doc, SC_JSON_OBJECT) ? sc_json_get(doc, "keys") : NULL;
    sc_code c = SC_OK;
    if (sc_json_is(keys, SC_JSON_ARRAY)) {
        for (const sc_json *m = doc->child; m != NULL; m = m->next)
            if (!key_is(m, "keys"))
                return sc_error_set(err, SC_E_INVALID_TRUST_FILE, "$",
                                    "%s: a key bundle has only the member \"keys\", "
                                    "not \"%.100s\"", name, m->key);
        size_t i = 0;
        for (const sc_json *k = keys->child; k != NULL && c == SC_OK; k = k->next, i++) {
            char entry[48];
            snprintf(entry, sizeof entry, "$.keys[%zu]", i);
            c = read_key(k, name, entry, out, err);
        }
    } else {
        c = read_key(doc, name, "$", out, err);
    }
    if (c != SC_OK) {
        sc_trust_free(out);
        return c;
    }
    sc_error_clear(err);
    return SC_OK;
}

sc_code sc_trust_parse(const char *bytes, size_t len, const char *name,
                       sc_trust *out, sc_error *err)
{
    if (out == NULL)
        return sc_error_set(err, SC_E_USAGE, NULL, "sc_trust_parse: no output");
    memset(out, 0, sizeof *out);
    sc_json *doc = NULL;
    sc_code c = sc_json_parse(bytes, len, &doc, err);
    if (c != SC_OK) {
        if (name != NULL)
            sc_error_prefix(err, name);
        return c;
    }
    c = sc_trust_from_json(doc, name, out, err);
    sc_json_free(doc);
    return c;
}

sc_code sc_trust_read_file(const char *path, sc_trust *out, sc_error *err)
{
    if (out == NULL || path == NULL)
        return sc_error_set(err, SC_E_USAGE, NULL, "sc_trust_read_file: no path or no output");
    memset(out, 0, sizeof *out);
    char *bytes = NULL;
    size_t len = 0;
    sc_code c = sc_file_read(path, &bytes, &len, NULL, err);
    if (c != SC_OK) {
        if (c == SC_E_OUT_OF_MEMORY)
            return c;
        char why[SC_ERROR_MESSAGE_MAX];
        snprintf(why, sizeof why, "%s", err->message);
        return sc_error_set(err, SC_E_INVALID_TRUST_FILE, path,
                            "cannot use trust file: %s", why);
    }
    c = sc_trust_parse(bytes, len, path, out, err);
    free(bytes);
    return c;
}
