/* SPDX-License-Identifier: Apache-2.0 */
/*
 * path.h — the payload-path rules and the text checks they rest on.
 *
 * Guarantees (docs/format-v3.md, "Paths"): a payload path is accepted only if
 * it is non-empty valid UTF-8 without NUL, has no backslash, does not start
 * with '/', has no drive prefix ("C:"), and has no empty, "." or ".."
 * segment.  Anything else is SC_E_UNSAFE_PATH.
 */
#ifndef SCROLLCASE_PATH_H
#define SCROLLCASE_PATH_H

#include <stddef.h>

#include "scrollcase/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* 1 if the len bytes are well-formed UTF-8 (RFC 3629: no overlongs, no
 * surrogates, nothing above U+10FFFF), else 0. */
int sc_utf8_valid(const char *s, size_t len);

/*
 * Check a payload path of len bytes.  field names where it came from (for
 * the message, e.g. "$.assets[0].relativePath"); may be NULL.
 */
sc_code sc_path_check(const char *p, size_t len, const char *field,
                      sc_error *err);

/* Byte comparison after folding ASCII A-Z to a-z (a strcmp-like result). */
int sc_ascii_casecmp(const char *a, const char *b);

/* 1 if s is a dotted Python module name: [A-Za-z_][A-Za-z0-9_]* joined by '.'. */
int sc_is_dotted_name(const char *s);

/* 1 if s matches ^[a-z0-9]+(?:[-.][a-z0-9]+)*$ (box, model and runtime ids). */
int sc_is_slug(const char *s);

/*
 * A printable, bounded rendering of untrusted name bytes for a message:
 * '"' and '\\' escaped, other bytes outside printable ASCII as \xNN, cut
 * with "..." past 120 bytes or when buf (size bytes) is full.
 */
void sc_path_quote(const char *p, size_t len, char *buf, size_t size);

#ifdef __cplusplus
}
#endif

#endif
