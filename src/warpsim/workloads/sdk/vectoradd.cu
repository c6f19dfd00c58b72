// CUDA SDK vectorAdd: C = A + B, one element per thread, 256-thread blocks.
extern "C" __global__ void vectorAdd(const float *A, const float *B, float *C, int numElements)
{
    int i = blockDim.x * blockIdx.x + threadIdx.x;
    if (i < numElements)
        C[i] = A[i] + B[i] + 0.0f;
}
