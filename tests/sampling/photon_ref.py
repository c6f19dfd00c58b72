"""Independent reference values for the Photon tests (Python big ints, no warpsim code)."""

from __future__ import annotations


def drand48_draws(seed: int, n: int) -> list[int]:
    """srand48(seed) then n drand48 steps, bits 16..31 of each state (what Photon adds)."""
    x = (seed << 16) | 0x330E
    out = []
    for _ in range(n):
        x = (0x5DEECE66D * x + 0xB) % (1 << 48)
        out.append((x >> 16) & 0xFFFF)
    return out


def reference_row(pc: int) -> list[int]:
    """Row of block `pc` as the artifact's loop builds it: dim i <- lane i % 4, step i // 4."""
    lanes = [drand48_draws(pc + lane, 4) for lane in range(4)]
    return [lanes[i % 4][i // 4] for i in range(16)]
