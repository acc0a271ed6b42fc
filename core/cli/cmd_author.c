/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cmd_author.c — scrollcase init, new scroll, add, remove, edit scroll,
 * refresh.
 *
 * Argument parsing and printing only: the rules are libscrollcase's
 * (scroll_edit.h).  Non-interactive: every value is a flag or an argument,
 * and a missing one is a usage error naming it.  Exit status: 0 done, 1 a
 * refusal or failure (its code on stderr), 2 a usage error.
 */
#define _POSIX_C_SOURCE 200809L

#include "commands.h"

#include "args.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scrollcase/config.h"
#include "scrollcase/error.h"
#include "scrollcase/json.h"
#include "scrollcase/scroll_edit.h"

static const char init_help[] =
    "usage: scrollcase init [--example] [--pixi-version V] [--json] [workspace options]\n"
    "\n"
    "Initialises the workspace at the project root: writes scrollcase.config.json\n"
    "({\"version\": 1, \"paths\": {...the defaults}}) unless one exists, creates the\n"
    "scrolls directory, and adds \".scrollcase/\" to .gitignore once.  Never\n"
    "replaces a file.  With --example it also writes the starter scroll\n"
    "example-box/<this host's target> through the `new scroll` path (pixi pin\n"
    "--pixi-version, default " SC_AUTHOR_DEFAULT_PIXI_VERSION ").  Downloads nothing: no toolchain\n"
    "(pixi, conda-pack) is installed; `scrollcase doctor` says what is missing.\n";

static const char new_help[] =
    "usage: scrollcase new scroll --box-id ID --target TARGET_ID --source-revision REV\n"
    "         [--model-id ID] [--version V] [--python-version X.Y] [--pixi-version V]\n"
    "         [--execution script|module|none] [--script PATH | --module NAME]\n"
    "         [--asset-base-url URL] [--weights embed] [--json] [workspace options]\n"
    "\n"
    "Writes <scrolls>/<boxId>/<targetId>/scroll.json (a minimal schema-v3 scroll:\n"
    "boxId, modelId (default boxId), runtimeId (<boxId>-runtime), version\n"
    "(1.0.0), sourceRevision, target, pythonVersion (" SC_AUTHOR_DEFAULT_PYTHON_VERSION "), pixiVersion\n"
    "(" SC_AUTHOR_DEFAULT_PIXI_VERSION "), selfTest {imports: [\"json\"]} and execution when asked)\n"
    "and pixi.toml ([workspace] name, channels, platforms = the target's conda\n"
    "subdir; [dependencies] python = \"X.Y.*\").  The directory appears whole (built\n"
    "under a temporary name and renamed); an existing scroll is scroll-exists.\n"
    "Non-interactive: a missing required flag is a usage error naming it.\n";

static const char add_help[] =
    "usage: scrollcase add file|asset|env|import|dep BOX VALUE [--target ID|all]\n"
    "         [--to REL] [--version SPEC] [workspace options]\n"
    "       scrollcase remove file|asset|env|import|dep BOX VALUE [--target ID|all]\n"
    "\n"
    "  add file BOX PATH [--to REL]    a regular, non-link project file: localFiles\n"
    "                                  {sourcePath, relativePath, sha256} and selfTest.files\n"
    "  add asset BOX URL [--to REL]    downloads the URL once to pin sizeBytes and sha256;\n"
    "                                  default path <modelCacheSubdir>/<last URL segment>\n"
    "  add env BOX NAME=VALUE          environment member (replaced if present)\n"
    "  add import BOX MODULE           selfTest.imports (a dotted name)\n"
    "  add dep BOX NAME [--version S]  NAME = \"S\" (default \"*\") in [dependencies] of\n"
    "                                  each chosen target's pixi.toml\n"
    "\n"
    "remove takes the same kinds: a file or asset by relativePath (or source path /\n"
    "URL), env by NAME, import and dep by name; nothing matching is a usage error and\n"
    "the last import of a scroll is refused.  --target: a target id edits that\n"
    "target's scroll.json; all edits the box's base scroll.json when it has one, else\n"
    "every target; without it a box must have exactly one target.  Every edit is\n"
    "staged and every target of the box re-validated; on failure the files are put\n"
    "back as they were.\n";

static const char edit_help[] =
    "usage: scrollcase edit scroll BOX --field FIELD --value VALUE [--target ID|all]\n"
    "\n"
    "Sets one top-level field of the chosen scroll file(s) (see `add --help` for\n"
    "--target).  FIELD is one of scrollId scrollVersion modelId runtimeId version\n"
    "sourceRevision pythonVersion pixiVersion condaDependencyLicenseAudit\n"
    "modelCacheSubdir assetBaseUrl weights (embed|on-demand); VALUE is trimmed.\n"
    "The box is re-validated; an invalid result is refused and nothing changes.\n";

static const char refresh_help[] =
    "usage: scrollcase refresh BOX [--repin] [--check-assets] [--json] [workspace options]\n"
    "\n"
    "Hashes again every localFiles entry of the box that declares sha256.  Drift is\n"
    "reported and exits 1 with local-file-mismatch, unless --repin rewrites the pins\n"
    "(staged and re-validated).  A missing source is local-file-missing.\n"
    "--check-assets also downloads every asset again (the only case that uses the\n"
    "network) and compares size and sha256: drift is asset-size / asset-hash, or\n"
    "repinned with --repin.  --json prints {localFiles: [...], assets: [...]}.\n";

const char *sc_cli_author_summary(void)
{
    return "  init [--example]              set up a workspace (config, scrolls, .gitignore)\n"
           "  new scroll --box-id ID --target T --source-revision REV\n"
           "                                write a new minimal scroll and pixi.toml\n"
           "  add|remove KIND BOX VALUE     edit a box: file, asset, env, import, dep\n"
           "  edit scroll BOX --field F --value V\n"
           "                                set one field of a box's scroll(s)\n"
           "  refresh BOX [--repin] [--check-assets]\n"
           "                                re-pin local files (and assets) that changed\n";
}

int sc_cli_author_help(const char *cmd)
{
    if (cmd == NULL)
        return -1;
    if (strcmp(cmd, "init") == 0)
        fputs(init_help, stdout);
    else if (strcmp(cmd, "new") == 0)
        fputs(new_help, stdout);
    else if (strcmp(cmd, "add") == 0 || strcmp(cmd, "remove") == 0)
        fputs(add_help, stdout);
    else if (strcmp(cmd, "edit") == 0)
        fputs(edit_help, stdout);
    else if (strcmp(cmd, "refresh") == 0)
        fputs(refresh_help, stdout);
    else
        return -1;
    return 0;
}

static int report(sc_error *err)
{
    return sc_cli_report(err);
}

static int finish(int rc)
{
    if (rc == 0 && fflush(stdout) != 0)
        return EXIT_REJECTED;
    return rc;
}

static sc_json *obj_bools(const char *k1, int v1, const char *k2, int v2, const char *k3,
                          int v3, const char *k4, int v4)
{
    sc_json *o = sc_json_new_object();
    if (o == NULL || sc_json_object_append(o, k1, sc_json_new_bool(v1)) ||
        sc_json_object_append(o, k2, sc_json_new_bool(v2)) ||
        sc_json_object_append(o, k3, sc_json_new_bool(v3)) ||
        sc_json_object_append(o, k4, sc_json_new_bool(v4))) {
        sc_json_free(o);
        return NULL;
    }
    return o;
}

static int cmd_init(sc_cli_args *a)
{
    if (a->npositional > 0)
        return sc_cli_usage_error("init takes no argument (%s); pass the authoring values to "
                                  "scrollcase new scroll",
                                  a->positional[0]);
    sc_error err;
    sc_workspace ws;
    if (sc_workspace_resolve(&a->ws, &ws, &err) != SC_OK)
        return report(&err);
    sc_init_result r;
    sc_code c = sc_author_init(ws.root, ws.paths[SC_WS_SCROLLS], (a->given & OPT_EXAMPLE) != 0,
                               sc_cli_value(a, OPT_PIXI_VERSION), &r, &err);
    if (c != SC_OK) {
        sc_workspace_free(&ws);
        return report(&err);
    }
    int rc = 0;
    if (a->given & OPT_JSON) {
        rc = sc_cli_print_json(obj_bools("config", r.wrote_config, "scrolls", r.created_scrolls,
                                         "gitignore", r.wrote_gitignore, "example",
                                         r.wrote_example));
    } else {
        printf("%s %s/%s\n", r.wrote_config ? "wrote" : "kept ", ws.root, SC_CONFIG_FILE);
        printf("%s %s\n", r.created_scrolls ? "made " : "kept ", ws.paths[SC_WS_SCROLLS]);
        printf("%s %s/.gitignore\n", r.wrote_gitignore ? "wrote" : "kept ", ws.root);
        if (a->given & OPT_EXAMPLE)
            printf("%s %s/%s/%s\n", r.wrote_example ? "wrote" : "kept ",
                   ws.paths[SC_WS_SCROLLS], SC_AUTHOR_EXAMPLE_BOX, sc_author_native_target());
        printf("workspace initialised at %s (no toolchain downloaded; see scrollcase doctor)\n",
               ws.root);
    }
    sc_workspace_free(&ws);
    return finish(rc);
}

static int cmd_new(sc_cli_args *a)
{
    if (a->npositional < 1 || strcmp(a->positional[0], "scroll") != 0)
        return sc_cli_usage_error("%s", "new takes the subcommand scroll");
    if (a->npositional > 1)
        return sc_cli_usage_error("unexpected argument %s", a->positional[1]);
    sc_new_scroll_options o;
    memset(&o, 0, sizeof o);
    o.box_id = sc_cli_value(a, OPT_BOX_ID);
    o.target_id = sc_cli_value(a, OPT_TARGET);
    o.model_id = sc_cli_value(a, OPT_MODEL_ID);
    o.version = sc_cli_value(a, OPT_VERSION_ARG);
    o.source_revision = sc_cli_value(a, OPT_SOURCE_REVISION);
    o.python_version = sc_cli_value(a, OPT_PYTHON_VERSION);
    o.pixi_version = sc_cli_value(a, OPT_PIXI_VERSION);
    o.execution = sc_cli_value(a, OPT_EXECUTION);
    o.script = sc_cli_value(a, OPT_SCRIPT);
    o.module = sc_cli_value(a, OPT_MODULE);
    o.asset_base_url = sc_cli_value(a, OPT_ASSET_BASE_URL);
    o.weights = sc_cli_value(a, OPT_WEIGHTS);
    sc_error err;
    sc_workspace ws;
    if (sc_workspace_resolve(&a->ws, &ws, &err) != SC_OK)
        return report(&err);
    sc_code c = sc_author_new_scroll(ws.paths[SC_WS_SCROLLS], &o, &err);
    int rc = 0;
    if (c != SC_OK) {
        rc = report(&err);
    } else if (a->given & OPT_JSON) {
        sc_json *j = sc_json_new_object();
        char ref[512];
        snprintf(ref, sizeof ref, "%s/%s", o.box_id, o.target_id);
        if (j != NULL && sc_json_object_append(j, "scroll", sc_json_new_string(ref)) != 0) {
            sc_json_free(j);
            j = NULL;
        }
        rc = sc_cli_print_json(j);
    } else {
        printf("wrote %s/%s/%s/scroll.json and pixi.toml\n", ws.paths[SC_WS_SCROLLS], o.box_id,
               o.target_id);
    }
    sc_workspace_free(&ws);
    return finish(rc);
}

static int kind_of(const char *s, sc_author_kind *k)
{
    static const struct {
        const char *name;
        sc_author_kind kind;
    } kinds[] = {{"file", SC_AUTHOR_FILE},
                 {"asset", SC_AUTHOR_ASSET},
                 {"env", SC_AUTHOR_ENV},
                 {"import", SC_AUTHOR_IMPORT},
                 {"dep", SC_AUTHOR_DEP}};
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
        if (strcmp(s, kinds[i].name) == 0) {
            *k = kinds[i].kind;
            return 1;
        }
    return 0;
}

static sc_code ctx_for(sc_cli_args *a, sc_workspace *ws, sc_author_ctx *c, sc_error *err)
{
    sc_code rc = sc_workspace_resolve(&a->ws, ws, err);
    if (rc != SC_OK)
        return rc;
    memset(c, 0, sizeof *c);
    c->scrolls_dir = ws->paths[SC_WS_SCROLLS];
    c->project_root = ws->root;
    c->cwd = a->ws.cwd;
    c->target = sc_cli_value(a, OPT_TARGET);
    return SC_OK;
}

static int cmd_add_remove(sc_cli_args *a, int add)
{
    const char *verb = add ? "add" : "remove";
    sc_author_kind kind;
    if (a->npositional < 1 || !kind_of(a->positional[0], &kind)) {
        fprintf(stderr, "scrollcase: error[usage]: %s takes file, asset, env, import or dep\n",
                verb);
        return EXIT_USAGE;
    }
    if (a->npositional < 3) {
        fprintf(stderr, "scrollcase: error[usage]: %s %s needs BOX and VALUE\n", verb,
                a->positional[0]);
        return EXIT_USAGE;
    }
    if (a->npositional > 3)
        return sc_cli_usage_error("unexpected argument %s", a->positional[3]);
    if (!add && (a->given & (OPT_TO | OPT_VERSION_ARG)))
        return sc_cli_usage_error("%s", "remove takes neither --to nor --version");
    sc_error err;
    sc_workspace ws;
    sc_author_ctx c;
    if (ctx_for(a, &ws, &c, &err) != SC_OK)
        return report(&err);
    sc_code rc = add ? sc_author_add(&c, kind, a->positional[1], a->positional[2],
                                     sc_cli_value(a, OPT_TO), sc_cli_value(a, OPT_VERSION_ARG),
                                     &err)
                     : sc_author_remove(&c, kind, a->positional[1], a->positional[2], &err);
    sc_workspace_free(&ws);
    if (rc != SC_OK)
        return report(&err);
    printf("%s %s %s: box %s updated\n", add ? "added" : "removed", a->positional[0],
           a->positional[2], a->positional[1]);
    return finish(0);
}

static int cmd_edit(sc_cli_args *a)
{
    if (a->npositional < 1 || strcmp(a->positional[0], "scroll") != 0)
        return sc_cli_usage_error("%s", "edit takes the subcommand scroll");
    if (a->npositional < 2)
        return sc_cli_usage_error("%s", "edit scroll needs BOX");
    if (a->npositional > 2)
        return sc_cli_usage_error("unexpected argument %s", a->positional[2]);
    if (sc_cli_value(a, OPT_FIELD) == NULL)
        return sc_cli_usage_error("%s", "edit scroll requires --field <name>");
    if (sc_cli_value(a, OPT_VALUE) == NULL)
        return sc_cli_usage_error("%s", "edit scroll requires --value <value>");
    sc_error err;
    sc_workspace ws;
    sc_author_ctx c;
    if (ctx_for(a, &ws, &c, &err) != SC_OK)
        return report(&err);
    sc_code rc = sc_author_edit_field(&c, a->positional[1], sc_cli_value(a, OPT_FIELD),
                                      sc_cli_value(a, OPT_VALUE), &err);
    sc_workspace_free(&ws);
    if (rc != SC_OK)
        return report(&err);
    printf("edited %s of box %s\n", sc_cli_value(a, OPT_FIELD), a->positional[1]);
    return finish(0);
}

static void print_drift(const sc_json *list, const char *what, const char *key)
{
    for (size_t i = 0; list != NULL && i < list->length; i++) {
        const sc_json *x = sc_json_at(list, i);
        const sc_json *rp = sc_json_get(x, "repinned");
        printf("%s %s %s: declared %s, now %s%s\n", what,
               sc_json_cstr(sc_json_get(x, key)) ? sc_json_cstr(sc_json_get(x, key)) : "?",
               sc_json_cstr(sc_json_get(x, "relativePath")) ? sc_json_cstr(sc_json_get(x, "relativePath")) : "?",
               sc_json_cstr(sc_json_get(x, "declared")) ? sc_json_cstr(sc_json_get(x, "declared")) : "?",
               sc_json_cstr(sc_json_get(x, "actual")) ? sc_json_cstr(sc_json_get(x, "actual")) : "?",
               rp && rp->boolean ? " (repinned)" : "");
    }
}

static int cmd_refresh(sc_cli_args *a)
{
    if (a->npositional < 1)
        return sc_cli_usage_error("%s", "refresh needs BOX");
    if (a->npositional > 1)
        return sc_cli_usage_error("unexpected argument %s", a->positional[1]);
    sc_error err;
    sc_workspace ws;
    sc_author_ctx c;
    if (ctx_for(a, &ws, &c, &err) != SC_OK)
        return report(&err);
    c.target = NULL;
    sc_json *rep = NULL;
    sc_code rc = sc_author_refresh(&c, a->positional[0], (a->given & OPT_REPIN) != 0,
                                   (a->given & OPT_CHECK_ASSETS) != 0, &rep, &err);
    sc_workspace_free(&ws);
    int status = 0;
    if (a->given & OPT_JSON) {
        if (rep != NULL)
            status = sc_cli_print_json(rep);
        rep = NULL;
    } else if (rep != NULL) {
        print_drift(sc_json_get(rep, "localFiles"), "local file", "sourcePath");
        print_drift(sc_json_get(rep, "assets"), "asset", "url");
        if (rc == SC_OK)
            printf("box %s: %zu local file(s) and %zu asset(s) drifted\n", a->positional[0],
                   sc_json_get(rep, "localFiles")->length, sc_json_get(rep, "assets")->length);
    }
    sc_json_free(rep);
    if (rc != SC_OK)
        return report(&err);
    return finish(status);
}

int sc_cli_author_dispatch(int argc, char **argv, int *status)
{
    int at = sc_cli_command_index(argc, argv);
    if (at == 0)
        return 0;
    const char *cmd = argv[at];
    unsigned long long allowed;
    if (strcmp(cmd, "init") == 0)
        allowed = OPT_EXAMPLE | OPT_PIXI_VERSION | OPT_JSON;
    else if (strcmp(cmd, "new") == 0)
        allowed = OPT_BOX_ID | OPT_TARGET | OPT_MODEL_ID | OPT_VERSION_ARG |
                  OPT_SOURCE_REVISION | OPT_PYTHON_VERSION | OPT_PIXI_VERSION | OPT_EXECUTION |
                  OPT_SCRIPT | OPT_MODULE | OPT_ASSET_BASE_URL | OPT_WEIGHTS | OPT_JSON;
    else if (strcmp(cmd, "add") == 0 || strcmp(cmd, "remove") == 0)
        allowed = OPT_TARGET | OPT_TO | OPT_VERSION_ARG;
    else if (strcmp(cmd, "edit") == 0)
        allowed = OPT_TARGET | OPT_FIELD | OPT_VALUE;
    else if (strcmp(cmd, "refresh") == 0)
        allowed = OPT_REPIN | OPT_CHECK_ASSETS | OPT_JSON;
    else
        return 0;
    sc_cli_args a;
    memset(&a, 0, sizeof a);
    int rc = sc_cli_parse(argc, argv, at, allowed, &a);
    if (rc != 0)
        *status = rc;
    else if (a.help)
        *status = sc_cli_author_help(cmd);
    else if (strcmp(cmd, "init") == 0)
        *status = cmd_init(&a);
    else if (strcmp(cmd, "new") == 0)
        *status = cmd_new(&a);
    else if (strcmp(cmd, "add") == 0)
        *status = cmd_add_remove(&a, 1);
    else if (strcmp(cmd, "remove") == 0)
        *status = cmd_add_remove(&a, 0);
    else if (strcmp(cmd, "edit") == 0)
        *status = cmd_edit(&a);
    else
        *status = cmd_refresh(&a);
    return 1;
}
