# SPDX-License-Identifier: Apache-2.0
"""`python -m cuda_box`: the box's program.  Runs the SGEMM on the device the
environment names (format-v3 4.3) and prints what ran and a digest of the
result as JSON; with `--values` the values themselves (as the parity script)."""
import hashlib
import json
import sys

import cuda_box

try:
    accelerator, facts, c = cuda_box.compute()
except cuda_box.Refusal as refusal:
    cuda_box.fail(refusal)
out = {
    "accelerator": accelerator,
    "device": facts,
    "shape": [cuda_box.M, cuda_box.N, cuda_box.K],
    "sha256": hashlib.sha256(c.tobytes()).hexdigest(),
    "trace": sum(c[i + i * cuda_box.M] for i in range(min(cuda_box.M, cuda_box.N))),
}
if "--values" in sys.argv[1:]:
    out["values"] = cuda_box.bit_patterns(c)
print(json.dumps(out, indent=2))
