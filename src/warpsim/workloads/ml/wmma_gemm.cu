// Tensor-core GEMM, CUTLASS-style: C = alpha * A B + beta * C with A (M x K) and B (K x N) half
// precision, row-major, and C float, row-major. A CTA computes a 128 x 64 tile with 8 warps (4 x 2),
// each warp a 32 x 32 sub-tile as 2 x 2 WMMA 16x16x16 fragments. Each 32-deep K slice of A and B is
// staged in shared memory with 128-bit loads (rows padded by 8 halves against bank conflicts);
// the epilogue scales the accumulators and C with fragment-wise arithmetic.
// Requirements (checked by the driver): M % 128 == 0, N % 64 == 0, K % 32 == 0.
#include <mma.h>
#include <cuda_fp16.h>
using namespace nvcuda;

#define BM 128
#define BN 64
#define BK 32
#define APAD 8
#define BPAD 8

extern "C" __global__ void wmma_gemm(const half* __restrict__ A, const half* __restrict__ B,
                                     float* __restrict__ C, int M, int N, int K, float alpha, float beta) {
  __shared__ __align__(16) half As[BM][BK + APAD];
  __shared__ __align__(16) half Bs[BK][BN + BPAD];
  const int tid = threadIdx.x;
  const int warp = tid / 32;
  const int wm = warp / 2;          // 0..3: 32-row band
  const int wn = warp % 2;          // 0..1: 32-column band
  const int row0 = blockIdx.y * BM;
  const int col0 = blockIdx.x * BN;

  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[2][2];
#pragma unroll
  for (int i = 0; i < 2; i++)
#pragma unroll
    for (int j = 0; j < 2; j++) wmma::fill_fragment(acc[i][j], 0.0f);

  for (int k0 = 0; k0 < K; k0 += BK) {
    // A tile: 128 x 32 halves = 512 vectors of 8 halves, 2 per thread
#pragma unroll
    for (int v = 0; v < 2; v++) {
      int idx = tid + v * 256;
      int r = idx / (BK / 8), c = (idx % (BK / 8)) * 8;
      *reinterpret_cast<uint4*>(&As[r][c]) =
          *reinterpret_cast<const uint4*>(&A[(size_t)(row0 + r) * K + k0 + c]);
    }
    // B tile: 32 x 64 halves = 256 vectors, 1 per thread
    {
      int r = tid / (BN / 8), c = (tid % (BN / 8)) * 8;
      *reinterpret_cast<uint4*>(&Bs[r][c]) =
          *reinterpret_cast<const uint4*>(&B[(size_t)(k0 + r) * N + col0 + c]);
    }
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < BK; kk += 16) {
      wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa[2];
      wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::row_major> fb[2];
#pragma unroll
      for (int i = 0; i < 2; i++) wmma::load_matrix_sync(fa[i], &As[wm * 32 + i * 16][kk], BK + APAD);
#pragma unroll
      for (int j = 0; j < 2; j++) wmma::load_matrix_sync(fb[j], &Bs[kk][wn * 32 + j * 16], BN + BPAD);
#pragma unroll
      for (int i = 0; i < 2; i++)
#pragma unroll
        for (int j = 0; j < 2; j++) wmma::mma_sync(acc[i][j], fa[i], fb[j], acc[i][j]);
    }
    __syncthreads();
  }
  // epilogue: C = alpha * acc + beta * C
#pragma unroll
  for (int i = 0; i < 2; i++)
#pragma unroll
    for (int j = 0; j < 2; j++) {
      float* cp = C + (size_t)(row0 + wm * 32 + i * 16) * N + col0 + wn * 32 + j * 16;
      wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
      wmma::load_matrix_sync(fc, cp, N, wmma::mem_row_major);
#pragma unroll
      for (int e = 0; e < fc.num_elements; e++) fc.x[e] = alpha * acc[i][j].x[e] + beta * fc.x[e];
      wmma::store_matrix_sync(cp, fc, N, wmma::mem_row_major);
    }
}
