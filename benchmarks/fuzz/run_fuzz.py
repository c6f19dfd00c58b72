"""The large fuzz budget: thousands of generated inputs per class, each under a time and memory cap.

    PYTHONPATH=src python benchmarks/fuzz/run_fuzz.py --examples 10000 --time-cap-s 10 \\
        --memory-cap-mb 3072 --budget-s 600 --json benchmarks/fuzz/results.json

Per input: `check` from tests/fuzz/fuzz_kit.py (works, or warpsim's own located error). A foreign
exception, an input running past --time-cap-s (SIGALRM) or one hitting the address-space cap
(MemoryError under RLIMIT_AS) is counted and its first examples are kept. A class stops early
when its share of --budget-s is spent (the counts say how many inputs ran).
"""

from __future__ import annotations

import argparse
import json
import resource
import signal
import sys
import time
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests" / "fuzz"))

from fuzz_kit import CLASSES, check  # noqa: E402
from hypothesis import HealthCheck, Phase, given, seed, settings  # noqa: E402


class InputTimeout(TimeoutError):
    pass


class BudgetSpent(Exception):
    """Raised once a class's wall-clock budget is spent: ends hypothesis's generation at once."""


def _alarm(signum, frame):
    raise InputTimeout()


def run_class(name: str, examples: int, cap_s: float, budget_s: float, rng_seed: int) -> dict:
    strategy, target = CLASSES[name]
    counts = {"inputs": 0, "ok": 0, "error": 0, "foreign": 0, "hang": 0, "blowup": 0}
    samples: list[str] = []
    t0 = time.perf_counter()

    @seed(rng_seed)
    @settings(max_examples=examples, deadline=None, database=None, derandomize=False,
              suppress_health_check=list(HealthCheck), phases=[Phase.generate])
    @given(strategy)
    def prop(data):
        if time.perf_counter() - t0 > budget_s:
            raise BudgetSpent()
        counts["inputs"] += 1
        signal.setitimer(signal.ITIMER_REAL, cap_s)
        try:
            counts[check(target, data)] += 1
        except InputTimeout:
            counts["hang"] += 1
            samples.append(f"hang: {str(data)[:300]!r}")
        except MemoryError:
            counts["blowup"] += 1
            samples.append(f"memory: {str(data)[:300]!r}")
        except (AssertionError, RecursionError) as exc:
            counts["foreign"] += 1
            samples.append(f"{exc}: {str(data)[:300]!r}")
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)

    try:
        prop()
    except BudgetSpent:
        pass
    counts["seconds"] = round(time.perf_counter() - t0, 1)
    counts["samples"] = samples[:10]
    return counts


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--examples", type=int, default=10_000)
    ap.add_argument("--time-cap-s", type=float, default=10.0)
    ap.add_argument("--memory-cap-mb", type=int, default=3072)
    ap.add_argument("--budget-s", type=float, default=600.0, help="wall-clock seconds per class")
    ap.add_argument("--classes", default=",".join(CLASSES))
    ap.add_argument("--seed", type=int, default=18)
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args()
    cap = args.memory_cap_mb * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
    signal.signal(signal.SIGALRM, _alarm)
    warnings.simplefilter("ignore")
    # import what the targets use first, so no input's time cap pays for an import
    import warpsim.campaign.plan  # noqa: F401
    import warpsim.frontend.accelsim  # noqa: F401
    import warpsim.host  # noqa: F401
    import warpsim.sampling.readers  # noqa: F401
    import warpsim.timing.gpu  # noqa: F401
    out = {"examples": args.examples, "time_cap_s": args.time_cap_s, "memory_cap_mb": args.memory_cap_mb,
           "seed": args.seed, "classes": {}}
    for name in args.classes.split(","):
        res = run_class(name, args.examples, args.time_cap_s, args.budget_s, args.seed)
        out["classes"][name] = res
        print(name, {k: v for k, v in res.items() if k != "samples"}, flush=True)
        for line in res["samples"]:
            print("   ", line[:400], flush=True)
        if args.json:
            args.json.write_text(json.dumps(out, indent=2) + "\n")


if __name__ == "__main__":
    main()
