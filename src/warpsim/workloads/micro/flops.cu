// Peak-throughput microbenchmarks: per iteration each thread runs a chain of 4 dependent
// multiply-adds (fp32 FMA, fp64 FMA or int32 MAD) on its own value.
extern "C" __global__ void maxflops_fp32(const float *init, int iters, float m, float c, float *out)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    float x = init[t];
    for (int it = 0; it < iters; it++) {
        x = fmaf(x, m, c);
        x = fmaf(x, m, c);
        x = fmaf(x, m, c);
        x = fmaf(x, m, c);
    }
    out[t] = x;
}

extern "C" __global__ void maxflops_fp64(const double *init, int iters, double m, double c, double *out)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    double x = init[t];
    for (int it = 0; it < iters; it++) {
        x = fma(x, m, c);
        x = fma(x, m, c);
        x = fma(x, m, c);
        x = fma(x, m, c);
    }
    out[t] = x;
}

extern "C" __global__ void maxflops_int32(const int *init, int iters, int m, int c, int *out)
{
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    int x = init[t];
    for (int it = 0; it < iters; it++) {
        x = x * m + c;
        x = x * m + c;
        x = x * m + c;
        x = x * m + c;
    }
    out[t] = x;
}
