#!/usr/bin/env bash
# Fourth device run of 2026-11-28, on an H100: do the H200's CTA rate and L2 write costs (which
# the H100 description takes) hold on the H100, and what are its DRAM latency and microbenchmarks.
set -u
export PYTHONPATH=src PYTHONUNBUFFERED=1
t0=$(date +%s)
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.mem --format=csv,noheader
nvcc -O3 -arch=sm_90 benchmarks/silicon/probes/cta_cost.cu -o /tmp/cta || exit 1
nvcc -O3 -arch=sm_90 benchmarks/silicon/probes/l2_lines.cu -o /tmp/l2l || exit 1
M=gpc__cycles_elapsed.max,smsp__inst_executed.sum,dram__sectors_read.sum,dram__sectors_write.sum
ncu_() { timeout 90 ncu --csv --page raw --print-units base --metrics "$M" --cache-control none \
         --clock-control none "${@:2}" > "$OUT/$1.csv" 2> "$OUT/$1.err" || echo "$1 failed"; }
ncu_ cta /tmp/cta
ncu_ l2l_1 /tmp/l2l 1
ncu_ l2l_8 /tmp/l2l 8
echo "[$(( $(date +%s) - t0 )) s] probes done"
L=benchmarks/silicon/lease.py
python3 $L /tmp/lease/dram_lat standard 60 micro/dram_lat --size NODES=524288
left=$(( 230 - ($(date +%s) - t0) ))
python3 $L /tmp/lease/micro standard $left micro/dram_bw micro/l2_lat micro/l2_bw micro/atomic_tput \
  micro/atomic_lat micro/l1_lat micro/maxflops_fp32 micro/vecadd sdk/transpose
tar czf "$OUT/lease.tgz" -C /tmp lease
echo "[$(( $(date +%s) - t0 )) s] all done"
