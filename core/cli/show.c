/* SPDX-License-Identifier: Apache-2.0 */
/*
 * show.c — a release's lines for people (show.h).
 */
#include "show.h"

#include <stdarg.h>
#include <stdio.h>

#include "scrollcase/progress.h"

void sc_cli_show_field(int width, const char *label, const char *fmt, ...)
{
    printf("  %-*s", width, label);
    va_list ap;
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    putchar('\n');
}

void sc_cli_show_signed_by(int width, const char *const *key_ids, size_t n)
{
    printf("  %-*s", width - 1, "signed by");
    for (size_t i = 0; i < n; i++)
        printf(" %s", key_ids[i]);
    putchar('\n');
}

void sc_cli_show_model(int width, const char *model_id, const char *runtime_id)
{
    sc_cli_show_field(width, "model", "%s (runtime %s)", model_id, runtime_id);
}

void sc_cli_show_receipt_box(const sc_receipt *r)
{
    sc_cli_show_field(SC_SHOW_RECEIPT_WIDTH, "box", "%s %s %s", r->box_id, r->version,
                      r->target_id);
}

void sc_cli_show_receipt_signed_by(const sc_receipt *r)
{
    sc_cli_show_signed_by(SC_SHOW_RECEIPT_WIDTH, (const char *const *)r->signing_key_ids,
                          r->signing_key_count);
}

void sc_cli_show_installed(const sc_receipt *r)
{
    char size[64];
    sc_progress_short_size(r->installed_size, size, sizeof size);
    sc_cli_show_field(SC_SHOW_RECEIPT_WIDTH, "installed", "%s", size);
}
