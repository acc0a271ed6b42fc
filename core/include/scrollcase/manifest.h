/* SPDX-License-Identifier: Apache-2.0 */
/*
 * manifest.h — the manifests of docs/format-v3.md section 10: kinds,
 * releases, box.json, channels, revocations, licence inventories, and the
 * agreement of a release with its box.json.
 *
 * Guarantees: a manifest is checked in the order of 9.2 steps 7-10 and
 * 10.x, first failure wins, one code per failure.  Within each object the
 * order is that of 5.5: the type, the required members in table order, then
 * every present member in table order (its own checks recursively in the
 * same order), then unknown members in declaration order.  Every failure is
 * invalid-manifest except: schemaVersion 1/2 (deprecated-schema-version) or
 * another value (unsupported-schema-version); a target object (the codes of
 * section 4, sc_target_from_json); a payload path (unsafe-path, checked as
 * that member's pattern, at its place in the order).  Nothing is allocated
 * by the checks and nothing is kept: inputs are only read.
 */
#ifndef SCROLLCASE_MANIFEST_H
#define SCROLLCASE_MANIFEST_H

#include <stddef.h>

#include "scrollcase/error.h"
#include "scrollcase/json.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum sc_doc_type {
    SC_DOC_ANY,      /* whatever the kind says (signed documents only) */
    SC_DOC_RELEASE,
    SC_DOC_CHANNEL,
    SC_DOC_REVOCATIONS,
    SC_DOC_LICENSE_INVENTORY,
    SC_DOC_BOX       /* box.json: no kind */
} sc_doc_type;

#define SC_NAMESPACE_MAX 128
#define SC_IDENTITY_MAX 512
#define SC_MANIFEST_SCHEMA_VERSION 3
#define SC_DEFAULT_NAMESPACE "scrollcase.box"
#define SC_BOX_JSON_MAX_BYTES 1048576 /* 1 MiB: a larger box.json is refused */

/*
 * What a check found.  Valid only when the check returned SC_OK.  The text
 * fields are NUL-terminated; a value that does not fit (the format sets no
 * length limit on namespaces or versions) is cut short and `truncated` is
 * set — the fields are for display, never for decisions.
 */
typedef struct sc_manifest_info {
    sc_doc_type type;                 /* the type found */
    char kind[SC_NAMESPACE_MAX + 32]; /* "" for box.json */
    char ns[SC_NAMESPACE_MAX];        /* "" for box.json */
    char identity[SC_IDENTITY_MAX];   /* 10.1; box.json as a release;
                                         a licence inventory:
                                         "dependency-license-audit <targetId>" */
    int truncated;                    /* 1 if a field above was cut short */
} sc_manifest_info;

/*
 * Check a parsed manifest: it is an object (9.2 step 7), schemaVersion
 * (step 8), kind (step 9; the type must equal expect unless expect is
 * SC_DOC_ANY, which accepts any of the four kinds; SC_DOC_BOX has no kind),
 * then the schema of its type (step 10).  info may be NULL.
 */
sc_code sc_manifest_check(const sc_json *payload, sc_doc_type expect,
                          sc_manifest_info *info, sc_error *err);

/*
 * Read a box.json from the bytes of its archive entry: more than
 * SC_BOX_JSON_MAX_BYTES → invalid-manifest; the strict reader →
 * invalid-json; then sc_manifest_check(SC_DOC_BOX).  On success *out is the
 * parsed document (caller frees with sc_json_free); on failure *out is NULL.
 * info may be NULL.
 */
sc_code sc_manifest_read_box_json(const char *bytes, size_t len, sc_json **out,
                                  sc_manifest_info *info, sc_error *err);

/*
 * Parse a kind (10.1): split at the last '.', a non-empty namespace matching
 * ^[a-z0-9]+(?:[.-][a-z0-9]+)*$, a type of release, channel, revocations or
 * dependency-license-audit.  len is the length of kind in bytes (a kind
 * holding NUL is no kind).  Returns 1 and sets *type (and *ns_len, the
 * namespace's length, if not NULL), or 0.
 */
int sc_manifest_parse_kind(const char *kind, size_t len, sc_doc_type *type,
                           size_t *ns_len);

/* The type's name as in a kind ("release"; "box" for SC_DOC_BOX, "any"). */
const char *sc_doc_type_name(sc_doc_type type);

/*
 * 1 if the len bytes are a timestamp YYYY-MM-DDTHH:MM:SSZ: a real date of
 * the Gregorian calendar (years 0000-9999), hours 00-23, minutes and
 * seconds 00-59, upper-case T and Z, no fraction, no offset.
 */
int sc_manifest_timestamp_valid(const char *s, size_t len);

/*
 * The agreement of a release with its box.json (10.4).  Both must already
 * have passed sc_manifest_check (as SC_DOC_RELEASE and SC_DOC_BOX).  The 14
 * members are compared in the order of 10.4 by sc_json_equal (member order
 * ignored, numbers by value; absent equals only absent); the first
 * difference fails: environment → environment-disagreement, execution →
 * execution-disagreement, any other → manifest-disagreement.  The message
 * and err->path name the member ("$.version").
 */
sc_code sc_manifest_agreement(const sc_json *release, const sc_json *box,
                              sc_error *err);

#ifdef __cplusplus
}
#endif

#endif
