"""Inputs for public programs whose data files the mirrors lack, made deterministically at run time.

Each maker takes the program's run directory (created empty by run_public.py) and the exported
repository, writes what the program reads, and returns the directory to run the program in. The values
are generated, not Rodinia's data: the programs' control flow and memory accesses do not depend on them
(hotspot's stencil, srad's image statistics), only the numbers they print do.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import numpy as np


def hotspot_1024(run: Path, src: Path) -> Path:
    """temp_1024 / power_1024: one value per line for a 1024 x 1024 grid, in the ranges of Rodinia's
    files (temperatures around 323-345 K, power up to a few mW per cell)."""
    rng = np.random.default_rng(1024)
    n = 1024 * 1024
    np.savetxt(run / "temp_1024", 323.0 + 22.0 * rng.random(n), fmt="%.6f")
    np.savetxt(run / "power_1024", 0.004 * rng.random(n), fmt="%.9f")
    return run


def srad_image(run: Path, src: Path) -> Path:
    """srad_v1 reads ../../../data/srad/image.pgm (502 x 458); the mirror has only the program's own
    output image of that size (srad_v1/image_out.pgm), used in its place."""
    cwd = run / "a" / "b" / "c"
    cwd.mkdir(parents=True, exist_ok=True)
    img = run / "data" / "srad" / "image.pgm"
    img.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(src / "cuda/srad/srad_v1/image_out.pgm", img)
    return cwd


MAKERS: dict[str, Callable[[Path, Path], Path]] = {"hotspot_1024": hotspot_1024, "srad_image": srad_image}
