/* SPDX-License-Identifier: Apache-2.0 */
/*
 * args.c — the scrollcase command's option catalogue, its one parser, the
 * help and `help --commands-json` printers, and the output helpers.
 *
 * Every option is described once here; every command (the tables of the
 * cmd_*.c files, gathered by sc_cli_commands) lists the options it takes.
 * Workspace options and --help are taken by every command.
 */
#include "args.h"

#include "commands.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scrollcase/jobs.h"
#include "scrollcase/path.h"

/* ---- the catalogue -------------------------------------------------------------- */

#define F SC_COMPLETE_FILE
#define D SC_COMPLETE_DIRECTORY
#define N SC_COMPLETE_NONE
#define C SC_COMPLETE_CHOICE

static const sc_cli_option catalogue[OPT_COUNT] = {
    {OPT_HELP, "--help", "-h", NULL, N, NULL, 0, NULL, "print this command's help and exit"},
    {OPT_PROJECT_ROOT, "--project-root", NULL, "DIR", D, NULL, 0, NULL,
     "the workspace's root (default: the current directory)"},
    {OPT_CONFIG, "--config", NULL, "FILE", F, NULL, 0, NULL,
     "the workspace configuration (default: <root>/scrollcase.config.json)"},
    {OPT_SCROLLS_DIR, "--scrolls-dir", NULL, "DIR", D, NULL, 0, NULL, "the scrolls directory"},
    {OPT_BUILD_DIR, "--build-dir", NULL, "DIR", D, NULL, 0, NULL, "the build scratch directory"},
    {OPT_OUT_DIR, "--out-dir", NULL, "DIR", D, NULL, 0, NULL, "the dist (publication) directory"},
    {OPT_KEYS_DIR, "--keys-dir", NULL, "DIR", D, NULL, 0, NULL, "the signing keys directory"},
    {OPT_TOOLCHAIN_DIR, "--toolchain-dir", NULL, "DIR", D, NULL, 0, NULL,
     "where pixi and conda-pack are looked for"},
    {OPT_KEY_ID, "--key-id", NULL, "ID", SC_COMPLETE_KEY, NULL, 0, NULL, "the signing key id"},
    {OPT_FORCE, "--force", NULL, NULL, N, NULL, 0, NULL, "replace what exists"},
    {OPT_JSON, "--json", NULL, NULL, N, NULL, 0, NULL, "print one JSON document on stdout"},
    {OPT_OUT, "--out", NULL, "FILE", F, NULL, 0, NULL, "the file to write"},
    {OPT_SIGNER, "--signer-command", NULL, "CMD", SC_COMPLETE_COMMAND, NULL, 0, NULL,
     "an external signer (split into words, no shell)"},
    {OPT_PUBLIC_KEY, "--public-key", NULL, "FILE", F, NULL, 0, NULL,
     "the public key file signatures are checked against: the local pair's public half, or "
     "the external signer's trust file (default: <keys>/signing-public.json)"},
    {OPT_PRIVATE_KEY, "--private-key", NULL, "FILE", F, NULL, 0, NULL,
     "the private key file to sign with (default: <keys>/signing-private.pem)"},
    {OPT_TRUST, "--trust", NULL, "TRUSTFILE", F, NULL, 0, NULL,
     "the trust file (public keys) documents must verify against"},
    {OPT_EXPECT, "--expect", NULL, "TYPE", C, "release|channel|revocations", 0, NULL,
     "the document type required"},
    {OPT_INSTALL_ID, "--install-id", NULL, "ID", N, NULL, 0, NULL, "this install's cohort id"},
    {OPT_DRY_RUN, "--dry-run", NULL, NULL, N, NULL, 0, NULL, "check without writing"},
    {OPT_ARCHIVE, "--archive", NULL, "FILE", F, NULL, 0, NULL,
     "the box archive (default: from the release's archive.url, beside it)"},
    {OPT_EXTRACTED, "--extracted", NULL, "DIR", D, NULL, 0, NULL,
     "check an extracted tree instead of an archive"},
    {OPT_SELF_TEST, "--self-test", NULL, NULL, N, NULL, 0, NULL,
     "extract privately and run the release's self-test"},
    {OPT_REVOCATIONS, "--revocations", NULL, "FILE", F, NULL, 0, NULL,
     "a signed revocations document to honour"},
    {OPT_ENV, "--env", NULL, "NAME=VALUE", N, NULL, 1, NULL,
     "set a variable for the box (repeatable)"},
    {OPT_ENV_REPORT, "--env-report", NULL, NULL, N, NULL, 0, NULL,
     "print the full environment report"},
    {OPT_ENV_VALUES, "--env-report-values", NULL, NULL, N, NULL, 0, NULL,
     "print the environment report with host values"},
    {OPT_TMPDIR, "--temporary-directory", NULL, "DIR", D, NULL, 0, NULL,
     "where private extractions go (default: $TMPDIR)"},
    {OPT_TIMEOUT, "--timeout", NULL, "SECONDS", N, NULL, 0, NULL, "a time limit"},
    {OPT_COMPRESSION, "--compression", NULL, "METHOD", C, "deflate|store", 0, NULL,
     "how archive entries are written"},
    {OPT_JOBS, "--jobs", NULL, "N", N, NULL, 0, NULL,
     "hashing and compression threads (default: every CPU this process may use)"},
    {OPT_OFFLINE, "--offline", NULL, NULL, N, NULL, 0, NULL,
     "fetch nothing: use only the asset cache (asset-not-cached otherwise)"},
    {OPT_PREPARED, "--prepared", NULL, "DIR", D, NULL, 0, NULL, "run the box prepared in DIR"},
    {OPT_ABSOLUTE, "--absolute", NULL, "X", N, NULL, 0, NULL, "bound on the maximum absolute error"},
    {OPT_RELATIVE, "--relative", NULL, "X", N, NULL, 0, NULL, "bound on the maximum relative error"},
    {OPT_MIN_COSINE, "--minimum-cosine", NULL, "X", N, NULL, 0, NULL,
     "lower bound on the cosine similarity"},
    {OPT_HOST_APP_VERSION, "--host-app-version", NULL, "V", N, NULL, 0, NULL,
     "the version of the application that will run the box"},
    {OPT_HOST_FACTS, "--host-facts", NULL, "FILE", F, NULL, 0, NULL,
     "read the host's facts from FILE instead of gathering them"},
    {OPT_AUDIT, "--audit", NULL, NULL, N, NULL, 0, NULL,
     "run the CUDA ABI audit over the payload's conda-meta records"},
    {OPT_ENV_PREFIX, "--environment-prefix", NULL, "DIR", D, NULL, 0, NULL,
     "a relocatable prefix to copy in as the environment"},
    {OPT_ALLOW_DIRTY, "--allow-dirty", NULL, NULL, N, NULL, 0, NULL,
     "build from a source tree with uncommitted changes"},
    {OPT_CHANNEL, "--channel", NULL, "CHANNEL", C, "nightly|beta|stable", 0, NULL,
     "the release channel to publish to"},
    {OPT_WEIGHTS, "--weights", NULL, "MODE", C, "embed|on-demand", 0, NULL,
     "embed the assets or fetch them on demand"},
    {OPT_ASSET_BASE_URL, "--asset-base-url", NULL, "URL", N, NULL, 0, NULL,
     "where on-demand assets are served from"},
    {OPT_NAMESPACE, "--namespace", NULL, "NS", N, NULL, 0, NULL, "the documents' namespace"},
    {OPT_PIXI, "--pixi", NULL, "PATH", F, NULL, 0, NULL, "the pixi program to use"},
    {OPT_CONDA_PACK, "--conda-pack", NULL, "PATH", F, NULL, 0, NULL,
     "the conda-pack program to use"},
    {OPT_TARGET, "--target", NULL, "ID", N, NULL, 0, NULL, "the target id"},
    {OPT_NO_CUDA_AUDIT, "--no-cuda-audit", NULL, NULL, N, NULL, 0, NULL,
     "skip the CUDA ABI audit (the release records it)"},
    {OPT_FIELD, "--field", NULL, "FIELD", C,
     "scrollId|scrollVersion|modelId|runtimeId|version|sourceRevision|pythonVersion|"
     "pixiVersion|condaDependencyLicenseAudit|modelCacheSubdir|assetBaseUrl|weights",
     0, NULL, "the scroll field to set"},
    {OPT_VALUE, "--value", NULL, "VALUE", N, NULL, 0, NULL, "the field's new value (trimmed)"},
    {OPT_TO, "--to", NULL, "REL", N, NULL, 0, NULL, "the path inside the box"},
    {OPT_VERSION_ARG, "--version", NULL, "V", N, NULL, 0, NULL, "the version"},
    {OPT_WRITE, "--write", NULL, NULL, N, NULL, 0, NULL, "write instead of comparing"},
    {OPT_CHECK_ASSETS, "--check-assets", NULL, NULL, N, NULL, 0, NULL,
     "download every asset again and compare"},
    {OPT_MAX_SIZE, "--max-size", NULL, "BYTES", N, NULL, 0, NULL,
     "the most bytes a download without a pin may bring (default 64 GiB)"},
    {OPT_REPIN, "--repin", NULL, NULL, N, NULL, 0, NULL, "rewrite the pins that drifted"},
    {OPT_FROM_REQUIREMENTS, "--from-requirements", NULL, "FILE", F, NULL, 0, NULL,
     "take the dependencies of a requirements.txt"},
    {OPT_SCROLL, "--scroll", NULL, "REF", N, NULL, 0, NULL, "the scroll <boxId>/<targetId>"},
    {OPT_PIXI_VERSION, "--pixi-version", NULL, "V", N, NULL, 0, NULL, "the pixi version pinned"},
    {OPT_BOX_ID, "--box-id", NULL, "ID", N, NULL, 0, NULL, "the box id"},
    {OPT_EXECUTION, "--execution", NULL, "KIND", C, "script|module|none", 0, NULL,
     "how the box runs"},
    {OPT_SCRIPT, "--script", NULL, "PATH", F, NULL, 0, NULL, "the script the box runs"},
    {OPT_MODULE, "--module", NULL, "NAME", N, NULL, 0, NULL, "the module the box runs"},
    {OPT_PYTHON_VERSION, "--python-version", NULL, "X.Y", N, NULL, 0, NULL, "the Python version"},
    {OPT_SOURCE_REVISION, "--source-revision", NULL, "REV", N, NULL, 0, NULL,
     "the source revision the scroll records"},
    {OPT_MODEL_ID, "--model-id", NULL, "ID", N, NULL, 0, NULL, "the model id (default: the box id)"},
    {OPT_EXAMPLE, "--example", NULL, NULL, N, NULL, 0, NULL, "also write a starter scroll"},
    {OPT_ENV_FROM, "--environment-from", NULL, "ROAD", C, "lock|pixi", 0, NULL,
     "how the lock becomes the environment: lock (native installer, the default) or pixi "
     "(pixi install + conda-pack)"},
    {OPT_CHANNEL_MIRROR, "--channel-mirror", NULL, "FROM=TO", N, NULL, 1, NULL,
     "fetch packages whose URL starts with FROM from TO instead (the lock's sha256 still "
     "decides)"},
    {OPT_CHANNEL_DIR, "--channel-dir", NULL, "DIR", D, NULL, 0, NULL,
     "a local channel directory (<subdir>/<file>) to take packages from before any URL"},
    {OPT_INTO, "--into", NULL, "DIR", D, NULL, 0, NULL,
     "the directory to create the environment in (must not exist)"},
    {OPT_COMMANDS_JSON, "--commands-json", NULL, NULL, N, NULL, 0, NULL,
     "print every command's options as one JSON document"},
    {OPT_PARSE_ONLY, "--parse-only", NULL, NULL, N, NULL, 0, NULL,
     "check that the words after -- parse as a command line; run nothing"},
    {OPT_RUNTIME_ID, "--runtime-id", NULL, "ID", N, NULL, 0, NULL,
     "the runtime id (default: <box-id>-runtime)"},
    {OPT_SCROLL_VERSION, "--scroll-version", NULL, "V", N, NULL, 0, NULL,
     "the scroll's own version (scrollVersion)"},
    {OPT_NO_EXAMPLE, "--no-example", NULL, NULL, N, NULL, 0, NULL,
     "no starter scroll (the default; upstream's spelling)"},
    {OPT_NO_INSTALL_TOOLCHAIN, "--no-install-toolchain", NULL, NULL, N, NULL, 0, NULL,
     "install no toolchain (what init always does; upstream's spelling)"},
    {OPT_MIN_HOST_APP_VERSION, "--min-host-app-version", NULL, "V", N, NULL, 0, NULL,
     "compatibility.minHostAppVersion: the oldest host application that may run the box"},
    {OPT_MAX_HOST_APP_VERSION, "--max-host-app-version-exclusive", NULL, "V", N, NULL, 0, NULL,
     "compatibility.maxHostAppVersionExclusive: the first host application version that may not"},
    {OPT_MIN_MACOS_VERSION, "--min-macos-version", NULL, "V", N, NULL, 0, NULL,
     "compatibility.minMacosVersion (a macOS target only)"},
    {OPT_MIN_NVIDIA_DRIVER_VERSION, "--min-nvidia-driver-version", NULL, "V", N, NULL, 0, NULL,
     "compatibility.minNvidiaDriverVersion (a CUDA target only)"},
    {OPT_MIN_RAM_GB, "--min-ram-gb", NULL, "GB", N, NULL, 0, NULL,
     "compatibility.minRamGb: the memory the host needs, a number > 0"},
    {OPT_DEFAULT_ARGS, "--default-args", NULL, "JSON", N, NULL, 0, NULL,
     "execution.defaultArgs: a JSON array of strings (default [])"},
    {OPT_GENERATE_SCRIPT, "--generate-script", NULL, NULL, N, NULL, 0, NULL,
     "write a starter script and declare it (localFiles, selfTest.files, execution.script)"},
    {OPT_GENERATED_SCRIPT_PATH, "--generated-script-path", NULL, "PATH", F, NULL, 0, NULL,
     "the starter's project path (default: box-entrypoints/<boxId>/<targetId>/entrypoint.py)"},
    {OPT_NO_TEMPLATES, "--no-templates", NULL, NULL, N, NULL, 0, NULL,
     "write no consumer templates (what init always does; upstream's spelling)"},
    {OPT_QUIET, "--quiet", "-q", NULL, N, NULL, 0, NULL, "show no progress"},
    {OPT_PROGRESS_FD, "--progress-fd", NULL, "FD", N, NULL, 0, NULL,
     "write progress as JSON lines to file descriptor FD"},
};

#undef F
#undef D
#undef N
#undef C

static const sc_cli_opt workspace_options[] = {OPT_PROJECT_ROOT, OPT_SCROLLS_DIR, OPT_BUILD_DIR,
                                               OPT_OUT_DIR,      OPT_KEYS_DIR,    OPT_TOOLCHAIN_DIR,
                                               OPT_CONFIG};
#define NWORKSPACE (sizeof workspace_options / sizeof workspace_options[0])

const sc_cli_option *sc_cli_option_get(sc_cli_opt id)
{
    return id < OPT_COUNT ? &catalogue[id] : NULL;
}

int sc_cli_has(const sc_cli_args *a, sc_cli_opt id)
{
    return id < OPT_COUNT && a->seen[id] != 0;
}

const char *sc_cli_value(const sc_cli_args *a, sc_cli_opt id)
{
    return id < OPT_COUNT ? a->value[id] : NULL;
}

/* ---- the commands ------------------------------------------------------------------ */

const sc_cli_command *const *sc_cli_commands(size_t *n)
{
    static const sc_cli_command *all[128];
    static size_t count = 0;
    if (count == 0) {
        const sc_cli_command *const groups[] = {
            sc_cli_main_commands,   sc_cli_author_commands, sc_cli_env_commands,
            sc_cli_audit_commands,  sc_cli_build_commands,  sc_cli_documents_commands,
            sc_cli_box_commands,    sc_cli_parity_commands, sc_cli_inspect_commands,
            sc_cli_cache_commands, sc_cli_install_commands};
        for (size_t g = 0; g < sizeof groups / sizeof groups[0]; g++)
            for (const sc_cli_command *c = groups[g]; c->words != NULL; c++)
                if (count < sizeof all / sizeof all[0])
                    all[count++] = c;
    }
    *n = count;
    return all;
}

/* The number of words of "a b c". */
static size_t word_count(const char *words)
{
    size_t n = 0;
    for (const char *p = words; *p;) {
        while (*p == ' ')
            p++;
        if (*p == '\0')
            break;
        n++;
        while (*p && *p != ' ')
            p++;
    }
    return n;
}

/* Word i of "a b c" (start and length). */
static const char *word_at(const char *words, size_t i, size_t *len)
{
    const char *p = words;
    for (;;) {
        while (*p == ' ')
            p++;
        const char *start = p;
        while (*p && *p != ' ')
            p++;
        if (i == 0 || *start == '\0') {
            *len = (size_t)(p - start);
            return start;
        }
        i--;
    }
}

static int word_is(const char *words, size_t i, const char *w)
{
    size_t len;
    const char *s = word_at(words, i, &len);
    return len > 0 && strlen(w) == len && strncmp(s, w, len) == 0;
}

/* ---- usage errors ---------------------------------------------------------------- */

/* The command being parsed, for the hint of a usage error (the CLI is one thread). */
static const sc_cli_command *current;
static char hint_words[128]; /* the words of an incomplete command ("add") */

static void print_hint(void)
{
    if (hint_words[0] != '\0')
        fprintf(stderr, "scrollcase: hint: see `scrollcase help %s` for its commands\n",
                hint_words);
    else if (current != NULL)
        fprintf(stderr, "scrollcase: hint: see `scrollcase help %s` for its usage\n",
                current->words);
    else
        fprintf(stderr, "scrollcase: hint: see `scrollcase help` for the commands\n");
}

static int usage_status(void)
{
    return current != NULL && current->usage_status != 0 ? current->usage_status : EXIT_USAGE;
}

static void json_failure(const sc_error *err, sc_json *body);
static int error_shown;

int sc_cli_usage_error(const char *fmt, const char *what)
{
    sc_error err;
    sc_error_set(&err, SC_E_USAGE, NULL, fmt, what);
    fprintf(stderr, "scrollcase: error[usage]: %s\n", err.message);
    error_shown = 1;
    print_hint();
    json_failure(&err, NULL);
    return usage_status();
}

int sc_cli_mirrors(const sc_cli_args *a, sc_channel_mirror *out, size_t *n)
{
    *n = 0;
    for (int i = 0; i < a->nmirrors; i++) {
        sc_error err;
        if (sc_channel_mirror_parse(a->mirrors[i], &out[i], &err) != SC_OK)
            return sc_cli_usage_error("%s", err.message);
        *n = (size_t)i + 1;
    }
    return 0;
}

int sc_cli_jobs(const sc_cli_args *a, unsigned *jobs)
{
    *jobs = 0;
    const char *text = sc_cli_value(a, OPT_JOBS);
    if (text == NULL)
        return 0;
    char *end = NULL;
    unsigned long n = strtoul(text, &end, 10);
    if (text[0] < '1' || text[0] > '9' || *end != '\0' || n > SC_JOBS_MAX)
        return sc_cli_usage_error("--jobs takes a whole number from 1 to 256, not %s", text);
    *jobs = (unsigned)n;
    return 0;
}

/* ---- the parser ------------------------------------------------------------------ */

/* The option arg (n bytes: "--name", "-x" or an alias) names, or NULL. */
static const sc_cli_option *find_option(const char *arg, size_t n)
{
    for (size_t i = 0; i < OPT_COUNT; i++) {
        const sc_cli_option *o = &catalogue[i];
        if (strlen(o->name) == n && strncmp(o->name, arg, n) == 0)
            return o;
        if (o->short_name != NULL && strlen(o->short_name) == n &&
            strncmp(o->short_name, arg, n) == 0)
            return o;
        for (const char *p = o->aliases; p != NULL && *p;) {
            while (*p == ' ')
                p++;
            const char *s = p;
            while (*p && *p != ' ')
                p++;
            if ((size_t)(p - s) == n && n > 0 && strncmp(s, arg, n) == 0)
                return o;
        }
    }
    return NULL;
}

/* The option arg names for command c: its own aliases first, then the catalogue. */
static const sc_cli_option *find_command_option(const sc_cli_command *c, const char *arg,
                                                size_t n)
{
    for (const sc_cli_alias *al = c->aliases; al != NULL && al->spelling != NULL; al++)
        if (strlen(al->spelling) == n && strncmp(al->spelling, arg, n) == 0)
            return &catalogue[al->id];
    return find_option(arg, n);
}

/*
 * Upstream's spellings of choice values (the value is rewritten to v3's
 * before it is checked): {option, upstream, v3}.
 */
static const struct {
    sc_cli_opt id;
    const char *spelling, *value;
} value_aliases[] = {
    {OPT_EXECUTION, "python-script", "script"},
    {OPT_EXECUTION, "python-module", "module"},
    {OPT_EXECUTION, "library-only", "none"},
};

static const char *canonical_value(sc_cli_opt id, const char *value)
{
    for (size_t i = 0; i < sizeof value_aliases / sizeof value_aliases[0]; i++)
        if (value_aliases[i].id == id && strcmp(value_aliases[i].spelling, value) == 0)
            return value_aliases[i].value;
    return value;
}

static int command_takes(const sc_cli_command *c, sc_cli_opt id)
{
    if (id == OPT_HELP)
        return 1;
    for (size_t i = 0; i < NWORKSPACE; i++)
        if (workspace_options[i] == id)
            return 1;
    for (const sc_cli_option_use *u = c->options; u != NULL && u->id != OPT_COUNT; u++)
        if (u->id == id)
            return 1;
    return 0;
}

/* Whether value is one of "a|b|c". */
static int is_choice(const char *choices, const char *value)
{
    size_t n = strlen(value);
    for (const char *p = choices; *p;) {
        const char *s = p;
        while (*p && *p != '|')
            p++;
        if ((size_t)(p - s) == n && strncmp(s, value, n) == 0)
            return 1;
        if (*p == '|')
            p++;
    }
    return 0;
}

/* "a, b or c" from "a|b|c" into buf. */
static void choices_text(const char *choices, char *buf, size_t size)
{
    size_t n = 0, bars = 0;
    for (const char *p = choices; *p; p++)
        bars += *p == '|';
    buf[0] = '\0';
    for (const char *p = choices; *p && n + 8 < size; p++) {
        if (*p == '|') {
            bars--;
            const char *sep = bars == 0 ? " or " : ", ";
            size_t k = strlen(sep);
            memcpy(buf + n, sep, k);
            n += k;
        } else {
            buf[n++] = *p;
        }
        buf[n] = '\0';
    }
}

/*
 * The command the leading positional words of argv name.  Returns it, or
 * NULL with the usage error printed (*status set).
 */
static const sc_cli_command *find_command(int argc, char **argv, int first, int *status)
{
    const char *words[SC_CLI_MAX_POSITIONAL];
    size_t nwords = 0;
    for (int i = first; i < argc && nwords < SC_CLI_MAX_POSITIONAL; i++) {
        const char *arg = argv[i];
        if (strcmp(arg, "--") == 0)
            break;
        if (arg[0] != '-' || strcmp(arg, "-") == 0) {
            words[nwords++] = arg;
            continue;
        }
        if (strchr(arg, '=') != NULL)
            continue;
        const sc_cli_option *o = find_option(arg, strlen(arg));
        if (o != NULL && o->argument != NULL && o->id != OPT_VERSION_ARG)
            i++;
        else if (o != NULL && o->id == OPT_VERSION_ARG && nwords > 0)
            i++;
    }
    size_t n = 0;
    const sc_cli_command *const *all = sc_cli_commands(&n);
    const sc_cli_command *best = NULL;
    size_t best_words = 0, prefix = 0;
    for (size_t k = 0; k < n; k++) {
        size_t wc = word_count(all[k]->words), m = 0;
        while (m < wc && m < nwords && word_is(all[k]->words, m, words[m]))
            m++;
        if (m == wc && wc > best_words) {
            best = all[k];
            best_words = wc;
        }
        if (m > prefix)
            prefix = m;
    }
    if (best != NULL && prefix <= best_words)
        return best;
    if (nwords == 0) {
        for (int i = first; i < argc && strcmp(argv[i], "--") != 0; i++)
            if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
                *status = 0; /* the program's help */
                return NULL;
            }
        *status = sc_cli_usage_error("%s", "no command given");
        return NULL;
    }
    if (prefix == 0 || (best == NULL && prefix == 0)) {
        *status = sc_cli_usage_error("unknown command %s", words[0]);
        return NULL;
    }
    if (best != NULL)
        return best;
    /* the first word(s) start commands but the next one names none of them */
    char list[512];
    size_t len = 0;
    list[0] = '\0';
    for (size_t k = 0; k < n; k++) {
        size_t wc = word_count(all[k]->words), m = 0;
        while (m < wc && m < nwords && word_is(all[k]->words, m, words[m]))
            m++;
        if (m != prefix || wc <= prefix)
            continue;
        size_t wl;
        const char *w = word_at(all[k]->words, prefix, &wl);
        int dup = 0;
        for (size_t j = 0; j < k && !dup; j++) {
            size_t m2 = 0, wc2 = word_count(all[j]->words), wl2;
            while (m2 < wc2 && m2 < nwords && word_is(all[j]->words, m2, words[m2]))
                m2++;
            const char *w2 = m2 == prefix && wc2 > prefix ? word_at(all[j]->words, prefix, &wl2)
                                                         : NULL;
            dup = w2 != NULL && wl2 == wl && strncmp(w, w2, wl) == 0;
        }
        if (!dup && len + wl + 3 < sizeof list)
            len += (size_t)snprintf(list + len, sizeof list - len, "%s%.*s", len ? ", " : "",
                                    (int)wl, w);
    }
    char what[700];
    snprintf(what, sizeof what, "%s%s%s takes one of: %s", words[0], prefix > 1 ? " " : "",
             prefix > 1 ? words[1] : "", list);
    if (prefix < nwords) {
        size_t k = strlen(what);
        snprintf(what + k, sizeof what - k, " (not %s)", words[prefix]);
    }
    snprintf(hint_words, sizeof hint_words, "%s%s%s", words[0], prefix > 1 ? " " : "",
             prefix > 1 ? words[1] : "");
    for (int i = first; i < argc && strcmp(argv[i], "--") != 0; i++)
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            *status = 0; /* the help of every command these words start */
            return NULL;
        }
    *status = sc_cli_usage_error("%s", what);
    return NULL;
}

static const char *const ws_names[SC_WS_PATH_COUNT] = {"--scrolls-dir", "--build-dir",
                                                       "--out-dir", "--keys-dir",
                                                       "--toolchain-dir"};

int sc_cli_parse(int argc, char **argv, int first, sc_cli_args *a)
{
    for (size_t i = 0; i < OPT_COUNT; i++)
        if (catalogue[i].id != (sc_cli_opt)i || catalogue[i].name == NULL) {
            sc_error err;
            sc_error_set(&err, SC_E_INTERNAL, NULL, "the option catalogue is out of order at %zu", i);
            return sc_cli_report(&err);
        }
    int status = EXIT_USAGE;
    current = NULL;
    for (int i = first; i < argc && strcmp(argv[i], "--") != 0; i++)
        if (strcmp(argv[i], "--json") == 0)
            sc_cli_set_json(1); /* even a usage error is then a JSON document */
    hint_words[0] = '\0';
    const sc_cli_command *cmd = find_command(argc, argv, first, &status);
    if (cmd == NULL && status == 0) {
        /* --help and no (whole) command: the caller prints the help of these words */
        a->help = 1;
        snprintf(a->help_words, sizeof a->help_words, "%s", hint_words);
        hint_words[0] = '\0';
    }
    if (cmd == NULL)
        return status;
    current = cmd;
    a->command = cmd;
    size_t nwords = word_count(cmd->words);
    int options_done = 0, first_word = 1;
    for (int i = first; i < argc; i++) {
        const char *arg = argv[i];
        if (options_done || arg[0] != '-' || strcmp(arg, "-") == 0) {
            if (first_word) { /* the command's first word is not an operand */
                first_word = 0;
                continue;
            }
            if (a->npositional == SC_CLI_MAX_POSITIONAL)
                return sc_cli_usage_error("too many arguments at \"%s\"", arg);
            a->positional[a->npositional++] = arg;
            continue;
        }
        if (strcmp(arg, "--") == 0) {
            if (cmd->rest != NULL) {
                /* everything after -- belongs to the command's child */
                a->rest = argv + i + 1;
                a->nrest = argc - i - 1;
                break;
            }
            options_done = 1;
            continue;
        }
        const char *eq = arg[1] == '-' ? strchr(arg, '=') : NULL;
        size_t n = eq ? (size_t)(eq - arg) : strlen(arg);
        const sc_cli_option *o = find_command_option(cmd, arg, n);
        char name[64];
        snprintf(name, sizeof name, "%.*s", (int)(n < 63 ? n : 63), arg);
        if (o == NULL || !command_takes(cmd, o->id)) {
            char what[160];
            snprintf(what, sizeof what, "%s does not take %s", cmd->words, name);
            return sc_cli_usage_error(o == NULL ? "unknown option %s" : "%s",
                                      o == NULL ? name : what);
        }
        if (a->seen[o->id] && !o->repeatable && o->id != OPT_HELP)
            return sc_cli_usage_error("%s is given more than once", o->name);
        if (o->id == OPT_HELP) {
            if (eq != NULL)
                return sc_cli_usage_error("%s takes no value", o->name);
            a->help = 1;
            a->seen[o->id] = 1;
            continue;
        }
        const char *value = eq ? eq + 1 : NULL;
        if (o->argument == NULL) {
            if (value != NULL)
                return sc_cli_usage_error("%s takes no value", o->name);
            a->seen[o->id] = 1;
            continue;
        }
        if (value == NULL) {
            if (i + 1 >= argc)
                return sc_cli_usage_error("%s requires a value", o->name);
            value = argv[++i];
        }
        if (value[0] == '\0')
            return sc_cli_usage_error("%s requires a non-empty value", o->name);
        value = canonical_value(o->id, value);
        if (o->choices != NULL && !is_choice(o->choices, value)) {
            char list[400], what[600];
            choices_text(o->choices, list, sizeof list);
            snprintf(what, sizeof what, "%s takes %s, not %.100s", o->name, list, value);
            return sc_cli_usage_error("%s", what);
        }
        if (a->seen[o->id] < 255)
            a->seen[o->id]++;
        a->value[o->id] = value;
        switch (o->id) {
        case OPT_ENV:
            if (a->nenv == SC_CLI_MAX_ENV)
                return sc_cli_usage_error("more than %s --env options", "256");
            a->env[a->nenv++] = value;
            break;
        case OPT_CHANNEL_MIRROR:
            if (a->nmirrors == SC_CLI_MAX_MIRRORS)
                return sc_cli_usage_error("more than %s --channel-mirror options", "64");
            a->mirrors[a->nmirrors++] = value;
            break;
        case OPT_KEY_ID: a->key_id = value; break;
        case OPT_OUT: a->out = value; break;
        case OPT_SIGNER: a->signer = value; break;
        case OPT_PUBLIC_KEY: a->public_key = value; break;
        case OPT_TRUST: a->trust = value; break;
        case OPT_EXPECT: a->expect = value; break;
        case OPT_INSTALL_ID: a->install_id = value; break;
        case OPT_PROJECT_ROOT: a->ws.project_root = value; break;
        case OPT_CONFIG: a->ws.config = value; break;
        default:
            for (int k = 0; k < SC_WS_PATH_COUNT; k++)
                if (strcmp(o->name, ws_names[k]) == 0)
                    a->ws.paths[k] = value;
        }
    }
    if (a->help)
        return 0;
    /* operands: as many as the command takes */
    size_t required = 0, max = 0;
    int unbounded = 0;
    for (const sc_cli_operand *op = cmd->operands; op != NULL && op->name != NULL; op++) {
        required += op->required != 0;
        max++;
        unbounded |= op->repeatable;
    }
    /* positional holds the command's words but the first, then its operands */
    size_t given = (size_t)a->npositional - (nwords - 1);
    if (given < required) {
        const sc_cli_operand *op = cmd->operands;
        for (size_t k = 0; k < given; k++)
            op++;
        char what[200];
        snprintf(what, sizeof what, "%s needs %s", cmd->words, op->name);
        return sc_cli_usage_error("%s", what);
    }
    if (!unbounded && given > max)
        return sc_cli_usage_error("unexpected argument %s",
                                  a->positional[nwords - 1 + max]);
    return 0;
}

/* ---- help ------------------------------------------------------------------------ */

/* "RELEASE DEST [REF] [ARGS...]" of a command. */
static void synopsis(const sc_cli_command *c, char *buf, size_t size)
{
    size_t n = (size_t)snprintf(buf, size, "%s", c->words);
    for (const sc_cli_operand *op = c->operands; op != NULL && op->name != NULL && n < size;
         op++)
        n += (size_t)snprintf(buf + n, size - n, op->required ? " %s%s" : " [%s%s]", op->name,
                              op->repeatable ? "..." : "");
    if (c->rest != NULL && n < size)
        snprintf(buf + n, size - n, " [-- %s...]", c->rest);
}

static void print_option_line(const sc_cli_command *c, const sc_cli_option *o, const char *help)
{
    char left[96];
    int n = snprintf(left, sizeof left, "%s%s%s%s%s", o->short_name ? o->short_name : "",
                     o->short_name ? ", " : "", o->name, o->argument ? " " : "",
                     o->argument ? o->argument : "");
    (void)n;
    if (strlen(left) > 28)
        printf("  %s\n  %-28s %s", left, "", help);
    else
        printf("  %-28s %s", left, help);
    if (o->choices != NULL) {
        char list[400];
        choices_text(o->choices, list, sizeof list);
        printf(" (%s)", list);
    }
    if (o->repeatable && o->id != OPT_ENV)
        printf(" (repeatable)");
    int also = 0;
    if (o->aliases != NULL)
        printf(" (also %s", o->aliases), also = 1;
    for (const sc_cli_alias *al = c ? c->aliases : NULL; al != NULL && al->spelling != NULL; al++)
        if (al->id == o->id)
            printf("%s%s", also++ ? ", " : " (also ", al->spelling);
    for (size_t i = 0; i < sizeof value_aliases / sizeof value_aliases[0]; i++)
        if (value_aliases[i].id == o->id)
            printf("%s%s for %s", also++ ? ", " : " (also ", value_aliases[i].spelling,
                   value_aliases[i].value);
    if (also)
        putchar(')');
    putchar('\n');
}

static void print_workspace_line(void)
{
    printf("Workspace options (every command):\n "
           " --project-root DIR  --config FILE  --scrolls-dir DIR  --build-dir DIR\n"
           "  --out-dir DIR  --keys-dir DIR  --toolchain-dir DIR\n");
}

static void print_command_help(const sc_cli_command *c)
{
    char syn[256];
    synopsis(c, syn, sizeof syn);
    printf("usage: scrollcase %s [options]\n\n%s\n", syn, c->summary);
    if (c->description != NULL && c->description[0] != '\0')
        printf("\n%s", c->description);
    printf("\nOptions:\n");
    for (const sc_cli_option_use *u = c->options; u != NULL && u->id != OPT_COUNT; u++)
        print_option_line(c, &catalogue[u->id], u->help ? u->help : catalogue[u->id].help);
    print_option_line(c, &catalogue[OPT_HELP], catalogue[OPT_HELP].help);
    print_workspace_line();
}

static const struct {
    const char *group, *title;
} groups[] = {
    {"consumer", "Using boxes"},
    {"publisher", "Building, signing and publishing"},
    {"author", "Writing scrolls"},
    {"host", "This host"},
    {"meta", "Help"},
};

static void print_main_help(void)
{
    size_t n = 0;
    const sc_cli_command *const *all = sc_cli_commands(&n);
    printf("usage: scrollcase [--version] [--help] <command> [options]\n");
    for (size_t g = 0; g < sizeof groups / sizeof groups[0]; g++) {
        printf("\n%s:\n", groups[g].title);
        for (size_t k = 0; k < n; k++) {
            if (strcmp(all[k]->group, groups[g].group) != 0)
                continue;
            char syn[256];
            synopsis(all[k], syn, sizeof syn);
            if (strlen(syn) > 30)
                printf("  %s\n  %-30s %s\n", syn, "", all[k]->summary);
            else
                printf("  %-30s %s\n", syn, all[k]->summary);
        }
    }
    printf("\n");
    print_workspace_line();
    printf("\n"
           "`scrollcase help COMMAND` (or COMMAND --help) prints a command's options.\n"
           "REF is <boxId>/<targetId> or <boxId>.  Exit status: 0 success, 1 a\n"
           "rejection (\"scrollcase: error[<code>]: <message>\" on stderr; codes in\n"
           "docs/errors.md), 2 a usage error.\n");
}

/* Whether command c's words start with words ("audit" starts "audit cuda"). */
static int help_matches(const sc_cli_command *c, const char *words)
{
    size_t want = word_count(words);
    for (size_t m = 0; m < want; m++) {
        size_t wl;
        const char *w = word_at(words, m, &wl);
        char one[64];
        snprintf(one, sizeof one, "%.*s", (int)(wl < 63 ? wl : 63), w);
        if (!word_is(c->words, m, one))
            return 0;
    }
    return 1;
}

int sc_cli_print_help(const char *words)
{
    if (words == NULL || words[0] == '\0') {
        print_main_help();
        return 0;
    }
    size_t n = 0, shown = 0;
    const sc_cli_command *const *all = sc_cli_commands(&n);
    for (size_t k = 0; k < n; k++) {
        if (!help_matches(all[k], words))
            continue;
        if (shown++)
            printf("\n");
        print_command_help(all[k]);
    }
    if (shown == 0)
        return sc_cli_usage_error("unknown command %s", words);
    return 0;
}

static int emit(sc_json *v);

/* ---- help --commands-json ---------------------------------------------------------- */

static const char *completion_name(sc_cli_completion c)
{
    switch (c) {
    case SC_COMPLETE_FILE: return "file";
    case SC_COMPLETE_DIRECTORY: return "directory";
    case SC_COMPLETE_CHOICE: return "choice";
    case SC_COMPLETE_COMMAND: return "command";
    case SC_COMPLETE_KEY: return "key";
    default: return "none";
    }
}

/* A JSON array of the parts of "a<sep>b<sep>c". */
static sc_json *split_array(const char *s, char sep)
{
    sc_json *arr = sc_json_new_array();
    for (const char *p = s; arr != NULL && p != NULL && *p;) {
        while (*p == sep)
            p++;
        const char *start = p;
        while (*p && *p != sep)
            p++;
        if (p > start && sc_json_array_append(arr, sc_json_new_string_len(start,
                                                                         (size_t)(p - start))) !=
                             0) {
            sc_json_free(arr);
            return NULL;
        }
    }
    return arr;
}

static sc_json *option_json(const sc_cli_command *c, const sc_cli_option *o, const char *help)
{
    sc_json *j = sc_json_new_object();
    if (j == NULL)
        return NULL;
    int bad = sc_json_object_append(j, "name", sc_json_new_string(o->name));
    bad |= sc_json_object_append(j, "short", o->short_name ? sc_json_new_string(o->short_name)
                                                           : sc_json_new_null());
    bad |= sc_json_object_append(j, "argument", o->argument ? sc_json_new_string(o->argument)
                                                            : sc_json_new_null());
    bad |= sc_json_object_append(j, "help", sc_json_new_string(help));
    bad |= sc_json_object_append(j, "completion", sc_json_new_string(completion_name(o->completion)));
    bad |= sc_json_object_append(j, "choices", split_array(o->choices, '|'));
    bad |= sc_json_object_append(j, "repeatable", sc_json_new_bool(o->repeatable));
    sc_json *aliases = split_array(o->aliases, ' ');
    for (const sc_cli_alias *al = c ? c->aliases : NULL; aliases && al != NULL && al->spelling != NULL;
         al++)
        if (al->id == o->id)
            bad |= sc_json_array_append(aliases, sc_json_new_string(al->spelling));
    bad |= sc_json_object_append(j, "aliases", aliases);
    if (bad) {
        sc_json_free(j);
        return NULL;
    }
    return j;
}

static sc_json *command_json(const sc_cli_command *c)
{
    sc_json *j = sc_json_new_object();
    sc_json *ops = sc_json_new_array(), *opts = sc_json_new_array();
    int bad = j == NULL || ops == NULL || opts == NULL;
    for (const sc_cli_operand *op = c->operands; !bad && op != NULL && op->name != NULL; op++) {
        sc_json *o = sc_json_new_object();
        bad |= o == NULL;
        bad |= o && sc_json_object_append(o, "name", sc_json_new_string(op->name));
        bad |= o && sc_json_object_append(o, "required", sc_json_new_bool(op->required));
        bad |= o && sc_json_object_append(o, "repeatable", sc_json_new_bool(op->repeatable));
        bad |= o && sc_json_object_append(o, "completion",
                                          sc_json_new_string(completion_name(op->completion)));
        bad |= o && sc_json_array_append(ops, o);
    }
    if (!bad && c->rest != NULL) {
        char name[64];
        snprintf(name, sizeof name, "-- %s", c->rest);
        sc_json *o = sc_json_new_object();
        bad |= o == NULL;
        bad |= o && sc_json_object_append(o, "name", sc_json_new_string(name));
        bad |= o && sc_json_object_append(o, "required", sc_json_new_bool(0));
        bad |= o && sc_json_object_append(o, "repeatable", sc_json_new_bool(1));
        bad |= o && sc_json_object_append(o, "completion", sc_json_new_string("none"));
        bad |= o && sc_json_array_append(ops, o);
    }
    for (const sc_cli_option_use *u = c->options; !bad && u != NULL && u->id != OPT_COUNT; u++)
        bad |= sc_json_array_append(
                   opts, option_json(c, &catalogue[u->id], u->help ? u->help : catalogue[u->id].help)) != 0;
    if (!bad)
        bad |= sc_json_array_append(opts, option_json(c, &catalogue[OPT_HELP],
                                                      catalogue[OPT_HELP].help)) != 0;
    for (size_t i = 0; !bad && i < NWORKSPACE; i++)
        bad |= sc_json_array_append(opts, option_json(c, &catalogue[workspace_options[i]],
                                                      catalogue[workspace_options[i]].help)) != 0;
    if (bad) {
        sc_json_free(j);
        sc_json_free(ops);
        sc_json_free(opts);
        return NULL;
    }
    char syn[256];
    synopsis(c, syn, sizeof syn);
    bad |= sc_json_object_append(j, "name", sc_json_new_string(c->words));
    bad |= sc_json_object_append(j, "words", split_array(c->words, ' '));
    bad |= sc_json_object_append(j, "synopsis", sc_json_new_string(syn));
    bad |= sc_json_object_append(j, "group", sc_json_new_string(c->group));
    bad |= sc_json_object_append(j, "summary", sc_json_new_string(c->summary));
    bad |= sc_json_object_append(j, "description",
                                 sc_json_new_string(c->description ? c->description : ""));
    bad |= sc_json_object_append(j, "operands", ops);
    bad |= sc_json_object_append(j, "options", opts);
    if (bad) {
        sc_json_free(j);
        return NULL;
    }
    return j;
}

int sc_cli_print_commands_json(const char *version)
{
    size_t n = 0;
    const sc_cli_command *const *all = sc_cli_commands(&n);
    sc_json *doc = sc_json_new_object(), *list = sc_json_new_array();
    int bad = doc == NULL || list == NULL;
    for (size_t k = 0; !bad && k < n; k++) {
        sc_json *c = command_json(all[k]);
        bad |= c == NULL || sc_json_array_append(list, c) != 0;
    }
    if (bad) {
        sc_json_free(list);
        sc_json_free(doc);
        return sc_cli_print_json(NULL);
    }
    bad |= sc_json_object_append(doc, "schemaVersion", sc_json_new_number(1));
    bad |= sc_json_object_append(doc, "program", sc_json_new_string("scrollcase"));
    bad |= sc_json_object_append(doc, "version", sc_json_new_string(version));
    bad |= sc_json_object_append(doc, "commands", list);
    if (bad) {
        sc_json_free(doc);
        doc = NULL;
    }
    return emit(doc); /* the table's own shape: no "ok" */
}

/* ---- help --json ---------------------------------------------------------------- */

/* The overview: the commands by group (synopsis and summary), the workspace options. */
static sc_json *overview_json(void)
{
    size_t n = 0;
    const sc_cli_command *const *all = sc_cli_commands(&n);
    sc_json *body = sc_json_new_object(), *list = sc_json_new_array(), *ws = sc_json_new_array();
    int bad = body == NULL || list == NULL || ws == NULL;
    for (size_t g = 0; !bad && g < sizeof groups / sizeof groups[0]; g++) {
        sc_json *grp = sc_json_new_object(), *cmds = sc_json_new_array();
        bad |= grp == NULL || cmds == NULL;
        for (size_t k = 0; !bad && k < n; k++) {
            if (strcmp(all[k]->group, groups[g].group) != 0)
                continue;
            char syn[256];
            synopsis(all[k], syn, sizeof syn);
            sc_json *c = sc_json_new_object();
            bad |= c == NULL;
            bad |= c && sc_json_object_append(c, "name", sc_json_new_string(all[k]->words));
            bad |= c && sc_json_object_append(c, "synopsis", sc_json_new_string(syn));
            bad |= c && sc_json_object_append(c, "summary", sc_json_new_string(all[k]->summary));
            bad |= c && sc_json_array_append(cmds, c);
        }
        bad |= grp && sc_json_object_append(grp, "name", sc_json_new_string(groups[g].group));
        bad |= grp && sc_json_object_append(grp, "title", sc_json_new_string(groups[g].title));
        if (grp && !bad)
            bad |= sc_json_object_append(grp, "commands", cmds), cmds = NULL;
        bad |= grp && sc_json_array_append(list, grp);
        sc_json_free(cmds);
    }
    for (size_t i = 0; !bad && i < NWORKSPACE; i++)
        bad |= sc_json_array_append(ws, option_json(NULL, &catalogue[workspace_options[i]],
                                                    catalogue[workspace_options[i]].help)) != 0;
    if (!bad) {
        bad |= sc_json_object_append(body, "usage",
                                     sc_json_new_string("scrollcase [--version] [--help] "
                                                        "<command> [options]"));
        bad |= sc_json_object_append(body, "groups", list), list = NULL;
        bad |= sc_json_object_append(body, "workspaceOptions", ws), ws = NULL;
    }
    sc_json_free(list);
    sc_json_free(ws);
    if (bad) {
        sc_json_free(body);
        return NULL;
    }
    return body;
}

int sc_cli_print_help_json(const char *words, const char *version)
{
    sc_json *body = NULL;
    if (words == NULL || words[0] == '\0') {
        body = overview_json();
    } else {
        size_t n = 0;
        const sc_cli_command *const *all = sc_cli_commands(&n);
        sc_json *list = sc_json_new_array();
        int bad = list == NULL;
        for (size_t k = 0; !bad && k < n; k++)
            if (help_matches(all[k], words)) {
                sc_json *c = command_json(all[k]);
                bad |= c == NULL || sc_json_array_append(list, c) != 0;
            }
        if (!bad && list->length == 0) {
            sc_json_free(list);
            return sc_cli_usage_error("unknown command %s", words);
        }
        body = bad ? NULL : sc_json_new_object();
        if (body == NULL || sc_json_object_append(body, "commands", list) != 0) {
            sc_json_free(list);
            sc_json_free(body);
            body = NULL;
        }
    }
    /* program and version first, as in help --commands-json */
    sc_json *doc = sc_json_new_object();
    int bad = body == NULL || doc == NULL;
    bad = bad || sc_json_object_append(doc, "program", sc_json_new_string("scrollcase"));
    bad = bad || sc_json_object_append(doc, "version", sc_json_new_string(version));
    while (!bad && body->child != NULL) {
        char *key = strdup(body->child->key);
        sc_json *m = key ? sc_json_object_take(body, key) : NULL;
        bad = m == NULL || sc_json_object_append(doc, key, m) != 0;
        free(key);
    }
    sc_json_free(body);
    if (bad) {
        sc_json_free(doc);
        doc = NULL;
    }
    return sc_cli_print_json(doc);
}

/* ---- output ---------------------------------------------------------------------- */

/*
 * --json: exactly one document on stdout, success or failure.  The state is
 * the program's (one command per process, one thread).
 */
static int json_mode;    /* --json was given */
static int json_done;    /* the document has been printed */
/* error_shown (above): an error line went to stderr */

int sc_cli_json(void)
{
    return json_mode;
}

int sc_cli_json_printed(void)
{
    return json_done;
}

int sc_cli_error_shown(void)
{
    return error_shown;
}

static int json_locked; /* help --parse-only: the words parsed decide nothing */

void sc_cli_set_json(int on)
{
    if (!json_locked)
        json_mode = on;
}

void sc_cli_lock_json(int locked)
{
    json_locked = locked;
}

/* Write v (taken) to stdout as the one document. */
static int emit(sc_json *v)
{
    sc_error err;
    char *text = NULL;
    size_t len = 0;
    int rc = 0;
    json_done = 1;
    if (v == NULL || sc_json_write(v, &text, &len, &err) != SC_OK) {
        if (v == NULL)
            sc_error_set(&err, SC_E_OUT_OF_MEMORY, NULL, "out of memory");
        else if (err.code == SC_E_INVALID_JSON) /* invalid-json is for input only */
            sc_error_set(&err, SC_E_INTERNAL, NULL,
                         "cannot write the JSON document (a string in it is not UTF-8); "
                         "run the command without --json");
        fprintf(stderr, "scrollcase: error[%s]: %s\n", sc_code_name(err.code), err.message);
        error_shown = 1;
        rc = EXIT_REJECTED;
    } else {
        fwrite(text, 1, len, stdout);
        rc = fflush(stdout) == 0 ? 0 : EXIT_REJECTED;
    }
    free(text);
    sc_json_free(v);
    return rc;
}

/*
 * {"schemaVersion": 1, "ok": ok, ["error": e,] then the members of body}
 * (body taken; an object, or NULL).  NULL when out of memory.
 */
static sc_json *document(int ok, sc_json *error, sc_json *body)
{
    sc_json *d = sc_json_new_object();
    int bad = d == NULL;
    bad |= d && sc_json_object_append(d, "schemaVersion", sc_json_new_number(SC_CLI_SCHEMA_VERSION));
    bad |= d && sc_json_object_append(d, "ok", sc_json_new_bool(ok));
    if (error != NULL) {
        bad |= d == NULL || sc_json_object_append(d, "error", error);
        error = NULL;
    }
    while (!bad && body != NULL && body->child != NULL) {
        char *key = strdup(body->child->key ? body->child->key : "");
        sc_json *m = key ? sc_json_object_take(body, key) : NULL;
        bad |= m == NULL || sc_json_object_set(d, key, m) != 0;
        free(key);
    }
    sc_json_free(error);
    sc_json_free(body);
    if (bad) {
        sc_json_free(d);
        return NULL;
    }
    return d;
}

/* A string for the failure document: s itself when it is UTF-8, else its
 * quoted form (sc_path_quote), so the failure document always writes. */
static sc_json *text_json(const char *s)
{
    if (sc_utf8_valid(s, strlen(s)))
        return sc_json_new_string(s);
    char q[SC_ERROR_MESSAGE_MAX + SC_ERROR_PATH_MAX];
    sc_path_quote(s, strlen(s), q, sizeof q);
    return sc_json_new_string(q);
}

static sc_json *error_json(const sc_error *err)
{
    sc_json *e = sc_json_new_object();
    if (e == NULL || sc_json_object_append(e, "code", sc_json_new_string(sc_code_name(err->code))) ||
        sc_json_object_append(e, "message", text_json(err->message)) ||
        sc_json_object_append(e, "path", err->path[0] ? text_json(err->path)
                                                      : sc_json_new_null())) {
        sc_json_free(e);
        return NULL;
    }
    return e;
}

/* The failure document for err, once, when --json is on. */
static void json_failure(const sc_error *err, sc_json *body)
{
    if (!json_mode || json_done) {
        sc_json_free(body);
        return;
    }
    sc_json *e = error_json(err);
    (void)emit(e != NULL ? document(0, e, body) : (sc_json_free(body), NULL));
}

int sc_cli_report(const sc_error *err)
{
    fprintf(stderr, "scrollcase: error[%s]: %s\n", sc_code_name(err->code), err->message);
    error_shown = 1;
    if (err->code == SC_E_USAGE)
        print_hint();
    json_failure(err, NULL);
    return err->code == SC_E_USAGE ? usage_status() : EXIT_REJECTED;
}

int sc_cli_fail_json(sc_json *body, const sc_error *err)
{
    fprintf(stderr, "scrollcase: error[%s]: %s\n", sc_code_name(err->code), err->message);
    error_shown = 1;
    if (err->code == SC_E_USAGE)
        print_hint();
    json_failure(err, body);
    return err->code == SC_E_USAGE ? usage_status() : EXIT_REJECTED;
}

int sc_cli_print_json(sc_json *v)
{
    if (v == NULL) {
        sc_error err;
        sc_error_set(&err, SC_E_OUT_OF_MEMORY, NULL, "out of memory");
        return sc_cli_report(&err);
    }
    if (json_done) { /* one document only: a second is a bug, never printed */
        sc_json_free(v);
        return 0;
    }
    if (v->type != SC_JSON_OBJECT) {
        sc_json *o = sc_json_new_object();
        if (o == NULL || sc_json_object_append(o, "result", v) != 0) {
            sc_json_free(o);
            return sc_cli_print_json(NULL);
        }
        v = o;
    }
    sc_json *d = document(1, NULL, v);
    if (d == NULL)
        return sc_cli_print_json(NULL);
    return emit(d);
}

int sc_cli_print_json_status(sc_json *v, int ok)
{
    if (ok)
        return sc_cli_print_json(v);
    if (json_done) {
        sc_json_free(v);
        return 0;
    }
    sc_json *d = document(0, NULL, v);
    return d != NULL ? emit(d) : sc_cli_print_json(NULL);
}
