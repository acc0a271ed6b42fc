/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cmd_documents.c — scrollcase keygen, sign and verify-document.
 *
 * Argument parsing and printing only: keys, envelopes, trust files and
 * manifests are libscrollcase's (keys.h, envelope.h, trust.h, manifest.h).
 * Exit status as everywhere: 0 success, 1 a rejection, 2 a usage error.
 */
#include "commands.h"

#include "args.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <stdint.h>

#include "scrollcase/cohort.h"
#include "scrollcase/config.h"
#include "scrollcase/envelope.h"
#include "scrollcase/error.h"
#include "scrollcase/file.h"
#include "scrollcase/json.h"
#include "scrollcase/keys.h"
#include "scrollcase/manifest.h"
#include "scrollcase/trust.h"


/* An object of string members from NULL-terminated name/value pairs. */
static sc_json *object_of(const char *const *pairs)
{
    sc_json *o = sc_json_new_object();
    for (size_t i = 0; o != NULL && pairs[i] != NULL; i += 2)
        if (sc_json_object_append(o, pairs[i], sc_json_new_string(pairs[i + 1])) != 0) {
            sc_json_free(o);
            return NULL;
        }
    return o;
}

static sc_code keys_dir(const sc_cli_args *a, sc_key_paths *kp, sc_error *err)
{
    sc_workspace ws;
    sc_code c = sc_workspace_resolve(&a->ws, &ws, err);
    if (c != SC_OK)
        return c;
    c = sc_key_paths_in(ws.paths[SC_WS_KEYS], kp, err);
    sc_workspace_free(&ws);
    return c;
}

/* ---- keygen ------------------------------------------------------------- */

static int cmd_keygen(sc_cli_args *a)
{
    if (a->npositional != 0)
        return sc_cli_usage_error("unexpected argument %s", a->positional[0]);
    sc_workspace ws;
    sc_error err;
    if (sc_workspace_resolve(&a->ws, &ws, &err) != SC_OK)
        return sc_cli_report(&err);
    sc_signing_key k;
    sc_key_paths kp = {NULL, NULL};
    sc_code c = sc_signing_key_generate(NULL, a->key_id, &k, &err);
    int have_key = c == SC_OK;
    if (c == SC_OK)
        c = sc_key_paths_in(ws.paths[SC_WS_KEYS], &kp, &err);
    /* upstream's --private-key / --public-key: either file elsewhere, the
     * other one where it would be in the keys directory */
    const char *chosen[2] = {sc_cli_value(a, OPT_PRIVATE_KEY), a->public_key};
    char **slot[2] = {&kp.private_path, &kp.public_path};
    for (int i = 0; i < 2 && c == SC_OK; i++) {
        if (chosen[i] == NULL)
            continue;
        free(*slot[i]);
        if ((*slot[i] = strdup(chosen[i])) == NULL)
            c = sc_error_set(&err, SC_E_OUT_OF_MEMORY, NULL, "out of memory");
    }
    if (c == SC_OK && chosen[0] == NULL && chosen[1] == NULL) {
        sc_key_paths_free(&kp);
        c = sc_keys_write(ws.paths[SC_WS_KEYS], &k, sc_cli_has(a, OPT_FORCE), &kp, &err);
    } else if (c == SC_OK) {
        c = sc_keys_write_to(kp.private_path, kp.public_path, &k, sc_cli_has(a, OPT_FORCE),
                             &err);
    }
    if (c != SC_OK) {
        sc_key_paths_free(&kp);
        if (have_key)
            sc_signing_key_free(&k);
    }
    sc_workspace_free(&ws);
    if (c != SC_OK)
        return sc_cli_report(&err);
    int rc = 0;
    if (sc_cli_has(a, OPT_JSON)) {
        const char *pairs[] = {"keyId", k.key_id, "privateKeyPath", kp.private_path,
                               "publicKeyPath", kp.public_path, NULL};
        rc = sc_cli_print_json(object_of(pairs));
    } else {
        printf("created signing key %s\n  private key: %s\n  public key:  %s\n", k.key_id,
               kp.private_path, kp.public_path);
    }
    sc_signing_key_free(&k);
    sc_key_paths_free(&kp);
    return rc;
}

/* ---- sign --------------------------------------------------------------- */

/* FILE less a final ".json", plus ".signed.json" (caller frees). */
static char *default_output(const char *file)
{
    size_t n = strlen(file);
    if (n > 5 && strcmp(file + n - 5, ".json") == 0)
        n -= 5;
    char *out = malloc(n + sizeof ".signed.json");
    if (out != NULL) {
        memcpy(out, file, n);
        memcpy(out + n, ".signed.json", sizeof ".signed.json");
    }
    return out;
}

static int cmd_sign(sc_cli_args *a)
{
    if (a->npositional != 1)
        return sc_cli_usage_error("%s", "sign takes one FILE (a manifest)");
    if (a->signer != NULL && a->key_id != NULL)
        return sc_cli_usage_error("%s", "--key-id is for local keys, not with --signer-command");
    const char *private_key = sc_cli_value(a, OPT_PRIVATE_KEY);
    if (a->signer != NULL && private_key != NULL)
        return sc_cli_usage_error("%s", "--private-key is for local signing, not with "
                                        "--signer-command (the external signer holds its key)");
    const char *file = a->positional[0];
    sc_error err;
    sc_json *doc = NULL;
    sc_manifest_info info;
    sc_code c = sc_json_parse_file(file, &doc, &err);
    if (c == SC_OK && (c = sc_manifest_check(doc, SC_DOC_ANY, &info, &err)) != SC_OK)
        sc_error_prefix(&err, file);
    char *payload = NULL, *text = NULL;
    size_t payload_len = 0, text_len = 0;
    if (c == SC_OK)
        c = sc_json_write(doc, &payload, &payload_len, &err);
    sc_json_free(doc);
    sc_key_paths kp = {NULL, NULL};
    if (c == SC_OK && (a->public_key == NULL || (a->signer == NULL && private_key == NULL)))
        c = keys_dir(a, &kp, &err);
    if (c == SC_OK && a->signer != NULL) {
        sc_trust trust;
        c = sc_trust_read_file(a->public_key ? a->public_key : kp.public_path, &trust, &err);
        if (c == SC_OK) {
            c = sc_envelope_sign_external(a->signer, payload, payload_len, &trust,
                                          SC_DOC_ANY, &text, &text_len, &err);
            sc_trust_free(&trust);
        }
    } else if (c == SC_OK) {
        sc_signing_key k;
        c = sc_keys_load_signing(NULL, private_key ? private_key : kp.private_path,
                                 a->public_key ? a->public_key : kp.public_path, a->key_id, &k,
                                 &err);
        if (c == SC_OK)
            c = sc_envelope_sign_text(payload, payload_len, &k, 1, &text, &text_len, &err);
        sc_signing_key_free(&k);
    }
    free(payload);
    sc_key_paths_free(&kp);
    char *out = NULL;
    if (c == SC_OK) {
        out = a->out ? strdup(a->out) : default_output(file);
        if (out == NULL)
            c = sc_error_set(&err, SC_E_OUT_OF_MEMORY, NULL, "out of memory");
    }
    if (c == SC_OK)
        c = sc_file_write_atomic(out, text, text_len, 0644, &err);
    free(text);
    int rc = 0;
    if (c != SC_OK)
        rc = sc_cli_report(&err);
    else if (sc_cli_has(a, OPT_JSON)) {
        const char *pairs[] = {"kind", info.kind, "identity", info.identity, "outputPath", out,
                               NULL};
        rc = sc_cli_print_json(object_of(pairs));
    } else {
        printf("signed %s %s -> %s\n", info.kind, info.identity, out);
    }
    free(out);
    return rc;
}

/* ---- verify-document ---------------------------------------------------- */

static int cmd_verify(sc_cli_args *a)
{
    if (a->npositional != 1)
        return sc_cli_usage_error("%s", "verify-document takes one FILE (a signed document)");
    if (a->trust == NULL)
        return sc_cli_usage_error("%s", "verify-document needs --trust TRUSTFILE");
    sc_doc_type expect = SC_DOC_ANY;
    if (a->expect != NULL) {
        if (strcmp(a->expect, "release") == 0)
            expect = SC_DOC_RELEASE;
        else if (strcmp(a->expect, "channel") == 0)
            expect = SC_DOC_CHANNEL;
        else if (strcmp(a->expect, "revocations") == 0)
            expect = SC_DOC_REVOCATIONS;
        else
            return sc_cli_usage_error("--expect takes release, channel or revocations, not %s",
                               a->expect);
    }
    sc_verified_document vd;
    sc_error err;
    sc_code c = sc_envelope_verify_file(a->trust, a->positional[0], expect, &vd, &err);
    int json = sc_cli_has(a, OPT_JSON) != 0;
    if (c != SC_OK)
        return sc_cli_report(&err);
    int rc = 0;
    if (json) {
        sc_json *o = sc_json_new_object();
        sc_json *keys = sc_json_new_array();
        int bad = o == NULL || keys == NULL ||
                  sc_json_array_append(keys, sc_json_new_string_len(vd.key_id, vd.key_id_len)) ||
                  sc_json_object_append(o, "kind", sc_json_new_string(vd.info.kind)) ||
                  sc_json_object_append(o, "namespace", sc_json_new_string(vd.info.ns)) ||
                  sc_json_object_append(o, "identity", sc_json_new_string(vd.info.identity)) ||
                  sc_json_object_append(o, "signingKeyIds", keys) ||
                  sc_json_object_append(o, "payloadSha256",
                                        sc_json_new_string(vd.payload_sha256));
        if (bad) {
            sc_json_free(o);
            o = NULL;
        }
        rc = sc_cli_print_json(o);
    } else {
        printf("ok %s %s signed-by %s\n", vd.info.kind, vd.info.identity, vd.key_id);
    }
    sc_verified_document_free(&vd);
    return rc;
}

static int cmd_channel(sc_cli_args *a)
{
    if (a->npositional != 2 || strcmp(a->positional[0], "resolve") != 0)
        return sc_cli_usage_error("%s", "channel takes: resolve CHANNEL --install-id ID --trust TRUSTFILE");
    if (a->trust == NULL || a->install_id == NULL)
        return sc_cli_usage_error("%s", "channel resolve needs --install-id ID and --trust TRUSTFILE");
    sc_verified_document vd;
    sc_error err;
    if (sc_envelope_verify_file(a->trust, a->positional[1], SC_DOC_CHANNEL, &vd, &err) != SC_OK)
        return sc_cli_report(&err);
    size_t index = 0;
    uint32_t bucket = 0;
    int rc = 0;
    if (sc_cohort_select(vd.payload, a->install_id, &index, &bucket, &err) != SC_OK) {
        rc = sc_cli_report(&err);
    } else {
        const sc_json *rel = sc_json_at(sc_json_get(vd.payload, "releases"), index);
        const char *version = sc_json_cstr(sc_json_get(rel, "version"));
        const char *url = sc_json_cstr(sc_json_get(rel, "releaseManifestUrl"));
        if (sc_cli_has(a, OPT_JSON)) {
            sc_json *o = sc_json_new_object();
            int bad = o == NULL ||
                      sc_json_object_append(o, "bucket", sc_json_new_number(bucket)) ||
                      sc_json_object_append(o, "index", sc_json_new_number((double)index)) ||
                      sc_json_object_append(o, "version", sc_json_copy(sc_json_get(rel, "version"))) ||
                      sc_json_object_append(o, "releaseManifestUrl",
                                            sc_json_copy(sc_json_get(rel, "releaseManifestUrl")));
            if (bad) {
                sc_json_free(o);
                o = NULL;
            }
            rc = sc_cli_print_json(o);
        } else {
            printf("serve %s %s (bucket %u, release #%zu)\n", version ? version : "?",
                   url ? url : "?", (unsigned)bucket, index);
        }
    }
    sc_verified_document_free(&vd);
    return rc;
}

/* ---- the table --------------------------------------------------------- */

const sc_cli_command sc_cli_documents_commands[] = {
    {"keygen", "publisher", "make an Ed25519 signing key pair in the keys directory",
     "Makes an Ed25519 key pair and writes <keys>/signing-private.pem (PKCS#8 PEM,\n"
     "mode 0600) and <keys>/signing-public.json ({algorithm, keyId,\n"
     "publicKeyBase64, publicKeyPem}); --private-key and --public-key write either\n"
     "file elsewhere (missing directories are made).  The keyId is \"scrollcase-\"\n"
     "and 16 hex digits of the public key's SHA-256 unless --key-id gives one.  An\n"
     "existing key file is only replaced with --force (else key-exists, nothing\n"
     "written); the pair is written whole or not at all.  Prints the keyId and\n"
     "both paths; --json prints them as an object.\n",
     NULL,
     SC_CLI_OPTIONS({OPT_KEY_ID, "the keyId to record (default: derived from the key)"},
                    {OPT_FORCE, "replace an existing key pair"},
                    {OPT_PRIVATE_KEY,
                     "where the private key is written (default: <keys>/signing-private.pem)"},
                    {OPT_PUBLIC_KEY,
                     "where the public key file is written (default: <keys>/signing-public.json)"},
                    {OPT_JSON, NULL}),
     NULL, 0, cmd_keygen, NULL},
    {"sign", "publisher", "sign a manifest into a v3 envelope",
     "Checks the manifest FILE (any kind: release, channel, revocations, licence\n"
     "inventory), writes it once with the deterministic writer, and signs those\n"
     "bytes into a v3 envelope written atomically to --out (default: FILE less\n"
     "a final \".json\", plus \".signed.json\").\n"
     "\n"
     "Local signing uses the private key --private-key (default\n"
     "<keys>/signing-private.pem) with its public key file --public-key\n"
     "(default <keys>/signing-public.json): they must be one pair, and the\n"
     "public file's keyId signs; --key-id ID refuses to sign unless it is ID\n"
     "(invalid-key).\n"
     "--signer-command CMD runs CMD (split into words, no shell) with the\n"
     "payload on stdin and takes the envelope it prints, after verifying it\n"
     "against --public-key (default <keys>/signing-public.json); any failure is\n"
     "signer-failed.\n",
     SC_CLI_OPERANDS({"FILE", 1, 0, SC_COMPLETE_FILE}),
     SC_CLI_OPTIONS({OPT_OUT, "the envelope to write (default: FILE.signed.json)"},
                    {OPT_KEY_ID, "refuse unless the local key pair is this keyId"},
                    {OPT_SIGNER, NULL}, {OPT_PRIVATE_KEY, NULL}, {OPT_PUBLIC_KEY, NULL},
                    {OPT_JSON, NULL}),
     NULL, 0, cmd_sign, NULL},
    {"verify-document", "consumer", "verify a signed document",
     "Verifies a signed document (docs/format-v3.md 9.2): the trust file, the\n"
     "envelope, the payload hash, a signature by a trusted key (strict Ed25519),\n"
     "then the payload as a manifest, of the type --expect names if given.\n"
     "Prints \"ok <kind> <identity> signed-by <keyId>\", or the error; --json\n"
     "prints {\"ok\": true, kind, namespace, identity, keyId, payloadSha256} or\n"
     "{\"ok\": false, code, message}.  Exit 1 when it does not verify.\n",
     SC_CLI_OPERANDS({"FILE", 1, 0, SC_COMPLETE_FILE}),
     SC_CLI_OPTIONS({OPT_TRUST, NULL}, {OPT_EXPECT, NULL}, {OPT_JSON, NULL}),
     NULL, 0, cmd_verify, SC_CLI_ALIASES({"--public-key", OPT_TRUST})},
    {"channel resolve", "consumer", "the release a signed channel serves this install",
     "Verifies the signed channel document CHANNEL against TRUSTFILE (9.2), then\n"
     "picks the release this install is served (docs/format-v3.md 12): the\n"
     "install id's bucket, SHA-256 of cohortSalt, a 0 byte and the id, read as a\n"
     "big-endian 32-bit number modulo 10000, against each release's\n"
     "rolloutPercentage x 100 in the order listed.  Prints \"serve <version>\n"
     "<releaseManifestUrl> (bucket N, release #I)\"; --json prints {bucket, index,\n"
     "version, releaseManifestUrl}.  None served: no-release-for-cohort.\n",
     SC_CLI_OPERANDS({"CHANNEL", 1, 0, SC_COMPLETE_FILE}),
     SC_CLI_OPTIONS({OPT_INSTALL_ID, NULL}, {OPT_TRUST, NULL}, {OPT_JSON, NULL}),
     NULL, 0, cmd_channel, SC_CLI_ALIASES({"--public-key", OPT_TRUST})},
    SC_CLI_END,
};
