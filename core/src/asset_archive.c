/* SPDX-License-Identifier: Apache-2.0 */
/*
 * asset_archive.c — expanding assetArchives into the payload.
 *
 * Guarantees: see asset_archive.h.  A tar.gz may hold only regular files
 * and directories: a symbolic or hard link is SC_E_LINK_ENTRY, any other
 * type SC_E_SPECIAL_ENTRY.  A zip passes every check of archive_read.h, so
 * its links resolve, lexically, to files inside the archive; they are
 * copied into the payload as regular files holding their target's bytes.  The copy runs in
 * two passes over the (stripped) tree in byte order of names: the first
 * finds every conflict with what the payload already holds and every pair
 * of names equal after ASCII case folding (within a directory of the
 * archive, and against the payload's), so a refused archive changes nothing
 * in the payload; the second copies.  Both formats write their files through
 * one function (write_new_file), fed by libarchive or by read(2).  The
 * destination is reached one segment at a time with openat(O_NOFOLLOW), so
 * nothing is written through a link already in the payload.
 */
#define _POSIX_C_SOURCE 200809L
#include "scrollcase/asset_archive.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "scrollcase/archive_read.h"
#include "scrollcase/box.h"
#include "scrollcase/file.h"
#include "scrollcase/path.h"
#include "lazylib_internal.h"

#define COPY_BUFFER ((size_t)256 * 1024)
#define MAX_STRIP 64

static int skipped_name(const char *name)
{
    size_t n = strlen(name);
    if (strcmp(name, "__pycache__") == 0 || strcmp(name, ".DS_Store") == 0)
        return 1;
    return n >= 4 && strcmp(name + n - 4, ".pyc") == 0;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

typedef struct name_list {
    char **v;
    size_t n;
} name_list;

static void names_free(name_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->v[i]);
    free(l->v);
    l->v = NULL;
    l->n = 0;
}

/* The names in dir (a descriptor that is consumed), sorted by bytes. */
static sc_code list_dir(int dfd, const char *shown, name_list *out, sc_error *err)
{
    out->v = NULL;
    out->n = 0;
    DIR *d = fdopendir(dfd);
    if (!d) {
        int e = errno;
        close(dfd);
        return sc_error_set(err, SC_E_IO, shown, "cannot read %s: %s", shown, strerror(e));
    }
    rewinddir(d); /* dfd may share its offset with a descriptor read before */
    size_t cap = 0;
    struct dirent *de;
    sc_code rc = SC_OK;
    errno = 0;
    while ((de = readdir(d)) != NULL) {
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
            continue;
        if (out->n == cap) {
            size_t ncap = cap ? cap * 2 : 16;
            char **nv = realloc(out->v, ncap * sizeof *nv);
            if (!nv) {
                rc = sc_error_set(err, SC_E_OUT_OF_MEMORY, shown, "out of memory");
                break;
            }
            out->v = nv;
            cap = ncap;
        }
        char *s = strdup(de->d_name);
        if (!s) {
            rc = sc_error_set(err, SC_E_OUT_OF_MEMORY, shown, "out of memory");
            break;
        }
        out->v[out->n++] = s;
        errno = 0;
    }
    if (rc == SC_OK && errno != 0)
        rc = sc_error_set(err, SC_E_IO, shown, "cannot read %s: %s", shown, strerror(errno));
    closedir(d);
    if (rc != SC_OK) {
        names_free(out);
        return rc;
    }
    if (out->n > 1)
        qsort(out->v, out->n, sizeof *out->v, cmp_str);
    return SC_OK;
}

/* ---- writing one new file ---------------------------------------------- */

/*
 * Where a file's bytes come from: the next chunk into buf (at most size
 * bytes); > 0 bytes, 0 at the end, < 0 with err set.
 */
typedef ssize_t (*chunk_fn)(void *src, char *buf, size_t size, const char *shown,
                            sc_error *err);

/*
 * Create name in dir exclusively (never through a link), fill it from next
 * and give it mode.  A name that exists is SC_E_IO with *existed set, for
 * the caller to name the conflict with its own code; nothing is created.
 */
static sc_code write_new_file(int dir, const char *name, unsigned mode, chunk_fn next,
                              void *src, char *buf, const char *shown, int *existed,
                              sc_error *err)
{
    *existed = 0;
    int out = openat(dir, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (out < 0) {
        int e = errno;
        *existed = e == EEXIST;
        return sc_error_set(err, SC_E_IO, shown, "cannot create %s: %s", shown, strerror(e));
    }
    sc_code rc = SC_OK;
    for (;;) {
        ssize_t got = next(src, buf, COPY_BUFFER, shown, err);
        if (got < 0) {
            rc = err->code;
            break;
        }
        if (got == 0)
            break;
        const char *p = buf;
        size_t left = (size_t)got;
        while (left > 0) {
            ssize_t w = write(out, p, left);
            if (w < 0 && errno == EINTR)
                continue;
            if (w < 0) {
                rc = sc_error_set(err, SC_E_IO, shown, "cannot write %s: %s", shown,
                                  strerror(errno));
                break;
            }
            p += w;
            left -= (size_t)w;
        }
        if (rc != SC_OK)
            break;
    }
    if (rc == SC_OK && fchmod(out, (mode_t)(mode ? mode : 0644)) != 0)
        rc = sc_error_set(err, SC_E_IO, shown, "cannot set the mode of %s: %s", shown,
                          strerror(errno));
    if (close(out) != 0 && rc == SC_OK)
        rc = sc_error_set(err, SC_E_IO, shown, "cannot close %s: %s", shown, strerror(errno));
    return rc;
}

/* ---- tar.gz through libarchive ---------------------------------------- */

/* Create the directories of rel (all but the last segment when file). */
static sc_code make_parents(int root, const char *rel, int include_last, const char *shown,
                            sc_error *err)
{
    char *copy = strdup(rel);
    if (!copy)
        return sc_error_set(err, SC_E_OUT_OF_MEMORY, shown, "out of memory");
    int fd = dup(root);
    sc_code rc = SC_OK;
    if (fd < 0) {
        rc = sc_error_set(err, SC_E_IO, shown, "cannot open %s: %s", shown, strerror(errno));
        free(copy);
        return rc;
    }
    char *seg = copy;
    for (;;) {
        char *slash = strchr(seg, '/');
        if (!slash && !include_last)
            break;
        if (slash)
            *slash = '\0';
        if (mkdirat(fd, seg, 0755) != 0 && errno != EEXIST) {
            rc = sc_error_set(err, SC_E_IO, shown, "cannot create a directory for %s: %s", shown,
                              strerror(errno));
            break;
        }
        int next = openat(fd, seg, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (next < 0) {
            rc = sc_error_set(err, SC_E_ENTRY_COLLISION, shown,
                              "%s is both a file and a directory in the archive", shown);
            break;
        }
        close(fd);
        fd = next;
        if (!slash)
            break;
        seg = slash + 1;
    }
    close(fd);
    free(copy);
    return rc;
}

/* Normalise a tar name: drop leading "./" and one trailing '/'. */
static char *tar_name(const char *raw)
{
    while (raw[0] == '.' && raw[1] == '/')
        raw += 2;
    size_t n = strlen(raw);
    while (n > 0 && raw[n - 1] == '/')
        n--;
    return strndup(raw, n);
}

typedef struct tar_source {
    const sc_archive_api *la;
    struct archive *ar;
    const char *archive_path;
} tar_source;

static ssize_t tar_chunk(void *src, char *buf, size_t size, const char *shown, sc_error *err)
{
    tar_source *t = src;
    la_ssize_t got = t->la->read_data(t->ar, buf, size);
    if (got < 0)
        sc_error_set(err, sc_lazy_archive_code(t->la, t->ar, SC_E_INVALID_ARCHIVE), shown,
                     "%s: %s: %s", t->archive_path, shown, t->la->error_string(t->ar));
    return got < 0 ? -1 : (ssize_t)got;
}

static sc_code tar_extract(const char *archive_path, int root, sc_error *err)
{
    const sc_archive_api *la;
    sc_code loaded = sc_lazy_archive(&la, err);
    if (loaded != SC_OK)
        return loaded;
    struct archive *ar = la->read_new();
    if (!ar)
        return sc_error_set(err, SC_E_OUT_OF_MEMORY, archive_path, "out of memory");
    la->read_support_filter_gzip(ar);
    la->read_support_format_tar(ar);
    sc_code rc = SC_OK;
    char *buf = NULL;
    if (la->read_open_filename(ar, archive_path, 64 * 1024) != ARCHIVE_OK) {
        rc = sc_error_set(err, sc_lazy_archive_code(la, ar, SC_E_INVALID_ARCHIVE), archive_path,
                          "%s is not a tar.gz: %s", archive_path, la->error_string(ar));
        la->read_free(ar);
        return rc;
    }
    buf = malloc(COPY_BUFFER);
    if (!buf) {
        la->read_free(ar);
        return sc_error_set(err, SC_E_OUT_OF_MEMORY, archive_path, "out of memory");
    }
    for (;;) {
        struct archive_entry *e;
        int r = la->read_next_header(ar, &e);
        if (r == ARCHIVE_EOF)
            break;
        if (r != ARCHIVE_OK) {
            rc = sc_error_set(err, sc_lazy_archive_code(la, ar, SC_E_INVALID_ARCHIVE),
                              archive_path, "%s: %s", archive_path, la->error_string(ar));
            break;
        }
        const char *raw = la->entry_pathname(e);
        if (!raw) {
            rc = sc_error_set(err, SC_E_INVALID_ARCHIVE, archive_path,
                              "%s holds an entry without a name", archive_path);
            break;
        }
        mode_t type = la->entry_filetype(e);
        if (la->entry_hardlink(e) || type == AE_IFLNK) {
            rc = sc_error_set(err, SC_E_LINK_ENTRY, raw,
                              "%s: %s is a link; asset archives hold only files and directories",
                              archive_path, raw);
            break;
        }
        if (type != AE_IFREG && type != AE_IFDIR) {
            rc = sc_error_set(err, SC_E_SPECIAL_ENTRY, raw,
                              "%s: %s is neither a file nor a directory", archive_path, raw);
            break;
        }
        char *name = tar_name(raw);
        if (!name) {
            rc = sc_error_set(err, SC_E_OUT_OF_MEMORY, archive_path, "out of memory");
            break;
        }
        if (name[0] == '\0' || strcmp(name, ".") == 0) {
            free(name);
            if (type == AE_IFDIR)
                continue; /* the archive's own root */
            rc = sc_error_set(err, SC_E_UNSAFE_PATH, raw, "%s: a file without a name", archive_path);
            break;
        }
        rc = sc_path_check(name, strlen(name), raw, err);
        if (rc == SC_OK)
            rc = make_parents(root, name, type == AE_IFDIR, name, err);
        if (rc != SC_OK || type == AE_IFDIR) {
            free(name);
            if (rc != SC_OK)
                break;
            continue;
        }
        int existed = 0;
        tar_source ts = {la, ar, archive_path};
        rc = write_new_file(root, name, (unsigned)la->entry_perm(e) & 0777u, tar_chunk, &ts,
                            buf, name, &existed, err);
        if (existed)
            rc = sc_error_set(err, SC_E_ENTRY_COLLISION, name, "%s names %s twice", archive_path,
                              name);
        free(name);
        if (rc != SC_OK)
            break;
    }
    free(buf);
    la->read_free(ar);
    return rc;
}

/* ---- zip through archive_read ----------------------------------------- */

static sc_code zip_extract(const char *archive_path, const char *tmp, sc_error *err)
{
    sc_zip *z = NULL;
    sc_code rc = sc_zip_open(archive_path, NULL, &z, err);
    if (rc != SC_OK)
        return rc;
    rc = sc_zip_extract(z, tmp, err);
    sc_zip_close(z);
    return rc;
}

/* ---- strip, check, copy ----------------------------------------------- */

/* Descend into the single root directory, strip times. */
static sc_code strip_roots(int *dirfd, long strip, const char *archive_rel, sc_error *err)
{
    for (long level = 0; level < strip; level++) {
        name_list names;
        int dup_fd = dup(*dirfd);
        if (dup_fd < 0)
            return sc_error_set(err, SC_E_IO, archive_rel, "cannot read %s: %s", archive_rel,
                                strerror(errno));
        sc_code rc = list_dir(dup_fd, archive_rel, &names, err);
        if (rc != SC_OK)
            return rc;
        const char *only = NULL;
        size_t count = 0;
        for (size_t i = 0; i < names.n; i++) {
            if (strcmp(names.v[i], "__MACOSX") == 0 || skipped_name(names.v[i]))
                continue;
            only = names.v[i];
            count++;
        }
        int next = -1;
        if (count == 1)
            next = openat(*dirfd, only, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (next < 0) {
            rc = sc_error_set(err, SC_E_ASSET_ARCHIVE_CONFLICT, archive_rel,
                              "%s: stripComponents %ld needs exactly one root directory at level "
                              "%ld, found %zu entr%s%s%s",
                              archive_rel, strip, level + 1, count, count == 1 ? "y" : "ies",
                              count == 1 ? " that is not a directory: " : "",
                              count == 1 ? only : "");
            names_free(&names);
            return rc;
        }
        names_free(&names);
        close(*dirfd);
        *dirfd = next;
    }
    return SC_OK;
}

typedef struct copy_ctx {
    int pass;            /* 1: check only; 2: copy */
    int is_zip;          /* links (checked by archive_read) are dereferenced */
    const char *archive; /* for messages */
    char *buf;
} copy_ctx;

static char *join_rel(const char *a, const char *b)
{
    if (!a || !*a)
        return strdup(b);
    size_t la = strlen(a), lb = strlen(b);
    char *s = malloc(la + lb + 2);
    if (!s)
        return NULL;
    memcpy(s, a, la);
    s[la] = '/';
    memcpy(s + la + 1, b, lb + 1);
    return s;
}

static ssize_t fd_chunk(void *src, char *buf, size_t size, const char *shown, sc_error *err)
{
    int fd = *(int *)src;
    for (;;) {
        ssize_t got = read(fd, buf, size);
        if (got >= 0)
            return got;
        if (errno != EINTR) {
            sc_error_set(err, SC_E_IO, shown, "cannot read %s: %s", shown, strerror(errno));
            return -1;
        }
    }
}

static sc_code copy_file(copy_ctx *c, int src_dir, int dst_dir, const char *name,
                         int follow, const char *shown, sc_error *err)
{
    int in = openat(src_dir, name, O_RDONLY | O_CLOEXEC | O_NONBLOCK | (follow ? 0 : O_NOFOLLOW));
    if (in < 0)
        return sc_error_set(err, SC_E_IO, shown, "cannot open %s: %s", shown, strerror(errno));
    struct stat st;
    int st_ok = fstat(in, &st) == 0;
    if (!st_ok || !S_ISREG(st.st_mode)) {
        int e = st_ok ? EINVAL : errno;
        close(in);
        return sc_error_set(err, SC_E_IO, shown, "cannot copy %s: %s", shown, strerror(e));
    }
    int existed = 0;
    sc_code rc = write_new_file(dst_dir, name, (unsigned)st.st_mode & 0777u, fd_chunk, &in,
                                c->buf, shown, &existed, err);
    close(in);
    if (existed)
        rc = sc_error_set(err, SC_E_ASSET_ARCHIVE_CONFLICT, shown,
                          "%s would replace %s, which the payload already holds", c->archive,
                          shown);
    return rc;
}

static int cmp_fold(const void *a, const void *b)
{
    int c = sc_ascii_casecmp(*(char *const *)a, *(char *const *)b);
    return c != 0 ? c : strcmp(*(char *const *)a, *(char *const *)b);
}

static int copied_name(const char *name, int at_root)
{
    return !skipped_name(name) && !(at_root && strcmp(name, "__MACOSX") == 0);
}

/*
 * ASCII case (format-v3 3): the names of one directory of the archive that
 * will be copied must differ after folding (entry-collision, as the zip
 * reader's rule), and none may differ only in case from a name the payload
 * already holds at dst_dir (-1: nothing there) without being that name
 * (asset-archive-conflict).  Two paths equal after folding first differ in
 * two names of one directory, so checking every directory this way covers
 * whole paths.  O(n log n) per directory; nothing is written.
 */
static sc_code check_case(copy_ctx *c, const name_list *names, int dst_dir, const char *rel,
                          int at_root, sc_error *err)
{
    const char **v = names->n ? malloc(names->n * sizeof *v) : NULL;
    if (names->n && v == NULL)
        return sc_error_set(err, SC_E_OUT_OF_MEMORY, rel, "out of memory");
    size_t n = 0;
    for (size_t i = 0; i < names->n; i++)
        if (copied_name(names->v[i], at_root))
            v[n++] = names->v[i];
    if (n > 1)
        qsort(v, n, sizeof *v, cmp_fold);
    sc_code rc = SC_OK;
    for (size_t i = 1; i < n && rc == SC_OK; i++)
        if (sc_ascii_casecmp(v[i - 1], v[i]) == 0) {
            char *a = join_rel(rel, v[i - 1]), *b = join_rel(rel, v[i]);
            rc = sc_error_set(err, SC_E_ENTRY_COLLISION, b ? b : rel,
                              "%s holds %s and %s, which differ only in ASCII case", c->archive,
                              a ? a : v[i - 1], b ? b : v[i]);
            free(a);
            free(b);
        }
    name_list have = {NULL, 0};
    int fd = rc == SC_OK && dst_dir >= 0 && n > 0 ? dup(dst_dir) : -1;
    if (rc == SC_OK && dst_dir >= 0 && n > 0) {
        rc = fd < 0 ? sc_error_set(err, SC_E_IO, rel, "cannot read %s: %s", rel, strerror(errno))
                    : list_dir(fd, rel, &have, err);
        if (rc == SC_OK && have.n > 1)
            qsort(have.v, have.n, sizeof *have.v, cmp_fold);
    }
    for (size_t i = 0; rc == SC_OK && i < n && have.n > 0; i++) {
        /* the payload's names that fold like v[i]: a run in have */
        size_t lo = 0, hi = have.n;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (sc_ascii_casecmp(have.v[mid], v[i]) < 0)
                lo = mid + 1;
            else
                hi = mid;
        }
        const char *other = NULL;
        int exact = 0;
        for (size_t k = lo; k < have.n && sc_ascii_casecmp(have.v[k], v[i]) == 0; k++) {
            if (strcmp(have.v[k], v[i]) == 0)
                exact = 1;
            else if (other == NULL)
                other = have.v[k];
        }
        if (other != NULL && !exact) {
            char *a = join_rel(rel, v[i]), *b = join_rel(rel, other);
            rc = sc_error_set(err, SC_E_ASSET_ARCHIVE_CONFLICT, a ? a : rel,
                              "%s holds %s, which differs only in ASCII case from %s, which the "
                              "payload already holds",
                              c->archive, a ? a : v[i], b ? b : other);
            free(a);
            free(b);
        }
    }
    names_free(&have);
    free(v);
    return rc;
}

/*
 * Walk src_dir (consumed) against dst_dir (borrowed; -1 in pass 1 when the
 * destination directory does not exist yet, so nothing under it can
 * conflict).  rel is the payload-relative path of dst_dir for messages.
 */
static sc_code copy_tree(copy_ctx *c, int src_dir, int dst_dir, const char *rel, int at_root,
                         sc_error *err)
{
    name_list names;
    int listing = dup(src_dir);
    if (listing < 0) {
        close(src_dir);
        return sc_error_set(err, SC_E_IO, rel, "cannot read %s: %s", rel, strerror(errno));
    }
    sc_code rc = list_dir(listing, rel, &names, err);
    if (rc != SC_OK) {
        close(src_dir);
        return rc;
    }
    if (c->pass == 1)
        rc = check_case(c, &names, dst_dir, rel, at_root, err);
    for (size_t i = 0; i < names.n && rc == SC_OK; i++) {
        const char *name = names.v[i];
        if (!copied_name(name, at_root))
            continue;
        char *shown = join_rel(rel, name);
        if (!shown) {
            rc = sc_error_set(err, SC_E_OUT_OF_MEMORY, rel, "out of memory");
            break;
        }
        struct stat st;
        if (fstatat(src_dir, name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
            rc = sc_error_set(err, SC_E_IO, shown, "cannot stat %s: %s", shown, strerror(errno));
        } else if (S_ISDIR(st.st_mode)) {
            int sub_src = openat(src_dir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
            int sub_dst = -1;
            if (sub_src < 0) {
                rc = sc_error_set(err, SC_E_IO, shown, "cannot open %s: %s", shown,
                                  strerror(errno));
            } else if (dst_dir >= 0) {
                struct stat dst;
                int have = fstatat(dst_dir, name, &dst, AT_SYMLINK_NOFOLLOW) == 0;
                if (have && !S_ISDIR(dst.st_mode)) {
                    rc = sc_error_set(err, SC_E_ASSET_ARCHIVE_CONFLICT, shown,
                                      "%s holds a directory %s where the payload has a %s",
                                      c->archive, shown,
                                      S_ISLNK(dst.st_mode) ? "link" : "file");
                } else if (!have && c->pass == 2 && mkdirat(dst_dir, name, 0755) != 0) {
                    rc = sc_error_set(err, SC_E_IO, shown, "cannot create %s: %s", shown,
                                      strerror(errno));
                } else if (have || c->pass == 2) {
                    sub_dst = openat(dst_dir, name,
                                     O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
                    if (sub_dst < 0)
                        rc = sc_error_set(err, SC_E_IO, shown, "cannot open %s: %s", shown,
                                          strerror(errno));
                }
            }
            if (rc == SC_OK) {
                rc = copy_tree(c, sub_src, sub_dst, shown, 0, err);
                sub_src = -1;
            }
            if (sub_src >= 0)
                close(sub_src);
            if (sub_dst >= 0)
                close(sub_dst);
        } else if (S_ISREG(st.st_mode) || (S_ISLNK(st.st_mode) && c->is_zip)) {
            if (c->pass == 1) {
                struct stat dst;
                if (dst_dir >= 0 && fstatat(dst_dir, name, &dst, AT_SYMLINK_NOFOLLOW) == 0)
                    rc = sc_error_set(err, SC_E_ASSET_ARCHIVE_CONFLICT, shown,
                                      "%s would replace %s, which the payload already holds",
                                      c->archive, shown);
            } else {
                rc = copy_file(c, src_dir, dst_dir, name, S_ISLNK(st.st_mode), shown, err);
            }
        } else {
            rc = sc_error_set(err, SC_E_SPECIAL_ENTRY, shown,
                              "%s holds %s, which is neither a file nor a directory", c->archive,
                              shown);
        }
        free(shown);
    }
    names_free(&names);
    close(src_dir);
    return rc;
}

/* Open (pass 2: creating) payload_root/destination one segment at a time. */
static sc_code open_destination(int root, const char *destination, int create, int *out,
                                sc_error *err)
{
    *out = -1;
    char *copy = strdup(destination);
    if (!copy)
        return sc_error_set(err, SC_E_OUT_OF_MEMORY, destination, "out of memory");
    int fd = dup(root);
    sc_code rc = SC_OK;
    if (fd < 0) {
        free(copy);
        return sc_error_set(err, SC_E_IO, destination, "cannot open the payload root: %s",
                            strerror(errno));
    }
    char *seg = copy;
    for (;;) {
        char *slash = strchr(seg, '/');
        if (slash)
            *slash = '\0';
        struct stat st;
        if (fstatat(fd, seg, &st, AT_SYMLINK_NOFOLLOW) == 0) {
            if (!S_ISDIR(st.st_mode)) {
                rc = sc_error_set(err, SC_E_ASSET_ARCHIVE_CONFLICT, destination,
                                  "the destination %s crosses a %s in the payload", destination,
                                  S_ISLNK(st.st_mode) ? "link" : "file");
                break;
            }
        } else if (errno != ENOENT) {
            rc = sc_error_set(err, SC_E_IO, destination, "cannot stat %s: %s", destination,
                              strerror(errno));
            break;
        } else if (!create) {
            /* nothing there yet: nothing can conflict, unless a name that
             * differs only in ASCII case is there */
            name_list have = {NULL, 0};
            int lfd = dup(fd);
            rc = lfd < 0 ? sc_error_set(err, SC_E_IO, destination, "cannot read %s: %s",
                                        destination, strerror(errno))
                         : list_dir(lfd, destination, &have, err);
            for (size_t i = 0; rc == SC_OK && i < have.n; i++)
                if (sc_ascii_casecmp(have.v[i], seg) == 0)
                    rc = sc_error_set(err, SC_E_ASSET_ARCHIVE_CONFLICT, destination,
                                      "the destination %s differs only in ASCII case from %s, "
                                      "which the payload already holds",
                                      destination, have.v[i]);
            names_free(&have);
            if (rc != SC_OK)
                break;
            close(fd);
            fd = -1;
            break;
        } else if (mkdirat(fd, seg, 0755) != 0) {
            rc = sc_error_set(err, SC_E_IO, destination, "cannot create %s: %s", destination,
                              strerror(errno));
            break;
        }
        int next = openat(fd, seg, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (next < 0) {
            rc = sc_error_set(err, SC_E_IO, destination, "cannot open %s: %s", destination,
                              strerror(errno));
            break;
        }
        close(fd);
        fd = next;
        if (!slash)
            break;
        seg = slash + 1;
    }
    free(copy);
    if (rc != SC_OK) {
        if (fd >= 0)
            close(fd);
        return rc;
    }
    *out = fd;
    return SC_OK;
}

/* A private directory beside the payload root. */
static char *make_temp_beside(const char *payload_root)
{
    size_t n = strlen(payload_root);
    while (n > 1 && payload_root[n - 1] == '/')
        n--;
    static const char suffix[] = ".asset-archive-XXXXXX";
    char *t = malloc(n + sizeof suffix);
    if (!t)
        return NULL;
    memcpy(t, payload_root, n);
    memcpy(t + n, suffix, sizeof suffix);
    if (!mkdtemp(t)) {
        free(t);
        return NULL;
    }
    return t;
}

sc_code sc_asset_archive_extract(const char *payload_root, const sc_json *spec, sc_error *err)
{
    if (!payload_root || !spec || !sc_json_is(spec, SC_JSON_OBJECT))
        return sc_error_set(err, SC_E_USAGE, NULL, "an asset archive needs a payload root and its entry");
    const char *rel = sc_json_cstr(sc_json_get(spec, "relativePath"));
    const char *format = sc_json_cstr(sc_json_get(spec, "format"));
    const char *destination = sc_json_cstr(sc_json_get(spec, "destination"));
    if (!rel || !format || !destination)
        return sc_error_set(err, SC_E_INVALID_SCROLL, "assetArchives",
                            "an asset archive needs relativePath, format and destination");
    int is_zip = strcmp(format, "zip") == 0;
    if (!is_zip && strcmp(format, "tar.gz") != 0)
        return sc_error_set(err, SC_E_INVALID_SCROLL, rel,
                            "asset archive format \"%s\" is neither zip nor tar.gz", format);
    sc_code rc = sc_path_check(rel, strlen(rel), "assetArchives.relativePath", err);
    if (rc == SC_OK)
        rc = sc_path_check(destination, strlen(destination), "assetArchives.destination", err);
    if (rc != SC_OK)
        return rc;
    uint64_t strip = 0;
    const sc_json *sj = sc_json_get(spec, "stripComponents");
    if (sj && (!sc_json_uint53(sj, &strip) || strip > MAX_STRIP))
        return sc_error_set(err, SC_E_INVALID_SCROLL, rel,
                            "stripComponents of %s must be an integer 0..%d", rel, MAX_STRIP);
    int remove_after = 1;
    const sc_json *rj = sc_json_get(spec, "removeAfterExtract");
    if (rj) {
        if (sc_json_is(rj, SC_JSON_BOOL))
            remove_after = rj->boolean != 0;
        else
            return sc_error_set(err, SC_E_INVALID_SCROLL, rel,
                                "removeAfterExtract of %s must be a boolean", rel);
    }

    char *archive_path = sc_path_join(payload_root, rel);
    if (!archive_path)
        return sc_error_set(err, SC_E_OUT_OF_MEMORY, rel, "out of memory");
    struct stat ast;
    if (lstat(archive_path, &ast) != 0 || !S_ISREG(ast.st_mode)) {
        rc = sc_error_set(err, SC_E_ASSET_MISSING, rel,
                          "the asset archive %s is not a regular file in the payload", rel);
        free(archive_path);
        return rc;
    }
    int root = open(payload_root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (root < 0) {
        rc = sc_error_set(err, SC_E_IO, payload_root, "cannot open %s: %s", payload_root,
                          strerror(errno));
        free(archive_path);
        return rc;
    }
    char *tmp = make_temp_beside(payload_root);
    if (!tmp) {
        rc = sc_error_set(err, SC_E_IO, payload_root,
                          "cannot create a temporary directory beside %s: %s", payload_root,
                          strerror(errno));
        close(root);
        free(archive_path);
        return rc;
    }
    int tfd = open(tmp, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (tfd < 0)
        rc = sc_error_set(err, SC_E_IO, tmp, "cannot open %s: %s", tmp, strerror(errno));
    if (rc == SC_OK)
        rc = is_zip ? zip_extract(archive_path, tmp, err) : tar_extract(archive_path, tfd, err);
    if (rc == SC_OK)
        rc = strip_roots(&tfd, (long)strip, rel, err);

    copy_ctx c;
    c.archive = rel;
    c.is_zip = is_zip;
    c.buf = malloc(COPY_BUFFER);
    if (rc == SC_OK && !c.buf)
        rc = sc_error_set(err, SC_E_OUT_OF_MEMORY, rel, "out of memory");
    for (int pass = 1; pass <= 2 && rc == SC_OK; pass++) {
        c.pass = pass;
        int dst = -1;
        rc = open_destination(root, destination, pass == 2, &dst, err);
        if (rc != SC_OK)
            break;
        int src = dup(tfd);
        if (src < 0) {
            rc = sc_error_set(err, SC_E_IO, tmp, "cannot open %s: %s", tmp, strerror(errno));
            if (dst >= 0)
                close(dst);
            break;
        }
        rc = copy_tree(&c, src, dst, destination, 1, err);
        if (dst >= 0)
            close(dst);
    }
    free(c.buf);
    if (tfd >= 0)
        close(tfd);
    close(root);
    sc_error ignored;
    (void)sc_file_remove_tree(tmp, &ignored);
    free(tmp);
    if (rc == SC_OK && remove_after && unlink(archive_path) != 0)
        rc = sc_error_set(err, SC_E_IO, rel, "cannot remove the asset archive %s: %s", rel,
                          strerror(errno));
    free(archive_path);
    return rc;
}
