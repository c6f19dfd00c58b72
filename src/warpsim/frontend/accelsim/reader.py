"""Accel-Sim trace reader: kernelslist.g or one .traceg[.xz] -> Memcpy and lazily-read kernels.

`TraceKernel.info` comes from the header alone; `iter_ctas()` reopens the file and streams one
thread block at a time (accelsim-notes §1.4), so memory stays bounded for multi-GB traces.
"""

from __future__ import annotations

import lzma
import re
from collections.abc import Iterator
from functools import partial
from itertools import islice
from pathlib import Path
from typing import TextIO

from warpsim.errors import InputError
from warpsim.frontend.accelsim.compact import open_cache
from warpsim.frontend.accelsim.fastread import fast_ctas, fast_path_enabled
from warpsim.frontend.accelsim.header import TraceHeader, parse_header
from warpsim.frontend.accelsim.kernelslist import KernelEntry, is_trace_file, parse_kernelslist
from warpsim.frontend.accelsim.lines import CtaBatch, LineContext
from warpsim.frontend.accelsim.textio import open_text
from warpsim.ir.records import CtaTrace, KernelInfo, Memcpy, WarpTrace
from warpsim.ir.sass import OpcodeDecoder

_KERNEL_NUMBER = re.compile(r"kernel-(\d+)")
_STRUCTURAL = ("#", "warp", "insts", "thread block", "cluster")
MAX_LINE_CHARS = 1 << 16          # a list-mode line of 32 addresses is < 1 KB; longer is not a trace
MAX_WARP_INSTS = 1 << 32          # instructions of one warp
_CHUNK = 1 << 16                  # instruction lines read at once for a long warp


class TraceKernel:
    """One kernel of a trace (KernelSource protocol): header parsed now, body read on demand."""

    def __init__(self, path: str | Path, *, default_kernel_id: int | None = None) -> None:
        self.path = Path(path)
        if default_kernel_id is None:
            m = _KERNEL_NUMBER.search(self.path.name)
            default_kernel_id = int(m[1]) if m else 1
        with _reading(self.path) as f:
            try:
                self.header: TraceHeader = parse_header(bounded_lines(f), self.path,
                                                        default_kernel_id=default_kernel_id)
            except (lzma.LZMAError, EOFError) as exc:
                raise InputError(f"cannot read compressed trace: {exc}", path=str(self.path)) from None
        self.info: KernelInfo = self.header.info

    def __repr__(self) -> str:
        return f"TraceKernel({str(self.path)!r}, id={self.info.kernel_id}, name={self.info.name!r})"

    def iter_ctas(self, use_cache: bool = True) -> Iterator[CtaTrace]:
        """Yield the thread blocks in file order, one at a time (a generator: nothing is read early).
        A compact copy (`warpsim trace --compact`, compact.py) is used when it matches the file."""
        return _CtaStream(self.path, self.header).run(use_cache)


class _CtaStream:
    """State machine over the body: #BEGIN_TB, thread block, warp/insts blocks, #END_TB."""

    def __init__(self, path: Path, header: TraceHeader) -> None:
        info = header.info
        self.path = path
        self.spath = str(path)
        self.info = info
        self.nwarps = info.warps_per_cta
        self.ctx = LineContext(path=self.spath, decoder=OpcodeDecoder(info.binary_version),
                               prefix=header.tracer_version < 3, lineinfo=header.lineinfo,
                               shmem_base=info.shmem_base, local_base=info.local_base,
                               num_regs=max(info.num_ir_regs, 256))
        self.body_line = header.body_line
        self.lineno = 0

    def error(self, message: str, text: str | None = None, line: int | None = None) -> InputError:
        return InputError(message, path=self.spath, line=self.lineno if line is None else line, text=text)

    def run(self, use_cache: bool = True) -> Iterator[CtaTrace]:
        """The compact copy if there is a current one; else the compiled scanner where the text is
        canonical (fastread.py), and this reader from the first thread block it does not accept."""
        if not fast_path_enabled():
            yield from self.slow_from(self.body_line, set())
            return
        cached = open_cache(self.path, self.info) if use_cache else None
        if cached is not None:
            yield from cached.iter_ctas()
        elif self.ctx.prefix:
            yield from self.slow_from(self.body_line, set())
        else:
            yield from fast_ctas(self, MAX_LINE_CHARS)

    def slow_from(self, start_line: int, seen: set[tuple[int, int, int]]) -> Iterator[CtaTrace]:
        """Read line by line from the thread block that starts after line `start_line`."""
        with _reading(self.path) as f:
            it = bounded_lines(f)
            try:
                yield from self._blocks(it, start_line, seen)
            except (lzma.LZMAError, EOFError, OSError) as exc:
                raise self.error(f"cannot read compressed trace: {exc}") from None

    def _blocks(self, it: Iterator[str], start_line: int,
                seen: set[tuple[int, int, int]]) -> Iterator[CtaTrace]:
        self.lineno = sum(1 for _ in islice(it, start_line))
        cta: tuple[int, int, int] | None = None
        warps: dict[int, int] = {}             # warp index -> position in the CTA batch
        batch = CtaBatch()
        begin = 0
        in_tb = False
        warp = -1
        for raw in it:
            self.lineno += 1
            line = raw.strip()
            if not line:
                continue
            text = raw.rstrip("\n")
            if len(raw) >= MAX_LINE_CHARS and not raw.endswith("\n"):
                raise self.error(f"line longer than {MAX_LINE_CHARS} characters", text[:200])
            if line == "#BEGIN_TB":
                if in_tb:
                    raise self.error("#BEGIN_TB inside a thread block (missing #END_TB)", text)
                in_tb, begin, cta, warps, warp, batch = True, self.lineno, None, {}, -1, CtaBatch()
            elif line == "#END_TB":
                if not in_tb:
                    raise self.error("#END_TB without #BEGIN_TB", text)
                if cta is None:
                    raise self.error("thread block has no 'thread block = x,y,z' line", text)
                in_tb = False
                if cta in seen:
                    raise self.error(f"thread block {cta} appears twice in the trace", text)
                seen.add(cta)
                if len(warps) != self.nwarps:
                    missing = next(w for w in range(self.nwarps) if w not in warps)
                    raise self.error(f"thread block {cta} has {len(warps)} of the {self.nwarps} warps a "
                                     f"block of {self.info.block} threads has (warp {missing} is missing)",
                                     text)
                built = batch.build(self.ctx)
                out = [built[warps[w]] if w in warps else WarpTrace.empty() for w in range(self.nwarps)]
                yield CtaTrace(cta=cta, warps=out)
            elif not in_tb:
                raise self.error("line outside a #BEGIN_TB ... #END_TB block", text)
            elif line.startswith("thread block"):
                cta = self._cta_index(line, text, cta)
            elif line.startswith("warp"):
                warp = self._warp_index(line, text, warps)
            elif line.startswith("insts"):
                if warp < 0 or warp in warps:
                    raise self.error("'insts = N' without a preceding 'warp = W' line", text)
                n = self._count(line, text)
                self._warp(it, n, warp, cta, batch)
                warps[warp] = len(warps)
            elif line.startswith("cluster"):
                continue                      # Hopper cluster id/cta/rank lines: not modelled
            else:
                raise self.error("unexpected line in thread block (instruction outside a warp's "
                                 "'insts = N' lines?)", text)
        if in_tb:
            raise self.error(f"file ends inside the thread block opened at line {begin} "
                             "(truncated trace: no #END_TB)")
        self.check_coverage(seen)

    def check_coverage(self, seen: set[tuple[int, int, int]]) -> None:
        """Every CTA of the grid must be in the file (a dropped CTA silently removed its work)."""
        total = self.info.num_ctas
        if len(seen) == total:
            return
        gx, gy, _ = self.info.grid
        missing = next((x, y, z) for i in range(total)
                       for x, y, z in [(i % gx, i // gx % gy, i // (gx * gy))] if (x, y, z) not in seen)
        raise self.error(f"the trace holds {len(seen)} of the grid's {total} thread blocks "
                         f"(grid {self.info.grid}; thread block {missing} is missing)")

    def _warp(self, it: Iterator[str], n: int, warp: int, cta: tuple[int, int, int] | None,
              batch: CtaBatch) -> None:
        decl_line = self.lineno
        lines = _take(it, n)
        if lines and max(map(len, lines)) >= MAX_LINE_CHARS:
            k = next(i for i, raw in enumerate(lines) if len(raw) >= MAX_LINE_CHARS)
            self.lineno += k + 1
            raise self.error(f"line longer than {MAX_LINE_CHARS} characters", lines[k][:200])
        first = self.lineno + 1
        self.lineno += len(lines)
        if len(lines) < n:
            for k, raw in enumerate(lines):
                if not raw.strip() or raw.strip().startswith(_STRUCTURAL):
                    self.lineno = first + k
                    raise self.error(f"warp {warp} declares insts = {n} (line {decl_line}) but only {k} "
                                     "instruction lines follow", raw.rstrip("\n"))
            raise self.error(f"file ends after {len(lines)} of the {n} instruction lines of warp {warp} "
                             f"(insts = {n} at line {decl_line}): truncated trace")
        prefix = None
        if self.ctx.prefix:
            if cta is None:
                raise self.error("warp block before the 'thread block = x,y,z' line", line=decl_line)
            prefix = (str(cta[0]), str(cta[1]), str(cta[2]), str(warp))
        try:
            batch.add(lines, first, self.ctx, prefix)
        except InputError as exc:
            bad = (exc.text or "").strip()
            if exc.line is not None and (not bad or bad.startswith(_STRUCTURAL)):
                self.lineno = exc.line
                raise self.error(f"warp {warp} declares insts = {n} (line {decl_line}) but only "
                                 f"{exc.line - first} instruction lines follow", exc.text) from None
            raise

    def _cta_index(self, line: str, text: str, prev: tuple[int, int, int] | None) -> tuple[int, int, int]:
        if prev is not None:
            raise self.error("second 'thread block' line in one thread block", text)
        try:
            key, _, value = line.partition("=")
            x, y, z = (int(v) for v in value.split(","))
            if key.strip() != "thread block":
                raise ValueError
        except ValueError:
            raise self.error("bad 'thread block = x,y,z' line", text) from None
        gx, gy, gz = self.info.grid
        if not (0 <= x < gx and 0 <= y < gy and 0 <= z < gz):
            raise self.error(f"thread block ({x},{y},{z}) is outside the grid {self.info.grid}", text)
        return (x, y, z)

    def _warp_index(self, line: str, text: str, warps: dict[int, int]) -> int:
        w = self._count(line, text, "warp")
        if w >= self.nwarps:
            raise self.error(f"warp {w} does not exist: a block of {self.info.block} threads has "
                             f"{self.nwarps} warps", text)
        if w in warps:
            raise self.error(f"warp {w} appears twice in one thread block", text)
        return w

    def _count(self, line: str, text: str, key: str = "insts") -> int:
        name, _, value = line.partition("=")
        value = value.strip()
        if name.strip() != key or not value.isascii() or not value.isdigit():
            raise self.error(f"bad '{key} = N' line", text)
        out = int(value)
        if key == "insts" and out > MAX_WARP_INSTS:
            raise self.error(f"insts = {out} exceeds {MAX_WARP_INSTS:,} instructions per warp", text)
        return out


class TraceWorkload:
    """An Accel-Sim trace: kernelslist.g (or a single kernel file) as a lazy command stream."""

    def __init__(self, path: str | Path) -> None:
        path = Path(path)
        if path.is_dir():
            path = path / "kernelslist.g"
        self.path = path
        if is_trace_file(path.name):
            if not path.is_file():
                raise InputError("trace file not found", path=str(path))
            self._entries: list[Memcpy | KernelEntry] = [KernelEntry(path, path, 0)]
        else:
            if not path.is_file():
                raise InputError("kernel list not found (expected kernelslist.g, a directory holding it, "
                                 "or a .traceg / .traceg.xz file)", path=str(path))
            self._entries = list(parse_kernelslist(path))

    def __repr__(self) -> str:
        return f"TraceWorkload({str(self.path)!r}, {self.num_kernels} kernels)"

    @property
    def num_kernels(self) -> int:
        return sum(isinstance(e, KernelEntry) for e in self._entries)

    def commands(self) -> Iterator[Memcpy | TraceKernel]:
        """Memcpy and TraceKernel objects in list order; each kernel's header is read when reached."""
        ordinal = 0
        for entry in self._entries:
            if isinstance(entry, Memcpy):
                yield Memcpy(entry.dst_addr, entry.nbytes)
            else:
                ordinal += 1
                yield _kernel(entry, ordinal)

    def kernels(self) -> Iterator[TraceKernel]:
        """Only the kernels, in launch order."""
        return (c for c in self.commands() if isinstance(c, TraceKernel))

    __iter__ = commands


def _kernel(entry: KernelEntry, ordinal: int) -> TraceKernel:
    m = _KERNEL_NUMBER.search(entry.path.name)
    return TraceKernel(entry.path, default_kernel_id=int(m[1]) if m else ordinal)


def open_trace(path: str | Path) -> TraceWorkload:
    """Open kernelslist.g, a directory holding one, or a single .traceg / .traceg.xz file."""
    return TraceWorkload(path)


def bounded_lines(f: TextIO) -> Iterator[str]:
    """The file's lines, none read beyond MAX_LINE_CHARS characters (a longer line comes back cut,
    without its newline, and the reader rejects it): a file without newlines cannot fill memory."""
    return iter(partial(f.readline, MAX_LINE_CHARS), "")


def _take(it: Iterator[str], n: int) -> list[str]:
    """Up to n lines; a long warp is read in chunks and stops at the first structural line (a
    wrong `insts = N` must not pull the rest of a multi-GB file into memory)."""
    if n <= _CHUNK:
        return list(islice(it, n))
    out: list[str] = []
    while len(out) < n:
        chunk = list(islice(it, min(_CHUNK, n - len(out))))
        out.extend(chunk)
        if len(chunk) < _CHUNK or any(not r.strip() or r.lstrip().startswith(_STRUCTURAL) for r in chunk):
            break
    return out


class _reading:
    """Context manager around open_text that turns decompression failures into InputError."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.handle: TextIO | None = None

    def __enter__(self) -> TextIO:
        self.handle = open_text(self.path)
        return self.handle

    def __exit__(self, *exc: object) -> None:
        if self.handle is not None:
            self.handle.close()

