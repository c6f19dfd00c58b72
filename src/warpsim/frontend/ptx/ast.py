"""Plain records the PTX parser produces: a module of functions, each a list of statements."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class Operand:
    """One instruction operand.

    kind: 'reg' (name), 'imm' (int value), 'fimm' (float bit pattern in `value`, width in `bits`),
    'sym' (a variable or function name), 'addr' (base name or None, plus `offset`),
    'vec' (`elems`), 'list' (parenthesised call arguments, `elems`), 'sink' (`_`),
    'taddr' (texture/surface operand `[handle, {coords}]`: `elems`).
    `neg` marks a `!%p` source predicate.
    """

    kind: str
    name: str | None = None
    value: int | float | None = None
    offset: int = 0
    bits: int = 0
    neg: bool = False
    elems: list[Operand] = field(default_factory=list)


@dataclass
class Instruction:
    opcode: str                   # full dotted opcode, e.g. "ld.global.v4.f32"
    operands: list[Operand]
    guard: str | None = None      # predicate register name
    guard_neg: bool = False
    line: int = 0
    text: str = ""
    error: str | None = None      # operands that could not be parsed (reported when linked)

    @property
    def base(self) -> str:
        return self.opcode.split(".", 1)[0]

    @property
    def mods(self) -> list[str]:
        return self.opcode.split(".")[1:]


@dataclass(frozen=True)
class SymInit:
    """An initialiser entry naming a symbol (`fn`, `var+8`, `generic(var)`): its address at load time.
    Vtables and function-pointer tables are written this way."""

    name: str
    offset: int = 0


@dataclass
class VarDecl:
    """A .reg/.param/.shared/.local/.const/.global declaration (one name; arrays have `count`)."""

    space: str                    # 'reg', 'param', 'shared', 'local', 'const', 'global'
    name: str
    type: str                     # 'b32', 'f32', 'pred', ...
    count: int | None = None      # array length (None: scalar; 0: unsized extern array)
    align: int = 0
    init: list[int | float | tuple | SymInit] | None = None
    vec: int = 1
    extern: bool = False
    line: int = 0
    init_error: str | None = None     # an initialiser we cannot evaluate (reported to kernels using it)


@dataclass
class Label:
    name: str
    line: int = 0


@dataclass
class ScopeOpen:
    line: int = 0


@dataclass
class ScopeClose:
    line: int = 0


Statement = Instruction | VarDecl | Label | ScopeOpen | ScopeClose


@dataclass
class Function:
    name: str
    is_entry: bool
    params: list[VarDecl]
    rets: list[VarDecl]
    body: list[Statement] | None   # None for a prototype (.extern .func without body)
    line: int = 0
    maxntid: tuple[int, ...] | None = None


@dataclass
class Module:
    version: str = ""
    target: str = ""
    address_size: int = 64
    functions: dict[str, Function] = field(default_factory=dict)
    globals: list[VarDecl] = field(default_factory=list)    # module-scope .global/.const/.shared
    path: str | None = None
    warnings: list[str] = field(default_factory=list)
    # functions whose address the module takes (initialisers, `mov`), in order of first mention: each
    # gets a device address at load, and indirect calls dispatch over them (indirect.py)
    address_taken: list[str] = field(default_factory=list)

    @property
    def entries(self) -> list[str]:
        return [n for n, f in self.functions.items() if f.is_entry]

    @property
    def sm(self) -> int:
        digits = "".join(c for c in self.target.split(",")[0] if c.isdigit())
        return int(digits) if digits else 75
