// CUDA SDK sortingNetworks (bitonic sort of key/value pairs): arrays up to 1024 elements sort in
// shared memory (bitonicSortShared, 512 threads per 1024 elements); longer ones first sort 1024-
// element chunks in alternating directions (bitonicSortShared1), then merge with global-memory
// passes for strides >= 1024 (bitonicMergeGlobal) and a shared-memory pass below (bitonicMergeShared).
#define SHARED_SIZE_LIMIT 1024U

__device__ inline void Comparator(unsigned &keyA, unsigned &valA, unsigned &keyB, unsigned &valB, unsigned dir)
{
    if ((keyA > keyB) == dir) {
        unsigned t = keyA;
        keyA = keyB;
        keyB = t;
        t = valA;
        valA = valB;
        valB = t;
    }
}

#define LOAD_TILE()                                                                                  \
    __shared__ unsigned s_key[SHARED_SIZE_LIMIT];                                                    \
    __shared__ unsigned s_val[SHARED_SIZE_LIMIT];                                                    \
    d_SrcKey += blockIdx.x * SHARED_SIZE_LIMIT + threadIdx.x;                                        \
    d_SrcVal += blockIdx.x * SHARED_SIZE_LIMIT + threadIdx.x;                                        \
    d_DstKey += blockIdx.x * SHARED_SIZE_LIMIT + threadIdx.x;                                        \
    d_DstVal += blockIdx.x * SHARED_SIZE_LIMIT + threadIdx.x;                                        \
    s_key[threadIdx.x + 0] = d_SrcKey[0];                                                            \
    s_val[threadIdx.x + 0] = d_SrcVal[0];                                                            \
    s_key[threadIdx.x + (SHARED_SIZE_LIMIT / 2)] = d_SrcKey[(SHARED_SIZE_LIMIT / 2)];                \
    s_val[threadIdx.x + (SHARED_SIZE_LIMIT / 2)] = d_SrcVal[(SHARED_SIZE_LIMIT / 2)];

#define STORE_TILE()                                                                                 \
    __syncthreads();                                                                                 \
    d_DstKey[0] = s_key[threadIdx.x + 0];                                                            \
    d_DstVal[0] = s_val[threadIdx.x + 0];                                                            \
    d_DstKey[(SHARED_SIZE_LIMIT / 2)] = s_key[threadIdx.x + (SHARED_SIZE_LIMIT / 2)];                \
    d_DstVal[(SHARED_SIZE_LIMIT / 2)] = s_val[threadIdx.x + (SHARED_SIZE_LIMIT / 2)];

#define STAGE(stride, d)                                                                             \
    {                                                                                                \
        __syncthreads();                                                                             \
        unsigned pos = 2 * threadIdx.x - (threadIdx.x & ((stride) - 1));                             \
        Comparator(s_key[pos + 0], s_val[pos + 0], s_key[pos + (stride)], s_val[pos + (stride)], d); \
    }

extern "C" __global__ void bitonicSortShared(unsigned *d_DstKey, unsigned *d_DstVal, unsigned *d_SrcKey,
                                             unsigned *d_SrcVal, unsigned arrayLength, unsigned dir)
{
    LOAD_TILE()
    for (unsigned size = 2; size < arrayLength; size <<= 1) {
        unsigned ddd = dir ^ ((threadIdx.x & (size / 2)) != 0);
        for (unsigned stride = size / 2; stride > 0; stride >>= 1)
            STAGE(stride, ddd)
    }
    for (unsigned stride = arrayLength / 2; stride > 0; stride >>= 1)
        STAGE(stride, dir)
    STORE_TILE()
}

extern "C" __global__ void bitonicSortShared1(unsigned *d_DstKey, unsigned *d_DstVal, unsigned *d_SrcKey,
                                              unsigned *d_SrcVal)
{
    LOAD_TILE()
    for (unsigned size = 2; size < SHARED_SIZE_LIMIT; size <<= 1) {
        unsigned ddd = (threadIdx.x & (size / 2)) != 0;
        for (unsigned stride = size / 2; stride > 0; stride >>= 1)
            STAGE(stride, ddd)
    }
    unsigned ddd = blockIdx.x & 1;
    for (unsigned stride = SHARED_SIZE_LIMIT / 2; stride > 0; stride >>= 1)
        STAGE(stride, ddd)
    STORE_TILE()
}

extern "C" __global__ void bitonicMergeGlobal(unsigned *d_DstKey, unsigned *d_DstVal, unsigned *d_SrcKey,
                                              unsigned *d_SrcVal, unsigned arrayLength, unsigned size,
                                              unsigned stride, unsigned dir)
{
    unsigned g = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned comparatorI = g & (arrayLength / 2 - 1);
    unsigned ddd = dir ^ ((comparatorI & (size / 2)) != 0);
    unsigned pos = 2 * g - (g & (stride - 1));
    unsigned keyA = d_SrcKey[pos + 0], valA = d_SrcVal[pos + 0];
    unsigned keyB = d_SrcKey[pos + stride], valB = d_SrcVal[pos + stride];
    Comparator(keyA, valA, keyB, valB, ddd);
    d_DstKey[pos + 0] = keyA;
    d_DstVal[pos + 0] = valA;
    d_DstKey[pos + stride] = keyB;
    d_DstVal[pos + stride] = valB;
}

extern "C" __global__ void bitonicMergeShared(unsigned *d_DstKey, unsigned *d_DstVal, unsigned *d_SrcKey,
                                              unsigned *d_SrcVal, unsigned arrayLength, unsigned size,
                                              unsigned dir)
{
    LOAD_TILE()
    unsigned comparatorI = __umul24(blockIdx.x, blockDim.x) + threadIdx.x & ((arrayLength / 2) - 1);
    unsigned ddd = dir ^ ((comparatorI & (size / 2)) != 0);
    for (unsigned stride = SHARED_SIZE_LIMIT / 2; stride > 0; stride >>= 1)
        STAGE(stride, ddd)
    STORE_TILE()
}
