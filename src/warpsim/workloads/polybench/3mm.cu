// PolyBench/GPU 3mm as published: E = A*B, F = C*D, G = E*F as three kernels, each output
// element updated in global memory on every k iteration.
extern "C" __global__ void mm3_kernel1(int ni, int nj, int nk, float *a, float *b, float *e)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i < ni && j < nj) {
        for (int k = 0; k < nk; k++)
            e[i * nj + j] += a[i * nk + k] * b[k * nj + j];
    }
}

extern "C" __global__ void mm3_kernel2(int nj, int nl, int nm, float *c, float *d, float *f)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i < nj && j < nl) {
        for (int k = 0; k < nm; k++)
            f[i * nl + j] += c[i * nm + k] * d[k * nl + j];
    }
}

extern "C" __global__ void mm3_kernel3(int ni, int nj, int nl, float *e, float *f, float *g)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i < ni && j < nl) {
        for (int k = 0; k < nj; k++)
            g[i * nl + j] += e[i * nj + k] * f[k * nl + j];
    }
}
