// 256-bin histogram of bytes: each block counts into a private shared-memory histogram with
// shared atomics (grid-stride loop), then merges it into the global one with global atomics.
#define BINS 256
extern "C" __global__ void histogram256(int n, const unsigned char *data, unsigned int *hist)
{
    __shared__ unsigned int h[BINS];
    for (int b = threadIdx.x; b < BINS; b += blockDim.x)
        h[b] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        atomicAdd(&h[data[i]], 1u);
    __syncthreads();
    for (int b = threadIdx.x; b < BINS; b += blockDim.x)
        if (h[b])
            atomicAdd(&hist[b], h[b]);
}
