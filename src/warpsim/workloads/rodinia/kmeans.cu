// K-means assignment step: each thread finds the nearest centre of one point. Features are
// stored feature-major (features[f * npoints + p]) so that neighbouring threads read
// neighbouring words; the host recomputes the centres between launches.
extern "C" __global__ void kmeans_assign(int npoints, int nfeatures, int nclusters, const float *features,
                                        const float *clusters, int *membership)
{
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= npoints)
        return;
    int best = 0;
    float best_d = 3.402823466e+38f;
    for (int c = 0; c < nclusters; c++) {
        float d = 0.0f;
        for (int f = 0; f < nfeatures; f++) {
            float diff = features[f * npoints + p] - clusters[c * nfeatures + f];
            d += diff * diff;
        }
        if (d < best_d) {
            best_d = d;
            best = c;
        }
    }
    membership[p] = best;
}
