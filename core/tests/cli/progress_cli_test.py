#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""progress_cli_test.py SCROLLCASE SOURCE_DIR — how `scrollcase build` shows
the download of an embedded asset (2 MiB from the loopback server, stalled
halfway): a live bar with rate and ETA on a pseudo-terminal (with colour, and
without under NO_COLOR or TERM=dumb), plain periodic lines on a pipe, nothing
with --quiet, JSON lines on stderr with --json and on --progress-fd; sizes
with their exact byte counts.  Prints "N passed, N failed"."""
import json
import os
import pty
import shutil
import subprocess
import sys
import tempfile

sc, src = sys.argv[1], sys.argv[2]
passed = failed = 0
SIZE = 2 * 1024 * 1024


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
        exact = "(%d bytes)" % SIZE

        rc, out, err = on_pty(build, fresh(env), ws)
        note("tty exit", rc == 0, err)
        note("tty bar redrawn in place", "\r" in err and err.count("ETA") >= 2, repr(err[-600:]))
        note("tty bar shows percent and rate", "%" in err and "/s" in err and "[" in err)
        note("tty colour", "\x1b[" in err)
        note("tty exact size", exact in err and "2.0 MiB" in err)

        for name, extra in (("NO_COLOR", {"NO_COLOR": "1"}), ("TERM=dumb", {"TERM": "dumb"})):
            rc, out, err = on_pty(build, fresh(dict(env, **extra)), ws)
            note("tty %s exit" % name, rc == 0, err)
            note("tty %s no colour" % name, "\x1b[" not in err and "\r" in err, repr(err[-300:]))

        r = subprocess.run(build, capture_output=True, text=True, env=fresh(env), cwd=ws)
        note("pipe exit", r.returncode == 0, r.stderr)
        lines = [l for l in r.stderr.splitlines() if l.startswith("scrollcase: download models/")]
        note("pipe no bar", "\r" not in r.stderr and "\x1b[" not in r.stderr, repr(r.stderr[-300:]))
        note("pipe periodic lines", len(lines) >= 3 and any(" of " in l and "ETA" in l for l in lines),
             r.stderr)
        note("pipe last line exact", bool(lines) and exact in lines[-1] and " in " in lines[-1],
             "\n".join(lines))

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
        note("json progress events", len(prog) >= 2 and prog[-1]["finished"] is True and
             prog[-1]["bytesDone"] == SIZE and prog[-1]["bytesTotal"] == SIZE and
             prog[-1]["filesTotal"] == 1, json.dumps(prog[-2:]))
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
        note("progress-fd people's lines on stderr", "scrollcase: download models/" in r.stderr)
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
