/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cuda_binaries.h — the audit of what a payload's binaries contain: which
 * ELF files carry CUDA device code and for which architectures, which
 * libraries they ship (by DT_SONAME) and need (DT_NEEDED), and what the
 * CUDA libraries among them say of the CUDA major.  It answers "is this
 * really a CUDA build?" without a GPU.  Implemented in cuda_binaries.c over
 * elf_info.h and fatbin.h.
 *
 * Guarantees:
 * - Every regular file under the root is looked at (symbolic links are not
 *   followed and not listed; a hard-linked file is read once per name).
 *   A file that does not start with the ELF magic costs one 4-byte read.
 *   An ELF file costs its headers, its dynamic section and the headers of
 *   its `.nv_fatbin` containers: never its whole contents.
 * - A file that starts with the ELF magic but cannot be read as ELF (or
 *   whose `.nv_fatbin` is malformed) does not fail the audit: it is listed
 *   with `error` set to the invalid-elf message, counted in `unreadable`,
 *   and contributes nothing else.  The call itself fails only when the
 *   root or a directory or file cannot be opened or read (SC_E_IO), or
 *   memory runs out.
 * - The result is deterministic: files in byte order of their path,
 *   libraries in byte order of their soname, device code in the order of
 *   sc_cuda_code_compare; whatever the directory order, locale or jobs.
 * - Nothing is written.
 *
 * The library table (sc_cuda_library_rule_*) says which sonames are CUDA's
 * and how to read their major: only for SC_CUDA_SONAME_FOLLOWS_CUDA is the
 * soname's major the CUDA major (libcudart.so.13 in CUDA 13.0, .12 in
 * 12.x); the others carry their own numbering (libcufft.so.12 and
 * libcurand.so.10 in CUDA 13.0, libcudnn.so.9, libnccl.so.2) and must not
 * be judged by it; driver libraries (libcuda.so.1, libnvidia-ml.so.1) come
 * from the host and are expected to be needed and not shipped.
 */
#ifndef SCROLLCASE_CUDA_BINARIES_H
#define SCROLLCASE_CUDA_BINARIES_H

#include <stddef.h>
#include <stdint.h>

#include "scrollcase/elf_info.h"
#include "scrollcase/error.h"
#include "scrollcase/fatbin.h"
#include "scrollcase/json.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- the library table ---------------------------------------------- */

typedef enum sc_cuda_soname_class {
    SC_CUDA_SONAME_FOLLOWS_CUDA = 1, /* the soname's major is the CUDA major */
    SC_CUDA_SONAME_OWN_MAJOR = 2,    /* a CUDA library with its own numbering */
    SC_CUDA_SONAME_DRIVER = 3        /* installed with the driver, on the host */
} sc_cuda_soname_class;

typedef struct sc_cuda_library_rule {
    const char *stem;           /* the soname up to and including ".so":
                                   "libcudart.so", "libnvrtc-builtins.so" */
    sc_cuda_soname_class soname_class;
    const char *component;      /* for people: "CUDA runtime", "cuBLAS" */
    int device_code_hidden;     /* 1 when the audit cannot see all of its
                                   device code (kernels kept outside
                                   .nv_fatbin, or compiled at run time):
                                   a verdict must not refuse on its account */
    const char *hidden_why;     /* one line when device_code_hidden; else NULL */
} sc_cuda_library_rule;

/* The table, in a fixed order (by stem, bytes). */
size_t sc_cuda_library_rule_count(void);
const sc_cuda_library_rule *sc_cuda_library_rule_at(size_t i);

/*
 * The rule for a soname ("libcublasLt.so.13", "libnvrtc-builtins.so.13.0",
 * "libcudart.so.11.0"): the stem must match exactly, followed by "." and a
 * decimal major (further ".N" allowed).  The name auditwheel gives a
 * library it vendors into a wheel, 8 hex digits of its hash before ".so"
 * ("libcudart-d0da41ae.so.11.0"), is the library's.  *major (may be NULL)
 * gets that major.  NULL when the soname is not in the table or has no
 * major.
 */
const sc_cuda_library_rule *sc_cuda_library_rule_find(const char *soname, unsigned *major);

/* "follows-cuda", "own-major", "driver". */
const char *sc_cuda_soname_class_name(sc_cuda_soname_class c);

/* ---- the audit ------------------------------------------------------- */

/* Device code of one target in one file, or in the whole tree. */
typedef struct sc_cuda_code_count {
    sc_cuda_code code;
    size_t entries;     /* fatbin entries for it */
    size_t compressed;  /* of which compressed */
    size_t files;       /* files carrying it (1 in a file's own list) */
} sc_cuda_code_count;

/* One ELF file (or one file that starts like one). */
typedef struct sc_cuda_binary {
    char *path;               /* relative to the root, '/'-separated; the
                                 file's own name when the root is a file */
    uint64_t size;            /* st_size */
    char *error;              /* NULL when read; else the invalid-elf
                                 message, and nothing below is set */
    sc_elf_info elf;          /* soname, needed, rpath, runpath, fatbin place */
    size_t fatbin_containers; /* containers in .nv_fatbin */
    size_t fatbin_entries;    /* entries in them */
    sc_cuda_code_count *codes;/* distinct targets, sc_cuda_code_compare order */
    size_t code_count;
} sc_cuda_binary;

/* A soname shipped or needed somewhere in the tree. */
typedef struct sc_cuda_library {
    char *soname;
    const sc_cuda_library_rule *rule; /* NULL when not a CUDA/driver library */
    unsigned major;           /* the soname's major when rule != NULL */
    const char *shipped_by;   /* path of the first file (path order) whose
                                 DT_SONAME it is; NULL when not shipped.
                                 Points into the report's files. */
    const char *needed_by;    /* first file needing it; NULL when none */
    size_t needed_count;      /* files needing it */
} sc_cuda_library;

typedef struct sc_cuda_binaries {
    sc_cuda_binary *files;    /* every ELF file, by path */
    size_t file_count;
    sc_cuda_code_count *codes;/* the union over the tree */
    size_t code_count;
    sc_cuda_library *libraries; /* every soname shipped or needed, by soname */
    size_t library_count;
    size_t regular_files;     /* regular files looked at */
    size_t unreadable;        /* files with error set */
    size_t device_code_files; /* files with at least one fatbin entry */
    uint64_t elf_bytes;       /* total st_size of the ELF files */
} sc_cuda_binaries;

/*
 * Audit root: a directory (a prefix, a payload, an extracted box), walked
 * whole; a box archive (a file starting with the ZIP magic "PK\3\4"),
 * extracted (archive_read.h, its checks and limits) into a private
 * temporary directory under $TMPDIR (else /tmp) that is removed again
 * whatever happens, paths then being the archive's; or one other regular
 * file.  root itself may be a symbolic link.  On SC_OK *out is owned by
 * the caller (sc_cuda_binaries_free); on failure it is empty.  Codes:
 * SC_E_IO (root missing or unreadable, naming the path),
 * SC_E_OUT_OF_MEMORY, and for an archive the codes of sc_zip_open and
 * sc_zip_extract (invalid-archive, unsafe-path, extraction-limit, ...).
 */
sc_code sc_cuda_binaries_audit(const char *root, sc_cuda_binaries *out, sc_error *err);

/*
 * The same with the files read by `jobs` threads (jobs.h: 0 = every CPU of
 * the affinity mask; sc_cuda_binaries_audit is jobs 0).  The walk stays on
 * the calling thread and hands ELF files to the readers through a bounded
 * queue (64 open descriptors at most).  The report, and the error when
 * several files fail (the first in path order), do not depend on jobs.
 */
sc_code sc_cuda_binaries_audit_jobs(const char *root, unsigned jobs, sc_cuda_binaries *out,
                                    sc_error *err);

/* Free everything and zero r.  r may be NULL. */
void sc_cuda_binaries_free(sc_cuda_binaries *r);

/* The library entry for a soname; NULL when none. */
const sc_cuda_library *sc_cuda_binaries_library(const sc_cuda_binaries *r, const char *soname);

/*
 * 1 when anything in the tree is CUDA: a fatbin entry, or a library of the
 * table (any class, driver included) shipped or needed.  0 means the
 * payload, as far as its binaries tell, cannot use a GPU.
 */
int sc_cuda_binaries_uses_cuda(const sc_cuda_binaries *r);

/*
 * The CUDA majors the FOLLOWS_CUDA libraries (shipped or needed) say,
 * ascending and distinct: writes at most cap of them into majors and
 * returns how many there are.
 */
size_t sc_cuda_binaries_majors(const sc_cuda_binaries *r, unsigned *majors, size_t cap);

/*
 * The report as JSON (docs/schema/cli/audit-binaries.schema.json):
 * {"root", "regularFiles", "elfFiles", "elfBytes", "unreadable",
 *  "deviceCodeFiles",
 *  "cubins": ["sm_80", "sm_90a", ...], "ptx": ["compute_90", ...],
 *  "cudaMajors": [13],
 *  "libraries": [{"soname", "class" (absent when not CUDA's), "component",
 *                 "major", "shipped", "shippedBy", "neededBy",
 *                 "neededCount", "deviceCodeHidden", "hiddenWhy"}],
 *  "files": [{"path", "size", "error" | ("bits", "bigEndian", "soname",
 *             "needed", "rpath", "runpath", "fatbin": null |
 *             {"containers", "entries",
 *              "codes": [{"name", "kind", "entries", "compressed"}]})}]}
 * root is the string given (NULL: omitted).  *out is owned by the caller.
 */
sc_code sc_cuda_binaries_to_json(const sc_cuda_binaries *r, const char *root, sc_json **out,
                                 sc_error *err);

#ifdef __cplusplus
}
#endif

#endif
