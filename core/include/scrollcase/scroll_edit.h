/* SPDX-License-Identifier: Apache-2.0 */
/*
 * scroll_edit.h — authoring a workspace: init, new scroll, add/remove
 * (file, asset, env, import, dep), edit scroll, refresh.
 *
 * Guarantees (docs/cli.md, "Authoring"):
 *  - Every edit of an existing box is staged: each changed file is written
 *    to a temporary name and renamed into place (sc_file_write_atomic),
 *    then EVERY target scroll of the box is re-read and validated with
 *    sc_scroll_load.  If a write or a validation fails, the original bytes
 *    of every file already replaced are written back and the first error is
 *    returned: a box is never left invalid by an edit.
 *  - JSON is written with sc_json_write (deterministic), keeping the member
 *    order of the file; a member that is new to an object is inserted where
 *    the member table of format-v3 5.2 puts it (before the first existing
 *    member that the table lists later; unknown members count as last).
 *  - A new scroll appears whole or not at all: its directory is built under
 *    a temporary name beside it and renamed; an existing one is
 *    scroll-exists.  init never replaces a file.
 *  - Nothing touches the network except sc_author_add_asset and
 *    sc_author_refresh with check_assets set.
 *
 * Which files an edit changes ("target"): "all" means the box's base
 * scroll.json when it has one, else every target scroll; a target id means
 * that target's scroll.json; NULL means the only target, and is a usage
 * error when the box has several.  Dependencies live in each target's
 * pixi.toml, so for `dep` "all" (or NULL with one target) means every
 * target directory.
 */
#ifndef SCROLLCASE_SCROLL_EDIT_H
#define SCROLLCASE_SCROLL_EDIT_H

#include <stdint.h>

#include "scrollcase/error.h"
#include "scrollcase/json.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SC_AUTHOR_DEFAULT_PIXI_VERSION "0.73.0"
#define SC_AUTHOR_DEFAULT_PYTHON_VERSION "3.12"
#define SC_AUTHOR_EXAMPLE_BOX "example-box"

/* The target id of the host this library was built for (example scroll). */
const char *sc_author_native_target(void);

typedef struct sc_new_scroll_options {
    const char *box_id;          /* required: a slug */
    const char *target_id;       /* required: a target id (section 4) */
    const char *model_id;        /* NULL: box_id */
    const char *runtime_id;      /* NULL: "<box_id>-runtime" */
    const char *version;         /* NULL: "1.0.0" */
    const char *source_revision; /* required */
    const char *python_version;  /* NULL: SC_AUTHOR_DEFAULT_PYTHON_VERSION */
    const char *pixi_version;    /* NULL: SC_AUTHOR_DEFAULT_PIXI_VERSION */
    const char *execution;       /* NULL or "none", "script", "module" */
    const char *script;          /* with "script": the payload path (with
                                    generate_script, NULL: "entrypoint.py") */
    const char *module;          /* with "module": a dotted name */
    const char *asset_base_url;  /* NULL: absent */
    const char *weights;         /* NULL: absent; "embed" or "on-demand" */
    const char *scroll_version;  /* NULL: absent; else scrollVersion */
    /*
     * Host constraints (upstream's --min-* flags), written into
     * "compatibility" (5.2, 18.3); NULL: absent.  Versions must be dotted
     * numbers (18.3), min below max; min_macos_version only for a macOS
     * target, min_nvidia_driver_version only for a CUDA one; min_ram_gb a
     * JSON number greater than 0.  Any breach is SC_E_USAGE naming the flag.
     */
    const char *min_host_app_version;
    const char *max_host_app_version_exclusive;
    const char *min_macos_version;
    const char *min_nvidia_driver_version;
    const char *min_ram_gb;
    /*
     * execution.defaultArgs (upstream's --default-args): NULL means [];
     * else JSON text of an array of strings without U+0000, only with
     * execution "script" or "module".  Any breach is SC_E_USAGE.
     */
    const char *default_args;
    /*
     * Upstream's --generate-script (with execution "script" only): write a
     * starter Python script at <project_root>/<generated_script_path>
     * (NULL: box-entrypoints/<boxId>/<targetId>/entrypoint.py; a path of
     * 5.2's form, else SC_E_UNSAFE_PATH) and declare it: localFiles gets
     * {sourcePath, relativePath: script} (no sha256: it is there to be
     * edited) and selfTest.files gets script.  An existing file there is
     * SC_E_SCROLL_EXISTS; the script is created exclusively, and removed
     * again with the directories made for it when the scroll is not written.
     */
    int generate_script;
    const char *generated_script_path; /* only with generate_script */
    const char *project_root;    /* required with generate_script */
    char **generated_script_out; /* may be NULL: the script's path written (caller frees) */
} sc_new_scroll_options;

/*
 * Write <scrolls>/<box>/<target>/{scroll.json,pixi.toml}.  Missing values
 * are usage errors naming the flag (--box-id, --target, --source-revision,
 * --script, --module); an existing target directory is scroll-exists.  The
 * new scroll is loaded with sc_scroll_load before this returns; if it does
 * not load, it is removed and that error returned.
 */
sc_code sc_author_new_scroll(const char *scrolls_dir,
                             const sc_new_scroll_options *o, sc_error *err);

typedef struct sc_init_result {
    int wrote_config;    /* scrollcase.config.json created (0: one was there) */
    int created_scrolls; /* scrolls directory created */
    int wrote_gitignore; /* the .scrollcase/ line appended */
    int wrote_example;   /* example scroll created (0: not asked or present) */
} sc_init_result;

/*
 * Initialise the workspace at root: scrollcase.config.json
 * {"version": 1, "paths": {defaults}} unless one exists, the scrolls
 * directory (scrolls_dir), ".scrollcase/" in root/.gitignore once; with
 * example, the scroll example-box/<native target> through
 * sc_author_new_scroll (pixi_version NULL: the default).  Downloads nothing.
 */
sc_code sc_author_init(const char *root, const char *scrolls_dir, int example,
                       const char *pixi_version, sc_init_result *res,
                       sc_error *err);

/* What an add/remove edits. */
typedef enum sc_author_kind {
    SC_AUTHOR_FILE,   /* localFiles (+ selfTest.files) */
    SC_AUTHOR_ASSET,  /* assets (+ selfTest.files) */
    SC_AUTHOR_ENV,    /* environment */
    SC_AUTHOR_IMPORT, /* selfTest.imports */
    SC_AUTHOR_DEP     /* [dependencies] of pixi.toml */
} sc_author_kind;

/*
 * Download hook for assets: fetch url into dest, measuring it.  NULL in
 * sc_author_ctx means sc_download_measure (download.h) with its defaults.
 */
typedef sc_code (*sc_author_fetch_fn)(void *ctx, const char *url,
                                      const char *dest, uint64_t *size,
                                      char sha256_hex[65], sc_error *err);

typedef struct sc_author_ctx {
    const char *scrolls_dir;
    const char *project_root;  /* localFiles sourcePath is relative to it */
    const char *cwd;           /* add file: PATH is against it; NULL: getcwd */
    const char *target;        /* NULL, "all" or a target id */
    sc_author_fetch_fn fetch;  /* NULL: sc_download_measure */
    void *fetch_ctx;
    /* add asset, refresh --check-assets: the most bytes one download may
     * bring (download.h's max_bytes; 0 = SC_DOWNLOAD_UNPINNED_MAX) */
    uint64_t max_download_bytes;
} sc_author_ctx;

/*
 * add <kind> BOX VALUE.
 *  file:   VALUE is a regular, non-link file inside the project root; the
 *          entry {sourcePath, relativePath = to or its base name, sha256}
 *          goes to localFiles, relativePath to selfTest.files.
 *  asset:  VALUE is an http(s) URL, downloaded once; {url, relativePath =
 *          to or <modelCacheSubdir>/<last URL segment>, sizeBytes, sha256};
 *          relativePath to selfTest.files.  An empty body is download-failed.
 *  env:    VALUE is NAME=VALUE (split at the first '='); replaces a value.
 *  import: VALUE is a dotted module name; an existing one is kept.
 *  dep:    VALUE is a conda name (^[a-z0-9](?:[a-z0-9._-]*[a-z0-9])?$);
 *          `name = "spec"` (version NULL: "*") in [dependencies].
 * to is only for file and asset; version only for dep.
 */
sc_code sc_author_add(const sc_author_ctx *c, sc_author_kind kind,
                      const char *box, const char *value, const char *to,
                      const char *version, sc_error *err);

/*
 * add dep for n names at once (specs[i] NULL or specs NULL: "*"): every
 * name and spec is checked first, then each pixi.toml of the box is edited
 * once and the edit staged like any other: all n or nothing.  A name given
 * twice takes its last spec.  The cost is linear in n and the file.
 */
sc_code sc_author_add_deps(const sc_author_ctx *c, const char *box, const char *const *names,
                           const char *const *specs, size_t n, sc_error *err);

/*
 * remove <kind> BOX VALUE: file and asset by relativePath (or by source
 * path / URL), env by NAME, import by name, dep by name.  Nothing matching
 * in the chosen files is usage; removing the last import of a scroll is
 * invalid-scroll.  A file or asset also leaves selfTest.files; an object
 * left empty (environment) is removed.
 */
sc_code sc_author_remove(const sc_author_ctx *c, sc_author_kind kind,
                         const char *box, const char *value, sc_error *err);

/*
 * edit scroll: set one editable top-level field (scrollId scrollVersion
 * modelId runtimeId version sourceRevision pythonVersion pixiVersion
 * condaDependencyLicenseAudit modelCacheSubdir assetBaseUrl weights) to the
 * value with surrounding white space trimmed.  Another field is usage.
 */
sc_code sc_author_edit_field(const sc_author_ctx *c, const char *box,
                             const char *field, const char *value,
                             sc_error *err);

/* 1 if name is a field sc_author_edit_field accepts. */
int sc_author_field_editable(const char *name);

/*
 * Write len bytes to path (atomically, mode 0644) and set field to value as
 * sc_author_edit_field does, as one edit: when the field edit fails, path
 * gets its old bytes back, or is removed when it did not exist; SIGINT,
 * SIGTERM and SIGHUP wait until the edit is whole or undone (cleanup.h).
 * audit --write uses it for an inventory the scroll did not declare.
 */
sc_code sc_author_write_and_declare(const sc_author_ctx *c, const char *box, const char *path,
                                    const void *bytes, size_t len, const char *field,
                                    const char *value, sc_error *err);

/*
 * refresh: every localFiles entry of the box's files (base and targets)
 * that declares sha256 is hashed again from the project root.  A missing
 * source is local-file-missing.  Drift: with repin the pins are rewritten
 * (staged and validated as every edit); without, nothing is written and
 * the result is local-file-mismatch.  With check_assets every asset is
 * downloaded again (into a temporary directory) and compared; drift is
 * repinned with repin, else asset-size / asset-hash.  *report (if not
 * NULL) gets {"localFiles": [{file, sourcePath, relativePath, declared,
 * actual, repinned}], "assets": [...]} listing what drifted, even on a
 * mismatch error.
 */
sc_code sc_author_refresh(const sc_author_ctx *c, const char *box, int repin,
                          int check_assets, sc_json **report, sc_error *err);

#ifdef __cplusplus
}
#endif

#endif
