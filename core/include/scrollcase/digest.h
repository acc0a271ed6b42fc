/* SPDX-License-Identifier: Apache-2.0 */
/*
 * digest.h — SHA-256, through OpenSSL's EVP interface only.
 *
 * Guarantees: every digest in libscrollcase comes from here, and here from
 * OpenSSL (no hand-written hash).  Hex output is lowercase.  A failure of
 * the crypto library is SC_E_INTERNAL (SC_E_OUT_OF_MEMORY when it could not
 * allocate); a file that cannot be read is SC_E_IO naming the file.
 */
#ifndef SCROLLCASE_DIGEST_H
#define SCROLLCASE_DIGEST_H

#include <stddef.h>

#include "scrollcase/error.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SC_SHA256_LEN 32
#define SC_SHA256_HEX_LEN 64
/* Buffer the file hasher reads through. */
#define SC_SHA256_FILE_BUFFER ((size_t)1024 * 1024)

/* Streaming state.  Owned by the caller; ended by _final or _abort. */
typedef struct sc_sha256_ctx {
    void *md; /* EVP_MD_CTX * */
} sc_sha256_ctx;

sc_code sc_sha256_init(sc_sha256_ctx *ctx, sc_error *err);
sc_code sc_sha256_update(sc_sha256_ctx *ctx, const void *data, size_t len,
                         sc_error *err);
/* Writes the digest and releases the state (also on failure). */
sc_code sc_sha256_final(sc_sha256_ctx *ctx, unsigned char out[SC_SHA256_LEN],
                        sc_error *err);
/* Release the state without a digest; safe on a zeroed or ended ctx. */
void sc_sha256_abort(sc_sha256_ctx *ctx);

/* One shot over a buffer. */
sc_code sc_sha256(const void *data, size_t len, unsigned char out[SC_SHA256_LEN],
                  sc_error *err);

/* One shot, lowercase hex into out (65 bytes: 64 digits and a NUL). */
sc_code sc_sha256_hex(const void *data, size_t len,
                      char out[SC_SHA256_HEX_LEN + 1], sc_error *err);

/* The digest of a file's bytes, read in SC_SHA256_FILE_BUFFER pieces. */
sc_code sc_sha256_file(const char *path, unsigned char out[SC_SHA256_LEN],
                       sc_error *err);

/* Lowercase hex of n bytes into out (2n + 1 bytes, NUL-terminated). */
void sc_hex_lower(const unsigned char *bytes, size_t n, char *out);

/* 1 if s is exactly n lowercase hex digits (a-f, 0-9) and nothing else. */
int sc_is_lower_hex(const char *s, size_t len, size_t n);

#ifdef __cplusplus
}
#endif

#endif
