// PageRank by pull-style power iteration over the transposed (in-edge) CSR graph:
// kernel 1 spreads each node's rank over its out-degree, kernel 2 gathers for each node.
extern "C" __global__ void pr_contrib(int n, const float *rank, const int *outdeg, float *contrib)
{
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v < n)
        contrib[v] = rank[v] / (float)outdeg[v];
}

extern "C" __global__ void pr_gather(int n, const int *in_ptr, const int *in_src, const float *contrib,
                                    float *rank, float damping)
{
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v < n) {
        float acc = 0.0f;
        for (int e = in_ptr[v]; e < in_ptr[v + 1]; e++)
            acc += contrib[in_src[e]];
        rank[v] = (1.0f - damping) / (float)n + damping * acc;
    }
}
