// Streamcluster-lite: the gain of opening a candidate facility x. For every point, the cost
// of serving it from x (weighted squared distance) against its current cost; the host opens x
// when the total saving beats the facility cost and reassigns the points that switch.
#define SB 256
extern "C" __global__ void sc_pgain(int npoints, int dim, const float *points, const float *weight,
                                   const float *cost, int x, float *delta, float *partial)
{
    __shared__ float save[SB];
    int tx = threadIdx.x;
    int i = blockIdx.x * SB + tx;
    float s = 0.0f;
    if (i < npoints) {
        float d = 0.0f;
        for (int k = 0; k < dim; k++) {
            float diff = points[i * dim + k] - points[x * dim + k];
            d += diff * diff;
        }
        float c = d * weight[i];
        delta[i] = c - cost[i];
        s = c < cost[i] ? cost[i] - c : 0.0f;
    }
    save[tx] = s;
    __syncthreads();
    for (int st = SB / 2; st > 0; st >>= 1) {
        if (tx < st)
            save[tx] += save[tx + st];
        __syncthreads();
    }
    if (tx == 0)
        partial[blockIdx.x] = save[0];
}
