/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_extract.c — the archive EXTRACTION path (sc_zip_extract, format-v3
 * 15.2 and 16.2 step 5) on whatever the reader accepts.
 *
 * Input: archive bytes, opened as fuzz_zip does (64 MiB budget).  An
 * accepted archive is extracted into a fresh directory under a private
 * temporary root; then the tree is walked (sc_file_walk) and removed
 * (sc_file_remove_tree).  Checked: no crash, no leak; extraction succeeds or
 * fails with the reader's or io-error codes only; every file, link and
 * directory entry of an extraction that succeeded is on disk with its kind
 * (and a file with its declared size), nothing outside the destination is
 * written (the root holds only the destination), and after removal the
 * temporary root is empty.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "scrollcase/archive_read.h"
#include "scrollcase/file.h"

#include "fuzz_dir.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char g_root[64];

static void remove_root(void)
{
    if (g_root[0] != '\0')
        (void)rmdir(g_root);
}

static sc_code count_one(void *ctx, const sc_walk_entry *e, int *skip, sc_error *err)
{
    (void)skip;
    (void)err;
    (void)e;
    (*(size_t *)ctx)++;
    return SC_OK;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (g_root[0] == '\0') {
        const char *base = getenv("TMPDIR");
        snprintf(g_root, sizeof g_root, "%.40s/sc-fuzz-extract-XXXXXX",
                 base && base[0] ? base : "/tmp");
        if (mkdtemp(g_root) == NULL)
            abort();
        atexit(remove_root);
    }
    FILE *f = tmpfile();
    if (f == NULL)
        return 0;
    if (size > 0 && fwrite(data, 1, size, f) != size) {
        fclose(f);
        return 0;
    }
    fflush(f);
    sc_zip_limits lim = {(uint64_t)64 << 20, 0};
    sc_zip *z = NULL;
    sc_error err;
    sc_code rc = sc_zip_open_fd(fileno(f), "fuzz.zip", &lim, &z, &err);
    fclose(f);
    if (rc != SC_OK)
        return 0;
    char dest[128];
    snprintf(dest, sizeof dest, "%s/out", g_root);
    if (mkdir(dest, 0700) != 0)
        abort();
    rc = sc_zip_extract(z, dest, &err);
    if (rc != SC_OK && rc != SC_E_IO && rc != SC_E_INVALID_ARCHIVE &&
        rc != SC_E_EXTRACTION_LIMIT && rc != SC_E_OUT_OF_MEMORY)
        abort();
    if (fuzz_count_entries(g_root) != 1) /* nothing beside the destination */
        abort();
    if (rc == SC_OK) {
        int dfd = open(dest, O_RDONLY | O_DIRECTORY);
        if (dfd < 0)
            abort();
        for (size_t i = 0; i < sc_zip_count(z); i++) {
            const sc_zip_entry *e = sc_zip_at(z, i);
            struct stat st;
            if (fstatat(dfd, e->path, &st, AT_SYMLINK_NOFOLLOW) != 0) {
                if (e->path_len < 4000) /* longer paths: the walk below covers them */
                    abort();
                continue;
            }
            if ((e->type == SC_ZIP_DIR && !S_ISDIR(st.st_mode)) ||
                (e->type == SC_ZIP_LINK && !S_ISLNK(st.st_mode)) ||
                (e->type == SC_ZIP_FILE &&
                 (!S_ISREG(st.st_mode) || (uint64_t)st.st_size != e->size)))
                abort();
        }
        close(dfd);
        size_t n = 0;
        if (sc_file_walk(dest, 0, count_one, &n, &err) != SC_OK || n < sc_zip_count(z))
            abort();
    }
    sc_zip_close(z);
    if (sc_file_remove_tree(dest, &err) != SC_OK || fuzz_count_entries(g_root) != 0)
        abort();
    return 0;
}
