"""Fat-binary reading and the mapped device allocator, without nvcc or a CUDA program."""

from __future__ import annotations

import ctypes
import mmap
import struct

import pytest

from warpsim.errors import InputError
from warpsim.frontend.cudart.fatbin import (
    FATBIN_MAGIC,
    FLAG_ZSTD,
    KIND_ELF,
    KIND_PTX,
    _lib,
    parse_fatbin,
    select_ptx,
)

PTX75 = b"//\n.version 9.0\n.target sm_75\n.address_size 64\n"


def entry(kind: int, arch: int, payload: bytes, flags: int = 0x11, raw_size: int = 0) -> bytes:
    """One fat-binary entry with the 64-byte header nvcc 13 writes (fields we read, zeros elsewhere)."""
    size = -(-len(payload) // 8) * 8
    hdr = bytearray(64)
    struct.pack_into("<HHIQ", hdr, 0, kind, 0x0101, 64, size)
    struct.pack_into("<I", hdr, 28, arch)
    struct.pack_into("<Q", hdr, 40, flags)
    struct.pack_into("<Q", hdr, 56, raw_size)
    return bytes(hdr) + payload.ljust(size, b"\0")


def fatbin(*entries: bytes) -> bytes:
    body = b"".join(entries)
    return struct.pack("<IHHQ", FATBIN_MAGIC, 1, 16, len(body)) + body


def test_highest_ptx_entry_is_chosen():
    blob = fatbin(entry(KIND_ELF, 75, b"\x7fELF...."), entry(KIND_PTX, 52, b"old"),
                  entry(KIND_PTX, 75, PTX75))
    ents = parse_fatbin(blob)
    assert [(e.kind, e.arch) for e in ents] == [(KIND_ELF, 75), (KIND_PTX, 52), (KIND_PTX, 75)]
    arch, text = select_ptx(ents)
    assert arch == 75 and text == PTX75.decode()


def test_two_fatbins_back_to_back():
    ents = parse_fatbin(fatbin(entry(KIND_ELF, 75, b"x")) + fatbin(entry(KIND_PTX, 80, PTX75)))
    assert [e.arch for e in ents] == [75, 80]


def test_sass_only_says_which_flag_to_add():
    with pytest.raises(InputError, match="embeds only SASS.*compute_70"):
        select_ptx(parse_fatbin(fatbin(entry(KIND_ELF, 75, b"\x7fELF"))), "prog")


def test_not_a_fatbin():
    with pytest.raises(InputError, match="not a CUDA fat binary"):
        parse_fatbin(b"\0" * 32)


@pytest.mark.skipif(_lib("zstd") is None, reason="libzstd not installed")
def test_zstd_compressed_ptx():
    z = _lib("zstd")
    z.ZSTD_compressBound.restype = ctypes.c_size_t
    z.ZSTD_compress.restype = ctypes.c_size_t
    cap = z.ZSTD_compressBound(ctypes.c_size_t(len(PTX75)))
    dst = ctypes.create_string_buffer(cap)
    n = z.ZSTD_compress(dst, ctypes.c_size_t(cap), PTX75, ctypes.c_size_t(len(PTX75)), 3)
    blob = fatbin(entry(KIND_PTX, 75, dst.raw[:n], flags=0x11 | FLAG_ZSTD, raw_size=len(PTX75)))
    assert select_ptx(parse_fatbin(blob)) == (75, PTX75.decode())


def test_mapped_device_reuses_freed_blocks():
    from warpsim.frontend.cudart.device import MappedDevice
    from warpsim.frontend.ptx.memory import GLOBAL_BASE

    libc = ctypes.CDLL(None, use_errno=True)
    libc.mmap.restype = ctypes.c_void_p
    libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int,
                          ctypes.c_long]
    size = 1 << 20
    flags = mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS | 0x100000        # MAP_FIXED_NOREPLACE
    got = libc.mmap(GLOBAL_BASE, size, mmap.PROT_READ | mmap.PROT_WRITE, flags, -1, 0)
    if got != GLOBAL_BASE:
        pytest.skip("device window already mapped in this process")
    try:
        dev = MappedDevice(GLOBAL_BASE, size)
        a, _ = dev.malloc(1000)
        b, _ = dev.malloc(3000)
        c, _ = dev.malloc(100)
        assert (a, b, c) == (GLOBAL_BASE, GLOBAL_BASE + 1024, GLOBAL_BASE + 4096)
        ctypes.memset(b, 7, 3000)                                 # host-visible at its device address
        assert dev.heap[1024] == 7 and dev.heap[1024 + 2999] == 7
        assert dev.free(b) and not dev.free(b) and not dev.free(b + 4)
        d, _ = dev.malloc(2000)                                   # first fit in the freed block
        assert d == b
        e, _ = dev.malloc(1000)                                   # rest of it (3072 - 2048 = 1024)
        assert e == b + 2048
        assert dev.allocation_of(b + 100) == (b, 2048)
        assert dev.free(a) and dev.free(d) and dev.free(e)        # neighbours merge back to one block
        assert dev._free == [(0, 4096)]
        with pytest.raises(Exception, match="requested"):
            dev.malloc(2 * size)
    finally:
        libc.munmap(ctypes.c_void_p(GLOBAL_BASE), ctypes.c_size_t(size))
