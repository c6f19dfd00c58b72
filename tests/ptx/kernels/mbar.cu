#include <cuda/barrier>
#include <cooperative_groups.h>
// Each thread writes its value to shared memory, arrives on a block-wide barrier, waits, then reads
// its neighbour's value; a second round reuses the barrier (next phase).
extern "C" __global__ void neighbour(const int* in, int* out) {
  __shared__ int buf[128];
  __shared__ cuda::barrier<cuda::thread_scope_block> bar;
  auto block = cooperative_groups::this_thread_block();
  if (block.thread_rank() == 0) init(&bar, block.size());
  block.sync();
  int t = threadIdx.x;
  buf[t] = in[t];
  bar.arrive_and_wait();
  int v = buf[(t + 1) % blockDim.x];
  bar.arrive_and_wait();
  buf[t] = v * 2;
  bar.arrive_and_wait();
  out[t] = buf[(t + 1) % blockDim.x];
}
