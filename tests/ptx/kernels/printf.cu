#include <cstdio>
#include <cassert>
extern "C" __global__ void k(int* out, int n) {
  int t = threadIdx.x;
  if (t < n) printf("t=%d v=%5.2f|%lld|%c|%x|%u|%s|%-4d|\n", t, 1.25f * t, (long long)out[t] << 33, 'A' + t, -1 - t, 7u, "str", t);
  assert(out[t] != 99);
}
extern "C" __global__ void m(unsigned long long* out) {
  int* p = (int*)malloc(64); p[threadIdx.x % 16] = threadIdx.x; out[threadIdx.x] = (unsigned long long)p; free(p);
}
