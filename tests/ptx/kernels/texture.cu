// Texture and surface object kernels for warpsim's tests (one thread per output).
#include <cuda_runtime.h>
extern "C" __global__ void fetch1d(cudaTextureObject_t t, float* out, int n) {
  int i = threadIdx.x; if (i < n) out[i] = tex1Dfetch<float>(t, i - 2);
}
extern "C" __global__ void sample2d(cudaTextureObject_t t, const float* xy, float* out, int n) {
  int i = threadIdx.x; if (i < n) out[i] = tex2D<float>(t, xy[2 * i], xy[2 * i + 1]);
}
extern "C" __global__ void sample1d(cudaTextureObject_t t, const float* x, float* out, int n) {
  int i = threadIdx.x; if (i < n) out[i] = tex1D<float>(t, x[i]);
}
extern "C" __global__ void sample2d_rgba(cudaTextureObject_t t, const float* xy, float4* out, int n) {
  int i = threadIdx.x; if (i < n) out[i] = tex2D<float4>(t, xy[2 * i], xy[2 * i + 1]);
}
extern "C" __global__ void sample3d(cudaTextureObject_t t, const float* xyz, float* out, int n) {
  int i = threadIdx.x; if (i < n) out[i] = tex3D<float>(t, xyz[3 * i], xyz[3 * i + 1], xyz[3 * i + 2]);
}
extern "C" __global__ void surf_scale(cudaSurfaceObject_t s, int w, int h) {
  int x = threadIdx.x, y = blockIdx.x;
  if (x < w && y < h) { float v; surf2Dread(&v, s, x * 4, y); surf2Dwrite(v * 2.0f + 1.0f, s, x * 4, y); }
}
extern "C" __global__ void tex_query(cudaTextureObject_t t, int* out) {
  out[0] = tex2D<float>(t, 0.5f, 0.5f) > 0.0f;
}
extern "C" __global__ void sample_layered(cudaTextureObject_t t, const float* xy, const int* layer, float* out, int n) {
  int i = threadIdx.x; if (i < n) out[i] = tex2DLayered<float>(t, xy[2 * i], xy[2 * i + 1], layer[i]);
}
