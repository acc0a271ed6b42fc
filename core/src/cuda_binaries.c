/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cuda_binaries.c — the audit of a payload's ELF files: their libraries
 * and their CUDA device code (guarantees in cuda_binaries.h).
 *
 * The walk (sc_file_walk) never follows a link; each regular file is opened
 * from its own directory with O_NOFOLLOW and costs a 4-byte pread unless it
 * is ELF.  An ELF file is read by elf_info.c (headers, dynamic section) and
 * its `.nv_fatbin` by fatbin.c through a pread reader bounded to the
 * section.  Results are sorted once at the end, so directory order never
 * shows.
 */
#include "scrollcase/cuda_binaries.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "scrollcase/archive_read.h"
#include "scrollcase/cleanup.h"
#include "scrollcase/file.h"
#include "scrollcase/jobs.h"
#include "scrollcase/strbuf.h"

#include "jobs_internal.h"

/* ---- the library table ------------------------------------------------ */

#define FOLLOWS SC_CUDA_SONAME_FOLLOWS_CUDA
#define OWN SC_CUDA_SONAME_OWN_MAJOR
#define DRIVER SC_CUDA_SONAME_DRIVER
#define VISIBLE 0, NULL
#define RUNTIME_COMPILED 1, "compiles device code at run time"
#define CUDNN_HIDDEN 1, "cuDNN builds many of its engines at run time (NVRTC)"
#define CUFFT_HIDDEN 1, "cuFFT keeps most of its kernels outside .nv_fatbin"

/* By stem, bytes (a test checks the order; lookups are binary searches).
 * Sources (docs/drafts/cuda-binaries.md): the sonames of CUDA 13.0's own
 * files (/usr/local/cuda/lib64, checked by the cuda-binaries/toolkit ctest)
 * and those of the CUDA 11.0-12.9 Linux installers as NVIDIA's cuda-python
 * (cuda.pathfinder) lists them.  A library is FOLLOWS only when every
 * release seen gives it the CUDA major (libcudart.so.11.0, .12, .13); one
 * with a single data point or its own numbering is OWN, which never
 * refuses anything. */
static const sc_cuda_library_rule rules[] = {
    {"libcublas.so", FOLLOWS, "cuBLAS", VISIBLE},
    {"libcublasLt.so", FOLLOWS, "cuBLASLt", VISIBLE},
    {"libcuda.so", DRIVER, "CUDA driver", VISIBLE},
    {"libcudadebugger.so", DRIVER, "CUDA debugger (driver)", VISIBLE},
    {"libcudart.so", FOLLOWS, "CUDA runtime", VISIBLE},
    {"libcudnn.so", OWN, "cuDNN", CUDNN_HIDDEN},
    {"libcudnn_adv.so", OWN, "cuDNN", CUDNN_HIDDEN},
    {"libcudnn_adv_infer.so", OWN, "cuDNN", CUDNN_HIDDEN},
    {"libcudnn_adv_train.so", OWN, "cuDNN", CUDNN_HIDDEN},
    {"libcudnn_cnn.so", OWN, "cuDNN", CUDNN_HIDDEN},
    {"libcudnn_cnn_infer.so", OWN, "cuDNN", CUDNN_HIDDEN},
    {"libcudnn_cnn_train.so", OWN, "cuDNN", CUDNN_HIDDEN},
    {"libcudnn_engines_precompiled.so", OWN, "cuDNN", CUDNN_HIDDEN},
    {"libcudnn_engines_runtime_compiled.so", OWN, "cuDNN", CUDNN_HIDDEN},
    {"libcudnn_graph.so", OWN, "cuDNN", CUDNN_HIDDEN},
    {"libcudnn_heuristic.so", OWN, "cuDNN", CUDNN_HIDDEN},
    {"libcudnn_ops.so", OWN, "cuDNN", CUDNN_HIDDEN},
    {"libcudnn_ops_infer.so", OWN, "cuDNN", CUDNN_HIDDEN},
    {"libcudnn_ops_train.so", OWN, "cuDNN", CUDNN_HIDDEN},
    {"libcufft.so", OWN, "cuFFT", CUFFT_HIDDEN},
    {"libcufftw.so", OWN, "cuFFTW", CUFFT_HIDDEN},
    {"libcufile.so", OWN, "cuFile (GPUDirect Storage)", VISIBLE},
    {"libcufile_rdma.so", OWN, "cuFile RDMA", VISIBLE},
    {"libcupti.so", FOLLOWS, "CUPTI", VISIBLE},
    {"libcurand.so", OWN, "cuRAND", VISIBLE},
    {"libcusolver.so", OWN, "cuSOLVER", VISIBLE},
    {"libcusolverMg.so", OWN, "cuSOLVERMg", VISIBLE},
    {"libcusparse.so", OWN, "cuSPARSE", VISIBLE},
    {"libcusparseLt.so", OWN, "cuSPARSELt", VISIBLE},
    {"libcutensor.so", OWN, "cuTENSOR", VISIBLE},
    {"libcutensorMg.so", OWN, "cuTENSORMg", VISIBLE},
    {"libnccl.so", OWN, "NCCL", VISIBLE},
    {"libnppc.so", FOLLOWS, "NPP", VISIBLE},
    {"libnppial.so", FOLLOWS, "NPP", VISIBLE},
    {"libnppicc.so", FOLLOWS, "NPP", VISIBLE},
    {"libnppidei.so", FOLLOWS, "NPP", VISIBLE},
    {"libnppif.so", FOLLOWS, "NPP", VISIBLE},
    {"libnppig.so", FOLLOWS, "NPP", VISIBLE},
    {"libnppim.so", FOLLOWS, "NPP", VISIBLE},
    {"libnppist.so", FOLLOWS, "NPP", VISIBLE},
    {"libnppisu.so", FOLLOWS, "NPP", VISIBLE},
    {"libnppitc.so", FOLLOWS, "NPP", VISIBLE},
    {"libnpps.so", FOLLOWS, "NPP", VISIBLE},
    {"libnvJitLink.so", FOLLOWS, "nvJitLink", RUNTIME_COMPILED},
    {"libnvToolsExt.so", OWN, "NVTX", VISIBLE},
    {"libnvblas.so", FOLLOWS, "NVBLAS", VISIBLE},
    {"libnvcuvid.so", DRIVER, "NVDEC (driver)", VISIBLE},
    {"libnvfatbin.so", OWN, "nvFatbin", VISIBLE},
    {"libnvidia-encode.so", DRIVER, "NVENC (driver)", VISIBLE},
    {"libnvidia-ml.so", DRIVER, "NVML (driver)", VISIBLE},
    {"libnvidia-nvvm.so", DRIVER, "NVVM (driver)", RUNTIME_COMPILED},
    {"libnvidia-opticalflow.so", DRIVER, "Optical Flow (driver)", VISIBLE},
    {"libnvidia-ptxjitcompiler.so", DRIVER, "PTX JIT compiler (driver)", RUNTIME_COMPILED},
    {"libnvjpeg.so", FOLLOWS, "nvJPEG", VISIBLE},
    {"libnvrtc-builtins.alt.so", FOLLOWS, "NVRTC builtins", RUNTIME_COMPILED},
    {"libnvrtc-builtins.so", FOLLOWS, "NVRTC builtins", RUNTIME_COMPILED},
    {"libnvrtc.alt.so", FOLLOWS, "NVRTC", RUNTIME_COMPILED},
    {"libnvrtc.so", FOLLOWS, "NVRTC", RUNTIME_COMPILED},
    {"libnvshmem_host.so", OWN, "NVSHMEM", VISIBLE},
    {"libnvtx3interop.so", OWN, "NVTX", VISIBLE},
    {"libnvvm.so", OWN, "NVVM", RUNTIME_COMPILED},
};
#define RULE_COUNT (sizeof rules / sizeof rules[0])

size_t sc_cuda_library_rule_count(void) { return RULE_COUNT; }

const sc_cuda_library_rule *sc_cuda_library_rule_at(size_t i)
{
    return i < RULE_COUNT ? &rules[i] : NULL;
}

const char *sc_cuda_soname_class_name(sc_cuda_soname_class c)
{
    switch (c) {
    case SC_CUDA_SONAME_FOLLOWS_CUDA: return "follows-cuda";
    case SC_CUDA_SONAME_OWN_MAJOR: return "own-major";
    case SC_CUDA_SONAME_DRIVER: return "driver";
    }
    return "unknown";
}

const sc_cuda_library_rule *sc_cuda_library_rule_find(const char *soname, unsigned *major)
{
    if (soname == NULL)
        return NULL;
    /* The stem ends at the first ".so." followed by a digit. */
    const char *p = soname, *dot = NULL;
    while ((p = strstr(p, ".so.")) != NULL) {
        if (p[4] >= '0' && p[4] <= '9') {
            dot = p + 3;
            break;
        }
        p += 3;
    }
    if (dot == NULL)
        return NULL;
    size_t stem_len = (size_t)(dot - soname);
    unsigned long v = 0;
    const char *d = dot + 1;
    while (*d >= '0' && *d <= '9' && v < 100000)
        v = v * 10 + (unsigned long)(*d++ - '0');
    if (*d != '\0' && *d != '.')
        return NULL;
    /* auditwheel renames a library it vendors into a wheel with 8 hex
     * digits of its hash (libcudart-d0da41ae.so.11.0): the same library. */
    char key[128];
    if (stem_len >= sizeof key)
        return NULL;
    memcpy(key, soname, stem_len);
    if (stem_len > 12 && key[stem_len - 12] == '-') {
        size_t hex = 0;
        while (hex < 8 && strchr("0123456789abcdef", key[stem_len - 11 + hex]) != NULL &&
               key[stem_len - 11 + hex] != '\0')
            hex++;
        if (hex == 8) {
            memmove(key + stem_len - 12, key + stem_len - 3, 3); /* ".so" */
            stem_len -= 9;
        }
    }
    size_t lo = 0, hi = RULE_COUNT;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const char *stem = rules[mid].stem;
        size_t n = strlen(stem);
        int c = memcmp(key, stem, stem_len < n ? stem_len : n);
        if (c == 0)
            c = stem_len < n ? -1 : stem_len > n ? 1 : 0;
        if (c == 0) {
            if (major != NULL)
                *major = (unsigned)v;
            return &rules[mid];
        }
        if (c < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    return NULL;
}

/* ---- collecting --------------------------------------------------------- */

typedef struct lib_ref {
    const char *soname; /* borrowed from a file's elf info */
    size_t file;        /* index into files (before sorting: fixed up) */
    int shipped;        /* 1: DT_SONAME, 0: DT_NEEDED */
} lib_ref;

/* One ELF file to read: its result, its open descriptor, and the answer of
 * the read (an I/O error fails the audit; invalid ELF does not). */
typedef struct job {
    sc_cuda_binary *f;
    int fd;
    char *shown;    /* root/path, for messages */
    sc_code rc;
    sc_error err;
} job;

/* The readers: a bounded queue of jobs the walk fills and worker threads
 * empty (QUEUE descriptors open at most, whatever the tree). */
#define QUEUE 64
typedef struct pool {
    pthread_mutex_t lock;
    pthread_cond_t not_empty, not_full;
    job *ring[QUEUE];
    size_t head, count;
    int done;
    pthread_t threads[SC_JOBS_MAX];
    unsigned started;
} pool;

typedef struct walk_ctx {
    sc_cuda_binaries *r;
    job **jobs;        /* every ELF file, in walk order */
    size_t njobs, cap;
    const char *root;
    sc_error *err;
    pool *p;           /* NULL: read on the walking thread */
} walk_ctx;

static sc_code oom(sc_error *err, const char *path)
{
    return sc_error_set(err, SC_E_OUT_OF_MEMORY, path, "out of memory auditing %s",
                        path != NULL ? path : "binaries");
}

typedef struct fd_section {
    int fd;
    uint64_t base;
} fd_section;

static int fd_read(void *ctx, uint64_t offset, void *buf, size_t len)
{
    const fd_section *s = ctx;
    char *p = buf;
    while (len > 0) {
        ssize_t n = pread(s->fd, p, len, (off_t)(s->base + offset));
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        if (n == 0) {
            errno = EIO; /* shorter than its section header says: truncated since */
            return -1;
        }
        p += n;
        len -= (size_t)n;
        offset += (uint64_t)n;
    }
    return 0;
}

static int code_count_cmp(const void *a, const void *b)
{
    const sc_cuda_code_count *x = a, *y = b;
    return sc_cuda_code_compare(&x->code, &y->code);
}

/* Fold entries (sorted by code) into distinct codes with their counts. */
static sc_code fold_codes(const sc_fatbin *fb, sc_cuda_binary *f, sc_error *err)
{
    if (fb->count == 0)
        return SC_OK;
    sc_cuda_code_count *all = calloc(fb->count, sizeof *all);
    if (all == NULL)
        return oom(err, f->path);
    for (size_t i = 0; i < fb->count; i++) {
        all[i].code = fb->entries[i].code;
        all[i].entries = 1;
        all[i].compressed = fb->entries[i].compressed ? 1 : 0;
        all[i].files = 1;
    }
    qsort(all, fb->count, sizeof *all, code_count_cmp);
    size_t n = 0;
    for (size_t i = 0; i < fb->count; i++) {
        if (n > 0 && sc_cuda_code_compare(&all[n - 1].code, &all[i].code) == 0) {
            all[n - 1].entries++;
            all[n - 1].compressed += all[i].compressed;
        } else {
            all[n++] = all[i];
        }
    }
    f->codes = all;
    f->code_count = n;
    return SC_OK;
}

/* Read one ELF file into f (its path and size already set). */
static sc_code audit_fd(int fd, const char *shown, sc_cuda_binary *f, sc_error *err)
{
    sc_error e;
    sc_error_clear(&e);
    sc_code rc = sc_elf_info_read_fd(fd, shown, &f->elf, &e);
    if (rc == SC_OK && f->elf.has_fatbin && f->elf.fatbin_size > 0) {
        fd_section s = {fd, f->elf.fatbin_offset};
        sc_fatbin fb;
        rc = sc_fatbin_read(fd_read, &s, f->elf.fatbin_size, shown, &fb, &e);
        if (rc == SC_OK) {
            f->fatbin_containers = fb.containers;
            f->fatbin_entries = fb.count;
            rc = fold_codes(&fb, f, &e);
            sc_fatbin_free(&fb);
        }
    }
    if (rc == SC_E_INVALID_ELF) {
        sc_elf_info_free(&f->elf);
        free(f->codes);
        f->codes = NULL;
        f->code_count = 0;
        f->fatbin_containers = f->fatbin_entries = 0;
        f->error = strdup(e.message);
        if (f->error == NULL)
            return oom(err, shown);
        return SC_OK;
    }
    if (rc != SC_OK) {
        if (err != NULL)
            *err = e;
        return rc;
    }
    return SC_OK;
}

static void run_job(job *j)
{
    sc_error_clear(&j->err);
    j->rc = audit_fd(j->fd, j->shown, j->f, &j->err);
    close(j->fd);
    j->fd = -1;
}

static void *worker(void *arg)
{
    pool *p = arg;
    for (;;) {
        pthread_mutex_lock(&p->lock);
        while (p->count == 0 && !p->done)
            pthread_cond_wait(&p->not_empty, &p->lock);
        if (p->count == 0) {
            pthread_mutex_unlock(&p->lock);
            return NULL;
        }
        job *j = p->ring[p->head];
        p->head = (p->head + 1) % QUEUE;
        p->count--;
        pthread_cond_signal(&p->not_full);
        pthread_mutex_unlock(&p->lock);
        run_job(j);
    }
}

static void enqueue(pool *p, job *j)
{
    pthread_mutex_lock(&p->lock);
    while (p->count == QUEUE)
        pthread_cond_wait(&p->not_full, &p->lock);
    p->ring[(p->head + p->count) % QUEUE] = j;
    p->count++;
    pthread_cond_signal(&p->not_empty);
    pthread_mutex_unlock(&p->lock);
}

/* Start up to n readers; p->started says how many did (0: read inline). */
static void pool_start(pool *p, unsigned n)
{
    memset(p, 0, sizeof *p);
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->not_empty, NULL);
    pthread_cond_init(&p->not_full, NULL);
    for (unsigned i = 0; i < n && i < SC_JOBS_MAX; i++) {
        if (sc_jobs_thread_start(&p->threads[i], worker, p) != 0)
            break;
        p->started++;
    }
}

/* No more jobs: the readers finish the queue and end. */
static void pool_finish(pool *p)
{
    pthread_mutex_lock(&p->lock);
    p->done = 1;
    pthread_cond_broadcast(&p->not_empty);
    pthread_mutex_unlock(&p->lock);
    for (unsigned i = 0; i < p->started; i++)
        pthread_join(p->threads[i], NULL);
    pthread_cond_destroy(&p->not_full);
    pthread_cond_destroy(&p->not_empty);
    pthread_mutex_destroy(&p->lock);
}

/* Look at one regular file open as fd; the descriptor is the job's from
 * here on (closed by run_job) when the file is ELF, else left to the
 * caller. *taken says which. */
static sc_code visit(walk_ctx *w, int fd, const char *rel, const char *shown, uint64_t size,
                     int *taken)
{
    *taken = 0;
    w->r->regular_files++;
    unsigned char magic[4];
    ssize_t got;
    do
        got = pread(fd, magic, sizeof magic, 0);
    while (got < 0 && errno == EINTR);
    if (got < 0)
        return sc_error_set(w->err, SC_E_IO, shown, "%s: cannot read: %s", shown, strerror(errno));
    if (!sc_elf_has_magic(magic, (size_t)got))
        return SC_OK;
    if (w->njobs == w->cap) {
        size_t cap = w->cap ? w->cap * 2 : 32;
        job **n = cap > SIZE_MAX / sizeof *n ? NULL : realloc(w->jobs, cap * sizeof *n);
        if (n == NULL)
            return oom(w->err, shown);
        w->jobs = n;
        w->cap = cap;
    }
    job *j = calloc(1, sizeof *j);
    sc_cuda_binary *f = calloc(1, sizeof *f);
    char *path = strdup(rel), *copy = strdup(shown);
    if (j == NULL || f == NULL || path == NULL || copy == NULL) {
        free(j);
        free(f);
        free(path);
        free(copy);
        return oom(w->err, shown);
    }
    f->path = path;
    f->size = size;
    j->f = f;
    j->fd = fd;
    j->shown = copy;
    w->jobs[w->njobs++] = j;
    *taken = 1;
    if (w->p != NULL && w->p->started > 0)
        enqueue(w->p, j);
    else
        run_job(j);
    return SC_OK;
}

static sc_code walk_fn(void *ctx, const sc_walk_entry *e, int *skip, sc_error *err)
{
    (void)skip;
    walk_ctx *w = ctx;
    if (!S_ISREG(e->st->st_mode))
        return SC_OK;
    int fd = openat(e->dirfd, e->name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    char *shown = sc_path_join(w->root, e->path);
    if (shown == NULL) {
        if (fd >= 0)
            close(fd);
        return oom(err, w->root);
    }
    sc_code rc;
    int taken = 0;
    if (fd < 0)
        rc = sc_error_set(err, SC_E_IO, shown, "%s: cannot open: %s", shown, strerror(errno));
    else
        rc = visit(w, fd, e->path, shown, (uint64_t)e->st->st_size, &taken);
    if (fd >= 0 && !taken)
        close(fd);
    free(shown);
    return rc;
}

static int file_cmp(const void *a, const void *b)
{
    const sc_cuda_binary *x = a, *y = b;
    return strcmp(x->path, y->path);
}

static int ref_cmp(const void *a, const void *b)
{
    const lib_ref *x = a, *y = b;
    int c = strcmp(x->soname, y->soname);
    if (c != 0)
        return c;
    return x->file < y->file ? -1 : x->file > y->file ? 1 : 0;
}

/* The tree's union of device code, from the files' own lists. */
static sc_code union_codes(sc_cuda_binaries *r, sc_error *err)
{
    size_t total = 0;
    for (size_t i = 0; i < r->file_count; i++) {
        total += r->files[i].code_count;
        if (r->files[i].fatbin_entries > 0)
            r->device_code_files++;
    }
    if (total == 0)
        return SC_OK;
    sc_cuda_code_count *all = calloc(total, sizeof *all);
    if (all == NULL)
        return oom(err, NULL);
    size_t k = 0;
    for (size_t i = 0; i < r->file_count; i++)
        for (size_t j = 0; j < r->files[i].code_count; j++)
            all[k++] = r->files[i].codes[j];
    qsort(all, total, sizeof *all, code_count_cmp);
    size_t n = 0;
    for (size_t i = 0; i < total; i++) {
        if (n > 0 && sc_cuda_code_compare(&all[n - 1].code, &all[i].code) == 0) {
            all[n - 1].entries += all[i].entries;
            all[n - 1].compressed += all[i].compressed;
            all[n - 1].files += all[i].files;
        } else {
            all[n++] = all[i];
        }
    }
    r->codes = all;
    r->code_count = n;
    return SC_OK;
}

/* Every soname shipped or needed, merged by soname. */
static sc_code collect_libraries(sc_cuda_binaries *r, sc_error *err)
{
    size_t total = 0;
    for (size_t i = 0; i < r->file_count; i++)
        total += r->files[i].elf.needed_count + (r->files[i].elf.soname != NULL);
    if (total == 0)
        return SC_OK;
    lib_ref *refs = calloc(total, sizeof *refs);
    if (refs == NULL)
        return oom(err, NULL);
    size_t k = 0;
    for (size_t i = 0; i < r->file_count; i++) {
        const sc_elf_info *e = &r->files[i].elf;
        if (e->soname != NULL)
            refs[k++] = (lib_ref){e->soname, i, 1};
        for (size_t j = 0; j < e->needed_count; j++)
            refs[k++] = (lib_ref){e->needed[j], i, 0};
    }
    qsort(refs, total, sizeof *refs, ref_cmp);
    size_t distinct = 0;
    for (size_t i = 0; i < total; i++)
        if (i == 0 || strcmp(refs[i - 1].soname, refs[i].soname) != 0)
            distinct++;
    r->libraries = calloc(distinct, sizeof *r->libraries);
    if (r->libraries == NULL) {
        free(refs);
        return oom(err, NULL);
    }
    size_t last_needed_file = (size_t)-1;
    for (size_t i = 0; i < total; i++) {
        sc_cuda_library *l;
        if (i == 0 || strcmp(refs[i - 1].soname, refs[i].soname) != 0) {
            l = &r->libraries[r->library_count++];
            l->soname = strdup(refs[i].soname);
            if (l->soname == NULL) {
                free(refs);
                return oom(err, NULL);
            }
            l->rule = sc_cuda_library_rule_find(l->soname, &l->major);
            if (l->rule == NULL)
                l->major = 0;
            last_needed_file = (size_t)-1;
        } else {
            l = &r->libraries[r->library_count - 1];
        }
        const char *path = r->files[refs[i].file].path;
        if (refs[i].shipped) {
            if (l->shipped_by == NULL)
                l->shipped_by = path;
        } else if (refs[i].file != last_needed_file) { /* a file naming it twice counts once */
            if (l->needed_by == NULL)
                l->needed_by = path;
            l->needed_count++;
            last_needed_file = refs[i].file;
        }
    }
    free(refs);
    return SC_OK;
}

/* A box archive (ZIP): extracted into a private temporary directory
 * ($TMPDIR, else /tmp), audited there, removed whatever happened. */
/* In every unreadable file's message, the temporary extraction directory
 * dir becomes the archive's path, so the report of a box archive does not
 * depend on where it was extracted (its JSON is the same on every run). */
static sc_code name_the_archive(sc_cuda_binaries *r, const char *dir, const char *archive,
                                sc_error *err)
{
    size_t dl = strlen(dir);
    for (size_t i = 0; i < r->file_count; i++) {
        char *m = r->files[i].error;
        if (m == NULL || strstr(m, dir) == NULL)
            continue;
        sc_strbuf b = SC_STRBUF_INIT;
        sc_code rc = SC_OK;
        for (const char *p = m, *hit; rc == SC_OK && *p != '\0'; p = hit + dl) {
            hit = strstr(p, dir);
            if (hit == NULL) {
                rc = sc_strbuf_adds(&b, p);
                break;
            }
            rc = sc_strbuf_add(&b, p, (size_t)(hit - p));
            if (rc == SC_OK)
                rc = sc_strbuf_adds(&b, archive);
        }
        char *named = rc == SC_OK ? sc_strbuf_detach(&b, NULL) : NULL;
        sc_strbuf_free(&b);
        if (named == NULL)
            return oom(err, archive);
        free(m);
        r->files[i].error = named;
    }
    return SC_OK;
}

static sc_code audit_archive(const char *archive, unsigned jobs, sc_cuda_binaries *out,
                             sc_error *err)
{
    sc_zip *z = NULL;
    sc_code rc = sc_zip_open(archive, NULL, &z, err);
    if (rc != SC_OK)
        return rc;
    const char *tmp = getenv("TMPDIR");
    char *dir = sc_path_join(tmp != NULL && *tmp != '\0' ? tmp : "/tmp", "scrollcase-audit-XXXXXX");
    if (dir == NULL) {
        sc_zip_close(z);
        return oom(err, archive);
    }
    int slot; /* an interruption removes it too (cleanup.h) */
    if (sc_cleanup_mkdtemp(dir, &slot) != 0) {
        rc = sc_error_set(err, SC_E_IO, dir, "%s: cannot make a temporary directory: %s", dir,
                          strerror(errno));
        sc_zip_close(z);
        free(dir);
        return rc;
    }
    rc = sc_zip_extract_with(z, dir, jobs, err);
    sc_zip_close(z);
    if (rc == SC_OK)
        rc = sc_cuda_binaries_audit_jobs(dir, jobs, out, err);
    if (rc == SC_OK)
        rc = name_the_archive(out, dir, archive, err);
    (void)sc_cleanup_remove_dir(slot, dir);
    free(dir);
    return rc;
}

/* Move the jobs' results into r->files; the first I/O failure (in path
 * order, whatever the number of readers) becomes the call's. */
static sc_code gather(walk_ctx *w, sc_code rc, sc_error *err)
{
    sc_cuda_binaries *r = w->r;
    const job *failed = NULL;
    for (size_t i = 0; i < w->njobs; i++)
        if (w->jobs[i]->rc != SC_OK &&
            (failed == NULL || strcmp(w->jobs[i]->f->path, failed->f->path) < 0))
            failed = w->jobs[i];
    if (rc == SC_OK && failed != NULL) {
        rc = failed->rc;
        if (err != NULL)
            *err = failed->err;
    }
    if (w->njobs > 0) {
        r->files = calloc(w->njobs, sizeof *r->files);
        if (r->files == NULL && rc == SC_OK)
            rc = oom(err, w->root);
    }
    for (size_t i = 0; i < w->njobs; i++) {
        job *j = w->jobs[i];
        if (r->files != NULL) {
            r->files[r->file_count++] = *j->f; /* owned by r from here on */
        } else {
            sc_cuda_binary *f = j->f;
            free(f->path);
            free(f->error);
            sc_elf_info_free(&f->elf);
            free(f->codes);
        }
        free(j->f);
        free(j->shown);
        free(j);
    }
    free(w->jobs);
    w->jobs = NULL;
    w->njobs = w->cap = 0;
    return rc;
}

sc_code sc_cuda_binaries_audit(const char *root, sc_cuda_binaries *out, sc_error *err)
{
    return sc_cuda_binaries_audit_jobs(root, 0, out, err);
}

sc_code sc_cuda_binaries_audit_jobs(const char *root, unsigned jobs, sc_cuda_binaries *out,
                                    sc_error *err)
{
    if (root == NULL || out == NULL)
        return sc_error_set(err, SC_E_USAGE, NULL, "sc_cuda_binaries_audit: no root or no output");
    memset(out, 0, sizeof *out);
    walk_ctx w = {out, NULL, 0, 0, root, err, NULL};
    struct stat st;
    sc_code rc;
    if (stat(root, &st) != 0) { /* the root itself may be a link */
        rc = sc_error_set(err, SC_E_IO, root, "%s: cannot audit: %s", root, strerror(errno));
    } else if (S_ISDIR(st.st_mode)) {
        unsigned n = sc_jobs_resolve(jobs);
        pool *p = n > 1 ? malloc(sizeof *p) : NULL;
        if (p != NULL) {
            pool_start(p, n);
            w.p = p;
        }
        rc = sc_file_walk(root, 0, walk_fn, &w, err);
        if (p != NULL) {
            pool_finish(p); /* every queued job is read before this returns */
            free(p);
        }
    } else if (S_ISREG(st.st_mode)) {
        int fd = open(root, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
        unsigned char magic[4] = {0};
        int taken = 0;
        if (fd < 0) {
            rc = sc_error_set(err, SC_E_IO, root, "%s: cannot open: %s", root, strerror(errno));
        } else if (pread(fd, magic, sizeof magic, 0) == 4 && memcmp(magic, "PK\3\4", 4) == 0) {
            close(fd);
            return audit_archive(root, jobs, out, err); /* out is empty */
        } else {
            const char *slash = strrchr(root, '/');
            rc = visit(&w, fd, slash != NULL ? slash + 1 : root, root, (uint64_t)st.st_size,
                       &taken);
            if (!taken)
                close(fd);
        }
    } else {
        rc = sc_error_set(err, SC_E_IO, root,
                          "%s: cannot audit: neither a directory nor a regular file", root);
    }
    rc = gather(&w, rc, err);
    if (rc == SC_OK && out->file_count > 0)
        qsort(out->files, out->file_count, sizeof *out->files, file_cmp);
    for (size_t i = 0; rc == SC_OK && i < out->file_count; i++) {
        out->elf_bytes += out->files[i].size;
        if (out->files[i].error != NULL)
            out->unreadable++;
    }
    if (rc == SC_OK)
        rc = union_codes(out, err);
    if (rc == SC_OK)
        rc = collect_libraries(out, err);
    if (rc != SC_OK)
        sc_cuda_binaries_free(out);
    return rc;
}

void sc_cuda_binaries_free(sc_cuda_binaries *r)
{
    if (r == NULL)
        return;
    for (size_t i = 0; i < r->file_count; i++) {
        sc_cuda_binary *f = &r->files[i];
        free(f->path);
        free(f->error);
        sc_elf_info_free(&f->elf);
        free(f->codes);
    }
    free(r->files);
    free(r->codes);
    for (size_t i = 0; i < r->library_count; i++)
        free(r->libraries[i].soname);
    free(r->libraries);
    memset(r, 0, sizeof *r);
}

const sc_cuda_library *sc_cuda_binaries_library(const sc_cuda_binaries *r, const char *soname)
{
    if (r == NULL || soname == NULL)
        return NULL;
    size_t lo = 0, hi = r->library_count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(soname, r->libraries[mid].soname);
        if (c == 0)
            return &r->libraries[mid];
        if (c < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    return NULL;
}

int sc_cuda_binaries_uses_cuda(const sc_cuda_binaries *r)
{
    if (r == NULL)
        return 0;
    if (r->code_count > 0)
        return 1;
    for (size_t i = 0; i < r->library_count; i++)
        if (r->libraries[i].rule != NULL)
            return 1;
    return 0;
}

size_t sc_cuda_binaries_majors(const sc_cuda_binaries *r, unsigned *majors, size_t cap)
{
    size_t n = 0;
    unsigned last = 0;
    /* Majors are small: count them in ascending order without sorting. */
    for (;;) {
        unsigned next = 0;
        int found = 0;
        for (size_t i = 0; r != NULL && i < r->library_count; i++) {
            const sc_cuda_library *l = &r->libraries[i];
            if (l->rule == NULL || l->rule->soname_class != SC_CUDA_SONAME_FOLLOWS_CUDA)
                continue;
            if ((n == 0 || l->major > last) && (!found || l->major < next)) {
                next = l->major;
                found = 1;
            }
        }
        if (!found)
            return n;
        if (n < cap && majors != NULL)
            majors[n] = next;
        n++;
        last = next;
    }
}

/* ---- JSON ----------------------------------------------------------------- */

static int put(sc_json *o, const char *key, sc_json *v)
{
    return v == NULL ? -1 : sc_json_object_append(o, key, v);
}

static int put_str(sc_json *o, const char *key, const char *s)
{
    return put(o, key, s != NULL ? sc_json_new_string(s) : sc_json_new_null());
}

static int put_num(sc_json *o, const char *key, uint64_t n)
{
    return put(o, key, sc_json_new_number((double)n));
}

static sc_json *code_names(const sc_cuda_code_count *codes, size_t n, int kind)
{
    sc_json *a = sc_json_new_array();
    for (size_t i = 0; a != NULL && i < n; i++) {
        if ((int)codes[i].code.kind != kind)
            continue;
        char name[32];
        sc_cuda_code_name(&codes[i].code, name, sizeof name);
        if (sc_json_array_append(a, sc_json_new_string(name)) != 0) {
            sc_json_free(a);
            return NULL;
        }
    }
    return a;
}

static sc_json *file_json(const sc_cuda_binary *f)
{
    sc_json *o = sc_json_new_object();
    if (o == NULL)
        return NULL;
    int bad = put_str(o, "path", f->path) | put_num(o, "size", f->size);
    if (f->error != NULL) {
        bad |= put_str(o, "error", f->error);
        if (bad) {
            sc_json_free(o);
            return NULL;
        }
        return o;
    }
    bad |= put_num(o, "bits", (uint64_t)f->elf.bits);
    bad |= put(o, "bigEndian", sc_json_new_bool(f->elf.big_endian));
    bad |= put_str(o, "soname", f->elf.soname);
    sc_json *needed = sc_json_new_array();
    for (size_t i = 0; needed != NULL && i < f->elf.needed_count; i++)
        bad |= sc_json_array_append(needed, sc_json_new_string(f->elf.needed[i]));
    bad |= put(o, "needed", needed);
    bad |= put_str(o, "rpath", f->elf.rpath);
    bad |= put_str(o, "runpath", f->elf.runpath);
    if (!f->elf.has_fatbin) {
        bad |= put(o, "fatbin", sc_json_new_null());
    } else {
        sc_json *fb = sc_json_new_object();
        sc_json *codes = sc_json_new_array();
        if (fb != NULL) {
            bad |= put_num(fb, "containers", f->fatbin_containers);
            bad |= put_num(fb, "entries", f->fatbin_entries);
        }
        for (size_t i = 0; codes != NULL && i < f->code_count; i++) {
            const sc_cuda_code_count *c = &f->codes[i];
            char name[32];
            sc_cuda_code_name(&c->code, name, sizeof name);
            sc_json *co = sc_json_new_object();
            if (co != NULL) {
                bad |= put_str(co, "name", name);
                bad |= put_str(co, "kind", c->code.kind == SC_FATBIN_PTX ? "ptx" : "cubin");
                bad |= put_num(co, "entries", c->entries);
                bad |= put_num(co, "compressed", c->compressed);
            }
            bad |= co == NULL ? -1 : sc_json_array_append(codes, co);
        }
        if (fb != NULL)
            bad |= put(fb, "codes", codes);
        else
            sc_json_free(codes);
        bad |= put(o, "fatbin", fb);
    }
    if (bad) {
        sc_json_free(o);
        return NULL;
    }
    return o;
}

static sc_json *library_json(const sc_cuda_library *l)
{
    sc_json *o = sc_json_new_object();
    if (o == NULL)
        return NULL;
    int bad = put_str(o, "soname", l->soname);
    if (l->rule != NULL) {
        bad |= put_str(o, "class", sc_cuda_soname_class_name(l->rule->soname_class));
        bad |= put_str(o, "component", l->rule->component);
        bad |= put_num(o, "major", l->major);
        bad |= put(o, "deviceCodeHidden", sc_json_new_bool(l->rule->device_code_hidden));
        if (l->rule->hidden_why != NULL)
            bad |= put_str(o, "hiddenWhy", l->rule->hidden_why);
    }
    bad |= put(o, "shipped", sc_json_new_bool(l->shipped_by != NULL));
    bad |= put_str(o, "shippedBy", l->shipped_by);
    bad |= put_str(o, "neededBy", l->needed_by);
    bad |= put_num(o, "neededCount", l->needed_count);
    if (bad) {
        sc_json_free(o);
        return NULL;
    }
    return o;
}

sc_code sc_cuda_binaries_to_json(const sc_cuda_binaries *r, const char *root, sc_json **out,
                                 sc_error *err)
{
    if (r == NULL || out == NULL)
        return sc_error_set(err, SC_E_USAGE, NULL, "sc_cuda_binaries_to_json: no report");
    *out = NULL;
    sc_json *o = sc_json_new_object();
    if (o == NULL)
        return oom(err, root);
    int bad = 0;
    if (root != NULL)
        bad |= put_str(o, "root", root);
    bad |= put_num(o, "regularFiles", r->regular_files);
    bad |= put_num(o, "elfFiles", r->file_count);
    bad |= put_num(o, "elfBytes", r->elf_bytes);
    bad |= put_num(o, "unreadable", r->unreadable);
    bad |= put_num(o, "deviceCodeFiles", r->device_code_files);
    bad |= put(o, "cubins", code_names(r->codes, r->code_count, SC_FATBIN_CUBIN));
    bad |= put(o, "ptx", code_names(r->codes, r->code_count, SC_FATBIN_PTX));
    sc_json *majors = sc_json_new_array();
    unsigned m[64];
    size_t nm = sc_cuda_binaries_majors(r, m, 64);
    for (size_t i = 0; majors != NULL && i < nm && i < 64; i++)
        bad |= sc_json_array_append(majors, sc_json_new_number(m[i]));
    bad |= put(o, "cudaMajors", majors);
    sc_json *libs = sc_json_new_array();
    for (size_t i = 0; libs != NULL && i < r->library_count; i++) {
        sc_json *l = library_json(&r->libraries[i]);
        bad |= l == NULL ? -1 : sc_json_array_append(libs, l);
    }
    bad |= put(o, "libraries", libs);
    sc_json *files = sc_json_new_array();
    for (size_t i = 0; files != NULL && i < r->file_count; i++) {
        sc_json *f = file_json(&r->files[i]);
        bad |= f == NULL ? -1 : sc_json_array_append(files, f);
    }
    bad |= put(o, "files", files);
    if (bad) {
        sc_json_free(o);
        return oom(err, root);
    }
    *out = o;
    return SC_OK;
}
