/* SPDX-License-Identifier: Apache-2.0 */
/*
 * assets.c — checking a box's on-demand assets on disk.
 *
 * Guarantees: see assets.h.  The path is walked one segment at a time with
 * openat/fstatat relative to the directory already reached, never following
 * a link, and the bytes hashed are read through the descriptor whose type
 * and size were checked, so a file swapped for a link meanwhile is not read.
 */
#define _POSIX_C_SOURCE 200809L
#include "scrollcase/assets.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "scrollcase/digest.h"
#include "scrollcase/path.h"

#define ASSET_READ_BUFFER ((size_t)256 * 1024)

static sc_code missing(sc_error *err, const char *field, const char *rel)
{
    return sc_error_set(err, SC_E_ASSET_MISSING, field,
                        "Required on-demand asset is missing: %s.", rel);
}

static sc_code not_regular(sc_error *err, const char *field, const char *rel)
{
    return sc_error_set(err, SC_E_ASSET_MISSING, field,
                        "Required on-demand asset is not a regular file: %s.", rel);
}

/* Hash fd's bytes; compare with want (64 lowercase hex). */
static sc_code hash_fd(int fd, const char *want, const char *field, const char *rel,
                       sc_error *err)
{
    unsigned char *buf = malloc(ASSET_READ_BUFFER);
    if (buf == NULL)
        return sc_error_set(err, SC_E_OUT_OF_MEMORY, NULL, "out of memory");
    sc_sha256_ctx ctx = {0};
    sc_code c = sc_sha256_init(&ctx, err);
    while (c == SC_OK) {
        ssize_t r = read(fd, buf, ASSET_READ_BUFFER);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            c = sc_error_set(err, SC_E_IO, field, "%s: %s", rel, strerror(errno));
            break;
        }
        if (r == 0)
            break;
        c = sc_sha256_update(&ctx, buf, (size_t)r, err);
    }
    free(buf);
    unsigned char d[SC_SHA256_LEN];
    if (c != SC_OK) {
        sc_sha256_abort(&ctx);
        return c;
    }
    c = sc_sha256_final(&ctx, d, err);
    if (c != SC_OK)
        return c;
    char hex[SC_SHA256_HEX_LEN + 1];
    sc_hex_lower(d, SC_SHA256_LEN, hex);
    if (strcmp(hex, want) != 0)
        return sc_error_set(err, SC_E_ASSET_HASH, field,
                            "Required on-demand asset SHA-256 mismatch: %s.", rel);
    return SC_OK;
}

static sc_code check_one(int rootfd, const sc_json *a, size_t index, sc_error *err)
{
    char field[64];
    snprintf(field, sizeof field, "$.assets[%zu]", index);
    const sc_json *rj = sc_json_get(a, "relativePath");
    const char *rel = sc_json_cstr(rj);
    const char *sha = sc_json_cstr(sc_json_get(a, "sha256"));
    uint64_t size = 0;
    if (!sc_json_is(a, SC_JSON_OBJECT) || rel == NULL || sha == NULL ||
        !sc_is_lower_hex(sha, strlen(sha), SC_SHA256_HEX_LEN) ||
        !sc_json_uint53(sc_json_get(a, "sizeBytes"), &size))
        return sc_error_set(err, SC_E_INVALID_MANIFEST, field,
                            "%s: an asset needs relativePath, sizeBytes and sha256", field);
    snprintf(field, sizeof field, "$.assets[%zu].relativePath", index);
    sc_code c = sc_path_check(rel, rj->length, field, err);
    if (c != SC_OK)
        return c;
    char *copy = strdup(rel);
    if (copy == NULL)
        return sc_error_set(err, SC_E_OUT_OF_MEMORY, NULL, "out of memory");
    int dir = dup(rootfd);
    if (dir < 0) {
        free(copy);
        return sc_error_set(err, SC_E_IO, field, "%s: %s", rel, strerror(errno));
    }
    char *seg = copy;
    c = SC_OK;
    for (;;) {
        char *slash = strchr(seg, '/');
        if (slash != NULL)
            *slash = '\0';
        struct stat st;
        if (fstatat(dir, seg, &st, AT_SYMLINK_NOFOLLOW) != 0) {
            c = errno == ENOENT || errno == ENOTDIR
                    ? missing(err, field, rel)
                    : sc_error_set(err, SC_E_IO, field, "%s: %s", rel, strerror(errno));
            break;
        }
        if (S_ISLNK(st.st_mode)) {
            c = not_regular(err, field, rel);
            break;
        }
        if (slash != NULL) {
            if (!S_ISDIR(st.st_mode)) {
                c = missing(err, field, rel);
                break;
            }
            int next = openat(dir, seg, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            if (next < 0) {
                c = errno == ENOENT || errno == ENOTDIR || errno == ELOOP
                        ? missing(err, field, rel)
                        : sc_error_set(err, SC_E_IO, field, "%s: %s", rel, strerror(errno));
                break;
            }
            close(dir);
            dir = next;
            seg = slash + 1;
            continue;
        }
        if (!S_ISREG(st.st_mode)) {
            c = not_regular(err, field, rel);
            break;
        }
        int fd = openat(dir, seg, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
        if (fd < 0) {
            c = errno == ENOENT ? missing(err, field, rel)
                : errno == ELOOP ? not_regular(err, field, rel)
                : sc_error_set(err, SC_E_IO, field, "%s: %s", rel, strerror(errno));
            break;
        }
        if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
            c = not_regular(err, field, rel);
        else if ((uint64_t)st.st_size != size)
            c = sc_error_set(err, SC_E_ASSET_SIZE, field,
                             "Required on-demand asset size mismatch: %s.", rel);
        else
            c = hash_fd(fd, sha, field, rel, err);
        close(fd);
        break;
    }
    close(dir);
    free(copy);
    return c;
}

sc_code sc_assets_check(const char *root, const sc_json *assets, sc_error *err)
{
    if (assets == NULL)
        return SC_OK;
    if (!sc_json_is(assets, SC_JSON_ARRAY))
        return sc_error_set(err, SC_E_INVALID_MANIFEST, "$.assets",
                            "$.assets: must be an array");
    if (assets->length == 0)
        return SC_OK;
    int rootfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (rootfd < 0)
        return sc_error_set(err, SC_E_IO, root, "%s: %s", root, strerror(errno));
    sc_code c = SC_OK;
    size_t i = 0;
    for (const sc_json *a = assets->child; a != NULL && c == SC_OK; a = a->next, i++)
        c = check_one(rootfd, a, i, err);
    close(rootfd);
    return c;
}
