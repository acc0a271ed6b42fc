/* SPDX-License-Identifier: Apache-2.0 */
/*
 * error.c — error object and code names.
 *
 * Guarantees: formatting an error never allocates; messages are one line,
 * and one cut at the buffer's end keeps its last character whole (valid
 * UTF-8 in, valid UTF-8 out).
 */
#include "scrollcase/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "utf8_internal.h"

static const char *const code_names[] = {
#define SC_X_NAME(e, s) s,
    SC_ERROR_CODES(SC_X_NAME)
#undef SC_X_NAME
};

void sc_error_clear(sc_error *err)
{
    if (err == NULL)
        return;
    err->code = SC_OK;
    err->message[0] = '\0';
    err->path[0] = '\0';
}

sc_code sc_error_set(sc_error *err, sc_code code, const char *path,
                     const char *fmt, ...)
{
    if (err == NULL)
        return code;
    err->code = code;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
    sc_utf8_one_line(err->message);
    if (path != NULL) {
        snprintf(err->path, sizeof err->path, "%s", path);
        sc_utf8_one_line(err->path);
    } else {
        err->path[0] = '\0';
    }
    return code;
}

void sc_error_prefix(sc_error *err, const char *prefix)
{
    if (err == NULL || prefix == NULL || prefix[0] == '\0')
        return;
    char tmp[SC_ERROR_MESSAGE_MAX];
    size_t cap = sizeof tmp - 1, n = 0;
    for (const char *s = prefix; *s && n < cap; s++)
        tmp[n++] = *s;
    for (const char *s = ": "; *s && n < cap; s++)
        tmp[n++] = *s;
    for (const char *s = err->message; *s && n < cap; s++)
        tmp[n++] = *s;
    tmp[n] = '\0';
    memcpy(err->message, tmp, n + 1);
    sc_utf8_one_line(err->message);
}

const char *sc_code_name(sc_code code)
{
    if ((unsigned)code >= (unsigned)SC_CODE_COUNT_)
        return "internal";
    return code_names[code];
}

sc_code sc_code_from_name(const char *name)
{
    if (name == NULL)
        return SC_CODE_COUNT_;
    for (size_t i = 0; i < (size_t)SC_CODE_COUNT_; i++)
        if (strcmp(code_names[i], name) == 0)
            return (sc_code)i;
    return SC_CODE_COUNT_;
}

size_t sc_code_count(void)
{
    return (size_t)SC_CODE_COUNT_;
}
