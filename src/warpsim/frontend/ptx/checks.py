"""Checks that turn PTX the emulator would trip over later into errors at load or decode time.

- PTX files are read as bytes: invalid UTF-8 names the file, line and byte offset.
- Every function body must end in a way control cannot run past (ret, exit, trap or an
  unconditional branch).
- Before an instruction is decoded, modifiers the semantics look up at run time (setp/set
  comparisons, shfl modes) and operand counts are checked, so a bad one fails at decode naming
  the instruction, never with a KeyError or StopIteration in the middle of a launch.
- Anything else a decoder raises is described in words (no Python reprs).
"""

from __future__ import annotations

from pathlib import Path

from warpsim.errors import InputError
from warpsim.frontend.ptx.ast import Instruction, Label, Module, ScopeClose, ScopeOpen

MAX_PTX_BYTES = 1 << 30

INT_CMP = {"eq", "ne", "lt", "le", "gt", "ge", "lo", "ls", "hi", "hs"}
FLOAT_CMP = {"eq", "ne", "lt", "le", "gt", "ge", "equ", "neu", "ltu", "leu", "gtu", "geu", "num", "nan"}
FLOAT_TYPES = {"f16", "f16x2", "bf16", "bf16x2", "f32", "f64"}
SHFL_MODES = ("up", "down", "bfly", "idx")
# fewest operands an instruction needs (destination included)
MIN_OPERANDS = {"add": 3, "sub": 3, "mul": 3, "mad": 4, "fma": 4, "div": 3, "rem": 3, "min": 3, "max": 3,
                "and": 3, "or": 3, "xor": 3, "shl": 3, "shr": 3, "setp": 3, "selp": 4, "mov": 2,
                "cvt": 2, "ld": 2, "st": 2, "shfl": 4, "atom": 3, "neg": 2, "not": 2, "abs": 2}
_ENDS = ("ret", "exit", "trap", "brx")


class PtxCheckError(ValueError):
    """An instruction check failed (the message is complete)."""


def read_ptx_file(path: str | Path) -> str:
    """The text of a PTX file; not UTF-8 is an error naming the line and byte offset."""
    p = Path(path)
    try:
        size = p.stat().st_size
        if size > MAX_PTX_BYTES:
            raise InputError(f"PTX file of {size:,} bytes exceeds {MAX_PTX_BYTES:,}", path=str(p))
        data = p.read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read PTX file: {exc.strerror or exc}", path=str(p)) from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise InputError(f"not UTF-8 text: byte 0x{data[exc.start]:02x} at byte offset {exc.start}",
                         path=str(p), line=line) from None


def check_function_ends(mod: Module, path: str | None) -> None:
    """Each function body's last instruction must stop control (ret/exit/trap or a plain bra)."""
    for fn in mod.functions.values():
        if fn.body is None:
            continue
        last = None
        for st in fn.body:
            if isinstance(st, Instruction):
                last = st
            elif not isinstance(st, Label | ScopeOpen | ScopeClose):
                continue
        ok = last is not None and (last.base in _ENDS or (last.base == "bra" and last.guard is None))
        if not ok:
            where = last.line if last is not None else fn.line
            raise InputError(f"function {fn.name} does not end with ret, exit or an unconditional bra: "
                             "control would run past its last instruction", path=path, line=where,
                             text=last.text if last is not None else None)


def check_inst(fi) -> None:
    """Modifiers and operand counts of one flattened instruction; raises PtxCheckError."""
    parts = fi.opcode.split(".")
    base, mods = parts[0], parts[1:]
    need = MIN_OPERANDS.get(base)
    if need is not None and len(fi.ops) < need:
        raise PtxCheckError(f"'{fi.opcode}' needs at least {need} operands, got {len(fi.ops)}")
    if base in ("setp", "set"):
        if not mods:
            raise PtxCheckError(f"'{fi.opcode}' has no comparison")
        typ = next((m for m in reversed(mods) if m[:1] in "bsuf" and m[1:2].isdigit()), "")
        allowed = FLOAT_CMP if typ in FLOAT_TYPES else INT_CMP
        if mods[0] not in allowed:
            raise PtxCheckError(f"'{fi.opcode}': comparison '{mods[0]}' is not one of "
                             f"{', '.join(sorted(allowed))} for .{typ or '?'}")
    elif base == "shfl" and not any(m in SHFL_MODES for m in mods):
        raise PtxCheckError(f"'{fi.opcode}' needs a mode: .{', .'.join(SHFL_MODES)}")


def describe(exc: BaseException, fi) -> str:
    """A decoder's unexpected exception as a sentence about the instruction (no Python repr)."""
    if isinstance(exc, IndexError):
        return f"'{fi.opcode}' has too few operands or modifiers ({len(fi.ops)} operands)"
    if isinstance(exc, KeyError):
        key = exc.args[0] if exc.args else "?"
        return f"'{fi.opcode}': unsupported modifier or operand '{key}'"
    if isinstance(exc, StopIteration):
        return f"'{fi.opcode}': a required modifier is missing"
    detail = str(exc).strip()
    return f"cannot decode '{fi.opcode}'" + (f": {detail}" if detail else "")
