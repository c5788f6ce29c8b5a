#!/usr/bin/env bash
# D2 (H200): issue 14, where the INT8 sm80_gemm tiles of M >= 2048 lose at K = 4096. Tuned over
# sm80_narrow.lua (the 8-warp 128x256 / 256x128 winners' params; as run it was a committed copy
# of scripts/sm80_gemm.lua, now made here by bench/narrow_space.py) at 2048 / 4096 / 8192 x 4096 x
# 4096 and 2048 x 4096 x 14336 (INT8 per-row, bf16 out) into /tmp/n.db, then the winners benched
# as the figure times them (w8a8 bench, 1 ms host-launched batches) with the committed
# templates (A), with carry/tpl_nostore (the staged tile never leaves shared memory: B) and
# carry/tpl_noepi (no epilogue at all: C), rounds A B C A; the difference is what the epilogue
# costs (carry/tpl_*: templates/ with nostore.patch or noepi.patch, from this folder, applied).
# Then the swap suite again (its 256-row block_k config fixed).
o=$OUT/d2; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
export W8A8_TUNE=off
nvidia-smi --query-gpu=name,clocks.max.sm,clocks.max.memory,power.limit,serial --format=csv > $o/gpu.txt 2>&1
W=$PWD/carry/static/w8a8
S="--shape 2048,4096,4096 --shape 4096,4096,4096 --shape 8192,4096,4096 --shape 2048,4096,14336"
rm -f /tmp/n.db
python3 bench/narrow_space.py scripts/sm80_gemm.lua   block_m=128/256,block_n=128/256,block_k=128,stages=3/4,warps_m=2/4,warps_n=2/4,slice_k=1,group=8,prefetch=1,epilogue=1,persist=0/1   > /tmp/sm80_narrow.lua
# shellcheck disable=SC2086
timeout 200 $W tune $S --dtype int8 --scale row --space /tmp/sm80_narrow.lua \
  --db /tmp/n.db --budget 170 --json > $o/tune.jsonl 2> $o/tune.err
echo "tune $? $SECONDS" >> $o/gpu.txt
b() { # label template-dir
  # shellcheck disable=SC2086
  env W8A8_CACHE_DB=/tmp/n.db W8A8_KERNEL_DIR=/tmp/k-$1 ${2:+W8A8_TEMPLATE_DIR=$2} timeout 60 \
    $W bench $S --dtype int8 --scale row --no-cublaslt --json > $o/bench-$1.jsonl 2>> $o/err.txt
  echo "bench $1 $? $SECONDS" >> $o/gpu.txt
}
b a ""; b nostore carry/tpl_nostore; b noepi carry/tpl_noepi; b a2 ""
tar czf $OUT/d2.tgz -C $OUT d2
mkdir -p /tmp/s-swap2
(cd /tmp/s-swap2 && W8A8_KERNEL_DIR=/tmp/s-swap2/k W8A8_CACHE_DB=/tmp/s-swap2/t.db timeout 200 \
  "$OLDPWD/carry/static/tests/check_gpu_swap" > $o/swap.log 2>&1; echo "swap exit $? $SECONDS" >> $o/gpu.txt)
tar czf $OUT/d2.tgz -C $OUT d2
