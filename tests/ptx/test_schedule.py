"""The PTX block scheduler (frontend/ptx/schedule.py): ptxas-like order, never a different result."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from warpsim.host import Device, load_ptx

HEAD = """.version 7.0
.target sm_70
.address_size 64
"""

SUM4 = HEAD + """
.visible .entry sum4(.param .u64 a, .param .u64 out, .param .u32 n)
{
    .reg .pred %p<2>; .reg .f32 %f<8>; .reg .b32 %r<4>; .reg .b64 %rd<6>;
    ld.param.u64 %rd1, [a];
    ld.param.u64 %rd2, [out];
    ld.param.u32 %r1, [n];
    cvta.to.global.u64 %rd3, %rd1;
    cvta.to.global.u64 %rd4, %rd2;
    mov.f32 %f1, 0f00000000;
    mov.u32 %r2, 0;
$L_loop:
    ld.global.f32 %f2, [%rd3];
    add.f32 %f1, %f1, %f2;
    ld.global.f32 %f3, [%rd3+4];
    add.f32 %f1, %f1, %f3;
    ld.global.f32 %f4, [%rd3+8];
    add.f32 %f1, %f1, %f4;
    ld.global.f32 %f5, [%rd3+12];
    add.f32 %f1, %f1, %f5;
    add.s64 %rd3, %rd3, 16;
    add.s32 %r2, %r2, 4;
    setp.lt.s32 %p1, %r2, %r1;
    @%p1 bra $L_loop;
    st.global.f32 [%rd4], %f1;
    ret;
}
"""


def _loop_body(order: str, monkeypatch) -> list[str]:
    monkeypatch.setenv("WARPSIM_PTX_ORDER", order)
    k = load_ptx(SUM4, device=Device()).kernel("sum4")
    texts = [" ".join(i.text.strip().split()[:2]) for i in k.prog.insts]
    start = next(i for i, t in enumerate(texts) if t.startswith("ld.global.f32 %f2"))
    return texts[start:start + 12]


def test_loads_rise_above_their_uses_and_the_address_update_stays_below(monkeypatch):
    body = _loop_body("scheduled", monkeypatch)
    assert [t.split()[0] for t in body[:4]] == ["ld.global.f32"] * 4
    assert [t.split()[1].rstrip(",") for t in body[:4]] == ["%f2", "%f3", "%f4", "%f5"]
    adds = [i for i, t in enumerate(body) if t.startswith("add.f32")]
    assert adds == sorted(adds) and len(adds) == 4 and adds[0] >= 4
    assert body.index("add.s64 %rd3,") > 3            # the pointer bump waits for the four loads
    assert body[-1].startswith("@%p1")                 # the branch ends the block


def test_source_order_keeps_the_ptx(monkeypatch):
    body = _loop_body("source", monkeypatch)
    assert [t.split()[0] for t in body[:4]] == ["ld.global.f32", "add.f32", "ld.global.f32", "add.f32"]


def _sum4(order: str, monkeypatch, n: int = 64):
    from warpsim.config import load_gpu
    from warpsim.timing.gpu import simulate

    monkeypatch.setenv("WARPSIM_PTX_ORDER", order)
    dev = Device()
    m = load_ptx(SUM4, device=dev)
    a = (np.arange(n, dtype=np.float32) * np.float32(0.37)).astype(np.float32)
    out = dev.alloc(1, np.float32)
    src = m.launch("sum4", 1, 1, [dev.to_device(a), out, n], mode="timing")
    res = simulate([src], load_gpu("QV100"), memory_model="fixed")
    expect = np.float32(0)
    for v in a:
        expect = np.float32(expect + v)
    return res.kernels[0].cycles, dev.to_host(out)[0], expect


def test_scheduled_loop_overlaps_the_four_load_latencies(monkeypatch):
    """Fixed model, one warp, 16 iterations: source order waits for each load (33 cycles) in turn,
    the scheduled order once per iteration, so it saves about 3 x 33 cycles per iteration."""
    src_cycles, src_val, expect = _sum4("source", monkeypatch)
    sch_cycles, sch_val, _ = _sum4("scheduled", monkeypatch)
    assert src_val == expect and sch_val == expect            # same additions in the same order
    saved_per_iter = (src_cycles - sch_cycles) / 16
    assert 2.5 * 33 <= saved_per_iter <= 3.5 * 33 + 8


def _order(body: str, order: str, monkeypatch) -> list[str]:
    """Instruction texts of kernel k (pointer %rd1/%rd2 to a global buffer, shared array sh) in order."""
    text = HEAD + """
.visible .entry k(.param .u64 a)
{
    .reg .b32 %r<6>; .reg .b64 %rd<4>; .shared .align 4 .b32 sh[32];
    ld.param.u64 %rd1, [a];
    cvta.to.global.u64 %rd2, %rd1;
""" + body + """
    ret;
}
"""
    monkeypatch.setenv("WARPSIM_PTX_ORDER", order)
    return [i.text.strip() for i in load_ptx(text, device=Device()).kernel("k").prog.insts]


def test_a_load_never_rises_above_a_store_it_may_read(monkeypatch):
    texts = _order("""
    mov.u32 %r1, 7;
    st.global.u32 [%rd2], %r1;
    add.s32 %r5, %r1, 1;
    ld.global.u32 %r2, [%rd2+4];
    ld.shared.u32 %r3, [sh];
    ld.u32 %r4, [%rd1];
    st.global.u32 [%rd2+8], %r2;
""", "scheduled", monkeypatch)
    pos = {t.split(",")[0].split("[")[0].strip(): i for i, t in enumerate(texts)}
    st0 = texts.index("st.global.u32 [%rd2], %r1")
    assert pos["ld.global.u32 %r2"] > st0          # global after global store
    assert pos["ld.u32 %r4"] > st0                 # generic may alias anything
    assert pos["add.s32 %r5"] > st0                # shares %r1 with the store


def test_a_shared_load_rises_above_a_global_store(monkeypatch):
    texts = _order("""
    mov.u32 %r1, 7;
    st.global.u32 [%rd2], %r1;
    ld.shared.u32 %r3, [sh];
    st.global.u32 [%rd2+8], %r3;
""", "scheduled", monkeypatch)
    assert texts.index("ld.shared.u32 %r3, [sh]") < texts.index("st.global.u32 [%rd2], %r1")
    assert texts.index("st.global.u32 [%rd2], %r1") < texts.index("st.global.u32 [%rd2+8], %r3")


def test_barriers_and_atomics_stay_in_place(monkeypatch):
    body = """
    mov.u32 %r1, 1;
    atom.global.add.u32 %r2, [%rd2], %r1;
    ld.global.u32 %r3, [%rd2+4];
    bar.sync 0;
    ld.shared.u32 %r4, [sh];
    st.global.u32 [%rd2+8], %r4;
"""
    src = _order(body, "source", monkeypatch)
    sch = _order(body, "scheduled", monkeypatch)
    for t in ("atom.global.add.u32 %r2, [%rd2], %r1", "bar.sync 0"):
        assert sch.index(t) == src.index(t)


def test_bad_order_is_a_clear_error(monkeypatch):
    from warpsim.errors import InputError

    monkeypatch.setenv("WARPSIM_PTX_ORDER", "fast")
    with pytest.raises(InputError, match="WARPSIM_PTX_ORDER must be one of scheduled, source"):
        load_ptx(SUM4, device=Device()).kernel("sum4")


# ---- any straight-line block: the same memory afterwards in either order ----

_REGS = 4
_OPS = st.one_of(
    st.tuples(st.just("alu"), st.sampled_from(["add.u32", "mul.lo.u32", "xor.b32", "sub.u32"]),
              st.integers(0, _REGS - 1), st.integers(0, _REGS - 1), st.integers(0, _REGS - 1)),
    st.tuples(st.just("ld"), st.sampled_from(["global", "shared", "generic"]), st.integers(0, _REGS - 1),
              st.integers(0, 3), st.just(0)),
    st.tuples(st.just("st"), st.sampled_from(["global", "shared", "generic"]), st.integers(0, _REGS - 1),
              st.integers(0, 3), st.just(0)),
)


def _block_kernel(ops) -> str:
    body = []
    for op in ops:
        if op[0] == "alu":
            _, opc, d, a, b = op
            body.append(f"{opc} %r{d}, %r{a}, %r{b};")
        else:
            kind, space, r, slot, _ = op
            sp = {"global": ".global", "shared": ".shared", "generic": ""}[space]
            base = {"global": "%rd2", "shared": "%rd3", "generic": "%rd4"}[space]
            if kind == "ld":
                body.append(f"ld{sp}.u32 %r{r}, [{base}+{4 * slot}];")
            else:
                body.append(f"st{sp}.u32 [{base}+{4 * slot}], %r{r};")
    stores = "\n    ".join(f"st.global.u32 [%rd2+{16 + 4 * i}], %r{i};" for i in range(_REGS))
    shared_out = "\n    ".join(f"ld.shared.u32 %r{i}, [%rd3+{4 * i}];\n    "
                               f"st.global.u32 [%rd2+{32 + 4 * i}], %r{i};" for i in range(4))
    return HEAD + f"""
.visible .entry blk(.param .u64 a)
{{
    .reg .b32 %r<{_REGS}>; .reg .b64 %rd<6>; .shared .align 4 .b32 sh[4];
    ld.param.u64 %rd1, [a];
    cvta.to.global.u64 %rd2, %rd1;
    mov.u64 %rd3, sh;
    cvta.shared.u64 %rd5, %rd3;
    mov.u64 %rd4, %rd1;
    {" ".join(f"mov.u32 %r{i}, {3 * i + 1};" for i in range(_REGS))}
    st.shared.u32 [%rd3], %r0;
    st.shared.u32 [%rd3+4], %r1;
    st.shared.u32 [%rd3+8], %r2;
    st.shared.u32 [%rd3+12], %r3;
    bar.sync 0;
    {chr(10).join("    " + b for b in body)}
    {stores}
    bar.sync 0;
    {shared_out}
    ret;
}}
"""


def _run_block(text: str, order: str, monkeypatch) -> np.ndarray:
    monkeypatch.setenv("WARPSIM_PTX_ORDER", order)
    dev = Device()
    m = load_ptx(text, device=dev)
    buf = dev.to_device(np.arange(12, dtype=np.uint32) * 5 + 2)
    m.launch("blk", 1, 32, [buf])
    return dev.to_host(buf)


@settings(max_examples=30, deadline=None)
@given(st.lists(_OPS, min_size=2, max_size=14))
def test_any_block_computes_the_same_in_both_orders(ops):
    with pytest.MonkeyPatch.context() as mp:
        text = _block_kernel(ops)
        a = _run_block(text, "source", mp)
        b = _run_block(text, "scheduled", mp)
    np.testing.assert_array_equal(a, b)


def test_a_mixed_block_is_reordered_and_still_computes_the_same(monkeypatch):
    ops = [("alu", "add.u32", 0, 1, 2), ("ld", "global", 3, 1, 0), ("alu", "mul.lo.u32", 1, 3, 3),
           ("st", "generic", 1, 1, 0), ("ld", "generic", 2, 1, 0), ("ld", "shared", 0, 2, 0),
           ("alu", "xor.b32", 3, 2, 0)]
    text = _block_kernel(ops)
    monkeypatch.setenv("WARPSIM_PTX_ORDER", "source")
    src = [i.text for i in load_ptx(text, device=Device()).kernel("blk").prog.insts]
    monkeypatch.setenv("WARPSIM_PTX_ORDER", "scheduled")
    sch = [i.text for i in load_ptx(text, device=Device()).kernel("blk").prog.insts]
    assert sch != src and sorted(sch) == sorted(src)
    np.testing.assert_array_equal(_run_block(text, "source", monkeypatch),
                                  _run_block(text, "scheduled", monkeypatch))
