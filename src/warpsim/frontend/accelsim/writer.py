"""Write IR kernels as an Accel-Sim trace directory: kernelslist.g + kernel-<id>.traceg[.xz].

Files follow the tracer-version-5 layout (accelsim-notes §1.3-1.6): header with base addresses,
format line, one #BEGIN_TB block per CTA with every warp, one line per instruction ending in an
immediate (always 0: the IR has none). Addresses are compressed as NVBit's tracer does.

The IR carries no opcode text, so each instruction gets a representative SASS opcode from
`warpsim.ir.sass.OpcodeEncoder` (IMAD, FFMA, HFMA2, LDG.E.128, LDG.E.STRONG.GPU, ATOMG.E.ADD.64,
BAR.SYNC, EXIT, ...), chosen so that reading the file back with the same binary version gives
the same kind, unit, latency class, space, width and flags. PCs, masks, registers and addresses
are written as they are. The read-back WarpTrace therefore equals the written one, except:
* IR classes no SASS opcode expresses (e.g. the PTX frontend's per-operation latency classes)
  get a same-unit stand-in (FFMA for any SP op, ...): lossy, logged once per kernel; strict=True
  makes it an error instead.
* GENERIC memory instructions are written as LD/ST and come back resolved by the base addresses.
Register ids >= 255 are written as R<id+1> (skipping RZ = R255) with a `-warpsim ir registers = N`
header line that Accel-Sim ignores; more than one destination register is written as dest_num > 1,
which only our reader accepts (Accel-Sim asserts dest_num <= 1).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path
from typing import Literal, TextIO

import numpy as np

from warpsim import __version__
from warpsim.errors import WarpsimError
from warpsim.frontend.accelsim.textio import open_text_write
from warpsim.ir.records import NO_REG, WARP_SIZE, CtaTrace, KernelInfo, KernelSource, Memcpy, WarpTrace
from warpsim.ir.sass import LAT_MODIFIER, SUPPORTED_VERSIONS, OpcodeDecoder, OpcodeEncoder

log = logging.getLogger(__name__)

AddressMode = Literal["auto", 0, 1, 2]
FORMAT_LINE = ("#traces format = [line_num] PC mask dest_num [reg_dests] opcode src_num [reg_srcs] "
               "mem_width [adrrescompress?] [mem_addresses] immediate")
FALLBACK_VERSION = 70          # Volta: the configuration most published results use
_INT32 = (-(1 << 31), (1 << 31) - 1)


def write_traces(commands: Iterable[Memcpy | KernelSource], out_dir: str | Path, *,
                 address_mode: AddressMode = "auto", lineinfo: bool = False, compress: bool = False,
                 strict: bool = False) -> Path:
    """Write the command stream as an Accel-Sim trace; returns the path of kernelslist.g.

    address_mode: "auto" = base+stride when the active lanes allow it, else base+delta (NVBit's
    default); 0, 1, 2 force list_all, base+stride (falling back to base+delta where it cannot
    describe the lanes) and base+delta. lineinfo writes a (zero) source line number on every line.
    compress writes .traceg.xz. strict makes IR without an exact SASS opcode an error.
    """
    if address_mode not in ("auto", 0, 1, 2):
        raise ValueError(f"address_mode must be 'auto', 0, 1 or 2, not {address_mode!r}")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    list_path = out / "kernelslist.g"
    seen: set[int] = set()
    with open(list_path, "w", encoding="utf-8", newline="\n") as klist:
        for cmd in commands:
            if isinstance(cmd, Memcpy):
                klist.write(f"MemcpyHtoD,0x{cmd.dst_addr:016x},{cmd.nbytes}\n")
                continue
            info = cmd.info
            if info.kernel_id in seen:
                raise WarpsimError(f"two kernels with kernel id {info.kernel_id}: their file names clash")
            seen.add(info.kernel_id)
            name = f"kernel-{info.kernel_id}.traceg" + (".xz" if compress else "")
            with open_text_write(out / name) as f:
                _write_kernel(f, cmd, address_mode, lineinfo, strict)
            klist.write(name + "\n")
    return list_path


def write_header(f: TextIO, info: KernelInfo, lineinfo: bool) -> None:
    g, b = info.grid, info.block
    f.write(f"-kernel name = {info.name}\n"
            f"-kernel id = {info.kernel_id}\n"
            f"-grid dim = ({g[0]},{g[1]},{g[2]})\n"
            f"-block dim = ({b[0]},{b[1]},{b[2]})\n"
            f"-shmem = {info.shmem_bytes}\n"
            f"-nregs = {info.nregs}\n"
            f"-binary version = {info.binary_version}\n"
            f"-cuda stream id = {info.stream}\n"
            f"-shmem base_addr = 0x{info.shmem_base:016x}\n"
            f"-local mem base_addr = 0x{info.local_base:016x}\n"
            f"-nvbit version = warpsim-{__version__}\n"
            f"-accelsim tracer version = 5\n"
            f"-enable lineinfo = {int(lineinfo)}\n")
    if info.num_ir_regs > 256:
        f.write(f"-warpsim ir registers = {info.num_ir_regs}\n")
    f.write(f"\n{FORMAT_LINE}\n\n")


def _write_kernel(f: TextIO, kernel: KernelSource, mode: AddressMode, lineinfo: bool, strict: bool) -> None:
    info = kernel.info
    if info.binary_version not in SUPPORTED_VERSIONS:
        if strict:
            raise WarpsimError(f"kernel {info.kernel_id}: binary version {info.binary_version} has no SASS "
                               f"opcode table (supported: {', '.join(map(str, SUPPORTED_VERSIONS))})")
        log.warning("kernel %d (%s): binary version %d has no SASS opcode table; the trace says %d",
                    info.kernel_id, info.name, info.binary_version, FALLBACK_VERSION)
        info = replace(info, binary_version=FALLBACK_VERSION)
    write_header(f, info, lineinfo)
    enc = _Encoder(OpcodeEncoder(info.binary_version), strict, info)
    sass = info.extra.get("sass_opcodes")
    for cta in kernel.iter_ctas():
        if sass is not None:
            cta = _gpr_only(cta)
        _write_cta(f, cta, info, enc, mode, lineinfo)
    if enc.lossy:
        log.warning("kernel %d (%s): %d IR instruction class(es) have no exact SASS opcode; "
                    "written with same-unit stand-ins (%s)", info.kernel_id, info.name, enc.lossy,
                    ", ".join(sorted(enc.stand_ins)))


def _gpr_only(cta: CtaTrace) -> CtaTrace:
    """SASS-mode IR also tracks predicates and uniform registers (ids >= 255); traces carry GPRs only."""
    warps = []
    for w in cta.warps:
        w2 = replace(w, dst=np.where(w.dst >= 255, NO_REG, w.dst).astype(w.dst.dtype),
                     src=np.where(w.src >= 255, NO_REG, w.src).astype(w.src.dtype))
        warps.append(w2)
    return CtaTrace(cta.cta, warps)


class _Encoder:
    def __init__(self, enc: OpcodeEncoder, strict: bool, info: KernelInfo) -> None:
        self.enc = enc
        self.decode = OpcodeDecoder(info.binary_version)
        self.strict = strict
        self.info = info
        self.lossy = 0
        self.stand_ins: set[str] = set()
        self.cache: dict[tuple[int, ...], str] = {}
        self.num_regs = max(info.num_ir_regs, 256)

    def opcodes(self, w: WarpTrace) -> list[str]:
        sass = self.info.extra.get("sass_opcodes")
        if sass is not None:             # SASS mode: the real mnemonics, by pc
            return [sass[pc] for pc in w.pc.tolist()]
        keys = np.stack([w.kind, w.unit, w.lat, w.space, w.flags, w.width], axis=1).tolist()
        out = []
        for key in keys:
            key = tuple(key)
            op = self.cache.get(key)
            if op is None:
                op = self._lookup(key)
            out.append(op)
        return out

    def _lookup(self, key: tuple[int, ...]) -> str:
        op = self.enc.exact(*key)
        if op is None:
            try:
                op = self.enc.nearest(*key)
            except ValueError as exc:
                raise WarpsimError(f"kernel {self.info.kernel_id}: {exc}") from None
            got = self.decode(op)
            kind, unit, lat, space, flags, width = key
            if (int(got.kind), int(got.unit), int(got.space), got.flags, got.width) == (
                    kind, unit, space, flags, width):
                # only the latency class differs (e.g. PTX-mode classes): carry it in a modifier
                # that Accel-Sim ignores (it looks opcodes up by the text before the first '.')
                op = f"{op}.{LAT_MODIFIER}{lat}"
            elif self.strict:
                raise WarpsimError(f"kernel {self.info.kernel_id}: no SASS opcode reproduces IR fields "
                                   f"(kind, unit, lat, space, flags, width) = {key} for binary version "
                                   f"{self.info.binary_version}")
            else:
                self.lossy += 1
                self.stand_ins.add(op)
        self.cache[key] = op
        return op


def _write_cta(f: TextIO, cta: CtaTrace, info: KernelInfo, enc: _Encoder, mode: AddressMode,
               lineinfo: bool) -> None:
    x, y, z = cta.cta
    f.write(f"\n#BEGIN_TB\n\nthread block = {x},{y},{z}\n")
    nwarps = info.warps_per_cta
    if len(cta.warps) > nwarps:
        raise WarpsimError(f"kernel {info.kernel_id}: CTA {cta.cta} has {len(cta.warps)} warps but a "
                           f"block of {info.block} threads has {nwarps}")
    for wid in range(nwarps):
        w = cta.warps[wid] if wid < len(cta.warps) else WarpTrace.empty()
        f.write(f"\nwarp = {wid}\ninsts = {len(w)}\n")
        if len(w):
            f.write("".join(_warp_lines(w, enc, mode, lineinfo)))
    f.write("\n#END_TB\n")


_REG_TEXT: dict[tuple[int, ...], str] = {}
_LANES: dict[int, list[int]] = {}


def _regs(row: tuple[int, ...]) -> str:
    """'n Ra Rb ...' for a padded register row (memoised: rows repeat a lot). Ids >= 255 skip RZ."""
    text = _REG_TEXT.get(row)
    if text is None:
        regs = [r if r < 255 else r + 1 for r in row if r != NO_REG]
        if len(_REG_TEXT) > 100_000:
            _REG_TEXT.clear()
        text = _REG_TEXT[row] = f"{len(regs)}" + "".join(f" R{r}" for r in regs)
    return text


def _check_registers(w: WarpTrace, limit: int) -> None:
    for arr in (w.dst, w.src):
        if arr.size and (int(arr.max()) >= limit or int(arr.min()) < NO_REG):
            bad = arr[(arr >= limit) | (arr < NO_REG)][0]
            raise WarpsimError(f"IR register id {bad} is outside 0..{limit - 1} (KernelInfo.num_ir_regs)")


def _warp_lines(w: WarpTrace, enc: _Encoder, mode: AddressMode, lineinfo: bool) -> list[str]:
    ops = enc.opcodes(w)
    pcs = w.pc.tolist()
    masks = w.mask.tolist()
    dsts = list(map(tuple, w.dst.tolist()))
    srcs = list(map(tuple, w.src.tolist()))
    widths = w.width.tolist()
    rows = w.mem_row.tolist()
    spaces = w.space.tolist()
    addr = w.addr.tolist()
    lead = "0 " if lineinfo else ""
    _check_registers(w, enc.num_regs)
    out = []
    for k, op in enumerate(ops):
        mask = masks[k]
        if spaces[k]:
            mem = f"{widths[k]} " + _encode_addresses(mask, addr[rows[k]], mode)
        else:
            mem = "0"
        out.append(f"{lead}{pcs[k]:04x} {mask:08x} {_regs(dsts[k])} {op} {_regs(srcs[k])} {mem} 0\n")
    return out


def _encode_addresses(mask: int, lanes: list[int], mode: AddressMode) -> str:
    idx = _LANES.get(mask)
    if idx is None:
        idx = _LANES[mask] = [i for i in range(WARP_SIZE) if mask >> i & 1]
    active = [lanes[i] for i in idx]
    if mode == 0:
        return "0" + "".join(f" 0x{a:016x}" for a in active)
    if mode in ("auto", 1):
        stride = _stride(mask, active)
        if stride is not None:
            base = active[0] if active else 0
            return f"1 0x{base:x} {stride}"
    if not active:
        return "2 0x0"
    deltas = [b - a for a, b in zip(active, active[1:], strict=False)]
    return f"2 0x{active[0]:x}" + "".join(f" {d}" for d in deltas)


def _stride(mask: int, active: list[int]) -> int | None:
    """The stride if base+stride describes the lanes exactly (NVBit's rule), else None."""
    if mask == 0:
        return 0
    low = mask & -mask
    run = mask // low
    if run & (run + 1) or len(active) < 2:   # not one contiguous run, or a single lane
        return None
    stride = active[1] - active[0]
    if not _INT32[0] <= stride <= _INT32[1]:
        return None
    prev = active[1]
    for a in active[2:]:
        if a - prev != stride:
            return None
        prev = a
    return stride
