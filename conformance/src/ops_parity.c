/*
 * ops_parity.c — the adapter's parity operations (conformance/README.md 3.4).
 */
#include "adapter.h"

const ad_op ad_ops_parity[] = {
    {NULL, NULL},
};
