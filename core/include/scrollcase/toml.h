/* SPDX-License-Identifier: Apache-2.0 */
/*
 * toml.h — a TOML 1.0 reader that keeps where everything was written.
 *
 * Guarantees (docs/format-v3.md 19.2): sc_toml_read accepts exactly the
 * documents TOML 1.0.0 defines — comments, key/value pairs with bare,
 * quoted and dotted keys, [tables], [[arrays of tables]], inline tables,
 * basic/literal strings (one-line and multi-line, every escape, \u and \U
 * naming Unicode scalar values), integers (decimal, 0x, 0o, 0b, `_`
 * between digits, the whole int64 range), floats (inf, nan), booleans,
 * offset date-times, local date-times, local dates and local times (with
 * their calendar ranges), arrays — with TOML's rules on defining a table or
 * a key once.  The input must be UTF-8 without a byte-order mark, at most
 * SC_TOML_MAX_BYTES long, and no value may lie more than SC_TOML_MAX_DEPTH
 * tables and arrays below the document.  Anything else is
 * SC_E_INVALID_PIXI_TOML with "<name>:<line>:<column>: ..." (1-based,
 * columns in bytes).  Every node records the byte offsets of its key, its
 * statement and its value, so that a file can be edited in place.  Nothing
 * is written; there is no global state; the caller owns the tree.
 *
 * sc_toml_parse is the reader the audit uses: the same document as a JSON
 * tree (json.h), refusing what a JSON tree cannot hold exactly (an integer
 * beyond ±(2^53−1), an infinite or NaN float, a string holding U+0000).
 */
#ifndef SCROLLCASE_TOML_H
#define SCROLLCASE_TOML_H

#include <stddef.h>
#include <stdint.h>

#include "scrollcase/error.h"
#include "scrollcase/json.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SC_TOML_MAX_BYTES ((size_t)1024 * 1024)
#define SC_TOML_MAX_DEPTH 32

typedef enum sc_toml_type {
    SC_TOML_TABLE,
    SC_TOML_ARRAY,
    SC_TOML_STRING,
    SC_TOML_INTEGER,
    SC_TOML_FLOAT,
    SC_TOML_BOOL,
    SC_TOML_DATETIME,       /* offset date-time: 1979-05-27T07:32:00Z */
    SC_TOML_LOCAL_DATETIME, /* 1979-05-27T07:32:00 */
    SC_TOML_LOCAL_DATE,     /* 1979-05-27 */
    SC_TOML_LOCAL_TIME      /* 07:32:00 */
} sc_toml_type;

/* How a node came to be. */
typedef enum sc_toml_origin {
    SC_TOML_ROOT,         /* the document */
    SC_TOML_VALUE,        /* written as a value (key = v, an array element,
                             inside an inline table) */
    SC_TOML_HEADER,       /* a table defined by [a.b] */
    SC_TOML_ARRAY_TABLES, /* the array made by [[a.b]] */
    SC_TOML_ARRAY_ELEMENT,/* one table of [[a.b]] */
    SC_TOML_DOTTED,       /* a table made by a dotted key a.b = v */
    SC_TOML_IMPLICIT      /* a table named only on the way to a header */
} sc_toml_origin;

/* Bytes [start, end) of the input. */
typedef struct sc_toml_span {
    size_t start, end;
} sc_toml_span;

typedef struct sc_toml sc_toml;

struct sc_toml {
    sc_toml_type type;
    sc_toml_origin origin;
    char *key;          /* member of a table: the decoded key (NUL-terminated) */
    size_t key_length;
    char *string;       /* STRING: decoded bytes (NUL-terminated, may hold U+0000);
                           date/time kinds: the RFC 3339 text, with 'T' and 'Z'
                           upper-case and a space separator written as 'T' */
    size_t length;      /* STRING/date/time: bytes of string; TABLE/ARRAY: children */
    int64_t integer;    /* INTEGER */
    double real;        /* FLOAT */
    int boolean;        /* BOOL */
    /* date/time parts (the kinds that have them) */
    int year, month, day, hour, minute, second;
    long nanosecond;    /* the fraction, truncated to nanoseconds */
    int offset_minutes; /* DATETIME: east of UTC; 0 for Z */
    sc_toml *child, *last, *next;
    /*
     * Where it was written.  key: the key (or the last dotted part naming
     * this member; a table made on the way: the part where it was first
     * named).  entry: a key/value pair from the first byte of its whole key
     * to the end of its value; a header table or array element: the header
     * from '[' to ']'.  value: a value's own bytes.  line_end: just past
     * the newline that ends the entry's line (its comment included).
     * body_end: for a header table, an array element and the root: the
     * line_end of the last key/value of its section, else of the header
     * (0 for the root without one); for a dotted table: of the last
     * key/value that went through it.
     */
    sc_toml_span key_span, entry, value;
    size_t line_end, body_end;
    /* reader's bookkeeping */
    int depth;
    unsigned section;
};

/* Parse len bytes into a table (*out, caller frees with sc_toml_free). */
sc_code sc_toml_read(const char *bytes, size_t len, const char *name, sc_toml **out,
                     sc_error *err);

void sc_toml_free(sc_toml *v);

/* The member `key` of a table, or NULL. */
sc_toml *sc_toml_get(const sc_toml *table, const char *key);

/* "table", "array", "string", "integer", "float", "bool", "datetime",
 * "datetime-local", "date-local", "time-local" (toml-test's names). */
const char *sc_toml_type_name(sc_toml_type t);

/*
 * The document as JSON (tables are objects, in the order their keys first
 * appear; date/time values are their RFC 3339 strings).  bytes/name are the
 * document the tree was read from, for the line and column of a refusal.
 */
sc_code sc_toml_to_json(const sc_toml *doc, const char *bytes, size_t len, const char *name,
                        sc_json **out, sc_error *err);

/* sc_toml_read, then sc_toml_to_json.  On success *out is a JSON object. */
sc_code sc_toml_parse(const char *bytes, size_t len, const char *name, sc_json **out,
                      sc_error *err);

#ifdef __cplusplus
}
#endif

#endif
