#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""cuda_binaries_bench.py — `scrollcase audit binaries` against `readelf -d`
over the same files (issue 22).

    bench/cuda_binaries_bench.py --scrollcase PATH [--lib DIR] [--copies N]
                                 [--rounds N] [--workdir DIR] [--json FILE]

Makes a prefix of CUDA libraries: every regular file of the toolkit's lib
directory (default /usr/local/cuda/lib64, 2.4 GiB in CUDA 13.0) hard-linked
into N copies of lib/ (default 2: about 5 GB), with the toolkit's symbolic
links beside them as a real prefix has them.  Then, round after round, the
order alternating: the audit of the prefix (`audit binaries PREFIX --json`)
the same with --jobs 1, and one `readelf -d` process over the same regular ELF files (the audit does
not follow links, so neither does the reference), and readelf -d once per
file as a shell loop would run it.  Both run warm (one
unmeasured run of each first).  Prints a table of medians (wall and CPU
seconds, from wait4), the ratio audit / readelf, and the same as one JSON
line (also --json FILE) with the issue's targets: ratio under 0.2 and the
audit well under a second warm.  Nothing here asserts a time; exit 77 when
the toolkit or readelf is absent.
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time


def timed(cmd):
    """Wall and CPU seconds of cmd, its output thrown away."""
    start = time.perf_counter()
    with open(os.devnull, "wb") as null:
        p = subprocess.Popen(cmd, stdout=null, stderr=subprocess.PIPE)
        _, status, ru = os.wait4(p.pid, 0)
        wall = time.perf_counter() - start
        err = p.stderr.read().decode(errors="replace")
        p.stderr.close()
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError("%s failed: %s" % (cmd[0], err[-500:]))
    return wall, ru.ru_utime + ru.ru_stime


def timed_each(files, readelf):
    """readelf -dW once per file, as a loop over the files would run it."""
    wall = cpu = 0.0
    for f in files:
        w, c = timed([readelf, "-dW", f])
        wall += w
        cpu += c
    return wall, cpu


def make_prefix(lib, dest, copies):
    files = []
    total = 0
    for i in range(copies):
        out = os.path.join(dest, "copy%d" % i, "lib")
        for dirpath, dirnames, filenames in os.walk(lib):
            dirnames.sort()
            rel = os.path.relpath(dirpath, lib)
            target_dir = os.path.normpath(os.path.join(out, rel))
            os.makedirs(target_dir, exist_ok=True)
            for n in sorted(filenames):
                src = os.path.join(dirpath, n)
                dst = os.path.join(target_dir, n)
                if os.path.islink(src):
                    os.symlink(os.readlink(src), dst)
                    continue
                if not os.path.isfile(src):
                    continue
                os.link(os.path.realpath(src), dst)
                with open(dst, "rb") as f:
                    if f.read(4) == b"\x7fELF":
                        files.append(dst)
                        total += os.path.getsize(dst)
    return files, total


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scrollcase", required=True)
    ap.add_argument("--lib", default="/usr/local/cuda/lib64")
    ap.add_argument("--copies", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--workdir")
    ap.add_argument("--json")
    a = ap.parse_args()
    readelf = shutil.which("readelf")
    if not os.path.isdir(a.lib) or readelf is None:
        print("SKIP: no toolkit at %s or no readelf" % a.lib)
        return 77
    work = tempfile.mkdtemp(prefix="sc-bench-cuda-", dir=a.workdir)
    try:
        prefix = os.path.join(work, "prefix")
        files, total = make_prefix(os.path.realpath(a.lib), prefix, a.copies)
        audit = [a.scrollcase, "audit", "binaries", prefix, "--json"]
        audit1 = audit + ["--jobs", "1"]
        ref = [readelf, "-dW"] + files
        doc = json.loads(subprocess.run(audit, capture_output=True, check=True).stdout)
        if doc["elfFiles"] != len(files) or doc["unreadable"] != 0:
            raise RuntimeError("audit listed %d ELF files (%d unreadable), the prefix has %d"
                               % (doc["elfFiles"], doc["unreadable"], len(files)))
        timed(audit)
        timed(ref)  # warm both
        cmds = {"audit": audit, "audit1": audit1, "readelf": ref, "readelf_each": None}
        runs = {k: [] for k in cmds}
        for r in range(a.rounds):
            order = list(cmds)[r % 4:] + list(cmds)[:r % 4]
            for name in order:
                runs[name].append(timed(cmds[name]) if cmds[name] else timed_each(files, readelf))
        med = {k: (statistics.median(w for w, _ in v), statistics.median(c for _, c in v))
               for k, v in runs.items()}
        ratio = med["audit"][0] / med["readelf"][0] if med["readelf"][0] > 0 else 0.0
        cpu_ratio = med["audit"][1] / med["readelf"][1] if med["readelf"][1] > 0 else 0.0
        print("prefix: %d ELF files, %.2f GB (%d hard-linked copies of %s), %d rounds"
              % (len(files), total / 1e9, a.copies, a.lib, a.rounds))
        print("%-28s %10s %10s" % ("", "wall s", "cpu s"))
        print("%-28s %10.4f %10.4f" % ("scrollcase audit binaries", *med["audit"]))
        print("%-28s %10.4f %10.4f" % ("  the same with --jobs 1", *med["audit1"]))
        print("%-28s %10.4f %10.4f" % ("readelf -dW (one process)", *med["readelf"]))
        print("%-28s %10.4f %10.4f" % ("readelf -dW (one per file)", *med["readelf_each"]))
        each = med["audit"][0] / med["readelf_each"][0] if med["readelf_each"][0] > 0 else 0.0
        print("ratio audit / readelf: wall %.3f, cpu %.3f; against one readelf per file: "
              "wall %.3f" % (ratio, cpu_ratio, each))
        report = {
            "files": len(files), "bytes": total, "copies": a.copies, "rounds": a.rounds,
            "audit_wall_s": round(med["audit"][0], 6), "audit_cpu_s": round(med["audit"][1], 6),
            "audit_jobs1_wall_s": round(med["audit1"][0], 6),
            "audit_jobs1_cpu_s": round(med["audit1"][1], 6),
            "cpus": len(os.sched_getaffinity(0)),
            "readelf_wall_s": round(med["readelf"][0], 6),
            "readelf_cpu_s": round(med["readelf"][1], 6),
            "ratio_wall": round(ratio, 4), "ratio_cpu": round(cpu_ratio, 4),
            "readelf_each_wall_s": round(med["readelf_each"][0], 6),
            "readelf_each_cpu_s": round(med["readelf_each"][1], 6),
            "ratio_wall_each": round(each, 4),
            "targets": [
                {"name": "audit under 0.2x of readelf -d (wall)", "met": ratio < 0.2},
                {"name": "audit under a second warm", "met": med["audit"][0] < 1.0},
            ],
        }
        line = json.dumps(report, sort_keys=True)
        print(line)
        if a.json:
            with open(a.json, "w") as f:
                f.write(line + "\n")
        return 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
