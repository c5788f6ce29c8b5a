#!/usr/bin/env bash
# D3 (H200): D1's named tunes (w8a8 tune --space sm90_gemm: stagger and split at every M;
# D1 found 2048x24576x1536 1.05x the shipped row in both A B B A pairs with stagger 1) over
# the other DeepSeek-V3 block keys at M = 256...4096, one key a group, then the shipped rows
# (A) against the tunes' winners (B), graph replays A B B A (bench/sweep_rows.sh).
o=$OUT/d3; mkdir -p $o
export LD_LIBRARY_PATH="/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
nvidia-smi --query-gpu=name,clocks.max.sm,power.limit --format=csv > $o/gpu.txt 2>&1
export W8A8_CACHE_PATH=$PWD/cache W8A8_KERNEL_DIR=/tmp/k3
done1="512,7168,16384 1024,4096,7168 2048,4096,7168 2048,24576,1536"
for nk in 2112,7168 24576,1536 32768,512 7168,16384 4096,7168 7168,2048; do
  for m in 256 512 1024 2048 4096; do
    case " $done1 " in *" $m,$nk "*) continue ;; esac
    echo "sm90_gemm $m,$nk"
  done
done > $o/g-block.txt
BUDGET=${D3_BUDGET:-30} CHUNK=13 bench/sweep_rows.sh $o/g-block.txt block fast $o/block /tmp/d3-block.db
echo "block $SECONDS" >> $o/gpu.txt
gzip -c /tmp/d3-block.db > $o/block/tune.db.gz
gzip $o/block/tune-block.jsonl
tar czf $OUT/d3.tgz -C $OUT d3 && rm -rf $o
