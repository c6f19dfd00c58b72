// LU decomposition in place (Doolittle, no pivoting). For each k the host launches:
// 1) scale row k right of the diagonal; 2) update the trailing sub-matrix, one thread per element.
extern "C" __global__ void lu_kernel1(int n, float *A, int k)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j > k && j < n)
        A[k * n + j] = A[k * n + j] / A[k * n + k];
}

extern "C" __global__ void lu_kernel2(int n, float *A, int k)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i > k && j > k && i < n && j < n)
        A[i * n + j] = A[i * n + j] - A[i * n + k] * A[k * n + j];
}
