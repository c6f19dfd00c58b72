// PolyBench/GPU correlation as published: 1-based (M+1) x (N+1) arrays; mean[j], std[j] and each
// element of symmat are updated in global memory on every i iteration.
extern "C" __global__ void corr_mean(int m, int n, float float_n, float *mean, float *data)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x + 1;
    if (j >= 1 && j < m + 1) {
        mean[j] = 0.0f;
        for (int i = 1; i < n + 1; i++)
            mean[j] += data[i * (m + 1) + j];
        mean[j] /= float_n;
    }
}

extern "C" __global__ void corr_std(int m, int n, float float_n, float eps, float *mean, float *std,
                                    float *data)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x + 1;
    if (j >= 1 && j < m + 1) {
        std[j] = 0.0f;
        for (int i = 1; i < n + 1; i++)
            std[j] += (data[i * (m + 1) + j] - mean[j]) * (data[i * (m + 1) + j] - mean[j]);
        std[j] /= float_n;
        std[j] = sqrtf(std[j]);
        if (std[j] <= eps)
            std[j] = 1.0f;
    }
}

extern "C" __global__ void corr_reduce(int m, int n, float float_n, float *mean, float *std, float *data)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x + 1;
    int i = blockIdx.y * blockDim.y + threadIdx.y + 1;
    if (i >= 1 && i < n + 1 && j >= 1 && j < m + 1) {
        data[i * (m + 1) + j] -= mean[j];
        data[i * (m + 1) + j] /= sqrtf(float_n) * std[j];
    }
}

extern "C" __global__ void corr_corr(int m, int n, float *symmat, float *data)
{
    int j1 = blockIdx.x * blockDim.x + threadIdx.x + 1;
    if (j1 >= 1 && j1 < m) {
        symmat[j1 * (m + 1) + j1] = 1.0f;
        for (int j2 = j1 + 1; j2 < m + 1; j2++) {
            symmat[j1 * (m + 1) + j2] = 0.0f;
            for (int i = 1; i < n + 1; i++)
                symmat[j1 * (m + 1) + j2] += data[i * (m + 1) + j1] * data[i * (m + 1) + j2];
            symmat[j2 * (m + 1) + j1] = symmat[j1 * (m + 1) + j2];
        }
    }
}
