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
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
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
}
