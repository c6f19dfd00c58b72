// Blocked LU decomposition (no pivoting) with 16x16 tiles, three kernels per block step:
// factor the diagonal tile, solve the perimeter row/column tiles against it, update the
// trailing tiles with one tile product each.
#define T 16
extern "C" __global__ void lud_diagonal(int n, float *a, int off)
{
    __shared__ float s[T][T];
    int tx = threadIdx.x;
    for (int i = 0; i < T; i++)
        s[i][tx] = a[(off + i) * n + off + tx];
    __syncthreads();
    for (int k = 0; k < T - 1; k++) {
        if (tx > k)
            s[tx][k] /= s[k][k];
        __syncthreads();
        if (tx > k)
            for (int j = k + 1; j < T; j++)
                s[tx][j] -= s[tx][k] * s[k][j];
        __syncthreads();
    }
    for (int i = 0; i < T; i++)
        a[(off + i) * n + off + tx] = s[i][tx];
}

extern "C" __global__ void lud_perimeter(int n, float *a, int off)
{
    __shared__ float d[T][T];
    __shared__ float row[T][T];   // tile right of the diagonal: becomes U
    __shared__ float col[T][T];   // tile below the diagonal: becomes L
    int tx = threadIdx.x;         // 2*T threads
    int t = off + (blockIdx.x + 1) * T;
    int c = tx < T ? tx : tx - T;
    for (int i = 0; i < T; i++) {
        if (tx < T) {
            d[i][c] = a[(off + i) * n + off + c];
            row[i][c] = a[(off + i) * n + t + c];
        } else {
            col[i][c] = a[(t + i) * n + off + c];
        }
    }
    __syncthreads();
    if (tx < T) {                 // column c of row tile: forward substitution with unit-lower L
        for (int i = 1; i < T; i++)
            for (int k = 0; k < i; k++)
                row[i][c] -= d[i][k] * row[k][c];
    } else {                      // row c of column tile: solve x U = a
        for (int j = 0; j < T; j++) {
            for (int k = 0; k < j; k++)
                col[c][j] -= col[c][k] * d[k][j];
            col[c][j] /= d[j][j];
        }
    }
    __syncthreads();
    for (int i = 0; i < T; i++) {
        if (tx < T)
            a[(off + i) * n + t + c] = row[i][c];
        else
            a[(t + i) * n + off + c] = col[i][c];
    }
}

extern "C" __global__ void lud_internal(int n, float *a, int off)
{
    __shared__ float l[T][T];
    __shared__ float u[T][T];
    int tx = threadIdx.x, ty = threadIdx.y;
    int r = off + (blockIdx.y + 1) * T + ty;
    int c = off + (blockIdx.x + 1) * T + tx;
    l[ty][tx] = a[r * n + off + tx];
    u[ty][tx] = a[(off + ty) * n + c];
    __syncthreads();
    float acc = 0.0f;
    for (int k = 0; k < T; k++)
        acc += l[ty][k] * u[k][tx];
    a[r * n + c] -= acc;
}
