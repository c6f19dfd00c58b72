// Copies, memsets, 2D copies, symbols, managed memory, streams, function attributes, occupancy,
// host callbacks, stream-ordered allocation, device properties programs test before they run.
#include <cstdio>
#include <cstring>

__constant__ int coeff[4];
__device__ int counter;
__device__ float table[8] = {1, 2, 3, 4, 5, 6, 7, 8};

__global__ void scale(int *data, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) { data[i] = data[i] * coeff[0] + coeff[1]; atomicAdd(&counter, 1); }
}
__global__ void rows(float *m, size_t pitch, int w, int h) {
    int x = threadIdx.x, y = blockIdx.x;
    if (x < w && y < h) { float *row = (float *)((char *)m + y * pitch); row[x] += table[x % 8]; }
}

static int calls = 0;
static void CUDART_CB on_stream(cudaStream_t, cudaError_t status, void *user) {
    if (status == cudaSuccess) calls += *(int *)user;
}
static void CUDART_CB on_host(void *user) { calls += 10 * *(int *)user; }

#define CHECK(cond, what) do { if (!(cond)) { printf("FAIL %s\n", what); fails++; } else printf("ok %s\n", what); } while (0)

int main() {
    int fails = 0;
    const int n = 300;
    int host[n], back[n];
    for (int i = 0; i < n; i++) host[i] = i;
    int *d, *d2;
    cudaMalloc(&d, n * sizeof(int)); cudaMalloc(&d2, n * sizeof(int));
    cudaMemset(d2, 0xFF, n * sizeof(int));
    cudaMemcpy(back, d2, n * sizeof(int), cudaMemcpyDeviceToHost);
    CHECK(back[0] == -1 && back[n - 1] == -1, "memset");
    int c[4] = {3, 7, 0, 0};
    CHECK(cudaMemcpyToSymbol(coeff, c, sizeof c) == cudaSuccess, "memcpy to constant symbol");
    int zero = 0;
    cudaMemcpyToSymbol(counter, &zero, sizeof zero);
    cudaStream_t s;
    cudaStreamCreate(&s);
    cudaMemcpyAsync(d, host, n * sizeof(int), cudaMemcpyHostToDevice, s);
    scale<<<(n + 63) / 64, 64, 0, s>>>(d, n);
    cudaMemcpyAsync(d2, d, n * sizeof(int), cudaMemcpyDeviceToDevice, s);
    cudaMemcpyAsync(back, d2, n * sizeof(int), cudaMemcpyDeviceToHost, s);
    cudaStreamSynchronize(s);
    int good = 1;
    for (int i = 0; i < n; i++) good &= back[i] == 3 * i + 7;
    CHECK(good, "kernel on a stream + device-to-device copy");
    int count = 0;
    cudaMemcpyFromSymbol(&count, counter, sizeof count);
    CHECK(count == n, "memcpy from __device__ symbol");
    float *tp = 0;
    size_t tsize = 0;
    cudaGetSymbolAddress((void **)&tp, table);
    cudaGetSymbolSize(&tsize, table);
    float t3 = 0;
    cudaMemcpy(&t3, tp + 3, sizeof t3, cudaMemcpyDeviceToHost);
    CHECK(tsize == 32 && t3 == 4.0f, "symbol address and size");
    // pitched 2D
    const int w = 20, h = 5;
    float hm[h][w], hr[h][w];
    for (int y = 0; y < h; y++) for (int x = 0; x < w; x++) hm[y][x] = 100 * y + x;
    float *dm; size_t pitch;
    cudaMallocPitch((void **)&dm, &pitch, w * sizeof(float), h);
    CHECK(pitch >= w * sizeof(float), "pitch");
    cudaMemcpy2D(dm, pitch, hm, w * sizeof(float), w * sizeof(float), h, cudaMemcpyHostToDevice);
    rows<<<h, 32>>>(dm, pitch, w, h);
    cudaMemcpy2D(hr, w * sizeof(float), dm, pitch, w * sizeof(float), h, cudaMemcpyDeviceToHost);
    good = 1;
    for (int y = 0; y < h; y++) for (int x = 0; x < w; x++) good &= hr[y][x] == hm[y][x] + (x % 8) + 1;
    CHECK(good, "memcpy2D + pitched kernel");
    cudaMemset2D(dm, pitch, 0, w * sizeof(float), h);
    cudaMemcpy2D(hr, w * sizeof(float), dm, pitch, w * sizeof(float), h, cudaMemcpyDeviceToHost);
    CHECK(hr[4][19] == 0.0f, "memset2D");
    // managed memory: the host writes, the kernel updates, the host reads the same pointer
    int *m;
    cudaMallocManaged(&m, n * sizeof(int));
    for (int i = 0; i < n; i++) m[i] = 2 * i;
    scale<<<(n + 63) / 64, 64>>>(m, n);
    cudaDeviceSynchronize();
    CHECK(m[10] == 67 && m[n - 1] == 3 * 2 * (n - 1) + 7, "managed memory");
    cudaFuncAttributes fa;
    CHECK(cudaFuncGetAttributes(&fa, scale) == cudaSuccess && fa.maxThreadsPerBlock == 1024 && fa.numRegs > 0,
          "cudaFuncGetAttributes");
    int blocks = 0;
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, scale, 256, 0);
    printf("occupancy blocks/SM at 256 threads: %d\n", blocks);
    CHECK(blocks >= 1 && blocks <= 8, "occupancy");
    size_t fr = 0, tot = 0;
    cudaMemGetInfo(&fr, &tot);
    CHECK(tot > 0 && fr <= tot, "cudaMemGetInfo");
    // a host callback runs after the stream's earlier work: the kernel's results are there
    cudaStream_t st;
    cudaStreamCreate(&st);
    int one = 1;
    scale<<<2, 256, 0, st>>>(d, n);
    CHECK(cudaStreamAddCallback(st, on_stream, &one, 0) == cudaSuccess
          && cudaLaunchHostFunc(st, on_host, &one) == cudaSuccess, "callbacks accepted");
    cudaStreamSynchronize(st);
    CHECK(calls == 11, "cudaStreamAddCallback and cudaLaunchHostFunc each ran once");
    // stream-ordered allocation from the default pool
    int pools = 0, overlap = 1;
    cudaDeviceGetAttribute(&pools, cudaDevAttrMemoryPoolsSupported, 0);
    cudaDeviceGetAttribute(&overlap, cudaDevAttrGpuOverlap, 0);
    CHECK(pools == 1 && overlap == 0, "memory pools supported, no copy/kernel overlap");
    cudaMemPool_t pool;
    unsigned long long threshold = ~0ULL, high = 0, back_threshold = 0;
    CHECK(cudaDeviceGetDefaultMemPool(&pool, 0) == cudaSuccess
          && cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold) == cudaSuccess
          && cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &back_threshold) == cudaSuccess
          && back_threshold == threshold, "default pool and its release threshold");
    int *a = NULL;
    CHECK(cudaMallocAsync(&a, 1 << 20, st) == cudaSuccess && a != NULL, "cudaMallocAsync");
    cudaMemsetAsync(a, 0, 1 << 20, st);
    cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemHigh, &high);
    CHECK(high >= (1u << 20) && cudaFreeAsync(a, st) == cudaSuccess, "high-water mark, cudaFreeAsync");
    cudaStreamDestroy(st);
    // zero-copy: a kernel updates page-locked host memory through its device pointer
    int *pinned = NULL, *mapped = NULL;
    cudaHostAlloc(&pinned, n * sizeof(int), cudaHostAllocMapped);
    for (int i = 0; i < n; i++) pinned[i] = i;
    CHECK(cudaHostGetDevicePointer(&mapped, pinned, 0) == cudaSuccess, "cudaHostGetDevicePointer");
    scale<<<2, 256>>>(mapped, n);
    cudaDeviceSynchronize();
    CHECK(pinned[0] == 7 && pinned[n - 1] == 3 * (n - 1) + 7, "a kernel writes mapped host memory");
    cudaPointerAttributes pa, ua;
    int unregistered = 0;
    cudaPointerGetAttributes(&pa, pinned);
    cudaPointerGetAttributes(&ua, &unregistered);
    CHECK(pa.type == cudaMemoryTypeHost && pa.devicePointer == pinned && ua.type == cudaMemoryTypeUnregistered,
          "pointer attributes: page-locked host, unregistered");
    CHECK(cudaFree(pinned) == cudaErrorInvalidValue, "cudaFree refuses page-locked memory");
    cudaGetLastError();
    CHECK(cudaFreeHost(pinned) == cudaSuccess && cudaFreeHost(&unregistered) == cudaErrorInvalidValue,
          "cudaFreeHost");
    cudaGetLastError();
    // registered host memory: copies work, a device pointer for kernels is refused
    static int reg[256];
    int *reg_dev = NULL;
    for (int i = 0; i < 256; i++) reg[i] = 5 * i;
    CHECK(cudaHostRegister(reg, sizeof reg, cudaHostRegisterMapped) == cudaSuccess, "cudaHostRegister");
    CHECK(cudaMemcpy(d, reg, sizeof reg, cudaMemcpyHostToDevice) == cudaSuccess &&
          cudaMemcpy(reg + 128, d, 128 * sizeof(int), cudaMemcpyDeviceToHost) == cudaSuccess &&
          reg[128] == 0 && reg[255] == 5 * 127, "copies with registered memory");
    CHECK(cudaHostGetDevicePointer(&reg_dev, reg, 0) == cudaErrorInvalidValue, "no device pointer for it");
    cudaGetLastError();
    CHECK(cudaHostUnregister(reg) == cudaSuccess, "cudaHostUnregister");
    cudaDeviceProp prop;
    cudaGetDeviceProperties(&prop, 0);
    CHECK(prop.cooperativeLaunch == 1 && prop.memoryPoolsSupported == 1 && prop.canMapHostMemory == 1,
          "cooperativeLaunch, memoryPoolsSupported, canMapHostMemory");
    CHECK(cudaFree(m) == cudaSuccess && cudaFree(d) == cudaSuccess, "cudaFree");
    CHECK(cudaGetLastError() == cudaSuccess, "no error left over");
    printf(fails ? "Test FAILED\n" : "Test PASSED\n");
    return fails ? 1 : 0;
}
