"""Open trace text files, plain or xz-compressed, as streams of lines (never read whole)."""

from __future__ import annotations

import lzma
from pathlib import Path
from typing import TextIO

from warpsim.errors import InputError


def is_compressed(path: str | Path) -> bool:
    return str(path).endswith(".xz")


def open_text(path: str | Path) -> TextIO:
    """A text stream over `path`; `.xz` files are decompressed on the fly by the lzma module."""
    try:
        if is_compressed(path):
            return lzma.open(path, "rt", encoding="utf-8", errors="replace", newline="\n")
        return open(path, encoding="utf-8", errors="replace", newline="\n")
    except FileNotFoundError:
        raise InputError("trace file not found", path=str(path)) from None
    except OSError as exc:
        raise InputError(f"cannot open trace file: {exc.strerror or exc}", path=str(path)) from None


def open_text_write(path: str | Path) -> TextIO:
    if is_compressed(path):
        return lzma.open(path, "wt", encoding="utf-8", preset=1, newline="\n")
    return open(path, "w", encoding="utf-8", newline="\n")
