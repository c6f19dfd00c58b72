// bicg: s = A^T r (column walk per thread) and q = A p (row walk per thread).
extern "C" __global__ void bicg_kernel1(int nx, int ny, const float *A, const float *r, float *s)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j < ny) {
        float acc = 0.0f;
        for (int i = 0; i < nx; i++)
            acc += r[i] * A[i * ny + j];
        s[j] = acc;
    }
}

extern "C" __global__ void bicg_kernel2(int nx, int ny, const float *A, const float *p, float *q)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < nx) {
        float acc = 0.0f;
        for (int j = 0; j < ny; j++)
            acc += A[i * ny + j] * p[j];
        q[i] = acc;
    }
}
