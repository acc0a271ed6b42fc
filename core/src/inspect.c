/* SPDX-License-Identifier: Apache-2.0 */
/*
 * inspect.c — a box's release and archive as JSON documents, and the
 * comparison of two of them (inspect.h).  The archive side is the reader's
 * inspection (archive_read.c) plus box.json read out of it; nothing is
 * extracted.
 */
#include "scrollcase/inspect.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "scrollcase/archive_read.h"
#include "scrollcase/digest.h"

#define BOX_JSON_MAX ((size_t)1048576) /* 10.3 */

static sc_code oom(sc_error *err)
{
    return sc_error_set(err, SC_E_OUT_OF_MEMORY, NULL, "out of memory");
}

/* Append a member (value taken); *bad records any failure, a NULL value
 * (out of memory) included. */
static void put(sc_json *o, const char *key, sc_json *v, int *bad)
{
    if (*bad || o == NULL || v == NULL) {
        sc_json_free(v);
        *bad = 1;
        return;
    }
    if (sc_json_object_append(o, key, v) != 0) /* frees v */
        *bad = 1;
}

static void put_copy(sc_json *o, const char *key, const sc_json *v, int *bad)
{
    put(o, key, v != NULL ? sc_json_copy(v) : sc_json_new_null(), bad);
}

static sc_json *num(uint64_t v)
{
    return sc_json_new_number((double)v);
}

sc_code sc_inspect_sniff(const char *path, int *is_archive, sc_error *err)
{
    *is_archive = 0;
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENOENT)
            return sc_error_set(err, SC_E_ARCHIVE_NOT_FOUND, path,
                                "%s: no such file; name an existing release or archive", path);
        return sc_error_set(err, SC_E_IO, path, "%s: cannot open: %s", path, strerror(errno));
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return sc_error_set(err, SC_E_IO, path, "%s: not a regular file", path);
    }
    unsigned char head[4] = {0, 0, 0, 0};
    ssize_t n = pread(fd, head, sizeof head, 0);
    close(fd);
    if (n < 0)
        return sc_error_set(err, SC_E_IO, path, "%s: cannot read: %s", path, strerror(errno));
    if (n == 4 && head[0] == 'P' && head[1] == 'K' &&
        ((head[2] == 3 && head[3] == 4) || (head[2] == 5 && head[3] == 6)))
        *is_archive = 1;
    return SC_OK;
}

static const char *type_name(sc_zip_type t)
{
    switch (t) {
    case SC_ZIP_DIR: return "directory";
    case SC_ZIP_LINK: return "link";
    default: return "file";
    }
}

static sc_json *entry_json(const sc_zip_entry *e)
{
    sc_json *o = sc_json_new_object();
    int bad = o == NULL;
    char mode[8], crc[9];
    snprintf(mode, sizeof mode, "%04o", e->mode & 0777u);
    snprintf(crc, sizeof crc, "%08lx", (unsigned long)e->crc32);
    put(o, "path", sc_json_new_string_len(e->path, e->path_len), &bad);
    put(o, "type", sc_json_new_string(type_name(e->type)), &bad);
    put(o, "sizeBytes", num(e->size), &bad);
    put(o, "compressedSizeBytes", num(e->compressed_size), &bad);
    put(o, "method", sc_json_new_string(e->method == 8 ? "deflate" : "stored"), &bad);
    put(o, "mode", sc_json_new_string(mode), &bad);
    put(o, "crc32", sc_json_new_string(crc), &bad);
    put(o, "linkTarget",
        e->link_target ? sc_json_new_string(e->link_target) : sc_json_new_null(), &bad);
    if (bad) {
        sc_json_free(o);
        return NULL;
    }
    return o;
}

sc_code sc_inspect_archive(const char *archive_path, sc_json **out, sc_error *err)
{
    *out = NULL;
    sc_zip *z = NULL;
    sc_code c = sc_zip_open(archive_path, NULL, &z, err);
    if (c != SC_OK)
        return c;
    unsigned char digest[SC_SHA256_LEN];
    char hex[SC_SHA256_HEX_LEN + 1];
    c = sc_sha256_file(archive_path, digest, err);
    if (c != SC_OK) {
        sc_zip_close(z);
        return c;
    }
    sc_hex_lower(digest, SC_SHA256_LEN, hex);
    struct stat st;
    if (stat(archive_path, &st) != 0) {
        sc_zip_close(z);
        return sc_error_set(err, SC_E_IO, archive_path, "%s: cannot stat: %s", archive_path,
                            strerror(errno));
    }
    sc_json *box = NULL;
    const sc_zip_entry *be = sc_zip_find(z, "box.json");
    if (be != NULL && be->type == SC_ZIP_FILE) {
        char *bytes = NULL;
        size_t len = 0;
        c = sc_zip_read(z, be, BOX_JSON_MAX, &bytes, &len, err);
        if (c == SC_E_EXTRACTION_LIMIT)
            c = sc_error_set(err, SC_E_INVALID_MANIFEST, "box.json",
                             "%s: box.json is over 1 MiB", archive_path);
        if (c == SC_OK) {
            c = sc_json_parse(bytes, len, &box, err);
            if (c == SC_OK && box->type != SC_JSON_OBJECT)
                c = sc_error_set(err, SC_E_INVALID_MANIFEST, "box.json",
                                 "%s: box.json is not a JSON object", archive_path);
            else if (c != SC_OK)
                sc_error_prefix(err, "box.json");
        }
        free(bytes);
        if (c != SC_OK) {
            sc_json_free(box);
            sc_zip_close(z);
            if (c != SC_E_INVALID_MANIFEST && c != SC_E_OUT_OF_MEMORY)
                err->code = SC_E_INVALID_MANIFEST;
            return err->code;
        }
    }
    sc_json *o = sc_json_new_object();
    int bad = o == NULL;
    size_t n = sc_zip_count(z);
    uint64_t compressed = 0;
    sc_json *entries = sc_json_new_array();
    bad |= entries == NULL;
    for (size_t i = 0; i < n && !bad; i++) {
        const sc_zip_entry *e = sc_zip_at(z, i);
        compressed += e->compressed_size;
        sc_json *ej = entry_json(e);
        if (ej == NULL || sc_json_array_append(entries, ej) != 0) {
            sc_json_free(ej);
            bad = 1;
        }
    }
    put(o, "path", sc_json_new_string(archive_path), &bad);
    put(o, "sizeBytes", num((uint64_t)st.st_size), &bad);
    put(o, "sha256", sc_json_new_string(hex), &bad);
    put(o, "entryCount", num(n), &bad);
    put(o, "totalSizeBytes", num(sc_zip_total_size(z)), &bad);
    put(o, "compressedSizeBytes", num(compressed), &bad);
    put(o, "box", box != NULL ? box : sc_json_new_null(), &bad);
    put(o, "entries", entries, &bad);
    sc_zip_close(z);
    if (bad) {
        sc_json_free(o);
        return oom(err);
    }
    *out = o;
    return SC_OK;
}

sc_code sc_inspect_release(const sc_release *r, sc_json **out, sc_error *err)
{
    *out = NULL;
    const sc_json *p = r->doc.payload;
    sc_json *o = sc_json_new_object();
    int bad = o == NULL;
    put_copy(o, "boxId", sc_json_get(p, "boxId"), &bad);
    put_copy(o, "modelId", sc_json_get(p, "modelId"), &bad);
    put_copy(o, "runtimeId", sc_json_get(p, "runtimeId"), &bad);
    put_copy(o, "version", sc_json_get(p, "version"), &bad);
    put(o, "targetId", sc_json_new_string(r->target_id), &bad);
    put_copy(o, "target", sc_json_get(p, "target"), &bad);
    sc_json *keys = sc_json_new_array();
    for (size_t i = 0; keys != NULL && i < r->signing_key_count; i++) {
        sc_json *k = sc_json_new_string(r->signing_key_ids[i]);
        if (k == NULL || sc_json_array_append(keys, k) != 0) {
            sc_json_free(k);
            bad = 1;
        }
    }
    put(o, "signingKeyIds", keys, &bad);
    put_copy(o, "compatibility", sc_json_get(p, "compatibility"), &bad);
    put_copy(o, "archive", sc_json_get(p, "archive"), &bad);
    put(o, "installedSizeBytes", num(r->installed_size), &bad);
    put_copy(o, "payloadDigest", sc_json_get(p, "payloadDigest"), &bad);
    put_copy(o, "pythonEntryPoint", sc_json_get(p, "pythonEntryPoint"), &bad);
    put_copy(o, "execution", sc_json_get(p, "execution"), &bad);
    const sc_json *assets = sc_json_get(p, "assets");
    put(o, "assets", num(assets != NULL ? assets->length : 0), &bad);
    put_copy(o, "provenance", sc_json_get(p, "provenance"), &bad);
    put_copy(o, "gates", sc_json_get(p, "gates"), &bad);
    if (sc_json_get(p, "cudaBinaries") != NULL) /* 10.2: CUDA releases only */
        put_copy(o, "cudaBinaries", sc_json_get(p, "cudaBinaries"), &bad);
    if (bad) {
        sc_json_free(o);
        return oom(err);
    }
    *out = o;
    return SC_OK;
}

sc_code sc_inspect(const sc_release *r, const char *archive_path, sc_json **out, sc_error *err)
{
    *out = NULL;
    sc_json *rel = NULL, *arc = NULL;
    if (r != NULL) {
        sc_code c = sc_inspect_release(r, &rel, err);
        if (c != SC_OK)
            return c;
    }
    if (archive_path != NULL) {
        sc_code c = sc_inspect_archive(archive_path, &arc, err);
        if (c == SC_E_ARCHIVE_NOT_FOUND && r != NULL) {
            arc = NULL; /* a release alone: its archive is elsewhere */
        } else if (c != SC_OK) {
            sc_json_free(rel);
            return c;
        }
    }
    sc_json *o = sc_json_new_object();
    int bad = o == NULL;
    put(o, "inspected", sc_json_new_string(r != NULL ? "release" : "archive"), &bad);
    put(o, "release", rel != NULL ? rel : sc_json_new_null(), &bad);
    sc_json *match = sc_json_new_null();
    if (r != NULL && arc != NULL) {
        sc_json_free(match);
        uint64_t size = 0;
        const char *sha = sc_json_cstr(sc_json_get(arc, "sha256"));
        int same = sc_json_uint53(sc_json_get(arc, "sizeBytes"), &size) && size == r->archive_size &&
                   sha != NULL && strcmp(sha, r->archive_sha256) == 0;
        match = sc_json_new_bool(same);
    }
    put(o, "archive", arc != NULL ? arc : sc_json_new_null(), &bad);
    put(o, "archiveMatchesRelease", match, &bad);
    if (bad) {
        sc_json_free(o);
        return oom(err);
    }
    *out = o;
    return SC_OK;
}

/* ---- diff ------------------------------------------------------------------ */

/* Append {member, a, b} to list when a and b differ (absent = null). */
static void diff_member(sc_json *list, const char *member, const sc_json *a, const sc_json *b,
                        int *bad)
{
    if (*bad)
        return;
    int a_absent = a == NULL || a->type == SC_JSON_NULL;
    int b_absent = b == NULL || b->type == SC_JSON_NULL;
    if ((a_absent && b_absent) || (!a_absent && !b_absent && sc_json_equal(a, b)))
        return;
    sc_json *d = sc_json_new_object();
    int b2 = d == NULL;
    put(d, "member", sc_json_new_string(member), &b2);
    put_copy(d, "a", a, &b2);
    put_copy(d, "b", b, &b2);
    if (b2 || sc_json_array_append(list, d) != 0) {
        sc_json_free(d);
        *bad = 1;
    }
}

/*
 * Every member of two objects that differs, a's order first then b's
 * extras, named "prefix.member" (just "member" when prefix is ""); when
 * either is not an object, the two whole, named whole.
 */
static void diff_object(sc_json *list, const char *prefix, const char *whole, const sc_json *a,
                        const sc_json *b, int *bad)
{
    char name[256];
    if ((a == NULL || a->type != SC_JSON_OBJECT) || (b == NULL || b->type != SC_JSON_OBJECT)) {
        diff_member(list, whole, a, b, bad);
        return;
    }
    for (const sc_json *m = a->child; m != NULL && !*bad; m = m->next) {
        snprintf(name, sizeof name, "%s%s%s", prefix, prefix[0] ? "." : "", m->key);
        diff_member(list, name, m, sc_json_get(b, m->key), bad);
    }
    for (const sc_json *m = b->child; m != NULL && !*bad; m = m->next) {
        if (sc_json_get(a, m->key) != NULL)
            continue;
        snprintf(name, sizeof name, "%s%s%s", prefix, prefix[0] ? "." : "", m->key);
        diff_member(list, name, NULL, m, bad);
    }
}

static int by_path(const void *x, const void *y)
{
    const sc_json *a = *(const sc_json *const *)x, *b = *(const sc_json *const *)y;
    return strcmp(sc_json_cstr(sc_json_get(a, "path")), sc_json_cstr(sc_json_get(b, "path")));
}

static const sc_json **sorted_entries(const sc_json *arc, size_t *n)
{
    const sc_json *entries = sc_json_get(arc, "entries");
    *n = entries != NULL ? entries->length : 0;
    const sc_json **v = calloc(*n ? *n : 1, sizeof *v);
    if (v == NULL)
        return NULL;
    size_t i = 0;
    for (const sc_json *e = entries ? entries->child : NULL; e != NULL; e = e->next)
        v[i++] = e;
    qsort(v, *n, sizeof *v, by_path);
    return v;
}

static sc_json *entry_brief(const sc_json *e, int full)
{
    sc_json *o = sc_json_new_object();
    int bad = o == NULL;
    if (!full)
        put_copy(o, "path", sc_json_get(e, "path"), &bad);
    put_copy(o, "type", sc_json_get(e, "type"), &bad);
    put_copy(o, "sizeBytes", sc_json_get(e, "sizeBytes"), &bad);
    if (full) {
        put_copy(o, "mode", sc_json_get(e, "mode"), &bad);
        put_copy(o, "crc32", sc_json_get(e, "crc32"), &bad);
        put_copy(o, "linkTarget", sc_json_get(e, "linkTarget"), &bad);
    }
    if (bad) {
        sc_json_free(o);
        return NULL;
    }
    return o;
}

static void add_to(sc_json *list, sc_json *v, int *bad)
{
    if (*bad || v == NULL || sc_json_array_append(list, v) != 0) {
        sc_json_free(v);
        *bad = 1;
    }
}

static int same_member(const sc_json *a, const sc_json *b, const char *k)
{
    return sc_json_equal(sc_json_get(a, k), sc_json_get(b, k));
}

static sc_json *diff_payload(const sc_json *aa, const sc_json *ba, int *bad)
{
    size_t na = 0, nb = 0;
    const sc_json **ea = sorted_entries(aa, &na);
    const sc_json **eb = sorted_entries(ba, &nb);
    sc_json *o = sc_json_new_object();
    sc_json *added = sc_json_new_array(), *removed = sc_json_new_array(),
            *changed = sc_json_new_array();
    if (ea == NULL || eb == NULL || o == NULL || added == NULL || removed == NULL ||
        changed == NULL)
        *bad = 1;
    uint64_t added_bytes = 0, removed_bytes = 0, sz = 0;
    size_t i = 0, j = 0;
    while (!*bad && (i < na || j < nb)) {
        int cmp = i >= na ? 1 : j >= nb ? -1 : by_path(&ea[i], &eb[j]);
        if (cmp < 0) {
            if (sc_json_uint53(sc_json_get(ea[i], "sizeBytes"), &sz))
                removed_bytes += sz;
            add_to(removed, entry_brief(ea[i++], 0), bad);
        } else if (cmp > 0) {
            if (sc_json_uint53(sc_json_get(eb[j], "sizeBytes"), &sz))
                added_bytes += sz;
            add_to(added, entry_brief(eb[j++], 0), bad);
        } else {
            const sc_json *x = ea[i++], *y = eb[j++];
            const char *what[5];
            size_t nw = 0;
            if (!same_member(x, y, "type"))
                what[nw++] = "type";
            if (!same_member(x, y, "sizeBytes"))
                what[nw++] = "size";
            if (!same_member(x, y, "crc32"))
                what[nw++] = "content";
            if (!same_member(x, y, "mode"))
                what[nw++] = "mode";
            if (!same_member(x, y, "linkTarget"))
                what[nw++] = "linkTarget";
            if (nw == 0)
                continue;
            sc_json *c = sc_json_new_object();
            int b2 = c == NULL;
            put_copy(c, "path", sc_json_get(x, "path"), &b2);
            put(c, "a", entry_brief(x, 1), &b2);
            put(c, "b", entry_brief(y, 1), &b2);
            sc_json *ws = sc_json_new_array();
            for (size_t k = 0; ws != NULL && k < nw; k++)
                add_to(ws, sc_json_new_string(what[k]), &b2);
            put(c, "changes", ws, &b2);
            if (b2) {
                sc_json_free(c);
                *bad = 1;
            } else {
                add_to(changed, c, bad);
            }
        }
    }
    free(ea);
    free(eb);
    put(o, "added", added, bad);
    put(o, "removed", removed, bad);
    put(o, "changed", changed, bad);
    put(o, "addedBytes", num(added_bytes), bad);
    put(o, "removedBytes", num(removed_bytes), bad);
    if (*bad) {
        sc_json_free(o);
        return NULL;
    }
    return o;
}

/* The identity of one side: the release's, else box.json's. */
static const sc_json *side_doc(const sc_json *body)
{
    const sc_json *r = sc_json_get(body, "release");
    if (r != NULL && r->type == SC_JSON_OBJECT)
        return r;
    return sc_json_get(sc_json_get(body, "archive"), "box");
}

static int is_empty_list(const sc_json *v)
{
    return v == NULL || v->length == 0;
}

sc_code sc_inspect_diff(const sc_json *a, const sc_json *b, sc_json **out, sc_error *err)
{
    *out = NULL;
    const char *ka = sc_json_cstr(sc_json_get(a, "inspected"));
    const char *kb = sc_json_cstr(sc_json_get(b, "inspected"));
    if (ka == NULL || kb == NULL || strcmp(ka, kb) != 0)
        return sc_error_set(err, SC_E_USAGE, NULL,
                            "diff compares two releases or two archives, not a %s with a %s",
                            ka ? ka : "?", kb ? kb : "?");
    const sc_json *da = side_doc(a), *db = side_doc(b);
    sc_json *o = sc_json_new_object();
    sc_json *identity = sc_json_new_array(), *prov = sc_json_new_array(),
            *gates = sc_json_new_array(), *release = sc_json_new_array();
    int bad = o == NULL || identity == NULL || prov == NULL || gates == NULL || release == NULL;
    static const char *const ids[] = {"boxId", "modelId", "runtimeId", "version", "target"};
    for (size_t i = 0; i < sizeof ids / sizeof ids[0]; i++)
        diff_member(identity, ids[i], sc_json_get(da, ids[i]), sc_json_get(db, ids[i]), &bad);
    diff_object(prov, "", "provenance", sc_json_get(da, "provenance"),
                sc_json_get(db, "provenance"), &bad);
    diff_object(gates, "", "gates", sc_json_get(da, "gates"), sc_json_get(db, "gates"), &bad);
    static const char *const rel_members[] = {
        "signingKeyIds", "compatibility", "archive", "installedSizeBytes", "payloadDigest",
        "pythonEntryPoint", "execution", "assets", "modelCacheSubdir", "selfTest",
        "environment", "cudaBinaries"};
    for (size_t i = 0; i < sizeof rel_members / sizeof rel_members[0]; i++)
        diff_object(release, rel_members[i], rel_members[i], sc_json_get(da, rel_members[i]),
                    sc_json_get(db, rel_members[i]), &bad);
    const sc_json *aa = sc_json_get(a, "archive"), *ba = sc_json_get(b, "archive");
    sc_json *payload = NULL;
    if (!bad && aa != NULL && aa->type == SC_JSON_OBJECT && ba != NULL &&
        ba->type == SC_JSON_OBJECT)
        payload = diff_payload(aa, ba, &bad);
    int identical = !bad && is_empty_list(identity) && is_empty_list(prov) &&
                    is_empty_list(gates) && is_empty_list(release);
    if (payload != NULL)
        identical = identical && is_empty_list(sc_json_get(payload, "added")) &&
                    is_empty_list(sc_json_get(payload, "removed")) &&
                    is_empty_list(sc_json_get(payload, "changed"));
    put(o, "identical", sc_json_new_bool(identical), &bad);
    put(o, "identity", identity, &bad);
    put(o, "provenance", prov, &bad);
    put(o, "gates", gates, &bad);
    put(o, "release", release, &bad);
    put(o, "payload", payload != NULL ? payload : sc_json_new_null(), &bad);
    if (bad) {
        sc_json_free(o);
        return oom(err);
    }
    *out = o;
    return SC_OK;
}
