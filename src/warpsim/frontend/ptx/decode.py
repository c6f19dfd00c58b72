"""Compile each flat PTX instruction into a numpy closure plus its IR classification (unit, latency).

One builder per base opcode; `decode_program` raises InputError naming the kernel, line and
instruction for any form the emulator does not implement.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from warpsim.errors import InputError
from warpsim.frontend.ptx import sem_float as F
from warpsim.frontend.ptx import sem_int as I
from warpsim.frontend.ptx.checks import PtxCheckError, check_inst, describe
from warpsim.frontend.ptx.decode_half import HALF_TYPES, b_half_arith, b_half_cvt, b_half_sfu
from warpsim.frontend.ptx.machine import CTL_BRANCH, CTL_EXIT, CTL_NORMAL, CTL_TRAP
from warpsim.frontend.ptx.operands import DecodeError, reader, reg_ids, type_of, writer
from warpsim.frontend.ptx.program import FlatInst, Program
from warpsim.frontend.ptx.types import NP, UINT, is_float, is_signed, nbytes
from warpsim.ir.kinds import InstKind, LatClass, MemSpace, Unit


@dataclass
class Op:
    """A decoded instruction: what to run, how control flow treats it, and its IR record fields."""

    fn: Callable | None
    ctl: int = CTL_NORMAL
    guard: int = -1
    guard_neg: bool = False
    target: int = -1
    kind: int = InstKind.ALU
    unit: int = Unit.INT
    lat: int = LatClass.PTX_INT_ADD
    flags: int = 0
    space: int = MemSpace.NONE
    width: int = 0
    dst: tuple[int, ...] = ()
    src: tuple[int, ...] = ()
    mem: str = ""          # 'ld', 'st', 'atom' (profile counters)


_CLS = {"add": 0, "max": 1, "mul": 2, "mad": 3, "div": 4}


def alu_class(cls: str, t: str) -> tuple[int, int]:
    """(Unit, LatClass) of an arithmetic op of class add/max/mul/mad/div on type t (PTX-mode tables)."""
    i = _CLS[cls]
    if t == "f64":
        return Unit.DP, LatClass.PTX_DP_ADD + i
    if is_float(t) or t in ("f16x2",):
        if cls == "div":
            return Unit.SFU, LatClass.PTX_FP_DIV
        return Unit.SP, LatClass.PTX_FP_ADD + i
    if cls == "div":
        return Unit.SFU, LatClass.PTX_INT_DIV
    return Unit.INT, LatClass.PTX_INT_ADD + i


class Ctx:
    def __init__(self, prog: Program) -> None:
        self.prog = prog
        self.rt = prog.reg_types

    def get(self, ref, t):
        return reader(ref, t, self.rt)


def _put1(d, f):
    w = writer(d)
    if w is None:
        return lambda b, m: None
    return lambda b, m: b.put(w, f(b), m)


def _one_type(fi: FlatInst) -> str:
    ts = type_of(fi.mods)
    if not ts:
        raise DecodeError("missing operand type")
    return ts[-1]


def _rnd(mods, default="rn"):
    for r in ("rn", "rz", "rm", "rp"):
        if r in mods:
            return r
    return default


# --- arithmetic ------------------------------------------------------------------------------------

def b_arith(fi: FlatInst, c: Ctx) -> Op:
    base, mods = fi.base, fi.mods
    t = _one_type(fi)
    if t in HALF_TYPES:
        return b_half_arith(fi, c, t)
    if "cc" in mods:
        from warpsim.frontend.ptx.decode_ext import b_carry
        return b_carry(fi, c)
    d, ops = fi.ops[0], fi.ops[1:]
    if is_float(t):
        ftz, sat, rnd = "ftz" in mods, "sat" in mods, _rnd(mods)
        ra = [c.get(o, t) for o in ops]
        if base in ("add", "sub", "mul"):
            f = lambda b, op=base: F.binop(op, t, ra[0](b), ra[1](b), rnd, ftz, sat)  # noqa: E731
            unit, lat = alu_class("mul" if base == "mul" else "add", t)
        elif base in ("fma", "mad"):
            f = lambda b: F.fma(t, ra[0](b), ra[1](b), ra[2](b), rnd, ftz, sat)  # noqa: E731
            unit, lat = alu_class("mad", t)
        elif base == "div":
            approx = "approx" in mods or "full" in mods
            f = lambda b: F.div(t, ra[0](b), ra[1](b), rnd, ftz, approx)  # noqa: E731
            unit, lat = alu_class("div", t)
        elif base in ("min", "max"):
            nanp = "NaN" in mods
            f = lambda b: F.minmax(base, t, ra[0](b), ra[1](b), ftz, nanp)  # noqa: E731
            unit, lat = alu_class("max", t)
        elif base in ("neg", "abs"):
            f = lambda b: F.unary(base, t, ra[0](b), rnd, ftz, sat)  # noqa: E731
            unit, lat = alu_class("add", t)
        elif base == "copysign":
            f = lambda b: F.copysign(t, ra[0](b), ra[1](b))  # noqa: E731
            unit, lat = alu_class("add", t)
        else:
            raise DecodeError(f"{base} is not defined on .{t}")
        return Op(_put1(d, f), unit=unit, lat=lat)
    ra = [c.get(o, t) for o in ops]
    sat = "sat" in mods
    if base in ("add", "sub"):
        fn = I.add if base == "add" else I.sub
        f = lambda b: fn(t, ra[0](b), ra[1](b), sat)  # noqa: E731
        cls = "add"
    elif base == "mul":
        mode = "wide" if "wide" in mods else "hi" if "hi" in mods else "lo"
        f = lambda b: I.mul(t, ra[0](b), ra[1](b), mode)  # noqa: E731
        cls = "mul"
    elif base == "mad":
        mode = "wide" if "wide" in mods else "hi" if "hi" in mods else "lo"
        if mode == "wide":
            wt = ("s" if is_signed(t) else "u") + str(nbytes(t) * 16)
            rc = c.get(ops[2], wt)
        else:
            rc = ra[2]
        if sat:
            f = lambda b: I.add("s32", I.mul(t, ra[0](b), ra[1](b), mode), rc(b), True)  # noqa: E731
        else:
            f = lambda b: I.mul(t, ra[0](b), ra[1](b), mode) + rc(b)  # noqa: E731
        cls = "mad"
    elif base in ("mul24", "mad24"):
        hi = "hi" in mods
        if base == "mul24":
            f = lambda b: I.mul24(t, ra[0](b), ra[1](b), hi)  # noqa: E731
        else:
            f = lambda b: I.mul24(t, ra[0](b), ra[1](b), hi) + ra[2](b)  # noqa: E731
        cls = "mul" if base == "mul24" else "mad"
    elif base == "div":
        f = lambda b: I.div(t, ra[0](b), ra[1](b))  # noqa: E731
        cls = "div"
    elif base == "rem":
        f = lambda b: I.rem(t, ra[0](b), ra[1](b))  # noqa: E731
        cls = "div"
    elif base in ("min", "max"):
        fn = np.minimum if base == "min" else np.maximum
        f = lambda b: fn(ra[0](b), ra[1](b))  # noqa: E731
        cls = "max"
    elif base == "abs":
        f = lambda b: np.abs(ra[0](b))  # noqa: E731
        cls = "add"
    elif base == "neg":
        f = lambda b: -ra[0](b)  # noqa: E731
        cls = "add"
    elif base == "sad":
        def f(b):
            x, y = ra[0](b), ra[1](b)
            return np.where(x > y, x - y, y - x) + ra[2](b)
        cls = "add"
    else:
        raise DecodeError(f"{base} is not defined on .{t}")
    unit, lat = alu_class(cls, t)
    return Op(_put1(d, f), unit=unit, lat=lat)


def b_logic(fi: FlatInst, c: Ctx) -> Op:
    base = fi.base
    t = _one_type(fi)
    d, ops = fi.ops[0], fi.ops[1:]
    ra = [c.get(o, t) for o in ops]
    if t == "pred":
        fns = {"and": np.logical_and, "or": np.logical_or, "xor": np.logical_xor}
        if base == "not":
            f = lambda b: ~ra[0](b)  # noqa: E731
        elif base in fns:
            fn = fns[base]
            f = lambda b: fn(ra[0](b), ra[1](b))  # noqa: E731
        else:
            raise DecodeError(f"{base}.pred is not supported")
        return Op(_put1(d, f))
    if base == "not":
        f = lambda b: ~ra[0](b)  # noqa: E731
    elif base == "cnot":
        f = lambda b: (ra[0](b) == 0).astype(NP[t])  # noqa: E731
    elif base == "lop3":
        lut = int(fi.ops[4].value)
        f = lambda b: I.lop3(ra[0](b), ra[1](b), ra[2](b), lut)  # noqa: E731
    else:
        fn = {"and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor}[base]
        f = lambda b: fn(ra[0](b), ra[1](b))  # noqa: E731
    return Op(_put1(d, f))


def b_shift(fi: FlatInst, c: Ctx) -> Op:
    t = _one_type(fi)
    d, a, s = fi.ops
    ra, rs = c.get(a, t), c.get(s, "u32")
    fn = I.shl if fi.base == "shl" else I.shr
    return Op(_put1(d, lambda b: fn(t, ra(b), rs(b))))


def b_bits(fi: FlatInst, c: Ctx) -> Op:
    base = fi.base
    t = _one_type(fi)
    d, ops = fi.ops[0], fi.ops[1:]
    if base in ("popc", "clz", "brev"):
        ra = c.get(ops[0], t)
        fn = {"popc": I.popc, "clz": I.clz, "brev": I.brev}[base]
        f = lambda b: fn(t, ra(b))  # noqa: E731
    elif base == "bfind":
        ra = c.get(ops[0], t)
        sa = "shiftamt" in fi.mods
        f = lambda b: I.bfind(t, ra(b), sa)  # noqa: E731
    elif base == "bfe":
        ra, rp, rl = c.get(ops[0], t), c.get(ops[1], "u32"), c.get(ops[2], "u32")
        f = lambda b: I.bfe(t, ra(b), rp(b), rl(b))  # noqa: E731
    elif base == "bfi":
        ra, rb, rp, rl = c.get(ops[0], t), c.get(ops[1], t), c.get(ops[2], "u32"), c.get(ops[3], "u32")
        f = lambda b: I.bfi(t, ra(b), rb(b), rp(b), rl(b))  # noqa: E731
    elif base == "prmt":
        mode = next((m for m in fi.mods if m in ("f4e", "b4e", "rc8", "ecl", "ecr", "rc16")), "")
        ra, rb, rc = (c.get(o, "b32") for o in ops[:3])
        f = lambda b: I.prmt(ra(b), rb(b), rc(b), mode)  # noqa: E731
    else:
        raise DecodeError(base)
    return Op(_put1(d, f))


def b_setp(fi: FlatInst, c: Ctx) -> Op:
    mods = fi.mods
    t = _one_type(fi)
    cmp = mods[0]
    boolop = next((m for m in mods[1:] if m in ("and", "or", "xor")), None)
    d = fi.ops[0]
    if t in ("f16x2", "bf16x2"):
        raise DecodeError(f"setp.{t} is not supported")
    if t == "bf16":
        from warpsim.frontend.ptx.sem_half import to_f64
        r1, r2 = c.get(fi.ops[1], "b16"), c.get(fi.ops[2], "b16")
        ra, rb = (lambda b: to_f64(r1(b), "bf16")), (lambda b: to_f64(r2(b), "bf16"))
    else:
        ra, rb = c.get(fi.ops[1], t), c.get(fi.ops[2], t)
    rc = c.get(fi.ops[3], "pred") if boolop else None
    comb = {"and": np.logical_and, "or": np.logical_or, "xor": np.logical_xor}.get(boolop)
    ftz = "ftz" in mods
    dsts = [writer(e) for e in d.elems] if d.kind == "vec" else [writer(d)]

    def fn(b, m):
        x, y = ra(b), rb(b)
        if ftz:
            from warpsim.frontend.ptx.fpmath import ftz as _ftz
            x, y = _ftz(x), _ftz(y)
        r = np.asarray(I.compare("f64" if t == "bf16" else t, cmp, x, y))
        p, q = r, ~r
        if comb is not None:
            cc = rc(b)
            p, q = comb(p, cc), comb(q, cc)
        if dsts[0] is not None:
            b.put(dsts[0], p, m)
        if len(dsts) > 1 and dsts[1] is not None:
            b.put(dsts[1], q, m)
    unit, lat = alu_class("add", t) if t != "f64" else alu_class("add", "f64")
    if is_float(t) and t != "f64":
        unit, lat = alu_class("add", t)
    return Op(fn, unit=unit, lat=lat)


def b_set(fi: FlatInst, c: Ctx) -> Op:
    ts = type_of(fi.mods)
    dt, st = ts[0], ts[1]
    cmp = fi.mods[0]
    boolop = next((m for m in fi.mods[1:] if m in ("and", "or", "xor")), None)
    ra, rb = c.get(fi.ops[1], st), c.get(fi.ops[2], st)
    rc = c.get(fi.ops[3], "pred") if boolop else None
    comb = {"and": np.logical_and, "or": np.logical_or, "xor": np.logical_xor}.get(boolop)

    def f(b):
        r = np.asarray(I.compare(st, cmp, ra(b), rb(b)))
        if comb is not None:
            r = comb(r, rc(b))
        if dt == "f32":
            return np.where(r, np.float32(1.0), np.float32(0.0))
        return np.where(r, ~NP[dt](0), NP[dt](0))
    return Op(_put1(fi.ops[0], f))


def b_selp(fi: FlatInst, c: Ctx) -> Op:
    t = _one_type(fi)
    d, a, bb, p = fi.ops
    ra, rb, rp = c.get(a, t), c.get(bb, t), c.get(p, "pred")
    return Op(_put1(d, lambda b: np.where(rp(b), ra(b), rb(b))))


def b_slct(fi: FlatInst, c: Ctx) -> Op:
    ts = type_of(fi.mods)
    t, ct = ts[0], ts[1]
    d, a, bb, cc = fi.ops
    ra, rb, rc = c.get(a, t), c.get(bb, t), c.get(cc, ct)
    return Op(_put1(d, lambda b: np.where(rc(b) >= 0, ra(b), rb(b))))


def b_testp(fi: FlatInst, c: Ctx) -> Op:
    t = _one_type(fi)
    mode = fi.mods[0]
    ra = c.get(fi.ops[1], t)
    return Op(_put1(fi.ops[0], lambda b: F.testp(t, mode, ra(b))))


def b_cvt(fi: FlatInst, c: Ctx) -> Op:
    mods = fi.mods
    ts = type_of(mods)
    if len(ts) != 2:
        raise DecodeError("cvt needs a destination and a source type")
    dt, st = ts
    if "bf16" in ts or "tf32" in ts or "f16x2" in ts or "bf16x2" in ts or "relu" in mods:
        return b_half_cvt(fi, c)
    rnd = next((m for m in mods if m in ("rn", "rz", "rm", "rp", "rni", "rzi", "rmi", "rpi")), None)
    ftz, sat = "ftz" in mods, "sat" in mods
    ra = c.get(fi.ops[1], st)
    f = lambda b: F.cvt(dt, st, ra(b), rnd, ftz, sat)  # noqa: E731
    if "f64" in ts:
        unit, lat = Unit.DP, LatClass.PTX_DP_ADD
    elif is_float(dt) or is_float(st):
        unit, lat = Unit.SP, LatClass.PTX_FP_ADD
    else:
        unit, lat = Unit.INT, LatClass.PTX_INT_ADD
    return Op(_put1(fi.ops[0], f), unit=unit, lat=lat)


def b_sfu(fi: FlatInst, c: Ctx) -> Op:
    base, mods = fi.base, fi.mods
    t = _one_type(fi)
    if t in HALF_TYPES:
        return b_half_sfu(fi, c, t)
    ra = c.get(fi.ops[1], t)
    ftz = "ftz" in mods
    rnd = "approx" if "approx" in mods else _rnd(mods)
    f = lambda b: F.unary(base, t, ra(b), rnd, ftz)  # noqa: E731
    if t == "f64":
        unit, lat = Unit.DP, LatClass.PTX_DP_DIV
    elif base == "sqrt" and rnd != "approx" or base == "rcp" and rnd != "approx":
        unit, lat = Unit.SFU, LatClass.PTX_FP_DIV
    else:
        unit, lat = Unit.SFU, LatClass.PTX_SFU
    return Op(_put1(fi.ops[0], f), unit=unit, lat=lat)


def _bits_of_reg(c: Ctx, ref) -> int:
    return nbytes(c.rt[ref.rid]) * 8


def b_mov(fi: FlatInst, c: Ctx) -> Op:
    t = _one_type(fi)
    d, a = fi.ops
    if d.kind == "vec":         # unpack: {lo, hi} <- wide
        ra = c.get(a, t)
        w = nbytes(t) * 8 // len(d.elems)
        ut = UINT[w // 8]
        outs = [writer(e) for e in d.elems]

        def fn(b, m):
            x = np.asarray(ra(b)).view(UINT[nbytes(t)])
            for k, o in enumerate(outs):
                if o is not None:
                    b.put(o, (x >> x.dtype.type(k * w)).astype(ut), m)
        return Op(fn)
    if a.kind == "vec":         # pack: wide <- {lo, hi}
        w = nbytes(t) * 8 // len(a.elems)
        et = f"b{w}"
        rs = [c.get(e, et) for e in a.elems]
        wt = UINT[nbytes(t)]

        def f(b):
            acc = wt(0)
            for k, r in enumerate(rs):
                acc = acc | (np.asarray(r(b)).astype(wt) << wt(k * w))
            return acc
        return Op(_put1(d, f))
    ra = c.get(a, t)
    return Op(_put1(d, ra))


DISPATCH: dict[str, Callable[[FlatInst, Ctx], Op]] = {}
for _n in ("add", "sub", "mul", "mad", "fma", "div", "rem", "min", "max", "abs", "neg", "sad", "mul24",
           "mad24", "copysign"):
    DISPATCH[_n] = b_arith
for _n in ("and", "or", "xor", "not", "cnot", "lop3"):
    DISPATCH[_n] = b_logic
for _n in ("shl", "shr"):
    DISPATCH[_n] = b_shift
for _n in ("popc", "clz", "brev", "bfind", "bfe", "bfi", "prmt"):
    DISPATCH[_n] = b_bits
for _n in ("sqrt", "rsqrt", "rcp", "ex2", "lg2", "sin", "cos", "tanh"):
    DISPATCH[_n] = b_sfu
DISPATCH.update(setp=b_setp, set=b_set, selp=b_selp, slct=b_slct, testp=b_testp, cvt=b_cvt, mov=b_mov)


def _decode_control(fi: FlatInst) -> Op | None:
    base = fi.base
    if base == "bra":
        tgt = fi.ops[0]
        if tgt.kind != "label":
            raise DecodeError("indirect branch")
        return Op(None, ctl=CTL_BRANCH, target=tgt.value, kind=InstKind.BRANCH, unit=Unit.BRA,
                  lat=LatClass.BRA)
    if base == "exit" or (base == "ret" and fi.is_kernel_ret):
        return Op(None, ctl=CTL_EXIT, kind=InstKind.EXIT, unit=Unit.LDST, lat=LatClass.MEM)
    if base == "call":
        return Op(lambda b, m: None, kind=InstKind.BRANCH, unit=Unit.BRA, lat=LatClass.BRA)
    if base == "trap":
        return Op(None, ctl=CTL_TRAP, kind=InstKind.EXIT, unit=Unit.LDST, lat=LatClass.MEM)
    if base in ("nop", "brkpt", "pmevent", "prefetch", "prefetchu", "discard", "applypriority",
                "createpolicy", "griddepcontrol"):
        if base == "createpolicy":
            w = writer(fi.ops[0])

            def fn(b, m):
                b.put(w, np.uint64(0), m)
        else:
            def fn(b, m):
                return None
        return Op(fn, kind=InstKind.NOP, unit=Unit.INT, lat=LatClass.INT)
    return None


_READS_FIRST_OPERAND = frozenset(("st", "red", "bar", "barrier", "membar", "fence", "bra", "call", "ret",
                                  "exit", "trap", "prefetch", "cp", "nop", "stmatrix", "sust"))


def writes_first_operand(fi: FlatInst) -> bool:
    """Whether an instruction's first operand is its destination (a store's is an address it reads)."""
    return bool(fi.ops) and fi.base not in _READS_FIRST_OPERAND and \
        not fi.opcode.startswith(("wmma.store", "mbarrier.init", "mbarrier.inval"))


def decode_inst(fi: FlatInst, c: Ctx) -> Op:
    from warpsim.frontend.ptx import decode_ext, decode_host, decode_mbar, decode_mem, decode_mma, decode_tex
    op = _decode_control(fi)
    if op is None:
        b = (DISPATCH.get(fi.base) or decode_mem.DISPATCH.get(fi.base) or decode_ext.DISPATCH.get(fi.base)
             or decode_mma.DISPATCH.get(fi.base) or decode_tex.DISPATCH.get(fi.base)
             or decode_mbar.DISPATCH.get(fi.base)
             or decode_host.DISPATCH.get(fi.opcode))
        if b is None:
            raise DecodeError(f"unsupported instruction '{fi.opcode}'")
        op = b(fi, c)
    op.guard = fi.guard
    op.guard_neg = fi.guard_neg
    if not op.dst and not op.src:
        nodst = not writes_first_operand(fi)
        dst = [] if nodst else reg_ids(fi.ops[0])
        src = [r for o in (fi.ops if nodst else fi.ops[1:]) for r in reg_ids(o)]
        if fi.guard >= 0:
            src.append(fi.guard)
        op.dst = tuple(dict.fromkeys(dst))[:4]
        op.src = tuple(dict.fromkeys(src))[:5]
    return op


def decode_program(prog: Program) -> list[Op]:
    c = Ctx(prog)
    out = []
    for fi in prog.insts:
        try:
            check_inst(fi)
            out.append(decode_inst(fi, c))
        except (DecodeError, NotImplementedError, KeyError, IndexError, ValueError, TypeError, StopIteration,
                AttributeError, OverflowError, ZeroDivisionError) as e:
            known = isinstance(e, DecodeError | NotImplementedError | PtxCheckError)
            msg = str(e) if known and str(e) else describe(e, fi)
            raise InputError(f"kernel {prog.name} (function {fi.func}): {msg}", path=prog.path, line=fi.line,
                             text=fi.text) from None
    return out
