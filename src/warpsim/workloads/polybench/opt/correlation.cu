// Correlation matrix of M variables (columns) over N observations (rows): column means, column
// standard deviations, centre and scale the data, then the upper triangle of the correlation.
extern "C" __global__ void corr_mean(int m, int n, float float_n, const float *data, float *mean)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j < m) {
        float acc = 0.0f;
        for (int i = 0; i < n; i++)
            acc += data[i * m + j];
        mean[j] = acc / float_n;
    }
}

extern "C" __global__ void corr_std(int m, int n, float float_n, float eps, const float *data,
                                   const float *mean, float *stddev)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j < m) {
        float acc = 0.0f;
        for (int i = 0; i < n; i++) {
            float d = data[i * m + j] - mean[j];
            acc += d * d;
        }
        acc = sqrtf(acc / float_n);
        stddev[j] = acc <= eps ? 1.0f : acc;
    }
}

extern "C" __global__ void corr_reduce(int m, int n, float float_n, float *data, const float *mean,
                                      const float *stddev)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i < n && j < m)
        data[i * m + j] = (data[i * m + j] - mean[j]) / (sqrtf(float_n) * stddev[j]);
}

extern "C" __global__ void corr_corr(int m, int n, const float *data, float *symmat)
{
    int j1 = blockIdx.x * blockDim.x + threadIdx.x;
    if (j1 < m) {
        symmat[j1 * m + j1] = 1.0f;
        for (int j2 = j1 + 1; j2 < m; j2++) {
            float acc = 0.0f;
            for (int i = 0; i < n; i++)
                acc += data[i * m + j1] * data[i * m + j2];
            symmat[j1 * m + j2] = acc;
            symmat[j2 * m + j1] = acc;
        }
    }
}
