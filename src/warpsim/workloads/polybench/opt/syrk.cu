// syrk: C = alpha * A * A^T + beta * C (A is N x M), one thread per element of C.
extern "C" __global__ void syrk_kernel(int n, int m, float alpha, float beta, const float *A, float *C)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i < n && j < n) {
        float acc = C[i * n + j] * beta;
        for (int k = 0; k < m; k++)
            acc += alpha * A[i * m + k] * A[j * m + k];
        C[i * n + j] = acc;
    }
}
