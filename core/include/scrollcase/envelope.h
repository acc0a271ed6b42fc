/* SPDX-License-Identifier: Apache-2.0 */
/*
 * envelope.h — signed documents: the v3 envelope (docs/format-v3.md 9).
 *
 * Guarantees:
 *  - Signing encodes, hashes and signs the payload bytes exactly as given
 *    (pure Ed25519, libsodium) and builds the envelope of 9.1 with its
 *    members in order; its text comes from the deterministic writer.
 *  - Verification runs 9.2 steps 2-10 in that order and reports the first
 *    failure only: strict JSON, the envelope's version before anything else
 *    of it, its members, the payload's hash, one signature that verifies
 *    strictly (crypto_sign_verify_detached) under a trusted keyId, then the
 *    payload as a manifest (sc_manifest_check).  The payload bytes are never
 *    re-serialised.  Step 1, the trust file, is sc_trust_read_file, or the
 *    first thing sc_envelope_verify_file does.
 *  - The external signer (9.3) is run without a shell (posix_spawnp of the
 *    split words), given the payload on stdin; its stdout is capped at
 *    SC_SIGNER_OUTPUT_MAX, and what it prints is used only if it is an
 *    envelope of exactly those bytes that verifies against the given trust.
 *    Every failure is SC_E_SIGNER_FAILED; a command that does not split
 *    (unmatched quote, no word) is SC_E_USAGE.
 */
#ifndef SCROLLCASE_ENVELOPE_H
#define SCROLLCASE_ENVELOPE_H

#include <stddef.h>

#include "scrollcase/digest.h"
#include "scrollcase/error.h"
#include "scrollcase/json.h"
#include "scrollcase/keys.h"
#include "scrollcase/manifest.h"
#include "scrollcase/trust.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SC_ENVELOPE_SCHEMA_VERSION 3
#define SC_PAYLOAD_ENCODING "base64-json-utf8"
#define SC_SIGNATURE_ALGORITHM "ed25519"
#define SC_SIGNER_OUTPUT_MAX ((size_t)16 * 1024 * 1024)
/* How long an external signer may take before it is killed (signer-failed). */
#define SC_SIGNER_TIMEOUT_SECONDS 300

/* What steps 2-6 establish.  Owned; sc_opened_envelope_free. */
typedef struct sc_opened_envelope {
    unsigned char *payload; /* the exact payload bytes (NUL after them) */
    size_t payload_len;
    char payload_sha256[SC_SHA256_HEX_LEN + 1];
    char *key_id;           /* of the first signature that verified */
    size_t key_id_len;
} sc_opened_envelope;

/* A verified document (steps 2-10).  Owned; sc_verified_document_free. */
typedef struct sc_verified_document {
    sc_manifest_info info;  /* type, kind, namespace, identity */
    char *key_id;           /* of the first signature that verified */
    size_t key_id_len;
    char payload_sha256[SC_SHA256_HEX_LEN + 1];
    sc_json *payload;       /* the parsed payload */
} sc_verified_document;

void sc_opened_envelope_free(sc_opened_envelope *o);
void sc_verified_document_free(sc_verified_document *d);

/* ---- signing ------------------------------------------------------------ */

/*
 * The envelope for len (>= 1) payload bytes, one signature per key in the
 * order given (nkeys >= 1).
 */
sc_code sc_envelope_sign(const void *payload, size_t len, const sc_signing_key *keys,
                         size_t nkeys, sc_json **envelope, sc_error *err);

/* The same, as the deterministic writer's text (caller frees). */
sc_code sc_envelope_sign_text(const void *payload, size_t len,
                              const sc_signing_key *keys, size_t nkeys, char **text,
                              size_t *text_len, sc_error *err);

/* ---- verifying ---------------------------------------------------------- */

/* Steps 2-6 on the envelope's bytes. */
sc_code sc_envelope_open(const char *bytes, size_t len, const sc_trust *trust,
                         sc_opened_envelope *out, sc_error *err);

/*
 * Steps 2-10.  expect is SC_DOC_ANY or the one type the caller accepts
 * (SC_DOC_RELEASE, SC_DOC_CHANNEL, SC_DOC_REVOCATIONS, ...).
 */
sc_code sc_envelope_verify(const char *bytes, size_t len, const sc_trust *trust,
                           sc_doc_type expect, sc_verified_document *out,
                           sc_error *err);

/*
 * Steps 1-10: read the trust file first, then the document (a document that
 * cannot be read is SC_E_IO), then verify.
 */
sc_code sc_envelope_verify_file(const char *trust_path, const char *document_path,
                                sc_doc_type expect, sc_verified_document *out,
                                sc_error *err);

/* ---- external signers (9.3) -------------------------------------------- */

/*
 * Split a command into words: whitespace (space, tab, CR, LF) separates;
 * '...' is literal; "..." is literal but for \" and \\; outside quotes a
 * backslash takes the next character literally (a final lone backslash is
 * itself).  An unmatched quote or no word at all is SC_E_USAGE.  *words is a
 * NULL-terminated array of *count strings; sc_signer_words_free.
 */
sc_code sc_signer_split(const char *command, char ***words, size_t *count,
                        sc_error *err);
void sc_signer_words_free(char **words);

/*
 * Have the external signer sign len (>= 1) payload bytes, check what it
 * returns and verify it (steps 2-10, expect as above) against trust.  On
 * success *text is the envelope written by the deterministic writer.
 */
sc_code sc_envelope_sign_external(const char *command, const void *payload,
                                  size_t len, const sc_trust *trust,
                                  sc_doc_type expect, char **text, size_t *text_len,
                                  sc_error *err);

/*
 * The same with another time limit: the signer (its whole process group)
 * is killed once timeout_seconds (>= 1) have passed, and that is
 * SC_E_SIGNER_FAILED.  sc_envelope_sign_external uses
 * SC_SIGNER_TIMEOUT_SECONDS.
 */
sc_code sc_envelope_sign_external_timeout(const char *command, const void *payload,
                                          size_t len, const sc_trust *trust,
                                          sc_doc_type expect, unsigned timeout_seconds,
                                          char **text, size_t *text_len, sc_error *err);

#ifdef __cplusplus
}
#endif

#endif
