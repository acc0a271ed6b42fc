/* SPDX-License-Identifier: Apache-2.0 */
/*
 * toml_subset.c — the strict TOML-subset reader (toml_subset.h).
 *
 * Guarantees: see the header.  One pass over the bytes; every error names
 * the line and column (1-based, columns in bytes) where reading stopped.
 */
#define _POSIX_C_SOURCE 200809L

#include "scrollcase/toml_subset.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scrollcase/strbuf.h"
#include "utf8_internal.h"

typedef struct tp {
    const char *s;
    size_t len;
    size_t pos;
    const char *name;
    sc_error *err;
    sc_code code; /* first failure */
    /* Tables opened by a header, and inline tables (closed once read). */
    const sc_json **headers;
    size_t nheaders, capheaders;
    const sc_json **inlines;
    size_t ninlines, capinlines;
} tp;

static sc_code fail(tp *p, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static sc_code fail(tp *p, const char *fmt, ...)
{
    if (p->code != SC_OK)
        return p->code;
    size_t line = 1, col = 1;
    for (size_t i = 0; i < p->pos && i < p->len; i++) {
        if (p->s[i] == '\n') {
            line++;
            col = 1;
        } else {
            col++;
        }
    }
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    p->code = sc_error_set(p->err, SC_E_INVALID_PIXI_TOML, p->name,
                           "%s:%zu:%zu: %s", p->name, line, col, msg);
    return p->code;
}

static sc_code oom(tp *p)
{
    if (p->code == SC_OK)
        p->code = sc_error_set(p->err, SC_E_OUT_OF_MEMORY, p->name,
                               "out of memory reading %s", p->name);
    return p->code;
}

static int at_end(const tp *p) { return p->pos >= p->len; }
static char peek(const tp *p) { return at_end(p) ? '\0' : p->s[p->pos]; }

static int remember(const sc_json ***list, size_t *n, size_t *cap,
                    const sc_json *v)
{
    if (*n == *cap) {
        size_t nc = *cap ? *cap * 2 : 16;
        const sc_json **nl = realloc((void *)*list, nc * sizeof *nl);
        if (nl == NULL)
            return -1;
        *list = nl;
        *cap = nc;
    }
    (*list)[(*n)++] = v;
    return 0;
}

static int listed(const sc_json *const *list, size_t n, const sc_json *v)
{
    for (size_t i = 0; i < n; i++)
        if (list[i] == v)
            return 1;
    return 0;
}

/* Spaces and tabs. */
static void skip_ws(tp *p)
{
    while (!at_end(p) && (peek(p) == ' ' || peek(p) == '\t'))
        p->pos++;
}

/* A comment runs to the end of the line; control characters other than tab
 * are not allowed in it. */
static sc_code skip_comment(tp *p)
{
    if (peek(p) != '#')
        return SC_OK;
    while (!at_end(p) && peek(p) != '\n') {
        unsigned char c = (unsigned char)peek(p);
        if (c == '\r' && p->pos + 1 < p->len && p->s[p->pos + 1] == '\n')
            break;
        if ((c < 0x20 && c != '\t') || c == 0x7f)
            return fail(p, "control character in a comment");
        p->pos++;
    }
    return SC_OK;
}

/* At a line end (LF or CRLF) or the end of input: consume it, 1; else 0. */
static int eat_newline(tp *p)
{
    if (at_end(p))
        return 1;
    if (peek(p) == '\n') {
        p->pos++;
        return 1;
    }
    if (peek(p) == '\r' && p->pos + 1 < p->len && p->s[p->pos + 1] == '\n') {
        p->pos += 2;
        return 1;
    }
    return 0;
}

/* Whitespace, comments and newlines (inside arrays). */
static sc_code skip_ws_nl(tp *p)
{
    for (;;) {
        skip_ws(p);
        if (skip_comment(p) != SC_OK)
            return p->code;
        if (at_end(p) || !eat_newline(p))
            return SC_OK;
    }
}

/* ---- strings ------------------------------------------------------------ */

typedef sc_strbuf buf;

static int buf_add(buf *b, const char *s, size_t n)
{
    return sc_strbuf_add(b, s, n) == SC_OK ? 0 : -1;
}

static int buf_add_cp(buf *b, uint32_t cp)
{
    char u[4];
    size_t n;
    if (cp < 0x80) {
        u[0] = (char)cp;
        n = 1;
    } else if (cp < 0x800) {
        u[0] = (char)(0xC0 | (cp >> 6));
        u[1] = (char)(0x80 | (cp & 0x3F));
        n = 2;
    } else if (cp < 0x10000) {
        u[0] = (char)(0xE0 | (cp >> 12));
        u[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        u[2] = (char)(0x80 | (cp & 0x3F));
        n = 3;
    } else {
        u[0] = (char)(0xF0 | (cp >> 18));
        u[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
        u[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
        u[3] = (char)(0x80 | (cp & 0x3F));
        n = 4;
    }
    return buf_add(b, u, n);
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* A basic ("...") or literal ('...') one-line string at p->pos; *out
 * malloc'd, *outlen its length (no NUL inside: TOML cannot express one
 * except by \u0000, which is refused). */
static sc_code read_string(tp *p, char **out, size_t *outlen)
{
    char q = peek(p);
    if (p->pos + 2 < p->len && p->s[p->pos + 1] == q && p->s[p->pos + 2] == q)
        return fail(p, "multi-line strings are not part of the subset");
    p->pos++;
    buf b = SC_STRBUF_INIT;
    if (buf_add(&b, "", 0) != 0)
        return oom(p);
    for (;;) {
        if (at_end(p) || peek(p) == '\n' || peek(p) == '\r') {
            sc_strbuf_free(&b);
            return fail(p, "unterminated string");
        }
        unsigned char c = (unsigned char)peek(p);
        if (c == (unsigned char)q) {
            p->pos++;
            break;
        }
        if ((c < 0x20 && c != '\t') || c == 0x7f) {
            sc_strbuf_free(&b);
            return fail(p, "control character in a string");
        }
        if (q == '"' && c == '\\') {
            p->pos++;
            char e = peek(p);
            const char *rep = NULL;
            switch (e) {
            case 'b': rep = "\b"; break;
            case 't': rep = "\t"; break;
            case 'n': rep = "\n"; break;
            case 'f': rep = "\f"; break;
            case 'r': rep = "\r"; break;
            case '"': rep = "\""; break;
            case '\\': rep = "\\"; break;
            case 'u':
            case 'U': {
                int nd = e == 'u' ? 4 : 8;
                uint32_t cp = 0;
                p->pos++;
                for (int i = 0; i < nd; i++) {
                    int h = hexval(peek(p));
                    if (at_end(p) || h < 0) {
                        sc_strbuf_free(&b);
                        return fail(p, "bad \\%c escape", e);
                    }
                    cp = cp * 16 + (uint32_t)h;
                    p->pos++;
                }
                if (cp == 0 || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
                    sc_strbuf_free(&b);
                    return fail(p, "escape names no allowed Unicode scalar value");
                }
                if (buf_add_cp(&b, cp) != 0) {
                    sc_strbuf_free(&b);
                    return oom(p);
                }
                continue;
            }
            default:
                sc_strbuf_free(&b);
                return fail(p, "unknown escape in a string");
            }
            if (buf_add(&b, rep, 1) != 0) {
                sc_strbuf_free(&b);
                return oom(p);
            }
            p->pos++;
            continue;
        }
        size_t n = sc_utf8_sequence_length((const unsigned char *)p->s + p->pos,
                                           p->len - p->pos);
        if (n == 0) {
            sc_strbuf_free(&b);
            return fail(p, "string is not UTF-8");
        }
        if (buf_add(&b, p->s + p->pos, n) != 0) {
            sc_strbuf_free(&b);
            return oom(p);
        }
        p->pos += n;
    }
    *out = sc_strbuf_detach(&b, outlen);
    if (*out == NULL)
        return oom(p);
    return SC_OK;
}

/* ---- keys --------------------------------------------------------------- */

#define MAX_KEY_PARTS 32

typedef struct keypath {
    char *part[MAX_KEY_PARTS];
    size_t n;
} keypath;

static void keypath_free(keypath *k)
{
    for (size_t i = 0; i < k->n; i++)
        free(k->part[i]);
    k->n = 0;
}

static int bare_char(char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
           (c >= '0' && c <= '9') || c == '_' || c == '-';
}

static sc_code read_key(tp *p, keypath *k)
{
    k->n = 0;
    for (;;) {
        skip_ws(p);
        if (k->n == MAX_KEY_PARTS)
            return fail(p, "key has more than %d parts", MAX_KEY_PARTS);
        char c = peek(p);
        char *part = NULL;
        size_t plen = 0;
        if (c == '"' || c == '\'') {
            if (read_string(p, &part, &plen) != SC_OK)
                return p->code;
        } else if (bare_char(c)) {
            size_t start = p->pos;
            while (!at_end(p) && bare_char(peek(p)))
                p->pos++;
            plen = p->pos - start;
            part = malloc(plen + 1);
            if (part == NULL)
                return oom(p);
            memcpy(part, p->s + start, plen);
            part[plen] = '\0';
        } else {
            return fail(p, "expected a key");
        }
        k->part[k->n++] = part;
        skip_ws(p);
        if (peek(p) != '.')
            return SC_OK;
        p->pos++;
    }
}

/* The object at key `key` of `obj`, created when absent.  A member that is
 * not a table, or an inline table, cannot be extended. */
static sc_code descend(tp *p, sc_json *obj, const char *key, sc_json **next)
{
    sc_json *v = sc_json_get(obj, key);
    if (v == NULL) {
        sc_json *o = sc_json_new_object();
        if (o == NULL || sc_json_object_append(obj, key, o) != 0)
            return oom(p);
        *next = o;
        return SC_OK;
    }
    if (v->type != SC_JSON_OBJECT || listed(p->inlines, p->ninlines, v))
        return fail(p, "key \"%s\" is already defined as a value", key);
    *next = v;
    return SC_OK;
}

/* ---- values ------------------------------------------------------------- */

static sc_code read_value(tp *p, sc_json **out, int depth);

static sc_code read_integer(tp *p, sc_json **out)
{
    int neg = 0;
    if (peek(p) == '+' || peek(p) == '-') {
        neg = peek(p) == '-';
        p->pos++;
    }
    if (!(peek(p) >= '0' && peek(p) <= '9'))
        return fail(p, "expected a value");
    if (peek(p) == '0' && p->pos + 1 < p->len &&
        (bare_char(p->s[p->pos + 1]) || p->s[p->pos + 1] == '.'))
        return fail(p, "leading zeros, floats, dates and non-decimal integers are not part of the subset");
    uint64_t v = 0;
    int last_digit = 0;
    while (!at_end(p)) {
        char c = peek(p);
        if (c >= '0' && c <= '9') {
            v = v * 10 + (uint64_t)(c - '0');
            if (v > 9007199254740991ULL)
                return fail(p, "integer beyond 2^53-1");
            last_digit = 1;
            p->pos++;
        } else if (c == '_' && last_digit && p->pos + 1 < p->len &&
                   p->s[p->pos + 1] >= '0' && p->s[p->pos + 1] <= '9') {
            last_digit = 0;
            p->pos++;
        } else {
            break;
        }
    }
    char c = peek(p);
    if (c == '.' || c == 'e' || c == 'E' || c == ':' || c == '-' || bare_char(c))
        return fail(p, "floats, dates and other values are not part of the subset");
    *out = sc_json_new_number(neg ? -(double)v : (double)v);
    return *out ? SC_OK : oom(p);
}

static sc_code read_array(tp *p, sc_json **out, int depth)
{
    p->pos++; /* [ */
    sc_json *a = sc_json_new_array();
    if (a == NULL)
        return oom(p);
    for (;;) {
        if (skip_ws_nl(p) != SC_OK)
            goto bad;
        if (peek(p) == ']') {
            p->pos++;
            *out = a;
            return SC_OK;
        }
        sc_json *v = NULL;
        if (read_value(p, &v, depth + 1) != SC_OK)
            goto bad;
        if (sc_json_array_append(a, v) != 0) {
            oom(p);
            goto bad;
        }
        if (skip_ws_nl(p) != SC_OK)
            goto bad;
        if (peek(p) == ',') {
            p->pos++;
            continue;
        }
        if (peek(p) == ']')
            continue;
        fail(p, "expected , or ] in an array");
        goto bad;
    }
bad:
    sc_json_free(a);
    return p->code;
}

static sc_code assign(tp *p, sc_json *table, keypath *k, sc_json *v);

static sc_code read_inline_table(tp *p, sc_json **out, int depth)
{
    p->pos++; /* { */
    sc_json *o = sc_json_new_object();
    if (o == NULL)
        return oom(p);
    skip_ws(p);
    if (peek(p) == '}') {
        p->pos++;
        goto done;
    }
    for (;;) {
        keypath k;
        if (read_key(p, &k) != SC_OK) {
            keypath_free(&k);
            goto bad;
        }
        if (peek(p) != '=') {
            keypath_free(&k);
            fail(p, "expected = after a key");
            goto bad;
        }
        p->pos++;
        skip_ws(p);
        sc_json *v = NULL;
        if (read_value(p, &v, depth + (int)k.n) != SC_OK) {
            keypath_free(&k);
            goto bad;
        }
        sc_code c = assign(p, o, &k, v);
        keypath_free(&k);
        if (c != SC_OK)
            goto bad;
        skip_ws(p);
        if (peek(p) == ',') {
            p->pos++;
            skip_ws(p);
            continue;
        }
        if (peek(p) == '}') {
            p->pos++;
            goto done;
        }
        fail(p, "expected , or } in an inline table (inline tables are one line)");
        goto bad;
    }
done:
    if (remember(&p->inlines, &p->ninlines, &p->capinlines, o) != 0) {
        sc_json_free(o);
        return oom(p);
    }
    *out = o;
    return SC_OK;
bad:
    sc_json_free(o);
    return p->code;
}

static int word_at(const tp *p, const char *w)
{
    size_t n = strlen(w);
    return p->len - p->pos >= n && memcmp(p->s + p->pos, w, n) == 0 &&
           (p->pos + n == p->len || !bare_char(p->s[p->pos + n]));
}

static sc_code read_value(tp *p, sc_json **out, int depth)
{
    if (depth > SC_TOML_MAX_DEPTH)
        return fail(p, "nested deeper than %d tables and arrays", SC_TOML_MAX_DEPTH);
    char c = peek(p);
    if (c == '"' || c == '\'') {
        char *s = NULL;
        size_t n = 0;
        if (read_string(p, &s, &n) != SC_OK)
            return p->code;
        *out = sc_json_new_string_len(s, n);
        free(s);
        return *out ? SC_OK : oom(p);
    }
    if (c == '[')
        return read_array(p, out, depth);
    if (c == '{')
        return read_inline_table(p, out, depth);
    if (word_at(p, "true") || word_at(p, "false")) {
        int t = c == 't';
        p->pos += t ? 4 : 5;
        *out = sc_json_new_bool(t);
        return *out ? SC_OK : oom(p);
    }
    if (c == '+' || c == '-' || (c >= '0' && c <= '9'))
        return read_integer(p, out);
    return fail(p, "expected a value (string, integer, boolean, array or inline table)");
}

/* table[k...] = v; takes v. */
static sc_code assign(tp *p, sc_json *table, keypath *k, sc_json *v)
{
    sc_json *t = table;
    for (size_t i = 0; i + 1 < k->n; i++)
        if (descend(p, t, k->part[i], &t) != SC_OK) {
            sc_json_free(v);
            return p->code;
        }
    const char *last = k->part[k->n - 1];
    if (sc_json_get(t, last) != NULL) {
        sc_json_free(v);
        return fail(p, "key \"%s\" is defined twice", last);
    }
    if (sc_json_object_append(t, last, v) != 0)
        return oom(p);
    return SC_OK;
}

/* ---- lines -------------------------------------------------------------- */

static sc_code end_of_line(tp *p)
{
    skip_ws(p);
    if (skip_comment(p) != SC_OK)
        return p->code;
    if (!eat_newline(p))
        return fail(p, "expected the end of the line");
    return SC_OK;
}

static sc_code read_header(tp *p, sc_json *root, sc_json **current, size_t *current_depth)
{
    p->pos++; /* [ */
    if (peek(p) == '[')
        return fail(p, "arrays of tables are not part of the subset");
    keypath k;
    if (read_key(p, &k) != SC_OK) {
        keypath_free(&k);
        return p->code;
    }
    if (peek(p) != ']') {
        keypath_free(&k);
        return fail(p, "expected ] after a table name");
    }
    p->pos++;
    if (k.n > SC_TOML_MAX_DEPTH) {
        keypath_free(&k);
        return fail(p, "tables nested deeper than %d", SC_TOML_MAX_DEPTH);
    }
    *current_depth = k.n;
    sc_json *t = root;
    for (size_t i = 0; i < k.n; i++)
        if (descend(p, t, k.part[i], &t) != SC_OK) {
            keypath_free(&k);
            return p->code;
        }
    keypath_free(&k);
    if (listed(p->headers, p->nheaders, t))
        return fail(p, "table defined twice");
    if (remember(&p->headers, &p->nheaders, &p->capheaders, t) != 0)
        return oom(p);
    *current = t;
    return end_of_line(p);
}

sc_code sc_toml_parse(const char *bytes, size_t len, const char *name,
                      sc_json **out, sc_error *err)
{
    *out = NULL;
    sc_error_clear(err);
    tp p;
    memset(&p, 0, sizeof p);
    p.s = bytes;
    p.len = len;
    p.name = name ? name : "pixi.toml";
    p.err = err;
    if (len > SC_TOML_MAX_BYTES)
        return fail(&p, "larger than %zu bytes", SC_TOML_MAX_BYTES);
    if (len >= 3 && memcmp(bytes, "\xEF\xBB\xBF", 3) == 0)
        return fail(&p, "starts with a byte-order mark");
    for (size_t i = 0; i < len;) {
        size_t n = sc_utf8_sequence_length((const unsigned char *)bytes + i, len - i);
        if (n == 0 || (n == 1 && bytes[i] == '\0')) {
            p.pos = i;
            return fail(&p, n == 0 ? "not UTF-8" : "NUL byte");
        }
        i += n;
    }
    sc_json *root = sc_json_new_object();
    if (root == NULL)
        return oom(&p);
    sc_json *current = root;
    size_t current_depth = 0;
    while (p.code == SC_OK) {
        if (skip_ws_nl(&p) != SC_OK || at_end(&p))
            break;
        if (peek(&p) == '[') {
            read_header(&p, root, &current, &current_depth);
            continue;
        }
        keypath k;
        if (read_key(&p, &k) != SC_OK) {
            keypath_free(&k);
            break;
        }
        if (peek(&p) != '=') {
            keypath_free(&k);
            fail(&p, "expected = after a key");
            break;
        }
        p.pos++;
        skip_ws(&p);
        sc_json *v = NULL;
        if (read_value(&p, &v, (int)(current_depth + k.n)) != SC_OK) {
            keypath_free(&k);
            break;
        }
        sc_code c = assign(&p, current, &k, v);
        keypath_free(&k);
        if (c != SC_OK)
            break;
        end_of_line(&p);
    }
    free((void *)p.headers);
    free((void *)p.inlines);
    if (p.code != SC_OK) {
        sc_json_free(root);
        return p.code;
    }
    *out = root;
    return SC_OK;
}
