/* SPDX-License-Identifier: Apache-2.0 */
/*
 * wheel.c — file names, tags and build strings (wheel.h).
 *
 * Guarantees: see the header.  Every function is a pure function of its
 * text; results that outlive the call are malloc'd and the caller's.
 */
#define _POSIX_C_SOURCE 200809L

#include "scrollcase/wheel.h"

#include <stdlib.h>
#include <string.h>

static int is_digit(char c) { return c >= '0' && c <= '9'; }
static int is_lower(char c) { return c >= 'a' && c <= 'z'; }

static int hexv(char c)
{
    if (is_digit(c))
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

char *sc_location_filename(const char *location)
{
    size_t end = strcspn(location, "?#");
    size_t start = end;
    while (start > 0 && location[start - 1] != '/' && location[start - 1] != '\\')
        start--;
    char *out = malloc(end - start + 1);
    if (out == NULL)
        return NULL;
    size_t n = 0;
    for (size_t i = start; i < end; i++) {
        if (location[i] == '%' && i + 2 < end && hexv(location[i + 1]) >= 0 &&
            hexv(location[i + 2]) >= 0) {
            int v = hexv(location[i + 1]) * 16 + hexv(location[i + 2]);
            out[n++] = v == 0 ? '?' : (char)v;
            i += 2;
        } else {
            out[n++] = location[i];
        }
    }
    out[n] = '\0';
    return out;
}

void sc_wheel_free(sc_wheel *w)
{
    if (w == NULL)
        return;
    free(w->buf_);
    memset(w, 0, sizeof *w);
}

int sc_wheel_parse(const char *location, sc_wheel *w)
{
    memset(w, 0, sizeof *w);
    char *f = sc_location_filename(location);
    if (f == NULL)
        return -2;
    size_t n = strlen(f);
    if (n < 4 || strcmp(f + n - 4, ".whl") != 0) {
        free(f);
        return 0;
    }
    f[n - 4] = '\0';
    char *part[6];
    int np = 0;
    char *s = f;
    for (;;) {
        char *dash = strchr(s, '-');
        if (np == 6) {
            free(f);
            return -1;
        }
        part[np++] = s;
        if (dash == NULL)
            break;
        *dash = '\0';
        s = dash + 1;
    }
    if (np != 5 && np != 6) {
        free(f);
        return -1;
    }
    for (int i = 0; i < np; i++)
        if (part[i][0] == '\0') {
            free(f);
            return -1;
        }
    w->buf_ = f;
    w->name = part[0];
    w->version = part[1];
    w->build = np == 6 ? part[2] : NULL;
    w->python = part[np - 3];
    w->abi = part[np - 2];
    w->platform = part[np - 1];
    char *plus = strchr(part[1], '+');
    w->local = plus ? plus + 1 : NULL;
    if (w->build != NULL && !is_digit(w->build[0])) {
        sc_wheel_free(w);
        return -1;
    }
    return 1;
}

/* Digits at s: value of the whole run in *run (capped), count returned. */
static size_t digits(const char *s, long *run)
{
    size_t n = 0;
    long v = 0;
    while (is_digit(s[n])) {
        if (v < 100000)
            v = v * 10 + (s[n] - '0');
        n++;
    }
    *run = v;
    return n;
}

static void cuda_from_digits(const char *s, size_t nd, int *major, int *minor)
{
    long v = 0;
    for (size_t i = 0; i < nd && i < 6; i++)
        v = v * 10 + (s[i] - '0');
    if (nd >= 3 && nd <= 6) {
        *major = (int)(v / 10);
        *minor = (int)(v % 10);
    } else if (nd <= 2) {
        *major = (int)v;
        *minor = -1;
    }
}

void sc_build_facts_scan(const char *s, sc_build_facts *f)
{
    f->cpu = 0;
    f->cuda_major = f->cuda_minor = -1;
    f->torch_major = f->torch_minor = -1;
    f->cxx11abi = -1;
    if (s == NULL)
        return;
    for (size_t i = 0; s[i] != '\0'; i++) {
        if (i > 0 && is_lower(s[i - 1]))
            continue;
        const char *p = s + i;
        long run;
        if (strncmp(p, "cpu", 3) == 0 && !is_lower(p[3])) {
            f->cpu = 1;
        } else if (strncmp(p, "cuda", 4) == 0 && is_digit(p[4])) {
            size_t nd = digits(p + 4, &run);
            if (p[4 + nd] == '.' && is_digit(p[5 + nd])) {
                long minor;
                size_t nm = digits(p + 5 + nd, &minor);
                if (nd <= 4 && nm <= 4) {
                    f->cuda_major = (int)run;
                    f->cuda_minor = (int)minor;
                }
            } else {
                cuda_from_digits(p + 4, nd, &f->cuda_major, &f->cuda_minor);
            }
        } else if (strncmp(p, "cu", 2) == 0 && is_digit(p[2])) {
            size_t nd = digits(p + 2, &run);
            cuda_from_digits(p + 2, nd, &f->cuda_major, &f->cuda_minor);
        } else if (strncmp(p, "torch", 5) == 0 && is_digit(p[5])) {
            long major, minor;
            size_t nd = digits(p + 5, &major);
            if (p[5 + nd] == '.' && is_digit(p[6 + nd])) {
                size_t nm = digits(p + 6 + nd, &minor);
                if (nd <= 4 && nm <= 4) {
                    f->torch_major = (int)major;
                    f->torch_minor = (int)minor;
                }
            }
        } else if (strncmp(p, "cxx11abi", 8) == 0) {
            if (strncmp(p + 8, "TRUE", 4) == 0)
                f->cxx11abi = 1;
            else if (strncmp(p + 8, "FALSE", 5) == 0)
                f->cxx11abi = 0;
        }
    }
}

int sc_conda_filename_split(const char *filename, char **name, char **version,
                            char **build)
{
    *name = *version = *build = NULL;
    size_t n = strlen(filename);
    size_t stem;
    if (n > 6 && strcmp(filename + n - 6, ".conda") == 0)
        stem = n - 6;
    else if (n > 8 && strcmp(filename + n - 8, ".tar.bz2") == 0)
        stem = n - 8;
    else
        return 0;
    size_t d2 = stem, d1;
    while (d2 > 0 && filename[d2 - 1] != '-')
        d2--;
    if (d2 == 0)
        return 0;
    d2--; /* index of the last '-' */
    d1 = d2;
    while (d1 > 0 && filename[d1 - 1] != '-')
        d1--;
    if (d1 == 0)
        return 0;
    d1--;
    if (d1 == 0 || d2 == d1 + 1 || stem == d2 + 1)
        return 0;
    *name = strndup(filename, d1);
    *version = strndup(filename + d1 + 1, d2 - d1 - 1);
    *build = strndup(filename + d2 + 1, stem - d2 - 1);
    if (*name == NULL || *version == NULL || *build == NULL) {
        free(*name);
        free(*version);
        free(*build);
        *name = *version = *build = NULL;
        return -2;
    }
    return 1;
}

char *sc_pypi_normalize(const char *name)
{
    size_t n = strlen(name);
    char *out = malloc(n + 1);
    if (out == NULL)
        return NULL;
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        char c = name[i];
        if (c == '-' || c == '_' || c == '.') {
            if (o == 0 || out[o - 1] != '-')
                out[o++] = '-';
            continue;
        }
        out[o++] = (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c;
    }
    out[o] = '\0';
    return out;
}

int sc_version_major_minor(const char *v, int *major, int *minor)
{
    long a, b;
    *major = *minor = -1;
    if (v == NULL)
        return 0;
    size_t na = digits(v, &a);
    if (na == 0 || na > 6)
        return 0;
    *major = (int)a;
    if (v[na] != '.' || !is_digit(v[na + 1]))
        return 1;
    size_t nb = digits(v + na + 1, &b);
    if (nb > 6)
        return 1;
    *minor = (int)b;
    return 2;
}

/* Call fn for each '.'-separated tag of a compressed tag set. */
static int any_tag(const char *set, int (*fn)(const char *tag, size_t n, const void *ctx),
                   const void *ctx)
{
    const char *s = set;
    for (;;) {
        size_t n = strcspn(s, ".");
        if (n > 0 && fn(s, n, ctx))
            return 1;
        if (s[n] == '\0')
            return 0;
        s += n + 1;
    }
}

typedef struct pyctx {
    int major, minor;
    int abi3;
} pyctx;

/* "cpXY" / "pyX" / "pyXY": *maj, *min (-1 when the tag names a major only). */
static int py_tag_version(const char *t, size_t n, int *maj, int *min)
{
    if (n < 3 || !is_digit(t[2]))
        return 0;
    for (size_t i = 2; i < n; i++)
        if (!is_digit(t[i]))
            return 0;
    *maj = t[2] - '0';
    *min = -1;
    if (n > 3) {
        int v = 0;
        for (size_t i = 3; i < n && i < 7; i++)
            v = v * 10 + (t[i] - '0');
        *min = v;
    }
    return 1;
}

static int python_tag_fits(const char *t, size_t n, const void *vctx)
{
    const pyctx *c = vctx;
    int maj, min;
    if (n >= 2 && strncmp(t, "py", 2) == 0) {
        if (!py_tag_version(t, n, &maj, &min))
            return 0;
        return maj == c->major && (min < 0 || min <= c->minor);
    }
    if (n >= 2 && strncmp(t, "cp", 2) == 0) {
        if (!py_tag_version(t, n, &maj, &min) || maj != c->major || min < 0)
            return 0;
        return min == c->minor || (c->abi3 && min <= c->minor);
    }
    return 0;
}

static int is_abi3(const char *t, size_t n, const void *ctx)
{
    (void)ctx;
    return n == 4 && strncmp(t, "abi3", 4) == 0;
}

int sc_wheel_python_ok(const sc_wheel *w, int py_major, int py_minor)
{
    pyctx c = {py_major, py_minor, any_tag(w->abi, is_abi3, NULL)};
    return any_tag(w->python, python_tag_fits, &c);
}

static int ends_with(const char *t, size_t n, const char *suffix)
{
    size_t k = strlen(suffix);
    return n >= k && strncmp(t + n - k, suffix, k) == 0;
}

static int starts_with(const char *t, size_t n, const char *prefix)
{
    size_t k = strlen(prefix);
    return n >= k && strncmp(t, prefix, k) == 0;
}

static int platform_fits(const char *t, size_t n, const void *vctx)
{
    const char *subdir = vctx;
    if (n == 3 && strncmp(t, "any", 3) == 0)
        return 1;
    if (strcmp(subdir, "linux-64") == 0)
        return ends_with(t, n, "_x86_64") &&
               (starts_with(t, n, "manylinux") || starts_with(t, n, "linux_"));
    if (strcmp(subdir, "win-64") == 0)
        return n == 9 && strncmp(t, "win_amd64", 9) == 0;
    if (strcmp(subdir, "osx-arm64") == 0)
        return starts_with(t, n, "macosx_") &&
               (ends_with(t, n, "_arm64") || ends_with(t, n, "_universal2"));
    return 0;
}

int sc_wheel_platform_ok(const sc_wheel *w, const char *subdir)
{
    return any_tag(w->platform, platform_fits, subdir);
}

static int abi_of_tag(const char *t, size_t n)
{
    if (starts_with(t, n, "manylinux1_") || starts_with(t, n, "manylinux2010_") ||
        starts_with(t, n, "manylinux2014_"))
        return 0;
    if (starts_with(t, n, "manylinux_")) {
        int maj = 0, min = 0;
        size_t i = 10;
        while (i < n && is_digit(t[i]) && maj < 1000)
            maj = maj * 10 + (t[i++] - '0');
        if (i >= n || t[i] != '_')
            return -1;
        i++;
        while (i < n && is_digit(t[i]) && min < 1000)
            min = min * 10 + (t[i++] - '0');
        if (maj != 2)
            return maj > 2 ? 1 : -1;
        if (min >= 28)
            return 1;
        if (min <= 17)
            return 0;
        return -1;
    }
    return -1;
}

int sc_wheel_manylinux_cxx11abi(const sc_wheel *w)
{
    const char *s = w->platform;
    int found = -1;
    for (;;) {
        size_t n = strcspn(s, ".");
        int a = abi_of_tag(s, n);
        if (a == 1)
            return 1; /* a tag that needs the new ABI decides */
        if (a == 0)
            found = 0;
        if (s[n] == '\0')
            return found;
        s += n + 1;
    }
}
