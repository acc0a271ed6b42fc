/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_scroll.c — the scroll reader from memory: parse, version, base, join,
 * schema, defaults and every later check (sc_scroll_resolve).
 *
 * Input: the scroll's bytes, then optionally the separator "\n\0\0\n" and the
 * base's bytes.  The layout check runs against fixed directory names.
 * Checked: no crash, no leak; an accepted scroll's effective form is written
 * deterministically (twice, same bytes) and resolving it again as a whole
 * scroll gives the same effective scroll.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "scrollcase/scroll.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char separator[4] = {'\n', '\0', '\0', '\n'};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *bytes = (const char *)data;
    size_t flen = size;
    const char *base = NULL;
    size_t blen = 0;
    for (size_t i = 0; i + 4 <= size; i++)
        if (memcmp(bytes + i, separator, 4) == 0) {
            flen = i;
            base = bytes + i + 4;
            blen = size - i - 4;
            break;
        }
    sc_scroll_source fs = {bytes, flen, "fuzz/scroll.json"};
    sc_scroll_source bs = {base, blen, "fuzz/base.json"};
    sc_scroll *s = NULL;
    sc_error err;
    if (sc_scroll_resolve(&fs, &bs, NULL, NULL, &s, &err) != SC_OK)
        return 0;
    char *a = NULL, *b = NULL;
    size_t alen = 0, blen2 = 0;
    if (sc_json_write(s->effective, &a, &alen, &err) != SC_OK ||
        sc_json_write(s->effective, &b, &blen2, &err) != SC_OK)
        abort();
    if (alen != blen2 || memcmp(a, b, alen) != 0)
        abort();
    /* The effective scroll is a whole scroll: resolving it is a fixed point. */
    sc_scroll_source again = {a, alen, "fuzz/effective.json"};
    sc_scroll *s2 = NULL;
    if (sc_scroll_resolve(&again, NULL, NULL, NULL, &s2, &err) != SC_OK)
        abort();
    if (!sc_json_equal(s->effective, s2->effective))
        abort();
    sc_scroll_free(s2);
    free(a);
    free(b);
    sc_scroll_free(s);
    return 0;
}
