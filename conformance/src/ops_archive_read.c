/* SPDX-License-Identifier: Apache-2.0 */
/*
 * ops_archive_read.c — the adapter's archive-read operations
 * (conformance/README.md 3.6.3).
 *
 * archive-inspect: open the `archive` input, extract it in full into a
 * fresh directory (under --work when given), and print its entries in
 * central-directory order: {"entries": [{"path", "type", "mode", "size",
 * "linkTarget"?}]}.  mode is the permission the extraction gives the entry
 * (files: the recorded bits or 0644; directories 0755; links the recorded
 * bits), as a four-digit octal string; size the declared size in decimal.
 */
#include "adapter.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "scrollcase/archive_read.h"
#include "util.h"

static sc_json *entry_json(const sc_zip_entry *e)
{
    static const char *const types[] = {"file", "directory", "link"};
    unsigned mode = e->mode;
    if (e->type == SC_ZIP_FILE && mode == 0)
        mode = 0644;
    else if (e->type == SC_ZIP_DIR)
        mode = 0755;
    char mbuf[16], sbuf[32];
    snprintf(mbuf, sizeof mbuf, "%04o", mode);
    snprintf(sbuf, sizeof sbuf, "%" PRIu64, e->size);
    sc_json *o = ad_must(sc_json_new_object());
    ad_put(o, "path", ad_must(sc_json_new_string_len(e->path, e->path_len)));
    ad_put(o, "type", ad_must(sc_json_new_string(types[e->type])));
    ad_put(o, "mode", ad_must(sc_json_new_string(mbuf)));
    ad_put(o, "size", ad_must(sc_json_new_string(sbuf)));
    if (e->type == SC_ZIP_LINK)
        ad_put(o, "linkTarget", ad_must(sc_json_new_string(e->link_target)));
    return o;
}

static int op_archive_inspect(kase *k, result *r)
{
    static const char *const names[] = {NULL};
    int rc = ad_args_known(k, names);
    if (rc != 0)
        return rc;
    char *path = NULL;
    const char *rel = NULL;
    rc = ad_input_path(k, "archive", &path, &rel);
    if (rc != 0)
        return rc;
    const char *t = getenv("TMPDIR");
    char *own = sc_xjoin(k->work ? k->work : (t && t[0] ? t : "/tmp"),
                         "scrollcase-extract-XXXXXX");
    if (mkdtemp(own) == NULL) {
        rc = ad_fail(EXIT_ADAPTER, "cannot create an extraction directory: %s",
                     strerror(errno));
        free(own);
        free(path);
        return rc;
    }
    sc_zip *z = NULL;
    r->code = sc_zip_open(path, NULL, &z, &r->err);
    if (r->code == SC_OK)
        r->code = sc_zip_extract(z, own, &r->err);
    if (r->code == SC_OK) {
        sc_json *list = ad_must(sc_json_new_array());
        for (size_t i = 0; i < sc_zip_count(z); i++)
            sc_json_array_append(list, entry_json(sc_zip_at(z, i)));
        r->out = ad_must(sc_json_new_object());
        ad_put(r->out, "entries", list);
    }
    sc_zip_close(z);
    sc_rmtree(own);
    free(own);
    free(path);
    return 0;
}

const ad_op ad_ops_archive_read[] = {
    {"archive-inspect", op_archive_inspect},
    {NULL, NULL},
};
