/* SPDX-License-Identifier: Apache-2.0 */
/*
 * compat.c — host verdicts (docs/format-v3.md 18).
 *
 * Guarantees: see compat.h.  The constraints are evaluated in the order of
 * the table in 18.3 and every one is reported, so a verdict lists all that
 * the host breaks, not only the first.  Nothing here reads the host except
 * sc_host_facts_gather.
 */
#include "scrollcase/compat.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "scrollcase/fatbin.h"
#include "scrollcase/file.h"
#include "scrollcase/manifest.h"

/* ---- versions ------------------------------------------------------------ */

static int dotted(const char *s)
{
    if (s == NULL || !isdigit((unsigned char)*s))
        return 0;
    for (; *s != '\0'; s++) {
        if (*s == '.') {
            if (!isdigit((unsigned char)s[1]))
                return 0;
        } else if (!isdigit((unsigned char)*s)) {
            return 0;
        }
    }
    return 1;
}

int sc_version_compare(const char *a, const char *b, int *cmp)
{
    if (!dotted(a) || !dotted(b))
        return 0;
    while (*a != '\0' || *b != '\0') {
        /* One component of each (an exhausted side is 0). */
        while (*a == '0' && isdigit((unsigned char)a[1]))
            a++;
        while (*b == '0' && isdigit((unsigned char)b[1]))
            b++;
        size_t na = strspn(a, "0123456789"), nb = strspn(b, "0123456789");
        int c;
        if (na == 0 && nb == 0)
            c = 0;
        else if (na == 0)
            c = (nb == 1 && *b == '0') ? 0 : -1;
        else if (nb == 0)
            c = (na == 1 && *a == '0') ? 0 : 1;
        else if (na != nb)
            c = na < nb ? -1 : 1;
        else
            c = memcmp(a, b, na);
        if (c != 0) {
            *cmp = c < 0 ? -1 : 1;
            return 1;
        }
        a += na;
        b += nb;
        if (*a == '.')
            a++;
        if (*b == '.')
            b++;
    }
    *cmp = 0;
    return 1;
}

/* ---- host facts (18.1) ---------------------------------------------------- */

void sc_host_facts_free(sc_host_facts *h)
{
    if (h != NULL)
        sc_gpu_facts_free(&h->gpu);
}

static sc_code bad_facts(sc_error *err, const char *field, const char *why)
{
    return sc_error_set(err, SC_E_INVALID_HOST_FACTS, field, "host facts: %s %s", field, why);
}

/* A text member (non-empty, no NUL, shorter than size) copied into out. */
static sc_code text_into(const sc_json *v, const char *field, char *out, size_t size,
                         sc_error *err)
{
    if (!sc_json_is(v, SC_JSON_STRING))
        return bad_facts(err, field, "must be a string");
    if (v->length == 0 || strlen(v->string) != v->length)
        return bad_facts(err, field, "must be non-empty text without NUL");
    if (v->length >= size)
        return bad_facts(err, field, "is too long");
    memcpy(out, v->string, v->length + 1);
    return SC_OK;
}

/* "^[0-9]+\.[0-9]+$" with a major below 10^6 and a minor below limit_minor. */
static int major_minor(const sc_json *v, int limit_minor, int *major, int *minor)
{
    const char *s = sc_json_cstr(v);
    if (s == NULL)
        return 0;
    long ma = 0, mi = 0;
    size_t i = 0, n;
    for (n = 0; isdigit((unsigned char)s[i]); i++, n++)
        if (n < 7)
            ma = ma * 10 + (s[i] - '0');
    if (n == 0 || n > 6 || s[i] != '.')
        return 0;
    i++;
    for (n = 0; isdigit((unsigned char)s[i]); i++, n++)
        if (n < 7)
            mi = mi * 10 + (s[i] - '0');
    if (n == 0 || n > 6 || s[i] != '\0' || mi >= limit_minor)
        return 0;
    *major = (int)ma;
    *minor = (int)mi;
    return 1;
}

static sc_code gpu_from_json(const sc_json *g, sc_gpu_facts *f, sc_error *err)
{
    if (!sc_json_is(g, SC_JSON_OBJECT))
        return bad_facts(err, "gpu", "must be an object");
    const char *status = sc_json_cstr(sc_json_get(g, "status"));
    if (status == NULL)
        return bad_facts(err, "gpu.status", "must be \"ok\", \"absent\" or \"unprobed\"");
    if (strcmp(status, "ok") != 0) {
        if (strcmp(status, "absent") == 0)
            f->status = SC_GPU_ABSENT;
        else if (strcmp(status, "unprobed") == 0)
            f->status = SC_GPU_UNPROBED;
        else
            return bad_facts(err, "gpu.status", "must be \"ok\", \"absent\" or \"unprobed\"");
        const sc_json *reason = sc_json_get(g, "reason");
        if (reason == NULL)
            return bad_facts(err, "gpu.reason", "is required when the GPU is not usable");
        sc_code c = text_into(reason, "gpu.reason", f->reason, sizeof f->reason, err);
        if (c != SC_OK)
            return c;
        for (const sc_json *m = g->child; m != NULL; m = m->next)
            if (strcmp(m->key, "status") != 0 && strcmp(m->key, "reason") != 0)
                return bad_facts(err, "gpu", "has a member not allowed when not usable");
        return SC_OK;
    }
    f->status = SC_GPU_OK;
    const sc_json *cv = sc_json_get(g, "cudaVersion");
    int major = 0, minor = 0;
    if (!major_minor(cv, 100, &major, &minor))
        return bad_facts(err, "gpu.cudaVersion",
                         "must be \"<major>.<minor>\" (at most 6 and 2 digits)");
    f->cuda_version = major * 1000 + minor * 10;
    const sc_json *dv = sc_json_get(g, "driverVersion");
    if (dv != NULL) {
        sc_code c = text_into(dv, "gpu.driverVersion", f->driver_version,
                              sizeof f->driver_version, err);
        if (c != SC_OK)
            return c;
    }
    const sc_json *devs = sc_json_get(g, "devices");
    if (!sc_json_is(devs, SC_JSON_ARRAY))
        return bad_facts(err, "gpu.devices", "must be an array");
    for (const sc_json *m = g->child; m != NULL; m = m->next)
        if (strcmp(m->key, "status") != 0 && strcmp(m->key, "cudaVersion") != 0 &&
            strcmp(m->key, "driverVersion") != 0 && strcmp(m->key, "devices") != 0)
            return bad_facts(err, "gpu", "has a member that is not allowed");
    if (devs->length > 0) {
        f->devices = calloc(devs->length, sizeof *f->devices);
        if (f->devices == NULL)
            return sc_error_set(err, SC_E_OUT_OF_MEMORY, "gpu.devices", "out of memory");
    }
    for (const sc_json *d = devs->child; d != NULL; d = d->next) {
        sc_gpu_device *out = &f->devices[f->device_count];
        if (!sc_json_is(d, SC_JSON_OBJECT) || d->length != 3)
            return bad_facts(err, "gpu.devices[]",
                             "must be {name, computeCapability, memoryBytes}");
        const sc_json *name = sc_json_get(d, "name");
        uint64_t mem = 0;
        if (name == NULL || !sc_json_uint53(sc_json_get(d, "memoryBytes"), &mem) ||
            !major_minor(sc_json_get(d, "computeCapability"), 1000000, &out->cc_major,
                         &out->cc_minor))
            return bad_facts(err, "gpu.devices[]",
                             "must be {name, computeCapability: \"<major>.<minor>\", "
                             "memoryBytes: integer}");
        sc_code c = text_into(name, "gpu.devices[].name", out->name, sizeof out->name, err);
        if (c != SC_OK)
            return c;
        out->memory_bytes = mem;
        f->device_count++;
    }
    return SC_OK;
}

sc_code sc_host_facts_from_json(const sc_json *doc, sc_host_facts *h, sc_error *err)
{
    memset(h, 0, sizeof *h);
    h->gpu.status = SC_GPU_UNPROBED;
    if (!sc_json_is(doc, SC_JSON_OBJECT))
        return bad_facts(err, "$", "must be an object");
    const sc_json *p = sc_json_get(doc, "platform"), *a = sc_json_get(doc, "arch");
    if (p == NULL)
        return bad_facts(err, "platform", "is required");
    if (a == NULL)
        return bad_facts(err, "arch", "is required");
    sc_code c = SC_OK;
    for (const sc_json *m = doc->child; c == SC_OK && m != NULL; m = m->next) {
        const char *k = m->key;
        if (strlen(k) != m->key_length)
            c = bad_facts(err, "$", "has a member not allowed");
        else if (strcmp(k, "platform") == 0)
            c = text_into(m, k, h->platform, sizeof h->platform, err);
        else if (strcmp(k, "arch") == 0)
            c = text_into(m, k, h->arch, sizeof h->arch, err);
        else if (strcmp(k, "hostEnvironment") == 0)
            c = text_into(m, k, h->host_environment, sizeof h->host_environment, err);
        else if (strcmp(k, "hostAppVersion") == 0)
            c = text_into(m, k, h->host_app_version, sizeof h->host_app_version, err);
        else if (strcmp(k, "macosVersion") == 0)
            c = text_into(m, k, h->macos_version, sizeof h->macos_version, err);
        else if (strcmp(k, "ramGb") == 0) {
            if (m->type != SC_JSON_NUMBER || !(m->number >= 0))
                c = bad_facts(err, k, "must be a number at least 0");
            h->has_ram = 1;
            h->ram_gb = m->number;
        } else if (strcmp(k, "gpu") == 0) {
            h->has_gpu = 1;
            c = gpu_from_json(m, &h->gpu, err);
        } else {
            c = sc_error_set(err, SC_E_INVALID_HOST_FACTS, k,
                             "host facts: member %s is not allowed", k);
        }
    }
    if (c != SC_OK)
        sc_host_facts_free(h);
    return c;
}

sc_code sc_host_facts_read_file(const char *path, sc_host_facts *h, sc_error *err)
{
    memset(h, 0, sizeof *h);
    sc_json *doc = NULL;
    sc_code c = sc_json_parse_file(path, &doc, err);
    if (c != SC_OK)
        return c;
    c = sc_host_facts_from_json(doc, h, err);
    sc_json_free(doc);
    if (c != SC_OK)
        sc_error_prefix(err, path);
    return c;
}

sc_code sc_host_facts_set_app_version(sc_host_facts *h, const char *version,
                                      sc_error *err)
{
    size_t n = version != NULL ? strlen(version) : 0;
    if (n == 0)
        return bad_facts(err, "hostAppVersion", "must be non-empty text without NUL");
    if (n >= sizeof h->host_app_version)
        return bad_facts(err, "hostAppVersion", "is too long");
    memcpy(h->host_app_version, version, n + 1);
    return SC_OK;
}

/* ---- live facts (18.2) ----------------------------------------------------- */

static void lower_into(char *out, size_t size, const char *s)
{
    size_t i = 0;
    for (; s[i] != '\0' && i + 1 < size; i++)
        out[i] = (char)tolower((unsigned char)s[i]);
    out[i] = '\0';
}

sc_code sc_host_facts_gather(const sc_gpu_probe_options *probe, sc_host_facts *h,
                             sc_error *err)
{
    memset(h, 0, sizeof *h);
    struct utsname u;
    if (uname(&u) == 0) {
        if (strcmp(u.sysname, "Linux") == 0)
            snprintf(h->platform, sizeof h->platform, "linux");
        else if (strcmp(u.sysname, "Darwin") == 0)
            snprintf(h->platform, sizeof h->platform, "macos");
        else
            lower_into(h->platform, sizeof h->platform, u.sysname);
        if (strcmp(u.machine, "arm64") == 0)
            snprintf(h->arch, sizeof h->arch, "aarch64");
        else
            snprintf(h->arch, sizeof h->arch, "%s", u.machine);
    }
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    if (pages > 0 && page > 0) {
        h->has_ram = 1;
        h->ram_gb = (double)pages * (double)page / (1024.0 * 1024.0 * 1024.0);
    }
    snprintf(h->host_environment, sizeof h->host_environment, "native");
    if (strcmp(h->platform, "linux") == 0) {
        char *rel = NULL;
        size_t n = 0;
        sc_error ignored;
        if (sc_file_read("/proc/sys/kernel/osrelease", &rel, &n, NULL, &ignored) == SC_OK) {
            char low[256];
            lower_into(low, sizeof low, rel);
            if (strstr(low, "microsoft") != NULL || strstr(low, "wsl") != NULL)
                snprintf(h->host_environment, sizeof h->host_environment, "windows-wsl2");
            free(rel);
        }
    }
    h->has_gpu = 1;
    sc_error perr;
    sc_code c = sc_gpu_probe(probe, &h->gpu, &perr);
    if (c == SC_E_OUT_OF_MEMORY) {
        *err = perr;
        sc_host_facts_free(h);
        return c;
    }
    return SC_OK; /* an unusable GPU is a fact of this host */
}

static int put_text(sc_json *o, const char *key, const char *s)
{
    return s[0] == '\0' ? 0 : sc_json_object_append(o, key, sc_json_new_string(s));
}

sc_json *sc_host_facts_json(const sc_host_facts *h)
{
    sc_json *o = sc_json_new_object();
    if (o == NULL)
        return NULL;
    int bad = put_text(o, "platform", h->platform) | put_text(o, "arch", h->arch);
    bad |= put_text(o, "hostEnvironment", h->host_environment);
    bad |= put_text(o, "hostAppVersion", h->host_app_version);
    bad |= put_text(o, "macosVersion", h->macos_version);
    if (h->has_ram)
        bad |= sc_json_object_append(o, "ramGb", sc_json_new_number(h->ram_gb));
    if (h->has_gpu)
        bad |= sc_json_object_append(o, "gpu", sc_gpu_facts_json(&h->gpu));
    if (bad) {
        sc_json_free(o);
        return NULL;
    }
    return o;
}

/* ---- verdicts (18.3) -------------------------------------------------------- */

typedef struct eval {
    sc_json *refusals, *pending;
    int oom;
} eval;

static void refuse(eval *e, const char *constraint, const char *fact, sc_json *value,
                   const char *required)
{
    sc_json *item = sc_json_new_object();
    if (value == NULL)
        value = sc_json_new_null();
    int bad = item == NULL || value == NULL;
    if (!bad) {
        bad |= sc_json_object_append(item, "constraint", sc_json_new_string(constraint));
        bad |= sc_json_object_append(item, "fact", sc_json_new_string(fact));
        bad |= sc_json_object_append(item, "value", value);
        value = NULL;
        bad |= sc_json_object_append(item, "required", sc_json_new_string(required));
    }
    if (bad || sc_json_array_append(e->refusals, item) != 0) {
        sc_json_free(item);
        e->oom = 1;
    }
    sc_json_free(value);
}

static void pend(eval *e, const char *constraint, const char *fact, const char *required)
{
    sc_json *item = sc_json_new_object();
    int bad = item == NULL;
    bad = bad || sc_json_object_append(item, "constraint", sc_json_new_string(constraint));
    bad = bad || sc_json_object_append(item, "fact", sc_json_new_string(fact));
    bad = bad || sc_json_object_append(item, "required", sc_json_new_string(required));
    if (bad || sc_json_array_append(e->pending, item) != 0) {
        sc_json_free(item);
        e->oom = 1;
    }
}

static sc_json *text_or_null(const char *s)
{
    return s[0] == '\0' ? sc_json_new_null() : sc_json_new_string(s);
}

/* A version constraint: value must compare op (">=": >= 0, "<": < 0) to bound. */
static void version_rule(eval *e, const char *constraint, const char *fact,
                         const char *value, const char *op, const char *bound)
{
    char required[256];
    snprintf(required, sizeof required, "%s %s", op, bound);
    int cmp = 0;
    int ok = value[0] != '\0' && sc_version_compare(value, bound, &cmp) &&
             (op[0] == '<' ? cmp < 0 : cmp >= 0);
    if (!ok)
        refuse(e, constraint, fact, text_or_null(value), required);
}

static const char *const known_compatibility[] = {
    "minHostAppVersion", "maxHostAppVersionExclusive", "minMacosVersion",
    "minNvidiaDriverVersion", "minRamGb", "hostEnvironments", NULL};

static int known(const char *key)
{
    for (size_t i = 0; known_compatibility[i] != NULL; i++)
        if (strcmp(key, known_compatibility[i]) == 0)
            return 1;
    return 0;
}

/*
 * The device constraints (18.3 rows 8-10): a fact that only the GPU probe
 * gives.  Returns 1 when evaluation should go on (facts usable), after
 * recording a pending or a refusal otherwise.
 */
static int device_facts(eval *e, const sc_host_facts *h, const char *constraint,
                        const char *fact, const char *required)
{
    if (h->has_gpu && h->gpu.status == SC_GPU_UNPROBED) {
        pend(e, constraint, fact, required);
        return 0;
    }
    if (!h->has_gpu || h->gpu.status != SC_GPU_OK) {
        sc_json *v = (h->has_gpu && strcmp(fact, "gpuCount") == 0) ? sc_json_new_number(0)
                                                                   : sc_json_new_null();
        refuse(e, constraint, fact, v, required);
        return 0;
    }
    return 1;
}

/* ---- coverage by compute capability (19.11, 18.3 row 11) ------------------ */

int sc_cuda_code_runs_on(const sc_cuda_code *code, int major, int minor)
{
    int x = (int)(code->arch / 10), y = (int)(code->arch % 10);
    if (code->variant == SC_CUDA_VARIANT_ARCH)
        return major == x && minor == y;
    if (code->variant == SC_CUDA_VARIANT_FAMILY || code->kind == SC_FATBIN_CUBIN)
        return major == x && minor >= y;
    return major > x || (major == x && minor >= y);
}

/* 1 when an entry of the list (names of a valid release) runs on major.minor. */
static int list_runs_on(const sc_json *list, int major, int minor)
{
    for (const sc_json *e = list != NULL ? list->child : NULL; e != NULL; e = e->next) {
        sc_cuda_code code;
        if (sc_json_cstr(e) != NULL && sc_cuda_code_parse(e->string, &code) &&
            sc_cuda_code_runs_on(&code, major, minor))
            return 1;
    }
    return 0;
}

static void note(eval *e, sc_json *notes, const char *fact, const char *value, const char *what)
{
    sc_json *item = sc_json_new_object();
    int bad = item == NULL;
    bad = bad || sc_json_object_append(item, "constraint", sc_json_new_string("cudaBinaries"));
    bad = bad || sc_json_object_append(item, "fact", sc_json_new_string(fact));
    bad = bad || sc_json_object_append(item, "value", sc_json_new_string(value));
    bad = bad || sc_json_object_append(item, "note", sc_json_new_string(what));
    if (bad || sc_json_array_append(notes, item) != 0) {
        sc_json_free(item);
        e->oom = 1;
    }
}

/*
 * Row 11: for a release that records its GPU code and an ok probe, each
 * device is covered by a cubin (passes), through PTX (passes, noted
 * compiles-ptx), or not at all: refused, unless the record admits code it
 * cannot show (opaque libraries, a run-time declaration), then noted
 * code-not-visible.
 */
static void coverage_rule(eval *e, sc_json *notes, const sc_json *rec, const sc_host_facts *h)
{
    const sc_json *cubins = sc_json_get(rec, "cubins"), *ptx = sc_json_get(rec, "ptx");
    if (rec == NULL || (cubins->length == 0 && ptx->length == 0) || !h->has_gpu ||
        h->gpu.status != SC_GPU_OK)
        return;
    int opaque = sc_json_get(rec, "opaqueLibraries")->length > 0 ||
                 sc_json_get(rec, "declared") != NULL;
    for (size_t i = 0; i < h->gpu.device_count; i++) {
        int major = h->gpu.devices[i].cc_major, minor = h->gpu.devices[i].cc_minor;
        char fact[64], value[32], required[64];
        snprintf(fact, sizeof fact, "gpu.devices[%zu].computeCapability", i);
        snprintf(value, sizeof value, "%d.%d", major, minor);
        if (list_runs_on(cubins, major, minor))
            continue;
        if (list_runs_on(ptx, major, minor)) {
            note(e, notes, fact, value, "compiles-ptx");
        } else if (opaque) {
            note(e, notes, fact, value, "code-not-visible");
        } else {
            snprintf(required, sizeof required, "device code for sm_%d%d", major, minor);
            refuse(e, "cudaBinaries", fact, sc_json_new_string(value), required);
        }
    }
}

sc_code sc_compat_evaluate(const sc_json *release, const sc_host_facts *h,
                           sc_compat_result *res, sc_error *err)
{
    memset(res, 0, sizeof *res);
    sc_code c = sc_manifest_check(release, SC_DOC_RELEASE, NULL, err);
    if (c != SC_OK)
        return c;
    const sc_json *target = sc_json_get(release, "target");
    const sc_json *compat = sc_json_get(release, "compatibility");
    const char *platform = sc_json_cstr(sc_json_get(target, "platform"));
    const char *arch = sc_json_cstr(sc_json_get(target, "arch"));
    const char *accel = sc_json_cstr(sc_json_get(target, "accelerator"));
    const char *cuda = sc_json_cstr(sc_json_get(target, "cudaVersion"));
    eval e = {sc_json_new_array(), sc_json_new_array(), 0};
    if (e.refusals == NULL || e.pending == NULL) {
        sc_json_free(e.refusals);
        sc_json_free(e.pending);
        return sc_error_set(err, SC_E_OUT_OF_MEMORY, NULL, "out of memory");
    }
    char required[256];

    /* 1-2: the target's platform and architecture. */
    if (strcmp(h->platform, platform) != 0)
        refuse(&e, "target.platform", "platform", text_or_null(h->platform), platform);
    if (strcmp(h->arch, arch) != 0)
        refuse(&e, "target.arch", "arch", text_or_null(h->arch), arch);

    /* 3: host environments. */
    const sc_json *envs = sc_json_get(compat, "hostEnvironments");
    if (envs != NULL) {
        int found = 0;
        size_t used = (size_t)snprintf(required, sizeof required, "one of");
        for (const sc_json *x = envs->child; x != NULL; x = x->next) {
            const char *s = sc_json_cstr(x);
            if (s != NULL && strcmp(s, h->host_environment) == 0)
                found = 1;
            if (used < sizeof required)
                used += (size_t)snprintf(required + used, sizeof required - used, "%s %s",
                                         x == envs->child ? "" : ",", s != NULL ? s : "");
        }
        if (!found)
            refuse(&e, "compatibility.hostEnvironments", "hostEnvironment",
                   text_or_null(h->host_environment), required);
    }

    /* 4-6: host application and macOS versions. */
    const char *s;
    if ((s = sc_json_cstr(sc_json_get(compat, "minHostAppVersion"))) != NULL)
        version_rule(&e, "compatibility.minHostAppVersion", "hostAppVersion",
                     h->host_app_version, ">=", s);
    if ((s = sc_json_cstr(sc_json_get(compat, "maxHostAppVersionExclusive"))) != NULL)
        version_rule(&e, "compatibility.maxHostAppVersionExclusive", "hostAppVersion",
                     h->host_app_version, "<", s);
    if ((s = sc_json_cstr(sc_json_get(compat, "minMacosVersion"))) != NULL &&
        strcmp(platform, "macos") == 0)
        version_rule(&e, "compatibility.minMacosVersion", "macosVersion", h->macos_version,
                     ">=", s);

    /* 7: memory. */
    const sc_json *ram = sc_json_get(compat, "minRamGb");
    if (ram != NULL) {
        char num[32];
        sc_json_format_number(ram->number, num, sizeof num);
        snprintf(required, sizeof required, ">= %s", num);
        if (!h->has_ram)
            refuse(&e, "compatibility.minRamGb", "ramGb", NULL, required);
        else if (h->ram_gb < ram->number)
            refuse(&e, "compatibility.minRamGb", "ramGb", sc_json_new_number(h->ram_gb),
                   required);
    }

    /* 8: a CUDA target needs a GPU. */
    int is_cuda = strcmp(accel, "cuda") == 0;
    if (is_cuda && device_facts(&e, h, "target.accelerator", "gpuCount", ">= 1") &&
        h->gpu.device_count == 0)
        refuse(&e, "target.accelerator", "gpuCount", sc_json_new_number(0), ">= 1");

    /* 9: the driver. */
    if ((s = sc_json_cstr(sc_json_get(compat, "minNvidiaDriverVersion"))) != NULL) {
        snprintf(required, sizeof required, ">= %s", s);
        if (device_facts(&e, h, "compatibility.minNvidiaDriverVersion",
                         "nvidiaDriverVersion", required))
            version_rule(&e, "compatibility.minNvidiaDriverVersion", "nvidiaDriverVersion",
                         h->gpu.driver_version, ">=", s);
    }

    /* 10: the CUDA version the driver supports. */
    if (is_cuda && cuda != NULL) {
        snprintf(required, sizeof required, ">= %s", cuda);
        if (device_facts(&e, h, "target.cudaVersion", "cudaVersion", required)) {
            char have[32];
            snprintf(have, sizeof have, "%d.%d", h->gpu.cuda_version / 1000,
                     (h->gpu.cuda_version % 1000) / 10);
            version_rule(&e, "target.cudaVersion", "cudaVersion", have, ">=", cuda);
        }
    }

    /* 11: the box's device code against each probed GPU (19.11). */
    sc_json *notes = sc_json_new_array();
    if (notes == NULL)
        e.oom = 1;
    else if (is_cuda)
        coverage_rule(&e, notes, sc_json_get(release, "cudaBinaries"), h);

    /* 12: members the format does not define cannot be evaluated. */
    for (const sc_json *m = compat != NULL ? compat->child : NULL; m != NULL; m = m->next)
        if (!known(m->key)) {
            char name[256];
            snprintf(name, sizeof name, "compatibility.%s", m->key);
            refuse(&e, name, m->key, NULL, "a constraint this host cannot evaluate");
        }

    sc_json *report = sc_json_new_object();
    res->refusal_count = e.refusals->length;
    res->pending_count = e.pending->length;
    res->verdict = res->refusal_count > 0   ? SC_COMPAT_REFUSED
                   : res->pending_count > 0 ? SC_COMPAT_PENDING
                                            : SC_COMPAT_SUPPORTED;
    int bad = e.oom || report == NULL;
    if (!bad) {
        bad |= sc_json_object_append(report, "verdict",
                                     sc_json_new_string(sc_compat_verdict_name(res->verdict)));
        bad |= sc_json_object_append(report, "refusals", e.refusals);
        e.refusals = NULL;
        bad |= sc_json_object_append(report, "pending", e.pending);
        e.pending = NULL;
        if (notes->length > 0) {
            bad |= sc_json_object_append(report, "notes", notes);
            notes = NULL;
        }
    }
    sc_json_free(notes);
    sc_json_free(e.refusals);
    sc_json_free(e.pending);
    if (bad) {
        sc_json_free(report);
        return sc_error_set(err, SC_E_OUT_OF_MEMORY, NULL, "out of memory");
    }
    res->report = report;
    return SC_OK;
}

void sc_compat_result_free(sc_compat_result *res)
{
    if (res == NULL)
        return;
    sc_json_free(res->report);
    res->report = NULL;
}

const char *sc_compat_verdict_name(sc_compat_verdict v)
{
    switch (v) {
    case SC_COMPAT_SUPPORTED:
        return "supported";
    case SC_COMPAT_REFUSED:
        return "refused";
    case SC_COMPAT_PENDING:
        return "pending-probe";
    }
    return "refused";
}

sc_code sc_compat_refusal_error(const sc_compat_result *res, sc_error *err)
{
    const sc_json *first = sc_json_at(sc_json_get(res->report, "refusals"), 0);
    if (first == NULL)
        return sc_error_set(err, SC_E_INTERNAL, NULL, "no refusal to report");
    const sc_json *v = sc_json_get(first, "value");
    char value[128];
    if (v == NULL || v->type == SC_JSON_NULL)
        snprintf(value, sizeof value, "unknown");
    else if (v->type == SC_JSON_NUMBER)
        sc_json_format_number(v->number, value, sizeof value);
    else
        snprintf(value, sizeof value, "%s", sc_json_cstr(v) != NULL ? sc_json_cstr(v) : "?");
    const char *constraint = sc_json_cstr(sc_json_get(first, "constraint"));
    const char *required = sc_json_cstr(sc_json_get(first, "required"));
    if (strcmp(constraint, "cudaBinaries") == 0)
        /* "device code for sm_70" -> "no device code for sm_70" */
        return sc_error_set(err, SC_E_HOST_INCOMPATIBLE, constraint,
                            "cudaBinaries: no %s in this box (host %s is %s); "
                            "`scrollcase inspect` lists the GPU code it carries "
                            "(%zu refusal(s))", required,
                            sc_json_cstr(sc_json_get(first, "fact")), value,
                            res->refusal_count);
    return sc_error_set(err, SC_E_HOST_INCOMPATIBLE, constraint,
                        "%s: host %s is %s, required %s (%zu refusal(s))", constraint,
                        sc_json_cstr(sc_json_get(first, "fact")), value,
                        sc_json_cstr(sc_json_get(first, "required")), res->refusal_count);
}
