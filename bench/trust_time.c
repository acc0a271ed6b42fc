/* SPDX-License-Identifier: Apache-2.0 */
/*
 * trust_time.c — how long loading a trust bundle (8.3) takes against its
 * size.  Usage: sc-bench-trust-time DIR N...; for each N writes DIR/trust-N.json
 * (N fresh Ed25519 keys, keyIds "bench-<i>") and prints "<N> <best seconds
 * of three sc_trust_read_file> <seconds to find every key once>".
 */
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "scrollcase/base64.h"
#include "scrollcase/trust.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
    if (argc < 3 || sodium_init() < 0) {
        fprintf(stderr, "usage: %s DIR N...\n", argv[0]);
        return 2;
    }
    for (int a = 2; a < argc; a++) {
        long n = atol(argv[a]);
        char path[4096];
        snprintf(path, sizeof path, "%s/trust-%ld.json", argv[1], n);
        FILE *f = fopen(path, "w");
        if (f == NULL)
            return 1;
        fputs("{\"keys\": [", f);
        for (long i = 0; i < n; i++) {
            unsigned char pk[crypto_sign_PUBLICKEYBYTES], sk[crypto_sign_SECRETKEYBYTES];
            crypto_sign_keypair(pk, sk);
            char *b64 = NULL;
            sc_error err;
            if (sc_base64_encode(pk, sizeof pk, &b64, NULL, &err) != SC_OK)
                return 1;
            fprintf(f, "%s\n {\"algorithm\": \"ed25519\", \"keyId\": \"bench-%ld\", "
                       "\"publicKeyBase64\": \"%s\"}", i ? "," : "", i, b64);
            free(b64);
        }
        fputs("]}\n", f);
        fclose(f);
        double best = -1, find = 0;
        for (int r = 0; r < 3; r++) {
            sc_trust t;
            memset(&t, 0, sizeof t);
            sc_error err;
            double t0 = now_s();
            if (sc_trust_read_file(path, &t, &err) != SC_OK) {
                fprintf(stderr, "%s: %s\n", path, err.message);
                return 1;
            }
            double d = now_s() - t0;
            if (best < 0 || d < best)
                best = d;
            if (r == 0) {
                t0 = now_s();
                for (long i = 0; i < n; i++) {
                    char id[32];
                    int len = snprintf(id, sizeof id, "bench-%ld", i);
                    if (sc_trust_find(&t, id, (size_t)len) == NULL)
                        return 1;
                }
                find = now_s() - t0;
            }
            sc_trust_free(&t);
        }
        printf("%ld %.6f %.6f\n", n, best, find);
        fflush(stdout);
    }
    return 0;
}
