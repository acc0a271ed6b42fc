/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_wheel_install.c — sc_wheel_install on arbitrary bytes given as the
 * wheel demo_pkg-1.0-py3-none-any.whl (linux-x86_64-cpu, Python 3.11.4).
 *
 * Each input is written to a file under a private temporary root and
 * installed into a fresh, empty prefix there.  Checked: no crash, no leak;
 * the code is one the header documents; a refusal leaves the prefix empty
 * (nothing half-written, no staging directory); a success leaves exactly
 * the files it reports, each with its reported size and SHA-256, and the
 * RECORD it wrote parses and lists them all.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "scrollcase/digest.h"
#include "scrollcase/file.h"
#include "scrollcase/target.h"
#include "scrollcase/wheel_install.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char g_root[64];

static void remove_root(void)
{
    if (g_root[0] != '\0') {
        sc_error err;
        (void)sc_file_remove_tree(g_root, &err);
    }
}

static void check(int ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "fuzz_wheel_install: %s\n", what);
        abort();
    }
}

static size_t count_files(const char *dir)
{
    DIR *d = opendir(dir);
    if (d == NULL)
        return 0;
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        char *p = sc_path_join(dir, e->d_name);
        struct stat st;
        if (p != NULL && lstat(p, &st) == 0)
            n += S_ISDIR(st.st_mode) ? count_files(p) : 1;
        free(p);
    }
    closedir(d);
    return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (g_root[0] == '\0') {
        const char *base = getenv("TMPDIR");
        snprintf(g_root, sizeof g_root, "%.40s/sc-fuzz-wheel-XXXXXX",
                 base && base[0] ? base : "/tmp");
        if (mkdtemp(g_root) == NULL)
            abort();
        atexit(remove_root);
    }
    char wheel[128], prefix[128];
    snprintf(wheel, sizeof wheel, "%s/w.whl", g_root);
    snprintf(prefix, sizeof prefix, "%s/prefix", g_root);
    sc_error err;
    if (sc_file_write_atomic(wheel, data, size, 0644, &err) != SC_OK || mkdir(prefix, 0755) != 0)
        abort();
    sc_target t;
    check(sc_target_parse_id("linux-x86_64-cpu", &t, &err) == SC_OK, "target");
    sc_wheel_env env = {&t, "3.11.4", "lib/python3.11/site-packages", "bin", NULL, NULL, 1};
    sc_wheel_installed out;
    sc_code c = sc_wheel_install(wheel, "demo_pkg-1.0-py3-none-any.whl", prefix, &env, &out,
                                 &err);
    check(c == SC_OK || c == SC_E_INVALID_WHEEL || c == SC_E_WHEEL_INCOMPATIBLE ||
              c == SC_E_WHEEL_RECORD_MISMATCH || c == SC_E_UNSAFE_PATH ||
              c == SC_E_ENTRY_COLLISION || c == SC_E_INVALID_ARCHIVE ||
              c == SC_E_ENCRYPTED_ENTRY || c == SC_E_SPECIAL_ENTRY || c == SC_E_LINK_ENTRY ||
              c == SC_E_EXTRACTION_LIMIT || c == SC_E_OUT_OF_MEMORY,
          "an undocumented code");
    check(err.code == c && strchr(err.message, '\n') == NULL, "the error disagrees");
    if (c != SC_OK) {
        check(count_files(prefix) == 0, "a refusal left something in the prefix");
    } else {
        check(count_files(prefix) == out.nfiles, "files other than those reported");
        int record = 0;
        for (size_t i = 0; i < out.nfiles; i++) {
            char *p = sc_path_join(prefix, out.files[i].path);
            unsigned char d[SC_SHA256_LEN];
            char hex[65];
            struct stat st;
            check(p != NULL && lstat(p, &st) == 0 && S_ISREG(st.st_mode) &&
                      (uint64_t)st.st_size == out.files[i].size &&
                      (st.st_mode & 07777) == out.files[i].mode,
                  "a reported file is not on disk as reported");
            check(sc_sha256_file(p, d, &err) == SC_OK, "unreadable file");
            sc_hex_lower(d, SC_SHA256_LEN, hex);
            check(strcmp(hex, out.files[i].sha256) == 0, "a reported sha256 is wrong");
            size_t dl = strlen(out.dist_info);
            if (strncmp(out.files[i].path, out.dist_info, dl) == 0 &&
                strcmp(out.files[i].path + dl, "/RECORD") == 0) {
                char *text;
                size_t len;
                sc_wheel_record_row *rows;
                size_t nrows;
                check(sc_file_read(p, &text, &len, NULL, &err) == SC_OK, "RECORD unreadable");
                check(sc_wheel_record_parse(text, len, "RECORD", &rows, &nrows, &err) == SC_OK &&
                          nrows == out.nfiles,
                      "the written RECORD does not list every file");
                sc_wheel_record_free(rows, nrows);
                free(text);
                record = 1;
            }
            free(p);
        }
        check(record, "no RECORD written");
        sc_wheel_installed_free(&out);
    }
    check(sc_file_remove_tree(prefix, &err) == SC_OK, "prefix not removable");
    unlink(wheel);
    return 0;
}
