/* SPDX-License-Identifier: Apache-2.0 */
/*
 * audit.c — the CUDA ABI audit (audit.h).
 *
 * Guarantees: see the header.  The rules are those of docs/format-v3.md
 * 19.4-19.5, applied in one pass over the lock's packages for the target's
 * platform; the report is sorted before it is handed back, so the result
 * does not depend on the order of the lock.
 */
#define _POSIX_C_SOURCE 200809L

#include "scrollcase/audit.h"

#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scrollcase/file.h"
#include "scrollcase/toml.h"
#include "scrollcase/wheel.h"

#include "utf8_internal.h"

static const struct {
    const char *name;
    sc_audit_severity severity;
} codes[] = {
#define SC_X_AUDIT_ROW(e, s, sev) {s, sev},
    SC_AUDIT_FINDING_CODES(SC_X_AUDIT_ROW)
#undef SC_X_AUDIT_ROW
};

const char *sc_audit_code_name(sc_audit_code c)
{
    return (unsigned)c < SC_AUDIT_CODE_COUNT_ ? codes[c].name : NULL;
}

sc_audit_severity sc_audit_code_severity(sc_audit_code c)
{
    return (unsigned)c < SC_AUDIT_CODE_COUNT_ ? codes[c].severity : SC_AUDIT_ERROR;
}

const char *sc_audit_severity_name(sc_audit_severity s)
{
    return s == SC_AUDIT_WARNING ? "warning" : "error";
}

/* ---- the report --------------------------------------------------------- */

static int add(sc_audit_report *rep, sc_audit_code code, const char *package,
               const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

static int add(sc_audit_report *rep, sc_audit_code code, const char *package,
               const char *fmt, ...)
{
    if (rep->count == rep->cap) {
        size_t nc = rep->cap ? rep->cap * 2 : 8;
        sc_audit_finding *nf = realloc(rep->findings, nc * sizeof *nf);
        if (nf == NULL)
            return -1;
        rep->findings = nf;
        rep->cap = nc;
    }
    char ev[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(ev, sizeof ev, fmt, ap);
    va_end(ap);
    sc_utf8_one_line(ev); /* one line, whole characters: it is written as JSON */
    sc_audit_finding *f = &rep->findings[rep->count];
    f->code = code;
    f->severity = sc_audit_code_severity(code);
    f->package = strdup(package ? package : "");
    f->evidence = strdup(ev);
    if (f->package == NULL || f->evidence == NULL) {
        free(f->package);
        free(f->evidence);
        return -1;
    }
    rep->count++;
    if (f->severity == SC_AUDIT_ERROR)
        rep->errors++;
    else
        rep->warnings++;
    return 0;
}

static int finding_cmp(const void *a, const void *b)
{
    const sc_audit_finding *x = a, *y = b;
    int c = strcmp(sc_audit_code_name(x->code), sc_audit_code_name(y->code));
    if (c == 0)
        c = strcmp(x->package, y->package);
    if (c == 0)
        c = strcmp(x->evidence, y->evidence);
    return c;
}

void sc_audit_report_sort(sc_audit_report *rep)
{
    if (rep->count > 1)
        qsort(rep->findings, rep->count, sizeof *rep->findings, finding_cmp);
}

void sc_audit_report_free(sc_audit_report *rep)
{
    if (rep == NULL)
        return;
    for (size_t i = 0; i < rep->count; i++) {
        free(rep->findings[i].package);
        free(rep->findings[i].evidence);
    }
    free(rep->findings);
    memset(rep, 0, sizeof *rep);
}

sc_json *sc_audit_report_json(const sc_audit_report *rep, int with_evidence)
{
    sc_json *o = sc_json_new_object();
    sc_json *a = sc_json_new_array();
    if (o == NULL || a == NULL || sc_json_object_append(o, "findings", a) != 0) {
        sc_json_free(o);
        if (o == NULL)
            sc_json_free(a);
        return NULL;
    }
    for (size_t i = 0; i < rep->count; i++) {
        const sc_audit_finding *f = &rep->findings[i];
        sc_json *e = sc_json_new_object();
        if (e == NULL || sc_json_array_append(a, e) != 0) {
            sc_json_free(o);
            return NULL;
        }
        if (sc_json_object_append(e, "severity",
                                  sc_json_new_string(sc_audit_severity_name(f->severity))) != 0 ||
            sc_json_object_append(e, "code", sc_json_new_string(sc_audit_code_name(f->code))) != 0 ||
            sc_json_object_append(e, "package", sc_json_new_string(f->package)) != 0 ||
            (with_evidence &&
             sc_json_object_append(e, "evidence", sc_json_new_string(f->evidence)) != 0)) {
            sc_json_free(o);
            return NULL;
        }
    }
    if (with_evidence &&
        (sc_json_object_append(o, "errors", sc_json_new_number((double)rep->errors)) != 0 ||
         sc_json_object_append(o, "warnings", sc_json_new_number((double)rep->warnings)) != 0)) {
        sc_json_free(o);
        return NULL;
    }
    return o;
}

/* ---- helpers ------------------------------------------------------------ */

typedef struct ctx {
    const sc_target *t;
    const char *subdir;
    int cuda;             /* the target is CUDA */
    int cmaj, cmin;       /* its cudaVersion */
    sc_audit_report *rep;
    sc_error *err;
    const char *name;     /* file for messages */
} ctx;

static sc_code oom(ctx *c)
{
    return sc_error_set(c->err, SC_E_OUT_OF_MEMORY, NULL, "out of memory in the CUDA audit");
}

#define ADD(c, ...)                                                          \
    do {                                                                     \
        if (add((c)->rep, __VA_ARGS__) != 0)                                 \
            return oom(c);                                                   \
    } while (0)

/* A CUDA tag (major, minor or -1) that disagrees with the target. */
static int cuda_differs(const ctx *c, int major, int minor)
{
    return major >= 0 && (major != c->cmaj || (minor >= 0 && minor != c->cmin));
}

static void cuda_text(char *buf, size_t n, int major, int minor)
{
    if (minor >= 0)
        snprintf(buf, n, "%d.%d", major, minor);
    else
        snprintf(buf, n, "%d", major);
}

/* ---- pixi.toml (19.4) --------------------------------------------------- */

/* "X.Y" or "X.Y.*" after an optional "==" or "=", spaces around ignored. */
static int exact_minor_spec(const char *spec, int *major, int *minor)
{
    while (*spec == ' ')
        spec++;
    if (strncmp(spec, "==", 2) == 0)
        spec += 2;
    else if (spec[0] == '=')
        spec += 1;
    while (*spec == ' ')
        spec++;
    size_t n = strlen(spec);
    while (n > 0 && spec[n - 1] == ' ')
        n--;
    size_t i = 0, a = 0, b = 0;
    while (i < n && spec[i] >= '0' && spec[i] <= '9')
        i++, a++;
    if (a == 0 || a > 6 || i >= n || spec[i] != '.')
        return 0;
    i++;
    while (i < n && spec[i] >= '0' && spec[i] <= '9')
        i++, b++;
    if (b == 0 || b > 6)
        return 0;
    if (!(i == n || (n - i == 2 && spec[i] == '.' && spec[i + 1] == '*')))
        return 0;
    return sc_version_major_minor(spec, major, minor) == 2;
}

static sc_code audit_toml(ctx *c, const sc_json *doc)
{
    const sc_json *ws = sc_json_get(doc, "workspace");
    if (ws == NULL)
        ws = sc_json_get(doc, "project");
    if (ws == NULL || ws->type != SC_JSON_OBJECT)
        return sc_error_set(c->err, SC_E_INVALID_PIXI_TOML, c->name,
                            "%s: no [workspace] table", c->name);
    const sc_json *pl = sc_json_get(ws, "platforms");
    int ok = pl != NULL && pl->type == SC_JSON_ARRAY && pl->length == 1 &&
             sc_json_cstr(pl->child) != NULL && strcmp(pl->child->string, c->subdir) == 0;
    if (!ok)
        ADD(c, SC_AUDIT_PLATFORMS_MISMATCH, "",
            "workspace.platforms must be exactly [\"%s\"] for this target", c->subdir);
    if (!c->cuda)
        return SC_OK;
    const sc_json *sr = sc_json_get(doc, "system-requirements");
    const sc_json *sc = sr != NULL ? sc_json_get(sr, "cuda") : NULL;
    if (sc == NULL) {
        ADD(c, SC_AUDIT_SYSTEM_CUDA_MISSING, "",
            "[system-requirements] has no cuda; the target needs cuda = \"%s\"",
            c->t->cuda_version);
    } else {
        int maj, min;
        const char *s = sc_json_cstr(sc);
        if (s == NULL || sc_version_major_minor(s, &maj, &min) == 0 || cuda_differs(c, maj, min))
            ADD(c, SC_AUDIT_SYSTEM_CUDA_MISMATCH, "",
                "[system-requirements] cuda is %s; the target is CUDA %s",
                s ? s : "not a string", c->t->cuda_version);
    }
    /* cuda-version: the platform's own dependency table wins. */
    const sc_json *pin = NULL;
    const sc_json *tg = sc_json_get(doc, "target");
    const sc_json *tp = tg ? sc_json_get(tg, c->subdir) : NULL;
    const sc_json *td = tp ? sc_json_get(tp, "dependencies") : NULL;
    if (td != NULL)
        pin = sc_json_get(td, "cuda-version");
    if (pin == NULL) {
        const sc_json *d = sc_json_get(doc, "dependencies");
        pin = d ? sc_json_get(d, "cuda-version") : NULL;
    }
    if (pin == NULL) {
        ADD(c, SC_AUDIT_CUDA_VERSION_PIN_MISSING, "cuda-version",
            "no cuda-version dependency; the target needs cuda-version = \"%s.*\"",
            c->t->cuda_version);
        return SC_OK;
    }
    const char *spec = sc_json_cstr(pin);
    if (spec == NULL && pin->type == SC_JSON_OBJECT)
        spec = sc_json_cstr(sc_json_get(pin, "version"));
    int maj, min;
    if (spec != NULL && exact_minor_spec(spec, &maj, &min)) {
        if (cuda_differs(c, maj, min))
            ADD(c, SC_AUDIT_CUDA_VERSION_PIN_MISMATCH, "cuda-version",
                "cuda-version is pinned to \"%s\"; the target is CUDA %s", spec,
                c->t->cuda_version);
    } else {
        ADD(c, SC_AUDIT_CUDA_VERSION_PIN_LOOSE, "cuda-version",
            "cuda-version \"%s\" does not fix a major.minor; pin \"%s.*\"",
            spec ? spec : "(no version)", c->t->cuda_version);
    }
    return SC_OK;
}

/* ---- conda packages (19.5) ---------------------------------------------- */

static sc_code audit_conda(ctx *c, const char *name, const char *version,
                           const char *build, const char *subdir, int *saw_cuda_version)
{
    if (subdir != NULL && strcmp(subdir, c->subdir) != 0 && strcmp(subdir, "noarch") != 0)
        ADD(c, SC_AUDIT_CONDA_SUBDIR_MISMATCH, name,
            "%s %s is built for %s, the target's platform is %s", name, version, subdir,
            c->subdir);
    if (!c->cuda)
        return SC_OK;
    sc_build_facts f;
    sc_build_facts_scan(build, &f);
    if (f.cpu)
        ADD(c, SC_AUDIT_CONDA_CPU_BUILD, name,
            "%s %s build %s is a CPU build under a CUDA %s target", name, version, build,
            c->t->cuda_version);
    if (cuda_differs(c, f.cuda_major, f.cuda_minor)) {
        char v[32];
        cuda_text(v, sizeof v, f.cuda_major, f.cuda_minor);
        ADD(c, SC_AUDIT_CONDA_CUDA_BUILD_MISMATCH, name,
            "%s %s build %s is built for CUDA %s, the target is CUDA %s", name, version,
            build, v, c->t->cuda_version);
    }
    if (strcmp(name, "cuda-version") == 0) {
        *saw_cuda_version = 1;
        int maj, min;
        if (sc_version_major_minor(version, &maj, &min) != 2 || maj != c->cmaj || min != c->cmin)
            ADD(c, SC_AUDIT_CUDA_VERSION_LOCKED_MISMATCH, name,
                "cuda-version resolved to %s, the target is CUDA %s", version,
                c->t->cuda_version);
    }
    return SC_OK;
}

/* ---- PyPI packages (19.5) ----------------------------------------------- */

typedef struct torch_facts {
    int major, minor;  /* -1: no torch locked */
    int cxx11abi;      /* -1 unknown */
    int py_major, py_minor; /* -1: no python locked */
} torch_facts;

/* The torch requirement of a requires_dist list: *pin "X.Y..." of the first
 * == / === specifier (NULL if none, malloc'd), *constrained 1 when some
 * torch requirement (outside an extra) has a version specifier. */
static int torch_requirement(const sc_lock_package *p, char **pin, int *constrained)
{
    *pin = NULL;
    *constrained = 0;
    for (size_t i = 0; i < p->nrequires_dist; i++) {
        const char *r = p->requires_dist[i];
        while (*r == ' ')
            r++;
        size_t n = strspn(r, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-");
        if (n == 0)
            continue;
        char *nm = strndup(r, n);
        if (nm == NULL)
            return -1;
        char *norm = sc_pypi_normalize(nm);
        free(nm);
        if (norm == NULL)
            return -1;
        int is_torch = strcmp(norm, "torch") == 0;
        free(norm);
        if (!is_torch)
            continue;
        const char *rest = r + n;
        const char *semi = strchr(rest, ';');
        if (semi != NULL && strstr(semi, "extra") != NULL)
            continue;
        size_t speclen = semi ? (size_t)(semi - rest) : strlen(rest);
        if (strcspn(rest, "<>=!~") < speclen)
            *constrained = 1;
        const char *eq = strstr(rest, "==");
        if (eq != NULL && (size_t)(eq - rest) < speclen && *pin == NULL) {
            eq += 2;
            if (*eq == '=')
                eq++;
            while (*eq == ' ')
                eq++;
            size_t vl = strcspn(eq, " ,;)");
            *pin = strndup(eq, vl);
            if (*pin == NULL)
                return -1;
        }
    }
    return 0;
}

static const char *sidecar_table(const char *norm)
{
    if (strcmp(norm, "torchvision") == 0)
        return "https://github.com/pytorch/vision#installation";
    if (strcmp(norm, "torchaudio") == 0)
        return "https://pytorch.org/audio/main/installation.html#compatibility-matrix";
    if (strcmp(norm, "torchcodec") == 0)
        return "https://github.com/pytorch/torchcodec#installing-torchcodec";
    return NULL;
}

/* The torch major.minor a side-car's own version implies (19.5), or 0. */
static int sidecar_implied_torch(const char *norm, const char *version, int *maj, int *min)
{
    int a, b;
    if (sc_version_major_minor(version, &a, &b) != 2)
        return 0;
    if (strcmp(norm, "torchaudio") == 0 && (a > 2 || (a == 2 && b >= 1))) {
        *maj = a;
        *min = b;
        return 1;
    }
    if (strcmp(norm, "torchvision") == 0 && a == 0 && b >= 16) {
        *maj = 2;
        *min = b - 15;
        return 1;
    }
    return 0;
}

static sc_code audit_sidecar(ctx *c, const sc_lock_package *p, const char *norm,
                             const torch_facts *tf)
{
    char *pin = NULL;
    int constrained = 0;
    if (torch_requirement(p, &pin, &constrained) != 0) {
        free(pin);
        return oom(c);
    }
    int maj, min;
    if (pin != NULL) {
        int r = sc_version_major_minor(pin, &maj, &min);
        if (r == 0 || maj != tf->major || (r == 2 && min != tf->minor))
            if (add(c->rep, SC_AUDIT_SIDECAR_TORCH_MISMATCH, p->name,
                    "%s %s requires torch==%s, the lock has torch %d.%d", p->name,
                    p->version, pin, tf->major, tf->minor) != 0) {
                free(pin);
                return oom(c);
            }
        free(pin);
        return SC_OK;
    }
    const char *table = sidecar_table(norm);
    if (table == NULL)
        return SC_OK;
    if (!constrained)
        ADD(c, SC_AUDIT_SIDECAR_TORCH_UNPINNED, p->name,
            "%s %s declares no torch requirement; check its compatibility table %s",
            p->name, p->version, table);
    if (sidecar_implied_torch(norm, p->version, &maj, &min) &&
        (maj != tf->major || min != tf->minor))
        ADD(c, SC_AUDIT_SIDECAR_TORCH_MISMATCH, p->name,
            "%s %s is the release for torch %d.%d, the lock has torch %d.%d", p->name,
            p->version, maj, min, tf->major, tf->minor);
    return SC_OK;
}

/* nvidia-<...>-cu<N>: N, else -1. */
static int nvidia_suffix_major(const char *norm)
{
    if (strncmp(norm, "nvidia-", 7) != 0)
        return -1;
    const char *d = strrchr(norm, '-');
    if (d == NULL || d < norm + 7 || strncmp(d, "-cu", 3) != 0 || d[3] == '\0')
        return -1;
    int v = 0;
    for (const char *q = d + 3; *q; q++) {
        if (*q < '0' || *q > '9' || v > 1000)
            return -1;
        v = v * 10 + (*q - '0');
    }
    return v;
}

static sc_code audit_pypi(ctx *c, const sc_lock_package *p, const torch_facts *tf)
{
    char *norm = sc_pypi_normalize(p->name);
    if (norm == NULL)
        return oom(c);
    sc_wheel w;
    int wr = sc_wheel_parse(p->location, &w);
    sc_code rc = SC_OK;
    if (wr == -2) {
        rc = oom(c);
        goto out;
    }
    if (wr == -1) {
        rc = sc_error_set(c->err, SC_E_INVALID_LOCK, c->name,
                          "%s: %s names a .whl that is not a wheel file name", c->name,
                          p->name);
        goto out;
    }
    if (wr == 1) {
        sc_build_facts f;
        sc_build_facts_scan(w.local, &f);
        int bad = 0;
        if (c->cuda && f.cpu)
            bad |= add(c->rep, SC_AUDIT_WHEEL_CPU_BUILD, p->name,
                       "%s %s is a CPU wheel under a CUDA %s target", p->name, p->version,
                       c->t->cuda_version);
        if (c->cuda && cuda_differs(c, f.cuda_major, f.cuda_minor)) {
            char v[32];
            cuda_text(v, sizeof v, f.cuda_major, f.cuda_minor);
            bad |= add(c->rep, SC_AUDIT_WHEEL_CUDA_MISMATCH, p->name,
                       "%s %s is built for CUDA %s, the target is CUDA %s", p->name,
                       p->version, v, c->t->cuda_version);
        }
        if (tf->py_major >= 0 && !sc_wheel_python_ok(&w, tf->py_major, tf->py_minor))
            bad |= add(c->rep, SC_AUDIT_WHEEL_PYTHON_MISMATCH, p->name,
                       "%s: tags %s-%s do not run on the locked Python %d.%d", p->filename,
                       w.python, w.abi, tf->py_major, tf->py_minor);
        if (!sc_wheel_platform_ok(&w, c->subdir))
            bad |= add(c->rep, SC_AUDIT_WHEEL_PLATFORM_MISMATCH, p->name,
                       "%s: platform %s does not install on %s", p->filename, w.platform,
                       c->subdir);
        if (strcmp(norm, "torch") != 0) {
            if (tf->major >= 0 && f.torch_major >= 0 &&
                (f.torch_major != tf->major || f.torch_minor != tf->minor))
                bad |= add(c->rep, SC_AUDIT_WHEEL_TORCH_MISMATCH, p->name,
                           "%s is built for torch %d.%d, the lock has torch %d.%d",
                           p->filename, f.torch_major, f.torch_minor, tf->major, tf->minor);
            if (tf->cxx11abi >= 0 && f.cxx11abi >= 0 && f.cxx11abi != tf->cxx11abi)
                bad |= add(c->rep, SC_AUDIT_WHEEL_CXX11ABI_MISMATCH, p->name,
                           "%s is built with cxx11abi%s, the locked torch with cxx11abi%s",
                           p->filename, f.cxx11abi ? "TRUE" : "FALSE",
                           tf->cxx11abi ? "TRUE" : "FALSE");
        }
        if (bad) {
            rc = oom(c);
            goto out;
        }
    }
    if (c->cuda) {
        int nv = nvidia_suffix_major(norm);
        if (nv >= 0 && nv != c->cmaj &&
            add(c->rep, SC_AUDIT_NVIDIA_WHEEL_MAJOR_MISMATCH, p->name,
                "%s %s is a CUDA %d runtime wheel, the target is CUDA %s", p->name,
                p->version, nv, c->t->cuda_version) != 0) {
            rc = oom(c);
            goto out;
        }
    }
    if (tf->major >= 0 && strcmp(norm, "torch") != 0)
        rc = audit_sidecar(c, p, norm, tf);
out:
    if (wr == 1)
        sc_wheel_free(&w);
    free(norm);
    return rc;
}

/* Python and torch as locked (19.5). */
static sc_code locked_facts(ctx *c, const sc_pixi_lock *lock, const sc_lock_platform *pl,
                            torch_facts *tf)
{
    tf->major = tf->minor = tf->cxx11abi = -1;
    tf->py_major = tf->py_minor = -1;
    const sc_lock_package *conda_torch = NULL, *pypi_torch = NULL;
    for (size_t i = 0; i < pl->count; i++) {
        const sc_lock_package *p = &lock->packages[pl->packages[i]];
        if (p->kind == SC_LOCK_CONDA) {
            if (strcmp(p->name, "python") == 0 && tf->py_major < 0) {
                int a, b;
                if (sc_version_major_minor(p->version, &a, &b) == 2) {
                    tf->py_major = a;
                    tf->py_minor = b;
                }
            } else if (strcmp(p->name, "pytorch") == 0 && conda_torch == NULL) {
                conda_torch = p;
            }
        } else if (pypi_torch == NULL) {
            char *norm = sc_pypi_normalize(p->name);
            if (norm == NULL)
                return oom(c);
            if (strcmp(norm, "torch") == 0)
                pypi_torch = p;
            free(norm);
        }
    }
    int a, b;
    if (pypi_torch != NULL) {
        if (sc_version_major_minor(pypi_torch->version, &a, &b) == 2) {
            tf->major = a;
            tf->minor = b;
        }
        sc_wheel w;
        int wr = sc_wheel_parse(pypi_torch->location, &w);
        if (wr == -2)
            return oom(c);
        if (wr == 1) {
            sc_build_facts f;
            sc_build_facts_scan(w.local, &f);
            tf->cxx11abi = f.cxx11abi >= 0 ? f.cxx11abi : sc_wheel_manylinux_cxx11abi(&w);
            sc_wheel_free(&w);
        }
    } else if (conda_torch != NULL) {
        if (sc_version_major_minor(conda_torch->version, &a, &b) == 2) {
            tf->major = a;
            tf->minor = b;
        }
        tf->cxx11abi = 1; /* conda-forge builds use the new C++ ABI */
    }
    return SC_OK;
}

static sc_code audit_lock(ctx *c, const sc_pixi_lock *lock)
{
    const sc_lock_platform *pl = sc_pixi_lock_find(lock, "default", c->subdir);
    if (pl == NULL || pl->count == 0) {
        ADD(c, SC_AUDIT_LOCK_PLATFORM_MISSING, "",
            "environment default locks no packages for %s", c->subdir);
        return SC_OK;
    }
    torch_facts tf;
    if (locked_facts(c, lock, pl, &tf) != SC_OK)
        return c->err->code;
    int saw_cuda_version = 0;
    static char no_version[] = "";
    for (size_t i = 0; i < pl->count; i++) {
        /* a v7 package built from source may have no version: audited as "" */
        sc_lock_package q = lock->packages[pl->packages[i]];
        if (q.version == NULL)
            q.version = no_version;
        const sc_lock_package *p = &q;
        sc_code rc = p->kind == SC_LOCK_CONDA
                         ? audit_conda(c, p->name, p->version, p->build, p->subdir,
                                       &saw_cuda_version)
                         : audit_pypi(c, p, &tf);
        if (rc != SC_OK)
            return rc;
    }
    if (c->cuda && !saw_cuda_version)
        ADD(c, SC_AUDIT_CUDA_VERSION_NOT_LOCKED, "cuda-version",
            "the lock has no cuda-version package for %s", c->subdir);
    return SC_OK;
}

static int ctx_init(ctx *c, const sc_target *t, sc_audit_report *rep, sc_error *err,
                    const char *name)
{
    memset(c, 0, sizeof *c);
    c->t = t;
    c->subdir = sc_target_conda_subdir(t);
    c->cuda = t->accelerator == SC_ACCEL_CUDA;
    c->cmaj = c->cmin = -1;
    if (c->cuda)
        sc_version_major_minor(t->cuda_version, &c->cmaj, &c->cmin);
    c->rep = rep;
    c->err = err;
    c->name = name;
    return 0;
}

sc_code sc_audit_pixi(const sc_target *t, const sc_json *pixi_toml,
                      const char *toml_name, const sc_pixi_lock *lock,
                      sc_audit_report *rep, sc_error *err)
{
    sc_error_clear(err);
    ctx c;
    ctx_init(&c, t, rep, err, toml_name ? toml_name : "pixi.toml");
    if (sc_target_check(t, "target", err) != SC_OK)
        return err->code;
    sc_code rc = audit_toml(&c, pixi_toml);
    if (rc == SC_OK) {
        c.name = "pixi.lock";
        rc = audit_lock(&c, lock);
    }
    sc_audit_report_sort(rep);
    return rc;
}

sc_code sc_audit_files(const sc_target *t, const char *pixi_toml_path,
                       const char *pixi_lock_path, sc_audit_report *rep,
                       sc_error *err)
{
    char *bytes = NULL;
    size_t len = 0;
    /* 19.2: a pixi.toml over 1 MiB is invalid-pixi-toml */
    sc_code rc = sc_file_read_bounded(pixi_toml_path, SC_TOML_MAX_BYTES, SC_E_INVALID_PIXI_TOML,
                                      &bytes, &len, NULL, err);
    if (rc != SC_OK)
        return rc;
    sc_json *doc = NULL;
    rc = sc_toml_parse(bytes, len, pixi_toml_path, &doc, err);
    free(bytes);
    if (rc != SC_OK)
        return rc;
    sc_pixi_lock *lock = NULL;
    rc = sc_pixi_lock_read(pixi_lock_path, &lock, err);
    if (rc == SC_OK) {
        rc = sc_audit_pixi(t, doc, pixi_toml_path, lock, rep, err);
        if (rc == SC_E_INVALID_LOCK)
            sc_error_prefix(err, pixi_lock_path);
    }
    sc_pixi_lock_free(lock);
    sc_json_free(doc);
    return rc;
}

/* ---- conda-meta (verify --audit) ---------------------------------------- */

static int name_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

void sc_conda_records_free(sc_conda_record *r, size_t count)
{
    for (size_t i = 0; r != NULL && i < count; i++) {
        free(r[i].file);
        free(r[i].name);
        free(r[i].version);
        free(r[i].build);
        free(r[i].subdir);
        free(r[i].sha256);
        free(r[i].license);
    }
    free(r);
}

static int dup_member(const sc_json *doc, const char *key, int required, char **out)
{
    const sc_json *v = sc_json_get(doc, key);
    *out = NULL;
    if (v == NULL)
        return required ? 1 : 0;
    if (sc_json_cstr(v) == NULL)
        return 1;
    *out = strdup(v->string);
    return *out == NULL ? -1 : 0;
}

sc_code sc_conda_meta_read(const char *root, sc_conda_record **out, size_t *count,
                           int *missing, sc_error *err)
{
    *out = NULL;
    *count = 0;
    if (missing)
        *missing = 0;
    char *dir = sc_path_join(root, "conda-meta");
    if (dir == NULL)
        return sc_error_set(err, SC_E_OUT_OF_MEMORY, NULL, "out of memory");
    DIR *d = opendir(dir);
    if (d == NULL) {
        if (missing)
            *missing = errno == ENOENT || errno == ENOTDIR;
        sc_code rc = sc_error_set(err, SC_E_IO, dir, "%s: cannot open the conda-meta directory",
                                  dir);
        free(dir);
        return rc;
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    sc_code rc = SC_OK;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        size_t l = strlen(e->d_name);
        if (l <= 5 || strcmp(e->d_name + l - 5, ".json") != 0 || e->d_name[0] == '.')
            continue;
        if (n == cap) {
            size_t nc = cap ? cap * 2 : 64;
            char **nn = realloc(names, nc * sizeof *nn);
            if (nn == NULL) {
                rc = sc_error_set(err, SC_E_OUT_OF_MEMORY, NULL, "out of memory");
                break;
            }
            names = nn;
            cap = nc;
        }
        names[n] = strdup(e->d_name);
        if (names[n] == NULL) {
            rc = sc_error_set(err, SC_E_OUT_OF_MEMORY, NULL, "out of memory");
            break;
        }
        n++;
    }
    closedir(d);
    if (rc == SC_OK && n > 1)
        qsort(names, n, sizeof *names, name_cmp);
    sc_conda_record *recs = n > 0 ? calloc(n, sizeof *recs) : NULL;
    if (rc == SC_OK && n > 0 && recs == NULL)
        rc = sc_error_set(err, SC_E_OUT_OF_MEMORY, NULL, "out of memory");
    size_t got = 0;
    for (size_t i = 0; rc == SC_OK && i < n; i++) {
        char *path = sc_path_join(dir, names[i]);
        if (path == NULL) {
            rc = sc_error_set(err, SC_E_OUT_OF_MEMORY, NULL, "out of memory");
            break;
        }
        sc_json *doc = NULL;
        rc = sc_json_parse_file(path, &doc, err);
        if (rc == SC_OK) {
            sc_conda_record *r = &recs[got++];
            r->file = names[i];
            names[i] = NULL;
            int bad = doc->type != SC_JSON_OBJECT;
            int m = 0;
            if (!bad) {
                int parts[6] = {dup_member(doc, "name", 1, &r->name),
                                dup_member(doc, "version", 1, &r->version),
                                dup_member(doc, "build", 1, &r->build),
                                dup_member(doc, "subdir", 0, &r->subdir),
                                dup_member(doc, "sha256", 0, &r->sha256),
                                dup_member(doc, "license", 0, &r->license)};
                for (int k = 0; k < 6; k++) {
                    m |= parts[k] < 0;
                    bad |= parts[k] > 0;
                }
            }
            if (m)
                rc = sc_error_set(err, SC_E_OUT_OF_MEMORY, NULL, "out of memory");
            else if (bad)
                rc = sc_error_set(err, SC_E_INVALID_LOCK, path,
                                  "%s: a conda-meta record needs string name, version and build",
                                  path);
        }
        sc_json_free(doc);
        free(path);
    }
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    free(dir);
    if (rc != SC_OK) {
        sc_conda_records_free(recs, got);
        return rc;
    }
    *out = recs;
    *count = got;
    return SC_OK;
}

sc_code sc_audit_conda_meta(const char *root, const sc_target *t,
                            sc_audit_report *rep, sc_error *err)
{
    sc_error_clear(err);
    if (sc_target_check(t, "target", err) != SC_OK)
        return err->code;
    sc_conda_record *recs = NULL;
    size_t n = 0;
    sc_code rc = sc_conda_meta_read(root, &recs, &n, NULL, err);
    if (rc != SC_OK)
        return rc;
    ctx c;
    ctx_init(&c, t, rep, err, "conda-meta");
    int saw_cuda_version = 0;
    for (size_t i = 0; rc == SC_OK && i < n; i++)
        rc = audit_conda(&c, recs[i].name, recs[i].version, recs[i].build, recs[i].subdir,
                         &saw_cuda_version);
    if (rc == SC_OK && c.cuda && !saw_cuda_version &&
        add(rep, SC_AUDIT_CUDA_VERSION_NOT_LOCKED, "cuda-version",
            "the payload has no cuda-version package") != 0)
        rc = sc_error_set(err, SC_E_OUT_OF_MEMORY, NULL, "out of memory");
    sc_conda_records_free(recs, n);
    sc_audit_report_sort(rep);
    return rc;
}

/* ---- the build gate (19.7) ---------------------------------------------- */

sc_code sc_audit_gate(const sc_target *t, const char *scroll_dir, int opt_out,
                      sc_audit_report *rep, sc_json **record, sc_error *err)
{
    sc_error_clear(err);
    *record = NULL;
    if (t->accelerator != SC_ACCEL_CUDA)
        return SC_OK;
    sc_json *rec = sc_json_new_object();
    if (rec == NULL)
        return sc_error_set(err, SC_E_OUT_OF_MEMORY, NULL, "out of memory");
    if (opt_out) {
        if (sc_json_object_append(rec, "status", sc_json_new_string("opted-out")) != 0) {
            sc_json_free(rec);
            return sc_error_set(err, SC_E_OUT_OF_MEMORY, NULL, "out of memory");
        }
        *record = rec;
        return SC_OK;
    }
    sc_audit_report local;
    memset(&local, 0, sizeof local);
    sc_audit_report *r = rep ? rep : &local;
    char *toml = sc_path_join(scroll_dir, "pixi.toml");
    char *lock = sc_path_join(scroll_dir, "pixi.lock");
    sc_code rc;
    if (toml == NULL || lock == NULL)
        rc = sc_error_set(err, SC_E_OUT_OF_MEMORY, NULL, "out of memory");
    else
        rc = sc_audit_files(t, toml, lock, r, err);
    free(toml);
    free(lock);
    if (rc != SC_OK) {
        sc_json_free(rec);
        sc_audit_report_free(&local);
        return rc;
    }
    sc_json *codes_arr = sc_json_new_array();
    int bad = codes_arr == NULL ||
              sc_json_object_append(rec, "status",
                                    sc_json_new_string(r->errors ? "failed" : "passed")) != 0 ||
              sc_json_object_append(rec, "errors", sc_json_new_number((double)r->errors)) != 0 ||
              sc_json_object_append(rec, "warnings", sc_json_new_number((double)r->warnings)) != 0;
    if (!bad) {
        bad = sc_json_object_append(rec, "findings", codes_arr) != 0;
        codes_arr = NULL;
    }
    for (size_t i = 0; !bad && i < r->count; i++)
        bad = sc_json_array_append(sc_json_get(rec, "findings"),
                                   sc_json_new_string(sc_audit_code_name(r->findings[i].code))) != 0;
    sc_json_free(codes_arr);
    if (bad) {
        sc_json_free(rec);
        sc_audit_report_free(&local);
        return sc_error_set(err, SC_E_OUT_OF_MEMORY, NULL, "out of memory");
    }
    *record = rec;
    rc = SC_OK;
    if (r->errors > 0) {
        const sc_audit_finding *first = NULL;
        for (size_t i = 0; i < r->count && first == NULL; i++)
            if (r->findings[i].severity == SC_AUDIT_ERROR)
                first = &r->findings[i];
        rc = sc_error_set(err, SC_E_AUDIT_FAILED, scroll_dir,
                          "CUDA audit: %zu error finding(s), first %s: %s", r->errors,
                          sc_audit_code_name(first->code), first->evidence);
    }
    sc_audit_report_free(&local);
    return rc;
}
