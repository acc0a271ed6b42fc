/* SPDX-License-Identifier: Apache-2.0 */
/*
 * lock_install.c — a pixi.lock environment installed natively (lock_install.h,
 * docs/format-v3.md 20.2 "From the lock").
 *
 * Four phases, each finished before the next starts:
 *   plan      the lock alone: refusals before anything is fetched;
 *   fetch     every package through the asset cache on `downloads` threads
 *             (its SHA-256 checked there, before any byte is used);
 *   extract   every conda package into <scratch>/<index> on `jobs` threads
 *             (conda_package.h), its subdir checked;
 *   link      the conda packages into <staging> in dependency order
 *             (conda_link.h), then the wheels one by one sorted by name
 *             (wheel_install.h), then links are settled (envsource.h).
 * <staging> is renamed to the prefix only when everything succeeded, so a
 * failed or interrupted install leaves no prefix; the scratch directory
 * and the staging directory are siblings of the prefix and are removed
 * whatever the outcome, and by the signal handler of cleanup.h when
 * SIGINT, SIGTERM or SIGHUP ends the command.  Work is handed out in a fixed order and results
 * are kept per package, so the outcome — the bytes, and which failure is
 * reported (the first in plan order) — never depends on thread timing.
 */
#define _GNU_SOURCE
#include "scrollcase/lock_install.h"

#include <errno.h>
#include <stdarg.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jobs_internal.h"
#include "progress_internal.h"
#include "scrollcase/asset_cache.h"
#include "scrollcase/cleanup.h"
#include "scrollcase/conda_link.h"
#include "scrollcase/conda_package.h"
#include "scrollcase/digest.h"
#include "scrollcase/envsource.h"
#include "scrollcase/file.h"
#include "scrollcase/jobs.h"
#include "scrollcase/remedy.h"
#include "scrollcase/version.h"
#include "scrollcase/wheel.h"
#include "scrollcase/wheel_install.h"

#define DEFAULT_DOWNLOADS 8u

static sc_code oom(sc_error *err)
{
    return sc_error_set(err, SC_E_OUT_OF_MEMORY, NULL, "out of memory");
}

/* A formatted string the caller frees, or NULL when out of memory. */
static char *fmt(const char *f, ...) __attribute__((format(printf, 1, 2)));
static char *fmt(const char *f, ...)
{
    va_list ap;
    va_start(ap, f);
    char *s = NULL;
    int n = vasprintf(&s, f, ap);
    va_end(ap);
    return n < 0 ? NULL : s;
}

const char *sc_lock_install_installer(void)
{
    return "scrollcase " SC_VERSION_STRING;
}

/* ---- mirrors ---------------------------------------------------------------- */

sc_code sc_channel_mirror_parse(const char *spec, sc_channel_mirror *out, sc_error *err)
{
    memset(out, 0, sizeof *out);
    const char *eq = spec ? strchr(spec, '=') : NULL;
    if (eq == NULL || eq == spec || eq[1] == '\0')
        return sc_error_set(err, SC_E_USAGE, "--channel-mirror",
                            "--channel-mirror wants FROM=TO (a URL prefix and its "
                            "replacement), not \"%s\"",
                            spec ? spec : "");
    const char *to = eq + 1;
    if (strncmp(to, "http://", 7) != 0 && strncmp(to, "https://", 8) != 0 &&
        strncmp(to, "file://", 7) != 0 && to[0] != '/')
        return sc_error_set(err, SC_E_USAGE, "--channel-mirror",
                            "--channel-mirror %s: TO must be an http://, https:// or file:// "
                            "URL or an absolute directory",
                            spec);
    out->from = spec;
    out->from_len = (size_t)(eq - spec);
    out->to = to;
    return SC_OK;
}

/* The URL a location is fetched from: the first mirror whose FROM (the
 * bytes of spec before '=') prefixes it, rewritten; an absolute directory
 * as TO becomes file://. */
static char *mirrored_url(const sc_lock_install_options *o, const char *location)
{
    for (size_t i = 0; i < o->nmirrors; i++) {
        const char *from = o->mirrors[i].from, *to = o->mirrors[i].to;
        size_t fl = o->mirrors[i].from_len ? o->mirrors[i].from_len : strlen(from);
        if (strncmp(location, from, fl) != 0)
            continue;
        return fmt("%s%s%s", to[0] == '/' ? "file://" : "", to, location + fl);
    }
    return strdup(location);
}

/* ---- plan --------------------------------------------------------------------- */

static int is_url(const char *s)
{
    return strncmp(s, "https://", 8) == 0 || strncmp(s, "http://", 7) == 0 ||
           strncmp(s, "file://", 7) == 0;
}

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

static sc_code refuse(sc_error *err, const sc_lock_package *p, const char *lock_path,
                      const char *why)
{
    return sc_error_set(err, SC_E_UNSUPPORTED_LOCK_PACKAGE, lock_path,
                        "%s: %s %s%s%s (%s) %s; nothing was downloaded. Lock a wheel or a conda "
                        "package for it, or build with `" SC_REMEDY_BUILD_PIXI "`",
                        lock_path, p->kind == SC_LOCK_PYPI ? "the PyPI package" : "the conda package",
                        p->name ? p->name : "?", p->version ? " " : "",
                        p->version ? p->version : "", p->location, why);
}

static int item_cmp_wheels(const void *a, const void *b)
{
    const sc_lock_install_item *x = a, *y = b;
    char *nx = sc_pypi_normalize(x->pkg->name), *ny = sc_pypi_normalize(y->pkg->name);
    int c = nx && ny ? strcmp(nx, ny) : 0;
    free(nx);
    free(ny);
    return c != 0 ? c : strcmp(x->pkg->location, y->pkg->location);
}

void sc_lock_install_plan_free(sc_lock_install_plan *plan)
{
    if (plan == NULL)
        return;
    for (size_t i = 0; i < plan->nitems; i++) {
        free(plan->items[i].url);
        free(plan->items[i].label);
    }
    free(plan->items);
    free(plan->python_version);
    free(plan->site_packages);
    sc_pixi_lock_free(plan->lock);
    memset(plan, 0, sizeof *plan);
}

static const char *scripts_dir(const sc_target *t)
{
    return t->platform == SC_PLATFORM_WINDOWS ? "Scripts" : "bin";
}

/* The interpreter's file name: the last segment of the target's entry point. */
static const char *python_exe(const sc_target *t)
{
    const char *ep = sc_target_python_entry_point(t);
    const char *slash = strrchr(ep, '/');
    return slash ? slash + 1 : ep;
}

static void wheel_env_of(const sc_lock_install_options *o, const sc_lock_install_plan *plan,
                         sc_wheel_env *env)
{
    memset(env, 0, sizeof *env);
    env->target = o->target;
    env->python_version = plan->python_version;
    env->site_packages = plan->site_packages;
    env->scripts_dir = scripts_dir(o->target);
    env->python_exe = python_exe(o->target);
    env->installer = NULL;
    env->jobs = o->jobs;
}

sc_code sc_lock_install_plan_make(const sc_lock_install_options *o, sc_lock_install_plan *plan,
                                  sc_error *err)
{
    memset(plan, 0, sizeof *plan);
    const char *lock_path = o->lock_path;
    char *bytes = NULL;
    size_t len = 0;
    sc_code c = sc_file_read(lock_path, &bytes, &len, NULL, err);
    if (c != SC_OK)
        return c;
    c = sc_sha256_hex(bytes, len, plan->lock_sha256, err);
    if (c == SC_OK)
        c = sc_pixi_lock_parse(bytes, len, lock_path, &plan->lock, err);
    free(bytes);
    if (c != SC_OK)
        return c;
    const char *env = o->environment ? o->environment : SC_LOCK_INSTALL_ENVIRONMENT;
    plan->subdir = sc_target_conda_subdir(o->target);
    const sc_lock_platform *pl = sc_pixi_lock_find(plan->lock, env, plan->subdir);
    if (pl == NULL || pl->count == 0) {
        c = sc_error_set(err, SC_E_LOCK_PLATFORM_MISSING, lock_path,
                         "%s: the environment \"%s\" has no packages for %s, the target's conda "
                         "subdir; add the platform to pixi.toml and run `" SC_REMEDY_LOCK "`",
                         lock_path, env, plan->subdir);
        sc_lock_install_plan_free(plan);
        return c;
    }
    plan->items = calloc(pl->count, sizeof *plan->items);
    if (plan->items == NULL) {
        sc_lock_install_plan_free(plan);
        return oom(err);
    }
    /* refusals in lock order; conda packages first (lock order), wheels after */
    size_t nwheels = 0;
    for (int pass = 0; pass < 2 && c == SC_OK; pass++) {
        for (size_t k = 0; k < pl->count && c == SC_OK; k++) {
            const sc_lock_package *p = &plan->lock->packages[pl->packages[k]];
            if (pass == 0) {
                if (p->source)
                    c = refuse(err, p, lock_path,
                               "is a conda_source package: it must be built first");
                else if (p->kind == SC_LOCK_PYPI && p->editable)
                    c = refuse(err, p, lock_path, "is an editable install of a source tree");
                else if (p->kind == SC_LOCK_PYPI && strncmp(p->location, "git+", 4) == 0)
                    c = refuse(err, p, lock_path, "is a git checkout: it must be built first");
                else if (!is_url(p->location))
                    c = refuse(err, p, lock_path, "is a path, not a URL: it must be built first");
                else if (p->kind == SC_LOCK_PYPI && !ends_with(p->filename, ".whl"))
                    c = refuse(err, p, lock_path,
                               "is a source distribution, not a wheel: building it would run "
                               "its build backend");
                else if (p->kind == SC_LOCK_CONDA && !ends_with(p->filename, ".conda") &&
                         !ends_with(p->filename, ".tar.bz2"))
                    c = refuse(err, p, lock_path, "is neither a .conda nor a .tar.bz2 file");
                else if (p->sha256 == NULL)
                    c = refuse(err, p, lock_path,
                               "has no sha256 in the lock, so its bytes cannot be checked");
                if (c == SC_OK && p->kind == SC_LOCK_CONDA && strcmp(p->name, "python") == 0)
                    plan->python = p;
                if (c == SC_OK && p->kind == SC_LOCK_PYPI)
                    nwheels++;
            }
            if (c != SC_OK || (pass == 0) != (p->kind == SC_LOCK_CONDA))
                continue;
            sc_lock_install_item *it = &plan->items[plan->nitems++];
            it->pkg = p;
            it->wheel = p->kind == SC_LOCK_PYPI;
            it->url = mirrored_url(o, p->location);
            if (it->wheel) {
                it->label = strdup(p->filename);
            } else {
                it->label = fmt("%s-%s-%s", p->name, p->version, p->build);
            }
            if (it->url == NULL || it->label == NULL)
                c = oom(err);
        }
        if (pass == 0)
            plan->nconda = plan->nitems;
    }
    if (c == SC_OK && plan->python != NULL) {
        plan->python_version = strdup(plan->python->version);
        if (plan->python_version == NULL)
            c = oom(err);
        else
            c = sc_conda_site_packages(plan->python_version,
                                       o->target->platform == SC_PLATFORM_WINDOWS,
                                       &plan->site_packages, err);
    }
    if (c == SC_OK && nwheels > 0 && plan->python == NULL) {
        const sc_lock_install_item *w = &plan->items[plan->nconda];
        c = refuse(err, w->pkg, lock_path,
                   "is a wheel, but the lock has no conda python package to install it for");
    }
    if (c == SC_OK && nwheels > 1)
        qsort(plan->items + plan->nconda, nwheels, sizeof *plan->items, item_cmp_wheels);
    if (c == SC_OK && nwheels > 0) {
        sc_wheel_env wenv;
        wheel_env_of(o, plan, &wenv);
        for (size_t i = plan->nconda; i < plan->nitems && c == SC_OK; i++) {
            const sc_lock_package *w = plan->items[i].pkg;
            c = sc_wheel_check_location(w->location, &wenv, err);
            if (c == SC_OK)
                c = sc_wheel_check_requires_python(w->requires_python, w->filename, &wenv, err);
        }
    }
    if (c != SC_OK)
        sc_lock_install_plan_free(plan);
    return c;
}

/* ---- a small pool: n items handed out in order to t threads ------------------ */

typedef struct pool {
    pthread_mutex_t lock;
    size_t next, n;
    int stop;                    /* a failure: hand out nothing more */
    sc_code (*fn)(void *ctx, size_t i, sc_error *err);
    void *ctx;
    sc_code *codes;              /* per item */
    sc_error *errors;            /* per item */
} pool;

static void *pool_thread(void *arg)
{
    pool *p = arg;
    for (;;) {
        pthread_mutex_lock(&p->lock);
        size_t i = p->next < p->n && !p->stop ? p->next++ : p->n;
        pthread_mutex_unlock(&p->lock);
        if (i >= p->n)
            return NULL;
        sc_error_clear(&p->errors[i]);
        p->codes[i] = p->fn(p->ctx, i, &p->errors[i]);
        if (p->codes[i] != SC_OK) {
            pthread_mutex_lock(&p->lock);
            p->stop = 1;
            pthread_mutex_unlock(&p->lock);
        }
    }
}

/*
 * Run fn over items 0..n-1 (handed out in order) on up to threads threads;
 * the failure reported is the first in item order among those that ran (an
 * item after a failure may not run at all).
 */
static sc_code pool_run(size_t n, unsigned threads,
                        sc_code (*fn)(void *ctx, size_t i, sc_error *err), void *ctx,
                        sc_error *err)
{
    if (n == 0)
        return SC_OK;
    pool p;
    memset(&p, 0, sizeof p);
    p.n = n;
    p.fn = fn;
    p.ctx = ctx;
    p.codes = calloc(n, sizeof *p.codes);
    p.errors = calloc(n, sizeof *p.errors);
    if (p.codes == NULL || p.errors == NULL) {
        free(p.codes);
        free(p.errors);
        return oom(err);
    }
    for (size_t i = 0; i < n; i++)
        p.codes[i] = SC_OK;
    pthread_mutex_init(&p.lock, NULL);
    if (threads > n)
        threads = (unsigned)n;
    if (threads < 1)
        threads = 1;
    pthread_t tids[SC_JOBS_MAX];
    unsigned started = 0;
    for (unsigned t = 1; t < threads && t < SC_JOBS_MAX; t++)
        if (sc_jobs_thread_start(&tids[started], pool_thread, &p) == 0)
            started++;
    pool_thread(&p);
    for (unsigned t = 0; t < started; t++)
        pthread_join(tids[t], NULL);
    pthread_mutex_destroy(&p.lock);
    sc_code c = SC_OK;
    for (size_t i = 0; i < n && c == SC_OK; i++)
        if (p.codes[i] != SC_OK) {
            c = p.codes[i];
            if (err != NULL)
                *err = p.errors[i];
        }
    free(p.codes);
    free(p.errors);
    return c;
}

/* ---- fetch and extract --------------------------------------------------------- */

typedef struct install {
    const sc_lock_install_options *o;
    const sc_lock_install_plan *plan;
    const char *cache_dir;
    char *scratch;               /* <parent>/.<base>.scrollcase-packages */
    char *staging;               /* <parent>/.<base>.scrollcase-staging */
    int staging_slot;            /* its cleanup.h slot once linking starts, else -1 */
    char **paths;                /* per item: the cached file */
    char **dirs;                 /* per conda item: its extracted directory */
    sc_conda_package **pkgs;     /* per conda item */
    int *hit;                    /* per item: already cached */
    sc_download_options dl;
    sc_progress_meter meter;
    pthread_mutex_t count_lock;
    uint64_t fetched_bytes;
    size_t cache_hits;
} install;

/* A file in the local channel directory: <dir>/<subdir>/<file> (conda),
 * then <dir>/<file>, then <dir>/pypi/<file> (a wheel); NULL when none is a
 * file. */
static char *channel_file(const install *in, const sc_lock_package *p)
{
    const char *dir = in->o->channel_dir;
    if (dir == NULL)
        return NULL;
    if (p->kind == SC_LOCK_CONDA && p->subdir != NULL) {
        char *s = fmt("%s/%s/%s", dir, p->subdir, p->filename);
        if (s != NULL && sc_is_file(s))
            return s;
        free(s);
    }
    char *s = fmt("%s/%s", dir, p->filename);
    if (s != NULL && sc_is_file(s))
        return s;
    free(s);
    if (p->kind == SC_LOCK_PYPI) {
        s = fmt("%s/pypi/%s", dir, p->filename);
        if (s != NULL && sc_is_file(s))
            return s;
        free(s);
    }
    return NULL;
}

static sc_code fetch_one(void *ctx, size_t i, sc_error *err)
{
    install *in = ctx;
    const sc_lock_install_item *it = &in->plan->items[i];
    const sc_lock_package *p = it->pkg;
    /* one download per digest: a later item with the same bytes takes the
     * first one's file once the pool is done (never two writers of one .part) */
    for (size_t j = 0; j < i; j++)
        if (strcmp(in->plan->items[j].pkg->sha256, p->sha256) == 0) {
            sc_progress_meter_add(&in->meter, it->label, 0, 1);
            return SC_OK;
        }
    char *cached = sc_path_join(in->cache_dir, p->sha256);
    if (cached == NULL)
        return oom(err);
    struct stat st;
    int was_cached = lstat(cached, &st) == 0 && S_ISREG(st.st_mode);
    free(cached);
    char *local = channel_file(in, p);
    char *url = NULL;
    if (local != NULL) {
        url = fmt("file://%s", local);
        free(local);
        if (url == NULL)
            return oom(err);
    }
    /* a local channel file is no download: --offline does not forbid it */
    sc_code c = sc_asset_cache_fetch(in->cache_dir, url ? url : it->url, p->size, p->sha256,
                                     in->o->offline && url == NULL, &in->dl, &in->paths[i], err);
    if (c == SC_E_ASSET_NOT_CACHED)
        c = sc_error_set(err, SC_E_ASSET_NOT_CACHED, it->pkg->location,
                         "--offline: the package %s (sha256 %s) is not in the asset cache %s; "
                         "run the command once without --offline",
                         it->label, p->sha256, in->cache_dir);
    free(url);
    if (c == SC_OK) {
        uint64_t bytes = 0;
        if (stat(in->paths[i], &st) == 0)
            bytes = (uint64_t)st.st_size;
        in->hit[i] = was_cached;
        pthread_mutex_lock(&in->count_lock);
        if (was_cached)
            in->cache_hits++;
        else
            in->fetched_bytes += bytes;
        pthread_mutex_unlock(&in->count_lock);
        sc_progress_meter_add(&in->meter, it->label, bytes, 1);
    }
    return c;
}

static sc_code extract_one(void *ctx, size_t i, sc_error *err)
{
    install *in = ctx;
    const sc_lock_install_item *it = &in->plan->items[i];
    char name[32];
    snprintf(name, sizeof name, "%zu", i);
    in->dirs[i] = sc_path_join(in->scratch, name);
    if (in->dirs[i] == NULL)
        return oom(err);
    sc_conda_extract_options eo;
    memset(&eo, 0, sizeof eo);
    eo.expected_subdir = in->plan->subdir;
    eo.case_folding = in->o->target->platform != SC_PLATFORM_LINUX;
    /* the file must carry the name's suffix: the cache names files by digest */
    char *file = NULL;
    sc_code c = SC_OK;
    if (ends_with(in->paths[i], ".conda") || ends_with(in->paths[i], ".tar.bz2")) {
        file = strdup(in->paths[i]);
    } else {
        /* a link named like the package, in the scratch directory */
        file = fmt("%s.%s", in->dirs[i],
                   ends_with(it->pkg->filename, ".conda") ? "conda" : "tar.bz2");
        if (file != NULL && symlink(in->paths[i], file) != 0)
            c = sc_error_set(err, SC_E_IO, file, "cannot create %s: %s", file, strerror(errno));
    }
    if (file == NULL)
        return oom(err);
    struct stat st;
    uint64_t bytes = stat(in->paths[i], &st) == 0 ? (uint64_t)st.st_size : 0;
    if (c == SC_OK)
        c = sc_conda_extract(file, it->label, in->dirs[i], &eo, &in->pkgs[i], err);
    free(file);
    if (c == SC_OK)
        sc_progress_meter_add(&in->meter, it->label, bytes, 1);
    return c;
}

/* ---- link ------------------------------------------------------------------------ */

typedef struct note_ctx {
    const sc_lock_install_options *o;
} note_ctx;

static void note(const sc_lock_install_options *o, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void note(const sc_lock_install_options *o, const char *fmt, ...)
{
    if (o->note == NULL)
        return;
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    o->note(o->note_ctx, line);
}

static void on_clobber(void *ctx, const sc_conda_clobber *c)
{
    const note_ctx *n = ctx;
    note(n->o, "%s is written by %s-%s-%s and by %s-%s-%s; %s-%s-%s wins (later in the "
               "dependency order)",
         c->path, c->loser->name, c->loser->version, c->loser->build, c->winner->name,
         c->winner->version, c->winner->build, c->winner->name, c->winner->version,
         c->winner->build);
}

static int str_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static sc_code link_all(install *in, sc_lock_install_result *r, sc_error *err)
{
    const sc_lock_install_plan *plan = in->plan;
    const sc_lock_install_options *o = in->o;
    size_t n = plan->nconda;
    sc_code c = SC_OK;
    /* link scripts: named, never run */
    for (size_t i = 0; i < n; i++)
        if (in->pkgs[i]->link_scripts != 0)
            r->nlink_scripts++;
    if (r->nlink_scripts > 0) {
        r->link_scripts = calloc(r->nlink_scripts, sizeof *r->link_scripts);
        if (r->link_scripts == NULL)
            return oom(err);
        size_t k = 0;
        for (size_t i = 0; i < n; i++)
            if (in->pkgs[i]->link_scripts != 0 &&
                (r->link_scripts[k++] = strdup(plan->items[i].label)) == NULL)
                return oom(err);
        qsort(r->link_scripts, r->nlink_scripts, sizeof *r->link_scripts, str_cmp);
        for (size_t i = 0; i < r->nlink_scripts; i++)
            note(o, "%s has pre/post-link scripts; they were not run (format-v3 20.2)",
                 r->link_scripts[i]);
    }
    sc_conda_link_package *lp = calloc(n ? n : 1, sizeof *lp);
    if (lp == NULL)
        return oom(err);
    sc_progress_meter_start_unit(&in->meter, o->progress, o->progress_ctx, "link", "", 0,
                                 plan->nitems, "packages");
    for (size_t i = 0; i < n; i++) {
        lp[i].pkg = in->pkgs[i];
        lp[i].extracted_dir = in->dirs[i];
        lp[i].license = plan->items[i].pkg->license;
    }
    note_ctx nc = {o};
    sc_conda_link_options lo;
    memset(&lo, 0, sizeof lo);
    lo.prefix = in->staging;
    lo.site_packages = plan->site_packages;
    lo.scripts_dir = scripts_dir(o->target);
    lo.python = python_exe(o->target);
    lo.case_folding = o->target->platform != SC_PLATFORM_LINUX;
    lo.windows = o->target->platform == SC_PLATFORM_WINDOWS;
    lo.on_clobber = on_clobber;
    lo.clobber_ctx = &nc;
    /* registered before the linker makes it (cleanup.h) */
    in->staging_slot = sc_cleanup_add_path(in->staging);
    if (n > 0) {
        c = sc_conda_link(lp, n, &lo, NULL, err);
    } else if (mkdir(in->staging, 0755) != 0) {
        c = sc_error_set(err, SC_E_IO, in->staging, "cannot create %s: %s", in->staging,
                         strerror(errno));
    }
    free(lp);
    if (c == SC_OK)
        sc_progress_meter_add(&in->meter, "", 0, n);
    sc_wheel_env wenv;
    wheel_env_of(o, plan, &wenv);
    for (size_t i = plan->nconda; i < plan->nitems && c == SC_OK; i++) {
        c = sc_wheel_install(in->paths[i], plan->items[i].pkg->filename, in->staging, &wenv,
                             NULL, err);
        if (c == SC_OK)
            sc_progress_meter_add(&in->meter, plan->items[i].label, 0, 1);
    }
    if (c == SC_OK)
        c = sc_envsource_settle_links(in->staging, o->target, err);
    sc_progress_meter_end(&in->meter, c == SC_OK);
    return c;
}

/* ---- the whole install ----------------------------------------------------------- */

void sc_lock_install_result_free(sc_lock_install_result *r)
{
    if (r == NULL)
        return;
    for (size_t i = 0; i < r->nlink_scripts; i++)
        free(r->link_scripts[i]);
    free(r->link_scripts);
    memset(r, 0, sizeof *r);
}

/* "<dir of prefix>/.<base>.<what>" */
static char *sibling(const char *prefix, const char *what)
{
    const char *slash = strrchr(prefix, '/');
    if (slash == NULL)
        return fmt(".%s.%s", prefix, what);
    return fmt("%.*s/.%s.%s", (int)(slash - prefix), prefix, slash + 1, what);
}

static uint64_t plan_bytes(const sc_lock_install_plan *plan)
{
    uint64_t total = 0;
    for (size_t i = 0; i < plan->nitems; i++) {
        if (plan->items[i].pkg->size == 0)
            return 0; /* unknown */
        total += plan->items[i].pkg->size;
    }
    return total;
}

sc_code sc_lock_install(const sc_lock_install_options *o, const char *prefix_arg,
                        sc_lock_install_result *r, sc_error *err)
{
    memset(r, 0, sizeof *r);
    /* "DIR/" names DIR: its staging and scratch siblings are beside it */
    char prefix_dir[4096];
    size_t plen = strlen(prefix_arg);
    while (plen > 1 && prefix_arg[plen - 1] == '/')
        plen--;
    if (plen == 0 || plen >= sizeof prefix_dir)
        return sc_error_set(err, SC_E_USAGE, prefix_arg, "the environment directory \"%s\" is "
                            "empty or too long", prefix_arg);
    memcpy(prefix_dir, prefix_arg, plen);
    prefix_dir[plen] = '\0';
    struct stat st;
    if (lstat(prefix_dir, &st) == 0)
        return sc_error_set(err, SC_E_EXISTING_DESTINATION, prefix_dir,
                            "%s already exists; the environment is installed into a new "
                            "directory (remove it first)",
                            prefix_dir);
    sc_lock_install_plan plan;
    sc_code c = sc_lock_install_plan_make(o, &plan, err);
    if (c != SC_OK)
        return c;
    memcpy(r->lock_sha256, plan.lock_sha256, sizeof r->lock_sha256);
    install in;
    memset(&in, 0, sizeof in);
    in.staging_slot = -1;
    in.o = o;
    in.plan = &plan;
    char *cache = NULL;
    if (o->cache_dir == NULL)
        c = sc_asset_cache_dir(&cache, err);
    in.cache_dir = o->cache_dir ? o->cache_dir : cache;
    if (o->download != NULL)
        in.dl = *o->download;
    pthread_mutex_init(&in.count_lock, NULL);
    size_t n = plan.nitems ? plan.nitems : 1;
    in.paths = calloc(n, sizeof *in.paths);
    in.dirs = calloc(n, sizeof *in.dirs);
    in.pkgs = calloc(n, sizeof *in.pkgs);
    in.hit = calloc(n, sizeof *in.hit);
    in.scratch = sibling(prefix_dir, "scrollcase-packages");
    in.staging = sibling(prefix_dir, "scrollcase-staging");
    if (c == SC_OK && (in.paths == NULL || in.dirs == NULL || in.pkgs == NULL ||
                       in.hit == NULL || in.scratch == NULL || in.staging == NULL))
        c = oom(err);
    /* both siblings are removed by the signal handler too (cleanup.h),
     * each registered before it is made, so no moment is missed */
    int scratch_slot = c == SC_OK ? sc_cleanup_add_path(in.scratch) : -1;
    /* leftovers of a run killed outright are ours to remove */
    if (c == SC_OK)
        c = sc_file_remove_tree(in.scratch, err);
    if (c == SC_OK)
        c = sc_file_remove_tree(in.staging, err);
    unsigned jobs = sc_jobs_resolve(o->jobs);
    unsigned downloads = o->downloads ? o->downloads : DEFAULT_DOWNLOADS;
    if (downloads > SC_JOBS_MAX)
        downloads = SC_JOBS_MAX;
    if (c == SC_OK) {
        sc_progress_meter_start_unit(&in.meter, o->progress, o->progress_ctx, "download", "",
                                     plan_bytes(&plan), plan.nitems, "packages");
        c = pool_run(plan.nitems, downloads, fetch_one, &in, err);
        sc_progress_meter_end(&in.meter, c == SC_OK);
    }
    for (size_t i = 0; c == SC_OK && i < plan.nitems; i++)
        for (size_t j = 0; in.paths[i] == NULL && j < i; j++)
            if (strcmp(plan.items[j].pkg->sha256, plan.items[i].pkg->sha256) == 0 &&
                (in.paths[i] = strdup(in.paths[j])) == NULL)
                c = oom(err);
    if (c == SC_OK && mkdir(in.scratch, 0755) != 0)
        c = sc_error_set(err, SC_E_IO, in.scratch, "cannot create %s: %s", in.scratch,
                         strerror(errno));
    if (c == SC_OK) {
        uint64_t total = 0;
        for (size_t i = 0; i < plan.nconda; i++)
            if (stat(in.paths[i], &st) == 0)
                total += (uint64_t)st.st_size;
        sc_progress_meter_start_unit(&in.meter, o->progress, o->progress_ctx, "extract", "",
                                     total, plan.nconda, "packages");
        c = pool_run(plan.nconda, jobs, extract_one, &in, err);
        sc_progress_meter_end(&in.meter, c == SC_OK);
    }
    if (c == SC_OK)
        c = link_all(&in, r, err);
    if (c == SC_OK && rename(in.staging, prefix_dir) != 0)
        c = sc_error_set(err, SC_E_IO, prefix_dir, "cannot rename %s to %s: %s", in.staging,
                         prefix_dir, strerror(errno));
    if (c == SC_OK) {
        r->conda_packages = plan.nconda;
        r->wheels = plan.nitems - plan.nconda;
        r->bytes_fetched = in.fetched_bytes;
        r->cache_hits = in.cache_hits;
    }
    /* whatever the outcome: no scratch, no staging */
    sc_error ignored;
    if (in.scratch != NULL)
        (void)sc_file_remove_tree(in.scratch, &ignored);
    if (in.staging != NULL)
        (void)sc_file_remove_tree(in.staging, &ignored);
    sc_cleanup_drop_path(scratch_slot, 0);
    sc_cleanup_drop_path(in.staging_slot, 0);
    for (size_t i = 0; i < plan.nitems; i++) {
        if (in.paths)
            free(in.paths[i]);
        if (in.dirs)
            free(in.dirs[i]);
        if (in.pkgs)
            sc_conda_package_free(in.pkgs[i]);
    }
    free(in.paths);
    free(in.dirs);
    free(in.pkgs);
    free(in.hit);
    free(in.scratch);
    free(in.staging);
    free(cache);
    pthread_mutex_destroy(&in.count_lock);
    sc_lock_install_plan_free(&plan);
    if (c != SC_OK)
        sc_lock_install_result_free(r);
    return c;
}
