// Sparse matrix-vector product y = A x with A in CSR, two classic mappings:
// scalar (one thread per row) and vector (one warp per row, shuffle reduction).
extern "C" __global__ void spmv_csr_scalar(int nrows, const int *row_ptr, const int *cols, const float *vals,
                                          const float *x, float *y)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r < nrows) {
        float acc = 0.0f;
        for (int e = row_ptr[r]; e < row_ptr[r + 1]; e++)
            acc += vals[e] * x[cols[e]];
        y[r] = acc;
    }
}

extern "C" __global__ void spmv_csr_vector(int nrows, const int *row_ptr, const int *cols, const float *vals,
                                          const float *x, float *y)
{
    int gtid = blockIdx.x * blockDim.x + threadIdx.x;
    int r = gtid / 32, lane = gtid % 32;
    if (r < nrows) {
        float acc = 0.0f;
        for (int e = row_ptr[r] + lane; e < row_ptr[r + 1]; e += 32)
            acc += vals[e] * x[cols[e]];
        for (int off = 16; off > 0; off >>= 1)
            acc += __shfl_down_sync(0xffffffffu, acc, off);
        if (lane == 0)
            y[r] = acc;
    }
}
