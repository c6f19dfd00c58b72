"""The result document's schema (what `warpsim sim --json` and `simulate().document` hold), as pydantic
models: they validate a document and generate the JSON Schema shipped as
`src/warpsim/result.schema.json` (`python -m warpsim.schema` rewrites it; docs/result-schema.md
explains the fields).

Memory counter tables (`l1d`, `l2`, `dram`, `shared`, `icnt`) differ between memory models; their
common keys are listed, others are allowed.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

SCHEMA_PATH = Path(__file__).with_name("result.schema.json")
Provenance = Literal["simulated", "projected", "estimated"]


class _Open(BaseModel):
    model_config = ConfigDict(extra="allow")


class Occupancy(_Open):
    ctas_per_sm: int = Field(description="CTAs one SM holds at once (theoretical)")
    limited_by: str = Field(description="what limits CTAs per SM: threads, warps, registers, shared, ctas")
    theoretical: float = Field(description="resident warps / max warps per SM, from the limit")
    achieved: float = Field(description="average active warps / max warps per SM over the kernel")


class Cache(_Open):
    model: str | None = Field(None, description="'fixed-latency' or 'hierarchy'")
    accesses: int | None = Field(None, description="32 B sector requests (TOTAL_ACCESS)")
    hits: int | None = None
    misses: int | None = None
    miss_rate: float | None = None
    bank_conflicts: int | None = Field(None, description="L1: extra data-bank cycles")
    fetched_with_sectors: int | None = Field(
        None, description="L2: sectors read misses fetched beside their own (l2.fetch_granularity)")
    breakdown: dict[str, dict[str, int]] | None = Field(
        None, description="Accel-Sim TYPE -> STATUS -> sectors (hierarchy model)")


class Dram(_Open):
    reads: int = Field(description="32 B reads")
    writes: int = Field(description="32 B writes")


class Kernel(_Open):
    id: int = Field(description="kernel launch id (Accel-Sim kernel_launch_uid)")
    name: str
    grid: list[int]
    block: list[int]
    stream: int
    cycles: int = Field(description="core cycles from launch to completion (launch latency included)")
    time_us: float = Field(description="cycles at the GPU's core clock, microseconds")
    warp_instructions: int
    thread_instructions: int
    ipc: float = Field(description="warp instructions per core cycle, whole GPU")
    thread_ipc: float = Field(description="thread instructions per core cycle (Accel-Sim gpu_ipc)")
    ctas: int
    provenance: Provenance = Field(description="simulated to the end, or projected (see represented_by, pkp)")
    represented_by: int | None = Field(None, description="projected: the simulated kernel it was "
                                       "projected from")
    launch_cycle: int | None = None
    end_cycle: int | None = None
    truncated: bool | None = Field(None, description="cut by --max-cycles")
    occupancy: Occupancy | None = None
    stalls: dict[str, int | dict[str, float]] | None = Field(
        None, description="scheduler issue slots by outcome (+ 'fractions')")
    l1d: Cache | None = None
    l2: Cache | None = None
    dram: Dram | _Open | None = None
    shared: _Open | None = None
    const: _Open | None = Field(None, description="constant loads (warp instructions) and the cycles their "
                                "distinct addresses added (serialized)")
    icnt: _Open | None = None
    icache: _Open | None = Field(None, description="instruction cache (hierarchy model): lookups (a warp "
                                 "moving to a line other than its last), misses, miss_rate")
    simulated_cycles: int | None = Field(None, description="sampled runs: cycles actually simulated")
    simulated_warp_instructions: int | None = None
    instructions_from: Literal["profile", "projected"] | None = None
    pkp: _Open | None = Field(None, description="PKP: where the kernel was stopped and why")
    photon: _Open | None = Field(None, description="Photon's warp or BB level: where the kernel was stopped, "
                                 "why, and what the projection used")
    probes: _Open | None = Field(None, description="rate probes (--sample auto): the simulated part, and "
                                 "each skipped stretch of the grid with its amount, unit and the rates at "
                                 "its ends")
    auto: _Open | None = Field(None, description="--sample auto: what was done with this launch (simulated, "
                               "intra-kernel, reused), why, its 95 % interval and whether it is flagged")
    memory_from: _Open | None = Field(None, description="projected kernels: where their memory counters "
                                      "were scaled from, and by what factor")


class Total(_Open):
    cycles: int
    time_us: float
    warp_instructions: int
    thread_instructions: int
    ipc: float
    thread_ipc: float
    simulated_warp_instructions: int
    wall_seconds: float = Field(description="what the user waited (imports and compilation included)")
    sim_rate_kips: float = Field(description="simulated warp instructions per wall second / 1000")
    ci95_cycles: list[float] | None = Field(None, description="sampled runs: 95 % interval of total cycles")
    provenance: Provenance
    truncated: bool
    memcpy_bytes: int
    stalls: dict[str, int]
    simulated_cycles: int | None = None
    simulated_fraction: float | None = None


class ResultDocument(_Open):
    """One simulation's result (DESIGN §8)."""

    warpsim_version: str
    gpu: str
    gpu_clock_mhz: float = Field(description="core clock the cycle counts are converted with")
    workload: str
    method: str = Field(description="'full' or a sampling method (pkp, pkp-inst, pks, pka, photon-kernel)")
    memory_model: str
    ptx_order: str | None = Field(None, description="PTX kernels' issue order: 'scheduled' (each basic "
                                  "block ordered as ptxas would, the default) or 'source' "
                                  "(WARPSIM_PTX_ORDER=source)")
    overrides: list[str] = Field(description="--set overrides as given")
    kernels: list[Kernel]
    total: Total
    sampling: _Open | None = Field(None, description="sampled runs: method, selection, kernels simulated")


def json_schema() -> dict:
    schema = ResultDocument.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["$id"] = "warpsim/result.schema.json"
    return schema


def validate(doc: dict) -> ResultDocument:
    """Check a document against the schema (pydantic.ValidationError says where it differs)."""
    return ResultDocument.model_validate(doc)


def main() -> None:
    text = json.dumps(json_schema(), indent=2) + "\n"
    if len(sys.argv) > 1 and sys.argv[1] == "--check":
        sys.exit(0 if SCHEMA_PATH.read_text() == text else 1)
    SCHEMA_PATH.write_text(text)


if __name__ == "__main__":
    main()
