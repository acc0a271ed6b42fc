/* SPDX-License-Identifier: Apache-2.0 */
/*
 * target.c — the closed target matrix.
 *
 * Guarantees: see target.h.  All facts live in the tables below; nothing is
 * derived from the host.
 */
#include "scrollcase/target.h"

#include <stdio.h>
#include <string.h>

static const char *const platform_names[] = {"macos", "linux", "windows"};
static const char *const arch_names[] = {"aarch64", "x86_64"};
static const char *const accel_names[] = {"cpu", "metal", "cuda"};

/* One row per platform/arch pair of the matrix. */
struct adapter {
    sc_platform platform;
    sc_arch arch;
    unsigned accelerators; /* bit per sc_accel */
    const char *id;
    const char *conda_subdir;
    const char *entry_point;
    const char *scripts_dir;
    const char *exe_suffix;
    const char *launcher_kind;
    const char *assertion;
    const char *const *affecting;
};

static const char *const affecting_macos[] = {
    "PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "PYTHONBREAKPOINT",
    "DYLD_INSERT_LIBRARIES", NULL};
static const char *const affecting_linux[] = {
    "PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "PYTHONBREAKPOINT",
    "LD_PRELOAD", NULL};
static const char *const affecting_windows[] = {
    "PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "PYTHONBREAKPOINT", NULL};

#define BIT(a) (1u << (a))

static const struct adapter adapters[] = {
    {SC_PLATFORM_MACOS, SC_ARCH_AARCH64, BIT(SC_ACCEL_METAL) | BIT(SC_ACCEL_CPU),
     "macos-aarch64", "osx-arm64", "venv/bin/python", "venv/bin", "",
     "posix-polyglot", "import sys; assert sys.platform == 'darwin'",
     affecting_macos},
    {SC_PLATFORM_LINUX, SC_ARCH_X86_64, BIT(SC_ACCEL_CPU) | BIT(SC_ACCEL_CUDA),
     "linux-x86_64", "linux-64", "venv/bin/python", "venv/bin", "",
     "posix-polyglot", "import sys; assert sys.platform.startswith('linux')",
     affecting_linux},
    {SC_PLATFORM_WINDOWS, SC_ARCH_X86_64, BIT(SC_ACCEL_CPU) | BIT(SC_ACCEL_CUDA),
     "windows-x86_64", "win-64", "venv/python.exe", "venv/Scripts", ".exe",
     "uv-windows-pe", "import sys; assert sys.platform == 'win32'",
     affecting_windows},
};

static const sc_env_pair env_cpu[] = {{"CUDA_VISIBLE_DEVICES", ""}};
static const sc_env_pair env_cuda[] = {{"CUDA_VISIBLE_DEVICES", "0"}};
static const sc_env_pair env_metal[] = {{"PYTORCH_ENABLE_MPS_FALLBACK", "0"}};

static const struct adapter *adapter_of(const sc_target *t)
{
    for (size_t i = 0; i < sizeof adapters / sizeof adapters[0]; i++)
        if (adapters[i].platform == t->platform && adapters[i].arch == t->arch)
            return &adapters[i];
    return NULL;
}

const char *sc_platform_name(sc_platform p)
{
    return (unsigned)p < 3 ? platform_names[p] : "?";
}

const char *sc_arch_name(sc_arch a)
{
    return (unsigned)a < 2 ? arch_names[a] : "?";
}

const char *sc_accel_name(sc_accel a)
{
    return (unsigned)a < 3 ? accel_names[a] : "?";
}

int sc_cuda_version_valid(const char *s)
{
    if (s == NULL || *s < '1' || *s > '9')
        return 0;
    s++;
    while (*s >= '0' && *s <= '9')
        s++;
    if (*s++ != '.')
        return 0;
    if (*s < '0' || *s > '9')
        return 0;
    while (*s >= '0' && *s <= '9')
        s++;
    return *s == '\0';
}

static int lookup(const char *const *names, size_t n, const char *s)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(names[i], s) == 0)
            return (int)i;
    return -1;
}

/* The triple as written, for messages, when it is not in the matrix. */
static sc_code unsupported(sc_error *err, const char *field, const char *p,
                           const char *a, const char *acc)
{
    return sc_error_set(err, SC_E_UNSUPPORTED_TARGET, field,
                        "%s: unsupported box target %s/%s/%s", field, p, a, acc);
}

sc_code sc_target_check(const sc_target *t, const char *field, sc_error *err)
{
    const struct adapter *ad = adapter_of(t);
    if (ad == NULL || !(ad->accelerators & BIT(t->accelerator)))
        return unsupported(err, field, sc_platform_name(t->platform),
                           sc_arch_name(t->arch), sc_accel_name(t->accelerator));
    if (t->accelerator == SC_ACCEL_CUDA) {
        if (!sc_cuda_version_valid(t->cuda_version))
            return sc_error_set(err, SC_E_INVALID_TARGET, field,
                                "%s: a CUDA box target requires a numeric "
                                "major.minor cudaVersion", field);
    } else if (t->cuda_version[0] != '\0') {
        return sc_error_set(err, SC_E_INVALID_TARGET, field,
                            "%s: only CUDA box targets may declare a cudaVersion",
                            field);
    }
    return SC_OK;
}

sc_code sc_target_from_json(const sc_json *v, const char *field, sc_target *out,
                            sc_error *err)
{
    static const char *const keys[] = {"platform", "arch", "accelerator",
                                       "cudaVersion"};
    if (!sc_json_is(v, SC_JSON_OBJECT))
        return sc_error_set(err, SC_E_INVALID_TARGET, field,
                            "%s must be an object, received %s", field,
                            sc_json_type_name(v));
    for (const sc_json *m = v->child; m; m = m->next)
        if (lookup(keys, 4, m->key) < 0 || strlen(m->key) != m->key_length)
            return sc_error_set(err, SC_E_INVALID_TARGET, field,
                                "%s.%s is not allowed", field, m->key);
    const char *s[4] = {NULL, NULL, NULL, NULL};
    size_t len[4] = {0, 0, 0, 0};
    for (int i = 0; i < 4; i++) {
        const sc_json *m = sc_json_get(v, keys[i]);
        if (m == NULL) {
            if (i < 3)
                return sc_error_set(err, SC_E_INVALID_TARGET, field,
                                    "%s.%s is required", field, keys[i]);
            continue;
        }
        if (!sc_json_is(m, SC_JSON_STRING))
            return sc_error_set(err, SC_E_INVALID_TARGET, field,
                                "%s.%s must be a string, received %s", field,
                                keys[i], sc_json_type_name(m));
        s[i] = m->string;
        len[i] = m->length;
    }
    /* A name with an embedded NUL is no name of the matrix. */
    int p = strlen(s[0]) == len[0] ? lookup(platform_names, 3, s[0]) : -1;
    int a = strlen(s[1]) == len[1] ? lookup(arch_names, 2, s[1]) : -1;
    int acc = strlen(s[2]) == len[2] ? lookup(accel_names, 3, s[2]) : -1;
    if (p < 0 || a < 0 || acc < 0)
        return unsupported(err, field, s[0], s[1], s[2]);
    memset(out, 0, sizeof *out);
    out->platform = (sc_platform)p;
    out->arch = (sc_arch)a;
    out->accelerator = (sc_accel)acc;
    /* The matrix first, then the cudaVersion rule on what was declared. */
    const struct adapter *ad = adapter_of(out);
    if (ad == NULL || !(ad->accelerators & BIT(out->accelerator)))
        return unsupported(err, field, s[0], s[1], s[2]);
    if (s[3] != NULL && out->accelerator != SC_ACCEL_CUDA)
        return sc_error_set(err, SC_E_INVALID_TARGET, field,
                            "%s: only CUDA box targets may declare a cudaVersion",
                            field);
    if (s[3] != NULL && len[3] < sizeof out->cuda_version && strlen(s[3]) == len[3])
        memcpy(out->cuda_version, s[3], strlen(s[3]) + 1);
    else if (s[3] != NULL)
        memcpy(out->cuda_version, "x", 2); /* too long or NUL: fails the rule below */
    return sc_target_check(out, field, err);
}

sc_json *sc_target_to_json(const sc_target *t)
{
    sc_json *o = sc_json_new_object();
    if (o == NULL)
        return NULL;
    if (sc_json_object_append(o, "platform", sc_json_new_string(sc_platform_name(t->platform))) ||
        sc_json_object_append(o, "arch", sc_json_new_string(sc_arch_name(t->arch))) ||
        sc_json_object_append(o, "accelerator", sc_json_new_string(sc_accel_name(t->accelerator))) ||
        (t->accelerator == SC_ACCEL_CUDA &&
         sc_json_object_append(o, "cudaVersion", sc_json_new_string(t->cuda_version)))) {
        sc_json_free(o);
        return NULL;
    }
    return o;
}

void sc_target_id(const sc_target *t, char *buf, size_t size)
{
    if (t->accelerator == SC_ACCEL_CUDA)
        snprintf(buf, size, "%s-%s-cuda%s", sc_platform_name(t->platform),
                 sc_arch_name(t->arch), t->cuda_version);
    else
        snprintf(buf, size, "%s-%s-%s", sc_platform_name(t->platform),
                 sc_arch_name(t->arch), sc_accel_name(t->accelerator));
}

unsigned sc_target_cuda_major(const sc_target *t)
{
    unsigned major = 0;
    if (t->accelerator != SC_ACCEL_CUDA)
        return 0;
    for (const char *p = t->cuda_version; *p >= '0' && *p <= '9' && major < 100000; p++)
        major = major * 10 + (unsigned)(*p - '0');
    return major;
}

sc_code sc_target_parse_id(const char *id, sc_target *out, sc_error *err)
{
    memset(out, 0, sizeof *out);
    for (size_t i = 0; i < sizeof adapters / sizeof adapters[0]; i++) {
        const struct adapter *ad = &adapters[i];
        size_t n = strlen(ad->id);
        if (strncmp(id, ad->id, n) != 0 || id[n] != '-')
            continue;
        const char *rest = id + n + 1;
        out->platform = ad->platform;
        out->arch = ad->arch;
        if (strncmp(rest, "cuda", 4) == 0 && rest[4] != '\0') {
            out->accelerator = SC_ACCEL_CUDA;
            if (strlen(rest + 4) >= sizeof out->cuda_version)
                return sc_error_set(err, SC_E_INVALID_TARGET, id,
                                    "target id %s: a CUDA box target requires a "
                                    "numeric major.minor cudaVersion", id);
            memcpy(out->cuda_version, rest + 4, strlen(rest + 4) + 1);
            return sc_target_check(out, "target id", err);
        }
        int acc = lookup(accel_names, 3, rest);
        if (acc < 0 || acc == SC_ACCEL_CUDA)
            break;
        out->accelerator = (sc_accel)acc;
        return sc_target_check(out, "target id", err);
    }
    return sc_error_set(err, SC_E_UNSUPPORTED_TARGET, id,
                        "unsupported box target id %s", id);
}

#define ADAPTER_FACT(fn, member)                                             \
    const char *fn(const sc_target *t)                                       \
    {                                                                        \
        const struct adapter *ad = adapter_of(t);                            \
        return ad ? ad->member : NULL;                                       \
    }

ADAPTER_FACT(sc_target_adapter_id, id)
ADAPTER_FACT(sc_target_conda_subdir, conda_subdir)
ADAPTER_FACT(sc_target_python_entry_point, entry_point)
ADAPTER_FACT(sc_target_scripts_dir, scripts_dir)
ADAPTER_FACT(sc_target_exe_suffix, exe_suffix)
ADAPTER_FACT(sc_target_launcher_kind, launcher_kind)
ADAPTER_FACT(sc_target_self_test_assertion, assertion)

const char *sc_target_payload_root(const sc_target *t)
{
    return adapter_of(t) ? "venv" : NULL;
}

const sc_env_pair *sc_target_validation_environment(const sc_target *t,
                                                    size_t *count)
{
    *count = 1;
    switch (t->accelerator) {
    case SC_ACCEL_CUDA:
        return env_cuda;
    case SC_ACCEL_METAL:
        return env_metal;
    case SC_ACCEL_CPU:
    default:
        return env_cpu;
    }
}

int sc_platform_validates_accelerator(sc_platform p, sc_accel a)
{
    if (a == SC_ACCEL_CPU)
        return 1;
    if (p == SC_PLATFORM_MACOS)
        return a == SC_ACCEL_METAL;
    return a == SC_ACCEL_CUDA;
}

const char *const *sc_target_execution_affecting_variables(const sc_target *t)
{
    const struct adapter *ad = adapter_of(t);
    return ad ? ad->affecting : NULL;
}

static int add_str(sc_json *o, const char *k, const char *v)
{
    return sc_json_object_append(o, k, sc_json_new_string(v));
}

sc_json *sc_target_describe(const sc_target *t)
{
    char id[SC_TARGET_ID_MAX];
    sc_target_id(t, id, sizeof id);
    sc_json *o = sc_json_new_object();
    sc_json *env = sc_json_new_object();
    sc_json *vars = sc_json_new_array();
    sc_json *tj = sc_target_to_json(t);
    int bad = o == NULL || env == NULL || vars == NULL || tj == NULL;
    if (!bad) {
        size_t n = 0;
        const sc_env_pair *pairs = sc_target_validation_environment(t, &n);
        for (size_t i = 0; i < n; i++)
            bad |= add_str(env, pairs[i].name, pairs[i].value);
        for (const char *const *v = sc_target_execution_affecting_variables(t); v && *v; v++)
            bad |= sc_json_array_append(vars, sc_json_new_string(*v));
    }
    if (bad) {
        sc_json_free(o);
        sc_json_free(env);
        sc_json_free(vars);
        sc_json_free(tj);
        return NULL;
    }
    bad |= add_str(o, "targetId", id);
    bad |= sc_json_object_append(o, "target", tj);
    bad |= add_str(o, "adapterId", sc_target_adapter_id(t));
    bad |= add_str(o, "condaSubdir", sc_target_conda_subdir(t));
    bad |= add_str(o, "payloadRoot", sc_target_payload_root(t));
    bad |= add_str(o, "pythonEntryPoint", sc_target_python_entry_point(t));
    bad |= add_str(o, "scriptsDir", sc_target_scripts_dir(t));
    bad |= add_str(o, "exeSuffix", sc_target_exe_suffix(t));
    bad |= add_str(o, "launcherKind", sc_target_launcher_kind(t));
    bad |= add_str(o, "selfTestAssertion", sc_target_self_test_assertion(t));
    bad |= sc_json_object_append(o, "validationEnvironment", env);
    bad |= sc_json_object_append(o, "executionAffectingVariables", vars);
    if (bad) {
        sc_json_free(o);
        return NULL;
    }
    return o;
}
