/* SPDX-License-Identifier: Apache-2.0 */
/*
 * toml.c — the TOML 1.0 reader (toml.h).
 *
 * Guarantees: see the header.  One pass over the bytes.  Members are found
 * through one hash table keyed by (parent, key), so a table of n keys costs
 * O(n), not O(n^2).  The rules on defining things once follow TOML 1.0:
 * a [header] defines a table once (a table only named on the way to a
 * header may be defined later); dotted keys define the tables they pass
 * through, which may be extended by more dotted keys in the same section
 * only and never by a header; [[a]] appends a table to an array made by
 * [[a]]; inline tables and arrays written as values are closed.
 */
#define _POSIX_C_SOURCE 200809L

#include "scrollcase/toml.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scrollcase/path.h"
#include "scrollcase/strbuf.h"
#include "utf8_internal.h"

#define MAX_KEY_PARTS (SC_TOML_MAX_DEPTH + 1)

typedef struct slot {
    const sc_toml *parent;
    sc_toml *node;
} slot;

typedef struct tp {
    const char *s;
    size_t len;
    size_t pos;
    const char *name;
    sc_error *err;
    sc_code code; /* first failure */
    slot *map;
    size_t mapcap, mapn;
    unsigned section; /* counts headers */
} tp;

/* ---- failures ----------------------------------------------------------- */

static void line_col(const char *s, size_t len, size_t pos, size_t *line, size_t *col)
{
    *line = 1;
    *col = 1;
    for (size_t i = 0; i < pos && i < len; i++) {
        if (s[i] == '\n') {
            (*line)++;
            *col = 1;
        } else {
            (*col)++;
        }
    }
}

static sc_code vfail_at(sc_error *err, const char *s, size_t len, const char *name, size_t pos,
                        const char *fmt, va_list ap)
{
    size_t line, col;
    line_col(s, len, pos, &line, &col);
    char msg[320];
    vsnprintf(msg, sizeof msg, fmt, ap);
    return sc_error_set(err, SC_E_INVALID_PIXI_TOML, name, "%s:%zu:%zu: %s", name, line, col,
                        msg);
}

static sc_code fail_at(tp *p, size_t pos, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static sc_code fail_at(tp *p, size_t pos, const char *fmt, ...)
{
    if (p->code != SC_OK)
        return p->code;
    va_list ap;
    va_start(ap, fmt);
    p->code = vfail_at(p->err, p->s, p->len, p->name, pos, fmt, ap);
    va_end(ap);
    return p->code;
}

#define fail(p, ...) fail_at((p), (p)->pos, __VA_ARGS__)

static sc_code oom(tp *p)
{
    if (p->code == SC_OK)
        p->code = sc_error_set(p->err, SC_E_OUT_OF_MEMORY, p->name, "out of memory reading %s",
                               p->name);
    return p->code;
}

/* A key for a message: quoted, printable, bounded. */
typedef struct qkey {
    char s[160];
} qkey;

static qkey quote_key(const char *k, size_t n)
{
    qkey q;
    sc_path_quote(k, n, q.s, sizeof q.s);
    return q;
}

/* ---- nodes and the member index ------------------------------------------ */

static sc_toml *new_node(sc_toml_type type, sc_toml_origin origin)
{
    sc_toml *v = calloc(1, sizeof *v);
    if (v != NULL) {
        v->type = type;
        v->origin = origin;
    }
    return v;
}

void sc_toml_free(sc_toml *v)
{
    if (v == NULL)
        return;
    sc_toml *c = v->child;
    while (c != NULL) {
        sc_toml *n = c->next;
        sc_toml_free(c);
        c = n;
    }
    free(v->key);
    free(v->string);
    free(v);
}

static size_t slot_hash(const sc_toml *parent, const char *k, size_t n)
{
    uint64_t h = 1469598103934665603ULL ^ (uint64_t)(uintptr_t)parent;
    for (size_t i = 0; i < n; i++) {
        h ^= (unsigned char)k[i];
        h *= 1099511628211ULL;
    }
    h ^= h >> 29;
    return (size_t)h;
}

static sc_toml *find(const tp *p, const sc_toml *t, const char *k, size_t n)
{
    if (p->mapcap == 0)
        return NULL;
    size_t mask = p->mapcap - 1;
    for (size_t i = slot_hash(t, k, n) & mask;; i = (i + 1) & mask) {
        const slot *s = &p->map[i];
        if (s->node == NULL)
            return NULL;
        if (s->parent == t && s->node->key_length == n && memcmp(s->node->key, k, n) == 0)
            return s->node;
    }
}

static int map_put(slot *map, size_t cap, const sc_toml *parent, sc_toml *node)
{
    size_t mask = cap - 1;
    size_t i = slot_hash(parent, node->key, node->key_length) & mask;
    while (map[i].node != NULL)
        i = (i + 1) & mask;
    map[i].parent = parent;
    map[i].node = node;
    return 0;
}

/* Append node (its key set) to table t and index it. */
static sc_code add_member(tp *p, sc_toml *t, sc_toml *node)
{
    if ((p->mapn + 1) * 2 > p->mapcap) {
        size_t nc = p->mapcap ? p->mapcap * 2 : 64;
        slot *nm = calloc(nc, sizeof *nm);
        if (nm == NULL) {
            sc_toml_free(node);
            return oom(p);
        }
        for (size_t i = 0; i < p->mapcap; i++)
            if (p->map[i].node != NULL)
                map_put(nm, nc, p->map[i].parent, p->map[i].node);
        free(p->map);
        p->map = nm;
        p->mapcap = nc;
    }
    map_put(p->map, p->mapcap, t, node);
    p->mapn++;
    if (t->last != NULL)
        t->last->next = node;
    else
        t->child = node;
    t->last = node;
    t->length++;
    return SC_OK;
}

static void append_element(sc_toml *a, sc_toml *v)
{
    if (a->last != NULL)
        a->last->next = v;
    else
        a->child = v;
    a->last = v;
    a->length++;
}

sc_toml *sc_toml_get(const sc_toml *table, const char *key)
{
    if (table == NULL || table->type != SC_TOML_TABLE || key == NULL)
        return NULL;
    size_t n = strlen(key);
    for (sc_toml *c = table->child; c != NULL; c = c->next)
        if (c->key_length == n && memcmp(c->key, key, n) == 0)
            return c;
    return NULL;
}

const char *sc_toml_type_name(sc_toml_type t)
{
    switch (t) {
    case SC_TOML_TABLE: return "table";
    case SC_TOML_ARRAY: return "array";
    case SC_TOML_STRING: return "string";
    case SC_TOML_INTEGER: return "integer";
    case SC_TOML_FLOAT: return "float";
    case SC_TOML_BOOL: return "bool";
    case SC_TOML_DATETIME: return "datetime";
    case SC_TOML_LOCAL_DATETIME: return "datetime-local";
    case SC_TOML_LOCAL_DATE: return "date-local";
    case SC_TOML_LOCAL_TIME: return "time-local";
    }
    return "unknown";
}

/* ---- characters ------------------------------------------------------------ */

static int at_end(const tp *p) { return p->pos >= p->len; }
static char peek(const tp *p) { return at_end(p) ? '\0' : p->s[p->pos]; }
static char peek_at(const tp *p, size_t k)
{
    return p->pos + k < p->len ? p->s[p->pos + k] : '\0';
}
static int is_digit(char c) { return c >= '0' && c <= '9'; }

static int is_control(unsigned char c) { return (c < 0x20 && c != '\t') || c == 0x7f; }

static void skip_ws(tp *p)
{
    while (!at_end(p) && (peek(p) == ' ' || peek(p) == '\t'))
        p->pos++;
}

static sc_code skip_comment(tp *p)
{
    if (peek(p) != '#')
        return SC_OK;
    while (!at_end(p) && peek(p) != '\n') {
        unsigned char c = (unsigned char)peek(p);
        if (c == '\r' && peek_at(p, 1) == '\n')
            break;
        if (is_control(c))
            return fail(p, "control character U+%04X in a comment", c);
        p->pos++;
    }
    return SC_OK;
}

/* At a line end (LF or CRLF): consume it, 1; else 0. */
static int eat_newline(tp *p)
{
    if (peek(p) == '\n') {
        p->pos++;
        return 1;
    }
    if (peek(p) == '\r' && peek_at(p, 1) == '\n') {
        p->pos += 2;
        return 1;
    }
    return 0;
}

/* Whitespace, comments and newlines. */
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

/* ---- strings --------------------------------------------------------------- */

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

static sc_code add_codepoint(tp *p, sc_strbuf *b, uint32_t cp)
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
    return sc_strbuf_add(b, u, n) == SC_OK ? SC_OK : oom(p);
}

/* An escape at p->pos (the backslash); appends its bytes. */
static sc_code read_escape(tp *p, sc_strbuf *b)
{
    size_t at = p->pos;
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
            if (at_end(p) || h < 0)
                return fail_at(p, at, "\\%c needs %d hexadecimal digits", e, nd);
            cp = cp * 16 + (uint32_t)h;
            p->pos++;
        }
        if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
            return fail_at(p, at, "\\%c%0*X is not a Unicode scalar value", e, nd, (unsigned)cp);
        return add_codepoint(p, b, cp);
    }
    default:
        if (is_control((unsigned char)e) || (unsigned char)e >= 0x80)
            return fail_at(p, at, "unknown escape in a string");
        return fail_at(p, at, "unknown escape \\%c in a string", e);
    }
    p->pos++;
    return sc_strbuf_add(b, rep, 1) == SC_OK ? SC_OK : oom(p);
}

/* One-line basic ("...") or literal ('...') string at p->pos. */
static sc_code read_line_string(tp *p, sc_strbuf *b)
{
    char q = peek(p);
    size_t open = p->pos;
    p->pos++;
    for (;;) {
        if (at_end(p) || peek(p) == '\n' || (peek(p) == '\r' && peek_at(p, 1) == '\n'))
            return fail_at(p, open, "unterminated string");
        unsigned char c = (unsigned char)peek(p);
        if (c == (unsigned char)q) {
            p->pos++;
            return SC_OK;
        }
        if (is_control(c))
            return fail(p, "control character U+%04X in a string", c);
        if (q == '"' && c == '\\') {
            if (read_escape(p, b) != SC_OK)
                return p->code;
            continue;
        }
        if (sc_strbuf_addc(b, (char)c) != SC_OK)
            return oom(p);
        p->pos++;
    }
}

/* Multi-line basic ("""...""") or literal ('''...''') string at p->pos. */
static sc_code read_multiline_string(tp *p, sc_strbuf *b)
{
    char q = peek(p);
    size_t open = p->pos;
    p->pos += 3;
    eat_newline(p); /* a newline right after the opening is trimmed */
    for (;;) {
        if (at_end(p))
            return fail_at(p, open, "unterminated multi-line string");
        unsigned char c = (unsigned char)peek(p);
        if (c == (unsigned char)q && peek_at(p, 1) == q && peek_at(p, 2) == q) {
            size_t run = 3;
            while (p->pos + run < p->len && p->s[p->pos + run] == q)
                run++;
            if (run > 5)
                return fail_at(p, p->pos + 5, "more than two quotes before a closing delimiter");
            for (size_t i = 3; i < run; i++)
                if (sc_strbuf_addc(b, q) != SC_OK)
                    return oom(p);
            p->pos += run;
            return SC_OK;
        }
        if (c == '\n' || (c == '\r' && peek_at(p, 1) == '\n')) {
            eat_newline(p);
            if (sc_strbuf_addc(b, '\n') != SC_OK)
                return oom(p);
            continue;
        }
        if (is_control(c))
            return fail(p, "control character U+%04X in a string", c);
        if (q == '"' && c == '\\') {
            /* a line-ending backslash trims the newline and the whitespace after it */
            size_t k = 1;
            while (peek_at(p, k) == ' ' || peek_at(p, k) == '\t')
                k++;
            if (peek_at(p, k) == '\n' || (peek_at(p, k) == '\r' && peek_at(p, k + 1) == '\n')) {
                p->pos += k;
                for (;;) {
                    skip_ws(p);
                    if (!eat_newline(p))
                        break;
                }
                continue;
            }
            if (read_escape(p, b) != SC_OK)
                return p->code;
            continue;
        }
        if (sc_strbuf_addc(b, (char)c) != SC_OK)
            return oom(p);
        p->pos++;
    }
}

/* ---- keys ------------------------------------------------------------------ */

typedef struct keypart {
    char *s;
    size_t n;
    sc_toml_span span;
    sc_toml *node; /* the table it names, once resolved */
} keypart;

typedef struct keypath {
    keypart part[MAX_KEY_PARTS];
    size_t n;
    size_t start, end;
} keypath;

static void keypath_free(keypath *k)
{
    for (size_t i = 0; i < k->n; i++)
        free(k->part[i].s);
    k->n = 0;
}

static int bare_char(char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || is_digit(c) || c == '_' ||
           c == '-';
}

/* A key (dotted parts, whitespace around the dots) at p->pos. */
static sc_code read_key(tp *p, keypath *k)
{
    k->n = 0;
    skip_ws(p);
    k->start = p->pos;
    for (;;) {
        skip_ws(p);
        if (k->n == MAX_KEY_PARTS)
            return fail(p, "key has more than %d parts", MAX_KEY_PARTS);
        keypart *kp = &k->part[k->n];
        kp->span.start = p->pos;
        kp->node = NULL;
        char c = peek(p);
        sc_strbuf b = SC_STRBUF_INIT;
        if (c == '"' || c == '\'') {
            if (peek_at(p, 1) == c && peek_at(p, 2) == c)
                return fail(p, "a key cannot be a multi-line string");
            if (read_line_string(p, &b) != SC_OK) {
                sc_strbuf_free(&b);
                return p->code;
            }
        } else if (bare_char(c)) {
            size_t start = p->pos;
            while (!at_end(p) && bare_char(peek(p)))
                p->pos++;
            if (sc_strbuf_add(&b, p->s + start, p->pos - start) != SC_OK)
                return oom(p);
        } else {
            return fail(p, "expected a key");
        }
        kp->span.end = p->pos;
        kp->s = sc_strbuf_detach(&b, &kp->n);
        if (kp->s == NULL)
            return oom(p);
        k->n++;
        k->end = p->pos;
        skip_ws(p);
        if (peek(p) != '.')
            return SC_OK;
        p->pos++;
    }
}

/* ---- numbers and dates ----------------------------------------------------- */

static int digit_of(char c, int base)
{
    int v = hexval(c);
    return v >= 0 && v < base ? v : -1;
}

/*
 * A run of digits of base at t[*i] with `_` only between two digits; 0 if
 * t[*i] is not a digit.  Stops at the first byte that does not continue it.
 */
static int digit_run(const char *t, size_t n, size_t *i, int base)
{
    if (*i >= n || digit_of(t[*i], base) < 0)
        return 0;
    (*i)++;
    while (*i < n) {
        if (digit_of(t[*i], base) >= 0)
            (*i)++;
        else if (t[*i] == '_' && *i + 1 < n && digit_of(t[*i + 1], base) >= 0)
            *i += 2;
        else
            break;
    }
    return 1;
}

static sc_code read_float(tp *p, const char *t, size_t n, sc_toml *v)
{
    size_t i = 0;
    if (t[0] == '+' || t[0] == '-')
        i++;
    size_t int_start = i;
    if (!digit_run(t, n, &i, 10))
        return fail(p, "a float needs a digit before its point or exponent");
    if (t[int_start] == '0' && i - int_start > 1)
        return fail(p, "a float has no leading zeros");
    int frac = 0, ex = 0;
    if (i < n && t[i] == '.') {
        i++;
        if (!digit_run(t, n, &i, 10))
            return fail(p, "a float needs a digit after its point");
        frac = 1;
    }
    if (i < n && (t[i] == 'e' || t[i] == 'E')) {
        i++;
        if (i < n && (t[i] == '+' || t[i] == '-'))
            i++;
        if (!digit_run(t, n, &i, 10))
            return fail(p, "a float needs digits in its exponent");
        ex = 1;
    }
    if (i != n || !(frac || ex))
        return fail(p, "malformed number");
    char *clean = malloc(n + 1);
    if (clean == NULL)
        return oom(p);
    size_t m = 0;
    for (size_t j = 0; j < n; j++)
        if (t[j] != '_')
            clean[m++] = t[j];
    clean[m] = '\0';
    errno = 0;
    char *end = NULL;
    double d = strtod(clean, &end);
    int range = errno == ERANGE && isinf(d);
    int whole = end == clean + m;
    free(clean);
    if (!whole)
        return fail(p, "malformed float");
    if (range)
        return fail(p, "float out of the binary64 range");
    v->type = SC_TOML_FLOAT;
    v->real = d;
    return SC_OK;
}

static sc_code read_number(tp *p, sc_toml *v)
{
    size_t start = p->pos;
    while (!at_end(p) && (bare_char(peek(p)) || peek(p) == '.' || peek(p) == '+'))
        p->pos++;
    const char *t = p->s + start;
    size_t n = p->pos - start;
    size_t i = 0;
    int neg = 0;
    if (n > 0 && (t[0] == '+' || t[0] == '-')) {
        neg = t[0] == '-';
        i = 1;
    }
    if (n - i == 3 && (memcmp(t + i, "inf", 3) == 0 || memcmp(t + i, "nan", 3) == 0)) {
        v->type = SC_TOML_FLOAT;
        v->real = t[i] == 'i' ? (neg ? -INFINITY : INFINITY) : (neg ? -NAN : NAN);
        return SC_OK;
    }
    size_t save = p->pos;
    p->pos = start; /* failures point at the number */
    if (n - i >= 2 && t[i] == '0' && (t[i + 1] == 'x' || t[i + 1] == 'o' || t[i + 1] == 'b')) {
        int base = t[i + 1] == 'x' ? 16 : t[i + 1] == 'o' ? 8 : 2;
        if (i > 0)
            return fail(p, "a hexadecimal, octal or binary integer takes no sign");
        size_t j = 2;
        if (!digit_run(t, n, &j, base) || j != n)
            return fail(p, "malformed base-%d integer", base);
        uint64_t u = 0;
        for (size_t k = 2; k < n; k++) {
            if (t[k] == '_')
                continue;
            uint64_t d = (uint64_t)digit_of(t[k], base);
            if (u > ((uint64_t)INT64_MAX - d) / (uint64_t)base)
                return fail(p, "integer beyond the 64-bit range");
            u = u * (uint64_t)base + d;
        }
        v->type = SC_TOML_INTEGER;
        v->integer = (int64_t)u;
        p->pos = save;
        return SC_OK;
    }
    if (memchr(t, '.', n) != NULL || memchr(t, 'e', n) != NULL || memchr(t, 'E', n) != NULL) {
        if (read_float(p, t, n, v) != SC_OK)
            return p->code;
        p->pos = save;
        return SC_OK;
    }
    size_t j = i;
    if (!digit_run(t, n, &j, 10) || j != n)
        return fail(p, "malformed value");
    if (t[i] == '0' && n - i > 1)
        return fail(p, "an integer has no leading zeros");
    uint64_t u = 0, lim = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    for (size_t k = i; k < n; k++) {
        if (t[k] == '_')
            continue;
        uint64_t d = (uint64_t)(t[k] - '0');
        if (u > (lim - d) / 10)
            return fail(p, "integer beyond the 64-bit range");
        u = u * 10 + d;
    }
    v->type = SC_TOML_INTEGER;
    v->integer = neg ? (u == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)u) : (int64_t)u;
    p->pos = save;
    return SC_OK;
}

/* n digits at p->pos into *out; 0 if they are not there. */
static int fixed_digits(tp *p, int n, int *out)
{
    int v = 0;
    for (int i = 0; i < n; i++) {
        char c = peek_at(p, (size_t)i);
        if (!is_digit(c))
            return 0;
        v = v * 10 + (c - '0');
    }
    p->pos += (size_t)n;
    *out = v;
    return 1;
}

static int days_in_month(int y, int m)
{
    static const int d[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (m == 2 && ((y % 4 == 0 && y % 100 != 0) || y % 400 == 0))
        return 29;
    return d[m - 1];
}

static sc_code read_time(tp *p, sc_toml *v, size_t start)
{
    if (!fixed_digits(p, 2, &v->hour) || peek(p) != ':' || (p->pos++, 0) ||
        !fixed_digits(p, 2, &v->minute) || peek(p) != ':' || (p->pos++, 0) ||
        !fixed_digits(p, 2, &v->second))
        return fail_at(p, start, "a time is HH:MM:SS with two digits each");
    if (v->hour > 23 || v->minute > 59 || v->second > 60)
        return fail_at(p, start, "time out of range");
    if (peek(p) == '.') {
        p->pos++;
        if (!is_digit(peek(p)))
            return fail(p, "a fraction of a second needs digits");
        long ns = 0;
        int nd = 0;
        while (is_digit(peek(p))) {
            if (nd < 9) {
                ns = ns * 10 + (peek(p) - '0');
                nd++;
            }
            p->pos++;
        }
        for (; nd < 9; nd++)
            ns *= 10;
        v->nanosecond = ns;
    }
    return SC_OK;
}

static sc_code read_datetime(tp *p, sc_toml *v)
{
    size_t start = p->pos;
    sc_strbuf b = SC_STRBUF_INIT;
    int has_date = 0, has_time = 0, has_offset = 0;
    char osign = '+';
    size_t frac_at = 0, frac_end = 0;
    if (peek_at(p, 2) != ':') {
        if (!fixed_digits(p, 4, &v->year) || peek(p) != '-' || (p->pos++, 0) ||
            !fixed_digits(p, 2, &v->month) || peek(p) != '-' || (p->pos++, 0) ||
            !fixed_digits(p, 2, &v->day))
            return fail_at(p, start, "a date is YYYY-MM-DD");
        if (v->month < 1 || v->month > 12 || v->day < 1 ||
            v->day > days_in_month(v->year, v->month))
            return fail_at(p, start, "date out of range");
        has_date = 1;
        char c = peek(p);
        if (c == 'T' || c == 't' ||
            (c == ' ' && is_digit(peek_at(p, 1)) && is_digit(peek_at(p, 2)) &&
             peek_at(p, 3) == ':')) {
            p->pos++;
            if (read_time(p, v, p->pos) != SC_OK)
                return p->code;
            has_time = 1;
        }
    } else {
        if (read_time(p, v, start) != SC_OK)
            return p->code;
        has_time = 1;
    }
    if (has_time) {
        /* where the fraction was written, to keep it as written */
        const char *dot = memchr(p->s + start, '.', p->pos - start);
        if (dot != NULL) {
            frac_at = (size_t)(dot - p->s);
            frac_end = p->pos;
        }
    }
    if (has_date && has_time) {
        char c = peek(p);
        if (c == 'Z' || c == 'z') {
            p->pos++;
            has_offset = 1;
        } else if (c == '+' || c == '-') {
            size_t at = p->pos;
            int oh, om;
            p->pos++;
            if (!fixed_digits(p, 2, &oh) || peek(p) != ':' || (p->pos++, 0) ||
                !fixed_digits(p, 2, &om))
                return fail_at(p, at, "an offset is +HH:MM or -HH:MM");
            if (oh > 23 || om > 59)
                return fail_at(p, at, "offset out of range");
            v->offset_minutes = (c == '-' ? -1 : 1) * (oh * 60 + om);
            osign = c;
            has_offset = 2;
        }
    }
    int bad = 0;
    if (has_date)
        bad |= sc_strbuf_printf(&b, "%04d-%02d-%02d", v->year, v->month, v->day) != SC_OK;
    if (has_date && has_time)
        bad |= sc_strbuf_addc(&b, 'T') != SC_OK;
    if (has_time) {
        bad |= sc_strbuf_printf(&b, "%02d:%02d:%02d", v->hour, v->minute, v->second) != SC_OK;
        if (frac_at)
            bad |= sc_strbuf_add(&b, p->s + frac_at, frac_end - frac_at) != SC_OK;
    }
    if (has_offset == 1) {
        bad |= sc_strbuf_addc(&b, 'Z') != SC_OK;
    } else if (has_offset == 2) {
        int m = v->offset_minutes < 0 ? -v->offset_minutes : v->offset_minutes;
        bad |= sc_strbuf_printf(&b, "%c%02d:%02d", osign, m / 60, m % 60) != SC_OK;
    }
    if (bad) {
        sc_strbuf_free(&b);
        return oom(p);
    }
    v->string = sc_strbuf_detach(&b, &v->length);
    if (v->string == NULL)
        return oom(p);
    v->type = !has_date ? SC_TOML_LOCAL_TIME
              : !has_time ? SC_TOML_LOCAL_DATE
              : has_offset ? SC_TOML_DATETIME
                           : SC_TOML_LOCAL_DATETIME;
    return SC_OK;
}

/* ---- values ---------------------------------------------------------------- */

static sc_code read_value(tp *p, int depth, sc_toml **out);
static sc_code insert_kv(tp *p, sc_toml *t, keypath *k, sc_toml *v, int in_inline);

/* The tables made by dotted keys inside a closed inline table are closed too. */
static void close_inline(sc_toml *t)
{
    for (sc_toml *c = t->child; c != NULL; c = c->next)
        if (c->type == SC_TOML_TABLE && c->origin == SC_TOML_DOTTED) {
            c->origin = SC_TOML_VALUE;
            close_inline(c);
        }
}

static sc_code read_inline_table(tp *p, int depth, sc_toml *t)
{
    t->type = SC_TOML_TABLE;
    p->pos++; /* { */
    skip_ws(p);
    if (peek(p) == '}') {
        p->pos++;
        return SC_OK;
    }
    for (;;) {
        keypath k;
        if (read_key(p, &k) != SC_OK) {
            keypath_free(&k);
            return p->code;
        }
        if (peek(p) != '=') {
            keypath_free(&k);
            return fail(p, "expected = after a key");
        }
        p->pos++;
        skip_ws(p);
        sc_toml *v = NULL;
        if (read_value(p, depth + (int)k.n, &v) != SC_OK) {
            keypath_free(&k);
            return p->code;
        }
        v->entry.start = k.start;
        v->entry.end = v->value.end;
        sc_code c = insert_kv(p, t, &k, v, 1);
        keypath_free(&k);
        if (c != SC_OK)
            return c;
        skip_ws(p);
        if (peek(p) == ',') {
            p->pos++;
            skip_ws(p);
            continue;
        }
        if (peek(p) == '}') {
            p->pos++;
            close_inline(t);
            return SC_OK;
        }
        return fail(p, "expected , or } in an inline table (it ends on its line, without a "
                       "trailing comma)");
    }
}

static sc_code read_array(tp *p, int depth, sc_toml *a)
{
    a->type = SC_TOML_ARRAY;
    p->pos++; /* [ */
    for (;;) {
        if (skip_ws_nl(p) != SC_OK)
            return p->code;
        if (peek(p) == ']') {
            p->pos++;
            return SC_OK;
        }
        sc_toml *v = NULL;
        if (read_value(p, depth + 1, &v) != SC_OK)
            return p->code;
        v->entry = v->value;
        v->depth = depth + 1;
        append_element(a, v);
        if (skip_ws_nl(p) != SC_OK)
            return p->code;
        if (peek(p) == ',') {
            p->pos++;
            continue;
        }
        if (peek(p) == ']')
            continue;
        return fail(p, "expected , or ] in an array");
    }
}

/* A value at p->pos; *out is set (and owned by the caller) on success only. */
static sc_code read_value(tp *p, int depth, sc_toml **out)
{
    *out = NULL;
    if (depth > SC_TOML_MAX_DEPTH)
        return fail(p, "nested deeper than %d tables and arrays", SC_TOML_MAX_DEPTH);
    sc_toml *v = new_node(SC_TOML_STRING, SC_TOML_VALUE);
    if (v == NULL)
        return oom(p);
    v->value.start = p->pos;
    char c = peek(p);
    sc_code rc;
    if (c == '"' || c == '\'') {
        sc_strbuf b = SC_STRBUF_INIT;
        if (peek_at(p, 1) == c && peek_at(p, 2) == c)
            rc = read_multiline_string(p, &b);
        else
            rc = read_line_string(p, &b);
        if (rc == SC_OK) {
            v->string = sc_strbuf_detach(&b, &v->length);
            if (v->string == NULL)
                rc = oom(p);
        } else {
            sc_strbuf_free(&b);
        }
    } else if (c == '[') {
        rc = read_array(p, depth, v);
    } else if (c == '{') {
        rc = read_inline_table(p, depth, v);
    } else if (p->len - p->pos >= 4 && memcmp(p->s + p->pos, "true", 4) == 0) {
        v->type = SC_TOML_BOOL;
        v->boolean = 1;
        p->pos += 4;
        rc = SC_OK;
    } else if (p->len - p->pos >= 5 && memcmp(p->s + p->pos, "false", 5) == 0) {
        v->type = SC_TOML_BOOL;
        p->pos += 5;
        rc = SC_OK;
    } else if (is_digit(c) && is_digit(peek_at(p, 1)) &&
               (peek_at(p, 2) == ':' ||
                (is_digit(peek_at(p, 2)) && is_digit(peek_at(p, 3)) && peek_at(p, 4) == '-'))) {
        rc = read_datetime(p, v);
    } else if (c == '+' || c == '-' || is_digit(c) || c == 'i' || c == 'n') {
        rc = read_number(p, v);
    } else {
        rc = fail(p, "expected a value");
    }
    if (rc != SC_OK) {
        sc_toml_free(v);
        return p->code != SC_OK ? p->code : rc;
    }
    v->value.end = p->pos;
    *out = v;
    return SC_OK;
}

/* ---- placing what was read --------------------------------------------------- */

static const char *origin_words(const sc_toml *t)
{
    switch (t->origin) {
    case SC_TOML_HEADER: return "defined by a [table] header";
    case SC_TOML_ARRAY_ELEMENT: return "a table of an array of tables";
    case SC_TOML_ARRAY_TABLES: return "an array of tables";
    case SC_TOML_DOTTED: return "defined by dotted keys";
    case SC_TOML_IMPLICIT: return "a table";
    case SC_TOML_ROOT: return "the document";
    case SC_TOML_VALUE: break;
    }
    return t->type == SC_TOML_TABLE ? "an inline table" : "a value";
}

static sc_toml *new_table(const keypart *kp, sc_toml_origin origin, int depth)
{
    sc_toml *t = new_node(SC_TOML_TABLE, origin);
    if (t == NULL)
        return NULL;
    t->key = malloc(kp->n + 1);
    if (t->key == NULL) {
        free(t);
        return NULL;
    }
    memcpy(t->key, kp->s, kp->n);
    t->key[kp->n] = '\0';
    t->key_length = kp->n;
    t->key_span = kp->span;
    t->depth = depth;
    return t;
}

/* t[k...] = v (takes v); the tables passed through are k->part[i].node. */
static sc_code insert_kv(tp *p, sc_toml *t, keypath *k, sc_toml *v, int in_inline)
{
    for (size_t i = 0; i + 1 < k->n; i++) {
        keypart *kp = &k->part[i];
        sc_toml *c = find(p, t, kp->s, kp->n);
        if (c == NULL) {
            if (t->depth + 1 > SC_TOML_MAX_DEPTH) {
                sc_toml_free(v);
                return fail_at(p, kp->span.start, "nested deeper than %d tables and arrays",
                               SC_TOML_MAX_DEPTH);
            }
            c = new_table(kp, SC_TOML_DOTTED, t->depth + 1);
            if (c == NULL) {
                sc_toml_free(v);
                return oom(p);
            }
            c->section = p->section;
            c->entry.start = k->start;
            c->entry.end = v->value.end;
            if (add_member(p, t, c) != SC_OK) {
                sc_toml_free(v);
                return p->code;
            }
        } else if (c->type == SC_TOML_TABLE && c->origin == SC_TOML_DOTTED &&
                   c->section == p->section) {
            /* extended in the section that made it */
        } else if (c->type == SC_TOML_TABLE && c->origin == SC_TOML_IMPLICIT && !in_inline) {
            c->origin = SC_TOML_DOTTED;
            c->section = p->section;
        } else {
            qkey q = quote_key(kp->s, kp->n);
            sc_toml_free(v);
            return fail_at(p, kp->span.start, "cannot add keys to \"%s\" here: it is %s", q.s,
                           origin_words(c));
        }
        kp->node = c;
        t = c;
    }
    keypart *last = &k->part[k->n - 1];
    sc_toml *old = find(p, t, last->s, last->n);
    if (old != NULL) {
        qkey q = quote_key(last->s, last->n);
        sc_toml_free(v);
        return fail_at(p, last->span.start, "key \"%s\" is defined twice (it is already %s)", q.s,
                       origin_words(old));
    }
    v->key = last->s;
    v->key_length = last->n;
    last->s = NULL;
    last->n = 0;
    v->key_span = last->span;
    v->depth = t->depth + 1;
    return add_member(p, t, v);
}

/* The line after a statement: whitespace, a comment, a newline or the end. */
static sc_code end_of_line(tp *p)
{
    skip_ws(p);
    if (skip_comment(p) != SC_OK)
        return p->code;
    if (at_end(p))
        return SC_OK;
    if (!eat_newline(p)) {
        if (peek(p) == '\r')
            return fail(p, "a carriage return must be followed by a line feed");
        return fail(p, "expected the end of the line");
    }
    return SC_OK;
}

static sc_code read_header(tp *p, sc_toml *root, sc_toml **current)
{
    size_t open = p->pos;
    int array = peek_at(p, 1) == '[';
    p->pos += array ? 2 : 1;
    keypath k;
    if (read_key(p, &k) != SC_OK) {
        keypath_free(&k);
        return p->code;
    }
    if (peek(p) != ']' || (array && peek_at(p, 1) != ']')) {
        keypath_free(&k);
        return fail(p, array ? "expected ]] after the name of an array of tables"
                             : "expected ] after a table name");
    }
    p->pos += array ? 2 : 1;
    sc_toml_span hs = {open, p->pos};
    p->section++;
    sc_toml *t = root;
    for (size_t i = 0; i + 1 < k.n; i++) {
        keypart *kp = &k.part[i];
        sc_toml *c = find(p, t, kp->s, kp->n);
        if (c == NULL) {
            if (t->depth + 1 > SC_TOML_MAX_DEPTH) {
                keypath_free(&k);
                return fail_at(p, kp->span.start, "tables nested deeper than %d",
                               SC_TOML_MAX_DEPTH);
            }
            c = new_table(kp, SC_TOML_IMPLICIT, t->depth + 1);
            if (c == NULL) {
                keypath_free(&k);
                return oom(p);
            }
            c->entry = hs;
            if (add_member(p, t, c) != SC_OK) {
                keypath_free(&k);
                return p->code;
            }
        } else if (c->type == SC_TOML_TABLE && c->origin != SC_TOML_VALUE) {
            /* go through it */
        } else if (c->type == SC_TOML_ARRAY && c->origin == SC_TOML_ARRAY_TABLES) {
            c = c->last;
        } else {
            qkey q = quote_key(kp->s, kp->n);
            keypath_free(&k);
            return fail_at(p, kp->span.start, "cannot add a table under \"%s\": it is %s", q.s,
                           origin_words(c));
        }
        t = c;
    }
    keypart *last = &k.part[k.n - 1];
    sc_toml *c = find(p, t, last->s, last->n);
    qkey q = quote_key(last->s, last->n);
    sc_toml *node = NULL;
    if (!array) {
        if (c == NULL) {
            if (t->depth + 1 > SC_TOML_MAX_DEPTH) {
                keypath_free(&k);
                return fail_at(p, last->span.start, "tables nested deeper than %d",
                               SC_TOML_MAX_DEPTH);
            }
            node = new_table(last, SC_TOML_HEADER, t->depth + 1);
            if (node == NULL) {
                keypath_free(&k);
                return oom(p);
            }
            if (add_member(p, t, node) != SC_OK) {
                keypath_free(&k);
                return p->code;
            }
        } else if (c->type == SC_TOML_TABLE && c->origin == SC_TOML_IMPLICIT) {
            node = c;
            node->origin = SC_TOML_HEADER;
            node->key_span = last->span;
        } else {
            keypath_free(&k);
            return fail_at(p, open, "table [%s] cannot be defined here: it is already %s", q.s,
                           origin_words(c));
        }
    } else {
        sc_toml *arr = c;
        if (arr == NULL) {
            if (t->depth + 2 > SC_TOML_MAX_DEPTH) {
                keypath_free(&k);
                return fail_at(p, last->span.start, "tables nested deeper than %d",
                               SC_TOML_MAX_DEPTH);
            }
            arr = new_table(last, SC_TOML_ARRAY_TABLES, t->depth + 1);
            if (arr == NULL) {
                keypath_free(&k);
                return oom(p);
            }
            arr->type = SC_TOML_ARRAY;
            arr->entry = hs;
            if (add_member(p, t, arr) != SC_OK) {
                keypath_free(&k);
                return p->code;
            }
        } else if (!(arr->type == SC_TOML_ARRAY && arr->origin == SC_TOML_ARRAY_TABLES)) {
            keypath_free(&k);
            return fail_at(p, open, "[[%s]] cannot be an array of tables: it is already %s", q.s,
                           origin_words(arr));
        }
        node = new_node(SC_TOML_TABLE, SC_TOML_ARRAY_ELEMENT);
        if (node == NULL) {
            keypath_free(&k);
            return oom(p);
        }
        node->key_span = last->span;
        node->depth = arr->depth + 1;
        append_element(arr, node);
    }
    keypath_free(&k);
    node->entry = hs;
    node->section = p->section;
    if (end_of_line(p) != SC_OK)
        return p->code;
    node->line_end = p->pos;
    node->body_end = p->pos;
    *current = node;
    return SC_OK;
}

static sc_code read_keyval(tp *p, sc_toml *current)
{
    keypath k;
    if (read_key(p, &k) != SC_OK) {
        keypath_free(&k);
        return p->code;
    }
    if (peek(p) != '=') {
        keypath_free(&k);
        return fail(p, "expected = after a key");
    }
    p->pos++;
    skip_ws(p);
    sc_toml *v = NULL;
    if (read_value(p, current->depth + (int)k.n, &v) != SC_OK) {
        keypath_free(&k);
        return p->code;
    }
    v->entry.start = k.start;
    v->entry.end = v->value.end;
    if (insert_kv(p, current, &k, v, 0) != SC_OK) {
        keypath_free(&k);
        return p->code;
    }
    if (end_of_line(p) != SC_OK) {
        keypath_free(&k);
        return p->code;
    }
    v->line_end = p->pos;
    current->body_end = p->pos;
    for (size_t i = 0; i + 1 < k.n; i++)
        if (k.part[i].node != NULL) {
            k.part[i].node->body_end = p->pos;
            if (k.part[i].node->line_end == 0)
                k.part[i].node->line_end = p->pos;
        }
    keypath_free(&k);
    return SC_OK;
}

sc_code sc_toml_read(const char *bytes, size_t len, const char *name, sc_toml **out,
                     sc_error *err)
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
    sc_toml *root = new_node(SC_TOML_TABLE, SC_TOML_ROOT);
    if (root == NULL)
        return oom(&p);
    sc_toml *current = root;
    while (p.code == SC_OK) {
        if (skip_ws_nl(&p) != SC_OK || at_end(&p))
            break;
        if (peek(&p) == '[')
            read_header(&p, root, &current);
        else
            read_keyval(&p, current);
    }
    free(p.map);
    if (p.code != SC_OK) {
        sc_toml_free(root);
        return p.code;
    }
    root->entry.start = 0;
    root->entry.end = len;
    root->line_end = len;
    *out = root;
    return SC_OK;
}

/* ---- the JSON view ------------------------------------------------------------ */

typedef struct jctx {
    const char *s;
    size_t len;
    const char *name;
    sc_error *err;
} jctx;

static sc_code jfail(const jctx *c, size_t pos, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static sc_code jfail(const jctx *c, size_t pos, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sc_code rc = vfail_at(c->err, c->s, c->len, c->name, pos, fmt, ap);
    va_end(ap);
    return rc;
}

static sc_code to_json(const jctx *c, const sc_toml *v, sc_json **out)
{
    *out = NULL;
    sc_json *j = NULL;
    switch (v->type) {
    case SC_TOML_TABLE:
    case SC_TOML_ARRAY:
        j = v->type == SC_TOML_TABLE ? sc_json_new_object() : sc_json_new_array();
        if (j == NULL)
            break;
        for (const sc_toml *m = v->child; m != NULL; m = m->next) {
            if (v->type == SC_TOML_TABLE && memchr(m->key, '\0', m->key_length) != NULL) {
                sc_json_free(j);
                return jfail(c, m->key_span.start, "a key holding U+0000 is not read here");
            }
            sc_json *x = NULL;
            sc_code rc = to_json(c, m, &x);
            if (rc != SC_OK) {
                sc_json_free(j);
                return rc;
            }
            int bad = v->type == SC_TOML_TABLE ? sc_json_object_append(j, m->key, x)
                                               : sc_json_array_append(j, x);
            if (bad != 0) {
                sc_json_free(j);
                j = NULL;
                break;
            }
        }
        break;
    case SC_TOML_STRING:
        if (memchr(v->string, '\0', v->length) != NULL)
            return jfail(c, v->value.start, "a string holding U+0000 is not read here");
        j = sc_json_new_string_len(v->string, v->length);
        break;
    case SC_TOML_INTEGER:
        if (v->integer > 9007199254740991LL || v->integer < -9007199254740991LL)
            return jfail(c, v->value.start, "integer beyond 2^53-1 is not read here");
        j = sc_json_new_number((double)v->integer);
        break;
    case SC_TOML_FLOAT:
        if (!isfinite(v->real))
            return jfail(c, v->value.start, "an infinite or NaN float is not read here");
        j = sc_json_new_number(v->real);
        break;
    case SC_TOML_BOOL:
        j = sc_json_new_bool(v->boolean);
        break;
    case SC_TOML_DATETIME:
    case SC_TOML_LOCAL_DATETIME:
    case SC_TOML_LOCAL_DATE:
    case SC_TOML_LOCAL_TIME:
        j = sc_json_new_string_len(v->string, v->length);
        break;
    }
    if (j == NULL)
        return sc_error_set(c->err, SC_E_OUT_OF_MEMORY, c->name, "out of memory reading %s",
                            c->name);
    *out = j;
    return SC_OK;
}

sc_code sc_toml_to_json(const sc_toml *doc, const char *bytes, size_t len, const char *name,
                        sc_json **out, sc_error *err)
{
    sc_error_clear(err);
    jctx c = {bytes, len, name ? name : "pixi.toml", err};
    return to_json(&c, doc, out);
}

sc_code sc_toml_parse(const char *bytes, size_t len, const char *name, sc_json **out,
                      sc_error *err)
{
    *out = NULL;
    sc_toml *doc = NULL;
    sc_code rc = sc_toml_read(bytes, len, name, &doc, err);
    if (rc != SC_OK)
        return rc;
    rc = sc_toml_to_json(doc, bytes, len, name, out, err);
    sc_toml_free(doc);
    return rc;
}
