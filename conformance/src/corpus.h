/* SPDX-License-Identifier: Apache-2.0 */
/*
 * corpus.h — what the runner knows about one case and how it is read.
 *
 * The runner reads every case.json with the library's strict JSON reader and
 * checks the members it relies on; the full schema check is
 * conformance/check_cases.py.  A case the runner cannot read is kept (so it
 * is reported) with load_error set.
 */
#ifndef SC_CONFORM_CORPUS_H
#define SC_CONFORM_CORPUS_H

#include <stddef.h>

#include "scrollcase/json.h"

typedef enum sc_status {
    SC_ST_PENDING,
    SC_ST_PASS,
    SC_ST_FAIL,
    SC_ST_XFAIL,
    SC_ST_XPASS,
    SC_ST_UNSUPPORTED,
    SC_ST_ERROR
} sc_status;

typedef struct sc_input {
    const char *file; /* relative to the case directory, checked safe */
    const char *role;
    const char *sha256;
} sc_input;

typedef struct sc_case {
    char *area;    /* name of the area directory */
    char *dirname; /* name of the case directory */
    char *dir;     /* absolute path of the case directory */
    char *label;   /* "<area>/<dirname>" */
    sc_json *doc;  /* case.json, or NULL */
    char *load_error; /* why the case cannot run, or NULL */

    /* valid when load_error is NULL (pointers into doc) */
    const char *id;
    const char *operation;
    const char *kind; /* "valid", "invalid", "acceptable" */
    const char *since;
    int expect_accept;
    const sc_json *expect_output; /* NULL: not compared */
    const sc_json *error_codes;   /* array of strings (reject) */
    const sc_json *requires;      /* array of strings, or NULL */
    sc_input *inputs;
    size_t ninputs;

    const char *xfail_reason; /* owned by the xfail list */
    int xfail_crash;          /* the entry allows a crash or a timeout */

    /* result */
    sc_status status;
    char *reason;
    int exit_code; /* -1: none */
    int signal;    /* 0: none */
    int crashed;   /* crash, timeout or broken protocol (not a clean answer) */
    double start_ms; /* monotonic clock, for wall times per area */
    double end_ms;
    double duration_ms;
    char *stderr_excerpt;
    sc_json *got; /* what the adapter answered when the case did not pass:
                     {"output": ...}, {"error": code} or {"unsupported": why};
                     NULL for a pass or no clean answer (owned) */
} sc_case;

typedef struct sc_corpus {
    sc_case *cases;
    size_t count;
} sc_corpus;

/*
 * Discover every case under root, sorted by (area, case directory name)
 * byte by byte.  Directories and files whose names start with '.' are
 * ignored, and so are plain files directly under root or an area (README.md).
 * Returns 0, or -1 with msg when root cannot be listed.
 */
int sc_corpus_load(const char *root, sc_corpus *out, char *msg, size_t msgsize);
void sc_corpus_free(sc_corpus *c);

/* Status names as they appear in reports ("pass", "xfail", ...). */
const char *sc_status_name(sc_status s);

/*
 * Compare two semantic versions "MAJOR.MINOR.PATCH" (digits only, no leading
 * zeros).  Returns -1/0/1, or -2 when either is malformed.
 */
int sc_semver_cmp(const char *a, const char *b);

#endif
