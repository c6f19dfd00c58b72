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


#ifdef WARPSIM_GRAPHS_INTERNAL
/* What cudart_graphs.c (graphs, executable graphs) and cudart_capture.c (stream capture) share; hidden,
 * so that a program's own symbols of the same names cannot take their place. */
#include "cudart_shim.h"
#define WARPSIM_HIDDEN __attribute__((visibility("hidden")))

enum { N_KERNEL, N_MEMCPY, N_MEMSET, N_HOST, N_EMPTY, N_CHILD, N_ALLOC, N_FREE, N_COND };

typedef struct Graph Graph;
typedef struct Node {
    int kind;
    Graph *owner;
    struct Node **deps;
    size_t ndeps;
    struct Node *orig;                 /* in an executable graph: the node it was copied from */
    u64 record;                        /* kernel: the Python record id */
    const void *func;
    dim3 grid, block;
    unsigned shm;
    struct cudaMemcpy3DParms copy;     /* memcpy (3-D form) */
    int copy1d;                        /* memcpy: 1-D form below instead */
    void *dst;
    const void *src;
    size_t count;
    enum cudaMemcpyKind ckind;
    struct cudaMemsetParams set;
    cudaHostFn_t fn;
    void *user;
    Graph *child;
    void *dptr;                        /* alloc / free */
    u64 cond;                          /* conditional: handle, type, bodies */
    int ctype;
    unsigned nbodies;
    Graph **bodies;
    size_t mark;                       /* scratch of graph_copy (the node's index) and graph_sort (placed) */
} Node;

struct Graph {
    Node **nodes;
    size_t n, cap;
    u64 *resets;                       /* conditional handles reset to their default at each launch */
    size_t nresets;
};

#define GRAPH(g) ((Graph *)(g))
#define NODE(x) ((Node *)(x))

WARPSIM_HIDDEN Graph *graph_new(void);
WARPSIM_HIDDEN int owned(Graph *g, const Node *x);
WARPSIM_HIDDEN Node *add_node(Graph *g, int kind, const cudaGraphNode_t *deps, size_t nd);
WARPSIM_HIDDEN cudaError_t kernel_node(Node *x, const void *func, dim3 gr, dim3 bl, unsigned shm, void **args,
                                       void **extra);
WARPSIM_HIDDEN cudaError_t alloc_node(Node *x, size_t bytes, void **dptr);
WARPSIM_HIDDEN cudaError_t copy1d_node(Node *x, void *dst, const void *src, size_t count, enum cudaMemcpyKind kind);
#endif

#endif
