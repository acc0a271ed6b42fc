/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_wheel_install.c — the wheel installer (wheel_install.h), one test per
 * rule of docs/drafts/wheel-install.md.  Wheels are built by
 * fixtures/wheelgen.py (Python's zipfile) into a temporary directory; the
 * installed RECORD is checked by Python's csv/hashlib, a pure wheel is
 * compared with what Debian's pip installs, and launchers are run with the
 * real /usr/bin/python3 as the sibling interpreter.
 */
#define _POSIX_C_SOURCE 200809L

#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "scrollcase/conda_link.h"
#include "scrollcase/file.h"
#include "scrollcase/strbuf.h"
#include "scrollcase/target.h"
#include "scrollcase/wheel_install.h"

#define PYTHON "/usr/bin/python3"
#define WHEELGEN SC_SOURCE_DIR "/fixtures/wheelgen.py"
#define SITE "lib/python3.11/site-packages"

/* Run argv (no shell); returns the exit status, or -1. */
static int run_argv(char *const argv[], char *const envp[], const char *out_path)
{
    pid_t pid = fork();
    if (pid == 0) {
        if (out_path != NULL) {
            FILE *f = freopen(out_path, "w", stdout);
            if (f == NULL)
                _exit(126);
        } else if (freopen("/dev/null", "w", stdout) == NULL) {
            _exit(126);
        }
        if (envp != NULL)
            execve(argv[0], argv, envp);
        else
            execv(argv[0], argv);
        _exit(127);
    }
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
        return -1;
    return WEXITSTATUS(status);
}

/* Build a wheel of `shape` in dir; extra is one optional "--opt=value". */
static char *gen(const char *dir, const char *shape, const char *extra, const char *extra2)
{
    char *argv[] = {PYTHON, WHEELGEN, (char *)dir, (char *)shape, (char *)extra, (char *)extra2,
                    NULL};
    char *outp = sc_path_join(dir, ".gen-out");
    int st = run_argv(argv, NULL, outp);
    char *text = NULL;
    size_t len = 0;
    sc_error err;
    if (st != 0 || sc_file_read(outp, &text, &len, NULL, &err) != SC_OK) {
        fprintf(stderr, "\n  wheelgen %s failed (%d)\n", shape, st);
        free(outp);
        return NULL;
    }
    unlink(outp);
    free(outp);
    while (len > 0 && (text[len - 1] == '\n' || text[len - 1] == '\r'))
        text[--len] = '\0';
    return text;
}

typedef struct fx {
    char *tmp;
    char *wheels;
    char *prefix;
    sc_target target;
    sc_wheel_env env;
} fx;

static void fx_init_for(fx *f, const char *target_id, const char *site, const char *scripts)
{
    memset(f, 0, sizeof *f);
    f->tmp = sc_test_tmpdir();
    f->wheels = sc_path_join(f->tmp, "wheels");
    f->prefix = sc_path_join(f->tmp, "prefix");
    CU_ASSERT_EQUAL(mkdir(f->wheels, 0755), 0);
    CU_ASSERT_EQUAL(mkdir(f->prefix, 0755), 0);
    sc_error err;
    CU_ASSERT_EQUAL(sc_target_parse_id(target_id, &f->target, &err), SC_OK);
    f->env.target = &f->target;
    f->env.python_version = "3.11.4";
    f->env.site_packages = site;
    f->env.scripts_dir = scripts;
    f->env.jobs = 2;
}

static void fx_init(fx *f)
{
    fx_init_for(f, "linux-x86_64-cpu", SITE, "bin");
}

static void fx_free(fx *f)
{
    sc_test_rmtree(f->tmp);
    free(f->tmp);
    free(f->wheels);
    free(f->prefix);
}

static int mode_at(const char *dir, const char *rel)
{
    char *p = sc_path_join(dir, rel);
    struct stat st;
    int m = lstat(p, &st) == 0 ? (int)(st.st_mode & 07777) : -1;
    free(p);
    return m;
}

static sc_code install(fx *f, const char *shape, const char *extra, sc_wheel_installed *out,
                       sc_error *err)
{
    char *w = gen(f->wheels, shape, extra, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w);
    sc_code rc = sc_wheel_install(w, NULL, f->prefix, &f->env, out, err);
    free(w);
    return rc;
}

/* The prefix holds nothing at all (a refused wheel leaves nothing). */
static void expect_refused(const char *shape, const char *extra, sc_code want)
{
    fx f;
    fx_init(&f);
    sc_error err;
    sc_code rc = install(&f, shape, extra, NULL, &err);
    SC_EXPECT_CODE(rc, want, &err);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "demo_pkg-1.0-py3-none-any.whl"));
    sc_test_expect_empty(f.prefix);
    fx_free(&f);
}

/* ---- placement ---------------------------------------------------------------------- */

static void test_wheel_schemes_land_where_the_spec_maps_them(void)
{
    fx f;
    fx_init(&f);
    sc_wheel_installed out;
    sc_error err;
    SC_EXPECT_CODE(install(&f, "demo", NULL, &out, &err), SC_OK, &err);
    static const char *const want[] = {
        SITE "/demo_pkg/__init__.py", SITE "/demo_pkg/cli.py", SITE "/demo_pkg/tool.sh",
        SITE "/demo_pkg/data/table.csv", SITE "/demo_extra.py", SITE "/demo_plat.py",
        "bin/demo-script", "bin/plain.sh", "include/site/python3.11/demo-pkg/demo.h",
        "share/demo/readme.txt", SITE "/demo_pkg-1.0.dist-info/METADATA",
        SITE "/demo_pkg-1.0.dist-info/WHEEL", SITE "/demo_pkg-1.0.dist-info/entry_points.txt",
        SITE "/demo_pkg-1.0.dist-info/INSTALLER", SITE "/demo_pkg-1.0.dist-info/RECORD",
        "bin/demo-cli", "bin/demo-gui", "bin/app-run",
    };
    size_t nwant = sizeof want / sizeof want[0];
    CU_ASSERT_EQUAL(out.nfiles, nwant + 1); /* and top_level.txt */
    for (size_t i = 0; i < nwant; i++) {
        char *t = sc_test_read(f.prefix, want[i]);
        if (t == NULL)
            fprintf(stderr, "\n  missing %s\n", want[i]);
        CU_ASSERT_PTR_NOT_NULL(t);
        free(t);
    }
    char *t = sc_test_read(f.prefix, "include/site/python3.11/demo-pkg/demo.h");
    CU_ASSERT_STRING_EQUAL(t ? t : "", "#define DEMO 1\n");
    free(t);
    CU_ASSERT_STRING_EQUAL(out.name, "demo-pkg");
    CU_ASSERT_STRING_EQUAL(out.version, "1.0");
    CU_ASSERT_STRING_EQUAL(out.dist_info, SITE "/demo_pkg-1.0.dist-info");
    CU_ASSERT_EQUAL(out.nlaunchers, 3);
    /* out.files is sorted by path bytes */
    for (size_t i = 1; i < out.nfiles; i++)
        CU_ASSERT(strcmp(out.files[i - 1].path, out.files[i].path) < 0);
    /* nothing of the staging directory is left in the prefix */
    DIR *d = opendir(f.prefix);
    struct dirent *de;
    int n = 0;
    while (d && (de = readdir(d)) != NULL)
        if (de->d_name[0] != '.')
            n++;
        else
            CU_ASSERT(strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0);
    if (d)
        closedir(d);
    CU_ASSERT_EQUAL(n, 4); /* bin include lib share */
    sc_wheel_installed_free(&out);
    fx_free(&f);
}

static void test_installer_file_names_the_installer(void)
{
    fx f;
    fx_init(&f);
    sc_error err;
    SC_EXPECT_CODE(install(&f, "demo", NULL, NULL, &err), SC_OK, &err);
    char *t = sc_test_read(f.prefix, SITE "/demo_pkg-1.0.dist-info/INSTALLER");
    CU_ASSERT_STRING_EQUAL(t ? t : "", "scrollcase\n");
    free(t);
    fx_free(&f);
    fx_init(&f);
    f.env.installer = "uv-pixi";
    SC_EXPECT_CODE(install(&f, "demo", NULL, NULL, &err), SC_OK, &err);
    t = sc_test_read(f.prefix, SITE "/demo_pkg-1.0.dist-info/INSTALLER");
    CU_ASSERT_STRING_EQUAL(t ? t : "", "uv-pixi\n");
    free(t);
    fx_free(&f);
}

static void test_modes_are_explicit_whatever_the_umask(void)
{
    fx f;
    fx_init(&f);
    sc_error err;
    mode_t old = umask(077);
    sc_code rc = install(&f, "demo", NULL, NULL, &err);
    umask(old);
    SC_EXPECT_CODE(rc, SC_OK, &err);
    CU_ASSERT_EQUAL(mode_at(f.prefix, SITE "/demo_pkg/__init__.py"), 0644);
    CU_ASSERT_EQUAL(mode_at(f.prefix, SITE "/demo_pkg/tool.sh"), 0755); /* exec bits in the zip */
    CU_ASSERT_EQUAL(mode_at(f.prefix, "bin/demo-script"), 0755);        /* scripts scheme */
    CU_ASSERT_EQUAL(mode_at(f.prefix, "bin/demo-cli"), 0755);           /* launcher */
    CU_ASSERT_EQUAL(mode_at(f.prefix, SITE "/demo_pkg-1.0.dist-info/RECORD"), 0644);
    CU_ASSERT_EQUAL(mode_at(f.prefix, SITE "/demo_pkg"), 0755);
    CU_ASSERT_EQUAL(mode_at(f.prefix, "include/site/python3.11/demo-pkg"), 0755);
    fx_free(&f);
}

static void test_python_shebang_script_is_written_as_the_trampoline(void)
{
    fx f;
    fx_init(&f);
    sc_error err;
    SC_EXPECT_CODE(install(&f, "demo", NULL, NULL, &err), SC_OK, &err);
    sc_strbuf want;
    sc_strbuf_init(&want);
    CU_ASSERT_EQUAL(sc_python_trampoline_head("python", &want, &err), SC_OK);
    sc_strbuf_adds(&want, "print('from demo-script')\n");
    char *t = sc_test_read(f.prefix, "bin/demo-script");
    CU_ASSERT_STRING_EQUAL(t ? t : "", want.p);
    free(t);
    /* a script with another shebang is copied as it is */
    t = sc_test_read(f.prefix, "bin/plain.sh");
    CU_ASSERT_STRING_EQUAL(t ? t : "", "#!/bin/sh\necho plain\n");
    free(t);
    sc_strbuf_free(&want);
    fx_free(&f);
}

static void test_entry_points_become_relocatable_launchers(void)
{
    fx f;
    fx_init(&f);
    sc_error err;
    SC_EXPECT_CODE(install(&f, "demo", NULL, NULL, &err), SC_OK, &err);
    sc_strbuf want;
    sc_strbuf_init(&want);
    CU_ASSERT_EQUAL(sc_python_entry_point_launcher("python", "demo_pkg.cli", "main", &want, &err),
                    SC_OK);
    char *t = sc_test_read(f.prefix, "bin/demo-cli");
    CU_ASSERT_STRING_EQUAL(t ? t : "", want.p);
    /* never the build path */
    CU_ASSERT_PTR_NULL(t ? strstr(t, f.prefix) : NULL);
    free(t);
    t = sc_test_read(f.prefix, "bin/demo-gui");
    CU_ASSERT_PTR_NOT_NULL(t ? strstr(t, "from demo_pkg.cli import gui\n") : NULL);
    free(t);
    sc_strbuf_free(&want);
    fx_free(&f);
}

static void test_old_setuptools_script_gives_way_to_the_entry_point_launcher(void)
{
    fx f;
    fx_init(&f);
    sc_error err;
    SC_EXPECT_CODE(install(&f, "demo", NULL, NULL, &err), SC_OK, &err);
    char *t = sc_test_read(f.prefix, "bin/demo-cli");
    CU_ASSERT_PTR_NULL(t ? strstr(t, "EASY-INSTALL") : "not installed");
    free(t);
    t = sc_test_read(f.prefix, "bin/demo-gui-script.py");
    CU_ASSERT_PTR_NULL(t);
    free(t);
    t = sc_test_read(f.prefix, SITE "/demo_pkg-1.0.dist-info/RECORD");
    CU_ASSERT_PTR_NULL(t ? strstr(t, "demo-gui-script.py") : "no RECORD");
    free(t);
    fx_free(&f);
}

/* Run prefix/rel (with "b" after arg when arg is given): its status and
 * standard output. */
static void expect_run(const fx *f, const char *rel, const char *arg, char *const envp[],
                       int status, const char *output)
{
    char *path = sc_path_join(f->prefix, rel);
    char *outp = sc_path_join(f->tmp, "out.txt");
    char *argv[] = {path, (char *)arg, arg ? "b" : NULL, NULL};
    CU_ASSERT_EQUAL(run_argv(argv, envp, outp), status);
    char *t = sc_test_read(f->tmp, "out.txt");
    CU_ASSERT_STRING_EQUAL(t ? t : "", output);
    free(t);
    free(outp);
    free(path);
}

static void test_launcher_runs_the_function_with_the_sibling_python(void)
{
    fx f;
    fx_init(&f);
    sc_error err;
    SC_EXPECT_CODE(install(&f, "demo", NULL, NULL, &err), SC_OK, &err);
    char *py = sc_path_join(f.prefix, "bin/python");
    CU_ASSERT_EQUAL(symlink(PYTHON, py), 0);
    char *site = sc_path_join(f.prefix, SITE);
    char envv[4096];
    snprintf(envv, sizeof envv, "PYTHONPATH=%s", site);
    char *envp[] = {envv, "PATH=/usr/bin:/bin", NULL};
    expect_run(&f, "bin/demo-cli", "a", envp, 3, "demo-cli a b\n"); /* main() returned 3 */
    expect_run(&f, "bin/app-run", NULL, envp, 0, "app-run\n");
    expect_run(&f, "bin/demo-script", NULL, envp, 0, "from demo-script\n");
    free(site);
    free(py);
    fx_free(&f);
}

/* Python's csv and hashlib check the installed RECORD: every row's file has
 * its sha256 and size, RECORD's own row is bare, and every file under the
 * prefix is listed. */
static const char RECORD_CHECK[] =
    "import base64, csv, hashlib, os, sys\n"
    "prefix, site, di = sys.argv[1], sys.argv[2], sys.argv[3]\n"
    "sp = os.path.join(prefix, site)\n"
    "rows = list(csv.reader(open(os.path.join(sp, di, 'RECORD'), newline='')))\n"
    "seen = set()\n"
    "for path, h, size in rows:\n"
    "    full = os.path.normpath(os.path.join(sp, path))\n"
    "    seen.add(full)\n"
    "    if path == di + '/RECORD':\n"
    "        assert h == '' and size == '', (path, h, size)\n"
    "        continue\n"
    "    data = open(full, 'rb').read()\n"
    "    d = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b'=').decode()\n"
    "    assert h == 'sha256=' + d, path\n"
    "    assert int(size) == len(data), path\n"
    "for root, dirs, files in os.walk(prefix):\n"
    "    for n in files:\n"
    "        assert os.path.join(root, n) in seen, os.path.join(root, n)\n"
    "assert [r[0] for r in rows] == sorted(r[0] for r in rows)\n"
    "print(len(rows))\n";

static void test_record_lists_every_installed_file_with_its_hash(void)
{
    fx f;
    fx_init(&f);
    sc_wheel_installed out;
    sc_error err;
    SC_EXPECT_CODE(install(&f, "demo", NULL, &out, &err), SC_OK, &err);
    char *outp = sc_path_join(f.tmp, "out.txt");
    char *argv[] = {PYTHON, "-c", (char *)RECORD_CHECK, f.prefix, SITE,
                    "demo_pkg-1.0.dist-info", NULL};
    CU_ASSERT_EQUAL(run_argv(argv, NULL, outp), 0);
    char *t = sc_test_read(f.tmp, "out.txt");
    char want[32];
    snprintf(want, sizeof want, "%zu\n", out.nfiles);
    CU_ASSERT_STRING_EQUAL(t ? t : "", want);
    free(t);
    /* the launcher rows point out of site-packages */
    t = sc_test_read(f.prefix, SITE "/demo_pkg-1.0.dist-info/RECORD");
    CU_ASSERT_PTR_NOT_NULL(t ? strstr(t, "\n../../../bin/demo-cli,sha256=") : NULL);
    free(t);
    free(outp);
    sc_wheel_installed_free(&out);
    fx_free(&f);
}

/* The same files, hashes and modes as the plain demo wheel. */
static void expect_same_as_demo(const char *shape)
{
    fx a, b;
    fx_init(&a);
    fx_init(&b);
    sc_wheel_installed oa, ob;
    sc_error err;
    SC_EXPECT_CODE(install(&a, "demo", NULL, &oa, &err), SC_OK, &err);
    SC_EXPECT_CODE(install(&b, shape, NULL, &ob, &err), SC_OK, &err);
    CU_ASSERT_EQUAL(oa.nfiles, ob.nfiles);
    for (size_t i = 0; i < oa.nfiles && i < ob.nfiles; i++) {
        CU_ASSERT_STRING_EQUAL(oa.files[i].path, ob.files[i].path);
        CU_ASSERT_STRING_EQUAL(oa.files[i].sha256, ob.files[i].sha256);
        CU_ASSERT_EQUAL(oa.files[i].mode, ob.files[i].mode);
    }
    sc_wheel_installed_free(&oa);
    sc_wheel_installed_free(&ob);
    fx_free(&a);
    fx_free(&b);
}

static void test_zip64_extra_fields_install_like_a_plain_zip(void)
{
    expect_same_as_demo("zip64");
}

static void test_data_descriptors_install_like_a_plain_zip(void)
{
    expect_same_as_demo("descriptor");
}

static void test_dot_slash_member_names_install_like_plain_names(void)
{
    expect_same_as_demo("dotslash");
}

static void test_install_is_deterministic_whatever_the_job_count_and_tz(void)
{
    fx a, b;
    fx_init(&a);
    fx_init(&b);
    a.env.jobs = 1;
    b.env.jobs = 0;
    sc_error err;
    char *tz = getenv("TZ") ? strdup(getenv("TZ")) : NULL;
    setenv("TZ", "Pacific/Kiritimati", 1);
    SC_EXPECT_CODE(install(&a, "demo", NULL, NULL, &err), SC_OK, &err);
    setenv("TZ", "America/Adak", 1);
    SC_EXPECT_CODE(install(&b, "demo", NULL, NULL, &err), SC_OK, &err);
    if (tz) {
        setenv("TZ", tz, 1);
        free(tz);
    } else {
        unsetenv("TZ");
    }
    char *ra = sc_test_read(a.prefix, SITE "/demo_pkg-1.0.dist-info/RECORD");
    char *rb = sc_test_read(b.prefix, SITE "/demo_pkg-1.0.dist-info/RECORD");
    CU_ASSERT_PTR_NOT_NULL(ra);
    CU_ASSERT_STRING_EQUAL(ra ? ra : "", rb ? rb : "-");
    free(ra);
    free(rb);
    fx_free(&a);
    fx_free(&b);
}

static void test_a_second_install_replaces_the_same_files(void)
{
    fx f;
    fx_init(&f);
    sc_error err;
    SC_EXPECT_CODE(install(&f, "demo", NULL, NULL, &err), SC_OK, &err);
    char *r1 = sc_test_read(f.prefix, SITE "/demo_pkg-1.0.dist-info/RECORD");
    SC_EXPECT_CODE(install(&f, "demo", NULL, NULL, &err), SC_OK, &err);
    char *r2 = sc_test_read(f.prefix, SITE "/demo_pkg-1.0.dist-info/RECORD");
    CU_ASSERT_STRING_EQUAL(r1 ? r1 : "", r2 ? r2 : "-");
    free(r1);
    free(r2);
    fx_free(&f);
}

/* pip (Debian's python3-pip) installs the same pure wheel with --target:
 * every file outside the dist-info has the same bytes, and the dist-info
 * files both write from the wheel are the same. */
static const char PIP_COMPARE[] =
    "import os, sys, filecmp\n"
    "ours, pips = sys.argv[1], sys.argv[2]\n"
    "def walk(top):\n"
    "    out = set()\n"
    "    for root, dirs, files in os.walk(top):\n"
    "        for n in files:\n"
    "            out.add(os.path.relpath(os.path.join(root, n), top))\n"
    "    return out\n"
    "a = walk(ours)\n"
    "b = {p for p in walk(pips) if '__pycache__' not in p}\n"
    "gen = {'INSTALLER', 'RECORD', 'REQUESTED', 'direct_url.json'}\n"
    "strip = lambda s: {p for p in s if os.path.basename(p) not in gen}\n"
    "assert strip(a) == strip(b), (sorted(a), sorted(b))\n"
    "for p in strip(a):\n"
    "    assert filecmp.cmp(os.path.join(ours, p), os.path.join(pips, p), shallow=False), p\n"
    "print(len(strip(a)))\n";

static void test_pure_wheel_installs_the_files_pip_installs(void)
{
    fx f;
    fx_init(&f);
    sc_error err;
    char *w = gen(f.wheels, "pure", NULL, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w);
    SC_EXPECT_CODE(sc_wheel_install(w, NULL, f.prefix, &f.env, NULL, &err), SC_OK, &err);
    char *target = sc_path_join(f.tmp, "pip-target");
    char *argv[] = {PYTHON, "-m", "pip", "install", "--quiet", "--no-deps", "--no-compile",
                    "--no-index", "--disable-pip-version-check", "--target", target, w, NULL};
    char *envp[] = {"PATH=/usr/bin:/bin", "PIP_NO_CACHE_DIR=1", "PIP_BREAK_SYSTEM_PACKAGES=1",
                    NULL};
    int st = run_argv(argv, envp, NULL);
    if (st != 0) {
        fprintf(stderr, "\n  pip install failed (%d): is python3-pip installed?\n", st);
        CU_FAIL("pip is the oracle of this test");
    } else {
        char *site = sc_path_join(f.prefix, SITE);
        char *outp = sc_path_join(f.tmp, "out.txt");
        char *argv2[] = {PYTHON, "-c", (char *)PIP_COMPARE, site, target, NULL};
        CU_ASSERT_EQUAL(run_argv(argv2, NULL, outp), 0);
        char *t = sc_test_read(f.tmp, "out.txt");
        CU_ASSERT_STRING_EQUAL(t ? t : "", "6\n"); /* 3 package files, METADATA, WHEEL, top_level */
        free(t);
        free(site);
        free(outp);
    }
    free(target);
    free(w);
    fx_free(&f);
}

/* ---- refusals --------------------------------------------------------------------------- */

static void test_member_hash_differing_from_record_is_refused(void)
{
    expect_refused("badhash", NULL, SC_E_WHEEL_RECORD_MISMATCH);
}

static void test_member_size_differing_from_record_is_refused(void)
{
    expect_refused("badsize", NULL, SC_E_WHEEL_RECORD_MISMATCH);
}

static void test_member_missing_from_record_is_refused(void)
{
    expect_refused("unlisted", NULL, SC_E_WHEEL_RECORD_MISMATCH);
}

/* Identical rows for one member are one row: every copy is the member's,
 * whichever of them a lookup finds first. */
static void test_identical_record_rows_for_one_member_are_accepted(void)
{
    fx f;
    fx_init(&f);
    sc_error err;
    SC_EXPECT_CODE(install(&f, "duprows", NULL, NULL, &err), SC_OK, &err);
    fx_free(&f);
}

static void test_record_row_without_a_member_is_refused(void)
{
    expect_refused("phantom", NULL, SC_E_WHEEL_RECORD_MISMATCH);
}

static void test_record_hash_other_than_sha256_is_refused(void)
{
    expect_refused("md5", NULL, SC_E_WHEEL_RECORD_MISMATCH);
}

static void test_member_name_with_dotdot_is_refused(void)
{
    expect_refused("dotdot", NULL, SC_E_UNSAFE_PATH);
}

static void test_absolute_member_name_is_refused(void)
{
    expect_refused("absolute", NULL, SC_E_UNSAFE_PATH);
}

static void test_member_name_with_backslash_is_refused(void)
{
    expect_refused("backslash", NULL, SC_E_UNSAFE_PATH);
}

static void test_wheel_version_other_than_1_is_refused(void)
{
    expect_refused("wheelv2", NULL, SC_E_INVALID_WHEEL);
}

static void test_wheel_without_root_is_purelib_is_refused(void)
{
    expect_refused("nopurelib", NULL, SC_E_INVALID_WHEEL);
}

static void test_unknown_data_scheme_is_refused(void)
{
    expect_refused("badscheme", NULL, SC_E_INVALID_WHEEL);
}

static void test_entry_point_name_that_is_a_path_is_refused(void)
{
    expect_refused("badentry", NULL, SC_E_INVALID_WHEEL);
}

static void test_two_dist_info_directories_are_refused(void)
{
    expect_refused("twodistinfo", NULL, SC_E_INVALID_WHEEL);
}

static void test_two_members_installing_to_one_path_are_refused(void)
{
    expect_refused("collision", NULL, SC_E_INVALID_WHEEL);
}

static void test_member_installing_over_the_written_record_is_refused(void)
{
    expect_refused("recordclash", NULL, SC_E_INVALID_WHEEL);
}

static void test_metadata_name_differing_from_the_file_name_is_refused(void)
{
    expect_refused("badname", NULL, SC_E_INVALID_WHEEL);
}

static void test_symbolic_link_member_is_refused(void)
{
    expect_refused("symlink", NULL, SC_E_INVALID_WHEEL);
}

static void test_requires_python_excluding_the_interpreter_is_refused(void)
{
    expect_refused("demo", "--requires-python=>=3.12", SC_E_WHEEL_INCOMPATIBLE);
}

static void test_lock_requires_python_is_checked_before_download(void)
{
    fx f;
    fx_init(&f);
    sc_error err;
    SC_EXPECT_CODE(sc_wheel_check_requires_python(">=3.12", "x-1.0-py3-none-any.whl", &f.env,
                                                  &err),
                   SC_E_WHEEL_INCOMPATIBLE, &err);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "x-1.0-py3-none-any.whl"));
    SC_EXPECT_CODE(sc_wheel_check_requires_python(">=3.8,<4", "x", &f.env, &err), SC_OK, &err);
    SC_EXPECT_CODE(sc_wheel_check_requires_python(NULL, "x", &f.env, &err), SC_OK, &err);
    SC_EXPECT_CODE(sc_wheel_check_requires_python("3.8", "x", &f.env, &err), SC_E_INVALID_WHEEL,
                   &err);
    fx_free(&f);
}

static void test_directory_where_a_file_goes_is_refused_before_anything_moves(void)
{
    fx f;
    fx_init(&f);
    sc_error err;
    char *d = sc_path_join(f.prefix, "bin");
    CU_ASSERT_EQUAL(mkdir(d, 0755), 0);
    free(d);
    d = sc_path_join(f.prefix, "bin/demo-cli");
    CU_ASSERT_EQUAL(mkdir(d, 0755), 0);
    free(d);
    SC_EXPECT_CODE(install(&f, "demo", NULL, NULL, &err), SC_E_ENTRY_COLLISION, &err);
    /* nothing of the wheel landed: only what the test made is there */
    char *t = sc_test_read(f.prefix, SITE "/demo_pkg/__init__.py");
    CU_ASSERT_PTR_NULL(t);
    free(t);
    d = sc_path_join(f.prefix, "bin/demo-cli");
    sc_test_expect_empty(d);
    free(d);
    fx_free(&f);
}

static void test_check_file_reads_requires_python_without_writing(void)
{
    fx f;
    fx_init(&f);
    sc_error err;
    char *w = gen(f.wheels, "demo", "--requires-python=>=3.11,!=3.11.4", NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w);
    SC_EXPECT_CODE(sc_wheel_check_file(w, NULL, &f.env, &err), SC_E_WHEEL_INCOMPATIBLE, &err);
    f.env.python_version = "3.11.5";
    SC_EXPECT_CODE(sc_wheel_check_file(w, NULL, &f.env, &err), SC_OK, &err);
    sc_test_expect_empty(f.prefix);
    free(w);
    fx_free(&f);
}

/* ---- tags --------------------------------------------------------------------------- */

static sc_code check_tag(const char *target, const char *python, const char *fname)
{
    sc_target t;
    sc_error err;
    CU_ASSERT_EQUAL_FATAL(sc_target_parse_id(target, &t, &err), SC_OK);
    sc_wheel_env env = {&t, python, SITE, "bin", NULL, NULL, 0};
    sc_code rc = sc_wheel_check_location(fname, &env, &err);
    if (rc != SC_OK)
        CU_ASSERT_PTR_NOT_NULL(strstr(err.message, "x-1.0"));
    return rc;
}

typedef struct tag_case {
    const char *target, *python, *fname;
    sc_code want;
} tag_case;

static void check_tags(const tag_case *cases, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        sc_code got = check_tag(cases[i].target, cases[i].python, cases[i].fname);
        if (got != cases[i].want)
            fprintf(stderr, "\n  %s on %s, python %s: got %s\n", cases[i].fname,
                    cases[i].target, cases[i].python, sc_code_name(got));
        CU_ASSERT_EQUAL(got, cases[i].want);
    }
}

#define INCOMPATIBLE SC_E_WHEEL_INCOMPATIBLE
#define LINUX "linux-x86_64-cpu"

static void test_python_tags_must_run_on_the_locked_interpreter(void)
{
    static const tag_case cases[] = {
        {LINUX, "3.11.4", "x-1.0-cp312-cp312-manylinux_2_17_x86_64.whl", INCOMPATIBLE},
        {LINUX, "3.11.4", "x-1.0-cp311-cp311-manylinux_2_17_x86_64.whl", SC_OK},
        {LINUX, "3.12.1", "x-1.0-cp39-abi3-manylinux2014_x86_64.whl", SC_OK},
        {LINUX, "3.8.1", "x-1.0-cp39-abi3-manylinux2014_x86_64.whl", INCOMPATIBLE},
        {LINUX, "3.11.4", "x-1.0-py2.py3-none-any.whl", SC_OK},
        {LINUX, "3.11.4", "x-1.0-py2-none-any.whl", INCOMPATIBLE},
        {LINUX, "3.11.4", "x-1.0-pp39-pypy39_pp73-any.whl", INCOMPATIBLE},
        /* debug and free-threaded ABIs are not conda's CPython */
        {LINUX, "3.13.0", "x-1.0-cp313-cp313t-manylinux_2_17_x86_64.whl", INCOMPATIBLE},
        {LINUX, "3.13.0", "x-1.0-cp313-cp313d-any.whl", INCOMPATIBLE},
    };
    check_tags(cases, sizeof cases / sizeof cases[0]);
}

static void test_platform_tags_must_install_on_the_target(void)
{
    static const tag_case cases[] = {
        {"macos-aarch64-cpu", "3.11.4", "x-1.0-cp311-cp311-manylinux_2_17_x86_64.whl",
         INCOMPATIBLE},
        {"macos-aarch64-metal", "3.11.4", "x-1.0-cp311-cp311-macosx_11_0_arm64.whl", SC_OK},
        {"macos-aarch64-cpu", "3.11.4", "x-1.0-cp311-cp311-macosx_10_9_universal2.whl", SC_OK},
        {"macos-aarch64-cpu", "3.11.4", "x-1.0-cp311-cp311-macosx_10_9_x86_64.whl",
         INCOMPATIBLE},
        {"windows-x86_64-cpu", "3.11.4", "x-1.0-cp311-cp311-win_amd64.whl", SC_OK},
        {LINUX, "3.11.4", "x-1.0-cp311-cp311-win_amd64.whl", INCOMPATIBLE},
        {"linux-x86_64-cuda12.4", "3.11.4", "x-1.0-cp311-cp311-manylinux_2_28_x86_64.whl", SC_OK},
        {LINUX, "3.11.4", "x-1.0-cp311-cp311-musllinux_1_2_x86_64.whl", INCOMPATIBLE},
        {LINUX, "3.11.4", "x-1.0-cp311-cp311-manylinux_2_17_aarch64.whl", INCOMPATIBLE},
        {LINUX, "3.11.4", "x-1.0-py3-none-any.whl", SC_OK},
    };
    check_tags(cases, sizeof cases / sizeof cases[0]);
}

static void test_location_that_is_not_a_wheel_name_is_refused(void)
{
    CU_ASSERT_EQUAL(check_tag("linux-x86_64-cpu", "3.11.4", "https://h/x-1.0.tar.gz"),
                    SC_E_INVALID_WHEEL);
    CU_ASSERT_EQUAL(check_tag("linux-x86_64-cpu", "3.11.4", "https://h/x-1.0-any.whl"),
                    SC_E_INVALID_WHEEL);
}

/* ---- the text parsers ------------------------------------------------------------------ */

static void test_requires_python_follows_pep_440(void)
{
    static const struct {
        const char *spec, *version;
        int want;
    } cases[] = {
        {">=3.8", "3.11.4", 1},      {">=3.12", "3.11.4", 0},
        {">=3.8, <4", "3.11.4", 1},  {"<3.11", "3.11.4", 0},
        {"<=3.11", "3.11.4", 0},     {"<=3.11.4", "3.11.4", 1},
        {"<=3.11.4", "3.11", 1},     {">3.11", "3.11.4", 1},
        {">3.11.4", "3.11.4", 0},    {"==3.11.*", "3.11.4", 1},
        {"==3.1.*", "3.11.4", 0},    {"!=3.11.*", "3.11.4", 0},
        {"!=3.10.*,>=3.8", "3.11.4", 1}, {"~=3.9", "3.11.4", 1},
        {"~=3.9.1", "3.11.4", 0},    {"~=3.11.1", "3.11.4", 1},
        {"==3.11", "3.11.0", 1},     {"==3.11.4", "3.11.4", 1},
        {"!=3.11.4", "3.11.4", 0},   {"===3.11.4", "3.11.4", 1},
        {">=3.11.0rc1", "3.11.0", 1}, {"<3.11", "3.11.0rc1", 0},
        {"<3.12", "3.12.0rc1", 0},   {">=3.12.0a1", "3.12.0rc1", 1},
        {">3.11", "3.11.post1", 0},  {">=3.11.dev0", "3.11.0a1", 1},
        {"", "3.11.4", 1},           {"  >= 3.8 ", "3.11.4", 1},
        {">=3..8", "3.11.4", -1},    {"=>3.8", "3.11.4", -1},
        {">=3.8,", "3.11.4", -1},    {">=3.*", "3.11.4", -1},
        {"~=3", "3.11.4", -1},       {"abc", "3.11.4", -1},
        {"==1.0+local", "1.0+local", 1}, {"==1.0", "1.0+local", 1},
        {">=1!1.0", "3.11.4", 0},    {">=v3.8", "3.11.4", 1},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int got = sc_pep440_satisfies(cases[i].spec, cases[i].version);
        if (got != cases[i].want)
            fprintf(stderr, "\n  \"%s\" vs %s: got %d, want %d\n", cases[i].spec,
                    cases[i].version, got, cases[i].want);
        CU_ASSERT_EQUAL(got, cases[i].want);
    }
}

static void test_record_parses_quoted_csv_and_urlsafe_sha256(void)
{
    static const char text[] =
        "a/b.py,sha256=47DEQpj8HBSa-_TImW-5JCeuQeRkm5NMpJWZG3hSuFU,0\r\n"
        "\"with,comma \"\"q\"\".py\",sha256=47DEQpj8HBSa-_TImW-5JCeuQeRkm5NMpJWZG3hSuFU,\n"
        "\n"
        "x.dist-info/RECORD,,\n";
    sc_wheel_record_row *rows;
    size_t n;
    sc_error err;
    SC_EXPECT_CODE(sc_wheel_record_parse(text, sizeof text - 1, "t.whl", &rows, &n, &err), SC_OK,
                   &err);
    CU_ASSERT_EQUAL_FATAL(n, 3);
    CU_ASSERT_STRING_EQUAL(rows[0].path, "a/b.py");
    CU_ASSERT_STRING_EQUAL(rows[0].sha256,
                           "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    CU_ASSERT_EQUAL(rows[0].size, 0);
    CU_ASSERT_STRING_EQUAL(rows[1].path, "with,comma \"q\".py");
    CU_ASSERT_EQUAL(rows[1].size, -1);
    CU_ASSERT_STRING_EQUAL(rows[2].sha256, "");
    sc_wheel_record_free(rows, n);
    static const char bad[] = "a.py,sha256=47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=,0\n";
    SC_EXPECT_CODE(sc_wheel_record_parse(bad, sizeof bad - 1, "t.whl", &rows, &n, &err),
                   SC_E_INVALID_WHEEL, &err);
    static const char hex[] =
        "a.py,sha256=E3B0C44298FC1C149AFBF4C8996FB92427AE41E4649B934CA495991B7852B855,0\n";
    SC_EXPECT_CODE(sc_wheel_record_parse(hex, sizeof hex - 1, "t.whl", &rows, &n, &err), SC_OK,
                   &err);
    CU_ASSERT_STRING_EQUAL(n == 1 ? rows[0].sha256 : "",
                           "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    sc_wheel_record_free(rows, n);
    static const char four[] = "a.py,,,\n";
    SC_EXPECT_CODE(sc_wheel_record_parse(four, sizeof four - 1, "t.whl", &rows, &n, &err),
                   SC_E_INVALID_WHEEL, &err);
}

static void test_entry_points_keep_only_scripts_sorted(void)
{
    static const char text[] = "# comment\n[console_scripts]\nzz = m.z:main [extra]\n"
                               "aa=m:f.g\n[gui_scripts]\n  gg = m:g  \n[other]\nbad/name = q\n";
    sc_wheel_entry_point *eps;
    size_t n;
    sc_error err;
    SC_EXPECT_CODE(sc_wheel_entry_points_parse(text, sizeof text - 1, "t.whl", &eps, &n, &err),
                   SC_OK, &err);
    CU_ASSERT_EQUAL_FATAL(n, 3);
    CU_ASSERT_STRING_EQUAL(eps[0].name, "aa");
    CU_ASSERT_STRING_EQUAL(eps[0].attr, "f.g");
    CU_ASSERT_STRING_EQUAL(eps[1].name, "gg");
    CU_ASSERT_EQUAL(eps[1].gui, 1);
    CU_ASSERT_STRING_EQUAL(eps[2].module, "m.z");
    CU_ASSERT_STRING_EQUAL(eps[2].attr, "main");
    sc_wheel_entry_points_free(eps, n);
    static const char dup[] = "[console_scripts]\na = m:f\n[gui_scripts]\na = m:g\n";
    SC_EXPECT_CODE(sc_wheel_entry_points_parse(dup, sizeof dup - 1, "t.whl", &eps, &n, &err),
                   SC_E_INVALID_WHEEL, &err);
    static const char nomod[] = "[console_scripts]\na = m\n";
    SC_EXPECT_CODE(sc_wheel_entry_points_parse(nomod, sizeof nomod - 1, "t.whl", &eps, &n, &err),
                   SC_E_INVALID_WHEEL, &err);
}

static void test_wheel_file_needs_version_1_and_root_is_purelib(void)
{
    sc_wheel_meta m;
    sc_error err;
    static const char ok[] = "Wheel-Version: 1.9\nRoot-Is-Purelib: False\n";
    SC_EXPECT_CODE(sc_wheel_meta_parse(ok, sizeof ok - 1, "t", &m, &err), SC_OK, &err);
    CU_ASSERT_EQUAL(m.version_minor, 9);
    CU_ASSERT_EQUAL(m.root_is_purelib, 0);
    static const char v2[] = "Wheel-Version: 2.0\nRoot-Is-Purelib: true\n";
    SC_EXPECT_CODE(sc_wheel_meta_parse(v2, sizeof v2 - 1, "t", &m, &err), SC_E_INVALID_WHEEL, &err);
    static const char bad[] = "Wheel-Version: 1.0\nRoot-Is-Purelib: yes\n";
    SC_EXPECT_CODE(sc_wheel_meta_parse(bad, sizeof bad - 1, "t", &m, &err), SC_E_INVALID_WHEEL,
                   &err);
    static const char body[] = "Wheel-Version: 1.0\n\nRoot-Is-Purelib: true\n"; /* body, not header */
    SC_EXPECT_CODE(sc_wheel_meta_parse(body, sizeof body - 1, "t", &m, &err), SC_E_INVALID_WHEEL,
                   &err);
}

/* ---- platforms and threads ------------------------------------------------------------- */

static void test_windows_launchers_are_script_files_beside_python(void)
{
    fx f;
    fx_init_for(&f, "windows-x86_64-cpu", "Lib/site-packages", "Scripts");
    sc_error err;
    char *w = gen(f.wheels, "demo", NULL, NULL);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w);
    SC_EXPECT_CODE(sc_wheel_install(w, NULL, f.prefix, &f.env, NULL, &err), SC_OK, &err);
    char *t = sc_test_read(f.prefix, "Scripts/demo-cli-script.py");
    CU_ASSERT_PTR_NOT_NULL(t ? strstr(t, "/python.exe\"") : NULL);
    free(t);
    t = sc_test_read(f.prefix, "Scripts/demo-gui-script.pyw");
    CU_ASSERT_PTR_NOT_NULL(t);
    free(t);
    /* #!python scripts are left as they are on Windows */
    t = sc_test_read(f.prefix, "Scripts/demo-script");
    CU_ASSERT_STRING_EQUAL(t ? t : "", "#!python\nprint('from demo-script')\n");
    free(t);
    t = sc_test_read(f.prefix, "Lib/site-packages/demo_pkg-1.0.dist-info/RECORD");
    CU_ASSERT_PTR_NOT_NULL(t ? strstr(t, "\n../../Scripts/demo-cli-script.py,sha256=") : NULL);
    free(t);
    free(w);
    fx_free(&f);
}

typedef struct job {
    const char *wheel;
    const char *prefix;
    const sc_wheel_env *env;
    sc_code rc;
    sc_error err;
} job;

static void *run_job(void *arg)
{
    job *j = arg;
    j->rc = sc_wheel_install(j->wheel, NULL, j->prefix, j->env, NULL, &j->err);
    return NULL;
}

static void test_several_threads_install_into_one_prefix(void)
{
    fx f;
    fx_init(&f);
    char *w[4];
    static const char *const names[] = {"--name=alpha", "--name=beta", "--name=gamma",
                                        "--name=delta"};
    for (int i = 0; i < 4; i++) {
        w[i] = gen(f.wheels, "pure", names[i], NULL);
        CU_ASSERT_PTR_NOT_NULL_FATAL(w[i]);
    }
    pthread_t th[4];
    job jobs[4];
    for (int i = 0; i < 4; i++) {
        jobs[i] = (job){w[i], f.prefix, &f.env, SC_OK, {0}};
        CU_ASSERT_EQUAL(pthread_create(&th[i], NULL, run_job, &jobs[i]), 0);
    }
    for (int i = 0; i < 4; i++) {
        pthread_join(th[i], NULL);
        SC_EXPECT_CODE(jobs[i].rc, SC_OK, &jobs[i].err);
    }
    char *t = sc_test_read(f.prefix, SITE "/gamma/sub/mod.py");
    CU_ASSERT_STRING_EQUAL(t ? t : "", "def f():\n    return 1\n");
    free(t);
    t = sc_test_read(f.prefix, SITE "/alpha-1.0.dist-info/RECORD");
    CU_ASSERT_PTR_NOT_NULL(t);
    free(t);
    for (int i = 0; i < 4; i++)
        free(w[i]);
    fx_free(&f);
}

void register_wheel_install_tests(void)
{
    CU_pSuite s = CU_add_suite("wheel-install", NULL, NULL);
    if (s == NULL)
        CU_FAIL_FATAL("CU_add_suite failed");
    SC_ADD_TEST(s, test_wheel_schemes_land_where_the_spec_maps_them);
    SC_ADD_TEST(s, test_installer_file_names_the_installer);
    SC_ADD_TEST(s, test_modes_are_explicit_whatever_the_umask);
    SC_ADD_TEST(s, test_python_shebang_script_is_written_as_the_trampoline);
    SC_ADD_TEST(s, test_entry_points_become_relocatable_launchers);
    SC_ADD_TEST(s, test_old_setuptools_script_gives_way_to_the_entry_point_launcher);
    SC_ADD_TEST(s, test_launcher_runs_the_function_with_the_sibling_python);
    SC_ADD_TEST(s, test_record_lists_every_installed_file_with_its_hash);
    SC_ADD_TEST(s, test_zip64_extra_fields_install_like_a_plain_zip);
    SC_ADD_TEST(s, test_data_descriptors_install_like_a_plain_zip);
    SC_ADD_TEST(s, test_dot_slash_member_names_install_like_plain_names);
    SC_ADD_TEST(s, test_install_is_deterministic_whatever_the_job_count_and_tz);
    SC_ADD_TEST(s, test_a_second_install_replaces_the_same_files);
    SC_ADD_TEST(s, test_pure_wheel_installs_the_files_pip_installs);
    SC_ADD_TEST(s, test_member_hash_differing_from_record_is_refused);
    SC_ADD_TEST(s, test_member_size_differing_from_record_is_refused);
    SC_ADD_TEST(s, test_member_missing_from_record_is_refused);
    SC_ADD_TEST(s, test_record_row_without_a_member_is_refused);
    SC_ADD_TEST(s, test_identical_record_rows_for_one_member_are_accepted);
    SC_ADD_TEST(s, test_record_hash_other_than_sha256_is_refused);
    SC_ADD_TEST(s, test_member_name_with_dotdot_is_refused);
    SC_ADD_TEST(s, test_absolute_member_name_is_refused);
    SC_ADD_TEST(s, test_member_name_with_backslash_is_refused);
    SC_ADD_TEST(s, test_wheel_version_other_than_1_is_refused);
    SC_ADD_TEST(s, test_wheel_without_root_is_purelib_is_refused);
    SC_ADD_TEST(s, test_unknown_data_scheme_is_refused);
    SC_ADD_TEST(s, test_entry_point_name_that_is_a_path_is_refused);
    SC_ADD_TEST(s, test_two_dist_info_directories_are_refused);
    SC_ADD_TEST(s, test_two_members_installing_to_one_path_are_refused);
    SC_ADD_TEST(s, test_member_installing_over_the_written_record_is_refused);
    SC_ADD_TEST(s, test_metadata_name_differing_from_the_file_name_is_refused);
    SC_ADD_TEST(s, test_symbolic_link_member_is_refused);
    SC_ADD_TEST(s, test_requires_python_excluding_the_interpreter_is_refused);
    SC_ADD_TEST(s, test_lock_requires_python_is_checked_before_download);
    SC_ADD_TEST(s, test_directory_where_a_file_goes_is_refused_before_anything_moves);
    SC_ADD_TEST(s, test_check_file_reads_requires_python_without_writing);
    SC_ADD_TEST(s, test_python_tags_must_run_on_the_locked_interpreter);
    SC_ADD_TEST(s, test_platform_tags_must_install_on_the_target);
    SC_ADD_TEST(s, test_location_that_is_not_a_wheel_name_is_refused);
    SC_ADD_TEST(s, test_requires_python_follows_pep_440);
    SC_ADD_TEST(s, test_record_parses_quoted_csv_and_urlsafe_sha256);
    SC_ADD_TEST(s, test_entry_points_keep_only_scripts_sorted);
    SC_ADD_TEST(s, test_wheel_file_needs_version_1_and_root_is_purelib);
    SC_ADD_TEST(s, test_windows_launchers_are_script_files_beside_python);
    SC_ADD_TEST(s, test_several_threads_install_into_one_prefix);
}
