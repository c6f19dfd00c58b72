// Nearest neighbour: Euclidean distance from every (lat, lng) record to a target point;
// the host then picks the k smallest.
extern "C" __global__ void nn_distance(int n, const float2 *records, float *dist, float lat, float lng)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float2 r = records[i];
        float dy = r.x - lat, dx = r.y - lng;
        dist[i] = sqrtf(dy * dy + dx * dx);
    }
}
