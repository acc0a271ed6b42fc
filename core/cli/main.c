/* SPDX-License-Identifier: Apache-2.0 */
/*
 * main.c — the scrollcase command.
 *
 * A thin driver: it parses arguments, calls libscrollcase and prints.  Every
 * rule lives in the library.  Exit status: 0 success, 1 a rejection (one
 * line "scrollcase: error[<code>]: <message>" on stderr), 2 a usage error.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scrollcase/config.h"
#include "scrollcase/error.h"
#include "scrollcase/json.h"
#include "scrollcase/migrate.h"
#include "scrollcase/process.h"
#include "scrollcase/scroll.h"
#include "scrollcase/target.h"

#include "args.h"
#include "commands.h"

#ifndef SC_VERSION
#define SC_VERSION "0.0.0"
#endif

/* ---- help --------------------------------------------------------------- */

static const char *const main_help =
    "usage: scrollcase [--version] [--help] <command> [options]\n"
    "\n"
    "Commands:\n"
    "  scroll check [REF] [--json]   validate scrolls; print their effective form\n"
    "  target-id FILE [--json]       the id (and derived facts) of a target object\n"
    "  migrate REF [--dry-run] [--json]\n"
    "                                rewrite v2 scrolls as v3, atomically\n"
    "  keygen [--key-id ID] [--force] [--json]\n"
    "                                make an Ed25519 signing key pair (keys dir)\n"
    "  sign FILE [--out FILE] [--key-id ID | --signer-command CMD] [--json]\n"
    "                                sign a manifest into a v3 envelope\n"
    "  verify-document FILE --trust TRUSTFILE [--expect TYPE] [--json]\n"
    "                                verify a signed document\n"
    "  channel resolve CHANNEL --install-id ID --trust TRUSTFILE [--json]\n"
    "                                the release a signed channel serves this install\n"
    "%s%s%s%s%s%s"
    "  help [COMMAND]                this text, or a command's\n"
    "\n"
    "Workspace options (every command):\n"
    "  --project-root DIR  --config FILE  --scrolls-dir DIR  --build-dir DIR\n"
    "  --out-dir DIR  --keys-dir DIR  --toolchain-dir DIR\n"
    "\n"
    "REF is <boxId>/<targetId> or <boxId>.  Exit status: 0 success, 1 a\n"
    "rejection (\"scrollcase: error[<code>]: <message>\" on stderr; codes in\n"
    "docs/errors.md), 2 a usage error.\n";

static const char *const scroll_help =
    "usage: scrollcase scroll check [REF] [--json] [workspace options]\n"
    "\n"
    "Reads and validates every scroll of the workspace, of one box, or one\n"
    "scroll, in byte order of their references.  Prints \"ok   <ref>\" or\n"
    "\"FAIL <ref>  error[<code>]: <message>\" per scroll; with --json, one\n"
    "object {\"scrolls\": [...]} holding each effective scroll (or its error).\n"
    "Exit 1 when any scroll fails.\n";

static const char *const target_help =
    "usage: scrollcase target-id FILE [--json]\n"
    "\n"
    "Reads a target object ({platform, arch, accelerator[, cudaVersion]}) and\n"
    "prints its target id; with --json, the id and every fact derived from the\n"
    "target (conda subdir, entry point, validation environment, ...).\n";

static const char *const migrate_help =
    "usage: scrollcase migrate REF [--dry-run] [--json] [workspace options]\n"
    "\n"
    "Rewrites the schema-v2 scrolls REF names as v3 (schemaVersion and $schema;\n"
    "nothing else changes).  A scroll with a base is migrated with its base and\n"
    "every sibling that extends it.  Every result must pass v3 validation or\n"
    "nothing is written (migrate-refused).  --dry-run checks without writing.\n";

static int help_for(const char *cmd)
{
    if (cmd == NULL)
        printf(main_help, sc_cli_author_summary ? sc_cli_author_summary() : "",
               sc_cli_build_summary ? sc_cli_build_summary() : "",
               sc_cli_env_summary ? sc_cli_env_summary() : "",
               sc_cli_box_summary ? sc_cli_box_summary() : "",
               sc_cli_parity_summary ? sc_cli_parity_summary() : "",
               sc_cli_audit_summary ? sc_cli_audit_summary() : "");
    else if (strcmp(cmd, "scroll") == 0)
        fputs(scroll_help, stdout);
    else if (strcmp(cmd, "target-id") == 0)
        fputs(target_help, stdout);
    else if (strcmp(cmd, "migrate") == 0)
        fputs(migrate_help, stdout);
    else if (sc_cli_documents_help(cmd) == 0)
        ;
    else if (sc_cli_box_help && sc_cli_box_help(cmd) == 0)
        ;
    else if (sc_cli_parity_help && sc_cli_parity_help(cmd) == 0)
        ;
    else if (sc_cli_audit_help && sc_cli_audit_help(cmd) == 0)
        ;
    else if (sc_cli_build_help && sc_cli_build_help(cmd) == 0)
        ;
    else if (sc_cli_env_help && sc_cli_env_help(cmd) == 0)
        ;
    else if (sc_cli_author_help && sc_cli_author_help(cmd) == 0)
        ;
    else
        return sc_cli_usage_error("unknown command %s", cmd);
    return 0;
}

/* ---- commands ----------------------------------------------------------- */

static int cmd_scroll(sc_cli_args *a)
{
    if (a->npositional < 1 || strcmp(a->positional[0], "check") != 0)
        return sc_cli_usage_error("%s", "scroll takes the subcommand check");
    if (a->npositional > 2)
        return sc_cli_usage_error("unexpected argument %s", a->positional[2]);
    const char *selector = a->npositional == 2 ? a->positional[1] : NULL;
    sc_workspace ws;
    sc_error err;
    if (sc_workspace_resolve(&a->ws, &ws, &err) != SC_OK)
        return sc_cli_report(&err);
    sc_scroll_ref_list refs;
    if (sc_scroll_list_refs(ws.paths[SC_WS_SCROLLS], selector, &refs, &err) != SC_OK) {
        sc_workspace_free(&ws);
        return sc_cli_report(&err);
    }
    int failed = 0, rc = 0;
    sc_json *all = (a->given & OPT_JSON) ? sc_json_new_object() : NULL;
    sc_json *list = (a->given & OPT_JSON) ? sc_json_new_array() : NULL;
    if ((a->given & OPT_JSON) && (all == NULL || list == NULL ||
                    sc_json_object_append(all, "scrolls", list) != 0)) {
        sc_json_free(all);
        sc_scroll_ref_list_free(&refs);
        sc_workspace_free(&ws);
        sc_error_set(&err, SC_E_OUT_OF_MEMORY, NULL, "out of memory");
        return sc_cli_report(&err);
    }
    for (size_t i = 0; i < refs.count; i++) {
        sc_scroll *s = NULL;
        sc_code c = sc_scroll_load(ws.paths[SC_WS_SCROLLS], refs.refs[i], &s, &err);
        if (c != SC_OK)
            failed++;
        if ((a->given & OPT_JSON)) {
            sc_json *item = sc_json_new_object();
            int bad = item == NULL ||
                      sc_json_object_append(item, "reference",
                                            sc_json_new_string(refs.refs[i]));
            if (!bad && c == SC_OK) {
                bad |= sc_json_object_append(item, "targetId",
                                             sc_json_new_string(s->target_id));
                bad |= sc_json_object_append(item, "scroll", sc_json_copy(s->effective));
            } else if (!bad) {
                sc_json *e = sc_json_new_object();
                bad |= e == NULL;
                bad |= e && sc_json_object_append(e, "code",
                                                  sc_json_new_string(sc_code_name(err.code)));
                bad |= e && sc_json_object_append(e, "message",
                                                  sc_json_new_string(err.message));
                bad |= sc_json_object_append(item, "error", e);
            }
            if (bad || sc_json_array_append(list, item) != 0)
                rc = EXIT_REJECTED;
        } else if (c == SC_OK) {
            printf("ok   %s\n", refs.refs[i]);
        } else {
            printf("FAIL %s  error[%s]: %s\n", refs.refs[i], sc_code_name(err.code),
                   err.message);
        }
        sc_scroll_free(s);
    }
    if ((a->given & OPT_JSON) && rc == 0) {
        rc = sc_cli_print_json(all);
        all = NULL;
    } else if (!(a->given & OPT_JSON)) {
        printf("%zu scroll(s) checked, %d failed\n", refs.count, failed);
    }
    sc_json_free(all);
    sc_scroll_ref_list_free(&refs);
    sc_workspace_free(&ws);
    if (rc != 0)
        return rc;
    return failed ? EXIT_REJECTED : 0;
}

static int cmd_target_id(sc_cli_args *a)
{
    if (a->npositional != 1)
        return sc_cli_usage_error("%s", "target-id takes one FILE");
    sc_json *doc = NULL;
    sc_error err;
    sc_target t;
    if (sc_json_parse_file(a->positional[0], &doc, &err) != SC_OK)
        return sc_cli_report(&err);
    if (sc_target_from_json(doc, "$", &t, &err) != SC_OK) {
        sc_json_free(doc);
        sc_error_prefix(&err, a->positional[0]);
        return sc_cli_report(&err);
    }
    sc_json_free(doc);
    if (!(a->given & OPT_JSON)) {
        char id[SC_TARGET_ID_MAX];
        sc_target_id(&t, id, sizeof id);
        printf("%s\n", id);
        return 0;
    }
    sc_json *d = sc_target_describe(&t);
    if (d == NULL) {
        sc_error_set(&err, SC_E_OUT_OF_MEMORY, NULL, "out of memory");
        return sc_cli_report(&err);
    }
    return sc_cli_print_json(d);
}

static int cmd_migrate(sc_cli_args *a)
{
    if (a->npositional != 1)
        return sc_cli_usage_error("%s", "migrate takes one REF (<boxId>/<targetId> or <boxId>)");
    sc_workspace ws;
    sc_error err;
    if (sc_workspace_resolve(&a->ws, &ws, &err) != SC_OK)
        return sc_cli_report(&err);
    sc_migrate_result r;
    if (sc_migrate_ref(ws.paths[SC_WS_SCROLLS], a->positional[0], (a->given & OPT_DRY_RUN) != 0, &r,
                       &err) != SC_OK) {
        sc_workspace_free(&ws);
        return sc_cli_report(&err);
    }
    int rc = 0;
    if ((a->given & OPT_JSON)) {
        sc_json *o = sc_json_new_object();
        sc_json *w = sc_json_new_array();
        int bad = o == NULL || w == NULL;
        for (size_t i = 0; !bad && i < r.count; i++)
            bad |= sc_json_array_append(w, sc_json_new_string(r.written[i]));
        bad |= o && sc_json_object_append(o, "dryRun", sc_json_new_bool((a->given & OPT_DRY_RUN) != 0));
        if (o && !bad)
            bad |= sc_json_object_append(o, "written", w);
        else
            sc_json_free(w);
        if (bad)
            sc_json_free(o);
        rc = bad ? EXIT_REJECTED : sc_cli_print_json(o);
    } else if (r.count == 0) {
        printf("nothing to migrate: %s is already schema v3\n", a->positional[0]);
    } else {
        for (size_t i = 0; i < r.count; i++)
            printf("%s %s/%s\n", (a->given & OPT_DRY_RUN) != 0 ? "would migrate" : "migrated",
                   ws.paths[SC_WS_SCROLLS], r.written[i]);
    }
    sc_migrate_result_free(&r);
    sc_workspace_free(&ws);
    return rc;
}

int main(int argc, char **argv)
{
    /* A command: the children the library starts get our SIGINT/SIGTERM. */
    sc_process_set_signal_forwarding(1);
    if (argc < 2)
        return help_for(NULL), EXIT_USAGE;
    if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0) {
        printf("scrollcase %s (format schema v3, conformance protocol 1)\n", SC_VERSION);
        return 0;
    }
    int at = sc_cli_command_index(argc, argv);
    if (at == 0) {
        int asked = 0;
        for (int i = 1; i < argc; i++)
            asked |= strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0;
        return help_for(NULL), asked ? 0 : EXIT_USAGE;
    }
    int status = 0;
    if (sc_cli_documents_dispatch(argc, argv, &status)) /* keygen, sign, ... */
        return status;
    if (sc_cli_box_dispatch && sc_cli_box_dispatch(argc, argv, &status))
        return status;
    if (sc_cli_parity_dispatch && sc_cli_parity_dispatch(argc, argv, &status))
        return status;
    if (sc_cli_audit_dispatch && sc_cli_audit_dispatch(argc, argv, &status))
        return status;
    if (sc_cli_build_dispatch && sc_cli_build_dispatch(argc, argv, &status))
        return status;
    if (sc_cli_env_dispatch && sc_cli_env_dispatch(argc, argv, &status))
        return status;
    if (sc_cli_author_dispatch && sc_cli_author_dispatch(argc, argv, &status))
        return status;
    const char *cmd = argv[at];
    unsigned long long allowed = strcmp(cmd, "migrate") == 0 ? OPT_JSON | OPT_DRY_RUN
                       : strcmp(cmd, "help") == 0  ? 0
                                                   : OPT_JSON;
    sc_cli_args a;
    memset(&a, 0, sizeof a);
    int rc = sc_cli_parse(argc, argv, at, allowed, &a);
    if (rc != 0)
        return rc;
    if (strcmp(cmd, "help") == 0)
        return help_for(a.npositional ? a.positional[0] : NULL);
    if (a.help)
        return help_for(cmd);
    if (strcmp(cmd, "scroll") == 0)
        return cmd_scroll(&a);
    if (strcmp(cmd, "target-id") == 0)
        return cmd_target_id(&a);
    if (strcmp(cmd, "migrate") == 0)
        return cmd_migrate(&a);
    return sc_cli_usage_error("unknown command %s", cmd);
}
