/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cmd_cache.c — scrollcase cache ls and cache gc: printing only; the asset
 * cache is libscrollcase's (cache.h).
 */
#include "commands.h"

#include "args.h"

#include <stdio.h>
#include <stdlib.h>

#include "scrollcase/cache.h"
#include "scrollcase/progress.h"

static int cache_dir(char **dir)
{
    sc_error err;
    if (sc_cache_dir(dir, &err) != SC_OK)
        return sc_cli_report(&err);
    if (*dir == NULL) {
        sc_error_set(&err, SC_E_USAGE, NULL,
                     "no asset cache: neither SCROLLCASE_CACHE nor HOME is set");
        return sc_cli_report(&err);
    }
    return 0;
}

static int cmd_cache_ls(sc_cli_args *a)
{
    (void)a;
    char *dir = NULL;
    int rc = cache_dir(&dir);
    if (rc != 0)
        return rc;
    sc_cache_entry *e = NULL;
    size_t n = 0;
    sc_error err;
    if (sc_cache_list(dir, &e, &n, &err) != SC_OK) {
        free(dir);
        return sc_cli_report(&err);
    }
    uint64_t total = 0;
    for (size_t i = 0; i < n; i++)
        total += e[i].size;
    if (sc_cli_json()) {
        sc_json *o = sc_json_new_object(), *list = sc_json_new_array();
        int bad = o == NULL || list == NULL;
        for (size_t i = 0; !bad && i < n; i++) {
            sc_json *x = sc_json_new_object();
            bad |= x == NULL || sc_json_object_append(x, "name", sc_json_new_string(e[i].name)) ||
                   sc_json_object_append(x, "sizeBytes", sc_json_new_number((double)e[i].size)) ||
                   sc_json_object_append(x, "partial", sc_json_new_bool(e[i].partial)) ||
                   sc_json_array_append(list, x);
        }
        bad |= o == NULL || sc_json_object_append(o, "cacheDir", sc_json_new_string(dir)) ||
               sc_json_object_append(o, "entries", list) ||
               sc_json_object_append(o, "totalSizeBytes", sc_json_new_number((double)total));
        if (bad) {
            sc_json_free(o);
            o = NULL;
        }
        rc = sc_cli_print_json(o);
    } else {
        for (size_t i = 0; i < n; i++) {
            char size[64];
            sc_progress_human_size(e[i].size, size, sizeof size);
            printf("%s  %s%s\n", e[i].name, size, e[i].partial ? " (partial: resumed by the next build)" : "");
        }
        char t[64];
        sc_progress_human_size(total, t, sizeof t);
        printf("%zu entr%s, %s in %s\n", n, n == 1 ? "y" : "ies", t, dir);
    }
    free(e);
    free(dir);
    return rc;
}

static int cmd_cache_gc(sc_cli_args *a)
{
    (void)a;
    char *dir = NULL;
    int rc = cache_dir(&dir);
    if (rc != 0)
        return rc;
    size_t removed = 0;
    uint64_t freed = 0;
    sc_error err;
    if (sc_cache_gc(dir, &removed, &freed, &err) != SC_OK) {
        free(dir);
        return sc_cli_report(&err);
    }
    if (sc_cli_json()) {
        sc_json *o = sc_json_new_object();
        if (o != NULL && (sc_json_object_append(o, "cacheDir", sc_json_new_string(dir)) ||
                          sc_json_object_append(o, "removed", sc_json_new_number((double)removed)) ||
                          sc_json_object_append(o, "freedBytes", sc_json_new_number((double)freed)))) {
            sc_json_free(o);
            o = NULL;
        }
        rc = sc_cli_print_json(o);
    } else {
        char f[64];
        sc_progress_human_size(freed, f, sizeof f);
        printf("removed %zu file(s), %s, from %s\n", removed, f, dir);
    }
    free(dir);
    return rc;
}

const sc_cli_command sc_cli_cache_commands[] = {
    {"cache ls", "publisher", "the assets in the asset cache",
     "Lists the asset cache ($SCROLLCASE_CACHE, else ~/.cache/scrollcase/assets):\n"
     "each <sha256> entry with its size, and each <sha256>.part a build left to\n"
     "resume.  Builds read the cache before the network; build --offline reads\n"
     "nothing else.\n",
     NULL, SC_CLI_OPTIONS({OPT_JSON, NULL}), NULL, 0, cmd_cache_ls, NULL},
    {"cache gc", "publisher", "remove partial and damaged entries from the asset cache",
     "Removes every .part, every entry whose SHA-256 is not its name, and any\n"
     "other file in the cache directory; verified entries stay.\n",
     NULL, SC_CLI_OPTIONS({OPT_JSON, NULL}), NULL, 0, cmd_cache_gc, NULL},
    SC_CLI_END,
};
