/* SPDX-License-Identifier: Apache-2.0 */
/*
 * config.c — the workspace (docs/format-v3.md §6).
 *
 * Guarantees: root selection and per-path precedence exactly as documented;
 * a config file that breaks a rule is refused with invalid-config naming the
 * file and the entry, before any path is used.
 */
#include "scrollcase/config.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "scrollcase/file.h"

static const char *const path_keys[SC_WS_PATH_COUNT] = {
    "scrolls", "build", "dist", "keys", "toolchain"};
static const char *const path_defaults[SC_WS_PATH_COUNT] = {
    "scrolls", ".scrollcase/build", ".scrollcase/dist", ".scrollcase/keys",
    ".scrollcase/toolchain"};

const char *sc_ws_path_key(enum sc_ws_path p)
{
    return (unsigned)p < SC_WS_PATH_COUNT ? path_keys[p] : NULL;
}

const char *sc_ws_path_default(enum sc_ws_path p)
{
    return (unsigned)p < SC_WS_PATH_COUNT ? path_defaults[p] : NULL;
}

sc_code sc_config_check(const sc_json *doc, const char *name,
                        const char *out[SC_WS_PATH_COUNT], sc_error *err)
{
    for (int i = 0; i < SC_WS_PATH_COUNT; i++)
        out[i] = NULL;
    if (!sc_json_is(doc, SC_JSON_OBJECT))
        return sc_error_set(err, SC_E_INVALID_CONFIG, name,
                            "%s: a workspace config must be a JSON object, received %s",
                            name, sc_json_type_name(doc));
    const sc_json *version = sc_json_get(doc, "version");
    uint64_t v = 0;
    if (version != NULL && (!sc_json_uint53(version, &v) || v != 1))
        return sc_error_set(err, SC_E_INVALID_CONFIG, name,
                            "%s: unsupported version; this builder understands "
                            "scrollcase.config.json version 1", name);
    const sc_json *paths = sc_json_get(doc, "paths");
    if (paths == NULL)
        return SC_OK;
    if (!sc_json_is(paths, SC_JSON_OBJECT))
        return sc_error_set(err, SC_E_INVALID_CONFIG, name,
                            "%s: \"paths\" must be an object, received %s", name,
                            sc_json_type_name(paths));
    for (const sc_json *m = paths->child; m; m = m->next) {
        int k = -1;
        for (int i = 0; i < SC_WS_PATH_COUNT; i++)
            if (strcmp(m->key, path_keys[i]) == 0 && strlen(m->key) == m->key_length)
                k = i;
        if (k < 0)
            return sc_error_set(err, SC_E_INVALID_CONFIG, name,
                                "%s: unknown \"paths\" entry \"%s\"; expected one of "
                                "scrolls, build, dist, keys, toolchain", name, m->key);
        const char *s = sc_json_cstr(m);
        if (s == NULL || s[0] == '\0')
            return sc_error_set(err, SC_E_INVALID_CONFIG, name,
                                "%s: \"paths.%s\" must be a non-empty path string",
                                name, m->key);
        out[k] = s;
    }
    return SC_OK;
}

void sc_workspace_free(sc_workspace *w)
{
    if (w == NULL)
        return;
    free(w->root);
    free(w->config_path);
    for (int i = 0; i < SC_WS_PATH_COUNT; i++)
        free(w->paths[i]);
    memset(w, 0, sizeof *w);
}

/* The directory part of path ("." when it has none). */
static char *dir_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (slash == NULL)
        return strdup(".");
    if (slash == path)
        return strdup("/");
    return strndup(path, (size_t)(slash - path));
}

/* Walk up from dir looking for the config file; NULL when none. */
static char *find_config(const char *dir)
{
    char *cur = strdup(dir);
    while (cur != NULL) {
        char *candidate = sc_path_join(cur, SC_CONFIG_FILE);
        if (candidate == NULL) {
            free(cur);
            return NULL;
        }
        if (sc_is_file(candidate)) {
            free(candidate);
            return cur;
        }
        free(candidate);
        if (strcmp(cur, "/") == 0 || strchr(cur, '/') == NULL) {
            free(cur);
            return NULL;
        }
        char *up = dir_of(cur);
        free(cur);
        cur = up;
    }
    return NULL;
}

sc_code sc_workspace_resolve(const sc_workspace_options *o, sc_workspace *out,
                             sc_error *err)
{
    memset(out, 0, sizeof *out);
    sc_error_clear(err);
    char cwdbuf[PATH_MAX];
    const char *cwd = o->cwd;
    if (cwd == NULL) {
        if (getcwd(cwdbuf, sizeof cwdbuf) == NULL)
            return sc_error_set(err, SC_E_IO, NULL, "cannot read the working directory: %s",
                                strerror(errno));
        cwd = cwdbuf;
    }
    sc_code rc = SC_OK;
    sc_json *doc = NULL;
    if (o->project_root != NULL) {
        out->root = sc_path_join(cwd, o->project_root);
    } else if (o->config != NULL) {
        char *cfg = sc_path_join(cwd, o->config);
        if (cfg != NULL && !sc_is_file(cfg)) {
            rc = sc_error_set(err, SC_E_INVALID_CONFIG, o->config,
                              "workspace config not found: %s", o->config);
            free(cfg);
            goto fail;
        }
        out->root = cfg ? dir_of(cfg) : NULL;
        free(cfg);
    } else {
        out->root = find_config(cwd);
        if (out->root == NULL)
            out->root = strdup(cwd);
    }
    if (out->root == NULL)
        goto oom;

    /* The config in use: --config, else <root>/scrollcase.config.json if any. */
    out->config_path = o->config ? sc_path_join(cwd, o->config)
                                 : sc_path_join(out->root, SC_CONFIG_FILE);
    if (out->config_path == NULL)
        goto oom;
    const char *entries[SC_WS_PATH_COUNT] = {NULL};
    if (sc_is_file(out->config_path)) {
        rc = sc_json_parse_file(out->config_path, &doc, err);
        if (rc == SC_OK)
            rc = sc_config_check(doc, out->config_path, entries, err);
        if (rc != SC_OK)
            goto fail;
    } else if (o->config != NULL) {
        rc = sc_error_set(err, SC_E_INVALID_CONFIG, o->config,
                          "workspace config not found: %s", o->config);
        goto fail;
    } else {
        free(out->config_path);
        out->config_path = NULL;
    }
    for (int i = 0; i < SC_WS_PATH_COUNT; i++) {
        if (o->paths[i] != NULL)
            out->paths[i] = sc_path_join(cwd, o->paths[i]);
        else
            out->paths[i] = sc_path_join(out->root, entries[i] ? entries[i]
                                                               : path_defaults[i]);
        if (out->paths[i] == NULL)
            goto oom;
    }
    sc_json_free(doc);
    return SC_OK;
oom:
    rc = sc_error_set(err, SC_E_OUT_OF_MEMORY, NULL, "out of memory");
fail:
    sc_json_free(doc);
    sc_workspace_free(out);
    return rc;
}
