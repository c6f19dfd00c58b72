"""Function addresses and indirect calls: virtual functions and function pointers.

nvcc compiles a virtual call to loads of the object's vtable entry and `call (ret), %rd, (args),
prototype;`, and a vtable or a table of function pointers to a `.global .u64` array initialised
with function names. warpsim links every kernel into one flat program with calls inlined
(program.py), so an indirect call becomes a dispatch over the functions whose address the module
takes: compare the target with each one's address, branch to that function's inlined body, and
trap (naming the call) when the target is none of them. Each address-taken function gets a
16-byte slot of device memory at load time, so its address is unique on the device and a pointer
copied to the host and back still calls the same function.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from warpsim.frontend.ptx.ast import Instruction, Module, Operand, SymInit

if TYPE_CHECKING:
    from warpsim.frontend.ptx.program import Ref

_SYMBOL_INIT = re.compile(r"(?:generic\(\s*([A-Za-z_$][\w$.]*)\s*\)|([A-Za-z_$][\w$.]*))"
                          r"\s*(?:([+-])\s*(0[xX][0-9a-fA-F]+|\d+))?")
FUNCTION_SLOT_BYTES = 16
ADDRESS_TYPES = ("u64", "b64", "s64")


def symbol_initialiser(text: str) -> SymInit | None:
    """`fn`, `var+16`, `generic(var)` as an initialiser entry; None for anything else."""
    m = _SYMBOL_INIT.fullmatch(text.strip())
    if m is None:
        return None
    off = int(m.group(4), 0) if m.group(4) else 0
    return SymInit(m.group(1) or m.group(2), -off if m.group(3) == "-" else off)


def resolve_address_uses(mod: Module) -> None:
    """After parsing: check every symbolic initialiser and list the address-taken functions.

    An initialiser naming something other than a function with a body or a module .global/.const
    variable, or an address in an element narrower than 64 bits, becomes the variable's
    `init_error` (a kernel using the variable fails; the module still loads)."""
    data = {g.name for g in mod.globals if g.space in ("global", "const")}
    taken: dict[str, None] = {}
    for g in mod.globals:
        if not g.init or not any(isinstance(v, SymInit) for v in g.init):
            continue
        for v in g.init:
            if not isinstance(v, SymInit):
                continue
            fn = mod.functions.get(v.name)
            if g.type not in ADDRESS_TYPES:
                g.init_error = f"initialiser {v.name}: a 64-bit address in a .{g.type} element"
            elif fn is not None and fn.body is not None and not fn.is_entry:
                taken[v.name] = None
            elif fn is not None:
                g.init_error = (f"initialiser {v.name}: the address of a kernel or of a function with no "
                                "body in this module is not supported")
            elif v.name not in data:
                g.init_error = (f"initialiser {v.name} names no function or .global/.const variable of "
                                "the module")
            if g.init_error:
                g.init = None
                break
    for fn in mod.functions.values():
        for st in fn.body or ():
            if isinstance(st, Instruction) and st.base != "call":
                for op in _symbols(st.operands):
                    f = mod.functions.get(op.name)
                    if f is not None and f.body is not None and not f.is_entry:
                        taken[op.name] = None
    mod.address_taken = list(taken)


def _symbols(ops: list[Operand]):
    for op in ops:
        if op.kind == "sym":
            yield op
        yield from _symbols(op.elems)


def emit_indirect_call(lk, ins: Instruction, scopes, target: Ref, rets: list[Operand], args: list[Operand],
                       depth: int) -> None:
    """Dispatch `call (rets), %target, (args), proto;` over the address-taken functions of the same
    arity: `setp.eq` + `@p bra` per candidate, `@!p trap` when none matched, each candidate's body
    inlined once, all of them rejoining after the call. Traps are guarded, so every branch of the
    chain reconverges after the call (an unguarded trap would make it reconverge only at exit)."""
    from warpsim.frontend.ptx.program import FlatInst, Ref

    if target.kind != "reg":
        raise lk.err("the target of an indirect call must be a register", ins)
    mod = lk.mod
    cands = [f for f in mod.address_taken if f in lk.global_syms       # placed by place_globals
             and len(mod.functions[f].params) == len(args) and len(mod.functions[f].rets) == len(rets)]
    site = len(lk.insts)
    pred = lk.new_reg(f"%__icall{site}", "pred")
    p = Ref("reg", rid=pred)
    labels: dict[str, int] = {}
    func = lk.stack[-1]

    def add(opcode: str, ops: list[Ref], guard: int = -1, neg: bool = False, text: str = ins.text) -> None:
        lk.insts.append(FlatInst(opcode, ops, guard, neg, ins.line, text, func, depth))
        for pos, r in enumerate(ops):
            if r.kind == "label":
                lk.fixups.append((len(lk.insts) - 1, pos, r.name, labels, ins))

    bodies = []
    if not cands:       # no candidate: p = false, so the trap below always fires
        add("setp.ne.u64", [p, target, target])
    for f in cands:
        add("setp.eq.u64", [p, target, Ref("imm", value=lk.global_syms[f][1])])
        if not lk.may_inline(f):
            add("trap", [], pred, text=f"{ins.text}  // recursion deeper than {lk.max_depth} levels of {f} "
                "(warpsim inlines calls, recursive ones to a fixed depth)")
        else:
            add("bra", [Ref("label", name=f)], pred)
            bodies.append(f)
    add("trap", [], pred, True,
        text=f"{ins.text}  // the called address is no function of this module whose address it takes")
    for k, f in enumerate(bodies):
        labels[f] = len(lk.insts)
        lk.inline(ins, mod.functions[f], scopes, rets, args, depth)
        if k < len(bodies) - 1:
            add("bra", [Ref("label", name="$end")])
    labels["$end"] = len(lk.insts)
