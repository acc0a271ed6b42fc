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

/*
 * The options a command may accept (workspace options: always).  Add an
 * option by appending a bit here and a row to the table in args.c; a value
 * option's value is a->value[sc_cli_bit_index(bit)] (sc_cli_value).
 */
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
    OPT_DRY_RUN = 1 << 9,
    /* boxes on disk (format-v3 14-16) */
    OPT_ARCHIVE = 1 << 10,       /* --archive FILE */
    OPT_EXTRACTED = 1 << 11,     /* --extracted DIR */
    OPT_SELF_TEST = 1 << 12,     /* --self-test */
    OPT_REVOCATIONS = 1 << 13,   /* --revocations FILE */
    OPT_ENV = 1 << 14,           /* --env NAME=VALUE, repeatable */
    OPT_ENV_REPORT = 1 << 15,    /* --env-report */
    OPT_ENV_VALUES = 1 << 16,    /* --env-report-values */
    OPT_TMPDIR = 1 << 17,        /* --temporary-directory DIR */
    OPT_TIMEOUT = 1 << 18,       /* --timeout SECONDS */
    OPT_COMPRESSION = 1 << 19,   /* --compression deflate|store */
    OPT_PREPARED = 1 << 20,      /* --prepared DIR */
    OPT_REST = 1 << 21,          /* not an option: arguments after -- go to rest */
    /* parity and hosts (17-18) */
    OPT_ABSOLUTE = 1 << 22,      /* --absolute X */
    OPT_RELATIVE = 1 << 23,      /* --relative X */
    OPT_MIN_COSINE = 1 << 24,    /* --minimum-cosine X */
    OPT_HOST_APP_VERSION = 1 << 25, /* --host-app-version V */
    OPT_HOST_FACTS = 1 << 26,    /* --host-facts FILE */
    /* CUDA ABI audit (19) */
    OPT_AUDIT = 1 << 27          /* --audit */
    /* bits 28-31 are free; widen `given` before going past 31 */
};

#define SC_CLI_MAX_ENV 256

typedef struct sc_cli_args {
    sc_workspace_options ws;
    unsigned given; /* the sc_cli_opt bits seen */
    int help;
    const char *key_id, *out, *signer, *public_key, *trust, *expect, *install_id;
    const char *positional[4];
    int npositional;
    const char *value[32];          /* by bit index, for value options */
    const char *env[SC_CLI_MAX_ENV]; /* every --env, in order */
    int nenv;
    char **rest;                    /* with OPT_REST: the arguments after -- */
    int nrest;
} sc_cli_args;

/* The bit's index (OPT_ARCHIVE -> 10). */
int sc_cli_bit_index(unsigned bit);

/* The value given for a value option, or NULL. */
const char *sc_cli_value(const sc_cli_args *a, unsigned bit);

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
