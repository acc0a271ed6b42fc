/* SPDX-License-Identifier: Apache-2.0 */
/*
 * parity.h — the accelerator parity comparison (docs/format-v3.md 17).
 *
 * Guarantees:
 *  - A values document is read exactly as 17.1 says: a non-empty array, or
 *    an object whose `values` member is one, of JSON numbers or bit-pattern
 *    strings ("0x" and 8 lowercase hex digits for a binary32, 16 for a
 *    binary64).  A wrong shape is invalid-parity-values; a NaN or an
 *    infinity (only a bit pattern can carry one) is parity-non-finite.
 *  - Tolerances are checked before anything is compared (17.2,
 *    invalid-tolerance); lengths that differ are parity-length-mismatch.
 *  - The measurements are computed in one pass in index order with the
 *    operations of 17.3, so every conforming implementation that uses IEEE
 *    binary64 without fused multiply-add gets the same bits; a measurement
 *    that would overflow is recorded as the largest finite double.
 *  - All declared bounds must hold; the first breach in the order absolute,
 *    relative, cosine is reported as parity-breach naming the measurement,
 *    its value and the bound.
 * Nothing is kept between calls; values are owned by their sc_parity_values.
 */
#ifndef SCROLLCASE_PARITY_H
#define SCROLLCASE_PARITY_H

#include <stddef.h>

#include "scrollcase/error.h"
#include "scrollcase/json.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The declared bounds; a bound counts only when its has_ flag is set. */
typedef struct sc_parity_tolerances {
    int has_absolute, has_relative, has_minimum_cosine;
    double absolute, relative, minimum_cosine;
} sc_parity_tolerances;

/* One run's output.  Owned; sc_parity_values_free. */
typedef struct sc_parity_values {
    double *values;
    size_t count;
} sc_parity_values;

/* What 17.3 computes for one candidate against the reference. */
typedef struct sc_parity_measurement {
    size_t value_count;
    double maximum_absolute_error;
    double maximum_relative_error;
    double cosine_similarity;
} sc_parity_measurement;

/* 17.2: at least one bound; absolute and relative finite and > 0;
 * minimumCosine finite and <= 1.  Else invalid-tolerance. */
sc_code sc_parity_tolerances_check(const sc_parity_tolerances *t, sc_error *err);

/*
 * A tolerance given as text (the command line, the conformance case): the
 * text MUST be exactly one JSON number literal (2.1), nothing around it.
 * Else invalid-tolerance naming `what`.  The range is not checked here.
 */
sc_code sc_parity_tolerance_parse(const char *text, const char *what, double *out,
                                  sc_error *err);

/*
 * A tolerances object {absolute?, relative?, minimumCosine?} of numbers, no
 * other member, then sc_parity_tolerances_check.  Else invalid-tolerance.
 */
sc_code sc_parity_tolerances_from_json(const sc_json *obj, sc_parity_tolerances *t,
                                       sc_error *err);

/* The values of a parsed document (17.1); `what` names it in messages. */
sc_code sc_parity_values_from_json(const sc_json *doc, const char *what,
                                   sc_parity_values *out, sc_error *err);

/* Parse len bytes with the strict reader (invalid-json), then 17.1. */
sc_code sc_parity_values_parse(const char *bytes, size_t len, const char *what,
                               sc_parity_values *out, sc_error *err);

/* Read a whole file (io-error), then sc_parity_values_parse. */
sc_code sc_parity_values_read_file(const char *path, sc_parity_values *out,
                                   sc_error *err);

void sc_parity_values_free(sc_parity_values *v);

/* 17.3: the lengths (parity-length-mismatch), then the three measurements. */
sc_code sc_parity_measure(const sc_parity_values *reference,
                          const sc_parity_values *candidate, sc_parity_measurement *m,
                          sc_error *err);

/* 17.4: every declared bound, first breach → parity-breach. */
sc_code sc_parity_judge(const sc_parity_measurement *m, const sc_parity_tolerances *t,
                        const char *reference_name, const char *candidate_name,
                        sc_error *err);

/*
 * The whole comparison of 17: tolerances, lengths, measurements, bounds.
 * m (may be NULL) is filled whenever the measurements were taken, so a
 * breach still reports them.
 */
sc_code sc_parity_compare(const sc_parity_values *reference,
                          const sc_parity_values *candidate,
                          const sc_parity_tolerances *t, const char *reference_name,
                          const char *candidate_name, sc_parity_measurement *m,
                          sc_error *err);

/* {valueCount, maximumAbsoluteError, maximumRelativeError, cosineSimilarity}. */
sc_json *sc_parity_measurement_json(const sc_parity_measurement *m);

/* The tolerances object with the declared bounds, in the order of 17.2. */
sc_json *sc_parity_tolerances_json(const sc_parity_tolerances *t);

/*
 * The gate of 17.5: runs[0] (of accelerators[0]) is the reference, every
 * later run a candidate compared against it in order; the first failure is
 * returned.  On success *gate is the release's `gates.parity` object
 * {reference, tolerances, valueCount, comparisons}.  n < 2 is internal (a
 * scroll's parity member always names two accelerators).
 */
sc_code sc_parity_gate(const char *const *accelerators, const sc_parity_values *runs,
                       size_t n, const sc_parity_tolerances *t, sc_json **gate,
                       sc_error *err);

#ifdef __cplusplus
}
#endif

#endif
