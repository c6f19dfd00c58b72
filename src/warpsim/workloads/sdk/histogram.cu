// CUDA SDK histogram: 64-bin (per-thread byte counters in shared memory, uint4 loads) and
// 256-bin (per-warp sub-histograms with shared atomics) partial histograms per block, each
// followed by a merge kernel (one block per bin, shared-memory tree reduction).
// histogram256Kernel_sdk42 is the SDK 4.2 copy Accel-Sim's gpu-app-collection runs: it counts
// without shared atomics, by tagging each write with the lane and retrying until it survives.
#define BANKS 16
#define H64_TB (4 * BANKS)
#define H64_BINS 64
#define H256_BINS 256
#define WARP_COUNT 6
#define H256_TB (WARP_COUNT * 32)
#define H256_MEM (WARP_COUNT * H256_BINS)
#define MERGE_TB 256

__device__ inline void add64(unsigned char *base, unsigned data)
{
    base[((data >> 2) & 0x3FU) * H64_TB]++;
    base[((data >> 10) & 0x3FU) * H64_TB]++;
    base[((data >> 18) & 0x3FU) * H64_TB]++;
    base[((data >> 26) & 0x3FU) * H64_TB]++;
}

extern "C" __global__ void histogram64Kernel(unsigned *d_Partial, uint4 *d_Data, unsigned dataCount)
{
    const unsigned tpos = ((threadIdx.x & ~(BANKS * 4 - 1)) << 0) | ((threadIdx.x & (BANKS - 1)) << 2)
                        | ((threadIdx.x & (BANKS * 3)) >> 4);
    __shared__ unsigned char s_Hist[H64_TB * H64_BINS];
    unsigned char *base = s_Hist + tpos;
#pragma unroll
    for (unsigned i = 0; i < H64_BINS / 4; i++)
        ((unsigned *)s_Hist)[threadIdx.x + i * H64_TB] = 0;
    __syncthreads();
    for (unsigned pos = blockIdx.x * blockDim.x + threadIdx.x; pos < dataCount; pos += blockDim.x * gridDim.x) {
        uint4 d = d_Data[pos];
        add64(base, d.x);
        add64(base, d.y);
        add64(base, d.z);
        add64(base, d.w);
    }
    __syncthreads();
    if (threadIdx.x < H64_BINS) {
        unsigned char *hb = s_Hist + threadIdx.x * H64_TB;
        unsigned sum = 0;
        unsigned pos = 4 * (threadIdx.x & (BANKS - 1));
#pragma unroll
        for (unsigned i = 0; i < H64_TB / 4; i++) {
            sum += hb[pos + 0] + hb[pos + 1] + hb[pos + 2] + hb[pos + 3];
            pos = (pos + 4) & (H64_TB - 1);
        }
        d_Partial[blockIdx.x * H64_BINS + threadIdx.x] = sum;
    }
}

// One block per bin adds that bin over all partial histograms, then a shared-memory tree.
template <unsigned BINS>
__device__ inline void merge_histogram(unsigned *d_Histogram, unsigned *d_Partial, unsigned count)
{
    __shared__ unsigned data[MERGE_TB];
    unsigned sum = 0;
    for (unsigned i = threadIdx.x; i < count; i += MERGE_TB)
        sum += d_Partial[blockIdx.x + i * BINS];
    data[threadIdx.x] = sum;
    for (unsigned stride = MERGE_TB / 2; stride > 0; stride >>= 1) {
        __syncthreads();
        if (threadIdx.x < stride)
            data[threadIdx.x] += data[threadIdx.x + stride];
    }
    if (threadIdx.x == 0)
        d_Histogram[blockIdx.x] = data[0];
}

extern "C" __global__ void mergeHistogram64Kernel(unsigned *d_Histogram, unsigned *d_Partial, unsigned count)
{
    merge_histogram<H64_BINS>(d_Histogram, d_Partial, count);
}

extern "C" __global__ void mergeHistogram256Kernel(unsigned *d_Histogram, unsigned *d_Partial, unsigned count)
{
    merge_histogram<H256_BINS>(d_Histogram, d_Partial, count);
}

#define TAG_MASK42 ((1U << 27) - 1U)

// Volatile read-modify-write, tagged with the writer's lane: lanes of a warp that hit the same bin
// store at once, one store survives, the others see a foreign tag and try again.
__device__ inline void add_byte42(volatile unsigned *warpHist, unsigned bin, unsigned tag)
{
    unsigned count;
    do {
        count = warpHist[bin] & TAG_MASK42;
        count = tag | (count + 1);
        warpHist[bin] = count;
    } while (warpHist[bin] != count);
}

template <bool TAGGED>
__device__ inline void add_byte(unsigned *warpHist, unsigned bin, unsigned tag)
{
    if (TAGGED)
        add_byte42(warpHist, bin, tag);
    else
        atomicAdd(warpHist + bin, 1);
}

// Per-warp sub-histograms, merged per block; TAGGED counts without shared atomics (SDK 4.2).
template <bool TAGGED>
__device__ inline void histogram256(unsigned *d_Partial, unsigned *d_Data, unsigned dataCount)
{
    __shared__ unsigned s_Hist[H256_MEM];
    unsigned *warpHist = s_Hist + (threadIdx.x >> 5) * H256_BINS;
#pragma unroll
    for (unsigned i = 0; i < H256_MEM / H256_TB; i++)
        s_Hist[threadIdx.x + i * H256_TB] = 0;
    const unsigned tag = threadIdx.x << 27;
    __syncthreads();
    for (unsigned pos = blockIdx.x * blockDim.x + threadIdx.x; pos < dataCount; pos += blockDim.x * gridDim.x) {
        unsigned d = d_Data[pos];
        add_byte<TAGGED>(warpHist, (d >> 0) & 0xFFU, tag);
        add_byte<TAGGED>(warpHist, (d >> 8) & 0xFFU, tag);
        add_byte<TAGGED>(warpHist, (d >> 16) & 0xFFU, tag);
        add_byte<TAGGED>(warpHist, (d >> 24) & 0xFFU, tag);
    }
    __syncthreads();
    for (unsigned bin = threadIdx.x; bin < H256_BINS; bin += H256_TB) {
        unsigned sum = 0;
        for (unsigned i = 0; i < WARP_COUNT; i++)
            sum += s_Hist[bin + i * H256_BINS] & (TAGGED ? TAG_MASK42 : 0xFFFFFFFFU);
        d_Partial[blockIdx.x * H256_BINS + bin] = sum;
    }
}

extern "C" __global__ void histogram256Kernel(unsigned *d_Partial, unsigned *d_Data, unsigned dataCount)
{
    histogram256<false>(d_Partial, d_Data, dataCount);
}

extern "C" __global__ void histogram256Kernel_sdk42(unsigned *d_Partial, unsigned *d_Data, unsigned dataCount)
{
    histogram256<true>(d_Partial, d_Data, dataCount);
}
