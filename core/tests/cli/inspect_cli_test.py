#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""inspect_cli_test.py SCROLLCASE SOURCE_DIR — `scrollcase inspect` and
`scrollcase diff` over two small archives made here byte for byte (fixed
names, dates, modes, methods), against the golden outputs in
core/tests/cli/golden/ (text and --json; the scratch directory is written
$TMP).  SC_UPDATE_GOLDEN=1 rewrites the goldens instead.  Also: nothing is
extracted, an unsafe archive is refused with its code.
Prints "N passed, N failed"."""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile

sc, src = sys.argv[1], sys.argv[2]
golden = os.path.join(src, "core", "tests", "cli", "golden")
update = os.environ.get("SC_UPDATE_GOLDEN") == "1"
passed = failed = 0


def note(name, ok, detail=""):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print("FAIL %s %s" % (name, detail[:3000]))


def make(path, entries):
    with zipfile.ZipFile(path, "w") as z:
        for name, data, mode, method in entries:
            info = zipfile.ZipInfo(name, date_time=(2024, 2, 29, 12, 0, 0))
            info.create_system = 3
            kind = 0o040000 if name.endswith("/") else (0o120000 if mode == "link" else 0o100000)
            info.external_attr = (kind | (0o777 if mode == "link" else mode)) << 16
            info.compress_type = method
            z.writestr(info, data)


def main():
    tmp = tempfile.mkdtemp()
    try:
        box = json.dumps({"boxId": "demo", "version": "1.0.0", "targetId": "linux-x86_64-cpu"})
        a = os.path.join(tmp, "a.zip")
        b = os.path.join(tmp, "b.zip")
        make(a, [("box.json", box, 0o644, zipfile.ZIP_STORED),
                 ("app/", "", 0o755, zipfile.ZIP_STORED),
                 ("app/main.py", "print('one')\n", 0o644, zipfile.ZIP_DEFLATED),
                 ("app/old.py", "x = 1\n", 0o644, zipfile.ZIP_DEFLATED),
                 ("venv/bin/python", "#!/bin/sh\nexec python3 \"$@\"\n", 0o755, zipfile.ZIP_STORED),
                 ("venv/bin/python3", "python", "link", zipfile.ZIP_STORED)])
        make(b, [("box.json", box.replace("1.0.0", "1.1.0"), 0o644, zipfile.ZIP_STORED),
                 ("app/", "", 0o755, zipfile.ZIP_STORED),
                 ("app/main.py", "print('one, two')\n", 0o644, zipfile.ZIP_DEFLATED),
                 ("models/weights.bin", b"\0" * 4096, 0o644, zipfile.ZIP_STORED),
                 ("venv/bin/python", "#!/bin/sh\nexec python3 \"$@\"\n", 0o700, zipfile.ZIP_STORED),
                 ("venv/bin/python3", "python", "link", zipfile.ZIP_STORED)])
        before = sorted(os.listdir(tmp))
        runs = [("inspect-archive.txt", ["inspect", a]),
                ("inspect-archive.json", ["inspect", a, "--json"]),
                ("diff-archives.txt", ["diff", a, b]),
                ("diff-archives.json", ["diff", a, b, "--json"]),
                ("diff-same.txt", ["diff", a, a])]
        for name, args in runs:
            r = subprocess.run([sc, *args], capture_output=True, text=True, cwd=tmp)
            note("%s exit" % name, r.returncode == 0, r.stderr)
            got = r.stdout.replace(tmp, "$TMP")
            path = os.path.join(golden, name)
            if update:
                with open(path, "w") as f:
                    f.write(got)
                continue
            with open(path) as f:
                want = f.read()
            note("%s golden" % name, got == want, "got:\n" + got)
        note("nothing extracted", sorted(os.listdir(tmp)) == before, str(os.listdir(tmp)))
        bad = os.path.join(tmp, "bad.zip")
        make(bad, [("../escape.txt", "x", 0o644, zipfile.ZIP_STORED)])
        r = subprocess.run([sc, "inspect", bad, "--json"], capture_output=True, text=True, cwd=tmp)
        doc = json.loads(r.stdout) if r.stdout else {}
        note("unsafe archive refused", r.returncode == 1 and
             doc.get("error", {}).get("code") == "unsafe-path", r.stdout + r.stderr)
        r = subprocess.run([sc, "diff", a, os.path.join(tmp, "none.zip")], capture_output=True,
                           text=True, cwd=tmp)
        note("diff missing operand is an error", r.returncode == 1 and "error[" in r.stderr,
             r.stderr)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


sys.exit(main())
