// PolyBench/GPU syrk as published: C = alpha*A*A^T + beta*C, one thread per element of C, updated
// in global memory on every k iteration.
extern "C" __global__ void syrk_kernel(int n, int m, float alpha, float beta, float *a, float *c)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i < n && j < n) {
        c[i * n + j] *= beta;
        for (int k = 0; k < m; k++)
            c[i * n + j] += alpha * a[i * m + k] * a[j * m + k];
    }
}
