// A latency microbenchmark in the style of the GPU ones researchers run (our own code): one thread
// chases a ring of pointers through the L2 (__ldcg) and times the chain with clock(); the host
// prints cycles per load. Under `warpsim run-app --mode timing` clock() returns simulated cycles.
#include <cstdio>
#include <cstdint>

__global__ void chase(const uint64_t *ring, unsigned warm, unsigned steps, unsigned *cycles, uint64_t *sink) {
    const uint64_t *p = ring;
    for (unsigned i = 0; i < warm; ++i) p = (const uint64_t *)__ldcg(p);
    unsigned t0 = (unsigned)clock();
    for (unsigned i = 0; i < steps; ++i) p = (const uint64_t *)__ldcg(p);
    unsigned t1 = (unsigned)clock();
    cycles[0] = t1 - t0;
    *sink = (uint64_t)p;
}

int main() {
    const unsigned n = 256, steps = 1024;
    uint64_t *ring, *sink;
    unsigned *cycles;
    cudaMalloc(&ring, n * sizeof(uint64_t));
    cudaMalloc(&sink, sizeof(uint64_t));
    cudaMalloc(&cycles, sizeof(unsigned));
    uint64_t host[n];
    for (unsigned i = 0; i < n; ++i) host[i] = (uint64_t)(ring + (i + 1) % n);
    cudaMemcpy(ring, host, sizeof(host), cudaMemcpyHostToDevice);
    chase<<<1, 1>>>(ring, n, steps, cycles, sink);
    unsigned c = 0;
    if (cudaMemcpy(&c, cycles, sizeof(c), cudaMemcpyDeviceToHost) != cudaSuccess) return 1;
    printf("L2 chase: %.3f cycles per load\n", (double)c / steps);
    return 0;
}
