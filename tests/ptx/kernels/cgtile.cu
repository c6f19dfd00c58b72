// Cooperative groups' multi-warp tiles (sm_80+: their scratch lives in reserved shared memory, read
// through %reserved_smem_offset_1). Regenerate: nvcc -ptx -arch=compute_80 -O2 cgtile.cu -o cgtile.ptx
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;

// Each 64-thread tile sums its inputs; lane 0 of the tile writes the sum. The block also has user
// shared memory, which the reserved region must not overlap.
extern "C" __global__ void tile_sums(const int *in, int *out, int *echo) {
  __shared__ int mine[256];
  cg::thread_block block = cg::this_thread_block();
  auto tile = cg::tiled_partition<64>(block);
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  mine[threadIdx.x] = in[i] * 2;
  int s = cg::reduce(tile, in[i], cg::plus<int>());
  tile.sync();
  if (tile.thread_rank() == 0) out[i / 64] = s;
  block.sync();
  echo[i] = mine[threadIdx.x];
}
