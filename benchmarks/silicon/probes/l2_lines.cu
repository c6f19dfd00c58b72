// Probe: is an L2 request's cost per line (tag lookup) or per sector, and is it the same for
// reads and writes? All data L2-resident (16 MB, touched once first), 512 CTAs of 256 threads
// (few enough that the work distributor does not bind). Per launch, twice each:
//   w_word_line   one 4 B store per 128 B line        131,072 lines, 131,072 partial sectors
//   w_sector_line one full 32 B sector per line (8 lanes, each thread 8 times: a warp
//                 instruction writes 4 lines) 131,072 lines, 131,072 full sectors
//   w_word_sector one 4 B store per sector            32,768 lines, 131,072 partial sectors
//   r_word_line   one 4 B load per line (ld.cg)       131,072 lines, 131,072 sectors
//   r_sector_line one 32 B sector per line (ld.cg, 8 lanes, as above) 131,072 lines, sectors
//   r_word_sector one 4 B load per sector (ld.cg)     32,768 lines, 131,072 sectors
// Argument: passes over the lines per launch (default 1).
// Build: nvcc -O3 -arch=sm_90 l2_lines.cu -o l2_lines   (-cudart shared for warpsim run-app)
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
    printf("CUDA error %s at %s:%d\n", cudaGetErrorString(e), __FILE__, __LINE__); return 1; } } while (0)

// Each kernel walks `reps` passes over its lines (grid-stride), so (cycles at reps R) - (cycles at
// reps 1) is R - 1 passes of requests with no launch or CTA cost in it.
__global__ void w_word(float *out, int items, int stride, int reps) {
    int step = gridDim.x * blockDim.x;
    for (int j = blockIdx.x * blockDim.x + threadIdx.x; j < items * reps; j += step)
        out[(size_t)(j % items) * stride] = (float)j;
}

__global__ void w_sector_line(float *out, int lines, int reps) {   // 8 lanes fill one sector
    int step = gridDim.x * blockDim.x;
    for (int j = blockIdx.x * blockDim.x + threadIdx.x; j < 8 * lines * reps; j += step) {
        int i = j % (8 * lines);
        out[(size_t)(i >> 3) * 32 + (i & 7)] = (float)i;
    }
}

__global__ void r_word(const float *in, float *sink, int items, int stride, int reps) {
    int step = gridDim.x * blockDim.x;
    float acc = 0.0f;
    for (int j = blockIdx.x * blockDim.x + threadIdx.x; j < items * reps; j += step)
        acc += __ldcg(in + (size_t)(j % items) * stride);
    if (acc == -1.0f) sink[0] = acc;                    // never: keeps the loads
}

__global__ void r_sector_line(const float *in, float *sink, int lines, int reps) {
    int step = gridDim.x * blockDim.x;
    float acc = 0.0f;
    for (int j = blockIdx.x * blockDim.x + threadIdx.x; j < 8 * lines * reps; j += step) {
        int i = j % (8 * lines);
        acc += __ldcg(in + (size_t)(i >> 3) * 32 + (i & 7));
    }
    if (acc == -1.0f) sink[0] = acc;
}

int main(int argc, char **argv) {
    const int lines = 131072, threads = 256, blocks = 512;
    const int reps = argc > 1 ? atoi(argv[1]) : 1;
    float *buf, *sink;
    CHECK(cudaMalloc(&buf, (size_t)lines * 128));
    CHECK(cudaMalloc(&sink, 64));
    CHECK(cudaMemset(buf, 0, (size_t)lines * 128));     // every line written once: L2-resident
    for (int rep = 0; rep < 2; ++rep) w_word<<<blocks, threads>>>(buf, lines, 32, reps);
    for (int rep = 0; rep < 2; ++rep) w_sector_line<<<blocks, threads>>>(buf, lines, reps);
    for (int rep = 0; rep < 2; ++rep) w_word<<<blocks, threads>>>(buf, lines, 8, reps);  // 32,768 lines
    for (int rep = 0; rep < 2; ++rep) r_word<<<blocks, threads>>>(buf, sink, lines, 32, reps);
    for (int rep = 0; rep < 2; ++rep) r_sector_line<<<blocks, threads>>>(buf, sink, lines, reps);
    for (int rep = 0; rep < 2; ++rep) r_word<<<blocks, threads>>>(buf, sink, lines, 8, reps);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    float probe;
    CHECK(cudaMemcpy(&probe, buf + 8 * 7, sizeof(float), cudaMemcpyDeviceToHost));
    printf("l2_lines: %d passes, buf[56] = %.0f (expect %d)\n", reps, probe, 7 + (reps - 1) * lines);
    return 0;
}
