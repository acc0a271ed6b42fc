/*
 * args.h — the scrollcase command's option parser and output helpers,
 * shared by every command (main.c, cmd_documents.c).
 *
 * Options take "--name value" or "--name=value"; "--" ends options; an
 * option a command does not accept is a usage error (exit 2).
 */
#ifndef SC_CLI_ARGS_H
#define SC_CLI_ARGS_H

#include "scrollcase/config.h"
#include "scrollcase/error.h"
#include "scrollcase/json.h"

#define EXIT_REJECTED 1
#define EXIT_USAGE 2

/* The options a command may accept (workspace options: always). */
enum sc_cli_opt {
    OPT_KEY_ID = 1 << 0,
    OPT_FORCE = 1 << 1,
    OPT_JSON = 1 << 2,
    OPT_OUT = 1 << 3,
    OPT_SIGNER = 1 << 4,
    OPT_PUBLIC_KEY = 1 << 5,
    OPT_TRUST = 1 << 6,
    OPT_EXPECT = 1 << 7,
    OPT_INSTALL_ID = 1 << 8,
    OPT_DRY_RUN = 1 << 9
};

typedef struct sc_cli_args {
    sc_workspace_options ws;
    unsigned given; /* the sc_cli_opt bits seen */
    int help;
    const char *key_id, *out, *signer, *public_key, *trust, *expect, *install_id;
    const char *positional[4];
    int npositional;
} sc_cli_args;

/* Index of the command word in argv (skipping options and their values), or 0. */
int sc_cli_command_index(int argc, char **argv);

/* Parse all of argv but argv[0] and the command word at skip. 0 or EXIT_USAGE. */
int sc_cli_parse(int argc, char **argv, int skip, unsigned allowed, sc_cli_args *a);

/* Print "scrollcase: error[usage]: <fmt with what>" and return EXIT_USAGE. */
int sc_cli_usage_error(const char *fmt, const char *what);

/* Print "scrollcase: error[<code>]: <message>"; EXIT_USAGE for usage, else 1. */
int sc_cli_report(const sc_error *err);

/* Write v (taken and freed; NULL means out of memory) to stdout. */
int sc_cli_print_json(sc_json *v);

#endif
