// CUDA SDK mergeSort (ascending, the sample's DIR = 1): 1024-element chunks sorted in shared memory
// by binary-search merging (mergeSortSharedKernel), then per doubling stride: sample ranks every 128
// elements (generateSampleRanksKernel), merge the rank lists into interval limits
// (mergeRanksAndIndicesKernel, once for A and once for B), and merge each elementary interval pair
// in shared memory (mergeElementaryIntervalsKernel, 128 threads).
#define SHARED_SIZE_LIMIT 1024U
#define SAMPLE_STRIDE 128
#define W (sizeof(unsigned) * 8)

__device__ inline unsigned nextPowerOfTwo(unsigned x) { return 1U << (W - __clz(x - 1)); }

__device__ inline unsigned getSampleCount(unsigned L)
{
    return (L / SAMPLE_STRIDE) + ((L % SAMPLE_STRIDE) ? 1 : 0);
}

__device__ inline unsigned binarySearchInclusive(unsigned val, unsigned *data, unsigned L, unsigned stride)
{
    if (L == 0)
        return 0;
    unsigned pos = 0;
    for (; stride > 0; stride >>= 1) {
        unsigned newPos = umin(pos + stride, L);
        if (data[newPos - 1] <= val)
            pos = newPos;
    }
    return pos;
}

__device__ inline unsigned binarySearchExclusive(unsigned val, unsigned *data, unsigned L, unsigned stride)
{
    if (L == 0)
        return 0;
    unsigned pos = 0;
    for (; stride > 0; stride >>= 1) {
        unsigned newPos = umin(pos + stride, L);
        if (data[newPos - 1] < val)
            pos = newPos;
    }
    return pos;
}

extern "C" __global__ void mergeSortSharedKernel(unsigned *d_DstKey, unsigned *d_DstVal, unsigned *d_SrcKey,
                                                 unsigned *d_SrcVal, unsigned arrayLength)
{
    __shared__ unsigned s_key[SHARED_SIZE_LIMIT];
    __shared__ unsigned s_val[SHARED_SIZE_LIMIT];
    d_SrcKey += blockIdx.x * SHARED_SIZE_LIMIT + threadIdx.x;
    d_SrcVal += blockIdx.x * SHARED_SIZE_LIMIT + threadIdx.x;
    d_DstKey += blockIdx.x * SHARED_SIZE_LIMIT + threadIdx.x;
    d_DstVal += blockIdx.x * SHARED_SIZE_LIMIT + threadIdx.x;
    s_key[threadIdx.x + 0] = d_SrcKey[0];
    s_val[threadIdx.x + 0] = d_SrcVal[0];
    s_key[threadIdx.x + (SHARED_SIZE_LIMIT / 2)] = d_SrcKey[(SHARED_SIZE_LIMIT / 2)];
    s_val[threadIdx.x + (SHARED_SIZE_LIMIT / 2)] = d_SrcVal[(SHARED_SIZE_LIMIT / 2)];
    for (unsigned stride = 1; stride < arrayLength; stride <<= 1) {
        unsigned lPos = threadIdx.x & (stride - 1);
        unsigned *baseKey = s_key + 2 * (threadIdx.x - lPos);
        unsigned *baseVal = s_val + 2 * (threadIdx.x - lPos);
        __syncthreads();
        unsigned keyA = baseKey[lPos + 0], valA = baseVal[lPos + 0];
        unsigned keyB = baseKey[lPos + stride], valB = baseVal[lPos + stride];
        unsigned posA = binarySearchExclusive(keyA, baseKey + stride, stride, stride) + lPos;
        unsigned posB = binarySearchInclusive(keyB, baseKey + 0, stride, stride) + lPos;
        __syncthreads();
        baseKey[posA] = keyA;
        baseVal[posA] = valA;
        baseKey[posB] = keyB;
        baseVal[posB] = valB;
    }
    __syncthreads();
    d_DstKey[0] = s_key[threadIdx.x + 0];
    d_DstVal[0] = s_val[threadIdx.x + 0];
    d_DstKey[(SHARED_SIZE_LIMIT / 2)] = s_key[threadIdx.x + (SHARED_SIZE_LIMIT / 2)];
    d_DstVal[(SHARED_SIZE_LIMIT / 2)] = s_val[threadIdx.x + (SHARED_SIZE_LIMIT / 2)];
}

extern "C" __global__ void generateSampleRanksKernel(unsigned *d_RanksA, unsigned *d_RanksB, unsigned *d_SrcKey,
                                                     unsigned stride, unsigned N, unsigned threadCount)
{
    unsigned pos = blockIdx.x * blockDim.x + threadIdx.x;
    if (pos >= threadCount)
        return;
    const unsigned i = pos & ((stride / SAMPLE_STRIDE) - 1);
    const unsigned segmentBase = (pos - i) * (2 * SAMPLE_STRIDE);
    d_SrcKey += segmentBase;
    d_RanksA += segmentBase / SAMPLE_STRIDE;
    d_RanksB += segmentBase / SAMPLE_STRIDE;
    const unsigned elemA = stride;
    const unsigned elemB = umin(stride, N - segmentBase - stride);
    const unsigned samplesA = getSampleCount(elemA);
    const unsigned samplesB = getSampleCount(elemB);
    if (i < samplesA) {
        d_RanksA[i] = i * SAMPLE_STRIDE;
        d_RanksB[i] = binarySearchExclusive(d_SrcKey[i * SAMPLE_STRIDE], d_SrcKey + stride, elemB,
                                            nextPowerOfTwo(elemB));
    }
    if (i < samplesB) {
        d_RanksB[(stride / SAMPLE_STRIDE) + i] = i * SAMPLE_STRIDE;
        d_RanksA[(stride / SAMPLE_STRIDE) + i] = binarySearchInclusive(d_SrcKey[stride + i * SAMPLE_STRIDE],
                                                                       d_SrcKey + 0, elemA, nextPowerOfTwo(elemA));
    }
}

extern "C" __global__ void mergeRanksAndIndicesKernel(unsigned *d_Limits, unsigned *d_Ranks, unsigned stride,
                                                      unsigned N, unsigned threadCount)
{
    unsigned pos = blockIdx.x * blockDim.x + threadIdx.x;
    if (pos >= threadCount)
        return;
    const unsigned i = pos & ((stride / SAMPLE_STRIDE) - 1);
    const unsigned segmentBase = (pos - i) * (2 * SAMPLE_STRIDE);
    d_Ranks += (pos - i) * 2;
    d_Limits += (pos - i) * 2;
    const unsigned elemA = stride;
    const unsigned elemB = umin(stride, N - segmentBase - stride);
    const unsigned samplesA = getSampleCount(elemA);
    const unsigned samplesB = getSampleCount(elemB);
    if (i < samplesA) {
        unsigned dst = binarySearchExclusive(d_Ranks[i], d_Ranks + samplesA, samplesB, nextPowerOfTwo(samplesB)) + i;
        d_Limits[dst] = d_Ranks[i];
    }
    if (i < samplesB) {
        unsigned dst = binarySearchInclusive(d_Ranks[samplesA + i], d_Ranks, samplesA, nextPowerOfTwo(samplesA)) + i;
        d_Limits[dst] = d_Ranks[samplesA + i];
    }
}

extern "C" __global__ void mergeElementaryIntervalsKernel(unsigned *d_DstKey, unsigned *d_DstVal,
                                                          unsigned *d_SrcKey, unsigned *d_SrcVal,
                                                          unsigned *d_LimitsA, unsigned *d_LimitsB,
                                                          unsigned stride, unsigned N)
{
    __shared__ unsigned s_key[2 * SAMPLE_STRIDE];
    __shared__ unsigned s_val[2 * SAMPLE_STRIDE];
    const unsigned intervalI = blockIdx.x & ((2 * stride) / SAMPLE_STRIDE - 1);
    const unsigned segmentBase = (blockIdx.x - intervalI) * SAMPLE_STRIDE;
    d_SrcKey += segmentBase;
    d_SrcVal += segmentBase;
    d_DstKey += segmentBase;
    d_DstVal += segmentBase;
    __shared__ unsigned startSrcA, startSrcB, lenSrcA, lenSrcB, startDstA, startDstB;
    if (threadIdx.x == 0) {
        unsigned elemA = stride;
        unsigned elemB = umin(stride, N - segmentBase - stride);
        unsigned samples = getSampleCount(elemA) + getSampleCount(elemB);
        startSrcA = d_LimitsA[blockIdx.x];
        startSrcB = d_LimitsB[blockIdx.x];
        unsigned endSrcA = (intervalI + 1 < samples) ? d_LimitsA[blockIdx.x + 1] : elemA;
        unsigned endSrcB = (intervalI + 1 < samples) ? d_LimitsB[blockIdx.x + 1] : elemB;
        lenSrcA = endSrcA - startSrcA;
        lenSrcB = endSrcB - startSrcB;
        startDstA = startSrcA + startSrcB;
        startDstB = startDstA + lenSrcA;
    }
    __syncthreads();
    if (threadIdx.x < lenSrcA) {
        s_key[threadIdx.x + 0] = d_SrcKey[0 + startSrcA + threadIdx.x];
        s_val[threadIdx.x + 0] = d_SrcVal[0 + startSrcA + threadIdx.x];
    }
    if (threadIdx.x < lenSrcB) {
        s_key[threadIdx.x + SAMPLE_STRIDE] = d_SrcKey[stride + startSrcB + threadIdx.x];
        s_val[threadIdx.x + SAMPLE_STRIDE] = d_SrcVal[stride + startSrcB + threadIdx.x];
    }
    __syncthreads();
    // merge(): both halves find their destinations by binary search, then write back in place
    unsigned keyA, valA, keyB, valB, dstPosA, dstPosB;
    if (threadIdx.x < lenSrcA) {
        keyA = s_key[threadIdx.x];
        valA = s_val[threadIdx.x];
        dstPosA = binarySearchExclusive(keyA, s_key + SAMPLE_STRIDE, lenSrcB, SAMPLE_STRIDE) + threadIdx.x;
    }
    if (threadIdx.x < lenSrcB) {
        keyB = s_key[SAMPLE_STRIDE + threadIdx.x];
        valB = s_val[SAMPLE_STRIDE + threadIdx.x];
        dstPosB = binarySearchInclusive(keyB, s_key, lenSrcA, SAMPLE_STRIDE) + threadIdx.x;
    }
    __syncthreads();
    if (threadIdx.x < lenSrcA) {
        s_key[dstPosA] = keyA;
        s_val[dstPosA] = valA;
    }
    if (threadIdx.x < lenSrcB) {
        s_key[dstPosB] = keyB;
        s_val[dstPosB] = valB;
    }
    __syncthreads();
    if (threadIdx.x < lenSrcA) {
        d_DstKey[startDstA + threadIdx.x] = s_key[threadIdx.x];
        d_DstVal[startDstA + threadIdx.x] = s_val[threadIdx.x];
    }
    if (threadIdx.x < lenSrcB) {
        d_DstKey[startDstB + threadIdx.x] = s_key[lenSrcA + threadIdx.x];
        d_DstVal[startDstB + threadIdx.x] = s_val[lenSrcA + threadIdx.x];
    }
}
