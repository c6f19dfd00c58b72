// 2mm: tmp = alpha * A * B, then D = beta * D + tmp * C. One thread per output element,
// the inner product walks global memory directly.
extern "C" __global__ void mm2_kernel1(int ni, int nj, int nk, float alpha,
                                       const float *A, const float *B, float *tmp)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i < ni && j < nj) {
        float acc = 0.0f;
        for (int k = 0; k < nk; k++)
            acc += alpha * A[i * nk + k] * B[k * nj + j];
        tmp[i * nj + j] = acc;
    }
}

extern "C" __global__ void mm2_kernel2(int ni, int nj, int nl, float beta,
                                       const float *tmp, const float *C, float *D)
{
    int l = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i < ni && l < nl) {
        float acc = D[i * nl + l] * beta;
        for (int j = 0; j < nj; j++)
            acc += tmp[i * nj + j] * C[j * nl + l];
        D[i * nl + l] = acc;
    }
}
