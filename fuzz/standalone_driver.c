/* SPDX-License-Identifier: Apache-2.0 */
/*
 * standalone_driver.c — replay inputs through a fuzz target without libFuzzer.
 *
 *   fuzz_<name> [FILE | DIRECTORY]...
 *
 * Every regular file named, and every regular file found (recursively, in
 * name order, skipping dot entries) under a directory named, is passed once to
 * LLVMFuzzerTestOneInput.  Arguments starting with '-' are libFuzzer flags and
 * are ignored, so the same command line works for both builds.  Prints
 * "Tested N files" and exits 0; exits 1 if an argument cannot be read.  A
 * target reports a finding by crashing (abort), as under libFuzzer.
 */
#include <dirent.h>
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv) __attribute__((weak));

static int run_file(const char *path, size_t *count)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        fprintf(stderr, "%s: %s\n", path, strerror(errno));
        return -1;
    }
    size_t cap = 4096, len = 0;
    uint8_t *buf = malloc(cap);
    if (buf == NULL) {
        fclose(f);
        fprintf(stderr, "%s: out of memory\n", path);
        return -1;
    }
    for (;;) {
        if (len == cap) {
            uint8_t *nb = realloc(buf, cap * 2);
            if (nb == NULL) {
                free(buf);
                fclose(f);
                fprintf(stderr, "%s: out of memory\n", path);
                return -1;
            }
            buf = nb;
            cap *= 2;
        }
        size_t r = fread(buf + len, 1, cap - len, f);
        len += r;
        if (r == 0)
            break;
    }
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        free(buf);
        fprintf(stderr, "%s: read error\n", path);
        return -1;
    }
    /* Hand the target a buffer of exactly len bytes so that ASan sees any
     * read past the end. */
    uint8_t *exact = malloc(len ? len : 1);
    if (exact == NULL) {
        free(buf);
        fprintf(stderr, "%s: out of memory\n", path);
        return -1;
    }
    if (len > 0)
        memcpy(exact, buf, len);
    free(buf);
    LLVMFuzzerTestOneInput(exact, len);
    free(exact);
    (*count)++;
    return 0;
}

static int name_order(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int run_path(const char *path, size_t *count)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        fprintf(stderr, "%s: %s\n", path, strerror(errno));
        return -1;
    }
    if (!S_ISDIR(st.st_mode))
        return S_ISREG(st.st_mode) ? run_file(path, count) : 0;

    DIR *d = opendir(path);
    if (d == NULL) {
        fprintf(stderr, "%s: %s\n", path, strerror(errno));
        return -1;
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    int rc = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        if (n == cap) {
            size_t ncap = cap ? cap * 2 : 64;
            char **nn = realloc(names, ncap * sizeof *nn);
            if (nn == NULL) {
                rc = -1;
                break;
            }
            names = nn;
            cap = ncap;
        }
        size_t len = strlen(path) + strlen(e->d_name) + 2;
        names[n] = malloc(len);
        if (names[n] == NULL) {
            rc = -1;
            break;
        }
        snprintf(names[n], len, "%s/%s", path, e->d_name);
        n++;
    }
    closedir(d);
    if (rc != 0)
        fprintf(stderr, "%s: out of memory\n", path);
    if (n > 0)
        qsort(names, n, sizeof *names, name_order);
    for (size_t i = 0; i < n; i++) {
        if (rc == 0 && run_path(names[i], count) != 0)
            rc = -1;
        free(names[i]);
    }
    free(names);
    return rc;
}

int main(int argc, char **argv)
{
    if (LLVMFuzzerInitialize != NULL)
        LLVMFuzzerInitialize(&argc, &argv);
    size_t count = 0;
    int rc = 0;
    for (int i = 1; i < argc; i++) {
        if (argv[i][0] == '-')
            continue;
        if (run_path(argv[i], &count) != 0)
            rc = 1;
    }
    printf("Tested %zu files\n", count);
    return rc;
}
