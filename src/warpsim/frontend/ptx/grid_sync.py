"""Cooperative groups' grid-wide barrier in PTX, found statically for the timing model.

`grid.sync()` compiles (CUDA 11-13) to: form the workspace address from %envreg1:%envreg2, then
one thread per CTA does an `atom.add.release.gpu` on the workspace's barrier counter and spins on
`ld.acquire.gpu` until every CTA has added its share, between two `bar.sync`. The functional
emulator runs that code as written (the whole grid in one lock-step batch). The timing model only
replays the instructions, so the spin would cost one pass whatever the other CTAs do; instead the
arrival atomic is flagged (FLAG_GRID_SYNC) and its warp waits there until all CTAs of the kernel
have arrived (timing/scheduler.py), which is what the spin achieves on hardware.

The arrival is found by data flow: registers computed from %envreg1/%envreg2 (transitively) are the
workspace's addresses, and an atomic whose operands include one is the arrival.
"""

from __future__ import annotations

from warpsim.ir.kinds import InstKind

WORKSPACE_REGS = ("%envreg1", "%envreg2")


def _reads_workspace(operand) -> bool:
    return (operand.kind == "sreg" and operand.name in WORKSPACE_REGS) or any(
        _reads_workspace(e) for e in operand.elems)


def uses_grid_sync(prog) -> bool:
    """Whether a kernel reads the grid-sync workspace registers (cooperative-groups grid.sync())."""
    return any(_reads_workspace(r) for fi in prog.insts for r in fi.ops)


def grid_arrivals(prog, ops) -> list[int]:
    """Indices of the atomics that arrive at a grid barrier (`ops` decoded from `prog.insts`; call it
    for kernels that use grid sync)."""
    tainted: set[int] = set()
    changed = True
    while changed:                       # flow-insensitive: to a fixed point over the whole kernel
        changed = False
        for fi, op in zip(prog.insts, ops, strict=True):
            if any(_reads_workspace(r) for r in fi.ops) or tainted.intersection(op.src):
                new = set(op.dst) - tainted
                if new:
                    tainted |= new
                    changed = True
    return [i for i, op in enumerate(ops) if op.kind == InstKind.ATOMIC and tainted.intersection(op.src)]
