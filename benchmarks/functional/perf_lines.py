"""Per-source-line profile of warpsim's numba code from a `perf record` of perf_map.py --lines.

    python benchmarks/functional/perf_lines.py t.data /tmp/objs [--top 60]

Each sampled instruction address inside a numba library is turned into an offset in that
library's object file and then into `file:line` by addr2line (binutils), which reads the DWARF
line table numba writes under NUMBA_DEBUGINFO=1. Inlined code is credited to the line it came
from (the callee's), so a hot helper shows up as its own lines wherever it was inlined. Shares
are of all samples, Python and the kernel included.
"""

from __future__ import annotations

import argparse
import bisect
import collections
import json
import os
import subprocess


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("data", help="perf.data of the run")
    ap.add_argument("objects", help="the directory given to perf_map.py --lines")
    ap.add_argument("--top", type=int, default=60)
    a = ap.parse_args()
    with open(os.path.join(a.objects, "index.json")) as fh:
        libs = json.load(fh)
    ranges = sorted((lib["base"] + off, lib["base"] + off + size, key)
                    for key, lib in libs.items() for off, size in lib["functions"])
    starts = [r[0] for r in ranges]
    out = subprocess.run(["perf", "script", "-i", a.data, "-F", "ip"], capture_output=True, text=True,
                         check=True).stdout
    total = 0
    offsets: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    for word in out.split():
        try:
            ip = int(word, 16)
        except ValueError:
            continue
        total += 1
        i = bisect.bisect_right(starts, ip) - 1
        if i >= 0 and ip < ranges[i][1]:
            key = ranges[i][2]
            offsets[key][ip - libs[key]["base"]] += 1
    lines: collections.Counter = collections.Counter()
    for key, hits in offsets.items():
        offs = sorted(hits)
        found = subprocess.run(["addr2line", "-e", libs[key]["path"], "-j", libs[key]["section"]]
                               + [hex(o) for o in offs], capture_output=True, text=True, check=True).stdout
        for off, loc in zip(offs, found.splitlines(), strict=False):
            loc = loc.split(" (")[0]
            lines[loc[loc.find("warpsim/"):] if "warpsim/" in loc else loc] += hits[off]
    inside = sum(lines.values())
    print(f"{total} samples, {inside} in numba code ({inside / max(total, 1):.0%})")
    for loc, n in lines.most_common(a.top):
        print(f"{n / max(total, 1) * 100:5.1f} %  {loc}")


if __name__ == "__main__":
    main()
