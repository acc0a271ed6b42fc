/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_path.c — payload-path rules (path.h) and file helpers (file.h).
 *
 * Two suites: "path" for path.h and "file" for file.h (reading, atomic
 * writing, joining).  One test per rule, named after it.
 */
#include "harness.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "scrollcase/file.h"
#include "scrollcase/path.h"

/* ---- helpers --------------------------------------------------------------- */

static void expect_unsafe(const char *p, size_t len, const char *needle, int line)
{
    sc_error err;
    sc_code rc = sc_path_check(p, len, "$.assets[0].relativePath", &err);
    int ok = rc == SC_E_UNSAFE_PATH && err.code == SC_E_UNSAFE_PATH &&
             strstr(err.message, needle) != NULL &&
             strchr(err.message, '\n') == NULL;
    if (!ok)
        fprintf(stderr, "\n  line %d: got %s \"%s\", wanted unsafe-path \"%s\"\n",
                line, sc_code_name(rc), err.message, needle);
    CU_ASSERT_TRUE(ok);
}

#define EXPECT_UNSAFE(lit, needle) expect_unsafe((lit), sizeof(lit) - 1, (needle), __LINE__)

static void expect_safe(const char *p, int line)
{
    sc_error err;
    sc_code rc = sc_path_check(p, strlen(p), NULL, &err);
    if (rc != SC_OK)
        fprintf(stderr, "\n  line %d: \"%s\" refused: %s\n", line, p, err.message);
    CU_ASSERT_EQUAL(rc, SC_OK);
}

#define EXPECT_SAFE(lit) expect_safe((lit), __LINE__)

/* ---- UTF-8 ---------------------------------------------------------------------- */

static void test_utf8_valid_accepts_well_formed_text(void)
{
    CU_ASSERT_TRUE(sc_utf8_valid("", 0));
    CU_ASSERT_TRUE(sc_utf8_valid(NULL, 0));
    CU_ASSERT_TRUE(sc_utf8_valid("plain ascii \x7f", 13));
    CU_ASSERT_TRUE(sc_utf8_valid("a\0b", 3)); /* NUL is well-formed UTF-8 */
    const char edges[] = "\xC2\x80\xDF\xBF\xE0\xA0\x80\xEC\xBF\xBF\xED\x80\x80"
                         "\xED\x9F\xBF\xEE\x80\x80\xEF\xBF\xBF\xF0\x90\x80\x80"
                         "\xF3\xBF\xBF\xBF\xF4\x80\x80\x80\xF4\x8F\xBF\xBF";
    CU_ASSERT_TRUE(sc_utf8_valid(edges, sizeof edges - 1));
}

static void test_utf8_overlong_forms_are_invalid(void)
{
    CU_ASSERT_FALSE(sc_utf8_valid("\xC0\x80", 2));
    CU_ASSERT_FALSE(sc_utf8_valid("\xC1\xBF", 2));
    CU_ASSERT_FALSE(sc_utf8_valid("\xE0\x9F\xBF", 3));
    CU_ASSERT_FALSE(sc_utf8_valid("\xF0\x8F\xBF\xBF", 4));
}

static void test_utf8_surrogates_are_invalid(void)
{
    CU_ASSERT_FALSE(sc_utf8_valid("\xED\xA0\x80", 3));
    CU_ASSERT_FALSE(sc_utf8_valid("\xED\xAF\xBF\xED\xB0\x80", 6)); /* CESU pair */
    CU_ASSERT_FALSE(sc_utf8_valid("\xED\xBF\xBF", 3));
}

static void test_utf8_above_10ffff_is_invalid(void)
{
    CU_ASSERT_FALSE(sc_utf8_valid("\xF4\x90\x80\x80", 4));
    CU_ASSERT_FALSE(sc_utf8_valid("\xF5\x80\x80\x80", 4));
    CU_ASSERT_FALSE(sc_utf8_valid("\xF8\x88\x80\x80\x80", 5));
    CU_ASSERT_FALSE(sc_utf8_valid("\xFF", 1));
}

static void test_utf8_truncated_and_stray_bytes_are_invalid(void)
{
    CU_ASSERT_FALSE(sc_utf8_valid("\xE2\x82", 2));
    CU_ASSERT_FALSE(sc_utf8_valid("a\xC3", 2));
    CU_ASSERT_FALSE(sc_utf8_valid("\x80", 1));
    CU_ASSERT_FALSE(sc_utf8_valid("\xC3\xA9\xA9", 3));
    CU_ASSERT_FALSE(sc_utf8_valid("\xE2\x28\xA1", 3));
    /* The length bounds the check: a valid prefix of a longer buffer. */
    CU_ASSERT_TRUE(sc_utf8_valid("ab\xC3", 2));
}

/* ---- payload paths ------------------------------------------------------------- */

static void test_empty_path_is_unsafe(void)
{
    EXPECT_UNSAFE("", "is empty");
    sc_error err;
    CU_ASSERT_EQUAL(sc_path_check(NULL, 0, NULL, &err), SC_E_UNSAFE_PATH);
}

static void test_nul_in_path_is_unsafe(void)
{
    EXPECT_UNSAFE("a\0b", "NUL");
    EXPECT_UNSAFE("ab\0", "NUL");
}

static void test_invalid_utf8_path_is_unsafe(void)
{
    EXPECT_UNSAFE("a/\xC0\xAF", "not valid UTF-8");
    EXPECT_UNSAFE("\xED\xA0\x80", "not valid UTF-8");
    EXPECT_UNSAFE("\xFF", "not valid UTF-8");
    EXPECT_SAFE("d\xC3\xA9j\xC3\xA0/\xE2\x82\xAC.txt");
}

static void test_backslash_is_unsafe(void)
{
    EXPECT_UNSAFE("a\\b", "backslash");
    EXPECT_UNSAFE("\\a", "backslash");
    EXPECT_UNSAFE("..\\x", "backslash");
}

static void test_leading_slash_is_unsafe(void)
{
    EXPECT_UNSAFE("/etc/passwd", "absolute");
    EXPECT_UNSAFE("/", "absolute");
    EXPECT_UNSAFE("//server/share", "absolute");
}

static void test_drive_prefix_is_unsafe(void)
{
    EXPECT_UNSAFE("C:", "drive prefix");
    EXPECT_UNSAFE("c:/x", "drive prefix");
    EXPECT_UNSAFE("Z:foo", "drive prefix");
    /* Only a letter then ':' at the very start is a drive prefix. */
    EXPECT_SAFE("1:a");
    EXPECT_SAFE("ab:c");
    EXPECT_SAFE("a/C:");
    EXPECT_SAFE(":x");
}

static void test_dot_segments_are_unsafe(void)
{
    EXPECT_UNSAFE(".", "\".\" segment");
    EXPECT_UNSAFE("./a", "\".\" segment");
    EXPECT_UNSAFE("a/./b", "\".\" segment");
    EXPECT_UNSAFE("a/.", "\".\" segment");
    EXPECT_UNSAFE("..", "\"..\" segment");
    EXPECT_UNSAFE("../a", "\"..\" segment");
    EXPECT_UNSAFE("a/../b", "\"..\" segment");
    EXPECT_UNSAFE("a/..", "\"..\" segment");
}

static void test_empty_segment_is_unsafe(void)
{
    EXPECT_UNSAFE("a//b", "empty segment");
    EXPECT_UNSAFE("a/", "empty segment");
}

static void test_ordinary_paths_are_safe(void)
{
    EXPECT_SAFE("a");
    EXPECT_SAFE("a/b/c.txt");
    EXPECT_SAFE(".hidden");
    EXPECT_SAFE("a/.hidden/b");
    EXPECT_SAFE("..a");
    EXPECT_SAFE("a..");
    EXPECT_SAFE("...");
    EXPECT_SAFE("a/.../b");
    EXPECT_SAFE("with space/and-dash_under.score");
    EXPECT_SAFE("Mixed/CASE");
}

static void test_unsafe_path_message_names_field_and_path(void)
{
    sc_error err;
    const char p[] = "a/../\"q\"\n";
    CU_ASSERT_EQUAL(sc_path_check(p, sizeof p - 1, "$.assets[3].relativePath", &err),
                    SC_E_UNSAFE_PATH);
    CU_ASSERT_STRING_EQUAL(err.path, "$.assets[3].relativePath");
    CU_ASSERT_STRING_EQUAL(err.message,
                           "unsafe-path: $.assets[3].relativePath: "
                           "\"a/../\\\"q\\\"\\x0a\" has a \"..\" segment");
    /* Without a field. */
    CU_ASSERT_EQUAL(sc_path_check("/x", 2, NULL, &err), SC_E_UNSAFE_PATH);
    CU_ASSERT_STRING_EQUAL(err.path, "");
    CU_ASSERT_STRING_EQUAL(err.message, "unsafe-path: \"/x\" is absolute (starts with '/')");
    /* A safe path clears the error. */
    CU_ASSERT_EQUAL(sc_path_check("ok", 2, "f", &err), SC_OK);
    CU_ASSERT_EQUAL(err.code, SC_OK);
    /* A very long path is cut in the message. */
    char longp[3000];
    memset(longp, 'x', sizeof longp);
    longp[0] = '/';
    CU_ASSERT_EQUAL(sc_path_check(longp, sizeof longp, NULL, &err), SC_E_UNSAFE_PATH);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "...\" is absolute"));
}

/* ---- text checks ------------------------------------------------------------------- */

static void test_ascii_casecmp_folds_only_ascii_letters(void)
{
    CU_ASSERT_EQUAL(sc_ascii_casecmp("Readme.TXT", "README.txt"), 0);
    CU_ASSERT_EQUAL(sc_ascii_casecmp("", ""), 0);
    CU_ASSERT_TRUE(sc_ascii_casecmp("a", "b") < 0);
    CU_ASSERT_TRUE(sc_ascii_casecmp("B", "a") > 0);
    CU_ASSERT_TRUE(sc_ascii_casecmp("ab", "a") > 0);
    CU_ASSERT_TRUE(sc_ascii_casecmp("a", "ab") < 0);
    /* Non-ASCII is compared as bytes: É (C3 89) and é (C3 A9) differ. */
    CU_ASSERT_NOT_EQUAL(sc_ascii_casecmp("\xC3\x89", "\xC3\xA9"), 0);
    /* Folding maps A-Z down to a-z, so '[' (0x5B) sorts before "Z" (as z). */
    CU_ASSERT_TRUE(sc_ascii_casecmp("[", "Z") < 0);
    CU_ASSERT_TRUE(sc_ascii_casecmp("_", "A") < 0);
    /* Bytes above 0x7f compare as unsigned. */
    CU_ASSERT_TRUE(sc_ascii_casecmp("\xC3", "z") > 0);
}

static void test_dotted_name_rules(void)
{
    CU_ASSERT_TRUE(sc_is_dotted_name("numpy"));
    CU_ASSERT_TRUE(sc_is_dotted_name("torch.cuda"));
    CU_ASSERT_TRUE(sc_is_dotted_name("_private.mod_2.X"));
    CU_ASSERT_FALSE(sc_is_dotted_name(""));
    CU_ASSERT_FALSE(sc_is_dotted_name(NULL));
    CU_ASSERT_FALSE(sc_is_dotted_name("2fast"));
    CU_ASSERT_FALSE(sc_is_dotted_name("a..b"));
    CU_ASSERT_FALSE(sc_is_dotted_name(".a"));
    CU_ASSERT_FALSE(sc_is_dotted_name("a."));
    CU_ASSERT_FALSE(sc_is_dotted_name("a.1b"));
    CU_ASSERT_FALSE(sc_is_dotted_name("a-b"));
    CU_ASSERT_FALSE(sc_is_dotted_name("a b"));
    CU_ASSERT_FALSE(sc_is_dotted_name("caf\xC3\xA9"));
}

static void test_slug_rules(void)
{
    CU_ASSERT_TRUE(sc_is_slug("a"));
    CU_ASSERT_TRUE(sc_is_slug("box-1"));
    CU_ASSERT_TRUE(sc_is_slug("cuda12.4-x86.64"));
    CU_ASSERT_TRUE(sc_is_slug("0"));
    CU_ASSERT_FALSE(sc_is_slug(""));
    CU_ASSERT_FALSE(sc_is_slug(NULL));
    CU_ASSERT_FALSE(sc_is_slug("-a"));
    CU_ASSERT_FALSE(sc_is_slug("a-"));
    CU_ASSERT_FALSE(sc_is_slug("a."));
    CU_ASSERT_FALSE(sc_is_slug(".a"));
    CU_ASSERT_FALSE(sc_is_slug("a--b"));
    CU_ASSERT_FALSE(sc_is_slug("a.-b"));
    CU_ASSERT_FALSE(sc_is_slug("A"));
    CU_ASSERT_FALSE(sc_is_slug("a_b"));
    CU_ASSERT_FALSE(sc_is_slug("a b"));
    CU_ASSERT_FALSE(sc_is_slug("a/b"));
}

/* ---- files -------------------------------------------------------------------------- */

/* Number of directory entries whose name contains ".tmp-". */
static int count_temp_files(const char *dir)
{
    DIR *d = opendir(dir);
    if (d == NULL)
        return -1;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (strstr(e->d_name, ".tmp-") != NULL)
            n++;
    closedir(d);
    return n;
}

static char *read_all(const char *path)
{
    char *b = NULL;
    size_t len = 0;
    sc_error err;
    if (sc_file_read(path, &b, &len, NULL, &err) != SC_OK)
        return NULL;
    return b;
}

static void test_read_missing_file_is_io_error_and_sets_missing(void)
{
    char *dir = sc_test_tmpdir();
    CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
    char *p = sc_path_join(dir, "nope.json");
    char *b = (char *)1;
    size_t len = 7;
    int missing = 0;
    sc_error err;
    CU_ASSERT_EQUAL(sc_file_read(p, &b, &len, &missing, &err), SC_E_IO);
    CU_ASSERT_EQUAL(missing, 1);
    CU_ASSERT_PTR_NULL(b);
    CU_ASSERT_STRING_EQUAL(err.path, p);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, strerror(ENOENT)));
    /* Below a regular file (ENOTDIR) nothing exists either. */
    sc_test_write(dir, "plain", "x");
    char *under = sc_path_join(dir, "plain/scroll.json");
    missing = 0;
    CU_ASSERT_EQUAL(sc_file_read(under, &b, &len, &missing, &err), SC_E_IO);
    CU_ASSERT_EQUAL(missing, 1);
    free(under);
    /* A directory is an error, but not "missing". */
    CU_ASSERT_EQUAL(sc_file_read(dir, &b, &len, &missing, &err), SC_E_IO);
    CU_ASSERT_EQUAL(missing, 0);
    free(p);
    sc_test_rmtree(dir);
    free(dir);
}

static void test_read_returns_all_bytes_nul_terminated(void)
{
    char *dir = sc_test_tmpdir();
    CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
    char *p = sc_path_join(dir, "data.bin");
    /* 100000 bytes including NULs, written atomically, read back. */
    size_t n = 100000;
    unsigned char *data = malloc(n);
    CU_ASSERT_PTR_NOT_NULL_FATAL(data);
    for (size_t i = 0; i < n; i++)
        data[i] = (unsigned char)(i * 7);
    sc_error err;
    CU_ASSERT_EQUAL(sc_file_write_atomic(p, data, n, 0600, &err), SC_OK);
    char *b = NULL;
    size_t len = 0;
    int missing = 1;
    CU_ASSERT_EQUAL(sc_file_read(p, &b, &len, &missing, &err), SC_OK);
    CU_ASSERT_EQUAL(missing, 0);
    CU_ASSERT_EQUAL(len, n);
    CU_ASSERT_EQUAL(memcmp(b, data, n), 0);
    CU_ASSERT_EQUAL(b[n], '\0');
    free(b);
    /* An empty file reads as "" with length 0. */
    CU_ASSERT_EQUAL(sc_file_write_atomic(p, "", 0, 0600, &err), SC_OK);
    CU_ASSERT_EQUAL(sc_file_read(p, &b, &len, NULL, &err), SC_OK);
    CU_ASSERT_EQUAL(len, 0);
    CU_ASSERT_STRING_EQUAL(b, "");
    free(b);
    free(data);
    free(p);
    sc_test_rmtree(dir);
    free(dir);
}

static void test_write_atomic_replaces_contents(void)
{
    char *dir = sc_test_tmpdir();
    CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
    char *p = sc_path_join(dir, "f.txt");
    sc_error err;
    CU_ASSERT_EQUAL(sc_file_write_atomic(p, "first, longer\n", 14, 0644, &err), SC_OK);
    CU_ASSERT_EQUAL(sc_file_write_atomic(p, "second\n", 7, 0644, &err), SC_OK);
    char *b = read_all(p);
    CU_ASSERT_PTR_NOT_NULL(b);
    if (b != NULL)
        CU_ASSERT_STRING_EQUAL(b, "second\n");
    free(b);
    CU_ASSERT_EQUAL(count_temp_files(dir), 0);
    /* A relative path (no directory part) works too. */
    char cwd[4096];
    CU_ASSERT_PTR_NOT_NULL_FATAL(getcwd(cwd, sizeof cwd));
    CU_ASSERT_EQUAL(chdir(dir), 0);
    CU_ASSERT_EQUAL(sc_file_write_atomic("rel.txt", "r", 1, 0644, &err), SC_OK);
    CU_ASSERT_EQUAL(chdir(cwd), 0);
    char *r = sc_path_join(dir, "rel.txt");
    b = read_all(r);
    CU_ASSERT_PTR_NOT_NULL(b);
    if (b != NULL)
        CU_ASSERT_STRING_EQUAL(b, "r");
    free(b);
    free(r);
    CU_ASSERT_EQUAL(count_temp_files(dir), 0);
    free(p);
    sc_test_rmtree(dir);
    free(dir);
}

static void test_write_atomic_mode_ignores_umask(void)
{
    char *dir = sc_test_tmpdir();
    CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
    char *p = sc_path_join(dir, "m");
    sc_error err;
    static const unsigned modes[] = {0644, 0600, 0755, 0777, 0640, 0444};
    mode_t old = umask(0077);
    for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++) {
        CU_ASSERT_EQUAL(sc_file_write_atomic(p, "x", 1, modes[i], &err), SC_OK);
        struct stat st;
        CU_ASSERT_EQUAL(stat(p, &st), 0);
        CU_ASSERT_EQUAL(st.st_mode & 07777, modes[i]);
    }
    umask(022);
    CU_ASSERT_EQUAL(sc_file_write_atomic(p, "x", 1, 0666, &err), SC_OK);
    struct stat st;
    CU_ASSERT_EQUAL(stat(p, &st), 0);
    CU_ASSERT_EQUAL(st.st_mode & 07777, 0666);
    umask(old);
    free(p);
    sc_test_rmtree(dir);
    free(dir);
}

static void test_write_new_never_replaces_and_leaves_nothing(void)
{
    char *dir = sc_test_tmpdir();
    CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
    char *p = sc_path_join(dir, "key.pem");
    sc_error err;
    int existed = -1;
    /* a new path: written, with the exact mode */
    CU_ASSERT_EQUAL(sc_file_write_new(p, "first", 5, 0600, &existed, &err), SC_OK);
    CU_ASSERT_EQUAL(existed, 0);
    struct stat st;
    CU_ASSERT_EQUAL(stat(p, &st), 0);
    CU_ASSERT_EQUAL(st.st_mode & 07777, 0600);
    /* an existing path: refused, contents kept, no temporary file left */
    CU_ASSERT_EQUAL(sc_file_write_new(p, "second", 6, 0600, &existed, &err), SC_E_IO);
    CU_ASSERT_EQUAL(existed, 1);
    char *b = read_all(p);
    CU_ASSERT_PTR_NOT_NULL(b);
    if (b != NULL)
        CU_ASSERT_STRING_EQUAL(b, "first");
    free(b);
    CU_ASSERT_EQUAL(count_temp_files(dir), 0);
    free(p);
    sc_test_rmtree(dir);
    free(dir);
}

static void test_write_atomic_leaves_nothing_on_failure(void)
{
    char *dir = sc_test_tmpdir();
    CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
    sc_error err;

    /* 1. The destination is an existing non-empty directory: the temporary
     *    file is created and written, then rename fails.  It must be gone. */
    char *target = sc_path_join(dir, "target");
    CU_ASSERT_EQUAL(mkdir(target, 0755), 0);
    sc_test_write(target, "inside", "keep me");
    CU_ASSERT_EQUAL(sc_file_write_atomic(target, "data", 4, 0644, &err), SC_E_IO);
    CU_ASSERT_EQUAL(err.code, SC_E_IO);
    CU_ASSERT_STRING_EQUAL(err.path, target);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "rename"));
    CU_ASSERT_EQUAL(count_temp_files(dir), 0);
    CU_ASSERT_TRUE(sc_is_dir(target));
    char *inside = sc_path_join(target, "inside");
    char *b = read_all(inside);
    CU_ASSERT_PTR_NOT_NULL(b);
    if (b != NULL)
        CU_ASSERT_STRING_EQUAL(b, "keep me");
    free(b);
    free(inside);

    /* 2. The parent directory does not exist: nothing is created anywhere. */
    char *orphan = sc_path_join(dir, "no/such/dir/f.json");
    CU_ASSERT_EQUAL(sc_file_write_atomic(orphan, "x", 1, 0644, &err), SC_E_IO);
    CU_ASSERT_TRUE(sc_is_dir(target));
    CU_ASSERT_EQUAL(count_temp_files(dir), 0);
    free(orphan);

    /* 3. A path naming no file. */
    char *slash = sc_path_join(dir, "x/");
    CU_ASSERT_EQUAL(sc_file_write_atomic(slash, "x", 1, 0644, &err), SC_E_IO);
    free(slash);

    /* Only "target" remains in dir. */
    DIR *d = opendir(dir);
    CU_ASSERT_PTR_NOT_NULL_FATAL(d);
    int entries = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            entries++;
    closedir(d);
    CU_ASSERT_EQUAL(entries, 1);

    free(target);
    sc_test_rmtree(dir);
    free(dir);
}

static void test_path_join_rules(void)
{
    char *j = sc_path_join("a", "b");
    CU_ASSERT_STRING_EQUAL(j, "a/b");
    free(j);
    j = sc_path_join("/x/y", "z/w.json");
    CU_ASSERT_STRING_EQUAL(j, "/x/y/z/w.json");
    free(j);
    j = sc_path_join("a/", "b");
    CU_ASSERT_STRING_EQUAL(j, "a/b"); /* no doubled separator */
    free(j);
    j = sc_path_join("a", "/abs");
    CU_ASSERT_STRING_EQUAL(j, "/abs"); /* absolute b wins */
    free(j);
    j = sc_path_join("", "b");
    CU_ASSERT_STRING_EQUAL(j, "b"); /* never turns b absolute */
    free(j);
    CU_ASSERT_PTR_NULL(sc_path_join(NULL, "b"));
    CU_ASSERT_PTR_NULL(sc_path_join("a", NULL));
}

static void test_is_dir_and_is_file(void)
{
    char *dir = sc_test_tmpdir();
    CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
    sc_test_write(dir, "f", "x");
    char *f = sc_path_join(dir, "f");
    char *l = sc_path_join(dir, "link");
    CU_ASSERT_EQUAL(symlink(f, l), 0);
    CU_ASSERT_TRUE(sc_is_dir(dir));
    CU_ASSERT_FALSE(sc_is_file(dir));
    CU_ASSERT_TRUE(sc_is_file(f));
    CU_ASSERT_FALSE(sc_is_dir(f));
    CU_ASSERT_TRUE(sc_is_file(l)); /* links are followed */
    CU_ASSERT_FALSE(sc_is_file(NULL));
    CU_ASSERT_FALSE(sc_is_dir("/definitely/not/here"));
    free(f);
    free(l);
    sc_test_rmtree(dir);
    free(dir);
}

static void test_remove_tree_never_follows_a_link(void)
{
    char *outside = sc_test_tmpdir();
    sc_test_write(outside, "keep.txt", "keep\n");
    char *root = sc_test_tmpdir();
    sc_test_write(root, "a/b/c.txt", "x\n");
    char *link = sc_path_join(root, "a/out");
    CU_ASSERT_EQUAL_FATAL(symlink(outside, link), 0);
    sc_error err;
    CU_ASSERT_EQUAL(sc_file_remove_tree(root, &err), SC_OK);
    struct stat st;
    CU_ASSERT_NOT_EQUAL(lstat(root, &st), 0);               /* the tree is gone */
    char *kept = sc_path_join(outside, "keep.txt");
    CU_ASSERT_TRUE(sc_is_file(kept));                       /* the link's target is not */
    CU_ASSERT_EQUAL(sc_file_remove_tree(root, &err), SC_OK); /* missing is success */
    free(kept);
    free(link);
    free(root);
    sc_test_rmtree(outside);
    free(outside);
}

void register_path_tests(void)
{
    CU_pSuite s = CU_add_suite("path", NULL, NULL);
    if (s == NULL)
        CU_FAIL_FATAL("CU_add_suite failed");
    SC_ADD_TEST(s, test_utf8_valid_accepts_well_formed_text);
    SC_ADD_TEST(s, test_utf8_overlong_forms_are_invalid);
    SC_ADD_TEST(s, test_utf8_surrogates_are_invalid);
    SC_ADD_TEST(s, test_utf8_above_10ffff_is_invalid);
    SC_ADD_TEST(s, test_utf8_truncated_and_stray_bytes_are_invalid);
    SC_ADD_TEST(s, test_empty_path_is_unsafe);
    SC_ADD_TEST(s, test_nul_in_path_is_unsafe);
    SC_ADD_TEST(s, test_invalid_utf8_path_is_unsafe);
    SC_ADD_TEST(s, test_backslash_is_unsafe);
    SC_ADD_TEST(s, test_leading_slash_is_unsafe);
    SC_ADD_TEST(s, test_drive_prefix_is_unsafe);
    SC_ADD_TEST(s, test_dot_segments_are_unsafe);
    SC_ADD_TEST(s, test_empty_segment_is_unsafe);
    SC_ADD_TEST(s, test_ordinary_paths_are_safe);
    SC_ADD_TEST(s, test_unsafe_path_message_names_field_and_path);
    SC_ADD_TEST(s, test_ascii_casecmp_folds_only_ascii_letters);
    SC_ADD_TEST(s, test_dotted_name_rules);
    SC_ADD_TEST(s, test_slug_rules);

    CU_pSuite f = CU_add_suite("file", NULL, NULL);
    if (f == NULL)
        CU_FAIL_FATAL("CU_add_suite failed");
    SC_ADD_TEST(f, test_read_missing_file_is_io_error_and_sets_missing);
    SC_ADD_TEST(f, test_read_returns_all_bytes_nul_terminated);
    SC_ADD_TEST(f, test_write_atomic_replaces_contents);
    SC_ADD_TEST(f, test_write_new_never_replaces_and_leaves_nothing);
    SC_ADD_TEST(f, test_write_atomic_mode_ignores_umask);
    SC_ADD_TEST(f, test_write_atomic_leaves_nothing_on_failure);
    SC_ADD_TEST(f, test_path_join_rules);
    SC_ADD_TEST(f, test_is_dir_and_is_file);
    SC_ADD_TEST(f, test_remove_tree_never_follows_a_link);
}
