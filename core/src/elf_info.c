/* SPDX-License-Identifier: Apache-2.0 */
/*
 * elf_info.c — DT_NEEDED, DT_SONAME, DT_RPATH, DT_RUNPATH and the place of
 * `.nv_fatbin`, read with Debian's libelf (elfutils).
 *
 * Why libelf: it reads 32- and 64-bit files of either byte order into one
 * form (gelf), resolves the 2^32-sections form (e_shnum 0, the count in
 * section 0), and checks every table it loads against the file's size
 * before it trusts it; it is fuzzed upstream.  It is linked, not loaded on
 * first use like libcurl and libarchive (lazylib.c): it brings no shared
 * object but itself (its one dependency, zlib, is linked already).
 *
 * Guarantees (see elf_info.h): a file is read with ELF_C_READ, libelf's
 * pread mode, not mapped: only what is asked for is read (the ELF header,
 * the section header table, the section name table, the dynamic section
 * and its string table), and a file truncated while it is read is an
 * error, never SIGBUS.  elf_rawfile is never called (for an unmapped file
 * it reads the whole file); the one field read beside libelf, section 0's
 * sh_size, is read on its own.  `.nv_fatbin` is located (offset, size,
 * checked against the file's size), never read here.  Every string is
 * copied out before elf_end.
 */
#include "scrollcase/elf_info.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <libelf.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static pthread_once_t version_once = PTHREAD_ONCE_INIT;
static int version_ok;

static void version_init(void) { version_ok = elf_version(EV_CURRENT) != EV_NONE; }

int sc_elf_has_magic(const void *bytes, size_t n)
{
    return bytes != NULL && n >= 4 && memcmp(bytes, SC_ELF_MAGIC, 4) == 0;
}

static sc_code bad(sc_error *err, const char *name, const char *what)
{
    const char *why = elf_errmsg(-1);
    if (why != NULL && *why != '\0')
        return sc_error_set(err, SC_E_INVALID_ELF, name, "%s: %s (%s)", name, what, why);
    return sc_error_set(err, SC_E_INVALID_ELF, name, "%s: %s", name, what);
}

static sc_code oom(sc_error *err, const char *name)
{
    return sc_error_set(err, SC_E_OUT_OF_MEMORY, name, "%s: out of memory reading ELF", name);
}

static sc_code dup_into(char **dst, const char *s, sc_error *err, const char *name)
{
    *dst = strdup(s);
    return *dst == NULL ? oom(err, name) : SC_OK;
}

/* The dynamic section: its entries and its string table (sh_link). */
static sc_code read_dynamic(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh, const char *name,
                            sc_elf_info *out, sc_error *err)
{
    out->dynamic = 1;
    if (sh->sh_type == SHT_NOBITS)
        return SC_OK;
    Elf_Data *data = elf_getdata(scn, NULL);
    if (data == NULL)
        return bad(err, name, "the dynamic section cannot be read");
    size_t entsize = gelf_fsize(elf, ELF_T_DYN, 1, EV_CURRENT);
    if (entsize == 0)
        return bad(err, name, "the dynamic section has no entry size");
    size_t n = data->d_size / entsize, needed = 0;
    /* First pass: count DT_NEEDED so the array is allocated once. */
    for (size_t i = 0; i < n; i++) {
        GElf_Dyn d;
        if (i > INT_MAX || gelf_getdyn(data, (int)i, &d) == NULL)
            return bad(err, name, "a dynamic entry cannot be read");
        if (d.d_tag == DT_NULL)
            break;
        if (d.d_tag == DT_NEEDED)
            needed++;
    }
    if (needed > 0) {
        out->needed = calloc(needed, sizeof *out->needed);
        if (out->needed == NULL)
            return oom(err, name);
    }
    size_t strndx = sh->sh_link;
    for (size_t i = 0; i < n; i++) {
        GElf_Dyn d;
        if (gelf_getdyn(data, (int)i, &d) == NULL)
            return bad(err, name, "a dynamic entry cannot be read");
        if (d.d_tag == DT_NULL)
            break;
        char **slot;
        const char *what;
        switch (d.d_tag) {
        case DT_NEEDED: slot = &out->needed[out->needed_count]; what = "DT_NEEDED"; break;
        case DT_SONAME: slot = &out->soname; what = "DT_SONAME"; break;
        case DT_RPATH: slot = &out->rpath; what = "DT_RPATH"; break;
        case DT_RUNPATH: slot = &out->runpath; what = "DT_RUNPATH"; break;
        default: continue;
        }
        const char *s = elf_strptr(elf, strndx, (size_t)d.d_un.d_val);
        if (s == NULL) {
            char msg[96];
            snprintf(msg, sizeof msg, "a %s string lies outside its string table", what);
            return bad(err, name, msg);
        }
        if (*slot != NULL) /* a second DT_SONAME/RPATH/RUNPATH: the first one counts */
            continue;
        if (dup_into(slot, s, err, name) != SC_OK)
            return SC_E_OUT_OF_MEMORY;
        if (d.d_tag == DT_NEEDED)
            out->needed_count++;
    }
    return SC_OK;
}

/* Where the file's own bytes come from, for the one field read beside
 * libelf (section 0's sh_size): pread, or the caller's buffer. */
typedef struct source {
    int (*read)(const struct source *s, uint64_t at, void *buf, size_t len);
    int fd;
    const unsigned char *bytes;
    size_t len;
} source;

static int fd_read(const source *s, uint64_t at, void *buf, size_t len)
{
    ssize_t n;
    do
        n = pread(s->fd, buf, len, (off_t)at);
    while (n < 0 && errno == EINTR);
    return n == (ssize_t)len ? 0 : -1;
}

static int mem_read(const source *s, uint64_t at, void *buf, size_t len)
{
    if (at > s->len || len > s->len - at)
        return -1;
    memcpy(buf, s->bytes + at, len);
    return 0;
}

static sc_code read_elf(Elf *elf, const source *src, uint64_t file_size, const char *name,
                        sc_elf_info *out,
                        sc_error *err)
{
    if (elf == NULL)
        return bad(err, name, "not a readable ELF file");
    if (elf_kind(elf) != ELF_K_ELF)
        return sc_error_set(err, SC_E_INVALID_ELF, name, "%s: not an ELF file", name);
    GElf_Ehdr eh;
    if (gelf_getehdr(elf, &eh) == NULL)
        return bad(err, name, "the ELF header cannot be read");
    int cls = gelf_getclass(elf);
    out->bits = cls == ELFCLASS64 ? 64 : cls == ELFCLASS32 ? 32 : 0;
    if (out->bits == 0)
        return sc_error_set(err, SC_E_INVALID_ELF, name, "%s: unknown ELF class", name);
    out->big_endian = eh.e_ident[EI_DATA] == ELFDATA2MSB;
    out->type = eh.e_type;
    out->machine = eh.e_machine;

    /* The declared section count: e_shnum, or (e_shnum 0, the 2^32-sections
     * form) section 0's sh_size, read here from the file's bytes because
     * libelf quietly drops a section table that does not fit the file and
     * then answers 0: that is a malformed file here, not a file without
     * sections. */
    uint64_t declared = eh.e_shnum;
    if (declared == 0 && eh.e_shoff != 0) {
        unsigned width = out->bits == 64 ? 8u : 4u;
        uint64_t at = eh.e_shoff + (out->bits == 64 ? 32u : 20u);
        unsigned char raw[8];
        if (eh.e_shoff > file_size || at > file_size || file_size - at < width ||
            src->read(src, at, raw, width) != 0)
            return sc_error_set(err, SC_E_INVALID_ELF, name,
                                "%s: the section header table lies past the end of the file",
                                name);
        for (unsigned i = 0; i < width; i++) /* byte i of the field */
            declared |= (uint64_t)raw[i] << (8 * (out->big_endian ? width - 1 - i : i));
    }
    if (declared == 0)
        return SC_OK; /* no sections: nothing this reader looks at */
    size_t shsize = gelf_fsize(elf, ELF_T_SHDR, 1, EV_CURRENT);
    if (shsize == 0 || eh.e_shoff > file_size || declared > (file_size - eh.e_shoff) / shsize)
        return sc_error_set(err, SC_E_INVALID_ELF, name,
                            "%s: the section header table (%llu sections at offset %llu) lies "
                            "past the end of the file",
                            name, (unsigned long long)declared, (unsigned long long)eh.e_shoff);
    size_t shnum = 0, shstrndx = 0;
    if (elf_getshdrnum(elf, &shnum) != 0 || shnum != declared)
        return bad(err, name, "the section headers cannot be read");
    if (elf_getshdrstrndx(elf, &shstrndx) != 0)
        return bad(err, name, "the section name table cannot be found");

    Elf_Scn *scn = NULL;
    int seen_dynamic = 0;
    while ((scn = elf_nextscn(elf, scn)) != NULL) {
        GElf_Shdr sh;
        if (gelf_getshdr(scn, &sh) == NULL)
            return bad(err, name, "a section header cannot be read");
        if (sh.sh_type == SHT_DYNAMIC && !seen_dynamic) {
            seen_dynamic = 1;
            sc_code rc = read_dynamic(elf, scn, &sh, name, out, err);
            if (rc != SC_OK)
                return rc;
            continue;
        }
        if (out->has_fatbin || sh.sh_type == SHT_NULL)
            continue;
        const char *sname = elf_strptr(elf, shstrndx, sh.sh_name);
        if (sname == NULL)
            return bad(err, name, "a section name lies outside the section name table");
        if (strcmp(sname, ".nv_fatbin") != 0)
            continue;
        out->has_fatbin = 1;
        out->fatbin_offset = sh.sh_offset;
        out->fatbin_size = sh.sh_type == SHT_NOBITS ? 0 : sh.sh_size;
        if (out->fatbin_offset > file_size || out->fatbin_size > file_size - out->fatbin_offset)
            return sc_error_set(err, SC_E_INVALID_ELF, name,
                                "%s: the .nv_fatbin section lies past the end of the file", name);
    }
    return SC_OK;
}

static sc_code finish(Elf *elf, sc_code rc, sc_elf_info *out)
{
    if (elf != NULL)
        elf_end(elf);
    if (rc != SC_OK)
        sc_elf_info_free(out);
    return rc;
}

static sc_code start(sc_elf_info *out, const char **name, sc_error *err)
{
    if (out == NULL)
        return sc_error_set(err, SC_E_USAGE, NULL, "sc_elf_info: no output");
    memset(out, 0, sizeof *out);
    if (*name == NULL)
        *name = "(memory)";
    pthread_once(&version_once, version_init);
    if (!version_ok)
        return sc_error_set(err, SC_E_INTERNAL, NULL, "libelf refuses ELF version %d", EV_CURRENT);
    (void)elf_errno(); /* clear a stale error of this thread */
    return SC_OK;
}

sc_code sc_elf_info_read_fd(int fd, const char *name, sc_elf_info *out, sc_error *err)
{
    sc_code rc = start(out, &name, err);
    if (rc != SC_OK)
        return rc;
    struct stat st;
    if (fstat(fd, &st) != 0)
        return sc_error_set(err, SC_E_IO, name, "%s: cannot stat: %s", name, strerror(errno));
    unsigned char magic[4];
    ssize_t got = pread(fd, magic, sizeof magic, 0);
    if (got < 0)
        return sc_error_set(err, SC_E_IO, name, "%s: cannot read: %s", name, strerror(errno));
    if (!sc_elf_has_magic(magic, (size_t)got))
        return sc_error_set(err, SC_E_INVALID_ELF, name, "%s: not an ELF file", name);
    Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
    source src = {fd_read, fd, NULL, 0};
    rc = read_elf(elf, &src, (uint64_t)st.st_size, name, out, err);
    return finish(elf, rc, out);
}

sc_code sc_elf_info_read_file(const char *path, sc_elf_info *out, sc_error *err)
{
    if (path == NULL)
        return sc_error_set(err, SC_E_USAGE, NULL, "sc_elf_info_read_file: no path");
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        if (out != NULL)
            memset(out, 0, sizeof *out);
        return sc_error_set(err, SC_E_IO, path, "%s: cannot open: %s", path, strerror(errno));
    }
    sc_code rc = sc_elf_info_read_fd(fd, path, out, err);
    close(fd);
    return rc;
}

sc_code sc_elf_info_read_memory(const void *bytes, size_t len, const char *name,
                                sc_elf_info *out, sc_error *err)
{
    sc_code rc = start(out, &name, err);
    if (rc != SC_OK)
        return rc;
    if (!sc_elf_has_magic(bytes, len))
        return sc_error_set(err, SC_E_INVALID_ELF, name, "%s: not an ELF file", name);
    /* elf_memory takes a char * and may convert data in place: it gets a
     * copy, so that the caller's bytes stay as they were. */
    char *copy = malloc(len);
    if (copy == NULL)
        return oom(err, name);
    memcpy(copy, bytes, len);
    Elf *elf = elf_memory(copy, len);
    source src = {mem_read, -1, (const unsigned char *)bytes, len};
    rc = read_elf(elf, &src, (uint64_t)len, name, out, err);
    rc = finish(elf, rc, out);
    free(copy);
    return rc;
}

void sc_elf_info_free(sc_elf_info *info)
{
    if (info == NULL)
        return;
    free(info->soname);
    for (size_t i = 0; i < info->needed_count; i++)
        free(info->needed[i]);
    free(info->needed);
    free(info->rpath);
    free(info->runpath);
    memset(info, 0, sizeof *info);
}
