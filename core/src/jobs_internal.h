/* SPDX-License-Identifier: Apache-2.0 */
/*
 * jobs_internal.h — how the library starts its helper threads (not
 * installed; implemented in jobs.c).
 *
 * Guarantees: every thread the library starts holds SIGINT, SIGTERM and
 * SIGHUP blocked, so a termination signal sent to the process runs its
 * handler on a thread of the caller (prepare's stage cleanup, 16.2): never
 * on a helper while the caller's thread goes on creating names in the
 * directory the handler is removing.
 */
#ifndef SC_JOBS_INTERNAL_H
#define SC_JOBS_INTERNAL_H

#include <pthread.h>

/* pthread_create with the termination signals blocked in the new thread
 * (the caller's mask is as it was on return).  0 or an errno value. */
int sc_jobs_thread_start(pthread_t *thread, void *(*fn)(void *), void *arg);

#endif
