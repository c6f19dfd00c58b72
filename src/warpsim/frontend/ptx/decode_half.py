"""Builders for half-precision forms: f16/bf16/f16x2/bf16x2 arithmetic, their conversions and tf32.

Operands are read as raw bits (.b16 for a half, .b32 for a packed pair) and handed to sem_half, so no
half value is ever mistaken for an integer or a float32.
"""

from __future__ import annotations

import numpy as np

from warpsim.frontend.ptx import sem_float as F
from warpsim.frontend.ptx import sem_half as H
from warpsim.frontend.ptx.operands import DecodeError, type_of
from warpsim.frontend.ptx.program import FlatInst
from warpsim.frontend.ptx.types import is_float
from warpsim.ir.kinds import LatClass, Unit

HALF_TYPES = ("f16", "bf16", "f16x2", "bf16x2")
_ARITH = {"add": "add", "sub": "sub", "mul": "mul", "fma": "fma", "neg": "neg", "abs": "abs", "min": "min",
          "max": "max"}
_LAT = {"add": 0, "sub": 0, "neg": 0, "abs": 0, "min": 1, "max": 1, "mul": 2, "fma": 3}


def _kind(t: str) -> str:
    return "bf16" if t.startswith("bf16") else "f16"


def b_half_arith(fi: FlatInst, c, t: str):
    """add/sub/mul/fma/neg/abs/min/max on .f16 .bf16 .f16x2 .bf16x2."""
    from warpsim.frontend.ptx.decode import Op, _put1
    base, mods = fi.base, fi.mods
    op = "fma" if base == "mad" else _ARITH.get(base)
    if op is None:
        raise DecodeError(f"{base} is not supported on .{t}")
    if any(m in mods for m in ("rz", "rm", "rp")):
        raise DecodeError(f"{base}.{t} supports only .rn rounding")
    if base == "mad" and "rn" not in mods:
        raise DecodeError(f"mad.{t} needs .rn")
    packed = t.endswith("x2")
    rt = "b32" if packed else "b16"
    ra = [c.get(o, rt) for o in fi.ops[1:]]
    kind = _kind(t)
    fn = H.packed_op if packed else H.scalar_op
    ftz, sat, relu, nanp = "ftz" in mods, "sat" in mods, "relu" in mods, "NaN" in mods
    f = lambda b: fn(op, kind, [r(b) for r in ra], ftz, sat, nanp, relu)  # noqa: E731
    lat = LatClass.PTX_FP_ADD + _LAT[op]
    return Op(_put1(fi.ops[0], f), unit=Unit.SP, lat=lat)


def b_half_sfu(fi: FlatInst, c, t: str):
    """ex2/tanh/rcp/sqrt/rsqrt/lg2/sin/cos .approx on half types: float64 evaluation, rounded once."""
    from warpsim.frontend.ptx.decode import Op, _put1
    base = fi.base
    packed = t.endswith("x2")
    kind = _kind(t)
    ra = c.get(fi.ops[1], "b32" if packed else "b16")
    ftz = "ftz" in fi.mods

    def one(bits):
        x = H.to_f64(bits, kind)
        y = F.unary(base, "f64", x, "approx", False)
        r = H.round_pair(y, 0.0, kind)
        return H.flush(r, kind) if ftz else r

    def f(b):
        v = np.asarray(ra(b))
        if not packed:
            return one(v)
        v = v.astype(np.uint32)
        lo = one(v & np.uint32(0xFFFF)).astype(np.uint32)
        hi = one(v >> np.uint32(16)).astype(np.uint32)
        return lo | (hi << np.uint32(16))
    return Op(_put1(fi.ops[0], f), unit=Unit.SFU, lat=LatClass.PTX_SFU)


def b_half_cvt(fi: FlatInst, c):
    """cvt forms involving .bf16, .tf32, .f16x2, .bf16x2 (and .relu on .f16)."""
    from warpsim.frontend.ptx.decode import Op, _put1
    mods = fi.mods
    dt, st = type_of(mods)[:2]
    rnd = next((m for m in mods if m in ("rn", "rz", "rm", "rp", "rna")), None)
    relu, sat = "relu" in mods, "sat" in mods
    d = fi.ops[0]
    unit, lat = Unit.SP, LatClass.PTX_FP_ADD
    if dt in ("f16x2", "bf16x2"):
        if st != "f32" or len(fi.ops) != 3:
            raise DecodeError(f"cvt.{dt}.{st} is not supported (only cvt.rn.{dt}.f32 d, a, b)")
        kind = _kind(dt)
        ra, rb = c.get(fi.ops[1], "f32"), c.get(fi.ops[2], "f32")

        def pack(b):
            hi = _to_half(ra(b), kind, rnd or "rn", relu, sat).astype(np.uint32)
            lo = _to_half(rb(b), kind, rnd or "rn", relu, sat).astype(np.uint32)
            return lo | (hi << np.uint32(16))
        return Op(_put1(d, pack), unit=unit, lat=lat)
    if dt == "tf32":
        if st != "f32":
            raise DecodeError(f"cvt.tf32.{st} is not supported")
        ra = c.get(fi.ops[1], "f32")
        mode = rnd or "rna"
        return Op(_put1(d, lambda b: H.to_tf32(ra(b), mode)), unit=unit, lat=lat)
    if dt in ("bf16", "f16"):
        kind = dt
        if is_float(st) or st == "bf16":
            if st in ("bf16", "f16"):
                rs = c.get(fi.ops[1], "b16")
                f = lambda b: _to_half(H.to_f64(rs(b), st), kind, rnd or "rn", relu, sat)  # noqa: E731
            else:
                rs = c.get(fi.ops[1], st)
                f = lambda b: _to_half(rs(b), kind, rnd or "rn", relu, sat)  # noqa: E731
            return Op(_put1(d, f), unit=unit, lat=lat)
        raise DecodeError(f"cvt.{dt}.{st} is not supported")
    if st == "bf16":
        rs = c.get(fi.ops[1], "b16")
        if is_float(dt):
            return Op(_put1(d, lambda b: F.cvt(dt, "f64", H.to_f64(rs(b), "bf16"), None if dt == "f64"
                                               else "rn", False, sat)), unit=unit, lat=lat)
        irnd = next((m for m in mods if m in ("rni", "rzi", "rmi", "rpi")), "rzi")
        return Op(_put1(d, lambda b: F.cvt(dt, "f64", H.to_f64(rs(b), "bf16"), irnd)), unit=unit, lat=lat)
    raise DecodeError(f"cvt.{dt}.{st} is not supported")


def _to_half(x, kind: str, rnd: str, relu: bool, sat: bool) -> np.ndarray:
    r = H.from_float(np.asarray(x, dtype=np.float64), kind, rnd)
    if sat:
        r = H.saturate(r, kind)
    if relu:
        r = H.relu_bits(r, kind)
    return r

