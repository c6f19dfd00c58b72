"""`l2.partitions` / `l2.far_latency`: Hopper's L2 as two halves. A read whose SM's half holds no
copy of the line crosses to the line's home half (far_latency more) and leaves a copy; later reads
from that half are near; a write drops the copies.

QV100 with the L2 split in two (SMs 0-39 / 40-79, slices 0-31 / 32-63), one thread on SM 0 chasing
lines uploaded to the L2 (hits): its latency per load is the L2 hit latency, plus far_latency the
first time it reads a line homed in the other half."""

import numpy as np
import pytest

from warpsim.config import load_gpu
from warpsim.ir.kinds import FLAG_BYPASS_L1, InstKind, LatClass, MemSpace, Unit
from warpsim.ir.records import CtaTrace, KernelInfo, ListKernel, Memcpy, WarpBuilder
from warpsim.timing.memory.hierarchy import build_hierarchy
from warpsim.timing.memory.hierarchy.route import route_slice
from warpsim.validate import microbench_traces as T
from warpsim.validate.microbench_core import run_core

FAR = 100


def _gpu(parts: int = 2):
    return load_gpu("QV100", [f"l2.partitions={parts}", f"l2.far_latency={FAR}"])


def _lines(gpu, home_half: int, n: int) -> list[int]:
    hs = build_hierarchy(gpu)
    half = gpu.l2.slices // 2
    out, a = [], T.GLOBAL_BASE
    while len(out) < n:
        if (route_slice(hs, np.int64(a)) >= half) == bool(home_half):
            out.append(a)
        a += 128
    return out


def _latencies(gpu, ops: list[tuple[str, int]]) -> list[int]:
    """One thread: each op a dependent load ('ld') or a store ('st'); the completion-to-issue
    latency of every load (a load completes when the next instruction that reads it issues)."""
    b = WarpBuilder()
    for i, (op, a) in enumerate(ops):
        addrs = np.zeros(32, dtype=np.uint64)
        addrs[0] = a
        if op == "ld":
            b.add(0x10 * i, 1, InstKind.LOAD, Unit.LDST, LatClass.MEM, dst=(2,), src=(2,),
                  space=MemSpace.GLOBAL, width=8, addrs=addrs, flags=FLAG_BYPASS_L1)
        else:
            b.add(0x10 * i, 1, InstKind.STORE, Unit.LDST, LatClass.MEM, src=(2,),
                  space=MemSpace.GLOBAL, width=8, addrs=addrs, flags=FLAG_BYPASS_L1)
    k = ListKernel(KernelInfo(name="chase", kernel_id=1, grid=(1, 1, 1), block=(32, 1, 1)),
                   [CtaTrace((0, 0, 0), [b.build()])])
    lo = min(a for _, a in ops)
    out = run_core(gpu, [Memcpy(lo, max(a for _, a in ops) - lo + 128), k], log=len(ops) + 8)
    issue = list(out.issue_log[:, 0]) + [out.kernels[-1].end_cycle]
    return [int(issue[i + 1] - issue[i]) for i, (op, _) in enumerate(ops) if op == "ld"]


def test_a_far_line_costs_the_crossing_once_then_is_near():
    gpu = _gpu()
    far = _lines(gpu, 1, 2)
    first, again, other_first = _latencies(gpu, [("ld", far[0]), ("ld", far[0]), ("ld", far[1])])
    near = _latencies(_gpu(1), [("ld", far[0]), ("ld", far[0]), ("ld", far[1])])
    assert first - near[0] == FAR and other_first - near[2] == FAR
    assert again == near[1]


def test_a_near_line_never_pays():
    gpu = _gpu()
    near_line = _lines(gpu, 0, 1)[0]
    assert _latencies(gpu, [("ld", near_line)] * 3) == _latencies(_gpu(1), [("ld", near_line)] * 3)


def test_a_write_drops_the_copy():
    """The store reaches the home slice while a near load runs; the far line's next read pays."""
    gpu = _gpu()
    far, near_line = _lines(gpu, 1, 1)[0], _lines(gpu, 0, 1)[0]
    with_store = _latencies(gpu, [("ld", far), ("st", far)] + [("ld", near_line)] * 3 + [("ld", far)])
    without = _latencies(gpu, [("ld", far)] + [("ld", near_line)] * 3 + [("ld", far)])
    assert with_store[-1] - without[-1] == FAR


def test_one_partition_is_the_default_everywhere_but_hopper():
    assert load_gpu("QV100").l2.partitions == 1 and load_gpu("QV100").l2.far_latency == 0
    for bad in ("l2.partitions=0", "l2.partitions=65"):     # QV100: 64 slices
        with pytest.raises(Exception, match="partitions"):
            load_gpu("QV100", [bad])
    h = load_gpu("H200")
    assert (h.l2.partitions, h.l2.far_latency) == (2, 150)
