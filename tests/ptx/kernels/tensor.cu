// Tensor-core kernels for warpsim's tests: each computes one tile D = A * B + C (one warp).
#include <mma.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
using namespace nvcuda;

// A row-major, B col-major (ld = K), C/D row-major f32
extern "C" __global__ void wmma_f16_rc(const half* a, const half* b, const float* c, float* d) {
  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
  wmma::load_matrix_sync(fa, a, 16); wmma::load_matrix_sync(fb, b, 16);
  wmma::load_matrix_sync(fc, c, 16, wmma::mem_row_major);
  wmma::mma_sync(fc, fa, fb, fc);
  wmma::store_matrix_sync(d, fc, 16, wmma::mem_row_major);
}
// A col-major (ld = 32), B row-major (ld = 8), f16 accumulator stored col-major, m32n8k16
extern "C" __global__ void wmma_f16_cr_h(const half* a, const half* b, half* d) {
  wmma::fragment<wmma::matrix_a, 32, 8, 16, half, wmma::col_major> fa;
  wmma::fragment<wmma::matrix_b, 32, 8, 16, half, wmma::row_major> fb;
  wmma::fragment<wmma::accumulator, 32, 8, 16, half> fc;
  wmma::fill_fragment(fc, __float2half(1.0f));
  wmma::load_matrix_sync(fa, a, 32); wmma::load_matrix_sync(fb, b, 8);
  wmma::mma_sync(fc, fa, fb, fc);
  wmma::store_matrix_sync(d, fc, 32, wmma::mem_col_major);
}
extern "C" __global__ void wmma_bf16(const __nv_bfloat16* a, const __nv_bfloat16* b, float* d) {
  wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::row_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> fc;
  wmma::fill_fragment(fc, 0.0f);
  wmma::load_matrix_sync(fa, a, 16); wmma::load_matrix_sync(fb, b, 16);
  wmma::mma_sync(fc, fa, fb, fc);
  wmma::store_matrix_sync(d, fc, 16, wmma::mem_row_major);
}
extern "C" __global__ void wmma_tf32(const float* a, const float* b, float* d) {
  wmma::fragment<wmma::matrix_a, 16, 16, 8, wmma::precision::tf32, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 8, wmma::precision::tf32, wmma::row_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 8, float> fc;
  wmma::fill_fragment(fc, 0.0f);
  wmma::load_matrix_sync(fa, a, 8); wmma::load_matrix_sync(fb, b, 16);
  for (int i = 0; i < fa.num_elements; i++) fa.x[i] = wmma::__float_to_tf32(fa.x[i]);
  for (int i = 0; i < fb.num_elements; i++) fb.x[i] = wmma::__float_to_tf32(fb.x[i]);
  wmma::mma_sync(fc, fa, fb, fc);
  wmma::store_matrix_sync(d, fc, 16, wmma::mem_row_major);
}
extern "C" __global__ void wmma_s8(const signed char* a, const signed char* b, int* d) {
  wmma::fragment<wmma::matrix_a, 16, 16, 16, signed char, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, signed char, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, int> fc;
  wmma::fill_fragment(fc, 0);
  wmma::load_matrix_sync(fa, a, 16); wmma::load_matrix_sync(fb, b, 16);
  wmma::mma_sync(fc, fa, fb, fc);
  wmma::store_matrix_sync(d, fc, 16, wmma::mem_row_major);
}
extern "C" __global__ void wmma_u8(const unsigned char* a, const unsigned char* b, int* d) {
  wmma::fragment<wmma::matrix_a, 8, 32, 16, unsigned char, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 8, 32, 16, unsigned char, wmma::row_major> fb;
  wmma::fragment<wmma::accumulator, 8, 32, 16, int> fc;
  wmma::fill_fragment(fc, 0);
  wmma::load_matrix_sync(fa, a, 16); wmma::load_matrix_sync(fb, b, 32);
  wmma::mma_sync(fc, fa, fb, fc);
  wmma::store_matrix_sync(d, fc, 32, wmma::mem_row_major);
}

// mma.sync m16n8k16 f16 -> f32: A (16x16 row-major) via ldmatrix.x4 from shared, B (16x8, stored
// as 8 rows of k, i.e. B^T row-major) via ldmatrix.x2, C/D fragments per the PTX ISA layout.
extern "C" __global__ void mma_f16_ldmatrix(const half* a, const half* bt, float* d) {
  __shared__ __align__(16) half sa[16 * 16];
  __shared__ __align__(16) half sb[8 * 16];
  int l = threadIdx.x;
  for (int i = l; i < 256; i += 32) sa[i] = a[i];
  for (int i = l; i < 128; i += 32) sb[i] = bt[i];
  __syncwarp();
  unsigned ra[4], rb[2];
  unsigned pa = (unsigned)__cvta_generic_to_shared(&sa[(l % 16) * 16 + (l / 16) * 8]);
  unsigned pb = (unsigned)__cvta_generic_to_shared(&sb[(l % 8) * 16 + ((l / 8) % 2) * 8]);
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
               : "=r"(ra[0]), "=r"(ra[1]), "=r"(ra[2]), "=r"(ra[3]) : "r"(pa));
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.shared.b16 {%0,%1}, [%2];" : "=r"(rb[0]), "=r"(rb[1]) : "r"(pb));
  float c[4] = {0.f, 0.f, 0.f, 0.f};
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
               "{%0,%1,%2,%3};"
               : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
               : "r"(ra[0]), "r"(ra[1]), "r"(ra[2]), "r"(ra[3]), "r"(rb[0]), "r"(rb[1]));
  int g = l >> 2, t = l % 4;
  d[g * 8 + t * 2] = c[0]; d[g * 8 + t * 2 + 1] = c[1];
  d[(g + 8) * 8 + t * 2] = c[2]; d[(g + 8) * 8 + t * 2 + 1] = c[3];
}
// ldmatrix .trans: B given row-major (16 x 8, k rows) and transposed on load
extern "C" __global__ void mma_f16_trans(const half* a, const half* b, float* d) {
  __shared__ __align__(16) half sa[16 * 16];
  __shared__ __align__(16) half sb[16 * 8];
  int l = threadIdx.x;
  for (int i = l; i < 256; i += 32) sa[i] = a[i];
  for (int i = l; i < 128; i += 32) sb[i] = b[i];
  __syncwarp();
  unsigned ra[4], rb[2];
  unsigned pa = (unsigned)__cvta_generic_to_shared(&sa[(l % 16) * 16 + (l / 16) * 8]);
  unsigned pb = (unsigned)__cvta_generic_to_shared(&sb[(l % 16) * 8]);
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
               : "=r"(ra[0]), "=r"(ra[1]), "=r"(ra[2]), "=r"(ra[3]) : "r"(pa));
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0,%1}, [%2];" : "=r"(rb[0]), "=r"(rb[1]) : "r"(pb));
  float c[4] = {0.f, 0.f, 0.f, 0.f};
  asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
               "{%0,%1,%2,%3};"
               : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
               : "r"(ra[0]), "r"(ra[1]), "r"(ra[2]), "r"(ra[3]), "r"(rb[0]), "r"(rb[1]));
  int g = l >> 2, t = l % 4;
  d[g * 8 + t * 2] = c[0]; d[g * 8 + t * 2 + 1] = c[1];
  d[(g + 8) * 8 + t * 2] = c[2]; d[(g + 8) * 8 + t * 2 + 1] = c[3];
}
// mma.sync m16n8k8 tf32 with fragments indexed by hand from the PTX ISA layout
extern "C" __global__ void mma_tf32(const float* a, const float* b, float* d) {
  int l = threadIdx.x, g = l >> 2, t = l % 4;
  unsigned ra[4], rb[2];
  ra[0] = __float_as_uint(a[g * 8 + t]); ra[1] = __float_as_uint(a[(g + 8) * 8 + t]);
  ra[2] = __float_as_uint(a[g * 8 + t + 4]); ra[3] = __float_as_uint(a[(g + 8) * 8 + t + 4]);
  rb[0] = __float_as_uint(b[t * 8 + g]); rb[1] = __float_as_uint(b[(t + 4) * 8 + g]);
  float c[4] = {1.f, 1.f, 1.f, 1.f};
  asm volatile("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
               "{%0,%1,%2,%3};"
               : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
               : "r"(ra[0]), "r"(ra[1]), "r"(ra[2]), "r"(ra[3]), "r"(rb[0]), "r"(rb[1]));
  d[g * 8 + t * 2] = c[0]; d[g * 8 + t * 2 + 1] = c[1];
  d[(g + 8) * 8 + t * 2] = c[2]; d[(g + 8) * 8 + t * 2 + 1] = c[3];
}
// mma.sync m16n8k32 s8 -> s32, A row-major 16x32, B given as B^T row-major (8 x 32)
extern "C" __global__ void mma_s8(const int* a, const int* bt, int* d) {
  int l = threadIdx.x, g = l >> 2, t = l % 4;
  int ra[4], rb[2];
  ra[0] = a[g * 8 + t]; ra[1] = a[(g + 8) * 8 + t]; ra[2] = a[g * 8 + t + 4]; ra[3] = a[(g + 8) * 8 + t + 4];
  rb[0] = bt[g * 8 + t]; rb[1] = bt[g * 8 + t + 4];
  int c[4] = {0, 0, 0, 0};
  asm volatile("mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
               "{%0,%1,%2,%3};"
               : "+r"(c[0]), "+r"(c[1]), "+r"(c[2]), "+r"(c[3])
               : "r"(ra[0]), "r"(ra[1]), "r"(ra[2]), "r"(ra[3]), "r"(rb[0]), "r"(rb[1]));
  d[g * 8 + t * 2] = c[0]; d[g * 8 + t * 2 + 1] = c[1];
  d[(g + 8) * 8 + t * 2] = c[2]; d[(g + 8) * 8 + t * 2 + 1] = c[3];
}
// mma.sync m8n8k4 f64
extern "C" __global__ void mma_f64(const double* a, const double* b, double* d) {
  int l = threadIdx.x, g = l >> 2, t = l % 4;
  double ra = a[g * 4 + t], rb = b[t * 8 + g];
  double c0 = 0.0, c1 = 0.0;
  asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%0,%1};"
               : "+d"(c0), "+d"(c1) : "d"(ra), "d"(rb));
  d[g * 8 + t * 2] = c0; d[g * 8 + t * 2 + 1] = c1;
}
