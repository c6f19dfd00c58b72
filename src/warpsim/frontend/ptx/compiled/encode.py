"""Translate a decoded kernel into the compiled engine's tables, or say why it cannot be.

The numpy emulator (`machine.py`, `decode*.py`) is the reference: every form encoded here must
execute bit-identically in the compiled engine (tests/ptx/test_compiled_*.py check that). A form
not listed here makes `encode` raise `NotCompiled`; the launch then runs on the reference emulator.
"""

from __future__ import annotations

import numpy as np

from warpsim.frontend.ptx.clocks import CLOCK_SREGS
from warpsim.frontend.ptx.compiled import codes as C
from warpsim.frontend.ptx.compiled.encode_mma import Unsupported, encode_wmma
from warpsim.frontend.ptx.decode_mem import _resolve, _vec
from warpsim.frontend.ptx.machine import CTL_BRANCH, CTL_EXIT, CTL_TRAP
from warpsim.frontend.ptx.memory import LOCAL_BASE, SHMEM_BASE
from warpsim.frontend.ptx.operands import reader, type_of
from warpsim.frontend.ptx.types import is_float, is_signed, nbytes, storage
from warpsim.ir.kinds import MemSpace


class NotCompiled(Exception):
    """A kernel uses a form the compiled engine does not translate (the message says which)."""


_CMP = {"eq": C.CMP_EQ, "ne": C.CMP_NE, "lt": C.CMP_LT, "le": C.CMP_LE, "gt": C.CMP_GT, "ge": C.CMP_GE,
        "lo": C.CMP_LT, "ls": C.CMP_LE, "hi": C.CMP_GT, "hs": C.CMP_GE, "equ": C.CMP_EQU,
        "neu": C.CMP_NEU, "ltu": C.CMP_LTU, "leu": C.CMP_LEU, "gtu": C.CMP_GTU, "geu": C.CMP_GEU,
        "num": C.CMP_NUM, "nan": C.CMP_NAN}
_ATOM = {"add": C.AT_ADD, "min": C.AT_MIN, "max": C.AT_MAX, "exch": C.AT_EXCH, "cas": C.AT_CAS,
         "and": C.AT_AND, "or": C.AT_OR, "xor": C.AT_XOR, "inc": C.AT_INC, "dec": C.AT_DEC}
_FLOAT_BIN = {"add": C.OP_FADD, "sub": C.OP_FSUB, "mul": C.OP_FMUL, "div": C.OP_FDIV, "min": C.OP_FMIN,
              "max": C.OP_FMAX}
_FLOAT_UN = {"neg": C.OP_FNEG, "abs": C.OP_FABS, "sqrt": C.OP_FSQRT, "rcp": C.OP_FRCP,
             "rsqrt": C.OP_FRSQRT, "ex2": C.OP_FEX2, "lg2": C.OP_FLG2, "sin": C.OP_FSIN, "cos": C.OP_FCOS}
_INT_BIN = {"add": C.OP_ADD, "sub": C.OP_SUB, "min": C.OP_MIN, "max": C.OP_MAX, "div": C.OP_DIV,
            "rem": C.OP_REM, "and": C.OP_AND, "or": C.OP_OR, "xor": C.OP_XOR, "shl": C.OP_SHL,
            "shr": C.OP_SHR}


def tcode(t: str) -> int:
    if t == "pred":
        return C.PRED | 1
    if t in ("f16", "bf16", "f16x2", "bf16x2", "tf32"):
        raise NotCompiled(f".{t} values")
    return nbytes(t) | (C.SIGNED if is_signed(t) else 0) | (C.FLOAT if is_float(t) else 0)


_ALLOCATES = ("malloc", "free")


class Encoder:
    def __init__(self, kernel, host_clocks: bool = False) -> None:
        self.k = kernel
        self.host_clocks = host_clocks
        prog = kernel.prog
        self.rt = prog.reg_types
        n = len(kernel.ops)
        self.P = np.zeros((max(n, 1), C.P_COLS), dtype=np.int64)
        self.D = np.full((max(n, 1), 4), -1, dtype=np.int64)
        self.DB = np.zeros((max(n, 1), 4), dtype=np.int64)
        self.O = np.zeros((max(n, 1), 4, 4), dtype=np.int64)
        self.OF = np.zeros((max(n, 1), 4), dtype=np.float64)
        self.F = np.zeros((max(n, 1), C.F_COLS), dtype=np.int64)     # wmma fragments (encode_mma)
        self.hosted: list[tuple[int, str]] = []     # (instruction, why it has no compiled form)

    # --- operands ---------------------------------------------------------------------------------
    def src(self, i: int, j: int, ref, t: str) -> None:
        o = self.O[i, j]
        o[3] = tcode(t)
        k = ref.kind
        if k == "reg":
            rt = self.rt[ref.rid]
            if (t == "pred") != (rt == "pred"):
                if rt == "pred":           # a predicate read as a number: 0 or 1
                    o[0], o[1], o[2] = C.K_REG, ref.rid, 1
                    return
                raise NotCompiled("non-predicate register read as a predicate")
            if is_float(t) and rt == "pred":
                raise NotCompiled("predicate read as a float")
            if ref.neg:
                if t != "pred":
                    raise NotCompiled("negated non-predicate operand")
                o[3] = C.PRED | 2        # read negated
            if is_float(t) and nbytes(rt) < nbytes(t):
                raise NotCompiled("narrow register read as a wide float")
            o[0], o[1], o[2] = C.K_REG, ref.rid, nbytes(rt)
            return
        if k in ("imm", "fimm", "symaddr"):
            v = reader(ref, t, self.rt)(None)
            o[0] = C.K_IMM
            if t == "pred":
                o[1] = int(bool(v))
            elif is_float(t):
                self.OF[i, j] = float(v)
                o[1] = _normalized(int(np.asarray(v).view(np.uint64 if nbytes(t) == 8 else np.uint32)), t)
            else:
                o[1] = _normalized(int(v), t)
            return
        if k == "sreg":
            if ref.name in CLOCK_SREGS and self.host_clocks:    # timed clock reads (ptx/clocks.py)
                raise NotCompiled("clock read")
            code = C.SREG_CODES.get(ref.name)
            if code is None:
                raise NotCompiled(f"special register {ref.name}")
            if is_float(t):
                raise NotCompiled("special register read as a float")
            o[0], o[1] = C.K_SREG, code
            return
        raise NotCompiled(f"operand of kind {k}")

    def dst(self, i: int, j: int, ref, t: str | None = None) -> None:
        if ref.kind == "sink":
            return
        if ref.kind != "reg":
            raise NotCompiled("destination is not a register")
        rt = self.rt[ref.rid]
        if t is not None and is_float(t) and nbytes(rt) != nbytes(t):
            raise NotCompiled("float result written to a register of another size")
        if t is not None and (t == "pred") != (rt == "pred"):
            raise NotCompiled("predicate written to a value register (or the reverse)")
        self.D[i, j] = ref.rid
        self.DB[i, j] = 1 if rt == "pred" else np.dtype(storage(rt)).itemsize

    # --- instructions --------------------------------------------------------------------------
    def encode(self) -> dict:
        k = self.k
        for i, (fi, op) in enumerate(zip(k.prog.insts, k.ops, strict=True)):
            row = self.P[i]
            row[C.GUARD] = op.guard
            row[C.GNEG] = int(op.guard_neg)
            row[C.TARGET] = op.target
            row[C.IPDOM] = k.ipdom[i]
            row[C.BLOCK] = k.block_of[i]
            row[C.LEADER] = int(k.is_leader[i])
            row[C.ISMEM] = int(k.is_mem[i])
            row[C.SPACE] = op.space
            row[C.MEMKIND] = {"ld": C.MK_LD, "st": C.MK_ST, "atom": C.MK_ATOM}.get(op.mem, C.MK_NONE)
            try:
                self.one(i, fi, op)
            except NotCompiled as e:
                reason = f"line {fi.line}: {fi.text.strip() or fi.opcode}: {e}"
                if op.fn is None or fi.base in _ALLOCATES or "%envreg" in fi.text:
                    # the compiled batch holds the device heap's array and size from its start:
                    # a form that allocates mid-kernel (malloc, the grid-sync workspace) keeps the
                    # whole kernel on the reference
                    raise NotCompiled(reason) from None
                self.host(i, reason)
        wmma = [i for i in range(len(k.ops)) if self.P[i, C.OPC] == C.OP_WMMA]
        return {"P": self.P, "D": self.D, "DB": self.DB, "O": self.O, "OF": self.OF, "F": self.F,
                "host": self.hosted, "fallback": wmma}

    def host(self, i: int, reason: str) -> None:
        """Instruction i runs on the reference emulator (host_steps.py): no operands of ours."""
        self.P[i, C.OPC] = C.OP_HOST
        for col in (C.TY, C.AUX, C.AUX2, C.NVEC, C.ARB, C.AOFF, C.NBT, C.TY2):
            self.P[i, col] = 0
        self.P[i, C.ARID] = -1
        self.D[i] = -1
        self.DB[i] = 0
        self.O[i] = 0
        self.OF[i] = 0
        self.F[i] = 0
        self.hosted.append((i, reason))

    def one(self, i: int, fi, op) -> None:
        row = self.P[i]
        base, mods = fi.base, fi.mods
        if op.ctl == CTL_BRANCH:
            row[C.OPC] = C.OP_BRA
            return
        if op.ctl == CTL_EXIT:
            row[C.OPC] = C.OP_EXIT
            return
        if op.ctl == CTL_TRAP:
            row[C.OPC] = C.OP_TRAP
            return
        if base in ("call", "nop", "membar", "fence", "prefetch", "prefetchu") or \
                (base in ("bar", "barrier") and "red" not in mods):
            row[C.OPC] = C.OP_NOP
            return
        if base == "wmma":
            try:
                return encode_wmma(self, i, fi)
            except Unsupported as e:
                raise NotCompiled(str(e)) from None
        ts = type_of(mods)
        if base in ("ld", "ldu", "st"):
            return self.mem(i, fi, op, ts[-1])
        if base in ("atom", "red"):
            return self.atom(i, fi, ts[-1])
        if base == "cvta":
            return self.cvta(i, fi, ts[-1])
        if base == "shfl":
            return self.shfl(i, fi)
        if base == "vote":
            return self.vote(i, fi)
        if base == "activemask":
            row[C.OPC] = C.OP_ACTIVEMASK
            self.dst(i, 0, fi.ops[0])
            return
        if not ts:
            raise NotCompiled("no operand type")
        t = ts[-1]
        if base == "mov":
            return self.mov(i, fi, t)
        if base == "setp":
            return self.setp(i, fi, t)
        if base == "selp":
            row[C.OPC], row[C.TY] = C.OP_SELP, tcode(t)
            self.dst(i, 0, fi.ops[0], t)
            self.src(i, 0, fi.ops[1], t)
            self.src(i, 1, fi.ops[2], t)
            self.src(i, 2, fi.ops[3], "pred")
            return
        if base == "cvt":
            return self.cvt(i, fi, ts)
        if is_float(t):
            return self.float_op(i, fi, t)
        return self.int_op(i, fi, t)

    def int_op(self, i: int, fi, t: str) -> None:
        row = self.P[i]
        base, mods = fi.base, fi.mods
        if t == "pred":
            code = {"and": C.OP_AND, "or": C.OP_OR, "xor": C.OP_XOR, "not": C.OP_NOT}.get(base)
            if code is None:
                raise NotCompiled(f"{base}.pred")
            row[C.OPC], row[C.TY] = code, tcode("pred")
            self.dst(i, 0, fi.ops[0], "pred")
            for j, o in enumerate(fi.ops[1:]):
                self.src(i, j, o, "pred")
            return
        if "sat" in mods or "cc" in mods:
            raise NotCompiled(".sat/.cc integer arithmetic")
        row[C.TY] = tcode(t)
        d, ops = fi.ops[0], fi.ops[1:]
        if base in ("mul", "mad"):
            mode = "wide" if "wide" in mods else "hi" if "hi" in mods else "lo"
            if mode == "hi" and nbytes(t) == 8:
                raise NotCompiled("64-bit mul.hi")
            row[C.OPC] = {("mul", "lo"): C.OP_MUL_LO, ("mul", "hi"): C.OP_MUL_HI,
                          ("mul", "wide"): C.OP_MUL_WIDE, ("mad", "lo"): C.OP_MAD_LO,
                          ("mad", "hi"): C.OP_MAD_HI, ("mad", "wide"): C.OP_MAD_WIDE}[(base, mode)]
            if mode == "wide" and nbytes(t) == 8:
                raise NotCompiled("64-bit .wide")
            wt = (("s" if is_signed(t) else "u") + str(nbytes(t) * 16)) if mode == "wide" else t
            row[C.TY2] = tcode(wt)
            self.dst(i, 0, d, wt)
            self.src(i, 0, ops[0], t)
            self.src(i, 1, ops[1], t)
            if base == "mad":
                self.src(i, 2, ops[2], wt)
            return
        if base in ("shl", "shr"):
            row[C.OPC] = _INT_BIN[base]
            self.dst(i, 0, d, t)
            self.src(i, 0, ops[0], t)
            self.src(i, 1, ops[1], "u32")
            return
        if base in _INT_BIN:
            row[C.OPC] = _INT_BIN[base]
        elif base in ("neg", "abs", "not", "popc", "clz", "cnot"):
            row[C.OPC] = {"neg": C.OP_NEG, "abs": C.OP_ABS, "not": C.OP_NOT, "popc": C.OP_POPC,
                          "clz": C.OP_CLZ, "cnot": C.OP_CNOT}[base]
        else:
            raise NotCompiled(f"{base}.{t}")
        rtype = "u32" if base in ("popc", "clz") else t
        self.dst(i, 0, d, rtype)
        for j, o in enumerate(ops):
            self.src(i, j, o, t)

    def float_op(self, i: int, fi, t: str) -> None:
        row = self.P[i]
        base, mods = fi.base, fi.mods
        if t == "f16":
            raise NotCompiled(".f16 arithmetic")
        rnd = next((r for r in ("rz", "rm", "rp") if r in mods), "rn")
        if rnd != "rn":
            raise NotCompiled(f"rounding mode .{rnd}")
        row[C.TY] = tcode(t)
        row[C.AUX2] = (C.F_FTZ if "ftz" in mods else 0) | (C.F_SAT if "sat" in mods else 0)
        if "NaN" in mods or "xorsign" in mods or "abs" in mods and base in ("min", "max"):
            raise NotCompiled(f"{fi.opcode}")
        if base in ("fma", "mad"):
            row[C.OPC] = C.OP_FFMA
        elif base in _FLOAT_BIN:
            row[C.OPC] = _FLOAT_BIN[base]
            if base in ("min", "max") and row[C.AUX2] & C.F_SAT:
                raise NotCompiled("min/max .sat")
        elif base in _FLOAT_UN:
            row[C.OPC] = _FLOAT_UN[base]
            approx = "approx" in mods
            if base in ("sqrt", "rcp") and approx and t == "f32":
                row[C.AUX] = 1            # computed in float64 and rounded once
            if base in ("ex2", "lg2", "sin", "cos", "rsqrt") and t == "f64":
                raise NotCompiled(f"{base}.f64")
            if base in ("sqrt",) and t == "f64" and approx:
                raise NotCompiled("sqrt.approx.f64")
            if base in ("neg", "abs", "sqrt", "rcp") and row[C.AUX2] & C.F_SAT and base in ("neg", "abs"):
                pass
        else:
            raise NotCompiled(f"{base}.{t}")
        if base == "div" and t == "f64" and rnd != "rn":
            raise NotCompiled("directed div.f64")
        self.dst(i, 0, fi.ops[0], t)
        for j, o in enumerate(fi.ops[1:]):
            self.src(i, j, o, t)

    def setp(self, i: int, fi, t: str) -> None:
        row = self.P[i]
        mods = fi.mods
        cmp = mods[0]
        if cmp not in _CMP or t in ("f16", "pred"):
            raise NotCompiled(f"setp.{cmp}.{t}")
        if not is_float(t) and cmp in ("equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan"):
            raise NotCompiled(f"setp.{cmp} on integers")
        unsigned_cmp = cmp in ("lo", "ls", "hi", "hs")
        tt = ("u" + t[1:]) if unsigned_cmp and is_signed(t) else t
        row[C.OPC], row[C.TY], row[C.AUX] = C.OP_SETP, tcode(tt), _CMP[cmp]
        boolop = next((m for m in mods[1:] if m in ("and", "or", "xor")), None)
        row[C.AUX2] = {None: 0, "and": 1, "or": 2, "xor": 3}[boolop]
        if "ftz" in mods:
            row[C.AUX2] |= 4
        d = fi.ops[0]
        dsts = d.elems if d.kind == "vec" else [d]
        for j, e in enumerate(dsts[:2]):
            self.dst(i, j, e, "pred")
        # operands read with the instruction's type; unsigned comparisons reinterpret signed bits
        self.src(i, 0, fi.ops[1], t)
        self.src(i, 1, fi.ops[2], t)
        if unsigned_cmp and is_signed(t):
            self.O[i, 0, 3] = self.O[i, 1, 3] = tcode(tt)
            for j in (0, 1):
                if self.O[i, j, 0] == C.K_IMM:
                    self.O[i, j, 1] &= (1 << (8 * nbytes(t))) - 1 if nbytes(t) < 8 else -1
        if boolop:
            self.src(i, 2, fi.ops[3], "pred")

    def mov(self, i: int, fi, t: str) -> None:
        row = self.P[i]
        d, a = fi.ops
        if d.kind == "vec" or a.kind == "vec":
            elems = d.elems if d.kind == "vec" else a.elems
            if len(elems) > 4 or t == "pred":
                raise NotCompiled("mov of a wide vector")
            w = nbytes(t) * 8 // len(elems)
            row[C.TY], row[C.AUX] = tcode(t), w
            if d.kind == "vec":
                row[C.OPC] = C.OP_UNPACK
                for j, e in enumerate(d.elems):
                    self.dst(i, j, e, f"b{w}")
                self.src(i, 0, a, t)
                if is_float(t):
                    self.O[i, 0, 3] = nbytes(t)          # read the float's bits
            else:
                row[C.OPC] = C.OP_PACK
                self.dst(i, 0, d, f"b{nbytes(t) * 8}" if not is_float(t) else t)
                if is_float(t):
                    raise NotCompiled("pack into a float")
                for j, e in enumerate(a.elems):
                    self.src(i, j, e, f"b{w}")
            return
        row[C.OPC], row[C.TY] = C.OP_MOV, tcode(t)
        self.dst(i, 0, d, t)
        self.src(i, 0, a, t)

    def cvt(self, i: int, fi, ts: list[str]) -> None:
        row = self.P[i]
        mods = fi.mods
        if len(ts) != 2:
            raise NotCompiled("cvt types")
        dt, st = ts
        rnd = next((m for m in mods if m in ("rn", "rz", "rm", "rp", "rni", "rzi", "rmi", "rpi")), None)
        ftz, sat = "ftz" in mods, "sat" in mods
        if (dt, st) in (("f16", "f32"), ("f32", "f16")) and rnd in (None, "rn"):
            row[C.OPC], row[C.AUX] = C.OP_CVT_H, int(dt == "f32")
            row[C.AUX2] = (C.F_FTZ if ftz else 0) | (C.F_SAT if sat else 0)
            td, ts_ = ("u16", "f32") if dt == "f16" else ("f32", "u16")     # a half moves as its bits
            row[C.TY], row[C.TY2] = tcode(td), tcode(ts_)
            self.dst(i, 0, fi.ops[0], td)
            self.src(i, 0, fi.ops[1], ts_)
            return
        if "f16" in ts or "bf16" in ts or "tf32" in ts or "pred" in ts:
            raise NotCompiled(f"cvt.{dt}.{st}")
        row[C.TY], row[C.TY2] = tcode(dt), tcode(st)
        if is_float(dt) and is_float(st):
            if rnd in ("rni", "rzi", "rmi", "rpi") or (rnd not in (None, "rn")):
                raise NotCompiled(f"cvt.{rnd}.{dt}.{st}")
            row[C.OPC] = C.OP_CVT_FF
            row[C.AUX2] = (C.F_FTZ if ftz else 0) | (C.F_SAT if sat else 0)
        elif is_float(st):
            if sat:
                raise NotCompiled("cvt .sat to an integer")
            row[C.OPC] = C.OP_CVT_FI
            row[C.AUX] = {"rzi": 0, None: 0, "rni": 1, "rmi": 2, "rpi": 3}.get(rnd, -1)
            if row[C.AUX] < 0:
                raise NotCompiled(f"cvt.{rnd} to an integer")
            row[C.AUX2] = C.F_FTZ if ftz else 0
        elif is_float(dt):
            if rnd not in (None, "rn") or sat or nbytes(st) == 8:
                raise NotCompiled(f"cvt.{rnd}.{dt}.{st}")
            row[C.OPC] = C.OP_CVT_IF
        else:
            if sat:
                raise NotCompiled("cvt.sat between integers")
            row[C.OPC] = C.OP_CVT_II
        self.dst(i, 0, fi.ops[0], dt)
        self.src(i, 0, fi.ops[1], st)

    def cvta(self, i: int, fi, t: str) -> None:
        row = self.P[i]
        mods = fi.mods
        sp = next((m for m in mods if m in ("global", "shared", "local", "const", "param")), None)
        if sp == "param":
            raise NotCompiled("cvta.param")
        base = {"shared": SHMEM_BASE, "local": LOCAL_BASE}.get(sp, 0)
        d, a = fi.ops
        row[C.TY] = tcode(t)
        self.dst(i, 0, d, t)
        self.src(i, 0, a, t)
        if base == 0:
            row[C.OPC] = C.OP_MOV
            return
        row[C.OPC] = C.OP_SUB if "to" in mods else C.OP_ADD
        self.O[i, 1] = (C.K_IMM, _normalized(base, t), 0, tcode(t))

    def address(self, i: int, ref) -> None:
        row = self.P[i]
        if ref.kind != "addr":
            raise NotCompiled("address operand")
        off = ref.value & 0xFFFFFFFFFFFFFFFF
        row[C.AOFF] = off - (1 << 64) if off >= 1 << 63 else off
        row[C.ARID] = ref.rid
        row[C.ARB] = nbytes(self.rt[ref.rid]) if ref.rid >= 0 else 0

    def mem(self, i: int, fi, op, t: str) -> None:
        row = self.P[i]
        if t in ("f16", "bf16", "f16x2", "bf16x2", "tf32", "b128") or t == "pred":
            raise NotCompiled(f"memory access of .{t}")
        nvec = _vec(fi)
        if nvec > 4:
            raise NotCompiled(".v8")
        is_ld = fi.base != "st"
        d = fi.ops[0] if is_ld else fi.ops[1]
        a = fi.ops[1] if is_ld else fi.ops[0]
        elems = d.elems if d.kind == "vec" else [d]
        if len(elems) != nvec:
            raise NotCompiled("vector width")
        if "param" in fi.mods and a.kind == "addr" and a.rid >= 0:
            raise NotCompiled("ld/st.param through a register")
        sp, _ = _resolve_space(fi, a, self)
        row[C.TY], row[C.NVEC], row[C.NBT] = tcode(t), nvec, nbytes(t) * nvec
        if sp == "kparam":
            if not is_ld:
                raise NotCompiled("store to a kernel parameter")
            row[C.OPC] = C.OP_LDK
            row[C.AOFF] = a.value
            for j, e in enumerate(elems):
                self.dst(i, j, e, t)
            return
        row[C.OPC] = C.OP_LD if is_ld else C.OP_ST
        row[C.SPACE] = sp
        self.address(i, a)
        row[C.AUX] = _generic_symbol_base(fi, a)
        if is_ld:
            for j, e in enumerate(elems):
                self.dst(i, j, e, t)
        else:
            for j, e in enumerate(elems):
                self.src(i, j, e, t)

    def atom(self, i: int, fi, t: str) -> None:
        row = self.P[i]
        mods = fi.mods
        tt = ("u" + t[1:]) if t.startswith("b") else t
        op = next((m for m in mods if m in _ATOM), None)
        if op is None or any(m in mods for m in ("v2", "v4", "v8")) or \
                tt in ("f16", "bf16", "f16x2", "bf16x2"):
            raise NotCompiled(fi.opcode)
        if is_float(tt) and op not in ("add", "min", "max", "exch"):
            raise NotCompiled(fi.opcode)
        if op in ("inc", "dec") and tt != "u32":
            raise NotCompiled(fi.opcode)
        red = fi.base == "red"
        ops = fi.ops if red else fi.ops[1:]
        sp, _ = _resolve_space(fi, ops[0], self)
        if sp == "kparam":
            raise NotCompiled("atomic on a kernel parameter")
        row[C.OPC], row[C.TY], row[C.AUX], row[C.SPACE] = C.OP_ATOM, tcode(tt), _ATOM[op], sp
        row[C.NVEC], row[C.NBT] = 1, nbytes(tt)
        self.address(i, ops[0])
        row[C.AUX2] = _generic_symbol_base(fi, ops[0])
        if not red:
            self.dst(i, 0, fi.ops[0], tt)
        self.src(i, 0, ops[1], tt)
        if op == "cas":
            self.src(i, 1, ops[2], tt)

    def shfl(self, i: int, fi) -> None:
        row = self.P[i]
        mode = next(m for m in fi.mods if m in ("up", "down", "bfly", "idx"))
        row[C.OPC], row[C.AUX] = C.OP_SHFL, {"up": C.SH_UP, "down": C.SH_DOWN, "bfly": C.SH_BFLY,
                                             "idx": C.SH_IDX}[mode]
        d = fi.ops[0]
        dsts = d.elems if d.kind == "vec" else [d]
        self.dst(i, 0, dsts[0], "b32")
        if len(dsts) > 1:
            self.dst(i, 1, dsts[1], "pred")
        self.src(i, 0, fi.ops[1], "b32")
        self.src(i, 1, fi.ops[2], "u32")
        self.src(i, 2, fi.ops[3], "u32")
        if len(fi.ops) > 4:                  # member mask: lanes outside it read as 0
            self.src(i, 3, fi.ops[4], "b32")

    def vote(self, i: int, fi) -> None:
        row = self.P[i]
        mode = next(m for m in fi.mods if m in ("all", "any", "uni", "ballot"))
        row[C.OPC], row[C.AUX] = C.OP_VOTE, {"all": C.VO_ALL, "any": C.VO_ANY, "uni": C.VO_UNI,
                                             "ballot": C.VO_BALLOT}[mode]
        self.dst(i, 0, fi.ops[0], "b32" if mode == "ballot" else "pred")
        self.src(i, 0, fi.ops[1], "pred")


def _normalized(v: int, t: str) -> int:
    """An integer as the engine holds a value of type t: wrapped to its width, sign-extended if signed."""
    nb = nbytes(t)
    v &= (1 << (8 * nb)) - 1
    if (is_signed(t) or nb == 8) and v >= 1 << (8 * nb - 1):
        v -= 1 << (8 * nb)
    return v


class _Ctx:
    def __init__(self, rt) -> None:
        self.rt = rt

    def get(self, ref, t):
        return reader(ref, t, self.rt)


def _resolve_space(fi, a, enc: Encoder):
    sp, _ = _resolve(fi, _Ctx(enc.rt), a)
    return sp, None


def _generic_symbol_base(fi, a) -> int:
    """A generic access through a shared/local symbol: the window base added to its offset (else 0)."""
    from warpsim.frontend.ptx.decode_mem import _space
    if a.kind == "addr" and a.rid < 0 and a.space in ("shared", "local") and _space(fi) == MemSpace.GENERIC:
        return SHMEM_BASE if a.space == "shared" else LOCAL_BASE
    return 0


def encode(kernel, host_clocks: bool = False) -> dict:
    """The kernel's tables for the compiled engine; raises NotCompiled naming the first form it lacks.
    `host_clocks`: clock reads run as host steps, so a ClockTable can answer them (a second set of
    tables, used only for runs with timed clocks: a delay loop reads the clock millions of times)."""
    return Encoder(kernel, host_clocks).encode()
