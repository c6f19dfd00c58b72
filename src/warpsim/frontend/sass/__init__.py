"""SASS-faithful execution-driven simulation without a GPU (docs/sass.md).

cubin -> nvdisasm -> SASS program (parse.py, program.py); the PTX emulator's execution replayed on the
SASS basic blocks through ptxas line information (walk.py); the result is the usual IR with the
kernel tagged `extra["isa"] == "sass"` (source.py).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from warpsim.errors import InputError
from warpsim.frontend.sass.module import DEFAULT_CACHE, SassCache
from warpsim.frontend.sass.source import ISA_TAG, SassKernelSource
from warpsim.ir.records import KernelSource, Memcpy

ISAS = ("ptx", "sass")


def sass_commands(commands: Iterable[Memcpy | KernelSource], binary_version: int | None = None,
                  cache: SassCache | None = None) -> list[Memcpy | KernelSource]:
    """Re-express every PTX-emulated kernel of a command stream in SASS (other commands pass through)."""
    from warpsim.frontend.ptx.launch import PtxKernelSource

    cache = cache or DEFAULT_CACHE
    texts: dict[str, str] = {}
    out: list[Memcpy | KernelSource] = []
    for cmd in commands:
        if isinstance(cmd, PtxKernelSource):
            path = cmd.info.source_path
            is_file = path is not None and Path(path).is_file()
            text = cmd.ptx_text
            if text is None:            # a source built outside Module.launch: its PTX file
                if not is_file:
                    raise InputError(f"kernel {cmd.info.name}: SASS mode needs the PTX the kernel came from",
                                     path=path)
                if path not in texts:
                    texts[path] = Path(path).read_text()
                text = texts[path]
            sk = cache.kernel(text, cmd.kernel, binary_version or cmd.info.binary_version,
                              path if is_file else None)
            out.append(SassKernelSource(cmd, sk))
        elif isinstance(cmd, Memcpy):
            out.append(cmd)
        elif getattr(cmd, "info", None) is not None and cmd.info.extra.get("isa") == ISA_TAG:
            out.append(cmd)
        else:
            raise InputError(f"kernel {cmd.info.name}: only PTX-emulated kernels can be re-expressed in SASS "
                             "(a SASS trace already is)")
    return out


__all__ = ["ISAS", "ISA_TAG", "SassKernelSource", "sass_commands"]
