/* SPDX-License-Identifier: Apache-2.0 */
/*
 * lazylib_internal.h — libcurl and libarchive, loaded on first use (not
 * installed; implemented in lazylib.c).
 *
 * Guarantees: neither library is loaded before a caller asks for its table,
 * so the commands that never download (libcurl) and never read a tar
 * (libarchive) start without them and the three dozen shared objects they
 * bring: verify, prepare, attach, run, inspect.  Each table is resolved once
 * per process (pthread_once), whole or not at all: every member is set, or
 * the call fails with SC_E_LIBRARY_MISSING naming the soname (and the symbol
 * that is missing) and the package that provides it, and every later call
 * gives the same answer.  The libraries stay loaded until the process ends;
 * the tables are never freed.  Thread-safe.
 *
 * The sonames are the ones the build compiled against (SC_LIBCURL_SONAME,
 * SC_LIBARCHIVE_SONAME, from CMake), so the headers' types and the library
 * loaded at run time are the same ABI.
 */
#ifndef SC_LAZYLIB_INTERNAL_H
#define SC_LAZYLIB_INTERNAL_H

#include <archive.h>
#include <archive_entry.h>
#include <curl/curl.h>
#include <stddef.h>

#include "scrollcase/error.h"

typedef struct sc_curl_api {
    CURLcode (*global_init)(long flags);
    CURL *(*easy_init)(void);
    CURLcode (*easy_setopt)(CURL *curl, CURLoption option, ...);
    CURLcode (*easy_perform)(CURL *curl);
    CURLcode (*easy_getinfo)(CURL *curl, CURLINFO info, ...);
    void (*easy_cleanup)(CURL *curl);
    const char *(*easy_strerror)(CURLcode code);
} sc_curl_api;

typedef struct sc_archive_api {
    struct archive *(*read_new)(void);
    int (*read_support_filter_gzip)(struct archive *a);
    int (*read_support_format_tar)(struct archive *a);
    int (*read_support_format_gnutar)(struct archive *a);
    int (*read_open_filename)(struct archive *a, const char *path, size_t block);
    int (*read_next_header)(struct archive *a, struct archive_entry **entry);
    la_ssize_t (*read_data)(struct archive *a, void *buf, size_t size);
    int (*read_data_into_fd)(struct archive *a, int fd);
    int (*read_free)(struct archive *a);
    const char *(*error_string)(struct archive *a);
    const char *(*entry_pathname)(struct archive_entry *e);
    const char *(*entry_hardlink)(struct archive_entry *e);
    const char *(*entry_symlink)(struct archive_entry *e);
    __LA_MODE_T (*entry_filetype)(struct archive_entry *e);
    __LA_MODE_T (*entry_perm)(struct archive_entry *e);
    /* conda packages (conda_package.c): zstd and bzip2 streams, the ZIP of a
     * .conda read by its central directory, a tar nested in a ZIP member */
    int (*read_support_filter_zstd)(struct archive *a);
    int (*read_support_filter_bzip2)(struct archive *a);
    int (*read_support_format_zip_seekable)(struct archive *a);
    int (*read_open)(struct archive *a, void *client, archive_open_callback *open_cb,
                     archive_read_callback *read_cb, archive_close_callback *close_cb);
    int (*read_data_skip)(struct archive *a);
    la_int64_t (*entry_size)(struct archive_entry *e);
    int (*errno_)(struct archive *a);
} sc_archive_api;

/* The code of a libarchive failure on a: out-of-memory when libarchive says
 * ENOMEM (an allocation under a memory limit), io-error for a full disk, a
 * quota or the file-size limit (ENOSPC, EDQUOT, EFBIG, EIO), else
 * otherwise. */
sc_code sc_lazy_archive_code(const sc_archive_api *la, struct archive *a, sc_code otherwise);

/* The libcurl table, loading libcurl on the first call.  *api is set on
 * SC_OK; on failure err says which library or symbol is missing. */
sc_code sc_lazy_curl(const sc_curl_api **api, sc_error *err);

/* The libarchive table, loading libarchive on the first call. */
sc_code sc_lazy_archive(const sc_archive_api **api, sc_error *err);

/* One symbol of a table: its name and where it goes (offsetof the member). */
typedef struct sc_lazy_symbol {
    const char *name;
    size_t offset;
} sc_lazy_symbol;

/*
 * The loader behind both tables, for the tests: dlopen soname (RTLD_NOW,
 * RTLD_LOCAL) and store each symbol's address at table + offset.  On failure
 * nothing of the table is meant to be used, the handle is closed and err is
 * SC_E_LIBRARY_MISSING naming soname, the dynamic loader's reason, and
 * package (the Debian package to install).
 */
sc_code sc_lazy_load(const char *soname, const char *package, const sc_lazy_symbol *symbols,
                     size_t count, void *table, sc_error *err);

#endif
