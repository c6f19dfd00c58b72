// Vector addition C = A + B, one thread per element.
extern "C" __global__ void vecadd(int n, const float *A, const float *B, float *C)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        C[i] = A[i] + B[i];
}
