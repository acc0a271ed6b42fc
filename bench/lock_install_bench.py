#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""bench/lock_install_bench.py — the native lock installer against the shell and cph.

    bench/lock_install_bench.py --scrollcase PATH [--packages N] [--megabytes MB]
                                [--rounds N] [--jobs N] [--workdir DIR] [--json FILE]

Makes a channel of N conda packages (default 300; $SC_BENCH_LOCK_PACKAGES)
holding MB megabytes unpacked in all (default 600; $SC_BENCH_LOCK_MB), two in
three `.conda` (zstd) and one in three `.tar.bz2`, from a fixed seed (the same
bytes on every run), plus a lock (format 7, file:// URLs) naming them all and a
python stand-in.  The asset cache is filled once (not timed).  Then, round after
round, in rotating order, each of these installs every package into a fresh
directory from the same bytes on local disk:

    scrollcase   scrollcase env-install --offline (warm cache: sha256 of every
                 package checked, extracted on every core, linked into one venv,
                 conda-meta written)
    shell        xargs -P <cores> over `unzip -p | zstd -dc | tar -x` for each
                 .conda member and `tar xjf` for each .tar.bz2, one directory
                 per package (extraction only: no hashing, no linking)
    cph          xargs -P <cores> over `cph x` (Debian's conda-package-handling)

Prints a table of medians (wall and CPU seconds) and the ratios
scrollcase / reference, and the same as one JSON line (also --json FILE).
Nothing asserts a time; the issue's goals (at or under the shell, >= 3x faster
than cph) are reported as met or not.
"""

import argparse
import json
import os
import random
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "fixtures"))
import condapkg  # noqa: E402
import lockgen  # noqa: E402
from condapkg import M  # noqa: E402

WORDS = [w.encode() for w in (
    "import def return class self None True False lambda yield async await with as "
    "from for while if else elif try except finally raise assert global nonlocal pass "
    "break continue print len range dict list tuple set int float str bytes open path "
    "numpy torch tensor shape dtype cuda device model layer weight bias forward grad").split()]


_POOL = []


def text_blob(rng, size):
    """size bytes of source-like text: slices of a 4 MiB seeded word pool."""
    if not _POOL:
        r = random.Random(7)
        out = bytearray()
        while len(out) < (4 << 20):
            out += r.choice(WORDS) + (b"\n" if r.random() < 0.1 else b" ")
        _POOL.append(bytes(out))
    pool = _POOL[0]
    parts = []
    while size > 0:
        n = min(size, len(pool) // 2)
        start = rng.randrange(0, len(pool) - n)
        parts.append(pool[start:start + n])
        size -= n
    return b"".join(parts)


def make_channel(root, npkg, megabytes, seed=26):
    rng = random.Random(seed)
    per = max(1, megabytes * 1_000_000 // npkg)
    ch = os.path.join(root, "channel", "linux-64")
    os.makedirs(ch, exist_ok=True)
    recs = []
    payload = [M("bin/python", data=b"#!/bin/sh\nexec /usr/bin/python3 \"$@\"\n", mode=0o755)]
    info = condapkg.info_members(condapkg.index_json("python", "3.11.2", "h0_0"),
                                 condapkg.paths_json(payload))
    py = os.path.join(ch, "python-3.11.2-h0_0.conda")
    condapkg.write_conda(py, info, payload)
    files = [py]
    for i in range(npkg):
        name = "pkg%03d" % i
        nfiles = rng.randint(8, 40)
        sizes = [max(1, int(per * w)) for w in _weights(rng, nfiles)]
        members = []
        for k, sz in enumerate(sizes):
            data = text_blob(rng, sz) if k % 4 else rng.randbytes(sz)  # one in four binary
            members.append(M("lib/%s/f%03d.%s" % (name, k, "py" if k % 4 else "bin"), data=data,
                             mode=0o755 if k == 0 else 0o644))
        members.append(M("lib/%s/link" % name, "l", target="f000.bin"))
        info = condapkg.info_members(condapkg.index_json(name, "1.0", "0"),
                                     condapkg.paths_json(members))
        ext = "tar.bz2" if i % 3 == 2 else "conda"
        path = os.path.join(ch, "%s-1.0-0.%s" % (name, ext))
        if ext == "conda":
            condapkg.write_conda(path, info, members)
        else:
            condapkg.write_tar_bz2(path, info + members)
        files.append(path)
    for path in files:
        fn = os.path.basename(path)
        name, ver, build = fn.rsplit(".conda", 1)[0].rsplit(".tar.bz2", 1)[0].rsplit("-", 2)
        with open(path, "rb") as f:
            recs.append(lockgen.real_conda("file://" + path, f.read(), name, ver, build,
                                           "linux-64", [], "MIT"))
    return files, recs


def _weights(rng, n):
    w = [rng.random() ** 3 + 0.01 for _ in range(n)]
    s = sum(w)
    return [x / s for x in w]


def timed(cmd, cwd=None, env=None):
    t0 = time.monotonic()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    p = subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL,
                       stderr=subprocess.PIPE)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    wall = time.monotonic() - t0
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if p.returncode != 0:
        sys.exit("bench: %s failed (%d): %s" % (cmd[0], p.returncode, p.stderr.decode()[-800:]))
    return wall, cpu


# One package into its own directory: sh SCRIPT DEST FILE (xargs appends FILE).
SHELL_ONE = r'''out=$1/$(basename "$2"); mkdir -p "$out"
case $2 in
*.conda) for m in $(unzip -Z1 "$2" '*.tar.zst'); do unzip -p "$2" "$m" | zstd -dcq | tar -x -C "$out"; done ;;
*.tar.bz2) tar xjf "$2" -C "$out" ;;
esac
'''
CPH_ONE = 'exec cph x "$2" --dest "$1/$(basename "$2")" >/dev/null\n'


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--scrollcase", required=True)
    ap.add_argument("--packages", type=int,
                    default=int(os.environ.get("SC_BENCH_LOCK_PACKAGES", "300")))
    ap.add_argument("--megabytes", type=int, default=int(os.environ.get("SC_BENCH_LOCK_MB", "600")))
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--workdir")
    ap.add_argument("--json")
    a = ap.parse_args(argv)
    for tool in ("unzip", "zstd", "tar", "bzip2", "cph", "xargs"):
        if shutil.which(tool) is None:
            print("SKIP: %s is needed" % tool)
            return 77
    work = a.workdir or tempfile.mkdtemp(prefix="sc-lock-bench-")
    os.makedirs(work, exist_ok=True)
    sc = os.path.abspath(a.scrollcase)
    print("making %d packages, %d MB unpacked, in %s ..." % (a.packages, a.megabytes, work),
          file=sys.stderr)
    files, recs = make_channel(work, a.packages, a.megabytes)
    packed = sum(os.path.getsize(f) for f in files)
    ws = os.path.join(work, "ws")
    sd = os.path.join(ws, "scrolls", "bench-box", "linux-x86_64-cpu")
    os.makedirs(sd, exist_ok=True)
    with open(os.path.join(sd, "scroll.json"), "w") as f:
        json.dump({"schemaVersion": 3, "boxId": "bench-box", "modelId": "bench",
                   "runtimeId": "cpython", "version": "1.0.0", "sourceRevision": "bench",
                   "target": {"platform": "linux", "arch": "x86_64", "accelerator": "cpu"},
                   "pythonVersion": "3.11", "pixiVersion": "0.40.0",
                   "assetBaseUrl": "https://boxes.example.invalid/",
                   "selfTest": {"imports": ["json"]}}, f)
    with open(os.path.join(sd, "pixi.toml"), "w") as f:
        f.write('[workspace]\nname = "bench-box"\n')
    with open(os.path.join(sd, "pixi.lock"), "wb") as f:
        f.write(lockgen.lock_text({"linux-64": recs}, 7))
    env = dict(os.environ, SCROLLCASE_CACHE=os.path.join(work, "cache"))
    out = os.path.join(work, "out")
    os.makedirs(out, exist_ok=True)
    base = [sc, "--project-root", ws, "env-install", "bench-box/linux-x86_64-cpu", "--quiet",
            "--jobs", str(a.jobs)]
    timed(base + ["--into", os.path.join(out, "warm-up")], env=env)  # fills the cache
    unpacked = 0
    for d, _, fs in os.walk(os.path.join(out, "warm-up")):
        unpacked += sum(os.lstat(os.path.join(d, x)).st_size for x in fs)
    listing = os.path.join(work, "packages.txt")
    with open(listing, "w") as f:
        f.write("".join(p + "\n" for p in files))
    scripts = {}
    for tool, text in (("shell", SHELL_ONE), ("cph", CPH_ONE)):
        scripts[tool] = os.path.join(work, tool + ".sh")
        with open(scripts[tool], "w") as f:
            f.write(text)
    n = 0

    def run_tool(tool):
        nonlocal n
        n += 1
        dest = os.path.join(out, "%s-%d" % (tool, n))
        if tool == "scrollcase":
            return timed(base + ["--offline", "--into", dest], env=env)
        os.makedirs(dest)
        return timed(["xargs", "-P", str(a.jobs), "-n", "1", "-a", listing, "sh",
                      scripts[tool], dest])

    tools = ["scrollcase", "shell", "cph"]
    results = {t: [] for t in tools}
    for r in range(a.rounds):
        order = tools[r % 3:] + tools[:r % 3]
        for t in order:
            results[t].append(run_tool(t))
            print("round %d %-10s %.2f s" % (r + 1, t, results[t][-1][0]), file=sys.stderr)
    med = {t: (statistics.median(w for w, _ in v), statistics.median(c for _, c in v))
           for t, v in results.items()}
    sw, sc_cpu = med["scrollcase"]
    print("%d packages (%d .conda, %d .tar.bz2), %.1f MB packed, %.1f MB unpacked, %d jobs, "
          "%d rounds (medians)" % (len(files), sum(f.endswith(".conda") for f in files),
                                   sum(f.endswith(".tar.bz2") for f in files), packed / 1e6,
                                   unpacked / 1e6, a.jobs, a.rounds))
    print("%-12s %10s %10s %12s %12s" % ("tool", "wall s", "cpu s", "wall ratio", "cpu ratio"))
    report = {"packages": len(files), "packedBytes": packed, "unpackedBytes": unpacked,
              "jobs": a.jobs, "rounds": a.rounds, "tools": {}}
    for t in tools:
        w, c = med[t]
        print("%-12s %10.2f %10.2f %12.2f %12.2f" % (t, w, c, sw / w, sc_cpu / c if c else 0))
        report["tools"][t] = {"wallSeconds": round(w, 3), "cpuSeconds": round(c, 3),
                              "scrollcaseWallRatio": round(sw / w, 3)}
    report["targets"] = [
        {"target": "at or under the shell pipeline (wall)", "met": sw <= med["shell"][0]},
        {"target": ">= 3x faster than cph x (wall)", "met": med["cph"][0] >= 3 * sw}]
    for t in report["targets"]:
        print("target: %s: %s" % (t["target"], "met" if t["met"] else "NOT met"))
    line = json.dumps(report, sort_keys=True)
    print(line)
    if a.json:
        with open(a.json, "w") as f:
            f.write(line + "\n")
    if not a.workdir:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
