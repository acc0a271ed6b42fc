/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_wheel_metadata.c — the wheel installer's text parsers against
 * arbitrary bytes: the first byte picks the parser (mod 5) and the rest is
 * its input.
 *
 *   0 WHEEL             succeeds only with Wheel-Version 1.x and a boolean
 *                       Root-Is-Purelib; otherwise invalid-wheel;
 *   1 METADATA          the Requires-Python value found holds no LF, and
 *                       sc_pep440_satisfies on it answers -1, 0 or 1;
 *   2 RECORD            rows have a non-empty path, a sha256 that is empty
 *                       or 64 lowercase hex digits, a size >= -1;
 *   3 entry_points.txt  scripts are sorted, unique, plain names, with
 *                       dotted module and attribute names;
 *   4 "spec\nversion"   PEP 440: the answer is -1, 0 or 1, and a version
 *                       that parses equals itself (==v, >=v, <=v hold;
 *                       !=v, <v, >v do not).
 * Any other error than the documented ones aborts.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scrollcase/wheel_install.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(int ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "fuzz_wheel_metadata: %s\n", what);
        abort();
    }
}

static int is_lower_hex(const char *s)
{
    size_t n = 0;
    for (; s[n]; n++)
        if (!((s[n] >= '0' && s[n] <= '9') || (s[n] >= 'a' && s[n] <= 'f')))
            return 0;
    return n == 64;
}

static void self_equal(const char *v)
{
    if (strlen(v) > 200 || sc_pep440_satisfies(">=0", v) < 0)
        return; /* not a version */
    static const char *const yes[] = {"==", ">=", "<=", "==="};
    static const char *const no[] = {"!=", "<", ">"};
    char spec[256];
    if (strchr(v, '+') != NULL) { /* a local version: only == and != take one */
        snprintf(spec, sizeof spec, "==%s", v);
        check(sc_pep440_satisfies(spec, v) == 1, "a local version does not equal itself");
        snprintf(spec, sizeof spec, "!=%s", v);
        check(sc_pep440_satisfies(spec, v) == 0, "a local version differs from itself");
        return;
    }
    for (size_t i = 0; i < 4; i++) {
        snprintf(spec, sizeof spec, "%s%s", yes[i], v);
        check(sc_pep440_satisfies(spec, v) == 1, "a version does not equal itself");
    }
    for (size_t i = 0; i < 3; i++) {
        snprintf(spec, sizeof spec, "%s%s", no[i], v);
        check(sc_pep440_satisfies(spec, v) == 0, "a version differs from itself");
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    int which = data[0] % 5;
    const char *t = (const char *)data + 1;
    size_t n = size - 1;
    sc_error err;
    sc_code c;
    if (which == 0) {
        sc_wheel_meta m;
        c = sc_wheel_meta_parse(t, n, "f.whl", &m, &err);
        check(c == SC_OK || c == SC_E_INVALID_WHEEL || c == SC_E_OUT_OF_MEMORY, "WHEEL code");
        if (c == SC_OK)
            check(m.version_major == 1 && (m.root_is_purelib == 0 || m.root_is_purelib == 1),
                  "WHEEL accepted without version 1 and a boolean purelib");
    } else if (which == 1) {
        int found;
        char *rp = sc_wheel_metadata_field(t, n, "Requires-Python", &found);
        if (rp != NULL) {
            check(found == 1, "a value without found");
            check(strchr(rp, '\n') == NULL, "a value of two lines");
            int r = sc_pep440_satisfies(rp, "3.11.4");
            check(r >= -1 && r <= 1, "a PEP 440 answer out of range");
            free(rp);
        }
    } else if (which == 2) {
        sc_wheel_record_row *rows;
        size_t nr;
        c = sc_wheel_record_parse(t, n, "f.whl", &rows, &nr, &err);
        check(c == SC_OK || c == SC_E_INVALID_WHEEL || c == SC_E_WHEEL_RECORD_MISMATCH ||
                  c == SC_E_OUT_OF_MEMORY,
              "RECORD code");
        if (c == SC_OK) {
            for (size_t i = 0; i < nr; i++) {
                check(rows[i].path[0] != '\0', "an empty RECORD path");
                check(rows[i].sha256[0] == '\0' || is_lower_hex(rows[i].sha256),
                      "a RECORD sha256 that is not hex");
                check(rows[i].size >= -1, "a negative RECORD size");
            }
            sc_wheel_record_free(rows, nr);
        }
    } else if (which == 3) {
        sc_wheel_entry_point *eps;
        size_t ne;
        c = sc_wheel_entry_points_parse(t, n, "f.whl", &eps, &ne, &err);
        check(c == SC_OK || c == SC_E_INVALID_WHEEL || c == SC_E_OUT_OF_MEMORY,
              "entry points code");
        if (c == SC_OK) {
            for (size_t i = 0; i < ne; i++) {
                check(eps[i].name[0] != '\0' && strchr(eps[i].name, '/') == NULL &&
                          strchr(eps[i].name, '\\') == NULL,
                      "a script name that is a path");
                check(eps[i].module[0] != '\0' && eps[i].attr != NULL && eps[i].attr[0] != '\0',
                      "an entry point without module:attr");
                if (i > 0)
                    check(strcmp(eps[i - 1].name, eps[i].name) < 0, "scripts not sorted");
            }
            sc_wheel_entry_points_free(eps, ne);
        }
    } else {
        char *s = malloc(n + 1);
        if (s == NULL)
            return 0;
        memcpy(s, t, n);
        s[n] = '\0';
        if (strlen(s) == n) { /* no NUL inside */
            char *nl = strchr(s, '\n');
            const char *v = "3.11.4";
            if (nl != NULL) {
                *nl = '\0';
                v = nl + 1;
            }
            int r = sc_pep440_satisfies(s, v);
            check(r >= -1 && r <= 1, "a PEP 440 answer out of range");
            self_equal(v);
        }
        free(s);
    }
    return 0;
}
