/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cmd_inspect.c — scrollcase inspect and scrollcase diff.
 *
 * Argument parsing and printing only: what is inspected and compared is
 * libscrollcase's (inspect.h).  Exit status: 0 success (diff: whether or not
 * the two differ), 1 a rejection, 2 a usage error.
 */
#include "commands.h"

#include "args.h"
#include "show.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scrollcase/box.h"
#include "scrollcase/error.h"
#include "scrollcase/inspect.h"
#include "scrollcase/json.h"
#include "scrollcase/path.h"
#include "scrollcase/progress.h"
#include "scrollcase/trust.h"

/* ---- printing -------------------------------------------------------------------- */

#define W SC_SHOW_INSPECT_WIDTH

static const char *str(const sc_json *o, const char *k)
{
    const char *s = sc_json_cstr(sc_json_get(o, k));
    return s != NULL ? s : "-";
}

static unsigned long long u64(const sc_json *o, const char *k)
{
    uint64_t v = 0;
    return sc_json_uint53(sc_json_get(o, k), &v) ? (unsigned long long)v : 0ull;
}

/* "1.5 MiB (1572864 bytes)": the size for people, the exact bytes beside it. */
static void size_text(unsigned long long n, char *buf, size_t size)
{
    sc_progress_human_size((uint64_t)n, buf, size);
}

/* A JSON value on one line (compact), or "-" for none. */
static void print_compact(const sc_json *v)
{
    char *text = NULL;
    size_t len = 0;
    sc_error err;
    if (v == NULL || v->type == SC_JSON_NULL) {
        fputs("-", stdout);
        return;
    }
    if (v->type == SC_JSON_STRING) {
        fputs(v->string, stdout);
        return;
    }
    if (sc_json_write_compact(v, &text, &len, &err) == SC_OK) {
        fwrite(text, 1, len, stdout);
        free(text);
    }
}

/* The keyIds of a JSON array of strings, shown as the receipts show theirs. */
static void print_signed_by(const sc_json *keys)
{
    size_t n = keys != NULL && keys->type == SC_JSON_ARRAY ? keys->length : 0;
    const char **ids = n ? calloc(n, sizeof *ids) : NULL;
    size_t got = 0;
    for (const sc_json *k = ids ? keys->child : NULL; k != NULL; k = k->next)
        ids[got++] = sc_json_cstr(k) ? sc_json_cstr(k) : "(null)";
    sc_cli_show_signed_by(W, ids, got);
    free(ids);
}

static void print_release(const sc_json *r)
{
    char s[96];
    printf("release\n");
    sc_cli_show_field(W, "box", "%s %s", str(r, "boxId"), str(r, "version"));
    sc_cli_show_model(W, str(r, "modelId"), str(r, "runtimeId"));
    sc_cli_show_field(W, "target", "%s", str(r, "targetId"));
    print_signed_by(sc_json_get(r, "signingKeyIds"));
    const sc_json *arc = sc_json_get(r, "archive");
    size_text(u64(arc, "sizeBytes"), s, sizeof s);
    sc_cli_show_field(W, "archive", "%s", str(arc, "url"));
    sc_cli_show_field(W, "", "sha256 %s, %s", str(arc, "sha256"), s);
    size_text(u64(r, "installedSizeBytes"), s, sizeof s);
    sc_cli_show_field(W, "installed", "%s", s);
    sc_cli_show_field(W, "payload", "%s %s", str(sc_json_get(r, "payloadDigest"), "format"),
                      str(sc_json_get(r, "payloadDigest"), "sha256"));
    sc_cli_show_field(W, "entry point", "%s", str(r, "pythonEntryPoint"));
    const sc_json *ex = sc_json_get(r, "execution");
    sc_cli_show_field(W, "execution", "%s",
                      ex != NULL && ex->type == SC_JSON_OBJECT ? str(ex, "kind") : "none (library)");
    sc_cli_show_field(W, "assets", "%llu on demand", u64(r, "assets"));
    const sc_json *p = sc_json_get(r, "provenance");
    printf("provenance\n");
    for (const sc_json *m = p ? p->child : NULL; m != NULL; m = m->next) {
        printf("  %-16s ", m->key);
        print_compact(m);
        printf("\n");
    }
    const sc_json *g = sc_json_get(r, "gates");
    printf("gates\n");
    if (g == NULL || g->type != SC_JSON_OBJECT || g->child == NULL)
        printf("  none recorded\n");
    for (const sc_json *m = g && g->type == SC_JSON_OBJECT ? g->child : NULL; m != NULL;
         m = m->next) {
        printf("  %-16s ", m->key);
        print_compact(m);
        printf("\n");
    }
    /* the binaries gate's record (format-v3 10.2, 19.10): what compat judges GPUs by */
    const sc_json *cb = sc_json_get(r, "cudaBinaries");
    if (cb != NULL && cb->type == SC_JSON_OBJECT) {
        printf("GPU code (cudaBinaries)\n");
        for (const sc_json *m = cb->child; m != NULL; m = m->next) {
            printf("  %-16s ", m->key);
            print_compact(m);
            printf("\n");
        }
    }
}

static void print_archive(const sc_json *a, const sc_json *match)
{
    char s[96], t[96];
    size_text(u64(a, "sizeBytes"), s, sizeof s);
    printf("archive        %s\n", str(a, "path"));
    sc_cli_show_field(W, "sha256", "%s", str(a, "sha256"));
    sc_cli_show_field(W, "size", "%s%s", s,
                      match == NULL || match->type != SC_JSON_BOOL ? ""
                      : match->boolean ? ", matches the release"
                                       : ", DOES NOT match the release (run scrollcase verify)");
    size_text(u64(a, "totalSizeBytes"), s, sizeof s);
    size_text(u64(a, "compressedSizeBytes"), t, sizeof t);
    sc_cli_show_field(W, "entries", "%llu: %s, %s compressed", u64(a, "entryCount"), s, t);
    const sc_json *box = sc_json_get(a, "box");
    if (box != NULL && box->type == SC_JSON_OBJECT)
        sc_cli_show_field(W, "box.json", "%s %s, model %s, runtime %s", str(box, "boxId"),
                          str(box, "version"), str(box, "modelId"), str(box, "runtimeId"));
    else
        sc_cli_show_field(W, "box.json", "none");
    printf("  %-4s %-7s %12s  %s\n", "mode", "method", "size", "path");
    const sc_json *entries = sc_json_get(a, "entries");
    for (const sc_json *e = entries ? entries->child : NULL; e != NULL; e = e->next) {
        const char *type = str(e, "type");
        printf("  %-4s %-7s %12llu  %s%s", str(e, "mode"), str(e, "method"), u64(e, "sizeBytes"),
               str(e, "path"), strcmp(type, "directory") == 0 ? "/" : "");
        if (strcmp(type, "link") == 0)
            printf(" -> %s", str(e, "linkTarget"));
        printf("\n");
    }
}

static void print_inspection(const sc_json *doc)
{
    const sc_json *r = sc_json_get(doc, "release");
    const sc_json *a = sc_json_get(doc, "archive");
    if (r != NULL && r->type == SC_JSON_OBJECT)
        print_release(r);
    if (a != NULL && a->type == SC_JSON_OBJECT)
        print_archive(a, sc_json_get(doc, "archiveMatchesRelease"));
    else
        printf("archive        not found beside the release (give it with --archive)\n");
}

/* ---- opening one side ------------------------------------------------------------- */

/*
 * Inspect path: an archive as it is, a release verified against trust
 * (required for a release), with archive (NULL: the default beside it).
 * 0 and *out, or the exit status (already reported).
 */
static int inspect_one(const char *path, const char *trust_path, const char *archive,
                       sc_json **out)
{
    sc_error err;
    *out = NULL;
    int is_archive = 0;
    if (sc_inspect_sniff(path, &is_archive, &err) != SC_OK)
        return sc_cli_report(&err);
    if (is_archive) {
        if (archive != NULL)
            return sc_cli_usage_error("%s", "--archive is for a RELEASE: the operand is an archive");
        if (sc_inspect(NULL, path, out, &err) != SC_OK)
            return sc_cli_report(&err);
        return 0;
    }
    if (trust_path == NULL)
        return sc_cli_usage_error("%s", "a RELEASE is inspected after its signature verifies: "
                                        "give --trust TRUSTFILE");
    sc_trust trust;
    memset(&trust, 0, sizeof trust);
    if (sc_trust_read_file(trust_path, &trust, &err) != SC_OK)
        return sc_cli_report(&err);
    sc_release rel;
    memset(&rel, 0, sizeof rel);
    sc_code c = sc_release_open(path, &trust, NULL, &rel, &err);
    sc_trust_free(&trust);
    if (c != SC_OK)
        return sc_cli_report(&err);
    char *arc = NULL;
    if (archive != NULL) {
        arc = strdup(archive);
        if (arc == NULL)
            c = sc_error_set(&err, SC_E_OUT_OF_MEMORY, NULL, "out of memory");
    } else {
        c = sc_release_default_archive(&rel, path, &arc, &err);
    }
    if (c == SC_OK)
        c = sc_inspect(&rel, arc, out, &err);
    free(arc);
    sc_release_free(&rel);
    if (c != SC_OK)
        return sc_cli_report(&err);
    return 0;
}

/* --json names paths as JSON strings: a path that is not UTF-8 is refused. */
static int json_paths_ok(const sc_cli_args *a)
{
    if (!sc_cli_json())
        return 0;
    for (int i = 0; i <= a->npositional; i++) {
        const char *v = i < a->npositional ? a->positional[i] : sc_cli_value(a, OPT_ARCHIVE);
        if (v == NULL || sc_utf8_valid(v, strlen(v)))
            continue;
        char q[512];
        sc_path_quote(v, strlen(v), q, sizeof q);
        sc_error err;
        sc_error_set(&err, SC_E_UNSAFE_PATH, NULL,
                     "the path \"%s\" is not valid UTF-8, so --json cannot name it; rename it "
                     "or run the command without --json", q);
        return sc_cli_report(&err);
    }
    return 0;
}

/* ---- inspect ---------------------------------------------------------------------- */

static int cmd_inspect(sc_cli_args *a)
{
    if (a->npositional != 1)
        return sc_cli_usage_error("%s", "inspect takes one RELEASE or ARCHIVE");
    int rc = json_paths_ok(a);
    if (rc != 0)
        return rc;
    sc_json *doc = NULL;
    rc = inspect_one(a->positional[0], a->trust, sc_cli_value(a, OPT_ARCHIVE), &doc);
    if (rc != 0)
        return rc;
    if (sc_cli_json())
        return sc_cli_print_json(doc);
    print_inspection(doc);
    sc_json_free(doc);
    return fflush(stdout) == 0 ? 0 : EXIT_REJECTED;
}

/* ---- diff ------------------------------------------------------------------------- */

static void print_changes(const char *title, const sc_json *list)
{
    printf("%s\n", title);
    if (list == NULL || list->length == 0) {
        printf("  same\n");
        return;
    }
    for (const sc_json *d = list->child; d != NULL; d = d->next) {
        printf("  %-20s ", str(d, "member"));
        print_compact(sc_json_get(d, "a"));
        printf(" -> ");
        print_compact(sc_json_get(d, "b"));
        printf("\n");
    }
}

static void print_diff(const sc_json *d)
{
    printf("%s\n", sc_json_get(d, "identical")->boolean ? "identical" : "different");
    print_changes("identity", sc_json_get(d, "identity"));
    print_changes("provenance", sc_json_get(d, "provenance"));
    print_changes("gates", sc_json_get(d, "gates"));
    print_changes("release", sc_json_get(d, "release"));
    const sc_json *p = sc_json_get(d, "payload");
    printf("payload\n");
    if (p == NULL || p->type != SC_JSON_OBJECT) {
        printf("  not compared (an archive was not found)\n");
        return;
    }
    char s[96];
    const sc_json *added = sc_json_get(p, "added"), *removed = sc_json_get(p, "removed"),
                  *changed = sc_json_get(p, "changed");
    size_text(u64(p, "addedBytes"), s, sizeof s);
    printf("  %zu added (%s)", added->length, s);
    size_text(u64(p, "removedBytes"), s, sizeof s);
    printf(", %zu removed (%s), %zu changed\n", removed->length, s, changed->length);
    for (const sc_json *e = added->child; e != NULL; e = e->next) {
        size_text(u64(e, "sizeBytes"), s, sizeof s);
        printf("  + %s: %s\n", str(e, "path"), s);
    }
    for (const sc_json *e = removed->child; e != NULL; e = e->next) {
        size_text(u64(e, "sizeBytes"), s, sizeof s);
        printf("  - %s: %s\n", str(e, "path"), s);
    }
    for (const sc_json *e = changed->child; e != NULL; e = e->next) {
        char t[96];
        size_text(u64(sc_json_get(e, "a"), "sizeBytes"), s, sizeof s);
        size_text(u64(sc_json_get(e, "b"), "sizeBytes"), t, sizeof t);
        printf("  ~ %s: %s -> %s, changed:", str(e, "path"), s, t);
        const sc_json *w = sc_json_get(e, "changes");
        for (const sc_json *x = w ? w->child : NULL; x != NULL; x = x->next)
            printf(" %s", sc_json_cstr(x));
        printf("\n");
    }
}

static int cmd_diff(sc_cli_args *a)
{
    if (a->npositional != 2)
        return sc_cli_usage_error("%s", "diff takes two RELEASEs or two ARCHIVEs: A B");
    int rc = json_paths_ok(a);
    if (rc != 0)
        return rc;
    sc_json *da = NULL, *db = NULL;
    rc = inspect_one(a->positional[0], a->trust, NULL, &da);
    if (rc != 0)
        return rc;
    rc = inspect_one(a->positional[1], a->trust, NULL, &db);
    if (rc != 0) {
        sc_json_free(da);
        return rc;
    }
    sc_error err;
    sc_json *d = NULL;
    sc_code c = sc_inspect_diff(da, db, &d, &err);
    sc_json_free(da);
    sc_json_free(db);
    if (c != SC_OK)
        return sc_cli_report(&err);
    if (sc_cli_json())
        return sc_cli_print_json(d);
    print_diff(d);
    sc_json_free(d);
    return fflush(stdout) == 0 ? 0 : EXIT_REJECTED;
}

/* ---- the table ------------------------------------------------------------------- */

const sc_cli_command sc_cli_inspect_commands[] = {
    {"inspect", "consumer", "show what is inside a release or a box archive",
     "Shows a box without extracting it.  For a signed RELEASE (its signature\n"
     "verified against --trust first): identity, target, signing keys, archive,\n"
     "sizes, payload digest, execution, provenance and the gates evidence, then\n"
     "the archive beside it (--archive names another) if it is there: its\n"
     "SHA-256 and whether it matches the release, its sizes, box.json and every\n"
     "entry (mode, method, size, path, link target) in archive order.  For an\n"
     "ARCHIVE: the archive part alone.  The archive passes the reader's checks\n"
     "(docs/format-v3.md 15.2) first; only box.json is read out of it.  This is\n"
     "not verification: run `scrollcase verify` for that.  --json prints one\n"
     "document (docs/schema/cli/inspect.schema.json).\n",
     SC_CLI_OPERANDS({"RELEASE|ARCHIVE", 1, 0, SC_COMPLETE_FILE}),
     SC_CLI_OPTIONS({OPT_TRUST, "the trust file a RELEASE must verify against (required for a release)"},
                    {OPT_ARCHIVE, NULL}, {OPT_JSON, NULL}),
     NULL, 0, cmd_inspect, NULL},
    {"diff", "consumer", "compare two releases or two box archives",
     "Compares A and B, two signed releases (both verified against --trust, each\n"
     "with the archive beside it) or two archives: identity (box, model,\n"
     "runtime, version, target), provenance and gates member by member, the\n"
     "other release members (archive, sizes, payload digest, execution...),\n"
     "then the payload: the paths added, removed and changed (type, size,\n"
     "content by CRC-32, mode, link target) with their sizes, sorted by path.\n"
     "Exits 0 whether or not they differ (\"identical\" says which).  --json\n"
     "prints one document (docs/schema/cli/diff.schema.json).\n",
     SC_CLI_OPERANDS({"A", 1, 0, SC_COMPLETE_FILE}, {"B", 1, 0, SC_COMPLETE_FILE}),
     SC_CLI_OPTIONS({OPT_TRUST, "the trust file both releases must verify against"},
                    {OPT_JSON, NULL}),
     NULL, 0, cmd_diff, NULL},
    SC_CLI_END,
};
