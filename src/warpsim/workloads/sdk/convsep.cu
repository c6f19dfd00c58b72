// CUDA SDK convolutionSeparable: a 17-tap filter (in constant memory) applied along rows, then
// along columns. Each block stages its tile plus one halo step per side in shared memory.
#define KERNEL_RADIUS 8
#define KERNEL_LENGTH (2 * KERNEL_RADIUS + 1)
#define ROWS_BX 16
#define ROWS_BY 4
#define ROWS_STEPS 8
#define ROWS_HALO 1
#define COLS_BX 16
#define COLS_BY 8
#define COLS_STEPS 8
#define COLS_HALO 1

__constant__ float c_Kernel[KERNEL_LENGTH];

extern "C" __global__ void convolutionRowsKernel(float *d_Dst, float *d_Src, int imageW, int imageH, int pitch)
{
    __shared__ float s[ROWS_BY][(ROWS_STEPS + 2 * ROWS_HALO) * ROWS_BX];
    const int baseX = (blockIdx.x * ROWS_STEPS - ROWS_HALO) * ROWS_BX + threadIdx.x;
    const int baseY = blockIdx.y * ROWS_BY + threadIdx.y;
    d_Src += baseY * pitch + baseX;
    d_Dst += baseY * pitch + baseX;
#pragma unroll
    for (int i = ROWS_HALO; i < ROWS_HALO + ROWS_STEPS; i++)
        s[threadIdx.y][threadIdx.x + i * ROWS_BX] = d_Src[i * ROWS_BX];
#pragma unroll
    for (int i = 0; i < ROWS_HALO; i++)
        s[threadIdx.y][threadIdx.x + i * ROWS_BX] = (baseX >= -i * ROWS_BX) ? d_Src[i * ROWS_BX] : 0;
#pragma unroll
    for (int i = ROWS_HALO + ROWS_STEPS; i < ROWS_HALO + ROWS_STEPS + ROWS_HALO; i++)
        s[threadIdx.y][threadIdx.x + i * ROWS_BX] = (imageW - baseX > i * ROWS_BX) ? d_Src[i * ROWS_BX] : 0;
    __syncthreads();
#pragma unroll
    for (int i = ROWS_HALO; i < ROWS_HALO + ROWS_STEPS; i++) {
        float sum = 0;
#pragma unroll
        for (int j = -KERNEL_RADIUS; j <= KERNEL_RADIUS; j++)
            sum += c_Kernel[KERNEL_RADIUS - j] * s[threadIdx.y][threadIdx.x + i * ROWS_BX + j];
        d_Dst[i * ROWS_BX] = sum;
    }
}

extern "C" __global__ void convolutionColumnsKernel(float *d_Dst, float *d_Src, int imageW, int imageH, int pitch)
{
    __shared__ float s[COLS_BX][(COLS_STEPS + 2 * COLS_HALO) * COLS_BY + 1];
    const int baseX = blockIdx.x * COLS_BX + threadIdx.x;
    const int baseY = (blockIdx.y * COLS_STEPS - COLS_HALO) * COLS_BY + threadIdx.y;
    d_Src += baseY * pitch + baseX;
    d_Dst += baseY * pitch + baseX;
#pragma unroll
    for (int i = COLS_HALO; i < COLS_HALO + COLS_STEPS; i++)
        s[threadIdx.x][threadIdx.y + i * COLS_BY] = d_Src[i * COLS_BY * pitch];
#pragma unroll
    for (int i = 0; i < COLS_HALO; i++)
        s[threadIdx.x][threadIdx.y + i * COLS_BY] = (baseY >= -i * COLS_BY) ? d_Src[i * COLS_BY * pitch] : 0;
#pragma unroll
    for (int i = COLS_HALO + COLS_STEPS; i < COLS_HALO + COLS_STEPS + COLS_HALO; i++)
        s[threadIdx.x][threadIdx.y + i * COLS_BY] =
            (imageH - baseY > i * COLS_BY) ? d_Src[i * COLS_BY * pitch] : 0;
    __syncthreads();
#pragma unroll
    for (int i = COLS_HALO; i < COLS_HALO + COLS_STEPS; i++) {
        float sum = 0;
#pragma unroll
        for (int j = -KERNEL_RADIUS; j <= KERNEL_RADIUS; j++)
            sum += c_Kernel[KERNEL_RADIUS - j] * s[threadIdx.x][threadIdx.y + i * COLS_BY + j];
        d_Dst[i * COLS_BY * pitch] = sum;
    }
}
