// PathFinder: dynamic programming down a rows x cols grid, each cell adding the minimum of its
// three upper neighbours. One launch advances `pyramid` rows: a block loads a strip of cols
// wider than it writes (a halo of `pyramid` on each side) and shrinks the valid strip each row.
#define BS 256
extern "C" __global__ void pathfinder_step(int cols, int rows, int start_row, int pyramid,
                                          const int *wall, const int *src, int *dst)
{
    __shared__ int prev[BS];
    __shared__ int cur[BS];
    int tx = threadIdx.x;
    int small = BS - 2 * pyramid;
    int xid = small * blockIdx.x - pyramid + tx;
    bool valid = xid >= 0 && xid < cols;
    if (valid)
        prev[tx] = src[xid];
    __syncthreads();
    for (int it = 0; it < pyramid; it++) {
        int row = start_row + it;
        if (row >= rows)
            break;
        bool compute = valid && tx >= it + 1 && tx <= BS - 2 - it;
        if (compute) {
            int l = xid > 0 ? prev[tx - 1] : prev[tx];
            int r = xid < cols - 1 ? prev[tx + 1] : prev[tx];
            int m = min(l, min(prev[tx], r));
            cur[tx] = m + wall[row * cols + xid];
        }
        __syncthreads();
        if (compute)
            prev[tx] = cur[tx];
        __syncthreads();
    }
    if (valid && tx >= pyramid && tx < BS - pyramid)
        dst[xid] = prev[tx];
}
