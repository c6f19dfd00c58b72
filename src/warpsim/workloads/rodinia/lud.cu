// Rodinia 3.1 lud (CUDA): blocked LU decomposition in place, 16x16 blocks. Per block step the
// host launches lud_diagonal (one 16-thread block), lud_perimeter (32 threads per block: the first
// 16 update a row block, the other 16 a column block) and lud_internal (16x16 threads per block);
// a last lud_diagonal finishes the bottom-right block.
#define BS 16

extern "C" __global__ void lud_diagonal(float *m, int matrix_dim, int offset)
{
    __shared__ float shadow[BS][BS];
    int off = offset * matrix_dim + offset;
    for (int i = 0; i < BS; i++) {
        shadow[i][threadIdx.x] = m[off + threadIdx.x];
        off += matrix_dim;
    }
    __syncthreads();
    for (int i = 0; i < BS - 1; i++) {
        if (threadIdx.x > i) {
            for (int j = 0; j < i; j++)
                shadow[threadIdx.x][i] -= shadow[threadIdx.x][j] * shadow[j][i];
            shadow[threadIdx.x][i] /= shadow[i][i];
        }
        __syncthreads();
        if (threadIdx.x > i) {
            for (int j = 0; j < i + 1; j++)
                shadow[i + 1][threadIdx.x] -= shadow[i + 1][j] * shadow[j][threadIdx.x];
        }
        __syncthreads();
    }
    off = (offset + 1) * matrix_dim + offset;  // row 0 is unchanged: not written back
    for (int i = 1; i < BS; i++) {
        m[off + threadIdx.x] = shadow[i][threadIdx.x];
        off += matrix_dim;
    }
}

extern "C" __global__ void lud_perimeter(float *m, int matrix_dim, int offset)
{
    __shared__ float dia[BS][BS];
    __shared__ float peri_row[BS][BS];
    __shared__ float peri_col[BS][BS];
    int off, idx;
    if (threadIdx.x < BS) {
        idx = threadIdx.x;
        off = offset * matrix_dim + offset;
        for (int i = 0; i < BS / 2; i++) {
            dia[i][idx] = m[off + idx];
            off += matrix_dim;
        }
        off = offset * matrix_dim + offset;
        for (int i = 0; i < BS; i++) {
            peri_row[i][idx] = m[off + (blockIdx.x + 1) * BS + idx];
            off += matrix_dim;
        }
    } else {
        idx = threadIdx.x - BS;
        off = (offset + BS / 2) * matrix_dim + offset;
        for (int i = BS / 2; i < BS; i++) {
            dia[i][idx] = m[off + idx];
            off += matrix_dim;
        }
        off = (offset + (blockIdx.x + 1) * BS) * matrix_dim + offset;
        for (int i = 0; i < BS; i++) {
            peri_col[i][idx] = m[off + idx];
            off += matrix_dim;
        }
    }
    __syncthreads();
    if (threadIdx.x < BS) {
        idx = threadIdx.x;
        for (int i = 1; i < BS; i++)
            for (int j = 0; j < i; j++)
                peri_row[i][idx] -= dia[i][j] * peri_row[j][idx];
    } else {
        idx = threadIdx.x - BS;
        for (int i = 0; i < BS; i++) {
            for (int j = 0; j < i; j++)
                peri_col[idx][i] -= peri_col[idx][j] * dia[j][i];
            peri_col[idx][i] /= dia[i][i];
        }
    }
    __syncthreads();
    if (threadIdx.x < BS) {
        idx = threadIdx.x;
        off = (offset + 1) * matrix_dim + offset;
        for (int i = 1; i < BS; i++) {
            m[off + (blockIdx.x + 1) * BS + idx] = peri_row[i][idx];
            off += matrix_dim;
        }
    } else {
        idx = threadIdx.x - BS;
        off = (offset + (blockIdx.x + 1) * BS) * matrix_dim + offset;
        for (int i = 0; i < BS; i++) {
            m[off + idx] = peri_col[i][idx];
            off += matrix_dim;
        }
    }
}

extern "C" __global__ void lud_internal(float *m, int matrix_dim, int offset)
{
    __shared__ float peri_row[BS][BS];
    __shared__ float peri_col[BS][BS];
    int row = offset + (blockIdx.y + 1) * BS;
    int col = offset + (blockIdx.x + 1) * BS;
    peri_row[threadIdx.y][threadIdx.x] = m[(offset + threadIdx.y) * matrix_dim + col + threadIdx.x];
    peri_col[threadIdx.y][threadIdx.x] = m[(row + threadIdx.y) * matrix_dim + offset + threadIdx.x];
    __syncthreads();
    float sum = 0;
    for (int i = 0; i < BS; i++)
        sum += peri_col[threadIdx.y][i] * peri_row[i][threadIdx.x];
    m[(row + threadIdx.y) * matrix_dim + col + threadIdx.x] -= sum;
}
