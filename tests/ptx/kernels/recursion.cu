// Recursive device functions. Regenerate: nvcc -ptx -arch=compute_75 -O2 recursion.cu -o recursion.ptx
// Sum of the implicit binary tree under `node` (children 2n+1, 2n+2): two recursive calls per level.
__device__ __noinline__ float tree_sum(const float *v, int node, int n) {
  if (node >= n) return 0.0f;
  float left = tree_sum(v, 2 * node + 1, n);
  float right = tree_sum(v, 2 * node + 2, n);
  return v[node] + 2.0f * left + right;
}

// Lane i walks a chain of depth d[i] (a non-tail recursion: the result is used after the call).
__device__ __noinline__ int chain(int x, int depth) {
  if (depth == 0) return x;
  int below = chain(x * 3 + 1, depth - 1);
  return (below % 1000) + depth;
}

extern "C" __global__ void trees(const float *v, int n, float *out, int roots) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < roots) out[i] = tree_sum(v, i, n);
}

extern "C" __global__ void chains(const int *depth, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = chain(i, depth[i]);
}
