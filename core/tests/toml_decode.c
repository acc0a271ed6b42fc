/* SPDX-License-Identifier: Apache-2.0 */
/*
 * toml_decode.c — the toml-test decoder interface over sc_toml_read.
 *
 *   toml_decode [FILE]   read FILE (or standard input) as TOML 1.0
 *
 * On success prints toml-test's tagged JSON on standard output and exits 0:
 * tables are objects, arrays are arrays, every other value is
 * {"type": T, "value": TEXT} with T one of string, integer, float, bool,
 * datetime, datetime-local, date-local, time-local.  A document the reader
 * refuses: its error line on standard error, exit 1.  Anything else (no
 * memory, an unreadable file): exit 2.
 */
#define _POSIX_C_SOURCE 200809L

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scrollcase/json.h"
#include "scrollcase/strbuf.h"
#include "scrollcase/toml.h"

static sc_json *tagged(const char *type, const char *value, size_t len)
{
    sc_json *o = sc_json_new_object();
    if (o == NULL)
        return NULL;
    if (sc_json_object_append(o, "type", sc_json_new_string(type)) != 0 ||
        sc_json_object_append(o, "value", sc_json_new_string_len(value, len)) != 0) {
        sc_json_free(o);
        return NULL;
    }
    return o;
}

static sc_json *convert(const sc_toml *v)
{
    char num[64];
    switch (v->type) {
    case SC_TOML_TABLE:
    case SC_TOML_ARRAY: {
        sc_json *j = v->type == SC_TOML_TABLE ? sc_json_new_object() : sc_json_new_array();
        for (const sc_toml *m = v->child; j != NULL && m != NULL; m = m->next) {
            if (v->type == SC_TOML_TABLE && strlen(m->key) != m->key_length) {
                fprintf(stderr, "toml_decode: a key holding U+0000 cannot be printed\n");
                sc_json_free(j);
                return NULL;
            }
            sc_json *x = convert(m);
            int bad = x == NULL || (v->type == SC_TOML_TABLE ? sc_json_object_append(j, m->key, x)
                                                             : sc_json_array_append(j, x));
            if (bad) {
                sc_json_free(j);
                j = NULL;
            }
        }
        return j;
    }
    case SC_TOML_STRING:
    case SC_TOML_DATETIME:
    case SC_TOML_LOCAL_DATETIME:
    case SC_TOML_LOCAL_DATE:
    case SC_TOML_LOCAL_TIME:
        return tagged(sc_toml_type_name(v->type), v->string, v->length);
    case SC_TOML_INTEGER:
        snprintf(num, sizeof num, "%" PRId64, v->integer);
        return tagged("integer", num, strlen(num));
    case SC_TOML_FLOAT:
        if (isnan(v->real))
            snprintf(num, sizeof num, "nan");
        else if (isinf(v->real))
            snprintf(num, sizeof num, "%s", v->real < 0 ? "-inf" : "inf");
        else
            snprintf(num, sizeof num, "%.17g", v->real);
        return tagged("float", num, strlen(num));
    case SC_TOML_BOOL:
        return tagged("bool", v->boolean ? "true" : "false", v->boolean ? 4 : 5);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    FILE *f = argc > 1 ? fopen(argv[1], "rb") : stdin;
    if (f == NULL) {
        perror(argv[1]);
        return 2;
    }
    sc_strbuf in = SC_STRBUF_INIT;
    char chunk[65536];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
        if (sc_strbuf_add(&in, chunk, n) != SC_OK) {
            fprintf(stderr, "toml_decode: out of memory\n");
            return 2;
        }
    int rerr = ferror(f);
    if (f != stdin)
        fclose(f);
    if (rerr) {
        fprintf(stderr, "toml_decode: cannot read the input\n");
        sc_strbuf_free(&in);
        return 2;
    }
    sc_toml *doc = NULL;
    sc_error err;
    sc_code rc = sc_toml_read(in.p ? in.p : "", in.len, argc > 1 ? argv[1] : "-", &doc, &err);
    sc_strbuf_free(&in);
    if (rc != SC_OK) {
        fprintf(stderr, "%s\n", err.message);
        return rc == SC_E_INVALID_PIXI_TOML ? 1 : 2;
    }
    sc_json *j = convert(doc);
    sc_toml_free(doc);
    char *out = NULL;
    size_t len = 0;
    if (j == NULL || sc_json_write(j, &out, &len, &err) != SC_OK) {
        fprintf(stderr, "toml_decode: cannot write the JSON: %s\n", j ? err.message : "no memory");
        sc_json_free(j);
        return 2;
    }
    sc_json_free(j);
    fwrite(out, 1, len, stdout);
    free(out);
    return 0;
}
