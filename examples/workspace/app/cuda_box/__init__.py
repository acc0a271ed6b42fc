# SPDX-License-Identifier: Apache-2.0
"""cuda_box: the CUDA demo box's own code.

Everything goes through the CUDA libraries the box carries in
``<sys.prefix>/lib/cuda`` (the CUDA runtime, cuBLAS with cuBLASLt, cuRAND),
loaded with ctypes; nothing is imported from outside the standard library.

The device follows the validation environment of format-v3 4.3, as the
reference workload ``scrollcase-parity-gemm`` does: ``CUDA_VISIBLE_DEVICES``
set to the empty string means the CPU; anything else (unset included) means
the first visible CUDA device, and a host without one is refused with
``error[accelerator-unavailable]`` -- never a CPU result under a CUDA name.

The inputs are those of ``scrollcase-parity-gemm``: cuRAND's host generator
(Philox4x32-10, legacy ordering, seed 20260729) fills A then B, each moved to
[-0.5, 0.5).  The CPU product rounds every multiplication and addition to
binary32 in k order, exactly as the workload's C reference does, so the CPU
values of the two are the same bits.
"""
import ctypes
import os
import struct
import sys
from array import array

M = N = K = 64
SEED = 20260729

LIBRARY_DIR = os.path.join(sys.prefix, "lib", "cuda")
SONAMES = {
    "cudart": "libcudart.so.13",
    "cublas": "libcublas.so.13",  # finds libcublasLt.so.13 beside it ($ORIGIN)
    "curand": "libcurand.so.10",
}

# Values from the CUDA 13 headers.
CURAND_RNG_PSEUDO_PHILOX4_32_10 = 161
CURAND_ORDERING_PSEUDO_LEGACY = 103
CUBLAS_OP_N = 0
CUBLAS_PEDANTIC_MATH = 2
CUDA_MEMCPY_HOST_TO_DEVICE = 1
CUDA_MEMCPY_DEVICE_TO_HOST = 2
CUDA_DEV_ATTR_CC_MAJOR = 75
CUDA_DEV_ATTR_CC_MINOR = 76


class Refusal(Exception):
    """A failure with a stable code (docs/errors.md) and a one-line reason."""

    def __init__(self, code, message):
        super().__init__(message)
        self.code = code


def fail(refusal):
    """Report a refusal the way scrollcase does and end the process with 1."""
    print(f"cuda_box: error[{refusal.code}]: {refusal}", file=sys.stderr)
    sys.exit(1)


def wants_cpu():
    return os.environ.get("CUDA_VISIBLE_DEVICES") == ""


def _visible():
    v = os.environ.get("CUDA_VISIBLE_DEVICES")
    return "unset" if v is None else f'"{v}"'


_loaded = {}


def library(name):
    """The box's own copy of one CUDA library (never the host's)."""
    if name not in _loaded:
        path = os.path.join(LIBRARY_DIR, SONAMES[name])
        if not os.path.isfile(path):
            raise Refusal("accelerator-unavailable", f"the box carries no {path}")
        try:
            _loaded[name] = ctypes.CDLL(path)
        except OSError as e:
            raise Refusal("accelerator-unavailable", f"cannot load {path}: {e}") from None
    return _loaded[name]


def _check(status, what, code="accelerator-unavailable"):
    if status != 0:
        raise Refusal(code, f"{what} failed with status {status}")


def inputs():
    """A (M x K) and B (K x N), column-major binary32, from the box's cuRAND."""
    rand = library("curand")
    gen = ctypes.c_void_p()
    _check(rand.curandCreateGeneratorHost(ctypes.byref(gen), CURAND_RNG_PSEUDO_PHILOX4_32_10),
           "curandCreateGeneratorHost", "internal")
    try:
        _check(rand.curandSetGeneratorOrdering(gen, CURAND_ORDERING_PSEUDO_LEGACY),
               "curandSetGeneratorOrdering", "internal")
        _check(rand.curandSetPseudoRandomGeneratorSeed(gen, ctypes.c_ulonglong(SEED)),
               "curandSetPseudoRandomGeneratorSeed", "internal")
        a = (ctypes.c_float * (M * K))()
        b = (ctypes.c_float * (K * N))()
        _check(rand.curandGenerateUniform(gen, a, ctypes.c_size_t(M * K)),
               "curandGenerateUniform", "internal")
        _check(rand.curandGenerateUniform(gen, b, ctypes.c_size_t(K * N)),
               "curandGenerateUniform", "internal")
    finally:
        rand.curandDestroyGenerator(gen)
    # Each subtraction rounded to binary32 (array('f') stores rounded values).
    return array("f", [x - 0.5 for x in a]), array("f", [x - 0.5 for x in b])


def cpu_gemm(a, b):
    """C = A B with every product and sum rounded to binary32, in k order."""
    c = array("f", bytes(4 * M * N))
    t = array("f", [0.0])
    for j in range(N):
        for i in range(M):
            acc = 0.0
            for k in range(K):
                t[0] = a[i + k * M] * b[k + j * K]
                t[0] = acc + t[0]
                acc = t[0]
            c[i + j * M] = acc
    return c


def device():
    """Facts of the first visible CUDA device, through the box's CUDA runtime."""
    rt = library("cudart")
    rt.cudaGetErrorName.restype = ctypes.c_char_p
    count = ctypes.c_int(0)
    status = rt.cudaGetDeviceCount(ctypes.byref(count))
    if status != 0 or count.value < 1:
        why = rt.cudaGetErrorName(status).decode("ascii", "replace") if status else "0 devices"
        raise Refusal("accelerator-unavailable",
                      f"no usable CUDA device (CUDA_VISIBLE_DEVICES={_visible()}; {why})")
    _check(rt.cudaSetDevice(0), "cudaSetDevice")
    props = ctypes.create_string_buffer(16384)  # cudaDeviceProp starts with char name[256]
    _check(rt.cudaGetDeviceProperties(props, 0), "cudaGetDeviceProperties")
    major, minor = ctypes.c_int(), ctypes.c_int()
    _check(rt.cudaDeviceGetAttribute(ctypes.byref(major), CUDA_DEV_ATTR_CC_MAJOR, 0),
           "cudaDeviceGetAttribute")
    _check(rt.cudaDeviceGetAttribute(ctypes.byref(minor), CUDA_DEV_ATTR_CC_MINOR, 0),
           "cudaDeviceGetAttribute")
    driver, runtime = ctypes.c_int(), ctypes.c_int()
    _check(rt.cudaDriverGetVersion(ctypes.byref(driver)), "cudaDriverGetVersion")
    _check(rt.cudaRuntimeGetVersion(ctypes.byref(runtime)), "cudaRuntimeGetVersion")
    name = props.raw[:256].split(b"\0", 1)[0].decode("ascii", "replace")
    return {
        "name": name,
        "computeCapability": f"{major.value}.{minor.value}",
        "visibleDevices": count.value,
        "driverCuda": f"{driver.value // 1000}.{driver.value % 1000 // 10}",
        "runtimeCuda": f"{runtime.value // 1000}.{runtime.value % 1000 // 10}",
    }


def cuda_gemm(a, b):
    """C = A B by the box's cuBLAS SGEMM on the device (pedantic math: no TF32)."""
    rt = library("cudart")
    blas = library("cublas")
    rt.cudaMalloc.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_size_t]
    rt.cudaMemcpy.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    rt.cudaFree.argtypes = [ctypes.c_void_p]
    blas.cublasCreate_v2.argtypes = [ctypes.POINTER(ctypes.c_void_p)]
    blas.cublasSetMathMode.argtypes = [ctypes.c_void_p, ctypes.c_int]
    blas.cublasDestroy_v2.argtypes = [ctypes.c_void_p]
    fp = ctypes.POINTER(ctypes.c_float)
    blas.cublasSgemm_v2.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_int,
                                    ctypes.c_int, ctypes.c_int, ctypes.c_int, fp,
                                    ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p,
                                    ctypes.c_int, fp, ctypes.c_void_p, ctypes.c_int]
    host_a = (ctypes.c_float * (M * K))(*a)
    host_b = (ctypes.c_float * (K * N))(*b)
    host_c = (ctypes.c_float * (M * N))()
    ptrs = [ctypes.c_void_p() for _ in range(3)]
    handle = ctypes.c_void_p()
    try:
        for p, n in zip(ptrs, (M * K, K * N, M * N)):
            _check(rt.cudaMalloc(ctypes.byref(p), 4 * n), "cudaMalloc")
        _check(rt.cudaMemcpy(ptrs[0], host_a, 4 * M * K, CUDA_MEMCPY_HOST_TO_DEVICE), "cudaMemcpy")
        _check(rt.cudaMemcpy(ptrs[1], host_b, 4 * K * N, CUDA_MEMCPY_HOST_TO_DEVICE), "cudaMemcpy")
        _check(blas.cublasCreate_v2(ctypes.byref(handle)), "cublasCreate")
        _check(blas.cublasSetMathMode(handle, CUBLAS_PEDANTIC_MATH), "cublasSetMathMode")
        one, zero = ctypes.c_float(1.0), ctypes.c_float(0.0)
        _check(blas.cublasSgemm_v2(handle, CUBLAS_OP_N, CUBLAS_OP_N, M, N, K, ctypes.byref(one),
                                   ptrs[0], M, ptrs[1], K, ctypes.byref(zero), ptrs[2], M),
               "cublasSgemm")
        _check(rt.cudaMemcpy(host_c, ptrs[2], 4 * M * N, CUDA_MEMCPY_DEVICE_TO_HOST), "cudaMemcpy")
    finally:
        if handle.value:
            blas.cublasDestroy_v2(handle)
        for p in ptrs:
            if p.value:
                rt.cudaFree(p)
    return array("f", host_c)


def bit_patterns(values):
    """binary32 bit patterns (format-v3 17.1), so the values travel exactly."""
    return [f"0x{w:08x}" for w in struct.unpack(f"<{len(values)}I", values.tobytes())]


def compute():
    """(accelerator, device facts, C) on the device the environment names."""
    a, b = inputs()
    if wants_cpu():
        return "cpu", {"name": "cpu"}, cpu_gemm(a, b)
    facts = device()
    return "cuda", facts, cuda_gemm(a, b)


def self_check(tolerance=1e-4):
    """The GPU SGEMM against the CPU product; returns a summary, raises Refusal."""
    if wants_cpu():
        raise Refusal("accelerator-unavailable",
                      "the CUDA self-test needs a device and CUDA_VISIBLE_DEVICES is empty")
    a, b = inputs()
    facts = device()
    gpu = cuda_gemm(a, b)
    cpu = cpu_gemm(a, b)
    worst = 0.0
    for g, c in zip(gpu, cpu):
        if g != g or abs(g) == float("inf"):
            raise Refusal("parity-non-finite", "the device SGEMM gave a non-finite value")
        worst = max(worst, abs(g - c))
    if worst > tolerance:
        raise Refusal("self-test-failed",
                      f"device SGEMM differs from the CPU product by {worst:.3g} (> {tolerance})")
    return dict(facts, maximumAbsoluteError=worst, shape=[M, N, K])
