"""How far ptxas schedules a fixed-latency instruction's first reader after it, per opcode.

ptxas encodes its scheduling in each instruction's stall count; a reader of a fixed-latency result
(one with no scoreboard barrier) is never placed closer than the machine's latency for it, so the
smallest issue distance over many readers bounds that latency from above, and the most common one
is usually the latency itself. Reads the SASS shipped with the bundled workloads.

Usage: python benchmarks/sass/stall_distances.py [ARCH]   (default sm_75)
"""

from __future__ import annotations

import sys

from warpsim.frontend.sass.stalls import reader_distances


def main(argv: list[str]) -> None:
    arch = argv[0] if argv else "sm_75"
    dist = reader_distances(arch)
    print(f"{arch}: issue distance from a fixed-latency instruction to its first reader")
    print("| opcode | readers | smallest | most common (distance: count) |")
    print("|---|---:|---:|---|")
    for op, cnt in sorted(dist.items(), key=lambda kv: -sum(kv[1].values())):
        total = sum(cnt.values())
        if total >= 20:
            common = ", ".join(f"{d}: {n}" for d, n in cnt.most_common(4))
            print(f"| {op} | {total} | {min(cnt)} | {common} |")


if __name__ == "__main__":
    main(sys.argv[1:])
