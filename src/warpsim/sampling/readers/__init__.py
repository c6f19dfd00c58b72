"""Profile readers: every supported format becomes a `ProfileTable`; `read_profile` sniffs which."""

from __future__ import annotations

from pathlib import Path

from warpsim.errors import InputError
from warpsim.sampling.readers._util import read_text
from warpsim.sampling.readers.functional import FORMAT_NAME, read_functional
from warpsim.sampling.readers.kineto import read_kineto
from warpsim.sampling.readers.ncu import read_ncu_csv
from warpsim.sampling.readers.nsys import read_nsys_csv
from warpsim.sampling.table import ProfileTable

READERS = {"kineto": read_kineto, "ncu": read_ncu_csv, "nsys": read_nsys_csv, "functional": read_functional}


def detect_format(path: str | Path) -> str:
    """Guess the profile format from the file's start (extension alone is ambiguous for CSV)."""
    p = Path(path)
    head = read_text(p)[:65536]
    stripped = head.lstrip()
    if stripped.startswith(("{", "[")):
        if FORMAT_NAME in head:
            return "functional"
        if "traceEvents" in head or stripped.startswith("["):
            return "kineto"
        raise InputError(
            "JSON profile is neither a Kineto trace (traceEvents) nor a warpsim functional profile",
            path=str(p),
        )
    lines = head.splitlines()
    if any(ln.lstrip().startswith(('"ID"', "ID,")) and "Kernel Name" in ln for ln in lines):
        return "ncu"
    first = lines[0] if lines else ""
    if any(c in head for c in ("Duration (ns)", "Kernel Dur (ns)", "GrdX", "Instances")):
        return "nsys"
    if "name" in [c.strip() for c in first.split(",")]:
        return "functional"
    raise InputError(
        "unrecognised profile format (expected Kineto JSON, Nsight Compute CSV, Nsight Systems "
        "CSV or a warpsim functional profile)",
        path=str(p),
        line=1,
        text=first,
    )


def read_profile(path: str | Path, fmt: str | None = None) -> ProfileTable:
    """Read any supported profile; `fmt` (kineto, ncu, nsys, functional) overrides detection."""
    fmt = fmt or detect_format(path)
    if fmt not in READERS:
        raise InputError(f"unknown profile format {fmt!r}; choose from {sorted(READERS)}", key="format")
    return READERS[fmt](path)


__all__ = [
    "READERS",
    "detect_format",
    "read_profile",
    "read_kineto",
    "read_ncu_csv",
    "read_nsys_csv",
    "read_functional",
    "ProfileTable",
]
