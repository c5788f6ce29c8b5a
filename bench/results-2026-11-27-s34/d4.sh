#!/usr/bin/env bash
# D4 (H200): the GPU suites that run what this session changed, on the final build: sm80_gemm
# (FP8 as f16 mmas on sm_90), jit, tune (the tuner over the spaces, sm80_gemm's rank()); then
# seeded plain retunes, with the GPU idle 100 ms before each finalist (`tune --settle 100`,
# untried before), of the 18 H200 FP8 rows whose configs predate `specialize`
# (bench/old_rows.py: 17 per-tensor, mostly at M buckets the grids do not time, and one
# per-row), A B B A against the shipped rows (bench/sweep_rows.sh).
o=$OUT/d4; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $o/gpu.txt 2>&1
tar xJf carry/tests.tar.xz -C carry/static
W8A8_SUITES="sm80_gemm jit tune" W8A8_BIN=carry/static W8A8_PACK=1 W8A8_PACK_NAME=suites \
  W8A8_SKIP_CHECK=1 W8A8_TEST_TIMEOUT=200 W8A8_CACHE_DB=/tmp/t.db \
  W8A8_KERNEL_DIR=/tmp/tk OUT=$o timeout 220 scripts/gpu-session.sh tests > $o/suites.log 2>&1
echo "suites exit $? $SECONDS" >> $o/gpu.txt
tar czf $OUT/d4.tgz -C $OUT d4
export W8A8_CACHE_PATH=$PWD/cache W8A8_KERNEL_DIR=/tmp/k4
echo "- 48,4096,4096 12288,4096,4096 16384,4096,4096 768,4096,14336 3072,4096,14336 6144,4096,14336 12288,4096,14336 16384,4096,14336 12288,6144,4096 16384,6144,4096 1024,8192,8192 8192,8192,28672 1024,10240,8192 4096,10240,8192 6144,28672,4096 12288,28672,4096 16384,28672,4096" > $o/groups-tensor.txt
echo "- 2048,8192,28672" > $o/groups-row.txt
for s in tensor row; do
  SETTLE=100 BUDGET=230 CHUNK=20 timeout 300 bench/sweep_rows.sh $o/groups-$s.txt $s fast $o/$s /tmp/d4-$s.db
  echo "$s exit $? $SECONDS" >> $o/gpu.txt
  gzip $o/$s/tune-$s.jsonl
  tar czf $OUT/d4.tgz -C $OUT d4
done
tar czf $OUT/d4.tgz -C $OUT d4 && rm -rf $o
