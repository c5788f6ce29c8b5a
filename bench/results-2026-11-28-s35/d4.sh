#!/usr/bin/env bash
# D4 (H200): block keys at M <= 512 (DeepSeek-V3 7168, 2112, 24576 columns at M 16..256;
# Llama 6144, 28672 at 64..512) retuned over the tiles that straddle 128-column blocks
# (bench/results-2026-11-28-s35/straddle2.lua, seeded with the shipped winners);
# then the shipped rows (A) against the winners (B), A B B A (bench/sweep_rows.sh).
o=$OUT/d4; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $o/gpu.txt 2>&1
# the narrowed space the groups file names, from its spec (bench/narrow_space.py)
r=bench/results-2026-11-28-s35
python3 bench/narrow_space.py scripts/sm90_gemm.lua "$(cat $r/straddle2.spec)" > $r/straddle2.lua || exit 2
export W8A8_CACHE_PATH=$PWD/cache W8A8_KERNEL_DIR=/tmp/k3
SEED=1 SETTLE=100 BUDGET=200 CHUNK=12 timeout 420 bench/sweep_rows.sh \
  bench/results-2026-11-28-s35/d4-groups.txt block fast $o /tmp/d4.db
echo "sweep exit $? $SECONDS" >> $o/gpu.txt
gzip $o/tune-block.jsonl
tar czf $OUT/d4.tgz -C $OUT d4 && rm -rf $o
