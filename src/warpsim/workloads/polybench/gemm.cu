// PolyBench/GPU gemm as published: C = alpha*A*B + beta*C, one thread per element of C, and the
// element of C is updated in global memory on every k iteration (no register accumulator).
extern "C" __global__ void gemm_kernel(int ni, int nj, int nk, float alpha, float beta,
                                      float *a, float *b, float *c)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i < ni && j < nj) {
        c[i * nj + j] *= beta;
        for (int k = 0; k < nk; k++)
            c[i * nj + j] += alpha * a[i * nk + k] * b[k * nj + j];
    }
}
