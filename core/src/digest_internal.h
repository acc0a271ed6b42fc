/* SPDX-License-Identifier: Apache-2.0 */
/*
 * digest_internal.h — starting libcrypto's SHA-256 once, before threads.
 *
 * sc_sha256_start runs the one start of digest.c (OpenSSL's library
 * context and the SHA-256 fetch) on the calling thread if it has not run
 * yet, and says whether SHA-256 is usable.  sc_jobs_thread_start calls it
 * before it creates any library thread, so libcrypto is started by one
 * thread while the address space is not yet taken by worker stacks: under
 * a memory limit, OpenSSL 3.0's default context that failed to start is
 * left with no lock and crashes the next thread that fetches through it.
 */
#ifndef SCROLLCASE_DIGEST_INTERNAL_H
#define SCROLLCASE_DIGEST_INTERNAL_H

/* 1 when SHA-256 can be started (now or earlier), 0 when its start failed. */
int sc_sha256_start(void);

#endif
