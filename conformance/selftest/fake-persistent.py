#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""The persistent mode of fake-adapter.sh, for the runner's self-tests.

Reads request lines, runs fake-adapter.sh once per request as a one-shot
call and turns its result into a response line, so a case behaves the same
in both modes.  A crash of the one-shot call (a signal, an exit status other
than 0, 1 and 77) becomes a crash of this process: that is what the runner
must survive.  FAKE_PERSIST_BUG breaks the protocol on case accept-any (see
fake-adapter.sh).
"""

import json
import os
import signal
import subprocess
import sys
import tempfile


def main():
    script = sys.argv[1]
    if os.environ.get("FAKE_STARTS"):
        with open(os.environ["FAKE_STARTS"], "a") as f:
            f.write("%d\n" % os.getpid())
    out = sys.stdout
    bug = os.environ.get("FAKE_PERSIST_BUG", "")
    for line in sys.stdin:
        req = json.loads(line)
        cmd = ["/bin/sh", script, req["operation"], "--case", req["case"],
               "--work", req["work"]]
        # stdout to a file, so a descendant holding it open cannot stall us
        with tempfile.TemporaryFile() as f:
            p = subprocess.Popen(cmd, stdout=f, stdin=subprocess.DEVNULL)
            p.wait()
            f.seek(0)
            text = f.read().decode("utf-8", "replace")
        if p.returncode < 0:
            os.kill(os.getpid(), -p.returncode)
        resp = {"seq": req["seq"]}
        if p.returncode in (0, 1, 77):
            try:
                doc = json.loads(text)
            except ValueError:
                out.write("not json: %s\n" % text.replace("\n", " "))
                out.flush()
                continue
            if p.returncode == 0:
                resp["output"] = doc
            elif p.returncode == 1:
                resp.update(doc)
            else:
                resp.update(doc)
        else:
            sys.exit(p.returncode)
        case = os.path.basename(req["case"])
        if case == "accept-any" and bug:
            if bug == "seq":
                resp["seq"] += 1
            elif bug == "twolines":
                out.write(json.dumps(resp) + "\n")
            elif bug == "garbage":
                out.write("{oops\n")
                out.flush()
                continue
            elif bug == "exit":
                sys.exit(0)
        out.write(json.dumps(resp) + "\n")
        out.flush()
    if bug == "exit-at-end":
        sys.stderr.write("LeakSanitizer: detected memory leaks (pretend)\n")
        sys.exit(23)


if __name__ == "__main__":
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    main()
