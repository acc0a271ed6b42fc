/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_progress.c — sizes for people (progress.h): the exact byte count
 * always beside the rounded one; and the library's counting: every long
 * step's totals are the real sums, its first event has nothing done, its
 * finished event comes once and last with done equal to the totals, a big
 * file reports while it is read, a failing step sends no finished event,
 * and listening never changes what a step writes.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "scrollcase/archive_read.h"
#include "scrollcase/archive_write.h"
#include "scrollcase/payload.h"
#include "scrollcase/process.h"
#include "scrollcase/progress.h"

#include "progress_internal.h"

static void progress_sizes_carry_the_exact_bytes(void)
{
    char b[64];
    sc_progress_human_size(0, b, sizeof b);
    CU_ASSERT_STRING_EQUAL(b, "0 bytes");
    sc_progress_human_size(1023, b, sizeof b);
    CU_ASSERT_STRING_EQUAL(b, "1023 bytes");
    sc_progress_human_size(1536, b, sizeof b);
    CU_ASSERT_STRING_EQUAL(b, "1.5 KiB (1536 bytes)");
    sc_progress_human_size(2147483648ULL, b, sizeof b);
    CU_ASSERT_STRING_EQUAL(b, "2.0 GiB (2147483648 bytes)");
    sc_progress_human_size(18446744073709551615ULL, b, sizeof b);
    CU_ASSERT_STRING_EQUAL(b, "16.0 EiB (18446744073709551615 bytes)");
}

static void progress_short_sizes_round_to_one_decimal(void)
{
    char b[32];
    sc_progress_short_size(512, b, sizeof b);
    CU_ASSERT_STRING_EQUAL(b, "512 B");
    sc_progress_short_size(5 * 1024 * 1024 + 512 * 1024, b, sizeof b);
    CU_ASSERT_STRING_EQUAL(b, "5.5 MiB");
    char tiny[4];
    CU_ASSERT_EQUAL(sc_progress_short_size(1536, tiny, sizeof tiny), strlen("1.5 KiB"));
    CU_ASSERT_EQUAL(tiny[3], '\0');
}

/* ---- the library's events -------------------------------------------------- */

typedef struct rec_event {
    const char *step; /* static */
    uint64_t bytes_done, bytes_total, files_done, files_total, elapsed_ms, limit_ms;
    int finished;
} rec_event;

typedef struct recorder {
    rec_event ev[4096];
    size_t n, overflow;
} recorder;

static void record(void *ctx, const sc_progress_event *e)
{
    recorder *r = ctx;
    if (r->n == sizeof r->ev / sizeof r->ev[0]) {
        r->overflow++;
        return;
    }
    rec_event x = {e->step,        e->bytes_done, e->bytes_total, e->files_done,
                   e->files_total, e->elapsed_ms, e->limit_ms,    e->finished};
    r->ev[r->n++] = x;
}

/* The events of one step: first with nothing done, counts never going
 * back, totals fixed, one finished event, last, done == totals.  Returns
 * how many events the step sent. */
static size_t expect_step(const recorder *r, const char *step, uint64_t bytes, uint64_t files)
{
    size_t n = 0, finished = 0;
    const rec_event *prev = NULL;
    CU_ASSERT_EQUAL(r->overflow, 0);
    for (size_t i = 0; i < r->n; i++) {
        const rec_event *e = &r->ev[i];
        if (strcmp(e->step, step) != 0)
            continue;
        if (n == 0) {
            CU_ASSERT_EQUAL(e->bytes_done, 0);
            CU_ASSERT_EQUAL(e->files_done, 0);
            CU_ASSERT_FALSE(e->finished);
        }
        CU_ASSERT_EQUAL(e->bytes_total, bytes);
        CU_ASSERT_EQUAL(e->files_total, files);
        CU_ASSERT_TRUE(e->bytes_done <= bytes);
        CU_ASSERT_TRUE(e->files_done <= files);
        if (prev != NULL) {
            CU_ASSERT_FALSE(prev->finished); /* nothing after the finished event */
            CU_ASSERT_TRUE(e->bytes_done >= prev->bytes_done);
            CU_ASSERT_TRUE(e->files_done >= prev->files_done);
        }
        if (e->finished) {
            finished++;
            CU_ASSERT_EQUAL(e->bytes_done, bytes);
            CU_ASSERT_EQUAL(e->files_done, files);
        }
        prev = e;
        n++;
    }
    CU_ASSERT_EQUAL(finished, 1);
    CU_ASSERT_PTR_NOT_NULL(prev);
    if (prev != NULL)
        CU_ASSERT_TRUE(prev->finished);
    return n;
}

static size_t count_step(const recorder *r, const char *step, int finished_only)
{
    size_t n = 0;
    for (size_t i = 0; i < r->n; i++)
        if (strcmp(r->ev[i].step, step) == 0 && (!finished_only || r->ev[i].finished))
            n++;
    return n;
}

#define BIG ((size_t)3 * 1024 * 1024 + 17)

/* A tree of an empty file, a small one, a 3 MiB one and a link. */
static char *progress_tree(uint64_t *bytes)
{
    char *root = sc_test_tmpdir();
    sc_test_write(root, "empty", "");
    sc_test_write(root, "a/small.txt", "hello, progress\n");
    char *big = malloc(strlen(root) + 16);
    snprintf(big, strlen(root) + 16, "%s/a/big.bin", root);
    FILE *f = fopen(big, "wb");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    for (size_t i = 0; i < BIG; i++)
        fputc((int)(i * 7 % 251), f);
    fclose(f);
    free(big);
    char *link = malloc(strlen(root) + 16);
    snprintf(link, strlen(root) + 16, "%s/a/link", root);
    CU_ASSERT_EQUAL(symlink("small.txt", link), 0);
    free(link);
    *bytes = 0 + strlen("hello, progress\n") + BIG;
    return root;
}

static void progress_digest_totals_are_the_sums_of_the_hashed_files(void)
{
    uint64_t bytes;
    char *root = progress_tree(&bytes);
    static recorder r;
    memset(&r, 0, sizeof r);
    sc_payload_options o;
    memset(&o, 0, sizeof o);
    o.jobs = 2;
    o.progress = record;
    o.progress_ctx = &r;
    sc_payload_list l;
    memset(&l, 0, sizeof l);
    sc_error err;
    SC_EXPECT_CODE(sc_payload_collect_with(root, SC_PAYLOAD_HASH, &o, &l, &err), SC_OK, &err);
    /* three files (the link is not hashed as a file) */
    size_t n = expect_step(&r, "digest", bytes, 3);
    /* the 3 MiB file reports while it is read: at least once per MiB */
    CU_ASSERT_TRUE(n >= 2 + 3 + 3);
    sc_payload_list_free(&l);
    sc_test_rmtree(root);
    free(root);
}

static void progress_digest_of_a_reused_list_counts_every_file_done(void)
{
    uint64_t bytes;
    char *root = progress_tree(&bytes);
    usleep(120 * 1000); /* past SC_PAYLOAD_RACY_NS: the second walk reuses the digests */
    sc_payload_list first;
    memset(&first, 0, sizeof first);
    sc_error err;
    SC_EXPECT_CODE(sc_payload_collect(root, SC_PAYLOAD_HASH, &first, &err), SC_OK, &err);
    static recorder r;
    memset(&r, 0, sizeof r);
    sc_payload_options o;
    memset(&o, 0, sizeof o);
    o.reuse = &first;
    o.progress = record;
    o.progress_ctx = &r;
    o.progress_step = "recheck";
    sc_payload_list again;
    memset(&again, 0, sizeof again);
    SC_EXPECT_CODE(sc_payload_collect_with(root, SC_PAYLOAD_HASH, &o, &again, &err), SC_OK,
                   &err);
    expect_step(&r, "recheck", bytes, 3);
    CU_ASSERT_EQUAL(count_step(&r, "digest", 0), 0);
    sc_payload_list_free(&first);
    sc_payload_list_free(&again);
    sc_test_rmtree(root);
    free(root);
}

static void progress_is_silent_without_a_listener_and_never_changes_the_archive(void)
{
    uint64_t bytes;
    char *root = progress_tree(&bytes);
    sc_payload_list l;
    memset(&l, 0, sizeof l);
    sc_error err;
    SC_EXPECT_CODE(sc_payload_collect(root, SC_PAYLOAD_HASH | SC_PAYLOAD_CRC, &l, &err), SC_OK,
                   &err);
    sc_archive_entry e[8];
    char *src[8];
    memset(e, 0, sizeof e);
    memset(src, 0, sizeof src);
    size_t n = 0;
    uint64_t total = 0;
    for (size_t i = 0; i < l.count && n < 7; i++, n++) {
        const sc_payload_entry *p = &l.entries[i];
        e[n].path = p->path;
        if (p->kind == SC_PAYLOAD_LINK) {
            e[n].kind = SC_ARCHIVE_LINK;
            e[n].data = p->link_target;
            e[n].data_len = strlen(p->link_target);
            total += e[n].data_len;
        } else {
            e[n].kind = SC_ARCHIVE_FILE;
            size_t m = strlen(root) + p->path_len + 2;
            src[n] = malloc(m);
            snprintf(src[n], m, "%s/%s", root, p->path);
            e[n].source = src[n];
            e[n].stored = strcmp(p->path, "a/big.bin") == 0; /* copied in chunks */
            total += p->size;
        }
    }
    e[n].path = "box.json"; /* from memory */
    e[n].kind = SC_ARCHIVE_FILE;
    e[n].data = "{}";
    e[n].data_len = 2;
    total += 2;
    n++;
    char *dir = sc_test_tmpdir();
    char quiet_path[4096], heard_path[4096], quiet_sha[65], heard_sha[65];
    snprintf(quiet_path, sizeof quiet_path, "%s/quiet.zip", dir);
    snprintf(heard_path, sizeof heard_path, "%s/heard.zip", dir);
    static recorder r;
    memset(&r, 0, sizeof r);
    sc_archive_options quiet = {.jobs = 2};
    sc_archive_options heard = {.jobs = 2, .progress = record, .progress_ctx = &r};
    uint64_t qs = 0, hs = 0;
    SC_EXPECT_CODE(sc_archive_write_file_with(e, n, SC_ARCHIVE_DEFLATE, &quiet, quiet_path, &qs,
                                              quiet_sha, &err),
                   SC_OK, &err);
    CU_ASSERT_EQUAL(r.n, 0);
    SC_EXPECT_CODE(sc_archive_write_file_with(e, n, SC_ARCHIVE_DEFLATE, &heard, heard_path, &hs,
                                              heard_sha, &err),
                   SC_OK, &err);
    CU_ASSERT_EQUAL(qs, hs);
    CU_ASSERT_STRING_EQUAL(quiet_sha, heard_sha);
    /* every entry counted, the stored 3 MiB file while it was copied */
    size_t events = expect_step(&r, "archive", total, n);
    CU_ASSERT_TRUE(events >= 2 + n + 2);

    /* extraction: every entry of the archive, its declared sizes */
    sc_zip *z = NULL;
    SC_EXPECT_CODE(sc_zip_open(heard_path, NULL, &z, &err), SC_OK, &err);
    memset(&r, 0, sizeof r);
    char out[4096];
    snprintf(out, sizeof out, "%s/out", dir);
    CU_ASSERT_EQUAL_FATAL(mkdir(out, 0755), 0);
    sc_zip_extract_options xo = {.jobs = 2, .progress = record, .progress_ctx = &r};
    if (z != NULL) {
        CU_ASSERT_EQUAL(sc_zip_total_size(z), total);
        SC_EXPECT_CODE(sc_zip_extract_opts(z, out, &xo, &err), SC_OK, &err);
        expect_step(&r, "extract", sc_zip_total_size(z), sc_zip_count(z));
        sc_zip_close(z);
    }
    for (size_t i = 0; i < 8; i++)
        free(src[i]);
    sc_payload_list_free(&l);
    sc_test_rmtree(dir);
    free(dir);
    sc_test_rmtree(root);
    free(root);
}

static void progress_verify_counts_records_and_bytes_and_fails_without_finishing(void)
{
    uint64_t bytes;
    char *root = progress_tree(&bytes);
    sc_payload_list l;
    memset(&l, 0, sizeof l);
    sc_error err;
    SC_EXPECT_CODE(sc_payload_collect(root, SC_PAYLOAD_HASH, &l, &err), SC_OK, &err);
    char hex[65];
    SC_EXPECT_CODE(sc_payload_write_list(root, &l, hex, &err), SC_OK, &err);
    static recorder r;
    memset(&r, 0, sizeof r);
    uint64_t link_len = strlen("small.txt");
    sc_payload_verify_options vo = {.jobs = 2, .bytes_expected = bytes + link_len,
                                    .progress = record, .progress_ctx = &r};
    size_t count = 0;
    SC_EXPECT_CODE(sc_payload_verify_tree_opts(root, hex, &vo, &count, &err), SC_OK, &err);
    CU_ASSERT_EQUAL(count, 4);
    expect_step(&r, "verify", bytes + link_len, 4); /* file bytes and the link's target */
    /* a changed file: the step fails and sends no finished event */
    sc_test_write(root, "a/small.txt", "changed\n");
    memset(&r, 0, sizeof r);
    CU_ASSERT_EQUAL(sc_payload_verify_tree_opts(root, hex, &vo, &count, &err),
                    SC_E_PAYLOAD_MISMATCH);
    CU_ASSERT_TRUE(count_step(&r, "verify", 0) >= 1);
    CU_ASSERT_EQUAL(count_step(&r, "verify", 1), 0);
    sc_payload_list_free(&l);
    sc_test_rmtree(root);
    free(root);
}

typedef struct ticks {
    unsigned n;
    unsigned long long last;
} ticks;

static void on_tick(void *ctx, unsigned long long elapsed_ms)
{
    ticks *t = ctx;
    t->n++;
    t->last = elapsed_ms;
}

static void progress_process_runs_tick_about_once_a_second(void)
{
    char *argv[] = {(char *)"/bin/sh", (char *)"-c", (char *)"sleep 2.5", NULL};
    char *envp[] = {NULL};
    ticks t = {0, 0};
    sc_process_spec s;
    memset(&s, 0, sizeof s);
    s.program = "/bin/sh";
    s.argv = argv;
    s.envp = envp;
    s.stdin_fd = s.stdout_fd = s.stderr_fd = -1;
    s.timeout_seconds = 60;
    s.tick = on_tick;
    s.tick_ctx = &t;
    sc_process_result res;
    sc_error err;
    SC_EXPECT_CODE(sc_process_run(&s, &res, &err), SC_OK, &err);
    CU_ASSERT_TRUE(res.exited && res.exit_code == 0);
    /* a tick at about 1 s and 2 s; never one before a second has passed */
    CU_ASSERT_TRUE(t.n >= 1 && t.n <= 3);
    CU_ASSERT_TRUE(t.last >= 1000);
}

typedef struct units_seen {
    int events;
    int all_null, all_packages;
} units_seen;

static void on_unit(void *ctx, const sc_progress_event *e)
{
    units_seen *u = ctx;
    u->events++;
    if (e->unit != NULL)
        u->all_null = 0;
    if (e->unit == NULL || strcmp(e->unit, "packages") != 0)
        u->all_packages = 0;
}

/* A meter is often a stack variable: every start sets every member, so an
 * event's unit is the start's ("packages") or NULL, never what the stack held
 * (a Release build crashed printing a garbage unit of a self-test's runs). */
static void progress_event_unit_is_the_starts_whatever_the_meter_held(void)
{
    sc_progress_meter m;
    units_seen u = {0, 1, 1};
    memset(&m, 0xA5, sizeof m);
    sc_progress_meter_start_runs(&m, on_unit, &u, "self-test", "t", 1, 1000);
    sc_progress_meter_end(&m, 1);
    CU_ASSERT_TRUE(u.events >= 2 && u.all_null);
    memset(&m, 0xA5, sizeof m);
    u = (units_seen){0, 1, 1};
    sc_progress_meter_start(&m, on_unit, &u, "copy", "t", 10, 1);
    sc_progress_meter_add(&m, "f", 10, 1);
    sc_progress_meter_end(&m, 1);
    CU_ASSERT_TRUE(u.events >= 2 && u.all_null);
    memset(&m, 0xA5, sizeof m);
    u = (units_seen){0, 1, 1};
    sc_progress_meter_start_unit(&m, on_unit, &u, "link", "", 0, 2, "packages");
    sc_progress_meter_add(&m, "p", 0, 2);
    sc_progress_meter_end(&m, 1);
    CU_ASSERT_TRUE(u.events >= 2 && u.all_packages);
}

void register_progress_tests(void)
{
    CU_pSuite s = CU_add_suite("progress", NULL, NULL);
    if (s == NULL)
        CU_FAIL_FATAL("CU_add_suite failed");
    SC_ADD_TEST(s, progress_sizes_carry_the_exact_bytes);
    SC_ADD_TEST(s, progress_short_sizes_round_to_one_decimal);
    SC_ADD_TEST(s, progress_digest_totals_are_the_sums_of_the_hashed_files);
    SC_ADD_TEST(s, progress_digest_of_a_reused_list_counts_every_file_done);
    SC_ADD_TEST(s, progress_is_silent_without_a_listener_and_never_changes_the_archive);
    SC_ADD_TEST(s, progress_verify_counts_records_and_bytes_and_fails_without_finishing);
    SC_ADD_TEST(s, progress_process_runs_tick_about_once_a_second);
    SC_ADD_TEST(s, progress_event_unit_is_the_starts_whatever_the_meter_held);
}
