// Atomic microbenchmarks. Latency: one thread issues a chain of atomicAdds in which each
// address depends on the value the previous one returned. Throughput: every thread adds
// to one of `naddr` counters (naddr = 1 is full contention) `iters` times.
extern "C" __global__ void atomic_latency(unsigned int *a, int iters, unsigned int *out)
{
    unsigned int idx = 0;
    for (int it = 0; it < iters; it++) {
        unsigned int v = atomicAdd(&a[idx], 1u);
        idx = (v & 1u) * 32u;
    }
    out[0] = idx;
}

extern "C" __global__ void atomic_throughput(unsigned int *a, int naddr, int iters)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned int *p = &a[t % naddr];
    for (int it = 0; it < iters; it++)
        atomicAdd(p, 1u);
}
