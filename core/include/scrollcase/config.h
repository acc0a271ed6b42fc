/* SPDX-License-Identifier: Apache-2.0 */
/*
 * config.h — the workspace: project root, scrollcase.config.json (version 1)
 * and the directories it names.
 *
 * Guarantees (docs/format-v3.md, "Workspace"): the root is --project-root,
 * else the directory of an explicit --config (which must exist), else the
 * nearest directory holding scrollcase.config.json walking up from cwd,
 * else cwd.  Each path is the flag (against cwd), else the config entry
 * (against the root), else the default (against the root).  A config that
 * breaks a rule is invalid-config naming the file and the entry.
 */
#ifndef SCROLLCASE_CONFIG_H
#define SCROLLCASE_CONFIG_H

#include "scrollcase/error.h"
#include "scrollcase/json.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SC_CONFIG_FILE "scrollcase.config.json"

enum sc_ws_path { SC_WS_SCROLLS, SC_WS_BUILD, SC_WS_DIST, SC_WS_KEYS, SC_WS_TOOLCHAIN, SC_WS_PATH_COUNT };

typedef struct sc_workspace_options {
    const char *cwd;          /* NULL: getcwd() */
    const char *project_root; /* --project-root */
    const char *config;       /* --config */
    const char *paths[SC_WS_PATH_COUNT]; /* --scrolls-dir --build-dir --out-dir --keys-dir --toolchain-dir */
} sc_workspace_options;

typedef struct sc_workspace {
    char *root;
    char *config_path; /* NULL when no config file is in use */
    char *paths[SC_WS_PATH_COUNT];
} sc_workspace;

/* The config key of each path ("scrolls", "build", "dist", "keys", "toolchain"). */
const char *sc_ws_path_key(enum sc_ws_path p);
/* The default relative to the root ("scrolls", ".scrollcase/build", ...). */
const char *sc_ws_path_default(enum sc_ws_path p);

/*
 * Check a parsed config document; on success out[p] points into doc (or is
 * NULL where the config names nothing).  name is the file, for messages.
 */
sc_code sc_config_check(const sc_json *doc, const char *name,
                        const char *out[SC_WS_PATH_COUNT], sc_error *err);

sc_code sc_workspace_resolve(const sc_workspace_options *o, sc_workspace *out,
                             sc_error *err);
void sc_workspace_free(sc_workspace *w);

#ifdef __cplusplus
}
#endif

#endif
