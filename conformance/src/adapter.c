/* SPDX-License-Identifier: Apache-2.0 */
/*
 * adapter.c — scrollcase-adapter, the built-in adapter: the conformance
 * protocol (conformance/README.md) spoken by the C reference library.
 *
 *   scrollcase-adapter --hello
 *   scrollcase-adapter <operation> --case DIR [--work DIR]
 *   scrollcase-adapter --persistent        (JSON lines on stdin/stdout)
 *
 * Exit status of a one-shot call (protocol 2): 0 with the result on stdout;
 * 1 with {"error": "<code>"} on stdout when the library rejected the input;
 * 77 with {"unsupported": "<reason>"} when the operation (or an argument of
 * the case) is not supported; 3 when the adapter itself could not do its job
 * (a malformed case.json, a missing input, an I/O failure outside the
 * library, a library failure that is not a rejection).  The runner treats 3
 * like any crash.  In persistent mode the same answers travel as response
 * lines, and a failure of the adapter itself ends the process (status 3),
 * which the runner counts as a crash of that one case.
 *
 * case.json and every input are read with the library's strict reader and
 * checked before use: the adapter never trusts the corpus.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <stdint.h>

#include "scrollcase/address.h"
#include "scrollcase/base64.h"
#include "scrollcase/cohort.h"
#include "scrollcase/config.h"
#include "scrollcase/envelope.h"
#include "scrollcase/keys.h"
#include "scrollcase/manifest.h"
#include "scrollcase/trust.h"
#include "scrollcase/error.h"
#include "scrollcase/file.h"
#include "scrollcase/json.h"
#include "scrollcase/migrate.h"
#include "scrollcase/path.h"
#include "scrollcase/process.h"
#include "scrollcase/run.h"
#include "scrollcase/scroll.h"
#include "scrollcase/target.h"
#include "util.h"

#include "adapter.h"

/* ---- small helpers ------------------------------------------------------ */


/* The reason of the last "unsupported" answer. */
static char unsupported_reason[512];

int ad_fail(int status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (status == EXIT_UNSUPPORTED) {
        va_list again;
        va_copy(again, ap);
        vsnprintf(unsupported_reason, sizeof unsupported_reason, fmt, again);
        va_end(again);
    }
    fputs(ADAPTER_NAME ": ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return status;
}

const sc_json *ad_get(const sc_json *o, const char *key)
{
    if (o == NULL || o->type != SC_JSON_OBJECT)
        return NULL;
    return sc_json_get(o, key);
}

sc_json *ad_must(sc_json *v)
{
    if (v == NULL) {
        fputs(ADAPTER_NAME ": out of memory\n", stderr);
        exit(EXIT_ADAPTER);
    }
    return v;
}

void ad_put(sc_json *o, const char *key, sc_json *v)
{
    if (sc_json_object_set(o, key, ad_must(v)) != 0) {
        fputs(ADAPTER_NAME ": out of memory\n", stderr);
        exit(EXIT_ADAPTER);
    }
}

/* The file of the only input with this role, as a path under the case. */
int ad_input_path(kase *k, const char *role, char **path, const char **rel)
{
    const char *found = NULL;
    for (size_t i = 0; i < k->inputs->length; i++) {
        const sc_json *in = sc_json_at(k->inputs, i);
        if (strcmp(sc_json_cstr(ad_get(in, "role")), role) != 0)
            continue;
        if (found != NULL)
            return ad_fail(EXIT_ADAPTER, "case.json has more than one input with role %s",
                        role);
        found = sc_json_cstr(ad_get(in, "file"));
    }
    if (found == NULL)
        return ad_fail(EXIT_ADAPTER, "case.json has no input with role %s", role);
    *path = sc_xjoin(k->dir, found);
    if (rel != NULL)
        *rel = found;
    return 0;
}

/* Only the listed argument names are understood: anything else means the
 * case needs something this adapter does not know (unsupported). */
int ad_args_known(kase *k, const char *const *names)
{
    for (const sc_json *m = k->args->child; m != NULL; m = m->next) {
        int known = 0;
        for (size_t i = 0; names[i] != NULL && !known; i++)
            known = strcmp(names[i], m->key) == 0;
        if (!known)
            return ad_fail(EXIT_UNSUPPORTED, "argument \"%s\" is not supported", m->key);
    }
    return 0;
}

static int reference_arg(kase *k)
{
    const sc_json *ref = ad_get(k->args, "reference");
    k->reference = sc_json_cstr(ref);
    if (k->reference == NULL)
        return ad_fail(EXIT_ADAPTER, "args.reference must be a string without NUL");
    return 0;
}

/* ---- operations --------------------------------------------------------- */

static int op_target_id(kase *k, result *r)
{
    static const char *const names[] = {NULL};
    int rc = ad_args_known(k, names);
    char *path = NULL;
    if (rc == 0)
        rc = ad_input_path(k, "target", &path, NULL);
    if (rc != 0)
        return rc;
    sc_json *doc = NULL;
    r->code = sc_json_parse_file(path, &doc, &r->err);
    free(path);
    if (r->code != SC_OK)
        return 0;
    sc_target t;
    r->code = sc_target_from_json(doc, "$", &t, &r->err);
    sc_json_free(doc);
    if (r->code != SC_OK)
        return 0;
    r->out = ad_must(sc_target_describe(&t));
    return 0;
}

/* Nesting depth of a value: a scalar is 0, [] is 1. */
static size_t depth_of(const sc_json *v)
{
    size_t deepest = 0;
    if (v->type != SC_JSON_ARRAY && v->type != SC_JSON_OBJECT)
        return 0;
    for (const sc_json *c = v->child; c != NULL; c = c->next) {
        size_t d = depth_of(c);
        if (d > deepest)
            deepest = d;
    }
    return deepest + 1;
}

static int op_json_read(kase *k, result *r)
{
    static const char *const names[] = {NULL};
    int rc = ad_args_known(k, names);
    char *path = NULL;
    if (rc == 0)
        rc = ad_input_path(k, "document", &path, NULL);
    if (rc != 0)
        return rc;
    sc_json *doc = NULL;
    r->code = sc_json_parse_file(path, &doc, &r->err);
    free(path);
    if (r->code != SC_OK)
        return 0;
    char *text = NULL;
    size_t len = 0;
    r->code = sc_json_write(doc, &text, &len, &r->err);
    if (r->code != SC_OK) {
        sc_json_free(doc);
        return 0;
    }
    r->out = ad_must(sc_json_new_object());
    /* The result object adds one level; a document already at the nesting
     * limit cannot travel as "value" (README: json-read). */
    if (depth_of(doc) < SC_JSON_MAX_DEPTH)
        ad_put(r->out, "value", doc);
    else
        sc_json_free(doc);
    ad_put(r->out, "written", sc_json_new_string_len(text, len));
    free(text);
    return 0;
}

static int op_scroll_resolve(kase *k, result *r)
{
    static const char *const names[] = {"reference", NULL};
    int rc = ad_args_known(k, names);
    if (rc == 0)
        rc = reference_arg(k);
    if (rc != 0)
        return rc;
    char *scrolls = sc_xjoin(k->dir, "scrolls");
    sc_scroll *s = NULL;
    r->code = sc_scroll_load(scrolls, k->reference, &s, &r->err);
    free(scrolls);
    if (r->code != SC_OK) {
        if (s != NULL)
            sc_scroll_free(s);
        return 0;
    }
    if (s == NULL || s->effective == NULL || s->target_id == NULL) {
        return ad_fail(EXIT_ADAPTER, "sc_scroll_load succeeded without a scroll");
    }
    /* "written" pins member order, which the JSON comparison ignores. */
    char *text = NULL;
    size_t len = 0;
    sc_error werr;
    if (sc_json_write(s->effective, &text, &len, &werr) != SC_OK) {
        sc_scroll_free(s);
        return ad_fail(EXIT_ADAPTER, "cannot write the effective scroll");
    }
    r->out = ad_must(sc_json_new_object());
    ad_put(r->out, "targetId", sc_json_new_string(s->target_id));
    ad_put(r->out, "scroll", sc_json_copy(s->effective));
    ad_put(r->out, "written", sc_json_new_string_len(text, len));
    free(text);
    sc_scroll_free(s);
    return 0;
}

/* A path the library reported, relative to the scrolls directory. */
static const char *relative_to(const char *path, const char *dir)
{
    size_t n = strlen(dir);
    if (strncmp(path, dir, n) == 0 && path[n] == '/')
        return path + n + 1;
    if (path[0] == '/')
        return NULL;
    return path;
}

static int op_scroll_migrate(kase *k, result *r)
{
    static const char *const names[] = {"reference", "dryRun", NULL};
    int rc = ad_args_known(k, names);
    if (rc == 0)
        rc = reference_arg(k);
    if (rc != 0)
        return rc;
    const sc_json *dry = ad_get(k->args, "dryRun");
    if (dry != NULL && dry->type != SC_JSON_BOOL)
        return ad_fail(EXIT_ADAPTER, "args.dryRun must be a boolean");
    int dry_run = dry != NULL && dry->boolean;

    /* The library rewrites files: work on a copy, never on the corpus. */
    char *own = NULL;
    const char *work = k->work;
    if (work == NULL) {
        const char *t = getenv("TMPDIR");
        own = sc_xjoin(t && t[0] ? t : "/tmp", "scrollcase-adapter-XXXXXX");
        if (mkdtemp(own) == NULL) {
            rc = ad_fail(EXIT_ADAPTER, "cannot create a work directory: %s",
                      strerror(errno));
            free(own);
            return rc;
        }
        work = own;
    }
    char *src = sc_xjoin(k->dir, "scrolls");
    char *scrolls = sc_xjoin(work, "scrolls");
    char msg[512];
    struct stat st;
    if (lstat(scrolls, &st) == 0) {
        rc = ad_fail(EXIT_ADAPTER, "work directory %s is not empty", work);
    } else if (lstat(src, &st) == 0) {
        if (sc_copytree(src, scrolls, msg, sizeof msg) != 0)
            rc = ad_fail(EXIT_ADAPTER, "%s", msg);
    } else if (mkdir(scrolls, 0755) != 0) {
        rc = ad_fail(EXIT_ADAPTER, "cannot create %s: %s", scrolls, strerror(errno));
    }

    sc_migrate_result mr = {0};
    if (rc == 0) {
        r->code = sc_migrate_ref(scrolls, k->reference, dry_run, &mr, &r->err);
        if (r->code == SC_OK) {
            sc_json *written = ad_must(sc_json_new_array());
            sc_json *files = ad_must(sc_json_new_object());
            for (size_t i = 0; i < mr.count && rc == 0; i++) {
                const char *rel = relative_to(mr.written[i], scrolls);
                if (rel == NULL) {
                    rc = ad_fail(EXIT_ADAPTER, "migration wrote %s, outside %s",
                              mr.written[i], scrolls);
                    break;
                }
                sc_json_array_append(written, ad_must(sc_json_new_string(rel)));
                char *full = sc_xjoin(scrolls, rel);
                sc_json *doc = NULL;
                sc_error e;
                sc_error_clear(&e);
                if (sc_json_parse_file(full, &doc, &e) != SC_OK)
                    rc = ad_fail(EXIT_ADAPTER, "cannot read back %s: %s", full, e.message);
                else
                    ad_put(files, rel, doc);
                free(full);
            }
            if (rc == 0) {
                r->out = ad_must(sc_json_new_object());
                ad_put(r->out, "written", written);
                ad_put(r->out, "files", files);
            } else {
                sc_json_free(written);
                sc_json_free(files);
            }
        }
        sc_migrate_result_free(&mr);
    }
    if (own != NULL) {
        sc_rmtree(own);
        free(own);
    }
    free(src);
    free(scrolls);
    return rc;
}

static int op_config_check(kase *k, result *r)
{
    static const char *const names[] = {NULL};
    int rc = ad_args_known(k, names);
    char *path = NULL;
    const char *rel = NULL;
    if (rc == 0)
        rc = ad_input_path(k, "config", &path, &rel);
    if (rc != 0)
        return rc;
    sc_json *doc = NULL;
    r->code = sc_json_parse_file(path, &doc, &r->err);
    free(path);
    if (r->code != SC_OK)
        return 0;
    const char *paths[SC_WS_PATH_COUNT] = {0};
    r->code = sc_config_check(doc, rel, paths, &r->err);
    if (r->code == SC_OK) {
        sc_json *p = ad_must(sc_json_new_object());
        for (int i = 0; i < SC_WS_PATH_COUNT; i++)
            if (paths[i] != NULL)
                ad_put(p, sc_ws_path_key((enum sc_ws_path)i), sc_json_new_string(paths[i]));
        r->out = ad_must(sc_json_new_object());
        ad_put(r->out, "paths", p);
    }
    sc_json_free(doc);
    return 0;
}

/* ---- signed documents and manifests (format-v3 8-13) ------------------- */

int ad_string_arg(kase *k, const char *name, int required, const char **out)
{
    const sc_json *v = ad_get(k->args, name);
    *out = NULL;
    if (v == NULL)
        return required ? ad_fail(EXIT_ADAPTER, "args.%s is required", name) : 0;
    *out = sc_json_cstr(v);
    if (*out == NULL)
        return ad_fail(EXIT_ADAPTER, "args.%s must be a string without NUL", name);
    return 0;
}

/* A document type named in args ("release", "box", ...). */
static int type_arg(const char *s, sc_doc_type *t)
{
    static const struct {
        const char *name;
        sc_doc_type type;
    } types[] = {{"release", SC_DOC_RELEASE},
                 {"channel", SC_DOC_CHANNEL},
                 {"revocations", SC_DOC_REVOCATIONS},
                 {"license-inventory", SC_DOC_LICENSE_INVENTORY},
                 {"box", SC_DOC_BOX}};
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
        if (strcmp(types[i].name, s) == 0) {
            *t = types[i].type;
            return 0;
        }
    return ad_fail(EXIT_UNSUPPORTED, "document type \"%s\" is not supported", s);
}

/* Parse the input of a role; a rejection fills r and returns 0 with *doc NULL. */
int ad_parse_input(kase *k, const char *role, sc_json **doc, result *r)
{
    char *path = NULL;
    *doc = NULL;
    int rc = ad_input_path(k, role, &path, NULL);
    if (rc != 0)
        return rc;
    r->code = sc_json_parse_file(path, doc, &r->err);
    free(path);
    return 0;
}

/* parse_input, then the manifest checks of its type: the agreement, cohort
 * and revocation operations take checked manifests (10.4, 12, 13). */
static int parse_manifest_input(kase *k, const char *role, sc_doc_type type,
                                sc_json **doc, result *r)
{
    int rc = ad_parse_input(k, role, doc, r);
    if (rc == 0 && r->code == SC_OK)
        r->code = sc_manifest_check(*doc, type, NULL, &r->err);
    return rc;
}

static int op_document_verify(kase *k, result *r)
{
    static const char *const names[] = {"expectType", NULL};
    const char *expect_name = NULL;
    sc_doc_type expect = SC_DOC_ANY;
    char *doc = NULL, *trust = NULL;
    int rc = ad_args_known(k, names);
    if (rc == 0)
        rc = ad_string_arg(k, "expectType", 0, &expect_name);
    if (rc == 0 && expect_name != NULL)
        rc = type_arg(expect_name, &expect);
    if (rc == 0)
        rc = ad_input_path(k, "document", &doc, NULL);
    if (rc == 0)
        rc = ad_input_path(k, "trust", &trust, NULL);
    if (rc == 0) {
        sc_verified_document vd;
        memset(&vd, 0, sizeof vd);
        r->code = sc_envelope_verify_file(trust, doc, expect, &vd, &r->err);
        if (r->code == SC_OK) {
            r->out = ad_must(sc_json_new_object());
            ad_put(r->out, "kind", sc_json_new_string(vd.info.kind));
            ad_put(r->out, "namespace", sc_json_new_string(vd.info.ns));
            ad_put(r->out, "type", sc_json_new_string(sc_doc_type_name(vd.info.type)));
            ad_put(r->out, "identity", sc_json_new_string(vd.info.identity));
            ad_put(r->out, "keyId", sc_json_new_string_len(vd.key_id, vd.key_id_len));
            ad_put(r->out, "payloadSha256", sc_json_new_string(vd.payload_sha256));
        }
        sc_verified_document_free(&vd);
    }
    free(doc);
    free(trust);
    return rc;
}

sc_json *ad_base64_of(const unsigned char *bytes, size_t n)
{
    char *text = NULL;
    size_t len = 0;
    sc_error err;
    if (sc_base64_encode(bytes, n, &text, &len, &err) != SC_OK)
        return NULL;
    sc_json *s = sc_json_new_string_len(text, len);
    free(text);
    return s;
}

static int op_trust_read(kase *k, result *r)
{
    static const char *const names[] = {NULL};
    char *path = NULL;
    int rc = ad_args_known(k, names);
    if (rc == 0)
        rc = ad_input_path(k, "trust", &path, NULL);
    if (rc != 0)
        return rc;
    sc_trust t;
    memset(&t, 0, sizeof t);
    r->code = sc_trust_read_file(path, &t, &r->err);
    free(path);
    if (r->code == SC_OK) {
        sc_json *keys = ad_must(sc_json_new_array());
        for (size_t i = 0; i < t.count; i++) {
            sc_json *e = ad_must(sc_json_new_object());
            ad_put(e, "keyId", sc_json_new_string_len(t.keys[i].key_id, t.keys[i].key_id_len));
            ad_put(e, "publicKeyBase64", ad_base64_of(t.keys[i].public_key, SC_ED25519_PUBLIC_LEN));
            if (sc_json_array_append(keys, e) != 0)
                ad_must(NULL);
        }
        r->out = ad_must(sc_json_new_object());
        ad_put(r->out, "keys", keys);
    }
    sc_trust_free(&t);
    return 0;
}

static int hex_nibble(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return -1;
}

static int op_keygen(kase *k, result *r)
{
    static const char *const names[] = {"seedHex", "keyId", NULL};
    const char *hex = NULL, *key_id = NULL;
    unsigned char seed[SC_ED25519_SEED_LEN];
    int rc = ad_args_known(k, names);
    if (rc == 0)
        rc = ad_string_arg(k, "seedHex", 1, &hex);
    if (rc == 0)
        rc = ad_string_arg(k, "keyId", 0, &key_id);
    if (rc != 0)
        return rc;
    if (strlen(hex) != 2 * SC_ED25519_SEED_LEN)
        return ad_fail(EXIT_ADAPTER, "args.seedHex must be 64 lowercase hex digits");
    for (size_t i = 0; i < SC_ED25519_SEED_LEN; i++) {
        int hi = hex_nibble(hex[2 * i]), lo = hex_nibble(hex[2 * i + 1]);
        if (hi < 0 || lo < 0)
            return ad_fail(EXIT_ADAPTER, "args.seedHex must be 64 lowercase hex digits");
        seed[i] = (unsigned char)(hi << 4 | lo);
    }
    sc_signing_key key;
    memset(&key, 0, sizeof key);
    r->code = sc_signing_key_generate(seed, key_id, &key, &r->err);
    if (r->code != SC_OK)
        return 0;
    char *pub = NULL, *priv = NULL;
    size_t pub_len = 0, priv_len = 0;
    r->code = sc_public_pem_write(key.public_key, &pub, &pub_len, &r->err);
    if (r->code == SC_OK)
        r->code = sc_private_pem_write(seed, &priv, &priv_len, &r->err);
    if (r->code == SC_OK) {
        r->out = ad_must(sc_json_new_object());
        ad_put(r->out, "keyId", sc_json_new_string_len(key.key_id, key.key_id_len));
        ad_put(r->out, "publicKeyBase64", ad_base64_of(key.public_key, SC_ED25519_PUBLIC_LEN));
        ad_put(r->out, "publicKeyPem", sc_json_new_string_len(pub, pub_len));
        ad_put(r->out, "privateKeyPem", sc_json_new_string_len(priv, priv_len));
    }
    free(pub);
    free(priv);
    sc_signing_key_free(&key);
    return 0;
}

static int op_manifest_check(kase *k, result *r)
{
    static const char *const names[] = {"type", NULL};
    const char *type_name = NULL;
    sc_doc_type type = SC_DOC_ANY;
    char *path = NULL;
    int rc = ad_args_known(k, names);
    if (rc == 0)
        rc = ad_string_arg(k, "type", 1, &type_name);
    if (rc == 0)
        rc = type_arg(type_name, &type);
    if (rc == 0)
        rc = ad_input_path(k, "manifest", &path, NULL);
    if (rc != 0)
        return rc;
    char *bytes = NULL;
    size_t len = 0;
    sc_json *doc = NULL;
    sc_manifest_info info;
    memset(&info, 0, sizeof info);
    r->code = sc_file_read(path, &bytes, &len, NULL, &r->err);
    free(path);
    if (r->code == SC_OK && type == SC_DOC_BOX) {
        r->code = sc_manifest_read_box_json(bytes, len, &doc, &info, &r->err);
    } else if (r->code == SC_OK) {
        r->code = sc_json_parse(bytes, len, &doc, &r->err);
        if (r->code == SC_OK)
            r->code = sc_manifest_check(doc, type, &info, &r->err);
    }
    if (r->code == SC_OK) {
        r->out = ad_must(sc_json_new_object());
        ad_put(r->out, "type", sc_json_new_string(type_name));
        ad_put(r->out, "identity", sc_json_new_string(info.identity));
    }
    sc_json_free(doc);
    free(bytes);
    return 0;
}

static int op_agreement(kase *k, result *r)
{
    static const char *const names[] = {NULL};
    sc_json *release = NULL, *box = NULL;
    int rc = ad_args_known(k, names);
    /* Each side passes its own schema first (10.4), the release first. */
    if (rc == 0)
        rc = parse_manifest_input(k, "release", SC_DOC_RELEASE, &release, r);
    if (rc == 0 && r->code == SC_OK)
        rc = parse_manifest_input(k, "box", SC_DOC_BOX, &box, r);
    if (rc == 0 && r->code == SC_OK) {
        r->code = sc_manifest_agreement(release, box, &r->err);
        if (r->code == SC_OK)
            r->out = ad_must(sc_json_new_object());
    }
    sc_json_free(release);
    sc_json_free(box);
    return rc;
}

static int op_cohort(kase *k, result *r)
{
    static const char *const names[] = {"installId", NULL};
    const sc_json *id = NULL;
    sc_json *channel = NULL;
    int rc = ad_args_known(k, names);
    if (rc == 0 && (id = ad_get(k->args, "installId")) == NULL)
        rc = ad_fail(EXIT_ADAPTER, "args.installId is required");
    if (rc == 0 && id->type != SC_JSON_STRING)
        rc = ad_fail(EXIT_ADAPTER, "args.installId must be a string");
    if (rc == 0)
        rc = parse_manifest_input(k, "channel", SC_DOC_CHANNEL, &channel, r);
    if (rc == 0 && r->code == SC_OK) {
        size_t index = 0;
        uint32_t bucket = 0;
        r->code = sc_cohort_select_n(channel, id->string, id->length, &index,
                                     &bucket, &r->err);
        if (r->code == SC_OK) {
            const sc_json *rel = sc_json_at(ad_get(channel, "releases"), index);
            r->out = ad_must(sc_json_new_object());
            ad_put(r->out, "bucket", sc_json_new_number((double)bucket));
            ad_put(r->out, "index", sc_json_new_number((double)index));
            ad_put(r->out, "version", sc_json_copy(ad_get(rel, "version")));
            ad_put(r->out, "releaseManifestUrl", sc_json_copy(ad_get(rel, "releaseManifestUrl")));
        }
    }
    sc_json_free(channel);
    return rc;
}

/* 16.7: the channel (checked, 10.5), the entry served to installId (12),
 * then the release input's bytes against that entry's content address and,
 * checked as a release (10.2), its box, version and target. */
static int op_channel_release(kase *k, result *r)
{
    static const char *const names[] = {"installId", NULL};
    const sc_json *id = NULL;
    sc_json *channel = NULL, *release = NULL;
    char *path = NULL, *bytes = NULL;
    size_t len = 0, index = 0;
    int rc = ad_args_known(k, names);
    if (rc == 0 && (id = ad_get(k->args, "installId")) == NULL)
        rc = ad_fail(EXIT_ADAPTER, "args.installId is required");
    if (rc == 0 && id->type != SC_JSON_STRING)
        rc = ad_fail(EXIT_ADAPTER, "args.installId must be a string");
    if (rc == 0)
        rc = parse_manifest_input(k, "channel", SC_DOC_CHANNEL, &channel, r);
    if (rc == 0 && r->code == SC_OK)
        r->code = sc_cohort_select_n(channel, id->string, id->length, &index, NULL, &r->err);
    if (rc == 0 && r->code == SC_OK)
        rc = ad_input_path(k, "release", &path, NULL);
    if (rc == 0 && r->code == SC_OK)
        r->code = sc_file_read(path, &bytes, &len, NULL, &r->err);
    if (rc == 0 && r->code == SC_OK)
        r->code = sc_channel_release_bytes_check(channel, index, bytes, len, &r->err);
    if (rc == 0 && r->code == SC_OK)
        rc = parse_manifest_input(k, "release", SC_DOC_RELEASE, &release, r);
    if (rc == 0 && r->code == SC_OK)
        r->code = sc_channel_release_identity_check(channel, index, release, &r->err);
    if (rc == 0 && r->code == SC_OK) {
        const sc_json *entry = sc_json_at(ad_get(channel, "releases"), index);
        const sc_json *url = ad_get(entry, "releaseManifestUrl");
        char address[65];
        (void)sc_channel_release_address(url->string, url->length, address);
        r->out = ad_must(sc_json_new_object());
        ad_put(r->out, "index", sc_json_new_number((double)index));
        ad_put(r->out, "version", sc_json_copy(ad_get(entry, "version")));
        ad_put(r->out, "releaseSha256", sc_json_new_string(address));
    }
    free(bytes);
    free(path);
    sc_json_free(channel);
    sc_json_free(release);
    return rc;
}

static int op_revocation_check(kase *k, result *r)
{
    static const char *const names[] = {NULL};
    sc_json *release = NULL, *revocations = NULL;
    int rc = ad_args_known(k, names);
    if (rc == 0)
        rc = parse_manifest_input(k, "release", SC_DOC_RELEASE, &release, r);
    if (rc == 0 && r->code == SC_OK)
        rc = parse_manifest_input(k, "revocations", SC_DOC_REVOCATIONS, &revocations, r);
    if (rc == 0 && r->code == SC_OK) {
        r->code = sc_revocation_check(release, revocations, &r->err);
        if (r->code == SC_OK) {
            r->out = ad_must(sc_json_new_object());
            ad_put(r->out, "revoked", sc_json_new_bool(0));
        }
    }
    sc_json_free(release);
    sc_json_free(revocations);
    return rc;
}

static int op_address(kase *k, result *r)
{
    static const char *const names[] = {"boxId", "version", "targetId", "channel",
                                        "archiveSha256", "releaseSha256",
                                        "assetBaseUrl", NULL};
    sc_address_input in;
    int rc = ad_args_known(k, names);
    if (rc == 0)
        rc = ad_string_arg(k, "boxId", 1, &in.box_id);
    if (rc == 0)
        rc = ad_string_arg(k, "version", 1, &in.version);
    if (rc == 0)
        rc = ad_string_arg(k, "targetId", 1, &in.target_id);
    if (rc == 0)
        rc = ad_string_arg(k, "channel", 1, &in.channel);
    if (rc == 0)
        rc = ad_string_arg(k, "archiveSha256", 1, &in.archive_sha256);
    if (rc == 0)
        rc = ad_string_arg(k, "releaseSha256", 1, &in.release_sha256);
    if (rc == 0)
        rc = ad_string_arg(k, "assetBaseUrl", 1, &in.asset_base_url);
    if (rc != 0)
        return rc;
    sc_address a;
    memset(&a, 0, sizeof a);
    r->code = sc_address_make(&in, &a, &r->err);
    if (r->code == SC_OK)
        r->out = ad_must(sc_address_to_json(&a));
    sc_address_free(&a);
    return 0;
}

static const ad_op operations[] = {
    {"address", op_address},
    {"agreement", op_agreement},
    {"channel-release", op_channel_release},
    {"cohort", op_cohort},
    {"config-check", op_config_check},
    {"document-verify", op_document_verify},
    {"json-read", op_json_read},
    {"keygen", op_keygen},
    {"manifest-check", op_manifest_check},
    {"revocation-check", op_revocation_check},
    {"scroll-migrate", op_scroll_migrate},
    {"scroll-resolve", op_scroll_resolve},
    {"target-id", op_target_id},
    {"trust-read", op_trust_read},
    {NULL, NULL},
};

/* Every table; --hello lists the union sorted by name. */
static const ad_op *const op_tables[] = {
    operations,          ad_ops_payload, ad_ops_archive_write, ad_ops_archive_read,
    ad_ops_box,          ad_ops_parity,  ad_ops_audit,
};
#define NTABLES (sizeof op_tables / sizeof op_tables[0])

static op_fn find_op(const char *name)
{
    for (size_t t = 0; t < NTABLES; t++)
        for (const ad_op *o = op_tables[t]; o->name != NULL; o++)
            if (strcmp(o->name, name) == 0)
                return o->fn;
    return NULL;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* ---- protocol ------------------------------------------------------------ */

/* Write v (compact, one line, for a persistent response) to f. */
static int emit(const sc_json *v, FILE *f, int compact)
{
    char *text = NULL;
    size_t len = 0;
    sc_error err;
    sc_error_clear(&err);
    /* An answer carries a document (json-read's value) a level or two down:
     * written with the envelope's depth, as the runner reads it. */
    sc_code code = sc_json_write_depth(v, compact, SC_JSON_ENVELOPE_DEPTH, &text, &len, &err);
    if (code != SC_OK)
        return ad_fail(EXIT_ADAPTER, "cannot write the output: %s", err.message);
    size_t done = fwrite(text, 1, len, f);
    free(text);
    if (done != len || (compact && fputc('\n', f) == EOF) || fflush(f) != 0)
        return ad_fail(EXIT_ADAPTER, "cannot write the answer: %s", strerror(errno));
    return 0;
}

static int hello(void)
{
    sc_json *h = ad_must(sc_json_new_object());
    ad_put(h, "protocol", sc_json_new_number(SC_CONFORM_PROTOCOL_MAJOR));
    ad_put(h, "persistent", sc_json_new_bool(1));
    sc_json *impl = ad_must(sc_json_new_object());
#ifdef SC_ADAPTER_MUTANT
    ad_put(impl, "name", sc_json_new_string("scrollcase-mutant"));
#else
    ad_put(impl, "name", sc_json_new_string("scrollcase"));
#endif
    ad_put(impl, "version", sc_json_new_string(SC_VERSION));
    ad_put(impl, "language", sc_json_new_string("C"));
    ad_put(h, "implementation", impl);
    sc_json *ops = ad_must(sc_json_new_array());
    const char *names[256];
    size_t n = 0;
    for (size_t t = 0; t < NTABLES; t++)
        for (const ad_op *o = op_tables[t]; o->name != NULL; o++) {
            if (n == sizeof names / sizeof names[0])
                return ad_fail(EXIT_ADAPTER, "too many operations");
            names[n++] = o->name;
        }
    qsort(names, n, sizeof names[0], by_name);
    for (size_t i = 0; i < n; i++)
        sc_json_array_append(ops, ad_must(sc_json_new_string(names[i])));
    ad_put(h, "operations", ops);
    /* Features of this host the consumer cases may require (README 3.2). */
    sc_json *features = ad_must(sc_json_new_array());
    sc_json_array_append(features, ad_must(sc_json_new_string("symlinks")));
    sc_json_array_append(features, ad_must(sc_json_new_string("posix-processes")));
    sc_platform platform;
    sc_arch arch;
    if (sc_run_host_pair(&platform, &arch) && platform == SC_PLATFORM_LINUX &&
        arch == SC_ARCH_X86_64)
        sc_json_array_append(features, ad_must(sc_json_new_string("host-linux-x86_64")));
    if (access("/usr/bin/python3", X_OK) == 0)
        sc_json_array_append(features, ad_must(sc_json_new_string("python3-recorder")));
    ad_put(h, "features", features);
#ifdef SC_ADAPTER_MUTANT
    sc_mutation_hello(h);
#endif
    int rl = emit(h, stdout, 0);
    sc_json_free(h);
    return rl;
}

/* Read and check case.json; returns 0 or an exit status. */
static int load_case(kase *k, const char *op)
{
    char *path = sc_xjoin(k->dir, "case.json");
    sc_error err;
    sc_error_clear(&err);
    sc_code code = sc_json_parse_file_depth(path, SC_JSON_ENVELOPE_DEPTH, &k->doc, &err);
    free(path);
    if (code != SC_OK)
        return ad_fail(EXIT_ADAPTER, "case.json: %s", err.message);
    if (k->doc->type != SC_JSON_OBJECT)
        return ad_fail(EXIT_ADAPTER, "case.json is not an object");
    const char *named = sc_json_cstr(ad_get(k->doc, "operation"));
    if (named == NULL || strcmp(named, op) != 0)
        return ad_fail(EXIT_ADAPTER, "case.json names operation \"%s\", called for \"%s\"",
                    named ? named : "(none)", op);
    k->inputs = ad_get(k->doc, "inputs");
    if (k->inputs == NULL || k->inputs->type != SC_JSON_ARRAY)
        return ad_fail(EXIT_ADAPTER, "case.json: inputs must be an array");
    for (size_t i = 0; i < k->inputs->length; i++) {
        const sc_json *in = sc_json_at(k->inputs, i);
        const char *file = sc_json_cstr(ad_get(in, "file"));
        if (file == NULL || sc_json_cstr(ad_get(in, "role")) == NULL)
            return ad_fail(EXIT_ADAPTER, "case.json: input %zu lacks a string file or role",
                        i);
        sc_error perr;
        sc_error_clear(&perr);
        if (sc_path_check(file, strlen(file), "inputs[].file", &perr) != SC_OK)
            return ad_fail(EXIT_ADAPTER, "case.json: input file \"%s\" is not a safe path",
                        file);
    }
    k->args = ad_get(k->doc, "args");
    if (k->args == NULL) {
        static sc_json empty = {.type = SC_JSON_OBJECT};
        k->args = &empty;
    }
    if (k->args->type != SC_JSON_OBJECT)
        return ad_fail(EXIT_ADAPTER, "case.json: args must be an object");
    return 0;
}

/* What one call answered. */
typedef enum answer_kind { ANSWER_OUTPUT, ANSWER_ERROR, ANSWER_UNSUPPORTED } answer_kind;

/* Run one operation on one case.  Returns 0 with *kind and *answer set
 * (the output object, or {"error": code}, or {"unsupported": reason}), or
 * EXIT_ADAPTER after a message. */
static int run_call(const char *op, const char *dir, const char *work,
                    answer_kind *kind, sc_json **answer)
{
    *answer = NULL;
    unsupported_reason[0] = '\0';
    op_fn fn = find_op(op);
    int rc;
    kase k;
    memset(&k, 0, sizeof k);
    k.dir = dir;
    k.work = work;
    result r;
    memset(&r, 0, sizeof r);
    sc_error_clear(&r.err);
    if (fn == NULL)
        rc = ad_fail(EXIT_UNSUPPORTED, "operation %s is not supported", op);
    else
        rc = load_case(&k, op);
    if (rc == 0)
        rc = fn(&k, &r);
#ifdef SC_ADAPTER_MUTANT
    if (rc == 0) {
        sc_adapter_ctx ctx = {op, k.dir, k.reference};
        if (sc_mutation_apply(&ctx, &r.code, &r.out) != 0)
            rc = EXIT_ADAPTER;
    }
#endif
    if (rc == EXIT_UNSUPPORTED) {
        *kind = ANSWER_UNSUPPORTED;
        *answer = ad_must(sc_json_new_object());
        ad_put(*answer, "unsupported", sc_json_new_string(unsupported_reason));
        rc = 0;
    } else if (rc == 0 && r.code == SC_OK) {
        if (r.out == NULL) {
            rc = ad_fail(EXIT_ADAPTER, "no output");
        } else {
            *kind = ANSWER_OUTPUT;
            *answer = r.out;
            r.out = NULL;
        }
    } else if (rc == 0 && (r.code == SC_E_INTERNAL || r.code == SC_E_OUT_OF_MEMORY ||
                           r.code == SC_E_USAGE || r.code >= SC_CODE_COUNT_)) {
        /* a failure of the library, not a judgement on the input */
        rc = ad_fail(EXIT_ADAPTER, "library failure: %s", r.err.message);
    } else if (rc == 0) {
        fprintf(stderr, ADAPTER_NAME ": %s: %s\n", sc_code_name(r.code), r.err.message);
        *kind = ANSWER_ERROR;
        *answer = ad_must(sc_json_new_object());
        ad_put(*answer, "error", sc_json_new_string(sc_code_name(r.code)));
    }
    sc_json_free(r.out);
    sc_json_free(k.doc);
    return rc;
}

/* Persistent mode (README 3.8): one request per line on stdin, one response
 * per line on stdout, until EOF.  stdout proper is pointed at stderr first,
 * so nothing an operation or a child prints can corrupt the channel, and
 * stdin at /dev/null, so no child reads the requests. */
static int serve(void)
{
    int in_fd = fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 3);
    int out_fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
    int null_fd = open("/dev/null", O_RDONLY);
    if (in_fd < 0 || out_fd < 0 || null_fd < 0 || dup2(null_fd, STDIN_FILENO) < 0 ||
        dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
        return ad_fail(EXIT_ADAPTER, "cannot set up the persistent channel: %s",
                       strerror(errno));
    close(null_fd);
    FILE *in = fdopen(in_fd, "r"), *out = fdopen(out_fd, "w");
    if (in == NULL || out == NULL)
        return ad_fail(EXIT_ADAPTER, "cannot open the persistent channel: %s",
                       strerror(errno));
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    int rc = 0;
    while (rc == 0 && (n = getline(&line, &cap, in)) >= 0) {
        sc_json *req = NULL;
        sc_error err;
        sc_error_clear(&err);
        uint64_t seq = 0;
        const char *op = NULL, *dir = NULL, *work = NULL;
        if (sc_json_parse_depth(line, (size_t)n, SC_JSON_ENVELOPE_DEPTH, &req, &err) != SC_OK)
            rc = ad_fail(EXIT_ADAPTER, "request is not JSON: %s", err.message);
        else if (!sc_json_uint53(ad_get(req, "seq"), &seq) ||
                 (op = sc_json_cstr(ad_get(req, "operation"))) == NULL ||
                 (dir = sc_json_cstr(ad_get(req, "case"))) == NULL)
            rc = ad_fail(EXIT_ADAPTER, "request lacks seq, operation or case");
        else
            work = sc_json_cstr(ad_get(req, "work"));
        answer_kind kind = ANSWER_OUTPUT;
        sc_json *answer = NULL;
        if (rc == 0)
            rc = run_call(op, dir, work, &kind, &answer);
        if (rc == 0) {
            sc_json *resp = ad_must(sc_json_new_object());
            ad_put(resp, "seq", sc_json_new_number((double)seq));
            if (kind == ANSWER_OUTPUT) {
                ad_put(resp, "output", answer);
            } else {
                /* {"error": c} / {"unsupported": why}: move the member over */
                const char *key = kind == ANSWER_ERROR ? "error" : "unsupported";
                ad_put(resp, key, sc_json_copy(ad_get(answer, key)));
                sc_json_free(answer);
            }
            rc = emit(resp, out, 1);
            sc_json_free(resp);
        }
        sc_json_free(req);
    }
    free(line);
    fclose(in);
    fclose(out);
    return rc;
}

static int usage(void)
{
    fputs("usage: " ADAPTER_NAME " --hello\n"
          "       " ADAPTER_NAME " <operation> --case DIR [--work DIR]\n"
          "       " ADAPTER_NAME " --persistent\n",
          stderr);
    return EXIT_ADAPTER;
}

int main(int argc, char **argv)
{
    sc_process_set_signal_forwarding(1); /* a self-test's child gets our signals */
#ifdef SC_ADAPTER_MUTANT
    if (sc_mutation_init() != 0)
        return EXIT_ADAPTER;
#endif
    if (argc == 2 && strcmp(argv[1], "--hello") == 0)
        return hello() == 0 ? 0 : EXIT_ADAPTER;
    if (argc == 2 && strcmp(argv[1], "--persistent") == 0)
        return serve() == 0 ? 0 : EXIT_ADAPTER;
    if (argc < 2 || argv[1][0] == '-')
        return usage();

    const char *op = argv[1], *dir = NULL, *work = NULL;
    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "--case") == 0 && i + 1 < argc)
            dir = argv[++i];
        else if (strcmp(argv[i], "--work") == 0 && i + 1 < argc)
            work = argv[++i];
        else
            return usage();
    }
    if (dir == NULL && find_op(op) != NULL)
        return usage();
    answer_kind kind = ANSWER_OUTPUT;
    sc_json *answer = NULL;
    int rc = run_call(op, dir, work, &kind, &answer);
    if (rc == 0) {
        rc = emit(answer, stdout, 0);
        if (rc == 0)
            rc = kind == ANSWER_OUTPUT ? 0
                 : kind == ANSWER_ERROR ? EXIT_REJECTED
                                        : EXIT_UNSUPPORTED;
    }
    sc_json_free(answer);
    return rc;
}
