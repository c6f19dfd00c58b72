"""Cut a probe's ncu raw CSV (`--page raw`) to the columns worth keeping in the repository.

    python3 benchmarks/silicon/probes/cut.py IN.csv OUT.csv

Keeps the launch's name and shape and every gpc/sm/smsp/lts/dram/gpu metric; drops the device
attributes ncu repeats on every row (device.json has them once) and ncu's own log lines.
"""

from __future__ import annotations

import csv
import sys

KEEP = ("ID", "Kernel Name", "Block Size", "Grid Size")
PREFIXES = ("gpc__", "sm__cycles", "sm__ctas", "sm__warps", "smsp__inst", "lts__", "dram__", "gpu__")


def cut(src: str, dest: str) -> int:
    with open(src, newline="") as fh:
        rows = list(csv.reader(ln for ln in fh if ln.startswith('"')))
    cols = [i for i, h in enumerate(rows[0]) if h in KEEP or h.startswith(PREFIXES)]
    with open(dest, "w", newline="") as fh:
        w = csv.writer(fh, quoting=csv.QUOTE_ALL)
        for r in rows:
            w.writerow([r[i] for i in cols])
    return len(rows) - 2


if __name__ == "__main__":
    print(f"{cut(sys.argv[1], sys.argv[2])} launches -> {sys.argv[2]}")
