/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_manifest.c — the manifest checks (sc_manifest_check with every
 * sc_doc_type, sc_manifest_read_box_json) and what rests on a checked
 * manifest: the agreement rule, cohort selection, revocation matching.
 *
 * Input: the bytes of one manifest (JSON).
 * Checked: no crash, no leak, one code per failure (err->code equals the
 * returned code); a document accepted as SC_DOC_ANY is accepted as the type
 * it names, with the same info; a checked release or box.json agrees with
 * itself and is revoked by no empty list; cohort selection over a checked
 * channel serves a release or answers no-release-for-cohort.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "scrollcase/cohort.h"
#include "scrollcase/manifest.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const sc_doc_type types[] = {SC_DOC_ANY, SC_DOC_RELEASE, SC_DOC_CHANNEL,
                                    SC_DOC_REVOCATIONS, SC_DOC_LICENSE_INVENTORY,
                                    SC_DOC_BOX};

static void after_check(const sc_json *doc, sc_doc_type type)
{
    sc_error err;
    if (type == SC_DOC_RELEASE || type == SC_DOC_BOX) {
        if (sc_manifest_agreement(doc, doc, &err) != SC_OK)
            abort();
        sc_json *none = sc_json_new_object();
        sc_json *list = sc_json_new_array();
        if (none == NULL || list == NULL || sc_json_object_append(none, "revocations", list) != 0) {
            sc_json_free(none);
            return;
        }
        if (sc_revocation_check(doc, none, &err) != SC_OK)
            abort();
        sc_json_free(none);
    }
    if (type == SC_DOC_CHANNEL) {
        size_t index = 0;
        uint32_t bucket = 0;
        sc_code rc = sc_cohort_select(doc, "fuzz-install", &index, &bucket, &err);
        if (rc != SC_OK && rc != SC_E_NO_RELEASE_FOR_COHORT)
            abort();
        if (bucket >= SC_COHORT_BUCKETS ||
            (rc == SC_OK && index >= sc_json_get(doc, "releases")->length))
            abort();
    }
    if (type == SC_DOC_REVOCATIONS) {
        /* the revocations document against itself: no release members */
        if (sc_revocation_check(doc, doc, &err) != SC_OK)
            abort();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *bytes = (const char *)data;
    sc_json *doc = NULL;
    sc_error err;
    sc_manifest_info any, info;

    sc_json *box = NULL;
    sc_code rc = sc_manifest_read_box_json(bytes, size, &box, NULL, &err);
    if (rc != err.code || (rc == SC_OK) != (box != NULL))
        abort();
    sc_json_free(box);

    if (sc_json_parse(bytes, size, &doc, &err) != SC_OK)
        return 0;
    sc_code any_rc = sc_manifest_check(doc, SC_DOC_ANY, &any, &err);
    if (any_rc != err.code)
        abort();
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++) {
        rc = sc_manifest_check(doc, types[i], &info, &err);
        if (rc != err.code || rc == SC_E_INTERNAL)
            abort();
        if (rc == SC_OK) {
            if (info.type != (types[i] == SC_DOC_ANY ? any.type : types[i]))
                abort();
            after_check(doc, info.type);
        }
    }
    if (any_rc == SC_OK) {
        if (sc_manifest_check(doc, any.type, &info, &err) != SC_OK ||
            memcmp(&any, &info, sizeof any) != 0)
            abort();
    }
    sc_json_free(doc);
    return 0;
}
