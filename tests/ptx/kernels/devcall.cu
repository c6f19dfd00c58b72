// A kernel calling a non-inlined device function (call.uni with .param blocks) and a recursive-free helper.
__device__ __noinline__ float poly(float x, int k) {
    float r = 1.0f;
    for (int i = 0; i < k; ++i) r = r * x + (float)i;
    return r;
}
__device__ __noinline__ int collatz_steps(unsigned int v) {
    int s = 0;
    while (v > 1) { v = (v & 1) ? 3 * v + 1 : v >> 1; ++s; }
    return s;
}
extern "C" __global__ void devcall(const float* x, float* y, int* steps, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] = poly(x[i], 1 + (i & 3));
        steps[i] = collatz_steps((unsigned int)i + 1u);
    }
}
