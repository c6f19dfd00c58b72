"""Texture and surface objects: host-side creation and the fetch semantics (filtering, address modes).

A texture/surface object is a 64-bit handle the host passes to a kernel (like cudaTextureObject_t).
Handles index a process-wide table, so a timing-mode replay on a copy of device memory resolves them
too; the texels are read from device memory at fetch time, so writes through pointers or surfaces
are seen by later fetches.

Fetch rules (CUDA C Programming Guide, "Texture Fetching"): normalized coordinates are scaled by the
size; point filtering takes texel floor(x); linear filtering takes xB = x - 0.5, i = floor(xB) and
alpha = frac(xB) stored with 8 fractional bits, and blends texels i and i+1 (per dimension). Address
modes apply to every texel index: clamp (to the edge), border (0 outside), wrap (modulo the size),
mirror (reflected). Integer texels read with read_mode='normalized' become floats in [0, 1] (unsigned)
or [-1, 1] (signed). Channels the texture lacks read as 0.

Cube maps (the Programming Guide's "Cubemap Textures" table): the coordinate of largest magnitude picks
the face (+x, -x, +y, -y, +z, -z are layers 0-5) and the other two, divided by it, give the face's
normalized (s, t); address modes do not apply. Hardware filters seamlessly across face edges; warpsim
filters within a face and refuses a linear fetch whose footprint leaves it, rather than clamp silently.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, replace

import numpy as np

from warpsim.errors import InputError
from warpsim.frontend.ptx.memory import GLOBAL_BASE, MemoryFault

_FILTERS = ("point", "linear")
_MODES = ("clamp", "border", "wrap", "mirror")
_HANDLE_BASE = 0x7E00_0000_0000
_TABLE: dict[int, TexObject] = {}
_NEXT = itertools.count(1)


@dataclass(frozen=True)
class TexObject:
    """A texture or surface bound to device memory: `size` is (width, height, depth) in texels."""

    ptr: int
    size: tuple[int, int, int]
    dims: int
    dtype: np.dtype
    channels: int
    filter: str = "point"
    address: tuple[str, str, str] = ("clamp", "clamp", "clamp")
    normalized: bool = False
    read_mode: str = "element"       # or 'normalized' (integer texels as floats)
    surface: bool = False
    linear: bool = False              # tex1Dfetch on plain linear memory
    layered: bool = False             # an array of 1-D/2-D layers (size[2] = layers)
    pitch: int = 0                    # bytes from one row to the next (0: width x texel bytes)
    cubemap: bool = False             # six square 2-D faces (size[2] = 6), fetched by direction

    @property
    def texel_bytes(self) -> int:
        return self.dtype.itemsize * self.channels

    @property
    def row_bytes(self) -> int:
        return self.pitch or self.size[0] * self.texel_bytes


def _register(obj: TexObject) -> int:
    # handles are never reused: a timing-mode replay after the program destroyed an object still
    # resolves the handles its recorded launches used
    handle = _HANDLE_BASE + next(_NEXT)
    _TABLE[handle] = obj
    return handle


def lookup(handle: int, surface: bool) -> TexObject:
    obj = _TABLE.get(int(handle))
    if obj is None or obj.surface != surface:
        what = "surface" if surface else "texture"
        raise MemoryFault(f"0x{int(handle):x} is not a {what} object created by Device.create_{what}")
    return obj


def _shape_args(array, dims: int, layered: bool = False) -> tuple[int, tuple[int, int, int], int, np.dtype]:
    shape = tuple(array.shape)
    nd = dims + (1 if layered else 0)
    if dims not in (1, 2, 3) or layered and dims == 3 or len(shape) < nd or len(shape) > nd + 1:
        raise InputError(f"a {dims}-D{' layered' if layered else ''} texture needs an array of {nd} "
                         f"dimensions (+ channels), got {shape}")
    channels = shape[nd] if len(shape) > nd else 1
    if channels not in (1, 2, 4):
        raise InputError(f"textures have 1, 2 or 4 channels, got {channels}")
    sz = tuple(reversed(shape[1:nd] if layered else shape[:dims])) + (1,) * (3 - dims)
    if layered:
        sz = sz[:2] + (shape[0],)
    return array.ptr, (int(sz[0]), int(sz[1]), int(sz[2])), channels, np.dtype(array.dtype)


def create_texture(array, dims: int | None = None, filter: str = "point", address: str | tuple = "clamp",
                   normalized: bool = False, read_mode: str = "element", linear: bool = False,
                   layered: bool = False, cubemap: bool = False) -> int:
    """A texture object over a DeviceArray of shape ([depth,] [height,] width [, channels]);
    layered: ([layers,] [height,] width [, channels]) with dims = 1 or 2 spatial dimensions;
    cubemap: (6, width, width [, channels]), faces +x, -x, +y, -y, +z, -z."""
    if cubemap:
        ptr, size, ch, dt = _shape_args(array, 2, layered=True)
        return texture_object(ptr, size, 2, dt, ch, filter=filter, read_mode=read_mode, cubemap=True)
    dims = dims or (1 if linear else min(len(array.shape) - (1 if layered else 0), 3))
    ptr, size, ch, dt = _shape_args(array, dims, layered)
    return texture_object(ptr, size, dims, dt, ch, filter=filter, address=address, normalized=normalized,
                          read_mode=read_mode, linear=linear, layered=layered)


def texture_object(ptr: int, size: tuple[int, int, int], dims: int, dtype, channels: int, *, pitch: int = 0,
                   filter: str = "point", address: str | tuple = "clamp", normalized: bool = False,
                   read_mode: str = "element", linear: bool = False, layered: bool = False,
                   cubemap: bool = False) -> int:
    """A texture object over device memory at `ptr`: size (width, height, depth or layers) in texels,
    rows `pitch` bytes apart (0: packed). The CUDA runtime's cudaCreateTextureObject lands here."""
    dt = np.dtype(dtype)
    if cubemap and (dims != 2 or layered or size[0] != size[1] or size[2] != 6):
        kind = f"{dims}-D{' layered' if layered else ''}"
        raise InputError(f"a cube map has six square 2-D faces, not a {kind} texture of {size[0]} x "
                         f"{size[1]} x {size[2]}")
    if channels not in (1, 2, 4):
        raise InputError(f"textures have 1, 2 or 4 channels, got {channels}")
    if filter not in _FILTERS:
        raise InputError(f"texture filter must be one of {_FILTERS}, got {filter!r}")
    modes = (address,) * 3 if isinstance(address, str) else tuple(address) + ("clamp",) * (3 - len(address))
    if any(m not in _MODES for m in modes):
        raise InputError(f"texture address modes must be among {_MODES}, got {address!r}")
    if not normalized and not cubemap and any(m in ("wrap", "mirror") for m in modes[:dims]):
        raise InputError("wrap and mirror address modes need normalized coordinates (as in CUDA)")
    if read_mode not in ("element", "normalized"):
        raise InputError("read_mode must be 'element' or 'normalized'")
    if filter == "linear" and dt.kind in "iu" and read_mode == "element":
        raise InputError("linear filtering of integer texels needs read_mode='normalized' (as in CUDA)")
    _check_pitch(size, dt, channels, pitch)
    return _register(TexObject(int(ptr), tuple(int(x) for x in size), dims, dt, channels, filter, modes,
                               normalized, read_mode, False, linear, layered, pitch, cubemap))


def _check_pitch(size, dt: np.dtype, channels: int, pitch: int) -> None:
    if pitch and pitch < size[0] * dt.itemsize * channels:
        raise InputError(f"a row pitch of {pitch} B is less than a row of {size[0]} texels of "
                         f"{dt.itemsize * channels} B")


def create_surface(array, dims: int | None = None, layered: bool = False) -> int:
    """A surface object over a DeviceArray (suld/sust address x in bytes, y and z in rows/slices;
    layered: ([layers,] [height,] width [, channels]), the layer given separately, as suld.a1d/.a2d do)."""
    dims = dims or min(len(array.shape) - (1 if layered else 0), 3)
    ptr, size, ch, dt = _shape_args(array, dims, layered)
    return surface_object(ptr, size, dims, dt, ch, layered=layered)


def surface_object(ptr: int, size: tuple[int, int, int], dims: int, dtype, channels: int,
                   pitch: int = 0, layered: bool = False) -> int:
    """A surface object over device memory at `ptr` (see texture_object). A cube-map array's surface is
    layered: surfCubemap* address its faces as layers 0-5."""
    dt = np.dtype(dtype)
    _check_pitch(size, dt, channels, pitch)
    return _register(TexObject(int(ptr), tuple(int(x) for x in size), dims, dt, channels, surface=True,
                               pitch=pitch, layered=layered))


def forget(handle: int, surface: bool) -> None:
    """cudaDestroy{Texture,Surface}Object: check the handle (the entry stays for replays)."""
    lookup(handle, surface)


# --- fetch ------------------------------------------------------------------------------------------

def _texels(device, obj: TexObject) -> np.ndarray:
    """Texel array [depth, height, width, channels] viewing device memory."""
    w, h, d = obj.size
    row = obj.row_bytes
    n = (h * d - 1) * row + w * obj.texel_bytes
    off = obj.ptr - GLOBAL_BASE
    if off < 0 or off + n > device.top:
        raise MemoryFault(f"texture/surface memory 0x{obj.ptr:x}+{n} is no longer allocated")
    return np.ndarray((d, h, w, obj.channels), dtype=obj.dtype, buffer=device.heap, offset=off,
                      strides=(h * row, row, obj.texel_bytes, obj.dtype.itemsize))


def _address(i: np.ndarray, n: int, mode: str) -> tuple[np.ndarray, np.ndarray]:
    """Texel index after the address mode, and whether it is inside (border mode: outside reads 0)."""
    if mode == "clamp":
        return np.clip(i, 0, n - 1), np.ones(i.shape, dtype=bool)
    if mode == "border":
        ok = (i >= 0) & (i < n)
        return np.where(ok, i, 0), ok
    if mode == "wrap":
        return np.mod(i, n), np.ones(i.shape, dtype=bool)
    m = np.mod(i, 2 * n)
    return np.where(m < n, m, 2 * n - 1 - m), np.ones(i.shape, dtype=bool)


def _convert(v: np.ndarray, obj: TexObject) -> np.ndarray:
    if obj.read_mode == "normalized" and obj.dtype.kind in "iu":
        info = np.iinfo(obj.dtype)
        x = v.astype(np.float64)
        return np.maximum(x / info.max, -1.0) if obj.dtype.kind == "i" else x / info.max
    return v


def fetch(device, obj: TexObject, coords: list[np.ndarray], integer_coords: bool,
          layer: np.ndarray | None = None) -> np.ndarray:
    """Texel values [T, channels] (float64 for float reads, else the texel type) at the lanes' coordinates
    (`layer`: the layer index of a layered texture, clamped to the layers there are)."""
    tex = _texels(device, obj)
    T = coords[0].shape[0]
    size = obj.size
    if obj.layered:
        lay = np.broadcast_to(np.clip(np.asarray(layer if layer is not None else 0).astype(np.int64), 0,
                                      size[2] - 1), (T,))
        out = None
        for one in np.unique(lay):
            sel = lay == one
            v = _fetch(tex[one:one + 1], obj, [np.asarray(c)[sel] for c in coords], integer_coords)
            if out is None:
                out = np.zeros((T, v.shape[1]), dtype=v.dtype)
            out[sel] = v
        return out
    return _fetch(tex, obj, coords, integer_coords)


# (axis of the face's normal, sign, axis for s, sign of s, axis for t, sign of t) for faces 0-5
_CUBE_FACES = ((0, 1, 2, -1, 1, -1), (0, -1, 2, 1, 1, -1), (1, 1, 0, 1, 2, 1),
               (1, -1, 0, 1, 2, -1), (2, 1, 0, 1, 1, -1), (2, -1, 0, -1, 1, -1))


def cube_face(x: np.ndarray, y: np.ndarray, z: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(face, s, t) of direction vectors: the major axis (x before y before z on ties) picks the face,
    s = (sc / |ma| + 1) / 2 and t = (tc / |ma| + 1) / 2 its normalized coordinates."""
    v = np.stack([np.asarray(c, dtype=np.float64) for c in (x, y, z)])
    a = np.abs(v)
    axis = np.where((a[0] >= a[1]) & (a[0] >= a[2]), 0, np.where(a[1] >= a[2], 1, 2))
    face = 2 * axis + (np.take_along_axis(v, axis[None], 0)[0] < 0)
    s = np.zeros(v.shape[1])
    t = np.zeros(v.shape[1])
    for f, (n, _sn, sa, ss, ta, ts) in enumerate(_CUBE_FACES):
        sel = face == f
        ma = np.where(a[n] > 0, a[n], 1.0)
        s = np.where(sel, (ss * v[sa] / ma + 1) / 2, s)
        t = np.where(sel, (ts * v[ta] / ma + 1) / 2, t)
    return face.astype(np.int64), s, t


def fetch_cube(device, obj: TexObject, x, y, z) -> tuple[np.ndarray, np.ndarray]:
    """Texel values [T, channels] at direction vectors, and each lane's base texel (face, row, column)
    flattened to a texel index."""
    tex = _texels(device, obj)
    face, s, t = cube_face(x, y, z)
    w = obj.size[0]
    flat = replace(obj, normalized=True, address=("clamp",) * 3)
    if obj.filter == "linear":
        for c in (s, t):
            xb = c * w - 0.5
            i0 = np.floor(xb)
            frac = np.round((xb - i0) * 256.0) / 256.0
            if ((i0 < 0) & (frac < 1) | (i0 + 1 > w - 1) & (frac > 0)).any():
                raise MemoryFault("a linear cube-map fetch within half a texel of a face edge: hardware "
                                  "blends across faces (seamless filtering), which warpsim does not model")
    out = None
    for f in np.unique(face):
        sel = face == f
        v = _fetch(tex[f:f + 1], flat, [s[sel], t[sel]], False)
        if out is None:
            out = np.zeros((face.size, v.shape[1]), dtype=v.dtype)
        out[sel] = v
    col = np.clip(np.floor(s * w), 0, w - 1).astype(np.int64)
    row = np.clip(np.floor(t * w), 0, w - 1).astype(np.int64)
    return out, (face * w + row) * w + col


def _fetch(tex, obj: TexObject, coords: list[np.ndarray], integer_coords: bool) -> np.ndarray:
    T = coords[0].shape[0]
    size = obj.size
    if integer_coords or obj.linear:
        idx, ok = [], np.ones(T, dtype=bool)
        for k in range(obj.dims):
            i = np.asarray(coords[k]).astype(np.int64)
            mode = "border" if obj.linear else obj.address[k]
            i, o = _address(i, size[k], mode)
            idx.append(i)
            ok &= o
        while len(idx) < 3:
            idx.append(np.zeros(T, dtype=np.int64))
        v = tex[idx[2], idx[1], idx[0]]
        v = np.where(ok[:, None], v, 0)
        return _convert(v, obj)
    scaled = []
    for k in range(obj.dims):
        x = np.asarray(coords[k], dtype=np.float64)
        scaled.append(x * size[k] if obj.normalized else x)
    if obj.filter == "point":
        idx, ok = [], np.ones(T, dtype=bool)
        for k in range(obj.dims):
            i, o = _address(np.floor(scaled[k]).astype(np.int64), size[k], obj.address[k])
            idx.append(i)
            ok &= o
        while len(idx) < 3:
            idx.append(np.zeros(T, dtype=np.int64))
        v = np.where(ok[:, None], tex[idx[2], idx[1], idx[0]], 0)
        return _convert(v, obj).astype(np.float64)
    # linear: blend the 2^dims neighbours with 8-bit fractional weights
    base, frac = [], []
    for k in range(obj.dims):
        xb = scaled[k] - 0.5
        i0 = np.floor(xb)
        base.append(i0.astype(np.int64))
        frac.append(np.round((xb - i0) * 256.0) / 256.0)
    out = np.zeros((T, obj.channels), dtype=np.float64)
    for corner in range(1 << obj.dims):
        w = np.ones(T)
        idx, ok = [], np.ones(T, dtype=bool)
        for k in range(obj.dims):
            bit = (corner >> k) & 1
            w = w * (frac[k] if bit else 1.0 - frac[k])
            i, o = _address(base[k] + bit, size[k], obj.address[k])
            idx.append(i)
            ok &= o
        while len(idx) < 3:
            idx.append(np.zeros(T, dtype=np.int64))
        v = _convert(tex[idx[2], idx[1], idx[0]], obj).astype(np.float64)
        out += np.where(ok[:, None], v, 0.0) * w[:, None]
    return out


def surface_index(obj: TexObject, coords: list[np.ndarray], nbytes: int, mode: str,
                  layer: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Byte offsets into the surface's memory for suld/sust, and which lanes are in range.

    x is a byte coordinate; out-of-range lanes fault (.trap), are clamped (.clamp) or read 0 / drop
    the store (.zero). A layered surface's layer (suld.a1d/.a2d) is its slice.
    """
    w, h, d = obj.size
    row = w * obj.texel_bytes
    pitch = obj.row_bytes
    x = np.asarray(coords[0]).astype(np.int64)
    y = np.asarray(coords[1]).astype(np.int64) if obj.dims > 1 else np.zeros_like(x)
    if obj.layered:
        z = np.broadcast_to(np.asarray(layer).astype(np.int64), x.shape)
    else:
        z = np.asarray(coords[2]).astype(np.int64) if obj.dims > 2 else np.zeros_like(x)
    ok = (x >= 0) & (x + nbytes <= row) & (y >= 0) & (y < h) & (z >= 0) & (z < d)
    if mode == "clamp":
        x = np.clip(x, 0, row - nbytes)
        y, z = np.clip(y, 0, h - 1), np.clip(z, 0, d - 1)
        ok = np.ones_like(ok)
    if x.size and (x % min(nbytes, obj.texel_bytes) != 0).any():
        raise MemoryFault("misaligned surface access (x is a byte coordinate)")
    off = (z * h + y) * pitch + x
    return np.where(ok, off, 0), ok
