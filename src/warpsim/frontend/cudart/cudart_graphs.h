/* Stream capture, as the other C files of warpsim's CUDA runtime see it (cudart_graphs.c): work issued to
 * a capturing stream becomes a graph node instead of running. */
#ifndef WARPSIM_CUDART_GRAPHS_H
#define WARPSIM_CUDART_GRAPHS_H

#include <cuda_runtime_api.h>

int warpsim_capturing(cudaStream_t s);
cudaError_t warpsim_capture_kernel(const void *func, dim3 g, dim3 b, void **args, size_t shm, cudaStream_t s);
cudaError_t warpsim_capture_memcpy(void *dst, const void *src, size_t n, enum cudaMemcpyKind kind, cudaStream_t s);
cudaError_t warpsim_capture_memset(void *p, int v, size_t n, cudaStream_t s);
cudaError_t warpsim_capture_host(cudaHostFn_t fn, void *user, cudaStream_t s);
cudaError_t warpsim_capture_alloc(void **p, size_t n, cudaStream_t s);
cudaError_t warpsim_capture_free(void *p, cudaStream_t s);
void warpsim_capture_event(cudaEvent_t e, cudaStream_t s);     /* an event recorded during a capture */
int warpsim_capture_join(cudaStream_t s, cudaEvent_t e);        /* 1: s waited on such an event, joined */

#endif
