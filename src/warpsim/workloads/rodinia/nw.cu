// Rodinia 3.1 nw (CUDA): Needleman-Wunsch over 16x16 tiles, one launch per tile anti-diagonal
// (needle_cuda_shared_1 for the upper-left half, _2 for the lower-right), 16 threads per tile; a
// tile's reference scores and borders are staged in shared memory and swept diagonally.
#define BS 16

__device__ inline int maximum(int a, int b, int c)
{
    int k = (a <= b) ? b : a;
    return (k <= c) ? c : k;
}

// The two diagonal sweeps over a tile (a macro so the shared arrays stay directly addressed).
#define SWEEP()                                                                                      \
    for (int m = 0; m < BS; m++) {                                                                   \
        if (tx <= m) {                                                                               \
            int x = tx + 1, y = m - tx + 1;                                                          \
            asm volatile("" : "+r"(y)); /* keeps nvcc from folding -tx into the shared base */      \
            temp[y][x] = maximum(temp[y - 1][x - 1] + ref[y - 1][x - 1], temp[y][x - 1] - penalty,   \
                                 temp[y - 1][x] - penalty);                                          \
        }                                                                                            \
        __syncthreads();                                                                             \
    }                                                                                                \
    for (int m = BS - 2; m >= 0; m--) {                                                              \
        if (tx <= m) {                                                                               \
            int x = tx + BS - m, y = BS - tx;                                                        \
            temp[y][x] = maximum(temp[y - 1][x - 1] + ref[y - 1][x - 1], temp[y][x - 1] - penalty,   \
                                 temp[y - 1][x] - penalty);                                          \
        }                                                                                            \
        __syncthreads();                                                                             \
    }

extern "C" __global__ void needle_cuda_shared_1(int *referrence, int *matrix_cuda, int cols, int penalty, int i,
                                                int block_width)
{
    int bx = blockIdx.x, tx = threadIdx.x;
    int bix = bx, biy = i - 1 - bx;
    int index = cols * BS * biy + BS * bix + tx + (cols + 1);
    int index_n = cols * BS * biy + BS * bix + tx + 1;
    int index_w = cols * BS * biy + BS * bix + cols;
    int index_nw = cols * BS * biy + BS * bix;
    __shared__ int temp[BS + 1][BS + 1];
    __shared__ int ref[BS][BS];
    if (tx == 0)
        temp[tx][0] = matrix_cuda[index_nw];
    for (int ty = 0; ty < BS; ty++)
        ref[ty][tx] = referrence[index + cols * ty];
    __syncthreads();
    temp[tx + 1][0] = matrix_cuda[index_w + cols * tx];
    __syncthreads();
    temp[0][tx + 1] = matrix_cuda[index_n];
    __syncthreads();
    SWEEP()
    for (int ty = 0; ty < BS; ty++)
        matrix_cuda[index + ty * cols] = temp[ty + 1][tx + 1];
}

extern "C" __global__ void needle_cuda_shared_2(int *referrence, int *matrix_cuda, int cols, int penalty, int i,
                                                int block_width)
{
    int bx = blockIdx.x, tx = threadIdx.x;
    int bix = bx + block_width - i, biy = block_width - bx - 1;
    int index = cols * BS * biy + BS * bix + tx + (cols + 1);
    int index_n = cols * BS * biy + BS * bix + tx + 1;
    int index_w = cols * BS * biy + BS * bix + cols;
    int index_nw = cols * BS * biy + BS * bix;
    __shared__ int temp[BS + 1][BS + 1];
    __shared__ int ref[BS][BS];
    for (int ty = 0; ty < BS; ty++)
        ref[ty][tx] = referrence[index + cols * ty];
    __syncthreads();
    if (tx == 0)
        temp[tx][0] = matrix_cuda[index_nw];
    temp[tx + 1][0] = matrix_cuda[index_w + cols * tx];
    __syncthreads();
    temp[0][tx + 1] = matrix_cuda[index_n];
    __syncthreads();
    SWEEP()
    for (int ty = 0; ty < BS; ty++)
        matrix_cuda[index + ty * cols] = temp[ty + 1][tx + 1];
}
