#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""cache_cli_test.py SCROLLCASE SOURCE_DIR — the asset cache: a second build
of a box with an embedded asset makes no request to the loopback server (its
request log says so), a .part left in the cache is resumed with a Range
request, --offline builds from the cache and refuses a miss with
asset-not-cached, `cache ls` and `cache gc`.  Prints "N passed, N failed"."""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import hashlib

sc, src = sys.argv[1], sys.argv[2]
passed = failed = 0
DATA = bytes(range(256)) * 4096  # 1 MiB
SHA = hashlib.sha256(DATA).hexdigest()


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


def requests(log):
    if not os.path.exists(log):
        return []
    with open(log) as f:
        return [json.loads(l) for l in f if l.strip()]


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
        with open(os.path.join(served, "w.bin"), "wb") as f:
            f.write(DATA)
        log = os.path.join(tmp, "http.log")
        server = subprocess.Popen(["/usr/bin/python3", os.path.join(src, "fixtures", "http_server.py"),
                                   served, log], stdout=subprocess.PIPE, text=True)
        port = int(server.stdout.readline())
        ws = os.path.join(tmp, "ws")
        os.makedirs(ws)
        cache = os.path.join(tmp, "cache")
        env = {k: v for k, v in os.environ.items() if not k.startswith("SCROLLCASE_")}
        env["SCROLLCASE_CACHE"] = cache
        base = [sc, "--project-root", ws]

        def run(*args, e=None):
            return subprocess.run(base + list(args), capture_output=True, text=True,
                                  env=e or env, cwd=ws)

        for args in (["init"], ["keygen"],
                     ["new", "scroll", "--box-id", "c", "--target", "linux-x86_64-cpu",
                      "--source-revision", "t", "--asset-base-url", "https://x.invalid/"],
                     ["add", "asset", "c", "http://127.0.0.1:%d/w.bin" % port, "--to", "m/w.bin"]):
            r = run(*args)
            note("setup " + args[0], r.returncode == 0, r.stderr)
        git(ws, "init", "-q")
        git(ws, "add", "-A")
        git(ws, "commit", "-q", "-m", "one")
        build = ["build", "c/linux-x86_64-cpu", "--environment-prefix", prefix, "--json"]
        first_log = len(requests(log))
        r = run(*build)
        note("first build", r.returncode == 0, r.stderr)
        first = json.loads(r.stdout)["builds"][0]["archiveSha256"] if r.returncode == 0 else None
        after_first = len(requests(log))
        note("first build downloads", after_first > first_log, str(requests(log)))
        note("cache holds the asset", os.path.isfile(os.path.join(cache, SHA)))
        r = run(*build)
        note("second build", r.returncode == 0, r.stderr)
        note("second build makes no request", len(requests(log)) == after_first,
             str(requests(log)[after_first:]))
        note("second build says cached", '"step":"cached"' in r.stderr, r.stderr)
        second = json.loads(r.stdout)["builds"][0]["archiveSha256"] if r.returncode == 0 else None
        note("same archive from the cache", first is not None and first == second)
        r = run(*(build + ["--offline"]))
        note("offline from the cache", r.returncode == 0 and len(requests(log)) == after_first,
             r.stderr)

        # a miss offline: refused, nothing fetched
        e2 = dict(env, SCROLLCASE_CACHE=os.path.join(tmp, "empty-cache"))
        r = run(*(build + ["--offline"]), e=e2)
        doc = json.loads(r.stdout) if r.stdout else {}
        note("offline miss refused", r.returncode == 1 and
             doc.get("error", {}).get("code") == "asset-not-cached", r.stdout + r.stderr)
        note("offline miss fetched nothing", len(requests(log)) == after_first)

        # a .part left by an interrupted build is resumed
        part_cache = os.path.join(tmp, "part-cache")
        os.makedirs(part_cache)
        with open(os.path.join(part_cache, SHA + ".part"), "wb") as f:
            f.write(DATA[: len(DATA) // 2])
        before = len(requests(log))
        r = run(*build, e=dict(env, SCROLLCASE_CACHE=part_cache))
        note("resume build", r.returncode == 0, r.stderr)
        new = requests(log)[before:]
        note("resumed with a Range request", any((q.get("range") or "").startswith(
            "bytes=%d-" % (len(DATA) // 2)) for q in new), str(new))

        # cache ls and gc
        with open(os.path.join(cache, "0" * 64), "wb") as f:
            f.write(b"not what its name says")
        with open(os.path.join(cache, "1" * 64 + ".part"), "wb") as f:
            f.write(b"half")
        with open(os.path.join(cache, "stray.txt"), "w") as f:
            f.write("x")
        r = run("cache", "ls")
        note("cache ls", r.returncode == 0 and SHA in r.stdout and "(partial" in r.stdout and
             "1.0 MiB (1048576 bytes)" in r.stdout, r.stdout + r.stderr)
        r = run("cache", "ls", "--json")
        doc = json.loads(r.stdout)
        note("cache ls --json", doc.get("ok") is True and
             any(x["name"] == SHA and x["sizeBytes"] == len(DATA) for x in doc["entries"]))
        r = run("cache", "gc")
        note("cache gc", r.returncode == 0 and "removed 3 file(s)" in r.stdout, r.stdout + r.stderr)
        note("cache gc kept the good entry", sorted(os.listdir(cache)) == [SHA],
             str(os.listdir(cache)))
    finally:
        if server is not None:
            server.kill()
            server.wait()
        shutil.rmtree(tmp, ignore_errors=True)
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


sys.exit(main())
