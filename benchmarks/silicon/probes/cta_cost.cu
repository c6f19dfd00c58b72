// Probe: what a CTA and a warp cost beyond their instructions, on silicon and in the model.
//
// The same 2^21 threads (8 MB of float stores, 262,144 full sectors) are launched as 2,048 CTAs
// of 1,024 threads, 8,192 of 256 and 32,768 of 64, with and without their stores; then the
// stores of 8,192 x 256 threads by 1,024 CTAs of 256 threads, each thread storing 8 words
// (grid-stride: every warp instruction still writes one full 128-byte line). Every case runs
// twice (the second is the one to compare: its lines are in the L2).
// Build: nvcc -O3 -arch=sm_90 cta_cost.cu -o cta_cost   (-cudart shared for warpsim run-app)
#include <cstdio>
#include <cuda_runtime.h>

#define CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
    printf("CUDA error %s at %s:%d\n", cudaGetErrorString(e), __FILE__, __LINE__); return 1; } } while (0)

__global__ void store_or_not(float *out, int n, int store) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (store && i < n) out[i] = (float)i;
}

__global__ void store_loop(float *out, int n) {
    int stride = gridDim.x * blockDim.x;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) out[i] = (float)i;
}

int main() {
    const int n = 1 << 21;
    const int blocks[3] = {1024, 256, 64};
    float *out;
    CHECK(cudaMalloc(&out, n * sizeof(float)));
    CHECK(cudaMemset(out, 0, n * sizeof(float)));
    for (int store = 0; store < 2; ++store)
        for (int b = 0; b < 3; ++b)
            for (int rep = 0; rep < 2; ++rep)
                store_or_not<<<n / blocks[b], blocks[b]>>>(out, n, store);
    for (int rep = 0; rep < 2; ++rep)
        store_loop<<<1024, 256>>>(out, n);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    float probe;
    CHECK(cudaMemcpy(&probe, out + 12345, sizeof(float), cudaMemcpyDeviceToHost));
    printf("cta_cost: out[12345] = %.0f (expect 12345)\n", probe);
    CHECK(cudaFree(out));
    return 0;
}
