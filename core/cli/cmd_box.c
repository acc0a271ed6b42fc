/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cmd_box.c — scrollcase verify, prepare, attach and run.
 *
 * Argument parsing and printing only: the rules are libscrollcase's
 * (box.h, run.h, environment.h, envelope.h).  Exit status: 0 success, 1 a
 * rejection, 2 a usage error; run exits with its child's status, and when
 * the child was killed by a signal the command raises that signal on itself
 * once everything is cleaned up.  Progress goes to stderr, results to
 * stdout.
 */
#include "commands.h"

#include "args.h"
#include "progress.h"
#include "show.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "scrollcase/audit.h"
#include "scrollcase/box.h"
#include "scrollcase/cleanup.h"
#include "scrollcase/config.h"
#include "scrollcase/envelope.h"
#include "scrollcase/environment.h"
#include "scrollcase/error.h"
#include "scrollcase/file.h"
#include "scrollcase/json.h"
#include "scrollcase/keys.h"
#include "scrollcase/path.h"
#include "scrollcase/run.h"
#include "scrollcase/trust.h"

extern char **environ;

/*
 * verify and run without --trust: the workspace's own public key
 * (<keys>/signing-public.json), as upstream does.  0, or the exit status
 * with the error printed.
 */
static int default_trust(sc_cli_args *a)
{
    static char path[4096];
    if (a->trust != NULL)
        return 0;
    sc_workspace ws;
    sc_error err;
    sc_key_paths kp = {NULL, NULL};
    sc_code c = sc_workspace_resolve(&a->ws, &ws, &err);
    if (c == SC_OK) {
        c = sc_key_paths_in(ws.paths[SC_WS_KEYS], &kp, &err);
        sc_workspace_free(&ws);
    }
    if (c == SC_OK && snprintf(path, sizeof path, "%s", kp.public_path) >= (int)sizeof path)
        c = sc_error_set(&err, SC_E_USAGE, NULL, "the keys directory's path is too long: pass --trust");
    sc_key_paths_free(&kp);
    if (c != SC_OK)
        return sc_cli_report(&err);
    a->trust = path;
    return 0;
}

/* ---- shared steps ---------------------------------------------------------------- */

/*
 * --json names local paths as JSON strings, which hold only UTF-8: a path
 * operand or option value that is not valid UTF-8 is refused before anything
 * is read or written (docs/cli.md, "Paths in JSON output") -> unsafe-path.
 */
static int json_paths_ok(const sc_cli_args *a)
{
    if (!sc_cli_json())
        return 0;
    const char *vals[SC_CLI_MAX_POSITIONAL + 8];
    size_t n = 0;
    for (int i = 0; i < a->npositional && n < SC_CLI_MAX_POSITIONAL; i++)
        vals[n++] = a->positional[i];
    vals[n++] = a->trust;
    const int opts[] = {OPT_ARCHIVE, OPT_EXTRACTED, OPT_REVOCATIONS, OPT_TMPDIR, OPT_PREPARED};
    for (size_t i = 0; i < sizeof opts / sizeof opts[0]; i++)
        vals[n++] = sc_cli_value(a, opts[i]);
    for (size_t i = 0; i < n; i++) {
        if (vals[i] == NULL || sc_utf8_valid(vals[i], strlen(vals[i])))
            continue;
        char q[512];
        sc_path_quote(vals[i], strlen(vals[i]), q, sizeof q);
        sc_error err;
        sc_error_set(&err, SC_E_UNSAFE_PATH, NULL,
                     "the path \"%s\" is not valid UTF-8, so --json cannot name it; rename it "
                     "or run the command without --json", q);
        return sc_cli_report(&err);
    }
    return 0;
}

/* Trust, revocations, release: 16.1 steps 1-3. */
static int open_release(const sc_cli_args *a, sc_trust *trust, sc_release *rel)
{
    sc_error err;
    memset(trust, 0, sizeof *trust);
    memset(rel, 0, sizeof *rel);
    int prc = json_paths_ok(a);
    if (prc != 0)
        return prc;
    if (sc_trust_read_file(a->trust, trust, &err) != SC_OK)
        return sc_cli_report(&err);
    sc_verified_document rev;
    memset(&rev, 0, sizeof rev);
    const char *rev_path = sc_cli_value(a, OPT_REVOCATIONS);
    if (rev_path != NULL) {
        char *bytes = NULL;
        size_t len = 0;
        sc_code c = sc_file_read(rev_path, &bytes, &len, NULL, &err);
        if (c == SC_OK)
            c = sc_envelope_verify(bytes, len, trust, SC_DOC_REVOCATIONS, &rev, &err);
        free(bytes);
        if (c != SC_OK) {
            sc_error_prefix(&err, rev_path);
            sc_trust_free(trust);
            return sc_cli_report(&err);
        }
    }
    sc_code c = sc_release_open(a->positional[0], trust, rev.payload, rel, &err);
    sc_verified_document_free(&rev);
    if (c != SC_OK) {
        sc_trust_free(trust);
        return sc_cli_report(&err);
    }
    return 0;
}

/* The archive: --archive, else the default beside the release. */
static int archive_path(const sc_cli_args *a, const sc_release *rel, char **out)
{
    const char *given = sc_cli_value(a, OPT_ARCHIVE);
    if (given != NULL) {
        *out = strdup(given);
        if (*out == NULL) {
            sc_error err;
            sc_error_set(&err, SC_E_OUT_OF_MEMORY, NULL, "out of memory");
            return sc_cli_report(&err);
        }
        return 0;
    }
    sc_error err;
    if (sc_release_default_archive(rel, a->positional[0], out, &err) != SC_OK)
        return sc_cli_report(&err);
    return 0;
}

/* Print an environment report on stderr when it says something (16.4). */
static void print_report(const sc_json *report)
{
    if (report == NULL)
        return;
    const char *mode = sc_json_cstr(sc_json_get(report, "mode"));
    const sc_json *rc = sc_json_get(report, "releaseVariableCount");
    const sc_json *cc = sc_json_get(report, "conflictCount");
    const sc_json *dh = sc_json_get(report, "dangerousHostVariables");
    int show = (mode != NULL && strcmp(mode, "full") == 0) ||
               (rc != NULL && rc->number != 0) || (cc != NULL && cc->number != 0) ||
               (dh != NULL && dh->length != 0);
    if (!show)
        return;
    /* for people: one summary line, then one line per variable listed */
    const sc_json *rest = sc_json_get(report, "remainingVariableCount");
    const sc_json *vars = sc_json_get(report, "variables");
    size_t nvars = vars != NULL ? vars->length : 0;
    fprintf(stderr, "scrollcase: environment: %zu from the release",
            rc != NULL ? (size_t)rc->number : 0);
    if (cc != NULL && cc->number != 0)
        fprintf(stderr, ", %zu conflicting", (size_t)cc->number);
    for (const sc_json *d = dh != NULL ? dh->child : NULL; d != NULL; d = d->next)
        fprintf(stderr, "%s%s", d == dh->child ? ", affecting execution from the host: " : " ",
                sc_json_cstr(d) ? sc_json_cstr(d) : "?");
    fprintf(stderr, "; %zu listed below, %zu more not listed\n", nvars,
            rest != NULL ? (size_t)rest->number : 0);
    for (const sc_json *v = nvars > 0 ? vars->child : NULL; v != NULL; v = v->next) {
        const char *name = sc_json_cstr(sc_json_get(v, "name"));
        const char *value = sc_json_cstr(sc_json_get(v, "value"));
        const char *source = sc_json_cstr(sc_json_get(v, "source"));
        const sc_json *aff = sc_json_get(v, "executionAffecting");
        const sc_json *conf = sc_json_get(v, "conflict");
        fprintf(stderr, "  %s=%s  (from %s%s%s)\n", name ? name : "?", value ? value : "",
                source ? source : "?", aff != NULL && aff->boolean ? ", affects execution" : "",
                conf != NULL && conf->boolean ? ", conflicting values" : "");
    }
}

static void print_receipt(const sc_receipt *r, int json)
{
    if (json) {
        sc_cli_print_json(sc_receipt_to_json(r));
        return;
    }
    printf("%s %s\n", r->status, r->root);
    sc_cli_show_receipt_box(r);
    sc_cli_show_model(SC_SHOW_RECEIPT_WIDTH, r->model_id, r->runtime_id);
    sc_cli_show_field(SC_SHOW_RECEIPT_WIDTH, "execution", "%s",
                      r->execution_kind[0] ? r->execution_kind : "none");
    sc_cli_show_field(SC_SHOW_RECEIPT_WIDTH, "assets", "%zu required", r->required_asset_count);
    sc_cli_show_receipt_signed_by(r);
    char size[64];
    sc_progress_short_size(r->archive_size, size, sizeof size);
    sc_cli_show_field(SC_SHOW_RECEIPT_WIDTH, "archive", "%s, %s", r->archive_sha256, size);
    sc_cli_show_installed(r);
    print_report(r->environment_report);
}

/* ---- verify --------------------------------------------------------------------- */

/*
 * --audit: print the findings (stderr lines, or the "audit" member of the
 * JSON output) and turn findings of error severity into audit-failed.
 * Returns 0 or the exit status.
 */
static int report_audit(sc_audit_report *rep, sc_json *out)
{
    for (size_t i = 0; i < rep->count; i++) {
        const sc_audit_finding *f = &rep->findings[i];
        fprintf(stderr, "scrollcase: audit %s [%s] %s: %s\n",
                sc_audit_severity_name(f->severity), sc_audit_code_name(f->code),
                f->package ? f->package : "-", f->evidence ? f->evidence : "");
    }
    if (out != NULL)
        sc_json_object_append(out, "audit", sc_audit_report_json(rep, 1));
    if (rep->errors > 0) {
        sc_error err;
        sc_error_set(&err, SC_E_AUDIT_FAILED, NULL,
                     "the CUDA ABI audit found %zu error(s) and %zu warning(s)", rep->errors,
                     rep->warnings);
        sc_json *body = sc_cli_json() ? sc_json_new_object() : NULL;
        if (body != NULL)
            sc_json_object_append(body, "audit", sc_audit_report_json(rep, 1));
        return sc_cli_fail_json(body, &err);
    }
    return 0;
}

/*
 * The step line of an archive about to be read: its size on disk (stat),
 * and the size the release signs beside it, labelled, when they differ —
 * never the signed size as if it were the file's.
 */
static void archive_step(sc_cli_progress *shown, const char *step, const char *archive,
                         const char *dest, const sc_release *rel)
{
    char real[64], signed_size[64], sizes[160], detail[4096];
    struct stat st;
    sc_progress_short_size(rel->archive_size, signed_size, sizeof signed_size);
    if (stat(archive, &st) != 0 || !S_ISREG(st.st_mode)) {
        snprintf(sizes, sizeof sizes, "the release signs %s", signed_size);
    } else if ((uint64_t)st.st_size == rel->archive_size) {
        sc_progress_short_size((uint64_t)st.st_size, sizes, sizeof sizes);
    } else {
        /* sizes that differ may round alike: here the exact counts tell */
        sc_progress_human_size((uint64_t)st.st_size, real, sizeof real);
        sc_progress_human_size(rel->archive_size, signed_size, sizeof signed_size);
        snprintf(sizes, sizeof sizes, "%s; the release signs %s", real, signed_size);
    }
    snprintf(detail, sizeof detail, "%s (%s)%s%s", archive, sizes, dest ? " into " : "",
             dest ? dest : "");
    sc_cli_progress_step(shown, step, detail);
}

/* An error line, on a line of its own after an open bar. */
static int report_after(sc_cli_progress *shown, sc_error *err)
{
    sc_cli_progress_break(shown);
    return sc_cli_report(err);
}

static int cmd_verify(sc_cli_args *a)
{
    if (a->npositional != 1)
        return sc_cli_usage_error("%s", "verify takes one RELEASE");
    int trc = default_trust(a);
    if (trc != 0)
        return trc;
    const char *extracted = sc_cli_value(a, OPT_EXTRACTED);
    if (extracted != NULL && ((sc_cli_has(a, OPT_ARCHIVE) || sc_cli_has(a, OPT_SELF_TEST))))
        return sc_cli_usage_error("%s", "--extracted checks a tree: not with --archive or --self-test");
    int json = (sc_cli_has(a, OPT_JSON)) != 0;
    sc_box_options bo;
    memset(&bo, 0, sizeof bo);
    int jrc = sc_cli_jobs(a, &bo.jobs);
    if (jrc != 0)
        return jrc;
    sc_trust trust;
    sc_release rel;
    sc_cli_progress shown;
    if ((trc = sc_cli_progress_open(&shown, a)) != 0)
        return trc;
    bo.progress = sc_cli_progress_event;
    bo.progress_ctx = &shown;
    int rc = open_release(a, &trust, &rel);
    if (rc != 0) {
        sc_cli_progress_close(&shown);
        return rc;
    }
    sc_error err;
    sc_json *out = NULL;
    if (extracted != NULL) {
        sc_extracted_report rep;
        sc_cli_progress_step(&shown, "checking", extracted);
        sc_audit_report audit;
        memset(&audit, 0, sizeof audit);
        if (sc_box_verify_extracted_with(&rel, extracted, NULL, 0, 0, &bo, &rep, &err) != SC_OK) {
            rc = report_after(&shown, &err);
        } else if ((sc_cli_has(a, OPT_AUDIT)) &&
                   sc_box_audit_extracted(&rel, extracted, &audit, &err) != SC_OK) {
            rc = report_after(&shown, &err);
        } else if ((sc_cli_has(a, OPT_AUDIT)) && audit.errors > 0) {
            rc = report_audit(&audit, NULL);
        } else if (json) {
            out = sc_json_new_object();
            if (out != NULL) {
                sc_json_object_append(out, "status", sc_json_new_string("verified"));
                sc_json_object_append(out, "root", sc_json_new_string(extracted));
                sc_json_object_append(out, "boxId",
                                      sc_json_copy(sc_json_get(rel.doc.payload, "boxId")));
                sc_json_object_append(out, "version",
                                      sc_json_copy(sc_json_get(rel.doc.payload, "version")));
                sc_json_object_append(out, "targetId", sc_json_new_string(rel.target_id));
                sc_json_object_append(out, "entryCount",
                                      sc_json_new_number((double)rep.entry_count));
                sc_json *keys = sc_json_new_array();
                if (keys != NULL)
                    sc_json_array_append(keys, sc_json_new_string(rel.doc.key_id));
                sc_json_object_append(out, "signingKeyIds", keys);
                if (sc_cli_has(a, OPT_AUDIT))
                    (void)report_audit(&audit, out);
            }
            rc = sc_cli_print_json(out);
        } else {
            if (sc_cli_has(a, OPT_AUDIT))
                (void)report_audit(&audit, NULL);
            printf("ok %s: %zu listed entries match the signed payload digest\n", extracted,
                   rep.entry_count);
        }
        sc_extracted_report_free(&rep);
        sc_audit_report_free(&audit);
        goto done;
    }
    char *archive = NULL;
    if ((rc = archive_path(a, &rel, &archive)) != 0)
        goto done;
    archive_step(&shown, "checking", archive, NULL, &rel);
    sc_box_report rep;
    int self_test = (sc_cli_has(a, OPT_SELF_TEST)) != 0;
    if (self_test) {
        /* one read of the archive: the self-test's extraction verifies it */
        sc_box_prepare_signal_cleanup();
        sc_cli_progress_step(&shown, "self-test", rel.target_id);
        if (sc_box_verify_self_test_with(&rel, archive, sc_cli_value(a, OPT_TMPDIR), NULL, &bo,
                                         &rep, &err) != SC_OK) {
            rc = report_after(&shown, &err);
            free(archive);
            goto done;
        }
    } else if (sc_box_verify_with(&rel, archive, &bo, &rep, &err) != SC_OK) {
        rc = report_after(&shown, &err);
        free(archive);
        goto done;
    }
    sc_audit_report audit;
    memset(&audit, 0, sizeof audit);
    if (sc_cli_has(a, OPT_AUDIT)) {
        sc_box_prepare_signal_cleanup();
        sc_cli_progress_step(&shown, "audit", "CUDA ABI audit of the payload's conda-meta records");
        if (sc_box_audit_archive(&rel, archive, sc_cli_value(a, OPT_TMPDIR), &audit, &err) !=
            SC_OK) {
            rc = report_after(&shown, &err);
        } else if (audit.errors > 0) {
            rc = report_audit(&audit, NULL);
        }
        if (rc != 0) {
            sc_audit_report_free(&audit);
            free(archive);
            goto done;
        }
    }
    if (json) {
        out = sc_json_new_object();
        if (out != NULL) {
            sc_json_object_append(out, "status", sc_json_new_string("verified"));
            sc_json_object_append(out, "archivePath", sc_json_new_string(archive));
            sc_json_object_append(out, "boxId", sc_json_new_string(rep.box_id));
            sc_json_object_append(out, "version", sc_json_new_string(rep.version));
            sc_json_object_append(out, "targetId", sc_json_new_string(rep.target_id));
            sc_json_object_append(out, "entryCount", sc_json_new_number((double)rep.entry_count));
            sc_json_object_append(out, "executionKind",
                                  rep.execution_kind[0] ? sc_json_new_string(rep.execution_kind)
                                                        : sc_json_new_null());
            sc_json_object_append(out, "requiredAssets",
                                  sc_json_new_number((double)rep.required_asset_count));
            sc_json *keys = sc_json_new_array();
            if (keys != NULL)
                sc_json_array_append(keys, sc_json_new_string(rel.doc.key_id));
            sc_json_object_append(out, "signingKeyIds", keys);
            sc_json_object_append(out, "selfTest", sc_json_new_bool(self_test));
            if (sc_cli_has(a, OPT_AUDIT))
                (void)report_audit(&audit, out);
        }
        rc = sc_cli_print_json(out);
    } else {
        if (sc_cli_has(a, OPT_AUDIT))
            (void)report_audit(&audit, NULL);
        printf("ok %s %s %s: %zu entries, execution %s, %zu required assets, signed by %s%s\n",
               rep.box_id, rep.version, rep.target_id, rep.entry_count,
               rep.execution_kind[0] ? rep.execution_kind : "none", rep.required_asset_count,
               rel.doc.key_id, self_test ? ", self-test passed" : "");
    }
    sc_audit_report_free(&audit);
    free(archive);
done:
    sc_cli_progress_close(&shown);
    sc_release_free(&rel);
    sc_trust_free(&trust);
    return rc;
}

/* ---- prepare and attach ------------------------------------------------------------ */

static int cmd_prepare(sc_cli_args *a)
{
    if (a->npositional != 2)
        return sc_cli_usage_error("%s", "prepare takes RELEASE DEST");
    if (a->trust == NULL)
        return sc_cli_usage_error("%s", "prepare needs --trust TRUSTFILE");
    sc_box_options bo;
    memset(&bo, 0, sizeof bo);
    int jrc = sc_cli_jobs(a, &bo.jobs);
    if (jrc != 0)
        return jrc;
    sc_box_prepare_signal_cleanup();
    sc_trust trust;
    sc_release rel;
    sc_cli_progress shown;
    int rc = sc_cli_progress_open(&shown, a);
    if (rc != 0)
        return rc;
    if ((rc = open_release(a, &trust, &rel)) != 0) {
        sc_cli_progress_close(&shown);
        return rc;
    }
    char *archive = NULL;
    if ((rc = archive_path(a, &rel, &archive)) == 0) {
        sc_error err;
        sc_receipt r;
        bo.progress = sc_cli_progress_event;
        bo.progress_ctx = &shown;
        archive_step(&shown, "preparing", archive, a->positional[1], &rel);
        if (sc_box_prepare_with(&rel, archive, a->positional[1], &bo, &r, &err) != SC_OK) {
            sc_cli_progress_close(&shown);
            rc = sc_cli_report(&err);
        } else {
            sc_cli_progress_close(&shown);
            print_receipt(&r, (sc_cli_has(a, OPT_JSON)) != 0);
            sc_receipt_free(&r);
        }
    } else {
        sc_cli_progress_close(&shown);
    }
    free(archive);
    sc_release_free(&rel);
    sc_trust_free(&trust);
    return rc;
}

static int cmd_attach(sc_cli_args *a)
{
    if (a->npositional != 2)
        return sc_cli_usage_error("%s", "attach takes RELEASE DIR");
    if (a->trust == NULL)
        return sc_cli_usage_error("%s", "attach needs --trust TRUSTFILE");
    sc_trust trust;
    sc_release rel;
    int rc = open_release(a, &trust, &rel);
    if (rc != 0)
        return rc;
    sc_error err;
    sc_receipt r;
    int full = ((sc_cli_has(a, OPT_ENV_REPORT) || sc_cli_has(a, OPT_ENV_VALUES))) != 0;
    int reveal = (sc_cli_has(a, OPT_ENV_VALUES)) != 0;
    if (sc_box_attach(&rel, a->positional[1], NULL, full, reveal, &r, &err) != SC_OK) {
        rc = sc_cli_report(&err);
    } else {
        print_receipt(&r, (sc_cli_has(a, OPT_JSON)) != 0);
        sc_receipt_free(&r);
    }
    sc_release_free(&rel);
    sc_trust_free(&trust);
    return rc;
}

/*
 * run --json: stdout carries the one document, so the box's own standard
 * output goes to standard error while it runs.  Returns the saved stdout (-1:
 * nothing was redirected).
 */
static int stdout_to_stderr(void)
{
    if (!sc_cli_json())
        return -1;
    fflush(stdout);
    int saved = dup(STDOUT_FILENO);
    if (saved >= 0 && dup2(STDERR_FILENO, STDOUT_FILENO) < 0) {
        close(saved);
        saved = -1;
    }
    return saved;
}

static void stdout_back(int saved)
{
    if (saved < 0)
        return;
    fflush(stdout);
    dup2(saved, STDOUT_FILENO);
    close(saved);
}

/* ---- run ------------------------------------------------------------------------------ */

static void on_prepared(void *ctx, const sc_receipt *r)
{
    sc_cli_progress_step(ctx, "prepared", r->root);
}

static int cmd_run(sc_cli_args *a)
{
    if (a->npositional != 1)
        return sc_cli_usage_error("%s", "run takes one RELEASE (arguments for the box go after --)");
    int trc = default_trust(a);
    if (trc != 0)
        return trc;
    const char *prepared = sc_cli_value(a, OPT_PREPARED);
    if (prepared != NULL && ((sc_cli_has(a, OPT_ARCHIVE) || sc_cli_has(a, OPT_TMPDIR))))
        return sc_cli_usage_error("%s", "--prepared runs a prepared box: not with --archive or --temporary-directory");
    sc_error err;
    sc_env_map host, caller;
    memset(&host, 0, sizeof host);
    memset(&caller, 0, sizeof caller);
    for (int i = 0; i < a->nenv; i++) {
        const char *eq = strchr(a->env[i], '=');
        if (eq == NULL || eq == a->env[i]) {
            sc_env_map_free(&caller);
            return sc_cli_usage_error("--env takes NAME=VALUE, not %s", a->env[i]);
        }
        char *name = strndup(a->env[i], (size_t)(eq - a->env[i]));
        sc_code c = name != NULL ? sc_env_map_set(&caller, name, eq + 1, &err)
                                 : sc_error_set(&err, SC_E_OUT_OF_MEMORY, NULL, "out of memory");
        free(name);
        if (c != SC_OK) {
            sc_env_map_free(&caller);
            return sc_cli_report(&err);
        }
    }
    if (sc_env_map_from_environ(&host, environ, &err) != SC_OK) {
        sc_env_map_free(&caller);
        return sc_cli_report(&err);
    }
    sc_trust trust;
    sc_release rel;
    int rc = open_release(a, &trust, &rel);
    if (rc != 0) {
        sc_env_map_free(&host);
        sc_env_map_free(&caller);
        return rc;
    }
    int full = ((sc_cli_has(a, OPT_ENV_REPORT) || sc_cli_has(a, OPT_ENV_VALUES))) != 0;
    int reveal = (sc_cli_has(a, OPT_ENV_VALUES)) != 0;
    sc_run_result res;
    memset(&res, 0, sizeof res);
    sc_code c = SC_OK;
    char *archive = NULL;
    sc_cli_progress shown; /* the temporary prepare's */
    if (prepared != NULL) {
        struct stat st;
        if (lstat(prepared, &st) != 0 || !S_ISDIR(st.st_mode)) {
            c = sc_error_set(&err, SC_E_DESTINATION_CHANGED, prepared,
                             "%s is not a prepared box directory", prepared);
        } else {
            char *abs = NULL;
            if (prepared[0] == '/') {
                abs = strdup(prepared);
            } else {
                char *cwd = getcwd(NULL, 0);
                abs = cwd != NULL ? sc_path_join(cwd, prepared) : NULL;
                free(cwd);
            }
            if (abs == NULL) {
                c = sc_error_set(&err, SC_E_OUT_OF_MEMORY, NULL, "out of memory");
            } else {
                sc_run_spec spec;
                memset(&spec, 0, sizeof spec);
                spec.root = abs;
                spec.release = rel.doc.payload;
                spec.target = &rel.target;
                spec.dev = (unsigned long long)st.st_dev;
                spec.ino = (unsigned long long)st.st_ino;
                spec.host = &host;
                spec.caller = &caller;
                spec.args = a->rest;
                spec.nargs = (size_t)a->nrest;
                spec.env_report_full = full;
                spec.env_report_values = reveal;
                spec.stdin_fd = spec.stdout_fd = spec.stderr_fd = -1;
                spec.forward_signals = 1;
                int saved = stdout_to_stderr();
                c = sc_run(&spec, &res, &err);
                stdout_back(saved);
                free(abs);
            }
        }
    } else if ((rc = archive_path(a, &rel, &archive)) == 0 &&
               (rc = sc_cli_progress_open(&shown, a)) == 0) {
        /* run --json: standard error carries the box's own output, so the
         * progress events go only where --progress-fd asks for them */
        if (shown.json_stderr)
            shown.quiet = 1;
        sc_box_run_options o;
        memset(&o, 0, sizeof o);
        o.tmpdir = sc_cli_value(a, OPT_TMPDIR);
        o.host = &host;
        o.caller = &caller;
        o.args = a->rest;
        o.nargs = (size_t)a->nrest;
        o.full = full;
        o.reveal = reveal;
        o.forward_signals = 1;
        o.on_prepared = on_prepared;
        o.ctx = &shown;
        o.progress = sc_cli_progress_event;
        o.progress_ctx = &shown;
        sc_box_prepare_signal_cleanup();
        sc_cli_progress_step(&shown, "preparing", archive);
        int saved = stdout_to_stderr();
        c = sc_box_run_temporary(&rel, archive, &o, &res, &err);
        stdout_back(saved);
        sc_cli_progress_close(&shown);
    }
    if (!sc_cli_json()) /* --json: the document's environmentReport */
        print_report(res.environment_report);
    if (rc == 0 && c != SC_OK) {
        rc = sc_cli_report(&err);
    } else if (rc == 0) {
        if (sc_cli_json()) {
            /* the box ran: its outcome, whatever its status */
            sc_json *o = sc_json_new_object();
            if (o != NULL) {
                sc_json_object_append(o, "exited", sc_json_new_bool(res.exited));
                sc_json_object_append(o, "exitCode", res.exited ? sc_json_new_number(res.exit_code)
                                                                : sc_json_new_null());
                sc_json_object_append(o, "signal", res.exited ? sc_json_new_null()
                                                              : sc_json_new_number(res.term_signal));
                sc_json_object_append(o, "environmentReport",
                                      res.environment_report ? sc_json_copy(res.environment_report)
                                                             : sc_json_new_null());
            }
            (void)sc_cli_print_json(o);
        }
        rc = res.exited ? res.exit_code : 0;
    }
    int sig = (rc == 0 && c == SC_OK && !res.exited) ? res.term_signal : 0;
    free(archive);
    sc_run_result_free(&res);
    sc_release_free(&rel);
    sc_trust_free(&trust);
    sc_env_map_free(&host);
    sc_env_map_free(&caller);
    if (sig > 0) {
        /* The child died by a signal: so does the command, after cleanup
         * (cleanup.h: what is still registered is removed, then the
         * signal's default action). */
        fflush(NULL);
        sc_cleanup_exit_by_signal(sig);
        return 128 + sig; /* a signal whose default is to continue */
    }
    return rc;
}

/* ---- the table ------------------------------------------------------------------- */

#define JOBS_HELP "hashing and extraction threads (default: every CPU this process may use)"

const sc_cli_command sc_cli_box_commands[] = {
    {"verify", "consumer", "check a box archive against its signed release",
     "Checks that an archive is the box the signed release RELEASE describes\n"
     "(docs/format-v3.md 16.1): the trust file, the release (9.2), the\n"
     "revocations if given (13), then the archive's existence, size, SHA-256,\n"
     "entries, box.json and its agreement with the release, the entry point and\n"
     "the execution.  The archive defaults to the last segment of archive.url in\n"
     "RELEASE's directory.  Nothing is written.\n"
     "\n"
     "--self-test then extracts the box into a private directory (under\n"
     "--temporary-directory, else $TMPDIR), recomputes its payload digest and\n"
     "runs the release's self-test with its time limit (native host only).\n"
     "--extracted DIR checks an extracted tree against the signed payload list\n"
     "instead of an archive (not with --archive or --self-test).  --audit runs\n"
     "the CUDA ABI audit (19) over the payload's conda-meta records (extracting\n"
     "an archive into a private directory first); findings of error severity\n"
     "fail with audit-failed.  --jobs N sets the threads (default: every CPU\n"
     "this process may use): the archive is read ahead on a second one while\n"
     "it is hashed, and extraction and tree hashing use them all; the result\n"
     "does not depend on N.  Prints \"ok ...\"; --json prints an object.\n",
     SC_CLI_OPERANDS({"RELEASE", 1, 0, SC_COMPLETE_FILE}),
     SC_CLI_OPTIONS({OPT_TRUST, "the trust file (default: the workspace's <keys>/signing-public.json)"}, {OPT_ARCHIVE, NULL}, {OPT_EXTRACTED, NULL},
                    {OPT_REVOCATIONS, NULL}, {OPT_SELF_TEST, NULL}, {OPT_TMPDIR, NULL},
                    {OPT_AUDIT, NULL}, {OPT_JOBS, JOBS_HELP}, {OPT_JSON, NULL}, {OPT_QUIET, NULL},
                    {OPT_PROGRESS_FD, NULL}),
     NULL, 0, cmd_verify, SC_CLI_ALIASES({"--public-key", OPT_TRUST})},
    {"prepare", "consumer", "verify and extract a box to a new directory",
     "Verifies the archive as `verify` does and extracts it to DEST, which must\n"
     "not exist (existing-destination).  The tree is built in a stage directory\n"
     "beside DEST and renamed into place; on any failure, or on SIGINT/SIGTERM,\n"
     "the stage is removed and DEST is not created.  Prints the receipt: root,\n"
     "box, target, signing keys, archive and installed sizes; --json prints it\n"
     "as an object.  Any target may be prepared on any host.  --jobs N sets the\n"
     "threads that read, inflate, hash and write (default: every CPU this\n"
     "process may use); the tree does not depend on N.\n",
     SC_CLI_OPERANDS({"RELEASE", 1, 0, SC_COMPLETE_FILE}, {"DEST", 1, 0, SC_COMPLETE_DIRECTORY}),
     SC_CLI_OPTIONS({OPT_TRUST, NULL}, {OPT_ARCHIVE, NULL}, {OPT_REVOCATIONS, NULL},
                    {OPT_JOBS, JOBS_HELP}, {OPT_JSON, NULL}, {OPT_QUIET, NULL},
                    {OPT_PROGRESS_FD, NULL}),
     NULL, 0, cmd_prepare, SC_CLI_ALIASES({"--public-key", OPT_TRUST})},
    {"attach", "consumer", "adopt an already-extracted box",
     "Adopts an already-extracted tree DIR (docs/format-v3.md 16.3): DIR is a\n"
     "real directory, the release verifies, the host is native for its target,\n"
     "the entry point and the execution are present, the on-demand assets\n"
     "match.  Payload bytes are not read.  Prints the receipt (status\n"
     "attached); --env-report prints the full environment report,\n"
     "--env-report-values shows host values in it.\n",
     SC_CLI_OPERANDS({"RELEASE", 1, 0, SC_COMPLETE_FILE}, {"DIR", 1, 0, SC_COMPLETE_DIRECTORY}),
     SC_CLI_OPTIONS({OPT_TRUST, NULL}, {OPT_REVOCATIONS, NULL}, {OPT_ENV_REPORT, NULL},
                    {OPT_ENV_VALUES, NULL}, {OPT_JSON, NULL}),
     NULL, 0, cmd_attach, SC_CLI_ALIASES({"--public-key", OPT_TRUST})},
    {"run", "consumer", "run a box's declared execution",
     "Runs the box's declared execution (docs/format-v3.md 16.6) with ARGS after\n"
     "its default arguments.  With --prepared DIR, the box prepared there;\n"
     "otherwise the archive is prepared into a private temporary directory\n"
     "that is removed afterwards whatever happens.  The environment is the\n"
     "host's, then each --env, then the release's environment (later wins).\n"
     "Exits with the program's status; if the program was killed by a signal,\n"
     "the command ends by the same signal.\n",
     SC_CLI_OPERANDS({"RELEASE", 1, 0, SC_COMPLETE_FILE}),
     SC_CLI_OPTIONS({OPT_TRUST, "the trust file (default: the workspace's <keys>/signing-public.json)"}, {OPT_ARCHIVE, NULL}, {OPT_PREPARED, NULL},
                    {OPT_ENV, NULL}, {OPT_ENV_REPORT, NULL}, {OPT_ENV_VALUES, NULL},
                    {OPT_TMPDIR, NULL}, {OPT_REVOCATIONS, NULL},
                    {OPT_JSON, "print the outcome as one JSON document (the box's stdout goes to stderr)"},
                    {OPT_QUIET, NULL}, {OPT_PROGRESS_FD, NULL}),
     "ARGS", 0, cmd_run, SC_CLI_ALIASES({"--public-key", OPT_TRUST})},
    SC_CLI_END,
};
