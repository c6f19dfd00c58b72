"""Result documents of runs made elsewhere (`warpsim run-app --mode timing --json`, `warpsim sim --json`)
as validation results: matched to the rows of a calibration CSV by program name, so the programs'
original executables, run at the CSV's arguments, are compared with silicon by the same table and
statistics as `warpsim validate`'s own reproductions (calibration.validate).

A document names its program by, in order: its `validate.program` (and optionally `validate.suite`)
section, which benchmarks/run_app/run_public.py writes; else `app.program` (the executable's file name
under run-app); else `workload`. Its simulated cycles are the sum over its kernels (every launch of the
run), as the CSV's silicon figure is.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from warpsim.errors import InputError
from warpsim.validate.hardware import HardwareRow
from warpsim.validate.programs import program_key


@dataclass(frozen=True)
class ResultDocument:
    path: Path
    program: str
    suite: str | None           # CSV suite named by the document, when it names one
    gpu: str
    memory_model: str
    sim_cycles: int
    kernels: int
    run_arguments: str = ""
    wall_seconds: float = 0.0
    self_check: str | None = None   # run_public.py's verdict on the program's own check
    kernel_error: str | None = None
    caches_flushed: bool = False    # made with --set l2.flush_before_kernel=true (as ncu measures)
    isa: str = "ptx"                # "sass": the run simulated the SASS ptxas emits (run-app --isa sass)


def result_files(paths: Sequence[str | Path]) -> list[Path]:
    """The JSON files named, directories expanded to their *.json (sorted)."""
    files: list[Path] = []
    for p in map(Path, paths):
        if p.is_dir():
            found = sorted(p.glob("*.json"))
            if not found:
                raise InputError("no *.json result documents in this directory", path=str(p))
            files += found
        elif p.is_file():
            files.append(p)
        else:
            raise InputError("no such result document or directory", path=str(p))
    return files


def read_result_document(path: Path) -> ResultDocument:
    """One timing-mode result document; anything without simulated cycles is an input error naming
    the file and what to do."""
    try:
        doc = json.loads(path.read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InputError(f"not a readable JSON result document ({exc})", path=str(path)) from None
    if not isinstance(doc, dict) or not isinstance(doc.get("kernels"), list):
        raise InputError("not a warpsim result document (no kernels list)", path=str(path))
    app = doc.get("app") or {}
    val = doc.get("validate") or {}
    if doc.get("method") == "functional":
        raise InputError("a functional-mode document has no cycles: run the program with "
                         "`warpsim run-app --mode timing`", path=str(path), key="method")
    missing = [i for i, k in enumerate(doc["kernels"]) if not isinstance(k.get("cycles"), (int, float))]
    if missing:
        raise InputError(f"kernel {missing[0]} has no simulated cycles", path=str(path), key="kernels")
    program = val.get("program") or app.get("program") or doc.get("workload")
    if not program:
        raise InputError("the document names no program (validate.program, app.program or workload)",
                         path=str(path))
    wall = val.get("wall_seconds", (doc.get("total") or {}).get("wall_seconds", 0.0))
    return ResultDocument(
        path=path, program=str(program), suite=val.get("suite") or None, gpu=str(doc.get("gpu", "")),
        memory_model=str(doc.get("memory_model", "")),
        sim_cycles=int(sum(k["cycles"] for k in doc["kernels"])), kernels=len(doc["kernels"]),
        run_arguments=str(val.get("run_arguments", "")), wall_seconds=float(wall or 0.0),
        self_check=val.get("self_check"), kernel_error=app.get("kernel_error") or None,
        caches_flushed=any(str(o).replace(" ", "").lower() == "l2.flush_before_kernel=true"
                           for o in doc.get("overrides") or ()),
        isa=str(doc.get("isa") or "ptx"))


def _names(row: HardwareRow) -> set[str]:
    names = {program_key(row.suite, row.program)[1], row.program, row.short_name}
    return {n.lower() for n in names if n}


def match_documents(rows: Sequence[HardwareRow], docs: Sequence[ResultDocument]
                    ) -> tuple[dict[int, ResultDocument], list[ResultDocument]]:
    """{row index: document} and the documents matching no row. A document matching several rows
    (the CSV has "histogram" in two suites) or a row matched twice is an input error."""
    matched: dict[int, ResultDocument] = {}
    unmatched: list[ResultDocument] = []
    for d in docs:
        hits = [i for i, r in enumerate(rows) if d.program.lower() in _names(r)
                and (d.suite is None or d.suite.lower() == r.suite.lower())]
        if not hits:
            unmatched.append(d)
            continue
        if len(hits) > 1:
            suites = ", ".join(rows[i].suite for i in hits)
            raise InputError(f"program {d.program!r} matches {len(hits)} rows of the hardware file (suites: "
                             f"{suites}); name one with the document's validate.suite, or select the rows "
                             "by suite on the command line", path=str(d.path))
        i = hits[0]
        if i in matched:
            raise InputError(f"a second result for {rows[i].label} ({rows[i].suite}); the first is "
                             f"{matched[i].path}", path=str(d.path))
        matched[i] = d
    return matched, unmatched


def common_setting(docs: Sequence[ResultDocument], attr: str, what: str) -> str:
    """The GPU (or memory model) all documents were simulated with; mixed ones are an input error."""
    values = {getattr(d, attr) for d in docs}
    if len(values) > 1:
        listing = "; ".join(f"{d.path.name}: {getattr(d, attr) or '?'}" for d in docs)
        raise InputError(f"the result documents were simulated with different {what}s ({listing}); "
                         "validate one at a time")
    return values.pop() if values else ""
