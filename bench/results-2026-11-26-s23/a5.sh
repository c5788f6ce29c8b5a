#!/usr/bin/env bash
# A5 (session 23, H200): sm90_gemm with 3 consumer warpgroups (192-row tiles, 64 rows each,
# setmaxnreg 40/152) for block scales, where A4's microbenchmark kept the tensor cores busy
# with a third warpgroup. (1) correctness: a tune of 144 three-consumer configs
# (carry/a5-verify.lua: tiles 192x64/96/128, epilogues 0-2, clusters, overlap, specialize)
# on odd shapes, each candidate verified against the reference; (2) speed: a narrowed tune
# (carry/a5-block.lua: 128- and 192-row tiles) of 12 block keys, then the shipped rows (A)
# against its winners (B), 3 rounds, and torch.block beside.
set -u
o=$(mktemp -d)/a5; mkdir -p $o
pk() { tar czf $OUT/a5.tgz -C $(dirname $o) a5; }
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
b=$PWD/carry/static/w8a8
nvidia-smi -L > $o/gpu.txt
args() { for s in $1; do printf ' --shape %s' $s; done; }
export W8A8_KERNEL_DIR=/tmp/ka5
V="1001,2112,1296 129,7168,2048 3,4096,7168 200,256,640"
W8A8_CACHE_DB=/tmp/a5-v.db timeout 150 $b tune --space carry/a5-verify.lua --scale block $(args "$V") \
  --max-candidates 200 --budget 140 --json > $o/verify.jsonl 2> $o/verify.log
echo "verify $? $SECONDS" >> $o/summary.txt
W8A8_CACHE_DB=/tmp/a5-v32.db timeout 60 $b tune --space carry/a5-verify.lua --scale block --out fp32 --shape 1001,2112,1296 \
  --max-candidates 200 --budget 50 --json > $o/verify-fp32.jsonl 2>> $o/verify.log
echo "verify fp32 $? $SECONDS" >> $o/summary.txt; pk
BK="512,4096,7168 512,4096,14336 256,8192,8192 512,8192,8192 256,8192,28672 4096,4096,7168 1024,7168,16384 2048,24576,1536 4096,7168,2048 512,2112,7168 512,7168,16384 512,24576,1536"
W8A8_CACHE_DB=/tmp/a5-new.db timeout 200 $b tune --space carry/a5-block.lua --scale block $(args "$BK") \
  --max-candidates 120 --budget 190 --json > $o/tune.jsonl 2> $o/tune.log
echo "tune $? $SECONDS" >> $o/summary.txt; pk
$b cache --db /tmp/a5-new.db export $o/new.sql --winners 2>>$o/err.log
export W8A8_CACHE_PATH=$PWD/cache W8A8_TUNE=off
for r in 1 2 3; do for v in A B; do db=/tmp/a5-empty.db; [ $v = B ] && db=/tmp/a5-new.db
  W8A8_CACHE_DB=$db timeout 60 $b bench --json --no-cublaslt --graph $(args "$BK") --scale block | sed "s/^{/{\"build\": \"$v\", \"round\": $r, /" >> $o/ab.jsonl 2>>$o/err.log
done; done
echo "ab $SECONDS" >> $o/summary.txt; pk
timeout 100 python3 carry/peers.py $(args "$BK") --providers torch.block --out $o/peers.jsonl > /dev/null 2>>$o/err.log
echo "peers $? $SECONDS" >> $o/summary.txt; pk
