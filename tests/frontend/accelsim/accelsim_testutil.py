"""Helpers for the Accel-Sim trace tests: small trace files written from strings."""

from __future__ import annotations

import lzma
import textwrap
from pathlib import Path

LUD_DIR = Path("/work/shared/reference/traces/lud_perimeter")

V5_HEADER = """\
-kernel name = _Z3fooPfS_
-kernel id = 3
-grid dim = ({grid},1,1)
-block dim = (64,1,1)
-shmem = 1024
-nregs = 24
-binary version = {version}
-cuda stream id = 7
-shmem base_addr = 0x00007f0675000000
-local mem base_addr = 0x00007f0677000000
-nvbit version = 1.7
-accelsim tracer version = {tracer}
-enable lineinfo = {lineinfo}

#traces format = [line_num] PC mask dest_num [reg_dests] opcode src_num [reg_srcs] mem_width ...

"""


def v5_header(version: int = 70, tracer: int = 5, lineinfo: int = 0, grid: int = 1) -> str:
    """A v5 header; `grid` thread blocks in x (a trace must hold every one of them)."""
    return V5_HEADER.format(version=version, tracer=tracer, lineinfo=lineinfo, grid=grid)


def one_cta(body: str, warps_after: str = "\nwarp = 1\ninsts = 0\n", cta: str = "0,0,0") -> str:
    """A #BEGIN_TB block whose warp 0 holds `body` (instruction lines, counted automatically)."""
    lines = [ln for ln in textwrap.dedent(body).strip("\n").splitlines()]
    return (f"\n#BEGIN_TB\n\nthread block = {cta}\n\nwarp = 0\ninsts = {len(lines)}\n"
            + "".join(ln + "\n" for ln in lines) + warps_after + "\n#END_TB\n")


def write(directory: Path, name: str, text: str, *, xz: bool = False) -> Path:
    path = directory / name
    if xz:
        with lzma.open(path, "wt") as f:
            f.write(text)
    else:
        path.write_text(text)
    return path


def line_of(text: str, needle: str, *, last: bool = False) -> int:
    """1-based number of the first (or last) line of `text` containing `needle`."""
    found = [i for i, line in enumerate(text.splitlines(), 1) if needle in line]
    if not found:
        raise AssertionError(f"{needle!r} not in text")
    return found[-1] if last else found[0]
