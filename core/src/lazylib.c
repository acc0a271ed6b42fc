/* SPDX-License-Identifier: Apache-2.0 */
/*
 * lazylib.c — libcurl and libarchive, loaded on first use
 * (lazylib_internal.h for the tables the library calls through,
 * scrollcase/libraries.h for what a program may ask about them).
 *
 * Each table member is checked at compile time against the library's own
 * prototype, so a table cannot drift from the headers it was built with.
 */
#include "lazylib_internal.h"

#include "scrollcase/libraries.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <string.h>

#ifndef SC_LIBCURL_SONAME
#define SC_LIBCURL_SONAME "libcurl.so.4"
#endif
#ifndef SC_LIBARCHIVE_SONAME
#define SC_LIBARCHIVE_SONAME "libarchive.so.13"
#endif
#ifndef SC_LIBCURL_PACKAGE
#define SC_LIBCURL_PACKAGE "libcurl4"
#endif
#ifndef SC_LIBARCHIVE_PACKAGE
#define SC_LIBARCHIVE_PACKAGE "libarchive13"
#endif

/* The member has exactly the type of a pointer to the library's function. */
#define SAME_TYPE(type, member, fn)                                                      \
    _Static_assert(__builtin_types_compatible_p(__typeof__(((type *)0)->member),        \
                                                __typeof__(&fn)),                        \
                   #member " is not " #fn)
#define SYM(type, member, fn) {#fn, offsetof(type, member)}

SAME_TYPE(sc_curl_api, global_init, curl_global_init);
SAME_TYPE(sc_curl_api, easy_init, curl_easy_init);
SAME_TYPE(sc_curl_api, easy_setopt, (curl_easy_setopt));
SAME_TYPE(sc_curl_api, easy_perform, curl_easy_perform);
SAME_TYPE(sc_curl_api, easy_getinfo, (curl_easy_getinfo));
SAME_TYPE(sc_curl_api, easy_cleanup, curl_easy_cleanup);
SAME_TYPE(sc_curl_api, easy_strerror, curl_easy_strerror);

static const sc_lazy_symbol curl_symbols[] = {
    SYM(sc_curl_api, global_init, curl_global_init),
    SYM(sc_curl_api, easy_init, curl_easy_init),
    SYM(sc_curl_api, easy_setopt, curl_easy_setopt),
    SYM(sc_curl_api, easy_perform, curl_easy_perform),
    SYM(sc_curl_api, easy_getinfo, curl_easy_getinfo),
    SYM(sc_curl_api, easy_cleanup, curl_easy_cleanup),
    SYM(sc_curl_api, easy_strerror, curl_easy_strerror),
};

SAME_TYPE(sc_archive_api, read_new, archive_read_new);
SAME_TYPE(sc_archive_api, read_support_filter_gzip, archive_read_support_filter_gzip);
SAME_TYPE(sc_archive_api, read_support_format_tar, archive_read_support_format_tar);
SAME_TYPE(sc_archive_api, read_support_format_gnutar, archive_read_support_format_gnutar);
SAME_TYPE(sc_archive_api, read_open_filename, archive_read_open_filename);
SAME_TYPE(sc_archive_api, read_next_header, archive_read_next_header);
SAME_TYPE(sc_archive_api, read_data, archive_read_data);
SAME_TYPE(sc_archive_api, read_data_into_fd, archive_read_data_into_fd);
SAME_TYPE(sc_archive_api, read_free, archive_read_free);
SAME_TYPE(sc_archive_api, error_string, archive_error_string);
SAME_TYPE(sc_archive_api, entry_pathname, archive_entry_pathname);
SAME_TYPE(sc_archive_api, entry_hardlink, archive_entry_hardlink);
SAME_TYPE(sc_archive_api, entry_symlink, archive_entry_symlink);
SAME_TYPE(sc_archive_api, entry_filetype, archive_entry_filetype);
SAME_TYPE(sc_archive_api, entry_perm, archive_entry_perm);
SAME_TYPE(sc_archive_api, read_support_filter_zstd, archive_read_support_filter_zstd);
SAME_TYPE(sc_archive_api, read_support_filter_bzip2, archive_read_support_filter_bzip2);
SAME_TYPE(sc_archive_api, read_support_format_zip_seekable,
          archive_read_support_format_zip_seekable);
SAME_TYPE(sc_archive_api, read_open, archive_read_open);
SAME_TYPE(sc_archive_api, read_data_skip, archive_read_data_skip);
SAME_TYPE(sc_archive_api, entry_size, archive_entry_size);
SAME_TYPE(sc_archive_api, errno_, archive_errno);

static const sc_lazy_symbol archive_symbols[] = {
    SYM(sc_archive_api, read_new, archive_read_new),
    SYM(sc_archive_api, read_support_filter_gzip, archive_read_support_filter_gzip),
    SYM(sc_archive_api, read_support_format_tar, archive_read_support_format_tar),
    SYM(sc_archive_api, read_support_format_gnutar, archive_read_support_format_gnutar),
    SYM(sc_archive_api, read_open_filename, archive_read_open_filename),
    SYM(sc_archive_api, read_next_header, archive_read_next_header),
    SYM(sc_archive_api, read_data, archive_read_data),
    SYM(sc_archive_api, read_data_into_fd, archive_read_data_into_fd),
    SYM(sc_archive_api, read_free, archive_read_free),
    SYM(sc_archive_api, error_string, archive_error_string),
    SYM(sc_archive_api, entry_pathname, archive_entry_pathname),
    SYM(sc_archive_api, entry_hardlink, archive_entry_hardlink),
    SYM(sc_archive_api, entry_symlink, archive_entry_symlink),
    SYM(sc_archive_api, entry_filetype, archive_entry_filetype),
    SYM(sc_archive_api, entry_perm, archive_entry_perm),
    SYM(sc_archive_api, read_support_filter_zstd, archive_read_support_filter_zstd),
    SYM(sc_archive_api, read_support_filter_bzip2, archive_read_support_filter_bzip2),
    SYM(sc_archive_api, read_support_format_zip_seekable,
        archive_read_support_format_zip_seekable),
    SYM(sc_archive_api, read_open, archive_read_open),
    SYM(sc_archive_api, read_data_skip, archive_read_data_skip),
    SYM(sc_archive_api, entry_size, archive_entry_size),
    SYM(sc_archive_api, errno_, archive_errno),
};

sc_code sc_lazy_archive_code(const sc_archive_api *la, struct archive *a, sc_code otherwise)
{
    int e = la != NULL && a != NULL ? la->errno_(a) : 0;
    if (e == ENOMEM)
        return SC_E_OUT_OF_MEMORY;
    if (e == ENOSPC || e == EDQUOT || e == EFBIG || e == EIO)
        return SC_E_IO;
    return otherwise;
}

sc_code sc_lazy_load(const char *soname, const char *package, const sc_lazy_symbol *symbols,
                     size_t count, void *table, sc_error *err)
{
    void *lib = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
    if (lib == NULL) {
        const char *why = dlerror();
        return sc_error_set(err, SC_E_LIBRARY_MISSING, soname,
                            "%s cannot be loaded (%s); install it: apt-get install %s", soname,
                            why != NULL ? why : "no reason given", package);
    }
    for (size_t i = 0; i < count; i++) {
        (void)dlerror();
        void *sym = dlsym(lib, symbols[i].name);
        if (sym == NULL) {
            sc_error_set(err, SC_E_LIBRARY_MISSING, soname,
                         "%s has no %s: not the library this scrollcase was built for; "
                         "install it: apt-get install %s",
                         soname, symbols[i].name, package);
            dlclose(lib);
            return SC_E_LIBRARY_MISSING;
        }
        /* POSIX: a function's address fits a void * and converts back. */
        memcpy((char *)table + symbols[i].offset, &sym, sizeof sym);
    }
    return SC_OK;
}

/* One library's table and the answer of its one load. */
typedef struct lazy {
    pthread_once_t once;
    void (*load)(void); /* pthread_once's routine: load(this lazy) */
    sc_library_info info;
    const sc_lazy_symbol *symbols;
    size_t count;
    void *table;       /* all NULL unless the load succeeded */
    size_t table_size;
    sc_error result;   /* SC_OK once the table is whole */
} lazy;

static void load(lazy *l)
{
    if (sc_lazy_load(l->info.soname, l->info.package, l->symbols, l->count, l->table,
                     &l->result) != SC_OK)
        memset(l->table, 0, l->table_size); /* no half table */
}

static void curl_load(void);
static void archive_load(void);

static sc_curl_api curl_table;
static lazy curl_lazy = {PTHREAD_ONCE_INIT, curl_load,
                         {"libcurl", SC_LIBCURL_SONAME, SC_LIBCURL_PACKAGE, "downloads"},
                         curl_symbols, sizeof curl_symbols / sizeof curl_symbols[0],
                         &curl_table, sizeof curl_table, {SC_OK, "", ""}};
static void curl_load(void) { load(&curl_lazy); }

static sc_archive_api archive_table;
static lazy archive_lazy = {PTHREAD_ONCE_INIT, archive_load,
                            {"libarchive", SC_LIBARCHIVE_SONAME, SC_LIBARCHIVE_PACKAGE,
                             "tar archives: packed environments and asset archives"},
                            archive_symbols, sizeof archive_symbols / sizeof archive_symbols[0],
                            &archive_table, sizeof archive_table, {SC_OK, "", ""}};
static void archive_load(void) { load(&archive_lazy); }

/* Load l once per process; every call gives that load's answer. */
static sc_code ensure(lazy *l, sc_error *err)
{
    pthread_once(&l->once, l->load);
    if (l->result.code == SC_OK)
        return SC_OK;
    if (err != NULL)
        *err = l->result;
    return l->result.code;
}

sc_code sc_lazy_curl(const sc_curl_api **api, sc_error *err)
{
    *api = &curl_table;
    return ensure(&curl_lazy, err);
}

sc_code sc_lazy_archive(const sc_archive_api **api, sc_error *err)
{
    *api = &archive_table;
    return ensure(&archive_lazy, err);
}

/* ---- libraries.h ---------------------------------------------------------- */

static lazy *const all[] = {&curl_lazy, &archive_lazy};

size_t sc_library_count(void)
{
    return sizeof all / sizeof all[0];
}

const sc_library_info *sc_library_at(size_t i)
{
    return i < sc_library_count() ? &all[i]->info : NULL;
}

sc_code sc_library_load(size_t i, sc_error *err)
{
    if (i >= sc_library_count())
        return sc_error_set(err, SC_E_USAGE, NULL, "sc_library_load: no library %zu", i);
    return ensure(all[i], err);
}
