#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""install_cli_test.py SCROLLCASE SOURCE_DIR — `scrollcase install` against
the loopback server serving a real dist tree (a box built with its asset base
URL pointing there): from the channel URL (with --install-id) and from the
release URL, the archive resumed from a .part in the cache (a Range request
in the server's log), a dropped connection retried, a 404, a channel without
--install-id, an existing destination, the wrong trust file.
Prints "N passed, N failed"."""
import json
import os
import shutil
import subprocess
import sys
import tempfile

sc, src = sys.argv[1], sys.argv[2]
passed = failed = 0


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
        ws = os.path.join(tmp, "ws")
        dist = os.path.join(ws, ".scrollcase", "dist")
        os.makedirs(dist)
        log = os.path.join(tmp, "http.log")
        server = subprocess.Popen(["/usr/bin/python3", os.path.join(src, "fixtures", "http_server.py"),
                                   dist, log], stdout=subprocess.PIPE, text=True)
        port = int(server.stdout.readline())
        base_url = "http://127.0.0.1:%d" % port
        env = {k: v for k, v in os.environ.items() if not k.startswith("SCROLLCASE_")}
        env["SCROLLCASE_CACHE"] = os.path.join(tmp, "cache")
        scratch = os.path.join(tmp, "scratch")
        os.makedirs(scratch)
        env["TMPDIR"] = scratch
        base = [sc, "--project-root", ws]

        def run(*args, e=None):
            return subprocess.run(base + list(args), capture_output=True, text=True,
                                  env=e or env, cwd=ws)

        for args in (["init"], ["keygen"],
                     ["new", "scroll", "--box-id", "i", "--target", "linux-x86_64-cpu",
                      "--source-revision", "t", "--asset-base-url", base_url + "/"]):
            r = run(*args)
            note("setup " + args[0], r.returncode == 0, r.stderr)
        git(ws, "init", "-q")
        git(ws, "add", "-A")
        git(ws, "commit", "-q", "-m", "one")
        r = run("build", "i/linux-x86_64-cpu", "--environment-prefix", prefix, "--json")
        note("build", r.returncode == 0, r.stderr)
        built = json.loads(r.stdout)["builds"][0]
        rel_url = base_url + "/" + os.path.relpath(built["releasePath"], dist)
        chan_url = base_url + "/" + os.path.relpath(built["channelPath"], dist)

        d1 = os.path.join(tmp, "one")
        r = run("install", chan_url, d1, "--install-id", "a", "--json")
        note("install from the channel", r.returncode == 0, r.stdout + r.stderr)
        doc = json.loads(r.stdout) if r.stdout else {}
        note("receipt", doc.get("status") == "prepared" and doc.get("releaseUrl") == rel_url,
             r.stdout)
        note("prepared tree", os.path.isfile(os.path.join(d1, "box.json")))

        # the archive resumed from a half-written .part in a fresh cache
        cache2 = os.path.join(tmp, "cache2")
        os.makedirs(cache2)
        with open(built["archivePath"], "rb") as f:
            data = f.read()
        with open(os.path.join(cache2, built["archiveSha256"] + ".part"), "wb") as f:
            f.write(data[: len(data) // 2])
        with open(log) as f:
            before = len(f.readlines())
        d2 = os.path.join(tmp, "two")
        r = run("install", rel_url, d2, e=dict(env, SCROLLCASE_CACHE=cache2))
        note("install from the release", r.returncode == 0, r.stderr)
        with open(log) as f:
            new = [json.loads(l) for l in f.readlines()[before:]]
        note("archive resumed", any((q.get("range") or "").startswith("bytes=%d-" % (len(data) // 2))
                                    for q in new), str(new))
        note("second tree", os.path.isfile(os.path.join(d2, "box.json")))

        # faults
        d3 = os.path.join(tmp, "three")
        r = run("install", rel_url + "?drop=50&times=1", d3)
        note("a dropped connection is retried", r.returncode == 0, r.stderr)
        r = run("install", base_url + "/nothing.json", os.path.join(tmp, "four"))
        note("404 is download-failed", r.returncode == 1 and "error[download-failed]" in r.stderr,
             r.stderr)
        r = run("install", chan_url, os.path.join(tmp, "five"))
        note("a channel needs --install-id", r.returncode == 2 and "--install-id" in r.stderr,
             r.stderr)
        r = run("install", rel_url, d1)
        note("existing destination", r.returncode == 1 and "error[existing-destination]" in r.stderr,
             r.stderr)
        other = os.path.join(tmp, "other-keys")
        r = subprocess.run([sc, "--keys-dir", other, "keygen"], capture_output=True, text=True,
                           env=env, cwd=ws)
        r = run("install", rel_url, os.path.join(tmp, "six"), "--trust",
                os.path.join(other, "signing-public.json"))
        note("wrong trust refused", r.returncode == 1 and "error[" in r.stderr and
             not os.path.exists(os.path.join(tmp, "six")), r.stderr)
        leftovers = [n for n in os.listdir(scratch) if n.startswith("scrollcase-install-")]
        note("no scratch directory left", leftovers == [], str(leftovers))
    finally:
        if server is not None:
            server.kill()
            server.wait()
        shutil.rmtree(tmp, ignore_errors=True)
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


sys.exit(main())
