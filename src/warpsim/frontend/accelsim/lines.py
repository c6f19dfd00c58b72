"""Instruction lines -> WarpTraces (the reader's hot loop; accelsim-notes §1.5-1.6).

One pass of `str.split` and `int(x, 16)` per line collects flat Python lists for all warps of a
CTA; the arrays are made once per CTA with numpy and each warp gets slices of them. Per-opcode
facts (kind, unit, ... width) are looked up once per distinct opcode string and gathered by
index. Lane addresses are kept in active-lane order and scattered into the [n_mem, 32] matrix
with a boolean mask, so no per-lane Python loop runs.

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
    _arrays: np.ndarray | None = None

    def add_opcode(self, opcode: str) -> int:
        info = self.decoder(opcode)          # InputError for an unknown opcode
        self.op_index[opcode] = len(self.op_infos)
        self.op_infos.append(info)
        self.memkinds.append(0 if not info.is_mem else 2 if info.space == MemSpace.GENERIC else 1)
        self._arrays = None
        return self.op_index[opcode]

    def table(self) -> np.ndarray:
        """[6, n_opcodes] uint8: kind, unit, lat, space, flags, width per opcode number."""
        if self._arrays is None:
            names = ("kind", "unit", "lat", "space", "flags", "width")
            self._arrays = np.array([[getattr(i, f) for i in self.op_infos] for f in names], dtype=np.uint8)
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


class CtaBatch:
    """Flat columns of all warps parsed so far for one CTA; arrays are made once per CTA.

    Small warps are common (a vector add is a dozen instructions), so per-warp numpy calls would
    dominate; the warps' WarpTraces are slices of the CTA-wide arrays.
    """

    def __init__(self) -> None:
        self.pcs: list[int] = []
        self.masks: list[int] = []
        self.ops: list[int] = []
        self.dst0: list[int] = []
        self.srcs: list[int] = []
        self.vals: list[int] = []                 # addresses of memory rows, active lanes in order
        self.more_dst: list[tuple[int, tuple[int, ...]]] = []
        self.generic: list[tuple[int, int | None]] = []
        self.mem_rows: list[int] = []             # row in the warp's address matrix, -1 if not memory
        self.mem_masks: list[int] = []            # active masks of the memory rows
        # per warp: (first instruction, first memory row, lines, number of lines[0])
        self.segments: list[tuple[int, int, list[str], int]] = []

    def add(self, lines: list[str], first_line: int, ctx: LineContext,
            prefix: tuple[str, str, str, str] | None = None) -> None:
        """Parse one warp's lines; `first_line` is the 1-based number of lines[0]."""
        self.segments.append((len(self.pcs), len(self.mem_masks), lines, first_line))
        _parse_into(self, lines, first_line, ctx, prefix)

    def build(self, ctx: LineContext) -> list[WarpTrace]:
        """One WarpTrace per `add`, in order."""
        return _build(ctx, self)


def parse_warp(lines: list[str], first_line: int, ctx: LineContext,
               prefix: tuple[str, str, str, str] | None = None) -> WarpTrace:
    """Parse one warp's instruction lines on their own (see CtaBatch for the batched path)."""
    batch = CtaBatch()
    batch.add(lines, first_line, ctx, prefix)
    return batch.build(ctx)[0]


def _parse_into(b: CtaBatch, lines: list[str], first_line: int, ctx: LineContext,
                prefix: tuple[str, str, str, str] | None) -> None:
    pcs, masks, ops, dst0, srcs, vals = b.pcs, b.masks, b.ops, b.dst0, b.srcs, b.vals
    more_dst, generic = b.more_dst, b.generic
    mrow_add, mmask_add = b.mem_rows.append, b.mem_masks.append
    nrow = 0
    k0 = len(pcs)
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
            if not (t[0].isalnum() and t[1].isalnum()):
                raise _Bad("PC and active mask must be plain hex numbers (no sign, no '_')")
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
                j = _multi_dst(t, 2, k0 + k, dst0, more_dst, ctx)
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
            if mk:
                mrow_add(nrow)
                mmask_add(mask)
                nrow += 1
            else:
                mrow_add(-1)
            if w != "0":
                if not w.isdigit():
                    raise _Bad(f"mem_width must be a decimal number, found {w!r}")
                out = vals if mk else []
                start = len(out)
                nact = mask.bit_count()
                mode = t[j]
                if mode == "1":
                    if not (t[j + 1].isalnum() and t[j + 2].lstrip("-").isdigit()):
                        raise _Bad("base+stride needs a hex base and a decimal stride")
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
                    if not t[j + 1].isalnum():
                        raise _Bad(f"base+delta needs a hex base, found {t[j + 1]!r}")
                    base = int(t[j + 1], 16)
                    j += 2
                    if nact > 1:
                        deltas = t[j:j + nact - 1]
                        if len(deltas) != nact - 1:
                            raise _Bad(f"base+delta needs {nact - 1} deltas for {nact} active lanes, "
                                       f"found {len(deltas)}")
                        if not all(d.lstrip("-").isdigit() for d in deltas):
                            raise _Bad("base+delta deltas must be decimal numbers")
                        out.extend(accumulate(map(int, deltas), initial=base))
                        j += nact - 1
                    elif nact == 1:
                        out.append(base)
                elif mode == "0":
                    addrs = t[j + 1:j + 1 + nact]
                    if len(addrs) != nact:
                        raise _Bad(f"list_all needs {nact} addresses for {nact} active lanes, "
                                   f"found {len(addrs)}")
                    if not all(a[:2] in ("0x", "0X") and a.isalnum() for a in addrs):
                        bad = next(a for a in addrs if not (a[:2] in ("0x", "0X") and a.isalnum()))
                        raise _Bad(f"list_all addresses are 0x-prefixed hex numbers, found {bad!r} (a lane "
                                   f"address missing? {nact} active lanes need {nact} addresses)")
                    out.extend([int(a, 16) for a in addrs])
                    j += 1 + nact
                else:
                    raise _Bad(f"unknown address mode {mode!r} (expected 0, 1 or 2)")
                if mk == 2:
                    generic.append((k0 + k, out[start] if nact else None))
            elif mk:
                val_add([0] * mask.bit_count())
                if mk == 2:
                    generic.append((k0 + k, 0 if mask else None))
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


def _build(ctx: LineContext, b: CtaBatch) -> list[WarpTrace]:
    n = len(b.pcs)
    if n == 0:
        return [WarpTrace.empty() for _ in b.segments]
    try:
        pc, mask = np.array((b.pcs, b.masks), dtype=np.uint32)
    except OverflowError:
        _raise_too_wide(b, ctx)
    cols = ctx.table()[:, np.array(b.ops, dtype=np.intp)]     # fresh [6, n] array: rows are writable
    kind, unit, lat, space, flags, width = cols
    for k, first in b.generic:
        space[k] = ctx.resolve_generic(first)
    mem_row = np.array(b.mem_rows, dtype=np.int32)
    mem_masks = np.array(b.mem_masks, dtype=np.uint32)
    addr = np.zeros((mem_masks.size, WARP_SIZE), dtype=np.uint64)
    if b.vals:
        try:
            addr[((mem_masks[:, None] >> _LANES) & 1).astype(bool)] = np.array(b.vals, dtype=np.uint64)
        except OverflowError:
            _raise_bad_address(b, mem_masks, ctx)
    dst = np.full((n, MAX_DST), NO_REG, dtype=np.int16)
    dst[:, 0] = b.dst0
    for k, regs in b.more_dst:
        dst[k, :len(regs)] = regs
    src = np.array(b.srcs, dtype=np.int16).reshape(n, MAX_SRC)
    out = []
    ends = [(seg[0], seg[1]) for seg in b.segments[1:]] + [(n, mem_masks.size)]
    for (lo, r0, _, _), (hi, r1) in zip(b.segments, ends, strict=True):
        if lo == hi:
            out.append(WarpTrace.empty())
            continue
        out.append(WarpTrace(pc=pc[lo:hi], mask=mask[lo:hi], kind=kind[lo:hi], unit=unit[lo:hi],
                             lat=lat[lo:hi], flags=flags[lo:hi], dst=dst[lo:hi], src=src[lo:hi],
                             space=space[lo:hi], width=width[lo:hi], mem_row=mem_row[lo:hi],
                             addr=addr[r0:r1]))
    return out


def _locate(b: CtaBatch, k: int) -> tuple[int, str]:
    """Line number and text of instruction k of the batch."""
    for start, _, lines, first_line in reversed(b.segments):
        if start <= k:
            return first_line + k - start, lines[k - start].rstrip("\n")
    raise AssertionError(k)


def _raise_too_wide(b: CtaBatch, ctx: LineContext) -> None:
    for what, values in (("PC", b.pcs), ("active mask", b.masks)):
        for k, v in enumerate(values):
            if not 0 <= v <= 0xFFFFFFFF:
                line, text = _locate(b, k)
                raise InputError(f"{what} {v:#x} does not fit in 32 bits", path=ctx.path, line=line,
                                 text=text)
    raise AssertionError("no value out of range")


def _raise_bad_address(b: CtaBatch, mem_masks: np.ndarray, ctx: LineContext) -> None:
    ends = np.cumsum(np.bitwise_count(mem_masks))
    bad = next(i for i, v in enumerate(b.vals) if not 0 <= v < 1 << 64)
    row = int(np.searchsorted(ends, bad, side="right"))            # global memory row
    k = [i for i, r in enumerate(b.mem_rows) if r >= 0][row]
    line, text = _locate(b, k)
    raise InputError(f"decoded lane address {b.vals[bad]} is outside 0..2^64-1 (bad base, stride or delta)",
                     path=ctx.path, line=line, text=text)
