/* SPDX-License-Identifier: Apache-2.0 */
/*
 * keys.c — Ed25519 key pairs, PKCS#8 / SPKI PEM, keyIds and key files.
 *
 * Guarantees: see keys.h.  Secret material (seeds, the libsodium secret key,
 * private PEM text and DER) is wiped with sodium_memzero before its memory is
 * released, on every path.
 */
#include "scrollcase/keys.h"
#include "cleanup_internal.h"
#include "scrollcase/remedy.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <stdio.h>
#include <unistd.h>

#include <sodium.h>

#include "scrollcase/base64.h"
#include "scrollcase/digest.h"
#include "scrollcase/file.h"
#include "scrollcase/trust.h"

/* The fixed DER prefixes of 8.1. */
static const unsigned char pkcs8_prefix[16] = {0x30, 0x2e, 0x02, 0x01, 0x00, 0x30,
                                               0x05, 0x06, 0x03, 0x2b, 0x65, 0x70,
                                               0x04, 0x22, 0x04, 0x20};
static const unsigned char spki_prefix[12] = {0x30, 0x2a, 0x30, 0x05, 0x06, 0x03,
                                              0x2b, 0x65, 0x70, 0x03, 0x21, 0x00};

#define PEM_LINE 64
#define PRIVATE_LABEL "PRIVATE KEY"
#define PUBLIC_LABEL "PUBLIC KEY"

sc_code sc_crypto_init(sc_error *err)
{
    if (sodium_init() < 0)
        return sc_error_set(err, SC_E_INTERNAL, NULL, "libsodium could not initialise");
    return SC_OK;
}

sc_code sc_key_id_derive(const unsigned char pub[SC_ED25519_PUBLIC_LEN],
                         char out[SC_KEY_ID_DERIVED_SIZE], sc_error *err)
{
    unsigned char d[SC_SHA256_LEN];
    sc_code c = sc_sha256(pub, SC_ED25519_PUBLIC_LEN, d, err);
    if (c != SC_OK)
        return c;
    size_t p = sizeof SC_KEY_ID_PREFIX - 1;
    memcpy(out, SC_KEY_ID_PREFIX, p);
    sc_hex_lower(d, 8, out + p); /* 8 bytes = 16 hex digits, NUL-terminated */
    return SC_OK;
}

sc_code sc_signing_key_generate(const unsigned char *seed, const char *key_id,
                                sc_signing_key *out, sc_error *err)
{
    if (out == NULL)
        return sc_error_set(err, SC_E_USAGE, NULL, "sc_signing_key_generate: no output");
    memset(out, 0, sizeof *out);
    if (key_id != NULL && key_id[0] == '\0')
        return sc_error_set(err, SC_E_USAGE, NULL, "a keyId must be a non-empty string");
    sc_code c = sc_crypto_init(err);
    if (c != SC_OK)
        return c;
    int rc = seed ? crypto_sign_seed_keypair(out->public_key, out->secret, seed)
                  : crypto_sign_keypair(out->public_key, out->secret);
    if (rc != 0) {
        sodium_memzero(out, sizeof *out);
        return sc_error_set(err, SC_E_INTERNAL, NULL, "libsodium could not make a key pair");
    }
    char derived[SC_KEY_ID_DERIVED_SIZE];
    if (key_id == NULL) {
        c = sc_key_id_derive(out->public_key, derived, err);
        if (c != SC_OK) {
            sodium_memzero(out, sizeof *out);
            return c;
        }
        key_id = derived;
    }
    out->key_id = strdup(key_id);
    if (out->key_id == NULL) {
        sodium_memzero(out, sizeof *out);
        return sc_error_set(err, SC_E_OUT_OF_MEMORY, NULL, "out of memory");
    }
    out->key_id_len = strlen(key_id);
    return SC_OK;
}

void sc_signing_key_free(sc_signing_key *k)
{
    if (k == NULL)
        return;
    free(k->key_id);
    sodium_memzero(k, sizeof *k);
}

int sc_public_key_valid(const unsigned char pub[SC_ED25519_PUBLIC_LEN])
{
    if (pub == NULL || sodium_init() < 0)
        return 0;
    return crypto_core_ed25519_is_valid_point(pub) == 1;
}

/* ---- PEM ---------------------------------------------------------------- */

static sc_code pem_write(const char *label, const unsigned char *der, size_t der_len,
                         char **pem, size_t *len, sc_error *err)
{
    *pem = NULL;
    char *b64 = NULL;
    size_t b64_len = 0;
    sc_code c = sc_base64_encode(der, der_len, &b64, &b64_len, err);
    if (c != SC_OK)
        return c;
    size_t lines = (b64_len + PEM_LINE - 1) / PEM_LINE;
    size_t cap = 2 * (strlen(label) + 17) + b64_len + lines + 1;
    char *s = malloc(cap);
    if (s == NULL) {
        sodium_memzero(b64, b64_len);
        free(b64);
        return sc_error_set(err, SC_E_OUT_OF_MEMORY, NULL, "out of memory writing PEM");
    }
    size_t o = (size_t)snprintf(s, cap, "-----BEGIN %s-----\n", label);
    for (size_t i = 0; i < b64_len; i += PEM_LINE) {
        size_t n = b64_len - i < PEM_LINE ? b64_len - i : PEM_LINE;
        memcpy(s + o, b64 + i, n);
        o += n;
        s[o++] = '\n';
    }
    o += (size_t)snprintf(s + o, cap - o, "-----END %s-----\n", label);
    sodium_memzero(b64, b64_len);
    free(b64);
    *pem = s;
    if (len != NULL)
        *len = o;
    return SC_OK;
}

/*
 * Take the next line of text starting at *pos: sets *line and *line_len (without
 * its end) and *ended (1 if an LF or CRLF ended it).  A CR not followed by LF
 * stays in the line (and so breaks whatever it is compared with).
 */
static void next_line(const char *text, size_t len, size_t *pos, const char **line,
                      size_t *line_len, int *ended)
{
    size_t start = *pos, i = start;
    while (i < len && text[i] != '\n')
        i++;
    *line = text + start;
    *ended = i < len;
    size_t end = i;
    if (*ended && end > start && text[end - 1] == '\r')
        end--;
    *line_len = end - start;
    *pos = *ended ? i + 1 : i;
}

static int line_is(const char *line, size_t n, const char *want)
{
    return n == strlen(want) && memcmp(line, want, n) == 0;
}

/*
 * Read PEM with the given label strictly into der (cap bytes); returns 1 and
 * sets *der_len, or 0 with a reason in *why.
 */
static int pem_read(const char *text, size_t len, const char *label, unsigned char *der,
                    size_t cap, size_t *der_len, const char **why)
{
    char header[64], footer[64];
    snprintf(header, sizeof header, "-----BEGIN %s-----", label);
    snprintf(footer, sizeof footer, "-----END %s-----", label);
    if (text == NULL) {
        *why = "no text";
        return 0;
    }
    size_t pos = 0;
    const char *line;
    size_t n;
    int ended;
    next_line(text, len, &pos, &line, &n, &ended);
    if (!line_is(line, n, header) || !ended) {
        *why = "the first line is not the PEM header";
        return 0;
    }
    /* Body: lines of exactly 64 base64 characters, the last 1..64. */
    char body[4 * PEM_LINE + 1];
    size_t body_len = 0;
    int short_seen = 0;
    for (;;) {
        if (pos >= len) {
            *why = "no PEM footer";
            return 0;
        }
        next_line(text, len, &pos, &line, &n, &ended);
        if (line_is(line, n, footer))
            break;
        if (!ended) {
            *why = "no PEM footer";
            return 0;
        }
        if (n == 0) {
            *why = "a blank line";
            return 0;
        }
        if (short_seen || n > PEM_LINE) {
            *why = "base64 lines are not 64 characters long";
            return 0;
        }
        if (n < PEM_LINE)
            short_seen = 1;
        if (body_len + n > sizeof body - 1) {
            *why = "the key is too long";
            return 0;
        }
        for (size_t i = 0; i < n; i++)
            if (line[i] == ':' || line[i] == ' ' || line[i] == '\t') {
                *why = "PEM headers and whitespace are not allowed";
                return 0;
            }
        memcpy(body + body_len, line, n);
        body_len += n;
    }
    if (pos != len) {
        *why = "text after the PEM footer";
        sodium_memzero(body, sizeof body);
        return 0;
    }
    if (body_len == 0) {
        *why = "an empty PEM body";
        return 0;
    }
    int ok = sc_base64_decode(body, body_len, der, cap, der_len);
    sodium_memzero(body, sizeof body);
    if (!ok)
        *why = "the PEM body is not strict base64 of a key";
    return ok;
}

sc_code sc_private_pem_write(const unsigned char seed[SC_ED25519_SEED_LEN],
                             char **pem, size_t *len, sc_error *err)
{
    if (seed == NULL || pem == NULL)
        return sc_error_set(err, SC_E_USAGE, NULL, "sc_private_pem_write: no seed or no output");
    unsigned char der[sizeof pkcs8_prefix + SC_ED25519_SEED_LEN];
    memcpy(der, pkcs8_prefix, sizeof pkcs8_prefix);
    memcpy(der + sizeof pkcs8_prefix, seed, SC_ED25519_SEED_LEN);
    sc_code c = pem_write(PRIVATE_LABEL, der, sizeof der, pem, len, err);
    sodium_memzero(der, sizeof der);
    return c;
}

sc_code sc_public_pem_write(const unsigned char pub[SC_ED25519_PUBLIC_LEN],
                            char **pem, size_t *len, sc_error *err)
{
    if (pub == NULL || pem == NULL)
        return sc_error_set(err, SC_E_USAGE, NULL, "sc_public_pem_write: no key or no output");
    unsigned char der[sizeof spki_prefix + SC_ED25519_PUBLIC_LEN];
    memcpy(der, spki_prefix, sizeof spki_prefix);
    memcpy(der + sizeof spki_prefix, pub, SC_ED25519_PUBLIC_LEN);
    return pem_write(PUBLIC_LABEL, der, sizeof der, pem, len, err);
}

sc_code sc_private_pem_read(const char *text, size_t len,
                            unsigned char seed[SC_ED25519_SEED_LEN], sc_error *err)
{
    unsigned char der[sizeof pkcs8_prefix + SC_ED25519_SEED_LEN];
    size_t n = 0;
    const char *why = NULL;
    if (!pem_read(text, len, PRIVATE_LABEL, der, sizeof der, &n, &why)) {
        sodium_memzero(der, sizeof der);
        return sc_error_set(err, SC_E_INVALID_KEY, NULL,
                            "not an Ed25519 PKCS#8 private key PEM: %s", why);
    }
    if (n != sizeof der || memcmp(der, pkcs8_prefix, sizeof pkcs8_prefix) != 0) {
        sodium_memzero(der, sizeof der);
        return sc_error_set(err, SC_E_INVALID_KEY, NULL,
                            "not an Ed25519 PKCS#8 private key PEM: the DER is not "
                            "the 16-byte Ed25519 prefix and a 32-byte seed");
    }
    memcpy(seed, der + sizeof pkcs8_prefix, SC_ED25519_SEED_LEN);
    sodium_memzero(der, sizeof der);
    return SC_OK;
}

sc_code sc_public_pem_read(const char *text, size_t len,
                           unsigned char pub[SC_ED25519_PUBLIC_LEN], sc_error *err)
{
    unsigned char der[sizeof spki_prefix + SC_ED25519_PUBLIC_LEN];
    size_t n = 0;
    const char *why = NULL;
    if (!pem_read(text, len, PUBLIC_LABEL, der, sizeof der, &n, &why))
        return sc_error_set(err, SC_E_INVALID_KEY, NULL,
                            "not an Ed25519 SPKI public key PEM: %s", why);
    if (n != sizeof der || memcmp(der, spki_prefix, sizeof spki_prefix) != 0)
        return sc_error_set(err, SC_E_INVALID_KEY, NULL,
                            "not an Ed25519 SPKI public key PEM: the DER is not "
                            "the 12-byte Ed25519 prefix and a 32-byte key");
    memcpy(pub, der + sizeof spki_prefix, SC_ED25519_PUBLIC_LEN);
    return SC_OK;
}

/* ---- files -------------------------------------------------------------- */

sc_code sc_public_key_document(const sc_signing_key *k, sc_json **out, sc_error *err)
{
    if (k == NULL || out == NULL || k->key_id == NULL)
        return sc_error_set(err, SC_E_USAGE, NULL, "sc_public_key_document: no key");
    *out = NULL;
    char *b64 = NULL, *pem = NULL;
    sc_code c = sc_base64_encode(k->public_key, SC_ED25519_PUBLIC_LEN, &b64, NULL, err);
    if (c == SC_OK)
        c = sc_public_pem_write(k->public_key, &pem, NULL, err);
    if (c != SC_OK) {
        free(b64);
        return c;
    }
    sc_json *o = sc_json_new_object();
    int bad = o == NULL;
    bad = bad || sc_json_object_append(o, "algorithm", sc_json_new_string("ed25519"));
    bad = bad || sc_json_object_append(o, "keyId",
                                       sc_json_new_string_len(k->key_id, k->key_id_len));
    bad = bad || sc_json_object_append(o, "publicKeyBase64", sc_json_new_string(b64));
    bad = bad || sc_json_object_append(o, "publicKeyPem", sc_json_new_string(pem));
    free(b64);
    free(pem);
    if (bad) {
        sc_json_free(o);
        return sc_error_set(err, SC_E_OUT_OF_MEMORY, NULL, "out of memory");
    }
    *out = o;
    return SC_OK;
}

sc_code sc_key_paths_in(const char *dir, sc_key_paths *out, sc_error *err)
{
    if (dir == NULL || out == NULL)
        return sc_error_set(err, SC_E_USAGE, NULL, "sc_key_paths_in: no directory");
    out->private_path = sc_path_join(dir, SC_PRIVATE_KEY_FILE);
    out->public_path = sc_path_join(dir, SC_PUBLIC_KEY_FILE);
    if (out->private_path == NULL || out->public_path == NULL) {
        sc_key_paths_free(out);
        return sc_error_set(err, SC_E_OUT_OF_MEMORY, NULL, "out of memory");
    }
    return SC_OK;
}

void sc_key_paths_free(sc_key_paths *p)
{
    if (p == NULL)
        return;
    free(p->private_path);
    free(p->public_path);
    p->private_path = p->public_path = NULL;
}

/*
 * mkdir -p: the last component last_mode, the ones above it 0755.  *created
 * (may be NULL) receives the topmost directory this call made (caller
 * frees), or NULL when every one existed, so that a failure can undo it.
 */
static sc_code make_dirs(const char *dir, unsigned last_mode, char **created, sc_error *err)
{
    if (created != NULL)
        *created = NULL;
    char *p = strdup(dir);
    if (p == NULL)
        return sc_error_set(err, SC_E_OUT_OF_MEMORY, NULL, "out of memory");
    size_t n = strlen(p);
    while (n > 1 && p[n - 1] == '/')
        p[--n] = '\0';
    for (char *s = p + 1; ; s++) {
        int last = *s == '\0';
        if (*s != '/' && !last)
            continue;
        char keep = *s;
        *s = '\0';
        if (mkdir(p, last ? (mode_t)last_mode : 0755) == 0) {
            if (created != NULL && *created == NULL && (*created = strdup(p)) == NULL) {
                *s = keep;
                free(p);
                return sc_error_set(err, SC_E_OUT_OF_MEMORY, NULL, "out of memory");
            }
        } else if (errno != EEXIST) {
            int e = errno;
            sc_code c = sc_error_set(err, SC_E_IO, dir, "cannot create %s: %s", p,
                                     strerror(e));
            free(p);
            return c;
        }
        *s = keep;
        if (last)
            break;
    }
    free(p);
    if (!sc_is_dir(dir))
        return sc_error_set(err, SC_E_IO, dir, "cannot create %s: not a directory", dir);
    return SC_OK;
}

/* Remove the directories make_dirs made: dir, then its parents up to top. */
static void undo_dirs(const char *dir, const char *top)
{
    if (top == NULL)
        return;
    char *p = strdup(dir);
    if (p == NULL)
        return;
    size_t tn = strlen(top);
    for (;;) {
        size_t n = strlen(p);
        while (n > 1 && p[n - 1] == '/')
            p[--n] = '\0';
        if (n < tn || rmdir(p) != 0 || n == tn)
            break;
        char *slash = strrchr(p, '/');
        if (slash == NULL || slash == p)
            break;
        *slash = '\0';
    }
    free(p);
}

/* The directory of a file path (caller frees): "." for a bare name. */
static char *parent_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (slash == NULL)
        return strdup(".");
    size_t n = slash == path ? 1 : (size_t)(slash - path);
    char *d = malloc(n + 1);
    if (d != NULL) {
        memcpy(d, path, n);
        d[n] = '\0';
    }
    return d;
}

/* Whether a and b name one file: the same text, the same existing file, or
 * the same name in one existing directory. */
static int same_file(const char *a, const char *b)
{
    if (strcmp(a, b) == 0)
        return 1;
    struct stat sa, sb;
    if (lstat(a, &sa) == 0 && lstat(b, &sb) == 0)
        return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
    const char *na = strrchr(a, '/'), *nb = strrchr(b, '/');
    na = na ? na + 1 : a;
    nb = nb ? nb + 1 : b;
    if (strcmp(na, nb) != 0)
        return 0;
    char *da = parent_of(a), *db = parent_of(b);
    int same = da != NULL && db != NULL && stat(da, &sa) == 0 && stat(db, &sb) == 0 &&
               sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
    free(da);
    free(db);
    return same;
}

static sc_code exists_error(const char *path, int is_private, sc_error *err)
{
    if (is_private)
        return sc_error_set(err, SC_E_KEY_EXISTS, path,
                            "signing key already exists: %s; pass --force to replace it "
                            "(`" SC_REMEDY_KEYGEN_FORCE "`)",
                            path);
    return sc_error_set(err, SC_E_KEY_EXISTS, path,
                        "public key file already exists: %s; pass --force to replace it "
                        "(`" SC_REMEDY_KEYGEN_FORCE "`), or choose another file with --public-key",
                        path);
}

/*
 * With force, keep the private key file being replaced under a second name
 * in its directory (a hard link), so that it can be put back; *backup NULL
 * when there is nothing to keep.
 */
static sc_code keep_old(const char *path, char **backup, sc_error *err)
{
    *backup = NULL;
    struct stat st;
    if (lstat(path, &st) != 0)
        return SC_OK;
    size_t size = strlen(path) + 32;
    char *b = malloc(size);
    if (b == NULL)
        return sc_error_set(err, SC_E_OUT_OF_MEMORY, NULL, "out of memory");
    for (unsigned attempt = 0; attempt < 100; attempt++) {
        snprintf(b, size, "%s.keygen-old-%ld-%u", path, (long)getpid(), attempt);
        if (link(path, b) == 0) {
            *backup = b;
            return SC_OK;
        }
        if (errno != EEXIST)
            break;
    }
    int e = errno;
    free(b);
    return sc_error_set(err, SC_E_IO, path, "cannot keep %s while it is replaced: %s", path,
                        strerror(e));
}

sc_code sc_keys_write_to(const char *private_path, const char *public_path,
                         const sc_signing_key *k, int force, sc_error *err)
{
    if (private_path == NULL || private_path[0] == '\0' || public_path == NULL ||
        public_path[0] == '\0' || k == NULL)
        return sc_error_set(err, SC_E_USAGE, NULL, "sc_keys_write_to: no paths or no key");
    if (same_file(private_path, public_path))
        return sc_error_set(err, SC_E_USAGE, public_path,
                            "the private and the public key file are one file (%s); give two "
                            "paths",
                            public_path);
    const char *const paths[2] = {private_path, public_path};
    struct stat st;
    for (int i = 0; i < 2; i++) {
        if (lstat(paths[i], &st) != 0)
            continue;
        if (!force)
            return exists_error(paths[i], i == 0, err);
        if (!S_ISREG(st.st_mode))
            return sc_error_set(err, SC_E_IO, paths[i],
                                "cannot replace %s: it is not a regular file", paths[i]);
    }

    char *pem = NULL, *pub = NULL, *backup = NULL;
    char *dirs[2] = {NULL, NULL}, *made[2] = {NULL, NULL};
    size_t pem_len = 0, pub_len = 0;
    int wrote_private = 0;
    sc_json *doc = NULL;
    sc_code c = SC_OK;
    /* An interruption waits until the pair is written whole or undone (and
     * the backup of an old private key is gone): cleanup.h. */
    sigset_t held;
    sc_cleanup_hold(&held);
    for (int i = 0; i < 2 && c == SC_OK; i++) {
        dirs[i] = parent_of(paths[i]);
        c = dirs[i] == NULL ? sc_error_set(err, SC_E_OUT_OF_MEMORY, NULL, "out of memory")
                            : make_dirs(dirs[i], i == 0 ? 0700 : 0755, &made[i], err);
    }
    if (c == SC_OK)
        c = sc_private_pem_write(k->secret, &pem, &pem_len, err);
    if (c == SC_OK)
        c = sc_public_key_document(k, &doc, err);
    if (c == SC_OK)
        c = sc_json_write(doc, &pub, &pub_len, err);
    if (c == SC_OK && force)
        c = keep_old(private_path, &backup, err);
    if (c == SC_OK) {
        /* Without force, never replace: link() refuses atomically, so two
         * keygens at once cannot both succeed. */
        int existed = 0;
        c = force ? sc_file_write_atomic(private_path, pem, pem_len, 0600, err)
                  : sc_file_write_new(private_path, pem, pem_len, 0600, &existed, err);
        if (existed)
            c = exists_error(private_path, 1, err);
        wrote_private = c == SC_OK;
    }
    if (c == SC_OK) {
        int existed = 0;
        c = force ? sc_file_write_atomic(public_path, pub, pub_len, 0644, err)
                  : sc_file_write_new(public_path, pub, pub_len, 0644, &existed, err);
        if (existed)
            c = exists_error(public_path, 0, err);
    }
    if (c != SC_OK && wrote_private) {
        /* The pair is written whole or not at all: put the old private key
         * back (force), or remove the new one. */
        if (backup != NULL)
            (void)rename(backup, private_path);
        else
            (void)unlink(private_path);
    }
    if (backup != NULL)
        (void)unlink(backup); /* after a rename back, the name is gone already */
    if (c != SC_OK) {
        undo_dirs(dirs[1] ? dirs[1] : ".", made[1]);
        undo_dirs(dirs[0] ? dirs[0] : ".", made[0]);
    }
    sc_cleanup_release(&held);
    for (int i = 0; i < 2; i++) {
        free(dirs[i]);
        free(made[i]);
    }
    if (pem != NULL)
        sodium_memzero(pem, pem_len);
    free(pem);
    free(pub);
    free(backup);
    sc_json_free(doc);
    return c;
}

sc_code sc_keys_write(const char *dir, const sc_signing_key *k, int force,
                      sc_key_paths *paths, sc_error *err)
{
    if (dir == NULL || dir[0] == '\0' || k == NULL)
        return sc_error_set(err, SC_E_USAGE, NULL, "sc_keys_write: no directory or no key");
    sc_key_paths kp;
    sc_code c = sc_key_paths_in(dir, &kp, err);
    char *made = NULL;
    /* the keys directory itself is 0700 (8.1) */
    if (c == SC_OK && !sc_is_dir(dir))
        c = make_dirs(dir, 0700, &made, err);
    if (c == SC_OK)
        c = sc_keys_write_to(kp.private_path, kp.public_path, k, force, err);
    if (c != SC_OK)
        undo_dirs(dir, made);
    free(made);
    if (c != SC_OK || paths == NULL)
        sc_key_paths_free(&kp);
    else
        *paths = kp;
    return c;
}

sc_code sc_keys_load(const char *private_path, const char *public_path,
                     sc_signing_key *out, sc_error *err)
{
    if (private_path == NULL || public_path == NULL || out == NULL)
        return sc_error_set(err, SC_E_USAGE, NULL, "sc_keys_load: no paths or no output");
    memset(out, 0, sizeof *out);
    sc_code c = sc_crypto_init(err);
    if (c != SC_OK)
        return c;
    char *text = NULL;
    size_t len = 0;
    int missing = 0;
    c = sc_file_read(private_path, &text, &len, &missing, err);
    if (c != SC_OK) {
        if (missing)
            sc_error_set(err, SC_E_IO, private_path,
                         "signing key not found: %s; run `" SC_REMEDY_KEYGEN "` first, or sign "
                         "externally (`" SC_REMEDY_SIGNER "`)",
                         private_path);
        return c;
    }
    unsigned char seed[SC_ED25519_SEED_LEN];
    c = sc_private_pem_read(text, len, seed, err);
    sodium_memzero(text, len);
    free(text);
    if (c != SC_OK) {
        sc_error_prefix(err, private_path);
        err->path[0] = '\0';
        strncat(err->path, private_path, sizeof err->path - 1);
        return c;
    }

    /* The public file has the shape of a one-key trust file (8.3). */
    sc_json *doc = NULL;
    c = sc_json_parse_file(public_path, &doc, err);
    if (c != SC_OK) {
        sodium_memzero(seed, sizeof seed);
        return c;
    }
    sc_trust trust;
    int bundle = sc_json_is(doc, SC_JSON_OBJECT) &&
                 sc_json_is(sc_json_get(doc, "keys"), SC_JSON_ARRAY);
    c = bundle ? sc_error_set(err, SC_E_INVALID_TRUST_FILE, NULL, "a key bundle, not one key")
               : sc_trust_from_json(doc, public_path, &trust, err);
    sc_json_free(doc);
    if (c != SC_OK) {
        sodium_memzero(seed, sizeof seed);
        char why[SC_ERROR_MESSAGE_MAX];
        snprintf(why, sizeof why, "%s", err->message);
        return sc_error_set(err, SC_E_INVALID_KEY, public_path,
                            "%s is not a public key file: %s", public_path, why);
    }
    const sc_trusted_key *tk = &trust.keys[0];
    c = sc_signing_key_generate(seed, "-", out, err);
    sodium_memzero(seed, sizeof seed);
    if (c == SC_OK && sodium_memcmp(out->public_key, tk->public_key,
                                    SC_ED25519_PUBLIC_LEN) != 0) {
        sc_signing_key_free(out);
        c = sc_error_set(err, SC_E_INVALID_KEY, public_path,
                         "private and public signing keys do not match: %s and %s "
                         "are not one key pair; name the private key's own public key file "
                         "(--public-key FILE), or make a new pair with `" SC_REMEDY_KEYGEN_PATHS "`",
                         private_path, public_path);
    }
    if (c == SC_OK) {
        char *id = malloc(tk->key_id_len + 1);
        if (id == NULL) {
            sc_signing_key_free(out);
            c = sc_error_set(err, SC_E_OUT_OF_MEMORY, NULL, "out of memory");
        } else {
            memcpy(id, tk->key_id, tk->key_id_len + 1);
            free(out->key_id);
            out->key_id = id;
            out->key_id_len = tk->key_id_len;
        }
    }
    sc_trust_free(&trust);
    return c;
}

sc_code sc_keys_load_signing(const char *keys_dir, const char *private_path,
                             const char *public_path, const char *key_id,
                             sc_signing_key *out, sc_error *err)
{
    if (out == NULL)
        return sc_error_set(err, SC_E_USAGE, NULL, "sc_keys_load_signing: no output");
    memset(out, 0, sizeof *out);
    sc_key_paths kp = {NULL, NULL};
    sc_code c = SC_OK;
    if (private_path == NULL || public_path == NULL) {
        if (keys_dir == NULL)
            return sc_error_set(err, SC_E_USAGE, NULL,
                                "sc_keys_load_signing: no keys directory and no key paths");
        if ((c = sc_key_paths_in(keys_dir, &kp, err)) != SC_OK)
            return c;
    }
    const char *priv = private_path ? private_path : kp.private_path;
    const char *pub = public_path ? public_path : kp.public_path;
    c = sc_keys_load(priv, pub, out, err);
    if (c == SC_OK && key_id != NULL &&
        (out->key_id_len != strlen(key_id) || strcmp(out->key_id, key_id) != 0)) {
        c = sc_error_set(err, SC_E_INVALID_KEY, pub,
                         "the key pair of %s is keyId \"%s\", not \"%s\"", pub, out->key_id,
                         key_id);
        sc_signing_key_free(out);
    }
    sc_key_paths_free(&kp);
    return c;
}
