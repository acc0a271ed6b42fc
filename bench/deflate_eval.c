/* SPDX-License-Identifier: Apache-2.0 */
/*
 * deflate_eval.c — zlib, libdeflate and ISA-L igzip side by side on the same
 * files, as the archive writer uses deflate: each file on its own, raw
 * deflate (no zlib or gzip wrapper).  usage: sc-bench-deflate DIR [ROUNDS]
 *
 * Reads every regular file under DIR into memory, then for each compressor
 * and level compresses every file (best of ROUNDS, default 3), and inflates
 * zlib level 6's output (the archives' bytes) with each inflater.  Prints
 * one line per run: compressed/original ratio, MB/s of input per CPU second,
 * and whether the output inflates back to the input.  Times are this
 * thread's CPU time (CLOCK_THREAD_CPUTIME_ID), so a busy shared machine
 * does not skew the comparison (memory bandwidth still may).  Also checks
 * that each compressor gives the same bytes on every round (determinism).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <isa-l/igzip_lib.h>
#include <libdeflate.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <zlib.h>

typedef struct file {
    unsigned char *data;
    size_t len;
} file;

static file *files;
static size_t nfiles, capfiles;
static uint64_t total;

static void load(const char *dir)
{
    DIR *d = opendir(dir);
    if (d == NULL)
        return;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
            continue;
        char p[4096];
        snprintf(p, sizeof p, "%s/%s", dir, de->d_name);
        struct stat st;
        if (lstat(p, &st) != 0)
            continue;
        if (S_ISDIR(st.st_mode)) {
            load(p);
        } else if (S_ISREG(st.st_mode)) {
            FILE *f = fopen(p, "rb");
            if (f == NULL)
                continue;
            if (nfiles == capfiles) {
                capfiles = capfiles ? capfiles * 2 : 256;
                files = realloc(files, capfiles * sizeof *files);
                if (files == NULL)
                    exit(1);
            }
            file *x = &files[nfiles++];
            x->len = (size_t)st.st_size;
            x->data = malloc(x->len ? x->len : 1);
            if (x->data == NULL || fread(x->data, 1, x->len, f) != x->len)
                exit(1);
            fclose(f);
            total += x->len;
        }
    }
    closedir(d);
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

enum { ZLIB, LIBDEFLATE, IGZIP };
static const char *const names[] = {"zlib", "libdeflate", "igzip"};

/* Compress in into out (cap bytes); returns the length or 0. */
static size_t compress_one(int lib, int level, const file *in, unsigned char *out, size_t cap,
                           struct libdeflate_compressor *ldc, unsigned char *isal_buf,
                           size_t isal_len)
{
    if (lib == ZLIB) {
        z_stream z;
        memset(&z, 0, sizeof z);
        if (deflateInit2(&z, level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK)
            return 0;
        z.next_in = in->data;
        z.avail_in = (uInt)in->len;
        z.next_out = out;
        z.avail_out = (uInt)cap;
        int r = deflate(&z, Z_FINISH);
        size_t n = z.total_out;
        deflateEnd(&z);
        return r == Z_STREAM_END ? n : 0;
    }
    if (lib == LIBDEFLATE)
        return libdeflate_deflate_compress(ldc, in->data, in->len, out, cap);
    struct isal_zstream s;
    isal_deflate_stateless_init(&s);
    s.level = (uint32_t)level;
    s.level_buf = isal_buf;
    s.level_buf_size = (uint32_t)isal_len;
    s.next_in = in->data;
    s.avail_in = (uint32_t)in->len;
    s.next_out = out;
    s.avail_out = (uint32_t)cap;
    s.end_of_stream = 1;
    s.flush = NO_FLUSH;
    s.gzip_flag = IGZIP_DEFLATE;
    if (isal_deflate_stateless(&s) != COMP_OK)
        return 0;
    return s.total_out;
}

static int inflate_one(int lib, const unsigned char *in, size_t inlen, unsigned char *out,
                       size_t outlen, struct libdeflate_decompressor *ldd)
{
    if (lib == ZLIB) {
        z_stream z;
        memset(&z, 0, sizeof z);
        if (inflateInit2(&z, -15) != Z_OK)
            return 0;
        z.next_in = (unsigned char *)in;
        z.avail_in = (uInt)inlen;
        z.next_out = out;
        z.avail_out = (uInt)outlen;
        int r = inflate(&z, Z_FINISH);
        int ok = r == Z_STREAM_END && z.total_out == outlen;
        inflateEnd(&z);
        return ok;
    }
    if (lib == LIBDEFLATE) {
        size_t got = 0;
        return libdeflate_deflate_decompress(ldd, in, inlen, out, outlen, &got) ==
                   LIBDEFLATE_SUCCESS &&
               got == outlen;
    }
    struct inflate_state st;
    isal_inflate_init(&st);
    st.next_in = (unsigned char *)in;
    st.avail_in = (uint32_t)inlen;
    st.next_out = out;
    st.avail_out = (uint32_t)outlen;
    st.crc_flag = ISAL_DEFLATE;
    return isal_inflate_stateless(&st) == ISAL_DECOMP_OK && st.total_out == outlen;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: sc-bench-deflate DIR [ROUNDS]\n");
        return 2;
    }
    int rounds = argc > 2 ? atoi(argv[2]) : 3;
    load(argv[1]);
    size_t maxlen = 1;
    for (size_t i = 0; i < nfiles; i++)
        if (files[i].len > maxlen)
            maxlen = files[i].len;
    size_t cap = maxlen + maxlen / 8 + 65536;
    unsigned char *out = malloc(cap), *back = malloc(maxlen);
    unsigned char **z6 = calloc(nfiles, sizeof *z6);
    size_t *z6len = calloc(nfiles, sizeof *z6len);
    size_t isal_len = ISAL_DEF_LVL3_LARGE;
    unsigned char *isal_buf = malloc(isal_len);
    if (out == NULL || back == NULL || z6 == NULL || z6len == NULL || isal_buf == NULL)
        return 1;
    printf("%zu files, %llu bytes\n", nfiles, (unsigned long long)total);
    printf("%-11s %5s %9s %10s %s\n", "compressor", "level", "ratio", "MB/s", "checks");
    struct { int lib, level; } runs[] = {{ZLIB, 1},       {ZLIB, 6},       {ZLIB, 9},
                                         {LIBDEFLATE, 1}, {LIBDEFLATE, 6}, {LIBDEFLATE, 9},
                                         {IGZIP, 0},      {IGZIP, 1},      {IGZIP, 2},
                                         {IGZIP, 3}};
    for (size_t r = 0; r < sizeof runs / sizeof runs[0]; r++) {
        int lib = runs[r].lib, level = runs[r].level;
        struct libdeflate_compressor *ldc =
            lib == LIBDEFLATE ? libdeflate_alloc_compressor(level) : NULL;
        uint64_t csize = 0, prev_sum = 0;
        double best = 1e30;
        int same = 1, ok = 1;
        for (int k = 0; k < rounds; k++) {
            uint64_t sum = 0;
            csize = 0;
            double t0 = now();
            for (size_t i = 0; i < nfiles; i++) {
                size_t n = compress_one(lib, level, &files[i], out, cap, ldc, isal_buf, isal_len);
                if (n == 0 && files[i].len > 0)
                    ok = 0;
                csize += n;
                sum = sum * 1000003u + crc32(0, out, (uInt)n);
                if (k == 0 && lib == ZLIB && level == 6) {
                    z6[i] = malloc(n ? n : 1);
                    memcpy(z6[i], out, n);
                    z6len[i] = n;
                }
                if (k == 0 && !inflate_one(ZLIB, out, n, back, files[i].len, NULL))
                    ok = 0;
                else if (k == 0 && files[i].len && memcmp(back, files[i].data, files[i].len))
                    ok = 0;
            }
            double t = now() - t0;
            if (t < best)
                best = t;
            if (k > 0 && sum != prev_sum)
                same = 0;
            prev_sum = sum;
        }
        printf("%-11s %5d %9.4f %10.1f %s%s\n", names[lib], level,
               total ? (double)csize / (double)total : 0.0, total / best / 1e6,
               ok ? "round-trips" : "FAILED", same ? ", same bytes every round" : ", DIFFERS");
        if (ldc != NULL)
            libdeflate_free_compressor(ldc);
    }
    printf("\n%-11s %10s  (zlib level 6 output, MB/s of inflated bytes)\n", "inflater", "MB/s");
    struct libdeflate_decompressor *ldd = libdeflate_alloc_decompressor();
    for (int lib = 0; lib < 3; lib++) {
        double best = 1e30;
        int ok = 1;
        for (int k = 0; k < rounds; k++) {
            double t0 = now();
            for (size_t i = 0; i < nfiles; i++)
                if (!inflate_one(lib, z6[i], z6len[i], back, files[i].len, ldd))
                    ok = 0;
            double t = now() - t0;
            if (t < best)
                best = t;
        }
        printf("%-11s %10.1f  %s\n", names[lib], total / best / 1e6, ok ? "ok" : "FAILED");
    }
    libdeflate_free_decompressor(ldd);
    return 0;
}
