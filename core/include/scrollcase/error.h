/* SPDX-License-Identifier: Apache-2.0 */
/*
 * error.h — the closed error-code enum and the error object.
 *
 * Guarantees: every failure in libscrollcase is reported as exactly one code
 * from this enum plus a one-line human message and, where one applies, the
 * file or field it concerns.  Codes are stable forever (docs/errors.md);
 * messages are for people and may change.  There is no global error state:
 * each call that can fail takes an sc_error * and fills it.
 */
#ifndef SCROLLCASE_ERROR_H
#define SCROLLCASE_ERROR_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * X(ENUM, "kebab-name").  Order is irrelevant to the wire (codes travel by
 * name), but new codes are only ever appended.
 */
#define SC_ERROR_CODES(X)                                                    \
    X(SC_OK, "ok")                                                           \
    /* reading */                                                            \
    X(SC_E_INVALID_JSON, "invalid-json")                                     \
    X(SC_E_DEPRECATED_SCHEMA_VERSION, "deprecated-schema-version")           \
    X(SC_E_UNSUPPORTED_SCHEMA_VERSION, "unsupported-schema-version")         \
    X(SC_E_UNSAFE_PATH, "unsafe-path")                                       \
    X(SC_E_ENTRY_COLLISION, "entry-collision")                               \
    /* targets and scrolls */                                                \
    X(SC_E_INVALID_TARGET, "invalid-target")                                 \
    X(SC_E_UNSUPPORTED_TARGET, "unsupported-target")                         \
    X(SC_E_INVALID_SCROLL, "invalid-scroll")                                 \
    X(SC_E_INVALID_REFERENCE, "invalid-reference")                           \
    X(SC_E_SCROLL_NOT_FOUND, "scroll-not-found")                             \
    X(SC_E_LAYOUT_MISMATCH, "layout-mismatch")                               \
    X(SC_E_INVALID_CONFIG, "invalid-config")                                 \
    X(SC_E_MIGRATE_REFUSED, "migrate-refused")                               \
    /* signed documents and manifests */                                     \
    X(SC_E_INVALID_TRUST_FILE, "invalid-trust-file")                         \
    X(SC_E_INVALID_SIGNATURE, "invalid-signature")                           \
    X(SC_E_ALTERED_PAYLOAD, "altered-payload")                               \
    X(SC_E_INVALID_MANIFEST, "invalid-manifest")                             \
    X(SC_E_REVOKED_RELEASE, "revoked-release")                               \
    X(SC_E_NO_RELEASE_FOR_COHORT, "no-release-for-cohort")                   \
    X(SC_E_MANIFEST_DISAGREEMENT, "manifest-disagreement")                   \
    X(SC_E_EXECUTION_DISAGREEMENT, "execution-disagreement")                 \
    X(SC_E_ENVIRONMENT_DISAGREEMENT, "environment-disagreement")             \
    /* archives and payloads */                                              \
    X(SC_E_ARCHIVE_HASH, "archive-hash")                                     \
    X(SC_E_ARCHIVE_SIZE, "archive-size")                                     \
    X(SC_E_INVALID_ARCHIVE, "invalid-archive")                               \
    X(SC_E_LINK_ENTRY, "link-entry")                                         \
    X(SC_E_SPECIAL_ENTRY, "special-entry")                                   \
    X(SC_E_ENCRYPTED_ENTRY, "encrypted-entry")                               \
    X(SC_E_MISSING_INTERPRETER, "missing-interpreter")                       \
    X(SC_E_MISSING_SCRIPT, "missing-script")                                 \
    X(SC_E_MISSING_MODULE, "missing-module")                                 \
    X(SC_E_PAYLOAD_LIST_MISSING, "payload-list-missing")                     \
    X(SC_E_PAYLOAD_LIST_MISMATCH, "payload-list-mismatch")                   \
    X(SC_E_PAYLOAD_DIGEST_ABSENT, "payload-digest-absent")                   \
    X(SC_E_PAYLOAD_MISMATCH, "payload-mismatch")                             \
    /* consumer operations */                                                \
    X(SC_E_EXISTING_DESTINATION, "existing-destination")                     \
    X(SC_E_ASSET_MISSING, "asset-missing")                                   \
    X(SC_E_ASSET_SIZE, "asset-size")                                         \
    X(SC_E_ASSET_HASH, "asset-hash")                                         \
    X(SC_E_ATTACH_ROOT, "attach-root")                                       \
    X(SC_E_ATTACH_MISSING_INTERPRETER, "attach-missing-interpreter")         \
    X(SC_E_FOREIGN_TARGET, "foreign-target")                                 \
    X(SC_E_SPAWN_FAILURE, "spawn-failure")                                   \
    X(SC_E_TIMEOUT, "timeout")                                               \
    /* gates */                                                              \
    X(SC_E_GATE_FAILED, "gate-failed")                                       \
    X(SC_E_GATE_MODIFIED_PAYLOAD, "gate-modified-payload")                   \
    X(SC_E_PARITY_BREACH, "parity-breach")                                   \
    /* environment of the call itself */                                     \
    X(SC_E_IO, "io-error")                                                   \
    X(SC_E_OUT_OF_MEMORY, "out-of-memory")                                   \
    X(SC_E_USAGE, "usage")                                                   \
    X(SC_E_INTERNAL, "internal")                                             \
    /* signed documents (appended: codes are only ever appended) */          \
    X(SC_E_INVALID_ENVELOPE, "invalid-envelope")                             \
    X(SC_E_KEY_EXISTS, "key-exists")                                         \
    X(SC_E_INVALID_KEY, "invalid-key")                                       \
    X(SC_E_SIGNER_FAILED, "signer-failed")                                   \
    X(SC_E_INVALID_INSTALL_ID, "invalid-install-id")                         \
    /* boxes on disk (appended) */                                           \
    X(SC_E_ARCHIVE_NOT_FOUND, "archive-not-found")                           \
    X(SC_E_ARCHIVE_CHANGED, "archive-changed")                               \
    X(SC_E_INSTALLED_SIZE_MISMATCH, "installed-size-mismatch")               \
    X(SC_E_DESTINATION_CHANGED, "destination-changed")                       \
    X(SC_E_NO_EXECUTION, "no-execution")                                     \
    X(SC_E_INVALID_ENVIRONMENT, "invalid-environment")                       \
    X(SC_E_SELF_TEST_FAILED, "self-test-failed")                             \
    X(SC_E_EXTRACTION_LIMIT, "extraction-limit")                             \
    X(SC_E_INVALID_PAYLOAD_LIST, "invalid-payload-list")                     \
    X(SC_E_MISSING_BOX_JSON, "missing-box-json")                             \
    /* parity and hosts (appended) */                                        \
    X(SC_E_PARITY_NON_FINITE, "parity-non-finite")                           \
    X(SC_E_PARITY_LENGTH_MISMATCH, "parity-length-mismatch")                 \
    X(SC_E_INVALID_TOLERANCE, "invalid-tolerance")                           \
    X(SC_E_INVALID_PARITY_VALUES, "invalid-parity-values")                   \
    X(SC_E_HOST_INCOMPATIBLE, "host-incompatible")                           \
    X(SC_E_ACCELERATOR_UNAVAILABLE, "accelerator-unavailable")               \
    /* CUDA ABI audit (appended) */                                          \
    X(SC_E_INVALID_LOCK, "invalid-lock")                                     \
    X(SC_E_INVALID_PIXI_TOML, "invalid-pixi-toml")                           \
    X(SC_E_AUDIT_FAILED, "audit-failed")                                     \
    X(SC_E_INVALID_HOST_FACTS, "invalid-host-facts")                         \
    /* building boxes (appended) */                                          \
    X(SC_E_DOWNLOAD_FAILED, "download-failed")                               \
    X(SC_E_DIRTY_SOURCE_TREE, "dirty-source-tree")                           \
    X(SC_E_NOT_A_GIT_CHECKOUT, "not-a-git-checkout")                         \
    X(SC_E_TOOL_MISSING, "tool-missing")                                     \
    X(SC_E_TOOL_VERSION_MISMATCH, "tool-version-mismatch")                   \
    X(SC_E_LOCAL_FILE_MISSING, "local-file-missing")                         \
    X(SC_E_LOCAL_FILE_MISMATCH, "local-file-mismatch")                       \
    X(SC_E_MISSING_LOCK, "missing-lock")                                     \
    X(SC_E_LICENSE_AUDIT_MISMATCH, "license-audit-mismatch")                 \
    X(SC_E_ASSET_ARCHIVE_CONFLICT, "asset-archive-conflict")                 \
    X(SC_E_RELOCATION_FAILED, "relocation-failed")                           \
    X(SC_E_SCROLL_EXISTS, "scroll-exists")                                   \
    /* issue 11: real pixi projects (appended below this line) */       \
    X(SC_E_LOCK_PAYLOAD_MISMATCH, "lock-payload-mismatch")                   \
    /* end of issue 11 */                                               \
    /* issue 12: installing and linking (appended below this line) */   \
    /* end of issue 12 */                                               \
    /* issue 13: conformance for ports (appended below this line) */    \
    /* end of issue 13 */                                               \
    /* issue 14: hostile inputs and faults (appended below this line) */ \
    /* end of issue 14 */                                               \
    /* issue 15: the CLI as a contract (appended below this line) */    \
    X(SC_E_DOCTOR_FAILED, "doctor-failed")                                   \
    X(SC_E_ASSET_NOT_CACHED, "asset-not-cached")                             \
    /* end of issue 15 */                                               \
    /* issue 16: GPU runners (appended below this line) */              \
    /* end of issue 16 */                                               \
    /* issue 17: speed (appended below this line) */                    \
    X(SC_E_LIBRARY_MISSING, "library-missing")                               \
    /* end of issue 17 */                                               \
    /* issue 22: CUDA binaries (appended below this line) */            \
    X(SC_E_INVALID_ELF, "invalid-elf")                                       \
    X(SC_E_CUDA_BINARIES_MISSING, "cuda-binaries-missing")                   \
    X(SC_E_CUDA_BINARIES_MISMATCH, "cuda-binaries-mismatch")                 \
    /* end of issue 22 */                                               \
    /* issue 26: native lock install (appended below this line) */      \
    X(SC_E_UNSUPPORTED_LOCK_PACKAGE, "unsupported-lock-package")             \
    X(SC_E_LOCK_PLATFORM_MISSING, "lock-platform-missing")                   \
    X(SC_E_INVALID_WHEEL, "invalid-wheel")                                   \
    X(SC_E_WHEEL_INCOMPATIBLE, "wheel-incompatible")                         \
    X(SC_E_WHEEL_RECORD_MISMATCH, "wheel-record-mismatch")                   \
    X(SC_E_INVALID_PACKAGE, "invalid-package")                               \
    X(SC_E_PACKAGE_SUBDIR, "package-subdir")                                 \
    /* end of issue 26 */                                               \
    /* issue 24: faults, round two (appended below this line) */        \
    X(SC_E_CHANNEL_RELEASE_MISMATCH, "channel-release-mismatch")             \
    /* end of issue 24 */

typedef enum sc_code {
#define SC_X_ENUM(e, s) e,
    SC_ERROR_CODES(SC_X_ENUM)
#undef SC_X_ENUM
    SC_CODE_COUNT_
} sc_code;

#define SC_ERROR_MESSAGE_MAX 512
#define SC_ERROR_PATH_MAX 1024

/*
 * The error object.  Fixed-size buffers so that reporting an error never
 * allocates (and so never fails); an over-long message is truncated.
 */
typedef struct sc_error {
    sc_code code;
    char message[SC_ERROR_MESSAGE_MAX];
    char path[SC_ERROR_PATH_MAX]; /* file or field; "" when none applies */
} sc_error;

/* Reset to SC_OK with empty message and path.  err may be NULL. */
void sc_error_clear(sc_error *err);

/*
 * Fill err (if not NULL) and return code.  path may be NULL.  The message is
 * formatted printf-style; control characters are replaced by '?' so that a
 * message is always one line.
 */
sc_code sc_error_set(sc_error *err, sc_code code, const char *path,
                     const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/* Prefix the existing message with "<prefix>: " (used to add a file name). */
void sc_error_prefix(sc_error *err, const char *prefix);

/* The kebab-case name of a code ("invalid-json"); "internal" if unknown. */
const char *sc_code_name(sc_code code);

/* Look a name up; returns SC_CODE_COUNT_ if the name is not a code. */
sc_code sc_code_from_name(const char *name);

/* Number of codes, SC_OK included. */
size_t sc_code_count(void);

#ifdef __cplusplus
}
#endif

#endif
