"""ptxas's own latency knowledge, read back from the stall counts of the SASS the workloads ship.

A fixed-latency instruction (no scoreboard barrier set) has its result read safely only because
ptxas issues the reader far enough behind it; the stall counts in between add up to that issue
distance. Over many readers the smallest distance bounds the machine's latency from above. The
GPU descriptions cite these numbers ([PTXAS] in QV100.toml) where Accel-Sim's configs disagree.
"""

from __future__ import annotations

import lzma
from collections import Counter, defaultdict
from pathlib import Path

from warpsim.errors import InputError
from warpsim.frontend.sass.parse import SassFunction, parse_nvdisasm
from warpsim.ir.kinds import InstKind, Unit
from warpsim.ir.sass import ARCH_TABLES, classify

WORKLOADS = Path(__file__).resolve().parents[2] / "workloads"
NO_WRITE_BARRIER = 7                # the control field's write-barrier index when none is set
_ENDS_WINDOW = frozenset(("BSSY", "BSYNC", "BAR", "EXIT", "RET", "CALL"))
WINDOW = 12                         # instructions looked ahead for the first reader
_FIXED_UNITS = (Unit.INT, Unit.SP, Unit.UDP)    # loads, SFU, conversions: variable latency, left out
_ARCH = {"sm_70": "volta", "sm_75": "turing", "sm_80": "ampere", "sm_86": "ampere", "sm_90": "hopper"}


def function_distances(f: SassFunction, table: dict, into: dict[str, Counter]) -> None:
    """Add each fixed-latency writer's distance to its first reader in straight-line code."""
    insts = f.insts
    for i, writer in enumerate(insts):
        if writer.write_barrier != NO_WRITE_BARRIER or not writer.dst or writer.is_branch:
            continue                                       # no -hex, or variable latency
        info = classify(writer.opcode, table)
        if info.kind != InstKind.ALU or info.unit not in _FIXED_UNITS:
            continue
        written = set(writer.dst)
        distance = writer.stall
        for reader in insts[i + 1:i + WINDOW]:
            if reader.is_branch or reader.base in _ENDS_WINDOW:
                break
            if written & set(reader.src):
                into[writer.base][distance] += 1
                break
            if written & set(reader.dst):
                break
            distance += reader.stall


def reader_distances(arch: str = "sm_75", root: Path = WORKLOADS) -> dict[str, Counter]:
    """Per opcode, a histogram of issue distances to the first reader, over every shipped SASS."""
    if arch not in _ARCH:
        raise InputError(f"no SASS table for {arch!r} (one of {', '.join(_ARCH)})", key="arch")
    out: dict[str, Counter] = defaultdict(Counter)
    table = ARCH_TABLES[_ARCH[arch]]
    for path in sorted(root.glob(f"*/*.{arch}.sass.xz")):
        with lzma.open(path, "rt") as fh:
            module = parse_nvdisasm(fh.read(), str(path))
        for f in module.functions.values():
            function_distances(f, table, out)
    return dict(out)
