// PolyBench/GPU 3DConvolution as published: the host launches one 2D grid over (k, j) per interior
// plane i. The stencil names 15 terms of A, as the original does, several at the same address
// (the (i-1, j-1, k-1) and (i+1, j-1, k-1) neighbours appear three times each); the compiler loads
// each distinct address once, so a thread makes 11 distinct loads and one store.
extern "C" __global__ void conv3d_kernel(int ni, int nj, int nk, float *A, float *B, int i)
{
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    int j = blockIdx.y * blockDim.y + threadIdx.y;
    const float c11 = +2, c21 = +5, c31 = -8;
    const float c12 = -3, c22 = +6, c32 = -9;
    const float c13 = +4, c23 = +7, c33 = +10;
#define AT(p, q, r) A[(p) * (nk * nj) + (q) * nk + (r)]
    if (i < ni - 1 && j < nj - 1 && k < nk - 1 && i > 0 && j > 0 && k > 0) {
        B[i * (nk * nj) + j * nk + k] =
            c11 * AT(i - 1, j - 1, k - 1) + c13 * AT(i + 1, j - 1, k - 1)
            + c21 * AT(i - 1, j - 1, k - 1) + c23 * AT(i + 1, j - 1, k - 1)
            + c31 * AT(i - 1, j - 1, k - 1) + c33 * AT(i + 1, j - 1, k - 1)
            + c12 * AT(i, j - 1, k) + c22 * AT(i, j, k)
            + c32 * AT(i, j + 1, k) + c11 * AT(i - 1, j - 1, k + 1)
            + c13 * AT(i + 1, j - 1, k + 1) + c21 * AT(i - 1, j, k + 1)
            + c23 * AT(i + 1, j, k + 1) + c31 * AT(i - 1, j + 1, k + 1)
            + c33 * AT(i + 1, j + 1, k + 1);
    }
#undef AT
}
