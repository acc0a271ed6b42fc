/* SPDX-License-Identifier: Apache-2.0 */
/*
 * json.c — strict JSON reading and deterministic JSON writing.
 *
 * Guarantees (see json.h):
 *  - The reader accepts exactly RFC 8259 text that is valid UTF-8 without a
 *    BOM, has no duplicate keys (byte comparison), no trailing bytes, nests
 *    at most SC_JSON_MAX_DEPTH deep, has no number that overflows a double
 *    and no integer literal beyond 2^53-1, and no \u escape that leaves a
 *    lone surrogate.  Every refusal is SC_E_INVALID_JSON, "invalid-json at
 *    byte N: <what>", N being the offset of the offending byte.
 *  - Numbers are converted without regard to the locale: the lexeme is
 *    rewritten as "<digits>e<exponent>" (no decimal point) before strtod.
 *  - Duplicate keys are found with a per-object hash set once an object has
 *    more than a few members, so large objects cost O(n).
 *  - The writer produces the same bytes for the same tree whatever the
 *    locale.  It refuses trees whose text would break the reader's rules
 *    (non-finite numbers, strings or keys that are not UTF-8, duplicate keys,
 *    nesting deeper than SC_JSON_MAX_DEPTH) with SC_E_INVALID_JSON.  Numbers
 *    follow Number::toString except that magnitudes from 2^53 up are always
 *    in exponent form ("1e+20"), so written text never holds an integer
 *    literal the reader refuses (docs/format-v3.md section 2.2).
 *  - No global or static mutable state.
 */
#include "scrollcase/json.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scrollcase/file.h"
#include "scrollcase/path.h"
#include "utf8_internal.h"

/* Objects with more members than this get a hash set for duplicate checks. */
#define LINEAR_MEMBER_LIMIT 8

/* ======================================================================
 * Nodes
 * ==================================================================== */

/* Magnitude and integrality without libm (the library links no -lm). */
static double magnitude(double x)
{
    return x < 0 ? -x : x;
}

/* 1 if x is finite, integral and |x| <= 2^53-1. */
static int is_safe_integer(double x)
{
    if (!isfinite(x) || magnitude(x) > SC_JSON_MAX_SAFE_INTEGER)
        return 0;
    return x == (double)(long long)x;
}

static sc_json *node_new(sc_json_type type)
{
    sc_json *v = calloc(1, sizeof *v);
    if (v != NULL)
        v->type = type;
    return v;
}

static char *copy_bytes(const char *s, size_t n)
{
    char *r = malloc(n + 1);
    if (r == NULL)
        return NULL;
    if (n > 0)
        memcpy(r, s, n);
    r[n] = '\0';
    return r;
}

static void link_child(sc_json *container, sc_json *v)
{
    v->next = NULL;
    if (container->last != NULL)
        container->last->next = v;
    else
        container->child = v;
    container->last = v;
    container->length++;
}

void sc_json_free(sc_json *v)
{
    if (v == NULL)
        return;
    /* Iterative: a work list threaded through the next pointers, so that
     * freeing a deeply nested tree cannot exhaust the stack.  The root's
     * siblings are not ours to free. */
    v->next = NULL;
    sc_json *work = v;
    while (work != NULL) {
        sc_json *cur = work;
        work = cur->next;
        if (cur->child != NULL && cur->last != NULL) {
            cur->last->next = work;
            work = cur->child;
        }
        free(cur->string);
        free(cur->key);
        free(cur);
    }
}

sc_json *sc_json_new_null(void)
{
    return node_new(SC_JSON_NULL);
}

sc_json *sc_json_new_bool(int value)
{
    sc_json *v = node_new(SC_JSON_BOOL);
    if (v != NULL)
        v->boolean = value ? 1 : 0;
    return v;
}

sc_json *sc_json_new_number(double value)
{
    sc_json *v = node_new(SC_JSON_NUMBER);
    if (v != NULL) {
        v->number = value;
        v->is_integer = is_safe_integer(value);
    }
    return v;
}

sc_json *sc_json_new_string_len(const char *s, size_t len)
{
    if (s == NULL && len > 0)
        return NULL;
    sc_json *v = node_new(SC_JSON_STRING);
    if (v == NULL)
        return NULL;
    v->string = copy_bytes(s, len);
    if (v->string == NULL) {
        free(v);
        return NULL;
    }
    v->length = len;
    return v;
}

sc_json *sc_json_new_string(const char *s)
{
    if (s == NULL)
        return NULL;
    return sc_json_new_string_len(s, strlen(s));
}

sc_json *sc_json_new_array(void)
{
    return node_new(SC_JSON_ARRAY);
}

sc_json *sc_json_new_object(void)
{
    return node_new(SC_JSON_OBJECT);
}

sc_json *sc_json_copy(const sc_json *v)
{
    if (v == NULL)
        return NULL;
    sc_json *c = node_new(v->type);
    if (c == NULL)
        return NULL;
    c->boolean = v->boolean;
    c->number = v->number;
    c->is_integer = v->is_integer;
    if (v->type == SC_JSON_STRING) {
        c->string = copy_bytes(v->string ? v->string : "", v->length);
        if (c->string == NULL) {
            free(c);
            return NULL;
        }
        c->length = v->length;
    }
    for (const sc_json *m = v->child; m != NULL; m = m->next) {
        sc_json *mc = sc_json_copy(m);
        if (mc == NULL) {
            sc_json_free(c);
            return NULL;
        }
        if (m->key != NULL) {
            mc->key = copy_bytes(m->key, m->key_length);
            if (mc->key == NULL) {
                sc_json_free(mc);
                sc_json_free(c);
                return NULL;
            }
            mc->key_length = m->key_length;
        }
        link_child(c, mc);
    }
    return c;
}

int sc_json_array_append(sc_json *array, sc_json *value)
{
    if (array == NULL || array->type != SC_JSON_ARRAY || value == NULL) {
        sc_json_free(value);
        return -1;
    }
    free(value->key);
    value->key = NULL;
    value->key_length = 0;
    link_child(array, value);
    return 0;
}

static int key_is(const sc_json *m, const char *key, size_t len)
{
    return m->key != NULL && m->key_length == len &&
           (len == 0 || memcmp(m->key, key, len) == 0);
}

/* The member named key and (if prev) the member before it. */
static sc_json *find_member(const sc_json *object, const char *key,
                            sc_json **prev)
{
    size_t len = strlen(key);
    sc_json *before = NULL;
    for (sc_json *m = object->child; m != NULL; before = m, m = m->next)
        if (key_is(m, key, len)) {
            if (prev != NULL)
                *prev = before;
            return m;
        }
    return NULL;
}

int sc_json_object_append(sc_json *object, const char *key, sc_json *value)
{
    if (object == NULL || object->type != SC_JSON_OBJECT || key == NULL ||
        value == NULL) {
        sc_json_free(value);
        return -1;
    }
    size_t len = strlen(key);
    char *k = copy_bytes(key, len);
    if (k == NULL) {
        sc_json_free(value);
        return -1;
    }
    free(value->key);
    value->key = k;
    value->key_length = len;
    link_child(object, value);
    return 0;
}

int sc_json_object_set(sc_json *object, const char *key, sc_json *value)
{
    if (object == NULL || object->type != SC_JSON_OBJECT || key == NULL ||
        value == NULL) {
        sc_json_free(value);
        return -1;
    }
    sc_json *prev = NULL;
    sc_json *old = find_member(object, key, &prev);
    if (old == NULL)
        return sc_json_object_append(object, key, value);
    /* Put value where old was; it inherits old's key. */
    free(value->key);
    value->key = old->key;
    value->key_length = old->key_length;
    old->key = NULL;
    value->next = old->next;
    if (prev != NULL)
        prev->next = value;
    else
        object->child = value;
    if (object->last == old)
        object->last = value;
    old->next = NULL;
    sc_json_free(old);
    return 0;
}

sc_json *sc_json_object_take(sc_json *object, const char *key)
{
    if (object == NULL || object->type != SC_JSON_OBJECT || key == NULL)
        return NULL;
    sc_json *prev = NULL;
    sc_json *m = find_member(object, key, &prev);
    if (m == NULL)
        return NULL;
    if (prev != NULL)
        prev->next = m->next;
    else
        object->child = m->next;
    if (object->last == m)
        object->last = prev;
    object->length--;
    m->next = NULL;
    free(m->key);
    m->key = NULL;
    m->key_length = 0;
    return m;
}

int sc_json_object_remove(sc_json *object, const char *key)
{
    sc_json *m = sc_json_object_take(object, key);
    if (m == NULL)
        return 0;
    sc_json_free(m);
    return 1;
}

/* ======================================================================
 * Looking
 * ==================================================================== */

sc_json *sc_json_get(const sc_json *object, const char *key)
{
    if (object == NULL || object->type != SC_JSON_OBJECT || key == NULL)
        return NULL;
    return find_member(object, key, NULL);
}

sc_json *sc_json_at(const sc_json *container, size_t i)
{
    if (container == NULL || (container->type != SC_JSON_ARRAY &&
                              container->type != SC_JSON_OBJECT))
        return NULL;
    sc_json *m = container->child;
    while (m != NULL && i > 0) {
        m = m->next;
        i--;
    }
    return m;
}

int sc_json_is(const sc_json *v, sc_json_type t)
{
    return v != NULL && v->type == t;
}

const char *sc_json_cstr(const sc_json *v)
{
    if (v == NULL || v->type != SC_JSON_STRING || v->string == NULL)
        return NULL;
    if (v->length > 0 && memchr(v->string, '\0', v->length) != NULL)
        return NULL;
    return v->string;
}

int sc_json_uint53(const sc_json *v, uint64_t *out)
{
    if (v == NULL || v->type != SC_JSON_NUMBER || !v->is_integer)
        return 0;
    double d = v->number;
    if (!(d >= 0.0) || signbit(d) || !is_safe_integer(d))
        return 0;
    if (out != NULL)
        *out = (uint64_t)d;
    return 1;
}

const char *sc_json_type_name(const sc_json *v)
{
    if (v == NULL)
        return "missing";
    switch (v->type) {
    case SC_JSON_NULL:
        return "null";
    case SC_JSON_BOOL:
        return "boolean";
    case SC_JSON_NUMBER:
        return "number";
    case SC_JSON_STRING:
        return "string";
    case SC_JSON_ARRAY:
        return "array";
    case SC_JSON_OBJECT:
        return "object";
    }
    return "unknown";
}

/* ======================================================================
 * Key sets (duplicate detection in the reader and the writer)
 * ==================================================================== */

typedef struct keyset {
    const sc_json **slots; /* open addressing, linear probing */
    size_t mask;           /* capacity - 1 (capacity a power of two) */
    size_t count;
    uint64_t seed;
} keyset;

static uint64_t key_hash(const char *k, size_t n, uint64_t seed)
{
    uint64_t h = 0xcbf29ce484222325u ^ seed;
    for (size_t i = 0; i < n; i++) {
        h ^= (unsigned char)k[i];
        h *= 0x100000001b3u;
    }
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdu;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53u;
    h ^= h >> 33;
    return h;
}

static void keyset_free(keyset *s)
{
    free(s->slots);
    s->slots = NULL;
    s->mask = 0;
    s->count = 0;
}

static const sc_json *keyset_find(const keyset *s, const char *k, size_t n)
{
    if (s->slots == NULL)
        return NULL;
    for (size_t i = key_hash(k, n, s->seed) & s->mask;; i = (i + 1) & s->mask) {
        const sc_json *m = s->slots[i];
        if (m == NULL)
            return NULL;
        if (m->key_length == n && (n == 0 || memcmp(m->key, k, n) == 0))
            return m;
    }
}

static void keyset_place(const sc_json **slots, size_t mask, const sc_json *m,
                         uint64_t seed)
{
    size_t i = key_hash(m->key, m->key_length, seed) & mask;
    while (slots[i] != NULL)
        i = (i + 1) & mask;
    slots[i] = m;
}

/* Add m (whose key is not yet present); -1 when out of memory. */
static int keyset_add(keyset *s, const sc_json *m)
{
    size_t cap = s->slots ? s->mask + 1 : 0;
    if ((s->count + 1) * 2 > cap) {
        size_t ncap = cap ? cap * 2 : 32;
        const sc_json **ns = calloc(ncap, sizeof *ns);
        if (ns == NULL)
            return -1;
        for (size_t i = 0; i < cap; i++)
            if (s->slots[i] != NULL)
                keyset_place(ns, ncap - 1, s->slots[i], s->seed);
        free(s->slots);
        s->slots = ns;
        s->mask = ncap - 1;
    }
    keyset_place(s->slots, s->mask, m, s->seed);
    s->count++;
    return 0;
}

/*
 * A printable one-line rendering of a key (or lexeme) for a message: JSON
 * style escapes for '"', '\' and control bytes, \xNN for bytes that are not
 * UTF-8, cut with "..." after about 60 bytes (never inside a character).
 */
static void quote_for_message(const char *k, size_t n, char *buf, size_t size)
{
    const unsigned char *u = (const unsigned char *)k;
    size_t o = 0;
    for (size_t i = 0; i < n;) {
        char piece[16];
        size_t step = 1;
        if (u[i] == '"' || u[i] == '\\') {
            snprintf(piece, sizeof piece, "\\%c", u[i]);
        } else if (u[i] < 0x20 || u[i] == 0x7f) {
            snprintf(piece, sizeof piece, "\\u%04x", u[i]);
        } else if (u[i] < 0x80) {
            snprintf(piece, sizeof piece, "%c", u[i]);
        } else {
            step = sc_utf8_sequence_length(u + i, n - i);
            if (step == 0) {
                step = 1;
                snprintf(piece, sizeof piece, "\\x%02x", u[i]);
            } else {
                memcpy(piece, u + i, step);
                piece[step] = '\0';
            }
        }
        size_t pl = strlen(piece);
        if (i >= 60 || o + pl + 4 > size) {
            if (o + 4 <= size) {
                memcpy(buf + o, "...", 3);
                o += 3;
            }
            break;
        }
        memcpy(buf + o, piece, pl);
        o += pl;
        i += step;
    }
    buf[o] = '\0';
}

/* ======================================================================
 * Reading
 * ==================================================================== */

typedef struct parser {
    const unsigned char *s;
    size_t len;
    size_t pos;
    sc_error *err;
    char *buf; /* scratch for the string being decoded */
    size_t buf_len;
    size_t buf_cap;
    uint64_t seed;
    int max_depth; /* SC_JSON_MAX_DEPTH, or more for a protocol envelope */
} parser;

static sc_code fail_at(parser *p, size_t offset, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static sc_code fail_at(parser *p, size_t offset, const char *fmt, ...)
{
    char what[SC_ERROR_MESSAGE_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return sc_error_set(p->err, SC_E_INVALID_JSON, NULL,
                        "invalid-json at byte %zu: %s", offset, what);
}

static sc_code parse_oom(parser *p)
{
    return sc_error_set(p->err, SC_E_OUT_OF_MEMORY, NULL,
                        "out of memory while reading JSON (at byte %zu)",
                        p->pos);
}

/* What sits at offset, for "found ..." messages. */
static const char *describe(const parser *p, size_t offset, char *buf,
                            size_t size)
{
    if (offset >= p->len)
        return "end of input";
    unsigned char c = p->s[offset];
    if (c == '/')
        return "'/' (comments are not allowed)";
    if (c == '\'')
        return "''' (single quotes are not allowed)";
    if (c > 0x20 && c < 0x7f)
        snprintf(buf, size, "'%c'", c);
    else
        snprintf(buf, size, "byte 0x%02x", c);
    return buf;
}

static int is_ws(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static int is_digit(unsigned char c)
{
    return c >= '0' && c <= '9';
}

static void skip_ws(parser *p)
{
    while (p->pos < p->len && is_ws(p->s[p->pos]))
        p->pos++;
}

static int starts_with(const parser *p, size_t at, const char *lit)
{
    size_t n = strlen(lit);
    return at <= p->len && p->len - at >= n && memcmp(p->s + at, lit, n) == 0;
}

static int buf_reserve(parser *p, size_t more)
{
    if (p->buf_len + more + 1 <= p->buf_cap)
        return 0;
    size_t need = p->buf_len + more + 1;
    size_t ncap = p->buf_cap ? p->buf_cap : 64;
    while (ncap < need)
        ncap *= 2;
    char *nb = realloc(p->buf, ncap);
    if (nb == NULL)
        return -1;
    p->buf = nb;
    p->buf_cap = ncap;
    return 0;
}

static int hex4(const parser *p, size_t at)
{
    if (at > p->len || p->len - at < 4)
        return -1;
    int v = 0;
    for (size_t i = 0; i < 4; i++) {
        unsigned char c = p->s[at + i];
        int d;
        if (c >= '0' && c <= '9')
            d = c - '0';
        else if (c >= 'a' && c <= 'f')
            d = c - 'a' + 10;
        else if (c >= 'A' && c <= 'F')
            d = c - 'A' + 10;
        else
            return -1;
        v = v * 16 + d;
    }
    return v;
}

static size_t put_utf8(char *out, unsigned long cp)
{
    if (cp < 0x80) {
        out[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (char)(0xC0 | (cp >> 6));
        out[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (char)(0xE0 | (cp >> 12));
        out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        out[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    out[0] = (char)(0xF0 | (cp >> 18));
    out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    out[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

/* Decode the string starting at the '"' at p->pos into p->buf/p->buf_len. */
static sc_code parse_string_raw(parser *p)
{
    const unsigned char *s = p->s;
    size_t open = p->pos;
    size_t i = open + 1;
    p->buf_len = 0;
    for (;;) {
        /* A run of bytes that need no attention. */
        size_t run = i;
        while (run < p->len && s[run] >= 0x20 && s[run] < 0x80 &&
               s[run] != '"' && s[run] != '\\')
            run++;
        if (run > i) {
            if (buf_reserve(p, run - i) != 0)
                return parse_oom(p);
            memcpy(p->buf + p->buf_len, s + i, run - i);
            p->buf_len += run - i;
            i = run;
        }
        if (i >= p->len)
            return fail_at(p, open, "unterminated string");
        unsigned char c = s[i];
        if (c == '"') {
            p->pos = i + 1;
            if (buf_reserve(p, 0) != 0)
                return parse_oom(p);
            p->buf[p->buf_len] = '\0';
            return SC_OK;
        }
        if (c < 0x20)
            return fail_at(p, i,
                           "raw control character 0x%02x in a string (it must be escaped)",
                           c);
        if (buf_reserve(p, 4) != 0)
            return parse_oom(p);
        if (c >= 0x80) {
            size_t n = sc_utf8_sequence_length(s + i, p->len - i);
            if (n == 0)
                return fail_at(p, i, "invalid UTF-8 (byte 0x%02x) in a string",
                               c);
            memcpy(p->buf + p->buf_len, s + i, n);
            p->buf_len += n;
            i += n;
            continue;
        }
        /* c == '\\' */
        if (i + 1 >= p->len)
            return fail_at(p, open, "unterminated string");
        unsigned char e = s[i + 1];
        char simple = 0;
        switch (e) {
        case '"':
            simple = '"';
            break;
        case '\\':
            simple = '\\';
            break;
        case '/':
            simple = '/';
            break;
        case 'b':
            simple = '\b';
            break;
        case 'f':
            simple = '\f';
            break;
        case 'n':
            simple = '\n';
            break;
        case 'r':
            simple = '\r';
            break;
        case 't':
            simple = '\t';
            break;
        case 'u':
            break;
        default: {
            char d[32];
            return fail_at(p, i, "invalid escape: backslash followed by %s",
                           describe(p, i + 1, d, sizeof d));
        }
        }
        if (e != 'u') {
            p->buf[p->buf_len++] = simple;
            i += 2;
            continue;
        }
        int cp = hex4(p, i + 2);
        if (cp < 0)
            return fail_at(p, i, "invalid \\u escape (four hex digits required)");
        unsigned long code = (unsigned long)cp;
        size_t used = 6;
        if (cp >= 0xDC00 && cp <= 0xDFFF)
            return fail_at(p, i, "lone low surrogate \\u%04X", (unsigned)cp);
        if (cp >= 0xD800 && cp <= 0xDBFF) {
            if (!starts_with(p, i + 6, "\\u"))
                return fail_at(p, i,
                               "lone high surrogate \\u%04X (no low surrogate escape follows)",
                               (unsigned)cp);
            int lo = hex4(p, i + 8);
            if (lo < 0)
                return fail_at(p, i + 6,
                               "invalid \\u escape (four hex digits required)");
            if (lo < 0xDC00 || lo > 0xDFFF)
                return fail_at(p, i,
                               "lone high surrogate \\u%04X (followed by \\u%04X, not a low surrogate)",
                               (unsigned)cp, (unsigned)lo);
            code = 0x10000ul + (((unsigned long)cp - 0xD800ul) << 10) +
                   ((unsigned long)lo - 0xDC00ul);
            used = 12;
        }
        p->buf_len += put_utf8(p->buf + p->buf_len, code);
        i += used;
    }
}

static sc_code parse_value(parser *p, int depth, sc_json **out);

static sc_code parse_number(parser *p, sc_json **out)
{
    const unsigned char *s = p->s;
    size_t start = p->pos, i = start;
    int neg = 0;
    if (s[i] == '-') {
        neg = 1;
        i++;
    }
    if (i >= p->len || !is_digit(s[i])) {
        if (starts_with(p, i, "Infinity"))
            return fail_at(p, start, "-Infinity is not allowed (numbers must be finite)");
        char d[32];
        return fail_at(p, i, "expected a digit after '-', found %s",
                       describe(p, i, d, sizeof d));
    }
    size_t int_start = i;
    if (s[i] == '0') {
        i++;
        if (i < p->len && is_digit(s[i]))
            return fail_at(p, int_start, "number with a leading zero");
    } else {
        while (i < p->len && is_digit(s[i]))
            i++;
    }
    size_t int_end = i;
    size_t frac_start = i, frac_end = i;
    int integer_literal = 1;
    if (i < p->len && s[i] == '.') {
        integer_literal = 0;
        i++;
        if (i >= p->len || !is_digit(s[i])) {
            char d[32];
            return fail_at(p, i, "expected a digit after '.' in a number, found %s",
                           describe(p, i, d, sizeof d));
        }
        frac_start = i;
        while (i < p->len && is_digit(s[i]))
            i++;
        frac_end = i;
    }
    long long exponent = 0;
    if (i < p->len && (s[i] == 'e' || s[i] == 'E')) {
        integer_literal = 0;
        i++;
        int eneg = 0;
        if (i < p->len && (s[i] == '+' || s[i] == '-')) {
            eneg = s[i] == '-';
            i++;
        }
        if (i >= p->len || !is_digit(s[i])) {
            char d[32];
            return fail_at(p, i, "expected a digit in the exponent of a number, found %s",
                           describe(p, i, d, sizeof d));
        }
        /* Saturate: beyond 10^15 the value is 0 or overflows either way. */
        while (i < p->len && is_digit(s[i])) {
            if (exponent < 1000000000000000LL)
                exponent = exponent * 10 + (s[i] - '0');
            i++;
        }
        if (eneg)
            exponent = -exponent;
    }
    size_t end = i;
    size_t n_int = int_end - int_start, n_frac = frac_end - frac_start;

    if (integer_literal &&
        (n_int > 16 ||
         (n_int == 16 && memcmp(s + int_start, "9007199254740991", 16) > 0))) {
        char shown[128];
        quote_for_message((const char *)s + start, end - start, shown,
                          sizeof shown);
        return fail_at(p, start, "integer literal %s exceeds 2^53-1", shown);
    }

    /* "<sign><int digits><frac digits>e<exponent - n_frac>": no decimal
     * point, so strtod reads it the same in every locale. */
    exponent -= (long long)n_frac;
    size_t need = 1 + n_int + n_frac + 32;
    char small[128];
    char *b = need <= sizeof small ? small : malloc(need);
    if (b == NULL)
        return parse_oom(p);
    size_t o = 0;
    if (neg)
        b[o++] = '-';
    memcpy(b + o, s + int_start, n_int);
    o += n_int;
    if (n_frac > 0)
        memcpy(b + o, s + frac_start, n_frac);
    o += n_frac;
    snprintf(b + o, need - o, "e%lld", exponent);
    double value = strtod(b, NULL);
    if (b != small)
        free(b);
    if (!isfinite(value)) {
        char shown[128];
        quote_for_message((const char *)s + start, end - start, shown,
                          sizeof shown);
        return fail_at(p, start, "number %s overflows a double", shown);
    }
    sc_json *v = node_new(SC_JSON_NUMBER);
    if (v == NULL)
        return parse_oom(p);
    v->number = value;
    v->is_integer = integer_literal;
    p->pos = end;
    *out = v;
    return SC_OK;
}

static sc_code parse_array(parser *p, int depth, sc_json **out)
{
    sc_json *arr = node_new(SC_JSON_ARRAY);
    if (arr == NULL)
        return parse_oom(p);
    p->pos++; /* '[' */
    skip_ws(p);
    if (p->pos < p->len && p->s[p->pos] == ']') {
        p->pos++;
        *out = arr;
        return SC_OK;
    }
    for (;;) {
        sc_json *item = NULL;
        sc_code rc = parse_value(p, depth, &item);
        if (rc != SC_OK) {
            sc_json_free(arr);
            return rc;
        }
        link_child(arr, item);
        skip_ws(p);
        if (p->pos < p->len && p->s[p->pos] == ',') {
            p->pos++;
            skip_ws(p);
            if (p->pos < p->len && p->s[p->pos] == ']') {
                sc_json_free(arr);
                return fail_at(p, p->pos, "trailing comma before ']'");
            }
            continue;
        }
        if (p->pos < p->len && p->s[p->pos] == ']') {
            p->pos++;
            *out = arr;
            return SC_OK;
        }
        char d[32];
        rc = fail_at(p, p->pos, "expected ',' or ']' after an array element, found %s",
                     describe(p, p->pos, d, sizeof d));
        sc_json_free(arr);
        return rc;
    }
}

static sc_code parse_object(parser *p, int depth, sc_json **out)
{
    sc_json *obj = node_new(SC_JSON_OBJECT);
    if (obj == NULL)
        return parse_oom(p);
    keyset seen = {NULL, 0, 0, p->seed};
    sc_code rc = SC_OK;
    char *key = NULL;
    char d[32];
    p->pos++; /* '{' */
    skip_ws(p);
    if (p->pos < p->len && p->s[p->pos] == '}') {
        p->pos++;
        *out = obj;
        return SC_OK;
    }
    for (;;) {
        if (p->pos >= p->len || p->s[p->pos] != '"') {
            rc = fail_at(p, p->pos, "expected a string key, found %s",
                         describe(p, p->pos, d, sizeof d));
            goto fail;
        }
        size_t key_at = p->pos;
        rc = parse_string_raw(p);
        if (rc != SC_OK)
            goto fail;
        size_t key_len = p->buf_len;

        /* Duplicate? */
        int dup = 0;
        if (seen.slots != NULL) {
            dup = keyset_find(&seen, p->buf, key_len) != NULL;
        } else {
            for (const sc_json *m = obj->child; m != NULL && !dup; m = m->next)
                dup = m->key_length == key_len &&
                      (key_len == 0 || memcmp(m->key, p->buf, key_len) == 0);
        }
        if (dup) {
            char shown[256];
            quote_for_message(p->buf, key_len, shown, sizeof shown);
            rc = fail_at(p, key_at, "duplicate key \"%s\"", shown);
            goto fail;
        }
        key = copy_bytes(p->buf, key_len);
        if (key == NULL) {
            rc = parse_oom(p);
            goto fail;
        }

        skip_ws(p);
        if (p->pos >= p->len || p->s[p->pos] != ':') {
            rc = fail_at(p, p->pos, "expected ':' after an object key, found %s",
                         describe(p, p->pos, d, sizeof d));
            goto fail;
        }
        p->pos++;
        sc_json *value = NULL;
        rc = parse_value(p, depth, &value);
        if (rc != SC_OK)
            goto fail;
        value->key = key;
        value->key_length = key_len;
        key = NULL;
        link_child(obj, value);

        if (seen.slots != NULL) {
            if (keyset_add(&seen, value) != 0) {
                rc = parse_oom(p);
                goto fail;
            }
        } else if (obj->length > LINEAR_MEMBER_LIMIT) {
            for (const sc_json *m = obj->child; m != NULL; m = m->next)
                if (keyset_add(&seen, m) != 0) {
                    rc = parse_oom(p);
                    goto fail;
                }
        }

        skip_ws(p);
        if (p->pos < p->len && p->s[p->pos] == ',') {
            p->pos++;
            skip_ws(p);
            if (p->pos < p->len && p->s[p->pos] == '}') {
                rc = fail_at(p, p->pos, "trailing comma before '}'");
                goto fail;
            }
            continue;
        }
        if (p->pos < p->len && p->s[p->pos] == '}') {
            p->pos++;
            keyset_free(&seen);
            *out = obj;
            return SC_OK;
        }
        rc = fail_at(p, p->pos, "expected ',' or '}' after an object member, found %s",
                     describe(p, p->pos, d, sizeof d));
        goto fail;
    }
fail:
    free(key);
    keyset_free(&seen);
    sc_json_free(obj);
    return rc;
}

/* depth: how many containers enclose the value (0 at the top). */
static sc_code parse_value(parser *p, int depth, sc_json **out)
{
    char d[32];
    skip_ws(p);
    if (p->pos >= p->len)
        return fail_at(p, p->pos, "unexpected end of input, expected a value");
    unsigned char c = p->s[p->pos];
    switch (c) {
    case '{':
    case '[':
        if (depth >= p->max_depth)
            return fail_at(p, p->pos, "nesting deeper than %d levels",
                           p->max_depth);
        return c == '{' ? parse_object(p, depth + 1, out)
                        : parse_array(p, depth + 1, out);
    case '"': {
        size_t at = p->pos;
        sc_code rc = parse_string_raw(p);
        if (rc != SC_OK)
            return rc;
        sc_json *v = node_new(SC_JSON_STRING);
        if (v != NULL) {
            v->string = copy_bytes(p->buf, p->buf_len);
            if (v->string == NULL) {
                free(v);
                v = NULL;
            }
        }
        if (v == NULL) {
            p->pos = at;
            return parse_oom(p);
        }
        v->length = p->buf_len;
        *out = v;
        return SC_OK;
    }
    case 't':
    case 'f':
    case 'n': {
        const char *lit = c == 't' ? "true" : c == 'f' ? "false" : "null";
        if (!starts_with(p, p->pos, lit))
            return fail_at(p, p->pos, "invalid literal (expected %s)", lit);
        sc_json *v = c == 'n' ? sc_json_new_null() : sc_json_new_bool(c == 't');
        if (v == NULL)
            return parse_oom(p);
        p->pos += strlen(lit);
        *out = v;
        return SC_OK;
    }
    case '-':
    case '0':
    case '1':
    case '2':
    case '3':
    case '4':
    case '5':
    case '6':
    case '7':
    case '8':
    case '9':
        return parse_number(p, out);
    case '+':
        return fail_at(p, p->pos, "a number may not start with '+'");
    case '.':
        return fail_at(p, p->pos, "a number may not start with '.'");
    default:
        break;
    }
    if (starts_with(p, p->pos, "NaN"))
        return fail_at(p, p->pos, "NaN is not allowed (numbers must be finite)");
    if (starts_with(p, p->pos, "Infinity"))
        return fail_at(p, p->pos, "Infinity is not allowed (numbers must be finite)");
    return fail_at(p, p->pos, "expected a value, found %s",
                   describe(p, p->pos, d, sizeof d));
}

sc_code sc_json_parse(const char *bytes, size_t len, sc_json **out,
                      sc_error *err)
{
    return sc_json_parse_depth(bytes, len, SC_JSON_MAX_DEPTH, out, err);
}

sc_code sc_json_parse_depth(const char *bytes, size_t len, int max_depth,
                            sc_json **out, sc_error *err)
{
    if (out != NULL)
        *out = NULL;
    if (out == NULL || (bytes == NULL && len > 0) || max_depth < 1 ||
        max_depth > SC_JSON_ENVELOPE_DEPTH)
        return sc_error_set(err, SC_E_USAGE, NULL,
                            "sc_json_parse: no input, no output or a depth "
                            "outside 1..%d", SC_JSON_ENVELOPE_DEPTH);
    parser p;
    memset(&p, 0, sizeof p);
    p.max_depth = max_depth;
    p.s = (const unsigned char *)bytes;
    p.len = len;
    p.err = err;
    /* Only the hash table layout depends on the seed, never a result. */
    p.seed = (uint64_t)(uintptr_t)&p ^ ((uint64_t)len << 17);

    if (len == 0)
        return fail_at(&p, 0, "empty input");
    if (len >= 3 && p.s[0] == 0xEF && p.s[1] == 0xBB && p.s[2] == 0xBF)
        return fail_at(&p, 0, "byte-order mark (EF BB BF) is not allowed");
    skip_ws(&p);
    if (p.pos >= len)
        return fail_at(&p, p.pos, "no value (the input is only whitespace)");
    sc_json *root = NULL;
    sc_code rc = parse_value(&p, 0, &root);
    if (rc == SC_OK) {
        skip_ws(&p);
        if (p.pos < len) {
            char d[32];
            rc = fail_at(&p, p.pos, "trailing %s after the JSON value",
                         describe(&p, p.pos, d, sizeof d));
            sc_json_free(root);
            root = NULL;
        }
    }
    free(p.buf);
    if (rc != SC_OK)
        return rc;
    *out = root;
    sc_error_clear(err);
    return SC_OK;
}

sc_code sc_json_parse_file(const char *path, sc_json **out, sc_error *err)
{
    return sc_json_parse_file_depth(path, SC_JSON_MAX_DEPTH, out, err);
}

sc_code sc_json_parse_file_depth(const char *path, int max_depth, sc_json **out,
                                 sc_error *err)
{
    if (out != NULL)
        *out = NULL;
    char *bytes = NULL;
    size_t len = 0;
    sc_code rc = sc_file_read(path, &bytes, &len, NULL, err);
    if (rc != SC_OK)
        return rc;
    rc = sc_json_parse_depth(bytes, len, max_depth, out, err);
    free(bytes);
    if (rc != SC_OK && err != NULL) {
        char msg[SC_ERROR_MESSAGE_MAX];
        memcpy(msg, err->message, sizeof msg);
        sc_error_set(err, rc, path, "%s: %s", path, msg);
    }
    return rc;
}

/* ======================================================================
 * Equality
 * ==================================================================== */

static int member_cmp(const void *a, const void *b)
{
    const sc_json *x = *(const sc_json *const *)a;
    const sc_json *y = *(const sc_json *const *)b;
    size_t n = x->key_length < y->key_length ? x->key_length : y->key_length;
    int c = n ? memcmp(x->key, y->key, n) : 0;
    if (c != 0)
        return c;
    return (x->key_length > y->key_length) - (x->key_length < y->key_length);
}

static int keys_same(const sc_json *x, const sc_json *y)
{
    return x->key_length == y->key_length &&
           (x->key_length == 0 || memcmp(x->key, y->key, x->key_length) == 0);
}

static int objects_equal(const sc_json *a, const sc_json *b)
{
    size_t n = a->length;
    if (n > LINEAR_MEMBER_LIMIT) {
        const sc_json **sa = malloc(n * sizeof *sa);
        const sc_json **sb = malloc(n * sizeof *sb);
        if (sa != NULL && sb != NULL) {
            size_t i = 0;
            for (const sc_json *m = a->child; m != NULL && i < n; m = m->next)
                sa[i++] = m;
            size_t j = 0;
            for (const sc_json *m = b->child; m != NULL && j < n; m = m->next)
                sb[j++] = m;
            int eq = i == n && j == n;
            if (eq) {
                qsort(sa, n, sizeof *sa, member_cmp);
                qsort(sb, n, sizeof *sb, member_cmp);
                for (size_t k = 0; k < n && eq; k++)
                    eq = keys_same(sa[k], sb[k]) && sc_json_equal(sa[k], sb[k]);
            }
            free(sa);
            free(sb);
            return eq;
        }
        free(sa);
        free(sb);
        /* Out of memory: fall through to the slow way. */
    }
    for (const sc_json *m = a->child; m != NULL; m = m->next) {
        const sc_json *o = b->child;
        while (o != NULL && !keys_same(m, o))
            o = o->next;
        if (o == NULL || !sc_json_equal(m, o))
            return 0;
    }
    return 1;
}

int sc_json_equal(const sc_json *a, const sc_json *b)
{
    if (a == b)
        return 1;
    if (a == NULL || b == NULL || a->type != b->type)
        return 0;
    switch (a->type) {
    case SC_JSON_NULL:
        return 1;
    case SC_JSON_BOOL:
        return !a->boolean == !b->boolean;
    case SC_JSON_NUMBER:
        return a->number == b->number;
    case SC_JSON_STRING:
        return a->length == b->length &&
               (a->length == 0 || memcmp(a->string, b->string, a->length) == 0);
    case SC_JSON_ARRAY: {
        if (a->length != b->length)
            return 0;
        const sc_json *x = a->child, *y = b->child;
        for (; x != NULL && y != NULL; x = x->next, y = y->next)
            if (!sc_json_equal(x, y))
                return 0;
        return x == NULL && y == NULL;
    }
    case SC_JSON_OBJECT:
        if (a->length != b->length)
            return 0;
        return objects_equal(a, b);
    }
    return 0;
}

/* ======================================================================
 * Numbers as ECMAScript Number::toString
 * ==================================================================== */

/* a > 0 and finite as "<digits>e<exp>" (value digits × 10^exp) → double. */
static double digits_value(const char *digits, size_t k, int exp10)
{
    char b[48];
    memcpy(b, digits, k);
    snprintf(b + k, sizeof b - k, "e%d", exp10);
    return strtod(b, NULL);
}

/* Add delta (+1 or -1) to the last digit of a k-digit string; 0 if the
 * result would change the number of digits (those were tried earlier). */
static int nudge(char *d, size_t k, int delta)
{
    size_t i = k;
    while (i > 0) {
        i--;
        if (delta > 0) {
            if (d[i] != '9') {
                d[i]++;
                return 1;
            }
            d[i] = '0';
        } else {
            if (d[i] != '0') {
                d[i]--;
                return !(i == 0 && d[0] == '0');
            }
            d[i] = '9';
        }
    }
    return 0;
}

/*
 * The shortest decimal digit string that reads back as a (a > 0, finite),
 * and among those the nearest: digits[0..*k), with a = 0.d1d2... × 10^*n.
 */
static void shortest_digits(double a, char digits[24], size_t *k, int *n)
{
    for (int prec = 1; prec <= 17; prec++) {
        char t[64];
        snprintf(t, sizeof t, "%.*e", prec - 1, a);
        /* Take the digits before the 'e' (skipping the locale's decimal
         * point, whatever it is) and the exponent after it. */
        size_t nd = 0;
        const char *q = t;
        for (; *q != '\0' && *q != 'e' && *q != 'E'; q++)
            if (*q >= '0' && *q <= '9' && nd < 23)
                digits[nd++] = *q;
        int e = (*q != '\0') ? atoi(q + 1) : 0; /* sign and digits only */
        int exp10 = e - (prec - 1);             /* value of the last digit */
        if (digits_value(digits, nd, exp10) == a) {
            *k = nd;
            *n = e + 1;
            break;
        }
        /* The nearest prec-digit decimal can miss while a neighbour hits
         * (at a power of two the rounding interval is lopsided). */
        char alt[24];
        int found = 0;
        for (int delta = 1; delta >= -1 && !found; delta -= 2) {
            memcpy(alt, digits, nd);
            if (nudge(alt, nd, delta) && digits_value(alt, nd, exp10) == a) {
                memcpy(digits, alt, nd);
                found = 1;
            }
        }
        if (found || prec == 17) {
            *k = nd;
            *n = e + 1;
            break;
        }
    }
    while (*k > 1 && digits[*k - 1] == '0') /* never needed; harmless */
        (*k)--;
}

/* Format per ECMA-262 Number::toString(x).  out must hold 40 bytes. */
static size_t format_ecma(double x, char *out)
{
    if (isnan(x))
        return (size_t)sprintf(out, "NaN");
    if (isinf(x))
        return (size_t)sprintf(out, x < 0 ? "-Infinity" : "Infinity");
    if (x == 0)
        return (size_t)sprintf(out, "0");
    size_t o = 0;
    if (x < 0)
        out[o++] = '-';
    double a = magnitude(x);
    if (is_safe_integer(a)) {
        /* Safe integers (the common case) are their own plain digits. */
        char rev[20];
        size_t r = 0;
        unsigned long long u = (unsigned long long)a;
        do {
            rev[r++] = (char)('0' + u % 10);
            u /= 10;
        } while (u != 0);
        while (r > 0)
            out[o++] = rev[--r];
        out[o] = '\0';
        return o;
    }
    char digits[24];
    size_t k = 0;
    int n = 0;
    shortest_digits(a, digits, &k, &n);
    /* 1e-6 <= a < 1e21 plain, except from 2^53 up (docs/format-v3.md 2.2) */
    if (n >= -5 && n <= 21 && a < 9007199254740992.0) {
        if ((int)k <= n) {
            memcpy(out + o, digits, k);
            o += k;
            for (int z = (int)k; z < n; z++)
                out[o++] = '0';
        } else if (n > 0) {
            memcpy(out + o, digits, (size_t)n);
            o += (size_t)n;
            out[o++] = '.';
            memcpy(out + o, digits + n, k - (size_t)n);
            o += k - (size_t)n;
        } else {
            out[o++] = '0';
            out[o++] = '.';
            for (int z = 0; z < -n; z++)
                out[o++] = '0';
            memcpy(out + o, digits, k);
            o += k;
        }
    } else {
        out[o++] = digits[0];
        if (k > 1) {
            out[o++] = '.';
            memcpy(out + o, digits + 1, k - 1);
            o += k - 1;
        }
        int e = n - 1;
        o += (size_t)sprintf(out + o, "e%c%d", e < 0 ? '-' : '+', e < 0 ? -e : e);
    }
    out[o] = '\0';
    return o;
}

size_t sc_json_format_number(double value, char *buf, size_t size)
{
    char t[40];
    size_t n = format_ecma(value, t);
    if (buf != NULL && size > 0) {
        size_t c = n < size ? n : size - 1;
        memcpy(buf, t, c);
        buf[c] = '\0';
    }
    return n;
}

/* ======================================================================
 * Writing
 * ==================================================================== */

typedef struct writer {
    char *d;
    size_t n;
    size_t cap;
    int pretty;
    int max_depth;
    sc_code rc; /* first failure */
    sc_error *err;
} writer;

static void put(writer *w, const char *s, size_t n)
{
    if (w->rc != SC_OK)
        return;
    if (w->n + n + 1 > w->cap) {
        size_t ncap = w->cap ? w->cap : 256;
        while (ncap < w->n + n + 1)
            ncap *= 2;
        char *nd = realloc(w->d, ncap);
        if (nd == NULL) {
            w->rc = sc_error_set(w->err, SC_E_OUT_OF_MEMORY, NULL,
                                 "out of memory while writing JSON");
            return;
        }
        w->d = nd;
        w->cap = ncap;
    }
    memcpy(w->d + w->n, s, n);
    w->n += n;
}

static void put_c(writer *w, char c)
{
    put(w, &c, 1);
}

static void write_fail(writer *w, const char *what)
{
    if (w->rc == SC_OK)
        w->rc = sc_error_set(w->err, SC_E_INVALID_JSON, NULL,
                             "cannot write JSON: %s", what);
}

static void write_string(writer *w, const char *s, size_t len)
{
    if (len > 0 && (s == NULL || !sc_utf8_valid(s, len))) {
        write_fail(w, "a string or key is not valid UTF-8");
        return;
    }
    const unsigned char *u = (const unsigned char *)s;
    put_c(w, '"');
    size_t i = 0;
    while (i < len) {
        size_t run = i;
        while (run < len && u[run] >= 0x20 && u[run] != '"' && u[run] != '\\')
            run++;
        if (run > i) {
            put(w, s + i, run - i);
            i = run;
            continue;
        }
        unsigned char c = u[i++];
        switch (c) {
        case '"':
            put(w, "\\\"", 2);
            break;
        case '\\':
            put(w, "\\\\", 2);
            break;
        case '\b':
            put(w, "\\b", 2);
            break;
        case '\f':
            put(w, "\\f", 2);
            break;
        case '\n':
            put(w, "\\n", 2);
            break;
        case '\r':
            put(w, "\\r", 2);
            break;
        case '\t':
            put(w, "\\t", 2);
            break;
        default: {
            static const char hex[] = "0123456789abcdef";
            char e[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
            put(w, e, sizeof e);
            break;
        }
        }
    }
    put_c(w, '"');
}

static void newline_indent(writer *w, int level)
{
    if (!w->pretty)
        return;
    put_c(w, '\n');
    for (int i = 0; i < level; i++)
        put(w, "  ", 2);
}

static int has_duplicate_keys(writer *w, const sc_json *obj)
{
    if (obj->length <= LINEAR_MEMBER_LIMIT) {
        for (const sc_json *m = obj->child; m != NULL; m = m->next)
            for (const sc_json *o = m->next; o != NULL; o = o->next)
                if (keys_same(m, o))
                    return 1;
        return 0;
    }
    keyset set = {NULL, 0, 0, (uint64_t)(uintptr_t)obj};
    int dup = 0;
    for (const sc_json *m = obj->child; m != NULL && !dup; m = m->next) {
        if (keyset_find(&set, m->key, m->key_length) != NULL) {
            dup = 1;
        } else if (keyset_add(&set, m) != 0) {
            w->rc = sc_error_set(w->err, SC_E_OUT_OF_MEMORY, NULL,
                                 "out of memory while writing JSON");
            break;
        }
    }
    keyset_free(&set);
    return dup;
}

/* depth: containers enclosing v (0 at the top). */
static void write_value(writer *w, const sc_json *v, int depth)
{
    if (w->rc != SC_OK)
        return;
    switch (v->type) {
    case SC_JSON_NULL:
        put(w, "null", 4);
        return;
    case SC_JSON_BOOL:
        if (v->boolean)
            put(w, "true", 4);
        else
            put(w, "false", 5);
        return;
    case SC_JSON_NUMBER: {
        if (!isfinite(v->number)) {
            write_fail(w, "a number is not finite");
            return;
        }
        char t[40];
        size_t n = format_ecma(v->number, t);
        put(w, t, n);
        return;
    }
    case SC_JSON_STRING:
        write_string(w, v->string, v->length);
        return;
    case SC_JSON_ARRAY:
    case SC_JSON_OBJECT:
        break;
    default:
        write_fail(w, "a node has an unknown type");
        return;
    }
    int is_obj = v->type == SC_JSON_OBJECT;
    if (depth >= w->max_depth) {
        char what[64];
        snprintf(what, sizeof what, "nesting deeper than %d levels",
                 w->max_depth);
        write_fail(w, what);
        return;
    }
    if (v->child == NULL) {
        put(w, is_obj ? "{}" : "[]", 2);
        return;
    }
    if (is_obj && has_duplicate_keys(w, v)) {
        write_fail(w, "an object has a duplicate key");
        return;
    }
    put_c(w, is_obj ? '{' : '[');
    for (const sc_json *m = v->child; m != NULL && w->rc == SC_OK; m = m->next) {
        newline_indent(w, depth + 1);
        if (is_obj) {
            write_string(w, m->key ? m->key : "", m->key ? m->key_length : 0);
            if (w->pretty)
                put(w, ": ", 2);
            else
                put_c(w, ':');
        }
        write_value(w, m, depth + 1);
        if (m->next != NULL)
            put_c(w, ',');
    }
    newline_indent(w, depth);
    put_c(w, is_obj ? '}' : ']');
}

static sc_code write_any(const sc_json *v, int pretty, int max_depth, char **out,
                         size_t *len, sc_error *err)
{
    if (out != NULL)
        *out = NULL;
    if (len != NULL)
        *len = 0;
    if (v == NULL || out == NULL || max_depth < 1 || max_depth > SC_JSON_ENVELOPE_DEPTH)
        return sc_error_set(err, SC_E_USAGE, NULL,
                            "sc_json_write: no tree, no output or a depth outside 1..%d",
                            SC_JSON_ENVELOPE_DEPTH);
    writer w;
    memset(&w, 0, sizeof w);
    w.pretty = pretty;
    w.max_depth = max_depth;
    w.err = err;
    w.rc = SC_OK;
    write_value(&w, v, 0);
    if (pretty)
        put_c(&w, '\n');
    put(&w, "", 0); /* make sure there is room for the NUL */
    if (w.rc != SC_OK) {
        free(w.d);
        return w.rc;
    }
    w.d[w.n] = '\0';
    *out = w.d;
    if (len != NULL)
        *len = w.n;
    sc_error_clear(err);
    return SC_OK;
}

sc_code sc_json_write(const sc_json *v, char **out, size_t *len,
                      sc_error *err)
{
    return write_any(v, 1, SC_JSON_MAX_DEPTH, out, len, err);
}

sc_code sc_json_write_compact(const sc_json *v, char **out, size_t *len,
                              sc_error *err)
{
    return write_any(v, 0, SC_JSON_MAX_DEPTH, out, len, err);
}

sc_code sc_json_write_depth(const sc_json *v, int compact, int max_depth,
                           char **out, size_t *len, sc_error *err)
{
    return write_any(v, !compact, max_depth, out, len, err);
}

sc_code sc_json_write_file(const sc_json *v, const char *path, unsigned mode,
                           sc_error *err)
{
    char *text = NULL;
    size_t len = 0;
    sc_code rc = sc_json_write(v, &text, &len, err);
    if (rc != SC_OK)
        return rc;
    rc = sc_file_write_atomic(path, text, len, mode, err);
    free(text);
    return rc;
}

void sc_json_describe_value(const sc_json *v, char *buf, size_t size)
{
    if (size == 0)
        return;
    if (!sc_json_is(v, SC_JSON_NUMBER)) {
        snprintf(buf, size, "of type %s", sc_json_type_name(v));
        return;
    }
    size_t n = sc_json_format_number(v->number, buf, size);
    if (!v->is_integer && strpbrk(buf, ".e") == NULL && n + 3 <= size)
        memcpy(buf + n, ".0", 3);
}
