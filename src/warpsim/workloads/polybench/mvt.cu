// mvt: x1 += A y1 (row walk), x2 += A^T y2 (column walk).
extern "C" __global__ void mvt_kernel1(int n, const float *A, float *x1, const float *y1)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        for (int j = 0; j < n; j++)
            x1[i] += A[i * n + j] * y1[j];
    }
}

extern "C" __global__ void mvt_kernel2(int n, const float *A, float *x2, const float *y2)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        for (int j = 0; j < n; j++)
            x2[i] += A[j * n + i] * y2[j];
    }
}
