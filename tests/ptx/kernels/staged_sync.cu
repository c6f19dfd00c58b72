// Test kernel for the timing model's grid-wide barrier (tests/ptx/test_grid_sync.py):
// CTA 0 works before grid.sync(), every other CTA after it, so with the barrier the run takes
// the sum of the two stretches and without it (sync = 0) about the longer one.
// Regenerate: nvcc -ptx -arch=compute_75 -O3 staged_sync.cu -o staged_sync.ptx
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

extern "C" __global__ void staged(float *x, int pre_iters, int post_iters, int sync) {
  cg::grid_group grid = cg::this_grid();
  float v = (float)threadIdx.x;
  if (blockIdx.x == 0)
    for (int i = 0; i < pre_iters; i++) v = v * 0.5f + 1.0f;
  if (sync) grid.sync();
  if (blockIdx.x != 0)
    for (int i = 0; i < post_iters; i++) v = v * 0.5f + 1.0f;
  x[blockIdx.x * blockDim.x + threadIdx.x] = v;
}
