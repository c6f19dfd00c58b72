// HotSpot-style transient thermal simulation: one explicit time step per launch over a
// rows x cols grid (16x16 tiles staged in shared memory, edges clamped to the border cell).
#define TILE 16
extern "C" __global__ void hotspot_step(int rows, int cols, const float *power, const float *temp_in,
                                       float *temp_out, float cap_1, float rx_1, float ry_1, float rz_1,
                                       float amb)
{
    __shared__ float t[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int c = blockIdx.x * TILE + tx;
    int r = blockIdx.y * TILE + ty;
    bool inside = r < rows && c < cols;
    if (inside)
        t[ty][tx] = temp_in[r * cols + c];
    __syncthreads();
    if (!inside)
        return;
    float tc = t[ty][tx];
    int rn = r > 0 ? r - 1 : r, rs = r < rows - 1 ? r + 1 : r;
    int cw = c > 0 ? c - 1 : c, ce = c < cols - 1 ? c + 1 : c;
    float tn = (ty > 0 && rn == r - 1) ? t[ty - 1][tx] : temp_in[rn * cols + c];
    float ts = (ty < TILE - 1 && rs == r + 1) ? t[ty + 1][tx] : temp_in[rs * cols + c];
    float tw = (tx > 0 && cw == c - 1) ? t[ty][tx - 1] : temp_in[r * cols + cw];
    float te = (tx < TILE - 1 && ce == c + 1) ? t[ty][tx + 1] : temp_in[r * cols + ce];
    temp_out[r * cols + c] = tc + cap_1 * (power[r * cols + c] + (ts + tn - 2.0f * tc) * ry_1
                                           + (te + tw - 2.0f * tc) * rx_1 + (amb - tc) * rz_1);
}
