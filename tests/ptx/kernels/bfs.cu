// One BFS level over a CSR graph: frontier vertices visit neighbours (divergent loops, atomicCAS).
extern "C" __global__ void bfs_step(const int* row_ptr, const int* cols, int* level, int cur,
                                    int* changed, int nv) {
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= nv || level[v] != cur) return;
    for (int e = row_ptr[v]; e < row_ptr[v + 1]; ++e) {
        int u = cols[e];
        if (atomicCAS(&level[u], -1, cur + 1) == -1) atomicOr(changed, 1);
    }
}
