#!/usr/bin/env bash
# D6 (H200): the Llama keys at M = 128..256 that stayed below torch (session 37's D4 and this
# session's D3): retuned into a fresh database (64 best-ranked candidates a key, the shipped
# winners seeded, 100 ms settle before each finalist), then ours on the shipped cache and ours
# on the retuned database beside peers.py, graph replays, in the order shipped, tuned, peers,
# tuned, shipped.
o=$OUT/d6; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
export W8A8_TUNE=off
W=carry/static/w8a8
db=$o/tuned.db
T="--shape 256,4096,14336 --shape 256,8192,8192 --shape 128,6144,4096 --shape 256,6144,4096 --shape 128,8192,28672"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $o/gpu.txt 2>&1
W8A8_CACHE_PATH=$PWD/cache timeout 130 $W tune --db $db --dtype e4m3 --scale tensor,tensor $T --max-candidates 64 --settle 100 --budget 120 > $o/tune-tensor.log 2>&1
echo "tune tensor exit $? $SECONDS" >> $o/gpu.txt
W8A8_CACHE_PATH=$PWD/cache timeout 70 $W tune --db $db --dtype e4m3 --scale row,row --shape 256,8192,8192 --shape 256,4096,14336 --max-candidates 64 --settle 100 --budget 60 > $o/tune-row.log 2>&1
echo "tune row exit $? $SECONDS" >> $o/gpu.txt
W8A8_CACHE_PATH=$PWD/cache timeout 50 $W tune --db $db --dtype e4m3 --scale block,block --shape 256,8192,8192 --max-candidates 48 --settle 100 --budget 40 > $o/tune-block.log 2>&1
echo "tune block exit $? $SECONDS" >> $o/gpu.txt
tar czf $OUT/d6.tgz -C $OUT d6
ours() { # label db
  for s in tensor,tensor row,row block,block; do
    W8A8_CACHE_PATH=$PWD/cache W8A8_CACHE_DB=$2 $W bench $T --dtype e4m3 --scale $s --graph --no-cublaslt --json > $o/$1-$s.jsonl 2>> $o/err.txt
  done
}
cp $db /tmp/d6-tuned.db
ours shipped-r1 /tmp/empty.db; ours tuned-r1 /tmp/d6-tuned.db
timeout 60 python3 carry/peers.py $T --providers torch.tensor.fast,torch.row.fast,torch.block --out $o/peers.jsonl > /dev/null 2>> $o/err.txt
ours tuned-r2 /tmp/d6-tuned.db; ours shipped-r2 /tmp/empty.db
echo "bench exit $SECONDS" >> $o/gpu.txt
tar czf $OUT/d6.tgz -C $OUT d6 && rm -rf $o
