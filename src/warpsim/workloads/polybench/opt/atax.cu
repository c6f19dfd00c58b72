// atax: y = A^T (A x). Kernel 1 walks a row of A per thread, kernel 2 a column per thread.
extern "C" __global__ void atax_kernel1(int nx, int ny, const float *A, const float *x, float *tmp)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < nx) {
        float acc = 0.0f;
        for (int j = 0; j < ny; j++)
            acc += A[i * ny + j] * x[j];
        tmp[i] = acc;
    }
}

extern "C" __global__ void atax_kernel2(int nx, int ny, const float *A, const float *tmp, float *y)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j < ny) {
        float acc = 0.0f;
        for (int i = 0; i < nx; i++)
            acc += A[i * ny + j] * tmp[i];
        y[j] = acc;
    }
}
