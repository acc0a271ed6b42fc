#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""progress_cli_test.py SCROLLCASE SOURCE_DIR — how `scrollcase build`,
`prepare` and `verify` show their long steps: the download of an embedded
asset (2 MiB from the loopback server, stalled halfway), the environment
copy, digesting, the self-test, the recheck and the archive of a build, the
archive's hash and the extraction of a prepare, the check of an extracted
tree.  On a pseudo-terminal a live area (a line per running step with its
bar, percentage, sizes, rate and ETA, redrawn in place and erased, lines
that fit the terminal), coloured unless NO_COLOR; with TERM=dumb or on a
pipe one line per step when it ends, with its totals in human units (equal
to the --json run's finished events); nothing with --quiet; JSON lines on
stderr with --json (each valid against
docs/schema/cli/progress-event.schema.json, each step's first event at 0 and
its finished event last and equal to the totals) and on --progress-fd; no
exact byte counts for people; the archive's size on disk, not the signed
one, when they differ (issue 14).  Prints "N passed, N failed"."""
import json
import os
import pty
import re
import struct
import termios
import fcntl
import shutil
import subprocess
import sys
import tempfile

import jsonschema

sc, src = sys.argv[1], sys.argv[2]
passed = failed = 0
SIZE = 2 * 1024 * 1024
COLUMNS = 100


def live_lines(err):
    """The lines the live area drew (indented, the step painted or not)."""
    out = []
    for seg in re.split(r"\n", err):
        seg = re.sub(r"^.*\x1b\[J", "", seg)  # what follows an erase of the area
        shown = re.sub(r"\x1b\[[0-9;]*[mAJ]", "", seg).replace("\r", "")
        if shown.startswith("  ") and ("%" in shown or "running for" in shown or "time limit" in shown):
            out.append(shown)
    return out


def bars_fit(err):
    """Every line of the live area fits the terminal's width (a wrapped line
    could not be erased)."""
    for l in live_lines(err):
        if len(l) >= COLUMNS:
            return l
    return None


def note(name, ok, detail=""):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print("FAIL %s %s" % (name, detail[:2000]))


def git(ws, *args):
    subprocess.run(["git", "-C", ws, "-c", "user.name=t", "-c", "user.email=t@t", *args],
                   check=True, capture_output=True)


def on_pty(args, env, cwd):
    """Run with stderr on a pseudo-terminal; (status, stdout, stderr text)."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, COLUMNS, 0, 0))
    p = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=slave, env=env, cwd=cwd)
    os.close(slave)
    got = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:
            break
        if not chunk:
            break
        got += chunk
    out = p.stdout.read()
    p.wait()
    os.close(master)
    return p.returncode, out.decode(), got.decode(errors="replace")


BUILD_STEPS = ("copy", "digest", "self-test", "recheck", "archive", "download")
PREPARE_STEPS = ("hash", "extract")
# the one line a step leaves: "scrollcase: <step>[ <item>]: [N files, ][SIZE ]in T[ (RATE/s)]"
# ("within T" for a step that counted nothing until its end: a hash beside an extraction)
DONE = re.compile(r"^scrollcase: (?P<step>[a-z-]+)(?: (?P<item>[^:]*))?: "
                  r"(?:(?P<files>\d+) (?:files?|runs?))?(?:, )?(?P<size>\d+ B|\d+\.\d [KMGTPE]iB)? ?"
                  r"(?:done )?(?:within|in) (?P<took>\d+\.\d+ s|\d+ s|\d+:\d\d)(?: \((?P<rate>[^)]*)/s\))?$")


def short_size(n):
    if n < 1024:
        return "%d B" % n
    v, units = n / 1024.0, ["KiB", "MiB", "GiB", "TiB", "PiB", "EiB"]
    i = 0
    while v >= 1024 and i < 5:
        v /= 1024.0
        i += 1
    return "%.1f %s" % (v, units[i])


def plain_steps(err):
    """The finished-step lines of stderr, by step, in order."""
    steps = {}
    for l in err.splitlines():
        m = DONE.match(l)
        if m:
            steps.setdefault(m.group("step"), []).append(m)
    return steps


def check_plain(name, err, wanted, finished_events=None):
    """Not a terminal: each wanted step leaves exactly its finished lines
    (one per run of the step), nothing else about it, no bar, no exact byte
    count; with the --json run's finished events, the same totals."""
    note("%s no bar, no escape" % name, "\r" not in err and "\x1b[" not in err, repr(err[-300:]))
    note("%s no exact bytes, no unknown rate, no ETA" % name,
         "bytes)" not in err and "- B/s" not in err and "ETA" not in err, err[-2000:])
    steps = plain_steps(err)
    for step in wanted:
        lines = steps.get(step, [])
        note("%s %s finished line" % (name, step), len(lines) >= 1, err[-3000:])
        others = [l for l in err.splitlines() if l.startswith("scrollcase: %s" % step) and
                  not DONE.match(l) and not l.startswith("scrollcase: %s:" % step)]
        note("%s %s one line per step" % (name, step), not others, "\n".join(others))
        if finished_events is None:
            continue
        ends = [e for e in finished_events if e["step"] == step]
        note("%s %s as many lines as runs" % (name, step), len(ends) == len(lines),
             "%d lines, %d finished events" % (len(lines), len(ends)))
        for m, e in zip(lines, ends):
            if e["filesTotal"] > 1 or (e["filesTotal"] == 1 and not m.group("item")):
                note("%s %s files" % (name, step), m.group("files") == str(e["filesTotal"]), m.group(0))
            if e["bytesTotal"] > 0 and step not in ("self-test", "parity"):
                note("%s %s size" % (name, step), m.group("size") == short_size(e["bytesTotal"]),
                     "%s vs %s" % (m.group(0), short_size(e["bytesTotal"])))


with open(os.path.join(src, "docs", "schema", "cli", "progress-event.schema.json")) as f:
    EVENT_SCHEMA = json.load(f)


def check_json(name, err, wanted):
    """Every stderr line a progress event of the schema; each wanted step's
    events start at 0 and end with one finished event equal to the totals."""
    events = []
    for l in err.splitlines():
        try:
            e = json.loads(l)
            jsonschema.validate(e, EVENT_SCHEMA)
            events.append(e)
        except (ValueError, jsonschema.ValidationError) as x:
            note("%s stderr line is an event" % name, False, "%s: %s" % (l, x))
    note("%s stderr lines" % name, len(events) > 0)
    for step in wanted:
        ev = [e for e in events if e["event"] == "progress" and e["step"] == step]
        note("%s %s events" % (name, step), len(ev) >= 2, json.dumps(ev[-3:]))
        runs, cur = [], []
        for e in ev:
            cur.append(e)
            if e["finished"]:
                runs.append(cur)
                cur = []
        note("%s %s runs end" % (name, step), runs and not cur, json.dumps(cur[-2:]))
        for run in runs:
            check_events(name, step, run)


def check_events(name, step, ev):
    if len(ev) < 2:
        note("%s %s run events" % (name, step), False, json.dumps(ev))
        return
    if True:
        fin = [e for e in ev if e["finished"]]
        note("%s %s first at 0" % (name, step),
             ev[0]["bytesDone"] == 0 and ev[0]["filesDone"] == 0 and not ev[0]["finished"])
        note("%s %s one finished, last" % (name, step), len(fin) == 1 and ev[-1]["finished"])
        last = ev[-1]
        note("%s %s done equal the totals" % (name, step),
             last["bytesDone"] == last["bytesTotal"] and last["filesDone"] == last["filesTotal"]
             and last["filesTotal"] > 0, json.dumps(last))
        if step == "self-test":
            note("%s self-test limit" % name, last.get("limitMs") == 180000, json.dumps(last))


def consumer(env, ws, release, archive, trust):
    """prepare and verify of the box built: on a pipe, a terminal, --json,
    --quiet; and verify of an archive whose size is not the signed one."""
    tmp = tempfile.mkdtemp()
    try:
        def dest(n):
            return os.path.join(tmp, "d%d" % n)
        prep = [sc, "prepare", release, "", "--trust", trust]

        def prepare(n, *extra):
            return prep[:3] + [dest(n)] + prep[4:] + list(extra)
        r = subprocess.run(prepare(0, "--json"), capture_output=True, text=True, env=env, cwd=ws)
        ends = [json.loads(l) for l in r.stderr.splitlines() if l.startswith("{")]
        ends = [e for e in ends if e["event"] == "progress" and e["finished"]]
        r = subprocess.run(prepare(1), capture_output=True, text=True, env=env, cwd=ws)
        note("prepare pipe exit", r.returncode == 0, r.stderr)
        check_plain("prepare pipe", r.stderr, PREPARE_STEPS, ends)
        note("prepare pipe receipt in human units", "bytes)" not in r.stdout and
             short_size(os.path.getsize(archive)) in r.stdout, r.stdout)
        r = subprocess.run([sc, "verify", release, "--trust", trust, "--extracted", dest(1)],
                           capture_output=True, text=True, env=env, cwd=ws)
        note("verify --extracted pipe exit", r.returncode == 0, r.stderr)
        check_plain("verify --extracted pipe", r.stderr, ("verify",))

        rc, out, err = on_pty(prepare(2), env, ws)
        note("prepare tty exit", rc == 0, err)
        for step in PREPARE_STEPS:
            # a line of the live area while it ran, then its one finished line
            note("prepare tty %s live line" % step,
                 re.search("\n  \x1b\\[1;36m%s *\x1b\\[0m " % step, err) is not None, repr(err[-1500:]))
            note("prepare tty %s finished line" % step,
                 re.search("scrollcase: \x1b\\[1;32m%s\x1b\\[0m[^\n]* in " % step, err) is not None,
                 repr(err[-1500:]))
        note("prepare tty area erased", "\x1b[J" in err and re.search("\x1b\\[[0-9]+A", err) is not None,
             repr(err[-600:]))
        note("prepare tty no exact bytes", "bytes)" not in err, repr(err[-600:]))
        wide = bars_fit(err)
        note("prepare tty lines fit %d columns" % COLUMNS, wide is None, repr(wide))
        rc, out, err = on_pty(prepare(3), dict(env, NO_COLOR="1"), ws)
        note("prepare tty NO_COLOR", rc == 0 and "\x1b[1;" not in err and "\x1b[0m" not in err and
             re.search(r"\n  extract +\S", err) is not None and "\x1b[J" in err, repr(err[-600:]))
        rc, out, err = on_pty(prepare(6), dict(env, TERM="dumb"), ws)
        note("prepare tty TERM=dumb exit", rc == 0, err)
        check_plain("prepare tty TERM=dumb", err.replace("\r\n", "\n"), PREPARE_STEPS)

        r = subprocess.run(prepare(4, "--json"), capture_output=True, text=True, env=env, cwd=ws)
        note("prepare json exit", r.returncode == 0 and json.loads(r.stdout)["ok"] is True,
             r.stderr)
        check_json("prepare json", r.stderr, PREPARE_STEPS)
        r = subprocess.run([sc, "verify", release, "--trust", trust, "--extracted", dest(4),
                            "--json"], capture_output=True, text=True, env=env, cwd=ws)
        note("verify --extracted json exit", r.returncode == 0, r.stderr)
        check_json("verify --extracted json", r.stderr, ("verify",))
        r = subprocess.run([sc, "verify", release, "--trust", trust, "--json"],
                           capture_output=True, text=True, env=env, cwd=ws)
        note("verify json exit", r.returncode == 0, r.stderr)
        check_json("verify json", r.stderr, ("hash",))

        # verify --self-test reads the archive once: one "hash" step, whose
        # extraction is the self-test's (not a verify's hash, a prepare's
        # hash and a re-hash of a fresh archive)
        r = subprocess.run([sc, "verify", release, "--trust", trust, "--self-test", "--json"],
                           capture_output=True, text=True, env=env, cwd=ws)
        note("verify --self-test json exit", r.returncode == 0 and
             json.loads(r.stdout).get("selfTest") is True, r.stderr[-2000:])
        events = [json.loads(l) for l in r.stderr.splitlines() if l.startswith("{")]
        hash_starts = [e for e in events if e["event"] == "progress" and e["step"] == "hash"
                       and not e["finished"] and e["bytesDone"] == 0 and e["filesDone"] == 0]
        hash_ends = [e for e in events if e["event"] == "progress" and e["step"] == "hash"
                     and e["finished"]]
        note("verify --self-test hashes the archive once", len(hash_starts) == 1 and
             len(hash_ends) == 1 and hash_ends[0]["bytesDone"] == os.path.getsize(archive),
             json.dumps(hash_starts + hash_ends))
        note("verify --self-test extracts and runs", any(e.get("step") == "extract" and
             e.get("finished") for e in events) and any(e.get("step") == "self-test" and
             e.get("finished") for e in events), json.dumps(events[-5:]))

        for argv in (prepare(5, "--quiet"),
                     [sc, "verify", release, "--trust", trust, "--quiet"],
                     [sc, "verify", release, "--trust", trust, "--extracted", dest(1), "-q"]):
            r = subprocess.run(argv, capture_output=True, text=True, env=env, cwd=ws)
            note("quiet %s exit" % argv[1], r.returncode == 0, r.stderr)
            note("quiet %s says nothing" % argv[1], r.stderr == "", r.stderr)

        # run prepares into a temporary directory first (this box declares no
        # execution: it is refused after the prepare, with no-execution)
        r = subprocess.run([sc, "run", release, "--trust", trust], capture_output=True,
                           text=True, env=env, cwd=ws)
        note("run exit", r.returncode == 1 and "error[no-execution]" in r.stderr, r.stderr)
        check_plain("run pipe", r.stderr, PREPARE_STEPS)
        r = subprocess.run([sc, "run", release, "--trust", trust, "--quiet"], capture_output=True,
                           text=True, env=env, cwd=ws)
        note("run quiet: the error alone",
             r.returncode == 1 and r.stderr.startswith("scrollcase: error[no-execution]") and
             len(r.stderr.splitlines()) == 1, r.stderr)

        # issue 14: the step line gives the archive's size on disk, and the
        # signed size labelled as such, never the signed size as the file's
        grown = os.path.join(tmp, "grown.zip")
        shutil.copyfile(archive, grown)
        signed = os.path.getsize(archive)
        with open(grown, "ab") as f:
            f.write(b"0123456789")
        r = subprocess.run([sc, "verify", release, "--trust", trust, "--archive", grown],
                           capture_output=True, text=True, env=env, cwd=ws)
        line = [l for l in r.stderr.splitlines() if l.startswith("scrollcase: checking")]
        note("grown archive refused", r.returncode == 1 and "error[archive-size]" in r.stderr,
             r.stderr)
        note("grown archive: its own size", bool(line) and "(%d bytes)" % (signed + 10) in line[0]
             and "the release signs" in line[0] and "(%d bytes)" % signed in line[0], str(line))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main():
    if shutil.which("git") is None or not os.path.exists("/usr/bin/python3"):
        print("SKIP: git and /usr/bin/python3 are needed to build a box")
        return 77
    tmp = tempfile.mkdtemp()
    server = None
    try:
        prefix = os.path.join(tmp, "prefix")
        os.makedirs(os.path.join(prefix, "bin"))
        with open(os.path.join(prefix, "bin", "python"), "w") as f:
            f.write('#!/bin/sh\nexec /usr/bin/python3 "$@"\n')
        os.chmod(os.path.join(prefix, "bin", "python"), 0o755)
        os.makedirs(os.path.join(prefix, "lib"))
        with open(os.path.join(prefix, "lib", "big.bin"), "wb") as f:
            f.write(bytes(range(251)) * 6000)  # 1.4 MiB: more than one event's worth
        for i in range(5):
            with open(os.path.join(prefix, "lib", "m%d.py" % i), "w") as f:
                f.write("x = %d\n" % i)
        served = os.path.join(tmp, "served")
        os.makedirs(served)
        with open(os.path.join(served, "weights.bin"), "wb") as f:
            f.write(bytes(range(256)) * (SIZE // 256))
        server = subprocess.Popen(["/usr/bin/python3", os.path.join(src, "fixtures", "http_server.py"),
                                   served, os.path.join(tmp, "http.log")],
                                  stdout=subprocess.PIPE, text=True)
        port = int(server.stdout.readline())
        ws = os.path.join(tmp, "ws")
        os.makedirs(ws)
        env = {k: v for k, v in os.environ.items() if not k.startswith("SCROLLCASE_")}
        env["SCROLLCASE_CACHE"] = os.path.join(tmp, "cache-setup")
        env.pop("NO_COLOR", None)
        env["TERM"] = "xterm"
        base = [sc, "--project-root", ws]
        for args in (["init"], ["keygen"],
                     ["new", "scroll", "--box-id", "p", "--target", "linux-x86_64-cpu",
                      "--source-revision", "t", "--asset-base-url", "https://x.invalid/"],
                     ["add", "asset", "p", "http://127.0.0.1:%d/weights.bin?stall=1.5" % port,
                      "--to", "models/weights.bin"]):
            r = subprocess.run(base + args, capture_output=True, text=True, env=env, cwd=ws)
            note("setup " + args[0], r.returncode == 0, r.stderr)
        git(ws, "init", "-q")
        git(ws, "add", "-A")
        git(ws, "commit", "-q", "-m", "one")
        build = base + ["build", "p/linux-x86_64-cpu", "--environment-prefix", prefix]
        runs = [0]

        def fresh(e):
            """Each build its own empty asset cache, so that it downloads again."""
            runs[0] += 1
            return dict(e, SCROLLCASE_CACHE=os.path.join(tmp, "cache-%d" % runs[0]))

        rc, out, err = on_pty(build, fresh(env), ws)
        note("tty exit", rc == 0, err)
        live = live_lines(err)
        note("tty live area redrawn in place", len(live) >= 2 and "\x1b[J" in err and
             re.search("\x1b\\[[0-9]+A", err) is not None, repr(err[-600:]))
        note("tty live lines show percent", any(re.search(r"\[[#-]+\] +[0-9]+% ", l) for l in live),
             "\n".join(live[-5:]))
        note("tty colour", "\x1b[1;36m" in err and "\x1b[1;32m" in err)
        note("tty human sizes only", "bytes)" not in err and "2.0 MiB" in err, repr(err[-600:]))
        note("tty no unknown rate", "- B/s" not in err, repr(err[-600:]))
        for step in ("copy", "digest", "archive", "download"):
            note("tty %s live line" % step,
                 re.search("\n  \x1b\\[1;36m%s *\x1b\\[0m " % step, err) is not None, repr(err[-1500:]))
            note("tty %s finished line" % step,
                 re.search("scrollcase: \x1b\\[1;32m%s\x1b\\[0m[^\n]* in " % step, err) is not None,
                 repr(err[-1500:]))
        note("tty download rate", re.search("\x1b\\[1;32mdownload\x1b\\[0m weights.bin[^\n]*: 2.0 MiB "
                                            "in [0-9.]+ s \\([0-9.]+ [KM]iB/s\\)", err) is not None,
             repr(err[-1500:]))
        wide = bars_fit(err)
        note("tty lines fit %d columns" % COLUMNS, wide is None, repr(wide))
        note("tty self-test line", any("time limit" in l for l in live), "\n".join(live[-5:]))

        rc, out, err = on_pty(build, fresh(dict(env, NO_COLOR="1")), ws)
        note("tty NO_COLOR exit", rc == 0, err)
        note("tty NO_COLOR no colour", "\x1b[1;" not in err and "\x1b[0m" not in err, repr(err[-300:]))
        note("tty NO_COLOR live area", "\x1b[J" in err and re.search(r"\n  archive +\S", err) is not None,
             repr(err[-600:]))
        rc, out, err = on_pty(build, fresh(dict(env, TERM="dumb")), ws)
        note("tty TERM=dumb exit", rc == 0, err)
        check_plain("tty TERM=dumb", err.replace("\r\n", "\n"), BUILD_STEPS)

        r = subprocess.run(build, capture_output=True, text=True, env=fresh(env), cwd=ws)
        note("pipe exit", r.returncode == 0, r.stderr)
        lines = [l for l in r.stderr.splitlines() if l.startswith("scrollcase: download ")]
        note("pipe one download line", len(lines) == 1 and "weights.bin" in lines[0] and
             ": 2.0 MiB in " in lines[0], r.stderr)
        check_plain("pipe build", r.stderr, BUILD_STEPS)

        r = subprocess.run(build + ["--quiet"], capture_output=True, text=True, env=fresh(env), cwd=ws)
        note("quiet exit", r.returncode == 0, r.stderr)
        note("quiet says nothing", r.stderr == "", r.stderr)

        r = subprocess.run(build + ["--json"], capture_output=True, text=True, env=fresh(env), cwd=ws)
        note("json exit", r.returncode == 0, r.stderr)
        events = []
        for l in r.stderr.splitlines():
            try:
                events.append(json.loads(l))
            except ValueError:
                note("json stderr line is JSON", False, l)
        prog = [e for e in events if e.get("event") == "progress"]
        dl = [e for e in prog if e["step"] == "download"]
        note("json progress events", len(dl) >= 2 and dl[-1]["finished"] is True and
             dl[-1]["bytesDone"] == SIZE and dl[-1]["bytesTotal"] == SIZE and
             dl[-1]["filesTotal"] == 1 and dl[-1]["filesDone"] == 1, json.dumps(dl[-2:]))
        check_json("json build", r.stderr, BUILD_STEPS)
        built = json.loads(r.stdout)["builds"][0]
        release, archive = built["releasePath"], built["archivePath"]
        trust = [os.path.join(d, "signing-public.json") for d, _, files in os.walk(ws)
                 if "signing-public.json" in files][0]
        consumer(env, ws, release, archive, trust)
        note("json step events", any(e.get("event") == "step" for e in events))
        note("json stdout one document", json.loads(r.stdout).get("ok") is True)

        fd_path = os.path.join(tmp, "events.jsonl")
        with open(fd_path, "w") as fdf:
            r = subprocess.run(build + ["--progress-fd", "3"], capture_output=True, text=True,
                               env=fresh(env), cwd=ws, pass_fds=(3,) if os.dup2(fdf.fileno(), 3) == 3 else ())
        os.close(3)
        note("progress-fd exit", r.returncode == 0, r.stderr)
        with open(fd_path) as f:
            fd_events = [json.loads(l) for l in f if l.strip()]
        note("progress-fd events", any(e["event"] == "progress" and e["finished"] for e in fd_events),
             str(fd_events[-2:]))
        note("progress-fd people's lines on stderr", "scrollcase: download weights.bin" in r.stderr)
        r = subprocess.run(build + ["--progress-fd", "1"], capture_output=True, text=True, env=env,
                           cwd=ws)
        note("progress-fd 1 refused", r.returncode == 2 and "error[usage]" in r.stderr, r.stderr)
    finally:
        if server is not None:
            server.kill()
            server.wait()
        shutil.rmtree(tmp, ignore_errors=True)
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


sys.exit(main())
