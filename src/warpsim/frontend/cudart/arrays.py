"""CUDA arrays, texture objects and surface objects in warpsim's CUDA runtime (cudart_arrays.c).

A CUDA array is device memory laid out row by row (width x texel bytes per row, then slices or
layers), and its handle is its device address. Real GPUs keep arrays in a block-linear layout
chosen for 2-D locality; the timing model sees row-major texel addresses instead (a stated
approximation: texture-cache hit rates of 2-D access patterns can differ). Texture and surface
objects are entries of the emulator's texture table (warpsim.frontend.ptx.textures), so kernels
fetch them exactly as they fetch objects made with the Python API. What the emulator cannot do
(mipmapped arrays, cube maps, sRGB, resource views, border colours other than 0, channel formats
other than signed/unsigned/float) is refused with cudaErrorNotSupported and a message naming it.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from warpsim.frontend.cudart import errors as E
from warpsim.frontend.cudart.calls import CudaError, _write_u64, api
from warpsim.frontend.ptx import textures as X

LAYERED, SURFACE_LOAD_STORE, CUBEMAP, TEXTURE_GATHER = 1, 2, 4, 8
_KNOWN_FLAGS = LAYERED | SURFACE_LOAD_STORE | TEXTURE_GATHER | CUBEMAP
_RES_ARRAY, _RES_MIPMAP, _RES_LINEAR, _RES_PITCH2D = 0, 1, 2, 3
_ADDRESS = {0: "wrap", 1: "clamp", 2: "mirror", 3: "border"}
_KINDS = {0: "i", 1: "u", 2: "f"}          # cudaChannelFormatKind: Signed, Unsigned, Float


@dataclass(frozen=True)
class CudaArray:
    ptr: int
    width: int                  # in texels
    height: int                 # 0 for a 1-D array
    depth: int                  # 0 for 1-D and 2-D arrays; layers of a layered array
    dtype: np.dtype
    channels: int
    flags: int
    desc: tuple[int, int, int, int, int]     # the cudaChannelFormatDesc it was made with

    @property
    def texel_bytes(self) -> int:
        return self.dtype.itemsize * self.channels

    @property
    def row_bytes(self) -> int:
        return self.width * self.texel_bytes

    @property
    def rows(self) -> int:
        return max(self.height, 1)

    @property
    def slices(self) -> int:
        return max(self.depth, 1)

    @property
    def nbytes(self) -> int:
        return self.row_bytes * self.rows * self.slices

    @property
    def layered(self) -> bool:
        return bool(self.flags & LAYERED)

    @property
    def cubemap(self) -> bool:
        return bool(self.flags & CUBEMAP)

    @property
    def dims(self) -> int:
        if self.height == 0:
            return 1
        return 2 if self.depth == 0 or self.layered or self.cubemap else 3

    @property
    def size(self) -> tuple[int, int, int]:
        return self.width, self.rows, self.slices


def channel_format(x: int, y: int, z: int, w: int, f: int) -> tuple[np.dtype, int]:
    """(texel element type, channels) of a cudaChannelFormatDesc."""
    bits = [x, y, z, w]
    n = 4 - bits[::-1].index(next(b for b in bits[::-1] if b)) if any(bits) else 0
    used = bits[:n]
    if n not in (1, 2, 4) or len(set(used)) != 1:
        raise CudaError(E.cudaErrorNotSupported, f"channel format ({x}, {y}, {z}, {w}) bits: warpsim's "
                        "textures have 1, 2 or 4 channels of one size")
    if f not in _KINDS:
        raise CudaError(E.cudaErrorNotSupported, f"channel format kind {f} (only signed, unsigned and float "
                        "channels are supported by warpsim's textures)")
    size = used[0]
    if size not in (8, 16, 32) or (f == 2 and size == 8):
        raise CudaError(E.cudaErrorInvalidChannelDescriptor, f"{size}-bit {'float' if f == 2 else 'integer'} "
                        "channels")
    return np.dtype(f"{_KINDS[f]}{size // 8}"), n


def _within_limits(width: int, height: int, depth: int, layered: bool, cubemap: bool = False) -> bool:
    """The extents cudaMallocArray accepts (the device properties' maxTexture* values)."""
    if cubemap:
        return width == height <= 32768 and depth == 6
    if layered:
        return depth <= 2048 and (width <= 32768 and height <= 32768 if height else width <= 32768)
    if depth:
        return max(width, height, depth) <= 16384
    return width <= 131072 and height <= 65536


class ArrayCalls:
    """The runtime's entry points for arrays and texture/surface objects (mixed into Runtime)."""

    def _array(self, handle: int, what: str) -> CudaArray:
        arr = self.arrays.get(handle)
        if arr is None:
            raise CudaError(E.cudaErrorInvalidResourceHandle, f"{what}: 0x{handle:x} is not a CUDA array "
                            "made by cudaMallocArray or cudaMalloc3DArray")
        return arr

    @api()
    def malloc_array(self, out: int, x: int, y: int, z: int, w: int, f: int, width: int, height: int,
                     depth: int, flags: int) -> int:
        if flags & CUBEMAP and (flags & LAYERED or width != height or depth != 6 or width > 32768):
            raise CudaError(E.cudaErrorInvalidValue if not flags & LAYERED else E.cudaErrorNotSupported,
                            f"a cube map of extent ({width}, {height}, {depth})" + (
                                " (layered): cube-map arrays are not supported by warpsim" if flags & LAYERED
                                else ": cudaArrayCubemap needs width = height <= 32768 and depth 6"))
        if flags & ~_KNOWN_FLAGS:
            raise CudaError(E.cudaErrorNotSupported, f"CUDA array flags 0x{flags:x}: only cudaArrayLayered, "
                            "cudaArraySurfaceLoadStore, cudaArrayCubemap and cudaArrayTextureGather are "
                            "supported")
        dtype, ch = channel_format(x, y, z, w, f)
        if width < 1 or (depth and not height and not flags & LAYERED) or not _within_limits(
                width, height, depth, bool(flags & LAYERED), bool(flags & CUBEMAP)):
            raise CudaError(E.cudaErrorInvalidValue, f"a CUDA array of extent ({width}, {height}, {depth})"
                            f"{' (layered)' if flags & LAYERED else ''}: outside the device's texture limits "
                            "(1-D 131072, 2-D 131072 x 65536, 3-D 16384^3, layers 2048)")
        arr = CudaArray(0, width, height, depth, dtype, ch, flags, (x, y, z, w, f))
        ptr = self._allocate(arr.nbytes, "cudaMallocArray")
        self.arrays[ptr] = replace(arr, ptr=ptr)
        _write_u64(out, ptr)
        return 0

    @api()
    def free_array(self, handle: int) -> int:
        if handle == 0:
            return 0
        self._array(handle, "cudaFreeArray")
        del self.arrays[handle]
        self.device.free(handle)
        return 0

    @api()
    def malloc_3d(self, out: int, pitch_out: int, width: int, height: int, depth: int) -> int:
        return self.malloc_pitch(out, pitch_out, width, max(height, 1) * max(depth, 1))

    def array_info(self, handle: int) -> dict:
        arr = self.arrays.get(handle)
        if arr is None:
            self.last_error = E.cudaErrorInvalidResourceHandle
            return {"error": E.cudaErrorInvalidResourceHandle}
        x, y, z, w, f = arr.desc
        return {"error": 0, "x": x, "y": y, "z": z, "w": w, "f": f, "width": arr.width, "height": arr.height,
                "depth": arr.depth, "flags": arr.flags}

    # ------------------------------------------------------------------ copies
    def _side(self, handle: int, ptr: int, pitch: int, slice_rows: int, x: int, y: int, z: int, width: int,
              height: int, depth: int, what: str) -> tuple[int, int, int]:
        """(address of the first byte, row pitch, slice pitch) of one side of a copy; x in bytes."""
        if handle:
            arr = self._array(handle, what)
            if x + width > arr.row_bytes or y + height > arr.rows or z + depth > arr.slices:
                raise CudaError(E.cudaErrorInvalidValue, f"{what}: the region (x {x} B, y {y}, z {z}) + "
                                f"({width} B, {height}, {depth}) is outside the {arr.width} x {arr.rows} x "
                                f"{arr.slices} array of {arr.texel_bytes}-byte texels")
            pitch, slice_bytes = arr.row_bytes, arr.row_bytes * arr.rows
            return arr.ptr + z * slice_bytes + y * pitch + x, pitch, slice_bytes
        if width > pitch:
            raise CudaError(E.cudaErrorInvalidPitchValue,
                            f"{what}: a row of {width} B exceeds the pitch {pitch}")
        slice_bytes = pitch * max(slice_rows, height + y)
        return ptr + z * slice_bytes + y * pitch + x, pitch, slice_bytes

    @api()
    def memcpy_arrays(self, dst_arr: int, dst: int, dpitch: int, dx: int, dy: int, dz: int, src_arr: int,
                      src: int, spitch: int, sx: int, sy: int, sz: int, width: int, height: int, depth: int,
                      kind: int, what: str, dst_rows: int = 0, src_rows: int = 0) -> int:
        d, dp, ds = self._side(dst_arr, dst, dpitch, dst_rows, dx, dy, dz, width, height, depth, what)
        s, sp, ss = self._side(src_arr, src, spitch, src_rows, sx, sy, sz, width, height, depth, what)
        if dp == sp == width and ds == ss == width * height:
            self._copy(d, s, width * height * depth, kind, what)
            return 0
        for k in range(depth):
            for r in range(height):
                self._copy(d + k * ds + r * dp, s + k * ss + r * sp, width, kind, what)
        return 0

    @api()
    def memcpy_array_linear(self, handle: int, woff: int, hoff: int, other: int, count: int, kind: int,
                            to_array: int) -> int:
        what = "cudaMemcpyToArray" if to_array else "cudaMemcpyFromArray"
        arr = self._array(handle, what)
        start = hoff * arr.row_bytes + woff
        if woff > arr.row_bytes or start + count > arr.nbytes:
            raise CudaError(E.cudaErrorInvalidValue, f"{what}: {count} B at (x {woff} B, y {hoff}) overrun "
                            f"the {arr.nbytes}-byte array")
        if to_array:
            self._copy(arr.ptr + start, other, count, kind, what)
        else:
            self._copy(other, arr.ptr + start, count, kind, what)
        return 0

    @api()
    def memcpy3d(self, dst_arr: int, dst: int, dpitch: int, dst_rows: int, dx: int, dy: int, dz: int,
                 src_arr: int, src: int, spitch: int, src_rows: int, sx: int, sy: int, sz: int,
                 width: int, height: int, depth: int, kind: int) -> int:
        what = "cudaMemcpy3D"
        if bool(dst_arr) == bool(dst) or bool(src_arr) == bool(src):
            raise CudaError(E.cudaErrorInvalidValue, f"{what}: each side needs exactly one of an array and a "
                            "pitched pointer")
        arrays = [self._array(h, what) for h in (dst_arr, src_arr) if h]
        elem = arrays[0].texel_bytes if arrays else 1     # with an array, x and width count elements
        if dst_arr:
            dx *= elem
        if src_arr:
            sx *= elem
        return self.memcpy_arrays(dst_arr, dst, dpitch, dx, dy, dz, src_arr, src, spitch, sx, sy, sz,
                                  width * elem, max(height, 1), max(depth, 1), kind, what, dst_rows, src_rows)

    # ------------------------------------------------------------------ texture and surface objects
    def _resource(self, res_type: int, handle: int, ptr: int, fmt: tuple[int, ...], size_bytes: int,
                  width: int, height: int, pitch: int, what: str) -> dict:
        """The memory a cudaResourceDesc names, as texture_object/surface_object arguments."""
        if res_type == _RES_ARRAY:
            arr = self._array(handle, what)
            return {"ptr": arr.ptr, "size": arr.size, "dims": arr.dims, "dtype": arr.dtype,
                    "channels": arr.channels, "layered": arr.layered, "cubemap": arr.cubemap}
        if res_type not in (_RES_LINEAR, _RES_PITCH2D):
            why = "mipmapped arrays" if res_type == _RES_MIPMAP else f"resource type {res_type}"
            raise CudaError(E.cudaErrorNotSupported, f"{what}: {why} is not supported by warpsim's textures")
        dtype, ch = channel_format(*fmt)
        texel = dtype.itemsize * ch
        if res_type == _RES_LINEAR:
            self._check_device(ptr, size_bytes, what)
            return {"ptr": ptr, "size": (size_bytes // texel, 1, 1), "dims": 1, "dtype": dtype,
                    "channels": ch, "linear": True}
        if width < 1 or height < 1 or pitch < width * texel:
            raise CudaError(E.cudaErrorInvalidValue, f"{what}: a pitched 2-D resource of {width} x {height} "
                            f"texels of {texel} B with a pitch of {pitch} B")
        self._check_device(ptr, pitch * (height - 1) + width * texel, what)
        return {"ptr": ptr, "size": (width, height, 1), "dims": 2, "dtype": dtype, "channels": ch,
                "pitch": pitch}

    @api()
    def create_texture(self, out: int, res_type: int, handle: int, ptr: int, x: int, y: int, z: int, w: int,
                       f: int, size_bytes: int, width: int, height: int, pitch: int, a0: int, a1: int,
                       a2: int, filter_mode: int, read_mode: int, normalized: int, srgb: int, border: int,
                       view: int, _anisotropy: int) -> int:
        what = "cudaCreateTextureObject"
        for flag, name in ((srgb, "sRGB conversion"), (border, "a border colour other than 0"),
                           (view, "resource view descriptors")):
            if flag:
                raise CudaError(E.cudaErrorNotSupported,
                                f"{what}: {name} is not supported by warpsim's textures")
        r = self._resource(res_type, handle, ptr, (x, y, z, w, f), size_bytes, width, height, pitch, what)
        linear = r.pop("linear", False)
        modes = tuple(_ADDRESS.get(a, "clamp") for a in (a0, a1, a2))
        if not normalized:        # CUDA's documented rule: wrap and mirror need normalized coordinates,
            modes = tuple("clamp" if m in ("wrap", "mirror") else m for m in modes)   # else they clamp
        if linear:
            modes = ("border",) * 3          # tex1Dfetch ignores the address mode: outside reads 0
        h = X.texture_object(r.pop("ptr"), r.pop("size"), r.pop("dims"), r.pop("dtype"), r.pop("channels"),
                             filter="linear" if filter_mode == 1 else "point", address=modes,
                             normalized=bool(normalized),
                             read_mode="normalized" if read_mode == 1 else "element",
                             linear=linear, **r)
        _write_u64(out, h)
        return 0

    @api()
    def create_surface(self, out: int, res_type: int, handle: int, ptr: int, x: int, y: int, z: int, w: int,
                       f: int, size_bytes: int, width: int, height: int, pitch: int) -> int:
        what = "cudaCreateSurfaceObject"
        if res_type != _RES_ARRAY:
            raise CudaError(E.cudaErrorInvalidValue, f"{what}: a surface object needs a CUDA array resource")
        r = self._resource(res_type, handle, ptr, (x, y, z, w, f), size_bytes, width, height, pitch, what)
        # a cube map's surface is layered: surfCubemap* name the face as the layer
        _write_u64(out, X.surface_object(r["ptr"], r["size"], r["dims"], r["dtype"], r["channels"],
                                         layered=r["layered"] or r["cubemap"]))
        return 0

    @api()
    def destroy_object(self, handle: int, surface: int) -> int:
        try:
            X.forget(handle, bool(surface))
        except X.MemoryFault as e:
            name = "Surface" if surface else "Texture"
            raise CudaError(E.cudaErrorInvalidValue, f"cudaDestroy{name}Object: {e}") from e
        return 0
