/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_json.c — the JSON reader and writer against arbitrary bytes.
 *
 * Checks, aborting on any breach:
 *  - parsing either succeeds or fails with SC_E_INVALID_JSON (or
 *    SC_E_OUT_OF_MEMORY) and a one-line message naming a byte offset;
 *  - a parsed tree writes (pretty and compact) without error;
 *  - the written text parses again to a tree sc_json_equal to the first;
 *  - writing that second tree gives identical bytes (the writer is a fixed
 *    point after one round);
 *  - the one specified exception: a tree holding an integral number of
 *    magnitude 2^53..1e21 is written as plain digits (Number::toString),
 *    which the reader refuses as an integer literal beyond 2^53-1; then the
 *    re-read must fail with exactly that complaint;
 *  - every string and key in a parsed tree is valid UTF-8.
 */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scrollcase/json.h"
#include "scrollcase/path.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(int ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "fuzz_json: %s\n", what);
        abort();
    }
}

static void check_utf8(const sc_json *v)
{
    for (; v != NULL; v = v->next) {
        if (v->key != NULL)
            check(sc_utf8_valid(v->key, v->key_length), "key is not UTF-8");
        if (v->type == SC_JSON_STRING)
            check(sc_utf8_valid(v->string, v->length), "string is not UTF-8");
        check_utf8(v->child);
    }
}

/* 1 if the tree holds a number Number::toString writes as an integer
 * literal the reader refuses (integral, 2^53 <= |x| < 1e21). */
static int has_unreadable_integer(const sc_json *v)
{
    for (; v != NULL; v = v->next) {
        if (v->type == SC_JSON_NUMBER) {
            double a = v->number < 0 ? -v->number : v->number;
            if (a >= 9007199254740992.0 && a < 1e21)
                return 1;
        }
        if (has_unreadable_integer(v->child))
            return 1;
    }
    return 0;
}

static void round_trip(const sc_json *tree, int pretty)
{
    sc_error err;
    char *text = NULL, *again = NULL;
    size_t len = 0, len2 = 0;
    sc_json *reread = NULL;

    sc_code rc = pretty ? sc_json_write(tree, &text, &len, &err)
                        : sc_json_write_compact(tree, &text, &len, &err);
    check(rc == SC_OK, "writing a parsed tree failed");
    check(strlen(text) <= len && text[len] == '\0', "written text not terminated");
    check(!pretty || (len > 0 && text[len - 1] == '\n'), "pretty text lacks final LF");
    check(pretty || memchr(text, '\n', len) == NULL, "compact text has a LF");

    rc = sc_json_parse(text, len, &reread, &err);
    if (rc != SC_OK && has_unreadable_integer(tree)) {
        check(rc == SC_E_INVALID_JSON && strstr(err.message, "exceeds 2^53-1") != NULL,
              "re-read of a big integral number failed for another reason");
        free(text);
        return;
    }
    if (rc != SC_OK)
        fprintf(stderr, "fuzz_json: re-read: %s\n", err.message);
    check(rc == SC_OK, "written text does not parse");
    check(sc_json_equal(tree, reread), "re-read tree differs");
    check(sc_json_equal(reread, tree), "sc_json_equal is not symmetric");

    rc = pretty ? sc_json_write(reread, &again, &len2, &err)
                : sc_json_write_compact(reread, &again, &len2, &err);
    check(rc == SC_OK, "writing the re-read tree failed");
    check(len == len2 && memcmp(text, again, len) == 0,
          "writing is not a fixed point");

    sc_json *copy = sc_json_copy(reread);
    check(copy != NULL && sc_json_equal(copy, tree), "copy differs");
    sc_json_free(copy);

    free(text);
    free(again);
    sc_json_free(reread);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sc_error err;
    sc_json *tree = NULL;
    sc_code rc = sc_json_parse((const char *)data, size, &tree, &err);
    if (rc != SC_OK) {
        check(tree == NULL, "failed parse left a tree");
        check(rc == SC_E_INVALID_JSON || rc == SC_E_OUT_OF_MEMORY,
              "parse failed with an unexpected code");
        check(err.code == rc, "err.code differs from the return");
        check(strchr(err.message, '\n') == NULL, "message is not one line");
        if (rc == SC_E_INVALID_JSON) {
            check(strncmp(err.message, "invalid-json at byte ", 21) == 0,
                  "message does not name a byte offset");
            check(strtoull(err.message + 21, NULL, 10) <= size,
                  "byte offset beyond the input");
        }
        return 0;
    }
    check(tree != NULL, "successful parse without a tree");
    check(sc_json_equal(tree, tree), "tree not equal to itself");
    check_utf8(tree);
    round_trip(tree, 1);
    round_trip(tree, 0);
    sc_json_free(tree);
    return 0;
}
