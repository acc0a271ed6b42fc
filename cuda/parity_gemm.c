/* SPDX-License-Identifier: Apache-2.0 */
/*
 * parity_gemm.c — scrollcase-parity-gemm, the reference parity workload
 * (docs/format-v3.md 17.6).
 *
 * Guarantees: the inputs are the same on every run and every host: cuRAND's
 * host generator (Philox4x32-10, legacy ordering, seed PARITY_SEED) fills A
 * then B.  The device follows the validation environment of 4.3:
 * CUDA_VISIBLE_DEVICES set to the empty string selects the CPU reference
 * GEMM; anything else requires a usable CUDA device and runs cuBLAS SGEMM
 * (pedantic math: no TF32).  No usable device → exit 1 with
 * error[accelerator-unavailable]; never a CPU fallback.  Output on stdout:
 * {"accelerator", "device", "shape", "values"} with every value a binary32
 * bit pattern (17.1), column-major.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <curand.h>

#define DIM_M 64
#define DIM_N 64
#define DIM_K 64
#define PARITY_SEED 20260729ULL

static int fail(const char *code, const char *what, const char *detail)
{
    fprintf(stderr, "scrollcase-parity-gemm: error[%s]: %s: %s\n", code, what, detail);
    return 1;
}

/* A then B, each centred on 0, from one Philox stream. */
static int make_inputs(float *a, float *b)
{
    curandGenerator_t g;
    curandStatus_t s = curandCreateGeneratorHost(&g, CURAND_RNG_PSEUDO_PHILOX4_32_10);
    if (s != CURAND_STATUS_SUCCESS)
        return fail("internal", "curandCreateGeneratorHost", "failed");
    int ok = curandSetGeneratorOrdering(g, CURAND_ORDERING_PSEUDO_LEGACY) ==
                 CURAND_STATUS_SUCCESS &&
             curandSetPseudoRandomGeneratorSeed(g, PARITY_SEED) == CURAND_STATUS_SUCCESS &&
             curandGenerateUniform(g, a, DIM_M * DIM_K) == CURAND_STATUS_SUCCESS &&
             curandGenerateUniform(g, b, DIM_K * DIM_N) == CURAND_STATUS_SUCCESS;
    curandDestroyGenerator(g);
    if (!ok)
        return fail("internal", "cuRAND", "generating the inputs failed");
    for (int i = 0; i < DIM_M * DIM_K; i++)
        a[i] -= 0.5f;
    for (int i = 0; i < DIM_K * DIM_N; i++)
        b[i] -= 0.5f;
    return 0;
}

/* C = A B, column-major, float accumulation in k order. */
static void cpu_gemm(const float *a, const float *b, float *c)
{
    for (int j = 0; j < DIM_N; j++)
        for (int i = 0; i < DIM_M; i++) {
            float acc = 0.0f;
            for (int k = 0; k < DIM_K; k++) {
                float p = a[i + k * DIM_M] * b[k + j * DIM_K];
                acc = acc + p;
            }
            c[i + j * DIM_M] = acc;
        }
}

static int cuda_gemm(const float *a, const float *b, float *c, char *name, size_t size)
{
    int count = 0;
    cudaError_t e = cudaGetDeviceCount(&count);
    const char *visible = getenv("CUDA_VISIBLE_DEVICES");
    char detail[256];
    if (e != cudaSuccess || count < 1) {
        snprintf(detail, sizeof detail, "no usable CUDA device (CUDA_VISIBLE_DEVICES=%s%s%s; %s)",
                 visible != NULL ? "\"" : "", visible != NULL ? visible : "unset",
                 visible != NULL ? "\"" : "",
                 e != cudaSuccess ? cudaGetErrorName(e) : "0 devices");
        return fail("accelerator-unavailable", "cuda", detail);
    }
    struct cudaDeviceProp prop;
    if ((e = cudaSetDevice(0)) != cudaSuccess ||
        (e = cudaGetDeviceProperties(&prop, 0)) != cudaSuccess)
        return fail("accelerator-unavailable", "device 0", cudaGetErrorName(e));
    snprintf(name, size, "%s (sm_%d%d)", prop.name, prop.major, prop.minor);
    float *da = NULL, *db = NULL, *dc = NULL;
    cublasHandle_t h = NULL;
    int rc = 0;
    const float one = 1.0f, zero = 0.0f;
    if (cudaMalloc((void **)&da, sizeof(float) * DIM_M * DIM_K) != cudaSuccess ||
        cudaMalloc((void **)&db, sizeof(float) * DIM_K * DIM_N) != cudaSuccess ||
        cudaMalloc((void **)&dc, sizeof(float) * DIM_M * DIM_N) != cudaSuccess ||
        cudaMemcpy(da, a, sizeof(float) * DIM_M * DIM_K, cudaMemcpyHostToDevice) != cudaSuccess ||
        cudaMemcpy(db, b, sizeof(float) * DIM_K * DIM_N, cudaMemcpyHostToDevice) != cudaSuccess)
        rc = fail("accelerator-unavailable", "cuda", "allocating or copying the inputs failed");
    else if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS ||
             cublasSetMathMode(h, CUBLAS_PEDANTIC_MATH) != CUBLAS_STATUS_SUCCESS)
        rc = fail("accelerator-unavailable", "cublas", "cuBLAS could not start");
    else if (cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, DIM_M, DIM_N, DIM_K, &one, da, DIM_M, db,
                         DIM_K, &zero, dc, DIM_M) != CUBLAS_STATUS_SUCCESS ||
             cudaMemcpy(c, dc, sizeof(float) * DIM_M * DIM_N, cudaMemcpyDeviceToHost) !=
                 cudaSuccess)
        rc = fail("accelerator-unavailable", "cublas", "SGEMM failed");
    if (h != NULL)
        cublasDestroy(h);
    cudaFree(da);
    cudaFree(db);
    cudaFree(dc);
    return rc;
}

/* A JSON string of s (device names are ASCII; anything odd becomes '?'). */
static void print_string(const char *s)
{
    putchar('"');
    for (; *s != '\0'; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\')
            printf("\\%c", ch);
        else if (ch < 0x20 || ch > 0x7e)
            putchar('?');
        else
            putchar(ch);
    }
    putchar('"');
}

int main(int argc, char **argv)
{
    (void)argv;
    if (argc != 1) {
        fprintf(stderr, "usage: scrollcase-parity-gemm   (the device follows CUDA_VISIBLE_DEVICES)\n");
        return 2;
    }
    const char *visible = getenv("CUDA_VISIBLE_DEVICES");
    int cpu = visible != NULL && visible[0] == '\0';
    static float a[DIM_M * DIM_K], b[DIM_K * DIM_N], c[DIM_M * DIM_N];
    char device[512] = "cpu";
    if (make_inputs(a, b) != 0)
        return 1;
    if (cpu)
        cpu_gemm(a, b, c);
    else if (cuda_gemm(a, b, c, device, sizeof device) != 0)
        return 1;
    printf("{\n  \"accelerator\": \"%s\",\n  \"device\": ", cpu ? "cpu" : "cuda");
    print_string(device);
    printf(",\n  \"shape\": [%d, %d, %d],\n  \"values\": [", DIM_M, DIM_N, DIM_K);
    for (int i = 0; i < DIM_M * DIM_N; i++) {
        uint32_t bits;
        memcpy(&bits, &c[i], sizeof bits);
        printf("%s\n    \"0x%08x\"", i == 0 ? "" : ",", (unsigned)bits);
    }
    printf("\n  ]\n}\n");
    return fflush(stdout) == 0 ? 0 : 1;
}
