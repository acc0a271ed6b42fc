#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""faults_cli_test.py SCROLLCASE SOURCE_DIR — docs/cli.md "Interruptions" and
resource limits (issue 24).

Every command that writes, held at a step it cannot pass on its own, then
sent SIGINT, SIGTERM or SIGHUP: it ends by that signal, leaves nothing in
the workspace or TMPDIR that was not there before, and every process it
started (and what they started) has ended.  The holds are real components,
not sleeps: an HTTP request the loopback server (fixtures/http_server.py,
hold=1) never answers, an external signer or a pixi stand-in that reports
its pid and then waits.  The test waits for the hold to be reached (a line
in the server's log, a file the held process wrote) before it signals.

  build      held in its external signer (a process group with a helper)
  install    held fetching the release document
  add asset  held fetching the asset to measure it
  lock       held in pixi
  prepare, run: core/tests/test_box.c holds them mid-extraction (all three
             signals there).
  the rest   held where cleanup.h registers their temporary name
             (SCROLLCASE_TEST_HOLD): keygen, sign, init, new scroll, build's
             scratch, prepare, run, verify --self-test, verify --audit, audit
             binaries BOX.zip, add env|dep|file|import, add dep
             --from-requirements, edit scroll, migrate, refresh --repin (a pin
             drifted first) and --check-assets --repin (the served asset
             changed first), remove file|asset|env|import|dep (the entry put
             back first), audit --write (declared, and not: the inventory
             exists exactly when declared), keygen to chosen files (a step
             the signal waits for: the pair is whole or absent).
  attach     writes nothing: held in its first write to a full pipe, it ends
             by the signal and the tree it adopts is unchanged.
  cache gc   makes no temporary name and removes entries one by one:
             signalled once its first removal is seen, it ends part way and
             the cache is consistent (cache_gc below).

Resource limits, run under prlimit(1):
  file size  build, prepare and run under a 1000 KiB RLIMIT_FSIZE, with a
             3 MB file in the box: each ends with io-error (SIGXFSZ never
             ends them) and leaves nothing (16.2 step 5: a quota is io-error);
  memory     build --jobs 4 under address-space limits from 10 to 40 MiB:
             each run succeeds or fails with exit 1 and a code that is not
             internal, and leaves no scratch.  Skipped where the program
             cannot start under 64 MiB (sanitizer builds reserve more).
Prints "N passed, N failed"; exits 1 on a failure.
"""

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

SC, SRC = sys.argv[1], sys.argv[2]
PASSED = FAILED = 0
SIGNALS = [signal.SIGINT, signal.SIGTERM, signal.SIGHUP]


def ok(name, cond, detail=""):
    global PASSED, FAILED
    if cond:
        PASSED += 1
    else:
        FAILED += 1
        print("FAIL %s %s" % (name, detail))


def tree(*roots):
    out = set()
    for root in roots:
        for d, dirs, files in os.walk(root):
            for n in dirs + files:
                out.add(os.path.join(d, n))
    return out


def alive(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            state = f.read().rsplit(")", 1)[1].split()[0]
        return state not in ("Z", "X")
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return False


def wait_for(cond, what, limit=120.0):
    """Wait until cond() holds (the command reached its hold); the limit only
    turns a broken hold into a failure instead of a hang."""
    end = time.monotonic() + limit
    while not cond():
        if time.monotonic() > end:
            raise RuntimeError("never reached: " + what)
        time.sleep(0.01)


def interrupt(name, argv, env, cwd, reached, roots, pids=lambda _sig: []):
    """Run argv, wait for reached(), snapshot nothing new, signal, check."""
    for sig in SIGNALS:
        label = "%s/%s" % (name, sig.name)
        before = tree(*roots)
        p = subprocess.Popen(argv, env=env, cwd=cwd, stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE)
        try:
            wait_for(lambda: reached(sig) or p.poll() is not None, label)
        except RuntimeError as e:
            p.kill()
            p.wait()
            ok(label, False, str(e))
            continue
        if p.poll() is not None:
            ok(label + "/held", False, "ended before its hold: %s" % p.stderr.read().decode())
            continue
        started = pids(sig)
        p.send_signal(sig)
        _, err = p.communicate(timeout=120)
        ok(label + "/ends-by-the-signal", p.returncode == -sig,
           "exit %s: %s" % (p.returncode, err.decode()[-400:]))
        extra = sorted(tree(*roots) - before)
        ok(label + "/nothing-left", not extra, "left: %s" % extra[:5])
        # a SIGKILL sent is not yet a process gone: give it up to 10 s to land
        try:
            wait_for(lambda: not any(alive(pid) for pid in started), "children ended", 10.0)
        except RuntimeError:
            pass
        still = [pid for pid in started if alive(pid)]
        ok(label + "/children-ended", not still, "still running: %s" % still)
        for pid in still:
            os.kill(pid, signal.SIGKILL)


def held_at(name, argv, env, cwd, text, roots, settle=None, whole=None, after=None):
    """Hold argv where it registers a temporary name holding text (the
    SCROLLCASE_TEST_HOLD hook of cleanup.h), signal it, let it go on: it
    ends by the signal and no new name is left under roots.  whole: for a
    step the signal waits for (docs/cli.md: "not cut in half"), the set of
    names the finished step makes; then exactly those may be new.  after:
    a check of the result, (ok, detail)."""
    for sig in SIGNALS:
        label = "%s/%s" % (name, sig.name)
        if settle is not None:
            settle()
        before = tree(*roots)
        ours, theirs = socket.socketpair()
        e = dict(env, SCROLLCASE_TEST_HOLD="%s:%d" % (text, theirs.fileno()))
        p = subprocess.Popen(argv(sig) if callable(argv) else argv, env=e, cwd=cwd,
                             stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE, pass_fds=(theirs.fileno(),))
        theirs.close()
        ours.settimeout(120)
        where = b""
        try:
            while not where.endswith(b"\n"):
                got = ours.recv(4096)
                if not got:
                    break
                where += got
        except socket.timeout:
            pass
        if not where.endswith(b"\n"):
            p.kill()
            _, err = p.communicate()
            ok(label + "/held", False, "never held at %r: exit %s %s"
               % (text, p.returncode, err.decode()[-300:]))
            ours.close()
            continue
        p.send_signal(sig)
        ours.sendall(b"go")
        _, err = p.communicate(timeout=120)
        ours.close()
        ok(label + "/ends-by-the-signal", p.returncode == -sig,
           "held at %s; exit %s: %s" % (where.decode().strip(), p.returncode, err.decode()[-300:]))
        extra = sorted(tree(*roots) - before)
        allowed = [] if whole is None else sorted(whole())
        ok(label + "/nothing-left", extra in ([], allowed), "held at %s; left: %s"
           % (where.decode().strip(), extra[:5]))
        if after is not None:
            good, detail = after()
            ok(label + "/whole-or-undone", good, detail)


def writing_to_full_pipe(pid):
    """pid is in write(1, ...) on a pipe with no room (/proc/PID/syscall)."""
    try:
        with open("/proc/%d/syscall" % pid) as f:
            return f.read().split()[:2] == ["1", "0x1"]
    except OSError:
        return False


def held_at_output(name, argv, env, cwd, roots):
    """For a command that makes no temporary name: its standard output is a
    pipe already full, so the command is held in its first write (after
    every step that could write anything); signal it there, as held_at."""
    for sig in SIGNALS:
        label = "%s/%s" % (name, sig.name)
        before = {n: _bytes(n) for n in tree(*roots)}
        r, w = os.pipe()
        os.set_blocking(w, False)
        try:
            while True:
                os.write(w, b"x" * 65536)
        except BlockingIOError:
            pass
        os.set_blocking(w, True)
        p = subprocess.Popen(argv, env=env, cwd=cwd, stdout=w, stderr=subprocess.PIPE)
        os.close(w)
        try:
            wait_for(lambda: writing_to_full_pipe(p.pid) or p.poll() is not None, label)
        except RuntimeError:
            p.kill()  # never held: fails below
        if p.poll() is None:
            p.send_signal(sig)
        _, err = p.communicate(timeout=120)
        os.close(r)
        ok(label + "/ends-by-the-signal", p.returncode == -sig,
           "exit %s: %s" % (p.returncode, err.decode()[-300:]))
        after = {n: _bytes(n) for n in tree(*roots)}
        ok(label + "/nothing-changed", after == before,
           "new or changed: %s" % sorted(n for n in after if after[n] != before.get(n))[:5])


def _bytes(path):
    return None if os.path.islink(path) or not os.path.isfile(path) else open(path, "rb").read()


def main():
    tmp = tempfile.mkdtemp()
    server = None
    try:
        tmproot = os.path.join(tmp, "tmproot")
        os.mkdir(tmproot)
        env = dict(os.environ, TMPDIR=tmproot, SCROLLCASE_CACHE=os.path.join(tmp, "cache"),
                   GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@t", GIT_COMMITTER_NAME="t",
                   GIT_COMMITTER_EMAIL="t@t")
        www = os.path.join(tmp, "www")
        os.mkdir(www)
        for name in ("release.json", "w.bin"):
            with open(os.path.join(www, name), "w") as f:
                f.write("{}\n")
        log = os.path.join(tmp, "http.log")
        open(log, "w").close()
        server = subprocess.Popen([sys.executable, os.path.join(SRC, "fixtures/http_server.py"),
                                   www, log], stdout=subprocess.PIPE)
        port = int(server.stdout.readline())
        base = "http://127.0.0.1:%d" % port

        def run(*argv, cwd=None):
            r = subprocess.run([SC] + list(argv), env=env, cwd=cwd, capture_output=True)
            if r.returncode != 0:
                raise RuntimeError("%s: %s" % (argv, r.stderr.decode()))

        # ---- the workspace: a box built from a prefix (build_cli_test.sh's) --------
        ws = os.path.join(tmp, "ws")
        prefix = os.path.join(tmp, "prefix")
        os.makedirs(os.path.join(prefix, "bin"))
        os.makedirs(os.path.join(prefix, "lib/python3/site-packages"))
        with open(os.path.join(prefix, "bin/python"), "w") as f:
            f.write('#!/bin/sh\nexec /usr/bin/python3 "$@"\n')
        os.chmod(os.path.join(prefix, "bin/python"), 0o755)
        site = os.path.join(prefix, "lib/python3/site-packages")
        with open(os.path.join(site, "big.bin"), "wb") as f:  # past a 1000 KiB file-size limit
            f.write(os.urandom(3 * 1024 * 1024))
        os.mkdir(os.path.join(site, "many"))
        for i in range(400):  # hashing threads have work under a memory limit
            with open(os.path.join(site, "many", "m%d.py" % i), "w") as f:
                f.write("V = %d\n" % i)
        os.makedirs(ws)
        run("init", cwd=ws)
        run("new", "scroll", "--box-id", "demo", "--target", "linux-x86_64-cpu",
            "--source-revision", "abc", "--execution", "script", "--script", "app/main.py",
            "--generate-script", "--python-version", "3.11", cwd=ws)
        # a self-test that cannot start under a memory limit may hang: 3 s, not 180
        scroll = os.path.join(ws, "scrolls/demo/linux-x86_64-cpu/scroll.json")
        with open(scroll) as f:
            doc = json.load(f)
        doc["selfTest"]["timeoutSeconds"] = 3
        with open(scroll, "w") as f:
            f.write(json.dumps(doc, indent=2) + "\n")
        with open(os.path.join(ws, ".gitignore"), "w") as f:
            f.write(".scrollcase/\n")
        subprocess.run(["git", "init", "-q"], cwd=ws, check=True)
        subprocess.run(["git", "add", "-A"], cwd=ws, check=True)
        subprocess.run(["git", "commit", "-q", "-m", "one"], cwd=ws, check=True, env=env)
        run("keygen", cwd=ws)
        trust = os.path.join(ws, ".scrollcase/keys/signing-public.json")
        build = ["build", "demo/linux-x86_64-cpu", "--environment-prefix", prefix,
                 "--asset-base-url", "https://boxes.example.test/"]
        run(*build, cwd=ws)  # the workspace's directories exist from now on
        shutil.rmtree(os.path.join(ws, ".scrollcase/build"))
        os.mkdir(os.path.join(ws, ".scrollcase/build"))
        shutil.rmtree(os.path.join(ws, ".scrollcase/dist"))

        # ---- build, held in its external signer -------------------------------------
        held = os.path.join(tmp, "held")
        os.mkdir(held)
        signer = os.path.join(tmp, "signer.sh")
        with open(signer, "w") as f:
            f.write("#!/bin/sh\n"
                    "cat >/dev/null\n"
                    "sleep 600 &\n"
                    "echo $! >\"%s/helper\"\n"
                    "echo $$ >\"%s/signer.tmp\" && mv \"%s/signer.tmp\" \"%s/signer\"\n"
                    "wait\n" % (held, held, held, held))
        os.chmod(signer, 0o755)

        def signer_reached(_sig):
            return os.path.exists(os.path.join(held, "signer"))

        def signer_pids(_sig):
            pids = [int(open(os.path.join(held, n)).read()) for n in ("signer", "helper")]
            for n in ("signer", "helper"):
                os.unlink(os.path.join(held, n))
            return pids

        interrupt("build", [SC] + build + ["--signer-command", signer, "--public-key", trust],
                  env, ws, signer_reached, [ws, tmproot], signer_pids)

        # ---- install, held fetching the release --------------------------------------
        interrupt("install",
                  [SC, "install", base + "/release.json?hold=1&n=install", "dest",
                           "--trust", trust],
                  env, tmp, lambda sig: _count(log, "n=install") > SIGNALS.index(sig),
                  [tmp])

        # ---- add asset, held fetching the asset ---------------------------------------
        interrupt("add-asset",
                  [SC, "add", "asset", "demo", base + "/w.bin?hold=1&n=asset", "--target",
                   "linux-x86_64-cpu"],
                  env, ws, lambda sig: _count(log, "n=asset") > SIGNALS.index(sig),
                  [ws, tmproot])

        # ---- lock, held in pixi ---------------------------------------------------------
        pixi = os.path.join(tmp, "pixi")
        with open(pixi, "w") as f:
            f.write("#!/bin/sh\n"
                    "if [ \"$1\" = --version ]; then echo 'pixi 0.73.0'; exit 0; fi\n"
                    "echo $$ >\"%s/pixi.tmp\" && mv \"%s/pixi.tmp\" \"%s/pixi\"\n"
                    "exec sleep 600\n" % (held, held, held))
        os.chmod(pixi, 0o755)

        def pixi_pids(_sig):
            pid = int(open(os.path.join(held, "pixi")).read())
            os.unlink(os.path.join(held, "pixi"))
            return [pid]

        interrupt("lock", [SC, "lock", "demo/linux-x86_64-cpu", "--pixi", pixi], env, ws,
                  lambda sig: os.path.exists(os.path.join(held, "pixi")), [ws, tmproot],
                  pixi_pids)

        # ---- every other command that writes, held where its temporary name exists --
        sc = lambda *a: [SC] + list(a)
        held_at("keygen-force", sc("keygen", "--force"), env, ws, ".tmp-", [ws, tmproot])
        with open(os.path.join(tmp, "doc.json"), "w") as f:
            f.write(json.dumps({"schemaVersion": 3, "kind": "scrollcase.box.revocations",
                                "updatedAt": "2026-01-01T00:00:00Z", "revocations": []}))
        held_at("sign", sc("sign", os.path.join(tmp, "doc.json"), "--out",
                           os.path.join(tmp, "doc.signed.json")), env, ws, ".tmp-",
                [tmp])
        fresh = os.path.join(tmp, "fresh")
        os.mkdir(fresh)
        held_at("init", sc("init"), env, fresh, ".tmp-", [fresh, tmproot],
                settle=lambda: [shutil.rmtree(fresh), os.mkdir(fresh)])
        held_at("new-scroll", sc("new", "scroll", "--box-id", "other", "--target",
                                 "linux-x86_64-cpu", "--source-revision", "abc"),
                env, ws, ".new-", [ws, tmproot])
        held_at("build-scratch", [SC] + build, env, ws, "demo-linux", [ws, tmproot])
        run(*build, cwd=ws)  # a box to prepare, run and verify
        rel = sorted(os.path.join(d, n)
                     for d, _, files in os.walk(os.path.join(ws, ".scrollcase/dist"))
                     for n in files if n.endswith(".release.json"))
        if rel:
            held_at("prepare", sc("prepare", rel[-1], os.path.join(tmproot, "dest"), "--trust",
                                  trust), env, ws, ".scrollcase-prepare-", [ws, tmproot])
            held_at("run", sc("run", rel[-1], "--trust", trust), env, ws, "scrollcase-run-",
                    [ws, tmproot])
            # attach writes nothing (it measures and prints the receipt): held
            # printing it, nothing in the tree it adopts may change
            adopted = os.path.join(tmp, "adopted")
            run("prepare", rel[-1], adopted, "--trust", trust, cwd=ws)
            held_at_output("attach", sc("attach", rel[-1], adopted, "--trust", trust), env, ws,
                           [ws, tmproot, adopted])
            shutil.rmtree(adopted)
            held_at("verify-audit", sc("verify", rel[-1], "--trust", trust, "--audit"), env, ws,
                    "scrollcase-audit-", [ws, tmproot])
            zips = sorted(os.path.join(d, n)
                          for d, _, files in os.walk(os.path.join(ws, ".scrollcase/dist"))
                          for n in files if n.endswith(".zip"))
            held_at("audit-binaries-archive", sc("audit", "binaries", zips[-1]), env, ws,
                    "scrollcase-audit-", [ws, tmproot])
            held_at("verify-self-test", sc("verify", rel[-1], "--trust", trust, "--self-test"),
                    env, ws, "scrollcase-self-test-", [ws, tmproot])
        else:
            ok("a-release-to-prepare", False, "no release in the dist tree")

        # each run makes a change of its own (a repeated one would write nothing)
        held_at("add-env", lambda sig: sc("add", "env", "demo", "A=%s" % sig.name), env, ws,
                ".tmp-", [ws, tmproot])
        held_at("add-dep", lambda sig: sc("add", "dep", "demo", "numpy", "--version",
                                          ">=1.%d" % sig), env, ws, ".tmp-", [ws, tmproot])
        held_at("edit-scroll", lambda sig: sc("edit", "scroll", "demo", "--field", "version",
                                              "--value", "1.0.%d" % sig), env, ws, ".tmp-",
                [ws, tmproot])
        scroll = os.path.join(ws, "scrolls/demo/linux-x86_64-cpu/scroll.json")

        def as_v2():
            with open(scroll) as f:
                doc = json.load(f)
            doc["schemaVersion"] = 2
            with open(scroll, "w") as f:
                f.write(json.dumps(doc, indent=2) + "\n")
        held_at("migrate", sc("migrate", "demo/linux-x86_64-cpu"), env, ws, ".tmp-",
                [ws, tmproot], settle=as_v2)
        edits(env, ws, tmp, tmproot, www, base, run, sc)
        cache_gc(env, tmp)
        limits(env, ws, build + ["--allow-dirty"], trust, tmproot)
    finally:
        if server is not None:
            server.kill()
            server.wait()
        shutil.rmtree(tmp, ignore_errors=True)
    print("%d passed, %d failed" % (PASSED, FAILED))
    return 1 if FAILED else 0


def edits(env, ws, tmp, tmproot, www, base, run, sc):
    """refresh --repin, the remove edits, audit --write and keygen to chosen
    files, each held where its temporary name exists."""
    # ---- refresh --repin: a pinned local file drifts before each signal --------
    data = os.path.join(ws, "data.txt")
    with open(data, "w") as f:
        f.write("one\n")
    run("add", "file", "demo", data, cwd=ws)
    drift = iter(range(len(SIGNALS)))

    def drifted():
        with open(data, "w") as f:
            f.write("drift %d\n" % next(drift))
    held_at("refresh-repin", sc("refresh", "demo", "--repin"), env, ws, ".tmp-", [ws, tmproot],
            settle=drifted)

    # ---- remove file|asset|env|import|dep: the entry is put back before each ----
    # (the staged edit is whole when the signal lands, so each run removes it)
    def present(*argv):
        return lambda: run(*argv, cwd=ws)
    for kind, value, add in (
            ("file", "data.txt", ("add", "file", "demo", data)),
            ("asset", base + "/w.bin", ("add", "asset", "demo", base + "/w.bin", "--to",
                                        "models/w.bin")),
            ("env", "REMOVE_ME", ("add", "env", "demo", "REMOVE_ME=1")),
            ("import", "csv", ("add", "import", "demo", "csv")),
            ("dep", "scipy", ("add", "dep", "demo", "scipy"))):
        held_at("remove-" + kind, sc("remove", kind, "demo", value), env, ws, ".tmp-",
                [ws, tmproot], settle=present(*add))

    # ---- add file|import, add dep --from-requirements: a change of its own each --
    for sig in SIGNALS:
        with open(os.path.join(ws, "add-%s.txt" % sig.name), "w") as f:
            f.write(sig.name + "\n")
        with open(os.path.join(tmp, "req-%s.txt" % sig.name), "w") as f:
            f.write("pkg-%s>=1\ntorch\n" % sig.name.lower())
    held_at("add-file", lambda sig: sc("add", "file", "demo", "add-%s.txt" % sig.name), env, ws,
            ".tmp-", [ws, tmproot])
    stdlib = dict(zip(SIGNALS, ("fractions", "decimal", "statistics")))  # the self-test imports
    held_at("add-import", lambda sig: sc("add", "import", "demo", stdlib[sig]), env, ws, ".tmp-",
            [ws, tmproot])
    held_at("add-dep-from-requirements",
            lambda sig: sc("add", "dep", "demo", "--from-requirements",
                           os.path.join(tmp, "req-%s.txt" % sig.name)),
            env, ws, ".tmp-", [ws, tmproot])

    # ---- refresh --check-assets --repin: the served asset changes before each --
    www_asset = os.path.join(www, "w2.bin")
    with open(www_asset, "w") as f:
        f.write("first\n")
    run("add", "asset", "demo", base + "/w2.bin", "--to", "models/w2.bin", cwd=ws)
    served = iter(range(2 * len(SIGNALS)))

    def reserved():
        with open(www_asset, "w") as f:
            f.write("served %d\n" % next(served))
    for at, step in (("download", "scrollcase-asset-"), ("scroll", ".scroll.json.tmp-")):
        held_at("refresh-check-assets-repin/at-" + at,
                sc("refresh", "demo", "--check-assets", "--repin"), env, ws, step,
                [ws, tmproot], settle=reserved)
    run("remove", "asset", "demo", "models/w2.bin", cwd=ws)

    # ---- audit --write: the declared inventory, its licences changed each time --
    t = os.path.join(ws, "scrolls/lic/linux-x86_64-cpu")
    os.makedirs(t)
    with open(os.path.join(t, "scroll.json"), "w") as f:
        json.dump({"schemaVersion": 3, "boxId": "lic", "modelId": "lic-model",
                   "runtimeId": "plain", "version": "1.0.0", "sourceRevision": "abc",
                   "target": {"platform": "linux", "arch": "x86_64", "accelerator": "cpu"},
                   "pythonVersion": "3.12", "pixiVersion": "0.40.0",
                   "selfTest": {"imports": ["json"]}}, f, indent=2)
    licences = iter(["Zlib", "MIT", "BSD-3-Clause", "Apache-2.0"])  # the first for the setup

    def relicensed():
        cf = "https://conda.anaconda.org/conda-forge"
        pkg = cf + "/linux-64/zlib-1.3.1-hb9d3cd8_2.conda"
        with open(os.path.join(t, "pixi.lock"), "w") as f:
            f.write("version: 6\nenvironments:\n  default:\n    channels:\n    - url: %s/\n"
                    "    packages:\n      linux-64:\n      - conda: %s\npackages:\n"
                    "- conda: %s\n  license: %s\n" % (cf, pkg, pkg, next(licences)))
    relicensed()
    run("audit", "lic/linux-x86_64-cpu", "--write", cwd=ws)  # declares the inventory
    held_at("audit-write", sc("audit", "lic/linux-x86_64-cpu", "--write"), env, ws, ".tmp-",
            [ws, tmproot], settle=relicensed)

    # ---- audit --write, nothing declared: the inventory and its declaration are
    # one edit, whole or undone, wherever the signal lands
    inventory = os.path.join(t, "conda-licenses.json")

    def undeclared():
        if os.path.exists(inventory):
            os.unlink(inventory)
        with open(os.path.join(t, "scroll.json")) as f:
            doc = json.load(f)
        doc.pop("condaDependencyLicenseAudit", None)
        with open(os.path.join(t, "scroll.json"), "w") as f:
            json.dump(doc, f, indent=2)

    def declared_iff_written():
        with open(os.path.join(t, "scroll.json")) as f:
            member = json.load(f).get("condaDependencyLicenseAudit")
        return (member is not None) == os.path.exists(inventory), \
            "declared %r, inventory %s" % (member, os.path.exists(inventory))
    for at, step in (("inventory", ".conda-licenses.json.tmp-"), ("scroll", ".scroll.json.tmp-")):
        held_at("audit-write-undeclared/at-" + at, sc("audit", "lic/linux-x86_64-cpu", "--write"),
                env, ws, step, [ws, tmproot], settle=undeclared, whole=lambda: {inventory},
                after=declared_iff_written)

    # ---- keygen to chosen files: the pair is one step, written whole or not ----
    keys = os.path.join(tmp, "chosen-keys")
    pair = {keys, os.path.join(keys, "private.pem"), os.path.join(keys, "public.json")}
    held_at("keygen-chosen-files", sc("keygen", "--private-key", os.path.join(keys, "private.pem"),
                                      "--public-key", os.path.join(keys, "public.json")),
            env, ws, ".tmp-", [tmp], settle=lambda: shutil.rmtree(keys, ignore_errors=True),
            whole=lambda: pair)


def cache_gc(env, tmp):
    """cache gc makes no temporary name: it lists the cache, then, name by
    name, hashes each entry in place and removes the partial, damaged and
    foreign ones (unlink, or a foreign directory's tree).  The handler has
    nothing to remove, and SCROLLCASE_TEST_HOLD no name to hold at.  So the
    test waits until the first name (a partial download, first in name
    order) is gone, with 48 MiB still to hash, and signals then: the gc ends
    by the signal part way (a damaged entry is still there), every valid
    entry is still there with its bytes, nothing is new, and a second gc
    leaves exactly the valid entries (cache ls).  A gc that had removed
    everything before the signal landed is tried again with bigger entries."""
    import hashlib
    cache = env["SCROLLCASE_CACHE"]
    first = os.path.join(cache, "0" * 64 + ".part")
    for sig in SIGNALS:
        label = "cache-gc/%s" % sig.name
        for size in (1 << 20, 2 << 20, 4 << 20):
            shutil.rmtree(cache, ignore_errors=True)
            os.mkdir(cache)
            valid, damaged = {}, set()
            with open(first, "wb") as f:
                f.write(b"partial")
            for _ in range(24):
                body = os.urandom(size)
                name = hashlib.sha256(body).hexdigest()
                bad = hashlib.sha256(b"x" + body).hexdigest()
                valid[name] = body
                damaged.add(bad)
                for name in (name, bad):
                    with open(os.path.join(cache, name), "wb") as f:
                        f.write(body)  # the damaged name: bytes that do not hash to it
            before = tree(cache)
            p = subprocess.Popen([SC, "cache", "gc"], env=env, stdout=subprocess.DEVNULL,
                                 stderr=subprocess.PIPE)
            while os.path.exists(first) and p.poll() is None:
                time.sleep(0.0005)
            if p.poll() is None:
                p.send_signal(sig)
            _, err = p.communicate(timeout=120)
            left_damaged = [n for n in damaged if os.path.exists(os.path.join(cache, n))]
            if p.returncode != -sig or left_damaged:
                break
        ok(label + "/ends-by-the-signal", p.returncode == -sig,
           "exit %s: %s" % (p.returncode, err.decode()[-300:]))
        ok(label + "/part-way", bool(left_damaged), "every damaged entry was removed already")
        now = tree(cache)
        ok(label + "/nothing-new", now <= before, "new: %s" % sorted(now - before)[:3])
        intact = 0
        for name, body in valid.items():
            try:
                with open(os.path.join(cache, name), "rb") as f:
                    intact += f.read() == body
            except FileNotFoundError:
                pass
        ok(label + "/valid-entries-kept-whole", intact == len(valid),
           "%d of %d kept whole" % (intact, len(valid)))
        r = subprocess.run([SC, "cache", "gc"], env=env, capture_output=True)
        ls = subprocess.run([SC, "cache", "ls", "--json"], env=env, capture_output=True)
        listed = sorted(e["sha256"] for e in json.loads(ls.stdout)["entries"]) \
            if ls.returncode == 0 else None
        ok(label + "/gc-again-leaves-the-valid", r.returncode == 0 and listed == sorted(valid),
           "gc exit %s, listed %s" % (r.returncode, listed and len(listed)))
    shutil.rmtree(cache, ignore_errors=True)


def limited(prlimit, argv, env, cwd):
    return subprocess.run(["prlimit"] + prlimit + ["--"] + argv, env=env, cwd=cwd,
                          capture_output=True)


def limits(env, ws, build, trust, tmproot):
    if shutil.which("prlimit") is None:
        print("SKIP resource limits: no prlimit (util-linux)")
        return
    scratch = os.path.join(ws, ".scrollcase/build")
    # ---- a file-size limit: io-error, never SIGXFSZ, nothing left ----------------
    fsize = ["--fsize=%d" % (1000 * 1024)]
    before = tree(ws, tmproot)
    r = limited(fsize, [SC] + build, env, ws)
    ok("fsize/build/io-error", r.returncode == 1 and b"error[io-error]" in r.stderr,
       "exit %s: %s" % (r.returncode, r.stderr.decode()[-300:]))
    ok("fsize/build/nothing-left", not tree(ws, tmproot) - before,
       "left: %s" % sorted(tree(ws, tmproot) - before)[:3])
    r = subprocess.run([SC] + build, env=env, cwd=ws, capture_output=True)
    ok("fsize/build-unlimited", r.returncode == 0, r.stderr.decode()[-300:])
    dist = os.path.join(ws, ".scrollcase/dist")
    rel = sorted(os.path.join(d, n) for d, _, files in os.walk(dist)
                 for n in files if n.endswith(".release.json"))[-1]
    for name, argv in (("prepare", [SC, "prepare", rel, os.path.join(tmproot, "dest"),
                                    "--trust", trust]),
                       ("run", [SC, "run", rel, "--trust", trust])):
        before = tree(ws, tmproot)
        r = limited(fsize, argv, env, ws)
        ok("fsize/%s/io-error" % name, r.returncode == 1 and b"error[io-error]" in r.stderr,
           "exit %s: %s" % (r.returncode, r.stderr.decode()[-300:]))
        ok("fsize/%s/nothing-left" % name, not tree(ws, tmproot) - before,
           "left: %s" % sorted(tree(ws, tmproot) - before)[:3])
    # ---- address-space limits: out-of-memory (or success), never internal ------
    if limited(["--as=%d" % (64 << 20)], [SC, "--version"], env, ws).returncode != 0:
        print("SKIP address-space limits: the program does not start under 64 MiB")
        return
    shutil.rmtree(scratch)
    os.mkdir(scratch)
    codes = {}
    for mib in range(10, 41, 2):
        r = limited(["--as=%d" % (mib << 20)], [SC] + build + ["--jobs", "4"], env, ws)
        if r.returncode == 127:  # the dynamic loader itself did not fit
            continue
        err = r.stderr.decode()
        code = err.split("error[", 1)[1].split("]", 1)[0] if "error[" in err else "-"
        codes[code] = codes.get(code, 0) + 1
        ok("as/%d/clean-exit" % mib, r.returncode in (0, 1),
           "exit %s: %s" % (r.returncode, err[-300:]))
        ok("as/%d/never-internal" % mib, code != "internal", err[-300:])
        if r.returncode != 0:
            ok("as/%d/no-scratch" % mib, os.listdir(scratch) == [],
               "left: %s" % os.listdir(scratch))
    ok("as/some-out-of-memory", codes.get("out-of-memory", 0) > 0, "codes: %s" % codes)


def _count(log, fragment):
    with open(log) as f:
        return sum(1 for line in f if fragment in line)


if __name__ == "__main__":
    sys.exit(main())
