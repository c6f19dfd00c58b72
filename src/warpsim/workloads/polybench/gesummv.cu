// PolyBench/GPU gesummv as published: tmp = A x and y = B x accumulated in global memory on every
// j iteration (two read-modify-writes per iteration), then y = alpha*tmp + beta*y.
extern "C" __global__ void gesummv_kernel(int n, float alpha, float beta, float *a, float *b,
                                          float *x, float *y, float *tmp)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        for (int j = 0; j < n; j++) {
            tmp[i] += a[i * n + j] * x[j];
            y[i] += b[i * n + j] * x[j];
        }
        y[i] = alpha * tmp[i] + beta * y[i];
    }
}
