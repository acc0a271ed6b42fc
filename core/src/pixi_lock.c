/* SPDX-License-Identifier: Apache-2.0 */
/*
 * pixi_lock.c — the pixi.lock reader (pixi_lock.h).
 *
 * Guarantees: see the header.  libyaml's events are turned into a JSON tree
 * (mappings → objects, sequences → arrays, scalars → strings) with the
 * position of every node kept beside it, then the tree is read as the lock
 * format.  Environment entries are matched to packages through a sorted
 * index, never by a nested walk.
 */
#define _POSIX_C_SOURCE 200809L

#include "scrollcase/pixi_lock.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#include "scrollcase/digest.h"
#include "scrollcase/file.h"
#include "scrollcase/json.h"
#include "scrollcase/wheel.h"

#define MAX_MEMBERS 100000

typedef struct mark {
    const sc_json *node;
    size_t line, col;
} mark;

typedef struct frame {
    sc_json *node;
    char *key; /* mappings: the key whose value comes next */
} frame;

typedef struct lr {
    const char *name;
    sc_error *err;
    sc_code code;
    mark *marks;
    size_t nmarks, capmarks;
} lr;

static sc_code failv(lr *r, size_t line, size_t col, const char *fmt, va_list ap)
{
    if (r->code != SC_OK)
        return r->code;
    char msg[256];
    vsnprintf(msg, sizeof msg, fmt, ap);
    if (line == 0)
        r->code = sc_error_set(r->err, SC_E_INVALID_LOCK, r->name, "%s: %s", r->name, msg);
    else
        r->code = sc_error_set(r->err, SC_E_INVALID_LOCK, r->name, "%s:%zu:%zu: %s",
                               r->name, line, col, msg);
    return r->code;
}

static sc_code fail_at(lr *r, size_t line, size_t col, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
static sc_code fail_at(lr *r, size_t line, size_t col, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sc_code c = failv(r, line, col, fmt, ap);
    va_end(ap);
    return c;
}

/* Fail naming the position of node (when known). */
static sc_code fail_node(lr *r, const sc_json *node, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
static sc_code fail_node(lr *r, const sc_json *node, const char *fmt, ...)
{
    size_t line = 0, col = 0;
    for (size_t i = 0; node != NULL && i < r->nmarks; i++)
        if (r->marks[i].node == node) {
            line = r->marks[i].line;
            col = r->marks[i].col;
            break;
        }
    va_list ap;
    va_start(ap, fmt);
    sc_code c = failv(r, line, col, fmt, ap);
    va_end(ap);
    return c;
}

static sc_code oom(lr *r)
{
    if (r->code == SC_OK)
        r->code = sc_error_set(r->err, SC_E_OUT_OF_MEMORY, r->name,
                               "out of memory reading %s", r->name);
    return r->code;
}

static int add_mark(lr *r, const sc_json *node, const yaml_mark_t *m)
{
    if (r->nmarks == r->capmarks) {
        size_t nc = r->capmarks ? r->capmarks * 2 : 256;
        mark *nm = realloc(r->marks, nc * sizeof *nm);
        if (nm == NULL)
            return -1;
        r->marks = nm;
        r->capmarks = nc;
    }
    r->marks[r->nmarks].node = node;
    r->marks[r->nmarks].line = m->line + 1;
    r->marks[r->nmarks].col = m->column + 1;
    r->nmarks++;
    return 0;
}

/* ---- YAML events → tree ------------------------------------------------ */

static sc_code attach(lr *r, frame *stack, size_t depth, sc_json **root,
                      sc_json *node, const yaml_mark_t *m)
{
    if (add_mark(r, node, m) != 0) {
        sc_json_free(node);
        return oom(r);
    }
    if (depth == 0) {
        *root = node;
        return SC_OK;
    }
    frame *top = &stack[depth - 1];
    if (top->node->type == SC_JSON_ARRAY) {
        if (top->node->length >= MAX_MEMBERS) {
            sc_json_free(node);
            return fail_at(r, m->line + 1, m->column + 1, "sequence longer than %d", MAX_MEMBERS);
        }
        if (sc_json_array_append(top->node, node) != 0)
            return oom(r);
        return SC_OK;
    }
    /* mapping: the node is the value of the pending key */
    if (top->node->length >= MAX_MEMBERS) {
        sc_json_free(node);
        return fail_at(r, m->line + 1, m->column + 1, "mapping larger than %d", MAX_MEMBERS);
    }
    int rc = sc_json_object_append(top->node, top->key, node);
    free(top->key);
    top->key = NULL;
    return rc == 0 ? SC_OK : oom(r);
}

static sc_code build_tree(lr *r, const char *bytes, size_t len, sc_json **out)
{
    yaml_parser_t parser;
    if (!yaml_parser_initialize(&parser))
        return oom(r);
    yaml_parser_set_input_string(&parser, (const unsigned char *)bytes, len);
    frame stack[SC_LOCK_MAX_DEPTH + 1];
    size_t depth = 0;
    sc_json *root = NULL;
    int documents = 0, done = 0;
    while (!done && r->code == SC_OK) {
        yaml_event_t ev;
        if (!yaml_parser_parse(&parser, &ev)) {
            fail_at(r, parser.problem_mark.line + 1, parser.problem_mark.column + 1,
                    "not YAML: %s", parser.problem ? parser.problem : "parse error");
            break;
        }
        const yaml_mark_t *m = &ev.start_mark;
        frame *top = depth > 0 ? &stack[depth - 1] : NULL;
        int wants_key = top != NULL && top->node->type == SC_JSON_OBJECT && top->key == NULL;
        switch (ev.type) {
        case YAML_STREAM_END_EVENT:
            done = 1;
            break;
        case YAML_DOCUMENT_START_EVENT:
            if (++documents > 1)
                fail_at(r, m->line + 1, m->column + 1, "more than one YAML document");
            break;
        case YAML_ALIAS_EVENT:
            fail_at(r, m->line + 1, m->column + 1, "aliases are not part of the lock format");
            break;
        case YAML_SCALAR_EVENT: {
            const char *v = (const char *)ev.data.scalar.value;
            size_t n = ev.data.scalar.length;
            if (wants_key) {
                if (memchr(v, '\0', n) != NULL) {
                    fail_at(r, m->line + 1, m->column + 1, "NUL in a key");
                    break;
                }
                if (sc_json_get(top->node, v) != NULL) {
                    fail_at(r, m->line + 1, m->column + 1, "key \"%.80s\" appears twice", v);
                    break;
                }
                top->key = strdup(v);
                if (top->key == NULL)
                    oom(r);
                break;
            }
            if (depth == 0 && root != NULL) {
                fail_at(r, m->line + 1, m->column + 1, "more than one top-level node");
                break;
            }
            sc_json *node = sc_json_new_string_len(v, n);
            if (node == NULL) {
                oom(r);
                break;
            }
            attach(r, stack, depth, &root, node, m);
            break;
        }
        case YAML_SEQUENCE_START_EVENT:
        case YAML_MAPPING_START_EVENT: {
            if (wants_key) {
                fail_at(r, m->line + 1, m->column + 1, "a key that is not a scalar");
                break;
            }
            if (depth == SC_LOCK_MAX_DEPTH) {
                fail_at(r, m->line + 1, m->column + 1, "nested deeper than %d", SC_LOCK_MAX_DEPTH);
                break;
            }
            if (depth == 0 && root != NULL) {
                fail_at(r, m->line + 1, m->column + 1, "more than one top-level node");
                break;
            }
            sc_json *node = ev.type == YAML_SEQUENCE_START_EVENT ? sc_json_new_array()
                                                                 : sc_json_new_object();
            if (node == NULL) {
                oom(r);
                break;
            }
            if (attach(r, stack, depth, &root, node, m) != SC_OK)
                break;
            stack[depth].node = node;
            stack[depth].key = NULL;
            depth++;
            break;
        }
        case YAML_SEQUENCE_END_EVENT:
        case YAML_MAPPING_END_EVENT:
            if (depth > 0) {
                depth--;
                free(stack[depth].key);
                stack[depth].key = NULL;
            }
            break;
        default:
            break;
        }
        yaml_event_delete(&ev);
    }
    for (size_t i = 0; i < depth; i++)
        free(stack[i].key);
    yaml_parser_delete(&parser);
    if (r->code != SC_OK) {
        sc_json_free(root);
        return r->code;
    }
    if (root == NULL)
        return fail_at(r, 0, 0, "empty document");
    *out = root;
    return SC_OK;
}

/* ---- the tree → the lock ------------------------------------------------ */

static sc_code opt_string(lr *r, const sc_json *obj, const char *key, const char *where,
                          char **out)
{
    const sc_json *v = sc_json_get(obj, key);
    *out = NULL;
    if (v == NULL)
        return SC_OK;
    if (v->type != SC_JSON_STRING || memchr(v->string, '\0', v->length) != NULL)
        return fail_node(r, v, "%s.%s must be a string", where, key);
    *out = strdup(v->string);
    return *out ? SC_OK : oom(r);
}

static sc_code opt_strings(lr *r, const sc_json *obj, const char *key, const char *where,
                           char ***out, size_t *n)
{
    const sc_json *v = sc_json_get(obj, key);
    *out = NULL;
    *n = 0;
    if (v == NULL)
        return SC_OK;
    if (v->type != SC_JSON_ARRAY)
        return fail_node(r, v, "%s.%s must be a sequence of strings", where, key);
    if (v->length == 0)
        return SC_OK;
    char **a = calloc(v->length, sizeof *a);
    if (a == NULL)
        return oom(r);
    *out = a;
    for (const sc_json *e = v->child; e != NULL; e = e->next) {
        if (e->type != SC_JSON_STRING || memchr(e->string, '\0', e->length) != NULL)
            return fail_node(r, e, "%s.%s must be a sequence of strings", where, key);
        a[*n] = strdup(e->string);
        if (a[*n] == NULL)
            return oom(r);
        (*n)++;
    }
    return SC_OK;
}

static void package_free(sc_lock_package *p)
{
    free(p->location);
    free(p->filename);
    free(p->name);
    free(p->version);
    free(p->build);
    free(p->subdir);
    free(p->sha256);
    free(p->requires_python);
    free(p->license);
    for (size_t i = 0; i < p->ndepends; i++)
        free(p->depends[i]);
    free(p->depends);
    for (size_t i = 0; i < p->nrequires_dist; i++)
        free(p->requires_dist[i]);
    free(p->requires_dist);
}

/* The kind and location of a package or an environment entry.  Every
 * version names the location by the kind (`conda:`, `pypi:`, and in v7
 * `conda_source:`); a v5 package may instead say `kind:` and give `url:` or
 * `path:` (v5_tag). */
static sc_code kind_of(lr *r, const sc_json *e, const char *where, int version, int v5_tag,
                       sc_lock_kind *kind, int *source, const char **location)
{
    if (e->type != SC_JSON_OBJECT)
        return fail_node(r, e, "%s must be a mapping", where);
    const sc_json *c = sc_json_get(e, "conda"), *p = sc_json_get(e, "pypi");
    const sc_json *s = version >= 7 ? sc_json_get(e, "conda_source") : NULL;
    const sc_json *k = v5_tag && version == 5 ? sc_json_get(e, "kind") : NULL;
    const char *key = c ? "conda" : p ? "pypi" : "conda_source";
    if (k != NULL && c == NULL && p == NULL) {
        if (k->type != SC_JSON_STRING ||
            (strcmp(k->string, "conda") != 0 && strcmp(k->string, "pypi") != 0))
            return fail_node(r, k, "%s.kind must be conda or pypi", where);
        const sc_json *u = sc_json_get(e, "url"), *pa = sc_json_get(e, "path");
        if ((u == NULL) == (pa == NULL))
            return fail_node(r, e, "%s must have exactly one of url and path", where);
        c = strcmp(k->string, "conda") == 0 ? (u ? u : pa) : NULL;
        p = c == NULL ? (u ? u : pa) : NULL;
        key = u ? "url" : "path";
    } else if ((c != NULL) + (p != NULL) + (s != NULL) != 1) {
        return fail_node(r, e, version >= 7
                                   ? "%s must have exactly one of conda, conda_source and pypi"
                                   : "%s must have exactly one of conda and pypi",
                         where);
    }
    const sc_json *v = c ? c : p ? p : s;
    if (v->type != SC_JSON_STRING || v->length == 0 || memchr(v->string, '\0', v->length))
        return fail_node(r, v, "%s.%s must be a non-empty string", where, key);
    *kind = p ? SC_LOCK_PYPI : SC_LOCK_CONDA;
    *source = s != NULL;
    *location = v->string;
    return SC_OK;
}

/* The name of a v7 source identifier "name[hash] @ location". */
static char *source_name(const char *id)
{
    size_t n = strcspn(id, "[ @");
    return n > 0 ? strndup(id, n) : strdup("");
}

/* The URL directory just above the file: ".../linux-64/x.conda" → "linux-64".
 * Returns 0 with *out NULL when the location has no such directory, -1 when
 * out of memory. */
static int url_subdir(const char *location, char **out)
{
    *out = NULL;
    size_t end = strcspn(location, "?#");
    size_t s = end;
    while (s > 0 && location[s - 1] != '/')
        s--;
    if (s == 0)
        return 0;
    size_t d = s - 1, b = d;
    while (b > 0 && location[b - 1] != '/')
        b--;
    if (d == b)
        return 0;
    *out = strndup(location + b, d - b);
    return *out ? 0 : -1;
}

static sc_code read_sha256(lr *r, const sc_json *e, const char *where, char **out)
{
    if (opt_string(r, e, "sha256", where, out) != SC_OK)
        return r->code;
    if (*out != NULL) {
        size_t n = strlen(*out);
        for (size_t i = 0; i < n; i++)
            if ((*out)[i] >= 'A' && (*out)[i] <= 'F')
                (*out)[i] = (char)((*out)[i] - 'A' + 'a');
        if (!sc_is_lower_hex(*out, n, 64))
            return fail_node(r, sc_json_get(e, "sha256"), "%s.sha256 must be 64 hex digits",
                             where);
    }
    return SC_OK;
}

/* `size`: decimal digits (at most 19), else invalid-lock; absent: 0. */
static sc_code read_size(lr *r, const sc_json *e, const char *where, unsigned long long *out)
{
    const sc_json *v = sc_json_get(e, "size");
    *out = 0;
    if (v == NULL)
        return SC_OK;
    if (v->type != SC_JSON_STRING || v->length == 0 || v->length > 19)
        return fail_node(r, v, "%s.size must be a byte count", where);
    unsigned long long n = 0;
    for (size_t i = 0; i < v->length; i++) {
        if (v->string[i] < '0' || v->string[i] > '9')
            return fail_node(r, v, "%s.size must be a byte count", where);
        n = n * 10 + (unsigned long long)(v->string[i] - '0');
    }
    *out = n;
    return SC_OK;
}

static sc_code read_package(lr *r, const sc_json *e, size_t i, int version, sc_lock_package *p)
{
    char where[64];
    snprintf(where, sizeof where, "packages[%zu]", i);
    const char *loc;
    if (kind_of(r, e, where, version, 1, &p->kind, &p->source, &loc) != SC_OK)
        return r->code;
    p->location = strdup(loc);
    p->filename = sc_location_filename(loc);
    if (p->location == NULL || p->filename == NULL)
        return oom(r);
    if (opt_string(r, e, "name", where, &p->name) != SC_OK ||
        opt_string(r, e, "version", where, &p->version) != SC_OK ||
        opt_string(r, e, "license", where, &p->license) != SC_OK ||
        read_sha256(r, e, where, &p->sha256) != SC_OK ||
        opt_strings(r, e, "depends", where, &p->depends, &p->ndepends) != SC_OK ||
        opt_strings(r, e, "requires_dist", where, &p->requires_dist, &p->nrequires_dist) != SC_OK ||
        opt_string(r, e, "requires_python", where, &p->requires_python) != SC_OK ||
        read_size(r, e, where, &p->size) != SC_OK)
        return r->code;
    const sc_json *ed = sc_json_get(e, "editable");
    p->editable = ed != NULL && ed->type == SC_JSON_STRING && strcmp(ed->string, "true") == 0;
    if (p->kind == SC_LOCK_PYPI) {
        /* v7 writes no version for a package built from source */
        if (p->name == NULL || p->name[0] == '\0' ||
            (version < 7 && p->version == NULL) || (p->version && p->version[0] == '\0'))
            return fail_node(r, e, version < 7 ? "%s: a pypi package needs name and version"
                                               : "%s: a pypi package needs a name, and a "
                                                 "non-empty version when it has one",
                             where);
        return SC_OK;
    }
    if (opt_string(r, e, "build", where, &p->build) != SC_OK ||
        opt_string(r, e, "subdir", where, &p->subdir) != SC_OK)
        return r->code;
    if (p->source) {
        /* a source package: no archive, its name is in its identifier */
        if (p->name == NULL && (p->name = source_name(loc)) == NULL)
            return oom(r);
        if (p->build == NULL && (p->build = strdup("")) == NULL)
            return oom(r);
        if (p->name[0] == '\0' || (p->version && p->version[0] == '\0'))
            return fail_node(r, e, "%s: a conda_source package needs a name (\"name[hash] @ "
                                   "location\") and a non-empty version when it has one",
                             where);
        return SC_OK;
    }
    if (p->name == NULL || p->version == NULL || p->build == NULL) {
        char *n, *v, *b;
        int rc = sc_conda_filename_split(p->filename, &n, &v, &b);
        if (rc == -2)
            return oom(r);
        if (rc == 0)
            return fail_node(r, sc_json_get(e, "conda") ? sc_json_get(e, "conda") : e,
                             "%s: \"%.80s\" is not name-version-build.conda or .tar.bz2",
                             where, p->filename);
        if (p->name == NULL) { p->name = n; n = NULL; }
        if (p->version == NULL) { p->version = v; v = NULL; }
        if (p->build == NULL) { p->build = b; b = NULL; }
        free(n);
        free(v);
        free(b);
    }
    if (p->name[0] == '\0' || p->version[0] == '\0')
        return fail_node(r, e, "%s: empty name or version", where);
    if (p->subdir == NULL && url_subdir(loc, &p->subdir) != 0)
        return oom(r);
    return SC_OK;
}

typedef struct idx_entry {
    int kind; /* sc_lock_kind, 2 for a conda_source package */
    const char *location;
    size_t index;
} idx_entry;

static int idx_cmp(const void *a, const void *b)
{
    const idx_entry *x = a, *y = b;
    if (x->kind != y->kind)
        return x->kind < y->kind ? -1 : 1;
    int c = strcmp(x->location, y->location);
    if (c != 0)
        return c;
    return x->index < y->index ? -1 : x->index > y->index;
}

static int idx_find(const idx_entry *idx, size_t n, int kind, const char *loc,
                    size_t *found)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = idx[mid].kind != kind ? (idx[mid].kind < kind ? -1 : 1)
                                      : strcmp(idx[mid].location, loc);
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < n && idx[lo].kind == kind && strcmp(idx[lo].location, loc) == 0) {
        *found = idx[lo].index;
        return 1;
    }
    return 0;
}

/* v7's top-level platforms: [{name, subdir?, virtual-packages?}, ...]. */
typedef struct plat_decl {
    const char *name, *subdir;
} plat_decl;

static sc_code read_platforms(lr *r, const sc_json *pls, plat_decl **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    if (pls == NULL)
        return fail_node(r, NULL, "platforms is missing (lock format 7 lists its platforms)");
    if (pls->type != SC_JSON_ARRAY)
        return fail_node(r, pls, "platforms must be a sequence");
    if (pls->length == 0)
        return SC_OK;
    plat_decl *d = calloc(pls->length, sizeof *d);
    if (d == NULL)
        return oom(r);
    *out = d;
    for (const sc_json *e = pls->child; e != NULL; e = e->next) {
        size_t i = *n;
        if (e->type != SC_JSON_OBJECT)
            return fail_node(r, e, "platforms[%zu] must be a mapping", i);
        const sc_json *nm = sc_json_get(e, "name"), *sd = sc_json_get(e, "subdir");
        const sc_json *vp = sc_json_get(e, "virtual-packages");
        if (nm == NULL || nm->type != SC_JSON_STRING || nm->length == 0 ||
            memchr(nm->string, '\0', nm->length) != NULL)
            return fail_node(r, nm ? nm : e, "platforms[%zu].name must be a non-empty string", i);
        if (sd != NULL && (sd->type != SC_JSON_STRING || sd->length == 0 ||
                           memchr(sd->string, '\0', sd->length) != NULL))
            return fail_node(r, sd, "platforms[%zu].subdir must be a non-empty string", i);
        if (vp != NULL && vp->type != SC_JSON_ARRAY)
            return fail_node(r, vp, "platforms[%zu].virtual-packages must be a sequence", i);
        for (const sc_json *v = vp ? vp->child : NULL; v != NULL; v = v->next)
            if (v->type != SC_JSON_STRING)
                return fail_node(r, v, "platforms[%zu].virtual-packages must be a sequence "
                                       "of strings", i);
        for (size_t j = 0; j < i; j++)
            if (strcmp(d[j].name, nm->string) == 0)
                return fail_node(r, nm, "platforms[%zu]: platform \"%.60s\" is listed twice",
                                 i, nm->string);
        d[i].name = nm->string;
        d[i].subdir = sd ? sd->string : nm->string;
        (*n)++;
    }
    return SC_OK;
}

static sc_code read_environments(lr *r, const sc_json *envs, sc_pixi_lock *l,
                                 const idx_entry *idx, const plat_decl *decl, size_t ndecl)
{
    if (envs == NULL)
        return fail_node(r, NULL, "environments is missing");
    if (envs->type != SC_JSON_OBJECT)
        return fail_node(r, envs, "environments must be a mapping");
    if (envs->length > 0) {
        l->environments = calloc(envs->length, sizeof *l->environments);
        if (l->environments == NULL)
            return oom(r);
    }
    for (const sc_json *ev = envs->child; ev != NULL; ev = ev->next) {
        sc_lock_environment *env = &l->environments[l->nenvironments++];
        env->name = strdup(ev->key);
        if (env->name == NULL)
            return oom(r);
        if (ev->type != SC_JSON_OBJECT)
            return fail_node(r, ev, "environments.%.60s must be a mapping", ev->key);
        const sc_json *pk = sc_json_get(ev, "packages");
        if (pk == NULL)
            continue;
        if (pk->type != SC_JSON_OBJECT)
            return fail_node(r, pk, "environments.%.60s.packages must be a mapping", ev->key);
        if (pk->length > 0) {
            env->platforms = calloc(pk->length, sizeof *env->platforms);
            if (env->platforms == NULL)
                return oom(r);
        }
        for (const sc_json *pl = pk->child; pl != NULL; pl = pl->next) {
            sc_lock_platform *plat = &env->platforms[env->nplatforms++];
            const char *subdir = pl->key;
            if (l->version >= 7) {
                size_t j = 0;
                while (j < ndecl && strcmp(decl[j].name, pl->key) != 0)
                    j++;
                if (j == ndecl)
                    return fail_node(r, pl, "environments.%.60s.packages.%.60s: the platform "
                                            "is not in the lock's platforms list",
                                     ev->key, pl->key);
                subdir = decl[j].subdir;
            }
            plat->platform = strdup(pl->key);
            plat->subdir = strdup(subdir);
            if (plat->platform == NULL || plat->subdir == NULL)
                return oom(r);
            if (pl->type != SC_JSON_ARRAY)
                return fail_node(r, pl, "environments.%.60s.packages.%.60s must be a sequence",
                                 ev->key, pl->key);
            if (pl->length == 0)
                continue;
            plat->packages = calloc(pl->length, sizeof *plat->packages);
            if (plat->packages == NULL)
                return oom(r);
            for (const sc_json *e = pl->child; e != NULL; e = e->next) {
                char where[160];
                snprintf(where, sizeof where, "environments.%.60s.packages.%.60s[%zu]",
                         ev->key, pl->key, plat->count);
                sc_lock_kind kind;
                int source;
                const char *loc;
                if (kind_of(r, e, where, l->version, 0, &kind, &source, &loc) != SC_OK)
                    return r->code;
                size_t at;
                if (!idx_find(idx, l->npackages, source ? 2 : (int)kind, loc, &at))
                    return fail_node(r, e, "%s names no package of the lock: %.120s", where, loc);
                plat->packages[plat->count++] = at;
            }
        }
    }
    return SC_OK;
}

static sc_code interpret(lr *r, const sc_json *root, sc_pixi_lock *l)
{
    if (root->type != SC_JSON_OBJECT)
        return fail_node(r, root, "the lock must be a mapping");
    const sc_json *ver = sc_json_get(root, "version");
    if (ver == NULL)
        return fail_node(r, root, "version is missing");
    if (ver->type != SC_JSON_STRING)
        return fail_node(r, ver, "version must be a number; this reader reads lock formats "
                                 "5, 6 and 7");
    if (ver->length != 1 || ver->string[0] < '0' + SC_LOCK_VERSION_MIN ||
        ver->string[0] > '0' + SC_LOCK_VERSION_MAX)
        return fail_node(r, ver, "lock format version %.20s is not one this reader knows; it "
                                 "reads 5, 6 and 7",
                         ver->string);
    l->version = ver->string[0] - '0';
    plat_decl *decl = NULL;
    size_t ndecl = 0;
    if (l->version >= 7 && read_platforms(r, sc_json_get(root, "platforms"), &decl, &ndecl) != SC_OK) {
        free(decl);
        return r->code;
    }
    const sc_json *pk = sc_json_get(root, "packages");
    if (pk == NULL || pk->type != SC_JSON_ARRAY) {
        free(decl);
        return pk == NULL ? fail_node(r, root, "packages is missing")
                          : fail_node(r, pk, "packages must be a sequence");
    }
    idx_entry *idx = NULL;
    if (pk->length > 0) {
        l->packages = calloc(pk->length, sizeof *l->packages);
        idx = calloc(pk->length, sizeof *idx);
        if (l->packages == NULL || idx == NULL) {
            free(idx);
            free(decl);
            return oom(r);
        }
    }
    for (const sc_json *e = pk->child; e != NULL; e = e->next) {
        size_t i = l->npackages++;
        if (read_package(r, e, i, l->version, &l->packages[i]) != SC_OK) {
            free(idx);
            free(decl);
            return r->code;
        }
        idx[i].kind = l->packages[i].source ? 2 : (int)l->packages[i].kind;
        idx[i].location = l->packages[i].location;
        idx[i].index = i;
    }
    if (l->npackages > 0)
        qsort(idx, l->npackages, sizeof *idx, idx_cmp);
    sc_code c = read_environments(r, sc_json_get(root, "environments"), l, idx, decl, ndecl);
    free(idx);
    free(decl);
    return c;
}

void sc_pixi_lock_free(sc_pixi_lock *l)
{
    if (l == NULL)
        return;
    for (size_t i = 0; i < l->npackages; i++)
        package_free(&l->packages[i]);
    free(l->packages);
    for (size_t i = 0; i < l->nenvironments; i++) {
        sc_lock_environment *e = &l->environments[i];
        for (size_t j = 0; j < e->nplatforms; j++) {
            free(e->platforms[j].platform);
            free(e->platforms[j].subdir);
            free(e->platforms[j].packages);
        }
        free(e->platforms);
        free(e->name);
    }
    free(l->environments);
    free(l);
}

sc_code sc_pixi_lock_parse(const char *bytes, size_t len, const char *name,
                           sc_pixi_lock **out, sc_error *err)
{
    *out = NULL;
    sc_error_clear(err);
    lr r;
    memset(&r, 0, sizeof r);
    r.name = name ? name : "pixi.lock";
    r.err = err;
    if (len > SC_LOCK_MAX_BYTES)
        return fail_at(&r, 0, 0, "larger than %zu bytes", SC_LOCK_MAX_BYTES);
    sc_json *root = NULL;
    if (build_tree(&r, bytes, len, &root) != SC_OK) {
        free(r.marks);
        return r.code;
    }
    sc_pixi_lock *l = calloc(1, sizeof *l);
    if (l == NULL) {
        oom(&r);
    } else if (interpret(&r, root, l) != SC_OK) {
        sc_pixi_lock_free(l);
        l = NULL;
    }
    sc_json_free(root);
    free(r.marks);
    if (r.code != SC_OK)
        return r.code;
    *out = l;
    return SC_OK;
}

sc_code sc_pixi_lock_read(const char *path, sc_pixi_lock **out, sc_error *err)
{
    char *bytes = NULL;
    size_t len = 0;
    *out = NULL;
    /* 19.2: a lock over 64 MiB is invalid-lock, not an I/O failure */
    sc_code c = sc_file_read_bounded(path, SC_LOCK_MAX_BYTES, SC_E_INVALID_LOCK, &bytes, &len,
                                     NULL, err);
    if (c != SC_OK)
        return c;
    c = sc_pixi_lock_parse(bytes, len, path, out, err);
    free(bytes);
    return c;
}

const sc_lock_platform *sc_pixi_lock_find(const sc_pixi_lock *l,
                                          const char *environment,
                                          const char *platform)
{
    for (size_t i = 0; i < l->nenvironments; i++) {
        const sc_lock_environment *e = &l->environments[i];
        if (strcmp(e->name, environment) != 0)
            continue;
        for (size_t j = 0; j < e->nplatforms; j++)
            if (strcmp(e->platforms[j].platform, platform) == 0)
                return &e->platforms[j];
        for (size_t j = 0; j < e->nplatforms; j++)
            if (e->platforms[j].subdir && strcmp(e->platforms[j].subdir, platform) == 0)
                return &e->platforms[j];
        return NULL;
    }
    return NULL;
}
