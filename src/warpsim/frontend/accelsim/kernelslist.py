"""kernelslist.g: the command list of an Accel-Sim trace directory (accelsim-notes §1.2)."""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from warpsim.errors import InputError
from warpsim.ir.records import Memcpy

log = logging.getLogger(__name__)

TRACE_SUFFIXES = (".traceg", ".traceg.xz")


@dataclass(frozen=True)
class KernelEntry:
    """A kernel trace named by the list: its resolved path and where the list named it."""

    path: Path
    list_path: Path
    line: int


def is_trace_file(name: str) -> bool:
    return name.endswith(TRACE_SUFFIXES)


def parse_kernelslist(path: Path) -> Iterator[Memcpy | KernelEntry]:
    """Yield the list's commands in order; a named kernel file must exist.

    `MemcpyHtoD,0xADDR,BYTES` becomes a Memcpy; other Memcpy kinds are ignored with a warning
    (the tracer records only HtoD); anything that is neither is an error.
    """
    base = path.parent
    commands = 0
    try:
        handle = open(path, encoding="utf-8", errors="replace")
    except OSError as exc:
        raise InputError(f"cannot read kernel list: {exc.strerror or exc}", path=str(path)) from None
    with handle:
        for lineno, raw in enumerate(handle, 1):
            line = raw.strip()
            if not line:
                continue
            if line.startswith("MemcpyHtoD"):
                yield _memcpy(line, path, lineno)
            elif line.startswith("Memcpy"):
                log.warning("%s:%d: ignoring %s (only MemcpyHtoD is replayed)", path, lineno,
                            line.split(",")[0])
            elif is_trace_file(line):
                kpath = base / line
                if not kpath.is_file():
                    raise InputError(f"kernel trace file {line!r} not found (looked for {kpath})",
                                     path=str(path), line=lineno, text=line)
                commands += 1
                yield KernelEntry(kpath, path, lineno)
            elif line.endswith((".trace", ".trace.xz")):
                raise InputError("raw tracer output (.trace): run Accel-Sim's post-traces-processing to get "
                                 ".traceg files and kernelslist.g", path=str(path), line=lineno, text=line)
            else:
                raise InputError("unrecognised kernel-list command (expected MemcpyHtoD,0xADDR,BYTES "
                                 "or a .traceg / .traceg.xz file name)", path=str(path), line=lineno,
                                 text=line)
    if commands == 0:
        raise InputError("the kernel list names no kernel trace (.traceg / .traceg.xz): nothing to simulate",
                         path=str(path))


_HEX = re.compile(r"(?:0[xX])?[0-9a-fA-F]{1,16}")


def strict_hex(text: str, what: str) -> int:
    """A 64-bit hex number, optionally 0x-prefixed: no sign, no underscores, at most 16 digits."""
    if not _HEX.fullmatch(text):
        raise ValueError(f"{what} must be a hex number of at most 16 digits, found {text!r}")
    return int(text, 16)


def _memcpy(line: str, path: Path, lineno: int) -> Memcpy:
    parts = [p.strip() for p in line.split(",")]
    try:
        if len(parts) != 3:
            raise ValueError(f"expected 3 comma-separated fields, found {len(parts)}")
        addr = strict_hex(parts[1], "address")
        if not parts[2].isdigit():
            raise ValueError(f"size must be a decimal byte count, found {parts[2]!r}")
        nbytes = int(parts[2])
        if addr + nbytes > 1 << 64:
            raise ValueError(f"copy of {nbytes} bytes at {addr:#x} runs past the 64-bit address space")
    except ValueError as exc:
        raise InputError(f"bad MemcpyHtoD command: {exc}", path=str(path), line=lineno, text=line) from None
    return Memcpy(dst_addr=addr, nbytes=nbytes)
