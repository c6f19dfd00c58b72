/* warpsim's CUDA runtime: stream capture (see cudart_graphs.c for the graphs themselves).
 *
 * Work issued to a capturing stream becomes a node of the capture's graph, after the capture's current
 * dependencies (at first none; then the node captured last, or what cudaStreamUpdateCaptureDependencies
 * set). A stream that waits on an event recorded in a capturing stream joins that capture.
 */
#define WARPSIM_GRAPHS_INTERNAL
#include "cudart_graphs.h"

#include <stdlib.h>
#include <string.h>

/* One capture: its graph and the nodes the next captured node depends on. Streams that join it share it. */
typedef struct {
    Graph *graph;
    Node **deps;
    size_t ndeps;
    unsigned long long id;
    int own_graph;               /* EndCapture returns a new graph (not one given to BeginCaptureToGraph) */
} Capture;

#define MAX_CAPTURE_STREAMS 64
static struct { cudaStream_t stream; Capture *cap; int origin; } g_cap[MAX_CAPTURE_STREAMS];
static int g_ncap;
static struct { cudaEvent_t event; Capture *cap; } g_cap_events[MAX_CAPTURE_STREAMS];
static int g_ncap_events;
static unsigned long long g_capture_ids;

static Capture *capture_of(cudaStream_t s) {
    for (int i = 0; s && i < g_ncap; i++)
        if (g_cap[i].stream == s) return g_cap[i].cap;
    return NULL;
}
int warpsim_capturing(cudaStream_t s) { return capture_of(s) != NULL; }

static void set_deps(Capture *c, Node *const *deps, size_t n, int add) {
    size_t base = add ? c->ndeps : 0;
    c->deps = (Node **)realloc(c->deps, (base + n + 1) * sizeof(Node *));
    memcpy(c->deps + base, deps, n * sizeof(Node *));
    c->ndeps = base + n;
}

/* The node captured work adds to stream s's capture, after the capture's current dependencies. */
static Node *capture_node(cudaStream_t s, int kind) {
    Capture *c = capture_of(s);
    Node *x = add_node(c->graph, kind, (const cudaGraphNode_t *)c->deps, c->ndeps);
    set_deps(c, &x, 1, 0);
    return x;
}

cudaError_t warpsim_capture_kernel(const void *func, dim3 gr, dim3 bl, void **args, size_t shm, cudaStream_t s) {
    return kernel_node(capture_node(s, N_KERNEL), func, gr, bl, (unsigned)shm, args, NULL);
}
cudaError_t warpsim_capture_memcpy(void *dst, const void *src, size_t n, enum cudaMemcpyKind kind, cudaStream_t s) {
    return copy1d_node(capture_node(s, N_MEMCPY), dst, src, n, kind);
}
cudaError_t warpsim_capture_memset(void *p, int v, size_t n, cudaStream_t s) {
    Node *x = capture_node(s, N_MEMSET);
    struct cudaMemsetParams m = {p, 0, (unsigned)(v & 0xFF), 1, n, 1};
    x->set = m;
    return cudaSuccess;
}
cudaError_t warpsim_capture_host(cudaHostFn_t fn, void *user, cudaStream_t s) {
    Node *x = capture_node(s, N_HOST);
    x->fn = fn;
    x->user = user;
    return cudaSuccess;
}
cudaError_t warpsim_capture_alloc(void **p, size_t n, cudaStream_t s) {
    return alloc_node(capture_node(s, N_ALLOC), n, p);
}
cudaError_t warpsim_capture_free(void *p, cudaStream_t s) {
    capture_node(s, N_FREE)->dptr = p;
    return cudaSuccess;
}

/* An event recorded in a capturing stream marks the capture; a stream that waits on it joins. */
void warpsim_capture_event(cudaEvent_t e, cudaStream_t s) {
    Capture *c = capture_of(s);
    if (!c || g_ncap_events >= MAX_CAPTURE_STREAMS) return;
    g_cap_events[g_ncap_events].event = e;
    g_cap_events[g_ncap_events++].cap = c;
}
int warpsim_capture_join(cudaStream_t s, cudaEvent_t e) {
    for (int k = 0; k < g_ncap_events; k++) {
        if (g_cap_events[k].event != e) continue;
        if (capture_of(s) || g_ncap >= MAX_CAPTURE_STREAMS) return 1;
        g_cap[g_ncap].stream = s;
        g_cap[g_ncap].cap = g_cap_events[k].cap;
        g_cap[g_ncap++].origin = 0;
        return 1;
    }
    return 0;
}

static cudaError_t begin(cudaStream_t s, Graph *g, int own) {
    if (!s) return cudaErrorStreamCaptureUnsupported;       /* the legacy default stream cannot capture */
    if (capture_of(s)) return cudaErrorIllegalState;
    if (g_ncap >= MAX_CAPTURE_STREAMS) return (cudaError_t)warpsim_unsupported("more than 64 capturing streams");
    Capture *c = (Capture *)calloc(1, sizeof(Capture));
    c->graph = g;
    c->own_graph = own;
    c->id = ++g_capture_ids;
    g_cap[g_ncap].stream = s;
    g_cap[g_ncap].cap = c;
    g_cap[g_ncap++].origin = 1;
    return cudaSuccess;
}
cudaError_t cudaStreamBeginCapture(cudaStream_t s, enum cudaStreamCaptureMode mode) {
    (void)mode;
    return begin(s, graph_new(), 1);
}
cudaError_t cudaStreamBeginCaptureToGraph(cudaStream_t s, cudaGraph_t g, const cudaGraphNode_t *deps,
                                          const cudaGraphEdgeData *edges, size_t nd, enum cudaStreamCaptureMode m) {
    (void)edges;
    (void)m;
    if (!g) return cudaErrorInvalidValue;
    for (size_t i = 0; i < nd; i++)
        if (!owned(GRAPH(g), NODE(deps[i]))) return cudaErrorInvalidValue;
    cudaError_t e = begin(s, GRAPH(g), 0);
    if (e == cudaSuccess && nd) set_deps(capture_of(s), (Node *const *)deps, nd, 0);
    return e;
}
cudaError_t cudaStreamEndCapture(cudaStream_t s, cudaGraph_t *out) {
    Capture *c = capture_of(s);
    int origin = 0;
    for (int i = 0; i < g_ncap; i++)
        if (g_cap[i].stream == s) origin = g_cap[i].origin;
    if (!c || !origin) return cudaErrorIllegalState;
    for (int j = g_ncap - 1; j >= 0; j--)            /* the capture ends for every stream that joined */
        if (g_cap[j].cap == c) g_cap[j] = g_cap[--g_ncap];
    for (int k = g_ncap_events - 1; k >= 0; k--)
        if (g_cap_events[k].cap == c) g_cap_events[k] = g_cap_events[--g_ncap_events];
    if (out) *out = (cudaGraph_t)c->graph;
    free(c->deps);
    free(c);
    return cudaSuccess;
}
cudaError_t cudaStreamIsCapturing(cudaStream_t s, enum cudaStreamCaptureStatus *st) {
    if (!st) return cudaErrorInvalidValue;
    *st = warpsim_capturing(s) ? cudaStreamCaptureStatusActive : cudaStreamCaptureStatusNone;
    return cudaSuccess;
}
cudaError_t cudaStreamGetCaptureInfo(cudaStream_t s, enum cudaStreamCaptureStatus *st, unsigned long long *id,
                                     cudaGraph_t *graph, const cudaGraphNode_t **deps,
                                     const cudaGraphEdgeData **edges, size_t *nd) {
    Capture *c = capture_of(s);
    if (st) *st = c ? cudaStreamCaptureStatusActive : cudaStreamCaptureStatusNone;
    if (id) *id = c ? c->id : 0;
    if (graph) *graph = c ? (cudaGraph_t)c->graph : NULL;
    if (deps) *deps = c ? (const cudaGraphNode_t *)c->deps : NULL;
    if (edges) *edges = NULL;
    if (nd) *nd = c ? c->ndeps : 0;
    return cudaSuccess;
}
/* The nodes the next captured node depends on: these (cudaStreamSetCaptureDependencies) or these too. */
cudaError_t cudaStreamUpdateCaptureDependencies(cudaStream_t s, cudaGraphNode_t *deps, const cudaGraphEdgeData *edges,
                                                size_t n, unsigned int flags) {
    (void)edges;
    Capture *c = capture_of(s);
    if (!c) return cudaErrorIllegalState;
    if ((n && !deps) || flags > cudaStreamSetCaptureDependencies) return cudaErrorInvalidValue;
    for (size_t i = 0; i < n; i++)
        if (!owned(c->graph, NODE(deps[i]))) return cudaErrorInvalidValue;
    set_deps(c, (Node *const *)deps, n, flags != cudaStreamSetCaptureDependencies);
    return cudaSuccess;
}
cudaError_t cudaThreadExchangeStreamCaptureMode(enum cudaStreamCaptureMode *mode) {
    return mode ? cudaSuccess : cudaErrorInvalidValue;
}
