/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cmd_inspect.c — scrollcase inspect and diff: printing only; the
 * inspection and the comparison are libscrollcase's (inspect.h).
 */
#include "commands.h"

#include "args.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "scrollcase/box.h"
#include "scrollcase/config.h"
#include "scrollcase/inspect.h"
#include "scrollcase/keys.h"
#include "scrollcase/progress.h"
#include "scrollcase/trust.h"

/* Whether path starts like a ZIP archive ("PK\3\4" or an empty one's "PK\5\6"). */
static int is_archive(const char *path)
{
    unsigned char m[4] = {0};
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return 0;
    ssize_t n = read(fd, m, sizeof m);
    close(fd);
    return n == 4 && m[0] == 'P' && m[1] == 'K' && ((m[2] == 3 && m[3] == 4) || (m[2] == 5 && m[3] == 6));
}

/* The trust file: --trust, else the workspace's public key (as verify). */
static sc_code trust_path(const sc_cli_args *a, char **out, sc_error *err)
{
    *out = NULL;
    if (a->trust != NULL) {
        *out = strdup(a->trust);
        return *out ? SC_OK : sc_error_set(err, SC_E_OUT_OF_MEMORY, NULL, "out of memory");
    }
    sc_workspace ws;
    sc_key_paths kp = {NULL, NULL};
    sc_code c = sc_workspace_resolve(&a->ws, &ws, err);
    if (c == SC_OK) {
        c = sc_key_paths_in(ws.paths[SC_WS_KEYS], &kp, err);
        sc_workspace_free(&ws);
    }
    if (c == SC_OK) {
        *out = kp.public_path;
        kp.public_path = NULL;
    }
    sc_key_paths_free(&kp);
    return c;
}

/*
 * Inspect one operand: an archive as it is, a release verified (its archive
 * given by archive_opt, else the default beside it when that exists).
 */
static sc_code inspect_one(const sc_cli_args *a, const char *path, const char *archive_opt,
                           sc_json **out, sc_error *err)
{
    if (is_archive(path))
        return sc_inspect_archive(path, out, err);
    char *tp = NULL;
    sc_code c = trust_path(a, &tp, err);
    sc_trust trust;
    memset(&trust, 0, sizeof trust);
    if (c == SC_OK)
        c = sc_trust_read_file(tp, &trust, err);
    free(tp);
    if (c != SC_OK)
        return c;
    sc_release rel;
    memset(&rel, 0, sizeof rel);
    c = sc_release_open(path, &trust, NULL, &rel, err);
    char *archive = NULL;
    if (c == SC_OK && archive_opt != NULL) {
        archive = strdup(archive_opt);
        if (archive == NULL)
            c = sc_error_set(err, SC_E_OUT_OF_MEMORY, NULL, "out of memory");
    } else if (c == SC_OK) {
        sc_error ignored;
        struct stat st;
        if (sc_release_default_archive(&rel, path, &archive, &ignored) != SC_OK ||
            stat(archive, &st) != 0) {
            free(archive);
            archive = NULL; /* no archive beside it: the release alone */
        }
    }
    if (c == SC_OK)
        c = sc_inspect_release(&rel, path, archive, out, err);
    free(archive);
    sc_release_free(&rel);
    sc_trust_free(&trust);
    return c;
}

static const char *str(const sc_json *o, const char *k)
{
    const char *s = sc_json_cstr(sc_json_get(o, k));
    return s ? s : "?";
}

static uint64_t num(const sc_json *o, const char *k)
{
    const sc_json *v = sc_json_get(o, k);
    return v && v->type == SC_JSON_NUMBER && v->number > 0 ? (uint64_t)v->number : 0;
}

static void print_compact(const char *label, const sc_json *v)
{
    char *text = NULL;
    size_t len = 0;
    sc_error err;
    if (v != NULL && sc_json_write_compact(v, &text, &len, &err) == SC_OK)
        printf("  %-11s%.*s\n", label, (int)len, text);
    else
        printf("  %-11snone\n", label);
    free(text);
}

static void print_archive(const sc_json *x)
{
    char total[64], packed[64];
    sc_progress_human_size(num(x, "totalSizeBytes"), total, sizeof total);
    sc_progress_human_size(num(x, "compressedSizeBytes"), packed, sizeof packed);
    printf("archive %s: %llu entries, %s, %s compressed\n", str(x, "archivePath"),
           (unsigned long long)num(x, "entryCount"), total, packed);
    const sc_json *box = sc_json_get(x, "box");
    if (box != NULL && box->type == SC_JSON_OBJECT)
        printf("  box.json   %s %s %s\n", str(box, "boxId"), str(box, "version"),
               str(box, "targetId"));
    for (const sc_json *e = sc_json_get(x, "entries") ? sc_json_get(x, "entries")->child : NULL;
         e != NULL; e = e->next) {
        const char *type = str(e, "type");
        printf("  %s %-7s %12llu  %s%s%s%s\n", str(e, "mode"), str(e, "method"),
               (unsigned long long)num(e, "sizeBytes"), str(e, "path"),
               strcmp(type, "directory") == 0 ? "/" : "",
               strcmp(type, "link") == 0 ? " -> " : "",
               strcmp(type, "link") == 0 ? str(e, "linkTarget") : "");
    }
}

static void print_inspection(const sc_json *x)
{
    if (sc_json_get(x, "releasePath") == NULL) {
        print_archive(x);
        return;
    }
    printf("release %s %s %s (%s)\n", str(x, "boxId"), str(x, "version"), str(x, "targetId"),
           str(x, "kind"));
    printf("  %-11s%s (runtime %s)\n", "model", str(x, "modelId"), str(x, "runtimeId"));
    printf("  %-11s", "signed by");
    for (const sc_json *k = sc_json_get(x, "signingKeyIds")->child; k != NULL; k = k->next)
        printf("%s%s", sc_json_cstr(k), k->next ? ", " : "\n");
    const sc_json *arch = sc_json_get(x, "archive");
    char size[64], inst[64];
    sc_progress_human_size(num(arch, "sizeBytes"), size, sizeof size);
    sc_progress_human_size(num(x, "installedSizeBytes"), inst, sizeof inst);
    printf("  %-11s%s, sha256 %s\n", "archive", size, str(arch, "sha256"));
    printf("  %-11s%s, payload digest %s\n", "installed", inst, str(x, "payloadDigest"));
    print_compact("provenance", sc_json_get(x, "provenance"));
    print_compact("gates", sc_json_get(x, "gates"));
    const sc_json *contents = sc_json_get(x, "contents");
    if (contents != NULL)
        print_archive(contents);
    else
        printf("(no archive beside the release: --archive FILE lists its entries)\n");
}

static int cmd_inspect(sc_cli_args *a)
{
    sc_json *x = NULL;
    sc_error err;
    if (inspect_one(a, a->positional[0], sc_cli_value(a, OPT_ARCHIVE), &x, &err) != SC_OK)
        return sc_cli_report(&err);
    if (sc_cli_json())
        return sc_cli_print_json(x);
    print_inspection(x);
    sc_json_free(x);
    return fflush(stdout) == 0 ? 0 : EXIT_REJECTED;
}

static void print_value(const sc_json *v)
{
    char *text = NULL;
    size_t len = 0;
    sc_error err;
    if (v != NULL && sc_json_write_compact(v, &text, &len, &err) == SC_OK)
        printf("%.*s", (int)len, text);
    free(text);
}

static int cmd_diff(sc_cli_args *a)
{
    sc_json *x = NULL, *y = NULL, *d = NULL;
    sc_error err;
    sc_code c = inspect_one(a, a->positional[0], NULL, &x, &err);
    if (c == SC_OK)
        c = inspect_one(a, a->positional[1], NULL, &y, &err);
    if (c == SC_OK)
        c = sc_inspect_diff(x, y, &d, &err);
    sc_json_free(x);
    sc_json_free(y);
    if (c != SC_OK)
        return sc_cli_report(&err);
    if (sc_cli_json())
        return sc_cli_print_json(d);
    for (const sc_json *e = sc_json_get(d, "changed")->child; e != NULL; e = e->next) {
        printf("changed  %s: ", str(e, "field"));
        print_value(sc_json_get(e, "a"));
        printf(" -> ");
        print_value(sc_json_get(e, "b"));
        printf("\n");
    }
    const char *lists[] = {"added", "removed"};
    for (int l = 0; l < 2; l++)
        for (const sc_json *e = sc_json_get(d, lists[l])->child; e != NULL; e = e->next) {
            char size[64];
            sc_progress_human_size(num(e, "sizeBytes"), size, sizeof size);
            printf("%-8s %s, %s\n", lists[l], str(e, "path"), size);
        }
    for (const sc_json *e = sc_json_get(d, "modified")->child; e != NULL; e = e->next) {
        printf("modified %s: ", str(e, "path"));
        print_value(sc_json_get(e, "a"));
        printf(" -> ");
        print_value(sc_json_get(e, "b"));
        printf("\n");
    }
    const sc_json *same = sc_json_get(d, "same");
    if (same != NULL && same->boolean)
        printf("same: no difference in identity, provenance, gates, sizes or entries\n");
    sc_json_free(d);
    return fflush(stdout) == 0 ? 0 : EXIT_REJECTED;
}

const sc_cli_command sc_cli_inspect_commands[] = {
    {"inspect", "consumer", "what a release or an archive holds, without extracting",
     "Shows a signed release RELEASE (verified against --trust, by default the\n"
     "workspace's public key): identity, target, signing keys, archive and\n"
     "installed sizes, provenance and gates evidence; and the entry list of its\n"
     "archive (--archive, else the one beside it when there is one): mode,\n"
     "method, size, path and link target.  ARCHIVE (a file that starts like a\n"
     "ZIP) is shown alone, with its box.json.  The archive is inspected as\n"
     "verify inspects it; nothing is extracted or written.\n",
     SC_CLI_OPERANDS({"RELEASE|ARCHIVE", 1, 0, SC_COMPLETE_FILE}),
     SC_CLI_OPTIONS({OPT_TRUST, "the trust file (default: the workspace's <keys>/signing-public.json)"},
                    {OPT_ARCHIVE, NULL}, {OPT_JSON, NULL}),
     NULL, 0, cmd_inspect, SC_CLI_ALIASES({"--public-key", OPT_TRUST})},
    {"diff", "consumer", "how two releases (or archives) differ",
     "Inspects A and B as `inspect` does (releases verified, each with the\n"
     "archive beside it when there is one) and prints what differs: identity,\n"
     "signing keys, provenance, gates and sizes (\"changed\"), then the payload\n"
     "paths added, removed and modified (size, mode, method, type or link\n"
     "target), in byte order of the paths, with their sizes; \"same\" when\n"
     "nothing differs.  Exit 0 either way; 1 when A or B cannot be inspected.\n",
     SC_CLI_OPERANDS({"A", 1, 0, SC_COMPLETE_FILE}, {"B", 1, 0, SC_COMPLETE_FILE}),
     SC_CLI_OPTIONS({OPT_TRUST, "the trust file (default: the workspace's <keys>/signing-public.json)"},
                    {OPT_JSON, NULL}),
     NULL, 0, cmd_diff, SC_CLI_ALIASES({"--public-key", OPT_TRUST})},
    SC_CLI_END,
};
