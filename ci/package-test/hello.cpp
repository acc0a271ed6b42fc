/* SPDX-License-Identifier: Apache-2.0 */
// hello.cpp: the C++ consumer of libscrollcase — verify and prepare a box.
// usage: hello RELEASE ARCHIVE TRUST DESTINATION
#include <scrollcase/scrollcase.h>

#include <cstdio>
#include <cstring>
#include <string>

namespace {

// One owner per C object: released when the scope ends, on every path.
struct Trust {
    sc_trust t;
    Trust() { std::memset(&t, 0, sizeof t); }
    ~Trust() { sc_trust_free(&t); }
};
struct Release {
    sc_release r;
    Release() { std::memset(&r, 0, sizeof r); }
    ~Release() { sc_release_free(&r); }
};
struct Receipt {
    sc_receipt r;
    Receipt() { std::memset(&r, 0, sizeof r); }
    ~Receipt() { sc_receipt_free(&r); }
};

int fail(const sc_error &err)
{
    std::fprintf(stderr, "hello: error[%s]: %s\n", sc_code_name(err.code), err.message);
    return 1;
}

} // namespace

int main(int argc, char **argv)
{
    if (argc != 5) {
        std::fprintf(stderr, "usage: hello RELEASE ARCHIVE TRUST DESTINATION\n");
        return 2;
    }
    int major = 0;
    std::string version = sc_version(&major, nullptr, nullptr);
    if (major != SC_VERSION_MAJOR) {
        std::fprintf(stderr, "hello: library %s is not major version %d\n", version.c_str(),
                     SC_VERSION_MAJOR);
        return 1;
    }
    sc_error err;
    Trust trust;
    Release rel;
    sc_box_report report;
    if (sc_trust_read_file(argv[3], &trust.t, &err) != SC_OK ||
        sc_release_open(argv[1], &trust.t, nullptr, &rel.r, &err) != SC_OK ||
        sc_box_verify(&rel.r, argv[2], &report, &err) != SC_OK)
        return fail(err);
    std::printf("c++: verified %s %s %s with libscrollcase %s\n", report.box_id, report.version,
                report.target_id, version.c_str());
    Receipt receipt;
    if (sc_box_prepare(&rel.r, argv[2], argv[4], &receipt.r, &err) != SC_OK)
        return fail(err);
    std::printf("c++: prepared %s (%s)\n", receipt.r.root, receipt.r.status);
    return 0;
}
