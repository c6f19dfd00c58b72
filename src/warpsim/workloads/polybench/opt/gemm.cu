// gemm: C = alpha * A * B + beta * C, one thread per element of C.
extern "C" __global__ void gemm_kernel(int ni, int nj, int nk, float alpha, float beta,
                                      const float *A, const float *B, float *C)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i < ni && j < nj) {
        float acc = C[i * nj + j] * beta;
        for (int k = 0; k < nk; k++)
            acc += alpha * A[i * nk + k] * B[k * nj + j];
        C[i * nj + j] = acc;
    }
}
