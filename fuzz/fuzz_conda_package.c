/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_conda_package.c — the conda package reader (conda_package.h): its
 * metadata parsers and its extraction of archive members.
 *
 * Input: one selector byte, then the body.
 *   selector even: metadata.  The body is split at NUL bytes into
 *     index.json, paths.json (or, selector & 2, legacy info/files),
 *     has_prefix, no_link and link.json, and given to sc_conda_parse_info.
 *     Checked: no crash, no leak; on success every path passes the path
 *     rule, paths are sorted and unique, placeholders are 1..255 bytes.
 *   selector odd: an archive.  The body is written to p.conda (selector & 2
 *     clear) or p.tar.bz2 under a private temporary root and extracted with
 *     a 16 MiB budget.  Checked: no crash, no leak; a failure leaves nothing
 *     but the package file in the root; a success leaves the destination,
 *     which is removed again.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "scrollcase/conda_package.h"
#include "scrollcase/file.h"
#include "scrollcase/path.h"

#include "fuzz_dir.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char g_root[64];

static void remove_root(void)
{
    if (g_root[0] != '\0') {
        sc_error ignored;
        sc_file_remove_tree(g_root, &ignored);
    }
}

static void metadata(const uint8_t *data, size_t size, int legacy)
{
    const char *part[5] = {NULL};
    size_t len[5] = {0};
    char *copy = malloc(size + 1);
    if (copy == NULL)
        return;
    memcpy(copy, data, size);
    copy[size] = '\0';
    size_t start = 0, k = 0;
    for (size_t i = 0; i <= size && k < 5; i++)
        if (i == size || copy[i] == '\0') {
            part[k] = copy + start;
            len[k] = i - start;
            k++;
            start = i + 1;
        }
    sc_conda_info_bytes in;
    memset(&in, 0, sizeof in);
    in.index_json = part[0];
    in.index_json_len = len[0];
    if (legacy) {
        in.files = part[1];
        in.files_len = len[1];
    } else {
        in.paths_json = part[1];
        in.paths_json_len = len[1];
    }
    in.has_prefix = part[2];
    in.has_prefix_len = len[2];
    in.no_link = part[3];
    in.no_link_len = len[3];
    in.link_json = part[4];
    in.link_json_len = len[4];
    sc_conda_package *pkg = calloc(1, sizeof *pkg);
    sc_error err;
    if (pkg != NULL && sc_conda_parse_info(&in, "fuzz", pkg, &err) == SC_OK) {
        for (size_t i = 0; i < pkg->n_paths; i++) {
            const sc_conda_path *p = &pkg->paths[i];
            if (sc_path_check(p->path, strlen(p->path), NULL, &err) != SC_OK)
                abort();
            if (i > 0 && strcmp(pkg->paths[i - 1].path, p->path) >= 0)
                abort();
            if (p->placeholder != NULL &&
                (p->placeholder[0] == '\0' || strlen(p->placeholder) > SC_CONDA_PLACEHOLDER_MAX))
                abort();
        }
        for (size_t i = 0; i < pkg->n_entry_points; i++)
            if (strchr(pkg->entry_points[i].command, '/') != NULL)
                abort();
    }
    sc_conda_package_free(pkg);
    free(copy);
}

static void archive(const uint8_t *data, size_t size, int bz2)
{
    if (g_root[0] == '\0') {
        const char *tmp = getenv("TMPDIR");
        snprintf(g_root, sizeof g_root, "%s/fuzz-conda-XXXXXX",
                 tmp != NULL && strlen(tmp) < 32 ? tmp : "/tmp");
        if (mkdtemp(g_root) == NULL)
            abort();
        atexit(remove_root);
    }
    char file[128], dest[128];
    snprintf(file, sizeof file, "%s/p.%s", g_root, bz2 ? "tar.bz2" : "conda");
    snprintf(dest, sizeof dest, "%s/x", g_root);
    int fd = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0)
        abort();
    if (size > 0 && write(fd, data, size) != (ssize_t)size)
        abort();
    close(fd);
    sc_conda_extract_options o = {"linux-64", 0, 16u << 20, 20000};
    sc_conda_package *pkg = NULL;
    sc_error err;
    sc_code rc = sc_conda_extract(file, "fuzz", dest, &o, &pkg, &err);
    if (rc == SC_OK) {
        if (pkg == NULL)
            abort();
        sc_error e2;
        if (sc_file_remove_tree(dest, &e2) != SC_OK)
            abort();
    } else if (pkg != NULL) {
        abort();
    }
    sc_conda_package_free(pkg);
    unlink(file);
    if (fuzz_count_entries(g_root) != 0)
        abort(); /* nothing left behind, nothing written beside dest */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    uint8_t sel = data[0];
    if (sel & 1)
        archive(data + 1, size - 1, (sel & 2) != 0);
    else
        metadata(data + 1, size - 1, (sel & 2) != 0);
    return 0;
}
