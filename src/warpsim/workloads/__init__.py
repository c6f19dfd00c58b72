"""warpsim's bundled workload suite: our own CUDA kernels, committed PTX, host drivers, numpy checks.

from warpsim.workloads import run_workload
result = run_workload("polybench/atax", preset="tiny")   # emulates and checks against numpy
"""

from warpsim.workloads.context import CheckResult, RunContext, WorkloadCheckError
from warpsim.workloads.device import NULL, DeviceApi, EmulatorApi, LaunchRecord, Ptr
from warpsim.workloads.registry import PRESETS, Workload, all_workloads, get_workload, parse_size_overrides
from warpsim.workloads.runner import RunResult, run_workload

__all__ = [
    "CheckResult",
    "RunContext",
    "WorkloadCheckError",
    "NULL",
    "DeviceApi",
    "EmulatorApi",
    "LaunchRecord",
    "Ptr",
    "PRESETS",
    "Workload",
    "all_workloads",
    "get_workload",
    "parse_size_overrides",
    "RunResult",
    "run_workload",
]
