#!/usr/bin/env bash
# Second device run of 2026-11-28: the CTA/warp cost probe (cta_cost.cu), cycles per launch.
set -u
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv,noheader
nvcc -O3 -arch=sm_90 benchmarks/silicon/probes/cta_cost.cu -o /tmp/cta || exit 1
nvcc -O3 -arch=sm_90 benchmarks/silicon/probes/l2_writes.cu -o /tmp/l2w || exit 1
M=gpc__cycles_elapsed.max,smsp__inst_executed.sum,sm__cycles_active.avg,gpu__time_duration.sum
X=$M,sm__ctas_launched.sum,sm__warps_launched.sum
ncu_() { timeout 120 ncu --csv --page raw --print-units base --metrics "$1" --cache-control none \
         --clock-control none "${@:3}" > "$OUT/$2.csv" 2> "$OUT/$2.err"; }
ncu_ "$X" cta /tmp/cta || ncu_ "$M" cta /tmp/cta || echo "cta failed"
# the write probe again without the 256 MB sweeps (repeatability; the model's runs use none)
ncu_ "$X" l2w_nosweep /tmp/l2w 262144 0 || ncu_ "$M" l2w_nosweep /tmp/l2w 262144 0 || echo "l2w failed"
# plain timing of the same binaries without ncu: CUDA events are not needed, nsys is absent,
# so only the programs' own output (checks) here
/tmp/cta; /tmp/l2w 262144 0
tail -3 "$OUT"/*.err
