"""SASS mode vs a real NVBit trace: Rodinia lud (-s 256), last lud_perimeter launch (1 CTA, 1 warp).

Compiles benchmarks/sass/lud_perimeter_rodinia.cu (our rewrite of Rodinia's kernel) to PTX, emulates
the launch (dim 256, offset 224), replays it on the SASS ptxas emits, and compares the warp's
instruction count and opcode histogram with /work/shared/reference/traces/lud_perimeter (Volta).
Needs nvcc, ptxas and nvdisasm. Usage: python benchmarks/sass/lud_perimeter_check.py [REF_TRACE]
"""

from __future__ import annotations

import sys
import tempfile
from collections import Counter
from pathlib import Path

import numpy as np

from warpsim.frontend.cuda import compile_cu
from warpsim.frontend.ptx.launch import load_ptx
from warpsim.frontend.ptx.memory import Device
from warpsim.frontend.sass import sass_commands

HERE = Path(__file__).parent
REF = Path("/work/shared/reference/traces/lud_perimeter/kernel-8.traceg")


def reference_opcodes(path: Path) -> list[str]:
    ops = []
    for line in path.read_text().splitlines():
        parts = line.split()
        if len(parts) < 7 or not all(p.isdigit() for p in parts[:4]):
            continue
        ndst = int(parts[6])
        ops.append(parts[7 + ndst])
    return ops


def without_slow_paths(ops: list[str]) -> list[str]:
    """The stream with every CALL..RET excursion (the division slow path) cut out."""
    out, inside = [], False
    for op in ops:
        base = op.split(".")[0]
        if base == "CALL":
            inside = True
        elif base == "RET" and inside:
            inside = False
        elif not inside:
            out.append(op)
    return out


def overlap(a: list[str], b: list[str]) -> float:
    """Histogram intersection of two opcode distributions (1 = identical mix)."""
    ca, cb = Counter(a), Counter(b)
    na, nb = len(a), len(b)
    return sum(min(ca[k] / na, cb[k] / nb) for k in ca.keys() | cb.keys())


def sass_opcodes(binary_version: int = 70, full_unroll: bool = False) -> tuple[list[str], str]:
    with tempfile.TemporaryDirectory() as tmp:
        ptx = compile_cu(HERE / "lud_perimeter_rodinia.cu", Path(tmp) / "lud_perimeter_rodinia.ptx",
                         arch="compute_75", opts=("-O3",) + (("-DFULL_UNROLL",) if full_unroll else ()))
        dev = Device()
        mod = load_ptx(ptx, device=dev)
        dim, off = 256, 224
        rng = np.random.default_rng(0)
        a = rng.random((dim, dim), dtype=np.float32) + np.eye(dim, dtype=np.float32) * dim
        d_a = dev.to_device(a)
        src = mod.launch("lud_perimeter", (dim - off) // 16 - 1, 32, (d_a, dim, off), mode="timing")
        (sk,) = sass_commands([src], binary_version)
        ops = []
        for cta in sk.iter_ctas():
            for w in cta.warps:
                ops += [sk.info.extra["sass_opcodes"][int(pc)] for pc in w.pc]
        return ops, sk.info.extra["sass_arch"]


def main() -> None:
    ref = reference_opcodes(Path(sys.argv[1]) if len(sys.argv) > 1 else REF)
    fast = without_slow_paths(ref)
    print(f"reference: {len(ref)} warp instructions, {len(ref) - len(fast)} of them in "
          f"{sum(o.startswith('CALL') for o in ref)} division slow-path calls "
          "(our replay takes the fast path)")
    for full in (False, True):
        ours, arch = sass_opcodes(full_unroll=full)
        variant = "loops fully unrolled" if full else "as written"
        report(ref, ours, arch, variant)
        print(f"   vs the reference without its slow-path excursions ({len(fast)}): "
              f"{100 * (len(ours) / len(fast) - 1):+.1f} %, base-opcode overlap "
              f"{100 * overlap([o.split('.')[0] for o in ours], [o.split('.')[0] for o in fast]):.1f} %")


def report(ref: list[str], ours: list[str], arch: str, variant: str) -> None:
    base = [o.split(".")[0] for o in ours]
    rbase = [o.split(".")[0] for o in ref]
    print(f"\n== {variant}: compiled for {arch}; reference: {len(ref)} warp instructions (Volta, NVBit)")
    print(f"SASS mode: {len(ours)} warp instructions ({100 * (len(ours) / len(ref) - 1):+.1f} %)")
    print(f"opcode histogram overlap: base opcodes {100 * overlap(base, rbase):.1f} %, "
          f"full opcodes {100 * overlap(ours, ref):.1f} %")
    cr, co = Counter(rbase), Counter(base)
    for k in sorted(cr.keys() | co.keys(), key=lambda k: -(cr[k] + co[k]))[:12]:
        print(f"  {k:10s} ref {cr[k]:5d}  ours {co[k]:5d}")


if __name__ == "__main__":
    main()
