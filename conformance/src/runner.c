/* SPDX-License-Identifier: Apache-2.0 */
/*
 * runner.c — scrollcase-conform, the conformance runner.
 *
 * Reads the corpus, runs one adapter process per case (several at once),
 * compares what each one printed and how it exited with what case.json
 * expects, and reports.  The protocol is conformance/README.md.
 *
 * Exit status: 0 when nothing failed and at least one case ran; 1 when a
 * case failed (fail, xpass, error) or none ran; 2 on a usage or setup
 * problem (bad option, unreadable corpus or xfail file, adapter without a
 * working --hello); 130 when interrupted.
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

static void usage(FILE *f)
{
    fputs(
        "usage: scrollcase-conform [options]\n"
        "  --adapter CMD        adapter command, split on spaces (default: the built-in\n"
        "                       scrollcase-adapter next to this program)\n"
        "  --corpus DIR         case corpus (default: $SCROLLCASE_CORPUS, else the\n"
        "                       installed share/scrollcase/golden)\n"
        "  --area A             only cases of area A (repeatable)\n"
        "  --case ID|GLOB       only cases whose id or area/id matches (repeatable)\n"
        "  --shard I/N          only the I-th of N round-robin shards of the selection\n"
        "  --suite-version V    only cases whose \"since\" is at most V\n"
        "  --xfail FILE         expected failures: lines \"<id-or-glob> <reason>\"\n"
        "  --report-json F      write the JSON report to F\n"
        "  --report-junit F     write a JUnit XML report to F\n"
        "  --list               print the selected cases (area/id) and exit\n"
        "  --timeout SECONDS    per-case limit (default 30)\n"
        "  --jobs N             adapters run at once (default 2)\n"
        "  --verbose            a line for every case, stderr of failures\n"
        "  --help               this text\n",
        f);
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

/* Split on spaces.  The adapter runs in the runner's working directory, so
 * relative paths in the command mean what they meant to the caller. */
static char **split_command(const char *cmd, size_t *count)
{
    char **v = NULL;
    size_t n = 0;
    const char *p = cmd;
    while (*p) {
        while (*p == ' ')
            p++;
        if (*p == '\0')
            break;
        const char *start = p;
        while (*p && *p != ' ')
            p++;
        v = sc_xrealloc(v, sizeof *v * (n + 2));
        v[n++] = sc_xstrndup(start, (size_t)(p - start));
    }
    if (n == 0)
        die_setup("--adapter: empty command");
    v[n] = NULL;
    *count = n;
    return v;
}

static char **adapter_argv_for(const sc_run *r, size_t nbase, const char *op,
                               const char *case_dir, const char *work)
{
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
            if (c->xfail_reason == NULL)
                c->xfail_reason = x->reason;
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

static void hello(sc_run *r, size_t nbase)
{
    char **argv = adapter_argv_for(r, nbase, "--hello", NULL, NULL);
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
    sc_json *doc = NULL;
    sc_error err;
    sc_error_clear(&err);
    if (p.timed_out)
        problem = "timed out";
    else if (!WIFEXITED(p.status) || WEXITSTATUS(p.status) != 0)
        problem = "did not exit with status 0";
    else if (sc_json_parse(p.out.data ? p.out.data : "", p.out.len, &doc, &err) != SC_OK)
        problem = "did not print a JSON document";
    else if (doc->type != SC_JSON_OBJECT)
        problem = "did not print a JSON object";
    if (problem == NULL) {
        uint64_t proto;
        const sc_json *impl = obj_get(doc, "implementation");
        if (!sc_json_uint53(obj_get(doc, "protocol"), &proto))
            problem = "has no integer \"protocol\"";
        else if (proto != SC_CONFORM_PROTOCOL_MAJOR)
            problem = "speaks another protocol major version (this runner speaks 1)";
        else if (sc_json_cstr(obj_get(impl, "name")) == NULL ||
                 sc_json_cstr(obj_get(impl, "version")) == NULL ||
                 sc_json_cstr(obj_get(impl, "language")) == NULL)
            problem = "lacks implementation.name, .version or .language (strings)";
        else if (!str_array(obj_get(doc, "operations")))
            problem = "lacks \"operations\" (an array of strings)";
        else if (obj_get(doc, "features") != NULL && !str_array(obj_get(doc, "features")))
            problem = "has \"features\" that is not an array of strings";
    }
    if (problem != NULL) {
        char *e = sc_utf8_sanitize(p.err.data ? p.err.data : "", p.err.len, 0);
        fprintf(stderr, "scrollcase-conform: adapter --hello %s%s%s\n%s", problem,
                err.message[0] ? ": " : "", err.message, e);
        free(e);
        sc_json_free(doc);
        sc_proc_release(&p);
        exit(EXIT_SETUP);
    }
    sc_proc_release(&p);
    r->hello = doc;
}

/* ---- judging one result ------------------------------------------------ */

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

static void judge(sc_case *c, const sc_proc *p, double timeout_s)
{
    c->duration_ms = p->end_ms - p->start_ms;
    c->stderr_excerpt = excerpt(p);
    if (WIFEXITED(p->status))
        c->exit_code = WEXITSTATUS(p->status);
    if (WIFSIGNALED(p->status))
        c->signal = WTERMSIG(p->status);

    if (p->timed_out) {
        set_result(c, SC_ST_FAIL, "crash: timed out after %g s (process group killed)",
                   timeout_s);
        return;
    }
    if (c->signal != 0) {
        set_result(c, SC_ST_FAIL, "crash: killed by signal %d (%s)", c->signal,
                   strsignal(c->signal));
        return;
    }
    if (p->pipes_held) {
        set_result(c, SC_ST_FAIL,
                   "crash: the adapter exited but a descendant kept its output open");
        return;
    }
    if (c->exit_code == 2) {
        set_result(c, SC_ST_UNSUPPORTED, "adapter: operation or feature unsupported");
        return;
    }
    if (c->exit_code != 0 && c->exit_code != 1) {
        set_result(c, SC_ST_FAIL, "crash: exit status %d", c->exit_code);
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
    if (sc_json_parse(p->out.data ? p->out.data : "", p->out.len, &out, &err) != SC_OK) {
        set_result(c, SC_ST_FAIL, "stdout (exit status %d) is not one JSON value: %s",
                   c->exit_code, err.message);
        return;
    }
    if (out->type != SC_JSON_OBJECT) {
        set_result(c, SC_ST_FAIL, "stdout (exit status %d) is a JSON %s, not an object",
                   c->exit_code, sc_json_type_name(out));
        sc_json_free(out);
        return;
    }
    int acceptable = strcmp(c->kind, "acceptable") == 0;
    char *want = c->error_codes ? codes_text(c->error_codes) : sc_xstrdup("");

    if (c->exit_code == 0) {
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
        const sc_json *code_v = obj_get(out, "error");
        const char *code = sc_json_cstr(code_v);
        sc_code k = sc_code_from_name(code);
        if (out->length != 1 || code == NULL) {
            set_result(c, SC_ST_FAIL,
                       "exit status 1, but stdout is not {\"error\": \"<code>\"}");
        } else if (k == SC_CODE_COUNT_ || k == SC_OK) {
            char *b = brief(code_v);
            set_result(c, SC_ST_FAIL, "rejected with %s, which is not an error code", b);
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
    sc_json_free(out);
}

static void apply_xfail(sc_case *c)
{
    if (c->xfail_reason == NULL)
        return;
    if (c->status == SC_ST_PASS) {
        set_result(c, SC_ST_XPASS, "passed, but listed as an expected failure (%s)",
                   c->xfail_reason);
    } else if (c->status == SC_ST_FAIL) {
        char *why = c->reason;
        c->reason = NULL;
        set_result(c, SC_ST_XFAIL, "%s", why ? why : "failed");
        free(why);
    }
}

/* Checks that need no adapter: returns 1 when the case is settled. */
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

/* ---- the run loop ------------------------------------------------------ */

typedef struct job {
    sc_proc proc;
    sc_case *c;
    char *work;
    int active;
} job;

static void finish_job(const sc_run *r, job *j)
{
    judge(j->c, &j->proc, r->timeout_s);
    apply_xfail(j->c);
    sc_proc_release(&j->proc);
    if (sc_rmtree(j->work) != 0)
        fprintf(stderr, "warning: cannot remove work directory %s: %s\n", j->work,
                strerror(errno));
    free(j->work);
    j->work = NULL;
    j->active = 0;
}

static void run_cases(sc_run *r, size_t nbase, const char *tmp)
{
    job *jobs = sc_xmalloc(sizeof *jobs * (size_t)r->jobs);
    sc_proc **procs = sc_xmalloc(sizeof *procs * (size_t)r->jobs);
    memset(jobs, 0, sizeof *jobs * (size_t)r->jobs);
    size_t next = 0, printed = 0;
    for (;;) {
        /* fill free slots */
        for (int s = 0; s < r->jobs && next < r->nselected && !stop_signal; s++) {
            if (jobs[s].active)
                continue;
            while (next < r->nselected) {
                sc_case *c = r->selected[next++];
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
                char **argv = adapter_argv_for(r, nbase, c->operation, c->dir, tmpl.data);
                if (sc_proc_start(&jobs[s].proc, argv, NULL,
                                  r->timeout_s * 1000.0) != 0) {
                    set_result(c, SC_ST_ERROR, "cannot start the adapter: %s",
                               strerror(errno));
                    free(argv);
                    sc_rmtree(tmpl.data);
                    sc_buf_free(&tmpl);
                    continue;
                }
                free(argv);
                jobs[s].c = c;
                jobs[s].work = tmpl.data;
                jobs[s].active = 1;
                break;
            }
        }
        /* print what is complete, in order */
        while (printed < r->nselected && r->selected[printed]->status != SC_ST_PENDING)
            print_case(r, r->selected[printed++]);
        fflush(stdout);

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
                sc_rmtree(jobs[s].work);
                free(jobs[s].work);
                jobs[s].active = 0;
            }
            break;
        }
        for (int s = 0; s < r->jobs; s++)
            if (jobs[s].active && jobs[s].proc.done)
                finish_job(r, &jobs[s]);
    }
    free(jobs);
    free(procs);
}

/* ---- main -------------------------------------------------------------- */

static const char *need_value(int argc, char **argv, int *i, const char *opt)
{
    size_t n = strlen(opt);
    if (strncmp(argv[*i], opt, n) == 0 && argv[*i][n] == '=')
        return argv[*i] + n + 1;
    if (*i + 1 >= argc)
        die_setup("%s needs a value", opt);
    return argv[++*i];
}

static int is_opt(const char *arg, const char *opt)
{
    size_t n = strlen(opt);
    return strncmp(arg, opt, n) == 0 && (arg[n] == '\0' || arg[n] == '=');
}

static void append(const char ***v, size_t *n, const char *s)
{
    *v = sc_xrealloc((void *)*v, sizeof **v * (*n + 1));
    (*v)[(*n)++] = s;
}

int main(int argc, char **argv)
{
    sc_run run;
    memset(&run, 0, sizeof run);
    run.suite_version = SC_CONFORMANCE_VERSION;
    run.timeout_s = 30;
    run.jobs = 2;
    const char *adapter = NULL, *corpus = NULL, *xfail = NULL;
    const char *report_json = NULL, *report_junit = NULL;
    int list = 0;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            return 0;
        } else if (is_opt(a, "--adapter")) {
            adapter = need_value(argc, argv, &i, "--adapter");
        } else if (is_opt(a, "--corpus")) {
            corpus = need_value(argc, argv, &i, "--corpus");
        } else if (is_opt(a, "--area")) {
            append(&run.areas, &run.nareas, need_value(argc, argv, &i, "--area"));
        } else if (is_opt(a, "--case")) {
            append(&run.case_globs, &run.ncase_globs, need_value(argc, argv, &i, "--case"));
        } else if (is_opt(a, "--shard")) {
            run.shard = need_value(argc, argv, &i, "--shard");
        } else if (is_opt(a, "--suite-version")) {
            run.suite_filter = need_value(argc, argv, &i, "--suite-version");
            if (sc_semver_cmp(run.suite_filter, "0.0.0") == -2)
                die_setup("--suite-version %s: expected MAJOR.MINOR.PATCH", run.suite_filter);
        } else if (is_opt(a, "--xfail")) {
            xfail = need_value(argc, argv, &i, "--xfail");
        } else if (is_opt(a, "--report-json")) {
            report_json = need_value(argc, argv, &i, "--report-json");
        } else if (is_opt(a, "--report-junit")) {
            report_junit = need_value(argc, argv, &i, "--report-junit");
        } else if (strcmp(a, "--list") == 0) {
            list = 1;
        } else if (strcmp(a, "--verbose") == 0 || strcmp(a, "-v") == 0) {
            run.verbose = 1;
        } else if (is_opt(a, "--timeout")) {
            const char *v = need_value(argc, argv, &i, "--timeout");
            char *end;
            run.timeout_s = strtod(v, &end);
            if (end == v || *end != '\0' || !(run.timeout_s > 0) || run.timeout_s > 86400)
                die_setup("--timeout %s: expected seconds in (0, 86400]", v);
        } else if (is_opt(a, "--jobs")) {
            const char *v = need_value(argc, argv, &i, "--jobs");
            char *end;
            long n = strtol(v, &end, 10);
            if (end == v || *end != '\0' || n < 1 || n > 256)
                die_setup("--jobs %s: expected 1..256", v);
            run.jobs = (int)n;
        } else {
            fprintf(stderr, "scrollcase-conform: unknown argument %s\n", a);
            usage(stderr);
            return EXIT_SETUP;
        }
    }

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
        return 0;
    }

    if (xfail != NULL) {
        load_xfails(&run, xfail);
        apply_xfails(&run, xfail);
    }

    char *adapter_owned = NULL;
    if (adapter == NULL) {
        adapter_owned = default_adapter(argv[0]);
        if (adapter_owned == NULL || access(adapter_owned, X_OK) != 0)
            die_setup("the built-in adapter %s is missing; give --adapter",
                      adapter_owned ? adapter_owned : "scrollcase-adapter");
        adapter = adapter_owned;
    }
    size_t nbase = 0;
    run.adapter_argv = split_command(adapter, &nbase);

    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    if (sc_proc_setup() != 0)
        die_setup("cannot set up child handling: %s", strerror(errno));

    const char *tmpdir = getenv("TMPDIR");
    sc_buf tmp = {0};
    sc_buf_printf(&tmp, "%s/scrollcase-conform-XXXXXX",
                  tmpdir && tmpdir[0] ? tmpdir : "/tmp");
    if (mkdtemp(tmp.data) == NULL)
        die_setup("cannot create a temporary directory: %s", strerror(errno));

    hello(&run, nbase);
    const sc_json *impl = obj_get(run.hello, "implementation");
    printf("scrollcase-conform %s (protocol %s): %s %s (%s), %zu of %zu cases\n",
           run.suite_version, SC_CONFORM_PROTOCOL,
           sc_json_cstr(obj_get(impl, "name")), sc_json_cstr(obj_get(impl, "version")),
           sc_json_cstr(obj_get(impl, "language")), run.nselected, run.corpus.count);
    fflush(stdout);

    double t0 = sc_now_ms();
    run_cases(&run, nbase, tmp.data);
    run.wall_ms = sc_now_ms() - t0;
    if (sc_rmtree(tmp.data) != 0)
        fprintf(stderr, "warning: cannot remove %s: %s\n", tmp.data, strerror(errno));
    sc_buf_free(&tmp);
    if (stop_signal) {
        fprintf(stderr, "scrollcase-conform: interrupted\n");
        return 130;
    }

    print_summary(&run);
    int rc = 0;
    if (report_json != NULL && sc_report_json(&run, report_json) != 0)
        rc = EXIT_SETUP;
    if (report_junit != NULL && sc_report_junit(&run, report_junit) != 0)
        rc = EXIT_SETUP;

    sc_tally t;
    sc_tally_range(&run, 0, run.nselected, &t);
    size_t passed = t.pass + t.xfail, failed = t.fail + t.xpass + t.error,
           skipped = t.unsupported;
    fflush(stderr);
    printf("%zu passed, %zu failed, %zu skipped\n", passed, failed, skipped);
    fflush(stdout);
    if (rc == 0 && (failed > 0 || passed + failed == 0))
        rc = EXIT_FAILED;

    for (size_t i = 0; run.adapter_argv[i] != NULL; i++)
        free(run.adapter_argv[i]);
    free(run.adapter_argv);
    free(adapter_owned);
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
