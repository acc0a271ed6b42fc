/* SPDX-License-Identifier: Apache-2.0 */
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
 * The options a command may accept (workspace options: always), as bits of
 * a 64-bit set.  Add an option by defining the next free bit here and a row
 * in the table of args.c; a value option's value is sc_cli_value(a, bit).
 */
#define OPT_KEY_ID (1ULL << 0)
#define OPT_FORCE (1ULL << 1)
#define OPT_JSON (1ULL << 2)
#define OPT_OUT (1ULL << 3)
#define OPT_SIGNER (1ULL << 4)
#define OPT_PUBLIC_KEY (1ULL << 5)
#define OPT_TRUST (1ULL << 6)
#define OPT_EXPECT (1ULL << 7)
#define OPT_INSTALL_ID (1ULL << 8)
#define OPT_DRY_RUN (1ULL << 9)
/* boxes on disk (format-v3 14-16) */
#define OPT_ARCHIVE (1ULL << 10)         /* --archive FILE */
#define OPT_EXTRACTED (1ULL << 11)       /* --extracted DIR */
#define OPT_SELF_TEST (1ULL << 12)       /* --self-test */
#define OPT_REVOCATIONS (1ULL << 13)     /* --revocations FILE */
#define OPT_ENV (1ULL << 14)             /* --env NAME=VALUE, repeatable */
#define OPT_ENV_REPORT (1ULL << 15)      /* --env-report */
#define OPT_ENV_VALUES (1ULL << 16)      /* --env-report-values */
#define OPT_TMPDIR (1ULL << 17)          /* --temporary-directory DIR */
#define OPT_TIMEOUT (1ULL << 18)         /* --timeout SECONDS */
#define OPT_COMPRESSION (1ULL << 19)     /* --compression deflate|store */
#define OPT_PREPARED (1ULL << 20)        /* --prepared DIR */
#define OPT_REST (1ULL << 21)            /* not an option: arguments after -- go to rest */
/* parity and hosts (17-18) */
#define OPT_ABSOLUTE (1ULL << 22)        /* --absolute X */
#define OPT_RELATIVE (1ULL << 23)        /* --relative X */
#define OPT_MIN_COSINE (1ULL << 24)      /* --minimum-cosine X */
#define OPT_HOST_APP_VERSION (1ULL << 25) /* --host-app-version V */
#define OPT_HOST_FACTS (1ULL << 26)      /* --host-facts FILE */
/* CUDA ABI audit (19) */
#define OPT_AUDIT (1ULL << 27)           /* --audit */
/* building and authoring (issue 5) */
#define OPT_ENV_PREFIX (1ULL << 28)        /* --environment-prefix DIR */
#define OPT_ALLOW_DIRTY (1ULL << 29)       /* --allow-dirty */
#define OPT_CHANNEL (1ULL << 30)           /* --channel nightly|beta|stable */
#define OPT_WEIGHTS (1ULL << 31)           /* --weights embed|on-demand */
#define OPT_ASSET_BASE_URL (1ULL << 32)    /* --asset-base-url URL */
#define OPT_NAMESPACE (1ULL << 33)         /* --namespace NS */
#define OPT_PIXI (1ULL << 34)              /* --pixi PATH */
#define OPT_CONDA_PACK (1ULL << 35)        /* --conda-pack PATH */
#define OPT_TARGET (1ULL << 36)            /* --target ID|all */
#define OPT_NO_CUDA_AUDIT (1ULL << 37)     /* --no-cuda-audit */
#define OPT_FIELD (1ULL << 38)             /* --field NAME */
#define OPT_VALUE (1ULL << 39)             /* --value TEXT */
#define OPT_TO (1ULL << 40)                /* --to PATH */
#define OPT_VERSION_ARG (1ULL << 41)       /* --version V (after a command word) */
#define OPT_WRITE (1ULL << 42)             /* --write */
#define OPT_CHECK_ASSETS (1ULL << 43)      /* --check-assets */
#define OPT_REPIN (1ULL << 44)             /* --repin */
#define OPT_FROM_REQUIREMENTS (1ULL << 45) /* --from-requirements FILE */
#define OPT_SCROLL (1ULL << 46)            /* --scroll REF */
#define OPT_PIXI_VERSION (1ULL << 47)      /* --pixi-version V */
#define OPT_BOX_ID (1ULL << 48)            /* --box-id ID */
#define OPT_EXECUTION (1ULL << 49)         /* --execution KIND */
#define OPT_SCRIPT (1ULL << 50)            /* --script PATH */
#define OPT_MODULE (1ULL << 51)            /* --module NAME */
#define OPT_PYTHON_VERSION (1ULL << 52)    /* --python-version V */
#define OPT_SOURCE_REVISION (1ULL << 53)   /* --source-revision REV */
#define OPT_MODEL_ID (1ULL << 54)          /* --model-id ID */
#define OPT_EXAMPLE (1ULL << 55)           /* --example / (init) */
/* bits 56-63 are free */

#define SC_CLI_MAX_ENV 256

typedef struct sc_cli_args {
    sc_workspace_options ws;
    unsigned long long given; /* the OPT_ bits seen */
    int help;
    const char *key_id, *out, *signer, *public_key, *trust, *expect, *install_id;
    const char *positional[4];
    int npositional;
    const char *value[64];          /* by bit index, for value options */
    const char *env[SC_CLI_MAX_ENV]; /* every --env, in order */
    int nenv;
    char **rest;                    /* with OPT_REST: the arguments after -- */
    int nrest;
} sc_cli_args;

/* The bit's index (OPT_ARCHIVE -> 10). */
int sc_cli_bit_index(unsigned long long bit);

/* The value given for a value option, or NULL. */
const char *sc_cli_value(const sc_cli_args *a, unsigned long long bit);

/* Index of the command word in argv (skipping options and their values), or 0. */
int sc_cli_command_index(int argc, char **argv);

/* Parse all of argv but argv[0] and the command word at skip. 0 or EXIT_USAGE. */
int sc_cli_parse(int argc, char **argv, int skip, unsigned long long allowed,
                 sc_cli_args *a);

/* Print "scrollcase: error[usage]: <fmt with what>" and return EXIT_USAGE. */
int sc_cli_usage_error(const char *fmt, const char *what);

/* Print "scrollcase: error[<code>]: <message>"; EXIT_USAGE for usage, else 1. */
int sc_cli_report(const sc_error *err);

/* Write v (taken and freed; NULL means out of memory) to stdout. */
int sc_cli_print_json(sc_json *v);

#endif
