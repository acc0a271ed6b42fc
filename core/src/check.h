/* SPDX-License-Identifier: Apache-2.0 */
/*
 * check.h — the primitives of the hand-coded schema checks (scrolls,
 * manifests): one failure, one code, a "$.a.b[0]" field path in the message
 * and in err->path.  Internal to the library; not installed.
 *
 * Guarantees: every check looks at the type first, then the value; a failure
 * fills the error object with the checker's code (invalid-scroll,
 * invalid-manifest, ...) and never allocates.
 */
#ifndef SC_CHECK_H
#define SC_CHECK_H

#include <stddef.h>
#include <stdint.h>

#include "scrollcase/error.h"
#include "scrollcase/json.h"

#define SC_FIELD_MAX 256

typedef struct sc_check {
    sc_error *err;
    sc_code code;       /* the code of a schema failure */
    const char *prefix; /* "<prefix>: " starts every message; NULL for none */
} sc_check;

/* Fill the error with c->code (or code, for sc_check_fail_code). */
sc_code sc_check_fail(const sc_check *c, const char *field, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
sc_code sc_check_fail_code(const sc_check *c, sc_code code, const char *field,
                           const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/* "<parent>.<key>" and "<parent>[<i>]", cut short with "..." if too long. */
void sc_field_member(char out[SC_FIELD_MAX], const char *parent, const char *key);
void sc_field_index(char out[SC_FIELD_MAX], const char *parent, size_t i);

sc_code sc_check_type(const sc_check *c, const sc_json *v, sc_json_type t,
                      const char *field);
/* A string of at least one byte. */
sc_code sc_check_text(const sc_check *c, const sc_json *v, const char *field);
/* An integer literal in min..max (within 0..2^53-1). */
sc_code sc_check_integer(const sc_check *c, const sc_json *v, const char *field,
                         uint64_t min, uint64_t max);
/* A string of exactly digits lowercase hex digits. */
sc_code sc_check_lower_hex(const sc_check *c, const sc_json *v,
                           const char *field, size_t digits);

#endif
