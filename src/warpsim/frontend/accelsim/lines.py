"""Instruction lines of one warp -> one WarpTrace (the reader's hot loop; accelsim-notes §1.5-1.6).

One pass of `str.split` and `int(x, 16)` per line collects flat Python lists; the arrays are made
once per warp with numpy. Per-opcode facts (kind, unit, ... width) are looked up once per distinct
opcode string and gathered by index. Lane addresses are kept in active-lane order and scattered
into the [n_mem, 32] matrix with a boolean mask, so no per-lane Python loop runs.

Line layout: [tb_x tb_y tb_z warp] [line_num] PC mask ndst [Rd..] OPCODE nsrc [Rs..] width
[mode addr-data] [immediate]. Errors name the file, the 1-based line and the offending text.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import accumulate

import numpy as np

from warpsim.errors import InputError
from warpsim.ir.kinds import MemSpace
from warpsim.ir.records import MAX_DST, MAX_SRC, NO_REG, WARP_SIZE, WarpTrace
from warpsim.ir.sass import OpcodeDecoder, OpInfo

LOCAL_WINDOW = 16 * 1024          # generic addresses in [local_base, +16 KiB) are local (notes §1.6)
_BAD = -2
# R255 is RZ: reading it is not a dependence, so it is dropped rather than stored as register 255.
# Files from our writer may name IR registers >= 255 as R256, R257, ... (id + 1, skipping RZ); their
# header then carries `-warpsim ir registers = N` (see writer.py). Real SASS stops at R254.
REG: dict[str, int] = {f"R{i}": i for i in range(255)}
REG["R255"] = NO_REG
REG["RZ"] = NO_REG
_NO_SRC = (NO_REG,) * MAX_SRC
_NSRC = {str(n): n for n in range(1, MAX_SRC + 1)}
_LANES = np.arange(WARP_SIZE, dtype=np.uint32)


class _Bad(Exception):
    """A malformed line, detected by an explicit check in the hot loop."""


def _first_run(mask: int) -> int:
    """Length of the first contiguous run of active lanes (what base+stride can describe)."""
    if not mask:
        return 0
    low = mask & -mask
    shifted = mask // low
    return (~shifted & (shifted + 1)).bit_length() - 1


@dataclass
class LineContext:
    """Per-kernel state of the line parser: layout flags, opcode cache, generic-space windows."""

    path: str
    decoder: OpcodeDecoder
    prefix: bool                   # pre-v3: lines start with tb_x tb_y tb_z warp
    lineinfo: bool                 # a decimal source line number precedes the PC
    shmem_base: int = 0
    local_base: int = 0
    num_regs: int = 256                    # IR register ids must stay below this (KernelInfo.num_ir_regs)
    op_index: dict[str, int] = field(default_factory=dict)
    op_infos: list[OpInfo] = field(default_factory=list)
    memkinds: list[int] = field(default_factory=list)
    src_cache: dict[tuple[str, ...], tuple[int, ...]] = field(default_factory=dict)
    run_cache: dict[int, int] = field(default_factory=dict)
    _arrays: tuple[np.ndarray, ...] | None = None

    def add_opcode(self, opcode: str) -> int:
        info = self.decoder(opcode)          # InputError for an unknown opcode
        self.op_index[opcode] = len(self.op_infos)
        self.op_infos.append(info)
        self.memkinds.append(0 if not info.is_mem else 2 if info.space == MemSpace.GENERIC else 1)
        self._arrays = None
        return self.op_index[opcode]

    def tables(self) -> tuple[np.ndarray, ...]:
        """kind, unit, lat, space, flags, width, is_mem, is_generic, indexed by opcode number."""
        if self._arrays is None:
            infos = self.op_infos
            cols = [np.array([getattr(i, name) for i in infos], dtype=np.uint8)
                    for name in ("kind", "unit", "lat", "space", "flags", "width")]
            is_mem = np.array([i.is_mem for i in infos], dtype=bool)
            is_generic = np.array([i.space == MemSpace.GENERIC for i in infos], dtype=bool)
            self._arrays = (*cols, is_mem, is_generic)
        return self._arrays

    def register(self, tok: str, what: str) -> int:
        """Slow path for tokens outside R0..R255: R256+ (ids >= 255 from our writer) or an error."""
        reg = REG.get(tok, _BAD)
        if reg != _BAD:
            return reg
        if tok[:1] == "R" and tok[1:].isdigit() and 256 <= int(tok[1:]) <= self.num_regs:
            return int(tok[1:]) - 1
        limit = "R255" if self.num_regs <= 256 else f"R{self.num_regs}"
        raise _Bad(f"{what} R0..{limit}, found {tok!r}")

    def sources(self, toks: tuple[str, ...]) -> tuple[int, ...]:
        regs = []
        for tok in toks:
            reg = self.register(tok, "expected a source register")
            if reg != NO_REG:
                regs.append(reg)
        out = tuple(regs) + (NO_REG,) * (MAX_SRC - len(regs))
        self.src_cache[toks] = out
        return out

    def resolve_generic(self, first_addr: int | None) -> MemSpace:
        """Generic LD/ST: shared, local or global by the first active lane's address (notes §1.6)."""
        if self.shmem_base == 0 or self.local_base == 0:
            return MemSpace.SHARED
        if first_addr is None:
            return MemSpace.GLOBAL
        if self.shmem_base <= first_addr < self.local_base:
            return MemSpace.SHARED
        if self.local_base <= first_addr < self.local_base + LOCAL_WINDOW:
            return MemSpace.LOCAL
        return MemSpace.GLOBAL


def parse_warp(lines: list[str], first_line: int, ctx: LineContext,
               prefix: tuple[str, str, str, str] | None = None) -> WarpTrace:
    """Parse one warp's instruction lines; `first_line` is the 1-based number of lines[0]."""
    pcs: list[int] = []
    masks: list[int] = []
    ops: list[int] = []
    dst0: list[int] = []
    srcs: list[int] = []
    vals: list[int] = []                      # addresses of memory rows, active lanes in order
    more_dst: list[tuple[int, tuple[int, ...]]] = []
    generic: list[tuple[int, int | None]] = []
    pc_add, mask_add, op_add, dst_add = pcs.append, masks.append, ops.append, dst0.append
    src_add, val_add = srcs.extend, vals.extend
    op_get = ctx.op_index.get
    src_get = ctx.src_cache.get
    run_cache = ctx.run_cache
    memkind = ctx.memkinds                    # per opcode: 0 not memory, 1 memory, 2 generic memory
    reg_get = REG.get
    nsrc_get = _NSRC.get
    skip = (4 if ctx.prefix else 0) + (1 if ctx.lineinfo else 0)
    plist = list(prefix) if prefix is not None else None
    k = 0
    line = ""
    try:
        for k, line in enumerate(lines):
            t = line.split()
            if skip:
                t = _lead(t, skip, plist, ctx.lineinfo)
            pc_add(int(t[0], 16))
            mask = int(t[1], 16)
            mask_add(mask)
            nd = t[2]
            if nd == "1":
                d = reg_get(t[3], _BAD)
                if d == _BAD:
                    d = ctx.register(t[3], "dest_num is 1 but expected a destination register")
                dst_add(d)
                op = t[4]
                j = 5
            elif nd == "0":
                dst_add(NO_REG)
                op = t[3]
                j = 4
            else:
                j = _multi_dst(t, 2, k, dst0, more_dst, ctx)
                op = t[j]
                j += 1
            oi = op_get(op)
            if oi is None:
                oi = ctx.add_opcode(op)
                memkind = ctx.memkinds
            op_add(oi)
            ns = t[j]
            if ns == "0":
                src_add(_NO_SRC)
                j += 1
            else:
                n = nsrc_get(ns)
                if n is None:
                    raise _Bad(f"src_num must be 0..{MAX_SRC}, found {ns!r}")
                j += 1
                key = tuple(t[j:j + n])
                s = src_get(key)
                if s is None:
                    if len(key) != n:
                        raise IndexError
                    s = ctx.sources(key)
                src_add(s)
                j += n
            w = t[j]
            j += 1
            mk = memkind[oi]
            if w != "0":
                if not w.isdigit():
                    raise _Bad(f"mem_width must be a decimal number, found {w!r}")
                out = vals if mk else []
                start = len(out)
                nact = mask.bit_count()
                mode = t[j]
                if mode == "1":
                    base = int(t[j + 1], 16)
                    stride = int(t[j + 2])
                    j += 3
                    run = run_cache.get(mask)
                    if run is None:
                        run = run_cache[mask] = _first_run(mask)
                    if stride:
                        out.extend(range(base, base + stride * run, stride))
                    else:
                        out.extend([base] * run)
                    if nact > run:
                        out.extend([0] * (nact - run))
                elif mode == "2":
                    base = int(t[j + 1], 16)
                    j += 2
                    if nact > 1:
                        deltas = t[j:j + nact - 1]
                        if len(deltas) != nact - 1:
                            raise _Bad(f"base+delta needs {nact - 1} deltas for {nact} active lanes, "
                                       f"found {len(deltas)}")
                        out.extend(accumulate(map(int, deltas), initial=base))
                        j += nact - 1
                    elif nact == 1:
                        out.append(base)
                elif mode == "0":
                    addrs = t[j + 1:j + 1 + nact]
                    if len(addrs) != nact:
                        raise _Bad(f"list_all needs {nact} addresses for {nact} active lanes, "
                                   f"found {len(addrs)}")
                    out.extend([int(a, 16) for a in addrs])
                    j += 1 + nact
                else:
                    raise _Bad(f"unknown address mode {mode!r} (expected 0, 1 or 2)")
                if mk == 2:
                    generic.append((k, out[start] if nact else None))
            elif mk:
                val_add([0] * mask.bit_count())
                if mk == 2:
                    generic.append((k, 0 if mask else None))
            if len(t) > j:
                if len(t) > j + 1:
                    raise _Bad(f"{len(t) - j - 1} unexpected field(s) after the immediate")
                int(t[j])                          # the immediate (DEPBAR count); not in the IR
    except InputError as exc:
        raise InputError(exc.message, path=ctx.path, line=first_line + k, text=line.rstrip("\n")) from None
    except _Bad as exc:
        raise InputError(str(exc), path=ctx.path, line=first_line + k, text=line.rstrip("\n")) from None
    except IndexError:
        raise InputError("instruction line has too few fields", path=ctx.path, line=first_line + k,
                         text=line.rstrip("\n")) from None
    except ValueError as exc:
        raise InputError(f"bad number in instruction line ({exc})", path=ctx.path, line=first_line + k,
                         text=line.rstrip("\n")) from None
    return _build(ctx, lines, first_line, pcs, masks, ops, dst0, srcs, vals, more_dst, generic)


def _lead(t: list[str], skip: int, prefix: list[str] | None, lineinfo: bool) -> list[str]:
    """Check and drop the leading CTA/warp prefix (pre-v3) and source line number (lineinfo)."""
    if prefix is not None:
        _check_prefix(t, prefix)
    if lineinfo:
        int(t[skip - 1])
    return t[skip:]


def _check_prefix(t: list[str], expected: list[str] | None) -> None:
    got = t[:4]
    if got == expected:
        return
    try:
        same = expected is not None and len(got) == 4 and [int(x) for x in got] == [int(x) for x in expected]
    except ValueError:
        same = False
    if not same:
        raise _Bad(f"line prefix (thread block x y z, warp) {' '.join(got)!r} does not match the current "
                   f"thread block and warp {' '.join(expected or ())!r}")


def _multi_dst(t: list[str], at: int, k: int, dst0: list[int],
               more: list[tuple[int, tuple[int, ...]]], ctx: LineContext) -> int:
    """dest_num > 1 (written by our writer for PTX vector destinations): up to MAX_DST registers."""
    nd = t[at]
    if not nd.isdigit() or int(nd) > MAX_DST:
        raise _Bad(f"dest_num must be 0..{MAX_DST}, found {nd!r}")
    regs = []
    for tok in t[at + 1:at + 1 + int(nd)]:
        r = ctx.register(tok, f"dest_num is {nd} but expected destination registers")
        if r != NO_REG:
            regs.append(r)
    dst0.append(regs[0] if regs else NO_REG)
    if len(regs) > 1:
        more.append((k, tuple(regs)))
    return at + 1 + int(nd)


def _build(ctx: LineContext, lines: list[str], first_line: int, pcs: list[int], masks: list[int],
           ops: list[int], dst0: list[int], srcs: list[int], vals: list[int],
           more_dst: list[tuple[int, tuple[int, ...]]], generic: list[tuple[int, int | None]]) -> WarpTrace:
    n = len(pcs)
    if n == 0:
        return WarpTrace.empty()
    pc = _checked(pcs, np.uint32, "PC", ctx, lines, first_line)
    mask = _checked(masks, np.uint32, "active mask", ctx, lines, first_line)
    kind_t, unit_t, lat_t, space_t, flags_t, width_t, mem_t, _ = ctx.tables()
    op = np.array(ops, dtype=np.intp)
    space = space_t[op]
    for k, first in generic:
        space[k] = ctx.resolve_generic(first)
    is_mem = mem_t[op]
    rows = np.flatnonzero(is_mem)
    mem_row = np.full(n, -1, dtype=np.int32)
    mem_row[rows] = np.arange(rows.size, dtype=np.int32)
    active = ((mask[rows][:, None] >> _LANES) & 1).astype(bool)
    addr = np.zeros((rows.size, WARP_SIZE), dtype=np.uint64)
    if vals:
        try:
            addr[active] = np.array(vals, dtype=np.uint64)
        except OverflowError:
            _raise_bad_address(vals, mask[rows], rows, ctx, lines, first_line)
    dst = np.full((n, MAX_DST), NO_REG, dtype=np.int16)
    dst[:, 0] = dst0
    for k, regs in more_dst:
        dst[k, :len(regs)] = regs
    return WarpTrace(pc=pc, mask=mask, kind=kind_t[op], unit=unit_t[op], lat=lat_t[op], flags=flags_t[op],
                     dst=dst, src=np.array(srcs, dtype=np.int16).reshape(n, MAX_SRC), space=space,
                     width=width_t[op], mem_row=mem_row, addr=addr)


def _checked(values: list[int], dtype: type, what: str, ctx: LineContext, lines: list[str],
             first_line: int) -> np.ndarray:
    try:
        return np.array(values, dtype=dtype)
    except OverflowError:
        limit = np.iinfo(dtype).max
        k = next(k for k, v in enumerate(values) if not 0 <= v <= limit)
        raise InputError(f"{what} {values[k]:#x} does not fit in 32 bits", path=ctx.path,
                         line=first_line + k, text=lines[k].rstrip("\n")) from None


def _raise_bad_address(vals: list[int], mem_masks: np.ndarray, rows: np.ndarray, ctx: LineContext,
                       lines: list[str], first_line: int) -> None:
    ends = np.cumsum(np.bitwise_count(mem_masks))
    bad = next(i for i, v in enumerate(vals) if not 0 <= v < 1 << 64)
    k = int(rows[int(np.searchsorted(ends, bad, side="right"))])
    raise InputError(f"decoded lane address {vals[bad]} is outside 0..2^64-1 (bad base, stride or delta)",
                     path=ctx.path, line=first_line + k, text=lines[k].rstrip("\n"))
