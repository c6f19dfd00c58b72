// Cube-map fetches and layered surfaces. Regenerate: nvcc -ptx -arch=compute_75 -O2 cubemap.cu -o cubemap.ptx
#include <cuda_runtime.h>

// Lane i reads the cube map along direction (x[i], y[i], z[i]).
extern "C" __global__ void cube(cudaTextureObject_t t, const float *x, const float *y, const float *z,
                                float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = texCubemap<float>(t, x[i], y[i], z[i]);
}

// Thread (x, y) of block z writes 100 * layer + 10 * y + x into layer z of a 2-D layered surface,
// then reads its texel back into out.
extern "C" __global__ void layers2d(cudaSurfaceObject_t s, float *out, int w, int h, int nl) {
  int x = threadIdx.x, y = threadIdx.y, l = blockIdx.x;
  surf2DLayeredwrite(100.0f * l + 10.0f * y + x, s, x * 4, y, l);
  __syncthreads();
  float v = surf2DLayeredread<float>(s, x * 4, y, l);
  out[(l * h + y) * w + x] = v;
}

// One warp writes a 1-D layered surface of int2 texels and reads them back from the next layer.
extern "C" __global__ void layers1d(cudaSurfaceObject_t s, int2 *out, int w, int nl) {
  int x = threadIdx.x;
  for (int l = 0; l < nl; ++l) surf1DLayeredwrite(make_int2(x, l), s, x * 8, l);
  for (int l = 0; l < nl; ++l) out[l * w + x] = surf1DLayeredread<int2>(s, x * 8, (l + 1) % nl);
}
