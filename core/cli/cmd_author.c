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

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scrollcase/config.h"
#include "scrollcase/error.h"
#include "scrollcase/json.h"
#include "scrollcase/file.h"
#include "scrollcase/requirements.h"
#include "scrollcase/scroll_edit.h"

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
    if (sc_cli_has(a, OPT_EXAMPLE) && sc_cli_has(a, OPT_NO_EXAMPLE))
        return sc_cli_usage_error("%s", "--example and --no-example contradict each other");
    sc_error err;
    sc_workspace ws;
    if (sc_workspace_resolve(&a->ws, &ws, &err) != SC_OK)
        return report(&err);
    sc_init_result r;
    sc_code c = sc_author_init(ws.root, ws.paths[SC_WS_SCROLLS], (sc_cli_has(a, OPT_EXAMPLE)) != 0,
                               sc_cli_value(a, OPT_PIXI_VERSION), &r, &err);
    if (c != SC_OK) {
        sc_workspace_free(&ws);
        return report(&err);
    }
    int rc = 0;
    if (sc_cli_has(a, OPT_JSON)) {
        rc = sc_cli_print_json(obj_bools("config", r.wrote_config, "scrolls", r.created_scrolls,
                                         "gitignore", r.wrote_gitignore, "example",
                                         r.wrote_example));
    } else {
        printf("%s %s/%s\n", r.wrote_config ? "wrote" : "kept ", ws.root, SC_CONFIG_FILE);
        printf("%s %s\n", r.created_scrolls ? "made " : "kept ", ws.paths[SC_WS_SCROLLS]);
        printf("%s %s/.gitignore\n", r.wrote_gitignore ? "wrote" : "kept ", ws.root);
        if (sc_cli_has(a, OPT_EXAMPLE))
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
    o.runtime_id = sc_cli_value(a, OPT_RUNTIME_ID);
    o.scroll_version = sc_cli_value(a, OPT_SCROLL_VERSION);
    o.version = sc_cli_value(a, OPT_VERSION_ARG);
    o.source_revision = sc_cli_value(a, OPT_SOURCE_REVISION);
    o.python_version = sc_cli_value(a, OPT_PYTHON_VERSION);
    o.pixi_version = sc_cli_value(a, OPT_PIXI_VERSION);
    o.execution = sc_cli_value(a, OPT_EXECUTION);
    o.script = sc_cli_value(a, OPT_SCRIPT);
    o.module = sc_cli_value(a, OPT_MODULE);
    o.asset_base_url = sc_cli_value(a, OPT_ASSET_BASE_URL);
    o.weights = sc_cli_value(a, OPT_WEIGHTS);
    o.min_host_app_version = sc_cli_value(a, OPT_MIN_HOST_APP_VERSION);
    o.max_host_app_version_exclusive = sc_cli_value(a, OPT_MAX_HOST_APP_VERSION);
    o.min_macos_version = sc_cli_value(a, OPT_MIN_MACOS_VERSION);
    o.min_nvidia_driver_version = sc_cli_value(a, OPT_MIN_NVIDIA_DRIVER_VERSION);
    o.min_ram_gb = sc_cli_value(a, OPT_MIN_RAM_GB);
    o.default_args = sc_cli_value(a, OPT_DEFAULT_ARGS);
    o.generate_script = sc_cli_has(a, OPT_GENERATE_SCRIPT) != 0;
    o.generated_script_path = sc_cli_value(a, OPT_GENERATED_SCRIPT_PATH);
    char *generated = NULL;
    o.generated_script_out = &generated;
    sc_error err;
    sc_workspace ws;
    if (sc_workspace_resolve(&a->ws, &ws, &err) != SC_OK)
        return report(&err);
    o.project_root = ws.root;
    sc_code c = sc_author_new_scroll(ws.paths[SC_WS_SCROLLS], &o, &err);
    int rc = 0;
    if (c != SC_OK) {
        rc = report(&err);
    } else if (sc_cli_has(a, OPT_JSON)) {
        sc_json *j = sc_json_new_object();
        char ref[512];
        snprintf(ref, sizeof ref, "%s/%s", o.box_id, o.target_id);
        if (j != NULL && (sc_json_object_append(j, "scroll", sc_json_new_string(ref)) != 0 ||
                          (generated != NULL &&
                           sc_json_object_append(j, "generatedScriptPath",
                                                 sc_json_new_string(generated)) != 0))) {
            sc_json_free(j);
            j = NULL;
        }
        rc = sc_cli_print_json(j);
    } else {
        printf("wrote %s/%s/%s/scroll.json and pixi.toml\n", ws.paths[SC_WS_SCROLLS], o.box_id,
               o.target_id);
        if (generated != NULL)
            printf("wrote %s (the starter script)\n", generated);
    }
    free(generated);
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
    const char *max = sc_cli_value(a, OPT_MAX_SIZE);
    if (max != NULL) {
        char *end = NULL;
        errno = 0;
        unsigned long long v = max[0] >= '0' && max[0] <= '9' ? strtoull(max, &end, 10) : 0;
        if (v == 0 || errno != 0 || end == NULL || *end != '\0') {
            sc_workspace_free(ws);
            return sc_error_set(err, SC_E_USAGE, "--max-size",
                                "--max-size takes a whole number of bytes, at least 1: %s", max);
        }
        c->max_download_bytes = (uint64_t)v;
    }
    return SC_OK;
}

/* add, remove and edit --json: {"action", "kind", "boxId", "value"[, "field"]} */
static int print_edit(const char *action, const char *kind, const char *box, const char *value,
                      const char *field_value)
{
    sc_json *o = sc_json_new_object();
    int bad = o == NULL || sc_json_object_append(o, "action", sc_json_new_string(action)) ||
              sc_json_object_append(o, "kind", sc_json_new_string(kind)) ||
              sc_json_object_append(o, "boxId", sc_json_new_string(box));
    if (!bad && field_value != NULL)
        bad |= sc_json_object_append(o, "field", sc_json_new_string(value)) ||
               sc_json_object_append(o, "value", sc_json_new_string(field_value));
    else if (!bad)
        bad |= sc_json_object_append(o, "value", sc_json_new_string(value));
    if (bad) {
        sc_json_free(o);
        o = NULL;
    }
    return sc_cli_print_json(o);
}

static int cmd_add_remove(sc_cli_args *a, int add)
{
    const char *verb = add ? "add" : "remove";
    sc_author_kind kind;
    if (a->npositional < 1 || !kind_of(a->positional[0], &kind))
        return sc_cli_usage_error("%s takes file, asset, env, import or dep", verb);
    if (a->npositional < 3)
        return sc_cli_usage_error("%s needs BOX and VALUE", a->command->words);
    if (a->npositional > 3)
        return sc_cli_usage_error("unexpected argument %s", a->positional[3]);
    if (!add && ((sc_cli_has(a, OPT_TO) || sc_cli_has(a, OPT_VERSION_ARG))))
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
    if (sc_cli_json())
        return finish(print_edit(add ? "added" : "removed", a->positional[0], a->positional[1],
                                 a->positional[2], NULL));
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
    if (sc_cli_json())
        return finish(print_edit("edited", "field", a->positional[1], sc_cli_value(a, OPT_FIELD),
                                 sc_cli_value(a, OPT_VALUE)));
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
    sc_code rc = sc_author_refresh(&c, a->positional[0], (sc_cli_has(a, OPT_REPIN)) != 0,
                                   (sc_cli_has(a, OPT_CHECK_ASSETS)) != 0, &rep, &err);
    sc_workspace_free(&ws);
    int status = 0;
    if (sc_cli_has(a, OPT_JSON)) {
        /* the drift whatever the outcome, the error beside it on a failure */
        if (rc != SC_OK) {
            status = sc_cli_fail_json(rep, &err);
            rep = NULL;
            return finish(status);
        }
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

/*
 * add dep BOX --from-requirements FILE [NAME]: every dependency of a pip
 * requirements.txt (requirements.h), renames and skips reported on stderr.
 * Names and specifiers are checked while reading, before the first
 * pixi.toml changes; each dependency is then one staged, re-validated add.
 */
static int add_requirements(sc_cli_args *a)
{
    const char *file = sc_cli_value(a, OPT_FROM_REQUIREMENTS);
    const char *box = a->positional[1];
    sc_error err;
    char *text = NULL;
    size_t len = 0;
    if (sc_file_read(file, &text, &len, NULL, &err) != SC_OK)
        return report(&err);
    sc_requirements req;
    sc_code c = sc_requirements_parse(text, len, &req, &err);
    free(text);
    if (c != SC_OK)
        return report(&err);
    for (size_t i = 0; i < req.ndeps; i++)
        if (req.deps[i].from != NULL)
            fprintf(stderr, "scrollcase: %s is %s on conda-forge\n", req.deps[i].from,
                    req.deps[i].name);
    for (size_t i = 0; i < req.nskipped; i++)
        fprintf(stderr, "scrollcase: skipped %s: %s\n", req.skipped[i].line, req.skipped[i].reason);
    const char *one = a->npositional > 2 ? a->positional[2] : NULL;
    if (req.ndeps == 0 && one == NULL) {
        sc_requirements_free(&req);
        sc_error_set(&err, SC_E_USAGE, file, "%s names no dependency conda-forge can take", file);
        return report(&err);
    }
    sc_workspace ws;
    sc_author_ctx ctx;
    if (ctx_for(a, &ws, &ctx, &err) != SC_OK) {
        sc_requirements_free(&req);
        return report(&err);
    }
    /* every dependency in one staged edit: all of them or none (issue 24) */
    size_t n = req.ndeps + (one != NULL);
    const char **names = malloc((n ? n : 1) * sizeof *names);
    const char **specs = malloc((n ? n : 1) * sizeof *specs);
    if (names == NULL || specs == NULL)
        c = sc_error_set(&err, SC_E_OUT_OF_MEMORY, NULL, "out of memory");
    for (size_t i = 0; c == SC_OK && i < n; i++) {
        names[i] = i < req.ndeps ? req.deps[i].name : one;
        specs[i] = i < req.ndeps ? req.deps[i].spec : sc_cli_value(a, OPT_VERSION_ARG);
    }
    if (c == SC_OK)
        c = sc_author_add_deps(&ctx, box, names, specs, n, &err);
    sc_json *deps = sc_cli_json() && c == SC_OK ? sc_json_new_array() : NULL;
    for (size_t i = 0; c == SC_OK && i < n; i++) {
        const char *name = names[i];
        const char *spec = specs[i];
        if (deps == NULL)
            printf("added dep %s = \"%s\": box %s updated\n", name, spec ? spec : "*", box);
        if (deps != NULL) {
            sc_json *o = sc_json_new_object();
            if (o == NULL || sc_json_object_append(o, "name", sc_json_new_string(name)) ||
                sc_json_object_append(o, "spec", sc_json_new_string(spec ? spec : "*")) ||
                sc_json_array_append(deps, o) != 0) {
                sc_json_free(o);
                c = sc_error_set(&err, SC_E_OUT_OF_MEMORY, NULL, "out of memory");
            }
        }
    }
    free(names);
    free(specs);
    sc_workspace_free(&ws);
    int rc;
    if (c != SC_OK) {
        sc_json_free(deps);
        rc = report(&err);
    } else if (deps != NULL) {
        sc_json *o = sc_json_new_object(), *skipped = sc_json_new_array();
        int bad = o == NULL || skipped == NULL;
        for (size_t i = 0; !bad && i < req.nskipped; i++) {
            sc_json *k = sc_json_new_object();
            bad |= k == NULL || sc_json_object_append(k, "line", sc_json_new_string(req.skipped[i].line)) ||
                   sc_json_object_append(k, "reason", sc_json_new_string(req.skipped[i].reason)) ||
                   sc_json_array_append(skipped, k);
        }
        bad |= o == NULL || sc_json_object_append(o, "action", sc_json_new_string("added")) ||
               sc_json_object_append(o, "kind", sc_json_new_string("dep")) ||
               sc_json_object_append(o, "boxId", sc_json_new_string(box)) ||
               sc_json_object_append(o, "value", sc_json_new_string(file)) ||
               sc_json_object_append(o, "dependencies", deps) ||
               sc_json_object_append(o, "skipped", skipped);
        if (bad) {
            sc_json_free(o);
            o = NULL;
        }
        rc = sc_cli_print_json(o);
    } else {
        rc = 0;
    }
    sc_requirements_free(&req);
    return finish(rc);
}

static int cmd_add(sc_cli_args *a)
{
    if (sc_cli_has(a, OPT_FROM_REQUIREMENTS)) {
        if (strcmp(a->positional[0], "dep") != 0)
            return sc_cli_usage_error("%s", "--from-requirements goes with add dep");
        return add_requirements(a);
    }
    return cmd_add_remove(a, 1);
}

static int cmd_remove(sc_cli_args *a)
{
    return cmd_add_remove(a, 0);
}

#define TARGET_HELP "the target's scroll.json, or all (see `help add`)"

#define ADD_TARGET_TEXT \
    "--target: a target id edits that target's scroll.json; all edits the box's\n" \
    "base scroll.json when it has one, else every target; without it a box must\n" \
    "have exactly one target.  Every edit is staged and every target of the box\n" \
    "re-validated; on failure the files are put back as they were.\n"

static const char remove_description[] =
    "Removes what `add` added: a file or asset by relativePath (or source path /\n"
    "URL), env by NAME, import and dep by name; nothing matching is a usage error\n"
    "and the last import of a scroll is refused.  --target as for `add`.  Every\n"
    "edit is staged and every target of the box re-validated; on failure the\n"
    "files are put back as they were.\n";

#define BOX_OPERAND {"BOX", 1, 0, SC_COMPLETE_NONE}

const sc_cli_command sc_cli_author_commands[] = {
    {"init", "author", "set up a workspace (config, scrolls, .gitignore)",
     "Initialises the workspace at the project root: writes scrollcase.config.json\n"
     "({\"version\": 1, \"paths\": {...the defaults}}) unless one exists, creates the\n"
     "scrolls directory, and adds \".scrollcase/\" to .gitignore once.  Never\n"
     "replaces a file.  With --example it also writes the starter scroll\n"
     "example-box/<this host's target> through the `new scroll` path (pixi pin\n"
     "--pixi-version, default " SC_AUTHOR_DEFAULT_PIXI_VERSION ").  Downloads nothing: no toolchain\n"
     "(pixi, conda-pack) is installed; `scrollcase doctor` says what is missing.\n",
     NULL,
     SC_CLI_OPTIONS({OPT_EXAMPLE, NULL}, {OPT_PIXI_VERSION, "the starter scroll's pixi pin"},
                    {OPT_NO_EXAMPLE, NULL}, {OPT_NO_INSTALL_TOOLCHAIN, NULL},
                    {OPT_NO_TEMPLATES, NULL}, {OPT_JSON, NULL}),
     NULL, 0, cmd_init, NULL},
    {"new scroll", "author", "write a new minimal scroll and pixi.toml",
     "Writes <scrolls>/<boxId>/<targetId>/scroll.json (a minimal schema-v3 scroll:\n"
     "boxId, modelId (default boxId), runtimeId (<boxId>-runtime), version\n"
     "(1.0.0), sourceRevision, target, pythonVersion (" SC_AUTHOR_DEFAULT_PYTHON_VERSION "), pixiVersion\n"
     "(" SC_AUTHOR_DEFAULT_PIXI_VERSION "), selfTest {imports: [\"json\"]} and execution when asked)\n"
     "and pixi.toml ([workspace] name, channels, platforms = the target's conda\n"
     "subdir; [dependencies] python = \"X.Y.*\").  The directory appears whole (built\n"
     "under a temporary name and renamed); an existing scroll is scroll-exists.\n"
     "Non-interactive: a missing required flag is a usage error naming it\n"
     "(--box-id, --target and --source-revision are required).  The --min-*\n"
     "flags and --max-host-app-version-exclusive write the scroll's compatibility\n"
     "(dotted versions; --min-macos-version for a macOS target, --min-nvidia-\n"
     "driver-version for a CUDA one; --min-ram-gb a number > 0).\n"
     "--default-args JSON (a JSON array of strings) is execution.defaultArgs.\n"
     "--generate-script (with --execution script) writes a starter script at\n"
     "--generated-script-path (default box-entrypoints/<boxId>/<targetId>/\n"
     "entrypoint.py, never replacing a file) and declares it: localFiles\n"
     "{sourcePath, relativePath} (no sha256), selfTest.files and\n"
     "execution.script, the payload path --script (default entrypoint.py).\n",
     NULL,
     SC_CLI_OPTIONS({OPT_BOX_ID, NULL}, {OPT_TARGET, NULL}, {OPT_SOURCE_REVISION, NULL},
                    {OPT_MODEL_ID, NULL}, {OPT_RUNTIME_ID, NULL}, {OPT_SCROLL_VERSION, NULL},
                    {OPT_VERSION_ARG, "the box version (default 1.0.0)"},
                    {OPT_PYTHON_VERSION, NULL}, {OPT_PIXI_VERSION, NULL}, {OPT_EXECUTION, NULL},
                    {OPT_SCRIPT, NULL}, {OPT_MODULE, NULL}, {OPT_ASSET_BASE_URL, NULL},
                    {OPT_WEIGHTS, NULL}, {OPT_MIN_HOST_APP_VERSION, NULL},
                    {OPT_MAX_HOST_APP_VERSION, NULL}, {OPT_MIN_MACOS_VERSION, NULL},
                    {OPT_MIN_NVIDIA_DRIVER_VERSION, NULL}, {OPT_MIN_RAM_GB, NULL},
                    {OPT_DEFAULT_ARGS, NULL}, {OPT_GENERATE_SCRIPT, NULL},
                    {OPT_GENERATED_SCRIPT_PATH, NULL}, {OPT_JSON, NULL}),
     NULL, 0, cmd_new, SC_CLI_ALIASES({"--script-destination", OPT_SCRIPT})},
    {"add file", "author", "add a project file to a box (localFiles, selfTest.files)",
     "Adds a regular, non-link project file: a localFiles entry {sourcePath,\n"
     "relativePath, sha256} and a selfTest.files entry.\n\n" ADD_TARGET_TEXT,
     SC_CLI_OPERANDS(BOX_OPERAND, {"PATH", 1, 0, SC_COMPLETE_FILE}),
     SC_CLI_OPTIONS({OPT_TARGET, TARGET_HELP}, {OPT_TO, "its path inside the box"}, {OPT_JSON, NULL}),
     NULL, 0, cmd_add, NULL},
    {"add asset", "author", "add a downloaded asset to a box",
     "Downloads URL once to pin sizeBytes and sha256; the path defaults to\n"
     "<modelCacheSubdir>/<last URL segment>.\n\n" ADD_TARGET_TEXT,
     SC_CLI_OPERANDS(BOX_OPERAND, {"URL", 1, 0, SC_COMPLETE_NONE}),
     SC_CLI_OPTIONS({OPT_TARGET, TARGET_HELP}, {OPT_TO, "its path inside the box"},
                    {OPT_MAX_SIZE, NULL}, {OPT_JSON, NULL}),
     NULL, 0, cmd_add, NULL},
    {"add env", "author", "set an environment member of a box",
     "Sets NAME to VALUE in the scroll's environment (replaced if present).\n\n" ADD_TARGET_TEXT,
     SC_CLI_OPERANDS(BOX_OPERAND, {"NAME=VALUE", 1, 0, SC_COMPLETE_NONE}),
     SC_CLI_OPTIONS({OPT_TARGET, TARGET_HELP}, {OPT_JSON, NULL}), NULL, 0, cmd_add, NULL},
    {"add import", "author", "add a module the self-test imports",
     "Adds MODULE (a dotted name) to selfTest.imports.\n\n" ADD_TARGET_TEXT,
     SC_CLI_OPERANDS(BOX_OPERAND, {"MODULE", 1, 0, SC_COMPLETE_NONE}),
     SC_CLI_OPTIONS({OPT_TARGET, TARGET_HELP}, {OPT_JSON, NULL}), NULL, 0, cmd_add, NULL},
    {"add dep", "author", "add a conda dependency to a box's pixi.toml",
     "Sets NAME = \"SPEC\" (default \"*\") in [dependencies] of each chosen\n"
     "target's pixi.toml.  --from-requirements FILE adds every requirement of a\n"
     "pip requirements.txt instead (NAME, if given, as well): names lowercased,\n"
     "known PyPI names turned into conda-forge's (torch is pytorch, ...), version\n"
     "specifiers kept, markers dropped; pip options, URLs, extras and names\n"
     "conda cannot take are reported on stderr and skipped.  NAME or\n"
     "--from-requirements is required.\n\n" ADD_TARGET_TEXT,
     SC_CLI_OPERANDS(BOX_OPERAND, {"NAME", 0, 0, SC_COMPLETE_NONE}),
     SC_CLI_OPTIONS({OPT_TARGET, TARGET_HELP}, {OPT_VERSION_ARG, "the version spec (default *)"},
                    {OPT_FROM_REQUIREMENTS, "add every dependency of a pip requirements.txt"},
                    {OPT_JSON, NULL}),
     NULL, 0, cmd_add, NULL},
    {"remove file", "author", "remove a project file from a box",
     remove_description, SC_CLI_OPERANDS(BOX_OPERAND, {"PATH", 1, 0, SC_COMPLETE_NONE}),
     SC_CLI_OPTIONS({OPT_TARGET, TARGET_HELP}, {OPT_JSON, NULL}), NULL, 0, cmd_remove, NULL},
    {"remove asset", "author", "remove an asset from a box",
     remove_description, SC_CLI_OPERANDS(BOX_OPERAND, {"PATH|URL", 1, 0, SC_COMPLETE_NONE}),
     SC_CLI_OPTIONS({OPT_TARGET, TARGET_HELP}, {OPT_JSON, NULL}), NULL, 0, cmd_remove, NULL},
    {"remove env", "author", "remove an environment member of a box",
     remove_description, SC_CLI_OPERANDS(BOX_OPERAND, {"NAME", 1, 0, SC_COMPLETE_NONE}),
     SC_CLI_OPTIONS({OPT_TARGET, TARGET_HELP}, {OPT_JSON, NULL}), NULL, 0, cmd_remove, NULL},
    {"remove import", "author", "remove a module the self-test imports",
     remove_description, SC_CLI_OPERANDS(BOX_OPERAND, {"MODULE", 1, 0, SC_COMPLETE_NONE}),
     SC_CLI_OPTIONS({OPT_TARGET, TARGET_HELP}, {OPT_JSON, NULL}), NULL, 0, cmd_remove, NULL},
    {"remove dep", "author", "remove a conda dependency from a box's pixi.toml",
     remove_description, SC_CLI_OPERANDS(BOX_OPERAND, {"NAME", 1, 0, SC_COMPLETE_NONE}),
     SC_CLI_OPTIONS({OPT_TARGET, TARGET_HELP}, {OPT_JSON, NULL}), NULL, 0, cmd_remove, NULL},
    {"edit scroll", "author", "set one field of a box's scroll(s)",
     "Sets one top-level field of the chosen scroll file(s) (see `help add` for\n"
     "--target); VALUE is trimmed, weights takes embed or on-demand.  The box is\n"
     "re-validated; an invalid result is refused and nothing changes.\n",
     SC_CLI_OPERANDS(BOX_OPERAND),
     SC_CLI_OPTIONS({OPT_FIELD, NULL}, {OPT_VALUE, NULL}, {OPT_TARGET, TARGET_HELP},
                    {OPT_JSON, NULL}),
     NULL, 0, cmd_edit, NULL},
    {"refresh", "author", "re-pin local files (and assets) that changed",
     "Hashes again every localFiles entry of the box that declares sha256.  Drift is\n"
     "reported and exits 1 with local-file-mismatch, unless --repin rewrites the pins\n"
     "(staged and re-validated).  A missing source is local-file-missing.\n"
     "--check-assets also downloads every asset again (the only case that uses the\n"
     "network) and compares size and sha256: drift is asset-size / asset-hash, or\n"
     "repinned with --repin.  --json prints {localFiles: [...], assets: [...]}.\n",
     SC_CLI_OPERANDS(BOX_OPERAND),
     SC_CLI_OPTIONS({OPT_REPIN, NULL}, {OPT_CHECK_ASSETS, NULL}, {OPT_MAX_SIZE, NULL},
                    {OPT_JSON, NULL}),
     NULL, 0, cmd_refresh, NULL},
    SC_CLI_END,
};
