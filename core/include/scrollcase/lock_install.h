/* SPDX-License-Identifier: Apache-2.0 */
/*
 * lock_install.h — install a pixi.lock environment natively: every package
 * the lock names for one environment and one conda subdir is fetched by its
 * URL through the asset cache (asset_cache.h), its SHA-256 checked before a
 * byte of it is read, extracted (conda_package.h), linked into the prefix
 * in a deterministic dependency order (conda_link.h), then the PyPI wheels
 * are installed sorted by name (wheel_install.h).  No solver, no package
 * manager, no process is run; pre- and post-link scripts are never run.
 *
 * Guarantees (docs/format-v3.md 20.2, "From the lock"):
 *   - sc_lock_install_plan reads only the lock: every refusal it makes
 *     (unsupported-lock-package, lock-platform-missing, wheel-incompatible)
 *     comes before anything is downloaded or written;
 *   - the bytes of the prefix depend only on the lock and the packages'
 *     bytes: not on the download order, the job count, what the cache held
 *     before, TZ, locale or umask;
 *   - on failure the prefix directory does not exist afterwards (it is
 *     built under a sibling staging name and renamed into place only when
 *     complete); the cache keeps what was verified (and resumable .part
 *     files), never an unverified file under an entry's name;
 *   - the library prints nothing: notes (link scripts not run, clobbered
 *     paths) come back in the result and through the note callback.
 */
#ifndef SCROLLCASE_LOCK_INSTALL_H
#define SCROLLCASE_LOCK_INSTALL_H

#include <stddef.h>
#include <stdint.h>

#include "scrollcase/download.h"
#include "scrollcase/error.h"
#include "scrollcase/pixi_lock.h"
#include "scrollcase/progress.h"
#include "scrollcase/target.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The lock environment installed when the options name none. */
#define SC_LOCK_INSTALL_ENVIRONMENT "default"

/* One URL prefix rewrite: a location starting with from (compared as bytes)
 * is fetched from to + the rest.  The lock's sha256 still decides. */
typedef struct sc_channel_mirror {
    const char *from;
    size_t from_len; /* bytes of from that are the prefix; 0: strlen(from) */
    const char *to;
} sc_channel_mirror;

/*
 * Parse "FROM=TO" (both non-empty; TO may be an http(s):// or file:// URL
 * or an absolute directory, taken as file://).  The result points into
 * spec (borrowed): from is spec's first from_len bytes.  Anything else -> SC_E_USAGE naming the option.
 */
sc_code sc_channel_mirror_parse(const char *spec, sc_channel_mirror *out, sc_error *err);

/* One package of a plan (every string owned by the plan). */
typedef struct sc_lock_install_item {
    const sc_lock_package *pkg; /* borrowed from the plan's lock */
    int wheel;                  /* 1: a PyPI wheel, 0: a conda package */
    char *url;                  /* where it is fetched from: mirrors applied,
                                   file:// or http(s):// */
    char *label;                /* "name-version-build" / wheel file name */
} sc_lock_install_item;

typedef struct sc_lock_install_plan {
    sc_pixi_lock *lock;          /* owned */
    char lock_sha256[65];        /* of the lock file's bytes */
    const char *subdir;          /* the target's conda subdir (static) */
    sc_lock_install_item *items; /* conda packages in lock order, then
                                    wheels sorted by normalised name */
    size_t nitems, nconda;
    const sc_lock_package *python; /* the conda `python` record, or NULL */
    char *python_version;        /* its version, or NULL */
    char *site_packages;         /* "lib/pythonX.Y/site-packages" (target's form) */
} sc_lock_install_plan;

typedef struct sc_lock_install_options {
    const char *lock_path;     /* pixi.lock */
    const char *environment;   /* NULL: "default" */
    const sc_target *target;
    const char *cache_dir;     /* NULL: sc_asset_cache_dir */
    int offline;               /* nothing fetched: missing -> asset-not-cached */
    const sc_channel_mirror *mirrors; /* tried in order, first match wins */
    size_t nmirrors;
    /* a local channel directory: <dir>/<subdir>/<file name> (conda), else
     * <dir>/<file name>, else <dir>/pypi/<file name> (a wheel) is used when
     * present, before any URL (also offline) */
    const char *channel_dir;
    unsigned jobs;             /* extraction threads; 0: every CPU */
    unsigned downloads;        /* downloads at once; 0: 8 */
    const sc_download_options *download; /* retry knobs; NULL: defaults */
    /* progress steps "download" (bytes and packages fetched, cache hits
     * count at once), "extract" (packages unpacked) and "link" (packages
     * linked); may be NULL */
    sc_progress_fn progress;
    void *progress_ctx;
    /* one line for a person (a package whose link scripts were not run, a
     * path two packages write); may be NULL */
    void (*note)(void *ctx, const char *text);
    void *note_ctx;
} sc_lock_install_options;

typedef struct sc_lock_install_result {
    char lock_sha256[65];
    size_t conda_packages, wheels;
    uint64_t bytes_fetched;    /* downloaded now (cache hits excluded) */
    size_t cache_hits;
    char **link_scripts;       /* "name-version-build" of packages carrying
                                  pre/post-link scripts, sorted; not run */
    size_t nlink_scripts;
} sc_lock_install_result;

/*
 * Read the lock and plan the install for o->environment and o->target,
 * downloading nothing: refusals in lock order (the first package that
 * fails is named): a conda_source package, a PyPI location that is not a
 * .whl (an sdist), a path, git or editable PyPI entry
 * (unsupported-lock-package), a package without sha256
 * (unsupported-lock-package), a wheel whose tags or lock requires_python
 * exclude the interpreter or the target (wheel-incompatible); an
 * environment without the subdir ->
 * lock-platform-missing.  Lock read errors: invalid-lock, io-error.
 * Free with sc_lock_install_plan_free.
 */
sc_code sc_lock_install_plan_make(const sc_lock_install_options *o, sc_lock_install_plan *plan,
                                  sc_error *err);
void sc_lock_install_plan_free(sc_lock_install_plan *plan);

/*
 * Plan, fetch, verify, extract, link: the environment lands in prefix_dir,
 * which must not exist (its parent must); on failure it does not exist
 * afterwards.  conda-meta records are written in the canonical form of 20.2
 * step 6 (name, version, build, license: the lock's licence, else
 * index.json's).  *r is always initialised; free with
 * sc_lock_install_result_free.
 */
sc_code sc_lock_install(const sc_lock_install_options *o, const char *prefix_dir,
                        sc_lock_install_result *r, sc_error *err);
void sc_lock_install_result_free(sc_lock_install_result *r);

/* "scrollcase <version>": what provenance.environment.installer records. */
const char *sc_lock_install_installer(void);

#ifdef __cplusplus
}
#endif

#endif
