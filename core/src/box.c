/* SPDX-License-Identifier: Apache-2.0 */
/*
 * box.c — releases, receipts and the archive check of docs/format-v3.md
 * 16.1 (verify).  Prepare, attach and the self-test are in prepare.c.
 *
 * Guarantees: a release is verified (9.2, as a release) and checked against
 * the revocations before anything of its archive is touched; the archive is
 * checked in the order of 16.1 and only read; every buffer has one owner and
 * is freed on every path.
 */
#include "scrollcase/box.h"
#include "jobs_internal.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "box_internal.h"
#include "progress_internal.h"
#include "scrollcase/archive_read.h"
#include "scrollcase/cohort.h"
#include "scrollcase/execution.h"
#include "scrollcase/file.h"
#include "scrollcase/jobs.h"
#include "scrollcase/manifest.h"
#include "scrollcase/payload.h"
#include "iobuf_internal.h"

/* ---- releases ------------------------------------------------------------ */

void sc_release_free(sc_release *r)
{
    if (r == NULL)
        return;
    sc_verified_document_free(&r->doc);
    for (size_t i = 0; i < r->signing_key_count; i++)
        free(r->signing_key_ids[i]);
    free(r->signing_key_ids);
    memset(r, 0, sizeof *r);
}

/* Every signature's keyId of an envelope that has already verified. */
static sc_code collect_key_ids(const char *bytes, size_t len, sc_release *r,
                               sc_error *err)
{
    sc_json *env = NULL;
    sc_code c = sc_json_parse(bytes, len, &env, err);
    if (c != SC_OK)
        return c;
    const sc_json *sigs = sc_json_get(env, "signatures");
    size_t n = sigs != NULL ? sigs->length : 0;
    if (n > 0) {
        r->signing_key_ids = calloc(n, sizeof *r->signing_key_ids);
        if (r->signing_key_ids == NULL) {
            sc_json_free(env);
            return sc_error_set(err, SC_E_OUT_OF_MEMORY, NULL, "out of memory");
        }
    }
    for (size_t i = 0; i < n; i++) {
        const sc_json *id = sc_json_get(sc_json_at(sigs, i), "keyId");
        r->signing_key_ids[i] =
            id != NULL ? sc_box_strndup(id->string, id->length) : sc_box_strndup("", 0);
        if (r->signing_key_ids[i] == NULL) {
            sc_json_free(env);
            return sc_error_set(err, SC_E_OUT_OF_MEMORY, NULL, "out of memory");
        }
        r->signing_key_count = i + 1;
    }
    sc_json_free(env);
    return SC_OK;
}

static void copy_hex(char dst[SC_SHA256_HEX_LEN + 1], const sc_json *v)
{
    const char *s = sc_json_cstr(v);
    if (s != NULL && strlen(s) == SC_SHA256_HEX_LEN)
        memcpy(dst, s, SC_SHA256_HEX_LEN + 1);
    else
        dst[0] = '\0';
}

sc_code sc_release_open_bytes(const char *bytes, size_t len, const sc_trust *trust,
                              const sc_json *revocations, sc_release *out,
                              sc_error *err)
{
    memset(out, 0, sizeof *out);
    sc_code c = sc_envelope_verify(bytes, len, trust, SC_DOC_RELEASE, &out->doc, err);
    if (c != SC_OK) {
        memset(out, 0, sizeof *out);
        return c;
    }
    const sc_json *p = out->doc.payload;
    if (revocations != NULL &&
        (c = sc_revocation_check(p, revocations, err)) != SC_OK)
        goto fail;
    if ((c = sc_target_from_json(sc_json_get(p, "target"), "$.target", &out->target,
                                 err)) != SC_OK)
        goto fail;
    sc_target_id(&out->target, out->target_id, sizeof out->target_id);
    out->entry_point = sc_json_cstr(sc_json_get(p, "pythonEntryPoint"));
    const sc_json *archive = sc_json_get(p, "archive");
    out->archive_url = sc_json_cstr(sc_json_get(archive, "url"));
    copy_hex(out->archive_sha256, sc_json_get(archive, "sha256"));
    copy_hex(out->payload_digest, sc_json_get(sc_json_get(p, "payloadDigest"), "sha256"));
    if (out->entry_point == NULL || out->archive_url == NULL ||
        out->archive_sha256[0] == '\0' || out->payload_digest[0] == '\0' ||
        !sc_json_uint53(sc_json_get(archive, "sizeBytes"), &out->archive_size) ||
        !sc_json_uint53(sc_json_get(p, "installedSizeBytes"), &out->installed_size)) {
        c = sc_error_set(err, SC_E_INTERNAL, NULL,
                         "a checked release lacks a required member");
        goto fail;
    }
    if ((c = collect_key_ids(bytes, len, out, err)) != SC_OK)
        goto fail;
    return SC_OK;
fail:
    sc_release_free(out);
    return c;
}

sc_code sc_release_open(const char *release_path, const sc_trust *trust,
                        const sc_json *revocations, sc_release *out, sc_error *err)
{
    char *bytes = NULL;
    size_t len = 0;
    memset(out, 0, sizeof *out);
    sc_code c = sc_file_read(release_path, &bytes, &len, NULL, err);
    if (c != SC_OK)
        return c;
    c = sc_release_open_bytes(bytes, len, trust, revocations, out, err);
    free(bytes);
    if (c != SC_OK && err != NULL && err->path[0] == '\0')
        sc_error_prefix(err, release_path);
    return c;
}

sc_code sc_release_default_archive(const sc_release *r, const char *release_path,
                                   char **out, sc_error *err)
{
    *out = NULL;
    const char *url = r->archive_url;
    size_t end = strcspn(url, "?#");
    size_t start = end;
    while (start > 0 && url[start - 1] != '/')
        start--;
    size_t n = end - start;
    if (n == 0 || (n == 1 && url[start] == '.') ||
        (n == 2 && url[start] == '.' && url[start + 1] == '.') ||
        memchr(url + start, '\\', n) != NULL)
        return sc_error_set(err, SC_E_USAGE, "$.archive.url",
                            "archive.url names no file; give --archive");
    char *name = sc_box_strndup(url + start, n);
    if (name == NULL)
        return sc_error_set(err, SC_E_OUT_OF_MEMORY, NULL, "out of memory");
    const char *slash = strrchr(release_path, '/');
    char *dir = slash == NULL ? sc_box_strndup(".", 1)
                              : sc_box_strndup(release_path, (size_t)(slash - release_path) +
                                                                 (slash == release_path));
    char *joined = dir != NULL ? sc_path_join(dir, name) : NULL;
    free(name);
    struct stat st;
    if (joined != NULL && lstat(joined, &st) != 0) {
        /* Section 11's name, <archive.sha256>.zip, when it is there. */
        char hashed[SC_SHA256_HEX_LEN + 5];
        snprintf(hashed, sizeof hashed, "%s.zip", r->archive_sha256);
        char *alt = sc_path_join(dir, hashed);
        if (alt != NULL && lstat(alt, &st) == 0) {
            free(joined);
            joined = alt;
        } else {
            free(alt);
        }
    }
    free(dir);
    if (joined == NULL)
        return sc_error_set(err, SC_E_OUT_OF_MEMORY, NULL, "out of memory");
    *out = joined;
    return SC_OK;
}

/* ---- small helpers shared with prepare.c --------------------------------- */

char *sc_box_strndup(const char *s, size_t n)
{
    char *d = malloc(n + 1);
    if (d == NULL)
        return NULL;
    memcpy(d, s, n);
    d[n] = '\0';
    return d;
}

/*
 * The archive's SHA-256: one sequential stream of preads into a buffer that
 * stays in cache between the read and the hash.  (A second thread reading
 * ahead into a ring was measured slower on this design's 2-core reference
 * host, 0.96-1.21 s against 0.83 s for 1 GiB: the hash is faster than the
 * hand-over.  The second core inspects the archive instead; see
 * sc_box_inspect_deferred.)
 */
#define HASH_BUF ((size_t)128 * 1024)

/* Hash fd from the start; a read error's errno in *read_errno. */
static sc_code hash_alone(int fd, sc_sha256_ctx *ctx, int *read_errno,
                          sc_progress_meter *meter, const char *name, sc_error *err)
{
    unsigned char *buf = sc_iobuf_alloc(HASH_BUF);
    if (buf == NULL)
        return sc_error_set(err, SC_E_OUT_OF_MEMORY, NULL, "out of memory");
    off_t at = 0;
    sc_code c = SC_OK;
    for (;;) {
        ssize_t n = pread(fd, buf, HASH_BUF, at);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            *read_errno = errno;
            break;
        }
        if (n == 0)
            break;
        if ((c = sc_sha256_update(ctx, buf, (size_t)n, err)) != SC_OK)
            break;
        at += n;
        sc_progress_meter_add(meter, name, (uint64_t)n, 0);
    }
    free(buf);
    return c;
}

sc_code sc_box_hash_fd(int fd, const char *name, const sc_release *r,
                       sc_code mismatch, sc_progress_meter *meter, sc_error *err)
{
#ifdef POSIX_FADV_SEQUENTIAL
    (void)posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif
    sc_sha256_ctx ctx;
    sc_code c = sc_sha256_init(&ctx, err);
    if (c != SC_OK)
        return c;
    int read_errno = 0;
    c = hash_alone(fd, &ctx, &read_errno, meter, name, err);
    if (c == SC_OK && read_errno != 0)
        c = sc_error_set(err, SC_E_IO, name, "cannot read the archive: %s",
                         strerror(read_errno));
    if (c != SC_OK) {
        sc_sha256_abort(&ctx);
        return c;
    }
    unsigned char digest[SC_SHA256_LEN];
    char hex[SC_SHA256_HEX_LEN + 1];
    if ((c = sc_sha256_final(&ctx, digest, err)) != SC_OK)
        return c;
    sc_hex_lower(digest, SC_SHA256_LEN, hex);
    if (strcmp(hex, r->archive_sha256) == 0)
        return SC_OK;
    if (mismatch == SC_E_ARCHIVE_CHANGED)
        return sc_error_set(err, mismatch, name,
                            "the archive changed while it was extracted (SHA-256 now %s)",
                            hex);
    return sc_error_set(err, mismatch, name,
                        "the archive's SHA-256 is %s; the release signs %s", hex,
                        r->archive_sha256);
}

char *sc_box_absolute(const char *path)
{
    char *joined = NULL;
    if (path[0] == '/') {
        joined = sc_box_strndup(path, strlen(path));
    } else {
        char *cwd = getcwd(NULL, 0);
        if (cwd == NULL)
            return NULL;
        joined = sc_path_join(cwd, path);
        free(cwd);
    }
    if (joined == NULL)
        return NULL;
    /* Fold segments in place: "" and "." dropped, ".." pops. */
    size_t n = strlen(joined);
    char *out = malloc(n + 2);
    if (out == NULL) {
        free(joined);
        return NULL;
    }
    size_t len = 0;
    const char *p = joined;
    while (*p != '\0') {
        while (*p == '/')
            p++;
        const char *seg = p;
        while (*p != '\0' && *p != '/')
            p++;
        size_t sl = (size_t)(p - seg);
        if (sl == 0 || (sl == 1 && seg[0] == '.'))
            continue;
        if (sl == 2 && seg[0] == '.' && seg[1] == '.') {
            while (len > 0 && out[len - 1] != '/')
                len--;
            if (len > 0)
                len--; /* the '/' before the dropped segment */
            continue;
        }
        out[len++] = '/';
        memcpy(out + len, seg, sl);
        len += sl;
    }
    if (len == 0)
        out[len++] = '/';
    out[len] = '\0';
    free(joined);
    return out;
}

/* ---- verify (16.1) ---------------------------------------------------------- */

/* ---- the archive's hash, beside the inspection ------------------------------ */

static void *hash_job_main(void *arg)
{
    sc_box_hash_job *h = arg;
    h->code = sc_box_hash_fd(h->fd, h->name, h->r, SC_E_ARCHIVE_HASH,
                             h->meter_on_thread ? &h->meter : NULL, &h->err);
    return NULL;
}

/*
 * Start hashing a->fd: on a thread of its own when jobs allow two and the
 * thread starts, else right here.  The "hash" step's first event is sent
 * now; meter_on_thread says whether the thread may send the byte counts
 * (only when nothing else reports while it runs).
 */
static void hash_job_start(sc_box_archive *a, const sc_release *r, const char *name,
                           const sc_box_options *o, int meter_on_thread)
{
    sc_box_hash_job *h = &a->hash;
    memset(h, 0, sizeof *h);
    h->fd = a->fd;
    h->name = name;
    h->r = r;
    h->code = SC_OK;
    sc_progress_meter_start(&h->meter, o != NULL ? o->progress : NULL,
                            o != NULL ? o->progress_ctx : NULL, "hash", name,
                            (uint64_t)a->st.st_size, 1);
    h->pending = 1;
    if (sc_jobs_resolve(o != NULL ? o->jobs : 0) >= 2) {
        h->meter_on_thread = meter_on_thread;
        if (sc_jobs_thread_start(&h->thread, hash_job_main, h) == 0) {
            h->threaded = 1;
            return;
        }
    }
    h->meter_on_thread = 1;
    hash_job_main(h);
}

sc_code sc_box_archive_hashed(sc_box_archive *a, sc_error *err)
{
    sc_box_hash_job *h = &a->hash;
    if (h->pending) {
        if (h->threaded)
            pthread_join(h->thread, NULL);
        h->threaded = 0;
        h->pending = 0;
        if (h->code == SC_OK) {
            if (!h->meter_on_thread)
                sc_progress_meter_add(&h->meter, h->name, (uint64_t)a->st.st_size, 0);
            sc_progress_meter_add(&h->meter, h->name, 0, 1);
        }
        sc_progress_meter_end(&h->meter, h->code == SC_OK);
    }
    if (h->code != SC_OK && err != NULL)
        *err = h->err;
    return h->code;
}

void sc_box_archive_close(sc_box_archive *a)
{
    if (a == NULL)
        return;
    (void)sc_box_archive_hashed(a, NULL); /* never leave the thread running */
    if (a->zip != NULL)
        sc_zip_close(a->zip);
    if (a->fd >= 0)
        close(a->fd);
    a->zip = NULL;
    a->fd = -1;
}

static int has_in_zip(void *ctx, const char *path)
{
    const sc_zip_entry *e = sc_zip_find((const sc_zip *)ctx, path);
    return e != NULL && (e->type == SC_ZIP_FILE || e->type == SC_ZIP_LINK);
}

static void copy_text(char *dst, size_t size, const char *src)
{
    snprintf(dst, size, "%s", src != NULL ? src : "");
}

/* Steps 8-11 on an open, hashed archive. */
static sc_code check_contents(const sc_release *r, sc_zip *z, const char *name,
                              sc_error *err)
{
    const sc_zip_entry *e = sc_zip_find(z, "box.json");
    if (e == NULL || e->type != SC_ZIP_FILE)
        return sc_error_set(err, SC_E_MISSING_BOX_JSON, name,
                            e == NULL ? "the archive has no box.json"
                                      : "the archive's box.json is not a regular file");
    if (e->size > SC_BOX_JSON_MAX_BYTES)
        return sc_error_set(err, SC_E_INVALID_MANIFEST, "box.json",
                            "box.json is larger than %d bytes", SC_BOX_JSON_MAX_BYTES);
    char *bytes = NULL;
    size_t len = 0;
    sc_code c = sc_zip_read(z, e, SC_BOX_JSON_MAX_BYTES, &bytes, &len, err);
    if (c != SC_OK)
        return c;
    sc_json *box = NULL;
    c = sc_manifest_read_box_json(bytes, len, &box, NULL, err);
    free(bytes);
    if (c != SC_OK) {
        if (err != NULL && err->path[0] == '\0')
            sc_error_prefix(err, "box.json");
        return c;
    }
    c = sc_manifest_agreement(r->doc.payload, box, err);
    sc_json_free(box);
    if (c != SC_OK)
        return c;
    e = sc_zip_find(z, r->entry_point);
    if (e == NULL || (e->type != SC_ZIP_FILE && e->type != SC_ZIP_LINK))
        return sc_error_set(err, SC_E_MISSING_INTERPRETER, r->entry_point,
                            "the archive is missing its entry point %s", r->entry_point);
    return sc_execution_check(r->doc.payload, &r->target, has_in_zip, z, err);
}

static int64_t stat_ns(struct timespec t)
{
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

int sc_box_archive_moved(const sc_box_archive *a)
{
    struct stat now;
    if (fstat(a->fd, &now) != 0)
        return 1;
    return now.st_dev != a->st.st_dev || now.st_ino != a->st.st_ino ||
           now.st_size != a->st.st_size || stat_ns(now.st_mtim) != stat_ns(a->st.st_mtim) ||
           stat_ns(now.st_ctim) != stat_ns(a->st.st_ctim);
}

sc_code sc_box_archive_unchanged(const sc_box_archive *a, const char *name,
                                 const sc_release *r, sc_code mismatch, const sc_box_options *o,
                                 sc_error *err)
{
    if (sc_file_stamps_trusted(a->fd) && !sc_box_archive_moved(a) &&
        stat_ns(a->st.st_mtim) < a->hashed_at_ns - SC_PAYLOAD_RACY_NS &&
        stat_ns(a->st.st_ctim) < a->hashed_at_ns - SC_PAYLOAD_RACY_NS)
        return SC_OK;
    /* Read again: a second "hash" step, heard like the first. */
    sc_progress_meter meter;
    sc_progress_meter_start(&meter, o != NULL ? o->progress : NULL,
                            o != NULL ? o->progress_ctx : NULL, "hash", name,
                            (uint64_t)a->st.st_size, 1);
    sc_code c = sc_box_hash_fd(a->fd, name, r, mismatch, &meter, err);
    if (c == SC_OK)
        sc_progress_meter_add(&meter, name, 0, 1);
    sc_progress_meter_end(&meter, c == SC_OK);
    return c;
}

sc_code sc_box_inspect_with(const sc_release *r, const char *archive_path,
                            const sc_box_options *o, sc_box_archive *a, sc_box_report *report,
                            sc_error *err)
{
    sc_code c = sc_box_inspect_deferred(r, archive_path, o, 1, a, report, err);
    if (c == SC_OK && (c = sc_box_archive_hashed(a, err)) != SC_OK)
        sc_box_archive_close(a);
    return c;
}

/* Steps 7-11 on a sized descriptor; the report filled on success. */
static sc_code inspect_contents(const sc_release *r, const char *archive_path, sc_box_archive *a,
                                sc_box_report *report, sc_error *err)
{
    /* The extraction budget is the signed installed size: the entries may
     * not declare more bytes than the release says the box installs, so a
     * signed archive can never inflate past what its signer stated. */
    sc_zip_limits limits = {r->installed_size, 0};
    sc_zip *z = NULL;
    sc_code c = sc_zip_open_fd(a->fd, archive_path, &limits, &z, err);
    if (c != SC_OK)
        return c;
    if ((c = check_contents(r, z, archive_path, err)) != SC_OK) {
        sc_zip_close(z);
        return c;
    }
    if (report != NULL) {
        memset(report, 0, sizeof *report);
        const sc_json *p = r->doc.payload;
        copy_text(report->box_id, sizeof report->box_id,
                  sc_json_cstr(sc_json_get(p, "boxId")));
        copy_text(report->version, sizeof report->version,
                  sc_json_cstr(sc_json_get(p, "version")));
        copy_text(report->target_id, sizeof report->target_id, r->target_id);
        report->entry_count = sc_zip_count(z);
        copy_text(report->execution_kind, sizeof report->execution_kind,
                  sc_json_cstr(sc_json_get(sc_json_get(p, "execution"), "kind")));
        const sc_json *assets = sc_json_get(p, "assets");
        report->required_asset_count = assets != NULL ? assets->length : 0;
    }
    a->zip = z;
    return SC_OK;
}

sc_code sc_box_inspect_deferred(const sc_release *r, const char *archive_path,
                                const sc_box_options *o, int hash_progress, sc_box_archive *a,
                                sc_box_report *report, sc_error *err)
{
    memset(a, 0, sizeof *a);
    a->fd = -1;
    a->zip = NULL;
    /* 16.1 step 4: following links, and a FIFO, socket, device or
     * directory is archive-not-found (opened without blocking). */
    int fd;
    struct stat st;
    sc_file_kind kind;
    sc_error oe;
    if (sc_file_open_regular(archive_path, 0, &fd, &st, &kind, &oe) != SC_OK) {
        if (kind == SC_FILE_MISSING)
            return sc_error_set(err, SC_E_ARCHIVE_NOT_FOUND, archive_path,
                                "archive not found: %s", archive_path);
        if (kind == SC_FILE_NOT_REGULAR)
            return sc_error_set(err, SC_E_ARCHIVE_NOT_FOUND, archive_path,
                                "the archive is not a regular file: %s", archive_path);
        if (err != NULL)
            *err = oe;
        return oe.code;
    }
    if ((uint64_t)st.st_size != r->archive_size) {
        close(fd);
        return sc_error_set(err, SC_E_ARCHIVE_SIZE, archive_path,
                            "the archive is %llu bytes; the release signs %llu",
                            (unsigned long long)st.st_size,
                            (unsigned long long)r->archive_size);
    }
    struct timespec now;
    if (clock_gettime(CLOCK_REALTIME, &now) != 0) {
        close(fd);
        return sc_error_set(err, SC_E_IO, archive_path, "cannot read the clock: %s",
                            strerror(errno));
    }
    a->fd = fd;
    a->st = st;
    a->hashed_at_ns = (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
    /* Step 6 on a second core while this one runs step 7 and on: the
     * inspection only reads, its outcome counts only once the hash
     * matches, and a failed hash is the failure reported whatever the
     * inspection found (the first failure in the order of 16.1). */
    hash_job_start(a, r, archive_path, o, hash_progress);
    if (!a->hash.threaded && a->hash.code != SC_OK) {
        /* hashed here, first: nothing of a mismatching archive is parsed */
        sc_code hc = sc_box_archive_hashed(a, err);
        sc_box_archive_close(a);
        return hc;
    }
    sc_error ie;
    sc_error_clear(&ie);
    sc_code c = inspect_contents(r, archive_path, a, report, &ie);
    if (c == SC_OK)
        return SC_OK;
    sc_code hc = sc_box_archive_hashed(a, err);
    sc_box_archive_close(a);
    if (hc != SC_OK)
        return hc;
    if (err != NULL)
        *err = ie;
    return c;
}

sc_code sc_box_verify(const sc_release *r, const char *archive_path,
                      sc_box_report *out, sc_error *err)
{
    return sc_box_verify_with(r, archive_path, NULL, out, err);
}

sc_code sc_box_verify_with(const sc_release *r, const char *archive_path,
                           const sc_box_options *o, sc_box_report *out, sc_error *err)
{
    sc_box_archive a;
    sc_code c = sc_box_inspect_with(r, archive_path, o, &a, out, err);
    if (c == SC_OK)
        sc_box_archive_close(&a);
    return c;
}
