// syr2k: C = alpha * A * B^T + alpha * B * A^T + beta * C (A, B are N x M).
extern "C" __global__ void syr2k_kernel(int n, int m, float alpha, float beta,
                                       const float *A, const float *B, float *C)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i < n && j < n) {
        float acc = C[i * n + j] * beta;
        for (int k = 0; k < m; k++)
            acc += alpha * A[i * m + k] * B[j * m + k] + alpha * B[i * m + k] * A[j * m + k];
        C[i * n + j] = acc;
    }
}
