"""nvdisasm text (`nvdisasm -c -g`) -> per-kernel SASS programs: instructions, registers, line info.

Why text and not nvdisasm's JSON: the text is stable across the CUDA 11-13 tools we meet, carries the
`//## File "...", line N` comments of `-g`, and is what users paste; the parser accepts exactly the
syntax those tools print and fails loudly (kernel, offset, instruction) on anything else.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from warpsim.errors import InputError

# IR register numbering for SASS operands (the timing model's scoreboard sees one flat id space).
PRED_BASE = 256        # P0..P6 -> 256..262 (PT is "always true": no dependency)
UREG_BASE = 264        # UR0..UR62 -> 264..326 (URZ: none)
UPRED_BASE = 328       # UP0..UP6 -> 328..334 (UPT: none)
NUM_SASS_REGS = 336

_INST_RE = re.compile(r"^\s*/\*([0-9a-fA-F]{4,})\*/\s+(.*?)\s*;?\s*(?:/\*\s*(0x[0-9a-fA-F]+)?[^*]*\*/)?\s*$")
_HEX_WORD_RE = re.compile(r"^\s*/\*\s*(0x[0-9a-fA-F]{16})\s*\*/\s*$")     # `-hex`: an encoding's next word
_LINE_RE = re.compile(r'^\s*//##\s*File\s+"([^"]*)",\s*line\s+(\d+)')
_LABEL_RE = re.compile(r"^\s*([.$A-Za-z_][\w.$]*):\s*$")
_FUNC_RE = re.compile(r"^\s*\.type\s+([\w.$]+)\s*,\s*@function")
_ENTRY_RE = re.compile(r"^\s*\.other\s+([\w.$]+)\s*,\s*@\"[^\"]*STO_CUDA_ENTRY")
_SECTION_RE = re.compile(r"^\s*\.section\s+\.text\.([\w.$]+)\s*,")
_REGS_RE = re.compile(r'^\s*\.sectioninfo\s+@"SHI_REGISTERS=(\d+)"')
_TARGET_RE = re.compile(r"^\s*\.target\s+sm_(\d+)")
_GUARD_RE = re.compile(r"^@(!?)(U?P(?:\d|T))\s+")
_BRANCH_TARGET_RE = re.compile(r"`\(([^)]+)\)")
_REG_TOKEN_RE = re.compile(r"(?<![\w.])(-|!|~|\|)?\b(UR\d+|URZ|UP\d|UPT|R\d+|RZ|P\d|PT)\b")

# opcodes whose first operand is a source, not a destination
_NO_DST = frozenset(("ST", "STG", "STS", "STL", "RED", "REDG", "BAR", "BRA", "BRX", "BRXU", "JMP", "JMX",
                     "EXIT", "RET", "CALL", "BSSY", "BSYNC", "WARPSYNC", "BMOV", "MEMBAR", "ERRBAR", "CCTL",
                     "NOP", "DEPBAR", "YIELD", "KILL", "BPT", "NANOSLEEP", "FENCE", "CCTLL", "BREAK",
                     "ATOMS.POPC", "SYNCS"))
# opcodes whose first two operands are predicate destinations
_TWO_PRED_DST = ("SETP", "FCHK", "PLOP3", "R2P")
# global and generic atomics print a predicate destination before the returned value
# (`ATOMG.E.ADD.STRONG.GPU PT, R4, desc[UR4][R4.64], R13`): both operands are written
_PRED_THEN_VALUE_DST = ("ATOMG", "ATOM")
_PREDICATE_RE = re.compile(r"!?U?P(?:\d|T)")


@dataclass
class SassInst:
    """One static SASS instruction as the disassembler printed it."""

    offset: int
    opcode: str                    # full mnemonic with modifiers: "ISETP.GE.U32.AND"
    operands: str                  # the operand text, unparsed
    guard: str = ""                # "P0", "UP1", "" when unguarded (or @PT)
    guard_neg: bool = False
    dst: tuple[int, ...] = ()      # IR register ids (see PRED_BASE ...)
    src: tuple[int, ...] = ()
    target: int = -1               # branch / call / BSSY target offset, -1 when none
    file: str = ""
    line: int = 0                  # source line from the -g comments (0 = none)
    text: str = ""
    words: tuple[int, ...] = ()    # the encoding's 64-bit words (`nvdisasm -hex`), low first

    @property
    def control(self) -> int | None:
        """The 21-bit scheduling control field of a 128-bit (sm_70+) encoding, None without `-hex`.

        Bits 105-125 of the instruction (Jia et al., "Dissecting the NVIDIA Volta GPU Architecture via
        Microbenchmarking", 2018): stall count (4), yield (1), write barrier (3), read barrier (3),
        wait-barrier mask (6), operand reuse (4)."""
        if len(self.words) < 2:
            return None
        return (self.words[1] >> 41) & 0x1FFFFF

    @property
    def stall(self) -> int:
        """Cycles the compiler makes the warp wait before its next instruction (0 when unknown)."""
        c = self.control
        return 0 if c is None else c & 0xF

    @property
    def write_barrier(self) -> int | None:
        """The scoreboard barrier (0-5) a variable-latency result releases; 7 when none is set (the
        result has a fixed latency); None without `-hex`."""
        c = self.control
        return None if c is None else (c >> 5) & 7

    @property
    def base(self) -> str:
        return self.opcode.split(".", 1)[0]

    @property
    def is_branch(self) -> bool:
        return self.base in ("BRA", "BRX", "BRXU", "JMP", "JMX")

    @property
    def is_conditional(self) -> bool:
        return bool(self.guard) and not self.guard.endswith("PT")


@dataclass
class SassFunction:
    """A kernel entry (or an internal subroutine such as the division slow path)."""

    name: str
    insts: list[SassInst] = field(default_factory=list)
    labels: dict[str, int] = field(default_factory=dict)      # label -> offset
    is_entry: bool = False
    registers: int = 0                                          # SHI_REGISTERS (ptxas allocation)

    def index_of(self, offset: int) -> int:
        return self._index[offset]

    def finish(self) -> None:
        self._index = {ins.offset: i for i, ins in enumerate(self.insts)}


@dataclass
class SassModule:
    sm: int
    functions: dict[str, SassFunction]
    path: str | None = None

    @property
    def kernels(self) -> list[str]:
        return [n for n, f in self.functions.items() if f.is_entry]

    def kernel(self, name: str) -> SassFunction:
        f = self.functions.get(name)
        if f is None or not f.is_entry:
            raise InputError(f"no kernel named {name!r} in the SASS (kernels: {', '.join(self.kernels)})",
                             path=self.path)
        return f


def _reg_id(tok: str) -> int | None:
    if tok in ("RZ", "PT", "URZ", "UPT"):
        return None
    if tok.startswith("UR"):
        return UREG_BASE + int(tok[2:])
    if tok.startswith("UP"):
        return UPRED_BASE + int(tok[2:])
    if tok[0] == "R":
        return int(tok[1:])
    return PRED_BASE + int(tok[1:])


def _width_regs(opcode: str) -> int:
    """How many consecutive 32-bit registers the destination spans."""
    mods = opcode.split(".")[1:]
    if "128" in mods:
        return 4
    if "64" in mods or "WIDE" in mods or opcode.split(".")[0] in ("DADD", "DMUL", "DFMA", "CS2R"):
        return 2
    return 1


def split_operands(text: str) -> list[str]:
    """Operands separated by top-level commas (brackets and braces may hold commas)."""
    out, depth, cur = [], 0, []
    for ch in text:
        if ch in "[{(":
            depth += 1
        elif ch in "]})":
            depth -= 1
        if ch == "," and depth == 0:
            out.append("".join(cur).strip())
            cur = []
        else:
            cur.append(ch)
    if "".join(cur).strip():
        out.append("".join(cur).strip())
    return out


def _regs_in(text: str) -> list[int]:
    ids = []
    for m in _REG_TOKEN_RE.finditer(text):
        rid = _reg_id(m.group(2))
        if rid is not None:
            ids.append(rid)
    return ids


def decode_operands(opcode: str, operands: str) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(destination ids, source ids) of one instruction, in IR numbering."""
    base = opcode.split(".", 1)[0]
    ops = split_operands(operands)
    if not ops:
        return (), ()
    n_dst = 0
    if base not in _NO_DST and opcode not in _NO_DST:
        n_dst = 2 if base.endswith(_TWO_PRED_DST) and len(ops) > 2 else 1
        if base in ("FCHK",):
            n_dst = 1
        if base in _PRED_THEN_VALUE_DST and len(ops) > 2 and _PREDICATE_RE.fullmatch(ops[0]):
            n_dst = 2
    dst: list[int] = []
    for op in ops[:n_dst]:
        regs = _regs_in(op)
        if len(regs) == 1 and regs[0] < PRED_BASE:
            dst.extend(regs[0] + k for k in range(_width_regs(opcode)) if regs[0] + k < 255)
        else:
            dst.extend(regs)
    src: list[int] = []
    for op in ops[n_dst:]:
        for rid in _regs_in(op):
            if rid not in src:
                src.append(rid)
    return tuple(dst[:4]), tuple(src[:5])


def parse_nvdisasm(text: str, path: str | None = None) -> SassModule:
    """Parse `nvdisasm -c -g` output (also plain `-c`, then without line info)."""
    functions: dict[str, SassFunction] = {}
    entries: set[str] = set()
    regs: dict[str, int] = {}
    sm = 0
    cur: SassFunction | None = None
    section_fn: str | None = None
    file, line = "", 0
    pending_labels: list[str] = []
    for lineno, raw in enumerate(text.splitlines(), 1):
        s = raw.strip()
        if not s:
            continue
        if (m := _TARGET_RE.match(s)):
            sm = int(m.group(1))
            continue
        if (m := _SECTION_RE.match(s)):
            section_fn = m.group(1)
            continue
        if (m := _REGS_RE.match(s)):
            if section_fn is not None:
                regs[section_fn] = int(m.group(1))
            continue
        if (m := _ENTRY_RE.match(s)):
            entries.add(m.group(1))
            continue
        if (m := _FUNC_RE.match(s)):
            cur = functions.setdefault(m.group(1), SassFunction(m.group(1)))
            file, line = "", 0
            continue
        if (m := _LINE_RE.match(s)):
            file, line = m.group(1), int(m.group(2))
            continue
        if (m := _HEX_WORD_RE.match(raw)):
            if cur is not None and cur.insts and len(cur.insts[-1].words) == 1:
                cur.insts[-1].words += (int(m.group(1), 16),)
            continue
        if (m := _INST_RE.match(raw)):
            if cur is None:
                raise InputError("instruction outside any function", path=path, line=lineno, text=raw)
            offset = int(m.group(1), 16)
            cur.insts.append(_instruction(cur.name, offset, m.group(2), file, line, path, lineno))
            if m.group(3):
                cur.insts[-1].words = (int(m.group(3), 16),)
            for lab in pending_labels:
                cur.labels[lab] = cur.insts[-1].offset
            pending_labels = []
            continue
        if (m := _LABEL_RE.match(s)):
            if cur is not None and not s.startswith(".text."):
                pending_labels.append(m.group(1))
            continue
    for name, f in functions.items():
        f.is_entry = name in entries
        f.registers = regs.get(name, 0)
        f.finish()
        for ins in f.insts:
            if ins.target == -2:
                lab = _BRANCH_TARGET_RE.search(ins.operands).group(1)      # type: ignore[union-attr]
                off = _resolve_label(functions, f, lab)
                if off is None:
                    raise InputError(f"kernel {name}: offset {ins.offset:#06x}: branch to unknown label "
                                     f"{lab}",
                                     path=path, text=ins.text)
                ins.target = off
    if not functions:
        raise InputError("no SASS functions found (is this `nvdisasm -c` output?)", path=path)
    return SassModule(sm, functions, path)


def _resolve_label(functions: dict[str, SassFunction], f: SassFunction, lab: str) -> int | None:
    if lab in f.labels:
        return f.labels[lab]
    if lab in functions and functions[lab].insts:
        return functions[lab].insts[0].offset
    return None


def _instruction(fname: str, offset: int, body: str, file: str, line: int, path: str | None,
                 lineno: int) -> SassInst:
    body = body.strip().rstrip(";").strip()
    guard, neg = "", False
    if (m := _GUARD_RE.match(body)):
        neg = m.group(1) == "!"
        guard = m.group(2)
        body = body[m.end():]
        if guard in ("PT", "UPT"):
            if neg:
                guard = "PT"          # @!PT: never executes; keep it visible
            else:
                guard = ""
    parts = body.split(None, 1)
    if not parts or not re.fullmatch(r"[A-Z][A-Z0-9_]*(\.[A-Za-z0-9_]+)*", parts[0]):
        raise InputError(f"kernel {fname}: offset {offset:#06x}: cannot parse SASS instruction", path=path,
                         line=lineno, text=body)
    opcode = parts[0]
    operands = parts[1] if len(parts) > 1 else ""
    ins = SassInst(offset, opcode, operands, guard, neg, file=file, line=line,
                   text=f"/*{offset:04x}*/ {body}")
    if guard and guard != "PT":
        ins.src = (_reg_id(guard),)  # type: ignore[assignment]
    dst, src = decode_operands(opcode, operands)
    ins.dst = dst
    ins.src = tuple(dict.fromkeys(ins.src + src))[:5]
    if _BRANCH_TARGET_RE.search(operands):
        ins.target = -2                # resolved once all labels are known
    else:
        last = operands.split(",")[-1].strip()
        if ins.base in ("BRA", "CALL", "BSSY") and re.fullmatch(r"0x[0-9a-fA-F]+", last):
            ins.target = int(last, 16)
    return ins
