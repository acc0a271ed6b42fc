#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""An example port adapter for the Scrollcase conformance suite.

This is the template a port copies: a small, complete implementation of a few
areas of the box format, written from docs/format-v3.md alone, speaking the
adapter protocol of conformance/README.md (protocol 2) in both of its modes.
Python 3 standard library only.

    adapter.py --hello
    adapter.py <operation> --case DIR [--work DIR]     one-shot (3.1)
    adapter.py --persistent                            JSON lines (3.8)

Areas: `target` (target-id, format 4), `json` (json-read, 2.1 and 2.2),
`payload` (payload-digest and payload-list-parse, 14), `parity`
(parity-compare, 17).  A port replaces the
functions under "the implementation" with calls into its own library and keeps
the protocol part as it is.

Answers: an output object (exit 0), a rejection {"error": code} (exit 1), or
{"unsupported": reason} (exit 77).  Anything unexpected -- a malformed case,
a bug here -- is a crash (exit 3), never a rejection: the runner must be able
to tell a deliberate "no" from a broken adapter.
"""

import base64
import hashlib
import json
import math
import os
import re
import struct
import sys

PROTOCOL = 2
EXIT_REJECTED = 1
EXIT_CRASH = 3
EXIT_UNSUPPORTED = 77


class Rejected(Exception):
    """The implementation refused the input, with an error code of docs/errors.md."""

    def __init__(self, code, message):
        Exception.__init__(self, "%s: %s" % (code, message))
        self.code = code


class Unsupported(Exception):
    """This adapter cannot run the case (an argument it does not know)."""


# ---- the implementation: JSON (format 2.1, 2.2) ----------------------------

MAX_DEPTH = 64
MAX_SAFE = 2 ** 53 - 1
WS = b" \t\n\r"
NUMBER = re.compile(rb"-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?")


class Number(float):
    """A number read from a literal with a fraction or an exponent."""


class Reader:
    def __init__(self, data, limit=None):
        self.b = data
        self.i = 0
        self.limit = MAX_DEPTH if limit is None else limit
        self.max_depth = 0

    def fail(self, what):
        raise Rejected("invalid-json", "byte %d: %s" % (self.i, what))

    def ws(self):
        while self.i < len(self.b) and self.b[self.i] in WS:
            self.i += 1

    def value(self, depth):
        self.ws()
        if self.i >= len(self.b):
            self.fail("unexpected end of input")
        c = self.b[self.i:self.i + 1]
        if c in (b"{", b"["):
            if depth + 1 > self.limit:
                self.fail("nested deeper than %d" % self.limit)
            self.max_depth = max(self.max_depth, depth + 1)
            return self.obj(depth + 1) if c == b"{" else self.arr(depth + 1)
        if c == b'"':
            return self.string()
        for word, v in ((b"true", True), (b"false", False), (b"null", None)):
            if self.b.startswith(word, self.i):
                self.i += len(word)
                return v
        return self.number()

    def obj(self, depth):
        self.i += 1
        out = {}
        self.ws()
        if self.b[self.i:self.i + 1] == b"}":
            self.i += 1
            return out
        while True:
            self.ws()
            if self.b[self.i:self.i + 1] != b'"':
                self.fail("expected a string key")
            key = self.string()
            if key in out:
                self.fail("duplicate key %r" % key)
            self.ws()
            if self.b[self.i:self.i + 1] != b":":
                self.fail("expected ':'")
            self.i += 1
            out[key] = self.value(depth)
            self.ws()
            c = self.b[self.i:self.i + 1]
            self.i += 1
            if c == b"}":
                return out
            if c != b",":
                self.fail("expected ',' or '}'")

    def arr(self, depth):
        self.i += 1
        out = []
        self.ws()
        if self.b[self.i:self.i + 1] == b"]":
            self.i += 1
            return out
        while True:
            out.append(self.value(depth))
            self.ws()
            c = self.b[self.i:self.i + 1]
            self.i += 1
            if c == b"]":
                return out
            if c != b",":
                self.fail("expected ',' or ']'")

    def string(self):
        self.i += 1
        parts = []
        start = self.i
        while True:
            if self.i >= len(self.b):
                self.fail("unterminated string")
            c = self.b[self.i]
            if c == 0x22:
                parts.append(self.text(start, self.i))
                self.i += 1
                return "".join(parts)
            if c < 0x20:
                self.fail("raw control character in a string")
            if c == 0x5C:
                parts.append(self.text(start, self.i))
                parts.append(self.escape())
                start = self.i
            else:
                self.i += 1

    def text(self, a, b):
        try:
            return self.b[a:b].decode("utf-8")  # strict: overlongs, surrogates refused
        except UnicodeDecodeError:
            self.fail("not UTF-8")

    def hex4(self):
        h = self.b[self.i:self.i + 4]
        if len(h) != 4 or not all(x in b"0123456789abcdefABCDEF" for x in h):
            self.fail("bad \\u escape")
        self.i += 4
        return int(h, 16)

    def escape(self):
        self.i += 1
        c = self.b[self.i:self.i + 1]
        self.i += 1
        simple = {b'"': '"', b"\\": "\\", b"/": "/", b"b": "\b", b"f": "\f",
                  b"n": "\n", b"r": "\r", b"t": "\t"}
        if c in simple:
            return simple[c]
        if c != b"u":
            self.fail("bad escape")
        u = self.hex4()
        if 0xDC00 <= u <= 0xDFFF:
            self.fail("unpaired low surrogate")
        if 0xD800 <= u <= 0xDBFF:
            if self.b[self.i:self.i + 2] != b"\\u":
                self.fail("unpaired high surrogate")
            self.i += 2
            lo = self.hex4()
            if not 0xDC00 <= lo <= 0xDFFF:
                self.fail("unpaired high surrogate")
            u = 0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00)
        return chr(u)

    def number(self):
        m = NUMBER.match(self.b, self.i)
        if m is None or m.end() == self.i:
            self.fail("not a JSON value")
        self.i = m.end()
        text = m.group(0).decode("ascii")
        if m.group(2) is None and m.group(3) is None:
            n = int(text)
            if abs(n) > MAX_SAFE:
                self.fail("integer literal beyond 2^53-1")
            return n
        v = float(text)
        if v in (float("inf"), float("-inf")):
            self.fail("number overflows a double")
        return Number(v)


def json_parse(data, limit=None):
    if data.startswith(b"\xef\xbb\xbf"):
        raise Rejected("invalid-json", "byte-order mark")
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        raise Rejected("invalid-json", "not UTF-8")
    r = Reader(data, limit)
    v = r.value(0)
    r.ws()
    if r.i != len(data):
        r.fail("bytes after the value")
    return v, r.max_depth


def es_number(x):
    """ECMAScript Number::toString, with exponent notation from 2^53 (2.2)."""
    if isinstance(x, bool):
        raise TypeError("bool")
    if isinstance(x, int) and not isinstance(x, float):
        return str(x)
    if x == 0:
        return "0"
    sign = "-" if x < 0 else ""
    r = repr(abs(x))                       # shortest round-trip digits
    mant, _, exp = r.partition("e")
    ip, _, fp = mant.partition(".")
    digits = (ip + fp).lstrip("0")
    lead = len(ip + fp) - len((ip + fp).lstrip("0"))
    n = len(ip) + (int(exp) if exp else 0) - lead  # value = 0.d1d2... * 10^n
    digits = digits.rstrip("0") or "0"
    k = len(digits)
    big = abs(x) >= 2.0 ** 53
    if k <= n <= 21 and not big:
        return sign + digits + "0" * (n - k)
    if 0 < n <= 21 and not big:
        return sign + digits[:n] + "." + digits[n:]
    if -6 < n <= 0:
        return sign + "0." + "0" * (-n) + digits
    e = n - 1
    es = ("+" if e >= 0 else "-") + str(abs(e))
    return sign + digits[0] + ("." + digits[1:] if k > 1 else "") + "e" + es


def es_string(s):
    out = ['"']
    for ch in s:
        o = ord(ch)
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif ch in "\b\f\n\r\t":
            out.append({"\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}[ch])
        elif o < 0x20:
            out.append("\\u%04x" % o)
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def json_write(v, indent=""):
    """The deterministic writer of 2.2 (without the final LF)."""
    if v is None:
        return "null"
    if v is True:
        return "true"
    if v is False:
        return "false"
    if isinstance(v, (int, float)):
        return es_number(v)
    if isinstance(v, str):
        return es_string(v)
    inner = indent + "  "
    if isinstance(v, list):
        if not v:
            return "[]"
        return "[\n" + ",\n".join(inner + json_write(e, inner) for e in v) + "\n" + indent + "]"
    if not v:
        return "{}"
    return "{\n" + ",\n".join(inner + es_string(k) + ": " + json_write(e, inner)
                              for k, e in v.items()) + "\n" + indent + "}"


# ---- the implementation: targets (format 4) --------------------------------

MATRIX = {
    ("macos", "aarch64"): ("macos-aarch64", "osx-arm64", "venv/bin/python", "venv/bin", "",
                           "posix-polyglot", ("metal", "cpu")),
    ("linux", "x86_64"): ("linux-x86_64", "linux-64", "venv/bin/python", "venv/bin", "",
                          "posix-polyglot", ("cpu", "cuda")),
    ("windows", "x86_64"): ("windows-x86_64", "win-64", "venv/python.exe", "venv/Scripts",
                            ".exe", "uv-windows-pe", ("cpu", "cuda")),
}
ASSERTION = {
    "macos": "import sys; assert sys.platform == 'darwin'",
    "linux": "import sys; assert sys.platform.startswith('linux')",
    "windows": "import sys; assert sys.platform == 'win32'",
}
VALIDATION = {"cpu": {"CUDA_VISIBLE_DEVICES": ""}, "cuda": {"CUDA_VISIBLE_DEVICES": "0"},
              "metal": {"PYTORCH_ENABLE_MPS_FALLBACK": "0"}}
CUDA_VERSION = re.compile(r"[1-9][0-9]*\.[0-9]+")   # [0-9] is ASCII; \d is not
CUDA_VERSION_MAX = 31                                # characters, inclusive


def target_describe(t):
    def bad(why):
        raise Rejected("invalid-target", why)
    if not isinstance(t, dict):
        bad("not an object")
    if set(t) - {"platform", "arch", "accelerator", "cudaVersion"}:
        bad("unknown member")
    for k in ("platform", "arch", "accelerator"):
        if not isinstance(t.get(k), str):
            bad("%s missing or not a string" % k)
    if "cudaVersion" in t and not isinstance(t["cudaVersion"], str):
        bad("cudaVersion is not a string")
    row = MATRIX.get((t["platform"], t["arch"]))
    if row is None or t["accelerator"] not in row[6]:
        raise Rejected("unsupported-target", "not in the matrix")
    if t["accelerator"] == "cuda":
        cv = t.get("cudaVersion")
        if cv is None or len(cv) > CUDA_VERSION_MAX or not CUDA_VERSION.fullmatch(cv):
            bad("cudaVersion")
        tid = "%s-%s-cuda%s" % (t["platform"], t["arch"], cv)
    else:
        if "cudaVersion" in t:
            bad("cudaVersion without cuda")
        tid = "%s-%s-%s" % (t["platform"], t["arch"], t["accelerator"])
    extra = {"macos": ["DYLD_INSERT_LIBRARIES"], "linux": ["LD_PRELOAD"]}.get(t["platform"], [])
    return {"targetId": tid, "target": t, "adapterId": row[0], "condaSubdir": row[1],
            "payloadRoot": "venv", "pythonEntryPoint": row[2], "scriptsDir": row[3],
            "exeSuffix": row[4], "launcherKind": row[5],
            "selfTestAssertion": ASSERTION[t["platform"]],
            "validationEnvironment": VALIDATION[t["accelerator"]],
            "executionAffectingVariables": ["PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP",
                                            "PYTHONBREAKPOINT"] + extra}


# ---- the implementation: payload lists (format 3, 14) ----------------------

HEADER = b"sha256-path-list-v1\n"
HEX = re.compile(rb"[0-9a-f]{64}")


def path_check(p):
    """Section 3 on a path's bytes; raises unsafe-path."""
    def bad(why):
        raise Rejected("unsafe-path", why)
    if not p or b"\0" in p:
        bad("empty or NUL")
    try:
        p.decode("utf-8")
    except UnicodeDecodeError:
        bad("not UTF-8")
    if b"\\" in p:
        bad("backslash")
    if p.startswith(b"/") or has_drive_prefix(p):
        bad("absolute or drive prefix")
    if any(seg in (b"", b".", b"..") for seg in p.split(b"/")):
        bad("empty, . or .. segment")


def has_drive_prefix(p):
    """An ASCII letter, either case, then ':' (section 3): not only C:, and
    not a Unicode letter."""
    return len(p) >= 2 and (0x41 <= p[0] <= 0x5A or 0x61 <= p[0] <= 0x7A) and p[1:2] == b":"


def ascii_fold(p):
    """Only A-Z fold (section 3): never Unicode case folding."""
    return bytes(c + 32 if 0x41 <= c <= 0x5A else c for c in p)


def check_collisions(paths):
    seen = {}
    for p in paths:
        f = ascii_fold(p)
        if f in seen:
            raise Rejected("entry-collision", "%r and %r" % (seen[f], p))
        seen[f] = p


def record_after(prev, record):
    """Canonical order (14.2): unsigned bytes, so UTF-8 order, never UTF-16."""
    return record > prev


def judge_paths(paths):
    """14.4 steps 7 then 8: every path by section 3 first, then collisions."""
    for p in paths:
        path_check(p)
    check_collisions(paths)


def payload_list_parse(data):
    def bad(why):
        raise Rejected("invalid-payload-list", why)
    if not data.startswith(HEADER):
        bad("header")
    i = len(HEADER)
    records = []
    prev = None
    while i < len(data):
        nul = data.find(b"\0", i)
        if nul < 0 or len(data) - nul < 68:
            bad("the list ends inside a record")
        path = data[i:nul]
        kind, sep, digest, lf = data[nul + 1:nul + 2], data[nul + 2:nul + 3], \
            data[nul + 3:nul + 67], data[nul + 67:nul + 68]
        if kind not in (b"f", b"l") or sep != b"\0" or lf != b"\n":
            bad("malformed record")
        try:
            path.decode("utf-8")
            digest.decode("utf-8")
        except UnicodeDecodeError:
            bad("not UTF-8")
        if not HEX.fullmatch(digest):
            bad("invalid digest")
        record = data[i:nul + 68]
        if prev is not None:
            if path == prev[0]:
                bad("path named twice")
            if not record_after(prev[1], record):
                bad("not in canonical order")
        prev = (path, record)
        records.append((path, kind, digest))
        i = nul + 68
    judge_paths([p for p, _, _ in records])
    return {"entries": [{"path": p.decode("utf-8"), "kind": "file" if k == b"f" else "link",
                         "sha256": d.decode("ascii")} for p, k, d in records]}


def payload_digest(doc):
    entries = doc["entries"]  # another shape: a crash (an error of the case)
    records = []
    for e in entries:
        kind, path = e["kind"], e["path"].encode("utf-8")
        if kind == "file":
            content = base64.b64decode(e["contentBase64"], validate=True)
            k = b"f"
        elif kind == "link":
            content = e["linkTarget"].encode("utf-8")
            k = b"l"
        else:
            raise Rejected("invalid-payload-list", "kind %r" % kind)
        if not path or b"\0" in path:
            raise Rejected("invalid-payload-list", "empty path or NUL")
        records.append(path + b"\0" + k + b"\0" +
                       hashlib.sha256(content).hexdigest().encode() + b"\n")
    paths = [r[:r.index(b"\0")] for r in records]
    if len(set(paths)) != len(paths):
        raise Rejected("invalid-payload-list", "the same path twice")
    stream = HEADER + b"".join(sorted(records))
    return {"streamBase64": base64.b64encode(stream).decode("ascii"),
            "sha256": hashlib.sha256(stream).hexdigest(), "entryCount": len(records)}


# ---- the implementation: parity (format 17) --------------------------------

BIT_PATTERN = re.compile(r"0x(?:[0-9a-f]{8}|[0-9a-f]{16})")
LARGEST = sys.float_info.max


def parity_tolerance(text, name):
    """17.2: exactly one JSON number literal (2.1), nothing around it."""
    raw = text.encode("utf-8")
    m = NUMBER.fullmatch(raw)
    v = float(raw) if m else None
    if v is None or not math.isfinite(v):
        raise Rejected("invalid-tolerance", "%s %r is not a finite JSON number" % (name, text))
    return v


def parity_tolerances(args):
    t = {k: parity_tolerance(args[k], k) for k in ("absolute", "relative", "minimumCosine")
         if k in args}
    if not t:
        raise Rejected("invalid-tolerance", "no tolerance")
    for k in ("absolute", "relative"):
        if k in t and not t[k] > 0:
            raise Rejected("invalid-tolerance", "%s must be greater than 0" % k)
    if "minimumCosine" in t and not t["minimumCosine"] <= 1:
        raise Rejected("invalid-tolerance", "minimumCosine must be at most 1")
    return t


def parity_values(data, what):
    """17.1: a non-empty array, or an object whose values member is one, of
    numbers and bit patterns; the shape of every element before finiteness."""
    doc, _ = json_parse(data)
    arr = doc.get("values") if isinstance(doc, dict) else doc
    if not isinstance(arr, list) or not arr:
        raise Rejected("invalid-parity-values", "%s: no non-empty array" % what)
    out = []
    for e in arr:
        if isinstance(e, (int, float)) and not isinstance(e, bool):
            out.append(float(e))
        elif isinstance(e, str) and BIT_PATTERN.fullmatch(e):
            raw = bytes.fromhex(e[2:])
            out.append(struct.unpack(">f" if len(raw) == 4 else ">d", raw)[0])
        else:
            raise Rejected("invalid-parity-values", "%s: element %r" % (what, e))
    if not all(math.isfinite(x) for x in out):
        raise Rejected("parity-non-finite", "%s holds a NaN or an infinity" % what)
    return out


def finite(x):
    """17.3: a difference or quotient that is not finite counts as the largest double."""
    return x if math.isfinite(x) else LARGEST


def cosine_of(d, p, q):
    """17.3: one square root of the product (not sqrt(p) * sqrt(q))."""
    return d / math.sqrt(p * q)


def clamp_cosine(c):
    """17.3: rounding can push the quotient past 1 (or -1)."""
    return min(1.0, max(-1.0, c))


def parity_measure(r, c):
    if len(r) != len(c):
        raise Rejected("parity-length-mismatch", "%d and %d values" % (len(r), len(c)))
    diffs = [finite(abs(ci - ri)) for ri, ci in zip(r, c)]
    rel = [finite(d / abs(ri)) for d, ri in zip(diffs, r) if ri != 0]
    a, b = max(abs(x) for x in r), max(abs(x) for x in c)
    if a == 0 or b == 0:
        cos = 1.0 if a == b else 0.0   # two zero vectors agree; one has no direction
    else:
        d = p = q = 0.0
        for ri, ci in zip(r, c):       # index order, one rounding per operation
            x, y = ri / a, ci / b
            d += x * y
            p += x * x
            q += y * y
        cos = clamp_cosine(cosine_of(d, p, q))
    return {"valueCount": len(r), "maximumAbsoluteError": max(diffs),
            "maximumRelativeError": max(rel, default=0.0), "cosineSimilarity": cos}


def parity_judge(m, t):
    """17.4: a bound equal to its measurement passes; absolute, relative, cosine."""
    for k, got, bad in (("absolute", m["maximumAbsoluteError"], lambda v, b: v > b),
                        ("relative", m["maximumRelativeError"], lambda v, b: v > b),
                        ("minimumCosine", m["cosineSimilarity"], lambda v, b: v < b)):
        if k in t and bad(got, t[k]):
            raise Rejected("parity-breach", "%s %r against %r" % (k, got, t[k]))


def parity_compare(ref, cand, args):
    t = parity_tolerances(args)          # 17.2's order: tolerances,
    r = parity_values(ref, "reference")  # the reference,
    c = parity_values(cand, "candidate") # the candidate,
    m = parity_measure(r, c)             # the lengths and the measurements,
    parity_judge(m, t)                   # then the bounds
    return m


# ---- the protocol ----------------------------------------------------------

def load_case(case_dir, operation):
    # case.json is the protocol's, not an input of the format: the standard
    # library reads it (it nests up to 72 deep, README 2.2), so that nothing
    # a port changes in its own reader can break the harness around it.
    with open(os.path.join(case_dir, "case.json"), "rb") as f:
        case = json.loads(f.read().decode("utf-8"))
    if case["operation"] != operation:
        raise RuntimeError("case.json names %s, called for %s" % (case["operation"], operation))
    return case


def input_bytes(case_dir, case, role):
    files = [i["file"] for i in case["inputs"] if i["role"] == role]
    if len(files) != 1:
        raise RuntimeError("case.json has %d inputs with role %s" % (len(files), role))
    with open(os.path.join(case_dir, files[0]), "rb") as f:
        return f.read()


def op_target_id(case_dir, case):
    doc, _ = json_parse(input_bytes(case_dir, case, "target"))
    return target_describe(doc)


def op_json_read(case_dir, case):
    doc, depth = json_parse(input_bytes(case_dir, case, "document"))
    out = {"written": json_write(doc) + "\n"}
    if depth < MAX_DEPTH:  # the answer object adds one level (README json-read)
        out["value"] = doc
    return out


def op_payload_digest(case_dir, case):
    doc, _ = json_parse(input_bytes(case_dir, case, "entries"))
    return payload_digest(doc)


def op_payload_list_parse(case_dir, case):
    return payload_list_parse(input_bytes(case_dir, case, "list"))


def op_parity_compare(case_dir, case):
    return parity_compare(input_bytes(case_dir, case, "reference"),
                          input_bytes(case_dir, case, "candidate"), case["args"])


OPERATIONS = {
    "json-read": op_json_read,
    "parity-compare": op_parity_compare,
    "payload-digest": op_payload_digest,
    "payload-list-parse": op_payload_list_parse,
    "target-id": op_target_id,
}
# The arguments each operation knows (README 3.4); any other is unsupported.
ARGUMENTS = {"parity-compare": ("absolute", "relative", "minimumCosine")}


def hello():
    return {"protocol": PROTOCOL,
            "implementation": {"name": "scrollcase-example-python", "version": "0.1.0",
                               "language": "Python"},
            "operations": sorted(OPERATIONS), "features": [], "persistent": True}


def call(operation, case_dir):
    """One case: ("output", obj) | ("error", code) | ("unsupported", why).
    Anything else raised is a crash and must stay one."""
    fn = OPERATIONS.get(operation)
    if fn is None:
        return "unsupported", "operation %s" % operation
    case = load_case(case_dir, operation)
    unknown = sorted(set(case.get("args") or {}) - set(ARGUMENTS.get(operation, ())))
    if unknown:
        return "unsupported", "arguments %s" % ", ".join(unknown)
    try:
        return "output", fn(case_dir, case)
    except Rejected as e:
        sys.stderr.write("adapter.py: %s\n" % e)
        return "error", e.code
    except Unsupported as e:
        return "unsupported", str(e)


def to_wire(v):
    """Numbers of our own type back to plain floats for json.dumps."""
    if isinstance(v, dict):
        return {k: to_wire(e) for k, e in v.items()}
    if isinstance(v, list):
        return [to_wire(e) for e in v]
    if isinstance(v, Number):
        return float(v)
    return v


def dumps(v):
    return json.dumps(to_wire(v), allow_nan=False, separators=(",", ":"))


def serve():
    # The response channel is a private copy of stdout; stdout itself goes to
    # stderr, so a stray print can never corrupt it (README 3.8).
    channel = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)
    for line in sys.stdin:
        req = json.loads(line)
        kind, value = call(req["operation"], req["case"])
        channel.write(dumps({"seq": req["seq"], kind: value}) + "\n")
        channel.flush()
    return 0


def main(argv):
    if argv == ["--hello"]:
        print(dumps(hello()))
        return 0
    if argv == ["--persistent"]:
        return serve()
    if len(argv) not in (3, 5) or argv[1] != "--case" or (len(argv) == 5 and argv[3] != "--work"):
        sys.stderr.write("usage: adapter.py --hello | --persistent | "
                         "<operation> --case DIR [--work DIR]\n")
        return EXIT_CRASH  # never 2: a usage error is not an answer
    kind, value = call(argv[0], argv[2])
    print(dumps({kind: value} if kind != "output" else value))
    return {"output": 0, "error": EXIT_REJECTED, "unsupported": EXIT_UNSUPPORTED}[kind]


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except SystemExit:
        raise
    except BaseException as e:  # a crash, whatever it was: exit 3, not 1 or 2
        sys.stderr.write("adapter.py: crash: %r\n" % (e,))
        sys.exit(EXIT_CRASH)
