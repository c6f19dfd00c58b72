// Vector add with a host self-check, device queries, events and error checks.
#include <cstdio>
#include <cstdlib>

__global__ void vecadd(const float *a, const float *b, float *c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

int main() {
    const int n = 5000;
    size_t bytes = n * sizeof(float);
    float *ha = (float *)malloc(bytes), *hb = (float *)malloc(bytes), *hc = (float *)malloc(bytes);
    for (int i = 0; i < n; i++) { ha[i] = i * 0.5f; hb[i] = 3.0f - i; }
    cudaDeviceProp prop;
    if (cudaGetDeviceProperties(&prop, 0) != cudaSuccess) return 2;
    int clock_khz = 0, sms = 0;
    cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    printf("device: %s cc %d.%d sms %d/%d warp %d clock %d kHz\n", prop.name, prop.major, prop.minor,
           prop.multiProcessorCount, sms, prop.warpSize, clock_khz);
    float *da, *db, *dc;
    cudaMalloc(&da, bytes); cudaMalloc(&db, bytes); cudaMalloc(&dc, bytes);
    cudaMemcpy(da, ha, bytes, cudaMemcpyHostToDevice);
    cudaMemcpy(db, hb, bytes, cudaMemcpyHostToDevice);
    cudaEvent_t start, stop;
    cudaEventCreate(&start); cudaEventCreate(&stop);
    cudaEventRecord(start);
    vecadd<<<(n + 127) / 128, 128>>>(da, db, dc, n);
    cudaEventRecord(stop);
    cudaError_t err = cudaGetLastError();
    if (err != cudaSuccess) { printf("launch failed: %s\n", cudaGetErrorString(err)); return 1; }
    cudaEventSynchronize(stop);
    float ms = -1.0f;
    cudaEventElapsedTime(&ms, start, stop);
    printf("elapsed_ms %.9f\n", ms);
    cudaMemcpy(hc, dc, bytes, cudaMemcpyDeviceToHost);
    int bad = 0;
    for (int i = 0; i < n; i++) if (hc[i] != ha[i] + hb[i]) bad++;
    cudaFree(da); cudaFree(db); cudaFree(dc);
    printf(bad ? "Test FAILED (%d wrong)\n" : "Test PASSED\n", bad);
    return bad ? 1 : 0;
}
