// CUDA arrays, texture objects and surface objects through the runtime API; every value checked on the host
// against what the CUDA Programming Guide's "Texture Fetching" rules give for these inputs.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>

static int failures = 0;
#define CHECK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
    printf("FAIL %s: %s\n", #call, cudaGetErrorString(e_)); failures++; } } while (0)
#define EXPECT(cond, ...) do { if (!(cond)) { printf("FAIL: " __VA_ARGS__); printf("\n"); failures++; } } while (0)

const int W = 16, H = 8;

__global__ void fetch2d(cudaTextureObject_t t, float *out, float dx, float dy, float sx, float sy) {
    int x = threadIdx.x, y = blockIdx.x;
    out[y * W + x] = tex2D<float>(t, (x + dx) * sx, (y + dy) * sy);
}

__global__ void fetch1d(cudaTextureObject_t t, int *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tex1Dfetch<int>(t, i);
}

__global__ void fetch3d(cudaTextureObject_t t, float *out, int w, int h, int d) {
    int x = threadIdx.x, y = threadIdx.y, z = blockIdx.x;
    out[(z * h + y) * w + x] = tex3D<float>(t, x + 0.5f, y + 0.5f, z + 0.5f);
}

__global__ void write_surface(cudaSurfaceObject_t s) {
    int x = threadIdx.x, y = blockIdx.x;
    surf2Dwrite(make_uchar4(x, y, x + y, 255), s, x * 4, y);
}

static cudaTextureObject_t texture(const cudaResourceDesc &res, cudaTextureFilterMode f, cudaTextureAddressMode a,
                                   int normalized, cudaTextureReadMode rm = cudaReadModeElementType) {
    cudaTextureDesc td;
    memset(&td, 0, sizeof td);
    td.addressMode[0] = td.addressMode[1] = td.addressMode[2] = a;
    td.filterMode = f;
    td.readMode = rm;
    td.normalizedCoords = normalized;
    cudaTextureObject_t t = 0;
    CHECK(cudaCreateTextureObject(&t, &res, &td, NULL));
    return t;
}

int main() {
    float img[H][W], out[H][W];
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) img[y][x] = (float)(10 * y + x * x);
    float *d_out;
    CHECK(cudaMalloc(&d_out, sizeof out));

    // the texture limits programs check before they allocate (deviceQuery's values since Maxwell)
    cudaDeviceProp prop;
    cudaGetDeviceProperties(&prop, 0);
    int w3 = 0;
    cudaDeviceGetAttribute(&w3, cudaDevAttrMaxTexture3DWidth, 0);
    EXPECT(prop.maxTexture1D == 131072 && prop.maxTexture2D[0] == 131072 && prop.maxTexture2D[1] == 65536
           && prop.maxTexture3D[2] == 16384 && prop.maxTexture2DLayered[2] == 2048 && w3 == 16384,
           "texture limits");

    // a 2-D float array filled with cudaMemcpy2DToArray
    cudaChannelFormatDesc fd = cudaCreateChannelDesc(32, 0, 0, 0, cudaChannelFormatKindFloat);
    cudaArray_t arr;
    CHECK(cudaMallocArray(&arr, &fd, W, H));
    CHECK(cudaMemcpy2DToArray(arr, 0, 0, img, W * sizeof(float), W * sizeof(float), H, cudaMemcpyHostToDevice));
    cudaChannelFormatDesc back;
    cudaExtent ext;
    unsigned flags = 99;
    CHECK(cudaGetChannelDesc(&back, arr));
    CHECK(cudaArrayGetInfo(&back, &ext, &flags, arr));
    EXPECT(back.x == 32 && back.y == 0 && back.f == cudaChannelFormatKindFloat && ext.width == W && ext.height == H
           && ext.depth == 0 && flags == 0, "cudaArrayGetInfo");
    cudaResourceDesc res;
    memset(&res, 0, sizeof res);
    res.resType = cudaResourceTypeArray;
    res.res.array.array = arr;

    // point sampling, unnormalized coordinates, clamped past the right edge
    cudaTextureObject_t tp = texture(res, cudaFilterModePoint, cudaAddressModeClamp, 0);
    fetch2d<<<H, W>>>(tp, d_out, 0.5f + W / 2, 0.5f, 1.f, 1.f);
    CHECK(cudaMemcpy(out, d_out, sizeof out, cudaMemcpyDeviceToHost));
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            int sx = x + W / 2 < W ? x + W / 2 : W - 1;
            EXPECT(out[y][x] == img[y][sx], "point (%d,%d): %g, expected %g", x, y, out[y][x], img[y][sx]);
        }
    // linear filtering halfway between texels x and x + 1 (the last column clamps onto itself)
    cudaTextureObject_t tl = texture(res, cudaFilterModeLinear, cudaAddressModeClamp, 0);
    fetch2d<<<H, W>>>(tl, d_out, 1.0f, 0.5f, 1.f, 1.f);
    CHECK(cudaMemcpy(out, d_out, sizeof out, cudaMemcpyDeviceToHost));
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            float want = 0.5f * (img[y][x] + img[y][x + 1 < W ? x + 1 : W - 1]);
            EXPECT(out[y][x] == want, "linear (%d,%d): %g, expected %g", x, y, out[y][x], want);
        }
    // normalized coordinates one period to the right wrap back onto the same texel
    cudaTextureObject_t tw = texture(res, cudaFilterModePoint, cudaAddressModeWrap, 1);
    fetch2d<<<H, W>>>(tw, d_out, 0.5f + W, 0.5f, 1.f / W, 1.f / H);
    CHECK(cudaMemcpy(out, d_out, sizeof out, cudaMemcpyDeviceToHost));
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) EXPECT(out[y][x] == img[y][x], "wrap (%d,%d): %g", x, y, out[y][x]);

    // a pitched 2-D texture over cudaMallocPitch memory
    float *pitched;
    size_t pitch;
    CHECK(cudaMallocPitch((void **)&pitched, &pitch, W * sizeof(float), H));
    CHECK(cudaMemcpy2D(pitched, pitch, img, W * sizeof(float), W * sizeof(float), H, cudaMemcpyHostToDevice));
    cudaResourceDesc pres;
    memset(&pres, 0, sizeof pres);
    pres.resType = cudaResourceTypePitch2D;
    pres.res.pitch2D.devPtr = pitched;
    pres.res.pitch2D.desc = fd;
    pres.res.pitch2D.width = W;
    pres.res.pitch2D.height = H;
    pres.res.pitch2D.pitchInBytes = pitch;
    cudaTextureObject_t tpp = texture(pres, cudaFilterModePoint, cudaAddressModeClamp, 0);
    fetch2d<<<H, W>>>(tpp, d_out, 0.5f, 0.5f, 1.f, 1.f);
    CHECK(cudaMemcpy(out, d_out, sizeof out, cudaMemcpyDeviceToHost));
    EXPECT(pitch > W * sizeof(float), "pitch %zu", pitch);
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) EXPECT(out[y][x] == img[y][x], "pitch2D (%d,%d): %g", x, y, out[y][x]);

    // tex1Dfetch on linear memory: reads past the end give 0
    const int N = 100;
    int lin[N], got[N + 28];
    for (int i = 0; i < N; i++) lin[i] = 7 * i - 3;
    int *d_lin, *d_got;
    CHECK(cudaMalloc(&d_lin, sizeof lin));
    CHECK(cudaMalloc(&d_got, sizeof got));
    CHECK(cudaMemcpy(d_lin, lin, sizeof lin, cudaMemcpyHostToDevice));
    cudaResourceDesc lres;
    memset(&lres, 0, sizeof lres);
    lres.resType = cudaResourceTypeLinear;
    lres.res.linear.devPtr = d_lin;
    lres.res.linear.desc = cudaCreateChannelDesc<int>();
    lres.res.linear.sizeInBytes = sizeof lin;
    cudaTextureObject_t t1 = texture(lres, cudaFilterModePoint, cudaAddressModeClamp, 0);
    fetch1d<<<1, N + 28>>>(t1, d_got, N + 28);
    CHECK(cudaMemcpy(got, d_got, sizeof got, cudaMemcpyDeviceToHost));
    for (int i = 0; i < N + 28; i++) EXPECT(got[i] == (i < N ? lin[i] : 0), "tex1Dfetch %d: %d", i, got[i]);

    // 8-bit texels read as normalized floats
    unsigned char bytes[H][W];
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) bytes[y][x] = (unsigned char)(16 * y + x);
    cudaChannelFormatDesc bd = cudaCreateChannelDesc<unsigned char>();
    cudaArray_t barr;
    CHECK(cudaMallocArray(&barr, &bd, W, H));
    CHECK(cudaMemcpyToArray(barr, 0, 0, bytes, sizeof bytes, cudaMemcpyHostToDevice));
    res.res.array.array = barr;
    cudaTextureObject_t tn = texture(res, cudaFilterModePoint, cudaAddressModeClamp, 0, cudaReadModeNormalizedFloat);
    fetch2d<<<H, W>>>(tn, d_out, 0.5f, 0.5f, 1.f, 1.f);
    CHECK(cudaMemcpy(out, d_out, sizeof out, cudaMemcpyDeviceToHost));
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++)
            EXPECT(out[y][x] == bytes[y][x] / 255.0f, "normalized (%d,%d): %g", x, y, out[y][x]);

    // a surface written by a kernel, read back with cudaMemcpy2DFromArray
    cudaChannelFormatDesc cd = cudaCreateChannelDesc<uchar4>();
    cudaArray_t sarr;
    CHECK(cudaMallocArray(&sarr, &cd, W, H, cudaArraySurfaceLoadStore));
    cudaResourceDesc sres;
    memset(&sres, 0, sizeof sres);
    sres.resType = cudaResourceTypeArray;
    sres.res.array.array = sarr;
    cudaSurfaceObject_t s = 0;
    CHECK(cudaCreateSurfaceObject(&s, &sres));
    write_surface<<<H, W>>>(s);
    uchar4 px[H][W];
    CHECK(cudaMemcpy2DFromArray(px, W * sizeof(uchar4), sarr, 0, 0, W * sizeof(uchar4), H, cudaMemcpyDeviceToHost));
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++)
            EXPECT(px[y][x].x == x && px[y][x].y == y && px[y][x].z == x + y && px[y][x].w == 255, "surface (%d,%d)",
                   x, y);

    // a 3-D array filled with cudaMemcpy3D from a pitched host pointer
    const int X3 = 8, Y3 = 4, Z3 = 3;
    float vol[Z3][Y3][X3], vout[Z3][Y3][X3];
    for (int z = 0; z < Z3; z++)
        for (int y = 0; y < Y3; y++)
            for (int x = 0; x < X3; x++) vol[z][y][x] = (float)(100 * z + 10 * y + x);
    cudaArray_t varr;
    CHECK(cudaMalloc3DArray(&varr, &fd, make_cudaExtent(X3, Y3, Z3)));
    cudaMemcpy3DParms p;
    memset(&p, 0, sizeof p);
    p.srcPtr = make_cudaPitchedPtr(vol, X3 * sizeof(float), X3, Y3);
    p.dstArray = varr;
    p.extent = make_cudaExtent(X3, Y3, Z3);
    p.kind = cudaMemcpyHostToDevice;
    CHECK(cudaMemcpy3D(&p));
    res.res.array.array = varr;
    cudaTextureObject_t t3 = texture(res, cudaFilterModePoint, cudaAddressModeClamp, 0);
    float *d_vol;
    CHECK(cudaMalloc(&d_vol, sizeof vout));
    fetch3d<<<Z3, dim3(X3, Y3)>>>(t3, d_vol, X3, Y3, Z3);
    CHECK(cudaMemcpy(vout, d_vol, sizeof vout, cudaMemcpyDeviceToHost));
    for (int z = 0; z < Z3; z++)
        for (int y = 0; y < Y3; y++)
            for (int x = 0; x < X3; x++) EXPECT(vout[z][y][x] == vol[z][y][x], "tex3D (%d,%d,%d)", x, y, z);

    // what the emulator cannot do is refused, not ignored
    cudaTextureDesc td;
    memset(&td, 0, sizeof td);
    td.sRGB = 1;
    cudaTextureObject_t bad = 0;
    EXPECT(cudaCreateTextureObject(&bad, &res, &td, NULL) == cudaErrorNotSupported, "sRGB accepted");
    cudaGetLastError();
    // a copy past the array's right edge is refused, not clipped
    EXPECT(cudaMemcpy2DToArray(arr, 8 * sizeof(float), 0, img, W * sizeof(float), W * sizeof(float), H,
                               cudaMemcpyHostToDevice) == cudaErrorInvalidValue, "copy past the edge accepted");
    cudaGetLastError();

    CHECK(cudaDestroyTextureObject(tp));
    CHECK(cudaDestroySurfaceObject(s));
    CHECK(cudaFreeArray(arr));
    CHECK(cudaFreeArray(varr));
    if (failures == 0) printf("Test PASSED\n");
    else printf("Test FAILED (%d)\n", failures);
    return failures ? 1 : 0;
}
