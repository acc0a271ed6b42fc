/* SPDX-License-Identifier: Apache-2.0 */
/*
 * runner.c — scrollcase-conform, the conformance runner.
 *
 * Reads the corpus, hands every selected case to the adapter (one process
 * per case, or one long-lived process per job in persistent mode), compares
 * the answer with what case.json expects, and reports.  The protocol is
 * conformance/README.md.
 *
 * Exit status: 0 when nothing failed and at least one case ran (or
 * --allow-empty); 1 when a case failed (fail, xpass, error) or none ran;
 * 2 on a usage or setup problem (bad option, unreadable corpus or xfail
 * file, an adapter without a valid --hello); 130 when interrupted.
 */
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "corpus.h"
#include "protocol.h"
#include "runner.h"
#include "scrollcase/error.h"
#include "scrollcase/file.h"
#include "scrollcase/json.h"
#include "scrollcase/digest.h"
#include "spawn.h"
#include "util.h"

#ifndef SC_CONFORMANCE_VERSION
#define SC_CONFORMANCE_VERSION "0.0.0"
#endif

#define EXIT_FAILED 1
#define EXIT_SETUP 2

static volatile sig_atomic_t stop_signal = 0;

static void on_stop(int sig)
{
    stop_signal = sig;
}

/* ---- the option table ---------------------------------------------------
 * One table drives parsing, --help and --options-json (the shape of
 * `scrollcase help --commands-json`, from which the man page is made). */

typedef enum opt_id {
    O_ADAPTER,
    O_ADAPTER_ARG,
    O_CORPUS,
    O_AREA,
    O_CASE,
    O_SHARD,
    O_SUITE_VERSION,
    O_XFAIL,
    O_MODE,
    O_TIMEOUT,
    O_JOBS,
    O_REPORT_JSON,
    O_REPORT_JUNIT,
    O_REPORT_TAP,
    O_REPORT_GITHUB,
    O_REPORT_HTML,
    O_COMPARE,
    O_LIST,
    O_ALLOW_EMPTY,
    O_QUIET,
    O_VERBOSE,
    O_PROTOCOL_JSON,
    O_OPTIONS_JSON,
    O_HELP
} opt_id;

typedef struct opt {
    opt_id id;
    const char *name;
    const char *shortname;  /* or NULL */
    const char *argument;   /* metavariable, or NULL for a flag */
    const char *completion; /* none|file|directory|choice|command|key */
    const char *choices;    /* "a|b|c" when completion is choice */
    int repeatable;
    const char *help;
} opt;

static const opt options[] = {
    {O_ADAPTER, "--adapter", NULL, "CMD", "command", NULL, 0,
     "adapter command line, split on spaces (no quoting); default: the built-in "
     "scrollcase-adapter next to this program"},
    {O_ADAPTER_ARG, "--adapter-arg", NULL, "ARG", "none", NULL, 1,
     "one word of the adapter's argv, kept as given (repeatable; or give the argv "
     "after --)"},
    {O_CORPUS, "--corpus", NULL, "DIR", "directory", NULL, 0,
     "case corpus (default: $SCROLLCASE_CORPUS, else the installed "
     "share/scrollcase/golden)"},
    {O_AREA, "--area", NULL, "AREA", "none", NULL, 1, "only cases of this area"},
    {O_CASE, "--case", NULL, "ID|GLOB", "none", NULL, 1,
     "only cases whose id or area/id matches"},
    {O_SHARD, "--shard", NULL, "I/N", "none", NULL, 0,
     "only the I-th of N round-robin shards of the selection; I counts from 1"},
    {O_SUITE_VERSION, "--suite-version", NULL, "VERSION", "none", NULL, 0,
     "only cases whose \"since\" is at most VERSION (an older suite's case list)"},
    {O_XFAIL, "--xfail", NULL, "FILE", "file", NULL, 0,
     "expected failures: lines \"<id-or-glob> [crash:] <reason>\""},
    {O_MODE, "--mode", NULL, "MODE", "choice", "auto|oneshot|persistent", 0,
     "how the adapter runs: auto (persistent when its --hello offers it), oneshot "
     "(a process per case) or persistent (required)"},
    {O_TIMEOUT, "--timeout", NULL, "SECONDS", "none", NULL, 0,
     "per-case limit (default 30)"},
    {O_JOBS, "--jobs", "-j", "N", "none", NULL, 0,
     "cases run at once (default 2; one adapter per job in persistent mode)"},
    {O_REPORT_JSON, "--report-json", NULL, "FILE", "file", NULL, 0,
     "write the JSON report to FILE"},
    {O_REPORT_JUNIT, "--report-junit", NULL, "FILE", "file", NULL, 0,
     "write a JUnit XML report to FILE"},
    {O_REPORT_TAP, "--report-tap", NULL, "FILE", "file", NULL, 0,
     "write a TAP version 13 report to FILE (- for stdout)"},
    {O_REPORT_GITHUB, "--report-github", NULL, "FILE", "file", NULL, 0,
     "write GitHub workflow annotations (::error file=...) to FILE (- for stdout)"},
    {O_REPORT_HTML, "--report-html", NULL, "FILE", "file", NULL, 0,
     "write a self-contained HTML report (one static page, no network) to FILE"},
    {O_COMPARE, "--compare", NULL, "REPORT", "file", NULL, 1,
     "with --report-html: instead of running, put the runs of these JSON reports "
     "side by side (repeatable; pass rates by area, what newly fails or passes)"},
    {O_LIST, "--list", NULL, NULL, "none", NULL, 0,
     "print the selected cases (area/id) and exit"},
    {O_ALLOW_EMPTY, "--allow-empty", NULL, NULL, "none", NULL, 0,
     "exit 0 when the selection runs no case (an area not started yet)"},
    {O_QUIET, "--quiet", "-q", NULL, "none", NULL, 0,
     "print only failures and the summary line"},
    {O_VERBOSE, "--verbose", "-v", NULL, "none", NULL, 0,
     "a line for every case, the stderr of every case that did not pass"},
    {O_PROTOCOL_JSON, "--protocol-json", NULL, NULL, "none", NULL, 0,
     "print the protocol version and the known operations and features as JSON"},
    {O_OPTIONS_JSON, "--options-json", NULL, NULL, "none", NULL, 0,
     "print this option table as JSON"},
    {O_HELP, "--help", "-h", NULL, "none", NULL, 0, "this text"},
};
#define NOPTIONS (sizeof options / sizeof options[0])

static void usage(FILE *f)
{
    fputs("usage: scrollcase-conform [options] [-- ADAPTER ARG...]\n", f);
    for (size_t i = 0; i < NOPTIONS; i++) {
        const opt *o = &options[i];
        char left[64];
        snprintf(left, sizeof left, "%s%s%s%s%s", o->shortname ? o->shortname : "",
                 o->shortname ? ", " : "", o->name, o->argument ? " " : "",
                 o->argument ? o->argument : "");
        fprintf(f, "  %-24s %s\n", left, o->help);
    }
}




static sc_json *jstr_or_null(const char *s)
{
    return s ? sc_json_new_string(s) : sc_json_new_null();
}

static int print_json(sc_json *doc)
{
    char *text = NULL;
    size_t len = 0;
    sc_error err;
    sc_error_clear(&err);
    int rc = 0;
    if (sc_json_write(doc, &text, &len, &err) != SC_OK ||
        fwrite(text, 1, len, stdout) != len || fflush(stdout) != 0) {
        fprintf(stderr, "scrollcase-conform: cannot print JSON: %s\n", err.message);
        rc = EXIT_SETUP;
    }
    free(text);
    sc_json_free(doc);
    return rc;
}

static int options_json(void)
{
    sc_json *root = cf_json_must(sc_json_new_object());
    cf_json_put(root, "schemaVersion", sc_json_new_number(1));
    cf_json_put(root, "program", sc_json_new_string("scrollcase-conform"));
    cf_json_put(root, "version", sc_json_new_string(SC_CONFORMANCE_VERSION));
    sc_json *cmds = cf_json_must(sc_json_new_array());
    sc_json *cmd = cf_json_must(sc_json_new_object());
    cf_json_put(cmd, "name", sc_json_new_string("scrollcase-conform"));
    cf_json_put(cmd, "words", sc_json_new_array());
    cf_json_put(cmd, "group", sc_json_new_string("conformance"));
    cf_json_put(cmd, "summary",
         sc_json_new_string("run the Scrollcase conformance suite against an adapter"));
    cf_json_put(cmd, "description",
         sc_json_new_string(
             "Runs every selected case of the conformance corpus through an adapter "
             "that speaks the adapter protocol " SC_CONFORM_PROTOCOL
             " (conformance/README.md), compares each answer with what the case "
             "expects and reports pass, fail, xfail, xpass, unsupported or error. "
             "Exit status 0 when nothing failed and at least one case ran, 1 when "
             "something failed or nothing ran, 2 for a usage or setup problem."));
    sc_json *operands = cf_json_must(sc_json_new_array());
    sc_json *argv_op = cf_json_must(sc_json_new_object());
    cf_json_put(argv_op, "name", sc_json_new_string("ADAPTER"));
    cf_json_put(argv_op, "required", sc_json_new_bool(0));
    cf_json_put(argv_op, "repeatable", sc_json_new_bool(1));
    cf_json_put(argv_op, "completion", sc_json_new_string("command"));
    cf_json_push(operands, argv_op);
    cf_json_put(cmd, "operands", operands);
    sc_json *opts = cf_json_must(sc_json_new_array());
    for (size_t i = 0; i < NOPTIONS; i++) {
        const opt *o = &options[i];
        sc_json *j = cf_json_must(sc_json_new_object());
        cf_json_put(j, "name", sc_json_new_string(o->name));
        cf_json_put(j, "short", jstr_or_null(o->shortname));
        cf_json_put(j, "argument", jstr_or_null(o->argument));
        cf_json_put(j, "help", sc_json_new_string(o->help));
        cf_json_put(j, "completion", sc_json_new_string(o->completion));
        sc_json *choices = cf_json_must(sc_json_new_array());
        for (const char *c = o->choices; c != NULL && *c;) {
            const char *bar = strchr(c, '|');
            size_t n = bar ? (size_t)(bar - c) : strlen(c);
            cf_json_push(choices, sc_json_new_string_len(c, n));
            c += n + (bar ? 1 : 0);
        }
        cf_json_put(j, "choices", choices);
        cf_json_put(j, "repeatable", sc_json_new_bool(o->repeatable));
        cf_json_put(j, "aliases", sc_json_new_array());
        cf_json_push(opts, j);
    }
    cf_json_put(cmd, "options", opts);
    cf_json_push(cmds, cmd);
    cf_json_put(root, "commands", cmds);
    return print_json(root);
}

static int protocol_json(void)
{
    sc_json *root = cf_json_must(sc_json_new_object());
    cf_json_put(root, "protocol", sc_json_new_string(SC_CONFORM_PROTOCOL));
    cf_json_put(root, "major", sc_json_new_number(SC_CONFORM_PROTOCOL_MAJOR));
    cf_json_put(root, "oldestMajor", sc_json_new_number(SC_CONFORM_PROTOCOL_OLDEST));
    cf_json_put(root, "extensionPrefix", sc_json_new_string(SC_PROTO_EXTENSION_PREFIX));
    cf_json_put(root, "unsupportedExitStatus", sc_json_new_number(SC_PROTO_EXIT_UNSUPPORTED));
    sc_json *ops = cf_json_must(sc_json_new_array());
    for (size_t i = 0; sc_proto_operations[i] != NULL; i++)
        cf_json_push(ops, sc_json_new_string(sc_proto_operations[i]));
    cf_json_put(root, "operations", ops);
    sc_json *fs = cf_json_must(sc_json_new_array());
    for (size_t i = 0; sc_proto_features[i] != NULL; i++)
        cf_json_push(fs, sc_json_new_string(sc_proto_features[i]));
    cf_json_put(root, "features", fs);
    return print_json(root);
}

static void die_setup(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2), noreturn))
#endif
    ;

static void die_setup(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("scrollcase-conform: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(EXIT_SETUP);
}

static void add_warning(sc_run *r, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static void add_warning(sc_run *r, const char *fmt, ...)
{
    sc_buf m = {0};
    va_list ap;
    va_start(ap, fmt);
    sc_buf_vprintf(&m, fmt, ap);
    va_end(ap);
    r->warnings = sc_xrealloc(r->warnings, sizeof *r->warnings * (r->nwarnings + 1));
    r->warnings[r->nwarnings++] = m.data;
    fprintf(stderr, "warning: %s\n", m.data);
}

/* ---- the adapter command ------------------------------------------------ */

static char *default_adapter(const char *argv0)
{
    char self[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n > 0) {
        self[n] = '\0';
    } else if (strchr(argv0, '/') != NULL && realpath(argv0, self) != NULL) {
        /* fine */
    } else {
        return NULL;
    }
    char *slash = strrchr(self, '/');
    if (slash == NULL)
        return NULL;
    *slash = '\0';
    return sc_xjoin(self, "scrollcase-adapter");
}


/* The corpus installed with the runner: SC_CORPUS_FROM_BINDIR (normally
 * "../share/scrollcase/golden") from the runner's own directory; NULL when
 * that does not exist. */
static char *default_corpus(const char *argv0)
{
#ifdef SC_CORPUS_FROM_BINDIR
    char *adapter = default_adapter(argv0); /* "<runner's directory>/scrollcase-adapter" */
    if (adapter == NULL)
        return NULL;
    *strrchr(adapter, '/') = '\0';
    char *path = sc_xjoin(adapter, SC_CORPUS_FROM_BINDIR);
    free(adapter);
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode)) {
        free(path);
        return NULL;
    }
    return path;
#else
    (void)argv0;
    return NULL;
#endif
}

/* Split on spaces (--adapter).  The adapter runs in the runner's working
 * directory, so relative paths in the command mean what they meant to the
 * caller.  --adapter-arg and "--" take an argv as given instead. */
static void split_command(const char *cmd, const char ***v, size_t *n)
{
    const char *p = cmd;
    while (*p) {
        while (*p == ' ')
            p++;
        if (*p == '\0')
            break;
        const char *start = p;
        while (*p && *p != ' ')
            p++;
        *v = sc_xrealloc((void *)*v, sizeof **v * (*n + 1));
        (*v)[(*n)++] = sc_xstrndup(start, (size_t)(p - start));
    }
    if (*n == 0)
        die_setup("--adapter: empty command");
}

static char **adapter_argv_for(const sc_run *r, const char *op, const char *case_dir,
                               const char *work)
{
    size_t nbase = r->adapter_argc;
    char **v = sc_xmalloc(sizeof *v * (nbase + 6));
    size_t k = 0;
    for (size_t i = 0; i < nbase; i++)
        v[k++] = r->adapter_argv[i];
    v[k++] = (char *)op;
    if (case_dir != NULL) {
        v[k++] = (char *)"--case";
        v[k++] = (char *)case_dir;
    }
    if (work != NULL) {
        v[k++] = (char *)"--work";
        v[k++] = (char *)work;
    }
    v[k] = NULL;
    return v;
}

/* ---- xfail file -------------------------------------------------------- */

/* The reason's first word "crash" (or "crash:") lets a listed case crash or
 * time out; without it a crash of a listed case is a failure. */
static int reason_allows_crash(const char *reason)
{
    return strncmp(reason, "crash", 5) == 0 &&
           (reason[5] == '\0' || reason[5] == ':' || reason[5] == ' ' || reason[5] == '\t');
}

static void load_xfails(sc_run *r, const char *path)
{
    char *bytes;
    size_t len;
    sc_error err;
    sc_error_clear(&err);
    if (sc_file_read(path, &bytes, &len, NULL, &err) != SC_OK)
        die_setup("cannot read xfail file: %s", err.message);
    size_t line = 0;
    char *p = bytes, *end = bytes + len;
    while (p < end) {
        char *nl = memchr(p, '\n', (size_t)(end - p));
        char *eol = nl ? nl : end;
        line++;
        char *s = p;
        p = nl ? nl + 1 : end;
        while (eol > s && (eol[-1] == '\r' || eol[-1] == ' ' || eol[-1] == '\t'))
            eol--;
        while (s < eol && (*s == ' ' || *s == '\t'))
            s++;
        if (s == eol || *s == '#')
            continue;
        if (memchr(s, '\0', (size_t)(eol - s)) != NULL) {
            fprintf(stderr, "scrollcase-conform: %s:%zu: NUL byte\n", path, line);
            exit(EXIT_SETUP);
        }
        char *pat_end = s;
        while (pat_end < eol && *pat_end != ' ' && *pat_end != '\t')
            pat_end++;
        char *reason = pat_end;
        while (reason < eol && (*reason == ' ' || *reason == '\t'))
            reason++;
        if (reason == eol) {
            fprintf(stderr,
                    "scrollcase-conform: %s:%zu: an xfail entry needs a reason "
                    "after the case id or glob\n",
                    path, line);
            exit(EXIT_SETUP);
        }
        r->xfails = sc_xrealloc(r->xfails, sizeof *r->xfails * (r->nxfails + 1));
        sc_xfail *x = &r->xfails[r->nxfails++];
        x->pattern = sc_xstrndup(s, (size_t)(pat_end - s));
        x->reason = sc_xstrndup(reason, (size_t)(eol - reason));
        x->crash = reason_allows_crash(x->reason);
        x->line = line;
        x->matches = 0;
    }
    free(bytes);
}

static int case_matches(const sc_case *c, const char *pattern)
{
    /* the directory name: equal to the id for every case that can run */
    return fnmatch(pattern, c->dirname, 0) == 0 || fnmatch(pattern, c->label, 0) == 0;
}

static void apply_xfails(sc_run *r, const char *path)
{
    for (size_t i = 0; i < r->nxfails; i++) {
        sc_xfail *x = &r->xfails[i];
        for (size_t k = 0; k < r->corpus.count; k++) {
            sc_case *c = &r->corpus.cases[k];
            if (!case_matches(c, x->pattern))
                continue;
            x->matches++;
            if (c->xfail_reason == NULL) {
                c->xfail_reason = x->reason;
                c->xfail_crash = x->crash;
            }
        }
        if (x->matches == 0) {
            char where[64];
            snprintf(where, sizeof where, "%zu", x->line);
            sc_buf m = {0};
            sc_buf_printf(&m, "%s:%s", path, where);
            add_warning(r, "%s: xfail entry \"%s\" matches no case of the corpus",
                        sc_buf_str(&m), x->pattern);
            sc_buf_free(&m);
        }
    }
}

/* ---- selection --------------------------------------------------------- */

static void parse_shard(const char *s, unsigned long *i, unsigned long *n)
{
    char *end;
    errno = 0;
    *i = strtoul(s, &end, 10);
    if (end == s || *end != '/' || errno != 0)
        die_setup("--shard %s: expected I/N", s);
    const char *t = end + 1;
    *n = strtoul(t, &end, 10);
    if (end == t || *end != '\0' || errno != 0 || *n == 0 || *i == 0 || *i > *n)
        die_setup("--shard %s: expected I/N with 1 <= I <= N", s);
}

static void select_cases(sc_run *r)
{
    unsigned long shard_i = 1, shard_n = 1;
    if (r->shard != NULL)
        parse_shard(r->shard, &shard_i, &shard_n);
    r->selected = sc_xmalloc(sizeof *r->selected * (r->corpus.count + 1));
    size_t applicable = 0;
    for (size_t k = 0; k < r->corpus.count; k++) {
        sc_case *c = &r->corpus.cases[k];
        if (r->nareas > 0) {
            int hit = 0;
            for (size_t a = 0; a < r->nareas && !hit; a++)
                hit = strcmp(r->areas[a], c->area) == 0;
            if (!hit)
                continue;
        }
        if (r->ncase_globs > 0) {
            int hit = 0;
            for (size_t g = 0; g < r->ncase_globs && !hit; g++)
                hit = case_matches(c, r->case_globs[g]);
            if (!hit)
                continue;
        }
        if (r->suite_filter != NULL && c->load_error == NULL &&
            sc_semver_cmp(c->since, r->suite_filter) > 0)
            continue;
        /* round robin over the applicable cases, in corpus order */
        if (applicable++ % shard_n != shard_i - 1)
            continue;
        r->selected[r->nselected++] = c;
    }
}

/* ---- hello ------------------------------------------------------------- */

static int str_array(const sc_json *a)
{
    if (a == NULL || a->type != SC_JSON_ARRAY)
        return 0;
    for (size_t i = 0; i < a->length; i++)
        if (sc_json_cstr(sc_json_at(a, i)) == NULL)
            return 0;
    return 1;
}

static const sc_json *obj_get(const sc_json *o, const char *key)
{
    if (o == NULL || o->type != SC_JSON_OBJECT)
        return NULL;
    return sc_json_get(o, key);
}

static int array_has(const sc_json *a, const char *s)
{
    if (a == NULL || a->type != SC_JSON_ARRAY)
        return 0;
    for (size_t i = 0; i < a->length; i++) {
        const char *x = sc_json_cstr(sc_json_at(a, i));
        if (x != NULL && strcmp(x, s) == 0)
            return 1;
    }
    return 0;
}

/* Run the adapter to completion (used for --hello). */

/* ---- hello ------------------------------------------------------------- */

/* Run the adapter to completion (used for --hello). */
static void run_one(sc_proc *p)
{
    sc_proc *const list[1] = {p};
    while (!p->done) {
        sc_proc_pump(list, 1);
        if (stop_signal) {
            sc_proc_release(p);
            exit(130);
        }
    }
}

/* Every name of a hello list must be known (or an extension): a typo would
 * otherwise quietly turn cases into UNSUPPORTED.  Returns the message, or
 * NULL. */
static char *unknown_names(const sc_json *list, const char *what,
                           int (*known)(const char *), const char *const *names)
{
    sc_buf m = {0};
    for (size_t i = 0; list != NULL && i < list->length; i++) {
        const char *s = sc_json_cstr(sc_json_at(list, i));
        for (size_t j = 0; j < i; j++)
            if (strcmp(sc_json_cstr(sc_json_at(list, j)), s) == 0) {
                sc_buf_printf(&m, "%s%s \"%s\" is listed twice", m.len ? "; " : "", what, s);
                break;
            }
        if (known(s))
            continue;
        char *q = sc_utf8_sanitize(s, strlen(s), 0);
        const char *near = sc_proto_suggest(s, names);
        sc_buf_printf(&m, "%sunknown %s \"%s\"", m.len ? "; " : "", what, q);
        if (near != NULL)
            sc_buf_printf(&m, " (did you mean \"%s\"?)", near);
        free(q);
    }
    return m.data;
}

static void hello(sc_run *r, const char *mode)
{
    char **argv = adapter_argv_for(r, "--hello", NULL, NULL);
    sc_proc p;
    if (sc_proc_start(&p, argv, NULL, r->timeout_s * 1000.0) != 0) {
        fprintf(stderr, "scrollcase-conform: cannot start adapter %s: %s\n",
                argv[0], strerror(errno));
        free(argv);
        exit(EXIT_SETUP);
    }
    free(argv);
    run_one(&p);
    const char *problem = NULL;
    char *names_problem = NULL;
    sc_json *doc = NULL;
    sc_error err;
    sc_error_clear(&err);
    uint64_t proto = 0;
    if (p.timed_out)
        problem = "timed out";
    else if (!WIFEXITED(p.status) || WEXITSTATUS(p.status) != 0)
        problem = "did not exit with status 0";
    else if (sc_json_parse(p.out.data ? p.out.data : "", p.out.len, &doc, &err) != SC_OK)
        problem = "did not print a JSON document";
    else if (doc->type != SC_JSON_OBJECT)
        problem = "did not print a JSON object";
    if (problem == NULL) {
        const sc_json *impl = obj_get(doc, "implementation");
        const sc_json *persistent = obj_get(doc, "persistent");
        if (!sc_json_uint53(obj_get(doc, "protocol"), &proto))
            problem = "has no integer \"protocol\"";
        else if (proto < SC_CONFORM_PROTOCOL_OLDEST || proto > SC_CONFORM_PROTOCOL_MAJOR)
            problem = "speaks a protocol major version this runner does not (it speaks 2, "
                      "and 1 for now)";
        else if (sc_json_cstr(obj_get(impl, "name")) == NULL ||
                 sc_json_cstr(obj_get(impl, "version")) == NULL ||
                 sc_json_cstr(obj_get(impl, "language")) == NULL)
            problem = "lacks implementation.name, .version or .language (strings)";
        else if (!str_array(obj_get(doc, "operations")))
            problem = "lacks \"operations\" (an array of strings)";
        else if (proto >= 2 && obj_get(doc, "features") == NULL)
            problem = "lacks \"features\" (protocol 2: an array of strings, [] for none)";
        else if (obj_get(doc, "features") != NULL && !str_array(obj_get(doc, "features")))
            problem = "has \"features\" that is not an array of strings";
        else if (persistent != NULL && persistent->type != SC_JSON_BOOL)
            problem = "has \"persistent\" that is not a boolean";
        else if (persistent != NULL && persistent->boolean && proto < 2)
            problem = "offers the persistent mode, which needs protocol 2";
        else {
            sc_buf m = {0};
            char *a = unknown_names(obj_get(doc, "operations"), "operation",
                                    sc_proto_operation_known, sc_proto_operations);
            char *b = unknown_names(obj_get(doc, "features"), "feature",
                                    sc_proto_feature_known, sc_proto_features);
            if (a != NULL || b != NULL) {
                sc_buf_printf(&m, "names what this runner does not know: %s%s%s "
                                  "(extensions must start with \"" SC_PROTO_EXTENSION_PREFIX
                                  "\"; see scrollcase-conform --protocol-json)",
                              a ? a : "", a && b ? "; " : "", b ? b : "");
                names_problem = m.data;
                problem = names_problem;
            }
            free(a);
            free(b);
        }
    }
    if (problem != NULL) {
        char *e = sc_utf8_sanitize(p.err.data ? p.err.data : "", p.err.len, 0);
        fprintf(stderr, "scrollcase-conform: adapter --hello %s%s%s\n%s", problem,
                err.message[0] ? ": " : "", err.message, e);
        free(e);
        free(names_problem);
        sc_json_free(doc);
        sc_proc_release(&p);
        exit(EXIT_SETUP);
    }
    sc_proc_release(&p);
    r->hello = doc;
    r->adapter_protocol = (int)proto;
    const sc_json *persistent = obj_get(doc, "persistent");
    int offers = persistent != NULL && persistent->boolean;
    if (strcmp(mode, "persistent") == 0 && !offers)
        die_setup("--mode persistent: the adapter's --hello does not offer "
                  "\"persistent\": true");
    r->persistent = offers && strcmp(mode, "oneshot") != 0;
    if (proto < SC_CONFORM_PROTOCOL_MAJOR) {
        const char *bar = "**********************************************************"
                          "**************";
        fprintf(stderr, "%s\n", bar);
        add_warning(r,
                    "the adapter speaks protocol %d; this runner speaks %s. Protocol 1 "
                    "adapters still run in this release, with exit status 2 read as "
                    "\"unsupported\" (so a crash that exits 2 reads as a skip), and will "
                    "be refused by the next major release. Move to protocol 2: "
                    "conformance/README.md section 8.",
                    (int)proto, SC_CONFORM_PROTOCOL);
        fprintf(stderr, "%s\n", bar);
    }
}

static void set_result(sc_case *c, sc_status st, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

static void set_result(sc_case *c, sc_status st, const char *fmt, ...)
{
    c->status = st;
    free(c->reason);
    sc_buf m = {0};
    va_list ap;
    va_start(ap, fmt);
    sc_buf_vprintf(&m, fmt, ap);
    va_end(ap);
    c->reason = m.data;
}

static void set_status(sc_case *c, sc_status st)
{
    c->status = st;
    free(c->reason);
    c->reason = NULL;
}

/* One-line rendering of a value for messages, at most ~100 bytes. */
static char *brief(const sc_json *v)
{
    if (v == NULL)
        return sc_xstrdup("(nothing)");
    char *text = NULL;
    size_t len = 0;
    if (sc_json_write_compact(v, &text, &len, NULL) != SC_OK || text == NULL)
        return sc_xstrdup("(unprintable)");
    if (len > 100) {
        len = 100;
        while (len > 0 && ((unsigned char)text[len] & 0xc0) == 0x80)
            len--;
        memcpy(text + len, "...", 4);
        len += 3;
    }
    char *s = sc_utf8_sanitize(text, len, 0);
    free(text);
    return s;
}

static void path_key(sc_buf *path, const char *key)
{
    int plain = key[0] != '\0' && !(key[0] >= '0' && key[0] <= '9');
    for (const char *k = key; *k && plain; k++)
        plain = (*k >= 'a' && *k <= 'z') || (*k >= 'A' && *k <= 'Z') ||
                (*k >= '0' && *k <= '9') || *k == '_' || *k == '$';
    if (plain) {
        sc_buf_printf(path, ".%s", key);
    } else {
        char *k = sc_utf8_sanitize(key, strlen(key), 0);
        sc_buf_printf(path, "[\"%s\"]", k);
        free(k);
    }
}

/* Describe the first difference between want and got (which differ). */
static void describe_diff(const sc_json *want, const sc_json *got, sc_buf *path,
                          sc_buf *msg)
{
    if (want->type == got->type && want->type == SC_JSON_OBJECT) {
        for (const sc_json *m = want->child; m != NULL; m = m->next) {
            const sc_json *g = sc_json_get(got, m->key);
            size_t mark = path->len;
            path_key(path, m->key);
            if (g == NULL) {
                sc_buf_printf(msg, "%s is missing", path->data);
                return;
            }
            if (!sc_json_equal(m, g)) {
                describe_diff(m, g, path, msg);
                return;
            }
            path->len = mark;
            path->data[mark] = '\0';
        }
        for (const sc_json *m = got->child; m != NULL; m = m->next) {
            if (sc_json_get(want, m->key) == NULL) {
                path_key(path, m->key);
                char *b = brief(m);
                sc_buf_printf(msg, "%s is not expected (got %s)", path->data, b);
                free(b);
                return;
            }
        }
    } else if (want->type == got->type && want->type == SC_JSON_ARRAY) {
        size_t n = want->length < got->length ? want->length : got->length;
        for (size_t i = 0; i < n; i++) {
            const sc_json *a = sc_json_at(want, i), *b = sc_json_at(got, i);
            if (!sc_json_equal(a, b)) {
                sc_buf_printf(path, "[%zu]", i);
                describe_diff(a, b, path, msg);
                return;
            }
        }
        if (want->length != got->length) {
            sc_buf_printf(msg, "%s has %zu elements, expected %zu", path->data,
                          got->length, want->length);
            return;
        }
    }
    char *w = brief(want), *g = brief(got);
    sc_buf_printf(msg, "%s: expected %s, got %s", path->data, w, g);
    free(w);
    free(g);
}

static char *codes_text(const sc_json *codes)
{
    sc_buf b = {0};
    for (size_t i = 0; codes != NULL && i < codes->length; i++)
        sc_buf_printf(&b, "%s%s", i ? ", " : "", sc_json_cstr(sc_json_at(codes, i)));
    return b.data ? b.data : sc_xstrdup("");
}

static char *excerpt(const sc_proc *p)
{
    const size_t head = 1500, tail = 2000;
    const char *s = p->err.data ? p->err.data : "";
    size_t len = p->err.len;
    if (len <= head + tail + 200 && p->err_total == len)
        return sc_utf8_sanitize(s, len, 0);
    sc_buf b = {0};
    sc_buf_add(&b, s, head < len ? head : len);
    sc_buf_printf(&b, "\n[... %zu bytes left out ...]\n",
                  p->err_total - (len > head + tail ? head + tail : len));
    if (len > head + tail)
        sc_buf_add(&b, s + len - tail, tail);
    char *r = sc_utf8_sanitize(b.data, b.len, 0);
    sc_buf_free(&b);
    return r;
}

typedef enum answer {
    ANS_OUTPUT,      /* exit 0 / "output" */
    ANS_ERROR,       /* exit 1 / "error" */
    ANS_UNSUPPORTED  /* exit 77 / "unsupported" */
} answer;

static void crash(sc_case *c, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static void crash(sc_case *c, const char *fmt, ...)
{
    sc_buf m = {0};
    va_list ap;
    va_start(ap, fmt);
    sc_buf_vprintf(&m, fmt, ap);
    va_end(ap);
    set_result(c, SC_ST_FAIL, "crash: %s", sc_buf_str(&m));
    sc_buf_free(&m);
    c->crashed = 1;
}

/* Outputs larger than this are kept in the reports as their size only. */
#define GOT_MAX_BYTES (64 * 1024)

/* Keep what a case that did not pass answered, for the reports. */
static void keep_answer(sc_case *c, answer kind, const sc_json *out, const char *code,
                        const char *reason)
{
    sc_json_free(c->got);
    c->got = NULL;
    if (c->status == SC_ST_PASS)
        return;
    sc_json *o = cf_json_must(sc_json_new_object());
    if (kind == ANS_OUTPUT) {
        char *text = NULL;
        size_t len = 0;
        if (sc_json_write_compact(out, &text, &len, NULL) == SC_OK && len <= GOT_MAX_BYTES)
            cf_json_put(o, "output", sc_json_copy(out));
        else
            cf_json_put(o, "outputSizeBytes", sc_json_new_number((double)len));
        free(text);
    } else {
        const char *s = kind == ANS_ERROR ? code : reason;
        char *clean = sc_utf8_sanitize(s, strlen(s), 0);
        cf_json_put(o, kind == ANS_ERROR ? "error" : "unsupported", sc_json_new_string(clean));
        free(clean);
    }
    c->got = o;
}

static void decide_answer(const sc_run *r, sc_case *c, answer kind, const sc_json *out,
                          const char *code, const char *reason);

/* Keep what an adapter wrote when it was no answer of the protocol (stdout
 * that is not the object it should be, a persistent response line): its
 * first 4 KiB, as valid UTF-8, for the reports. */
static void keep_raw(sc_case *c, const char *bytes, size_t len)
{
    const size_t max = 4096;
    sc_json_free(c->got);
    sc_buf b = {0};
    sc_buf_add(&b, bytes != NULL ? bytes : "", len < max ? len : max);
    if (len > max)
        sc_buf_printf(&b, "\n[... %zu bytes left out ...]", len - max);
    char *clean = sc_utf8_sanitize(b.data ? b.data : "", b.len, 0);
    sc_buf_free(&b);
    c->got = cf_json_must(sc_json_new_object());
    cf_json_put(c->got, "stdout", cf_json_must(sc_json_new_string(clean)));
    free(clean);
}

/* Judge a clean answer: out is the output object (ANS_OUTPUT), the code
 * string's holder (ANS_ERROR: code), or NULL (ANS_UNSUPPORTED: reason). */
static void judge_answer(const sc_run *r, sc_case *c, answer kind, const sc_json *out,
                         const char *code, const char *reason)
{
    decide_answer(r, c, kind, out, code, reason);
    keep_answer(c, kind, out, code, reason);
}

static void decide_answer(const sc_run *r, sc_case *c, answer kind, const sc_json *out,
                          const char *code, const char *reason)
{
    int acceptable = strcmp(c->kind, "acceptable") == 0;
    if (kind == ANS_UNSUPPORTED) {
        char *why = sc_utf8_sanitize(reason, strlen(reason), 0);
        if (r->adapter_protocol < 2)
            set_result(c, SC_ST_UNSUPPORTED, "adapter: unsupported (%s)", why);
        else
            set_result(c, SC_ST_FAIL,
                       "answered unsupported (%s), but --hello offers operation %s and "
                       "claims every feature the case requires: take the operation out "
                       "of --hello or list the case in the xfail file",
                       why, c->operation);
        free(why);
        return;
    }
    char *want = c->error_codes ? codes_text(c->error_codes) : sc_xstrdup("");
    if (kind == ANS_OUTPUT) {
        if (!c->expect_accept && !acceptable) {
            set_result(c, SC_ST_FAIL, "accepted, expected rejection with %s", want);
        } else if (c->expect_accept && c->expect_output != NULL &&
                   !sc_json_equal(c->expect_output, out)) {
            sc_buf path = {0}, msg = {0};
            sc_buf_puts(&path, "$");
            describe_diff(c->expect_output, out, &path, &msg);
            set_result(c, SC_ST_FAIL, "accepted, but the output differs: %s",
                       sc_buf_str(&msg));
            sc_buf_free(&path);
            sc_buf_free(&msg);
        } else {
            set_status(c, SC_ST_PASS);
        }
    } else {
        sc_code k = sc_code_from_name(code);
        if (k == SC_CODE_COUNT_ || k == SC_OK) {
            char *b = sc_utf8_sanitize(code, strlen(code), 0);
            set_result(c, SC_ST_FAIL, "rejected with \"%s\", which is not an error code", b);
            free(b);
        } else if (c->expect_accept) {
            if (acceptable)
                set_status(c, SC_ST_PASS);
            else
                set_result(c, SC_ST_FAIL, "rejected with %s, expected acceptance", code);
        } else if (array_has(c->error_codes, code)) {
            set_status(c, SC_ST_PASS);
        } else {
            set_result(c, SC_ST_FAIL, "rejected with %s, expected %s", code, want);
        }
    }
    free(want);
}

/* An object with exactly one member, key, holding a string: its value. */
static const char *only_string(const sc_json *o, const char *key)
{
    if (o == NULL || o->type != SC_JSON_OBJECT || o->length != 1)
        return NULL;
    return sc_json_cstr(sc_json_get(o, key));
}

/* A one-shot call: the exit status says which answer stdout holds. */
static void judge_process(const sc_run *r, sc_case *c, const sc_proc *p)
{
    c->start_ms = p->start_ms;
    c->end_ms = p->end_ms;
    c->duration_ms = p->end_ms - p->start_ms;
    c->stderr_excerpt = excerpt(p);
    if (WIFEXITED(p->status))
        c->exit_code = WEXITSTATUS(p->status);
    if (WIFSIGNALED(p->status))
        c->signal = WTERMSIG(p->status);

    if (p->timed_out) {
        crash(c, "timed out after %g s (process group killed)", r->timeout_s);
        return;
    }
    if (c->signal != 0) {
        crash(c, "killed by signal %d (%s)", c->signal, strsignal(c->signal));
        return;
    }
    if (p->pipes_held) {
        crash(c, "the adapter exited but a descendant kept its output open");
        return;
    }
    int v1 = r->adapter_protocol < 2;
    if (v1 && c->exit_code == SC_PROTO1_EXIT_UNSUPPORTED) {
        set_result(c, SC_ST_UNSUPPORTED, "adapter: operation or feature unsupported "
                                         "(protocol 1 exit status 2)");
        return;
    }
    if (!v1 && c->exit_code == SC_PROTO1_EXIT_UNSUPPORTED) {
        crash(c, "exit status 2 (in protocol 2 that is a crash or a usage error, not "
                 "\"unsupported\": answer {\"unsupported\": \"<reason>\"} with exit "
                 "status 77)");
        return;
    }
    if (c->exit_code != SC_PROTO_EXIT_OK && c->exit_code != SC_PROTO_EXIT_REJECTED &&
        (v1 || c->exit_code != SC_PROTO_EXIT_UNSUPPORTED)) {
        crash(c, "exit status %d", c->exit_code);
        return;
    }
    if (p->out_total > SC_PROC_STDOUT_MAX) {
        set_result(c, SC_ST_FAIL, "adapter wrote more than %zu bytes to stdout",
                   SC_PROC_STDOUT_MAX);
        return;
    }
    sc_json *out = NULL;
    sc_error err;
    sc_error_clear(&err);
    if (sc_json_parse_depth(p->out.data ? p->out.data : "", p->out.len, SC_JSON_ENVELOPE_DEPTH, &out, &err) != SC_OK) {
        set_result(c, SC_ST_FAIL, "stdout (exit status %d) is not one JSON value: %s",
                   c->exit_code, err.message);
        keep_raw(c, p->out.data, p->out.len);
        return;
    }
    if (out->type != SC_JSON_OBJECT) {
        set_result(c, SC_ST_FAIL, "stdout (exit status %d) is a JSON %s, not an object",
                   c->exit_code, sc_json_type_name(out));
        keep_raw(c, p->out.data, p->out.len);
        sc_json_free(out);
        return;
    }
    if (c->exit_code == SC_PROTO_EXIT_OK) {
        judge_answer(r, c, ANS_OUTPUT, out, NULL, NULL);
    } else if (c->exit_code == SC_PROTO_EXIT_REJECTED) {
        const char *code = only_string(out, "error");
        if (code == NULL) {
            set_result(c, SC_ST_FAIL,
                       "exit status 1, but stdout is not {\"error\": \"<code>\"}");
            keep_raw(c, p->out.data, p->out.len);
        } else
            judge_answer(r, c, ANS_ERROR, NULL, code, NULL);
    } else {
        const char *why = only_string(out, "unsupported");
        if (why == NULL) {
            set_result(c, SC_ST_FAIL, "exit status 77, but stdout is not "
                                      "{\"unsupported\": \"<reason>\"}");
            keep_raw(c, p->out.data, p->out.len);
        } else
            judge_answer(r, c, ANS_UNSUPPORTED, NULL, NULL, why);
    }
    sc_json_free(out);
}

/* A persistent response line: {"seq": N, "output"|"error"|"unsupported": ...}.
 * Returns 0 when the line was a well-formed response to seq (the case is
 * judged), -1 when it broke the protocol (the case failed as a crash). */
static int judge_response(const sc_run *r, sc_case *c, const char *line, size_t len,
                          unsigned long seq)
{
    sc_json *doc = NULL;
    sc_error err;
    sc_error_clear(&err);
    if (sc_json_parse_depth(line, len, SC_JSON_ENVELOPE_DEPTH, &doc, &err) != SC_OK) {
        crash(c, "the persistent adapter's response is not one JSON value: %s",
              err.message);
        keep_raw(c, line, len);
        return -1;
    }
    uint64_t got = 0;
    const sc_json *output = obj_get(doc, "output");
    const char *code = sc_json_cstr(obj_get(doc, "error"));
    const char *why = sc_json_cstr(obj_get(doc, "unsupported"));
    int rc = 0;
    if (doc->type != SC_JSON_OBJECT || !sc_json_uint53(obj_get(doc, "seq"), &got)) {
        crash(c, "the persistent adapter's response has no integer \"seq\"");
        rc = -1;
    } else if (got != seq) {
        crash(c, "the persistent adapter answered seq %llu to request %lu%s",
              (unsigned long long)got, seq,
              got + 1 == seq ? " (a second answer to the request before)" : "");
        rc = -1;
    } else if (doc->length != 2 || (output == NULL && code == NULL && why == NULL)) {
        crash(c, "the persistent adapter's response is not {\"seq\", and one of "
                 "\"output\" (an object), \"error\" or \"unsupported\" (strings)}");
        rc = -1;
    } else if (output != NULL && output->type != SC_JSON_OBJECT) {
        set_result(c, SC_ST_FAIL, "\"output\" is a JSON %s, not an object",
                   sc_json_type_name(output));
    } else if (output != NULL) {
        judge_answer(r, c, ANS_OUTPUT, output, NULL, NULL);
    } else if (code != NULL) {
        judge_answer(r, c, ANS_ERROR, NULL, code, NULL);
    } else {
        judge_answer(r, c, ANS_UNSUPPORTED, NULL, NULL, why);
    }
    if (rc != 0 || (output != NULL && output->type != SC_JSON_OBJECT))
        keep_raw(c, line, len);
    sc_json_free(doc);
    return rc;
}

static void apply_xfail(sc_case *c)
{
    if (c->xfail_reason == NULL)
        return;
    if (c->status == SC_ST_PASS) {
        set_result(c, SC_ST_XPASS, "passed, but listed as an expected failure (%s)",
                   c->xfail_reason);
    } else if (c->status == SC_ST_FAIL && c->crashed && !c->xfail_crash) {
        char *why = c->reason;
        c->reason = NULL;
        set_result(c, SC_ST_FAIL,
                   "%s (listed as an expected failure, but a crash is worse than the "
                   "failure listed: start the entry's reason with \"crash:\" to allow it)",
                   why ? why : "crash");
        free(why);
    } else if (c->status == SC_ST_FAIL) {
        char *why = c->reason;
        c->reason = NULL;
        set_result(c, SC_ST_XFAIL, "%s", why ? why : "failed");
        free(why);
    }
}
static int precheck(const sc_run *r, sc_case *c)
{
    if (c->load_error != NULL) {
        set_result(c, SC_ST_ERROR, "%s", c->load_error);
        return 1;
    }
    for (size_t i = 0; i < c->ninputs; i++) {
        char *path = sc_xjoin(c->dir, c->inputs[i].file);
        char hex[SC_SHA256_HEX_LEN + 1];
        unsigned char digest[SC_SHA256_LEN];
        sc_error derr;
        struct stat st;
        int rc;
        if (lstat(path, &st) != 0 || !S_ISREG(st.st_mode)) {
            set_result(c, SC_ST_ERROR, "input %s is missing or not a regular file",
                       c->inputs[i].file);
            rc = 1;
        } else if (sc_sha256_file(path, digest, &derr) != SC_OK) {
            set_result(c, SC_ST_ERROR, "input %s cannot be read: %s",
                       c->inputs[i].file, derr.message);
            rc = 1;
        } else if (sc_hex_lower(digest, SC_SHA256_LEN, hex),
                   strcmp(hex, c->inputs[i].sha256) != 0) {
            set_result(c, SC_ST_ERROR, "input %s has sha256 %s, case.json says %s",
                       c->inputs[i].file, hex, c->inputs[i].sha256);
            rc = 1;
        } else {
            rc = 0;
        }
        free(path);
        if (rc)
            return 1;
    }
    if (!array_has(obj_get(r->hello, "operations"), c->operation)) {
        set_result(c, SC_ST_UNSUPPORTED, "the adapter does not offer operation %s",
                   c->operation);
        return 1;
    }
    const sc_json *features = obj_get(r->hello, "features");
    if (features != NULL && c->requires != NULL) {
        for (size_t i = 0; i < c->requires->length; i++) {
            const char *f = sc_json_cstr(sc_json_at(c->requires, i));
            if (!array_has(features, f)) {
                set_result(c, SC_ST_UNSUPPORTED, "the adapter does not claim feature %s", f);
                return 1;
            }
        }
    }
    return 0;
}

/* ---- output ------------------------------------------------------------ */

/* Text from an adapter, made safe for a terminal: valid UTF-8, and control
 * characters (escape sequences included) shown as '?'. */
static char *for_terminal(const char *s, size_t len)
{
    char *t = sc_utf8_sanitize(s, len, 0);
    for (char *p = t; *p; p++)
        if (((unsigned char)*p < 0x20 && *p != '\t' && *p != '\n') || *p == 0x7f)
            *p = '?';
    return t;
}

static void print_case(const sc_run *r, const sc_case *c)
{
    if (c->status == SC_ST_PASS && !r->verbose)
        return;
    /* unsupported cases are summed up per area, unless --verbose */
    if (c->status == SC_ST_UNSUPPORTED && !r->verbose)
        return;
    if (r->quiet && c->status != SC_ST_FAIL && c->status != SC_ST_XPASS &&
        c->status != SC_ST_ERROR)
        return;
    char up[16];
    const char *name = sc_status_name(c->status);
    size_t i = 0;
    for (; name[i] && i < sizeof up - 1; i++)
        up[i] = (char)(name[i] >= 'a' && name[i] <= 'z' ? name[i] - 32 : name[i]);
    up[i] = '\0';
    char *reason = c->reason ? for_terminal(c->reason, strlen(c->reason)) : NULL;
    if (c->status == SC_ST_XFAIL)
        printf("%-11s %s: %s [xfail: %s]\n", up, c->label, reason ? reason : "",
               c->xfail_reason);
    else if (reason != NULL)
        printf("%-11s %s: %s\n", up, c->label, reason);
    else
        printf("%-11s %s\n", up, c->label);
    free(reason);
    if (r->verbose && c->status != SC_ST_PASS && c->stderr_excerpt != NULL &&
        c->stderr_excerpt[0] != '\0') {
        char *text = for_terminal(c->stderr_excerpt, strlen(c->stderr_excerpt));
        const char *s = text;
        while (*s) {
            const char *nl = strchr(s, '\n');
            size_t n = nl ? (size_t)(nl - s) : strlen(s);
            printf("            | %.*s\n", (int)n, s);
            s += n + (nl ? 1 : 0);
        }
        free(text);
    }
}

/* One line per area with unsupported cases: how many, and why (each
 * distinct reason with its count, in order of first appearance). */
static void print_unsupported(const sc_run *r)
{
    size_t from = 0;
    while (from < r->nselected) {
        size_t to = from;
        while (to < r->nselected &&
               strcmp(r->selected[to]->area, r->selected[from]->area) == 0)
            to++;
        size_t n = 0;
        sc_buf line = {0};
        for (size_t i = from; i < to; i++) {
            const sc_case *c = r->selected[i];
            if (c->status != SC_ST_UNSUPPORTED)
                continue;
            n++;
            int seen = 0;
            for (size_t j = from; j < i && !seen; j++)
                seen = r->selected[j]->status == SC_ST_UNSUPPORTED &&
                       strcmp(r->selected[j]->reason, c->reason) == 0;
            if (seen)
                continue;
            size_t same = 0;
            for (size_t j = i; j < to; j++)
                same += r->selected[j]->status == SC_ST_UNSUPPORTED &&
                        strcmp(r->selected[j]->reason, c->reason) == 0;
            char *why = for_terminal(c->reason, strlen(c->reason));
            sc_buf_printf(&line, "%s%zu: %s", line.len ? "; " : "", same, why);
            free(why);
        }
        if (n > 0)
            printf("%-11s %s/* (%zu case%s, --verbose lists them): %s\n", "UNSUPPORTED",
                   r->selected[from]->area, n, n == 1 ? "" : "s", sc_buf_str(&line));
        sc_buf_free(&line);
        from = to;
    }
}

static void print_summary(const sc_run *r)
{
    printf("\n%-16s %6s %6s %6s %6s %6s %6s\n", "area", "pass", "fail", "xfail",
           "xpass", "unsup", "error");
    size_t from = 0;
    while (from < r->nselected) {
        size_t to = from;
        while (to < r->nselected &&
               strcmp(r->selected[to]->area, r->selected[from]->area) == 0)
            to++;
        sc_tally t;
        sc_tally_range(r, from, to, &t);
        printf("%-16s %6zu %6zu %6zu %6zu %6zu %6zu\n", r->selected[from]->area,
               t.pass, t.fail, t.xfail, t.xpass, t.unsupported, t.error);
        from = to;
    }
}

/* ---- one process per case ---------------------------------------------- */

typedef struct job {
    sc_proc proc;
    sc_case *c;
    char *work;
    int active;
    /* persistent mode */
    int running;        /* proc holds a started adapter */
    unsigned long seq;  /* of the request in flight */
} job;

static void remove_work(job *j)
{
    if (j->work != NULL && sc_rmtree(j->work) != 0)
        fprintf(stderr, "warning: cannot remove work directory %s: %s\n", j->work,
                strerror(errno));
    free(j->work);
    j->work = NULL;
}

/* The next case that needs the adapter, with its fresh work directory; the
 * cases settled without it (precheck) are judged on the way.  NULL: none. */
static sc_case *next_case(const sc_run *r, size_t *next, const char *tmp, char **work)
{
    while (*next < r->nselected) {
        sc_case *c = r->selected[(*next)++];
        if (precheck(r, c)) {
            apply_xfail(c);
            continue;
        }
        sc_buf tmpl = {0};
        sc_buf_printf(&tmpl, "%s/case-XXXXXX", tmp);
        if (mkdtemp(tmpl.data) == NULL) {
            set_result(c, SC_ST_ERROR, "cannot create a work directory: %s",
                       strerror(errno));
            sc_buf_free(&tmpl);
            continue;
        }
        *work = tmpl.data;
        return c;
    }
    return NULL;
}

static void print_ready(const sc_run *r, size_t *printed)
{
    while (*printed < r->nselected && r->selected[*printed]->status != SC_ST_PENDING)
        print_case(r, r->selected[(*printed)++]);
    fflush(stdout);
}

static void run_oneshot(sc_run *r, const char *tmp)
{
    job *jobs = sc_xmalloc(sizeof *jobs * (size_t)r->jobs);
    sc_proc **procs = sc_xmalloc(sizeof *procs * (size_t)r->jobs);
    memset(jobs, 0, sizeof *jobs * (size_t)r->jobs);
    size_t next = 0, printed = 0;
    for (;;) {
        for (int s = 0; s < r->jobs && next < r->nselected && !stop_signal; s++) {
            if (jobs[s].active)
                continue;
            sc_case *c;
            char *work = NULL;
            while ((c = next_case(r, &next, tmp, &work)) != NULL) {
                char **argv = adapter_argv_for(r, c->operation, c->dir, work);
                int started = sc_proc_start(&jobs[s].proc, argv, NULL,
                                            r->timeout_s * 1000.0);
                free(argv);
                if (started != 0) {
                    set_result(c, SC_ST_ERROR, "cannot start the adapter: %s",
                               strerror(errno));
                    sc_rmtree(work);
                    free(work);
                    continue;
                }
                jobs[s].c = c;
                jobs[s].work = work;
                jobs[s].active = 1;
                break;
            }
        }
        print_ready(r, &printed);
        size_t n = 0;
        for (int s = 0; s < r->jobs; s++)
            if (jobs[s].active)
                procs[n++] = &jobs[s].proc;
        if (n == 0)
            break;
        sc_proc_pump(procs, n);
        if (stop_signal) {
            for (int s = 0; s < r->jobs; s++) {
                if (!jobs[s].active)
                    continue;
                sc_proc_release(&jobs[s].proc);
                remove_work(&jobs[s]);
                jobs[s].active = 0;
            }
            break;
        }
        for (int s = 0; s < r->jobs; s++) {
            job *j = &jobs[s];
            if (!j->active || !j->proc.done)
                continue;
            judge_process(r, j->c, &j->proc);
            apply_xfail(j->c);
            sc_proc_release(&j->proc);
            remove_work(j);
            j->active = 0;
        }
    }
    free(jobs);
    free(procs);
}

/* ---- persistent adapters (README 3.8) ----------------------------------- */

static int start_persistent(sc_run *r, job *j)
{
    char **argv = adapter_argv_for(r, "--persistent", NULL, NULL);
    int rc = sc_proc_start_io(&j->proc, argv, NULL, r->timeout_s * 1000.0, 1);
    free(argv);
    if (rc == 0)
        j->running = 1;
    return rc;
}

static void stop_persistent(job *j)
{
    if (j->running)
        sc_proc_release(&j->proc);
    j->running = 0;
}

static int write_all(int fd, const char *s, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, s, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        s += w;
        n -= (size_t)w;
    }
    return 0;
}

/* Send the request of j->c; 0, or -1 when the adapter is gone. */
static int send_request(job *j)
{
    sc_json *req = cf_json_must(sc_json_new_object());
    cf_json_put(req, "seq", sc_json_new_number((double)j->seq));
    cf_json_put(req, "operation", sc_json_new_string(j->c->operation));
    cf_json_put(req, "case", sc_json_new_string(j->c->dir));
    cf_json_put(req, "work", sc_json_new_string(j->work));
    char *text = NULL;
    size_t len = 0;
    int rc = -1;
    if (sc_json_write_compact(req, &text, &len, NULL) == SC_OK && text != NULL) {
        sc_buf line = {0};
        sc_buf_add(&line, text, len);
        sc_buf_add(&line, "\n", 1);
        /* the answer and the diagnostics of this request only */
        j->proc.out.len = 0;
        j->proc.out_total = 0;
        j->proc.err.len = 0;
        j->proc.err_total = 0;
        j->proc.start_ms = sc_now_ms();
        rc = write_all(j->proc.in_fd, line.data, line.len);
        sc_buf_free(&line);
    }
    free(text);
    sc_json_free(req);
    return rc;
}

static void persistent_done(sc_run *r, job *j)
{
    sc_case *c = j->c;
    c->start_ms = j->proc.start_ms;
    c->end_ms = sc_now_ms();
    c->duration_ms = c->end_ms - c->start_ms;
    c->stderr_excerpt = excerpt(&j->proc);
    apply_xfail(c);
    remove_work(j);
    j->active = 0;
    (void)r;
}

static void run_persistent(sc_run *r, const char *tmp)
{
    job *jobs = sc_xmalloc(sizeof *jobs * (size_t)r->jobs);
    sc_proc **procs = sc_xmalloc(sizeof *procs * (size_t)r->jobs);
    memset(jobs, 0, sizeof *jobs * (size_t)r->jobs);
    size_t next = 0, printed = 0;
    for (;;) {
        for (int s = 0; s < r->jobs && next < r->nselected && !stop_signal; s++) {
            job *j = &jobs[s];
            if (j->active)
                continue;
            char *work = NULL;
            sc_case *c = next_case(r, &next, tmp, &work);
            if (c == NULL)
                break;
            j->c = c;
            j->work = work;
            j->seq++;
            /* a fresh adapter when none runs, and one retry when the old one
             * turns out to be gone (it may have exited after its last answer) */
            int sent = -1, fresh = 0;
            for (int attempt = 0; attempt < 2 && sent != 0; attempt++) {
                fresh = !j->running;
                if (fresh && start_persistent(r, j) != 0)
                    break;
                sent = send_request(j);
                if (sent != 0 && fresh) {
                    /* A fresh adapter that is gone before the request
                     * reached it is judged by what it printed and how it
                     * ended, as if the write had won the race: whether
                     * the write fails or lands in the pipe first must not
                     * change the verdict. */
                    sc_proc_close_stdin(&j->proc);
                    sent = 0;
                } else if (sent != 0) {
                    stop_persistent(j);
                    r->restarts++;
                }
            }
            if (sent != 0) {
                set_result(c, SC_ST_ERROR, "cannot start the persistent adapter or "
                                           "send it the request: %s", strerror(errno));
                remove_work(j);
                continue;
            }
            j->proc.deadline_ms = j->proc.start_ms + r->timeout_s * 1000.0;
            j->active = 1;
        }
        print_ready(r, &printed);
        size_t n = 0;
        for (int s = 0; s < r->jobs; s++)
            if (jobs[s].active)
                procs[n++] = &jobs[s].proc;
        if (n == 0)
            break;
        sc_proc_pump(procs, n);
        if (stop_signal) {
            for (int s = 0; s < r->jobs; s++) {
                if (jobs[s].active)
                    remove_work(&jobs[s]);
                stop_persistent(&jobs[s]);
                jobs[s].active = 0;
            }
            break;
        }
        for (int s = 0; s < r->jobs; s++) {
            job *j = &jobs[s];
            if (!j->active)
                continue;
            sc_proc *p = &j->proc;
            const char *nl = p->out.len ? memchr(p->out.data, '\n', p->out.len) : NULL;
            if (nl != NULL) {
                size_t len = (size_t)(nl - p->out.data);
                int broken = judge_response(r, j->c, p->out.data, len, j->seq);
                if (broken == 0 && len + 1 != p->out.len) {
                    crash(j->c, "the persistent adapter wrote more than one line");
                    broken = -1;
                }
                persistent_done(r, j);
                if (broken != 0) {
                    stop_persistent(j);
                    r->restarts++;
                }
            } else if (p->out_total > SC_PROC_STDOUT_MAX) {
                crash(j->c, "the persistent adapter's response is longer than %zu bytes",
                      SC_PROC_STDOUT_MAX);
                persistent_done(r, j);
                stop_persistent(j);
                r->restarts++;
            } else if (p->done) {
                /* Judged once both pipes are drained to their end, never on
                 * the exit alone: a line written just before the exit may
                 * still sit in the pipe when the exit is seen, and the
                 * verdict must not depend on which the runner noticed
                 * first. */
                if (p->timed_out)
                    crash(j->c, "timed out after %g s (the adapter's process group was "
                                "killed; a fresh adapter takes the next case)",
                          r->timeout_s);
                else if (WIFSIGNALED(p->status))
                    crash(j->c, "the persistent adapter was killed by signal %d (%s) "
                                "before answering",
                          WTERMSIG(p->status), strsignal(WTERMSIG(p->status)));
                else
                    crash(j->c, "the persistent adapter exited with status %d before "
                                "answering",
                          WEXITSTATUS(p->status));
                if (WIFEXITED(p->status))
                    j->c->exit_code = WEXITSTATUS(p->status);
                if (WIFSIGNALED(p->status))
                    j->c->signal = WTERMSIG(p->status);
                persistent_done(r, j);
                stop_persistent(j);
                r->restarts++;
            }
        }
    }
    /* EOF on stdin ends a persistent adapter; a short grace, then the kill */
    for (int s = 0; s < r->jobs; s++) {
        job *j = &jobs[s];
        if (!j->running)
            continue;
        sc_proc_close_stdin(&j->proc);
        j->proc.deadline_ms = sc_now_ms() + SC_PROC_LINGER_MS;
        j->proc.err.len = 0;
        j->proc.err_total = 0;
        sc_proc *const one[1] = {&j->proc};
        while (!j->proc.done && !stop_signal)
            sc_proc_pump(one, 1);
        /* A sanitizer's leak report or a crash at exit shows only here: it
         * fails the run, though no case can be blamed for it. */
        int st = j->proc.status;
        if (!stop_signal && (j->proc.timed_out || !WIFEXITED(st) || WEXITSTATUS(st) != 0)) {
            char *e = excerpt(&j->proc);
            if (j->proc.timed_out)
                add_warning(r, "a persistent adapter did not exit within %g s of the end "
                               "of its input", SC_PROC_LINGER_MS / 1000.0);
            else if (WIFSIGNALED(st))
                add_warning(r, "a persistent adapter was killed by signal %d at the end "
                               "of its input", WTERMSIG(st));
            else
                add_warning(r, "a persistent adapter exited with status %d at the end "
                               "of its input", WEXITSTATUS(st));
            if (e[0] != '\0')
                fprintf(stderr, "%s", e);
            free(e);
            r->shutdown_failures++;
        }
        stop_persistent(j);
    }
    free(jobs);
    free(procs);
}

void sc_tally_range(const sc_run *r, size_t from, size_t to, sc_tally *t)
{
    memset(t, 0, sizeof *t);
    for (size_t i = from; i < to; i++) {
        switch (r->selected[i]->status) {
        case SC_ST_PASS: t->pass++; break;
        case SC_ST_FAIL: t->fail++; break;
        case SC_ST_XFAIL: t->xfail++; break;
        case SC_ST_XPASS: t->xpass++; break;
        case SC_ST_UNSUPPORTED: t->unsupported++; break;
        case SC_ST_ERROR: t->error++; break;
        case SC_ST_PENDING: break;
        }
    }
}

/* ---- main -------------------------------------------------------------- */

static void append(const char ***v, size_t *n, const char *s)
{
    *v = sc_xrealloc((void *)*v, sizeof **v * (*n + 1));
    (*v)[(*n)++] = s;
}

/* The option an argument names ("--x", "--x=v", "-x"), or NULL. */
static const opt *find_option(const char *a, const char **inline_value)
{
    *inline_value = NULL;
    for (size_t i = 0; i < NOPTIONS; i++) {
        const opt *o = &options[i];
        size_t n = strlen(o->name);
        if (strncmp(a, o->name, n) == 0 && (a[n] == '\0' || (a[n] == '=' && o->argument))) {
            if (a[n] == '=')
                *inline_value = a + n + 1;
            return o;
        }
        if (o->shortname != NULL && strcmp(a, o->shortname) == 0)
            return o;
    }
    return NULL;
}

int main(int argc, char **argv)
{
    sc_run run;
    memset(&run, 0, sizeof run);
    run.suite_version = SC_CONFORMANCE_VERSION;
    run.timeout_s = 30;
    run.jobs = 2;
    const char *adapter = NULL, *corpus = NULL, *xfail = NULL, *mode = "auto";
    const char *report_json = NULL, *report_junit = NULL, *report_tap = NULL,
               *report_github = NULL, *report_html = NULL;
    const char **compare = NULL; /* --compare REPORT... */
    size_t ncompare = 0;
    const char **words = NULL; /* --adapter-arg and the argv after -- */
    size_t nwords = 0;
    int list = 0;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--") == 0) {
            for (i++; i < argc; i++)
                append(&words, &nwords, argv[i]);
            break;
        }
        const char *v = NULL;
        const opt *o = find_option(a, &v);
        if (o == NULL) {
            fprintf(stderr, "scrollcase-conform: unknown argument %s\n", a);
            usage(stderr);
            return EXIT_SETUP;
        }
        if (o->argument != NULL && v == NULL) {
            if (i + 1 >= argc)
                die_setup("%s needs a value (%s)", o->name, o->argument);
            v = argv[++i];
        }
        switch (o->id) {
        case O_HELP: usage(stdout); return 0;
        case O_OPTIONS_JSON: return options_json();
        case O_PROTOCOL_JSON: return protocol_json();
        case O_ADAPTER: adapter = v; break;
        case O_ADAPTER_ARG: append(&words, &nwords, v); break;
        case O_CORPUS: corpus = v; break;
        case O_AREA: append(&run.areas, &run.nareas, v); break;
        case O_CASE: append(&run.case_globs, &run.ncase_globs, v); break;
        case O_SHARD: run.shard = v; break;
        case O_SUITE_VERSION:
            run.suite_filter = v;
            if (sc_semver_cmp(v, "0.0.0") == -2)
                die_setup("--suite-version %s: expected MAJOR.MINOR.PATCH", v);
            break;
        case O_XFAIL: xfail = v; break;
        case O_MODE:
            if (strcmp(v, "auto") != 0 && strcmp(v, "oneshot") != 0 &&
                strcmp(v, "persistent") != 0)
                die_setup("--mode %s: expected auto, oneshot or persistent", v);
            mode = v;
            break;
        case O_REPORT_JSON: report_json = v; break;
        case O_REPORT_JUNIT: report_junit = v; break;
        case O_REPORT_TAP: report_tap = v; break;
        case O_REPORT_GITHUB: report_github = v; break;
        case O_REPORT_HTML: report_html = v; break;
        case O_COMPARE: append(&compare, &ncompare, v); break;
        case O_LIST: list = 1; break;
        case O_ALLOW_EMPTY: run.allow_empty = 1; break;
        case O_QUIET: run.quiet = 1; break;
        case O_VERBOSE: run.verbose = 1; break;
        case O_TIMEOUT: {
            char *end;
            run.timeout_s = strtod(v, &end);
            if (end == v || *end != '\0' || !(run.timeout_s > 0) || run.timeout_s > 86400)
                die_setup("--timeout %s: expected seconds in (0, 86400]", v);
            break;
        }
        case O_JOBS: {
            char *end;
            long n = strtol(v, &end, 10);
            if (end == v || *end != '\0' || n < 1 || n > 256)
                die_setup("--jobs %s: expected 1..256", v);
            run.jobs = (int)n;
            break;
        }
        }
    }
    if (run.quiet && run.verbose)
        die_setup("--quiet and --verbose exclude each other");
    if (adapter != NULL && nwords > 0)
        die_setup("give the adapter either as --adapter CMD or as an argv "
                  "(--adapter-arg ARG... or after --), not both");
    if (nwords > 0 && words[0][0] == '\0')
        die_setup("the adapter's argv starts with an empty word");

    if (ncompare > 0) {
        if (report_html == NULL)
            die_setup("--compare needs --report-html FILE (the page it writes)");
        if (report_json != NULL || report_junit != NULL || report_tap != NULL ||
            report_github != NULL || list || adapter != NULL || nwords > 0)
            die_setup("--compare runs nothing: give it --report-html only");
        int crc = sc_report_html_compare(compare, ncompare, report_html);
        free(compare);
        free(words);
        free(run.areas);
        free(run.case_globs);
        return crc == 0 ? 0 : EXIT_SETUP;
    }
    free(compare);

    if (corpus == NULL)
        corpus = getenv("SCROLLCASE_CORPUS");
    char *installed_corpus = NULL;
    if (corpus == NULL || corpus[0] == '\0')
        corpus = installed_corpus = default_corpus(argv[0]);
    if (corpus == NULL || corpus[0] == '\0')
        die_setup("no corpus: give --corpus or set SCROLLCASE_CORPUS");
    char abs[PATH_MAX];
    if (realpath(corpus, abs) == NULL)
        die_setup("corpus %s not found", corpus);
    run.corpus_dir = sc_xstrdup(abs);
    free(installed_corpus);

    char msg[512];
    if (sc_corpus_load(run.corpus_dir, &run.corpus, msg, sizeof msg) != 0)
        die_setup("%s", msg);
    select_cases(&run);

    if (list) {
        for (size_t i = 0; i < run.nselected; i++)
            printf("%s\n", run.selected[i]->label);
        sc_corpus_free(&run.corpus);
        free(run.selected);
        free(run.corpus_dir);
        free(run.areas);
        free(run.case_globs);
        free(words);
        return 0;
    }

    if (xfail != NULL) {
        load_xfails(&run, xfail);
        apply_xfails(&run, xfail);
    }

    const char **argvv = NULL;
    size_t nargv = 0;
    if (nwords > 0) {
        for (size_t i = 0; i < nwords; i++)
            append(&argvv, &nargv, sc_xstrdup(words[i]));
    } else if (adapter != NULL) {
        split_command(adapter, &argvv, &nargv);
    } else {
        char *builtin = default_adapter(argv[0]);
        if (builtin == NULL || access(builtin, X_OK) != 0)
            die_setup("the built-in adapter %s is missing; give --adapter",
                      builtin ? builtin : "scrollcase-adapter");
        append(&argvv, &nargv, builtin);
    }
    free(words);
    append(&argvv, &nargv, NULL);
    run.adapter_argv = (char **)argvv;
    run.adapter_argc = nargv - 1;

    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    signal(SIGPIPE, SIG_IGN); /* a dead persistent adapter: EPIPE, not death */
    if (sc_proc_setup() != 0)
        die_setup("cannot set up child handling: %s", strerror(errno));

    const char *tmpdir = getenv("TMPDIR");
    sc_buf tmp = {0};
    sc_buf_printf(&tmp, "%s/scrollcase-conform-XXXXXX",
                  tmpdir && tmpdir[0] ? tmpdir : "/tmp");
    if (mkdtemp(tmp.data) == NULL)
        die_setup("cannot create a temporary directory: %s", strerror(errno));

    hello(&run, mode);
    const sc_json *impl = obj_get(run.hello, "implementation");
    if (!run.quiet)
        printf("scrollcase-conform %s (protocol %s): %s %s (%s, protocol %d, %s), "
               "%zu of %zu cases\n",
               run.suite_version, SC_CONFORM_PROTOCOL,
               sc_json_cstr(obj_get(impl, "name")), sc_json_cstr(obj_get(impl, "version")),
               sc_json_cstr(obj_get(impl, "language")), run.adapter_protocol,
               run.persistent ? "persistent" : "one process per case", run.nselected,
               run.corpus.count);
    fflush(stdout);

    double t0 = sc_now_ms();
    if (run.persistent)
        run_persistent(&run, tmp.data);
    else
        run_oneshot(&run, tmp.data);
    run.wall_ms = sc_now_ms() - t0;
    if (sc_rmtree(tmp.data) != 0)
        fprintf(stderr, "warning: cannot remove %s: %s\n", tmp.data, strerror(errno));
    sc_buf_free(&tmp);
    if (stop_signal) {
        fprintf(stderr, "scrollcase-conform: interrupted\n");
        return 130;
    }

    if (!run.quiet) {
        if (!run.verbose)
            print_unsupported(&run);
        print_summary(&run);
    }
    int rc = 0;
    if (report_json != NULL && sc_report_json(&run, report_json) != 0)
        rc = EXIT_SETUP;
    if (report_junit != NULL && sc_report_junit(&run, report_junit) != 0)
        rc = EXIT_SETUP;
    if (report_tap != NULL && sc_report_tap(&run, report_tap) != 0)
        rc = EXIT_SETUP;
    if (report_github != NULL && sc_report_github(&run, report_github) != 0)
        rc = EXIT_SETUP;
    if (report_html != NULL && sc_report_html(&run, report_html) != 0)
        rc = EXIT_SETUP;

    sc_tally t;
    sc_tally_range(&run, 0, run.nselected, &t);
    size_t passed = t.pass + t.xfail, failed = t.fail + t.xpass + t.error,
           skipped = t.unsupported;
    fflush(stderr);
    printf("%zu passed, %zu failed, %zu skipped\n", passed, failed, skipped);
    fflush(stdout);
    if (rc == 0 && failed > 0)
        rc = EXIT_FAILED;
    if (rc == 0 && run.shutdown_failures > 0)
        rc = EXIT_FAILED; /* warned above: an adapter failed at its exit */
    if (rc == 0 && passed + failed == 0 && !run.allow_empty) {
        fprintf(stderr, "scrollcase-conform: no case ran (give --allow-empty when an "
                        "empty selection is fine)\n");
        rc = EXIT_FAILED;
    }

    for (size_t i = 0; run.adapter_argv[i] != NULL; i++)
        free(run.adapter_argv[i]);
    free(run.adapter_argv);
    for (size_t i = 0; i < run.nxfails; i++) {
        free(run.xfails[i].pattern);
        free(run.xfails[i].reason);
    }
    free(run.xfails);
    for (size_t i = 0; i < run.nwarnings; i++)
        free(run.warnings[i]);
    free(run.warnings);
    sc_json_free(run.hello);
    sc_corpus_free(&run.corpus);
    free(run.selected);
    free(run.corpus_dir);
    free(run.areas);
    free(run.case_globs);
    return rc;
}
