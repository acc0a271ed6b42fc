/* SPDX-License-Identifier: Apache-2.0 */
/*
 * requirements.c — pip requirements.txt lines as conda-forge dependencies
 * (requirements.h).  One pass over the text, one line at a time.
 */
#include "scrollcase/requirements.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

/* PyPI names conda-forge packages under another name (only sure ones). */
static const struct {
    const char *pypi, *conda;
} renames[] = {
    {"opencv-python", "opencv"},     {"opencv-python-headless", "opencv"},
    {"psycopg2-binary", "psycopg2"}, {"msgpack", "msgpack-python"},
    {"tables", "pytables"},          {"torch", "pytorch"},
};

static char *dup_n(const char *s, size_t n)
{
    char *p = malloc(n + 1);
    if (p != NULL) {
        memcpy(p, s, n);
        p[n] = '\0';
    }
    return p;
}

static int name_char(unsigned char c)
{
    return isalnum(c) || c == '.' || c == '_' || c == '-';
}

/* ^[a-z0-9](?:[a-z0-9._-]*[a-z0-9])?$ (what `add dep` accepts) */
static int conda_name(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || !(islower((unsigned char)s[0]) || isdigit((unsigned char)s[0])) ||
        !(islower((unsigned char)s[n - 1]) || isdigit((unsigned char)s[n - 1])))
        return 0;
    for (size_t i = 0; i < n; i++)
        if (!(islower((unsigned char)s[i]) || isdigit((unsigned char)s[i]) || s[i] == '.' ||
              s[i] == '_' || s[i] == '-'))
            return 0;
    return 1;
}

static sc_code add_skip(sc_requirements *r, const char *line, size_t n, const char *reason,
                        sc_error *err)
{
    if (r->nskipped == r->skip_cap) { /* doubling: n lines, linear time */
        size_t nc = r->skip_cap ? r->skip_cap * 2 : 16;
        sc_requirement_skip *g = realloc(r->skipped, nc * sizeof *g);
        if (g == NULL)
            return sc_error_set(err, SC_E_OUT_OF_MEMORY, NULL, "out of memory");
        r->skipped = g;
        r->skip_cap = nc;
    }
    sc_requirement_skip *g = r->skipped;
    g[r->nskipped].line = dup_n(line, n);
    g[r->nskipped].reason = reason;
    if (g[r->nskipped].line == NULL)
        return sc_error_set(err, SC_E_OUT_OF_MEMORY, NULL, "out of memory");
    r->nskipped++;
    return SC_OK;
}

/* One line, comment removed, trimmed (n > 0). */
static sc_code one_line(sc_requirements *r, const char *s, size_t n, sc_error *err)
{
    if (s[0] == '-')
        return add_skip(r, s, n, "a pip option; conda-forge has no equivalent", err);
    for (size_t i = 0; i < n; i++)
        if (s[i] == '@' || (i + 2 < n && memcmp(s + i, "://", 3) == 0))
            return add_skip(r, s, n, "a URL or direct reference; a conda dependency names a "
                                     "package and a version",
                            err);
    size_t end = n; /* the environment marker is dropped */
    for (size_t i = 0; i < n; i++)
        if (s[i] == ';') {
            end = i;
            break;
        }
    while (end > 0 && isspace((unsigned char)s[end - 1]))
        end--;
    size_t k = 0;
    while (k < end && name_char((unsigned char)s[k]))
        k++;
    if (k == 0)
        return add_skip(r, s, n, "not a requirement this reader understands", err);
    char *name = dup_n(s, k);
    if (name == NULL)
        return sc_error_set(err, SC_E_OUT_OF_MEMORY, NULL, "out of memory");
    for (char *p = name; *p; p++)
        *p = *p == '_' ? '-' : (char)tolower((unsigned char)*p);
    const char *conda = name;
    for (size_t i = 0; i < sizeof renames / sizeof renames[0]; i++)
        if (strcmp(name, renames[i].pypi) == 0)
            conda = renames[i].conda;
    size_t at = k;
    while (at < end && isspace((unsigned char)s[at]))
        at++;
    sc_code c = SC_OK;
    if (at < end && s[at] == '[') {
        size_t close = at;
        while (close < end && s[close] != ']')
            close++;
        if (close == end) {
            free(name);
            return add_skip(r, s, n, "not a requirement this reader understands", err);
        }
        c = add_skip(r, s, close + 1, "extras are pip's; add the packages they bring yourself",
                     err);
        at = close + 1;
    }
    /* the specifiers, spaces removed */
    char *spec = malloc(end - at + 2);
    size_t m = 0;
    int bad_spec = 0;
    for (size_t i = at; spec != NULL && i < end; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (isspace(ch))
            continue;
        bad_spec |= ch == '"' || ch == '\\' || ch < 0x20 || ch == 0x7f;
        spec[m++] = (char)ch;
    }
    if (spec != NULL && m == 0)
        spec[m++] = '*';
    if (spec != NULL)
        spec[m] = '\0';
    if (c == SC_OK && spec == NULL)
        c = sc_error_set(err, SC_E_OUT_OF_MEMORY, NULL, "out of memory");
    if (c == SC_OK && (!conda_name(conda) || bad_spec)) {
        c = add_skip(r, s, n,
                     bad_spec ? "its version specifiers cannot be written in pixi.toml"
                              : "not a conda package name",
                     err);
        free(spec);
        free(name);
        return c;
    }
    if (c == SC_OK) {
        sc_requirement *d = r->deps;
        if (r->ndeps == r->dep_cap) {
            size_t nc = r->dep_cap ? r->dep_cap * 2 : 16;
            d = realloc(r->deps, nc * sizeof *d);
            if (d != NULL) {
                r->deps = d;
                r->dep_cap = nc;
            }
        }
        if (d == NULL) {
            c = sc_error_set(err, SC_E_OUT_OF_MEMORY, NULL, "out of memory");
        } else {
            sc_requirement *q = &d[r->ndeps];
            q->spec = spec;
            spec = NULL;
            q->name = strdup(conda);
            int changed = strlen(conda) != k || strncmp(conda, s, k) != 0;
            q->from = changed ? dup_n(s, k) : NULL;
            r->ndeps++;
            if (q->name == NULL || (changed && q->from == NULL))
                c = sc_error_set(err, SC_E_OUT_OF_MEMORY, NULL, "out of memory");
        }
    }
    free(spec);
    free(name);
    return c;
}

sc_code sc_requirements_parse(const char *text, size_t len, sc_requirements *out,
                              sc_error *err)
{
    memset(out, 0, sizeof *out);
    size_t i = 0;
    while (i < len) {
        size_t start = i;
        while (i < len && text[i] != '\n')
            i++;
        size_t end = i;
        if (i < len)
            i++; /* the LF */
        for (size_t k = start; k < end; k++)
            if (text[k] == '#' || text[k] == '\0') {
                end = k;
                break;
            }
        while (start < end && isspace((unsigned char)text[start]))
            start++;
        while (end > start && isspace((unsigned char)text[end - 1]))
            end--;
        if (end == start)
            continue;
        sc_code c = one_line(out, text + start, end - start, err);
        if (c != SC_OK) {
            sc_requirements_free(out);
            return c;
        }
    }
    return SC_OK;
}

void sc_requirements_free(sc_requirements *r)
{
    for (size_t i = 0; i < r->ndeps; i++) {
        free(r->deps[i].name);
        free(r->deps[i].spec);
        free(r->deps[i].from);
    }
    for (size_t i = 0; i < r->nskipped; i++)
        free(r->skipped[i].line);
    free(r->deps);
    free(r->skipped);
    memset(r, 0, sizeof *r);
}
