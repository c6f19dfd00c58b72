/* warpsim's CUDA runtime: a libcudart replacement whose calls go to warpsim's Python host API.
 *
 * The program's own process embeds CPython (started on the first CUDA call) and imports
 * warpsim.frontend.cudart.runtime; every entry point below forwards plain integers to a method of
 * its Runtime object. Device memory is one region mapped at warpsim's GLOBAL_BASE in this process,
 * so device addresses are also valid host addresses (managed memory is simply device memory).
 *
 * Built by warpsim.frontend.cudart.build against the CUDA toolkit's headers (for the exact struct
 * layouts and enum values of that toolkit), together with generated stubs that answer every other
 * runtime function with cudaErrorNotSupported.
 */
#define _GNU_SOURCE
#include "cudart_shim.h"
#include "cudart_graphs.h"
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#ifndef WARPSIM_GLOBAL_BASE
#define WARPSIM_GLOBAL_BASE 0x7F0000000000ULL
#endif
#define DEFAULT_REGION (16ULL << 30)

static PyObject *g_rt = NULL;
static int g_state = 0;              /* 0: not started, 1: running, -1: failed */
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static u64 g_region_bytes = 0;
static int g_region_ok = 0;

/* ---------------------------------------------------------------- device memory region ---- */

static void reexec_self(void) {
    /* Address-space randomisation put something where device memory must live: run the program
     * again (nothing of it has run yet; constructors of libraries only). */
    const char *n = getenv("WARPSIM_CUDART_REEXEC");
    int tries = n ? atoi(n) : 0;
    if (tries >= 4) return;
    char buf[16];
    snprintf(buf, sizeof buf, "%d", tries + 1);
    setenv("WARPSIM_CUDART_REEXEC", buf, 1);
    FILE *f = fopen("/proc/self/cmdline", "rb");
    if (!f) return;
    static char cmd[1 << 16];
    size_t len = fread(cmd, 1, sizeof cmd - 1, f);
    fclose(f);
    cmd[len] = 0;
    char *argv[1024];
    int argc = 0;
    for (size_t i = 0; i < len && argc < 1023; i += strlen(cmd + i) + 1) argv[argc++] = cmd + i;
    argv[argc] = NULL;
    execv("/proc/self/exe", argv);
}

__attribute__((constructor)) static void warpsim_map_region(void) {
    const char *s = getenv("WARPSIM_DEVICE_BYTES");
    g_region_bytes = s ? strtoull(s, NULL, 0) : DEFAULT_REGION;
    void *want = (void *)WARPSIM_GLOBAL_BASE;
    void *p = mmap(want, g_region_bytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
    if (p == want) {
        g_region_ok = 1;
        return;
    }
    if (p != MAP_FAILED) munmap(p, g_region_bytes);
    reexec_self();
    fprintf(stderr, "warpsim: cannot map device memory at 0x%llx (%llu bytes); "
                    "set WARPSIM_DEVICE_BYTES to a smaller size\n", (u64)WARPSIM_GLOBAL_BASE, g_region_bytes);
}

/* ---------------------------------------------------------------- Python bridge ---------- */

static int g_finished = 0;

static void warpsim_finish(void) {
    if (g_state != 1 || g_finished) return;
    g_finished = 1;
    PyGILState_STATE st = PyGILState_Ensure();
    PyObject *r = PyObject_CallMethod(g_rt, "finish", NULL);
    if (!r) PyErr_Print();
    Py_XDECREF(r);
    fflush(stdout);
    PyGILState_Release(st);
}

int warpsim_ensure_py(void) {
    if (g_state) return g_state < 0;
    pthread_mutex_lock(&g_lock);
    if (!g_state) {
        int started_here = 0;
        if (!Py_IsInitialized()) {
            Py_InitializeEx(0);
            started_here = 1;
        }
        PyGILState_STATE st = PyGILState_Ensure();
        PyObject *m = PyImport_ImportModule("warpsim.frontend.cudart.runtime");
        if (m) {
            g_rt = PyObject_CallMethod(m, "start", "KKi", (u64)WARPSIM_GLOBAL_BASE, g_region_bytes,
                                       (int)CUDART_VERSION);
            Py_DECREF(m);
        }
        if (!g_rt || !g_region_ok) {
            if (PyErr_Occurred()) PyErr_Print();
            fprintf(stderr, "warpsim: the warpsim CUDA runtime could not start (see above)\n");
            g_state = -1;
        } else {
            g_state = 1;
            atexit(warpsim_finish);
        }
        PyGILState_Release(st);
        if (started_here) PyEval_SaveThread();
    }
    pthread_mutex_unlock(&g_lock);
    return g_state < 0;
}

/* Call Runtime.<meth>(*args) built from `fmt` (a Py_BuildValue tuple format); the method returns
 * a cudaError_t as an int. */
long warpsim_call_rt(const char *meth, const char *fmt, ...) {
    if (warpsim_ensure_py()) return cudaErrorInitializationError;
    PyGILState_STATE st = PyGILState_Ensure();
    va_list ap;
    va_start(ap, fmt);
    PyObject *args = Py_VaBuildValue(fmt, ap);
    va_end(ap);
    long code = cudaErrorUnknown;
    PyObject *f = args ? PyObject_GetAttrString(g_rt, meth) : NULL;
    PyObject *r = f ? PyObject_CallObject(f, args) : NULL;
    if (r) {
        code = PyLong_AsLong(r);
    }
    if (PyErr_Occurred()) {
        fprintf(stderr, "warpsim: internal error in the CUDA runtime (%s):\n", meth);
        PyErr_Print();
        code = cudaErrorUnknown;
    }
    Py_XDECREF(r);
    Py_XDECREF(f);
    Py_XDECREF(args);
    PyGILState_Release(st);
    return code;
}

/* Read a dict {field: int} the runtime returns for a struct, and look values up by name. */
PyObject *warpsim_call_obj(const char *meth, const char *fmt, ...) {
    if (warpsim_ensure_py()) return NULL;
    va_list ap;
    va_start(ap, fmt);
    PyObject *args = Py_VaBuildValue(fmt, ap);
    va_end(ap);
    PyObject *f = args ? PyObject_GetAttrString(g_rt, meth) : NULL;
    PyObject *r = f ? PyObject_CallObject(f, args) : NULL;
    if (!r) {
        fprintf(stderr, "warpsim: internal error in the CUDA runtime (%s):\n", meth);
        PyErr_Print();
    }
    Py_XDECREF(f);
    Py_XDECREF(args);
    return r;
}

long long warpsim_dget(PyObject *d, const char *key) {
    PyObject *v = PyDict_GetItemString(d, key);
    if (!v) return 0;
    long long x = PyLong_AsLongLong(v);
    if (PyErr_Occurred()) { PyErr_Clear(); return 0; }
    return x;
}

int warpsim_unsupported(const char *name) {
    return (int)RT("unsupported", "s", name);
}

/* ---------------------------------------------------------------- registration ---------- */

void **__cudaRegisterFatBinary(void *fatCubin) {
    static u64 next_handle[4096];
    static int n = 0;
    if (RT("register_fatbinary", "KK", P(fatCubin), P(&next_handle[n % 4096])) != cudaSuccess)
        return (void **)&next_handle[n++ % 4096];
    return (void **)&next_handle[n++ % 4096];
}

void __cudaRegisterFatBinaryEnd(void **h) { (void)h; }

void __cudaUnregisterFatBinary(void **h) { (void)h; }

char __cudaInitModule(void **h) { (void)h; return 1; }

void __cudaRegisterFunction(void **h, const char *hostFun, char *deviceFun, const char *deviceName,
                            int thread_limit, uint3 *tid, uint3 *bid, dim3 *bDim, dim3 *gDim, int *wSize) {
    (void)deviceFun; (void)thread_limit; (void)tid; (void)bid; (void)bDim; (void)gDim; (void)wSize;
    RT("register_function", "KKs", P(h), P(hostFun), deviceName);
}

void __cudaRegisterVar(void **h, char *hostVar, char *deviceAddress, const char *deviceName, int ext,
                       size_t size, int constant, int global) {
    (void)deviceAddress; (void)ext; (void)global;
    RT("register_var", "KKsKi", P(h), P(hostVar), deviceName, (u64)size, constant);
}

void __cudaRegisterManagedVar(void **h, void **hostVarPtrAddress, char *deviceAddress,
                              const char *deviceName, int ext, size_t size, int constant, int global) {
    (void)deviceAddress; (void)ext; (void)constant; (void)global;
    RT("register_managed_var", "KKsK", P(h), P(hostVarPtrAddress), deviceName, (u64)size);
}

void __cudaRegisterTexture(void **h, const struct textureReference *hostVar, const void **deviceAddress,
                           const char *deviceName, int dim, int norm, int ext) {
    (void)h; (void)hostVar; (void)deviceAddress; (void)deviceName; (void)dim; (void)norm; (void)ext;
    warpsim_unsupported("__cudaRegisterTexture (texture references)");
}

void __cudaRegisterSurface(void **h, const struct surfaceReference *hostVar, const void **deviceAddress,
                           const char *deviceName, int dim, int ext) {
    (void)h; (void)hostVar; (void)deviceAddress; (void)deviceName; (void)dim; (void)ext;
    warpsim_unsupported("__cudaRegisterSurface (surface references)");
}

/* ---------------------------------------------------------------- launches --------------- */

static __thread struct { dim3 g, b; size_t shm; void *stream; } g_cfg[64];
static __thread int g_ncfg = 0;

unsigned __cudaPushCallConfiguration(dim3 gridDim, dim3 blockDim, size_t sharedMem, struct CUstream_st *stream) {
    if (g_ncfg >= 64) return 1;
    g_cfg[g_ncfg].g = gridDim;
    g_cfg[g_ncfg].b = blockDim;
    g_cfg[g_ncfg].shm = sharedMem;
    g_cfg[g_ncfg].stream = stream;
    g_ncfg++;
    return 0;
}

cudaError_t __cudaPopCallConfiguration(dim3 *gridDim, dim3 *blockDim, size_t *sharedMem, void *stream) {
    if (g_ncfg <= 0) return cudaErrorInvalidConfiguration;
    g_ncfg--;
    *gridDim = g_cfg[g_ncfg].g;
    *blockDim = g_cfg[g_ncfg].b;
    *sharedMem = g_cfg[g_ncfg].shm;
    *(void **)stream = g_cfg[g_ncfg].stream;
    return cudaSuccess;
}

/* The result document is written by an exit handler, whose timing simulation runs numba-compiled code
 * through LLVM. Static objects that LLVM (or any library) constructs lazily during a launch register
 * their destructors then, later than a handler registered once at start-up, so at exit they would be
 * destroyed before it runs (garbage strings, segmentation faults). Registering the handler again after
 * every call that may run compiled code keeps it the most recent one; it runs once (g_finished). */
void warpsim_finish_last(void) {
    if (g_state == 1 && !g_finished) atexit(warpsim_finish);
}

static cudaError_t launch(const void *func, dim3 g, dim3 b, void **args, size_t shm, cudaStream_t s) {
    if (warpsim_capturing(s)) return warpsim_capture_kernel(func, g, b, args, shm, s);
    cudaError_t e = RT("launch", "KIIIIIIKKK", P(func), g.x, g.y, g.z, b.x, b.y, b.z, P(args), (u64)shm, P(s));
    warpsim_finish_last();
    return e;
}

#if CUDART_VERSION >= 13000
cudaError_t __cudaGetKernel(cudaKernel_t *kernel, const void *func) {
    *kernel = (cudaKernel_t)func;     /* the host stub's address identifies the kernel */
    return cudaSuccess;
}

cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 g, dim3 b, void **args, size_t shm, cudaStream_t s) {
    return launch((const void *)kernel, g, b, args, shm, s);
}

cudaError_t __cudaLaunchKernel_ptsz(cudaKernel_t kernel, dim3 g, dim3 b, void **args, size_t shm,
                                    cudaStream_t s) {
    return launch((const void *)kernel, g, b, args, shm, s);
}
#endif

cudaError_t cudaLaunchKernel(const void *func, dim3 g, dim3 b, void **args, size_t shm, cudaStream_t s) {
    return launch(func, g, b, args, shm, s);
}

/* A kernel that calls grid.sync() runs with its whole grid co-resident however it is launched
   (the emulator finds the grid-sync workspace registers; the timing model refuses a grid that does
   not fit), so a cooperative launch is an ordinary one. */
cudaError_t cudaLaunchCooperativeKernel(const void *func, dim3 g, dim3 b, void **args, size_t shm,
                                        cudaStream_t s) {
    return launch(func, g, b, args, shm, s);
}
cudaError_t cudaLaunchCooperativeKernel_ptsz(const void *func, dim3 g, dim3 b, void **args, size_t shm,
                                             cudaStream_t s) {
    return launch(func, g, b, args, shm, s);
}

/* ---------------------------------------------------------------- memory ---------------- */

cudaError_t cudaMalloc(void **p, size_t n) { return RT("malloc", "KK", P(p), (u64)n); }
cudaError_t cudaMallocManaged(void **p, size_t n, unsigned int flags) {
    (void)flags;
    return RT("malloc", "KK", P(p), (u64)n);
}
cudaError_t cudaMallocPitch(void **p, size_t *pitch, size_t w, size_t h) {
    return RT("malloc_pitch", "KKKK", P(p), P(pitch), (u64)w, (u64)h);
}
cudaError_t cudaFree(void *p) { return RT("free", "K", P(p)); }

/* Page-locked host memory is allocated inside the device region, so kernels can use it directly as
 * they can on a GPU with unified addressing (zero-copy); its device pointer is its host pointer. */
cudaError_t cudaMallocHost(void **p, size_t n) { return RT("malloc_host", "KK", P(p), (u64)n); }
cudaError_t cudaHostAlloc(void **p, size_t n, unsigned int flags) { (void)flags; return cudaMallocHost(p, n); }
cudaError_t cudaFreeHost(void *p) { return RT("free_host", "K", P(p)); }
cudaError_t cudaHostGetDevicePointer(void **d, void *h, unsigned int flags) {
    (void)flags;
    return RT("host_device_pointer", "KK", P(d), P(h));
}
cudaError_t cudaHostGetFlags(unsigned int *flags, void *h) {
    void *d = NULL;
    cudaError_t e = cudaHostGetDevicePointer(&d, h, 0);
    if (e == cudaSuccess && flags) *flags = cudaHostAllocMapped | cudaHostAllocPortable;
    return e;
}
/* Registering memory the program allocated itself pins nothing here (copies to and from it work as
 * they do from any host memory). Kernels cannot address it, since it lies outside warpsim's device
 * region: cudaHostGetDevicePointer refuses it, and a kernel given its address faults loudly
 * (cudaErrorIllegalAddress), so a program that maps it for kernels cannot get a wrong result. */
cudaError_t cudaHostRegister(void *p, size_t n, unsigned int flags) {
    (void)flags;
    return p && n ? cudaSuccess : cudaErrorInvalidValue;
}
cudaError_t cudaHostUnregister(void *p) { (void)p; return cudaSuccess; }

cudaError_t cudaMemcpy(void *dst, const void *src, size_t n, enum cudaMemcpyKind kind) {
    return RT("memcpy", "KKKiK", P(dst), P(src), (u64)n, (int)kind, 0ULL);
}
cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t n, enum cudaMemcpyKind kind, cudaStream_t s) {
    if (warpsim_capturing(s)) return warpsim_capture_memcpy(dst, src, n, kind, s);
    return RT("memcpy", "KKKiK", P(dst), P(src), (u64)n, (int)kind, P(s));
}
cudaError_t cudaMemcpy2D(void *dst, size_t dpitch, const void *src, size_t spitch, size_t w, size_t h,
                         enum cudaMemcpyKind kind) {
    return RT("memcpy2d", "KKKKKKiK", P(dst), (u64)dpitch, P(src), (u64)spitch, (u64)w, (u64)h, (int)kind, 0ULL);
}
cudaError_t cudaMemcpy2DAsync(void *dst, size_t dpitch, const void *src, size_t spitch, size_t w, size_t h,
                              enum cudaMemcpyKind kind, cudaStream_t s) {
    return RT("memcpy2d", "KKKKKKiK", P(dst), (u64)dpitch, P(src), (u64)spitch, (u64)w, (u64)h, (int)kind, P(s));
}
cudaError_t cudaMemcpyToSymbol(const void *sym, const void *src, size_t n, size_t off, enum cudaMemcpyKind kind) {
    return RT("memcpy_symbol", "KKKKii", P(sym), P(src), (u64)n, (u64)off, (int)kind, 1);
}
cudaError_t cudaMemcpyToSymbolAsync(const void *sym, const void *src, size_t n, size_t off,
                                    enum cudaMemcpyKind kind, cudaStream_t s) {
    (void)s;
    return RT("memcpy_symbol", "KKKKii", P(sym), P(src), (u64)n, (u64)off, (int)kind, 1);
}
cudaError_t cudaMemcpyFromSymbol(void *dst, const void *sym, size_t n, size_t off, enum cudaMemcpyKind kind) {
    return RT("memcpy_symbol", "KKKKii", P(sym), P(dst), (u64)n, (u64)off, (int)kind, 0);
}
cudaError_t cudaMemcpyFromSymbolAsync(void *dst, const void *sym, size_t n, size_t off,
                                      enum cudaMemcpyKind kind, cudaStream_t s) {
    (void)s;
    return RT("memcpy_symbol", "KKKKii", P(sym), P(dst), (u64)n, (u64)off, (int)kind, 0);
}
cudaError_t cudaGetSymbolAddress(void **p, const void *sym) { return RT("symbol_address", "KK", P(p), P(sym)); }
cudaError_t cudaGetSymbolSize(size_t *n, const void *sym) { return RT("symbol_size", "KK", P(n), P(sym)); }

cudaError_t cudaMemset(void *p, int v, size_t n) { return RT("memset", "KiK", P(p), v, (u64)n); }
cudaError_t cudaMemsetAsync(void *p, int v, size_t n, cudaStream_t s) {
    if (warpsim_capturing(s)) return warpsim_capture_memset(p, v, n, s);
    return RT("memset", "KiK", P(p), v, (u64)n);
}
cudaError_t cudaMemset2D(void *p, size_t pitch, int v, size_t w, size_t h) {
    return RT("memset2d", "KKiKK", P(p), (u64)pitch, v, (u64)w, (u64)h);
}
cudaError_t cudaMemset2DAsync(void *p, size_t pitch, int v, size_t w, size_t h, cudaStream_t s) {
    (void)s;
    return RT("memset2d", "KKiKK", P(p), (u64)pitch, v, (u64)w, (u64)h);
}
cudaError_t cudaMemGetInfo(size_t *free_b, size_t *total) { return RT("mem_info", "KK", P(free_b), P(total)); }
cudaError_t cudaPointerGetAttributes(struct cudaPointerAttributes *a, const void *p) {
    memset(a, 0, sizeof *a);
    int dev = 0;                     /* 0: plain host memory, 1: device, 2: page-locked host */
    cudaError_t e = RT("pointer_kind", "KK", P(p), P(&dev));
    a->type = dev == 1 ? cudaMemoryTypeDevice : (dev == 2 ? cudaMemoryTypeHost : cudaMemoryTypeUnregistered);
    a->device = 0;
    a->devicePointer = dev ? (void *)p : NULL;
    a->hostPointer = dev == 1 ? NULL : (void *)p;
    return e;
}

/* ---------------------------------------------------------------- device ---------------- */

cudaError_t cudaGetDeviceCount(int *n) { *n = 1; return warpsim_ensure_py() ? cudaErrorInitializationError : cudaSuccess; }
cudaError_t cudaGetDevice(int *d) { *d = 0; return cudaSuccess; }
cudaError_t cudaSetDevice(int d) { return d == 0 ? cudaSuccess : cudaErrorInvalidDevice; }
cudaError_t cudaInitDevice(int d, unsigned int a, unsigned int b) { (void)a; (void)b; return cudaSetDevice(d); }
cudaError_t cudaChooseDevice(int *d, const struct cudaDeviceProp *p) { (void)p; *d = 0; return cudaSuccess; }
cudaError_t cudaSetDeviceFlags(unsigned int f) { (void)f; return cudaSuccess; }
cudaError_t cudaGetDeviceFlags(unsigned int *f) { *f = 0; return cudaSuccess; }
cudaError_t cudaDeviceReset(void) { return RT("device_reset", ""); }
cudaError_t cudaDeviceSynchronize(void) { return RT("synchronize", ""); }
cudaError_t cudaDeviceSetCacheConfig(enum cudaFuncCache c) { (void)c; return cudaSuccess; }
cudaError_t cudaDeviceGetCacheConfig(enum cudaFuncCache *c) { *c = cudaFuncCachePreferNone; return cudaSuccess; }
cudaError_t cudaDeviceSetLimit(enum cudaLimit l, size_t v) { (void)l; (void)v; return cudaSuccess; }
cudaError_t cudaFuncSetCacheConfig(const void *f, enum cudaFuncCache c) { (void)f; (void)c; return cudaSuccess; }
cudaError_t cudaFuncSetAttribute(const void *f, enum cudaFuncAttribute a, int v) {
    (void)f; (void)a; (void)v;
    return cudaSuccess;
}
cudaError_t cudaDriverGetVersion(int *v) { *v = CUDART_VERSION; return cudaSuccess; }
cudaError_t cudaRuntimeGetVersion(int *v) { *v = CUDART_VERSION; return cudaSuccess; }
cudaError_t cudaDeviceGetStreamPriorityRange(int *lo, int *hi) {
    if (lo) *lo = 0;
    if (hi) *hi = 0;
    return cudaSuccess;
}

#define FILL_INT(f) p->f = (int)warpsim_dget(d, #f)
#define FILL_SIZE(f) p->f = (size_t)warpsim_dget(d, #f)
#define FILL3(f) do { p->f[0] = (int)warpsim_dget(d, #f ".0"); p->f[1] = (int)warpsim_dget(d, #f ".1"); \
                      p->f[2] = (int)warpsim_dget(d, #f ".2"); } while (0)

cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *p, int dev) {
    if (dev != 0) return cudaErrorInvalidDevice;
    memset(p, 0, sizeof *p);
    PyGILState_STATE st;
    if (warpsim_ensure_py()) return cudaErrorInitializationError;
    st = PyGILState_Ensure();
    PyObject *d = warpsim_call_obj("properties", "()");
    if (!d) { PyGILState_Release(st); return cudaErrorUnknown; }
    PyObject *nm = PyDict_GetItemString(d, "name");
    const char *s = nm ? PyUnicode_AsUTF8(nm) : "warpsim";
    snprintf(p->name, sizeof p->name, "%s", s ? s : "warpsim");
    FILL_SIZE(totalGlobalMem); FILL_SIZE(sharedMemPerBlock); FILL_INT(regsPerBlock); FILL_INT(warpSize);
    FILL_SIZE(memPitch); FILL_INT(maxThreadsPerBlock); FILL3(maxThreadsDim); FILL3(maxGridSize);
    FILL_SIZE(totalConstMem); FILL_INT(major); FILL_INT(minor); FILL_SIZE(textureAlignment);
    FILL_SIZE(texturePitchAlignment); FILL_INT(multiProcessorCount); FILL_INT(canMapHostMemory);
    FILL_INT(concurrentKernels); FILL_INT(asyncEngineCount); FILL_INT(unifiedAddressing);
    FILL_INT(memoryBusWidth); FILL_INT(l2CacheSize); FILL_INT(maxThreadsPerMultiProcessor);
    FILL_SIZE(sharedMemPerMultiprocessor); FILL_INT(regsPerMultiprocessor); FILL_INT(managedMemory);
    FILL_INT(computePreemptionSupported); FILL_SIZE(sharedMemPerBlockOptin);
    FILL_INT(maxBlocksPerMultiProcessor); FILL_SIZE(reservedSharedMemPerBlock);
    FILL_INT(globalL1CacheSupported); FILL_INT(localL1CacheSupported); FILL_INT(concurrentManagedAccess);
    FILL_INT(pageableMemoryAccess); FILL_INT(directManagedMemAccessFromHost); FILL_INT(pciBusID);
    FILL_INT(integrated); FILL_INT(ECCEnabled); FILL_INT(cooperativeLaunch); FILL_INT(memoryPoolsSupported);
    FILL_INT(maxTexture1D); FILL3(maxTexture3D); FILL3(maxTexture2DLayered); FILL_SIZE(surfaceAlignment);
    for (int i = 0; i < 2; i++) {
        char key[32];
        snprintf(key, sizeof key, "maxTexture2D.%d", i);
        p->maxTexture2D[i] = (int)warpsim_dget(d, key);
        snprintf(key, sizeof key, "maxTexture1DLayered.%d", i);
        p->maxTexture1DLayered[i] = (int)warpsim_dget(d, key);
    }
#if CUDART_VERSION < 13000
    FILL_INT(clockRate); FILL_INT(memoryClockRate); FILL_INT(kernelExecTimeoutEnabled);
    FILL_INT(computeMode);
#endif
    Py_DECREF(d);
    PyGILState_Release(st);
    return cudaSuccess;
}
#if CUDART_VERSION >= 12000 && CUDART_VERSION < 13000
#undef cudaGetDeviceProperties
cudaError_t cudaGetDeviceProperties_v2(struct cudaDeviceProp *p, int dev) { return cudaGetDeviceProperties(p, dev); }
#endif

static const struct { int attr; const char *key; } ATTRS[] = {
    {cudaDevAttrMaxThreadsPerBlock, "maxThreadsPerBlock"},
    {cudaDevAttrMaxBlockDimX, "maxThreadsDim.0"}, {cudaDevAttrMaxBlockDimY, "maxThreadsDim.1"},
    {cudaDevAttrMaxBlockDimZ, "maxThreadsDim.2"}, {cudaDevAttrMaxGridDimX, "maxGridSize.0"},
    {cudaDevAttrMaxGridDimY, "maxGridSize.1"}, {cudaDevAttrMaxGridDimZ, "maxGridSize.2"},
    {cudaDevAttrMaxSharedMemoryPerBlock, "sharedMemPerBlock"}, {cudaDevAttrTotalConstantMemory, "totalConstMem"},
    {cudaDevAttrWarpSize, "warpSize"}, {cudaDevAttrMaxPitch, "memPitch"},
    {cudaDevAttrMaxRegistersPerBlock, "regsPerBlock"}, {cudaDevAttrClockRate, "clockRate"},
    {cudaDevAttrTextureAlignment, "textureAlignment"}, {cudaDevAttrMultiProcessorCount, "multiProcessorCount"},
    {cudaDevAttrIntegrated, "integrated"}, {cudaDevAttrCanMapHostMemory, "canMapHostMemory"},
    {cudaDevAttrConcurrentKernels, "concurrentKernels"}, {cudaDevAttrMemoryClockRate, "memoryClockRate"},
    {cudaDevAttrGlobalMemoryBusWidth, "memoryBusWidth"}, {cudaDevAttrL2CacheSize, "l2CacheSize"},
    {cudaDevAttrMaxThreadsPerMultiProcessor, "maxThreadsPerMultiProcessor"},
    {cudaDevAttrAsyncEngineCount, "asyncEngineCount"}, {cudaDevAttrUnifiedAddressing, "unifiedAddressing"},
    {cudaDevAttrComputeCapabilityMajor, "major"}, {cudaDevAttrComputeCapabilityMinor, "minor"},
    {cudaDevAttrMaxSharedMemoryPerMultiprocessor, "sharedMemPerMultiprocessor"},
    {cudaDevAttrMaxRegistersPerMultiprocessor, "regsPerMultiprocessor"},
    {cudaDevAttrManagedMemory, "managedMemory"}, {cudaDevAttrConcurrentManagedAccess, "concurrentManagedAccess"},
    {cudaDevAttrMaxSharedMemoryPerBlockOptin, "sharedMemPerBlockOptin"},
    {cudaDevAttrMaxBlocksPerMultiprocessor, "maxBlocksPerMultiProcessor"},
    {cudaDevAttrReservedSharedMemoryPerBlock, "reservedSharedMemPerBlock"},
    {cudaDevAttrGlobalL1CacheSupported, "globalL1CacheSupported"},
    {cudaDevAttrLocalL1CacheSupported, "localL1CacheSupported"},
    {cudaDevAttrComputePreemptionSupported, "computePreemptionSupported"},
    {cudaDevAttrPageableMemoryAccess, "pageableMemoryAccess"},
    {cudaDevAttrDirectManagedMemAccessFromHost, "directManagedMemAccessFromHost"},
    {cudaDevAttrPciBusId, "pciBusID"}, {cudaDevAttrKernelExecTimeout, "kernelExecTimeoutEnabled"},
    {cudaDevAttrComputeMode, "computeMode"}, {cudaDevAttrEccEnabled, "ECCEnabled"},
    {cudaDevAttrCooperativeLaunch, "cooperativeLaunch"}, {cudaDevAttrGpuOverlap, "gpuOverlap"},
    {cudaDevAttrMemoryPoolsSupported, "memoryPoolsSupported"},
    {cudaDevAttrMaxTexture1DWidth, "maxTexture1D"}, {cudaDevAttrMaxTexture2DWidth, "maxTexture2D.0"},
    {cudaDevAttrMaxTexture2DHeight, "maxTexture2D.1"}, {cudaDevAttrMaxTexture3DWidth, "maxTexture3D.0"},
    {cudaDevAttrMaxTexture3DHeight, "maxTexture3D.1"}, {cudaDevAttrMaxTexture3DDepth, "maxTexture3D.2"},
    {cudaDevAttrMaxTexture2DLayeredWidth, "maxTexture2DLayered.0"},
    {cudaDevAttrMaxTexture2DLayeredHeight, "maxTexture2DLayered.1"},
    {cudaDevAttrMaxTexture2DLayeredLayers, "maxTexture2DLayered.2"},
    {cudaDevAttrSurfaceAlignment, "surfaceAlignment"},
};

cudaError_t cudaDeviceGetAttribute(int *value, enum cudaDeviceAttr attr, int dev) {
    if (dev != 0) return cudaErrorInvalidDevice;
    for (size_t i = 0; i < sizeof ATTRS / sizeof ATTRS[0]; i++)
        if (ATTRS[i].attr == (int)attr) return RT("attribute", "Ks", P(value), ATTRS[i].key);
    char buf[96];
    snprintf(buf, sizeof buf, "cudaDeviceGetAttribute(attribute %d)", (int)attr);
    return (cudaError_t)warpsim_unsupported(buf);
}

cudaError_t cudaFuncGetAttributes(struct cudaFuncAttributes *a, const void *func) {
    memset(a, 0, sizeof *a);
    if (warpsim_ensure_py()) return cudaErrorInitializationError;
    PyGILState_STATE st = PyGILState_Ensure();
    PyObject *d = warpsim_call_obj("func_attributes", "(K)", P(func));
    cudaError_t e = cudaErrorUnknown;
    if (d) {
        e = (cudaError_t)warpsim_dget(d, "error");
        a->sharedSizeBytes = (size_t)warpsim_dget(d, "sharedSizeBytes");
        a->constSizeBytes = (size_t)warpsim_dget(d, "constSizeBytes");
        a->localSizeBytes = (size_t)warpsim_dget(d, "localSizeBytes");
        a->maxThreadsPerBlock = (int)warpsim_dget(d, "maxThreadsPerBlock");
        a->numRegs = (int)warpsim_dget(d, "numRegs");
        a->ptxVersion = (int)warpsim_dget(d, "ptxVersion");
        a->binaryVersion = (int)warpsim_dget(d, "binaryVersion");
        a->maxDynamicSharedSizeBytes = (int)warpsim_dget(d, "maxDynamicSharedSizeBytes");
        a->preferredShmemCarveout = -1;
        Py_DECREF(d);
    }
    PyGILState_Release(st);
    return e;
}

cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *n, const void *func, int bs, size_t dyn) {
    return RT("occupancy", "KKiK", P(n), P(func), bs, (u64)dyn);
}
cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int *n, const void *func, int bs, size_t dyn,
                                                                   unsigned int flags) {
    (void)flags;
    return RT("occupancy", "KKiK", P(n), P(func), bs, (u64)dyn);
}

/* ---------------------------------------------------------------- errors ---------------- */

cudaError_t cudaGetLastError(void) { return RT("get_last_error", "i", 1); }
cudaError_t cudaPeekAtLastError(void) { return RT("get_last_error", "i", 0); }

extern const char *warpsim_error_name(int code);     /* generated from driver_types.h */

const char *cudaGetErrorName(cudaError_t e) { return warpsim_error_name((int)e); }

const char *cudaGetErrorString(cudaError_t e) {
    switch (e) {
    case cudaSuccess: return "no error";
    case cudaErrorInvalidValue: return "invalid argument";
    case cudaErrorMemoryAllocation: return "out of memory";
    case cudaErrorInitializationError: return "initialization error";
    case cudaErrorInvalidConfiguration: return "invalid configuration argument";
    case cudaErrorInvalidDevicePointer: return "invalid device pointer";
    case cudaErrorInvalidMemcpyDirection: return "invalid copy direction for memcpy";
    case cudaErrorInvalidDeviceFunction: return "invalid device function";
    case cudaErrorInvalidSymbol: return "invalid device symbol";
    case cudaErrorInvalidResourceHandle: return "invalid resource handle";
    case cudaErrorNotSupported: return "operation not supported (by warpsim's CUDA runtime)";
    case cudaErrorIllegalAddress: return "an illegal memory access was encountered";
    case cudaErrorLaunchFailure: return "unspecified launch failure";
    case cudaErrorAssert: return "device-side assert triggered";
    case cudaErrorNoKernelImageForDevice: return "no kernel image is available for execution on the device";
    case cudaErrorInvalidPtx: return "a PTX JIT compilation failed";
    case cudaErrorInvalidDevice: return "invalid device ordinal";
    case cudaErrorNotReady: return "device not ready";
    default: return warpsim_error_name((int)e);
    }
}

/* cuda_profiler_api.h: profiling ranges mean nothing here. */
cudaError_t cudaProfilerStart(void) { return cudaSuccess; }
cudaError_t cudaProfilerStop(void) { return cudaSuccess; }
