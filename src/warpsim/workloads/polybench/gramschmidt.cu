// PolyBench/GPU gramschmidt as published: per column k, kernel 1 (one block, thread 0 works)
// computes R[k][k]; kernel 2 forms Q[:,k]; kernel 3 (a later column per thread) accumulates
// R[k][j] in global memory on every i iteration, then updates A[:,j].
extern "C" __global__ void gramschmidt_kernel1(int m, int n, float *a, float *r, float *q, int k)
{
    int tid = blockIdx.x * blockDim.x + threadIdx.x;
    if (tid == 0) {
        float nrm = 0.0f;
        for (int i = 0; i < m; i++)
            nrm += a[i * n + k] * a[i * n + k];
        r[k * n + k] = sqrtf(nrm);
    }
}

extern "C" __global__ void gramschmidt_kernel2(int m, int n, float *a, float *r, float *q, int k)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < m)
        q[i * n + k] = a[i * n + k] / r[k * n + k];
}

extern "C" __global__ void gramschmidt_kernel3(int m, int n, float *a, float *r, float *q, int k)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j > k && j < n) {
        r[k * n + j] = 0.0f;
        for (int i = 0; i < m; i++)
            r[k * n + j] += q[i * n + k] * a[i * n + j];
        for (int i = 0; i < m; i++)
            a[i * n + j] -= q[i * n + k] * r[k * n + j];
    }
}
