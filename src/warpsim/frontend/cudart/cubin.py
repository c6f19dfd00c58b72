"""Registers per thread from the SASS a program embeds: what ptxas allocated, for occupancy.

A cubin is an ELF file with one `.text.<kernel>` section per kernel; ptxas keeps the kernel's
register count in the top byte of that section header's sh_info (cuobjdump's "REG"). The PTX
emulator otherwise estimates registers from PTX liveness, which can be far off: an estimate above 32
halves the resident CTAs of a 1,024-thread kernel on Volta, which ptxas' own allocation does not.
"""

from __future__ import annotations

import struct

_SHDR = struct.Struct("<IIQQQQIIQQ")       # ELF64 section header


def kernel_registers(elf: bytes) -> dict[str, int]:
    """Kernel name -> registers per thread, for every `.text.<name>` section of an ELF64 cubin."""
    if elf[:4] != b"\x7fELF" or len(elf) < 64 or elf[4] != 2:
        raise ValueError("not an ELF64 cubin")
    shoff = struct.unpack_from("<Q", elf, 0x28)[0]
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", elf, 0x3A)
    if shentsize < _SHDR.size or shoff + shnum * shentsize > len(elf) or shstrndx >= shnum:
        raise ValueError("truncated ELF section table")
    headers = [_SHDR.unpack_from(elf, shoff + i * shentsize) for i in range(shnum)]
    names_at = headers[shstrndx][4]
    out = {}
    for h in headers:
        start = names_at + h[0]
        name = elf[start:elf.index(b"\0", start)].decode("ascii", errors="replace")
        if name.startswith(".text."):
            out[name[len(".text."):]] = h[7] >> 24
    return out
