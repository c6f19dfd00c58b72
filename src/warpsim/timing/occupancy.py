"""CUDA occupancy rules: how many CTAs of a kernel fit on one SM, and why.

The per-CTA resource amounts computed here are also what the CTA scheduler reserves on an SM,
so the occupancy the timing model reaches is the occupancy the CUDA rules predict.
"""

from __future__ import annotations

from dataclasses import dataclass

from warpsim.errors import InputError


def _round_up(value: int, unit: int) -> int:
    return -(-value // unit) * unit if unit > 1 else value


@dataclass(frozen=True)
class CtaResources:
    """What one CTA of a kernel holds on an SM while it is resident."""

    threads: int     # padded to whole warps
    warps: int
    registers: int   # allocated registers (per-warp granules)
    shared: int      # allocated shared memory bytes (granules + per-CTA reservation)


@dataclass(frozen=True)
class Occupancy:
    ctas_per_sm: int
    limited_by: str          # "threads" | "warps" | "registers" | "shared" | "ctas"
    resources: CtaResources
    limits: dict[str, int]   # CTAs/SM each limit alone allows

    @property
    def warps_per_sm(self) -> int:
        return self.ctas_per_sm * self.resources.warps


def cta_resources(sm, threads_per_cta: int, regs_per_thread: int, shmem_per_cta: int) -> CtaResources:
    """Resources one CTA reserves, by the CUDA allocation granularities of `sm` (a config.sm section)."""
    warp_size = sm.warp_size
    warps = -(-threads_per_cta // warp_size)
    regs_per_warp = _round_up(max(regs_per_thread, 1) * warp_size, sm.register_alloc_unit)
    shared = 0
    if shmem_per_cta > 0 or sm.shared_reserved_per_cta > 0:
        shared = _round_up(shmem_per_cta + sm.shared_reserved_per_cta, sm.shared_alloc_unit)
    return CtaResources(threads=warps * warp_size, warps=warps, registers=warps * regs_per_warp,
                        shared=shared)


def occupancy(sm, threads_per_cta: int, regs_per_thread: int, shmem_per_cta: int,
              *, where: str = "kernel") -> Occupancy:
    """CTAs per SM for a kernel; an error naming `where` if not even one CTA fits."""
    if threads_per_cta < 1:
        raise InputError(f"{where}: a CTA needs at least one thread (got {threads_per_cta})")
    limit = min(sm.max_threads, getattr(sm, "max_threads_per_cta", sm.max_threads))
    if threads_per_cta > limit:
        raise InputError(f"{where}: {threads_per_cta} threads per CTA exceed the limit of {limit} threads")
    if regs_per_thread > sm.max_registers_per_thread:
        raise InputError(f"{where}: {regs_per_thread} registers per thread exceed the limit "
                         f"{sm.max_registers_per_thread}")
    if shmem_per_cta > sm.shared_memory_per_cta:
        raise InputError(f"{where}: {shmem_per_cta} B of shared memory per CTA exceed the per-CTA limit "
                         f"{sm.shared_memory_per_cta} B")
    res = cta_resources(sm, threads_per_cta, regs_per_thread, shmem_per_cta)
    if res.registers > sm.max_registers_per_cta:
        raise InputError(f"{where}: the CTA needs {res.registers} registers, more than the per-CTA limit "
                         f"{sm.max_registers_per_cta}")
    limits = {
        "ctas": sm.max_ctas,
        "threads": sm.max_threads // res.threads,
        "warps": sm.max_warps // res.warps,
        "registers": sm.registers // res.registers,
        "shared": sm.shared_memory // res.shared if res.shared else sm.max_ctas,
    }
    limited_by = min(limits, key=lambda k: (limits[k], k != "ctas"))
    ctas = limits[limited_by]
    if ctas < 1:
        raise InputError(f"{where}: no CTA fits on an SM (limited by {limited_by}: {res})")
    return Occupancy(ctas_per_sm=ctas, limited_by=limited_by, resources=res, limits=limits)
