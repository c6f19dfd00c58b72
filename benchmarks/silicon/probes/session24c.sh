#!/usr/bin/env bash
# Third device run of 2026-11-28: the L2 per-line / per-sector probe (l2_lines.cu) at 1 and 8
# passes per launch, cycles and L2 request counts per launch, L2 not flushed between launches.
set -u
nvcc -O3 -arch=sm_90 benchmarks/silicon/probes/l2_lines.cu -o /tmp/l2l || exit 1
M=gpc__cycles_elapsed.max,dram__sectors_read.sum,dram__sectors_write.sum,smsp__inst_executed.sum
X=$M,lts__t_requests_srcunit_tex_op_write.sum,lts__t_requests_srcunit_tex_op_read.sum
X=$X,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_write.sum
for reps in 1 8; do
  ncu_() { timeout 120 ncu --csv --page raw --print-units base --metrics "$1" --cache-control none \
           --clock-control none /tmp/l2l $reps > "$OUT/l2l_$reps.csv" 2> "$OUT/l2l_$reps.err"; }
  ncu_ "$X" || ncu_ "$M" || echo "l2l $reps failed"
  tail -n 2 "$OUT/l2l_$reps.err"
done
