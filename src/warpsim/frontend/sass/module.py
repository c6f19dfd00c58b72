"""SASS for a PTX module: a shipped disassembly next to the PTX, or ptxas + nvdisasm when installed."""

from __future__ import annotations

import hashlib
import lzma
from pathlib import Path

from warpsim.errors import InputError
from warpsim.frontend.ptx.kernel import Kernel
from warpsim.frontend.sass.parse import SassModule, parse_nvdisasm
from warpsim.frontend.sass.program import SassKernel
from warpsim.frontend.sass.toolchain import compile_arch, ptx_to_sass_text

HASH_PREFIX = "// warpsim-ptx-sha256: "


def ptx_digest(ptx_text: str) -> str:
    return hashlib.sha256(ptx_text.encode()).hexdigest()


def shipped_sass_path(ptx_path: str | Path, sm: int) -> Path:
    """Where a bundled workload ships its disassembly: `<name>.sm_XY.sass.xz` beside `<name>.ptx`."""
    p = Path(ptx_path)
    return p.with_name(f"{p.stem}.sm_{sm}.sass.xz")


def with_digest(sass_text: str, ptx_text: str) -> str:
    return f"{HASH_PREFIX}{ptx_digest(ptx_text)}\n{sass_text}"


def sass_text_for(ptx_text: str, sm: int, ptx_path: str | None = None) -> str:
    """The disassembly of this exact PTX for sm_XY: shipped file if its digest matches, else compiled."""
    if ptx_path is not None:
        shipped = shipped_sass_path(ptx_path, sm)
        if shipped.exists():
            text = lzma.decompress(shipped.read_bytes()).decode()
            first = text.split("\n", 1)[0]
            if first == f"{HASH_PREFIX}{ptx_digest(ptx_text)}":
                return text
    return ptx_to_sass_text(ptx_text, sm, ptx_path)


class SassCache:
    """Parsed SASS modules and per-kernel programs, keyed by PTX text and target."""

    def __init__(self) -> None:
        self._modules: dict[tuple[str, int], SassModule] = {}
        self._kernels: dict[tuple[str, int, str], SassKernel] = {}

    def kernel(self, ptx_text: str, ptx_kernel: Kernel, binary_version: int,
               ptx_path: str | None = None) -> SassKernel:
        sm = compile_arch(binary_version)
        digest = ptx_digest(ptx_text)
        key = (digest, sm, ptx_kernel.name)
        sk = self._kernels.get(key)
        if sk is None:
            mod = self._modules.get((digest, sm))
            if mod is None:
                mod = parse_nvdisasm(sass_text_for(ptx_text, sm, ptx_path), ptx_path)
                self._modules[(digest, sm)] = mod
            if ptx_kernel.name not in mod.functions:
                raise InputError(f"kernel {ptx_kernel.name} is missing from the SASS", path=ptx_path)
            sk = SassKernel(mod.kernel(ptx_kernel.name), mod.sm or sm, ptx_kernel, ptx_path)
            self._kernels[key] = sk
        return sk


DEFAULT_CACHE = SassCache()


def ship(ptx_paths: list[Path], sm: int) -> list[Path]:
    """Write `<name>.sm_XY.sass.xz` (digest-stamped) beside each PTX; needs ptxas and nvdisasm."""
    out = []
    for p in ptx_paths:
        text = p.read_text()
        sass = with_digest(ptx_to_sass_text(text, sm, str(p)), text)
        dst = shipped_sass_path(p, sm)
        dst.write_bytes(lzma.compress(sass.encode(), preset=9 | lzma.PRESET_EXTREME))
        out.append(dst)
    return out


if __name__ == "__main__":      # python -m warpsim.frontend.sass.module [SM]: refresh the bundled SASS
    import sys

    from warpsim.workloads.registry import all_workloads

    target = int(sys.argv[1]) if len(sys.argv) > 1 else 75
    paths = sorted({Path(w.ptx_path) for w in all_workloads()})
    for written in ship(paths, target):
        print(written)
