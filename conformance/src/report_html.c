/* SPDX-License-Identifier: Apache-2.0 */
/*
 * report_html.c — the HTML report: one self-contained static page
 * (report.html, compiled in as report_page.h) with the run's JSON report,
 * or several runs' JSON reports, as its data.
 *
 * Guarantees: the page loads nothing (its Content-Security-Policy allows
 * its own script, by hash, and inline styles, nothing else), so it opens
 * from a CI artifact or file://; the data can never end its <script> block
 * ("<", ">" and "&" are written as \u escapes, which JSON.parse reads back
 * unchanged); the page draws every text with textContent.  Written
 * atomically.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_page.h"
#include "runner.h"
#include "scrollcase/base64.h"
#include "scrollcase/digest.h"
#include "scrollcase/file.h"
#include "scrollcase/json.h"
#include "util.h"

#define DATA_MARK "@SC_DATA@"
#define HASH_MARK "@SC_SCRIPT_HASH@"

/* The JSON text of data, safe inside <script type="application/json">. */
static int data_text(const sc_json *data, sc_buf *out)
{
    char *text = NULL;
    size_t len = 0;
    sc_error err;
    sc_error_clear(&err);
    if (sc_json_write_compact(data, &text, &len, &err) != SC_OK) {
        fprintf(stderr, "scrollcase-conform: cannot write the report's data: %s\n", err.message);
        return -1;
    }
    for (size_t i = 0; i < len; i++) {
        switch (text[i]) {
        case '<': sc_buf_puts(out, "\\u003c"); break;
        case '>': sc_buf_puts(out, "\\u003e"); break;
        case '&': sc_buf_puts(out, "\\u0026"); break;
        default: sc_buf_add(out, text + i, 1); break;
        }
    }
    free(text);
    return 0;
}

/* The base64 SHA-256 of the page's script (between "<script>" and the next
 * "</script>"), which its Content-Security-Policy names. */
static char *script_hash(const char *page, size_t len)
{
    const char *open = "<script>", *close = "</script>";
    const char *start = NULL, *end = NULL;
    for (size_t i = 0; i + strlen(open) <= len && start == NULL; i++)
        if (memcmp(page + i, open, strlen(open)) == 0)
            start = page + i + strlen(open);
    for (const char *p = start; p != NULL && p + strlen(close) <= page + len && end == NULL; p++)
        if (memcmp(p, close, strlen(close)) == 0)
            end = p;
    if (start == NULL || end == NULL)
        return NULL;
    unsigned char digest[SC_SHA256_LEN];
    char *b64 = NULL;
    size_t b64_len = 0;
    sc_error err;
    sc_error_clear(&err);
    if (sc_sha256(start, (size_t)(end - start), digest, &err) != SC_OK ||
        sc_base64_encode(digest, sizeof digest, &b64, &b64_len, &err) != SC_OK)
        return NULL;
    return b64;
}

/* Append page[from, to) to out with each mark replaced by its text. */
static void fill(sc_buf *out, const char *page, size_t len, const char *hash, const sc_buf *data)
{
    size_t i = 0, data_len = strlen(DATA_MARK), hash_len = strlen(HASH_MARK);
    while (i < len) {
        if (page[i] == '@' && i + data_len <= len && memcmp(page + i, DATA_MARK, data_len) == 0) {
            sc_buf_add(out, data->data, data->len);
            i += data_len;
        } else if (page[i] == '@' && i + hash_len <= len &&
                   memcmp(page + i, HASH_MARK, hash_len) == 0) {
            sc_buf_puts(out, hash);
            i += hash_len;
        } else {
            sc_buf_add(out, page + i, 1);
            i++;
        }
    }
}

/* Write the page for data ({"runs": [...]}); takes ownership of data. */
static int write_page(sc_json *data, const char *path)
{
    const char *page = (const char *)sc_report_page;
    size_t len = sc_report_page_len;
    sc_buf text = {0}, out = {0};
    int rc = data_text(data, &text);
    sc_json_free(data);
    char *hash = rc == 0 ? script_hash(page, len) : NULL;
    if (rc == 0 && hash == NULL) {
        fprintf(stderr, "scrollcase-conform: the report page has no script to hash\n");
        rc = -1;
    }
    if (rc == 0) {
        fill(&out, page, len, hash, &text);
        sc_error err;
        sc_error_clear(&err);
        if (sc_file_write_atomic(path, out.data, out.len, 0644, &err) != SC_OK) {
            fprintf(stderr, "scrollcase-conform: cannot write %s: %s\n", path, err.message);
            rc = -1;
        }
    }
    free(hash);
    sc_buf_free(&text);
    sc_buf_free(&out);
    return rc;
}

static void add_run(sc_json *runs, const char *label, sc_json *report)
{
    sc_json *run = cf_json_must(sc_json_new_object());
    cf_json_put(run, "label", cf_json_must(sc_json_new_string(label)));
    cf_json_put(run, "report", report);
    cf_json_push(runs, run);
}

int sc_report_html(const sc_run *r, const char *path)
{
    sc_json *data = cf_json_must(sc_json_new_object());
    sc_json *runs = cf_json_must(sc_json_new_array());
    add_run(runs, "", sc_report_document(r));
    cf_json_put(data, "runs", runs);
    return write_page(data, path);
}

int sc_report_html_compare(const char *const *reports, size_t n, const char *path)
{
    sc_json *data = cf_json_must(sc_json_new_object());
    sc_json *runs = cf_json_must(sc_json_new_array());
    cf_json_put(data, "runs", runs);
    for (size_t i = 0; i < n; i++) {
        sc_json *doc = NULL;
        sc_error err;
        sc_error_clear(&err);
        if (sc_json_parse_file(reports[i], &doc, &err) != SC_OK) {
            fprintf(stderr, "scrollcase-conform: --compare %s: %s\n", reports[i], err.message);
            sc_json_free(data);
            return -1;
        }
        const sc_json *cases = sc_json_get(doc, "cases");
        if (doc->type != SC_JSON_OBJECT || cases == NULL || cases->type != SC_JSON_ARRAY ||
            sc_json_get(doc, "adapter") == NULL) {
            fprintf(stderr, "scrollcase-conform: --compare %s: not a JSON report of "
                            "scrollcase-conform (--report-json)\n",
                    reports[i]);
            sc_json_free(doc);
            sc_json_free(data);
            return -1;
        }
        add_run(runs, reports[i], doc);
    }
    return write_page(data, path);
}
