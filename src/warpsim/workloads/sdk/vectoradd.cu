// CUDA SDK vectorAdd: C = A + B, one element per thread, 256-thread blocks.
extern "C" __global__ void vectorAdd(const float *A, const float *B, float *C, int numElements)
{
    int i = blockDim.x * blockIdx.x + threadIdx.x;
    if (i < numElements)
        C[i] = A[i] + B[i] + 0.0f;
}

// SDK 4.2 (Accel-Sim's gpu-app-collection copy): the same sum without today's `+ 0.0f`.
extern "C" __global__ void VecAdd(const float *A, const float *B, float *C, int N)
{
    int i = blockDim.x * blockIdx.x + threadIdx.x;
    if (i < N)
        C[i] = A[i] + B[i];
}
