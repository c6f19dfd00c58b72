"""Profile mode: PKA Table 2 counters and per-warp basic-block vectors, checked against hand counts."""

import numpy as np

from warpsim.frontend.ptx.recorder import PKA_METRICS
from warpsim.host import Device, load_ptx


def test_vecadd_profile_counts(kdir):
    dev = Device()
    n = 1000
    a, b = dev.to_device(np.ones(n, np.float32)), dev.to_device(np.ones(n, np.float32))
    c = dev.alloc(n, np.float32)
    mod = load_ptx(kdir / "vecadd.ptx", device=dev)
    prof = mod.launch("vecadd", 4, 256, [a, b, c, n], mode="profile")
    m = prof.metrics
    assert list(m) == list(PKA_METRICS)
    warps_with_work = -(-n // 32)               # 32 warps; 31 full + one with 8 lanes
    assert m["smsp__inst_executed_op_global_ld.sum"] == 2 * warps_with_work
    assert m["smsp__inst_executed_op_global_st.sum"] == warps_with_work
    # each full warp reads 128 contiguous bytes = 4 sectors per array; the 8-lane warp 1 sector
    # (allocations are 256-byte aligned so no access straddles)
    assert m["l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum"] == 2 * (31 * 4 + 1)
    assert m["l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum"] == 31 * 4 + 1
    assert m["launch__grid_size"] == 4
    assert m["smsp__inst_executed_op_shared_ld.sum"] == 0
    assert 1 < m["smsp__thread_inst_executed_per_inst_executed.ratio"] < 32
    # all 32 warps run the prologue; the bbv has one row per warp of the grid
    assert prof.bbv.shape[0] == 32 and (prof.bbv[:, 0] == 1).all()
    np.testing.assert_array_equal(dev.to_host(c), 2)
    # the functional and profile runs count the same thread instructions
    f = mod.launch("vecadd", 4, 256, [a, b, c, n])
    assert f.thread_instructions == prof.counters["thread_insts"]


def test_shared_and_local_counts(kdir):
    dev = Device()
    n = 32
    A = dev.to_device(np.ones((n, n), np.float32))
    C = dev.alloc((n, n), np.float32)
    mod = load_ptx(kdir / "sgemm.ptx", device=dev)
    p = mod.launch("sgemm", (2, 2), (16, 16), [A, A, C, n], mode="profile")
    warps = 4 * 8
    tiles = n // 16
    m = p.metrics
    assert m["smsp__inst_executed_op_shared_st.sum"] == warps * tiles * 2
    assert m["smsp__inst_executed_op_shared_ld.sum"] == warps * tiles * 32        # 16 k-steps x 2 loads
    assert m["smsp__inst_executed_op_global_st.sum"] == warps
    assert m["smsp__thread_inst_executed_per_inst_executed.ratio"] == 32.0      # no divergence
    np.testing.assert_array_equal(dev.to_host(C), n)

    x = dev.to_device(np.arange(64 * 8, dtype=np.int32))
    o = dev.alloc(64 * 8, np.int32)
    q = load_ptx(kdir / "localarr.ptx", device=dev).launch("localsort", 1, 64, [x, o, 64], mode="profile")
    assert q.metrics["smsp__inst_executed_op_local_ld.sum"] > 0
    assert q.metrics["l1tex__t_sectors_pipe_lsu_mem_local_op_ld.sum"] > 0
