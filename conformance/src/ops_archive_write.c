/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ops_archive_write.c — the adapter's archive-write operations
 * (conformance/README.md 3.6.2).
 *
 * archive-write: the `payload` input is JSON {"entries": [{"path", "kind":
 * "file"|"link", "contentBase64"?, "linkTarget"?, "executable"?, "stored"?}]};
 * args {"compression": "store"|"deflate"}.  Writes the canonical archive
 * (format-v3 15.1) in memory and prints {"sizeBytes", "sha256",
 * "archiveBase64"}, or the writer's rejection (unsafe-path,
 * entry-collision).  A payload that is not of that shape is a malformed
 * case (exit 3).
 */
#include "adapter.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scrollcase/archive_write.h"
#include "scrollcase/base64.h"
#include "scrollcase/digest.h"
#include "scrollcase/path.h"

typedef struct membuf {
    unsigned char *p;
    size_t len, cap;
} membuf;

static sc_code mem_write(void *ctx, const void *buf, size_t len, sc_error *err)
{
    membuf *m = ctx;
    if (m->len + len > m->cap) {
        size_t cap = m->cap ? m->cap : 4096;
        while (cap < m->len + len)
            cap *= 2;
        unsigned char *q = realloc(m->p, cap);
        if (q == NULL)
            return sc_error_set(err, SC_E_OUT_OF_MEMORY, NULL, "out of memory");
        m->p = q;
        m->cap = cap;
    }
    memcpy(m->p + m->len, buf, len);
    m->len += len;
    return SC_OK;
}

/* A boolean member, default 0; -1 when present but not a boolean. */
static int flag_of(const sc_json *o, const char *key)
{
    const sc_json *v = ad_get(o, key);
    if (v == NULL)
        return 0;
    return sc_json_is(v, SC_JSON_BOOL) ? v->boolean : -1;
}

/*
 * Fill e from the i-th payload entry; bytes it decodes go to *owned.
 * Returns 0, an exit status for a malformed entry, or 0 with r->code set
 * when the path holds a NUL (unsafe-path: the C path cannot carry it).
 */
static int entry_of(const sc_json *o, size_t i, sc_archive_entry *e, unsigned char **owned,
                    result *r)
{
    static const char *const known[] = {"path", "kind", "contentBase64", "linkTarget",
                                        "executable", "stored", NULL};
    if (!sc_json_is(o, SC_JSON_OBJECT))
        return ad_fail(EXIT_ADAPTER, "payload entries[%zu] is not an object", i);
    for (const sc_json *m = o->child; m != NULL; m = m->next) {
        int ok = 0;
        for (size_t k = 0; known[k] != NULL && !ok; k++)
            ok = strcmp(m->key, known[k]) == 0;
        if (!ok)
            return ad_fail(EXIT_ADAPTER, "payload entries[%zu] has unknown member %s", i,
                           m->key);
    }
    const sc_json *path = ad_get(o, "path"), *kind = ad_get(o, "kind");
    const char *ks = kind != NULL ? sc_json_cstr(kind) : NULL;
    if (path == NULL || !sc_json_is(path, SC_JSON_STRING) || ks == NULL)
        return ad_fail(EXIT_ADAPTER, "payload entries[%zu] needs a path and a kind", i);
    if (strlen(path->string) != path->length) {
        r->code = sc_path_check(path->string, path->length, "archive entry path", &r->err);
        return 0;
    }
    e->path = path->string;
    e->executable = flag_of(o, "executable");
    e->stored = flag_of(o, "stored");
    if (e->executable < 0 || e->stored < 0)
        return ad_fail(EXIT_ADAPTER, "payload entries[%zu]: executable/stored are booleans", i);
    const sc_json *content = ad_get(o, "contentBase64"), *target = ad_get(o, "linkTarget");
    if (strcmp(ks, "link") == 0) {
        if (content != NULL || target == NULL || !sc_json_is(target, SC_JSON_STRING))
            return ad_fail(EXIT_ADAPTER, "payload entries[%zu]: a link has a linkTarget only",
                           i);
        e->kind = SC_ARCHIVE_LINK;
        e->data = target->string;
        e->data_len = target->length;
        return 0;
    }
    if (strcmp(ks, "file") != 0 || target != NULL)
        return ad_fail(EXIT_ADAPTER, "payload entries[%zu]: kind is file or link", i);
    e->kind = SC_ARCHIVE_FILE;
    if (content == NULL)
        return 0;
    if (!sc_json_is(content, SC_JSON_STRING))
        return ad_fail(EXIT_ADAPTER, "payload entries[%zu].contentBase64 is not a string", i);
    size_t cap = sc_base64_decoded_len(content->string, content->length), got = 0;
    if (cap == SC_BASE64_INVALID)
        return ad_fail(EXIT_ADAPTER, "payload entries[%zu].contentBase64 is not base64", i);
    *owned = malloc(cap + 1);
    if (*owned == NULL)
        return ad_fail(EXIT_ADAPTER, "out of memory");
    if (!sc_base64_decode(content->string, content->length, *owned, cap + 1, &got))
        return ad_fail(EXIT_ADAPTER, "payload entries[%zu].contentBase64 is not base64", i);
    e->data = *owned;
    e->data_len = got;
    return 0;
}

static int op_archive_write(kase *k, result *r)
{
    static const char *const names[] = {"compression", NULL};
    const char *cs = NULL;
    int rc = ad_args_known(k, names);
    if (rc == 0)
        rc = ad_string_arg(k, "compression", 1, &cs);
    if (rc != 0)
        return rc;
    sc_archive_compression comp;
    if (strcmp(cs, "store") == 0)
        comp = SC_ARCHIVE_STORE;
    else if (strcmp(cs, "deflate") == 0)
        comp = SC_ARCHIVE_DEFLATE;
    else
        return ad_fail(EXIT_ADAPTER, "args.compression is store or deflate");
    sc_json *doc = NULL;
    rc = ad_parse_input(k, "payload", &doc, r);
    if (rc != 0 || r->code != SC_OK)
        return rc;
    const sc_json *list = ad_get(doc, "entries");
    if (list == NULL || !sc_json_is(list, SC_JSON_ARRAY) || doc->length != 1) {
        sc_json_free(doc);
        return ad_fail(EXIT_ADAPTER, "payload must be {\"entries\": [...]}");
    }
    size_t n = list->length;
    sc_archive_entry *entries = calloc(n ? n : 1, sizeof *entries);
    unsigned char **owned = calloc(n ? n : 1, sizeof *owned);
    if (entries == NULL || owned == NULL) {
        free(entries);
        free(owned);
        sc_json_free(doc);
        return ad_fail(EXIT_ADAPTER, "out of memory");
    }
    size_t i = 0;
    for (const sc_json *o = list->child; o != NULL && rc == 0 && r->code == SC_OK;
         o = o->next, i++)
        rc = entry_of(o, i, &entries[i], &owned[i], r);
    if (rc == 0 && r->code == SC_OK) {
        membuf m = {NULL, 0, 0};
        sc_archive_sink sink = {mem_write, &m};
        uint64_t written = 0;
        r->code = sc_archive_write(entries, n, comp, &sink, &written, &r->err);
        char hex[SC_SHA256_HEX_LEN + 1];
        if (r->code == SC_OK)
            r->code = sc_sha256_hex(m.p, m.len, hex, &r->err);
        if (r->code == SC_OK) {
            r->out = ad_must(sc_json_new_object());
            ad_put(r->out, "sizeBytes", ad_must(sc_json_new_number((double)written)));
            ad_put(r->out, "sha256", ad_must(sc_json_new_string(hex)));
            ad_put(r->out, "archiveBase64", ad_must(ad_base64_of(m.p, m.len)));
        }
        free(m.p);
    }
    for (size_t j = 0; j < n; j++)
        free(owned[j]);
    free(owned);
    free(entries);
    sc_json_free(doc);
    return rc;
}

const ad_op ad_ops_archive_write[] = {
    {"archive-write", op_archive_write},
    {NULL, NULL},
};
