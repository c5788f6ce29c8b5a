#!/usr/bin/env bash
# D4 (H200): (1) the per-tile offset K loop (this build, carry/neww) against HEAD's templates
# (carry/oldw) on the shipped rows: the DeepSeek-V3 grid and Llama M 16..512, block, A B B A
# (bench/bin_ab.sh); (2) 22 block keys whose straddling tiles were within ~6 % of the shipped
# 128-wide rows in session 35 retuned over straddling tiles (straddle3.spec, seeded with the
# shipped winners, --settle 100), then shipped rows (A) against the winners (B), A B B A.
o=$OUT/d4; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $o/gpu.txt 2>&1
r=bench/results-2026-11-28-s36
shapes=""
for nk in 2112,7168 24576,1536 32768,512 7168,16384 4096,7168 7168,2048; do
  for m in 16 64 128 512 1024 2048 4096; do shapes="$shapes $m,$nk"; done
done
for nk in 6144,4096 4096,4096 28672,4096 4096,14336 10240,8192 8192,8192 57344,8192 8192,28672; do
  for m in 16 64 128 256 512; do shapes="$shapes $m,$nk"; done
done
CHUNK=24 timeout 200 bench/bin_ab.sh carry/oldw/w8a8 carry/neww/w8a8 $o/ab-old-new.jsonl block,block $shapes 2> $o/err.log
echo "ab exit $? $SECONDS" >> $o/gpu.txt
python3 bench/bin_ab.py $o/ab-old-new.jsonl > $o/table-old-new.txt 2>&1
tar czf $OUT/d4.tgz -C $OUT d4
python3 bench/narrow_space.py scripts/sm90_gemm.lua "$(cat $r/straddle3.spec)" > $r/straddle3.lua || exit 2
export W8A8_CACHE_PATH=$PWD/cache W8A8_KERNEL_DIR=/tmp/k3
SEED=1 SETTLE=100 BUDGET=150 CHUNK=12 timeout 380 bench/sweep_rows.sh $r/d4-groups.txt block fast $o/sweep /tmp/d4.db
echo "sweep exit $? $SECONDS" >> $o/gpu.txt
gzip $o/sweep/tune-block.jsonl
tar czf $OUT/d4.tgz -C $OUT d4 && rm -rf $o
