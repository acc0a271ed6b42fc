/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ops_payload.c — the adapter's payload operations (conformance/README.md
 * 3.6.1, docs/format-v3.md 14).
 *
 * payload-digest: input `entries`, a JSON document {"entries": [{"path",
 * "kind", "contentBase64"? | "linkTarget"?}]}.  Each entry's digest is the
 * SHA-256 of its decoded content (file) or of the UTF-8 bytes of its target
 * (link); the list goes through sc_payload_serialize, whose refusals are the
 * case's verdict.  Output {"streamBase64", "sha256", "entryCount"}.  A kind
 * other than "file"/"link" is handed to the serializer as an unknown kind
 * (its refusal is the verdict); an entries document of the wrong shape is an
 * error of the case (exit 3).
 *
 * payload-list-parse: input `list`, the raw bytes of a payload-digest.v1;
 * sc_payload_parse.  Output {"entries": [{"path", "kind", "sha256"}]}.
 */
#include "adapter.h"

#include <stdlib.h>
#include <string.h>

#include "scrollcase/base64.h"
#include "scrollcase/digest.h"
#include "scrollcase/file.h"
#include "scrollcase/payload.h"

/* Fill e from one member of "entries"; 0, or an exit status. */
static int entry_from_json(const sc_json *j, size_t i, sc_payload_entry *e, result *r)
{
    const sc_json *path = ad_get(j, "path"), *kind = ad_get(j, "kind");
    if (path == NULL || path->type != SC_JSON_STRING || kind == NULL ||
        sc_json_cstr(kind) == NULL)
        return ad_fail(EXIT_ADAPTER, "entries[%zu] needs a string path and kind", i);
    e->path = malloc(path->length + 1);
    if (e->path == NULL)
        return ad_fail(EXIT_ADAPTER, "out of memory");
    memcpy(e->path, path->string, path->length);
    e->path[path->length] = '\0';
    e->path_len = path->length;
    const char *k = sc_json_cstr(kind);
    const sc_json *content = NULL;
    if (strcmp(k, "file") == 0) {
        e->kind = SC_PAYLOAD_FILE;
        content = ad_get(j, "contentBase64");
        if (sc_json_cstr(content) == NULL)
            return ad_fail(EXIT_ADAPTER, "entries[%zu] (a file) needs contentBase64", i);
        size_t cap = sc_base64_decoded_len(content->string, content->length);
        unsigned char *bytes = cap == SC_BASE64_INVALID ? NULL : malloc(cap + 1);
        size_t n = 0;
        if (bytes == NULL ||
            !sc_base64_decode(content->string, content->length, bytes, cap + 1, &n)) {
            free(bytes);
            return ad_fail(EXIT_ADAPTER, "entries[%zu].contentBase64 is not base64", i);
        }
        r->code = sc_sha256_hex(bytes, n, e->sha256, &r->err);
        e->size = n;
        free(bytes);
    } else if (strcmp(k, "link") == 0) {
        e->kind = SC_PAYLOAD_LINK;
        content = ad_get(j, "linkTarget");
        if (content == NULL || content->type != SC_JSON_STRING)
            return ad_fail(EXIT_ADAPTER, "entries[%zu] (a link) needs linkTarget", i);
        r->code = sc_sha256_hex(content->string, content->length, e->sha256, &r->err);
        e->size = content->length;
    } else {
        /* Not a kind of the format: the serializer judges it. */
        e->kind = (sc_payload_kind)0;
        memset(e->sha256, '0', 64);
        e->sha256[64] = '\0';
    }
    if (r->code != SC_OK)
        return ad_fail(EXIT_ADAPTER, "hashing entries[%zu]: %s", i, r->err.message);
    return 0;
}

static int op_payload_digest(kase *k, result *r)
{
    static const char *const names[] = {NULL};
    int rc = ad_args_known(k, names);
    sc_json *doc = NULL;
    if (rc == 0)
        rc = ad_parse_input(k, "entries", &doc, r);
    if (rc != 0 || r->code != SC_OK)
        return rc;
    const sc_json *list = ad_get(doc, "entries");
    if (list == NULL || list->type != SC_JSON_ARRAY) {
        sc_json_free(doc);
        return ad_fail(EXIT_ADAPTER, "the entries input needs an \"entries\" array");
    }
    sc_payload_list pl = {NULL, 0, 0};
    if (list->length > 0) {
        pl.entries = calloc(list->length, sizeof *pl.entries);
        if (pl.entries == NULL) {
            sc_json_free(doc);
            return ad_fail(EXIT_ADAPTER, "out of memory");
        }
        pl.cap = list->length;
    }
    size_t i = 0;
    for (const sc_json *m = list->child; m != NULL && rc == 0; m = m->next, i++) {
        pl.count = i + 1;
        rc = entry_from_json(m, i, &pl.entries[i], r);
    }
    sc_json_free(doc);
    if (rc != 0) {
        sc_payload_list_free(&pl);
        return rc;
    }
    char *stream = NULL;
    size_t len = 0;
    r->code = sc_payload_serialize(&pl, &stream, &len, &r->err);
    if (r->code == SC_OK) {
        char hex[65];
        r->code = sc_sha256_hex(stream, len, hex, &r->err);
        if (r->code == SC_OK) {
            r->out = ad_must(sc_json_new_object());
            ad_put(r->out, "streamBase64", ad_base64_of((const unsigned char *)stream, len));
            ad_put(r->out, "sha256", sc_json_new_string(hex));
            ad_put(r->out, "entryCount", sc_json_new_number((double)pl.count));
        }
    }
    free(stream);
    sc_payload_list_free(&pl);
    return 0;
}

static int op_payload_list_parse(kase *k, result *r)
{
    static const char *const names[] = {NULL};
    int rc = ad_args_known(k, names);
    char *path = NULL;
    if (rc == 0)
        rc = ad_input_path(k, "list", &path, NULL);
    if (rc != 0)
        return rc;
    char *bytes = NULL;
    size_t len = 0;
    sc_error ferr;
    if (sc_file_read(path, &bytes, &len, NULL, &ferr) != SC_OK) {
        rc = ad_fail(EXIT_ADAPTER, "cannot read the list input: %s", ferr.message);
        free(path);
        return rc;
    }
    free(path);
    sc_payload_list pl = {NULL, 0, 0};
    r->code = sc_payload_parse(bytes, len, &pl, &r->err);
    free(bytes);
    if (r->code != SC_OK)
        return 0;
    sc_json *entries = ad_must(sc_json_new_array());
    for (size_t i = 0; i < pl.count; i++) {
        const sc_payload_entry *e = &pl.entries[i];
        sc_json *o = ad_must(sc_json_new_object());
        ad_put(o, "path", sc_json_new_string_len(e->path, e->path_len));
        ad_put(o, "kind", sc_json_new_string(e->kind == SC_PAYLOAD_LINK ? "link" : "file"));
        ad_put(o, "sha256", sc_json_new_string(e->sha256));
        if (sc_json_array_append(entries, o) != 0)
            return ad_fail(EXIT_ADAPTER, "out of memory");
    }
    sc_payload_list_free(&pl);
    r->out = ad_must(sc_json_new_object());
    ad_put(r->out, "entries", entries);
    return 0;
}

const ad_op ad_ops_payload[] = {
    {"payload-digest", op_payload_digest},
    {"payload-list-parse", op_payload_list_parse},
    {NULL, NULL},
};
