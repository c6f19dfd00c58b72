"""Read the PTX a CUDA program embeds in its fat binary (the blob `__cudaRegisterFatBinary` receives).

Layout (as nvcc writes it): a wrapper {u32 magic 0x466243b1, u32 version, u64 data, u64 unused}
points at a fat binary: header {u32 magic 0xba55ed50, u16 version, u16 header size, u64 body size},
then entries, each {u16 kind (1 PTX, 2 ELF/SASS), u16, u32 header size, u64 payload size, ...,
u32 arch at +28, u64 flags at +40, u64 uncompressed size at +56} followed by its payload.
Payloads may be compressed: zstd (flag 0x8000, CUDA 13 default) or LZ4 (flag 0x2000); both are
decoded with the system's libzstd / liblz4 when present.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import struct
from dataclasses import dataclass

from warpsim.errors import InputError

WRAPPER_MAGIC = 0x466243B1
FATBIN_MAGIC = 0xBA55ED50
KIND_PTX = 1
KIND_ELF = 2
FLAG_LZ4 = 0x2000
FLAG_ZSTD = 0x8000
NO_COMPRESS_HINT = ("rebuild the program with `nvcc --no-compress` (or `-compress-mode=none`) "
                    "to embed plain PTX")
NO_PTX_HINT = ("the program embeds only SASS (machine code) and warpsim executes PTX: rebuild it with PTX "
               "embedded, e.g. `-arch=sm_70` (embeds compute_70 PTX) or "
               "`-gencode arch=compute_70,code=compute_70` next to your other -gencode flags")


@dataclass(frozen=True)
class FatbinEntry:
    kind: int           # KIND_PTX or KIND_ELF
    arch: int           # e.g. 75 for compute_75 / sm_75
    flags: int
    payload: bytes      # raw (possibly compressed) bytes
    raw_size: int       # uncompressed size (0 when not compressed)

    @property
    def compressed(self) -> bool:
        return bool(self.flags & (FLAG_LZ4 | FLAG_ZSTD))


def parse_fatbin(blob: bytes, where: str = "fat binary") -> list[FatbinEntry]:
    """All entries of the fat binaries laid end to end in `blob`."""
    out: list[FatbinEntry] = []
    p = 0
    while p + 16 <= len(blob):
        magic, _ver, hs, body = struct.unpack_from("<IHHQ", blob, p)
        if magic != FATBIN_MAGIC:
            if p == 0:
                raise InputError(f"not a CUDA fat binary (magic 0x{magic:08x})", path=where)
            break
        off, end = p + hs, p + hs + body
        while off + 16 <= end:
            kind, _v, ehs, size = struct.unpack_from("<HHIQ", blob, off)
            arch = struct.unpack_from("<I", blob, off + 28)[0] if ehs >= 32 else 0
            flags = struct.unpack_from("<Q", blob, off + 40)[0] if ehs >= 48 else 0
            raw = struct.unpack_from("<Q", blob, off + 56)[0] if ehs >= 64 else 0
            out.append(FatbinEntry(kind, arch, flags, bytes(blob[off + ehs:off + ehs + size]), raw))
            off += ehs + size
        p = end
    return out


def read_wrapper(addr: int) -> bytes:
    """The fat binary bytes behind a registration wrapper address in this process."""
    magic, _ver, data = struct.unpack("<IIQ", ctypes.string_at(addr, 16))
    if magic != WRAPPER_MAGIC:
        raise InputError(f"__cudaRegisterFatBinary got an unknown wrapper (magic 0x{magic:08x}); programs "
                         "built with relocatable device code (-rdc) are not supported")
    hdr = ctypes.string_at(data, 16)
    m, _v, hs, body = struct.unpack("<IHHQ", hdr)
    if m != FATBIN_MAGIC:
        raise InputError(f"fat binary at 0x{data:x} has unknown magic 0x{m:08x}")
    return ctypes.string_at(data, hs + body)


def _lib(name: str):
    path = ctypes.util.find_library(name)
    for cand in ([path] if path else []) + [f"lib{name}.so.1"]:
        try:
            return ctypes.CDLL(cand)
        except OSError:
            continue
    return None


def _zstd(data: bytes, size: int) -> bytes:
    lib = _lib("zstd")
    if lib is None:
        raise InputError(f"the embedded PTX is zstd-compressed and libzstd is missing: {NO_COMPRESS_HINT}")
    lib.ZSTD_findFrameCompressedSize.restype = ctypes.c_size_t
    lib.ZSTD_decompress.restype = ctypes.c_size_t
    lib.ZSTD_isError.restype = ctypes.c_uint
    n = lib.ZSTD_findFrameCompressedSize(data, ctypes.c_size_t(len(data)))
    if lib.ZSTD_isError(ctypes.c_size_t(n)):
        n = len(data)
    dst = ctypes.create_string_buffer(max(size, 1))
    got = lib.ZSTD_decompress(dst, ctypes.c_size_t(size), data, ctypes.c_size_t(n))
    if lib.ZSTD_isError(ctypes.c_size_t(got)):
        raise InputError(f"cannot decompress the embedded PTX (zstd): {NO_COMPRESS_HINT}")
    return dst.raw[:got]


def _lz4(data: bytes, size: int) -> bytes:
    lib = _lib("lz4")
    if lib is None:
        raise InputError(f"the embedded PTX is LZ4-compressed and liblz4 is missing: {NO_COMPRESS_HINT}")
    dst = ctypes.create_string_buffer(max(size, 1))
    src = data.rstrip(b"\0") if size else data
    for n in (len(src), len(data)):
        got = lib.LZ4_decompress_safe(data, dst, ctypes.c_int(n), ctypes.c_int(size))
        if got >= 0:
            return dst.raw[:got]
    raise InputError(f"cannot decompress the embedded PTX (LZ4): {NO_COMPRESS_HINT}")


def entry_bytes(e: FatbinEntry) -> bytes:
    data = e.payload
    if e.flags & FLAG_ZSTD:
        data = _zstd(data, e.raw_size)
    elif e.flags & FLAG_LZ4:
        data = _lz4(data, e.raw_size)
    return data


def entry_text(e: FatbinEntry) -> str:
    return entry_bytes(e).split(b"\0", 1)[0].decode("utf-8", errors="replace")


def select_registers(entries: list[FatbinEntry], compute_capability: int) -> tuple[int, dict[str, int]]:
    """(arch, kernel -> registers per thread) from the embedded SASS nearest the simulated GPU's
    architecture (the highest at or below it, else the lowest above); (0, {}) without usable SASS."""
    from warpsim.frontend.cudart.cubin import kernel_registers

    elf = [e for e in entries if e.kind == KIND_ELF]
    below = [e for e in elf if e.arch <= compute_capability]
    above = [e for e in elf if e.arch > compute_capability]
    order = sorted(below, key=lambda e: -e.arch) + sorted(above, key=lambda e: e.arch)
    for e in order:
        try:
            return e.arch, kernel_registers(entry_bytes(e))
        except (ValueError, InputError, struct.error):
            continue
    return 0, {}


def select_ptx(entries: list[FatbinEntry], where: str = "program") -> tuple[int, str] | None:
    """(arch, PTX text) of the highest-arch PTX entry; None when the binary holds no kernels at all;
    InputError when it holds only SASS."""
    ptx = [e for e in entries if e.kind == KIND_PTX]
    if not ptx:
        if any(e.kind == KIND_ELF for e in entries):
            raise InputError(NO_PTX_HINT, path=where)
        return None
    best = max(ptx, key=lambda e: e.arch)
    return best.arch, entry_text(best)
