/*
 * ops_archive_read.c — the adapter's archive-read operations (conformance/README.md 3.4).
 */
#include "adapter.h"

const ad_op ad_ops_archive_read[] = {
    {NULL, NULL},
};
