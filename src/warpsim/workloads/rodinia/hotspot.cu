// Rodinia 3.1 hotspot (CUDA): transient thermal simulation with the pyramid scheme. Each 16x16
// block loads a temperature and power tile (with a halo of `iteration` cells), runs `iteration`
// explicit steps in shared memory, shrinking the valid region by one cell per step, and writes the
// inner (16 - 2*iteration)^2 cells. The 2.0 constant is a double, as in the original.
#define BS 16
#define IN_RANGE(x, lo, hi) ((x) >= (lo) && (x) <= (hi))

extern "C" __global__ void calculate_temp(int iteration, float *power, float *temp_src, float *temp_dst,
                                          int grid_cols, int grid_rows, int border_cols, int border_rows,
                                          float Cap, float Rx, float Ry, float Rz, float step,
                                          float time_elapsed)
{
    __shared__ float temp_on_cuda[BS][BS];
    __shared__ float power_on_cuda[BS][BS];
    __shared__ float temp_t[BS][BS];
    float amb_temp = 80.0;
    float step_div_Cap = step / Cap;
    float Rx_1 = 1 / Rx, Ry_1 = 1 / Ry, Rz_1 = 1 / Rz;
    int tx = threadIdx.x, ty = threadIdx.y;
    int small_rows = BS - iteration * 2, small_cols = BS - iteration * 2;
    int blkY = small_rows * blockIdx.y - border_rows;
    int blkX = small_cols * blockIdx.x - border_cols;
    int blkYmax = blkY + BS - 1, blkXmax = blkX + BS - 1;
    int yidx = blkY + ty, xidx = blkX + tx;
    int index = grid_cols * yidx + xidx;
    if (IN_RANGE(yidx, 0, grid_rows - 1) && IN_RANGE(xidx, 0, grid_cols - 1)) {
        temp_on_cuda[ty][tx] = temp_src[index];
        power_on_cuda[ty][tx] = power[index];
    }
    __syncthreads();
    int validYmin = (blkY < 0) ? -blkY : 0;
    int validYmax = (blkYmax > grid_rows - 1) ? BS - 1 - (blkYmax - grid_rows + 1) : BS - 1;
    int validXmin = (blkX < 0) ? -blkX : 0;
    int validXmax = (blkXmax > grid_cols - 1) ? BS - 1 - (blkXmax - grid_cols + 1) : BS - 1;
    int N = ty - 1, S = ty + 1, W = tx - 1, E = tx + 1;
    N = (N < validYmin) ? validYmin : N;
    S = (S > validYmax) ? validYmax : S;
    W = (W < validXmin) ? validXmin : W;
    E = (E > validXmax) ? validXmax : E;
    bool computed;
    for (int i = 0; i < iteration; i++) {
        computed = false;
        if (IN_RANGE(tx, i + 1, BS - i - 2) && IN_RANGE(ty, i + 1, BS - i - 2) && IN_RANGE(tx, validXmin, validXmax)
            && IN_RANGE(ty, validYmin, validYmax)) {
            computed = true;
            temp_t[ty][tx] = temp_on_cuda[ty][tx]
                + step_div_Cap * (power_on_cuda[ty][tx]
                                  + (temp_on_cuda[S][tx] + temp_on_cuda[N][tx] - 2.0 * temp_on_cuda[ty][tx]) * Ry_1
                                  + (temp_on_cuda[ty][E] + temp_on_cuda[ty][W] - 2.0 * temp_on_cuda[ty][tx]) * Rx_1
                                  + (amb_temp - temp_on_cuda[ty][tx]) * Rz_1);
        }
        __syncthreads();
        if (i == iteration - 1)
            break;
        if (computed)
            temp_on_cuda[ty][tx] = temp_t[ty][tx];
        __syncthreads();
    }
    if (computed)
        temp_dst[index] = temp_t[ty][tx];
}
