// An API warpsim does not implement: the program must see cudaErrorNotSupported, not crash.
#include <cstdio>

int main() {
    cudaGraph_t g;
    cudaError_t e = cudaGraphCreate(&g, 0);
    printf("cudaGraphCreate -> %d %s: %s\n", (int)e, cudaGetErrorName(e), cudaGetErrorString(e));
    cudaError_t last = cudaGetLastError();
    printf("last error -> %s, then %s\n", cudaGetErrorName(last), cudaGetErrorName(cudaGetLastError()));
    return e == cudaErrorNotSupported ? 0 : 1;
}
