// SRAD (speckle-reducing anisotropic diffusion) on a rows x cols image. Per iteration:
// a block reduction of sum(J) and sum(J^2) (the host finishes it and forms q0^2), then
// kernel 1 computes directional derivatives and the diffusion coefficient, kernel 2 updates J.
#define RB 256
extern "C" __global__ void srad_reduce(int n, const float *J, float *partial)
{
    __shared__ float s1[RB];
    __shared__ float s2[RB];
    int tx = threadIdx.x;
    int i = blockIdx.x * RB + tx;
    float v = i < n ? J[i] : 0.0f;
    s1[tx] = v;
    s2[tx] = v * v;
    __syncthreads();
    for (int s = RB / 2; s > 0; s >>= 1) {
        if (tx < s) {
            s1[tx] += s1[tx + s];
            s2[tx] += s2[tx + s];
        }
        __syncthreads();
    }
    if (tx == 0) {
        partial[2 * blockIdx.x] = s1[0];
        partial[2 * blockIdx.x + 1] = s2[0];
    }
}

extern "C" __global__ void srad_kernel1(int rows, int cols, const float *J, float *dN, float *dS, float *dW,
                                       float *dE, float *C, float q0sqr)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r >= rows || c >= cols)
        return;
    int k = r * cols + c;
    float jc = J[k];
    float n = J[(r > 0 ? r - 1 : 0) * cols + c] - jc;
    float s = J[(r < rows - 1 ? r + 1 : rows - 1) * cols + c] - jc;
    float w = J[r * cols + (c > 0 ? c - 1 : 0)] - jc;
    float e = J[r * cols + (c < cols - 1 ? c + 1 : cols - 1)] - jc;
    float g2 = (n * n + s * s + w * w + e * e) / (jc * jc);
    float l = (n + s + w + e) / jc;
    float num = 0.5f * g2 - 0.0625f * (l * l);
    float den = 1.0f + 0.25f * l;
    float qsqr = num / (den * den);
    den = (qsqr - q0sqr) / (q0sqr * (1.0f + q0sqr));
    float coef = 1.0f / (1.0f + den);
    coef = coef < 0.0f ? 0.0f : (coef > 1.0f ? 1.0f : coef);
    dN[k] = n;
    dS[k] = s;
    dW[k] = w;
    dE[k] = e;
    C[k] = coef;
}

extern "C" __global__ void srad_kernel2(int rows, int cols, float *J, const float *dN, const float *dS,
                                       const float *dW, const float *dE, const float *C, float lambda)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r >= rows || c >= cols)
        return;
    int k = r * cols + c;
    float cn = C[k], cw = C[k];
    float cs = C[(r < rows - 1 ? r + 1 : rows - 1) * cols + c];
    float ce = C[r * cols + (c < cols - 1 ? c + 1 : cols - 1)];
    float d = cn * dN[k] + cs * dS[k] + cw * dW[k] + ce * dE[k];
    J[k] = J[k] + 0.25f * lambda * d;
}
