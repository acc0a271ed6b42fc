#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""json_cli_test.py SCROLLCASE SOURCE_DIR FAKE_GPU_DIR — every command with
--json, once succeeding and once failing, in a fresh workspace (a git
checkout, a hand-made relocatable prefix, a key from keygen, a box built
from it): stdout must be exactly one JSON document valid against the
command's schema under docs/schema/cli/, with "ok" true or false to match
the exit status, a failure's "error" naming the expected code, and every
command of `help --commands-json` that takes --json exercised both ways.
Prints "N passed, N failed"; exit 1 on any failure."""
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile

import jsonschema

sc, src, fake = sys.argv[1], sys.argv[2], sys.argv[3]
schema_dir = os.path.join(src, "docs", "schema", "cli")
passed = failed = 0
seen = {}  # command name -> set of outcomes ("ok", "error")


def note(name, ok, detail=""):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print("FAIL %s %s" % (name, detail))


def load_schemas():
    store = {}
    for f in sorted(os.listdir(schema_dir)):
        if f.endswith(".schema.json"):
            with open(os.path.join(schema_dir, f)) as fh:
                s = json.load(fh)
            store[s["$id"]] = s
    return store


store = load_schemas()


def validator(schema):
    try:  # jsonschema >= 4.18
        from referencing import Registry, Resource
        reg = Registry().with_resources(
            [(k, Resource.from_contents(v)) for k, v in store.items()])
        return jsonschema.Draft202012Validator(schema, registry=reg)
    except ImportError:
        resolver = jsonschema.RefResolver.from_schema(schema, store=store)
        return jsonschema.Draft202012Validator(schema, resolver=resolver)


def schema_for(command):
    sid = "https://scrollcase.dev/schema/cli/%s.schema.json" % command.replace(" ", "-")
    for prefix in ("add ", "remove "):
        if command.startswith(prefix):
            sid = "https://scrollcase.dev/schema/cli/edit.schema.json"
    if command == "edit scroll":
        sid = "https://scrollcase.dev/schema/cli/edit.schema.json"
    if command in ("prepare", "attach"):
        sid = "https://scrollcase.dev/schema/cli/receipt.schema.json"
    return store.get(sid)


def run_json(label, command, status, args, code=None, env=None, cwd=None):
    """Run scrollcase ARGS (they include --json); check the one document."""
    p = subprocess.run([sc, *args], capture_output=True, text=True, env=env, cwd=cwd)
    name = "%s [%s]" % (command, label)
    note(name + " exit", p.returncode == status,
         "exit %d, expected %d\n%s%s" % (p.returncode, status, p.stdout, p.stderr))
    try:
        doc = json.loads(p.stdout)
    except ValueError as e:
        note(name + " one-document", False, "%s: %r" % (e, p.stdout[:400]))
        return None
    note(name + " one-document", isinstance(doc, dict))
    schema = schema_for(command)
    if schema is None:
        note(name + " schema", False, "no schema for %s" % command)
        return doc
    errors = sorted(validator(schema).iter_errors(doc), key=lambda e: list(e.path))
    note(name + " schema", not errors,
         "; ".join("%s: %s" % ("/".join(map(str, e.path)), e.message) for e in errors[:3]))
    want_ok = code is None
    note(name + " ok", doc.get("ok") is want_ok, "ok is %r" % doc.get("ok"))
    if code is not None:
        got = (doc.get("error") or {}).get("code")
        note(name + " code", got == code, "code %r, expected %r" % (got, code))
        note(name + " stderr-line", "error[%s]" % code in p.stderr, p.stderr)
    seen.setdefault(command, set()).add("ok" if want_ok else "error")
    return doc


CF = "https://conda.anaconda.org/conda-forge"
LOCK = """version: 6
environments:
  default:
    channels:
    - url: CF/
    packages:
      linux-64:
      - conda: CF/linux-64/zlib-1.3.1-hb9d3cd8_2.conda
      - conda: CF/linux-64/python-3.11.9-hc5c86c4_0_cpython.conda
packages:
- conda: CF/linux-64/zlib-1.3.1-hb9d3cd8_2.conda
  license: %s
- conda: CF/linux-64/python-3.11.9-hc5c86c4_0_cpython.conda
  license: Python-2.0
""".replace("CF", CF)


TINY_LOCK = """version: 6
environments:
  default:
    channels:
    - url: https://conda.example.invalid/
    packages:
      linux-64:
      - conda: {url}
packages:
- conda: {url}
  sha256: {sha}
  license: MIT
"""


def write_tiny_package(path):
    """A one-file conda package (.tar.bz2: info/ and the payload in one tar)."""
    import bz2
    import io
    import tarfile
    data = b"tiny\n"
    index = json.dumps({"name": "tiny", "version": "1.0", "build": "0", "build_number": 0,
                        "subdir": "linux-64", "depends": []}).encode()
    paths = json.dumps({"paths_version": 1, "paths": [
        {"_path": "share/tiny.txt", "path_type": "hardlink", "size_in_bytes": len(data),
         "sha256": hashlib.sha256(data).hexdigest()}]}).encode()
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as t:
        for name, body in (("info/index.json", index), ("info/paths.json", paths),
                           ("share/tiny.txt", data)):
            ti = tarfile.TarInfo(name)
            ti.size, ti.mode, ti.mtime = len(body), 0o644, 1700000000
            t.addfile(ti, io.BytesIO(body))
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(bz2.compress(buf.getvalue()))


def git(ws, *args):
    subprocess.run(["git", "-C", ws, "-c", "user.name=t", "-c", "user.email=t@t", *args],
                   check=True, capture_output=True,
                   env=dict(os.environ, GIT_COMMITTER_DATE="2024-02-29T23:30:00+05:00"))


def main():
    if shutil.which("git") is None or not os.path.exists("/usr/bin/python3"):
        print("SKIP: git and /usr/bin/python3 are needed to build a box")
        return 77
    tmp = tempfile.mkdtemp()
    try:
        return scenario(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def scenario(tmp):
    env = {k: v for k, v in os.environ.items()
           if not k.startswith("SCROLLCASE_") and k not in ("CUDA_HOME",)}
    env["SCROLLCASE_CUDA_HOME"] = os.path.join(tmp, "no-toolkit")
    env["SCROLLCASE_LIBCUDA"] = os.path.join(tmp, "no-libcuda.so.1")
    env["SCROLLCASE_CACHE"] = os.path.join(tmp, "asset-cache")
    pixi = os.path.join(src, "fixtures", "standin", "pixi")
    cpack = os.path.join(src, "fixtures", "standin", "conda-pack")
    nothing = os.path.join(tmp, "nothing")

    # the prefix: venv/bin/python launches the host's python
    prefix = os.path.join(tmp, "prefix")
    os.makedirs(os.path.join(prefix, "bin"))
    with open(os.path.join(prefix, "bin", "python"), "w") as f:
        f.write('#!/bin/sh\nexec /usr/bin/python3 "$@"\n')
    os.chmod(os.path.join(prefix, "bin", "python"), 0o755)

    ws = os.path.join(tmp, "ws")
    os.makedirs(ws)
    w = ["--project-root", ws]

    def J(label, command, status, *args, code=None, e=None):
        words = command.split(" ")
        return run_json(label, command, status, [*words, *args, "--json", *w], code=code,
                        env=e or env, cwd=ws)

    # authoring
    J("fresh", "init", 0)
    J("bad-root", "init", 1, "--config", nothing, code="invalid-config")
    J("new", "new scroll", 0, "--box-id", "hello-box", "--target", "linux-x86_64-cpu",
      "--source-revision", "test", "--execution", "script", "--script", "app/hello.py",
      "--python-version", "3.11", "--pixi-version", "0.40.0",
      "--asset-base-url", "https://boxes.example.test/")
    J("exists", "new scroll", 1, "--box-id", "hello-box", "--target", "linux-x86_64-cpu",
      "--source-revision", "test", code="scroll-exists")
    # upstream's --generate-script: the starter's path beside the scroll
    doc = J("generate-script", "new scroll", 0, "--box-id", "gen-box", "--target",
            "linux-x86_64-cpu", "--source-revision", "test", "--execution", "script",
            "--generate-script", "--generated-script-path", "gen/main.py",
            "--default-args", '["-v"]')
    note("new scroll generatedScriptPath",
         bool(doc) and doc.get("generatedScriptPath") == os.path.join(ws, "gen", "main.py"))
    J("generate-script-exists", "new scroll", 1, "--box-id", "gen-box2", "--target",
      "linux-x86_64-cpu", "--source-revision", "test", "--execution", "script",
      "--generate-script", "--generated-script-path", "gen/main.py", code="scroll-exists")
    J("default-args-not-json", "new scroll", 2, "--box-id", "gen-box2", "--target",
      "linux-x86_64-cpu", "--source-revision", "test", "--execution", "module", "--module",
      "m", "--default-args", "-v", code="usage")
    shutil.rmtree(os.path.join(ws, "scrolls", "gen-box"))
    shutil.rmtree(os.path.join(ws, "gen"))
    os.makedirs(os.path.join(ws, "app"))
    shutil.copy(os.path.join(src, "examples", "workspace", "app", "hello.py"),
                os.path.join(ws, "app", "hello.py"))
    J("file", "add file", 0, "hello-box", "app/hello.py", "--to", "app/hello.py")
    J("missing", "add file", 1, "hello-box", "app/none.py", code="local-file-missing")
    J("env", "add env", 0, "hello-box", "HELLO_GREETING=hi")
    J("no-box", "add env", 1, "no-box", "A=1", code="scroll-not-found")
    J("import", "add import", 0, "hello-box", "json")
    J("bad", "add import", 2, "hello-box", "not a module", code="usage")
    J("dep", "add dep", 0, "hello-box", "numpy", "--version", ">=1")
    J("bad", "add dep", 2, "hello-box", "Bad Name", code="usage")
    J("asset", "add asset", 2, "hello-box", "ftp://example.invalid/x", code="usage")
    reqs = os.path.join(tmp, "requirements.txt")
    with open(reqs, "w") as f:
        f.write("NumPy>=1\n-r other.txt\n")
    doc = J("requirements", "add dep", 0, "hello-box", "--from-requirements", reqs)
    note("add dep --from-requirements lists both",
         bool(doc) and doc.get("dependencies") == [{"name": "numpy", "spec": ">=1"}] and
         len(doc.get("skipped", [])) == 1)
    J("dep", "remove dep", 0, "hello-box", "numpy")
    J("absent", "remove dep", 2, "hello-box", "numpy", code="usage")
    J("env", "remove env", 0, "hello-box", "HELLO_GREETING")
    J("absent", "remove env", 2, "hello-box", "NOPE", code="usage")
    J("absent", "remove import", 2, "hello-box", "nope", code="usage")
    J("absent", "remove file", 2, "hello-box", "nope.py", code="usage")
    J("absent", "remove asset", 2, "hello-box", "nope.bin", code="usage")
    J("field", "edit scroll", 0, "hello-box", "--field", "version", "--value", "1.0.0")
    J("invalid", "edit scroll", 1, "hello-box", "--field", "weights", "--value", "on-demand",
      code="invalid-scroll")
    J("clean", "refresh", 0, "hello-box")
    with open(os.path.join(ws, "app", "hello.py"), "a") as f:
        f.write("# drift\n")
    doc = J("drift", "refresh", 1, "hello-box", code="local-file-mismatch")
    note("refresh drift beside the error", bool(doc and doc.get("localFiles")))
    J("repin", "refresh", 0, "hello-box", "--repin")
    J("all", "scroll check", 0)
    J("missing", "scroll check", 1, "nobox", code="scroll-not-found")
    J("dry-run", "migrate", 0, "hello-box", "--dry-run")
    J("missing", "migrate", 1, "nobox", code="scroll-not-found")
    # locking and licences on a box of their own (hello-box is built from a prefix)
    r = subprocess.run([sc, "new", "scroll", "--box-id", "lic-box", "--target", "linux-x86_64-cpu",
                        "--source-revision", "t", "--pixi-version", "0.40.0", *w],
                       capture_output=True, text=True, env=env, cwd=ws)
    note("lic-box", r.returncode == 0, r.stderr)
    J("lock", "lock", 0, "lic-box/linux-x86_64-cpu", "--pixi", pixi)
    J("no-pixi", "lock", 1, "lic-box/linux-x86_64-cpu", "--pixi", nothing, code="tool-missing")
    lock = os.path.join(ws, "scrolls", "lic-box", "linux-x86_64-cpu", "pixi.lock")
    with open(lock, "w") as f:
        f.write(LOCK % "Zlib")
    J("unreviewed", "audit", 0, "lic-box/linux-x86_64-cpu")
    J("write", "audit", 0, "lic-box/linux-x86_64-cpu", "--write")
    with open(lock, "w") as f:
        f.write(LOCK % "MIT")
    doc = J("changed", "audit", 1, "lic-box/linux-x86_64-cpu", code="license-audit-mismatch")
    note("audit inventory beside the error", bool(doc and doc.get("inventory")))
    with open(lock, "w") as f:
        f.write(LOCK % "Zlib")
    J("cpu", "audit cuda", 0, "lic-box/linux-x86_64-cpu")
    # env-install: this lock's records carry no sha256 (refused before any
    # download), then a lock naming one real .tar.bz2 by a file:// URL
    J("no-sha256", "env-install", 1, "lic-box/linux-x86_64-cpu", "--into",
      os.path.join(tmp, "env-refused"), code="unsupported-lock-package")
    pkg = os.path.join(tmp, "channel", "linux-64", "tiny-1.0-0.tar.bz2")
    write_tiny_package(pkg)
    with open(pkg, "rb") as f:
        pkg_sha = hashlib.sha256(f.read()).hexdigest()
    with open(lock, "w") as f:
        f.write(TINY_LOCK.format(url="file://" + pkg, sha=pkg_sha))
    doc = J("file-url", "env-install", 0, "lic-box/linux-x86_64-cpu", "--into",
            os.path.join(tmp, "env"))
    note("env-install one package", bool(doc) and doc.get("condaPackages") == 1 and
         os.path.isfile(os.path.join(tmp, "env", "share", "tiny.txt")))
    with open(lock, "w") as f:
        f.write(LOCK % "Zlib")
    golden = os.path.join(src, "golden", "audit")
    cuda = os.path.join(ws, "scrolls", "demo", "linux-x86_64-cuda12.4")
    os.makedirs(cuda)
    shutil.copy(os.path.join(golden, "audit-scroll-input", "scrolls", "demo",
                             "linux-x86_64-cuda12.4", "scroll.json"), cuda)
    shutil.copy(os.path.join(golden, "audit-clean-conda-cuda12-4", "pixi.toml"), cuda)
    shutil.copy(os.path.join(golden, "audit-conda-cpu-build", "pixi.lock"), cuda)
    doc = J("cpu-build", "audit cuda", 1, cuda, code="audit-failed")
    note("audit cuda findings beside the error", bool(doc and doc.get("findings")))
    shutil.rmtree(os.path.join(ws, "scrolls", "demo"))

    # audit binaries: the prefix (no ELF file in it) and a path that is not there
    run_json("prefix", "audit binaries", 0, ["audit", "binaries", prefix, "--json"], env=env,
             cwd=ws)
    run_json("missing", "audit binaries", 1, ["audit", "binaries", nothing, "--json"],
             code="io-error", env=env, cwd=ws)

    # keys, git, doctor
    J("keys", "keygen", 0)
    J("exists", "keygen", 1, code="key-exists")
    elsewhere = os.path.join(tmp, "keys-elsewhere")
    priv, pub = os.path.join(elsewhere, "p.pem"), os.path.join(elsewhere, "p.json")
    doc = J("chosen-paths", "keygen", 0, "--private-key", priv, "--public-key", pub)
    note("keygen chosen paths reported",
         bool(doc) and doc.get("privateKeyPath") == priv and doc.get("publicKeyPath") == pub)
    J("chosen-exists", "keygen", 1, "--private-key", os.path.join(elsewhere, "q.pem"),
      "--public-key", pub, code="key-exists")
    note("keygen chosen-exists wrote nothing",
         not os.path.exists(os.path.join(elsewhere, "q.pem")))
    J("chosen-one-file", "keygen", 2, "--private-key", priv, "--public-key", priv, code="usage")
    with open(os.path.join(ws, ".gitignore"), "a") as f:
        f.write("")
    git(ws, "init", "-q")
    git(ws, "add", "-A")
    git(ws, "commit", "-q", "-m", "one")
    J("ready", "doctor", 0, "--pixi", pixi, "--conda-pack", cpack)
    doc = J("no-conda-pack", "doctor", 1, "--pixi", pixi, "--conda-pack", nothing,
            code="doctor-failed")
    note("doctor checks beside the error", bool(doc and doc.get("checks")))

    # build and publish
    J("refused", "build", 1, "hello-box/linux-x86_64-cpu", "--environment-prefix", nothing,
      code="io-error")
    doc = J("build", "build", 0, "hello-box/linux-x86_64-cpu", "--environment-prefix", prefix)
    built = doc["builds"][0] if doc and doc.get("builds") else {}
    rel, chan = built.get("releasePath", nothing), built.get("channelPath", nothing)
    trust = os.path.join(ws, ".scrollcase", "keys", "signing-public.json")

    # documents
    manifest = os.path.join(ws, "scrolls", "lic-box", "linux-x86_64-cpu",
                            "conda-licenses.json")
    J("release", "verify-document", 0, rel, "--trust", trust, "--expect", "release")
    J("wrong-type", "verify-document", 1, chan, "--trust", trust, "--expect", "release",
      code="invalid-manifest")
    J("channel", "channel resolve", 0, chan, "--install-id", "a", "--trust", trust)
    J("unsigned", "channel resolve", 1, rel, "--install-id", "a", "--trust", trust,
      code="invalid-manifest")
    J("inventory", "sign", 0, manifest, "--out", os.path.join(tmp, "c.signed.json"))
    J("not-a-manifest", "sign", 1, trust, code="invalid-manifest")
    # upstream's --private-key: the pair written to chosen paths by keygen above
    out = os.path.join(tmp, "p.signed.json")
    doc = J("private-key", "sign", 0, manifest, "--out", out, "--private-key", priv,
            "--public-key", pub)
    note("sign --private-key wrote the envelope", bool(doc) and os.path.isfile(out))
    J("private-key-missing", "sign", 1, manifest, "--out", out + "2", "--private-key",
      os.path.join(elsewhere, "none.pem"), "--public-key", pub, code="io-error")
    J("private-key-not-this-pair", "sign", 1, manifest, "--out", out + "2", "--private-key",
      priv, code="invalid-key")
    J("private-key-with-signer", "sign", 2, manifest, "--private-key", priv,
      "--signer-command", "/bin/cat", code="usage")
    note("sign --private-key refusals wrote nothing", not os.path.exists(out + "2"))

    # the consumer
    doc = J("archive", "verify", 0, rel, "--trust", trust)
    note("verify signingKeyIds is an array",
         bool(doc) and isinstance(doc.get("signingKeyIds"), list) and "signedBy" not in doc)
    J("no-archive", "verify", 1, rel, "--trust", trust, "--archive", nothing,
      code="archive-not-found")
    J("release", "inspect", 0, rel, "--trust", trust)
    J("missing", "inspect", 1, nothing, "--trust", trust, code="archive-not-found")
    # A message naming a long non-ASCII path is cut at its buffer's end
    # (512 bytes) between characters: it reads as itself, not as the quoted
    # escape form the failure document falls back to for text that is not
    # UTF-8.  Each of four offsets, so a 2-, 3- and 4-byte character meets
    # the cut somewhere.
    for pad in range(4):
        deep = os.path.join(tmp, "x" * (pad + 1), *(["r\u00e9\u00e9sum\u00e9-\u00df\u20ac\U0001f4e6"] * 40))
        os.makedirs(deep)
        doc = J("long-path-%d" % pad, "inspect", 1, os.path.join(deep, "missing.zip"),
                "--trust", trust, code="archive-not-found")
        msg = ((doc or {}).get("error") or {}).get("message") or ""
        note("long non-ASCII path message whole [%d]" % pad,
             len(msg.encode()) > 400 and "\\x" not in msg and msg.startswith(tmp),
             repr(msg[:60] + "..." + msg[-30:]))
        shutil.rmtree(os.path.join(tmp, "x" * (pad + 1)))
    J("same", "diff", 0, rel, rel, "--trust", trust)
    J("missing", "diff", 1, rel, nothing, "--trust", trust, code="archive-not-found")
    dest = os.path.join(tmp, "prepared")
    J("prepare", "prepare", 0, rel, dest, "--trust", trust)
    J("exists", "prepare", 1, rel, dest, "--trust", trust, code="existing-destination")
    J("attach", "attach", 0, rel, dest, "--trust", trust)
    J("not-a-dir", "attach", 1, rel, nothing, "--trust", trust, code="attach-root")
    p_doc = J("run", "run", 0, rel, "--trust", trust, "--prepared", dest)
    note("run stdout is the document only", p_doc is not None)
    J("no-prepared", "run", 1, rel, "--trust", trust, "--prepared", nothing,
      code="destination-changed")
    hosts = os.path.join(src, "golden", "compat")
    J("live-cpu", "compat", 0, rel, "--trust", trust, "--host-app-version", "1.0.0")
    J("bad-facts", "compat", 1, rel, "--trust", trust, "--host-facts", trust,
      code="invalid-host-facts")

    # parity, the GPU, targets
    pdir = os.path.join(src, "golden", "parity")
    ref = os.path.join(tmp, "ref.json")
    cand = os.path.join(tmp, "cand.json")
    with open(ref, "w") as f:
        json.dump([1.0, 2.0, 3.0], f)
    with open(cand, "w") as f:
        json.dump([1.0, 2.0, 3.5], f)
    J("pass", "parity compare", 0, ref, cand, "--absolute", "1")
    doc = J("breach", "parity compare", 1, ref, cand, "--absolute", "0.1", code="parity-breach")
    note("parity breach carries the measurements",
         bool(doc) and "maximumAbsoluteError" in doc)
    fe = dict(env, SCROLLCASE_LIBCUDA=os.path.join(fake, "fake_cuda_ok.so"),
              SCROLLCASE_LIBNVML=os.path.join(fake, "fake_nvml.so"))
    J("fake", "gpu probe", 0, e=fe)
    doc = J("none", "gpu probe", 1, code="accelerator-unavailable")
    note("gpu probe facts beside the error", bool(doc) and "gpu" in doc)
    tfile = os.path.join(src, "examples", "targets", "linux-x86_64-cuda12.4.json")
    J("target", "target-id", 0, tfile)
    J("missing", "target-id", 1, nothing, code="io-error")

    # assets over loopback HTTP; the last edits
    served = os.path.join(tmp, "served")
    os.makedirs(served)
    with open(os.path.join(served, "weights.bin"), "wb") as f:
        f.write(b"weights" * 100)
    server = subprocess.Popen(["/usr/bin/python3", os.path.join(src, "fixtures", "http_server.py"),
                               served, os.path.join(tmp, "http.log")], stdout=subprocess.PIPE,
                              text=True)
    try:
        port = int(server.stdout.readline())
        J("asset", "add asset", 0, "hello-box", "http://127.0.0.1:%d/weights.bin" % port,
          "--to", "models/weights.bin")
    finally:
        server.kill()
        server.wait()
    J("asset", "remove asset", 0, "hello-box", "models/weights.bin")
    J("import", "add import", 0, "hello-box", "os")
    J("import", "remove import", 0, "hello-box", "os")
    J("file", "remove file", 0, "hello-box", "app/hello.py")

    # install: the documents over loopback HTTP, the archive from the cache
    dist = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(rel)))))
    icache = os.path.join(tmp, "install-cache")
    os.makedirs(icache)
    shutil.copy(built["archivePath"], os.path.join(icache, built["archiveSha256"]))
    ie = dict(env, SCROLLCASE_CACHE=icache)
    server = subprocess.Popen(["/usr/bin/python3", os.path.join(src, "fixtures", "http_server.py"),
                               dist, os.path.join(tmp, "http2.log")], stdout=subprocess.PIPE,
                              text=True)
    try:
        port = int(server.stdout.readline())
        rurl = "http://127.0.0.1:%d/%s" % (port, os.path.relpath(rel, dist))
        J("release", "install", 0, rurl, os.path.join(tmp, "installed"), "--trust", trust, e=ie)
        J("missing", "install", 1, "http://127.0.0.1:%d/none.json" % port,
          os.path.join(tmp, "installed2"), "--trust", trust, code="download-failed", e=ie)
    finally:
        server.kill()
        server.wait()

    # the asset cache
    cache_env = dict(env, SCROLLCASE_CACHE=os.path.join(tmp, "cache"))
    J("empty", "cache ls", 0, e=cache_env)
    J("empty", "cache gc", 0, e=cache_env)
    not_dir = dict(env, SCROLLCASE_CACHE=trust)  # a file, not a directory
    J("not-a-directory", "cache ls", 1, code="io-error", e=not_dir)
    J("not-a-directory", "cache gc", 1, code="io-error", e=not_dir)

    # help --json: the overview, a command's help (the objects of --commands-json), unknown
    table = json.loads(subprocess.run([sc, "help", "--commands-json"], capture_output=True,
                                      text=True).stdout)
    doc = J("overview", "help", 0)
    note("help overview groups", bool(doc) and [g["name"] for g in doc.get("groups", [])] ==
         ["consumer", "publisher", "author", "host", "meta"])
    listed = [c for g in (doc or {}).get("groups", []) for c in g["commands"]]
    note("help overview lists every command once, as the table does",
         sorted(c["name"] for c in listed) == sorted(c["name"] for c in table["commands"]) and
         all(c["synopsis"] == t["synopsis"] and c["summary"] == t["summary"]
             for c in listed for t in table["commands"] if t["name"] == c["name"]))
    doc = J("command", "help", 0, "audit")
    note("help audit is the table's audit commands",
         bool(doc) and doc.get("commands") ==
         [c for c in table["commands"] if c["words"][0] == "audit"])
    doc = run_json("--help", "help", 0, ["keygen", "--help", "--json"], env=env, cwd=ws)
    note("keygen --help --json is help keygen --json",
         bool(doc) and doc.get("commands") ==
         [c for c in table["commands"] if c["name"] == "keygen"])
    J("unknown", "help", 2, "no-such-command", code="usage")

    # usage errors are documents too
    for command in ("verify", "build", "keygen"):
        run_json("usage", command, 2, [command, "--bogus", "--json"], code="usage", env=env,
                 cwd=ws)

    # every command that takes --json was run both ways
    table = json.loads(subprocess.run([sc, "help", "--commands-json"], capture_output=True,
                                      text=True).stdout)
    for c in table["commands"]:
        if any(o["name"] == "--json" for o in c["options"]):
            got = seen.get(c["name"], set())
            note("covered %s" % c["name"], got == {"ok", "error"}, "ran %s" % sorted(got))
        else:
            note("takes --json %s" % c["name"], c["name"] == "help")
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


sys.exit(main())
