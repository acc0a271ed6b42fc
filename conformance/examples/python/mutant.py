#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""The example port with one plausible porting mistake switched on.

    SCROLLCASE_MUTATION=<name> mutant.py ...   (the arguments of adapter.py)

adapter.py is the template ports copy; this wrapper imports it, replaces
one of its rule points with the mistake a port written in another language
tends to make (a `\\d` for [0-9], a UTF-16 sort, isspace() for JSON white
space, a bound off by one, two checks in the wrong order, ...) and then runs
it unchanged.  Unset: the adapter as it is.  An unknown name: every call
exits 3.  Its hello adds "mutation" (the active one) and "mutations" (all of
them), as scrollcase-mutant-adapter does.  mutants.json beside this file
names, for each mutation, the cases that must catch it; run_mutants.py
checks that they do (CTest conformance/example-python-mutants).
"""

import math
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import adapter as A  # noqa: E402


def unicode_ws():
    """Strip what str.isspace() calls white space around the value, as a port
    that trims its input with a Unicode-aware trim() does."""
    parse = A.json_parse

    def json_parse(data, limit=None):
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            return parse(data, limit)
        return parse(text.strip().encode("utf-8"), limit)
    A.json_parse = json_parse


def bom_skipped():
    parse = A.json_parse
    A.json_parse = lambda data, limit=None: parse(
        data[3:] if data.startswith(b"\xef\xbb\xbf") else data, limit)


def negative_zero_written():
    es = A.es_number
    A.es_number = lambda x: "-0" if isinstance(x, float) and x == 0 and \
        math.copysign(1, x) < 0 else es(x)


def drive_unicode_letter():
    def has_drive_prefix(p):
        t = p.decode("utf-8", "replace")
        return len(t) >= 2 and t[0].isalpha() and t[1] == ":"
    A.has_drive_prefix = has_drive_prefix


def utf16_order():
    def record_after(prev, record):
        key = lambda r: (r[:r.index(b"\0")].decode("utf-8", "replace").encode("utf-16-be"),
                         r[r.index(b"\0"):])
        return key(record) > key(prev)
    A.record_after = record_after


def collisions_first():
    def judge_paths(paths):
        A.check_collisions(paths)
        for p in paths:
            A.path_check(p)
    A.judge_paths = judge_paths


def unicode_casefold():
    A.ascii_fold = lambda p: p.decode("utf-8", "replace").casefold().encode("utf-8")


def tolerance_float_parse():
    def parity_tolerance(text, name):
        try:
            v = float(text)   # takes "+1e-4", " 1e-4 ", "1_0" ...
        except ValueError:
            v = None
        if v is None or not math.isfinite(v):
            raise A.Rejected("invalid-tolerance", name)
        return v
    A.parity_tolerance = parity_tolerance


def bound_exclusive():
    judge = A.parity_judge

    def parity_judge(m, t):
        judge(m, t)
        if "absolute" in t and m["maximumAbsoluteError"] >= t["absolute"]:
            raise A.Rejected("parity-breach", "absolute")
        if "relative" in t and m["maximumRelativeError"] >= t["relative"]:
            raise A.Rejected("parity-breach", "relative")
    A.parity_judge = parity_judge


def zero_vector_agrees():
    measure = A.parity_measure

    def parity_measure(r, c):
        m = measure(r, c)
        if max(abs(x) for x in r) == 0 or max(abs(x) for x in c) == 0:
            m["cosineSimilarity"] = 1.0   # v2's rule: a zero vector agrees with anything
        return m
    A.parity_measure = parity_measure


def values_before_tolerances():
    def parity_compare(ref, cand, args):
        r = A.parity_values(ref, "reference")
        c = A.parity_values(cand, "candidate")
        t = A.parity_tolerances(args)
        m = A.parity_measure(r, c)
        A.parity_judge(m, t)
        return m
    A.parity_compare = parity_compare


def relative_skips_tiny():
    measure = A.parity_measure

    def parity_measure(r, c):
        m = measure(r, c)
        rel = [abs(ci - ri) / abs(ri) for ri, ci in zip(r, c) if abs(ri) > 1e-12]
        m["maximumRelativeError"] = max(rel, default=0.0)
        return m
    A.parity_measure = parity_measure


def stdlib_values_reader():
    """The values documents read with the language's own JSON library (last
    duplicate wins, any depth, any integer) instead of the format's reader."""
    parse = A.json_parse
    def json_parse(data, limit=None):
        if limit is None and not data.startswith(b"\xef\xbb\xbf"):
            try:
                import json
                return json.loads(data.decode("utf-8")), 0
            except ValueError:
                pass
        return parse(data, limit)
    values = A.parity_values
    def parity_values(data, what):
        saved, A.json_parse = A.json_parse, json_parse
        try:
            return values(data, what)
        finally:
            A.json_parse = saved
    A.parity_values = parity_values


def setter(name, value):
    return lambda: setattr(A, name, value)


MUTATIONS = {
    # JSON (2.1, 2.2)
    "ws-isspace": setter("WS", b" \t\n\r\f\v"),
    "ws-unicode-trim": unicode_ws,
    "bom-skipped": bom_skipped,
    "depth-limit-63": setter("MAX_DEPTH", 63),
    "depth-limit-65": setter("MAX_DEPTH", 65),
    "integer-limit-inward": setter("MAX_SAFE", 2 ** 53 - 2),
    "negative-zero-written": negative_zero_written,
    # targets (4.2)
    "cuda-unicode-digits": setter("CUDA_VERSION", re.compile(r"(?!0)\d+\.\d+")),
    "cuda-no-length-bound": setter("CUDA_VERSION_MAX", 10 ** 6),
    "cuda-length-exclusive": setter("CUDA_VERSION_MAX", 30),
    # paths and payload lists (3, 14)
    "drive-c-only": setter("has_drive_prefix", lambda p: p[:2] in (b"C:", b"c:")),
    "drive-unicode-letter": drive_unicode_letter,
    "utf16-order": utf16_order,
    "collisions-before-safety": collisions_first,
    "unicode-casefold": unicode_casefold,
    # parity (17)
    "cosine-unclamped": setter("clamp_cosine", lambda c: c),
    "cosine-separate-roots": setter("cosine_of", lambda d, p, q: d / (math.sqrt(p) * math.sqrt(q))),
    "tolerance-float-parse": tolerance_float_parse,
    "bound-exclusive": bound_exclusive,
    "zero-vector-agrees": zero_vector_agrees,
    "values-before-tolerances": values_before_tolerances,
    "relative-skips-tiny": relative_skips_tiny,
    "stdlib-values-reader": stdlib_values_reader,
}


def main(argv):
    name = os.environ.get("SCROLLCASE_MUTATION") or None
    if name is not None and name not in MUTATIONS:
        sys.stderr.write("mutant.py: unknown mutation %r\n" % name)
        return A.EXIT_CRASH
    if name is not None:
        MUTATIONS[name]()
    hello = A.hello
    A.hello = lambda: dict(hello(), mutation=name, mutations=sorted(MUTATIONS))
    return A.main(argv)


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except SystemExit:
        raise
    except BaseException as e:
        sys.stderr.write("mutant.py: crash: %r\n" % (e,))
        sys.exit(A.EXIT_CRASH)
