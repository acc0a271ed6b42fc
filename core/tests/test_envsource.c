/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_envsource.c — environment sources (docs/format-v3.md 20.2): the
 * prefix copy and its digest, link settling, tool discovery, and the whole
 * pixi path against the scripted stand-ins in fixtures/standin/.  One test
 * uses the real pixi when SCROLLCASE_PIXI names one (and says so when it
 * skips).
 */
#include "harness.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "scrollcase/digest.h"
#include "scrollcase/envsource.h"
#include "scrollcase/file.h"
#include "scrollcase/payload.h"

#ifndef SC_SOURCE_DIR
#error "SC_SOURCE_DIR must name the source tree"
#endif

#define STANDIN_PIXI SC_SOURCE_DIR "/fixtures/standin/pixi"
#define STANDIN_CONDA_PACK SC_SOURCE_DIR "/fixtures/standin/conda-pack"

static sc_target linux_cpu(void)
{
    sc_target t;
    memset(&t, 0, sizeof t);
    t.platform = SC_PLATFORM_LINUX;
    t.arch = SC_ARCH_X86_64;
    t.accelerator = SC_ACCEL_CPU;
    return t;
}

static sc_target windows_cpu(void)
{
    sc_target t = linux_cpu();
    t.platform = SC_PLATFORM_WINDOWS;
    return t;
}

static char *join(const char *a, const char *b)
{
    char *p = sc_path_join(a, b);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    return p;
}

static void put(const char *dir, const char *rel, const char *text, unsigned mode)
{
    sc_test_write(dir, rel, text);
    char *p = join(dir, rel);
    CU_ASSERT_EQUAL(chmod(p, mode), 0);
    free(p);
}

static void link_at(const char *dir, const char *rel, const char *target)
{
    char *p = join(dir, rel);
    CU_ASSERT_EQUAL(symlink(target, p), 0);
    free(p);
}

static void make_dir_at(const char *dir, const char *rel)
{
    char *p = join(dir, rel);
    CU_ASSERT_EQUAL(mkdir(p, 0755), 0);
    free(p);
}

/* lstat kind of dir/rel: 'f', 'l', 'd', '-' missing, '?' other. */
static char kind_of(const char *dir, const char *rel)
{
    char *p = join(dir, rel);
    struct stat st;
    char k = '-';
    if (lstat(p, &st) == 0)
        k = S_ISREG(st.st_mode) ? 'f' : S_ISLNK(st.st_mode) ? 'l' : S_ISDIR(st.st_mode) ? 'd' : '?';
    free(p);
    return k;
}

static unsigned mode_of(const char *dir, const char *rel)
{
    char *p = join(dir, rel);
    struct stat st;
    unsigned m = lstat(p, &st) == 0 ? (unsigned)(st.st_mode & 07777) : 0xffffu;
    free(p);
    return m;
}

static char *text_of(const char *dir, const char *rel)
{
    char *p = join(dir, rel);
    char *bytes = NULL;
    size_t len = 0;
    sc_error err = {0};
    if (sc_file_read(p, &bytes, &len, NULL, &err) != SC_OK)
        bytes = NULL;
    free(p);
    return bytes;
}

static char *link_of(const char *dir, const char *rel)
{
    char *p = join(dir, rel);
    char buf[1024];
    ssize_t n = readlink(p, buf, sizeof buf - 1);
    free(p);
    if (n < 0)
        return NULL;
    buf[n] = '\0';
    return strdup(buf);
}

/* A small prefix: interpreter, modes, links of every kind.  reverse
 * creates everything in the opposite order (another directory order). */
static void make_prefix(const char *p, int reverse)
{
    static const char *const files[] = {"bin/python3", "lib/libz.so.1", "lib/mod.py",
                                        "share/doc/README", "etc/conf"};
    static const unsigned modes[] = {0755, 0755, 0640, 0644, 0600};
    make_dir_at(p, "bin");
    make_dir_at(p, "lib");
    make_dir_at(p, "share");
    make_dir_at(p, "share/doc");
    make_dir_at(p, "etc");
    for (size_t k = 0; k < 5; k++) {
        size_t i = reverse ? 4 - k : k;
        put(p, files[i], files[i], modes[i]);
    }
    if (reverse) {
        link_at(p, "lib/libz.so", "libz.so.1");
        link_at(p, "bin/python", "python3");
    } else {
        link_at(p, "bin/python", "python3");
        link_at(p, "lib/libz.so", "libz.so.1");
    }
}

static char *new_prefix(const char *root, int reverse)
{
    char *p = join(root, reverse ? "prefix-r" : "prefix");
    CU_ASSERT_EQUAL(mkdir(p, 0755), 0);
    make_prefix(p, reverse);
    return p;
}

/* ---- prefix copy -------------------------------------------------------- */

static void test_prefix_copy_keeps_file_modes_whatever_the_umask(void)
{
    char *root = sc_test_tmpdir();
    char *prefix = new_prefix(root, 0);
    char *venv = join(root, "payload/venv");
    char digest[65];
    sc_error err = {0};
    mode_t old = umask(077);
    sc_target t = linux_cpu();
    SC_EXPECT_CODE(sc_envsource_copy_prefix(prefix, venv, &t, digest, &err), SC_OK, &err);
    umask(old);
    CU_ASSERT_EQUAL(mode_of(venv, "bin/python3"), 0755);
    CU_ASSERT_EQUAL(mode_of(venv, "lib/mod.py"), 0640);
    CU_ASSERT_EQUAL(mode_of(venv, "etc/conf"), 0600);
    CU_ASSERT_EQUAL(mode_of(venv, "share/doc"), 0755);
    char *txt = text_of(venv, "share/doc/README");
    CU_ASSERT_STRING_EQUAL(txt ? txt : "", "share/doc/README");
    free(txt);
    sc_test_rmtree(root);
    free(root);
    free(prefix);
    free(venv);
}

static void test_prefix_copy_keeps_links_that_pass_the_link_rule(void)
{
    char *root = sc_test_tmpdir();
    char *prefix = new_prefix(root, 0);
    char *venv = join(root, "venv");
    sc_target t = linux_cpu();
    char digest[65];
    sc_error err = {0};
    SC_EXPECT_CODE(sc_envsource_copy_prefix(prefix, venv, &t, digest, &err), SC_OK, &err);
    CU_ASSERT_EQUAL(kind_of(venv, "bin/python"), 'l');
    char *l = link_of(venv, "lib/libz.so");
    CU_ASSERT_STRING_EQUAL(l ? l : "", "libz.so.1");
    free(l);
    sc_test_rmtree(root);
    free(root);
    free(prefix);
    free(venv);
}

static void test_prefix_copy_materialises_links_that_fail_the_rule(void)
{
    char *root = sc_test_tmpdir();
    char *prefix = new_prefix(root, 0);
    /* absolute target inside the prefix, a link to a directory, a link
     * whose path passes through a directory link */
    char *abs_target = join(prefix, "lib/mod.py");
    link_at(prefix, "bin/abs-mod", abs_target);
    link_at(prefix, "share/lib-link", "../lib");
    link_at(prefix, "etc/through", "../share/lib-link/mod.py");
    char *venv = join(root, "venv");
    sc_target t = linux_cpu();
    char digest[65];
    sc_error err = {0};
    SC_EXPECT_CODE(sc_envsource_copy_prefix(prefix, venv, &t, digest, &err), SC_OK, &err);
    CU_ASSERT_EQUAL(kind_of(venv, "bin/abs-mod"), 'f');
    CU_ASSERT_EQUAL(mode_of(venv, "bin/abs-mod"), 0640);
    CU_ASSERT_EQUAL(kind_of(venv, "share/lib-link"), 'd');
    CU_ASSERT_EQUAL(kind_of(venv, "share/lib-link/mod.py"), 'f');
    /* the libz link inside the materialised directory was dereferenced */
    CU_ASSERT_EQUAL(kind_of(venv, "share/lib-link/libz.so"), 'f');
    /* "etc/through" sorts before "share/lib-link": settled while lib-link
     * was still a link, so it is a copy too */
    CU_ASSERT_EQUAL(kind_of(venv, "etc/through"), 'f');
    char *txt = text_of(venv, "etc/through");
    CU_ASSERT_STRING_EQUAL(txt ? txt : "", "lib/mod.py");
    free(txt);
    /* nothing in the copy points outside it */
    sc_payload_list list = {0};
    SC_EXPECT_CODE(sc_payload_collect(venv, 0, &list, &err), SC_OK, &err);
    for (size_t i = 0; i < list.count; i++)
        if (list.entries[i].kind == SC_PAYLOAD_LINK)
            CU_ASSERT_NOT_EQUAL(list.entries[i].link_target[0], '/');
    sc_payload_list_free(&list);
    sc_test_rmtree(root);
    free(abs_target);
    free(root);
    free(prefix);
    free(venv);
}

static void test_prefix_copy_drops_dangling_and_escaping_links(void)
{
    char *root = sc_test_tmpdir();
    char *prefix = new_prefix(root, 0);
    put(root, "outside.txt", "host file", 0644);
    link_at(prefix, "lib/dangling", "nowhere");
    link_at(prefix, "lib/escaping", "../../outside.txt");
    link_at(prefix, "lib/absolute-out", "/etc/hostname");
    char *venv = join(root, "venv");
    sc_target t = linux_cpu();
    char digest[65];
    sc_error err = {0};
    SC_EXPECT_CODE(sc_envsource_copy_prefix(prefix, venv, &t, digest, &err), SC_OK, &err);
    CU_ASSERT_EQUAL(kind_of(venv, "lib/dangling"), '-');
    CU_ASSERT_EQUAL(kind_of(venv, "lib/escaping"), '-');
    CU_ASSERT_EQUAL(kind_of(venv, "lib/absolute-out"), '-');
    sc_test_rmtree(root);
    free(root);
    free(prefix);
    free(venv);
}

static void test_prefix_copy_refuses_special_entries_and_leaves_nothing(void)
{
    char *root = sc_test_tmpdir();
    char *prefix = new_prefix(root, 0);
    char *fifo = join(prefix, "lib/pipe");
    CU_ASSERT_EQUAL(mkfifo(fifo, 0644), 0);
    char *venv = join(root, "venv");
    sc_target t = linux_cpu();
    char digest[65];
    sc_error err = {0};
    SC_EXPECT_CODE(sc_envsource_copy_prefix(prefix, venv, &t, digest, &err),
                   SC_E_SPECIAL_ENTRY, &err);
    CU_ASSERT_EQUAL(kind_of(root, "venv"), '-');
    CU_ASSERT_STRING_EQUAL(digest, "");
    sc_test_rmtree(root);
    free(fifo);
    free(root);
    free(prefix);
    free(venv);
}

static void test_prefix_copy_is_the_same_with_any_job_count(void)
{
    /* The files are copied (and hashed) on the job count's threads; the
     * tree, its digest and its kept list never depend on it, and a special
     * entry found by the walk is still refused with nothing left. */
    char *root = sc_test_tmpdir();
    char *prefix = new_prefix(root, 0);
    char name[64], text[64];
    for (int i = 0; i < 300; i++) {
        snprintf(name, sizeof name, "lib/p%02d/m%03d.py", i % 17, i);
        snprintf(text, sizeof text, "value = %d\n", i * 7);
        put(prefix, name, text, i % 5 == 0 ? 0755 : 0644);
    }
    sc_target t = linux_cpu();
    unsigned jobs[3] = {1, 2, 7};
    char first[65] = "";
    size_t first_count = 0;
    for (int j = 0; j < 3; j++) {
        snprintf(name, sizeof name, "venv-%u", jobs[j]);
        char *venv = join(root, name);
        char digest[65];
        sc_payload_list l = {NULL, 0, 0};
        sc_error err = {0};
        SC_EXPECT_CODE(sc_envsource_copy_prefix_keep(prefix, venv, &t, digest, jobs[j], &l, &err),
                       SC_OK, &err);
        if (j == 0) {
            memcpy(first, digest, sizeof first);
            first_count = l.count;
        }
        CU_ASSERT_STRING_EQUAL(digest, first);
        CU_ASSERT_EQUAL(l.count, first_count);
        CU_ASSERT_EQUAL(mode_of(venv, "lib/p05/m005.py"), 0755);
        CU_ASSERT_EQUAL(mode_of(venv, "lib/p06/m006.py"), 0644);
        sc_payload_list_free(&l);
        free(venv);
    }
    CU_ASSERT(first_count > 300);
    char *fifo = join(prefix, "lib/p16/zz-pipe");
    CU_ASSERT_EQUAL(mkfifo(fifo, 0644), 0);
    char *venv = join(root, "venv-fifo");
    char digest[65];
    sc_error err = {0};
    SC_EXPECT_CODE(sc_envsource_copy_prefix_keep(prefix, venv, &t, digest, 7, NULL, &err),
                   SC_E_SPECIAL_ENTRY, &err);
    CU_ASSERT_EQUAL(kind_of(root, "venv-fifo"), '-');
    sc_test_rmtree(root);
    free(fifo);
    free(venv);
    free(root);
    free(prefix);
}

static void test_prefix_copy_skips_pycache_pyc_and_ds_store(void)
{
    char *root = sc_test_tmpdir();
    char *prefix = new_prefix(root, 0);
    put(prefix, "lib/__pycache__/mod.cpython-312.pyc", "x", 0644);
    put(prefix, "lib/other.pyc", "x", 0644);
    put(prefix, ".DS_Store", "x", 0644);
    char *venv = join(root, "venv");
    sc_target t = linux_cpu();
    char digest[65];
    sc_error err = {0};
    SC_EXPECT_CODE(sc_envsource_copy_prefix(prefix, venv, &t, digest, &err), SC_OK, &err);
    CU_ASSERT_EQUAL(kind_of(venv, "lib/__pycache__"), '-');
    CU_ASSERT_EQUAL(kind_of(venv, "lib/other.pyc"), '-');
    CU_ASSERT_EQUAL(kind_of(venv, ".DS_Store"), '-');
    sc_test_rmtree(root);
    free(root);
    free(prefix);
    free(venv);
}

static void test_prefix_without_entry_point_is_relocation_failed_before_writing(void)
{
    char *root = sc_test_tmpdir();
    char *prefix = join(root, "prefix");
    CU_ASSERT_EQUAL(mkdir(prefix, 0755), 0);
    put(prefix, "lib/mod.py", "x", 0644);
    link_at(prefix, "lib/python", "nowhere"); /* not where the entry point is */
    char *venv = join(root, "venv");
    sc_target t = linux_cpu();
    char digest[65];
    sc_error err = {0};
    SC_EXPECT_CODE(sc_envsource_copy_prefix(prefix, venv, &t, digest, &err),
                   SC_E_RELOCATION_FAILED, &err);
    CU_ASSERT_EQUAL(kind_of(root, "venv"), '-');
    /* a bin/python that dangles is no entry point either */
    make_dir_at(prefix, "bin");
    link_at(prefix, "bin/python", "python3.12");
    SC_EXPECT_CODE(sc_envsource_copy_prefix(prefix, venv, &t, digest, &err),
                   SC_E_RELOCATION_FAILED, &err);
    CU_ASSERT_EQUAL(kind_of(root, "venv"), '-');
    sc_test_rmtree(root);
    free(root);
    free(prefix);
    free(venv);
}

static void test_prefix_copy_repairs_launchers_that_name_the_prefix(void)
{
    char *root = sc_test_tmpdir();
    char *prefix = new_prefix(root, 0);
    char text[1024];
    snprintf(text, sizeof text, "#!%s/bin/python3\nprint('tool')\n", prefix);
    put(prefix, "bin/tool", text, 0755);
    put(prefix, "bin/other", "#!/usr/bin/env python3\nprint('other')\n", 0755);
    char *venv = join(root, "venv");
    sc_target t = linux_cpu();
    char digest[65];
    sc_error err = {0};
    SC_EXPECT_CODE(sc_envsource_copy_prefix(prefix, venv, &t, digest, &err), SC_OK, &err);
    char *tool = text_of(venv, "bin/tool"), *other = text_of(venv, "bin/other");
    CU_ASSERT_PTR_NOT_NULL(tool ? strstr(tool, "#!/bin/sh\n'''exec' ") : NULL);
    CU_ASSERT_PTR_NOT_NULL(tool ? strstr(tool, "' '''\nprint('tool')\n") : NULL);
    CU_ASSERT_PTR_NULL(tool ? strstr(tool, prefix) : "");
    CU_ASSERT_STRING_EQUAL(other ? other : "", "#!/usr/bin/env python3\nprint('other')\n");
    free(tool);
    free(other);
    sc_test_rmtree(root);
    free(root);
    free(prefix);
    free(venv);
}

static ino_t inode_of(const char *dir, const char *rel)
{
    char *p = join(dir, rel);
    struct stat st;
    ino_t ino = lstat(p, &st) == 0 ? st.st_ino : 0;
    free(p);
    return ino;
}

/* A prefix's regular files are hard-linked where the file system allows
 * (same device here), and nothing the copy does writes through a link: the
 * repaired launcher becomes a file of its own and the prefix's launcher
 * keeps its bytes; a file with a set-id bit is copied (its mode & 0777). */
static void test_prefix_copy_links_files_and_never_writes_through_them(void)
{
    char *root = sc_test_tmpdir();
    char *prefix = new_prefix(root, 0);
    char text[1024];
    snprintf(text, sizeof text, "#!%s/bin/python3\nprint('tool')\n", prefix);
    put(prefix, "bin/tool", text, 0755);
    put(prefix, "lib/data.bin", "weights", 0644);
    put(prefix, "bin/setid", "x", 0755);
    char *setid = join(prefix, "bin/setid");
    CU_ASSERT_EQUAL_FATAL(chmod(setid, 02755), 0);
    char *venv = join(root, "venv");
    sc_target t = linux_cpu();
    char digest[65];
    sc_error err = {0};
    SC_EXPECT_CODE(sc_envsource_copy_prefix(prefix, venv, &t, digest, &err), SC_OK, &err);
    CU_ASSERT_EQUAL(inode_of(venv, "lib/data.bin"), inode_of(prefix, "lib/data.bin"));
    CU_ASSERT_NOT_EQUAL(inode_of(venv, "bin/tool"), inode_of(prefix, "bin/tool"));
    CU_ASSERT_NOT_EQUAL(inode_of(venv, "bin/setid"), inode_of(prefix, "bin/setid"));
    struct stat st;
    char *copied = join(venv, "bin/setid");
    CU_ASSERT_EQUAL(lstat(copied, &st), 0);
    CU_ASSERT_EQUAL(st.st_mode & 07777, 0755);
    char *before = text_of(prefix, "bin/tool"), *after = text_of(venv, "bin/tool");
    CU_ASSERT_STRING_EQUAL(before ? before : "", text);
    CU_ASSERT_PTR_NOT_NULL(after ? strstr(after, "#!/bin/sh\n") : NULL);
    free(before);
    free(after);
    free(copied);
    free(setid);
    sc_test_rmtree(root);
    free(root);
    free(prefix);
    free(venv);
}

static void test_prefix_copy_refuses_an_existing_destination(void)
{
    char *root = sc_test_tmpdir();
    char *prefix = new_prefix(root, 0);
    char *venv = join(root, "venv");
    CU_ASSERT_EQUAL(mkdir(venv, 0755), 0);
    put(venv, "keep", "mine", 0644);
    sc_target t = linux_cpu();
    char digest[65];
    sc_error err = {0};
    SC_EXPECT_CODE(sc_envsource_copy_prefix(prefix, venv, &t, digest, &err), SC_E_IO, &err);
    CU_ASSERT_EQUAL(kind_of(venv, "keep"), 'f');
    sc_test_rmtree(root);
    free(root);
    free(prefix);
    free(venv);
}

static void test_prefix_digest_is_the_payload_digest_whatever_the_directory_order(void)
{
    char *root = sc_test_tmpdir();
    char *a = new_prefix(root, 0), *b = new_prefix(root, 1);
    char *va = join(root, "va"), *vb = join(root, "vb");
    sc_target t = linux_cpu();
    char da[65], db[65], expect[65];
    sc_error err = {0};
    SC_EXPECT_CODE(sc_envsource_copy_prefix(a, va, &t, da, &err), SC_OK, &err);
    SC_EXPECT_CODE(sc_envsource_copy_prefix(b, vb, &t, db, &err), SC_OK, &err);
    CU_ASSERT_STRING_EQUAL(da, db);
    CU_ASSERT_TRUE(sc_is_lower_hex(da, strlen(da), 64));
    sc_payload_list list = {0};
    SC_EXPECT_CODE(sc_payload_collect(vb, SC_PAYLOAD_HASH, &list, &err), SC_OK, &err);
    SC_EXPECT_CODE(sc_payload_digest(&list, expect, &err), SC_OK, &err);
    sc_payload_list_free(&list);
    CU_ASSERT_STRING_EQUAL(da, expect);
    /* a different byte makes a different digest */
    char *vc = join(root, "vc");
    put(a, "lib/mod.py", "changed", 0640);
    SC_EXPECT_CODE(sc_envsource_copy_prefix(a, vc, &t, expect, &err), SC_OK, &err);
    CU_ASSERT_STRING_NOT_EQUAL(da, expect);
    sc_test_rmtree(root);
    free(root);
    free(a);
    free(b);
    free(va);
    free(vb);
    free(vc);
}

static void test_windows_targets_carry_no_links(void)
{
    char *root = sc_test_tmpdir();
    char *prefix = join(root, "prefix");
    CU_ASSERT_EQUAL(mkdir(prefix, 0755), 0);
    put(prefix, "python.exe", "exe", 0755);
    put(prefix, "Lib/os.py", "os", 0644);
    link_at(prefix, "Lib/os-link.py", "os.py");
    char *venv = join(root, "venv");
    sc_target t = windows_cpu();
    char digest[65];
    sc_error err = {0};
    SC_EXPECT_CODE(sc_envsource_copy_prefix(prefix, venv, &t, digest, &err), SC_OK, &err);
    CU_ASSERT_EQUAL(kind_of(venv, "Lib/os-link.py"), 'f');
    sc_test_rmtree(root);
    free(root);
    free(prefix);
    free(venv);
}

static void test_a_directory_link_to_its_own_ancestor_is_relocation_failed(void)
{
    char *root = sc_test_tmpdir();
    char *prefix = new_prefix(root, 0);
    link_at(prefix, "lib/loop", "..");
    char *venv = join(root, "venv");
    sc_target t = linux_cpu();
    char digest[65];
    sc_error err = {0};
    SC_EXPECT_CODE(sc_envsource_copy_prefix(prefix, venv, &t, digest, &err),
                   SC_E_RELOCATION_FAILED, &err);
    CU_ASSERT_EQUAL(kind_of(root, "venv"), '-');
    sc_test_rmtree(root);
    free(root);
    free(prefix);
    free(venv);
}

static void test_directory_link_cycles_are_relocation_failed_with_relative_paths(void)
{
    char *root = sc_test_tmpdir();
    char cwd[4096];
    CU_ASSERT_PTR_NOT_NULL_FATAL(getcwd(cwd, sizeof cwd));
    CU_ASSERT_EQUAL_FATAL(chdir(root), 0);
    char *prefix = new_prefix(".", 0);
    make_dir_at(prefix, "lib/sub");
    link_at(prefix, "lib/sub/up", "..");       /* contains itself */
    sc_target t = linux_cpu();
    char digest[65];
    sc_error err = {0};
    SC_EXPECT_CODE(sc_envsource_copy_prefix(prefix, "venv", &t, digest, &err),
                   SC_E_RELOCATION_FAILED, &err);
    CU_ASSERT_EQUAL(kind_of(".", "venv"), '-');
    /* two directory links that reach each other through a copy */
    char *up = join(prefix, "lib/sub/up");
    CU_ASSERT_EQUAL(unlink(up), 0);
    link_at(prefix, "lib/back", "../share");
    link_at(prefix, "share/fwd", "../lib");
    SC_EXPECT_CODE(sc_envsource_copy_prefix(prefix, "venv", &t, digest, &err),
                   SC_E_RELOCATION_FAILED, &err);
    CU_ASSERT_EQUAL(kind_of(".", "venv"), '-');
    CU_ASSERT_EQUAL(chdir(cwd), 0);
    sc_test_rmtree(root);
    free(up);
    free(root);
    free(prefix);
}

/* ---- discovery ----------------------------------------------------------- */

static void fake_pixi(const char *dir, const char *rel, const char *version)
{
    char text[256];
    snprintf(text, sizeof text, "#!/bin/sh\necho \"pixi %s\"\n", version);
    put(dir, rel, text, 0755);
}

static void set_path(const char *dir, char **saved)
{
    const char *old = getenv("PATH");
    *saved = old ? strdup(old) : NULL;
    setenv("PATH", dir, 1);
}

static void restore_path(char *saved)
{
    if (saved != NULL)
        setenv("PATH", saved, 1);
    else
        unsetenv("PATH");
    free(saved);
}

static void test_discovery_precedence_explicit_env_toolchain_path(void)
{
    char *root = sc_test_tmpdir();
    fake_pixi(root, "explicit/pixi", "1.0.1");
    fake_pixi(root, "env/pixi", "1.0.2");
    fake_pixi(root, "toolchain/bin/pixi", "1.0.3");
    fake_pixi(root, "path/pixi", "1.0.4");
    char *explicit_pixi = join(root, "explicit/pixi"), *env_pixi = join(root, "env/pixi");
    char *toolchain = join(root, "toolchain"), *path = join(root, "path");
    char *saved_path, *saved_env = getenv("SCROLLCASE_PIXI") ? strdup(getenv("SCROLLCASE_PIXI")) : NULL;
    set_path(path, &saved_path);
    setenv("SCROLLCASE_PIXI", env_pixi, 1);
    sc_pixi_tools tools;
    memset(&tools, 0, sizeof tools);
    sc_error err = {0};
    SC_EXPECT_CODE(sc_pixi_discover_pixi(explicit_pixi, toolchain, NULL, &tools, &err), SC_OK, &err);
    CU_ASSERT_STRING_EQUAL(tools.pixi_version, "1.0.1");
    SC_EXPECT_CODE(sc_pixi_discover_pixi(NULL, toolchain, NULL, &tools, &err), SC_OK, &err);
    CU_ASSERT_STRING_EQUAL(tools.pixi_version, "1.0.2");
    unsetenv("SCROLLCASE_PIXI");
    SC_EXPECT_CODE(sc_pixi_discover_pixi(NULL, toolchain, NULL, &tools, &err), SC_OK, &err);
    CU_ASSERT_STRING_EQUAL(tools.pixi_version, "1.0.3");
    SC_EXPECT_CODE(sc_pixi_discover_pixi(NULL, NULL, NULL, &tools, &err), SC_OK, &err);
    CU_ASSERT_STRING_EQUAL(tools.pixi_version, "1.0.4");
    CU_ASSERT_EQUAL(tools.pixi[0], '/');
    sc_pixi_tools_free(&tools);
    if (saved_env) {
        setenv("SCROLLCASE_PIXI", saved_env, 1);
        free(saved_env);
    }
    restore_path(saved_path);
    sc_test_rmtree(root);
    free(root);
    free(explicit_pixi);
    free(env_pixi);
    free(toolchain);
    free(path);
}

static void test_pixi_version_must_equal_the_pin_exactly(void)
{
    char *root = sc_test_tmpdir();
    fake_pixi(root, "pixi", "0.40.0");
    char *pixi = join(root, "pixi");
    sc_pixi_tools tools;
    memset(&tools, 0, sizeof tools);
    sc_error err = {0};
    SC_EXPECT_CODE(sc_pixi_discover_pixi(pixi, NULL, "0.40.0", &tools, &err), SC_OK, &err);
    SC_EXPECT_CODE(sc_pixi_discover_pixi(pixi, NULL, "0.40", &tools, &err),
                   SC_E_TOOL_VERSION_MISMATCH, &err);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "Scroll requires pixi 0.40, found 0.40.0."));
    SC_EXPECT_CODE(sc_pixi_discover_pixi(pixi, NULL, "0.40.1", &tools, &err),
                   SC_E_TOOL_VERSION_MISMATCH, &err);
    sc_pixi_tools_free(&tools);
    sc_test_rmtree(root);
    free(root);
    free(pixi);
}

static void test_absent_or_broken_tools_are_tool_missing(void)
{
    char *root = sc_test_tmpdir();
    put(root, "not-exec", "#!/bin/sh\necho pixi 1\n", 0644);
    put(root, "fails", "#!/bin/sh\nexit 3\n", 0755);
    put(root, "silent", "#!/bin/sh\necho pixi\n", 0755);
    put(root, "bad-interp", "#!/nonexistent/interpreter\n", 0755);
    char *saved_path;
    set_path(root, &saved_path);
    char *saved_env = getenv("SCROLLCASE_PIXI") ? strdup(getenv("SCROLLCASE_PIXI")) : NULL;
    unsetenv("SCROLLCASE_PIXI");
    static const char *const rows[] = {"missing", "not-exec", "fails", "silent", "bad-interp"};
    sc_pixi_tools tools;
    memset(&tools, 0, sizeof tools);
    sc_error err = {0};
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        char *p = join(root, rows[i]);
        SC_EXPECT_CODE(sc_pixi_discover_pixi(p, NULL, "0.40.0", &tools, &err), SC_E_TOOL_MISSING,
                       &err);
        if (strcmp(rows[i], "silent") != 0) /* conda-pack --help needs only exit 0 */
            SC_EXPECT_CODE(sc_pixi_discover_conda_pack(p, NULL, &tools, &err), SC_E_TOOL_MISSING,
                           &err);
        free(p);
    }
    /* nothing on PATH at all */
    SC_EXPECT_CODE(sc_pixi_discover(NULL, NULL, NULL, "0.40.0", &tools, &err), SC_E_TOOL_MISSING,
                   &err);
    CU_ASSERT_PTR_NULL(tools.pixi);
    CU_ASSERT_PTR_NULL(tools.conda_pack);
    if (saved_env) {
        setenv("SCROLLCASE_PIXI", saved_env, 1);
        free(saved_env);
    }
    restore_path(saved_path);
    sc_test_rmtree(root);
    free(root);
}

static void test_the_stand_ins_are_discovered_as_pixi_and_conda_pack(void)
{
    sc_pixi_tools tools;
    sc_error err = {0};
    SC_EXPECT_CODE(sc_pixi_discover(STANDIN_PIXI, STANDIN_CONDA_PACK, NULL, "0.40.0", &tools, &err),
                   SC_OK, &err);
    CU_ASSERT_STRING_EQUAL(tools.pixi_version, "0.40.0");
    CU_ASSERT_STRING_EQUAL(tools.conda_pack ? tools.conda_pack : "", STANDIN_CONDA_PACK);
    sc_pixi_tools_free(&tools);
}

/* The real pixi, when SCROLLCASE_PIXI names one. */
static void test_real_pixi_when_scrollcase_pixi_names_one(void)
{
    const char *real = getenv("SCROLLCASE_PIXI");
    if (real == NULL || real[0] == '\0') {
        fprintf(stderr, "\n  SKIPPED: SCROLLCASE_PIXI is not set; the real pixi is not tested\n");
        return;
    }
    sc_pixi_tools tools;
    memset(&tools, 0, sizeof tools);
    sc_error err = {0};
    SC_EXPECT_CODE(sc_pixi_discover_pixi(NULL, NULL, NULL, &tools, &err), SC_OK, &err);
    CU_ASSERT_NOT_EQUAL(tools.pixi_version[0], '\0');
    char wrong[80];
    snprintf(wrong, sizeof wrong, "%s.0", tools.pixi_version);
    SC_EXPECT_CODE(sc_pixi_discover_pixi(NULL, NULL, wrong, &tools, &err),
                   SC_E_TOOL_VERSION_MISMATCH, &err);
    sc_pixi_tools_free(&tools);
}

/* ---- the pixi path --------------------------------------------------------- */

typedef struct pixi_case {
    char *root, *scroll, *work, *venv;
    sc_pixi_tools tools;
} pixi_case;

static void pixi_case_new(pixi_case *c)
{
    memset(c, 0, sizeof *c);
    c->root = sc_test_tmpdir();
    CU_ASSERT_PTR_NOT_NULL_FATAL(c->root);
    c->scroll = join(c->root, "scrolls/demo");
    c->work = join(c->root, "build");
    c->venv = join(c->root, "build/payload/venv");
    put(c->root, "scrolls/demo/pixi.toml", "[workspace]\nname = \"demo\"\n", 0644);
    put(c->root, "scrolls/demo/pixi.lock", "version: 6\n", 0644);
    make_dir_at(c->root, "build");
    sc_error err = {0};
    SC_EXPECT_CODE(sc_pixi_discover(STANDIN_PIXI, STANDIN_CONDA_PACK, NULL, "0.40.0", &c->tools,
                                    &err),
                   SC_OK, &err);
}

static void pixi_case_free(pixi_case *c)
{
    sc_pixi_tools_free(&c->tools);
    sc_test_rmtree(c->root);
    free(c->root);
    free(c->scroll);
    free(c->work);
    free(c->venv);
}

static void test_pixi_path_installs_packs_and_unpacks_the_environment(void)
{
    pixi_case c;
    pixi_case_new(&c);
    sc_target t = linux_cpu();
    char lock[65], expect[65];
    sc_error err = {0};
    SC_EXPECT_CODE(sc_envsource_install_pixi(&c.tools, c.scroll, c.work, c.venv, &t, lock, &err),
                   SC_OK, &err);
    char *lockpath = join(c.scroll, "pixi.lock");
    unsigned char raw[32];
    SC_EXPECT_CODE(sc_sha256_file(lockpath, raw, &err), SC_OK, &err);
    sc_hex_lower(raw, 32, expect);
    CU_ASSERT_STRING_EQUAL(lock, expect);
    CU_ASSERT_EQUAL(kind_of(c.venv, "bin/python3.12"), 'f');
    CU_ASSERT_EQUAL(mode_of(c.venv, "bin/python3.12"), 0755);
    CU_ASSERT_EQUAL(kind_of(c.venv, "lib/python3.12/site-packages/standin_pkg/__init__.py"), 'f');
    /* the workspace and the tarball are gone */
    CU_ASSERT_EQUAL(kind_of(c.work, "pixi-workspace"), '-');
    CU_ASSERT_EQUAL(kind_of(c.work, "pixi-env.tar.gz"), '-');
    free(lockpath);
    pixi_case_free(&c);
}

static void test_pixi_path_deletes_the_service_files(void)
{
    pixi_case c;
    pixi_case_new(&c);
    sc_target t = linux_cpu();
    char lock[65];
    sc_error err = {0};
    SC_EXPECT_CODE(sc_envsource_install_pixi(&c.tools, c.scroll, c.work, c.venv, &t, lock, &err),
                   SC_OK, &err);
    CU_ASSERT_EQUAL(kind_of(c.venv, "conda-meta/pixi_env_prefix"), '-');
    CU_ASSERT_EQUAL(kind_of(c.venv, "conda-meta/pixi"), '-');
    CU_ASSERT_EQUAL(kind_of(c.venv, "bin/conda-unpack"), '-');
    pixi_case_free(&c);
}

static void test_pixi_path_keeps_name_version_build_license_of_conda_meta(void)
{
    pixi_case c;
    pixi_case_new(&c);
    sc_target t = linux_cpu();
    char lock[65];
    sc_error err = {0};
    SC_EXPECT_CODE(sc_envsource_install_pixi(&c.tools, c.scroll, c.work, c.venv, &t, lock, &err),
                   SC_OK, &err);
    char *py = text_of(c.venv, "conda-meta/python-3.12.0-h1234_0_cpython.json");
    CU_ASSERT_STRING_EQUAL(py ? py : "",
                           "{\n  \"name\": \"python\",\n  \"version\": \"3.12.0\",\n"
                           "  \"build\": \"h1234_0_cpython\",\n  \"license\": \"Python-2.0\"\n}\n");
    char *pkg = text_of(c.venv, "conda-meta/standin-pkg-1.0-0.json");
    CU_ASSERT_STRING_EQUAL(pkg ? pkg : "",
                           "{\n  \"name\": \"standin-pkg\",\n  \"version\": \"1.0\",\n"
                           "  \"build\": \"0\"\n}\n");
    CU_ASSERT_EQUAL(kind_of(c.venv, "conda-meta/history"), '-');
    CU_ASSERT_EQUAL(mode_of(c.venv, "conda-meta/standin-pkg-1.0-0.json"), 0644);
    free(py);
    free(pkg);
    pixi_case_free(&c);
}

static void test_unreadable_conda_meta_record_is_relocation_failed(void)
{
    char *root = sc_test_tmpdir();
    put(root, "conda-meta/broken.json", "{\"name\": ", 0644);
    sc_error err = {0};
    SC_EXPECT_CODE(sc_envsource_canonical_conda_meta(root, &err), SC_E_RELOCATION_FAILED, &err);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "Unreadable conda package record"));
    sc_test_rmtree(root);
    free(root);
}

static void test_pixi_path_settles_links(void)
{
    pixi_case c;
    pixi_case_new(&c);
    sc_target t = linux_cpu();
    char lock[65];
    sc_error err = {0};
    SC_EXPECT_CODE(sc_envsource_install_pixi(&c.tools, c.scroll, c.work, c.venv, &t, lock, &err),
                   SC_OK, &err);
    char *l = link_of(c.venv, "bin/python");
    CU_ASSERT_STRING_EQUAL(l ? l : "", "python3.12");
    free(l);
    l = link_of(c.venv, "lib/libstandin.so");
    CU_ASSERT_STRING_EQUAL(l ? l : "", "libstandin.so.1");
    free(l);
    CU_ASSERT_EQUAL(kind_of(c.venv, "lib/dangling"), '-');
    CU_ASSERT_EQUAL(kind_of(c.venv, "lib/escaping"), '-');
    CU_ASSERT_EQUAL(kind_of(c.venv, "share/python-link"), 'd');
    CU_ASSERT_EQUAL(kind_of(c.venv, "share/python-link/site-packages/standin_pkg/__init__.py"),
                    'f');
    pixi_case_free(&c);
}

static void test_pixi_path_repairs_launchers_into_sh_trampolines(void)
{
    pixi_case c;
    pixi_case_new(&c);
    sc_target t = linux_cpu();
    char lock[65];
    sc_error err = {0};
    SC_EXPECT_CODE(sc_envsource_install_pixi(&c.tools, c.scroll, c.work, c.venv, &t, lock, &err),
                   SC_OK, &err);
    static const char head[] =
        "#!/bin/sh\n"
        "'''exec' \"$(CDPATH= cd -- \"$(dirname -- \"$0\")\" && pwd)/python\" \"$0\" \"$@\"\n"
        "' '''\n";
    char want[512];
    char *hello = text_of(c.venv, "bin/hello");
    snprintf(want, sizeof want, "%s%s", head,
             "# -*- coding: utf-8 -*-\nimport sys\nprint('hello', sys.argv[1:])\n");
    CU_ASSERT_STRING_EQUAL(hello ? hello : "", want);
    char *longl = text_of(c.venv, "bin/long-launcher");
    snprintf(want, sizeof want, "%s%s", head, "import sys\nprint('long')\n");
    CU_ASSERT_STRING_EQUAL(longl ? longl : "", want);
    CU_ASSERT_EQUAL(mode_of(c.venv, "bin/hello"), 0755);
    char *plain = text_of(c.venv, "bin/plain-tool");
    CU_ASSERT_STRING_EQUAL(plain ? plain : "", "#!/bin/sh\necho untouched\n");
    /* the repaired launcher runs, from wherever the environment now is */
    char *moved = join(c.root, "moved");
    CU_ASSERT_EQUAL(rename(c.venv, moved), 0);
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "'%s/bin/hello' a b 2>&1", moved);
    FILE *f = popen(cmd, "r");
    char out[256] = "";
    if (f != NULL) {
        size_t n = fread(out, 1, sizeof out - 1, f);
        out[n] = '\0';
        pclose(f);
    }
    CU_ASSERT_STRING_EQUAL(out, "hello ['a', 'b']\n");
    free(moved);
    free(hello);
    free(longl);
    free(plain);
    pixi_case_free(&c);
}

static void test_pixi_path_without_a_lock_is_missing_lock_before_any_process(void)
{
    pixi_case c;
    pixi_case_new(&c);
    char *lockpath = join(c.scroll, "pixi.lock");
    CU_ASSERT_EQUAL(unlink(lockpath), 0);
    sc_target t = linux_cpu();
    char lock[65];
    sc_error err = {0};
    SC_EXPECT_CODE(sc_envsource_install_pixi(&c.tools, c.scroll, c.work, c.venv, &t, lock, &err),
                   SC_E_MISSING_LOCK, &err);
    CU_ASSERT_EQUAL(kind_of(c.work, "pixi-workspace"), '-');
    CU_ASSERT_EQUAL(kind_of(c.work, "payload"), '-');
    free(lockpath);
    pixi_case_free(&c);
}

static void test_pixi_install_failure_is_tool_missing_and_leaves_nothing(void)
{
    pixi_case c;
    pixi_case_new(&c);
    setenv("SCROLLCASE_STANDIN_PIXI_FAIL", "1", 1);
    sc_target t = linux_cpu();
    char lock[65];
    sc_error err = {0};
    SC_EXPECT_CODE(sc_envsource_install_pixi(&c.tools, c.scroll, c.work, c.venv, &t, lock, &err),
                   SC_E_TOOL_MISSING, &err);
    unsetenv("SCROLLCASE_STANDIN_PIXI_FAIL");
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "exited with 3"));
    CU_ASSERT_EQUAL(kind_of(c.work, "pixi-workspace"), '-');
    CU_ASSERT_EQUAL(kind_of(c.work, "payload/venv"), '-');
    pixi_case_free(&c);
}

static void pack_with_extra(const char *extra, sc_code want)
{
    pixi_case c;
    pixi_case_new(&c);
    setenv("SCROLLCASE_STANDIN_CONDA_PACK_EXTRA", extra, 1);
    sc_target t = linux_cpu();
    char lock[65];
    sc_error err = {0};
    SC_EXPECT_CODE(sc_envsource_install_pixi(&c.tools, c.scroll, c.work, c.venv, &t, lock, &err),
                   want, &err);
    unsetenv("SCROLLCASE_STANDIN_CONDA_PACK_EXTRA");
    if (want != SC_OK) {
        CU_ASSERT_EQUAL(kind_of(c.work, "payload/outside"), '-');
        CU_ASSERT_EQUAL(kind_of(c.work, "payload/venv"), '-');
        CU_ASSERT_EQUAL(kind_of(c.work, "pixi-env.tar.gz"), '-');
    } else {
        CU_ASSERT_EQUAL(kind_of(c.venv, "lib/libstandin-copy.so"), 'f');
        char *a = text_of(c.venv, "lib/libstandin-copy.so"), *b = text_of(c.venv, "lib/libstandin.so.1");
        CU_ASSERT_STRING_EQUAL(a ? a : "a", b ? b : "b");
        free(a);
        free(b);
    }
    pixi_case_free(&c);
}

static void test_packed_member_escaping_the_environment_is_refused(void)
{
    pack_with_extra("escape", SC_E_RELOCATION_FAILED);
}

static void test_packed_member_with_an_absolute_name_is_refused(void)
{
    pack_with_extra("absolute", SC_E_RELOCATION_FAILED);
}

static void test_packed_special_member_is_special_entry(void)
{
    pack_with_extra("fifo", SC_E_SPECIAL_ENTRY);
}

static void test_packed_hard_link_becomes_a_copy(void)
{
    pack_with_extra("hardlink", SC_OK);
}

static void test_pixi_path_is_deterministic(void)
{
    pixi_case a, b;
    pixi_case_new(&a);
    pixi_case_new(&b);
    sc_target t = linux_cpu();
    char la[65], lb[65], da[65], db[65];
    sc_error err = {0};
    mode_t old = umask(022);
    SC_EXPECT_CODE(sc_envsource_install_pixi(&a.tools, a.scroll, a.work, a.venv, &t, la, &err),
                   SC_OK, &err);
    umask(077);
    SC_EXPECT_CODE(sc_envsource_install_pixi(&b.tools, b.scroll, b.work, b.venv, &t, lb, &err),
                   SC_OK, &err);
    umask(old);
    sc_payload_list list = {0};
    SC_EXPECT_CODE(sc_payload_collect(a.venv, SC_PAYLOAD_HASH, &list, &err), SC_OK, &err);
    SC_EXPECT_CODE(sc_payload_digest(&list, da, &err), SC_OK, &err);
    sc_payload_list_free(&list);
    SC_EXPECT_CODE(sc_payload_collect(b.venv, SC_PAYLOAD_HASH, &list, &err), SC_OK, &err);
    SC_EXPECT_CODE(sc_payload_digest(&list, db, &err), SC_OK, &err);
    sc_payload_list_free(&list);
    CU_ASSERT_STRING_EQUAL(da, db);
    CU_ASSERT_EQUAL(mode_of(b.venv, "lib"), 0755);
    pixi_case_free(&a);
    pixi_case_free(&b);
}

void register_envsource_tests(void)
{
    CU_pSuite s = CU_add_suite("envsource", NULL, NULL);
    if (s == NULL)
        CU_FAIL_FATAL("CU_add_suite failed");
    SC_ADD_TEST(s, test_prefix_copy_keeps_file_modes_whatever_the_umask);
    SC_ADD_TEST(s, test_prefix_copy_is_the_same_with_any_job_count);
    SC_ADD_TEST(s, test_prefix_copy_keeps_links_that_pass_the_link_rule);
    SC_ADD_TEST(s, test_prefix_copy_materialises_links_that_fail_the_rule);
    SC_ADD_TEST(s, test_prefix_copy_drops_dangling_and_escaping_links);
    SC_ADD_TEST(s, test_prefix_copy_refuses_special_entries_and_leaves_nothing);
    SC_ADD_TEST(s, test_prefix_copy_skips_pycache_pyc_and_ds_store);
    SC_ADD_TEST(s, test_prefix_without_entry_point_is_relocation_failed_before_writing);
    SC_ADD_TEST(s, test_prefix_copy_repairs_launchers_that_name_the_prefix);
    SC_ADD_TEST(s, test_prefix_copy_links_files_and_never_writes_through_them);
    SC_ADD_TEST(s, test_prefix_copy_refuses_an_existing_destination);
    SC_ADD_TEST(s, test_prefix_digest_is_the_payload_digest_whatever_the_directory_order);
    SC_ADD_TEST(s, test_windows_targets_carry_no_links);
    SC_ADD_TEST(s, test_a_directory_link_to_its_own_ancestor_is_relocation_failed);
    SC_ADD_TEST(s, test_directory_link_cycles_are_relocation_failed_with_relative_paths);
    SC_ADD_TEST(s, test_discovery_precedence_explicit_env_toolchain_path);
    SC_ADD_TEST(s, test_pixi_version_must_equal_the_pin_exactly);
    SC_ADD_TEST(s, test_absent_or_broken_tools_are_tool_missing);
    SC_ADD_TEST(s, test_the_stand_ins_are_discovered_as_pixi_and_conda_pack);
    SC_ADD_TEST(s, test_real_pixi_when_scrollcase_pixi_names_one);
    SC_ADD_TEST(s, test_pixi_path_installs_packs_and_unpacks_the_environment);
    SC_ADD_TEST(s, test_pixi_path_deletes_the_service_files);
    SC_ADD_TEST(s, test_pixi_path_keeps_name_version_build_license_of_conda_meta);
    SC_ADD_TEST(s, test_unreadable_conda_meta_record_is_relocation_failed);
    SC_ADD_TEST(s, test_pixi_path_settles_links);
    SC_ADD_TEST(s, test_pixi_path_repairs_launchers_into_sh_trampolines);
    SC_ADD_TEST(s, test_pixi_path_without_a_lock_is_missing_lock_before_any_process);
    SC_ADD_TEST(s, test_pixi_install_failure_is_tool_missing_and_leaves_nothing);
    SC_ADD_TEST(s, test_packed_member_escaping_the_environment_is_refused);
    SC_ADD_TEST(s, test_packed_member_with_an_absolute_name_is_refused);
    SC_ADD_TEST(s, test_packed_special_member_is_special_entry);
    SC_ADD_TEST(s, test_packed_hard_link_becomes_a_copy);
    SC_ADD_TEST(s, test_pixi_path_is_deterministic);
}
