#!/usr/bin/env bash
# D2 (H200): the swap-AB epilogue's terms (sb, bias by weight row; sa by token) loaded when a
# consumer starts its tile instead of after its last K block (templates/sm90_gemm.cuh,
# sm90_swap_terms_at). Two builds over the same shipped cache (A: HEAD, carry/old/w8a8; B: the
# change, carry/static/w8a8), 20-call graph replays, rounds A B B A (bench/bin_ab.sh), on the
# decode grid (M 1-32) for per-tensor, per-row, block and INT8, plus M = 16, 64 of the Llama
# shapes the decode grid lacks. Only the swap rows' kernels differ; the rest (sm80_decode,
# sm90_gemm without swap) run the same code under both builds. Then peers.py --grid decode, and
# the swap, decode and dispatch GPU suites on the new build.
o=$OUT/d2; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
export W8A8_KERNEL_DIR=/tmp/d2-kernels
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.memory,power.limit,serial --format=csv > $o/gpu.txt 2>&1
S=""
for nk in 4096,14336 8192,8192 8192,28672 28672,4096 57344,8192; do
  for m in 1 2 4 8 16 32; do S="$S $m,$nk"; done
done
for nk in 4096,4096 6144,4096 10240,8192; do S="$S 16,$nk 64,$nk"; done
for g in tensor row block int8; do
  gran=$g,$g; [ $g = int8 ] && gran=int8
  # shellcheck disable=SC2086
  CHUNK=36 BENCH_ARGS="--samples 20" timeout 200 bench/bin_ab.sh carry/old/w8a8 carry/static/w8a8 \
    $o/ab-$g.jsonl $gran $S 2>> $o/err.txt
  echo "ab $g $? $SECONDS" >> $o/gpu.txt
done
timeout 120 python3 carry/peers.py --grid decode --out $o/peers.jsonl > $o/peers.log 2>&1
echo "peers $? $SECONDS" >> $o/gpu.txt
for g in tensor row block int8; do
  p=torch.$g.fast; [ $g = block ] && p=torch.block; [ $g = int8 ] && p=torch.int8
  echo "== $g ($p)"; python3 bench/bin_ab.py $o/ab-$g.jsonl $o/peers.jsonl $p
done > $o/ab_table.txt 2>&1
tar czf $OUT/d2.tgz -C $OUT d2
OUT=$o/tests W8A8_BIN=carry/static W8A8_SKIP_CHECK=1 W8A8_SUITES="swap decode dispatch" timeout 250 \
  scripts/gpu-session.sh tests > $o/tests.log 2>&1
echo "suites $? $SECONDS" >> $o/gpu.txt
tar czf $OUT/d2.tgz -C $OUT d2
