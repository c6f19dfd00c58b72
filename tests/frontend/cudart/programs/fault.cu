// A kernel that writes far outside any allocation: the program sees an illegal-address error.
#include <cstdio>

__global__ void wild(int *p) { p[threadIdx.x + (1 << 28)] = 1; }

int main() {
    int *d;
    cudaMalloc(&d, 64);
    wild<<<1, 32>>>(d);
    cudaError_t launch = cudaGetLastError();
    cudaError_t sync = cudaDeviceSynchronize();
    cudaError_t after = cudaMemcpy(d, d, 4, cudaMemcpyDeviceToDevice);
    printf("launch %s sync %s after %s\n", cudaGetErrorName(launch), cudaGetErrorName(sync),
           cudaGetErrorName(after));
    return sync == cudaErrorIllegalAddress ? 0 : 1;
}
