// Row softmax, one warp per row: max and sum by butterfly shuffles, exponentials with __expf (ex2.approx).
extern "C" __global__ void softmax(const float* x, float* y, int rows, int cols) {
    int row = blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5);
    int lane = threadIdx.x & 31;
    if (row >= rows) return;
    const float* xr = x + (size_t)row * cols;
    float m = -INFINITY;
    for (int j = lane; j < cols; j += 32) m = fmaxf(m, xr[j]);
    for (int off = 16; off > 0; off >>= 1) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, off));
    float s = 0.0f;
    for (int j = lane; j < cols; j += 32) s += __expf(xr[j] - m);
    for (int off = 16; off > 0; off >>= 1) s += __shfl_xor_sync(0xffffffffu, s, off);
    float inv = 1.0f / s;
    for (int j = lane; j < cols; j += 32) y[(size_t)row * cols + j] = __expf(xr[j] - m) * inv;
}
