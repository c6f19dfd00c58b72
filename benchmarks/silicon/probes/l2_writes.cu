// Probe: what a partial-sector store costs in the L2, on silicon and in the model.
//
// Every case below touches the same number of 32-byte sectors (SECTORS), so the per-launch
// cycles compare directly: full sectors written by coalesced warps, then one 4-byte word per
// sector (stride 8 words), one word per 128-byte line (stride 32), and half of every sector
// (stride 2). Each case runs twice: the first launch after a 256 MB sweep that leaves none of
// the target in the L2 (argument 2 = 0 skips the sweep: then flush the L2 by other means),
// the second with the target resident (the first launch wrote it).
// Build: nvcc -O3 -arch=sm_90 l2_writes.cu -o l2_writes   (any sm_75+ for warpsim run-app)
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
    printf("CUDA error %s at %s:%d\n", cudaGetErrorString(e), __FILE__, __LINE__); return 1; } } while (0)

__global__ void store_strided(float *out, int n, int stride) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[(size_t)i * stride] = (float)i;
}

__global__ void sweep(float *junk, int n) {        // streams n floats through the L2 (evicts)
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) junk[i] = junk[i] * 0.5f + 1.0f;
}

int main(int argc, char **argv) {
    const int SECTORS = argc > 1 ? atoi(argv[1]) : (1 << 18);
    const int SWEEP = argc > 2 ? atoi(argv[2]) : (1 << 26);     // floats: 256 MB; 0: no sweep
    const int strides[4] = {1, 8, 32, 2};
    const int per_sector[4] = {8, 1, 1, 4};                     // words each sector receives
    size_t most = (size_t)SECTORS * 32 * 4;                     // stride 32: one line per sector
    float *out, *junk;
    CHECK(cudaMalloc(&out, most * sizeof(float) / 4 + 4096));
    CHECK(cudaMalloc(&junk, (size_t)(SWEEP + 1) * sizeof(float)));
    CHECK(cudaMemset(junk, 0, (size_t)(SWEEP + 1) * sizeof(float)));
    for (int c = 0; c < 4; ++c) {
        int n = SECTORS * per_sector[c];
        int threads = 256, blocks = (n + threads - 1) / threads;
        if (SWEEP > 0) sweep<<<(SWEEP + 255) / 256, 256>>>(junk, SWEEP);
        for (int rep = 0; rep < 2; ++rep)
            store_strided<<<blocks, threads>>>(out, n, strides[c]);
        CHECK(cudaGetLastError());
    }
    CHECK(cudaDeviceSynchronize());
    float probe[2];
    CHECK(cudaMemcpy(probe, out + 8 * 5, sizeof(probe), cudaMemcpyDeviceToHost));
    printf("l2_writes: %d sectors per case, out[40] = %.0f (expect 20)\n", SECTORS, probe[0]);
    CHECK(cudaFree(out));
    CHECK(cudaFree(junk));
    return 0;
}
