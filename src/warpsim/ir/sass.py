"""SASS opcode -> IR classification, per binary version (accelsim-notes §2.2-2.3).

A trace names each instruction by its full SASS mnemonic (`LDG.E.128.CONSTANT.SYS`). The part
before the first '.' selects a row of the architecture's table (Accel-Sim's *_opcode.h category);
the modifier tokens then refine it: memory width, L1 bypass for `.STRONG.GPU`, FP16x2 rate.

Deliberate choices where Accel-Sim's behaviour is odd or the IR contract is more specific:
* LDC is a LOAD in CONST space on the LDST unit (Accel-Sim keeps it on the INT pipe).
* BAR / MEMBAR / EXIT go to the LDST unit with LatClass.MEM (latency 1, interval 1), as the IR
  contract in kinds.py says; Accel-Sim issues BAR/EXIT on the INT pipe with latency 1.
* Ampere's table puts KILL on the tensor unit (a typo upstream); here it stays on the branch unit.
* Hopper TMA/bulk-copy opcodes issue on LDST but carry no modelled memory traffic.
* Hopper's IMAD/IMUL issue on the SP (FMA) unit with the INT latency class (Accel-Sim: the INT unit);
  Volta, Turing and Ampere keep Accel-Sim's mapping (docs/sass.md says why).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from warpsim.errors import InputError
from warpsim.ir.kinds import FLAG_BYPASS_L1, FLAG_HALF_II, N_LAT_CLASSES, InstKind, LatClass, MemSpace, Unit

# warpsim's own opcode modifier: the IR latency class (e.g. FFMA.WSLAT17 for a PTX-mode FP MAD).
# Accel-Sim ignores it (opcodes are looked up by the text before the first '.').
LAT_MODIFIER = "WSLAT"


class Cat(Enum):
    """Accel-Sim opcode categories (trace_opcode.h), plus the few we treat specially."""

    SP = "SP_OP"
    SFU = "SFU_OP"
    DP = "DP_OP"
    INTP = "INTP_OP"
    ALU = "ALU_OP"
    LOAD = "LOAD_OP"
    STORE = "STORE_OP"
    MEMBAR = "MEMORY_BARRIER_OP"
    BARRIER = "BARRIER_OP"
    EXIT = "EXIT_OPS"
    BRA = "SPECIALIZED_UNIT_1"      # branch / control unit
    TEX = "SPECIALIZED_UNIT_2"
    TENSOR = "SPECIALIZED_UNIT_3"
    UDP = "SPECIALIZED_UNIT_4"      # uniform datapath
    TMA = "TMA_OP"                  # Hopper bulk copies (memory traffic not modelled)
    FMA_INT = "FMA_INT_OP"          # integer multiply-add on the FMA pipe (Hopper's FMAheavy)


@dataclass(frozen=True, slots=True)
class OpInfo:
    """Everything the IR needs about one full opcode string."""

    kind: InstKind
    unit: Unit
    lat: LatClass
    space: MemSpace
    flags: int
    width: int          # bytes per lane for memory instructions, else 0

    @property
    def is_mem(self) -> bool:
        return self.space != MemSpace.NONE


def _names(text: str) -> tuple[str, ...]:
    return tuple(text.split())


# ---- Volta (sm_70) -------------------------------------------------------------------------
_VOLTA: dict[Cat, tuple[str, ...]] = {
    Cat.SP: _names("FADD FADD32I FCHK FFMA32I FFMA FMNMX FMUL FMUL32I FSEL FSET FSETP FSWZADD "
                   "HADD2 HADD2_32I HFMA2 HFMA2_32I HMUL2 HMUL2_32I HSET2 HSETP2"),
    Cat.SFU: _names("MUFU"),
    Cat.DP: _names("DADD DFMA DMUL DSETP"),
    Cat.INTP: _names("BMSK BREV FLO IABS IADD IADD3 IADD32I IDP IDP4A IMAD IMMA IMNMX IMUL IMUL32I "
                     "ISCADD ISCADD32I ISETP LEA LOP LOP3 LOP32I POPC SHF SHR VABSDIFF VABSDIFF4"),
    Cat.ALU: _names("F2F F2I I2F I2I I2IP FRND MOV MOV32I PRMT SEL SGXT SHFL PLOP3 PSETP P2R R2P "
                    "LDC MATCH QSPC CCTL CCTLL ERRBAR CCTLT B2R CS2R CSMTEST DEPBAR GETLMEMBASE LEPC "
                    "NOP PMTRIG R2B S2R SETCTAID SETLMEMBASE VOTE VOTE_VTG"),
    Cat.LOAD: _names("LD LDG LDL LDS"),
    Cat.STORE: _names("ST STG STL STS ATOM ATOMS ATOMG RED REDG"),
    Cat.MEMBAR: _names("MEMBAR"),
    Cat.BARRIER: _names("BAR"),
    Cat.EXIT: _names("EXIT"),
    Cat.BRA: _names("BMOV BPT BRA BREAK BRX BSSY BSYNC CALL JMP JMX KILL NANOSLEEP RET RPCMOV RTT "
                    "WARPSYNC YIELD"),
    Cat.TEX: _names("TEX TLD TLD4 TMML TXD TXQ"),
    Cat.TENSOR: _names("HMMA"),
}

# Pascal-era mnemonics that Volta dropped (best effort: the notes give no Pascal table).
_PASCAL_EXTRA: dict[Cat, tuple[str, ...]] = {
    Cat.SP: _names("FCMP RRO"),
    Cat.INTP: _names("XMAD ISAD ICMP BFE BFI SHL IMADSP ISCADD"),
    Cat.ALU: _names("CSET CSETP PSET TEXDEPBAR"),
    Cat.BRA: _names("SSY SYNC PBK BRK CONT PCNT CAL PRET PEXIT JCAL"),
    Cat.TEX: _names("TEXS TLDS TLD4S"),
    Cat.DP: _names("DMNMX DSET"),
}

_UDP = _names("R2UR REDUX S2UR UBMSK UBREV UCLEA UF2FP UFLO UIADD3 UIMAD UISETP ULDC ULEA ULOP ULOP3 "
              "ULOP32I UMOV UP2UR UPLOP3 UPOPC UPRMT UPSETP UR2UP USEL USGXT USHF USHL USHR VOTEU")

# ---- Ampere (sm_80/86/89): Volta with the differences of notes §2.3 -------------------------
_AMPERE_EXTRA: dict[Cat, tuple[str, ...]] = {
    Cat.SP: _names("HMNMX2"),
    Cat.INTP: _names("SHL"),
    Cat.ALU: _names("F2FP I2FP F2IP MOVM LDGDEPBAR SUATOM SULD SUQUERY SURED SUST"),
    Cat.LOAD: _names("LDSM LDGSTS"),
    Cat.BRA: _names("BRXU JMXU"),
    Cat.TENSOR: _names("DMMA BMMA IMMA"),
    Cat.UDP: _UDP,
}
_TURING_DROP = frozenset(_names("LDGSTS LDGDEPBAR DMMA"))

# ---- Hopper (sm_90): Ampere + the 2025+ additions -------------------------------------------
_HOPPER_EXTRA: dict[Cat, tuple[str, ...]] = {
    Cat.INTP: _names("VIADD VIADDMNMX"),
    Cat.SP: _names("VIMNMX VIMNMX3"),
    Cat.ALU: _names("CGAERRBAR SYNCS ARRIVES WARPGROUP USETMAXREG UCGABAR_ARV UCGABAR_WAIT "
                    "UCGABAR_GET UCGABAR_SET"),
    Cat.BRA: _names("ELECT"),
    Cat.MEMBAR: _names("FENCE"),
    Cat.TENSOR: _names("QGMMA HGMMA IGMMA BGMMA"),
    # GH100's FMA pipe ("FMAheavy") executes IMAD as well as FP32, leaving the ALU pipe the other integer
    # ops: an H200 runs sdk/mergesort's mergeSortSharedKernel (92.1 M SASS warp instructions, integer
    # bound) in 241,474 cycles; with IMAD on the INT unit the model took 286,276 (+18.6 %), on the FMA
    # pipe 241,811 (+0.1 %). docs/sass.md, "IMAD on Hopper's FMA pipe".
    Cat.FMA_INT: _names("IMAD IMUL IMUL32I"),
    Cat.TMA: _names("UBLKCP UBLKPF UBLKRED UTMALDG UTMAPF UTMAREDG UTMASTG UTMACCTL UTMACMDFLUSH"),
}


def _merge(*tables: dict[Cat, tuple[str, ...]], drop: frozenset[str] = frozenset()) -> dict[str, Cat]:
    """Later tables win (IMMA moves from INTP on Volta to the tensor unit on Turing+)."""
    out: dict[str, Cat] = {}
    for table in tables:
        for cat, names in table.items():
            for name in names:
                out[name] = cat
    for name in drop:
        out.pop(name, None)
    return out


ARCH_TABLES: dict[str, dict[str, Cat]] = {
    "pascal": _merge(_VOLTA, _PASCAL_EXTRA),
    "volta": _merge(_VOLTA),
    "turing": _merge(_VOLTA, _AMPERE_EXTRA, drop=_TURING_DROP),
    "ampere": _merge(_VOLTA, _AMPERE_EXTRA),
    "hopper": _merge(_VOLTA, _AMPERE_EXTRA, _HOPPER_EXTRA),
}

_ARCH_OF_VERSION = {60: "pascal", 61: "pascal", 62: "pascal", 70: "volta", 72: "volta", 75: "turing",
                    80: "ampere", 86: "ampere", 87: "ampere", 89: "ampere", 90: "hopper"}
SUPPORTED_VERSIONS = tuple(sorted(_ARCH_OF_VERSION))

# FP16x2 ops whose initiation interval Accel-Sim halves (HMUL2 itself is not in its list).
HALF_II_OPS = frozenset(_names("HADD2 HADD2_32I HFMA2 HFMA2_32I HMUL2_32I HSET2 HSETP2"))

_LOAD_SPACE = {"LD": MemSpace.GENERIC, "LDG": MemSpace.GLOBAL, "LDGSTS": MemSpace.GLOBAL,
               "LDL": MemSpace.LOCAL, "LDS": MemSpace.SHARED, "LDSM": MemSpace.SHARED,
               "LDC": MemSpace.CONST}
_STORE_SPACE = {"ST": MemSpace.GENERIC, "STG": MemSpace.GLOBAL, "STL": MemSpace.LOCAL,
                "STS": MemSpace.SHARED}
_ATOMICS = {"ATOM": MemSpace.GLOBAL, "ATOMG": MemSpace.GLOBAL, "RED": MemSpace.GLOBAL,
            "REDG": MemSpace.GLOBAL, "ATOMS": MemSpace.SHARED}     # REDG: sm_90's RED to global
_BYPASS_CAPABLE = frozenset(("LDG", "LDGSTS", "LDL"))

_SIMPLE = {  # category -> (kind, unit, lat) for the non-memory categories
    Cat.SP: (InstKind.ALU, Unit.SP, LatClass.SP),
    Cat.SFU: (InstKind.ALU, Unit.SFU, LatClass.SFU),
    Cat.DP: (InstKind.ALU, Unit.DP, LatClass.DP),
    Cat.INTP: (InstKind.ALU, Unit.INT, LatClass.INT),
    Cat.ALU: (InstKind.ALU, Unit.INT, LatClass.INT),
    Cat.MEMBAR: (InstKind.MEMBAR, Unit.LDST, LatClass.MEM),
    Cat.BARRIER: (InstKind.BARRIER, Unit.LDST, LatClass.MEM),
    Cat.EXIT: (InstKind.EXIT, Unit.LDST, LatClass.MEM),
    Cat.BRA: (InstKind.BRANCH, Unit.BRA, LatClass.BRA),
    Cat.TEX: (InstKind.ALU, Unit.TEX, LatClass.TEX),
    Cat.TENSOR: (InstKind.ALU, Unit.TENSOR, LatClass.TENSOR),
    Cat.UDP: (InstKind.ALU, Unit.UDP, LatClass.UDP),
    Cat.TMA: (InstKind.ALU, Unit.LDST, LatClass.MEM),
    Cat.FMA_INT: (InstKind.ALU, Unit.SP, LatClass.INT),
}


def arch_of(binary_version: int) -> str:
    """Architecture table name for a `-binary version`; InputError when unsupported."""
    try:
        return _ARCH_OF_VERSION[binary_version]
    except KeyError:
        raise InputError(f"unsupported binary version {binary_version} "
                         f"(supported: {', '.join(map(str, SUPPORTED_VERSIONS))})",
                         key="binary version") from None


def width_from_tokens(tokens: list[str] | tuple[str, ...]) -> int:
    """Bytes per lane from the modifiers: first numeric token /8, or U<n>/S<n> /8; default 4.

    The trace's own width field is not trusted (NVBit can report it wrongly), as in Accel-Sim.
    """
    for tok in tokens[1:]:
        if tok.isdigit():
            return int(tok) // 8
        if len(tok) > 1 and tok[0] in "US" and tok[1:].isdigit():
            return int(tok[1:]) // 8
    return 4


def classify(opcode: str, table: dict[str, Cat]) -> OpInfo:
    """Decode one full opcode string with an architecture table (see `arch_of`)."""
    tokens = opcode.split(".")
    base = tokens[0]
    cat = table.get(base)
    if cat is None:
        raise InputError(f"unknown SASS opcode {base!r} (in {opcode!r})", text=opcode)
    flags = FLAG_HALF_II if base in HALF_II_OPS else 0
    if base in _ATOMICS:
        space = _ATOMICS[base]
        if space == MemSpace.GLOBAL:
            flags |= FLAG_BYPASS_L1
        return OpInfo(InstKind.ATOMIC, Unit.LDST, LatClass.MEM, space, flags, _mem_width(tokens, opcode))
    if base in _LOAD_SPACE:
        if base in _BYPASS_CAPABLE and "STRONG" in tokens and "GPU" in tokens:
            flags |= FLAG_BYPASS_L1
        return OpInfo(InstKind.LOAD, Unit.LDST, LatClass.MEM, _LOAD_SPACE[base], flags,
                      _mem_width(tokens, opcode))
    if base in _STORE_SPACE:
        return OpInfo(InstKind.STORE, Unit.LDST, LatClass.MEM, _STORE_SPACE[base], flags,
                      _mem_width(tokens, opcode))
    kind, unit, lat = _SIMPLE[cat]
    if base == "NOP":
        kind = InstKind.NOP
    for tok in tokens[1:]:
        if tok.startswith(LAT_MODIFIER) and tok[len(LAT_MODIFIER):].isdigit():
            n = int(tok[len(LAT_MODIFIER):])
            if n >= N_LAT_CLASSES:
                raise InputError(f"latency class {n} in {opcode!r} is out of range", text=opcode)
            lat = LatClass(n)
    return OpInfo(kind, unit, lat, MemSpace.NONE, flags, tensor_work(tokens) if cat == Cat.TENSOR else 0)


# warp-level MMA shapes (m, n, k) as SASS spells them: HMMA.884 (Volta), HMMA.1688 / IMMA.8816
# (Turing), HMMA.16816 / HMMA.1684 / DMMA.884 (Ampere and later)
_MMA_SHAPES = {"884": (8, 8, 4), "1684": (16, 8, 4), "1688": (16, 8, 8), "16816": (16, 8, 16),
               "8816": (8, 8, 16), "8832": (8, 8, 32), "16832": (16, 8, 32), "168256": (16, 8, 256)}


def tensor_work(tokens: list[str] | tuple[str, ...]) -> int:
    """A warp MMA's multiply-adds in units of Volta's HMMA.884 (256 per warp), 0 when the shape is
    not a known one (Hopper's warpgroup GMMA): the timing model scales the tensor unit's latency and
    interval by it against the GPU's own instruction (latency.tensor_work)."""
    for tok in tokens[1:]:
        shape = _MMA_SHAPES.get(tok)
        if shape is not None:
            m, n, k = shape
            return max(1, m * n * k // 256)
    return 0


def _mem_width(tokens: list[str], opcode: str) -> int:
    width = width_from_tokens(tokens)
    if not 1 <= width <= 255:
        raise InputError(f"memory width {width} bytes from opcode {opcode!r} is not in 1..255", text=opcode)
    return width


class OpcodeDecoder:
    """Memoising `classify` for one binary version: a trace repeats few distinct opcode strings."""

    def __init__(self, binary_version: int) -> None:
        self.binary_version = binary_version
        self.arch = arch_of(binary_version)
        self.table = ARCH_TABLES[self.arch]
        self._cache: dict[str, OpInfo] = {}

    def __call__(self, opcode: str) -> OpInfo:
        info = self._cache.get(opcode)
        if info is None:
            info = classify(opcode, self.table)
            self._cache[opcode] = info
        return info


# ---- IR -> representative opcode (for the trace writer) --------------------------------------

_REPRESENTATIVE: dict[tuple[int, int, int, int, int], str | tuple[str, ...]] = {
    (InstKind.ALU, Unit.SP, LatClass.SP, MemSpace.NONE, 0): "FFMA",
    (InstKind.ALU, Unit.SP, LatClass.SP, MemSpace.NONE, FLAG_HALF_II): "HFMA2",
    (InstKind.ALU, Unit.SFU, LatClass.SFU, MemSpace.NONE, 0): "MUFU.RCP",
    (InstKind.ALU, Unit.DP, LatClass.DP, MemSpace.NONE, 0): "DFMA",
    # IMAD is an SP-unit op on Hopper (above): there the INT class falls back to IADD3
    (InstKind.ALU, Unit.INT, LatClass.INT, MemSpace.NONE, 0): ("IMAD", "IADD3"),
    (InstKind.ALU, Unit.SP, LatClass.INT, MemSpace.NONE, 0): "IMAD",
    (InstKind.NOP, Unit.INT, LatClass.INT, MemSpace.NONE, 0): "NOP",
    (InstKind.MEMBAR, Unit.LDST, LatClass.MEM, MemSpace.NONE, 0): "MEMBAR.SC.GPU",
    (InstKind.BARRIER, Unit.LDST, LatClass.MEM, MemSpace.NONE, 0): "BAR.SYNC",
    (InstKind.EXIT, Unit.LDST, LatClass.MEM, MemSpace.NONE, 0): "EXIT",
    (InstKind.BRANCH, Unit.BRA, LatClass.BRA, MemSpace.NONE, 0): "BRA",
    (InstKind.ALU, Unit.TEX, LatClass.TEX, MemSpace.NONE, 0): "TEX",
    (InstKind.ALU, Unit.TENSOR, LatClass.TENSOR, MemSpace.NONE, 0): "HMMA",
    (InstKind.ALU, Unit.UDP, LatClass.UDP, MemSpace.NONE, 0): "UIADD3",
    (InstKind.ALU, Unit.LDST, LatClass.MEM, MemSpace.NONE, 0): "UTMAPF",
    (InstKind.LOAD, Unit.LDST, LatClass.MEM, MemSpace.GLOBAL, 0): "LDG.E",
    (InstKind.LOAD, Unit.LDST, LatClass.MEM, MemSpace.GLOBAL, FLAG_BYPASS_L1): "LDG.E.STRONG.GPU",
    (InstKind.LOAD, Unit.LDST, LatClass.MEM, MemSpace.LOCAL, 0): "LDL",
    (InstKind.LOAD, Unit.LDST, LatClass.MEM, MemSpace.LOCAL, FLAG_BYPASS_L1): "LDL.STRONG.GPU",
    (InstKind.LOAD, Unit.LDST, LatClass.MEM, MemSpace.SHARED, 0): "LDS",
    (InstKind.LOAD, Unit.LDST, LatClass.MEM, MemSpace.CONST, 0): "LDC",
    (InstKind.LOAD, Unit.LDST, LatClass.MEM, MemSpace.GENERIC, 0): "LD.E",
    (InstKind.STORE, Unit.LDST, LatClass.MEM, MemSpace.GLOBAL, 0): "STG.E",
    (InstKind.STORE, Unit.LDST, LatClass.MEM, MemSpace.LOCAL, 0): "STL",
    (InstKind.STORE, Unit.LDST, LatClass.MEM, MemSpace.SHARED, 0): "STS",
    (InstKind.STORE, Unit.LDST, LatClass.MEM, MemSpace.GENERIC, 0): "ST.E",
    (InstKind.ATOMIC, Unit.LDST, LatClass.MEM, MemSpace.GLOBAL, FLAG_BYPASS_L1): "ATOMG.E.ADD",
    (InstKind.ATOMIC, Unit.LDST, LatClass.MEM, MemSpace.SHARED, 0): "ATOMS.ADD",
}


def _width_suffix(width: int) -> str:
    if width == 4:
        return ""
    if width in (1, 2):
        return f".U{8 * width}"
    return f".{8 * width}"


class OpcodeEncoder:
    """IR fields -> a SASS opcode string that `OpcodeDecoder` maps back to the same fields.

    `exact(...)` returns None when no opcode reproduces the fields (e.g. a PTX latency class, a
    uniform-datapath op on Volta); `nearest(...)` then picks a same-unit stand-in.
    """

    def __init__(self, binary_version: int) -> None:
        self.decoder = OpcodeDecoder(binary_version)
        self._cache: dict[tuple[int, int, int, int, int, int], str | None] = {}

    def exact(self, kind: int, unit: int, lat: int, space: int, flags: int, width: int) -> str | None:
        key = (kind, unit, lat, space, flags, width)
        if key in self._cache:
            return self._cache[key]
        bases = _REPRESENTATIVE.get((kind, unit, lat, space, flags), ())
        opcode = None
        for base in (bases,) if isinstance(bases, str) else bases:
            cand = base + _width_suffix(width) if space != MemSpace.NONE else base
            if self._decodes_to(cand, key):
                opcode = cand
                break
        self._cache[key] = opcode
        return opcode

    def nearest(self, kind: int, unit: int, lat: int, space: int, flags: int, width: int) -> str:
        """A stand-in that keeps kind, space and width (memory) or kind and unit (others); lossy."""
        found = self.exact(kind, unit, lat, space, flags, width)
        if found is not None:
            return found
        if space != MemSpace.NONE:
            # a texture fetch keeps its addresses as a global load (both go through L1TEX): Accel-Sim's
            # TEX opcodes carry no addresses, so a TEX stand-in would drop the fetch's memory traffic
            spaces = (space, MemSpace.GLOBAL) if space == MemSpace.TEX else (space,)
            for try_space in spaces:
                for try_flags in (flags & FLAG_BYPASS_L1, 0, FLAG_BYPASS_L1):
                    found = self.exact(kind, Unit.LDST, LatClass.MEM, try_space, try_flags, width)
                    if found is not None:
                        return found
            raise ValueError(f"no SASS opcode for memory instruction kind={InstKind(kind).name} "
                             f"space={MemSpace(space).name} width={width}")
        if kind in _KIND_HOME:
            home_unit, home_lat = _KIND_HOME[kind]
            found = self.exact(kind, home_unit, home_lat, MemSpace.NONE, 0, 0)
        else:
            lat_class = _DEFAULT_LAT.get(unit, LatClass.INT)
            found = (self.exact(InstKind.ALU, unit, lat_class, MemSpace.NONE, flags & FLAG_HALF_II, 0)
                     or self.exact(InstKind.ALU, unit, lat_class, MemSpace.NONE, 0, 0))
        return found if found is not None else "IMAD"

    def _decodes_to(self, opcode: str, key: tuple[int, ...]) -> bool:
        try:
            info = self.decoder(opcode)
        except InputError:
            return False
        return (info.kind, info.unit, info.lat, info.space, info.flags, info.width) == key


_KIND_HOME = {InstKind.BARRIER: (Unit.LDST, LatClass.MEM), InstKind.EXIT: (Unit.LDST, LatClass.MEM),
              InstKind.MEMBAR: (Unit.LDST, LatClass.MEM), InstKind.NOP: (Unit.INT, LatClass.INT),
              InstKind.BRANCH: (Unit.BRA, LatClass.BRA)}
_DEFAULT_LAT = {Unit.INT: LatClass.INT, Unit.SP: LatClass.SP, Unit.DP: LatClass.DP, Unit.SFU: LatClass.SFU,
                Unit.TENSOR: LatClass.TENSOR, Unit.BRA: LatClass.BRA, Unit.TEX: LatClass.TEX,
                Unit.UDP: LatClass.UDP, Unit.LDST: LatClass.MEM}
