/* warpsim's CUDA runtime: CUDA graphs, built by hand or captured from streams.
 *
 * A graph is a list of nodes with dependency edges. Kernels run synchronously here, so launching a
 * graph runs its nodes one after another in a topological order (creation order among ready nodes),
 * which is one of the orders the GPU may use. A kernel node's arguments are copied when it is made
 * (warpsim.frontend.cudart.graphs); an executable graph is a snapshot of its graph's nodes.
 * Stream capture (cudart_capture.c) adds the work issued to capturing streams as nodes. Conditional nodes (if, while, switch)
 * read their handle's value, which kernels set with cudaGraphSetConditional. Event and
 * external-semaphore nodes and the 'extra' kernel-argument format are refused by name.
 */
#define WARPSIM_GRAPHS_INTERNAL
#include "cudart_graphs.h"

#include <stdlib.h>
#include <string.h>

static int node_type(const Node *x) {
    switch (x->kind) {
    case N_KERNEL: return cudaGraphNodeTypeKernel;
    case N_MEMCPY: return cudaGraphNodeTypeMemcpy;
    case N_MEMSET: return cudaGraphNodeTypeMemset;
    case N_HOST: return cudaGraphNodeTypeHost;
    case N_CHILD: return cudaGraphNodeTypeGraph;
    case N_ALLOC: return cudaGraphNodeTypeMemAlloc;
    case N_FREE: return cudaGraphNodeTypeMemFree;
    case N_COND: return cudaGraphNodeTypeConditional;
    default: return cudaGraphNodeTypeEmpty;
    }
}

WARPSIM_HIDDEN Graph *graph_new(void) { return (Graph *)calloc(1, sizeof(Graph)); }

static void graph_free(Graph *g) {
    if (!g) return;
    for (size_t i = 0; i < g->n; i++) {
        for (unsigned b = 0; b < g->nodes[i]->nbodies; b++) graph_free(g->nodes[i]->bodies[b]);
        free(g->nodes[i]->bodies);
        graph_free(g->nodes[i]->child);
        free(g->nodes[i]->deps);
        free(g->nodes[i]);
    }
    free(g->nodes);
    free(g->resets);
    free(g);
}

WARPSIM_HIDDEN int owned(Graph *g, const Node *x) {
    for (size_t i = 0; i < g->n; i++)
        if (g->nodes[i] == x) return 1;
    return 0;
}

/* A new node of `kind` depending on deps[0..nd): NULL when a dependency is not in the graph. */
WARPSIM_HIDDEN Node *add_node(Graph *g, int kind, const cudaGraphNode_t *deps, size_t nd) {
    if (!g || (nd && !deps)) return NULL;
    for (size_t i = 0; i < nd; i++)
        if (!owned(g, (const Node *)deps[i])) return NULL;
    Node *x = (Node *)calloc(1, sizeof(Node));
    x->kind = kind;
    x->owner = g;
    if (nd) {
        x->deps = (Node **)malloc(nd * sizeof(Node *));
        memcpy(x->deps, deps, nd * sizeof(Node *));
        x->ndeps = nd;
    }
    if (g->n == g->cap) {
        g->cap = g->cap ? 2 * g->cap : 16;
        g->nodes = (Node **)realloc(g->nodes, g->cap * sizeof(Node *));
    }
    g->nodes[g->n++] = x;
    return x;
}

/* A copy of g; map[i] is the copy of g->nodes[i]. Kernel records are shared (they never change). */
static Graph *graph_copy(Graph *g) {
    Graph *c = graph_new();
    for (size_t i = 0; i < g->n; i++) g->nodes[i]->mark = i;
    c->cap = c->n = g->n;
    c->nodes = (Node **)calloc(g->n ? g->n : 1, sizeof(Node *));
    for (size_t i = 0; i < g->n; i++) {
        Node *x = (Node *)malloc(sizeof(Node));
        *x = *g->nodes[i];
        x->owner = c;
        x->orig = g->nodes[i];
        x->child = g->nodes[i]->child ? graph_copy(g->nodes[i]->child) : NULL;
        if (x->nbodies) {
            x->bodies = (Graph **)calloc(x->nbodies, sizeof(Graph *));
            for (unsigned b = 0; b < x->nbodies; b++) x->bodies[b] = graph_copy(g->nodes[i]->bodies[b]);
        }
        c->nodes[i] = x;
    }
    if (g->nresets) {
        c->resets = (u64 *)malloc(g->nresets * sizeof(u64));
        memcpy(c->resets, g->resets, g->nresets * sizeof(u64));
        c->nresets = g->nresets;
    }
    for (size_t i = 0; i < g->n; i++) {
        Node *x = c->nodes[i];
        if (!x->ndeps) continue;
        x->deps = (Node **)malloc(x->ndeps * sizeof(Node *));
        for (size_t d = 0; d < x->ndeps; d++) x->deps[d] = c->nodes[g->nodes[i]->deps[d]->mark];
    }
    return c;
}

/* Reorder g's nodes topologically (Kahn; creation order among ready nodes). -1: a cycle. */
static int graph_sort(Graph *g) {
    size_t n = g->n, done = 0;
    Node **out = (Node **)malloc((n ? n : 1) * sizeof(Node *));
    for (size_t i = 0; i < n; i++) g->nodes[i]->mark = 0;          /* 1: placed */
    while (done < n) {
        int progress = 0;
        for (size_t i = 0; i < n; i++) {
            Node *x = g->nodes[i];
            if (x->mark) continue;
            size_t d = 0;
            while (d < x->ndeps && x->deps[d]->mark) d++;
            if (d == x->ndeps) {
                x->mark = 1;
                out[done++] = x;
                progress = 1;
            }
        }
        if (!progress) break;
    }
    int ok = done == n;
    if (ok) memcpy(g->nodes, out, n * sizeof(Node *));
    free(out);
    for (size_t i = 0; ok && i < n; i++)             /* and the graphs inside, to any depth */
        for (unsigned b = 0; b < g->nodes[i]->nbodies && ok; b++) ok = graph_sort(g->nodes[i]->bodies[b]) == 0;
    return ok ? 0 : -1;
}

static unsigned condition(u64 handle, cudaError_t *e) {
    unsigned v = 0;
    *e = RT("condition_value", "KK", handle, P(&v));
    return v;
}

static cudaError_t run_graph(const Graph *g, cudaStream_t s) {
    for (size_t i = 0; i < g->n; i++) {
        const Node *x = g->nodes[i];
        cudaError_t e = cudaSuccess;
        switch (x->kind) {
        case N_KERNEL:
            e = RT("launch_recorded", "KK", x->record, P(s));
            warpsim_finish_last();
            break;
        case N_MEMCPY:
            e = x->copy1d ? cudaMemcpy(x->dst, x->src, x->count, x->ckind) : cudaMemcpy3D(&x->copy);
            break;
        case N_MEMSET:
            e = RT("memset_elements", "KKKKKK", P(x->set.dst), (u64)x->set.pitch, (u64)x->set.value,
                   (u64)x->set.elementSize, (u64)x->set.width, (u64)x->set.height);
            break;
        case N_HOST:
            e = RT("sticky_check", "");
            if (e == cudaSuccess) x->fn(x->user);
            break;
        case N_CHILD:
            e = run_graph(x->child, s);
            break;
        case N_COND: {                  /* the value is read when the node runs (while: before each pass) */
            unsigned v = condition(x->cond, &e);
            if (e != cudaSuccess) break;
            if (x->ctype == cudaGraphCondTypeWhile) {
                while (v && e == cudaSuccess) {
                    e = run_graph(x->bodies[0], s);
                    if (e == cudaSuccess) v = condition(x->cond, &e);
                }
            } else if (x->ctype == cudaGraphCondTypeIf) {
                if (v) e = run_graph(x->bodies[0], s);
                else if (x->nbodies == 2) e = run_graph(x->bodies[1], s);
            } else if (v < x->nbodies) {
                e = run_graph(x->bodies[v], s);
            }
            break;
        }
        case N_ALLOC:   /* the address was reserved when the node was made */
            e = RT("graph_alloc_run", "K", P(x->dptr));
            break;
        case N_FREE:
            e = RT("graph_free_run", "K", P(x->dptr));
            break;
        default:        /* empty */
            break;
        }
        if (e != cudaSuccess) return e;
    }
    return cudaSuccess;
}

/* ---------------------------------------------------------------- building graphs ----------- */

#define OUT(p, x) do { if (!(x)) return cudaErrorInvalidValue; *(p) = (cudaGraphNode_t)(x); } while (0)

cudaError_t cudaGraphCreate(cudaGraph_t *g, unsigned int flags) {
    if (!g || flags) return cudaErrorInvalidValue;
    *g = (cudaGraph_t)graph_new();
    return cudaSuccess;
}
cudaError_t cudaGraphDestroy(cudaGraph_t g) {
    graph_free(GRAPH(g));
    return cudaSuccess;
}
cudaError_t cudaGraphClone(cudaGraph_t *out, cudaGraph_t g) {
    if (!out || !g) return cudaErrorInvalidValue;
    Graph *c = graph_copy(GRAPH(g));
    for (size_t i = 0; i < c->n; i++) c->nodes[i]->orig = NULL;
    *out = (cudaGraph_t)c;
    return cudaSuccess;
}

WARPSIM_HIDDEN cudaError_t kernel_node(Node *x, const void *func, dim3 gr, dim3 bl, unsigned shm, void **args,
                               void **extra) {
    if (extra) return (cudaError_t)warpsim_unsupported("kernel nodes with arguments in the 'extra' format");
    x->func = func;
    x->grid = gr;
    x->block = bl;
    x->shm = shm;
    return RT("record_kernel", "KKIIIIIIKK", P(&x->record), P(func), gr.x, gr.y, gr.z, bl.x, bl.y, bl.z,
              P(args), (u64)shm);
}

cudaError_t cudaGraphAddKernelNode(cudaGraphNode_t *out, cudaGraph_t g, const cudaGraphNode_t *deps, size_t nd,
                                   const struct cudaKernelNodeParams *p) {
    if (!p) return cudaErrorInvalidValue;
    Node *x = add_node(GRAPH(g), N_KERNEL, deps, nd);
    OUT(out, x);
    return kernel_node(x, p->func, p->gridDim, p->blockDim, p->sharedMemBytes, p->kernelParams, p->extra);
}
cudaError_t cudaGraphAddMemcpyNode(cudaGraphNode_t *out, cudaGraph_t g, const cudaGraphNode_t *deps, size_t nd,
                                   const struct cudaMemcpy3DParms *p) {
    if (!p) return cudaErrorInvalidValue;
    Node *x = add_node(GRAPH(g), N_MEMCPY, deps, nd);
    OUT(out, x);
    x->copy = *p;
    return cudaSuccess;
}
WARPSIM_HIDDEN cudaError_t copy1d_node(Node *x, void *dst, const void *src, size_t count, enum cudaMemcpyKind kind) {
    x->copy1d = 1;
    x->dst = dst;
    x->src = src;
    x->count = count;
    x->ckind = kind;
    return cudaSuccess;
}
cudaError_t cudaGraphAddMemcpyNode1D(cudaGraphNode_t *out, cudaGraph_t g, const cudaGraphNode_t *deps, size_t nd,
                                     void *dst, const void *src, size_t count, enum cudaMemcpyKind kind) {
    Node *x = add_node(GRAPH(g), N_MEMCPY, deps, nd);
    OUT(out, x);
    return copy1d_node(x, dst, src, count, kind);
}
cudaError_t cudaGraphAddMemsetNode(cudaGraphNode_t *out, cudaGraph_t g, const cudaGraphNode_t *deps, size_t nd,
                                   const struct cudaMemsetParams *p) {
    if (!p) return cudaErrorInvalidValue;
    Node *x = add_node(GRAPH(g), N_MEMSET, deps, nd);
    OUT(out, x);
    x->set = *p;
    return cudaSuccess;
}
cudaError_t cudaGraphAddHostNode(cudaGraphNode_t *out, cudaGraph_t g, const cudaGraphNode_t *deps, size_t nd,
                                 const struct cudaHostNodeParams *p) {
    if (!p || !p->fn) return cudaErrorInvalidValue;
    Node *x = add_node(GRAPH(g), N_HOST, deps, nd);
    OUT(out, x);
    x->fn = p->fn;
    x->user = p->userData;
    return cudaSuccess;
}
cudaError_t cudaGraphAddEmptyNode(cudaGraphNode_t *out, cudaGraph_t g, const cudaGraphNode_t *deps, size_t nd) {
    Node *x = add_node(GRAPH(g), N_EMPTY, deps, nd);
    OUT(out, x);
    return cudaSuccess;
}
cudaError_t cudaGraphAddChildGraphNode(cudaGraphNode_t *out, cudaGraph_t g, const cudaGraphNode_t *deps,
                                       size_t nd, cudaGraph_t child) {
    if (!child) return cudaErrorInvalidValue;
    Node *x = add_node(GRAPH(g), N_CHILD, deps, nd);
    OUT(out, x);
    x->child = graph_copy(GRAPH(child));
    if (graph_sort(x->child)) return cudaErrorInvalidValue;
    return cudaSuccess;
}
/* Graph memory (warpsim.frontend.cudart.graphs): the address is reserved with the node; the memory is in
 * use from the node's run until a free node, cudaFree or cudaFreeAsync. */
WARPSIM_HIDDEN cudaError_t alloc_node(Node *x, size_t bytes, void **dptr) {
    if (!bytes) return cudaErrorInvalidValue;
    cudaError_t e = RT("graph_alloc", "KK", P(&x->dptr), (u64)bytes);
    *dptr = x->dptr;
    return e;
}
cudaError_t cudaGraphAddMemAllocNode(cudaGraphNode_t *out, cudaGraph_t g, const cudaGraphNode_t *deps,
                                     size_t nd, struct cudaMemAllocNodeParams *p) {
    if (!p) return cudaErrorInvalidValue;
    Node *x = add_node(GRAPH(g), N_ALLOC, deps, nd);
    OUT(out, x);
    return alloc_node(x, p->bytesize, &p->dptr);
}
cudaError_t cudaGraphAddMemFreeNode(cudaGraphNode_t *out, cudaGraph_t g, const cudaGraphNode_t *deps,
                                    size_t nd, void *dptr) {
    Node *x = add_node(GRAPH(g), N_FREE, deps, nd);
    OUT(out, x);
    x->dptr = dptr;
    return cudaSuccess;
}
cudaError_t cudaDeviceGraphMemTrim(int dev) {
    return dev == 0 ? RT("graph_memory_trim", "") : cudaErrorInvalidDevice;
}
cudaError_t cudaDeviceGetGraphMemAttribute(int dev, enum cudaGraphMemAttributeType attr, void *value) {
    if (dev != 0) return cudaErrorInvalidDevice;
    return RT("graph_memory_attribute", "iKi", (int)attr, P(value), 0);
}
cudaError_t cudaDeviceSetGraphMemAttribute(int dev, enum cudaGraphMemAttributeType attr, void *value) {
    if (dev != 0) return cudaErrorInvalidDevice;
    return RT("graph_memory_attribute", "iKi", (int)attr, P(value), 1);
}

cudaError_t cudaGraphAddNode(cudaGraphNode_t *out, cudaGraph_t g, const cudaGraphNode_t *deps,
                             const cudaGraphEdgeData *edges, size_t nd, struct cudaGraphNodeParams *p) {
    (void)edges;
    if (!p) return cudaErrorInvalidValue;
    switch (p->type) {
    case cudaGraphNodeTypeKernel: {
        Node *x = add_node(GRAPH(g), N_KERNEL, deps, nd);
        OUT(out, x);
        return kernel_node(x, p->kernel.func, p->kernel.gridDim, p->kernel.blockDim, p->kernel.sharedMemBytes,
                           p->kernel.kernelParams, p->kernel.extra);
    }
    case cudaGraphNodeTypeMemcpy:
        return cudaGraphAddMemcpyNode(out, g, deps, nd, &p->memcpy.copyParams);
    case cudaGraphNodeTypeMemset: {
        struct cudaMemsetParams m = {p->memset.dst, p->memset.pitch, p->memset.value, p->memset.elementSize,
                                     p->memset.width, p->memset.height};
        return cudaGraphAddMemsetNode(out, g, deps, nd, &m);
    }
    case cudaGraphNodeTypeHost: {
        struct cudaHostNodeParams h = {p->host.fn, p->host.userData};
        return cudaGraphAddHostNode(out, g, deps, nd, &h);
    }
    case cudaGraphNodeTypeEmpty:
        return cudaGraphAddEmptyNode(out, g, deps, nd);
    case cudaGraphNodeTypeGraph:
        return cudaGraphAddChildGraphNode(out, g, deps, nd, p->graph.graph);
    case cudaGraphNodeTypeMemAlloc: {
        Node *x = add_node(GRAPH(g), N_ALLOC, deps, nd);
        OUT(out, x);
        return alloc_node(x, p->alloc.bytesize, &p->alloc.dptr);
    }
    case cudaGraphNodeTypeMemFree:
        return cudaGraphAddMemFreeNode(out, g, deps, nd, p->free.dptr);
    case cudaGraphNodeTypeConditional: {
        struct cudaConditionalNodeParams *c = &p->conditional;
        int t = c->type;
        if (!c->size || (t == cudaGraphCondTypeWhile && c->size != 1) || (t == cudaGraphCondTypeIf && c->size > 2)
            || t < cudaGraphCondTypeIf || t > cudaGraphCondTypeSwitch)
            return cudaErrorInvalidValue;
        Node *x = add_node(GRAPH(g), N_COND, deps, nd);
        OUT(out, x);
        x->cond = c->handle;
        x->ctype = t;
        x->nbodies = c->size;
        x->bodies = (Graph **)calloc(c->size, sizeof(Graph *));
        for (unsigned b = 0; b < c->size; b++) x->bodies[b] = graph_new();
        c->phGraph_out = (cudaGraph_t *)x->bodies;      /* the node owns its bodies, as CUDA's does */
        return cudaSuccess;
    }
    default:
        return (cudaError_t)warpsim_unsupported("graph nodes of this type (event, external semaphore)");
    }
}

cudaError_t cudaGraphConditionalHandleCreate(cudaGraphConditionalHandle *out, cudaGraph_t g, unsigned def,
                                             unsigned flags) {
    if (!out || !g) return cudaErrorInvalidValue;
    cudaError_t e = RT("condition_create", "KKK", P(out), (u64)def, (u64)flags);
    if (e == cudaSuccess && (flags & cudaGraphCondAssignDefault)) {
        Graph *x = GRAPH(g);
        x->resets = (u64 *)realloc(x->resets, (x->nresets + 1) * sizeof(u64));
        x->resets[x->nresets++] = *out;
    }
    return e;
}

cudaError_t cudaGraphAddDependencies(cudaGraph_t g, const cudaGraphNode_t *from, const cudaGraphNode_t *to,
                                     const cudaGraphEdgeData *edges, size_t n) {
    (void)edges;
    for (size_t i = 0; i < n; i++) {
        Node *a = NODE(from[i]), *b = NODE(to[i]);
        if (!owned(GRAPH(g), a) || !owned(GRAPH(g), b)) return cudaErrorInvalidValue;
        b->deps = (Node **)realloc(b->deps, (b->ndeps + 1) * sizeof(Node *));
        b->deps[b->ndeps++] = a;
    }
    return cudaSuccess;
}

cudaError_t cudaGraphGetNodes(cudaGraph_t g, cudaGraphNode_t *nodes, size_t *n) {
    if (!g || !n) return cudaErrorInvalidValue;
    if (nodes)
        for (size_t i = 0; i < *n && i < GRAPH(g)->n; i++) nodes[i] = (cudaGraphNode_t)GRAPH(g)->nodes[i];
    else
        *n = GRAPH(g)->n;
    return cudaSuccess;
}
cudaError_t cudaGraphGetRootNodes(cudaGraph_t g, cudaGraphNode_t *nodes, size_t *n) {
    if (!g || !n) return cudaErrorInvalidValue;
    size_t k = 0;
    for (size_t i = 0; i < GRAPH(g)->n; i++) {
        if (GRAPH(g)->nodes[i]->ndeps) continue;
        if (nodes && k < *n) nodes[k] = (cudaGraphNode_t)GRAPH(g)->nodes[i];
        k++;
    }
    if (!nodes) *n = k;
    return cudaSuccess;
}
cudaError_t cudaGraphNodeGetType(cudaGraphNode_t x, enum cudaGraphNodeType *t) {
    if (!x || !t) return cudaErrorInvalidValue;
    *t = (enum cudaGraphNodeType)node_type(NODE(x));
    return cudaSuccess;
}
cudaError_t cudaGraphKernelNodeSetParams(cudaGraphNode_t x, const struct cudaKernelNodeParams *p) {
    if (!x || !p || NODE(x)->kind != N_KERNEL) return cudaErrorInvalidValue;
    return kernel_node(NODE(x), p->func, p->gridDim, p->blockDim, p->sharedMemBytes, p->kernelParams, p->extra);
}

/* ---------------------------------------------------------------- executable graphs --------- */

typedef struct { Graph *g; } Exec;

static cudaError_t instantiate(cudaGraphExec_t *out, cudaGraph_t g) {
    if (!out || !g) return cudaErrorInvalidValue;
    Exec *x = (Exec *)calloc(1, sizeof(Exec));
    x->g = graph_copy(GRAPH(g));
    if (graph_sort(x->g)) {
        graph_free(x->g);
        free(x);
        return cudaErrorInvalidValue;          /* a cycle */
    }
    *out = (cudaGraphExec_t)x;
    return cudaSuccess;
}
cudaError_t cudaGraphInstantiate(cudaGraphExec_t *out, cudaGraph_t g, unsigned long long flags) {
    (void)flags;
    return instantiate(out, g);
}
cudaError_t cudaGraphInstantiateWithFlags(cudaGraphExec_t *out, cudaGraph_t g, unsigned long long flags) {
    (void)flags;
    return instantiate(out, g);
}
cudaError_t cudaGraphInstantiateWithParams(cudaGraphExec_t *out, cudaGraph_t g, cudaGraphInstantiateParams *p) {
    cudaError_t e = instantiate(out, g);
    if (p) p->result_out = e == cudaSuccess ? cudaGraphInstantiateSuccess : cudaGraphInstantiateError;
    return e;
}
cudaError_t cudaGraphExecDestroy(cudaGraphExec_t x) {
    if (x) {
        graph_free(((Exec *)x)->g);
        free(x);
    }
    return cudaSuccess;
}
cudaError_t cudaGraphUpload(cudaGraphExec_t x, cudaStream_t s) {
    (void)s;
    return x ? cudaSuccess : cudaErrorInvalidValue;
}
cudaError_t cudaGraphLaunch(cudaGraphExec_t x, cudaStream_t s) {
    if (!x) return cudaErrorInvalidValue;
    if (warpsim_capturing(s)) return (cudaError_t)warpsim_unsupported("launching a graph into a stream capture");
    cudaError_t e = RT("sticky_check", "");
    Graph *g = ((Exec *)x)->g;
    for (size_t i = 0; i < g->nresets && e == cudaSuccess; i++)
        e = RT("condition_reset", "K", g->resets[i]);
    return e != cudaSuccess ? e : run_graph(g, s);
}
cudaError_t cudaGraphExecKernelNodeSetParams(cudaGraphExec_t x, cudaGraphNode_t node,
                                             const struct cudaKernelNodeParams *p) {
    if (!x || !p) return cudaErrorInvalidValue;
    Graph *g = ((Exec *)x)->g;
    for (size_t i = 0; i < g->n; i++)
        if (g->nodes[i]->orig == NODE(node) && g->nodes[i]->kind == N_KERNEL)
            return kernel_node(g->nodes[i], p->func, p->gridDim, p->blockDim, p->sharedMemBytes, p->kernelParams,
                               p->extra);
    return cudaErrorInvalidValue;
}
/* The executable graph takes the new graph's nodes and parameters (CUDA requires the same topology;
 * running the new graph's nodes is what a successful update does). */
cudaError_t cudaGraphExecUpdate(cudaGraphExec_t x, cudaGraph_t g, cudaGraphExecUpdateResultInfo *info) {
    if (!x || !g) return cudaErrorInvalidValue;
    Graph *c = graph_copy(GRAPH(g));
    if (graph_sort(c)) {
        graph_free(c);
        if (info) info->result = cudaGraphExecUpdateError;
        return cudaErrorGraphExecUpdateFailure;
    }
    graph_free(((Exec *)x)->g);
    ((Exec *)x)->g = c;
    if (info) {
        info->result = cudaGraphExecUpdateSuccess;
        info->errorNode = info->errorFromNode = NULL;
    }
    return cudaSuccess;
}
