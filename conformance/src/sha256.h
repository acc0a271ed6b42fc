/*
 * sha256.h — SHA-256 (FIPS 180-4), used by the runner to check that every
 * input of a case is the byte sequence its case.json names.
 */
#ifndef SC_CONFORM_SHA256_H
#define SC_CONFORM_SHA256_H

#include <stddef.h>
#include <stdint.h>

typedef struct sc_sha256 {
    uint32_t h[8];
    uint64_t total; /* bytes hashed so far */
    unsigned char block[64];
    size_t used; /* bytes waiting in block */
} sc_sha256;

void sc_sha256_init(sc_sha256 *c);
void sc_sha256_update(sc_sha256 *c, const void *data, size_t len);
void sc_sha256_final(sc_sha256 *c, unsigned char digest[32]);

/* Lowercase hex of the digest of len bytes into hex (65 bytes). */
void sc_sha256_hex(const void *data, size_t len, char hex[65]);

/*
 * Hash a whole file into hex (65 bytes).  Returns 0, or -1 with errno set.
 */
int sc_sha256_file(const char *path, char hex[65]);

#endif
