/* SPDX-License-Identifier: Apache-2.0 */
/*
 * wheel_install.c — install a PyPI wheel into a prefix (wheel_install.h).
 *
 * Guarantees: see the header.  In short: every check (file-name tags,
 * WHEEL, Requires-Python, RECORD against every member's SHA-256 and size,
 * safe names, the .data/ schemes, entry points) passes before anything
 * lands in the prefix; the wheel is extracted into a staging directory
 * inside the prefix (same file system) with archive_read.h's reader, the
 * generated files (launchers, INSTALLER, RECORD) are written there too, and
 * only then is each file renamed into place in byte order of its path.
 * Output bytes and modes are functions of the wheel's bytes and the
 * sc_wheel_env alone.  No global state: reentrant.
 */
#define _POSIX_C_SOURCE 200809L

#include "scrollcase/wheel_install.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "scrollcase/archive_read.h"
#include "scrollcase/base64.h"
#include "scrollcase/conda_link.h"
#include "scrollcase/digest.h"
#include "scrollcase/file.h"
#include "scrollcase/path.h"
#include "scrollcase/strbuf.h"
#include "scrollcase/wheel.h"

/* Largest WHEEL, METADATA, RECORD or entry_points.txt read into memory. */
#define META_MAX ((size_t)64 << 20)

static int is_digit(char c) { return c >= '0' && c <= '9'; }
static char lower(char c) { return (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c; }
static int is_blank(char c) { return c == ' ' || c == '\t'; }

/* v with room for one more element (n used of *cap, each size bytes): v
 * itself or its reallocation; NULL when out of memory (v is then kept). */
static void *grow(void *v, size_t *cap, size_t n, size_t size)
{
    if (n < *cap)
        return v;
    size_t nc = *cap ? *cap * 2 : 16;
    if (nc > SIZE_MAX / size)
        return NULL;
    void *nv = realloc(v, nc * size);
    if (nv != NULL)
        *cap = nc;
    return nv;
}

/* ---- PEP 440 versions ---------------------------------------------------------------- */

#define REL_MAX 16
#define LOCAL_MAX 16

typedef struct pv {
    long epoch;
    long rel[REL_MAX];
    int nrel;
    int pre;        /* -1 none; 0 a, 1 b, 2 rc */
    long pre_n;
    long post;      /* -1 none */
    long dev;       /* -1 none */
    const char *local; /* into the text; NULL none */
    size_t local_len;
} pv;

/* A number of at most 9 digits (so no overflow); -1 when there is none. */
static long num(const char *s, size_t n, size_t *i)
{
    size_t k = *i;
    long v = 0;
    int digits = 0;
    while (k < n && is_digit(s[k])) {
        if (digits == 9)
            return -2;
        v = v * 10 + (s[k++] - '0');
        digits++;
    }
    if (digits == 0)
        return -1;
    *i = k;
    return v;
}

static int match_word(const char *s, size_t n, size_t *i, const char *w)
{
    size_t k = strlen(w);
    if (n - *i < k)
        return 0;
    for (size_t j = 0; j < k; j++)
        if (lower(s[*i + j]) != w[j])
            return 0;
    *i += k;
    return 1;
}

static int is_sep(char c) { return c == '.' || c == '-' || c == '_'; }

/* Parse a PEP 440 version (normalised spellings accepted).  0 ok, -1 not. */
static int pv_parse(const char *s, size_t n, pv *v)
{
    memset(v, 0, sizeof *v);
    v->pre = -1;
    v->post = -1;
    v->dev = -1;
    size_t i = 0;
    while (i < n && is_blank(s[i]))
        i++;
    while (n > i && is_blank(s[n - 1]))
        n--;
    if (i < n && lower(s[i]) == 'v')
        i++;
    long a = num(s, n, &i);
    if (a < 0)
        return -1;
    if (i < n && s[i] == '!') {
        v->epoch = a;
        i++;
        a = num(s, n, &i);
        if (a < 0)
            return -1;
    }
    v->rel[v->nrel++] = a;
    while (i + 1 < n && s[i] == '.' && is_digit(s[i + 1])) {
        i++;
        a = num(s, n, &i);
        if (a < 0 || v->nrel == REL_MAX)
            return -1;
        v->rel[v->nrel++] = a;
    }
    /* pre-release */
    {
        size_t k = i;
        if (k < n && is_sep(s[k]))
            k++;
        int kind = -1;
        if (match_word(s, n, &k, "alpha"))
            kind = 0;
        else if (match_word(s, n, &k, "beta"))
            kind = 1;
        else if (match_word(s, n, &k, "preview") || match_word(s, n, &k, "pre") ||
                 match_word(s, n, &k, "rc"))
            kind = 2;
        else if (match_word(s, n, &k, "a"))
            kind = 0;
        else if (match_word(s, n, &k, "b"))
            kind = 1;
        else if (match_word(s, n, &k, "c"))
            kind = 2;
        if (kind >= 0) {
            if (k < n && is_sep(s[k]) && k + 1 < n && is_digit(s[k + 1]))
                k++;
            long pn = num(s, n, &k);
            if (pn == -2)
                return -1;
            v->pre = kind;
            v->pre_n = pn < 0 ? 0 : pn;
            i = k;
        }
    }
    /* post-release: "-N", or [sep](post|rev|r)[sep]N */
    {
        size_t k = i;
        if (k + 1 < n && s[k] == '-' && is_digit(s[k + 1])) {
            k++;
            v->post = num(s, n, &k);
            if (v->post < 0)
                return -1;
            i = k;
        } else {
            if (k < n && is_sep(s[k]))
                k++;
            if (match_word(s, n, &k, "post") || match_word(s, n, &k, "rev") ||
                match_word(s, n, &k, "r")) {
                if (k < n && is_sep(s[k]) && k + 1 < n && is_digit(s[k + 1]))
                    k++;
                long pn = num(s, n, &k);
                if (pn == -2)
                    return -1;
                v->post = pn < 0 ? 0 : pn;
                i = k;
            }
        }
    }
    /* dev-release */
    {
        size_t k = i;
        if (k < n && is_sep(s[k]))
            k++;
        if (match_word(s, n, &k, "dev")) {
            if (k < n && is_sep(s[k]) && k + 1 < n && is_digit(s[k + 1]))
                k++;
            long dn = num(s, n, &k);
            if (dn == -2)
                return -1;
            v->dev = dn < 0 ? 0 : dn;
            i = k;
        }
    }
    if (i < n && s[i] == '+') {
        i++;
        size_t start = i;
        if (i == n)
            return -1;
        while (i < n) {
            char c = s[i];
            if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || is_digit(c) ||
                  is_sep(c)))
                return -1;
            if (is_sep(c) && (i == start || is_sep(s[i - 1]) || i + 1 == n))
                return -1;
            i++;
        }
        v->local = s + start;
        v->local_len = n - start;
    }
    return i == n ? 0 : -1;
}

static int cmp_long(long a, long b) { return a < b ? -1 : a > b; }

/* Compare two local versions segment by segment (numeric > alphanumeric). */
static int cmp_local(const pv *a, const pv *b)
{
    if (a->local == NULL || b->local == NULL)
        return (a->local != NULL) - (b->local != NULL);
    size_t i = 0, j = 0;
    for (;;) {
        if (i >= a->local_len || j >= b->local_len)
            return (i < a->local_len) - (j < b->local_len);
        size_t ie = i, je = j;
        while (ie < a->local_len && !is_sep(a->local[ie]))
            ie++;
        while (je < b->local_len && !is_sep(b->local[je]))
            je++;
        int an = 1, bn = 1;
        for (size_t k = i; k < ie; k++)
            an &= is_digit(a->local[k]);
        for (size_t k = j; k < je; k++)
            bn &= is_digit(b->local[k]);
        int c = 0;
        if (an && bn) {
            while (i < ie - 1 && a->local[i] == '0')
                i++;
            while (j < je - 1 && b->local[j] == '0')
                j++;
            c = cmp_long((long)(ie - i), (long)(je - j));
            for (size_t k = 0; c == 0 && k < ie - i; k++)
                c = cmp_long(a->local[i + k], b->local[j + k]);
        } else if (an != bn) {
            c = an ? 1 : -1;
        } else {
            size_t la = ie - i, lb = je - j;
            for (size_t k = 0; c == 0 && k < la && k < lb; k++)
                c = cmp_long(lower(a->local[i + k]), lower(b->local[j + k]));
            if (c == 0)
                c = cmp_long((long)la, (long)lb);
        }
        if (c != 0)
            return c;
        i = ie + 1;
        j = je + 1;
    }
}

/* PEP 440 order.  with_local 0: local versions ignored. */
static int pv_cmp(const pv *a, const pv *b, int with_local)
{
    int c = cmp_long(a->epoch, b->epoch);
    if (c)
        return c;
    int n = a->nrel > b->nrel ? a->nrel : b->nrel;
    for (int i = 0; i < n; i++) {
        c = cmp_long(i < a->nrel ? a->rel[i] : 0, i < b->nrel ? b->rel[i] : 0);
        if (c)
            return c;
    }
    /* pre: a dev release of a final sorts before every pre-release */
    long ap = a->pre >= 0 ? a->pre * 1000000000L + a->pre_n
                          : (a->post < 0 && a->dev >= 0 ? -1 : 3000000000L);
    long bp = b->pre >= 0 ? b->pre * 1000000000L + b->pre_n
                          : (b->post < 0 && b->dev >= 0 ? -1 : 3000000000L);
    c = cmp_long(ap, bp);
    if (c)
        return c;
    c = cmp_long(a->post, b->post);
    if (c)
        return c;
    c = cmp_long(a->dev < 0 ? 2000000000L : a->dev, b->dev < 0 ? 2000000000L : b->dev);
    if (c)
        return c;
    return with_local ? cmp_local(a, b) : 0;
}

static int pv_is_pre(const pv *v) { return v->pre >= 0 || v->dev >= 0; }

/* "==V.*": candidate's release (and epoch) starts with V's release. */
static int prefix_match(const pv *cand, const pv *spec)
{
    if (cand->epoch != spec->epoch)
        return 0;
    for (int i = 0; i < spec->nrel; i++)
        if ((i < cand->nrel ? cand->rel[i] : 0) != spec->rel[i])
            return 0;
    /* a prefix with a pre/post/dev part must match it exactly too */
    if (spec->pre >= 0 && (cand->pre != spec->pre || cand->pre_n != spec->pre_n))
        return 0;
    if (spec->post >= 0 && cand->post != spec->post)
        return 0;
    if (spec->dev >= 0 && cand->dev != spec->dev)
        return 0;
    return 1;
}

static int eq_ci(const char *a, size_t an, const char *b, size_t bn)
{
    if (an != bn)
        return 0;
    for (size_t i = 0; i < an; i++)
        if (lower(a[i]) != lower(b[i]))
            return 0;
    return 1;
}

/* One clause: 1 satisfied, 0 not, -1 not a clause. */
static int clause(const char *s, size_t n, const char *vs, const pv *cand)
{
    size_t i = 0;
    while (i < n && is_blank(s[i]))
        i++;
    while (n > i && is_blank(s[n - 1]))
        n--;
    char op[4] = {0};
    size_t k = 0;
    while (i < n && k < 3 && strchr("=!<>~", s[i]) != NULL)
        op[k++] = s[i++];
    while (i < n && is_blank(s[i]))
        i++;
    if (i == n)
        return -1;
    const char *v = s + i;
    size_t vn = n - i;
    if (strcmp(op, "===") == 0) {
        size_t a = 0, b = strlen(vs);
        while (a < b && is_blank(vs[a]))
            a++;
        while (b > a && is_blank(vs[b - 1]))
            b--;
        return eq_ci(v, vn, vs + a, b - a);
    }
    int wild = vn >= 2 && v[vn - 2] == '.' && v[vn - 1] == '*';
    if (wild && strcmp(op, "==") != 0 && strcmp(op, "!=") != 0)
        return -1;
    pv sv;
    if (pv_parse(v, wild ? vn - 2 : vn, &sv) != 0)
        return -1;
    if (wild && sv.local != NULL)
        return -1;
    if (strcmp(op, "==") == 0 || strcmp(op, "!=") == 0) {
        int eq;
        if (wild)
            eq = prefix_match(cand, &sv);
        else
            eq = pv_cmp(cand, &sv, sv.local != NULL) == 0;
        return op[0] == '=' ? eq : !eq;
    }
    if (sv.local != NULL)
        return -1; /* only == and != take a local version */
    int c = pv_cmp(cand, &sv, 0);
    if (strcmp(op, ">=") == 0)
        return c >= 0;
    if (strcmp(op, "<=") == 0)
        return c <= 0;
    if (strcmp(op, ">") == 0) {
        if (c <= 0)
            return 0;
        /* not a post-release of V unless V is one */
        if (sv.post < 0 && cand->post >= 0) {
            pv base = *cand;
            base.post = -1;
            base.dev = -1;
            if (pv_cmp(&base, &sv, 0) == 0)
                return 0;
        }
        return 1;
    }
    if (strcmp(op, "<") == 0) {
        if (c >= 0)
            return 0;
        /* not a pre-release of V unless V is one */
        if (!pv_is_pre(&sv) && pv_is_pre(cand)) {
            pv base = *cand;
            base.pre = -1;
            base.dev = -1;
            base.post = -1;
            if (pv_cmp(&base, &sv, 0) == 0)
                return 0;
        }
        return 1;
    }
    if (strcmp(op, "~=") == 0) {
        if (sv.nrel < 2)
            return -1;
        if (c < 0)
            return 0;
        pv pre = sv;
        pre.nrel = sv.nrel - 1;
        pre.pre = -1;
        pre.post = -1;
        pre.dev = -1;
        return prefix_match(cand, &pre);
    }
    return -1;
}

int sc_pep440_satisfies(const char *spec, const char *version)
{
    pv cand;
    if (spec == NULL || version == NULL || pv_parse(version, strlen(version), &cand) != 0)
        return -1;
    int ok = 1;
    const char *s = spec;
    size_t len = strlen(spec);
    size_t i = 0;
    int any = 0;
    while (i <= len) {
        size_t e = i;
        while (e < len && s[e] != ',')
            e++;
        size_t a = i, b = e;
        while (a < b && is_blank(s[a]))
            a++;
        if (a == b) {
            if (e < len || any)
                return -1; /* an empty clause between or after commas */
        } else {
            int r = clause(s + a, b - a, version, &cand);
            if (r < 0)
                return -1;
            ok &= r;
            any = 1;
        }
        i = e + 1;
    }
    return ok;
}

/* ---- RFC 822 headers: WHEEL and METADATA --------------------------------------------- */

char *sc_wheel_metadata_field(const char *text, size_t len, const char *field, int *found)
{
    size_t fl = strlen(field);
    size_t i = 0;
    *found = 0;
    while (i < len) {
        size_t e = i;
        while (e < len && text[e] != '\n')
            e++;
        size_t le = e;
        if (le > i && text[le - 1] == '\r')
            le--;
        if (le == i)
            return NULL; /* end of the header block */
        if (le - i > fl && text[i + fl] == ':' && eq_ci(text + i, fl, field, fl)) {
            sc_strbuf b;
            sc_strbuf_init(&b);
            *found = 1;
            size_t v = i + fl + 1;
            for (;;) {
                while (v < le && is_blank(text[v]))
                    v++;
                size_t ve = le;
                while (ve > v && is_blank(text[ve - 1]))
                    ve--;
                if (ve > v && b.len > 0 && sc_strbuf_addc(&b, ' ') != SC_OK)
                    goto oom;
                if (ve > v && sc_strbuf_add(&b, text + v, ve - v) != SC_OK)
                    goto oom;
                /* continuation lines start with a blank */
                if (e >= len || e + 1 >= len || !is_blank(text[e + 1]))
                    break;
                v = e + 1;
                e = v;
                while (e < len && text[e] != '\n')
                    e++;
                le = e;
                if (le > v && text[le - 1] == '\r')
                    le--;
            }
            if (sc_strbuf_addc(&b, '\0') != SC_OK)
                goto oom;
            return sc_strbuf_detach(&b, NULL);
oom:
            sc_strbuf_free(&b);
            return NULL;
        }
        i = e + 1;
    }
    return NULL;
}

sc_code sc_wheel_meta_parse(const char *text, size_t len, const char *name,
                            sc_wheel_meta *out, sc_error *err)
{
    int found;
    char *wv = sc_wheel_metadata_field(text, len, "Wheel-Version", &found);
    if (wv == NULL)
        return found ? sc_error_set(err, SC_E_OUT_OF_MEMORY, name, "out of memory")
                     : sc_error_set(err, SC_E_INVALID_WHEEL, name,
                                    "%s: WHEEL has no Wheel-Version", name);
    size_t i = 0, n = strlen(wv);
    long ma = num(wv, n, &i), mi = -1;
    if (ma >= 0 && i < n && wv[i] == '.') {
        i++;
        mi = num(wv, n, &i);
    }
    if (ma < 0 || mi < 0 || i != n) {
        sc_code rc = sc_error_set(err, SC_E_INVALID_WHEEL, name,
                                  "%s: WHEEL's Wheel-Version \"%.40s\" is not <major>.<minor>",
                                  name, wv);
        free(wv);
        return rc;
    }
    free(wv);
    if (ma != 1)
        return sc_error_set(err, SC_E_INVALID_WHEEL, name,
                            "%s: Wheel-Version %ld.%ld; only 1.x wheels are installed", name,
                            ma, mi);
    char *rp = sc_wheel_metadata_field(text, len, "Root-Is-Purelib", &found);
    if (rp == NULL)
        return found ? sc_error_set(err, SC_E_OUT_OF_MEMORY, name, "out of memory")
                     : sc_error_set(err, SC_E_INVALID_WHEEL, name,
                                    "%s: WHEEL has no Root-Is-Purelib", name);
    int purelib = eq_ci(rp, strlen(rp), "true", 4) ? 1 : eq_ci(rp, strlen(rp), "false", 5) ? 0 : -1;
    if (purelib < 0) {
        sc_code rc = sc_error_set(err, SC_E_INVALID_WHEEL, name,
                                  "%s: WHEEL's Root-Is-Purelib \"%.40s\" is not true or false",
                                  name, rp);
        free(rp);
        return rc;
    }
    free(rp);
    out->version_major = (int)ma;
    out->version_minor = (int)mi;
    out->root_is_purelib = purelib;
    return SC_OK;
}

/* ---- RECORD --------------------------------------------------------------------------- */

void sc_wheel_record_free(sc_wheel_record_row *rows, size_t nrows)
{
    for (size_t i = 0; i < nrows; i++)
        free(rows[i].path);
    free(rows);
}

/* One CSV field at text[*i]; appended to b; *i past the separator.  Returns
 * 1 when the field ended the line, 0 at a comma, -1 on a bad quote. */
static int csv_field(const char *t, size_t n, size_t *i, sc_strbuf *b, int *oom)
{
    size_t k = *i;
    if (k < n && t[k] == '"') {
        k++;
        for (;;) {
            if (k >= n)
                return -1;
            if (t[k] == '"') {
                if (k + 1 < n && t[k + 1] == '"') {
                    if (sc_strbuf_addc(b, '"') != SC_OK)
                        *oom = 1;
                    k += 2;
                    continue;
                }
                k++;
                break;
            }
            if (sc_strbuf_addc(b, t[k]) != SC_OK)
                *oom = 1;
            k++;
        }
    } else {
        size_t s = k;
        while (k < n && t[k] != ',' && t[k] != '\n' && t[k] != '\r' && t[k] != '"')
            k++;
        if (k < n && t[k] == '"')
            return -1;
        if (sc_strbuf_add(b, t + s, k - s) != SC_OK)
            *oom = 1;
    }
    if (k < n && t[k] == ',') {
        *i = k + 1;
        return 0;
    }
    if (k < n && t[k] == '\r')
        k++;
    if (k < n && t[k] == '\n')
        k++;
    else if (k < n)
        return -1;
    *i = k;
    return 1;
}

/* A RECORD digest: 43 characters of URL-safe base64 without padding, as
 * the specification says, or 64 hex digits, as some early uv_build wheels
 * wrote it (unambiguous: the lengths differ). */
static int b64url_sha256(const char *s, size_t n, char hex[65])
{
    if (n == 64) {
        for (size_t i = 0; i < 64; i++) {
            char c = lower(s[i]);
            if (!(is_digit(c) || (c >= 'a' && c <= 'f')))
                return 0;
            hex[i] = c;
        }
        hex[64] = '\0';
        return 1;
    }
    if (n != 43)
        return 0;
    char std[45];
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (c == '+' || c == '/' || c == '=')
            return 0;
        std[i] = c == '-' ? '+' : c == '_' ? '/' : c;
    }
    std[43] = '=';
    std[44] = '\0';
    unsigned char raw[33];
    size_t got = 0;
    if (!sc_base64_decode(std, 44, raw, sizeof raw, &got) || got != SC_SHA256_LEN)
        return 0;
    sc_hex_lower(raw, SC_SHA256_LEN, hex);
    return 1;
}

sc_code sc_wheel_record_parse(const char *text, size_t len, const char *name,
                              sc_wheel_record_row **rows_out, size_t *nrows_out, sc_error *err)
{
    *rows_out = NULL;
    *nrows_out = 0;
    sc_wheel_record_row *rows = NULL;
    size_t n = 0, cap = 0;
    size_t i = 0, line = 0;
    sc_strbuf f[3];
    for (int k = 0; k < 3; k++)
        sc_strbuf_init(&f[k]);
    sc_code rc = SC_OK;
    while (i < len) {
        line++;
        if (text[i] == '\n' || (text[i] == '\r' && i + 1 < len && text[i + 1] == '\n')) {
            i += text[i] == '\r' ? 2 : 1; /* an empty line */
            continue;
        }
        int nf = 0, oom = 0, end = 0;
        for (int k = 0; k < 3; k++)
            sc_strbuf_truncate(&f[k], 0);
        while (!end) {
            if (nf == 3) {
                rc = sc_error_set(err, SC_E_INVALID_WHEEL, name,
                                  "%s: RECORD line %zu has more than 3 fields", name, line);
                goto done;
            }
            int r = csv_field(text, len, &i, &f[nf], &oom);
            if (r < 0) {
                rc = sc_error_set(err, SC_E_INVALID_WHEEL, name,
                                  "%s: RECORD line %zu is not CSV", name, line);
                goto done;
            }
            nf++;
            end = r;
        }
        if (oom) {
            rc = sc_error_set(err, SC_E_OUT_OF_MEMORY, name, "out of memory");
            goto done;
        }
        if (nf != 3 || f[0].len == 0) {
            rc = sc_error_set(err, SC_E_INVALID_WHEEL, name,
                              "%s: RECORD line %zu is not path,hash,size", name, line);
            goto done;
        }
        void *more = grow(rows, &cap, n, sizeof *rows);
        if (more == NULL) {
            rc = sc_error_set(err, SC_E_OUT_OF_MEMORY, name, "out of memory");
            goto done;
        }
        rows = more;
        sc_wheel_record_row *row = &rows[n];
        memset(row, 0, sizeof *row);
        row->path = strndup(f[0].p, f[0].len);
        if (row->path == NULL) {
            rc = sc_error_set(err, SC_E_OUT_OF_MEMORY, name, "out of memory");
            goto done;
        }
        n++;
        if (memchr(f[0].p, '\0', f[0].len) != NULL) {
            rc = sc_error_set(err, SC_E_INVALID_WHEEL, name,
                              "%s: RECORD line %zu has a NUL in its path", name, line);
            goto done;
        }
        row->size = -1;
        if (f[1].len > 0) {
            if (f[1].len < 7 || memcmp(f[1].p, "sha256=", 7) != 0) {
                char q[64];
                sc_path_quote(f[1].p, strcspn(f[1].p, "="), q, sizeof q);
                rc = sc_error_set(err, SC_E_WHEEL_RECORD_MISMATCH, name,
                                  "%s: RECORD line %zu uses hash %s, not sha256", name, line, q);
                goto done;
            }
            if (!b64url_sha256(f[1].p + 7, f[1].len - 7, row->sha256)) {
                rc = sc_error_set(err, SC_E_INVALID_WHEEL, name,
                                  "%s: RECORD line %zu: the sha256 is neither 43 characters "
                                  "of URL-safe base64 nor 64 hex digits",
                                  name, line);
                goto done;
            }
        }
        if (f[2].len > 0) {
            size_t k = 0;
            int64_t v = 0;
            for (; k < f[2].len && is_digit(f[2].p[k]) && k < 18; k++)
                v = v * 10 + (f[2].p[k] - '0');
            if (k != f[2].len) {
                rc = sc_error_set(err, SC_E_INVALID_WHEEL, name,
                                  "%s: RECORD line %zu: the size is not a number", name, line);
                goto done;
            }
            row->size = v;
        }
    }
done:
    for (int k = 0; k < 3; k++)
        sc_strbuf_free(&f[k]);
    if (rc != SC_OK) {
        sc_wheel_record_free(rows, n);
        return rc;
    }
    *rows_out = rows;
    *nrows_out = n;
    return SC_OK;
}

/* ---- entry_points.txt ------------------------------------------------------------------ */

void sc_wheel_entry_points_free(sc_wheel_entry_point *eps, size_t neps)
{
    for (size_t i = 0; i < neps; i++) {
        free(eps[i].name);
        free(eps[i].module);
        free(eps[i].attr);
    }
    free(eps);
}

static int script_name_ok(const char *s, size_t n)
{
    if (n == 0 || (n == 1 && s[0] == '.') || (n == 2 && s[0] == '.' && s[1] == '.'))
        return 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c < 0x20 || c == 0x7f || c == '/' || c == '\\' || c == ':')
            return 0;
    }
    return sc_utf8_valid(s, n);
}

static int cmp_ep(const void *a, const void *b)
{
    return strcmp(((const sc_wheel_entry_point *)a)->name,
                  ((const sc_wheel_entry_point *)b)->name);
}

sc_code sc_wheel_entry_points_parse(const char *text, size_t len, const char *name,
                                    sc_wheel_entry_point **eps_out, size_t *neps_out,
                                    sc_error *err)
{
    *eps_out = NULL;
    *neps_out = 0;
    sc_wheel_entry_point *eps = NULL;
    size_t n = 0, cap = 0, line = 0;
    int section = -1; /* -1 other, 0 console, 1 gui */
    sc_code rc = SC_OK;
    size_t i = 0;
    char *mod = NULL, *attr = NULL;
    while (i < len) {
        line++;
        size_t e = i;
        while (e < len && text[e] != '\n')
            e++;
        size_t a = i, b = e;
        i = e + 1;
        while (a < b && (is_blank(text[a]) || text[a] == '\r'))
            a++;
        while (b > a && (is_blank(text[b - 1]) || text[b - 1] == '\r'))
            b--;
        if (a == b || text[a] == '#' || text[a] == ';')
            continue;
        if (text[a] == '[') {
            if (text[b - 1] != ']') {
                rc = sc_error_set(err, SC_E_INVALID_WHEEL, name,
                                  "%s: entry_points.txt line %zu: unterminated section", name,
                                  line);
                goto done;
            }
            size_t sa = a + 1, sb = b - 1;
            while (sa < sb && is_blank(text[sa]))
                sa++;
            while (sb > sa && is_blank(text[sb - 1]))
                sb--;
            section = (sb - sa == 15 && memcmp(text + sa, "console_scripts", 15) == 0) ? 0
                      : (sb - sa == 11 && memcmp(text + sa, "gui_scripts", 11) == 0) ? 1
                                                                                      : -1;
            continue;
        }
        if (section < 0)
            continue;
        size_t eq = a;
        while (eq < b && text[eq] != '=')
            eq++;
        if (eq == b) {
            rc = sc_error_set(err, SC_E_INVALID_WHEEL, name,
                              "%s: entry_points.txt line %zu is not name = value", name, line);
            goto done;
        }
        size_t ka = a, kb = eq;
        while (kb > ka && is_blank(text[kb - 1]))
            kb--;
        size_t va = eq + 1, vb = b;
        while (va < vb && is_blank(text[va]))
            va++;
        /* drop " [extras]" */
        for (size_t k = va; k < vb; k++)
            if (text[k] == '[') {
                vb = k;
                break;
            }
        while (vb > va && is_blank(text[vb - 1]))
            vb--;
        if (!script_name_ok(text + ka, kb - ka)) {
            char q[160];
            sc_path_quote(text + ka, kb - ka, q, sizeof q);
            rc = sc_error_set(err, SC_E_INVALID_WHEEL, name,
                              "%s: entry_points.txt line %zu: script name \"%s\" is not a "
                              "plain file name",
                              name, line, q);
            goto done;
        }
        size_t colon = va;
        while (colon < vb && text[colon] != ':')
            colon++;
        size_t ma = va, mb = colon, aa = colon + 1, ab = vb;
        while (mb > ma && is_blank(text[mb - 1]))
            mb--;
        while (aa < ab && is_blank(text[aa]))
            aa++;
        mod = strndup(text + ma, mb - ma);
        attr = colon < vb ? strndup(text + aa, ab - aa) : NULL;
        if (mod == NULL || (colon < vb && attr == NULL)) {
            rc = sc_error_set(err, SC_E_OUT_OF_MEMORY, name, "out of memory");
            goto done;
        }
        if (attr == NULL || !sc_is_dotted_name(mod) || !sc_is_dotted_name(attr)) {
            char q[160];
            sc_path_quote(text + va, vb - va, q, sizeof q);
            rc = sc_error_set(err, SC_E_INVALID_WHEEL, name,
                              "%s: entry_points.txt line %zu: \"%s\" is not module:function",
                              name, line, q);
            goto done;
        }
        void *more = grow(eps, &cap, n, sizeof *eps);
        if (more == NULL) {
            rc = sc_error_set(err, SC_E_OUT_OF_MEMORY, name, "out of memory");
            goto done;
        }
        eps = more;
        eps[n].name = strndup(text + ka, kb - ka);
        if (eps[n].name == NULL) {
            rc = sc_error_set(err, SC_E_OUT_OF_MEMORY, name, "out of memory");
            goto done;
        }
        eps[n].module = mod;
        eps[n].attr = attr;
        eps[n].gui = section;
        mod = attr = NULL;
        n++;
    }
    if (n > 1)
        qsort(eps, n, sizeof *eps, cmp_ep);
    for (size_t k = 1; k < n; k++)
        if (strcmp(eps[k - 1].name, eps[k].name) == 0) {
            char q[160];
            sc_path_quote(eps[k].name, strlen(eps[k].name), q, sizeof q);
            rc = sc_error_set(err, SC_E_INVALID_WHEEL, name,
                              "%s: entry_points.txt names script \"%s\" twice", name, q);
            goto done;
        }
done:
    free(mod);
    free(attr);
    if (rc != SC_OK) {
        sc_wheel_entry_points_free(eps, n);
        return rc;
    }
    *eps_out = eps;
    *neps_out = n;
    return SC_OK;
}

/* ---- compatibility -------------------------------------------------------------------- */

/* Interpreter major.minor from "3.11.9". */
static int py_mm(const sc_wheel_env *env, int *ma, int *mi)
{
    return env->python_version != NULL &&
           sc_version_major_minor(env->python_version, ma, mi) == 2;
}

/* One of the wheel's abi tags is "none", "abi3" or exactly "cpXY" of the
 * interpreter (so debug "cp311d" and free-threaded "cp313t" builds are
 * refused: conda's CPython is neither). */
static int abi_ok(const char *abis, int ma, int mi)
{
    char want[24];
    snprintf(want, sizeof want, "cp%d%d", ma, mi);
    const char *s = abis;
    for (;;) {
        size_t n = strcspn(s, ".");
        if ((n == 4 && memcmp(s, "none", 4) == 0) || (n == 4 && memcmp(s, "abi3", 4) == 0) ||
            (n == strlen(want) && memcmp(s, want, n) == 0))
            return 1;
        if (s[n] == '\0')
            return 0;
        s += n + 1;
    }
}

static sc_code check_env(const sc_wheel_env *env, sc_error *err)
{
    int ma, mi;
    if (env == NULL || env->target == NULL || env->site_packages == NULL ||
        env->scripts_dir == NULL || !py_mm(env, &ma, &mi))
        return sc_error_set(err, SC_E_USAGE, NULL,
                            "wheel install: the environment needs a target, a python version "
                            "X.Y[.Z], a site-packages and a scripts directory");
    sc_error perr;
    if (sc_path_check(env->site_packages, strlen(env->site_packages), NULL, &perr) != SC_OK ||
        sc_path_check(env->scripts_dir, strlen(env->scripts_dir), NULL, &perr) != SC_OK)
        return sc_error_set(err, SC_E_USAGE, NULL,
                            "wheel install: site-packages and scripts directory must be "
                            "relative payload paths (%s)",
                            perr.message);
    return SC_OK;
}

/* The tag checks on a parsed file name. */
static sc_code check_tags(const sc_wheel *w, const char *fname, const sc_wheel_env *env,
                          sc_error *err)
{
    int ma = 0, mi = 0;
    py_mm(env, &ma, &mi);
    if (!sc_wheel_python_ok(w, ma, mi) || !abi_ok(w->abi, ma, mi))
        return sc_error_set(err, SC_E_WHEEL_INCOMPATIBLE, fname,
                            "%s: its tags %s-%s do not run on the locked Python %s", fname,
                            w->python, w->abi, env->python_version);
    const char *subdir = sc_target_conda_subdir(env->target);
    if (!sc_wheel_platform_ok(w, subdir)) {
        char id[SC_TARGET_ID_MAX];
        sc_target_id(env->target, id, sizeof id);
        return sc_error_set(err, SC_E_WHEEL_INCOMPATIBLE, fname,
                            "%s: its platform tag %s does not install on %s (%s)", fname,
                            w->platform, id, subdir);
    }
    return SC_OK;
}

/* Parse the file name of a location; *fname and *w filled on SC_OK. */
static sc_code parse_name(const char *location, char **fname, sc_wheel *w, sc_error *err)
{
    *fname = sc_location_filename(location);
    if (*fname == NULL)
        return sc_error_set(err, SC_E_OUT_OF_MEMORY, location, "out of memory");
    int r = sc_wheel_parse(location, w);
    if (r == -2)
        return sc_error_set(err, SC_E_OUT_OF_MEMORY, location, "out of memory");
    if (r != 1)
        return sc_error_set(err, SC_E_INVALID_WHEEL, location,
                            "%s: not a wheel file name "
                            "({name}-{version}[-{build}]-{python}-{abi}-{platform}.whl)",
                            *fname);
    return SC_OK;
}

sc_code sc_wheel_check_location(const char *location, const sc_wheel_env *env, sc_error *err)
{
    sc_error_clear(err);
    sc_code rc = check_env(env, err);
    if (rc != SC_OK)
        return rc;
    if (location == NULL)
        return sc_error_set(err, SC_E_USAGE, NULL, "wheel check: no location");
    char *fname = NULL;
    sc_wheel w = {0};
    rc = parse_name(location, &fname, &w, err);
    if (rc == SC_OK)
        rc = check_tags(&w, fname, env, err);
    sc_wheel_free(&w);
    free(fname);
    return rc;
}

sc_code sc_wheel_check_requires_python(const char *spec, const char *display,
                                       const sc_wheel_env *env, sc_error *err)
{
    sc_error_clear(err);
    sc_code rc = check_env(env, err);
    if (rc != SC_OK || spec == NULL)
        return rc;
    const char *name = display ? display : "wheel";
    int r = sc_pep440_satisfies(spec, env->python_version);
    if (r < 0)
        return sc_error_set(err, SC_E_INVALID_WHEEL, name,
                            "%s: Requires-Python \"%.120s\" is not a PEP 440 specifier set",
                            name, spec);
    if (r == 0)
        return sc_error_set(err, SC_E_WHEEL_INCOMPATIBLE, name,
                            "%s: Requires-Python \"%.120s\" excludes the locked Python %s", name,
                            spec, env->python_version);
    return SC_OK;
}

/* Requires-Python of METADATA against the interpreter. */
static sc_code check_requires_python(const char *meta, size_t len, const char *fname,
                                     const sc_wheel_env *env, sc_error *err)
{
    int found;
    char *rp = sc_wheel_metadata_field(meta, len, "Requires-Python", &found);
    if (rp == NULL)
        return found ? sc_error_set(err, SC_E_OUT_OF_MEMORY, fname, "out of memory") : SC_OK;
    sc_code rc = sc_wheel_check_requires_python(rp, fname, env, err);
    free(rp);
    return rc;
}

/* ---- the wheel's contents ------------------------------------------------------------- */

typedef struct wheel_ctx {
    const sc_wheel_env *env;
    const char *fname;     /* for messages */
    const sc_wheel *w;     /* the parsed file name */
    sc_zip *z;
    char *dist_info;       /* "<stem>.dist-info" (zip path) */
    char *data_dir;        /* "<stem>.data" */
    char *meta;            /* METADATA */
    size_t meta_len;
    char *name, *version;  /* METADATA's */
    sc_wheel_meta wheel;
    sc_wheel_record_row *rows;
    size_t nrows;
    sc_wheel_entry_point *eps;
    size_t neps;
} wheel_ctx;

static void ctx_free(wheel_ctx *c)
{
    sc_zip_close(c->z);
    free(c->dist_info);
    free(c->data_dir);
    free(c->meta);
    free(c->name);
    free(c->version);
    sc_wheel_record_free(c->rows, c->nrows);
    sc_wheel_entry_points_free(c->eps, c->neps);
}

static sc_code read_member(wheel_ctx *c, const char *leaf, int required, char **bytes,
                           size_t *len, sc_error *err)
{
    *bytes = NULL;
    *len = 0;
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", c->dist_info, leaf);
    const sc_zip_entry *e = sc_zip_find(c->z, path);
    if (e == NULL || e->type != SC_ZIP_FILE) {
        if (!required)
            return SC_OK;
        return sc_error_set(err, SC_E_INVALID_WHEEL, c->fname, "%s: %s is missing", c->fname,
                            path);
    }
    sc_code rc = sc_zip_read(c->z, e, META_MAX, bytes, len, err);
    if (rc != SC_OK)
        sc_error_prefix(err, c->fname);
    return rc;
}

static int ends_with(const char *s, size_t n, const char *suf)
{
    size_t k = strlen(suf);
    return n >= k && memcmp(s + n - k, suf, k) == 0;
}

/* Open the zip, find the one .dist-info, read and check WHEEL, METADATA
 * (Requires-Python, Name, Version), RECORD, entry_points.txt. */
static sc_code open_wheel(wheel_ctx *c, const char *path, sc_error *err)
{
    sc_code rc = sc_zip_open_flags(path, NULL, SC_ZIP_ACCEPT_DOT_PREFIX, &c->z, err);
    if (rc != SC_OK) {
        if (strstr(err->message, c->fname) == NULL)
            sc_error_prefix(err, c->fname);
        return rc;
    }
    size_t n = sc_zip_count(c->z);
    for (size_t i = 0; i < n; i++) {
        const sc_zip_entry *e = sc_zip_at(c->z, i);
        size_t top = strcspn(e->path, "/");
        if (!ends_with(e->path, top, ".dist-info"))
            continue;
        if (c->dist_info == NULL) {
            c->dist_info = strndup(e->path, top);
            if (c->dist_info == NULL)
                return sc_error_set(err, SC_E_OUT_OF_MEMORY, c->fname, "out of memory");
        } else if (strlen(c->dist_info) != top || memcmp(c->dist_info, e->path, top) != 0) {
            return sc_error_set(err, SC_E_INVALID_WHEEL, c->fname,
                                "%s: more than one .dist-info directory (%s, %.*s)", c->fname,
                                c->dist_info, (int)top, e->path);
        }
    }
    if (c->dist_info == NULL)
        return sc_error_set(err, SC_E_INVALID_WHEEL, c->fname, "%s: no .dist-info directory",
                            c->fname);
    size_t stem = strlen(c->dist_info) - strlen(".dist-info");
    c->data_dir = malloc(stem + sizeof ".data");
    if (c->data_dir == NULL)
        return sc_error_set(err, SC_E_OUT_OF_MEMORY, c->fname, "out of memory");
    memcpy(c->data_dir, c->dist_info, stem);
    memcpy(c->data_dir + stem, ".data", sizeof ".data");

    char *t;
    size_t tl;
    rc = read_member(c, "WHEEL", 1, &t, &tl, err);
    if (rc != SC_OK)
        return rc;
    rc = sc_wheel_meta_parse(t, tl, c->fname, &c->wheel, err);
    free(t);
    if (rc != SC_OK)
        return rc;
    rc = read_member(c, "METADATA", 1, &c->meta, &c->meta_len, err);
    if (rc != SC_OK)
        return rc;
    rc = check_requires_python(c->meta, c->meta_len, c->fname, c->env, err);
    if (rc != SC_OK)
        return rc;
    int found;
    c->name = sc_wheel_metadata_field(c->meta, c->meta_len, "Name", &found);
    if (c->name == NULL || c->name[0] == '\0')
        return found && c->name == NULL
                   ? sc_error_set(err, SC_E_OUT_OF_MEMORY, c->fname, "out of memory")
                   : sc_error_set(err, SC_E_INVALID_WHEEL, c->fname,
                                  "%s: METADATA has no Name", c->fname);
    if (!script_name_ok(c->name, strlen(c->name)))
        return sc_error_set(err, SC_E_INVALID_WHEEL, c->fname,
                            "%s: METADATA's Name is not a plain name", c->fname);
    char *n1 = sc_pypi_normalize(c->name), *n2 = sc_pypi_normalize(c->w->name);
    int same = n1 != NULL && n2 != NULL && strcmp(n1, n2) == 0;
    int oom = n1 == NULL || n2 == NULL;
    free(n1);
    free(n2);
    if (!same)
        return oom ? sc_error_set(err, SC_E_OUT_OF_MEMORY, c->fname, "out of memory")
                   : sc_error_set(err, SC_E_INVALID_WHEEL, c->fname,
                                  "%s: METADATA names the distribution %.100s, the file name %s",
                                  c->fname, c->name, c->w->name);
    c->version = sc_wheel_metadata_field(c->meta, c->meta_len, "Version", &found);
    if (c->version == NULL || c->version[0] == '\0')
        return found && c->version == NULL
                   ? sc_error_set(err, SC_E_OUT_OF_MEMORY, c->fname, "out of memory")
                   : sc_error_set(err, SC_E_INVALID_WHEEL, c->fname,
                                  "%s: METADATA has no Version", c->fname);
    rc = read_member(c, "RECORD", 1, &t, &tl, err);
    if (rc != SC_OK)
        return rc;
    rc = sc_wheel_record_parse(t, tl, c->fname, &c->rows, &c->nrows, err);
    free(t);
    if (rc != SC_OK)
        return rc;
    rc = read_member(c, "entry_points.txt", 0, &t, &tl, err);
    if (rc != SC_OK)
        return rc;
    if (t != NULL) {
        rc = sc_wheel_entry_points_parse(t, tl, c->fname, &c->eps, &c->neps, err);
        free(t);
    }
    return rc;
}

sc_code sc_wheel_check_file(const char *wheel_path, const char *display,
                            const sc_wheel_env *env, sc_error *err)
{
    sc_error_clear(err);
    sc_code rc = check_env(env, err);
    if (rc != SC_OK)
        return rc;
    if (wheel_path == NULL)
        return sc_error_set(err, SC_E_USAGE, NULL, "wheel check: no file");
    const char *loc = display ? display : wheel_path;
    wheel_ctx c = {0};
    c.env = env;
    char *fname = NULL;
    sc_wheel w = {0};
    rc = parse_name(loc, &fname, &w, err);
    if (rc == SC_OK)
        rc = check_tags(&w, fname, env, err);
    if (rc == SC_OK) {
        c.fname = fname;
        c.w = &w;
        rc = open_wheel(&c, wheel_path, err);
    }
    ctx_free(&c);
    sc_wheel_free(&w);
    free(fname);
    return rc;
}

/* ---- installing ------------------------------------------------------------------------ */

/* One file to move into the prefix. */
typedef struct item {
    char *dest;        /* prefix-relative */
    char *src;         /* the staged file (absolute or relative to the caller's cwd) */
    unsigned mode;
    uint64_t size;
    char sha256[65];
    const char *member; /* the zip member it comes from; NULL when generated */
} item;

typedef struct plan {
    item *v;
    size_t n, cap;
} plan;

static void plan_free(plan *p)
{
    for (size_t i = 0; i < p->n; i++) {
        free(p->v[i].dest);
        free(p->v[i].src);
    }
    free(p->v);
}

static item *plan_add(plan *p)
{
    void *more = grow(p->v, &p->cap, p->n, sizeof *p->v);
    if (more == NULL)
        return NULL;
    p->v = more;
    item *it = &p->v[p->n++];
    memset(it, 0, sizeof *it);
    return it;
}

static char *cat3(const char *a, const char *b, const char *c)
{
    size_t la = strlen(a), lb = strlen(b), lc = strlen(c);
    char *p = malloc(la + lb + lc + 1);
    if (p != NULL) {
        memcpy(p, a, la);
        memcpy(p + la, b, lb);
        memcpy(p + la + lb, c, lc + 1);
    }
    return p;
}

/* The RECORD rows sorted by path, for lookups by member name. */
static int cmp_row(const void *a, const void *b)
{
    return strcmp(((const sc_wheel_record_row *)a)->path,
                  ((const sc_wheel_record_row *)b)->path);
}

/* The first of the rows for path (identical rows are allowed, and bsearch
 * may land on any of them), or NULL. */
static sc_wheel_record_row *find_row(wheel_ctx *c, const char *path)
{
    if (c->nrows == 0)
        return NULL;
    sc_wheel_record_row key;
    key.path = (char *)path;
    sc_wheel_record_row *row = bsearch(&key, c->rows, c->nrows, sizeof *c->rows, cmp_row);
    while (row != NULL && row > c->rows && strcmp(row[-1].path, path) == 0)
        row--;
    return row;
}

/* RECORD rows have no hash by design for these members of the dist-info. */
static int unhashed_member(const wheel_ctx *c, const char *path)
{
    size_t dl = strlen(c->dist_info);
    if (strncmp(path, c->dist_info, dl) != 0 || path[dl] != '/')
        return 0;
    const char *leaf = path + dl + 1;
    return strcmp(leaf, "RECORD") == 0 || strcmp(leaf, "RECORD.jws") == 0 ||
           strcmp(leaf, "RECORD.p7s") == 0;
}

/* Where a member goes (prefix-relative, malloc'd in *dest); *script 1 for
 * the scripts scheme.  *dest NULL with SC_OK: not installed (a directory of
 * the .data layout itself). */
static sc_code map_member(wheel_ctx *c, const char *path, char **dest, int *script,
                          sc_error *err)
{
    const sc_wheel_env *env = c->env;
    size_t dl = strlen(c->data_dir);
    *dest = NULL;
    *script = 0;
    if (strncmp(path, c->data_dir, dl) != 0 || path[dl] != '/') {
        *dest = cat3(env->site_packages, "/", path);
        return *dest ? SC_OK : sc_error_set(err, SC_E_OUT_OF_MEMORY, c->fname, "out of memory");
    }
    const char *scheme = path + dl + 1;
    size_t sl = strcspn(scheme, "/");
    const char *rest = scheme[sl] == '/' ? scheme + sl + 1 : NULL;
    if (rest == NULL)
        return sc_error_set(err, SC_E_INVALID_WHEEL, c->fname,
                            "%s: %s is a file directly in %s/ (expected <scheme>/<path>)",
                            c->fname, path, c->data_dir);
    if ((sl == 7 && memcmp(scheme, "purelib", 7) == 0) ||
        (sl == 7 && memcmp(scheme, "platlib", 7) == 0)) {
        *dest = cat3(env->site_packages, "/", rest);
    } else if (sl == 7 && memcmp(scheme, "scripts", 7) == 0) {
        if (strchr(rest, '/') != NULL)
            return sc_error_set(err, SC_E_INVALID_WHEEL, c->fname,
                                "%s: %s: a script in a subdirectory", c->fname, path);
        *script = 1;
        *dest = cat3(env->scripts_dir, "/", rest);
    } else if (sl == 7 && memcmp(scheme, "headers", 7) == 0) {
        int ma = 0, mi = 0;
        py_mm(env, &ma, &mi);
        char base[64];
        snprintf(base, sizeof base, "include/site/python%d.%d/", ma, mi);
        char *norm = sc_pypi_normalize(c->name);
        *dest = norm ? cat3(base, norm, "") : NULL;
        free(norm);
        if (*dest != NULL) {
            char *d = cat3(*dest, "/", rest);
            free(*dest);
            *dest = d;
        }
    } else if (sl == 4 && memcmp(scheme, "data", 4) == 0) {
        *dest = strdup(rest);
    } else {
        return sc_error_set(err, SC_E_INVALID_WHEEL, c->fname,
                            "%s: %s: unknown .data scheme \"%.*s\" (purelib, platlib, "
                            "scripts, headers, data)",
                            c->fname, path, (int)(sl > 40 ? 40 : sl), scheme);
    }
    return *dest ? SC_OK : sc_error_set(err, SC_E_OUT_OF_MEMORY, c->fname, "out of memory");
}

static sc_code write_file(const char *path, const void *bytes, size_t len, unsigned mode,
                          const char *fname, sc_error *err)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0)
        return sc_error_set(err, SC_E_IO, path, "%s: %s: %s", fname, path, strerror(errno));
    const char *p = bytes;
    size_t left = len;
    while (left > 0) {
        ssize_t w = write(fd, p, left);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            int e = w < 0 ? errno : EIO;
            close(fd);
            return sc_error_set(err, SC_E_IO, path, "%s: %s: %s", fname, path, strerror(e));
        }
        p += w;
        left -= (size_t)w;
    }
    if (fchmod(fd, mode) != 0 || close(fd) != 0)
        return sc_error_set(err, SC_E_IO, path, "%s: %s: %s", fname, path, strerror(errno));
    return SC_OK;
}

/* A generated file: written into the staging directory as gen-<n>. */
static sc_code add_generated(plan *p, const char *staging, char *dest, const void *bytes,
                             size_t len, unsigned mode, const char *fname, sc_error *err)
{
    item *it = plan_add(p);
    if (it == NULL) {
        free(dest);
        return sc_error_set(err, SC_E_OUT_OF_MEMORY, fname, "out of memory");
    }
    it->dest = dest;
    char leaf[40];
    snprintf(leaf, sizeof leaf, "/.gen-%zu", p->n);
    it->src = cat3(staging, leaf, "");
    if (it->src == NULL)
        return sc_error_set(err, SC_E_OUT_OF_MEMORY, fname, "out of memory");
    it->mode = mode;
    it->size = len;
    sc_code rc = sc_sha256_hex(bytes, len, it->sha256, err);
    if (rc != SC_OK)
        return rc;
    return write_file(it->src, bytes, len, mode, fname, err);
}

/* "#!python" / "#!pythonw" first line of a .data/scripts file becomes the
 * trampoline (POSIX targets); the staged file is rewritten in place. */
static sc_code rewrite_script(item *it, const sc_wheel_env *env, const char *python,
                              const char *fname, sc_error *err)
{
    if (env->target->platform == SC_PLATFORM_WINDOWS)
        return SC_OK;
    char *t;
    size_t tl;
    sc_code rc = sc_file_read(it->src, &t, &tl, NULL, err);
    if (rc != SC_OK)
        return rc;
    size_t eol = 0;
    while (eol < tl && t[eol] != '\n')
        eol++;
    size_t head = eol;
    if (head > 0 && t[head - 1] == '\r')
        head--;
    int match = (head == 8 && memcmp(t, "#!python", 8) == 0) ||
                (head == 9 && memcmp(t, "#!pythonw", 9) == 0);
    if (!match) {
        free(t);
        return SC_OK;
    }
    sc_strbuf b;
    sc_strbuf_init(&b);
    rc = sc_python_trampoline_head(python, &b, err);
    if (rc == SC_OK && eol < tl)
        rc = sc_strbuf_add(&b, t + eol + 1, tl - eol - 1);
    free(t);
    if (rc == SC_OK)
        rc = sc_sha256_hex(b.p ? b.p : "", b.len, it->sha256, err);
    if (rc == SC_OK) {
        it->size = b.len;
        rc = write_file(it->src, b.p ? b.p : "", b.len, it->mode, fname, err);
    }
    sc_strbuf_free(&b);
    return rc;
}

static int cmp_dest(const void *a, const void *b)
{
    return strcmp(((const item *)a)->dest, ((const item *)b)->dest);
}

/* Path of a prefix-relative file as RECORD names it: relative to the
 * site-packages directory. */
static sc_code record_path(const sc_wheel_env *env, const char *dest, sc_strbuf *b)
{
    size_t sl = strlen(env->site_packages);
    if (strncmp(dest, env->site_packages, sl) == 0 && dest[sl] == '/')
        return sc_strbuf_adds(b, dest + sl + 1);
    size_t segs = 1;
    for (size_t i = 0; i < sl; i++)
        segs += env->site_packages[i] == '/';
    for (size_t i = 0; i < segs; i++)
        if (sc_strbuf_adds(b, "../") != SC_OK)
            return SC_E_OUT_OF_MEMORY;
    return sc_strbuf_adds(b, dest);
}

static sc_code csv_add(sc_strbuf *b, const char *s)
{
    if (strpbrk(s, ",\"\r\n") == NULL)
        return sc_strbuf_adds(b, s);
    sc_code rc = sc_strbuf_addc(b, '"');
    for (; rc == SC_OK && *s; s++)
        rc = *s == '"' ? sc_strbuf_adds(b, "\"\"") : sc_strbuf_addc(b, *s);
    return rc == SC_OK ? sc_strbuf_addc(b, '"') : rc;
}

typedef struct rec_line {
    char *path;
    const item *it; /* NULL: RECORD itself */
} rec_line;

static int cmp_rec(const void *a, const void *b)
{
    return strcmp(((const rec_line *)a)->path, ((const rec_line *)b)->path);
}

/* urlsafe base64 without padding of a hex SHA-256. */
static sc_code b64url_of_hex(const char *hex, sc_strbuf *b, sc_error *err)
{
    unsigned char raw[SC_SHA256_LEN];
    for (size_t i = 0; i < SC_SHA256_LEN; i++) {
        int hi = hex[2 * i] <= '9' ? hex[2 * i] - '0' : hex[2 * i] - 'a' + 10;
        int lo = hex[2 * i + 1] <= '9' ? hex[2 * i + 1] - '0' : hex[2 * i + 1] - 'a' + 10;
        raw[i] = (unsigned char)(hi * 16 + lo);
    }
    char *enc = NULL;
    size_t el = 0;
    sc_code rc = sc_base64_encode(raw, sizeof raw, &enc, &el, err);
    if (rc != SC_OK)
        return rc;
    for (size_t i = 0; i < el && rc == SC_OK; i++) {
        char ch = enc[i];
        if (ch == '=')
            break;
        rc = sc_strbuf_addc(b, ch == '+' ? '-' : ch == '/' ? '_' : ch);
    }
    free(enc);
    return rc;
}

/* The new RECORD: every planned file, and its own row, sorted by path. */
static sc_code make_record(const wheel_ctx *c, const plan *p, const char *record_dest,
                           sc_strbuf *out, sc_error *err)
{
    rec_line *lines = calloc(p->n + 1, sizeof *lines);
    if (lines == NULL)
        return sc_error_set(err, SC_E_OUT_OF_MEMORY, c->fname, "out of memory");
    sc_code rc = SC_OK;
    size_t n = 0;
    for (size_t i = 0; i <= p->n && rc == SC_OK; i++) {
        sc_strbuf b;
        sc_strbuf_init(&b);
        rc = record_path(c->env, i < p->n ? p->v[i].dest : record_dest, &b);
        if (rc == SC_OK)
            rc = sc_strbuf_addc(&b, '\0');
        if (rc != SC_OK) {
            sc_strbuf_free(&b);
            rc = sc_error_set(err, SC_E_OUT_OF_MEMORY, c->fname, "out of memory");
            break;
        }
        lines[n].path = sc_strbuf_detach(&b, NULL);
        lines[n].it = i < p->n ? &p->v[i] : NULL;
        n++;
    }
    if (rc == SC_OK)
        qsort(lines, n, sizeof *lines, cmp_rec);
    for (size_t i = 0; i < n && rc == SC_OK; i++) {
        rc = csv_add(out, lines[i].path);
        if (rc == SC_OK && lines[i].it != NULL) {
            rc = sc_strbuf_adds(out, ",sha256=");
            if (rc == SC_OK)
                rc = b64url_of_hex(lines[i].it->sha256, out, err);
            if (rc == SC_OK)
                rc = sc_strbuf_printf(out, ",%llu\n", (unsigned long long)lines[i].it->size);
        } else if (rc == SC_OK) {
            rc = sc_strbuf_adds(out, ",,\n");
        }
        if (rc != SC_OK && rc != SC_E_OUT_OF_MEMORY)
            break;
        if (rc != SC_OK)
            rc = sc_error_set(err, SC_E_OUT_OF_MEMORY, c->fname, "out of memory");
    }
    for (size_t i = 0; i < n; i++)
        free(lines[i].path);
    free(lines);
    return rc;
}

/*
 * Walk the directories on dest's path under prefix.  make 1: mkdir -p, new
 * directories 0755 exactly.  make 0: the check made for every file before
 * anything moves — a directory where the file goes, or something other
 * than a directory where one of its parents goes → entry-collision, so that
 * a refusal leaves the prefix as it was.
 */
static sc_code walk_parents(const char *prefix, const char *dest, int make, const char *fname,
                            sc_error *err)
{
    char *full = cat3(prefix, "/", dest);
    if (full == NULL)
        return sc_error_set(err, SC_E_OUT_OF_MEMORY, fname, "out of memory");
    size_t base = strlen(prefix) + 1;
    sc_code rc = SC_OK;
    struct stat st;
    for (size_t i = base; full[i] != '\0' && rc == SC_OK; i++) {
        if (full[i] != '/')
            continue;
        full[i] = '\0';
        if (!make) {
            /* lstat: a parent that is a soft link (a conda package's) would
             * carry the wheel's file wherever it points */
            if (lstat(full, &st) == 0 && S_ISLNK(st.st_mode))
                rc = sc_error_set(err, SC_E_LINK_ENTRY, full,
                                  "%s: %s is a soft link in the environment; a wheel's file is "
                                  "never written through one",
                                  fname, full + base);
            else if (rc == SC_OK && lstat(full, &st) == 0 && !S_ISDIR(st.st_mode))
                rc = sc_error_set(err, SC_E_ENTRY_COLLISION, full,
                                  "%s: %s is in the environment and is not a directory", fname,
                                  full + base);
        } else if (mkdir(full, 0755) == 0 ? chmod(full, 0755) != 0 : errno != EEXIST) {
            rc = sc_error_set(err, SC_E_IO, full, "%s: %s: %s", fname, full, strerror(errno));
        }
        full[i] = '/';
    }
    if (rc == SC_OK && !make && lstat(full, &st) == 0 && S_ISDIR(st.st_mode))
        rc = sc_error_set(err, SC_E_ENTRY_COLLISION, full,
                          "%s: %s is a directory in the environment", fname, dest);
    free(full);
    return rc;
}

void sc_wheel_installed_free(sc_wheel_installed *r)
{
    if (r == NULL)
        return;
    free(r->name);
    free(r->version);
    free(r->dist_info);
    for (size_t i = 0; i < r->nfiles; i++)
        free(r->files[i].path);
    free(r->files);
    memset(r, 0, sizeof *r);
}

static sc_code mismatch(const wheel_ctx *c, sc_error *err, const char *member, const char *what)
{
    char q[200];
    sc_path_quote(member, strlen(member), q, sizeof q);
    return sc_error_set(err, SC_E_WHEEL_RECORD_MISMATCH, c->fname, "%s: %s %s", c->fname, q,
                        what);
}

/* A .data/scripts file that old setuptools wrote beside an entry point of
 * the same name (its name less a trailing ".exe", "-script.py" or ".pya"
 * is a console or gui script): not installed, the launcher is (pip and uv
 * do the same). */
static int shadowed_by_entry_point(const wheel_ctx *c, const char *dest)
{
    const char *leaf = strrchr(dest, '/');
    leaf = leaf ? leaf + 1 : dest;
    size_t n = strlen(leaf);
    static const char *const suffixes[] = {".exe", "-script.py", ".pya"};
    for (size_t k = 0; k < 3; k++) {
        size_t sl = strlen(suffixes[k]);
        if (n > sl && strcmp(leaf + n - sl, suffixes[k]) == 0) {
            n -= sl;
            break;
        }
    }
    for (size_t i = 0; i < c->neps; i++)
        if (strlen(c->eps[i].name) == n && memcmp(c->eps[i].name, leaf, n) == 0)
            return 1;
    return 0;
}

/* Plan the wheel's own members: RECORD checks, destinations, modes. */
static sc_code plan_members(wheel_ctx *c, plan *p, const char *staging, sc_error *err)
{
    if (c->nrows > 1)
        qsort(c->rows, c->nrows, sizeof *c->rows, cmp_row);
    for (size_t i = 0; i < c->nrows; i++) {
        char *r = c->rows[i].path;
        size_t k = 0;
        while (r[k] == '.' && r[k + 1] == '/')
            k += 2; /* "./" as the zip reader drops it */
        if (k > 0)
            memmove(r, r + k, strlen(r + k) + 1);
    }
    if (c->nrows > 1)
        qsort(c->rows, c->nrows, sizeof *c->rows, cmp_row);
    for (size_t i = 1; i < c->nrows; i++)
        if (strcmp(c->rows[i - 1].path, c->rows[i].path) == 0 &&
            (strcmp(c->rows[i - 1].sha256, c->rows[i].sha256) != 0 ||
             c->rows[i - 1].size != c->rows[i].size))
            return mismatch(c, err, c->rows[i].path, "is listed twice in RECORD, differently");
    unsigned char *used = calloc(c->nrows + 1, 1);
    if (used == NULL)
        return sc_error_set(err, SC_E_OUT_OF_MEMORY, c->fname, "out of memory");
    sc_code rc = SC_OK;
    size_t n = sc_zip_count(c->z);
    size_t dl = strlen(c->dist_info);
    for (size_t i = 0; i < n && rc == SC_OK; i++) {
        const sc_zip_entry *e = sc_zip_at(c->z, i);
        if (e->type == SC_ZIP_DIR)
            continue;
        if (e->type == SC_ZIP_LINK) {
            rc = sc_error_set(err, SC_E_INVALID_WHEEL, c->fname,
                              "%s: %s is a symbolic link; wheels hold files only", c->fname,
                              e->path);
            break;
        }
        sc_wheel_record_row *row = find_row(c, e->path);
        if (row != NULL)
            for (size_t j = (size_t)(row - c->rows); j < c->nrows &&
                                                       strcmp(c->rows[j].path, e->path) == 0;
                 j++)
                used[j] = 1;
        int unhashed = unhashed_member(c, e->path);
        if (unhashed)
            continue; /* RECORD is rewritten; its signatures no longer apply */
        if (row == NULL) {
            rc = mismatch(c, err, e->path, "is not in RECORD");
            break;
        }
        if (row->sha256[0] == '\0') {
            rc = mismatch(c, err, e->path, "has no sha256 in RECORD");
            break;
        }
        if (row->size >= 0 && (uint64_t)row->size != e->size) {
            char what[120];
            snprintf(what, sizeof what, "is %llu bytes, RECORD says %lld",
                     (unsigned long long)e->size, (long long)row->size);
            rc = mismatch(c, err, e->path, what);
            break;
        }
        /* the wheel's own INSTALLER (if any) is replaced by ours */
        if (strncmp(e->path, c->dist_info, dl) == 0 && strcmp(e->path + dl, "/INSTALLER") == 0)
            continue;
        char *dest = NULL;
        int script = 0;
        rc = map_member(c, e->path, &dest, &script, err);
        if (rc != SC_OK)
            break;
        if (script && shadowed_by_entry_point(c, dest)) {
            free(dest); /* the entry point's launcher takes its place */
            continue;
        }
        item *it = plan_add(p);
        if (it == NULL) {
            free(dest);
            rc = sc_error_set(err, SC_E_OUT_OF_MEMORY, c->fname, "out of memory");
            break;
        }
        it->dest = dest;
        it->src = cat3(staging, "/tree/", e->path);
        if (it->src == NULL) {
            rc = sc_error_set(err, SC_E_OUT_OF_MEMORY, c->fname, "out of memory");
            break;
        }
        it->member = e->path;
        it->size = e->size;
        it->mode = (script || (e->mode & 0111u)) ? 0755u : 0644u;
        memcpy(it->sha256, row->sha256, sizeof it->sha256);
        if (script)
            it->mode |= 01000u; /* marks a script until rewrite_script runs */
    }
    for (size_t j = 0; j < c->nrows && rc == SC_OK; j++) {
        const char *r = c->rows[j].path;
        size_t rl = strlen(r);
        if (used[j] || (rl > 0 && r[rl - 1] == '/') || unhashed_member(c, r))
            continue;
        rc = mismatch(c, err, r, "is listed in RECORD but is not in the wheel");
    }
    free(used);
    return rc;
}

/* Hash every staged member against RECORD's sha256; rewrite #!python. */
static sc_code verify_staged(wheel_ctx *c, plan *p, const char *python, sc_error *err)
{
    for (size_t i = 0; i < p->n; i++) {
        item *it = &p->v[i];
        unsigned char d[SC_SHA256_LEN];
        char hex[65];
        /* the zip's own mode (say 0200) must not stop us reading it back */
        if (chmod(it->src, 0600) != 0)
            return sc_error_set(err, SC_E_IO, it->src, "%s: %s: %s", c->fname, it->src,
                                strerror(errno));
        sc_code rc = sc_sha256_file(it->src, d, err);
        if (rc != SC_OK)
            return rc;
        sc_hex_lower(d, SC_SHA256_LEN, hex);
        if (strcmp(hex, it->sha256) != 0)
            return mismatch(c, err, it->member, "does not have the sha256 RECORD lists");
        if (it->mode & 01000u) {
            it->mode &= 0777u;
            rc = rewrite_script(it, c->env, python, c->fname, err);
            if (rc != SC_OK)
                return rc;
        }
    }
    return SC_OK;
}

static sc_code plan_generated(wheel_ctx *c, plan *p, const char *staging, const char *python,
                              size_t *nlaunchers, sc_error *err)
{
    const sc_wheel_env *env = c->env;
    int windows = env->target->platform == SC_PLATFORM_WINDOWS;
    sc_code rc = SC_OK;
    for (size_t i = 0; i < c->neps && rc == SC_OK; i++) {
        const sc_wheel_entry_point *ep = &c->eps[i];
        sc_strbuf b;
        sc_strbuf_init(&b);
        rc = sc_python_entry_point_launcher(python, ep->module, ep->attr, &b, err);
        char *dest = NULL;
        if (rc == SC_OK) {
            char *d1 = cat3(env->scripts_dir, "/", ep->name);
            dest = d1 && windows ? cat3(d1, ep->gui ? "-script.pyw" : "-script.py", "") : d1;
            if (dest != d1)
                free(d1);
            if (dest == NULL)
                rc = sc_error_set(err, SC_E_OUT_OF_MEMORY, c->fname, "out of memory");
        }
        if (rc == SC_OK)
            rc = add_generated(p, staging, dest, b.p ? b.p : "", b.len, 0755, c->fname, err);
        sc_strbuf_free(&b);
    }
    *nlaunchers = c->neps;
    if (rc != SC_OK)
        return rc;
    char *dir = cat3(env->site_packages, "/", c->dist_info);
    char *dest = dir ? cat3(dir, "/INSTALLER", "") : NULL;
    const char *who = env->installer ? env->installer : SC_WHEEL_INSTALLER_DEFAULT;
    char *text = cat3(who, "\n", "");
    if (dest == NULL || text == NULL)
        rc = sc_error_set(err, SC_E_OUT_OF_MEMORY, c->fname, "out of memory");
    else if (strchr(who, '\n') != NULL)
        rc = sc_error_set(err, SC_E_USAGE, NULL, "wheel install: INSTALLER must be one line");
    if (rc == SC_OK) {
        rc = add_generated(p, staging, dest, text, strlen(text), 0644, c->fname, err);
        dest = NULL;
    }
    free(text);
    free(dest);
    /* two files for one destination: refused, naming both */
    if (rc == SC_OK && p->n > 1) {
        qsort(p->v, p->n, sizeof *p->v, cmp_dest);
        for (size_t i = 1; i < p->n; i++)
            if (strcmp(p->v[i - 1].dest, p->v[i].dest) == 0) {
                const char *a = p->v[i - 1].member ? p->v[i - 1].member : "a generated launcher";
                const char *b = p->v[i].member ? p->v[i].member : "a generated launcher";
                rc = sc_error_set(err, SC_E_INVALID_WHEEL, c->fname,
                                  "%s: %s and %s both install to %s", c->fname, a, b,
                                  p->v[i].dest);
                break;
            }
    }
    if (rc == SC_OK) {
        char *rdest = dir ? cat3(dir, "/RECORD", "") : NULL;
        sc_strbuf rec;
        sc_strbuf_init(&rec);
        if (rdest == NULL)
            rc = sc_error_set(err, SC_E_OUT_OF_MEMORY, c->fname, "out of memory");
        for (size_t i = 0; i < p->n && rc == SC_OK; i++)
            if (strcmp(p->v[i].dest, rdest) == 0) /* say .data/purelib/<dist-info>/RECORD */
                rc = sc_error_set(err, SC_E_INVALID_WHEEL, c->fname,
                                  "%s: %s and the RECORD written both install to %s", c->fname,
                                  p->v[i].member ? p->v[i].member : "a generated file", rdest);
        if (rc == SC_OK)
            rc = make_record(c, p, rdest, &rec, err);
        if (rc == SC_OK) {
            rc = add_generated(p, staging, rdest, rec.p ? rec.p : "", rec.len, 0644, c->fname,
                               err);
            rdest = NULL;
        }
        free(rdest);
        sc_strbuf_free(&rec);
        if (rc == SC_OK)
            qsort(p->v, p->n, sizeof *p->v, cmp_dest);
    }
    free(dir);
    return rc;
}

static sc_code fill_out(const wheel_ctx *c, plan *p, size_t nlaunchers, sc_wheel_installed *out,
                        sc_error *err)
{
    memset(out, 0, sizeof *out);
    out->name = strdup(c->name);
    out->version = strdup(c->version);
    out->dist_info = cat3(c->env->site_packages, "/", c->dist_info);
    out->files = calloc(p->n + 1, sizeof *out->files);
    if (out->name == NULL || out->version == NULL || out->dist_info == NULL ||
        out->files == NULL) {
        sc_wheel_installed_free(out);
        return sc_error_set(err, SC_E_OUT_OF_MEMORY, c->fname, "out of memory");
    }
    for (size_t i = 0; i < p->n; i++) {
        sc_wheel_file *f = &out->files[i];
        f->path = p->v[i].dest;
        p->v[i].dest = NULL;
        f->size = p->v[i].size;
        f->mode = p->v[i].mode;
        memcpy(f->sha256, p->v[i].sha256, sizeof f->sha256);
        out->bytes += f->size;
    }
    out->nfiles = p->n;
    out->nlaunchers = nlaunchers;
    return SC_OK;
}

sc_code sc_wheel_install(const char *wheel_path, const char *display, const char *prefix,
                         const sc_wheel_env *env, sc_wheel_installed *out, sc_error *err)
{
    sc_error_clear(err);
    if (out != NULL)
        memset(out, 0, sizeof *out);
    sc_code rc = check_env(env, err);
    if (rc != SC_OK)
        return rc;
    if (wheel_path == NULL || prefix == NULL)
        return sc_error_set(err, SC_E_USAGE, NULL, "wheel install: no wheel or no prefix");
    if (!sc_is_dir(prefix))
        return sc_error_set(err, SC_E_IO, prefix, "wheel install: %s is not a directory",
                            prefix);
    const char *loc = display ? display : wheel_path;
    char python_buf[64];
    const char *python = env->python_exe;
    if (python == NULL) {
        const char *ep = sc_target_python_entry_point(env->target);
        const char *slash = strrchr(ep, '/');
        snprintf(python_buf, sizeof python_buf, "%s", slash ? slash + 1 : ep);
        python = python_buf;
    }
    wheel_ctx c = {0};
    c.env = env;
    char *fname = NULL, *staging = NULL;
    sc_wheel w = {0};
    plan p = {0};
    size_t nlaunchers = 0;
    rc = parse_name(loc, &fname, &w, err);
    if (rc == SC_OK)
        rc = check_tags(&w, fname, env, err);
    if (rc == SC_OK) {
        c.fname = fname;
        c.w = &w;
        rc = open_wheel(&c, wheel_path, err);
    }
    if (rc == SC_OK) {
        staging = cat3(prefix, "/.scrollcase-wheel-XXXXXX", "");
        if (staging == NULL)
            rc = sc_error_set(err, SC_E_OUT_OF_MEMORY, fname, "out of memory");
        else if (mkdtemp(staging) == NULL) {
            rc = sc_error_set(err, SC_E_IO, prefix, "%s: cannot stage in %s: %s", fname, prefix,
                              strerror(errno));
            free(staging);
            staging = NULL;
        }
    }
    if (rc == SC_OK)
        rc = plan_members(&c, &p, staging, err);
    if (rc == SC_OK) {
        sc_zip_extract_options xo = {env->jobs, NULL, NULL};
        char *tree = cat3(staging, "/tree", "");
        if (tree == NULL)
            rc = sc_error_set(err, SC_E_OUT_OF_MEMORY, fname, "out of memory");
        else if (mkdir(tree, 0700) != 0)
            rc = sc_error_set(err, SC_E_IO, tree, "%s: %s: %s", fname, tree, strerror(errno));
        else
            rc = sc_zip_extract_opts(c.z, tree, &xo, err);
        if (rc != SC_OK && rc != SC_E_OUT_OF_MEMORY && strstr(err->message, fname) == NULL)
            sc_error_prefix(err, fname);
        free(tree);
    }
    if (rc == SC_OK)
        rc = verify_staged(&c, &p, python, err);
    if (rc == SC_OK)
        rc = plan_generated(&c, &p, staging, python, &nlaunchers, err);
    for (size_t i = 0; i < p.n && rc == SC_OK; i++)
        rc = sc_path_check(p.v[i].dest, strlen(p.v[i].dest), fname, err);
    for (size_t i = 0; i < p.n && rc == SC_OK; i++)
        rc = walk_parents(prefix, p.v[i].dest, 0, fname, err);
    for (size_t i = 0; i < p.n && rc == SC_OK; i++) {
        item *it = &p.v[i];
        char *to = cat3(prefix, "/", it->dest);
        if (to == NULL) {
            rc = sc_error_set(err, SC_E_OUT_OF_MEMORY, fname, "out of memory");
            break;
        }
        /* siblings are adjacent in byte order: their parents exist already */
        const char *slash = strrchr(it->dest, '/');
        size_t plen = slash ? (size_t)(slash - it->dest) : 0;
        const char *prev = i > 0 ? p.v[i - 1].dest : NULL;
        if (plen == 0 || prev == NULL || strncmp(prev, it->dest, plen) != 0 ||
            prev[plen] != '/' || strchr(prev + plen + 1, '/') != NULL)
            rc = walk_parents(prefix, it->dest, 1, fname, err);
        if (rc == SC_OK && chmod(it->src, it->mode) != 0)
            rc = sc_error_set(err, SC_E_IO, it->src, "%s: %s: %s", fname, it->src,
                              strerror(errno));
        if (rc == SC_OK && rename(it->src, to) != 0)
            rc = sc_error_set(err, SC_E_IO, to, "%s: cannot install %s: %s", fname, to,
                              strerror(errno));
        free(to);
    }
    if (staging != NULL) {
        sc_error rerr;
        if (sc_file_remove_tree(staging, &rerr) != SC_OK && rc == SC_OK)
            rc = sc_error_set(err, rerr.code, staging, "%s", rerr.message);
    }
    if (rc == SC_OK && out != NULL)
        rc = fill_out(&c, &p, nlaunchers, out, err);
    plan_free(&p);
    free(staging);
    ctx_free(&c);
    sc_wheel_free(&w);
    free(fname);
    return rc;
}
