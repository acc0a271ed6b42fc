/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_file.c — file.c: opening a file named by a path (never blocking,
 * only regular files), the depth-unlimited tree walker and remover.
 */
#include "harness.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "scrollcase/file.h"

static char *join(const char *dir, const char *name)
{
    size_t n = strlen(dir) + strlen(name) + 2;
    char *p = malloc(n);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    snprintf(p, n, "%s/%s", dir, name);
    return p;
}

/* A FIFO that nobody writes: an open without O_NONBLOCK would wait forever;
 * the alarm turns such a hang into a failed test. */
static void test_open_regular_refuses_a_fifo_without_blocking(void)
{
    char *dir = sc_test_tmpdir();
    char *fifo = join(dir, "fifo");
    CU_ASSERT_EQUAL_FATAL(mkfifo(fifo, 0600), 0);
    alarm(20);
    int fd = 7;
    sc_file_kind kind = SC_FILE_REGULAR;
    sc_error err;
    SC_EXPECT_CODE(sc_file_open_regular(fifo, 0, &fd, NULL, &kind, &err), SC_E_IO, &err);
    CU_ASSERT_EQUAL(fd, -1);
    CU_ASSERT_EQUAL(kind, SC_FILE_NOT_REGULAR);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "FIFO"));
    char *bytes = NULL;
    SC_EXPECT_CODE(sc_file_read(fifo, &bytes, NULL, NULL, &err), SC_E_IO, &err);
    CU_ASSERT_PTR_NULL(bytes);
    alarm(0);
    free(fifo);
    sc_test_rmtree(dir);
    free(dir);
}

static void test_open_regular_refuses_a_socket(void)
{
    char *dir = sc_test_tmpdir();
    char *path = join(dir, "sock");
    int s = socket(AF_UNIX, SOCK_STREAM, 0);
    CU_ASSERT_FATAL(s >= 0);
    struct sockaddr_un a;
    memset(&a, 0, sizeof a);
    a.sun_family = AF_UNIX;
    CU_ASSERT_FATAL(strlen(path) < sizeof a.sun_path);
    memcpy(a.sun_path, path, strlen(path) + 1);
    CU_ASSERT_EQUAL_FATAL(bind(s, (struct sockaddr *)&a, sizeof a), 0);
    int fd = 7;
    sc_file_kind kind = SC_FILE_REGULAR;
    sc_error err;
    SC_EXPECT_CODE(sc_file_open_regular(path, 0, &fd, NULL, &kind, &err), SC_E_IO, &err);
    CU_ASSERT_EQUAL(fd, -1);
    CU_ASSERT_EQUAL(kind, SC_FILE_NOT_REGULAR);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "socket"));
    close(s);
    free(path);
    sc_test_rmtree(dir);
    free(dir);
}

/* /dev/zero never ends: reading it must be refused before the first byte. */
static void test_open_regular_refuses_a_device(void)
{
    const char *devs[] = {"/dev/null", "/dev/zero"};
    for (size_t i = 0; i < 2; i++) {
        int fd = 7;
        sc_file_kind kind = SC_FILE_REGULAR;
        sc_error err;
        SC_EXPECT_CODE(sc_file_open_regular(devs[i], 0, &fd, NULL, &kind, &err), SC_E_IO, &err);
        CU_ASSERT_EQUAL(kind, SC_FILE_NOT_REGULAR);
        CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "device"));
        char *bytes = NULL;
        SC_EXPECT_CODE(sc_file_read(devs[i], &bytes, NULL, NULL, &err), SC_E_IO, &err);
        CU_ASSERT_PTR_NULL(bytes);
    }
}

static void test_open_regular_refuses_a_directory(void)
{
    char *dir = sc_test_tmpdir();
    int fd = 7;
    sc_file_kind kind = SC_FILE_REGULAR;
    sc_error err;
    SC_EXPECT_CODE(sc_file_open_regular(dir, 0, &fd, NULL, &kind, &err), SC_E_IO, &err);
    CU_ASSERT_EQUAL(fd, -1);
    CU_ASSERT_EQUAL(kind, SC_FILE_NOT_REGULAR);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "directory"));
    sc_test_rmtree(dir);
    free(dir);
}

/* A link is followed unless SC_FILE_NOFOLLOW; a link to a FIFO is a FIFO;
 * a dangling link or a cycle names no file. */
static void test_open_regular_links(void)
{
    char *dir = sc_test_tmpdir();
    sc_test_write(dir, "file", "bytes\n");
    char *file = join(dir, "file"), *fifo = join(dir, "fifo");
    char *lf = join(dir, "to-file"), *lp = join(dir, "to-fifo"), *ld = join(dir, "dangling");
    char *lc = join(dir, "cycle");
    CU_ASSERT_EQUAL_FATAL(mkfifo(fifo, 0600), 0);
    CU_ASSERT_EQUAL_FATAL(symlink("file", lf), 0);
    CU_ASSERT_EQUAL_FATAL(symlink("fifo", lp), 0);
    CU_ASSERT_EQUAL_FATAL(symlink("nothing", ld), 0);
    CU_ASSERT_EQUAL_FATAL(symlink("cycle", lc), 0);
    alarm(20);
    int fd = -1;
    struct stat st;
    sc_file_kind kind;
    sc_error err;
    SC_EXPECT_CODE(sc_file_open_regular(lf, 0, &fd, &st, &kind, &err), SC_OK, &err);
    CU_ASSERT_EQUAL(kind, SC_FILE_REGULAR);
    CU_ASSERT_EQUAL(st.st_size, 6);
    CU_ASSERT_TRUE(fd >= 0 && !(fcntl(fd, F_GETFL) & O_NONBLOCK));
    CU_ASSERT_TRUE(fd >= 0 && (fcntl(fd, F_GETFD) & FD_CLOEXEC));
    if (fd >= 0)
        close(fd);
    SC_EXPECT_CODE(sc_file_open_regular(lf, SC_FILE_NOFOLLOW, &fd, NULL, &kind, &err), SC_E_IO,
                   &err);
    CU_ASSERT_EQUAL(kind, SC_FILE_NOT_REGULAR);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "link"));
    SC_EXPECT_CODE(sc_file_open_regular(lp, 0, &fd, NULL, &kind, &err), SC_E_IO, &err);
    CU_ASSERT_EQUAL(kind, SC_FILE_NOT_REGULAR);
    SC_EXPECT_CODE(sc_file_open_regular(ld, 0, &fd, NULL, &kind, &err), SC_E_IO, &err);
    CU_ASSERT_EQUAL(kind, SC_FILE_MISSING);
    SC_EXPECT_CODE(sc_file_open_regular(lc, 0, &fd, NULL, &kind, &err), SC_E_IO, &err);
    CU_ASSERT_EQUAL(kind, SC_FILE_MISSING);
    int missing = 0;
    char *bytes = NULL;
    SC_EXPECT_CODE(sc_file_read(ld, &bytes, NULL, &missing, &err), SC_E_IO, &err);
    CU_ASSERT_EQUAL(missing, 1);
    alarm(0);
    SC_EXPECT_CODE(sc_file_read(file, &bytes, NULL, &missing, &err), SC_OK, &err);
    CU_ASSERT_STRING_EQUAL(bytes, "bytes\n");
    free(bytes);
    free(file);
    free(fifo);
    free(lf);
    free(lp);
    free(ld);
    free(lc);
    sc_test_rmtree(dir);
    free(dir);
}

/* ---- deep trees ------------------------------------------------------------------------ */

#define DEEP 10000

/* DEEP nested directories "d" under dir, a file "leaf" at the bottom and a
 * file "top" beside the first; made with openat, so no path is ever long. */
static void make_deep(const char *dir)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY);
    CU_ASSERT_FATAL(fd >= 0);
    int t = openat(fd, "top", O_WRONLY | O_CREAT | O_EXCL, 0644);
    CU_ASSERT_FATAL(t >= 0);
    close(t);
    for (int i = 0; i < DEEP; i++) {
        CU_ASSERT_EQUAL_FATAL(mkdirat(fd, "d", 0755), 0);
        int next = openat(fd, "d", O_RDONLY | O_DIRECTORY);
        CU_ASSERT_FATAL(next >= 0);
        close(fd);
        fd = next;
    }
    int leaf = openat(fd, "leaf", O_WRONLY | O_CREAT | O_EXCL, 0644);
    CU_ASSERT_FATAL(leaf >= 0);
    CU_ASSERT_EQUAL(write(leaf, "x", 1), 1);
    close(leaf);
    close(fd);
}

typedef struct walk_count {
    size_t files, dirs, posts, max_depth, leaf_len;
    char last_pre[8];
} walk_count;

static sc_code count_one(void *ctx, const sc_walk_entry *e, int *skip, sc_error *err)
{
    (void)skip;
    (void)err;
    walk_count *c = ctx;
    if (e->post) {
        c->posts++;
        return SC_OK;
    }
    if (e->depth > c->max_depth)
        c->max_depth = e->depth;
    if (S_ISDIR(e->st->st_mode))
        c->dirs++;
    else
        c->files++;
    if (strcmp(e->name, "leaf") == 0)
        c->leaf_len = e->path_len;
    if (e->depth == 1)
        snprintf(c->last_pre, sizeof c->last_pre, "%s", e->name);
    return SC_OK;
}

/* In a child process with at most 64 descriptors: walk, then remove. */
static void test_walk_and_remove_a_10000_deep_tree_with_64_descriptors(void)
{
    char *dir = sc_test_tmpdir();
    char *tree = join(dir, "tree");
    CU_ASSERT_EQUAL_FATAL(mkdir(tree, 0755), 0);
    make_deep(tree);
    pid_t pid = fork();
    CU_ASSERT_FATAL(pid >= 0);
    if (pid == 0) {
        struct rlimit rl = {64, 64};
        /* valgrind keeps its own descriptors above the limit and refuses a
         * lower one (EPERM): there the walk and the removal are still
         * checked, the descriptor bound only in the plain and ASan runs. */
        if (setrlimit(RLIMIT_NOFILE, &rl) != 0 && errno != EPERM)
            _exit(10);
        walk_count c;
        memset(&c, 0, sizeof c);
        sc_error err;
        if (sc_file_walk(tree, SC_WALK_SORTED | SC_WALK_POST, count_one, &c, &err) != SC_OK) {
            fprintf(stderr, "walk: %s\n", err.message);
            _exit(11);
        }
        /* top, DEEP directories, leaf; "d" before "top" (byte order) */
        if (c.files != 2 || c.dirs != DEEP || c.posts != DEEP || c.max_depth != DEEP + 1 ||
            c.leaf_len != 2 * DEEP + 4 || strcmp(c.last_pre, "top") != 0)
            _exit(12);
        if (sc_file_remove_tree(tree, &err) != SC_OK) {
            fprintf(stderr, "remove: %s\n", err.message);
            _exit(13);
        }
        _exit(0);
    }
    int status = 0;
    CU_ASSERT_EQUAL(waitpid(pid, &status, 0), pid);
    CU_ASSERT_TRUE(WIFEXITED(status));
    CU_ASSERT_EQUAL(WEXITSTATUS(status), 0);
    struct stat st;
    CU_ASSERT_NOT_EQUAL(lstat(tree, &st), 0); /* gone */
    if (WEXITSTATUS(status) != 0) {
        /* the old remover gave up past depth 200: clean up for the next test */
        int fd = open(dir, O_RDONLY | O_DIRECTORY);
        (void)sc_file_remove_at(fd, "tree");
        close(fd);
    }
    free(tree);
    sc_test_rmtree(dir);
    free(dir);
}

/* The walker never follows a link and can skip a directory. */
static sc_code skip_b(void *ctx, const sc_walk_entry *e, int *skip, sc_error *err)
{
    (void)err;
    size_t *n = ctx;
    if (strcmp(e->name, "b") == 0)
        *skip = 1;
    (*n)++;
    return strstr(e->path, "outside") && strcmp(e->name, "out") != 0 ? SC_E_IO : SC_OK;
}

static void test_walk_skips_and_never_follows_links(void)
{
    char *outside = sc_test_tmpdir();
    sc_test_write(outside, "x/y.txt", "y\n");
    char *root = sc_test_tmpdir();
    sc_test_write(root, "a/f.txt", "f\n");
    sc_test_write(root, "b/g.txt", "g\n");
    char *link = join(root, "out");
    CU_ASSERT_EQUAL_FATAL(symlink(outside, link), 0);
    size_t n = 0;
    sc_error err;
    /* a, a/f.txt, b (skipped: not b/g.txt), out (a link, not entered) */
    SC_EXPECT_CODE(sc_file_walk(root, SC_WALK_SORTED, skip_b, &n, &err), SC_OK, &err);
    CU_ASSERT_EQUAL(n, 4);
    free(link);
    sc_test_rmtree(root);
    sc_test_rmtree(outside);
    free(root);
    free(outside);
}

/* A name too long for the temporary name beside it: the message says the limit. */
static void test_write_atomic_name_too_long_for_its_temporary_says_the_limit(void)
{
    char *dir = sc_test_tmpdir();
    CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
    char name[251];
    memset(name, 'n', 250);
    name[250] = '\0';
    char *p = join(dir, name);
    sc_error err;
    CU_ASSERT_EQUAL(sc_file_write_atomic(p, "x", 1, 0644, &err), SC_E_IO);
    CU_ASSERT_STRING_EQUAL(err.path, p);
    CU_ASSERT(strstr(err.message, "its name is 250 bytes") != NULL);
    CU_ASSERT(strstr(err.message, "at most 243 bytes") != NULL);
    /* 243 bytes is written */
    name[243] = '\0';
    char *q = join(dir, name);
    CU_ASSERT_EQUAL(sc_file_write_atomic(q, "x", 1, 0644, &err), SC_OK);
    struct stat st;
    CU_ASSERT(stat(q, &st) == 0 && st.st_size == 1);
    free(p);
    free(q);
    sc_test_rmtree(dir);
    free(dir);
}

void register_file_tests(void)
{
    CU_pSuite s = CU_add_suite("file_hostile", NULL, NULL);
    if (s == NULL)
        CU_FAIL_FATAL("CU_add_suite failed");
    SC_ADD_TEST(s, test_open_regular_refuses_a_fifo_without_blocking);
    SC_ADD_TEST(s, test_open_regular_refuses_a_socket);
    SC_ADD_TEST(s, test_open_regular_refuses_a_device);
    SC_ADD_TEST(s, test_open_regular_refuses_a_directory);
    SC_ADD_TEST(s, test_open_regular_links);
    SC_ADD_TEST(s, test_walk_and_remove_a_10000_deep_tree_with_64_descriptors);
    SC_ADD_TEST(s, test_walk_skips_and_never_follows_links);
    SC_ADD_TEST(s, test_write_atomic_name_too_long_for_its_temporary_says_the_limit);
}
