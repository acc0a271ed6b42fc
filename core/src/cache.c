/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cache.c — the asset cache (cache.h).  Downloads go through download.c
 * with the cache entry as their destination, so its .part is the one a later
 * build resumes; the payload gets a copy (or a hard link on the same file
 * system) of the verified entry.
 */
#define _POSIX_C_SOURCE 200809L

#include "scrollcase/cache.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "scrollcase/digest.h"
#include "scrollcase/file.h"

static sc_code oom(sc_error *err)
{
    return sc_error_set(err, SC_E_OUT_OF_MEMORY, NULL, "out of memory");
}

sc_code sc_cache_dir(char **out, sc_error *err)
{
    *out = NULL;
    const char *env = getenv("SCROLLCASE_CACHE");
    if (env != NULL && env[0] != '\0') {
        *out = strdup(env);
        return *out ? SC_OK : oom(err);
    }
    const char *home = getenv("HOME");
    if (home == NULL || home[0] == '\0')
        return SC_OK;
    *out = sc_path_join(home, ".cache/scrollcase/assets");
    return *out ? SC_OK : oom(err);
}

static sc_code make_dirs(char *path, sc_error *err)
{
    for (char *p = path + 1; *p; p++) {
        if (*p != '/')
            continue;
        *p = '\0';
        int bad = mkdir(path, 0755) != 0 && errno != EEXIST;
        *p = '/';
        if (bad)
            return sc_error_set(err, SC_E_IO, path, "cannot create %s: %s", path, strerror(errno));
    }
    if (mkdir(path, 0755) != 0 && errno != EEXIST)
        return sc_error_set(err, SC_E_IO, path, "cannot create %s: %s", path, strerror(errno));
    return SC_OK;
}

/* Whether path is a regular file of size bytes whose SHA-256 is sha256_hex. */
static int verified(const char *path, uint64_t size, const char *sha256_hex)
{
    struct stat st;
    if (lstat(path, &st) != 0 || !S_ISREG(st.st_mode) || (uint64_t)st.st_size != size)
        return 0;
    unsigned char d[SC_SHA256_LEN];
    char hex[SC_SHA256_HEX_LEN + 1];
    sc_error ignored;
    if (sc_sha256_file(path, d, &ignored) != SC_OK)
        return 0;
    sc_hex_lower(d, SC_SHA256_LEN, hex);
    return strcmp(hex, sha256_hex) == 0;
}

/* dest gets the bytes of from: a hard link when possible, else a streamed copy. */
static sc_code place(const char *from, const char *dest, sc_error *err)
{
    unlink(dest);
    if (link(from, dest) == 0)
        return SC_OK;
    int in = open(from, O_RDONLY | O_CLOEXEC);
    if (in < 0)
        return sc_error_set(err, SC_E_IO, from, "cannot open %s: %s", from, strerror(errno));
    int outfd = open(dest, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (outfd < 0) {
        int e = errno;
        close(in);
        return sc_error_set(err, SC_E_IO, dest, "cannot create %s: %s", dest, strerror(e));
    }
    char buf[65536];
    sc_code c = SC_OK;
    for (;;) {
        ssize_t n = read(in, buf, sizeof buf);
        if (n == 0)
            break;
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            c = sc_error_set(err, SC_E_IO, from, "cannot read %s: %s", from, strerror(errno));
            break;
        }
        for (ssize_t off = 0; c == SC_OK && off < n;) {
            ssize_t w = write(outfd, buf + off, (size_t)(n - off));
            if (w < 0 && errno == EINTR)
                continue;
            if (w < 0)
                c = sc_error_set(err, SC_E_IO, dest, "cannot write %s: %s", dest, strerror(errno));
            else
                off += w;
        }
        if (c != SC_OK)
            break;
    }
    close(in);
    if (close(outfd) != 0 && c == SC_OK)
        c = sc_error_set(err, SC_E_IO, dest, "cannot write %s: %s", dest, strerror(errno));
    if (c != SC_OK)
        unlink(dest);
    return c;
}

sc_code sc_cache_fetch(const char *dir, const char *url, uint64_t size, const char *sha256_hex,
                       int offline, const sc_download_options *o, const char *dest, int *hit,
                       sc_error *err)
{
    *hit = 0;
    if (sha256_hex == NULL || !sc_is_lower_hex(sha256_hex, strlen(sha256_hex), SC_SHA256_HEX_LEN))
        return sc_error_set(err, SC_E_INVALID_SCROLL, NULL, "the asset %s pins no sha256", url);
    if (dir == NULL) { /* no cache: straight to the payload */
        if (offline)
            return sc_error_set(err, SC_E_ASSET_NOT_CACHED, NULL,
                                "--offline, and there is no asset cache (set SCROLLCASE_CACHE "
                                "or HOME) for %s",
                                url);
        return sc_download_verified(url, dest, size, sha256_hex, o, err);
    }
    char *d = strdup(dir);
    if (d == NULL)
        return oom(err);
    sc_code c = make_dirs(d, err);
    free(d);
    if (c != SC_OK)
        return c;
    char *entry = sc_path_join(dir, sha256_hex);
    if (entry == NULL)
        return oom(err);
    if (verified(entry, size, sha256_hex)) {
        *hit = 1;
    } else if (offline) {
        c = sc_error_set(err, SC_E_ASSET_NOT_CACHED, entry,
                         "--offline, and the asset cache has no %s (%s)", sha256_hex, url);
    } else {
        c = sc_download_verified(url, entry, size, sha256_hex, o, err);
    }
    if (c == SC_OK)
        c = place(entry, dest, err);
    free(entry);
    return c;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(((const sc_cache_entry *)a)->name, ((const sc_cache_entry *)b)->name);
}

/* Whether name is "<64 hex>" (partial 0) or "<64 hex>.part" (partial 1). */
static int entry_name(const char *name, int *partial)
{
    size_t n = strlen(name);
    if (n < SC_SHA256_HEX_LEN || !sc_is_lower_hex(name, SC_SHA256_HEX_LEN, SC_SHA256_HEX_LEN))
        return 0;
    *partial = n == SC_SHA256_HEX_LEN + 5 && strcmp(name + SC_SHA256_HEX_LEN, ".part") == 0;
    return n == SC_SHA256_HEX_LEN || *partial;
}

sc_code sc_cache_list(const char *dir, sc_cache_entry **entries, size_t *n, sc_error *err)
{
    *entries = NULL;
    *n = 0;
    DIR *dp = opendir(dir);
    if (dp == NULL)
        return errno == ENOENT ? SC_OK
                               : sc_error_set(err, SC_E_IO, dir, "cannot read %s: %s", dir,
                                              strerror(errno));
    size_t cap = 0;
    struct dirent *de;
    sc_code c = SC_OK;
    while (c == SC_OK && (de = readdir(dp)) != NULL) {
        int partial = 0;
        if (!entry_name(de->d_name, &partial))
            continue;
        char *path = sc_path_join(dir, de->d_name);
        struct stat st;
        if (path == NULL) {
            c = oom(err);
        } else if (lstat(path, &st) == 0 && S_ISREG(st.st_mode)) {
            if (*n == cap) {
                cap = cap ? cap * 2 : 16;
                sc_cache_entry *g = realloc(*entries, cap * sizeof *g);
                if (g == NULL)
                    c = oom(err);
                else
                    *entries = g;
            }
            if (c == SC_OK) {
                sc_cache_entry *e = &(*entries)[(*n)++];
                snprintf(e->name, sizeof e->name, "%.69s", de->d_name); /* entry_name: at most 69 */
                e->size = (uint64_t)st.st_size;
                e->partial = partial;
            }
        }
        free(path);
    }
    closedir(dp);
    if (c != SC_OK) {
        free(*entries);
        *entries = NULL;
        *n = 0;
        return c;
    }
    if (*n > 1)
        qsort(*entries, *n, sizeof **entries, by_name);
    return SC_OK;
}

sc_code sc_cache_gc(const char *dir, size_t *removed, uint64_t *freed, sc_error *err)
{
    *removed = 0;
    *freed = 0;
    DIR *dp = opendir(dir);
    if (dp == NULL)
        return errno == ENOENT ? SC_OK
                               : sc_error_set(err, SC_E_IO, dir, "cannot read %s: %s", dir,
                                              strerror(errno));
    struct dirent *de;
    sc_code c = SC_OK;
    while (c == SC_OK && (de = readdir(dp)) != NULL) {
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
            continue;
        char *path = sc_path_join(dir, de->d_name);
        if (path == NULL) {
            c = oom(err);
            break;
        }
        struct stat st;
        int partial = 0, keep = 0;
        if (lstat(path, &st) == 0 && S_ISREG(st.st_mode) && entry_name(de->d_name, &partial) &&
            !partial) {
            char name[SC_SHA256_HEX_LEN + 1];
            memcpy(name, de->d_name, sizeof name);
            keep = verified(path, (uint64_t)st.st_size, name);
        }
        if (!keep && lstat(path, &st) == 0 && !S_ISDIR(st.st_mode)) {
            if (unlink(path) == 0) {
                (*removed)++;
                *freed += (uint64_t)st.st_size;
            } else {
                c = sc_error_set(err, SC_E_IO, path, "cannot remove %s: %s", path, strerror(errno));
            }
        }
        free(path);
    }
    closedir(dp);
    return c;
}
