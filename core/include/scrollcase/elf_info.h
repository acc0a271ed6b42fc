/* SPDX-License-Identifier: Apache-2.0 */
/*
 * elf_info.h — what one ELF file says about its linking and its CUDA device
 * code: DT_NEEDED, DT_SONAME, DT_RPATH, DT_RUNPATH and where its
 * `.nv_fatbin` section lies.  Implemented in elf_info.c over Debian's
 * libelf (elfutils).
 *
 * Guarantees:
 * - 32- and 64-bit files, little- and big-endian, are read alike.
 * - Bounded reads: the ELF header, the section header table (and, for the
 *   2^32-sections form, section 0), the section name string table, the
 *   dynamic section and the string table it names.  Never the whole file,
 *   never the contents of `.nv_fatbin` (fatbin.h reads its headers).
 * - A hostile file (truncated header, a section or string table past the
 *   end of the file, e_shnum 0 with the real count in section 0, a DT_NEEDED
 *   offset past its string table, a dynamic section of absurd size) is
 *   SC_E_INVALID_ELF with a one-line message naming the file and what is
 *   wrong; no crash, time linear in the headers read.
 * - Every string is copied out: the result owns its memory and does not
 *   refer to the file or buffer it came from.
 * - Sections are what is read, not program headers: a file whose section
 *   header table was removed (sstrip) is read as one with no dynamic
 *   section and no `.nv_fatbin` (the dynamic loader would still follow its
 *   PT_DYNAMIC).  Neither nvcc, the CUDA toolkit nor auditwheel writes such
 *   files.
 */
#ifndef SCROLLCASE_ELF_INFO_H
#define SCROLLCASE_ELF_INFO_H

#include <stddef.h>
#include <stdint.h>

#include "scrollcase/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The first four bytes of every ELF file. */
#define SC_ELF_MAGIC "\177ELF"

typedef struct sc_elf_info {
    int bits;            /* 32 or 64 (EI_CLASS) */
    int big_endian;      /* 1 for ELFDATA2MSB, 0 for ELFDATA2LSB */
    unsigned type;       /* e_type: 1 ET_REL, 2 ET_EXEC, 3 ET_DYN, 4 ET_CORE */
    unsigned machine;    /* e_machine: 62 EM_X86_64, 183 EM_AARCH64, ... */
    int dynamic;         /* 1 when the file has a dynamic section */
    char *soname;        /* DT_SONAME; NULL when none */
    char **needed;       /* DT_NEEDED, in the dynamic section's order */
    size_t needed_count;
    char *rpath;         /* DT_RPATH; NULL when none */
    char *runpath;       /* DT_RUNPATH; NULL when none */
    int has_fatbin;      /* 1 when a section is named `.nv_fatbin` */
    uint64_t fatbin_offset; /* its sh_offset in the file (when has_fatbin) */
    uint64_t fatbin_size;   /* its sh_size; 0 for SHT_NOBITS.  Checked to lie
                               within the file. */
} sc_elf_info;

/* 1 when the first n bytes of a file start with SC_ELF_MAGIC (n >= 4). */
int sc_elf_has_magic(const void *bytes, size_t n);

/*
 * Read the open file fd (positioned anywhere; only pread/mmap are used, the
 * offset is left alone).  name is for messages (the file's path).  On SC_OK
 * *out is filled and owned by the caller (sc_elf_info_free); on failure it
 * is zeroed.  Codes: SC_E_INVALID_ELF (not an ELF file, or a malformed one),
 * SC_E_IO (the file cannot be read), SC_E_OUT_OF_MEMORY.
 */
sc_code sc_elf_info_read_fd(int fd, const char *name, sc_elf_info *out, sc_error *err);

/* The same for a path (opened read-only, closed before returning). */
sc_code sc_elf_info_read_file(const char *path, sc_elf_info *out, sc_error *err);

/* The same for bytes in memory (the fuzz target's entry point).  The
 * fatbin_offset/fatbin_size then index bytes. */
sc_code sc_elf_info_read_memory(const void *bytes, size_t len, const char *name,
                                sc_elf_info *out, sc_error *err);

/* Free what the result owns and zero it.  info may be NULL. */
void sc_elf_info_free(sc_elf_info *info);

#ifdef __cplusplus
}
#endif

#endif
