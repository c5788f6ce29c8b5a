#!/usr/bin/env bash
# D10 (H200): seeded named tunes (`tune --space sm90_gemm --seed`) of the DeepSeek-V3 block keys
# at M = 64…4096 that D8 did not cover, and seeded plain tunes of the INT8 Llama keys at
# M = 1024…4096 (never retuned since tail=2 came), each against the shipped rows, A B B A
# (bench/sweep_rows.sh).
o=$OUT/d10; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $o/gpu.txt 2>&1
export W8A8_CACHE_PATH=$PWD/cache W8A8_KERNEL_DIR=/tmp/k10
done8=" 512,7168,16384 2048,4096,7168 1024,4096,7168 4096,4096,7168 2048,24576,1536 "
keys=""
for nk in 2112,7168 24576,1536 32768,512 7168,16384 4096,7168 7168,2048; do
  for m in 64 128 512 1024 2048 4096; do
    case "$done8" in *" $m,$nk "*) continue ;; esac
    keys="$keys $m,$nk"
  done
done
echo "sm90_gemm$keys" > $o/groups-block.txt
SEED=1 BUDGET=${D10_BUDGET:-170} CHUNK=16 bench/sweep_rows.sh $o/groups-block.txt block fast $o/block /tmp/d10-block.db
echo "block $SECONDS" >> $o/gpu.txt
carry/static/w8a8 cache --db /tmp/d10-block.db export $o/block/winners.sql --winners >> $o/gpu.txt 2>&1
keys=""
for nk in 6144,4096 4096,4096 28672,4096 4096,14336 10240,8192 8192,8192 57344,8192 8192,28672; do
  for m in 1024 2048 4096; do keys="$keys $m,$nk"; done
done
echo "-$keys" > $o/groups-int8.txt
DTYPE=int8 BUDGET=${D10_BUDGET:-170} CHUNK=12 bench/sweep_rows.sh $o/groups-int8.txt tensor fast $o/int8 /tmp/d10-int8.db
echo "int8 $SECONDS" >> $o/gpu.txt
carry/static/w8a8 cache --db /tmp/d10-int8.db export $o/int8/winners.sql --winners >> $o/gpu.txt 2>&1
gzip $o/block/tune-block.jsonl $o/int8/tune-tensor.jsonl
tar czf $OUT/d10.tgz -C $OUT d10 && rm -rf $o
