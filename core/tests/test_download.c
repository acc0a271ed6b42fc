/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_download.c — assets over HTTP(S), asset archives and the licence
 * inventory (docs/format-v3.md 10.7, 20.3, 20.4).  Each test names the rule
 * it checks.
 *
 * Downloads run against a real server on loopback: fixtures/http_server.py,
 * started with /usr/bin/python3 (fork/exec, no shell) for each test, which
 * prints its port, logs every request (with its Range header) to a file and
 * injects faults chosen by the query string.  No test touches any other
 * network.  Archives are written with libarchive in the test itself.
 */
#define _POSIX_C_SOURCE 200809L
#include <archive.h>
#include <archive_entry.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "scrollcase/asset_archive.h"
#include "scrollcase/digest.h"
#include "scrollcase/download.h"
#include "scrollcase/file.h"
#include "scrollcase/json.h"
#include "scrollcase/licenses.h"
#include "scrollcase/remedy.h"
#include "scrollcase/pixi_lock.h"
#include "scrollcase/target.h"
#include "lazylib_internal.h"
#include "scrollcase/libraries.h"

#ifndef SC_SOURCE_DIR
#define SC_SOURCE_DIR "."
#endif

#define PYTHON "/usr/bin/python3"
#define BLOB_SIZE 100000

/* ---- the loopback server ------------------------------------------------- */

typedef struct server {
    pid_t pid;
    int port;
    char *dir;   /* temporary directory of the test */
    char *files; /* served root */
    char *log;   /* request log */
    unsigned char blob_md[SC_SHA256_LEN];
    char blob_hex[65];
} server;

static void fill_blob(unsigned char *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        b[i] = (unsigned char)((i * 7u + i / 251u) & 0xffu);
}

static void no_proxies(void)
{
    static const char *const names[] = {"http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY",
                                        "all_proxy",  "ALL_PROXY"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        unsetenv(names[i]);
}

/* Start the server over a fresh directory holding blob.bin; 0 when skipped. */
static int server_start(server *s)
{
    memset(s, 0, sizeof *s);
    s->pid = -1;
    if (access(PYTHON, X_OK) != 0) {
        fprintf(stderr, "\n  SKIP: %s is missing; the loopback download tests cannot run\n", PYTHON);
        return 0;
    }
    no_proxies();
    s->dir = sc_test_tmpdir();
    s->files = sc_path_join(s->dir, "www");
    s->log = sc_path_join(s->dir, "requests.log");
    CU_ASSERT_FATAL(s->files && s->log);
    CU_ASSERT_FATAL(mkdir(s->files, 0755) == 0);
    unsigned char *blob = malloc(BLOB_SIZE);
    CU_ASSERT_FATAL(blob != NULL);
    fill_blob(blob, BLOB_SIZE);
    char *bp = sc_path_join(s->files, "blob.bin");
    sc_error err;
    CU_ASSERT_FATAL(sc_file_write_atomic(bp, blob, BLOB_SIZE, 0644, &err) == SC_OK);
    CU_ASSERT_FATAL(sc_sha256(blob, BLOB_SIZE, s->blob_md, &err) == SC_OK);
    sc_hex_lower(s->blob_md, SC_SHA256_LEN, s->blob_hex);
    free(bp);
    free(blob);

    int fds[2];
    CU_ASSERT_FATAL(pipe(fds) == 0);
    char *script = sc_path_join(SC_SOURCE_DIR, "fixtures/http_server.py");
    CU_ASSERT_FATAL(script != NULL);
    pid_t pid = fork();
    CU_ASSERT_FATAL(pid >= 0);
    if (pid == 0) {
        dup2(fds[1], 1);
        close(fds[0]);
        close(fds[1]);
        execl(PYTHON, PYTHON, script, s->files, s->log, (char *)NULL);
        _exit(127);
    }
    free(script);
    close(fds[1]);
    s->pid = pid;
    char line[32];
    size_t n = 0;
    while (n + 1 < sizeof line) {
        struct pollfd p = {fds[0], POLLIN, 0};
        if (poll(&p, 1, 20000) <= 0)
            break;
        ssize_t r = read(fds[0], line + n, 1);
        if (r <= 0 || line[n] == '\n')
            break;
        n++;
    }
    line[n] = '\0';
    close(fds[0]);
    s->port = atoi(line);
    CU_ASSERT_FATAL(s->port > 0);
    return 1;
}

static void server_stop(server *s)
{
    if (s->pid > 0) {
        kill(s->pid, SIGTERM);
        int status;
        while (waitpid(s->pid, &status, 0) < 0 && errno == EINTR) {
        }
    }
    if (s->dir)
        sc_test_rmtree(s->dir);
    free(s->dir);
    free(s->files);
    free(s->log);
}

static char *url_of(const server *s, const char *path_and_query)
{
    char *u = malloc(strlen(path_and_query) + 64);
    CU_ASSERT_FATAL(u != NULL);
    sprintf(u, "http://127.0.0.1:%d/%s", s->port, path_and_query);
    return u;
}

static char *dest_of(const server *s, const char *name)
{
    char *d = sc_path_join(s->dir, name);
    CU_ASSERT_FATAL(d != NULL);
    return d;
}

static char *part_of(const char *dest)
{
    char *p = malloc(strlen(dest) + 6);
    CU_ASSERT_FATAL(p != NULL);
    sprintf(p, "%s.part", dest);
    return p;
}

/* The request log as text ("" when empty). */
static char *log_text(const server *s)
{
    char *bytes = NULL;
    size_t len = 0;
    int missing = 0;
    sc_error err;
    if (sc_file_read(s->log, &bytes, &len, &missing, &err) != SC_OK)
        return strdup("");
    return bytes;
}

static size_t count_of(const char *hay, const char *needle)
{
    size_t n = 0;
    for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
        n++;
    return n;
}

static size_t requests(const server *s)
{
    char *t = log_text(s);
    size_t n = count_of(t, "\n");
    free(t);
    return n;
}

static sc_download_options fast(int attempts)
{
    sc_download_options o;
    memset(&o, 0, sizeof o);
    o.attempts = attempts;
    o.retry_delay_ms = 1;
    o.connect_timeout_seconds = 5;
    o.stall_timeout_seconds = 5;
    return o;
}

static off_t size_of(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0 ? st.st_size : -1;
}

static int file_is_blob(const char *path)
{
    unsigned char md[SC_SHA256_LEN];
    sc_error err;
    unsigned char want[SC_SHA256_LEN];
    unsigned char *blob = malloc(BLOB_SIZE);
    if (!blob)
        return 0;
    fill_blob(blob, BLOB_SIZE);
    int ok = sc_sha256(blob, BLOB_SIZE, want, &err) == SC_OK &&
             sc_sha256_file(path, md, &err) == SC_OK && memcmp(md, want, sizeof md) == 0;
    free(blob);
    return ok;
}

/* Write the first n bytes of the blob (or n garbage bytes) to path. */
static void write_prefix(const char *path, size_t n, int garbage)
{
    unsigned char *b = malloc(BLOB_SIZE);
    CU_ASSERT_FATAL(b != NULL);
    fill_blob(b, BLOB_SIZE);
    if (garbage)
        memset(b, 'x', n);
    sc_error err;
    CU_ASSERT_FATAL(sc_file_write_atomic(path, b, n, 0644, &err) == SC_OK);
    free(b);
}

/* ---- 20.3 assets over HTTP(S) -------------------------------------------- */

typedef struct progress_seen {
    int calls;
    uint64_t last_done, last_total;
} progress_seen;

static void on_progress(void *ctx, const char *what, uint64_t done, uint64_t total)
{
    progress_seen *p = ctx;
    (void)what;
    p->calls++;
    p->last_done = done;
    p->last_total = total;
}

static void test_download_verified_places_the_pinned_file(void)
{
    server s;
    if (!server_start(&s))
        return;
    char *url = url_of(&s, "blob.bin");
    char *dest = dest_of(&s, "asset.bin");
    char *part = part_of(dest);
    sc_download_options o = fast(1);
    progress_seen seen = {0, 0, 0};
    o.progress = on_progress;
    o.ctx = &seen;
    sc_error err;
    SC_EXPECT_CODE(sc_download_verified(url, dest, BLOB_SIZE, s.blob_hex, &o, &err), SC_OK, &err);
    CU_ASSERT(file_is_blob(dest));
    CU_ASSERT_EQUAL(size_of(part), -1);
    CU_ASSERT(seen.calls > 0);
    CU_ASSERT_EQUAL(seen.last_total, BLOB_SIZE);
    CU_ASSERT_EQUAL(requests(&s), 1);
    free(url);
    free(dest);
    free(part);
    server_stop(&s);
}

static void test_download_verified_file_in_place_is_kept_without_a_request(void)
{
    server s;
    if (!server_start(&s))
        return;
    char *url = url_of(&s, "blob.bin");
    char *dest = dest_of(&s, "asset.bin");
    write_prefix(dest, BLOB_SIZE, 0);
    sc_download_options o = fast(1);
    sc_error err;
    SC_EXPECT_CODE(sc_download_verified(url, dest, BLOB_SIZE, s.blob_hex, &o, &err), SC_OK, &err);
    CU_ASSERT_EQUAL(requests(&s), 0);
    /* a file in place that differs is replaced by a verified download */
    write_prefix(dest, BLOB_SIZE, 1);
    SC_EXPECT_CODE(sc_download_verified(url, dest, BLOB_SIZE, s.blob_hex, &o, &err), SC_OK, &err);
    CU_ASSERT(file_is_blob(dest));
    CU_ASSERT_EQUAL(requests(&s), 1);
    free(url);
    free(dest);
    server_stop(&s);
}

static void test_download_size_mismatch_keeps_the_partial(void)
{
    server s;
    if (!server_start(&s))
        return;
    char *url = url_of(&s, "blob.bin");
    char *dest = dest_of(&s, "asset.bin");
    char *part = part_of(dest);
    sc_download_options o = fast(1);
    sc_error err;
    /* the pin claims more than the server has: short, kept for a resume */
    SC_EXPECT_CODE(sc_download_verified(url, dest, BLOB_SIZE + 10, s.blob_hex, &o, &err),
                   SC_E_ASSET_SIZE, &err);
    CU_ASSERT_EQUAL(size_of(dest), -1);
    CU_ASSERT_EQUAL(size_of(part), BLOB_SIZE);
    /* the pin claims less: the response is cut at the pin and refused */
    unlink(part);
    SC_EXPECT_CODE(sc_download_verified(url, dest, BLOB_SIZE - 10, s.blob_hex, &o, &err),
                   SC_E_ASSET_SIZE, &err);
    CU_ASSERT_EQUAL(size_of(dest), -1);
    free(url);
    free(dest);
    free(part);
    server_stop(&s);
}

static void test_download_hash_mismatch_deletes_the_partial(void)
{
    server s;
    if (!server_start(&s))
        return;
    char *url = url_of(&s, "blob.bin");
    char *dest = dest_of(&s, "asset.bin");
    char *part = part_of(dest);
    sc_download_options o = fast(1);
    sc_error err;
    const char *wrong = "0000000000000000000000000000000000000000000000000000000000000000";
    SC_EXPECT_CODE(sc_download_verified(url, dest, BLOB_SIZE, wrong, &o, &err), SC_E_ASSET_HASH,
                   &err);
    CU_ASSERT_EQUAL(size_of(dest), -1);
    CU_ASSERT_EQUAL(size_of(part), -1);
    free(url);
    free(dest);
    free(part);
    server_stop(&s);
}

static void test_download_resumes_after_a_dropped_connection_with_range(void)
{
    server s;
    if (!server_start(&s))
        return;
    char *url = url_of(&s, "blob.bin?drop=30000&times=1");
    char *dest = dest_of(&s, "asset.bin");
    sc_download_options o = fast(3);
    sc_error err;
    SC_EXPECT_CODE(sc_download_verified(url, dest, BLOB_SIZE, s.blob_hex, &o, &err), SC_OK, &err);
    CU_ASSERT(file_is_blob(dest));
    char *log = log_text(&s);
    CU_ASSERT_EQUAL(count_of(log, "\n"), 2);
    CU_ASSERT_EQUAL(count_of(log, "\"range\": null"), 1);
    CU_ASSERT_EQUAL(count_of(log, "\"range\": \"bytes=30000-\""), 1);
    free(log);
    free(url);
    free(dest);
    server_stop(&s);
}

static void test_download_existing_partial_is_resumed_with_range(void)
{
    server s;
    if (!server_start(&s))
        return;
    char *url = url_of(&s, "blob.bin");
    char *dest = dest_of(&s, "asset.bin");
    char *part = part_of(dest);
    write_prefix(part, 4096, 0);
    sc_download_options o = fast(1);
    sc_error err;
    SC_EXPECT_CODE(sc_download_verified(url, dest, BLOB_SIZE, s.blob_hex, &o, &err), SC_OK, &err);
    CU_ASSERT(file_is_blob(dest));
    char *log = log_text(&s);
    CU_ASSERT_EQUAL(count_of(log, "\n"), 1);
    CU_ASSERT_EQUAL(count_of(log, "\"range\": \"bytes=4096-\""), 1);
    free(log);
    free(url);
    free(dest);
    free(part);
    server_stop(&s);
}

static void test_download_200_instead_of_206_restarts_from_zero(void)
{
    server s;
    if (!server_start(&s))
        return;
    char *url = url_of(&s, "blob.bin?norange=1");
    char *dest = dest_of(&s, "asset.bin");
    char *part = part_of(dest);
    write_prefix(part, 5000, 1); /* bytes that must not survive */
    sc_download_options o = fast(1);
    sc_error err;
    SC_EXPECT_CODE(sc_download_verified(url, dest, BLOB_SIZE, s.blob_hex, &o, &err), SC_OK, &err);
    CU_ASSERT(file_is_blob(dest));
    char *log = log_text(&s);
    CU_ASSERT_EQUAL(count_of(log, "\"range\": \"bytes=5000-\""), 1);
    free(log);
    free(url);
    free(dest);
    free(part);
    server_stop(&s);
}

static void test_download_404_is_final_and_not_retried(void)
{
    server s;
    if (!server_start(&s))
        return;
    char *url = url_of(&s, "missing.bin");
    char *dest = dest_of(&s, "asset.bin");
    sc_download_options o = fast(5);
    sc_error err;
    SC_EXPECT_CODE(sc_download_verified(url, dest, BLOB_SIZE, s.blob_hex, &o, &err),
                   SC_E_DOWNLOAD_FAILED, &err);
    CU_ASSERT(strstr(err.message, "404") != NULL);
    CU_ASSERT_EQUAL(requests(&s), 1);
    CU_ASSERT_EQUAL(size_of(dest), -1);
    free(url);
    free(dest);
    server_stop(&s);
}

static void test_download_500_is_retried_then_fails(void)
{
    server s;
    if (!server_start(&s))
        return;
    char *url = url_of(&s, "blob.bin?status=500");
    char *dest = dest_of(&s, "asset.bin");
    sc_download_options o = fast(3);
    sc_error err;
    SC_EXPECT_CODE(sc_download_verified(url, dest, BLOB_SIZE, s.blob_hex, &o, &err),
                   SC_E_DOWNLOAD_FAILED, &err);
    CU_ASSERT_EQUAL(requests(&s), 3);
    CU_ASSERT_EQUAL(size_of(dest), -1);
    /* one 500, then the file: the retry succeeds */
    char *url2 = url_of(&s, "blob.bin?status=503&times=1");
    SC_EXPECT_CODE(sc_download_verified(url2, dest, BLOB_SIZE, s.blob_hex, &o, &err), SC_OK, &err);
    CU_ASSERT(file_is_blob(dest));
    free(url);
    free(url2);
    free(dest);
    server_stop(&s);
}

static void test_download_network_errors_are_retried_then_fail(void)
{
    server s;
    if (!server_start(&s))
        return;
    char *url = url_of(&s, "blob.bin?drop=100");
    char *dest = dest_of(&s, "asset.bin");
    char *part = part_of(dest);
    sc_download_options o = fast(4);
    sc_error err;
    SC_EXPECT_CODE(sc_download_verified(url, dest, BLOB_SIZE, s.blob_hex, &o, &err),
                   SC_E_DOWNLOAD_FAILED, &err);
    CU_ASSERT(strstr(err.message, "4 attempts") != NULL);
    CU_ASSERT_EQUAL(requests(&s), 4);
    CU_ASSERT_EQUAL(size_of(dest), -1);
    CU_ASSERT(size_of(part) >= 100); /* what arrived is kept for a later resume */
    free(url);
    free(dest);
    free(part);
    server_stop(&s);
}

static void test_download_stall_is_a_timeout(void)
{
    server s;
    if (!server_start(&s))
        return;
    char *url = url_of(&s, "blob.bin?stall=30");
    char *dest = dest_of(&s, "asset.bin");
    sc_download_options o = fast(1);
    o.stall_timeout_seconds = 1;
    sc_error err;
    time_t t0 = time(NULL);
    SC_EXPECT_CODE(sc_download_verified(url, dest, BLOB_SIZE, s.blob_hex, &o, &err),
                   SC_E_DOWNLOAD_FAILED, &err);
    CU_ASSERT(time(NULL) - t0 < 15);
    CU_ASSERT_EQUAL(size_of(dest), -1);
    free(url);
    free(dest);
    server_stop(&s);
}

static void test_download_redirect_is_followed(void)
{
    server s;
    if (!server_start(&s))
        return;
    char *url = url_of(&s, "moved?redirect=/blob.bin");
    char *dest = dest_of(&s, "asset.bin");
    sc_download_options o = fast(1);
    sc_error err;
    SC_EXPECT_CODE(sc_download_verified(url, dest, BLOB_SIZE, s.blob_hex, &o, &err), SC_OK, &err);
    CU_ASSERT(file_is_blob(dest));
    char *log = log_text(&s);
    CU_ASSERT_EQUAL(count_of(log, "\"path\": \"/moved\""), 1);
    CU_ASSERT_EQUAL(count_of(log, "\"path\": \"/blob.bin\""), 1);
    free(log);
    free(url);
    free(dest);
    server_stop(&s);
}

static void test_download_only_http_and_https(void)
{
    char *dir = sc_test_tmpdir();
    char *src = sc_path_join(dir, "src.bin");
    char *dest = sc_path_join(dir, "asset.bin");
    sc_error err;
    CU_ASSERT_FATAL(sc_file_write_atomic(src, "abc", 3, 0644, &err) == SC_OK);
    char url[4200];
    snprintf(url, sizeof url, "file://%s", src);
    sc_download_options o = fast(3);
    uint64_t size = 0;
    char hex[65];
    SC_EXPECT_CODE(sc_download_measure(url, dest, &o, &size, hex, &err), SC_E_DOWNLOAD_FAILED,
                   &err);
    CU_ASSERT_EQUAL(size_of(dest), -1);
    sc_test_rmtree(dir);
    free(dir);
    free(src);
    free(dest);
}

static void test_download_measure_reports_size_and_sha256(void)
{
    server s;
    if (!server_start(&s))
        return;
    char *url = url_of(&s, "blob.bin");
    char *dest = dest_of(&s, "asset.bin");
    char *part = part_of(dest);
    write_prefix(part, 777, 1); /* a stale partial is not trusted without a pin */
    sc_download_options o = fast(1);
    sc_error err;
    uint64_t size = 0;
    char hex[65] = "";
    SC_EXPECT_CODE(sc_download_measure(url, dest, &o, &size, hex, &err), SC_OK, &err);
    CU_ASSERT_EQUAL(size, BLOB_SIZE);
    CU_ASSERT_STRING_EQUAL(hex, s.blob_hex);
    CU_ASSERT(file_is_blob(dest));
    char *log = log_text(&s);
    CU_ASSERT_EQUAL(count_of(log, "\"range\": null"), 1);
    free(log);
    free(url);
    free(dest);
    free(part);
    server_stop(&s);
}

/* 20.3 (issue 24): a download without a pin is bounded while it streams: a
 * chunked body that never ends stops at max_bytes, and the .part goes. */
static void test_download_unpinned_endless_body_stops_at_its_bound(void)
{
    server s;
    if (!server_start(&s))
        return;
    char *url = url_of(&s, "endless.bin?endless=1");
    char *dest = dest_of(&s, "asset.bin");
    char *part = part_of(dest);
    sc_download_options o = fast(3);
    o.max_bytes = 1024 * 1024;
    sc_error err;
    uint64_t size = 0;
    char hex[65] = "";
    SC_EXPECT_CODE(sc_download_measure(url, dest, &o, &size, hex, &err), SC_E_ASSET_SIZE, &err);
    CU_ASSERT(strstr(err.message, "more than 1048576 bytes") != NULL);
    CU_ASSERT_EQUAL(size_of(dest), -1);
    CU_ASSERT_EQUAL(size_of(part), -1);
    CU_ASSERT_EQUAL(requests(&s), 1); /* a bound is final, not retried */
    free(url);
    free(dest);
    free(part);
    server_stop(&s);
}

/* 20.3 (issue 24): a server that sends 2 bytes a second never stalls by the
 * 1 byte/s rule; the deadline of the whole download ends it. */
static void test_download_trickle_ends_at_the_deadline(void)
{
    server s;
    if (!server_start(&s))
        return;
    char *url = url_of(&s, "blob.bin?trickle=2");
    char *dest = dest_of(&s, "asset.bin");
    sc_download_options o = fast(5);
    o.stall_timeout_seconds = 1; /* 2 bytes/s is above it */
    o.deadline_seconds = 2;
    sc_error err;
    SC_EXPECT_CODE(sc_download_verified(url, dest, BLOB_SIZE, s.blob_hex, &o, &err),
                   SC_E_DOWNLOAD_FAILED, &err);
    CU_ASSERT(strstr(err.message, "did not finish within 2 s") != NULL);
    CU_ASSERT_EQUAL(size_of(dest), -1);
    free(url);
    free(dest);
    server_stop(&s);
}

/* ---- 20.3 asset archives -------------------------------------------------- */

typedef struct arc_item {
    const char *name;
    char type;           /* 'f' file, 'd' directory, 'l' symlink, 'h' hard link, 'p' fifo */
    const char *content; /* file content or link target */
} arc_item;

static void write_archive(const char *path, int zip, const arc_item *items)
{
    struct archive *a = archive_write_new();
    CU_ASSERT_FATAL(a != NULL);
    if (zip) {
        archive_write_set_format_zip(a);
    } else {
        archive_write_set_format_pax_restricted(a);
        archive_write_add_filter_gzip(a);
    }
    CU_ASSERT_FATAL(archive_write_open_filename(a, path) == ARCHIVE_OK);
    for (size_t i = 0; items[i].name; i++) {
        struct archive_entry *e = archive_entry_new();
        archive_entry_set_pathname(e, items[i].name);
        switch (items[i].type) {
        case 'd':
            archive_entry_set_filetype(e, AE_IFDIR);
            archive_entry_set_perm(e, 0755);
            break;
        case 'l':
            archive_entry_set_filetype(e, AE_IFLNK);
            archive_entry_set_perm(e, 0777);
            archive_entry_set_symlink(e, items[i].content);
            break;
        case 'h':
            archive_entry_set_filetype(e, AE_IFREG);
            archive_entry_set_perm(e, 0644);
            archive_entry_set_hardlink(e, items[i].content);
            break;
        case 'p':
            archive_entry_set_filetype(e, AE_IFIFO);
            archive_entry_set_perm(e, 0644);
            break;
        default:
            archive_entry_set_filetype(e, AE_IFREG);
            archive_entry_set_perm(e, 0644);
            archive_entry_set_size(e, (la_int64_t)strlen(items[i].content));
            break;
        }
        CU_ASSERT_FATAL(archive_write_header(a, e) == ARCHIVE_OK);
        if (items[i].type == 'f')
            archive_write_data(a, items[i].content, strlen(items[i].content));
        archive_entry_free(e);
    }
    CU_ASSERT_FATAL(archive_write_close(a) == ARCHIVE_OK);
    archive_write_free(a);
}

/* A payload directory with the archive at rel. */
typedef struct arc_fixture {
    char *dir;
    char *payload;
    char *archive;
} arc_fixture;

static arc_fixture arc_setup(const char *rel, int zip, const arc_item *items)
{
    arc_fixture f;
    f.dir = sc_test_tmpdir();
    f.payload = sc_path_join(f.dir, "payload");
    CU_ASSERT_FATAL(f.payload != NULL && mkdir(f.payload, 0755) == 0);
    f.archive = sc_path_join(f.payload, rel);
    CU_ASSERT_FATAL(f.archive != NULL);
    write_archive(f.archive, zip, items);
    return f;
}

static void arc_free(arc_fixture *f)
{
    sc_test_rmtree(f->dir);
    free(f->dir);
    free(f->payload);
    free(f->archive);
}

static sc_code extract_with(const arc_fixture *f, const char *spec_sq, sc_error *err)
{
    char *dq = sc_test_dq(spec_sq);
    sc_json *spec = NULL;
    CU_ASSERT_FATAL(sc_json_parse(dq, strlen(dq), &spec, err) == SC_OK);
    free(dq);
    sc_code c = sc_asset_archive_extract(f->payload, spec, err);
    sc_json_free(spec);
    return c;
}

static char *read_rel(const arc_fixture *f, const char *rel)
{
    char *p = sc_path_join(f->payload, rel);
    char *bytes = NULL;
    size_t len = 0;
    sc_error err;
    if (sc_file_read(p, &bytes, &len, NULL, &err) != SC_OK)
        bytes = NULL;
    free(p);
    return bytes;
}

static int exists_rel(const arc_fixture *f, const char *rel)
{
    char *p = sc_path_join(f->payload, rel);
    struct stat st;
    int ok = lstat(p, &st) == 0;
    free(p);
    return ok;
}

/* The temporary extraction directory never outlives the call: the test
 * directory holds only "payload". */
static int no_leftovers(const arc_fixture *f)
{
    DIR *d = opendir(f->dir);
    if (!d)
        return 0;
    int ok = 1;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0 &&
            strcmp(de->d_name, "payload") != 0)
            ok = 0;
    }
    closedir(d);
    return ok;
}

static void test_asset_archive_zip_is_copied_into_destination_and_removed(void)
{
    static const arc_item items[] = {{"config.json", 'f', "{}"},
                                     {"weights", 'd', NULL},
                                     {"weights/w.bin", 'f', "WEIGHTS"},
                                     {NULL, 0, NULL}};
    arc_fixture f = arc_setup("model.zip", 1, items);
    sc_error err;
    SC_EXPECT_CODE(extract_with(&f, "{'relativePath': 'model.zip', 'format': 'zip', "
                                    "'destination': 'models/m'}", &err),
                   SC_OK, &err);
    char *a = read_rel(&f, "models/m/config.json");
    char *b = read_rel(&f, "models/m/weights/w.bin");
    CU_ASSERT(a && strcmp(a, "{}") == 0);
    CU_ASSERT(b && strcmp(b, "WEIGHTS") == 0);
    CU_ASSERT(!exists_rel(&f, "model.zip")); /* removeAfterExtract defaults to true */
    CU_ASSERT(no_leftovers(&f));
    free(a);
    free(b);
    arc_free(&f);
}

static void test_asset_archive_remove_after_extract_false_keeps_the_archive(void)
{
    static const arc_item items[] = {{"a.txt", 'f', "A"}, {NULL, 0, NULL}};
    arc_fixture f = arc_setup("m.tar.gz", 0, items);
    sc_error err;
    SC_EXPECT_CODE(extract_with(&f, "{'relativePath': 'm.tar.gz', 'format': 'tar.gz', "
                                    "'destination': 'out', 'removeAfterExtract': false}", &err),
                   SC_OK, &err);
    CU_ASSERT(exists_rel(&f, "out/a.txt"));
    CU_ASSERT(exists_rel(&f, "m.tar.gz"));
    arc_free(&f);
}

static void test_asset_archive_tar_gz_strip_components_drops_one_root_each_time(void)
{
    static const arc_item items[] = {{"./model-1.0/", 'd', NULL},
                                     {"./model-1.0/inner/", 'd', NULL},
                                     {"./model-1.0/inner/w.bin", 'f', "W"},
                                     {"./model-1.0/inner/sub/x.txt", 'f', "X"},
                                     {"./model-1.0/inner/__pycache__/m.cpython-312.pyc", 'f', "P"},
                                     {"./model-1.0/inner/.DS_Store", 'f', "D"},
                                     {"__MACOSX/._model-1.0", 'f', "junk"},
                                     {NULL, 0, NULL}};
    arc_fixture f = arc_setup("m.tar.gz", 0, items);
    sc_error err;
    SC_EXPECT_CODE(extract_with(&f, "{'relativePath': 'm.tar.gz', 'format': 'tar.gz', "
                                    "'destination': 'w', 'stripComponents': 2}", &err),
                   SC_OK, &err);
    char *w = read_rel(&f, "w/w.bin");
    CU_ASSERT(w && strcmp(w, "W") == 0);
    CU_ASSERT(exists_rel(&f, "w/sub/x.txt"));
    CU_ASSERT(!exists_rel(&f, "w/__pycache__"));
    CU_ASSERT(!exists_rel(&f, "w/.DS_Store"));
    CU_ASSERT(!exists_rel(&f, "w/__MACOSX"));
    CU_ASSERT(no_leftovers(&f));
    free(w);
    arc_free(&f);
}

static void test_asset_archive_strip_needs_exactly_one_root_directory(void)
{
    static const arc_item two[] = {{"a/x", 'f', "1"}, {"b/y", 'f', "2"}, {NULL, 0, NULL}};
    arc_fixture f = arc_setup("m.zip", 1, two);
    sc_error err;
    SC_EXPECT_CODE(extract_with(&f, "{'relativePath': 'm.zip', 'format': 'zip', "
                                    "'destination': 'w', 'stripComponents': 1}", &err),
                   SC_E_ASSET_ARCHIVE_CONFLICT, &err);
    CU_ASSERT(!exists_rel(&f, "w"));
    CU_ASSERT(exists_rel(&f, "m.zip")); /* a refused archive stays */
    CU_ASSERT(no_leftovers(&f));
    arc_free(&f);

    static const arc_item file_root[] = {{"only.txt", 'f', "1"}, {NULL, 0, NULL}};
    f = arc_setup("m.tar.gz", 0, file_root);
    SC_EXPECT_CODE(extract_with(&f, "{'relativePath': 'm.tar.gz', 'format': 'tar.gz', "
                                    "'destination': 'w', 'stripComponents': 1}", &err),
                   SC_E_ASSET_ARCHIVE_CONFLICT, &err);
    arc_free(&f);
}

static void test_asset_archive_existing_file_is_a_conflict_and_nothing_is_copied(void)
{
    static const arc_item items[] = {{"a.txt", 'f', "NEW-A"},
                                     {"b.txt", 'f', "NEW-B"},
                                     {NULL, 0, NULL}};
    arc_fixture f = arc_setup("m.zip", 1, items);
    sc_test_write(f.payload, "w/b.txt", "OLD-B");
    sc_error err;
    SC_EXPECT_CODE(extract_with(&f, "{'relativePath': 'm.zip', 'format': 'zip', "
                                    "'destination': 'w'}", &err),
                   SC_E_ASSET_ARCHIVE_CONFLICT, &err);
    CU_ASSERT(strstr(err.path, "w/b.txt") != NULL);
    CU_ASSERT(!exists_rel(&f, "w/a.txt")); /* checked before the first copy */
    char *b = read_rel(&f, "w/b.txt");
    CU_ASSERT(b && strcmp(b, "OLD-B") == 0);
    free(b);
    CU_ASSERT(no_leftovers(&f));
    arc_free(&f);
}

static void test_asset_archive_tar_gz_links_and_specials_are_refused(void)
{
    static const arc_item sym[] = {{"a.txt", 'f', "A"}, {"l", 'l', "a.txt"}, {NULL, 0, NULL}};
    arc_fixture f = arc_setup("m.tar.gz", 0, sym);
    sc_error err;
    SC_EXPECT_CODE(extract_with(&f, "{'relativePath': 'm.tar.gz', 'format': 'tar.gz', "
                                    "'destination': 'w'}", &err),
                   SC_E_LINK_ENTRY, &err);
    CU_ASSERT(!exists_rel(&f, "w"));
    CU_ASSERT(no_leftovers(&f));
    arc_free(&f);

    static const arc_item hard[] = {{"a.txt", 'f', "A"}, {"h", 'h', "a.txt"}, {NULL, 0, NULL}};
    f = arc_setup("m.tar.gz", 0, hard);
    SC_EXPECT_CODE(extract_with(&f, "{'relativePath': 'm.tar.gz', 'format': 'tar.gz', "
                                    "'destination': 'w'}", &err),
                   SC_E_LINK_ENTRY, &err);
    arc_free(&f);

    static const arc_item fifo[] = {{"p", 'p', NULL}, {NULL, 0, NULL}};
    f = arc_setup("m.tar.gz", 0, fifo);
    SC_EXPECT_CODE(extract_with(&f, "{'relativePath': 'm.tar.gz', 'format': 'tar.gz', "
                                    "'destination': 'w'}", &err),
                   SC_E_SPECIAL_ENTRY, &err);
    arc_free(&f);
}

static void test_asset_archive_tar_gz_unsafe_names_are_refused(void)
{
    static const arc_item items[] = {{"../escape.txt", 'f', "E"}, {NULL, 0, NULL}};
    arc_fixture f = arc_setup("m.tar.gz", 0, items);
    sc_error err;
    SC_EXPECT_CODE(extract_with(&f, "{'relativePath': 'm.tar.gz', 'format': 'tar.gz', "
                                    "'destination': 'w'}", &err),
                   SC_E_UNSAFE_PATH, &err);
    char *outside = sc_path_join(f.dir, "escape.txt");
    struct stat st;
    CU_ASSERT(lstat(outside, &st) != 0);
    free(outside);
    CU_ASSERT(no_leftovers(&f));
    arc_free(&f);
}

static void test_asset_archive_zip_links_are_copied_as_files(void)
{
    static const arc_item items[] = {{"a.txt", 'f', "AAA"}, {"l.txt", 'l', "a.txt"},
                                     {NULL, 0, NULL}};
    arc_fixture f = arc_setup("m.zip", 1, items);
    sc_error err;
    SC_EXPECT_CODE(extract_with(&f, "{'relativePath': 'm.zip', 'format': 'zip', "
                                    "'destination': 'w'}", &err),
                   SC_OK, &err);
    char *p = sc_path_join(f.payload, "w/l.txt");
    struct stat st;
    CU_ASSERT(lstat(p, &st) == 0 && S_ISREG(st.st_mode));
    free(p);
    char *l = read_rel(&f, "w/l.txt");
    CU_ASSERT(l && strcmp(l, "AAA") == 0);
    free(l);
    arc_free(&f);
}

static void test_asset_archive_destination_through_a_link_is_a_conflict(void)
{
    static const arc_item items[] = {{"a.txt", 'f', "A"}, {NULL, 0, NULL}};
    arc_fixture f = arc_setup("m.zip", 1, items);
    char *outside = sc_path_join(f.dir, "outside");
    char *link = sc_path_join(f.payload, "w");
    CU_ASSERT_FATAL(mkdir(outside, 0755) == 0 && symlink(outside, link) == 0);
    sc_error err;
    SC_EXPECT_CODE(extract_with(&f, "{'relativePath': 'm.zip', 'format': 'zip', "
                                    "'destination': 'w/sub'}", &err),
                   SC_E_ASSET_ARCHIVE_CONFLICT, &err);
    char *planted = sc_path_join(outside, "sub");
    struct stat st;
    CU_ASSERT(lstat(planted, &st) != 0);
    free(planted);
    free(outside);
    free(link);
    arc_free(&f);
}

/* Inside one archive, two names that differ only in ASCII case are one
 * name on a case-insensitive file system: entry-collision, as the zip
 * reader says, and nothing reaches the payload (issue 14: a tar.gz pair was
 * merged into the payload and caught only later). */
static void asset_archive_case_pair_refused(int zip, const arc_item *items, const char *rel)
{
    arc_fixture f = arc_setup(rel, zip, items);
    sc_error err;
    char spec[200];
    snprintf(spec, sizeof spec, "{'relativePath': '%s', 'format': '%s', 'destination': 'w'}",
             rel, zip ? "zip" : "tar.gz");
    SC_EXPECT_CODE(extract_with(&f, spec, &err), SC_E_ENTRY_COLLISION, &err);
    CU_ASSERT(!exists_rel(&f, "w")); /* nothing merged */
    CU_ASSERT(exists_rel(&f, rel));   /* a refused archive stays */
    CU_ASSERT(no_leftovers(&f));
    arc_free(&f);
}

static void test_asset_archive_case_pair_inside_the_archive_is_a_collision(void)
{
    static const arc_item files[] = {{"Weights.bin", 'f', "A"}, {"weights.bin", 'f', "B"},
                                     {NULL, 0, NULL}};
    static const arc_item dirs[] = {{"Models/a.txt", 'f', "A"}, {"models/b.txt", 'f', "B"},
                                    {NULL, 0, NULL}};
    static const arc_item deep[] = {{"root/x/Y/z.txt", 'f', "A"}, {"root/x/y/z.txt", 'f', "B"},
                                    {NULL, 0, NULL}};
    asset_archive_case_pair_refused(0, files, "m.tar.gz");
    asset_archive_case_pair_refused(0, dirs, "m.tar.gz");
    asset_archive_case_pair_refused(0, deep, "m.tar.gz");
    asset_archive_case_pair_refused(1, files, "m.zip");
    asset_archive_case_pair_refused(1, dirs, "m.zip");
    /* names the payload never holds (14.3) do not count: x.pyc beside X.pyc */
    static const arc_item skipped[] = {{"a/x.pyc", 'f', "A"}, {"a/X.pyc", 'f', "B"},
                                       {"a/ok.txt", 'f', "C"}, {NULL, 0, NULL}};
    arc_fixture f = arc_setup("m.tar.gz", 0, skipped);
    sc_error err;
    SC_EXPECT_CODE(extract_with(&f, "{'relativePath': 'm.tar.gz', 'format': 'tar.gz', "
                                    "'destination': 'w'}", &err),
                   SC_OK, &err);
    CU_ASSERT(exists_rel(&f, "w/a/ok.txt"));
    arc_free(&f);
}

/* Against the payload: an archive's name that differs only in ASCII case
 * from one the payload holds (a file or a directory, at any depth, or the
 * destination itself) is asset-archive-conflict before anything is copied. */
static void asset_archive_payload_case_conflict(int zip, const arc_item *items,
                                                const char *existing, const char *destination)
{
    const char *rel = zip ? "m.zip" : "m.tar.gz";
    arc_fixture f = arc_setup(rel, zip, items);
    sc_test_write(f.payload, existing, "OLD");
    sc_error err;
    char spec[200];
    snprintf(spec, sizeof spec, "{'relativePath': '%s', 'format': '%s', 'destination': '%s'}",
             rel, zip ? "zip" : "tar.gz", destination);
    SC_EXPECT_CODE(extract_with(&f, spec, &err), SC_E_ASSET_ARCHIVE_CONFLICT, &err);
    char *first = sc_path_join(destination, "a-first.txt");
    CU_ASSERT(!exists_rel(&f, first)); /* checked before the first copy */
    free(first);
    CU_ASSERT(exists_rel(&f, rel));
    CU_ASSERT(no_leftovers(&f));
    arc_free(&f);
}

static void test_asset_archive_case_pair_with_the_payload_is_a_conflict(void)
{
    static const arc_item items[] = {{"a-first.txt", 'f', "1"}, {"Config.json", 'f', "{}"},
                                     {"Sub/x.txt", 'f', "X"}, {NULL, 0, NULL}};
    for (int zip = 0; zip <= 1; zip++) {
        asset_archive_payload_case_conflict(zip, items, "w/config.json", "w"); /* a file */
        asset_archive_payload_case_conflict(zip, items, "w/sub/old.txt", "w"); /* a directory */
        asset_archive_payload_case_conflict(zip, items, "W/other.txt", "w");   /* destination */
        asset_archive_payload_case_conflict(zip, items, "models/M/x", "models/m/w");
    }
    /* the same name exactly is merged (a directory) as before */
    arc_fixture f = arc_setup("m.tar.gz", 0, items);
    sc_test_write(f.payload, "w/Sub/old.txt", "OLD");
    sc_error err;
    SC_EXPECT_CODE(extract_with(&f, "{'relativePath': 'm.tar.gz', 'format': 'tar.gz', "
                                    "'destination': 'w'}", &err),
                   SC_OK, &err);
    CU_ASSERT(exists_rel(&f, "w/Sub/old.txt") && exists_rel(&f, "w/Sub/x.txt"));
    arc_free(&f);
}

static void test_asset_archive_missing_source_is_asset_missing(void)
{
    char *dir = sc_test_tmpdir();
    arc_fixture f = {dir, sc_path_join(dir, "payload"), NULL};
    CU_ASSERT_FATAL(mkdir(f.payload, 0755) == 0);
    sc_error err;
    SC_EXPECT_CODE(extract_with(&f, "{'relativePath': 'none.zip', 'format': 'zip', "
                                    "'destination': 'w'}", &err),
                   SC_E_ASSET_MISSING, &err);
    arc_free(&f);
}

/* ---- 10.7 / 20.4 licence inventory --------------------------------------- */

#define CF "https://conda.anaconda.org/conda-forge/"
#define LOCK_HEAD "version: 6\nenvironments:\n  default:\n    channels:\n    - url: " CF "\n" \
                  "    packages:\n      linux-64:\n"

static const char lock_ok[] =
    LOCK_HEAD
    "      - conda: " CF "linux-64/zlib-1.3.1-hb9d3cd8_2.conda\n"
    "      - conda: " CF "linux-64/python-3.12.7-hc5c86c4_0_cpython.conda\n"
    "      - pypi: https://files.pythonhosted.org/packages/ab/numpy-2.1.0-cp312-cp312-manylinux_2_17_x86_64.whl\n"
    "      - conda: " CF "noarch/python-1.0-h0_0.conda\n"
    "      osx-arm64:\n"
    "      - conda: " CF "osx-arm64/libcxx-19.1.4-ha82da77_0.conda\n"
    "packages:\n"
    "- conda: " CF "linux-64/zlib-1.3.1-hb9d3cd8_2.conda\n  license: Zlib\n"
    "- conda: " CF "linux-64/python-3.12.7-hc5c86c4_0_cpython.conda\n  license: Python-2.0\n"
    "- pypi: https://files.pythonhosted.org/packages/ab/numpy-2.1.0-cp312-cp312-manylinux_2_17_x86_64.whl\n"
    "  name: numpy\n  version: 2.1.0\n  license: BSD-3-Clause\n"
    "- conda: " CF "noarch/python-1.0-h0_0.conda\n  license: MIT\n"
    "- conda: " CF "osx-arm64/libcxx-19.1.4-ha82da77_0.conda\n  license: Apache-2.0\n";

#define LOCK_SHA "1111111111111111111111111111111111111111111111111111111111111111"

static sc_pixi_lock *lock_of(const char *text)
{
    sc_pixi_lock *lock = NULL;
    sc_error err;
    SC_EXPECT_CODE(sc_pixi_lock_parse(text, strlen(text), "pixi.lock", &lock, &err), SC_OK, &err);
    CU_ASSERT_FATAL(lock != NULL);
    return lock;
}

static sc_target linux_cpu(void)
{
    sc_target t;
    sc_error err;
    CU_ASSERT_FATAL(sc_target_parse_id("linux-x86_64-cpu", &t, &err) == SC_OK);
    return t;
}

static char *inventory_text(const char *lock_text, sc_code want, sc_error *err)
{
    sc_pixi_lock *lock = lock_of(lock_text);
    sc_target t = linux_cpu();
    sc_json *inv = NULL;
    sc_code c = sc_license_inventory(lock, &t, LOCK_SHA, NULL, &inv, err);
    SC_EXPECT_CODE(c, want, err);
    char *text = NULL;
    size_t len = 0;
    if (inv)
        CU_ASSERT(sc_json_write(inv, &text, &len, err) == SC_OK);
    sc_json_free(inv);
    sc_pixi_lock_free(lock);
    return text;
}

static void test_license_inventory_lists_the_target_platform_sorted_by_name_then_version(void)
{
    sc_error err;
    char *text = inventory_text(lock_ok, SC_OK, &err);
    CU_ASSERT_FATAL(text != NULL);
    char *want = sc_test_dq(
        "{\n  'schemaVersion': 3,\n  'kind': 'scrollcase.box.dependency-license-audit',\n"
        "  'targetId': 'linux-x86_64-cpu',\n  'lockSha256': '" LOCK_SHA "',\n  'packages': [\n"
        "    {\n      'name': 'numpy',\n      'version': '2.1.0',\n"
        "      'declaredLicense': 'BSD-3-Clause',\n      'source': 'pypi'\n    },\n"
        "    {\n      'name': 'python',\n      'version': '1.0',\n"
        "      'declaredLicense': 'MIT',\n      'source': 'conda'\n    },\n"
        "    {\n      'name': 'python',\n      'version': '3.12.7',\n"
        "      'declaredLicense': 'Python-2.0',\n      'source': 'conda'\n    },\n"
        "    {\n      'name': 'zlib',\n      'version': '1.3.1',\n"
        "      'declaredLicense': 'Zlib',\n      'source': 'conda'\n    }\n  ]\n}\n");
    CU_ASSERT_STRING_EQUAL(text, want);
    if (strcmp(text, want) != 0)
        fprintf(stderr, "\n%s\n", text);
    free(want);
    free(text);
}

/* The same packages in a format 7 lock, whose platform is named other than
 * its subdir, give the same inventory. */
static void test_license_inventory_reads_a_v7_lock(void)
{
    static const char lock7[] =
        "version: 7\nplatforms:\n- name: cpu\n  subdir: linux-64\n- name: osx-arm64\n"
        "environments:\n  default:\n    channels:\n    - url: " CF "\n    packages:\n"
        "      cpu:\n"
        "      - conda: " CF "linux-64/zlib-1.3.1-hb9d3cd8_2.conda\n"
        "      - conda: " CF "linux-64/python-3.12.7-hc5c86c4_0_cpython.conda\n"
        "      - pypi: https://files.pythonhosted.org/packages/ab/numpy-2.1.0-cp312-cp312-manylinux_2_17_x86_64.whl\n"
        "      - conda: " CF "noarch/python-1.0-h0_0.conda\n"
        "      osx-arm64:\n"
        "      - conda: " CF "osx-arm64/libcxx-19.1.4-ha82da77_0.conda\n"
        "packages:\n"
        "- conda: " CF "linux-64/zlib-1.3.1-hb9d3cd8_2.conda\n  license: Zlib\n"
        "- conda: " CF "linux-64/python-3.12.7-hc5c86c4_0_cpython.conda\n  license: Python-2.0\n"
        "- pypi: https://files.pythonhosted.org/packages/ab/numpy-2.1.0-cp312-cp312-manylinux_2_17_x86_64.whl\n"
        "  name: numpy\n  version: 2.1.0\n  license: BSD-3-Clause\n"
        "- conda: " CF "noarch/python-1.0-h0_0.conda\n  license: MIT\n"
        "- conda: " CF "osx-arm64/libcxx-19.1.4-ha82da77_0.conda\n  license: Apache-2.0\n";
    sc_error err;
    char *v6 = inventory_text(lock_ok, SC_OK, &err);
    char *v7 = inventory_text(lock7, SC_OK, &err);
    CU_ASSERT(v6 != NULL && v7 != NULL && strcmp(v6, v7) == 0);
    free(v6);
    free(v7);
    /* a versionless package built from source cannot be listed */
    static const char srcpkg[] =
        "version: 7\nplatforms:\n- name: linux-64\nenvironments:\n  default:\n    packages:\n"
        "      linux-64:\n      - pypi: ./tools\npackages:\n- pypi: ./tools\n  name: tools\n"
        "  license: MIT\n";
    char *t = inventory_text(srcpkg, SC_E_INVALID_LOCK, &err);
    CU_ASSERT(t == NULL);
    CU_ASSERT(strstr(err.message, "version") != NULL);
}

/* 10.7: each (name, version) once; two builds of one version are refused. */
static void test_license_inventory_refuses_a_name_and_version_locked_twice(void)
{
    static const char twice[] =
        LOCK_HEAD "      - conda: " CF "linux-64/zlib-1.3.1-hb9d3cd8_2.conda\n"
        "      - conda: " CF "linux-64/zlib-1.3.1-h4ab18f5_1.conda\n"
        "packages:\n- conda: " CF "linux-64/zlib-1.3.1-hb9d3cd8_2.conda\n  license: Zlib\n"
        "- conda: " CF "linux-64/zlib-1.3.1-h4ab18f5_1.conda\n  license: Zlib\n";
    sc_error err;
    char *t = inventory_text(twice, SC_E_LICENSE_AUDIT_MISMATCH, &err);
    CU_ASSERT(t == NULL);
    CU_ASSERT_STRING_EQUAL(err.path, "zlib");
    CU_ASSERT(strstr(err.message, "twice") != NULL);
}

static void test_license_inventory_refuses_unknown_or_absent_licences(void)
{
    static const char unknown[] =
        LOCK_HEAD "      - conda: " CF "linux-64/zlib-1.3.1-hb9d3cd8_2.conda\n"
        "packages:\n- conda: " CF "linux-64/zlib-1.3.1-hb9d3cd8_2.conda\n  license: unknown\n";
    static const char absent[] =
        LOCK_HEAD "      - conda: " CF "linux-64/zlib-1.3.1-hb9d3cd8_2.conda\n"
        "packages:\n- conda: " CF "linux-64/zlib-1.3.1-hb9d3cd8_2.conda\n";
    sc_error err;
    char *t = inventory_text(unknown, SC_E_LICENSE_AUDIT_MISMATCH, &err);
    CU_ASSERT(t == NULL);
    CU_ASSERT(strstr(err.message, "zlib") != NULL);
    t = inventory_text(absent, SC_E_LICENSE_AUDIT_MISMATCH, &err);
    CU_ASSERT(t == NULL);
    CU_ASSERT_STRING_EQUAL(err.path, "zlib");
}

static void test_license_inventory_namespace_names_the_kind(void)
{
    sc_pixi_lock *lock = lock_of(lock_ok);
    sc_target t = linux_cpu();
    sc_json *inv = NULL;
    sc_error err;
    SC_EXPECT_CODE(sc_license_inventory(lock, &t, LOCK_SHA, "org.example", &inv, &err), SC_OK,
                   &err);
    CU_ASSERT_STRING_EQUAL(sc_json_cstr(sc_json_get(inv, "kind")),
                           "org.example.dependency-license-audit");
    sc_json_free(inv);
    /* a platform the lock does not cover */
    sc_target w;
    CU_ASSERT_FATAL(sc_target_parse_id("windows-x86_64-cpu", &w, &err) == SC_OK);
    SC_EXPECT_CODE(sc_license_inventory(lock, &w, LOCK_SHA, NULL, &inv, &err), SC_E_INVALID_LOCK,
                   &err);
    CU_ASSERT(inv == NULL);
    sc_pixi_lock_free(lock);
}

static void test_license_gate_accepts_the_reviewed_file_and_writes_the_notices(void)
{
    sc_error err;
    char *text = inventory_text(lock_ok, SC_OK, &err);
    CU_ASSERT_FATAL(text != NULL);
    char *dir = sc_test_tmpdir();
    /* the reviewed file may be formatted differently: compared after writing */
    sc_json *doc = NULL;
    CU_ASSERT_FATAL(sc_json_parse(text, strlen(text), &doc, &err) == SC_OK);
    char *compact = NULL;
    size_t clen = 0;
    CU_ASSERT_FATAL(sc_json_write_compact(doc, &compact, &clen, &err) == SC_OK);
    sc_test_write(dir, "conda-licenses.json", compact);
    char *reviewed = sc_path_join(dir, "conda-licenses.json");
    char *payload = sc_path_join(dir, "payload");
    CU_ASSERT_FATAL(mkdir(payload, 0755) == 0);
    SC_EXPECT_CODE(sc_license_gate(doc, reviewed, payload, &err), SC_OK, &err);
    char *notices = sc_path_join(payload, SC_LICENSE_NOTICES_PATH);
    char *bytes = NULL;
    size_t len = 0;
    SC_EXPECT_CODE(sc_file_read(notices, &bytes, &len, NULL, &err), SC_OK, &err);
    CU_ASSERT(bytes && strcmp(bytes, text) == 0);
    free(bytes);
    free(notices);
    free(compact);
    sc_json_free(doc);
    free(reviewed);
    free(payload);
    free(text);
    sc_test_rmtree(dir);
    free(dir);
}

static void test_license_gate_refuses_a_reviewed_file_that_differs(void)
{
    sc_error err;
    char *text = inventory_text(lock_ok, SC_OK, &err);
    CU_ASSERT_FATAL(text != NULL);
    sc_json *doc = NULL;
    CU_ASSERT_FATAL(sc_json_parse(text, strlen(text), &doc, &err) == SC_OK);
    char *dir = sc_test_tmpdir();
    char *reviewed = sc_path_join(dir, "conda-licenses.json");
    char *payload = sc_path_join(dir, "payload");
    CU_ASSERT_FATAL(mkdir(payload, 0755) == 0);

    /* a licence changed in the lock since the review */
    char *changed = strdup(text);
    char *at = strstr(changed, "Zlib");
    CU_ASSERT_FATAL(at != NULL);
    memcpy(at, "ZLIB", 4);
    sc_test_write(dir, "conda-licenses.json", changed);
    SC_EXPECT_CODE(sc_license_gate(doc, reviewed, payload, &err), SC_E_LICENSE_AUDIT_MISMATCH,
                   &err);
    CU_ASSERT(strstr(err.message, "zlib") != NULL);
    char *notices = sc_path_join(payload, SC_LICENSE_NOTICES_PATH);
    struct stat st;
    CU_ASSERT(lstat(notices, &st) != 0); /* nothing written on refusal */

    /* another lock digest */
    char *other = strdup(text);
    at = strstr(other, LOCK_SHA);
    CU_ASSERT_FATAL(at != NULL);
    at[0] = '2';
    sc_test_write(dir, "conda-licenses.json", other);
    SC_EXPECT_CODE(sc_license_gate(doc, reviewed, payload, &err), SC_E_LICENSE_AUDIT_MISMATCH,
                   &err);
    CU_ASSERT(strstr(err.message, "lockSha256") != NULL);

    /* a schema-2 inventory (upstream's): refused by name, with the way out */
    char *v2 = strdup(text);
    at = strstr(v2, "'schemaVersion': 3") ? NULL : strstr(v2, "\"schemaVersion\": 3");
    CU_ASSERT_FATAL(at != NULL);
    at[strlen("\"schemaVersion\": ")] = '2';
    sc_test_write(dir, "conda-licenses.json", v2);
    SC_EXPECT_CODE(sc_license_gate(doc, reviewed, payload, &err), SC_E_DEPRECATED_SCHEMA_VERSION,
                   &err);
    CU_ASSERT(strstr(err.message, "`" SC_REMEDY_AUDIT_WRITE "`") != NULL);
    CU_ASSERT(strstr(err.message, "`" SC_REMEDY_MIGRATE "`") != NULL);
    at[strlen("\"schemaVersion\": ")] = '4';
    sc_test_write(dir, "conda-licenses.json", v2);
    SC_EXPECT_CODE(sc_license_gate(doc, reviewed, payload, &err), SC_E_UNSUPPORTED_SCHEMA_VERSION,
                   &err);
    free(v2);

    /* the reviewed file is missing */
    unlink(reviewed);
    SC_EXPECT_CODE(sc_license_gate(doc, reviewed, payload, &err), SC_E_LICENSE_AUDIT_MISMATCH,
                   &err);
    CU_ASSERT(strstr(err.message, "does not exist") != NULL);

    free(notices);
    free(changed);
    free(other);
    sc_json_free(doc);
    free(reviewed);
    free(payload);
    free(text);
    sc_test_rmtree(dir);
    free(dir);
}

/* ---- registration --------------------------------------------------------- */

/* ---- lazylib: libcurl and libarchive loaded on first use ------------------ */

static void test_lazy_curl_table_is_whole_and_works(void)
{
    const sc_curl_api *cu = NULL;
    sc_error err;
    CU_ASSERT_EQUAL_FATAL(sc_lazy_curl(&cu, &err), SC_OK);
    CU_ASSERT_PTR_NOT_NULL(cu->global_init);
    CU_ASSERT_PTR_NOT_NULL(cu->easy_init);
    CU_ASSERT_PTR_NOT_NULL(cu->easy_setopt);
    CU_ASSERT_PTR_NOT_NULL(cu->easy_perform);
    CU_ASSERT_PTR_NOT_NULL(cu->easy_getinfo);
    CU_ASSERT_PTR_NOT_NULL(cu->easy_cleanup);
    CU_ASSERT_PTR_NOT_NULL_FATAL(cu->easy_strerror);
    /* The loaded library answers like the one the headers describe. */
    CU_ASSERT_STRING_EQUAL(cu->easy_strerror(CURLE_UNSUPPORTED_PROTOCOL), "Unsupported protocol");
    const sc_curl_api *again = NULL;
    CU_ASSERT_EQUAL(sc_lazy_curl(&again, &err), SC_OK);
    CU_ASSERT_PTR_EQUAL(again, cu);
}

static void test_lazy_archive_table_is_whole_and_works(void)
{
    const sc_archive_api *la = NULL;
    sc_error err;
    CU_ASSERT_EQUAL_FATAL(sc_lazy_archive(&la, &err), SC_OK);
    CU_ASSERT(la->read_new != NULL && la->read_support_filter_gzip != NULL &&
              la->read_support_format_tar != NULL && la->read_support_format_gnutar != NULL &&
              la->read_open_filename != NULL && la->read_next_header != NULL &&
              la->read_data != NULL && la->read_data_into_fd != NULL && la->read_free != NULL &&
              la->error_string != NULL && la->entry_pathname != NULL &&
              la->entry_hardlink != NULL && la->entry_symlink != NULL &&
              la->entry_filetype != NULL && la->entry_perm != NULL);
    struct archive *a = la->read_new();
    CU_ASSERT_PTR_NOT_NULL_FATAL(a);
    CU_ASSERT_EQUAL(la->read_support_format_tar(a), ARCHIVE_OK);
    CU_ASSERT_NOT_EQUAL(la->read_open_filename(a, "/nonexistent/scrollcase.tar.gz", 4096),
                        ARCHIVE_OK);
    CU_ASSERT_PTR_NOT_NULL(la->error_string(a));
    CU_ASSERT_EQUAL(la->read_free(a), ARCHIVE_OK);
}

static void test_lazy_missing_library_is_library_missing_naming_the_package(void)
{
    static const sc_lazy_symbol syms[] = {{"curl_easy_init", 0}};
    void *table[1] = {NULL};
    sc_error err;
    sc_error_clear(&err);
    CU_ASSERT_EQUAL(sc_lazy_load("libscrollcase-absent.so.7", "libscrollcase-absent7", syms, 1,
                                 table, &err),
                    SC_E_LIBRARY_MISSING);
    CU_ASSERT_EQUAL(err.code, SC_E_LIBRARY_MISSING);
    CU_ASSERT_STRING_EQUAL(err.path, "libscrollcase-absent.so.7");
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "libscrollcase-absent.so.7 cannot be loaded"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "apt-get install libscrollcase-absent7"));
    CU_ASSERT_PTR_NULL(strchr(err.message, '\n'));
    CU_ASSERT_PTR_NULL(table[0]);
}

/* libraries.h: the two, in order, each named with its soname and package;
 * a load through it is the same load as the table's first use. */
static void test_libraries_lists_curl_then_archive_and_loads_each(void)
{
    CU_ASSERT_EQUAL_FATAL(sc_library_count(), 2);
    const sc_library_info *c = sc_library_at(0), *a = sc_library_at(1);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    CU_ASSERT_PTR_NOT_NULL_FATAL(a);
    CU_ASSERT_PTR_NULL(sc_library_at(2));
    CU_ASSERT_STRING_EQUAL(c->name, "libcurl");
    CU_ASSERT_STRING_EQUAL(a->name, "libarchive");
    CU_ASSERT_EQUAL(strncmp(c->soname, "libcurl.so.", 11), 0);
    CU_ASSERT_EQUAL(strncmp(a->soname, "libarchive.so.", 14), 0);
    CU_ASSERT_STRING_EQUAL(c->package, "libcurl4");
    CU_ASSERT_STRING_EQUAL(a->package, "libarchive13");
    CU_ASSERT(c->needed_for[0] != '\0' && a->needed_for[0] != '\0');
    sc_error err;
    SC_EXPECT_CODE(sc_library_load(0, &err), SC_OK, &err);
    SC_EXPECT_CODE(sc_library_load(1, &err), SC_OK, &err);
    const sc_curl_api *cu = NULL;
    CU_ASSERT_EQUAL(sc_lazy_curl(&cu, &err), SC_OK);
    CU_ASSERT_PTR_NOT_NULL(cu->easy_init);
    SC_EXPECT_CODE(sc_library_load(2, &err), SC_E_USAGE, &err);
}

static void test_lazy_missing_symbol_is_library_missing_naming_the_symbol(void)
{
    /* libz is loaded already (libscrollcase links it); it has no such function. */
    static const sc_lazy_symbol syms[] = {{"zlibVersion", 0},
                                          {"scrollcase_no_such_function", sizeof(void *)}};
    void *table[2] = {NULL, NULL};
    sc_error err;
    sc_error_clear(&err);
    CU_ASSERT_EQUAL(sc_lazy_load("libz.so.1", "zlib1g", syms, 2, table, &err),
                    SC_E_LIBRARY_MISSING);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "libz.so.1 has no scrollcase_no_such_function"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "apt-get install zlib1g"));
}

void register_download_tests(void)
{
    CU_pSuite d = CU_add_suite("download", NULL, NULL);
    if (d == NULL)
        return;
    SC_ADD_TEST(d, test_download_verified_places_the_pinned_file);
    SC_ADD_TEST(d, test_download_verified_file_in_place_is_kept_without_a_request);
    SC_ADD_TEST(d, test_download_size_mismatch_keeps_the_partial);
    SC_ADD_TEST(d, test_download_hash_mismatch_deletes_the_partial);
    SC_ADD_TEST(d, test_download_resumes_after_a_dropped_connection_with_range);
    SC_ADD_TEST(d, test_download_existing_partial_is_resumed_with_range);
    SC_ADD_TEST(d, test_download_200_instead_of_206_restarts_from_zero);
    SC_ADD_TEST(d, test_download_404_is_final_and_not_retried);
    SC_ADD_TEST(d, test_download_500_is_retried_then_fails);
    SC_ADD_TEST(d, test_download_network_errors_are_retried_then_fail);
    SC_ADD_TEST(d, test_download_stall_is_a_timeout);
    SC_ADD_TEST(d, test_download_redirect_is_followed);
    SC_ADD_TEST(d, test_download_only_http_and_https);
    SC_ADD_TEST(d, test_download_measure_reports_size_and_sha256);
    SC_ADD_TEST(d, test_download_unpinned_endless_body_stops_at_its_bound);
    SC_ADD_TEST(d, test_download_trickle_ends_at_the_deadline);

    CU_pSuite a = CU_add_suite("asset_archive", NULL, NULL);
    if (a == NULL)
        return;
    SC_ADD_TEST(a, test_asset_archive_zip_is_copied_into_destination_and_removed);
    SC_ADD_TEST(a, test_asset_archive_remove_after_extract_false_keeps_the_archive);
    SC_ADD_TEST(a, test_asset_archive_tar_gz_strip_components_drops_one_root_each_time);
    SC_ADD_TEST(a, test_asset_archive_strip_needs_exactly_one_root_directory);
    SC_ADD_TEST(a, test_asset_archive_existing_file_is_a_conflict_and_nothing_is_copied);
    SC_ADD_TEST(a, test_asset_archive_tar_gz_links_and_specials_are_refused);
    SC_ADD_TEST(a, test_asset_archive_tar_gz_unsafe_names_are_refused);
    SC_ADD_TEST(a, test_asset_archive_zip_links_are_copied_as_files);
    SC_ADD_TEST(a, test_asset_archive_destination_through_a_link_is_a_conflict);
    SC_ADD_TEST(a, test_asset_archive_missing_source_is_asset_missing);
    SC_ADD_TEST(a, test_asset_archive_case_pair_inside_the_archive_is_a_collision);
    SC_ADD_TEST(a, test_asset_archive_case_pair_with_the_payload_is_a_conflict);

    CU_pSuite l = CU_add_suite("licenses", NULL, NULL);
    if (l == NULL)
        return;
    SC_ADD_TEST(l, test_license_inventory_lists_the_target_platform_sorted_by_name_then_version);
    SC_ADD_TEST(l, test_license_inventory_refuses_unknown_or_absent_licences);
    SC_ADD_TEST(l, test_license_inventory_refuses_a_name_and_version_locked_twice);
    SC_ADD_TEST(l, test_license_inventory_reads_a_v7_lock);
    SC_ADD_TEST(l, test_license_inventory_namespace_names_the_kind);
    SC_ADD_TEST(l, test_license_gate_accepts_the_reviewed_file_and_writes_the_notices);
    SC_ADD_TEST(l, test_license_gate_refuses_a_reviewed_file_that_differs);

    CU_pSuite z = CU_add_suite("lazylib", NULL, NULL);
    if (z == NULL)
        return;
    SC_ADD_TEST(z, test_lazy_curl_table_is_whole_and_works);
    SC_ADD_TEST(z, test_lazy_archive_table_is_whole_and_works);
    SC_ADD_TEST(z, test_lazy_missing_library_is_library_missing_naming_the_package);
    SC_ADD_TEST(z, test_lazy_missing_symbol_is_library_missing_naming_the_symbol);
    SC_ADD_TEST(z, test_libraries_lists_curl_then_archive_and_loads_each);
}
