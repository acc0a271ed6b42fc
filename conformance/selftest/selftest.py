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

# status of every case with the default fake adapter (FAKE_HELLO=ok)
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
    "skip/exit2": "unsupported",
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
    log = os.path.join(ctx.tmp, "calls.log")
    rc, out, err, rep = ctx.run("--area", "skip", env={"FAKE_LOG": log})
    expect_statuses(rep, {k: v for k, v in EXPECTED.items() if k.startswith("skip/")})
    check(summary(out) == (1, 0, 2), "summary %r" % (summary(out),))
    check(rc == 0, "exit %d: unsupported cases must not fail the run" % rc)
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


def all_unsupported(ctx):
    rc, out, err, rep = ctx.run("--case", "skip/exit2")
    check(summary(out) == (0, 0, 1), "summary %r" % (summary(out),))
    check(rc == 1, "exit %d: a run in which no case ran must not pass" % rc)
    rc, out, err, rep = ctx.run("--case", "no-such-case")
    check(summary(out) == (0, 0, 0) and rc == 1, "empty selection: exit %d" % rc)


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
    # crashes of listed cases are expected failures too; unsupported stays
    xf3 = write(os.path.join(ctx.tmp, "crash.xfail"), "crash/* crashes\nskip/exit2 no\n")
    rc, out, err, rep = ctx.run("--area", "crash", "--area", "skip", "--xfail", xf3)
    expect_statuses(rep, {"crash/segv-on-invalid": "xfail", "skip/exit2": "unsupported"})
    check(rc == 0, "exit %d" % rc)


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
    check(len(listed("--suite-version", "1.0.0")) == len(EXPECTED), "--suite-version 1.0.0")
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
             if re.match(r"^(FAIL|UNSUPPORTED|ERROR|XPASS|XFAIL)\s", l)]
    check(lines == [l for l in want if EXPECTED[l] != "pass"], "output lines out of order")


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
    check(rep["protocol_version"] == "1.1", "protocol version")
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
    check(len(fails) == 13 and len(skips) == 2, "failure/skipped elements")
    check(int(root.get("failures")) == 13 and int(root.get("skipped")) == 2, "counts")
    nasty_el = [c for c in cases if c.get("name") == "nasty-stderr"][0]
    check("]]><&\"'" in nasty_el.find("system-err").text, "escaped stderr round-trips")
    check(nasty_el.find("failure").get("message").startswith("rejected with invalid-target"),
          "failure message")
    # an unwritable report path is a setup error
    rc, out, err, _ = ctx.run("--case", "aa", "--report-junit",
                              os.path.join(ctx.tmp, "no", "such", "dir.xml"))
    check(rc == 2, "unwritable report: exit %d" % rc)


def hello_required(ctx):
    for mode in ("crash", "v2", "garbage"):
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
