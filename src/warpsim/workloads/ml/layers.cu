// Neural-network layer kernels shared by the ML workloads (one library, like a small cuDNN):
// tiled SGEMM with transposes, strides, batching and a bias/ReLU epilogue; direct and im2col
// convolution; pooling; row softmax and layer norm; element-wise and training-step kernels; and the
// same GEMM on tensor cores (mixed precision, as frameworks run it under automatic mixed precision).
#include <mma.h>
#include <cuda_fp16.h>
#define TS 16

// C[b] = alpha * op(A[b]) op(B[b]) + beta * C[b] (+ bias[col]) (ReLU if act == 1).
// op(A) is M x K, op(B) is K x N; 16x16 tiles of both staged in shared memory.
template <bool TA, bool TB>
__device__ __forceinline__ void gemm_body(int M, int N, int K, float alpha, const float *A, int lda,
                                          long long sa, const float *B, int ldb, long long sb, float beta,
                                          float *C, int ldc, long long sc, const float *bias, int act)
{
    __shared__ float As[TS][TS + 1];
    __shared__ float Bs[TS][TS + 1];
    A += blockIdx.z * sa;
    B += blockIdx.z * sb;
    C += blockIdx.z * sc;
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TS + ty, col = blockIdx.x * TS + tx;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += TS) {
        int ka = k0 + tx, kb = k0 + ty;
        As[ty][tx] = (row < M && ka < K) ? (TA ? A[(long long)ka * lda + row] : A[(long long)row * lda + ka]) : 0.0f;
        Bs[ty][tx] = (kb < K && col < N) ? (TB ? B[(long long)col * ldb + kb] : B[(long long)kb * ldb + col]) : 0.0f;
        __syncthreads();
#pragma unroll
        for (int k = 0; k < TS; k++)
            acc += As[ty][k] * Bs[k][tx];
        __syncthreads();
    }
    if (row < M && col < N) {
        float v = alpha * acc;
        if (beta != 0.0f)
            v += beta * C[(long long)row * ldc + col];
        if (bias)
            v += bias[col];
        if (act == 1)
            v = fmaxf(v, 0.0f);
        C[(long long)row * ldc + col] = v;
    }
}

#define GEMM_ARGS int M, int N, int K, float alpha, const float *A, int lda, long long sa, const float *B, \
                  int ldb, long long sb, float beta, float *C, int ldc, long long sc, const float *bias, int act
#define GEMM_PASS M, N, K, alpha, A, lda, sa, B, ldb, sb, beta, C, ldc, sc, bias, act
extern "C" __global__ void gemm_nn(GEMM_ARGS) { gemm_body<false, false>(GEMM_PASS); }
extern "C" __global__ void gemm_nt(GEMM_ARGS) { gemm_body<false, true>(GEMM_PASS); }
extern "C" __global__ void gemm_tn(GEMM_ARGS) { gemm_body<true, false>(GEMM_PASS); }

// Direct convolution, NCHW input, KCRS filters, one thread per output element (n, k, p, q).
extern "C" __global__ void conv2d_direct(int N, int C, int H, int W, int K, int R, int S, int pad, int stride,
                                        int P, int Q, const float *in, const float *filt, const float *bias,
                                        int act, float *out)
{
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= N * K * P * Q)
        return;
    int q = idx % Q, p = (idx / Q) % P, k = (idx / (P * Q)) % K, n = idx / (K * P * Q);
    float acc = bias ? bias[k] : 0.0f;
    for (int c = 0; c < C; c++)
        for (int r = 0; r < R; r++) {
            int h = p * stride - pad + r;
            if (h < 0 || h >= H)
                continue;
            for (int s = 0; s < S; s++) {
                int w = q * stride - pad + s;
                if (w >= 0 && w < W)
                    acc += in[((n * C + c) * H + h) * W + w] * filt[((k * C + c) * R + r) * S + s];
            }
        }
    if (act == 1)
        acc = fmaxf(acc, 0.0f);
    out[idx] = acc;
}

// Unfold one CHW image into a (C*R*S) x (P*Q) matrix so the convolution becomes a GEMM.
extern "C" __global__ void im2col(int C, int H, int W, int R, int S, int pad, int stride, int P, int Q,
                                 const float *in, float *col)
{
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= C * R * S * P * Q)
        return;
    int pq = idx % (P * Q), crs = idx / (P * Q);
    int q = pq % Q, p = pq / Q;
    int s = crs % S, r = (crs / S) % R, c = crs / (R * S);
    int h = p * stride - pad + r, w = q * stride - pad + s;
    col[idx] = (h >= 0 && h < H && w >= 0 && w < W) ? in[(c * H + h) * W + w] : 0.0f;
}

// 2x2 max pooling with stride 2 over NC planes of H x W.
extern "C" __global__ void maxpool2x2(int NC, int H, int W, const float *in, float *out)
{
    int Ho = H / 2, Wo = W / 2;
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= NC * Ho * Wo)
        return;
    int x = idx % Wo, y = (idx / Wo) % Ho, pl = idx / (Ho * Wo);
    const float *b = in + (pl * H + 2 * y) * W + 2 * x;
    out[idx] = fmaxf(fmaxf(b[0], b[1]), fmaxf(b[W], b[W + 1]));
}

// Row-wise softmax of a rows x cols matrix, one block (power-of-two threads) per row.
extern "C" __global__ void softmax_rows(int rows, int cols, const float *x, float *y)
{
    __shared__ float red[256];
    int tx = threadIdx.x;
    const float *xr = x + (long long)blockIdx.x * cols;
    float *yr = y + (long long)blockIdx.x * cols;
    float m = -3.402823466e+38f;
    for (int c = tx; c < cols; c += blockDim.x)
        m = fmaxf(m, xr[c]);
    red[tx] = m;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tx < s)
            red[tx] = fmaxf(red[tx], red[tx + s]);
        __syncthreads();
    }
    m = red[0];
    __syncthreads();
    float sum = 0.0f;
    for (int c = tx; c < cols; c += blockDim.x)
        sum += __expf(xr[c] - m);
    red[tx] = sum;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tx < s)
            red[tx] += red[tx + s];
        __syncthreads();
    }
    float inv = 1.0f / red[0];
    for (int c = tx; c < cols; c += blockDim.x)
        yr[c] = __expf(xr[c] - m) * inv;
}

// Layer normalisation of each row: (x - mean) / sqrt(var + eps) * gamma + beta.
extern "C" __global__ void layernorm_rows(int rows, int cols, const float *x, const float *gamma,
                                         const float *beta, float eps, float *y)
{
    __shared__ float red[256];
    int tx = threadIdx.x;
    const float *xr = x + (long long)blockIdx.x * cols;
    float *yr = y + (long long)blockIdx.x * cols;
    float s = 0.0f;
    for (int c = tx; c < cols; c += blockDim.x)
        s += xr[c];
    red[tx] = s;
    __syncthreads();
    for (int st = blockDim.x / 2; st > 0; st >>= 1) {
        if (tx < st)
            red[tx] += red[tx + st];
        __syncthreads();
    }
    float mean = red[0] / cols;
    __syncthreads();
    float v = 0.0f;
    for (int c = tx; c < cols; c += blockDim.x) {
        float d = xr[c] - mean;
        v += d * d;
    }
    red[tx] = v;
    __syncthreads();
    for (int st = blockDim.x / 2; st > 0; st >>= 1) {
        if (tx < st)
            red[tx] += red[tx + st];
        __syncthreads();
    }
    float rstd = rsqrtf(red[0] / cols + eps);
    for (int c = tx; c < cols; c += blockDim.x)
        yr[c] = (xr[c] - mean) * rstd * gamma[c] + beta[c];
}

extern "C" __global__ void relu_fwd(int n, const float *x, float *y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        y[i] = fmaxf(x[i], 0.0f);
}

// dx = dy where the forward output y was positive.
extern "C" __global__ void relu_bwd(int n, const float *y, const float *dy, float *dx)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        dx[i] = y[i] > 0.0f ? dy[i] : 0.0f;
}

extern "C" __global__ void add_vec(int n, const float *a, const float *b, float *c)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = a[i] + b[i];
}

// Gradient of the mean cross-entropy w.r.t. the logits, given softmax probabilities.
extern "C" __global__ void xent_grad(int rows, int cols, const float *probs, const int *labels, float *grad)
{
    int idx = blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < rows * cols) {
        int r = idx / cols, c = idx % cols;
        grad[idx] = (probs[idx] - (labels[r] == c ? 1.0f : 0.0f)) / (float)rows;
    }
}

// Column sums (bias gradients), one thread per column.
extern "C" __global__ void col_sum(int rows, int cols, const float *x, float *out)
{
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c < cols) {
        float acc = 0.0f;
        for (int r = 0; r < rows; r++)
            acc += x[r * cols + c];
        out[c] = acc;
    }
}

extern "C" __global__ void sgd_update(int n, float *w, const float *g, float lr)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        w[i] -= lr * g[i];
}

// Tensor-core GEMM with the same arguments and epilogue as gemm_*: inputs are float in memory and
// rounded to half as they are staged in shared memory (the cast automatic mixed precision inserts),
// products accumulate in float on the tensor cores. A CTA of 4 warps computes a 64 x 64 tile of C,
// each warp 32 x 32 as 2 x 2 WMMA 16x16x16 fragments, over 32-deep K slices; the accumulators go
// through shared memory so the epilogue (alpha, beta, bias, ReLU) and the edges are per element.
#define TC_BM 64
#define TC_BN 64
#define TC_BK 32
template <bool TA, bool TB>
__device__ __forceinline__ void gemm_tc_body(int M, int N, int K, float alpha, const float *A, int lda,
                                             long long sa, const float *B, int ldb, long long sb, float beta,
                                             float *C, int ldc, long long sc, const float *bias, int act)
{
    using namespace nvcuda;
    __shared__ __align__(32) half As[TC_BM][TC_BK + 8];
    __shared__ __align__(32) half Bs[TC_BK][TC_BN + 8];
    __shared__ __align__(32) float Cs[TC_BM][TC_BN + 4];
    A += blockIdx.z * sa;
    B += blockIdx.z * sb;
    C += blockIdx.z * sc;
    const int tid = threadIdx.x, warp = tid / 32, wm = warp / 2, wn = warp % 2;
    const int row0 = blockIdx.y * TC_BM, col0 = blockIdx.x * TC_BN;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[2][2];
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++)
            wmma::fill_fragment(acc[i][j], 0.0f);
    for (int k0 = 0; k0 < K; k0 += TC_BK) {
        // consecutive threads read consecutive addresses of whichever layout A and B have
        for (int idx = tid; idx < TC_BM * TC_BK; idx += 128) {
            int r = TA ? idx % TC_BM : idx / TC_BK, c = TA ? idx / TC_BM : idx % TC_BK;
            int gr = row0 + r, gk = k0 + c;
            float v = (gr < M && gk < K) ? (TA ? A[(long long)gk * lda + gr] : A[(long long)gr * lda + gk]) : 0.0f;
            As[r][c] = __float2half(v);
        }
        for (int idx = tid; idx < TC_BK * TC_BN; idx += 128) {
            int r = TB ? idx % TC_BK : idx / TC_BN, c = TB ? idx / TC_BK : idx % TC_BN;
            int gk = k0 + r, gc = col0 + c;
            float v = (gk < K && gc < N) ? (TB ? B[(long long)gc * ldb + gk] : B[(long long)gk * ldb + gc]) : 0.0f;
            Bs[r][c] = __float2half(v);
        }
        __syncthreads();
        for (int kk = 0; kk < TC_BK; kk += 16) {
            wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa[2];
            wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::row_major> fb[2];
            for (int i = 0; i < 2; i++)
                wmma::load_matrix_sync(fa[i], &As[wm * 32 + i * 16][kk], TC_BK + 8);
            for (int j = 0; j < 2; j++)
                wmma::load_matrix_sync(fb[j], &Bs[kk][wn * 32 + j * 16], TC_BN + 8);
            for (int i = 0; i < 2; i++)
                for (int j = 0; j < 2; j++)
                    wmma::mma_sync(acc[i][j], fa[i], fb[j], acc[i][j]);
        }
        __syncthreads();
    }
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 2; j++)
            wmma::store_matrix_sync(&Cs[wm * 32 + i * 16][wn * 32 + j * 16], acc[i][j], TC_BN + 4,
                                    wmma::mem_row_major);
    __syncthreads();
    for (int idx = tid; idx < TC_BM * TC_BN; idx += 128) {
        int r = idx / TC_BN, c = idx % TC_BN, row = row0 + r, col = col0 + c;
        if (row < M && col < N) {
            float v = alpha * Cs[r][c];
            if (beta != 0.0f)
                v += beta * C[(long long)row * ldc + col];
            if (bias)
                v += bias[col];
            if (act == 1)
                v = fmaxf(v, 0.0f);
            C[(long long)row * ldc + col] = v;
        }
    }
}

extern "C" __global__ void gemm_tc_nn(GEMM_ARGS) { gemm_tc_body<false, false>(GEMM_PASS); }
extern "C" __global__ void gemm_tc_nt(GEMM_ARGS) { gemm_tc_body<false, true>(GEMM_PASS); }
extern "C" __global__ void gemm_tc_tn(GEMM_ARGS) { gemm_tc_body<true, false>(GEMM_PASS); }
