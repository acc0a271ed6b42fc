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

#include "scrollcase/cleanup.h"
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
    sc_error first;
    memset(&first, 0, sizeof first);
    sc_json *all = (sc_cli_has(a, OPT_JSON)) ? sc_json_new_object() : NULL;
    sc_json *list = (sc_cli_has(a, OPT_JSON)) ? sc_json_new_array() : NULL;
    if ((sc_cli_has(a, OPT_JSON)) && (all == NULL || list == NULL ||
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
        if (c != SC_OK && failed++ == 0)
            first = err;
        if ((sc_cli_has(a, OPT_JSON))) {
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
    if ((sc_cli_has(a, OPT_JSON)) && rc == 0 && failed) {
        /* the first failure is the error; every scroll's result is beside it */
        char msg[SC_ERROR_MESSAGE_MAX];
        snprintf(msg, sizeof msg, "%d of %zu scroll(s) failed; the first: %.400s", failed,
                 refs.count, first.message);
        sc_error_set(&first, first.code, first.path[0] ? first.path : NULL, "%s", msg);
        rc = sc_cli_fail_json(all, &first);
        all = NULL;
    } else if ((sc_cli_has(a, OPT_JSON)) && rc == 0) {
        rc = sc_cli_print_json(all);
        all = NULL;
    } else if (!(sc_cli_has(a, OPT_JSON))) {
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
    if (!(sc_cli_has(a, OPT_JSON))) {
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
    if (sc_migrate_workspace(ws.paths[SC_WS_SCROLLS], ws.root, a->positional[0],
                             (sc_cli_has(a, OPT_DRY_RUN)) != 0, &r, &err) != SC_OK) {
        sc_workspace_free(&ws);
        return sc_cli_report(&err);
    }
    int rc = 0;
    if ((sc_cli_has(a, OPT_JSON))) {
        sc_json *o = sc_json_new_object();
        sc_json *w = sc_json_new_array(), *inv = sc_json_new_array();
        int bad = o == NULL || w == NULL || inv == NULL;
        for (size_t i = 0; !bad && i < r.count; i++)
            bad |= sc_json_array_append(w, sc_json_new_string(r.written[i]));
        for (size_t i = 0; !bad && i < r.ninventories; i++)
            bad |= sc_json_array_append(inv, sc_json_new_string(r.inventories[i]));
        bad |= o && sc_json_object_append(o, "dryRun", sc_json_new_bool((sc_cli_has(a, OPT_DRY_RUN)) != 0));
        if (o && !bad) {
            bad |= sc_json_object_append(o, "written", w);
            bad |= sc_json_object_append(o, "inventories", inv);
        } else {
            sc_json_free(w);
            sc_json_free(inv);
        }
        if (bad)
            sc_json_free(o);
        rc = bad ? EXIT_REJECTED : sc_cli_print_json(o);
    } else if (r.count == 0 && r.ninventories == 0) {
        printf("nothing to migrate: %s is already schema v3\n", a->positional[0]);
    } else {
        for (size_t i = 0; i < r.count; i++)
            printf("%s %s/%s\n", (sc_cli_has(a, OPT_DRY_RUN)) != 0 ? "would migrate" : "migrated",
                   ws.paths[SC_WS_SCROLLS], r.written[i]);
        for (size_t i = 0; i < r.ninventories; i++)
            printf("%s licence inventory %s/%s\n",
                   (sc_cli_has(a, OPT_DRY_RUN)) != 0 ? "would migrate" : "migrated", ws.root,
                   r.inventories[i]);
    }
    sc_migrate_result_free(&r);
    sc_workspace_free(&ws);
    return rc;
}

/* ---- help ------------------------------------------------------------------ */

static int cmd_help(sc_cli_args *a)
{
    int json = sc_cli_has(a, OPT_COMMANDS_JSON), parse = sc_cli_has(a, OPT_PARSE_ONLY);
    if (json + parse + sc_cli_has(a, OPT_JSON) > 1)
        return sc_cli_usage_error("%s", "--commands-json, --parse-only and --json go alone");
    if ((json || parse) && a->npositional > 0)
        return sc_cli_usage_error("unexpected argument %s", a->positional[0]);
    if (json)
        return sc_cli_print_commands_json(SC_VERSION);
    if (parse) {
        if (a->rest == NULL || a->nrest == 0)
            return sc_cli_usage_error("%s", "--parse-only needs a command line after --");
        if (a->nrest == 1 && (strcmp(a->rest[0], "--version") == 0 ||
                              strcmp(a->rest[0], "-V") == 0))
            return 0;
        sc_cli_args b;
        memset(&b, 0, sizeof b);
        sc_cli_lock_json(1); /* a --json among the words is checked, not obeyed */
        int rc = sc_cli_parse(a->nrest, a->rest, 0, &b);
        sc_cli_lock_json(0);
        if (rc == 0 && b.command == NULL && !b.help)
            rc = sc_cli_usage_error("%s", "no command given");
        return rc == 0 ? 0 : EXIT_USAGE; /* whatever the command's own usage status */
    }
    if (a->rest != NULL)
        return sc_cli_usage_error("%s", "help takes -- only with --parse-only");
    char words[256];
    size_t n = 0;
    words[0] = '\0';
    for (int i = 0; i < a->npositional; i++)
        n += (size_t)snprintf(words + n, n < sizeof words ? sizeof words - n : 0, "%s%s",
                              i ? " " : "", a->positional[i]);
    if (n >= sizeof words)
        return sc_cli_usage_error("unknown command %s", a->positional[0]);
    if (sc_cli_has(a, OPT_JSON))
        return sc_cli_print_help_json(words, SC_VERSION);
    return sc_cli_print_help(words);
}

/* ---- the table --------------------------------------------------------------- */

const sc_cli_command sc_cli_main_commands[] = {
    {"scroll check", "author", "validate scrolls; print their effective form",
     "Reads and validates every scroll of the workspace, of one box, or one\n"
     "scroll, in byte order of their references.  Prints \"ok   <ref>\" or\n"
     "\"FAIL <ref>  error[<code>]: <message>\" per scroll; with --json, one\n"
     "object {\"scrolls\": [...]} holding each effective scroll (or its error).\n"
     "Exit 1 when any scroll fails.\n",
     SC_CLI_OPERANDS({"REF", 0, 0, SC_COMPLETE_NONE}), SC_CLI_OPTIONS({OPT_JSON, NULL}), NULL, 0,
     cmd_scroll, NULL},
    {"target-id", "host", "the id (and derived facts) of a target object",
     "Reads a target object ({platform, arch, accelerator[, cudaVersion]}) and\n"
     "prints its target id; with --json, the id and every fact derived from the\n"
     "target (conda subdir, entry point, validation environment, ...).\n",
     SC_CLI_OPERANDS({"FILE", 1, 0, SC_COMPLETE_FILE}), SC_CLI_OPTIONS({OPT_JSON, NULL}), NULL, 0,
     cmd_target_id, NULL},
    {"migrate", "author", "rewrite v2 scrolls as v3, atomically",
     "Rewrites the schema-v2 scrolls REF names as v3 (schemaVersion and $schema;\n"
     "nothing else changes).  A scroll with a base is migrated with its base and\n"
     "every sibling that extends it.  The schema-2 licence inventories the\n"
     "scrolls declare are converted with them (dependencyLockSha256 becomes\n"
     "lockSha256).  Every result must pass v3 validation or nothing is written\n"
     "(migrate-refused).  --dry-run checks without writing.\n",
     SC_CLI_OPERANDS({"REF", 1, 0, SC_COMPLETE_NONE}),
     SC_CLI_OPTIONS({OPT_DRY_RUN, NULL}, {OPT_JSON, NULL}), NULL, 0, cmd_migrate, NULL},
    {"help", "meta", "this text, a command's help, or the option table as JSON",
     "Prints the program's help, or the help of every command whose words start\n"
     "with COMMAND (`help audit` shows audit and audit cuda); --json prints that\n"
     "as one document (the overview's groups, or each command's object of\n"
     "--commands-json), as does COMMAND --help --json.\n"
     "--commands-json prints every command, operand and option as one JSON\n"
     "document (schemaVersion 1; the man pages and shell completions are\n"
     "generated from it).  --parse-only -- WORDS... checks that WORDS (a command\n"
     "line without the program name) parse: the command exists, it takes every\n"
     "option given, values fit their choices, required operands are present.\n"
     "Nothing is run; exit 0 when they parse, 2 with the usage error otherwise.\n",
     SC_CLI_OPERANDS({"COMMAND", 0, 1, SC_COMPLETE_NONE}),
     SC_CLI_OPTIONS({OPT_COMMANDS_JSON, NULL}, {OPT_PARSE_ONLY, NULL},
                    {OPT_JSON, "print the help as one JSON document"}),
     "WORDS", 0, cmd_help, NULL},
    SC_CLI_END,
};

int main(int argc, char **argv)
{
    /* A command: the children the library starts get our SIGINT/SIGTERM/
     * SIGHUP, and an interruption removes what the command was making
     * (cleanup.h) and ends what it started. */
    sc_process_set_signal_forwarding(1);
    sc_cleanup_install();
    if (argc >= 2 && (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0 ||
                      strcmp(argv[1], "-v") == 0)) { /* -v: upstream's spelling */
        printf("scrollcase %s (format schema v3, conformance protocol 1)\n", SC_VERSION);
        return 0;
    }
    sc_cli_args a;
    memset(&a, 0, sizeof a);
    int rc = sc_cli_parse(argc, argv, 1, &a);
    if (rc != 0)
        return rc;
    if (a.command == NULL)
        return sc_cli_json() ? sc_cli_print_help_json(a.help_words, SC_VERSION)
                             : sc_cli_print_help(a.help_words);
    if (a.help)
        return sc_cli_json() ? sc_cli_print_help_json(a.command->words, SC_VERSION)
                             : sc_cli_print_help(a.command->words);
    rc = a.command->run(&a);
    if (sc_cli_json() && !sc_cli_json_printed() && strcmp(a.command->words, "run") != 0) {
        /* every command prints its document; reaching here is a bug in it */
        sc_error err;
        sc_error_set(&err, SC_E_INTERNAL, NULL, "%s printed no JSON document", a.command->words);
        rc = sc_cli_report(&err);
    }
    if (rc == 0 && sc_cli_error_shown())
        rc = EXIT_REJECTED; /* never 0 after an error line */
    return rc;
}
