/* SPDX-License-Identifier: Apache-2.0 */
/*
 * parity.c — the accelerator parity comparison (docs/format-v3.md 17).
 *
 * Guarantees: see parity.h.  The arithmetic of 17.3 is written out one
 * operation at a time, in index order, so that the result is the same bits
 * as the reference model's (fixtures/parityref.py); the build compiles C11
 * without GNU extensions, where GCC does not contract a*b+c into an FMA.
 */
#include "scrollcase/parity.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "scrollcase/file.h"

/* ---- tolerances (17.2) ------------------------------------------------- */

sc_code sc_parity_tolerances_check(const sc_parity_tolerances *t, sc_error *err)
{
    if (!t->has_absolute && !t->has_relative && !t->has_minimum_cosine)
        return sc_error_set(err, SC_E_INVALID_TOLERANCE, "tolerances",
                            "no tolerance given: at least one of absolute, relative, "
                            "minimumCosine is required");
    if (t->has_absolute && !(isfinite(t->absolute) && t->absolute > 0))
        return sc_error_set(err, SC_E_INVALID_TOLERANCE, "tolerances.absolute",
                            "tolerances.absolute must be a finite number greater than 0");
    if (t->has_relative && !(isfinite(t->relative) && t->relative > 0))
        return sc_error_set(err, SC_E_INVALID_TOLERANCE, "tolerances.relative",
                            "tolerances.relative must be a finite number greater than 0");
    if (t->has_minimum_cosine && !(isfinite(t->minimum_cosine) && t->minimum_cosine <= 1))
        return sc_error_set(err, SC_E_INVALID_TOLERANCE, "tolerances.minimumCosine",
                            "tolerances.minimumCosine must be a finite number at most 1");
    return SC_OK;
}

static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

sc_code sc_parity_tolerance_parse(const char *text, const char *what, double *out,
                                  sc_error *err)
{
    size_t n = text != NULL ? strlen(text) : 0;
    /* One number literal and nothing around it: it starts with '-' or a digit
     * and ends with a digit; the strict reader checks the rest. */
    if (n == 0 || !(text[0] == '-' || is_digit(text[0])) || !is_digit(text[n - 1]))
        return sc_error_set(err, SC_E_INVALID_TOLERANCE, what,
                            "%s is not a JSON number literal", what);
    sc_json *v = NULL;
    sc_error perr;
    if (sc_json_parse(text, n, &v, &perr) != SC_OK) {
        if (perr.code == SC_E_OUT_OF_MEMORY)
            return sc_error_set(err, SC_E_OUT_OF_MEMORY, what, "out of memory");
        return sc_error_set(err, SC_E_INVALID_TOLERANCE, what,
                            "%s is not a JSON number literal", what);
    }
    int ok = v->type == SC_JSON_NUMBER;
    double d = v->number;
    sc_json_free(v);
    if (!ok)
        return sc_error_set(err, SC_E_INVALID_TOLERANCE, what,
                            "%s is not a JSON number literal", what);
    *out = d;
    return SC_OK;
}

sc_code sc_parity_tolerances_from_json(const sc_json *obj, sc_parity_tolerances *t,
                                       sc_error *err)
{
    memset(t, 0, sizeof *t);
    if (!sc_json_is(obj, SC_JSON_OBJECT))
        return sc_error_set(err, SC_E_INVALID_TOLERANCE, "tolerances",
                            "tolerances must be an object");
    for (const sc_json *m = obj->child; m != NULL; m = m->next) {
        int *has;
        double *val;
        if (strcmp(m->key, "absolute") == 0 && m->key_length == 8) {
            has = &t->has_absolute;
            val = &t->absolute;
        } else if (strcmp(m->key, "relative") == 0 && m->key_length == 8) {
            has = &t->has_relative;
            val = &t->relative;
        } else if (strcmp(m->key, "minimumCosine") == 0 && m->key_length == 13) {
            has = &t->has_minimum_cosine;
            val = &t->minimum_cosine;
        } else {
            return sc_error_set(err, SC_E_INVALID_TOLERANCE, "tolerances",
                                "tolerances.%s is not allowed", m->key);
        }
        if (m->type != SC_JSON_NUMBER)
            return sc_error_set(err, SC_E_INVALID_TOLERANCE, "tolerances",
                                "tolerances.%s must be a number", m->key);
        *has = 1;
        *val = m->number;
    }
    return sc_parity_tolerances_check(t, err);
}

sc_json *sc_parity_tolerances_json(const sc_parity_tolerances *t)
{
    sc_json *o = sc_json_new_object();
    if (o == NULL)
        return NULL;
    int bad = 0;
    if (t->has_absolute)
        bad |= sc_json_object_append(o, "absolute", sc_json_new_number(t->absolute));
    if (t->has_relative)
        bad |= sc_json_object_append(o, "relative", sc_json_new_number(t->relative));
    if (t->has_minimum_cosine)
        bad |= sc_json_object_append(o, "minimumCosine",
                                     sc_json_new_number(t->minimum_cosine));
    if (bad) {
        sc_json_free(o);
        return NULL;
    }
    return o;
}

/* ---- values (17.1) ------------------------------------------------------ */

static int hex_value(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    return -1;
}

/* A bit-pattern string: 1 and *out on success, 0 when it is not one. */
static int bit_pattern(const sc_json *s, double *out)
{
    if (s->length != 10 && s->length != 18)
        return 0;
    if (s->string[0] != '0' || s->string[1] != 'x')
        return 0;
    uint64_t bits = 0;
    for (size_t i = 2; i < s->length; i++) {
        int h = hex_value(s->string[i]);
        if (h < 0)
            return 0;
        bits = (bits << 4) | (uint64_t)h;
    }
    if (s->length == 10) {
        uint32_t b32 = (uint32_t)bits;
        float f;
        memcpy(&f, &b32, sizeof f);
        *out = (double)f;
    } else {
        memcpy(out, &bits, sizeof *out);
    }
    return 1;
}

sc_code sc_parity_values_from_json(const sc_json *doc, const char *what,
                                   sc_parity_values *out, sc_error *err)
{
    out->values = NULL;
    out->count = 0;
    const sc_json *arr = doc;
    if (sc_json_is(doc, SC_JSON_OBJECT)) {
        arr = sc_json_get(doc, "values");
        if (arr == NULL)
            return sc_error_set(err, SC_E_INVALID_PARITY_VALUES, what,
                                "%s: an object without a \"values\" member", what);
    }
    if (!sc_json_is(arr, SC_JSON_ARRAY))
        return sc_error_set(err, SC_E_INVALID_PARITY_VALUES, what,
                            "%s: the values are a %s, not an array", what,
                            sc_json_type_name(arr));
    if (arr->length == 0)
        return sc_error_set(err, SC_E_INVALID_PARITY_VALUES, what,
                            "%s: the values array is empty", what);
    double *v = malloc(arr->length * sizeof *v);
    if (v == NULL)
        return sc_error_set(err, SC_E_OUT_OF_MEMORY, what, "out of memory");
    size_t i = 0;
    for (const sc_json *e = arr->child; e != NULL; e = e->next, i++) {
        if (e->type == SC_JSON_NUMBER) {
            v[i] = e->number;
        } else if (e->type != SC_JSON_STRING || !bit_pattern(e, &v[i])) {
            free(v);
            return sc_error_set(err, SC_E_INVALID_PARITY_VALUES, what,
                                "%s: value %zu is neither a number nor a bit pattern "
                                "(\"0x\" and 8 or 16 lowercase hex digits)",
                                what, i);
        }
    }
    /* Shape first, then finiteness: a NaN is named only in a well-formed vector. */
    for (i = 0; i < arr->length; i++)
        if (!isfinite(v[i])) {
            const char *which = isnan(v[i]) ? "NaN" : "an infinity";
            free(v);
            return sc_error_set(err, SC_E_PARITY_NON_FINITE, what, "%s: value %zu is %s",
                                what, i, which);
        }
    out->values = v;
    out->count = arr->length;
    return SC_OK;
}

sc_code sc_parity_values_parse(const char *bytes, size_t len, const char *what,
                               sc_parity_values *out, sc_error *err)
{
    out->values = NULL;
    out->count = 0;
    sc_json *doc = NULL;
    sc_code c = sc_json_parse(bytes, len, &doc, err);
    if (c != SC_OK) {
        sc_error_prefix(err, what);
        return c;
    }
    c = sc_parity_values_from_json(doc, what, out, err);
    sc_json_free(doc);
    return c;
}

sc_code sc_parity_values_read_file(const char *path, sc_parity_values *out,
                                   sc_error *err)
{
    out->values = NULL;
    out->count = 0;
    char *bytes = NULL;
    size_t len = 0;
    sc_code c = sc_file_read(path, &bytes, &len, NULL, err);
    if (c != SC_OK)
        return c;
    c = sc_parity_values_parse(bytes, len, path, out, err);
    free(bytes);
    return c;
}

void sc_parity_values_free(sc_parity_values *v)
{
    if (v == NULL)
        return;
    free(v->values);
    v->values = NULL;
    v->count = 0;
}

/* ---- measurements (17.3) ------------------------------------------------ */

static double saturate(double x)
{
    return isfinite(x) ? x : DBL_MAX;
}

sc_code sc_parity_measure(const sc_parity_values *reference,
                          const sc_parity_values *candidate, sc_parity_measurement *m,
                          sc_error *err)
{
    if (reference->count != candidate->count)
        return sc_error_set(err, SC_E_PARITY_LENGTH_MISMATCH, NULL,
                            "parity outputs differ in length: %zu reference values, "
                            "%zu candidate values",
                            reference->count, candidate->count);
    size_t n = reference->count;
    const double *r = reference->values, *c = candidate->values;
    double max_abs = 0.0, max_rel = 0.0, a = 0.0, b = 0.0;
    for (size_t i = 0; i < n; i++) {
        double d = saturate(fabs(c[i] - r[i]));
        if (d > max_abs)
            max_abs = d;
        if (r[i] != 0.0) {
            double q = saturate(d / fabs(r[i]));
            if (q > max_rel)
                max_rel = q;
        }
        if (fabs(r[i]) > a)
            a = fabs(r[i]);
        if (fabs(c[i]) > b)
            b = fabs(c[i]);
    }
    double cosine;
    if (a == 0.0 && b == 0.0) {
        cosine = 1.0; /* two zero vectors agree */
    } else if (a == 0.0 || b == 0.0) {
        cosine = 0.0; /* a zero vector has no direction to agree with */
    } else {
        double dot = 0.0, nr = 0.0, nc = 0.0;
        for (size_t i = 0; i < n; i++) {
            double x = r[i] / a, y = c[i] / b;
            double xy = x * y, xx = x * x, yy = y * y;
            dot = dot + xy;
            nr = nr + xx;
            nc = nc + yy;
        }
        /* one square root of the product: for equal vectors dot, nr and nc
         * are the same double and sqrt(nr * nr) == nr exactly (correctly
         * rounded operations, 1 <= nr <= n), so C is exactly 1 and
         * minimumCosine 1 passes them; sqrt(nr) * sqrt(nc) can miss by an ulp */
        double den = sqrt(nr * nc);
        cosine = dot / den;
        if (cosine > 1.0)
            cosine = 1.0;
        if (cosine < -1.0)
            cosine = -1.0;
    }
    m->value_count = n;
    m->maximum_absolute_error = max_abs;
    m->maximum_relative_error = max_rel;
    m->cosine_similarity = cosine;
    return SC_OK;
}

/* ---- bounds (17.4) ------------------------------------------------------ */

sc_code sc_parity_judge(const sc_parity_measurement *m, const sc_parity_tolerances *t,
                        const char *reference_name, const char *candidate_name,
                        sc_error *err)
{
    char x[32], b[32];
    const char *rn = reference_name != NULL ? reference_name : "reference";
    const char *cn = candidate_name != NULL ? candidate_name : "candidate";
    if (t->has_absolute && m->maximum_absolute_error > t->absolute) {
        sc_json_format_number(m->maximum_absolute_error, x, sizeof x);
        sc_json_format_number(t->absolute, b, sizeof b);
        return sc_error_set(err, SC_E_PARITY_BREACH, "tolerances.absolute",
                            "parity %s vs %s: maximum absolute error %s exceeds %s", rn, cn,
                            x, b);
    }
    if (t->has_relative && m->maximum_relative_error > t->relative) {
        sc_json_format_number(m->maximum_relative_error, x, sizeof x);
        sc_json_format_number(t->relative, b, sizeof b);
        return sc_error_set(err, SC_E_PARITY_BREACH, "tolerances.relative",
                            "parity %s vs %s: maximum relative error %s exceeds %s", rn, cn,
                            x, b);
    }
    if (t->has_minimum_cosine && m->cosine_similarity < t->minimum_cosine) {
        sc_json_format_number(m->cosine_similarity, x, sizeof x);
        sc_json_format_number(t->minimum_cosine, b, sizeof b);
        return sc_error_set(err, SC_E_PARITY_BREACH, "tolerances.minimumCosine",
                            "parity %s vs %s: cosine similarity %s is below %s", rn, cn, x,
                            b);
    }
    return SC_OK;
}

sc_code sc_parity_compare(const sc_parity_values *reference,
                          const sc_parity_values *candidate,
                          const sc_parity_tolerances *t, const char *reference_name,
                          const char *candidate_name, sc_parity_measurement *m,
                          sc_error *err)
{
    sc_parity_measurement local;
    if (m == NULL)
        m = &local;
    sc_code c = sc_parity_tolerances_check(t, err);
    if (c == SC_OK)
        c = sc_parity_measure(reference, candidate, m, err);
    if (c == SC_OK)
        c = sc_parity_judge(m, t, reference_name, candidate_name, err);
    return c;
}

sc_json *sc_parity_measurement_json(const sc_parity_measurement *m)
{
    sc_json *o = sc_json_new_object();
    if (o == NULL)
        return NULL;
    int bad = sc_json_object_append(o, "valueCount",
                                    sc_json_new_number((double)m->value_count));
    bad |= sc_json_object_append(o, "maximumAbsoluteError",
                                 sc_json_new_number(m->maximum_absolute_error));
    bad |= sc_json_object_append(o, "maximumRelativeError",
                                 sc_json_new_number(m->maximum_relative_error));
    bad |= sc_json_object_append(o, "cosineSimilarity",
                                 sc_json_new_number(m->cosine_similarity));
    if (bad) {
        sc_json_free(o);
        return NULL;
    }
    return o;
}

/* ---- the gate (17.5) ---------------------------------------------------- */

sc_code sc_parity_gate(const char *const *accelerators, const sc_parity_values *runs,
                       size_t n, const sc_parity_tolerances *t, sc_json **gate,
                       sc_error *err)
{
    *gate = NULL;
    if (n < 2)
        return sc_error_set(err, SC_E_INTERNAL, "parity.accelerators",
                            "a parity gate needs at least two runs, got %zu", n);
    sc_code c = sc_parity_tolerances_check(t, err);
    if (c != SC_OK)
        return c;
    sc_json *g = sc_json_new_object();
    sc_json *list = sc_json_new_array();
    int bad = g == NULL || list == NULL;
    if (!bad) {
        bad |= sc_json_object_append(g, "reference", sc_json_new_string(accelerators[0]));
        bad |= sc_json_object_append(g, "tolerances", sc_parity_tolerances_json(t));
        bad |= sc_json_object_append(g, "valueCount",
                                     sc_json_new_number((double)runs[0].count));
        bad |= sc_json_object_append(g, "comparisons", list);
        list = NULL;
    }
    for (size_t i = 1; !bad && i < n; i++) {
        sc_parity_measurement m;
        c = sc_parity_measure(&runs[0], &runs[i], &m, err);
        if (c == SC_OK)
            c = sc_parity_judge(&m, t, accelerators[0], accelerators[i], err);
        if (c != SC_OK) {
            sc_json_free(g);
            return c;
        }
        sc_json *item = sc_json_new_object();
        bad = item == NULL;
        bad = bad || sc_json_object_append(item, "accelerator",
                                           sc_json_new_string(accelerators[i]));
        bad = bad || sc_json_object_append(item, "maximumAbsoluteError",
                                           sc_json_new_number(m.maximum_absolute_error));
        bad = bad || sc_json_object_append(item, "maximumRelativeError",
                                           sc_json_new_number(m.maximum_relative_error));
        bad = bad || sc_json_object_append(item, "cosineSimilarity",
                                           sc_json_new_number(m.cosine_similarity));
        if (bad) {
            sc_json_free(item);
            break;
        }
        bad = sc_json_array_append(sc_json_get(g, "comparisons"), item) != 0;
    }
    sc_json_free(list);
    if (bad) {
        sc_json_free(g);
        return sc_error_set(err, SC_E_OUT_OF_MEMORY, NULL, "out of memory");
    }
    *gate = g;
    return SC_OK;
}
