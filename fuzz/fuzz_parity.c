/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_parity.c — the parity values reader (docs/format-v3.md 17.1) and the
 * host-facts reader (18.1), which read more than the strict JSON reader
 * does (bit patterns, shapes, major.minor versions).
 *
 * Input: one document's bytes, read both as a values document and as host
 * facts.  Checked: no crash, no leak; only the codes of those readers; an
 * accepted vector is non-empty and finite and measures against itself as
 * zero error with cosine similarity 1 (to rounding); accepted host facts
 * written back (sc_host_facts_json) read again as the same facts and give a
 * verdict on a fixed release without failing.
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "scrollcase/compat.h"
#include "scrollcase/json.h"
#include "scrollcase/parity.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void values(const char *bytes, size_t size)
{
    sc_parity_values v;
    sc_error err;
    sc_code c = sc_parity_values_parse(bytes, size, "fuzz", &v, &err);
    if (c != SC_OK) {
        if (c != SC_E_INVALID_JSON && c != SC_E_INVALID_PARITY_VALUES &&
            c != SC_E_PARITY_NON_FINITE && c != SC_E_OUT_OF_MEMORY)
            abort();
        if (v.values != NULL)
            abort();
        return;
    }
    if (v.count == 0)
        abort();
    for (size_t i = 0; i < v.count; i++)
        if (!isfinite(v.values[i]))
            abort();
    sc_parity_measurement m;
    if (sc_parity_measure(&v, &v, &m, &err) != SC_OK || m.maximum_absolute_error != 0 ||
        m.maximum_relative_error != 0 || !(m.cosine_similarity > 0.999999) ||
        m.value_count != v.count)
        abort();
    sc_parity_values_free(&v);
}

static void host(const char *bytes, size_t size)
{
    sc_json *doc = NULL;
    sc_error err;
    if (sc_json_parse(bytes, size, &doc, &err) != SC_OK)
        return;
    sc_host_facts h;
    sc_code c = sc_host_facts_from_json(doc, &h, &err);
    sc_json_free(doc);
    if (c != SC_OK) {
        if (c != SC_E_INVALID_HOST_FACTS && c != SC_E_OUT_OF_MEMORY)
            abort();
        return;
    }
    sc_json *back = sc_host_facts_json(&h);
    if (back == NULL)
        abort();
    sc_host_facts again;
    if (sc_host_facts_from_json(back, &again, &err) != SC_OK)
        abort();
    sc_json *twice = sc_host_facts_json(&again);
    if (twice == NULL || !sc_json_equal(back, twice))
        abort();
    static const char release[] =
        "{\"schemaVersion\": 3, \"kind\": \"scrollcase.box.release\", \"boxId\": \"demo\","
        " \"modelId\": \"m\", \"runtimeId\": \"r\", \"version\": \"1\","
        " \"target\": {\"platform\": \"linux\", \"arch\": \"x86_64\", \"accelerator\": \"cuda\","
        " \"cudaVersion\": \"12.4\"}, \"compatibility\": {\"minHostAppVersion\": \"1.0\","
        " \"minNvidiaDriverVersion\": \"550\", \"minRamGb\": 8, \"hostEnvironments\": [\"native\"],"
        " \"x.y\": 1},"
        " \"archive\": {\"format\": \"zip\", \"url\": \"u\", \"sha256\":"
        " \"0000000000000000000000000000000000000000000000000000000000000000\", \"sizeBytes\": 1},"
        " \"installedSizeBytes\": 1, \"payloadDigest\": {\"format\": \"sha256-path-list-v1\","
        " \"sha256\": \"0000000000000000000000000000000000000000000000000000000000000000\"},"
        " \"pythonEntryPoint\": \"venv/bin/python\", \"modelCacheSubdir\": \"m\","
        " \"selfTest\": {\"pythonImports\": [\"m\"], \"timeoutSeconds\": 1},"
        " \"provenance\": {\"scrollId\": \"s\", \"scrollVersion\": \"1\", \"builderRevision\":"
        " \"0000000000000000000000000000000000000000\", \"sourceTreeDirty\": false,"
        " \"sourceRevision\": \"s\", \"pythonVersion\": \"3\", \"environment\": {\"source\":"
        " \"prefix\", \"prefixDigest\":"
        " \"0000000000000000000000000000000000000000000000000000000000000000\"},"
        " \"builder\": {\"name\": \"b\", \"version\": \"1\"}, \"builtAt\": \"2026-01-01T00:00:00Z\"}}";
    sc_json *rel = NULL;
    if (sc_json_parse(release, sizeof release - 1, &rel, &err) != SC_OK)
        abort();
    sc_compat_result res;
    if (sc_compat_evaluate(rel, &h, &res, &err) != SC_OK || res.verdict != SC_COMPAT_REFUSED)
        abort(); /* x.y can never be evaluated */
    sc_compat_result_free(&res);
    sc_json_free(rel);
    sc_json_free(twice);
    sc_json_free(back);
    sc_host_facts_free(&again);
    sc_host_facts_free(&h);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    values((const char *)data, size);
    host((const char *)data, size);
    return 0;
}
