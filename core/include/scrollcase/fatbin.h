/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fatbin.h — the CUDA fat binary containers of an ELF file's `.nv_fatbin`
 * section: which device code it carries, for which architectures.
 * Implemented in fatbin.c.
 *
 * The layout (little-endian, as nvcc writes it on every host it runs on):
 * a section holds one or more containers one after the other, each starting
 * on an 8-byte boundary of the section (zero bytes may pad the gap).  A
 * container is a 16-byte header — magic 0xBA55ED50 (u32), version (u16),
 * header size (u16), body size (u64) — followed by its body: entries one
 * after the other, each an entry header followed by its payload.  An entry
 * header is at least 64 bytes:
 *   0 kind (u16: 1 PTX, 2 ELF cubin)   2 version (u16)
 *   4 header size (u32)                8 payload size (u64, padded)
 *  16 compressed size (u32)           20 (u32; 64 for 64-bit PTX)
 *  24 code version minor, major (u16 each: PTX ISA / cubin ABI)
 *  28 architecture (u32: 90 for sm_90 / compute_90, 100 for sm_100)
 *  32 name offset, name size (u32 each)
 *  40 flags (u64)                     48 (u64)
 *  56 uncompressed size (u64; 0 unless compressed)
 * Flags: 0x1 64-bit, 0x10 Linux, 0x2000 and 0x8000 compressed (older
 * toolkits; CUDA 13's nvcc writes 0x8000), 0x100000 arch-specific (`a`,
 * sm_90a), 0x200000 family-specific (`f`, sm_100f).  Established against
 * nvcc 13.0 (fixtures/cuda_binaries.py compiles known sets and the tests
 * read them back); docs/drafts/cuda-binaries.md has the evidence.
 *
 * Guarantees: only headers are read (16 bytes per container, 64 per
 * entry), never payloads; compressed entries are reported, not
 * decompressed.  Every size is checked against what contains it before it
 * is used, with overflow-free arithmetic; a malformed section (bad magic,
 * an entry or container past its end, an entry header under 64 bytes, more
 * entries than the section can hold) is SC_E_INVALID_ELF naming the section
 * offset.  Time and memory are linear in the number of entries, which is at
 * most section size / 64.
 */
#ifndef SCROLLCASE_FATBIN_H
#define SCROLLCASE_FATBIN_H

#include <stddef.h>
#include <stdint.h>

#include "scrollcase/error.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SC_FATBIN_MAGIC 0xBA55ED50u

typedef enum sc_fatbin_kind {
    SC_FATBIN_PTX = 1,   /* PTX for a virtual architecture: compute_90 */
    SC_FATBIN_CUBIN = 2  /* an ELF cubin for a real architecture: sm_90 */
} sc_fatbin_kind;

/* The suffix of an architecture name. */
typedef enum sc_cuda_variant {
    SC_CUDA_VARIANT_NONE = 0,       /* sm_90, compute_80 */
    SC_CUDA_VARIANT_ARCH = 'a',     /* arch-specific: sm_90a, compute_100a */
    SC_CUDA_VARIANT_FAMILY = 'f'    /* family-specific: sm_100f */
} sc_cuda_variant;

/* One piece of device code's target: kind, architecture, variant. */
typedef struct sc_cuda_code {
    sc_fatbin_kind kind;
    unsigned arch;            /* major * 10 + minor: 90, 100, 121 */
    sc_cuda_variant variant;
} sc_cuda_code;

/* The flag bits named above. */
#define SC_FATBIN_FLAG_64BIT 0x1u
#define SC_FATBIN_FLAG_LINUX 0x10u
#define SC_FATBIN_FLAG_COMPRESSED_OLD 0x2000u
#define SC_FATBIN_FLAG_COMPRESSED 0x8000u
#define SC_FATBIN_FLAG_ARCH_SPECIFIC 0x100000u
#define SC_FATBIN_FLAG_FAMILY_SPECIFIC 0x200000u

typedef struct sc_fatbin_entry {
    sc_cuda_code code;
    int compressed;            /* 1 when a compressed flag is set */
    unsigned container;        /* index of its container in the section */
    uint64_t offset;           /* of its header, from the section's start */
    uint64_t payload_size;     /* bytes after its header (padded) */
    uint64_t uncompressed_size;/* as recorded; 0 when not compressed */
    uint64_t flags;            /* as recorded */
} sc_fatbin_entry;

typedef struct sc_fatbin {
    sc_fatbin_entry *entries;  /* in section order */
    size_t count, cap;
    size_t containers;
} sc_fatbin;

/*
 * Bounded reads of a section: copy len bytes at offset (from the section's
 * start) into buf; return 0 on success, -1 (errno set) on failure.  The
 * reader never asks for bytes past the size it was given.
 */
typedef int (*sc_fatbin_read_fn)(void *ctx, uint64_t offset, void *buf, size_t len);

/*
 * Read a section of `size` bytes through `read`.  name is for messages
 * (the file's path).  On SC_OK *out is filled and owned by the caller
 * (sc_fatbin_free); on failure it is empty.  Codes: SC_E_INVALID_ELF,
 * SC_E_IO (read failed), SC_E_OUT_OF_MEMORY.
 */
sc_code sc_fatbin_read(sc_fatbin_read_fn read, void *ctx, uint64_t size, const char *name,
                       sc_fatbin *out, sc_error *err);

/* The same for a section in memory (the fuzz target's entry point). */
sc_code sc_fatbin_parse(const void *bytes, size_t len, const char *name, sc_fatbin *out,
                        sc_error *err);

/* Free the entries and zero fb.  fb may be NULL. */
void sc_fatbin_free(sc_fatbin *fb);

/*
 * The architecture's name: "sm_90", "sm_90a", "sm_100f" for a cubin,
 * "compute_80", "compute_90a" for PTX.  Writes at most size bytes
 * (NUL-terminated when size > 0) and returns the length the full name has.
 * 16 bytes always suffice.
 */
size_t sc_cuda_code_name(const sc_cuda_code *code, char *buf, size_t size);

/* Parse such a name ("sm_" or "compute_", 2 or 3 digits with no leading
 * zero, an optional 'a' or 'f').  1 on success, 0 when it is not one. */
int sc_cuda_code_parse(const char *name, sc_cuda_code *out);

/* The canonical order: by kind (cubin, then PTX), then arch (numerically),
 * then variant (none, 'a', 'f').  <0, 0, >0 like strcmp. */
int sc_cuda_code_compare(const sc_cuda_code *a, const sc_cuda_code *b);

#ifdef __cplusplus
}
#endif

#endif
