/* SPDX-License-Identifier: Apache-2.0 */
/*
 * show.h — the lines the scrollcase command prints about a release for
 * people: `prepare`, `attach` and `install` (the receipt) and `inspect`
 * (the release), so that the same fact is written the same way everywhere.
 *
 * Each line is "  <label><padding><value>\n": the label is padded to width
 * columns (11 in a receipt, 13 in inspect).  Printing only; the facts are
 * the library's (box.h receipts, inspect.h documents).
 */
#ifndef SC_CLI_SHOW_H
#define SC_CLI_SHOW_H

#include <stddef.h>
#include <stdint.h>

#include "scrollcase/box.h"

#define SC_SHOW_RECEIPT_WIDTH 11
#define SC_SHOW_INSPECT_WIDTH 13

/* "  <label padded to width><printf(fmt, ...)>\n" */
void sc_cli_show_field(int width, const char *label, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* "  signed by" padded to width - 1, then " <keyId>" for each key, "\n". */
void sc_cli_show_signed_by(int width, const char *const *key_ids, size_t n);

/* "  model" line: "<modelId> (runtime <runtimeId>)". */
void sc_cli_show_model(int width, const char *model_id, const char *runtime_id);

/*
 * A receipt's lines that prepare, attach and install share (width 11):
 * "box <boxId> <version> <targetId>", its signing keys, and "installed <N>
 * bytes"; each command prints its own lines between them.
 */
void sc_cli_show_receipt_box(const sc_receipt *r);
void sc_cli_show_receipt_signed_by(const sc_receipt *r);
void sc_cli_show_installed(const sc_receipt *r);

#endif
