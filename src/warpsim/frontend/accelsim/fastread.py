"""The reader's fast path: bytes in, thread blocks out, the compiled scanner in between.

The file is read in binary chunks; `scan.scan` turns whole thread blocks into flat columns, and
each CtaTrace's warps are slices of one call's copies of those columns (as in lines.py, per-warp
numpy calls would dominate small warps). Memory stays bounded by one chunk plus one call's blocks.

Whatever the scanner does not accept (malformed text, the pre-v3 line prefix, an opcode the
decoder rejects, a duplicated thread block) is handed to the line-by-line reader from the start
of that thread block to the end of the kernel, so every error keeps the reference reader's
message, file and line. `WARPSIM_TRACE_READER=text` selects that reader for whole files.
"""

from __future__ import annotations

import lzma
import os
from collections.abc import Iterator
from typing import TYPE_CHECKING, BinaryIO

import numpy as np

from warpsim.errors import InputError
from warpsim.frontend.accelsim import scan as sc
from warpsim.frontend.accelsim.scan_tokens import opcode_hash
from warpsim.frontend.accelsim.textio import is_compressed
from warpsim.ir.records import MAX_DST, MAX_SRC, WARP_SIZE, CtaTrace, PackedCta, WarpTrace

if TYPE_CHECKING:
    from warpsim.frontend.accelsim.reader import _CtaStream

CHUNK = 4 << 20                   # bytes read at a time
MAX_CTAS_PER_CALL = 64


def fast_path_enabled() -> bool:
    choice = os.environ.get("WARPSIM_TRACE_READER", "fast").strip().lower()
    if choice not in ("fast", "text"):
        raise InputError(f"WARPSIM_TRACE_READER must be 'fast' or 'text', not {choice!r}")
    return choice == "fast"


class OpcodeTable:
    """Opcode bytes -> the LineContext's opcode numbers, as an open-addressing hash table."""

    def __init__(self, ctx) -> None:
        self.ctx = ctx
        self.keys = np.zeros(256, np.uint64)
        self.vals = np.full(256, -1, np.int32)
        self.bytes = bytearray()
        self.off = [0]
        # read-only like every later value (np.frombuffer of bytes): one array type, so the scanner
        # is compiled once instead of once per writability (two signatures cost ~60 s cold)
        self.op_bytes = np.frombuffer(b"\0", np.uint8)
        self.op_off = np.zeros(1, np.int64)
        self.memkind = np.zeros(1, np.int8)

    def add(self, token: bytes) -> None:
        """Decode one opcode (InputError for one the decoder does not know) and insert it."""
        name = token.decode("ascii")
        index = self.ctx.op_index.get(name)
        if index is None:
            index = self.ctx.add_opcode(name)
        if index != len(self.off) - 1:
            raise AssertionError("opcode table out of step with the line context")
        if 2 * (index + 1) > self.keys.size:
            self._rehash(self.keys.size * 4)
        self.bytes += token
        self.off.append(len(self.bytes))
        self._insert(token, index)
        self.op_bytes = np.frombuffer(bytes(self.bytes), np.uint8)
        self.op_off = np.array(self.off, np.int64)
        self.memkind = np.array(self.ctx.memkinds, np.int8)

    def _insert(self, token: bytes, index: int) -> None:
        h = opcode_hash(np.frombuffer(token, np.uint8), 0, len(token))
        slot = int(h) & (self.keys.size - 1)
        while self.vals[slot] >= 0:
            slot = (slot + 1) & (self.keys.size - 1)
        self.keys[slot] = h
        self.vals[slot] = index

    def _rehash(self, size: int) -> None:
        self.keys = np.zeros(size, np.uint64)
        self.vals = np.full(size, -1, np.int32)
        for i in range(len(self.off) - 1):
            self._insert(bytes(self.bytes[self.off[i]:self.off[i + 1]]), i)


class _Buffers:
    """Output columns of one scan call; grown when one thread block does not fit."""

    def __init__(self, insts: int = 1 << 16, mem_rows: int = 1 << 13, warps: int = 1 << 12) -> None:
        self.pc = np.zeros(insts, np.uint32)
        self.mask = np.zeros(insts, np.uint32)
        self.op = np.zeros(insts, np.int32)
        self.dst = np.zeros((insts, MAX_DST), np.int16)
        self.src = np.zeros((insts, MAX_SRC), np.int16)
        self.mem_row = np.zeros(insts, np.int32)
        self.gspace = np.zeros(insts, np.uint8)
        self.addr = np.zeros((mem_rows, WARP_SIZE), np.uint64)
        self.warp_rec = np.zeros((warps + 1, 3), np.int64)        # one spare row for _build
        self.ctas = np.zeros((MAX_CTAS_PER_CALL, sc.C_COLS), np.int64)
        self.res = np.zeros(sc.RES_SIZE, np.int64)

    def grown(self) -> _Buffers:
        return _Buffers(2 * self.pc.size, 2 * self.addr.shape[0], 2 * (self.warp_rec.shape[0] - 1))


class _Source:
    """Binary chunks of the trace body, with the consumed prefix dropped as the scan moves on."""

    def __init__(self, stream: _CtaStream) -> None:
        self.stream = stream
        self.file: BinaryIO = lzma.open(stream.path, "rb") if is_compressed(stream.path) \
            else open(stream.path, "rb")
        self.data = b""
        self.eof = False

    def close(self) -> None:
        self.file.close()

    def more(self, keep_from: int) -> None:
        """Drop data[:keep_from] and append the next chunk (at least as much as is kept)."""
        chunk = self.file.read(max(CHUNK, len(self.data) - keep_from))
        self.data = self.data[keep_from:] + chunk
        if not chunk:
            self.eof = True
            if self.data and not self.data.endswith(b"\n"):
                self.data += b"\n"               # the last line, like readline's, without newline

    def skip_lines(self, count: int) -> int:
        """Position after the first `count` lines (the header); the offset into data."""
        pos = 0
        for _ in range(count):
            nl = self.data.find(b"\n", pos)
            while nl < 0 and not self.eof:
                self.more(0)
                nl = self.data.find(b"\n", pos)
            if nl < 0:
                return len(self.data)
            pos = nl + 1
        return pos


def fast_ctas(stream: _CtaStream, max_line_chars: int) -> Iterator[CtaTrace]:
    """The thread blocks of `stream`'s kernel; the text reader takes over where the scanner stops.

    Lines of `max_line_chars` - 1 characters or more go to the text reader (which rejects them)."""
    info = stream.info
    ctx = stream.ctx
    table = OpcodeTable(ctx)
    out = _Buffers()
    src = _Source(stream)
    seen: set[tuple[int, int, int]] = set()
    grid = np.array(info.grid, np.int64)
    line = stream.body_line
    try:
        try:
            pos = src.skip_lines(stream.body_line)
        except (lzma.LZMAError, EOFError, OSError):
            yield from stream.slow_from(line, seen)
            return
        while True:
            buf = np.frombuffer(src.data, np.uint8)
            status = sc.scan(buf, pos, line, src.eof, max_line_chars - 2, ctx.lineinfo, ctx.num_regs, grid,
                             info.warps_per_cta, np.uint64(ctx.shmem_base), np.uint64(ctx.local_base),
                             MAX_CTAS_PER_CALL,
                             table.keys, table.vals, table.op_bytes, table.op_off, table.memkind,
                             out.pc, out.mask, out.op, out.dst, out.src, out.mem_row, out.gspace, out.addr,
                             out.warp_rec, out.ctas, out.res)
            res = out.res
            ctas = _build(out, ctx, info.warps_per_cta)
            for c, cta in enumerate(ctas):
                if cta.cta in seen:                   # the text reader words the error
                    yield from stream.slow_from(int(out.ctas[c, sc.C_LINE]), seen)
                    return
                seen.add(cta.cta)
                yield cta
            pos, line = int(res[sc.R_POS]), int(res[sc.R_LINE])
            if status == sc.DONE:
                stream.lineno = line
                stream.check_coverage(seen)
                return
            if status == sc.NEED_MORE:
                try:
                    src.more(pos)
                except (lzma.LZMAError, EOFError, OSError):
                    yield from stream.slow_from(line, seen)
                    return
                pos = 0
            elif status == sc.NEW_OPCODE:
                token = src.data[int(res[sc.R_AUX0]):int(res[sc.R_AUX1])]
                try:
                    table.add(token)
                except InputError:
                    yield from stream.slow_from(line, seen)
                    return
            elif status == sc.GROW:
                out = out.grown()
            elif status == sc.SLOW:
                yield from stream.slow_from(line, seen)
                return
    finally:
        src.close()


def _build(out: _Buffers, ctx, nwarps: int) -> list[CtaTrace]:
    """CtaTraces of one call's completed thread blocks (copies: the buffers are reused)."""
    res = out.res
    ncta = int(res[sc.R_NCTA])
    if ncta == 0:
        return []
    n, nmem, nw = int(res[sc.R_NINST]), int(res[sc.R_NMEM]), int(res[sc.R_NWARP])
    pc, mask = out.pc[:n].copy(), out.mask[:n].copy()
    kind, unit, lat, space, flags, width = ctx.table()[:, out.op[:n]]
    g = out.gspace[:n]
    generic = g != sc.GSPACE_TABLE
    if generic.any():
        space[generic] = g[generic]
    dst, src, mem_row = out.dst[:n].copy(), out.src[:n].copy(), out.mem_row[:n].copy()
    addr = out.addr[:nmem].copy()
    rec = out.warp_rec[:nw + 1].copy()
    rec[nw] = (-1, n, nmem)
    cta_rows = out.ctas[:ncta].tolist()
    built: list[CtaTrace] = []
    for c, row in enumerate(cta_rows):
        w0 = row[sc.C_WARP]
        w1 = cta_rows[c + 1][sc.C_WARP] if c + 1 < ncta else nw
        order = rec[w0:w1, 0]
        lo, hi = int(rec[w0, 1]), int(rec[w1, 1])
        r0, r1 = int(rec[w0, 2]), int(rec[w1, 2])
        cols = WarpTrace(pc=pc[lo:hi], mask=mask[lo:hi], kind=kind[lo:hi], unit=unit[lo:hi], lat=lat[lo:hi],
                         flags=flags[lo:hi], dst=dst[lo:hi], src=src[lo:hi], space=space[lo:hi],
                         width=width[lo:hi], mem_row=mem_row[lo:hi], addr=addr[r0:r1])
        packed = PackedCta((row[sc.C_X], row[sc.C_Y], row[sc.C_Z]), cols, rec[w0:w1 + 1, 1] - lo,
                           rec[w0:w1 + 1, 2] - r0)
        if np.array_equal(order, np.arange(nwarps)):
            built.append(packed)
        else:                                     # warps listed out of order: put them in place
            warps = packed.warps
            built.append(CtaTrace(cta=packed.cta, warps=[warps[k] for k in np.argsort(order)]))
    return built
