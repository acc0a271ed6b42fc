#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""check_docs.py man|bash|zsh DIR — the generated man pages and completions
(DIR as man/generate.sh wrote it, with the option tables it used) against
those tables:

  man   every command has its page, scrollcase(1) names every command, each
        page names every option (and alias) and operand of its command, and
        `man --warnings -l` renders every page (sections 1 and 5) without a
        warning;
  bash  the completion function, driven with COMP_WORDS/COMP_CWORD as bash
        does (bash-completion's library loaded first when installed),
        completes every command word, every option, every choice, files for
        file arguments and directories for directory arguments, options
        given before the command, and nothing after "--";
  zsh   the zsh completions parse (zsh -n), name every command, autoload,
        and complete a command word, an option's choices and a command's
        second words in an interactive zsh (zpty).

Exit 77 (skipped) when man, bash or zsh is missing."""
import json
import re
import os
import shlex
import shutil
import subprocess
import sys
import tempfile

failures = []


def check(ok, what):
    if not ok:
        failures.append(what)
        print("FAIL: " + what)


def load(d):
    with open(os.path.join(d, "commands.json"), encoding="utf-8") as f:
        cmds = json.load(f)
    with open(os.path.join(d, "conform.json"), encoding="utf-8") as f:
        conform = json.load(f)
    return cmds, conform


def page(words):
    return "scrollcase-" + "-".join(words)


def render(path):
    env = dict(os.environ, MANROFFSEQ="", MANWIDTH="80", LC_ALL="C.UTF-8")
    p = subprocess.run(["man", "--warnings", "-E", "UTF-8", "-l", path], env=env,
                       capture_output=True, text=True)
    text = p.stdout.replace("\u2212", "-").replace("\u2010", "-")
    return p.returncode, text, p.stderr


def spellings(o):
    return [o["name"]] + o["aliases"] + ([o["short"]] if o.get("short") else [])


def check_man(d):
    if shutil.which("man") is None:
        print("skipped: no man (install man-db)")
        return 77
    cmds, conform = load(d)
    rc, main_text, err = render(os.path.join(d, "man1", "scrollcase.1"))
    check(rc == 0 and err == "", "scrollcase.1 renders without warnings: %r" % err)
    pages = 1
    for c in cmds["commands"]:
        p = os.path.join(d, "man1", page(c["words"]) + ".1")
        if not os.path.exists(p):
            check(False, "%s: no page %s" % (c["name"], p))
            continue
        pages += 1
        check(page(c["words"]) in main_text, "scrollcase.1 does not name %s" % page(c["words"]))
        rc, text, err = render(p)
        check(rc == 0 and err == "", "%s renders without warnings (rc %d): %r" % (p, rc, err))
        for o in c["options"]:
            for s in spellings(o):
                check(s in text, "%s does not name the option %s" % (p, s))
        for a in c["operands"]:
            check(a["name"].replace("-- ", "") in text, "%s does not name the operand %s" % (p, a["name"]))
    want = {page(c["words"]) + ".1" for c in cmds["commands"]} | {"scrollcase.1", "scrollcase-conform.1"}
    extra = set(os.listdir(os.path.join(d, "man1"))) - want
    check(not extra, "pages for no command: %s" % sorted(extra))
    p = os.path.join(d, "man1", "scrollcase-conform.1")
    rc, text, err = render(p)
    pages += 1
    check(rc == 0 and err == "", "%s renders without warnings: %r" % (p, err))
    for o in conform["commands"][0]["options"]:
        for s in spellings(o):
            check(s in text, "%s does not name the option %s" % (p, s))
    p = os.path.join(d, "man5", "scrollcase-format.5")
    rc, text, err = render(p)
    pages += 1
    check(rc == 0 and err == "" and "SCROLLCASE-FORMAT(5)" in text,
          "%s renders without warnings: %r" % (p, err))
    print("%d pages rendered, %d failures" % (pages, len(failures)))
    return 1 if failures else 0


class Bash:
    """Runs every case in one bash process."""

    def __init__(self, files, cwd):
        self.files, self.cwd, self.cases = files, cwd, []

    def add(self, words, expect=None, exact=None, absent=(), what=""):
        """words: the command line as typed, the last one being completed."""
        self.cases.append((words, expect or [], exact, list(absent), what))

    def run(self):
        lines = ["set +o posix"]
        lib = "/usr/share/bash-completion/bash_completion"
        if os.path.exists(lib):
            lines.append(". %s" % lib)
        for f, fn in self.files:
            lines.append(". %s || exit 3" % shlex.quote(f))
        for i, (words, _, _, _, _) in enumerate(self.cases):
            prog = words[0]
            fn = dict((os.path.basename(f), fn) for f, fn in self.files)[prog]
            lines.append("COMP_WORDS=(%s); COMP_CWORD=%d; COMPREPLY=(); %s; "
                         "printf '@@%d\\n'; printf '%%s\\n' \"${COMPREPLY[@]}\""
                         % (" ".join(shlex.quote(w) for w in words), len(words) - 1, fn, i))
        p = subprocess.run(["bash", "--norc", "--noprofile"], input="\n".join(lines) + "\n",
                           capture_output=True, text=True, cwd=self.cwd)
        check(p.returncode == 0, "bash exited %d: %s" % (p.returncode, p.stderr[-2000:]))
        replies, cur = {}, None
        for line in p.stdout.splitlines():
            if line.startswith("@@"):
                cur = int(line[2:])
                replies[cur] = []
            elif cur is not None and line != "":
                replies[cur].append(line)
        for i, (words, expect, exact, absent, what) in enumerate(self.cases):
            got = replies.get(i)
            shown = " ".join(words) + "<TAB>"
            if got is None:
                check(False, "%s: no reply (%s)" % (shown, what))
                continue
            for e in expect:
                check(e in got, "%s: %r not offered (%s); got %s" % (shown, e, what, got[:12]))
            for a in absent:
                check(a not in got, "%s: %r offered (%s)" % (shown, a, what))
            if exact is not None:
                check(sorted(got) == sorted(exact), "%s: offered %s, want %s (%s)" % (shown, got, exact, what))
        return len(self.cases)


def check_bash(d):
    if shutil.which("bash") is None:
        print("skipped: no bash")
        return 77
    cmds, conform = load(d)
    sc = os.path.join(d, "bash-completion", "scrollcase")
    scc = os.path.join(d, "bash-completion", "scrollcase-conform")
    with tempfile.TemporaryDirectory() as tmp:
        os.mkdir(os.path.join(tmp, "somedir"))
        open(os.path.join(tmp, "somefile.json"), "w").close()
        b = Bash([(sc, "_scrollcase"), (scc, "_scrollcase_conform")], tmp)
        firsts = sorted({c["words"][0] for c in cmds["commands"]})
        b.add(["scrollcase", ""], exact=firsts, what="every first command word")
        common = None
        for c in cmds["commands"]:
            names = {o["name"] for o in c["options"]}
            common = names if common is None else common & names
        for c in cmds["commands"]:
            w = c["words"]
            for k in range(len(w)):
                b.add(["scrollcase"] + w[:k] + [w[k][:2]], expect=[w[k]],
                      what="command word %d of %s" % (k + 1, c["name"]))
            for o in c["options"]:
                for s in spellings(o):
                    b.add(["scrollcase"] + w + [s[:3]], expect=[s], what="an option of " + c["name"])
                if not o["argument"]:
                    continue
                kind = o["completion"]
                line = ["scrollcase"] + w + [o["name"]]
                if kind == "choice":
                    b.add(line + [""], exact=o["choices"], what="the choices of " + o["name"])
                elif kind == "file":
                    b.add(line + ["some"], expect=["somefile.json", "somedir"],
                          what="files for " + o["name"])
                elif kind == "directory":
                    b.add(line + ["some"], expect=["somedir"], absent=["somefile.json"],
                          what="directories for " + o["name"])
                elif kind == "none":
                    b.add(line + ["some"], exact=[], what="nothing for " + o["name"])
            ops = [a for a in c["operands"] if not a["name"].startswith("-- ")]
            if ops and ops[0]["completion"] == "file":
                b.add(["scrollcase"] + w + ["some"], expect=["somefile.json"],
                      what="a file for the operand %s of %s" % (ops[0]["name"], c["name"]))
            if any(a["name"].startswith("-- ") for a in c["operands"]):
                b.add(["scrollcase"] + w + ["--", "some"], exact=[],
                      what="nothing after -- for " + c["name"])
        # An option before the command, with its value.
        before = sorted(o for o in common or [] if o.startswith("--"))
        dir_opts = [o for c in cmds["commands"][:1] for o in c["options"]
                    if o["name"] in (common or set()) and o["argument"]]
        if dir_opts:
            o = dir_opts[0]
            b.add(["scrollcase", o["name"], "somedir", firsts[-1][:2]], expect=[firsts[-1]],
                  what="a command after %s VALUE" % o["name"])
        check(bool(before), "no option is common to every command")
        c0 = conform["commands"][0]
        for o in c0["options"]:
            for s in spellings(o):
                b.add(["scrollcase-conform", s[:3]], expect=[s], what="an option of scrollcase-conform")
            if o["completion"] == "directory":
                b.add(["scrollcase-conform", o["name"], "some"], expect=["somedir"],
                      absent=["somefile.json"], what="directories for " + o["name"])
            if o["completion"] == "choice":
                b.add(["scrollcase-conform", o["name"], ""], exact=o["choices"],
                      what="the choices of " + o["name"])
        n = b.run()
    print("%d completions checked, %d failures" % (n, len(failures)))
    return 1 if failures else 0


def check_zsh(d):
    if shutil.which("zsh") is None:
        print("skipped: no zsh")
        return 77
    cmds, _ = load(d)
    for name in ("_scrollcase", "_scrollcase-conform"):
        p = os.path.join(d, "zsh", name)
        r = subprocess.run(["zsh", "-n", p], capture_output=True, text=True)
        check(r.returncode == 0 and r.stderr == "", "%s does not parse: %s" % (p, r.stderr))
    with open(os.path.join(d, "zsh", "_scrollcase"), encoding="utf-8") as f:
        text = f.read()
    for c in cmds["commands"]:
        check("'%s')" % " ".join(c["words"]) in text, "_scrollcase has no case for " + c["name"])
    # Loaded as compinit would (autoload), the function defines itself.
    r = subprocess.run(["zsh", "-f", "-c",
                        "fpath=(%s $fpath); autoload -Uz compinit; compinit -u -D; "
                        "autoload -Uz _scrollcase; whence -w _scrollcase" % shlex.quote(os.path.join(d, "zsh"))],
                       capture_output=True, text=True)
    check(r.returncode == 0 and "function" in r.stdout, "zsh does not autoload _scrollcase: %s %s"
          % (r.stdout, r.stderr))
    # Driven as a user would: an interactive zsh in a pseudo-terminal (zpty),
    # TAB after a command prefix, after an option with choices, after a
    # command's first word.
    cases = [("scrollcase ad", None), ("scrollcase build --channel ", None), ("scrollcase add ", None)]
    want = []
    c_build = [c for c in cmds["commands"] if c["words"] == ["build"]]
    chan = [o for c in c_build for o in c["options"] if o["completion"] == "choice"]
    adds = sorted(c["words"][1] for c in cmds["commands"] if c["words"][:1] == ["add"] and len(c["words"]) == 2)
    want = [["scrollcase add "], chan[0]["choices"] if chan else [], adds]
    if chan:
        cases[1] = ("scrollcase build %s " % chan[0]["name"], None)
    script = r"""
zmodload zsh/zpty || exit 3
zpty z zsh -f -i
zpty -w z 'PS1=">"; fpath=(%s $fpath); autoload -Uz compinit; compinit -u -D; scrollcase() { :; }; print -r -- @@$((999+1))'
zpty -r z out '*@@1000*'
n=1000
for line in "$@"; do
    n=$((n + 1))
    zpty -wn z "$line"$'\t'
    sleep 0.5
    zpty -w z $'\C-u'"print -r -- @@\$(($n-1+1))"
    zpty -r z out "*@@$n*"
    print -r -- "@@"
    print -r -- "$out"
done
zpty -d z
""" % shlex.quote(os.path.join(d, "zsh"))
    r = subprocess.run(["zsh", "-f", "-c", script, "zsh"] + [c for c, _ in cases],
                       capture_output=True, text=True, timeout=120)
    plain = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]|[\r\x07]|.\x08", "", r.stdout)
    outs = plain.split("@@\n")[1:]
    check(len(outs) == len(cases), "zsh under zpty answered %d of %d cases: %s" % (len(outs), len(cases), r.stderr))
    for (line, _), w, out in zip(cases, want, outs):
        for x in w:
            check(x in out, "zsh: %s<TAB> does not offer %r" % (line, x))
    print("zsh: %d cases driven, %d failures" % (len(cases), len(failures)))
    return 1 if failures else 0


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ("man", "bash", "zsh"):
        sys.exit(__doc__)
    return {"man": check_man, "bash": check_bash, "zsh": check_zsh}[sys.argv[1]](
        os.path.abspath(sys.argv[2]))


if __name__ == "__main__":
    sys.exit(main())
