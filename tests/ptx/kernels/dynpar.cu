// Dynamic parallelism (a kernel launching a kernel) beside a plain kernel in one module: only the
// launching kernel fails, with a message that names the feature. nvcc -ptx -rdc=true -arch=compute_75
__global__ void child(int *x) { x[threadIdx.x] += 1; }
extern "C" __global__ void parent(int *x) { if (threadIdx.x == 0) child<<<1, 32>>>(x); }
extern "C" __global__ void plain(int *x) { x[threadIdx.x] = 7; }
