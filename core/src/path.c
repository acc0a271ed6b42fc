/* SPDX-License-Identifier: Apache-2.0 */
/*
 * path.c — payload-path rules and the small text checks beside them.
 *
 * Guarantees: sc_path_check accepts a path only if it is non-empty UTF-8
 * without NUL or backslash, not absolute, without a drive prefix and without
 * empty, "." or ".." segments; every refusal is SC_E_UNSAFE_PATH naming the
 * rule, the path (escaped) and, when given, the field.
 */
#include "scrollcase/path.h"

#include <stdio.h>
#include <string.h>

#include "utf8_internal.h"

int sc_utf8_valid(const char *s, size_t len)
{
    if (s == NULL)
        return len == 0;
    const unsigned char *u = (const unsigned char *)s;
    size_t i = 0;
    while (i < len) {
        if (u[i] < 0x80) {
            i++;
            continue;
        }
        size_t n = sc_utf8_sequence_length(u + i, len - i);
        if (n == 0)
            return 0;
        i += n;
    }
    return 1;
}

/*
 * A printable, one-line, bounded rendering of an untrusted path for a
 * message: printable ASCII as is, '"' and '\' escaped, anything else as
 * \xNN; cut with "..." past about 120 bytes.
 */
void sc_path_quote(const char *p, size_t len, char *buf, size_t size)
{
    size_t o = 0;
    const size_t limit = 120;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)p[i];
        char piece[8];
        if (c == '"' || c == '\\')
            snprintf(piece, sizeof piece, "\\%c", c);
        else if (c >= 0x20 && c < 0x7f)
            snprintf(piece, sizeof piece, "%c", c);
        else
            snprintf(piece, sizeof piece, "\\x%02x", c);
        size_t pl = strlen(piece);
        if (o + pl + 4 >= size || i >= limit) {
            if (o + 4 < size) {
                memcpy(buf + o, "...", 3);
                o += 3;
            }
            break;
        }
        memcpy(buf + o, piece, pl);
        o += pl;
    }
    buf[o] = '\0';
}

static sc_code unsafe(sc_error *err, const char *p, size_t len,
                      const char *field, const char *why)
{
    char shown[512];
    sc_path_quote(p, len, shown, sizeof shown);
    if (field != NULL && field[0] != '\0')
        return sc_error_set(err, SC_E_UNSAFE_PATH, field,
                            "unsafe-path: %s: \"%s\" %s", field, shown, why);
    return sc_error_set(err, SC_E_UNSAFE_PATH, NULL, "unsafe-path: \"%s\" %s",
                        shown, why);
}

static int is_ascii_letter(char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
}

sc_code sc_path_check(const char *p, size_t len, const char *field,
                      sc_error *err)
{
    if (p == NULL || len == 0)
        return unsafe(err, "", 0, field, "is empty");
    if (memchr(p, '\0', len) != NULL)
        return unsafe(err, p, len, field, "contains a NUL byte");
    if (!sc_utf8_valid(p, len))
        return unsafe(err, p, len, field, "is not valid UTF-8");
    if (memchr(p, '\\', len) != NULL)
        return unsafe(err, p, len, field, "contains a backslash");
    if (p[0] == '/')
        return unsafe(err, p, len, field, "is absolute (starts with '/')");
    if (len >= 2 && is_ascii_letter(p[0]) && p[1] == ':')
        return unsafe(err, p, len, field, "starts with a drive prefix");
    size_t start = 0;
    for (size_t i = 0; i <= len; i++) {
        if (i < len && p[i] != '/')
            continue;
        size_t n = i - start;
        if (n == 0)
            return unsafe(err, p, len, field, "has an empty segment");
        if (n == 1 && p[start] == '.')
            return unsafe(err, p, len, field, "has a \".\" segment");
        if (n == 2 && p[start] == '.' && p[start + 1] == '.')
            return unsafe(err, p, len, field, "has a \"..\" segment");
        start = i + 1;
    }
    sc_error_clear(err);
    return SC_OK;
}

static unsigned char fold(unsigned char c)
{
    return (c >= 'A' && c <= 'Z') ? (unsigned char)(c - 'A' + 'a') : c;
}

int sc_ascii_casecmp(const char *a, const char *b)
{
    const unsigned char *x = (const unsigned char *)a;
    const unsigned char *y = (const unsigned char *)b;
    for (;; x++, y++) {
        unsigned char cx = fold(*x), cy = fold(*y);
        if (cx != cy)
            return cx < cy ? -1 : 1;
        if (cx == '\0')
            return 0;
    }
}

static int ident_start(char c)
{
    return is_ascii_letter(c) || c == '_';
}

static int ident_char(char c)
{
    return ident_start(c) || (c >= '0' && c <= '9');
}

int sc_is_dotted_name(const char *s)
{
    if (s == NULL)
        return 0;
    /* One or more identifiers, each followed by '.' or the end. */
    for (;;) {
        if (!ident_start(*s))
            return 0;
        s++;
        while (ident_char(*s))
            s++;
        if (*s == '\0')
            return 1;
        if (*s != '.')
            return 0;
        s++;
    }
}

static int slug_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

int sc_is_slug(const char *s)
{
    if (s == NULL)
        return 0;
    /* Runs of [a-z0-9]+ separated by single '-' or '.'. */
    for (;;) {
        if (!slug_char(*s))
            return 0;
        while (slug_char(*s))
            s++;
        if (*s == '\0')
            return 1;
        if (*s != '-' && *s != '.')
            return 0;
        s++;
    }
}
