#!/usr/bin/env bash
# D5 (H200), two small questions after the closing call:
# 1. 128x7168x2048 block ran 508.0 TFLOP/s in dclose (DeepGEMM's table: 510): does the named
#    sm90_gemm space (split-K and overlap 4/5 at every M), 400 best-ranked configs with --seed,
#    find a faster config than the shipped one?
# 2. At M = 16 our swap-AB kernels plateau at 4.15-4.17 TB/s where cuBLAS streamed 4.24-4.35 on
#    D4's H200: does sm80_decode (CUDA-core / mma.sync rows, whole row chunks; 4.24 TB/s at
#    M = 1 there) stream more at M = 16? Its space with --seed at the three D4 shapes.
# Then shipped against tuned rows, rounds ship tuned tuned ship, peers.py between.
o=$OUT/d5; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
export W8A8_TUNE=off W8A8_CACHE_PATH=$PWD/cache
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.memory,power.limit --format=csv > $o/gpu.txt 2>&1
W=$PWD/carry/static/w8a8
pack() { tar czf $OUT/d5.tgz -C $OUT d5; }
t=$o/tune; mkdir -p $t
rm -f /tmp/tuned.db /tmp/empty.db
timeout 90 $W tune --shape 128,7168,2048 --scale block,block --space sm90_gemm --seed \
  --db /tmp/tuned.db --budget 80 --max-candidates 400 --json > $t/tune-block.jsonl 2> $t/tune-block.err
echo "tune block $? $SECONDS" >> $o/gpu.txt
S="--shape 16,57344,8192 --shape 16,8192,28672 --shape 16,28672,4096"
# shellcheck disable=SC2086
timeout 90 $W tune $S --scale tensor,tensor --space sm80_decode --seed --db /tmp/tuned.db \
  --budget 80 --json > $t/tune-decode.jsonl 2> $t/tune-decode.err
echo "tune decode $? $SECONDS" >> $o/gpu.txt
gzip -f $t/tune-*.jsonl
pack
two() { # label db round
  W8A8_CACHE_DB=$2 timeout 60 $W bench --shape 128,7168,2048 --scale block,block --graph --json \
    --no-cublaslt --samples 20 $4 > $t/$1-block-r$3.jsonl 2>> $t/err.txt
  # shellcheck disable=SC2086
  W8A8_CACHE_DB=$2 timeout 60 $W bench $S --scale tensor,tensor --graph --json --no-cublaslt \
    --samples 20 $4 > $t/$1-tensor-r$3.jsonl 2>> $t/err.txt
  echo "$1 round $3 $SECONDS" >> $o/gpu.txt
}
two ship /tmp/empty.db 1; two tuned /tmp/tuned.db 1 --verify
# shellcheck disable=SC2086
timeout 100 python3 carry/peers.py --shape 128,7168,2048 $S \
  --providers torch.block,torch.tensor.fast,torch.bf16 --out $t/peers.jsonl > $t/peers.log 2>&1
two tuned /tmp/tuned.db 2; two ship /tmp/empty.db 2
python3 bench/results-2026-11-28-s40/ab_rounds.py $t ship tuned block tensor > $t/table.txt 2>&1
echo "done $SECONDS" >> $o/gpu.txt
pack
