/* SPDX-License-Identifier: Apache-2.0 */
/*
 * strbuf.h — the one growable byte buffer of libscrollcase.
 *
 * Guarantees: the bytes are always NUL-terminated once anything has been
 * added (or sc_strbuf_reserve succeeded), so b.p can be used as a C string
 * when the content holds no NUL; b.len never counts the terminator.  The
 * capacity grows by doubling, every size computation is checked for
 * overflow, and a failed call leaves the buffer exactly as it was.  Each
 * call returns SC_OK or SC_E_OUT_OF_MEMORY (allocation failure, or a size
 * that cannot be represented); no sc_error is filled, callers report with
 * their own context.  One owner: sc_strbuf_detach hands the bytes over,
 * sc_strbuf_free releases them.  No global state.
 */
#ifndef SCROLLCASE_STRBUF_H
#define SCROLLCASE_STRBUF_H

#include <stdarg.h>
#include <stddef.h>

#include "scrollcase/error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sc_strbuf {
    char *p;    /* NULL until the first growth */
    size_t len; /* bytes held, without the terminating NUL */
    size_t cap; /* bytes allocated (terminator included) */
} sc_strbuf;

#define SC_STRBUF_INIT {NULL, 0, 0}

void sc_strbuf_init(sc_strbuf *b);

/* Room for at least `extra` more bytes (and the NUL) without reallocating. */
sc_code sc_strbuf_reserve(sc_strbuf *b, size_t extra);

sc_code sc_strbuf_add(sc_strbuf *b, const void *bytes, size_t n);
sc_code sc_strbuf_adds(sc_strbuf *b, const char *s);
sc_code sc_strbuf_addc(sc_strbuf *b, char c);
sc_code sc_strbuf_printf(sc_strbuf *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
sc_code sc_strbuf_vprintf(sc_strbuf *b, const char *fmt, va_list ap);

/* Insert n bytes at offset at (at <= len). */
sc_code sc_strbuf_insert(sc_strbuf *b, size_t at, const void *bytes, size_t n);

/* Shorten to len bytes (len <= b->len); keeps the allocation. */
void sc_strbuf_truncate(sc_strbuf *b, size_t len);

/*
 * Hand the bytes to the caller (free() them) and reset the buffer.  An
 * empty buffer yields an allocated "" — or NULL when even that fails.
 * *len_out (optional) receives the length.
 */
char *sc_strbuf_detach(sc_strbuf *b, size_t *len_out);

void sc_strbuf_free(sc_strbuf *b);

/*
 * The capacity the buffer grows to when it must hold `need` bytes, from
 * `cap`: cap doubled (from 64) until it is enough; 0 when the doubling
 * would overflow SIZE_MAX.  Exposed so the guard can be tested.
 */
size_t sc_strbuf_grown_capacity(size_t cap, size_t need);

#ifdef __cplusplus
}
#endif

#endif
