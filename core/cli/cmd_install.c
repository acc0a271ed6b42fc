/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cmd_install.c — scrollcase install: printing only; the path from a URL to
 * a prepared box is libscrollcase's (install.h).
 */
#include "commands.h"

#include "args.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scrollcase/box.h"
#include "scrollcase/config.h"
#include "scrollcase/install.h"
#include "scrollcase/keys.h"

static int cmd_install(sc_cli_args *a)
{
    sc_error err;
    char *trust = NULL;
    if (a->trust != NULL) {
        trust = strdup(a->trust);
    } else { /* as verify and run: the workspace's public key */
        sc_workspace ws;
        sc_key_paths kp = {NULL, NULL};
        if (sc_workspace_resolve(&a->ws, &ws, &err) != SC_OK)
            return sc_cli_report(&err);
        sc_code c = sc_key_paths_in(ws.paths[SC_WS_KEYS], &kp, &err);
        sc_workspace_free(&ws);
        if (c != SC_OK)
            return sc_cli_report(&err);
        trust = kp.public_path;
        kp.public_path = NULL;
        sc_key_paths_free(&kp);
    }
    if (trust == NULL) {
        sc_error_set(&err, SC_E_OUT_OF_MEMORY, NULL, "out of memory");
        return sc_cli_report(&err);
    }
    sc_install_options o;
    memset(&o, 0, sizeof o);
    o.url = a->positional[0];
    o.destination = a->positional[1];
    o.trust_path = trust;
    o.install_id = a->install_id;
    o.tmpdir = sc_cli_value(a, OPT_TMPDIR);
    o.offline = sc_cli_has(a, OPT_OFFLINE);
    sc_download_options d;
    memset(&d, 0, sizeof d);
    o.download = &d;
    sc_box_prepare_signal_cleanup();
    fprintf(stderr, "scrollcase: installing %s into %s\n", o.url, o.destination);
    sc_receipt r;
    char *release = NULL;
    int rc = 0;
    if (sc_install(&o, &r, &release, &err) != SC_OK) {
        rc = sc_cli_report(&err);
    } else if (sc_cli_json()) {
        sc_json *j = sc_receipt_to_json(&r);
        if (j != NULL && sc_json_object_append(j, "releaseUrl", sc_json_new_string(release)) != 0) {
            sc_json_free(j);
            j = NULL;
        }
        rc = sc_cli_print_json(j);
        sc_receipt_free(&r);
    } else {
        printf("installed %s %s %s into %s\n  release %s\n", r.box_id, r.version, r.target_id,
               r.root, release);
        sc_receipt_free(&r);
    }
    free(release);
    free(trust);
    return rc;
}

const sc_cli_command sc_cli_install_commands[] = {
    {"install", "consumer", "fetch, verify and prepare a box from its channel or release URL",
     "A consumer's whole path in one command.  URL (http:// or https://) is a\n"
     "signed channel or release document; it is fetched and verified against\n"
     "--trust (default: the workspace's <keys>/signing-public.json).  A channel\n"
     "picks the release this install is served (--install-id, format-v3 12),\n"
     "which is fetched and verified in turn.  The release's archive comes\n"
     "through the asset cache (resumed from its .part, size- and hash-checked\n"
     "as it streams; --offline: from the cache only), then it is verified and\n"
     "prepared into DEST exactly as `prepare` does.  Prints the receipt.\n",
     SC_CLI_OPERANDS({"URL", 1, 0, SC_COMPLETE_NONE}, {"DEST", 1, 0, SC_COMPLETE_DIRECTORY}),
     SC_CLI_OPTIONS({OPT_TRUST, "the trust file (default: the workspace's <keys>/signing-public.json)"},
                    {OPT_INSTALL_ID, "this install's cohort id (a channel needs one)"},
                    {OPT_OFFLINE, "take the archive from the asset cache only"},
                    {OPT_TMPDIR, "where the documents are fetched (default: $TMPDIR)"},
                    {OPT_JSON, NULL}),
     NULL, 0, cmd_install, SC_CLI_ALIASES({"--public-key", OPT_TRUST})},
    SC_CLI_END,
};
