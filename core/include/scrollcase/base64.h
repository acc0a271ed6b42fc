/* SPDX-License-Identifier: Apache-2.0 */
/*
 * base64.h — RFC 4648 section 4 base64, strictly (docs/format-v3.md 8.2).
 *
 * Guarantees: the encoder writes the standard alphabet with '=' padding and
 * no line breaks.  The decoder accepts exactly what the encoder can write:
 * a length that is a multiple of four, only A-Z a-z 0-9 + / and padding,
 * padding only as the last one or two characters of the last group, no
 * whitespace, and zero unused bits in the last group.  So every byte string
 * has exactly one accepted text, and decoding is injective.
 */
#ifndef SCROLLCASE_BASE64_H
#define SCROLLCASE_BASE64_H

#include <stddef.h>

#include "scrollcase/error.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SC_BASE64_INVALID ((size_t)-1)

/* Length of the text for n bytes (no NUL): 4 * ceil(n / 3). */
size_t sc_base64_encoded_len(size_t n);

/* Encode; *out is NUL-terminated and owned by the caller. */
sc_code sc_base64_encode(const void *data, size_t len, char **out,
                         size_t *out_len, sc_error *err);

/*
 * The exact number of bytes len characters of text decode to, judged by the
 * length and padding alone; SC_BASE64_INVALID when those are already wrong.
 * (The text may still fail sc_base64_decode.)
 */
size_t sc_base64_decoded_len(const char *text, size_t len);

/*
 * Decode len characters into out (cap bytes).  Returns 1 and sets *out_len
 * when the text is strict base64 and its bytes fit; 0 otherwise (out may
 * have been written).  An empty text decodes to zero bytes.
 */
int sc_base64_decode(const char *text, size_t len, unsigned char *out,
                     size_t cap, size_t *out_len);

#ifdef __cplusplus
}
#endif

#endif
