/* SPDX-License-Identifier: Apache-2.0 */
/*
 * conda_package.c — read a conda package (.conda or .tar.bz2) and extract it,
 * checked against its own metadata, into a directory of its own.
 *
 * Guarantees (conda_package.h has the whole contract):
 *   - streaming: every member is decompressed once, written once and hashed
 *     while it is written; nothing of a package is held in memory but its
 *     metadata and one I/O buffer;
 *   - nothing is written outside `dest`, and nothing through a link: every
 *     directory on a member's way is opened with O_NOFOLLOW relative to its
 *     parent, every file is created O_EXCL|O_NOFOLLOW;
 *   - the decompressed bytes are bounded (extraction budget; for a .conda,
 *     whose metadata comes first, by the sizes paths.json declares);
 *   - on any failure `dest` is removed and *out is NULL;
 *   - no global state: one call's state lives in its own context, so many
 *     packages may be extracted at once on many threads.
 */
#define _GNU_SOURCE /* memmem */
#include "scrollcase/conda_package.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lazylib_internal.h"
#include "scrollcase/copy.h"
#include "scrollcase/digest.h"
#include "scrollcase/file.h"
#include "scrollcase/json.h"
#include "scrollcase/path.h"
#include "scrollcase/remedy.h"
#include "scrollcase/strbuf.h"

#define IO_BUFFER (256u * 1024u)
#define LEGACY_PLACEHOLDER "/opt/anaconda1anaconda2anaconda3"
#define MAX_LINK_FOLLOWS 8
#define QUOTE_MAX 160
/* bytes a .conda payload may hold beyond what paths.json declares (members it
 * does not list as files) */
#define SC_CONDA_UNLISTED_SLACK (16ull << 20)

/* ---- errors ---------------------------------------------------------------- */

static sc_code oom(sc_error *err)
{
    return sc_error_set(err, SC_E_OUT_OF_MEMORY, NULL, "out of memory");
}

/* "<label>: <path>: <what>" with path quoted (it is untrusted). */
static sc_code member_err(sc_error *err, sc_code code, const char *label, const char *path,
                          const char *what)
{
    char q[QUOTE_MAX];
    sc_path_quote(path, strlen(path), q, sizeof q);
    return sc_error_set(err, code, label, "%s: %s: %s", label, q, what);
}

/* ---- metadata parsing -------------------------------------------------------- */

static void free_path(sc_conda_path *p)
{
    free(p->path);
    free(p->placeholder);
}

void sc_conda_package_free(sc_conda_package *pkg)
{
    if (pkg == NULL)
        return;
    free(pkg->name);
    free(pkg->version);
    free(pkg->build);
    free(pkg->subdir);
    free(pkg->license);
    free(pkg->noarch);
    for (size_t i = 0; i < pkg->n_depends; i++)
        free(pkg->depends[i]);
    free(pkg->depends);
    for (size_t i = 0; i < pkg->n_paths; i++)
        free_path(&pkg->paths[i]);
    free(pkg->paths);
    for (size_t i = 0; i < pkg->n_entry_points; i++) {
        free(pkg->entry_points[i].command);
        free(pkg->entry_points[i].module);
        free(pkg->entry_points[i].function);
    }
    free(pkg->entry_points);
    free(pkg);
}

static sc_code bad(sc_error *err, const char *label, const char *file, const char *fmt,
                   const char *arg)
{
    char q[QUOTE_MAX];
    sc_path_quote(arg != NULL ? arg : "", arg != NULL ? strlen(arg) : 0, q, sizeof q);
    char what[256];
    snprintf(what, sizeof what, fmt, q);
    return sc_error_set(err, SC_E_INVALID_PACKAGE, label, "%s: %s: %s", label, file, what);
}

/* A name, version or build: it becomes part of a file name in conda-meta/. */
static int record_word_ok(const char *s)
{
    if (s == NULL || s[0] == '\0' || s[0] == '.' || strlen(s) > 200)
        return 0;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        if (*p <= 0x20 || *p >= 0x7f || *p == '/' || *p == '\\')
            return 0;
    return 1;
}

static sc_code take_string(const sc_json *obj, const char *key, int required, char **out,
                           const char *label, sc_error *err)
{
    const sc_json *v = sc_json_get(obj, key);
    if (v == NULL || sc_json_is(v, SC_JSON_NULL)) {
        if (required)
            return bad(err, label, "info/index.json", "no \"%s\" string", key);
        return SC_OK;
    }
    if (!sc_json_is(v, SC_JSON_STRING) || memchr(v->string, '\0', v->length) != NULL)
        return bad(err, label, "info/index.json", "\"%s\" is not a string", key);
    *out = strdup(v->string);
    return *out != NULL ? SC_OK : oom(err);
}

static sc_code parse_index(const char *bytes, size_t len, const char *label,
                           sc_conda_package *pkg, sc_error *err)
{
    sc_json *doc = NULL;
    sc_error jerr;
    if (sc_json_parse(bytes, len, &doc, &jerr) != SC_OK)
        return bad(err, label, "info/index.json", "not JSON (%s)", jerr.message);
    sc_code rc = SC_OK;
    if (!sc_json_is(doc, SC_JSON_OBJECT)) {
        rc = bad(err, label, "info/index.json", "not an object%s", "");
        goto done;
    }
    if ((rc = take_string(doc, "name", 1, &pkg->name, label, err)) != SC_OK ||
        (rc = take_string(doc, "version", 1, &pkg->version, label, err)) != SC_OK ||
        (rc = take_string(doc, "build", 1, &pkg->build, label, err)) != SC_OK ||
        (rc = take_string(doc, "subdir", 0, &pkg->subdir, label, err)) != SC_OK)
        goto done;
    const char *words[3] = {pkg->name, pkg->version, pkg->build};
    for (int i = 0; i < 3; i++)
        if (!record_word_ok(words[i])) {
            rc = bad(err, label, "info/index.json",
                     "name, version or build %s is not a plain printable word", words[i]);
            goto done;
        }
    const sc_json *lic = sc_json_get(doc, "license");
    if (sc_json_is(lic, SC_JSON_STRING) && memchr(lic->string, '\0', lic->length) == NULL &&
        (pkg->license = strdup(lic->string)) == NULL) {
        rc = oom(err);
        goto done;
    }
    const sc_json *na = sc_json_get(doc, "noarch");
    if (sc_json_is(na, SC_JSON_STRING)) {
        if (strcmp(na->string, "python") != 0 && strcmp(na->string, "generic") != 0) {
            rc = bad(err, label, "info/index.json", "unknown noarch kind %s", na->string);
            goto done;
        }
        pkg->noarch = strdup(na->string);
    } else if (sc_json_is(na, SC_JSON_BOOL) && na->boolean) {
        pkg->noarch = strdup("generic"); /* the old boolean form */
    }
    if (na != NULL && sc_json_is(na, SC_JSON_STRING) == 0 && sc_json_is(na, SC_JSON_BOOL) == 0 &&
        !sc_json_is(na, SC_JSON_NULL)) {
        rc = bad(err, label, "info/index.json", "\"noarch\" is neither a string nor a boolean%s",
                 "");
        goto done;
    }
    if ((sc_json_is(na, SC_JSON_STRING) || (sc_json_is(na, SC_JSON_BOOL) && na->boolean)) &&
        pkg->noarch == NULL) {
        rc = oom(err);
        goto done;
    }
    const sc_json *deps = sc_json_get(doc, "depends");
    if (deps != NULL && !sc_json_is(deps, SC_JSON_NULL)) {
        if (!sc_json_is(deps, SC_JSON_ARRAY)) {
            rc = bad(err, label, "info/index.json", "\"depends\" is not an array%s", "");
            goto done;
        }
        pkg->depends = calloc(deps->length + 1, sizeof *pkg->depends);
        if (pkg->depends == NULL) {
            rc = oom(err);
            goto done;
        }
        for (const sc_json *d = deps->child; d != NULL; d = d->next) {
            if (!sc_json_is(d, SC_JSON_STRING) || memchr(d->string, '\0', d->length) != NULL) {
                rc = bad(err, label, "info/index.json", "a \"depends\" entry is not a string%s",
                         "");
                goto done;
            }
            if ((pkg->depends[pkg->n_depends] = strdup(d->string)) == NULL) {
                rc = oom(err);
                goto done;
            }
            pkg->n_depends++;
        }
    }
done:
    sc_json_free(doc);
    return rc;
}

static sc_code check_listed_path(const char *p, const char *label, const char *file,
                                 sc_error *err)
{
    sc_error perr;
    if (sc_path_check(p, strlen(p), file, &perr) != SC_OK) {
        char q[QUOTE_MAX];
        sc_path_quote(p, strlen(p), q, sizeof q);
        return sc_error_set(err, SC_E_UNSAFE_PATH, label, "%s: %s lists %s: %s", label, file, q,
                            perr.message);
    }
    if (strncmp(p, "info/", 5) == 0 || strcmp(p, "info") == 0)
        return bad(err, label, file, "lists %s, inside info/", p);
    return SC_OK;
}

static sc_code add_path(sc_conda_package *pkg, size_t *cap, sc_conda_path **slot, sc_error *err)
{
    if (pkg->n_paths == *cap) {
        size_t n = *cap ? *cap * 2 : 64;
        sc_conda_path *np = realloc(pkg->paths, n * sizeof *np);
        if (np == NULL)
            return oom(err);
        pkg->paths = np;
        *cap = n;
    }
    *slot = &pkg->paths[pkg->n_paths++];
    memset(*slot, 0, sizeof **slot);
    return SC_OK;
}

static sc_code check_placeholder(const sc_conda_path *p, const char *label, const char *file,
                                 sc_error *err)
{
    if (p->placeholder == NULL) {
        if (p->file_mode != SC_CONDA_FILE_MODE_NONE)
            return bad(err, label, file, "%s has a file_mode but no prefix_placeholder", p->path);
        return SC_OK;
    }
    size_t n = strlen(p->placeholder);
    if (n == 0)
        return bad(err, label, file, "%s has an empty prefix_placeholder", p->path);
    if (n > SC_CONDA_PLACEHOLDER_MAX)
        return bad(err, label, file, "%s has a prefix_placeholder longer than 255 bytes",
                   p->path);
    return SC_OK;
}

static sc_code parse_paths_json(const char *bytes, size_t len, const char *label,
                                sc_conda_package *pkg, sc_error *err)
{
    static const char F[] = "info/paths.json";
    sc_json *doc = NULL;
    sc_error jerr;
    if (sc_json_parse(bytes, len, &doc, &jerr) != SC_OK)
        return bad(err, label, F, "not JSON (%s)", jerr.message);
    sc_code rc = SC_OK;
    const sc_json *arr = sc_json_is(doc, SC_JSON_OBJECT) ? sc_json_get(doc, "paths") : NULL;
    if (!sc_json_is(arr, SC_JSON_ARRAY)) {
        rc = bad(err, label, F, "no \"paths\" array%s", "");
        goto done;
    }
    size_t cap = 0;
    for (const sc_json *e = arr->child; e != NULL; e = e->next) {
        if (!sc_json_is(e, SC_JSON_OBJECT)) {
            rc = bad(err, label, F, "an entry of \"paths\" is not an object%s", "");
            goto done;
        }
        const sc_json *path = sc_json_get(e, "_path");
        if (!sc_json_is(path, SC_JSON_STRING)) {
            rc = bad(err, label, F, "an entry has no \"_path\" string%s", "");
            goto done;
        }
        if (memchr(path->string, '\0', path->length) != NULL) {
            rc = sc_error_set(err, SC_E_UNSAFE_PATH, label, "%s: %s: a path holds a NUL byte",
                              label, F);
            goto done;
        }
        if ((rc = check_listed_path(path->string, label, F, err)) != SC_OK)
            goto done;
        sc_conda_path *p = NULL;
        if ((rc = add_path(pkg, &cap, &p, err)) != SC_OK)
            goto done;
        if ((p->path = strdup(path->string)) == NULL) {
            rc = oom(err);
            goto done;
        }
        const sc_json *type = sc_json_get(e, "path_type");
        if (type == NULL || (sc_json_is(type, SC_JSON_STRING) &&
                             strcmp(type->string, "hardlink") == 0))
            p->type = SC_CONDA_PATH_HARDLINK;
        else if (sc_json_is(type, SC_JSON_STRING) && strcmp(type->string, "softlink") == 0)
            p->type = SC_CONDA_PATH_SOFTLINK;
        else if (sc_json_is(type, SC_JSON_STRING) && strcmp(type->string, "directory") == 0)
            p->type = SC_CONDA_PATH_DIRECTORY;
        else {
            rc = bad(err, label, F, "%s has an unknown path_type", p->path);
            goto done;
        }
        const sc_json *sha = sc_json_get(e, "sha256");
        if (sha != NULL && !sc_json_is(sha, SC_JSON_NULL)) {
            if (!sc_json_is(sha, SC_JSON_STRING) || !sc_is_lower_hex(sha->string, sha->length, 64)) {
                rc = bad(err, label, F, "%s: sha256 is not 64 lowercase hex digits", p->path);
                goto done;
            }
            for (int i = 0; i < 32; i++) {
                unsigned v;
                sscanf(sha->string + 2 * i, "%2x", &v);
                p->sha256[i] = (unsigned char)v;
            }
            p->has_sha256 = 1;
        }
        const sc_json *size = sc_json_get(e, "size_in_bytes");
        if (size != NULL && !sc_json_is(size, SC_JSON_NULL)) {
            if (!sc_json_uint53(size, &p->size)) {
                rc = bad(err, label, F, "%s: size_in_bytes is not a non-negative integer",
                         p->path);
                goto done;
            }
            p->has_size = 1;
        }
        const sc_json *ph = sc_json_get(e, "prefix_placeholder");
        if (ph != NULL && !sc_json_is(ph, SC_JSON_NULL)) {
            if (!sc_json_is(ph, SC_JSON_STRING) || memchr(ph->string, '\0', ph->length)) {
                rc = bad(err, label, F, "%s: prefix_placeholder is not a string", p->path);
                goto done;
            }
            if ((p->placeholder = strdup(ph->string)) == NULL) {
                rc = oom(err);
                goto done;
            }
        }
        const sc_json *fm = sc_json_get(e, "file_mode");
        if (fm != NULL && !sc_json_is(fm, SC_JSON_NULL)) {
            if (sc_json_is(fm, SC_JSON_STRING) && strcmp(fm->string, "text") == 0)
                p->file_mode = SC_CONDA_FILE_MODE_TEXT;
            else if (sc_json_is(fm, SC_JSON_STRING) && strcmp(fm->string, "binary") == 0)
                p->file_mode = SC_CONDA_FILE_MODE_BINARY;
            else {
                rc = bad(err, label, F, "%s: file_mode is neither \"text\" nor \"binary\"",
                         p->path);
                goto done;
            }
        } else if (p->placeholder != NULL) {
            p->file_mode = SC_CONDA_FILE_MODE_TEXT; /* conda's default */
        }
        if ((rc = check_placeholder(p, label, F, err)) != SC_OK)
            goto done;
        if (p->type != SC_CONDA_PATH_HARDLINK) {
            /* old conda-build wrote the target's placeholder on soft links too;
             * a link's text is never rewritten, so it is ignored */
            free(p->placeholder);
            p->placeholder = NULL;
            p->file_mode = SC_CONDA_FILE_MODE_NONE;
        }
        const sc_json *nl = sc_json_get(e, "no_link");
        if (nl != NULL && !sc_json_is(nl, SC_JSON_NULL)) {
            if (!sc_json_is(nl, SC_JSON_BOOL)) {
                rc = bad(err, label, F, "%s: no_link is not a boolean", p->path);
                goto done;
            }
            p->no_link = nl->boolean;
        }
    }
done:
    sc_json_free(doc);
    return rc;
}

/* Next line of a legacy text file: [*pos, end) without CR/LF; 0 at the end. */
static int next_line(const char *s, size_t len, size_t *pos, const char **line, size_t *n)
{
    while (*pos < len) {
        const char *nl = memchr(s + *pos, '\n', len - *pos);
        size_t end = nl ? (size_t)(nl - s) : len;
        *line = s + *pos;
        *n = end - *pos;
        *pos = nl ? end + 1 : len;
        while (*n > 0 && ((*line)[*n - 1] == '\r' || (*line)[*n - 1] == ' '))
            (*n)--;
        if (*n > 0)
            return 1;
    }
    return 0;
}

static int cmp_path(const void *a, const void *b)
{
    return strcmp(((const sc_conda_path *)a)->path, ((const sc_conda_path *)b)->path);
}

static sc_conda_path *find_path(sc_conda_package *pkg, const char *path)
{
    if (pkg->n_paths == 0) /* paths NULL: bsearch must not see it */
        return NULL;
    sc_conda_path key;
    key.path = (char *)path;
    return bsearch(&key, pkg->paths, pkg->n_paths, sizeof key, cmp_path);
}

/* One field of a has_prefix line: "quoted" or up to the next space. */
static int has_prefix_field(const char **p, const char *end, char *out, size_t size)
{
    while (*p < end && **p == ' ')
        (*p)++;
    if (*p >= end)
        return 0;
    size_t n = 0;
    if (**p == '"') {
        (*p)++;
        while (*p < end && **p != '"') {
            if (n + 1 >= size)
                return 0;
            out[n++] = *(*p)++;
        }
        if (*p >= end)
            return 0;
        (*p)++;
    } else {
        while (*p < end && **p != ' ') {
            if (n + 1 >= size)
                return 0;
            out[n++] = *(*p)++;
        }
    }
    out[n] = '\0';
    return n > 0;
}

static sc_code parse_legacy(const sc_conda_info_bytes *in, const char *label,
                            sc_conda_package *pkg, sc_error *err)
{
    size_t cap = 0, pos = 0, n;
    const char *line;
    char buf[PATH_MAX + 1];
    sc_code rc;
    pkg->legacy_paths = 1;
    while (next_line(in->files, in->files_len, &pos, &line, &n)) {
        if (n > PATH_MAX || memchr(line, '\0', n) != NULL)
            return sc_error_set(err, SC_E_UNSAFE_PATH, label, "%s: info/files: a line is too "
                                "long or holds a NUL byte", label);
        memcpy(buf, line, n);
        buf[n] = '\0';
        if ((rc = check_listed_path(buf, label, "info/files", err)) != SC_OK)
            return rc;
        sc_conda_path *p = NULL;
        if ((rc = add_path(pkg, &cap, &p, err)) != SC_OK)
            return rc;
        if ((p->path = strdup(buf)) == NULL)
            return oom(err);
    }
    if (pkg->n_paths > 1)
        qsort(pkg->paths, pkg->n_paths, sizeof *pkg->paths, cmp_path);
    pos = 0;
    while (in->has_prefix != NULL && next_line(in->has_prefix, in->has_prefix_len, &pos, &line, &n)) {
        const char *p = line, *end = line + n;
        char f1[PATH_MAX + 1], f2[64], f3[PATH_MAX + 1];
        if (memchr(line, '\0', n) != NULL || !has_prefix_field(&p, end, f1, sizeof f1))
            return bad(err, label, "info/has_prefix", "an unreadable line%s", "");
        const char *placeholder = LEGACY_PLACEHOLDER, *mode = "text", *path = f1;
        if (has_prefix_field(&p, end, f2, sizeof f2)) {
            if (!has_prefix_field(&p, end, f3, sizeof f3))
                return bad(err, label, "info/has_prefix", "a line of two fields: %s", f1);
            placeholder = f1;
            mode = f2;
            path = f3;
        }
        while (p < end && *p == ' ')
            p++;
        if (p != end)
            return bad(err, label, "info/has_prefix", "a line of more than three fields: %s", f1);
        sc_conda_path *e = find_path(pkg, path);
        if (e == NULL)
            return bad(err, label, "info/has_prefix", "names %s, which info/files lacks", path);
        if (strcmp(mode, "text") == 0)
            e->file_mode = SC_CONDA_FILE_MODE_TEXT;
        else if (strcmp(mode, "binary") == 0)
            e->file_mode = SC_CONDA_FILE_MODE_BINARY;
        else
            return bad(err, label, "info/has_prefix", "mode of %s is neither text nor binary",
                       path);
        free(e->placeholder);
        if ((e->placeholder = strdup(placeholder)) == NULL)
            return oom(err);
        if ((rc = check_placeholder(e, label, "info/has_prefix", err)) != SC_OK)
            return rc;
    }
    pos = 0;
    while (in->no_link != NULL && next_line(in->no_link, in->no_link_len, &pos, &line, &n)) {
        if (n > PATH_MAX)
            continue;
        memcpy(buf, line, n);
        buf[n] = '\0';
        sc_conda_path *e = find_path(pkg, buf);
        if (e != NULL)
            e->no_link = 1;
    }
    return SC_OK;
}

/* "cmd = module:function" with optional spaces; each part checked. */
static sc_code parse_entry_point(const char *s, const char *label, sc_conda_entry_point *ep,
                                 sc_error *err)
{
    const char *eq = strchr(s, '=');
    const char *colon = eq ? strchr(eq, ':') : NULL;
    if (eq == NULL || colon == NULL)
        return bad(err, label, "info/link.json", "entry point %s is not \"cmd = module:func\"", s);
    const char *a = s, *ae = eq;
    while (*a == ' ')
        a++;
    while (ae > a && ae[-1] == ' ')
        ae--;
    const char *m = eq + 1, *me = colon;
    while (*m == ' ')
        m++;
    while (me > m && me[-1] == ' ')
        me--;
    const char *f = colon + 1, *fe = f + strlen(f);
    while (*f == ' ')
        f++;
    while (fe > f && fe[-1] == ' ')
        fe--;
    ep->command = strndup(a, (size_t)(ae - a));
    ep->module = strndup(m, (size_t)(me - m));
    ep->function = strndup(f, (size_t)(fe - f));
    if (ep->command == NULL || ep->module == NULL || ep->function == NULL)
        return oom(err);
    const char *c = ep->command;
    if (c[0] == '\0' || c[0] == '.' || strchr(c, '/') || strchr(c, '\\') || strchr(c, ' ') ||
        !sc_utf8_valid(c, strlen(c)))
        return bad(err, label, "info/link.json", "entry point command %s is not a file name", s);
    if (!sc_is_dotted_name(ep->module) || !sc_is_dotted_name(ep->function))
        return bad(err, label, "info/link.json", "entry point %s: not module:function", s);
    return SC_OK;
}

static sc_code parse_link_json(const char *bytes, size_t len, const char *label,
                               sc_conda_package *pkg, sc_error *err)
{
    sc_json *doc = NULL;
    sc_error jerr;
    if (sc_json_parse(bytes, len, &doc, &jerr) != SC_OK)
        return bad(err, label, "info/link.json", "not JSON (%s)", jerr.message);
    sc_code rc = SC_OK;
    const sc_json *na = sc_json_is(doc, SC_JSON_OBJECT) ? sc_json_get(doc, "noarch") : NULL;
    if (!sc_json_is(doc, SC_JSON_OBJECT)) {
        rc = bad(err, label, "info/link.json", "not an object%s", "");
        goto done;
    }
    const sc_json *type = sc_json_is(na, SC_JSON_OBJECT) ? sc_json_get(na, "type") : NULL;
    if (!sc_json_is(type, SC_JSON_STRING) || strcmp(type->string, "python") != 0)
        goto done; /* only noarch python carries entry points */
    const sc_json *eps = sc_json_get(na, "entry_points");
    if (eps == NULL || sc_json_is(eps, SC_JSON_NULL))
        goto done;
    if (!sc_json_is(eps, SC_JSON_ARRAY)) {
        rc = bad(err, label, "info/link.json", "\"entry_points\" is not an array%s", "");
        goto done;
    }
    pkg->entry_points = calloc(eps->length + 1, sizeof *pkg->entry_points);
    if (pkg->entry_points == NULL) {
        rc = oom(err);
        goto done;
    }
    for (const sc_json *e = eps->child; e != NULL; e = e->next) {
        if (!sc_json_is(e, SC_JSON_STRING) || memchr(e->string, '\0', e->length)) {
            rc = bad(err, label, "info/link.json", "an entry point is not a string%s", "");
            goto done;
        }
        sc_conda_entry_point *ep = &pkg->entry_points[pkg->n_entry_points++];
        if ((rc = parse_entry_point(e->string, label, ep, err)) != SC_OK)
            goto done;
        for (size_t i = 0; i + 1 < pkg->n_entry_points; i++)
            if (strcmp(pkg->entry_points[i].command, ep->command) == 0) {
                rc = bad(err, label, "info/link.json", "entry point %s is given twice",
                         ep->command);
                goto done;
            }
    }
done:
    sc_json_free(doc);
    return rc;
}

/* bin/.<name>-post-link.sh and friends (Scripts/...bat on Windows). */
static unsigned link_script_kind(const char *path, const char *name)
{
    const char *base;
    if (strncmp(path, "bin/.", 5) == 0)
        base = path + 5;
    else if (strncmp(path, "Scripts/.", 9) == 0)
        base = path + 9;
    else
        return 0;
    size_t nl = strlen(name);
    if (strncmp(base, name, nl) != 0 || base[nl] != '-')
        return 0;
    base += nl + 1;
    static const struct {
        const char *stem;
        unsigned bit;
    } kinds[] = {{"pre-link", SC_CONDA_HAS_PRE_LINK},
                 {"post-link", SC_CONDA_HAS_POST_LINK},
                 {"pre-unlink", SC_CONDA_HAS_PRE_UNLINK}};
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        size_t sl = strlen(kinds[i].stem);
        if (strncmp(base, kinds[i].stem, sl) == 0 &&
            (strcmp(base + sl, ".sh") == 0 || strcmp(base + sl, ".bat") == 0))
            return kinds[i].bit;
    }
    return 0;
}

sc_code sc_conda_parse_info(const sc_conda_info_bytes *in, const char *label,
                            sc_conda_package *pkg, sc_error *err)
{
    if (label == NULL)
        label = "package";
    if (in == NULL || pkg == NULL)
        return sc_error_set(err, SC_E_USAGE, NULL, "sc_conda_parse_info: no input");
    if (in->index_json == NULL)
        return bad(err, label, "info/index.json", "missing%s", "");
    sc_code rc = parse_index(in->index_json, in->index_json_len, label, pkg, err);
    if (rc != SC_OK)
        return rc;
    if (in->paths_json != NULL)
        rc = parse_paths_json(in->paths_json, in->paths_json_len, label, pkg, err);
    else if (in->files != NULL)
        rc = parse_legacy(in, label, pkg, err);
    else
        rc = bad(err, label, "info/paths.json", "missing (and no legacy info/files)%s", "");
    if (rc != SC_OK)
        return rc;
    if (pkg->n_paths > 1 && !pkg->legacy_paths)
        qsort(pkg->paths, pkg->n_paths, sizeof *pkg->paths, cmp_path);
    for (size_t i = 0; i + 1 < pkg->n_paths; i++)
        if (strcmp(pkg->paths[i].path, pkg->paths[i + 1].path) == 0)
            return bad(err, label, pkg->legacy_paths ? "info/files" : "info/paths.json",
                       "lists %s twice", pkg->paths[i].path);
    for (size_t i = 0; i < pkg->n_paths; i++)
        pkg->link_scripts |= link_script_kind(pkg->paths[i].path, pkg->name);
    if (in->link_json != NULL)
        rc = parse_link_json(in->link_json, in->link_json_len, label, pkg, err);
    return rc;
}

size_t sc_conda_spec_name(const char *spec, char *buf, size_t size)
{
    size_t n = 0;
    if (size == 0)
        return 0;
    while (*spec == ' ')
        spec++;
    /* a name ends at a space or at the first character of a version operator */
    while (spec[n] != '\0' && strchr(" =<>!~[;,", spec[n]) == NULL && n + 1 < size) {
        buf[n] = spec[n];
        n++;
    }
    /* "channel::name" */
    buf[n] = '\0';
    char *cc = strstr(buf, "::");
    if (cc != NULL) {
        size_t rest = strlen(cc + 2);
        memmove(buf, cc + 2, rest + 1);
        n = rest;
    }
    return n;
}

/* ---- extraction: the member table ------------------------------------------------ */

enum { K_FILE = 'f', K_LINK = 'l', K_DIR = 'd' };

typedef struct member {
    char *path;
    char *target; /* K_LINK */
    int kind;
    uint64_t size;
    unsigned char sha256[32];
} member;

typedef struct xctx {
    const sc_archive_api *la;
    const char *label;
    const char *dest;
    int root;              /* dest, O_DIRECTORY */
    member *m;
    size_t n, cap;
    size_t *slots;         /* open addressing: index + 1, 0 = empty */
    size_t nslots;
    uint64_t budget;       /* bytes still allowed */
    uint64_t members_left;
    const sc_conda_package *known; /* metadata known before this pass */
    int cached_fd;         /* the parent directory of the last member */
    char *cached_dir;
    unsigned char *buf;
} xctx;

static uint64_t hash_str(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

static member *lookup(const xctx *x, const char *path)
{
    if (x->nslots == 0)
        return NULL;
    for (size_t i = hash_str(path) & (x->nslots - 1);; i = (i + 1) & (x->nslots - 1)) {
        size_t s = x->slots[i];
        if (s == 0)
            return NULL;
        if (strcmp(x->m[s - 1].path, path) == 0)
            return &x->m[s - 1];
    }
}

static sc_code add_member(xctx *x, const char *path, int kind, member **out, sc_error *err)
{
    if ((x->n + 1) * 2 > x->nslots) {
        size_t ns = x->nslots ? x->nslots * 2 : 1024;
        size_t *slots = calloc(ns, sizeof *slots);
        if (slots == NULL)
            return oom(err);
        for (size_t k = 0; k < x->n; k++) {
            size_t i = hash_str(x->m[k].path) & (ns - 1);
            while (slots[i] != 0)
                i = (i + 1) & (ns - 1);
            slots[i] = k + 1;
        }
        free(x->slots);
        x->slots = slots;
        x->nslots = ns;
    }
    if (x->n == x->cap) {
        size_t nc = x->cap ? x->cap * 2 : 256;
        member *nm = realloc(x->m, nc * sizeof *nm);
        if (nm == NULL)
            return oom(err);
        x->m = nm;
        x->cap = nc;
    }
    member *m = &x->m[x->n];
    memset(m, 0, sizeof *m);
    if ((m->path = strdup(path)) == NULL)
        return oom(err);
    m->kind = kind;
    size_t i = hash_str(path) & (x->nslots - 1);
    while (x->slots[i] != 0)
        i = (i + 1) & (x->nslots - 1);
    x->slots[i] = ++x->n;
    *out = m;
    return SC_OK;
}

static void xctx_free(xctx *x)
{
    for (size_t i = 0; i < x->n; i++) {
        free(x->m[i].path);
        free(x->m[i].target);
    }
    free(x->m);
    free(x->slots);
    if (x->cached_fd >= 0)
        close(x->cached_fd);
    free(x->cached_dir);
    if (x->root >= 0)
        close(x->root);
    free(x->buf);
}

/* ---- extraction: writing members ------------------------------------------------- */

/*
 * A member's name made relative: "./" prefixes and a trailing "/" dropped;
 * "" (the root itself) returned as such.  The result is then checked with
 * sc_path_check.
 */
static sc_code normalise_name(const xctx *x, const char *raw, char *out, size_t size,
                              sc_error *err)
{
    if (raw == NULL)
        return member_err(err, SC_E_INVALID_ARCHIVE, x->label, "", "a member without a name");
    while (raw[0] == '.' && raw[1] == '/')
        raw += 2;
    size_t n = strlen(raw);
    while (n > 0 && raw[n - 1] == '/')
        n--;
    if (n == 1 && raw[0] == '.')
        n = 0;
    if (n >= size)
        return member_err(err, SC_E_UNSAFE_PATH, x->label, raw, "name too long");
    memcpy(out, raw, n);
    out[n] = '\0';
    if (n == 0)
        return SC_OK;
    sc_error perr;
    if (sc_path_check(out, n, NULL, &perr) != SC_OK)
        return member_err(err, SC_E_UNSAFE_PATH, x->label, raw, perr.message);
    return SC_OK;
}

/*
 * The directory that holds `path`, opened (and created, 0755) without
 * following a link anywhere on the way.  *leaf = the last segment.  The
 * returned fd belongs to the cache: do not close it.
 */
static sc_code open_parent(xctx *x, const char *path, int *dfd, const char **leaf,
                           sc_error *err)
{
    const char *slash = strrchr(path, '/');
    *leaf = slash ? slash + 1 : path;
    if (slash == NULL) {
        *dfd = x->root;
        return SC_OK;
    }
    size_t dl = (size_t)(slash - path);
    if (x->cached_dir != NULL && strlen(x->cached_dir) == dl &&
        memcmp(x->cached_dir, path, dl) == 0) {
        *dfd = x->cached_fd;
        return SC_OK;
    }
    int fd = x->root;
    size_t start = 0;
    while (start < dl) {
        const char *seg_end = memchr(path + start, '/', dl - start);
        size_t end = seg_end ? (size_t)(seg_end - path) : dl;
        char seg[NAME_MAX + 1];
        if (end - start > NAME_MAX) {
            if (fd != x->root)
                close(fd);
            return member_err(err, SC_E_UNSAFE_PATH, x->label, path, "a segment is too long");
        }
        memcpy(seg, path + start, end - start);
        seg[end - start] = '\0';
        int next = openat(fd, seg, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (next < 0 && errno == ENOENT) {
            if (mkdirat(fd, seg, 0755) != 0 && errno != EEXIST) {
                int e = errno;
                if (fd != x->root)
                    close(fd);
                return sc_error_set(err, SC_E_IO, x->dest, "%s: cannot create a directory for %s: %s",
                                    x->label, path, strerror(e));
            }
            next = openat(fd, seg, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            if (next >= 0 && fchmod(next, 0755) != 0) {
                close(next);
                next = -1;
            }
        }
        int e = errno;
        if (fd != x->root)
            close(fd);
        if (next < 0) {
            if (e == ELOOP || e == ENOTDIR) {
                member *m = NULL;
                char *dir = strndup(path, end);
                if (dir != NULL)
                    m = lookup(x, dir);
                free(dir);
                if (m != NULL && m->kind == K_LINK)
                    return member_err(err, SC_E_LINK_ENTRY, x->label, path,
                                      "would be written through a symbolic link");
                return member_err(err, SC_E_ENTRY_COLLISION, x->label, path,
                                  "lies under a member that is not a directory");
            }
            return sc_error_set(err, SC_E_IO, x->dest, "%s: cannot open a directory for %s: %s",
                                x->label, path, strerror(e));
        }
        fd = next;
        start = end + 1;
    }
    if (x->cached_fd >= 0)
        close(x->cached_fd);
    free(x->cached_dir);
    x->cached_fd = fd;
    x->cached_dir = strndup(path, dl);
    if (x->cached_dir == NULL) {
        close(x->cached_fd);
        x->cached_fd = -1;
        return oom(err);
    }
    *dfd = fd;
    return SC_OK;
}

/* The declared size of a file when paths.json is already known (or UINT64_MAX). */
static uint64_t declared_size(const xctx *x, const char *path)
{
    if (x->known == NULL)
        return UINT64_MAX;
    sc_conda_path *p = find_path((sc_conda_package *)x->known, path);
    if (p == NULL || !p->has_size || p->type != SC_CONDA_PATH_HARDLINK)
        return UINT64_MAX;
    return p->size;
}

static sc_code write_file(xctx *x, struct archive *a, const char *path, unsigned perm,
                          sc_error *err)
{
    int dfd;
    const char *leaf;
    sc_code rc = open_parent(x, path, &dfd, &leaf, err);
    if (rc != SC_OK)
        return rc;
    member *m;
    if ((rc = add_member(x, path, K_FILE, &m, err)) != SC_OK)
        return rc;
    int fd = openat(dfd, leaf, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) {
        if (errno == EEXIST)
            return member_err(err, SC_E_ENTRY_COLLISION, x->label, path,
                              "appears twice in the archive");
        return sc_error_set(err, SC_E_IO, x->dest, "%s: cannot create %s: %s", x->label, path,
                            strerror(errno));
    }
    uint64_t limit = declared_size(x, path);
    sc_sha256_ctx h;
    if ((rc = sc_sha256_init(&h, err)) != SC_OK) {
        close(fd);
        return rc;
    }
    uint64_t total = 0;
    for (;;) {
        la_ssize_t got = x->la->read_data(a, x->buf, IO_BUFFER);
        if (got == 0)
            break;
        if (got < 0) {
            rc = sc_error_set(err, SC_E_INVALID_ARCHIVE, x->label, "%s: %s: %s", x->label, path,
                              x->la->error_string(a) ? x->la->error_string(a)
                                                     : "cannot be read (truncated or corrupt)");
            break;
        }
        total += (uint64_t)got;
        if (total > limit) {
            rc = member_err(err, SC_E_EXTRACTION_LIMIT, x->label, path,
                            "inflates past the size_in_bytes of info/paths.json");
            break;
        }
        if ((uint64_t)got > x->budget) {
            rc = member_err(err, SC_E_EXTRACTION_LIMIT, x->label, path,
                            "the package inflates past its extraction budget");
            break;
        }
        x->budget -= (uint64_t)got;
        if ((rc = sc_sha256_update(&h, x->buf, (size_t)got, err)) != SC_OK)
            break;
        for (la_ssize_t off = 0; off < got;) {
            ssize_t w = write(fd, x->buf + off, (size_t)(got - off));
            if (w < 0 && errno == EINTR)
                continue;
            if (w <= 0) {
                rc = sc_error_set(err, SC_E_IO, x->dest, "%s: cannot write %s: %s", x->label,
                                  path, strerror(errno));
                break;
            }
            off += w;
        }
        if (rc != SC_OK)
            break;
    }
    if (rc == SC_OK) {
        rc = sc_sha256_final(&h, m->sha256, err);
    } else {
        sc_sha256_abort(&h);
    }
    m->size = total;
    if (rc == SC_OK && fchmod(fd, perm & 0777) != 0)
        rc = sc_error_set(err, SC_E_IO, x->dest, "%s: cannot set the mode of %s: %s", x->label,
                          path, strerror(errno));
    if (close(fd) != 0 && rc == SC_OK)
        rc = sc_error_set(err, SC_E_IO, x->dest, "%s: cannot write %s: %s", x->label, path,
                          strerror(errno));
    return rc;
}

/* A tar hard link: a copy of an earlier regular member. */
static sc_code write_hardlink(xctx *x, const char *path, const char *raw_target, unsigned perm,
                              sc_error *err)
{
    char target[PATH_MAX];
    sc_code rc = normalise_name(x, raw_target, target, sizeof target, err);
    if (rc != SC_OK)
        return rc;
    member *src = lookup(x, target);
    if (src == NULL || src->kind != K_FILE)
        return member_err(err, SC_E_LINK_ENTRY, x->label, path,
                          "is a hard link to a member that is not an earlier regular file");
    if (src->size > x->budget)
        return member_err(err, SC_E_EXTRACTION_LIMIT, x->label, path,
                          "the package inflates past its extraction budget");
    if (src->size > declared_size(x, path))
        return member_err(err, SC_E_EXTRACTION_LIMIT, x->label, path,
                          "inflates past the size_in_bytes of info/paths.json");
    x->budget -= src->size;
    uint64_t size = src->size;
    unsigned char sha[32];
    memcpy(sha, src->sha256, sizeof sha);
    int in = openat(x->root, target, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (in < 0)
        return sc_error_set(err, SC_E_IO, x->dest, "%s: cannot open %s: %s", x->label, target,
                            strerror(errno));
    int dfd;
    const char *leaf;
    member *m;
    if ((rc = open_parent(x, path, &dfd, &leaf, err)) != SC_OK ||
        (rc = add_member(x, path, K_FILE, &m, err)) != SC_OK) {
        close(in);
        return rc;
    }
    m->size = size;
    memcpy(m->sha256, sha, sizeof sha);
    int out = openat(dfd, leaf, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (out < 0) {
        int e = errno;
        close(in);
        if (e == EEXIST)
            return member_err(err, SC_E_ENTRY_COLLISION, x->label, path,
                              "appears twice in the archive");
        return sc_error_set(err, SC_E_IO, x->dest, "%s: cannot create %s: %s", x->label, path,
                            strerror(e));
    }
    rc = sc_copy_fd(in, out, target, path, err);
    if (rc == SC_OK && fchmod(out, perm & 0777) != 0)
        rc = sc_error_set(err, SC_E_IO, x->dest, "%s: cannot set the mode of %s", x->label, path);
    close(in);
    if (close(out) != 0 && rc == SC_OK)
        rc = sc_error_set(err, SC_E_IO, x->dest, "%s: cannot write %s", x->label, path);
    return rc;
}

static sc_code write_symlink(xctx *x, const char *path, const char *target, sc_error *err)
{
    if (target == NULL || target[0] == '\0')
        return member_err(err, SC_E_LINK_ENTRY, x->label, path, "is a link with no target");
    if (target[0] == '/')
        return member_err(err, SC_E_LINK_ENTRY, x->label, path,
                          "is a link to an absolute path (it leaves the prefix)");
    if (strlen(target) >= PATH_MAX)
        return member_err(err, SC_E_LINK_ENTRY, x->label, path, "link target too long");
    int dfd;
    const char *leaf;
    sc_code rc = open_parent(x, path, &dfd, &leaf, err);
    member *m;
    if (rc != SC_OK || (rc = add_member(x, path, K_LINK, &m, err)) != SC_OK)
        return rc;
    if ((m->target = strdup(target)) == NULL)
        return oom(err);
    if (symlinkat(target, dfd, leaf) != 0) {
        if (errno == EEXIST)
            return member_err(err, SC_E_ENTRY_COLLISION, x->label, path,
                              "appears twice in the archive");
        return sc_error_set(err, SC_E_IO, x->dest, "%s: cannot create the link %s: %s", x->label,
                            path, strerror(errno));
    }
    return SC_OK;
}

static sc_code write_dir(xctx *x, const char *path, sc_error *err)
{
    member *m = lookup(x, path);
    if (m != NULL) {
        if (m->kind == K_DIR)
            return SC_OK;
        return member_err(err, SC_E_ENTRY_COLLISION, x->label, path,
                          "appears twice in the archive");
    }
    int dfd;
    const char *leaf;
    sc_code rc = open_parent(x, path, &dfd, &leaf, err);
    if (rc != SC_OK || (rc = add_member(x, path, K_DIR, &m, err)) != SC_OK)
        return rc;
    if (mkdirat(dfd, leaf, 0755) != 0 && errno != EEXIST)
        return sc_error_set(err, SC_E_IO, x->dest, "%s: cannot create %s: %s", x->label, path,
                            strerror(errno));
    int fd = openat(dfd, leaf, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return member_err(err, SC_E_ENTRY_COLLISION, x->label, path,
                          "is a directory where another member is not");
    int ok = fchmod(fd, 0755) == 0;
    close(fd);
    if (!ok)
        return sc_error_set(err, SC_E_IO, x->dest, "%s: cannot set the mode of %s", x->label,
                            path);
    return SC_OK;
}

/* Every member of one tar stream (already opened on a). */
static sc_code extract_tar(xctx *x, struct archive *a, const char *what, sc_error *err)
{
    char path[PATH_MAX];
    for (;;) {
        struct archive_entry *e;
        int r = x->la->read_next_header(a, &e);
        if (r == ARCHIVE_EOF)
            return SC_OK;
        if (r != ARCHIVE_OK && r != ARCHIVE_WARN) {
            const char *why = x->la->error_string(a);
            return sc_error_set(err, SC_E_INVALID_ARCHIVE, x->label, "%s: %s: %s", x->label, what,
                                why ? why : "unreadable (truncated or corrupt)");
        }
        if (x->members_left == 0)
            return sc_error_set(err, SC_E_EXTRACTION_LIMIT, x->label,
                                "%s: more members than the extraction limit", x->label);
        x->members_left--;
        sc_code rc = normalise_name(x, x->la->entry_pathname(e), path, sizeof path, err);
        if (rc != SC_OK)
            return rc;
        const char *hl = x->la->entry_hardlink(e);
        unsigned type = (unsigned)x->la->entry_filetype(e);
        unsigned perm = (unsigned)x->la->entry_perm(e);
        if (path[0] == '\0') {
            if (type == AE_IFDIR && hl == NULL)
                continue; /* "./" itself */
            return member_err(err, SC_E_UNSAFE_PATH, x->label, ".", "names the root itself");
        }
        if (hl != NULL)
            rc = write_hardlink(x, path, hl, perm, err);
        else if (type == AE_IFREG)
            rc = write_file(x, a, path, perm, err);
        else if (type == AE_IFLNK)
            rc = write_symlink(x, path, x->la->entry_symlink(e), err);
        else if (type == AE_IFDIR)
            rc = write_dir(x, path, err);
        else
            rc = member_err(err, SC_E_SPECIAL_ENTRY, x->label, path,
                            "is neither a file, a directory nor a link");
        if (rc != SC_OK)
            return rc;
    }
}

/* ---- the two archive kinds ---------------------------------------------------------- */

static sc_code la_err(xctx *x, struct archive *a, const char *what, sc_error *err)
{
    const char *why = a ? x->la->error_string(a) : NULL;
    return sc_error_set(err, SC_E_INVALID_ARCHIVE, x->label, "%s: %s: %s", x->label, what,
                        why ? why : "unreadable");
}

typedef struct bridge {
    const sc_archive_api *la;
    struct archive *outer;
    unsigned char *buf;
} bridge;

static la_ssize_t bridge_read(struct archive *inner, void *client, const void **out)
{
    (void)inner;
    bridge *b = client;
    la_ssize_t n = b->la->read_data(b->outer, b->buf, IO_BUFFER);
    *out = b->buf;
    return n;
}

static sc_code extract_tar_bz2(xctx *x, const char *file, sc_error *err)
{
    struct archive *a = x->la->read_new();
    if (a == NULL)
        return oom(err);
    sc_code rc;
    if (x->la->read_support_filter_bzip2(a) != ARCHIVE_OK ||
        x->la->read_support_format_tar(a) != ARCHIVE_OK ||
        x->la->read_support_format_gnutar(a) != ARCHIVE_OK)
        rc = sc_error_set(err, SC_E_LIBRARY_MISSING, x->label,
                          "%s: this libarchive cannot read bzip2-compressed tar (%s); "
                          "install it: apt-get install libarchive13",
                          x->label, x->la->error_string(a) ? x->la->error_string(a) : "");
    else if (x->la->read_open_filename(a, file, IO_BUFFER) != ARCHIVE_OK)
        rc = la_err(x, a, "not a bzip2-compressed tar", err);
    else
        rc = extract_tar(x, a, "tar.bz2", err);
    x->la->read_free(a);
    return rc;
}

/* A member name of the .conda ZIP, "./" dropped. */
static const char *zip_name(const char *raw)
{
    while (raw != NULL && raw[0] == '.' && raw[1] == '/')
        raw += 2;
    return raw;
}

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

/*
 * One pass over the .conda ZIP: extract the member whose name starts with
 * `want` ("info-" or "pkg-"), skipping the rest; *found counts the members
 * named so.  Each pass also checks the ZIP's shape.
 */
static sc_code conda_pass(xctx *x, const char *file, const char *want, sc_error *err)
{
    struct archive *z = x->la->read_new();
    if (z == NULL)
        return oom(err);
    sc_code rc = SC_OK;
    int found = 0;
    if (x->la->read_support_format_zip_seekable(z) != ARCHIVE_OK) {
        rc = la_err(x, z, "libarchive cannot read ZIP", err);
        goto done;
    }
    if (x->la->read_open_filename(z, file, IO_BUFFER) != ARCHIVE_OK) {
        rc = la_err(x, z, "not a ZIP (a .conda is one)", err);
        goto done;
    }
    for (;;) {
        struct archive_entry *e;
        int r = x->la->read_next_header(z, &e);
        if (r == ARCHIVE_EOF)
            break;
        if (r != ARCHIVE_OK && r != ARCHIVE_WARN) {
            rc = la_err(x, z, "ZIP", err);
            goto done;
        }
        const char *name = zip_name(x->la->entry_pathname(e));
        if (name == NULL) {
            rc = la_err(x, z, "a ZIP member without a name", err);
            goto done;
        }
        int is_info = strncmp(name, "info-", 5) == 0, is_pkg = strncmp(name, "pkg-", 4) == 0;
        if ((is_info || is_pkg) && (strchr(name, '/') != NULL || !ends_with(name, ".tar.zst"))) {
            rc = member_err(err, SC_E_INVALID_ARCHIVE, x->label, name,
                            "is not an info-*.tar.zst or pkg-*.tar.zst member");
            goto done;
        }
        if (strncmp(name, want, strlen(want)) != 0) {
            if (x->la->read_data_skip(z) != ARCHIVE_OK) {
                rc = la_err(x, z, name, err);
                goto done;
            }
            continue;
        }
        if (++found > 1) {
            rc = member_err(err, SC_E_INVALID_ARCHIVE, x->label, name,
                            "a second member of its kind");
            goto done;
        }
        struct archive *t = x->la->read_new();
        if (t == NULL) {
            rc = oom(err);
            goto done;
        }
        bridge b = {x->la, z, NULL};
        b.buf = malloc(IO_BUFFER);
        if (b.buf == NULL) {
            x->la->read_free(t);
            rc = oom(err);
            goto done;
        }
        if (x->la->read_support_filter_zstd(t) != ARCHIVE_OK ||
            x->la->read_support_format_tar(t) != ARCHIVE_OK ||
            x->la->read_support_format_gnutar(t) != ARCHIVE_OK)
            rc = sc_error_set(err, SC_E_LIBRARY_MISSING, x->label,
                              "%s: this libarchive cannot read zstd-compressed tar; "
                              "install it: apt-get install libarchive13 libzstd1",
                              x->label);
        else if (x->la->read_open(t, &b, NULL, bridge_read, NULL) != ARCHIVE_OK)
            rc = la_err(x, t, name, err);
        else
            rc = extract_tar(x, t, name, err);
        x->la->read_free(t);
        free(b.buf);
        if (rc != SC_OK)
            goto done;
    }
    if (found == 0)
        rc = sc_error_set(err, SC_E_INVALID_ARCHIVE, x->label, "%s: the .conda has no %s*.tar.zst",
                          x->label, want);
done:
    x->la->read_free(z);
    return rc;
}

/* ---- reading info/ from the extracted tree ------------------------------------------- */

static sc_code read_member(const char *dir, const char *rel, char **bytes, size_t *len,
                           sc_error *err)
{
    *bytes = NULL;
    *len = 0;
    struct stat st;
    sc_code rc = SC_OK;
    /* info/ itself must be a real directory: a member `info` that is a soft
     * link would have its files read from wherever it points */
    const char *slash = strchr(rel, '/');
    if (slash != NULL) {
        char *top = strndup(rel, (size_t)(slash - rel));
        char *tp = top != NULL ? sc_path_join(dir, top) : NULL;
        int nomem = tp == NULL;
        int bad = !nomem && lstat(tp, &st) == 0 && !S_ISDIR(st.st_mode);
        free(tp);
        if (nomem) {
            free(top);
            return oom(err);
        }
        if (bad) {
            rc = sc_error_set(err, SC_E_INVALID_PACKAGE, top,
                              "%s/ is not a directory in the package (a link or a file)", top);
            free(top);
            return rc;
        }
        free(top);
    }
    char *p = sc_path_join(dir, rel);
    if (p == NULL)
        return oom(err);
    if (lstat(p, &st) != 0) {
        if (errno != ENOENT)
            rc = sc_error_set(err, SC_E_IO, p, "cannot read %s: %s", p, strerror(errno));
        free(p);
        return rc;
    }
    if (!S_ISREG(st.st_mode)) {
        free(p);
        return sc_error_set(err, SC_E_INVALID_PACKAGE, rel, "%s is not a regular file", rel);
    }
    rc = sc_file_read(p, bytes, len, NULL, err);
    free(p);
    return rc;
}

sc_code sc_conda_read_info(const char *dir, const char *label, sc_conda_package **out,
                           sc_error *err)
{
    *out = NULL;
    if (label == NULL)
        label = dir;
    static const char *const names[6] = {"info/index.json", "info/paths.json", "info/files",
                                         "info/has_prefix", "info/no_link", "info/link.json"};
    char *b[6] = {NULL};
    size_t l[6] = {0};
    sc_code rc = SC_OK;
    for (int i = 0; i < 6 && rc == SC_OK; i++)
        rc = read_member(dir, names[i], &b[i], &l[i], err);
    sc_conda_package *pkg = NULL;
    if (rc == SC_OK && (pkg = calloc(1, sizeof *pkg)) == NULL)
        rc = oom(err);
    if (rc == SC_OK) {
        sc_conda_info_bytes in = {b[0], l[0], b[1], l[1], b[2], l[2],
                                  b[3], l[3], b[4], l[4], b[5], l[5]};
        rc = sc_conda_parse_info(&in, label, pkg, err);
    }
    for (int i = 0; i < 6; i++)
        free(b[i]);
    if (rc != SC_OK) {
        sc_conda_package_free(pkg);
        return rc;
    }
    *out = pkg;
    return SC_OK;
}

/* ---- checking the archive against paths.json ------------------------------------------ */

/*
 * Does the soft link at `path` (target `target`) stay inside the prefix?
 * Resolved lexically from the link's own directory; a segment that names a
 * soft link of this package is followed (at most MAX_LINK_FOLLOWS).
 */
static int link_stays_inside(const xctx *x, const char *path, const char *target)
{
    char cur[PATH_MAX * 2];
    /* work = "<dir of path>/<target>" ; resolve segment by segment */
    char work[PATH_MAX * 2];
    const char *slash = strrchr(path, '/');
    size_t dl = slash ? (size_t)(slash - path) : 0;
    if (dl + 1 + strlen(target) + 1 > sizeof work)
        return 0;
    memcpy(work, path, dl);
    work[dl] = '\0';
    if (dl > 0)
        strcat(work, "/");
    strcat(work, target);
    int follows = 0;
restart:
    cur[0] = '\0';
    size_t cl = 0;
    const char *p = work;
    while (*p) {
        const char *e = strchr(p, '/');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        if (n == 0 || (n == 1 && p[0] == '.')) {
            /* nothing */
        } else if (n == 2 && p[0] == '.' && p[1] == '.') {
            if (cl == 0)
                return 0;
            char *last = strrchr(cur, '/');
            cl = last ? (size_t)(last - cur) : 0;
            cur[cl] = '\0';
        } else {
            if (cl + 1 + n + 1 > sizeof cur)
                return 0;
            if (cl > 0)
                cur[cl++] = '/';
            memcpy(cur + cl, p, n);
            cl += n;
            cur[cl] = '\0';
            const member *m = lookup(x, cur);
            if (m != NULL && m->kind == K_LINK) {
                if (m->target[0] == '/' || ++follows > MAX_LINK_FOLLOWS)
                    return 0;
                /* splice: <dir of cur>/<m->target>/<rest> */
                char next[PATH_MAX * 2];
                char *ls = strrchr(cur, '/');
                size_t pl = ls ? (size_t)(ls - cur) : 0;
                const char *rest = e ? e : "";
                if (pl + 1 + strlen(m->target) + strlen(rest) + 1 > sizeof next)
                    return 0;
                memcpy(next, cur, pl);
                next[pl] = '\0';
                if (pl > 0)
                    strcat(next, "/");
                strcat(next, m->target);
                strcat(next, rest);
                memcpy(work, next, strlen(next) + 1);
                goto restart;
            }
        }
        p = e ? e + 1 : p + n;
    }
    return 1;
}

static int fold_cmp(const void *a, const void *b)
{
    return sc_ascii_casecmp(*(const char *const *)a, *(const char *const *)b);
}

/* Does the file at rel contain needle? (mmap; files are checked once) */
static sc_code file_contains(const char *dir, const char *rel, const char *needle, int *yes,
                             sc_error *err)
{
    *yes = 0;
    char *p = sc_path_join(dir, rel);
    if (p == NULL)
        return oom(err);
    int fd = open(p, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        sc_code rc = sc_error_set(err, SC_E_IO, p, "cannot read %s: %s", p, strerror(errno));
        if (fd >= 0)
            close(fd);
        free(p);
        return rc;
    }
    free(p);
    size_t n = strlen(needle);
    if ((uint64_t)st.st_size >= n && st.st_size > 0) {
        void *map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (map == MAP_FAILED) {
            close(fd);
            return sc_error_set(err, SC_E_IO, rel, "cannot map %s: %s", rel, strerror(errno));
        }
        *yes = memmem(map, (size_t)st.st_size, needle, n) != NULL;
        munmap(map, (size_t)st.st_size);
    }
    close(fd);
    return SC_OK;
}

static sc_code check_against_archive(xctx *x, sc_conda_package *pkg,
                                     const sc_conda_extract_options *o, sc_error *err)
{
    const char *pf = pkg->legacy_paths ? "info/files" : "info/paths.json";
    for (size_t i = 0; i < pkg->n_paths; i++) {
        sc_conda_path *p = &pkg->paths[i];
        member *m = lookup(x, p->path);
        if (m == NULL) {
            if (p->type == SC_CONDA_PATH_DIRECTORY)
                continue; /* an empty directory the linker creates */
            return bad(err, x->label, pf, "lists %s, which the archive lacks", p->path);
        }
        if (pkg->legacy_paths) {
            p->type = m->kind == K_LINK  ? SC_CONDA_PATH_SOFTLINK
                      : m->kind == K_DIR ? SC_CONDA_PATH_DIRECTORY
                                         : SC_CONDA_PATH_HARDLINK;
            if (p->type != SC_CONDA_PATH_HARDLINK) { /* as in paths.json: ignored */
                free(p->placeholder);
                p->placeholder = NULL;
                p->file_mode = SC_CONDA_FILE_MODE_NONE;
            }
        }
        static const int want[3] = {K_FILE, K_LINK, K_DIR};
        if (m->kind != want[p->type]) {
            static const char *const kn[3] = {"a file", "a soft link", "a directory"};
            char what[96];
            snprintf(what, sizeof what, "lists %%s as %s but the archive holds %s", kn[p->type],
                     m->kind == K_FILE ? "a regular file"
                     : m->kind == K_LINK ? "a soft link" : "a directory");
            return bad(err, x->label, pf, what, p->path);
        }
        if (p->type == SC_CONDA_PATH_HARDLINK) {
            if (p->has_size && p->size != m->size)
                return bad(err, x->label, pf, "size_in_bytes of %s is not the archive's",
                           p->path);
            if (p->has_sha256 && memcmp(p->sha256, m->sha256, 32) != 0)
                return bad(err, x->label, pf, "sha256 of %s is not the archive's", p->path);
            if (p->file_mode == SC_CONDA_FILE_MODE_BINARY) {
                int yes = 0;
                if (strlen(p->placeholder) > m->size)
                    return bad(err, x->label, pf,
                               "binary placeholder of %s is longer than its slot (the file)",
                               p->path);
                sc_code rc = file_contains(x->dest, p->path, p->placeholder, &yes, err);
                if (rc != SC_OK)
                    return rc;
                if (!yes)
                    return bad(err, x->label, pf,
                               "binary placeholder of %s has no slot: the file does not hold it",
                               p->path);
            }
        } else if (p->type == SC_CONDA_PATH_SOFTLINK) {
            if (!link_stays_inside(x, p->path, m->target))
                return member_err(err, SC_E_LINK_ENTRY, x->label, p->path,
                                  "is a soft link whose target leaves the prefix");
        }
    }
    if (o != NULL && o->expected_subdir != NULL) {
        const char *sd = pkg->subdir;
        if (sd == NULL && pkg->noarch != NULL)
            sd = "noarch";
        if (sd == NULL || (strcmp(sd, o->expected_subdir) != 0 && strcmp(sd, "noarch") != 0))
            return sc_error_set(err, SC_E_PACKAGE_SUBDIR, x->label,
                                "%s: package %s is for subdir %s, not the target's %s nor noarch",
                                x->label, pkg->name, sd ? sd : "(none)", o->expected_subdir);
    }
    if (o != NULL && o->case_folding && pkg->n_paths > 1) {
        const char **v = malloc(pkg->n_paths * sizeof *v);
        if (v == NULL)
            return oom(err);
        for (size_t i = 0; i < pkg->n_paths; i++)
            v[i] = pkg->paths[i].path;
        qsort(v, pkg->n_paths, sizeof *v, fold_cmp);
        for (size_t i = 0; i + 1 < pkg->n_paths; i++)
            if (sc_ascii_casecmp(v[i], v[i + 1]) == 0) {
                char q1[QUOTE_MAX], q2[QUOTE_MAX];
                sc_path_quote(v[i], strlen(v[i]), q1, sizeof q1);
                sc_path_quote(v[i + 1], strlen(v[i + 1]), q2, sizeof q2);
                free(v);
                return sc_error_set(err, SC_E_ENTRY_COLLISION, x->label,
                                    "%s: %s and %s are one file on a case-folding target",
                                    x->label, q1, q2);
            }
        free(v);
    }
    return SC_OK;
}

/* The way out of a package that cannot be used: another build of it. */
static void add_remedy(sc_error *err)
{
    if (err == NULL)
        return;
    switch (err->code) {
    case SC_E_INVALID_PACKAGE:
    case SC_E_PACKAGE_SUBDIR:
    case SC_E_UNSAFE_PATH:
    case SC_E_LINK_ENTRY:
    case SC_E_SPECIAL_ENTRY:
    case SC_E_ENTRY_COLLISION:
    case SC_E_EXTRACTION_LIMIT:
    case SC_E_INVALID_ARCHIVE: {
        size_t n = strlen(err->message);
        snprintf(err->message + n, sizeof err->message - n,
                 " (the package cannot be installed as built: lock another build of it, "
                 "`" SC_REMEDY_LOCK "`)");
        break;
    }
    default:
        break;
    }
}

/* ---- the call -------------------------------------------------------------------------- */

sc_code sc_conda_extract(const char *file, const char *label, const char *dest,
                         const sc_conda_extract_options *opts, sc_conda_package **out,
                         sc_error *err)
{
    *out = NULL;
    if (file == NULL || dest == NULL)
        return sc_error_set(err, SC_E_USAGE, NULL, "sc_conda_extract: no file or destination");
    if (label == NULL)
        label = file;
    int is_conda = ends_with(file, ".conda"), is_bz2 = ends_with(file, ".tar.bz2");
    if (!is_conda && !is_bz2)
        return sc_error_set(err, SC_E_INVALID_ARCHIVE, label,
                            "%s: not a conda package name (.conda or .tar.bz2)", label);
    xctx x;
    memset(&x, 0, sizeof x);
    x.label = label;
    x.dest = dest;
    x.root = -1;
    x.cached_fd = -1;
    sc_code rc = sc_lazy_archive(&x.la, err);
    if (rc != SC_OK)
        return rc;
    struct stat st;
    if (stat(file, &st) != 0)
        return sc_error_set(err, SC_E_IO, file, "%s: cannot read %s: %s", label, file,
                            strerror(errno));
    if (opts != NULL && opts->max_unpacked_bytes) {
        x.budget = opts->max_unpacked_bytes;
    } else { /* 16 MiB + 1024 bytes per byte of archive, at most 64 GiB */
        uint64_t size = (uint64_t)st.st_size;
        x.budget = size > (SC_CONDA_DEFAULT_BUDGET - SC_CONDA_BUDGET_BASE) / SC_CONDA_BUDGET_RATIO
                       ? SC_CONDA_DEFAULT_BUDGET
                       : SC_CONDA_BUDGET_BASE + size * SC_CONDA_BUDGET_RATIO;
    }
    x.members_left = opts != NULL && opts->max_members ? opts->max_members
                                                        : SC_CONDA_DEFAULT_MEMBERS;
    if (mkdir(dest, 0700) != 0)
        return sc_error_set(err, errno == EEXIST ? SC_E_EXISTING_DESTINATION : SC_E_IO, dest,
                            "%s: cannot create %s: %s", label, dest, strerror(errno));
    sc_conda_package *pkg = NULL;
    if ((x.buf = malloc(IO_BUFFER)) == NULL) {
        rc = oom(err);
        goto fail;
    }
    x.root = open(dest, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (x.root < 0 || fchmod(x.root, 0755) != 0) {
        rc = sc_error_set(err, SC_E_IO, dest, "%s: cannot open %s: %s", label, dest,
                          strerror(errno));
        goto fail;
    }
    if (is_conda) {
        if ((rc = conda_pass(&x, file, "info-", err)) != SC_OK)
            goto fail;
        if ((rc = sc_conda_read_info(dest, label, &pkg, err)) != SC_OK)
            goto fail;
        /* the payload may unpack to what paths.json declares, and no more */
        uint64_t declared = 0;
        int all = 1;
        for (size_t i = 0; i < pkg->n_paths; i++) {
            const sc_conda_path *p = &pkg->paths[i];
            if (p->type != SC_CONDA_PATH_HARDLINK)
                continue;
            if (!p->has_size)
                all = 0;
            else
                declared = p->size > UINT64_MAX - declared ? UINT64_MAX : declared + p->size;
        }
        if (all && declared < x.budget && x.budget - declared > SC_CONDA_UNLISTED_SLACK)
            x.budget = declared + SC_CONDA_UNLISTED_SLACK;
        x.known = pkg;
        if ((rc = conda_pass(&x, file, "pkg-", err)) != SC_OK)
            goto fail;
    } else {
        if ((rc = extract_tar_bz2(&x, file, err)) != SC_OK)
            goto fail;
        if ((rc = sc_conda_read_info(dest, label, &pkg, err)) != SC_OK)
            goto fail;
    }
    if ((rc = check_against_archive(&x, pkg, opts, err)) != SC_OK)
        goto fail;
    for (size_t i = 0; i < x.n; i++)
        if (x.m[i].kind == K_FILE && strncmp(x.m[i].path, "info/", 5) != 0)
            pkg->unpacked_bytes += x.m[i].size;
    xctx_free(&x);
    *out = pkg;
    return SC_OK;
fail:
    xctx_free(&x);
    sc_conda_package_free(pkg);
    add_remedy(err);
    sc_error keep;
    if (err != NULL)
        keep = *err;
    sc_error ignored;
    sc_file_remove_tree(dest, &ignored);
    if (err != NULL)
        *err = keep;
    return rc;
}
