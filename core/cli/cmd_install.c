/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cmd_install.c — scrollcase install: a box from where it is published, in
 * one command (install.h).  Argument parsing and printing only.
 */
#include "commands.h"

#include "args.h"
#include "progress.h"
#include "show.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scrollcase/box.h"
#include "scrollcase/error.h"
#include "scrollcase/install.h"
#include "scrollcase/json.h"
#include "scrollcase/progress.h"
#include "scrollcase/trust.h"

/* One download at a time (a document, then the archive): its events. */
typedef struct install_shown {
    sc_cli_progress shown;
    char what[1024];  /* the download the events are about */
    int finished;     /* its finished event was sent */
} install_shown;

static void download_progress(void *ctx, const char *what, uint64_t done, uint64_t total)
{
    install_shown *s = ctx;
    if (strcmp(s->what, what) != 0) {
        snprintf(s->what, sizeof s->what, "%s", what);
        s->finished = 0;
    }
    int finished = total > 0 && done == total;
    if (s->finished)
        return;
    s->finished = finished;
    sc_progress_event e = {"download", what, done, total, (uint64_t)finished, 1, finished, 0, 0,
                           NULL};
    sc_cli_progress_event(&s->shown, &e);
}

static int cmd_install(sc_cli_args *a)
{
    if (a->npositional != 2)
        return sc_cli_usage_error("%s", "install takes CHANNEL-URL|RELEASE-URL and DEST");
    if (a->trust == NULL)
        return sc_cli_usage_error("%s", "install needs --trust TRUSTFILE");
    sc_error err;
    sc_trust trust;
    memset(&trust, 0, sizeof trust);
    install_shown shown;
    memset(&shown, 0, sizeof shown);
    int prc = sc_cli_progress_open(&shown.shown, a);
    if (prc != 0)
        return prc;
    if (sc_trust_read_file(a->trust, &trust, &err) != SC_OK) {
        sc_cli_progress_close(&shown.shown);
        return sc_cli_report(&err);
    }
    sc_download_options d;
    memset(&d, 0, sizeof d);
    d.progress = download_progress;
    d.ctx = &shown;
    sc_box_options bo = {.progress = sc_cli_progress_event, .progress_ctx = &shown.shown};
    sc_install_options o;
    memset(&o, 0, sizeof o);
    o.url = a->positional[0];
    o.destination = a->positional[1];
    o.trust = &trust;
    o.install_id = a->install_id;
    o.tmpdir = sc_cli_value(a, OPT_TMPDIR);
    o.download = &d;
    o.box = &bo;
    sc_install_result r;
    sc_code c = sc_install(&o, &r, &err);
    sc_cli_progress_close(&shown.shown);
    sc_trust_free(&trust);
    int rc = 0;
    if (c != SC_OK) {
        rc = sc_cli_report(&err);
    } else if (sc_cli_json()) {
        sc_json *j = sc_receipt_to_json(&r.receipt);
        int bad = j == NULL;
        bad |= j && sc_json_object_append(j, "channelUrl", r.channel_url
                                                               ? sc_json_new_string(r.channel_url)
                                                               : sc_json_new_null());
        bad |= j && sc_json_object_append(j, "releaseUrl", sc_json_new_string(r.release_url));
        bad |= j && sc_json_object_append(j, "archiveUrl", sc_json_new_string(r.archive_url));
        bad |= j && sc_json_object_append(j, "archivePath", sc_json_new_string(r.archive_path));
        if (bad) {
            sc_json_free(j);
            j = NULL;
        }
        rc = sc_cli_print_json(j);
    } else {
        const sc_receipt *p = &r.receipt;
        printf("installed %s\n", p->root);
        sc_cli_show_receipt_box(p);
        if (r.channel_url != NULL)
            sc_cli_show_field(SC_SHOW_RECEIPT_WIDTH, "channel", "%s", r.channel_url);
        sc_cli_show_field(SC_SHOW_RECEIPT_WIDTH, "release", "%s", r.release_url);
        char size[64];
        sc_progress_short_size(p->archive_size, size, sizeof size);
        sc_cli_show_field(SC_SHOW_RECEIPT_WIDTH, "archive", "%s, %s, cached at %s", r.archive_url,
                          size, r.archive_path);
        sc_cli_show_receipt_signed_by(p);
        sc_cli_show_installed(p);
    }
    sc_install_result_free(&r);
    return rc;
}

const sc_cli_command sc_cli_install_commands[] = {
    {"install", "consumer", "fetch, verify and prepare a box from its channel or release URL",
     "A consumer's whole path in one command.  URL is a signed channel or a\n"
     "signed release over http or https.  A channel is verified against\n"
     "--trust and the release this install is served is picked from it\n"
     "(--install-id, docs/format-v3.md 12); the release is fetched from the URL\n"
     "the channel names and verified; its archive is downloaded into the asset\n"
     "cache ($SCROLLCASE_CACHE, else ~/.cache/scrollcase/assets) with the size and\n"
     "SHA-256 the release pins (resumed from a .part there, retried on network\n"
     "errors and 5xx, reused by a later install), then verified and extracted\n"
     "to DEST as `prepare` does (DEST must not exist).  A relative\n"
     "releaseManifestUrl or archive.url is taken against the URL of the\n"
     "document naming it.  Prints the receipt; --json prints it as an object\n"
     "(docs/schema/cli/install.schema.json).\n",
     SC_CLI_OPERANDS({"URL", 1, 0, SC_COMPLETE_NONE}, {"DEST", 1, 0, SC_COMPLETE_DIRECTORY}),
     SC_CLI_OPTIONS({OPT_TRUST, NULL}, {OPT_INSTALL_ID, "this install's id (a channel's cohort selection)"},
                    {OPT_TMPDIR, NULL}, {OPT_JSON, NULL}, {OPT_QUIET, NULL},
                    {OPT_PROGRESS_FD, NULL}),
     NULL, 0, cmd_install, NULL},
    SC_CLI_END,
};
