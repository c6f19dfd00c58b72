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

extern "C" __global__ void transposeDiagonal(float *odata, float *idata, int width, int height)
{
    __shared__ float tile[TILE][TILE + 1];
    int bx, by;
    if (width == height) {
        by = blockIdx.x;
        bx = (blockIdx.x + blockIdx.y) % gridDim.x;
    } else {
        int bid = blockIdx.x + gridDim.x * blockIdx.y;
        by = bid % gridDim.y;
        bx = ((bid / gridDim.y) + by) % gridDim.x;
    }
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

// the tiled transposes differ only in the tile's padding and in which blocks they visit
__device__ inline void tiled42(float *odata, const float *idata, float (*tile)[TILE42 + 1], int bx, int by,
                               int width, int height, int nreps)
{
    int in = bx * TILE42 + threadIdx.x + (by * TILE42 + threadIdx.y) * width;
    int out = by * TILE42 + threadIdx.x + (bx * TILE42 + threadIdx.y) * height;
    for (int r = 0; r < nreps; r++) {
        for (int i = 0; i < TILE42; i += ROWS42)
            tile[threadIdx.y + i][threadIdx.x] = idata[in + i * width];
        __syncthreads();
        for (int i = 0; i < TILE42; i += ROWS42)
            odata[out + i * height] = tile[threadIdx.x][threadIdx.y + i];
    }
}

extern "C" __global__ void transposeCoalesced_sdk42(float *odata, float *idata, int width, int height, int nreps)
{
    __shared__ float tile[TILE42][TILE42];
    int in = blockIdx.x * TILE42 + threadIdx.x + (blockIdx.y * TILE42 + threadIdx.y) * width;
    int out = blockIdx.y * TILE42 + threadIdx.x + (blockIdx.x * TILE42 + threadIdx.y) * height;
    for (int r = 0; r < nreps; r++) {
        for (int i = 0; i < TILE42; i += ROWS42)
            tile[threadIdx.y + i][threadIdx.x] = idata[in + i * width];
        __syncthreads();
        for (int i = 0; i < TILE42; i += ROWS42)
            odata[out + i * height] = tile[threadIdx.x][threadIdx.y + i];
    }
}

extern "C" __global__ void transposeNoBankConflicts_sdk42(float *odata, float *idata, int width, int height,
                                                          int nreps)
{
    __shared__ float tile[TILE42][TILE42 + 1];
    tiled42(odata, idata, tile, blockIdx.x, blockIdx.y, width, height, nreps);
}

extern "C" __global__ void transposeDiagonal_sdk42(float *odata, float *idata, int width, int height, int nreps)
{
    __shared__ float tile[TILE42][TILE42 + 1];
    int bx, by;
    if (width == height) {
        by = blockIdx.x;
        bx = (blockIdx.x + blockIdx.y) % gridDim.x;
    } else {
        int bid = blockIdx.x + gridDim.x * blockIdx.y;
        by = bid % gridDim.y;
        bx = ((bid / gridDim.y) + by) % gridDim.x;
    }
    tiled42(odata, idata, tile, bx, by, width, height, nreps);
}

extern "C" __global__ void transposeFineGrained_sdk42(float *odata, float *idata, int width, int height, int nreps)
{
    __shared__ float tile[TILE42][TILE42 + 1];
    int index = blockIdx.x * TILE42 + threadIdx.x + (blockIdx.y * TILE42 + threadIdx.y) * width;
    for (int r = 0; r < nreps; r++) {
        for (int i = 0; i < TILE42; i += ROWS42)
            tile[threadIdx.y + i][threadIdx.x] = idata[index + i * width];
        __syncthreads();
        for (int i = 0; i < TILE42; i += ROWS42)
            odata[index + i * height] = tile[threadIdx.x][threadIdx.y + i];
    }
}

extern "C" __global__ void transposeCoarseGrained_sdk42(float *odata, float *idata, int width, int height,
                                                        int nreps)
{
    __shared__ float tile[TILE42][TILE42 + 1];
    int in = blockIdx.x * TILE42 + threadIdx.x + (blockIdx.y * TILE42 + threadIdx.y) * width;
    int out = blockIdx.y * TILE42 + threadIdx.x + (blockIdx.x * TILE42 + threadIdx.y) * height;
    for (int r = 0; r < nreps; r++) {
        for (int i = 0; i < TILE42; i += ROWS42)
            tile[threadIdx.y + i][threadIdx.x] = idata[in + i * width];
        __syncthreads();
        for (int i = 0; i < TILE42; i += ROWS42)
            odata[out + i * height] = tile[threadIdx.y + i][threadIdx.x];
    }
}
