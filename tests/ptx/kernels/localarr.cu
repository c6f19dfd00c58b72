// A per-thread local array indexed dynamically (forces .local memory): insertion sort of 8 values.
extern "C" __global__ void localsort(const int* in, int* out, int n) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n) return;
    int a[8];
    for (int i = 0; i < 8; ++i) a[i] = in[t * 8 + i];
    for (int i = 1; i < 8; ++i) {
        int key = a[i], j = i - 1;
        while (j >= 0 && a[j] > key) { a[j + 1] = a[j]; --j; }
        a[j + 1] = key;
    }
    for (int i = 0; i < 8; ++i) out[t * 8 + i] = a[i];
}
