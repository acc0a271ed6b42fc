/* SPDX-License-Identifier: Apache-2.0 */
/*
 * conda_link.c — link extracted conda packages into one prefix.
 *
 * Guarantees (conda_link.h has the whole contract):
 *   - the result depends only on the packages, never on the order of the
 *     input array: packages are ordered topologically by name (ties and
 *     cycles settled by name bytes), every path's winner is decided before
 *     anything is written, and each path is written exactly once, by its
 *     winner, in byte order of the paths;
 *   - placeholders are never substituted; only launchers are rewritten, in
 *     the relocatable form of format-v3 20.2 step 8;
 *   - nothing is written through a link: a path under another package's
 *     file or link is refused before anything is written;
 *   - on failure the prefix is removed;
 *   - no global state.
 */
#include "scrollcase/conda_link.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "scrollcase/copy.h"
#include "scrollcase/file.h"
#include "scrollcase/json.h"
#include "scrollcase/path.h"
#include "scrollcase/remedy.h"

static sc_code oom(sc_error *err)
{
    return sc_error_set(err, SC_E_OUT_OF_MEMORY, NULL, "out of memory");
}

/* ---- launchers ----------------------------------------------------------------- */

sc_code sc_python_trampoline_head(const char *python, sc_strbuf *out, sc_error *err)
{
    if (python == NULL || python[0] == '\0' || strchr(python, '/') || strchr(python, '"') ||
        strchr(python, '\'') || strchr(python, '\n') || strchr(python, '$') ||
        strchr(python, '`') || strchr(python, '\\'))
        return sc_error_set(err, SC_E_USAGE, NULL,
                            "sc_python_trampoline_head: interpreter name %s is not a plain "
                            "file name", python ? python : "(null)");
    if (sc_strbuf_printf(out,
                         "#!/bin/sh\n"
                         "'''exec' \"$(CDPATH= cd -- \"$(dirname -- \"$0\")\" && pwd)/%s\" "
                         "\"$0\" \"$@\"\n"
                         "' '''\n",
                         python) != SC_OK)
        return oom(err);
    return SC_OK;
}

sc_code sc_python_entry_point_launcher(const char *python, const char *module,
                                       const char *function, sc_strbuf *out, sc_error *err)
{
    if (module == NULL || function == NULL || !sc_is_dotted_name(module) ||
        !sc_is_dotted_name(function))
        return sc_error_set(err, SC_E_USAGE, NULL,
                            "sc_python_entry_point_launcher: %s:%s is not module:function",
                            module ? module : "(null)", function ? function : "(null)");
    sc_code rc = sc_python_trampoline_head(python, out, err);
    if (rc != SC_OK)
        return rc;
    const char *dot = strchr(function, '.');
    size_t head = dot ? (size_t)(dot - function) : strlen(function);
    if (sc_strbuf_printf(out,
                         "# -*- coding: utf-8 -*-\n"
                         "import re\n"
                         "import sys\n"
                         "from %s import %.*s\n"
                         "if __name__ == \"__main__\":\n"
                         "    sys.argv[0] = re.sub(r\"(-script\\.pyw|\\.exe)?$\", \"\", "
                         "sys.argv[0])\n"
                         "    sys.exit(%s())\n",
                         module, (int)head, function, function) != SC_OK)
        return oom(err);
    return SC_OK;
}

sc_code sc_conda_site_packages(const char *version, int windows, char **out, sc_error *err)
{
    *out = NULL;
    const char *p = version;
    size_t a = 0, b = 0;
    while (p != NULL && p[a] >= '0' && p[a] <= '9')
        a++;
    if (p != NULL && a > 0 && a < 4 && p[a] == '.')
        while (p[a + 1 + b] >= '0' && p[a + 1 + b] <= '9')
            b++;
    if (p == NULL || a == 0 || a > 3 || b == 0 || b > 3)
        return sc_error_set(err, SC_E_INVALID_PACKAGE, NULL,
                            "python version %s has no major.minor", version ? version : "(null)");
    char buf[64];
    if (windows)
        snprintf(buf, sizeof buf, "Lib/site-packages");
    else
        snprintf(buf, sizeof buf, "lib/python%.*s/site-packages", (int)(a + 1 + b), p);
    *out = strdup(buf);
    return *out != NULL ? SC_OK : oom(err);
}

/* ---- order ------------------------------------------------------------------------ */

sc_code sc_conda_link_order(const sc_conda_link_package *pkgs, size_t n, size_t *order,
                            sc_error *err)
{
    if (n == 0)
        return SC_OK;
    for (size_t i = 0; i < n; i++)
        if (pkgs[i].pkg == NULL || pkgs[i].pkg->name == NULL)
            return sc_error_set(err, SC_E_USAGE, NULL, "sc_conda_link_order: package %zu has no "
                                "metadata", i);
    /* by name: byname[k] = index of the k-th smallest name */
    size_t *byname = malloc(n * sizeof *byname);
    size_t *pending = calloc(n, sizeof *pending); /* unmet dependencies */
    unsigned char *done = calloc(n, 1);
    size_t **users = calloc(n, sizeof *users);    /* who depends on i */
    size_t *nusers = calloc(n, sizeof *nusers);
    sc_code rc = SC_OK;
    if (byname == NULL || pending == NULL || done == NULL || users == NULL || nusers == NULL) {
        rc = oom(err);
        goto out;
    }
    for (size_t i = 0; i < n; i++)
        byname[i] = i;
    /* insertion sort keeps this dependency-free; n is hundreds */
    for (size_t i = 1; i < n; i++) {
        size_t v = byname[i], j = i;
        while (j > 0 && strcmp(pkgs[byname[j - 1]].pkg->name, pkgs[v].pkg->name) > 0) {
            byname[j] = byname[j - 1];
            j--;
        }
        byname[j] = v;
    }
    for (size_t i = 0; i + 1 < n; i++)
        if (strcmp(pkgs[byname[i]].pkg->name, pkgs[byname[i + 1]].pkg->name) == 0) {
            rc = sc_error_set(err, SC_E_INVALID_PACKAGE, pkgs[byname[i]].pkg->name,
                              "package %s is given twice", pkgs[byname[i]].pkg->name);
            goto out;
        }
    for (size_t i = 0; i < n; i++) {
        const sc_conda_package *p = pkgs[i].pkg;
        for (size_t d = 0; d < p->n_depends; d++) {
            char name[256];
            sc_conda_spec_name(p->depends[d], name, sizeof name);
            /* binary search by name */
            size_t lo = 0, hi = n;
            while (lo < hi) {
                size_t mid = (lo + hi) / 2;
                int c = strcmp(pkgs[byname[mid]].pkg->name, name);
                if (c < 0)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            if (lo == n || strcmp(pkgs[byname[lo]].pkg->name, name) != 0)
                continue;
            size_t dep = byname[lo];
            if (dep == i)
                continue;
            int seen = 0;
            for (size_t k = 0; k < nusers[dep]; k++)
                if (users[dep][k] == i)
                    seen = 1;
            if (seen)
                continue;
            size_t *nu = realloc(users[dep], (nusers[dep] + 1) * sizeof *nu);
            if (nu == NULL) {
                rc = oom(err);
                goto out;
            }
            users[dep] = nu;
            users[dep][nusers[dep]++] = i;
            pending[i]++;
        }
    }
    for (size_t k = 0; k < n; k++) {
        size_t pick = n;
        for (size_t j = 0; j < n && pick == n; j++)
            if (!done[byname[j]] && pending[byname[j]] == 0)
                pick = byname[j];
        for (size_t j = 0; j < n && pick == n; j++) /* a cycle: smallest name first */
            if (!done[byname[j]])
                pick = byname[j];
        done[pick] = 1;
        order[k] = pick;
        for (size_t u = 0; u < nusers[pick]; u++)
            if (pending[users[pick][u]] > 0)
                pending[users[pick][u]]--;
    }
out:
    if (users != NULL)
        for (size_t i = 0; i < n; i++)
            free(users[i]);
    free(users);
    free(nusers);
    free(byname);
    free(pending);
    free(done);
    return rc;
}

/* ---- the plan ---------------------------------------------------------------------- */

enum { E_FILE = 'f', E_LINK = 'l', E_DIR = 'd', E_ENTRY = 'e' };

typedef struct entry {
    char *dest;                       /* prefix-relative */
    char *key;                        /* dest, ASCII-folded on a case-folding target */
    size_t rank;                      /* position of its package in the link order */
    size_t pkg;                       /* index into pkgs */
    const sc_conda_path *src;         /* NULL for an entry point */
    const sc_conda_entry_point *ep;
    int kind;
    int script;                       /* a noarch python-scripts file */
} entry;

typedef struct plan {
    entry *e;
    size_t n, cap;
} plan;

static void plan_free(plan *p)
{
    for (size_t i = 0; i < p->n; i++) {
        free(p->e[i].dest);
        free(p->e[i].key);
    }
    free(p->e);
}

typedef struct clob {
    size_t winner, loser; /* entry indices: the loser's entry is not written */
    int same_path;        /* the winner wrote the loser's path (else: it was in the way) */
} clob;

static int in_dir(const char *path, const char *dir)
{
    size_t n = strlen(dir);
    return strncmp(path, dir, n) == 0 && path[n] == '/';
}

static sc_code plan_add(plan *p, const char *dest, int fold, entry **out, sc_error *err)
{
    if (p->n == p->cap) {
        size_t nc = p->cap ? p->cap * 2 : 1024;
        entry *ne = realloc(p->e, nc * sizeof *ne);
        if (ne == NULL)
            return oom(err);
        p->e = ne;
        p->cap = nc;
    }
    entry *e = &p->e[p->n];
    memset(e, 0, sizeof *e);
    e->dest = strdup(dest);
    e->key = strdup(dest);
    if (e->dest == NULL || e->key == NULL) {
        free(e->dest);
        free(e->key);
        return oom(err);
    }
    if (fold)
        for (char *c = e->key; *c; c++)
            if (*c >= 'A' && *c <= 'Z')
                *c = (char)(*c - 'A' + 'a');
    p->n++;
    *out = e;
    return SC_OK;
}

/* ---- writing ----------------------------------------------------------------------- */

static sc_code mkdirs(const char *prefix, const char *rel, sc_error *err)
{
    char path[PATH_MAX];
    int n = snprintf(path, sizeof path, "%s/%s", prefix, rel);
    if (n < 0 || (size_t)n >= sizeof path)
        return sc_error_set(err, SC_E_IO, rel, "path too long: %s", rel);
    size_t base = strlen(prefix) + 1;
    for (size_t i = base;; i++) {
        if (path[i] != '/' && path[i] != '\0')
            continue;
        char c = path[i];
        path[i] = '\0';
        struct stat st;
        if (mkdir(path, 0755) == 0) {
            if (chmod(path, 0755) != 0)
                return sc_error_set(err, SC_E_IO, path, "cannot set the mode of %s: %s", path,
                                    strerror(errno));
        } else if (errno != EEXIST) {
            return sc_error_set(err, SC_E_IO, path, "cannot create %s: %s", path,
                                strerror(errno));
        } else if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode)) {
            /* a soft link (of another package) where a directory goes: nothing
             * is written through it, wherever it points (format-v3 20.2) */
            return sc_error_set(err, SC_E_LINK_ENTRY, path + base,
                                "%s is a soft link where a directory goes; a package's files "
                                "and records are never written through one (%s)",
                                path + base, SC_REMEDY_LOCK);
        }
        path[i] = c;
        if (c == '\0')
            return SC_OK;
    }
}

static sc_code parent_dirs(const char *prefix, const char *rel, sc_error *err)
{
    const char *slash = strrchr(rel, '/');
    if (slash == NULL)
        return SC_OK;
    char dir[PATH_MAX];
    size_t n = (size_t)(slash - rel);
    if (n >= sizeof dir)
        return sc_error_set(err, SC_E_IO, rel, "path too long: %s", rel);
    memcpy(dir, rel, n);
    dir[n] = '\0';
    return mkdirs(prefix, dir, err);
}

static sc_code write_bytes(const char *path, const void *bytes, size_t len, unsigned mode,
                           sc_error *err)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0)
        return sc_error_set(err, SC_E_IO, path, "cannot create %s: %s", path, strerror(errno));
    const char *p = bytes;
    while (len > 0) {
        ssize_t w = write(fd, p, len);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            int e = w == 0 ? EIO : errno; /* a write of nothing sets no errno */
            close(fd);
            return sc_error_set(err, SC_E_IO, path, "cannot write %s: %s", path, strerror(e));
        }
        p += w;
        len -= (size_t)w;
    }
    int e = fchmod(fd, mode) != 0 ? errno : 0;
    if (close(fd) != 0 && e == 0)
        e = errno;
    if (e != 0)
        return sc_error_set(err, SC_E_IO, path, "cannot write %s: %s", path, strerror(e));
    return SC_OK;
}

static sc_code copy_file(const char *from, const char *to, unsigned mode, sc_error *err)
{
    int in = open(from, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (in < 0)
        return sc_error_set(err, SC_E_INVALID_PACKAGE, from, "cannot read the extracted %s: %s",
                            from, strerror(errno));
    int out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (out < 0) {
        int e = errno;
        close(in);
        return sc_error_set(err, SC_E_IO, to, "cannot create %s: %s", to, strerror(e));
    }
    sc_code rc = sc_copy_fd(in, out, from, to, err);
    close(in);
    if (rc == SC_OK && fchmod(out, mode) != 0)
        rc = sc_error_set(err, SC_E_IO, to, "cannot set the mode of %s", to);
    if (close(out) != 0 && rc == SC_OK)
        rc = sc_error_set(err, SC_E_IO, to, "cannot write %s", to);
    return rc;
}

/* The interpreter's file name of a "#!" line: "python3.11" of "#!/p/bin/python3.11 -E". */
static int shebang_names_python(const char *text, size_t len, const char *placeholder)
{
    const char *nl = memchr(text, '\n', len);
    size_t ll = nl ? (size_t)(nl - text) : len;
    if (ll < 2 || text[0] != '#' || text[1] != '!')
        return 0;
    if (placeholder != NULL) {
        size_t pl = strlen(placeholder);
        int found = 0;
        for (size_t i = 2; i + pl <= ll && !found; i++)
            found = memcmp(text + i, placeholder, pl) == 0;
        if (!found)
            return 0;
    }
    size_t i = 2;
    while (i < ll && (text[i] == ' ' || text[i] == '\t'))
        i++;
    size_t start = i;
    while (i < ll && text[i] != ' ' && text[i] != '\t' && text[i] != '\r')
        i++;
    size_t b = start;
    for (size_t k = start; k < i; k++)
        if (text[k] == '/')
            b = k + 1;
    return i - b >= 6 && memcmp(text + b, "python", 6) == 0;
}

/* Rewrite the launcher at src (whole file read) into dst: trampoline + body. */
static sc_code write_launcher_from(const char *src, const char *dst, const char *python,
                                   int *rewritten, sc_error *err, const char *placeholder,
                                   int any_python_shebang)
{
    char *text = NULL;
    size_t len = 0;
    *rewritten = 0;
    sc_code rc = sc_file_read(src, &text, &len, NULL, err);
    if (rc != SC_OK)
        return rc;
    int yes = any_python_shebang ? (len >= 2 && text[0] == '#' && text[1] == '!')
                                 : shebang_names_python(text, len, placeholder);
    if (!yes) {
        free(text);
        return SC_OK;
    }
    sc_strbuf b = SC_STRBUF_INIT;
    rc = sc_python_trampoline_head(python, &b, err);
    const char *nl = memchr(text, '\n', len);
    size_t body = nl ? (size_t)(nl - text) + 1 : len;
    if (rc == SC_OK && sc_strbuf_add(&b, text + body, len - body) != SC_OK)
        rc = oom(err);
    if (rc == SC_OK)
        rc = write_bytes(dst, b.p ? b.p : "", b.len, 0755, err);
    sc_strbuf_free(&b);
    free(text);
    if (rc == SC_OK)
        *rewritten = 1;
    return rc;
}

typedef struct linker {
    const sc_conda_link_package *pkgs;
    const sc_conda_link_options *o;
    const char *scripts;
    const char *python;
    char made[PATH_MAX]; /* the last parent directory made (entries come sorted) */
} linker;

/* The source path in the extracted directory (caller frees). */
static char *source_of(const linker *l, const entry *e)
{
    return sc_path_join(l->pkgs[e->pkg].extracted_dir, e->src->path);
}

static sc_code write_entry(linker *l, const entry *e, sc_error *err)
{
    char dst[PATH_MAX];
    int n = snprintf(dst, sizeof dst, "%s/%s", l->o->prefix, e->dest);
    if (n < 0 || (size_t)n >= sizeof dst)
        return sc_error_set(err, SC_E_IO, e->dest, "path too long: %s", e->dest);
    if (e->kind == E_DIR)
        return mkdirs(l->o->prefix, e->dest, err);
    const char *slash = strrchr(e->dest, '/');
    size_t dl = slash ? (size_t)(slash - e->dest) : 0;
    sc_code rc = SC_OK;
    if (dl > 0 && !(strlen(l->made) == dl && memcmp(l->made, e->dest, dl) == 0)) {
        if ((rc = parent_dirs(l->o->prefix, e->dest, err)) != SC_OK)
            return rc;
        memcpy(l->made, e->dest, dl);
        l->made[dl] = '\0';
    }
    if (e->kind == E_ENTRY) {
        sc_strbuf b = SC_STRBUF_INIT;
        rc = sc_python_entry_point_launcher(l->python, e->ep->module, e->ep->function, &b, err);
        if (rc == SC_OK)
            rc = write_bytes(dst, b.p, b.len, 0755, err);
        sc_strbuf_free(&b);
        return rc;
    }
    char *src = source_of(l, e);
    if (src == NULL)
        return oom(err);
    struct stat st;
    if (lstat(src, &st) != 0) {
        rc = sc_error_set(err, SC_E_INVALID_PACKAGE, src, "the extracted %s is missing: %s", src,
                          strerror(errno));
        free(src);
        return rc;
    }
    if (e->kind == E_LINK) {
        char target[PATH_MAX];
        ssize_t tl = S_ISLNK(st.st_mode) ? readlink(src, target, sizeof target - 1) : -1;
        if (tl < 0)
            rc = sc_error_set(err, SC_E_INVALID_PACKAGE, src, "the extracted %s is not a link",
                              src);
        else {
            target[tl] = '\0';
            if (symlink(target, dst) != 0)
                rc = sc_error_set(err, SC_E_IO, dst, "cannot create the link %s: %s", dst,
                                  strerror(errno));
        }
        free(src);
        return rc;
    }
    if (!S_ISREG(st.st_mode)) {
        rc = sc_error_set(err, SC_E_INVALID_PACKAGE, src, "the extracted %s is not a file", src);
        free(src);
        return rc;
    }
    unsigned mode = (unsigned)st.st_mode & 0777;
    /* launchers: a noarch python script, or a text-placeholder python script in bin/ */
    int candidate = !l->o->windows &&
                    (e->script || (e->src->file_mode == SC_CONDA_FILE_MODE_TEXT &&
                                   e->src->placeholder != NULL && in_dir(e->dest, l->scripts) &&
                                   strchr(e->dest + strlen(l->scripts) + 1, '/') == NULL));
    if (candidate) {
        int rewritten = 0;
        rc = write_launcher_from(src, dst, l->python, &rewritten, err,
                                 e->src->placeholder, e->script);
        if (rc != SC_OK || rewritten) {
            free(src);
            return rc;
        }
    }
    if (!e->src->no_link && !l->o->copy_files) {
        if (link(src, dst) == 0) {
            free(src);
            return SC_OK;
        }
        if (errno != EXDEV && errno != EPERM && errno != EMLINK && errno != ENOTSUP &&
            errno != EACCES) {
            rc = sc_error_set(err, SC_E_IO, dst, "cannot link %s: %s", dst, strerror(errno));
            free(src);
            return rc;
        }
    }
    rc = copy_file(src, dst, mode, err);
    free(src);
    return rc;
}

static sc_code write_record(const sc_conda_link_package *lp, const char *prefix, sc_error *err)
{
    const sc_conda_package *p = lp->pkg;
    char rel[PATH_MAX];
    snprintf(rel, sizeof rel, "conda-meta/%s-%s-%s.json", p->name, p->version, p->build);
    sc_code rc = parent_dirs(prefix, rel, err);
    if (rc != SC_OK)
        return rc;
    char *path = sc_path_join(prefix, rel);
    sc_json *o = sc_json_new_object();
    const char *license = lp->license != NULL ? lp->license : p->license;
    if (path == NULL || o == NULL ||
        sc_json_object_append(o, "name", sc_json_new_string(p->name)) != 0 ||
        sc_json_object_append(o, "version", sc_json_new_string(p->version)) != 0 ||
        sc_json_object_append(o, "build", sc_json_new_string(p->build)) != 0 ||
        (license != NULL &&
         sc_json_object_append(o, "license", sc_json_new_string(license)) != 0))
        rc = oom(err);
    if (rc == SC_OK) {
        struct stat st;
        if (lstat(path, &st) == 0)
            rc = sc_error_set(err, SC_E_ENTRY_COLLISION, rel,
                              "%s: a package file stands where the conda record goes", rel);
        else
            rc = sc_json_write_file(o, path, 0644, err);
    }
    sc_json_free(o);
    free(path);
    return rc;
}

static int entry_dest_cmp(const void *a, const void *b)
{
    return strcmp((*(const entry *const *)a)->dest, (*(const entry *const *)b)->dest);
}

static int dir_is_empty(const char *path)
{
    DIR *d = opendir(path);
    if (d == NULL)
        return 0;
    struct dirent *de;
    int empty = 1;
    while ((de = readdir(d)) != NULL)
        if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
            empty = 0;
    closedir(d);
    return empty;
}

static sc_code build_plan(const linker *l, const size_t *order, size_t n, plan *pl,
                          sc_error *err)
{
    const sc_conda_link_options *o = l->o;
    for (size_t r = 0; r < n; r++) {
        size_t k = order[r];
        const sc_conda_package *p = l->pkgs[k].pkg;
        int py = p->noarch != NULL && strcmp(p->noarch, "python") == 0;
        if (py && o->site_packages == NULL)
            /* a lock whose environment has no python for it: its records
             * do not say noarch, so only the package itself tells */
            return sc_error_set(err, SC_E_UNSUPPORTED_LOCK_PACKAGE, p->name,
                                "%s is a noarch python package but the environment has no "
                                "python package to install it for; add python to pixi.toml "
                                "and run `%s`", p->name, SC_REMEDY_LOCK);
        for (size_t i = 0; i < p->n_paths; i++) {
            const sc_conda_path *sp = &p->paths[i];
            char dest[PATH_MAX];
            int script = 0;
            if (py && strncmp(sp->path, "site-packages/", 14) == 0)
                snprintf(dest, sizeof dest, "%s/%s", o->site_packages, sp->path + 14);
            else if (py && strncmp(sp->path, "python-scripts/", 15) == 0) {
                snprintf(dest, sizeof dest, "%s/%s", l->scripts, sp->path + 15);
                script = 1;
            } else
                snprintf(dest, sizeof dest, "%s", sp->path);
            entry *e;
            sc_code rc = plan_add(pl, dest, o->case_folding, &e, err);
            if (rc != SC_OK)
                return rc;
            e->rank = r;
            e->pkg = k;
            e->src = sp;
            e->script = script;
            e->kind = sp->type == SC_CONDA_PATH_SOFTLINK    ? E_LINK
                      : sp->type == SC_CONDA_PATH_DIRECTORY ? E_DIR
                                                            : E_FILE;
        }
        for (size_t i = 0; py && i < p->n_entry_points; i++) {
            char dest[PATH_MAX];
            snprintf(dest, sizeof dest, "%s/%s%s", l->scripts, p->entry_points[i].command,
                     o->windows ? "-script.py" : "");
            entry *e;
            sc_code rc = plan_add(pl, dest, o->case_folding, &e, err);
            if (rc != SC_OK)
                return rc;
            e->rank = r;
            e->pkg = k;
            e->ep = &p->entry_points[i];
            e->kind = E_ENTRY;
        }
    }
    return SC_OK;
}

/* ---- settling: what sequential writes would leave --------------------------------- */

/* One path that an entry names or lies under: the last writers (entry index + 1). */
typedef struct node {
    char *key;
    size_t last;        /* of any kind at this path */
    size_t last_nondir; /* of a file, link or entry point at this path */
    size_t last_under;  /* of any entry strictly beneath this path */
} node;

typedef struct nodes {
    node *v;
    size_t n, cap;
    size_t *slots;
    size_t nslots;
} nodes;

static node *node_at(nodes *ns, const char *key, size_t klen, sc_error *err)
{
    size_t i = 1469598103934665603ull;
    for (size_t k = 0; k < klen; k++)
        i = (i ^ (unsigned char)key[k]) * 1099511628211ull;
    i &= ns->nslots - 1;
    while (ns->slots[i] != 0) {
        node *nd = &ns->v[ns->slots[i] - 1];
        if (strlen(nd->key) == klen && memcmp(nd->key, key, klen) == 0)
            return nd;
        i = (i + 1) & (ns->nslots - 1);
    }
    if (ns->n == ns->cap || (ns->n + 1) * 2 > ns->nslots) {
        sc_error_set(err, SC_E_INTERNAL, NULL, "conda_link: node table full");
        return NULL;
    }
    node *nd = &ns->v[ns->n];
    memset(nd, 0, sizeof *nd);
    if ((nd->key = strndup(key, klen)) == NULL) {
        oom(err);
        return NULL;
    }
    ns->slots[i] = ++ns->n;
    return nd;
}

static int clob_cmp(const plan *pl, const clob *a, const clob *b)
{
    int c = strcmp(pl->e[a->loser].key, pl->e[b->loser].key);
    if (c != 0)
        return c;
    return a->loser < b->loser ? -1 : a->loser > b->loser;
}

/*
 * The entries that survive writing pl->e[0..n) in order, each replacing what
 * stands at its path (a file, a link, or a directory with all it holds) and
 * any file or link at a directory on its way; and, for each file, link or
 * entry point that does not survive, the clobber (a witness of the later
 * entry that removed it), sorted by the loser's path then order.  Entries of
 * one package never clobber each other in reports (an entry point over the
 * package's own script).
 */
static sc_code settle(plan *pl, entry ***win_out, size_t *nwin, clob **cl_out, size_t *ncl,
                      sc_error *err)
{
    nodes ns;
    memset(&ns, 0, sizeof ns);
    size_t depth_total = 0;
    for (size_t i = 0; i < pl->n; i++) {
        depth_total++;
        for (const char *c = pl->e[i].key; *c; c++)
            depth_total += *c == '/';
    }
    ns.cap = depth_total + 1;
    ns.nslots = 1024;
    while (ns.nslots < ns.cap * 2 + 2)
        ns.nslots *= 2;
    ns.v = calloc(ns.cap, sizeof *ns.v);
    ns.slots = calloc(ns.nslots, sizeof *ns.slots);
    entry **win = malloc((pl->n ? pl->n : 1) * sizeof *win);
    clob *cl = malloc((pl->n ? pl->n : 1) * sizeof *cl);
    size_t nw = 0, nc = 0;
    sc_code rc = SC_OK;
    if (ns.v == NULL || ns.slots == NULL || win == NULL || cl == NULL) {
        rc = oom(err);
        goto out;
    }
    for (size_t i = 0; i < pl->n; i++) {
        const entry *e = &pl->e[i];
        node *nd = node_at(&ns, e->key, strlen(e->key), err);
        if (nd == NULL) {
            rc = err ? err->code : SC_E_OUT_OF_MEMORY;
            goto out;
        }
        nd->last = i + 1;
        if (e->kind != E_DIR)
            nd->last_nondir = i + 1;
        for (const char *c = strchr(e->key, '/'); c != NULL; c = strchr(c + 1, '/')) {
            node *up = node_at(&ns, e->key, (size_t)(c - e->key), err);
            if (up == NULL) {
                rc = err ? err->code : SC_E_OUT_OF_MEMORY;
                goto out;
            }
            up->last_under = i + 1;
        }
    }
    for (size_t i = 0; i < pl->n; i++) {
        entry *e = &pl->e[i];
        const node *nd = node_at(&ns, e->key, strlen(e->key), err);
        size_t killer = 0; /* index + 1 */
        int same = 0;
        if (nd->last != i + 1) {
            killer = nd->last;
            same = 1;
        } else if (e->kind != E_DIR && nd->last_under > i + 1) {
            killer = nd->last_under;
        } else {
            for (const char *c = strchr(e->key, '/'); c != NULL && killer == 0;
                 c = strchr(c + 1, '/')) {
                const node *up = node_at(&ns, e->key, (size_t)(c - e->key), err);
                if (up->last_nondir > i + 1)
                    killer = up->last_nondir;
            }
        }
        if (killer == 0) {
            win[nw++] = e;
            continue;
        }
        if (e->kind == E_DIR || pl->e[killer - 1].pkg == e->pkg)
            continue; /* not a clobber: directories merge or go; a package's own entries */
        cl[nc].winner = killer - 1;
        cl[nc].loser = i;
        cl[nc].same_path = same;
        nc++;
    }
    for (size_t i = 1; i < nc; i++) { /* insertion sort: clobbers are few */
        clob v = cl[i];
        size_t j = i;
        while (j > 0 && clob_cmp(pl, &cl[j - 1], &v) > 0) {
            cl[j] = cl[j - 1];
            j--;
        }
        cl[j] = v;
    }
out:
    for (size_t i = 0; i < ns.n; i++)
        free(ns.v[i].key);
    free(ns.v);
    free(ns.slots);
    if (rc != SC_OK) {
        free(win);
        free(cl);
        return rc;
    }
    *win_out = win;
    *nwin = nw;
    *cl_out = cl;
    *ncl = nc;
    return SC_OK;
}

sc_code sc_conda_link(const sc_conda_link_package *pkgs, size_t n,
                      const sc_conda_link_options *o, size_t *clobbers, sc_error *err)
{
    if (clobbers != NULL)
        *clobbers = 0;
    if (o == NULL || o->prefix == NULL || (n > 0 && pkgs == NULL))
        return sc_error_set(err, SC_E_USAGE, NULL, "sc_conda_link: no prefix or no packages");
    linker l = {pkgs, o, o->scripts_dir ? o->scripts_dir : "bin",
                o->python ? o->python : "python", ""};
    sc_error perr;
    if ((o->site_packages != NULL &&
         sc_path_check(o->site_packages, strlen(o->site_packages), "site_packages", &perr) !=
             SC_OK) ||
        sc_path_check(l.scripts, strlen(l.scripts), "scripts_dir", &perr) != SC_OK)
        return sc_error_set(err, SC_E_USAGE, NULL, "sc_conda_link: %s", perr.message);
    if (mkdir(o->prefix, 0755) != 0) {
        int e = errno;
        if (e != EEXIST || !dir_is_empty(o->prefix))
            return sc_error_set(err, e == EEXIST ? SC_E_EXISTING_DESTINATION : SC_E_IO,
                                o->prefix, "cannot create the prefix %s: %s", o->prefix,
                                e == EEXIST ? "it exists and is not empty" : strerror(e));
    }
    sc_code rc = SC_OK;
    plan pl;
    memset(&pl, 0, sizeof pl);
    size_t *order = malloc((n ? n : 1) * sizeof *order);
    clob *cl = NULL;
    size_t ncl = 0;
    entry **win = NULL;
    size_t nwin = 0;
    if (order == NULL) {
        rc = oom(err);
        goto fail;
    }
    if (chmod(o->prefix, 0755) != 0) {
        rc = sc_error_set(err, SC_E_IO, o->prefix, "cannot set the mode of %s", o->prefix);
        goto fail;
    }
    if ((rc = sc_conda_link_order(pkgs, n, order, err)) != SC_OK)
        goto fail;
    if ((rc = build_plan(&l, order, n, &pl, err)) != SC_OK)
        goto fail;
    /* What writing the entries one after the other (link order, then listing
     * order) would leave, each replacing whatever stands at its path or in
     * its way, computed before anything is written. */
    if ((rc = settle(&pl, &win, &nwin, &cl, &ncl, err)) != SC_OK)
        goto fail;
    for (size_t i = 0; i < ncl; i++) {
        const entry *d = &pl.e[cl[i].loser], *k = &pl.e[cl[i].winner];
        sc_conda_clobber c = {cl[i].same_path ? k->dest : d->dest, pkgs[k->pkg].pkg,
                              pkgs[d->pkg].pkg};
        if (o->on_clobber != NULL)
            o->on_clobber(o->clobber_ctx, &c);
    }
    if (clobbers != NULL)
        *clobbers = ncl;
    qsort(win, nwin, sizeof *win, entry_dest_cmp);
    for (size_t i = 0; i < nwin; i++)
        if ((rc = write_entry(&l, win[i], err)) != SC_OK)
            goto fail;
    for (size_t r = 0; r < n; r++)
        if ((rc = write_record(&pkgs[order[r]], o->prefix, err)) != SC_OK)
            goto fail;
    free(win);
    free(cl);
    free(order);
    plan_free(&pl);
    return SC_OK;
fail:
    free(win);
    free(cl);
    free(order);
    plan_free(&pl);
    {
        sc_error keep;
        if (err != NULL)
            keep = *err;
        sc_error ignored;
        sc_file_remove_tree(o->prefix, &ignored);
        if (err != NULL)
            *err = keep;
    }
    return rc;
}
