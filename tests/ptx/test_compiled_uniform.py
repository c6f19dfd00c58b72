"""Kernel parameters and special registers on the compiled engine's single-pass loops
(`compiled/hot_uniform.py`): the same register bits as the numpy reference and as the definitions,
for whole batches (the CTA-tiled tables), CTAs with padding lanes and guarded lanes (the lane-list
loop), and for narrowing, widening and sign-extending destination types."""

from __future__ import annotations

import numpy as np
import pytest

from warpsim.frontend.ptx.memory import Device
from warpsim.host import load_ptx

_SREGS = ["%tid.x", "%tid.y", "%tid.z", "%ctaid.x", "%ctaid.y", "%ctaid.z", "%ntid.x", "%ntid.y",
          "%ntid.z", "%nctaid.x", "%nctaid.y", "%laneid", "%warpid", "%lanemask_eq", "%lanemask_lt",
          "%lanemask_le", "%lanemask_gt", "%lanemask_ge", "%nwarpid", "%smid"]
# (destination type and register, how it is widened to the stored u64)
_NARROW = [("cvt.u8.u32 %rs1, {s};", "cvt.u64.u16 %rd2, %rs1;"),
           ("cvt.s8.u32 %rs1, {s};", "cvt.s64.s16 %rd2, %rs1;"),
           ("cvt.u64.u32 %rd2, {s};", ""),
           ("cvt.s64.s32 %rd2, {s};", "")]
N_OUT = len(_SREGS) + 4 * 2 + 6


def _kernel() -> str:
    body = []
    slot = 0

    def store(reg64: str) -> None:
        nonlocal slot
        body.append(f"  st.global.u64 [%rd9+{8 * slot}], {reg64};")
        slot += 1

    for s in _SREGS:
        body.append(f"  mov.u32 %r1, {s};")
        body.append("  cvt.u64.u32 %rd2, %r1;")
        store("%rd2")
    for s in ("%tid.x", "%ctaid.y"):
        for conv, widen in _NARROW:
            body.append("  " + conv.format(s=s))
            if widen:
                body.append("  " + widen)
            store("%rd2")
    for load, widen in [("ld.param.s8 %rs1, [p8];", "cvt.s64.s16 %rd2, %rs1;"),
                        ("ld.param.u16 %rs1, [p16];", "cvt.u64.u16 %rd2, %rs1;"),
                        ("ld.param.s32 %r1, [p32];", "cvt.s64.s32 %rd2, %r1;"),
                        ("ld.param.f32 %f1, [pf];", "mov.b32 %r1, %f1;\n  cvt.u64.u32 %rd2, %r1;"),
                        ("ld.param.u64 %rd2, [p64];", ""),
                        ("ld.param.u32 %r1, [p32];", "cvt.u64.u32 %rd2, %r1;")]:
        body.append("  " + load)
        if widen:
            body.append("  " + widen)
        store("%rd2")
    assert slot == N_OUT
    return f""".version 8.0
.target sm_75
.address_size 64
.visible .entry k(.param .u64 out, .param .s8 p8, .param .u16 p16, .param .s32 p32, .param .f32 pf,
                  .param .u64 p64, .param .u32 skip)
{{
  .reg .b16 %rs<3>;
  .reg .b32 %r<8>;
  .reg .b64 %rd<12>;
  .reg .f32 %f<2>;
  .reg .pred %p<2>;
  mov.u32 %r2, %tid.x;
  mov.u32 %r3, %tid.y;
  mov.u32 %r4, %ntid.x;
  mad.lo.s32 %r5, %r3, %r4, %r2;
  ld.param.u32 %r6, [skip];
  setp.eq.u32 %p1, %r5, %r6;
  @%p1 bra DONE;
  mov.u32 %r2, %ctaid.x;
  mov.u32 %r3, %ntid.y;
  mul.lo.s32 %r4, %r4, %r3;
  mov.u32 %r3, %ntid.z;
  mul.lo.s32 %r4, %r4, %r3;
  mov.u32 %r3, %tid.z;
  mov.u32 %r7, %ntid.y;
  mul.lo.s32 %r7, %r7, %r3;
  mov.u32 %r3, %ntid.x;
  mul.lo.s32 %r7, %r7, %r3;
  add.s32 %r5, %r5, %r7;
  mov.u32 %r3, %ctaid.y;
  mov.u32 %r7, %nctaid.x;
  mad.lo.s32 %r2, %r3, %r7, %r2;
  mad.lo.s32 %r5, %r2, %r4, %r5;
  mul.wide.u32 %rd10, %r5, {8 * N_OUT};
  ld.param.u64 %rd11, [out];
  add.s64 %rd9, %rd11, %rd10;
{chr(10).join(body)}
DONE:
  ret;
}}
"""


def _launch(engine: str, grid: tuple, block: tuple, skip: int) -> np.ndarray:
    dev = Device(capacity=1 << 22)
    mod = load_ptx(_kernel(), device=dev)
    mod.engine = engine
    if engine == "compiled":
        assert mod.compiled(mod.kernel("k")) is not None
    n = int(np.prod(grid)) * int(np.prod(block))
    out = dev.to_device(np.full(n * N_OUT, 0xDEAD, dtype=np.uint64))
    mod.launch("k", grid, block, (out, np.int8(-3), np.uint16(65000), np.int32(-70000),
                                  np.float32(-1.5), np.uint64(0x123456789ABCDEF0), np.uint32(skip)))
    return dev.to_host(out).reshape(n, N_OUT)


@pytest.mark.parametrize("grid,block,skip", [
    ((3, 2), (64, 2, 1), 1 << 30),      # whole batches: the CTA-tiled tables
    ((2, 3), (5, 3, 2), 1 << 30),       # 30 threads a CTA: padding lanes, the lane-list loop
    ((4, 1), (32, 4, 1), 7),            # thread 7 of every CTA skips: the near-dense / listed path
], ids=["dense", "padded", "guarded"])
def test_parameters_and_special_registers_match_reference_and_definitions(grid, block, skip):
    got = _launch("compiled", grid, block, skip)
    ref = _launch("numpy", grid, block, skip)
    assert np.array_equal(got, ref)
    bx, by, bz = block
    tpc = bx * by * bz
    for cy in range(grid[1]):
        for cx in range(grid[0]):
            for t in range(tpc):
                row = got[(cy * grid[0] + cx) * tpc + t]
                if t == skip:
                    assert (row == 0xDEAD).all()
                    continue
                ln = t % 32
                want = [t % bx, (t // bx) % by, t // (bx * by), cx, cy, 0, bx, by, bz, grid[0], grid[1],
                        ln, t // 32, 1 << ln, (1 << ln) - 1, (2 << ln) - 1,
                        0xFFFFFFFF ^ ((2 << ln) - 1), 0xFFFFFFFF ^ ((1 << ln) - 1)]
                assert row[:len(want)].tolist() == want
                tx = t % bx
                s8 = lambda v: np.uint64(np.int64(np.int8(np.uint8(v & 0xFF))))  # noqa: E731
                base = len(_SREGS)
                assert row[base:base + 4].tolist() == [tx & 0xFF, s8(tx), tx, tx]
                assert row[base + 4:base + 8].tolist() == [cy & 0xFF, s8(cy), cy, cy]
                p = row[base + 8:].tolist()
                assert p[0] == np.uint64(np.int64(-3))
                assert p[1] == 65000
                assert p[2] == np.uint64(np.int64(-70000))
                assert p[3] == int(np.float32(-1.5).view(np.uint32))
                assert p[4] == 0x123456789ABCDEF0
                assert p[5] == np.int64(-70000) & 0xFFFFFFFF
