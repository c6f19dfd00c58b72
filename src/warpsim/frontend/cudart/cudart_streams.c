/* warpsim's CUDA runtime: streams, events and host callbacks.
 *
 * Kernels run synchronously on the emulator, so streams are in-order queues that are always drained:
 * synchronising is checking for a deferred launch error, and an event marks a position in the launch
 * list (its elapsed time is simulated on demand in timing mode; warpsim.frontend.cudart.runtime).
 */
#include "cudart_shim.h"
#include "cudart_graphs.h"

cudaError_t cudaStreamCreate(cudaStream_t *s) { return RT("stream_create", "K", P(s)); }
cudaError_t cudaStreamCreateWithFlags(cudaStream_t *s, unsigned int f) { (void)f; return cudaStreamCreate(s); }
cudaError_t cudaStreamCreateWithPriority(cudaStream_t *s, unsigned int f, int prio) {
    (void)f; (void)prio;
    return cudaStreamCreate(s);
}
cudaError_t cudaStreamDestroy(cudaStream_t s) { (void)s; return RT("sticky_check", ""); }
cudaError_t cudaStreamSynchronize(cudaStream_t s) { (void)s; return RT("synchronize", ""); }
cudaError_t cudaStreamQuery(cudaStream_t s) { (void)s; return RT("sticky_check", ""); }
/* Streams run in order and every launch has finished when its call returns, so a host callback
 * enqueued now runs now, on the calling thread, after all the stream's earlier work. */
cudaError_t cudaStreamAddCallback(cudaStream_t s, cudaStreamCallback_t cb, void *user, unsigned int flags) {
    (void)flags;
    if (!cb) return cudaErrorInvalidValue;
    if (warpsim_capturing(s)) return cudaErrorStreamCaptureUnsupported;    /* as CUDA: use cudaLaunchHostFunc */
    cudaError_t status = RT("sticky_check", "");
    cb(s, status, user);
    return cudaSuccess;
}
cudaError_t cudaLaunchHostFunc(cudaStream_t s, cudaHostFn_t fn, void *user) {
    if (!fn) return cudaErrorInvalidValue;
    if (warpsim_capturing(s)) return warpsim_capture_host(fn, user, s);
    cudaError_t status = RT("sticky_check", "");
    if (status != cudaSuccess) return status;
    fn(user);
    return cudaSuccess;
}
cudaError_t cudaStreamWaitEvent(cudaStream_t s, cudaEvent_t e, unsigned int f) {
    (void)f;
    if (warpsim_capture_join(s, e)) return cudaSuccess;      /* s joins a stream capture */
    return RT("sticky_check", "");
}
cudaError_t cudaEventCreate(cudaEvent_t *e) { return RT("event_create", "K", P(e)); }
cudaError_t cudaEventCreateWithFlags(cudaEvent_t *e, unsigned int f) { (void)f; return cudaEventCreate(e); }
cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s) {
    if (warpsim_capturing(s)) {          /* marks the capture, for streams that will wait on it */
        warpsim_capture_event(e, s);
        return cudaSuccess;
    }
    return RT("event_record", "KK", P(e), P(s));
}
cudaError_t cudaEventRecordWithFlags(cudaEvent_t e, cudaStream_t s, unsigned int f) {
    (void)f;
    return cudaEventRecord(e, s);
}
cudaError_t cudaEventSynchronize(cudaEvent_t e) { (void)e; return RT("synchronize", ""); }
cudaError_t cudaEventQuery(cudaEvent_t e) { (void)e; return RT("sticky_check", ""); }
cudaError_t cudaEventDestroy(cudaEvent_t e) { (void)e; return RT("sticky_check", ""); }
cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t a, cudaEvent_t b) {
    double v = 0.0;
    cudaError_t e = RT("event_elapsed", "KKK", P(&v), P(a), P(b));
    warpsim_finish_last();
    *ms = (float)v;
    return e;
}


/* Stream-ordered allocation: the device has one memory pool, and allocations in stream order are
 * ordinary allocations made now (every earlier operation of the stream has completed). Pool
 * attributes that only steer when memory returns to the system are kept and reported back. */
static int g_pool;

cudaError_t cudaDeviceGetDefaultMemPool(cudaMemPool_t *pool, int dev) {
    if (dev != 0) return cudaErrorInvalidDevice;
    if (!pool) return cudaErrorInvalidValue;
    *pool = (cudaMemPool_t)&g_pool;
    return cudaSuccess;
}
cudaError_t cudaDeviceGetMemPool(cudaMemPool_t *pool, int dev) { return cudaDeviceGetDefaultMemPool(pool, dev); }
cudaError_t cudaMallocAsync(void **p, size_t n, cudaStream_t s) {
    if (warpsim_capturing(s)) return warpsim_capture_alloc(p, n, s);
    return RT("malloc", "KK", P(p), (u64)n);
}
cudaError_t cudaMallocFromPoolAsync(void **p, size_t n, cudaMemPool_t pool, cudaStream_t s) {
    (void)s;
    if (pool != (cudaMemPool_t)&g_pool) return (cudaError_t)warpsim_unsupported("memory pools other than the device's default");
    return RT("malloc", "KK", P(p), (u64)n);
}
cudaError_t cudaFreeAsync(void *p, cudaStream_t s) {
    if (warpsim_capturing(s)) return warpsim_capture_free(p, s);
    return RT("free", "K", P(p));
}
cudaError_t cudaMemPoolTrimTo(cudaMemPool_t pool, size_t keep) {
    (void)keep;
    return pool == (cudaMemPool_t)&g_pool ? cudaSuccess : cudaErrorInvalidValue;
}
cudaError_t cudaMemPoolSetAttribute(cudaMemPool_t pool, enum cudaMemPoolAttr attr, void *value) {
    if (pool != (cudaMemPool_t)&g_pool || !value) return cudaErrorInvalidValue;
    return RT("mempool_attribute", "iKi", (int)attr, P(value), 1);
}
cudaError_t cudaMemPoolGetAttribute(cudaMemPool_t pool, enum cudaMemPoolAttr attr, void *value) {
    if (pool != (cudaMemPool_t)&g_pool || !value) return cudaErrorInvalidValue;
    return RT("mempool_attribute", "iKi", (int)attr, P(value), 0);
}
