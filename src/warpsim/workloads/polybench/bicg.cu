// PolyBench/GPU bicg as published: s = A^T r (a column per thread) and q = A p (a row per
// thread); s[j] and q[i] are zeroed, then updated in global memory on every iteration.
extern "C" __global__ void bicg_kernel1(int nx, int ny, float *a, float *r, float *s)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j < ny) {
        s[j] = 0.0f;
        for (int i = 0; i < nx; i++)
            s[j] += a[i * ny + j] * r[i];
    }
}

extern "C" __global__ void bicg_kernel2(int nx, int ny, float *a, float *p, float *q)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < nx) {
        q[i] = 0.0f;
        for (int j = 0; j < ny; j++)
            q[i] += a[i * ny + j] * p[j];
    }
}
