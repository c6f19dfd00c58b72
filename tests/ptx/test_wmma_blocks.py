"""wmma loads and stores move a whole fragment per lane at once (decode_mma's block path); generic
addresses and faults go element by element. Both give what numpy's matmul does, on warps a branch
left out too, on both engines, and a fault names the first element that faults."""

from __future__ import annotations

import numpy as np
import pytest

from warpsim.errors import InputError
from warpsim.host import Device, load_ptx


def _kernel(space: str) -> str:
    q = f".{space}" if space else ""
    a = "{" + ", ".join(f"%r{10 + i}" for i in range(8)) + "}"
    b = "{" + ", ".join(f"%r{20 + i}" for i in range(8)) + "}"
    c = "{" + ", ".join(f"%f{i}" for i in range(8)) + "}"
    d = "{" + ", ".join(f"%f{10 + i}" for i in range(8)) + "}"
    return f""".version 8.0
.target sm_75
.address_size 64
.visible .entry wm(.param .u64 pa, .param .u64 pb, .param .u64 pc, .param .u64 pd, .param .u32 lim)
{{
  .reg .b32 %r<40>;
  .reg .f32 %f<20>;
  .reg .b64 %rd<12>;
  .reg .pred %p<2>;
  mov.u32 %r1, %tid.x;
  shr.u32 %r2, %r1, 5;
  ld.param.u32 %r3, [lim];
  setp.ge.u32 %p1, %r2, %r3;
  @%p1 bra DONE;
  mul.wide.u32 %rd1, %r2, 512;
  mul.wide.u32 %rd2, %r2, 1024;
  ld.param.u64 %rd3, [pa];
  add.s64 %rd3, %rd3, %rd1;
  ld.param.u64 %rd4, [pb];
  add.s64 %rd4, %rd4, %rd1;
  ld.param.u64 %rd5, [pc];
  add.s64 %rd5, %rd5, %rd2;
  ld.param.u64 %rd6, [pd];
  add.s64 %rd6, %rd6, %rd2;
  wmma.load.a.sync.aligned.row.m16n16k16{q}.f16 {a}, [%rd3], 16;
  wmma.load.b.sync.aligned.row.m16n16k16{q}.f16 {b}, [%rd4], 16;
  wmma.load.c.sync.aligned.row.m16n16k16{q}.f32 {c}, [%rd5], 16;
  wmma.mma.sync.aligned.row.row.m16n16k16.f32.f32 {d}, {a}, {b}, {c};
  wmma.store.d.sync.aligned.row.m16n16k16{q}.f32 [%rd6], {d}, 16;
DONE:
  ret;
}}
"""


def _run(engine: str, space: str, warps: int, lim: int, tiles: int | None = None):
    rng = np.random.default_rng(7)
    tiles = warps if tiles is None else tiles
    A = rng.integers(-4, 5, (tiles, 16, 16))
    B = rng.integers(-4, 5, (tiles, 16, 16))
    C = rng.integers(-9, 10, (tiles, 16, 16))
    dev = Device(capacity=1 << 22)
    mod = load_ptx(_kernel(space), device=dev)
    mod.engine = engine
    bufs = [dev.to_device(A.astype(np.float16)), dev.to_device(B.astype(np.float16)),
            dev.to_device(C.astype(np.float32)), dev.to_device(np.full((tiles, 16, 16), -1, np.float32))]
    mod.launch("wm", 2, 32 * warps, [*bufs, np.uint32(lim)])
    return dev.to_host(bufs[3]).reshape(tiles, 16, 16), A @ B + C


@pytest.mark.parametrize("engine", ["numpy", "compiled"])
@pytest.mark.parametrize("space", ["global", ""], ids=["global-block", "generic-per-element"])
def test_wmma_tiles_of_the_warps_a_branch_kept(engine, space):
    got, want = _run(engine, space, warps=4, lim=3)       # warp 3 of each CTA branches around
    np.testing.assert_array_equal(got[:3], want[:3])
    assert (got[3] == -1).all()


def test_a_fragment_past_the_heap_faults_naming_its_first_element():
    # four warps, three tiles: warp 3's D tile starts 3,072 bytes into D, the last allocation
    msgs = []
    for engine in ("numpy", "compiled"):
        with pytest.raises(InputError, match=r"out-of-bounds global access of 4 bytes at address 0x") as e:
            _run(engine, "global", warps=4, lim=4, tiles=3)
        msgs.append(str(e.value).split("kernel wm: ")[-1].splitlines()[0])
    assert msgs[0] == msgs[1]
