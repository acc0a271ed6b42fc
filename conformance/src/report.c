/* SPDX-License-Identifier: Apache-2.0 */
/*
 * report.c — the JSON and JUnit XML reports of a run.
 *
 * Both are written atomically (temporary file, rename).  Text that came from
 * the adapter (stderr) or the corpus is made valid UTF-8 first; for XML,
 * characters XML 1.0 cannot carry are replaced too, then escaped.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "runner.h"
#include "scrollcase/file.h"
#include "scrollcase/json.h"
#include "util.h"




static sc_json *text(const char *s)
{
    if (s == NULL)
        return sc_json_new_null();
    char *clean = sc_utf8_sanitize(s, strlen(s), 0);
    sc_json *v = sc_json_new_string(clean);
    free(clean);
    return v;
}

static sc_json *strings(const char *const *v, size_t n)
{
    sc_json *a = cf_json_must(sc_json_new_array());
    for (size_t i = 0; i < n; i++)
        cf_json_push(a, text(v[i]));
    return a;
}

static sc_json *tally_json(const sc_tally *t)
{
    sc_json *o = cf_json_must(sc_json_new_object());
    cf_json_put(o, "passed", sc_json_new_number((double)(t->pass + t->xfail)));
    cf_json_put(o, "failed", sc_json_new_number((double)(t->fail + t->xpass + t->error)));
    cf_json_put(o, "skipped", sc_json_new_number((double)t->unsupported));
    cf_json_put(o, "pass", sc_json_new_number((double)t->pass));
    cf_json_put(o, "fail", sc_json_new_number((double)t->fail));
    cf_json_put(o, "xfail", sc_json_new_number((double)t->xfail));
    cf_json_put(o, "xpass", sc_json_new_number((double)t->xpass));
    cf_json_put(o, "unsupported", sc_json_new_number((double)t->unsupported));
    cf_json_put(o, "error", sc_json_new_number((double)t->error));
    return o;
}

/* What the case expected, as its case.json says (expect), or NULL. */
static sc_json *expected_json(const sc_case *c)
{
    const sc_json *e = c->doc != NULL ? sc_json_get(c->doc, "expect") : NULL;
    return e != NULL ? sc_json_copy(e) : sc_json_new_null();
}

sc_json *sc_report_document(const sc_run *r)
{
    sc_json *root = cf_json_must(sc_json_new_object());
    cf_json_put(root, "suite_version", text(r->suite_version));
    cf_json_put(root, "protocol_version", text(SC_CONFORM_PROTOCOL));

    sc_json *adapter = cf_json_must(sc_json_new_object());
    size_t argc = 0;
    while (r->adapter_argv[argc] != NULL)
        argc++;
    cf_json_put(adapter, "command", strings((const char *const *)r->adapter_argv, argc));
    cf_json_put(adapter, "hello", r->hello ? sc_json_copy(r->hello) : sc_json_new_null());
    cf_json_put(adapter, "protocol", sc_json_new_number(r->adapter_protocol));
    cf_json_put(adapter, "mode", sc_json_new_string(r->persistent ? "persistent" : "oneshot"));
    cf_json_put(adapter, "restarts", sc_json_new_number((double)r->restarts));
    cf_json_put(root, "adapter", adapter);

    cf_json_put(root, "corpus", text(r->corpus_dir));
    sc_json *sel = cf_json_must(sc_json_new_object());
    cf_json_put(sel, "areas", strings(r->areas, r->nareas));
    cf_json_put(sel, "cases", strings(r->case_globs, r->ncase_globs));
    cf_json_put(sel, "shard", text(r->shard));
    cf_json_put(sel, "suite_version", text(r->suite_filter));
    cf_json_put(sel, "corpus_cases", sc_json_new_number((double)r->corpus.count));
    cf_json_put(sel, "selected_cases", sc_json_new_number((double)r->nselected));
    cf_json_put(root, "selection", sel);

    sc_tally t;
    sc_tally_range(r, 0, r->nselected, &t);
    cf_json_put(root, "summary", tally_json(&t));
    cf_json_put(root, "duration_ms", sc_json_new_number((double)(long long)r->wall_ms));
    char when[32] = "";
    time_t now = time(NULL);
    struct tm tm;
    if (gmtime_r(&now, &tm) != NULL)
        strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm);
    cf_json_put(root, "finished_at", sc_json_new_string(when));
    cf_json_put(root, "warnings", strings((const char *const *)r->warnings, r->nwarnings));

    sc_json *cases = cf_json_must(sc_json_new_array());
    for (size_t i = 0; i < r->nselected; i++) {
        const sc_case *c = r->selected[i];
        sc_json *o = cf_json_must(sc_json_new_object());
        cf_json_put(o, "id", text(c->dirname));
        cf_json_put(o, "area", text(c->area));
        cf_json_put(o, "operation", text(c->operation));
        cf_json_put(o, "kind", text(c->kind));
        cf_json_put(o, "status", text(sc_status_name(c->status)));
        cf_json_put(o, "reason", text(c->reason));
        cf_json_put(o, "xfail_reason", text(c->xfail_reason));
        cf_json_put(o, "exit_code", c->exit_code >= 0 ? sc_json_new_number(c->exit_code)
                                              : sc_json_new_null());
        cf_json_put(o, "signal", c->signal > 0 ? sc_json_new_number(c->signal)
                                       : sc_json_new_null());
        cf_json_put(o, "crashed", sc_json_new_bool(c->crashed));
        cf_json_put(o, "duration_ms", sc_json_new_number((double)(long long)c->duration_ms));
        cf_json_put(o, "stderr", text(c->stderr_excerpt ? c->stderr_excerpt : ""));
        sc_buf where = {0};
        sc_buf_printf(&where, "%s/%s/case.json", c->area, c->dirname);
        cf_json_put(o, "case_json", text(where.data));
        sc_buf_free(&where);
        const sc_json *title = c->doc != NULL ? sc_json_get(c->doc, "title") : NULL;
        cf_json_put(o, "title", text(sc_json_cstr(title)));
        const sc_json *rules = c->doc != NULL ? sc_json_get(c->doc, "rules") : NULL;
        if (rules != NULL)
            cf_json_put(o, "rules", sc_json_copy(rules));
        if (c->status != SC_ST_PASS) {
            cf_json_put(o, "expected", expected_json(c));
            cf_json_put(o, "got", c->got != NULL ? sc_json_copy(c->got) : sc_json_new_null());
        }
        cf_json_push(cases, o);
    }
    cf_json_put(root, "cases", cases);
    return root;
}

int sc_report_json(const sc_run *r, const char *path)
{
    sc_json *root = sc_report_document(r);

    sc_error err;
    sc_error_clear(&err);
    sc_code code = sc_json_write_file(root, path, 0644, &err);
    sc_json_free(root);
    if (code != SC_OK) {
        fprintf(stderr, "scrollcase-conform: cannot write %s: %s\n", path, err.message);
        return -1;
    }
    return 0;
}

/* ---- JUnit XML ----------------------------------------------------------- */

static void xml_text(sc_buf *b, const char *s)
{
    if (s == NULL)
        return;
    char *clean = sc_utf8_sanitize(s, strlen(s), 1);
    for (const char *p = clean; *p; p++) {
        switch (*p) {
        case '&': sc_buf_puts(b, "&amp;"); break;
        case '<': sc_buf_puts(b, "&lt;"); break;
        case '>': sc_buf_puts(b, "&gt;"); break;
        case '"': sc_buf_puts(b, "&quot;"); break;
        case '\'': sc_buf_puts(b, "&apos;"); break;
        /* keep line ends and tabs in attributes: they would be normalised */
        case '\n': sc_buf_puts(b, "&#10;"); break;
        case '\r': sc_buf_puts(b, "&#13;"); break;
        case '\t': sc_buf_puts(b, "&#9;"); break;
        default: sc_buf_add(b, p, 1); break;
        }
    }
    free(clean);
}

static void seconds(sc_buf *b, double ms)
{
    sc_buf_printf(b, "%.3f", ms / 1000.0);
}

int sc_report_junit(const sc_run *r, const char *path)
{
    sc_buf b = {0};
    sc_tally all;
    sc_tally_range(r, 0, r->nselected, &all);
    sc_buf_puts(&b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    sc_buf_printf(&b,
                  "<testsuites name=\"scrollcase-conformance\" tests=\"%zu\" "
                  "failures=\"%zu\" errors=\"%zu\" skipped=\"%zu\" time=\"",
                  r->nselected, all.fail + all.xpass, all.error, all.unsupported);
    seconds(&b, r->wall_ms);
    sc_buf_puts(&b, "\">\n");

    size_t from = 0;
    while (from < r->nselected) {
        size_t to = from;
        while (to < r->nselected &&
               strcmp(r->selected[to]->area, r->selected[from]->area) == 0)
            to++;
        sc_tally t;
        sc_tally_range(r, from, to, &t);
        /* wall time of the area: first start to last end (cases overlap
         * with --jobs, so their sum would overstate it) */
        double first = 0, last = 0;
        for (size_t i = from; i < to; i++) {
            const sc_case *c = r->selected[i];
            if (c->end_ms <= 0)
                continue; /* settled without the adapter */
            if (first == 0 || c->start_ms < first)
                first = c->start_ms;
            if (c->end_ms > last)
                last = c->end_ms;
        }
        double ms = last > first ? last - first : 0;
        sc_buf_puts(&b, "  <testsuite name=\"");
        xml_text(&b, r->selected[from]->area);
        sc_buf_printf(&b, "\" tests=\"%zu\" failures=\"%zu\" errors=\"%zu\" "
                          "skipped=\"%zu\" time=\"",
                      to - from, t.fail + t.xpass, t.error, t.unsupported);
        seconds(&b, ms);
        sc_buf_puts(&b, "\">\n");
        for (size_t i = from; i < to; i++) {
            const sc_case *c = r->selected[i];
            sc_buf_puts(&b, "    <testcase classname=\"scrollcase.");
            xml_text(&b, c->area);
            sc_buf_puts(&b, "\" name=\"");
            xml_text(&b, c->dirname);
            sc_buf_puts(&b, "\" time=\"");
            seconds(&b, c->duration_ms);
            sc_buf_puts(&b, "\">\n");
            const char *elem = NULL, *type = sc_status_name(c->status);
            switch (c->status) {
            case SC_ST_FAIL:
            case SC_ST_XPASS: elem = "failure"; break;
            case SC_ST_ERROR: elem = "error"; break;
            case SC_ST_UNSUPPORTED: elem = "skipped"; break;
            default: break;
            }
            if (elem != NULL) {
                sc_buf_printf(&b, "      <%s type=\"%s\" message=\"", elem, type);
                xml_text(&b, c->reason);
                sc_buf_puts(&b, "\"/>\n");
            }
            if (c->status == SC_ST_XFAIL) {
                sc_buf_puts(&b, "      <system-out>expected failure (");
                xml_text(&b, c->xfail_reason);
                sc_buf_puts(&b, "): ");
                xml_text(&b, c->reason);
                sc_buf_puts(&b, "</system-out>\n");
            }
            if (c->status != SC_ST_PASS && c->stderr_excerpt != NULL &&
                c->stderr_excerpt[0] != '\0') {
                sc_buf_puts(&b, "      <system-err>");
                xml_text(&b, c->stderr_excerpt);
                sc_buf_puts(&b, "</system-err>\n");
            }
            sc_buf_puts(&b, "    </testcase>\n");
        }
        sc_buf_puts(&b, "  </testsuite>\n");
        from = to;
    }
    sc_buf_puts(&b, "</testsuites>\n");

    sc_error err;
    sc_error_clear(&err);
    sc_code code = sc_file_write_atomic(path, b.data, b.len, 0644, &err);
    sc_buf_free(&b);
    if (code != SC_OK) {
        fprintf(stderr, "scrollcase-conform: cannot write %s: %s\n", path, err.message);
        return -1;
    }
    return 0;
}

/* ---- TAP and GitHub annotations ----------------------------------------- */

static int write_text(const char *path, sc_buf *b)
{
    if (strcmp(path, "-") == 0) {
        fflush(stdout);
        size_t n = b->len ? fwrite(b->data, 1, b->len, stdout) : 0;
        int ok = n == b->len && fflush(stdout) == 0;
        sc_buf_free(b);
        if (!ok)
            fputs("scrollcase-conform: cannot write to stdout\n", stderr);
        return ok ? 0 : -1;
    }
    sc_error err;
    sc_error_clear(&err);
    sc_code code = sc_file_write_atomic(path, b->data ? b->data : "", b->len, 0644, &err);
    sc_buf_free(b);
    if (code != SC_OK) {
        fprintf(stderr, "scrollcase-conform: cannot write %s: %s\n", path, err.message);
        return -1;
    }
    return 0;
}

/* One line of text: valid UTF-8, line ends and other controls as spaces. */
static char *one_line(const char *s)
{
    char *t = sc_utf8_sanitize(s ? s : "", s ? strlen(s) : 0, 0);
    for (char *p = t; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            *p = ' ';
    return t;
}

int sc_report_tap(const sc_run *r, const char *path)
{
    sc_buf b = {0};
    sc_buf_printf(&b, "TAP version 13\n1..%zu\n", r->nselected);
    for (size_t i = 0; i < r->nselected; i++) {
        const sc_case *c = r->selected[i];
        char *why = one_line(c->reason);
        /* '#' starts a directive in TAP: keep it out of the description */
        for (char *p = why; *p; p++)
            if (*p == '#')
                *p = '_';
        char *label = one_line(c->label);
        switch (c->status) {
        case SC_ST_PASS: sc_buf_printf(&b, "ok %zu - %s\n", i + 1, label); break;
        case SC_ST_UNSUPPORTED:
            sc_buf_printf(&b, "ok %zu - %s # SKIP %s\n", i + 1, label, why);
            break;
        case SC_ST_XFAIL: {
            char *x = one_line(c->xfail_reason);
            sc_buf_printf(&b, "not ok %zu - %s # TODO %s\n", i + 1, label, x);
            free(x);
            break;
        }
        default:
            sc_buf_printf(&b, "not ok %zu - %s: %s %s\n", i + 1, label,
                          sc_status_name(c->status), why);
            break;
        }
        free(why);
        free(label);
    }
    return write_text(path, &b);
}

/* GitHub workflow commands escape %, CR and LF in the message, and also ':'
 * and ',' in property values. */
static void gh_escape(sc_buf *b, const char *s, int property)
{
    char *t = sc_utf8_sanitize(s ? s : "", s ? strlen(s) : 0, 0);
    for (const char *p = t; *p; p++) {
        switch (*p) {
        case '%': sc_buf_puts(b, "%25"); break;
        case '\r': sc_buf_puts(b, "%0D"); break;
        case '\n': sc_buf_puts(b, "%0A"); break;
        case ':': sc_buf_puts(b, property ? "%3A" : ":"); break;
        case ',': sc_buf_puts(b, property ? "%2C" : ","); break;
        default: sc_buf_add(b, p, 1); break;
        }
    }
    free(t);
}

int sc_report_github(const sc_run *r, const char *path)
{
    char cwd[4096];
    size_t cwdlen = 0;
    if (getcwd(cwd, sizeof cwd) != NULL)
        cwdlen = strlen(cwd);
    sc_buf b = {0};
    for (size_t i = 0; i < r->nselected; i++) {
        const sc_case *c = r->selected[i];
        const char *level = NULL;
        if (c->status == SC_ST_FAIL || c->status == SC_ST_XPASS || c->status == SC_ST_ERROR)
            level = "error";
        if (level == NULL)
            continue;
        /* the case's manifest, relative to the workspace when it lies inside */
        sc_buf file = {0};
        sc_buf_printf(&file, "%s/case.json", c->dir);
        const char *f = sc_buf_str(&file);
        if (cwdlen > 0 && strncmp(f, cwd, cwdlen) == 0 && f[cwdlen] == '/')
            f += cwdlen + 1;
        sc_buf_printf(&b, "::%s file=", level);
        gh_escape(&b, f, 1);
        sc_buf_puts(&b, ",title=");
        gh_escape(&b, sc_status_name(c->status), 1);
        sc_buf_puts(&b, " ");
        gh_escape(&b, c->label, 1);
        sc_buf_puts(&b, "::");
        gh_escape(&b, c->label, 0);
        sc_buf_puts(&b, ": ");
        gh_escape(&b, c->reason ? c->reason : sc_status_name(c->status), 0);
        sc_buf_puts(&b, "\n");
        sc_buf_free(&file);
    }
    sc_tally t;
    sc_tally_range(r, 0, r->nselected, &t);
    sc_buf_printf(&b, "::notice title=scrollcase conformance::%zu passed, %zu failed, "
                      "%zu skipped\n",
                  t.pass + t.xfail, t.fail + t.xpass + t.error, t.unsupported);
    return write_text(path, &b);
}
