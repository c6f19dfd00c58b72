"""MWP-CWP: memory-warp and computation-warp parallelism (Hong & Kim, ISCA 2009).

S. Hong and H. Kim, "An analytical model for a GPU architecture with memory-level and
thread-level parallelism awareness", ISCA'09, §3 (equations numbered as in the paper).

Per SM, with N resident warps:
  MWP = how many warps' memory requests can be in flight at once:
        min(Mem_L / Departure_delay, MWP_peak_BW, N)                       (Eq. 4, 6, 7)
  CWP = how many warps can compute while one waits for memory:
        min((Mem_cycles + Comp_cycles) / Comp_cycles, N)                    (Eq. 8, 9)
and three cases (Eq. 10-12, Fig. 13 of the paper):
  MWP = CWP = N (not enough warps):  (Mem_cycles + Comp_cycles + Comp_p x (MWP - 1)) x Rep
  CWP >= MWP (memory bound):         (Mem_cycles x N / MWP + Comp_p x (MWP - 1)) x Rep
  MWP > CWP (compute bound):         (Mem_L + Comp_cycles x N) x Rep
with Comp_p = Comp_cycles / #Mem_insts, Rep = #Blocks / (#Active_blocks_per_SM x #Active_SMs),
plus the barrier cost Departure_delay x (MWP - 1) x #Synch_insts x #Active_blocks_per_SM x Rep.

Our mapping of the paper's inputs onto a Volta+ description (docs/analytic.md lists them):
- a memory instruction is "coalesced" when it touches one 128 B line; an uncoalesced one makes
  #Uncoal_per_mw transactions: its sector requests (hierarchy) or its lines (fixed memory, where
  the LDST pipe is held one cycle per line);
- Departure_del_uncoal = cycles per transaction at the SM (one 32 B reply per crossbar cycle, or
  one line per cycle with fixed memory); Departure_del_coal = a coalesced access's transactions x
  that delay;
- Mem_LD = load latency of the memory model (fixed: the L1 latency; hierarchy: L2-hit and DRAM
  latencies blended by the estimated fraction of sectors that reach DRAM);
- MWP_peak_BW uses the tighter of the L2 bandwidth and DRAM bandwidth / DRAM fraction;
  unbounded with fixed memory;
- #Issue_cycles (4 on the paper's G80) = the SM's cycles per warp instruction of this mix: the
  busiest of issue (one per scheduler per cycle) and the non-LDST pipes.
"""

from __future__ import annotations

import math

from warpsim.analytic.characterize import KernelChar
from warpsim.analytic.estimate import (
    KernelEstimate,
    as_machine,
    dram_fraction,
    pipe_cycles,
    resident_warps,
)

CASE_NOT_ENOUGH_WARPS = "not_enough_warps"   # MWP = CWP = N
CASE_MEMORY_BOUND = "memory_bound"           # CWP >= MWP
CASE_COMPUTE_BOUND = "compute_bound"         # MWP > CWP


def select_case(mwp: float, cwp: float, n: float, comp_cycles: float, mem_cycles: float) -> str:
    """The paper's case selection (Fig. 13): equal-to-N tests are done with a tolerance."""
    if math.isclose(mwp, n) and math.isclose(cwp, n):
        return CASE_NOT_ENOUGH_WARPS
    if cwp >= mwp or comp_cycles > mem_cycles:
        return CASE_MEMORY_BOUND
    return CASE_COMPUTE_BOUND


def exec_cycles(case: str, *, mem_l: float, mem_cycles: float, comp_cycles: float, mem_insts: float,
                mwp: float, n: float, rep: float) -> tuple[float, float]:
    """(memory part, computation part) of Exec_cycles_app for a case (Eq. 10-12)."""
    comp_p = comp_cycles / mem_insts if mem_insts else 0.0
    if case == CASE_NOT_ENOUGH_WARPS:
        return mem_cycles * rep, (comp_cycles + comp_p * (mwp - 1)) * rep
    if case == CASE_MEMORY_BOUND:
        return mem_cycles * n / mwp * rep, comp_p * (mwp - 1) * rep
    return mem_l * rep, comp_cycles * n * rep


class MwpCwp:
    """Hong & Kim's MWP-CWP model on the kernel's average warp."""

    name = "mwp_cwp"

    def predict(self, kc: KernelChar, gpu) -> KernelEstimate:
        m = as_machine(gpu)
        # unequal warps (early exits): count the effective number of equal warps (kc.balance)
        warps = max(kc.warps * kc.balance, 1.0)
        active_sms = max(1, min(m.n_sm, kc.ctas))
        active_blocks = min(kc.occ.ctas_per_sm, max(1, -(-kc.ctas // active_sms)))
        n = max(1.0, resident_warps(kc, m) * kc.balance)
        rep = kc.ctas / (active_blocks * active_sms)
        insts = kc.warp_instructions / warps
        mem_total = kc.global_mem_instructions
        mem_insts = mem_total / warps
        fixed = m.memory_model == "fixed"
        frac = dram_fraction(kc)
        mem_ld = m.global_latency(frac)
        d_tr = 1.0 if fixed else 32.0 / m.sm_port_bw          # cycles per transaction at the SM
        coal_tr = 1.0 if fixed else 4.0                        # a coalesced 128 B access
        n_uncoal = kc.uncoalesced
        uncoal_per_mw = ((kc.uncoal_lines if fixed else kc.uncoal_requests) / n_uncoal) if n_uncoal else 1.0
        w_unc = n_uncoal / mem_total if mem_total else 0.0
        w_coal = 1.0 - w_unc
        dep_coal = coal_tr * d_tr
        dep_uncoal = d_tr
        mem_l_uncoal = mem_ld + (uncoal_per_mw - 1) * dep_uncoal
        mem_l = mem_l_uncoal * w_unc + mem_ld * w_coal
        departure = dep_uncoal * uncoal_per_mw * w_unc + dep_coal * w_coal
        pipes = pipe_cycles(kc, m)
        busiest = max(v for k, v in pipes.items() if k != "ldst")
        issue_cycles = busiest / kc.warp_instructions if kc.warp_instructions else 1.0
        comp_cycles = max(issue_cycles * insts, 1e-9)
        mem_cycles = (mem_l_uncoal * w_unc + mem_ld * w_coal) * mem_insts
        mwp_nobw = min(mem_l / departure, n) if mem_insts else n
        if fixed or not mem_insts:
            mwp_bw = math.inf
        else:
            bytes_per_mw = 32.0 * kc.requests / mem_total
            bw = min(m.l2_bw, m.dram_bw / max(frac, 1e-9))
            mwp_bw = bw / (bytes_per_mw / mem_l * active_sms)
        mwp = max(1.0, min(mwp_nobw, mwp_bw, n))
        cwp = min((mem_cycles + comp_cycles) / comp_cycles, n)
        if not mem_insts:
            case = CASE_COMPUTE_BOUND
            mem_part, comp_part = 0.0, comp_cycles * n * rep
        else:
            case = select_case(mwp, cwp, n, comp_cycles, mem_cycles)
            mem_part, comp_part = exec_cycles(case, mem_l=mem_l, mem_cycles=mem_cycles,
                                              comp_cycles=comp_cycles, mem_insts=mem_insts, mwp=mwp, n=n,
                                              rep=rep)
        synch_per_warp = kc.barriers / warps
        sync = departure * (mwp - 1) * synch_per_warp * active_blocks * rep
        cycles = m.launch_latency + mem_part + comp_part + sync
        details = {"case": case, "mwp": mwp, "cwp": cwp, "n": n, "mwp_without_bw": mwp_nobw,
                   "mwp_peak_bw": mwp_bw, "mem_l": mem_l, "mem_ld": mem_ld, "departure_delay": departure,
                   "comp_cycles": comp_cycles, "mem_cycles": mem_cycles, "mem_insts_per_warp": mem_insts,
                   "insts_per_warp": insts, "issue_cycles": issue_cycles, "rep": rep,
                   "active_sms": active_sms, "active_blocks_per_sm": active_blocks,
                   "memory_model": m.memory_model}
        limiter = {CASE_NOT_ENOUGH_WARPS: "latency", CASE_MEMORY_BOUND: "memory",
                   CASE_COMPUTE_BOUND: "compute"}[case]
        breakdown = {"launch": float(m.launch_latency), "memory": mem_part, "compute": comp_part,
                     "sync": sync}
        return KernelEstimate(model=self.name, kernel_id=kc.info.kernel_id, name=kc.name, cycles=cycles,
                              limiter=limiter, breakdown=breakdown, details=details)
