// Virtual functions and function pointers in an unmodified program: objects built by one kernel and
// used by the next (their vtable pointers live in device memory between launches), a per-lane choice
// of class, and a device function's address taken to the host and passed back as an argument.
#include <cstdio>
#include <cuda_runtime.h>

struct Op {
  __device__ virtual float apply(float x) const = 0;
  __device__ virtual float twice(float x) const { return apply(apply(x)); }
  __device__ virtual ~Op() {}
};
struct Inc : Op { __device__ float apply(float x) const override { return x + 1.0f; } };
struct Dbl : Op {
  __device__ float apply(float x) const override { return 2.0f * x; }
  __device__ float twice(float x) const override { return 4.0f * x; }
};

typedef float (*fn_t)(float);
__device__ float neg(float x) { return -x; }
__device__ float sq(float x) { return x * x; }
__device__ fn_t d_fns[2] = {neg, sq};

__global__ void build(Op **objs, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) objs[i] = (i % 4 == 1) ? static_cast<Op *>(new Dbl) : static_cast<Op *>(new Inc);
}
__global__ void use(Op **objs, const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = objs[i]->twice(in[i]);
}
__global__ void destroy(Op **objs, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) delete objs[i];
}
__global__ void call(fn_t f, const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = f(in[i]);
}

int main() {
  const int n = 200;
  float h_in[n], h_out[n];
  for (int i = 0; i < n; ++i) h_in[i] = 0.25f * i - 7.0f;
  float *d_in, *d_out;
  Op **objs;
  cudaMalloc(&d_in, n * sizeof(float));
  cudaMalloc(&d_out, n * sizeof(float));
  cudaMalloc(&objs, n * sizeof(Op *));
  cudaMemcpy(d_in, h_in, sizeof h_in, cudaMemcpyHostToDevice);
  int bad = 0;
  build<<<2, 128>>>(objs, n);
  use<<<2, 128>>>(objs, d_in, d_out, n);
  destroy<<<2, 128>>>(objs, n);
  cudaMemcpy(h_out, d_out, sizeof h_out, cudaMemcpyDeviceToHost);
  for (int i = 0; i < n; ++i) {
    float want = (i % 4 == 1) ? 4.0f * h_in[i] : h_in[i] + 1.0f + 1.0f;
    if (h_out[i] != want) ++bad;
  }
  fn_t h_fns[2];
  cudaMemcpyFromSymbol(h_fns, d_fns, sizeof h_fns);
  for (int k = 0; k < 2; ++k) {
    call<<<1, 256>>>(h_fns[k], d_in, d_out, n);
    cudaMemcpy(h_out, d_out, sizeof h_out, cudaMemcpyDeviceToHost);
    for (int i = 0; i < n; ++i)
      if (h_out[i] != (k == 0 ? -h_in[i] : h_in[i] * h_in[i])) ++bad;
  }
  cudaError_t err = cudaDeviceSynchronize();
  printf("%d mismatches, %s\n", bad, cudaGetErrorString(err));
  printf(bad == 0 && err == cudaSuccess ? "Test PASSED\n" : "Test FAILED\n");
  return bad == 0 && err == cudaSuccess ? 0 : 1;
}
