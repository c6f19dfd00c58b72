// 3mm: E = A * B, F = C * D, G = E * F; three launches of the same plain matrix product.
extern "C" __global__ void mm3_kernel(int ni, int nj, int nk, const float *A, const float *B, float *C)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i < ni && j < nj) {
        float acc = 0.0f;
        for (int k = 0; k < nk; k++)
            acc += A[i * nk + k] * B[k * nj + j];
        C[i * nj + j] = acc;
    }
}
