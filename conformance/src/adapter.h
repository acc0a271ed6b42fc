/* SPDX-License-Identifier: Apache-2.0 */
/*
 * adapter.h — what the built-in adapter's operation files share: the case
 * being run, the result an operation fills, the helpers that read a case's
 * arguments and inputs, and the operation tables.
 *
 * adapter.c owns the protocol (--hello, dispatch, printing the result) and
 * the operations of the first suite releases; each later group of
 * operations lives in its own ops_<group>.c and lists itself in a table
 * below.  An operation returns 0 with *r filled (r->code SC_OK and r->out,
 * or the library's rejection in r->code/r->err), or an exit status
 * (EXIT_UNSUPPORTED, EXIT_ADAPTER) after printing why with ad_fail.
 */
#ifndef SCROLLCASE_ADAPTER_H
#define SCROLLCASE_ADAPTER_H

#include <stddef.h>

#include "scrollcase/error.h"
#include "scrollcase/json.h"

#ifdef SC_ADAPTER_MUTANT
#include "mutation.h"
#define ADAPTER_NAME "scrollcase-mutant-adapter"
#else
#define ADAPTER_NAME "scrollcase-adapter"
#endif

#ifndef SC_VERSION
#define SC_VERSION "0.0.0"
#endif

#include "protocol.h"

#define EXIT_REJECTED SC_PROTO_EXIT_REJECTED
#define EXIT_UNSUPPORTED SC_PROTO_EXIT_UNSUPPORTED /* {"unsupported": why} */
#define EXIT_ADAPTER 3 /* a crash for the runner */

/* What an operation produced. */
typedef struct result {
    sc_code code;   /* SC_OK, or the library's rejection */
    sc_error err;   /* its message */
    sc_json *out;   /* the output on success */
} result;

typedef struct kase {
    const char *dir;
    const char *work; /* --work, or NULL */
    sc_json *doc;
    const sc_json *inputs;
    const sc_json *args;
    const char *reference; /* args.reference when the operation has one */
} kase;

typedef int (*op_fn)(kase *k, result *r);

typedef struct ad_op {
    const char *name;
    op_fn fn;
} ad_op;

/* Each group's table ends with {NULL, NULL}. */
extern const ad_op ad_ops_payload[];       /* ops_payload.c */
extern const ad_op ad_ops_archive_write[]; /* ops_archive_write.c */
extern const ad_op ad_ops_archive_read[];  /* ops_archive_read.c */
extern const ad_op ad_ops_box[];           /* ops_box.c */
extern const ad_op ad_ops_parity[];        /* ops_parity.c */
extern const ad_op ad_ops_audit[];         /* ops_audit.c */

/* Print "<adapter>: <message>" to stderr; returns status.  With
 * EXIT_UNSUPPORTED the message also becomes the "unsupported" answer. */
int ad_fail(int status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Member of an object, or NULL (also when o is not an object). */
const sc_json *ad_get(const sc_json *o, const char *key);
/* v, or exit(EXIT_ADAPTER) when it is NULL (out of memory). */
sc_json *ad_must(sc_json *v);
/* Set a member; exit(EXIT_ADAPTER) when out of memory. */
void ad_put(sc_json *o, const char *key, sc_json *v);
/* The file of the only input with this role (*path: malloc'd, under the
 * case directory; *rel: as listed, may be NULL). */
int ad_input_path(kase *k, const char *role, char **path, const char **rel);
/* Unknown argument names make the case unsupported (EXIT_UNSUPPORTED). */
int ad_args_known(kase *k, const char *const *names);
/* A string argument (*out NULL when absent and not required). */
int ad_string_arg(kase *k, const char *name, int required, const char **out);
/* Parse the input of a role; a rejection fills r and returns 0 with *doc
 * NULL. */
int ad_parse_input(kase *k, const char *role, sc_json **doc, result *r);
/* A JSON string holding the standard base64 of the bytes (NULL: no memory). */
sc_json *ad_base64_of(const unsigned char *bytes, size_t n);

#endif
