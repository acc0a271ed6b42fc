/* SPDX-License-Identifier: Apache-2.0 */
/*
 * args.h — the scrollcase command's option table, parser and output helpers,
 * shared by every command.
 *
 * Every command is one row of a command table (commands.h): its words
 * ("audit cuda"), operands, the options it accepts and the function that
 * runs it.  Options are described once in the option catalogue of args.c
 * (name, short name, metavariable, completion kind, choices, aliases); a
 * command lists the ones it takes.  --help, `help --commands-json` (the
 * machine-readable table the man pages and completions are generated from)
 * and `help --parse-only` all read the same tables.
 *
 * Options take "--name value" or "--name=value"; "--" ends options; an
 * option a command does not accept is a usage error (exit 2).
 */
#ifndef SC_CLI_ARGS_H
#define SC_CLI_ARGS_H

#include <stddef.h>

#include "scrollcase/config.h"
#include "scrollcase/error.h"
#include "scrollcase/json.h"
#include "scrollcase/lock_install.h"

#define EXIT_REJECTED 1
#define EXIT_USAGE 2

/*
 * Every option, by id.  Add an option by adding an id here (before
 * OPT_COUNT), a row in the catalogue of args.c, and the id in the option
 * list of each command that takes it.
 */
typedef enum sc_cli_opt {
    OPT_HELP,
    /* workspace options: every command takes them */
    OPT_PROJECT_ROOT,
    OPT_CONFIG,
    OPT_SCROLLS_DIR,
    OPT_BUILD_DIR,
    OPT_OUT_DIR,
    OPT_KEYS_DIR,
    OPT_TOOLCHAIN_DIR,
    /* documents and keys */
    OPT_KEY_ID,
    OPT_FORCE,
    OPT_JSON,
    OPT_OUT,
    OPT_SIGNER,
    OPT_PUBLIC_KEY,
    OPT_PRIVATE_KEY,
    OPT_TRUST,
    OPT_EXPECT,
    OPT_INSTALL_ID,
    OPT_DRY_RUN,
    /* boxes on disk (format-v3 14-16) */
    OPT_ARCHIVE,
    OPT_EXTRACTED,
    OPT_SELF_TEST,
    OPT_REVOCATIONS,
    OPT_ENV,
    OPT_ENV_REPORT,
    OPT_ENV_VALUES,
    OPT_TMPDIR,
    OPT_TIMEOUT,
    OPT_COMPRESSION,
    OPT_JOBS,
    OPT_OFFLINE,
    OPT_PREPARED,
    /* parity and hosts (17-18) */
    OPT_ABSOLUTE,
    OPT_RELATIVE,
    OPT_MIN_COSINE,
    OPT_HOST_APP_VERSION,
    OPT_HOST_FACTS,
    /* CUDA ABI audit (19) */
    OPT_AUDIT,
    /* building and authoring */
    OPT_ENV_PREFIX,
    OPT_ALLOW_DIRTY,
    OPT_CHANNEL,
    OPT_WEIGHTS,
    OPT_ASSET_BASE_URL,
    OPT_NAMESPACE,
    OPT_PIXI,
    OPT_CONDA_PACK,
    OPT_TARGET,
    OPT_NO_CUDA_AUDIT,
    OPT_FIELD,
    OPT_VALUE,
    OPT_TO,
    OPT_VERSION_ARG,
    OPT_WRITE,
    OPT_CHECK_ASSETS,
    OPT_MAX_SIZE,
    OPT_REPIN,
    OPT_FROM_REQUIREMENTS,
    OPT_SCROLL,
    OPT_PIXI_VERSION,
    OPT_BOX_ID,
    OPT_EXECUTION,
    OPT_SCRIPT,
    OPT_MODULE,
    OPT_PYTHON_VERSION,
    OPT_SOURCE_REVISION,
    OPT_MODEL_ID,
    OPT_EXAMPLE,
    /* the lock installed natively (issue 26) */
    OPT_ENV_FROM,
    OPT_CHANNEL_MIRROR,
    OPT_CHANNEL_DIR,
    OPT_INTO,
    /* help */
    OPT_COMMANDS_JSON,
    OPT_PARSE_ONLY,
    /* upstream's authoring options */
    OPT_RUNTIME_ID,
    OPT_SCROLL_VERSION,
    OPT_NO_EXAMPLE,
    OPT_NO_INSTALL_TOOLCHAIN,
    OPT_MIN_HOST_APP_VERSION,
    OPT_MAX_HOST_APP_VERSION,
    OPT_MIN_MACOS_VERSION,
    OPT_MIN_NVIDIA_DRIVER_VERSION,
    OPT_MIN_RAM_GB,
    OPT_DEFAULT_ARGS,
    OPT_GENERATE_SCRIPT,
    OPT_GENERATED_SCRIPT_PATH,
    OPT_NO_TEMPLATES,
    /* progress */
    OPT_QUIET,
    OPT_PROGRESS_FD,
    OPT_COUNT /* also: the end of a command's option list */
} sc_cli_opt;

/* What a shell may complete an option's value or an operand with. */
typedef enum sc_cli_completion {
    SC_COMPLETE_NONE,
    SC_COMPLETE_FILE,
    SC_COMPLETE_DIRECTORY,
    SC_COMPLETE_CHOICE,
    SC_COMPLETE_COMMAND, /* a program (a signer command) */
    SC_COMPLETE_KEY      /* a signing key id */
} sc_cli_completion;

/* One option, as the catalogue describes it. */
typedef struct sc_cli_option {
    sc_cli_opt id;
    const char *name;       /* "--trust" */
    const char *short_name; /* "-t", or NULL */
    const char *argument;   /* the metavariable ("FILE"), or NULL for a flag */
    sc_cli_completion completion;
    const char *choices;    /* "a|b|c" when completion is CHOICE, else NULL */
    int repeatable;         /* may be given more than once */
    const char *aliases;    /* other spellings, space-separated, or NULL */
    const char *help;       /* one line */
} sc_cli_option;

/* One option a command takes; help NULL: the catalogue's line. */
typedef struct sc_cli_option_use {
    sc_cli_opt id;
    const char *help;
} sc_cli_option_use;

/* One operand of a command (in order). */
typedef struct sc_cli_operand {
    const char *name; /* "RELEASE"; NULL ends a list */
    int required;
    int repeatable;
    sc_cli_completion completion;
} sc_cli_operand;

/* Another spelling of an option for one command (upstream's --public-key for --trust). */
typedef struct sc_cli_alias {
    const char *spelling; /* NULL ends a list */
    sc_cli_opt id;
} sc_cli_alias;

struct sc_cli_args;

/* One command: a row of a group's table. */
typedef struct sc_cli_command {
    const char *words;       /* "audit cuda" */
    const char *group;       /* consumer, publisher, author, host, meta */
    const char *summary;     /* one line */
    const char *description; /* paragraphs, lines ending in \n */
    const sc_cli_operand *operands;   /* NULL-name terminated; NULL: none */
    const sc_cli_option_use *options; /* OPT_COUNT terminated; NULL: none */
    const char *rest;        /* "ARGS": the words after -- go to the command; NULL: none */
    int usage_status;        /* exit status of a usage error; 0: EXIT_USAGE */
    int (*run)(struct sc_cli_args *a);
    const sc_cli_alias *aliases; /* this command's own other spellings; NULL: none */
} sc_cli_command;

/* List builders for the tables. */
#define SC_CLI_OPERANDS(...) ((const sc_cli_operand[]){__VA_ARGS__, {NULL, 0, 0, SC_COMPLETE_NONE}})
#define SC_CLI_OPTIONS(...) ((const sc_cli_option_use[]){__VA_ARGS__, {OPT_COUNT, NULL}})
#define SC_CLI_ALIASES(...) ((const sc_cli_alias[]){__VA_ARGS__, {NULL, OPT_COUNT}})

#define SC_CLI_MAX_ENV 256
#define SC_CLI_MAX_MIRRORS 64
#define SC_CLI_MAX_POSITIONAL 8

typedef struct sc_cli_args {
    sc_workspace_options ws;
    const sc_cli_command *command; /* the command parsed */
    unsigned char seen[OPT_COUNT];  /* how often each option was given (capped) */
    int help;
    char help_words[128]; /* --help after words that start commands ("scroll") */
    const char *key_id, *out, *signer, *public_key, *trust, *expect, *install_id;
    /* every word that is not an option or a value, the command's words first */
    const char *positional[SC_CLI_MAX_POSITIONAL];
    int npositional;
    const char *value[OPT_COUNT];    /* the last value of each value option */
    const char *env[SC_CLI_MAX_ENV]; /* every --env, in order */
    int nenv;
    const char *mirrors[SC_CLI_MAX_MIRRORS]; /* every --channel-mirror, in order */
    int nmirrors;
    char **rest;                     /* with a command's rest: the arguments after -- */
    int nrest;
} sc_cli_args;

/* Whether option id was given. */
int sc_cli_has(const sc_cli_args *a, sc_cli_opt id);

/* The value given for a value option, or NULL. */
const char *sc_cli_value(const sc_cli_args *a, sc_cli_opt id);

/* The catalogue row of an option. */
const sc_cli_option *sc_cli_option_get(sc_cli_opt id);

/* Every command of every group, in help order; *n gets the count. */
const sc_cli_command *const *sc_cli_commands(size_t *n);

/*
 * Parse argv[first..argc) (a command line without the program name and
 * any options before it are included) against the command tables: find the
 * command (longest match of its words), check every option exists for it,
 * values fit their choices, operands are as many as it takes.  0 or the
 * command's usage exit status, the usage error already printed.
 */
int sc_cli_parse(int argc, char **argv, int first, sc_cli_args *a);

/* Print the help of every command whose words start with words (NULL: all). */
int sc_cli_print_help(const char *words);

/* Print `help --commands-json`: the whole table as one JSON document. */
int sc_cli_print_commands_json(const char *version);

/*
 * Print `help [WORDS] --json` (and `COMMAND --help --json`): the success
 * document {schemaVersion, ok, program, version, ...} holding, for words,
 * "commands" (the objects of help --commands-json of every command whose
 * words start with them; none is the usage error), else the overview
 * ("usage", "groups" [{name, title, commands [{name, synopsis, summary}]}],
 * "workspaceOptions").  docs/schema/cli/help.schema.json.
 */
int sc_cli_print_help_json(const char *words, const char *version);

/*
 * Print "scrollcase: error[usage]: <fmt with what>" and a hint line on
 * stderr; return the current command's usage exit status (EXIT_USAGE).
 */
int sc_cli_usage_error(const char *fmt, const char *what);

/*
 * The value of --jobs N: 0 when absent (every CPU, jobs.h), else a whole
 * number from 1 to SC_JOBS_MAX in *jobs and 0 returned; otherwise the usage
 * error is printed and its exit status returned.
 */
int sc_cli_jobs(const sc_cli_args *a, unsigned *jobs);

/*
 * Every --channel-mirror FROM=TO into out (room for SC_CLI_MAX_MIRRORS;
 * the strings stay the arguments'), *n of them: 0, or the usage error's
 * status (printed).
 */
int sc_cli_mirrors(const sc_cli_args *a, sc_channel_mirror *out, size_t *n);

/*
 * Structured output (--json).  Every document printed is one JSON object
 * {"schemaVersion": SC_CLI_SCHEMA_VERSION, "ok": true|false, ...}, exactly
 * one per run; a failure's carries "error": {"code", "message", "path"}.
 * Each command's documents are described by docs/schema/cli/<command>.json.
 */
#define SC_CLI_SCHEMA_VERSION 1

/* Whether --json was given (set by sc_cli_parse; sc_cli_set_json overrides). */
int sc_cli_json(void);
void sc_cli_set_json(int on);
/* While locked, sc_cli_set_json (and so --json in what is parsed) changes nothing. */
void sc_cli_lock_json(int locked);
/* Whether the one document has been printed; whether an error line was. */
int sc_cli_json_printed(void);
int sc_cli_error_shown(void);

/*
 * Print "scrollcase: error[<code>]: <message>" on stderr (and the hint for
 * usage) and, with --json, the failure document on stdout; the usage status
 * for usage, else 1.
 */
int sc_cli_report(const sc_error *err);

/* The same, the failure document carrying body's members (body taken; may be NULL). */
int sc_cli_fail_json(sc_json *body, const sc_error *err);

/*
 * Print the success document: "schemaVersion", "ok": true, then v's members
 * (v taken; an array or scalar goes under "result"; NULL means out of memory).
 */
int sc_cli_print_json(sc_json *v);

/* The same with "ok": ok, for an outcome that is not an error (compat's refusal). */
int sc_cli_print_json_status(sc_json *v, int ok);

#endif
