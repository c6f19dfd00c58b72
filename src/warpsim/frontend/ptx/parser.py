"""PTX text → `ast.Module`: module directives, entries/functions, declarations and instructions.

A hand-written scanner (no grammar generator): comments are blanked out first so every position keeps
its line number; bodies are split into statements at `;`, scope braces and `label:` prefixes.
"""

from __future__ import annotations

import hashlib
import re
import struct
import warnings
from collections import OrderedDict

from warpsim.errors import InputError
from warpsim.frontend.ptx.ast import (
    Function,
    Instruction,
    Label,
    Module,
    Operand,
    ScopeClose,
    ScopeOpen,
    Statement,
    VarDecl,
)
from warpsim.frontend.ptx.indirect import resolve_address_uses, symbol_initialiser

_SPACES = ("reg", "param", "shared", "local", "const", "global", "tex", "sreg")
_TYPES = {"b8", "b16", "b32", "b64", "b128", "u8", "u16", "u32", "u64", "s8", "s16", "s32", "s64",
          "f16", "f16x2", "bf16", "bf16x2", "tf32", "f32", "f64", "pred"}
_IDENT = re.compile(r"[A-Za-z_$%][\w$%.]*")
_RANGE = re.compile(r"^([%\w$.]+)<(\d+)>$")
_HEX_DIGITS = re.compile(r"[0-9a-fA-F]+")
_DECIMAL = re.compile(r"[-+]?(\d+\.\d*|\.\d+|\d+)([eE][-+]?\d+)?")
_ADDRESS = re.compile(r"([A-Za-z_$%][\w$%.]*)?(?:([+-])(.+))?")
_SYMBOL = re.compile(r"([A-Za-z_$][\w$.]*)\s*(?:([+-])\s*(\S+))?")
_GUARD = re.compile(r"@(!?)\s*(%?[\w$.]+)\s+")
_OPCODE = re.compile(r"([A-Za-z_][\w.:]*)\s*")
_LOC_FILE = re.compile(r"\.(loc|file)\s")
MAX_REG_RANGE = 1 << 16           # `.reg .b32 %r<N>`: registers one declaration may expand to
# Largest array one declaration may have, in bytes, per state space (checked before allocation)
MAX_ARRAY_BYTES = {"shared": 1 << 24, "local": 1 << 24, "param": 1 << 16, "reg": 1 << 16}
MAX_GLOBAL_BYTES = 1 << 32
_KNOWN_SKIPPED = {".pragma", ".loc", ".file", ".section", ".maxnreg", ".maxntid", ".reqntid",
                  ".minnctapersm", ".maxnctapersm", ".noreturn", ".alias", ".callprototype",
                  ".calltargets", ".branchtargets", ".common"}


_COMMENT_OR_STRING = re.compile(r'"[^"]*"?|//[^\n]*|/\*.*?(?:\*/|\Z)', re.S)
_NOT_NEWLINE = re.compile(r"[^\n]")
_BRACKETS = {"(": re.compile(r"[()]"), "{": re.compile(r"[{}]"), "[": re.compile(r"[\[\]]")}
_ANY_BRACKET = re.compile(r"[()\[\]{}]")


def _blank_comment(m: re.Match) -> str:
    s = m.group(0)
    if s[0] == '"':
        return s                                  # a string: kept as written
    if s[1] == "/":
        return " " * len(s)
    return _NOT_NEWLINE.sub(" ", s)


def _blank_comments(text: str) -> str:
    """Replace // and /* */ comments by spaces, keeping newlines (so line numbers stay right)."""
    return _COMMENT_OR_STRING.sub(_blank_comment, text) if "/" in text else text


class _Scanner:
    def __init__(self, text: str, path: str | None) -> None:
        self.t = text
        self.i = 0
        self.path = path
        self._nl = [m.start() for m in re.finditer("\n", text)]

    def line(self, pos: int | None = None) -> int:
        import bisect
        return bisect.bisect_right(self._nl, self.i if pos is None else pos - 1) + 1

    def error(self, msg: str, pos: int | None = None, text: str | None = None) -> InputError:
        return InputError(msg, path=self.path, line=self.line(pos), text=text)

    def skip_ws(self) -> None:
        t, n = self.t, len(self.t)
        while self.i < n and t[self.i].isspace():
            self.i += 1

    def eof(self) -> bool:
        self.skip_ws()
        return self.i >= len(self.t)

    def to_eol(self) -> str:
        j = self.t.find("\n", self.i)
        j = len(self.t) if j < 0 else j
        s = self.t[self.i:j]
        self.i = j
        return s

    def balanced(self, open_ch: str, close_ch: str) -> str:
        """Text between the brace at self.i and its match (exclusive); self.i moves past the match."""
        assert self.t[self.i] == open_ch
        depth, start = 0, self.i
        for m in _BRACKETS[open_ch].finditer(self.t, start):
            if m.group(0) == open_ch:
                depth += 1
            else:
                depth -= 1
                if depth == 0:
                    self.i = m.end()
                    return self.t[start + 1:m.start()]
        raise self.error(f"unbalanced '{open_ch}'", start)


def split_top(s: str, sep: str = ",") -> list[str]:
    """Split at `sep` outside (), [] and {}."""
    if not _ANY_BRACKET.search(s):
        parts = s.split(sep)
        return [p.strip() for p in parts] if len(parts) > 1 or parts[0].strip() else []
    parts, depth, cur = [], 0, []
    for ch in s:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if ch == sep and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    tail = "".join(cur)
    if tail.strip() or parts:
        parts.append(tail)
    return [p.strip() for p in parts]


def parse_int(s: str) -> int | None:
    s = s.strip()
    neg = s.startswith("-")
    if neg or s.startswith("+"):
        s = s[1:].strip()
    if s.endswith(("U", "u")):
        s = s[:-1]
    try:
        if s.lower().startswith("0x"):
            v = int(s[2:], 16)
        elif s.lower().startswith("0b"):
            v = int(s[2:], 2)
        elif len(s) > 1 and s.startswith("0") and s.isdigit():
            v = int(s, 8)
        elif s.isdigit():
            v = int(s)
        else:
            return None
    except ValueError:
        return None
    return -v if neg else v


def parse_number(s: str) -> Operand | None:
    """Integer or float literal (0fXXXXXXXX, 0dXXXXXXXXXXXXXXXX, decimal) as an operand."""
    t = s.strip()
    neg = t.startswith("-")
    body = t[1:] if neg else t
    if body[:2] in ("0f", "0F", "0d", "0D") and not _HEX_DIGITS.fullmatch(body[2:]):
        return None                       # "cannot parse operand" names it
    if len(body) == 10 and body[:2] in ("0f", "0F"):
        bits = int(body[2:], 16) ^ (0x80000000 if neg else 0)
        return Operand("fimm", value=bits, bits=32)
    if len(body) == 18 and body[:2] in ("0d", "0D"):
        bits = int(body[2:], 16) ^ (1 << 63 if neg else 0)
        return Operand("fimm", value=bits, bits=64)
    v = parse_int(t)
    if v is not None:
        return Operand("imm", value=v)
    if _DECIMAL.fullmatch(t):
        bits = struct.unpack("<Q", struct.pack("<d", float(t)))[0]
        return Operand("fimm", value=bits, bits=64)
    return None


def parse_operand(s: str, sc: _Scanner, pos: int) -> Operand:
    s = s.strip()
    if not s:
        raise sc.error("empty operand", pos)
    if s == "_":
        return Operand("sink")
    if s[0] == "[":
        if not s.endswith("]"):
            raise sc.error("malformed address operand", pos, s)
        parts = split_top(s[1:-1])
        if len(parts) > 1:          # texture/surface operand: [handle, {coordinates}] or [tex, smp, {..}]
            return Operand("taddr", elems=[parse_operand(e, sc, pos) for e in parts])
        inner = s[1:-1].replace(" ", "").replace("\t", "")
        m = _ADDRESS.fullmatch(inner)
        if m and (m.group(1) or m.group(3)):
            base = m.group(1)
            off = 0
            if m.group(3) is not None:
                v = parse_int(m.group(3))
                if v is None:
                    raise sc.error("address offset is not an integer", pos, s)
                off = -v if m.group(2) == "-" else v
            return Operand("addr", name=base, offset=off)
        v = parse_int(inner)
        if v is not None:
            return Operand("addr", name=None, offset=v)
        raise sc.error("malformed address operand", pos, s)
    if s[0] == "{":
        return Operand("vec", elems=[parse_operand(e, sc, pos) for e in split_top(s[1:-1])])
    if s[0] == "(":
        inner = s[1:-1]
        return Operand("list", elems=[parse_operand(e, sc, pos) for e in split_top(inner)] if inner.strip()
                       else [])
    if s[0] == "!":
        op = parse_operand(s[1:], sc, pos)
        op.neg = True
        return op
    if "|" in s and (s[0] == "%" or s[0].isalpha() or s[0] == "_"):
        return Operand("vec", elems=[parse_operand(e, sc, pos) for e in s.split("|")], name="|")
    if s[0] == "%":                     # a register (no number starts with %)
        return Operand("reg", name=s)
    num = parse_number(s)
    if num is not None:
        return num
    m = _SYMBOL.fullmatch(s)
    if m:
        off = 0
        if m.group(3):
            v = parse_int(m.group(3))
            if v is None:
                raise sc.error("symbol offset is not an integer", pos, s)
            off = -v if m.group(2) == "-" else v
        return Operand("sym", name=m.group(1), offset=off)
    raise sc.error("cannot parse operand", pos, s)


def parse_decl(text: str, sc: _Scanner, pos: int) -> list[VarDecl]:
    """`.reg .b32 %r<5>`, `.shared .align 4 .b8 x[64]`, `.global .u32 g = 3` ... as VarDecls."""
    init = None
    init_error = None
    if "=" in text:
        text, init_s = text.split("=", 1)
        init_s = init_s.strip()
        if init_s.startswith("{"):
            init_s = init_s.strip("{} \n\t")
        items = [x for x in split_top(init_s.replace("{", "").replace("}", "")) if x]
        init = []
        for it in items:
            op = parse_number(it)
            if op is None:
                sym = symbol_initialiser(it)
                if sym is not None:      # a function's or variable's address (indirect.py resolves it)
                    init.append(sym)
                    continue
                # the declaration stays, and a kernel that uses the variable fails (program.py)
                # instead of the whole module
                init_error = (f"unsupported initialiser {it.strip()!r} (numeric constants and symbol "
                              "addresses only)")
                break
            if op.kind == "fimm":
                init.append(("f", op.value, op.bits))
            else:
                init.append(op.value)
    toks = text.replace(",", " , ").split()
    space, typ, align, vec, extern = None, None, 0, 1, False
    names: list[str] = []
    i = 0
    while i < len(toks):
        tk = toks[i]
        if tk.startswith("."):
            key = tk[1:]
            if key in _SPACES and space is None:
                space = key
            elif key == "align":
                i += 1
                if i >= len(toks) or not toks[i].isdigit() or int(toks[i]) & (int(toks[i]) - 1) \
                        or not 0 < int(toks[i]) <= 1 << 16:
                    raise sc.error(".align needs a power-of-two byte count (1..65536)", pos, text)
                align = int(toks[i])
            elif key in ("v2", "v4", "v8"):
                vec = int(key[1:])
            elif key in _TYPES:
                typ = key
            elif key == "extern":
                extern = True
            elif key.startswith("attribute") or key in ("visible", "weak", "ptr", "shared", "global"):
                pass
            elif key in ("texref", "samplerref", "surfref"):
                typ = key           # opaque handles: declared fine, only their use is unsupported
        elif tk != ",":
            names.append(tk)
        i += 1
    if space is None or typ is None:
        raise sc.error("declaration without state space or type", pos, text)
    out = []
    line = sc.line(pos)
    for nm in " ".join(names).replace(" [", "[").split():
        m = _RANGE.match(nm)
        if m:
            if int(m.group(2)) > MAX_REG_RANGE:
                raise sc.error(f"{nm} declares {int(m.group(2)):,} registers; at most {MAX_REG_RANGE:,}",
                               pos, text)
            out.extend(VarDecl(space, f"{m.group(1)}{k}", typ, line=line) for k in range(int(m.group(2))))
            continue
        count = None
        am = re.fullmatch(r"([\w$%.]+)((?:\[\d*\])+)", nm)
        if am:
            nm = am.group(1)
            dims = re.findall(r"\[(\d*)\]", am.group(2))
            count = 1
            for d in dims:
                count *= int(d) if d else 0
            bits = re.match(r"[a-z]+(\d*)", typ)
            size = count * vec * max(int(bits.group(1) or 8) // 8, 1) if bits else count
            limit = MAX_ARRAY_BYTES.get(space, MAX_GLOBAL_BYTES)
            if size > limit:
                raise sc.error(f".{space} array {nm} of {size:,} bytes exceeds {limit:,} bytes", pos, text)
        out.append(VarDecl(space, nm, typ, count=count, align=align, init=None if init_error else init,
                           vec=vec, extern=extern, line=line, init_error=init_error))
    return out


def _parse_params(text: str, sc: _Scanner, pos: int) -> list[VarDecl]:
    out: list[VarDecl] = []
    for p in split_top(text):
        if p:
            out.extend(parse_decl(p, sc, pos))
    return out


def parse_instruction(text: str, sc: _Scanner, pos: int) -> Instruction:
    s = text.strip()
    guard, neg = None, False
    if s.startswith("@"):
        m = _GUARD.match(s)
        if not m:
            raise sc.error("malformed predicate guard", pos, text)
        neg, guard = m.group(1) == "!", m.group(2)
        s = s[m.end():]
    m = _OPCODE.match(s)
    if not m:
        raise sc.error("cannot read the opcode", pos, text)
    opcode = m.group(1)
    rest = s[m.end():].strip()
    try:
        ops = [parse_operand(o, sc, pos) for o in split_top(rest)] if rest else []
    except InputError as e:
        # keep the module: the error is raised when a kernel that contains this instruction is linked
        return Instruction(opcode, [], guard, neg, sc.line(pos), " ".join(text.split()),
                           error=f"{opcode}: {e.message}")
    return Instruction(opcode, ops, guard, neg, sc.line(pos), " ".join(text.split()))


def _parse_body(body: str, offset: int, sc: _Scanner, mod: Module) -> list[Statement]:
    out: list[Statement] = []
    t, n, i = body, len(body), 0
    while True:
        while i < n and t[i].isspace():
            i += 1
        if i >= n:
            break
        pos = offset + i
        c = t[i]
        if c == "{":
            out.append(ScopeOpen(sc.line(pos)))
            i += 1
            continue
        if c == "}":
            out.append(ScopeClose(sc.line(pos)))
            i += 1
            continue
        m = _IDENT.match(t, i)
        if m and c != "." and c != "%":
            j = m.end()
            while j < n and t[j] in " \t":
                j += 1
            if j < n and t[j] == ":" and t[j + 1:j + 2] != ":":    # 'x::y' is an sm_90 qualifier
                out.append(Label(m.group(0), sc.line(pos)))
                i = j + 1
                continue
        if _LOC_FILE.match(t, i, i + 6):
            j = t.find("\n", i)
            i = n if j < 0 else j
            continue
        j = t.find(";", i)
        if j < 0:
            raise sc.error("statement without ';'", pos, t[i:i + 80])
        stmt = t[i:j]
        i = j + 1
        if stmt.lstrip().startswith("."):
            key = stmt.split()[0]
            if key[1:] in _SPACES or key in (".extern", ".align"):
                out.extend(parse_decl(stmt, sc, pos))
            elif key not in _KNOWN_SKIPPED:
                msg = f"{sc.path or '<ptx>'}:{sc.line(pos)}: unknown directive {key} skipped"
                mod.warnings.append(msg)
                warnings.warn(msg, stacklevel=3)
            continue
        out.append(parse_instruction(stmt, sc, pos))
    return out


def _parse_function(header: str, body: str | None, body_pos: int, pos: int, sc: _Scanner,
                    mod: Module) -> Function:
    is_entry = ".entry" in header.split("(")[0]
    h = header.split(".entry", 1)[1] if is_entry else header.split(".func", 1)[1]
    h = h.strip()
    rets: list[VarDecl] = []
    if h.startswith("("):
        sc2 = _Scanner(h, sc.path)
        inner = sc2.balanced("(", ")")
        rets = _parse_params(inner, sc, pos)
        h = h[sc2.i:].strip()
    m = re.match(r"([\w$.]+)\s*", h)
    if not m:
        raise sc.error("function without a name", pos, header)
    name = m.group(1)
    h = h[m.end():]
    params: list[VarDecl] = []
    if h.startswith("("):
        sc2 = _Scanner(h, sc.path)
        inner = sc2.balanced("(", ")")
        params = _parse_params(inner, sc, pos)
        h = h[sc2.i:]
    maxntid = None
    mm = re.search(r"\.(?:maxntid|reqntid)\s+([\d,\s]+)", h)
    if mm:
        maxntid = tuple(int(x) for x in mm.group(1).replace(",", " ").split())
    stmts = _parse_body(body, body_pos, sc, mod) if body is not None else None
    return Function(name, is_entry, params, rets, stmts, sc.line(pos), maxntid)


def parse(text: str, path: str | None = None) -> Module:
    """Parse PTX text. Raises InputError (with file and line) on malformed input."""
    mod = Module(path=path)
    sc = _Scanner(_blank_comments(text), path)
    t = sc.t
    while not sc.eof():
        pos = sc.i
        if t.startswith(".version", pos):
            words = sc.to_eol().split()
            if len(words) != 2 or not re.fullmatch(r"\d{1,3}\.\d{1,3}", words[1]):
                raise sc.error(".version needs MAJOR.MINOR (e.g. .version 8.5)", pos, " ".join(words))
            mod.version = words[1]
            major = int(mod.version.split(".")[0])
            if major < 6 or major > 9:
                warnings.warn(f"PTX ISA version {mod.version} is outside the tested 6.x-9.x range",
                              stacklevel=2)
            continue
        if t.startswith(".target", pos):
            words = sc.to_eol().split(None, 1)
            if len(words) != 2 or not re.match(r"(sm|compute)_\d+", words[1].strip()):
                raise sc.error(".target needs an architecture (e.g. .target sm_80)", pos, " ".join(words))
            mod.target = words[1].strip()
            continue
        if t.startswith(".address_size", pos):
            words = sc.to_eol().split()
            if len(words) != 2 or not words[1].isdigit():
                raise sc.error(".address_size needs 32 or 64", pos, " ".join(words))
            mod.address_size = int(words[1])
            if mod.address_size != 64:
                raise sc.error("only .address_size 64 is supported", pos)
            continue
        if re.match(r"\.(loc|file)\s", t[pos:pos + 6]):
            sc.to_eol()
            continue
        if t.startswith(".section", pos):
            j = t.find("{", pos)
            if j < 0:
                raise sc.error(".section without a '{ ... }' body", pos, t[pos:pos + 80])
            sc.i = j
            sc.balanced("{", "}")
            mod.warnings.append(f"{path or '<ptx>'}:{sc.line(pos)}: .section skipped")
            continue
        # a declaration or function: read up to ';' or a body '{' (not an initialiser's brace)
        j, depth, saw_eq = pos, 0, False
        while j < len(t):
            ch = t[j]
            if ch == "(":
                depth += 1
            elif ch == ")":
                depth -= 1
            elif ch == "=" and depth == 0:
                saw_eq = True
            elif ch == "{" and depth == 0 and not saw_eq:
                break
            elif ch == ";" and depth == 0:
                break
            j += 1
        if j >= len(t):
            raise sc.error("unterminated declaration", pos, t[pos:pos + 80])
        header = t[pos:j]
        head_words = header.split("(")[0].split()
        if ".entry" in head_words or ".func" in head_words:
            body = None
            body_pos = 0
            if t[j] == "{":
                sc.i = j
                body = sc.balanced("{", "}")
                body_pos = j + 1
            else:
                sc.i = j + 1
            fn = _parse_function(header, body, body_pos, pos, sc, mod)
            old = mod.functions.get(fn.name)
            if old is None or old.body is None:
                mod.functions[fn.name] = fn
            continue
        sc.i = j + 1
        key = header.split()[0] if header.split() else ""
        if any(w[1:] in ("global", "const", "shared") for w in head_words):
            mod.globals.extend(parse_decl(header, sc, pos))
        elif key in _KNOWN_SKIPPED or key == ".extern":
            pass
        else:
            msg = f"{path or '<ptx>'}:{sc.line(pos)}: unknown directive {key or header[:20]!r} skipped"
            mod.warnings.append(msg)
            warnings.warn(msg, stacklevel=2)
    resolve_address_uses(mod)
    return mod


_PARSED: OrderedDict[tuple[str, str | None], Module] = OrderedDict()
PARSE_CACHE_ENTRIES = 16


def parse_cached(text: str, path: str | None = None) -> Module:
    """`parse`, remembered for the last few distinct texts of this process. The AST is read-only
    after parsing (linking copies what it changes), so loads of the same PTX share one: a bundled
    ML workload's layers.ptx holds 17 kernels and took 0.21 s to parse on every run of a workload
    that launches one of them, four times its emulation at `small`."""
    key = (hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest(), path)
    mod = _PARSED.get(key)
    if mod is None:
        mod = parse(text, path)
        _PARSED[key] = mod
        if len(_PARSED) > PARSE_CACHE_ENTRIES:
            _PARSED.popitem(last=False)
    else:
        _PARSED.move_to_end(key)
    return mod

