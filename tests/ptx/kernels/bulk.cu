#include <cuda/barrier>
#include <cuda/ptx>
// One thread copies a 256-byte row from global to shared with cp.async.bulk, completing an mbarrier
// transaction; every thread waits on the barrier, doubles its element, and the row is bulk-copied back.
extern "C" __global__ void bulk_roundtrip(float* data) {
  __shared__ alignas(16) float buf[64];
  __shared__ uint64_t bar;
  int t = threadIdx.x;
  unsigned bar_addr = (unsigned)__cvta_generic_to_shared(&bar);
  unsigned buf_addr = (unsigned)__cvta_generic_to_shared(buf);
  if (t == 0) asm volatile("mbarrier.init.shared.b64 [%0], %1;" :: "r"(bar_addr), "r"(1));
  __syncthreads();
  unsigned long long token = 0;
  if (t == 0) {
    asm volatile("mbarrier.arrive.expect_tx.shared.b64 %0, [%1], %2;" : "=l"(token) : "r"(bar_addr), "r"(256));
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
                 :: "r"(buf_addr), "l"(data + 64 * blockIdx.x), "r"(256), "r"(bar_addr) : "memory");
  }
  __syncthreads();
  unsigned ok = 0;
  while (!ok) asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
                           : "=r"(ok) : "r"(bar_addr), "r"(0));
  buf[t] *= 2.0f;
  asm volatile("fence.proxy.async.shared::cta;");
  __syncthreads();
  if (t == 0) {
    asm volatile("cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;"
                 :: "l"(data + 64 * blockIdx.x), "r"(buf_addr), "r"(256) : "memory");
    asm volatile("cp.async.bulk.commit_group;");
    asm volatile("cp.async.bulk.wait_group 0;");
  }
}
