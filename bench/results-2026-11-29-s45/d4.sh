#!/usr/bin/env bash
# D4 (H200): issue 11's acceptance 2 on this build, not measured since session 24. (1)
# bench/accuracy.py: RMS / max relative error against a float64 reference, ours (fast and
# promoted) beside torch._scaled_mm (default, fast), per-tensor / per-row / block, K 1024 ...
# 16384, at M = 512 with N = 4096 and N = 7168. (2) The promoted per-tensor and per-row paths
# (--accum promoted, shipped rows) against torch's default (accurate) _scaled_mm,
# torch.tensor / torch.row, on the Llama grid at M = 512 ... 8192, 20-call graph replays on
# both sides, ours before and after peers.py.
o=$OUT/d4; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
export W8A8_TUNE=off W8A8_CACHE_PATH=$PWD/cache W8A8_CACHE_DB=/tmp/empty.db
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.memory,power.limit,serial --format=csv > $o/gpu.txt 2>&1
W=$PWD/carry/static/w8a8
for n in 4096 7168; do
  W8A8_LIBRARY=$PWD/carry/static/libw8a8jit.so PYTHONPATH=python timeout 120 \
    python3 bench/accuracy.py --m 512 --n $n --json $o/accuracy-n$n.jsonl > $o/accuracy-n$n.txt 2>&1
  echo "accuracy $n $? $SECONDS" >> $o/gpu.txt
done
S=""
for nk in 6144,4096 4096,4096 28672,4096 4096,14336 10240,8192 8192,8192 57344,8192 8192,28672; do
  for m in 512 1024 2048 4096 8192; do S="$S --shape $m,$nk"; done
done
ours() { # round
  for s in tensor row; do
    # shellcheck disable=SC2086
    timeout 150 $W bench $S --scale $s,$s --accum promoted --graph --json --no-cublaslt \
      > $o/ours-$s-r$1.jsonl 2>> $o/err.txt
    echo "ours $s r$1 $? $SECONDS" >> $o/gpu.txt
  done
}
ours 1
# shellcheck disable=SC2086
timeout 200 python3 carry/peers.py $S --providers torch.tensor,torch.row --out $o/peers.jsonl \
  > $o/peers.log 2>&1
echo "peers $? $SECONDS" >> $o/gpu.txt
ours 2
mkdir -p $o/t; gzip -f $o/*.jsonl
tar czf $OUT/d4.tgz -C $OUT d4
