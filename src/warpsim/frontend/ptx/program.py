"""Link one entry into a flat program: calls inlined, registers numbered, symbols placed, labels resolved.

Device functions are inlined at each call site (fresh registers, `.param`/`.local` areas and labels per
site), so SIMT reconvergence and the IR see one flat instruction list; recursive functions are
inlined to a fixed depth, and deeper calls trap.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from warpsim.errors import InputError
from warpsim.frontend.ptx.ast import (
    Function,
    Instruction,
    Label,
    Module,
    Operand,
    ScopeClose,
    ScopeOpen,
    SymInit,
    VarDecl,
)
from warpsim.frontend.ptx.indirect import FUNCTION_SLOT_BYTES, emit_indirect_call

TYPE_BYTES = {"b8": 1, "u8": 1, "s8": 1, "b16": 2, "u16": 2, "s16": 2, "f16": 2, "bf16": 2,
              "b32": 4, "u32": 4, "s32": 4, "f32": 4, "f16x2": 4, "bf16x2": 4, "tf32": 4,
              "b64": 8, "u64": 8, "s64": 8, "f64": 8, "b128": 16, "pred": 1,
              "texref": 8, "samplerref": 8, "surfref": 8}
SPECIAL = {f"%{n}.{c}" for n in ("tid", "ntid", "ctaid", "nctaid") for c in "xyz"} | {
    f"%{n}" for n in ("tid", "ntid", "ctaid", "nctaid", "laneid", "warpid", "nwarpid", "smid", "nsmid",
                      "gridid", "clock", "clock64", "lanemask_eq", "lanemask_le", "lanemask_lt",
                      "lanemask_ge", "lanemask_gt", "globaltimer", "globaltimer_lo", "globaltimer_hi",
                      "total_smem_size", "dynamic_smem_size", "aggr_smem_size", "cluster_ctarank",
                      "cluster_nctarank", "is_explicit_cluster")} | {f"%envreg{i}" for i in range(32)} | {
    f"%{n}.{c}" for n in ("clusterid", "nclusterid", "cluster_ctaid", "cluster_nctaid") for c in "xyz"}
CONSTANT_SYMBOLS = {"WARP_SZ": 32}     # ptxas constants CUDA's warpSize compiles to
# sm_80+ reserved shared memory (cooperative groups keep multi-warp tile state at %reserved_smem_offset_1,
# at least 288 bytes): a CTA-private region placed after the kernel's static shared memory, 1 KB as
# CUDA reserves; _0 and _1 name its two halves
RESERVED_SMEM_BYTES = 1024
RESERVED_SMEM = {"%reserved_smem_offset_begin": 0, "%reserved_smem_offset_end": RESERVED_SMEM_BYTES,
                 "%reserved_smem_offset_cap": None, "%reserved_smem_offset_0": 0,
                 "%reserved_smem_offset_1": RESERVED_SMEM_BYTES // 2}
RUNTIME_CALLS = ("vprintf", "__assertfail", "malloc", "free", "cudaGraphSetConditional")  # decode_host
# the device runtime's launch entry points (CUDA dynamic parallelism, CDP1 and CDP2 names)
DEVICE_LAUNCH_PREFIXES = ("cudaLaunchDevice", "cudaGetParameterBuffer", "__cudaCDP")
MAX_FLAT_INSTRUCTIONS = 1 << 20     # a kernel with every call (and every indirect call's candidates) inlined
# Recursion is inlined to a fixed depth: the deepest up to MAX_RECURSION_DEPTH whose kernel stays within
# RECURSIVE_BUDGET flat instructions and the register limit (a function calling itself twice doubles
# per level); a deeper call traps
MAX_RECURSION_DEPTH = 64
RECURSIVE_BUDGET = 1 << 18


class _TooBig(Exception):
    """The kernel outgrew RECURSIVE_BUDGET at this recursion depth: link again, shallower."""


@dataclass
class Ref:
    """A resolved operand.

    kind: 'reg' (rid), 'imm' (value), 'fimm' (value = bit pattern, bits), 'sreg' (name), 'vec' (elems),
    'taddr' (texture/surface operand: elems = handle, coordinates...),
    'sink', 'label' (value = flat index), 'addr' (rid or -1, value = byte offset, space = the space the
    symbol lives in when the base is a symbol), 'symaddr' (space, value = address of a symbol),
    'func' (name).
    """

    kind: str
    rid: int = -1
    value: int = 0
    bits: int = 0
    name: str = ""
    space: str = ""
    neg: bool = False
    elems: list[Ref] = field(default_factory=list)


@dataclass
class FlatInst:
    opcode: str
    ops: list[Ref]
    guard: int = -1               # predicate register id, -1 = none
    guard_neg: bool = False
    line: int = 0
    text: str = ""
    func: str = ""                # function the instruction came from
    call_depth: int = 0
    is_kernel_ret: bool = False   # 'ret' of the entry → thread exit

    @property
    def base(self) -> str:
        return self.opcode.split(".", 1)[0]

    @property
    def mods(self) -> list[str]:
        return self.opcode.split(".")[1:]


@dataclass
class Program:
    """A kernel ready to execute: flat instructions plus the layout of every state space."""

    name: str
    insts: list[FlatInst]
    reg_names: list[str]
    reg_types: list[str]
    kparams: list[tuple[str, str, int, int]]       # (name, type, offset, size)
    kparam_bytes: int
    shared_static: int                              # bytes of static shared memory
    dyn_shared_offset: int                          # where `.extern .shared` arrays start
    local_bytes: int                                # per-thread local + call-param frame
    global_syms: dict[str, int]
    path: str | None = None
    leaders: list[int] = field(default_factory=list)
    reserved_smem: int = 0                          # of shared_static: the reserved region (RESERVED_SMEM)

    @property
    def num_regs(self) -> int:
        return len(self.reg_names)


def _align(x: int, a: int) -> int:
    return (x + a - 1) // a * a


def _decl_bytes(d: VarDecl) -> int:
    n = TYPE_BYTES[d.type] * d.vec
    return n * (d.count if d.count is not None else 1)


class _Linker:
    def __init__(self, mod: Module, entry: str, global_syms: dict[str, tuple[str, int]],
                 max_depth: int = MAX_RECURSION_DEPTH) -> None:
        self.max_depth = max_depth          # levels of one function on the call stack
        self.recursive = False
        self.mod = mod
        self.entry = entry
        self.insts: list[FlatInst] = []
        self.reg_names: list[str] = []
        self.reg_types: list[str] = []
        self.shared: dict[str, int] = {}
        self.shared_top = 0
        self.reserved_at = -1                # offset of the reserved shared region, once a kernel names it
        self.extern_shared: list[str] = []
        self.local_top = 0
        self.global_syms = global_syms      # name → (space, address) for module .global/.const
        self.kparams: dict[str, int] = {}
        self.fixups: list[tuple[int, int, str, dict[str, int], Instruction]] = []
        self.stack: list[str] = []

    def err(self, msg: str, ins: Instruction | None = None, line: int | None = None) -> InputError:
        return InputError(f"kernel {self.entry}: {msg}", path=self.mod.path,
                          line=ins.line if ins is not None else line, text=ins.text if ins else None)

    def new_reg(self, name: str, typ: str) -> int:
        self.reg_names.append(name)
        self.reg_types.append(typ)
        if len(self.reg_names) >= 32768:
            if self.recursive and self.max_depth > 1:
                raise _TooBig
            raise self.err("more than 32767 registers after inlining")
        return len(self.reg_names) - 1

    def alloc_shared(self, d: VarDecl) -> None:
        if d.extern or d.count == 0:
            self.extern_shared.append(d.name)
            return
        if d.name in self.shared:
            return
        self.shared_top = _align(self.shared_top, max(d.align, TYPE_BYTES[d.type]))
        self.shared[d.name] = self.shared_top
        self.shared_top += _decl_bytes(d)

    def reserved_offset(self, name: str) -> int:
        """The value of a %reserved_smem_offset_* register (the region is allocated on first use)."""
        if self.reserved_at < 0:
            self.shared_top = _align(self.shared_top, 16)
            self.reserved_at = self.shared_top
            self.shared_top += RESERVED_SMEM_BYTES
        rel = RESERVED_SMEM[name]
        return RESERVED_SMEM_BYTES if rel is None else self.reserved_at + rel

    def alloc_local(self, d: VarDecl) -> int:
        self.local_top = _align(self.local_top, max(d.align, TYPE_BYTES[d.type], 1))
        off = self.local_top
        self.local_top += max(_decl_bytes(d), 1)
        return off

    def link(self) -> Program:
        mod = self.mod
        for g in mod.globals:
            if g.space == "shared":
                self.alloc_shared(g)
        fn = mod.functions[self.entry]
        off = 0
        kparams = []
        for p in fn.params:
            size = _decl_bytes(p)
            off = _align(off, max(p.align, min(TYPE_BYTES[p.type], 8)))
            kparams.append((p.name, p.type, off, size))
            self.kparams[p.name] = off
            off += size
        self.emit(fn, {}, None, 0)
        dyn = _align(self.shared_top, 16)
        ext = set(self.extern_shared)

        def fix(r: Ref) -> None:
            if r.space == "shared" and r.name in ext:
                r.value += dyn
                r.name = ""
            for e in r.elems:
                fix(e)
        for ins in self.insts:
            for r in ins.ops:
                fix(r)
        for idx, tgt_line, label, labels, ins in self.fixups:
            if label not in labels:
                raise self.err(f"undefined label {label}", ins)
            self.insts[idx].ops[tgt_line] = Ref("label", value=labels[label])
        leaders = sorted({0} | {r.value for i in self.insts for r in i.ops if r.kind == "label"}
                         | {k + 1 for k, i in enumerate(self.insts) if i.base in ("bra", "exit", "ret", "brx")
                            and k + 1 < len(self.insts)})
        return Program(self.entry, self.insts, self.reg_names, self.reg_types, kparams, off,
                       self.shared_top, dyn, _align(self.local_top, 16),
                       {k: v[1] for k, v in self.global_syms.items()}, mod.path, leaders,
                       RESERVED_SMEM_BYTES if self.reserved_at >= 0 else 0)

    # --- one function body (the entry, or an inlined callee) --------------------------------------
    def emit(self, fn: Function, alias: dict[str, Ref], ret_label: str | None, depth: int) -> None:
        if fn.body is None and fn.name.startswith(DEVICE_LAUNCH_PREFIXES):
            raise self.err(f"dynamic parallelism (a kernel launching kernels: {fn.name}) is not supported by "
                           "warpsim; launch the child kernels from the host")
        if fn.body is None:
            raise self.err(f"call to {fn.name}, which has no body in this module (only the CUDA runtime "
                           f"calls {', '.join(RUNTIME_CALLS)} are provided; link with -rdc for others)")
        self.stack.append(fn.name)
        scopes: list[dict[str, Ref]] = [dict(alias)]
        labels: dict[str, int] = {}
        for st in fn.body:
            if isinstance(st, ScopeOpen):
                scopes.append({})
            elif isinstance(st, ScopeClose):
                if len(scopes) == 1:
                    raise self.err("unbalanced '}'", line=st.line)
                scopes.pop()
            elif isinstance(st, Label):
                labels[st.name] = len(self.insts)
            elif isinstance(st, VarDecl):
                self.declare(st, scopes[-1])
            else:
                self.emit_inst(st, fn, scopes, labels, ret_label, depth)
        if ret_label is not None:
            labels[ret_label] = len(self.insts)
        self.stack.pop()

    def declare(self, d: VarDecl, scope: dict[str, Ref]) -> None:
        if d.space == "reg":
            if d.vec != 1:
                raise self.err(f"vector register declarations (.v{d.vec}) are not supported", line=d.line)
            # numbered on first use (lookup): nvcc declares register ranges (%f<16581>) far wider than
            # the registers a kernel names, and the IR's ids are 16-bit
            scope[d.name] = Ref("reg", rid=-1, name=d.name, space=d.type)
        elif d.space in ("local", "param"):
            scope[d.name] = Ref("symaddr", value=self.alloc_local(d), space="local")
        elif d.space == "shared":
            self.alloc_shared(d)
        elif d.space in ("global", "const"):
            if d.name not in self.global_syms:
                raise self.err(f"function-scope .{d.space} variable {d.name} is not supported", line=d.line)
        else:
            raise self.err(f"unsupported declaration .{d.space}", line=d.line)

    def lookup(self, name: str, scopes: list[dict[str, Ref]]) -> Ref | None:
        for sc in reversed(scopes):
            if name in sc:
                r = sc[name]
                if r.kind == "reg" and r.rid < 0:         # a declared register's first use
                    r.rid = self.new_reg(r.name, r.space)
                return r
        if name in self.shared:
            return Ref("symaddr", value=self.shared[name], space="shared")
        if name in self.extern_shared:
            return Ref("symaddr", value=0, name=name, space="shared")
        if name in self.global_syms:
            bad = next((g.init_error for g in self.mod.globals if g.name == name and g.init_error), None)
            if bad:
                raise self.err(f"variable {name}: {bad}")
            space, addr = self.global_syms[name]
            return Ref("symaddr", value=addr, space=space)
        if name in self.kparams:
            return Ref("symaddr", value=self.kparams[name], space="kparam")
        return None

    def resolve(self, op: Operand, scopes: list[dict[str, Ref]], ins: Instruction) -> Ref:
        k = op.kind
        if k == "reg":
            if op.name in SPECIAL:
                return Ref("sreg", name=op.name)
            if op.name in RESERVED_SMEM:
                return Ref("imm", value=self.reserved_offset(op.name))
            r = self.lookup(op.name, scopes)
            if r is None:
                raise self.err(f"undeclared register {op.name}", ins)
            if r.kind == "symaddr":
                return Ref("symaddr", value=r.value, space=r.space, name=r.name)
            return Ref("reg", rid=r.rid, neg=op.neg)
        if k == "imm":
            return Ref("imm", value=int(op.value))
        if k == "fimm":
            return Ref("fimm", value=int(op.value), bits=op.bits)
        if k == "sink":
            return Ref("sink")
        if k == "taddr":
            return Ref("taddr", elems=[self.resolve(e, scopes, ins) for e in op.elems])
        if k in ("vec", "list"):
            return Ref("vec", elems=[self.resolve(e, scopes, ins) for e in op.elems], name=op.name or "")
        if k == "addr":
            if op.name is None:
                return Ref("addr", value=op.offset)
            if op.name in SPECIAL:
                raise self.err("special register as an address base", ins)
            r = self.lookup(op.name, scopes)
            if r is None:
                raise self.err(f"undefined symbol {op.name}", ins)
            if r.kind == "reg":
                return Ref("addr", rid=r.rid, value=op.offset)
            return Ref("addr", value=r.value + op.offset, space=r.space, name=r.name)
        if k == "sym":
            if op.name in CONSTANT_SYMBOLS and self.lookup(op.name, scopes) is None:
                return Ref("imm", value=CONSTANT_SYMBOLS[op.name] + op.offset)
            r = self.lookup(op.name, scopes)
            if r is not None:
                if r.kind == "reg":
                    return Ref("reg", rid=r.rid, neg=op.neg)
                return Ref("symaddr", value=r.value + op.offset, space=r.space, name=r.name)
            if op.name in self.mod.functions:
                return Ref("func", name=op.name)
            if op.name == "WARP_SZ":                # PTX's predefined constant (CUDA's warpSize)
                return Ref("imm", value=32)
            return Ref("label", name=op.name)       # resolved by the caller (branch targets)
        raise self.err(f"unsupported operand kind {k}", ins)

    def emit_inst(self, ins: Instruction, fn: Function, scopes: list[dict[str, Ref]], labels: dict[str, int],
                  ret_label: str | None, depth: int) -> None:
        if ins.error is not None:
            raise self.err(f"unsupported instruction form ({ins.error})", ins)
        guard = -1
        if ins.guard is not None:
            g = self.lookup(ins.guard, scopes)
            if g is None or g.kind != "reg":
                raise self.err(f"undeclared guard predicate {ins.guard}", ins)
            guard = g.rid
        base = ins.base
        if base == "call":
            self.emit_call(ins, scopes, guard, depth)
            return
        ops = [self.resolve(o, scopes, ins) for o in ins.operands]
        is_ret = False
        opcode = ins.opcode
        if base == "ret":
            if ret_label is not None:     # return from an inlined function: jump past its body
                opcode = "bra.uni" if "uni" in ins.mods else "bra"
                ops = [Ref("label", name=ret_label)]
            else:
                is_ret = True
        flat = FlatInst(opcode, ops, guard, ins.guard_neg, ins.line, ins.text, fn.name, depth, is_ret)
        self.insts.append(flat)
        for pos, r in enumerate(flat.ops):
            if r.kind == "label":
                self.fixups.append((len(self.insts) - 1, pos, r.name, labels, ins))

    def emit_call(self, ins: Instruction, scopes: list[dict[str, Ref]], guard: int, depth: int) -> None:
        ops = ins.operands
        rets: list[Operand] = []
        i = 0
        if ops and ops[0].kind == "list":
            rets = ops[0].elems
            i = 1
        if i < len(ops) and ops[i].kind == "reg":       # through a function pointer or a vtable
            if guard >= 0:
                raise self.err("predicated call is not supported", ins)
            args = ops[i + 1].elems if i + 1 < len(ops) and ops[i + 1].kind == "list" else []
            emit_indirect_call(self, ins, scopes, self.resolve(ops[i], scopes, ins), rets, args, depth)
            return
        if i >= len(ops) or ops[i].kind != "sym":
            raise self.err("call without a function name or target register", ins)
        callee_name = ops[i].name
        args = ops[i + 1].elems if i + 1 < len(ops) and ops[i + 1].kind == "list" else []
        callee = self.mod.functions.get(callee_name)
        if callee is None:
            raise self.err(f"call to undefined function {callee_name}", ins)
        if guard >= 0:
            raise self.err("predicated call is not supported", ins)
        if len(args) != len(callee.params) or len(rets) != len(callee.rets):
            raise self.err(f"call to {callee_name} with the wrong number of arguments", ins)
        if callee.body is None and callee_name in RUNTIME_CALLS:
            # a CUDA runtime call (printf, assert, malloc, free): one instruction over its .param slots
            slots = []
            for actual in list(rets) + list(args):
                r = self.lookup(actual.name, scopes) if actual.kind == "sym" else None
                if r is None or r.kind != "symaddr":
                    raise self.err(f"argument of {callee_name} is not a declared .param", ins)
                slots.append(Ref("symaddr", value=r.value, space=r.space))
            if not rets:
                slots.insert(0, Ref("sink"))
            self.insts.append(FlatInst(callee_name, slots, -1, False, ins.line, ins.text, self.stack[-1],
                                       depth))
            return
        self.inline(ins, callee, scopes, rets, args, depth)

    def inline(self, ins: Instruction, callee: Function, scopes: list[dict[str, Ref]], rets: list[Operand],
               args: list[Operand], depth: int) -> None:
        """The call instruction, then the callee's body with its parameters bound to the caller's
        .param variables."""
        alias: dict[str, Ref] = {}
        for formal, actual in list(zip(callee.params, args, strict=True)) + list(
                zip(callee.rets, rets, strict=True)):
            if actual.kind != "sym":
                raise self.err("call arguments must be .param variables", ins)
            r = self.lookup(actual.name, scopes)
            if r is None or r.kind != "symaddr":
                raise self.err(f"call argument {actual.name} is not a declared .param", ins)
            alias[formal.name] = r
        if not self.may_inline(callee.name):
            self.trap_here(ins, depth, f"recursion deeper than {self.max_depth} levels of {callee.name} "
                                       "(warpsim inlines calls, recursive ones to a fixed depth)")
            return
        self.insts.append(FlatInst("call", [Ref("func", name=callee.name)], -1, False, ins.line, ins.text,
                                   self.stack[-1], depth))
        if len(self.insts) > MAX_FLAT_INSTRUCTIONS:
            raise self.err(f"more than {MAX_FLAT_INSTRUCTIONS:,} instructions after inlining the calls")
        if self.recursive and len(self.insts) > RECURSIVE_BUDGET and self.max_depth > 1:
            raise _TooBig
        self.emit(callee, alias, f"$__ret_{len(self.insts)}_{callee.name}", depth + 1)

    def may_inline(self, name: str) -> bool:
        """Whether a call to `name` may be inlined here (recursion: up to max_depth levels)."""
        n = self.stack.count(name)
        if n:
            self.recursive = True
        return n < self.max_depth

    def trap_here(self, ins: Instruction, depth: int, why: str) -> None:
        """A trap naming the call and `why`, guarded by a predicate that is always true: an unguarded
        trap would end its path, and branches around it would reconverge only at exit."""
        p = Ref("reg", rid=self.new_reg(f"%__trap{len(self.insts)}", "pred"))
        for opcode, ops, guard in (("setp.eq.u32", [p, Ref("imm", value=0), Ref("imm", value=0)], -1),
                                   ("trap", [], p.rid)):
            self.insts.append(FlatInst(opcode, ops, guard, False, ins.line, f"{ins.text}  // {why}",
                                       self.stack[-1], depth))


def place_globals(mod: Module, alloc) -> dict[str, tuple[str, int]]:
    """Allocate module .global/.const variables with `alloc(nbytes, align) -> (address, view)`, then a
    slot for each address-taken function, then write the initialisers (which may name both).

    Returns name → (space, address); functions have space 'func'.
    """
    out: dict[str, tuple[str, int]] = {}
    views = []
    for g in mod.globals:
        if g.space not in ("global", "const"):
            continue
        size = max(_decl_bytes(g), 1)
        addr, view = alloc(size, max(g.align, TYPE_BYTES[g.type], 8))
        views.append((g, size, view))
        out[g.name] = (g.space, addr)
    for f in mod.address_taken:
        out[f] = ("func", alloc(FUNCTION_SLOT_BYTES, FUNCTION_SLOT_BYTES)[0])
    for g, size, view in views:
        if g.init:
            view[:] = _init_bytes(g, size, out)
    return out


def _init_bytes(g: VarDecl, size: int, addresses: dict[str, tuple[str, int]]) -> np.ndarray:
    t = g.type
    dt = {"f32": np.float32, "f64": np.float64}.get(t)
    vals = []
    for v in g.init:
        if isinstance(v, SymInit):    # checked at parse time: a 64-bit element, a known symbol
            vals.append(addresses[v.name][1] + v.offset)
        elif isinstance(v, tuple):    # float literal given as bits
            _, bits, nb = v
            f = np.array([bits], dtype=np.uint64 if nb == 64 else np.uint32).view(
                np.float64 if nb == 64 else np.float32)[0]
            vals.append(float(f))
        else:
            vals.append(v)
    if dt is not None:
        arr = np.array(vals, dtype=dt)
    else:
        nb = TYPE_BYTES[t]
        arr = np.array([int(v) & ((1 << (8 * nb)) - 1) for v in vals],
                       dtype={1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}[nb])
    raw = arr.view(np.uint8)
    out = np.zeros(size, dtype=np.uint8)
    out[:min(size, raw.size)] = raw[:size]
    return out


def link(mod: Module, entry: str, global_syms: dict[str, tuple[str, int]]) -> Program:
    if entry not in mod.functions or not mod.functions[entry].is_entry:
        raise InputError(f"no .entry named {entry!r} (entries: {', '.join(mod.entries) or 'none'})",
                         path=mod.path)
    try:
        return _Linker(mod, entry, global_syms).link()
    except _TooBig:
        pass
    lo, hi, best = 1, MAX_RECURSION_DEPTH - 1, None      # depth 1 (no recursion inlined) always fits
    while lo <= hi:                                       # the deepest that fits, by bisection
        mid = (lo + hi) // 2
        try:
            best = _Linker(mod, entry, global_syms, mid).link()
            lo = mid + 1
        except _TooBig:
            hi = mid - 1
    assert best is not None
    return best
