// Needleman-Wunsch global alignment on a (n+1) x (n+1) score matrix, in 16x16 tiles.
// Tiles on one anti-diagonal of tiles are independent: the host launches one grid per tile
// diagonal, first growing (kernel 1) then shrinking (kernel 2); inside a tile the 16 threads
// sweep the cell anti-diagonals through shared memory.
#define B 16
__device__ __forceinline__ int max3(int a, int b, int c)
{
    return max(a, max(b, c));
}

__device__ void nw_tile(int n, int *score, const int *ref, int penalty, int bi, int bj)
{
    __shared__ int s[B + 1][B + 1];
    __shared__ int r[B][B];
    int tx = threadIdx.x;
    int w = n + 1;
    int r0 = bi * B, c0 = bj * B;          // score-matrix corner (row, col) above-left of the tile
    if (tx == 0)
        s[0][0] = score[r0 * w + c0];
    s[tx + 1][0] = score[(r0 + tx + 1) * w + c0];
    s[0][tx + 1] = score[r0 * w + c0 + tx + 1];
    for (int y = 0; y < B; y++)
        r[y][tx] = ref[(r0 + y) * n + c0 + tx];
    __syncthreads();
    for (int m = 0; m < 2 * B - 1; m++) {
        int x = tx, y = m - tx;
        if (y >= 0 && y < B)
            s[x + 1][y + 1] = max3(s[x][y] + r[x][y], s[x][y + 1] - penalty, s[x + 1][y] - penalty);
        __syncthreads();
    }
    for (int y = 0; y < B; y++)
        score[(r0 + y + 1) * w + c0 + tx + 1] = s[y + 1][tx + 1];
}

extern "C" __global__ void nw_kernel1(int n, int *score, const int *ref, int penalty, int diag)
{
    int bi = blockIdx.x;                    // tiles (bi, diag - bi), diag < number of tiles
    nw_tile(n, score, ref, penalty, bi, diag - bi);
}

extern "C" __global__ void nw_kernel2(int n, int *score, const int *ref, int penalty, int diag)
{
    int nb = n / B;
    int bi = diag - (nb - 1) + blockIdx.x;  // tiles on diagonal diag >= nb
    nw_tile(n, score, ref, penalty, bi, diag - bi);
}
