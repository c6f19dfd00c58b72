"""GPU description → HierState, and the Python-side kernel-boundary operations."""

from __future__ import annotations

import numpy as np

from warpsim.errors import InputError
from warpsim.timing.memory.hierarchy import state as S
from warpsim.timing.memory.hierarchy.hashing import hash_bits, hash_code, log2_exact, parse_address_map
from warpsim.timing.memory.hierarchy.l1d import l1_flush
from warpsim.timing.memory.hierarchy.l2 import l2_flush, l2_install_range
from warpsim.timing.memory.hierarchy.pack import pack
from warpsim.timing.memory.hierarchy.state import HierState
from warpsim.timing.memory.hierarchy.wake import wake_all_waiting


def _pow2_at_least(n: int) -> int:
    return 1 << max(1, (int(n) - 1).bit_length())


def _period_fs(mhz: float, key: str) -> int:
    if not mhz > 0:
        raise InputError(f"clock must be positive, got {mhz}", key=key)
    return int(round(1e9 / mhz))


def l1_max_ways(gpu) -> int:
    """Associativity with no shared memory: base ways × unified size / base size (adaptive L1)."""
    l1 = gpu.l1d
    if not l1.adaptive:
        return l1.assoc
    base_kb = l1.size_bytes / 1024
    return int(round(l1.assoc * gpu.sm.unified_l1_shared_kb / base_kb))


def carveout(gpu, shmem_per_sm_bytes: int) -> tuple[int, int]:
    """(shared-memory option in KB, L1 ways) for a kernel needing `shmem_per_sm_bytes` per SM.

    Smallest option ≥ the need; L1 gets the rest of the unified array:
    ways = round(max_ways × (1 − option / unified)).
    """
    if not gpu.l1d.adaptive:
        return gpu.sm.shared_memory // 1024, gpu.l1d.assoc
    need_kb = shmem_per_sm_bytes / 1024
    options = sorted(gpu.sm.shared_options_kb)
    fit = [o for o in options if o >= need_kb]
    if not fit:
        raise InputError(f"kernel needs {shmem_per_sm_bytes} B of shared memory per SM, more than the "
                         f"largest carve-out option ({options[-1]} KB)", key="sm.shared_options_kb")
    opt = fit[0]
    unified = gpu.sm.unified_l1_shared_kb
    ways = int(round(l1_max_ways(gpu) * (1 - opt / unified)))
    return opt, max(ways, 0)


def _check(gpu) -> None:
    for name, c in (("l1d", gpu.l1d), ("l2", gpu.l2)):
        if c.line != 128 or c.sector != 32:
            raise InputError("the sectored caches need 128 B lines of 4 x 32 B sectors",
                             key=f"{name}.line")
    d = gpu.dram
    if gpu.l2.slices != d.channels * d.subpartitions_per_channel:
        raise InputError(f"l2.slices ({gpu.l2.slices}) must equal dram.channels x "
                         f"subpartitions_per_channel ({d.channels * d.subpartitions_per_channel})",
                         key="l2.slices")
    if d.nbk % d.nbkgrp:
        raise InputError("dram.nbk must be a multiple of dram.nbkgrp", key="dram.nbkgrp")
    if d.scheduler not in ("frfcfs", "fcfs"):
        raise InputError(f"unknown DRAM scheduler {d.scheduler!r} (frfcfs, fcfs)", key="dram.scheduler")
    if d.atom_bytes != 32:
        raise InputError(f"DRAM atom (bus width x burst) must be 32 B, got {d.atom_bytes}",
                         key="dram.bus_width_bytes")
    if gpu.l1d.banks > 64 or gpu.l1d.banks < 1:
        raise InputError("l1d.banks must be 1..64", key="l1d.banks")
    if not 1 <= gpu.shared.banks <= S.X_WIDTH:
        raise InputError(f"shared.banks must be 1..{S.X_WIDTH}", key="shared.banks")
    if not 1 <= d.nbk <= S.X_WIDTH:
        raise InputError(f"dram.nbk must be 1..{S.X_WIDTH}", key="dram.nbk")


def build_hierarchy(gpu) -> HierState:
    """Allocate every array of the memory hierarchy for a validated GPUConfig."""
    _check(gpu)
    n_sm = gpu.sm.count
    d = gpu.dram
    n_ch = d.channels
    n_sl = gpu.l2.slices
    chshift, amap = parse_address_map(d.address_map, n_ch)
    p = np.zeros(S.N_P, dtype=np.int64)
    p[S.P_NSM] = n_sm
    p[S.P_NSLICE] = n_sl
    p[S.P_NCH] = n_ch
    p[S.P_SUBS] = d.subpartitions_per_channel
    p[S.P_PC] = _period_fs(gpu.clocks.core, "clocks.core")
    p[S.P_PIC] = _period_fs(gpu.clocks.icnt, "clocks.icnt")
    p[S.P_PL2] = _period_fs(gpu.clocks.l2, "clocks.l2")
    p[S.P_PDR] = _period_fs(gpu.clocks.dram, "clocks.dram")
    l1 = gpu.l1d
    max_ways = l1_max_ways(gpu)
    p[S.P_L1_SETS] = l1.sets
    p[S.P_L1_MAXWAYS] = max_ways
    p[S.P_L1_MSHR] = l1.mshr_entries
    p[S.P_L1_MERGE] = l1.mshr_max_merge
    p[S.P_L1_MQ] = l1.miss_queue
    p[S.P_L1_BANKS] = l1.banks
    p[S.P_L1_LAT] = l1.latency
    p[S.P_L1_WALLOC] = 1 if l1.write_allocate else 0
    p[S.P_L1_WR_PCT] = l1.write_ratio_pct
    p[S.P_SMEM_BANKS] = gpu.shared.banks
    p[S.P_SMEM_WIDTH] = gpu.shared.bank_width
    p[S.P_SMEM_LAT] = gpu.shared.latency
    l2 = gpu.l2
    p[S.P_L2_SETS] = l2.sets
    p[S.P_L2_WAYS] = l2.assoc
    p[S.P_L2_MSHR] = l2.mshr_entries
    p[S.P_L2_MERGE] = l2.mshr_max_merge
    p[S.P_L2_MQ] = l2.miss_queue
    p[S.P_L2_ROP] = l2.rop_latency
    p[S.P_L2_ATOMIC] = l2.atomic_latency
    p[S.P_L2_ATOM_CYC] = l2.atomic_cycles
    p[S.P_L2_PARTS] = l2.partitions
    p[S.P_L2_FAR] = l2.far_latency
    p[S.P_L2_PART_WR_CYC] = l2.partial_write_cycles
    p[S.P_L2_FETCH] = l2.fetch_granularity // l2.sector
    set_hash = l2.set_index if log2_exact(l2.sets) >= 0 else "linear"
    p[S.P_L2_SETHASH] = hash_code(set_hash, "l2.set_index", l2.sets)
    ic = gpu.icnt
    p[S.P_IC_FLIT] = ic.flit_bytes
    p[S.P_IC_INBUF] = ic.in_buffer
    p[S.P_IC_LAT] = ic.latency
    p[S.P_D_HASH] = hash_code(l2.index_hash, "l2.index_hash", n_ch)
    p[S.P_D_CHSHIFT] = chshift
    p[S.P_D_CHBITS] = hash_bits(n_ch) if l2.index_hash == "ipoly" else max(log2_exact(n_ch), 0)
    p[S.P_D_NBK] = d.nbk
    p[S.P_D_NBKGRP] = d.nbkgrp
    for key, val in ((S.P_D_CCD, d.tCCD), (S.P_D_RRD, d.tRRD), (S.P_D_RCD, d.tRCD), (S.P_D_RAS, d.tRAS),
                     (S.P_D_RP, d.tRP), (S.P_D_RC, d.tRC), (S.P_D_CL, d.tCL), (S.P_D_WL, d.tWL),
                     (S.P_D_CDLR, d.tCDLR), (S.P_D_WR, d.tWR), (S.P_D_CCDL, d.tCCDL),
                     (S.P_D_RTPL, d.tRTPL)):
        p[key] = val
    p[S.P_D_BURST] = max(1, d.burst_length // d.command_ratio)
    p[S.P_D_DUAL] = 1 if d.dual_bus else 0
    p[S.P_D_FRFCFS] = 1 if d.scheduler == "frfcfs" else 0
    p[S.P_D_QSIZE] = d.queue_size
    p[S.P_D_LAT] = d.latency
    p[S.P_D_ATOM] = d.atom_bytes
    p[S.P_WB_HI] = max(1, d.queue_size * 3 // 4)
    p[S.P_WB_LO] = max(0, d.queue_size // 4)
    p[S.P_TOTAL_THREADS] = n_sm * gpu.sm.max_warps * 32
    if int(amap[0, :].max()) >= 0 and (1 << int((amap[0] >= 0).sum())) < d.nbk:
        raise InputError(f"address map has fewer bank bits than dram.nbk = {d.nbk}", key="dram.address_map")

    n_req = _pow2_at_least(n_sm * (2 * l1.mshr_entries + 4 * l1.miss_queue + 128)
                           + n_sl * (l2.mshr_entries + 8 * l2.miss_queue + 64)
                           + n_ch * 2 * d.queue_size)
    n_slot = _pow2_at_least(n_sm * gpu.sm.max_warps * 8)
    h1 = _pow2_at_least(2 * l1.mshr_entries)
    h2 = _pow2_at_least(2 * l2.mshr_entries)

    def i64(*shape, fill=0):
        return np.full(shape, fill, dtype=np.int64)

    sc = i64(S.N_SC)
    sc[S.SC_POOL_TOP] = n_req
    sc[S.SC_SLOT_TOP] = n_slot
    sc[S.SC_L1_WAYS] = max_ways
    sc[S.SC_LAST_CYCLE] = -1
    sc[S.SC_WAKE_AT] = S.INF
    R = i64(n_req, S.N_RF)          # one row per request: its fields share a cache line or two
    R[:, S.RF_NEXT] = S.NIL
    R[:, S.RF_SLOT] = S.NIL
    R[:, S.RF_FREE] = np.arange(n_req - 1, -1, -1)
    SL = i64(S.N_SLF, n_slot)
    SL[S.SLF_FREE] = np.arange(n_slot - 1, -1, -1)
    L1L = i64(S.N_L1L_WALLOC if l1.write_allocate else 3, n_sm, l1.sets, max_ways)
    L1L[S.LF_TAG] = S.NIL
    L2L = i64(6, n_sl, l2.sets, l2.assoc)
    L2L[S.LF_TAG] = S.NIL

    def mshr(n_units: int, entries: int) -> np.ndarray:
        m = i64(4, n_units, entries, fill=S.NIL)
        m[S.MF_CNT] = 0
        m[S.MF_FREE] = np.arange(entries)
        return m

    SMV = i64(S.N_SMV, n_sm)
    SMV[S.SM_MTOP] = l1.mshr_entries
    SMV[S.SM_MQ_HEAD] = S.NIL
    SMV[S.SM_MQ_TAIL] = S.NIL
    SLV = i64(S.N_SLV, n_sl)
    SLV[S.SV_MTOP] = l2.mshr_entries
    for row in (S.SV_IN_HEAD, S.SV_IN_TAIL, S.SV_OUT_HEAD, S.SV_OUT_TAIL, S.SV_DQ_HEAD, S.SV_DQ_TAIL):
        SLV[row] = S.NIL
    CHV = i64(S.N_CHV, n_ch)
    BK = i64(S.N_BF, n_ch, d.nbk)
    for row in (S.BF_ROW, S.BF_RQ_HEAD, S.BF_RQ_TAIL, S.BF_WQ_HEAD, S.BF_WQ_TAIL):
        BK[row] = S.NIL
    return pack(dict(
        p=p, sc=sc, amap=amap, R=R, SL=SL, EV=i64(n_req + n_slot, 2),
        L1L=L1L, L1H=i64(2, n_sm, h1, fill=S.NIL), L1M=mshr(n_sm, l1.mshr_entries), SMV=SMV,
        L2L=L2L, L2W=i64(n_sl, l2.sets, l2.assoc, 4), L2H=i64(2, n_sl, h2, fill=S.NIL),
        L2M=mshr(n_sl, l2.mshr_entries), SLV=SLV, CHV=CHV, BK=BK,
        BG=i64(n_ch, d.nbkgrp, fill=-(1 << 20)), d_ch=_dram_channel_init(n_ch), d_st=i64(n_ch, S.N_DST),
        ST=i64(2, S.N_TYPES, S.N_STATUS), FL=i64(2, S.N_TYPES, S.N_FAIL), X=i64(S.N_X, S.X_WIDTH),
        WC=i64(S.N_WC, n_sm * gpu.sm.max_warps),
        L1X=i64(2, n_sm, _pow2_at_least(2 * l1.sets * max_ways), fill=S.NIL),
    ))


def _dram_channel_init(n_ch: int) -> np.ndarray:
    dc = np.zeros((n_ch, 6), dtype=np.int64)
    far = -(1 << 20)
    dc[:, S.DC_LAST_COL] = far
    dc[:, S.DC_LAST_ACT] = far
    dc[:, S.DC_LAST_RD] = far
    dc[:, S.DC_LAST_WR_END] = far
    return dc


def begin_kernel(hs: HierState, gpu, kernel_info, shmem_per_sm_bytes: int, flush_l2: bool = False) -> None:
    """Kernel launch: invalidate the L1s (the L2 too when flush_l2), re-carve the unified L1/shared array."""
    _, ways = carveout(gpu, int(shmem_per_sm_bytes))
    l1_flush(hs)
    if flush_l2:
        l2_flush(hs)
    hs.WC[:] = 0                     # refusal cache: recomputed (the local base may change)
    wake_all_waiting(hs.SMV, hs.sc)  # refusals may change with the flush and the new carve-out
    hs.sc[S.SC_L1_WAYS] = min(ways, int(hs.p[S.P_L1_MAXWAYS]))
    hs.sc[S.SC_LOCAL_BASE] = int(getattr(kernel_info, "local_base", 0) or 0)


def memcpy_h2d(hs: HierState, addr: int, nbytes: int) -> None:
    """MemcpyHtoD: every 32 B sector of [addr, addr + nbytes) is installed (clean) in its L2 slice.

    Lines displaced by the warm-up are dropped without write-back (copies come between kernels).
    A copy larger than the L2 installs only its last L2-capacity bytes: what an LRU L2 can still
    hold after the copy (a 1 TB copy used to install 2^35 sectors one by one).
    """
    if nbytes <= 0:
        return
    cap = int(hs.p[S.P_L2_SETS]) * int(hs.p[S.P_L2_WAYS]) * int(hs.p[S.P_NSLICE]) * 128
    if nbytes > cap:
        addr, nbytes = int(addr) + int(nbytes) - cap, cap
    first = int(addr) >> 5
    last = (int(addr) + int(nbytes) - 1) >> 5
    l2_install_range(hs, np.int64(first), np.int64(last - first + 1))
