/* SPDX-License-Identifier: Apache-2.0 */
/*
 * jobs.h — how many worker threads the library's parallel steps use.
 *
 * Hashing, compression and extraction split their work over worker threads.
 * A caller passes a job count (the CLI's --jobs N); 0 means "every CPU this
 * process may run on", read with sched_getaffinity, so a container or a
 * taskset limit is honoured and a 16-core runner uses 16.  Results never
 * depend on the count: every parallel step hands out work in a fixed order
 * and reports the first failure in that order.
 */
#ifndef SCROLLCASE_JOBS_H
#define SCROLLCASE_JOBS_H

#ifdef __cplusplus
extern "C" {
#endif

/* The most worker threads one step starts. */
#define SC_JOBS_MAX 256u

/* The CPUs in this process's affinity mask (at least 1, at most SC_JOBS_MAX). */
unsigned sc_jobs_available(void);

/* requested, or sc_jobs_available() when it is 0; capped at SC_JOBS_MAX. */
unsigned sc_jobs_resolve(unsigned requested);

#ifdef __cplusplus
}
#endif

#endif
