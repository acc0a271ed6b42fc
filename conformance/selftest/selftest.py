#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Self-tests of the conformance runner (scrollcase-conform).

usage: selftest.py --runner PATH --scenario NAME   (or --scenario all)

Each scenario runs the runner over the tiny corpus next to this file (or a
damaged copy of it) with fake-adapter.sh as the adapter and checks statuses,
exit codes, reports and output.  What the fake adapter does for each case id
is written in fake-adapter.sh; what the runner must make of it is EXPECTED
below.  These tests are about the runner, not the library.
"""

import argparse
import fnmatch
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.join(HERE, "corpus")
ADAPTER = "/bin/sh " + os.path.join(HERE, "fake-adapter.sh")
SUMMARY = re.compile(r"^(\d+) passed, (\d+) failed, (\d+) skipped$")

# status of every case with the default fake adapter (FAKE_HELLO=ok, protocol
# 2): a bare exit 2 and an "unsupported" answer to an offered operation fail
EXPECTED = {
    "basic/accept-ok": "pass",
    "basic/accept-any": "pass",
    "basic/accept-wrong-output": "fail",
    "basic/accept-on-invalid": "fail",
    "basic/acceptable-accepts": "pass",
    "basic/acceptable-rejects": "pass",
    "basic/reject-ok": "pass",
    "basic/reject-on-valid": "fail",
    "basic/reject-wrong-code": "fail",
    "basic/reject-unknown-code": "fail",
    "basic/reject-malformed": "fail",
    "basic/reject-extra-member": "fail",
    "basic/stdout-not-json": "fail",
    "basic/stdout-array": "fail",
    "crash/segv-on-invalid": "fail",
    "crash/exit3-on-invalid": "fail",
    "crash/abort-on-valid": "fail",
    "skip/exit2": "fail",
    "skip/answers-unsupported": "fail",
    "skip/feature-missing": "pass",
    "skip/op-not-offered": "unsupported",
    "order/a-b": "pass",
    "order/aa": "pass",
    "order/a-10": "pass",
    "order/a-9": "pass",
    "io/big-output": "pass",
    "io/nasty-stderr": "fail",
    "io/leaves-child": "pass",
    "io/slow": "pass",
}


class Failure(Exception):
    pass


def check(cond, msg):
    if not cond:
        raise Failure(msg)


class Ctx:
    def __init__(self, runner, tmp):
        self.runner = runner
        self.tmp = tmp
        self.n = 0

    def run(self, *args, env=None, corpus=CORPUS, adapter=ADAPTER, report=True,
            timeout=300):
        """Run the runner; return (exit code, stdout, stderr, report or None)."""
        self.n += 1
        cmd = [self.runner, "--corpus", corpus]
        if adapter is not None:
            cmd += ["--adapter", adapter]
        path = os.path.join(self.tmp, "report-%d.json" % self.n)
        if report:
            cmd += ["--report-json", path]
        cmd += list(args)
        e = dict(os.environ)
        for k in list(e):
            if k.startswith("FAKE_"):
                del e[k]
        e.update(env or {})
        p = subprocess.run(cmd, env=e, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=timeout)
        out = p.stdout.decode("utf-8", "replace")
        err = p.stderr.decode("utf-8", "replace")
        data = None
        if report and os.path.exists(path):
            with open(path, encoding="utf-8") as f:
                data = json.load(f)
        return p.returncode, out, err, data

    def copy_corpus(self, name):
        dst = os.path.join(self.tmp, name)
        shutil.copytree(CORPUS, dst)
        return dst


def statuses(report):
    return {"%s/%s" % (c["area"], c["id"]): c["status"] for c in report["cases"]}


def summary(out):
    lines = out.rstrip("\n").split("\n")
    m = SUMMARY.match(lines[-1])
    check(m is not None, "last line is not 'N passed, N failed, N skipped': %r" % lines[-1])
    return tuple(int(x) for x in m.groups())


def expect_statuses(report, expected):
    got = statuses(report)
    for label, want in expected.items():
        check(got.get(label) == want, "%s: status %s, expected %s" % (label, got.get(label), want))


# ---- scenarios -------------------------------------------------------------

def basic_statuses(ctx):
    log = os.path.join(ctx.tmp, "calls.log")
    rc, out, err, rep = ctx.run("--area", "basic",
                                env={"FAKE_LOG": log, "FAKE_CWD": os.path.realpath(os.getcwd())})
    check(rc == 1, "exit %d, expected 1 (failures)" % rc)
    expect_statuses(rep, {k: v for k, v in EXPECTED.items() if k.startswith("basic/")})
    check(summary(out) == (5, 9, 0), "summary %r" % (summary(out),))
    # one call per case, every work directory removed afterwards
    with open(log) as f:
        calls = [line.split(" ", 1) for line in f.read().splitlines()]
    check(len(calls) == 14, "%d adapter calls, expected 14" % len(calls))
    for case_id, work in calls:
        check(not os.path.exists(work), "work directory of %s was left behind" % case_id)
    check(len(set(w for _, w in calls)) == 14, "work directories were shared")
    # every non-passing case has a line with a reason; passing ones have none
    for label, want in EXPECTED.items():
        if label.startswith("basic/"):
            has_line = re.search(r"^\S+\s+%s(:|$)" % re.escape(label), out, re.M) is not None
            check(has_line == (want != "pass"), "%s: line shown=%s" % (label, has_line))
    rc, out, err, rep = ctx.run("--area", "basic", "--verbose")
    check(re.search(r"^PASS\s+basic/accept-ok$", out, re.M), "--verbose shows passes")


def crash_fails_invalid(ctx):
    rc, out, err, rep = ctx.run("--area", "crash")
    check(rc == 1, "exit %d" % rc)
    expect_statuses(rep, {k: v for k, v in EXPECTED.items() if k.startswith("crash/")})
    for c in rep["cases"]:
        check(c["reason"].startswith("crash:"), "%s: reason %r" % (c["id"], c["reason"]))
    byid = {c["id"]: c for c in rep["cases"]}
    check(byid["segv-on-invalid"]["signal"] == 11, "SIGSEGV not reported")
    check(byid["exit3-on-invalid"]["exit_code"] == 3, "exit status 3 not reported")
    check(summary(out) == (0, 3, 0), "summary %r" % (summary(out),))


def exit2_unsupported(ctx):
    """Protocol 1 adapters still run: exit 2 is unsupported, with a loud warning."""
    log = os.path.join(ctx.tmp, "calls.log")
    rc, out, err, rep = ctx.run("--area", "skip", env={"FAKE_LOG": log, "FAKE_HELLO": "v1"})
    expect_statuses(rep, {"skip/exit2": "unsupported", "skip/feature-missing": "pass",
                          "skip/op-not-offered": "unsupported",
                          "skip/answers-unsupported": "fail"})
    check("protocol 1" in err and "README" in err, "no loud warning for protocol 1: %r" % err)
    check(any("protocol 1" in w for w in rep["warnings"]), "warning missing from the report")
    check(rep["adapter"]["protocol"] == 1, "adapter protocol in the report")
    check(summary(out) == (1, 1, 2), "summary %r" % (summary(out),))
    with open(log) as f:
        called = [line.split()[0] for line in f]
    check("op-not-offered" not in called, "adapter was called for an operation it does not offer")
    # a feature the hello does not claim is unsupported, without a call
    os.unlink(log)
    rc, out, err, rep = ctx.run("--case", "feature-missing",
                                env={"FAKE_HELLO": "features", "FAKE_LOG": log})
    expect_statuses(rep, {"skip/feature-missing": "unsupported"})
    check(not os.path.exists(log), "adapter was called for a case needing an unclaimed feature")
    check(rc == 1 and summary(out) == (0, 0, 1), "only unsupported: exit %d" % rc)


def false_green(ctx):
    """Protocol 2: a bare exit 2 (what a Go panic or argparse gives) is a crash, and
    an offered operation answering unsupported is a failure: no false green."""
    rc, out, err, rep = ctx.run("--area", "skip")
    expect_statuses(rep, {"skip/exit2": "fail", "skip/answers-unsupported": "fail",
                          "skip/op-not-offered": "unsupported", "skip/feature-missing": "pass"})
    byid = {c["id"]: c for c in rep["cases"]}
    check(byid["exit2"]["reason"].startswith("crash: exit status 2"),
          "reason %r" % byid["exit2"]["reason"])
    check("answered unsupported (no json-read here)" in byid["answers-unsupported"]["reason"],
          "reason %r" % byid["answers-unsupported"]["reason"])
    check(rc == 1 and summary(out) == (1, 2, 1), "exit %d, summary %r" % (rc, summary(out)))
    check("protocol 1" not in err, "protocol 2 adapter warned about: %r" % err)
    # every area of the corpus under an adapter that exits 2 for everything it is asked
    corpus = ctx.copy_corpus("all-exit2")
    script = write(os.path.join(ctx.tmp, "exit2.sh"),
                   '#!/bin/sh\nif [ "$1" = --hello ]; then\n'
                   '  echo \'{"protocol": 2, "implementation": {"name": "p", "version": "1",'
                   ' "language": "go"}, "operations": ["json-read", "scroll-resolve"],'
                   ' "features": []}\'\nexit 0\nfi\n'
                   'echo "panic: runtime error" >&2\nexit 2\n')
    rc, out, err, rep = ctx.run(corpus=corpus, adapter="/bin/sh " + script)
    passed, failed, skipped = summary(out)
    check(rc == 1 and passed == 0 and failed > 20, "a crashing port is green: exit %d %r"
          % (rc, summary(out)))


def all_unsupported(ctx):
    rc, out, err, rep = ctx.run("--case", "skip/op-not-offered")
    check(summary(out) == (0, 0, 1), "summary %r" % (summary(out),))
    check(rc == 1, "exit %d: a run in which no case ran must not pass" % rc)
    check("--allow-empty" in err, "the message names --allow-empty: %r" % err)
    rc, out, err, rep = ctx.run("--case", "no-such-case")
    check(summary(out) == (0, 0, 0) and rc == 1, "empty selection: exit %d" % rc)
    # --allow-empty: a per-area job for an area not started yet
    rc, out, err, rep = ctx.run("--case", "no-such-case", "--allow-empty")
    check(summary(out) == (0, 0, 0) and rc == 0, "--allow-empty, empty: exit %d" % rc)
    rc, out, err, rep = ctx.run("--case", "skip/op-not-offered", "--allow-empty")
    check(rc == 0, "--allow-empty, all unsupported: exit %d" % rc)
    rc, out, err, rep = ctx.run("--case", "accept-on-invalid", "--allow-empty")
    check(rc == 1, "--allow-empty must not hide a failure: exit %d" % rc)


def write(path, text):
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
    return path


def xfail_strict(ctx):
    failing = [k for k, v in EXPECTED.items() if k.startswith("basic/") and v == "fail"]
    xf = write(os.path.join(ctx.tmp, "ok.xfail"),
               "# known failures of the fake adapter\n\n" +
               "".join("%s   the fake adapter does this on purpose\n" % f for f in failing))
    rc, out, err, rep = ctx.run("--area", "basic", "--xfail", xf)
    check(rc == 0, "exit %d with every failure listed" % rc)
    expect_statuses(rep, {f: "xfail" for f in failing})
    check(summary(out) == (14, 0, 0), "xfail counts as passed: %r" % (summary(out),))
    c = [c for c in rep["cases"] if c["status"] == "xfail"][0]
    check(c["xfail_reason"] == "the fake adapter does this on purpose", "xfail reason kept")
    # globs, and an unexpected pass fails the run
    xf2 = write(os.path.join(ctx.tmp, "xpass.xfail"),
                "basic/reject-* rejections are broken\naccept-ok issue #12\n")
    rc, out, err, rep = ctx.run("--area", "basic", "--xfail", xf2)
    check(rc == 1, "exit %d" % rc)
    expect_statuses(rep, {"basic/accept-ok": "xpass", "basic/reject-ok": "xpass",
                          "basic/reject-malformed": "xfail", "basic/accept-on-invalid": "fail"})
    check(re.search(r"^XPASS\s+basic/accept-ok: ", out, re.M), "xpass shown with a reason")
    # a crash of a listed case is an expected failure only when the entry says crash
    xf3 = write(os.path.join(ctx.tmp, "crash.xfail"),
                "crash/* crash: segfaults in the parser\nskip/op-not-offered no\n")
    rc, out, err, rep = ctx.run("--area", "crash", "--area", "skip", "--xfail", xf3)
    expect_statuses(rep, {"crash/segv-on-invalid": "xfail", "skip/op-not-offered": "unsupported"})


def xfail_crash(ctx):
    """A case listed as an expected failure that crashes or times out is a failure
    unless its entry says crash: a listed case must not get worse unnoticed."""
    xf = write(os.path.join(ctx.tmp, "plain.xfail"),
               "crash/* wrong codes for now\nslow wrong output for now\n"
               "reject-wrong-code wrong code for now\n")
    rc, out, err, rep = ctx.run("--case", "crash/*", "--case", "slow", "--case",
                                "reject-wrong-code", "--xfail", xf, "--timeout", "2",
                                env={"FAKE_SLEEP": "30"})
    expect_statuses(rep, {"crash/segv-on-invalid": "fail", "crash/exit3-on-invalid": "fail",
                          "crash/abort-on-valid": "fail", "io/slow": "fail",
                          "basic/reject-wrong-code": "xfail"})
    check(rc == 1, "exit %d: crashes of listed cases must fail the run" % rc)
    byid = {c["id"]: c for c in rep["cases"]}
    check("crash:" in byid["segv-on-invalid"]["reason"] and
          "expected failure" in byid["segv-on-invalid"]["reason"],
          "reason %r" % byid["segv-on-invalid"]["reason"])
    check("timed out" in byid["slow"]["reason"], "reason %r" % byid["slow"]["reason"])
    xf = write(os.path.join(ctx.tmp, "crash.xfail"),
               "crash/* crash: the parser segfaults, issue 7\nslow crash hangs on big input\n")
    rc, out, err, rep = ctx.run("--case", "crash/*", "--case", "slow", "--xfail", xf,
                                "--timeout", "2", env={"FAKE_SLEEP": "30"})
    expect_statuses(rep, {"crash/segv-on-invalid": "xfail", "io/slow": "xfail"})
    check(rc == 0, "exit %d with crash entries" % rc)


def xfail_needs_reason(ctx):
    for text in ("basic/accept-ok\n", "basic/accept-ok   \n", "  # fine\nbasic/x reason\nlonely\n"):
        xf = write(os.path.join(ctx.tmp, "bad.xfail"), text)
        rc, out, err, rep = ctx.run("--xfail", xf, report=False)
        check(rc == 2, "exit %d for an entry without a reason (%r)" % (rc, text))
        check("reason" in err, "the message names the missing reason: %r" % err)
    rc, out, err, rep = ctx.run("--xfail", os.path.join(ctx.tmp, "missing.xfail"), report=False)
    check(rc == 2, "missing xfail file: exit %d" % rc)


def xfail_unmatched_warns(ctx):
    xf = write(os.path.join(ctx.tmp, "stale.xfail"),
               "gone/* this case was removed\nbasic/accept-wrong-output known\n")
    rc, out, err, rep = ctx.run("--area", "basic", "--xfail", xf)
    check("gone/*" in err and "matches no case" in err, "no warning: %r" % err)
    check(any("gone/*" in w for w in rep["warnings"]), "warning missing from the report")
    # an entry for a case outside the selection is not stale
    check("accept-wrong-output" not in err, "spurious warning")
    rc, out, err, rep = ctx.run("--area", "crash", "--xfail", xf)
    check("basic/accept-wrong-output" not in err, "warning for a case outside the selection")


def shard_cover(ctx):
    rc, out, err, _ = ctx.run("--list", report=False)
    everything = out.split()
    check(rc == 0 and len(everything) == len(EXPECTED), "--list: %d cases" % len(everything))
    for n in (2, 3, 5, 40):
        seen = []
        for i in range(1, n + 1):
            rc, out, err, _ = ctx.run("--list", "--shard", "%d/%d" % (i, n), report=False)
            check(rc == 0, "--shard %d/%d: exit %d" % (i, n, rc))
            seen += out.split()
        check(sorted(seen) == sorted(everything) and len(seen) == len(set(seen)),
              "shards of %d do not cover every case exactly once" % n)
    # the same with real runs
    got = {}
    for i in (1, 2):
        rc, out, err, rep = ctx.run("--shard", "%d/2" % i)
        check(rep["selection"]["shard"] == "%d/2" % i, "shard missing from the report")
        for label, st in statuses(rep).items():
            check(label not in got, "%s ran in two shards" % label)
            got[label] = st
    check(got == EXPECTED, "sharded statuses differ from the expected ones")
    for bad in ("0/2", "3/2", "1/0", "x", "1/2/3", "1/"):
        rc, out, err, _ = ctx.run("--list", "--shard", bad, report=False)
        check(rc == 2, "--shard %s: exit %d, expected 2" % (bad, rc))


def filters(ctx):
    def listed(*args):
        rc, out, err, _ = ctx.run("--list", *args, report=False)
        check(rc == 0, "--list %s: exit %d" % (args, rc))
        return out.split()
    check(listed("--area", "order") == ["order/a-10", "order/a-9", "order/a-b", "order/aa"],
          "--area order")
    check(listed("--case", "accept-*") == ["basic/accept-any", "basic/accept-ok",
                                          "basic/accept-on-invalid", "basic/accept-wrong-output"],
          "--case accept-*: %r" % listed("--case", "accept-*"))
    check(listed("--case", "crash/*") == ["crash/abort-on-valid", "crash/exit3-on-invalid",
                                         "crash/segv-on-invalid"], "--case crash/*")
    check(listed("--case", "exit2", "--case", "aa") == ["order/aa", "skip/exit2"], "two --case")
    check(listed("--area", "basic", "--case", "*-ok") == ["basic/reject-ok", "basic/accept-ok"][::-1],
          "--area with --case")
    check(listed("--area", "nope") == [], "unknown area")
    check(len(listed("--suite-version", "1.0.0")) == len(EXPECTED) - 1, "--suite-version 1.0.0")
    check(len(listed("--suite-version", "2.0.0")) == len(EXPECTED), "--suite-version 2.0.0")
    check(listed("--suite-version", "0.9.9") == [], "--suite-version 0.9.9")
    rc, out, err, _ = ctx.run("--list", "--suite-version", "1.0", report=False)
    check(rc == 2, "malformed --suite-version accepted")


def sorted_order(ctx):
    rc, out, err, _ = ctx.run("--list", report=False, env={"LC_ALL": "en_US.UTF-8"})
    got = out.split()
    want = sorted(EXPECTED, key=lambda l: tuple(p.encode() for p in l.split("/")))
    check(got == want, "not in byte order:\n%s" % "\n".join(got))
    check(got.index("order/a-b") < got.index("order/aa") and
          got.index("order/a-10") < got.index("order/a-9"), "order/* not bytewise")
    rc, out, err, rep = ctx.run("--jobs", "4")
    check([("%s/%s" % (c["area"], c["id"])) for c in rep["cases"]] == want,
          "report not in corpus order")
    lines = [l.split()[1].rstrip(":") for l in out.splitlines()
             if re.match(r"^(FAIL|ERROR|XPASS|XFAIL)\s", l)]
    check(lines == [l for l in want if EXPECTED[l] not in ("pass", "unsupported")],
          "output lines out of order")


def sha256_mismatch(ctx):
    corpus = ctx.copy_corpus("damaged")
    with open(os.path.join(corpus, "basic", "accept-ok", "input.json"), "a") as f:
        f.write(" ")
    os.unlink(os.path.join(corpus, "basic", "accept-any", "input.json"))
    rc, out, err, rep = ctx.run("--area", "basic", corpus=corpus)
    expect_statuses(rep, {"basic/accept-ok": "error", "basic/accept-any": "error"})
    byid = {c["id"]: c for c in rep["cases"]}
    check("sha256" in byid["accept-ok"]["reason"], "reason: %r" % byid["accept-ok"]["reason"])
    check(summary(out) == (3, 11, 0), "errors count as failed: %r" % (summary(out),))
    check(rc == 1, "exit %d" % rc)
    # an xfail entry does not excuse a damaged corpus
    xf = write(os.path.join(ctx.tmp, "x.xfail"), "accept-ok no\n")
    rc, out, err, rep = ctx.run("--case", "accept-ok", "--xfail", xf, corpus=corpus)
    expect_statuses(rep, {"basic/accept-ok": "error"})
    check(rc == 1, "exit %d" % rc)


def bad_case_json(ctx):
    corpus = ctx.copy_corpus("badjson")

    def edit(case, fn):
        path = os.path.join(corpus, "basic", case, "case.json")
        with open(path) as f:
            text = f.read()
        with open(path, "w") as f:
            f.write(fn(text))

    def change(case, **kv):
        def fn(text):
            d = json.loads(text)
            for k, v in kv.items():
                if v is None:
                    d.pop(k, None)
                else:
                    d[k] = v
            return json.dumps(d)
        edit(case, fn)

    edit("accept-ok", lambda t: t.rstrip() + ",\n")                      # not JSON
    edit("accept-any", lambda t: t.replace('"title"', '"id": "x", "title"', 1))  # duplicate key
    change("accept-wrong-output", id="other")                            # id != dir
    change("accept-on-invalid", kind="valid")                            # kind vs outcome
    change("reject-ok", expect={"outcome": "reject", "errorCodes": ["nope"]})
    change("reject-on-valid", inputs=[{"file": "../x", "role": "document",
                                       "sha256": "0" * 64}])
    change("reject-wrong-code", area="crash")
    change("reject-unknown-code", expect=None)
    change("reject-malformed", since="1.0")
    os.unlink(os.path.join(corpus, "basic", "reject-extra-member", "case.json"))
    # a duplicate id in another area
    shutil.copytree(os.path.join(corpus, "order", "aa"), os.path.join(corpus, "skip", "aa"))
    with open(os.path.join(corpus, "skip", "aa", "case.json")) as f:
        d = json.load(f)
    d["area"] = "skip"
    write(os.path.join(corpus, "skip", "aa", "case.json"), json.dumps(d))

    rc, out, err, rep = ctx.run("--area", "basic", "--area", "skip", corpus=corpus)
    bad = ["accept-ok", "accept-any", "accept-wrong-output", "accept-on-invalid", "reject-ok",
           "reject-on-valid", "reject-wrong-code", "reject-unknown-code", "reject-malformed",
           "reject-extra-member"]
    expect_statuses(rep, {"basic/%s" % b: "error" for b in bad})
    expect_statuses(rep, {"skip/aa": "error"})
    check(rc == 1, "exit %d" % rc)


def alive(pid):
    """True if pid runs (a zombie is dead: some containers' PID 1 never reaps)."""
    for _ in range(20):
        try:
            with open("/proc/%d/stat" % pid) as f:
                state = f.read().rsplit(")", 1)[1].split()[0]
        except FileNotFoundError:
            return False
        if state == "Z":
            return False
        time.sleep(0.1)
    return True


def timeout_kills_group(ctx):
    pids = os.path.join(ctx.tmp, "pids")
    t0 = time.time()
    rc, out, err, rep = ctx.run("--case", "slow", "--timeout", "1",
                                env={"FAKE_SLEEP": "60", "FAKE_PIDS": pids})
    took = time.time() - t0
    expect_statuses(rep, {"io/slow": "fail"})
    check("timed out" in rep["cases"][0]["reason"], "reason %r" % rep["cases"][0]["reason"])
    check(took < 15, "the run took %.1f s" % took)
    check(rc == 1, "exit %d" % rc)
    with open(pids) as f:
        pid = int(f.read())
    check(not alive(pid), "the adapter's background child %d survived the timeout" % pid)
    # a descendant holding stdout after the adapter exited neither hangs the
    # run nor fails the case
    t0 = time.time()
    rc, out, err, rep = ctx.run("--case", "leaves-child")
    check(time.time() - t0 < 10, "the runner waited for the adapter's descendant")
    expect_statuses(rep, {"io/leaves-child": "pass"})


def big_output(ctx):
    t0 = time.time()
    rc, out, err, rep = ctx.run("--case", "big-output", "--case", "nasty-stderr",
                                "--timeout", "60")
    check(time.time() - t0 < 30, "slow or deadlocked")
    expect_statuses(rep, {"io/big-output": "pass", "io/nasty-stderr": "fail"})


def parallel_same(ctx):
    results = []
    for jobs in ("1", "3", "16"):
        rc, out, err, rep = ctx.run("--jobs", jobs)
        check(rc == 1, "--jobs %s: exit %d" % (jobs, rc))
        results.append((statuses(rep), summary(out)))
    check(results[0][0] == EXPECTED, "statuses differ from EXPECTED")
    check(all(r == results[0] for r in results), "results depend on --jobs")
    for bad in ("0", "-1", "x", "1000"):
        rc, out, err, _ = ctx.run("--jobs", bad, report=False)
        check(rc == 2, "--jobs %s: exit %d" % (bad, rc))


def reports_wellformed(ctx):
    junit = os.path.join(ctx.tmp, "junit.xml")
    rc, out, err, rep = ctx.run("--report-junit", junit)
    for key in ("suite_version", "protocol_version", "adapter", "corpus", "selection",
                "summary", "warnings", "cases"):
        check(key in rep, "report lacks %s" % key)
    with open(os.path.join(HERE, "..", "VERSION")) as f:
        check(rep["suite_version"] == f.read().strip(), "suite version")
    with open(os.path.join(HERE, "..", "VERSION")) as f:
        major_minor = ".".join(f.read().strip().split(".")[:2])
    check(rep["protocol_version"] == major_minor, "protocol version %r" % rep["protocol_version"])
    check(("(protocol %s)" % major_minor) in out.splitlines()[0], "runner prints its protocol")
    with open(os.path.join(HERE, "..", "README.md"), encoding="utf-8") as f:
        readme = f.read()
    check(("## 3. The adapter protocol, version %s\n" % major_minor) in readme,
          "README's protocol heading is not %s" % major_minor)
    check(("suite version | `VERSION` (now `%s`)" % rep["suite_version"]) in readme,
          "README's suite version is not VERSION")
    check(rep["adapter"]["hello"]["implementation"]["name"] == "fake", "hello in report")
    check(rep["adapter"]["command"] == ADAPTER.split(" "), "command in report")
    for c in rep["cases"]:
        for key in ("id", "area", "status", "duration_ms", "stderr", "reason", "exit_code"):
            check(key in c, "case lacks %s" % key)
    s = rep["summary"]
    check((s["passed"], s["failed"], s["skipped"]) == summary(out), "summary mismatch")
    nasty = [c for c in rep["cases"] if c["id"] == "nasty-stderr"][0]
    check("]]><&" in nasty["stderr"] and "\ufffd" in nasty["stderr"], "stderr excerpt")
    big = [c for c in rep["cases"] if c["id"] == "big-output"][0]
    check(big["stderr"] == "" or len(big["stderr"]) < 5000, "big stderr not cut short")

    root = ET.parse(junit).getroot()  # raises on malformed XML
    check(root.tag == "testsuites", "root element")
    cases = root.findall("./testsuite/testcase")
    check(len(cases) == len(EXPECTED), "%d testcases" % len(cases))
    fails = root.findall("./testsuite/testcase/failure")
    skips = root.findall("./testsuite/testcase/skipped")
    nfail = sum(1 for v in EXPECTED.values() if v == "fail")
    nskip = sum(1 for v in EXPECTED.values() if v == "unsupported")
    check(len(fails) == nfail and len(skips) == nskip, "failure/skipped elements")
    check(int(root.get("failures")) == nfail and int(root.get("skipped")) == nskip, "counts")
    nasty_el = [c for c in cases if c.get("name") == "nasty-stderr"][0]
    check("]]><&\"'" in nasty_el.find("system-err").text, "escaped stderr round-trips")
    check(nasty_el.find("failure").get("message").startswith("rejected with invalid-target"),
          "failure message")
    # an unwritable report path is a setup error
    rc, out, err, _ = ctx.run("--case", "aa", "--report-junit",
                              os.path.join(ctx.tmp, "no", "such", "dir.xml"))
    check(rc == 2, "unwritable report: exit %d" % rc)


def hello_required(ctx):
    for mode in ("crash", "v3", "garbage"):
        rc, out, err, rep = ctx.run(env={"FAKE_HELLO": mode}, report=False)
        check(rc == 2, "FAKE_HELLO=%s: exit %d, expected 2" % (mode, rc))
        check("hello" in err, "message: %r" % err)
    rc, out, err, _ = ctx.run(adapter=os.path.join(ctx.tmp, "no-such-adapter"), report=False)
    check(rc == 2, "missing adapter: exit %d" % rc)
    rc, out, err, _ = ctx.run(corpus=os.path.join(ctx.tmp, "no-such-corpus"), report=False)
    check(rc == 2, "missing corpus: exit %d" % rc)
    rc, out, err, _ = ctx.run("--bogus", report=False)
    check(rc == 2, "unknown option: exit %d" % rc)


def list_only(ctx):
    rc, out, err, _ = ctx.run("--list", adapter=os.path.join(ctx.tmp, "no-such-adapter"),
                              report=False)
    check(rc == 0, "--list needs no adapter: exit %d" % rc)
    check(out.split() == sorted(EXPECTED, key=lambda l: l.encode()) or
          sorted(out.split()) == sorted(EXPECTED), "--list output")
    check(all("/" in l for l in out.split()), "--list prints area/id")
    env_corpus = dict(SCROLLCASE_CORPUS=CORPUS)
    p = subprocess.run([ctx.runner, "--list", "--area", "order"],
                       env=dict(os.environ, **env_corpus), stdout=subprocess.PIPE)
    check(p.returncode == 0 and p.stdout.split() == [b"order/a-10", b"order/a-9",
                                                     b"order/a-b", b"order/aa"],
          "SCROLLCASE_CORPUS is the default corpus")


def corpus_schema(ctx):
    p = subprocess.run([sys.executable, os.path.join(HERE, "..", "check_cases.py"), CORPUS],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    check(p.returncode == 0, "the self-test corpus breaks the case rules:\n%s"
          % p.stdout.decode())


def since_shipped(ctx):
    """check_cases.py refuses a case whose since is older than the release
    that first shipped it: a case added after release R claims since <= R."""
    rel = os.path.join(ctx.tmp, "released")
    os.makedirs(rel)
    names = sorted("%s/%s" % (a, c) for a in os.listdir(CORPUS)
                   if os.path.isdir(os.path.join(CORPUS, a))
                   for c in os.listdir(os.path.join(CORPUS, a))
                   if os.path.isdir(os.path.join(CORPUS, a, c)))
    def run(listed):
        with open(os.path.join(rel, "2.0.0"), "w") as f:
            f.write("".join(n + "\n" for n in listed))
        return subprocess.run([sys.executable, os.path.join(HERE, "..", "check_cases.py"),
                               CORPUS, "--released", rel],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    p = run(names)
    check(p.returncode == 0, "every case shipped in 2.0.0:\n%s" % p.stdout.decode())
    p = run(names[1:])
    check(p.returncode == 1 and ("%s: since 1.0.0, but no release up to 2.0.0 holds the case"
                                 % names[0]).encode() in p.stdout,
          "a case 2.0.0 did not ship, with since 1.0.0, is refused:\n%s" % p.stdout.decode())


def rules_checker(ctx):
    """check_rules.py finds each kind of gap and problem in a tiny inventory:
    an id only in the text, a limit pinned on one side, an order without both
    failures, a look-alike missing, a place missing, a waiver without a reason
    or for a gap that is not there, a stale COVERAGE.md."""
    root = os.path.join(ctx.tmp, "rules-root")
    os.makedirs(os.path.join(root, "docs"))
    os.makedirs(os.path.join(root, "conformance"))
    def case(area, cid, rules):
        d = os.path.join(root, "golden", area, cid)
        os.makedirs(d)
        with open(os.path.join(d, "case.json"), "w") as f:
            json.dump({"id": cid, "rules": rules}, f)
    text = ("# T\n\n## 1. One\n\nAt most 3 {#a.limit}. In this order {#a.order}.\n"
            "ASCII only {#a.class}. Everywhere {#a.shared}.\n")
    rules = [{"id": "a.limit", "section": "1", "kind": "limit", "limit": {"max": 3}, "cases": []},
             {"id": "a.order", "section": "1", "kind": "order", "cases": []},
             {"id": "a.class", "section": "1", "kind": "char-class", "cases": []},
             {"id": "a.shared", "section": "1", "kind": "shared", "places": ["x", "y"], "cases": []}]
    case("x", "x-at", ["a.limit@at-max", "a.order", "a.class", "a.shared@x"])
    def run(write=False, doc=text, inv=rules):
        with open(os.path.join(root, "docs", "format-v3.md"), "w") as f:
            f.write(doc)
        with open(os.path.join(root, "conformance", "rules.json"), "w") as f:
            json.dump({"rules": inv}, f)
        p = subprocess.run([sys.executable, os.path.join(HERE, "..", "check_rules.py"), "--root", root]
                           + (["--write"] if write else []),
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        return p.returncode, p.stdout.decode()
    rc, out = run(write=True)
    for gap in ("GAP a.limit (\u00a71 limit): no case over-max", "GAP a.order (\u00a71 order): no case both",
                "GAP a.class (\u00a71 char-class): no case lookalike",
                "GAP a.shared (\u00a71 shared): no case place:y"):
        check(rc == 1 and gap in out, "check_rules.py reports %r:\n%s" % (gap, out))
    check("a.limit (\u00a71 limit): no case at-max" not in out, "a case at the bound counts:\n%s" % out)
    reasons = {"a.limit": {"over-max": "needs a 4 GiB input"},
               "a.order": {"both": "same code either way"},
               "a.class": {"lookalike": "no non-ASCII spelling exists"},
               "a.shared": {"place:y": "y has no reader yet"}}
    waived = [dict(r, waivers=reasons[r["id"]]) for r in rules]
    rc, out = run(write=True, inv=waived)
    check(rc == 0 and "0 gaps, 4 waived, 0 problems" in out, "waivers with reasons pass:\n%s" % out)
    rc, out = run(inv=waived, doc=text + "More {#a.extra}.\n")
    check(rc == 1 and "{#a.extra} is not in conformance/rules.json" in out
          and "COVERAGE.md is stale" not in out, "an id only in the text is a problem:\n%s" % out)
    bad = [dict(r) for r in waived]
    bad[0]["waivers"] = {"over-max": "", "at-max": "covered anyway, so stale"}
    rc, out = run(inv=bad)
    check(rc == 1 and "the waiver of over-max needs a reason" in out
          and "waiver of at-max is stale" in out, "bad waivers are problems:\n%s" % out)
    rc, out = run(inv=waived)
    with open(os.path.join(root, "conformance", "COVERAGE.md"), "a") as f:
        f.write("edited\n")
    rc, out = run(inv=waived)
    check(rc == 1 and "COVERAGE.md is stale" in out, "a stale COVERAGE.md is a problem:\n%s" % out)


def persistent_request_protocol(ctx):
    """README 3.8, for the built-in adapter and the example port: a request
    with members the protocol does not define is answered as if they were
    absent; an adapter's own bug (here a case directory that does not exist)
    gets no response, and the adapter exits with a status other than 0."""
    golden = os.path.join(HERE, "..", "..", "golden")
    case = os.path.abspath(os.path.join(golden, "json", "json-empty-input"))
    adapters = [("built-in", [os.path.join(os.path.dirname(ctx.runner), "scrollcase-adapter")]),
                ("example", [sys.executable, os.path.join(HERE, "..", "examples", "python",
                                                          "adapter.py")])]
    for name, argv in adapters:
        work = tempfile.mkdtemp(dir=ctx.tmp)
        requests = [{"seq": 1, "operation": "json-read", "case": case, "work": work,
                     "x-trace": {"id": "abc"}, "deadlineMs": 5000},
                    {"seq": 2, "operation": "json-read", "case": case + "-missing",
                     "work": work}]
        p = subprocess.run(argv + ["--persistent"],
                           input="".join(json.dumps(r) + "\n" for r in requests).encode(),
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=60)
        lines = p.stdout.decode().splitlines()
        check(len(lines) >= 1 and json.loads(lines[0]) == {"seq": 1, "error": "invalid-json"},
              "%s: a request with unknown members is answered normally: %r" % (name, lines))
        check(len(lines) == 1, "%s: no response for the adapter's own bug: %r" % (name, lines))
        check(p.returncode not in (0, None) and p.returncode > 0,
              "%s: an adapter's own bug ends it with a non-zero status, got %s"
              % (name, p.returncode))


def hello_typo(ctx):
    """A misspelt operation or feature in --hello is refused, with a suggestion,
    instead of quietly turning cases into UNSUPPORTED; extensions under x- are fine."""
    for mode, bad, near in (("typo-op", "json_read", "json-read"),
                            ("typo-feature", "symlink", "symlinks")):
        rc, out, err, rep = ctx.run(env={"FAKE_HELLO": mode}, report=False)
        check(rc == 2, "FAKE_HELLO=%s: exit %d, expected 2" % (mode, rc))
        check(('"%s"' % bad) in err and ('did you mean "%s"' % near) in err,
              "message names the typo and the known name: %r" % err)
    rc, out, err, rep = ctx.run("--area", "order", env={"FAKE_HELLO": "extension"})
    check(rc == 0, "x- extensions refused: exit %d %r" % (rc, err))
    check(rep["adapter"]["hello"]["x-acme"] == {"build": "7"}, "extra members kept in the report")
    # the runner's list of names is the schema's list of operations
    p = subprocess.run([ctx.runner, "--protocol-json"], stdout=subprocess.PIPE, check=True)
    proto = json.loads(p.stdout)
    with open(os.path.join(HERE, "..", "case.schema.json"), encoding="utf-8") as f:
        schema = json.load(f)
    check(sorted(proto["operations"]) == sorted(schema["properties"]["operation"]["enum"]),
          "runner operations differ from case.schema.json's")
    check(proto["unsupportedExitStatus"] == 77 and proto["extensionPrefix"] == "x-",
          "--protocol-json: %r" % proto)


def persistent_same(ctx):
    """Persistent mode gives every case the status the one-shot mode gives it, with
    one adapter process per job plus one per crash."""
    starts = os.path.join(ctx.tmp, "starts")
    rc, out, err, rep = ctx.run("--jobs", "1", "--timeout", "5",
                                env={"FAKE_HELLO": "persistent", "FAKE_STARTS": starts})
    check(rep["adapter"]["mode"] == "persistent", "mode %r" % rep["adapter"]["mode"])
    check(statuses(rep) == EXPECTED, "persistent statuses differ: %r" %
          {k: v for k, v in statuses(rep).items() if EXPECTED.get(k) != v})
    with open(starts) as f:
        n = len(f.read().split())
    # crashes restart it: exit2, stdout-not-json (a broken line), three crash/*,
    # reject-malformed and reject-extra-member (malformed responses)
    check(n == 1 + rep["adapter"]["restarts"], "%d starts, %d restarts"
          % (n, rep["adapter"]["restarts"]))
    check(3 <= rep["adapter"]["restarts"] <= 9, "restarts %d" % rep["adapter"]["restarts"])
    rc2, out2, err2, rep2 = ctx.run("--jobs", "3", env={"FAKE_HELLO": "persistent"})
    check(statuses(rep2) == EXPECTED and rc2 == rc, "--jobs 3 differs")
    # --mode oneshot ignores the offer; --mode persistent needs it
    rc, out, err, rep = ctx.run("--area", "order", "--mode", "oneshot",
                                env={"FAKE_HELLO": "persistent"})
    check(rep["adapter"]["mode"] == "oneshot", "--mode oneshot")
    rc, out, err, rep = ctx.run("--area", "order", "--mode", "persistent", report=False)
    check(rc == 2 and "persistent" in err, "--mode persistent without the offer: exit %d" % rc)


def persistent_crash_restart(ctx):
    """A crash or a timeout in persistent mode fails that case only: the runner
    starts a fresh adapter for the next one."""
    starts = os.path.join(ctx.tmp, "starts")
    rc, out, err, rep = ctx.run("--jobs", "1", "--timeout", "2", "--case", "aa",
                                "--case", "crash/*", "--case", "slow", "--case", "a-b",
                                env={"FAKE_HELLO": "persistent", "FAKE_STARTS": starts,
                                     "FAKE_SLEEP": "30"})
    expect_statuses(rep, {"order/aa": "pass", "order/a-b": "pass", "io/slow": "fail",
                          "crash/segv-on-invalid": "fail", "crash/abort-on-valid": "fail",
                          "crash/exit3-on-invalid": "fail"})
    byid = {c["id"]: c for c in rep["cases"]}
    check("timed out" in byid["slow"]["reason"], "reason %r" % byid["slow"]["reason"])
    check(byid["segv-on-invalid"]["signal"] == 11, "signal not reported")
    with open(starts) as f:
        check(len(f.read().split()) == 5, "one start plus one per crash")
    for bug in ("seq", "twolines", "garbage", "exit"):
        rc, out, err, rep = ctx.run("--jobs", "1", "--area", "basic",
                                    env={"FAKE_HELLO": "persistent", "FAKE_PERSIST_BUG": bug})
        want = {k: v for k, v in EXPECTED.items() if k.startswith("basic/")}
        got = statuses(rep)
        wrong = [k for k in want if got[k] != want[k]]
        # a second line can arrive after the first was taken as the answer: it
        # then breaks the next request (seq mismatch) instead
        allowed = ("basic/accept-any", "basic/accept-ok") if bug == "twolines" \
            else ("basic/accept-any",)
        check(len(wrong) == 1 and wrong[0] in allowed, "%s: wrong statuses %r" % (bug, wrong))
        reason = {"%s/%s" % (c["area"], c["id"]): c for c in rep["cases"]}[wrong[0]]["reason"]
        check(reason.startswith("crash:"), "%s: reason %r" % (bug, reason))
    # an adapter that fails at its exit (a sanitizer's leak report) fails the run
    rc, out, err, rep = ctx.run("--area", "order", env={"FAKE_HELLO": "persistent",
                                                        "FAKE_PERSIST_BUG": "exit-at-end"})
    check(statuses(rep) == {k: v for k, v in EXPECTED.items() if k.startswith("order/")},
          "exit-at-end: case statuses")
    check(rc == 1 and "status 23 at the end" in err and "LeakSanitizer" in err,
          "exit-at-end: exit %d, %r" % (rc, err))


def persistent_gone_at_once(ctx):
    """A persistent adapter that exits before reading its request fails each
    case as a crash, the same way on every run: whether the request's write
    fails (the adapter already gone) or lands in the pipe first must not turn
    a failure into a runner error."""
    # A two-line adapter (no shell script to parse first) loses the race
    # often: the old runner called a tenth of such cases runner errors.
    gone = os.path.join(ctx.tmp, "gone.sh")
    with open(gone, "w") as f:
        f.write('[ "$1" = --hello ] && exec /bin/sh %s --hello\n'
                'echo \'{"error": "invalid-json"}\'; exit 1\n' % ADAPTER.split()[-1])
    seen = None
    for _ in range(8):
        rc, out, err, rep = ctx.run("--jobs", "2", adapter="/bin/sh " + gone,
                                    env={"FAKE_HELLO": "persistent"})
        check(rc == 1, "exit %d" % rc)
        # (a case whose operation the hello does not offer never runs)
        got = {"%s/%s" % (c["area"], c["id"]): (c["status"], c.get("reason"))
               for c in rep["cases"] if c["id"] != "op-not-offered"}
        bad = {k: v for k, v in got.items() if v[0] != "fail"}
        check(not bad, "not failed as crashes: %r" % sorted(bad.items())[:5])
        check(all(v[1].startswith("crash:") for v in got.values()), "reasons %r"
              % sorted({v[1] for v in got.values()}))
        if seen is not None and got != seen:
            check(False, "a second run differs: %r" % sorted(
                (k, seen.get(k), v) for k, v in got.items() if seen.get(k) != v)[:3])
        seen = got


def adapter_argv(ctx):
    """The adapter as an argv: words with spaces survive (--adapter-arg or --)."""
    d = os.path.join(ctx.tmp, "dir with space")
    os.mkdir(d)
    script = os.path.join(d, "fake adapter.sh")
    shutil.copy(os.path.join(HERE, "fake-adapter.sh"), script)
    shutil.copy(os.path.join(HERE, "fake-persistent.py"), d)
    rc, out, err, rep = ctx.run("--area", "order", "--adapter-arg", "/bin/sh",
                                "--adapter-arg", script, adapter=None)
    check(rc == 0, "--adapter-arg: exit %d %r" % (rc, err))
    check(rep["adapter"]["command"] == ["/bin/sh", script], "argv %r" % rep["adapter"]["command"])
    rc, out, err, rep = ctx.run("--area", "order", "--", "/bin/sh", script, adapter=None)
    check(rc == 0 and rep["adapter"]["command"] == ["/bin/sh", script], "-- argv: exit %d" % rc)
    rc, out, err, rep = ctx.run("--area", "order", "--", "/bin/sh", script, report=False)
    check(rc == 2, "--adapter together with an argv: exit %d" % rc)


def quiet_and_unsupported(ctx):
    """UNSUPPORTED is one line per area by default, every case with --verbose;
    --quiet prints failures and the summary line only."""
    rc, out, err, rep = ctx.run("--area", "skip", "--area", "basic", env={"FAKE_HELLO": "v1"})
    lines = [l for l in out.splitlines() if l.startswith("UNSUPPORTED")]
    check(len(lines) == 1 and "skip/*" in lines[0] and "(2 cases" in lines[0],
          "one summary line per area: %r" % lines)
    check("1: the adapter does not offer operation config-check" in lines[0], lines[0])
    rc, out, err, rep = ctx.run("--area", "skip", "--verbose", env={"FAKE_HELLO": "v1"})
    check(len([l for l in out.splitlines() if l.startswith("UNSUPPORTED")]) == 2,
          "--verbose lists every unsupported case")
    rc, out, err, rep = ctx.run("--area", "basic", "--quiet")
    lines = out.splitlines()
    fails = [k for k, v in EXPECTED.items() if k.startswith("basic/") and v == "fail"]
    check(len(lines) == len(fails) + 1, "--quiet prints %d lines" % len(lines))
    check(all(l.startswith("FAIL ") for l in lines[:-1]), "--quiet: %r" % lines)
    summary(out)
    rc, out, err, rep = ctx.run("--quiet", "--verbose", report=False)
    check(rc == 2, "--quiet with --verbose: exit %d" % rc)


def report_formats(ctx):
    """TAP 13 and GitHub annotations; JUnit times are wall times per area."""
    tap = os.path.join(ctx.tmp, "r.tap")
    gh = os.path.join(ctx.tmp, "gh.txt")
    junit = os.path.join(ctx.tmp, "j.xml")
    rc, out, err, rep = ctx.run("--jobs", "4", "--report-tap", tap, "--report-github", gh,
                                "--report-junit", junit, "--case", "order/*", "--case",
                                "basic/*", "--case", "skip/*", "--case", "slow",
                                env={"FAKE_SLEEP": "1"})
    with open(tap) as f:
        t = f.read().splitlines()
    check(t[0] == "TAP version 13" and t[1] == "1..%d" % len(rep["cases"]), "TAP plan")
    body = t[2:]
    check(len(body) == len(rep["cases"]), "one TAP line per case")
    for i, (line, c) in enumerate(zip(body, rep["cases"]), 1):
        label = "%s/%s" % (c["area"], c["id"])
        want = {"pass": "ok %d - %s" % (i, label),
                "unsupported": "ok %d - %s # SKIP" % (i, label)}.get(c["status"],
                                                                  "not ok %d - %s" % (i, label))
        check(line.startswith(want), "TAP line %r for %s" % (line, c["status"]))
    with open(gh) as f:
        g = f.read().splitlines()
    errors = [l for l in g if l.startswith("::error ")]
    nfail = sum(1 for c in rep["cases"] if c["status"] in ("fail", "xpass", "error"))
    check(len(errors) == nfail, "%d annotations for %d failures" % (len(errors), nfail))
    check(all(re.match(r"^::error file=[^,]+/case\.json,title=\w+ [\w/-]+::", l)
              for l in errors), "annotation shape: %r" % errors[:2])
    check(g[-1].startswith("::notice "), "summary notice")
    # the same annotations on stdout, before the summary line
    rc, out, err, rep = ctx.run("--case", "accept-on-invalid", "--report-github", "-")
    check(re.search(r"^::error file=", out, re.M) and summary(out), "annotations on stdout")
    root = ET.parse(junit).getroot()
    suite = {s.get("name"): s for s in root.findall("testsuite")}
    io = suite["io"]
    check(float(io.get("time")) >= 0.9, "io suite time %s" % io.get("time"))
    basic = suite["basic"]
    tsum = sum(float(c.get("time")) for c in basic.findall("testcase"))
    check(float(basic.get("time")) <= tsum + 0.01, "suite time is not a wall time")
    check(float(root.get("time")) * 1000 >= rep["duration_ms"] - 1, "total time")


def options_json(ctx):
    """--options-json prints the runner's option table in the shape of
    `scrollcase help --commands-json`; every option in it parses."""
    p = subprocess.run([ctx.runner, "--options-json"], stdout=subprocess.PIPE)
    check(p.returncode == 0, "exit %d" % p.returncode)
    d = json.loads(p.stdout)
    check(d["schemaVersion"] == 1 and d["program"] == "scrollcase-conform", "header")
    check(len(d["commands"]) == 1, "one command")
    cmd = d["commands"][0]
    for k in ("name", "words", "group", "summary", "description", "operands", "options"):
        check(k in cmd, "command lacks %s" % k)
    names = set()
    for o in cmd["options"]:
        check(set(o) == {"name", "short", "argument", "help", "completion", "choices",
                         "repeatable", "aliases"}, "option members %r" % sorted(o))
        check(o["completion"] in ("none", "file", "directory", "choice", "command", "key"),
              o["completion"])
        check((o["completion"] == "choice") == bool(o["choices"]), "choices of %s" % o["name"])
        names.add(o["name"])
    for needed in ("--adapter-arg", "--quiet", "--allow-empty", "--report-tap",
                   "--report-github", "--mode", "--shard"):
        check(needed in names, "%s missing" % needed)
    p = subprocess.run([ctx.runner, "--help"], stdout=subprocess.PIPE, universal_newlines=True)
    for n in names:
        check(n in p.stdout, "--help lacks %s" % n)
    check("counts from 1" in p.stdout, "--help says shards count from 1")


SCENARIOS = {
    "basic-statuses": basic_statuses,
    "crash-fails-invalid": crash_fails_invalid,
    "exit2-unsupported": exit2_unsupported,
    "all-unsupported": all_unsupported,
    "xfail-strict": xfail_strict,
    "xfail-needs-reason": xfail_needs_reason,
    "xfail-unmatched-warns": xfail_unmatched_warns,
    "shard-cover": shard_cover,
    "filters": filters,
    "sorted-order": sorted_order,
    "sha256-mismatch": sha256_mismatch,
    "bad-case-json": bad_case_json,
    "timeout-kills-group": timeout_kills_group,
    "big-output": big_output,
    "parallel-same": parallel_same,
    "reports-wellformed": reports_wellformed,
    "hello-required": hello_required,
    "list-only": list_only,
    "corpus-schema": corpus_schema,
    "since-shipped": since_shipped,
    "persistent-request-protocol": persistent_request_protocol,
    "rules-checker": rules_checker,
    "false-green": false_green,
    "xfail-crash": xfail_crash,
    "hello-typo": hello_typo,
    "persistent-same": persistent_same,
    "persistent-crash-restart": persistent_crash_restart,
    "persistent-gone-at-once": persistent_gone_at_once,
    "adapter-argv": adapter_argv,
    "quiet-and-unsupported": quiet_and_unsupported,
    "report-formats": report_formats,
    "options-json": options_json,
}


def main(argv):
    ap = argparse.ArgumentParser()
    ap.add_argument("--runner", required=True)
    ap.add_argument("--scenario", required=True, help="a name, a glob, or 'all'")
    args = ap.parse_args(argv)
    pattern = "*" if args.scenario == "all" else args.scenario
    names = [n for n in SCENARIOS if fnmatch.fnmatchcase(n, pattern)]
    if not names:
        sys.exit("selftest.py: no scenario %r (have: %s)" % (args.scenario, ", ".join(SCENARIOS)))
    failed = 0
    for name in names:
        tmp = tempfile.mkdtemp(prefix="scrollcase-selftest-")
        try:
            SCENARIOS[name](Ctx(os.path.abspath(args.runner), tmp))
            print("ok   %s" % name)
        except Failure as e:
            failed += 1
            print("FAIL %s: %s" % (name, e))
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
