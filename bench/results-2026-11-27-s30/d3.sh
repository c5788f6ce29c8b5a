#!/usr/bin/env bash
# D3 (H200): D2's tuned winners (B: d2's database over the shipped caches) against the
# shipped rows (A) as graph replays, A B B A (bench/bin_ab.sh), on every key whose winner
# changed: 67 block keys (DeepSeek-V3 M = 64...4096, and the block keys of shipped generic
# 128x128 overlap-3 rows) and 5 per-row keys whose shipped 128x192 ping-pong rows spill.
o=$OUT/d3; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
nvidia-smi -L > $o/gpu.txt
db=/tmp/d2.db; gunzip -c bench/results-2026-11-27-s30/d2/tune.db.gz > $db
export W8A8_CACHE_PATH=$PWD/cache W8A8_KERNEL_DIR=/tmp/k3
B_DB=$db CHUNK=24 bench/bin_ab.sh carry/static/w8a8 carry/static/w8a8 $o/ab-block.jsonl block,block \
  64,576,7168 128,576,7168 256,576,7168 1024,576,7168 2048,576,7168 4096,576,7168 64,1536,7168 128,1536,7168 256,1536,7168 512,1536,7168 1024,1536,7168 2048,1536,7168 4096,1536,7168 12288,1536,7168 16384,1536,7168 12288,2112,7168 64,4096,7168 128,4096,7168 256,4096,7168 512,4096,7168 1024,4096,7168 2048,4096,7168 3072,4096,7168 4096,4096,7168 12288,4096,7168 1536,6144,4096 64,7168,2048 128,7168,2048 512,7168,2048 1024,7168,2048 2048,7168,2048 4096,7168,2048 64,7168,16384 128,7168,16384 256,7168,16384 512,7168,16384 1024,7168,16384 2048,7168,16384 4096,7168,16384 64,7168,18432 128,7168,18432 256,7168,18432 512,7168,18432 2048,7168,18432 4096,7168,18432 3072,10240,8192 64,24576,1536 128,24576,1536 256,24576,1536 512,24576,1536 1024,24576,1536 2048,24576,1536 4096,24576,1536 64,32768,512 128,32768,512 256,32768,512 512,32768,512 1024,32768,512 2048,32768,512 4096,32768,512 64,36864,7168 128,36864,7168 512,36864,7168 1024,36864,7168 2048,36864,7168 4096,36864,7168 192,57344,8192 2>> $o/err.log
echo "ab block $SECONDS" >> $o/gpu.txt
B_DB=$db bench/bin_ab.sh carry/static/w8a8 carry/static/w8a8 $o/ab-row.jsonl row,row \
  6144,4096,4096 1536,6144,4096 3072,6144,4096 2048,28672,4096 8192,28672,4096 2>> $o/err.log
echo "ab row $SECONDS" >> $o/gpu.txt
tar czf $OUT/d3.tgz -C $OUT d3 && rm -rf $o
