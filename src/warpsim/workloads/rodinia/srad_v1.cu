// Rodinia 3.1 srad_v1 (CUDA): speckle-reducing anisotropic diffusion on an Nr x Nc image stored by
// columns, 512-thread 1D blocks. extract (exp), then per iteration: prepare (copy I and I^2),
// reduce (repeated until one block remains: in-block tree sums of strided partial sums), srad
// (derivatives and diffusion coefficient) and srad2 (divergence and update); compress (log) last.
// Double-precision constants are kept where the original has them.
#define NT 512

extern "C" __global__ void extract(long d_Ne, float *d_I)
{
    int ei = blockIdx.x * NT + threadIdx.x;
    if (ei < d_Ne)
        d_I[ei] = expf(d_I[ei] / 255);
}

extern "C" __global__ void prepare(long d_Ne, float *d_I, float *d_sums, float *d_sums2)
{
    int ei = blockIdx.x * NT + threadIdx.x;
    if (ei < d_Ne) {
        d_sums[ei] = d_I[ei];
        d_sums2[ei] = d_I[ei] * d_I[ei];
    }
}

extern "C" __global__ void reduce(long d_Ne, int d_no, int d_mul, float *d_sums, float *d_sums2)
{
    int bx = blockIdx.x, tx = threadIdx.x;
    int ei = bx * NT + tx;
    int nf = NT - (gridDim.x * NT - d_no);  // elements of the last block
    int df = 0;
    __shared__ float psum[NT];
    __shared__ float psum2[NT];
    if (ei < d_no) {
        psum[tx] = d_sums[ei * d_mul];
        psum2[tx] = d_sums2[ei * d_mul];
    }
    __syncthreads();
    if (nf == NT || bx != gridDim.x - 1) {
        for (int i = 2; i <= NT; i = 2 * i) {
            if ((tx + 1) % i == 0) {
                psum[tx] = psum[tx] + psum[tx - i / 2];
                psum2[tx] = psum2[tx] + psum2[tx - i / 2];
            }
            __syncthreads();
        }
        if (tx == NT - 1) {
            d_sums[bx * d_mul * NT] = psum[tx];
            d_sums2[bx * d_mul * NT] = psum2[tx];
        }
    } else {
        for (int i = 2; i <= NT; i = 2 * i)
            if (nf >= i)
                df = i;
        for (int i = 2; i <= df; i = 2 * i) {
            if ((tx + 1) % i == 0 && tx < df) {
                psum[tx] = psum[tx] + psum[tx - i / 2];
                psum2[tx] = psum2[tx] + psum2[tx - i / 2];
            }
            __syncthreads();
        }
        if (tx == df - 1) {
            for (int i = bx * NT + df; i < bx * NT + nf; i++) {
                psum[tx] = psum[tx] + d_sums[i];
                psum2[tx] = psum2[tx] + d_sums2[i];
            }
            d_sums[bx * d_mul * NT] = psum[tx];
            d_sums2[bx * d_mul * NT] = psum2[tx];
        }
    }
}

extern "C" __global__ void srad(float d_lambda, int d_Nr, int d_Nc, long d_Ne, int *d_iN, int *d_iS, int *d_jE,
                                int *d_jW, float *d_dN, float *d_dS, float *d_dE, float *d_dW, float d_q0sqr,
                                float *d_c, float *d_I)
{
    int ei = blockIdx.x * NT + threadIdx.x;
    int row = (ei + 1) % d_Nr - 1;
    int col = (ei + 1) / d_Nr + 1 - 1;
    if ((ei + 1) % d_Nr == 0) {
        row = d_Nr - 1;
        col = col - 1;
    }
    if (ei < d_Ne) {
        float Jc = d_I[ei];
        float dN = d_I[d_iN[row] + d_Nr * col] - Jc;
        float dS = d_I[d_iS[row] + d_Nr * col] - Jc;
        float dW = d_I[row + d_Nr * d_jW[col]] - Jc;
        float dE = d_I[row + d_Nr * d_jE[col]] - Jc;
        float G2 = (dN * dN + dS * dS + dW * dW + dE * dE) / (Jc * Jc);
        float L = (dN + dS + dW + dE) / Jc;
        float num = (0.5 * G2) - ((1.0 / 16.0) * (L * L));
        float den = 1 + (0.25 * L);
        float qsqr = num / (den * den);
        den = (qsqr - d_q0sqr) / (d_q0sqr * (1 + d_q0sqr));
        float c = 1.0 / (1.0 + den);
        if (c < 0)
            c = 0;
        else if (c > 1)
            c = 1;
        d_dN[ei] = dN;
        d_dS[ei] = dS;
        d_dW[ei] = dW;
        d_dE[ei] = dE;
        d_c[ei] = c;
    }
}

extern "C" __global__ void srad2(float d_lambda, int d_Nr, int d_Nc, long d_Ne, int *d_iN, int *d_iS, int *d_jE,
                                 int *d_jW, float *d_dN, float *d_dS, float *d_dE, float *d_dW, float *d_c,
                                 float *d_I)
{
    int ei = blockIdx.x * NT + threadIdx.x;
    int row = (ei + 1) % d_Nr - 1;
    int col = (ei + 1) / d_Nr + 1 - 1;
    if ((ei + 1) % d_Nr == 0) {
        row = d_Nr - 1;
        col = col - 1;
    }
    if (ei < d_Ne) {
        float cN = d_c[ei];
        float cS = d_c[d_iS[row] + d_Nr * col];
        float cW = d_c[ei];
        float cE = d_c[row + d_Nr * d_jE[col]];
        float D = cN * d_dN[ei] + cS * d_dS[ei] + cW * d_dW[ei] + cE * d_dE[ei];
        d_I[ei] = d_I[ei] + 0.25 * d_lambda * D;
    }
}

extern "C" __global__ void compress(long d_Ne, float *d_I)
{
    int ei = blockIdx.x * NT + threadIdx.x;
    if (ei < d_Ne)
        d_I[ei] = logf(d_I[ei]) * 255;
}
