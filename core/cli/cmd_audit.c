/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cmd_audit.c — scrollcase audit cuda, scrollcase audit binaries, and
 * scrollcase audit (licences).
 *
 * Argument parsing and printing only: the CUDA audit is libscrollcase's
 * (audit.h, docs/format-v3.md 19), the licence inventory too (licenses.h,
 * 10.7, 20.4).  Exit status as everywhere: 0 no finding of error severity /
 * the inventory matches its review, 1 a finding of error severity
 * (audit-failed), a licence mismatch (license-audit-mismatch) or a reading
 * failure, 2 a usage error.
 */
#define _POSIX_C_SOURCE 200809L

#include "commands.h"

#include "args.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scrollcase/audit.h"
#include "scrollcase/cuda_binaries.h"
#include "scrollcase/remedy.h"
#include "scrollcase/config.h"
#include "scrollcase/error.h"
#include "scrollcase/file.h"
#include "scrollcase/json.h"
#include "scrollcase/digest.h"
#include "scrollcase/licenses.h"
#include "scrollcase/pixi_lock.h"
#include "scrollcase/progress.h"
#include "scrollcase/scroll_edit.h"
#include "scrollcase/scroll.h"
#include "scrollcase/target.h"

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

static int cmd_licenses(sc_cli_args *a);

static int cmd_audit(sc_cli_args *a)
{
    if (a->npositional < 1)
        return sc_cli_usage_error("%s", "audit needs a scroll (or the subcommand cuda)");
    if (strcmp(a->positional[0], "cuda") != 0)
        return cmd_licenses(a);
    if ((sc_cli_has(a, OPT_WRITE) || sc_cli_has(a, OPT_NAMESPACE) || sc_cli_has(a, OPT_TARGET)))
        return sc_cli_usage_error("%s", "audit cuda takes only --json and workspace options");
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
    if (sc_cli_has(a, OPT_JSON) && rep.errors > 0) {
        sc_error_set(&err, SC_E_AUDIT_FAILED, NULL, "CUDA audit of %s (%s): %zu error finding(s)",
                     arg, tid, rep.errors);
        rc = sc_cli_fail_json(sc_audit_report_json(&rep, 1), &err);
        sc_audit_report_free(&rep);
        return rc;
    } else if (sc_cli_has(a, OPT_JSON)) {
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

/* ---- audit SCROLL: licences ------------------------------------------------ */

typedef struct licence_count {
    const char *licence;
    size_t n;
} licence_count;

static int cmp_count(const void *x, const void *y)
{
    const licence_count *a = x, *b = y;
    if (a->n != b->n)
        return a->n > b->n ? -1 : 1;
    return strcmp(a->licence, b->licence);
}

/* "N packages for <scrollId> (<targetId>)" and a count per licence. */
static int print_summary(const sc_json *inv, const char *scroll_id, const char *tid)
{
    const sc_json *pk = sc_json_get(inv, "packages");
    size_t n = pk ? pk->length : 0;
    licence_count *c = calloc(n ? n : 1, sizeof *c);
    if (c == NULL) {
        sc_error err;
        sc_error_set(&err, SC_E_OUT_OF_MEMORY, NULL, "out of memory");
        return sc_cli_report(&err);
    }
    size_t used = 0;
    for (size_t i = 0; i < n; i++) {
        const char *l = sc_json_cstr(sc_json_get(sc_json_at(pk, i), "declaredLicense"));
        size_t j = 0;
        while (j < used && strcmp(c[j].licence, l) != 0)
            j++;
        if (j == used)
            c[used++].licence = l;
        c[j].n++;
    }
    qsort(c, used, sizeof *c, cmp_count);
    printf("%zu package%s for %s (%s)\n", n, n == 1 ? "" : "s", scroll_id, tid);
    for (size_t j = 0; j < used; j++)
        printf("  %5zu  %s\n", c[j].n, c[j].licence);
    free(c);
    return 0;
}

/* path relative to root when it lies inside it (malloc'd), else NULL. */
static char *relative_to(const char *root, const char *path)
{
    char r[PATH_MAX], p[PATH_MAX];
    if (realpath(root, r) == NULL || realpath(path, p) == NULL)
        return NULL;
    size_t n = strlen(r);
    if (strncmp(p, r, n) != 0 || p[n] != '/')
        return NULL;
    return strdup(p + n + 1);
}

static int cmd_licenses(sc_cli_args *a)
{
    if (a->npositional > 1)
        return sc_cli_usage_error("unexpected argument %s", a->positional[1]);
    const char *arg = a->positional[0];
    const char *want_target = sc_cli_value(a, OPT_TARGET);
    sc_error err;
    sc_workspace ws;
    memset(&ws, 0, sizeof ws);
    if (sc_workspace_resolve(&a->ws, &ws, &err) != SC_OK)
        return sc_cli_report(&err);

    /* <boxId> alone: --target, or the box's only target */
    char *ref = NULL;
    if (strchr(arg, '/') == NULL && !sc_is_dir(arg)) {
        if (want_target != NULL) {
            ref = malloc(strlen(arg) + strlen(want_target) + 2);
            if (ref != NULL)
                sprintf(ref, "%s/%s", arg, want_target);
        } else {
            sc_scroll_ref_list l = {NULL, 0};
            if (sc_scroll_list_refs(ws.paths[SC_WS_SCROLLS], arg, &l, &err) != SC_OK) {
                sc_workspace_free(&ws);
                return sc_cli_report(&err);
            }
            if (l.count != 1) {
                sc_scroll_ref_list_free(&l);
                sc_workspace_free(&ws);
                return sc_cli_usage_error("box %s has several targets: choose one with --target",
                                          arg);
            }
            ref = strdup(l.refs[0]);
            sc_scroll_ref_list_free(&l);
        }
        if (ref == NULL) {
            sc_workspace_free(&ws);
            sc_error_set(&err, SC_E_OUT_OF_MEMORY, NULL, "out of memory");
            return sc_cli_report(&err);
        }
        arg = ref;
    } else if (want_target != NULL) {
        sc_workspace_free(&ws);
        return sc_cli_usage_error("%s", "--target goes with a box id, not a full reference");
    }

    sc_scroll *s = NULL;
    char *dir = NULL;
    sc_code c = load_scroll(a, arg, &s, &dir, &err);
    char *lock_path = c == SC_OK ? sc_path_join(dir, "pixi.lock") : NULL;
    if (c == SC_OK && lock_path == NULL)
        c = sc_error_set(&err, SC_E_OUT_OF_MEMORY, NULL, "out of memory");
    if (c == SC_OK && !sc_is_file(lock_path))
        c = sc_error_set(&err, SC_E_MISSING_LOCK, lock_path,
                         "%s has no pixi.lock: run `" SC_REMEDY_LOCK "` first", dir);
    sc_pixi_lock *lock = NULL;
    unsigned char md[SC_SHA256_LEN];
    char lock_hex[65];
    if (c == SC_OK)
        c = sc_sha256_file(lock_path, md, &err);
    if (c == SC_OK) {
        sc_hex_lower(md, SC_SHA256_LEN, lock_hex);
        c = sc_pixi_lock_read(lock_path, &lock, &err);
    }
    sc_json *inv = NULL;
    if (c == SC_OK)
        c = sc_license_inventory(lock, &s->target, lock_hex, sc_cli_value(a, OPT_NAMESPACE), &inv,
                                 &err);
    sc_pixi_lock_free(lock);
    free(lock_path);

    char tid[SC_TARGET_ID_MAX];
    const char *declared = NULL;
    const char *scroll_id = NULL;
    if (c == SC_OK) {
        sc_target_id(&s->target, tid, sizeof tid);
        declared = sc_json_cstr(sc_json_get(s->effective, "condaDependencyLicenseAudit"));
        scroll_id = sc_json_cstr(sc_json_get(s->effective, "scrollId"));
    }
    char *reviewed = NULL;
    char *record = NULL; /* the declaration --write adds */
    if (c == SC_OK && declared != NULL) {
        reviewed = sc_path_join(ws.root, declared);
    } else if (c == SC_OK && (sc_cli_has(a, OPT_WRITE))) {
        reviewed = sc_path_join(dir, "conda-licenses.json");
        char *rel_dir = reviewed ? relative_to(ws.root, dir) : NULL;
        if (rel_dir == NULL) {
            c = sc_error_set(&err, SC_E_USAGE, dir,
                             "%s is outside the project root %s: declare "
                             "condaDependencyLicenseAudit with scrollcase edit scroll",
                             dir, ws.root);
        } else {
            record = malloc(strlen(rel_dir) + sizeof "/conda-licenses.json");
            if (record != NULL)
                sprintf(record, "%s/conda-licenses.json", rel_dir);
            else
                c = sc_error_set(&err, SC_E_OUT_OF_MEMORY, NULL, "out of memory");
        }
        free(rel_dir);
    }
    if (c == SC_OK && (declared != NULL || (sc_cli_has(a, OPT_WRITE))) && reviewed == NULL)
        c = sc_error_set(&err, SC_E_OUT_OF_MEMORY, NULL, "out of memory");

    if (c == SC_OK && (sc_cli_has(a, OPT_WRITE))) {
        if (record == NULL) {
            c = sc_json_write_file(inv, reviewed, 0644, &err);
        } else { /* the file and its declaration: one edit */
            sc_author_ctx ctx;
            memset(&ctx, 0, sizeof ctx);
            ctx.scrolls_dir = ws.paths[SC_WS_SCROLLS];
            ctx.project_root = ws.root;
            ctx.target = tid;
            char *text = NULL;
            size_t text_len = 0;
            c = sc_json_write(inv, &text, &text_len, &err);
            if (c == SC_OK)
                c = sc_author_write_and_declare(&ctx, s->box_id, reviewed, text, text_len,
                                                "condaDependencyLicenseAudit", record, &err);
            free(text);
        }
    } else if (c == SC_OK && reviewed != NULL) {
        c = sc_license_gate(inv, reviewed, NULL, &err);
    }

    int rc = 0;
    if (inv != NULL && (c == SC_OK || c == SC_E_LICENSE_AUDIT_MISMATCH)) {
        if (sc_cli_has(a, OPT_JSON)) {
            /* {"inventory": the inventory document, "reviewed": its file or null,
               "wrote": bool}, the error beside them on a mismatch */
            sc_json *body = sc_json_new_object();
            int bad = body == NULL || sc_json_object_append(body, "inventory", inv);
            inv = NULL;
            bad |= body && sc_json_object_append(body, "reviewedPath",
                                                 reviewed ? sc_json_new_string(reviewed)
                                                          : sc_json_new_null());
            bad |= body && sc_json_object_append(body, "wrote",
                                                 sc_json_new_bool(c == SC_OK &&
                                                                  sc_cli_has(a, OPT_WRITE)));
            if (bad) {
                sc_json_free(body);
                body = NULL;
            }
            if (c == SC_OK) {
                rc = sc_cli_print_json(body);
            } else {
                rc = sc_cli_fail_json(body, &err);
                c = SC_OK; /* reported */
            }
        } else {
            rc = print_summary(inv, scroll_id ? scroll_id : arg, tid);
            if (c == SC_OK && (sc_cli_has(a, OPT_WRITE)))
                printf("Wrote %s%s\n", reviewed, record ? " and declared it in the scroll" : "");
            else if (c == SC_OK && reviewed != NULL)
                printf("Matches the reviewed audit %s\n", reviewed);
            else if (c == SC_OK)
                printf("No reviewed audit declared (condaDependencyLicenseAudit); "
                       "--write creates one\n");
        }
        if (fflush(stdout) != 0 && rc == 0)
            rc = EXIT_REJECTED;
    }
    if (c != SC_OK)
        rc = sc_cli_report(&err);
    sc_json_free(inv);
    free(reviewed);
    free(record);
    free(dir);
    free(ref);
    sc_scroll_free(s);
    sc_workspace_free(&ws);
    return rc;
}

/* ---- audit binaries PATH ------------------------------------------------------ */

/* The CUDA sonames a file ships (its DT_SONAME) and needs, for the table. */
static void print_cuda_sonames(const sc_cuda_binaries *r, const sc_cuda_binary *f, int shipped,
                               char *buf, size_t size)
{
    size_t used = 0;
    buf[0] = '\0';
    const char *const *names = shipped ? (const char *const *)&f->elf.soname
                                       : (const char *const *)f->elf.needed;
    size_t n = shipped ? (f->elf.soname != NULL) : f->elf.needed_count;
    for (size_t i = 0; i < n; i++) {
        const sc_cuda_library *l = sc_cuda_binaries_library(r, names[i]);
        if (l == NULL || l->rule == NULL)
            continue;
        int w = snprintf(buf + used, size - used, "%s%s", used ? " " : "", names[i]);
        if (w < 0 || (size_t)w >= size - used)
            break;
        used += (size_t)w;
    }
    if (used == 0)
        snprintf(buf, size, "-");
}

static void print_codes(const sc_cuda_code_count *codes, size_t n, int kind, const char *none)
{
    size_t shown = 0;
    for (size_t i = 0; i < n; i++) {
        if (kind != 0 && (int)codes[i].code.kind != kind)
            continue;
        char name[32];
        sc_cuda_code_name(&codes[i].code, name, sizeof name);
        printf("%s%s", shown++ ? " " : "", name);
    }
    if (shown == 0)
        printf("%s", none);
}

static void print_binaries(const sc_cuda_binaries *r, const char *root)
{
    size_t other = 0;
    printf("%-44s %-24s %-32s %s\n", "FILE", "SHIPS", "NEEDS (CUDA)", "DEVICE CODE");
    for (size_t i = 0; i < r->file_count; i++) {
        const sc_cuda_binary *f = &r->files[i];
        if (f->error != NULL) {
            printf("%-44s unreadable: %s\n", f->path, f->error);
            continue;
        }
        char ships[256], needs[512];
        print_cuda_sonames(r, f, 1, ships, sizeof ships);
        print_cuda_sonames(r, f, 0, needs, sizeof needs);
        if (f->code_count == 0 && strcmp(ships, "-") == 0 && strcmp(needs, "-") == 0) {
            other++;
            continue;
        }
        printf("%-44s %-24s %-32s ", f->path, ships, needs);
        print_codes(f->codes, f->code_count, 0, "-");
        printf("\n");
    }
    char size[64];
    sc_progress_human_size(r->elf_bytes, size, sizeof size);
    printf("%s: %zu ELF file(s) (%s) of %zu regular file(s); %zu with device code, %zu "
           "unreadable, %zu without anything of CUDA (not listed)\n",
           root, r->file_count, size, r->regular_files, r->device_code_files, r->unreadable,
           other);
    printf("cubins: ");
    print_codes(r->codes, r->code_count, SC_FATBIN_CUBIN, "none");
    printf("\nPTX: ");
    print_codes(r->codes, r->code_count, SC_FATBIN_PTX, "none");
    unsigned majors[16];
    size_t nm = sc_cuda_binaries_majors(r, majors, 16);
    printf("\nCUDA majors (sonames that follow CUDA's): ");
    for (size_t i = 0; i < nm && i < 16; i++)
        printf("%s%u", i ? " " : "", majors[i]);
    printf("%s\n", nm == 0 ? "none" : "");
    for (size_t i = 0; i < r->library_count; i++) {
        const sc_cuda_library *l = &r->libraries[i];
        if (l->rule == NULL)
            continue;
        printf("  %-36s %-26s %-13s %s%s%s\n", l->soname, l->rule->component,
               sc_cuda_soname_class_name(l->rule->soname_class),
               l->shipped_by != NULL ? "shipped by " : "needed, not shipped",
               l->shipped_by != NULL ? l->shipped_by : "",
               l->rule->soname_class == SC_CUDA_SONAME_DRIVER && l->shipped_by == NULL
                   ? " (from the host's driver)"
                   : "");
        if (l->rule->device_code_hidden)
            printf("  %-36s device code not all visible: %s\n", "", l->rule->hidden_why);
    }
}

static int cmd_audit_binaries(sc_cli_args *a)
{
    if (a->npositional < 2)
        return sc_cli_usage_error("%s", "audit binaries needs a PATH (a directory, a box archive or a file)");
    if (a->npositional > 2)
        return sc_cli_usage_error("unexpected argument %s", a->positional[2]);
    const char *root = a->positional[1];
    unsigned jobs = 0;
    int jrc = sc_cli_jobs(a, &jobs);
    if (jrc != 0)
        return jrc;
    sc_cuda_binaries r;
    sc_error err;
    if (sc_cuda_binaries_audit_jobs(root, jobs, &r, &err) != SC_OK)
        return sc_cli_report(&err);
    int rc = 0;
    if (sc_cli_json()) {
        sc_json *j = NULL;
        if (sc_cuda_binaries_to_json(&r, root, &j, &err) != SC_OK)
            rc = sc_cli_report(&err);
        else
            rc = sc_cli_print_json(j);
    } else {
        print_binaries(&r, root);
        if (fflush(stdout) != 0)
            rc = EXIT_REJECTED;
    }
    sc_cuda_binaries_free(&r);
    return rc;
}

const sc_cli_command sc_cli_audit_commands[] = {
    {"audit", "author", "licence inventory of a scroll's lock against its review",
     "The licence inventory of the scroll's pixi.lock (docs/format-v3.md 10.7,\n"
     "20.4): every package the default environment locks for the target's\n"
     "platform, sorted by name then version.  A package without a licence, or\n"
     "with UNKNOWN, fails with license-audit-mismatch.  Prints \"N packages for\n"
     "<scrollId> (<targetId>)\" and a count per licence (--json: the inventory\n"
     "document).  Without --write the inventory is compared with the reviewed\n"
     "file the scroll declares in condaDependencyLicenseAudit (relative to the\n"
     "project root); a difference or a missing file is license-audit-mismatch.\n"
     "--write writes the inventory there instead; when the scroll declares none\n"
     "it writes <target directory>/conda-licenses.json and records that path in\n"
     "the target's scroll.json.  SCROLL is <boxId>/<targetId>, <boxId> with\n"
     "--target (or with a single target), or a target directory.  The build's\n"
     "gate always uses the namespace scrollcase.box (--namespace only changes\n"
     "what this command prints or writes).\n",
     SC_CLI_OPERANDS({"SCROLL", 1, 0, SC_COMPLETE_NONE}),
     SC_CLI_OPTIONS({OPT_TARGET, NULL}, {OPT_WRITE, "write the inventory instead of comparing"},
                    {OPT_NAMESPACE, NULL}, {OPT_JSON, NULL}),
     NULL, 0, cmd_audit, NULL},
    {"audit cuda", "author", "audit a scroll's pixi solve for its CUDA ABI",
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
     "2 for a usage error.\n",
     SC_CLI_OPERANDS({"SCROLL", 1, 0, SC_COMPLETE_NONE}),
     SC_CLI_OPTIONS({OPT_JSON, NULL}),
     NULL, 0, cmd_audit, NULL},
    {"audit binaries", "author", "what a payload's binaries say of CUDA: device code, libraries",
     "The audit of the ELF files under PATH (a prefix, a payload, an extracted or\n"
     "prepared box, a box archive, which is extracted to a temporary directory and\n"
     "removed again, or one file): for each, the libraries it ships (DT_SONAME) and\n"
     "needs (DT_NEEDED), and the CUDA device code in its .nv_fatbin section\n"
     "(cubins for sm_XX, PTX for compute_XX, with the a and f variants).  Then the\n"
     "whole tree: the union of architectures, the CUDA libraries shipped or needed\n"
     "with their class (whether the soname's major is CUDA's), the CUDA majors they\n"
     "say, and the libraries whose device code the audit cannot all see.  Only\n"
     "headers are read, never whole files; symbolic links are not followed.  A\n"
     "file that starts like ELF but cannot be read is listed as unreadable\n"
     "(invalid-elf) and does not stop the audit.  --json prints the report\n"
     "(docs/schema/cli/audit-binaries.schema.json).  Exits 0 with the report, 1\n"
     "with io-error when PATH cannot be read (or an archive's code, such as\n"
     "invalid-archive), 2 for a usage error.\n",
     SC_CLI_OPERANDS({"PATH", 1, 0, SC_COMPLETE_FILE}),
     SC_CLI_OPTIONS({OPT_JOBS, "threads reading the files (default: every CPU this process "
                               "may use); the report is the same for any N"},
                    {OPT_JSON, NULL}),
     NULL, 0, cmd_audit_binaries, NULL},
    SC_CLI_END,
};
