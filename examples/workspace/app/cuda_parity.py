# SPDX-License-Identifier: Apache-2.0
"""The CUDA demo box's parity script (format-v3 17): prints the 64x64x64
SGEMM computed on the device CUDA_VISIBLE_DEVICES names -- the CPU for "",
the first visible CUDA device otherwise, through the box's own CUDA
libraries -- as a values document of binary32 bit patterns.  A run for CUDA
on a host without a usable device exits 1 with accelerator-unavailable and
prints nothing on standard output."""
import json

import cuda_box

try:
    accelerator, facts, c = cuda_box.compute()
except cuda_box.Refusal as refusal:
    cuda_box.fail(refusal)
print(json.dumps({
    "accelerator": accelerator,
    "device": facts,
    "shape": [cuda_box.M, cuda_box.N, cuda_box.K],
    "values": cuda_box.bit_patterns(c),
}, indent=1))
