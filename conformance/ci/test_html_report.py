#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""test_html_report.py RUNNER SOURCE_DIR -- scrollcase-conform --report-html
in a real browser: Debian's chromium, headless, loading the page from file://
with no network, its DOM read back with --dump-dom.

The run: the self-test corpus (conformance/selftest/corpus) plus a case
whose title, rules, output and stderr are hostile markup (`</script>`,
`<img onerror>`), through the self-tests' fake adapter.  Checked: the page's
counts per area equal the JSON report's; one failure's structural diff
($.value.n expected "1", got "2"); the hostile text shows as text and
never becomes an element or runs; the filters (the URL's fragment, since
--dump-dom cannot click) hide what they should; the page refers to nothing
outside itself.  Then --compare over three runs (two of one implementation,
one of another): the matrix's pass rates and what newly fails and newly
passes.  Exit 77 (skip) only when chromium is not installed.
"""
import html.parser
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

runner, src = sys.argv[1], sys.argv[2]
CHROMIUM = shutil.which("chromium")
HOSTILE = "</script><img src=x onerror=\"document.title='owned'\"><b>bold</b>"
passed = failed = 0


def note(name, ok, detail=""):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print("FAIL %s %s" % (name, str(detail)[:2000]))


class Node:
    def __init__(self, tag, attrs, parent):
        self.tag, self.attrs, self.parent, self.children = tag, dict(attrs), parent, []

    def text(self):
        return "".join(c if isinstance(c, str) else c.text() for c in self.children)

    def find_all(self, pred):
        out = []
        for c in self.children:
            if isinstance(c, Node):
                if pred(c):
                    out.append(c)
                out.extend(c.find_all(pred))
        return out

    def classes(self):
        return self.attrs.get("class", "").split()


VOID = {"meta", "link", "br", "img", "input", "hr", "source", "wbr", "col"}


class Tree(html.parser.HTMLParser):
    """The DOM chromium serialised, as a tree (the standard library's parser)."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.root = Node("#root", [], None)
        self.cur = self.root

    def handle_starttag(self, tag, attrs):
        n = Node(tag, attrs, self.cur)
        self.cur.children.append(n)
        if tag not in VOID:
            self.cur = n

    def handle_endtag(self, tag):
        n = self.cur
        while n is not None and n.tag != tag:
            n = n.parent
        if n is not None and n.parent is not None:
            self.cur = n.parent

    def handle_data(self, data):
        self.cur.children.append(data)


def dump_dom(url, tmp):
    profile = tempfile.mkdtemp(dir=tmp)
    r = subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                        "--no-first-run", "--disable-background-networking",
                        "--disable-component-update", "--disable-sync",
                        "--user-data-dir=" + profile, "--dump-dom", url],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
    t = Tree()
    t.feed(r.stdout.decode("utf-8", "replace"))
    return t.root, r


def by(root, tag=None, **attrs):
    def pred(n):
        if tag is not None and n.tag != tag:
            return False
        for k, v in attrs.items():
            k = k.rstrip("_").replace("_", "-")
            if k == "class":
                if v not in n.classes():
                    return False
            elif n.attrs.get(k) != v:
                return False
        return True
    return root.find_all(pred)


ADAPTER = r'''#!/bin/sh
# the self-tests' fake adapter, plus one hostile case and two switches:
# FLIP (accept-wrong-output answers right, accept-ok wrong), OTHER (another
# implementation's name in the hello)
fake=%(fake)s
if [ "$1" = "--hello" ]; then
    if [ -n "$OTHER" ]; then
        /bin/sh "$fake" --hello | sed 's/"name": "fake"/"name": "other-port"/'
        exit 0
    fi
    exec /bin/sh "$fake" --hello
fi
dir=
for a in "$@"; do case $prev in --case) dir=$a ;; esac; prev=$a; done
id=$(basename "$dir")
if [ "$id" = hostile-output ]; then
    cat "$dir/answer.json"
    printf '%%s\n' '%(hostile)s' >&2
    exit 0
fi
if [ -n "$FLIP" ] && [ "$id" = accept-wrong-output ]; then
    echo '{"value": {"n": "1", "list": [1, 2]}}'; exit 0
fi
if [ -n "$FLIP" ] && [ "$id" = accept-ok ]; then
    echo '{"value": {"n": "0", "list": [1, 2]}}'; exit 0
fi
exec /bin/sh "$fake" "$@"
'''


def make_corpus(tmp):
    corpus = os.path.join(tmp, "corpus")
    shutil.copytree(os.path.join(src, "conformance", "selftest", "corpus"), corpus)
    shutil.rmtree(os.path.join(corpus, "io"))  # slow and big cases: not what this is about
    base = os.path.join(corpus, "basic", "accept-wrong-output")
    hostile = os.path.join(corpus, "basic", "hostile-output")
    shutil.copytree(base, hostile)
    with open(os.path.join(hostile, "case.json")) as f:
        case = json.load(f)
    case["id"] = "hostile-output"
    case["title"] = "title " + HOSTILE
    case["rules"] = ["16.1-a", "rule " + HOSTILE]
    with open(os.path.join(hostile, "case.json"), "w") as f:
        json.dump(case, f, indent=2)
    with open(os.path.join(hostile, "answer.json"), "w") as f:
        json.dump({"value": {"n": HOSTILE, "list": [1, 2]}}, f)
    adapter = os.path.join(tmp, "adapter.sh")
    with open(adapter, "w") as f:
        f.write(ADAPTER % {"fake": os.path.join(src, "conformance", "selftest", "fake-adapter.sh"),
                           "hostile": HOSTILE.replace("'", "'\"'\"'")})
    return corpus, adapter


def run(corpus, adapter, out, env=None, html=True):
    cmd = [runner, "--corpus", corpus, "--report-json", out + ".json", "--quiet"]
    if html:
        cmd += ["--report-html", out + ".html"]
    e = {k: v for k, v in os.environ.items() if not k.startswith("FAKE_")}
    e.update(env or {})
    r = subprocess.run(cmd + ["--", "/bin/sh", adapter], env=e, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True, timeout=300)
    with open(out + ".json") as f:
        return r, json.load(f)


def visible(cards):
    return [c for c in cards if "hidden" not in c.attrs]


def single_run(tmp, corpus, adapter):
    page = os.path.join(tmp, "one")
    r, rep = run(corpus, adapter, page)
    note("runner exit 1 (failures)", r.returncode == 1, r.stderr)
    with open(page + ".html", encoding="utf-8") as f:
        raw = f.read()
    # nothing outside the page: no URL with a scheme in an attribute, no
    # external script, style or font, a policy that forbids loading
    note("no external reference", re.search(r"""(src|href)\s*=\s*["']?\s*[a-z]+:""", raw, re.I) is None
         and "<link" not in raw and "@import" not in raw and "url(" not in raw)
    note("content security policy", "default-src 'none'" in raw and "script-src 'sha256-" in raw)
    note("hostile text escaped in the file", HOSTILE not in raw and "</script><img" not in raw)

    url = "file://" + page + ".html"
    dom, proc = dump_dom(url, tmp)
    body = by(dom, "body")
    note("page rendered", body and body[0].attrs.get("data-rendered") == "yes",
         proc.stderr.decode(errors="replace")[-2000:])
    if not body or body[0].attrs.get("data-rendered") != "yes":
        return
    print("rendered %d cases in %s ms" % (len(rep["cases"]), body[0].attrs.get("data-render-ms")))
    titles = by(dom, "title")
    note("title unchanged (no script of the data ran)",
         titles and titles[0].text() == "Scrollcase conformance report", titles and titles[0].text())
    note("no element from the data", not by(dom, "img") and
         not any(n.text() == "bold" for n in by(dom, "b")))
    hostile_card = by(dom, data_id="hostile-output")
    note("hostile case shown", len(hostile_card) == 1)
    if hostile_card:
        text = hostile_card[0].text()
        note("hostile output as text", HOSTILE in text or json.dumps(HOSTILE) in text, text[:500])
        note("hostile title as text", "title " + HOSTILE in text, text[:500])
        rules = [n.text() for n in by(hostile_card[0], "span", class_="rule")]
        note("rules shown", rules == ["16.1-a", "rule " + HOSTILE], rules)
        cj = by(hostile_card[0], "span", class_="case-json")
        note("case.json path shown", cj and "basic/hostile-output/case.json" in cj[0].text())

    # the header
    for field, want in (("implementation", "fake 0.0.0 (sh)"), ("suite", rep["suite_version"]),
                        ("mode", "oneshot")):
        dd = by(dom, "dd", data_field=field)
        note("header %s" % field, dd and dd[0].text() == want, dd and dd[0].text())
    dd = by(dom, "dd", data_field="time")
    note("header time", dd and rep["finished_at"] in dd[0].text())

    # counts per area equal the JSON report's
    table = by(dom, "table", id="sc-areas")
    note("area table", len(table) == 1)
    areas = sorted({c["area"] for c in rep["cases"]})
    for area in areas + [""]:
        row = by(table[0], "tr", data_area=area) if table else []
        note("area row %s" % (area or "all"), len(row) == 1)
        if not row:
            continue
        for st in ("pass", "fail", "xfail", "xpass", "unsupported", "error"):
            want = sum(1 for c in rep["cases"] if c["status"] == st and (not area or c["area"] == area))
            cell = by(row[0], "td", data_status=st)
            note("count %s %s" % (area or "all", st), cell and cell[0].text().strip() == str(want),
                 "%s vs %s" % (cell and cell[0].text(), want))
    totals = {n.attrs["data-status"]: n.text() for n in by(dom, "div", class_="total") if "data-status" in n.attrs}
    note("totals", all(totals.get(k, "").startswith(str(v)) for k, v in rep["summary"].items()
                       if k in ("pass", "fail", "unsupported")), totals)

    # one failure's structural diff, side by side
    card = by(dom, data_id="accept-wrong-output")
    note("failure card", len(card) == 1)
    if card:
        rows = by(card[0], "tr", class_="d-changed")
        cells = rows and {c.classes()[0]: c.text() for c in by(rows[0], "td")}
        note("diff row", len(rows) == 1 and cells["path"] == "$.value.n" and cells["want"] == '"1"'
             and cells["got"] == '"2"', cells)
        want_marked = [n.text() for n in by(card[0], "pre", class_="want")[0].find_all(
            lambda n: "mark" in n.classes())] if by(card[0], "pre", class_="want") else []
        got_marked = [n.text() for n in by(card[0], "pre", class_="got")[0].find_all(
            lambda n: "mark" in n.classes())] if by(card[0], "pre", class_="got") else []
        note("side by side marks the line", [s.strip() for s in want_marked] == ['"n": "1",'] and
             [s.strip() for s in got_marked] == ['"n": "2",'], (want_marked, got_marked))
    codes = by(dom, data_id="reject-wrong-code")
    note("codes side by side", codes and "reject with invalid-json" in by(codes[0], "pre", class_="want")[0].text()
         and "reject with invalid-target" in by(codes[0], "pre", class_="got")[0].text())

    raw = by(dom, data_id="stdout-not-json")
    note("raw stdout of a non-answer", raw and "no answer of the protocol" in raw[0].text() and
         "done" in by(raw[0], "pre", class_="raw")[0].text(), raw and raw[0].text()[:400])
    case = [c for c in rep["cases"] if c["id"] == "stdout-not-json"]
    note("raw stdout in the JSON report", case and case[0]["got"] == {"stdout": "done\n"},
         case and case[0].get("got"))

    # filters: by default every case that did not pass; by the fragment
    cards = [n for n in by(dom) if "data-id" in n.attrs]
    note("every case has a card", len(cards) == len(rep["cases"]), len(cards))
    shown = visible(cards)
    note("default filter: not passing", sorted(c.attrs["data-id"] for c in shown) ==
         sorted(c["id"] for c in rep["cases"] if c["status"] != "pass"))
    for frag, pred in (("#status=fail", lambda c: c["status"] == "fail"),
                       ("#status=pass&area=order", lambda c: c["status"] == "pass" and c["area"] == "order"),
                       ("#area=crash", lambda c: c["area"] == "crash" and c["status"] != "pass"),
                       ("#status=fail,unsupported&q=hostile", lambda c: c["id"] == "hostile-output")):
        d, _ = dump_dom(url + frag, tmp)
        cards = [n for n in by(d) if "data-id" in n.attrs]
        got = sorted("%s/%s" % (c.attrs["data-area"], c.attrs["data-id"]) for c in visible(cards))
        want = sorted("%s/%s" % (c["area"], c["id"]) for c in rep["cases"] if pred(c))
        note("filter %s" % frag, got == want and len(want) > 0, "%s vs %s" % (got, want))
        counter = by(d, id="sc-shown")
        note("filter %s count" % frag, counter and counter[0].text() == "%d of %d cases shown" %
             (len(want), len(rep["cases"])), counter and counter[0].text())


def compare(tmp, corpus, adapter):
    a_rep = run(corpus, adapter, os.path.join(tmp, "a"), html=False)[1]
    b_rep = run(corpus, adapter, os.path.join(tmp, "b"), env={"FLIP": "1"}, html=False)[1]
    run(corpus, adapter, os.path.join(tmp, "c"), env={"OTHER": "1"}, html=False)
    page = os.path.join(tmp, "cmp.html")
    r = subprocess.run([runner, "--report-html", page, "--compare", os.path.join(tmp, "a.json"),
                        "--compare", os.path.join(tmp, "b.json"), "--compare",
                        os.path.join(tmp, "c.json")], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True)
    note("compare exit 0", r.returncode == 0, r.stderr)
    r = subprocess.run([runner, "--report-html", page, "--compare", os.path.join(tmp, "a.html")],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    note("compare refuses a non-report", r.returncode == 2 and "a.html" in r.stderr, r.stderr)
    dom, proc = dump_dom("file://" + page, tmp)
    body = by(dom, "body")
    note("compare rendered", body and body[0].attrs.get("data-rendered") == "yes",
         proc.stderr.decode(errors="replace")[-2000:])
    matrix = by(dom, "table", id="sc-matrix")
    note("matrix", len(matrix) == 1)
    if matrix:
        heads = [th.text() for th in by(matrix[0], "th") if "data-run" in th.attrs]
        note("matrix columns", len(heads) == 3 and heads[0].startswith("fake 0.0.0") and
             heads[2].startswith("other-port"), heads)
        for i, rep in enumerate((a_rep, b_rep)):
            cases = [c for c in rep["cases"] if c["area"] == "basic"]
            good = sum(1 for c in cases if c["status"] in ("pass", "xfail"))
            ran = sum(1 for c in cases if c["status"] != "unsupported")
            cell = by(by(matrix[0], "tr", data_area="basic")[0], "td", data_run=str(i))
            note("matrix basic run %d" % i, cell and "%d/%d" % (good, ran) in cell[0].text() and
                 "%.1f%%" % (int(good * 1000 / ran) / 10) in cell[0].text(), cell and cell[0].text())
    changes = [n for n in by(dom, "section", class_="change")]
    note("one change between runs of one implementation", len(changes) == 1 and
         changes[0].attrs.get("data-from") == "0" and changes[0].attrs.get("data-to") == "1",
         [c.attrs for c in changes])
    if changes:
        nf = [li.text() for ul in by(changes[0], "ul", class_="newly-failing") for li in by(ul, "li")]
        np_ = [li.text() for ul in by(changes[0], "ul", class_="newly-passing") for li in by(ul, "li")]
        note("newly failing", len(nf) == 1 and nf[0].startswith("basic/accept-ok"), nf)
        note("newly passing", len(np_) == 1 and np_[0].startswith("basic/accept-wrong-output"), np_)


def main():
    if CHROMIUM is None:
        print("SKIP: chromium is not installed (ci/setup installs it)")
        return 77
    tmp = tempfile.mkdtemp()
    try:
        corpus, adapter = make_corpus(tmp)
        single_run(tmp, corpus, adapter)
        compare(tmp, corpus, adapter)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


sys.exit(main())
