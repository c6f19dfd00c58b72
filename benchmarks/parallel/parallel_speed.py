"""Parallel simulation: wall and CPU time of the same sampled run with 1 and N worker processes.

Each configuration runs in its own Python process (cold: imports, workload host program, timing
core loaded from the numba cache), timed from outside; CPU time is the process tree's (user +
system: the run, its fork server and workers, sampled from /proc). The documents must be
identical apart from wall time. The load average is recorded before and after: on a shared
machine it says how many cores were really free.

    PYTHONPATH=src python benchmarks/parallel/parallel_speed.py ml/lenet --size small --sample pkp \
        --workers 1 2 --json benchmarks/parallel/lenet_small_pkp.json
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

RUN = """
import json, sys
from warpsim import api
kw = json.loads(sys.argv[1])
doc = api.simulate(kw.pop("target"), **kw).document
json.dump(doc, open(sys.argv[2], "w"))
"""


TICK = os.sysconf("SC_CLK_TCK")


def _tree_cpu(root: int, seen: dict[int, float]) -> None:
    """Latest user + system seconds of `root` and every process below it (read from /proc)."""
    parent: dict[int, int] = {}
    cpu: dict[int, float] = {}
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            fields = (d / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        parent[int(d.name)] = int(fields[1])
        cpu[int(d.name)] = (int(fields[11]) + int(fields[12])) / TICK
    for pid, t in cpu.items():
        p = pid
        while p in parent and p != root:
            p = parent[p]
        if p == root:
            seen[pid] = max(seen.get(pid, 0.0), t)


def one(kwargs: dict) -> tuple[float, float, dict]:
    """Wall time, and CPU time of the run's whole process tree (the fork server's workers are not
    the run's children, so rusage would miss them: /proc is sampled every 0.2 s instead)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "doc.json"
        seen: dict[int, float] = {}
        t0 = time.perf_counter()
        proc = subprocess.Popen([sys.executable, "-c", RUN, json.dumps(kwargs), str(out)])
        while proc.poll() is None:
            _tree_cpu(proc.pid, seen)
            time.sleep(0.2)
        wall = time.perf_counter() - t0
        if proc.returncode:
            raise SystemExit(f"run failed ({proc.returncode}): {kwargs}")
        return wall, sum(seen.values()), json.loads(out.read_text())


def strip(doc: dict) -> dict:
    doc = json.loads(json.dumps(doc))
    for key in ("wall_seconds", "sim_rate_kips"):
        doc["total"].pop(key, None)
    return doc


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("target")
    ap.add_argument("--size", default="small")
    ap.add_argument("--sample", default="pkp")
    ap.add_argument("--memory-model", default="hierarchy")
    ap.add_argument("--parallel", action="store_true", help="every kernel (with --sample full)")
    ap.add_argument("--workers", type=int, nargs="+", default=[1, 2])
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    rows = []
    docs = []
    for n in args.workers:
        kw = {"target": args.target, "size": args.size, "sample": args.sample,
              "memory_model": args.memory_model, "workers": n, "parallel": args.parallel}
        load0 = os.getloadavg()[0]
        wall, cpu, doc = one(kw)
        load1 = os.getloadavg()[0]
        docs.append(strip(doc))
        sim = sum(1 for k in doc["kernels"] if k["provenance"] == "simulated")
        rows.append({"workers": n, "wall_s": round(wall, 2), "cpu_s": round(cpu, 2),
                     "load_before": round(load0, 2), "load_after": round(load1, 2),
                     "kernels": len(doc["kernels"]), "simulated_kernels": sim,
                     "total_cycles": doc["total"]["cycles"]})
        print(json.dumps(rows[-1]), flush=True)
    base = rows[0]["wall_s"]
    for r in rows:
        r["speedup_vs_first"] = round(base / r["wall_s"], 3)
    identical = all(d == docs[0] for d in docs)
    summary = {"target": args.target, "size": args.size, "sample": args.sample,
               "memory_model": args.memory_model, "cpus": os.cpu_count(), "identical_documents": identical,
               "runs": rows}
    print(json.dumps(summary, indent=1))
    if args.json:
        args.json.write_text(json.dumps(summary, indent=1) + "\n")


if __name__ == "__main__":
    main()
