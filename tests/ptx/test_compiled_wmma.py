"""wmma in the compiled engine (compiled/mma.py) against the numpy reference, bit for bit: nvcc's
tensor-core kernels (kernels/tensor.ptx) and a kernel moving fragments through shared memory in
both layouts, on random non-integer inputs; which forms compile; the f16 conversions against
numpy's, exhaustively (f16 -> f64) and at every kind of rounding boundary (f64 -> f16)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from warpsim.frontend.ptx.compiled.batch import CompiledKernel
from warpsim.frontend.ptx.compiled.mma import f64_to_half, half_to_f64
from warpsim.host import Device, load_ptx

TENSOR = Path(__file__).parent / "kernels" / "tensor.ptx"


def _halves(rng, shape):
    return rng.uniform(-2, 2, shape).astype(np.float16)


def _bf16(rng, shape):
    return (rng.uniform(-2, 2, shape).astype(np.float32).view(np.uint32) >> 16).astype(np.uint16)


# kernel -> (inputs, output dtype and shape); inputs are functions of an rng
CASES = {
    "wmma_f16_rc": ([lambda r: _halves(r, (16, 16)), lambda r: _halves(r, (16, 16)),
                     lambda r: r.uniform(-8, 8, (16, 16)).astype(np.float32)], (np.float32, (16, 16))),
    "wmma_f16_cr_h": ([lambda r: _halves(r, (16, 32)), lambda r: _halves(r, (16, 8))], (np.float16, (8, 32))),
    "wmma_bf16": ([lambda r: _bf16(r, (16, 16)), lambda r: _bf16(r, (16, 16))], (np.float32, (16, 16))),
    "wmma_tf32": ([lambda r: r.uniform(-2, 2, (16, 8)).astype(np.float32),
                   lambda r: r.uniform(-2, 2, (8, 16)).astype(np.float32)], (np.float32, (16, 16))),
    "wmma_s8": ([lambda r: r.integers(-128, 128, (16, 16)).astype(np.int8),
                 lambda r: r.integers(-128, 128, (16, 16)).astype(np.int8)], (np.int32, (16, 16))),
    "wmma_u8": ([lambda r: r.integers(0, 256, (8, 16)).astype(np.uint8),
                 lambda r: r.integers(0, 256, (16, 32)).astype(np.uint8)], (np.int32, (8, 32))),
}
# which of each kernel's wmma instructions the compiled engine runs itself (the rest: host steps)
COMPILED = {"wmma_f16_rc": "all", "wmma_f16_cr_h": "all", "wmma_bf16": "all",
            "wmma_tf32": "loads and stores", "wmma_s8": "loads and stores", "wmma_u8": "loads and stores"}


def _launch(engine: str, text: str, kernel: str, inputs, out, grid=1, block=32, extra=()):
    dev = Device(capacity=1 << 22)
    mod = load_ptx(text, device=dev)
    mod.engine = engine
    bufs = [dev.to_device(x) for x in inputs]
    d = dev.to_device(np.full(out[1], -7, dtype=out[0]))
    mod.launch(kernel, grid, block, [*bufs, d, *extra])
    return dev.to_host(d).view(np.uint8)


@pytest.mark.parametrize("kernel", sorted(CASES))
def test_nvcc_tensor_kernels_bit_identical(kernel):
    rng = np.random.default_rng(sum(map(ord, kernel)))
    makers, out = CASES[kernel]
    inputs = [f(rng) for f in makers]
    text = TENSOR.read_text()
    np.testing.assert_array_equal(_launch("compiled", text, kernel, inputs, out),
                                  _launch("numpy", text, kernel, inputs, out))


@pytest.mark.parametrize("kernel", sorted(COMPILED))
def test_which_wmma_forms_compile(kernel):
    k = load_ptx(TENSOR.read_text(), device=Device(capacity=1 << 20)).kernel(kernel)
    tb = CompiledKernel(k).tables
    wmma = [i for i, fi in enumerate(k.prog.insts) if fi.base == "wmma"]
    hosted = {i for i, _ in tb["host"]}
    compiled = set(tb["fallback"])
    assert compiled | (hosted & set(wmma)) == set(wmma)
    mma = {i for i in wmma if k.prog.insts[i].mods[0] == "mma"}
    if COMPILED[kernel] == "all":
        assert compiled == set(wmma)
    else:
        assert compiled == set(wmma) - mma and mma <= hosted


def _shared_kernel(acc: str) -> str:
    """Per warp: C (global, row) -> D fragment stored to shared with a register stride -> loaded back
    column-major -> D = A B + C -> stored to global column-major with an immediate stride."""
    nc = 8 if acc == "f32" else 4
    rc = "%f" if acc == "f32" else "%h"
    a = "{" + ", ".join(f"%r{10 + i}" for i in range(8)) + "}"
    b = "{" + ", ".join(f"%r{20 + i}" for i in range(8)) + "}"
    c = "{" + ", ".join(f"{rc}{i}" for i in range(nc)) + "}"
    c2 = "{" + ", ".join(f"{rc}{10 + i}" for i in range(nc)) + "}"
    d = "{" + ", ".join(f"{rc}{20 + i}" for i in range(nc)) + "}"
    esz = 4 if acc == "f32" else 2
    return f""".version 8.0
.target sm_75
.address_size 64
.visible .entry ws(.param .u64 pa, .param .u64 pb, .param .u64 pc, .param .u64 pd)
{{
  .reg .b32 %r<40>;
  .reg .f32 %f<40>;
  .reg .b32 %h<40>;
  .reg .b64 %rd<12>;
  .shared .align 16 .b8 tile[{4 * 16 * 24 * esz}];
  mov.u32 %r1, %tid.x;
  shr.u32 %r2, %r1, 5;
  mov.u32 %r3, %ctaid.x;
  shl.b32 %r4, %r3, 2;
  add.u32 %r4, %r4, %r2;
  mul.wide.u32 %rd1, %r4, 512;
  mul.wide.u32 %rd2, %r4, {256 * esz};
  ld.param.u64 %rd3, [pa];
  add.s64 %rd3, %rd3, %rd1;
  ld.param.u64 %rd4, [pb];
  add.s64 %rd4, %rd4, %rd1;
  ld.param.u64 %rd5, [pc];
  add.s64 %rd5, %rd5, %rd2;
  ld.param.u64 %rd6, [pd];
  add.s64 %rd6, %rd6, %rd2;
  mov.u32 %r5, tile;
  mad.lo.u32 %r5, %r2, {16 * 24 * esz}, %r5;
  mov.u32 %r6, 24;
  wmma.load.a.sync.aligned.row.m16n16k16.global.f16 {a}, [%rd3], 16;
  wmma.load.b.sync.aligned.col.m16n16k16.global.f16 {b}, [%rd4], 16;
  wmma.load.c.sync.aligned.row.m16n16k16.global.{acc} {c}, [%rd5], 16;
  wmma.store.d.sync.aligned.row.m16n16k16.shared.{acc} [%r5], {c}, %r6;
  bar.sync 0;
  wmma.load.c.sync.aligned.col.m16n16k16.shared.{acc} {c2}, [%r5], %r6;
  wmma.mma.sync.aligned.row.col.m16n16k16.{acc}.{acc} {d}, {a}, {b}, {c2};
  wmma.store.d.sync.aligned.col.m16n16k16.global.{acc} [%rd6], {d}, 16;
  ret;
}}
"""


@pytest.mark.parametrize("acc", ["f32", "f16"])
def test_fragments_through_shared_memory_in_both_layouts(acc):
    rng = np.random.default_rng(3)
    tiles = 8                                           # 2 CTAs of 4 warps
    dt = np.float32 if acc == "f32" else np.float16
    A, B = _halves(rng, (tiles, 16, 16)), _halves(rng, (tiles, 16, 16))
    Cm = rng.uniform(-4, 4, (tiles, 16, 16)).astype(dt)
    text = _shared_kernel(acc)
    k = load_ptx(text, device=Device(capacity=1 << 20)).kernel("ws")
    tb = CompiledKernel(k).tables
    assert not tb["host"] and len(tb["fallback"]) == 7
    got = [_launch(e, text, "ws", [A, B, Cm], (dt, (tiles, 16, 16)), grid=2, block=128)
           for e in ("compiled", "numpy")]
    np.testing.assert_array_equal(got[0], got[1])
    # the shared round trip transposes C (stored row-major, read back column-major); D is stored
    # column-major, so what lands in memory is (A B^T + C^T)^T per tile (B was loaded column-major)
    D = got[0].view(dt).reshape(tiles, 16, 16).astype(np.float64)
    want = np.swapaxes(A.astype(np.float64) @ np.swapaxes(B.astype(np.float64), 1, 2)
                       + np.swapaxes(Cm.astype(np.float64), 1, 2), 1, 2)
    tol = dict(rtol=2e-3, atol=1e-2) if acc == "f16" else dict(rtol=1e-6, atol=1e-5)   # D's rounding
    np.testing.assert_allclose(D, want, **tol)


def test_f16_to_f64_matches_numpy_on_every_bit_pattern():
    bits = np.arange(1 << 16, dtype=np.int64)
    got = np.array([half_to_f64(int(b)) for b in bits])
    want = bits.astype(np.uint16).view(np.float16).astype(np.float64)
    nan = np.isnan(want)
    assert (np.isnan(got) == nan).all()
    np.testing.assert_array_equal(got[~nan].view(np.uint64), want[~nan].view(np.uint64))   # signed zeros too


def _numpy_half(x: float) -> int:
    with np.errstate(over="ignore"):
        h = int(np.float64(x).astype(np.float16).view(np.uint16))
    return 0x7FFF if x != x else h


BOUNDARIES = [0.0, -0.0, 2.0**-25, 2.0**-25 * 1.5, 2.0**-24, 2.0**-24 * 1.5, 2.0**-24 * 2.5, 2.0**-14,
              2.0**-14 * (1 - 2.0**-12), 2.0**-14 - 2.0**-25, 1.0 + 2.0**-11, 1.0 + 3 * 2.0**-11, 65504.0,
              65519.99, 65520.0, 65536.0, 1e300, np.inf, -np.inf, np.nan, 1e-300, -5e-324]


@pytest.mark.parametrize("x", BOUNDARIES + [-b for b in BOUNDARIES[2:]])
def test_f64_to_f16_at_rounding_boundaries(x):
    assert f64_to_half(x) == _numpy_half(x)


@settings(max_examples=300, deadline=None)
@given(st.floats(allow_nan=False, width=64) | st.floats(min_value=-70000, max_value=70000)
       | st.floats(min_value=-1e-4, max_value=1e-4))
def test_f64_to_f16_matches_numpy(x):
    assert f64_to_half(x) == _numpy_half(x)


HALF_CVT = ["cvt.rn.f16.f32", "cvt.rn.ftz.f16.f32", "cvt.rn.sat.f16.f32", "cvt.f32.f16", "cvt.sat.f32.f16",
            "cvt.ftz.f32.f16"]


def _f32_inputs() -> np.ndarray:
    rng = np.random.default_rng(11)
    edges = np.array([0.0, -0.0, 1.0, -1.0, 0.99951171875, 1.0004883, 65504.0, 65519.99, 65520.0, -65520.0,
                      2.0**-24, 2.0**-25, 2.0**-25 * 1.0000001, 2.0**-14, 1e-40, -1e-45, np.inf, -np.inf,
                      np.nan], dtype=np.float32)
    odd_nans = np.array([0x7F800001, 0xFFC00000, 0x7FA00000, 0x7F802000], dtype=np.uint32).view(np.float32)
    spread = rng.standard_normal(2000).astype(np.float32) * np.float32(2.0) ** rng.integers(-30, 20, 2000)
    bits = rng.integers(0, 2**32, 2000, dtype=np.uint64).astype(np.uint32).view(np.float32)
    return np.concatenate([edges, odd_nans, spread.astype(np.float32), bits])


@pytest.mark.parametrize("form", HALF_CVT)
def test_half_conversions_compile_and_match_the_reference(form):
    import oprunner

    to_half = form.endswith("f16.f32")
    src = ("f32", _f32_inputs()) if to_half else ("u16", np.arange(1 << 16, dtype=np.uint16))
    instr = f"{form} %d0, %a0"
    out = "u16" if to_half else "f32"
    results = []
    for engine in ("numpy", "compiled"):
        _, mod, _ = oprunner._module(instr, (src[0],), (out,))
        mod.engine = engine
        if engine == "compiled":
            assert not mod.compiled(mod.kernel("k")).tables["host"]          # no host step left
        chunks = [oprunner.run(instr, [(src[0], src[1][j:j + 1024])], [out])[0]
                  for j in range(0, len(src[1]), 1024)]                  # the runner's launch limit
        results.append(np.concatenate(chunks))
    np.testing.assert_array_equal(results[0].view(np.uint8), results[1].view(np.uint8))
    if to_half:                  # what the GPU writes for a NaN: the canonical half NaN, whatever its payload
        assert (results[1][np.isnan(src[1])] == (0 if "sat" in form else 0x7FFF)).all()


ALIASED = """.version 8.0
.target sm_75
.address_size 64
.visible .entry al(.param .u64 out)
{
  .reg .b32 %r<40>;
  .reg .b64 %rd<4>;
  .shared .align 16 .b8 tile[1024];
  mov.u32 %r1, %tid.x;
  shl.b32 %r2, %r1, 2;
  mul.lo.u32 %r3, %r1, 65537;
  st.shared.u32 [%r2], %r3;
  bar.sync 0;
  mov.u32 %r10, 0;
  wmma.load.a.sync.aligned.row.m16n16k16.shared.f16 {%r10, %r11, %r12, %r13, %r14, %r15, %r16, %r17},
      [%r10], 16;
  ld.param.u64 %rd1, [out];
  mul.wide.u32 %rd2, %r1, 32;
  add.s64 %rd1, %rd1, %rd2;
  st.global.v4.u32 [%rd1], {%r10, %r11, %r12, %r13};
  st.global.v4.u32 [%rd1+16], {%r14, %r15, %r16, %r17};
  ret;
}
"""


def test_a_load_into_its_own_address_register_is_left_to_the_reference():
    k = load_ptx(ALIASED, device=Device(capacity=1 << 20)).kernel("al")
    tb = CompiledKernel(k).tables
    load = next(i for i, fi in enumerate(k.prog.insts) if fi.base == "wmma")
    assert load in {i for i, _ in tb["host"]} and not tb["fallback"]
    got = []
    for engine in ("compiled", "numpy"):
        dev = Device(capacity=1 << 20)
        mod = load_ptx(ALIASED, device=dev)
        mod.engine = engine
        out = dev.to_device(np.zeros((32, 8), np.uint32))
        mod.launch("al", 1, 32, [out])
        got.append(dev.to_host(out))
    np.testing.assert_array_equal(got[0], got[1])
    # lane l holds halves 8l..8l+7 of the tile (four words: only words 0..31 were written), then the
    # same four again
    words = np.zeros(128, np.uint32)
    words[:32] = np.arange(32) * 65537
    want = words.reshape(32, 4)
    np.testing.assert_array_equal(got[0], np.concatenate([want, want], axis=1))


@pytest.mark.parametrize("engine", ["numpy", "compiled"])
def test_a_half_written_to_a_32_bit_register_is_its_bits(engine):
    """Registers hold bits: cvt.rn.f16.f32 into a .b32 register leaves the half's 16 bits,
    zero-extended (the reference used to convert the value: 1.5 became 1)."""
    import oprunner

    x = np.array([1.5, -2.25, 65504.0, 1e6, np.nan], np.float32)
    _, mod, _ = oprunner._module("cvt.rn.f16.f32 %d0, %a0", ("f32",), ("u32",))
    mod.engine = engine
    got = oprunner.run("cvt.rn.f16.f32 %d0, %a0", [("f32", x)], ["u32"])[0]
    assert [int(v) for v in got] == [0x3E00, 0xC080, 0x7BFF, 0x7C00, 0x7FFF]
