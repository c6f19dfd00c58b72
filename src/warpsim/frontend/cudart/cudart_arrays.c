/* warpsim's CUDA runtime: CUDA arrays, texture objects and surface objects.
 *
 * A CUDA array is device memory in row-major order (rows of width x texel bytes, then slices); its
 * handle is its device address. Texture and surface objects are 64-bit handles of the emulator's
 * texture table (warpsim.frontend.ptx.textures). The structs are read here, field by field, and
 * passed to the Python runtime as integers (warpsim.frontend.cudart.arrays).
 */
#include "cudart_shim.h"
#include <string.h>

struct cudaChannelFormatDesc cudaCreateChannelDesc(int x, int y, int z, int w, enum cudaChannelFormatKind f) {
    struct cudaChannelFormatDesc d;
    d.x = x; d.y = y; d.z = z; d.w = w; d.f = f;
    return d;
}

#define DESC(d) (d)->x, (d)->y, (d)->z, (d)->w, (int)(d)->f

cudaError_t cudaMallocArray(cudaArray_t *a, const struct cudaChannelFormatDesc *d, size_t w, size_t h,
                            unsigned int flags) {
    if (!a || !d) return cudaErrorInvalidValue;
    return RT("malloc_array", "KiiiiiKKKI", P(a), DESC(d), (u64)w, (u64)h, 0ULL, flags);
}

cudaError_t cudaMalloc3DArray(cudaArray_t *a, const struct cudaChannelFormatDesc *d, struct cudaExtent e,
                              unsigned int flags) {
    if (!a || !d) return cudaErrorInvalidValue;
    return RT("malloc_array", "KiiiiiKKKI", P(a), DESC(d), (u64)e.width, (u64)e.height, (u64)e.depth, flags);
}

cudaError_t cudaFreeArray(cudaArray_t a) { return RT("free_array", "K", P(a)); }

cudaError_t cudaMalloc3D(struct cudaPitchedPtr *p, struct cudaExtent e) {
    if (!p) return cudaErrorInvalidValue;
    size_t pitch = 0;
    cudaError_t r = RT("malloc_3d", "KKKKK", P(&p->ptr), P(&pitch), (u64)e.width, (u64)e.height, (u64)e.depth);
    p->pitch = pitch;
    p->xsize = e.width;
    p->ysize = e.height;
    return r;
}

static cudaError_t array_info(cudaArray_const_t a, struct cudaChannelFormatDesc *desc, struct cudaExtent *ext,
                              unsigned int *flags) {
    if (warpsim_ensure_py()) return cudaErrorInitializationError;
    PyGILState_STATE st = PyGILState_Ensure();
    PyObject *d = warpsim_call_obj("array_info", "(K)", P(a));
    cudaError_t e = cudaErrorUnknown;
    if (d) {
        e = (cudaError_t)warpsim_dget(d, "error");
        if (e == cudaSuccess) {
            if (desc) {
                desc->x = (int)warpsim_dget(d, "x"); desc->y = (int)warpsim_dget(d, "y");
                desc->z = (int)warpsim_dget(d, "z"); desc->w = (int)warpsim_dget(d, "w");
                desc->f = (enum cudaChannelFormatKind)warpsim_dget(d, "f");
            }
            if (ext) {
                ext->width = (size_t)warpsim_dget(d, "width");
                ext->height = (size_t)warpsim_dget(d, "height");
                ext->depth = (size_t)warpsim_dget(d, "depth");
            }
            if (flags) *flags = (unsigned int)warpsim_dget(d, "flags");
        }
        Py_DECREF(d);
    }
    PyGILState_Release(st);
    return e;
}

cudaError_t cudaGetChannelDesc(struct cudaChannelFormatDesc *desc, cudaArray_const_t a) {
    return array_info(a, desc, NULL, NULL);
}

cudaError_t cudaArrayGetInfo(struct cudaChannelFormatDesc *desc, struct cudaExtent *ext, unsigned int *flags,
                             cudaArray_t a) {
    return array_info(a, desc, ext, flags);
}

/* ---------------------------------------------------------------- copies ----------------- */

/* One 2-D copy between pitched memory and/or arrays: (array or 0, x in bytes, row) on each side. */
static cudaError_t copy2d(u64 dst_arr, u64 dst, u64 dpitch, u64 dx, u64 dy, u64 src_arr, u64 src, u64 spitch,
                          u64 sx, u64 sy, u64 width, u64 height, int kind, const char *what) {
    return RT("memcpy_arrays", "KKKKKKKKKKKKKKKis", dst_arr, dst, dpitch, dx, dy, 0ULL, src_arr, src, spitch,
              sx, sy, 0ULL, width, height, 1ULL, kind, what);
}

cudaError_t cudaMemcpyToArray(cudaArray_t dst, size_t wOffset, size_t hOffset, const void *src, size_t count,
                              enum cudaMemcpyKind kind) {
    return RT("memcpy_array_linear", "KKKKKii", P(dst), (u64)wOffset, (u64)hOffset, P(src), (u64)count,
              (int)kind, 1);
}
cudaError_t cudaMemcpyToArrayAsync(cudaArray_t dst, size_t wOffset, size_t hOffset, const void *src,
                                   size_t count, enum cudaMemcpyKind kind, cudaStream_t s) {
    (void)s;
    return cudaMemcpyToArray(dst, wOffset, hOffset, src, count, kind);
}
cudaError_t cudaMemcpyFromArray(void *dst, cudaArray_const_t src, size_t wOffset, size_t hOffset, size_t count,
                                enum cudaMemcpyKind kind) {
    return RT("memcpy_array_linear", "KKKKKii", P(src), (u64)wOffset, (u64)hOffset, P(dst), (u64)count,
              (int)kind, 0);
}
cudaError_t cudaMemcpyFromArrayAsync(void *dst, cudaArray_const_t src, size_t wOffset, size_t hOffset,
                                     size_t count, enum cudaMemcpyKind kind, cudaStream_t s) {
    (void)s;
    return cudaMemcpyFromArray(dst, src, wOffset, hOffset, count, kind);
}
cudaError_t cudaMemcpy2DToArray(cudaArray_t dst, size_t wOffset, size_t hOffset, const void *src, size_t spitch,
                                size_t width, size_t height, enum cudaMemcpyKind kind) {
    return copy2d(P(dst), 0, 0, wOffset, hOffset, 0, P(src), spitch, 0, 0, width, height, (int)kind,
                  "cudaMemcpy2DToArray");
}
cudaError_t cudaMemcpy2DToArrayAsync(cudaArray_t dst, size_t wOffset, size_t hOffset, const void *src,
                                     size_t spitch, size_t width, size_t height, enum cudaMemcpyKind kind,
                                     cudaStream_t s) {
    (void)s;
    return cudaMemcpy2DToArray(dst, wOffset, hOffset, src, spitch, width, height, kind);
}
cudaError_t cudaMemcpy2DFromArray(void *dst, size_t dpitch, cudaArray_const_t src, size_t wOffset,
                                  size_t hOffset, size_t width, size_t height, enum cudaMemcpyKind kind) {
    return copy2d(0, P(dst), dpitch, 0, 0, P(src), 0, 0, wOffset, hOffset, width, height, (int)kind,
                  "cudaMemcpy2DFromArray");
}
cudaError_t cudaMemcpy2DFromArrayAsync(void *dst, size_t dpitch, cudaArray_const_t src, size_t wOffset,
                                       size_t hOffset, size_t width, size_t height, enum cudaMemcpyKind kind,
                                       cudaStream_t s) {
    (void)s;
    return cudaMemcpy2DFromArray(dst, dpitch, src, wOffset, hOffset, width, height, kind);
}
cudaError_t cudaMemcpy2DArrayToArray(cudaArray_t dst, size_t wOffsetDst, size_t hOffsetDst, cudaArray_const_t src,
                                     size_t wOffsetSrc, size_t hOffsetSrc, size_t width, size_t height,
                                     enum cudaMemcpyKind kind) {
    return copy2d(P(dst), 0, 0, wOffsetDst, hOffsetDst, P(src), 0, 0, wOffsetSrc, hOffsetSrc, width, height,
                  (int)kind, "cudaMemcpy2DArrayToArray");
}

/* cudaMemcpy3D: an array side's position and extent are in elements, a pitched pointer's in bytes
 * (x) and rows/slices (y, z); the Python side converts. */
cudaError_t cudaMemcpy3D(const struct cudaMemcpy3DParms *p) {
    if (!p) return cudaErrorInvalidValue;
    return RT("memcpy3d", "KKKKKKKKKKKKKKKKKi", P(p->dstArray), P(p->dstPtr.ptr), (u64)p->dstPtr.pitch,
              (u64)p->dstPtr.ysize, (u64)p->dstPos.x, (u64)p->dstPos.y, (u64)p->dstPos.z,
              P(p->srcArray), P(p->srcPtr.ptr), (u64)p->srcPtr.pitch, (u64)p->srcPtr.ysize,
              (u64)p->srcPos.x, (u64)p->srcPos.y, (u64)p->srcPos.z,
              (u64)p->extent.width, (u64)p->extent.height, (u64)p->extent.depth, (int)p->kind);
}
cudaError_t cudaMemcpy3DAsync(const struct cudaMemcpy3DParms *p, cudaStream_t s) {
    (void)s;
    return cudaMemcpy3D(p);
}

/* ---------------------------------------------------------------- texture and surface objects */

static int nonzero(const float *v, int n) {
    for (int i = 0; i < n; i++)
        if (v[i] != 0.0f) return 1;
    return 0;
}

/* The resource: (type, array, pointer, channel format, bytes, width, height, pitch). */
#define RES(r) (int)(r)->resType, P((r)->res.array.array), \
    P((r)->resType == cudaResourceTypePitch2D ? (r)->res.pitch2D.devPtr : (r)->res.linear.devPtr), \
    DESC((r)->resType == cudaResourceTypePitch2D ? &(r)->res.pitch2D.desc : &(r)->res.linear.desc), \
    (u64)(r)->res.linear.sizeInBytes, (u64)(r)->res.pitch2D.width, (u64)(r)->res.pitch2D.height, \
    (u64)(r)->res.pitch2D.pitchInBytes

cudaError_t cudaCreateTextureObject(cudaTextureObject_t *t, const struct cudaResourceDesc *r,
                                    const struct cudaTextureDesc *td, const struct cudaResourceViewDesc *view) {
    if (!t || !r || !td) return cudaErrorInvalidValue;
    return RT("create_texture", "KiKKiiiiiKKKKiiiiiiiiii", P(t), RES(r), (int)td->addressMode[0],
              (int)td->addressMode[1], (int)td->addressMode[2], (int)td->filterMode, (int)td->readMode,
              td->normalizedCoords, td->sRGB, nonzero(td->borderColor, 4), view != NULL,
              (int)td->maxAnisotropy);
}

cudaError_t cudaCreateSurfaceObject(cudaSurfaceObject_t *s, const struct cudaResourceDesc *r) {
    if (!s || !r) return cudaErrorInvalidValue;
    return RT("create_surface", "KiKKiiiiiKKKK", P(s), RES(r));
}

cudaError_t cudaDestroyTextureObject(cudaTextureObject_t t) { return RT("destroy_object", "Ki", (u64)t, 0); }
cudaError_t cudaDestroySurfaceObject(cudaSurfaceObject_t s) { return RT("destroy_object", "Ki", (u64)s, 1); }
