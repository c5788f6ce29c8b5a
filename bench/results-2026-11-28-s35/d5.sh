#!/usr/bin/env bash
# D5 (H200): the straddling promotion against the run-time selects on the shipped rows: every
# DeepSeek-V3 and Llama M <= 512 block shape (peers.py's dsv3 grid and llama3 at M 16..512, M = 1 left out)
# dispatched through the final cache by this binary with HEAD~1's templates (A, carry/oldw)
# and with this build's (B, carry/neww), A B B A (bench/bin_ab.sh; rows whose tiles do not
# straddle 128-column blocks run the same code on both sides).
o=$OUT/d5; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $o/gpu.txt 2>&1
shapes=""
for nk in 2112,7168 24576,1536 32768,512 7168,16384 4096,7168 7168,2048; do
  for m in 16 64 128 512 1024 2048 4096; do shapes="$shapes $m,$nk"; done
done
for nk in 6144,4096 4096,4096 28672,4096 4096,14336 10240,8192 8192,8192 57344,8192 8192,28672; do
  for m in 16 64 128 256 512; do shapes="$shapes $m,$nk"; done
done
CHUNK=24 timeout 480 bench/bin_ab.sh carry/oldw/w8a8 carry/neww/w8a8 $o/ab.jsonl block,block $shapes 2> $o/err.log
echo "ab exit $? $SECONDS" >> $o/gpu.txt
python3 bench/bin_ab.py $o/ab.jsonl > $o/table.txt 2>&1
tar czf $OUT/d5.tgz -C $OUT d5 && rm -rf $o
