/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ops_box.c — the adapter's consumer operations on a real box
 * (conformance/README.md 3.6.4, docs/format-v3.md 16): box-verify,
 * box-prepare, box-attach, payload-verify, box-run, box-run-temporary.
 *
 * Each call works only under its --work directory: the box is prepared into
 * <work>/box, run-box uses <work>/tmp, the child's stdout goes to
 * <work>/record.jsonl, where the fixture's recording interpreter writes one
 * JSON line (argv, cwd, environ).  The host environment layer is the case's
 * args.hostEnvironment, never the adapter's own: the process environment is
 * replaced by it before the library is called.
 *
 * Invariants checked here (exit 3, a crash, when broken): a rejected
 * prepare leaves no destination (unless the case made it, which must then
 * be left as it was); run-box leaves <work>/tmp empty; a rejected run wrote
 * no record (nothing was spawned, or the spawn failed).
 */
#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE
#endif
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "adapter.h"
#include "util.h"

#include "scrollcase/box.h"
#include "scrollcase/environment.h"
#include "scrollcase/file.h"
#include "scrollcase/manifest.h"
#include "scrollcase/path.h"
#include "scrollcase/process.h"
#include "scrollcase/run.h"
#include "scrollcase/trust.h"

extern char **environ;

/* Arguments every box operation knows. */
#define COMMON_ARGS                                                                  \
    "trustFrom", "trustMissing", "archiveMissing", "hostEnvironment", "reportVariables", \
        "envReport", "envReportValues"

/* One call's state. */
typedef struct boxcall {
    kase *k;
    char *work;         /* absolute, symlinks resolved */
    int own_work;       /* made here (no --work): removed at the end */
    char *archive;      /* the archive path handed to the library */
    sc_trust trust;
    sc_verified_document revocations;
    int have_revocations;
    sc_release rel;
    int have_release;
    sc_env_map host, caller;
    char **envp;        /* the process environment while the case runs */
    char **saved_environ;
    int full, reveal;
    const sc_json *report_vars;
    char **args;
    size_t nargs;
} boxcall;

/* ---- arguments ------------------------------------------------------------ */

static int bool_arg(kase *k, const char *name, int *out)
{
    const sc_json *v = ad_get(k->args, name);
    *out = 0;
    if (v == NULL)
        return 0;
    if (v->type != SC_JSON_BOOL)
        return ad_fail(EXIT_ADAPTER, "args.%s must be a boolean", name);
    *out = v->boolean;
    return 0;
}

/* An object of strings into a map, copied as it is: the library judges it. */
static int env_arg(kase *k, const char *name, sc_env_map *m)
{
    const sc_json *o = ad_get(k->args, name);
    if (o == NULL)
        return 0;
    if (o->type != SC_JSON_OBJECT)
        return ad_fail(EXIT_ADAPTER, "args.%s must be an object", name);
    for (const sc_json *c = o->child; c != NULL; c = c->next) {
        if (c->type != SC_JSON_STRING)
            return ad_fail(EXIT_ADAPTER, "args.%s.%s must be a string", name, c->key);
        sc_error err;
        sc_error_clear(&err);
        if (sc_env_map_set(m, c->key, c->string, &err) != SC_OK)
            return ad_fail(EXIT_ADAPTER, "args.%s: %s", name, err.message);
    }
    return 0;
}

static int strings_arg(kase *k, const char *name, char ***out, size_t *n)
{
    const sc_json *a = ad_get(k->args, name);
    *out = NULL;
    *n = 0;
    if (a == NULL)
        return 0;
    if (a->type != SC_JSON_ARRAY)
        return ad_fail(EXIT_ADAPTER, "args.%s must be an array", name);
    *out = sc_xmalloc((a->length + 1) * sizeof **out);
    for (const sc_json *c = a->child; c != NULL; c = c->next) {
        if (c->type != SC_JSON_STRING)
            return ad_fail(EXIT_ADAPTER, "args.%s holds a non-string", name);
        (*out)[(*n)++] = sc_xstrdup(c->string);
    }
    (*out)[*n] = NULL;
    return 0;
}

/* ---- set-up and tear-down -------------------------------------------------- */

/* The process environment becomes the host layer (names with '=' cannot be
 * represented there and are left out; such a layer is handed to the
 * library explicitly where it takes one). */
static void install_environment(boxcall *b)
{
    b->envp = sc_xmalloc((b->host.count + 1) * sizeof *b->envp);
    size_t n = 0;
    for (size_t i = 0; i < b->host.count; i++) {
        if (strchr(b->host.names[i], '=') != NULL || b->host.names[i][0] == '\0')
            continue;
        size_t len = strlen(b->host.names[i]) + strlen(b->host.values[i]) + 2;
        b->envp[n] = sc_xmalloc(len);
        snprintf(b->envp[n], len, "%s=%s", b->host.names[i], b->host.values[i]);
        n++;
    }
    b->envp[n] = NULL;
    b->saved_environ = environ;
    environ = b->envp;
}

static void boxcall_free(boxcall *b)
{
    if (b->envp != NULL) {
        environ = b->saved_environ;
        for (char **p = b->envp; *p != NULL; p++)
            free(*p);
        free(b->envp);
    }
    if (b->have_release)
        sc_release_free(&b->rel);
    if (b->have_revocations)
        sc_verified_document_free(&b->revocations);
    sc_trust_free(&b->trust);
    sc_env_map_free(&b->host);
    sc_env_map_free(&b->caller);
    for (size_t i = 0; i < b->nargs; i++)
        free(b->args[i]);
    free(b->args);
    free(b->archive);
    if (b->own_work && b->work != NULL)
        sc_rmtree(b->work);
    free(b->work);
}

static int setup(kase *k, boxcall *b, const char *const *names)
{
    memset(b, 0, sizeof *b);
    b->k = k;
    int rc = ad_args_known(k, names);
    if (rc != 0)
        return rc;
    if (k->work != NULL) {
        char *real = realpath(k->work, NULL);
        if (real == NULL)
            return ad_fail(EXIT_ADAPTER, "--work %s: %s", k->work, strerror(errno));
        b->work = real;
    } else {
        char tmpl[] = "/tmp/scrollcase-adapter-XXXXXX";
        if (mkdtemp(tmpl) == NULL)
            return ad_fail(EXIT_ADAPTER, "mkdtemp: %s", strerror(errno));
        b->work = realpath(tmpl, NULL);
        b->own_work = 1;
        if (b->work == NULL)
            return ad_fail(EXIT_ADAPTER, "realpath %s: %s", tmpl, strerror(errno));
    }
    int envreport = 0;
    if ((rc = bool_arg(k, "envReport", &envreport)) != 0 ||
        (rc = bool_arg(k, "envReportValues", &b->reveal)) != 0)
        return rc;
    b->full = envreport || b->reveal;
    b->report_vars = ad_get(k->args, "reportVariables");
    if (b->report_vars != NULL && b->report_vars->type != SC_JSON_ARRAY)
        return ad_fail(EXIT_ADAPTER, "args.reportVariables must be an array");
    if ((rc = env_arg(k, "hostEnvironment", &b->host)) != 0 ||
        (rc = env_arg(k, "env", &b->caller)) != 0 ||
        (rc = strings_arg(k, "args", &b->args, &b->nargs)) != 0)
        return rc;
    install_environment(b);
    return 0;
}

/* Trust (9.2 step 1), revocations, the release; then the archive path.
 * A rejection fills r and returns 0. */
static int open_release(boxcall *b, result *r)
{
    kase *k = b->k;
    const char *from = NULL;
    int missing = 0, archive_missing = 0;
    int rc = ad_string_arg(k, "trustFrom", 0, &from);
    if (rc == 0)
        rc = bool_arg(k, "trustMissing", &missing);
    if (rc == 0)
        rc = bool_arg(k, "archiveMissing", &archive_missing);
    if (rc != 0)
        return rc;
    if (from != NULL && strcmp(from, "file") != 0 && strcmp(from, "bytes") != 0)
        return ad_fail(EXIT_UNSUPPORTED, "args.trustFrom \"%s\" is not file or bytes", from);

    char *trust = NULL;
    if ((rc = ad_input_path(k, "trust", &trust, NULL)) != 0)
        return rc;
    if (missing) {
        char *nowhere = sc_xjoin(b->work, "no-such-trust-file.json");
        r->code = sc_trust_read_file(nowhere, &b->trust, &r->err);
        free(nowhere);
    } else if (from != NULL && strcmp(from, "bytes") == 0) {
        char *bytes = NULL;
        size_t len = 0;
        sc_error ferr;
        sc_error_clear(&ferr);
        if (sc_file_read(trust, &bytes, &len, NULL, &ferr) != SC_OK) {
            free(trust);
            return ad_fail(EXIT_ADAPTER, "%s", ferr.message);
        }
        r->code = sc_trust_parse(bytes, len, "trust bytes", &b->trust, &r->err);
        free(bytes);
    } else {
        r->code = sc_trust_read_file(trust, &b->trust, &r->err);
    }
    free(trust);
    if (r->code != SC_OK)
        return 0;

    const sc_json *revocations = NULL;
    for (size_t i = 0; i < k->inputs->length; i++) {
        const char *role = sc_json_cstr(ad_get(sc_json_at(k->inputs, i), "role"));
        if (role != NULL && strcmp(role, "revocations") == 0) {
            char *path = NULL, *bytes = NULL;
            size_t len = 0;
            if ((rc = ad_input_path(k, "revocations", &path, NULL)) != 0)
                return rc;
            sc_error ferr;
            sc_error_clear(&ferr);
            sc_code c = sc_file_read(path, &bytes, &len, NULL, &ferr);
            free(path);
            if (c != SC_OK)
                return ad_fail(EXIT_ADAPTER, "%s", ferr.message);
            r->code = sc_envelope_verify(bytes, len, &b->trust, SC_DOC_REVOCATIONS,
                                         &b->revocations, &r->err);
            free(bytes);
            b->have_revocations = 1;
            if (r->code != SC_OK)
                return 0;
            revocations = b->revocations.payload;
            break;
        }
    }

    char *release = NULL;
    if ((rc = ad_input_path(k, "release", &release, NULL)) != 0)
        return rc;
    r->code = sc_release_open(release, &b->trust, revocations, &b->rel, &r->err);
    free(release);
    b->have_release = 1;
    if (r->code != SC_OK)
        return 0;

    if (archive_missing)
        b->archive = sc_xjoin(b->work, "no-such-archive.zip");
    else if ((rc = ad_input_path(k, "archive", &b->archive, NULL)) != 0)
        return rc;
    return 0;
}

/* ---- outputs ----------------------------------------------------------------- */

static sc_json *str_or_null(const char *s)
{
    return ad_must(s != NULL && s[0] != '\0' ? sc_json_new_string(s) : sc_json_new_null());
}

/* The report as upstream compared it: mode, hostValuesRevealed,
 * releaseVariableCount, conflictCount, and the variables the case names. */
static sc_json *project_report(const boxcall *b, const sc_json *report)
{
    static const char *const kept[] = {"mode", "hostValuesRevealed", "releaseVariableCount",
                                       "conflictCount", NULL};
    sc_json *o = ad_must(sc_json_new_object());
    for (const char *const *m = kept; *m != NULL; m++) {
        const sc_json *v = ad_get(report, *m);
        if (v != NULL)
            ad_put(o, *m, ad_must(sc_json_copy(v)));
    }
    sc_json *vars = ad_must(sc_json_new_array());
    const sc_json *all = ad_get(report, "variables");
    for (const sc_json *v = all != NULL ? all->child : NULL; v != NULL; v = v->next) {
        const sc_json *name = ad_get(v, "name");
        for (const sc_json *w = b->report_vars->child; w != NULL; w = w->next)
            if (name != NULL && sc_json_equal(name, w)) {
                sc_json_array_append(vars, ad_must(sc_json_copy(v)));
                break;
            }
    }
    ad_put(o, "variables", vars);
    return o;
}

/* A report the case asked for must exist. */
static int put_report(const boxcall *b, sc_json *out, const sc_json *report)
{
    if (b->report_vars == NULL)
        return 0;
    if (report == NULL)
        return ad_fail(EXIT_ADAPTER, "the library made no environment report");
    ad_put(out, "environmentReport", project_report(b, report));
    return 0;
}

static int receipt_out(const boxcall *b, const sc_receipt *rc, result *r)
{
    r->out = ad_must(sc_json_new_object());
    ad_put(r->out, "status", str_or_null(rc->status));
    ad_put(r->out, "boxId", str_or_null(rc->box_id));
    ad_put(r->out, "executionKind", str_or_null(rc->execution_kind));
    ad_put(r->out, "requiredAssetCount",
           ad_must(sc_json_new_number((double)rc->required_asset_count)));
    ad_put(r->out, "pythonEntryPoint", str_or_null(rc->python_entry_point));
    ad_put(r->out, "targetId", str_or_null(rc->target_id));
    ad_put(r->out, "installedSizeBytes",
           ad_must(sc_json_new_number((double)rc->installed_size)));
    return put_report(b, r->out, rc->environment_report);
}

/* ---- the prepared tree --------------------------------------------------------- */

static int exists(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0;
}

/* Prepare into <work>/box; a rejection fills r.  Checks the invariant. */
static int prepare(boxcall *b, int pre_existing, sc_receipt *rc, result *r, char **dest)
{
    *dest = sc_xjoin(b->work, "box");
    if (pre_existing && mkdir(*dest, 0755) != 0)
        return ad_fail(EXIT_ADAPTER, "mkdir %s: %s", *dest, strerror(errno));
    r->code = sc_box_prepare(&b->rel, b->archive, *dest, rc, &r->err);
    if (r->code == SC_OK)
        return 0;
    if (pre_existing) {
        struct stat st;
        DIR *d = opendir(*dest);
        int entries = 0;
        struct dirent *e;
        while (d != NULL && (e = readdir(d)) != NULL)
            if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
                entries++;
        if (d != NULL)
            closedir(d);
        if (lstat(*dest, &st) != 0 || !S_ISDIR(st.st_mode) || entries != 0)
            return ad_fail(EXIT_ADAPTER, "a rejected prepare changed the existing destination");
    } else if (exists(*dest)) {
        return ad_fail(EXIT_ADAPTER, "a rejected prepare (%s) left %s behind",
                       sc_code_name(r->code), *dest);
    }
    return 0;
}

static int mkdirs(const char *path)
{
    char *p = sc_xstrdup(path);
    for (char *s = p + 1; *s != '\0'; s++) {
        if (*s != '/')
            continue;
        *s = '\0';
        if (mkdir(p, 0755) != 0 && errno != EEXIST) {
            free(p);
            return -1;
        }
        *s = '/';
    }
    int rc = mkdir(p, 0755) != 0 && errno != EEXIST ? -1 : 0;
    free(p);
    return rc;
}

static int parent_dirs(const char *path)
{
    char *p = sc_xstrdup(path);
    char *slash = strrchr(p, '/');
    int rc = 0;
    if (slash != NULL && slash != p) {
        *slash = '\0';
        rc = mkdirs(p);
    }
    free(p);
    return rc;
}

static int write_all(int fd, const char *bytes, size_t len)
{
    while (len > 0) {
        ssize_t n = write(fd, bytes, len);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        bytes += n;
        len -= (size_t)n;
    }
    return 0;
}

static int number_string(const sc_json *e, const char *name, int base, long long *out)
{
    const char *s = sc_json_cstr(ad_get(e, name));
    char *end = NULL;
    if (s == NULL || *s == '\0')
        return ad_fail(EXIT_ADAPTER, "edit member %s must be a number written as a string", name);
    errno = 0;
    *out = strtoll(s, &end, base);
    if (errno != 0 || *end != '\0')
        return ad_fail(EXIT_ADAPTER, "edit member %s: \"%s\" is not a number", name, s);
    return 0;
}

/* One afterPrepare edit under root. */
static int apply_edit(const char *root, const sc_json *e)
{
    const char *op = sc_json_cstr(ad_get(e, "op"));
    const char *rel = sc_json_cstr(ad_get(e, "path"));
    const sc_json *text = ad_get(e, "text");
    const char *target = sc_json_cstr(ad_get(e, "target"));
    if (op == NULL || rel == NULL)
        return ad_fail(EXIT_ADAPTER, "an afterPrepare edit needs string op and path");
    sc_error perr;
    sc_error_clear(&perr);
    if (sc_path_check(rel, strlen(rel), "afterPrepare[].path", &perr) != SC_OK)
        return ad_fail(EXIT_ADAPTER, "afterPrepare path \"%s\" is not safe", rel);
    char *path = sc_xjoin(root, rel);
    int rc = 0, fail = 0;
    if (strcmp(op, "delete") == 0) {
        fail = sc_rmtree(path) != 0;
    } else if (strcmp(op, "write") == 0 || strcmp(op, "append") == 0) {
        if (text == NULL || text->type != SC_JSON_STRING) {
            rc = ad_fail(EXIT_ADAPTER, "edit %s needs a string text", op);
        } else {
            int append = strcmp(op, "append") == 0;
            int fd = -1;
            if (append || parent_dirs(path) == 0)
                fd = open(path, O_WRONLY | (append ? O_APPEND : O_CREAT | O_TRUNC) | O_NOFOLLOW,
                          0644);
            fail = fd < 0 || write_all(fd, text->string, text->length) != 0;
            if (fd >= 0 && close(fd) != 0)
                fail = 1;
        }
    } else if (strcmp(op, "chmod") == 0) {
        long long mode = 0;
        if ((rc = number_string(e, "mode", 8, &mode)) == 0)
            fail = chmod(path, (mode_t)mode) != 0;
    } else if (strcmp(op, "touch") == 0) {
        long long t = 0;
        if ((rc = number_string(e, "mtime", 10, &t)) == 0) {
            struct timespec ts[2] = {{(time_t)t, 0}, {(time_t)t, 0}};
            fail = utimensat(AT_FDCWD, path, ts, AT_SYMLINK_NOFOLLOW) != 0;
        }
    } else if (strcmp(op, "xor-byte") == 0) {
        long long offset = 0, mask = 0;
        struct stat st;
        if ((rc = number_string(e, "offset", 10, &offset)) == 0 &&
            (rc = number_string(e, "mask", 10, &mask)) == 0) {
            int fd = open(path, O_RDWR | O_NOFOLLOW);
            unsigned char byte = 0;
            fail = fd < 0 || fstat(fd, &st) != 0;
            if (!fail && offset < 0)
                offset += (long long)st.st_size;
            fail = fail || offset < 0 || offset >= (long long)st.st_size ||
                   pread(fd, &byte, 1, (off_t)offset) != 1;
            byte ^= (unsigned char)mask;
            fail = fail || pwrite(fd, &byte, 1, (off_t)offset) != 1;
            if (fd >= 0 && close(fd) != 0)
                fail = 1;
        }
    } else if (strcmp(op, "symlink") == 0 || strcmp(op, "retarget") == 0) {
        if (target == NULL)
            rc = ad_fail(EXIT_ADAPTER, "edit %s needs a string target", op);
        else if (strcmp(op, "retarget") == 0 && unlink(path) != 0)
            fail = 1;
        else
            fail = parent_dirs(path) != 0 || symlink(target, path) != 0;
    } else if (strcmp(op, "mkdir") == 0) {
        fail = mkdirs(path) != 0;
    } else {
        rc = ad_fail(EXIT_UNSUPPORTED, "afterPrepare op \"%s\" is not supported", op);
    }
    if (rc == 0 && fail)
        rc = ad_fail(EXIT_ADAPTER, "edit %s %s: %s", op, rel, strerror(errno));
    free(path);
    return rc;
}

static int apply_edits(boxcall *b, const char *root)
{
    const sc_json *edits = ad_get(b->k->args, "afterPrepare");
    if (edits == NULL)
        return 0;
    if (edits->type != SC_JSON_ARRAY)
        return ad_fail(EXIT_ADAPTER, "args.afterPrepare must be an array");
    for (const sc_json *e = edits->child; e != NULL; e = e->next) {
        int rc = apply_edit(root, e);
        if (rc != 0)
            return rc;
    }
    return 0;
}

/* ---- operations ------------------------------------------------------------------- */

static int dir_is_empty(const char *path);

/* The self-test in a private directory under <work>/tmp, which it must
 * leave empty. */
static int self_test(boxcall *b, result *r)
{
    char *tmp = sc_xjoin(b->work, "tmp");
    int rc = 0;
    if (mkdir(tmp, 0700) != 0)
        rc = ad_fail(EXIT_ADAPTER, "mkdir %s: %s", tmp, strerror(errno));
    if (rc == 0) {
        r->code = sc_box_self_test(&b->rel, b->archive, tmp, &b->host, &r->err);
        if (!dir_is_empty(tmp))
            rc = ad_fail(EXIT_ADAPTER, "the self-test left something in %s", tmp);
    }
    free(tmp);
    return rc;
}

static int op_box_verify(kase *k, result *r)
{
    static const char *const names[] = {COMMON_ARGS, "selfTest", NULL};
    boxcall b;
    int with_self_test = 0;
    int rc = setup(k, &b, names);
    if (rc == 0)
        rc = bool_arg(k, "selfTest", &with_self_test);
    if (rc == 0)
        rc = open_release(&b, r);
    if (rc == 0 && r->code == SC_OK) {
        sc_box_report rep;
        memset(&rep, 0, sizeof rep);
        r->code = sc_box_verify(&b.rel, b.archive, &rep, &r->err);
        if (r->code == SC_OK && with_self_test)
            rc = self_test(&b, r);
        if (rc == 0 && r->code == SC_OK) {
            r->out = ad_must(sc_json_new_object());
            ad_put(r->out, "status", ad_must(sc_json_new_string("verified")));
            ad_put(r->out, "boxId", str_or_null(rep.box_id));
            ad_put(r->out, "version", str_or_null(rep.version));
            ad_put(r->out, "targetId", str_or_null(rep.target_id));
            ad_put(r->out, "archiveEntryCount",
                   ad_must(sc_json_new_number((double)rep.entry_count)));
            ad_put(r->out, "executionKind", str_or_null(rep.execution_kind));
            ad_put(r->out, "requiredAssetCount",
                   ad_must(sc_json_new_number((double)rep.required_asset_count)));
            if (with_self_test)
                ad_put(r->out, "selfTest", ad_must(sc_json_new_string("passed")));
        }
    }
    boxcall_free(&b);
    return rc;
}

static int op_box_prepare(kase *k, result *r)
{
    static const char *const names[] = {COMMON_ARGS, "destinationExists", NULL};
    boxcall b;
    int pre = 0;
    char *dest = NULL;
    int rc = setup(k, &b, names);
    if (rc == 0)
        rc = bool_arg(k, "destinationExists", &pre);
    if (rc == 0)
        rc = open_release(&b, r);
    if (rc == 0 && r->code == SC_OK) {
        sc_receipt rc_;
        memset(&rc_, 0, sizeof rc_);
        rc = prepare(&b, pre, &rc_, r, &dest);
        if (rc == 0 && r->code == SC_OK)
            rc = receipt_out(&b, &rc_, r);
        sc_receipt_free(&rc_);
    } else if (rc == 0 && !pre && exists((dest = sc_xjoin(b.work, "box")))) {
        rc = ad_fail(EXIT_ADAPTER, "a rejected release left a destination behind");
    }
    free(dest);
    boxcall_free(&b);
    return rc;
}

/* The root attach is given: the prepared one, or a broken stand-in. */
static int attach_root(boxcall *b, const char *dest, char **root)
{
    const char *how = NULL;
    int rc = ad_string_arg(b->k, "root", 0, &how);
    if (rc != 0)
        return rc;
    if (how == NULL) {
        *root = sc_xstrdup(dest);
    } else if (strcmp(how, "missing") == 0) {
        *root = sc_xjoin(b->work, "no-such-root");
    } else if (strcmp(how, "file") == 0) {
        *root = sc_xstrdup(b->archive);
    } else if (strcmp(how, "symlink") == 0) {
        *root = sc_xjoin(b->work, "root-link");
        if (symlink(dest, *root) != 0)
            return ad_fail(EXIT_ADAPTER, "symlink %s: %s", *root, strerror(errno));
    } else {
        return ad_fail(EXIT_UNSUPPORTED, "args.root \"%s\" is not missing, file or symlink", how);
    }
    return 0;
}

static int op_box_attach(kase *k, result *r)
{
    static const char *const names[] = {COMMON_ARGS, "afterPrepare", "root", NULL};
    boxcall b;
    char *dest = NULL, *root = NULL;
    sc_receipt prepared, attached;
    memset(&prepared, 0, sizeof prepared);
    memset(&attached, 0, sizeof attached);
    int rc = setup(k, &b, names);
    if (rc == 0)
        rc = open_release(&b, r);
    if (rc == 0 && r->code == SC_OK)
        rc = prepare(&b, 0, &prepared, r, &dest);
    if (rc == 0 && r->code == SC_OK)
        rc = apply_edits(&b, dest);
    if (rc == 0 && r->code == SC_OK)
        rc = attach_root(&b, dest, &root);
    if (rc == 0 && r->code == SC_OK) {
        r->code = sc_box_attach(&b.rel, root, &b.host, b.full, b.reveal, &attached, &r->err);
        if (r->code == SC_OK)
            rc = receipt_out(&b, &attached, r);
    }
    sc_receipt_free(&prepared);
    sc_receipt_free(&attached);
    free(root);
    free(dest);
    boxcall_free(&b);
    return rc;
}

static int op_payload_verify(kase *k, result *r)
{
    static const char *const names[] = {COMMON_ARGS, "afterPrepare", NULL};
    boxcall b;
    char *dest = NULL;
    sc_receipt prepared;
    memset(&prepared, 0, sizeof prepared);
    int rc = setup(k, &b, names);
    if (rc == 0)
        rc = open_release(&b, r);
    if (rc == 0 && r->code == SC_OK)
        rc = prepare(&b, 0, &prepared, r, &dest);
    if (rc == 0 && r->code == SC_OK)
        rc = apply_edits(&b, dest);
    if (rc == 0 && r->code == SC_OK) {
        sc_extracted_report rep;
        memset(&rep, 0, sizeof rep);
        r->code = sc_box_verify_extracted(&b.rel, dest, &b.host, b.full, b.reveal, &rep,
                                          &r->err);
        if (r->code == SC_OK) {
            r->out = ad_must(sc_json_new_object());
            ad_put(r->out, "status", ad_must(sc_json_new_string("verified")));
            ad_put(r->out, "boxId", str_or_null(prepared.box_id));
            ad_put(r->out, "targetId", str_or_null(b.rel.target_id));
            ad_put(r->out, "entryCount", ad_must(sc_json_new_number((double)rep.entry_count)));
            rc = put_report(&b, r->out, rep.environment_report);
        }
        sc_extracted_report_free(&rep);
    }
    sc_receipt_free(&prepared);
    free(dest);
    boxcall_free(&b);
    return rc;
}

/* ---- running ------------------------------------------------------------------------ */

/* s with a leading root replaced by "$BOX". */
static sc_json *tokenised(const char *s, size_t len, const char *root)
{
    size_t rl = strlen(root);
    if (len >= rl && memcmp(s, root, rl) == 0 && (len == rl || s[rl] == '/')) {
        sc_buf buf = {0};
        sc_buf_puts(&buf, "$BOX");
        sc_buf_add(&buf, s + rl, len - rl);
        sc_json *v = ad_must(sc_json_new_string_len(sc_buf_str(&buf), len - rl + 4));
        sc_buf_free(&buf);
        return v;
    }
    return ad_must(sc_json_new_string_len(s, len));
}

/* The recorder's line: NULL when the file is empty (nothing ran). */
static int read_record(const char *path, sc_json **record)
{
    char *bytes = NULL;
    size_t len = 0;
    sc_error err;
    sc_error_clear(&err);
    *record = NULL;
    if (sc_file_read(path, &bytes, &len, NULL, &err) != SC_OK)
        return ad_fail(EXIT_ADAPTER, "%s", err.message);
    if (len == 0) {
        free(bytes);
        return 0;
    }
    char *nl = memchr(bytes, '\n', len);
    size_t line = nl != NULL ? (size_t)(nl - bytes) : len;
    sc_code c = sc_json_parse(bytes, line, record, &err);
    free(bytes);
    if (c != SC_OK || (*record)->type != SC_JSON_OBJECT)
        return ad_fail(EXIT_ADAPTER, "the recorder's line is not a JSON object: %s", err.message);
    return 0;
}

/* {exitCode, signal, argv, cwd, effectiveEnvironment, spawned, forwardedSignal?}
 * from the result and the record; root: the prepared root (NULL: the
 * recorded cwd, for run-box). */
static int run_out(const boxcall *b, const sc_run_result *res, const sc_json *record,
                   const char *root, result *r)
{
    const sc_json *argv = ad_get(record, "argv");
    const sc_json *cwd = ad_get(record, "cwd");
    const sc_json *env = ad_get(record, "environ");
    if (argv == NULL || argv->type != SC_JSON_ARRAY || cwd == NULL ||
        cwd->type != SC_JSON_STRING || env == NULL || env->type != SC_JSON_OBJECT)
        return ad_fail(EXIT_ADAPTER, "the recorder's line lacks argv, cwd or environ");
    if (root == NULL)
        root = cwd->string;
    r->out = ad_must(sc_json_new_object());
    ad_put(r->out, "exitCode", ad_must(res->exited ? sc_json_new_number(res->exit_code)
                                                   : sc_json_new_null()));
    ad_put(r->out, "signal", ad_must(res->term_signal != 0
                                         ? sc_json_new_string(sc_signal_name(res->term_signal))
                                         : sc_json_new_null()));
    sc_json *args = ad_must(sc_json_new_array());
    for (const sc_json *a = argv->child; a != NULL; a = a->next) {
        if (a->type != SC_JSON_STRING)
            return ad_fail(EXIT_ADAPTER, "the recorded argv holds a non-string");
        sc_json_array_append(args, tokenised(a->string, a->length, root));
    }
    ad_put(r->out, "argv", args);
    ad_put(r->out, "cwd", tokenised(cwd->string, cwd->length, root));
    ad_put(r->out, "effectiveEnvironment", ad_must(sc_json_copy(env)));
    ad_put(r->out, "spawned", ad_must(sc_json_new_bool(res->spawned)));
    if (res->forwarded_signal != 0)
        ad_put(r->out, "forwardedSignal",
               ad_must(sc_json_new_string(sc_signal_name(res->forwarded_signal))));
    return put_report(b, r->out, res->environment_report);
}

/* The same tree under the same name, but another directory: a copy takes
 * the root's place (its device and inode change). */
static int replace_root(const char *dest)
{
    char msg[512];
    size_t n = strlen(dest) + 6;
    char *copy = sc_xmalloc(n);
    snprintf(copy, n, "%s.copy", dest);
    int rc = 0;
    if (sc_copytree(dest, copy, msg, sizeof msg) != 0)
        rc = ad_fail(EXIT_ADAPTER, "copy %s: %s", dest, msg);
    else if (sc_rmtree(dest) != 0 || rename(copy, dest) != 0)
        rc = ad_fail(EXIT_ADAPTER, "replace %s: %s", dest, strerror(errno));
    free(copy);
    return rc;
}

static int op_box_run(kase *k, result *r)
{
    static const char *const names[] = {COMMON_ARGS, "afterPrepare", "attach", "replaceRoot",
                                        "env", "args", NULL};
    boxcall b;
    char *dest = NULL, *record_path = NULL;
    int attach = 0, replace = 0, fd = -1;
    sc_receipt prepared, attached;
    sc_run_result res;
    sc_json *record = NULL;
    memset(&prepared, 0, sizeof prepared);
    memset(&attached, 0, sizeof attached);
    memset(&res, 0, sizeof res);
    int rc = setup(k, &b, names);
    if (rc == 0)
        rc = bool_arg(k, "attach", &attach);
    if (rc == 0)
        rc = bool_arg(k, "replaceRoot", &replace);
    if (rc == 0)
        rc = open_release(&b, r);
    if (rc == 0 && r->code == SC_OK)
        rc = prepare(&b, 0, &prepared, r, &dest);
    if (rc == 0 && r->code == SC_OK)
        rc = apply_edits(&b, dest);
    if (rc == 0 && r->code == SC_OK && replace)
        rc = replace_root(dest);
    const sc_receipt *use = &prepared;
    if (rc == 0 && r->code == SC_OK && attach) {
        r->code = sc_box_attach(&b.rel, dest, &b.host, b.full, b.reveal, &attached, &r->err);
        use = &attached;
    }
    if (rc == 0 && r->code == SC_OK) {
        record_path = sc_xjoin(b.work, "record.jsonl");
        fd = open(record_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (fd < 0)
            rc = ad_fail(EXIT_ADAPTER, "%s: %s", record_path, strerror(errno));
    }
    if (rc == 0 && r->code == SC_OK) {
        sc_run_spec spec;
        memset(&spec, 0, sizeof spec);
        spec.root = use->root;
        spec.release = b.rel.doc.payload;
        spec.target = &b.rel.target;
        spec.dev = (unsigned long long)use->dev;
        spec.ino = (unsigned long long)use->ino;
        spec.host = &b.host;
        spec.caller = &b.caller;
        spec.args = b.args;
        spec.nargs = b.nargs;
        spec.env_report_full = b.full;
        spec.env_report_values = b.reveal;
        spec.stdin_fd = -1;
        spec.stdout_fd = fd;
        spec.stderr_fd = -1;
        spec.forward_signals = 1;
        r->code = sc_run(&spec, &res, &r->err);
        close(fd);
        fd = -1;
        rc = read_record(record_path, &record);
        if (rc == 0 && r->code != SC_OK && record != NULL)
            rc = ad_fail(EXIT_ADAPTER, "run rejected (%s) but the child recorded a start",
                         sc_code_name(r->code));
        if (rc == 0 && r->code == SC_OK && record == NULL)
            rc = ad_fail(EXIT_ADAPTER, "the run succeeded but the recorder wrote nothing");
        if (rc == 0 && r->code == SC_OK) {
            rc = run_out(&b, &res, record, use->root, r);
            struct stat st;
            if (rc == 0)
                ad_put(r->out, "persistentRootExists",
                       ad_must(sc_json_new_bool(lstat(use->root, &st) == 0 &&
                                                S_ISDIR(st.st_mode))));
        }
    }
    if (fd >= 0)
        close(fd);
    sc_json_free(record);
    sc_run_result_free(&res);
    sc_receipt_free(&prepared);
    sc_receipt_free(&attached);
    free(record_path);
    free(dest);
    boxcall_free(&b);
    return rc;
}

static int dir_is_empty(const char *path)
{
    DIR *d = opendir(path);
    if (d == NULL)
        return 0;
    int empty = 1;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            empty = 0;
    closedir(d);
    return empty;
}

static int op_box_run_temporary(kase *k, result *r)
{
    static const char *const names[] = {COMMON_ARGS, "env", "args", NULL};
    boxcall b;
    char *tmp = NULL, *record_path = NULL;
    sc_run_result res;
    sc_json *record = NULL;
    memset(&res, 0, sizeof res);
    int rc = setup(k, &b, names);
    if (rc == 0)
        rc = open_release(&b, r);
    if (rc == 0 && r->code == SC_OK) {
        tmp = sc_xjoin(b.work, "tmp");
        record_path = sc_xjoin(b.work, "record.jsonl");
        if (mkdir(tmp, 0700) != 0)
            rc = ad_fail(EXIT_ADAPTER, "mkdir %s: %s", tmp, strerror(errno));
    }
    if (rc == 0 && r->code == SC_OK) {
        /* run-box takes no stdout: the child inherits ours, pointed at the file. */
        int fd = open(record_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        int saved = -1;
        if (fd < 0 || fflush(stdout) != 0 || (saved = dup(STDOUT_FILENO)) < 0 ||
            dup2(fd, STDOUT_FILENO) < 0)
            rc = ad_fail(EXIT_ADAPTER, "cannot point stdout at %s: %s", record_path,
                         strerror(errno));
        if (fd >= 0)
            close(fd);
        if (rc == 0) {
            sc_box_run_options o;
            memset(&o, 0, sizeof o);
            o.tmpdir = tmp;
            o.host = &b.host;
            o.caller = &b.caller;
            o.args = b.args;
            o.nargs = b.nargs;
            o.full = b.full;
            o.reveal = b.reveal;
            o.forward_signals = 1;
            r->code = sc_box_run_temporary(&b.rel, b.archive, &o, &res, &r->err);
            fflush(stdout);
            if (dup2(saved, STDOUT_FILENO) < 0)
                rc = ad_fail(EXIT_ADAPTER, "cannot restore stdout: %s", strerror(errno));
        }
        if (saved >= 0)
            close(saved);
        if (rc == 0 && !dir_is_empty(tmp))
            rc = ad_fail(EXIT_ADAPTER, "run-box left something in %s", tmp);
        if (rc == 0)
            rc = read_record(record_path, &record);
        if (rc == 0 && r->code != SC_OK && record != NULL)
            rc = ad_fail(EXIT_ADAPTER, "run-box rejected (%s) but the child recorded a start",
                         sc_code_name(r->code));
        if (rc == 0 && r->code == SC_OK && record == NULL)
            rc = ad_fail(EXIT_ADAPTER, "run-box succeeded but the recorder wrote nothing");
        if (rc == 0 && r->code == SC_OK) {
            rc = run_out(&b, &res, record, NULL, r);
            if (rc == 0)
                ad_put(r->out, "temporaryDirectoryEmpty", ad_must(sc_json_new_bool(1)));
        }
    }
    sc_json_free(record);
    sc_run_result_free(&res);
    free(tmp);
    free(record_path);
    boxcall_free(&b);
    return rc;
}

const ad_op ad_ops_box[] = {
    {"box-attach", op_box_attach},
    {"box-prepare", op_box_prepare},
    {"box-run", op_box_run},
    {"box-run-temporary", op_box_run_temporary},
    {"box-verify", op_box_verify},
    {"payload-verify", op_payload_verify},
    {NULL, NULL},
};
