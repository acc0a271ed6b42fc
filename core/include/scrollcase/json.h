/* SPDX-License-Identifier: Apache-2.0 */
/*
 * json.h — strict JSON reading and deterministic JSON writing.
 *
 * Guarantees (docs/format-v3.md, "JSON"):
 *  - Reading accepts exactly RFC 8259 JSON text that is also: valid UTF-8
 *    with no byte-order mark; free of duplicate object keys (compared
 *    byte-for-byte, so keys are case-sensitive); free of trailing bytes other
 *    than JSON whitespace; nested at most SC_JSON_MAX_DEPTH arrays/objects
 *    deep; free of numbers that overflow a double; free of integer literals
 *    (no fraction, no exponent) whose magnitude exceeds 2^53-1; free of
 *    \u escapes that leave a lone surrogate.  Everything else is
 *    SC_E_INVALID_JSON with the byte offset in the message.
 *  - Object member order is kept as read; strings may hold NUL bytes.
 *  - Writing is deterministic: 2-space indentation, LF line ends, "key": value,
 *    empty containers as [] and {}, member order as stored, the escapes of
 *    ECMAScript JSON.stringify, numbers in ECMAScript Number::toString form
 *    (shortest round-trip digits), a final LF.  Independent of locale.
 *
 * Ownership: a tree is owned by its root; sc_json_free(root) frees it all.
 * Functions that add a node to a container take ownership of that node.
 */
#ifndef SCROLLCASE_JSON_H
#define SCROLLCASE_JSON_H

#include <stddef.h>
#include <stdint.h>

#include "scrollcase/error.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SC_JSON_MAX_DEPTH 64
/*
 * The depth a protocol envelope may reach: a message that carries a document
 * of the format a few levels down (a conformance case's expected output, an
 * adapter's answer, a persistent-mode response) nests up to 8 levels more
 * than the document, so that a document at the 64-level limit still fits and
 * a result never depends on how deep the carrier wraps it.  Documents of the
 * format are always read with SC_JSON_MAX_DEPTH.
 */
#define SC_JSON_ENVELOPE_DEPTH (SC_JSON_MAX_DEPTH + 8)
#define SC_JSON_MAX_SAFE_INTEGER 9007199254740991.0 /* 2^53 - 1 */

typedef enum sc_json_type {
    SC_JSON_NULL,
    SC_JSON_BOOL,
    SC_JSON_NUMBER,
    SC_JSON_STRING,
    SC_JSON_ARRAY,
    SC_JSON_OBJECT
} sc_json_type;

typedef struct sc_json sc_json;

/*
 * The node.  Fields are public for reading; change trees only through the
 * functions below.
 */
struct sc_json {
    sc_json_type type;
    int boolean;      /* SC_JSON_BOOL */
    double number;    /* SC_JSON_NUMBER */
    int is_integer;   /* SC_JSON_NUMBER: an integer literal (no '.', no exponent)
                         when read; an integral value in the safe range when built */
    char *string;     /* SC_JSON_STRING: NUL-terminated, may contain NULs */
    size_t length;    /* SC_JSON_STRING: bytes; ARRAY/OBJECT: number of children */
    char *key;        /* member of an object: its key (NUL-terminated) */
    size_t key_length;
    sc_json *child;   /* ARRAY/OBJECT: first child */
    sc_json *last;    /* ARRAY/OBJECT: last child */
    sc_json *next;    /* next sibling */
};

/* ---- reading -------------------------------------------------------- */

/* Parse len bytes.  On success *out is the root (caller frees). */
sc_code sc_json_parse(const char *bytes, size_t len, sc_json **out,
                      sc_error *err);

/*
 * Read a whole file and parse it.  Errors name the file: SC_E_IO with the
 * errno text (a missing file too) and SC_E_INVALID_JSON "<path>: ...";
 * err->path is set to path.
 */
sc_code sc_json_parse_file(const char *path, sc_json **out, sc_error *err);

/*
 * sc_json_parse / sc_json_parse_file with another nesting limit, 1 to
 * SC_JSON_ENVELOPE_DEPTH (else SC_E_USAGE): for protocol envelopes only.
 */
sc_code sc_json_parse_depth(const char *bytes, size_t len, int max_depth,
                            sc_json **out, sc_error *err);
sc_code sc_json_parse_file_depth(const char *path, int max_depth, sc_json **out,
                                 sc_error *err);

/* ---- building ------------------------------------------------------- */

sc_json *sc_json_new_null(void);
sc_json *sc_json_new_bool(int value);
sc_json *sc_json_new_number(double value); /* is_integer set if integral and safe */
sc_json *sc_json_new_string(const char *s);                /* copies */
sc_json *sc_json_new_string_len(const char *s, size_t len); /* copies */
sc_json *sc_json_new_array(void);
sc_json *sc_json_new_object(void);
sc_json *sc_json_copy(const sc_json *v); /* deep copy; key not copied */

/* Append value to an array.  Takes ownership; returns 0, or -1 on bad args. */
int sc_json_array_append(sc_json *array, sc_json *value);

/*
 * Object members.  _append adds a member at the end without checking for a
 * duplicate; _set replaces the value of an existing member in place (keeping
 * its position) or appends.  Both take ownership of value and copy key.
 * Return 0, or -1 on bad arguments / out of memory (value is then freed).
 */
int sc_json_object_append(sc_json *object, const char *key, sc_json *value);
int sc_json_object_set(sc_json *object, const char *key, sc_json *value);

/* Remove and free a member; returns 1 if it was there, else 0. */
int sc_json_object_remove(sc_json *object, const char *key);

/* Detach a member and hand it to the caller (its key is freed); NULL if absent. */
sc_json *sc_json_object_take(sc_json *object, const char *key);

void sc_json_free(sc_json *v);

/* ---- looking ---------------------------------------------------------- */

/* Case-sensitive member lookup (NUL-terminated key); NULL if absent. */
sc_json *sc_json_get(const sc_json *object, const char *key);

/* i-th element of an array or object (member), NULL if out of range. */
sc_json *sc_json_at(const sc_json *container, size_t i);

int sc_json_is(const sc_json *v, sc_json_type t);

/* The string if v is a string without embedded NUL, else NULL. */
const char *sc_json_cstr(const sc_json *v);

/*
 * 1 if v is an integer literal / integral number within 0..2^53-1 (a read
 * "-0" is not), storing it in *out; else 0.
 */
int sc_json_uint53(const sc_json *v, uint64_t *out);

/* The name of a type ("string", "object", ...) for messages. */
const char *sc_json_type_name(const sc_json *v);

/*
 * Semantic equality: same type; numbers equal by value; strings by bytes;
 * arrays elementwise; objects as sets of members (order ignored).
 */
int sc_json_equal(const sc_json *a, const sc_json *b);

/* ---- writing ---------------------------------------------------------- */

/*
 * Deterministic text (see top of file), ending with "\n".  *out is
 * NUL-terminated and owned by the caller.
 */
sc_code sc_json_write(const sc_json *v, char **out, size_t *len,
                      sc_error *err);

/* The same on one line with no spaces and no final LF (for JSON Lines). */
sc_code sc_json_write_compact(const sc_json *v, char **out, size_t *len,
                              sc_error *err);

/* sc_json_write (compact 0) or sc_json_write_compact (compact 1) with another
 * nesting limit, 1 to SC_JSON_ENVELOPE_DEPTH: for protocol envelopes only. */
sc_code sc_json_write_depth(const sc_json *v, int compact, int max_depth,
                            char **out, size_t *len, sc_error *err);

/*
 * ECMAScript Number::toString of a finite double into buf (at least 32
 * bytes).  Returns the length.
 */
size_t sc_json_format_number(double value, char *buf, size_t size);

/*
 * A read value as messages show it (buf at least 40 bytes): a number as
 * sc_json_format_number writes it, with ".0" added when it was read with a
 * fraction or an exponent but formats as an integer ("3.0" for 3.0 and 3e0,
 * so a message can say why it is not the integer 3); any other value as
 * "of type <type>".
 */
void sc_json_describe_value(const sc_json *v, char *buf, size_t size);

/*
 * Write sc_json_write(v) to path atomically (sc_file_write_atomic): nothing
 * is left behind on failure.
 */
sc_code sc_json_write_file(const sc_json *v, const char *path, unsigned mode,
                           sc_error *err);

#ifdef __cplusplus
}
#endif

#endif
