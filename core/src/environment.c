/* SPDX-License-Identifier: Apache-2.0 */
/*
 * environment.c — environment layers, their resolution and the report.
 *
 * Guarantees: see environment.h.  Resolution sorts (name key, layer, entry)
 * triples once, so it is O(n log n) in the number of entries and independent
 * of the order the host listed its variables in.
 */
#define _POSIX_C_SOURCE 200809L
#include "scrollcase/environment.h"

#include <stdlib.h>
#include <string.h>

#include "scrollcase/path.h"
#include "utf8_internal.h"

#define MASKED "<masked>"

static const char *const source_names[] = {"host", "caller", "release", "validation"};

const char *sc_env_source_name(sc_env_source s)
{
    return (unsigned)s < 4 ? source_names[s] : "?";
}

static sc_code oom(sc_error *err)
{
    return sc_error_set(err, SC_E_OUT_OF_MEMORY, NULL, "out of memory");
}

static sc_code bad_layer(sc_error *err, const char *what)
{
    return sc_error_set(err, SC_E_INVALID_ENVIRONMENT, "environment",
                        "Box execution %s environment must map valid names to string values.",
                        what);
}

const char *sc_env_map_get(const sc_env_map *m, const char *name)
{
    for (size_t i = 0; m != NULL && i < m->count; i++)
        if (strcmp(m->names[i], name) == 0)
            return m->values[i];
    return NULL;
}

static sc_code append(sc_env_map *m, const char *name, size_t name_len,
                      const char *value, sc_error *err)
{
    if (m->count == m->cap) {
        size_t cap = m->cap ? m->cap * 2 : 16;
        char **n = realloc(m->names, cap * sizeof *n);
        if (n == NULL)
            return oom(err);
        m->names = n;
        char **v = realloc(m->values, cap * sizeof *v);
        if (v == NULL)
            return oom(err);
        m->values = v;
        m->cap = cap;
    }
    char *nc = strndup(name, name_len);
    char *vc = strdup(value);
    if (nc == NULL || vc == NULL) {
        free(nc);
        free(vc);
        return oom(err);
    }
    m->names[m->count] = nc;
    m->values[m->count] = vc;
    m->count++;
    return SC_OK;
}

sc_code sc_env_map_set(sc_env_map *m, const char *name, const char *value,
                       sc_error *err)
{
    for (size_t i = 0; i < m->count; i++) {
        if (strcmp(m->names[i], name) == 0) {
            char *vc = strdup(value);
            if (vc == NULL)
                return oom(err);
            free(m->values[i]);
            m->values[i] = vc;
            return SC_OK;
        }
    }
    return append(m, name, strlen(name), value, err);
}

sc_code sc_env_map_from_environ(sc_env_map *m, char *const *envp, sc_error *err)
{
    /* The real environ holds each name once; entries are appended without a
     * search so reading it stays linear.  Should a hand-built envp repeat a
     * name, resolution keeps the later entry (it sorts stably). */
    for (size_t i = 0; envp != NULL && envp[i] != NULL; i++) {
        const char *eq = strchr(envp[i], '=');
        if (eq == NULL)
            continue;
        size_t nl = (size_t)(eq - envp[i]);
        sc_code c = append(m, envp[i], nl, eq + 1, err);
        if (c != SC_OK)
            return c;
    }
    return SC_OK;
}

static int name_ok(const char *s, size_t len)
{
    return len > 0 && memchr(s, '\0', len) == NULL && memchr(s, '=', len) == NULL;
}

sc_code sc_env_map_from_json(sc_env_map *m, const sc_json *object,
                             const char *what, sc_error *err)
{
    if (!sc_json_is(object, SC_JSON_OBJECT))
        return bad_layer(err, what);
    for (const sc_json *c = object->child; c != NULL; c = c->next) {
        const char *v = sc_json_cstr(c);
        if (!name_ok(c->key, c->key_length) || v == NULL)
            return bad_layer(err, what);
        sc_code code = sc_env_map_set(m, c->key, v, err);
        if (code != SC_OK)
            return code;
    }
    return SC_OK;
}

sc_code sc_env_map_to_envp(const sc_env_map *m, char ***envp, sc_error *err)
{
    char **e = calloc(m->count + 1, sizeof *e);
    if (e == NULL)
        return oom(err);
    for (size_t i = 0; i < m->count; i++) {
        size_t nl = strlen(m->names[i]), vl = strlen(m->values[i]);
        e[i] = malloc(nl + vl + 2);
        if (e[i] == NULL) {
            sc_env_envp_free(e);
            return oom(err);
        }
        memcpy(e[i], m->names[i], nl);
        e[i][nl] = '=';
        memcpy(e[i] + nl + 1, m->values[i], vl + 1);
    }
    *envp = e;
    return SC_OK;
}

void sc_env_envp_free(char **envp)
{
    for (size_t i = 0; envp != NULL && envp[i] != NULL; i++)
        free(envp[i]);
    free(envp);
}

void sc_env_map_free(sc_env_map *m)
{
    if (m == NULL)
        return;
    for (size_t i = 0; i < m->count; i++) {
        free(m->names[i]);
        free(m->values[i]);
    }
    free(m->names);
    free(m->values);
    m->names = m->values = NULL;
    m->count = m->cap = 0;
}

/* ---- resolution ------------------------------------------------------- */

typedef struct entry {
    char *key;            /* the comparison key: the name, upper-cased on Windows */
    const char *name;     /* as spelled in its layer */
    const char *value;
    sc_env_source source;
    size_t seq;           /* position over all layers: precedence order */
} entry;

typedef struct variable {
    size_t first, count;  /* its entries, in precedence order */
    const entry *winner;
    int conflict, affecting, has_release, has_host, shown;
} variable;

static int entry_cmp(const void *a, const void *b)
{
    const entry *x = a, *y = b;
    int c = strcmp(x->key, y->key);
    if (c != 0)
        return c;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static int variable_cmp(const void *a, const void *b)
{
    const variable *x = a, *y = b;
    return strcmp(x->winner->name, y->winner->name);
}

/* The target's list holds upper-case names, so the key (upper-cased on
 * Windows, the exact name elsewhere) compares byte for byte. */
static int in_list(const char *const *list, const char *key)
{
    for (; list != NULL && *list != NULL; list++)
        if (strcmp(*list, key) == 0)
            return 1;
    return 0;
}

static char *make_key(const char *name, int fold)
{
    char *k = strdup(name);
    if (k != NULL && fold)
        for (char *p = k; *p; p++)
            if (*p >= 'a' && *p <= 'z')
                *p = (char)(*p - 'a' + 'A');
    return k;
}

static int put_str(sc_json *o, const char *k, const char *v)
{
    return sc_json_object_append(o, k, sc_json_new_string(v));
}

/* A host name or value as report text: the report must stay writable JSON,
 * so a byte that does not start a well-formed UTF-8 sequence is shown as
 * U+FFFD.  The child's environment keeps the exact bytes. */
static sc_json *text_json(const char *v)
{
    size_t n = strlen(v);
    if (sc_utf8_valid(v, n))
        return sc_json_new_string(v);
    char *t = malloc(3 * n + 1);
    if (t == NULL)
        return NULL;
    size_t o = 0;
    for (size_t i = 0; i < n;) {
        size_t l = sc_utf8_sequence_length((const unsigned char *)v + i, n - i);
        if (l == 0) {
            memcpy(t + o, "\xEF\xBF\xBD", 3);
            o += 3;
            i++;
        } else {
            memcpy(t + o, v + i, l);
            o += l;
            i += l;
        }
    }
    t[o] = '\0';
    sc_json *j = sc_json_new_string(t);
    free(t);
    return j;
}

static int put_text(sc_json *o, const char *k, const char *v)
{
    return sc_json_object_append(o, k, text_json(v));
}

static int put_num(sc_json *o, const char *k, size_t v)
{
    return sc_json_object_append(o, k, sc_json_new_number((double)v));
}

static int put_bool(sc_json *o, const char *k, int v)
{
    return sc_json_object_append(o, k, sc_json_new_bool(v));
}

static const char *shown_value(const entry *e, int reveal)
{
    return e->source == SC_ENV_HOST && !reveal ? MASKED : e->value;
}

/* One variable of the report; NULL on OOM. */
static sc_json *variable_json(const variable *v, const entry *es, int reveal)
{
    sc_json *o = sc_json_new_object();
    sc_json *srcs = sc_json_new_array();
    if (o == NULL || srcs == NULL) {
        sc_json_free(o);
        sc_json_free(srcs);
        return NULL;
    }
    int bad = 0;
    for (size_t i = 0; i < v->count; i++) {
        const entry *e = &es[v->first + i];
        sc_json *s = sc_json_new_object();
        if (s == NULL) {
            bad = 1;
            break;
        }
        bad |= put_str(s, "source", sc_env_source_name(e->source));
        bad |= put_text(s, "name", e->name);
        bad |= put_text(s, "value", shown_value(e, reveal));
        bad |= sc_json_array_append(srcs, s);
    }
    bad |= put_text(o, "name", v->winner->name);
    bad |= put_str(o, "source", sc_env_source_name(v->winner->source));
    bad |= put_text(o, "value", shown_value(v->winner, reveal));
    bad |= put_bool(o, "executionAffecting", v->affecting);
    bad |= put_bool(o, "conflict", v->conflict);
    bad |= sc_json_object_append(o, "sources", srcs);
    if (bad) {
        sc_json_free(o);
        return NULL;
    }
    return o;
}

static sc_json *build_report(const variable *vars, size_t nv, const entry *es,
                             int full, int reveal)
{
    sc_json *o = sc_json_new_object();
    sc_json *danger = sc_json_new_array();
    sc_json *list = sc_json_new_array();
    if (o == NULL || danger == NULL || list == NULL) {
        sc_json_free(o);
        sc_json_free(danger);
        sc_json_free(list);
        return NULL;
    }
    size_t release = 0, conflicts = 0, shown = 0;
    int bad = 0;
    for (size_t i = 0; i < nv && !bad; i++) {
        const variable *v = &vars[i];
        release += v->has_release != 0;
        conflicts += v->conflict != 0;
        if (v->affecting)
            for (size_t j = 0; j < v->count; j++)
                if (es[v->first + j].source == SC_ENV_HOST)
                    bad |= sc_json_array_append(danger, text_json(es[v->first + j].name));
        if (full || v->shown) {
            shown++;
            sc_json *vj = variable_json(v, es, reveal);
            bad |= vj == NULL || sc_json_array_append(list, vj);
        }
    }
    bad |= put_str(o, "mode", full ? "full" : "summary");
    bad |= put_bool(o, "hostValuesRevealed", reveal != 0);
    bad |= put_num(o, "releaseVariableCount", release);
    bad |= put_num(o, "conflictCount", conflicts);
    bad |= sc_json_object_append(o, "dangerousHostVariables", danger);
    bad |= put_num(o, "remainingVariableCount", nv - shown);
    bad |= sc_json_object_append(o, "variables", list);
    if (bad) {
        sc_json_free(o);
        return NULL;
    }
    return o;
}

sc_code sc_env_resolve(const sc_env_layer *layers, size_t n,
                       const sc_target *target, int full, int reveal,
                       sc_env_map *child, sc_json **report, sc_error *err)
{
    int fold = target != NULL && target->platform == SC_PLATFORM_WINDOWS;
    const char *const *affecting =
        target != NULL ? sc_target_execution_affecting_variables(target) : NULL;
    size_t total = 0;
    for (size_t l = 0; l < n; l++) {
        const sc_env_map *m = layers[l].map;
        for (size_t i = 0; m != NULL && i < m->count; i++) {
            const char *nm = m->names[i];
            if (nm == NULL || m->values[i] == NULL || !name_ok(nm, strlen(nm)))
                return bad_layer(err, sc_env_source_name(layers[l].source));
        }
        total += m != NULL ? m->count : 0;
    }
    entry *es = calloc(total ? total : 1, sizeof *es);
    variable *vars = calloc(total ? total : 1, sizeof *vars);
    sc_env_map out = {0};
    sc_json *rep = NULL;
    sc_code code = SC_OK;
    size_t k = 0, nv = 0;
    if (es == NULL || vars == NULL) {
        code = oom(err);
        goto done;
    }
    for (size_t l = 0; l < n; l++) {
        const sc_env_map *m = layers[l].map;
        for (size_t i = 0; m != NULL && i < m->count; i++, k++) {
            es[k].key = make_key(m->names[i], fold);
            if (es[k].key == NULL) {
                code = oom(err);
                goto done;
            }
            es[k].name = m->names[i];
            es[k].value = m->values[i];
            es[k].source = layers[l].source;
            es[k].seq = k;
        }
    }
    qsort(es, total, sizeof *es, entry_cmp);
    for (size_t i = 0; i < total;) {
        size_t j = i;
        while (j < total && strcmp(es[j].key, es[i].key) == 0)
            j++;
        variable *v = &vars[nv++];
        v->first = i;
        v->count = j - i;
        v->winner = &es[j - 1];
        for (size_t e = i; e < j; e++) {
            v->has_release |= es[e].source == SC_ENV_RELEASE;
            v->has_host |= es[e].source == SC_ENV_HOST;
            if (strcmp(es[e].value, es[i].value) != 0)
                v->conflict = 1;
        }
        v->affecting = v->has_host && in_list(affecting, es[i].key);
        v->shown = v->has_release || v->affecting || v->conflict;
        i = j;
    }
    /* On Windows the key order may differ from the winning spellings' order. */
    qsort(vars, nv, sizeof *vars, variable_cmp);
    for (size_t i = 0; i < nv; i++) {
        code = append(&out, vars[i].winner->name, strlen(vars[i].winner->name),
                      vars[i].winner->value, err);
        if (code != SC_OK)
            goto done;
    }
    if (report != NULL) {
        rep = build_report(vars, nv, es, full, reveal);
        if (rep == NULL) {
            code = oom(err);
            goto done;
        }
    }
    sc_env_map_free(child);
    *child = out;
    out = (sc_env_map){0};
    if (report != NULL) {
        *report = rep;
        rep = NULL;
    }
done:
    for (size_t i = 0; es != NULL && i < total; i++)
        free(es[i].key);
    free(es);
    free(vars);
    sc_env_map_free(&out);
    sc_json_free(rep);
    return code;
}

sc_code sc_env_sanitised_host(const sc_env_map *host, sc_env_map *out,
                              sc_error *err)
{
    static const char *const removed[] = {
        "PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "PYTHONBREAKPOINT",
        "LD_PRELOAD", "DYLD_INSERT_LIBRARIES", NULL};
    sc_env_map m = {0};
    for (size_t i = 0; host != NULL && i < host->count; i++) {
        if (in_list(removed, host->names[i]))
            continue;
        sc_code c = append(&m, host->names[i], strlen(host->names[i]),
                           host->values[i], err);
        if (c != SC_OK) {
            sc_env_map_free(&m);
            return c;
        }
    }
    sc_env_map_free(out);
    *out = m;
    return SC_OK;
}
