/* SPDX-License-Identifier: Apache-2.0 */
/*
 * inspect_time.c — how long archive inspection (sc_zip_open: every central
 * record, the collision, directory and link checks of 15.2) takes.
 * Usage: sc-bench-inspect-time RUNS ARCHIVE...; prints, per archive, one line
 * "<path> <entries> <best seconds>" (the best of RUNS opens).
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "scrollcase/archive_read.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s RUNS ARCHIVE...\n", argv[0]);
        return 2;
    }
    int runs = atoi(argv[1]);
    if (runs < 1)
        runs = 1;
    for (int a = 2; a < argc; a++) {
        double best = -1;
        size_t count = 0;
        for (int r = 0; r < runs; r++) {
            sc_zip *z = NULL;
            sc_error err;
            double t0 = now_s();
            sc_code c = sc_zip_open(argv[a], NULL, &z, &err);
            double t = now_s() - t0;
            if (c != SC_OK) {
                fprintf(stderr, "%s: %s\n", argv[a], err.message);
                return 1;
            }
            count = sc_zip_count(z);
            sc_zip_close(z);
            if (best < 0 || t < best)
                best = t;
        }
        printf("%s %zu %.6f\n", argv[a], count, best);
    }
    return 0;
}
