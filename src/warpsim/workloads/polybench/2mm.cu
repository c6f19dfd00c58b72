// PolyBench/GPU 2mm as published: tmp = A*B, then E += tmp*D; each output element is updated in
// global memory on every k iteration. Sizes are runtime arguments instead of #defines.
extern "C" __global__ void mm2_kernel1(int ni, int nj, int nk, float *a, float *b, float *tmp)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i < ni && j < nj) {
        for (int k = 0; k < nk; k++)
            tmp[i * nj + j] += a[i * nk + k] * b[k * nj + j];
    }
}

extern "C" __global__ void mm2_kernel2(int ni, int nj, int nl, float *tmp, float *d, float *e)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i < ni && j < nl) {
        for (int k = 0; k < nj; k++)
            e[i * nl + j] += tmp[i * nj + k] * d[k * nl + j];
    }
}
