/* SPDX-License-Identifier: Apache-2.0 */
/*
 * download.c — assets over HTTP(S) with libcurl (loaded on the first
 * download, lazylib_internal.h).
 *
 * Guarantees: see download.h.  One easy handle per attempt; the body goes
 * to "<dest>.part" through a descriptor we own.  The status of the final
 * response (after redirects) decides, at its first body byte, whether the
 * bytes append to the .part (206 to our Range request, starting exactly
 * where the .part ends) or replace it (any other 2xx).  A pinned size is
 * enforced while receiving: a response longer than the pin stops at once,
 * and so is the bound of an unpinned download (max_bytes).  One deadline
 * covers every attempt and wait: each attempt gets what is left of it as
 * libcurl's CURLOPT_TIMEOUT, and a retry never starts past it.  The
 * SHA-256 is computed over the finished .part with digest.h.
 */
#define _POSIX_C_SOURCE 200809L
#include "scrollcase/download.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "scrollcase/digest.h"
#include "lazylib_internal.h"

#ifndef SC_VERSION
#define SC_VERSION "0"
#endif

#define DL_DEFAULT_ATTEMPTS 5
#define DL_DEFAULT_CONNECT 30L
#define DL_DEFAULT_STALL 60L
#define DL_DEFAULT_DELAY_MS 2000u
#define DL_MAX_REDIRECTS 10L

static pthread_once_t g_curl_once = PTHREAD_ONCE_INIT;
static CURLcode g_curl_init_result = CURLE_OK;

static void curl_init_once(void)
{
    const sc_curl_api *cu;
    if (sc_lazy_curl(&cu, NULL) == SC_OK) /* loaded already: download() asked first */
        g_curl_init_result = cu->global_init(CURL_GLOBAL_DEFAULT);
    else
        g_curl_init_result = CURLE_FAILED_INIT;
}

/* What one attempt learnt. */
typedef struct dl_attempt {
    int fd;
    uint64_t offset;       /* bytes of the .part before this attempt */
    int range_requested;
    uint64_t limit;        /* the pinned size, 0 when none */
    uint64_t bound;        /* the most bytes accepted without a pin */
    int decided;           /* the first body byte arrived: mode chosen */
    int discarding;        /* a non-2xx body: not written */
    uint64_t written;      /* bytes written by this attempt (after restart/append) */
    uint64_t base;         /* file length the written bytes follow */
    int64_t range_start;   /* from Content-Range of the final response, -1 if none */
    int write_failed;      /* errno of a failed write, or 0 */
    int oversize;          /* more bytes than the pin */
    int bad_range;         /* 206 that does not start where the .part ends */
    CURL *curl;
    const sc_curl_api *cu; /* the libcurl the attempt runs on */
    const sc_download_options *o;
    const char *what;
} dl_attempt;

static size_t on_header(char *buf, size_t size, size_t n, void *userdata)
{
    dl_attempt *a = userdata;
    size_t len = size * n;
    if (len >= 5 && memcmp(buf, "HTTP/", 5) == 0) {
        a->range_start = -1; /* a new response (redirects, 100-continue) */
        return len;
    }
    static const char key[] = "content-range:";
    size_t klen = sizeof key - 1;
    if (len > klen) {
        size_t i;
        for (i = 0; i < klen; i++) {
            char c = buf[i];
            if (c >= 'A' && c <= 'Z')
                c = (char)(c - 'A' + 'a');
            if (c != key[i])
                break;
        }
        if (i == klen) {
            const char *p = buf + klen;
            const char *end = buf + len;
            while (p < end && (*p == ' ' || *p == '\t'))
                p++;
            if (end - p > 6 && memcmp(p, "bytes ", 6) == 0) {
                p += 6;
                int64_t v = 0;
                int any = 0;
                while (p < end && *p >= '0' && *p <= '9' && v < INT64_MAX / 10 - 10) {
                    v = v * 10 + (*p - '0');
                    p++;
                    any = 1;
                }
                a->range_start = any ? v : -1;
            }
        }
    }
    return len;
}

static int write_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return errno ? errno : EIO;
        }
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

static size_t on_body(char *buf, size_t size, size_t n, void *userdata)
{
    dl_attempt *a = userdata;
    size_t len = size * n;
    if (!a->decided) {
        long code = 0;
        a->cu->easy_getinfo(a->curl, CURLINFO_RESPONSE_CODE, &code);
        a->decided = 1;
        if (code < 200 || code > 299) {
            a->discarding = 1;
        } else if (code == 206 && a->range_requested) {
            if (a->range_start != (int64_t)a->offset) {
                a->bad_range = 1;
                return 0;
            }
            if (lseek(a->fd, 0, SEEK_END) < 0) {
                a->write_failed = errno;
                return 0;
            }
            a->base = a->offset;
        } else {
            /* 200 (or a 206 we did not ask for): start again from byte 0 */
            if (ftruncate(a->fd, 0) != 0 || lseek(a->fd, 0, SEEK_SET) < 0) {
                a->write_failed = errno;
                return 0;
            }
            a->base = 0;
        }
    }
    if (a->discarding)
        return len;
    if ((a->limit > 0 && a->base + a->written + len > a->limit) ||
        (a->limit == 0 && a->base + a->written + len > a->bound)) {
        a->oversize = 1;
        return 0;
    }
    int e = write_all(a->fd, buf, len);
    if (e != 0) {
        a->write_failed = e;
        return 0;
    }
    a->written += len;
    return len;
}

static int on_progress(void *userdata, curl_off_t dltotal, curl_off_t dlnow,
                       curl_off_t ultotal, curl_off_t ulnow)
{
    (void)ultotal;
    (void)ulnow;
    dl_attempt *a = userdata;
    if (a->o && a->o->progress && a->decided && !a->discarding) {
        uint64_t done = a->base + (uint64_t)(dlnow > 0 ? dlnow : 0);
        uint64_t total = a->limit;
        if (total == 0 && dltotal > 0)
            total = a->base + (uint64_t)dltotal;
        a->o->progress(a->o->ctx, a->what, done, total);
    }
    return 0;
}

static void sleep_ms(unsigned long ms)
{
    struct timespec ts;
    ts.tv_sec = (time_t)(ms / 1000);
    ts.tv_nsec = (long)(ms % 1000) * 1000000L;
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

static long elapsed_ms(const struct timespec *since)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (long)(now.tv_sec - since->tv_sec) * 1000L +
           (long)(now.tv_nsec - since->tv_nsec) / 1000000L;
}

static int retryable_status(long code)
{
    return code >= 500 || code == 408 || code == 429;
}

static void fsync_parent(const char *path)
{
    const char *slash = strrchr(path, '/');
    char *dir;
    if (!slash)
        dir = strdup(".");
    else if (slash == path)
        dir = strdup("/");
    else
        dir = strndup(path, (size_t)(slash - path));
    if (!dir)
        return;
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        (void)fsync(fd);
        close(fd);
    }
    free(dir);
}

/* 1 when dest is a regular file (not a link) of the pinned size (0: any)
 * and digest. */
static int dest_already_verified(const char *dest, uint64_t size, const char *want_hex)
{
    struct stat st;
    if (lstat(dest, &st) != 0 || !S_ISREG(st.st_mode) ||
        (size > 0 && (uint64_t)st.st_size != size))
        return 0;
    unsigned char md[SC_SHA256_LEN];
    sc_error ignored;
    if (sc_sha256_file(dest, md, &ignored) != SC_OK)
        return 0;
    char hex[SC_SHA256_LEN * 2 + 1];
    sc_hex_lower(md, SC_SHA256_LEN, hex);
    return strcmp(hex, want_hex) == 0;
}

/*
 * The shared engine.  limit: the pinned size or 0; want_hex: the pinned
 * digest or NULL.  On success dest holds the bytes, *got_size and got_hex
 * describe them.
 */
static sc_code download(const char *url, const char *dest, uint64_t limit,
                        const char *want_hex, const sc_download_options *o,
                        uint64_t *got_size, char got_hex[65], sc_error *err)
{
    if (!url || !dest || !*url || !*dest)
        return sc_error_set(err, SC_E_USAGE, NULL, "download needs a URL and a destination");
    if (want_hex && !sc_is_lower_hex(want_hex, strlen(want_hex), 64))
        return sc_error_set(err, SC_E_USAGE, url, "the pinned SHA-256 is not 64 lowercase hex digits");
    int attempts = o && o->attempts > 0 ? o->attempts : DL_DEFAULT_ATTEMPTS;
    long connect_to = o && o->connect_timeout_seconds > 0 ? o->connect_timeout_seconds
                                                          : DL_DEFAULT_CONNECT;
    long stall = o && o->stall_timeout_seconds > 0 ? o->stall_timeout_seconds : DL_DEFAULT_STALL;
    unsigned delay = o && o->retry_delay_ms > 0 ? o->retry_delay_ms : DL_DEFAULT_DELAY_MS;
    uint64_t bound = o && o->max_bytes > 0 ? o->max_bytes : SC_DOWNLOAD_UNPINNED_MAX;
    uint64_t reach = limit > 0 ? limit : bound;
    long deadline = o && o->deadline_seconds > 0
                        ? o->deadline_seconds
                        : SC_DOWNLOAD_DEADLINE_BASE + (long)(reach / (1024 * 1024));
    struct timespec started;
    clock_gettime(CLOCK_MONOTONIC, &started);

    /* A pinned file already in place is kept without a request. */
    if (want_hex && dest_already_verified(dest, limit, want_hex))
        return SC_OK;

    /* Only now is libcurl needed: loaded on the first download of the process. */
    const sc_curl_api *cu;
    sc_code loaded = sc_lazy_curl(&cu, err);
    if (loaded != SC_OK)
        return loaded;
    pthread_once(&g_curl_once, curl_init_once);
    if (g_curl_init_result != CURLE_OK) /* its only failure is an allocation */
        return sc_error_set(err, SC_E_OUT_OF_MEMORY, NULL, "libcurl could not be initialised: %s",
                            cu->easy_strerror(g_curl_init_result));

    size_t dlen = strlen(dest);
    char *part = malloc(dlen + 6);
    if (!part)
        return sc_error_set(err, SC_E_OUT_OF_MEMORY, dest, "out of memory");
    memcpy(part, dest, dlen);
    memcpy(part + dlen, ".part", 6);

    /* Without a pin a stale .part cannot be trusted: start from nothing
     * (a pinned digest alone still decides what is kept, so it may resume). */
    if (limit == 0 && want_hex == NULL && unlink(part) != 0 && errno != ENOENT) {
        sc_code rc = sc_error_set(err, SC_E_IO, part, "cannot remove %s: %s", part, strerror(errno));
        free(part);
        return rc;
    }

    int fd = open(part, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (fd < 0) {
        sc_code rc = sc_error_set(err, SC_E_IO, part, "cannot open %s: %s", part, strerror(errno));
        free(part);
        return rc;
    }

    sc_code rc = SC_OK;
    char curl_msg[CURL_ERROR_SIZE];
    char last_failure[SC_ERROR_MESSAGE_MAX] = "";
    int done = 0;
    int out_of_time = 0;
    for (int attempt = 1; attempt <= attempts && !done && rc == SC_OK; attempt++) {
        if (attempt > 1)
            sleep_ms((unsigned long)delay * (unsigned long)(attempt - 1));
        long left_ms = deadline * 1000L - elapsed_ms(&started);
        if (left_ms <= 0) {
            out_of_time = 1;
            break;
        }
        struct stat st;
        if (fstat(fd, &st) != 0) {
            rc = sc_error_set(err, SC_E_IO, part, "cannot stat %s: %s", part, strerror(errno));
            break;
        }
        uint64_t have = (uint64_t)st.st_size;
        if (limit > 0 && have > limit) {
            if (ftruncate(fd, 0) != 0) {
                rc = sc_error_set(err, SC_E_IO, part, "cannot truncate %s: %s", part, strerror(errno));
                break;
            }
            have = 0;
        }
        if (limit > 0 && have == limit) {
            done = 1; /* everything is here already: verify below */
            break;
        }

        dl_attempt a;
        memset(&a, 0, sizeof a);
        a.fd = fd;
        a.offset = have;
        a.range_requested = have > 0;
        a.limit = limit;
        a.bound = bound;
        a.range_start = -1;
        a.o = o;
        a.what = url;
        a.cu = cu;
        CURL *c = cu->easy_init();
        if (!c) {
            rc = sc_error_set(err, SC_E_OUT_OF_MEMORY, url, "libcurl could not create a handle");
            break;
        }
        a.curl = c;
        char range[48];
        curl_msg[0] = '\0';
        cu->easy_setopt(c, CURLOPT_URL, url);
        cu->easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
#if LIBCURL_VERSION_NUM >= 0x075500
        cu->easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
        cu->easy_setopt(c, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
#else
        cu->easy_setopt(c, CURLOPT_PROTOCOLS, (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
        cu->easy_setopt(c, CURLOPT_REDIR_PROTOCOLS, (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
#endif
        cu->easy_setopt(c, CURLOPT_FOLLOWLOCATION, 1L);
        cu->easy_setopt(c, CURLOPT_MAXREDIRS, DL_MAX_REDIRECTS);
        cu->easy_setopt(c, CURLOPT_CONNECTTIMEOUT, connect_to);
        cu->easy_setopt(c, CURLOPT_LOW_SPEED_LIMIT, 1L);
        cu->easy_setopt(c, CURLOPT_LOW_SPEED_TIME, stall);
        cu->easy_setopt(c, CURLOPT_TIMEOUT_MS, left_ms);
        cu->easy_setopt(c, CURLOPT_USERAGENT, "scrollcase/" SC_VERSION);
        cu->easy_setopt(c, CURLOPT_ERRORBUFFER, curl_msg);
        cu->easy_setopt(c, CURLOPT_HEADERFUNCTION, on_header);
        cu->easy_setopt(c, CURLOPT_HEADERDATA, &a);
        cu->easy_setopt(c, CURLOPT_WRITEFUNCTION, on_body);
        cu->easy_setopt(c, CURLOPT_WRITEDATA, &a);
        cu->easy_setopt(c, CURLOPT_XFERINFOFUNCTION, on_progress);
        cu->easy_setopt(c, CURLOPT_XFERINFODATA, &a);
        cu->easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
        if (a.range_requested) {
            snprintf(range, sizeof range, "%" PRIu64 "-", have);
            cu->easy_setopt(c, CURLOPT_RANGE, range);
        }
        CURLcode res = cu->easy_perform(c);
        long code = 0;
        cu->easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
        cu->easy_cleanup(c);

        if (a.write_failed) {
            rc = sc_error_set(err, SC_E_IO, part, "cannot write %s: %s", part,
                              strerror(a.write_failed));
        } else if (a.oversize && limit > 0) {
            (void)unlink(part);
            rc = sc_error_set(err, SC_E_ASSET_SIZE, dest,
                              "%s sends more than the pinned %" PRIu64 " bytes", url, limit);
        } else if (a.oversize) {
            (void)unlink(part);
            rc = sc_error_set(err, SC_E_ASSET_SIZE, dest,
                              "%s sends more than %" PRIu64 " bytes, the most a download "
                              "without a pin may bring%s",
                              url, bound,
                              o && o->max_bytes > 0 ? "" : " (64 GiB by default)");
        } else if (a.bad_range) {
            rc = sc_error_set(err, SC_E_DOWNLOAD_FAILED, url,
                              "%s answered the resume at byte %" PRIu64
                              " with a range starting elsewhere", url, have);
        } else if (res == CURLE_OK && code >= 200 && code <= 299) {
            if (!a.decided && !(code == 206 && a.range_requested)) {
                /* an empty 2xx body: the file is empty */
                if (ftruncate(fd, 0) != 0)
                    rc = sc_error_set(err, SC_E_IO, part, "cannot truncate %s: %s", part,
                                      strerror(errno));
            }
            done = 1;
        } else if (res == CURLE_OK && !retryable_status(code)) {
            rc = sc_error_set(err, SC_E_DOWNLOAD_FAILED, url, "%s answered HTTP %ld", url, code);
        } else if (res == CURLE_OK) {
            snprintf(last_failure, sizeof last_failure, "HTTP %ld", code);
        } else if (res == CURLE_UNSUPPORTED_PROTOCOL || res == CURLE_URL_MALFORMAT ||
                   res == CURLE_TOO_MANY_REDIRECTS) {
            rc = sc_error_set(err, SC_E_DOWNLOAD_FAILED, url, "%s: %s", url,
                              curl_msg[0] ? curl_msg : cu->easy_strerror(res));
        } else {
            snprintf(last_failure, sizeof last_failure, "%s",
                     curl_msg[0] ? curl_msg : cu->easy_strerror(res));
        }
        if (rc == SC_OK && !done && elapsed_ms(&started) >= deadline * 1000L) {
            out_of_time = 1;
            break;
        }
    }
    if (rc == SC_OK && !done && out_of_time)
        rc = sc_error_set(err, SC_E_DOWNLOAD_FAILED, url,
                          "%s did not finish within %ld s, the deadline of the whole download",
                          url, deadline);
    else if (rc == SC_OK && !done)
        rc = sc_error_set(err, SC_E_DOWNLOAD_FAILED, url, "%s failed after %d attempt%s: %s", url,
                          attempts, attempts == 1 ? "" : "s", last_failure);

    struct stat st;
    if (rc == SC_OK && fstat(fd, &st) != 0)
        rc = sc_error_set(err, SC_E_IO, part, "cannot stat %s: %s", part, strerror(errno));
    if (rc == SC_OK && fsync(fd) != 0)
        rc = sc_error_set(err, SC_E_IO, part, "cannot sync %s: %s", part, strerror(errno));
    if (close(fd) != 0 && rc == SC_OK)
        rc = sc_error_set(err, SC_E_IO, part, "cannot close %s: %s", part, strerror(errno));
    if (rc != SC_OK) {
        free(part);
        return rc;
    }
    uint64_t size = (uint64_t)st.st_size;
    if (limit > 0 && size != limit) {
        rc = sc_error_set(err, SC_E_ASSET_SIZE, dest,
                          "%s gave %" PRIu64 " bytes, the pin says %" PRIu64 " (kept %s)", url,
                          size, limit, part);
        free(part);
        return rc;
    }
    unsigned char md[SC_SHA256_LEN];
    rc = sc_sha256_file(part, md, err);
    if (rc != SC_OK) {
        free(part);
        return rc;
    }
    char hex[65];
    sc_hex_lower(md, SC_SHA256_LEN, hex);
    hex[64] = '\0';
    if (want_hex && strcmp(hex, want_hex) != 0) {
        (void)unlink(part);
        rc = sc_error_set(err, SC_E_ASSET_HASH, dest, "%s has SHA-256 %s, the pin says %s", url,
                          hex, want_hex);
        free(part);
        return rc;
    }
    if (rename(part, dest) != 0) {
        rc = sc_error_set(err, SC_E_IO, dest, "cannot rename %s to %s: %s", part, dest,
                          strerror(errno));
        free(part);
        return rc;
    }
    fsync_parent(dest);
    free(part);
    if (got_size)
        *got_size = size;
    if (got_hex)
        memcpy(got_hex, hex, 65);
    return SC_OK;
}

sc_code sc_download_verified(const char *url, const char *dest, uint64_t size,
                             const char *sha256_hex, const sc_download_options *o,
                             sc_error *err)
{
    if (!sha256_hex)
        return sc_error_set(err, SC_E_USAGE, url, "a pinned asset needs its SHA-256");
    return download(url, dest, size, sha256_hex, o, NULL, NULL, err);
}

sc_code sc_download_measure(const char *url, const char *dest,
                            const sc_download_options *o, uint64_t *size,
                            char sha256_hex[65], sc_error *err)
{
    return download(url, dest, 0, NULL, o, size, sha256_hex, err);
}
