/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_conda_package.c — the conda package reader and the linker
 * (conda_package.h, conda_link.h; format-v3 20.2).
 *
 * Packages come from fixtures/condapkg.py, run through /usr/bin/python3 into
 * a temporary directory: real ones bundled by Debian's `cph create`, odd and
 * hostile ones written with zipfile/tarfile.  What cph extracts (`cph x`) is
 * the oracle for what the reader extracts.  Each hostile package is refused
 * with its code and leaves no destination behind.
 */
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "scrollcase/conda_link.h"
#include "scrollcase/conda_package.h"
#include "scrollcase/file.h"

#define GEN SC_SOURCE_DIR "/fixtures/condapkg.py"

/* Run argv (NULL-terminated) with stdout to /dev/null unless keep; exit status or -1. */
static int run(char *const argv[], const char *const env[])
{
    pid_t pid = fork();
    if (pid == 0) {
        for (size_t i = 0; env != NULL && env[i] != NULL; i += 2)
            setenv(env[i], env[i + 1], 1);
        execv(argv[0], argv);
        _exit(127);
    }
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
        return -1;
    return WEXITSTATUS(status);
}

/* dir/name made by the generator (caller frees), or NULL. */
static char *make(const char *dir, const char *name)
{
    char *argv[] = {"/usr/bin/python3", GEN, (char *)dir, (char *)name, NULL};
    if (run(argv, NULL) != 0) {
        fprintf(stderr, "\n  condapkg.py failed to make %s\n", name);
        return NULL;
    }
    return sc_path_join(dir, name);
}

typedef struct fx {
    char *dir;  /* temporary directory */
    char *pkg;  /* the package file */
    char *dest; /* where it is extracted (does not exist before) */
} fx;

static fx fx_new(const char *name)
{
    fx f;
    f.dir = sc_test_tmpdir();
    f.pkg = make(f.dir, name);
    f.dest = sc_path_join(f.dir, "x");
    return f;
}

static void fx_free(fx *f)
{
    sc_test_rmtree(f->dir);
    free(f->dir);
    free(f->pkg);
    free(f->dest);
}

static sc_code extract(fx *f, const sc_conda_extract_options *o, sc_conda_package **pkg,
                       sc_error *err)
{
    CU_ASSERT_PTR_NOT_NULL_FATAL(f->pkg);
    return sc_conda_extract(f->pkg, NULL, f->dest, o, pkg, err);
}

static int kind_at(const char *dir, const char *rel)
{
    char *p = sc_path_join(dir, rel);
    struct stat st;
    int k = 0;
    if (p != NULL && lstat(p, &st) == 0)
        k = S_ISLNK(st.st_mode) ? 'l' : S_ISDIR(st.st_mode) ? 'd' : S_ISREG(st.st_mode) ? 'f' : '?';
    free(p);
    return k;
}

static ino_t inode_at(const char *dir, const char *rel)
{
    char *p = sc_path_join(dir, rel);
    struct stat st;
    ino_t i = 0;
    if (p != NULL && lstat(p, &st) == 0)
        i = st.st_ino;
    free(p);
    return i;
}

static unsigned mode_at(const char *dir, const char *rel)
{
    char *p = sc_path_join(dir, rel);
    struct stat st;
    unsigned m = 0;
    if (p != NULL && lstat(p, &st) == 0)
        m = st.st_mode & 07777;
    free(p);
    return m;
}

static const sc_conda_path *path_of(const sc_conda_package *p, const char *rel)
{
    for (size_t i = 0; p != NULL && i < p->n_paths; i++)
        if (strcmp(p->paths[i].path, rel) == 0)
            return &p->paths[i];
    return NULL;
}

/* ---- reading what cph makes --------------------------------------------------- */

static void expect_same_as_cph(const char *name)
{
    fx f = fx_new(name);
    sc_conda_package *pkg = NULL;
    sc_error err;
    SC_EXPECT_CODE(extract(&f, NULL, &pkg, &err), SC_OK, &err);
    char *argv[] = {"/usr/bin/python3", GEN, "--compare-cph", f.pkg, f.dest, NULL};
    CU_ASSERT_EQUAL(run(argv, NULL), 0);
    sc_conda_package_free(pkg);
    fx_free(&f);
}

static void test_cph_conda_extracts_as_cph_does(void)
{
    expect_same_as_cph("good-1.0-0.conda");
}

static void test_cph_tar_bz2_extracts_as_cph_does(void)
{
    expect_same_as_cph("good-1.0-0.tar.bz2");
}

static void test_cph_noarch_and_legacy_extract_as_cph_does(void)
{
    expect_same_as_cph("npkg-1.0-0.conda");
    expect_same_as_cph("legacy-1.0-0.tar.bz2");
}

static void test_index_and_paths_json_are_read(void)
{
    fx f = fx_new("good-1.0-0.conda");
    sc_conda_package *p = NULL;
    sc_error err;
    sc_conda_extract_options o = {"linux-64", 0, 0, 0};
    SC_EXPECT_CODE(extract(&f, &o, &p, &err), SC_OK, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    CU_ASSERT_STRING_EQUAL(p->name, "good");
    CU_ASSERT_STRING_EQUAL(p->version, "1.0");
    CU_ASSERT_STRING_EQUAL(p->build, "0");
    CU_ASSERT_STRING_EQUAL(p->subdir, "linux-64");
    CU_ASSERT_STRING_EQUAL(p->license ? p->license : "", "MIT");
    CU_ASSERT_PTR_NULL(p->noarch);
    CU_ASSERT_EQUAL(p->n_paths, 8);
    CU_ASSERT_EQUAL(p->legacy_paths, 0);
    const sc_conda_path *so = path_of(p, "lib/libgood.so");
    const sc_conda_path *so1 = path_of(p, "lib/libgood.so.1");
    const sc_conda_path *tool = path_of(p, "bin/tool");
    const sc_conda_path *nl = path_of(p, "share/good/nolink.txt");
    CU_ASSERT_FATAL(so && so1 && tool && nl);
    CU_ASSERT_EQUAL(so->type, SC_CONDA_PATH_SOFTLINK);
    CU_ASSERT_EQUAL(so1->type, SC_CONDA_PATH_HARDLINK);
    CU_ASSERT_EQUAL(so1->file_mode, SC_CONDA_FILE_MODE_BINARY);
    CU_ASSERT_EQUAL(tool->file_mode, SC_CONDA_FILE_MODE_TEXT);
    CU_ASSERT_STRING_EQUAL(tool->placeholder, "/opt/anaconda1anaconda2anaconda3");
    CU_ASSERT(nl->no_link);
    CU_ASSERT(tool->has_sha256 && tool->has_size);
    for (size_t i = 1; i < p->n_paths; i++)
        CU_ASSERT(strcmp(p->paths[i - 1].path, p->paths[i].path) < 0);
    /* placeholders are never substituted: the bytes are the package's */
    char *conf = sc_test_read(f.dest, "etc/good.conf");
    CU_ASSERT_STRING_EQUAL(conf ? conf : "", "prefix=/opt/anaconda1anaconda2anaconda3\n");
    free(conf);
    CU_ASSERT_EQUAL(mode_at(f.dest, "bin/tool"), 0755);
    CU_ASSERT_EQUAL(mode_at(f.dest, "etc/good.conf"), 0644);
    sc_conda_package_free(p);
    fx_free(&f);
}

static void expect_extracts(const char *name)
{
    fx f = fx_new(name);
    sc_conda_package *p = NULL;
    sc_error err;
    SC_EXPECT_CODE(extract(&f, NULL, &p, &err), SC_OK, &err);
    CU_ASSERT_EQUAL(p ? p->n_paths : 0, 8);
    CU_ASSERT_EQUAL(kind_at(f.dest, "lib/libgood.so"), 'l');
    char *r = sc_test_read(f.dest, "share/good/README");
    CU_ASSERT_STRING_EQUAL(r ? r : "", "good package\n");
    free(r);
    sc_conda_package_free(p);
    fx_free(&f);
}

static void test_pkg_member_before_info_member(void)
{
    expect_extracts("shape-pkg-first.conda");
}

static void test_zip64_extra_fields_and_data_descriptors(void)
{
    expect_extracts("shape-zip64-descriptors.conda");
}

static void test_dot_slash_member_names(void)
{
    expect_extracts("shape-dot-names.conda");
    expect_extracts("shape-dot-names.tar.bz2");
}

static void test_tar_bz2_with_info_last(void)
{
    expect_extracts("shape-info-last.tar.bz2");
}

static void test_legacy_files_has_prefix_no_link(void)
{
    fx f = fx_new("legacy-1.0-0.tar.bz2");
    sc_conda_package *p = NULL;
    sc_error err;
    SC_EXPECT_CODE(extract(&f, NULL, &p, &err), SC_OK, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    CU_ASSERT_EQUAL(p->legacy_paths, 1);
    CU_ASSERT_EQUAL(p->n_paths, 4);
    const sc_conda_path *lt = path_of(p, "bin/ltool"), *so = path_of(p, "lib/libl.so"),
                        *so2 = path_of(p, "lib/libl.so.2"), *l = path_of(p, "share/l.txt");
    CU_ASSERT_FATAL(lt && so && so2 && l);
    CU_ASSERT_EQUAL(lt->file_mode, SC_CONDA_FILE_MODE_TEXT);
    CU_ASSERT_STRING_EQUAL(lt->placeholder, "/opt/anaconda1anaconda2anaconda3");
    CU_ASSERT_EQUAL(so2->file_mode, SC_CONDA_FILE_MODE_BINARY);
    CU_ASSERT_EQUAL(so->type, SC_CONDA_PATH_SOFTLINK); /* kind taken from the archive */
    CU_ASSERT(l->no_link);
    CU_ASSERT_STRING_EQUAL(p->license ? p->license : "", "BSD");
    sc_conda_package_free(p);
    fx_free(&f);
}

static void test_tar_hard_link_to_earlier_member_is_a_copy(void)
{
    fx f = fx_new("shape-hardlink.conda");
    sc_conda_package *p = NULL;
    sc_error err;
    SC_EXPECT_CODE(extract(&f, NULL, &p, &err), SC_OK, &err);
    char *b = sc_test_read(f.dest, "share/h/b.txt");
    CU_ASSERT_STRING_EQUAL(b ? b : "", "shared\n");
    free(b);
    CU_ASSERT_NOT_EQUAL(inode_at(f.dest, "share/h/a.txt"), inode_at(f.dest, "share/h/b.txt"));
    /* a member paths.json does not list is extracted, never listed */
    CU_ASSERT_EQUAL(kind_at(f.dest, "share/unlisted"), 'f');
    CU_ASSERT_PTR_NULL(path_of(p, "share/unlisted"));
    sc_conda_package_free(p);
    fx_free(&f);
}

/* The file count is the point, not the disk: where /dev/shm is writable the
 * 100,000 files are made there (a memory file system), else under TMPDIR. */
static char *big_tmpdir(void)
{
    char tmpl[] = "/dev/shm/sc-conda-XXXXXX";
    if (access("/dev/shm", W_OK) == 0 && mkdtemp(tmpl) != NULL)
        return strdup(tmpl);
    return sc_test_tmpdir();
}

static void test_hundred_thousand_files(void)
{
    if (getenv("SC_SKIP_LARGE_TESTS") != NULL) {
        fprintf(stderr, "\n  skipped: SC_SKIP_LARGE_TESTS is set (100,000 files)\n");
        return;
    }
    char *dir = big_tmpdir();
    CU_ASSERT_PTR_NOT_NULL_FATAL(dir);
    char *argv[] = {"/usr/bin/python3", GEN, "--big", "100000", dir, NULL};
    CU_ASSERT_EQUAL_FATAL(run(argv, NULL), 0);
    char *pkgf = sc_path_join(dir, "big-100000.conda");
    char *dest = sc_path_join(dir, "x");
    char *prefix = sc_path_join(dir, "venv");
    sc_conda_package *p = NULL;
    sc_error err;
    SC_EXPECT_CODE(sc_conda_extract(pkgf, NULL, dest, NULL, &p, &err), SC_OK, &err);
    CU_ASSERT_EQUAL(p ? p->n_paths : 0, 100000);
    sc_conda_link_package lp = {p, dest, NULL};
    sc_conda_link_options o = {prefix, NULL, NULL, NULL, 0, NULL, NULL, 0, 0};
    SC_EXPECT_CODE(sc_conda_link(&lp, 1, &o, NULL, &err), SC_OK, &err);
    char *last = sc_test_read(prefix, "share/big/d099/f099999.txt");
    CU_ASSERT_STRING_EQUAL(last ? last : "", "99999\n");
    free(last);
    sc_conda_package_free(p);
    sc_test_rmtree(dir);
    free(dir);
    free(pkgf);
    free(dest);
    free(prefix);
}

typedef struct job {
    const char *pkg;
    char dest[512];
    sc_code rc;
    size_t n_paths;
} job;

static void *extract_job(void *arg)
{
    job *j = arg;
    sc_conda_package *p = NULL;
    sc_error err;
    j->rc = sc_conda_extract(j->pkg, NULL, j->dest, NULL, &p, &err);
    j->n_paths = p ? p->n_paths : 0;
    sc_conda_package_free(p);
    return NULL;
}

static void test_extractions_run_on_many_threads_at_once(void)
{
    fx f = fx_new("good-1.0-0.tar.bz2");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f.pkg);
    job jobs[6];
    pthread_t th[6];
    for (int i = 0; i < 6; i++) {
        jobs[i].pkg = f.pkg;
        snprintf(jobs[i].dest, sizeof jobs[i].dest, "%s/t%d", f.dir, i);
        CU_ASSERT_EQUAL_FATAL(pthread_create(&th[i], NULL, extract_job, &jobs[i]), 0);
    }
    for (int i = 0; i < 6; i++) {
        pthread_join(th[i], NULL);
        CU_ASSERT_EQUAL(jobs[i].rc, SC_OK);
        CU_ASSERT_EQUAL(jobs[i].n_paths, 8);
        char *r = sc_test_read(jobs[i].dest, "lib/libgood.so.1");
        char *r0 = sc_test_read(jobs[0].dest, "lib/libgood.so.1");
        CU_ASSERT(r != NULL && r0 != NULL && memcmp(r, r0, 7) == 0);
        free(r);
        free(r0);
    }
    fx_free(&f);
}

/* ---- hostile packages ----------------------------------------------------------- */

static void expect_refused_with(const char *name, const sc_conda_extract_options *o,
                                sc_code want)
{
    fx f = fx_new(name);
    sc_conda_package *p = (sc_conda_package *)1;
    sc_error err;
    SC_EXPECT_CODE(extract(&f, o, &p, &err), want, &err);
    CU_ASSERT_PTR_NULL(p);
    CU_ASSERT_EQUAL(kind_at(f.dir, "x"), 0); /* nothing left behind */
    if (err.message[0] == '\0')
        CU_FAIL("no message");
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "`scrollcase lock REF`")); /* the remedy */
    fx_free(&f);
}

#define HOSTILE(fn, file, code)                                                         \
    static void fn(void) { expect_refused_with(file, NULL, code); }

HOSTILE(test_member_with_dotdot_is_unsafe_path, "hostile-dotdot.conda", SC_E_UNSAFE_PATH)
HOSTILE(test_absolute_member_is_unsafe_path, "hostile-absolute.conda", SC_E_UNSAFE_PATH)
HOSTILE(test_soft_link_escaping_the_prefix, "hostile-link-escape.conda", SC_E_LINK_ENTRY)
HOSTILE(test_soft_link_to_absolute_path, "hostile-link-absolute.conda", SC_E_LINK_ENTRY)
HOSTILE(test_soft_link_escaping_through_another_link, "hostile-link-chain-escape.conda",
        SC_E_LINK_ENTRY)
HOSTILE(test_tar_hard_link_to_missing_member, "hostile-hardlink-missing.conda", SC_E_LINK_ENTRY)
HOSTILE(test_tar_hard_link_to_later_member, "hostile-hardlink-later.conda", SC_E_LINK_ENTRY)
HOSTILE(test_paths_json_lists_a_missing_file, "hostile-listed-missing.conda",
        SC_E_INVALID_PACKAGE)
HOSTILE(test_listed_softlink_that_is_a_regular_file, "hostile-softlink-is-file.conda",
        SC_E_INVALID_PACKAGE)
HOSTILE(test_file_sha256_disagrees_with_paths_json, "hostile-sha-mismatch.conda",
        SC_E_INVALID_PACKAGE)
HOSTILE(test_file_size_disagrees_with_paths_json, "hostile-size-mismatch.conda",
        SC_E_INVALID_PACKAGE)
HOSTILE(test_file_larger_than_paths_json_says, "hostile-size-exceeded.conda",
        SC_E_EXTRACTION_LIMIT)
HOSTILE(test_binary_placeholder_longer_than_its_slot, "hostile-placeholder-longer-than-slot.conda",
        SC_E_INVALID_PACKAGE)
HOSTILE(test_binary_placeholder_absent_from_the_file, "hostile-placeholder-not-in-binary.conda",
        SC_E_INVALID_PACKAGE)
HOSTILE(test_placeholder_longer_than_255_bytes, "hostile-placeholder-too-long.conda",
        SC_E_INVALID_PACKAGE)
HOSTILE(test_file_mode_without_placeholder, "hostile-file-mode-without-placeholder.conda",
        SC_E_INVALID_PACKAGE)
HOSTILE(test_file_mode_neither_text_nor_binary, "hostile-file-mode-unknown.conda",
        SC_E_INVALID_PACKAGE)
HOSTILE(test_special_member_is_refused, "hostile-fifo.conda", SC_E_SPECIAL_ENTRY)
HOSTILE(test_member_written_through_a_link, "hostile-through-link.conda", SC_E_LINK_ENTRY)
HOSTILE(test_member_twice_in_the_archive, "hostile-duplicate-member.conda", SC_E_ENTRY_COLLISION)
HOSTILE(test_missing_index_json, "hostile-no-index.conda", SC_E_INVALID_PACKAGE)
HOSTILE(test_paths_json_not_json, "hostile-paths-not-json.conda", SC_E_INVALID_PACKAGE)
HOSTILE(test_zstd_bomb_stops_at_declared_size, "hostile-zstd-bomb.conda", SC_E_EXTRACTION_LIMIT)
HOSTILE(test_truncated_conda, "hostile-truncated.conda", SC_E_INVALID_ARCHIVE)
HOSTILE(test_truncated_tar_bz2, "hostile-truncated.tar.bz2", SC_E_INVALID_ARCHIVE)
HOSTILE(test_conda_without_pkg_member, "hostile-no-pkg.conda", SC_E_INVALID_ARCHIVE)
/* info/ is read only from a real directory: a member `info` that is a soft
 * link (here to good metadata elsewhere in the package) is refused for it. */
static void test_info_that_is_a_soft_link_is_refused(void)
{
    fx f = fx_new("hostile-info-link.tar.bz2");
    sc_conda_package *p = NULL;
    sc_error err;
    SC_EXPECT_CODE(extract(&f, NULL, &p, &err), SC_E_INVALID_PACKAGE, &err);
    CU_ASSERT_PTR_NULL(p);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "info/ is not a directory in the package"));
    CU_ASSERT_EQUAL(kind_at(f.dir, "x"), 0);
    fx_free(&f);
}

static void test_bzip2_bomb_stops_at_the_budget(void)
{
    sc_conda_extract_options o = {NULL, 0, 8u << 20, 0};
    expect_refused_with("hostile-bz2-bomb.tar.bz2", &o, SC_E_EXTRACTION_LIMIT);
}

static void test_bzip2_bomb_stops_at_the_default_budget(void)
{
    /* 32 MiB of zeros in a few hundred bytes: past 16 MiB + 1024 x its size */
    expect_refused_with("hostile-bz2-bomb.tar.bz2", NULL, SC_E_EXTRACTION_LIMIT);
}

static void test_package_for_another_subdir(void)
{
    sc_conda_extract_options o = {"linux-64", 0, 0, 0};
    expect_refused_with("hostile-wrong-subdir.conda", &o, SC_E_PACKAGE_SUBDIR);
}

static void test_noarch_package_passes_any_subdir(void)
{
    fx f = fx_new("npkg-1.0-0.conda");
    sc_conda_package *p = NULL;
    sc_error err;
    sc_conda_extract_options o = {"osx-arm64", 1, 0, 0};
    SC_EXPECT_CODE(extract(&f, &o, &p, &err), SC_OK, &err);
    CU_ASSERT_STRING_EQUAL(p && p->noarch ? p->noarch : "", "python");
    CU_ASSERT_EQUAL(p ? p->n_entry_points : 0, 1);
    if (p != NULL && p->n_entry_points == 1) {
        CU_ASSERT_STRING_EQUAL(p->entry_points[0].command, "ntool");
        CU_ASSERT_STRING_EQUAL(p->entry_points[0].module, "npkg.cli");
        CU_ASSERT_STRING_EQUAL(p->entry_points[0].function, "main");
    }
    sc_conda_package_free(p);
    fx_free(&f);
}

static void test_case_only_collision_on_case_folding_target(void)
{
    sc_conda_extract_options fold = {NULL, 1, 0, 0};
    expect_refused_with("hostile-case-collision.conda", &fold, SC_E_ENTRY_COLLISION);
    /* the same package is fine where case matters */
    fx f = fx_new("hostile-case-collision.conda");
    sc_conda_package *p = NULL;
    sc_error err;
    SC_EXPECT_CODE(extract(&f, NULL, &p, &err), SC_OK, &err);
    sc_conda_package_free(p);
    fx_free(&f);
}

static void test_existing_destination_is_refused(void)
{
    fx f = fx_new("clob-a-1.0-0.conda");
    CU_ASSERT_EQUAL_FATAL(mkdir(f.dest, 0755), 0);
    sc_conda_package *p = NULL;
    sc_error err;
    SC_EXPECT_CODE(extract(&f, NULL, &p, &err), SC_E_EXISTING_DESTINATION, &err);
    CU_ASSERT_EQUAL(kind_at(f.dir, "x"), 'd'); /* not ours: left as it was */
    fx_free(&f);
}

/* ---- metadata parsers on bytes ------------------------------------------------------- */

static sc_code parse(const char *index, const char *paths, const char *link,
                     sc_conda_package *p, sc_error *err)
{
    memset(p, 0, sizeof *p);
    sc_conda_info_bytes in;
    memset(&in, 0, sizeof in);
    in.index_json = index;
    in.index_json_len = index ? strlen(index) : 0;
    in.paths_json = paths;
    in.paths_json_len = paths ? strlen(paths) : 0;
    in.link_json = link;
    in.link_json_len = link ? strlen(link) : 0;
    return sc_conda_parse_info(&in, "t", p, err);
}

static void free_parsed(sc_conda_package *p)
{
    sc_conda_package *h = malloc(sizeof *h);
    CU_ASSERT_PTR_NOT_NULL_FATAL(h);
    *h = *p;
    sc_conda_package_free(h);
}

#define IDX "{\"name\":\"a\",\"version\":\"1\",\"build\":\"0\"}"
#define PATHS(x) "{\"paths\":[" x "],\"paths_version\":1}"

static void test_index_json_needs_name_version_build(void)
{
    sc_conda_package p;
    sc_error err;
    SC_EXPECT_CODE(parse("{\"name\":\"a\",\"version\":\"1\"}", PATHS(""), NULL, &p, &err),
                   SC_E_INVALID_PACKAGE, &err);
    free_parsed(&p);
    SC_EXPECT_CODE(parse("{\"name\":\"a/b\",\"version\":\"1\",\"build\":\"0\"}", PATHS(""),
                         NULL, &p, &err),
                   SC_E_INVALID_PACKAGE, &err);
    free_parsed(&p);
    SC_EXPECT_CODE(parse(IDX, PATHS(""), NULL, &p, &err), SC_OK, &err);
    free_parsed(&p);
}

static void test_paths_json_rules(void)
{
    sc_conda_package p;
    sc_error err;
    SC_EXPECT_CODE(parse(IDX, PATHS("{\"_path\":\"a\",\"path_type\":\"fifo\"}"), NULL, &p, &err),
                   SC_E_INVALID_PACKAGE, &err);
    free_parsed(&p);
    SC_EXPECT_CODE(parse(IDX, PATHS("{\"_path\":\"a\"},{\"_path\":\"a\"}"), NULL, &p, &err),
                   SC_E_INVALID_PACKAGE, &err);
    free_parsed(&p);
    SC_EXPECT_CODE(parse(IDX, PATHS("{\"_path\":\"../a\"}"), NULL, &p, &err), SC_E_UNSAFE_PATH,
                   &err);
    free_parsed(&p);
    SC_EXPECT_CODE(parse(IDX, PATHS("{\"_path\":\"info/x\"}"), NULL, &p, &err),
                   SC_E_INVALID_PACKAGE, &err);
    free_parsed(&p);
    /* old conda-build put the target's placeholder on soft links: ignored */
    SC_EXPECT_CODE(parse(IDX, PATHS("{\"_path\":\"a\",\"path_type\":\"softlink\","
                                    "\"prefix_placeholder\":\"/p\",\"file_mode\":\"binary\"}"),
                         NULL, &p, &err),
                   SC_OK, &err);
    CU_ASSERT_PTR_NULL(p.n_paths ? p.paths[0].placeholder : "x");
    CU_ASSERT_EQUAL(p.n_paths ? p.paths[0].file_mode : 9, SC_CONDA_FILE_MODE_NONE);
    free_parsed(&p);
    SC_EXPECT_CODE(parse(IDX, PATHS("{\"_path\":\"a\",\"sha256\":\"ABC\"}"), NULL, &p, &err),
                   SC_E_INVALID_PACKAGE, &err);
    free_parsed(&p);
    /* a placeholder without a file_mode is text (conda's default) */
    SC_EXPECT_CODE(parse(IDX, PATHS("{\"_path\":\"a\",\"prefix_placeholder\":\"/p\"}"), NULL, &p,
                         &err),
                   SC_OK, &err);
    CU_ASSERT_EQUAL(p.n_paths ? p.paths[0].file_mode : 0, SC_CONDA_FILE_MODE_TEXT);
    free_parsed(&p);
}

static void test_link_json_entry_points(void)
{
    sc_conda_package p;
    sc_error err;
    const char *ok = "{\"noarch\":{\"type\":\"python\",\"entry_points\":"
                     "[\"a-b = pkg.mod:obj.main\",\"c=x:y\"]}}";
    SC_EXPECT_CODE(parse(IDX, PATHS(""), ok, &p, &err), SC_OK, &err);
    CU_ASSERT_EQUAL_FATAL(p.n_entry_points, 2);
    CU_ASSERT_STRING_EQUAL(p.entry_points[0].command, "a-b");
    CU_ASSERT_STRING_EQUAL(p.entry_points[0].module, "pkg.mod");
    CU_ASSERT_STRING_EQUAL(p.entry_points[0].function, "obj.main");
    CU_ASSERT_STRING_EQUAL(p.entry_points[1].command, "c");
    free_parsed(&p);
    const char *bad[] = {"{\"noarch\":{\"type\":\"python\",\"entry_points\":[\"../x = a:b\"]}}",
                         "{\"noarch\":{\"type\":\"python\",\"entry_points\":[\"x = a\"]}}",
                         "{\"noarch\":{\"type\":\"python\",\"entry_points\":[\"x = a:b c\"]}}",
                         "{\"noarch\":{\"type\":\"python\",\"entry_points\":[\"x=a:b\",\"x=a:c\"]}}",
                         "{\"noarch\":{\"type\":\"python\",\"entry_points\":\"x=a:b\"}}"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        SC_EXPECT_CODE(parse(IDX, PATHS(""), bad[i], &p, &err), SC_E_INVALID_PACKAGE, &err);
        free_parsed(&p);
    }
}

static void test_link_scripts_are_flagged(void)
{
    sc_conda_package p;
    sc_error err;
    SC_EXPECT_CODE(parse(IDX, PATHS("{\"_path\":\"bin/.a-post-link.sh\"},"
                                    "{\"_path\":\"bin/.a-pre-unlink.sh\"},"
                                    "{\"_path\":\"bin/.b-pre-link.sh\"}"),
                         NULL, &p, &err),
                   SC_OK, &err);
    CU_ASSERT_EQUAL(p.link_scripts, SC_CONDA_HAS_POST_LINK | SC_CONDA_HAS_PRE_UNLINK);
    free_parsed(&p);
}

static void test_spec_name(void)
{
    char b[64];
    sc_conda_spec_name("python >=3.8,<3.12", b, sizeof b);
    CU_ASSERT_STRING_EQUAL(b, "python");
    sc_conda_spec_name("libzlib>=1.2.13", b, sizeof b);
    CU_ASSERT_STRING_EQUAL(b, "libzlib");
    sc_conda_spec_name("conda-forge::numpy 1.26.* py311*", b, sizeof b);
    CU_ASSERT_STRING_EQUAL(b, "numpy");
    sc_conda_spec_name("pkg[version='>=1']", b, sizeof b);
    CU_ASSERT_STRING_EQUAL(b, "pkg");
}

/* ---- the linker --------------------------------------------------------------------------- */

typedef struct linked {
    char *dir;
    size_t n;
    char *file[8];
    char *dest[8];
    sc_conda_package *pkg[8];
    sc_conda_link_package lp[8];
    char *prefix;
} linked;

static linked linked_new(const char *const *names, size_t n)
{
    linked l;
    memset(&l, 0, sizeof l);
    l.dir = sc_test_tmpdir();
    l.n = n;
    char *argv[16] = {"/usr/bin/python3", GEN, l.dir};
    for (size_t i = 0; i < n; i++)
        argv[3 + i] = (char *)names[i];
    argv[3 + n] = NULL;
    CU_ASSERT_EQUAL_FATAL(run(argv, NULL), 0);
    for (size_t i = 0; i < n; i++) {
        char d[32];
        snprintf(d, sizeof d, "x%zu", i);
        l.file[i] = sc_path_join(l.dir, names[i]);
        l.dest[i] = sc_path_join(l.dir, d);
        sc_error err;
        SC_EXPECT_CODE(sc_conda_extract(l.file[i], names[i], l.dest[i], NULL, &l.pkg[i], &err),
                       SC_OK, &err);
        l.lp[i].pkg = l.pkg[i];
        l.lp[i].extracted_dir = l.dest[i];
    }
    l.prefix = sc_path_join(l.dir, "venv");
    return l;
}

static void linked_free(linked *l)
{
    for (size_t i = 0; i < l->n; i++) {
        free(l->file[i]);
        free(l->dest[i]);
        sc_conda_package_free(l->pkg[i]);
    }
    sc_test_rmtree(l->dir);
    free(l->dir);
    free(l->prefix);
}

typedef struct clobs {
    size_t n;
    char text[1024];
} clobs;

static void on_clobber(void *ctx, const sc_conda_clobber *c)
{
    clobs *k = ctx;
    size_t used = strlen(k->text);
    snprintf(k->text + used, sizeof k->text - used, "%s:%s>%s;", c->path, c->winner->name,
             c->loser->name);
    k->n++;
}

static const char TRAMPOLINE[] =
    "#!/bin/sh\n"
    "'''exec' \"$(CDPATH= cd -- \"$(dirname -- \"$0\")\" && pwd)/python\" \"$0\" \"$@\"\n"
    "' '''\n";

static void test_link_files_links_placeholders_and_launchers(void)
{
    const char *names[] = {"good-1.0-0.conda"};
    linked l = linked_new(names, 1);
    sc_conda_link_options o = {l.prefix, NULL, NULL, NULL, 0, NULL, NULL, 0, 0};
    sc_error err;
    SC_EXPECT_CODE(sc_conda_link(l.lp, 1, &o, NULL, &err), SC_OK, &err);
    /* a text-placeholder python launcher in bin/ becomes the relocatable trampoline */
    char *tool = sc_test_read(l.prefix, "bin/tool");
    char want[512];
    snprintf(want, sizeof want, "%simport sys\nprint('tool', sys.argv[1:])\n", TRAMPOLINE);
    CU_ASSERT_STRING_EQUAL(tool ? tool : "", want);
    free(tool);
    CU_ASSERT_EQUAL(mode_at(l.prefix, "bin/tool"), 0755);
    /* a launcher of another interpreter and every other placeholder stay as they are */
    char *perl = sc_test_read(l.prefix, "bin/perl-tool");
    CU_ASSERT_STRING_EQUAL(perl ? perl : "", "#!/opt/anaconda1anaconda2anaconda3/bin/perl\nprint 1;\n");
    free(perl);
    char *conf = sc_test_read(l.prefix, "etc/good.conf");
    CU_ASSERT_STRING_EQUAL(conf ? conf : "", "prefix=/opt/anaconda1anaconda2anaconda3\n");
    free(conf);
    CU_ASSERT_EQUAL(kind_at(l.prefix, "lib/libgood.so"), 'l');
    /* files are hard links of the extracted ones; no_link files are copies */
    CU_ASSERT_EQUAL(inode_at(l.prefix, "share/good/README"),
                    inode_at(l.dest[0], "share/good/README"));
    CU_ASSERT_NOT_EQUAL(inode_at(l.prefix, "share/good/nolink.txt"),
                        inode_at(l.dest[0], "share/good/nolink.txt"));
    char *nl = sc_test_read(l.prefix, "share/good/nolink.txt");
    CU_ASSERT_STRING_EQUAL(nl ? nl : "", "copied, never linked\n");
    free(nl);
    char *rec = sc_test_read(l.prefix, "conda-meta/good-1.0-0.json");
    CU_ASSERT_STRING_EQUAL(rec ? rec : "", "{\n  \"name\": \"good\",\n  \"version\": \"1.0\",\n"
                                           "  \"build\": \"0\",\n  \"license\": \"MIT\"\n}\n");
    free(rec);
    CU_ASSERT_EQUAL(mode_at(l.prefix, "conda-meta/good-1.0-0.json"), 0644);
    CU_ASSERT_EQUAL(kind_at(l.prefix, "info"), 0);
    /* copy_files: nothing shares an inode with the extracted directory */
    sc_test_rmtree(l.prefix);
    o.copy_files = 1;
    SC_EXPECT_CODE(sc_conda_link(l.lp, 1, &o, NULL, &err), SC_OK, &err);
    CU_ASSERT_NOT_EQUAL(inode_at(l.prefix, "share/good/README"),
                        inode_at(l.dest[0], "share/good/README"));
    char *readme = sc_test_read(l.prefix, "share/good/README");
    CU_ASSERT_STRING_EQUAL(readme ? readme : "", "good package\n");
    free(readme);
    CU_ASSERT_EQUAL(mode_at(l.prefix, "lib/libgood.so.1"), 0755);
    linked_free(&l);
}

static void test_conda_meta_licence_comes_from_the_lock(void)
{
    const char *names[] = {"legacy-1.0-0.tar.bz2", "clob-a-1.0-0.conda"};
    linked l = linked_new(names, 2);
    l.lp[0].license = "Apache-2.0";
    sc_conda_link_options o = {l.prefix, NULL, NULL, NULL, 0, NULL, NULL, 0, 0};
    sc_error err;
    SC_EXPECT_CODE(sc_conda_link(l.lp, 2, &o, NULL, &err), SC_OK, &err);
    char *rec = sc_test_read(l.prefix, "conda-meta/legacy-1.0-0.json");
    CU_ASSERT_STRING_EQUAL(rec ? rec : "", "{\n  \"name\": \"legacy\",\n  \"version\": \"1.0\",\n"
                                           "  \"build\": \"0\",\n  \"license\": \"Apache-2.0\"\n}\n");
    free(rec);
    rec = sc_test_read(l.prefix, "conda-meta/clob-a-1.0-0.json");
    CU_ASSERT_PTR_NOT_NULL(rec ? strstr(rec, "\"license\": \"MIT\"") : NULL);
    free(rec);
    /* legacy: the binary-placeholder library and the script are the package's bytes */
    char *lt = sc_test_read(l.prefix, "bin/ltool");
    CU_ASSERT_PTR_NOT_NULL(lt ? strstr(lt, "'''exec'") : NULL); /* has_prefix text: a launcher */
    free(lt);
    linked_free(&l);
}

static void test_noarch_python_site_packages_scripts_entry_points(void)
{
    const char *names[] = {"npkg-1.0-0.conda"};
    linked l = linked_new(names, 1);
    sc_conda_link_options o = {l.prefix, NULL, NULL, NULL, 0, NULL, NULL, 0, 0};
    sc_error err;
    /* no python in the environment to install it for: the lock's fault */
    SC_EXPECT_CODE(sc_conda_link(l.lp, 1, &o, NULL, &err), SC_E_UNSUPPORTED_LOCK_PACKAGE, &err);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "scrollcase lock REF"));
    CU_ASSERT_EQUAL(kind_at(l.dir, "venv"), 0);
    char *sp = NULL;
    SC_EXPECT_CODE(sc_conda_site_packages("3.11.9", 0, &sp, &err), SC_OK, &err);
    CU_ASSERT_STRING_EQUAL(sp ? sp : "", "lib/python3.11/site-packages");
    o.site_packages = sp;
    SC_EXPECT_CODE(sc_conda_link(l.lp, 1, &o, NULL, &err), SC_OK, &err);
    CU_ASSERT_EQUAL(kind_at(l.prefix, "lib/python3.11/site-packages/npkg/__init__.py"), 'f');
    CU_ASSERT_EQUAL(kind_at(l.prefix, "site-packages"), 0);
    char *ns = sc_test_read(l.prefix, "bin/nscript");
    char want[512];
    snprintf(want, sizeof want, "%sprint('nscript')\n", TRAMPOLINE);
    CU_ASSERT_STRING_EQUAL(ns ? ns : "", want);
    free(ns);
    CU_ASSERT_EQUAL(mode_at(l.prefix, "bin/ntool"), 0755);
    /* the entry point runs under a real interpreter beside it */
    char *py = sc_path_join(l.prefix, "bin/python");
    CU_ASSERT_EQUAL(symlink("/usr/bin/python3", py), 0);
    char *site = sc_path_join(l.prefix, sp);
    char *tool = sc_path_join(l.prefix, "bin/ntool");
    char *out = sc_path_join(l.dir, "out.txt");
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "PYTHONPATH='%s' '%s' > '%s' 2>&1", site, tool, out);
    char *argv[] = {"/bin/sh", "-c", cmd, NULL};
    CU_ASSERT_EQUAL(run(argv, NULL), 0);
    char *text = sc_test_read(l.dir, "out.txt");
    CU_ASSERT_STRING_EQUAL(text ? text : "", "npkg main\n");
    free(text);
    free(py);
    free(site);
    free(tool);
    free(out);
    free(sp);
    linked_free(&l);
}

static void test_windows_target_has_no_posix_launchers(void)
{
    const char *names[] = {"npkg-1.0-0.conda"};
    linked l = linked_new(names, 1);
    sc_conda_link_options o = {l.prefix, "Lib/site-packages", "Scripts", "python.exe",
                               1, NULL, NULL, 0, 1};
    sc_error err;
    SC_EXPECT_CODE(sc_conda_link(l.lp, 1, &o, NULL, &err), SC_OK, &err);
    CU_ASSERT_EQUAL(kind_at(l.prefix, "Lib/site-packages/npkg/__init__.py"), 'f');
    char *ns = sc_test_read(l.prefix, "Scripts/nscript");
    CU_ASSERT_STRING_EQUAL(ns ? ns : "", "#!/usr/bin/env python\nprint('nscript')\n");
    free(ns);
    CU_ASSERT_EQUAL(kind_at(l.prefix, "Scripts/ntool"), 0);
    char *ep = sc_test_read(l.prefix, "Scripts/ntool-script.py");
    CU_ASSERT_PTR_NOT_NULL(ep ? strstr(ep, "from npkg.cli import main\n") : NULL);
    free(ep);
    linked_free(&l);
}

static void test_site_packages_from_python_version(void)
{
    char *sp = NULL;
    sc_error err;
    SC_EXPECT_CODE(sc_conda_site_packages("3.12.0rc1", 0, &sp, &err), SC_OK, &err);
    CU_ASSERT_STRING_EQUAL(sp ? sp : "", "lib/python3.12/site-packages");
    free(sp);
    SC_EXPECT_CODE(sc_conda_site_packages("3.10", 1, &sp, &err), SC_OK, &err);
    CU_ASSERT_STRING_EQUAL(sp ? sp : "", "Lib/site-packages");
    free(sp);
    SC_EXPECT_CODE(sc_conda_site_packages("3", 0, &sp, &err), SC_E_INVALID_PACKAGE, &err);
    CU_ASSERT_PTR_NULL(sp);
}

static void test_clobber_later_in_dependency_order_wins(void)
{
    const char *names[] = {"clob-c-1.0-0.conda", "clob-a-1.0-0.conda", "clob-b-1.0-0.tar.bz2"};
    linked l = linked_new(names, 3);
    static const size_t perms[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2},
                                       {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
    for (size_t k = 0; k < 6; k++) {
        sc_conda_link_package in[3];
        for (size_t i = 0; i < 3; i++)
            in[i] = l.lp[perms[k][i]];
        clobs c;
        memset(&c, 0, sizeof c);
        sc_conda_link_options o = {l.prefix, NULL, NULL, NULL, 0, on_clobber, &c, 0, 0};
        size_t reported = 0;
        sc_error err;
        SC_EXPECT_CODE(sc_conda_link(in, 3, &o, &reported, &err), SC_OK, &err);
        char *t = sc_test_read(l.prefix, "share/clob.txt");
        CU_ASSERT_STRING_EQUAL(t ? t : "", "from clob-c\n");
        free(t);
        CU_ASSERT_EQUAL(reported, 2);
        CU_ASSERT_STRING_EQUAL(c.text, "share/clob.txt:clob-c>clob-a;share/clob.txt:clob-c>clob-b;");
        size_t order[3];
        SC_EXPECT_CODE(sc_conda_link_order(in, 3, order, &err), SC_OK, &err);
        CU_ASSERT_STRING_EQUAL(in[order[0]].pkg->name, "clob-a");
        CU_ASSERT_STRING_EQUAL(in[order[2]].pkg->name, "clob-c");
        sc_test_rmtree(l.prefix);
    }
    linked_free(&l);
}

static void test_order_ties_and_cycles_by_name(void)
{
    sc_conda_package a, b, c;
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    memset(&c, 0, sizeof c);
    char *da[] = {"c"}, *dc[] = {"a >=1"};
    a.name = "a";
    a.depends = da;
    a.n_depends = 1;
    c.name = "c";
    c.depends = dc;
    c.n_depends = 1;
    b.name = "b";
    sc_conda_link_package in[3] = {{&c, "", NULL}, {&b, "", NULL}, {&a, "", NULL}};
    size_t order[3];
    sc_error err;
    SC_EXPECT_CODE(sc_conda_link_order(in, 3, order, &err), SC_OK, &err);
    /* b is ready first; a<->c is a cycle broken by name: a, then c */
    CU_ASSERT_STRING_EQUAL(in[order[0]].pkg->name, "b");
    CU_ASSERT_STRING_EQUAL(in[order[1]].pkg->name, "a");
    CU_ASSERT_STRING_EQUAL(in[order[2]].pkg->name, "c");
    sc_conda_link_package twice[2] = {{&a, "", NULL}, {&a, "", NULL}};
    SC_EXPECT_CODE(sc_conda_link_order(twice, 2, order, &err), SC_E_INVALID_PACKAGE, &err);
}

/* Soft links of two packages that leave the prefix together (lk-a's k -> .,
 * lk-b's conda-meta -> k/..): nothing is written through them, and nothing
 * lands beside the prefix. */
static void test_links_of_two_packages_never_carry_a_write_out_of_the_prefix(void)
{
    const char *names[] = {"lk-a-1.0-0.conda", "lk-b-1.0-0.conda"};
    linked l = linked_new(names, 2);
    sc_conda_link_options o = {l.prefix, NULL, NULL, NULL, 0, NULL, NULL, 0, 0};
    sc_error err;
    SC_EXPECT_CODE(sc_conda_link(l.lp, 2, &o, NULL, &err), SC_E_LINK_ENTRY, &err);
    char *parent = strdup(l.prefix);
    CU_ASSERT_PTR_NOT_NULL_FATAL(parent);
    char *slash = strrchr(parent, '/');
    CU_ASSERT_PTR_NOT_NULL_FATAL(slash);
    *slash = '\0';
    CU_ASSERT_EQUAL(kind_at(parent, "lk-a-1.0-0.json"), 0);
    CU_ASSERT_EQUAL(kind_at(parent, "lk-b-1.0-0.json"), 0);
    free(parent);
    linked_free(&l);
}

static void test_file_and_directory_later_package_wins(void)
{
    /* share/fd: a file in fd-a, a directory in fd-b (after fd-a), a file in fd-c
     * (after fd-b); the result is what writing them in that order leaves */
    const char *names[] = {"fd-c-1.0-0.tar.bz2", "fd-b-1.0-0.conda", "fd-a-1.0-0.conda"};
    linked l = linked_new(names, 3);
    clobs c;
    memset(&c, 0, sizeof c);
    sc_conda_link_options o = {l.prefix, NULL, NULL, NULL, 0, on_clobber, &c, 0, 0};
    size_t reported = 0;
    sc_error err;
    /* fd-a and fd-b: the directory replaces the file */
    SC_EXPECT_CODE(sc_conda_link(&l.lp[1], 2, &o, &reported, &err), SC_OK, &err);
    CU_ASSERT_EQUAL(kind_at(l.prefix, "share/fd"), 'd');
    char *t = sc_test_read(l.prefix, "share/fd/inner.txt");
    CU_ASSERT_STRING_EQUAL(t ? t : "", "inner of fd-b\n");
    free(t);
    CU_ASSERT_EQUAL(reported, 1);
    CU_ASSERT_STRING_EQUAL(c.text, "share/fd:fd-b>fd-a;");
    sc_test_rmtree(l.prefix);
    /* all three: fd-c's file replaces fd-b's directory and what it held */
    memset(&c, 0, sizeof c);
    SC_EXPECT_CODE(sc_conda_link(l.lp, 3, &o, &reported, &err), SC_OK, &err);
    t = sc_test_read(l.prefix, "share/fd");
    CU_ASSERT_STRING_EQUAL(t ? t : "", "file of fd-c\n");
    free(t);
    CU_ASSERT_EQUAL(reported, 2);
    CU_ASSERT_STRING_EQUAL(c.text, "share/fd:fd-c>fd-a;share/fd/inner.txt:fd-c>fd-b;");
    linked_free(&l);
}

static void test_case_only_clobber_on_case_folding_target(void)
{
    /* clob-a's share/clob.txt renamed share/CLOB.txt: on a case-folding target
     * it is the same file as clob-b's share/clob.txt, and clob-b (later) wins */
    const char *names[] = {"clob-a-1.0-0.conda", "clob-b-1.0-0.tar.bz2"};
    linked l = linked_new(names, 2);
    sc_conda_path *p = (sc_conda_path *)path_of(l.pkg[0], "share/clob.txt");
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    free(p->path);
    p->path = strdup("share/CLOB.txt");
    clobs c;
    memset(&c, 0, sizeof c);
    sc_conda_link_options o = {l.prefix, NULL, NULL, NULL, 1, on_clobber, &c, 0, 0};
    size_t reported = 0;
    sc_error err;
    SC_EXPECT_CODE(sc_conda_link(l.lp, 2, &o, &reported, &err), SC_OK, &err);
    CU_ASSERT_EQUAL(reported, 1);
    CU_ASSERT_STRING_EQUAL(c.text, "share/clob.txt:clob-b>clob-a;");
    char *t = sc_test_read(l.prefix, "share/clob.txt");
    CU_ASSERT_STRING_EQUAL(t ? t : "", "from clob-b\n");
    free(t);
    CU_ASSERT_EQUAL(kind_at(l.prefix, "share/CLOB.txt"), 0);
    linked_free(&l);
}

static void test_prefix_that_is_not_empty_is_refused(void)
{
    const char *names[] = {"clob-a-1.0-0.conda"};
    linked l = linked_new(names, 1);
    CU_ASSERT_EQUAL_FATAL(mkdir(l.prefix, 0755), 0);
    sc_test_write(l.prefix, "keep.txt", "mine\n");
    sc_conda_link_options o = {l.prefix, NULL, NULL, NULL, 0, NULL, NULL, 0, 0};
    sc_error err;
    SC_EXPECT_CODE(sc_conda_link(l.lp, 1, &o, NULL, &err), SC_E_EXISTING_DESTINATION, &err);
    CU_ASSERT_EQUAL(kind_at(l.prefix, "keep.txt"), 'f');
    /* options that are not prefix-relative paths are a caller's mistake */
    sc_test_rmtree(l.prefix);
    o.site_packages = "../lib/site-packages";
    SC_EXPECT_CODE(sc_conda_link(l.lp, 1, &o, NULL, &err), SC_E_USAGE, &err);
    CU_ASSERT_EQUAL(kind_at(l.dir, "venv"), 0);
    linked_free(&l);
}

static void test_launcher_texts(void)
{
    sc_strbuf b = SC_STRBUF_INIT;
    sc_error err;
    SC_EXPECT_CODE(sc_python_entry_point_launcher("python", "pkg.mod", "obj.main", &b, &err),
                   SC_OK, &err);
    CU_ASSERT_EQUAL(strncmp(b.p ? b.p : "", TRAMPOLINE, strlen(TRAMPOLINE)), 0);
    CU_ASSERT_PTR_NOT_NULL(b.p ? strstr(b.p, "from pkg.mod import obj\n") : NULL);
    CU_ASSERT_PTR_NOT_NULL(b.p ? strstr(b.p, "sys.exit(obj.main())\n") : NULL);
    sc_strbuf_free(&b);
    SC_EXPECT_CODE(sc_python_entry_point_launcher("python", "a;b", "c", &b, &err), SC_E_USAGE,
                   &err);
    SC_EXPECT_CODE(sc_python_trampoline_head("py\"thon", &b, &err), SC_E_USAGE, &err);
    sc_strbuf_free(&b);
}

void register_conda_package_tests(void)
{
    CU_pSuite s = CU_add_suite("conda-package", NULL, NULL);
    if (s == NULL)
        CU_FAIL_FATAL("CU_add_suite failed");
#define T(fn) SC_ADD_TEST(s, fn)
    T(test_cph_conda_extracts_as_cph_does);
    T(test_cph_tar_bz2_extracts_as_cph_does);
    T(test_cph_noarch_and_legacy_extract_as_cph_does);
    T(test_index_and_paths_json_are_read);
    T(test_pkg_member_before_info_member);
    T(test_zip64_extra_fields_and_data_descriptors);
    T(test_dot_slash_member_names);
    T(test_tar_bz2_with_info_last);
    T(test_legacy_files_has_prefix_no_link);
    T(test_tar_hard_link_to_earlier_member_is_a_copy);
    T(test_hundred_thousand_files);
    T(test_extractions_run_on_many_threads_at_once);
    T(test_member_with_dotdot_is_unsafe_path);
    T(test_absolute_member_is_unsafe_path);
    T(test_soft_link_escaping_the_prefix);
    T(test_soft_link_to_absolute_path);
    T(test_soft_link_escaping_through_another_link);
    T(test_tar_hard_link_to_missing_member);
    T(test_tar_hard_link_to_later_member);
    T(test_paths_json_lists_a_missing_file);
    T(test_listed_softlink_that_is_a_regular_file);
    T(test_file_sha256_disagrees_with_paths_json);
    T(test_file_size_disagrees_with_paths_json);
    T(test_file_larger_than_paths_json_says);
    T(test_binary_placeholder_longer_than_its_slot);
    T(test_binary_placeholder_absent_from_the_file);
    T(test_placeholder_longer_than_255_bytes);
    T(test_file_mode_without_placeholder);
    T(test_file_mode_neither_text_nor_binary);
    T(test_special_member_is_refused);
    T(test_member_written_through_a_link);
    T(test_member_twice_in_the_archive);
    T(test_missing_index_json);
    T(test_paths_json_not_json);
    T(test_zstd_bomb_stops_at_declared_size);
    T(test_truncated_conda);
    T(test_truncated_tar_bz2);
    T(test_conda_without_pkg_member);
    T(test_info_that_is_a_soft_link_is_refused);
    T(test_bzip2_bomb_stops_at_the_budget);
    T(test_bzip2_bomb_stops_at_the_default_budget);
    T(test_package_for_another_subdir);
    T(test_noarch_package_passes_any_subdir);
    T(test_case_only_collision_on_case_folding_target);
    T(test_existing_destination_is_refused);
    T(test_index_json_needs_name_version_build);
    T(test_paths_json_rules);
    T(test_link_json_entry_points);
    T(test_link_scripts_are_flagged);
    T(test_spec_name);
    T(test_link_files_links_placeholders_and_launchers);
    T(test_conda_meta_licence_comes_from_the_lock);
    T(test_noarch_python_site_packages_scripts_entry_points);
    T(test_windows_target_has_no_posix_launchers);
    T(test_site_packages_from_python_version);
    T(test_clobber_later_in_dependency_order_wins);
    T(test_order_ties_and_cycles_by_name);
    T(test_file_and_directory_later_package_wins);
    T(test_links_of_two_packages_never_carry_a_write_out_of_the_prefix);
    T(test_case_only_clobber_on_case_folding_target);
    T(test_prefix_that_is_not_empty_is_refused);
    T(test_launcher_texts);
#undef T
}
