/* SPDX-License-Identifier: Apache-2.0 */
/*
 * runner.h — the state of one run of scrollcase-conform, shared by the
 * runner proper (runner.c) and the report writers (report.c).
 */
#ifndef SC_CONFORM_RUNNER_H
#define SC_CONFORM_RUNNER_H

#include <stddef.h>

#include "corpus.h"
#include "protocol.h"
#include "scrollcase/json.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sc_xfail {
    char *pattern;
    char *reason;
    int crash;      /* the reason starts with the word "crash": crashes allowed */
    size_t line;
    size_t matches; /* cases of the whole corpus it names */
} sc_xfail;

typedef struct sc_run {
    const char *suite_version;
    char *corpus_dir;
    char **adapter_argv; /* NULL-terminated, owned */
    size_t adapter_argc;
    sc_json *hello;      /* the adapter's --hello object, or NULL */
    int adapter_protocol; /* the major version the adapter announced */
    int persistent;       /* cases go to long-lived adapters (3.5) */
    size_t restarts;      /* persistent adapters started again after a crash */
    size_t shutdown_failures; /* persistent adapters that failed at their exit */
    const char *shard;   /* "i/n" as given, or NULL */
    const char *suite_filter; /* --suite-version, or NULL */
    const char **areas;
    size_t nareas;
    const char **case_globs;
    size_t ncase_globs;
    sc_corpus corpus;
    sc_case **selected; /* the cases of this run, in order */
    size_t nselected;
    sc_xfail *xfails;
    size_t nxfails;
    char **warnings;
    size_t nwarnings;
    double timeout_s;
    int jobs;
    int verbose;
    int quiet;
    int allow_empty;
    double wall_ms;
} sc_run;

typedef struct sc_tally {
    size_t pass, fail, xfail, xpass, unsupported, error;
} sc_tally;

/* Count the statuses of cases [from, to) of the selection. */
void sc_tally_range(const sc_run *r, size_t from, size_t to, sc_tally *t);

/* The JSON report as a tree (the caller frees it): what --report-json
 * writes and what --report-html renders. */
sc_json *sc_report_document(const sc_run *r);

/* Write the machine-readable reports; return 0, or -1 after a message.
 * For TAP and GitHub annotations the path "-" means stdout. */
int sc_report_json(const sc_run *r, const char *path);
int sc_report_junit(const sc_run *r, const char *path);
int sc_report_tap(const sc_run *r, const char *path);
int sc_report_github(const sc_run *r, const char *path);

/* The HTML report (report_html.c): one self-contained page for this run, or
 * for the JSON reports named (several runs side by side: the pass rate of
 * each area in each run, what changed between two runs of one
 * implementation).  Return 0, or -1 after a message. */
int sc_report_html(const sc_run *r, const char *path);
int sc_report_html_compare(const char *const *reports, size_t n, const char *path);

#ifdef __cplusplus
}
#endif

#endif
