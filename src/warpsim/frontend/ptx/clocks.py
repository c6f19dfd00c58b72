"""Clock reads that return simulated time (timing mode).

A kernel that reads `%clock`/`%clock64` (CUDA's clock()/clock64(), every latency microbenchmark)
stores what it read and the host prints it. Functional execution has no time: there a read returns
the emulator's step count times 4, which is not a cycle count. In timing mode warpsim gives each
read the cycle the timing model issued it at instead:

1. the launch runs once (a probe: its clock reads count steps, its printf output is held back);
2. the timing model simulates the command stream up to and including it, logging the issue cycle
   of every clock read of every warp (timing/clock_capture.py);
3. device memory goes back to how it was before the launch and the launch runs again, each warp's
   n-th clock read returning the cycle of its n-th timed one: the memory the program reads back.

This is exact while the kernel's control flow does not depend on what it read: the timed stream is
then the one the second run executes. A kernel that spins until the clock passes a value (a delay
loop) reads it a different number of times once the values change; warpsim then says so and keeps
the step counts (`ClockMismatch`). `%globaltimer` (nanoseconds) is the cycle count at the GPU's
core clock. A warp's read counts where any of its lanes executes it (after its guard): a read split
by divergence counts twice, as it issues twice; one whose guard is false for the whole warp issues
but reads nothing, and the timing side leaves it out too.
"""

from __future__ import annotations

import sys

import numpy as np

CLOCK_SREGS = frozenset({"%clock", "%clock64", "%globaltimer", "%globaltimer_lo", "%globaltimer_hi"})


class ClockMismatch(Exception):
    """The second run read the clock more or less often than the timed one."""


def clock_pcs(kernel) -> np.ndarray:
    """Indices of the kernel's instructions that read a clock special register (kept on the kernel)."""
    got = getattr(kernel, "_clock_pcs", None)
    if got is None:
        reads = [i for i, fi in enumerate(kernel.prog.insts)
                 if any(r.kind == "sreg" and r.name in CLOCK_SREGS for r in _refs(fi))]
        got = np.asarray(reads, dtype=np.int64)
        kernel._clock_pcs = got
    return got


def clock_dependence(kernel) -> str | None:
    """Where a value computed from a clock read (register data flow) decides control flow (a
    predicate) or an address, or None: such a kernel would execute differently once its reads
    return other values, so warpsim does not time them (a delay loop spinning on clock()).
    Dependences through memory are caught when the second run reads the clock a different number
    of times (ClockMismatch)."""
    got = getattr(kernel, "_clock_dependence", False)
    if got is not False:
        return got
    from warpsim.frontend.ptx.decode import writes_first_operand
    from warpsim.frontend.ptx.operands import reg_ids

    insts = kernel.prog.insts
    reads = set(clock_pcs(kernel).tolist())
    tainted: set[int] = set()
    changed = True
    while changed:
        changed = False
        for i, fi in enumerate(insts):
            if not writes_first_operand(fi):
                continue
            if i in reads or any(r in tainted for o in fi.ops[1:] for r in reg_ids(o)):
                for d in reg_ids(fi.ops[0]):
                    if d not in tainted:
                        tainted.add(d)
                        changed = True
    got = None
    for fi in insts:
        addressed = any(o.kind == "addr" and o.rid in tainted for o in fi.ops)
        how = "is predicated on" if fi.guard in tainted else "addresses memory with" if addressed else None
        if how:
            got = f"line {fi.line}: '{fi.text.strip()}' {how} a value computed from a clock read"
            break
    kernel._clock_dependence = got
    return got


_WARNED: set[str] = set()


def warn_once(message: str) -> None:
    """One line on stderr per distinct message and process."""
    if message not in _WARNED:
        _WARNED.add(message)
        sys.stderr.write(f"warpsim: {message}\n")
        sys.stderr.flush()


def _refs(fi):
    stack = list(fi.ops)
    while stack:
        r = stack.pop()
        yield r
        stack.extend(getattr(r, "elems", ()) or ())


class ClockTable:
    """Per warp (grid-linear CTA index, warp in CTA) the cycles its clock reads issued at, in order."""

    def __init__(self, kernel_name: str, reads: dict[tuple[int, int], np.ndarray], core_mhz: float) -> None:
        self.kernel_name = kernel_name
        self.reads = reads
        self.core_mhz = float(core_mhz)
        self.used: dict[tuple[int, int], int] = {}

    @property
    def total(self) -> int:
        return int(sum(v.size for v in self.reads.values()))

    def start(self) -> None:
        """Before a run whose reads check_complete() then checks."""
        self.used = {}

    def values(self, batch, name: str) -> np.ndarray:
        """The register's value for every lane of `batch` at its current step (Batch.sreg)."""
        T = batch.T
        lanes = batch.valid if batch.exec_mask is None else batch.exec_mask
        present = np.flatnonzero(lanes.reshape(-1, 32).any(axis=1))
        cyc = np.zeros(T, dtype=np.uint64)
        gx, gy = batch.grid[0], batch.grid[1]
        counts = batch.__dict__.setdefault("clock_reads", {})    # per warp; a warp runs in one batch
        for w in present.tolist():
            ci, wl = divmod(w, batch.wpc)
            x, y, z = (int(v) for v in batch.ctas[ci])
            key = (x + gx * (y + gy * z), wl)
            n = counts.get(key, 0)
            seq = self.reads.get(key)
            if seq is None or n >= seq.size:
                raise ClockMismatch(f"warp {wl} of CTA {(x, y, z)} read the clock {n + 1} times, "
                                    f"{0 if seq is None else seq.size} in the timed run")
            counts[key] = self.used[key] = n + 1
            cyc[w * 32:(w + 1) * 32] = int(seq[n])
        if name.startswith("%globaltimer"):
            ns = (cyc.astype(np.float64) * (1e3 / self.core_mhz)).astype(np.uint64)
            if name == "%globaltimer_hi":
                return (ns >> np.uint64(32)).astype(np.uint32)
            return ns.astype(np.uint32) if name == "%globaltimer_lo" else ns
        return cyc if name == "%clock64" else (cyc & np.uint64(0xFFFFFFFF)).astype(np.uint32)

    def check_complete(self) -> None:
        """After the second run: every timed read was read again."""
        for key, seq in self.reads.items():
            n = self.used.get(key, 0)
            if n != seq.size:
                raise ClockMismatch(f"warp {key[1]} of CTA #{key[0]} read the clock {n} times, "
                                    f"{seq.size} in the timed run")
