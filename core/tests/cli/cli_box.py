# SPDX-License-Identifier: Apache-2.0
"""cli_box.py FIXTURES OUT [--names-extra ...] — a small consumer box for the
CLI end-to-end scripts: OUT/cli-box.zip (canonical, stored) and its unsigned
release OUT/release.json (archive.url ends in cli-box.zip).  The interpreter
stands in for Python: for -c it succeeds; for a script it prints its
arguments and exits 5."""
import hashlib
import json
import sys

sys.path.insert(0, sys.argv[1])
import zipfmt  # noqa: E402

out = sys.argv[2]
deep = int(sys.argv[3]) if len(sys.argv) > 3 else 0
python = (b'#!/bin/sh\nif [ "$1" = "-c" ]; then exit 0; fi\n'
          b'shift\necho "args:$*"\nexit 5\n')
files = {
    "venv/bin/python": (python, True),
    "app/main.py": (b"print('hello')\n", False),
}
if deep:
    # a valid tree DEEP directories deep (15.2 allows 65,535-byte names)
    files["d/" * deep + "leaf.txt"] = (b"deep\n", False)
target = {"platform": "linux", "arch": "x86_64", "accelerator": "cpu"}
prov = {"scrollId": "cli-box-linux-x86_64-cpu", "scrollVersion": "1.0.0",
        "builderRevision": "0123456789abcdef0123456789abcdef01234567",
        "sourceTreeDirty": False, "sourceRevision": "abc", "pythonVersion": "3.11",
        "environment": {"source": "prefix", "prefixDigest": "b" * 64},
        "builder": {"name": "scrollcase", "version": "0.1.0"},
        "builtAt": "2026-01-01T00:00:00Z"}
common = {"target": target, "pythonEntryPoint": "venv/bin/python",
          "modelCacheSubdir": "model-cache/cli-box",
          "selfTest": {"pythonImports": ["json"], "timeoutSeconds": 30},
          "execution": {"kind": "python-script", "script": "app/main.py",
                        "defaultArgs": ["--default"]}}
box = {"schemaVersion": 3, "boxId": "cli-box", "modelId": "cli-model",
       "runtimeId": "cli-runtime", "version": "1.0.0", **common, "provenance": prov}
files["box.json"] = ((json.dumps(box, indent=2) + "\n").encode(), False)
recs = sorted(p.encode() + b"\0f\0" + hashlib.sha256(d).hexdigest().encode() + b"\n"
              for p, (d, _) in files.items())
stream = b"sha256-path-list-v1\n" + b"".join(recs)
installed = sum(len(d) for d, _ in files.values()) + len(stream)
entries = [{"path": p, "kind": "file", "data": d, "executable": x} for p, (d, x) in files.items()]
entries.append({"path": "payload-digest.v1", "kind": "file", "data": stream})
archive = zipfmt.canonical(entries, compression="store")
open(out + "/cli-box.zip", "wb").write(archive)
release = {"schemaVersion": 3, "kind": "scrollcase.box.release", "boxId": "cli-box",
           "modelId": "cli-model", "runtimeId": "cli-runtime", "version": "1.0.0",
           "target": target, "compatibility": {},
           "archive": {"format": "zip", "url": "https://example.com/boxes/cli-box.zip",
                       "sha256": hashlib.sha256(archive).hexdigest(),
                       "sizeBytes": len(archive)},
           "installedSizeBytes": installed,
           "payloadDigest": {"format": "sha256-path-list-v1",
                             "sha256": hashlib.sha256(stream).hexdigest()},
           **common, "provenance": prov}
open(out + "/release.json", "w").write(json.dumps(release, indent=2) + "\n")
