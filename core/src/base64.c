/* SPDX-License-Identifier: Apache-2.0 */
/*
 * base64.c — strict RFC 4648 base64.
 *
 * Guarantees: see base64.h.  The decoder rejects, rather than skips, every
 * character outside the alphabet; it never reads past len and never writes
 * past cap.
 */
#include "scrollcase/base64.h"

#include <stdlib.h>

static const char alphabet[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

size_t sc_base64_encoded_len(size_t n)
{
    return (n / 3 + (n % 3 != 0)) * 4;
}

sc_code sc_base64_encode(const void *data, size_t len, char **out,
                         size_t *out_len, sc_error *err)
{
    if (out == NULL || (data == NULL && len > 0))
        return sc_error_set(err, SC_E_USAGE, NULL, "sc_base64_encode: no data or no output");
    *out = NULL;
    if (len > ((size_t)-1 - 1) / 4 * 3 - 3)
        return sc_error_set(err, SC_E_OUT_OF_MEMORY, NULL, "input too large for base64");
    size_t n = sc_base64_encoded_len(len);
    char *s = malloc(n + 1);
    if (s == NULL)
        return sc_error_set(err, SC_E_OUT_OF_MEMORY, NULL, "out of memory encoding base64");
    const unsigned char *p = data;
    size_t o = 0, i = 0;
    for (; i + 3 <= len; i += 3) {
        unsigned long v = ((unsigned long)p[i] << 16) | ((unsigned long)p[i + 1] << 8) | p[i + 2];
        s[o++] = alphabet[(v >> 18) & 63];
        s[o++] = alphabet[(v >> 12) & 63];
        s[o++] = alphabet[(v >> 6) & 63];
        s[o++] = alphabet[v & 63];
    }
    if (len - i == 1) {
        unsigned long v = (unsigned long)p[i] << 16;
        s[o++] = alphabet[(v >> 18) & 63];
        s[o++] = alphabet[(v >> 12) & 63];
        s[o++] = '=';
        s[o++] = '=';
    } else if (len - i == 2) {
        unsigned long v = ((unsigned long)p[i] << 16) | ((unsigned long)p[i + 1] << 8);
        s[o++] = alphabet[(v >> 18) & 63];
        s[o++] = alphabet[(v >> 12) & 63];
        s[o++] = alphabet[(v >> 6) & 63];
        s[o++] = '=';
    }
    s[o] = '\0';
    *out = s;
    if (out_len != NULL)
        *out_len = o;
    return SC_OK;
}

/* The 6-bit value of an alphabet character, or -1. */
static int value_of(char c)
{
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 26;
    if (c >= '0' && c <= '9')
        return c - '0' + 52;
    if (c == '+')
        return 62;
    if (c == '/')
        return 63;
    return -1;
}

size_t sc_base64_decoded_len(const char *text, size_t len)
{
    if (text == NULL && len > 0)
        return SC_BASE64_INVALID;
    if (len % 4 != 0)
        return SC_BASE64_INVALID;
    if (len == 0)
        return 0;
    size_t pad = 0;
    if (text[len - 1] == '=')
        pad = text[len - 2] == '=' ? 2 : 1;
    return len / 4 * 3 - pad;
}

int sc_base64_decode(const char *text, size_t len, unsigned char *out,
                     size_t cap, size_t *out_len)
{
    size_t n = sc_base64_decoded_len(text, len);
    if (n == SC_BASE64_INVALID || n > cap || (out == NULL && n > 0))
        return 0;
    size_t pad = len / 4 * 3 - n;
    size_t o = 0;
    for (size_t i = 0; i < len; i += 4) {
        int last = i + 4 == len;
        int v[4];
        for (int k = 0; k < 4; k++) {
            /* '=' only where the padding count says so */
            if (last && k >= 4 - (int)pad) {
                v[k] = 0;
                continue;
            }
            v[k] = value_of(text[i + (size_t)k]);
            if (v[k] < 0)
                return 0;
        }
        unsigned long w = ((unsigned long)v[0] << 18) | ((unsigned long)v[1] << 12) |
                          ((unsigned long)v[2] << 6) | (unsigned long)v[3];
        if (last && pad == 2 && (w & 0xFFFF) != 0)
            return 0; /* non-zero unused bits: not canonical */
        if (last && pad == 1 && (w & 0xFF) != 0)
            return 0;
        out[o++] = (unsigned char)(w >> 16);
        if (!(last && pad == 2))
            out[o++] = (unsigned char)(w >> 8);
        if (!(last && pad >= 1))
            out[o++] = (unsigned char)w;
    }
    if (out_len != NULL)
        *out_len = o;
    return 1;
}
