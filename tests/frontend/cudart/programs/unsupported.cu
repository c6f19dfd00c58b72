// An API warpsim does not implement: the program must see cudaErrorNotSupported, not crash.
#include <cstdio>

int main() {
    void *d = nullptr;
    cudaMalloc(&d, 256);
    cudaIpcMemHandle_t h;
    cudaError_t e = cudaIpcGetMemHandle(&h, d);
    printf("cudaIpcGetMemHandle -> %d %s: %s\n", (int)e, cudaGetErrorName(e), cudaGetErrorString(e));
    cudaError_t last = cudaGetLastError();
    printf("last error -> %s, then %s\n", cudaGetErrorName(last), cudaGetErrorName(cudaGetLastError()));
    return e == cudaErrorNotSupported ? 0 : 1;
}
