// Gram-Schmidt QR of an M x N matrix A (column-wise). For each column k the host launches:
// 1) one thread computes R[k][k] = ||A[:,k]||; 2) Q[:,k] = A[:,k] / R[k][k], one thread per row;
// 3) one thread per later column j projects it: R[k][j] = Q[:,k].A[:,j]; A[:,j] -= Q[:,k] R[k][j].
extern "C" __global__ void gramschmidt_kernel1(int m, int n, const float *A, float *R, int k)
{
    int tid = blockIdx.x * blockDim.x + threadIdx.x;
    if (tid == 0) {
        float nrm = 0.0f;
        for (int i = 0; i < m; i++)
            nrm += A[i * n + k] * A[i * n + k];
        R[k * n + k] = sqrtf(nrm);
    }
}

extern "C" __global__ void gramschmidt_kernel2(int m, int n, const float *A, const float *R, float *Q, int k)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < m)
        Q[i * n + k] = A[i * n + k] / R[k * n + k];
}

extern "C" __global__ void gramschmidt_kernel3(int m, int n, float *A, float *R, const float *Q, int k)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j > k && j < n) {
        float acc = 0.0f;
        for (int i = 0; i < m; i++)
            acc += Q[i * n + k] * A[i * n + j];
        R[k * n + j] = acc;
        for (int i = 0; i < m; i++)
            A[i * n + j] -= Q[i * n + k] * acc;
    }
}
