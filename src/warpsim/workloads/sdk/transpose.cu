// CUDA SDK transpose: eight kernels over TILE x TILE tiles with TILE x ROWS thread blocks (each
// thread handles TILE/ROWS elements): copies, naive, shared-memory (with and without bank
// conflicts), diagonal block order, and the two partial variants (fine- and coarse-grained).
// The first eight are today's cuda-samples (32 x 16); the `_sdk42` eight below are the SDK 4.2
// copy that Accel-Sim's gpu-app-collection runs: 16 x 16 tiles, one element per thread, and an
// `nreps` loop around the body (the sample's "inner" timing).
#define TILE 32
#define ROWS 16

extern "C" __global__ void copy(float *odata, float *idata, int width, int height)
{
    int x = blockIdx.x * TILE + threadIdx.x;
    int y = blockIdx.y * TILE + threadIdx.y;
    int index = x + width * y;
    for (int i = 0; i < TILE; i += ROWS)
        odata[index + i * width] = idata[index + i * width];
}

extern "C" __global__ void copySharedMem(float *odata, float *idata, int width, int height)
{
    __shared__ float tile[TILE][TILE];
    int x = blockIdx.x * TILE + threadIdx.x;
    int y = blockIdx.y * TILE + threadIdx.y;
    int index = x + width * y;
    for (int i = 0; i < TILE; i += ROWS)
        if (x < width && y < height)
            tile[threadIdx.y + i][threadIdx.x] = idata[index + i * width];
    __syncthreads();
    for (int i = 0; i < TILE; i += ROWS)
        if (x < height && y < width)
            odata[index + i * width] = tile[threadIdx.y + i][threadIdx.x];
}

extern "C" __global__ void transposeNaive(float *odata, float *idata, int width, int height)
{
    int x = blockIdx.x * TILE + threadIdx.x;
    int y = blockIdx.y * TILE + threadIdx.y;
    int in = x + width * y;
    int out = y + height * x;
    for (int i = 0; i < TILE; i += ROWS)
        odata[out + i] = idata[in + i * width];
}

extern "C" __global__ void transposeCoalesced(float *odata, float *idata, int width, int height)
{
    __shared__ float tile[TILE][TILE];
    int in = blockIdx.x * TILE + threadIdx.x + (blockIdx.y * TILE + threadIdx.y) * width;
    int out = blockIdx.y * TILE + threadIdx.x + (blockIdx.x * TILE + threadIdx.y) * height;
    for (int i = 0; i < TILE; i += ROWS)
        tile[threadIdx.y + i][threadIdx.x] = idata[in + i * width];
    __syncthreads();
    for (int i = 0; i < TILE; i += ROWS)
        odata[out + i * height] = tile[threadIdx.x][threadIdx.y + i];
}

extern "C" __global__ void transposeNoBankConflicts(float *odata, float *idata, int width, int height)
{
    __shared__ float tile[TILE][TILE + 1];
    int in = blockIdx.x * TILE + threadIdx.x + (blockIdx.y * TILE + threadIdx.y) * width;
    int out = blockIdx.y * TILE + threadIdx.x + (blockIdx.x * TILE + threadIdx.y) * height;
    for (int i = 0; i < TILE; i += ROWS)
        tile[threadIdx.y + i][threadIdx.x] = idata[in + i * width];
    __syncthreads();
    for (int i = 0; i < TILE; i += ROWS)
        odata[out + i * height] = tile[threadIdx.x][threadIdx.y + i];
}

extern "C" __global__ void transposeCoarseGrained(float *odata, float *idata, int width, int height)
{
    __shared__ float tile[TILE][TILE + 1];
    int in = blockIdx.x * TILE + threadIdx.x + (blockIdx.y * TILE + threadIdx.y) * width;
    int out = blockIdx.y * TILE + threadIdx.x + (blockIdx.x * TILE + threadIdx.y) * height;
    for (int i = 0; i < TILE; i += ROWS)
        tile[threadIdx.y + i][threadIdx.x] = idata[in + i * width];
    __syncthreads();
    for (int i = 0; i < TILE; i += ROWS)
        odata[out + i * height] = tile[threadIdx.y + i][threadIdx.x];
}

extern "C" __global__ void transposeFineGrained(float *odata, float *idata, int width, int height)
{
    __shared__ float tile[TILE][TILE + 1];
    int index = blockIdx.x * TILE + threadIdx.x + (blockIdx.y * TILE + threadIdx.y) * width;
    for (int i = 0; i < TILE; i += ROWS)
        tile[threadIdx.y + i][threadIdx.x] = idata[index + i * width];
    __syncthreads();
    for (int i = 0; i < TILE; i += ROWS)
        odata[index + i * height] = tile[threadIdx.x][threadIdx.y + i];
}

// Diagonal block order: blockIdx.x runs along a diagonal, blockIdx.y picks the diagonal.
__device__ inline void diagonal_block(int &bx, int &by, int width, int height)
{
    if (width == height) {
        by = blockIdx.x;
        bx = (blockIdx.x + blockIdx.y) % gridDim.x;
    } else {
        int bid = blockIdx.x + gridDim.x * blockIdx.y;
        by = bid % gridDim.y;
        bx = ((bid / gridDim.y) + by) % gridDim.x;
    }
}

extern "C" __global__ void transposeDiagonal(float *odata, float *idata, int width, int height)
{
    __shared__ float tile[TILE][TILE + 1];
    int bx, by;
    diagonal_block(bx, by, width, height);
    int in = bx * TILE + threadIdx.x + (by * TILE + threadIdx.y) * width;
    int out = by * TILE + threadIdx.x + (bx * TILE + threadIdx.y) * height;
    for (int i = 0; i < TILE; i += ROWS)
        tile[threadIdx.y + i][threadIdx.x] = idata[in + i * width];
    __syncthreads();
    for (int i = 0; i < TILE; i += ROWS)
        odata[out + i * height] = tile[threadIdx.x][threadIdx.y + i];
}

// ---- SDK 4.2 (gpu-app-collection) ----------------------------------------------------------
#define TILE42 16
#define ROWS42 16

extern "C" __global__ void copy_sdk42(float *odata, float *idata, int width, int height, int nreps)
{
    int x = blockIdx.x * TILE42 + threadIdx.x;
    int y = blockIdx.y * TILE42 + threadIdx.y;
    int index = x + width * y;
    for (int r = 0; r < nreps; r++)
        for (int i = 0; i < TILE42; i += ROWS42)
            odata[index + i * width] = idata[index + i * width];
}

extern "C" __global__ void copySharedMem_sdk42(float *odata, float *idata, int width, int height, int nreps)
{
    __shared__ float tile[TILE42][TILE42];
    int x = blockIdx.x * TILE42 + threadIdx.x;
    int y = blockIdx.y * TILE42 + threadIdx.y;
    int index = x + width * y;
    for (int r = 0; r < nreps; r++) {
        for (int i = 0; i < TILE42; i += ROWS42)
            if (x < width && y < height)
                tile[threadIdx.y][threadIdx.x] = idata[index];
        __syncthreads();
        for (int i = 0; i < TILE42; i += ROWS42)
            if (x < height && y < width)
                odata[index] = tile[threadIdx.y][threadIdx.x];
    }
}

extern "C" __global__ void transposeNaive_sdk42(float *odata, float *idata, int width, int height, int nreps)
{
    int x = blockIdx.x * TILE42 + threadIdx.x;
    int y = blockIdx.y * TILE42 + threadIdx.y;
    int in = x + width * y;
    int out = y + height * x;
    for (int r = 0; r < nreps; r++)
        for (int i = 0; i < TILE42; i += ROWS42)
            odata[out + i] = idata[in + i * width];
}

// The five staged kernels differ only in the tile's padding, which element a thread writes back
// (the transposed one, or its own for the coarse-grained variant) and which tile they visit.
template <int PAD, bool TRANSPOSED>
__device__ inline void staged42(float *odata, const float *idata, int in, int out, int width, int height, int nreps)
{
    __shared__ float tile[TILE42][TILE42 + PAD];
    for (int r = 0; r < nreps; r++) {
        for (int i = 0; i < TILE42; i += ROWS42)
            tile[threadIdx.y + i][threadIdx.x] = idata[in + i * width];
        __syncthreads();
        for (int i = 0; i < TILE42; i += ROWS42)
            odata[out + i * height] = TRANSPOSED ? tile[threadIdx.x][threadIdx.y + i] : tile[threadIdx.y + i][threadIdx.x];
    }
}

__device__ inline int tile_in42(int bx, int by, int width)
{
    return bx * TILE42 + threadIdx.x + (by * TILE42 + threadIdx.y) * width;
}

extern "C" __global__ void transposeCoalesced_sdk42(float *odata, float *idata, int width, int height, int nreps)
{
    int in = tile_in42(blockIdx.x, blockIdx.y, width), out = tile_in42(blockIdx.y, blockIdx.x, height);
    staged42<0, true>(odata, idata, in, out, width, height, nreps);
}

extern "C" __global__ void transposeNoBankConflicts_sdk42(float *odata, float *idata, int width, int height,
                                                          int nreps)
{
    int in = tile_in42(blockIdx.x, blockIdx.y, width), out = tile_in42(blockIdx.y, blockIdx.x, height);
    staged42<1, true>(odata, idata, in, out, width, height, nreps);
}

extern "C" __global__ void transposeDiagonal_sdk42(float *odata, float *idata, int width, int height, int nreps)
{
    int bx, by;
    diagonal_block(bx, by, width, height);
    staged42<1, true>(odata, idata, tile_in42(bx, by, width), tile_in42(by, bx, height), width, height, nreps);
}

extern "C" __global__ void transposeFineGrained_sdk42(float *odata, float *idata, int width, int height, int nreps)
{
    int index = tile_in42(blockIdx.x, blockIdx.y, width);
    staged42<1, true>(odata, idata, index, index, width, height, nreps);
}

extern "C" __global__ void transposeCoarseGrained_sdk42(float *odata, float *idata, int width, int height,
                                                        int nreps)
{
    int in = tile_in42(blockIdx.x, blockIdx.y, width), out = tile_in42(blockIdx.y, blockIdx.x, height);
    staged42<1, false>(odata, idata, in, out, width, height, nreps);
}
