// PolyBench/GPU atax as published: tmp = A x (a row per thread), then y = A^T tmp (a column per
// thread); tmp[i] and y[j] are updated in global memory on every iteration.
extern "C" __global__ void atax_kernel1(int nx, int ny, float *a, float *x, float *tmp)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < nx) {
        for (int j = 0; j < ny; j++)
            tmp[i] += a[i * ny + j] * x[j];
    }
}

extern "C" __global__ void atax_kernel2(int nx, int ny, float *a, float *y, float *tmp)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j < ny) {
        for (int i = 0; i < nx; i++)
            y[j] += a[i * ny + j] * tmp[i];
    }
}
