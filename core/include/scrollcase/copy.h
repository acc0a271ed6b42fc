/* SPDX-License-Identifier: Apache-2.0 */
/*
 * copy.h — copying a file's bytes without passing them through this process
 * where the kernel can do it: a reflink (FICLONE, btrfs/XFS: no bytes copied
 * at all), else copy_file_range (in the kernel, no user-space buffer), else
 * read/write in 1 MiB steps.
 */
#ifndef SCROLLCASE_COPY_H
#define SCROLLCASE_COPY_H

#include "scrollcase/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Copy everything from descriptor in (at its start) to out, an empty regular
 * file open for writing.  from/to name them in errors (SC_E_IO).
 */
sc_code sc_copy_fd(int in, int out, const char *from, const char *to, sc_error *err);

#ifdef __cplusplus
}
#endif

#endif
