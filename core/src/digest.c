/* SPDX-License-Identifier: Apache-2.0 */
/*
 * digest.c — SHA-256 through OpenSSL EVP.
 *
 * Guarantees: one code path (EVP_DigestInit_ex/Update/Final_ex with
 * EVP_sha256) for the one-shot, streaming and file forms, so all three agree
 * byte for byte; the EVP context is freed on every path; the file form never
 * holds more than one 1 MiB buffer.  libcrypto is started, and SHA-256
 * fetched, exactly once (pthread_once), by sc_jobs_thread_start before it
 * creates a thread or else by the first hash (digest_internal.h):
 * OpenSSL 3.0 started by several threads at once under a memory limit can
 * fail its start in one and crash in the others on its missing global lock
 * (seen: SIGSEGV in CRYPTO_THREAD_read_lock under prlimit --as, build
 * --jobs 4); a start that failed is out-of-memory for every later caller,
 * which then never enters libcrypto.
 */
#include "scrollcase/digest.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "scrollcase/file.h"

#include <openssl/err.h>
#include <openssl/evp.h>

#include "digest_internal.h"
#include "iobuf_internal.h"

#ifndef O_CLOEXEC
#define O_CLOEXEC 0
#endif

static pthread_once_t sha256_once = PTHREAD_ONCE_INIT;
static EVP_MD *sha256_md; /* fetched once, kept for the process's life */

static void sha256_start(void)
{
    if (OPENSSL_init_crypto(0, NULL) != 1) {
        ERR_clear_error();
        return;
    }
    sha256_md = EVP_MD_fetch(NULL, "SHA2-256", NULL);
    if (sha256_md == NULL)
        ERR_clear_error();
}

int sc_sha256_start(void)
{
    return pthread_once(&sha256_once, sha256_start) == 0 && sha256_md != NULL;
}

sc_code sc_sha256_init(sc_sha256_ctx *ctx, sc_error *err)
{
    if (ctx == NULL)
        return sc_error_set(err, SC_E_USAGE, NULL, "sc_sha256_init: no context");
    ctx->md = NULL;
    if (!sc_sha256_start())
        return sc_error_set(err, SC_E_OUT_OF_MEMORY, NULL,
                            "out of memory starting SHA-256 (OpenSSL could not start)");
    EVP_MD_CTX *md = EVP_MD_CTX_new();
    if (md == NULL)
        return sc_error_set(err, SC_E_OUT_OF_MEMORY, NULL,
                            "out of memory starting SHA-256");
    if (EVP_DigestInit_ex(md, sha256_md, NULL) != 1) {
        /* SHA-256 is built into every libcrypto: what fails here is an
         * allocation (the provider's, under a memory limit), not a bug */
        EVP_MD_CTX_free(md);
        ERR_clear_error();
        return sc_error_set(err, SC_E_OUT_OF_MEMORY, NULL,
                            "out of memory starting SHA-256 (OpenSSL could not start it)");
    }
    ctx->md = md;
    return SC_OK;
}

sc_code sc_sha256_update(sc_sha256_ctx *ctx, const void *data, size_t len,
                         sc_error *err)
{
    if (ctx == NULL || ctx->md == NULL || (data == NULL && len > 0))
        return sc_error_set(err, SC_E_USAGE, NULL,
                            "sc_sha256_update: no context or no data");
    if (len > 0 && EVP_DigestUpdate((EVP_MD_CTX *)ctx->md, data, len) != 1) {
        ERR_clear_error();
        return sc_error_set(err, SC_E_OUT_OF_MEMORY, NULL,
                            "out of memory hashing (OpenSSL could not update SHA-256)");
    }
    return SC_OK;
}

sc_code sc_sha256_final(sc_sha256_ctx *ctx, unsigned char out[SC_SHA256_LEN],
                        sc_error *err)
{
    if (ctx == NULL || ctx->md == NULL || out == NULL) {
        sc_sha256_abort(ctx);
        return sc_error_set(err, SC_E_USAGE, NULL,
                            "sc_sha256_final: no context or no output");
    }
    unsigned int n = 0;
    int ok = EVP_DigestFinal_ex((EVP_MD_CTX *)ctx->md, out, &n) == 1 &&
             n == SC_SHA256_LEN;
    sc_sha256_abort(ctx);
    if (!ok) {
        ERR_clear_error();
        return sc_error_set(err, SC_E_OUT_OF_MEMORY, NULL,
                            "out of memory hashing (OpenSSL could not finish SHA-256)");
    }
    return SC_OK;
}

void sc_sha256_abort(sc_sha256_ctx *ctx)
{
    if (ctx == NULL)
        return;
    EVP_MD_CTX_free((EVP_MD_CTX *)ctx->md);
    ctx->md = NULL;
}

sc_code sc_sha256(const void *data, size_t len, unsigned char out[SC_SHA256_LEN],
                  sc_error *err)
{
    sc_sha256_ctx ctx;
    sc_code c = sc_sha256_init(&ctx, err);
    if (c != SC_OK)
        return c;
    c = sc_sha256_update(&ctx, data, len, err);
    if (c != SC_OK) {
        sc_sha256_abort(&ctx);
        return c;
    }
    return sc_sha256_final(&ctx, out, err);
}

sc_code sc_sha256_hex(const void *data, size_t len,
                      char out[SC_SHA256_HEX_LEN + 1], sc_error *err)
{
    unsigned char d[SC_SHA256_LEN];
    sc_code c = sc_sha256(data, len, d, err);
    if (c != SC_OK)
        return c;
    sc_hex_lower(d, sizeof d, out);
    return SC_OK;
}

sc_code sc_sha256_file(const char *path, unsigned char out[SC_SHA256_LEN],
                       sc_error *err)
{
    if (path == NULL || out == NULL)
        return sc_error_set(err, SC_E_USAGE, path, "sc_sha256_file: no path or no output");
    int fd;
    sc_code oc = sc_file_open_regular(path, 0, &fd, NULL, NULL, err);
    if (oc != SC_OK)
        return oc;
    unsigned char *buf = sc_iobuf_alloc(SC_SHA256_FILE_BUFFER);
    if (buf == NULL) {
        close(fd);
        return sc_error_set(err, SC_E_OUT_OF_MEMORY, path,
                            "out of memory hashing %s", path);
    }
    sc_sha256_ctx ctx;
    sc_code c = sc_sha256_init(&ctx, err);
    while (c == SC_OK) {
        ssize_t r = read(fd, buf, SC_SHA256_FILE_BUFFER);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            int e = errno;
            c = sc_error_set(err, SC_E_IO, path, "cannot read %s: %s", path,
                             strerror(e));
            break;
        }
        if (r == 0)
            break;
        c = sc_sha256_update(&ctx, buf, (size_t)r, err);
    }
    free(buf);
    close(fd);
    if (c != SC_OK) {
        sc_sha256_abort(&ctx);
        return c;
    }
    return sc_sha256_final(&ctx, out, err);
}

void sc_hex_lower(const unsigned char *bytes, size_t n, char *out)
{
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = digits[bytes[i] >> 4];
        out[2 * i + 1] = digits[bytes[i] & 15];
    }
    out[2 * n] = '\0';
}

int sc_is_lower_hex(const char *s, size_t len, size_t n)
{
    if (s == NULL || len != n)
        return 0;
    for (size_t i = 0; i < len; i++)
        if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
            return 0;
    return 1;
}
