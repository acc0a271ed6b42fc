/* SPDX-License-Identifier: Apache-2.0 */
/*
 * args.c — the scrollcase command's one option parser and its output
 * helpers.  Every command is parsed by sc_cli_parse with the set of options
 * it accepts; workspace options are accepted by every command.
 */
#include "args.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>



typedef struct opt_def {
    const char *name;
    unsigned long long bit; /* 0: a workspace option */
    int takes_value;
} opt_def;

static const opt_def options[] = {
    {"--key-id", OPT_KEY_ID, 1},       {"--force", OPT_FORCE, 0},
    {"--json", OPT_JSON, 0},           {"--out", OPT_OUT, 1},
    {"--signer-command", OPT_SIGNER, 1}, {"--public-key", OPT_PUBLIC_KEY, 1},
    {"--trust", OPT_TRUST, 1},         {"--expect", OPT_EXPECT, 1},
    {"--install-id", OPT_INSTALL_ID, 1}, {"--dry-run", OPT_DRY_RUN, 0},
    {"--project-root", 0, 1},          {"--config", 0, 1},
    {"--scrolls-dir", 0, 1},           {"--build-dir", 0, 1},
    {"--out-dir", 0, 1},               {"--keys-dir", 0, 1},
    {"--toolchain-dir", 0, 1},
    {"--archive", OPT_ARCHIVE, 1},     {"--extracted", OPT_EXTRACTED, 1},
    {"--self-test", OPT_SELF_TEST, 0}, {"--revocations", OPT_REVOCATIONS, 1},
    {"--env", OPT_ENV, 1},             {"--env-report", OPT_ENV_REPORT, 0},
    {"--env-report-values", OPT_ENV_VALUES, 0},
    {"--temporary-directory", OPT_TMPDIR, 1},
    {"--timeout", OPT_TIMEOUT, 1},     {"--compression", OPT_COMPRESSION, 1},
    {"--prepared", OPT_PREPARED, 1},
    {"--absolute", OPT_ABSOLUTE, 1},   {"--relative", OPT_RELATIVE, 1},
    {"--minimum-cosine", OPT_MIN_COSINE, 1},
    {"--host-app-version", OPT_HOST_APP_VERSION, 1},
    {"--host-facts", OPT_HOST_FACTS, 1},
    {"--audit", OPT_AUDIT, 0},
    {"--environment-prefix", OPT_ENV_PREFIX, 1}, {"--allow-dirty", OPT_ALLOW_DIRTY, 0},
    {"--channel", OPT_CHANNEL, 1},     {"--weights", OPT_WEIGHTS, 1},
    {"--asset-base-url", OPT_ASSET_BASE_URL, 1}, {"--namespace", OPT_NAMESPACE, 1},
    {"--pixi", OPT_PIXI, 1},           {"--conda-pack", OPT_CONDA_PACK, 1},
    {"--target", OPT_TARGET, 1},       {"--no-cuda-audit", OPT_NO_CUDA_AUDIT, 0},
    {"--field", OPT_FIELD, 1},         {"--value", OPT_VALUE, 1},
    {"--to", OPT_TO, 1},               {"--version", OPT_VERSION_ARG, 1},
    {"--write", OPT_WRITE, 0},         {"--check-assets", OPT_CHECK_ASSETS, 0},
    {"--repin", OPT_REPIN, 0},         {"--from-requirements", OPT_FROM_REQUIREMENTS, 1},
    {"--scroll", OPT_SCROLL, 1},       {"--pixi-version", OPT_PIXI_VERSION, 1},
    {"--box-id", OPT_BOX_ID, 1},       {"--execution", OPT_EXECUTION, 1},
    {"--script", OPT_SCRIPT, 1},       {"--module", OPT_MODULE, 1},
    {"--python-version", OPT_PYTHON_VERSION, 1},
    {"--source-revision", OPT_SOURCE_REVISION, 1},
    {"--model-id", OPT_MODEL_ID, 1},   {"--example", OPT_EXAMPLE, 0},
};
#define NOPTIONS (sizeof options / sizeof options[0])

static const char *const ws_flags[SC_WS_PATH_COUNT] = {
    "--scrolls-dir", "--build-dir", "--out-dir", "--keys-dir", "--toolchain-dir"};

int sc_cli_usage_error(const char *fmt, const char *what)
{
    fprintf(stderr, "scrollcase: error[usage]: ");
    fprintf(stderr, fmt, what);
    fprintf(stderr, " (see scrollcase --help)\n");
    return EXIT_USAGE;
}

static const opt_def *find_option(const char *arg, size_t n)
{
    for (size_t i = 0; i < NOPTIONS; i++)
        if (strlen(options[i].name) == n && strncmp(options[i].name, arg, n) == 0)
            return &options[i];
    return NULL;
}

/* Index of the command word in argv, or 0 if there is none. */
int sc_cli_command_index(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--") == 0)
            return i + 1 < argc ? i + 1 : 0;
        if (a[0] != '-' || strcmp(a, "-") == 0)
            return i;
        if (strchr(a, '=') != NULL)
            continue;
        const opt_def *o = find_option(a, strlen(a));
        if (o != NULL && o->takes_value)
            i++;
    }
    return 0;
}

/* Parse argv (all of it but argv[0] and the command word at skip). */
int sc_cli_parse(int argc, char **argv, int skip, unsigned long long allowed,
                 sc_cli_args *a)
{
    int options_done = 0;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (i == skip)
            continue;
        if (options_done || arg[0] != '-' || strcmp(arg, "-") == 0) {
            if (a->npositional == (int)(sizeof a->positional / sizeof a->positional[0]))
                return sc_cli_usage_error("too many arguments at \"%s\"", arg);
            a->positional[a->npositional++] = arg;
            continue;
        }
        if (strcmp(arg, "--") == 0) {
            if (allowed & OPT_REST) {
                /* everything after -- belongs to the command's child */
                a->rest = argv + i + 1;
                a->nrest = argc - i - 1;
                if (skip > i) /* the command word cannot follow -- here */
                    return sc_cli_usage_error("%s", "the command must come before --");
                break;
            }
            options_done = 1;
            continue;
        }
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            a->help = 1;
            continue;
        }
        const char *eq = strchr(arg, '=');
        size_t n = eq ? (size_t)(eq - arg) : strlen(arg);
        const opt_def *o = find_option(arg, n);
        if (o == NULL || (o->bit != 0 && !(o->bit & allowed))) {
            char name[64];
            snprintf(name, sizeof name, "%.*s", (int)(n < 63 ? n : 63), arg);
            return sc_cli_usage_error("unknown option %s", name);
        }
        const char *value = eq ? eq + 1 : NULL;
        if (!o->takes_value) {
            if (value != NULL)
                return sc_cli_usage_error("%s takes no value", o->name);
            a->given |= o->bit;
            continue;
        }
        if (value == NULL) {
            if (i + 1 >= argc || i + 1 == skip)
                return sc_cli_usage_error("%s requires a value", o->name);
            value = argv[++i];
        }
        if (value[0] == '\0')
            return sc_cli_usage_error("%s requires a non-empty value", o->name);
        a->given |= o->bit;
        if (o->bit == OPT_ENV) {
            if (a->nenv == SC_CLI_MAX_ENV)
                return sc_cli_usage_error("more than %s --env options", "256");
            a->env[a->nenv++] = value;
            continue;
        }
        if (o->bit != 0)
            a->value[sc_cli_bit_index(o->bit)] = value;
        switch (o->bit) {
        case OPT_KEY_ID: a->key_id = value; break;
        case OPT_OUT: a->out = value; break;
        case OPT_SIGNER: a->signer = value; break;
        case OPT_PUBLIC_KEY: a->public_key = value; break;
        case OPT_TRUST: a->trust = value; break;
        case OPT_EXPECT: a->expect = value; break;
        case OPT_INSTALL_ID: a->install_id = value; break;
        default:
            if (strcmp(o->name, "--project-root") == 0)
                a->ws.project_root = value;
            else if (strcmp(o->name, "--config") == 0)
                a->ws.config = value;
            for (int k = 0; k < SC_WS_PATH_COUNT; k++)
                if (strcmp(o->name, ws_flags[k]) == 0)
                    a->ws.paths[k] = value;
        }
    }
    return 0;
}


int sc_cli_bit_index(unsigned long long bit)
{
    int i = 0;
    while (i < 63 && bit > 1u) {
        bit >>= 1;
        i++;
    }
    return i;
}

const char *sc_cli_value(const sc_cli_args *a, unsigned long long bit)
{
    return a->value[sc_cli_bit_index(bit)];
}

int sc_cli_report(const sc_error *err)
{
    fprintf(stderr, "scrollcase: error[%s]: %s\n", sc_code_name(err->code), err->message);
    return err->code == SC_E_USAGE ? EXIT_USAGE : EXIT_REJECTED;
}

int sc_cli_print_json(sc_json *v)
{
    sc_error err;
    if (v == NULL) {
        sc_error_set(&err, SC_E_OUT_OF_MEMORY, NULL, "out of memory");
        return sc_cli_report(&err);
    }
    char *text = NULL;
    size_t len = 0;
    int rc = 0;
    if (sc_json_write(v, &text, &len, &err) != SC_OK)
        rc = sc_cli_report(&err);
    else {
        fwrite(text, 1, len, stdout);
        rc = fflush(stdout) == 0 ? 0 : EXIT_REJECTED;
    }
    free(text);
    sc_json_free(v);
    return rc;
}

