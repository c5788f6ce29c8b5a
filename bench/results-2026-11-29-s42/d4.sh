#!/usr/bin/env bash
# D4 (H200): sm90_gemm with the warpgroup index made warp-uniform for the compiler
# (uniform.patch: a shuffle from lane 0, so the consumers' wgmma descriptors can sit in
# uniform registers; D2 counted 0.70 M R2UR in our block kernel at 256x8192x8192, none in
# cuBLASLt's) against the committed template: one binary, the same shipped cache, A the
# embedded templates, B W8A8_TEMPLATE_DIR=$PWD/templates (the patched tree), graph replays in
# rounds base uni uni base over D1's 17 block / promoted keys and 14 Llama / decode shapes in
# per-tensor, per-row and INT8.
o=$OUT/d4; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
export W8A8_CACHE_PATH=$PWD/cache W8A8_TUNE=off W8A8_CACHE_DB=/tmp/empty-d4.db
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $o/gpu.txt 2>&1
W=$PWD/carry/static/w8a8
python3 bench/results-2026-11-29-s42/overlap_rows.py $o/rows > $o/rows.txt 2>&1
T=""
for s in 1,4096,4096 16,8192,28672 1,57344,8192 64,4096,14336 128,6144,4096 128,8192,8192 \
  256,6144,4096 256,8192,8192 256,8192,28672 512,4096,4096 512,4096,14336 512,8192,8192 \
  1024,8192,8192 4096,4096,4096; do T="$T --shape $s"; done
echo "$T --scale tensor,tensor" > $o/rows/tensor.args
echo "$T --scale row,row" > $o/rows/row.args
echo "$T --dtype int8 --scale tensor,tensor" > $o/rows/int8.args
one() { # label round
  if [ $1 = uni ]; then export W8A8_TEMPLATE_DIR=$PWD/templates; else unset W8A8_TEMPLATE_DIR; fi
  for s in block ptensor prow tensor row int8; do
    # shellcheck disable=SC2046
    W8A8_KERNEL_DIR=/tmp/k-$1 timeout 200 $W bench $(cat $o/rows/$s.args) \
      --graph --no-cublaslt --json --samples 20 > $o/$1-$s-r$2.jsonl 2>> $o/err.txt
  done
  echo "$1 round $2 $SECONDS" >> $o/gpu.txt
}
one base 1; one uni 1; one uni 2; one base 2
python3 bench/results-2026-11-28-s40/ab_rounds.py $o base uni block ptensor prow tensor row int8 \
  > $o/table.txt 2>&1
tar czf $OUT/d4.tgz -C $OUT d4 && rm -rf $o
