// CUDA SDK scalarProd: one dot product of elementN floats per vector; a block strides over vectors,
// ACCUM_N partial sums per vector in shared memory, then a tree reduction.
#define ACCUM_N 1024

// SDK 4.2 (Accel-Sim's copy) reads the sum without a last barrier; today's sample has one.
template <bool FINAL_SYNC>
__device__ inline void scalar_prod(float *d_C, float *d_A, float *d_B, int vectorN, int elementN)
{
    __shared__ float accum[ACCUM_N];
    for (int vec = blockIdx.x; vec < vectorN; vec += gridDim.x) {
        int base = __mul24(elementN, vec);
        int end = base + elementN;
        for (int a = threadIdx.x; a < ACCUM_N; a += blockDim.x) {
            float sum = 0;
            for (int pos = base + a; pos < end; pos += ACCUM_N)
                sum += d_A[pos] * d_B[pos];
            accum[a] = sum;
        }
        for (int stride = ACCUM_N / 2; stride > 0; stride >>= 1) {
            __syncthreads();
            for (int a = threadIdx.x; a < stride; a += blockDim.x)
                accum[a] += accum[stride + a];
        }
        if (FINAL_SYNC)
            __syncthreads();
        if (threadIdx.x == 0)
            d_C[vec] = accum[0];
    }
}

extern "C" __global__ void scalarProdGPU(float *d_C, float *d_A, float *d_B, int vectorN, int elementN)
{
    scalar_prod<true>(d_C, d_A, d_B, vectorN, elementN);
}

extern "C" __global__ void scalarProdGPU_sdk42(float *d_C, float *d_A, float *d_B, int vectorN, int elementN)
{
    scalar_prod<false>(d_C, d_A, d_B, vectorN, elementN);
}
