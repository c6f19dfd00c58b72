// CUDA SDK scan: exclusive prefix sums of uint arrays. scanExclusiveShared scans 1024-element
// segments (uint4 per thread, 256 threads); for longer arrays scanExclusiveShared2 scans the
// segment totals and uniformUpdate adds them back.
#define TB 256

__device__ inline unsigned scan1Inclusive(unsigned v, volatile unsigned *s, unsigned size)
{
    unsigned pos = 2 * threadIdx.x - (threadIdx.x & (size - 1));
    s[pos] = 0;
    pos += size;
    s[pos] = v;
    for (unsigned offset = 1; offset < size; offset <<= 1) {
        __syncthreads();
        unsigned t = s[pos] + s[pos - offset];
        __syncthreads();
        s[pos] = t;
    }
    return s[pos];
}

__device__ inline unsigned scan1Exclusive(unsigned v, volatile unsigned *s, unsigned size)
{
    return scan1Inclusive(v, s, size) - v;
}

__device__ inline uint4 scan4Exclusive(uint4 in, volatile unsigned *s, unsigned size)
{
    uint4 v = in;
    v.y += v.x;
    v.z += v.y;
    v.w += v.z;
    unsigned off = scan1Exclusive(v.w, s, size / 4);
    v.x += off - in.x;
    v.y += off - in.y;
    v.z += off - in.z;
    v.w += off - in.w;
    return v;
}

extern "C" __global__ void scanExclusiveShared(uint4 *d_Dst, uint4 *d_Src, unsigned size)
{
    __shared__ unsigned s[2 * TB];
    unsigned pos = blockIdx.x * blockDim.x + threadIdx.x;
    uint4 v = d_Src[pos];
    d_Dst[pos] = scan4Exclusive(v, s, size);
}

extern "C" __global__ void scanExclusiveShared2(unsigned *d_Buf, unsigned *d_Dst, unsigned *d_Src, unsigned N,
                                                unsigned arrayLength)
{
    __shared__ unsigned s[2 * TB];
    unsigned pos = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned v = 0;
    if (pos < N)
        v = d_Dst[(4 * TB) - 1 + (4 * TB) * pos] + d_Src[(4 * TB) - 1 + (4 * TB) * pos];
    unsigned out = scan1Exclusive(v, s, arrayLength);
    if (pos < N)
        d_Buf[pos] = out;
}

extern "C" __global__ void uniformUpdate(uint4 *d_Data, unsigned *d_Buffer)
{
    __shared__ unsigned buf;
    unsigned pos = blockIdx.x * blockDim.x + threadIdx.x;
    if (threadIdx.x == 0)
        buf = d_Buffer[blockIdx.x];
    __syncthreads();
    uint4 v = d_Data[pos];
    v.x += buf;
    v.y += buf;
    v.z += buf;
    v.w += buf;
    d_Data[pos] = v;
}
