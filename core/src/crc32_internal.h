/* SPDX-License-Identifier: Apache-2.0 */
/*
 * crc32_internal.h — the CRC-32 of ZIP entries (the zlib/PKZIP polynomial),
 * the one function every reader and writer of archive bytes uses (not
 * installed).
 *
 * Guarantees: the same value as zlib's crc32() for the same bytes, split
 * into any pieces; start from 0.  It is computed by libdeflate, whose
 * carry-less-multiply version ran at 10.3 GB/s on this project's 2-core
 * reference host against zlib 1.2.13's 1.5-1.7 GB/s (256 MiB, one thread):
 * at zlib's speed the CRC cost prepare 0.2 s of CPU per GiB of stored
 * entries and build as much again (bench/README.md).  core/tests checks it
 * against zlib's over pieces of every length from 0 to 4,100 bytes.
 */
#ifndef SC_CRC32_INTERNAL_H
#define SC_CRC32_INTERNAL_H

#include <libdeflate.h>
#include <stddef.h>
#include <stdint.h>

/* crc continued over the n bytes at p (n may be 0; any size). */
static inline uint32_t sc_crc32(uint32_t crc, const void *p, size_t n)
{
    return (uint32_t)libdeflate_crc32(crc, p, n);
}

#endif
