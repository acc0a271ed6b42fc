/* SPDX-License-Identifier: Apache-2.0 */
/*
 * make_box.c — bench helper: write a box whose payload holds one file of
 * SIZE random bytes (stored), and the unsigned release manifest committing
 * to it.  usage: sc-bench-make-box OUTDIR SIZE
 *
 * Writes OUTDIR/box.zip and OUTDIR/release.json (sign it with `scrollcase
 * sign`).  The random bytes come from /dev/urandom and are streamed; memory
 * stays small whatever SIZE is.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scrollcase/archive_write.h"
#include "scrollcase/digest.h"
#include "scrollcase/error.h"
#include "scrollcase/file.h"
#include "scrollcase/payload.h"

#define PROV                                                                   \
    "{\"scrollId\": \"bench-linux-x86_64-cpu\", \"scrollVersion\": \"1.0.0\", " \
    "\"builderRevision\": \"0123456789abcdef0123456789abcdef01234567\", "     \
    "\"sourceTreeDirty\": false, \"sourceRevision\": \"bench\", "             \
    "\"pythonVersion\": \"3.11\", \"environment\": {\"source\": \"prefix\", "  \
    "\"prefixDigest\": \"bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb\"}, " \
    "\"builder\": {\"name\": \"scrollcase\", \"version\": \"0.1.0\"}, "       \
    "\"builtAt\": \"2026-01-01T00:00:00Z\"}"
#define COMMON                                                                 \
    "\"target\": {\"platform\": \"linux\", \"arch\": \"x86_64\", \"accelerator\": \"cpu\"}, " \
    "\"pythonEntryPoint\": \"venv/bin/python\", \"modelCacheSubdir\": \"model-cache/bench\", " \
    "\"selfTest\": {\"pythonImports\": [\"json\"], \"timeoutSeconds\": 60}, "  \
    "\"provenance\": " PROV

static int fail(const sc_error *err)
{
    fprintf(stderr, "sc-bench-make-box: error[%s]: %s\n", sc_code_name(err->code),
            err->message);
    return 1;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: sc-bench-make-box OUTDIR SIZE\n");
        return 2;
    }
    const char *dir = argv[1];
    uint64_t size = strtoull(argv[2], NULL, 10);
    sc_error err;
    char *blob = sc_path_join(dir, "blob.src");
    char *zip = sc_path_join(dir, "box.zip");
    char *rel = sc_path_join(dir, "release.json");
    if (blob == NULL || zip == NULL || rel == NULL)
        return 1;

    /* The random payload file. */
    FILE *in = fopen("/dev/urandom", "rb"), *out = fopen(blob, "wb");
    if (in == NULL || out == NULL) {
        perror("sc-bench-make-box");
        return 1;
    }
    static unsigned char buf[1 << 20];
    for (uint64_t left = size; left > 0;) {
        size_t n = left < sizeof buf ? (size_t)left : sizeof buf;
        if (fread(buf, 1, n, in) != n || fwrite(buf, 1, n, out) != n) {
            perror("sc-bench-make-box");
            return 1;
        }
        left -= n;
    }
    fclose(in);
    if (fclose(out) != 0)
        return 1;

    static const char python[] = "#!/bin/sh\nexit 0\n";
    char box_json[4096];
    snprintf(box_json, sizeof box_json,
             "{\"schemaVersion\": 3, \"boxId\": \"bench\", \"modelId\": \"bench-model\", "
             "\"runtimeId\": \"bench-runtime\", \"version\": \"1.0.0\", " COMMON "}\n");

    sc_payload_entry pe[3];
    memset(pe, 0, sizeof pe);
    pe[0].path = (char *)"box.json";
    pe[1].path = (char *)"venv/bin/python";
    pe[2].path = (char *)"weights/blob.bin";
    for (int i = 0; i < 3; i++) {
        pe[i].path_len = strlen(pe[i].path);
        pe[i].kind = SC_PAYLOAD_FILE;
    }
    unsigned char d[SC_SHA256_LEN];
    if (sc_sha256_hex(box_json, strlen(box_json), pe[0].sha256, &err) != SC_OK ||
        sc_sha256_hex(python, strlen(python), pe[1].sha256, &err) != SC_OK ||
        sc_sha256_file(blob, d, &err) != SC_OK)
        return fail(&err);
    sc_hex_lower(d, SC_SHA256_LEN, pe[2].sha256);
    sc_payload_list list = {pe, 3, 3};
    char *stream = NULL;
    size_t stream_len = 0;
    char digest[65];
    if (sc_payload_serialize(&list, &stream, &stream_len, &err) != SC_OK ||
        sc_sha256_hex(stream, stream_len, digest, &err) != SC_OK)
        return fail(&err);

    sc_archive_entry ae[4];
    memset(ae, 0, sizeof ae);
    ae[0].path = "box.json";
    ae[0].data = box_json;
    ae[0].data_len = strlen(box_json);
    ae[1].path = "venv/bin/python";
    ae[1].data = python;
    ae[1].data_len = strlen(python);
    ae[1].executable = 1;
    ae[2].path = "weights/blob.bin";
    ae[2].source = blob;
    ae[2].stored = 1;
    ae[3].path = SC_PAYLOAD_LIST_NAME;
    ae[3].data = stream;
    ae[3].data_len = stream_len;
    uint64_t zsize = 0;
    char zsha[65];
    if (sc_archive_write_file(ae, 4, SC_ARCHIVE_STORE, zip, &zsize, zsha, &err) != SC_OK)
        return fail(&err);
    free(stream);
    remove(blob);

    uint64_t installed = strlen(box_json) + strlen(python) + size + stream_len;
    char release[8192];
    int n = snprintf(release, sizeof release,
                     "{\"schemaVersion\": 3, \"kind\": \"scrollcase.box.release\", "
                     "\"boxId\": \"bench\", \"modelId\": \"bench-model\", "
                     "\"runtimeId\": \"bench-runtime\", \"version\": \"1.0.0\", "
                     "\"compatibility\": {}, \"archive\": {\"format\": \"zip\", "
                     "\"url\": \"https://example.invalid/box.zip\", \"sha256\": \"%s\", "
                     "\"sizeBytes\": %llu}, \"installedSizeBytes\": %llu, "
                     "\"payloadDigest\": {\"format\": \"sha256-path-list-v1\", "
                     "\"sha256\": \"%s\"}, " COMMON "}\n",
                     zsha, (unsigned long long)zsize, (unsigned long long)installed, digest);
    if (sc_file_write_atomic(rel, release, (size_t)n, 0644, &err) != SC_OK)
        return fail(&err);
    printf("%llu\n", (unsigned long long)zsize);
    free(blob);
    free(zip);
    free(rel);
    return 0;
}
