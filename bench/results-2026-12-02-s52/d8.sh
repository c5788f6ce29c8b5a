#!/usr/bin/env bash
# D8 (H200; written in session 51, run in session 52): the cache
# lookup's epilogue lending. The build before it (carry/static/w8a8, A: session 51's D5
# build) against the build with it (carry/static/w8a8new, B) through the shipped caches,
# graph replays A B B A (bench/bin_ab.sh): per-tensor A x per-channel B, INT8 per-token x
# per-channel and fp16 out, keys no shipped H200 row holds, at decode shapes; then the
# dispatch GPU suite of the new build.
o=$OUT/d8; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
export W8A8_KERNEL_DIR=/tmp/d8-kernels
S="1,28672,4096 1,57344,8192 4,4096,14336 16,8192,28672 32,6144,4096"
CHUNK=5 bench/bin_ab.sh carry/static/w8a8 carry/static/w8a8new $o/ab-tensor-row.jsonl tensor,row $S 2>> $o/err.txt
echo "ab tensor,row $? $SECONDS" >> $o/gpu.txt
BENCH_ARGS="--dtype int8" CHUNK=5 bench/bin_ab.sh carry/static/w8a8 carry/static/w8a8new $o/ab-int8-row.jsonl row,row $S 2>> $o/err.txt
echo "ab int8 row,row $? $SECONDS" >> $o/gpu.txt
BENCH_ARGS="--out fp16" CHUNK=5 bench/bin_ab.sh carry/static/w8a8 carry/static/w8a8new $o/ab-fp16.jsonl tensor,tensor $S 2>> $o/err.txt
echo "ab fp16 tensor,tensor $? $SECONDS" >> $o/gpu.txt
python3 bench/bin_ab.py $o/ab-tensor-row.jsonl > $o/ab_table-tensor-row.txt 2>&1
python3 bench/bin_ab.py $o/ab-int8-row.jsonl > $o/ab_table-int8-row.txt 2>&1
python3 bench/bin_ab.py $o/ab-fp16.jsonl > $o/ab_table-fp16.txt 2>&1
timeout 90 carry/static/tests/check_gpu_dispatch > $o/check_gpu_dispatch.log 2>&1
echo "dispatch $? $SECONDS" >> $o/gpu.txt
tar czf $OUT/d8.tgz -C $OUT d8
