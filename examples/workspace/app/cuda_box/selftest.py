# SPDX-License-Identifier: Apache-2.0
"""Importing this module is the CUDA demo box's self-test.

A box's self-test is the import of its selfTest.imports (format-v3 16.1): the
builder runs it before publishing and `scrollcase verify --self-test` repeats
it on the consumer's host, so the check lives in the import itself.  It finds
a device through the box's CUDA runtime, runs a 64x64x64 cuBLAS SGEMM and
compares it with the CPU product; without a usable device it fails with
accelerator-unavailable.
"""
import json
import sys

import cuda_box

try:
    summary = cuda_box.self_check()
except cuda_box.Refusal as refusal:
    cuda_box.fail(refusal)
print("cuda_box self-test: " + json.dumps(summary, sort_keys=True), file=sys.stderr)
