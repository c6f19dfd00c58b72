"""Cut a probe's ncu raw CSV (`--page raw`) to the columns worth keeping in the repository.

    PYTHONPATH=src python3 benchmarks/silicon/probes/cut.py IN.csv OUT.csv

Keeps the launch's name and shape and every gpc/sm/smsp/lts/dram/gpu metric; drops the device
attributes ncu repeats on every row (device.json has them once) and ncu's own log lines.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from lease import cut_export  # noqa: E402 - the lease's own exporter, beside this folder

KEEP = ("ID", "Kernel Name", "Block Size", "Grid Size")
PREFIXES = ("gpc__", "sm__cycles", "sm__ctas", "sm__warps", "smsp__inst", "lts__", "dram__", "gpu__")

if __name__ == "__main__":
    n = cut_export(Path(sys.argv[1]), Path(sys.argv[2]), lambda h: h in KEEP or h.startswith(PREFIXES))
    print(f"{n} launches -> {sys.argv[2]}")
