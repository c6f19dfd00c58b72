// Gaussian elimination without pivoting, two kernels per pivot t (Fan-style):
// fan1 computes the multipliers of the rows below t, fan2 eliminates column t from them.
extern "C" __global__ void gauss_fan1(int n, float *m, const float *a, int t)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n - 1 - t)
        m[(i + t + 1) * n + t] = a[(i + t + 1) * n + t] / a[t * n + t];
}

extern "C" __global__ void gauss_fan2(int n, const float *m, float *a, float *b, int t)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i < n - 1 - t && j < n - t) {
        float f = m[(i + 1 + t) * n + t];
        a[(i + 1 + t) * n + (j + t)] -= f * a[t * n + (j + t)];
        if (j == 0)
            b[i + 1 + t] -= f * b[t];
    }
}
