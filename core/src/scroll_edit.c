/* SPDX-License-Identifier: Apache-2.0 */
/*
 * scroll_edit.c — authoring: init, new scroll, add/remove, edit, refresh.
 *
 * Guarantees (scroll_edit.h): an edit replaces files only through
 * sc_file_write_atomic, then re-reads every target scroll of the box with
 * sc_scroll_load; a failure puts the original bytes back.  JSON is written
 * with sc_json_write in the member order of the file, new members placed
 * by the table of format-v3 5.2.  A new scroll directory is built under a
 * temporary name and renamed into place.
 */
#define _POSIX_C_SOURCE 200809L

#include "scrollcase/scroll_edit.h"
#include "cleanup_internal.h"
#include "scrollcase/remedy.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "scrollcase/compat.h"
#include "scrollcase/config.h"
#include "scrollcase/digest.h"
#include "scrollcase/download.h"
#include "scrollcase/file.h"
#include "scrollcase/path.h"
#include "scrollcase/scroll.h"
#include "scrollcase/strbuf.h"
#include "scrollcase/target.h"
#include "scrollcase/toml.h"

/* ---- small helpers ---------------------------------------------------- */

static char *dup_printf(const char *fmt, const char *a, const char *b)
{
    size_t n = strlen(fmt) + (a ? strlen(a) : 0) + (b ? strlen(b) : 0) + 1;
    char *s = malloc(n);
    if (s != NULL)
        snprintf(s, n, fmt, a ? a : "", b ? b : "");
    return s;
}

static sc_code oom(sc_error *err)
{
    return sc_error_set(err, SC_E_OUT_OF_MEMORY, NULL, "out of memory");
}

/* mkdir -p; 0 or -1 with errno. */
static int mkdirs(const char *path)
{
    char *p = strdup(path);
    if (p == NULL)
        return -1;
    for (char *s = p + 1; *s; s++) {
        if (*s != '/')
            continue;
        *s = '\0';
        if (mkdir(p, 0755) != 0 && errno != EEXIST) {
            free(p);
            return -1;
        }
        *s = '/';
    }
    int rc = mkdir(p, 0755);
    int e = errno;
    free(p);
    if (rc != 0 && e == EEXIST && sc_is_dir(path))
        return 0;
    errno = e;
    return rc;
}

static unsigned file_mode(const char *path)
{
    struct stat st;
    if (stat(path, &st) == 0)
        return (unsigned)(st.st_mode & 07777);
    return 0644;
}

static sc_code sha256_file_hex(const char *path, char hex[65], sc_error *err)
{
    unsigned char d[SC_SHA256_LEN];
    sc_code rc = sc_sha256_file(path, d, err);
    if (rc == SC_OK)
        sc_hex_lower(d, SC_SHA256_LEN, hex);
    return rc;
}

/* ---- member order (format-v3 5.2) ------------------------------------- */

static const char *const top_order[] = {
    "$schema", "extends", "schemaVersion", "scrollId", "scrollVersion",
    "boxId", "modelId", "runtimeId", "version", "sourceRevision", "target",
    "compatibility", "pythonVersion", "pixiVersion",
    "condaDependencyLicenseAudit", "pythonEntryPoint", "modelCacheSubdir",
    "environment", "assetBaseUrl", "assets", "assetArchives", "localFiles",
    "prunePaths", "uncompressedPaths", "selfTest", "weights", "execution",
    "parity", "cuda"};
static const char *const self_test_order[] = {
    "imports", "files", "pythonCode", "pythonFile", "timeoutSeconds"};
#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

static size_t rank_of(const char *const *order, size_t n, const char *key)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(order[i], key) == 0)
            return i;
    return n;
}

/*
 * Set obj[key] = value (taken): in place when present, else before the
 * first member the order lists later.  0, or -1 (value freed) on OOM.
 */
static int put_ordered(sc_json *obj, const char *key, sc_json *value,
                       const char *const *order, size_t n)
{
    if (value == NULL)
        return -1;
    if (sc_json_get(obj, key) != NULL)
        return sc_json_object_set(obj, key, value);
    size_t r = rank_of(order, n, key), pos = obj->length;
    for (size_t i = 0; i < obj->length; i++)
        if (rank_of(order, n, sc_json_at(obj, i)->key) > r) {
            pos = i;
            break;
        }
    size_t tail = obj->length - pos;
    if (tail == 0)
        return sc_json_object_append(obj, key, value);
    char **keys = calloc(tail, sizeof *keys);
    sc_json **vals = calloc(tail, sizeof *vals);
    int rc = 0;
    if (keys == NULL || vals == NULL)
        rc = -1;
    for (size_t i = 0; rc == 0 && i < tail; i++) {
        keys[i] = strdup(sc_json_at(obj, pos)->key);
        if (keys[i] == NULL) {
            rc = -1;
            break;
        }
        vals[i] = sc_json_object_take(obj, keys[i]);
    }
    if (rc == 0)
        rc = sc_json_object_append(obj, key, value);
    else
        sc_json_free(value);
    for (size_t i = 0; keys != NULL && vals != NULL && i < tail; i++) {
        if (vals[i] != NULL && sc_json_object_append(obj, keys[i], vals[i]) != 0)
            rc = -1;
        free(keys[i]);
    }
    free(keys);
    free(vals);
    return rc;
}

/* obj[key] as an array/object, created (ordered) when absent; NULL: wrong
 * type (*bad = 1) or OOM. */
static sc_json *child_of(sc_json *obj, const char *key, sc_json_type t,
                         const char *const *order, size_t n, int *bad)
{
    *bad = 0;
    sc_json *v = sc_json_get(obj, key);
    if (v != NULL) {
        if (!sc_json_is(v, t))
            *bad = 1;
        return *bad ? NULL : v;
    }
    v = t == SC_JSON_ARRAY ? sc_json_new_array() : sc_json_new_object();
    if (put_ordered(obj, key, v, order, n) != 0)
        return NULL;
    return sc_json_get(obj, key);
}

/* 1 if array holds the string s. */
static int array_has_string(const sc_json *arr, const char *s)
{
    for (size_t i = 0; i < arr->length; i++) {
        const char *e = sc_json_cstr(sc_json_at(arr, i));
        if (e != NULL && strcmp(e, s) == 0)
            return 1;
    }
    return 0;
}

/*
 * Replace obj[key] (an array) by a copy without the elements keep() says
 * no to; an array left empty is removed.  Returns the number dropped, -1
 * on OOM.
 */
typedef int (*keep_fn)(const sc_json *elem, const void *ctx);
static long filter_array(sc_json *obj, const char *key, keep_fn keep,
                         const void *ctx)
{
    sc_json *arr = sc_json_get(obj, key);
    if (arr == NULL || !sc_json_is(arr, SC_JSON_ARRAY))
        return 0;
    sc_json *out = sc_json_new_array();
    if (out == NULL)
        return -1;
    long dropped = 0;
    for (size_t i = 0; i < arr->length; i++) {
        const sc_json *e = sc_json_at(arr, i);
        if (keep(e, ctx)) {
            if (sc_json_array_append(out, sc_json_copy(e)) != 0) {
                sc_json_free(out);
                return -1;
            }
        } else {
            dropped++;
        }
    }
    if (dropped == 0) {
        sc_json_free(out);
        return 0;
    }
    if (out->length == 0) {
        sc_json_free(out);
        sc_json_object_remove(obj, key);
        return dropped;
    }
    return sc_json_object_set(obj, key, out) == 0 ? dropped : -1;
}

static int keep_not_string(const sc_json *e, const void *ctx)
{
    const char *s = sc_json_cstr(e);
    return s == NULL || strcmp(s, (const char *)ctx) != 0;
}

/* ---- the files of one edit -------------------------------------------- */

typedef struct edit_file {
    char *path;
    char *orig;      /* original bytes */
    size_t orig_len;
    sc_json *doc;    /* JSON files */
    int is_base;
    int extends;     /* a target scroll that extends the base */
    char *new_bytes; /* set when the file changes */
    size_t new_len;
    int written;
} edit_file;

typedef struct edit_set {
    edit_file *f;
    size_t n;
    sc_scroll_ref_list refs; /* every target of the box */
    char *box_dir;
} edit_set;

static void edit_set_free(edit_set *s)
{
    for (size_t i = 0; i < s->n; i++) {
        free(s->f[i].path);
        free(s->f[i].orig);
        sc_json_free(s->f[i].doc);
        free(s->f[i].new_bytes);
    }
    free(s->f);
    free(s->box_dir);
    sc_scroll_ref_list_free(&s->refs);
    memset(s, 0, sizeof *s);
}

static sc_code add_file(edit_set *s, const char *path, int json, int is_base,
                        sc_error *err)
{
    edit_file *f = realloc(s->f, (s->n + 1) * sizeof *f);
    if (f == NULL)
        return oom(err);
    s->f = f;
    edit_file *e = &s->f[s->n];
    memset(e, 0, sizeof *e);
    e->is_base = is_base;
    e->path = strdup(path);
    if (e->path == NULL)
        return oom(err);
    s->n++;
    /* a pixi.toml over 1 MiB is invalid-pixi-toml (19.2), not io-error */
    sc_code rc = json ? sc_file_read(path, &e->orig, &e->orig_len, NULL, err)
                      : sc_file_read_bounded(path, SC_TOML_MAX_BYTES, SC_E_INVALID_PIXI_TOML,
                                             &e->orig, &e->orig_len, NULL, err);
    if (rc != SC_OK || !json)
        return rc;
    rc = sc_json_parse(e->orig, e->orig_len, &e->doc, err);
    if (rc != SC_OK) {
        sc_error_prefix(err, path);
        return rc;
    }
    if (!sc_json_is(e->doc, SC_JSON_OBJECT))
        return sc_error_set(err, SC_E_INVALID_SCROLL, path,
                            "%s: the top level is not an object", path);
    e->extends = !is_base && sc_json_get(e->doc, "extends") != NULL;
    return SC_OK;
}

/*
 * Choose the files an edit changes (scroll_edit.h).  pixi: the targets'
 * pixi.toml files instead of scroll.json.
 */
static sc_code select_files(const sc_author_ctx *c, const char *box, int pixi,
                            edit_set *s, sc_error *err)
{
    memset(s, 0, sizeof *s);
    if (box == NULL || box[0] == '\0' || strchr(box, '/') != NULL)
        return sc_error_set(err, SC_E_INVALID_REFERENCE, box,
                            "%s: a box is one name, not a <box>/<target> reference",
                            box ? box : "");
    sc_code rc = sc_scroll_list_refs(c->scrolls_dir, box, &s->refs, err);
    if (rc != SC_OK)
        return rc;
    s->box_dir = sc_path_join(c->scrolls_dir, box);
    if (s->box_dir == NULL)
        return oom(err);
    char *base = sc_path_join(s->box_dir, "scroll.json");
    if (base == NULL)
        return oom(err);
    int has_base = sc_is_file(base);
    const char *leaf = pixi ? "pixi.toml" : "scroll.json";
    const char *t = c->target;
    if (t == NULL && s->refs.count > 1) {
        free(base);
        return sc_error_set(err, SC_E_USAGE, box,
                            "box %s has %zu targets: pass --target <targetId> or --target all",
                            box, s->refs.count);
    }
    if (t != NULL && strcmp(t, "all") == 0 && has_base && !pixi) {
        rc = add_file(s, base, 1, 1, err);
        free(base);
        return rc;
    }
    free(base);
    int any = 0;
    for (size_t i = 0; i < s->refs.count; i++) {
        const char *tid = strchr(s->refs.refs[i], '/') + 1;
        if (t != NULL && strcmp(t, "all") != 0 && strcmp(t, tid) != 0)
            continue;
        char *p = dup_printf("%s/%s", s->refs.refs[i], leaf);
        char *full = p ? sc_path_join(c->scrolls_dir, p) : NULL;
        free(p);
        if (full == NULL)
            return oom(err);
        rc = add_file(s, full, !pixi, 0, err);
        free(full);
        if (rc != SC_OK)
            return rc;
        any = 1;
    }
    if (!any)
        return sc_error_set(err, SC_E_SCROLL_NOT_FOUND, t,
                            "box %s has no target %s", box, t);
    return SC_OK;
}

/* Serialise every JSON document (the changed ones: *changed set by caller). */
static sc_code serialise(edit_file *e, sc_error *err)
{
    free(e->new_bytes);
    e->new_bytes = NULL;
    return sc_json_write(e->doc, &e->new_bytes, &e->new_len, err);
}

/* Put back the original bytes of every file written. */
static void restore(edit_set *s)
{
    for (size_t i = 0; i < s->n; i++)
        if (s->f[i].written) {
            sc_error ignored;
            sc_file_write_atomic(s->f[i].path, s->f[i].orig, s->f[i].orig_len,
                                 file_mode(s->f[i].path), &ignored);
            s->f[i].written = 0;
        }
}

/* Write every changed file, then load every target of the box. */
static sc_code commit(const sc_author_ctx *c, edit_set *s, sc_error *err)
{
    /* An interruption waits for the edit to be whole or undone: the files
     * are replaced one by one, then re-read, then restored on a failure. */
    sigset_t held;
    sc_cleanup_hold(&held);
    sc_code rc = SC_OK;
    for (size_t i = 0; i < s->n && rc == SC_OK; i++) {
        edit_file *e = &s->f[i];
        if (e->new_bytes == NULL)
            continue;
        if (e->new_len == e->orig_len && memcmp(e->new_bytes, e->orig, e->orig_len) == 0)
            continue;
        rc = sc_file_write_atomic(e->path, e->new_bytes, e->new_len,
                                  file_mode(e->path), err);
        if (rc == SC_OK)
            e->written = 1;
    }
    for (size_t i = 0; i < s->refs.count && rc == SC_OK; i++) {
        sc_scroll *sc = NULL;
        rc = sc_scroll_load(c->scrolls_dir, s->refs.refs[i], &sc, err);
        sc_scroll_free(sc);
    }
    if (rc != SC_OK)
        restore(s);
    sc_cleanup_release(&held);
    return rc;
}

/* ---- new scroll --------------------------------------------------------- */

const char *sc_author_native_target(void)
{
#if defined(__APPLE__)
    return "macos-aarch64-metal";
#elif defined(_WIN32)
    return "windows-x86_64-cpu";
#else
    return "linux-x86_64-cpu";
#endif
}

static sc_code need(const char *v, const char *flag, sc_error *err)
{
    if (v == NULL || v[0] == '\0')
        return sc_error_set(err, SC_E_USAGE, flag, "new scroll requires %s <value>", flag);
    return SC_OK;
}

static int is_xy_version(const char *v)
{
    const char *p = v;
    if (*p < '0' || *p > '9')
        return 0;
    while (*p >= '0' && *p <= '9')
        p++;
    if (*p++ != '.' || *p < '0' || *p > '9')
        return 0;
    while (*p >= '0' && *p <= '9')
        p++;
    return *p == '\0';
}

/* The host constraints of a new scroll, upstream's order (already checked). */
static int has_compatibility(const sc_new_scroll_options *o)
{
    return o->min_host_app_version || o->max_host_app_version_exclusive ||
           o->min_macos_version || o->min_nvidia_driver_version || o->min_ram_gb;
}

static sc_json *new_compatibility(const sc_new_scroll_options *o)
{
    const struct {
        const char *member, *value;
    } texts[] = {{"minHostAppVersion", o->min_host_app_version},
                 {"maxHostAppVersionExclusive", o->max_host_app_version_exclusive},
                 {"minMacosVersion", o->min_macos_version},
                 {"minNvidiaDriverVersion", o->min_nvidia_driver_version}};
    sc_json *c = sc_json_new_object();
    int bad = c == NULL;
    for (size_t i = 0; !bad && i < sizeof texts / sizeof texts[0]; i++)
        if (texts[i].value != NULL)
            bad = sc_json_object_append(c, texts[i].member, sc_json_new_string(texts[i].value));
    if (!bad && o->min_ram_gb != NULL) {
        sc_json *ram = NULL;
        sc_error ignored;
        bad = sc_json_parse(o->min_ram_gb, strlen(o->min_ram_gb), &ram, &ignored) != SC_OK ||
              sc_json_object_append(c, "minRamGb", ram) != 0;
    }
    if (bad) {
        sc_json_free(c);
        return NULL;
    }
    return c;
}

/*
 * Check the host constraints of a new scroll: each flag's value as 18.3
 * can evaluate it, for a target it applies to.
 */
static sc_code check_compatibility_flags(const sc_new_scroll_options *o, const sc_target *t,
                                         sc_error *err)
{
    const struct {
        const char *flag, *value;
    } versions[] = {{"--min-host-app-version", o->min_host_app_version},
                    {"--max-host-app-version-exclusive", o->max_host_app_version_exclusive},
                    {"--min-macos-version", o->min_macos_version},
                    {"--min-nvidia-driver-version", o->min_nvidia_driver_version}};
    int cmp = 0;
    for (size_t i = 0; i < sizeof versions / sizeof versions[0]; i++)
        if (versions[i].value != NULL &&
            !sc_version_compare(versions[i].value, versions[i].value, &cmp))
            return sc_error_set(err, SC_E_USAGE, versions[i].flag,
                                "%s %.60s is not a dotted version (digits and dots: 1.2.0): "
                                "compat can only compare dotted numbers (format-v3 18.3), so "
                                "no host would ever meet it",
                                versions[i].flag, versions[i].value);
    if (o->min_host_app_version != NULL && o->max_host_app_version_exclusive != NULL &&
        sc_version_compare(o->min_host_app_version, o->max_host_app_version_exclusive, &cmp) &&
        cmp >= 0)
        return sc_error_set(err, SC_E_USAGE, "--max-host-app-version-exclusive",
                            "--max-host-app-version-exclusive %.40s is not above "
                            "--min-host-app-version %.40s: no host application could run the box",
                            o->max_host_app_version_exclusive, o->min_host_app_version);
    if (o->min_macos_version != NULL && t->platform != SC_PLATFORM_MACOS)
        return sc_error_set(err, SC_E_USAGE, "--min-macos-version",
                            "--min-macos-version is for a macOS target, not %s (format-v3 18.3 "
                            "checks it only on macOS)",
                            o->target_id);
    if (o->min_nvidia_driver_version != NULL && t->accelerator != SC_ACCEL_CUDA)
        return sc_error_set(err, SC_E_USAGE, "--min-nvidia-driver-version",
                            "--min-nvidia-driver-version is for a CUDA target, not %s: a box that "
                            "uses no GPU must not require an NVIDIA driver",
                            o->target_id);
    if (o->min_ram_gb != NULL) {
        sc_json *ram = NULL;
        sc_error ignored;
        int ok = sc_json_parse(o->min_ram_gb, strlen(o->min_ram_gb), &ram, &ignored) == SC_OK &&
                 ram->type == SC_JSON_NUMBER && ram->number > 0;
        sc_json_free(ram);
        if (!ok)
            return sc_error_set(err, SC_E_USAGE, "--min-ram-gb",
                                "--min-ram-gb %.40s is not a number greater than 0 (16, 0.5)",
                                o->min_ram_gb);
    }
    return SC_OK;
}

/* --default-args: a JSON array of strings without U+0000 (5.2), parsed. */
static sc_code parse_default_args(const char *text, sc_json **out, sc_error *err)
{
    *out = NULL;
    if (text == NULL) {
        *out = sc_json_new_array();
        return *out ? SC_OK : oom(err);
    }
    sc_json *a = NULL;
    sc_error why;
    int ok = sc_json_parse(text, strlen(text), &a, &why) == SC_OK && a->type == SC_JSON_ARRAY;
    for (const sc_json *e = ok ? a->child : NULL; ok && e != NULL; e = e->next)
        ok = e->type == SC_JSON_STRING && memchr(e->string, '\0', e->length) == NULL;
    if (!ok) {
        sc_json_free(a);
        return sc_error_set(err, SC_E_USAGE, "--default-args",
                            "--default-args %.60s is not a JSON array of strings without U+0000 "
                            "(e.g. '[\"--port\", \"8080\"]'): execution.defaultArgs is one "
                            "(format-v3 5.2)",
                            text);
    }
    *out = a;
    return SC_OK;
}

#define SC_AUTHOR_DEFAULT_SCRIPT "entrypoint.py"

/* The payload path of the script: --script, or with --generate-script the default. */
static const char *script_path(const sc_new_scroll_options *o)
{
    return o->script ? o->script : (o->generate_script ? SC_AUTHOR_DEFAULT_SCRIPT : NULL);
}

/* The starter script of --generate-script (caller frees). */
static char *starter_script(const char *box_id)
{
    static const char fmt[] =
        "\"\"\"The entry point of the box %s.\n"
        "\n"
        "Written by `scrollcase new scroll --generate-script` as a place to start.\n"
        "The box runs it with its own Python: the scroll's execution.defaultArgs\n"
        "first, then the arguments after `--` of `scrollcase run`.\n"
        "\"\"\"\n"
        "import sys\n"
        "\n"
        "\n"
        "def main(args):\n"
        "    print(\"%s: arguments\", args)\n"
        "    return 0\n"
        "\n"
        "\n"
        "if __name__ == \"__main__\":\n"
        "    sys.exit(main(sys.argv[1:]))\n";
    return dup_printf(fmt, box_id, box_id);
}

static sc_json *new_scroll_doc(const sc_new_scroll_options *o,
                               const sc_target *t, const char *source_path, sc_json *default_args)
{
    sc_json *d = sc_json_new_object(), *st = sc_json_new_object(),
            *imp = sc_json_new_array();
    char *runtime = o->runtime_id ? NULL : dup_printf("%s-runtime", o->box_id, NULL);
    int bad = d == NULL || st == NULL || imp == NULL ||
              (o->runtime_id == NULL && runtime == NULL);
    bad = bad || sc_json_object_append(d, "$schema", sc_json_new_string(SC_SCROLL_SCHEMA_ID));
    bad = bad || sc_json_object_append(d, "schemaVersion", sc_json_new_number(3));
    if (o->scroll_version != NULL)
        bad = bad || sc_json_object_append(d, "scrollVersion",
                                           sc_json_new_string(o->scroll_version));
    bad = bad || sc_json_object_append(d, "boxId", sc_json_new_string(o->box_id));
    bad = bad || sc_json_object_append(d, "modelId",
                                       sc_json_new_string(o->model_id ? o->model_id : o->box_id));
    bad = bad || sc_json_object_append(d, "runtimeId",
                                       sc_json_new_string(o->runtime_id ? o->runtime_id : runtime));
    bad = bad || sc_json_object_append(d, "version",
                                       sc_json_new_string(o->version ? o->version : "1.0.0"));
    bad = bad || sc_json_object_append(d, "sourceRevision", sc_json_new_string(o->source_revision));
    bad = bad || sc_json_object_append(d, "target", sc_target_to_json(t));
    if (!bad && has_compatibility(o)) {
        sc_json *compat = new_compatibility(o);
        bad = compat == NULL || sc_json_object_append(d, "compatibility", compat) != 0;
    }
    bad = bad || sc_json_object_append(
                     d, "pythonVersion",
                     sc_json_new_string(o->python_version ? o->python_version
                                                          : SC_AUTHOR_DEFAULT_PYTHON_VERSION));
    bad = bad || sc_json_object_append(
                     d, "pixiVersion",
                     sc_json_new_string(o->pixi_version ? o->pixi_version
                                                        : SC_AUTHOR_DEFAULT_PIXI_VERSION));
    if (o->asset_base_url != NULL)
        bad = bad || sc_json_object_append(d, "assetBaseUrl", sc_json_new_string(o->asset_base_url));
    if (!bad && source_path != NULL) {
        /* --generate-script: the starter, declared without sha256 (it is there to be edited) */
        sc_json *lf = sc_json_new_array(), *entry = sc_json_new_object();
        bad = lf == NULL || entry == NULL ||
              sc_json_object_append(entry, "sourcePath", sc_json_new_string(source_path)) ||
              sc_json_object_append(entry, "relativePath", sc_json_new_string(script_path(o)));
        if (!bad)
            bad = sc_json_array_append(lf, entry), entry = NULL;
        if (!bad)
            bad = sc_json_object_append(d, "localFiles", lf), lf = NULL;
        sc_json_free(entry);
        sc_json_free(lf);
    }
    bad = bad || sc_json_array_append(imp, sc_json_new_string("json"));
    if (!bad)
        bad = sc_json_object_append(st, "imports", imp), imp = NULL;
    if (!bad && source_path != NULL) {
        sc_json *files = sc_json_new_array();
        bad = files == NULL || sc_json_array_append(files, sc_json_new_string(script_path(o)));
        if (!bad)
            bad = sc_json_object_append(st, "files", files), files = NULL;
        sc_json_free(files);
    }
    if (!bad)
        bad = sc_json_object_append(d, "selfTest", st), st = NULL;
    if (o->weights != NULL)
        bad = bad || sc_json_object_append(d, "weights", sc_json_new_string(o->weights));
    if (!bad && o->execution != NULL && strcmp(o->execution, "none") != 0) {
        int script = strcmp(o->execution, "script") == 0;
        sc_json *ex = sc_json_new_object();
        bad = ex == NULL;
        bad = bad || sc_json_object_append(ex, "kind", sc_json_new_string(script ? "python-script"
                                                                            : "python-module"));
        bad = bad || sc_json_object_append(ex, script ? "script" : "module",
                                           sc_json_new_string(script ? script_path(o) : o->module));
        if (!bad)
            bad = sc_json_object_append(ex, "defaultArgs", default_args), default_args = NULL;
        if (bad)
            sc_json_free(ex);
        else
            bad = sc_json_object_append(d, "execution", ex);
    }
    free(runtime);
    sc_json_free(imp);
    sc_json_free(st);
    sc_json_free(default_args);
    if (bad) {
        sc_json_free(d);
        return NULL;
    }
    return d;
}

/* X.Y, X.Y.Z or X.Y.* with decimal parts: what --python-version may say. */
static int python_version_ok(const char *v)
{
    int parts = 0;
    const char *p = v;
    for (;;) {
        if (parts == 2 && p[0] == '*' && p[1] == '\0')
            return 1;
        size_t n = 0;
        while (p[n] >= '0' && p[n] <= '9')
            n++;
        if (n == 0 || n > 6)
            return 0;
        parts++;
        p += n;
        if (*p == '\0')
            return parts >= 2;
        if (*p != '.' || parts == 3)
            return 0;
        p++;
    }
}

static char *new_pixi_toml(const sc_new_scroll_options *o, const sc_target *t)
{
    const char *py = o->python_version ? o->python_version : SC_AUTHOR_DEFAULT_PYTHON_VERSION;
    char pyspec[128];
    if (is_xy_version(py))
        snprintf(pyspec, sizeof pyspec, "%s.*", py);
    else
        snprintf(pyspec, sizeof pyspec, "%s", py);
    const char *fmt = "[workspace]\n"
                      "name = \"%s-%s\"\n"
                      "channels = [\"conda-forge\"]\n"
                      "platforms = [\"%s\"]\n"
                      "\n"
                      "[dependencies]\n"
                      "python = \"%s\"\n";
    size_t n = strlen(fmt) + strlen(o->box_id) + strlen(o->target_id) + 32 + strlen(pyspec);
    char *s = malloc(n);
    if (s != NULL)
        snprintf(s, n, fmt, o->box_id, o->target_id, sc_target_conda_subdir(t), pyspec);
    return s;
}

/* A value written into pixi.toml between double quotes. */
static int toml_safe(const char *s)
{
    if (s == NULL || s[0] == '\0')
        return 0;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        if (*p < 0x20 || *p == 0x7f || *p == '"' || *p == '\\')
            return 0;
    return 1;
}

static void remove_tree2(const char *dir)
{
    char *a = sc_path_join(dir, "scroll.json"), *b = sc_path_join(dir, "pixi.toml");
    if (a)
        unlink(a);
    if (b)
        unlink(b);
    free(a);
    free(b);
    rmdir(dir);
}

/* The starter script of --generate-script, and the directories made for it. */
typedef struct starter {
    char *path;      /* the file, once created */
    char *made_from; /* the first directory this call made (removed with those below) */
    int written;
} starter;

static void starter_free(starter *f)
{
    free(f->path);
    free(f->made_from);
    f->path = f->made_from = NULL;
}

/* Remove the script and the directories made for it (each only when empty). */
static void starter_undo(starter *f)
{
    if (f->path != NULL && f->written)
        unlink(f->path);
    if (f->made_from == NULL || f->path == NULL)
        return;
    char *d = strdup(f->path);
    if (d == NULL)
        return;
    size_t keep = strlen(f->made_from);
    for (char *slash = strrchr(d, '/'); slash != NULL && (size_t)(slash - d) >= keep;
         slash = strrchr(d, '/')) {
        *slash = '\0';
        if (rmdir(d) != 0)
            break;
    }
    free(d);
}

/*
 * Create <project_root>/<source> exclusively (0644 whatever the umask), with
 * its missing directories (0755); f records what to undo.
 */
static sc_code starter_write(starter *f, const sc_new_scroll_options *o, const char *source,
                             sc_error *err)
{
    char *path = sc_path_join(o->project_root, source);
    char *text = starter_script(o->box_id);
    if (path == NULL || text == NULL) {
        free(path);
        free(text);
        return oom(err);
    }
    f->path = path;
    sc_code rc = SC_OK;
    struct stat st;
    if (lstat(path, &st) == 0) {
        rc = sc_error_set(err, SC_E_SCROLL_EXISTS, path,
                          "%s already exists: new scroll --generate-script never replaces a "
                          "file; choose another with --generated-script-path PATH",
                          path);
        goto done;
    }
    /* the first missing directory on the way down, then make them all */
    char *dir = strdup(path);
    if (dir == NULL) {
        rc = oom(err);
        goto done;
    }
    *strrchr(dir, '/') = '\0';
    char *probe = strdup(dir);
    char *first_missing = NULL;
    while (probe != NULL && probe[0] != '\0' && lstat(probe, &st) != 0 && errno == ENOENT) {
        free(first_missing);
        first_missing = strdup(probe);
        char *slash = strrchr(probe, '/');
        if (slash == NULL || slash == probe)
            break;
        *slash = '\0';
    }
    free(probe);
    if (first_missing != NULL) {
        if (mkdirs(dir) != 0) {
            rc = sc_error_set(err, SC_E_IO, dir, "%s: %s", dir, strerror(errno));
            f->made_from = first_missing; /* remove what was made */
            free(dir);
            goto done;
        }
        f->made_from = first_missing;
    }
    free(dir);
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) {
        int e = errno;
        rc = e == EEXIST ? sc_error_set(err, SC_E_SCROLL_EXISTS, path,
                                        "%s already exists: new scroll --generate-script never "
                                        "replaces a file; choose another with "
                                        "--generated-script-path PATH",
                                        path)
                         : sc_error_set(err, SC_E_IO, path, "%s: %s", path, strerror(e));
        goto done;
    }
    f->written = 1;
    size_t n = strlen(text), off = 0;
    while (rc == SC_OK && off < n) {
        ssize_t w = write(fd, text + off, n - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            rc = sc_error_set(err, SC_E_IO, path, "%s: %s", path, strerror(errno));
        else
            off += (size_t)w;
    }
    if (rc == SC_OK && (fchmod(fd, 0644) != 0 || fsync(fd) != 0))
        rc = sc_error_set(err, SC_E_IO, path, "%s: %s", path, strerror(errno));
    if (close(fd) != 0 && rc == SC_OK)
        rc = sc_error_set(err, SC_E_IO, path, "%s: %s", path, strerror(errno));
done:
    free(text);
    return rc;
}

sc_code sc_author_new_scroll(const char *scrolls_dir,
                             const sc_new_scroll_options *o, sc_error *err)
{
    sc_error_clear(err);
    sc_code rc;
    if ((rc = need(o->box_id, "--box-id", err)) != SC_OK ||
        (rc = need(o->target_id, "--target", err)) != SC_OK ||
        (rc = need(o->source_revision, "--source-revision", err)) != SC_OK)
        return rc;
    if (!sc_is_slug(o->box_id))
        return sc_error_set(err, SC_E_USAGE, "--box-id",
                            "--box-id %s is not a slug (lowercase letters, digits, '-' or '.')",
                            o->box_id);
    sc_target t;
    if ((rc = sc_target_parse_id(o->target_id, &t, err)) != SC_OK)
        return rc;
    if ((rc = check_compatibility_flags(o, &t, err)) != SC_OK)
        return rc;
    if (o->python_version != NULL && !python_version_ok(o->python_version))
        return sc_error_set(err, SC_E_USAGE, "--python-version",
                            "--python-version %.40s is not a Python version: give X.Y (3.12), "
                            "X.Y.Z (3.12.7) or X.Y.* — the scroll records the Python its box is "
                            "built for, and a word such as \"latest\" would pin nothing",
                            o->python_version);
    if (o->execution != NULL && strcmp(o->execution, "none") != 0 &&
        strcmp(o->execution, "script") != 0 && strcmp(o->execution, "module") != 0)
        return sc_error_set(err, SC_E_USAGE, "--execution",
                            "--execution must be script, module or none, not %s", o->execution);
    int script = o->execution && strcmp(o->execution, "script") == 0;
    int module = o->execution && strcmp(o->execution, "module") == 0;
    if (o->generate_script && !script)
        return sc_error_set(err, SC_E_USAGE, "--generate-script",
                            "--generate-script goes with --execution script (it writes the "
                            "script the box runs)");
    if (o->generated_script_path != NULL && !o->generate_script)
        return sc_error_set(err, SC_E_USAGE, "--generated-script-path",
                            "--generated-script-path goes with --generate-script");
    if (o->default_args != NULL && !script && !module)
        return sc_error_set(err, SC_E_USAGE, "--default-args",
                            "--default-args goes with --execution script or module: a box "
                            "without execution runs nothing (format-v3 5.2)");
    if (script && !o->generate_script && (rc = need(o->script, "--script", err)) != SC_OK)
        return rc;
    if (module && (rc = need(o->module, "--module", err)) != SC_OK)
        return rc;
    if ((o->script && !script) || (o->module && !module))
        return sc_error_set(err, SC_E_USAGE, o->script && !script ? "--script" : "--module",
                            "%s goes with --execution %s",
                            o->script && !script ? "--script" : "--module",
                            o->script && !script ? "script" : "module");
    if (o->weights != NULL && strcmp(o->weights, "embed") != 0)
        return sc_error_set(err, SC_E_USAGE, "--weights",
                            "a new scroll has no asset, so --weights can only be embed; "
                            "add assets, then edit scroll --field weights --value on-demand");
    char *source = NULL; /* --generate-script: its project path */
    if (o->generate_script) {
        if (o->project_root == NULL)
            return sc_error_set(err, SC_E_USAGE, NULL,
                                "sc_author_new_scroll: --generate-script needs the project root");
        const char *sp = script_path(o);
        if ((rc = sc_path_check(sp, strlen(sp), o->script ? "--script" : NULL, err)) != SC_OK)
            return rc;
        source = o->generated_script_path
                     ? strdup(o->generated_script_path)
                     : dup_printf("box-entrypoints/%s/%s/" SC_AUTHOR_DEFAULT_SCRIPT, o->box_id,
                                  o->target_id);
        if (source == NULL)
            return oom(err);
        if ((rc = sc_path_check(source, strlen(source), "--generated-script-path", err)) !=
            SC_OK) {
            free(source);
            return rc;
        }
    }
    sc_json *default_args = NULL;
    if ((rc = parse_default_args(o->default_args, &default_args, err)) != SC_OK) {
        free(source);
        return rc;
    }
    if (!sc_is_dir(scrolls_dir)) {
        free(source);
        sc_json_free(default_args);
        return sc_error_set(err, SC_E_IO, scrolls_dir,
                            "%s: no scrolls directory; run `" SC_REMEDY_INIT "` first", scrolls_dir);
    }
    char *box_dir = sc_path_join(scrolls_dir, o->box_id);
    char *tdir = box_dir ? sc_path_join(box_dir, o->target_id) : NULL;
    char *stage = box_dir ? dup_printf("%s/.new-%s-XXXXXX", box_dir, o->target_id) : NULL;
    sc_json *doc = new_scroll_doc(o, &t, source, default_args);
    char *toml = new_pixi_toml(o, &t), *json = NULL;
    size_t json_len = 0;
    int made_box = 0, staged = 0, box_slot = -1, stage_slot = -1;
    starter st_file = {NULL, NULL, 0};
    struct stat st;
    if (box_dir == NULL || tdir == NULL || stage == NULL || doc == NULL || toml == NULL) {
        rc = oom(err);
        goto out;
    }
    if (lstat(tdir, &st) == 0) {
        rc = sc_error_set(err, SC_E_SCROLL_EXISTS, tdir, "scroll already exists: %s/%s",
                          o->box_id, o->target_id);
        goto out;
    }
    if ((rc = sc_json_write(doc, &json, &json_len, err)) != SC_OK)
        goto out;
    if (!sc_is_dir(box_dir)) {
        sigset_t held;
        sc_cleanup_hold(&held); /* what it makes, an interruption removes (cleanup.h) */
        if (mkdir(box_dir, 0755) != 0) {
            int e = errno;
            sc_cleanup_release(&held);
            rc = sc_error_set(err, SC_E_IO, box_dir, "%s: %s", box_dir, strerror(e));
            goto out;
        }
        box_slot = sc_cleanup_add_path(box_dir);
        sc_cleanup_release(&held);
        made_box = 1;
    }
    if (sc_cleanup_mkdtemp(stage, &stage_slot) != 0) {
        rc = sc_error_set(err, SC_E_IO, box_dir, "%s: %s", box_dir, strerror(errno));
        goto out;
    }
    staged = 1;
    chmod(stage, 0755);
    char *p1 = sc_path_join(stage, "scroll.json"), *p2 = sc_path_join(stage, "pixi.toml");
    if (p1 == NULL || p2 == NULL)
        rc = oom(err);
    else if ((rc = sc_file_write_atomic(p1, json, json_len, 0644, err)) == SC_OK)
        rc = sc_file_write_atomic(p2, toml, strlen(toml), 0644, err);
    free(p1);
    free(p2);
    if (rc != SC_OK)
        goto out;
    if (source != NULL && (rc = starter_write(&st_file, o, source, err)) != SC_OK)
        goto out;
    if (rename(stage, tdir) != 0) {
        int e = errno;
        rc = (e == EEXIST || e == ENOTEMPTY)
                 ? sc_error_set(err, SC_E_SCROLL_EXISTS, tdir, "scroll already exists: %s/%s",
                                o->box_id, o->target_id)
                 : sc_error_set(err, SC_E_IO, tdir, "%s: %s", tdir, strerror(e));
        goto out;
    }
    staged = 0;
    sc_cleanup_drop_path(stage_slot, 0);
    stage_slot = -1;
    char *ref = dup_printf("%s/%s", o->box_id, o->target_id);
    sc_scroll *loaded = NULL;
    rc = ref ? sc_scroll_load(scrolls_dir, ref, &loaded, err) : oom(err);
    sc_scroll_free(loaded);
    free(ref);
    if (rc != SC_OK)
        remove_tree2(tdir);
out:
    if (staged)
        (void)sc_cleanup_remove_dir(stage_slot, stage);
    if (rc != SC_OK)
        starter_undo(&st_file);
    else if (st_file.path != NULL && o->generated_script_out != NULL)
        *o->generated_script_out = st_file.path, st_file.path = NULL;
    starter_free(&st_file);
    free(source);
    if (rc != SC_OK && made_box)
        rmdir(box_dir);
    sc_cleanup_drop_path(box_slot, 0);
    free(box_dir);
    free(tdir);
    free(stage);
    free(json);
    free(toml);
    sc_json_free(doc);
    return rc;
}

/* ---- init --------------------------------------------------------------- */

static int has_gitignore_line(const char *text)
{
    const char *p = text;
    while (*p) {
        const char *e = strchr(p, '\n');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        while (n > 0 && (p[n - 1] == '\r' || p[n - 1] == ' '))
            n--;
        if ((n == 12 && strncmp(p, ".scrollcase/", 12) == 0) ||
            (n == 11 && strncmp(p, ".scrollcase", 11) == 0) ||
            (n == 13 && strncmp(p, "/.scrollcase/", 13) == 0))
            return 1;
        if (e == NULL)
            break;
        p = e + 1;
    }
    return 0;
}

sc_code sc_author_init(const char *root, const char *scrolls_dir, int example,
                       const char *pixi_version, sc_init_result *res,
                       sc_error *err)
{
    sc_error_clear(err);
    memset(res, 0, sizeof *res);
    sc_code rc = SC_OK;
    sc_json *cfg = sc_json_new_object(), *paths = sc_json_new_object();
    char *cfg_path = sc_path_join(root, SC_CONFIG_FILE);
    char *gi_path = sc_path_join(root, ".gitignore");
    char *text = NULL, *gi = NULL, *newgi = NULL;
    size_t len = 0, gilen = 0;
    int bad = cfg == NULL || paths == NULL || cfg_path == NULL || gi_path == NULL;
    bad = bad || sc_json_object_append(cfg, "version", sc_json_new_number(1));
    for (int p = 0; !bad && p < SC_WS_PATH_COUNT; p++)
        bad = sc_json_object_append(paths, sc_ws_path_key((enum sc_ws_path)p),
                                    sc_json_new_string(sc_ws_path_default((enum sc_ws_path)p)));
    if (!bad)
        bad = sc_json_object_append(cfg, "paths", paths), paths = NULL;
    if (bad) {
        rc = oom(err);
        goto out;
    }
    if ((rc = sc_json_write(cfg, &text, &len, err)) != SC_OK)
        goto out;
    int existed = 0;
    rc = sc_file_write_new(cfg_path, text, len, 0644, &existed, err);
    if (rc != SC_OK && !existed)
        goto out;
    res->wrote_config = rc == SC_OK;
    sc_error_clear(err);
    rc = SC_OK;
    if (!sc_is_dir(scrolls_dir)) {
        if (mkdirs(scrolls_dir) != 0) {
            rc = sc_error_set(err, SC_E_IO, scrolls_dir, "%s: %s", scrolls_dir, strerror(errno));
            goto out;
        }
        res->created_scrolls = 1;
    }
    int missing = 0;
    rc = sc_file_read(gi_path, &gi, &gilen, &missing, err);
    if (rc != SC_OK && !missing)
        goto out;
    sc_error_clear(err);
    rc = SC_OK;
    if (gi == NULL || !has_gitignore_line(gi)) {
        const char *add = "# scrollcase build state\n.scrollcase/\n";
        size_t n = gilen + 1 + strlen(add) + 1;
        newgi = malloc(n);
        if (newgi == NULL) {
            rc = oom(err);
            goto out;
        }
        snprintf(newgi, n, "%s%s%s", gi ? gi : "",
                 gilen > 0 && gi[gilen - 1] != '\n' ? "\n" : "", add);
        rc = sc_file_write_atomic(gi_path, newgi, strlen(newgi),
                                  missing ? 0644 : file_mode(gi_path), err);
        if (rc != SC_OK)
            goto out;
        res->wrote_gitignore = 1;
    }
    if (example) {
        sc_new_scroll_options o;
        memset(&o, 0, sizeof o);
        o.box_id = SC_AUTHOR_EXAMPLE_BOX;
        o.target_id = sc_author_native_target();
        o.source_revision = "example";
        o.pixi_version = pixi_version;
        rc = sc_author_new_scroll(scrolls_dir, &o, err);
        if (rc == SC_E_SCROLL_EXISTS) {
            sc_error_clear(err);
            rc = SC_OK;
        } else if (rc == SC_OK) {
            res->wrote_example = 1;
        }
    }
out:
    sc_json_free(cfg);
    sc_json_free(paths);
    free(cfg_path);
    free(gi_path);
    free(text);
    free(gi);
    free(newgi);
    return rc;
}

/* ---- add / remove on one document -------------------------------------- */

static sc_code wrong_type(const edit_file *e, const char *member, sc_error *err)
{
    return sc_error_set(err, SC_E_INVALID_SCROLL, e->path, "%s: $.%s has the wrong type",
                        e->path, member);
}

/* Add rel to selfTest.files of doc (once). */
static sc_code self_test_file(edit_file *e, const char *rel, sc_error *err)
{
    int bad = 0;
    sc_json *st = child_of(e->doc, "selfTest", SC_JSON_OBJECT, top_order, NELEM(top_order), &bad);
    if (st == NULL)
        return bad ? wrong_type(e, "selfTest", err) : oom(err);
    sc_json *files = child_of(st, "files", SC_JSON_ARRAY, self_test_order,
                              NELEM(self_test_order), &bad);
    if (files == NULL)
        return bad ? wrong_type(e, "selfTest.files", err) : oom(err);
    if (array_has_string(files, rel))
        return SC_OK;
    return sc_json_array_append(files, sc_json_new_string(rel)) == 0 ? SC_OK : oom(err);
}

/* Put entry (taken) in doc[member], replacing one with the same relativePath. */
static sc_code put_entry(edit_file *e, const char *member, sc_json *entry, sc_error *err)
{
    int bad = 0;
    sc_json *arr = child_of(e->doc, member, SC_JSON_ARRAY, top_order, NELEM(top_order), &bad);
    if (arr == NULL) {
        sc_json_free(entry);
        return bad ? wrong_type(e, member, err) : oom(err);
    }
    const char *rel = sc_json_cstr(sc_json_get(entry, "relativePath"));
    sc_json *out = sc_json_new_array();
    int replaced = 0, fail = out == NULL;
    for (size_t i = 0; !fail && i < arr->length; i++) {
        const sc_json *x = sc_json_at(arr, i);
        const char *r = sc_json_cstr(sc_json_get(x, "relativePath"));
        if (!replaced && r != NULL && strcmp(r, rel) == 0) {
            fail = sc_json_array_append(out, sc_json_copy(entry));
            replaced = 1;
        } else {
            fail = sc_json_array_append(out, sc_json_copy(x));
        }
    }
    if (!fail && !replaced)
        fail = sc_json_array_append(out, sc_json_copy(entry));
    sc_json_free(entry);
    if (fail) {
        sc_json_free(out);
        return oom(err);
    }
    return sc_json_object_set(e->doc, member, out) == 0 ? SC_OK : oom(err);
}

typedef struct match_ctx {
    const char *value;
    const char *alt_key; /* "sourcePath" or "url" */
    char **removed;      /* relativePaths dropped */
    size_t nremoved;
    int oom;
} match_ctx;

static int keep_entry(const sc_json *x, const void *vctx)
{
    match_ctx *m = (match_ctx *)vctx;
    const char *r = sc_json_cstr(sc_json_get(x, "relativePath"));
    const char *a = sc_json_cstr(sc_json_get(x, m->alt_key));
    if (!((r && strcmp(r, m->value) == 0) || (a && strcmp(a, m->value) == 0)))
        return 1;
    if (r != NULL) {
        char **n = realloc(m->removed, (m->nremoved + 1) * sizeof *n);
        if (n == NULL) {
            m->oom = 1;
            return 0;
        }
        m->removed = n;
        if ((n[m->nremoved] = strdup(r)) == NULL) {
            m->oom = 1;
            return 0;
        }
        m->nremoved++;
    }
    return 0;
}

/* remove file/asset from one document; returns matches or -1 on OOM. */
static long remove_entries(edit_file *e, const char *member, const char *alt_key,
                           const char *value)
{
    match_ctx m = {value, alt_key, NULL, 0, 0};
    long n = filter_array(e->doc, member, keep_entry, &m);
    sc_json *st = sc_json_get(e->doc, "selfTest");
    for (size_t i = 0; n > 0 && i < m.nremoved; i++)
        if (st != NULL && sc_json_is(st, SC_JSON_OBJECT) &&
            filter_array(st, "files", keep_not_string, m.removed[i]) < 0)
            n = -1;
    for (size_t i = 0; i < m.nremoved; i++)
        free(m.removed[i]);
    free(m.removed);
    return m.oom ? -1 : n;
}

/* 1 if s is a conda package name. */
static int conda_name(const char *s)
{
    size_t n = strlen(s);
    if (n == 0)
        return 0;
    for (size_t i = 0; i < n; i++) {
        char ch = s[i];
        int alnum = (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9');
        if (!alnum && !((ch == '.' || ch == '_' || ch == '-') && i > 0 && i + 1 < n))
            return 0;
    }
    return 1;
}

/* ---- pixi.toml: [dependencies] edited in place ------------------------- */

/* One replacement of bytes [start, end) of the original. */
typedef struct text_edit {
    size_t start, end;
    char *with; /* owned */
} text_edit;

typedef struct edit_list {
    text_edit *e;
    size_t n, cap;
} edit_list;

static void edit_list_free(edit_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->e[i].with);
    free(l->e);
    memset(l, 0, sizeof *l);
}

static int edit_push(edit_list *l, size_t start, size_t end, const char *with)
{
    if (with == NULL)
        return -1; /* a failed sc_strbuf_printf below */
    if (l->n == l->cap) {
        size_t nc = l->cap ? l->cap * 2 : 8;
        text_edit *ne = realloc(l->e, nc * sizeof *ne);
        if (ne == NULL)
            return -1;
        l->e = ne;
        l->cap = nc;
    }
    char *w = strdup(with);
    if (w == NULL)
        return -1;
    l->e[l->n].start = start;
    l->e[l->n].end = end;
    l->e[l->n].with = w;
    l->n++;
    return 0;
}

static int edit_cmp(const void *a, const void *b)
{
    const text_edit *x = a, *y = b;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    return x->end < y->end ? -1 : x->end > y->end; /* an insertion before a removal there */
}

/* fmt printed into b (emptied first); NULL when that fails. */
static const char *text_of(sc_strbuf *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static const char *text_of(sc_strbuf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    sc_strbuf_truncate(b, 0);
    sc_code rc = sc_strbuf_vprintf(b, fmt, ap);
    va_end(ap);
    return rc == SC_OK ? b->p : NULL;
}

/* The first byte of the line that holds pos. */
static size_t line_start(const char *text, size_t pos)
{
    while (pos > 0 && text[pos - 1] != '\n')
        pos--;
    return pos;
}

/* The statement lines ([line start, line_end)) of every value under v. */
static int statement_lines(const char *text, const sc_toml *v, edit_list *l, size_t *first)
{
    if (v->origin == SC_TOML_VALUE) {
        size_t s = line_start(text, v->entry.start);
        if (s < *first)
            *first = s;
        return edit_push(l, s, v->line_end, "");
    }
    for (const sc_toml *c = v->child; c != NULL; c = c->next)
        if (statement_lines(text, c, l, first) != 0)
            return -1;
    return 0;
}

static sc_code by_hand(const char *path, const char *what, const char *name, sc_error *err)
{
    return sc_error_set(err, SC_E_INVALID_PIXI_TOML, path,
                        "%s: %s %s; scrollcase edits one-line entries of [dependencies] only: "
                        "edit the file by hand, then run `scrollcase scroll check`",
                        path, what, name);
}

/* One change of [dependencies]: spec NULL removes name, else sets it. */
typedef struct dep_change {
    const char *name;
    const char *spec;
} dep_change;

static int dep_change_cmp(const void *a, const void *b)
{
    const dep_change *const *x = a, *const *y = b;
    int c = strcmp((*x)->name, (*y)->name);
    return c != 0 ? c : (*x < *y ? -1 : *x > *y);
}

/*
 * Edit the [dependencies] table of a pixi.toml with n changes at once (the
 * file is parsed once and written once, so n changes cost what one does
 * plus their own bytes: linear).  A name given twice takes its last spec.
 * Only the bytes of the entries change: an existing value is replaced where
 * it stands; new entries go, in the order given, after the last entry of
 * the [dependencies] section (or beside the dotted `dependencies.x` lines,
 * or into an inline table), else into a new [dependencies] section at the
 * end; a removed entry takes its whole line (its comment included).
 * *found: a name was there.
 */
static sc_code dep_edit_many(const char *path, const char *text, size_t len,
                             const dep_change *ch, size_t n, sc_strbuf *out, int *found,
                             sc_error *err)
{
    *found = 0;
    /* the last change of each name wins: mark the others (sorted copy) */
    unsigned char *skip = n > 0 ? calloc(n, 1) : NULL;
    const dep_change **order = n > 0 ? malloc(n * sizeof *order) : NULL;
    if (n > 0 && (skip == NULL || order == NULL)) {
        free(skip);
        free(order);
        return oom(err);
    }
    for (size_t i = 0; i < n; i++)
        order[i] = &ch[i];
    if (n > 1)
        qsort(order, n, sizeof *order, dep_change_cmp);
    for (size_t i = 0; i + 1 < n; i++)
        if (strcmp(order[i]->name, order[i + 1]->name) == 0)
            skip[order[i] - ch] = 1;
    free(order);
    sc_toml *doc = NULL;
    sc_code rc = sc_toml_read(text, len, path, &doc, err);
    if (rc != SC_OK) {
        free(skip);
        return rc;
    }
    sc_strbuf qb = SC_STRBUF_INIT, nb = SC_STRBUF_INIT, adds = SC_STRBUF_INIT;
    int bad = 0;
    size_t nadds = 0;
    edit_list l;
    memset(&l, 0, sizeof l);
    const sc_toml *deps = sc_toml_get(doc, "dependencies");
    if (deps != NULL && deps->type != SC_TOML_TABLE)
        rc = sc_error_set(err, SC_E_INVALID_PIXI_TOML, path, "%s: dependencies is not a table",
                          path);
    const char *pre = deps != NULL && deps->origin == SC_TOML_DOTTED ? "dependencies." : "";
    int inline_table = deps != NULL && deps->origin == SC_TOML_VALUE;
    for (size_t i = 0; rc == SC_OK && !bad && i < n; i++) {
        if (skip[i])
            continue;
        const char *name = ch[i].name, *spec = ch[i].spec;
        sc_strbuf_truncate(&qb, 0);
        bad = sc_strbuf_printf(&qb, "\"%s\"", spec ? spec : "") != SC_OK;
        const char *quoted = qb.p ? qb.p : "";
        const sc_toml *m = deps ? sc_toml_get(deps, name) : NULL;
        *found |= m != NULL;
        if (m != NULL && m->origin == SC_TOML_VALUE) {
            if (spec != NULL) {
                bad = bad || edit_push(&l, m->value.start, m->value.end, quoted);
            } else if (inline_table) {
                /* inside an inline table: the entry and one comma beside it */
                const sc_toml *prev = NULL;
                for (const sc_toml *c = deps->child; c != NULL && c != m; c = c->next)
                    prev = c;
                if (m->next != NULL)
                    bad = bad || edit_push(&l, m->entry.start, m->next->entry.start, "");
                else if (prev != NULL)
                    bad = bad || edit_push(&l, prev->entry.end, m->entry.end, "");
                else
                    bad = bad || edit_push(&l, m->entry.start, m->entry.end, "");
            } else {
                bad = bad || edit_push(&l, line_start(text, m->entry.start), m->line_end, "");
            }
        } else if (m != NULL && m->origin == SC_TOML_DOTTED && !inline_table) {
            /* `name.version = ...` lines: all of them go; a new line takes the first one's place */
            size_t first = (size_t)-1;
            bad = bad || statement_lines(text, m, &l, &first);
            if (!bad && spec != NULL)
                bad = edit_push(&l, first, first, text_of(&nb, "%s%s = %s\n", pre, name, quoted));
        } else if (m != NULL) {
            rc = by_hand(path, "the dependency is written as a table:", name, err);
        } else if (spec != NULL) {
            /* new: gathered, then placed in one edit below */
            if (inline_table)
                bad = sc_strbuf_printf(&adds, "%s%s = %s",
                                       nadds > 0 || deps->last != NULL ? ", " : " ", name,
                                       quoted) != SC_OK;
            else
                bad = sc_strbuf_printf(&adds, "%s%s = %s\n", deps != NULL ? pre : "", name,
                                       quoted) != SC_OK;
            nadds++;
        }
    }
    if (rc == SC_OK && !bad && nadds > 0) {
        const char *a = adds.p;
        if (inline_table && deps->last != NULL) {
            size_t at = deps->last->entry.end;
            bad = edit_push(&l, at, at, a);
        } else if (inline_table) {
            size_t at = deps->value.end - 1; /* before the } */
            bad = edit_push(&l, at, at, text_of(&nb, "%s ", a));
        } else if (deps != NULL &&
                   (deps->origin == SC_TOML_HEADER || deps->origin == SC_TOML_DOTTED)) {
            size_t at = deps->body_end;
            const char *nl = at > 0 && text[at - 1] != '\n' ? "\n" : "";
            bad = edit_push(&l, at, at, text_of(&nb, "%s%s", nl, a));
        } else {
            /* no [dependencies] yet (or only [dependencies.x] tables): a new section at the end */
            const char *nl = len > 0 && text[len - 1] != '\n' ? "\n" : "";
            const char *gap = len > 0 ? "\n" : "";
            bad = edit_push(&l, len, len, text_of(&nb, "%s%s[dependencies]\n%s", nl, gap, a));
        }
    }
    free(skip);
    sc_toml_free(doc);
    sc_strbuf_free(&qb);
    sc_strbuf_free(&nb);
    sc_strbuf_free(&adds);
    if (rc == SC_OK && bad)
        rc = oom(err);
    if (rc != SC_OK) {
        edit_list_free(&l);
        return rc;
    }
    if (l.n > 1) /* l.e is NULL when nothing is edited */
        qsort(l.e, l.n, sizeof l.e[0], edit_cmp);
    size_t pos = 0;
    for (size_t i = 0; rc == SC_OK && i < l.n; i++) {
        if (l.e[i].start < pos) { /* overlapping edits: never made above */
            rc = sc_error_set(err, SC_E_INVALID_PIXI_TOML, path, "%s: overlapping edits", path);
            break;
        }
        if (sc_strbuf_add(out, text + pos, l.e[i].start - pos) != SC_OK ||
            sc_strbuf_adds(out, l.e[i].with) != SC_OK)
            rc = oom(err);
        if (l.e[i].end > pos)
            pos = l.e[i].end;
    }
    if (rc == SC_OK && sc_strbuf_add(out, text + pos, len - pos) != SC_OK)
        rc = oom(err);
    edit_list_free(&l);
    return rc;
}

/* Check one change's name and spec. */
static sc_code dep_change_check(const dep_change *d, sc_error *err)
{
    if (!conda_name(d->name))
        return sc_error_set(err, SC_E_USAGE, d->name,
                            "%s is not a conda package name (^[a-z0-9](?:[a-z0-9._-]*[a-z0-9])?$)",
                            d->name);
    if (d->spec != NULL && (!toml_safe(d->spec) || strlen(d->spec) > 256))
        return sc_error_set(err, SC_E_USAGE, "--version",
                            "--version must be 1-256 characters without quotes, backslashes "
                            "or control characters");
    return SC_OK;
}

/* Every change checked, then all made in one staged edit of each pixi.toml
 * of the box (all or nothing). */
static sc_code edit_deps_many(const sc_author_ctx *c, const char *box, const dep_change *ch,
                              size_t n, sc_error *err)
{
    for (size_t i = 0; i < n; i++) {
        sc_code rc = dep_change_check(&ch[i], err);
        if (rc != SC_OK)
            return rc;
    }
    edit_set s;
    sc_code rc = select_files(c, box, 1, &s, err);
    int any = 0;
    for (size_t i = 0; rc == SC_OK && i < s.n; i++) {
        edit_file *e = &s.f[i];
        sc_strbuf b = SC_STRBUF_INIT;
        int found = 0;
        rc = dep_edit_many(e->path, e->orig, e->orig_len, ch, n, &b, &found, err);
        if (rc == SC_OK && b.p == NULL && sc_strbuf_adds(&b, "") != SC_OK)
            rc = oom(err);
        if (rc != SC_OK) {
            sc_strbuf_free(&b);
            break;
        }
        any |= found;
        sc_json *check = NULL;
        rc = sc_toml_parse(b.p, b.len, e->path, &check, err);
        sc_json_free(check);
        e->new_bytes = sc_strbuf_detach(&b, &e->new_len);
    }
    if (rc == SC_OK && n == 1 && ch[0].spec == NULL && !any)
        rc = sc_error_set(err, SC_E_USAGE, ch[0].name,
                          "no dependency %s in the pixi.toml of box %s", ch[0].name, box);
    if (rc == SC_OK)
        rc = commit(c, &s, err);
    edit_set_free(&s);
    return rc;
}

static sc_code edit_deps(const sc_author_ctx *c, const char *box, const char *name,
                         const char *spec, sc_error *err)
{
    dep_change one = {name, spec};
    return edit_deps_many(c, box, &one, 1, err);
}

sc_code sc_author_add_deps(const sc_author_ctx *c, const char *box, const char *const *names,
                           const char *const *specs, size_t n, sc_error *err)
{
    sc_error_clear(err);
    if (n == 0)
        return sc_error_set(err, SC_E_USAGE, box, "no dependency to add");
    dep_change *ch = malloc(n * sizeof *ch);
    if (ch == NULL)
        return oom(err);
    for (size_t i = 0; i < n; i++) {
        ch[i].name = names[i];
        ch[i].spec = specs != NULL && specs[i] != NULL ? specs[i] : "*";
    }
    sc_code rc = edit_deps_many(c, box, ch, n, err);
    free(ch);
    return rc;
}

/* ---- add ------------------------------------------------------------------ */

/* The project file PATH: a regular non-link file inside the root. */
static sc_code project_file(const sc_author_ctx *c, const char *value, char **source,
                            char **abs_out, sc_error *err)
{
    *source = NULL;
    *abs_out = NULL;
    char cwdbuf[PATH_MAX];
    const char *cwd = c->cwd;
    if (cwd == NULL && (cwd = getcwd(cwdbuf, sizeof cwdbuf)) == NULL)
        return sc_error_set(err, SC_E_IO, NULL, "cannot read the working directory: %s",
                            strerror(errno));
    char *abs = sc_path_join(cwd, value);
    if (abs == NULL)
        return oom(err);
    struct stat st;
    if (lstat(abs, &st) != 0) {
        sc_code rc = sc_error_set(err, SC_E_LOCAL_FILE_MISSING, value, "%s: %s", value,
                                  strerror(errno));
        free(abs);
        return rc;
    }
    if (!S_ISREG(st.st_mode)) {
        sc_code rc = sc_error_set(err, SC_E_USAGE, value, "%s is %s, not a regular file", value,
                                  S_ISLNK(st.st_mode) ? "a symbolic link" : "special");
        free(abs);
        return rc;
    }
    char *slash = strrchr(abs, '/');
    char dirbuf[PATH_MAX], rootbuf[PATH_MAX];
    *slash = '\0';
    const char *dir = realpath(abs[0] ? abs : "/", dirbuf);
    *slash = '/';
    const char *root = realpath(c->project_root, rootbuf);
    size_t rn = root ? strlen(root) : 0;
    if (dir == NULL || root == NULL ||
        !(strncmp(dir, root, rn) == 0 && (dir[rn] == '/' || dir[rn] == '\0'))) {
        sc_code rc = sc_error_set(err, SC_E_UNSAFE_PATH, value,
                                  "%s is outside the project root %s", value, c->project_root);
        free(abs);
        return rc;
    }
    const char *rest = dir[rn] == '/' ? dir + rn + 1 : "";
    *source = rest[0] ? dup_printf("%s/%s", rest, slash + 1) : strdup(slash + 1);
    if (*source == NULL) {
        free(abs);
        return oom(err);
    }
    *abs_out = abs;
    return SC_OK;
}

static const char *base_name(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

/* Last segment of a URL's path (query and fragment cut), malloc'd; NULL if empty. */
static char *url_last_segment(const char *url)
{
    const char *start = strstr(url, "://");
    start = start ? start + 3 : url;
    size_t n = strcspn(start, "?#");
    const char *slash = NULL;
    for (size_t i = 0; i < n; i++)
        if (start[i] == '/')
            slash = start + i;
    if (slash == NULL || (size_t)(slash + 1 - start) >= n)
        return NULL;
    size_t len = n - (size_t)(slash + 1 - start);
    char *s = malloc(len + 1);
    if (s != NULL) {
        memcpy(s, slash + 1, len);
        s[len] = '\0';
    }
    return s;
}

static sc_code fetch_measure(const sc_author_ctx *c, const char *url, uint64_t *size,
                             char hex[65], sc_error *err)
{
    const char *base = getenv("TMPDIR");
    if (base == NULL || base[0] == '\0')
        base = "/tmp";
    char *dir = dup_printf("%s/scrollcase-asset-XXXXXX", base, NULL);
    if (dir == NULL)
        return oom(err);
    int slot; /* removed by an interruption too (cleanup.h) */
    if (sc_cleanup_mkdtemp(dir, &slot) != 0) {
        sc_code rc = sc_error_set(err, SC_E_IO, dir, "%s: %s", dir, strerror(errno));
        free(dir);
        return rc;
    }
    char *dest = sc_path_join(dir, "asset");
    sc_code rc;
    if (dest == NULL)
        rc = oom(err);
    else if (c->fetch != NULL)
        rc = c->fetch(c->fetch_ctx, url, dest, size, hex, err);
    else {
        sc_download_options o;
        memset(&o, 0, sizeof o);
        o.max_bytes = c->max_download_bytes; /* bounded while it streams */
        rc = sc_download_measure(url, dest, &o, size, hex, err);
    }
    (void)sc_cleanup_remove_dir(slot, dir);
    free(dest);
    free(dir);
    if (rc == SC_OK && *size == 0)
        rc = sc_error_set(err, SC_E_DOWNLOAD_FAILED, url, "%s: the asset is empty", url);
    return rc;
}

/* modelCacheSubdir every target of the box agrees on (malloc'd). */
static sc_code cache_subdir(const sc_author_ctx *c, const edit_set *s, char **out,
                            sc_error *err)
{
    *out = NULL;
    for (size_t i = 0; i < s->refs.count; i++) {
        sc_scroll *sc = NULL;
        sc_code rc = sc_scroll_load(c->scrolls_dir, s->refs.refs[i], &sc, err);
        if (rc != SC_OK)
            return rc;
        const char *m = sc_json_cstr(sc_json_get(sc->effective, "modelCacheSubdir"));
        if (*out != NULL && m != NULL && strcmp(*out, m) != 0) {
            sc_scroll_free(sc);
            free(*out);
            *out = NULL;
            return sc_error_set(err, SC_E_USAGE, "--to",
                                "the targets of the box disagree on modelCacheSubdir: pass --to");
        }
        if (*out == NULL && m != NULL && (*out = strdup(m)) == NULL) {
            sc_scroll_free(sc);
            return oom(err);
        }
        sc_scroll_free(sc);
    }
    return SC_OK;
}

sc_code sc_author_add(const sc_author_ctx *c, sc_author_kind kind,
                      const char *box, const char *value, const char *to,
                      const char *version, sc_error *err)
{
    sc_error_clear(err);
    if (value == NULL || value[0] == '\0')
        return sc_error_set(err, SC_E_USAGE, NULL, "add needs a value");
    if (to != NULL && kind != SC_AUTHOR_FILE && kind != SC_AUTHOR_ASSET)
        return sc_error_set(err, SC_E_USAGE, "--to", "--to is only for add file and add asset");
    if (version != NULL && kind != SC_AUTHOR_DEP)
        return sc_error_set(err, SC_E_USAGE, "--version", "--version is only for add dep");
    if (kind == SC_AUTHOR_DEP)
        return edit_deps(c, box, value, version ? version : "*", err);
    if (to != NULL) {
        sc_code rc = sc_path_check(to, strlen(to), "--to", err);
        if (rc != SC_OK)
            return rc;
    }
    if (kind == SC_AUTHOR_IMPORT && !sc_is_dotted_name(value))
        return sc_error_set(err, SC_E_USAGE, value, "%s is not a dotted module name", value);
    const char *eq = strchr(value, '=');
    if (kind == SC_AUTHOR_ENV && (eq == NULL || eq == value))
        return sc_error_set(err, SC_E_USAGE, value, "add env takes NAME=VALUE");
    if (kind == SC_AUTHOR_ASSET && strncmp(value, "http://", 7) != 0 &&
        strncmp(value, "https://", 8) != 0)
        return sc_error_set(err, SC_E_USAGE, value, "%s: an asset URL is http:// or https://",
                            value);

    edit_set s;
    sc_code rc = select_files(c, box, 0, &s, err);
    sc_json *entry = NULL;
    char *source = NULL, *abs = NULL, *rel = NULL;
    if (rc != SC_OK)
        goto out;
    if (kind == SC_AUTHOR_FILE) {
        char hex[65];
        if ((rc = project_file(c, value, &source, &abs, err)) != SC_OK ||
            (rc = sha256_file_hex(abs, hex, err)) != SC_OK)
            goto out;
        rel = strdup(to ? to : base_name(source));
        entry = sc_json_new_object();
        if (rel == NULL || entry == NULL ||
            sc_json_object_append(entry, "sourcePath", sc_json_new_string(source)) ||
            sc_json_object_append(entry, "relativePath", sc_json_new_string(rel)) ||
            sc_json_object_append(entry, "sha256", sc_json_new_string(hex))) {
            rc = oom(err);
            goto out;
        }
    } else if (kind == SC_AUTHOR_ASSET) {
        if (to != NULL) {
            rel = strdup(to);
        } else {
            char *sub = NULL, *seg = url_last_segment(value);
            if (seg == NULL) {
                rc = sc_error_set(err, SC_E_USAGE, value,
                                  "%s has no file name at the end of its path: pass --to", value);
                goto out;
            }
            if ((rc = cache_subdir(c, &s, &sub, err)) != SC_OK) {
                free(seg);
                goto out;
            }
            rel = dup_printf("%s/%s", sub ? sub : "model-cache", seg);
            free(sub);
            free(seg);
        }
        if (rel == NULL) {
            rc = oom(err);
            goto out;
        }
        if ((rc = sc_path_check(rel, strlen(rel), "relativePath", err)) != SC_OK)
            goto out;
        uint64_t size = 0;
        char hex[65];
        if ((rc = fetch_measure(c, value, &size, hex, err)) != SC_OK)
            goto out;
        entry = sc_json_new_object();
        if (entry == NULL ||
            sc_json_object_append(entry, "url", sc_json_new_string(value)) ||
            sc_json_object_append(entry, "relativePath", sc_json_new_string(rel)) ||
            sc_json_object_append(entry, "sizeBytes", sc_json_new_number((double)size)) ||
            sc_json_object_append(entry, "sha256", sc_json_new_string(hex))) {
            rc = oom(err);
            goto out;
        }
    }
    for (size_t i = 0; rc == SC_OK && i < s.n; i++) {
        edit_file *e = &s.f[i];
        int bad = 0;
        if (kind == SC_AUTHOR_FILE || kind == SC_AUTHOR_ASSET) {
            rc = put_entry(e, kind == SC_AUTHOR_FILE ? "localFiles" : "assets",
                           sc_json_copy(entry), err);
            if (rc == SC_OK)
                rc = self_test_file(e, rel, err);
        } else if (kind == SC_AUTHOR_ENV) {
            sc_json *env = child_of(e->doc, "environment", SC_JSON_OBJECT, top_order,
                                    NELEM(top_order), &bad);
            char *name = strndup(value, (size_t)(eq - value));
            if (env == NULL)
                rc = bad ? wrong_type(e, "environment", err) : oom(err);
            else if (name == NULL ||
                     sc_json_object_set(env, name, sc_json_new_string(eq + 1)) != 0)
                rc = oom(err);
            free(name);
        } else { /* import */
            sc_json *st = child_of(e->doc, "selfTest", SC_JSON_OBJECT, top_order,
                                   NELEM(top_order), &bad);
            sc_json *imp = st ? child_of(st, "imports", SC_JSON_ARRAY, self_test_order,
                                         NELEM(self_test_order), &bad)
                              : NULL;
            if (imp == NULL)
                rc = bad ? wrong_type(e, "selfTest.imports", err) : oom(err);
            else if (!array_has_string(imp, value) &&
                     sc_json_array_append(imp, sc_json_new_string(value)) != 0)
                rc = oom(err);
        }
        if (rc == SC_OK)
            rc = serialise(e, err);
    }
    if (rc == SC_OK)
        rc = commit(c, &s, err);
out:
    sc_json_free(entry);
    free(source);
    free(abs);
    free(rel);
    edit_set_free(&s);
    return rc;
}

/* ---- remove ---------------------------------------------------------------- */

sc_code sc_author_remove(const sc_author_ctx *c, sc_author_kind kind,
                         const char *box, const char *value, sc_error *err)
{
    sc_error_clear(err);
    if (value == NULL || value[0] == '\0')
        return sc_error_set(err, SC_E_USAGE, NULL, "remove needs a value");
    if (kind == SC_AUTHOR_DEP)
        return edit_deps(c, box, value, NULL, err);
    edit_set s;
    sc_code rc = select_files(c, box, 0, &s, err);
    long matched = 0;
    char *name = NULL;
    if (rc == SC_OK && kind == SC_AUTHOR_ENV) {
        const char *eq = strchr(value, '=');
        name = eq ? strndup(value, (size_t)(eq - value)) : strdup(value);
        if (name == NULL)
            rc = oom(err);
    }
    for (size_t i = 0; rc == SC_OK && i < s.n; i++) {
        edit_file *e = &s.f[i];
        long n = 0;
        if (kind == SC_AUTHOR_FILE)
            n = remove_entries(e, "localFiles", "sourcePath", value);
        else if (kind == SC_AUTHOR_ASSET)
            n = remove_entries(e, "assets", "url", value);
        else if (kind == SC_AUTHOR_ENV) {
            sc_json *env = sc_json_get(e->doc, "environment");
            if (env != NULL && sc_json_is(env, SC_JSON_OBJECT)) {
                n = sc_json_object_remove(env, name);
                if (env->length == 0)
                    sc_json_object_remove(e->doc, "environment");
            }
        } else { /* import */
            sc_json *st = sc_json_get(e->doc, "selfTest");
            sc_json *imp = st && sc_json_is(st, SC_JSON_OBJECT) ? sc_json_get(st, "imports")
                                                                : NULL;
            if (imp != NULL && sc_json_is(imp, SC_JSON_ARRAY) && array_has_string(imp, value)) {
                if (imp->length == 1 && !e->is_base && !e->extends) {
                    rc = sc_error_set(err, SC_E_INVALID_SCROLL, e->path,
                                      "%s: %s is the last import of selfTest.imports; a scroll "
                                      "needs at least one", e->path, value);
                    break;
                }
                n = filter_array(st, "imports", keep_not_string, value);
            }
        }
        if (n < 0)
            rc = oom(err);
        else if (n > 0) {
            matched += n;
            rc = serialise(e, err);
        }
    }
    if (rc == SC_OK && matched == 0)
        rc = sc_error_set(err, SC_E_USAGE, value, "box %s has no %s matching %s", box,
                          kind == SC_AUTHOR_FILE    ? "local file"
                          : kind == SC_AUTHOR_ASSET ? "asset"
                          : kind == SC_AUTHOR_ENV   ? "environment variable"
                                                    : "import",
                          value);
    if (rc == SC_OK)
        rc = commit(c, &s, err);
    free(name);
    edit_set_free(&s);
    return rc;
}

/* ---- edit scroll ------------------------------------------------------------ */

static const char *const editable[] = {
    "scrollId", "scrollVersion", "modelId", "runtimeId", "version",
    "sourceRevision", "pythonVersion", "pixiVersion",
    "condaDependencyLicenseAudit", "modelCacheSubdir", "assetBaseUrl", "weights"};

int sc_author_field_editable(const char *name)
{
    return name != NULL && rank_of(editable, NELEM(editable), name) < NELEM(editable);
}

sc_code sc_author_edit_field(const sc_author_ctx *c, const char *box,
                             const char *field, const char *value,
                             sc_error *err)
{
    sc_error_clear(err);
    if (!sc_author_field_editable(field))
        return sc_error_set(err, SC_E_USAGE, "--field",
                            "--field %s is not editable (scrollId scrollVersion modelId runtimeId "
                            "version sourceRevision pythonVersion pixiVersion "
                            "condaDependencyLicenseAudit modelCacheSubdir assetBaseUrl weights)",
                            field ? field : "");
    if (value == NULL)
        return sc_error_set(err, SC_E_USAGE, "--value", "edit scroll requires --value <value>");
    while (*value == ' ' || *value == '\t' || *value == '\n' || *value == '\r')
        value++;
    size_t n = strlen(value);
    while (n > 0 && (value[n - 1] == ' ' || value[n - 1] == '\t' || value[n - 1] == '\n' ||
                     value[n - 1] == '\r'))
        n--;
    if (n == 0)
        return sc_error_set(err, SC_E_USAGE, "--value", "--value is empty");
    char *v = strndup(value, n);
    if (v == NULL)
        return oom(err);
    if (strcmp(field, "weights") == 0 && strcmp(v, "embed") != 0 && strcmp(v, "on-demand") != 0) {
        sc_code rc = sc_error_set(err, SC_E_USAGE, "--value",
                                  "weights is embed or on-demand, not %s", v);
        free(v);
        return rc;
    }
    edit_set s;
    sc_code rc = select_files(c, box, 0, &s, err);
    for (size_t i = 0; rc == SC_OK && i < s.n; i++) {
        if (put_ordered(s.f[i].doc, field, sc_json_new_string(v), top_order, NELEM(top_order)))
            rc = oom(err);
        else
            rc = serialise(&s.f[i], err);
    }
    if (rc == SC_OK)
        rc = commit(c, &s, err);
    free(v);
    edit_set_free(&s);
    return rc;
}

sc_code sc_author_write_and_declare(const sc_author_ctx *c, const char *box, const char *path,
                                    const void *bytes, size_t len, const char *field,
                                    const char *value, sc_error *err)
{
    if (c == NULL || path == NULL || (bytes == NULL && len > 0))
        return sc_error_set(err, SC_E_USAGE, path, "sc_author_write_and_declare: no file");
    char *old = NULL;
    size_t old_len = 0;
    struct stat st;
    int existed = lstat(path, &st) == 0;
    if (existed) {
        sc_code rc = sc_file_read(path, &old, &old_len, NULL, err);
        if (rc != SC_OK)
            return rc;
    }
    sigset_t held; /* the file and the field, whole or undone (cleanup.h) */
    sc_cleanup_hold(&held);
    sc_code rc = sc_file_write_atomic(path, bytes, len, 0644, err);
    if (rc == SC_OK && (rc = sc_author_edit_field(c, box, field, value, err)) != SC_OK) {
        sc_error ignored;
        if (existed)
            (void)sc_file_write_atomic(path, old, old_len, (unsigned)(st.st_mode & 07777),
                                       &ignored);
        else
            (void)unlink(path);
    }
    sc_cleanup_release(&held);
    free(old);
    return rc;
}

/* ---- refresh ------------------------------------------------------------------ */

static sc_json *drift_record(const char *file, const char *a_key, const char *a,
                             const char *rel, const char *declared, const char *actual,
                             int repinned)
{
    sc_json *r = sc_json_new_object();
    if (r == NULL || sc_json_object_append(r, "file", sc_json_new_string(file)) ||
        sc_json_object_append(r, a_key, sc_json_new_string(a)) ||
        sc_json_object_append(r, "relativePath", sc_json_new_string(rel)) ||
        sc_json_object_append(r, "declared", sc_json_new_string(declared)) ||
        sc_json_object_append(r, "actual", sc_json_new_string(actual)) ||
        sc_json_object_append(r, "repinned", sc_json_new_bool(repinned))) {
        sc_json_free(r);
        return NULL;
    }
    return r;
}

/* Rewrite doc[member][i] with its member key set to value (taken). */
static int set_entry_member(sc_json *doc, const char *member, size_t i, const char *key,
                            sc_json *value)
{
    sc_json *arr = sc_json_get(doc, member);
    sc_json *out = sc_json_new_array();
    int bad = out == NULL || value == NULL;
    for (size_t k = 0; !bad && k < arr->length; k++) {
        sc_json *x = sc_json_copy(sc_json_at(arr, k));
        bad = x == NULL;
        if (!bad && k == i) {
            bad = sc_json_object_set(x, key, value) != 0;
            value = NULL;
        }
        bad = bad || sc_json_array_append(out, x) != 0;
    }
    sc_json_free(value);
    if (bad) {
        sc_json_free(out);
        return -1;
    }
    return sc_json_object_set(doc, member, out);
}

sc_code sc_author_refresh(const sc_author_ctx *c, const char *box, int repin,
                          int check_assets, sc_json **report, sc_error *err)
{
    sc_error_clear(err);
    if (report != NULL)
        *report = NULL;
    sc_author_ctx all = *c;
    edit_set s;
    memset(&s, 0, sizeof s);
    sc_json *rep = sc_json_new_object(), *lf = sc_json_new_array(), *as = sc_json_new_array();
    sc_code rc = SC_OK;
    size_t nlocal = 0, nsize = 0, nhash = 0;
    if (rep == NULL || lf == NULL || as == NULL) {
        rc = oom(err);
        goto out;
    }
    /* Every file of the box: the base (if any) and every target. */
    all.target = "all";
    if ((rc = select_files(&all, box, 0, &s, err)) != SC_OK)
        goto out;
    if (s.n == 1 && s.f[0].is_base) {
        edit_set t;
        all.target = NULL;
        for (size_t i = 0; rc == SC_OK && i < s.refs.count; i++) {
            all.target = strchr(s.refs.refs[i], '/') + 1;
            if ((rc = select_files(&all, box, 0, &t, err)) == SC_OK)
                rc = add_file(&s, t.f[0].path, 1, 0, err);
            edit_set_free(&t);
        }
        if (rc != SC_OK)
            goto out;
    }
    for (size_t i = 0; rc == SC_OK && i < s.n; i++) {
        edit_file *e = &s.f[i];
        int changed = 0;
        sc_json *files = sc_json_get(e->doc, "localFiles");
        for (size_t k = 0; files && sc_json_is(files, SC_JSON_ARRAY) && k < files->length; k++) {
            const sc_json *x = sc_json_at(files, k);
            const char *src = sc_json_cstr(sc_json_get(x, "sourcePath"));
            const char *rel = sc_json_cstr(sc_json_get(x, "relativePath"));
            const char *pin = sc_json_cstr(sc_json_get(x, "sha256"));
            if (src == NULL || rel == NULL || pin == NULL)
                continue;
            if ((rc = sc_path_check(src, strlen(src), "sourcePath", err)) != SC_OK)
                break;
            /* the source the build copies: links followed inside the project */
            char *p = NULL;
            char hex[65];
            if ((rc = sc_file_resolve_local(c->project_root, src, &p, err)) != SC_OK)
                break;
            rc = sha256_file_hex(p, hex, err);
            free(p);
            if (rc != SC_OK || strcmp(hex, pin) == 0)
                continue;
            nlocal++;
            if (sc_json_array_append(lf, drift_record(e->path, "sourcePath", src, rel, pin, hex,
                                                      repin)) != 0) {
                rc = oom(err);
                break;
            }
            if (repin) {
                if (set_entry_member(e->doc, "localFiles", k, "sha256",
                                     sc_json_new_string(hex)) != 0) {
                    rc = oom(err);
                    break;
                }
                files = sc_json_get(e->doc, "localFiles");
                changed = 1;
            }
        }
        sc_json *assets = check_assets ? sc_json_get(e->doc, "assets") : NULL;
        for (size_t k = 0; rc == SC_OK && assets && sc_json_is(assets, SC_JSON_ARRAY) &&
                           k < assets->length;
             k++) {
            const sc_json *x = sc_json_at(assets, k);
            const char *url = sc_json_cstr(sc_json_get(x, "url"));
            const char *rel = sc_json_cstr(sc_json_get(x, "relativePath"));
            const char *pin = sc_json_cstr(sc_json_get(x, "sha256"));
            uint64_t declared = 0, size = 0;
            char hex[65];
            if (url == NULL || rel == NULL || pin == NULL ||
                !sc_json_uint53(sc_json_get(x, "sizeBytes"), &declared))
                continue;
            if ((rc = fetch_measure(c, url, &size, hex, err)) != SC_OK)
                break;
            if (size == declared && strcmp(hex, pin) == 0)
                continue;
            if (size != declared)
                nsize++;
            else
                nhash++;
            if (sc_json_array_append(as, drift_record(e->path, "url", url, rel, pin, hex,
                                                      repin)) != 0) {
                rc = oom(err);
                break;
            }
            if (repin) {
                if (set_entry_member(e->doc, "assets", k, "sha256", sc_json_new_string(hex)) ||
                    set_entry_member(e->doc, "assets", k, "sizeBytes",
                                     sc_json_new_number((double)size))) {
                    rc = oom(err);
                    break;
                }
                assets = sc_json_get(e->doc, "assets");
                changed = 1;
            }
        }
        if (rc == SC_OK && changed)
            rc = serialise(e, err);
    }
    if (rc != SC_OK)
        goto out;
    if (repin) {
        rc = commit(c, &s, err);
    } else if (nlocal > 0) {
        rc = sc_error_set(err, SC_E_LOCAL_FILE_MISMATCH, box,
                          "%zu local file(s) of box %s no longer match their sha256; "
                          "re-run with --repin", nlocal, box);
    } else if (nsize > 0 || nhash > 0) {
        rc = sc_error_set(err, nsize > 0 ? SC_E_ASSET_SIZE : SC_E_ASSET_HASH, box,
                          "%zu asset(s) of box %s no longer match their pins; re-run with --repin",
                          nsize + nhash, box);
    }
out:
    if (rep != NULL && lf != NULL && as != NULL) {
        if (sc_json_object_append(rep, "localFiles", lf) == 0)
            lf = NULL;
        if (sc_json_object_append(rep, "assets", as) == 0)
            as = NULL;
    }
    sc_json_free(lf);
    sc_json_free(as);
    if (report != NULL && rep != NULL && rep->length == 2) {
        *report = rep;
        rep = NULL;
    }
    sc_json_free(rep);
    edit_set_free(&s);
    return rc;
}
