/* SPDX-License-Identifier: Apache-2.0 */
/*
 * util.h — small helpers shared by the conformance runner and adapters:
 * a growable byte buffer, allocation that cannot return NULL, UTF-8
 * sanitising for reports, recursive removal and copying of directory trees.
 *
 * These are tools, not library code: on out-of-memory they print a message
 * and exit with status 3 (which the runner and the adapter protocol both
 * treat as a crash, never as a result).
 */
#ifndef SC_CONFORM_UTIL_H
#define SC_CONFORM_UTIL_H

#include <stdarg.h>
#include <stddef.h>

typedef struct sc_buf {
    char *data; /* always NUL-terminated once anything was added */
    size_t len;
    size_t cap;
} sc_buf;

void sc_buf_add(sc_buf *b, const void *bytes, size_t len);
void sc_buf_puts(sc_buf *b, const char *s);
void sc_buf_printf(sc_buf *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
void sc_buf_vprintf(sc_buf *b, const char *fmt, va_list ap)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 0)))
#endif
    ;
/* The contents as a C string ("" when empty); still owned by b. */
const char *sc_buf_str(sc_buf *b);
void sc_buf_free(sc_buf *b);

void *sc_xmalloc(size_t n);
void *sc_xrealloc(void *p, size_t n);
char *sc_xstrdup(const char *s);
char *sc_xstrndup(const char *s, size_t n);
/* dir + "/" + name, never NULL. */
char *sc_xjoin(const char *dir, const char *name);

/*
 * A copy of len bytes as valid UTF-8: every byte that does not start a
 * well-formed sequence becomes U+FFFD, NUL becomes U+FFFD.  With xml set,
 * also every character XML 1.0 forbids (C0 controls other than TAB, LF, CR;
 * U+FFFE, U+FFFF) becomes U+FFFD.  Never NULL.
 */
char *sc_utf8_sanitize(const char *s, size_t len, int xml);

/*
 * Remove a file or a directory tree without following symbolic links.
 * Returns 0, or -1 (errno set from the first failure) after trying all.
 */
int sc_rmtree(const char *path);

/*
 * Copy the tree at src (a directory) to dst (which must not exist): regular
 * files and directories only; anything else (a link, a device) is refused.
 * Returns 0, or -1 with a message in msg.
 */
int sc_copytree(const char *src, const char *dst, char *msg, size_t msgsize);

/* Milliseconds on the monotonic clock. */
double sc_now_ms(void);

/*
 * Building the runner's JSON documents: each returns or takes ownership of v
 * and, when memory runs out, says so on stderr and exits 3 (the runner's
 * status for an internal failure).
 */
struct sc_json;
struct sc_json *cf_json_must(struct sc_json *v);
void cf_json_put(struct sc_json *o, const char *key, struct sc_json *v);
void cf_json_push(struct sc_json *a, struct sc_json *v);

#endif
