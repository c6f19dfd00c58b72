"""Build public CUDA programs with nvcc and run them unmodified under `warpsim run-app`.

    python benchmarks/run_app/run_public.py [--only NAME,...] [--mode functional|timing] [--timeout S]
        [--mirror-root /work/.mirror] [--workdir /tmp/warpsim-run-app] [--out results.json]
    python benchmarks/run_app/run_public.py --mode timing --accelsim-args --results-dir DIR
    warpsim validate --results DIR

Repositories are read from git mirrors (`<mirror-root>/<owner>+<name>/repo`, as the fetch tool
leaves them; or set --mirror-root to a directory of such mirrors) and exported into the work dir;
nothing is copied into warpsim. A program passes when its own self-check passes (see programs.py).

`--accelsim-args` runs only the programs of the QV100 silicon-cycles CSV, with the arguments Accel-Sim
ran them with (programs.py: AccelsimRun), each in its own run directory with generated inputs where the
mirror lacks data files (inputs.py). `--set KEY=VALUE` (repeatable) passes GPU overrides to run-app
(e.g. `--set l2.flush_before_kernel=true`). `--results-dir` keeps each program's result document there, with
a `validate` section naming its CSV row, for `warpsim validate --results DIR`.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from inputs import MAKERS  # noqa: E402
from programs import PROGRAMS, Program  # noqa: E402


def mirror(root: Path, repo: str) -> Path:
    p = root / repo.replace("/", "+") / "repo"
    if not p.exists():
        raise SystemExit(f"mirror of {repo} not found at {p}: fetch it first (git clone --mirror)")
    return p


def export(root: Path, repo: str, paths: set[str], work: Path) -> Path:
    """Export `paths` (directories) of a mirror into the work dir, file by file: mirrors may lack some
    large blobs (data sets, prebuilt libraries) that no program here needs."""
    dst = work / "src" / repo.replace("/", "+")
    git = ["git", "--git-dir", str(mirror(root, repo))]
    todo = sorted(p for p in paths if not (dst / p).exists())
    if not todo:
        return dst
    names = subprocess.run([*git, "ls-tree", "-r", "--name-only", "HEAD", *todo], capture_output=True,
                           text=True, check=True).stdout.splitlines()
    query = "".join(f"HEAD:{n}\n" for n in names).encode()
    batch = subprocess.run([*git, "cat-file", "--batch"], input=query, capture_output=True, check=True).stdout
    pos = 0
    for name in names:
        end = batch.index(b"\n", pos)
        header = batch[pos:end].split()
        pos = end + 1
        if len(header) < 3 or header[1] != b"blob":
            continue                        # missing from the mirror
        size = int(header[2])
        out = dst / name
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_bytes(batch[pos:pos + size])
        pos += size + 1
    return dst


def needed_paths(p: Program) -> set[str]:
    dirs = {str(Path(s).parent) for s in p.sources} | set(p.includes) | set(p.extra.get("paths", ()))
    if p.run_dir:
        dirs.add(p.run_dir)
    return dirs


def build(p: Program, src: Path, work: Path) -> tuple[Path | None, str]:
    exe = work / "bin" / p.suite / p.name
    exe.parent.mkdir(parents=True, exist_ok=True)
    if exe.exists():
        return exe, "cached"
    cmd = ["nvcc", "-cudart", "shared", "-O2", "-w", *p.flags, *[f"-I{src / i}" for i in p.includes],
           *[str(src / s) for s in p.sources], "-o", str(exe)]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        return None, (r.stderr or r.stdout)[-2000:]
    return exe, ""


def run_dir(p: Program, exe: Path, src: Path, work: Path, accelsim: bool) -> Path:
    """Where the program runs: its repository directory if it reads data from there; for Accel-Sim
    runs a fresh directory of its own (programs write output files) with any inputs made for it."""
    if p.run_dir:
        return src / p.run_dir
    if not accelsim:
        return exe.parent
    d = work / "run" / p.suite / p.name
    shutil.rmtree(d, ignore_errors=True)
    d.mkdir(parents=True)
    return MAKERS[p.accelsim.inputs](d, src) if p.accelsim.inputs else d


def validate_section(p: Program, verdict: str, wall: float, args: argparse.Namespace) -> dict:
    """What `warpsim validate --results` matches a document by (the CSV row) and reports beside it."""
    a = p.accelsim
    return {"suite": a.csv_suite, "program": a.csv_program, "run_arguments": " ".join(a.args),
            "self_check": verdict, "wall_seconds": round(wall, 1), "gpu": args.gpu,
            "source": f"{p.repo}: {' '.join(p.sources)}", "note": a.note,
            "measured": time.strftime("%Y-%m-%d", time.gmtime())}


def run(p: Program, exe: Path, src: Path, work: Path, args: argparse.Namespace) -> dict:
    prog_args = p.accelsim.args if args.accelsim_args else p.args
    json_path = exe.with_suffix(".timing.json" if args.mode == "timing" else ".json")
    cwd = run_dir(p, exe, src, work, args.accelsim_args)
    sets = [a for s in args.set for a in ("--set", s)]
    isa = ["--isa", args.isa] if args.isa != "ptx" else []
    cmd = [sys.executable, "-c", "from warpsim.cli import main; main()", "run-app", "--mode", args.mode,
           "--gpu", args.gpu, *sets, *isa, "--json", str(json_path), "--", str(exe), *prog_args]
    json_path.unlink(missing_ok=True)
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=str(cwd),
                            start_new_session=True)
    try:
        out, err = proc.communicate(timeout=args.timeout)
        rc = proc.returncode
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)        # the program runs in its own child process
        out, err = proc.communicate()
        err += "\n[timeout]"
        rc = None
    wall = time.perf_counter() - t0
    if rc is None:
        verdict = "timeout"
    elif p.failed and re.search(p.failed, out):
        verdict = "failed-check"
    elif rc == 0 and (p.passed is None or re.search(p.passed, out)):
        verdict = "passed"
    elif rc == 1 and "could not write the results" in err:
        verdict = "no-results"      # the program passed, warpsim could not time it (stderr says why)
    elif rc == 2 and p.suite == "cuda-samples":
        verdict = "waived"          # EXIT_WAIVED: the sample says this device lacks what it shows
    else:
        verdict = f"exit {rc}"
    res = {"name": p.name, "suite": p.suite, "verdict": verdict, "wall_seconds": round(wall, 1),
           "args": list(prog_args), "stdout_tail": out[-600:], "stderr_tail": err[-1200:]}
    if json_path.exists():
        doc = json.loads(json_path.read_text())
        res["launches"] = len(doc.get("kernels", []))
        res["unsupported_calls"] = doc.get("app", {}).get("unsupported_calls", {})
        if args.mode == "timing":
            res["cycles"] = doc.get("total", {}).get("cycles")
            res["kernel_cycles"] = sum(k.get("cycles", 0) for k in doc.get("kernels", []))
        if args.results_dir and p.accelsim:
            doc["validate"] = validate_section(p, verdict, wall, args)
            out_dir = Path(args.results_dir)
            out_dir.mkdir(parents=True, exist_ok=True)
            (out_dir / f"{p.name}.json").write_text(json.dumps(doc, indent=1))
    return res


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", default="", help="comma-separated program names (run in this order)")
    ap.add_argument("--suite", default="", help="cuda-samples, rodinia-3.1 or polybench-gpu")
    ap.add_argument("--mode", default="functional", choices=("functional", "timing"))
    ap.add_argument("--set", action="append", default=[], help="GPU override for run-app, KEY=VALUE")
    ap.add_argument("--gpu", default="QV100")
    ap.add_argument("--isa", default="ptx", choices=("ptx", "sass"),
                    help="timing mode: simulate the PTX or the SASS ptxas emits (run-app --isa)")
    ap.add_argument("--timeout", type=float, default=600.0)
    ap.add_argument("--jobs", type=int, default=2, help="parallel nvcc builds")
    ap.add_argument("--mirror-root", default=os.environ.get("WARPSIM_MIRRORS", "/work/.mirror"))
    ap.add_argument("--workdir", default="/tmp/warpsim-run-app")
    ap.add_argument("--out", default="", help="write the results (JSON) here")
    ap.add_argument("--accelsim-args", action="store_true",
                    help="only the programs of the QV100 silicon-cycles CSV, at Accel-Sim's arguments")
    ap.add_argument("--results-dir", default="",
                    help="keep each program's result document here (for `warpsim validate --results`)")
    args = ap.parse_args()
    only = [s for s in args.only.split(",") if s]
    progs = [p for p in PROGRAMS
             if (not only or p.name in only) and (not args.suite or p.suite == args.suite)
             and (p.accelsim or not args.accelsim_args)
             and (args.accelsim_args or not p.accelsim_only or p.name in only)]
    if only:                                    # run in the order given
        progs.sort(key=lambda p: only.index(p.name))
    work = Path(args.workdir)
    root = Path(args.mirror_root)
    srcs = {}
    for repo in sorted({p.repo for p in progs}):
        paths = set().union(*(needed_paths(p) for p in progs if p.repo == repo))
        srcs[repo] = export(root, repo, paths, work)
    with ThreadPoolExecutor(args.jobs) as pool:
        built = list(pool.map(lambda p: build(p, srcs[p.repo], work), progs))
    results = []
    for p, (exe, log) in zip(progs, built, strict=True):
        if exe is None:
            res = {"name": p.name, "suite": p.suite, "verdict": "build-failed", "build_log": log}
        else:
            res = run(p, exe, srcs[p.repo], work, args)
        results.append(res)
        wall = res.get("wall_seconds", 0)
        print(f"{p.suite:14s} {p.name:24s} {res['verdict']:14s} {wall:7.1f} s", flush=True)
        if res["verdict"] != "passed":
            tail = (res.get("stderr_tail") or res.get("build_log") or "").strip().splitlines()[-3:]
            for line in tail:
                print(f"      | {line[:160]}")
    n_pass = sum(r["verdict"] == "passed" for r in results)
    print(f"\n{n_pass} of {len(results)} programs passed their own checks under warpsim run-app "
          f"({args.mode})")
    if args.out:
        Path(args.out).write_text(json.dumps({"mode": args.mode, "gpu": args.gpu, "passed": n_pass,
                                              "total": len(results), "results": results}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
