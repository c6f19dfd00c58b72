// Pointer-chasing latency microbenchmarks: one thread follows a ring of pointers, so every
// load depends on the previous one and the run time is iterations x load latency.
// chase_l1 uses L1-cached loads (ld.global.ca), chase_cg L1-bypassing loads (ld.global.cg),
// chase_shared a ring of 32-bit indices staged in 48 KiB of shared memory.
typedef unsigned long long u64;

extern "C" __global__ void chase_l1(const u64 *start, int iters, u64 *out)
{
    const u64 *p = start;
    for (int it = 0; it < iters; it++)
        p = (const u64 *)__ldca(p);
    out[0] = (u64)p;
}

extern "C" __global__ void chase_cg(const u64 *start, int iters, u64 *out)
{
    const u64 *p = start;
    for (int it = 0; it < iters; it++)
        p = (const u64 *)__ldcg(p);
    out[0] = (u64)p;
}

#define SHARED_WORDS 12288   // 48 KiB
extern "C" __global__ void chase_shared(const unsigned int *ring, int n, int iters, unsigned int *out)
{
    __shared__ unsigned int s[SHARED_WORDS];
    for (int i = threadIdx.x; i < n; i += blockDim.x)
        s[i] = ring[i];
    __syncthreads();
    if (threadIdx.x == 0) {
        unsigned int j = 0;
        for (int it = 0; it < iters; it++)
            j = s[j];
        out[0] = j;
    }
}
