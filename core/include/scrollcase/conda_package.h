/* SPDX-License-Identifier: Apache-2.0 */
/*
 * conda_package.h — read one conda package file (.conda or .tar.bz2) and
 * extract it, checked, into a directory of its own.
 *
 * A package is read in one call, sc_conda_extract(), which:
 *   - opens `.conda` (a ZIP whose central directory is read, so ZIP64 extra
 *     fields, data descriptors and any member order work; its members
 *     `info-*.tar.zst` and `pkg-*.tar.zst` are streamed through zstd, the
 *     info tar first whatever the order in the ZIP) or `.tar.bz2` (one tar
 *     stream; info/ may come anywhere in it);
 *   - writes every member into `dest` (which must not exist; it is created
 *     0755), refusing names that are absolute, hold a `..`, `.` or empty
 *     segment, a `\` or a NUL, special entries (devices, FIFOs, sockets),
 *     tar hard links to a member that is not an earlier regular file, and
 *     writing through a symbolic link; files get mode `perm & 0777` set
 *     explicitly (umask never matters), directories 0755; member names
 *     may start with `./` (dropped);
 *   - hashes each file while writing it (SHA-256 and size), bounded by the
 *     extraction budget (no decompression bomb passes);
 *   - reads info/index.json, info/paths.json (or the legacy info/files,
 *     info/has_prefix, info/no_link) and info/link.json into an
 *     sc_conda_package, and checks the archive against it: every listed
 *     path exists with its listed type, size and sha256; a softlink's
 *     target stays inside the prefix; placeholder rules (see below);
 *     the subdir is the expected one or "noarch"; on a case-folding target
 *     no two listed paths are equal after ASCII case folding.
 *
 * Members present in the archive but not listed in paths.json (outside
 * info/) are extracted but never linked (conda links only what paths.json
 * lists).
 *
 * Placeholders are validated, never substituted (docs/format-v3.md 20.2,
 * "Linking conda packages", item 18):
 * a file_mode is "text" or "binary" and needs a placeholder; a placeholder
 * without a file_mode is text (conda's default); a placeholder is 1..255
 * bytes with no NUL (on a soft link or directory entry it is ignored, as
 * old conda-build wrote the target's placeholder there); a binary-mode file must
 * contain its placeholder (its slot) — a placeholder longer than the file,
 * or absent from it, is refused.
 *
 * Per-file checks: every listed file's size_in_bytes and sha256 (when given)
 * are compared with the bytes written; nothing is skipped for speed (the
 * hash is computed while the file is written).  For a .conda, whose info
 * member is read first, each listed file may inflate to its declared size
 * and no further, and the payload as a whole to the declared sizes plus
 * 16 MiB for members not listed as files.
 *
 * Errors (sc_error filled, nothing of `dest` left behind on any failure):
 *   SC_E_INVALID_ARCHIVE   the file is not a readable ZIP/tar.zst/tar.bz2
 *                          (truncated, corrupt, no info/pkg member, a
 *                          member of another kind in the ZIP);
 *   SC_E_UNSAFE_PATH       a member or listed path that is absolute, holds
 *                          `..`, `.`, empty segments, `\` or NUL;
 *   SC_E_SPECIAL_ENTRY     a device, FIFO, socket member;
 *   SC_E_LINK_ENTRY        a tar hard link to a missing/later/non-file
 *                          member, a member written through a symlink, a
 *                          softlink whose target leaves the prefix;
 *   SC_E_EXTRACTION_LIMIT  more bytes or members than the budget, or a file
 *                          larger than paths.json says (read stops there);
 *   SC_E_ENTRY_COLLISION   a member twice in the archive, or under a member
 *                          that is not a directory;
 *   SC_E_INVALID_PACKAGE   metadata missing or malformed, or disagreeing with
 *                          the archive: a listed path missing, of another
 *                          kind, of another size or sha256, placeholder
 *                          rules broken;
 *   SC_E_PACKAGE_SUBDIR    index.json subdir is neither expected nor noarch;
 *   SC_E_ENTRY_COLLISION   two listed paths equal after case folding on a
 *                          case-folding target;
 *   SC_E_LIBRARY_MISSING   libarchive (or its zstd/bzip2 support) missing;
 *   SC_E_IO, SC_E_OUT_OF_MEMORY.
 * Messages name the package file and the member or field.
 *
 * Thread safety: no global state; any number of extractions may run at
 * once on different files and destinations.
 */
#ifndef SCROLLCASE_CONDA_PACKAGE_H
#define SCROLLCASE_CONDA_PACKAGE_H

#include <stddef.h>
#include <stdint.h>

#include "scrollcase/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Longest placeholder accepted (conda-build's prefix length). */
#define SC_CONDA_PLACEHOLDER_MAX 255u

typedef enum sc_conda_path_type {
    SC_CONDA_PATH_HARDLINK = 0, /* a regular file ("hardlink" in paths.json) */
    SC_CONDA_PATH_SOFTLINK,     /* a symbolic link */
    SC_CONDA_PATH_DIRECTORY     /* an (empty) directory */
} sc_conda_path_type;

typedef enum sc_conda_file_mode {
    SC_CONDA_FILE_MODE_NONE = 0, /* no placeholder */
    SC_CONDA_FILE_MODE_TEXT,
    SC_CONDA_FILE_MODE_BINARY
} sc_conda_file_mode;

/* One entry of info/paths.json (or its legacy equivalent). */
typedef struct sc_conda_path {
    char *path;                 /* relative to the prefix, checked safe */
    sc_conda_path_type type;
    int has_sha256;             /* sha256 given in paths.json */
    unsigned char sha256[32];
    int has_size;               /* size_in_bytes given */
    uint64_t size;
    char *placeholder;          /* NULL when none */
    sc_conda_file_mode file_mode;
    int no_link;                /* copy, never hard-link */
} sc_conda_path;

/* One console entry point of info/link.json: "command = module:function". */
typedef struct sc_conda_entry_point {
    char *command;
    char *module;
    char *function;
} sc_conda_entry_point;

/* Pre/post-link scripts found among the listed paths (never run). */
enum {
    SC_CONDA_HAS_PRE_LINK = 1u << 0,    /* bin/.<name>-pre-link.sh, Scripts/...bat */
    SC_CONDA_HAS_POST_LINK = 1u << 1,   /* bin/.<name>-post-link.sh */
    SC_CONDA_HAS_PRE_UNLINK = 1u << 2   /* bin/.<name>-pre-unlink.sh */
};

typedef struct sc_conda_package {
    /* info/index.json */
    char *name;
    char *version;
    char *build;
    char *subdir;          /* "linux-64", "noarch", ... */
    char *license;         /* NULL when absent */
    char *noarch;          /* NULL, "python" or "generic" */
    char **depends;        /* match specs as written; n_depends of them */
    size_t n_depends;
    /* info/paths.json (or legacy), sorted by path bytes, unique */
    sc_conda_path *paths;
    size_t n_paths;
    int legacy_paths;      /* 1 when built from info/files (+ has_prefix, no_link) */
    /* info/link.json (noarch python) */
    sc_conda_entry_point *entry_points;
    size_t n_entry_points;
    unsigned link_scripts; /* SC_CONDA_HAS_* */
    /* what extraction measured */
    uint64_t unpacked_bytes; /* bytes of regular files written */
} sc_conda_package;

typedef struct sc_conda_extract_options {
    /* The target's conda subdir ("linux-64"); NULL skips the subdir check. */
    const char *expected_subdir;
    /* Nonzero when the target's file system folds case (osx, win). */
    int case_folding;
    /* Most bytes the package may unpack to, files of info/ included; 0 means
     * SC_CONDA_BUDGET_BASE + SC_CONDA_BUDGET_RATIO x the archive's size, at
     * most SC_CONDA_DEFAULT_BUDGET (a bomb is stopped early; a package that
     * really inflates more needs an explicit budget).  When paths.json is
     * known before the payload (.conda), every file is also held to its
     * size_in_bytes. */
    uint64_t max_unpacked_bytes;
    /* Most members (entries of every kind); 0 means SC_CONDA_DEFAULT_MEMBERS. */
    uint64_t max_members;
} sc_conda_extract_options;

#define SC_CONDA_DEFAULT_BUDGET (64ull << 30)  /* 64 GiB */
#define SC_CONDA_BUDGET_BASE (16ull << 20)     /* 16 MiB */
#define SC_CONDA_BUDGET_RATIO 1024ull
#define SC_CONDA_DEFAULT_MEMBERS 4000000ull

/*
 * Extract the package at `file` into `dest` (created; must not exist) and
 * return its metadata.  The kind is taken from the name's suffix (".conda"
 * or ".tar.bz2"); any other name is SC_E_INVALID_ARCHIVE.  `label` names
 * the package in messages (e.g. its file name or URL; NULL: `file`).
 * opts may be NULL (no subdir check, no case folding, default budget).
 * On success *out is owned by the caller (sc_conda_package_free).  On
 * failure *out is NULL and `dest` does not exist.
 */
sc_code sc_conda_extract(const char *file, const char *label, const char *dest,
                         const sc_conda_extract_options *opts, sc_conda_package **out,
                         sc_error *err);

/*
 * Read the metadata of an already extracted package directory (one that
 * sc_conda_extract filled), without checking the tree against it.  For
 * tools and tests.  *out owned by the caller.
 */
sc_code sc_conda_read_info(const char *extracted_dir, const char *label,
                           sc_conda_package **out, sc_error *err);

/*
 * The metadata parsers alone, on bytes (for the fuzz target and tests).
 * Each fills the matching members of `pkg` (which the caller zeroes first
 * and frees with sc_conda_package_free); a NULL input is "file absent".
 *   index_json  required; name, version, build strings required;
 *   paths_json  when non-NULL replaces files/has_prefix/no_link;
 *   files, has_prefix, no_link   the legacy text files;
 *   link_json   optional; noarch python entry points.
 * Paths are checked and sorted; duplicate paths are SC_E_INVALID_PACKAGE.
 */
typedef struct sc_conda_info_bytes {
    const char *index_json;  size_t index_json_len;
    const char *paths_json;  size_t paths_json_len;
    const char *files;       size_t files_len;
    const char *has_prefix;  size_t has_prefix_len;
    const char *no_link;     size_t no_link_len;
    const char *link_json;   size_t link_json_len;
} sc_conda_info_bytes;

sc_code sc_conda_parse_info(const sc_conda_info_bytes *in, const char *label,
                            sc_conda_package *pkg, sc_error *err);

/* The package's name of a match spec: its first word ("python >=3.8" ->
 * "python"); writes at most size-1 bytes, returns the length written. */
size_t sc_conda_spec_name(const char *spec, char *buf, size_t size);

/* Free the package and everything it owns; NULL is fine. */
void sc_conda_package_free(sc_conda_package *pkg);

#ifdef __cplusplus
}
#endif

#endif
