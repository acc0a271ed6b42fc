/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cleanup_internal.h — holding the signals cleanup.h's handler answers
 * while a temporary name is made and registered (library-internal: the
 * public header stays plain C without POSIX types).
 */
#ifndef SC_CLEANUP_INTERNAL_H
#define SC_CLEANUP_INTERNAL_H

#include <signal.h>

#include "scrollcase/cleanup.h"

/* Block SIGINT, SIGTERM and SIGHUP on this thread (old: the mask to give
 * back to sc_cleanup_release), so that a name made and then registered is
 * never missed. */
void sc_cleanup_hold(sigset_t *old);
void sc_cleanup_release(const sigset_t *old);

#endif
