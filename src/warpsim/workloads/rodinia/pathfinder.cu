// Rodinia 3.1 pathfinder (CUDA): dynamic programming down a rows x cols wall, 256-thread blocks.
// One launch advances `iteration` (the pyramid height) rows: a block loads a strip with a halo,
// each step takes the minimum of three upper neighbours plus the wall cell (read from global
// memory), shrinking the valid strip by one cell per side, and writes the inner cells.
#define BS 256
#define HALO 1
#define IN_RANGE(x, lo, hi) ((x) >= (lo) && (x) <= (hi))
#define MIN(a, b) ((a) <= (b) ? (a) : (b))

extern "C" __global__ void dynproc_kernel(int iteration, int *gpuWall, int *gpuSrc, int *gpuResults, int cols,
                                          int rows, int startStep, int border)
{
    __shared__ int prev[BS];
    __shared__ int result[BS];
    int tx = threadIdx.x;
    int small_cols = BS - iteration * HALO * 2;
    int blkX = small_cols * blockIdx.x - border;
    int blkXmax = blkX + BS - 1;
    int xidx = blkX + tx;
    int validXmin = (blkX < 0) ? -blkX : 0;
    int validXmax = (blkXmax > cols - 1) ? BS - 1 - (blkXmax - cols + 1) : BS - 1;
    int W = tx - 1, E = tx + 1;
    W = (W < validXmin) ? validXmin : W;
    E = (E > validXmax) ? validXmax : E;
    bool isValid = IN_RANGE(tx, validXmin, validXmax);
    if (IN_RANGE(xidx, 0, cols - 1))
        prev[tx] = gpuSrc[xidx];
    __syncthreads();
    bool computed;
    for (int i = 0; i < iteration; i++) {
        computed = false;
        if (IN_RANGE(tx, i + 1, BS - i - 2) && isValid) {
            computed = true;
            int shortest = MIN(prev[W], prev[tx]);
            shortest = MIN(shortest, prev[E]);
            result[tx] = shortest + gpuWall[cols * (startStep + i) + xidx];
        }
        __syncthreads();
        if (i == iteration - 1)
            break;
        if (computed)
            prev[tx] = result[tx];
        __syncthreads();
    }
    if (computed)
        gpuResults[xidx] = result[tx];
}
