/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_document.c — docs/format-v3.md sections 8 (keys, base64, trust files)
 * and 9 (the envelope, verification, external signers), black-box.
 *
 * Each test is named after the rule it checks.  Known-answer values (the
 * RFC 8032 test 2 key and signature, the keyId of that key, SHA-256 of "r",
 * the PEM bodies) were computed independently (Python hashlib / base64) and
 * are written here as constants.
 * Documents used as payloads are revocations manifests (10.6), the smallest
 * kind; they pass sc_manifest_check.
 *
 * JSON in this file is written with single quotes; sc_test_dq() makes it JSON.
 */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sodium.h>

#include "harness.h"
#include "scrollcase/base64.h"
#include "scrollcase/digest.h"
#include "scrollcase/envelope.h"
#include "scrollcase/error.h"
#include "scrollcase/file.h"
#include "scrollcase/json.h"
#include "scrollcase/keys.h"
#include "scrollcase/manifest.h"
#include "scrollcase/trust.h"

/* RFC 8032 section 7.1, TEST 2. */
#define RFC_SEED "4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb"
#define RFC_PUB "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c"
#define RFC_SIG "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da" \
                "085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00"
/* hashlib: "scrollcase-" + sha256(RFC_PUB)[:16] */
#define RFC_KEY_ID "scrollcase-39f713d0a644253f"
#define RFC_PUB_B64 "PUAXw+hDiVqStwqnTRt+vJyYLM8uxJaMwM1V8Sr0Zgw="
#define RFC_SPKI_BODY "MCowBQYDK2VwAyEAPUAXw+hDiVqStwqnTRt+vJyYLM8uxJaMwM1V8Sr0Zgw="
#define RFC_PKCS8_BODY "MC4CAQAwBQYDK2VwBCIEIEzNCJso/5banbbDRuwRTg9bijGfNaumJNqM9u1PuKb7"
#define RFC_PUB_PEM "-----BEGIN PUBLIC KEY-----\n" RFC_SPKI_BODY "\n-----END PUBLIC KEY-----\n"
#define RFC_PRIV_PEM "-----BEGIN PRIVATE KEY-----\n" RFC_PKCS8_BODY "\n-----END PRIVATE KEY-----\n"

/* Small-order points: the identity, and a point of order 8. */
#define IDENTITY_HEX "0100000000000000000000000000000000000000000000000000000000000000"
#define ORDER8_HEX "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a"
/* y = p: a non-canonical encoding. */
#define NONCANON_HEX "edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f"

#define REVOCATIONS "{'schemaVersion':3,'kind':'scrollcase.box.revocations'," \
                    "'updatedAt':'2026-01-02T03:04:05Z','revocations':[]}"

/* ---- helpers ----------------------------------------------------------- */


static void unhex(const char *hex, unsigned char *out)
{
    size_t n = strlen(hex) / 2;
    for (size_t i = 0; i < n; i++) {
        unsigned v = 0;
        sscanf(hex + 2 * i, "%2x", &v);
        out[i] = (unsigned char)v;
    }
}

static int b64_ok(const char *text, unsigned char *out, size_t cap, size_t *n)
{
    return sc_base64_decode(text, strlen(text), out, cap, n);
}

static sc_signing_key rfc_key(void)
{
    unsigned char seed[32];
    unhex(RFC_SEED, seed);
    sc_signing_key k;
    sc_error err;
    CU_ASSERT_FATAL(sc_signing_key_generate(seed, NULL, &k, &err) == SC_OK);
    return k;
}

/* A key from a one-byte seed pattern, with an explicit keyId. */
static sc_signing_key key_n(unsigned char n, const char *id)
{
    unsigned char seed[32];
    memset(seed, n, sizeof seed);
    sc_signing_key k;
    sc_error err;
    CU_ASSERT_FATAL(sc_signing_key_generate(seed, id, &k, &err) == SC_OK);
    return k;
}

/* The payload bytes of a manifest: the deterministic writer's text. */
static char *payload_of(const char *q, size_t *len)
{
    char *t = sc_test_dq(q);
    sc_json *v = NULL;
    sc_error err;
    char *out = NULL;
    CU_ASSERT_FATAL(sc_json_parse(t, strlen(t), &v, &err) == SC_OK);
    CU_ASSERT_FATAL(sc_json_write(v, &out, len, &err) == SC_OK);
    sc_json_free(v);
    free(t);
    return out;
}

/* Sign q's payload with keys; returns the envelope text. */
static char *signed_doc(const char *q, const sc_signing_key *keys, size_t n)
{
    size_t len = 0, tl = 0;
    char *p = payload_of(q, &len);
    char *text = NULL;
    sc_error err;
    CU_ASSERT_FATAL(sc_envelope_sign_text(p, len, keys, n, &text, &tl, &err) == SC_OK);
    free(p);
    return text;
}

static sc_trust trust_of(const sc_signing_key *keys, size_t n)
{
    sc_trust t = {0};
    sc_error err;
    for (size_t i = 0; i < n; i++)
        CU_ASSERT_FATAL(sc_trust_add(&t, keys[i].key_id, keys[i].key_id_len,
                                     keys[i].public_key, &err) == SC_OK);
    return t;
}

static sc_code verify_text(const char *text, const sc_trust *t, sc_doc_type expect,
                           sc_error *err)
{
    sc_verified_document vd;
    sc_code c = sc_envelope_verify(text, strlen(text), t, expect, &vd, err);
    sc_verified_document_free(&vd);
    return c;
}

/* Verify single-quoted envelope text against t. */
static sc_code verify_q(const char *q, const sc_trust *t, sc_error *err)
{
    char *text = sc_test_dq(q);
    sc_code c = verify_text(text, t, SC_DOC_ANY, err);
    free(text);
    return c;
}

static sc_json *parse_text(const char *text)
{
    sc_json *v = NULL;
    sc_error err;
    CU_ASSERT_FATAL(sc_json_parse(text, strlen(text), &v, &err) == SC_OK);
    return v;
}

static char *write_json(const sc_json *v)
{
    char *out = NULL;
    size_t len = 0;
    sc_error err;
    CU_ASSERT_FATAL(sc_json_write(v, &out, &len, &err) == SC_OK);
    return out;
}

static sc_code trust_q(const char *q, sc_trust *t, sc_error *err)
{
    char *text = sc_test_dq(q);
    sc_code c = sc_trust_parse(text, strlen(text), "trust.json", t, err);
    free(text);
    return c;
}

/* ---- digest ------------------------------------------------------------- */

static void digest_sha256_known_answers(void)
{
    char hex[65];
    sc_error err;
    CU_ASSERT(sc_sha256_hex("", 0, hex, &err) == SC_OK);
    CU_ASSERT_STRING_EQUAL(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    CU_ASSERT(sc_sha256_hex("abc", 3, hex, &err) == SC_OK);
    CU_ASSERT_STRING_EQUAL(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

static void digest_streaming_equals_one_shot(void)
{
    static const char msg[] = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    unsigned char a[32], b[32];
    sc_error err;
    sc_sha256_ctx ctx;
    CU_ASSERT_FATAL(sc_sha256_init(&ctx, &err) == SC_OK);
    for (size_t i = 0; i < sizeof msg - 1; i += 5)
        CU_ASSERT(sc_sha256_update(&ctx, msg + i, sizeof msg - 1 - i < 5 ? sizeof msg - 1 - i : 5,
                                   &err) == SC_OK);
    CU_ASSERT(sc_sha256_final(&ctx, a, &err) == SC_OK);
    CU_ASSERT(ctx.md == NULL);
    CU_ASSERT(sc_sha256(msg, sizeof msg - 1, b, &err) == SC_OK);
    CU_ASSERT(memcmp(a, b, 32) == 0);
    char hex[65];
    sc_hex_lower(a, 32, hex);
    CU_ASSERT_STRING_EQUAL(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    sc_sha256_abort(&ctx); /* safe after final */
}

static void digest_file_reads_in_1mib_pieces(void)
{
    char *dir = sc_test_tmpdir();
    CU_ASSERT_FATAL(dir != NULL);
    size_t n = 2 * SC_SHA256_FILE_BUFFER + 12345;
    unsigned char *buf = malloc(n);
    CU_ASSERT_FATAL(buf != NULL);
    for (size_t i = 0; i < n; i++)
        buf[i] = (unsigned char)(i * 131 + (i >> 9));
    char *path = sc_path_join(dir, "blob");
    sc_error err;
    CU_ASSERT_FATAL(sc_file_write_atomic(path, buf, n, 0644, &err) == SC_OK);
    unsigned char a[32], b[32];
    CU_ASSERT(sc_sha256_file(path, a, &err) == SC_OK);
    CU_ASSERT(sc_sha256(buf, n, b, &err) == SC_OK);
    CU_ASSERT(memcmp(a, b, 32) == 0);
    char *missing = sc_path_join(dir, "nope");
    SC_EXPECT_CODE(sc_sha256_file(missing, a, &err), SC_E_IO, &err);
    free(missing);
    free(path);
    free(buf);
    sc_test_rmtree(dir);
    free(dir);
}

/* ---- base64 (8.2) ------------------------------------------------------- */

static void base64_rfc4648_vectors(void)
{
    static const char *const in[] = {"", "f", "fo", "foo", "foob", "fooba", "foobar"};
    static const char *const out[] = {"", "Zg==", "Zm8=", "Zm9v", "Zm9vYg==", "Zm9vYmE=",
                                      "Zm9vYmFy"};
    sc_error err;
    for (size_t i = 0; i < 7; i++) {
        char *e = NULL;
        size_t el = 0;
        CU_ASSERT_FATAL(sc_base64_encode(in[i], strlen(in[i]), &e, &el, &err) == SC_OK);
        CU_ASSERT_STRING_EQUAL(e, out[i]);
        CU_ASSERT(el == strlen(out[i]));
        free(e);
        unsigned char d[16];
        size_t dl = 99;
        CU_ASSERT(b64_ok(out[i], d, sizeof d, &dl) == 1);
        CU_ASSERT(dl == strlen(in[i]) && memcmp(d, in[i], dl) == 0);
    }
    /* all 256 byte values round-trip */
    unsigned char all[256], back[256];
    for (int i = 0; i < 256; i++)
        all[i] = (unsigned char)i;
    char *e = NULL;
    size_t el = 0, bl = 0;
    CU_ASSERT_FATAL(sc_base64_encode(all, 256, &e, &el, &err) == SC_OK);
    CU_ASSERT(el == sc_base64_encoded_len(256));
    CU_ASSERT(sc_base64_decode(e, el, back, sizeof back, &bl) == 1 && bl == 256);
    CU_ASSERT(memcmp(all, back, 256) == 0);
    free(e);
}

static void base64_padding_required(void)
{
    unsigned char d[16];
    size_t n;
    CU_ASSERT(b64_ok("Zg", d, sizeof d, &n) == 0);
    CU_ASSERT(b64_ok("Zg=", d, sizeof d, &n) == 0);
    CU_ASSERT(b64_ok("Zm8", d, sizeof d, &n) == 0);
    CU_ASSERT(b64_ok("Zm9vYg", d, sizeof d, &n) == 0);
    CU_ASSERT(b64_ok("Zg===", d, sizeof d, &n) == 0);
}

static void base64_padding_only_at_the_end(void)
{
    unsigned char d[16];
    size_t n;
    CU_ASSERT(b64_ok("Zg==Zm9v", d, sizeof d, &n) == 0);
    CU_ASSERT(b64_ok("====", d, sizeof d, &n) == 0);
    CU_ASSERT(b64_ok("Z===", d, sizeof d, &n) == 0);
    CU_ASSERT(b64_ok("Z=9v", d, sizeof d, &n) == 0);
    CU_ASSERT(b64_ok("Zm=v", d, sizeof d, &n) == 0);
}

static void base64_no_whitespace_or_line_breaks(void)
{
    unsigned char d[16];
    size_t n;
    CU_ASSERT(b64_ok("Zm9v\n", d, sizeof d, &n) == 0);
    CU_ASSERT(b64_ok(" Zm9v", d, sizeof d, &n) == 0);
    CU_ASSERT(b64_ok("Zm 9vYmF", d, sizeof d, &n) == 0);
    CU_ASSERT(b64_ok("Zm9v\r\nYmFy", d, sizeof d, &n) == 0);
    CU_ASSERT(sc_base64_decode("Zm9\0", 4, d, sizeof d, &n) == 0);
}

static void base64_standard_alphabet_only(void)
{
    unsigned char d[16];
    size_t n;
    CU_ASSERT(b64_ok("+/+/", d, sizeof d, &n) == 1);
    CU_ASSERT(b64_ok("-_-_", d, sizeof d, &n) == 0); /* URL-safe alphabet */
    CU_ASSERT(b64_ok("Zm9*", d, sizeof d, &n) == 0);
    CU_ASSERT(b64_ok("Zm9\xc3", d, sizeof d, &n) == 0);
}

static void base64_noncanonical_unused_bits_rejected(void)
{
    unsigned char d[16];
    size_t n;
    CU_ASSERT(b64_ok("Zg==", d, sizeof d, &n) == 1);
    CU_ASSERT(b64_ok("Zh==", d, sizeof d, &n) == 0); /* 'f' with a stray low bit */
    CU_ASSERT(b64_ok("Zn==", d, sizeof d, &n) == 0);
    CU_ASSERT(b64_ok("Zm8=", d, sizeof d, &n) == 1);
    CU_ASSERT(b64_ok("Zm9=", d, sizeof d, &n) == 0);
    CU_ASSERT(b64_ok("Zm+=", d, sizeof d, &n) == 0);
    /* a 32-byte key whose last group has a non-zero unused bit */
    CU_ASSERT(b64_ok("PUAXw+hDiVqStwqnTRt+vJyYLM8uxJaMwM1V8Sr0Zgx=", d, sizeof d, &n) == 0);
}

static void base64_decoded_length_and_capacity(void)
{
    unsigned char d[3];
    size_t n;
    CU_ASSERT(sc_base64_decoded_len("Zm9vYg==", 8) == 4);
    CU_ASSERT(sc_base64_decoded_len("Zm9vYmE=", 8) == 5);
    CU_ASSERT(sc_base64_decoded_len("Zm9", 3) == SC_BASE64_INVALID);
    CU_ASSERT(b64_ok("Zm9vYg==", d, sizeof d, &n) == 0); /* 4 bytes do not fit in 3 */
    CU_ASSERT(b64_ok("Zm9v", d, sizeof d, &n) == 1 && n == 3);
    CU_ASSERT(b64_ok("", d, sizeof d, &n) == 1 && n == 0);
}

/* ---- keys (8.1) --------------------------------------------------------- */

static void keys_pkcs8_private_pem_exact(void)
{
    sc_signing_key k = rfc_key();
    char *pem = NULL;
    size_t len = 0;
    sc_error err;
    CU_ASSERT_FATAL(sc_private_pem_write(k.secret, &pem, &len, &err) == SC_OK);
    CU_ASSERT_STRING_EQUAL(pem, RFC_PRIV_PEM);
    CU_ASSERT(len == strlen(RFC_PRIV_PEM));
    unsigned char seed[32], want[32];
    unhex(RFC_SEED, want);
    CU_ASSERT(sc_private_pem_read(pem, len, seed, &err) == SC_OK);
    CU_ASSERT(memcmp(seed, want, 32) == 0);
    free(pem);
    sc_signing_key_free(&k);
}

static void keys_spki_public_pem_exact(void)
{
    unsigned char pub[32], back[32];
    unhex(RFC_PUB, pub);
    char *pem = NULL;
    size_t len = 0;
    sc_error err;
    CU_ASSERT_FATAL(sc_public_pem_write(pub, &pem, &len, &err) == SC_OK);
    CU_ASSERT_STRING_EQUAL(pem, RFC_PUB_PEM);
    CU_ASSERT(sc_public_pem_read(pem, len, back, &err) == SC_OK);
    CU_ASSERT(memcmp(pub, back, 32) == 0);
    free(pem);
}

static void keys_seed_gives_rfc8032_public_key(void)
{
    sc_signing_key k = rfc_key();
    unsigned char want[32];
    unhex(RFC_PUB, want);
    CU_ASSERT(memcmp(k.public_key, want, 32) == 0);
    sc_signing_key_free(&k);
}

static void keys_key_id_derivation_vector(void)
{
    unsigned char pub[32];
    unhex(RFC_PUB, pub);
    char id[SC_KEY_ID_DERIVED_SIZE];
    sc_error err;
    CU_ASSERT(sc_key_id_derive(pub, id, &err) == SC_OK);
    CU_ASSERT_STRING_EQUAL(id, RFC_KEY_ID);
    sc_signing_key k = rfc_key();
    CU_ASSERT_STRING_EQUAL(k.key_id, RFC_KEY_ID);
    sc_signing_key_free(&k);
}

static void keys_key_id_override_non_empty(void)
{
    sc_signing_key k = key_n(7, "release-2026");
    CU_ASSERT_STRING_EQUAL(k.key_id, "release-2026");
    sc_signing_key_free(&k);
    sc_error err;
    SC_EXPECT_CODE(sc_signing_key_generate(NULL, "", &k, &err), SC_E_USAGE, &err);
    /* random keys differ */
    sc_signing_key a, b;
    CU_ASSERT_FATAL(sc_signing_key_generate(NULL, NULL, &a, &err) == SC_OK);
    CU_ASSERT_FATAL(sc_signing_key_generate(NULL, NULL, &b, &err) == SC_OK);
    CU_ASSERT(memcmp(a.public_key, b.public_key, 32) != 0);
    CU_ASSERT(strncmp(a.key_id, "scrollcase-", 11) == 0 && strlen(a.key_id) == 27);
    sc_signing_key_free(&a);
    sc_signing_key_free(&b);
}

static void keys_pem_crlf_and_missing_final_newline_accepted(void)
{
    unsigned char pub[32], want[32];
    unhex(RFC_PUB, want);
    sc_error err;
    const char *crlf = "-----BEGIN PUBLIC KEY-----\r\n" RFC_SPKI_BODY "\r\n-----END PUBLIC KEY-----\r\n";
    CU_ASSERT(sc_public_pem_read(crlf, strlen(crlf), pub, &err) == SC_OK);
    CU_ASSERT(memcmp(pub, want, 32) == 0);
    const char *nofinal = "-----BEGIN PUBLIC KEY-----\n" RFC_SPKI_BODY "\n-----END PUBLIC KEY-----";
    CU_ASSERT(sc_public_pem_read(nofinal, strlen(nofinal), pub, &err) == SC_OK);
    const char *crlf_nofinal = "-----BEGIN PRIVATE KEY-----\r\n" RFC_PKCS8_BODY "\r\n-----END PRIVATE KEY-----";
    unsigned char seed[32];
    CU_ASSERT(sc_private_pem_read(crlf_nofinal, strlen(crlf_nofinal), seed, &err) == SC_OK);
}

static void keys_pem_nothing_else_accepted(void)
{
    static const char *const bad[] = {
        RFC_PUB_PEM "x",                                                     /* trailing garbage */
        RFC_PUB_PEM "\n",                                                    /* a blank line after */
        "\n" RFC_PUB_PEM,                                                    /* a blank line before */
        "text\n" RFC_PUB_PEM,                                                /* text before */
        "-----BEGIN PUBLIC KEY-----\n\n" RFC_SPKI_BODY "\n-----END PUBLIC KEY-----\n", /* blank */
        "-----BEGIN PUBLIC KEY-----\nProc-Type: 4,ENCRYPTED\n" RFC_SPKI_BODY
        "\n-----END PUBLIC KEY-----\n",                                      /* a header */
        "-----BEGIN PUBLIC KEY-----\n" RFC_SPKI_BODY " \n-----END PUBLIC KEY-----\n",
        "-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEAPUAXw+hDiVqStwqnTRt+\nvJyYLM8uxJaMwM1V8Sr0Zgw="
        "\n-----END PUBLIC KEY-----\n",                                      /* short first line */
        "-----BEGIN PUBLIC KEY-----\n" RFC_SPKI_BODY "\n-----END PUBLIC KEY-----\r", /* lone CR */
        "-----BEGIN PUBLIC KEY-----\n" RFC_SPKI_BODY "\n",                   /* no footer */
        "-----BEGIN PUBLIC KEY-----\n-----END PUBLIC KEY-----\n",            /* no body */
        "-----BEGIN PRIVATE KEY-----\n" RFC_SPKI_BODY "\n-----END PRIVATE KEY-----\n", /* label */
        "-----BEGIN PUBLIC KEY-----\n" RFC_SPKI_BODY "\n-----END PRIVATE KEY-----\n",
        /* X25519 (1.3.101.110), not Ed25519 */
        "-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VuAyEAPUAXw+hDiVqStwqnTRt+vJyYLM8uxJaMwM1V8Sr0Zgw=\n"
        "-----END PUBLIC KEY-----\n",
        /* 31-byte key */
        "-----BEGIN PUBLIC KEY-----\nMCkwBQYDK2VwAyEAPUAXw+hDiVqStwqnTRt+vJyYLM8uxJaMwM1V8Sr0Zg==\n"
        "-----END PUBLIC KEY-----\n",
        " " RFC_PUB_PEM,
        "",
    };
    unsigned char pub[32];
    sc_error err;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        sc_code c = sc_public_pem_read(bad[i], strlen(bad[i]), pub, &err);
        if (c != SC_E_INVALID_KEY)
            fprintf(stderr, "\n  case %zu accepted\n", i);
        SC_EXPECT_CODE(c, SC_E_INVALID_KEY, &err);
    }
    unsigned char seed[32];
    SC_EXPECT_CODE(sc_private_pem_read(RFC_PRIV_PEM "garbage", strlen(RFC_PRIV_PEM) + 7, seed, &err),
                SC_E_INVALID_KEY, &err);
    SC_EXPECT_CODE(sc_private_pem_read(RFC_PUB_PEM, strlen(RFC_PUB_PEM), seed, &err),
                SC_E_INVALID_KEY, &err);
}

static void keys_small_order_public_key_invalid(void)
{
    unsigned char p[32];
    unhex(IDENTITY_HEX, p);
    CU_ASSERT(sc_public_key_valid(p) == 0);
    unhex(ORDER8_HEX, p);
    CU_ASSERT(sc_public_key_valid(p) == 0);
    unhex(NONCANON_HEX, p);
    CU_ASSERT(sc_public_key_valid(p) == 0);
    unhex(RFC_PUB, p);
    CU_ASSERT(sc_public_key_valid(p) == 1);
}

static void keys_private_file_mode_0600_whatever_the_umask(void)
{
    char *dir = sc_test_tmpdir();
    CU_ASSERT_FATAL(dir != NULL);
    char *keys = sc_path_join(dir, "ws/.scrollcase/keys");
    sc_signing_key k = rfc_key();
    sc_key_paths kp;
    sc_error err;
    mode_t old = umask(0);
    sc_code c = sc_keys_write(keys, &k, 0, &kp, &err);
    umask(old);
    CU_ASSERT_FATAL(c == SC_OK);
    struct stat st;
    CU_ASSERT(stat(kp.private_path, &st) == 0 && (st.st_mode & 07777) == 0600);
    CU_ASSERT(stat(kp.public_path, &st) == 0 && (st.st_mode & 07777) == 0644);
    CU_ASSERT(stat(keys, &st) == 0 && (st.st_mode & 07777) == 0700);
    char *text = NULL;
    size_t len = 0;
    CU_ASSERT(sc_file_read(kp.private_path, &text, &len, NULL, &err) == SC_OK);
    CU_ASSERT(text && strcmp(text, RFC_PRIV_PEM) == 0);
    free(text);
    /* the public file: 8.1 members in order, deterministic writer */
    CU_ASSERT(sc_file_read(kp.public_path, &text, &len, NULL, &err) == SC_OK);
    char *want = sc_test_dq("{\n  'algorithm': 'ed25519',\n  'keyId': '" RFC_KEY_ID "',\n"
                    "  'publicKeyBase64': '" RFC_PUB_B64 "',\n  'publicKeyPem': "
                    "'-----BEGIN PUBLIC KEY-----\\n" RFC_SPKI_BODY
                    "\\n-----END PUBLIC KEY-----\\n'\n}\n");
    CU_ASSERT(text && strcmp(text, want) == 0);
    free(want);
    free(text);
    /* umask 077 changes nothing either */
    old = umask(077);
    c = sc_keys_write(keys, &k, 1, NULL, &err);
    umask(old);
    CU_ASSERT(c == SC_OK);
    CU_ASSERT(stat(kp.private_path, &st) == 0 && (st.st_mode & 07777) == 0600);
    sc_key_paths_free(&kp);
    sc_signing_key_free(&k);
    free(keys);
    sc_test_rmtree(dir);
    free(dir);
}

static void keys_keygen_refuses_overwrite_without_force(void)
{
    char *dir = sc_test_tmpdir();
    CU_ASSERT_FATAL(dir != NULL);
    sc_signing_key a = key_n(1, NULL), b = key_n(2, NULL);
    sc_key_paths kp;
    sc_error err;
    CU_ASSERT_FATAL(sc_keys_write(dir, &a, 0, &kp, &err) == SC_OK);
    SC_EXPECT_CODE(sc_keys_write(dir, &b, 0, NULL, &err), SC_E_KEY_EXISTS, &err);
    sc_signing_key l;
    CU_ASSERT(sc_keys_load(kp.private_path, kp.public_path, &l, &err) == SC_OK);
    CU_ASSERT(memcmp(l.public_key, a.public_key, 32) == 0); /* untouched */
    sc_signing_key_free(&l);
    CU_ASSERT(sc_keys_write(dir, &b, 1, NULL, &err) == SC_OK);
    CU_ASSERT(sc_keys_load(kp.private_path, kp.public_path, &l, &err) == SC_OK);
    CU_ASSERT(memcmp(l.public_key, b.public_key, 32) == 0);
    CU_ASSERT_STRING_EQUAL(l.key_id, b.key_id);
    sc_signing_key_free(&l);
    sc_key_paths_free(&kp);
    sc_signing_key_free(&a);
    sc_signing_key_free(&b);
    sc_test_rmtree(dir);
    free(dir);
}

/* The names in dir other than "." and "..", one string "a b c" in readdir order sorted. */
static void names_in(const char *dir, char *out, size_t size)
{
    char *v[32];
    size_t n = 0;
    out[0] = '\0';
    DIR *d = opendir(dir);
    if (d == NULL)
        return;
    struct dirent *de;
    while ((de = readdir(d)) != NULL && n < 32)
        if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
            v[n++] = strdup(de->d_name);
    closedir(d);
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++)
            if (strcmp(v[j], v[i]) < 0) {
                char *t = v[i];
                v[i] = v[j];
                v[j] = t;
            }
    size_t len = 0;
    for (size_t i = 0; i < n; i++) {
        len += (size_t)snprintf(out + len, len < size ? size - len : 0, "%s%s", i ? " " : "",
                                v[i]);
        free(v[i]);
    }
}

static void keys_write_to_chosen_paths_makes_directories_and_one_pair(void)
{
    char *dir = sc_test_tmpdir();
    CU_ASSERT_FATAL(dir != NULL);
    char *priv = sc_path_join(dir, "secret/deep/release-private.pem");
    char *pub = sc_path_join(dir, "public/release-public.json");
    sc_signing_key k = key_n(3, "release-2026");
    sc_error err;
    mode_t old = umask(0);
    sc_code c = sc_keys_write_to(priv, pub, &k, 0, &err);
    umask(old);
    SC_EXPECT_CODE(c, SC_OK, &err);
    struct stat st;
    CU_ASSERT(stat(priv, &st) == 0 && (st.st_mode & 07777) == 0600);
    CU_ASSERT(stat(pub, &st) == 0 && (st.st_mode & 07777) == 0644);
    char *deep = sc_path_join(dir, "secret/deep");
    CU_ASSERT(stat(deep, &st) == 0 && (st.st_mode & 07777) == 0700);
    free(deep);
    sc_signing_key l;
    SC_EXPECT_CODE(sc_keys_load(priv, pub, &l, &err), SC_OK, &err);
    CU_ASSERT(memcmp(l.public_key, k.public_key, 32) == 0);
    CU_ASSERT_STRING_EQUAL(l.key_id, "release-2026");
    sc_signing_key_free(&l);
    char names[256];
    names_in(dir, names, sizeof names);
    CU_ASSERT_STRING_EQUAL(names, "public secret"); /* nothing else, no temporary file */
    free(priv);
    free(pub);
    sc_signing_key_free(&k);
    sc_test_rmtree(dir);
    free(dir);
}

static void keys_write_to_refuses_either_existing_file_without_force(void)
{
    char *dir = sc_test_tmpdir();
    CU_ASSERT_FATAL(dir != NULL);
    char *priv = sc_path_join(dir, "p.pem"), *pub = sc_path_join(dir, "p.json");
    sc_signing_key a = key_n(1, NULL), b = key_n(2, NULL);
    sc_error err;
    /* an existing public file (a trust file kept there) is not replaced */
    sc_test_write(dir, "p.json", "KEEP");
    SC_EXPECT_CODE(sc_keys_write_to(priv, pub, &a, 0, &err), SC_E_KEY_EXISTS, &err);
    CU_ASSERT_STRING_EQUAL(err.path, pub);
    CU_ASSERT(strstr(err.message, "scrollcase keygen --force") != NULL);
    struct stat st;
    CU_ASSERT(lstat(priv, &st) != 0); /* nothing written */
    char *text = NULL;
    size_t len = 0;
    CU_ASSERT(sc_file_read(pub, &text, &len, NULL, &err) == SC_OK && strcmp(text, "KEEP") == 0);
    free(text);
    /* an existing private file, the public one absent */
    CU_ASSERT_FATAL(unlink(pub) == 0);
    sc_test_write(dir, "p.pem", "OLD");
    SC_EXPECT_CODE(sc_keys_write_to(priv, pub, &b, 0, &err), SC_E_KEY_EXISTS, &err);
    CU_ASSERT_STRING_EQUAL(err.path, priv);
    CU_ASSERT(lstat(pub, &st) != 0);
    /* a dangling link counts as existing */
    CU_ASSERT_FATAL(unlink(priv) == 0 && symlink("nowhere", priv) == 0);
    SC_EXPECT_CODE(sc_keys_write_to(priv, pub, &b, 0, &err), SC_E_KEY_EXISTS, &err);
    /* with force a link or a directory is not replaced */
    SC_EXPECT_CODE(sc_keys_write_to(priv, pub, &b, 1, &err), SC_E_IO, &err);
    CU_ASSERT(lstat(priv, &st) == 0 && S_ISLNK(st.st_mode));
    CU_ASSERT(lstat(pub, &st) != 0);
    free(priv);
    free(pub);
    sc_signing_key_free(&a);
    sc_signing_key_free(&b);
    sc_test_rmtree(dir);
    free(dir);
}

static void keys_write_to_refuses_one_file_for_both(void)
{
    char *dir = sc_test_tmpdir();
    CU_ASSERT_FATAL(dir != NULL);
    sc_signing_key a = key_n(1, NULL);
    sc_error err;
    char *p = sc_path_join(dir, "k");
    SC_EXPECT_CODE(sc_keys_write_to(p, p, &a, 0, &err), SC_E_USAGE, &err);
    /* the same file under two spellings */
    char *q = sc_path_join(dir, "./k");
    SC_EXPECT_CODE(sc_keys_write_to(p, q, &a, 1, &err), SC_E_USAGE, &err);
    char names[64];
    names_in(dir, names, sizeof names);
    CU_ASSERT_STRING_EQUAL(names, "");
    free(p);
    free(q);
    sc_signing_key_free(&a);
    sc_test_rmtree(dir);
    free(dir);
}

/* A file name the temporary file beside it cannot have (NAME_MAX), so the
 * second write fails after the first succeeded. */
static char *unwritable_name(const char *dir, const char *sub)
{
    char name[260];
    memset(name, 'n', 250);
    name[250] = '\0';
    char *d = sc_path_join(dir, sub);
    char *p = sc_path_join(d, name);
    free(d);
    return p;
}

static void keys_write_to_second_write_failing_leaves_nothing(void)
{
    char *dir = sc_test_tmpdir();
    CU_ASSERT_FATAL(dir != NULL);
    char *priv = sc_path_join(dir, "made/p.pem");
    char *pub = unwritable_name(dir, "also/made");
    sc_signing_key a = key_n(1, NULL);
    sc_error err;
    SC_EXPECT_CODE(sc_keys_write_to(priv, pub, &a, 0, &err), SC_E_IO, &err);
    char names[64];
    names_in(dir, names, sizeof names);
    CU_ASSERT_STRING_EQUAL(names, ""); /* no private key, no directory made */
    free(priv);
    free(pub);
    sc_signing_key_free(&a);
    sc_test_rmtree(dir);
    free(dir);
}

static void keys_write_to_force_failing_puts_the_old_key_back(void)
{
    char *dir = sc_test_tmpdir();
    CU_ASSERT_FATAL(dir != NULL);
    char *priv = sc_path_join(dir, "p.pem");
    char *pub = unwritable_name(dir, "pub");
    sc_signing_key a = key_n(1, NULL), b = key_n(2, NULL);
    sc_error err;
    char *good_pub = sc_path_join(dir, "good.json");
    SC_EXPECT_CODE(sc_keys_write_to(priv, good_pub, &a, 0, &err), SC_OK, &err);
    char *before = NULL, *after = NULL;
    size_t len = 0;
    CU_ASSERT_FATAL(sc_file_read(priv, &before, &len, NULL, &err) == SC_OK);
    SC_EXPECT_CODE(sc_keys_write_to(priv, pub, &b, 1, &err), SC_E_IO, &err);
    CU_ASSERT_FATAL(sc_file_read(priv, &after, &len, NULL, &err) == SC_OK);
    CU_ASSERT_STRING_EQUAL(before, after); /* the old key, byte for byte */
    struct stat st;
    CU_ASSERT(stat(priv, &st) == 0 && (st.st_mode & 07777) == 0600);
    char names[128];
    names_in(dir, names, sizeof names);
    CU_ASSERT_STRING_EQUAL(names, "good.json p.pem"); /* no backup, no "pub" directory */
    /* and a force that succeeds replaces both */
    SC_EXPECT_CODE(sc_keys_write_to(priv, good_pub, &b, 1, &err), SC_OK, &err);
    sc_signing_key l;
    SC_EXPECT_CODE(sc_keys_load(priv, good_pub, &l, &err), SC_OK, &err);
    CU_ASSERT(memcmp(l.public_key, b.public_key, 32) == 0);
    sc_signing_key_free(&l);
    names_in(dir, names, sizeof names);
    CU_ASSERT_STRING_EQUAL(names, "good.json p.pem");
    free(before);
    free(after);
    free(priv);
    free(pub);
    free(good_pub);
    sc_signing_key_free(&a);
    sc_signing_key_free(&b);
    sc_test_rmtree(dir);
    free(dir);
}

/* ---- local signing with a chosen private key (--private-key) ------------ */

static void keys_load_signing_takes_the_private_key_file_given(void)
{
    char *ws = sc_test_tmpdir(), *ci = sc_test_tmpdir();
    CU_ASSERT_FATAL(ws != NULL && ci != NULL);
    sc_signing_key a = key_n(1, "release-2026");
    sc_error err;
    /* the keys directory holds the public file only; the private key lives elsewhere */
    char *priv = sc_path_join(ci, "release-private.pem");
    char *pub = sc_path_join(ws, SC_PUBLIC_KEY_FILE);
    SC_EXPECT_CODE(sc_keys_write_to(priv, pub, &a, 0, &err), SC_OK, &err);
    sc_signing_key l;
    SC_EXPECT_CODE(sc_keys_load_signing(ws, priv, NULL, NULL, &l, &err), SC_OK, &err);
    CU_ASSERT(memcmp(l.secret, a.secret, 64) == 0);
    CU_ASSERT_STRING_EQUAL(l.key_id, "release-2026");
    sc_signing_key_free(&l);
    /* the keyId it must be */
    SC_EXPECT_CODE(sc_keys_load_signing(ws, priv, NULL, "release-2026", &l, &err), SC_OK, &err);
    sc_signing_key_free(&l);
    /* without --private-key the keys directory's private file is read: absent here */
    SC_EXPECT_CODE(sc_keys_load_signing(ws, NULL, NULL, NULL, &l, &err), SC_E_IO, &err);
    CU_ASSERT(strstr(err.message, SC_PRIVATE_KEY_FILE) != NULL);
    /* both paths given: no keys directory needed */
    SC_EXPECT_CODE(sc_keys_load_signing(NULL, priv, pub, NULL, &l, &err), SC_OK, &err);
    sc_signing_key_free(&l);
    SC_EXPECT_CODE(sc_keys_load_signing(NULL, priv, NULL, NULL, &l, &err), SC_E_USAGE, &err);
    free(priv);
    free(pub);
    sc_signing_key_free(&a);
    sc_test_rmtree(ws);
    sc_test_rmtree(ci);
    free(ws);
    free(ci);
}

static void keys_load_signing_private_key_of_another_pair_is_invalid_key(void)
{
    char *ws = sc_test_tmpdir(), *ci = sc_test_tmpdir();
    CU_ASSERT_FATAL(ws != NULL && ci != NULL);
    sc_signing_key a = key_n(1, "a"), b = key_n(2, "b");
    sc_error err;
    CU_ASSERT_FATAL(sc_keys_write(ws, &a, 0, NULL, &err) == SC_OK);
    char *priv = sc_path_join(ci, "b.pem"), *pub = sc_path_join(ci, "b.json");
    CU_ASSERT_FATAL(sc_keys_write_to(priv, pub, &b, 0, &err) == SC_OK);
    sc_signing_key l;
    /* b's private key against the keys directory's public file (a's) */
    SC_EXPECT_CODE(sc_keys_load_signing(ws, priv, NULL, NULL, &l, &err), SC_E_INVALID_KEY, &err);
    CU_ASSERT(strstr(err.message, "not one key pair") != NULL);
    CU_ASSERT(strstr(err.message, "--public-key") != NULL);
    CU_ASSERT(strstr(err.message, "scrollcase keygen --private-key PATH") != NULL);
    /* with its own public file it signs, as b */
    SC_EXPECT_CODE(sc_keys_load_signing(ws, priv, pub, NULL, &l, &err), SC_OK, &err);
    CU_ASSERT_STRING_EQUAL(l.key_id, "b");
    sc_signing_key_free(&l);
    /* a keyId that is not the pair's */
    SC_EXPECT_CODE(sc_keys_load_signing(ws, priv, pub, "a", &l, &err), SC_E_INVALID_KEY, &err);
    CU_ASSERT(strstr(err.message, "\"b\", not \"a\"") != NULL);
    CU_ASSERT(l.key_id == NULL);
    free(priv);
    free(pub);
    sc_signing_key_free(&a);
    sc_signing_key_free(&b);
    sc_test_rmtree(ws);
    sc_test_rmtree(ci);
    free(ws);
    free(ci);
}

static void keys_load_signing_refuses_missing_malformed_and_special_private_key(void)
{
    char *ws = sc_test_tmpdir();
    CU_ASSERT_FATAL(ws != NULL);
    sc_signing_key a = key_n(1, "a");
    sc_error err;
    CU_ASSERT_FATAL(sc_keys_write(ws, &a, 0, NULL, &err) == SC_OK);
    sc_signing_key l;
    char *missing = sc_path_join(ws, "nowhere.pem");
    SC_EXPECT_CODE(sc_keys_load_signing(ws, missing, NULL, NULL, &l, &err), SC_E_IO, &err);
    CU_ASSERT_STRING_EQUAL(err.path, missing);
    CU_ASSERT(strstr(err.message, "scrollcase keygen") != NULL);
    /* not PEM */
    sc_test_write(ws, "bad.pem", "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n");
    char *bad = sc_path_join(ws, "bad.pem");
    SC_EXPECT_CODE(sc_keys_load_signing(ws, bad, NULL, NULL, &l, &err), SC_E_INVALID_KEY, &err);
    CU_ASSERT_STRING_EQUAL(err.path, bad);
    /* a FIFO: refused at once (sc_file_open_regular), never waited on */
    char *fifo = sc_path_join(ws, "fifo.pem");
    CU_ASSERT_FATAL(mkfifo(fifo, 0600) == 0);
    SC_EXPECT_CODE(sc_keys_load_signing(ws, fifo, NULL, NULL, &l, &err), SC_E_IO, &err);
    /* a directory */
    SC_EXPECT_CODE(sc_keys_load_signing(ws, ws, NULL, NULL, &l, &err), SC_E_IO, &err);
    /* a link to the key is followed, as for the keys directory's own file */
    char *link = sc_path_join(ws, "link.pem"), *real = sc_path_join(ws, SC_PRIVATE_KEY_FILE);
    CU_ASSERT_FATAL(symlink(real, link) == 0);
    SC_EXPECT_CODE(sc_keys_load_signing(ws, link, NULL, NULL, &l, &err), SC_OK, &err);
    sc_signing_key_free(&l);
    /* a link to the FIFO is refused like the FIFO */
    CU_ASSERT_FATAL(unlink(link) == 0 && symlink(fifo, link) == 0);
    SC_EXPECT_CODE(sc_keys_load_signing(ws, link, NULL, NULL, &l, &err), SC_E_IO, &err);
    free(missing);
    free(bad);
    free(fifo);
    free(link);
    free(real);
    sc_signing_key_free(&a);
    sc_test_rmtree(ws);
    free(ws);
}

static void keys_load_checks_one_pair(void)
{
    char *d1 = sc_test_tmpdir(), *d2 = sc_test_tmpdir();
    CU_ASSERT_FATAL(d1 != NULL && d2 != NULL);
    sc_signing_key a = key_n(1, "a"), b = key_n(2, "b");
    sc_key_paths p1, p2;
    sc_error err;
    CU_ASSERT_FATAL(sc_keys_write(d1, &a, 0, &p1, &err) == SC_OK);
    CU_ASSERT_FATAL(sc_keys_write(d2, &b, 0, &p2, &err) == SC_OK);
    sc_signing_key l;
    CU_ASSERT(sc_keys_load(p1.private_path, p1.public_path, &l, &err) == SC_OK);
    CU_ASSERT_STRING_EQUAL(l.key_id, "a");
    CU_ASSERT(memcmp(l.secret, a.secret, 64) == 0);
    sc_signing_key_free(&l);
    SC_EXPECT_CODE(sc_keys_load(p1.private_path, p2.public_path, &l, &err), SC_E_INVALID_KEY, &err);
    /* a public file with base64 only is one key too */
    sc_test_write(d2, "b64.json", "{\"keyId\": \"a\", \"publicKeyBase64\": \"placeholder\"}");
    char *b64 = NULL;
    CU_ASSERT_FATAL(sc_base64_encode(a.public_key, 32, &b64, NULL, &err) == SC_OK);
    char json[256];
    snprintf(json, sizeof json, "{\"keyId\": \"a\", \"publicKeyBase64\": \"%s\"}", b64);
    free(b64);
    sc_test_write(d2, "b64.json", json);
    char *pb = sc_path_join(d2, "b64.json");
    CU_ASSERT(sc_keys_load(p1.private_path, pb, &l, &err) == SC_OK);
    sc_signing_key_free(&l);
    /* shapes that are not one public key */
    sc_test_write(d2, "b64.json", "{\"keys\": []}");
    SC_EXPECT_CODE(sc_keys_load(p1.private_path, pb, &l, &err), SC_E_INVALID_KEY, &err);
    sc_test_write(d2, "b64.json", "{\"keyId\": \"a\"}");
    SC_EXPECT_CODE(sc_keys_load(p1.private_path, pb, &l, &err), SC_E_INVALID_KEY, &err);
    sc_test_write(d2, "b64.json", "{\"keyId\": ");
    SC_EXPECT_CODE(sc_keys_load(p1.private_path, pb, &l, &err), SC_E_INVALID_JSON, &err);
    /* a broken private file */
    sc_test_write(d2, "priv.pem", RFC_PUB_PEM);
    char *pp = sc_path_join(d2, "priv.pem");
    SC_EXPECT_CODE(sc_keys_load(pp, p1.public_path, &l, &err), SC_E_INVALID_KEY, &err);
    char *none = sc_path_join(d2, "none.pem");
    SC_EXPECT_CODE(sc_keys_load(none, p1.public_path, &l, &err), SC_E_IO, &err);
    free(none);
    free(pp);
    free(pb);
    sc_key_paths_free(&p1);
    sc_key_paths_free(&p2);
    sc_signing_key_free(&a);
    sc_signing_key_free(&b);
    sc_test_rmtree(d1);
    sc_test_rmtree(d2);
    free(d1);
    free(d2);
}

/* ---- trust files (8.3) -------------------------------------------------- */

#define PEM_Q "'-----BEGIN PUBLIC KEY-----\\n" RFC_SPKI_BODY "\\n-----END PUBLIC KEY-----\\n'"

static void trust_single_key_by_pem_base64_or_both(void)
{
    static const char *const good[] = {
        "{'keyId':'k','publicKeyPem':" PEM_Q "}",
        "{'keyId':'k','publicKeyBase64':'" RFC_PUB_B64 "'}",
        "{'keyId':'k','algorithm':'ed25519','publicKeyPem':" PEM_Q ",'publicKeyBase64':'" RFC_PUB_B64 "'}",
        "{'keyId':'k','publicKeyPem':null,'publicKeyBase64':'" RFC_PUB_B64 "'}",
        "{'keyId':'k','publicKeyPem':" PEM_Q ",'publicKeyBase64':null}",
    };
    unsigned char want[32];
    unhex(RFC_PUB, want);
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        sc_trust t;
        sc_error err;
        sc_code c = trust_q(good[i], &t, &err);
        SC_EXPECT_CODE(c, SC_OK, &err);
        if (c != SC_OK)
            continue;
        CU_ASSERT(t.count == 1);
        const sc_trusted_key *k = sc_trust_find(&t, "k", 1);
        CU_ASSERT(k != NULL && memcmp(k->public_key, want, 32) == 0);
        CU_ASSERT(sc_trust_find(&t, "K", 1) == NULL);
        sc_trust_free(&t);
    }
}

static void trust_bundle_and_empty_bundle(void)
{
    sc_trust t;
    sc_error err;
    sc_signing_key a = key_n(3, NULL);
    char *b64 = NULL;
    CU_ASSERT_FATAL(sc_base64_encode(a.public_key, 32, &b64, NULL, &err) == SC_OK);
    char q[512];
    snprintf(q, sizeof q, "{'keys':[{'keyId':'one','publicKeyPem':" PEM_Q "},"
                          "{'keyId':'two','publicKeyBase64':'%s'}]}", b64);
    free(b64);
    CU_ASSERT(trust_q(q, &t, &err) == SC_OK);
    CU_ASSERT(t.count == 2);
    const sc_trusted_key *k = sc_trust_find(&t, "two", 3);
    CU_ASSERT(k != NULL && memcmp(k->public_key, a.public_key, 32) == 0);
    sc_trust_free(&t);
    CU_ASSERT(trust_q("{'keys':[]}", &t, &err) == SC_OK);
    CU_ASSERT(t.count == 0);
    sc_trust_free(&t);
    sc_signing_key_free(&a);
}

/* 8.3 with a large bundle: every key is found by its keyId (the index
 * survives growth), order is kept, a repeated keyId is still refused. */
static void trust_large_bundle_found_by_key_id(void)
{
    sc_trust t = {0};
    sc_error err;
    sc_signing_key a = key_n(3, NULL);
    enum { N = 5000 };
    for (int i = 0; i < N; i++) {
        char id[32];
        int n = snprintf(id, sizeof id, "key-%d", i);
        CU_ASSERT_FATAL(sc_trust_add(&t, id, (size_t)n, a.public_key, &err) == SC_OK);
    }
    CU_ASSERT_EQUAL(t.count, N);
    for (int i = 0; i < N; i++) {
        char id[32];
        int n = snprintf(id, sizeof id, "key-%d", i);
        const sc_trusted_key *k = sc_trust_find(&t, id, (size_t)n);
        CU_ASSERT_FATAL(k != NULL);
        CU_ASSERT_PTR_EQUAL(k, &t.keys[i]);
    }
    CU_ASSERT_PTR_NULL(sc_trust_find(&t, "key-5000", 8));
    CU_ASSERT_PTR_NULL(sc_trust_find(&t, "key-", 4));
    SC_EXPECT_CODE(sc_trust_add(&t, "key-4321", 8, a.public_key, &err), SC_E_INVALID_TRUST_FILE,
                   &err);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "trusted twice"));
    sc_trust_free(&t);
    CU_ASSERT_EQUAL(t.count, 0);
    CU_ASSERT_PTR_NULL(sc_trust_find(&t, "key-1", 5));
    sc_signing_key_free(&a);
}

static void trust_shapes_rejected(void)
{
    struct { const char *q; const char *entry; } bad[] = {
        {"[]", "$"},
        {"'key'", "$"},
        {"null", "$"},
        {"{}", "$"},
        {"{'keys':{}}", "$"},               /* keys not an array: read as a key */
        {"{'keys':{'keyId':'k','publicKeyPem':" PEM_Q "}}", "$"},
        {"{'keys':[],'extra':1}", "$"},
        {"{'keys':[1]}", "$.keys[0]"},
        {"{'keys':[{'keyId':'k','publicKeyPem':" PEM_Q "},[]]}", "$.keys[1]"},
        {"{'keyId':'','publicKeyPem':" PEM_Q "}", "$"},
        {"{'keyId':7,'publicKeyPem':" PEM_Q "}", "$"},
        {"{'keyId':null,'publicKeyPem':" PEM_Q "}", "$"},
        {"{'publicKeyPem':" PEM_Q "}", "$"},
        {"{'keyId':'k','algorithm':'Ed25519','publicKeyPem':" PEM_Q "}", "$"},
        {"{'keyId':'k','algorithm':null,'publicKeyPem':" PEM_Q "}", "$"},
        {"{'keyId':'k','publicKeyPem':5}", "$"},
        {"{'keyId':'k','publicKeyBase64':[]}", "$"},
        {"{'keyId':'k'}", "$"},
        {"{'keyId':'k','publicKeyPem':null,'publicKeyBase64':null}", "$"},
        {"{'keyId':'k','publicKeyPem':" PEM_Q ",'comment':'x'}", "$"},
        {"{'keyId':'k','publicKeyPem':'-----BEGIN PUBLIC KEY-----'}", "$"},
        {"{'keyId':'k','publicKeyBase64':'" RFC_PUB_B64 " '}", "$"},
        {"{'keyId':'k','publicKeyBase64':'PUAXw+hDiVqStwqnTRt+vJyYLM8uxJaMwM1V8Sr0Zg=='}", "$"},
        {"{'keyId':'k','publicKeyBase64':'PUAXw+hDiVqStwqnTRt+vJyYLM8uxJaMwM1V8Sr0Zgx='}", "$"},
        {"{'keyId':'k','publicKeyBase64':'" RFC_SPKI_BODY "'}", "$"},
        {"{'keys':[{'keyId':'k','publicKeyPem':" PEM_Q "},{'keyId':'k','publicKeyBase64':'"
         RFC_PUB_B64 "'}]}", "$.keys[1]"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        sc_trust t;
        sc_error err;
        sc_code c = trust_q(bad[i].q, &t, &err);
        if (c != SC_E_INVALID_TRUST_FILE)
            fprintf(stderr, "\n  case %zu: %s\n", i, bad[i].q);
        SC_EXPECT_CODE(c, SC_E_INVALID_TRUST_FILE, &err);
        CU_ASSERT_STRING_EQUAL(err.path, bad[i].entry);
        CU_ASSERT(t.count == 0 && t.keys == NULL);
        if (c == SC_OK)
            sc_trust_free(&t);
    }
}

static void trust_pem_and_base64_must_be_one_key(void)
{
    sc_signing_key a = key_n(4, NULL);
    char *b64 = NULL;
    sc_error err;
    CU_ASSERT_FATAL(sc_base64_encode(a.public_key, 32, &b64, NULL, &err) == SC_OK);
    char q[512];
    snprintf(q, sizeof q, "{'keyId':'k','publicKeyPem':" PEM_Q ",'publicKeyBase64':'%s'}", b64);
    free(b64);
    sc_trust t;
    SC_EXPECT_CODE(trust_q(q, &t, &err), SC_E_INVALID_TRUST_FILE, &err);
    CU_ASSERT(strstr(err.message, "keyId \"k\"") != NULL);
    sc_signing_key_free(&a);
}

/* base64 of 32 raw bytes given in hex, as a trust file key. */
static sc_code trust_raw(const char *hex, sc_error *err)
{
    unsigned char raw[32];
    unhex(hex, raw);
    char *b64 = NULL;
    CU_ASSERT_FATAL(sc_base64_encode(raw, 32, &b64, NULL, err) == SC_OK);
    char q[256];
    snprintf(q, sizeof q, "{'keys':[{'keyId':'bad','publicKeyBase64':'%s'}]}", b64);
    free(b64);
    sc_trust t;
    sc_code c = trust_q(q, &t, err);
    sc_trust_free(&t);
    return c;
}

static void trust_small_order_public_key_refused(void)
{
    sc_error err;
    SC_EXPECT_CODE(trust_raw(IDENTITY_HEX, &err), SC_E_INVALID_TRUST_FILE, &err);
    CU_ASSERT_STRING_EQUAL(err.path, "$.keys[0]");
    SC_EXPECT_CODE(trust_raw(ORDER8_HEX, &err), SC_E_INVALID_TRUST_FILE, &err);
    SC_EXPECT_CODE(trust_raw(NONCANON_HEX, &err), SC_E_INVALID_TRUST_FILE, &err);
    SC_EXPECT_CODE(trust_raw(RFC_PUB, &err), SC_OK, &err);
}

static void trust_mixed_order_public_key_refused(void)
{
    /* a valid key plus a point of order 8: on the curve, not in the
     * prime-order subgroup */
    unsigned char pub[32], t8[32], mixed[32];
    unhex(RFC_PUB, pub);
    unhex(ORDER8_HEX, t8);
    CU_ASSERT_FATAL(sodium_init() >= 0);
    CU_ASSERT_FATAL(crypto_core_ed25519_add(mixed, pub, t8) == 0);
    char hex[65];
    sc_hex_lower(mixed, 32, hex);
    sc_error err;
    SC_EXPECT_CODE(trust_raw(hex, &err), SC_E_INVALID_TRUST_FILE, &err);
}

static void trust_not_json_is_invalid_json(void)
{
    sc_trust t;
    sc_error err;
    SC_EXPECT_CODE(sc_trust_parse("{'keys':[]}", 11, "t", &t, &err), SC_E_INVALID_JSON, &err);
    SC_EXPECT_CODE(sc_trust_parse("", 0, "t", &t, &err), SC_E_INVALID_JSON, &err);
    SC_EXPECT_CODE(sc_trust_parse("{\"keys\":[]} x", 13, "t", &t, &err), SC_E_INVALID_JSON, &err);
}

static void trust_file_unreadable_is_invalid_trust_file(void)
{
    char *dir = sc_test_tmpdir();
    CU_ASSERT_FATAL(dir != NULL);
    char *p = sc_path_join(dir, "missing.json");
    sc_trust t;
    sc_error err;
    SC_EXPECT_CODE(sc_trust_read_file(p, &t, &err), SC_E_INVALID_TRUST_FILE, &err);
    SC_EXPECT_CODE(sc_trust_read_file(dir, &t, &err), SC_E_INVALID_TRUST_FILE, &err);
    sc_test_write(dir, "ok.json", "{\"keys\": []}");
    char *ok = sc_path_join(dir, "ok.json");
    CU_ASSERT(sc_trust_read_file(ok, &t, &err) == SC_OK);
    sc_trust_free(&t);
    free(ok);
    free(p);
    sc_test_rmtree(dir);
    free(dir);
}

/* ---- the envelope (9.1) ------------------------------------------------- */

static void envelope_signature_is_pure_ed25519(void)
{
    /* RFC 8032 TEST 2: the one-byte message 0x72 */
    sc_signing_key k = rfc_key();
    sc_json *env = NULL;
    sc_error err;
    CU_ASSERT_FATAL(sc_envelope_sign("r", 1, &k, 1, &env, &err) == SC_OK);
    const sc_json *sig = sc_json_get(sc_json_at(sc_json_get(env, "signatures"), 0),
                                     "signatureBase64");
    unsigned char got[64], want[64];
    size_t n = 0;
    CU_ASSERT_FATAL(sig != NULL);
    CU_ASSERT(sc_base64_decode(sig->string, sig->length, got, sizeof got, &n) == 1 && n == 64);
    unhex(RFC_SIG, want);
    CU_ASSERT(memcmp(got, want, 64) == 0);
    CU_ASSERT_STRING_EQUAL(sc_json_cstr(sc_json_get(env, "payloadBase64")), "cg==");
    CU_ASSERT_STRING_EQUAL(sc_json_cstr(sc_json_get(env, "payloadSha256")),
                           "454349e422f05297191ead13e21d3db520e5abef52055e4964b82fb213f593a1");
    sc_json_free(env);
    sc_signing_key_free(&k);
}

static void envelope_members_in_order_deterministic_text(void)
{
    sc_signing_key k = rfc_key();
    char *text = signed_doc(REVOCATIONS, &k, 1);
    sc_json *v = parse_text(text);
    static const char *const order[] = {"schemaVersion", "payloadEncoding", "payloadBase64",
                                        "payloadSha256", "signatures"};
    size_t i = 0;
    for (const sc_json *m = v->child; m != NULL; m = m->next, i++)
        CU_ASSERT(i < 5 && strcmp(m->key, order[i]) == 0);
    CU_ASSERT(i == 5);
    uint64_t sv = 0;
    CU_ASSERT(sc_json_uint53(sc_json_get(v, "schemaVersion"), &sv) && sv == 3);
    char *again = write_json(v);
    CU_ASSERT_STRING_EQUAL(text, again);
    CU_ASSERT(strncmp(text, "{\n  \"schemaVersion\": 3,\n  \"payloadEncoding\": \"base64-json-utf8\",\n", 64) == 0);
    /* the payload is the deterministic writer's text of the manifest */
    size_t plen = 0;
    char *payload = payload_of(REVOCATIONS, &plen);
    const sc_json *b = sc_json_get(v, "payloadBase64");
    unsigned char *dec = malloc(b->length);
    size_t n = 0;
    CU_ASSERT(sc_base64_decode(b->string, b->length, dec, b->length, &n) == 1);
    CU_ASSERT(n == plen && memcmp(dec, payload, n) == 0);
    free(dec);
    free(payload);
    free(again);
    sc_json_free(v);
    free(text);
    sc_signing_key_free(&k);
}

static void envelope_sign_needs_payload_and_key(void)
{
    sc_signing_key k = rfc_key();
    sc_json *env = NULL;
    sc_error err;
    SC_EXPECT_CODE(sc_envelope_sign("", 0, &k, 1, &env, &err), SC_E_USAGE, &err);
    SC_EXPECT_CODE(sc_envelope_sign("x", 1, &k, 0, &env, &err), SC_E_USAGE, &err);
    CU_ASSERT(env == NULL);
    sc_signing_key_free(&k);
}

/* ---- verification (9.2) ------------------------------------------------- */

static void verify_accepts_and_reports(void)
{
    sc_signing_key k = rfc_key();
    sc_trust t = trust_of(&k, 1);
    char *text = signed_doc(REVOCATIONS, &k, 1);
    sc_verified_document vd;
    sc_error err;
    sc_code c = sc_envelope_verify(text, strlen(text), &t, SC_DOC_ANY, &vd, &err);
    SC_EXPECT_CODE(c, SC_OK, &err);
    if (c == SC_OK) {
        CU_ASSERT(vd.info.type == SC_DOC_REVOCATIONS);
        CU_ASSERT_STRING_EQUAL(vd.info.kind, "scrollcase.box.revocations");
        CU_ASSERT_STRING_EQUAL(vd.info.ns, "scrollcase.box");
        CU_ASSERT_STRING_EQUAL(vd.info.identity, "revocations 2026-01-02T03:04:05Z");
        CU_ASSERT_STRING_EQUAL(vd.key_id, RFC_KEY_ID);
        size_t plen = 0;
        char *p = payload_of(REVOCATIONS, &plen);
        char hex[65];
        CU_ASSERT(sc_sha256_hex(p, plen, hex, &err) == SC_OK);
        CU_ASSERT_STRING_EQUAL(vd.payload_sha256, hex);
        free(p);
        CU_ASSERT(sc_json_is(vd.payload, SC_JSON_OBJECT));
        CU_ASSERT_STRING_EQUAL(sc_json_cstr(sc_json_get(vd.payload, "updatedAt")),
                               "2026-01-02T03:04:05Z");
    }
    sc_verified_document_free(&vd);
    SC_EXPECT_CODE(verify_text(text, &t, SC_DOC_REVOCATIONS, &err), SC_OK, &err);
    free(text);
    sc_trust_free(&t);
    sc_signing_key_free(&k);
}

static void verify_step2_strict_json_then_object(void)
{
    sc_trust t = {0};
    sc_error err;
    SC_EXPECT_CODE(verify_text("", &t, SC_DOC_ANY, &err), SC_E_INVALID_JSON, &err);
    SC_EXPECT_CODE(verify_text("{\"schemaVersion\":3,\"schemaVersion\":3}", &t, SC_DOC_ANY, &err),
                SC_E_INVALID_JSON, &err);
    SC_EXPECT_CODE(verify_text("{\"schemaVersion\":2} x", &t, SC_DOC_ANY, &err), SC_E_INVALID_JSON, &err);
    SC_EXPECT_CODE(verify_text("[]", &t, SC_DOC_ANY, &err), SC_E_INVALID_ENVELOPE, &err);
    SC_EXPECT_CODE(verify_text("\"x\"", &t, SC_DOC_ANY, &err), SC_E_INVALID_ENVELOPE, &err);
    SC_EXPECT_CODE(verify_text("null", &t, SC_DOC_ANY, &err), SC_E_INVALID_ENVELOPE, &err);
}

static void verify_step3_v1_v2_envelopes_refused_before_schema(void)
{
    sc_trust t = {0};
    sc_error err;
    SC_EXPECT_CODE(verify_q("{'schemaVersion':2}", &t, &err), SC_E_DEPRECATED_SCHEMA_VERSION, &err);
    SC_EXPECT_CODE(verify_q("{'schemaVersion':1}", &t, &err), SC_E_DEPRECATED_SCHEMA_VERSION, &err);
    SC_EXPECT_CODE(verify_q("{'junk':[],'schemaVersion':1,'signatures':7}", &t, &err),
                SC_E_DEPRECATED_SCHEMA_VERSION, &err);
    /* a whole, validly signed v2 envelope */
    sc_signing_key k = rfc_key();
    sc_trust tk = trust_of(&k, 1);
    char *text = signed_doc(REVOCATIONS, &k, 1);
    sc_json *v = parse_text(text);
    sc_json_object_set(v, "schemaVersion", sc_json_new_number(2));
    char *v2 = write_json(v);
    SC_EXPECT_CODE(verify_text(v2, &tk, SC_DOC_ANY, &err), SC_E_DEPRECATED_SCHEMA_VERSION, &err);
    free(v2);
    sc_json_free(v);
    free(text);
    sc_trust_free(&tk);
    sc_signing_key_free(&k);
}

static void verify_step3_other_versions_unsupported(void)
{
    static const char *const bad[] = {"0", "4", "'3'", "3.0", "2.0", "1e0", "null", "true",
                                      "-2", "[3]"};
    sc_trust t = {0};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char q[64];
        snprintf(q, sizeof q, "{'schemaVersion':%s}", bad[i]);
        sc_error err;
        SC_EXPECT_CODE(verify_q(q, &t, &err), SC_E_UNSUPPORTED_SCHEMA_VERSION, &err);
    }
}

/* Replace (or with value NULL remove) one member of a valid envelope. */
static char *mutate(const char *text, const char *member, const char *value_q)
{
    sc_json *v = parse_text(text);
    if (value_q == NULL) {
        sc_json_object_remove(v, member);
    } else {
        char *vt = sc_test_dq(value_q);
        sc_json *nv = parse_text(vt);
        free(vt);
        sc_json_object_set(v, member, nv);
    }
    char *out = write_json(v);
    sc_json_free(v);
    return out;
}

static void verify_step4_every_member_invalid_envelope(void)
{
    sc_signing_key k = rfc_key();
    sc_trust t = trust_of(&k, 1);
    char *text = signed_doc(REVOCATIONS, &k, 1);
    struct { const char *member; const char *value; const char *path; } bad[] = {
        {"schemaVersion", NULL, "$.schemaVersion"},
        {"payloadEncoding", NULL, "$.payloadEncoding"},
        {"payloadEncoding", "'base64'", "$.payloadEncoding"},
        {"payloadEncoding", "null", "$.payloadEncoding"},
        {"payloadBase64", NULL, "$.payloadBase64"},
        {"payloadBase64", "''", "$.payloadBase64"},
        {"payloadBase64", "42", "$.payloadBase64"},
        {"payloadSha256", NULL, "$.payloadSha256"},
        {"payloadSha256", "'" "E3B0C44298FC1C149AFBF4C8996FB92427AE41E4649B934CA495991B7852B855" "'",
         "$.payloadSha256"},
        {"payloadSha256", "'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b85'",
         "$.payloadSha256"},
        {"payloadSha256", "'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855 '",
         "$.payloadSha256"},
        {"payloadSha256", "'g3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'",
         "$.payloadSha256"},
        {"signatures", NULL, "$.signatures"},
        {"signatures", "[]", "$.signatures"},
        {"signatures", "{}", "$.signatures"},
        {"signatures", "[7]", "$.signatures[0]"},
        {"signatures", "[{'keyId':'k','signatureBase64':''}]", "$.signatures[0].algorithm"},
        {"signatures", "[{'algorithm':'ED25519','keyId':'k','signatureBase64':''}]",
         "$.signatures[0].algorithm"},
        {"signatures", "[{'algorithm':'ed25519','signatureBase64':''}]", "$.signatures[0].keyId"},
        {"signatures", "[{'algorithm':'ed25519','keyId':'','signatureBase64':''}]",
         "$.signatures[0].keyId"},
        {"signatures", "[{'algorithm':'ed25519','keyId':1,'signatureBase64':''}]",
         "$.signatures[0].keyId"},
        {"signatures", "[{'algorithm':'ed25519','keyId':'k'}]", "$.signatures[0].signatureBase64"},
        {"signatures", "[{'algorithm':'ed25519','keyId':'k','signatureBase64':null}]",
         "$.signatures[0].signatureBase64"},
        {"signatures", "[{'algorithm':'ed25519','keyId':'k','signatureBase64':'','x':1}]",
         "$.signatures[0].x"},
        {"signatures", "[{'algorithm':'ed25519','keyId':'k','signatureBase64':''},[]]",
         "$.signatures[1]"},
        {"comment", "'hello'", "$.comment"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char *m = mutate(text, bad[i].member, bad[i].value);
        sc_error err;
        sc_code c = verify_text(m, &t, SC_DOC_ANY, &err);
        if (c != SC_E_INVALID_ENVELOPE)
            fprintf(stderr, "\n  case %zu (%s)\n", i, bad[i].member);
        SC_EXPECT_CODE(c, SC_E_INVALID_ENVELOPE, &err);
        CU_ASSERT_STRING_EQUAL(err.path, bad[i].path);
        free(m);
    }
    free(text);
    sc_trust_free(&t);
    sc_signing_key_free(&k);
}

static void verify_step4_members_checked_in_order(void)
{
    sc_trust t = {0};
    sc_error err;
    /* encoding and hash both wrong: the encoding (earlier in 9.1) is reported */
    SC_EXPECT_CODE(verify_q("{'signatures':[],'payloadSha256':'x','payloadBase64':'','schemaVersion':3,"
                         "'payloadEncoding':'utf8','zzz':1}", &t, &err),
                SC_E_INVALID_ENVELOPE, &err);
    CU_ASSERT_STRING_EQUAL(err.path, "$.payloadEncoding");
    /* as in 5.5, a missing member is reported before a wrong value */
    SC_EXPECT_CODE(verify_q("{'schemaVersion':3,'payloadEncoding':'utf8','payloadBase64':'e30=',"
                         "'payloadSha256':'x'}", &t, &err), SC_E_INVALID_ENVELOPE, &err);
    CU_ASSERT_STRING_EQUAL(err.path, "$.signatures");
    SC_EXPECT_CODE(verify_q("{'schemaVersion':3,'payloadEncoding':'base64-json-utf8','payloadBase64':"
                         "'e30=','payloadSha256':'" "44136fa355b3678a1146ad16f7e8649e"
                         "94fb4fc21fe77e8310c060f61caaff8a" "','signatures':[{'algorithm':'x',"
                         "'keyId':''}]}", &t, &err), SC_E_INVALID_ENVELOPE, &err);
    CU_ASSERT_STRING_EQUAL(err.path, "$.signatures[0].signatureBase64");
    /* an unknown member is reported only after every listed one passes */
    SC_EXPECT_CODE(verify_q("{'zzz':1,'schemaVersion':3,'payloadEncoding':'base64-json-utf8',"
                         "'payloadBase64':'e30=','payloadSha256':'" "44136fa355b3678a1146ad16f7e8649e"
                         "94fb4fc21fe77e8310c060f61caaff8a" "','signatures':[]}", &t, &err),
                SC_E_INVALID_ENVELOPE, &err);
    CU_ASSERT_STRING_EQUAL(err.path, "$.signatures");
}

static void verify_step5_altered_payload(void)
{
    sc_signing_key k = rfc_key();
    sc_trust t = trust_of(&k, 1);
    char *text = signed_doc(REVOCATIONS, &k, 1);
    sc_error err;
    /* the bytes changed, the hash kept */
    char *m = mutate(text, "payloadBase64", "'e30K'");
    SC_EXPECT_CODE(verify_text(m, &t, SC_DOC_ANY, &err), SC_E_ALTERED_PAYLOAD, &err);
    free(m);
    /* the hash changed */
    m = mutate(text, "payloadSha256",
               "'0000000000000000000000000000000000000000000000000000000000000000'");
    SC_EXPECT_CODE(verify_text(m, &t, SC_DOC_ANY, &err), SC_E_ALTERED_PAYLOAD, &err);
    free(m);
    /* payloadBase64 that does not decode strictly */
    static const char *const undecodable[] = {"'e30'", "'e3 0='", "'e31='", "'e30K\\n'", "'!!!!'"};
    for (size_t i = 0; i < 5; i++) {
        m = mutate(text, "payloadBase64", undecodable[i]);
        SC_EXPECT_CODE(verify_text(m, &t, SC_DOC_ANY, &err), SC_E_ALTERED_PAYLOAD, &err);
        free(m);
    }
    /* step 5 comes before step 6: no trusted key, still altered-payload */
    sc_trust none = {0};
    m = mutate(text, "payloadBase64", "'e30K'");
    SC_EXPECT_CODE(verify_text(m, &none, SC_DOC_ANY, &err), SC_E_ALTERED_PAYLOAD, &err);
    free(m);
    free(text);
    sc_trust_free(&t);
    sc_signing_key_free(&k);
}

static void verify_step6_untrusted_keyid_skipped_then_valid_accepted(void)
{
    sc_signing_key keys[3] = {key_n(5, "old"), key_n(6, "unknown"), key_n(7, "new")};
    /* signatures by unknown then new; the verifier trusts old and new */
    char *text = signed_doc(REVOCATIONS, keys + 1, 2);
    sc_trust t = {0};
    sc_error err;
    CU_ASSERT_FATAL(sc_trust_add(&t, "old", 3, keys[0].public_key, &err) == SC_OK);
    CU_ASSERT_FATAL(sc_trust_add(&t, "new", 3, keys[2].public_key, &err) == SC_OK);
    sc_verified_document vd;
    SC_EXPECT_CODE(sc_envelope_verify(text, strlen(text), &t, SC_DOC_ANY, &vd, &err), SC_OK, &err);
    CU_ASSERT(vd.key_id != NULL && strcmp(vd.key_id, "new") == 0);
    sc_verified_document_free(&vd);
    free(text);
    sc_trust_free(&t);
    for (int i = 0; i < 3; i++)
        sc_signing_key_free(&keys[i]);
}

static void verify_step6_failing_trusted_signature_then_valid_accepted(void)
{
    /* first signature names a trusted keyId but was made by another key */
    sc_signing_key a = key_n(8, "a"), b = key_n(9, "b");
    sc_signing_key forged = key_n(10, "a");
    sc_signing_key both[2] = {forged, b};
    char *text = signed_doc(REVOCATIONS, both, 2);
    sc_signing_key pair[2] = {a, b};
    sc_trust t = trust_of(pair, 2);
    sc_verified_document vd;
    sc_error err;
    SC_EXPECT_CODE(sc_envelope_verify(text, strlen(text), &t, SC_DOC_ANY, &vd, &err), SC_OK, &err);
    CU_ASSERT(vd.key_id != NULL && strcmp(vd.key_id, "b") == 0);
    sc_verified_document_free(&vd);
    /* trusting only a: nothing verifies */
    sc_trust ta = trust_of(&a, 1);
    SC_EXPECT_CODE(verify_text(text, &ta, SC_DOC_ANY, &err), SC_E_INVALID_SIGNATURE, &err);
    sc_trust_free(&ta);
    free(text);
    sc_trust_free(&t);
    sc_signing_key_free(&a);
    sc_signing_key_free(&b);
    sc_signing_key_free(&forged);
}

static void verify_step6_no_trusted_signature_invalid_signature(void)
{
    sc_signing_key k = rfc_key(), other = key_n(11, NULL);
    char *text = signed_doc(REVOCATIONS, &k, 1);
    sc_error err;
    sc_trust empty = {0};
    SC_EXPECT_CODE(verify_text(text, &empty, SC_DOC_ANY, &err), SC_E_INVALID_SIGNATURE, &err);
    sc_trust to = trust_of(&other, 1);
    SC_EXPECT_CODE(verify_text(text, &to, SC_DOC_ANY, &err), SC_E_INVALID_SIGNATURE, &err);
    sc_trust_free(&to);
    /* the right keyId with another key's public half */
    sc_trust wrong = {0};
    CU_ASSERT_FATAL(sc_trust_add(&wrong, k.key_id, k.key_id_len, other.public_key, &err) == SC_OK);
    SC_EXPECT_CODE(verify_text(text, &wrong, SC_DOC_ANY, &err), SC_E_INVALID_SIGNATURE, &err);
    sc_trust_free(&wrong);
    free(text);
    sc_signing_key_free(&k);
    sc_signing_key_free(&other);
}

/* Replace signatures[0].signatureBase64 of text with sig (64 bytes, or n). */
static char *with_signature(const char *text, const unsigned char *sig, size_t n)
{
    sc_json *v = parse_text(text);
    char *b = NULL;
    sc_error err;
    CU_ASSERT_FATAL(sc_base64_encode(sig, n, &b, NULL, &err) == SC_OK);
    sc_json *s0 = sc_json_at(sc_json_get(v, "signatures"), 0);
    sc_json_object_set(s0, "signatureBase64", sc_json_new_string(b));
    free(b);
    char *out = write_json(v);
    sc_json_free(v);
    return out;
}

static void get_signature(const char *text, unsigned char sig[64])
{
    sc_json *v = parse_text(text);
    const sc_json *s = sc_json_get(sc_json_at(sc_json_get(v, "signatures"), 0), "signatureBase64");
    size_t n = 0;
    CU_ASSERT_FATAL(sc_base64_decode(s->string, s->length, sig, 64, &n) == 1 && n == 64);
    sc_json_free(v);
}

static void verify_step6_signature_must_decode_to_64_bytes(void)
{
    sc_signing_key k = rfc_key();
    sc_trust t = trust_of(&k, 1);
    char *text = signed_doc(REVOCATIONS, &k, 1);
    unsigned char sig[65];
    get_signature(text, sig);
    sig[64] = 0;
    sc_error err;
    char *m = with_signature(text, sig, 65);
    SC_EXPECT_CODE(verify_text(m, &t, SC_DOC_ANY, &err), SC_E_INVALID_SIGNATURE, &err);
    free(m);
    m = with_signature(text, sig, 63);
    SC_EXPECT_CODE(verify_text(m, &t, SC_DOC_ANY, &err), SC_E_INVALID_SIGNATURE, &err);
    free(m);
    /* a valid signature whose text is not canonical base64 (last char + 1) */
    sc_json *v = parse_text(text);
    sc_json *s0 = sc_json_at(sc_json_get(v, "signatures"), 0);
    const sc_json *sb = sc_json_get(s0, "signatureBase64");
    char *copy = strdup(sb->string);
    copy[85] = copy[85] == 'A' ? 'B' : (char)(copy[85] == 'Q' ? 'R' : copy[85] + 1);
    sc_json_object_set(s0, "signatureBase64", sc_json_new_string(copy));
    free(copy);
    m = write_json(v);
    sc_json_free(v);
    SC_EXPECT_CODE(verify_text(m, &t, SC_DOC_ANY, &err), SC_E_INVALID_SIGNATURE, &err);
    free(m);
    free(text);
    sc_trust_free(&t);
    sc_signing_key_free(&k);
}

static void verify_strict_noncanonical_s_rejected(void)
{
    /* L = 2^252 + 27742317777372353535851937790883648493, little-endian */
    static const unsigned char L[32] = {
        0xed, 0xd3, 0xf5, 0x5c, 0x1a, 0x63, 0x12, 0x58, 0xd6, 0x9c, 0xf7, 0xa2, 0xde, 0xf9, 0xde, 0x14,
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x10};
    sc_signing_key k = rfc_key();
    sc_trust t = trust_of(&k, 1);
    char *text = signed_doc(REVOCATIONS, &k, 1);
    unsigned char sig[64];
    get_signature(text, sig);
    unsigned carry = 0;
    for (int i = 0; i < 32; i++) {
        unsigned s = (unsigned)sig[32 + i] + L[i] + carry;
        sig[32 + i] = (unsigned char)s;
        carry = s >> 8;
    }
    CU_ASSERT(carry == 0);
    char *m = with_signature(text, sig, 64);
    sc_error err;
    SC_EXPECT_CODE(verify_text(m, &t, SC_DOC_ANY, &err), SC_E_INVALID_SIGNATURE, &err);
    free(m);
    /* the untouched signature verifies */
    SC_EXPECT_CODE(verify_text(text, &t, SC_DOC_ANY, &err), SC_OK, &err);
    free(text);
    sc_trust_free(&t);
    sc_signing_key_free(&k);
}

/* Sign raw payload bytes with the RFC key and verify against it. */
static sc_code verify_raw_payload(const char *payload, sc_doc_type expect, sc_error *err)
{
    sc_signing_key k = rfc_key();
    sc_trust t = trust_of(&k, 1);
    char *text = NULL;
    size_t tl = 0;
    CU_ASSERT_FATAL(sc_envelope_sign_text(payload, strlen(payload), &k, 1, &text, &tl, err) == SC_OK);
    sc_code c = verify_text(text, &t, expect, err);
    free(text);
    sc_trust_free(&t);
    sc_signing_key_free(&k);
    return c;
}

static void verify_step7_payload_strict_json_then_object(void)
{
    sc_error err;
    SC_EXPECT_CODE(verify_raw_payload("not json", SC_DOC_ANY, &err), SC_E_INVALID_JSON, &err);
    SC_EXPECT_CODE(verify_raw_payload("{\"a\":1,\"a\":2}", SC_DOC_ANY, &err), SC_E_INVALID_JSON, &err);
    SC_EXPECT_CODE(verify_raw_payload("\xef\xbb\xbf{}", SC_DOC_ANY, &err), SC_E_INVALID_JSON, &err);
    SC_EXPECT_CODE(verify_raw_payload("[]", SC_DOC_ANY, &err), SC_E_INVALID_MANIFEST, &err);
    SC_EXPECT_CODE(verify_raw_payload("3", SC_DOC_ANY, &err), SC_E_INVALID_MANIFEST, &err);
}

static void verify_step8_payload_version(void)
{
    sc_error err;
    SC_EXPECT_CODE(verify_raw_payload("{\"schemaVersion\":2,\"kind\":\"scrollcase.box.release\"}",
                                   SC_DOC_ANY, &err), SC_E_DEPRECATED_SCHEMA_VERSION, &err);
    SC_EXPECT_CODE(verify_raw_payload("{\"schemaVersion\":1}", SC_DOC_ANY, &err),
                SC_E_DEPRECATED_SCHEMA_VERSION, &err);
    SC_EXPECT_CODE(verify_raw_payload("{\"kind\":\"scrollcase.box.revocations\"}", SC_DOC_ANY, &err),
                SC_E_INVALID_MANIFEST, &err);
    SC_EXPECT_CODE(verify_raw_payload("{\"schemaVersion\":4}", SC_DOC_ANY, &err),
                SC_E_UNSUPPORTED_SCHEMA_VERSION, &err);
    SC_EXPECT_CODE(verify_raw_payload("{\"schemaVersion\":\"3\"}", SC_DOC_ANY, &err),
                SC_E_UNSUPPORTED_SCHEMA_VERSION, &err);
}

static void verify_step9_kind_and_expected_type(void)
{
    sc_signing_key k = rfc_key();
    sc_trust t = trust_of(&k, 1);
    char *text = signed_doc(REVOCATIONS, &k, 1);
    sc_error err;
    SC_EXPECT_CODE(verify_text(text, &t, SC_DOC_RELEASE, &err), SC_E_INVALID_MANIFEST, &err);
    SC_EXPECT_CODE(verify_text(text, &t, SC_DOC_CHANNEL, &err), SC_E_INVALID_MANIFEST, &err);
    SC_EXPECT_CODE(verify_text(text, &t, SC_DOC_REVOCATIONS, &err), SC_OK, &err);
    free(text);
    /* another publisher's namespace is accepted */
    text = signed_doc("{'schemaVersion':3,'kind':'example.org.revocations',"
                      "'updatedAt':'2026-01-02T03:04:05Z','revocations':[]}", &k, 1);
    SC_EXPECT_CODE(verify_text(text, &t, SC_DOC_REVOCATIONS, &err), SC_OK, &err);
    free(text);
    SC_EXPECT_CODE(verify_raw_payload("{\"schemaVersion\":3,\"kind\":\"scrollcase.box.recipe\"}",
                                   SC_DOC_ANY, &err), SC_E_INVALID_MANIFEST, &err);
    SC_EXPECT_CODE(verify_raw_payload("{\"schemaVersion\":3}", SC_DOC_ANY, &err),
                SC_E_INVALID_MANIFEST, &err);
    sc_trust_free(&t);
    sc_signing_key_free(&k);
}

static void verify_step10_manifest_schema(void)
{
    sc_error err;
    SC_EXPECT_CODE(verify_raw_payload("{\"schemaVersion\":3,\"kind\":\"scrollcase.box.revocations\","
                                   "\"updatedAt\":\"yesterday\",\"revocations\":[]}",
                                   SC_DOC_ANY, &err), SC_E_INVALID_MANIFEST, &err);
    SC_EXPECT_CODE(verify_raw_payload("{\"schemaVersion\":3,\"kind\":\"scrollcase.box.revocations\","
                                   "\"updatedAt\":\"2026-01-02T03:04:05Z\",\"revocations\":[{"
                                   "\"boxId\":\"b\",\"version\":\"1\",\"target\":{\"platform\":"
                                   "\"linux\",\"arch\":\"x86_64\",\"accelerator\":\"metal\"},"
                                   "\"reason\":\"r\",\"revokedAt\":\"2026-01-02T03:04:05Z\"}]}",
                                   SC_DOC_ANY, &err), SC_E_UNSUPPORTED_TARGET, &err);
}

static void verify_file_trust_file_is_step_1(void)
{
    char *dir = sc_test_tmpdir();
    CU_ASSERT_FATAL(dir != NULL);
    sc_signing_key k = rfc_key();
    sc_key_paths kp;
    sc_error err;
    CU_ASSERT_FATAL(sc_keys_write(dir, &k, 0, &kp, &err) == SC_OK);
    char *text = signed_doc(REVOCATIONS, &k, 1);
    sc_test_write(dir, "doc.json", text);
    sc_test_write(dir, "bad-doc.json", "{\"schemaVersion\":2}");
    sc_test_write(dir, "bad-trust.json", "{\"keyId\":\"k\"}");
    sc_test_write(dir, "not-json.json", "{");
    char *doc = sc_path_join(dir, "doc.json"), *bad_doc = sc_path_join(dir, "bad-doc.json");
    char *bad_trust = sc_path_join(dir, "bad-trust.json");
    char *not_json = sc_path_join(dir, "not-json.json");
    char *missing = sc_path_join(dir, "missing.json");
    sc_verified_document vd;
    SC_EXPECT_CODE(sc_envelope_verify_file(kp.public_path, doc, SC_DOC_REVOCATIONS, &vd, &err),
                SC_OK, &err);
    CU_ASSERT(vd.key_id && strcmp(vd.key_id, RFC_KEY_ID) == 0);
    sc_verified_document_free(&vd);
    SC_EXPECT_CODE(sc_envelope_verify_file(bad_trust, bad_doc, SC_DOC_ANY, &vd, &err),
                SC_E_INVALID_TRUST_FILE, &err);
    SC_EXPECT_CODE(sc_envelope_verify_file(not_json, bad_doc, SC_DOC_ANY, &vd, &err),
                SC_E_INVALID_JSON, &err);
    SC_EXPECT_CODE(sc_envelope_verify_file(kp.public_path, bad_doc, SC_DOC_ANY, &vd, &err),
                SC_E_DEPRECATED_SCHEMA_VERSION, &err);
    SC_EXPECT_CODE(sc_envelope_verify_file(kp.public_path, missing, SC_DOC_ANY, &vd, &err),
                SC_E_IO, &err);
    free(doc);
    free(bad_doc);
    free(bad_trust);
    free(not_json);
    free(missing);
    free(text);
    sc_key_paths_free(&kp);
    sc_signing_key_free(&k);
    sc_test_rmtree(dir);
    free(dir);
}

/* ---- external signers (9.3) --------------------------------------------- */

static void signer_command_word_splitting(void)
{
    struct { const char *cmd; const char *words[5]; } ok[] = {
        {"sign", {"sign"}},
        {"  a   b\tc\n", {"a", "b", "c"}},
        {"'a b' c", {"a b", "c"}},
        {"'a\\b' \"x\\\"y\"", {"a\\b", "x\"y"}},
        {"\"a\\\\b\" \"c\\d\"", {"a\\b", "c\\d"}},
        {"a\\ b c\\'d", {"a b", "c'd"}},
        {"x'y'\"z\"", {"xyz"}},
        {"'' a", {"", "a"}},
        {"end\\", {"end\\"}},
        {"'$HOME' `id` ;", {"$HOME", "`id`", ";"}},
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        char **w = NULL;
        size_t n = 0;
        sc_error err;
        CU_ASSERT_FATAL(sc_signer_split(ok[i].cmd, &w, &n, &err) == SC_OK);
        size_t want = 0;
        while (want < 5 && ok[i].words[want] != NULL)
            want++;
        CU_ASSERT(n == want);
        for (size_t j = 0; j < n && j < want; j++) {
            if (strcmp(w[j], ok[i].words[j]) != 0)
                fprintf(stderr, "\n  case %zu word %zu: [%s]\n", i, j, w[j]);
            CU_ASSERT_STRING_EQUAL(w[j], ok[i].words[j]);
        }
        CU_ASSERT(w[n] == NULL);
        sc_signer_words_free(w);
    }
    static const char *const bad[] = {"'a", "a \"b", "\"a\\\"", "", "   ", NULL};
    for (size_t i = 0; bad[i] != NULL; i++) {
        char **w = NULL;
        sc_error err;
        SC_EXPECT_CODE(sc_signer_split(bad[i], &w, NULL, &err), SC_E_USAGE, &err);
        CU_ASSERT(w == NULL);
    }
}

/* A signer directory with envelope.json (for REVOCATIONS, signed by k). */
typedef struct signer_fixture {
    char *dir;
    char *payload;
    size_t payload_len;
    sc_signing_key key;
    sc_trust trust;
} signer_fixture;

static void fixture_open(signer_fixture *f, const char *dirname)
{
    char *base = sc_test_tmpdir();
    CU_ASSERT_FATAL(base != NULL);
    f->dir = sc_path_join(base, dirname);
    CU_ASSERT_FATAL(mkdir(f->dir, 0755) == 0);
    free(base);
    f->key = rfc_key();
    f->trust = trust_of(&f->key, 1);
    f->payload = payload_of(REVOCATIONS, &f->payload_len);
    char *text = NULL;
    size_t tl = 0;
    sc_error err;
    CU_ASSERT_FATAL(sc_envelope_sign_text(f->payload, f->payload_len, &f->key, 1, &text, &tl,
                                          &err) == SC_OK);
    sc_test_write(f->dir, "envelope.json", text);
    free(text);
}

static void fixture_close(signer_fixture *f)
{
    char *slash = strrchr(f->dir, '/');
    *slash = '\0';
    sc_test_rmtree(f->dir);
    free(f->dir);
    free(f->payload);
    sc_trust_free(&f->trust);
    sc_signing_key_free(&f->key);
}

/* Write an executable script dir/name; returns the command for it (quoted). */
static char *script(const signer_fixture *f, const char *name, const char *body)
{
    char *p = sc_path_join(f->dir, name);
    char text[2048];
    snprintf(text, sizeof text, "#!/bin/sh\ncd '%s' || exit 9\n%s\n", f->dir, body);
    sc_test_write(f->dir, name, text);
    chmod(p, 0755);
    char *cmd = malloc(strlen(p) + 8);
    sprintf(cmd, "'%s'", p);
    free(p);
    return cmd;
}

static sc_code run_external(const signer_fixture *f, const char *cmd, char **text, sc_error *err)
{
    size_t tl = 0;
    *text = NULL;
    return sc_envelope_sign_external(cmd, f->payload, f->payload_len, &f->trust, SC_DOC_ANY, text,
                                     &tl, err);
}

static void signer_payload_on_stdin_envelope_on_stdout(void)
{
    signer_fixture f;
    fixture_open(&f, "signer dir"); /* a space: the command must be quoted */
    char *cmd = script(&f, "sign.sh", "cat > got.bin\ncat envelope.json");
    char *text = NULL;
    sc_error err;
    SC_EXPECT_CODE(run_external(&f, cmd, &text, &err), SC_OK, &err);
    /* the signer got exactly the payload bytes */
    char *gp = sc_path_join(f.dir, "got.bin"), *got = NULL;
    size_t gl = 0;
    CU_ASSERT(sc_file_read(gp, &got, &gl, NULL, &err) == SC_OK);
    CU_ASSERT(gl == f.payload_len && got && memcmp(got, f.payload, gl) == 0);
    /* what comes back is the deterministic envelope */
    char *ep = sc_path_join(f.dir, "envelope.json"), *want = NULL;
    CU_ASSERT(sc_file_read(ep, &want, &gl, NULL, &err) == SC_OK);
    CU_ASSERT(text && want && strcmp(text, want) == 0);
    free(want);
    free(ep);
    free(got);
    free(gp);
    free(text);
    free(cmd);
    /* arguments pass through without a shell */
    cmd = script(&f, "args.sh", "printf '%s|' \"$@\" > args.txt\ncat > /dev/null\ncat envelope.json");
    char full[1024];
    snprintf(full, sizeof full, "%s 'one two' \"$HOME\" ';'", cmd);
    SC_EXPECT_CODE(run_external(&f, full, &text, &err), SC_OK, &err);
    char *ap = sc_path_join(f.dir, "args.txt"), *args = NULL;
    CU_ASSERT(sc_file_read(ap, &args, &gl, NULL, &err) == SC_OK);
    CU_ASSERT(args && strcmp(args, "one two|$HOME|;|") == 0);
    free(args);
    free(ap);
    free(text);
    free(cmd);
    fixture_close(&f);
}

static void signer_reordered_envelope_written_deterministically(void)
{
    signer_fixture f;
    fixture_open(&f, "s");
    /* the signer prints the same envelope on one line, members reversed */
    char *ep = sc_path_join(f.dir, "envelope.json"), *env = NULL;
    size_t el = 0;
    sc_error err;
    CU_ASSERT_FATAL(sc_file_read(ep, &env, &el, NULL, &err) == SC_OK);
    sc_json *v = parse_text(env);
    sc_json *r = sc_json_new_object();
    static const char *const rev[] = {"signatures", "payloadSha256", "payloadBase64",
                                      "payloadEncoding", "schemaVersion"};
    for (int i = 0; i < 5; i++)
        sc_json_object_append(r, rev[i], sc_json_copy(sc_json_get(v, rev[i])));
    char *compact = NULL;
    size_t cl = 0;
    CU_ASSERT_FATAL(sc_json_write_compact(r, &compact, &cl, &err) == SC_OK);
    sc_test_write(f.dir, "compact.json", compact);
    char *cmd = script(&f, "s.sh", "cat >/dev/null; cat compact.json");
    char *text = NULL;
    SC_EXPECT_CODE(run_external(&f, cmd, &text, &err), SC_OK, &err);
    CU_ASSERT(text && strcmp(text, env) == 0);
    free(text);
    free(cmd);
    free(compact);
    sc_json_free(r);
    sc_json_free(v);
    free(env);
    free(ep);
    fixture_close(&f);
}

static void signer_failures_are_signer_failed(void)
{
    signer_fixture f;
    fixture_open(&f, "s");
    sc_signing_key other = key_n(12, RFC_KEY_ID);
    char *text = NULL;
    size_t tl = 0;
    sc_error err;
    /* an envelope of other bytes, and one by an untrusted key */
    CU_ASSERT_FATAL(sc_envelope_sign_text("{}\n", 3, &f.key, 1, &text, &tl, &err) == SC_OK);
    sc_test_write(f.dir, "other-payload.json", text);
    free(text);
    CU_ASSERT_FATAL(sc_envelope_sign_text(f.payload, f.payload_len, &other, 1, &text, &tl,
                                          &err) == SC_OK);
    sc_test_write(f.dir, "other-key.json", text);
    free(text);
    static const char *const bodies[] = {
        "cat >/dev/null; cat envelope.json; exit 3",           /* non-zero exit */
        "cat >/dev/null; echo 'no such key' >&2; exit 1",      /* non-zero with stderr */
        "cat >/dev/null; echo not json",                       /* not an envelope */
        "cat >/dev/null",                                      /* nothing printed */
        "cat >/dev/null; cat other-payload.json",              /* another payload */
        "cat >/dev/null; cat other-key.json",                  /* does not verify */
        "cat >/dev/null; echo '{\"schemaVersion\":2}'",        /* a v2 envelope */
        "cat >/dev/null; kill -9 $$",                          /* killed */
        "cat >/dev/null; head -c 17000000 /dev/zero",          /* over 16 MiB */
    };
    for (size_t i = 0; i < sizeof bodies / sizeof bodies[0]; i++) {
        char name[16];
        snprintf(name, sizeof name, "f%zu.sh", i);
        char *cmd = script(&f, name, bodies[i]);
        sc_code c = run_external(&f, cmd, &text, &err);
        if (c != SC_E_SIGNER_FAILED)
            fprintf(stderr, "\n  body %zu: %s\n", i, err.message);
        SC_EXPECT_CODE(c, SC_E_SIGNER_FAILED, &err);
        CU_ASSERT(text == NULL);
        free(cmd);
    }
    char *missing = sc_path_join(f.dir, "no-such-signer");
    SC_EXPECT_CODE(run_external(&f, missing, &text, &err), SC_E_SIGNER_FAILED, &err);
    free(missing);
    SC_EXPECT_CODE(run_external(&f, "'unterminated", &text, &err), SC_E_USAGE, &err);
    sc_signing_key_free(&other);
    fixture_close(&f);
}

static void signer_over_its_time_limit_is_killed(void)
{
    /* a signer that never finishes, one that closes its output but lingers,
     * and one whose child holds the output open: each is killed at the
     * limit (its whole process group) and the result is signer-failed */
    signer_fixture f;
    fixture_open(&f, "s");
    static const char *const bodies[] = {
        "cat >/dev/null; sleep 30",
        "cat >/dev/null; exec >/dev/null 2>&1; sleep 30",
        "cat >/dev/null; (sleep 30) & cat envelope.json; exit 0",
    };
    for (size_t i = 0; i < sizeof bodies / sizeof bodies[0]; i++) {
        char name[16];
        snprintf(name, sizeof name, "t%zu.sh", i);
        char *cmd = script(&f, name, bodies[i]);
        char *text = NULL;
        size_t tl = 0;
        sc_error err;
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        sc_code c = sc_envelope_sign_external_timeout(cmd, f.payload, f.payload_len, &f.trust,
                                                      SC_DOC_ANY, 1, &text, &tl, &err);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        if (i < 2) {
            SC_EXPECT_CODE(c, SC_E_SIGNER_FAILED, &err);
            CU_ASSERT(strstr(err.message, "did not finish") != NULL);
            CU_ASSERT(text == NULL);
        } else {
            /* it printed a good envelope and exited: the lingering child does
             * not hold the result back (issue 24: done is exited and read) */
            SC_EXPECT_CODE(c, SC_OK, &err);
            free(text);
        }
        CU_ASSERT(t1.tv_sec - t0.tv_sec < 10); /* not the 30 s of the sleep */
        free(cmd);
    }
    fixture_close(&f);
}

/* 1 while pid names a process that has not ended (a zombie has ended). */
static int process_alive(long pid)
{
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    FILE *fp = fopen(path, "r");
    if (fp == NULL)
        return 0;
    size_t n = fread(buf, 1, sizeof buf - 1, fp);
    fclose(fp);
    buf[n] = '\0';
    const char *paren = strrchr(buf, ')');
    return paren != NULL && paren[1] == ' ' && paren[2] != 'Z' && paren[2] != 'X';
}

/* Issue 24: a signer that prints its envelope and exits 0 while a helper it
 * started holds its standard output open is done when it exits: the build
 * takes its envelope at once (not at the limit, 30 s here) and the helper,
 * in the signer's process group, is ended. */
static void signer_done_when_it_exits_though_a_helper_holds_its_output(void)
{
    signer_fixture f;
    fixture_open(&f, "s");
    char *cmd = script(&f, "helper.sh",
                       "cat >/dev/null; sleep 300 & echo $! > helper.pid; cat envelope.json; exit 0");
    char *text = NULL;
    size_t tl = 0;
    sc_error err;
    SC_EXPECT_CODE(sc_envelope_sign_external_timeout(cmd, f.payload, f.payload_len, &f.trust,
                                                     SC_DOC_ANY, 30, &text, &tl, &err),
                   SC_OK, &err);
    CU_ASSERT(text != NULL && strstr(text, "payloadBase64") != NULL);
    char *pp = sc_path_join(f.dir, "helper.pid"), *pid = NULL;
    CU_ASSERT_FATAL(sc_file_read(pp, &pid, NULL, NULL, &err) == SC_OK);
    long helper = strtol(pid, NULL, 10);
    CU_ASSERT(helper > 0);
    /* SIGKILL was sent before the call returned; wait for it to land */
    for (int i = 0; i < 500 && helper > 0 && process_alive(helper); i++) {
        struct timespec nap = {0, 10 * 1000 * 1000};
        nanosleep(&nap, NULL);
    }
    CU_ASSERT(helper > 0 && !process_alive(helper));
    if (helper > 0 && process_alive(helper))
        kill((pid_t)helper, SIGKILL);
    free(pid);
    free(pp);
    free(text);
    free(cmd);
    fixture_close(&f);
}

static void signer_that_does_not_read_stdin(void)
{
    /* a payload larger than a pipe's buffer, and a signer that never reads
     * it: the write fails with EPIPE (not SIGPIPE), the output is judged */
    signer_fixture f;
    fixture_open(&f, "s");
    free(f.payload);
    size_t cap = 400000;
    f.payload = malloc(cap);
    CU_ASSERT_FATAL(f.payload != NULL);
    size_t n = (size_t)snprintf(f.payload, cap, "{\n  \"pad\": \"");
    while (n < cap - 100)
        f.payload[n++] = 'x';
    n += (size_t)snprintf(f.payload + n, cap - n, "\"\n}\n");
    f.payload_len = n;
    char *text = NULL;
    size_t tl = 0;
    sc_error err;
    CU_ASSERT_FATAL(sc_envelope_sign_text(f.payload, n, &f.key, 1, &text, &tl, &err) == SC_OK);
    sc_test_write(f.dir, "big.json", text);
    free(text);
    char *cmd = script(&f, "lazy.sh", "exec cat big.json");
    /* the payload is no manifest, so steps 7-10 fail: still signer-failed,
     * and this process is alive to see it */
    SC_EXPECT_CODE(run_external(&f, cmd, &text, &err), SC_E_SIGNER_FAILED, &err);
    CU_ASSERT(strstr(err.message, "invalid-manifest") != NULL);
    free(cmd);
    /* one that reads it all gets every byte, however large */
    cmd = script(&f, "eager.sh", "cat > got.bin; exec cat big.json");
    SC_EXPECT_CODE(run_external(&f, cmd, &text, &err), SC_E_SIGNER_FAILED, &err);
    char *gp = sc_path_join(f.dir, "got.bin"), *got = NULL;
    size_t gl = 0;
    CU_ASSERT(sc_file_read(gp, &got, &gl, NULL, &err) == SC_OK);
    CU_ASSERT(gl == f.payload_len && got && memcmp(got, f.payload, gl) == 0);
    free(got);
    free(gp);
    free(cmd);
    fixture_close(&f);
}

void register_document_tests(void)
{
    CU_pSuite s = CU_add_suite("document", NULL, NULL);
    if (s == NULL)
        CU_FAIL_FATAL("CU_add_suite failed");
    SC_ADD_TEST(s, digest_sha256_known_answers);
    SC_ADD_TEST(s, digest_streaming_equals_one_shot);
    SC_ADD_TEST(s, digest_file_reads_in_1mib_pieces);
    SC_ADD_TEST(s, base64_rfc4648_vectors);
    SC_ADD_TEST(s, base64_padding_required);
    SC_ADD_TEST(s, base64_padding_only_at_the_end);
    SC_ADD_TEST(s, base64_no_whitespace_or_line_breaks);
    SC_ADD_TEST(s, base64_standard_alphabet_only);
    SC_ADD_TEST(s, base64_noncanonical_unused_bits_rejected);
    SC_ADD_TEST(s, base64_decoded_length_and_capacity);
    SC_ADD_TEST(s, keys_pkcs8_private_pem_exact);
    SC_ADD_TEST(s, keys_spki_public_pem_exact);
    SC_ADD_TEST(s, keys_seed_gives_rfc8032_public_key);
    SC_ADD_TEST(s, keys_key_id_derivation_vector);
    SC_ADD_TEST(s, keys_key_id_override_non_empty);
    SC_ADD_TEST(s, keys_pem_crlf_and_missing_final_newline_accepted);
    SC_ADD_TEST(s, keys_pem_nothing_else_accepted);
    SC_ADD_TEST(s, keys_small_order_public_key_invalid);
    SC_ADD_TEST(s, keys_private_file_mode_0600_whatever_the_umask);
    SC_ADD_TEST(s, keys_keygen_refuses_overwrite_without_force);
    SC_ADD_TEST(s, keys_write_to_chosen_paths_makes_directories_and_one_pair);
    SC_ADD_TEST(s, keys_write_to_refuses_either_existing_file_without_force);
    SC_ADD_TEST(s, keys_write_to_refuses_one_file_for_both);
    SC_ADD_TEST(s, keys_write_to_second_write_failing_leaves_nothing);
    SC_ADD_TEST(s, keys_write_to_force_failing_puts_the_old_key_back);
    SC_ADD_TEST(s, keys_load_signing_takes_the_private_key_file_given);
    SC_ADD_TEST(s, keys_load_signing_private_key_of_another_pair_is_invalid_key);
    SC_ADD_TEST(s, keys_load_signing_refuses_missing_malformed_and_special_private_key);
    SC_ADD_TEST(s, keys_load_checks_one_pair);
    SC_ADD_TEST(s, trust_single_key_by_pem_base64_or_both);
    SC_ADD_TEST(s, trust_bundle_and_empty_bundle);
    SC_ADD_TEST(s, trust_large_bundle_found_by_key_id);
    SC_ADD_TEST(s, trust_shapes_rejected);
    SC_ADD_TEST(s, trust_pem_and_base64_must_be_one_key);
    SC_ADD_TEST(s, trust_small_order_public_key_refused);
    SC_ADD_TEST(s, trust_mixed_order_public_key_refused);
    SC_ADD_TEST(s, trust_not_json_is_invalid_json);
    SC_ADD_TEST(s, trust_file_unreadable_is_invalid_trust_file);
    SC_ADD_TEST(s, envelope_signature_is_pure_ed25519);
    SC_ADD_TEST(s, envelope_members_in_order_deterministic_text);
    SC_ADD_TEST(s, envelope_sign_needs_payload_and_key);
    SC_ADD_TEST(s, verify_accepts_and_reports);
    SC_ADD_TEST(s, verify_step2_strict_json_then_object);
    SC_ADD_TEST(s, verify_step3_v1_v2_envelopes_refused_before_schema);
    SC_ADD_TEST(s, verify_step3_other_versions_unsupported);
    SC_ADD_TEST(s, verify_step4_every_member_invalid_envelope);
    SC_ADD_TEST(s, verify_step4_members_checked_in_order);
    SC_ADD_TEST(s, verify_step5_altered_payload);
    SC_ADD_TEST(s, verify_step6_untrusted_keyid_skipped_then_valid_accepted);
    SC_ADD_TEST(s, verify_step6_failing_trusted_signature_then_valid_accepted);
    SC_ADD_TEST(s, verify_step6_no_trusted_signature_invalid_signature);
    SC_ADD_TEST(s, verify_step6_signature_must_decode_to_64_bytes);
    SC_ADD_TEST(s, verify_strict_noncanonical_s_rejected);
    SC_ADD_TEST(s, verify_step7_payload_strict_json_then_object);
    SC_ADD_TEST(s, verify_step8_payload_version);
    SC_ADD_TEST(s, verify_step9_kind_and_expected_type);
    SC_ADD_TEST(s, verify_step10_manifest_schema);
    SC_ADD_TEST(s, verify_file_trust_file_is_step_1);
    SC_ADD_TEST(s, signer_command_word_splitting);
    SC_ADD_TEST(s, signer_payload_on_stdin_envelope_on_stdout);
    SC_ADD_TEST(s, signer_over_its_time_limit_is_killed);
    SC_ADD_TEST(s, signer_done_when_it_exits_though_a_helper_holds_its_output);
    SC_ADD_TEST(s, signer_reordered_envelope_written_deterministically);
    SC_ADD_TEST(s, signer_failures_are_signer_failed);
    SC_ADD_TEST(s, signer_that_does_not_read_stdin);
}
