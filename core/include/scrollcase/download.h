/* SPDX-License-Identifier: Apache-2.0 */
/*
 * download.h — assets over HTTP(S) with libcurl (docs/format-v3.md 20.3).
 *
 * Guarantees: bytes go to "<dest>.part" and reach dest only by rename after
 * the size (and, when pinned, the SHA-256) matched, so dest never holds a
 * partial or unverified file.  An existing .part is resumed with
 * "Range: bytes=<n>-" and appended to only on 206; any other 2xx restarts
 * it from byte 0.  Redirects are followed, only to http and https.  A non-2xx
 * status is final (SC_E_DOWNLOAD_FAILED, not retried); network errors and
 * stalls are retried up to `attempts` times with a growing delay, then
 * SC_E_DOWNLOAD_FAILED.  Every download is bounded while it streams: in
 * bytes (the pin, else max_bytes) and in time (deadline_seconds over all
 * attempts).  No global state besides libcurl's own one-time
 * initialisation.
 */
#ifndef SCROLLCASE_DOWNLOAD_H
#define SCROLLCASE_DOWNLOAD_H

#include <stdint.h>

#include "scrollcase/error.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sc_download_options {
    int attempts;                 /* 0 = 5 */
    long connect_timeout_seconds; /* 0 = 30 */
    long stall_timeout_seconds;   /* 0 = 60: abort when < 1 byte/s for this long */
    unsigned retry_delay_ms;      /* 0 = 2000 (x attempt); tests set 1 */
    /* Called as bytes arrive (total 0 when unknown); may be NULL. */
    void (*progress)(void *ctx, const char *what, uint64_t done, uint64_t total);
    void *ctx;
    /* Without a pin: the most bytes accepted, enforced while receiving
     * (more stops at once -> SC_E_ASSET_SIZE, the .part deleted); 0 =
     * SC_DOWNLOAD_UNPINNED_MAX.  A pinned download is bounded by its pin. */
    uint64_t max_bytes;
    /* The whole download, every attempt and wait included, ends within this
     * many seconds (-> SC_E_DOWNLOAD_FAILED); 0 = SC_DOWNLOAD_DEADLINE_BASE
     * plus one second per MiB of the bound (the pin, else max_bytes).  The
     * stall rule alone never ends a server that sends 2 bytes a second. */
    long deadline_seconds;
} sc_download_options;

/* The default bound of a download without a pin: 64 GiB. */
#define SC_DOWNLOAD_UNPINNED_MAX ((uint64_t)64 * 1024 * 1024 * 1024)
/* The fixed part of the default deadline: 10 minutes. */
#define SC_DOWNLOAD_DEADLINE_BASE 600L

/*
 * Download url to dest (o may be NULL: defaults).  A regular file already at
 * dest with the pinned size and SHA-256 is kept and nothing is fetched.
 * size 0 pins only the digest (a lock's PyPI wheel has no size): any size
 * is accepted and the SHA-256 decides; a .part is still resumed.
 * Size differs ->
 * SC_E_ASSET_SIZE (the .part is kept for a later resume when it is shorter);
 * SHA-256 differs -> SC_E_ASSET_HASH (the .part is deleted); an existing dest
 * is replaced only by a verified file.
 */
sc_code sc_download_verified(const char *url, const char *dest, uint64_t size,
                             const char *sha256_hex, const sc_download_options *o,
                             sc_error *err);

/* Download without a pin (add asset / refresh): *size and sha256_hex of what
 * arrived, which is then at dest. */
sc_code sc_download_measure(const char *url, const char *dest,
                            const sc_download_options *o, uint64_t *size,
                            char sha256_hex[65], sc_error *err);

#ifdef __cplusplus
}
#endif

#endif
