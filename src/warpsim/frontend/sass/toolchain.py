"""PTX -> cubin (ptxas) -> SASS text (nvdisasm), with every SASS instruction tied to its PTX line.

The PTX handed to ptxas is the emulated PTX with one `.loc 1 <line> 0` before each instruction
(`.file 1` names the PTX itself). ptxas then attributes each SASS instruction to the PTX instruction it
came from, which is finer than CUDA source lines and needs no `-lineinfo` at the nvcc step: the same
text the PTX emulator runs is the text ptxas compiles.
"""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
import tempfile
from pathlib import Path

from warpsim.errors import InputError
from warpsim.frontend.cuda import find_tool
from warpsim.frontend.ptx.ast import Instruction
from warpsim.frontend.ptx.parser import parse

PTX_FILE_TAG = "warpsim.ptx"
NVDISASM_HINT = ("nvdisasm not found: `pip install 'warpsim[cuda]'` (NVIDIA's nvidia-cuda-nvdisasm wheel), "
                 "install a CUDA toolkit, or set WARPSIM_NVDISASM")
PTXAS_HINT = ("ptxas not found: `pip install 'warpsim[cuda]'`, install a CUDA toolkit, or set WARPSIM_PTXAS")

# -c: code only; -g: the PTX line of each instruction; -hex: each encoding, whose control field carries
# the compiler's stall counts (parse.SassInst.stall)
NVDISASM_FLAGS = ("-c", "-g", "-hex")

# CUDA 13's ptxas targets sm_75 and newer; Volta (sm_70/72) is compiled for the nearest it reaches.
OLDEST_TARGET = 75


_LOC_OR_FILE = re.compile(r"\.(loc|file)\s")


def compile_arch(binary_version: int) -> int:
    """The sm_XY we compile for when simulating a GPU of `binary_version` (Volta -> sm_75)."""
    return max(binary_version, OLDEST_TARGET) if binary_version < 90 else 90


def instruction_lines(ptx_text: str, path: str | None = None) -> set[int]:
    """Lines of the PTX text where an instruction starts (from the emulator's own parser)."""
    mod = parse(ptx_text, path)
    lines: set[int] = set()
    for fn in mod.functions.values():
        for st in fn.body or ():
            if isinstance(st, Instruction) and st.line:
                lines.add(int(st.line))
    return lines


def ptx_with_locs(ptx_text: str, path: str | None = None) -> str:
    """The PTX with a `.loc` naming its own line before every instruction (line numbers unchanged)."""
    inst_lines = instruction_lines(ptx_text, path)
    out: list[str] = []
    file_done = False
    for i, line in enumerate(ptx_text.split("\n"), 1):
        s = line.strip()
        if _LOC_OR_FILE.match(s):                      # not `.local`: a depot's declaration stays
            line = ""                                  # replaced by ours; keeps line numbers
        if i in inst_lines:
            out.append(f"\t.loc 1 {i} 0\t{line.strip()}" if line.strip() else line)
            continue
        if not file_done and s.startswith(".address_size"):
            out.append(f'{line}\t.file 1 "{PTX_FILE_TAG}"')
            file_done = True
            continue
        out.append(line)
    if not file_done:
        raise InputError("PTX has no .address_size directive; cannot attach line information", path=path)
    return "\n".join(out)


def _run(cmd: list[str], what: str, path: str | None) -> subprocess.CompletedProcess:
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise InputError(f"{what} failed:\n{(r.stderr or r.stdout).strip()}", path=path)
    return r


def ptx_to_sass_text(ptx_text: str, sm: int, path: str | None = None, opt_level: int = 3) -> str:
    """Compile PTX for sm_XY and disassemble it with PTX line info; cached on disk by content."""
    ptxas = find_tool("ptxas")
    if ptxas is None:
        raise InputError(PTXAS_HINT, path=path)
    nvdisasm = find_tool("nvdisasm")
    if nvdisasm is None:
        raise InputError(NVDISASM_HINT, path=path)
    annotated = ptx_with_locs(ptx_text, path)
    digest = hashlib.sha256(f"{sm}|{opt_level}|{ptxas}|{nvdisasm}|{NVDISASM_FLAGS}|{annotated}".encode())
    key = digest.hexdigest()[:24]
    cache = Path(os.environ.get("WARPSIM_SASS_CACHE", Path(tempfile.gettempdir()) / "warpsim-sass"))
    hit = cache / f"{key}.sass"
    if hit.exists():
        return hit.read_text()
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / PTX_FILE_TAG
        src.write_text(annotated)
        cubin = Path(tmp) / "k.cubin"
        _run([ptxas, f"-arch=sm_{sm}", f"-O{opt_level}", "-lineinfo", str(src), "-o", str(cubin)], "ptxas",
             path)
        text = _run([nvdisasm, *NVDISASM_FLAGS, str(cubin)], "nvdisasm", path).stdout
    cache.mkdir(parents=True, exist_ok=True)
    tmp_out = hit.with_suffix(f".{os.getpid()}.tmp")
    tmp_out.write_text(text)
    tmp_out.replace(hit)
    return text
