/* SPDX-License-Identifier: Apache-2.0 */
/*
 * keys.h — Ed25519 signing keys and their files (docs/format-v3.md 8.1).
 *
 * Guarantees:
 *  - Keys come from libsodium (crypto_sign_keypair, or _seed_keypair for a
 *    given seed); the secret half is wiped (sodium_memzero) when freed.
 *  - PEM is written as 8.1 says (header, base64 in 64-character lines,
 *    footer, LF after each) and read strictly: LF or CRLF line ends and a
 *    missing final line end are accepted, nothing else — no text before or
 *    after, no blank lines, no headers, and the DER must be exactly the fixed
 *    PKCS#8 / SPKI prefix followed by 32 bytes.  Any breach is SC_E_INVALID_KEY.
 *  - The private key file is written through a temporary file with mode
 *    0600 whatever the umask, and an existing key file (private or public)
 *    is only replaced when the caller says force (else SC_E_KEY_EXISTS).
 *  - A pair loaded for signing is checked to be one pair: the public key
 *    derived from the private file equals the public file's key, else
 *    SC_E_INVALID_KEY.
 */
#ifndef SCROLLCASE_KEYS_H
#define SCROLLCASE_KEYS_H

#include <stddef.h>

#include "scrollcase/error.h"
#include "scrollcase/json.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SC_ED25519_PUBLIC_LEN 32
#define SC_ED25519_SEED_LEN 32
#define SC_ED25519_SECRET_LEN 64
#define SC_ED25519_SIGNATURE_LEN 64

#define SC_PRIVATE_KEY_FILE "signing-private.pem"
#define SC_PUBLIC_KEY_FILE "signing-public.json"
#define SC_KEY_ID_PREFIX "scrollcase-"
/* "scrollcase-" and 16 hex digits, plus a NUL. */
#define SC_KEY_ID_DERIVED_SIZE (sizeof SC_KEY_ID_PREFIX - 1 + 16 + 1)

/* A key pair that can sign.  Owned by the caller; sc_signing_key_free. */
typedef struct sc_signing_key {
    char *key_id;         /* NUL-terminated; may hold NULs (key_id_len) */
    size_t key_id_len;
    unsigned char public_key[SC_ED25519_PUBLIC_LEN];
    unsigned char secret[SC_ED25519_SECRET_LEN]; /* libsodium form: seed || public */
} sc_signing_key;

/* Where a key pair's files are (both owned; sc_key_paths_free). */
typedef struct sc_key_paths {
    char *private_path;
    char *public_path;
} sc_key_paths;

/* Call libsodium's sodium_init (idempotent); SC_E_INTERNAL if it fails. */
sc_code sc_crypto_init(sc_error *err);

/* The default keyId of a public key: "scrollcase-" + 16 hex of SHA-256. */
sc_code sc_key_id_derive(const unsigned char pub[SC_ED25519_PUBLIC_LEN],
                         char out[SC_KEY_ID_DERIVED_SIZE], sc_error *err);

/*
 * A new random pair, or (seed != NULL) the pair of that seed.  key_id NULL
 * means the derived keyId; otherwise it must be non-empty (SC_E_USAGE).
 */
sc_code sc_signing_key_generate(const unsigned char *seed, const char *key_id,
                                sc_signing_key *out, sc_error *err);
void sc_signing_key_free(sc_signing_key *k);

/*
 * 1 if pub is a canonical encoding of a point of the prime-order subgroup
 * that is not of small order (crypto_core_ed25519_is_valid_point), else 0.
 */
int sc_public_key_valid(const unsigned char pub[SC_ED25519_PUBLIC_LEN]);

/* PEM text (NUL-terminated, caller frees; the private one is secret). */
sc_code sc_private_pem_write(const unsigned char seed[SC_ED25519_SEED_LEN],
                             char **pem, size_t *len, sc_error *err);
sc_code sc_public_pem_write(const unsigned char pub[SC_ED25519_PUBLIC_LEN],
                            char **pem, size_t *len, sc_error *err);

/* Strict PEM reading (see the top); SC_E_INVALID_KEY on any breach. */
sc_code sc_private_pem_read(const char *text, size_t len,
                            unsigned char seed[SC_ED25519_SEED_LEN], sc_error *err);
sc_code sc_public_pem_read(const char *text, size_t len,
                           unsigned char pub[SC_ED25519_PUBLIC_LEN], sc_error *err);

/*
 * The public key document of 8.1: {"algorithm": "ed25519", "keyId",
 * "publicKeyBase64", "publicKeyPem"} in that order (caller frees).
 */
sc_code sc_public_key_document(const sc_signing_key *k, sc_json **out,
                               sc_error *err);

/* <dir>/signing-private.pem and <dir>/signing-public.json. */
sc_code sc_key_paths_in(const char *dir, sc_key_paths *out, sc_error *err);
void sc_key_paths_free(sc_key_paths *p);

/*
 * Write a pair into dir (created, mode 0700, with its missing parents 0755)
 * as <dir>/signing-private.pem and <dir>/signing-public.json, by
 * sc_keys_write_to.  paths (may be NULL) receives where.
 */
sc_code sc_keys_write(const char *dir, const sc_signing_key *k, int force,
                      sc_key_paths *paths, sc_error *err);

/*
 * Write a pair to two chosen files (keygen --private-key / --public-key):
 * the private file (0600 whatever the umask) and the public key document
 * (0644), each through a temporary file beside it.  Without force an
 * existing file at either path is SC_E_KEY_EXISTS and nothing is written
 * (the file is created exclusively, so one appearing meanwhile is refused
 * too); with force a regular file is replaced, anything else is SC_E_IO.
 * Two paths naming one file are SC_E_USAGE.  Missing parent directories are
 * created (the private file's last one 0700, others 0755).  The pair is
 * written whole or not at all: when the public file cannot be written, the
 * new private file is removed (or, with force, the one it replaced is put
 * back) and the directories this call made are removed again.
 */
sc_code sc_keys_write_to(const char *private_path, const char *public_path,
                         const sc_signing_key *k, int force, sc_error *err);

/*
 * Load the pair at private_path / public_path for signing.  A file that
 * cannot be read is SC_E_IO; a public file that is not JSON SC_E_INVALID_JSON;
 * anything else wrong, including two files that are not one pair,
 * SC_E_INVALID_KEY.  The keyId is the public file's.
 */
sc_code sc_keys_load(const char *private_path, const char *public_path,
                     sc_signing_key *out, sc_error *err);

/*
 * The pair local signing uses (sign, build).  The private key is the file
 * private_path (upstream's --private-key; NULL: <keys_dir>/signing-private.pem)
 * and it must be one pair with the public key file public_path (--public-key;
 * NULL: <keys_dir>/signing-public.json), whose keyId signs.  Both are read by
 * sc_keys_load, so with sc_file_open_regular: links are followed, anything
 * that is not a regular file (a FIFO, a directory) is refused without
 * waiting.  A relative path is taken from the current directory.  key_id not
 * NULL refuses a pair of another keyId (SC_E_INVALID_KEY).  keys_dir may be
 * NULL only when both paths are given.  *out is always initialised.
 */
sc_code sc_keys_load_signing(const char *keys_dir, const char *private_path,
                             const char *public_path, const char *key_id,
                             sc_signing_key *out, sc_error *err);

#ifdef __cplusplus
}
#endif

#endif
