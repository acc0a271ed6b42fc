/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test_requirements.c — requirements.txt read as conda-forge dependencies
 * (requirements.h): names, renames, specifiers, and every kind of line that
 * is reported instead of kept.
 */
#include <string.h>

#include "harness.h"
#include "scrollcase/requirements.h"

static sc_requirements parse(const char *text)
{
    sc_requirements r;
    sc_error err;
    CU_ASSERT_EQUAL_FATAL(sc_requirements_parse(text, strlen(text), &r, &err), SC_OK);
    return r;
}

static void requirements_names_are_lowercased_and_specs_lose_spaces(void)
{
    sc_requirements r = parse("NumPy >= 1.24 , < 2\nrequests\nPyYAML_x==6.0  # pinned\n\n");
    CU_ASSERT_EQUAL_FATAL(r.ndeps, 3);
    CU_ASSERT_STRING_EQUAL(r.deps[0].name, "numpy");
    CU_ASSERT_STRING_EQUAL(r.deps[0].spec, ">=1.24,<2");
    CU_ASSERT_STRING_EQUAL(r.deps[0].from, "NumPy");
    CU_ASSERT_STRING_EQUAL(r.deps[1].name, "requests");
    CU_ASSERT_STRING_EQUAL(r.deps[1].spec, "*");
    CU_ASSERT_PTR_NULL(r.deps[1].from);
    CU_ASSERT_STRING_EQUAL(r.deps[2].name, "pyyaml-x");
    CU_ASSERT_STRING_EQUAL(r.deps[2].spec, "==6.0");
    CU_ASSERT_EQUAL(r.nskipped, 0);
    sc_requirements_free(&r);
}

static void requirements_known_pypi_names_become_conda_forge_names(void)
{
    sc_requirements r = parse("torch==2.3.1\nopencv-python-headless\ntables\nmsgpack\n"
                              "psycopg2-binary\n");
    CU_ASSERT_EQUAL_FATAL(r.ndeps, 5);
    const char *want[] = {"pytorch", "opencv", "pytables", "msgpack-python", "psycopg2"};
    for (size_t i = 0; i < 5; i++)
        CU_ASSERT_STRING_EQUAL(r.deps[i].name, want[i]);
    CU_ASSERT_STRING_EQUAL(r.deps[0].from, "torch");
    CU_ASSERT_STRING_EQUAL(r.deps[0].spec, "==2.3.1");
    sc_requirements_free(&r);
}

static void requirements_markers_are_dropped_extras_reported(void)
{
    sc_requirements r = parse("uvicorn[standard]>=0.30; python_version < \"3.12\"\n");
    CU_ASSERT_EQUAL_FATAL(r.ndeps, 1);
    CU_ASSERT_STRING_EQUAL(r.deps[0].name, "uvicorn");
    CU_ASSERT_STRING_EQUAL(r.deps[0].spec, ">=0.30");
    CU_ASSERT_EQUAL_FATAL(r.nskipped, 1);
    CU_ASSERT_STRING_EQUAL(r.skipped[0].line, "uvicorn[standard]");
    sc_requirements_free(&r);
}

static void requirements_pip_options_urls_and_bad_names_are_reported(void)
{
    sc_requirements r = parse("-r base.txt\n--index-url https://x.invalid/simple\n"
                              "git+https://x.invalid/a.git\nlocal @ file:///tmp/a\n"
                              ".hidden\nok\nbad==\"1\"\n");
    CU_ASSERT_EQUAL_FATAL(r.ndeps, 1);
    CU_ASSERT_STRING_EQUAL(r.deps[0].name, "ok");
    CU_ASSERT_EQUAL_FATAL(r.nskipped, 6);
    CU_ASSERT_STRING_EQUAL(r.skipped[0].line, "-r base.txt");
    CU_ASSERT_STRING_EQUAL(r.skipped[2].line, "git+https://x.invalid/a.git");
    CU_ASSERT_STRING_EQUAL(r.skipped[3].line, "local @ file:///tmp/a");
    CU_ASSERT_STRING_EQUAL(r.skipped[4].line, ".hidden");
    CU_ASSERT_STRING_EQUAL(r.skipped[5].line, "bad==\"1\"");
    for (size_t i = 0; i < r.nskipped; i++)
        CU_ASSERT(r.skipped[i].reason != NULL && r.skipped[i].reason[0] != '\0');
    sc_requirements_free(&r);
}

static void requirements_empty_text_is_no_dependency(void)
{
    sc_requirements r = parse("# nothing\n   \n");
    CU_ASSERT_EQUAL(r.ndeps, 0);
    CU_ASSERT_EQUAL(r.nskipped, 0);
    sc_requirements_free(&r);
    sc_error err;
    CU_ASSERT_EQUAL(sc_requirements_parse("a\0b", 3, &r, &err), SC_OK);
    CU_ASSERT_EQUAL_FATAL(r.ndeps, 1); /* a NUL ends the line as a comment does */
    CU_ASSERT_STRING_EQUAL(r.deps[0].name, "a");
    sc_requirements_free(&r);
}

void register_requirements_tests(void)
{
    CU_pSuite s = CU_add_suite("requirements", NULL, NULL);
    if (s == NULL)
        CU_FAIL_FATAL("CU_add_suite failed");
    SC_ADD_TEST(s, requirements_names_are_lowercased_and_specs_lose_spaces);
    SC_ADD_TEST(s, requirements_known_pypi_names_become_conda_forge_names);
    SC_ADD_TEST(s, requirements_markers_are_dropped_extras_reported);
    SC_ADD_TEST(s, requirements_pip_options_urls_and_bad_names_are_reported);
    SC_ADD_TEST(s, requirements_empty_text_is_no_dependency);
}
