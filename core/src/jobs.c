/* SPDX-License-Identifier: Apache-2.0 */
/*
 * jobs.c — the worker count of parallel steps (jobs.h): the CPUs of this
 * process's affinity mask, not of the machine.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "scrollcase/jobs.h"

#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <unistd.h>

#include "digest_internal.h"
#include "jobs_internal.h"

int sc_jobs_thread_start(pthread_t *thread, void *(*fn)(void *), void *arg)
{
    /* libcrypto is started by one thread, before the workers take their
     * stacks (digest_internal.h); a failed start is out-of-memory at the
     * first hash, never a crash in a worker */
    (void)sc_sha256_start();
    sigset_t term, old;
    sigemptyset(&term);
    sigaddset(&term, SIGINT);
    sigaddset(&term, SIGTERM);
    sigaddset(&term, SIGHUP);
    int held = pthread_sigmask(SIG_BLOCK, &term, &old) == 0;
    int rc = pthread_create(thread, NULL, fn, arg); /* inherits the mask */
    if (held)
        (void)pthread_sigmask(SIG_SETMASK, &old, NULL);
    return rc;
}

unsigned sc_jobs_available(void)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    long n = 0;
    if (sched_getaffinity(0, sizeof set, &set) == 0)
        n = CPU_COUNT(&set);
    if (n <= 0)
        n = sysconf(_SC_NPROCESSORS_ONLN);
    if (n <= 0)
        n = 1;
    return n > (long)SC_JOBS_MAX ? SC_JOBS_MAX : (unsigned)n;
}

unsigned sc_jobs_resolve(unsigned requested)
{
    if (requested == 0)
        return sc_jobs_available();
    return requested > SC_JOBS_MAX ? SC_JOBS_MAX : requested;
}
