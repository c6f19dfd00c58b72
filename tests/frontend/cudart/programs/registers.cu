// Registers per thread as the runtime reports them (cudaFuncGetAttributes, the occupancy API):
// a kernel with many values live at once, whose PTX liveness estimate differs from what ptxas
// allocates. The test compares the printed numbers with nvcc --resource-usage.
#include <cstdio>

__global__ void many_live(const float *in, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float a[24];
#pragma unroll
    for (int k = 0; k < 24; ++k) a[k] = in[(i + k * 97) % n];
    float s = 0.f;
#pragma unroll
    for (int k = 0; k < 24; ++k) s += a[k] * a[23 - k];
    out[i] = s;
}

int main() {
    cudaFuncAttributes attr;
    if (cudaFuncGetAttributes(&attr, many_live) != cudaSuccess) return 1;
    int blocks = 0;
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, many_live, 1024, 0);
    printf("numRegs %d blocks_per_sm_1024 %d\n", attr.numRegs, blocks);
    return 0;
}
