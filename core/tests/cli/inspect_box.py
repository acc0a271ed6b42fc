# SPDX-License-Identifier: Apache-2.0
"""inspect_box.py FIXTURES OUT VARIANT [ARCHIVE_URL] — a fixed box for the inspect and diff
golden outputs: OUT/box.zip (canonical, deflated where it pays) and its
unsigned release OUT/release.json (archive.url ends in box.zip).  VARIANT 1
or 2: the second is the first with a newer version, a later build time, a
gates record, app/main.py changed, app/extra.py added, docs/README removed
and the link retargeted.  ARCHIVE_URL replaces archive.url (install's tests
serve the box on loopback).  Every byte is fixed, so the outputs are too."""
import hashlib
import json
import sys

sys.path.insert(0, sys.argv[1])
import zipfmt  # noqa: E402

out, variant = sys.argv[2], int(sys.argv[3])
archive_url = sys.argv[4] if len(sys.argv) > 4 else "https://example.com/boxes/box.zip"
files = {
    "venv/bin/python": (b"#!/bin/sh\nexit 0\n", True),
    "app/main.py": (b"print('hello')\n" * (1 if variant == 1 else 100), False),  # 1.5 KiB in v2
    "model/weights.bin": (bytes(range(256)) * 16, False),
}
if variant == 1:
    files["docs/README"] = (b"read me\n", False)
else:
    files["app/extra.py"] = (b"X = 1\n", False)
links = {"venv/bin/python3": b"python" if variant == 1 else b"../bin/python"}
version = "1.0.0" if variant == 1 else "1.1.0"
target = {"platform": "linux", "arch": "x86_64", "accelerator": "cpu"}
prov = {"scrollId": "ibox-linux-x86_64-cpu", "scrollVersion": version,
        "builderRevision": "0123456789abcdef0123456789abcdef01234567",
        "sourceTreeDirty": False, "sourceRevision": "abc" if variant == 1 else "def",
        "pythonVersion": "3.11",
        "environment": {"source": "prefix", "prefixDigest": "b" * 64},
        "builder": {"name": "scrollcase", "version": "0.1.0"},
        "builtAt": "2026-01-01T00:00:00Z" if variant == 1 else "2026-02-01T00:00:00Z"}
common = {"target": target, "pythonEntryPoint": "venv/bin/python",
          "modelCacheSubdir": "model-cache/ibox",
          "selfTest": {"pythonImports": ["json"], "timeoutSeconds": 30},
          "execution": {"kind": "python-script", "script": "app/main.py",
                        "defaultArgs": []}}
box = {"schemaVersion": 3, "boxId": "ibox", "modelId": "imodel",
       "runtimeId": "iruntime", "version": version, **common, "provenance": prov}
files["box.json"] = ((json.dumps(box, indent=2) + "\n").encode(), False)
recs = [p.encode() + b"\0f\0" + hashlib.sha256(d).hexdigest().encode() + b"\n"
        for p, (d, _) in files.items()]
recs += [p.encode() + b"\0l\0" + t + b"\n" for p, t in links.items()]
stream = b"sha256-path-list-v1\n" + b"".join(sorted(recs))
installed = (sum(len(d) for d, _ in files.values()) + sum(len(t) for t in links.values())
             + len(stream))
entries = [{"path": p, "kind": "file", "data": d, "executable": x} for p, (d, x) in files.items()]
entries += [{"path": p, "kind": "link", "target": t} for p, t in links.items()]
entries.append({"path": "payload-digest.v1", "kind": "file", "data": stream})
archive = zipfmt.canonical(entries, compression="deflate")
open(out + "/box.zip", "wb").write(archive)
release = {"schemaVersion": 3, "kind": "scrollcase.box.release", "boxId": "ibox",
           "modelId": "imodel", "runtimeId": "iruntime", "version": version,
           "target": target, "compatibility": {},
           "archive": {"format": "zip", "url": archive_url,
                       "sha256": hashlib.sha256(archive).hexdigest(),
                       "sizeBytes": len(archive)},
           "installedSizeBytes": installed,
           "payloadDigest": {"format": "sha256-path-list-v1",
                             "sha256": hashlib.sha256(stream).hexdigest()},
           **common, "provenance": prov}
if variant == 2:
    release["gates"] = {"selfTest": {"imports": ["json"], "extra": "none"},
                        "cudaAudit": {"status": "opted-out"}}
open(out + "/release.json", "w").write(json.dumps(release, indent=2) + "\n")
