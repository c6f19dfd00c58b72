// CUDA SDK fastWalshTransform: radix-4 butterflies. fwtBatch2Kernel does one radix-4 pass over
// global memory for strides above 2^11; fwtBatch1Kernel finishes each 2^11 segment in shared memory
// (plus a radix-2 pass for odd log2 sizes); modulateKernel multiplies data by the kernel's spectrum.
extern "C" __global__ void fwtBatch1Kernel(float *d_Output, float *d_Input, int log2N)
{
    extern __shared__ float s_data[];
    const int N = 1 << log2N;
    const int base = blockIdx.x << log2N;
    float *src = d_Input + base;
    float *dst = d_Output + base;
    for (int pos = threadIdx.x; pos < N; pos += blockDim.x)
        s_data[pos] = src[pos];
    const int pos = threadIdx.x;
    for (int stride = N >> 2; stride > 0; stride >>= 2) {
        int lo = pos & (stride - 1);
        int i0 = ((pos - lo) << 2) + lo;
        int i1 = i0 + stride, i2 = i1 + stride, i3 = i2 + stride;
        __syncthreads();
        float d0 = s_data[i0], d1 = s_data[i1], d2 = s_data[i2], d3 = s_data[i3];
        float a = d0 + d2, b = d0 - d2, c = d1 + d3, e = d1 - d3;
        s_data[i0] = a + c;
        s_data[i1] = a - c;
        s_data[i2] = b + e;
        s_data[i3] = b - e;
    }
    if (log2N & 1) {
        __syncthreads();
        for (int p = threadIdx.x; p < N / 2; p += blockDim.x) {
            int i0 = p << 1, i1 = i0 + 1;
            float d0 = s_data[i0], d1 = s_data[i1];
            s_data[i0] = d0 + d1;
            s_data[i1] = d0 - d1;
        }
    }
    __syncthreads();
    for (int p = threadIdx.x; p < N; p += blockDim.x)
        dst[p] = s_data[p];
}

extern "C" __global__ void fwtBatch2Kernel(float *d_Output, float *d_Input, int stride)
{
    const int pos = blockIdx.x * blockDim.x + threadIdx.x;
    const int N = blockDim.x * gridDim.x * 4;
    float *src = d_Input + blockIdx.y * N;
    float *dst = d_Output + blockIdx.y * N;
    int lo = pos & (stride - 1);
    int i0 = ((pos - lo) << 2) + lo;
    int i1 = i0 + stride, i2 = i1 + stride, i3 = i2 + stride;
    float d0 = src[i0], d1 = src[i1], d2 = src[i2], d3 = src[i3];
    float a = d0 + d2, b = d0 - d2, c = d1 + d3, e = d1 - d3;
    dst[i0] = a + c;
    dst[i1] = a - c;
    dst[i2] = b + e;
    dst[i3] = b - e;
}

extern "C" __global__ void modulateKernel(float *d_A, float *d_B, int N)
{
    int tid = blockIdx.x * blockDim.x + threadIdx.x;
    int threads = blockDim.x * gridDim.x;
    float rcpN = 1.0f / (float)N;
    for (int pos = tid; pos < N; pos += threads)
        d_A[pos] *= d_B[pos] * rcpN;
}
