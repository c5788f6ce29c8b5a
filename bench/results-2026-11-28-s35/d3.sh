#!/usr/bin/env bash
# D3 (H200): the DeepSeek-V3 block keys at M >= 512 with N = 7168 or 2112 retuned over the
# tiles that straddle 128-column blocks (block_n 96, 112: bench/results-2026-11-28-s35/
# straddle.lua, seeded with the shipped winners), now promoted with the blocks as constants;
# then the shipped rows (A) against the winners (B), A B B A (bench/sweep_rows.sh).
o=$OUT/d3; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $o/gpu.txt 2>&1
# the narrowed space the groups file names, from its spec (bench/narrow_space.py)
r=bench/results-2026-11-28-s35
python3 bench/narrow_space.py scripts/sm90_gemm.lua "$(cat $r/straddle.spec)" > $r/straddle.lua || exit 2
export W8A8_CACHE_PATH=$PWD/cache W8A8_KERNEL_DIR=/tmp/k3
SEED=1 SETTLE=100 BUDGET=260 CHUNK=12 timeout 420 bench/sweep_rows.sh \
  bench/results-2026-11-28-s35/d3-groups.txt block fast $o /tmp/d3.db
echo "sweep exit $? $SECONDS" >> $o/gpu.txt
gzip $o/tune-block.jsonl
tar czf $OUT/d3.tgz -C $OUT d3 && rm -rf $o
