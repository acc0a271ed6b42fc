/* SPDX-License-Identifier: Apache-2.0 */
/*
 * inspect.c — inspection and comparison of boxes (inspect.h).  Reads the
 * archive's directory with the one ZIP reader (archive_read.c); extracts
 * nothing.
 */
#include "scrollcase/inspect.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scrollcase/archive_read.h"

static sc_code oom(sc_error *err)
{
    return sc_error_set(err, SC_E_OUT_OF_MEMORY, NULL, "out of memory");
}

static const char *type_name(sc_zip_type t)
{
    return t == SC_ZIP_DIR ? "directory" : t == SC_ZIP_LINK ? "link" : "file";
}

static sc_json *entry_json(const sc_zip_entry *e)
{
    char mode[8];
    snprintf(mode, sizeof mode, "%04o", e->mode & 0777);
    sc_json *o = sc_json_new_object();
    int bad = o == NULL || sc_json_object_append(o, "path", sc_json_new_string_len(e->path, e->path_len)) ||
              sc_json_object_append(o, "type", sc_json_new_string(type_name(e->type))) ||
              sc_json_object_append(o, "sizeBytes", sc_json_new_number((double)e->size)) ||
              sc_json_object_append(o, "compressedSizeBytes",
                                    sc_json_new_number((double)e->compressed_size)) ||
              sc_json_object_append(o, "method",
                                    sc_json_new_string(e->method == 8 ? "deflate" : "stored")) ||
              sc_json_object_append(o, "mode", sc_json_new_string(mode));
    if (!bad && e->link_target != NULL)
        bad = sc_json_object_append(o, "linkTarget", sc_json_new_string(e->link_target));
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
    sc_json *o = sc_json_new_object(), *list = sc_json_new_array();
    int bad = o == NULL || list == NULL;
    uint64_t packed = 0;
    for (size_t i = 0; !bad && i < sc_zip_count(z); i++) {
        const sc_zip_entry *e = sc_zip_at(z, i);
        packed += e->compressed_size;
        bad |= sc_json_array_append(list, entry_json(e)) != 0;
    }
    sc_json *box = NULL;
    const sc_zip_entry *bj = sc_zip_find(z, "box.json");
    if (!bad && bj != NULL && bj->type == SC_ZIP_FILE) {
        char *bytes = NULL;
        size_t len = 0;
        sc_error ignored;
        if (sc_zip_read(z, bj, 1024 * 1024, &bytes, &len, &ignored) == SC_OK &&
            sc_json_parse(bytes, len, &box, &ignored) != SC_OK)
            box = NULL; /* verify says why; inspect shows null */
        free(bytes);
    }
    if (!bad) {
        bad |= sc_json_object_append(o, "archivePath", sc_json_new_string(archive_path));
        bad |= sc_json_object_append(o, "entryCount", sc_json_new_number((double)sc_zip_count(z)));
        bad |= sc_json_object_append(o, "totalSizeBytes",
                                     sc_json_new_number((double)sc_zip_total_size(z)));
        bad |= sc_json_object_append(o, "compressedSizeBytes", sc_json_new_number((double)packed));
        bad |= sc_json_object_append(o, "box", box ? box : sc_json_new_null());
        box = NULL;
        bad |= sc_json_object_append(o, "entries", list);
        list = NULL;
    }
    sc_json_free(box);
    sc_json_free(list);
    sc_zip_close(z);
    if (bad) {
        sc_json_free(o);
        return oom(err);
    }
    *out = o;
    return SC_OK;
}

static int put_copy(sc_json *o, const char *key, const sc_json *from, const char *member)
{
    const sc_json *v = sc_json_get(from, member);
    return sc_json_object_append(o, key, v ? sc_json_copy(v) : sc_json_new_null());
}

sc_code sc_inspect_release(const sc_release *r, const char *release_path,
                           const char *archive_path, sc_json **out, sc_error *err)
{
    *out = NULL;
    const sc_json *p = r->doc.payload;
    sc_json *o = sc_json_new_object(), *keys = sc_json_new_array(), *arch = sc_json_new_object();
    int bad = o == NULL || keys == NULL || arch == NULL;
    for (size_t i = 0; !bad && i < r->signing_key_count; i++)
        bad |= sc_json_array_append(keys, sc_json_new_string(r->signing_key_ids[i])) != 0;
    bad |= arch == NULL || sc_json_object_append(arch, "url", sc_json_new_string(r->archive_url ? r->archive_url : "")) ||
           sc_json_object_append(arch, "sha256", sc_json_new_string(r->archive_sha256)) ||
           sc_json_object_append(arch, "sizeBytes", sc_json_new_number((double)r->archive_size));
    if (!bad) {
        bad |= sc_json_object_append(o, "releasePath", sc_json_new_string(release_path));
        bad |= sc_json_object_append(o, "kind", sc_json_new_string(r->doc.info.kind));
        bad |= put_copy(o, "boxId", p, "boxId") || put_copy(o, "modelId", p, "modelId") ||
               put_copy(o, "runtimeId", p, "runtimeId") || put_copy(o, "version", p, "version");
        bad |= sc_json_object_append(o, "targetId", sc_json_new_string(r->target_id));
        bad |= sc_json_object_append(o, "signingKeyIds", keys);
        keys = NULL;
        bad |= put_copy(o, "provenance", p, "provenance") || put_copy(o, "gates", p, "gates");
        bad |= sc_json_object_append(o, "archive", arch);
        arch = NULL;
        bad |= sc_json_object_append(o, "installedSizeBytes",
                                     sc_json_new_number((double)r->installed_size));
        bad |= sc_json_object_append(o, "payloadDigest", sc_json_new_string(r->payload_digest));
    }
    sc_json_free(keys);
    sc_json_free(arch);
    if (bad) {
        sc_json_free(o);
        return oom(err);
    }
    if (archive_path != NULL) {
        sc_json *contents = NULL;
        sc_code c = sc_inspect_archive(archive_path, &contents, err);
        if (c != SC_OK) {
            sc_json_free(o);
            return c;
        }
        if (sc_json_object_append(o, "contents", contents) != 0) {
            sc_json_free(o);
            return oom(err);
        }
    }
    *out = o;
    return SC_OK;
}

/* ---- diff ---------------------------------------------------------------------- */

static int by_path(const void *x, const void *y)
{
    const sc_json *a = *(const sc_json *const *)x, *b = *(const sc_json *const *)y;
    const sc_json *pa = sc_json_get(a, "path"), *pb = sc_json_get(b, "path");
    size_t la = pa ? pa->length : 0, lb = pb ? pb->length : 0;
    int c = memcmp(pa ? pa->string : "", pb ? pb->string : "", la < lb ? la : lb);
    return c != 0 ? c : (la < lb ? -1 : la > lb);
}

/* The entries of an inspection (an archive's, or a release's contents), sorted. */
static const sc_json **sorted_entries(const sc_json *insp, size_t *n)
{
    const sc_json *contents = sc_json_get(insp, "contents");
    const sc_json *list = sc_json_get(contents ? contents : insp, "entries");
    *n = list != NULL ? list->length : 0;
    const sc_json **v = malloc((*n ? *n : 1) * sizeof *v);
    if (v == NULL)
        return NULL;
    size_t i = 0;
    for (const sc_json *e = list ? list->child : NULL; e != NULL; e = e->next)
        v[i++] = e;
    qsort(v, *n, sizeof *v, by_path);
    return v;
}

static sc_json *brief(const sc_json *e)
{
    sc_json *o = sc_json_new_object();
    const char *keys[] = {"type", "sizeBytes", "mode", "method", "linkTarget"};
    for (size_t i = 0; o != NULL && i < sizeof keys / sizeof keys[0]; i++) {
        const sc_json *v = sc_json_get(e, keys[i]);
        if (v != NULL && sc_json_object_append(o, keys[i], sc_json_copy(v)) != 0) {
            sc_json_free(o);
            return NULL;
        }
    }
    return o;
}

static int same_member(const sc_json *a, const sc_json *b, const char *k)
{
    const sc_json *x = sc_json_get(a, k), *y = sc_json_get(b, k);
    return (x == NULL && y == NULL) || (x != NULL && y != NULL && sc_json_equal(x, y));
}

sc_code sc_inspect_diff(const sc_json *a, const sc_json *b, sc_json **out, sc_error *err)
{
    *out = NULL;
    sc_json *o = sc_json_new_object(), *changed = sc_json_new_array(), *added = sc_json_new_array(),
            *removed = sc_json_new_array(), *modified = sc_json_new_array();
    int bad = o == NULL || changed == NULL || added == NULL || removed == NULL || modified == NULL;
    static const char *const fields[] = {"kind",       "boxId",       "modelId",
                                         "runtimeId",  "version",     "targetId",
                                         "signingKeyIds", "provenance", "gates",
                                         "archive",    "installedSizeBytes", "payloadDigest",
                                         "entryCount", "totalSizeBytes", "compressedSizeBytes",
                                         "box"};
    for (size_t i = 0; !bad && i < sizeof fields / sizeof fields[0]; i++) {
        if (same_member(a, b, fields[i]))
            continue;
        const sc_json *x = sc_json_get(a, fields[i]), *y = sc_json_get(b, fields[i]);
        sc_json *c = sc_json_new_object();
        bad |= c == NULL || sc_json_object_append(c, "field", sc_json_new_string(fields[i])) ||
               sc_json_object_append(c, "a", x ? sc_json_copy(x) : sc_json_new_null()) ||
               sc_json_object_append(c, "b", y ? sc_json_copy(y) : sc_json_new_null()) ||
               sc_json_array_append(changed, c);
    }
    size_t na = 0, nb = 0;
    const sc_json **ea = bad ? NULL : sorted_entries(a, &na);
    const sc_json **eb = bad ? NULL : sorted_entries(b, &nb);
    bad |= ea == NULL || eb == NULL;
    size_t i = 0, j = 0;
    while (!bad && (i < na || j < nb)) {
        int cmp = i == na ? 1 : j == nb ? -1 : by_path(&ea[i], &eb[j]);
        if (cmp != 0) {
            const sc_json *e = cmp < 0 ? ea[i++] : eb[j++];
            sc_json *x = sc_json_new_object();
            bad |= x == NULL || sc_json_object_append(x, "path", sc_json_copy(sc_json_get(e, "path"))) ||
                   sc_json_object_append(x, "sizeBytes", sc_json_copy(sc_json_get(e, "sizeBytes"))) ||
                   sc_json_array_append(cmp < 0 ? removed : added, x);
            continue;
        }
        const sc_json *x = ea[i++], *y = eb[j++];
        int same = same_member(x, y, "type") && same_member(x, y, "sizeBytes") &&
                   same_member(x, y, "mode") && same_member(x, y, "method") &&
                   same_member(x, y, "linkTarget") &&
                   same_member(x, y, "compressedSizeBytes");
        if (same)
            continue;
        sc_json *m = sc_json_new_object();
        bad |= m == NULL || sc_json_object_append(m, "path", sc_json_copy(sc_json_get(x, "path"))) ||
               sc_json_object_append(m, "a", brief(x)) || sc_json_object_append(m, "b", brief(y)) ||
               sc_json_array_append(modified, m);
    }
    free(ea);
    free(eb);
    int same = !bad && changed->length == 0 && added->length == 0 && removed->length == 0 &&
               modified->length == 0;
    if (!bad) {
        bad |= sc_json_object_append(o, "same", sc_json_new_bool(same));
        bad |= sc_json_object_append(o, "changed", changed);
        changed = NULL;
        bad |= sc_json_object_append(o, "added", added);
        added = NULL;
        bad |= sc_json_object_append(o, "removed", removed);
        removed = NULL;
        bad |= sc_json_object_append(o, "modified", modified);
        modified = NULL;
    }
    sc_json_free(changed);
    sc_json_free(added);
    sc_json_free(removed);
    sc_json_free(modified);
    if (bad) {
        sc_json_free(o);
        return oom(err);
    }
    *out = o;
    return SC_OK;
}
