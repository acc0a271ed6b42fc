#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# make_box.sh SCROLLCASE SOURCE_DIR OUT — a small signed box for the tests of
# the embedding example and of the installed packages:
#   OUT/demo-box.zip              the archive (canonical, fixtures/zipfmt.py)
#   OUT/release.signed.json       its release, signed with `SCROLLCASE sign`
#   OUT/keys/signing-public.json  the trust file (`SCROLLCASE keygen`)
# The box's interpreter is a shell script standing in for Python: for -c (the
# self-test) it exits 0; for the box's script it prints "hello from the
# demo box:" and its arguments, and exits 0.
set -euo pipefail
sc=$1 src=$2 out=$3
mkdir -p "$out"
/usr/bin/python3 - "$src/fixtures" "$out" <<'PY'
import hashlib, json, sys
sys.path.insert(0, sys.argv[1])
import zipfmt
out = sys.argv[2]
python = (b'#!/bin/sh\nif [ "$1" = "-c" ]; then exit 0; fi\n'
          b'shift\necho "hello from the demo box:" "$@"\nexit 0\n')
files = {"venv/bin/python": (python, True), "app/main.py": (b"print('hello')\n", False)}
target = {"platform": "linux", "arch": "x86_64", "accelerator": "cpu"}
prov = {"scrollId": "demo-box-linux-x86_64-cpu", "scrollVersion": "1.0.0",
        "builderRevision": "0123456789abcdef0123456789abcdef01234567",
        "sourceTreeDirty": False, "sourceRevision": "abc", "pythonVersion": "3.11",
        "environment": {"source": "prefix", "prefixDigest": "c" * 64},
        "builder": {"name": "scrollcase", "version": "0.1.0"},
        "builtAt": "2026-01-01T00:00:00Z"}
common = {"target": target, "pythonEntryPoint": "venv/bin/python",
          "modelCacheSubdir": "model-cache/demo-box",
          "selfTest": {"pythonImports": ["json"], "timeoutSeconds": 30},
          "environment": {},
          "execution": {"kind": "python-script", "script": "app/main.py", "defaultArgs": []}}
box = {"schemaVersion": 3, "boxId": "demo-box", "modelId": "demo-model",
       "runtimeId": "demo-runtime", "version": "1.0.0", **common, "provenance": prov}
files["box.json"] = ((json.dumps(box, indent=2) + "\n").encode(), False)
recs = sorted(p.encode() + b"\0f\0" + hashlib.sha256(d).hexdigest().encode() + b"\n"
              for p, (d, _) in files.items())
stream = b"sha256-path-list-v1\n" + b"".join(recs)
installed = sum(len(d) for d, _ in files.values()) + len(stream)
entries = [{"path": p, "kind": "file", "data": d, "executable": x} for p, (d, x) in files.items()]
entries.append({"path": "payload-digest.v1", "kind": "file", "data": stream})
archive = zipfmt.canonical(entries, compression="store")
open(out + "/demo-box.zip", "wb").write(archive)
release = {"schemaVersion": 3, "kind": "scrollcase.box.release", "boxId": "demo-box",
           "modelId": "demo-model", "runtimeId": "demo-runtime", "version": "1.0.0",
           "target": target, "compatibility": {},
           "archive": {"format": "zip", "url": "https://example.com/boxes/demo-box.zip",
                       "sha256": hashlib.sha256(archive).hexdigest(), "sizeBytes": len(archive)},
           "installedSizeBytes": installed,
           "payloadDigest": {"format": "sha256-path-list-v1",
                             "sha256": hashlib.sha256(stream).hexdigest()},
           **common, "provenance": prov}
open(out + "/release.json", "w").write(json.dumps(release, indent=2) + "\n")
PY
"$sc" --keys-dir "$out/keys" keygen >/dev/null
"$sc" --keys-dir "$out/keys" sign "$out/release.json" --out "$out/release.signed.json" >/dev/null
