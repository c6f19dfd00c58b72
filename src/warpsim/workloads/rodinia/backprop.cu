// Back-propagation training of a one-hidden-layer perceptron, the input layer on the GPU:
// the forward kernel forms per-block partial sums of the hidden activations (16 inputs x 16
// hidden units per block, reduced in shared memory); the host finishes the forward pass and the
// output error; the adjust kernel updates the input-to-hidden weights with momentum.
#define H 16
extern "C" __global__ void bp_layerforward(int n_in, const float *input, const float *w, float *partial)
{
    __shared__ float in_s[H];
    __shared__ float prod[H][H];
    int tx = threadIdx.x, ty = threadIdx.y;    // tx: hidden unit, ty: input within block
    int i = blockIdx.x * H + ty;
    if (tx == 0)
        in_s[ty] = i < n_in ? input[i] : 0.0f;
    __syncthreads();
    prod[ty][tx] = i < n_in ? w[i * H + tx] * in_s[ty] : 0.0f;
    __syncthreads();
    for (int s = H / 2; s > 0; s >>= 1) {
        if (ty < s)
            prod[ty][tx] += prod[ty + s][tx];
        __syncthreads();
    }
    if (ty == 0)
        partial[blockIdx.x * H + tx] = prod[0][tx];
}

extern "C" __global__ void bp_adjust_weights(int n_in, const float *delta, const float *input, float *w,
                                            float *oldw, float eta, float momentum)
{
    int tx = threadIdx.x, ty = threadIdx.y;
    int i = blockIdx.x * H + ty;
    if (i < n_in) {
        int k = i * H + tx;
        float dw = eta * delta[tx] * input[i] + momentum * oldw[k];
        w[k] += dw;
        oldw[k] = dw;
    }
}
