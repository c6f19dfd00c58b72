"""`warpsim validate`: run the calibration set on a GPU description and compare with silicon.

Per program: simulated cycles (all kernels of the run, summed, as the silicon figure is), the
silicon cycles, the signed error and Accel-Sim's published errors beside it; per suite and over
all programs: MAE, mean error, aggregate error, Pearson correlation and NRMSE (validate.stats).
The programs are either simulated here (bundled reproductions, validate.programs) or read from result
documents of runs made elsewhere, e.g. the original executables under `warpsim run-app`
(validate.app_results); both give the same ProgramResult rows, table and statistics.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

from warpsim.errors import InputError, WarpsimError
from warpsim.validate.hardware import HardwareRow, read_hardware_csv
from warpsim.validate.programs import CALIBRATION_PROGRAMS, Reproduction, program_key
from warpsim.validate.stats import Summary, error_pct, summarize

DEFAULT_HARDWARE = "qv100_silicon_cycles.csv"

FLUSH = "l2.flush_before_kernel"     # GPU override: each kernel from an empty L2 (as ncu profiles)


@dataclass
class ProgramResult:
    suite: str
    program: str
    label: str
    hw_cycles: float
    status: str                       # "ok", "not reproduced", "failed"
    workload: str | None = None
    sizes: dict = field(default_factory=dict)
    sim_cycles: int | None = None
    error_pct: float | None = None
    accelsim_ptx_err_pct: float | None = None
    accelsim_sass_err_pct: float | None = None
    kernels: int = 0
    wall_seconds: float = 0.0
    reason: str = ""
    source: str = ""                  # the result document the cycles were read from (--results)


def default_hardware_file() -> Path:
    """The QV100 calibration file: shared/reference/hardware next to the checkout, if present."""
    here = Path(__file__).resolve()
    for parent in here.parents:
        cand = parent.parent / "shared" / "reference" / "hardware" / DEFAULT_HARDWARE
        if cand.is_file():
            return cand
    raise InputError("no hardware file given and the bundled reference "
                     f"(shared/reference/hardware/{DEFAULT_HARDWARE}) is not found; pass --hardware FILE",
                     key="--hardware")


def resolve(row: HardwareRow, table=CALIBRATION_PROGRAMS) -> tuple[Reproduction | None, str]:
    """The reproduction to run for a row (or None) and, when None, why not."""
    from warpsim.workloads import get_workload

    if row.workload:
        cands: tuple[Reproduction, ...] = (Reproduction(row.workload, dict(row.sizes)),)
    else:
        cands = table.get(program_key(row.suite, row.program), ())
        if not cands:
            return None, "no reproduction in validate.programs"
    reasons = []
    for c in cands:
        try:
            wl = get_workload(c.workload)
            wl.sizes(c.preset, {k: str(v) for k, v in c.sizes.items()})
        except InputError as exc:
            reasons.append(f"{c.workload}: {exc.message}")
            continue
        return c, ""
    return None, "; ".join(reasons)


def select_rows(rows: Sequence[HardwareRow], names: Sequence[str]) -> list[HardwareRow]:
    """Rows whose program (with or without its " (...)" suffix), short name or suite matches one of
    `names` (case-insensitive); all rows when `names` is empty. A name matching nothing is an input error."""
    if not names:
        return list(rows)
    out, unknown = [], []
    for name in names:
        n = name.lower()
        hit = [r for r in rows if n in (r.program.lower(), r.label.lower(), r.short_name.lower(),
                                         program_key(r.suite, r.program)[1].lower(), r.suite.lower())]
        if not hit:
            unknown.append(name)
        out += [r for r in hit if r not in out]
    if unknown:
        raise InputError(f"no program named {', '.join(unknown)} in the hardware file "
                         f"(programs: {', '.join(sorted({r.label for r in rows}))})", key="programs")
    return out


def run_program(row: HardwareRow, gpu: str, *, overrides: Sequence[str] = (), memory_model: str | None,
                sample: str = "full", table=CALIBRATION_PROGRAMS, isa: str = "ptx") -> ProgramResult:
    res = ProgramResult(row.suite, row.program, row.label, row.cycles, "not reproduced",
                        accelsim_ptx_err_pct=row.accelsim_ptx_err_pct,
                        accelsim_sass_err_pct=row.accelsim_sass_err_pct)
    rep, why = resolve(row, table)
    if rep is None:
        res.reason = why
        return res
    from warpsim.api import load_commands, simulate
    from warpsim.config import load_gpu
    from warpsim.sampling.methods import profile_level

    res.workload, res.sizes = rep.workload, dict(rep.sizes)
    t0 = time.perf_counter()
    try:
        sizes = {k: str(v) for k, v in rep.sizes.items()}
        # sampling methods that need each launch's profile (Photon, PKS, auto) get it recorded here,
        # as `simulate` does when it loads a workload by name
        binary = load_gpu(gpu, overrides).compute_capability if isa == "sass" else None
        cmds, name = load_commands(rep.workload, size=rep.preset, sizes=sizes, isa=isa, binary_version=binary,
                                   profile=profile_level(sample))
        sim = simulate(cmds, gpu, overrides=overrides, memory_model=memory_model, sample=sample,
                       workload_name=name)
    except WarpsimError as exc:
        res.status, res.reason = "failed", str(exc).splitlines()[0]
        return res
    kernels = sim.document["kernels"]
    res.sim_cycles = int(sum(k["cycles"] for k in kernels))
    res.kernels = len(kernels)
    res.error_pct = error_pct(res.sim_cycles, row.cycles)
    res.status = "ok"
    res.wall_seconds = time.perf_counter() - t0
    return res


def result_from_document(row: HardwareRow, d) -> ProgramResult:
    """A calibration row's result from a result document (validate.app_results.ResultDocument)."""
    res = ProgramResult(row.suite, row.program, row.label, row.cycles, "ok",
                        workload="run-app" + (f": {d.run_arguments}" if d.run_arguments else ""),
                        sim_cycles=d.sim_cycles, error_pct=error_pct(d.sim_cycles, row.cycles),
                        accelsim_ptx_err_pct=row.accelsim_ptx_err_pct,
                        accelsim_sass_err_pct=row.accelsim_sass_err_pct, kernels=d.kernels,
                        wall_seconds=d.wall_seconds, source=str(d.path))
    if d.kernel_error:
        res.status, res.reason = "failed", f"{d.path.name}: kernel error: {d.kernel_error.splitlines()[0]}"
    elif d.self_check not in (None, "passed"):
        res.status, res.reason = "failed", f"{d.path.name}: the program's own check: {d.self_check}"
    elif d.caches_flushed:
        res.reason = f"{d.path.name}: simulated with {FLUSH}=true (each kernel from an empty L2)"
    return res


def _accelsim_mae(results: Sequence[ProgramResult], attr: str) -> float | None:
    vals = [abs(getattr(r, attr)) for r in results if getattr(r, attr) is not None]
    return sum(vals) / len(vals) if vals else None


def suite_summaries(results: Sequence[ProgramResult]) -> dict[str, dict]:
    """Statistics per suite and over all programs ("all"), with Accel-Sim's MAE on the same programs."""
    ok = [r for r in results if r.status == "ok"]
    groups: dict[str, list[ProgramResult]] = {}
    for r in ok:
        groups.setdefault(r.suite, []).append(r)
    groups["all"] = ok
    out = {}
    for suite, rs in groups.items():
        s: Summary = summarize([r.hw_cycles for r in rs], [r.sim_cycles for r in rs])
        out[suite] = {**s.as_dict(), "accelsim_ptx_mae_pct": _accelsim_mae(rs, "accelsim_ptx_err_pct"),
                      "accelsim_sass_mae_pct": _accelsim_mae(rs, "accelsim_sass_err_pct")}
    return out


def _document(gpu: str, model: str, hw_path: Path, method: str, overrides: Sequence[str],
              results: Sequence[ProgramResult], **extra) -> dict:
    return {
        "gpu": gpu, "memory_model": model, "hardware_file": str(hw_path), "method": method,
        "overrides": list(overrides), "error_definition": "(simulated - silicon) / silicon x 100",
        "programs": [asdict(r) for r in results], "suites": suite_summaries(results), **extra,
    }


def validate_results(paths: Sequence[str | Path], hardware: str | Path | None = None,
                     programs: Sequence[str] = (), *, gpu: str | None = None) -> dict:
    """The validation document of result documents (files or directories of *.json) simulated
    elsewhere, e.g. by `warpsim run-app --mode timing`: each matched to its hardware row by program
    name. Rows without a document are listed ("no result") only when named in `programs`."""
    from warpsim.validate.app_results import (
        common_setting,
        match_documents,
        read_result_document,
        result_files,
    )

    hw_path = Path(hardware) if hardware else default_hardware_file()
    rows = select_rows(read_hardware_csv(hw_path), programs)
    docs = [read_result_document(f) for f in result_files(paths)]
    doc_gpu = common_setting(docs, "gpu", "GPU")
    model = common_setting(docs, "memory_model", "memory model")
    isa = common_setting(docs, "isa", "ISA")
    if gpu and doc_gpu and gpu.lower() != doc_gpu.lower():
        raise InputError(f"--gpu {gpu}, but the result documents were simulated on {doc_gpu}", key="--gpu")
    matched, unmatched = match_documents(rows, docs)
    results = []
    for i, row in enumerate(rows):
        if i in matched:
            results.append(result_from_document(row, matched[i]))
        elif programs:
            results.append(ProgramResult(row.suite, row.program, row.label, row.cycles, "no result",
                                         accelsim_ptx_err_pct=row.accelsim_ptx_err_pct,
                                         accelsim_sass_err_pct=row.accelsim_sass_err_pct,
                                         reason="no result document for this program"))
    if not results:
        names = ", ".join(sorted({d.program for d in docs}))
        raise InputError(f"no result document matches a program of the hardware file (documents' programs: "
                         f"{names})", path=str(hw_path))
    return _document(doc_gpu, model, hw_path, "result documents", (), results, isa=isa,
                     result_documents=[str(d.path) for d in docs],
                     unmatched_results=[f"{d.path}: {d.program}" for d in unmatched])


def validate(gpu: str = "QV100", hardware: str | Path | None = None, programs: Sequence[str] = (), *,
             overrides: Sequence[str] = (), memory_model: str | None = None, sample: str = "full",
             table=CALIBRATION_PROGRAMS, isa: str = "ptx",
             progress: Callable[[ProgramResult], None] | None = None) -> dict:
    """Run the (selected) calibration programs and return the validation document. `isa="sass"`
    simulates each workload's SASS as ptxas emits it for the GPU (docs/sass.md) instead of its PTX."""
    from warpsim.config import load_gpu
    from warpsim.config.models import check_model_overrides

    if isa not in ("ptx", "sass"):
        raise InputError(f"unknown ISA {isa!r} (ptx or sass)", key="--isa", text=isa)
    cfg = load_gpu(gpu, overrides)
    model = memory_model or cfg.memory_model
    check_model_overrides(model, overrides)
    hw_path = Path(hardware) if hardware else default_hardware_file()
    rows = select_rows(read_hardware_csv(hw_path), programs)
    results = []
    for row in rows:
        r = run_program(row, str(gpu), overrides=overrides, memory_model=model, sample=sample, table=table,
                        isa=isa)
        results.append(r)
        if progress:
            progress(r)
    return _document(cfg.name, model, hw_path, sample, overrides, results, isa=isa)
