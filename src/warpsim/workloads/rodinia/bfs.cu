// Level-synchronous breadth-first search over a CSR graph. Per level the host launches
// kernel 1 (expand the frontier) and kernel 2 (commit the next frontier, raise `over`),
// and repeats while `over` was raised.
extern "C" __global__ void bfs_expand(int n, const int *row_ptr, const int *cols, unsigned char *frontier,
                                     unsigned char *next, const unsigned char *visited, int *cost)
{
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v < n && frontier[v]) {
        frontier[v] = 0;
        for (int e = row_ptr[v]; e < row_ptr[v + 1]; e++) {
            int u = cols[e];
            if (!visited[u]) {
                cost[u] = cost[v] + 1;
                next[u] = 1;
            }
        }
    }
}

extern "C" __global__ void bfs_commit(int n, unsigned char *frontier, unsigned char *next,
                                     unsigned char *visited, int *over)
{
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v < n && next[v]) {
        frontier[v] = 1;
        visited[v] = 1;
        *over = 1;
        next[v] = 0;
    }
}
