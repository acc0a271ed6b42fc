/* SPDX-License-Identifier: Apache-2.0 */
/*
 * corpus.c — discovering and reading cases (see corpus.h).
 */
#include "corpus.h"

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "scrollcase/error.h"
#include "scrollcase/path.h"
#include "util.h"

const char *sc_status_name(sc_status s)
{
    switch (s) {
    case SC_ST_PASS: return "pass";
    case SC_ST_FAIL: return "fail";
    case SC_ST_XFAIL: return "xfail";
    case SC_ST_XPASS: return "xpass";
    case SC_ST_UNSUPPORTED: return "unsupported";
    case SC_ST_ERROR: return "error";
    case SC_ST_PENDING: break;
    }
    return "pending";
}

static int parse_semver(const char *s, unsigned long v[3])
{
    for (int i = 0; i < 3; i++) {
        if (*s < '0' || *s > '9')
            return -1;
        if (*s == '0' && s[1] >= '0' && s[1] <= '9')
            return -1;
        unsigned long n = 0;
        while (*s >= '0' && *s <= '9') {
            if (n > 100000000UL)
                return -1;
            n = n * 10 + (unsigned long)(*s - '0');
            s++;
        }
        v[i] = n;
        if (i < 2) {
            if (*s != '.')
                return -1;
            s++;
        }
    }
    return *s == '\0' ? 0 : -1;
}

int sc_semver_cmp(const char *a, const char *b)
{
    unsigned long x[3], y[3];
    if (a == NULL || b == NULL || parse_semver(a, x) != 0 ||
        parse_semver(b, y) != 0)
        return -2;
    for (int i = 0; i < 3; i++) {
        if (x[i] != y[i])
            return x[i] < y[i] ? -1 : 1;
    }
    return 0;
}

/* ---- directory listing, sorted bytewise --------------------------------- */

typedef struct names {
    char **v;
    size_t n;
} names;

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Entries of dir (no '.'-names) that are directories (want_dirs) or not. */
static int list_dir(const char *dir, int want_dirs, names *out)
{
    out->v = NULL;
    out->n = 0;
    DIR *d = opendir(dir);
    if (d == NULL)
        return -1;
    size_t cap = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char *full = sc_xjoin(dir, e->d_name);
        struct stat st;
        int is_dir = stat(full, &st) == 0 && S_ISDIR(st.st_mode);
        free(full);
        if (is_dir != want_dirs)
            continue;
        if (out->n == cap) {
            cap = cap ? cap * 2 : 16;
            out->v = sc_xrealloc(out->v, cap * sizeof *out->v);
        }
        out->v[out->n++] = sc_xstrdup(e->d_name);
    }
    closedir(d);
    if (out->n > 1)
        qsort(out->v, out->n, sizeof *out->v, cmp_names);
    return 0;
}

static void names_free(names *n)
{
    for (size_t i = 0; i < n->n; i++)
        free(n->v[i]);
    free(n->v);
}

/* ---- reading one case.json ---------------------------------------------- */

static void set_error(sc_case *c, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static void set_error(sc_case *c, const char *fmt, ...)
{
    sc_buf m = {0};
    va_list ap;
    va_start(ap, fmt);
    sc_buf_vprintf(&m, fmt, ap);
    va_end(ap);
    free(c->load_error);
    c->load_error = m.data ? m.data : sc_xstrdup("invalid case");
}

/* Member lookup that tolerates a missing or non-object container. */
static const sc_json *member(const sc_json *o, const char *key)
{
    if (o == NULL || o->type != SC_JSON_OBJECT)
        return NULL;
    return sc_json_get(o, key);
}

static const char *member_str(const sc_json *o, const char *key)
{
    const sc_json *v = member(o, key);
    return v != NULL ? sc_json_cstr(v) : NULL;
}

static int is_hex64(const char *s)
{
    if (s == NULL || strlen(s) != 64)
        return 0;
    for (; *s; s++)
        if (!((*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'f')))
            return 0;
    return 1;
}

static int all_strings(const sc_json *a)
{
    if (a == NULL || a->type != SC_JSON_ARRAY)
        return 0;
    for (size_t i = 0; i < a->length; i++)
        if (sc_json_cstr(sc_json_at(a, i)) == NULL)
            return 0;
    return 1;
}

static void load_case(sc_case *c)
{
    char *path = sc_xjoin(c->dir, "case.json");
    sc_error err;
    sc_error_clear(&err);
    if (sc_json_parse_file_depth(path, SC_JSON_ENVELOPE_DEPTH, &c->doc, &err) != SC_OK) {
        free(path);
        c->doc = NULL;
        set_error(c, "case.json cannot be read: %s", err.message);
        return;
    }
    free(path);
    const sc_json *d = c->doc;
    if (!sc_json_is(d, SC_JSON_OBJECT)) {
        set_error(c, "case.json is not a JSON object");
        return;
    }
    c->id = member_str(d, "id");
    if (c->id == NULL) {
        set_error(c, "case.json: \"id\" is missing or not a string");
        return;
    }
    if (strcmp(c->id, c->dirname) != 0) {
        set_error(c, "case.json: id \"%s\" differs from the directory name \"%s\"",
                  c->id, c->dirname);
        return;
    }
    const char *area = member_str(d, "area");
    if (area == NULL || strcmp(area, c->area) != 0) {
        set_error(c, "case.json: area \"%s\" differs from the area directory \"%s\"",
                  area ? area : "(missing)", c->area);
        return;
    }
    c->operation = member_str(d, "operation");
    if (c->operation == NULL || c->operation[0] == '\0') {
        set_error(c, "case.json: \"operation\" is missing or empty");
        return;
    }
    c->kind = member_str(d, "kind");
    if (c->kind == NULL || (strcmp(c->kind, "valid") != 0 &&
                            strcmp(c->kind, "invalid") != 0 &&
                            strcmp(c->kind, "acceptable") != 0)) {
        set_error(c, "case.json: \"kind\" must be valid, invalid or acceptable");
        return;
    }
    c->since = member_str(d, "since");
    if (sc_semver_cmp(c->since, "0.0.0") == -2) {
        set_error(c, "case.json: \"since\" is not a version MAJOR.MINOR.PATCH");
        return;
    }
    const sc_json *req = member(d, "requires");
    if (req != NULL && !all_strings(req)) {
        set_error(c, "case.json: \"requires\" must be an array of strings");
        return;
    }
    c->requires = req;

    const sc_json *inputs = member(d, "inputs");
    if (inputs == NULL || inputs->type != SC_JSON_ARRAY) {
        set_error(c, "case.json: \"inputs\" must be an array");
        return;
    }
    c->inputs = sc_xmalloc(sizeof *c->inputs * (inputs->length + 1));
    for (size_t i = 0; i < inputs->length; i++) {
        const sc_json *in = sc_json_at(inputs, i);
        sc_input *x = &c->inputs[c->ninputs];
        x->file = member_str(in, "file");
        x->role = member_str(in, "role");
        x->sha256 = member_str(in, "sha256");
        if (in == NULL || in->type != SC_JSON_OBJECT || x->file == NULL ||
            x->role == NULL || x->sha256 == NULL) {
            set_error(c, "case.json: every input needs string members file, role and sha256");
            return;
        }
        if (!is_hex64(x->sha256)) {
            set_error(c, "case.json: input %s: sha256 must be 64 lowercase hex digits",
                      x->file);
            return;
        }
        sc_error perr;
        sc_error_clear(&perr);
        if (sc_path_check(x->file, strlen(x->file), "inputs[].file", &perr) != SC_OK) {
            set_error(c, "case.json: input file \"%s\" is not a safe relative path",
                      x->file);
            return;
        }
        c->ninputs++;
    }

    const sc_json *expect = member(d, "expect");
    const char *outcome = member_str(expect, "outcome");
    if (outcome == NULL ||
        (strcmp(outcome, "accept") != 0 && strcmp(outcome, "reject") != 0)) {
        set_error(c, "case.json: \"expect.outcome\" must be accept or reject");
        return;
    }
    c->expect_accept = strcmp(outcome, "accept") == 0;
    if (c->expect_accept) {
        c->expect_output = member(expect, "output");
        if (member(expect, "errorCodes") != NULL) {
            set_error(c, "case.json: an accept expectation has no errorCodes");
            return;
        }
    } else {
        c->error_codes = member(expect, "errorCodes");
        if (!all_strings(c->error_codes) || c->error_codes->length == 0) {
            set_error(c, "case.json: a reject expectation needs a non-empty errorCodes array of strings");
            return;
        }
        for (size_t i = 0; i < c->error_codes->length; i++) {
            const char *code = sc_json_cstr(sc_json_at(c->error_codes, i));
            sc_code k = sc_code_from_name(code);
            if (k == SC_CODE_COUNT_ || k == SC_OK) {
                set_error(c, "case.json: \"%s\" in errorCodes is not an error code",
                          code);
                return;
            }
        }
        if (member(expect, "output") != NULL) {
            set_error(c, "case.json: a reject expectation has no output");
            return;
        }
    }
    if ((strcmp(c->kind, "valid") == 0 && !c->expect_accept) ||
        (strcmp(c->kind, "invalid") == 0 && c->expect_accept)) {
        set_error(c, "case.json: kind \"%s\" contradicts expect.outcome \"%s\"",
                  c->kind, outcome);
        return;
    }
}

static int cmp_case_id(const void *a, const void *b)
{
    const sc_case *x = *(sc_case *const *)a, *y = *(sc_case *const *)b;
    int r = strcmp(x->id, y->id);
    if (r != 0)
        return r;
    return strcmp(x->label, y->label);
}

static void mark_duplicate_ids(sc_corpus *c)
{
    sc_case **v = sc_xmalloc(sizeof *v * (c->count + 1));
    size_t n = 0;
    for (size_t i = 0; i < c->count; i++)
        if (c->cases[i].load_error == NULL)
            v[n++] = &c->cases[i];
    if (n > 1)
        qsort(v, n, sizeof *v, cmp_case_id);
    for (size_t i = 1; i < n; i++) {
        if (strcmp(v[i - 1]->id, v[i]->id) == 0) {
            set_error(v[i], "case id \"%s\" is also used by %s", v[i]->id,
                      v[i - 1]->label);
        }
    }
    free(v);
}

int sc_corpus_load(const char *root, sc_corpus *out, char *msg, size_t msgsize)
{
    out->cases = NULL;
    out->count = 0;
    names areas;
    if (list_dir(root, 1, &areas) != 0) {
        snprintf(msg, msgsize, "cannot list corpus %s: %s", root, strerror(errno));
        return -1;
    }
    size_t cap = 0;
    for (size_t a = 0; a < areas.n; a++) {
        char *adir = sc_xjoin(root, areas.v[a]);
        names ids;
        if (list_dir(adir, 1, &ids) != 0) {
            snprintf(msg, msgsize, "cannot list %s: %s", adir, strerror(errno));
            free(adir);
            names_free(&areas);
            sc_corpus_free(out);
            return -1;
        }
        for (size_t i = 0; i < ids.n; i++) {
            if (out->count == cap) {
                cap = cap ? cap * 2 : 64;
                out->cases = sc_xrealloc(out->cases, cap * sizeof *out->cases);
            }
            sc_case *c = &out->cases[out->count++];
            memset(c, 0, sizeof *c);
            c->area = sc_xstrdup(areas.v[a]);
            c->dirname = sc_xstrdup(ids.v[i]);
            c->dir = sc_xjoin(adir, ids.v[i]);
            c->label = sc_xjoin(c->area, c->dirname);
            c->exit_code = -1;
            load_case(c);
        }
        names_free(&ids);
        free(adir);
    }
    names_free(&areas);
    mark_duplicate_ids(out);
    return 0;
}

void sc_corpus_free(sc_corpus *c)
{
    for (size_t i = 0; i < c->count; i++) {
        sc_case *x = &c->cases[i];
        free(x->area);
        free(x->dirname);
        free(x->dir);
        free(x->label);
        sc_json_free(x->doc);
        free(x->load_error);
        free(x->inputs);
        free(x->reason);
        free(x->stderr_excerpt);
        sc_json_free(x->got);
    }
    free(c->cases);
    c->cases = NULL;
    c->count = 0;
}
