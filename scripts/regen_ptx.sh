#!/bin/sh
# Recompile every bundled workload .cu to its committed .ptx (needs nvcc; NVCC=... to choose one).
# Pass --check to only list stale PTX files.
set -e
cd "$(dirname "$0")/.."
PY=${PY:-.venv/bin/python}
[ -x "$PY" ] || PY=python3
exec "$PY" -m warpsim.workloads.regen "$@"
