"""Compact binary copies of trace kernels: parsed once, memory-mapped on every later read.

`warpsim trace --compact TRACE` writes `kernel-N.traceg[.xz].wsc` beside each kernel file; the
reader then takes the thread blocks from it (no parsing, no decompression) as long as the text
file is unchanged (same size and modification time; otherwise it warns and parses the text).

Layout (format version 2, little-endian; version 2: MMA instructions carry their work, in Volta
HMMA.884s, in `width` (ir/sass.py tensor_work)): 8-byte magic `WSCTRACE`, u32 format version, u32
header length, a JSON header, then 64-byte aligned raw columns named in the header: per thread
block its index and first warp; per warp its first instruction and first address row (so warp i
of the file is instructions warp_inst[i]:warp_inst[i+1]); per instruction the WarpTrace columns
(mem_row warp-local); per memory instruction 32 lane addresses. Thread blocks keep file order.
Nothing is pickled: a reader needs only numpy and this description.
"""

from __future__ import annotations

import json
import mmap
import os
import struct
import warnings
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import BinaryIO

import numpy as np

from warpsim.errors import InputError
from warpsim.ir.records import MAX_DST, MAX_SRC, WARP_SIZE, CtaTrace, KernelInfo, PackedCta, WarpTrace

MAGIC = b"WSCTRACE"
VERSION = 2
SUFFIX = ".wsc"
_ALIGN = 64
_PREFIX = struct.Struct("<8sII")

# name -> (dtype, per-row shape, row count key)
COLUMNS: dict[str, tuple[str, tuple[int, ...], str]] = {
    "cta_xyz": ("<i4", (3,), "ctas"),
    "cta_warp": ("<i8", (), "ctas+1"),
    "warp_inst": ("<i8", (), "warps+1"),
    "warp_row": ("<i8", (), "warps+1"),
    "pc": ("<u4", (), "insts"),
    "mask": ("<u4", (), "insts"),
    "kind": ("u1", (), "insts"),
    "unit": ("u1", (), "insts"),
    "lat": ("u1", (), "insts"),
    "flags": ("u1", (), "insts"),
    "space": ("u1", (), "insts"),
    "width": ("u1", (), "insts"),
    "dst": ("<i2", (MAX_DST,), "insts"),
    "src": ("<i2", (MAX_SRC,), "insts"),
    "mem_row": ("<i4", (), "insts"),
    "addr": ("<u8", (WARP_SIZE,), "mem"),
}
_WARP_COLUMNS = ("pc", "mask", "kind", "unit", "lat", "flags", "dst", "src", "space", "width", "mem_row")


def cache_path(trace_path: str | Path) -> Path:
    return Path(f"{trace_path}{SUFFIX}")


def _stamp(path: Path) -> dict:
    st = path.stat()
    return {"name": path.name, "size": st.st_size, "mtime_ns": st.st_mtime_ns}


def _rows(key: str, counts: dict[str, int]) -> int:
    name, _, plus = key.partition("+")
    return counts[name] + (int(plus) if plus else 0)


# ---- writing ----------------------------------------------------------------------------------

def write_compact(trace_path: Path, info: KernelInfo, ctas: Iterable[CtaTrace]) -> Path:
    """Write the cache of one kernel file from its thread blocks (read from the text); returns its path.

    Columns are spooled to temporary files as blocks arrive, so memory stays bounded by one block."""
    out = cache_path(trace_path)
    tmp_dir = out.parent
    spools: dict[str, BinaryIO] = {}
    names = {name: tmp_dir / f".{out.name}.{name}.tmp" for name in COLUMNS}
    counts = {"ctas": 0, "warps": 0, "insts": 0, "mem": 0}
    try:
        for name, p in names.items():
            spools[name] = open(p, "wb")
        spools["cta_warp"].write(np.zeros(1, "<i8").tobytes())
        spools["warp_inst"].write(np.zeros(1, "<i8").tobytes())
        spools["warp_row"].write(np.zeros(1, "<i8").tobytes())
        for cta in ctas:
            _spool_cta(cta, spools, counts)
        for f in spools.values():
            f.close()
        _assemble(out, names, counts, trace_path, info)
    except OSError as exc:
        raise InputError(f"cannot write the compact trace: {exc.strerror or exc}", path=str(out)) from None
    finally:
        for f in spools.values():
            f.close()
        for p in names.values():
            p.unlink(missing_ok=True)
    return out


def _spool_cta(cta: CtaTrace, spools: dict[str, BinaryIO], counts: dict[str, int]) -> None:
    if isinstance(cta, PackedCta):
        cols, lens, rows = cta.cols, cta.warp_lengths, cta.warp_rows
    else:
        warps = cta.warps
        cols = WarpTrace(**{n: np.concatenate([getattr(w, n) for w in warps]) for n in _WARP_COLUMNS},
                         addr=np.concatenate([w.addr for w in warps]))
        lens = np.array([len(w) for w in warps], np.int64)
        rows = np.array([w.addr.shape[0] for w in warps], np.int64)
    spools["cta_xyz"].write(np.array(cta.cta, "<i4").tobytes())
    counts["ctas"] += 1
    counts["warps"] += lens.size
    spools["cta_warp"].write(np.array([counts["warps"]], "<i8").tobytes())
    spools["warp_inst"].write((counts["insts"] + np.cumsum(lens)).astype("<i8").tobytes())
    spools["warp_row"].write((counts["mem"] + np.cumsum(rows)).astype("<i8").tobytes())
    counts["insts"] += len(cols)
    counts["mem"] += cols.addr.shape[0]
    for name in (*_WARP_COLUMNS, "addr"):
        dtype = COLUMNS[name][0]
        spools[name].write(np.ascontiguousarray(getattr(cols, name), dtype=dtype).tobytes())


def _assemble(out: Path, names: dict[str, Path], counts: dict[str, int], trace_path: Path,
              info: KernelInfo) -> None:
    columns = {}
    offset = 0
    for name, (dtype, shape, key) in COLUMNS.items():
        nbytes = names[name].stat().st_size
        expect = _rows(key, counts) * int(np.prod(shape, dtype=np.int64)) * np.dtype(dtype).itemsize
        if nbytes != expect:
            raise AssertionError(f"compact column {name}: {nbytes} bytes, expected {expect}")
        columns[name] = {"offset": offset, "nbytes": nbytes}
        offset += -(-nbytes // _ALIGN) * _ALIGN
    header = {"format": "warpsim compact trace", "version": VERSION, "source": _stamp(trace_path),
              "kernel": {"name": info.name, "grid": list(info.grid), "block": list(info.block)},
              "counts": counts, "columns": columns}
    blob = json.dumps(header, sort_keys=True).encode()
    start = -(-(_PREFIX.size + len(blob)) // _ALIGN) * _ALIGN
    part = out.with_name(f".{out.name}.part")
    with open(part, "wb") as f:
        f.write(_PREFIX.pack(MAGIC, VERSION, len(blob)) + blob)
        for name in COLUMNS:
            f.seek(start + columns[name]["offset"])
            with open(names[name], "rb") as src:
                while chunk := src.read(1 << 22):
                    f.write(chunk)
        f.truncate(start + offset)
    os.replace(part, out)


# ---- reading ----------------------------------------------------------------------------------

class CompactKernel:
    """A validated, memory-mapped cache file of one kernel."""

    def __init__(self, path: Path) -> None:
        self.path = path
        with open(path, "rb") as f:
            size = os.fstat(f.fileno()).st_size
            self._map = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) if size else None
        if self._map is None:
            self._bad("empty file")
        self._raw = np.frombuffer(self._map, np.uint8)
        self.header, self._start = self._header(self._raw)
        self.source = self.header.get("source")
        self.cols: dict[str, np.ndarray] = {}

    def bind(self, info: KernelInfo) -> CompactKernel:
        """Check the copy against the kernel's header and map its columns."""
        self._check_kernel(self.header, info)
        counts = self.header["counts"]
        raw, start = self._raw, self._start
        for name, (dtype, shape, key) in COLUMNS.items():
            where = self.header["columns"].get(name)
            try:
                nbytes = _rows(key, counts) * int(np.prod(shape, dtype=np.int64)) * np.dtype(dtype).itemsize
            except (KeyError, TypeError, ValueError):
                self._bad("unreadable header")
            if not isinstance(where, dict) or where.get("nbytes") != nbytes:
                self._bad(f"column {name!r} is missing or has the wrong size")
            lo = start + int(where["offset"])
            if lo % _ALIGN or lo + nbytes > raw.size:
                self._bad(f"column {name!r} lies outside the file (truncated?)")
            self.cols[name] = raw[lo:lo + nbytes].view(dtype).reshape((-1, *shape))
        self._check_structure(counts, info)
        return self

    def _bad(self, what: str) -> None:
        raise InputError(f"corrupt compact trace ({what}); delete it or rebuild it with "
                         "`warpsim trace --compact`", path=str(self.path))

    def _header(self, raw: np.ndarray) -> tuple[dict, int]:
        if raw.size < _PREFIX.size:
            self._bad("shorter than its header")
        magic, version, length = _PREFIX.unpack(raw[:_PREFIX.size].tobytes())
        if magic != MAGIC:
            self._bad("not a warpsim compact trace: wrong magic bytes")
        if version != VERSION:
            raise InputError(f"compact trace format version {version}; this warpsim reads version {VERSION}: "
                             "rebuild it with `warpsim trace --compact`", path=str(self.path))
        end = _PREFIX.size + length
        try:
            header = json.loads(raw[_PREFIX.size:end].tobytes())
            if not all(isinstance(header.get(k), dict) for k in ("counts", "columns", "kernel")):
                raise ValueError
        except (ValueError, AttributeError):
            self._bad("unreadable header")
        return header, -(-end // _ALIGN) * _ALIGN

    def _check_kernel(self, header: dict, info: KernelInfo) -> None:
        k = header["kernel"]
        if (k.get("name"), tuple(k.get("grid", ())), tuple(k.get("block", ()))) != (info.name, info.grid,
                                                                                       info.block):
            raise InputError(f"compact trace is of kernel {k.get('name')!r} grid {k.get('grid')} block "
                             f"{k.get('block')}, the trace file's header says {info.name!r} grid "
                             f"{list(info.grid)} block {list(info.block)}: rebuild it with "
                             "`warpsim trace --compact`", path=str(self.path))

    def _check_structure(self, counts: dict, info: KernelInfo) -> None:
        c = self.cols
        if counts["ctas"] != info.num_ctas or counts["warps"] != info.num_ctas * info.warps_per_cta:
            self._bad(f"{counts['ctas']} thread blocks of {counts['warps']} warps for a grid of "
                      f"{info.num_ctas} blocks of {info.warps_per_cta} warps")
        for name, total in (("cta_warp", counts["warps"]), ("warp_inst", counts["insts"]),
                            ("warp_row", counts["mem"])):
            col = c[name]
            if col[0] != 0 or col[-1] != total or (np.diff(col) < 0).any():
                self._bad(f"index column {name!r} is not a partition of its rows")
        per = np.diff(c["cta_warp"])
        if (per != info.warps_per_cta).any():
            self._bad("a thread block with the wrong number of warps")

    def iter_ctas(self, chunk: int = 4096) -> Iterator[PackedCta]:
        """The thread blocks in file order; warp boundaries relative to each block are computed for
        `chunk` blocks at a time (per-block numpy calls dominate blocks of a hundred instructions)."""
        c = self.cols
        xyz = c["cta_xyz"].tolist()
        cta_warp = c["cta_warp"]
        warp_inst, warp_row = c["warp_inst"], c["warp_row"]
        pc, mask, kind, unit, lat, flags, dst, src, space, width, mem_row = (c[n] for n in _WARP_COLUMNS)
        addr = c["addr"]
        nwarps = int(cta_warp[1] - cta_warp[0]) if len(xyz) else 0
        for first in range(0, len(xyz), chunk):
            last = min(first + chunk, len(xyz))
            w = cta_warp[first:last + 1]
            inst_lo, row_lo = warp_inst[w], warp_row[w]
            span = slice(int(w[0]), int(w[-1]) + 1)
            rel_inst = _relative(warp_inst[span], inst_lo, nwarps)
            rel_row = _relative(warp_row[span], row_lo, nwarps)
            bounds = np.stack([inst_lo, row_lo], axis=1).tolist()
            for k in range(last - first):
                lo, r0 = bounds[k]
                hi, r1 = bounds[k + 1]
                yield PackedCta(tuple(xyz[first + k]), WarpTrace(  # type: ignore[arg-type]
                    pc=pc[lo:hi], mask=mask[lo:hi], kind=kind[lo:hi], unit=unit[lo:hi], lat=lat[lo:hi],
                    flags=flags[lo:hi], dst=dst[lo:hi], src=src[lo:hi], space=space[lo:hi],
                    width=width[lo:hi], mem_row=mem_row[lo:hi], addr=addr[r0:r1]), rel_inst[k], rel_row[k])


def _relative(index: np.ndarray, block_lo: np.ndarray, nwarps: int) -> np.ndarray:
    """[blocks, nwarps + 1] warp boundaries relative to each block's first row (every block has
    nwarps warps: checked when the copy was opened)."""
    nblocks = block_lo.size - 1
    out = np.empty((nblocks, nwarps + 1), np.int64)
    out[:, :nwarps] = index[:-1].reshape(nblocks, nwarps) - block_lo[:-1, None]
    out[:, nwarps] = block_lo[1:] - block_lo[:-1]
    return out


def open_cache(trace_path: Path, info: KernelInfo) -> CompactKernel | None:
    """The kernel's cache if there is one for this exact text file; a stale one is ignored, with a warning."""
    path = cache_path(trace_path)
    if not path.is_file():
        return None
    cached = CompactKernel(path)
    if cached.source != _stamp(trace_path):
        warnings.warn(f"{path}: compact trace is older than {trace_path.name} (size or modification time "
                      "differ); reading the text instead. Rebuild it with `warpsim trace --compact`.",
                      stacklevel=2)
        return None
    return cached.bind(info)

