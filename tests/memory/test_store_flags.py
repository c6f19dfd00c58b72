"""A store carrying FLAG_BYPASS_L1 (the flag of L2-only loads) is still a store: it writes through
to the L2 and counts as a write (before the fix it went to the L2 as a read)."""

import numpy as np

from warpsim.config import load_gpu
from warpsim.ir.kinds import FLAG_BYPASS_L1, InstKind, LatClass, MemSpace, Unit
from warpsim.ir.records import CtaTrace, KernelInfo, ListKernel, WarpBuilder
from warpsim.timing.gpu import simulate
from warpsim.validate import microbench_traces as T


def test_a_flagged_store_is_a_write():
    b = WarpBuilder()
    addrs = (T.GLOBAL_BASE + 4 * np.arange(32)).astype(np.uint64)
    b.add(0, 0xFFFFFFFF, InstKind.STORE, Unit.LDST, LatClass.MEM, src=(2,), space=MemSpace.GLOBAL,
          width=4, addrs=addrs, flags=FLAG_BYPASS_L1)
    k = ListKernel(KernelInfo(name="st", kernel_id=1, grid=(1, 1, 1), block=(32, 1, 1)),
                   [CtaTrace((0, 0, 0), [b.build()])])
    mem = simulate([k], load_gpu("QV100"), memory_model="hierarchy").kernels[0].memory
    l2 = mem["l2"]["breakdown"]
    assert l2["GLOBAL_ACC_W"]["TOTAL_ACCESS"] == 4          # 128 B: four sector writes
    assert l2["GLOBAL_ACC_R"]["TOTAL_ACCESS"] == 0
    assert mem["dram"]["reads"] == 0                       # a read would have fetched the 4 sectors
