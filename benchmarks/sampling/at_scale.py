"""Sampled vs full simulation at the sizes users care about (issue 14), end to end.

Every run is timed from the workload's name to its result document, so the wall time INCLUDES
emulation (recording, profiling where the method needs it, and the timing-mode replay of the CTAs
that are simulated). The memory model defaults to the realistic one (hierarchy).

Full references are expensive, so each one is computed once and cached as a JSON file holding
the full result document with its provenance: warpsim version, a digest of the model's sources
(timing, frontend, IR, GPU descriptions, workloads: what a full run depends on; not the compiled
functional engine, which the tests hold identical to the reference, nor the counts table), GPU,
memory model, size, host, date and wall time. The cache (`--cache`) is not in the repository; a
compact copy of each reference (totals, each launch's cycles, the same provenance) is kept in
`benchmarks/sampling/references/`, which is, so a fresh clone reuses it. A reference is reused
while the digest matches, and recomputed when the model changes. Speedups against a reference
measured on another host are marked in the table.

Usage:

    python benchmarks/sampling/at_scale.py --size standard --out docs/sampling/at_scale.md
    python benchmarks/sampling/at_scale.py --size tiny --only gaussian --cache /tmp/refs
"""

from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import json
import math
import platform
import statistics
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "src" / "warpsim"
MODEL_PARTS = ("timing", "frontend", "ir", "config", "workloads")   # what a full run depends on
# ... except the compiled functional engine, whose memory results and recorded streams the tests hold
# identical to the numpy reference's (tests/ptx/test_compiled_workloads.py), and the counts table,
# which is data about the workloads, regenerated whenever an engine changes
DIGEST_EXCLUDES = ("frontend/ptx/compiled/", "workloads/counts.json")
STORE = ROOT / "benchmarks" / "sampling" / "references"     # compact references, kept in the repository
MANY_KERNEL = ("polybench/lu", "polybench/gramschmidt", "polybench/fdtd2d", "rodinia/gaussian",
               "rodinia/srad", "polybench/3dconv", "ml/lenet", "ml/transformer", "ml/train_mlp")
BIG_SINGLE = ("polybench/gemm", "polybench/2dconv", "polybench/syrk", "rodinia/spmv", "ml/conv2d_direct",
              "ml/attention")
METHODS = ("auto", "photon", "photon-warp", "pka", "pkp", "photon-kernel")
TARGETS = {"many-kernel": (50.0, 2.0), "big single kernel": (10.0, 5.0)}   # (speedup x, error %)


def model_digest(src: Path = SRC) -> str:
    """sha1 over the model's source files (py, toml, ptx, cu, json), relative paths included."""
    h = hashlib.sha1()
    for part in MODEL_PARTS:
        for path in sorted((src / part).rglob("*")):
            rel = path.relative_to(src).as_posix()
            if any(rel.startswith(x) for x in DIGEST_EXCLUDES):
                continue
            if path.is_file() and path.suffix in (".py", ".toml", ".ptx", ".cu", ".json"):
                h.update(rel.encode())
                h.update(path.read_bytes())
    return h.hexdigest()[:16]


def reference_path(cache: Path, workload: str, size: str, gpu: str, memory: str) -> Path:
    return cache / gpu / memory / f"{workload.replace('/', '__')}.{size}.json"


def compact(doc: dict) -> dict:
    """What the table needs of a full result document, and each launch's cycles: small enough to keep
    in the repository, so a reference computed once serves every later session and machine."""
    return {"total": {k: doc["total"].get(k) for k in ("cycles", "warp_instructions", "provenance")},
            "kernels": [[k.get("name"), k.get("cycles")] for k in doc.get("kernels", [])],
            "compact": True}


def _keep_compact(store: Path, workload: str, size: str, gpu: str, memory: str, entry: dict) -> None:
    """Write the compact form of a full reference to the repository's store (once per digest)."""
    path = reference_path(store, workload, size, gpu, memory)
    if path.exists() and json.loads(path.read_text())["provenance"] == entry["provenance"]:
        return
    doc = entry["document"]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"provenance": entry["provenance"],
                                "document": doc if doc.get("compact") else compact(doc)}) + "\n")


def full_reference(workload: str, size: str, gpu: str, memory: str, cache: Path, digest: str,
                   *, refresh: bool = False, accept: tuple[str, ...] = (),
                   store: Path | None = STORE) -> tuple[dict, dict, bool]:
    """(full result document, provenance, reused?) from the cache, or else from the repository's
    compact store, when the model is unchanged, or when the reference was made at one of the
    `accept`ed digests (a change the caller knows moves no cycle of a full run; the table names the
    reference's digest). A reused compact reference holds the totals and per-launch cycles only."""
    import warpsim
    from warpsim.api import simulate

    path = reference_path(cache, workload, size, gpu, memory)
    places = [path] + ([reference_path(store, workload, size, gpu, memory)] if store else [])
    places = [] if refresh else places
    for where in places:
        if where.exists():
            entry = json.loads(where.read_text())
            if entry.get("provenance", {}).get("model_digest") in (digest, *accept):
                if store and where == path:
                    _keep_compact(store, workload, size, gpu, memory, entry)
                return entry["document"], entry["provenance"], True
    t0 = time.perf_counter()
    doc = simulate(workload, gpu, size=size, memory_model=memory).document
    wall = time.perf_counter() - t0
    prov = {"workload": workload, "size": size, "gpu": gpu, "memory_model": memory,
            "warpsim_version": warpsim.__version__, "model_digest": digest,
            "host": platform.node(), "created": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
            "wall_seconds_end_to_end": wall}
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"provenance": prov, "document": doc}) + "\n")
    if store:
        _keep_compact(store, workload, size, gpu, memory, {"provenance": prov, "document": doc})
    return doc, prov, False


def sampled_run(workload: str, size: str, gpu: str, memory: str, method: str, target_error: float) -> dict:
    from warpsim.api import simulate

    t0 = time.perf_counter()
    doc = simulate(workload, gpu, size=size, memory_model=memory, sample=method,
                   target_error=target_error).document
    return {"document": doc, "wall": time.perf_counter() - t0}


def row(workload: str, kind: str, method: str, full: dict, prov: dict, run: dict) -> dict:
    fc = full["total"]["cycles"]
    tot = run["document"]["total"]
    ci = tot.get("ci95_cycles")
    return {"workload": workload, "kind": kind, "method": method, "cycles": tot["cycles"], "full": fc,
            "error": 100.0 * (tot["cycles"] - fc) / fc if fc else math.nan,
            "speedup": prov["wall_seconds_end_to_end"] / run["wall"], "wall": run["wall"],
            "fraction": tot.get("simulated_fraction", 1.0),
            "covered": None if ci is None else bool(ci[0] <= fc <= ci[1]),
            "half_width": None if ci is None or not tot["cycles"] else
            100.0 * (ci[1] - ci[0]) / 2 / tot["cycles"],
            "replica": (run["document"].get("sampling") or {}).get("replica"),
            "other_host": prov.get("host") != platform.node()}


def summary(rows: list[dict]) -> list[str]:
    out = ["| set | method | workloads | mean abs error % | harmonic-mean speedup | CI covers full "
           "| target |", "|---|---|---:|---:|---:|---:|---|"]
    for kind, (sx, se) in TARGETS.items():
        for m in sorted({r["method"] for r in rows}):
            sel = [r for r in rows if r["kind"] == kind and r["method"] == m]
            if not sel:
                continue
            err = statistics.mean(abs(r["error"]) for r in sel)
            spd = statistics.harmonic_mean([r["speedup"] for r in sel])
            cov = [r["covered"] for r in sel if r["covered"] is not None]
            cov_s = f"{sum(cov)}/{len(cov)}" if cov else "-"
            ok = "met" if spd >= sx and err <= se else "not met"
            out.append(f"| {kind} | {m} | {len(sel)} | {err:.2f} | {spd:.2f}x | {cov_s} | "
                       f">= {sx:g}x at <= {se:g} %: {ok} |")
    return out


def markdown(rows: list[dict], args, digest: str, reused: dict[str, bool],
             ref_digest: dict[str, str] | None = None) -> str:
    out = [f"# Sampled vs full at size '{args.size}' ({args.gpu}, {args.memory} memory)", "",
           "Generated by `benchmarks/sampling/at_scale.py`. Wall times are end to end (emulation "
           "included). Error = (sampled - full) / full cycles; speedup = full wall / sampled wall; "
           "'CI covers' = the 95 % interval of the total contains the full result, with its half-width "
           f"(methods without an interval: '-'). Model digest {digest}.", "",
           "| workload | method | cycles | full cycles | error % | speedup | warp insts simulated "
           "| CI covers | launches re-executed / keyframe jumps | reference |",
           "|---|---|---:|---:|---:|---:|---:|---|---|---|"]
    for r in rows:
        ref = "cached" if reused[r["workload"]] else "computed"
        ref += " (other host)" if r["other_host"] else ""
        other = (ref_digest or {}).get(r["workload"])
        ref += f" (model {other})" if other and other != digest else ""
        cov = "-" if r["covered"] is None else ("yes" if r["covered"] else "no")
        if r.get("half_width") is not None:
            cov += f" (+-{r['half_width']:.2f} %)"
        rep = r.get("replica")
        rep_s = f"{rep['launches_reexecuted']} / {rep['keyframe_jumps']}" if rep else "-"
        out.append(f"| {r['workload']} | {r['method']} | {r['cycles']:,} | {r['full']:,} "
                   f"| {r['error']:+.2f} | {r['speedup']:.2f}x | {100 * r['fraction']:.1f} % "
                   f"| {cov} | {rep_s} | {ref} |")
    return "\n".join(out + [""] + summary(rows)) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", default="standard")
    ap.add_argument("--gpu", default="QV100")
    ap.add_argument("--memory", default="hierarchy")
    ap.add_argument("--methods", default=",".join(METHODS))
    ap.add_argument("--target-error", type=float, default=2.0, help="for --sample auto, percent")
    ap.add_argument("--only", default=None, help="comma list of substrings of workload names to run")
    ap.add_argument("--cache", type=Path, default=ROOT / "benchmarks" / "sampling" / "reference")
    ap.add_argument("--refresh", action="store_true", help="recompute full references even if cached")
    ap.add_argument("--accept-digest", action="append", default=[],
                    help="also reuse cached references made at this model digest (a change that moves "
                         "no full-run cycle; repeatable)")
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args()
    digest = model_digest()
    from warpsim.api import simulate

    # load the compiled cores (numba) first, so no wall time below includes a compilation
    simulate(ROOT / "examples" / "vecadd" / "kernelslist.g", args.gpu, memory_model=args.memory)
    simulate(ROOT / "examples" / "vecadd" / "kernelslist.g", args.gpu, memory_model=args.memory, sample="pkp")
    methods = [m.strip() for m in args.methods.split(",") if m.strip()]
    cases = [(w, "many-kernel") for w in MANY_KERNEL] + [(w, "big single kernel") for w in BIG_SINGLE]
    rows: list[dict] = []
    reused: dict[str, bool] = {}
    ref_digest: dict[str, str] = {}
    for wl, kind in cases:
        if args.only and not any(x.strip() and x.strip() in wl for x in args.only.split(",")):
            continue
        full, prov, reused[wl] = full_reference(wl, args.size, args.gpu, args.memory, args.cache, digest,
                                                refresh=args.refresh, accept=tuple(args.accept_digest))
        ref_digest[wl] = prov["model_digest"]
        how = "cached" if reused[wl] else "computed"
        wall = prov["wall_seconds_end_to_end"]
        print(f"{wl}: full {full['total']['cycles']:,} cycles, {how} ({wall:.1f} s)", flush=True)
        for m in methods:
            r = row(wl, kind, m, full, prov, sampled_run(wl, args.size, args.gpu, args.memory, m,
                                                         args.target_error))
            rows.append(r)
            print(f"  {m}: error {r['error']:+.2f} %, speedup {r['speedup']:.2f}x, covered {r['covered']}",
                  flush=True)
    text = markdown(rows, args, digest, reused, ref_digest)
    print(text)
    if args.out:
        args.out.write_text(text)


if __name__ == "__main__":
    main()
