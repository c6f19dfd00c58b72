"""How the calibration error depends on the per-kernel start cost (`sm.kernel_launch_latency`).

Kernels of one stream run one after another, and the start latency delays each kernel's first CTA
by that many cycles with nothing else in flight, so a program's cycles at latency L are its cycles
at the measured latency minus launches x (measured - L), up to the phase of the memory clocks (a
few cycles per kernel: tests/timing/test_run.py); no re-simulation. Re-simulated 2026-11-28 at
latency 1: mergeSort, transpose and sortingNetworks land exactly on the shifted figures. Reads
`warpsim validate --json` documents; a program in several files takes its row from the last one.

Usage: python benchmarks/validation/launch_sensitivity.py MEASURED_LATENCY VALIDATE.json [...]
"""

from __future__ import annotations

import json
import sys

# 1715: the H200's measured 3,000 cycles (1.52 us at 1,980 MHz) in the QV100's 1,132 MHz clock
LATENCIES = (5000, 4000, 3000, 2500, 2000, 1715, 1000, 0)


def rows(paths: list[str]) -> dict[tuple[str, str], dict]:
    out: dict[tuple[str, str], dict] = {}
    for path in paths:
        with open(path) as f:
            for p in json.load(f)["programs"]:
                if p.get("sim_cycles"):
                    out[(p["suite"], p["program"])] = p
    return out


def errors_at(table: dict[tuple[str, str], dict], measured: int, latency: int) -> dict[str, float]:
    shifted = {prog: p["sim_cycles"] - p["kernels"] * (measured - latency) for (_, prog), p in table.items()}
    return {prog: 100.0 * (shifted[prog] / p["hw_cycles"] - 1.0) for (_, prog), p in table.items()}


def main(argv: list[str]) -> None:
    if len(argv) < 2:
        raise SystemExit(__doc__)
    measured, table = int(argv[0]), rows(argv[1:])
    print(f"{len(table)} programs, simulated with sm.kernel_launch_latency = {measured}")
    for latency in LATENCIES:
        err = errors_at(table, measured, latency)
        mae = sum(abs(e) for e in err.values()) / len(err)
        mean = sum(err.values()) / len(err)
        worst = sorted(err.items(), key=lambda kv: -abs(kv[1]))[:4]
        print(f"  {latency:5d}: MAE {mae:5.1f} %  mean {mean:+5.1f} %  largest: "
              + ", ".join(f"{name.split(' (')[0]} {e:+.0f}" for name, e in worst))


if __name__ == "__main__":
    main(sys.argv[1:])
