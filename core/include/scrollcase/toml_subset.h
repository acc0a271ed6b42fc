/* SPDX-License-Identifier: Apache-2.0 */
/*
 * toml_subset.h — a small, strict reader for the part of TOML that
 * pixi.toml manifests use.
 *
 * Guarantees (docs/format-v3.md 19.2): the input is UTF-8 (no byte-order
 * mark), at most SC_TOML_MAX_BYTES long, and made of comments, table
 * headers `[a.b."c"]`, and `key = value` lines whose keys are bare
 * ([A-Za-z0-9_-]+) or quoted (basic or literal) and may be dotted.  Values
 * are basic strings (with TOML's escapes), literal strings, decimal
 * integers (optional sign, `_` between digits, no leading zero, within
 * ±(2^53−1)), booleans, arrays (over several lines, trailing comma allowed)
 * and one-line inline tables.  No value lies more than SC_TOML_MAX_DEPTH
 * keys and array positions below the document (headers and dotted keys
 * count), so the tree is always small enough for the JSON writer.
 * Anything else — multi-line strings, floats, dates, arrays of tables, a
 * key defined twice, a table header repeated, an inline table extended —
 * is SC_E_INVALID_PIXI_TOML with "<name>:<line>:<column>: ..." in the
 * message.  The result is a JSON tree (tables are objects, in the order
 * their keys first appear), so that the rest of the library reads TOML and
 * JSON the same way.  Nothing is written; there is no global state.
 */
#ifndef SCROLLCASE_TOML_SUBSET_H
#define SCROLLCASE_TOML_SUBSET_H

#include <stddef.h>

#include "scrollcase/error.h"
#include "scrollcase/json.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SC_TOML_MAX_BYTES ((size_t)1024 * 1024)
#define SC_TOML_MAX_DEPTH 32

/*
 * Parse len bytes.  name is the file for messages and err->path.  On
 * success *out is a JSON object (caller frees).
 */
sc_code sc_toml_parse(const char *bytes, size_t len, const char *name,
                      sc_json **out, sc_error *err);

#ifdef __cplusplus
}
#endif

#endif
