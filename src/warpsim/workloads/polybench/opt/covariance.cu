// Covariance of M variables (columns) over N observations (rows): column means, centre the
// data, then the upper triangle of the covariance matrix (one thread per first column).
extern "C" __global__ void covar_mean(int m, int n, float float_n, const float *data, float *mean)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j < m) {
        float acc = 0.0f;
        for (int i = 0; i < n; i++)
            acc += data[i * m + j];
        mean[j] = acc / float_n;
    }
}

extern "C" __global__ void covar_reduce(int m, int n, float *data, const float *mean)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i < n && j < m)
        data[i * m + j] -= mean[j];
}

extern "C" __global__ void covar_covar(int m, int n, const float *data, float *symmat)
{
    int j1 = blockIdx.x * blockDim.x + threadIdx.x;
    if (j1 < m) {
        for (int j2 = j1; j2 < m; j2++) {
            float acc = 0.0f;
            for (int i = 0; i < n; i++)
                acc += data[i * m + j1] * data[i * m + j2];
            symmat[j1 * m + j2] = acc;
            symmat[j2 * m + j1] = acc;
        }
    }
}
