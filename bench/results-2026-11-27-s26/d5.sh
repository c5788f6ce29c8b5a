# D5 (H200): CUTLASS's tile in sm80_gemm (128x256x128, 3 stages, 2x4 warps, staged epilogue; the
# new copy path) against torch._int_mm's CUTLASS kernel at 4096^3 INT8 under Nsight Compute:
# the detail sections and the per-instruction warp-stall samples (bench/ncu_stalls.py) of each.
o=$OUT
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
l=/tmp/l5 && mkdir -p $l
export W8A8_CACHE_DB=/tmp/one.db W8A8_KERNEL_DIR=/tmp/k5
unset W8A8_CACHE_PATH
python3 bench/narrow_space.py scripts/sm80_gemm.lua \
  block_m=128,block_n=256,block_k=128,stages=3,warps_m=2,warps_n=4,slice_k=1,group=8,prefetch=0,epilogue=1 \
  > /tmp/cutlass-tile.lua
carry/static/w8a8 tune --space /tmp/cutlass-tile.lua --dtype int8 --scale row \
  --shape 4096,4096,4096 > $l/tune.txt 2>&1
cat > /tmp/im.py <<'PY'
import torch
x = torch.randint(-100, 100, (4096, 4096), dtype=torch.int8, device="cuda")
w = torch.randint(-100, 100, (4096, 4096), dtype=torch.int8, device="cuda")
for _ in range(6):
    torch._int_mm(x, w.t())
torch.cuda.synchronize()
PY
secs="--section SpeedOfLight --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis \
  --section WarpStateStats --section SchedulerStats --section Occupancy --section LaunchStats \
  --section InstructionStats"
src="--section SourceCounters --section WarpStateStats --page source --print-source sass --csv"
ours="carry/static/w8a8 bench --shape 4096,4096,4096 --dtype int8 --scale row --no-cublaslt --samples 5"
timeout 150 ncu --clock-control none --kernel-name w8a8_sm80_gemm --launch-skip 3 --launch-count 1 \
  $secs --print-details all $ours > $l/ncu-ours.txt 2>&1
timeout 150 ncu --clock-control none --kernel-name w8a8_sm80_gemm --launch-skip 3 --launch-count 1 \
  $src $ours > $l/src-ours.csv 2>&1
timeout 150 ncu --clock-control none --kernel-name regex:'.*cutlass.*' --launch-skip 4 --launch-count 1 \
  $secs --print-details all python3 /tmp/im.py > $l/ncu-torch.txt 2>&1
timeout 150 ncu --clock-control none --kernel-name regex:'.*cutlass.*' --launch-skip 4 --launch-count 1 \
  $src python3 /tmp/im.py > $l/src-torch.csv 2>&1
for f in ours torch; do python3 bench/ncu_stalls.py $l/src-$f.csv --top 30 --context 3 > $l/stalls-$f.txt 2>&1; done
gzip $l/src-*.csv
tar czf $o/d5.tgz -C /tmp l5
