"""Timing mode: the IR each CTA's warps become (masks, reconvergence, addresses, register ids)."""

import numpy as np

from warpsim.host import Device, load_ptx
from warpsim.ir.kinds import InstKind, LatClass, MemSpace, Unit
from warpsim.ir.records import KernelSource

DIVERGE = """
.version 8.0
.target sm_75
.address_size 64
.visible .entry diverge(.param .u64 out)
{
  .reg .pred %p<2>;
  .reg .b32 %r<4>;
  .reg .b64 %rd<3>;
  mov.u32 %r1, %tid.x;
  and.b32 %r2, %r1, 1;
  setp.eq.u32 %p1, %r2, 0;
  @%p1 bra EVEN;
  mov.u32 %r3, 100;
  bra.uni JOIN;
EVEN:
  mov.u32 %r3, 200;
JOIN:
  add.u32 %r3, %r3, %r1;
  ld.param.u64 %rd1, [out];
  cvta.to.global.u64 %rd1, %rd1;
  mul.wide.u32 %rd2, %r1, 4;
  add.s64 %rd1, %rd1, %rd2;
  st.global.u32 [%rd1], %r3;
  ret;
}
"""


def test_divergent_warp_reconverges_at_the_post_dominator():
    dev = Device()
    out = dev.alloc(48, np.uint32)
    mod = load_ptx(DIVERGE, device=dev)
    src = mod.launch("diverge", 1, 48, [out], mode="timing")
    assert isinstance(src, KernelSource)
    tid = np.arange(48)
    np.testing.assert_array_equal(dev.to_host(out), np.where(tid % 2 == 0, 200, 100) + tid)
    (cta,) = list(src.iter_ctas())
    w0, w1 = cta.warps
    even, odd = 0x55555555, 0xAAAAAAAA
    # taken path (EVEN) first, then the fall-through path, then both together from JOIN (index 7)
    assert list(w0.pc // 16) == [0, 1, 2, 3, 6, 4, 5, 7, 8, 9, 10, 11, 12, 13]
    assert list(w0.mask) == [0xFFFFFFFF] * 3 + [even, even, odd, odd] + [0xFFFFFFFF] * 7
    # warp 1 has only 16 threads
    assert list(w1.mask) == [0xFFFF] * 3 + [0x5555, 0x5555, 0xAAAA, 0xAAAA] + [0xFFFF] * 7
    st = w0.kind == InstKind.STORE
    assert st.sum() == 1 and w0.space[st][0] == MemSpace.GLOBAL and w0.width[st][0] == 4
    row = w0.mem_row[st][0]
    np.testing.assert_array_equal(w0.addr[row], out.ptr + 4 * np.arange(32))
    np.testing.assert_array_equal(w1.addr[w1.mem_row[w1.kind == InstKind.STORE][0]],
                                  np.r_[out.ptr + 4 * np.arange(32, 48), np.zeros(16)])
    assert w0.kind[3] == InstKind.BRANCH and w0.unit[3] == Unit.BRA
    assert w0.kind[-1] == InstKind.EXIT
    assert src.info.grid == (1, 1, 1) and src.info.block == (48, 1, 1) and src.info.warps_per_cta == 2


def test_vecadd_trace_fields(kdir):
    dev = Device()
    n = 1000
    a = dev.to_device(np.ones(n, np.float32))
    b = dev.to_device(np.ones(n, np.float32))
    c = dev.alloc(n, np.float32)
    src = load_ptx(kdir / "vecadd.ptx", device=dev).launch("vecadd", 4, 256, [a, b, c, n], mode="timing")
    assert dev.commands[-1] is src and len(dev.commands) == 3     # two memcpys, one launch
    ctas = list(src.iter_ctas())
    assert [c_.cta for c_ in ctas] == [(0, 0, 0), (1, 0, 0), (2, 0, 0), (3, 0, 0)]
    last = ctas[3].warps[7]                   # threads 992..1023: only 8 are < n
    loads = np.flatnonzero(last.kind == InstKind.LOAD)
    assert len(loads) == 2
    assert all(last.mask[i] == 0xFF for i in loads)
    bases = sorted(int(last.addr[last.mem_row[i], 0]) - 4 * 992 for i in loads)
    assert bases == sorted([a.ptr, b.ptr])
    for i in loads:
        np.testing.assert_array_equal(np.diff(last.addr[last.mem_row[i], :8].astype(np.int64)), 4)
        assert not last.addr[last.mem_row[i], 8:].any()
    fadd = np.flatnonzero(last.unit == Unit.SP)
    assert len(fadd) == 1 and last.lat[fadd[0]] == LatClass.PTX_FP_ADD
    for cta in ctas:
        for w in cta.warps:
            assert w.dst.max() < src.info.num_ir_regs and w.src.max() < src.info.num_ir_regs
            assert (w.mem_row >= 0).sum() == w.addr.shape[0]
            assert set(np.unique(w.space[w.mem_row >= 0])) <= {MemSpace.GLOBAL}
    total = sum(w.thread_instructions for c_ in ctas for w in c_.warps)
    assert total > 0


def test_cta_batching_does_not_change_traces(kdir):
    """Emulating CTAs one at a time or eight at a time yields identical per-warp IR (divergent loops in
    inlined device functions; no inter-CTA communication, so every batching is the same execution)."""
    rng = np.random.default_rng(0)
    n = 4 * 96
    dev = Device()
    x = dev.to_device(rng.random(n, dtype=np.float32))
    args = [x, dev.alloc(n, np.float32), dev.alloc(n, np.int32), n - 17]
    src = load_ptx(kdir / "devcall.ptx", device=dev).launch("devcall", 4, 96, args, mode="timing")
    src._per = 1
    one = list(src.iter_ctas())
    src._per = 8
    many = list(src.iter_ctas())
    assert len(one) == len(many) == 4
    for x_, y in zip(one, many, strict=True):
        assert x_.cta == y.cta
        assert all(wx.equals(wy) for wx, wy in zip(x_.warps, y.warps, strict=True))
    masks = np.concatenate([w.mask for c in one for w in c.warps])
    assert ((masks != 0) & (masks != 0xFFFFFFFF)).any()      # divergence really happened


def test_local_and_shared_addresses_are_resolved(kdir):
    dev = Device()
    n = 64
    a = dev.to_device(np.arange(n * 8, dtype=np.int32)[::-1].copy())
    o = dev.alloc(n * 8, np.int32)
    src = load_ptx(kdir / "localarr.ptx", device=dev).launch("localsort", 1, 64, [a, o, n], mode="timing")
    (cta,) = list(src.iter_ctas())
    spaces = np.concatenate([w.space[w.mem_row >= 0] for w in cta.warps])
    assert MemSpace.LOCAL in spaces and MemSpace.GENERIC not in spaces
    w = cta.warps[0]
    loc = np.flatnonzero(w.space == MemSpace.LOCAL)
    rows = w.addr[w.mem_row[loc]]
    assert (rows >= src.info.local_base).all() and (rows < src.info.local_base + 64).all()
