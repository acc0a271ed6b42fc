/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cmd_cache.c — scrollcase cache ls and scrollcase cache gc: the asset
 * cache (asset_cache.h).  Argument parsing and printing only.
 */
#include "commands.h"

#include "args.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "scrollcase/asset_cache.h"
#include "scrollcase/error.h"
#include "scrollcase/json.h"
#include "scrollcase/progress.h"

static unsigned long long u64(const sc_json *o, const char *k)
{
    uint64_t v = 0;
    return sc_json_uint53(sc_json_get(o, k), &v) ? (unsigned long long)v : 0ull;
}

/* The body of cmd: the cache directory, then fn over it. */
static int run_cache(sc_cli_args *a, sc_code (*fn)(const char *, sc_json **, sc_error *),
                     sc_json **out)
{
    (void)a;
    sc_error err;
    char *dir = NULL;
    if (sc_asset_cache_dir(&dir, &err) != SC_OK)
        return sc_cli_report(&err);
    sc_code c = fn(dir, out, &err);
    free(dir);
    if (c != SC_OK)
        return sc_cli_report(&err);
    return 0;
}

static int cmd_cache_ls(sc_cli_args *a)
{
    sc_json *o = NULL;
    int rc = run_cache(a, sc_asset_cache_list, &o);
    if (rc != 0)
        return rc;
    if (sc_cli_json())
        return sc_cli_print_json(o);
    const sc_json *entries = sc_json_get(o, "entries");
    char size[64];
    sc_progress_human_size(u64(o, "totalBytes"), size, sizeof size);
    printf("asset cache %s: %zu file(s), %s\n", sc_json_cstr(sc_json_get(o, "directory")),
           entries->length, size);
    for (const sc_json *e = entries->child; e != NULL; e = e->next) {
        sc_progress_human_size(u64(e, "sizeBytes"), size, sizeof size);
        printf("  %s %s%s\n", sc_json_cstr(sc_json_get(e, "sha256")), size,
               sc_json_get(e, "partial")->boolean ? "  (partial download)" : "");
    }
    sc_json_free(o);
    return fflush(stdout) == 0 ? 0 : EXIT_REJECTED;
}

static int cmd_cache_gc(sc_cli_args *a)
{
    sc_json *o = NULL;
    int rc = run_cache(a, sc_asset_cache_gc, &o);
    if (rc != 0)
        return rc;
    if (sc_cli_json())
        return sc_cli_print_json(o);
    const sc_json *removed = sc_json_get(o, "removed");
    char size[64];
    for (const sc_json *e = removed->child; e != NULL; e = e->next) {
        sc_progress_human_size(u64(e, "sizeBytes"), size, sizeof size);
        printf("removed %s (%s): %s\n", sc_json_cstr(sc_json_get(e, "name")),
               sc_json_cstr(sc_json_get(e, "reason")), size);
    }
    sc_progress_human_size(u64(o, "freedBytes"), size, sizeof size);
    printf("asset cache %s: %zu removed, %s freed, %llu kept\n",
           sc_json_cstr(sc_json_get(o, "directory")), removed->length, size, u64(o, "kept"));
    sc_json_free(o);
    return fflush(stdout) == 0 ? 0 : EXIT_REJECTED;
}

const sc_cli_command sc_cli_cache_commands[] = {
    {"cache ls", "publisher", "list the asset cache",
     "Lists the asset cache ($SCROLLCASE_CACHE, else ~/.cache/scrollcase/assets):\n"
     "every file named by a SHA-256 with its size, partial downloads (.part,\n"
     "resumed by the next build) marked.  Nothing is hashed or changed.\n"
     "--json prints one document (docs/schema/cli/cache-ls.schema.json).\n",
     NULL, SC_CLI_OPTIONS({OPT_JSON, NULL}), NULL, 0, cmd_cache_ls, NULL},
    {"cache gc", "publisher", "remove what the asset cache cannot use",
     "Removes from the asset cache the partial downloads (.part), every entry\n"
     "whose bytes no longer hash to its name (each is hashed), and anything\n"
     "else that is not an entry.  Entries that verify are kept.  --json prints\n"
     "one document (docs/schema/cli/cache-gc.schema.json).\n",
     NULL, SC_CLI_OPTIONS({OPT_JSON, NULL}), NULL, 0, cmd_cache_gc, NULL},
    SC_CLI_END,
};
