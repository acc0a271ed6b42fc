/* SPDX-License-Identifier: Apache-2.0 */
/*
 * asset_cache.c — the content-addressed asset cache (asset_cache.h): one
 * directory of files named by their SHA-256, filled by download.c (which
 * keeps "<sha256>.part" for a resume), read by builds before the network.
 */
#include "scrollcase/asset_cache.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "scrollcase/copy.h"
#include "scrollcase/digest.h"
#include "scrollcase/file.h"
#include "scrollcase/path.h"

#define PART_SUFFIX ".part"

static sc_code oom(sc_error *err)
{
    return sc_error_set(err, SC_E_OUT_OF_MEMORY, NULL, "out of memory");
}

sc_code sc_asset_cache_dir(char **out, sc_error *err)
{
    *out = NULL;
    const char *env = getenv("SCROLLCASE_CACHE");
    if (env != NULL && env[0] != '\0') {
        *out = strdup(env);
        return *out != NULL ? SC_OK : oom(err);
    }
    const char *home = getenv("HOME");
    if (home == NULL || home[0] == '\0')
        return sc_error_set(err, SC_E_USAGE, NULL,
                            "neither SCROLLCASE_CACHE nor HOME is set: set SCROLLCASE_CACHE to "
                            "the asset cache directory");
    *out = sc_path_join(home, ".cache/scrollcase/assets");
    return *out != NULL ? SC_OK : oom(err);
}

/* mkdir -p (0755 for what it creates). */
static sc_code make_dirs(const char *path, sc_error *err)
{
    char *p = strdup(path);
    if (p == NULL)
        return oom(err);
    for (char *s = p + 1;; s++) {
        if (*s != '/' && *s != '\0')
            continue;
        char c = *s;
        *s = '\0';
        if (mkdir(p, 0755) != 0 && errno != EEXIST) {
            sc_code rc = sc_error_set(err, SC_E_IO, path, "cannot create the directory %s: %s",
                                      p, strerror(errno));
            free(p);
            return rc;
        }
        *s = c;
        if (c == '\0')
            break;
    }
    free(p);
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode))
        return sc_error_set(err, SC_E_IO, path, "%s is not a directory", path);
    return SC_OK;
}

/* Whether path is a regular file of size bytes (0: any) hashing to sha256. */
static int matches(const char *path, uint64_t size, const char *sha256)
{
    struct stat st;
    if (lstat(path, &st) != 0 || !S_ISREG(st.st_mode) ||
        (size > 0 && (uint64_t)st.st_size != size))
        return 0;
    unsigned char d[SC_SHA256_LEN];
    char hex[SC_SHA256_HEX_LEN + 1];
    sc_error ignored;
    if (sc_sha256_file(path, d, &ignored) != SC_OK)
        return 0;
    sc_hex_lower(d, SC_SHA256_LEN, hex);
    return strcmp(hex, sha256) == 0;
}

static int hexval(char c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
         : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

/* The local path of a file:// URL (%XX decoded; "file://" + absolute path
 * or "file://localhost/..."), or NULL when url is not one (or on OOM). */
static char *file_url_path(const char *url)
{
    const char *p;
    if (strncmp(url, "file://localhost/", 17) == 0)
        p = url + 16;
    else if (strncmp(url, "file:///", 8) == 0)
        p = url + 7;
    else
        return NULL;
    char *out = malloc(strlen(p) + 1);
    if (out == NULL)
        return NULL;
    size_t n = 0;
    for (; *p != '\0' && *p != '?' && *p != '#'; p++) {
        int h, l;
        if (*p == '%' && (h = hexval(p[1])) >= 0 && (l = hexval(p[2])) >= 0) {
            out[n++] = (char)(h * 16 + l);
            p += 2;
        } else {
            out[n++] = *p;
        }
    }
    out[n] = '\0';
    if (n == 0 || memchr(out, '\0', n) != NULL) {
        free(out);
        return NULL;
    }
    return out;
}

/*
 * A file:// asset: copied into "<file>.part", checked (size when pinned,
 * SHA-256 always), renamed to file.  Nothing unverified ever has the
 * entry's name.
 */
static sc_code fetch_local(const char *url, const char *src, const char *file, uint64_t size,
                           const char *sha256, sc_error *err)
{
    if (matches(file, size, sha256))
        return SC_OK;
    size_t fl = strlen(file);
    char *part = malloc(fl + sizeof PART_SUFFIX);
    if (part == NULL)
        return oom(err);
    memcpy(part, file, fl);
    memcpy(part + fl, PART_SUFFIX, sizeof PART_SUFFIX);
    int in = -1;
    struct stat st;
    sc_code c = sc_file_open_regular(src, 0, &in, &st, NULL, err);
    if (c != SC_OK) {
        char why[SC_ERROR_MESSAGE_MAX];
        snprintf(why, sizeof why, "%s", err ? err->message : "?");
        free(part);
        return sc_error_set(err, SC_E_DOWNLOAD_FAILED, url, "cannot read %s: %s", url, why);
    }
    (void)unlink(part);
    int out = open(part, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (out < 0) {
        c = sc_error_set(err, SC_E_IO, part, "cannot create %s: %s", part, strerror(errno));
    } else {
        c = sc_copy_fd(in, out, src, part, err);
        if (close(out) != 0 && c == SC_OK)
            c = sc_error_set(err, SC_E_IO, part, "cannot write %s: %s", part, strerror(errno));
    }
    close(in);
    if (c == SC_OK) {
        unsigned char d[SC_SHA256_LEN];
        char hex[SC_SHA256_HEX_LEN + 1];
        struct stat ps;
        c = sc_sha256_file(part, d, err);
        if (c == SC_OK && stat(part, &ps) != 0)
            c = sc_error_set(err, SC_E_IO, part, "cannot stat %s: %s", part, strerror(errno));
        if (c == SC_OK && size > 0 && (uint64_t)ps.st_size != size)
            c = sc_error_set(err, SC_E_ASSET_SIZE, url,
                             "%s is %llu bytes, the pin says %llu", url,
                             (unsigned long long)ps.st_size, (unsigned long long)size);
        if (c == SC_OK) {
            sc_hex_lower(d, SC_SHA256_LEN, hex);
            if (strcmp(hex, sha256) != 0)
                c = sc_error_set(err, SC_E_ASSET_HASH, url,
                                 "%s has SHA-256 %s, the pin says %s", url, hex, sha256);
        }
        if (c == SC_OK && rename(part, file) != 0)
            c = sc_error_set(err, SC_E_IO, file, "cannot rename %s: %s", part, strerror(errno));
    }
    if (c != SC_OK)
        (void)unlink(part);
    free(part);
    return c;
}

sc_code sc_asset_cache_fetch(const char *dir, const char *url, uint64_t size,
                             const char *sha256, int offline, const sc_download_options *o,
                             char **path, sc_error *err)
{
    if (path != NULL)
        *path = NULL;
    if (sha256 == NULL || !sc_is_lower_hex(sha256, strlen(sha256), SC_SHA256_HEX_LEN))
        return sc_error_set(err, SC_E_INVALID_SCROLL, url,
                            "the asset %s has no SHA-256 pin (64 lowercase hex digits), so the "
                            "cache cannot hold it; pin it with scrollcase refresh",
                            url ? url : "?");
    char *file = sc_path_join(dir, sha256);
    if (file == NULL)
        return oom(err);
    sc_code c = SC_OK;
    if (offline) {
        if (!matches(file, size, sha256))
            c = sc_error_set(err, SC_E_ASSET_NOT_CACHED, url,
                             "--offline: the asset %s (sha256 %s) is not in the asset cache %s; "
                             "run the command once without --offline",
                             url ? url : "?", sha256, dir);
    } else if (strncmp(url, "file:", 5) == 0) {
        char *src = file_url_path(url);
        c = src == NULL ? sc_error_set(err, SC_E_DOWNLOAD_FAILED, url,
                                       "%s is not a file:// URL of an absolute path", url)
                        : make_dirs(dir, err);
        if (c == SC_OK)
            c = fetch_local(url, src, file, size, sha256, err);
        free(src);
    } else {
        c = make_dirs(dir, err);
        if (c == SC_OK)
            c = sc_download_verified(url, file, size, sha256, o, err);
    }
    if (c == SC_OK && path != NULL) {
        *path = file;
        file = NULL;
    }
    free(file);
    return c;
}

sc_code sc_asset_cache_copy_to(const char *dir, const char *url, uint64_t size,
                               const char *sha256, int offline,
                               const sc_download_options *o, const char *dest, sc_error *err)
{
    char *file = NULL;
    sc_code c = sc_asset_cache_fetch(dir, url, size, sha256, offline, o, &file, err);
    if (c != SC_OK)
        return c;
    int in = -1;
    c = sc_file_open_regular(file, SC_FILE_NOFOLLOW, &in, NULL, NULL, err);
    if (c == SC_OK) {
        (void)unlink(dest);
        int out = open(dest, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
        if (out < 0) {
            c = sc_error_set(err, SC_E_IO, dest, "cannot create %s: %s", dest, strerror(errno));
        } else {
            c = sc_copy_fd(in, out, file, dest, err);
            if (c == SC_OK && fchmod(out, 0644) != 0)
                c = sc_error_set(err, SC_E_IO, dest, "cannot chmod %s: %s", dest,
                                 strerror(errno));
            if (close(out) != 0 && c == SC_OK)
                c = sc_error_set(err, SC_E_IO, dest, "cannot write %s: %s", dest,
                                 strerror(errno));
            if (c != SC_OK)
                (void)unlink(dest);
        }
        close(in);
    }
    free(file);
    return c;
}

/* ---- listing and collecting ------------------------------------------------ */

typedef struct name_list {
    char **v;
    size_t n, cap;
} name_list;

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void names_free(name_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->v[i]);
    free(l->v);
}

/* Every name in dir but . and .., sorted; a missing dir is empty. */
static sc_code read_names(const char *dir, name_list *l, sc_error *err)
{
    memset(l, 0, sizeof *l);
    DIR *d = opendir(dir);
    if (d == NULL) {
        if (errno == ENOENT)
            return SC_OK;
        return sc_error_set(err, SC_E_IO, dir, "cannot read the asset cache %s: %s", dir,
                            strerror(errno));
    }
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        if (l->n == l->cap) {
            size_t cap = l->cap ? l->cap * 2 : 32;
            char **v = realloc(l->v, cap * sizeof *v);
            if (v == NULL) {
                closedir(d);
                names_free(l);
                return oom(err);
            }
            l->v = v;
            l->cap = cap;
        }
        if ((l->v[l->n] = strdup(e->d_name)) == NULL) {
            closedir(d);
            names_free(l);
            return oom(err);
        }
        l->n++;
    }
    closedir(d);
    qsort(l->v, l->n, sizeof *l->v, cmp_names);
    return SC_OK;
}

/* 1: an entry's name; 2: a partial one's; 0: neither. */
static int name_kind(const char *name)
{
    size_t n = strlen(name);
    if (n == SC_SHA256_HEX_LEN && sc_is_lower_hex(name, n, SC_SHA256_HEX_LEN))
        return 1;
    if (n == SC_SHA256_HEX_LEN + strlen(PART_SUFFIX) &&
        sc_is_lower_hex(name, SC_SHA256_HEX_LEN, SC_SHA256_HEX_LEN) &&
        strcmp(name + SC_SHA256_HEX_LEN, PART_SUFFIX) == 0)
        return 2;
    return 0;
}

static void put(sc_json *o, const char *key, sc_json *v, int *bad)
{
    if (*bad || o == NULL || v == NULL) {
        sc_json_free(v);
        *bad = 1;
        return;
    }
    if (sc_json_object_append(o, key, v) != 0)
        *bad = 1;
}

static void push(sc_json *a, sc_json *v, int *bad)
{
    if (*bad || a == NULL || v == NULL || sc_json_array_append(a, v) != 0) {
        sc_json_free(v);
        *bad = 1;
    }
}

sc_code sc_asset_cache_list(const char *dir, sc_json **out, sc_error *err)
{
    *out = NULL;
    name_list l;
    sc_code c = read_names(dir, &l, err);
    if (c != SC_OK)
        return c;
    sc_json *o = sc_json_new_object(), *entries = sc_json_new_array();
    int bad = o == NULL || entries == NULL;
    uint64_t total = 0;
    for (size_t i = 0; i < l.n && !bad; i++) {
        int kind = name_kind(l.v[i]);
        if (kind == 0)
            continue;
        char *p = sc_path_join(dir, l.v[i]);
        struct stat st;
        if (p == NULL) {
            bad = 1;
            break;
        }
        int ok = lstat(p, &st) == 0 && S_ISREG(st.st_mode);
        free(p);
        if (!ok)
            continue;
        total += (uint64_t)st.st_size;
        sc_json *e = sc_json_new_object();
        int b2 = e == NULL;
        put(e, "sha256", sc_json_new_string_len(l.v[i], SC_SHA256_HEX_LEN), &b2);
        put(e, "sizeBytes", sc_json_new_number((double)st.st_size), &b2);
        put(e, "partial", sc_json_new_bool(kind == 2), &b2);
        if (b2) {
            sc_json_free(e);
            bad = 1;
        } else {
            push(entries, e, &bad);
        }
    }
    names_free(&l);
    put(o, "directory", sc_json_new_string(dir), &bad);
    put(o, "entries", entries, &bad);
    put(o, "totalBytes", sc_json_new_number((double)total), &bad);
    if (bad) {
        sc_json_free(o);
        return oom(err);
    }
    *out = o;
    return SC_OK;
}

sc_code sc_asset_cache_gc(const char *dir, sc_json **out, sc_error *err)
{
    *out = NULL;
    name_list l;
    sc_code c = read_names(dir, &l, err);
    if (c != SC_OK)
        return c;
    sc_json *o = sc_json_new_object(), *removed = sc_json_new_array();
    int bad = o == NULL || removed == NULL;
    uint64_t freed = 0, kept = 0;
    for (size_t i = 0; i < l.n && !bad && c == SC_OK; i++) {
        char *p = sc_path_join(dir, l.v[i]);
        if (p == NULL) {
            bad = 1;
            break;
        }
        struct stat st;
        if (lstat(p, &st) != 0) {
            free(p);
            continue;
        }
        int kind = name_kind(l.v[i]);
        const char *reason = NULL;
        if (kind == 2)
            reason = "partial";
        else if (kind == 0 || !S_ISREG(st.st_mode))
            reason = "foreign";
        else {
            unsigned char d[SC_SHA256_LEN];
            char hex[SC_SHA256_HEX_LEN + 1];
            c = sc_sha256_file(p, d, err);
            if (c == SC_OK) {
                sc_hex_lower(d, SC_SHA256_LEN, hex);
                if (strcmp(hex, l.v[i]) != 0)
                    reason = "damaged";
            }
        }
        if (c == SC_OK && reason == NULL) {
            kept++;
        } else if (c == SC_OK) {
            uint64_t size = S_ISREG(st.st_mode) ? (uint64_t)st.st_size : 0;
            c = S_ISDIR(st.st_mode) ? sc_file_remove_tree(p, err)
                : unlink(p) == 0   ? SC_OK
                                   : sc_error_set(err, SC_E_IO, p, "cannot remove %s: %s", p,
                                                  strerror(errno));
            if (c == SC_OK) {
                freed += size;
                sc_json *e = sc_json_new_object();
                int b2 = e == NULL;
                put(e, "name", sc_json_new_string(l.v[i]), &b2);
                put(e, "sizeBytes", sc_json_new_number((double)size), &b2);
                put(e, "reason", sc_json_new_string(reason), &b2);
                if (b2) {
                    sc_json_free(e);
                    bad = 1;
                } else {
                    push(removed, e, &bad);
                }
            }
        }
        free(p);
    }
    names_free(&l);
    if (c != SC_OK) {
        sc_json_free(o);
        sc_json_free(removed);
        return c;
    }
    put(o, "directory", sc_json_new_string(dir), &bad);
    put(o, "removed", removed, &bad);
    put(o, "freedBytes", sc_json_new_number((double)freed), &bad);
    put(o, "kept", sc_json_new_number((double)kept), &bad);
    if (bad) {
        sc_json_free(o);
        return oom(err);
    }
    *out = o;
    return SC_OK;
}
