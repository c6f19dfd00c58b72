// PolyBench/GPU mvt as published: x1 += A y1 (a row per thread) and x2 += A^T y2 (a column per
// thread); x1[i] and x2[i] are updated in global memory on every iteration.
extern "C" __global__ void mvt_kernel1(int n, float *a, float *x1, float *y1)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        for (int j = 0; j < n; j++)
            x1[i] += a[i * n + j] * y1[j];
    }
}

extern "C" __global__ void mvt_kernel2(int n, float *a, float *x2, float *y2)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        for (int j = 0; j < n; j++)
            x2[i] += a[j * n + i] * y2[j];
    }
}
