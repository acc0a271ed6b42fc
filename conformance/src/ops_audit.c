/*
 * ops_audit.c — the adapter's audit operations (conformance/README.md 3.4).
 */
#include "adapter.h"

const ad_op ad_ops_audit[] = {
    {NULL, NULL},
};
