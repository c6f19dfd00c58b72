#!/usr/bin/env bash
# The device run of 2026-11-28 (one H200 lease): the L2 write probe under both ncu cache
# controls, the H200's DRAM latency (a 128 MB ring), and workloads not measured on 2026-11-27.
# Run from the repository root with OUT set; everything that comes back is under $OUT.
set -u
export PYTHONPATH=src PYTHONUNBUFFERED=1
t0=$(date +%s)
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv,noheader
nvcc -O3 -arch=sm_90 -cudart shared benchmarks/silicon/probes/l2_writes.cu -o /tmp/l2w || exit 1
M=gpc__cycles_elapsed.max,dram__sectors_read.sum,dram__sectors_write.sum
M=$M,lts__t_sectors_srcunit_tex_op_write_lookup_hit.sum,lts__t_sectors_srcunit_tex_op_write_lookup_miss.sum
X=$M,lts__t_requests_srcunit_tex_op_write.sum,lts__t_sectors_op_write.sum
for cc in none all; do
  sweep=67108864; [ $cc = all ] && sweep=0
  ncu_() { timeout 90 ncu --csv --page raw --print-units base --metrics "$1" --cache-control $cc \
           --clock-control none /tmp/l2w 262144 $sweep > "$OUT/l2w_$cc.csv" 2> "$OUT/l2w_$cc.err"; }
  ncu_ "$X" || ncu_ "$M" || echo "l2w $cc failed"
  tail -2 "$OUT/l2w_$cc.err"
done
echo "[$(( $(date +%s) - t0 )) s] probe done"
L=benchmarks/silicon/lease.py
python3 $L /tmp/lease/dram_lat standard 90 micro/dram_lat --size NODES=524288 --counters micro/dram_lat
python3 $L /tmp/lease/fdtd2d standard 60 polybench/fdtd2d --size NX=1024 --size NY=1024 --size TMAX=10 \
  --counters polybench/fdtd2d
left=$(( 330 - ($(date +%s) - t0) ))
python3 $L /tmp/lease/more standard $left ml/conv2d_im2col ml/attention-tc ml/transformer-tc sdk/scan \
  --counters ml/conv2d_im2col
tar czf "$OUT/lease.tgz" -C /tmp lease
echo "[$(( $(date +%s) - t0 )) s] all done"
