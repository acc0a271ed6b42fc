/* SPDX-License-Identifier: Apache-2.0 */
/*
 * protocol.c — see protocol.h.  A new operation or feature tag is added
 * here, in case.schema.json (the operation enum) and in README section 3;
 * the self-test protocol-names checks that the first two agree.
 */
#include "protocol.h"

#include <string.h>

const char *const sc_proto_operations[] = {
    "address",
    "agreement",
    "archive-inspect",
    "archive-write",
    "audit-cuda",
    "box-attach",
    "box-prepare",
    "box-run",
    "box-run-temporary",
    "box-verify",
    "channel-release",
    "cohort",
    "compat",
    "config-check",
    "document-verify",
    "json-read",
    "keygen",
    "manifest-check",
    "parity-compare",
    "payload-digest",
    "payload-list-parse",
    "payload-verify",
    "revocation-check",
    "scroll-migrate",
    "scroll-resolve",
    "target-id",
    "trust-read",
    NULL,
};

const char *const sc_proto_features[] = {
    "host-linux-x86_64",
    "posix-processes",
    "python3-recorder",
    "symlinks",
    NULL,
};

static int in_list(const char *name, const char *const *list)
{
    for (size_t i = 0; list[i] != NULL; i++)
        if (strcmp(list[i], name) == 0)
            return 1;
    return 0;
}

static int is_extension(const char *name)
{
    size_t n = strlen(SC_PROTO_EXTENSION_PREFIX);
    return strncmp(name, SC_PROTO_EXTENSION_PREFIX, n) == 0 && name[n] != '\0';
}

int sc_proto_operation_known(const char *name)
{
    return in_list(name, sc_proto_operations) || is_extension(name);
}

int sc_proto_feature_known(const char *name)
{
    return in_list(name, sc_proto_features) || is_extension(name);
}

/* Levenshtein distance, capped: names are short. */
static size_t distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 63 || lb > 63)
        return 64;
    size_t row[64];
    for (size_t j = 0; j <= lb; j++)
        row[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t up = row[j];
            size_t best = diag + (a[i - 1] == b[j - 1] ? 0 : 1);
            if (up + 1 < best)
                best = up + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[lb];
}

const char *sc_proto_suggest(const char *name, const char *const *known)
{
    const char *best = NULL;
    size_t best_d = 4;
    for (size_t i = 0; known[i] != NULL; i++) {
        size_t d = distance(name, known[i]);
        if (d < best_d) {
            best_d = d;
            best = known[i];
        }
    }
    return best;
}
