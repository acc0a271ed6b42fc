/* SPDX-License-Identifier: Apache-2.0 */
/*
 * envelope.c — signing and verifying v3 envelopes, and external signers.
 *
 * Guarantees: see envelope.h.  Verification keeps the order of 9.2 exactly;
 * each step reads only what the steps before it have checked.  The external
 * signer's pipes are served with poll() so that neither side can block the
 * other; SIGPIPE is blocked in the calling thread while the payload is
 * written (a signer that stops reading yields EPIPE, not a dead process) and
 * a SIGPIPE raised meanwhile is consumed before the mask is restored.
 */
#include "scrollcase/envelope.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <sodium.h>

#include "scrollcase/base64.h"
#include "cleanup_internal.h"
#include "scrollcase/file.h"

extern char **environ;

void sc_opened_envelope_free(sc_opened_envelope *o)
{
    if (o == NULL)
        return;
    free(o->payload);
    free(o->key_id);
    memset(o, 0, sizeof *o);
}

void sc_verified_document_free(sc_verified_document *d)
{
    if (d == NULL)
        return;
    free(d->key_id);
    sc_json_free(d->payload);
    memset(d, 0, sizeof *d);
}

/* 1 if member m's key is exactly name (keys may hold NUL bytes). */
static int key_is(const sc_json *m, const char *name)
{
    size_t n = strlen(name);
    return m->key_length == n && memcmp(m->key, name, n) == 0;
}

static int string_is(const sc_json *v, const char *s)
{
    size_t n = strlen(s);
    return v != NULL && v->type == SC_JSON_STRING && v->length == n &&
           memcmp(v->string, s, n) == 0;
}

static sc_code oom(sc_error *err)
{
    return sc_error_set(err, SC_E_OUT_OF_MEMORY, NULL, "out of memory");
}

/* ---- signing ------------------------------------------------------------ */

sc_code sc_envelope_sign(const void *payload, size_t len, const sc_signing_key *keys,
                         size_t nkeys, sc_json **envelope, sc_error *err)
{
    if (envelope == NULL)
        return sc_error_set(err, SC_E_USAGE, NULL, "sc_envelope_sign: no output");
    *envelope = NULL;
    if (payload == NULL || len == 0)
        return sc_error_set(err, SC_E_USAGE, NULL, "a signed payload must not be empty");
    if (keys == NULL || nkeys == 0)
        return sc_error_set(err, SC_E_USAGE, NULL, "signing needs at least one key");
    sc_code c = sc_crypto_init(err);
    if (c != SC_OK)
        return c;
    char sha[SC_SHA256_HEX_LEN + 1];
    c = sc_sha256_hex(payload, len, sha, err);
    if (c != SC_OK)
        return c;
    char *b64 = NULL;
    c = sc_base64_encode(payload, len, &b64, NULL, err);
    if (c != SC_OK)
        return c;
    sc_json *env = sc_json_new_object();
    sc_json *sigs = sc_json_new_array();
    int bad = env == NULL || sigs == NULL;
    for (size_t i = 0; !bad && i < nkeys; i++) {
        unsigned char sig[SC_ED25519_SIGNATURE_LEN];
        if (keys[i].key_id == NULL || keys[i].key_id_len == 0) {
            sc_json_free(env);
            sc_json_free(sigs);
            free(b64);
            return sc_error_set(err, SC_E_USAGE, NULL, "signing key %zu has no keyId", i);
        }
        if (crypto_sign_detached(sig, NULL, payload, len, keys[i].secret) != 0) {
            sc_json_free(env);
            sc_json_free(sigs);
            free(b64);
            return sc_error_set(err, SC_E_INTERNAL, NULL, "libsodium could not sign");
        }
        char *sb = NULL;
        if (sc_base64_encode(sig, sizeof sig, &sb, NULL, err) != SC_OK) {
            bad = 1;
            break;
        }
        sc_json *s = sc_json_new_object();
        bad = s == NULL;
        bad = bad || sc_json_object_append(s, "algorithm",
                                           sc_json_new_string(SC_SIGNATURE_ALGORITHM));
        bad = bad || sc_json_object_append(s, "keyId", sc_json_new_string_len(
                                                           keys[i].key_id, keys[i].key_id_len));
        bad = bad || sc_json_object_append(s, "signatureBase64", sc_json_new_string(sb));
        free(sb);
        if (bad)
            sc_json_free(s);
        else
            bad = sc_json_array_append(sigs, s) != 0;
    }
    bad = bad || sc_json_object_append(env, "schemaVersion",
                                       sc_json_new_number(SC_ENVELOPE_SCHEMA_VERSION));
    bad = bad || sc_json_object_append(env, "payloadEncoding",
                                       sc_json_new_string(SC_PAYLOAD_ENCODING));
    bad = bad || sc_json_object_append(env, "payloadBase64", sc_json_new_string(b64));
    bad = bad || sc_json_object_append(env, "payloadSha256", sc_json_new_string(sha));
    free(b64);
    if (bad) {
        sc_json_free(env);
        sc_json_free(sigs);
        return oom(err);
    }
    if (sc_json_object_append(env, "signatures", sigs) != 0) {
        sc_json_free(env);
        return oom(err);
    }
    *envelope = env;
    return SC_OK;
}

sc_code sc_envelope_sign_text(const void *payload, size_t len,
                              const sc_signing_key *keys, size_t nkeys, char **text,
                              size_t *text_len, sc_error *err)
{
    if (text == NULL)
        return sc_error_set(err, SC_E_USAGE, NULL, "sc_envelope_sign_text: no output");
    *text = NULL;
    sc_json *env = NULL;
    sc_code c = sc_envelope_sign(payload, len, keys, nkeys, &env, err);
    if (c == SC_OK)
        c = sc_json_write(env, text, text_len, err);
    sc_json_free(env);
    return c;
}

/* ---- verifying ---------------------------------------------------------- */

/* Step 3: the envelope's schemaVersion, when present. */
static sc_code check_version(const sc_json *doc, sc_error *err)
{
    const sc_json *v = sc_json_get(doc, "schemaVersion");
    if (v == NULL)
        return SC_OK; /* a missing version is step 4's */
    uint64_t n = 0;
    if (sc_json_is(v, SC_JSON_NUMBER) && sc_json_uint53(v, &n)) {
        if (n == SC_ENVELOPE_SCHEMA_VERSION)
            return SC_OK;
        if (n == 1 || n == 2)
            return sc_error_set(err, SC_E_DEPRECATED_SCHEMA_VERSION, "$.schemaVersion",
                                "signed document schemaVersion %d is deprecated; signed "
                                "documents are not converted: rebuild and re-sign it with "
                                "schema v3", (int)n);
    }
    char shown[48];
    sc_json_describe_value(v, shown, sizeof shown);
    return sc_error_set(err, SC_E_UNSUPPORTED_SCHEMA_VERSION, "$.schemaVersion",
                        "unsupported signed document schemaVersion %s; it must be the "
                        "integer 3 (no fraction, no exponent)", shown);
}

static sc_code bad_envelope(sc_error *err, const char *field, const char *what)
{
    return sc_error_set(err, SC_E_INVALID_ENVELOPE, field, "invalid envelope: %s %s",
                        field, what);
}

/*
 * Step 4 for one signature object, in the order of 5.5: the type, the
 * required members in the order of 9.1, their values in that order, then
 * unknown members.
 */
static sc_code check_signature_member(const sc_json *s, size_t i, sc_error *err)
{
    char field[64];
    snprintf(field, sizeof field, "$.signatures[%zu]", i);
    if (!sc_json_is(s, SC_JSON_OBJECT))
        return bad_envelope(err, field, "must be an object");
    static const char *const names[] = {"algorithm", "keyId", "signatureBase64"};
    for (size_t k = 0; k < 3; k++)
        if (sc_json_get(s, names[k]) == NULL) {
            snprintf(field, sizeof field, "$.signatures[%zu].%s", i, names[k]);
            return bad_envelope(err, field, "is required");
        }
    for (size_t k = 0; k < 3; k++) {
        const sc_json *v = sc_json_get(s, names[k]);
        snprintf(field, sizeof field, "$.signatures[%zu].%s", i, names[k]);
        if (k == 0 && !string_is(v, SC_SIGNATURE_ALGORITHM))
            return bad_envelope(err, field, "must be \"ed25519\"");
        if (k == 1 && (v->type != SC_JSON_STRING || v->length == 0))
            return bad_envelope(err, field, "must be a non-empty string");
        if (k == 2 && v->type != SC_JSON_STRING)
            return bad_envelope(err, field, "must be a string");
    }
    for (const sc_json *m = s->child; m != NULL; m = m->next)
        if (!key_is(m, "algorithm") && !key_is(m, "keyId") && !key_is(m, "signatureBase64")) {
            snprintf(field, sizeof field, "$.signatures[%zu].%.32s", i, m->key);
            return bad_envelope(err, field, "is not allowed");
        }
    return SC_OK;
}

/*
 * Step 4, in the order of 5.5: the required members in the order of 9.1,
 * then each member's value in that order, then unknown members.
 */
static sc_code check_members(const sc_json *doc, sc_error *err)
{
    static const char *const names[] = {"schemaVersion", "payloadEncoding", "payloadBase64",
                                        "payloadSha256", "signatures"};
    for (size_t k = 0; k < 5; k++)
        if (sc_json_get(doc, names[k]) == NULL) {
            char field[32];
            snprintf(field, sizeof field, "$.%s", names[k]);
            return bad_envelope(err, field, "is required");
        }
    /* schemaVersion is present and (step 3) the integer 3 */
    const sc_json *v = sc_json_get(doc, "payloadEncoding");
    if (!string_is(v, SC_PAYLOAD_ENCODING))
        return bad_envelope(err, "$.payloadEncoding", "must be \"base64-json-utf8\"");
    v = sc_json_get(doc, "payloadBase64");
    if (v->type != SC_JSON_STRING || v->length == 0)
        return bad_envelope(err, "$.payloadBase64", "must be a non-empty string");
    v = sc_json_get(doc, "payloadSha256");
    if (v->type != SC_JSON_STRING ||
        !sc_is_lower_hex(v->string, v->length, SC_SHA256_HEX_LEN))
        return bad_envelope(err, "$.payloadSha256", "must be 64 lowercase hex digits");
    v = sc_json_get(doc, "signatures");
    if (v->type != SC_JSON_ARRAY)
        return bad_envelope(err, "$.signatures", "must be an array");
    if (v->length == 0)
        return bad_envelope(err, "$.signatures", "must hold at least one signature");
    size_t i = 0;
    for (const sc_json *s = v->child; s != NULL; s = s->next, i++) {
        sc_code c = check_signature_member(s, i, err);
        if (c != SC_OK)
            return c;
    }
    for (const sc_json *m = doc->child; m != NULL; m = m->next)
        if (!key_is(m, "schemaVersion") && !key_is(m, "payloadEncoding") &&
            !key_is(m, "payloadBase64") && !key_is(m, "payloadSha256") &&
            !key_is(m, "signatures")) {
            char field[64];
            snprintf(field, sizeof field, "$.%.40s", m->key);
            return bad_envelope(err, field, "is not allowed");
        }
    return SC_OK;
}

/* Steps 2-4 on bytes: the checked envelope in *out. */
static sc_code read_envelope(const char *bytes, size_t len, sc_json **out, sc_error *err)
{
    *out = NULL;
    sc_json *doc = NULL;
    sc_code c = sc_json_parse(bytes, len, &doc, err);
    if (c != SC_OK)
        return c;
    if (!sc_json_is(doc, SC_JSON_OBJECT))
        c = sc_error_set(err, SC_E_INVALID_ENVELOPE, "$",
                         "invalid envelope: a signed document must be a JSON object, not %s",
                         sc_json_type_name(doc));
    if (c == SC_OK)
        c = check_version(doc, err);
    if (c == SC_OK)
        c = check_members(doc, err);
    if (c != SC_OK) {
        sc_json_free(doc);
        return c;
    }
    *out = doc;
    return SC_OK;
}

/* Steps 5-6 on a checked envelope. */
static sc_code open_checked(const sc_json *doc, const sc_trust *trust,
                            sc_opened_envelope *out, sc_error *err)
{
    const sc_json *b64 = sc_json_get(doc, "payloadBase64");
    const sc_json *sha = sc_json_get(doc, "payloadSha256");
    const sc_json *sigs = sc_json_get(doc, "signatures");

    /* step 5 */
    size_t n = sc_base64_decoded_len(b64->string, b64->length);
    if (n == SC_BASE64_INVALID)
        return sc_error_set(err, SC_E_ALTERED_PAYLOAD, "$.payloadBase64",
                            "altered payload: payloadBase64 is not strict base64");
    unsigned char *payload = malloc(n + 1);
    if (payload == NULL)
        return oom(err);
    size_t got = 0;
    if (!sc_base64_decode(b64->string, b64->length, payload, n, &got) || got != n) {
        free(payload);
        return sc_error_set(err, SC_E_ALTERED_PAYLOAD, "$.payloadBase64",
                            "altered payload: payloadBase64 is not strict base64");
    }
    payload[n] = '\0';
    char hex[SC_SHA256_HEX_LEN + 1];
    sc_code c = sc_sha256_hex(payload, n, hex, err);
    if (c != SC_OK) {
        free(payload);
        return c;
    }
    if (memcmp(hex, sha->string, SC_SHA256_HEX_LEN) != 0) {
        free(payload);
        return sc_error_set(err, SC_E_ALTERED_PAYLOAD, "$.payloadSha256",
                            "altered payload: the payload's SHA-256 is %s, the envelope "
                            "says %s", hex, sha->string);
    }

    /* step 6 */
    c = sc_crypto_init(err);
    if (c != SC_OK) {
        free(payload);
        return c;
    }
    const sc_json *winner = NULL;
    size_t tried = 0;
    for (const sc_json *s = sigs->child; s != NULL && winner == NULL; s = s->next) {
        const sc_json *id = sc_json_get(s, "keyId");
        const sc_json *sb = sc_json_get(s, "signatureBase64");
        const sc_trusted_key *k = sc_trust_find(trust, id->string, id->length);
        if (k == NULL)
            continue; /* not a key this verifier trusts: skipped */
        tried++;
        unsigned char sig[SC_ED25519_SIGNATURE_LEN];
        size_t sl = 0;
        if (!sc_base64_decode(sb->string, sb->length, sig, sizeof sig, &sl) ||
            sl != sizeof sig)
            continue;
        if (crypto_sign_verify_detached(sig, payload, n, k->public_key) == 0)
            winner = id;
    }
    if (winner == NULL) {
        free(payload);
        return sc_error_set(err, SC_E_INVALID_SIGNATURE, "$.signatures",
                            "invalid signature: no signature verifies with a trusted "
                            "ed25519 key (%zu signature(s) by trusted keyIds tried)", tried);
    }
    char *kid = malloc(winner->length + 1);
    if (kid == NULL) {
        free(payload);
        return oom(err);
    }
    memcpy(kid, winner->string, winner->length + 1);
    out->payload = payload;
    out->payload_len = n;
    memcpy(out->payload_sha256, hex, sizeof hex);
    out->key_id = kid;
    out->key_id_len = winner->length;
    return SC_OK;
}

sc_code sc_envelope_open(const char *bytes, size_t len, const sc_trust *trust,
                         sc_opened_envelope *out, sc_error *err)
{
    if (out == NULL)
        return sc_error_set(err, SC_E_USAGE, NULL, "sc_envelope_open: no output");
    memset(out, 0, sizeof *out);
    if (trust == NULL || (bytes == NULL && len > 0))
        return sc_error_set(err, SC_E_USAGE, NULL, "sc_envelope_open: no trust or no bytes");
    sc_json *doc = NULL;
    sc_code c = read_envelope(bytes, len, &doc, err);
    if (c == SC_OK)
        c = open_checked(doc, trust, out, err);
    sc_json_free(doc);
    if (c == SC_OK)
        sc_error_clear(err);
    return c;
}

/* Steps 7-10 on opened payload bytes. */
static sc_code check_payload(const sc_opened_envelope *o, sc_doc_type expect,
                             sc_verified_document *out, sc_error *err)
{
    sc_json *p = NULL;
    sc_code c = sc_json_parse((const char *)o->payload, o->payload_len, &p, err);
    if (c != SC_OK) {
        sc_error_prefix(err, "signed payload");
        return c;
    }
    if (!sc_json_is(p, SC_JSON_OBJECT)) {
        c = sc_error_set(err, SC_E_INVALID_MANIFEST, "$",
                         "invalid manifest: the signed payload is %s, not an object",
                         sc_json_type_name(p));
        sc_json_free(p);
        return c;
    }
    c = sc_manifest_check(p, expect, &out->info, err);
    if (c != SC_OK) {
        sc_json_free(p);
        return c;
    }
    out->payload = p;
    return SC_OK;
}

sc_code sc_envelope_verify(const char *bytes, size_t len, const sc_trust *trust,
                           sc_doc_type expect, sc_verified_document *out,
                           sc_error *err)
{
    if (out == NULL)
        return sc_error_set(err, SC_E_USAGE, NULL, "sc_envelope_verify: no output");
    memset(out, 0, sizeof *out);
    sc_opened_envelope o;
    sc_code c = sc_envelope_open(bytes, len, trust, &o, err);
    if (c != SC_OK)
        return c;
    c = check_payload(&o, expect, out, err);
    if (c == SC_OK) {
        out->key_id = o.key_id;
        out->key_id_len = o.key_id_len;
        o.key_id = NULL;
        memcpy(out->payload_sha256, o.payload_sha256, sizeof o.payload_sha256);
        sc_error_clear(err);
    } else {
        memset(&out->info, 0, sizeof out->info);
    }
    sc_opened_envelope_free(&o);
    return c;
}

sc_code sc_envelope_verify_file(const char *trust_path, const char *document_path,
                                sc_doc_type expect, sc_verified_document *out,
                                sc_error *err)
{
    if (out == NULL || trust_path == NULL || document_path == NULL)
        return sc_error_set(err, SC_E_USAGE, NULL,
                            "sc_envelope_verify_file: no trust file, document or output");
    memset(out, 0, sizeof *out);
    sc_trust trust;
    sc_code c = sc_trust_read_file(trust_path, &trust, err);
    if (c != SC_OK)
        return c;
    char *bytes = NULL;
    size_t len = 0;
    c = sc_file_read(document_path, &bytes, &len, NULL, err);
    if (c == SC_OK) {
        c = sc_envelope_verify(bytes, len, &trust, expect, out, err);
        if (c != SC_OK && c != SC_E_OUT_OF_MEMORY) {
            sc_error_prefix(err, document_path);
        }
    }
    free(bytes);
    sc_trust_free(&trust);
    return c;
}

/* ---- external signers --------------------------------------------------- */

void sc_signer_words_free(char **words)
{
    if (words == NULL)
        return;
    for (char **w = words; *w != NULL; w++)
        free(*w);
    free(words);
}

static int is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

sc_code sc_signer_split(const char *command, char ***words, size_t *count,
                        sc_error *err)
{
    if (words == NULL)
        return sc_error_set(err, SC_E_USAGE, NULL, "sc_signer_split: no output");
    *words = NULL;
    if (count != NULL)
        *count = 0;
    if (command == NULL)
        return sc_error_set(err, SC_E_USAGE, NULL, "the external signer command is empty");
    size_t len = strlen(command);
    /* At most len/2+1 words, each at most len bytes. */
    size_t cap = len / 2 + 2;
    char **w = calloc(cap, sizeof *w);
    char *cur = malloc(len + 1);
    if (w == NULL || cur == NULL) {
        free(w);
        free(cur);
        return oom(err);
    }
    size_t n = 0, cl = 0;
    int in_word = 0;
    const char *p = command;
    sc_code c = SC_OK;
    while (c == SC_OK) {
        char ch = *p;
        if (ch == '\0' || is_space(ch)) {
            if (in_word) {
                w[n] = malloc(cl + 1);
                if (w[n] == NULL) {
                    c = oom(err);
                    break;
                }
                memcpy(w[n], cur, cl);
                w[n][cl] = '\0';
                n++;
                cl = 0;
                in_word = 0;
            }
            if (ch == '\0')
                break;
            p++;
        } else if (ch == '\'') {
            in_word = 1;
            const char *q = strchr(p + 1, '\'');
            if (q == NULL)
                c = sc_error_set(err, SC_E_USAGE, NULL,
                                 "the external signer command has an unmatched quote");
            else {
                memcpy(cur + cl, p + 1, (size_t)(q - p - 1));
                cl += (size_t)(q - p - 1);
                p = q + 1;
            }
        } else if (ch == '"') {
            in_word = 1;
            p++;
            for (;;) {
                if (*p == '\0') {
                    c = sc_error_set(err, SC_E_USAGE, NULL,
                                     "the external signer command has an unmatched quote");
                    break;
                }
                if (*p == '"') {
                    p++;
                    break;
                }
                if (*p == '\\' && (p[1] == '"' || p[1] == '\\')) {
                    cur[cl++] = p[1];
                    p += 2;
                } else {
                    cur[cl++] = *p++;
                }
            }
        } else if (ch == '\\') {
            in_word = 1;
            if (p[1] != '\0') {
                cur[cl++] = p[1];
                p += 2;
            } else {
                cur[cl++] = '\\';
                p++;
            }
        } else {
            in_word = 1;
            cur[cl++] = ch;
            p++;
        }
    }
    free(cur);
    if (c == SC_OK && n == 0)
        c = sc_error_set(err, SC_E_USAGE, NULL, "the external signer command is empty");
    if (c != SC_OK) {
        sc_signer_words_free(w);
        return c;
    }
    *words = w;
    if (count != NULL)
        *count = n;
    return SC_OK;
}

static sc_code signer_failed(sc_error *err, const char *fmt, const char *detail)
{
    return sc_error_set(err, SC_E_SIGNER_FAILED, NULL, fmt, detail);
}

static void set_nonblock(int fd)
{
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0)
        fcntl(fd, F_SETFL, fl | O_NONBLOCK);
}

static void set_cloexec(int fd)
{
    int fl = fcntl(fd, F_GETFD);
    if (fl >= 0)
        fcntl(fd, F_SETFD, fl | FD_CLOEXEC);
}

static void close_pair(int p[2])
{
    if (p[0] >= 0)
        close(p[0]);
    if (p[1] >= 0)
        close(p[1]);
    p[0] = p[1] = -1;
}

/* Append to a growing buffer; -1 on OOM. */
static int buf_append(char **buf, size_t *len, size_t *cap, const char *data, size_t n)
{
    if (*len + n + 1 > *cap) {
        size_t nc = *cap ? *cap : 4096;
        while (nc < *len + n + 1)
            nc *= 2;
        char *nb = realloc(*buf, nc);
        if (nb == NULL)
            return -1;
        *buf = nb;
        *cap = nc;
    }
    memcpy(*buf + *len, data, n);
    *len += n;
    (*buf)[*len] = '\0';
    return 0;
}

#define SIGNER_STDERR_KEEP 512

/*
 * Run words with payload on stdin; collect stdout (capped) and the start of
 * stderr.  Returns SC_OK with the exit status in *status, or SC_E_SIGNER_FAILED.
 */
/* Milliseconds left until start + limit seconds (0 when passed). */
static int ms_left(const struct timespec *start, unsigned limit)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    double used = (double)(now.tv_sec - start->tv_sec) * 1000.0 +
                  (double)(now.tv_nsec - start->tv_nsec) / 1e6;
    double left = (double)limit * 1000.0 - used;
    return left <= 0 ? 0 : left > 60000 ? 60000 : (int)left + 1;
}

static sc_code run_signer(char **words, const void *payload, size_t len, unsigned limit,
                          char **out, size_t *out_len, char *errtext, int *status,
                          sc_error *err)
{
    struct timespec start;
    clock_gettime(CLOCK_MONOTONIC, &start);
    int in[2] = {-1, -1}, op[2] = {-1, -1}, ep[2] = {-1, -1};
    *out = NULL;
    *out_len = 0;
    errtext[0] = '\0';
    if (pipe(in) != 0 || pipe(op) != 0 || pipe(ep) != 0) {
        int e = errno;
        close_pair(in);
        close_pair(op);
        close_pair(ep);
        return signer_failed(err, "the external signer could not start: %s", strerror(e));
    }
    /* Our ends: non-blocking.  All six: close-on-exec, so the signer holds
     * only the copies dup2 puts on 0, 1 and 2. */
    set_nonblock(in[1]);
    set_nonblock(op[0]);
    set_nonblock(ep[0]);
    int all[6] = {in[0], in[1], op[0], op[1], ep[0], ep[1]};
    for (int i = 0; i < 6; i++)
        set_cloexec(all[i]);

    posix_spawn_file_actions_t fa;
    posix_spawnattr_t attr;
    sigset_t empty, pipe_only, old_mask;
    sigemptyset(&empty);
    sigemptyset(&pipe_only);
    sigaddset(&pipe_only, SIGPIPE);
    int rc = posix_spawn_file_actions_init(&fa);
    if (rc == 0) {
        rc = posix_spawnattr_init(&attr);
        if (rc != 0)
            posix_spawn_file_actions_destroy(&fa);
    }
    if (rc != 0) {
        close_pair(in);
        close_pair(op);
        close_pair(ep);
        return signer_failed(err, "the external signer could not start: %s", strerror(rc));
    }
    posix_spawn_file_actions_adddup2(&fa, in[0], 0);
    posix_spawn_file_actions_adddup2(&fa, op[1], 1);
    posix_spawn_file_actions_adddup2(&fa, ep[1], 2);
    posix_spawnattr_setsigmask(&attr, &empty);
    posix_spawnattr_setsigdefault(&attr, &pipe_only);
    /* Its own process group, so that a time-out kills what it started too. */
    posix_spawnattr_setpgroup(&attr, 0);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF |
                                        POSIX_SPAWN_SETPGROUP);

    /* Block SIGPIPE here while we write; remember whether one was pending. */
    sigset_t pending_before;
    sigemptyset(&pending_before);
    pthread_sigmask(SIG_BLOCK, &pipe_only, &old_mask);
    sigpending(&pending_before);
    int pipe_was_pending = sigismember(&pending_before, SIGPIPE) == 1;

    pid_t pid;
    sigset_t held;
    sc_cleanup_hold(&held); /* registered before a signal can miss it */
    rc = posix_spawnp(&pid, words[0], &fa, &attr, words, environ);
    int child_slot = rc == 0 ? sc_cleanup_add_child(pid, 1) : -1;
    sc_cleanup_release(&held);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&attr);
    close(in[0]);
    close(op[1]);
    close(ep[1]);
    in[0] = op[1] = ep[1] = -1;
    if (rc != 0) {
        close_pair(in);
        close_pair(op);
        close_pair(ep);
        pthread_sigmask(SIG_SETMASK, &old_mask, NULL);
        char what[300];
        snprintf(what, sizeof what, "%.200s: %s", words[0], strerror(rc));
        return signer_failed(err, "the external signer could not start: %s", what);
    }

    const unsigned char *src = payload;
    size_t sent = 0, cap = 0, elen = 0;
    char *buf = NULL;
    sc_code c = SC_OK;
    int st = 0, exited = 0, draining = 0;
    while (op[0] >= 0 || ep[0] >= 0) {
        struct pollfd fds[3];
        int nf = 0, i_in = -1, i_out = -1, i_err = -1;
        if (in[1] >= 0) {
            fds[nf] = (struct pollfd){in[1], POLLOUT, 0};
            i_in = nf++;
        }
        if (op[0] >= 0) {
            fds[nf] = (struct pollfd){op[0], POLLIN, 0};
            i_out = nf++;
        }
        if (ep[0] >= 0) {
            fds[nf] = (struct pollfd){ep[0], POLLIN, 0};
            i_err = nf++;
        }
        int wait_ms = ms_left(&start, limit);
        siginfo_t info;
        memset(&info, 0, sizeof info);
        /* ended, not reaped (WNOWAIT): its pid names its group until then */
        if (!exited && waitid(P_PID, (id_t)pid, &info, WEXITED | WNOHANG | WNOWAIT) == 0 &&
            info.si_pid == pid)
            exited = draining = 1;
        if (draining) {
            /* The signer has exited: what it wrote is in the pipes now;
             * read that and stop, whoever else still holds them open. */
            wait_ms = 0;
            if (i_in >= 0) {
                close(in[1]);
                in[1] = -1;
                fds[i_in].fd = -1;
            }
        } else if (wait_ms > 50) {
            wait_ms = 50; /* and look again whether it has exited */
        }
        if (wait_ms == 0 && !draining) {
            c = sc_error_set(err, SC_E_SIGNER_FAILED, NULL,
                                 "the external signer did not finish within %u s", limit);
            break;
        }
        int ready = poll(fds, (nfds_t)nf, wait_ms);
        if (ready < 0) {
            if (errno == EINTR)
                continue;
            c = signer_failed(err, "waiting for the external signer: %s", strerror(errno));
            break;
        }
        if (ready == 0) {
            if (draining)
                break;
            continue;
        }
        if (i_in >= 0 && fds[i_in].revents) {
            ssize_t w = write(in[1], src + sent, len - sent);
            if (w > 0)
                sent += (size_t)w;
            if ((w < 0 && errno != EAGAIN && errno != EINTR) || sent == len) {
                close(in[1]);
                in[1] = -1;
            }
        }
        char chunk[65536];
        if (i_out >= 0 && fds[i_out].revents) {
            ssize_t r = read(op[0], chunk, sizeof chunk);
            if (r > 0) {
                if (*out_len + (size_t)r > SC_SIGNER_OUTPUT_MAX) {
                    c = signer_failed(err, "the external signer printed more than %s",
                                      "16 MiB");
                    break;
                }
                if (buf_append(&buf, out_len, &cap, chunk, (size_t)r) != 0) {
                    c = oom(err);
                    break;
                }
            } else if (r == 0 || (errno != EAGAIN && errno != EINTR)) {
                close(op[0]);
                op[0] = -1;
            }
        }
        if (i_err >= 0 && fds[i_err].revents) {
            ssize_t r = read(ep[0], chunk, sizeof chunk);
            if (r > 0) {
                size_t keep = SIGNER_STDERR_KEEP - 1 - elen;
                if ((size_t)r < keep)
                    keep = (size_t)r;
                memcpy(errtext + elen, chunk, keep);
                elen += keep;
                errtext[elen] = '\0';
            } else if (r == 0 || (errno != EAGAIN && errno != EINTR)) {
                close(ep[0]);
                ep[0] = -1;
            }
        }
    }
    close_pair(in);
    close_pair(op);
    close_pair(ep);
    /* Its output is closed; it still gets only what is left of the limit. */
    sc_cleanup_drop_child(child_slot);
    if (exited) {
        kill(-pid, SIGKILL); /* what it left in its group ends with it */
        while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
            ;
    }
    for (; !exited;) {
        if (c != SC_OK) {
            kill(-pid, SIGKILL);
            kill(pid, SIGKILL);
            while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
                ;
            break;
        }
        pid_t w = waitpid(pid, &st, WNOHANG);
        if (w == pid || (w < 0 && errno != EINTR))
            break;
        if (ms_left(&start, limit) == 0) {
            c = sc_error_set(err, SC_E_SIGNER_FAILED, NULL,
                                 "the external signer did not finish within %u s", limit);
            continue;
        }
        struct timespec nap = {0, 10 * 1000 * 1000};
        nanosleep(&nap, NULL);
    }
    /* Consume a SIGPIPE our writes raised, then restore the mask. */
    if (!pipe_was_pending) {
        sigset_t now;
        sigemptyset(&now);
        if (sigpending(&now) == 0 && sigismember(&now, SIGPIPE) == 1) {
            struct timespec zero = {0, 0};
            sigtimedwait(&pipe_only, NULL, &zero);
        }
    }
    pthread_sigmask(SIG_SETMASK, &old_mask, NULL);
    if (c != SC_OK) {
        free(buf);
        *out_len = 0;
        return c;
    }
    *out = buf;
    *status = st;
    return SC_OK;
}

sc_code sc_envelope_sign_external(const char *command, const void *payload,
                                  size_t len, const sc_trust *trust,
                                  sc_doc_type expect, char **text, size_t *text_len,
                                  sc_error *err)
{
    return sc_envelope_sign_external_timeout(command, payload, len, trust, expect,
                                             SC_SIGNER_TIMEOUT_SECONDS, text, text_len,
                                             err);
}

sc_code sc_envelope_sign_external_timeout(const char *command, const void *payload,
                                          size_t len, const sc_trust *trust,
                                          sc_doc_type expect, unsigned timeout_seconds,
                                          char **text, size_t *text_len, sc_error *err)
{
    if (timeout_seconds == 0)
        return sc_error_set(err, SC_E_USAGE, NULL, "a signer time limit must be >= 1 s");
    if (text == NULL || trust == NULL)
        return sc_error_set(err, SC_E_USAGE, NULL,
                            "sc_envelope_sign_external: no trust or no output");
    *text = NULL;
    if (payload == NULL || len == 0)
        return sc_error_set(err, SC_E_USAGE, NULL, "a signed payload must not be empty");
    char **words = NULL;
    sc_code c = sc_signer_split(command, &words, NULL, err);
    if (c != SC_OK)
        return c;
    char *out = NULL;
    size_t out_len = 0;
    char errtext[SIGNER_STDERR_KEEP];
    int status = 0;
    c = run_signer(words, payload, len, timeout_seconds, &out, &out_len, errtext,
                   &status, err);
    sc_signer_words_free(words);
    if (c != SC_OK)
        return c;
    for (char *s = errtext; *s; s++)
        if (*s == '\n' || *s == '\r')
            *s = ' ';
    if (WIFSIGNALED(status) || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        char what[SIGNER_STDERR_KEEP + 64];
        if (WIFEXITED(status))
            snprintf(what, sizeof what, "exited with %d%s%s", WEXITSTATUS(status),
                     errtext[0] ? ": " : "", errtext);
        else
            snprintf(what, sizeof what, "was killed by signal %d",
                     WIFSIGNALED(status) ? WTERMSIG(status) : 0);
        free(out);
        return signer_failed(err, "the external signer %s", what);
    }

    /* What it printed must be an envelope of exactly our bytes that verifies. */
    sc_opened_envelope o;
    c = sc_envelope_open(out ? out : "", out_len, trust, &o, err);
    if (c == SC_OK && (o.payload_len != len || memcmp(o.payload, payload, len) != 0)) {
        sc_opened_envelope_free(&o);
        free(out);
        return signer_failed(err, "%s", "the external signer returned a different "
                                        "payload than the one it was given");
    }
    sc_verified_document vd;
    memset(&vd, 0, sizeof vd);
    if (c == SC_OK) {
        c = check_payload(&o, expect, &vd, err);
        sc_opened_envelope_free(&o);
    }
    if (c != SC_OK) {
        free(out);
        if (c == SC_E_OUT_OF_MEMORY)
            return c;
        char what[SC_ERROR_MESSAGE_MAX];
        snprintf(what, sizeof what, "error[%s]: %.400s", sc_code_name(c), err->message);
        return signer_failed(err, "the external signer's envelope does not verify: %s",
                             what);
    }
    sc_json_free(vd.payload);

    /* Write it back in the deterministic form, members in 9.1 order. */
    sc_json *doc = NULL;
    c = sc_json_parse(out, out_len, &doc, err);
    free(out);
    if (c != SC_OK)
        return c;
    sc_json *env = sc_json_new_object();
    static const char *const order[] = {"schemaVersion", "payloadEncoding", "payloadBase64",
                                        "payloadSha256", "signatures"};
    int bad = env == NULL;
    for (size_t i = 0; !bad && i < 5; i++)
        bad = sc_json_object_append(env, order[i], sc_json_copy(sc_json_get(doc, order[i])));
    sc_json_free(doc);
    if (bad) {
        sc_json_free(env);
        return oom(err);
    }
    c = sc_json_write(env, text, text_len, err);
    sc_json_free(env);
    return c;
}
