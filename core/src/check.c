/* SPDX-License-Identifier: Apache-2.0 */
/*
 * check.c — schema-check primitives shared by scroll.c and manifest.c.
 *
 * Guarantees: see check.h.
 */
#include "check.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static sc_code vfail(const sc_check *c, sc_code code, const char *field,
                     const char *fmt, va_list ap)
{
    char what[SC_ERROR_MESSAGE_MAX];
    vsnprintf(what, sizeof what, fmt, ap);
    if (c->prefix != NULL)
        return sc_error_set(c->err, code, field, "%s: %s", c->prefix, what);
    return sc_error_set(c->err, code, field, "%s", what);
}

sc_code sc_check_fail(const sc_check *c, const char *field, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sc_code rc = vfail(c, c->code, field, fmt, ap);
    va_end(ap);
    return rc;
}

sc_code sc_check_fail_code(const sc_check *c, sc_code code, const char *field,
                           const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sc_code rc = vfail(c, code, field, fmt, ap);
    va_end(ap);
    return rc;
}

void sc_field_member(char out[SC_FIELD_MAX], const char *parent, const char *key)
{
    if (snprintf(out, SC_FIELD_MAX, "%s.%s", parent, key) >= SC_FIELD_MAX)
        memcpy(out + SC_FIELD_MAX - 4, "...", 4);
}

void sc_field_index(char out[SC_FIELD_MAX], const char *parent, size_t i)
{
    if (snprintf(out, SC_FIELD_MAX, "%s[%zu]", parent, i) >= SC_FIELD_MAX)
        memcpy(out + SC_FIELD_MAX - 4, "...", 4);
}

sc_code sc_check_type(const sc_check *c, const sc_json *v, sc_json_type t,
                      const char *field)
{
    static const char *const names[] = {"null", "a boolean", "a number",
                                        "a string", "an array", "an object"};
    if (sc_json_is(v, t))
        return SC_OK;
    return sc_check_fail(c, field, "%s must be %s, received %s", field, names[t],
                         sc_json_type_name(v));
}

sc_code sc_check_text(const sc_check *c, const sc_json *v, const char *field)
{
    sc_code rc = sc_check_type(c, v, SC_JSON_STRING, field);
    if (rc == SC_OK && v->length == 0)
        rc = sc_check_fail(c, field, "%s must not be empty", field);
    return rc;
}

sc_code sc_check_integer(const sc_check *c, const sc_json *v, const char *field,
                         uint64_t min, uint64_t max)
{
    uint64_t n = 0;
    if (!sc_json_is(v, SC_JSON_NUMBER) || !sc_json_uint53(v, &n))
        return sc_check_fail(c, field,
                             "%s must be an integer literal in 0..9007199254740991, "
                             "received %s", field, sc_json_type_name(v));
    if (n < min || n > max)
        return sc_check_fail(c, field, "%s must be between %llu and %llu", field,
                             (unsigned long long)min, (unsigned long long)max);
    return SC_OK;
}

sc_code sc_check_lower_hex(const sc_check *c, const sc_json *v,
                           const char *field, size_t digits)
{
    sc_code rc = sc_check_type(c, v, SC_JSON_STRING, field);
    if (rc != SC_OK)
        return rc;
    int ok = v->length == digits;
    for (size_t i = 0; ok && i < digits; i++) {
        char ch = v->string[i];
        ok = (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'f');
    }
    if (!ok)
        return sc_check_fail(c, field, "%s must be exactly %zu lowercase hexadecimal digits",
                             field, digits);
    return SC_OK;
}
