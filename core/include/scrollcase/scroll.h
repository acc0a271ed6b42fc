/* SPDX-License-Identifier: Apache-2.0 */
/*
 * scroll.h — reading scrolls: layout, split-scroll join, validation, the
 * effective scroll.
 *
 * Guarantees (docs/format-v3.md, "Scrolls"): a scroll is checked in one
 * fixed, documented order and the first failure wins, with exactly one code.
 * Nothing outside the scrolls directory is read; nothing is written.  A
 * resolved scroll's `effective` tree is the scroll after the join and with
 * every default filled (new members appended after the declared ones), the
 * same bytes whatever the directory order of the file system.
 */
#ifndef SCROLLCASE_SCROLL_H
#define SCROLLCASE_SCROLL_H

#include <stddef.h>

#include "scrollcase/error.h"
#include "scrollcase/json.h"
#include "scrollcase/target.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SC_SCROLL_SCHEMA_VERSION 3
#define SC_SCROLL_SCHEMA_ID "https://scrollcase.dev/schema/v3/scroll.schema.json"
#define SC_SCROLL_BASE_REF "../scroll.json"
#define SC_SELF_TEST_TIMEOUT_DEFAULT 180
#define SC_SELF_TEST_TIMEOUT_MAX 86400

typedef struct sc_scroll {
    char *box_id;
    char *target_id;
    sc_target target;
    sc_json *effective; /* owned */
    char *path;         /* the scroll.json read (as given), or NULL from memory */
    char *base_path;    /* its base, or NULL */
} sc_scroll;

/* One document handed in from memory.  bytes == NULL: the file is absent. */
typedef struct sc_scroll_source {
    const char *bytes;
    size_t len;
    const char *name; /* for messages, e.g. "scrolls/demo/linux-x86_64-cpu/scroll.json" */
} sc_scroll_source;

/*
 * Resolve a scroll from memory.  base is consulted only when the scroll
 * declares "extends".  box_dir and target_dir are the names of the two
 * directories the scroll sits in; NULL skips the layout check (steps that
 * need the file system are the caller's).  This is the whole of validation:
 * sc_scroll_load is this plus reading files.
 */
sc_code sc_scroll_resolve(const sc_scroll_source *fragment,
                          const sc_scroll_source *base, const char *box_dir,
                          const char *target_dir, sc_scroll **out,
                          sc_error *err);

/*
 * Check the version member of one scroll document (fragment or base) if it
 * has one: 1 or 2 → deprecated-schema-version, any other value but the
 * integer literal 3 → unsupported-schema-version.  name is for the message.
 */
sc_code sc_scroll_check_version(const sc_json *doc, const char *name,
                                sc_error *err);

/*
 * Load one scroll from a scrolls directory by exact reference
 * "<boxId>/<targetId>".
 */
sc_code sc_scroll_load(const char *scrolls_dir, const char *ref,
                       sc_scroll **out, sc_error *err);

typedef struct sc_scroll_ref_list {
    char **refs; /* "<box>/<target>", sorted by bytes */
    size_t count;
} sc_scroll_ref_list;

/*
 * The references a selector names: NULL → every scroll of the workspace;
 * "<box>" → that box's targets; "<box>/<target>" → that one (which must
 * exist).  Only directories holding a scroll.json count as targets; the
 * box's own scroll.json (a base) never does.
 */
sc_code sc_scroll_list_refs(const char *scrolls_dir, const char *selector,
                            sc_scroll_ref_list *out, sc_error *err);
void sc_scroll_ref_list_free(sc_scroll_ref_list *l);

void sc_scroll_free(sc_scroll *s);

#ifdef __cplusplus
}
#endif

#endif
