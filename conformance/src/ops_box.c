/*
 * ops_box.c — the adapter's box operations (conformance/README.md 3.4).
 */
#include "adapter.h"

const ad_op ad_ops_box[] = {
    {NULL, NULL},
};
