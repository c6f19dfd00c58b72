// CUDA graphs in an unmodified program: a graph built node by node (memset, kernel, 1-D copy, host
// node, empty node, a diamond of dependencies), run three times; a kernel node's parameters changed
// in the executable graph; a graph captured from two streams joined by events, with stream-ordered
// allocation; the generic cudaGraphAddNode. Every result is checked on the host.
#include <cstdio>
#include <cuda_runtime.h>

__global__ void add(int *x, int n, int v) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] += v + i;
}
__global__ void scale(int *x, int n, int k) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= k;
}

// one step of a countdown: the while node runs it again as long as it sets its handle to non-zero
__global__ void countdown(int *c, int *steps, cudaGraphConditionalHandle h) {
  if (threadIdx.x == 0) {
    *c -= 1;
    *steps += 1;
    cudaGraphSetConditional(h, *c > 0);
  }
}
__global__ void pick(const int *c, cudaGraphConditionalHandle h) {
  if (threadIdx.x == 0) cudaGraphSetConditional(h, *c % 3);
}

static int g_host_calls = 0;
static void CUDART_CB on_host(void *p) { g_host_calls += *(int *)p; }

#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
  printf("%s failed: %s\n", #x, cudaGetErrorString(e_)); return 1; } } while (0)

int main() {
  const int n = 300;
  int *d, *h;
  int bad = 0;
  CHECK(cudaMalloc(&d, n * sizeof(int)));
  CHECK(cudaMallocHost(&h, n * sizeof(int)));

  // --- by hand: memset -> {add, empty} -> copy -> host node --------------------------------------
  cudaGraph_t g;
  CHECK(cudaGraphCreate(&g, 0));
  cudaGraphNode_t set, kern, empty, copy, host;
  cudaMemsetParams mp = {};
  mp.dst = d; mp.value = 5; mp.elementSize = 4; mp.width = n; mp.height = 1;
  CHECK(cudaGraphAddMemsetNode(&set, g, NULL, 0, &mp));
  int v = 10, nn = n;
  void *args[] = {&d, &nn, &v};
  cudaKernelNodeParams kp = {};
  kp.func = (void *)add; kp.gridDim = dim3(3); kp.blockDim = dim3(128); kp.kernelParams = args;
  CHECK(cudaGraphAddKernelNode(&kern, g, &set, 1, &kp));
  v = 1000;                                     // the node copied v = 10 when it was made
  CHECK(cudaGraphAddEmptyNode(&empty, g, &set, 1));
  cudaGraphNode_t both[] = {kern, empty};
  CHECK(cudaGraphAddMemcpyNode1D(&copy, g, both, 2, h, d, n * sizeof(int), cudaMemcpyDeviceToHost));
  int incr = 7;
  cudaHostNodeParams hp = {on_host, &incr};
  CHECK(cudaGraphAddHostNode(&host, g, &copy, 1, &hp));
  size_t count = 0;
  CHECK(cudaGraphGetNodes(g, NULL, &count));
  if (count != 5) { printf("graph has %zu nodes, not 5\n", count); ++bad; }
  cudaGraphExec_t ex;
  CHECK(cudaGraphInstantiate(&ex, g, 0));
  for (int r = 0; r < 3; ++r) {
    for (int i = 0; i < n; ++i) h[i] = -1;
    CHECK(cudaGraphLaunch(ex, 0));
    CHECK(cudaStreamSynchronize(0));
    for (int i = 0; i < n; ++i) bad += h[i] != 5 + 10 + i;      // the memset node resets d each run
  }
  if (g_host_calls != 21) { printf("host node ran %d/7 times\n", g_host_calls); ++bad; }
  v = 20;                                        // new parameters for the executable graph only
  kp.kernelParams = args;
  CHECK(cudaGraphExecKernelNodeSetParams(ex, kern, &kp));
  CHECK(cudaGraphLaunch(ex, 0));
  CHECK(cudaDeviceSynchronize());
  for (int i = 0; i < n; ++i) bad += h[i] != 5 + 20 + i;
  CHECK(cudaGraphExecDestroy(ex));
  CHECK(cudaGraphDestroy(g));

  // --- captured from two streams: copy in, add on s1, scale on s2 after it, copy out ---------------
  cudaStream_t s1, s2;
  cudaEvent_t fork, join;
  CHECK(cudaStreamCreate(&s1)); CHECK(cudaStreamCreate(&s2));
  CHECK(cudaEventCreate(&fork)); CHECK(cudaEventCreate(&join));
  int *tmp = NULL;
  for (int i = 0; i < n; ++i) h[i] = i;
  CHECK(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal));
  cudaStreamCaptureStatus st;
  CHECK(cudaStreamIsCapturing(s1, &st));
  if (st != cudaStreamCaptureStatusActive) { printf("s1 is not capturing\n"); ++bad; }
  CHECK(cudaMallocAsync(&tmp, n * sizeof(int), s1));
  CHECK(cudaMemcpyAsync(tmp, h, n * sizeof(int), cudaMemcpyHostToDevice, s1));
  add<<<3, 128, 0, s1>>>(tmp, n, 1);
  CHECK(cudaEventRecord(fork, s1));
  CHECK(cudaStreamWaitEvent(s2, fork, 0));
  scale<<<3, 128, 0, s2>>>(tmp, n, 3);
  CHECK(cudaEventRecord(join, s2));
  CHECK(cudaStreamWaitEvent(s1, join, 0));
  CHECK(cudaMemcpyAsync(h, tmp, n * sizeof(int), cudaMemcpyDeviceToHost, s1));
  CHECK(cudaFreeAsync(tmp, s1));
  cudaGraph_t cg;
  CHECK(cudaStreamEndCapture(s1, &cg));
  CHECK(cudaStreamIsCapturing(s2, &st));
  if (st != cudaStreamCaptureStatusNone) { printf("s2 still capturing\n"); ++bad; }
  for (int i = 0; i < n; ++i) bad += h[i] != i;                 // nothing ran during the capture
  cudaGraphExec_t cex;
  CHECK(cudaGraphInstantiate(&cex, cg, 0));
  CHECK(cudaGraphLaunch(cex, s1));
  CHECK(cudaStreamSynchronize(s1));
  for (int i = 0; i < n; ++i) bad += h[i] != 3 * (i + 1 + i);
  CHECK(cudaGraphLaunch(cex, s1));                             // again, on its own output
  CHECK(cudaStreamSynchronize(s1));
  for (int i = 0; i < n; ++i) bad += h[i] != 3 * (3 * (2 * i + 1) + 1 + i);

  // --- the generic cudaGraphAddNode -----------------------------------------------------------------
  cudaGraph_t g2;
  CHECK(cudaGraphCreate(&g2, 0));
  cudaGraphNodeParams np = {};
  np.type = cudaGraphNodeTypeKernel;
  int k3 = 3;
  void *sargs[] = {&d, &nn, &k3};
  np.kernel.func = (void *)scale; np.kernel.gridDim = dim3(3); np.kernel.blockDim = dim3(128);
  np.kernel.kernelParams = sargs;
  cudaGraphNode_t sn;
  CHECK(cudaGraphAddNode(&sn, g2, NULL, NULL, 0, &np));
  cudaGraphExec_t ex2;
  CHECK(cudaGraphInstantiate(&ex2, g2, 0));
  CHECK(cudaMemset(d, 0, n * sizeof(int)));
  add<<<3, 128>>>(d, n, 2);
  CHECK(cudaGraphLaunch(ex2, 0));
  CHECK(cudaMemcpy(h, d, n * sizeof(int), cudaMemcpyDeviceToHost));
  for (int i = 0; i < n; ++i) bad += h[i] != 3 * (2 + i);

  // --- graph memory: allocated by the graph, left in use, freed outside, launched again -------------
  cudaGraph_t g3;
  CHECK(cudaGraphCreate(&g3, 0));
  cudaMemAllocNodeParams ap = {};
  ap.poolProps.allocType = cudaMemAllocationTypePinned;
  ap.poolProps.location.type = cudaMemLocationTypeDevice;
  ap.bytesize = n * sizeof(int);
  cudaGraphNode_t an, kn;
  CHECK(cudaGraphAddMemAllocNode(&an, g3, NULL, 0, &ap));
  int *gm = (int *)ap.dptr;
  void *gargs[] = {&gm, &nn, &k3};
  kp.func = (void *)add; kp.kernelParams = gargs;
  CHECK(cudaGraphAddKernelNode(&kn, g3, &an, 1, &kp));
  cudaGraphExec_t ex3;
  CHECK(cudaGraphInstantiate(&ex3, g3, 0));
  CHECK(cudaDeviceGraphMemTrim(0));           // the captured graph's freed allocation leaves the footprint
  CHECK(cudaGraphLaunch(ex3, 0));
  if (cudaGraphLaunch(ex3, 0) == cudaSuccess) { printf("relaunch with the allocation in use\n"); ++bad; }
  (void)cudaGetLastError();                   // clears the refused launch's error
  CHECK(cudaMemcpy(h, gm, n * sizeof(int), cudaMemcpyDeviceToHost));
  size_t used = 0;
  CHECK(cudaDeviceGetGraphMemAttribute(0, cudaGraphMemAttrUsedMemCurrent, &used));
  if (used != n * sizeof(int)) { printf("graph memory in use: %zu\n", used); ++bad; }
  CHECK(cudaFree(gm));                        // freed outside the graph: the next launch gets it again
  CHECK(cudaGraphLaunch(ex3, 0));
  CHECK(cudaFree(gm));
  CHECK(cudaDeviceGraphMemTrim(0));
  CHECK(cudaDeviceGetGraphMemAttribute(0, cudaGraphMemAttrUsedMemCurrent, &used));
  if (used != 0) { printf("graph memory after trim: %zu\n", used); ++bad; }

  // --- conditional nodes: a while loop counting down, then a switch on the result ------------------
  cudaGraph_t g4;
  CHECK(cudaGraphCreate(&g4, 0));
  cudaGraphConditionalHandle wh, sh;
  CHECK(cudaGraphConditionalHandleCreate(&wh, g4, 1, cudaGraphCondAssignDefault));
  CHECK(cudaGraphConditionalHandleCreate(&sh, g4, 0, 0));
  cudaGraphNodeParams cp = {};
  cp.type = cudaGraphNodeTypeConditional;
  cp.conditional.handle = wh; cp.conditional.type = cudaGraphCondTypeWhile; cp.conditional.size = 1;
  cudaGraphNode_t wn, pn, swn, body;
  CHECK(cudaGraphAddNode(&wn, g4, NULL, NULL, 0, &cp));
  int *ctr = d, *steps = d + 1;
  void *cargs[] = {&ctr, &steps, &wh};
  cudaGraphNodeParams kp2 = {};
  kp2.type = cudaGraphNodeTypeKernel;
  kp2.kernel.func = (void *)countdown; kp2.kernel.gridDim = dim3(1); kp2.kernel.blockDim = dim3(32);
  kp2.kernel.kernelParams = cargs;
  CHECK(cudaGraphAddNode(&body, cp.conditional.phGraph_out[0], NULL, NULL, 0, &kp2));
  void *pargs[] = {&steps, &sh};
  kp2.kernel.func = (void *)pick; kp2.kernel.kernelParams = pargs;
  CHECK(cudaGraphAddNode(&pn, g4, &wn, NULL, 1, &kp2));
  cudaGraphNodeParams sp = {};
  sp.type = cudaGraphNodeTypeConditional;
  sp.conditional.handle = sh; sp.conditional.type = cudaGraphCondTypeSwitch; sp.conditional.size = 3;
  CHECK(cudaGraphAddNode(&swn, g4, &pn, NULL, 1, &sp));
  int adds[3] = {100, 200, 300};
  for (int b = 0; b < 3; ++b) {                 // branch b adds adds[b] to d[2]
    int *slot = d + 2;
    int one = 1;
    void *bargs[] = {&slot, &one, &adds[b]};
    kp2.kernel.func = (void *)add; kp2.kernel.kernelParams = bargs;
    cudaGraphNode_t bn;
    CHECK(cudaGraphAddNode(&bn, sp.conditional.phGraph_out[b], NULL, NULL, 0, &kp2));
  }
  cudaGraphExec_t ex4;
  CHECK(cudaGraphInstantiate(&ex4, g4, 0));
  int init[3] = {7, 0, 0};
  CHECK(cudaMemcpy(d, init, sizeof init, cudaMemcpyHostToDevice));
  CHECK(cudaGraphLaunch(ex4, 0));                 // 7 steps: 7 % 3 = 1, branch 1 adds 200
  CHECK(cudaMemcpy(init, d, sizeof init, cudaMemcpyDeviceToHost));
  if (init[0] != 0 || init[1] != 7 || init[2] != 200) {
    printf("while/switch: %d %d %d\n", init[0], init[1], init[2]); ++bad;
  }
  init[0] = 2;                                  // the while handle is 1 again at launch: 2 more steps
  CHECK(cudaMemcpy(d, init, sizeof init, cudaMemcpyHostToDevice));
  CHECK(cudaGraphLaunch(ex4, 0));                 // steps 9: 9 % 3 = 0, branch 0 adds 100
  CHECK(cudaMemcpy(init, d, sizeof init, cudaMemcpyDeviceToHost));
  if (init[0] != 0 || init[1] != 9 || init[2] != 300) {
    printf("while/switch again: %d %d %d\n", init[0], init[1], init[2]); ++bad;
  }

  printf("%d mismatches\n", bad);
  printf(bad == 0 ? "Test PASSED\n" : "Test FAILED\n");
  return bad == 0 ? 0 : 1;
}
