/* SPDX-License-Identifier: Apache-2.0 */
/*
 * box.h — the consumer operations on a box: open a release, verify its
 * archive, prepare (extract) it, attach an extracted tree, verify an
 * extracted tree against the signed payload digest, and the self-test
 * (docs/format-v3.md 16.1-16.3).
 *
 * Guarantees:
 *  - A release is opened in the order of 9.2 (the trust set given is
 *    already checked: step 1 belongs to the caller), as a release only;
 *    then, when a verified revocations payload is given, 13 →
 *    revoked-release.  Nothing of the archive is read before that.
 *  - Verify runs 16.1 in order and reports the first failure only: the
 *    archive exists, its size, its SHA-256 (one streaming pass), the reader's
 *    inspection (15.2), box.json, agreement (10.4), the entry point, the
 *    execution's discoverability.  Nothing is written anywhere.
 *  - Prepare never leaves anything at the destination on failure and always
 *    removes its stage directory; a destination that exists (lstat, so a
 *    dangling link counts) is never replaced.  The tree appears at the
 *    destination by one rename(2).
 *  - Attach only enumerates and lstats: payload bytes are not read (assets
 *    excepted, whose bytes are hashed).
 *  - Self-test runs only on a native host, in a private temporary
 *    directory that is always removed, under the release's time limit.
 */
#ifndef SCROLLCASE_BOX_H
#define SCROLLCASE_BOX_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "scrollcase/digest.h"
#include "scrollcase/envelope.h"
#include "scrollcase/environment.h"
#include "scrollcase/error.h"
#include "scrollcase/json.h"
#include "scrollcase/progress.h"
#include "scrollcase/run.h"
#include "scrollcase/target.h"
#include "scrollcase/trust.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A verified release.  Owned; sc_release_free.  Zero it before opening. */
typedef struct sc_release {
    sc_verified_document doc;           /* doc.payload is the release */
    sc_target target;
    char target_id[SC_TARGET_ID_MAX];
    const char *entry_point;            /* pythonEntryPoint (in doc.payload) */
    const char *archive_url;            /* archive.url (in doc.payload) */
    char archive_sha256[SC_SHA256_HEX_LEN + 1];
    uint64_t archive_size;
    uint64_t installed_size;            /* installedSizeBytes */
    char payload_digest[SC_SHA256_HEX_LEN + 1]; /* payloadDigest.sha256 */
    char **signing_key_ids;             /* every signature's keyId, in order */
    size_t signing_key_count;
} sc_release;

/*
 * Open a signed release file against a checked trust set.  A file that
 * cannot be read is io-error; then sc_envelope_verify(SC_DOC_RELEASE); then,
 * if revocations (the payload of a verified revocations document) is not
 * NULL, sc_revocation_check → revoked-release.
 */
sc_code sc_release_open(const char *release_path, const sc_trust *trust,
                        const sc_json *revocations, sc_release *out, sc_error *err);

/* The same from the envelope's bytes. */
sc_code sc_release_open_bytes(const char *bytes, size_t len, const sc_trust *trust,
                              const sc_json *revocations, sc_release *out,
                              sc_error *err);

void sc_release_free(sc_release *r);

/*
 * The archive a release names when none is given: the last segment of
 * archive.url (up to '?' or '#'), in the release file's directory; when
 * that does not exist but "<archive.sha256>.zip" there does, that one.  A URL
 * whose last segment is empty, "." or ".." is usage.  Caller frees *out.
 */
sc_code sc_release_default_archive(const sc_release *r, const char *release_path,
                                   char **out, sc_error *err);

/* What verify found (16.1). */
typedef struct sc_box_report {
    char box_id[128];
    char version[128];
    char target_id[SC_TARGET_ID_MAX];
    size_t entry_count;                 /* archive entries, every kind */
    char execution_kind[32];            /* "python-script", "python-module" or "" */
    size_t required_asset_count;        /* on-demand assets the release names */
} sc_box_report;

/* 16.1: check an archive against a release.  Reads only. */
sc_code sc_box_verify(const sc_release *r, const char *archive_path,
                      sc_box_report *out, sc_error *err);

/*
 * How verify, prepare, verify --extracted and the self-test run (the CLI's
 * --jobs and its progress).  Zero it for the defaults; NULL means all
 * defaults.  Results never depend on it: the same bytes are checked, written
 * and reported, and the first failure in a fixed order is the one reported.
 */
typedef struct sc_box_options {
    /* Threads (sc_jobs_resolve: 0 = every CPU of the affinity mask): with
     * two or more the archive's SHA-256 runs on a thread of its own beside
     * the inspection (verify) or the extraction (prepare); extraction and
     * tree hashing use them all; 1 = the calling thread only. */
    unsigned jobs;
    /* The long steps (progress.h; NULL: none): "hash" (the archive's
     * SHA-256: bytes of the archive file as read, of its size on disk; a
     * prepare whose archive stamp moved during extraction hashes it again,
     * a second "hash" step),
     * "extract" (sc_zip_extract_opts), "verify" (an extracted tree against
     * its list: sc_payload_verify_tree_opts, whose expected bytes are the
     * release's installedSizeBytes less the list file — what the release
     * signs, not a measurement), "digest" (the self-test's hashing of what
     * it extracted) and "self-test" (the run: elapsed_ms against limit_ms).
     * Progress never changes what is checked or written. */
    sc_progress_fn progress;
    void *progress_ctx;
} sc_box_options;

/* sc_box_verify with options. */
sc_code sc_box_verify_with(const sc_release *r, const char *archive_path,
                           const sc_box_options *o, sc_box_report *out, sc_error *err);

/* What prepare and attach hand back (16.2, 16.3).  Owned; sc_receipt_free. */
typedef struct sc_receipt {
    const char *status;                 /* "prepared" or "attached" (static) */
    char *root;                         /* absolute, lexical */
    char *box_id, *model_id, *runtime_id, *version;
    char target_id[SC_TARGET_ID_MAX];
    char *python_entry_point;
    char execution_kind[32];            /* "" when the box is a library */
    size_t required_asset_count;
    char **signing_key_ids;
    size_t signing_key_count;
    char release_payload_sha256[SC_SHA256_HEX_LEN + 1];
    char archive_sha256[SC_SHA256_HEX_LEN + 1];
    uint64_t archive_size;
    uint64_t installed_size;            /* measured */
    dev_t dev;
    ino_t ino;
    sc_json *environment_report;        /* NULL when none was made */
} sc_receipt;

void sc_receipt_free(sc_receipt *r);

/*
 * The receipt as a JSON object: {status, root, boxId, modelId, runtimeId,
 * version, targetId, pythonEntryPoint, executionKind (null for a library),
 * requiredAssets, signingKeyIds, releasePayloadSha256, archiveSha256,
 * archiveSizeBytes, installedSizeBytes, environmentReport?}.  The device
 * and inode stay private to the process.  NULL on OOM.
 */
sc_json *sc_receipt_to_json(const sc_receipt *r);

/*
 * 16.2: verify the archive and extract it to destination, which must not
 * exist.  Any target may be prepared on any host.
 */
sc_code sc_box_prepare(const sc_release *r, const char *archive_path,
                       const char *destination, sc_receipt *out, sc_error *err);

/* sc_box_prepare with options. */
sc_code sc_box_prepare_with(const sc_release *r, const char *archive_path,
                            const char *destination, const sc_box_options *o,
                            sc_receipt *out, sc_error *err);

/*
 * The path of the stage directory prepare is using right now, or "" (for
 * diagnostics).  The library owns the string; it stays valid until that
 * stage is removed.  The signal cleanup (sc_box_prepare_signal_cleanup) does
 * not use it: it removes the stage through a descriptor of its parent, so a
 * stage at any depth or path length is removed.
 */
const char *sc_box_prepare_active_stage(void);

/*
 * Remove a directory tree without following links (nothing outside it is
 * touched).  A missing path is success.  Async-signal-safe it is not; the
 * command's handler uses it only to end the process.
 */
sc_code sc_box_remove_tree(const char *path, sc_error *err);

/*
 * verify --audit (19): the CUDA ABI audit over the conda-meta records of a
 * payload.  _extracted reads <root>/<payload root of the target>/conda-meta
 * of a tree that was verified before; _archive prepares the archive into a
 * private directory under tmpdir (NULL: $TMPDIR, else /tmp), audits it and
 * always removes the directory.  rep is filled (sc_audit_report_free) even
 * when it holds findings of error severity: deciding on them is the
 * caller's (audit-failed).
 */
struct sc_audit_report;
sc_code sc_box_audit_extracted(const sc_release *r, const char *root,
                               struct sc_audit_report *rep, sc_error *err);
sc_code sc_box_audit_archive(const sc_release *r, const char *archive_path, const char *tmpdir,
                             struct sc_audit_report *rep, sc_error *err);

/*
 * 16.3: attach an already-extracted tree.  host is the host environment
 * (NULL: the process's); full/reveal select the report's mode and whether
 * host values are shown.
 */
sc_code sc_box_attach(const sc_release *r, const char *root, const sc_env_map *host,
                      int full, int reveal, sc_receipt *out, sc_error *err);

/* What sc_box_verify_extracted found. */
typedef struct sc_extracted_report {
    size_t entry_count;                 /* records of the payload list */
    sc_json *environment_report;        /* owned; NULL when none was made */
} sc_extracted_report;

void sc_extracted_report_free(sc_extracted_report *r);

/*
 * Verify an extracted tree against the release's payload digest (14):
 * attach-root when root is not a real directory, then the payload list and
 * every listed entry.  No native host needed.
 */
sc_code sc_box_verify_extracted(const sc_release *r, const char *root,
                                const sc_env_map *host, int full, int reveal,
                                sc_extracted_report *out, sc_error *err);

/* sc_box_verify_extracted with options. */
sc_code sc_box_verify_extracted_with(const sc_release *r, const char *root,
                                     const sc_env_map *host, int full, int reveal,
                                     const sc_box_options *o, sc_extracted_report *out,
                                     sc_error *err);

/*
 * The self-test (16.1, --self-test): native host only (foreign-target),
 * extract into a private directory under tmpdir (NULL: $TMPDIR or /tmp),
 * compare the logical size (installed-size-mismatch) and the payload digest
 * (payload-mismatch), then run the entry point with -c "<assertion>\nimport
 * <imports joined by ', '>" in the root, environment host < release <
 * validation, within selfTest.timeoutSeconds (timeout); a non-zero exit or
 * a signal → self-test-failed.  The directory is always removed.
 */
sc_code sc_box_self_test(const sc_release *r, const char *archive_path,
                         const char *tmpdir, const sc_env_map *host, sc_error *err);

/* sc_box_self_test with options (its extraction and hashing).  The archive
 * is hashed once, beside the extraction; it is not read again afterwards
 * even when its stamp cannot vouch for it, since what runs is checked
 * against the signed payload digest. */
sc_code sc_box_self_test_with(const sc_release *r, const char *archive_path,
                              const char *tmpdir, const sc_env_map *host,
                              const sc_box_options *o, sc_error *err);

/*
 * sc_box_verify_with and then sc_box_self_test_with in one pass over the
 * archive (verify --self-test): the checks of 16.1 and the archive's
 * SHA-256 are those of the extraction's own verification, so the archive
 * is hashed once (one "hash" step), not once to verify and again to
 * extract.  out (may be NULL) is filled as by sc_box_verify_with, once the
 * whole self-test passed.
 */
sc_code sc_box_verify_self_test_with(const sc_release *r, const char *archive_path,
                                     const char *tmpdir, const sc_env_map *host,
                                     const sc_box_options *o, sc_box_report *out,
                                     sc_error *err);

/*
 * Install SIGINT and SIGTERM handlers that remove the active prepare stage
 * and the private root of a running self-test or temporary run (with system
 * calls only), then end the process by the same signal.  For commands; one
 * such operation at a time per process is covered.  While a box's program
 * runs, run.h's forwarding handlers stand in for these.
 */
void sc_box_prepare_signal_cleanup(void);

/* How to run a box from a private temporary root. */
typedef struct sc_box_run_options {
    const char *tmpdir;          /* NULL: $TMPDIR, else /tmp */
    const sc_env_map *host;      /* NULL: an empty host layer (see run.h) */
    const sc_env_map *caller;    /* may be NULL */
    char *const *args;
    size_t nargs;
    int full, reveal;            /* environment report mode */
    int forward_signals;
    void (*on_prepared)(void *ctx, const sc_receipt *receipt); /* may be NULL */
    void *ctx;
    /* the temporary prepare's progress (sc_box_options.progress; NULL: none) */
    sc_progress_fn progress;
    void *progress_ctx;
} sc_box_run_options;

/*
 * Prepare into "<tmp>/box" under a fresh private "scrollcase-run-XXXXXX" in
 * o->tmpdir, run it (sc_run), and remove the temporary root on every path:
 * success, a non-zero exit, a spawn failure, a forwarded signal, a failed
 * check.  *out is always initialised (sc_run_result_free).
 */
sc_code sc_box_run_temporary(const sc_release *r, const char *archive_path,
                             const sc_box_run_options *o, sc_run_result *out,
                             sc_error *err);

#ifdef __cplusplus
}
#endif

#endif
