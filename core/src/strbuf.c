/* SPDX-License-Identifier: Apache-2.0 */
/*
 * strbuf.c — the growable byte buffer (strbuf.h).
 */
#define _POSIX_C_SOURCE 200809L

#include "scrollcase/strbuf.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sc_strbuf_init(sc_strbuf *b)
{
    b->p = NULL;
    b->len = 0;
    b->cap = 0;
}

size_t sc_strbuf_grown_capacity(size_t cap, size_t need)
{
    size_t c = cap ? cap : 64;
    while (c < need) {
        if (c > SIZE_MAX / 2)
            return 0;
        c *= 2;
    }
    return c;
}

sc_code sc_strbuf_reserve(sc_strbuf *b, size_t extra)
{
    if (extra > SIZE_MAX - 1 - b->len)
        return SC_E_OUT_OF_MEMORY;
    size_t need = b->len + extra + 1;
    if (need <= b->cap)
        return SC_OK;
    size_t nc = sc_strbuf_grown_capacity(b->cap, need);
    if (nc == 0)
        return SC_E_OUT_OF_MEMORY;
    char *np = realloc(b->p, nc);
    if (np == NULL)
        return SC_E_OUT_OF_MEMORY;
    if (b->p == NULL)
        np[0] = '\0';
    b->p = np;
    b->cap = nc;
    return SC_OK;
}

sc_code sc_strbuf_add(sc_strbuf *b, const void *bytes, size_t n)
{
    if (sc_strbuf_reserve(b, n) != SC_OK)
        return SC_E_OUT_OF_MEMORY;
    if (n > 0)
        memcpy(b->p + b->len, bytes, n);
    b->len += n;
    b->p[b->len] = '\0';
    return SC_OK;
}

sc_code sc_strbuf_adds(sc_strbuf *b, const char *s)
{
    return sc_strbuf_add(b, s, strlen(s));
}

sc_code sc_strbuf_addc(sc_strbuf *b, char c)
{
    return sc_strbuf_add(b, &c, 1);
}

sc_code sc_strbuf_vprintf(sc_strbuf *b, const char *fmt, va_list ap)
{
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    if (n < 0)
        return SC_E_OUT_OF_MEMORY;
    if (sc_strbuf_reserve(b, (size_t)n) != SC_OK)
        return SC_E_OUT_OF_MEMORY;
    vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
    b->len += (size_t)n;
    return SC_OK;
}

sc_code sc_strbuf_printf(sc_strbuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sc_code rc = sc_strbuf_vprintf(b, fmt, ap);
    va_end(ap);
    return rc;
}

sc_code sc_strbuf_insert(sc_strbuf *b, size_t at, const void *bytes, size_t n)
{
    if (at > b->len)
        at = b->len;
    if (sc_strbuf_reserve(b, n) != SC_OK)
        return SC_E_OUT_OF_MEMORY;
    memmove(b->p + at + n, b->p + at, b->len - at + 1);
    if (n > 0)
        memcpy(b->p + at, bytes, n);
    b->len += n;
    return SC_OK;
}

void sc_strbuf_truncate(sc_strbuf *b, size_t len)
{
    if (b->p != NULL && len < b->len) {
        b->len = len;
        b->p[len] = '\0';
    }
}

char *sc_strbuf_detach(sc_strbuf *b, size_t *len_out)
{
    char *p = b->p;
    size_t len = b->len;
    if (p == NULL) {
        p = malloc(1);
        if (p != NULL)
            p[0] = '\0';
        len = 0;
    }
    sc_strbuf_init(b);
    if (len_out != NULL)
        *len_out = p ? len : 0;
    return p;
}

void sc_strbuf_free(sc_strbuf *b)
{
    free(b->p);
    sc_strbuf_init(b);
}
