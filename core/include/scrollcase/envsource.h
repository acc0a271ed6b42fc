/* SPDX-License-Identifier: Apache-2.0 */
/*
 * envsource.h — where a box's Python environment comes from
 * (docs/format-v3.md 20.2): a relocatable prefix copied in, or a pixi lock
 * installed with the exact pinned pixi, packed with conda-pack and relocated
 * (`--environment-from pixi`).  The default road from a lock, scrollcase's
 * own installer, is lock_install.h; the build (build.c) chooses between the
 * three, and the steps they share (settling links, canonical conda-meta,
 * launcher repair) are here.
 *
 * Guarantees: the result is a pure function of the input tree, whatever the
 * directory order, TZ, locale or umask: trees are walked in byte order of
 * names, every mode is set explicitly (mode & 0777), and symbolic links are
 * kept only when they satisfy the lexical link rule of 15.2 inside the
 * environment (anything else is deleted when dangling or escaping, or
 * materialised as a copy).  Nothing outside the environment is ever copied
 * in.  On failure the destination directory does not exist.  Tools run
 * through process.h (execve, never a shell).
 */
#ifndef SCROLLCASE_ENVSOURCE_H
#define SCROLLCASE_ENVSOURCE_H
#include "scrollcase/error.h"
#include "scrollcase/payload.h"
#include "scrollcase/target.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The conda-pack version scrollcase documents (its --version is unreliable). */
#define SC_CONDA_PACK_VERSION "0.9.2"

/*
 * Copy a relocatable prefix into venv_dir (created with its parents; must
 * not exist): regular files (mode & 0777 kept), directories (0755),
 * symlinks copied (an absolute target inside the prefix is moved to the
 * copy) and then settled as in sc_envsource_settle_links; launchers in
 * the scripts directory that name the prefix are repaired as in
 * sc_envsource_repair_launchers; specials ->
 * SC_E_SPECIAL_ENTRY; the skip rules of 14.3 (__pycache__, *.pyc,
 * .DS_Store) apply.  prefix_digest = the sha256-path-list-v1 digest of the
 * copied tree.  The prefix must hold the target's entry point relative to
 * the payload root (bin/python for venv/bin/python) as a file or a link
 * resolving to one -> else SC_E_RELOCATION_FAILED (checked before anything
 * is written).  A missing prefix directory -> SC_E_IO.
 */
sc_code sc_envsource_copy_prefix(const char *prefix_dir, const char *venv_dir,
                                 const sc_target *t, char prefix_digest[65], sc_error *err);

/*
 * sc_envsource_copy_prefix keeping the copied tree's list (hashed, with
 * CRC-32s and stamps; paths relative to venv_dir) in *list when list is not
 * NULL (free it with sc_payload_list_free; empty on failure): the build's
 * payload snapshot reuses its digests instead of reading the files again.
 * The files are copied, and hashed, on jobs threads (sc_jobs_resolve: 0 =
 * every CPU); directories and links are made in walk order by one, and the
 * failure reported is the first in walk order whatever the count.  A
 * regular file is hard-linked instead of copied where the file system
 * allows (same device; a mode without set-id or sticky bits, readable by
 * its owner): the copy's files may then share inodes with the prefix's, so
 * whatever changes a file of the copy MUST replace it (a new file renamed
 * over, or unlink first), never write into it — as the build does.
 */
sc_code sc_envsource_copy_prefix_keep(const char *prefix_dir, const char *venv_dir,
                                      const sc_target *t, char prefix_digest[65],
                                      unsigned jobs, sc_payload_list *list, sc_error *err);

/*
 * sc_envsource_copy_prefix_keep telling progress (progress.h; NULL: none):
 * step "copy" (bytes and files of the prefix's regular files, known once
 * the walk has listed them; a file counts once it is copied), then step
 * "digest" (the copy hashed, sc_payload_options.progress).
 */
sc_code sc_envsource_copy_prefix_with(const char *prefix_dir, const char *venv_dir,
                                      const sc_target *t, char prefix_digest[65], unsigned jobs,
                                      sc_payload_list *list, sc_progress_fn progress,
                                      void *progress_ctx, sc_error *err);

/*
 * Settle every symbolic link under venv_dir (walked in byte order):
 * dangling, or resolving outside venv_dir -> deleted; kept when the target
 * carries links (every platform but Windows), the link passes the lexical
 * link rule of 15.2 within venv_dir and ends at a regular file; otherwise
 * materialised: a file as a copy (mode & 0777), a directory as a
 * dereferencing copy (links inside it that dangle or escape are left out).
 * A directory link that contains itself -> SC_E_RELOCATION_FAILED.
 */
sc_code sc_envsource_settle_links(const char *venv_dir, const sc_target *t, sc_error *err);

typedef struct sc_pixi_tools {
    char *pixi;             /* absolute path */
    char *conda_pack;       /* absolute path */
    char pixi_version[64];  /* what `pixi --version` printed as its 2nd token */
} sc_pixi_tools;

/*
 * Discovery: explicit path > env SCROLLCASE_PIXI / SCROLLCASE_CONDA_PACK >
 * <toolchain_dir>/bin/<tool> if it exists > PATH.  `pixi --version` must
 * exit 0 and print "pixi <V>"; V must equal required_version exactly
 * (SC_E_TOOL_VERSION_MISMATCH "Scroll requires pixi V, found W.");
 * required_version NULL checks nothing about the version.  `conda-pack
 * --help` must exit 0.  A tool that is absent, not executable or fails to
 * start or answer -> SC_E_TOOL_MISSING naming the remedy.  toolchain_dir
 * may be NULL.  out is zeroed first; on failure it holds nothing.
 */
sc_code sc_pixi_discover(const char *explicit_pixi, const char *explicit_conda_pack,
                         const char *toolchain_dir, const char *required_version,
                         sc_pixi_tools *out, sc_error *err);
/* Only pixi (for `lock` and `doctor`): out->conda_pack stays NULL. */
sc_code sc_pixi_discover_pixi(const char *explicit_pixi, const char *toolchain_dir,
                              const char *required_version, sc_pixi_tools *out,
                              sc_error *err);
/* Only conda-pack (for `doctor`): out->pixi stays NULL. */
sc_code sc_pixi_discover_conda_pack(const char *explicit_conda_pack, const char *toolchain_dir,
                                    sc_pixi_tools *out, sc_error *err);
void sc_pixi_tools_free(sc_pixi_tools *t);

/*
 * `pixi lock --manifest-path <scroll_dir>/pixi.toml` (absolute), in
 * scroll_dir, child output on stderr.  No pixi.toml -> SC_E_INVALID_PIXI_TOML;
 * pixi failing to start or exiting non-zero -> SC_E_TOOL_MISSING.
 */
sc_code sc_pixi_run_lock(const sc_pixi_tools *tools, const char *scroll_dir, sc_error *err);

/* The absolute path of an executable regular file name on PATH, or NULL
 * (also on OOM).  A name holding '/' is checked as it is. */
char *sc_tool_which(const char *name);

/*
 * Run argv (argv[0] absolute) with the host environment in cwd (NULL: ours),
 * no shell; capture up to cap-1 bytes of stdout into out (NUL-terminated),
 * stderr discarded when quiet, else inherited; stdin /dev/null; the tool in
 * its own process group.  *status = exit code, -1 when killed by a signal.
 * Failure to start -> SC_E_SPAWN_FAILURE.  A deadline always: 60 s for a
 * probe whose output is captured (out != NULL), 6 h for a run;
 * SCROLLCASE_TOOL_TIMEOUT=SECONDS replaces both; past it the tool's group
 * is ended -> SC_E_TIMEOUT.
 */
sc_code sc_tool_run_capture(char *const *argv, const char *cwd, char *out, size_t cap,
                            int quiet, int *status, sc_error *err);

/*
 * upstream-v2-builder 2.3: copy pixi.toml + pixi.lock of scroll_dir into
 * <work_dir>/pixi-workspace (recreated), `pixi install --manifest-path
 * <ws>/pixi.toml --frozen`, `conda-pack -p <ws>/.pixi/envs/default -o
 * <work_dir>/pixi-env.tar.gz --format tar.gz`, unpack strictly into
 * venv_dir (absolute and .. names refused, only files, directories and
 * links; links deferred and created sorted after everything else, skipped
 * where the path exists), delete the service files, canonicalise
 * conda-meta, settle links, repair POSIX launchers, remove the workspace
 * and the tarball.  lock_sha256 = SHA-256 of the scroll's pixi.lock.
 * Failures: SC_E_MISSING_LOCK (pixi.lock or pixi.toml absent, before any
 * process runs), SC_E_TOOL_MISSING (a tool fails to start or exits
 * non-zero), SC_E_RELOCATION_FAILED (unsafe tarball, unreadable conda-meta
 * record, no entry point), SC_E_IO.  Child output goes to stderr.
 */
sc_code sc_envsource_install_pixi(const sc_pixi_tools *tools, const char *scroll_dir,
                                  const char *work_dir, const char *venv_dir,
                                  const sc_target *t, char lock_sha256[65], sc_error *err);

/*
 * Step 6 alone: every non-.json entry of <venv_dir>/conda-meta removed, each
 * *.json rewritten as {name, version, build, license} (those present, that
 * order), 2-space JSON + LF, mode 0644.  Unparseable record ->
 * SC_E_RELOCATION_FAILED.  A missing conda-meta is fine.
 */
sc_code sc_envsource_canonical_conda_meta(const char *venv_dir, sc_error *err);

/*
 * Step 8 alone: every regular file in the target's scripts directory whose
 * first bytes are "#!" and whose text contains one of the needles (NULL
 * terminated list) becomes the /bin/sh trampoline re-executing the sibling
 * interpreter (basename of the entry point) followed by the original body
 * (old shebang line, or old '''exec' trampoline, removed), mode 0755.
 * *repaired (may be NULL) = number of files rewritten.
 */
sc_code sc_envsource_repair_launchers(const char *venv_dir, const sc_target *t,
                                      const char *const *needles, size_t *repaired,
                                      sc_error *err);

#ifdef __cplusplus
}
#endif

#endif
