/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cmd_parity.c — scrollcase parity compare, gpu probe and compat.
 *
 * Argument parsing and printing only: the comparison, the probe and the
 * verdicts are libscrollcase's (parity.h, gpu_probe.h, compat.h).  Exit
 * status: parity and gpu as everywhere (0 success, 1 a rejection, 2 a
 * usage error); compat has its own (0 supported, 2 refused, 3 supported
 * pending a device probe, 1 unusable input — a usage error included).
 */
#include "commands.h"

#include "args.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scrollcase/compat.h"
#include "scrollcase/envelope.h"
#include "scrollcase/error.h"
#include "scrollcase/gpu_probe.h"
#include "scrollcase/json.h"
#include "scrollcase/progress.h"
#include "scrollcase/manifest.h"
#include "scrollcase/parity.h"

#define COMPAT_SUPPORTED 0
#define COMPAT_UNUSABLE 1
#define COMPAT_REFUSED 2
#define COMPAT_PENDING 3

/* ---- parity compare ------------------------------------------------------ */

static int tolerance_option(const sc_cli_args *a, sc_cli_opt bit, const char *name, int *has,
                            double *value, sc_error *err)
{
    const char *text = sc_cli_value(a, bit);
    if (text == NULL)
        return 0;
    *has = 1;
    return sc_parity_tolerance_parse(text, name, value, err) != SC_OK;
}

static int cmd_parity(sc_cli_args *a)
{
    if (a->npositional < 1 || strcmp(a->positional[0], "compare") != 0)
        return sc_cli_usage_error("%s", "parity takes the subcommand compare");
    if (a->npositional != 3)
        return sc_cli_usage_error("%s", "parity compare takes REFERENCE and CANDIDATE");
    sc_parity_tolerances t;
    memset(&t, 0, sizeof t);
    sc_error err;
    if (tolerance_option(a, OPT_ABSOLUTE, "--absolute", &t.has_absolute, &t.absolute, &err) ||
        tolerance_option(a, OPT_RELATIVE, "--relative", &t.has_relative, &t.relative, &err) ||
        tolerance_option(a, OPT_MIN_COSINE, "--minimum-cosine", &t.has_minimum_cosine,
                         &t.minimum_cosine, &err) ||
        sc_parity_tolerances_check(&t, &err) != SC_OK)
        return sc_cli_report(&err);
    sc_parity_values ref = {NULL, 0}, cand = {NULL, 0};
    sc_parity_measurement m;
    sc_code c = sc_parity_values_read_file(a->positional[1], &ref, &err);
    if (c == SC_OK)
        c = sc_parity_values_read_file(a->positional[2], &cand, &err);
    if (c == SC_OK)
        c = sc_parity_compare(&ref, &cand, &t, "reference", "candidate", &m, &err);
    sc_parity_values_free(&ref);
    sc_parity_values_free(&cand);
    /* a breach was measured: its measurements are printed as a pass's are */
    int measured = c == SC_OK || c == SC_E_PARITY_BREACH;
    if (c != SC_OK && !measured)
        return sc_cli_report(&err);
    if (sc_cli_has(a, OPT_JSON))
        return c == SC_OK ? sc_cli_print_json(sc_parity_measurement_json(&m))
                          : sc_cli_fail_json(sc_parity_measurement_json(&m), &err);
    char x[32], y[32], z[32];
    sc_json_format_number(m.maximum_absolute_error, x, sizeof x);
    sc_json_format_number(m.maximum_relative_error, y, sizeof y);
    sc_json_format_number(m.cosine_similarity, z, sizeof z);
    printf("parity %s: %zu values, maximum absolute error %s, maximum relative error %s, "
           "cosine similarity %s\n",
           c == SC_OK ? "passed" : "breached", m.value_count, x, y, z);
    return c == SC_OK ? 0 : sc_cli_report(&err);
}

/* ---- gpu probe ----------------------------------------------------------- */

static sc_gpu_probe_options probe_options(void)
{
    sc_gpu_probe_options o = {getenv("SCROLLCASE_LIBCUDA"), getenv("SCROLLCASE_LIBNVML")};
    if (o.cuda_library != NULL && o.cuda_library[0] == '\0')
        o.cuda_library = NULL;
    if (o.nvml_library != NULL && o.nvml_library[0] == '\0')
        o.nvml_library = NULL;
    return o;
}

static int cmd_gpu(sc_cli_args *a)
{
    if (a->npositional < 1 || strcmp(a->positional[0], "probe") != 0)
        return sc_cli_usage_error("%s", "gpu takes the subcommand probe");
    if (a->npositional != 1)
        return sc_cli_usage_error("unexpected argument %s", a->positional[1]);
    sc_gpu_probe_options o = probe_options();
    sc_gpu_facts f;
    sc_error err;
    sc_code c = sc_gpu_probe(&o, &f, &err);
    int rc = 0;
    if (c == SC_E_OUT_OF_MEMORY) {
        rc = sc_cli_report(&err);
    } else if (sc_cli_has(a, OPT_JSON)) {
        /* the facts whatever the answer: {"gpu": {...}}, with the error on a failure */
        sc_json *body = sc_json_new_object();
        if (body != NULL && sc_json_object_append(body, "gpu", sc_gpu_facts_json(&f)) != 0) {
            sc_json_free(body);
            body = NULL;
        }
        rc = c == SC_OK ? sc_cli_print_json(body) : sc_cli_fail_json(body, &err);
    } else if (c != SC_OK) {
        rc = sc_cli_report(&err);
    } else {
        char cv[32];
        snprintf(cv, sizeof cv, "%d.%d", f.cuda_version / 1000, (f.cuda_version % 1000) / 10);
        printf("driver %s, CUDA %s, %zu GPU(s)\n",
               f.driver_version[0] != '\0' ? f.driver_version : "(version unknown)", cv,
               f.device_count);
        for (size_t i = 0; i < f.device_count; i++) {
            char size[64];
            sc_progress_human_size(f.devices[i].memory_bytes, size, sizeof size);
            printf("  %zu: %s, compute capability %d.%d, %s\n", i, f.devices[i].name,
                   f.devices[i].cc_major, f.devices[i].cc_minor, size);
        }
    }
    sc_gpu_facts_free(&f);
    return rc;
}

/* ---- compat -------------------------------------------------------------- */

static int compat_unusable(const sc_error *err)
{
    sc_cli_report(err);
    return COMPAT_UNUSABLE;
}

static int cmd_compat(sc_cli_args *a)
{
    if (a->npositional != 1) {
        sc_cli_usage_error("%s", "compat takes one RELEASE");
        return COMPAT_UNUSABLE;
    }
    if (a->trust == NULL) {
        sc_cli_usage_error("%s", "compat needs --trust TRUSTFILE (the release is verified)");
        return COMPAT_UNUSABLE;
    }
    sc_error err;
    sc_verified_document doc;
    memset(&doc, 0, sizeof doc);
    if (sc_envelope_verify_file(a->trust, a->positional[0], SC_DOC_RELEASE, &doc, &err) !=
        SC_OK)
        return compat_unusable(&err);
    sc_host_facts h;
    const char *facts = sc_cli_value(a, OPT_HOST_FACTS);
    sc_code c;
    if (facts != NULL) {
        c = sc_host_facts_read_file(facts, &h, &err);
    } else {
        sc_gpu_probe_options o = probe_options();
        c = sc_host_facts_gather(&o, &h, &err);
    }
    if (c != SC_OK) {
        sc_verified_document_free(&doc);
        return compat_unusable(&err);
    }
    const char *app = sc_cli_value(a, OPT_HOST_APP_VERSION);
    sc_compat_result res;
    memset(&res, 0, sizeof res);
    c = app != NULL ? sc_host_facts_set_app_version(&h, app, &err) : SC_OK;
    if (c == SC_OK)
        c = sc_compat_evaluate(doc.payload, &h, &res, &err);
    sc_host_facts_free(&h);
    sc_verified_document_free(&doc);
    if (c != SC_OK)
        return compat_unusable(&err);
    int rc = res.verdict == SC_COMPAT_SUPPORTED ? COMPAT_SUPPORTED
             : res.verdict == SC_COMPAT_PENDING ? COMPAT_PENDING
                                                : COMPAT_REFUSED;
    sc_error refusal;
    int have_refusal = rc == COMPAT_REFUSED &&
                       sc_compat_refusal_error(&res, &refusal) == SC_E_HOST_INCOMPATIBLE;
    if (sc_cli_has(a, OPT_JSON)) {
        /* refused: ok false with the first refusal as the error; pending is not an error */
        int prc = have_refusal ? (sc_cli_fail_json(res.report, &refusal), 0)
                               : sc_cli_print_json(res.report);
        if (prc != 0)
            rc = COMPAT_UNUSABLE;
        res.report = NULL;
        have_refusal = 0; /* its line is printed */
    } else {
        printf("%s\n", sc_compat_verdict_name(res.verdict));
        const sc_json *lists[2] = {sc_json_get(res.report, "refusals"),
                                   sc_json_get(res.report, "pending")};
        for (int l = 0; l < 2; l++)
            for (const sc_json *x = lists[l] != NULL ? lists[l]->child : NULL; x != NULL;
                 x = x->next) {
                const sc_json *v = sc_json_get(x, "value");
                char value[128];
                if (l == 1 || v == NULL || v->type == SC_JSON_NULL)
                    snprintf(value, sizeof value, "%s", l == 1 ? "(not probed)" : "unknown");
                else if (v->type == SC_JSON_NUMBER)
                    sc_json_format_number(v->number, value, sizeof value);
                else
                    snprintf(value, sizeof value, "%s", sc_json_cstr(v));
                printf("  %s %s: %s is %s, required %s\n", l == 0 ? "refused" : "pending",
                       sc_json_cstr(sc_json_get(x, "constraint")),
                       sc_json_cstr(sc_json_get(x, "fact")), value,
                       sc_json_cstr(sc_json_get(x, "required")));
            }
        /* 18.3 row 11's notes: a GPU run through PTX, or one whose code the
         * record cannot show */
        const sc_json *notes = sc_json_get(res.report, "notes");
        for (const sc_json *x = notes != NULL ? notes->child : NULL; x != NULL; x = x->next) {
            const char *what = sc_json_cstr(sc_json_get(x, "note"));
            printf("  note %s: %s is %s: %s\n", sc_json_cstr(sc_json_get(x, "constraint")),
                   sc_json_cstr(sc_json_get(x, "fact")),
                   sc_json_cstr(sc_json_get(x, "value")),
                   strcmp(what, "compiles-ptx") == 0
                       ? "no cubin runs on it, so its first start compiles the box's PTX"
                       : "no code the audit saw runs on it; the box may carry code the "
                         "audit cannot see (opaque libraries or run-time compilation)");
        }
    }
    if (have_refusal)
        fprintf(stderr, "scrollcase: error[%s]: %s\n", sc_code_name(refusal.code),
                refusal.message);
    sc_compat_result_free(&res);
    return rc;
}

/* ---- the table ----------------------------------------------------------- */

const sc_cli_command sc_cli_parity_commands[] = {
    {"parity compare", "host", "compare two parity value vectors",
     "Compares two parity values documents (docs/format-v3.md 17): each a JSON\n"
     "array, or an object whose \"values\" member is one, of numbers or bit-pattern\n"
     "strings (\"0x\" and 8 lowercase hex digits for a float32, 16 for a float64).\n"
     "REFERENCE is the first accelerator's output.  Measures the maximum absolute\n"
     "error, the maximum relative error (zero references skipped) and the cosine\n"
     "similarity, and enforces every bound given (at least one; each a JSON\n"
     "number).  Prints the measurements (--json: as an object).  Exit 1 with\n"
     "parity-breach naming the first bound exceeded, parity-non-finite,\n"
     "parity-length-mismatch, invalid-parity-values or invalid-tolerance.\n",
     SC_CLI_OPERANDS({"REFERENCE", 1, 0, SC_COMPLETE_FILE}, {"CANDIDATE", 1, 0, SC_COMPLETE_FILE}),
     SC_CLI_OPTIONS({OPT_ABSOLUTE, NULL}, {OPT_RELATIVE, NULL}, {OPT_MIN_COSINE, NULL},
                    {OPT_JSON, NULL}),
     NULL, 0, cmd_parity, NULL},
    {"gpu probe", "host", "this host's NVIDIA driver and GPUs",
     "Reports this host's NVIDIA facts without linking the driver: it dlopens\n"
     "libcuda.so.1 and libnvidia-ml.so.1 (or the files named by the environment\n"
     "variables SCROLLCASE_LIBCUDA and SCROLLCASE_LIBNVML) and prints the driver\n"
     "version, the CUDA version the driver supports and every GPU (name, compute\n"
     "capability, memory).  --json prints the host-facts \"gpu\" object\n"
     "(docs/format-v3.md 18.1) whatever the answer.  A host without a usable GPU\n"
     "exits 1 with accelerator-unavailable and the reason (no-driver, no-device,\n"
     "init-failed, query-failed, symbol-missing).\n",
     NULL, SC_CLI_OPTIONS({OPT_JSON, NULL}), NULL, 0, cmd_gpu, NULL},
    {"compat", "consumer", "can this host run the release? (exit 0/2/3/1)",
     "Verifies the signed release RELEASE against TRUSTFILE (docs/format-v3.md\n"
     "9.2), then evaluates its target and compatibility constraints against this\n"
     "host (18.3): the host's facts are gathered live (uname, memory, the GPU\n"
     "probe), or read from FILE (18.1).  --host-app-version names the version of\n"
     "the application that will run the box.  Every constraint the host breaks or\n"
     "that cannot be evaluated is a refusal naming the fact, its value and the\n"
     "required range.  --json prints {verdict, refusals, pending}.\n"
     "\n"
     "Exit status: 0 supported; 2 refused (error[host-incompatible] names the\n"
     "first refusal); 3 supported pending a device probe that could not run;\n"
     "1 unusable input (the release, the trust file, the facts, the command\n"
     "line).\n",
     SC_CLI_OPERANDS({"RELEASE", 1, 0, SC_COMPLETE_FILE}),
     SC_CLI_OPTIONS({OPT_TRUST, NULL}, {OPT_HOST_APP_VERSION, NULL}, {OPT_HOST_FACTS, NULL},
                    {OPT_JSON, NULL}),
     NULL, COMPAT_UNUSABLE, cmd_compat, SC_CLI_ALIASES({"--public-key", OPT_TRUST})},
    SC_CLI_END,
};
