/*
 * ops_archive_write.c — the adapter's archive-write operations (conformance/README.md 3.4).
 */
#include "adapter.h"

const ad_op ad_ops_archive_write[] = {
    {NULL, NULL},
};
