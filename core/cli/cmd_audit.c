/*
 * cmd_audit.c — scrollcase audit cuda.
 *
 * Argument parsing and printing only: the audit is libscrollcase's
 * (audit.h, docs/format-v3.md 19).  Exit status as everywhere: 0 no finding
 * of error severity, 1 a finding of error severity (audit-failed) or a
 * reading failure, 2 a usage error.
 */
#define _POSIX_C_SOURCE 200809L

#include "commands.h"

#include "args.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scrollcase/audit.h"
#include "scrollcase/config.h"
#include "scrollcase/error.h"
#include "scrollcase/file.h"
#include "scrollcase/json.h"
#include "scrollcase/scroll.h"
#include "scrollcase/target.h"

static const char audit_help[] =
    "usage: scrollcase audit cuda SCROLL [--json] [workspace options]\n"
    "\n"
    "Audits the solve of one scroll for its CUDA ABI (docs/format-v3.md 19):\n"
    "pixi.toml (platforms, [system-requirements] cuda, the cuda-version pin)\n"
    "and pixi.lock (CPU or other-CUDA conda builds, the locked cuda-version,\n"
    "wheel tags against the target's CUDA, the locked Python and torch,\n"
    "nvidia-*-cuN runtime wheels, torch side-car drift).  SCROLL is a\n"
    "reference <boxId>/<targetId> in the workspace's scrolls directory, or the\n"
    "path of a target directory (or of its scroll.json); pixi.toml and\n"
    "pixi.lock are read from that directory.  For a target that is not CUDA\n"
    "only the platform and wheel checks run.\n"
    "\n"
    "Prints one line per finding (severity, code, package, evidence); --json\n"
    "prints {findings: [...], errors, warnings}.  Exits 0 when no finding is\n"
    "an error (warnings allowed), 1 with audit-failed when one is, or with the\n"
    "code of a file that cannot be read (invalid-pixi-toml, invalid-lock, ...),\n"
    "2 for a usage error.\n";

const char *sc_cli_audit_summary(void)
{
    return "  audit cuda SCROLL [--json]    audit a scroll's pixi solve for its CUDA ABI\n";
}

int sc_cli_audit_help(const char *cmd)
{
    if (cmd == NULL || strcmp(cmd, "audit") != 0)
        return -1;
    fputs(audit_help, stdout);
    return 0;
}

/* The last path component of p (p is modified). */
static char *last_component(char *p)
{
    size_t n = strlen(p);
    while (n > 1 && p[n - 1] == '/')
        p[--n] = '\0';
    char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

/*
 * Load the scroll SCROLL names: a directory holding scroll.json (or that
 * file) is loaded from its scrolls directory, two levels up, by its
 * <box>/<target> names; anything else is a workspace reference.  *dir gets
 * the scroll's directory (malloc'd).
 */
static sc_code load_scroll(const sc_cli_args *a, const char *arg, sc_scroll **out, char **dir,
                           sc_error *err)
{
    *out = NULL;
    *dir = NULL;
    char real[PATH_MAX];
    int is_path = 0;
    if (sc_is_dir(arg)) {
        char *f = sc_path_join(arg, "scroll.json");
        if (f == NULL)
            return sc_error_set(err, SC_E_OUT_OF_MEMORY, NULL, "out of memory");
        is_path = sc_is_file(f) && realpath(arg, real) != NULL;
        free(f);
    } else if (sc_is_file(arg)) {
        char *copy = strdup(arg);
        if (copy == NULL)
            return sc_error_set(err, SC_E_OUT_OF_MEMORY, NULL, "out of memory");
        char *slash = strrchr(copy, '/');
        const char *parent = ".";
        if (slash != NULL) {
            *slash = '\0';
            parent = copy[0] ? copy : "/";
        }
        is_path = realpath(parent, real) != NULL;
        free(copy);
    }
    if (is_path) {
        char tdir[PATH_MAX], bdir[PATH_MAX];
        snprintf(tdir, sizeof tdir, "%s", real);
        const char *target = last_component(tdir);
        snprintf(bdir, sizeof bdir, "%s", real);
        char *cut = strrchr(bdir, '/');
        if (cut == NULL || cut == bdir)
            return sc_error_set(err, SC_E_INVALID_REFERENCE, arg,
                                "%s is not <scrolls>/<boxId>/<targetId>", arg);
        *cut = '\0';
        char box_copy[PATH_MAX];
        snprintf(box_copy, sizeof box_copy, "%s", bdir);
        const char *box = last_component(box_copy);
        char *up = strrchr(bdir, '/');
        if (up == NULL)
            return sc_error_set(err, SC_E_INVALID_REFERENCE, arg,
                                "%s is not <scrolls>/<boxId>/<targetId>", arg);
        *up = '\0';
        const char *scrolls = bdir[0] ? bdir : "/";
        char ref[2 * PATH_MAX];
        snprintf(ref, sizeof ref, "%s/%s", box, target);
        sc_code c = sc_scroll_load(scrolls, ref, out, err);
        if (c != SC_OK)
            return c;
        *dir = strdup(real);
        return *dir ? SC_OK : sc_error_set(err, SC_E_OUT_OF_MEMORY, NULL, "out of memory");
    }
    sc_workspace ws;
    sc_code c = sc_workspace_resolve(&a->ws, &ws, err);
    if (c != SC_OK)
        return c;
    c = sc_scroll_load(ws.paths[SC_WS_SCROLLS], arg, out, err);
    if (c == SC_OK) {
        *dir = sc_path_join(ws.paths[SC_WS_SCROLLS], arg);
        if (*dir == NULL)
            c = sc_error_set(err, SC_E_OUT_OF_MEMORY, NULL, "out of memory");
    }
    sc_workspace_free(&ws);
    return c;
}

static int cmd_audit(sc_cli_args *a)
{
    if (a->npositional < 1 || strcmp(a->positional[0], "cuda") != 0)
        return sc_cli_usage_error("%s", "audit takes the subcommand cuda");
    if (a->npositional < 2)
        return sc_cli_usage_error("%s", "audit cuda needs a scroll (reference or directory)");
    if (a->npositional > 2)
        return sc_cli_usage_error("unexpected argument %s", a->positional[2]);
    const char *arg = a->positional[1];
    sc_error err;
    sc_scroll *s = NULL;
    char *dir = NULL;
    if (load_scroll(a, arg, &s, &dir, &err) != SC_OK) {
        sc_scroll_free(s);
        return sc_cli_report(&err);
    }
    char *toml = sc_path_join(dir, "pixi.toml");
    char *lock = sc_path_join(dir, "pixi.lock");
    sc_audit_report rep;
    memset(&rep, 0, sizeof rep);
    sc_code c = toml && lock ? sc_audit_files(&s->target, toml, lock, &rep, &err)
                             : sc_error_set(&err, SC_E_OUT_OF_MEMORY, NULL, "out of memory");
    free(toml);
    free(lock);
    free(dir);
    char tid[SC_TARGET_ID_MAX];
    sc_target_id(&s->target, tid, sizeof tid);
    sc_scroll_free(s);
    if (c != SC_OK) {
        sc_audit_report_free(&rep);
        return sc_cli_report(&err);
    }
    int rc = 0;
    if (a->given & OPT_JSON) {
        rc = sc_cli_print_json(sc_audit_report_json(&rep, 1));
    } else {
        for (size_t i = 0; i < rep.count; i++) {
            const sc_audit_finding *f = &rep.findings[i];
            printf("%-7s %s %s: %s\n", sc_audit_severity_name(f->severity),
                   sc_audit_code_name(f->code), f->package[0] ? f->package : "-", f->evidence);
        }
        printf("%s: %zu error(s), %zu warning(s)\n", tid, rep.errors, rep.warnings);
        if (fflush(stdout) != 0)
            rc = EXIT_REJECTED;
    }
    if (rc == 0 && rep.errors > 0) {
        sc_error_set(&err, SC_E_AUDIT_FAILED, NULL, "CUDA audit of %s (%s): %zu error finding(s)",
                     arg, tid, rep.errors);
        rc = sc_cli_report(&err);
    }
    sc_audit_report_free(&rep);
    return rc;
}

int sc_cli_audit_dispatch(int argc, char **argv, int *status)
{
    int at = sc_cli_command_index(argc, argv);
    if (at == 0 || strcmp(argv[at], "audit") != 0)
        return 0;
    sc_cli_args a;
    memset(&a, 0, sizeof a);
    int rc = sc_cli_parse(argc, argv, at, OPT_JSON, &a);
    if (rc != 0)
        *status = rc;
    else if (a.help)
        *status = sc_cli_audit_help("audit");
    else
        *status = cmd_audit(&a);
    return 1;
}
