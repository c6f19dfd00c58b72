// Two kernels, three launches, no events: y = 2*x, then y += x twice; checked on the host.
// Used to compare a run-app timing document (cycles of all launches, summed) with a hardware CSV.
#include <cstdio>
#include <cstdlib>

__global__ void scale(const float *x, float *y, float a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i];
}

__global__ void accumulate(const float *x, float *y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] += x[i];
}

int main() {
    const int n = 2048;
    size_t bytes = n * sizeof(float);
    float *hx = (float *)malloc(bytes), *hy = (float *)malloc(bytes);
    for (int i = 0; i < n; i++) hx[i] = 0.25f * (i % 97);
    float *dx, *dy;
    cudaMalloc(&dx, bytes); cudaMalloc(&dy, bytes);
    cudaMemcpy(dx, hx, bytes, cudaMemcpyHostToDevice);
    scale<<<n / 256, 256>>>(dx, dy, 2.0f, n);
    accumulate<<<n / 256, 256>>>(dx, dy, n);
    accumulate<<<n / 128, 128>>>(dx, dy, n);
    cudaMemcpy(hy, dy, bytes, cudaMemcpyDeviceToHost);
    int bad = 0;
    for (int i = 0; i < n; i++) if (hy[i] != 4.0f * hx[i]) bad++;
    cudaFree(dx); cudaFree(dy);
    printf(bad ? "Test FAILED (%d wrong)\n" : "Test PASSED\n", bad);
    return bad ? 1 : 0;
}
