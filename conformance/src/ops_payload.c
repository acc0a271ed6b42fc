/*
 * ops_payload.c — the adapter's payload operations (conformance/README.md 3.4).
 */
#include "adapter.h"

const ad_op ad_ops_payload[] = {
    {NULL, NULL},
};
