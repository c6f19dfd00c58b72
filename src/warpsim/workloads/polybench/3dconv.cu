// 3D convolution: the host loops over the outer plane i = 1 .. NI-2 and launches one 2D grid
// over (k, j) per plane. Each output mixes 11 neighbours from planes i-1, i and i+1.
extern "C" __global__ void conv3d_kernel(int ni, int nj, int nk, const float *A, float *B, int i)
{
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    int j = blockIdx.y * blockDim.y + threadIdx.y;
#define IDX(a, b, c) (((a) * nj + (b)) * nk + (c))
    if (i > 0 && j > 0 && k > 0 && i < ni - 1 && j < nj - 1 && k < nk - 1) {
        B[IDX(i, j, k)] = 2.0f * A[IDX(i - 1, j - 1, k - 1)] + 4.0f * A[IDX(i + 1, j - 1, k - 1)]
                        + 5.0f * A[IDX(i - 1, j, k - 1)] + 7.0f * A[IDX(i + 1, j, k - 1)]
                        - 8.0f * A[IDX(i - 1, j + 1, k - 1)] + 10.0f * A[IDX(i + 1, j + 1, k - 1)]
                        - 3.0f * A[IDX(i, j - 1, k)] + 6.0f * A[IDX(i, j, k)] - 9.0f * A[IDX(i, j + 1, k)]
                        + 2.0f * A[IDX(i - 1, j - 1, k + 1)] + 4.0f * A[IDX(i + 1, j + 1, k + 1)];
    }
#undef IDX
}
