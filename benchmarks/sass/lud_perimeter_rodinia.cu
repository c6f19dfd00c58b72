// The perimeter step of Rodinia 3.1's blocked LU decomposition, rewritten for warpsim's SASS check
// (same algorithm, launch shape and memory layout: 16x16 tiles, 32 threads, three shared tiles).
// Threads 0-15 own one column of the tile to the right of the diagonal tile, threads 16-31 one row
// of the tile below it; each half also loads half of the diagonal tile.
#define TILE 16
// -DFULL_UNROLL unrolls every loop completely, as the (older) nvcc behind the reference trace did:
// that trace's warp runs 1 ISETP and 19 BRA for 15x15 triangular loops.
#ifdef FULL_UNROLL
#define UNROLL _Pragma("unroll")
#else
#define UNROLL
#endif

extern "C" __global__ void lud_perimeter(float *a, int dim, int off)
{
    __shared__ float diag[TILE][TILE];
    __shared__ float right[TILE][TILE];
    __shared__ float below[TILE][TILE];
    int t = threadIdx.x;
    int blk = blockIdx.x;
    int base;
    if (t < TILE) {
        int c = t;
        base = off * dim + off;
        UNROLL for (int r = 0; r < TILE / 2; r++) {
            diag[r][c] = a[base + c];
            base += dim;
        }
        base = off * dim + off;
        UNROLL for (int r = 0; r < TILE; r++) {
            right[r][c] = a[base + (blk + 1) * TILE + c];
            base += dim;
        }
    } else {
        int c = t - TILE;
        base = (off + TILE / 2) * dim + off;
        UNROLL for (int r = TILE / 2; r < TILE; r++) {
            diag[r][c] = a[base + c];
            base += dim;
        }
        base = (off + (blk + 1) * TILE) * dim + off;
        UNROLL for (int r = 0; r < TILE; r++) {
            below[r][c] = a[base + c];
            base += dim;
        }
    }
    __syncthreads();
    if (t < TILE) {
        int c = t;
        UNROLL for (int r = 1; r < TILE; r++)
            UNROLL for (int k = 0; k < r; k++)
                right[r][c] -= diag[r][k] * right[k][c];
    } else {
        int c = t - TILE;
        UNROLL for (int r = 0; r < TILE; r++) {
            UNROLL for (int k = 0; k < r; k++)
                below[c][r] -= below[c][k] * diag[k][r];
            below[c][r] /= diag[r][r];
        }
    }
    __syncthreads();
    if (t < TILE) {
        int c = t;
        base = (off + 1) * dim + off;
        UNROLL for (int r = 1; r < TILE; r++) {
            a[base + (blk + 1) * TILE + c] = right[r][c];
            base += dim;
        }
    } else {
        int c = t - TILE;
        base = (off + (blk + 1) * TILE) * dim + off;
        UNROLL for (int r = 0; r < TILE; r++) {
            a[base + c] = below[r][c];
            base += dim;
        }
    }
}
