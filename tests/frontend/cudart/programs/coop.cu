// A cooperative launch (cudaLaunchCooperativeKernel) whose kernel needs grid.sync(): every CTA
// writes its part, the grid synchronises, then every thread reads a neighbour CTA's part.
#include <cooperative_groups.h>
#include <cstdio>
#include <cuda_runtime.h>
namespace cg = cooperative_groups;

__global__ void rotate(int *data, int *out, int n) {
  cg::grid_group grid = cg::this_grid();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  data[i] = i * 3;
  grid.sync();
  out[i] = data[(i + blockDim.x) % n];
}

int main() {
  int dev = 0, coop = 0, per_sm = 0, sms = 0;
  cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, dev);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, rotate, 128, 0);
  int blocks = 16, n = blocks * 128;
  printf("cooperative %d, fit %d\n", coop, per_sm * sms >= blocks);
  int *data, *out, host[16 * 128];
  cudaMalloc(&data, n * sizeof(int));
  cudaMalloc(&out, n * sizeof(int));
  void *args[] = {&data, &out, &n};
  cudaError_t e = cudaLaunchCooperativeKernel((void *)rotate, dim3(blocks), dim3(128), args, 0, 0);
  cudaError_t s = cudaDeviceSynchronize();
  cudaMemcpy(host, out, n * sizeof(int), cudaMemcpyDeviceToHost);
  int bad = 0;
  for (int i = 0; i < n; i++) bad += host[i] != ((i + 128) % n) * 3;
  printf("launch %s sync %s mismatches %d\n", cudaGetErrorName(e), cudaGetErrorName(s), bad);
  printf(bad == 0 && e == cudaSuccess ? "Test PASSED\n" : "Test FAILED\n");
  return bad != 0;
}
