# D3 (H200): what torch._int_mm runs where it beats sm80_gemm by 11 % (D2), and both kernels under
# Nsight Compute at 8192x8192x8192 INT8 (ours: D2's tuned winner, from D2's database).
o=$OUT
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
mkdir -p /tmp/l && l=/tmp/l
python3 bench/cublas_kernels.py --providers int8 --shape 2048,6144,4096 --shape 4096,4096,4096 \
  --shape 4096,8192,8192 --shape 8192,8192,8192 --shape 4096,8192,28672 --shape 4096,57344,8192 \
  > $l/int8-kernels.jsonl 2> $l/int8-kernels.err
secs="--section SpeedOfLight --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis \
  --section WarpStateStats --section SchedulerStats --section Occupancy --section LaunchStats \
  --section InstructionStats --print-details all"
cat > /tmp/im.py <<'PY'
import torch
x = torch.randint(-100, 100, (8192, 8192), dtype=torch.int8, device="cuda")
w = torch.randint(-100, 100, (8192, 8192), dtype=torch.int8, device="cuda")
for _ in range(6):
    torch._int_mm(x, w.t())
torch.cuda.synchronize()
PY
timeout 200 ncu --clock-control none --kernel-name regex:'.*([Kk]ernel|gemm|cutlass).*' \
  --kernel-name-base demangled --launch-skip 4 --launch-count 1 $secs python3 /tmp/im.py \
  > $l/ncu-torch.txt 2>&1
echo "ncu torch exit $?" >> $l/summary.txt
W8A8_CACHE_DB=$PWD/bench/results-2026-11-27-s26/d2/gpu-session/sm80.db W8A8_TUNE=off \
  timeout 200 ncu --clock-control none --kernel-name w8a8_sm80_gemm --launch-skip 3 \
  --launch-count 1 $secs carry/static/w8a8 bench --shape 8192,8192,8192 --dtype int8 --scale row \
  --no-cublaslt --samples 5 > $l/ncu-ours.txt 2>&1
echo "ncu ours exit $?" >> $l/summary.txt
tar czf $o/d3.tgz -C /tmp l
