"""Measure bundled workloads on a GPU machine without installing warpsim (PYTHONPATH=src).

    PYTHONPATH=src python3 benchmarks/silicon/measure.py OUT PRESET [WORKLOAD|CATEGORY ...]

The same as `warpsim silicon --size PRESET --out OUT ...`, for machines where only numpy and CuPy
are at hand (the CLI's other dependencies need not be installed there).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from warpsim.validate.silicon import expand_names, measure


def main(argv: list[str]) -> None:
    out, preset, *picks = argv
    t0 = time.time()
    rows = measure(expand_names(picks), preset, Path(out),
                   progress=lambda s: print(f"[{time.time() - t0:6.0f} s] {s}", flush=True))
    print(f"{len(rows)} measured in {time.time() - t0:.0f} s -> {out}/hardware.csv")


if __name__ == "__main__":
    main(sys.argv[1:])
