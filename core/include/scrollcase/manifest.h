/*
 * manifest.h — the manifests of docs/format-v3.md section 10: kinds,
 * releases, box.json, channels, revocations, licence inventories, and the
 * agreement of a release with its box.json.
 *
 * Guarantees: a manifest is checked in the order of 9.2 steps 8-10 and
 * 10.x, first failure wins, one code per failure.
 */
#ifndef SCROLLCASE_MANIFEST_H
#define SCROLLCASE_MANIFEST_H

#include "scrollcase/error.h"
#include "scrollcase/json.h"

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

typedef struct sc_manifest_info {
    sc_doc_type type;                 /* the type found */
    char kind[SC_NAMESPACE_MAX + 32]; /* "" for box.json */
    char ns[SC_NAMESPACE_MAX];        /* "" for box.json */
    char identity[SC_IDENTITY_MAX];   /* 10.1; box.json as a release */
} sc_manifest_info;

/*
 * Check a parsed manifest: schemaVersion (9.2 step 8), kind (step 9; the
 * type must equal expect unless expect is SC_DOC_ANY; SC_DOC_BOX has no
 * kind), then the schema of its type (step 10).  info may be NULL.
 */
sc_code sc_manifest_check(const sc_json *payload, sc_doc_type expect,
                          sc_manifest_info *info, sc_error *err);

#endif
