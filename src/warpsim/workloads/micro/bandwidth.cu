// Bandwidth microbenchmarks: many threads stream independent loads so throughput, not
// latency, bounds the run. l1/l2: every thread re-reads a small array `iters` times with
// L1-cached (.ca) or L1-bypassing (.cg) loads; shared: conflict-free shared-memory reads;
// dram: float4 C = A + B + D + E + F with a grid-stride loop over large arrays.
extern "C" __global__ void bw_l1(const float *a, int n, int iters, float *out)
{
    float acc = 0.0f;
    int mask = n - 1;                      // n is a power of two
    for (int it = 0; it < iters; it++)
        for (int k = threadIdx.x; k < n; k += blockDim.x)
            acc += __ldca(&a[(k + it) & mask]);
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc;
}

extern "C" __global__ void bw_l2(const float *a, int n, int iters, float *out)
{
    float acc = 0.0f;
    int gtid = blockIdx.x * blockDim.x + threadIdx.x;
    int stride = gridDim.x * blockDim.x;
    int mask = n - 1;
    for (int it = 0; it < iters; it++)
        for (int k = gtid; k < n; k += stride)
            acc += __ldcg(&a[(k + it * 32) & mask]);
    out[gtid] = acc;
}

#define SMEM_WORDS 4096
extern "C" __global__ void bw_shared(const float *a, int iters, float *out)
{
    __shared__ float s[SMEM_WORDS];
    for (int i = threadIdx.x; i < SMEM_WORDS; i += blockDim.x)
        s[i] = a[i];
    __syncthreads();
    float acc0 = 0.0f, acc1 = 0.0f;
    for (int it = 0; it < iters; it++) {
        int base = (it * 64) & (SMEM_WORDS - 1);
        acc0 += s[(base + threadIdx.x) & (SMEM_WORDS - 1)];
        acc1 += s[(base + threadIdx.x + 32) & (SMEM_WORDS - 1)];
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = acc0 + acc1;
}

extern "C" __global__ void bw_dram(int n4, const float4 *A, const float4 *B, const float4 *D, const float4 *E,
                                  const float4 *F, float4 *C)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += gridDim.x * blockDim.x) {
        float4 a = A[i], b = B[i], d = D[i], e = E[i], f = F[i];
        C[i] = make_float4(a.x + b.x + d.x + e.x + f.x, a.y + b.y + d.y + e.y + f.y,
                           a.z + b.z + d.z + e.z + f.z, a.w + b.w + d.w + e.w + f.w);
    }
}
