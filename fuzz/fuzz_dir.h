/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_dir.h — what the extracting fuzz targets (fuzz_extract.c,
 * fuzz_conda_package.c) ask of the directory they extracted into: the
 * number of its entries, to check that a refused input left nothing.
 */
#ifndef SCROLLCASE_FUZZ_DIR_H
#define SCROLLCASE_FUZZ_DIR_H

#include <dirent.h>
#include <string.h>

/* Entries of dir other than "." and "..", or -1 when it cannot be opened. */
static inline int fuzz_count_entries(const char *dir)
{
    DIR *d = opendir(dir);
    if (d == NULL)
        return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            n++;
    closedir(d);
    return n;
}

#endif
